#!/usr/bin/env bash
# make check DRIVER=DIR (make check-driver): the kit's checks on a driver of
# your own, not one of the kit's. DIR holds the driver's .c files, its Kbuild
# and kit-check.conf, which says what the driver does (example-driver/
# rename.sh writes one for the template; its comments say what each line
# means). The module is built against the kit's 6.12 kernel or against
# mainline, chosen by what the source uses (mainline's vma_desc_*() helpers,
# VMA_*_BIT names or error_override mean mainline; DRIVER_KERNEL= or
# KERNEL=6.12|mainline on the command line say it), and a guest loads it and
# runs the stages' generic checks on its device: data through the mapping
# against read()/write(), VmFlags, the refusals it claims, an injected action
# failure, the fail-nth sweep, rmmod with a live mapping, a clean kernel log.
# A driver whose device the guest cannot have (DRIVER_NEEDS) gets the checks
# that need no device (it loads, unloads, leaves the log clean), the others
# listed as skipped with the reason. Ends, on a failure, with a verdict: each
# failing check, what it saw and what that usually means.
# BEFORE=FILE (or a folder) adds the comparison with the driver as it was
# (its .mmap()): both are booted in one guest in turn, and what user space
# observes of each (check_observe: data, VmFlags, the errno of each request)
# must be the same; a difference is listed line by line.
# Logs: build/logs/driver-NAME*. Exits non-zero on any failure.
# Usage: [BEFORE=FILE] check-driver.sh DIR
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=qemu/stages.sh
. "$top/qemu/stages.sh"
[ $# = 1 ] || { echo "usage: make check DRIVER=DIR (DIR: your driver's .c files, Kbuild and kit-check.conf)" >&2; exit 2; }
dir=$(realpath -m "$1")
conf=$dir/kit-check.conf
if [ ! -d "$dir" ]; then
	echo "error: DRIVER=$1: no such folder" >&2
	exit 2
fi
if [ ! -f "$conf" ]; then
	echo "error: $1/kit-check.conf is missing: it says what your driver does. Copy the one" >&2
	echo "  example-driver/rename.sh writes (example-driver/rename.sh NAME DIR) and edit it." >&2
	exit 2
fi
if [ ! -f "$dir/Kbuild" ] && [ ! -f "$dir/Makefile" ]; then
	echo "error: $1 has no Kbuild: write one (obj-m := NAME.o)" >&2
	exit 2
fi
# A value of kit-check.conf, a shell fragment of DRIVER_* assignments.
get() { # VAR
	(
		set +u
		# shellcheck source=/dev/null
		. "$conf"
		eval "printf '%s' \"\${$1:-}\""
	)
}
first_c=$(find "$dir" -maxdepth 1 -name '*.c' | sort | head -n 1)
[ -n "$first_c" ] || { echo "error: $1 has no .c file" >&2; exit 2; }
module=$(get DRIVER_MODULE)
module=${module:-$(basename "$first_c" .c)}
device=$(get DRIVER_DEVICE)
[ -n "$device" ] || { echo "error: $conf: DRIVER_DEVICE is empty (the /dev node the driver creates)" >&2; exit 2; }
size=$(get DRIVER_MAP_SIZE)
[[ $size =~ ^[0-9]+$ ]] || { echo "error: $conf: DRIVER_MAP_SIZE=\"$size\" is not a number of bytes" >&2; exit 2; }
refuses=$(get DRIVER_REFUSES)
for w in $refuses; do
	case "$w" in private | exec | grow | past-end) ;;
	*) echo "error: $conf: DRIVER_REFUSES: \"$w\" is none of private, exec, grow, past-end" >&2 && exit 2 ;;
	esac
done
action=$(get DRIVER_ACTION)
action=${action:-none}
case "$action" in none | remap | ioremap | map_kernel_pages) ;;
*) echo "error: $conf: DRIVER_ACTION=$action: none, remap, ioremap or map_kernel_pages" >&2 && exit 2 ;;
esac

