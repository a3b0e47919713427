#!/usr/bin/env bash
# make check-sanitizers: the kit's checks on kernels built with the sanitizer
# profile (qemu/kernel-sanitize.config: KASAN, UBSAN, kmemleak,
# page_table_check, on top of the DEBUG_VM and lockdep of every kit kernel).
# Not part of make check: the two kernels take longer to build than all of
# make check's boots together (Documentation/sanitizers.rst has the figures).
#
# In order:
#   1. the 6.12 kernel of the profile, build/kernel-sanitize; the mainline
#      one, build/kernel-mainline-sanitize, builds in the background meanwhile;
#   2. the sanitizer self-test (qemu/selftest/planted-bugs): its module plants
#      one bug per sanitizer, and each report must be in the console log: a
#      sanitizer that is off would make every later "no report" meaningless;
#   3. every 6.12 stage (the kit's own solutions, never a learner's copy),
#      the fail-nth sweeps and the module-parameter loads included, then the
#      full stress run (make stress) in a 2-CPU guest;
#   4. every mainline stage on the mainline kernel of the profile.
# Any kernel report fails the guest it came from (qemu/scan-kernel-log.sh); a
# guest with kmemleak lists its leaks at the end (qemu/guest-init.sh).
# Everything goes to the profile's folders (build/modules-sanitize,
# build/logs-sanitize, ...): make check's outputs are left alone. Prints TAP
# and ends with the summary table and "N passed, N failed, N skipped".
# Usage: check-sanitizers.sh KERNEL_SOURCE CHECKER_DIR
set -uo pipefail

export KIT_PROFILE=sanitize
ksrc=$1 checker=$2
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
# shellcheck source=qemu/stages.sh
. "$top/qemu/stages.sh"
kobj=$(kit_build_path kernel)
logs=$(kit_build_path logs)
mkdir -p "$logs" "$top/build/timings"
rm -f "$logs"/*.result "$logs"/*.verdict
# Guests of instrumented kernels take several times longer (TCG).
export KIT_BOOT_TIMEOUT=${KIT_BOOT_TIMEOUT:-900}
start=$(date +%s)

echo ">> the sanitizer profile's mainline kernel: fetched and built in the background (${logs#"$top"/}/mainline-kernel.log)"
KIT_OWNER_PID=$$ scripts/kernel/kernel-mainline.sh --start
echo ">> the sanitizer profile's 6.12 kernel: ${kobj#"$top"/}"
mapfile -t fragments < <(kit_kernel_fragments 6.12)
kernel_start=$(date +%s)
if ! scripts/kernel/kernel.sh "$ksrc" "$kobj" "${fragments[@]}"; then
	echo "error: the sanitizer profile's 6.12 kernel did not build (${kobj#"$top"/}/build.log); nothing to boot" >&2
	exit 1
fi
echo $(($(date +%s) - kernel_start)) >"$top/build/timings/check-sanitizers-kernel"
scripts/kernel/kernel-mainline.sh --go

mapfile -t stages_612 < <(qemu/stages.sh list-kernel 6.12)
mapfile -t stages_mainline < <(qemu/stages.sh list-kernel mainline)
echo ">> the modules of the 6.12 stages (the kit's solutions)"
SOLUTION=1 scripts/labs/modules.sh "$kobj" "${stages_612[@]}" || true

# 2. The self-test first: each expected report, one test each.
echo ">> the sanitizer self-test: one planted bug per sanitizer"
qemu/check-all.sh --no-summary "$kobj" "$checker" sanitizers
expected=$(kit_stage_get sanitizers STAGE_EXPECT_REPORTS)
# shellcheck source=scripts/lib/tap.sh
. "$top/scripts/lib/tap.sh"
echo "TAP version 13"
while IFS= read -r ere; do
	[ -n "$ere" ] || continue
	rc=0
	grep -aqE "$ere" "$logs/sanitizers.log" || rc=1
	result "$rc" "sanitizers: the planted bug's report is in the console log: /$ere/" \
		"not found in ${logs#"$top"/}/sanitizers.log; is the sanitizer on (qemu/kernel-sanitize.config)?"
done <<<"$expected"
echo "1..$n"
echo "planted-bugs $passed $failed $skipped -" >"$logs/planted-bugs.result"
echo

# 3. Every 6.12 stage, then the stress run.
others=()
for id in "${stages_612[@]}"; do [ "$id" = sanitizers ] || others+=("$id"); done
qemu/check-all.sh --no-summary "$kobj" "$checker" "${others[@]}"
echo ">> the stress run (make stress, full) on the sanitizer profile's 6.12 kernel"
scripts/perf/stress.sh "$kobj" "$checker" || true
echo

# 4. The mainline stages.
scripts/kernel/kernel-mainline.sh --wait ||
	echo "error: the sanitizer profile's mainline kernel did not build (${logs#"$top"/}/mainline-kernel.log): its stages are skipped" >&2
SOLUTION=1 scripts/labs/modules.sh "$kobj" "${stages_mainline[@]}" || true
qemu/check-all.sh --no-summary "$kobj" "$checker" "${stages_mainline[@]}"

echo "# check-sanitizers took $(($(date +%s) - start)) s"
echo $(($(date +%s) - start)) >"$top/build/timings/check-sanitizers"
# The table and closing line, kept for make record-sanitizers.
rc=0
qemu/check-all.sh --summary-only "$kobj" "$checker" | tee "$logs/summary.txt" || rc=$?
exit "$rc"
