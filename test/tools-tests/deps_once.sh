#!/bin/sh
# deps_once.sh WORKDIR: the dependency step installs once, however many make processes and
# build trees ask for it at the same time, and plain `make` never installs.
#
# Everything runs against a stand-in: ET_DEPS_ROOT is an empty directory standing in for /, so
# every Debian package probes as missing, and the apt-get first on PATH is a script that records
# each call, takes a second per install (the window in which a second installer would collide
# with the first on dpkg's lock) and then creates the probed files of the packages it was given;
# the dpkg first on PATH records the foreign architectures it is asked to enable. The cross
# packages (ARCH=aarch64) are probed and installed only by a cross tree, with their own stamp.
# Prints one line per assertion and ends with "N passed, N failed".
set -u
W=$1
SRC=$(pwd)
rm -rf "$W" && mkdir -p "$W/bin" "$W/root" || exit 1
W=$(cd "$W" && pwd)
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok   $*"; }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }

# Every probe, the cross packages' included, so the stand-in can install any of them.
ET_DEPS_CROSS=aarch64 sh mk/deps.sh probes >"$W/probes" || exit 1
cat >"$W/bin/apt-get" <<STANDIN
#!/bin/sh
echo "\$*" >>"$W/apt-calls"
if [ "\$1" = download ]; then
  shift
  # A stand-in .deb: the one path the package's probe looks for (dpkg-deb below unpacks it).
  for pkg in "\$@"; do
    grep "^\$pkg unpack " "$W/probes" | cut -d' ' -f3 >"\$pkg.deb"
  done
  exit 0
fi
[ "\$1" = install ] || exit 0
sleep 1
for pkg in "\$@"; do
  while read -r name kind what; do
    [ "\$name" = "\$pkg" ] || continue
    case \$kind in cmd) what=/usr/bin/\$what ;; esac
    mkdir -p "$W/root\$(dirname "\$what")" && : >"$W/root\$what" && chmod +x "$W/root\$what"
  done <"$W/probes"
done
STANDIN
chmod +x "$W/bin/apt-get"
cat >"$W/bin/dpkg" <<STANDIN
#!/bin/sh
case "\$1" in
  --print-foreign-architectures) cat "$W/foreign-archs" 2>/dev/null ;;
  --add-architecture) echo "\$2" >>"$W/foreign-archs" ;;
  *) exit 1 ;;
esac
STANDIN
chmod +x "$W/bin/dpkg"
cat >"$W/bin/dpkg-deb" <<STANDIN
#!/bin/sh
[ "\$1" = -x ] || exit 1
what=\$(cat "\$2") && [ -n "\$what" ] || exit 1
mkdir -p "\$3\$(dirname "\$what")" && : >"\$3\$what"
STANDIN
chmod +x "$W/bin/dpkg-deb"

# Two trees, one machine: the same stamp directory and lock, different O=.
run_make() {
  env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS PATH="$W/bin:$PATH" ET_DEPS_ROOT="$W/root" \
    ET_DEPS_LOCK="$W/lock" ET_DEPS_UID=0 DEPS_STAMP_DIR="$W/stamps" \
    make --no-print-directory -C "$SRC" "$@"
}
installs() { grep -c '^install' "$W/apt-calls" 2>/dev/null || echo 0; }

# Plain make verifies only: it stops before building, names `make deps`, runs no apt-get.
if run_make O="$W/o0" all >"$W/all.log" 2>&1; then
  bad "plain make with packages missing succeeded"
elif grep -q "run 'make deps' first" "$W/all.log" && [ "$(installs)" = 0 ] && [ ! -e "$W/o0/lib" ]; then
  ok "plain make stops before building, names 'make deps', installs nothing"
else
  bad "plain make with packages missing: $(installs) installs"; sed 's/^/     | /' "$W/all.log"
fi

run_make O="$W/o1" deps >"$W/o1.log" 2>&1 & p1=$!
run_make O="$W/o2" deps >"$W/o2.log" 2>&1 & p2=$!
wait $p1; r1=$?
wait $p2; r2=$?
if [ $r1 -eq 0 ] && [ $r2 -eq 0 ]; then ok "two concurrent 'make deps' in two trees both succeed"
else bad "concurrent make deps: exit $r1 and $r2"; sed 's/^/     | /' "$W/o1.log" "$W/o2.log"; fi
n=$(installs)
if [ "$n" = 1 ]; then ok "apt-get install ran once: $(grep '^install' "$W/apt-calls")"
else bad "apt-get install ran $n times"; sed 's/^/     | /' "$W/apt-calls" 2>/dev/null; fi
if grep -q 'aarch64\|arm64\|qemu' "$W/apt-calls" || [ -e "$W/foreign-archs" ]; then
  bad "a native tree installed cross packages: $(grep '^install' "$W/apt-calls")"