# Which kernel: said, or read from the source.
kernel=${KERNEL:-$(get DRIVER_KERNEL)}
if [ -z "$kernel" ]; then
	kernel=6.12
	if grep -qE 'vma_desc_(test|set_flags|clear_flags)|VMA_[A-Z_]+_BIT|error_override|\.mapped[[:space:]]*=' "$dir"/*.c; then
		kernel=mainline
	fi
	why_kernel="from the source"
else
	why_kernel="as said"
fi
case "$kernel" in
6.12) id=example kobj=$(kit_build_path kernel) ;;
mainline)
	id=example-mainline kobj=$(kit_build_path kernel-mainline)
	why=$(kit_mainline_unavailable)
	if [ -n "$why" ]; then
		echo "error: $1 is written for mainline ($why_kernel), and $why." >&2
		echo "  make check builds the mainline kernel; or say KERNEL=6.12 if the driver is for the kit's." >&2
		exit 1
	fi
	;;
*) echo "error: kernel \"$kernel\": 6.12 or mainline" >&2 && exit 2 ;;
esac
echo ">> driver $module ($1): for the $kernel kernel ($why_kernel), device $device"

# Build it: a copy under build/driver/NAME, so that no object file lands in
# the author's folder; the compiler's messages name the author's files.
out="$top/build/driver/$module"
rm -rf "$out" && mkdir -p "$out"
cp "$dir"/*.c "$out/"
cp "$dir"/*.h "$out/" 2>/dev/null || true
cp "$dir"/Kbuild "$out/" 2>/dev/null || cp "$dir/Makefile" "$out/"
if ! make -s -C "$kobj" M="$out" modules >"$out/build.log" 2>&1; then
	sed -e "s|$out/|$dir/|g" -e '/^make\[[0-9]*\]: \*\*\* /d' "$out/build.log" >&2
	echo "error: $1 does not build against the $kernel kernel (above)" >&2
	exit 1
fi
sed -e "s|$out/|$dir/|g" "$out/build.log"
[ -f "$out/$module.ko" ] || { echo "error: the build made no $module.ko (DRIVER_MODULE=$module?)" >&2; exit 1; }

# The checks: what the configuration says the driver does.
checks=() skipped=()
needs=$(get DRIVER_NEEDS)
if [ -n "$needs" ]; then
	skipped+=("every check of the device: it needs $needs, which the guest does not have")
else
	checks+=(check_vma check_bad_input)
	if [ "$(get DRIVER_RW_SAME)" = yes ]; then
		checks+=(check_data)
	else
		skipped+=("check_data: DRIVER_RW_SAME is not yes (read()/write() do not show the mapping's bytes)")
	fi
	if [ "$action" != none ]; then
		checks+=(check_action_failure)
	else
		skipped+=("check_action_failure: DRIVER_ACTION=none (no action that could fail)")
	fi
	if [ -n "$(get DRIVER_COUNTER)" ]; then
		checks+=(check_hooks)
	else
		skipped+=("check_hooks: no DRIVER_COUNTER")
	fi
	checks+=(check_fail_nth)
fi
checks+=(check_unload)
for s in "${skipped[@]}"; do echo "# skipped: $s"; done

run="driver-$module"
stage_conf="$out/stage.conf"
kit_conf_override "$(kit_stage_conf "$id")" "$stage_conf" \
	STAGE_TITLE="built from $1 for the $kernel kernel" STAGE_MODULES="$module" \
	STAGE_MODULE_PARAMS="$(get DRIVER_MODULE_PARAMS)" STAGE_CHECKS="${checks[*]}" \
	STAGE_TODO_CHECKS= STAGE_TODO_ERRNOS= STAGE_VARIANTS= \
	MMAP_LAB_DEVICE="$device" MMAP_LAB_MODULE="$module" MMAP_LAB_BUF_SIZE="$size" \
	MMAP_LAB_VMFLAGS="$(get DRIVER_VMFLAGS)" MMAP_LAB_NO_VMFLAGS= \
	MMAP_LAB_ACTION="$action" MMAP_LAB_ACTION_ERRNO="$(get DRIVER_ACTION_ERRNO)" \
	MMAP_LAB_HOOK_COUNTER="$(get DRIVER_COUNTER)" MMAP_LAB_LIVE_COUNTER= \
	MMAP_LAB_REFUSES="$refuses" MMAP_LAB_SWEEP=device
printf '%s\tyour driver\n' "$dir" >"$out/.checked"
: >"$out/.todos-left"
rc=0
KIT_STAGE_CONF="$stage_conf" KIT_MODULE_DIR="$out" KIT_RUN_NAME="$run" KIT_STAGE_LABEL="driver $module" \
	KIT_VERDICT_STATE="$out" KIT_VERDICT_NAME="driver $module" \
	"$top/qemu/run-stage.sh" "$kobj" "$(kit_build_path checker)" "$id" || rc=$?
logs=$(kit_build_path logs)
[ ! -s "$logs/$run.verdict" ] || cat "$logs/$run.verdict"
read -r _ passed failed skips _ <"$logs/$run.result"
skips=$((skips + ${#skipped[@]}))

# BEFORE=FILE (or a folder): the driver as it was, with .mmap(). Both
# versions are built as the same module and booted in one guest, one after
# the other (scripts/labs/mutant-batch.sh), and check_observe records what
# user space sees of each; every observation must be the same.
if [ -n "${BEFORE:-}" ]; then
	before=$(realpath -m "$BEFORE")
	cmp_dir="$out/compare"
	rm -rf "$cmp_dir" && mkdir -p "$cmp_dir/before" "$cmp_dir/after"
	# After: the module built above. Before: the driver's files with the
	# original in place of its file (same name, else the first .c), or the
	# folder given; built as the same module.
	cp "$out/$module.ko" "$cmp_dir/after/"
	cp "$dir"/*.c "$cmp_dir/before/"
	cp "$dir"/*.h "$cmp_dir/before/" 2>/dev/null || true
	if [ -d "$before" ]; then
		cp "$before"/*.c "$cmp_dir/before/"
		cp "$before"/*.h "$cmp_dir/before/" 2>/dev/null || true
	elif [ -f "$before" ]; then
		target=$(basename "$before")
		[ -f "$dir/$target" ] || target=$(basename "$first_c")
		cp "$before" "$cmp_dir/before/$target"
	else
		echo "error: BEFORE=$BEFORE: no such file or folder" >&2
		exit 2
	fi
	cp "$dir"/Kbuild "$cmp_dir/before/" 2>/dev/null || cp "$dir/Makefile" "$cmp_dir/before/"
	# shellcheck source=scripts/labs/mutant-batch.sh
	. "$top/scripts/labs/mutant-batch.sh"
	if ! kit_build_mutants "$kobj" "$cmp_dir" "$module" "$cmp_dir/build.log" before; then
		where=$before
		[ -d "$where" ] || where=$(dirname "$before")
		sed -e "s|$cmp_dir/before/|$where/|g" "$cmp_dir/build.log" >&2
		echo "error: BEFORE=$BEFORE does not build against the $kernel kernel (above)" >&2
		exit 1
	fi
	echo ">> before and after: $BEFORE and $1, one guest, each loaded, observed and unloaded in turn"
	cmp_conf="$out/compare.conf"
	kit_conf_override "$stage_conf" "$cmp_conf" MMAP_LAB_RW_SAME="$(get DRIVER_RW_SAME)"
	KIT_STAGE_CONF="$cmp_conf" kit_boot_mutants "$kobj" "$(kit_build_path checker)" "$id" "$cmp_dir" \
		"$run-compare" "before=check_observe after=check_observe" before after >"$cmp_dir/boot.out" || true
	observed() { # VERSION
		sed -n 's/^# observed: //p' "$logs/$run-compare/$1.check_observe.tap" 2>/dev/null | sort
	}
	mapfile -t b < <(observed before)
	mapfile -t a < <(observed after)
	if [ ${#b[@]} = 0 ] || [ ${#a[@]} = 0 ]; then
		echo "not ok - before and after: nothing observed of the $([ ${#b[@]} = 0 ] && echo original || echo conversion) (see build/logs/$run-compare.log)"
		failed=$((failed + 1)) rc=1
	else
		differ=$(join -t= -a1 -a2 -e '(none)' -o 0,1.2,2.2 <(printf '%s\n' "${b[@]}") <(printf '%s\n' "${a[@]}") |
			awk -F= '$2 != $3 { printf "#   %s: before %s, after %s\n", $1, $2, $3 }')
		if [ -z "$differ" ]; then
			echo "ok - before and after: user space sees the same (${#a[@]} observations: data, VmFlags, the errno of each request)"
			passed=$((passed + 1))
		else
			echo "not ok - before and after: $(grep -c . <<<"$differ") of ${#a[@]} observations differ:"
			echo "$differ"
			failed=$((failed + 1)) rc=1
		fi
	fi
fi
echo "$passed passed, $failed failed, $skips skipped"
exit "$rc"
