#!/usr/bin/env bash
# Boot one stage's guest and judge it: TAP from every check program, plus two
# checks of the harness's own: the guest ran to the end, and the kernel log is
# free of warnings. Prints the TAP and writes build/logs/ID.result as
# "ID PASSED FAILED SKIPPED BOOT_SECONDS".
# Usage: run-stage.sh KERNEL_OBJ_DIR CHECKER_DIR STAGE_ID
# A stage whose STAGE_KERNEL is mainline boots build/kernel-mainline instead.
# KIT_STAGE_CONF, KIT_MODULE_DIR and KIT_RUN_NAME override the stage's
# stage.conf, where its modules are and the name its logs and result go under
# (make check-stock runs a stage on stock 6.12); KIT_STAGE_LABEL, what the
# output calls it ("stage ID"; make check DRIVER=: "driver NAME").
set -euo pipefail

kobj=$(realpath "$1") checker=$(realpath "$2") id=$3
here=$(dirname "$(realpath "$0")")
# shellcheck source=qemu/stages.sh
. "$here/stages.sh"
# shellcheck source=qemu/machine.sh
. "$here/machine.sh"
# shellcheck source=qemu/guest-log.sh
. "$here/guest-log.sh"
kit_require_stage "$id"
dir=$(kit_stage_dir "$id")
conf=${KIT_STAGE_CONF:-$dir/stage.conf}
title=$(kit_conf_get "$conf" STAGE_TITLE)
expect=$(kit_conf_get "$conf" STAGE_EXPECT)
cmdline=$(kit_conf_get "$conf" STAGE_CMDLINE)
run=${KIT_RUN_NAME:-$id}
label=${KIT_STAGE_LABEL:-stage $id}
# The harness's own tests are named "ID: ..." (the TODO proof looks for them).
tname=${KIT_STAGE_LABEL:-$id}

# build/logs, build/initramfs and build/modules, or their folders of the
# KIT_PROFILE (qemu/stages.sh).
logs=$(kit_build_path logs)
out="$logs/$run"
log="$logs/$run.log"
initrd="$(kit_build_path initramfs)/$run.cpio"
rm -rf "$out" && mkdir -p "$out"

# A mainline stage boots build/kernel-mainline; without it, the stage is
# reported as skipped with the reason, never as passed.
if [ "$(kit_conf_get "$conf" STAGE_KERNEL)" = mainline ]; then
	kobj=$(kit_build_path kernel-mainline)
	why=$(kit_mainline_unavailable)
	if [ -n "$why" ]; then
		echo "# $label: $title"
		echo "ok 1 - $tname: runs on the mainline kernel # SKIP $why"
		echo "$run 0 0 1 -" >"$logs/$run.result"
		exit 0
	fi
fi

KIT_VARIANT_DIR="$dir" "$here/make-initramfs.sh" "$conf" "${KIT_MODULE_DIR:-$(kit_build_path modules)/$id}" "$checker" "$initrd"
echo "# $label: $title"
echo "# booting $(basename "$kobj") under $("$here/accel.sh" --why --kernel "$(kit_kernel_image "$kobj")"); console log: ${log#"$kit_root"/}"
start=$(date +%s.%N)
boot_rc=0
"$here/boot.sh" "$kobj" "$initrd" "$log" "$cmdline" || boot_rc=$?
seconds=$(echo "$(date +%s.%N) - $start" | bc)
seconds=$(printf '%.1f' "$seconds")
echo "# $label: guest finished in ${seconds}s (exit $boot_rc)"

# Split the console log into one TAP file per section; a section's exit code
# goes to NAME.tap.exit.
tr -d '\r' <"$log" | awk -v out="$out" '
	/^### KIT TAP BEGIN / { name = $5; file = out "/" name ".tap"; printf "" > file; next }
	/^### KIT TAP END /   {
		if (file == "") {
			# Its BEGIN line was lost (console output interleaved): say so.
			lost = out "/" $5 ".tap"
			printf "TAP version 13\n1..1\nnot ok 1 - %s: its output lost its BEGIN line on the console\n", $5 > lost
			close(lost)
			next
		}
		split($6, a, "="); print a[2] > (file ".exit"); close(file ".exit"); close(file); file = ""; next
	}
	file != ""           { print >> file }
'

summary_rc=0
summary=$(perl "$here/tap-summary.pl" --failures "$out/failures.tsv" "$out"/*.tap 2>&1) || summary_rc=$?
[ -n "$(ls "$out"/*.tap 2>/dev/null)" ] || summary=$'not ok - no TAP at all from the guest\n0 1 0'
echo "$summary" | sed '$d'
read -r passed failed skipped < <(echo "$summary" | tail -n 1)
: "$summary_rc"

# The harness's failures, each with its hint, for the verdict.
harness_failures=()
harness_test() { # RESULT DESCRIPTION HINT
	if [ "$1" = 0 ]; then
		echo "ok - $2"
		passed=$((passed + 1))
	else
		echo "not ok - $2"
		failed=$((failed + 1))
		harness_failures+=("$3")
	fi
}
done_rc=1
kit_guest_finished "$log" && done_rc=0
harness_test "$done_rc" "$tname: guest ran every check and powered off (no timeout, no panic)" \
	"the guest did not run to the end (a hang, a panic, a timeout): see the end of ${log#"$kit_root"/}"

scan_rc=0
found=$("$here/scan-kernel-log.sh" "$log") || scan_rc=$?
if [ "${expect:-pass}" = fail ]; then
	# The harness self-test: a clean log here means the scanner is broken.
	if [ "$scan_rc" != 0 ]; then
		echo "# planted warning found, as expected:"
		head -n 3 <<<"$found" | sed 's/^/#   /'
		scan_rc=0
	else
		scan_rc=1
	fi
	harness_test "$scan_rc" "$tname: the log scanner flags the planted kernel warning" \
		"the planted warning was not found: the log scanner is broken"
else
	[ "$scan_rc" = 0 ] || head -n 20 <<<"$found" | sed 's/^/# kernel: /'
	harness_test "$scan_rc" "$tname: kernel log has no WARNING/BUG/Oops/Call Trace/lockdep report" \
		"the kernel log has: $(head -n 1 <<<"$found" | sed 's/^\[ *[0-9.]*\] //')"
fi

# The verdict, printed by check-all.sh at the end (empty when all passed).
"$here/verdict.sh" "$id" "$out/failures.tsv" "$log" "${harness_failures[@]}" >"$logs/$run.verdict" || true
echo "$run $passed $failed $skipped $seconds" >"$logs/$run.result"
[ "$failed" = 0 ]
