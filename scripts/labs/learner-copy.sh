#!/usr/bin/env bash
# Where a lab stage's learner copy lives, and whether the kit builds it.
# Sourced by the scripts that need it; run directly:
#   learner-copy.sh dir ID      the work folder of stage ID (work/NN-name)
#   learner-copy.sh source ID   the folder `make check` builds for stage ID:
#                               the learner copy if it exists (and SOLUTION is
#                               not 1), else the reference solution
# Only lab stages (labs/NN-name) have learner copies. KIT_WORK_DIR moves the
# work area (default: work/ at the top of the kit); the loop test uses it.

# shellcheck source=qemu/stages.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../qemu/stages.sh"

# The work folder of a lab stage, or nothing (exit 1) for other stages.
kit_work_dir() {
	local dir
	dir=$(kit_stage_dir "$1") || return 1
	case "$dir" in
	"$kit_root"/labs/[0-9][0-9]-*) echo "${KIT_WORK_DIR:-$kit_root/work}/$(basename "$dir")" ;;
	*) return 1 ;;
	esac
}

# The folder whose sources make check builds, and "your copy", "reference
# solution" (a lab stage) or "kit sources" (the other stages), tab-separated.
kit_checked_source() {
	local work
	if ! work=$(kit_work_dir "$1"); then
		printf '%s\tkit sources\n' "$(kit_stage_source "$1")"
	elif [ "${SOLUTION:-0}" != 1 ] && [ -d "$work" ]; then
		printf '%s\tyour copy\n' "$work"
	else
		printf '%s\treference solution\n' "$(kit_stage_source "$1")"
	fi
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	set -euo pipefail
	case "${1:-}" in
	dir) kit_require_stage "$2"; kit_work_dir "$2" ;;
	source) kit_require_stage "$2"; kit_checked_source "$2" | cut -f1 ;;
	*) echo "usage: $0 dir ID | source ID" >&2; exit 2 ;;
	esac
fi
