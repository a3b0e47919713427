#!/usr/bin/env bash
# make diff STAGE=N: the learner copy (work/NN-name) against the reference
# solution, as a unified diff with paths relative to the repository.
# Usage: diff.sh STAGE_ID
set -euo pipefail

id=$1
here=$(dirname "$(realpath "$0")")
# shellcheck source=scripts/labs/learner-copy.sh
. "$here/learner-copy.sh"
kit_require_stage "$id"
if ! work=$(kit_work_dir "$id") || [ ! -d "$work" ]; then
	echo "error: stage $id has no copy of yours in work/; start one with: make start STAGE=$id" >&2
	exit 2
fi
lab=$(kit_stage_dir "$id")
cd "$kit_root"
rc=0
for c in "$lab"/*.c; do
	name=$(basename "$c")
	diff -u "${lab#"$kit_root"/}/$name" "${work#"$kit_root"/}/$name" || rc=$?
	[ "$rc" -le 1 ] || exit "$rc"
done
[ "$rc" = 1 ] || echo ">> ${work#"$kit_root"/} is the reference solution, line for line"
exit 0
