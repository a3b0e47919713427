#!/usr/bin/env bash
# The TODOs of a lab stage and the checks that prove each one: the markers
# "/* TODO n/k: ... */" of its solution (labs/NN-name/*.c) and the
# "N=check,check" words of STAGE_TODO_CHECKS in its stage.conf
# (labs/README.md). Sourced by the scripts that need them (check-todos.sh,
# check-loop.sh); run directly:
#   stage-todos.sh list ID        the TODO numbers, one a line, in order
#   stage-todos.sh checks ID N    the checks named for TODO N, one line,
#                                 space-separated (empty: none named)

# shellcheck source=qemu/stages.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../qemu/stages.sh"

kit_stage_todos() { # ID
	local dir
	dir=$(kit_stage_dir "$1") || return 1
	grep -ho 'TODO [0-9]*/' "$dir"/*.c | tr -dc '0-9\n' | sort -n | uniq
}

kit_todo_checks() { # ID N
	local words
	words=$(kit_stage_get "$1" STAGE_TODO_CHECKS) || return 1
	echo "$words" | tr ' ' '\n' | sed -n "s/^$2=//p" | tr ',' ' '
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	set -euo pipefail
	case "${1:-}" in
	list) kit_require_stage "$2"; kit_stage_todos "$2" ;;
	checks) kit_require_stage "$2"; kit_todo_checks "$2" "$3" ;;
	*) echo "usage: $0 list ID | checks ID N" >&2; exit 2 ;;
	esac
fi
