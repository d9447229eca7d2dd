#!/usr/bin/env bash
# Oblivious AES on MiniMac (`otp run minimac_aes`, 2 parties) over a
# simulated LAN: each party in its own network namespace, joined by a veth
# pair rate-limited with a token-bucket filter (`tc tbf`) on both ends, and
# party 1's connection to party 0 passing through a delaying relay
# (tests/network/relay.py; the kernel may lack `netem`). Prints the round
# trip measured through the relay, then for every block count the latency
# (key input + AES) and the time per block of `RUNS` runs, each on a fresh
# seed-expanded deal. Everything it creates (namespaces, links, processes,
# files) is removed on exit. Needs root, iproute2, tc and python3.
#
#   scripts/minimac_link.sh                 # 1 Gbit/s, 0.05 ms each way (0.1 ms RTT), 1 and 4096 blocks
#   RATE=10gbit DELAY_MS=0 BLOCKS="1 256" RUNS=5 K=32 scripts/minimac_link.sh
set -euo pipefail
cd "$(dirname "$0")/.."

RATE="${RATE:-1gbit}"
DELAY_MS="${DELAY_MS:-0.05}"
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
[ -x "$OTP" ] || cargo build --release --bin otp

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

# The relay (in B) forwards party 1's connection to party 0, delaying each
# direction by DELAY_MS.
RELAY=7300
ip netns exec "$B" python3 tests/network/relay.py "127.0.0.1:$RELAY" "$ADDR_A:7200" "$DELAY_MS" 0 \
    >"$WORK/relay.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 100); do grep -q "relay ready" "$WORK/relay.log" 2>/dev/null && break; sleep 0.05; done

# The round trip through the relay and the link: an echo server in A on
# the relay's target port, 200 one-byte ping-pongs from B, median.
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
ip netns exec "$A" python3 "$WORK/echo.py" "$ADDR_A" &
echo_pid=$!
sleep 0.3
rtt=$(ip netns exec "$B" python3 - "$RELAY" <<'EOF'
import socket, sys, time
c = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
ts = []
for _ in range(200):
    t = time.perf_counter(); c.sendall(b"x"); c.recv(1); ts.append(time.perf_counter() - t)
c.close()
ts.sort()
print(f"{ts[len(ts) // 2] * 1e3:.3f} ms (min {ts[0] * 1e3:.3f} ms)")
EOF
)
wait "$echo_pid" 2>/dev/null || true
echo "link: veth between namespaces $A and $B, tbf $RATE each way, relay delay $DELAY_MS ms each way; round trip through the relay (1-byte ping-pong, median of 200): $rtt"
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
        ip netns exec "$A" "$OTP" run minimac_aes --party 0 --peers "$ADDR_A:7200,$ADDR_B:7201" \
            --prep "$p0" --key-share "$KEY0" --input-file "$WORK/pts.txt" >"$WORK/p0.log" 2>&1 &
        pa=$!
        ip netns exec "$B" "$OTP" run minimac_aes --party 1 --peers "127.0.0.1:$RELAY,$ADDR_B:7201" \
            --prep "$p1" --key-share "$KEY1" --blocks "$b" >"$WORK/p1.log" 2>&1 || { cat "$WORK/p1.log"; exit 1; }
        wait "$pa" || { cat "$WORK/p0.log"; exit 1; }
        echo "blocks $b run $r: $(grep -o 'latency.*per block' "$WORK/p0.log")"
        rm -rf "$dir"
    done
done
