#!/bin/bash
# Idle CPU of a 3-replica cluster (docs/benchmarks.md, "Idle CPU of the ring protocols").
# usage: idle-cpu.sh NAME key=value...   (cluster-file settings, e.g. ordering=multi-ring ring.delta.ms=20)
# Needs ./parallax built (it is the repository root's script); ports 29101-29113 free; writes /tmp/idle/NAME.
name=$1; shift
d=/tmp/idle/$name; rm -rf $d; mkdir -p $d
(umask 077; head -c 32 /dev/urandom > $d/cluster.secret)  # the key of M-Ring's datagram HMAC
cat > $d/c.properties <<P
members=0=127.0.0.1:29101,1=127.0.0.1:29102,2=127.0.0.1:29103
clients=0=127.0.0.1:29111,1=127.0.0.1:29112,2=127.0.0.1:29113
data.dir=$d/data
log.sync=none
cluster.secret=$d/cluster.secret
P
for kv in "$@"; do echo "$kv" >> $d/c.properties; done
for i in 0 1 2; do (PARALLAX_JAVA_OPTS=-Xmx256m "$(cd "$(dirname "$0")/../../.." && pwd)/parallax" replica --config $d/c.properties --id $i --bootstrap > $d/r$i.log 2>&1 &); done
sleep 60
pids=$(pgrep -f "config $d/c.properties")
t0=$(for p in $pids; do awk '{print $14+$15}' /proc/$p/stat; done | paste -sd+ | bc)
sleep 20
t1=$(for p in $pids; do awk '{print $14+$15}' /proc/$p/stat; done | paste -sd+ | bc)
echo "$name: $(echo "scale=3; ($t1-$t0)/100/20/3" | bc) core per replica idle ($(grep -c READY $d/r*.log | paste -sd' ') ready)"
pkill -f "config $d/c.properties"; sleep 2
