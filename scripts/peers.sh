#!/usr/bin/env bash
# Side-by-side OT-extension throughput: this repo's `ot_table` against the
# C++ peer libraries emp-ot and (optionally) libOTe, on this machine.
#
#   scripts/peers.sh --emp-tool DIR --emp-ot DIR
#                    [--libote DIR [--cryptotools DIR] [--coproto DIR]
#                     [--macoro DIR] [--span-lite DIR] [--function2 DIR]
#                     [--libdivide DIR]]
#                    [--log-n 20|24] [--rounds 3] [--build-dir DIR]
#
# It builds the given checkouts (out of source, under --build-dir, default
# target/peers of this repo), builds our `ot_table`, and then measures in
# rounds: in round r the order of the tools (ours, emp-ot, libOTe) is
# rotated by r, and every tool runs all its rows, each row as two processes
# (sender, receiver) over TCP loopback, one thread per party. At the end it
# prints one table per size: each tool's M OT/s, best / median over the
# rounds, and ours / best peer (medians). Rows a peer cannot run print
# "n/a". Without --log-n both 2^20 and 2^24 are measured.
#
# What each clock contains (printed again in the header):
#   ours    ot_table --tcp --reps 1: the sender's wall clock from `new`
#           (base OTs included) to its output, after one warm-up run in
#           the same process; output buffers allocated before the clock.
#   emp-ot  scripts/peers_emp_rows.cpp, timing as emp-ot's later bench
#           helpers do: a fresh extension object per row, so the base OTs
#           (bootstrapped lazily in the first call) are inside the clock;
#           output buffers allocated and touched before the clock; no
#           warm-up; sender's clock. Column "emp bench": emp-ot's own RCOT
#           bench programs (their clock: base OTs included, outputs not
#           touched before it).
#   libOTe  scripts/peers_libote_rows.cpp, the calls of libOTe's frontend
#           example (which does not build without <format>, i.e. with
#           libstdc++ before GCC 13): sender's clock; base OTs timed
#           separately; the table shows base + extension, and extension
#           alone (the frontend's clock); no warm-up.
#
# libOTe's dependencies: if libOTe's `cryptoTools` submodule is not checked
# out, pass --cryptotools; coproto, macoro, span-lite, function2 and
# libdivide are looked up on the system unless their checkouts are given
# (then they are built and installed into the build directory). coproto
# needs Boost with asio; if the system Boost is older than the version
# coproto's CMake asks for, a version shim is used (stated in the header).
# macoro's coroutines do not compile with g++ 12, so libOTe and its
# dependencies are built with clang++ when one is found ($LIBOTE_CXX
# overrides).
#
# Exit code 2 (with a message) on a missing path or a failed build.
set -euo pipefail

die() { echo "peers.sh: $*" >&2; exit 2; }

usage() {
    sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
    exit "${1:-2}"
}

repo="$(cd "$(dirname "$0")/.." && pwd)"
script_dir="$repo/scripts"

emp_tool="" emp_ot="" libote="" cryptotools="" coproto="" macoro=""
span_lite="" function2="" libdivide="" build_dir="" rounds=3
log_ns=(20 24)

while [ $# -gt 0 ]; do
    case "$1" in
        --emp-tool) emp_tool="${2:-}"; shift 2 ;;
        --emp-ot) emp_ot="${2:-}"; shift 2 ;;
        --libote) libote="${2:-}"; shift 2 ;;
        --cryptotools) cryptotools="${2:-}"; shift 2 ;;
        --coproto) coproto="${2:-}"; shift 2 ;;
        --macoro) macoro="${2:-}"; shift 2 ;;
        --span-lite) span_lite="${2:-}"; shift 2 ;;
        --function2) function2="${2:-}"; shift 2 ;;
        --libdivide) libdivide="${2:-}"; shift 2 ;;
        --log-n) log_ns=("${2:-}"); shift 2 ;;
        --rounds) rounds="${2:-}"; shift 2 ;;
        --build-dir) build_dir="${2:-}"; shift 2 ;;
        -h|--help) usage 0 ;;
        *) echo "peers.sh: unknown argument $1" >&2; usage 2 ;;
    esac
