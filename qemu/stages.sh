#!/usr/bin/env bash
# The list of stages, where each one lives, and the one reader of their
# stage.conf files. Sourced by the other scripts; run directly:
#   stages.sh list                 the ids, in the order make check runs them
#   stages.sh dir ID               the stage's folder
#   stages.sh source ID            the folder whose sources build its modules
#   stages.sh conf ID              its stage.conf
#   stages.sh get ID VAR           the value of VAR in its stage.conf
#   stages.sh get-file CONF VAR    the value of VAR in the stage.conf file CONF
#   stages.sh kernel ID            the kernel it runs on: 6.12 or mainline
#   stages.sh list-kernel KERNEL   the ids of the stages that run on KERNEL
#   stages.sh fragments KERNEL     the config fragments of KERNEL (6.12 or
#                                  mainline) in the current KIT_PROFILE
#   stages.sh todos ID             a lab stage's TODO numbers, one a line
#   stages.sh todo-checks ID N     the checks named for its TODO N, one line
#   stages.sh check ID             fails, listing the valid ids, on an unknown ID
# A lab stage is any labs/NN-name/ with a stage.conf: its id is NN without the
# leading zero. Adding a stage is adding a folder.

kit_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# The kernel profile: make check's kernels when KIT_PROFILE is empty; with
# KIT_PROFILE=sanitize (make check-sanitizers), kernels built with
# qemu/kernel-sanitize.config merged last, and everything built or logged for
# them in folders of their own (build/kernel-sanitize,
# build/kernel-mainline-sanitize, build/modules-sanitize, build/logs-sanitize,
# ...), beside make check's, never over them.
kit_profile_suffix() {
	case "${KIT_PROFILE:-}" in
	'') ;;
	sanitize) echo -sanitize ;;
	*)
		echo "error: unknown KIT_PROFILE '$KIT_PROFILE' (empty, or sanitize)" >&2
		return 2
		;;
	esac
}

# A folder of build/ for the current profile: build/NAME, or build/NAME-PROFILE.
kit_build_path() { # NAME
	local suffix
	suffix=$(kit_profile_suffix) || return
	echo "$kit_root/build/$1$suffix"
}

# The fragments a kernel of the current profile is configured with, in order.
kit_kernel_fragments() { # 6.12|mainline
	echo "$kit_root/qemu/kernel.config"
	[ "$1" != mainline ] || echo "$kit_root/qemu/kernel-mainline.config"
	[ -z "${KIT_PROFILE:-}" ] || echo "$kit_root/qemu/kernel-$KIT_PROFILE.config"
}

