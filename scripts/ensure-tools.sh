#!/usr/bin/env bash
# Makes sure a JDK >= 17, Maven >= 3.8, redis-tools and (as root) nftables are on the PATH, installing Debian's packages if not.
set -euo pipefail
need_install=()
if ! command -v javac >/dev/null 2>&1 || ! javac -version 2>&1 | grep -Eq 'javac (1[7-9]|[2-9][0-9])'; then
  need_install+=(openjdk-17-jdk-headless)
fi
if ! command -v mvn >/dev/null 2>&1; then
  need_install+=(maven)
fi
# redis-benchmark / redis-cli: the RESP front end is tested against the real Redis tools.
if ! command -v redis-benchmark >/dev/null 2>&1; then
  need_install+=(redis-tools)
fi
if [ ${#need_install[@]} -gt 0 ]; then
  echo "installing: ${need_install[*]}" >&2
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_install[@]}" >/dev/null
fi
# nft: the test bed's kernel-level network faults (chaos --hosts, the testbed profile), only where the
# test bed can run at all (root). Best effort: without it the test-bed tests are skipped with the reason.
if [ "$(id -u)" -eq 0 ] && ! command -v nft >/dev/null 2>&1; then
  echo "installing: nftables (the test bed's network faults)" >&2
  if ! { DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nftables >/dev/null 2>&1 \
        || { apt-get update -qq >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nftables >/dev/null 2>&1; }; }; then
    echo "nftables could not be installed: the test-bed tests will be skipped" >&2
  fi
fi