done

[ -n "$emp_tool" ] || die "--emp-tool DIR is required"
[ -n "$emp_ot" ] || die "--emp-ot DIR is required"
case "$rounds" in ''|*[!0-9]*|0) die "--rounds takes a positive integer" ;; esac
for l in "${log_ns[@]}"; do
    case "$l" in 20|24) ;; *) die "--log-n takes 20 or 24, not '$l'" ;; esac
done

# Absolute path of an existing directory, or exit 2.
need_dir() {
    local what="$1" dir="$2"
    [ -d "$dir" ] || die "$what: no such directory: $dir"
    (cd "$dir" && pwd)
}
emp_tool="$(need_dir --emp-tool "$emp_tool")"
emp_ot="$(need_dir --emp-ot "$emp_ot")"
[ -f "$emp_tool/CMakeLists.txt" ] || die "--emp-tool: $emp_tool has no CMakeLists.txt"
[ -f "$emp_ot/CMakeLists.txt" ] || die "--emp-ot: $emp_ot has no CMakeLists.txt"
if [ -n "$libote" ]; then
    libote="$(need_dir --libote "$libote")"
    [ -f "$libote/CMakeLists.txt" ] || die "--libote: $libote has no CMakeLists.txt"
    if [ -n "$cryptotools" ]; then
        cryptotools="$(need_dir --cryptotools "$cryptotools")"
    elif [ -f "$libote/cryptoTools/CMakeLists.txt" ]; then
        cryptotools="$libote/cryptoTools"
    else
        die "--libote: its cryptoTools submodule is not checked out; pass --cryptotools DIR"
    fi
    [ -f "$cryptotools/CMakeLists.txt" ] || die "--cryptotools: $cryptotools has no CMakeLists.txt"
    for v in coproto macoro span_lite function2 libdivide; do
        if [ -n "${!v}" ]; then
            printf -v "$v" '%s' "$(need_dir "--${v/_/-}" "${!v}")"
        fi
    done
fi

build_dir="${build_dir:-$repo/target/peers}"
mkdir -p "$build_dir" || die "cannot create $build_dir"
build_dir="$(cd "$build_dir" && pwd)"
logs="$build_dir/logs"
mkdir -p "$logs"
jobs="$(nproc 2>/dev/null || echo 2)"

# Run a build step, its output to a log; on failure exit 2 with the log's tail.
step() {
    local name="$1"; shift
    echo "peers.sh: building $name" >&2
    if ! "$@" >>"$logs/$name.log" 2>&1; then
        echo "peers.sh: building $name failed; last lines of $logs/$name.log:" >&2
        tail -n 25 "$logs/$name.log" >&2
        exit 2
    fi
}

version_of() {
    if git -C "$1" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        local c
        c="$(git -C "$1" rev-parse HEAD)"
        if [ -n "$(git -C "$1" status --porcelain --untracked-files=no 2>/dev/null)" ]; then
            c="$c (with local changes)"
        fi
        echo "$c"
    else
        echo "unknown"
    fi
}

# ---------------------------------------------------------------- builds

# emp-tool and emp-ot (CMake, out of source).
rm -f "$logs"/emp-*.log
step emp-tool cmake -S "$emp_tool" -B "$build_dir/emp-tool" -DCMAKE_BUILD_TYPE=Release -DEMP_TOOL_BUILD_TESTS=OFF
step emp-tool cmake --build "$build_dir/emp-tool" -j "$jobs"
step emp-ot cmake -S "$emp_ot" -B "$build_dir/emp-ot" -DCMAKE_BUILD_TYPE=Release \
    "-Demp-tool_DIR=$build_dir/emp-tool" -DEMP_OT_BUILD_TESTS=ON