# The order `make check` runs them in.
kit_stage_ids() {
	local d n
	echo smoke
	echo intree
	for d in "$kit_root"/labs/[0-9][0-9]-*/; do
		[ -f "$d/stage.conf" ] || continue
		n=$(basename "$d")
		n=${n%%-*}
		echo $((10#$n))
	done
	[ -f "$kit_root/labs/example/stage.conf" ] && echo example
	[ -f "$kit_root/labs/example-mainline/stage.conf" ] && echo example-mainline
	[ -f "$kit_root/labs/mainline-probe/stage.conf" ] && echo mainline-probe
	echo harness
	# Its planted reports need the sanitizer profile's kernel.
	[ "${KIT_PROFILE:-}" != sanitize ] || echo sanitizers
}

kit_stage_dir() {
	local id=$1 d
	case "$id" in
	smoke) echo "$kit_root/qemu/selftest/smoke" ;;
	intree) echo "$kit_root/labs/intree" ;;
	harness) echo "$kit_root/qemu/selftest/planted-warn" ;;
	sanitizers) echo "$kit_root/qemu/selftest/planted-bugs" ;;
	example) echo "$kit_root/labs/example" ;;
	example-mainline) echo "$kit_root/labs/example-mainline" ;;
	mainline-probe) echo "$kit_root/labs/mainline-probe" ;;
	*[!0-9]* | '') return 1 ;;
	*)
		for d in "$kit_root"/labs/"$(printf %02d "$((10#$id))")"-*/; do
			[ -f "$d/stage.conf" ] && { echo "${d%/}"; return 0; }
		done
		return 1
		;;
	esac
}

# The stage.conf of stage ID.
kit_stage_conf() {
	local dir
	dir=$(kit_stage_dir "$1") || return 1
	echo "$dir/stage.conf"
}

# The value of VAR (a STAGE_* or MMAP_LAB_* variable) in the stage.conf file
# CONF; empty when the file does not set it. Every host-side reader of a
# stage.conf comes here (the docs build too, through `stages.sh get-file`).
# The file is a shell fragment (labs/README.md), so it is sourced, in a
# subshell, with VAR unset first: a value never leaks in from the caller's
# environment. (The guest, which has no bash, sources its copy itself:
# qemu/guest-init.sh.)
kit_conf_get() { # CONF VAR
	case "$2" in
	STAGE_[A-Z0-9_]* | MMAP_LAB_[A-Z0-9_]* | VARIANT_[A-Z0-9_]*) ;;
	*)
		echo "error: '$2' is not a stage.conf variable (STAGE_*, VARIANT_* or MMAP_LAB_*)" >&2
		return 2
		;;
	esac
	if [ ! -f "$1" ]; then
		echo "error: $1: no such stage.conf" >&2
		return 1
	fi
	(
		unset "$2"
		# shellcheck source=/dev/null
		. "$1"
		printf '%s\n' "${!2-}"
	)
}

kit_stage_get() { # ID VAR
	local conf
	conf=$(kit_stage_conf "$1") || return 1
	kit_conf_get "$conf" "$2"
}