else ok "a native tree installs no cross package and enables no foreign architecture"; fi
if missing=$(env ET_DEPS_ROOT="$W/root" sh mk/deps.sh missing) && [ -z "$missing" ]; then
  ok "after it, nothing is missing"
else bad "still missing: $missing"; fi
if [ "$(ls "$W/stamps" 2>/dev/null | wc -l)" = 1 ]; then ok "one stamp for both trees: $(ls "$W/stamps")"
else bad "stamps: $(ls "$W/stamps" 2>&1)"; fi

run_make O="$W/o3" deps >"$W/o3.log" 2>&1
n=$(installs)
if [ "$n" = 1 ]; then ok "a third tree finds the stamp and installs nothing"
else bad "a third tree ran apt-get install ($n installs)"; fi

# A package removed after the stamp was written is noticed and installed again.
rm -f "$W/root/usr/bin/flatc"
run_make O="$W/o3" deps >"$W/o4.log" 2>&1
if [ "$(installs)" = 2 ] && tail -n1 "$W/apt-calls" 2>/dev/null | grep -qx 'install -y -qq flatbuffers-compiler'; then
  ok "a package removed later is installed again, alone"
else bad "after removing flatc: $(tail -n1 "$W/apt-calls")"; fi

# A cross tree installs the cross packages, and only those (the rest is there), once, after
# enabling arm64 for the multiarch ones, and unpacks the target's Python once into its private
# tree; its stamp is its own, the native one stays valid.
run_make ARCH=aarch64 O="$W/x1" deps >"$W/x1.log" 2>&1 & p1=$!
run_make CROSS_COMPILE=aarch64-linux-gnu- O="$W/x2" deps >"$W/x2.log" 2>&1 & p2=$!
wait $p1; r1=$?
wait $p2; r2=$?
last=$(grep '^install' "$W/apt-calls" | tail -n1)
want=$(grep -v ' unpack ' "$W/probes" | sed -n '/aarch64-linux-gnu-g++/,$p' | cut -d' ' -f1)
if [ $r1 -eq 0 ] && [ $r2 -eq 0 ] && [ "$(installs)" = 3 ] &&
   [ "$last" = "install -y -qq $(echo $want)" ]; then
  ok "ARCH=aarch64 and CROSS_COMPILE=aarch64-linux-gnu- install the cross packages once: $last"
else
  bad "cross deps: exit $r1 and $r2, $(installs) installs, last: $last"
  sed 's/^/     | /' "$W/x1.log" "$W/x2.log"
fi
unpacked=$(grep -c '^download' "$W/apt-calls")
want=$(grep ' unpack ' "$W/probes" | cut -d' ' -f1)
if [ "$unpacked" = 1 ] && grep -qx "download $(echo $want)" "$W/apt-calls" &&
   [ -z "$(ET_DEPS_CROSS=aarch64 ET_DEPS_XROOT="$W/stamps-target/aarch64" ET_DEPS_ROOT="$W/root" \
          sh mk/deps.sh missing)" ]; then
  ok "the target's Python is unpacked once into its own tree: $(echo $want)"
else bad "unpacks: $unpacked downloads: $(grep '^download' "$W/apt-calls")"; fi
if [ "$(cat "$W/foreign-archs" 2>/dev/null)" = arm64 ]; then ok "arm64 enabled once, before the install"
else bad "foreign architectures enabled: $(cat "$W/foreign-archs" 2>/dev/null | tr '\n' ' ')"; fi
if [ "$(ls "$W/stamps" | wc -l)" = 2 ] && ls "$W/stamps" | grep -q -- '-aarch64\.ok$'; then
  ok "the cross tree has its own stamp: $(ls "$W/stamps" | tr '\n' ' ')"
else bad "stamps after the cross install: $(ls "$W/stamps" | tr '\n' ' ')"; fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
