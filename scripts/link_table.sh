#!/bin/sh
# Runs the protocol table over a rate-limited link: both processes of
# `ot_table --tcp` talk over the loopback interface of a fresh network
# namespace whose loopback is shaped with a token-bucket filter (`tc tbf`;
# MTU 1500 as on Ethernet). The namespace is created here and removed on
# exit. Needs root (ip netns, tc).
#
#   scripts/link_table.sh 1gbit  --log-n 24 --no-sha1 --only iknp,ss2,ss8
#   scripts/link_table.sh 10gbit --log-n 24 --no-sha1 --only deltaiknp,deltass2
set -eu
rate="${1:?usage: scripts/link_table.sh RATE [ot_table arguments]}"
shift
ns="ot-link-$$"
bin="$(dirname "$0")/../target/release/examples/ot_table"
[ -x "$bin" ] || cargo build --release --example ot_table
ip netns add "$ns"
trap 'ip netns delete "$ns"' EXIT INT TERM
ip netns exec "$ns" ip link set lo mtu 1500
ip netns exec "$ns" ip link set lo up
# A burst of 32 full frames; packets wait at most 50 ms for tokens.
ip netns exec "$ns" tc qdisc add dev lo root tbf rate "$rate" burst 48kb latency 50ms
echo "link: loopback of network namespace $ns shaped to $rate (tbf)"
ip netns exec "$ns" "$bin" --tcp "$@"