# emp-ot's own RCOT bench programs: test/bench_*_rcot.cpp (party port log_n)
# in emp-ot of May 2026, bench/bench_*.cpp (party log_n, port in EMP_PORT)
# later.
if [ -f "$emp_ot/test/bench_iknp_rcot.cpp" ]; then
    emp_bench_iknp=bench_iknp_rcot emp_bench_ss=bench_softspoken_rcot emp_bench_style=argv
elif [ -f "$emp_ot/bench/bench_iknp.cpp" ]; then
    emp_bench_iknp=bench_iknp emp_bench_ss=bench_softspoken emp_bench_style=env
else
    die "--emp-ot: found neither test/bench_iknp_rcot.cpp nor bench/bench_iknp.cpp in $emp_ot"
fi
step emp-ot cmake --build "$build_dir/emp-ot" -j "$jobs" --target emp-ot "$emp_bench_iknp" "$emp_bench_ss"

# Our driver for the emp-ot rows its bench programs do not time.
mkdir -p "$build_dir/emp-driver-src"
cat >"$build_dir/emp-driver-src/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.21)
project(peers_emp_rows CXX)
find_package(emp-ot CONFIG REQUIRED)
add_executable(peers_emp_rows ${DRIVER_SRC})
target_include_directories(peers_emp_rows PRIVATE ${EMP_OT_SRC})
target_link_libraries(peers_emp_rows PRIVATE emp-ot::emp-ot)
EOF
step emp-driver cmake -S "$build_dir/emp-driver-src" -B "$build_dir/emp-driver" \
    -DCMAKE_BUILD_TYPE=Release "-Demp-ot_DIR=$build_dir/emp-ot" "-Demp-tool_DIR=$build_dir/emp-tool" \
    "-DDRIVER_SRC=$script_dir/peers_emp_rows.cpp" "-DEMP_OT_SRC=$emp_ot"
step emp-driver cmake --build "$build_dir/emp-driver" -j "$jobs"
emp_driver="$build_dir/emp-driver/peers_emp_rows"

