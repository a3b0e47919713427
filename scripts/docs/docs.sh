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
# patch, for both targets (make cocci checks the result), and the real
# drivers that make cocci-boot boots (scripts/coccinelle/real-drivers/
# NAME.conf) as the kit target converts them: build/cocci/docs/TARGET/
# mmap_lab0.c and build/cocci/docs/real/NAME.c, one run of the script per
# target (each run starts by parsing the semantic patch: seconds). A
# target's files are converted again only when one of them is missing or
# older than its original or than a file of the aid (as make would).
docs_out="$top/build/cocci/docs"
aid=("$top"/scripts/coccinelle/mmap_prepare*.cocci "$top"/scripts/coccinelle/*.py "$top/scripts/coccinelle/mmap-prepare.sh")
up_to_date() { # ORIGINAL CONVERTED...: every CONVERTED newer than ORIGINAL_i and the aid
	local i=0 f originals=() converted=()
	while [ $# -gt 0 ]; do originals+=("$1") converted+=("$2") && shift 2; done
	for i in "${!converted[@]}"; do
		[ -f "${converted[$i]}" ] || return 1
		for f in "${originals[$i]}" "${aid[@]}"; do
			[ "${converted[$i]}" -nt "$f" ] || return 1
		done
	done
}
convert_for_docs() { # FLAG|"" ORIGINAL CONVERTED [ORIGINAL CONVERTED...]
	local flag=$1 pairs copies=()
	shift
	pairs=("$@")
	up_to_date "${pairs[@]}" && return 0
	while [ $# -gt 0 ]; do
		mkdir -p "$(dirname "$2")" && cp "$1" "$2" && copies+=("$2")
		shift 2
	done
	"$top/scripts/coccinelle/mmap-prepare.sh" ${flag:+"$flag"} "${copies[@]}" >/dev/null
	set -- "${pairs[@]}"
	while [ $# -gt 0 ]; do converted_or_fail "$1" "$2" && shift 2; done
}
stage0="$top/labs/00-legacy-mmap/mmap_lab0.c"
kit_pairs=("$stage0" "$docs_out/kit/mmap_lab0.c")
for conf in "$top"/scripts/coccinelle/real-drivers/*.conf; do
	file=$("$top/qemu/stages.sh" get-file "$conf" STAGE_REAL_FILE)
	kit_pairs+=("$src/$file" "$docs_out/real/$(basename "$conf" .conf).c")
done
convert_for_docs "" "${kit_pairs[@]}"
convert_for_docs --mainline "$stage0" "$docs_out/mainline/mmap_lab0.c"
# Sphinx rebuilds every page (-E): the pages include files it does not
# track. So the build is skipped when nothing the pages read changed since
# the last one: no file of the kit's (but build/ and work/) or of the aid's
# conversions above is newer than its stamp, nor the kernel tree's unpacked
# and patched stamp, and the kernel tree and Sphinx are the same (make check
# after make: 7 s of CPU saved).
stamp="$html/.kit-docs-built"
what="$src $(sphinx-build --version 2>&1)"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$what" ] &&
	[ -z "$(find "$top" \( -path "$top/build" -o -path "$top/work" -o -path "$top/.git" \) -prune -o -newer "$stamp" -print -quit)" ] &&
	[ -z "$(find "$docs_out" "$top/build/.stamp-kernel-source" -newer "$stamp" -print -quit 2>/dev/null)" ]; then
	echo ">> docs up to date: $html/index.html"
	exit 0
fi
rm -f "$stamp"
# Dated to the build's start: a file changed during the build is newer.
mkdir -p "$html" && touch "$stamp.start"
KIT_KERNEL_SRC="$src" KIT_ROOT="$top" sphinx-build -q -E -W --keep-going -n -b html \
	-d "$top/build/doctrees" "$top/Documentation" "$html"
python3 "$top/Documentation/check-links.py" "$html"
echo "$what" >"$stamp" && touch -r "$stamp.start" "$stamp" && rm -f "$stamp.start"
echo ">> docs built in $(($(date +%s) - start)) s: $html/index.html"