# Write to OUT a copy of the stage.conf file CONF with some variables set
# otherwise (VAR=VALUE words): the copy ends with the new assignments, which
# win when it is sourced. How the harness runs a stage with other checks or
# modules (the TODO mutants, make check-stock) without editing its file.
kit_conf_override() { # CONF OUT VAR=VALUE...
	local conf=$1 out=$2 assignment value
	shift 2
	{
		cat "$conf"
		echo "# Overridden for this run:"
		for assignment; do
			value=${assignment#*=}
			printf "%s='%s'\n" "${assignment%%=*}" "${value//\'/\'\\\'\'}"
		done
	} >"$out"
}

# The folder whose sources build the stage's modules (STAGE_SOURCE, relative
# to the repository root, or the stage folder itself).
kit_stage_source() {
	local dir from
	dir=$(kit_stage_dir "$1") || return 1
	from=$(kit_stage_get "$1" STAGE_SOURCE) || return 1
	if [ -n "$from" ]; then echo "$kit_root/$from"; else echo "$dir"; fi
}

# The kernel stage ID is built for and boots on: its STAGE_KERNEL, "6.12"
# (the kit kernel with the series; the default) or "mainline" (Debian's
# linux-source-7.*, built by scripts/mainline-kernel.sh).
kit_stage_kernel() {
	local kernel
	kernel=$(kit_stage_get "$1" STAGE_KERNEL) || return 1
	echo "${kernel:-6.12}"
}

# The object directory of the kernel stage ID runs on; KOBJ is the 6.12 one.
kit_stage_kobj() { # ID KOBJ
	if [ "$(kit_stage_kernel "$1")" = mainline ]; then
		kit_build_path kernel-mainline
	else
		echo "$2"
	fi
}

# The TODO numbers of lab stage ID, one a line, in order: the markers
# "/* TODO n/k: ... */" of its solution (labs/NN-name/*.c).
kit_stage_todos() { # ID
	local dir
	dir=$(kit_stage_dir "$1") || return 1
	grep -ho 'TODO [0-9]*/' "$dir"/*.c | tr -dc '0-9\n' | sort -n | uniq
}

# The checks that prove TODO N of stage ID, space-separated (empty: none
# named): the "N=check,check" words of its STAGE_TODO_CHECKS (labs/README.md).
kit_todo_checks() { # ID N
	local words
	words=$(kit_stage_get "$1" STAGE_TODO_CHECKS) || return 1
	echo "$words" | tr ' ' '\n' | sed -n "s/^$2=//p" | tr ',' ' '
}

# The TODOs of stage ID whose checks name TEST: their numbers, one a line
# (several where TODOs share a test); nothing when none.
kit_todos_of() { # ID TEST
	local word
	for word in $(kit_stage_get "$1" STAGE_TODO_CHECKS 2>/dev/null); do
		case ",${word#*=}," in *",$2,"*) echo "${word%%=*}" ;; esac
	done
}

# Why the mainline kernel (of the current profile) cannot be used; prints
# nothing when it can.
# KIT_MAINLINE_UNAVAILABLE="reason" pretends it is missing (check-static
# proves the skip path with it).
kit_mainline_unavailable() {
	# The build's status, read once: another make may be rewriting it.
	local status
	status=$(cat "$(kit_build_path logs)/mainline-kernel.status" 2>/dev/null) || status=
	if [ -n "${KIT_MAINLINE_UNAVAILABLE:-}" ]; then
		echo "$KIT_MAINLINE_UNAVAILABLE"
	elif [ -s "$kit_root/build/mainline-unavailable" ]; then
		cat "$kit_root/build/mainline-unavailable"
	elif [ -n "$status" ] && [ "$status" != 0 ]; then
		# make check counts this failure once, in the mainline-kernel row
		echo "the mainline kernel did not build ($(kit_build_path logs | sed "s|^$kit_root/||")/mainline-kernel.log)"
	elif [ ! -f "$(kit_build_path kernel-mainline)/.stamp-kernel-built" ]; then
		echo "the mainline kernel is not built yet (make ${KIT_PROFILE:+check-sanitizers, or }kernel-mainline)"
	fi
}

# Whether scripts/mainline-kernel.sh --start is still building it (make
# check): its object directory must not be used until --wait returns.
kit_mainline_busy() {
	local logs
	logs=$(kit_build_path logs)
	[ -f "$logs/mainline-kernel.pending" ] && [ ! -f "$logs/mainline-kernel.status" ]
}

# Why a module cannot be built against the mainline kernel now (being built
# in the background, or unavailable); prints nothing when it can.
kit_mainline_not_ready() {
	if kit_mainline_busy; then
		echo "the mainline kernel is being built in the background (make check builds this after it)"
	else
		kit_mainline_unavailable
	fi
}

kit_require_stage() {
	if ! kit_stage_dir "$1" >/dev/null; then
		echo "error: unknown stage '$1'. Valid stages: $(kit_stage_ids | tr '\n' ' ')" >&2
		exit 2
	fi
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	set -euo pipefail
	case "${1:-list}" in
	list) kit_stage_ids ;;
	dir) kit_require_stage "$2"; kit_stage_dir "$2" ;;
	source) kit_require_stage "$2"; kit_stage_source "$2" ;;
	conf) kit_require_stage "$2"; kit_stage_conf "$2" ;;
	get) kit_require_stage "$2"; kit_stage_get "$2" "$3" ;;
	get-file) kit_conf_get "$2" "$3" ;;
	kernel) kit_require_stage "$2"; kit_stage_kernel "$2" ;;
	list-kernel) for id in $(kit_stage_ids); do [ "$(kit_stage_kernel "$id")" != "$2" ] || echo "$id"; done ;;
	fragments) kit_kernel_fragments "$2" ;;
	todos) kit_require_stage "$2"; kit_stage_todos "$2" ;;
	todo-checks) kit_require_stage "$2"; kit_todo_checks "$2" "$3" ;;
	check) kit_require_stage "$2" ;;
	*)
		echo "usage: $0 list | dir ID | source ID | conf ID | get ID VAR | get-file CONF VAR | kernel ID | list-kernel KERNEL | fragments KERNEL | todos ID | todo-checks ID N | check ID" >&2
		exit 2
		;;
	esac
fi