# libOTe: its dependencies into a prefix, then libOTe itself from a staging
# source tree of symbolic links (so its cryptoTools submodule can be a
# separate checkout and nothing is written into the checkouts).
libote_drv="" libote_note=""
if [ -n "$libote" ]; then
    rm -f "$logs"/libote*.log "$logs"/coproto.log "$logs"/macoro.log "$logs"/span-lite.log "$logs"/function2.log
    if [ -n "${LIBOTE_CXX:-}" ]; then
        lcxx="$LIBOTE_CXX"
    else
        lcxx="$(command -v clang++ clang++-19 clang++-18 clang++-17 clang++-16 clang++-15 2>/dev/null | head -n 1 || true)"
        lcxx="${lcxx:-c++}"
    fi
    lcc="${lcxx/clang++/clang}"; [ "$lcc" = "$lcxx" ] && lcc=cc
    prefix="$build_dir/libote-prefix"
    mkdir -p "$prefix/include"
    lcmake=(-DCMAKE_BUILD_TYPE=Release "-DCMAKE_C_COMPILER=$lcc" "-DCMAKE_CXX_COMPILER=$lcxx"
            "-DCMAKE_PREFIX_PATH=$prefix" "-DCMAKE_INSTALL_PREFIX=$prefix")

    # Boost: coproto's CMake asks for >= 1.84; older system Boost through a shim.
    boost_cfg="$(ls -d /usr/lib/*/cmake/Boost-* /usr/lib/cmake/Boost-* /usr/local/lib/cmake/Boost-* 2>/dev/null | sort -V | tail -n 1 || true)"
    boost_args=()
    if [ -n "$boost_cfg" ]; then
        bver="${boost_cfg##*/Boost-}"
        if [ "$(printf '%s\n' "$bver" 1.84.0 | sort -V | head -n 1)" != 1.84.0 ]; then
            shim="$build_dir/boost-shim"
            mkdir -p "$shim"
            printf 'include("%s/BoostConfig.cmake")\nset(Boost_VERSION "1.84.0")\nset(Boost_VERSION_STRING "1.84.0")\n' \
                "$boost_cfg" >"$shim/BoostConfig.cmake"
            # The real version while Boost's own config finds its parts;
            # 1.84 afterwards for FindBoost's check.
            printf 'set(PACKAGE_VERSION "%s")\nset(PACKAGE_VERSION_COMPATIBLE TRUE)\n' "$bver" >"$shim/BoostConfigVersion.cmake"
            boost_args=("-DBoost_DIR=$shim")
            libote_note="coproto built against the system Boost $bver (its CMake asks for 1.84; version check bypassed)"
        fi
    fi

    if [ -n "$span_lite" ]; then
        step span-lite cmake -S "$span_lite" -B "$build_dir/span-lite" "${lcmake[@]}" \
            -DSPAN_LITE_OPT_BUILD_TESTS=OFF -DSPAN_LITE_OPT_BUILD_EXAMPLES=OFF
        step span-lite cmake --install "$build_dir/span-lite"
    fi
    if [ -n "$function2" ]; then
        step function2 cmake -S "$function2" -B "$build_dir/function2" "${lcmake[@]}" -DBUILD_TESTING=OFF
        step function2 cmake --install "$build_dir/function2"
    fi
    if [ -n "$libdivide" ]; then
        [ -f "$libdivide/libdivide.h" ] || die "--libdivide: $libdivide has no libdivide.h"
        cp "$libdivide/libdivide.h" "$prefix/include/libdivide.h"
    fi
    if [ -n "$macoro" ]; then
        step macoro cmake -S "$macoro" -B "$build_dir/macoro" "${lcmake[@]}" \
            -DMACORO_TESTS=OFF -DMACORO_CPP_VER=20
        step macoro cmake --build "$build_dir/macoro" -j "$jobs"
        step macoro cmake --install "$build_dir/macoro"
    fi
    if [ -n "$coproto" ]; then
        step coproto cmake -S "$coproto" -B "$build_dir/coproto" "${lcmake[@]}" "${boost_args[@]}" \
            -DCOPROTO_ENABLE_BOOST=ON -DCOPROTO_CPP_VER=20
        step coproto cmake --build "$build_dir/coproto" -j "$jobs"
        step coproto cmake --install "$build_dir/coproto"
    fi

    stage="$build_dir/libote-src"
    rm -rf "$stage"
    mkdir -p "$stage"
    for e in "$libote"/* "$libote"/.[!.]*; do
        [ -e "$e" ] || continue
        b="$(basename "$e")"
        [ "$b" = cryptoTools ] || [ "$b" = .git ] || [ "$b" = out ] || ln -s "$e" "$stage/$b"
    done
    ln -s "$cryptotools" "$stage/cryptoTools"
    # Our driver joins libOTe's own CMake project (after its targets are
    # defined), so it is compiled with libOTe's flags and dependencies.
    cat >"$build_dir/libote-driver.cmake" <<'EOF2'
# Written by scripts/peers.sh: builds its driver against the libOTe target.
cmake_language(DEFER DIRECTORY "${CMAKE_SOURCE_DIR}" CALL _peers_add_libote_driver)
function(_peers_add_libote_driver)
    add_executable(peers_libote_rows "${PEERS_LIBOTE_DRIVER}")
    target_link_libraries(peers_libote_rows PRIVATE libOTe)
    set_target_properties(peers_libote_rows PROPERTIES CXX_STANDARD 20 CXX_STANDARD_REQUIRED ON)
endfunction()
EOF2
    # ENABLE_REGULAR_DPF, ENABLE_SPARSE_DPF: libOTe's Dpf/RevCuckoo sources
    # are compiled unconditionally but need these DPFs.
    step libote cmake -S "$stage" -B "$build_dir/libote" "${lcmake[@]}" "${boost_args[@]}" \
        "-DLIBOTE_BUILD_DIR=$build_dir/libote" "-DOC_THIRDPARTY_HINT=$prefix" \
        "-DOC_THIRDPARTY_CLONE_DIR=$build_dir/libote-clone" \
        -DENABLE_BOOST=ON -DENABLE_IKNP=ON -DENABLE_KOS=ON -DENABLE_DELTA_KOS=ON \
        -DENABLE_SOFTSPOKEN_OT=ON -DENABLE_SIMPLESTOT_ASM=ON -DENABLE_LOGVOLE=OFF \
        -DENABLE_REGULAR_DPF=ON -DENABLE_SPARSE_DPF=ON \
        "-DCMAKE_PROJECT_libOTe_INCLUDE=$build_dir/libote-driver.cmake" \
        "-DPEERS_LIBOTE_DRIVER=$script_dir/peers_libote_rows.cpp"
    step libote cmake --build "$build_dir/libote" -j "$jobs" --target peers_libote_rows
    libote_drv="$build_dir/libote/peers_libote_rows"
    [ -x "$libote_drv" ] || die "libOTe built, but $libote_drv is missing"
fi

# Ours.
echo "peers.sh: building ot_table" >&2
if ! (cd "$repo" && cargo build --release --example ot_table) >"$logs/ot_table.log" 2>&1; then
    echo "peers.sh: building ot_table failed; last lines of $logs/ot_table.log:" >&2
    tail -n 25 "$logs/ot_table.log" >&2
    exit 2
fi
ours_bin="$repo/target/release/examples/ot_table"

# ---------------------------------------------------------------- rows
#
# id | label | our --only name | emp-ot row (peers_emp_rows ROW) |
# emp-ot's own bench program and its output line ("iknp:NAME" / "ss:NAME") |
# libOTe row (peers_libote_rows ROW); "-" = n/a.
rows=(
  "rot-iknp|random OT, IKNP (semi-honest)|iknp|iknp-rot|-|iknp"
  "rot-kos|random OT, KOS (malicious)|kos|kos-rot|-|kos"
  "dot-iknp-cot|Delta-OT IKNP, chosen bits (COT)|deltaiknp|iknp-cot|-|iknp-nohash"
  "dot-iknp-rcot|Delta-OT IKNP, random bits (RCOT)|deltaiknp|iknp-rcot|iknp:IKNP semi RCOT|-"
  "dot-kos-cot|Delta-KOS, chosen bits (COT)|deltakos|kos-cot|-|dkos"
  "dot-kos-rcot|Delta-KOS, random bits (RCOT)|deltakos|kos-rcot|iknp:IKNP mali RCOT|-"
  "chosen-iknp|chosen-message OT, IKNP (semi-honest)|iknpchosen|iknp-ot|-|iknp-chosen"
  "rot-ss2|SoftSpokenOT k=2 random OT (semi-honest)|ss2|ss2-rot|-|ss2"
  "rot-ssmal2|SoftSpokenOT k=2 random OT (malicious)|ssmal2|ssmal2-rot|-|ssmal2"
  "dot-ss2-cot|SoftSpokenOT k=2 Delta-OT, chosen bits|deltass2|ss2-cot|-|-"
  "dot-ss2-rcot|SoftSpokenOT k=2 Delta-OT, random bits (RCOT)|deltass2|ss2-rcot|ss:SoftSpoken<2> semi RCOT|-"
)

# Our rows as printed by ot_table: --only name -> "Type|Security|Protocol".
our_label() {
    case "$1" in
        iknp) echo "1-out-of-2 random OT|passive|IKNP03" ;;
        kos) echo "1-out-of-2 random OT|malicious|KOS15" ;;
        deltaiknp) echo "1-out-of-2 Delta-OT|passive|IKNP03" ;;
        deltakos) echo "1-out-of-2 Delta-OT|malicious|KOS15" ;;
        iknpchosen) echo "1-out-of-2 chosen OT|passive|IKNP03" ;;
        ss2) echo "1-out-of-2 random OT|passive|SoftSpoken k=2" ;;
        ssmal2) echo "1-out-of-2 random OT|malicious|SoftSpoken k=2" ;;
        deltass2) echo "1-out-of-2 Delta-OT|passive|SoftSpoken k=2" ;;
    esac
}

results="$build_dir/results.txt"   # lines: log_n tool row_id round MOT/s
: >"$results"
rm -f "$logs"/ours-*.log
run_dir="$(mktemp -d -t peers.XXXXXX)"
trap 'rm -rf "$run_dir"' EXIT
port=$(( 20000 + RANDOM % 20000 ))
timeout_s=600

record() { echo "$1 $2 $3 $4 $5" >>"$results"; }

# Run a two-process pair: "$1" = sender command (output kept), rest after
# "--" = receiver command. Returns non-zero if either fails or times out.
pair() {
    local out="$run_dir/out" sender=() receiver=()
    while [ "$1" != "--" ]; do sender+=("$1"); shift; done
    shift
    receiver=("$@")
    timeout "$timeout_s" "${sender[@]}" >"$out" 2>"$run_dir/err1" &
    local spid=$!
    sleep 0.2
    local rc=0
    timeout "$timeout_s" "${receiver[@]}" >/dev/null 2>"$run_dir/err2" || rc=$?
    wait "$spid" || rc=$?
    return $rc
}

run_ours() {
    local log_n="$1" round="$2" names="" r id only
    for r in "${rows[@]}"; do
        only="$(echo "$r" | cut -d'|' -f3)"
        case ",$names," in *",$only,"*) ;; *) names="${names:+$names,}$only" ;; esac
    done
    if ! "$ours_bin" --tcp --log-n "$log_n" --reps 1 --no-sha1 --only "$names" \
            >"$run_dir/ours" 2>"$run_dir/ours.err"; then
        echo "peers.sh: ot_table failed (n = 2^$log_n, round $round): $(tail -n 1 "$run_dir/ours.err")" >&2
        return 0
    fi
    cat "$run_dir/ours" >>"$logs/ours-2^$log_n.log"
    for r in "${rows[@]}"; do
        id="${r%%|*}"
        only="$(echo "$r" | cut -d'|' -f3)"
        IFS='|' read -r ty sec proto <<<"$(our_label "$only")"
        # After the label: the time in seconds ("(no hash)" after it on
        # the Delta-OT rows), then M OT/s: the second decimal number.
        local mots
        mots="$(awk -v sec="$sec" -v proto="$proto" -v ty="$ty" '
            index($0, ty) != 1 { next }
            { rest = substr($0, length(ty) + 1); sub(/^ +/, "", rest)
              if (index(rest, sec) != 1) next
              rest = substr(rest, length(sec) + 1); sub(/^ +/, "", rest)
              if (index(rest, proto " ") != 1) next
              rest = substr(rest, length(proto) + 1)
              k = split(rest, f, " ")
              for (i = 1; i <= k; i++) if (f[i] ~ /^[0-9]+\.[0-9]+$/ && ++seen == 2) { print f[i]; exit } }' "$run_dir/ours")"
        if [ -n "$mots" ]; then
            record "$log_n" ours "$id" "$round" "$mots"
        else
            echo "peers.sh: no '$ty / $sec / $proto' row in ot_table's output (n = 2^$log_n)" >&2
        fi
    done
}

run_emp() {
    local log_n="$1" round="$2" r id row spec mots bench name bin done_benches=""
    for r in "${rows[@]}"; do
        id="${r%%|*}"
        row="$(echo "$r" | cut -d'|' -f4)"
        if [ "$row" != "-" ]; then
            port=$((port + 1))
            if pair "$emp_driver" 1 "$port" "$log_n" "$row" -- "$emp_driver" 2 "$port" "$log_n" "$row"; then
                # "ROW n=<n> us=<us>"
                mots="$(awk -v row="$row" '$1 == row { split($2, a, "="); split($3, b, "=");
                          if (b[2] > 0) printf "%.3f", a[2] / b[2]; exit }' "$run_dir/out")"
                if [ -n "$mots" ]; then
                    record "$log_n" emp "$id" "$round" "$mots"
                else
                    echo "peers.sh: emp-ot $row: no time in its output (n = 2^$log_n, round $round)" >&2
                fi
            else
                echo "peers.sh: emp-ot $row failed (n = 2^$log_n, round $round): $(tail -n 1 "$run_dir/err1")" >&2
            fi
        fi
        spec="$(echo "$r" | cut -d'|' -f5)"
        if [ "$spec" != "-" ]; then
            bench="${spec%%:*}"
            name="${spec#*:}"
            # One run of each bench program per round serves all its rows.
            case " $done_benches " in
                *" $bench "*) ;;
                *)
                    done_benches="$done_benches $bench"
                    if [ "$bench" = iknp ]; then bin="$build_dir/emp-ot/$emp_bench_iknp"; else bin="$build_dir/emp-ot/$emp_bench_ss"; fi
                    port=$((port + 1))
                    if [ "$emp_bench_style" = argv ]; then
                        pair "$bin" 1 "$port" "$log_n" -- "$bin" 2 "$port" "$log_n" || true
                    else
                        pair env EMP_PORT="$port" "$bin" 1 "$log_n" -- env EMP_PORT="$port" "$bin" 2 "$log_n" || true
                    fi
                    cp "$run_dir/out" "$run_dir/bench-$bench" 2>/dev/null || : >"$run_dir/bench-$bench"
                    ;;
            esac
            mots="$(grep -F "$name" "$run_dir/bench-$bench" | sed -n 's/.*RCOT[[:space:]]*\([0-9.e+-]*\) MOTps.*/\1/p' | head -n 1 || true)"
            if [ -n "$mots" ]; then
                record "$log_n" emp-bench "$id" "$round" "$mots"
            else
                echo "peers.sh: emp-ot bench line '$name' missing (n = 2^$log_n, round $round)" >&2
            fi
        fi
    done
}

