#!/usr/bin/env bash
# Build the HTML docs with Debian's Sphinx from a fresh environment (the
# kit's extension reads sources Sphinx does not track), warnings as errors,
# nitpicky, and check the built site for broken internal links.
# Usage: docs.sh KERNEL_SRC HTML_DIR
set -euo pipefail

src=$(realpath "$1") html=$2
top=$(cd "$(dirname "$0")/../.." && pwd)
echo ">> building HTML docs into ${html#"$top"/} (sphinx-build -W -n)"
start=$(date +%s)
# The pages show these conversions as diffs: an empty one is an error.
converted_or_fail() { # ORIGINAL CONVERTED
	if cmp -s "$1" "$2"; then
		echo "error: the conversion aid left $2 as it was; run scripts/coccinelle/mmap-prepare.sh on a copy of $1 to see why" >&2
		exit 1
	fi
}
# The conversion aid's page shows stage 0 before and after the semantic
# patch, for both targets: convert it now (make cocci checks the result).
for target in kit mainline; do
	mkdir -p "$top/build/cocci/docs/$target"
	cp "$top/labs/00-legacy-mmap/mmap_lab0.c" "$top/build/cocci/docs/$target/"
	flags=()
	[ "$target" = kit ] || flags=(--mainline)
	"$top/scripts/coccinelle/mmap-prepare.sh" "${flags[@]}" "$top/build/cocci/docs/$target/mmap_lab0.c" >/dev/null
	converted_or_fail "$top/labs/00-legacy-mmap/mmap_lab0.c" "$top/build/cocci/docs/$target/mmap_lab0.c"
done
# And the real drivers that make cocci-boot boots (scripts/coccinelle/real-drivers/NAME.conf),
# as the kit target converts them: build/cocci/docs/real/NAME.c.
mkdir -p "$top/build/cocci/docs/real"
for conf in "$top"/scripts/coccinelle/real-drivers/*.conf; do
	name=$(basename "$conf" .conf)
	file=$("$top/qemu/stages.sh" get-file "$conf" STAGE_REAL_FILE)
	cp "$src/$file" "$top/build/cocci/docs/real/$name.c"
	"$top/scripts/coccinelle/mmap-prepare.sh" "$top/build/cocci/docs/real/$name.c" >/dev/null
	converted_or_fail "$src/$file" "$top/build/cocci/docs/real/$name.c"
done
KIT_KERNEL_SRC="$src" KIT_ROOT="$top" sphinx-build -q -E -W --keep-going -n -b html \
	-d "$top/build/doctrees" "$top/Documentation" "$html"
python3 "$top/Documentation/check-links.py" "$html"
echo ">> docs built in $(($(date +%s) - start)) s: $html/index.html"
