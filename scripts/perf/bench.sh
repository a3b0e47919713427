#!/usr/bin/env bash
# make bench: the performance lab. For each kernel, build the bench instances
# of the lab drivers (each stage's own source, its buffer grown to 4096
# pages: STAGE_BENCH_BUF_ORDER), boot one guest with all of them loaded side
# by side, run labs/bench/bench_mmap in it, and hand its samples to
# bench-report.py: the table, build/bench/bench.csv and build/bench/bench.png.
# Prints TAP.
#   --short     make check's guard: fewer repetitions, 6.12 only; fails if the
#               remap action is not faster than fault-per-page at 1024 pages
#               or is slower than 1.5x legacy remap (build/logs/bench.result)
#   --docs      also write the docs' copy (Documentation/bench-results.inc and
#               Documentation/bench.png)
# The mainline guest is skipped, with the reason, when that kernel is not
# built (make kernel-mainline).
# Usage: bench.sh [--short] [--docs] KERNEL_OBJ CHECKER_DIR
set -uo pipefail

short=0 docs=0
while [ $# -gt 0 ]; do
	case "$1" in
	--short) short=1 ;;
	--docs) docs=1 ;;
	*) break ;;
	esac
	shift
done
kobj=$(realpath "$1") checker=$(realpath "$2")
here=$(dirname "$(realpath "$0")")
# shellcheck source=qemu/stages.sh
. "$here/../../qemu/stages.sh"
# shellcheck source=qemu/guest-log.sh
. "$here/../../qemu/guest-log.sh"
bench_dir="$kit_root/labs/bench"
out="$kit_root/build/bench"
logs="$kit_root/build/logs"
mkdir -p "$out" "$logs"
start=$(date +%s)
# shellcheck source=scripts/lib/tap.sh
. "$here/../lib/tap.sh"

# Boot KERNEL's bench guest (its initramfs built); its samples go to
# build/bench/KERNEL.tap.
boot_bench() { # KERNEL KOBJ
	local log="$logs/bench-$1.log" initrd="$kit_root/build/initramfs/bench-$1.cpio"
	echo "# booting the $1 kernel with the bench under $("$kit_root/qemu/accel.sh" --why); console log: ${log#"$kit_root"/}"
	KIT_BOOT_TIMEOUT=${KIT_BOOT_TIMEOUT:-600} "$kit_root/qemu/boot.sh" "$2" "$initrd" "$log" || true
	kit_log_section "$log" bench_mmap >"$out/$1.tap"
}

# Build and boot KERNEL's bench guest, with its checks.
run_guest() { # KERNEL CONF KOBJ
	local kernel=$1 conf=$2 kobj=$3 run="bench-$1" why log initrd conf_run detail src
	local title buf_order
	title=$(kit_conf_get "$conf" STAGE_TITLE)
	echo "# $title"
	conf_run="$out/$kernel.conf"
	if [ "$short" = 1 ]; then
		kit_conf_override "$conf" "$conf_run" MMAP_LAB_BENCH_REPS=6 MMAP_LAB_BENCH_LOOPS=50
	else
		cp "$conf" "$conf_run"
	fi
	echo "# building the bench instances against $(basename "$kobj")"
	local sources=()
	for src in $(kit_conf_get "$conf" STAGE_BENCH_SOURCES); do sources+=("$kit_root/$src"); done
	buf_order=$(kit_conf_get "$conf" STAGE_BENCH_BUF_ORDER)
	if ! detail=$("$here/../labs/build-module-set.sh" --buffer-order "$buf_order" "$kobj" "$out/modules-$kernel" "${sources[@]}" 2>&1); then
		result 1 "$kernel: bench instances of the lab drivers build" "$detail"
		return 1
	fi
	result 0 "$kernel: bench instances of the lab drivers build ($((1 << buf_order))-page buffers)"
	log="$logs/$run.log" initrd="$kit_root/build/initramfs/$run.cpio"
	"$kit_root/qemu/make-initramfs.sh" "$conf_run" "$out/modules-$kernel" "$checker" "$initrd" || {
		result 1 "$kernel: the bench guest's initramfs is built"
		return 1
	}
	boot_bench "$kernel" "$kobj"
	why=0
	kit_guest_finished "$log" || why=1
	result "$why" "$kernel: the bench guest ran to the end and powered off"
	if grep -q '^ok .*read back' "$out/$kernel.tap"; then
		result 0 "$kernel: $(sed -n 's/^ok [0-9]* - //p' "$out/$kernel.tap")"
	else
		result 1 "$kernel: every bench mapping read back the device's data" "$(grep -v '^# csv' "$out/$kernel.tap")"
	fi
	detail=$("$kit_root/qemu/scan-kernel-log.sh" "$log") && why=0 || why=1
	result "$why" "$kernel: kernel log has no WARNING/BUG/Oops/lockdep report" "$detail"
}

echo "TAP version 13"
inputs=()
run_guest 6.12 "$bench_dir/bench.conf" "$kobj" && inputs+=("6.12=$out/6.12.tap")
if [ "$short" = 0 ]; then
	why=$(kit_mainline_not_ready)
	if [ -n "$why" ]; then
		skip "mainline: the bench guest" "$why"
	else
		run_guest mainline "$bench_dir/bench-mainline.conf" "$kit_root/build/kernel-mainline" &&
			inputs+=("mainline=$out/mainline.tap")
	fi
fi

report_args=(--out "$out")
[ "$short" = 0 ] || report_args+=(--guard)
[ "$docs" = 0 ] || report_args+=(--docs "$kit_root/Documentation")
if [ "${#inputs[@]}" -gt 0 ]; then
	report() {
		KIT_GUEST_ACCEL=$("$kit_root/qemu/accel.sh" | tr '[:lower:]' '[:upper:]') python3 "$here/bench-report.py" "${report_args[@]}" "${inputs[@]}" 2>&1 || echo "not ok - bench-report.py ran (exit $?)"
	}
	lines=$(report)
	# make check's guards compare timings on a shared, noisy machine (one
	# run of 1.50x against 0.8-1.1x usually): a guard that fails is measured
	# once more, in a new guest, and judged on that run. It fails only if
	# both runs miss.
	if [ "$short" = 1 ] && grep -q '^not ok - .*(guard: ' <<<"$lines"; then
		grep '^not ok - .*(guard: ' <<<"$lines" | sed 's/^not ok - /# first run missed a guard: /'
		echo "# measuring once more: the guard is judged on the second run"
		boot_bench 6.12 "$kobj"
		lines=$(report)
	fi
	# The report prints the table, then its own TAP lines ("ok - ..."), which
	# are numbered here.
	while IFS= read -r line; do
		case "$line" in
		"ok - "*) result 0 "${line#ok - }" ;;
		"not ok - "*) result 1 "${line#not ok - }" ;;
		*) echo "$line" ;;
		esac
	done <<<"$lines"
fi
echo "1..$n"
echo "# performance lab: $(($(date +%s) - start)) s"
if [ "$short" = 1 ]; then
	echo "bench $passed $failed $skipped $(($(date +%s) - start))" >"$logs/bench.result"
else
	mkdir -p "$kit_root/build/timings" && echo $(($(date +%s) - start)) >"$kit_root/build/timings/bench"
fi
[ "$failed" = 0 ]
