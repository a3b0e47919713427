#!/usr/bin/env bash
# Build the modules of several stage sources together, out of tree, in DIR:
# the guests of make bench and make stress load them side by side. Each
# source is copied as it is (the solutions, never a learner's work/ copy);
# with --buffer-order N, its "#define MMAP_LAB_BUF_ORDER<tab>4" line says N
# instead (make bench's larger buffers), and a source without that line is
# an error. Above MAX_PAGE_ORDER (10 on x86), which alloc_pages() cannot
# serve, the copy's alloc_pages() + split_page() of the buffer become
# bench_alloc_contig_pages() of labs/bench/bench_alloc.h, included after the
# source's own headers; a source whose lines differ from the labs' is an
# error there too.
# Usage: build-module-set.sh [--buffer-order N] KERNEL_OBJ DIR SOURCE_DIR...
set -euo pipefail

order=
if [ "${1:-}" = --buffer-order ]; then
	order=$2
	shift 2
fi
kobj=$1 dir=$2
shift 2
here=$(dirname "$(realpath "$0")")
max_page_order=10
rm -rf "$dir" && mkdir -p "$dir"
dir=$(realpath "$dir")
objs=()
for src; do
	for f in "$src"/*.c; do
		copy="$dir/$(basename "$f")"
		if [ -z "$order" ]; then
			cp "$f" "$copy"
		else
			sed "s/^#define MMAP_LAB_BUF_ORDER\t4\t.*\$/#define MMAP_LAB_BUF_ORDER\t$order\t\/* a larger buffer for make bench *\//" "$f" >"$copy"
			if ! grep -q "^#define MMAP_LAB_BUF_ORDER.$order" "$copy"; then
				echo "error: $f has no '#define MMAP_LAB_BUF_ORDER<tab>4' line to grow the buffer" >&2
				exit 1
			fi
		fi
		if [ -n "$order" ] && [ "$order" -gt "$max_page_order" ]; then
			alloc='ldev->pages = alloc_pages(GFP_KERNEL | __GFP_ZERO, MMAP_LAB_BUF_ORDER);'
			split='split_page(ldev->pages, MMAP_LAB_BUF_ORDER);'
			if [ "$(grep -cxF $'\t'"$alloc" "$copy")" != 1 ] || [ "$(grep -cxF $'\t'"$split" "$copy")" != 1 ]; then
				echo "error: $f does not allocate its buffer with the lines '$alloc' and '$split'," >&2
				echo "error: which build-module-set.sh replaces for a buffer above order $max_page_order" >&2
				exit 1
			fi
			# The helper's header goes after the source's last #include (it
			# must come after the driver's pr_fmt, like any header).
			awk -v alloc=$'\t'"$alloc" -v split_line=$'\t'"$split" '
				NR == FNR { if (/^#include /) last = FNR; next }
				$0 == alloc { print "\tldev->pages = bench_alloc_contig_pages(MMAP_LAB_BUF_PAGES);"; next }
				$0 == split_line { next }
				{ print }
				FNR == last { print "#include \"bench_alloc.h\"\t/* make bench only: the buffer above order 10 */" }
			' "$copy" "$copy" >"$copy.new" && mv "$copy.new" "$copy"
			cp "$here/../../labs/bench/bench_alloc.h" "$dir/"
		fi
		objs+=("$(basename "${f%.c}").o")
	done
done
echo "obj-m := ${objs[*]}" >"$dir/Kbuild"
make -s -C "$kobj" M="$dir" W=1 modules
