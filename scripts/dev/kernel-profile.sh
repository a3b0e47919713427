#!/usr/bin/env bash
# make kernel-profile: where the kit kernel's build time goes. Builds the
# 6.12 kernel from scratch in build/kernel-profile (the same configuration as
# build/kernel, which is left alone) with every compiler call timed, then
# prints (scripts/dev/kernel-profile-report.py) its timeline, the compile time by
# directory and by Kconfig symbol, and the slowest files, and writes them to
# build/kernel-profile/profile.txt. Compile times are CPU seconds of single
# gcc calls; with 2 jobs the wall-clock build takes about half their sum plus
# the link. Run it on an otherwise idle machine.
# Usage: kernel-profile.sh SRC FRAGMENT...
set -euo pipefail

src=$(realpath "$1")
shift
here=$(dirname "$(realpath "$0")")
top=$(dirname "$(dirname "$here")")
obj="$top/build/kernel-profile"
rm -rf "$obj"
"$here/../kernel/configure-kernel.sh" "$src" "$obj" "$@"
log="$obj/compile-times.log"
: >"$log"
# The wrapper: gcc as asked, then one line "END_EPOCH_MS MILLISECONDS SOURCE"
# (O_APPEND writes of one short line do not interleave between the jobs).
wrapper="$obj/timed-gcc"
cat >"$wrapper" <<EOF
#!/bin/bash
start=\$(date +%s%3N)
gcc "\$@"
rc=\$?
for a; do case "\$a" in *.c|*.S) f=\$(realpath -m "\$a") ;; esac; done
end=\$(date +%s%3N)
echo "\$end \$((end - start)) \${f:-other}" >>"$log"
exit \$rc
EOF
chmod +x "$wrapper"
jobs=$(nproc)
echo ">> building the kernel in ${obj#"$top"/} with every compiler call timed ($jobs jobs)"
start=$(date +%s%3N)
make -s -C "$src" O="$obj" -j"$jobs" CC="$wrapper" HOSTCC=gcc >"$obj/build.log" 2>&1
end=$(date +%s%3N)
"$here/kernel-profile-report.py" "$log" "$start" "$end" "$jobs" "$src" | tee "$obj/profile.txt"
