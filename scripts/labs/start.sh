#!/usr/bin/env bash
# make start STAGE=N: copy stage N's student skeleton (generated from the
# solution's TODO markers) into the learner's work area, work/NN-name/. That
# copy is the learner's: `make check STAGE=N` builds and checks it from then
# on, and no target but this one ever writes into work/. Refuses to overwrite
# an existing copy.
# Usage: start.sh STAGE_ID
set -euo pipefail

id=$1
here=$(dirname "$(realpath "$0")")
# shellcheck source=scripts/labs/learner-copy.sh
. "$here/learner-copy.sh"
kit_require_stage "$id"
if ! work=$(kit_work_dir "$id"); then
	echo "error: stage $id is not a lab stage with exercises; the lab stages are:" \
		"$(kit_stage_ids | grep -E '^[0-9]+$' | tr '\n' ' ')" >&2
	exit 2
fi
rel=${work#"$kit_root"/}
if [ -e "$work" ]; then
	echo "error: $rel already exists: it is your work, and make start never overwrites it." >&2
	echo "To start stage $id over: rm -r $rel && make start STAGE=$id" >&2
	exit 1
fi
lab=$(kit_stage_dir "$id")
mkdir -p "$(dirname "$work")"
tmp=$(mktemp -d "$(dirname "$work")/.start.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
for c in "$lab"/*.c; do
	"$here/make-skeleton.sh" "$c" "$tmp/$(basename "$c")"
done
cp "$lab/Kbuild" "$tmp/"
chmod 755 "$tmp"
mv "$tmp" "$work"
trap - EXIT
echo ">> started stage $id in $rel:"
for c in "$work"/*.c; do
	n=$(grep -c 'TODO [0-9]*/' "$c")
	echo "   ${c#"$kit_root"/}: $n TODO marker$([ "$n" = 1 ] || echo s)"
done
echo "Edit it, then: make check STAGE=$id   (make diff STAGE=$id compares it with the solution)"
