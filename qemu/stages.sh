#!/usr/bin/env bash
# The list of stages and where each one lives. Sourced by the other scripts;
# run directly: `stages.sh list` prints the ids, `stages.sh dir ID` the folder.
# A lab stage is any labs/NN-name/ with a stage.conf: its id is NN without the
# leading zero. Adding a stage is adding a folder.

kit_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

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
	echo harness
}

kit_stage_dir() {
	local id=$1 d
	case "$id" in
	smoke) echo "$kit_root/qemu/selftest/smoke" ;;
	intree) echo "$kit_root/labs/intree" ;;
	harness) echo "$kit_root/qemu/selftest/planted-warn" ;;
	example) echo "$kit_root/labs/example" ;;
	*[!0-9]* | '') return 1 ;;
	*)
		for d in "$kit_root"/labs/"$(printf %02d "$((10#$id))")"-*/; do
			[ -f "$d/stage.conf" ] && { echo "${d%/}"; return 0; }
		done
		return 1
		;;
	esac
}

# The folder whose sources build the stage's modules (STAGE_SOURCE, relative
# to the repository root, or the stage folder itself).
kit_stage_source() {
	local dir
	dir=$(kit_stage_dir "$1") || return 1
	(
		STAGE_SOURCE=
		# shellcheck source=/dev/null
		. "$dir/stage.conf"
		if [ -n "$STAGE_SOURCE" ]; then echo "$kit_root/$STAGE_SOURCE"; else echo "$dir"; fi
	)
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
	check) kit_require_stage "$2" ;;
	*) echo "usage: $0 list | dir ID | source ID | check ID" >&2; exit 2 ;;
	esac
fi
