#!/usr/bin/env bash
# make stress: every lab driver and the example driver side by side in one
# SMP guest of the kit kernel, under labs/stress/stress_mmap (processes,
# threads, fork, partial munmap, mremap, injected action failures, rmmod
# attempts; then the baseline of /proc/meminfo and /proc/vmallocinfo).
# Prints TAP: the guest program's tests, then the harness's own (the guest
# finished; the kernel log is free of warnings, lockdep reports, list
# corruption and bad pages).
#   --short   make check's version: fewer rounds (well under 30 s of guest
#             time)
# Either way, build/logs/stress.result is its row in make check's summary.
# With KIT_PROFILE=sanitize (make check-sanitizers) its modules, initramfs and
# logs go to the profile's folders (qemu/stages.sh).
# Usage: stress.sh [--short] KERNEL_OBJ CHECKER_DIR
set -uo pipefail

short=0
[ "${1:-}" != --short ] || { short=1 && shift; }
kobj=$(realpath "$1") checker=$(realpath "$2")
here=$(dirname "$(realpath "$0")")
# shellcheck source=qemu/stages.sh
. "$here/../../qemu/stages.sh"
# shellcheck source=qemu/guest-log.sh
. "$here/../../qemu/guest-log.sh"
conf="$kit_root/labs/stress/stress.conf"
out=$(kit_build_path stress)
logs=$(kit_build_path logs)
mkdir -p "$out" "$logs"
start=$(date +%s)
# shellcheck source=scripts/lib/tap.sh
. "$here/../lib/tap.sh"
finish() {
	echo "1..$n"
	echo "# stress run: $(($(date +%s) - start)) s"
	echo "stress $passed $failed 0 $(($(date +%s) - start))" >"$logs/stress.result"
	[ "$short" = 1 ] ||
		{ mkdir -p "$kit_root/build/timings" && echo $(($(date +%s) - start)) >"$kit_root/build/timings/stress$(kit_profile_suffix)"; }
	[ "$failed" = 0 ]
	exit
}

echo "TAP version 13"
echo "# $(kit_conf_get "$conf" STAGE_TITLE)"
conf_run="$out/stress.conf"
if [ "$short" = 1 ]; then
	kit_conf_override "$conf" "$conf_run" MMAP_LAB_STRESS_ROUNDS=150
else
	cp "$conf" "$conf_run"
fi
sources=()
for src in $(kit_conf_get "$conf" STAGE_STRESS_SOURCES); do sources+=("$kit_root/$src"); done
echo "# building ${sources[*]#"$kit_root"/} against $(basename "$kobj")"
if ! detail=$("$here/../labs/build-module-set.sh" "$kobj" "$out/modules" "${sources[@]}" 2>&1); then
	result 1 "the drivers build for the stress guest" "$detail"
	finish
fi
result 0 "the drivers build for the stress guest"
log="$logs/stress.log" initrd="$(kit_build_path initramfs)/stress.cpio"
if ! detail=$("$kit_root/qemu/make-initramfs.sh" "$conf_run" "$out/modules" "$checker" "$initrd" 2>&1); then
	result 1 "the stress guest's initramfs is built" "$detail"
	finish
fi
cpus=$(kit_conf_get "$conf" STAGE_CPUS)
echo "# booting the kit kernel with $cpus CPUs under $("$kit_root/qemu/accel.sh" --why); console log: ${log#"$kit_root"/}"
KIT_CPUS=$cpus KIT_BOOT_TIMEOUT=${KIT_BOOT_TIMEOUT:-900} "$kit_root/qemu/boot.sh" \
	"$kobj" "$initrd" "$log" || true
kit_log_section "$log" stress_mmap >"$out/stress.tap"
guest_tests=0
while IFS= read -r line; do
	case "$line" in
	"ok "*) result 0 "${line#ok * - }" && guest_tests=$((guest_tests + 1)) ;;
	"not ok "*) result 1 "${line#not ok * - }" && guest_tests=$((guest_tests + 1)) ;;
	"# "*) echo "$line" ;;
	esac
done <"$out/stress.tap"
[ "$guest_tests" -gt 0 ] || result 1 "the stress program printed its tests"
# Its plan and exit status too (qemu/tap-summary.pl): a program that died
# after its first tests must not pass on those.
end=$(tr -d '\r' <"$log" | sed -n 's/^### KIT TAP END stress_mmap exit=//p' | tail -n 1)
rm -f "$out/stress.tap.exit"
[ -z "$end" ] || echo "$end" >"$out/stress.tap.exit"
rc=0
problems=$(perl "$kit_root/qemu/tap-summary.pl" "$out/stress.tap" 2>&1 | grep -E '^not ok - stress: ') && rc=1
result "$rc" "the stress program's TAP is whole: its plan holds and it exited 0" "$problems"
rc=0
kit_guest_finished "$log" || rc=1
result "$rc" "the stress guest ran to the end and powered off"
rc=0
detail=$("$kit_root/qemu/scan-kernel-log.sh" "$log") || rc=1
result "$rc" "kernel log has no WARNING/BUG/Oops/lockdep report, list corruption or bad page" "$detail"
online=$(grep -ac 'CPU[0-9]* is up\|smpboot: Total of' "$log" || true)
rc=0
grep -aq "smpboot: Total of $cpus processors activated" "$log" || rc=1
result "$rc" "the guest ran on $cpus CPUs (smpboot: Total of $cpus processors activated)" \
	"$(grep -a 'smp\|CPU' "$log" | head -n 5; echo "($online matching lines)")"
finish
