#!/usr/bin/env bash
# The recipe "Add a lab stage" (Documentation/maintain/recipes.rst), followed
# on a throwaway copy of the kit's tracked files: stage 7 made from stage 6
# by scripts/dev/new-stage.sh. Prints TAP (no plan), one line a claim:
#  - outside the new folder, the recipe touched exactly the files the page
#    names (the stage's page, the schedule; labs/README.md written by the
#    script): the touch points;
#  - every registry picks the stage up: qemu/stages.sh list and its kernel,
#    the stage tables (lab-table.py: labs/README.md and the guide's), and
#    the guide built with -W -n (make docs' script), which shows it in the
#    labs index, the workshop schedule and the checker reference;
#  - its module builds against the mainline kernel (when built).
# Usage: check-stage-recipe.sh KERNEL_SRC [N]   (TAP numbered from N + 1)
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
src=$(realpath "$1")
# shellcheck source=scripts/lib/tap.sh
. "$top/scripts/lib/tap.sh"
n=${2:-0}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
copy="$tmp/kit"
mkdir -p "$copy"
(cd "$top" && git ls-files -z | tar --null -T - -cf -) | tar -xf - -C "$copy"
git -C "$copy" init -q && git -C "$copy" add -A &&
	git -C "$copy" -c user.name=kit -c user.email=kit@localhost commit -q -m copy

rc=0
out=$("$copy/scripts/dev/new-stage.sh" 06-mainline-io 07-recipe 2>&1) || rc=1
touched=$(git -C "$copy" status --porcelain --untracked-files=all | cut -c4- | grep -v '^labs/07-recipe/' | sort | tr '\n' ' ')
want="Documentation/labs/07-recipe.rst Documentation/workshop/schedule.rst labs/README.md "
[ "$touched" = "$want" ] || rc=1
result "$rc" "stage recipe: new-stage.sh 06-mainline-io 07-recipe touches, outside labs/07-recipe/, only ${want% }" \
	"$out"$'\n'"touched: $touched"

rc=0
out=$(cd "$copy" && { qemu/stages.sh list | tr '\n' ' ' && echo; } && qemu/stages.sh kernel 7 &&
	scripts/labs/lab-table.py --check labs/README.md && scripts/labs/lab-table.py --rst | grep -E ':ref:.lab-07.') || rc=1
grep -qw 7 <<<"$out" && grep -qx mainline <<<"$out" || rc=1
result "$rc" "stage recipe: stage 7 is in qemu/stages.sh list (kernel mainline) and both stage tables" "$out"

# The guide includes files of the kernel tree from build/linux, and the
# conversion aid's results that make docs made (the recipe changes none of
# their sources: copied with their times, docs.sh finds them up to date).
mkdir -p "$copy/build/cocci" && ln -s "$src" "$copy/build/linux"
[ ! -d "$top/build/cocci/docs" ] || cp -a "$top/build/cocci/docs" "$copy/build/cocci/"
rc=0
out=$(cd "$copy" && scripts/docs/docs.sh "$src" "$copy/build/html" 2>&1) || rc=1
# What only the generated tables say (every page's sidebar names stage 7):
# its device in the labs index, its row in the schedule, and stage 7 among
# the stages that run check_edu, which it took over from stage 6.
html="$copy/build/html"
text() { sed 's/<[^>]*>/ /g' "$1" 2>/dev/null | tr -s ' \n' ' '; }
grep -q '/dev/mmap_lab7' <(text "$html/labs/index.html") || { rc=1; out+=$'\n'"labs/index.html: no /dev/mmap_lab7 in the stage table"; }
grep -q '<td><p>Stage 7: ' "$html/workshop/schedule.html" 2>/dev/null || { rc=1; out+=$'\n'"workshop/schedule.html: no row \"Stage 7: ...\""; }
# (the table's row of check_edu: the program, what it checks, its stages)
edu_row=$(tr -d '\n' <"$html/reference/checker.html" 2>/dev/null | sed 's|</tr>|&\n|g' |
	grep 'check_edu</span></code></p></td>' | sed 's/<[^>]*>/ /g' | tr -s ' ')
grep -qE ' 3 , 6 , 7 *$' <<<"$edu_row" || { rc=1; out+=$'\n'"reference/checker.html: stage 7 not among the stages that run check_edu (the row: $edu_row)"; }
result "$rc" "stage recipe: the guide builds with -W -n and shows stage 7 in the labs index, the schedule and the checker reference" "$out"

if [ -f "$top/build/kernel-mainline/.stamp-kernel-built" ]; then
	rc=0
	out=$(make -s -C "$top/build/kernel-mainline" M="$copy/labs/07-recipe" modules 2>&1) || rc=1
	[ -f "$copy/labs/07-recipe/mmap_lab7.ko" ] || rc=1
	result "$rc" "stage recipe: stage 7's module (mmap_lab7) builds against the mainline kernel" "$out"
else
	skip "stage recipe: stage 7's module builds against the mainline kernel" "the mainline kernel is not built yet"
fi
