#!/usr/bin/env bash
# Oblivious AES on MiniMac (`otp run minimac_aes`, 2 parties) over a
# simulated LAN: each party in its own network namespace, joined by a veth
# pair rate-limited with a token-bucket filter (`tc tbf`) on both ends, and
# party 1's connection to party 0 passing through a delaying relay
# (examples/delay_relay.rs; the kernel may lack `netem`) calibrated so the
# measured round trip is RTT_US. Prints the round trip, then for every
# block count the latency
# (key input + AES) and the time per block of `RUNS` runs, each on a fresh
# seed-expanded deal. Everything it creates (namespaces, links, processes,
# files) is removed on exit. Needs root, iproute2, tc and python3.
#
#   scripts/minimac_link.sh                 # 1 Gbit/s, 0.1 ms round trip, 1 and 4096 blocks
#   RATE=10gbit RTT_US=0 BLOCKS="1 256" RUNS=5 K=32 scripts/minimac_link.sh
set -euo pipefail
cd "$(dirname "$0")/.."

RATE="${RATE:-1gbit}"
RTT_US="${RTT_US:-100}"
BLOCKS="${BLOCKS:-1 4096}"
RUNS="${RUNS:-3}"
K="${K:-32}"
A="ot-mm-a-$$"
B="ot-mm-b-$$"
ADDR_A=10.78.0.1
ADDR_B=10.78.0.2
WORK=$(mktemp -d)
PIDS=()

cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    ip netns del "$A" 2>/dev/null || true
    ip netns del "$B" 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT INT TERM

if [ "$(id -u)" -ne 0 ] || ! command -v ip >/dev/null || ! command -v tc >/dev/null; then
    echo "scripts/minimac_link.sh needs root, ip and tc" >&2
    exit 1
fi
OTP=target/release/otp
RELAY_BIN=target/release/examples/delay_relay
[ -x "$OTP" ] || cargo build --release --bin otp
[ -x "$RELAY_BIN" ] || cargo build --release --example delay_relay

ip netns add "$A"
ip netns add "$B"
ip link add ot-mma netns "$A" type veth peer name ot-mmb netns "$B"
ip -n "$A" addr add "$ADDR_A/24" dev ot-mma
ip -n "$B" addr add "$ADDR_B/24" dev ot-mmb
for ns in "$A" "$B"; do ip -n "$ns" link set lo up; done
ip -n "$A" link set ot-mma mtu 1500 up
ip -n "$B" link set ot-mmb mtu 1500 up
ip netns exec "$A" tc qdisc add dev ot-mma root tbf rate "$RATE" burst 64kb latency 50ms
ip netns exec "$B" tc qdisc add dev ot-mmb root tbf rate "$RATE" burst 64kb latency 50ms

# Both parties must name the same --peers (the session id is derived from
# them), so party 0's address 10.78.0.3 exists twice: on A's loopback (party
# 0 listens there) and on B's (the relay listens there, so party 1's
# connection to party 0 reaches the relay). The relay delays each direction
# and forwards over the link to a zero-delay forwarder in A, which
# connects to party 0.
PEER0=10.78.0.3
ip -n "$A" addr add "$PEER0/32" dev lo
ip -n "$B" addr add "$PEER0/32" dev lo
ip netns exec "$A" "$RELAY_BIN" "$ADDR_A:7300" "$PEER0:7200" 0 >"$WORK/fwd.log" 2>&1 &
PIDS+=($!)
relay_pid=
start_relay() { # start_relay DELAY_US
    if [ -n "$relay_pid" ]; then kill "$relay_pid"; wait "$relay_pid" 2>/dev/null || true; fi
    ip netns exec "$B" "$RELAY_BIN" "$PEER0:7200" "$ADDR_A:7300" "$1" >"$WORK/relay.log" 2>&1 &
    relay_pid=$!
    PIDS+=($relay_pid)
    for _ in $(seq 100); do grep -q "relay ready" "$WORK/relay.log" 2>/dev/null && return; sleep 0.05; done
    echo "relay did not start"; cat "$WORK/relay.log"; exit 1
}

