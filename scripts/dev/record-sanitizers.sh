#!/usr/bin/env bash
# make record-sanitizers: what the sanitizer profile (qemu/kernel-sanitize.config)
# costs against make check's kernel, each figure a ratio from one run:
#   build   both 6.12 configurations built from scratch at the same time, one
#           job each, so that both see the same machine: build/kernel-sanitize
#           (kept: make check-sanitizers uses it) and build/sanitizer-cost/kernel
#           (the plain configuration, thrown away after);
#   guest   the same stages booted on build/kernel and build/kernel-sanitize
#           in turn, ROUNDS times: the ratio of their guest times.
# Writes the figures into Documentation/sanitizers-cost.inc, and from the last
# make check-sanitizers its time and closing line (Documentation/sanitizers-run.inc)
# and the self-test's reports (Documentation/labs/_captured/sanitizer-reports.txt),
# all three shown on the guide's page "The sanitizer run". Takes about 20
# minutes on 2 cores.
# --build-only and --guest-only measure one of the two (the other's figures
# are the last ones measured); --write-only measures nothing, and writes the
# files again from the last figures and the last make check-sanitizers.
# Usage: record-sanitizers.sh [--build-only | --guest-only | --write-only] [ROUNDS]
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=qemu/stages.sh
. "$top/qemu/stages.sh"
phases="build guest"
case "${1:-}" in
--build-only) phases=build && shift ;;
--guest-only) phases=guest && shift ;;
--write-only) phases= && shift ;;
esac
rounds=${1:-3}
src="$top/build/linux"
cost="$top/build/sanitizer-cost"
mkdir -p "$cost"
# Stages whose guests the guest ratio is taken over: a lab stage with a
# device, and the in-tree users (secretmem, memfd, /dev/zero, relay, SysV).
guest_stages=(3 intree)

build_both() {
	local plain="$cost/kernel" sanitize="$top/build/kernel-sanitize" pid_plain pid_sanitize
	rm -rf "$plain" "$sanitize"
	echo ">> configuring both kernels"
	"$top/scripts/kernel/configure-kernel.sh" "$src" "$plain" "$top/qemu/kernel.config"
	"$top/scripts/kernel/configure-kernel.sh" "$src" "$sanitize" "$top/qemu/kernel.config" "$top/qemu/kernel-sanitize.config"
	echo ">> building both from scratch side by side, one job each (about 15 minutes on 2 cores)"
	timed_build "$plain" & pid_plain=$!
	timed_build "$sanitize" & pid_sanitize=$!
	wait "$pid_plain"
	wait "$pid_sanitize"
	touch "$sanitize/.stamp-kernel-built"
	read -r plain_s <"$plain/cost-seconds"
	read -r sanitize_s <"$sanitize/cost-seconds"
	echo "build plain $plain_s sanitize $sanitize_s" >"$cost/build.txt"
	echo ">> built from scratch, one job each: plain ${plain_s} s, sanitizer profile ${sanitize_s} s ($(ratio "$sanitize_s" "$plain_s")x)"
	rm -rf "$plain"
}

timed_build() { # OBJ
	local start
	start=$(date +%s)
	# The targets of make kernel (scripts/kernel/kernel.sh).
	make -s -C "$src" O="$1" -j1 vmlinux modules >"$1/build.log" 2>&1 ||
		{ tail -n 20 "$1/build.log" >&2; echo "error: the build in $1 failed; log: $1/build.log" >&2; return 1; }
	echo $(($(date +%s) - start)) >"$1/cost-seconds"
}

ratio() { # A B
	echo "scale=2; $1 / $2" | bc | sed 's/^\./0./'
}

