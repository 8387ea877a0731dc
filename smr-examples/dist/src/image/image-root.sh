#!/usr/bin/env bash
# Builds the container image's file tree besides the jars (Jib adds it as an extra directory):
#   /opt/java                  a jlink'd Java runtime of the build JDK (the modules given)
#   /lib*, /usr/lib*           the shared libraries that runtime needs (ldd), glibc's loader included
#   /opt/parallax/jvm.args     the JVM flags (jvm-flags.txt without comments), an @argfile for java
#   /etc/passwd, /etc/group    the user parallax (uid 10001), root
#   /tmp, /var/lib/parallax    writable directories (Jib sets their modes)
# The image thus runs on the build machine's JDK and glibc; its base image is scratch.
# Usage: image-root.sh JAVA_HOME MODULES JVM_FLAGS_FILE OUT_DIR
set -euo pipefail
java_home="$1"; modules="$2"; flags="$3"; out="$4"

jlink="$java_home/bin/jlink"
[ -x "$jlink" ] || { echo "image-root: $jlink not found: the image needs a full JDK with jlink and jmods" >&2; exit 1; }

# jlink again only when the module list or the JDK changed (it is the slow step).
stamp="$out.stamp"
want="$(readlink -f "$java_home") $modules"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ] || [ ! -x "$out/opt/java/bin/java" ]; then
  rm -rf "$out" "$stamp"
  mkdir -p "$out/opt"
  "$jlink" --add-modules "$modules" --output "$out/opt/java" \
    --strip-debug --no-header-files --no-man-pages --compress=2 2>&1 | grep -v '^Warning' >&2 || true
  [ -x "$out/opt/java/bin/java" ] || { echo "image-root: jlink failed" >&2; exit 1; }

  # Every library the runtime's executables and libraries link (not found ones are left out:
  # they belong to code paths the image does not use).
  libs="$(find "$out/opt/java" -type f \( -name '*.so' -o -path '*/bin/*' \) -print0 \
    | xargs -0 ldd 2>/dev/null \
    | awk '/=> \// { print $3 } /^[[:space:]]*\/[^ ]+ \(0x/ { print $1 }' | sort -u)"
  for lib in $libs; do
    case "$lib" in "$out"/*) continue ;; esac
    mkdir -p "$out$(dirname "$lib")"
    cp -L "$lib" "$out$lib"
  done
  # The ELF interpreter of bin/java, at the path the binary names.
  interp="$(readelf -l "$out/opt/java/bin/java" 2>/dev/null | sed -n 's/.*interpreter: \(.*\)]/\1/p' || true)"
  if [ -n "$interp" ] && [ ! -e "$out$interp" ]; then
    mkdir -p "$out$(dirname "$interp")"
    cp -L "$interp" "$out$interp"
  fi
  echo "$want" > "$stamp"
fi

# /proc and /dev: mount points (a container runtime mounts them).
mkdir -p "$out/opt/parallax" "$out/etc" "$out/tmp" "$out/var/lib/parallax" "$out/proc" "$out/dev"
grep -v '^#' "$flags" | sed '/^[[:space:]]*$/d' > "$out/opt/parallax/jvm.args"
printf 'root:x:0:0:root:/root:/sbin/nologin\nparallax:x:10001:10001:parallax:/var/lib/parallax:/sbin/nologin\n' > "$out/etc/passwd"
printf 'root:x:0:\nparallax:x:10001:\n' > "$out/etc/group"
printf 'passwd: files\ngroup: files\nhosts: files dns\n' > "$out/etc/nsswitch.conf"
