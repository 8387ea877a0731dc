#!/usr/bin/env bash
# Parallax test bed: N hosts in Linux network namespaces on one bridge, so that replicas talk over
# real (virtual) links the kernel can drop, cut and cap, instead of sharing 127.0.0.1.
#
#   scripts/testbed.sh up [--hosts N]   N hosts (default 3): plx-h0 .. plx-h(N-1), addresses
#                                       10.213.47.1 .. 10.213.47.N/24 on bridge plx-br0; the root
#                                       namespace (clients, load) is 10.213.47.254
#   scripts/testbed.sh down             removes every host, link and the bridge (also what a killed
#                                       run left behind), and kills the processes still in the hosts
#   scripts/testbed.sh status           the hosts, their addresses and link states; exit 3 if none
#   scripts/testbed.sh exec I CMD ...   runs CMD in host I (ip netns exec plx-hI CMD ...)
#   scripts/testbed.sh address I        host I's address
#   scripts/testbed.sh cap I MBIT       caps host I's egress at MBIT Mbit/s (tc tbf on its link)
#   scripts/testbed.sh uncap I          removes host I's cap
#
# Needs root and `ip` with network namespaces; refuses clearly otherwise (exit 2). Idempotent: `up`
# tears down a previous test bed first. The 10.213.47.0/24 addresses exist only on the bridge and
# inside the namespaces this script makes. Each host routes 224.0.0.0/4 to its link, so IP
# multicast (M-Ring) crosses the bridge; the bridge's multicast snooping is off so that it floods
# groups to every host.
set -euo pipefail

# A second test bed (the project's own tests) sets PARALLAX_TESTBED_PREFIX and PARALLAX_TESTBED_NET
# (the first three octets of a /24) so as not to touch an operator's.
PREFIX="${PARALLAX_TESTBED_PREFIX:-plx}"
NET="${PARALLAX_TESTBED_NET:-10.213.47}"
BRIDGE="$PREFIX-br0"
ROOT_ADDR="$NET.254"
MAX_HOSTS=64
STATE="/run/parallax-testbed-$PREFIX"
[[ "$PREFIX" =~ ^[a-z][a-z0-9]{0,7}$ ]] || { echo "testbed: PARALLAX_TESTBED_PREFIX must be 1-8 lower-case letters or digits" >&2; exit 2; }
[[ "$NET" =~ ^(10\.[0-9]{1,3}\.[0-9]{1,3}|192\.168\.[0-9]{1,3}|172\.(1[6-9]|2[0-9]|3[01])\.[0-9]{1,3})$ ]] || { echo "testbed: PARALLAX_TESTBED_NET must be a private /24 prefix such as 10.213.47" >&2; exit 2; }

die() {
  echo "testbed: $*" >&2
  exit 2
}