run_libote() {
    local log_n="$1" round="$2" r id row vals
    [ -n "$libote_drv" ] || return 0
    for r in "${rows[@]}"; do
        id="${r%%|*}"
        row="$(echo "$r" | cut -d'|' -f6)"
        [ "$row" = "-" ] && continue
        port=$((port + 1))
        if pair "$libote_drv" 1 "$port" "$log_n" "$row" -- "$libote_drv" 0 "$port" "$log_n" "$row"; then
            # "ROW n=<n> base_us=<us> ext_us=<us>"
            vals="$(awk -v row="$row" '$1 == row { split($2, n, "="); split($3, b, "="); split($4, e, "=");
                      if (e[2] > 0) printf "%.3f %.3f", n[2] / (b[2] + e[2]), n[2] / e[2]; exit }' "$run_dir/out")"
            if [ -n "$vals" ]; then
                record "$log_n" libote "$id" "$round" "${vals% *}"
                record "$log_n" libote-ext "$id" "$round" "${vals#* }"
            else
                echo "peers.sh: libOTe $row: no time in its output (n = 2^$log_n, round $round)" >&2
            fi
        else
            echo "peers.sh: libOTe $row failed (n = 2^$log_n, round $round): $(tail -n 1 "$run_dir/err1")" >&2
        fi
    done
}

