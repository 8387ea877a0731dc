#!/usr/bin/env bash
# Installs the tools the tests run, when one is missing and installing is possible.
# The build calls it (exec-maven-plugin, before the tests of the modules that need the tools);
# -DskipTests skips it. It never installs a JDK or Maven: the build itself needs them.
#   redis-tools     redis-cli and redis-benchmark, for the RESP front-end tests (smr-examples)
#   docker-compose  only if neither `docker compose` nor `docker-compose` exists (the dist module's compose check)
#   nftables        as root only, best effort: the test bed's kernel faults (its tests skip without it)
# Installing needs apt-get and root or password-less sudo. Where that is missing, it says why and
# exits 0: the tests that need the tool then fail (or, for the test bed, skip) naming it.
# PARALLAX_INSTALL_TEST_TOOLS=no turns installing off.
set -uo pipefail

say() { echo "ensure-test-tools: $*" >&2; }
have() { command -v "$1" >/dev/null 2>&1; }

wanted=()
have redis-cli && have redis-benchmark || wanted+=(redis-tools)
if ! { have docker && docker compose version >/dev/null 2>&1; } && ! have docker-compose; then
  wanted+=(docker-compose)
fi
optional=()
[ "$(id -u)" -eq 0 ] && ! have nft && optional+=(nftables)

if [ ${#wanted[@]} -eq 0 ] && [ ${#optional[@]} -eq 0 ]; then
  exit 0
fi

why_not=""
if [ "${PARALLAX_INSTALL_TEST_TOOLS:-yes}" = "no" ]; then
  why_not="PARALLAX_INSTALL_TEST_TOOLS=no"
elif ! have apt-get; then
  why_not="apt-get is not available (install the packages with your system's package manager)"
elif [ "$(id -u)" -ne 0 ] && ! { have sudo && sudo -n true >/dev/null 2>&1; }; then
  why_not="not root and no password-less sudo (run: sudo apt-get install ${wanted[*]})"
fi
if [ -n "$why_not" ]; then
  [ ${#wanted[@]} -gt 0 ] && say "not installing ${wanted[*]}: $why_not. The tests that need them will fail naming the tool."
  exit 0
fi

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo -n"
apt_install() {
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "$@" >/dev/null 2>&1 \
    || { $SUDO apt-get update -qq >/dev/null 2>&1 \
         && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "$@" >/dev/null 2>&1; }
}
for pkg in "${wanted[@]}"; do
  say "installing $pkg"
  apt_install "$pkg" || say "could not install $pkg (apt-get failed). The tests that need it will fail naming the tool."
done
for pkg in "${optional[@]}"; do
  say "installing $pkg (the test bed's network faults)"
  apt_install "$pkg" || say "could not install $pkg: the test-bed tests will be skipped."
done
exit 0