usage() {
  sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

check_environment() {
  [ "$(id -u)" = 0 ] || die "must run as root: network namespaces, veth links and the bridge need CAP_NET_ADMIN"
  command -v ip >/dev/null 2>&1 || die "the 'ip' command (iproute2) is missing"
  ip netns list >/dev/null 2>&1 || die "network namespaces are unavailable here ('ip netns list' failed)"
  if ! ip netns add "$PREFIX-probe$$" 2>/dev/null; then
    die "cannot create a network namespace here (a container without CAP_SYS_ADMIN?)"
  fi
  ip netns del "$PREFIX-probe$$"
}

hosts() {
  ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^$PREFIX-h[0-9]+$" | sort -t h -k2 -n || true
}

down() {
  local ns pid link
  for ns in $(hosts); do
    for pid in $(ip netns pids "$ns" 2>/dev/null); do
      kill -9 "$pid" 2>/dev/null || true
    done
    ip netns del "$ns" 2>/dev/null || true
  done
  for link in $(ip -o link show 2>/dev/null | awk -F': ' '{print $2}' | cut -d@ -f1 | grep -E "^$PREFIX-v[0-9]+$" || true); do
    ip link del "$link" 2>/dev/null || true
  done
  ip link del "$BRIDGE" 2>/dev/null || true
  rm -f "$STATE"
}

up() {
  local n=$1 i ns
  [[ "$n" =~ ^[0-9]+$ ]] && [ "$n" -ge 1 ] && [ "$n" -le "$MAX_HOSTS" ] || die "--hosts must be 1..$MAX_HOSTS, got '$n'"
  down
  ip link add "$BRIDGE" type bridge
  ip addr add "$ROOT_ADDR/24" dev "$BRIDGE"
  if [ -w "/sys/class/net/$BRIDGE/bridge/multicast_snooping" ]; then
    echo 0 > "/sys/class/net/$BRIDGE/bridge/multicast_snooping"
  fi
  ip link set "$BRIDGE" up
  for ((i = 0; i < n; i++)); do
    ns="$PREFIX-h$i"
    ip netns add "$ns"
    ip link add "$PREFIX-v$i" type veth peer name eth0 netns "$ns"
    ip link set "$PREFIX-v$i" master "$BRIDGE"
    ip link set "$PREFIX-v$i" up
    ip -n "$ns" link set lo up
    ip -n "$ns" addr add "$NET.$((i + 1))/24" dev eth0
    ip -n "$ns" link set eth0 up
    ip -n "$ns" route add 224.0.0.0/4 dev eth0
  done
  echo "$n" > "$STATE"
  echo "testbed: $n hosts up on $BRIDGE ($NET.0/24; the root namespace is $ROOT_ADDR)"
  status
}

status() {
  local ns i state
  local all
  all="$(hosts)"
  if [ -z "$all" ]; then
    echo "testbed: no hosts (run: scripts/testbed.sh up --hosts N)"
    return 3
  fi
  printf '%-8s %-15s %s\n' host address link
  for ns in $all; do
    i="${ns#"$PREFIX"-h}"
    state="$(ip -n "$ns" -o link show eth0 2>/dev/null | grep -o 'state [A-Z]*' | cut -d' ' -f2 || echo missing)"
    printf '%-8s %-15s %s\n' "$ns" "$NET.$((i + 1))" "${state:-missing}"
  done
}

host_index() {
  [[ "${1:-}" =~ ^[0-9]+$ ]] || die "a host index is needed, got '${1:-}'"
  ip netns list 2>/dev/null | awk '{print $1}' | grep -qx "$PREFIX-h$1" || die "no host $1 (run: scripts/testbed.sh up)"
}

cmd="${1:-}"
[ -n "$cmd" ] || usage
shift
case "$cmd" in
  up)
    hosts=3
    while [ $# -gt 0 ]; do
      case "$1" in
        --hosts) hosts="${2:-}"; shift 2 || die "--hosts needs a number" ;;
        --hosts=*) hosts="${1#--hosts=}"; shift ;;
        *) die "unknown option '$1' (up takes --hosts N)" ;;
      esac
    done
    check_environment
    up "$hosts"
    ;;
  down)
    check_environment
    down
    echo "testbed: down"
    ;;
  status)
    check_environment
    status
    ;;
  exec)
    check_environment
    host_index "${1:-}"
    i=$1
    shift
    [ $# -gt 0 ] || die "exec needs a command"
    exec ip netns exec "$PREFIX-h$i" "$@"
    ;;
  address)
    [[ "${1:-}" =~ ^[0-9]+$ ]] || die "a host index is needed"
    echo "$NET.$(($1 + 1))"
    ;;
  cap)
    check_environment
    host_index "${1:-}"
    [[ "${2:-}" =~ ^[0-9]+$ ]] && [ "$2" -ge 1 ] || die "cap needs a rate in Mbit/s (a positive integer), got '${2:-}'"
    command -v tc >/dev/null 2>&1 || die "the 'tc' command (iproute2) is missing"
    # A token bucket of about 2 ms at the rate (at least 32 KiB: one jumbo burst) keeps the cap tight.
    burst=$(( $2 * 1000000 / 8 / 500 ))
    [ "$burst" -ge 32768 ] || burst=32768
    tc -n "$PREFIX-h$1" qdisc replace dev eth0 root tbf rate "${2}mbit" burst "$burst" latency 50ms
    echo "testbed: host $1's egress capped at $2 Mbit/s"
    ;;
  uncap)
    check_environment
    host_index "${1:-}"
    tc -n "$PREFIX-h$1" qdisc del dev eth0 root 2>/dev/null || true
    echo "testbed: host $1 uncapped"
    ;;
  -h|--help|help) usage ;;
  *) die "unknown command '$cmd' (up, down, status, exec, address, cap, uncap)" ;;
esac
