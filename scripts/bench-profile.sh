#!/usr/bin/env bash
# Profiles one ./parallax bench run of parallax-none: a JFR recording and a GC log per replica, and
# perf counters (system calls by kind, context switches, page faults) of the leader (replica 0) and
# of replica 1 over 5 s of the measured period. The figures of docs/results/history.md, "Where the time
# goes", come from runs of this script.
#
# usage: scripts/bench-profile.sh OUT CONNECTIONS OUTSTANDING [key=value,... cluster settings]
# then:  jfr print --json --events jdk.ObjectAllocationSample OUT/jfr/<pid>.jfr   (allocation sites)
#        jfr print --json --events jdk.OldObjectSample OUT/jfr/<pid>.jfr          (what got old)
#        grep Pause OUT/gc-<pid>.log                                              (GC pauses)
#        cat OUT/perf-0.txt OUT/perf-1.txt                                        (per 5 s)
set -euo pipefail
out=${1:?OUT}; connections=${2:?CONNECTIONS}; outstanding=${3:?OUTSTANDING}; props=${4:-}
command -v perf > /dev/null || { echo "needs perf (linux-tools)" >&2; exit 2; }
cd "$(dirname "$0")/.."
rm -rf "$out"; mkdir -p "$out/jfr"; out=$(cd "$out" && pwd)
opts="-Dparallax.bench.jfr=$out/jfr -Dparallax.bench.serverJvm=-Xms2g|-Xmx2g|-XX:+UseParallelGC|-XX:ParallelGCThreads=1|-XX:+AlwaysPreTouch|-Xlog:gc:file=$out/gc-%p.log"
[ -n "$props" ] && opts="$opts -Dparallax.bench.props=$props"
./parallax bench --help > /dev/null # builds first if the sources changed, so the timing below holds
PARALLAX_JAVA_OPTS="$opts" ./parallax bench --system parallax-none --connections "$connections" \
    --outstanding "$outstanding" --seconds 20 --warmup 20 --out "$out" > "$out/bench.log" 2>&1 &
bench=$!
sleep 30 # 20 s of warm-up, then 10 s into the measured period
events=raw_syscalls:sys_enter,context-switches,page-faults,syscalls:sys_enter_write,syscalls:sys_enter_read,syscalls:sys_enter_futex,syscalls:sys_enter_epoll_wait
for id in 0 1; do
    pid=$(pgrep -f "ParallaxCli replica .*--id $id " | head -1)
    perf stat -e "$events" -p "$pid" -o "$out/perf-$id.txt" -- sleep 5 &
done
wait "$bench"
grep -E '^throughput|^latency|commands_executed_total' "$out/bench.log"
