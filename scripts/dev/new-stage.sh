#!/usr/bin/env bash
# Start a new lab stage as a copy of an existing one (the recipe "Add a lab
# stage" of Documentation/maintain/recipes.rst):
#  - labs/NEW/ from labs/FROM/, the module and device renamed (mmap_labF
#    becomes mmap_labN, in file names and contents), STAGE_TITLE and
#    STAGE_TEACHES marked TODO;
#  - Documentation/labs/NEW.rst from FROM's page, with label lab-NN and the
#    new paths and names (the labs index finds it: its toctree is a glob);
#  - a slot "stage N" in the workshop schedule, after the last stage's;
#  - labs/README.md's stage table written again (scripts/labs/lab-table.py).
# Every list of stages (qemu/stages.sh list, the stage tables, the checker
# reference's "which stages run each program", make check) reads the new
# folder from then on. Prints what is left to write by hand.
# Usage: new-stage.sh FROM NEW   e.g. new-stage.sh 06-mainline-io 07-my-stage
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
[ $# = 2 ] || { echo "usage: $0 FROM NEW   (folders of labs/, e.g. 06-mainline-io 07-my-stage)" >&2; exit 2; }
from=$1 new=$2
[ -f "$top/labs/$from/stage.conf" ] || { echo "error: labs/$from/stage.conf not found: FROM is a lab stage's folder" >&2; exit 1; }
[[ "$new" =~ ^([0-9][0-9])-[a-z0-9-]+$ ]] || { echo "error: NEW must be NN-name (two digits, lower case): $new" >&2; exit 1; }
[ ! -e "$top/labs/$new" ] || { echo "error: labs/$new exists already" >&2; exit 1; }
f=$((10#${from%%-*})) n=$((10#${new%%-*}))
ls -d "$top"/labs/"${new%%-*}"-* >/dev/null 2>&1 && { echo "error: a stage numbered ${new%%-*} exists already" >&2; exit 1; }

echo ">> labs/$new/ from labs/$from/ (mmap_lab$f becomes mmap_lab$n)"
cp -r "$top/labs/$from" "$top/labs/$new"
for file in "$top/labs/$new"/*; do
	sed -i "s/mmap_lab$f\b/mmap_lab$n/g; s/mmap_lab${f}_/mmap_lab${n}_/g; s#labs/$from#labs/$new#g" "$file"
	case "$(basename "$file")" in
	*mmap_lab"$f"*) mv "$file" "$(dirname "$file")/$(basename "$file" | sed "s/mmap_lab$f/mmap_lab$n/")" ;;
	esac
done
sed -i -E "s/^STAGE_TITLE=\"(.*)\"$/STAGE_TITLE=\"TODO: the title of stage $n (copied from stage $f: \1)\"/; \
s/^STAGE_TEACHES=\".*\"$/STAGE_TEACHES=\"TODO: what stage $n teaches\"/" "$top/labs/$new/stage.conf"

echo ">> Documentation/labs/$new.rst from Documentation/labs/$from.rst"
sed -e "s/^\.\. _lab-$(printf %02d "$f"):$/.. _lab-$(printf %02d "$n"):/" -e "s/^Stage $f: /Stage $n: /" \
	-e "s#labs/$from#labs/$new#g" -e "s/mmap_lab$f\b/mmap_lab$n/g" -e "s/STAGE=$f\b/STAGE=$n/g" \
	"$top/Documentation/labs/$from.rst" >"$top/Documentation/labs/$new.rst"
# The title's over- and underline must stay as long as the title.
python3 - "$top/Documentation/labs/$new.rst" <<'PY'
import re, sys
path = sys.argv[1]
text = open(path).read()
text = re.sub(r"^(=+)\n(Stage .*)\n=+\n", lambda m: "%s\n%s\n%s\n" % ("=" * len(m.group(2)), m.group(2), "=" * len(m.group(2))),
              text, count=1, flags=re.M)
open(path, "w").write(text)
PY

echo ">> a slot for stage $n in Documentation/workshop/schedule.rst, after the last stage's"
python3 - "$top/Documentation/workshop/schedule.rst" "$n" <<'PY'
import re, sys
path, n = sys.argv[1], sys.argv[2]
lines = open(path).read().split("\n")
last = max(i for i, l in enumerate(lines) if re.match(r"^   stage \d+ \|", l))
end = last + 1
while end < len(lines) and lines[end].startswith("      "):
    end += 1
lines.insert(end, "   stage %s | 15 min | TODO: what the room does in stage %s" % (n, n))
open(path, "w").write("\n".join(lines))
PY

echo ">> labs/README.md: the table of the lab stages, written again"
"$top/scripts/labs/lab-table.py" --write "$top/labs/README.md"

cat <<EOF
>> stage $n is registered: make docs and make check STAGE=$n see it. Left to you:
   labs/$new/: the driver (its TODO markers), STAGE_TITLE, STAGE_TEACHES,
     STAGE_CHECKS and STAGE_TODO_CHECKS in stage.conf, and mistakes.tsv
   Documentation/labs/$new.rst: the page's text
   Documentation/workshop/schedule.rst: the slot's minutes and topic
EOF