# The round trip over the whole path (relay, link, forwarder): an echo
# server in A where party 0 will listen, 500 one-byte ping-pongs from B;
# prints the 10th percentile and the median in microseconds (the
# percentile calibrates: it is stable under load, the median is not).
cat >"$WORK/echo.py" <<'EOF'
import socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], 7200)); s.listen(1)
c, _ = s.accept(); c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
while True:
    b = c.recv(1)
    if not b:
        break
    c.sendall(b)
EOF
cat >"$WORK/ping.py" <<'EOF'
import socket, sys, time
c = socket.create_connection((sys.argv[1], 7200))
c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
ts = []
for _ in range(500):
    t = time.perf_counter(); c.sendall(b"x"); c.recv(1); ts.append(time.perf_counter() - t)
c.close()
ts.sort()
print(int(ts[len(ts) // 10] * 1e6), int(ts[len(ts) // 2] * 1e6))
EOF
measure_rtt() {
    ip netns exec "$A" python3 "$WORK/echo.py" "$PEER0" &
    local echo_pid=$!
    sleep 0.3
    ip netns exec "$B" python3 "$WORK/ping.py" "$PEER0"
    wait "$echo_pid" 2>/dev/null || true
}

# Calibration: the path's own round trip with no added delay, then the
# delay per direction that brings it to RTT_US (0 if it is already above),
# corrected once by the measured round trip.
start_relay 0
read -r base base_med < <(measure_rtt)
delay=$(( (RTT_US - base) / 2 ))
[ "$delay" -gt 0 ] || delay=0
start_relay "$delay"
read -r rtt rtt_med < <(measure_rtt)
# One correction step (the relay's timing adds to its delay under load).
delay=$(( delay + (RTT_US - rtt) / 2 ))
[ "$delay" -gt 0 ] || delay=0
start_relay "$delay"
read -r rtt rtt_med < <(measure_rtt)
echo "link: veth between namespaces $A and $B, tbf $RATE each way; relay path round trip without delay ${base} µs (median ${base_med}), relay delay ${delay} µs each way, round trip ${rtt} µs (median ${rtt_med}; target ${RTT_US} µs; 1-byte ping-pong, 10th percentile of 500)"
echo "load: $(uptime)"

KEY0=000102030405060708090a0b0c0d0e0f
KEY1=00000000000000000000000000000000
for b in $BLOCKS; do
    python3 -c "import os
for _ in range($b): print(os.urandom(16).hex())" >"$WORK/pts.txt"
    for r in $(seq "$RUNS"); do
        dir="$WORK/deal-$b-$r"
        "$OTP" deal minimac_aes --parties 2 --blocks "$b" --k "$K" --seeded --out "$dir" >/dev/null
        p0=$(ls "$dir"/*-p0.prep)
        p1=$(ls "$dir"/*-p1.prep)
        ip netns exec "$A" "$OTP" run minimac_aes --party 0 --peers "$PEER0:7200,$ADDR_B:7201" \
            --prep "$p0" --key-share "$KEY0" --input-file "$WORK/pts.txt" >"$WORK/p0.log" 2>&1 &
        pa=$!
        # Party 1 reaches party 0 through the relay, which accepts at once:
        # start it only once party 0 listens.
        for _ in $(seq 200); do
            ip netns exec "$A" ss -ltn | grep -q "$PEER0:7200" && break
            sleep 0.02
        done
        ip netns exec "$B" "$OTP" run minimac_aes --party 1 --peers "$PEER0:7200,$ADDR_B:7201" \
            --prep "$p1" --key-share "$KEY1" --blocks "$b" >"$WORK/p1.log" 2>&1 || { cat "$WORK/p1.log"; exit 1; }
        wait "$pa" || { cat "$WORK/p0.log"; exit 1; }
        echo "blocks $b run $r: $(grep -o 'latency.*per block' "$WORK/p0.log")"
        rm -rf "$dir"
    done
done