# Boot stage $2 on kernel $1 once; prints its guest seconds, fails when the
# stage fails.
guest_seconds() { # plain|sanitize ID
	local profile=$1 id=$2 kobj="$top/build/kernel" out rc=0
	[ "$profile" = plain ] || kobj="$top/build/kernel-sanitize"
	out=$(KIT_PROFILE=${profile#plain} KIT_RUN_NAME="cost-$id" KIT_BOOT_TIMEOUT=900 \
		"$top/qemu/run-stage.sh" "$kobj" "$top/build/checker" "$id" 2>&1) || rc=$?
	if [ "$rc" != 0 ]; then
		echo "error: stage $id failed on the $profile kernel:" >&2
		grep '^not ok' <<<"$out" | head -n 5 >&2
		return 1
	fi
	sed -n 's/^# stage .*: guest finished in \([0-9.]*\)s.*/\1/p' <<<"$out"
}

guest_both() {
	local id round s
	declare -A total=()
	[ -f "$top/build/kernel-sanitize/.stamp-kernel-built" ] ||
		{ echo "error: no sanitizer kernel: run with --build-only first (or make check-sanitizers)" >&2; return 1; }
	echo ">> building stages ${guest_stages[*]} for both kernels"
	SOLUTION=1 "$top/scripts/labs/modules.sh" "$top/build/kernel" "${guest_stages[@]}" >/dev/null
	KIT_PROFILE=sanitize SOLUTION=1 "$top/scripts/labs/modules.sh" "$top/build/kernel-sanitize" "${guest_stages[@]}" >/dev/null
	for round in $(seq "$rounds"); do
		for id in "${guest_stages[@]}"; do
			for profile in plain sanitize; do
				s=$(guest_seconds "$profile" "$id")
				echo ">> round $round, stage $id, $profile kernel: ${s} s"
				total[$profile.$id]=$(echo "${total[$profile.$id]:-0} + $s" | bc)
			done
		done
	done
	: >"$cost/guest.txt"
	for id in "${guest_stages[@]}"; do
		echo "guest $id plain ${total[plain.$id]} sanitize ${total[sanitize.$id]} rounds $rounds" >>"$cost/guest.txt"
		echo ">> stage $id over $rounds rounds: plain ${total[plain.$id]} s, sanitizer profile ${total[sanitize.$id]} s ($(ratio "${total[sanitize.$id]}" "${total[plain.$id]}")x)"
	done
}

# The page's figures, from build/sanitizer-cost/{build,guest}.txt.
write_inc() {
	local inc="$top/Documentation/sanitizers-cost.inc" plain_s sanitize_s
	read -r _ _ plain_s _ sanitize_s <"$cost/build.txt"
	{
		echo ".. Generated by scripts/dev/record-sanitizers.sh (make record-sanitizers)"
		echo "   on $(date +%Y-%m-%d) at commit $(git -C "$top" rev-parse --short HEAD)."
		echo
		echo "Measured on $(date +%Y-%m-%d): $(nproc) cores, QEMU with $("$top/qemu/accel.sh" | tr '[:lower:]' '[:upper:]')."
		echo
		echo ".. list-table::"
		echo "   :header-rows: 1"
		echo
		echo "   * - what, on the 6.12 kernel"
		echo "     - make check's kernel"
		echo "     - sanitizer profile"
		echo "     - ratio"
		echo "   * - build from scratch, one job each, side by side"
		echo "     - $(mmss "$plain_s")"
		echo "     - $(mmss "$sanitize_s")"
		echo "     - $(ratio "$sanitize_s" "$plain_s")x"
		while read -r _ id _ p _ s _ r; do
			echo "   * - stage $id's guest (boot, checks, power-off), sum of $r boots"
			echo "     - $p s"
			echo "     - $s s"
			echo "     - $(ratio "$s" "$p")x"
		done <"$cost/guest.txt"
	} >"$inc"
	echo ">> wrote ${inc#"$top"/}"
}

# The last make check-sanitizers: how long it took, its kernels' builds and
# its closing line (build/timings, build/logs-sanitize/summary.txt).
write_run_inc() {
	local inc="$top/Documentation/sanitizers-run.inc" summary="$top/build/logs-sanitize/summary.txt" t="$top/build/timings"
	if [ ! -s "$summary" ] || [ ! -s "$t/check-sanitizers" ]; then
		echo "error: no finished make check-sanitizers to record (build/logs-sanitize/summary.txt): run it first" >&2
		return 1
	fi
	# The mainline kernel's build time, when that run built it (kernel.sh
	# writes the file only then).
	local mainline="its mainline kernel was up to date"
	if [ "$(stat -c %Y "$t/kernel-kernel-mainline-sanitize" 2>/dev/null || echo 0)" -gt \
		"$(($(stat -c %Y "$t/check-sanitizers") - $(cat "$t/check-sanitizers")))" ]; then
		mainline="its mainline kernel's build, beside the 6.12 guests, $(mmss "$(cat "$t/kernel-kernel-mainline-sanitize")")"
	fi
	{
		echo ".. Generated by scripts/dev/record-sanitizers.sh (make record-sanitizers)"
		echo "   on $(date +%Y-%m-%d) at commit $(git -C "$top" rev-parse --short HEAD)."
		echo
		echo "The last \`\`make check-sanitizers\`\` took $(mmss "$(cat "$t/check-sanitizers")") on $(nproc) cores with TCG"
		echo "(its 6.12 kernel's build step $(mmss "$(cat "$t/check-sanitizers-kernel")"); $mainline) and ended:"
		echo
		echo ".. code-block:: text"
		echo
		sed -e 's/^/   /' -e 's/[[:space:]]*$//' "$summary"
	} >"$inc"
	echo ">> wrote ${inc#"$top"/}"
}

# The self-test's reports, as the last make check-sanitizers logged them:
# each sanitizer's first lines, timestamps and the kit's path dropped.
write_reports() {
	local log="$top/build/logs-sanitize/sanitizers.log" out="$top/Documentation/labs/_captured/sanitizer-reports.txt"
	[ -s "$log" ] || { echo "error: no sanitizer self-test log (build/logs-sanitize/sanitizers.log): run make check-sanitizers first" >&2; return 1; }
	local clean
	clean=$(tr -d '\r' <"$log" | sed -e 's/^\[ *[0-9.]*\] //' -e "s|$top/||g")
	{
		# UBSAN's and KASAN's first two lines: what and where.
		grep -A1 -E '^UBSAN: ' <<<"$clean" | head -n 2
		echo "..."
		grep -A1 -E '^BUG: KASAN: ' <<<"$clean" | head -n 2
		echo "..."
		# kmemleak's object, its allocating task, and the top of its backtrace.
		awk '/^unreferenced object / { n = 1 } n && (/^unreferenced object / || /^  comm / || /^  backtrace/) { print; if (/backtrace/) b = 3; next }
			n && b > 0 { print; b--; if (b == 0) exit }' <<<"$clean"
		echo "..."
	} >"$out"
	[ -s "$out" ] || { echo "error: no sanitizer report found in $log" >&2; return 1; }
	echo ">> wrote ${out#"$top"/}"
}

mmss() { printf '%d min %02d s' $(($1 / 60)) $(($1 % 60)); }

for phase in $phases; do
	case "$phase" in
	build) build_both ;;
	guest) guest_both ;;
	esac
done
if [ ! -f "$cost/build.txt" ] || [ ! -f "$cost/guest.txt" ]; then
	echo "error: no build or guest figures in ${cost#"$top"/}: run without --write-only (or --guest-only after --build-only)" >&2
	exit 1
fi
write_inc
write_run_inc
write_reports
