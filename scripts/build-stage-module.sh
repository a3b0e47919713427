#!/usr/bin/env bash
# Build one stage's modules out of tree against the kit kernel. For a lab
# stage with a learner copy (work/NN-name, from `make start`) that copy is
# built, unless SOLUTION=1; otherwise the stage's own sources. They are
# copied to build/modules/ID so neither folder gets build output. The first
# line printed names what is built; build/modules/ID/.checked keeps it for
# the summary table.
# A stage whose STAGE_KERNEL is mainline is built against build/kernel-mainline
# instead of KERNEL_OBJ_DIR, and skipped (with the reason) while that kernel
# is unavailable.
# Usage: [SOLUTION=1] build-stage-module.sh KERNEL_OBJ_DIR STAGE_ID
set -euo pipefail

kobj=$(realpath "$1") id=$2
here=$(dirname "$(realpath "$0")")
# shellcheck source=scripts/learner-copy.sh
. "$here/learner-copy.sh"
kit_require_stage "$id"
kobj=$(kit_stage_kobj "$id" "$kobj")
if [ "$(kit_stage_kernel "$id")" = mainline ] && why=$(kit_mainline_not_ready) && [ -n "$why" ]; then
	echo ">> stage $id: not built: it runs on the mainline kernel, and $why"
	exit 0
fi
IFS=$'\t' read -r src which < <(kit_checked_source "$id")
rel=${src#"$kit_root"/}
names=()
for f in "$src"/*.c; do names+=("$rel/$(basename "$f")"); done
echo ">> stage $id: checking ${names[*]} ($which)"
out="$kit_root/build/modules/$id"
mkdir -p "$out"
# A module built from the other source must not survive a switch.
if [ "$(cut -f1 "$out/.checked" 2>/dev/null)" != "$rel" ]; then
	rm -f "$out"/*.c "$out"/*.h "$out"/*.o "$out"/*.ko
fi
# Copy only what changed, so kbuild's timestamps stay meaningful.
for f in "$src"/*.c "$src"/*.h "$src"/Kbuild; do
	[ -e "$f" ] || continue
	cmp -s "$f" "$out/$(basename "$f")" || cp "$f" "$out/"
done
printf '%s\t%s\n' "$rel" "$which" >"$out/.checked"
if [ "$which" = "your copy" ]; then
	"$here/todo-status.sh" "$src" "$(kit_stage_dir "$id")" | sed 's/^/>> /'
fi
make -s -C "$kobj" M="$out" W=1 modules
