#!/usr/bin/env bash
# make cocci-proof: apply scripts/coccinelle/mmap_prepare.cocci to every real
# driver that make cocci-report found convertible, and prove each result:
#  - the original file builds (make path/to/file.o, warnings as errors) in a
#    configuration that enables it: x86_64 allmodconfig (COMPILE_TEST
#    included) without sanitizers and debug info, and the driver's own
#    Kconfig symbol (drivers that cannot be enabled on x86_64, or whose
#    original does not build there, are listed as not proven);
#  - the semantic patch converts it fully: patch mode changes the file and
#    leaves no "struct vm_area_struct" in the converted hook's signature, no
#    ".mmap =" for it in the file_operations;
#  - the converted file builds the same way (-Werror), and checkpatch
#    --strict finds no message in it that it did not find in the original
#    (the driver's older style problems are not counted).
# The trees are left untouched: the build uses a copy made of symlinks
# (build/cocci-proof/TREE/src) in which the converted file is a real file.
# Per tree: build/cocci-proof/TREE/results.tsv and the diffs; the table of
# proven drivers goes to Documentation/cocci-proof.inc.
# Usage: cocci-proof.sh [kit|mainline]...   (default: both)
set -uo pipefail

here=$(dirname "$(realpath "$0")")
kit_root=$(dirname "$(dirname "$here")")
conv="$here/mmap-prepare.sh"
proof="$kit_root/build/cocci-proof"
jobs=$(nproc)
[ $# -gt 0 ] || set -- kit mainline

# Make build/cocci-proof/NAME: the symlink copy of TREE, configured and
# prepared in obj/ with each SYMBOL enabled.
prepare_tree() { # NAME TREE SYMBOL...
	local name=$1 tree=$2 shadow="$proof/$1/src" obj="$proof/$1/obj"
	shift 2
	if [ ! -f "$shadow/Makefile" ] || [ "$shadow/.kit-from" -ot "$tree/Makefile" ]; then
		echo ">> $name: a copy of ${tree#"$kit_root"/} made of symlinks (${shadow#"$kit_root"/})"
		rm -rf "$shadow" && mkdir -p "$shadow"
		cp -as "$tree/." "$shadow/"
		# The top Makefile finds the source tree from its own real path.
		rm "$shadow/Makefile" && cp "$tree/Makefile" "$shadow/Makefile"
		touch "$shadow/.kit-from"
	fi
	echo ">> $name: configuring ${obj#"$kit_root"/}: allmodconfig without sanitizers and debug info, WERROR, and $# driver symbols"
	mkdir -p "$obj"
	make -s -C "$shadow" O="$obj" allmodconfig >/dev/null
	# allmodconfig turns on the sanitizers and instrumentation too: they
	# only slow the compiler down here.
	# HYPERV_VTL_MODE makes a kernel that runs only in Hyper-V's VTL2;
	# allmodconfig turns it on, which hides the root-partition driver
	# (MSHV_ROOT): off, as in a distribution's kernel.
	local args=(-e COMPILE_TEST -e WERROR -d KASAN -d UBSAN -d KCSAN -d KCOV -d GCOV_KERNEL -d KMSAN
		-d DEBUG_INFO -d DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT -d DEBUG_INFO_DWARF4 -d DEBUG_INFO_DWARF5 -e DEBUG_INFO_NONE
		-d GCC_PLUGINS -d RUST -d MODULE_SIG -d HYPERV_VTL_MODE)
	local sym
	for sym; do args+=(-e "${sym#CONFIG_}"); done
	"$shadow/scripts/config" --file "$obj/.config" "${args[@]}"
	# Enabling a symbol can make new choices visible: settle them twice.
	make -s -C "$shadow" O="$obj" olddefconfig >/dev/null
	"$shadow/scripts/config" --file "$obj/.config" "${args[@]}"
	make -s -C "$shadow" O="$obj" olddefconfig >/dev/null
	echo ">> $name: make prepare (about 2 minutes on 2 cores the first time)"
	make -s -C "$shadow" O="$obj" -j"$jobs" prepare >"$proof/$name/prepare.log" 2>&1 ||
		{ echo "error: make prepare failed in ${obj#"$kit_root"/}; see ${proof#"$kit_root"/}/$name/prepare.log" >&2; return 1; }
}

# The checkpatch --strict message types of a whole file, counted: the
# conversion must add none (a driver's older style problems, even on a line
# the conversion rewrites, are not its doing).
checkpatch_types() { # TREE FILE
	(cd /tmp && "$1/scripts/checkpatch.pl" --strict --no-tree --no-summary --terse --show-types -f "$2" 2>/dev/null) |
		sed -nE 's/^[^:]+:[0-9]+: (ERROR|WARNING|CHECK):([A-Z_0-9]+):.*/\2/p' | sort | uniq -c
}

# Build one object; prints the compiler's output.
build_object() { # NAME PATH
	make -s -C "$proof/$1/src" O="$proof/$1/obj" KCFLAGS=-Werror "${2%.c}.o" 2>&1
}

# The first line of build output $2 that matches $3, without the tree's
# absolute path (so the table is the same wherever the kit is), cut short.
first_error() { # NAME OUTPUT PATTERN
	grep -m1 -E "$3" <<<"$2" | sed "s#$proof/$1/src/##g" | cut -c1-160
}

prove_tree() { # NAME TREE REPORT [--mainline]
	local name=$1 tree=$2 report=$3 flag=${4:-}
	local dir="$proof/$name" results="$proof/$name/results.tsv"
	mkdir -p "$dir/diffs"
	if [ ! -s "$report" ]; then
		echo "error: no report ${report#"$kit_root"/}: run make cocci-report first" >&2
		return 1
	fi
	# FILE:LINE: HOOK: convertible, one per file.
	mapfile -t candidates < <(sed -nE 's#^(\./)?([^:]+):[0-9]+: (\w+): convertible$#\2 \3#p' "$report" | sort -u -k1,1)
	echo ">> $name: ${#candidates[@]} files with a hook the report calls convertible"
	local syms=() file hook sym
	for line in "${candidates[@]}"; do
		sym=$("$here/kconfig-of.py" "$tree" "${line%% *}")
		[ -z "$sym" ] || syms+=("$sym")
	done
	prepare_tree "$name" "$tree" "${syms[@]}" || return 1
	local shadow="$dir/src" obj="$dir/obj"
	printf 'file\thook\tverdict\tdetail\n' >"$results"
	for line in "${candidates[@]}"; do
		file=${line%% *} hook=${line#* }
		sym=$("$here/kconfig-of.py" "$tree" "$file")
		case "$file" in
		arch/x86/*) ;;
		arch/*)
			printf '%s\t%s\tnot proven\tanother architecture'"'"'s code (%s): not built on x86_64\n' "$file" "$hook" \
				"$(echo "$file" | cut -d/ -f1-2)" >>"$results"
			continue
			;;
		esac
		if [ -n "$sym" ] && ! grep -qE "^$sym=(y|m)$" "$obj/.config"; then
			printf '%s\t%s\tnot proven\t%s cannot be enabled on x86_64 (its dependencies)\n' "$file" "$hook" "$sym" >>"$results"
			continue
		fi
		if ! out=$(build_object "$name" "$file"); then
			printf '%s\t%s\tnot proven\tthe original does not build here: %s\n' "$file" "$hook" \
				"$(first_error "$name" "$out" 'error|Error')" >>"$results"
			continue
		fi
		local converted="$dir/converted/$file"
		mkdir -p "$(dirname "$converted")"
		cp "$tree/$file" "$converted"
		# shellcheck disable=SC2086 # empty or one flag
		"$conv" $flag "$converted" >/dev/null 2>&1
		diff -u --label "a/$file" --label "b/$file" "$tree/$file" "$converted" >"$dir/diffs/${file//\//_}.diff"
		local verdict=proven detail
		if ! [ -s "$dir/diffs/${file//\//_}.diff" ] || grep -qE "\.mmap\s*=\s*$hook\b" "$converted" ||
			grep -qE "\b${hook}_prepare\(struct file \*" "$converted"; then
			verdict="not proven" detail="not converted fully (see the diff)"
		else
			rm "$shadow/$file" && cp "$converted" "$shadow/$file"
			if ! out=$(build_object "$name" "$file"); then
				verdict="not proven" detail="the converted file does not build: $(first_error "$name" "$out" error)"
			fi
			rm "$shadow/$file" && ln -s "$tree/$file" "$shadow/$file"
			if [ "$verdict" = proven ]; then
				local extra
				extra=$(awk 'NR == FNR { was[$2] = $1; next } $1 > was[$2] + 0 { print $2 }' \
					<(checkpatch_types "$tree" "$tree/$file") <(checkpatch_types "$tree" "$converted") | tr '\n' ' ')
				[ -z "$extra" ] || verdict="not proven" detail="checkpatch --strict: new ${extra% }"
			fi
		fi
		[ "$verdict" != proven ] ||
			detail="${sym:-no Kconfig symbol found}; $(grep -c '^+[^+]' "$dir/diffs/${file//\//_}.diff") lines added, $(grep -c '^-[^-]' "$dir/diffs/${file//\//_}.diff") removed"
		printf '%s\t%s\t%s\t%s\n' "$file" "$hook" "$verdict" "$detail" >>"$results"
	done
	sed -i "s#$kit_root/build/cocci-proof/$name/\(src\|diffs\)/##g" "$results"
	echo ">> $name: $(grep -c $'\tproven\t' "$results") of ${#candidates[@]} proven (converted, built with -Werror, checkpatch clean):"
	# Aligned columns (column(1) is not on a minimal Debian 12).
	awk -F'\t' 'NR == FNR { for (i = 1; i <= NF; i++) if (length($i) > w[i]) w[i] = length($i); next }
		{ line = "   "; for (i = 1; i < NF; i++) line = line sprintf("%-" w[i] "s  ", $i); print line $NF }' \
		"$results" "$results"
}

start=$(date +%s)
done_trees=()
for target in "$@"; do
	case "$target" in
	kit)
		prove_tree kit-6.12 "$kit_root/build/linux" "$kit_root/build/cocci/report-kit-6.12.txt" &&
			done_trees+=("6.12, kit target=$proof/kit-6.12/results.tsv")
		;;
	mainline)
		if [ ! -d "$kit_root/build/mainline-src/mm" ]; then
			echo ">> mainline: skipped: $(cat "$kit_root/build/mainline-unavailable" 2>/dev/null || echo 'no mainline source')"
			continue
		fi
		prove_tree mainline "$kit_root/build/mainline-src" "$kit_root/build/cocci/report-mainline.txt" --mainline &&
			done_trees+=("mainline, --mainline=$proof/mainline/results.tsv")
		;;
	*)
		echo "usage: $0 [kit|mainline]..." >&2
		exit 2
		;;
	esac
done
[ ${#done_trees[@]} -gt 0 ] || { echo "error: no tree was proven" >&2; exit 1; }
"$here/proof-table.py" "$kit_root/Documentation/cocci-proof.inc" "${done_trees[@]}"
# The docs show one proven real driver, before and after: of the last tree
# proven (mainline when it was), the smallest change that has an action in
# it, else the smallest change.
last=${done_trees[-1]#*=}
example=$(awk -F'\t' '$3 == "proven" {print $1}' "$last" | while read -r f; do
	d="$(dirname "$last")/diffs/${f//\//_}.diff"
	grep -q '^+.*mmap_action_' "$d" && rank=0 || rank=1
	echo "$rank $(wc -l <"$d") $d"
done | sort -n -k1,1 -k2,2 | head -n 1 | cut -d' ' -f3)
[ -z "$example" ] || cp "$example" "$kit_root/Documentation/cocci-proof-example.diff"
echo ">> make cocci-proof: $(($(date +%s) - start)) s; the table is in Documentation/cocci-proof.inc"