tools=(ours emp libote)
[ -n "$libote_drv" ] || tools=(ours emp)
for log_n in "${log_ns[@]}"; do
    for round in $(seq 1 "$rounds"); do
        k=$(( (round - 1) % ${#tools[@]} ))
        order=("${tools[@]:k}" "${tools[@]:0:k}")
        echo "peers.sh: n = 2^$log_n, round $round/$rounds: ${order[*]} (load average: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?'))" >&2
        for tool in "${order[@]}"; do
            "run_$tool" "$log_n" "$round"
        done
    done
done

# ---------------------------------------------------------------- table

# "best / median" of a tool's values for one row, or "n/a".
stats() {
    awk -v l="$1" -v t="$2" -v id="$3" '
        $1 == l && $2 == t && $3 == id { v[++n] = $5 }
        END {
            if (n == 0) { print "n/a"; exit }
            for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] < v[i]) { x = v[i]; v[i] = v[j]; v[j] = x }
            med = (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
            printf "%.1f / %.1f\n", v[n], med
        }' "$results"
}
median_of() { local s; s="$(stats "$@")"; [ "$s" = n/a ] && echo "" || echo "${s##* / }"; }

echo "OT extension: ours vs emp-ot vs libOTe; two processes over TCP loopback, one thread per party;"
echo "$rounds interleaved round(s), tool order rotated each round; M OT/s best / median over the rounds"
echo "machine: $(nproc 2>/dev/null || echo '?') cores, $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //' || echo '?'); load average at the end: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')"
echo "versions: ours $(version_of "$repo")"
echo "          emp-tool $(version_of "$emp_tool"), emp-ot $(version_of "$emp_ot")"
if [ -n "$libote" ]; then
    echo "          libOTe $(version_of "$libote"), cryptoTools $(version_of "$cryptotools")"
    [ -n "$coproto" ] && echo "          coproto $(version_of "$coproto")${macoro:+, macoro $(version_of "$macoro")}"
    echo "          libOTe compiled with $("$lcxx" --version | head -n 1); base OT: its DefaultBaseOT (SimplestOT, assembly)${libote_note:+; $libote_note}"
else
    echo "          libOTe: not given (column n/a)"
fi
echo "clocks: ours   = sender's wall clock from new (base OTs included) to its output; one warm-up run"
echo "                 before it in the same process; output buffers allocated before the clock"
echo "        emp    = scripts/peers_emp_rows.cpp, sender's clock; fresh extension object per row, so base OTs"
echo "                 are included; outputs allocated and touched before the clock; no warm-up; emp's"
echo "                 'malicious IKNP' is the KOS row. Column 'emp bench': emp-ot's own RCOT bench program"
echo "                 (n = 2^k + 101; base OTs included; outputs NOT touched before its clock)"
first_ours_log="$(ls "$logs"/ours-*.log 2>/dev/null | head -n 1 || true)"
if [ -n "$first_ours_log" ]; then
    echo "                 ot_table's own header: $(head -n 1 "$first_ours_log" | sed 's/; best (and median.*//')"
fi
echo "        libOTe = scripts/peers_libote_rows.cpp (the calls of libOTe's frontend example), sender's clock;"
echo "                 column libOTe: base OTs + extension; column 'libOTe ext': extension only (the"
echo "                 frontend's clock: base OTs before it); no warm-up"
echo
for log_n in "${log_ns[@]}"; do
    echo "n = 2^$log_n"
    printf '%-46s %13s %13s %13s %13s %13s %9s\n' "row" "ours" "emp-ot" "emp bench" "libOTe" "libOTe ext" "ours/peer"
    for r in "${rows[@]}"; do
        id="${r%%|*}"
        label="$(echo "$r" | cut -d'|' -f2)"
        o="$(stats "$log_n" ours "$id")"; e="$(stats "$log_n" emp "$id")"; eb="$(stats "$log_n" emp-bench "$id")"
        l="$(stats "$log_n" libote "$id")"; lx="$(stats "$log_n" libote-ext "$id")"
        om="$(median_of "$log_n" ours "$id")"
        pm="$(for t in emp emp-bench libote; do median_of "$log_n" "$t" "$id"; done | sort -g | tail -n 1)"
        if [ -n "$om" ] && [ -n "$pm" ]; then
            ratio="$(awk -v a="$om" -v b="$pm" 'BEGIN { printf "%.2f", a / b }')"
        else
            ratio="n/a"
        fi
        printf '%-46s %13s %13s %13s %13s %13s %9s\n' "$label" "$o" "$e" "$eb" "$l" "$lx" "$ratio"
    done
    echo
done
echo "(raw values: $results)"
