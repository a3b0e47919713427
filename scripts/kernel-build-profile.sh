#!/usr/bin/env bash
# make kernel-profile: where the kit kernel's build time goes. Builds the
# 6.12 kernel from scratch in build/kernel-profile (the same configuration as
# build/kernel, which is left alone) with every compiler call timed, then
# prints the compile time by directory and the slowest files, and writes them
# to build/kernel-profile/profile.txt. Compile times are CPU seconds of single
# gcc calls; with 2 jobs the wall-clock build takes about half their sum plus
# the link. Run it on an otherwise idle machine.
# Usage: kernel-build-profile.sh SRC FRAGMENT...
set -euo pipefail

src=$(realpath "$1")
shift
here=$(dirname "$(realpath "$0")")
top=$(dirname "$here")
obj="$top/build/kernel-profile"
rm -rf "$obj"
"$here/configure-kernel.sh" "$src" "$obj" "$@"
log="$obj/compile-times.log"
: >"$log"
# The wrapper: gcc as asked, then one line "MILLISECONDS SOURCE" (O_APPEND
# writes of one short line do not interleave between the parallel jobs).
wrapper="$obj/timed-gcc"
cat >"$wrapper" <<EOF
#!/bin/bash
start=\$(date +%s%N)
gcc "\$@"
rc=\$?
for a; do case "\$a" in *.c|*.S) f=\$(realpath -m "\$a") ;; esac; done
echo "\$(( (\$(date +%s%N) - start) / 1000000 )) \${f:-other}" >>"$log"
exit \$rc
EOF
chmod +x "$wrapper"
echo ">> building the kernel in ${obj#"$top"/} with every compiler call timed ($(nproc) jobs)"
start=$(date +%s)
make -s -C "$src" O="$obj" -j"$(nproc)" CC="$wrapper" HOSTCC=gcc >"$obj/build.log" 2>&1
secs=$(($(date +%s) - start))
python3 - "$log" "$secs" "$src" <<'EOF' | tee "$obj/profile.txt"
import collections, os, sys
log, secs, src = sys.argv[1], int(sys.argv[2]), sys.argv[3]
by_dir = collections.Counter()
by_sub = collections.Counter()
files = []
for line in open(log):
    ms, f = line.split(None, 1)
    f = os.path.relpath(f.strip(), src) if f.startswith("/") else f.strip()
    parts = f.split("/")
    by_dir[parts[0] if len(parts) > 1 else "(top)"] += int(ms)
    by_sub["/".join(parts[:2]) if len(parts) > 2 else parts[0]] += int(ms)
    files.append((int(ms), f))
total = sum(by_dir.values())
print(f"kernel build: {secs} s wall clock, {total / 1000:.0f} s of compiler time in {len(files)} calls")
print("compiler time by top-level directory:")
for d, ms in by_dir.most_common(12):
    print(f"  {d:24} {ms / 1000:7.1f} s  {100 * ms / total:4.1f} %")
print("by second-level directory:")
for d, ms in by_sub.most_common(15):
    print(f"  {d:24} {ms / 1000:7.1f} s  {100 * ms / total:4.1f} %")
print("slowest files:")
for ms, f in sorted(files, reverse=True)[:15]:
    print(f"  {f:48} {ms / 1000:6.1f} s")
EOF
