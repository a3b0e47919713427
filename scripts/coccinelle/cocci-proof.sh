#!/usr/bin/env bash
# make cocci-proof: the whole-tree proof that patch mode never breaks a file.
# Per tree (the kit's 6.12 tree, build/linux, default target; the mainline
# tree, build/mainline-src, --mainline):
#  1. conversion: patch mode (mmap-prepare.sh) over copies of every C file
#     that sets a .mmap (make cocci-report's set: all but tools/, samples/,
#     Documentation/), all in one run; beside it, report mode over the same
#     files in one run. Every file the run changed (a .c, or a header, or a
#     .c that only defines a hook, when cross-file conversion changes them)
#     is a candidate. Report = patch: the report's "convertible" (file, hook)
#     pairs must be exactly the hooks patch mode converted in each changed
#     file (a new HOOK_prepare(struct vm_area_desc *desc), or a new
#     ".mmap_prepare = HOOK_prepare"); a mismatch is a failure.
#  2. prepare: an x86_64 allmodconfig (COMPILE_TEST, WERROR; no sanitizers,
#     no debug info, HYPERV_VTL_MODE off) object directory, made once and
#     reused, over a copy of the tree made of symlinks (the tree is never
#     written).
#  3. before: every changed .c compiled from the original (make FILE.o,
#     -Werror, one make -k -j2); a result is reused while the original file,
#     the .config and the API headers are unchanged.
#  4. after: ALL changed files put in the copy at once (a changed header
#     then reaches every changed .c that includes it: that is how a changed
#     header is covered), and every changed .c compiled again.
#  5. checkpatch --strict on each changed file: no message type the
#     original did not have.
# Verdict per changed file: compiled before and after; REGRESSION (compiled
# before, not after: there must be none); not built on x86_64 (another
# architecture's code, or its Kconfig symbol cannot be enabled); the
# original does not build here; a header (covered by the changed .c files).
# The counts, the list and each step's duration are printed and written to
# Documentation/cocci-proof.inc (proof-table.py); per tree,
# build/cocci-proof/TREE/ keeps results.tsv, summary.tsv, the diffs, the
# report and the compiler logs. Exit status 1 on a regression or a report
# that is not patch mode's result.
# Usage: cocci-proof.sh [kit|mainline]...   (default: both)
set -uo pipefail

here=$(dirname "$(realpath "$0")")
kit_root=$(dirname "$(dirname "$here")")
conv="$here/mmap-prepare.sh"
# Real paths: the copy's symlinks and the object directory name them.
build=$(realpath "$kit_root/build")
proof="$build/cocci-proof"
jobs=2
[ $# -gt 0 ] || set -- kit mainline

# The files patch mode is run over: make cocci-report's set, the C files
# that set a .mmap and the files of their folders that define or declare
# the hooks they name (mmap-files.py).
mmap_files() { # TREE
	"$here/mmap-files.py" --flat "$1"
}

# Record and print how long a step took.
step_start() { step_t0=$(date +%s); }
step_end() { # DIR STEP NOTE
	local secs=$(($(date +%s) - step_t0))
	printf '%s\t%s\t%s\n' "$2" "$secs" "${3:-}" >>"$1/times.tsv"
	echo "   ($2: $secs s${3:+; $3})"
}

# The hooks a changed file now has in their new form: a
# HOOK_prepare(struct vm_area_desc *desc) (a definition or a prototype) or
# a ".mmap_prepare = HOOK_prepare".
hook_forms() { # FILE
	{
		grep -oE '\b\w+_prepare\(struct vm_area_desc \*desc\)' "$1" | sed 's/_prepare(.*//'
		grep -oE '\.mmap_prepare\s*=\s*\w+_prepare\b' "$1" | sed -E 's/.*=\s*//; s/_prepare$//'
	} | sort -u || true
}

# A copy of TREE made of symlinks, in which the files of the after step
# become real files; a run that was stopped put back first.
shadow_tree() { # NAME TREE
	local name=$1 tree=$2 shadow="$proof/$1/src" f
	if [ ! -f "$shadow/Makefile" ] || [ "$shadow/.kit-from" -ot "$tree/Makefile" ] ||
		[ "$(cat "$shadow/.kit-from")" != "$tree" ]; then
		echo ">> $name: a copy of build/${tree#"$build"/} made of symlinks (build/${shadow#"$build"/})"
		rm -rf "$shadow" && mkdir -p "$shadow"
		cp -as "$tree/." "$shadow/"
		# The top Makefile finds the source tree from its own real path.
		rm "$shadow/Makefile" && cp "$tree/Makefile" "$shadow/Makefile"
		echo "$tree" >"$shadow/.kit-from"
		rm -f "$proof/$name/swapped"
	fi
	[ -f "$proof/$name/swapped" ] || return 0
	while read -r f; do restore_file "$name" "$tree" "$f"; done <"$proof/$name/swapped"
	rm -f "$proof/$name/swapped"
}

restore_file() { # NAME TREE FILE
	local at="$proof/$1/src/$3"
	rm -f "$at"
	[ ! -e "$2/$3" ] || ln -s "$2/$3" "$at"
}

# build/cocci-proof/NAME/obj: allmodconfig without sanitizers and debug
# info, WERROR, prepared; reused while the tree and these settings are the
# same.
prepare_tree() { # NAME TREE
	local name=$1 tree=$2 shadow="$proof/$1/src" obj="$proof/$1/obj"
	# allmodconfig turns on the sanitizers and instrumentation too: they
	# only slow the compiler down here. HYPERV_VTL_MODE makes a kernel that
	# runs only in Hyper-V's VTL2; allmodconfig turns it on, which hides the
	# root-partition driver (MSHV_ROOT): off, as in a distribution's kernel.
	# Given to allmodconfig itself (KCONFIG_ALLCONFIG), so that what they
	# make visible is set to m or y too, not to its default.
	local args=(-e COMPILE_TEST -e WERROR -d KASAN -d UBSAN -d KCSAN -d KCOV -d GCOV_KERNEL -d KMSAN
		-d DEBUG_INFO -d DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT -d DEBUG_INFO_DWARF4 -d DEBUG_INFO_DWARF5 -e DEBUG_INFO_NONE
		-d GCC_PLUGINS -d RUST -d MODULE_SIG -d HYPERV_VTL_MODE)
	local stamp
	stamp="$tree $(stat -c %Y "$tree/Makefile") ${args[*]} KCFLAGS=-Werror"
	if [ -f "$obj/.kit-prepared" ] && [ "$(cat "$obj/.kit-config" 2>/dev/null)" = "$stamp" ]; then
		echo ">> $name: build/${obj#"$build"/} is configured and prepared: reused"
		prepare_note="reused; made from nothing in $(cat "$obj/.kit-prepare-seconds" 2>/dev/null || echo '?') s"
		return 0
	fi
	local t0 fresh=0
	t0=$(date +%s)
	[ -f "$obj/.config" ] || fresh=1
	echo ">> $name: configuring build/${obj#"$build"/}: allmodconfig without sanitizers and debug info, WERROR"
	rm -f "$obj/.kit-prepared"
	mkdir -p "$obj"
	local fixed="$proof/$name/allmod.config" i
	: >"$fixed"
	for ((i = 0; i < ${#args[@]}; i += 2)); do
		if [ "${args[i]}" = -e ]; then
			echo "CONFIG_${args[i + 1]}=y"
		else
			echo "# CONFIG_${args[i + 1]} is not set"
		fi >>"$fixed"
	done
	make -s -C "$shadow" O="$obj" KCONFIG_ALLCONFIG="$fixed" allmodconfig >/dev/null
	# What allmodconfig could not set as asked (a dependency) is settled here.
	"$shadow/scripts/config" --file "$obj/.config" "${args[@]}"
	make -s -C "$shadow" O="$obj" olddefconfig >/dev/null
	echo ">> $name: make prepare (nice 10, -j$jobs; minutes the first time)"
	# KCFLAGS as the compiles have it: else their first make redoes part of
	# prepare (bounds.s, asm-offsets.s: a command line changed).
	nice -n 10 make -s -C "$shadow" O="$obj" -j"$jobs" KCFLAGS=-Werror prepare >"$proof/$name/prepare.log" 2>&1 ||
		{ echo "error: make prepare failed in build/${obj#"$build"/}; see build/cocci-proof/$name/prepare.log" >&2; return 1; }
	echo "$stamp" >"$obj/.kit-config"
	touch "$obj/.kit-prepared"
	prepare_note="configured and prepared again; from nothing: $(cat "$obj/.kit-prepare-seconds" 2>/dev/null || echo '?') s"
	if [ "$fresh" = 1 ]; then
		echo $(($(date +%s) - t0)) >"$obj/.kit-prepare-seconds"
		prepare_note="made from nothing"
	fi
}

# Compile FILE.c... in one make -k -j2 (progress: one line per object);
# writes PHASE/FILE.ok or PHASE/FILE.log (that file alone compiled again,
# for its own messages).
compile_files() { # NAME PHASE FILE...
	local name=$1 phase=$2 dir="$proof/$1" f
	shift 2
	[ $# -gt 0 ] || return 0
	local shadow="$dir/src" obj="$dir/obj" objs=()
	for f; do
		rm -f "$obj/${f%.c}.o" "$dir/$phase/$f.ok" "$dir/$phase/$f.log"
		mkdir -p "$(dirname "$dir/$phase/$f")"
		objs+=("${f%.c}.o")
	done
	nice -n 10 make -k -j"$jobs" -C "$shadow" O="$obj" KCFLAGS=-Werror "${objs[@]}" 2>&1 |
		tee "$dir/$phase.log" |
		awk -v total=$# -v phase="$phase" -v objs="${objs[*]}" '
			BEGIN { n = split(objs, o, " "); for (j = 1; j <= n; j++) want[o[j]] = 1 }
			/^  CC / && ($NF in want) { i++; printf "   %s [%d/%d] %s\n", phase, i, total, $NF; fflush() }'
	for f; do
		if [ -f "$obj/${f%.c}.o" ]; then
			touch "$dir/$phase/$f.ok"
		else
			nice -n 10 make -s -C "$shadow" O="$obj" KCFLAGS=-Werror "${f%.c}.o" >"$dir/$phase/$f.log" 2>&1
		fi
	done
}

# The first error of a failed compile, without the copy's path, cut short.
first_error() { # NAME LOG
	{ grep -m1 -E '(error|Error)' "$2" || echo "no error line: see $2"; } |
		sed "s#$proof/$1/src/##g; s#$proof/$1/##g; s#\.\./src/##g" | cut -c1-160
}

# The checkpatch --strict message types of a whole file, counted.
checkpatch_types() { # TREE FILE
	(cd /tmp && "$1/scripts/checkpatch.pl" --strict --no-tree --no-summary --terse --show-types -f "$2" 2>/dev/null) |
		sed -nE 's/^[^:]+:[0-9]+: (ERROR|WARNING|CHECK):([A-Z_0-9]+):.*/\2/p' | sort | uniq -c
}

# The API headers the cached results of "before" also depend on.
api_headers() { # TREE
	local h
	for h in include/linux/fs.h include/linux/mm.h include/linux/mm_types.h; do
		[ ! -f "$1/$h" ] || echo "$1/$h"
	done
}

prove_tree() { # NAME TREE [--mainline]
	local name=$1 tree=$2 flag=${3:-}
	local dir="$proof/$name" t_all
	t_all=$(date +%s)
	mkdir -p "$dir"
	: >"$dir/times.tsv"
	local files=()
	mapfile -t files < <(mmap_files "$tree")

	# 1. The conversion, and report mode beside it.
	step_start
	echo ">> $name: patch mode over copies of the ${#files[@]} files (the C files that set a .mmap, and the files that define their hooks), in one run;" \
		"report mode over the same files beside it"
	local copies="$dir/converted"
	rm -rf "$copies" "$dir/diffs" && mkdir -p "$copies" "$dir/diffs"
	(cd "$tree" && tar cf - "${files[@]}") | tar xf - -C "$copies"
	# shellcheck disable=SC2086 # empty or one flag
	(cd "$tree" && exec "$conv" --report $flag "${files[@]}" >"$dir/report.txt" 2>"$dir/report.err") &
	local report_pid=$! rc=0 report_rc=0
	# shellcheck disable=SC2086
	(cd "$copies" && exec "$conv" $flag "${files[@]}" >"$dir/patch.out" 2>"$dir/patch.err") || rc=$?
	wait "$report_pid" || report_rc=$?
	# Status 1: some hook was put back (said in patch.err); 2 and up: the
	# semantic patch or spatch failed.
	if [ "$rc" -ge 2 ] || [ "$report_rc" -ge 2 ]; then
		echo "error: the conversion failed (patch mode $rc, report mode $report_rc):" >&2
		tail -n 5 "$dir/patch.err" "$dir/report.err" >&2
		return 1
	fi
	local changed=() f
	mapfile -t changed < <(cd "$copies" && find . -type f | sed 's#^\./##' | sort |
		while read -r f; do cmp -s "$f" "$tree/$f" || echo "$f"; done)
	for f in "${changed[@]}"; do
		diff -u --label "a/$f" --label "b/$f" "$tree/$f" "$copies/$f" >"$dir/diffs/${f//\//_}.diff"
	done
	step_end "$dir" conversion "${#changed[@]} files changed"

	# Report = patch: the same (file, hook) pairs.
	local h pairs="$dir/patch-pairs.txt"
	for f in "${changed[@]}"; do
		h=$(comm -13 <([ -f "$tree/$f" ] && hook_forms "$tree/$f") <(hook_forms "$copies/$f"))
		if [ -n "$h" ]; then
			while read -r h; do echo "$f $h"; done <<<"$h"
		else
			echo "$f ?"
		fi
	done | sort -u >"$pairs"
	sed -nE 's#^(\./)?([^:]+):[0-9]+: (\w+): convertible$#\2 \3#p' "$dir/report.txt" | sort -u >"$dir/report-pairs.txt"
	local mismatch
	mismatch=$(comm -3 "$dir/report-pairs.txt" "$pairs" |
		sed -E 's/^\t(.*)/   patch mode only: \1/; t; s/^(.*)/   report only: \1/')
	if [ -z "$mismatch" ]; then
		echo ">> $name: report = patch: the report's $(wc -l <"$dir/report-pairs.txt") convertible (file, hook) pairs are the hooks patch mode converted"
	else
		echo ">> $name: FAILED: report mode's convertible (file, hook) pairs are not the hooks patch mode converted ('?': a file changed without a converted hook):"
		echo "$mismatch"
	fi

	# 2. The object directory.
	step_start
	shadow_tree "$name" "$tree"
	prepare_tree "$name" "$tree" || return 1
	step_end "$dir" prepare "$prepare_note"
	local shadow="$dir/src" obj="$dir/obj"

	# Which changed files can be compiled here.
	local build=() sym
	declare -A why=() hooks=()
	for f in "${changed[@]}"; do
		hooks[$f]=$(awk -v f="$f" '$1 == f { printf "%s%s", sep, $2; sep = " " }' "$pairs")
		case "$f" in
		*.c) ;;
		*)
			why[$f]="header: covered by compiling the changed .c files"
			continue
			;;
		esac
		case "$f" in
		arch/x86/*) ;;
		arch/*)
			why[$f]="not built on x86_64: $(cut -d/ -f1-2 <<<"$f")'s code"
			continue
			;;
		esac
		sym=$("$here/kconfig-of.py" "$tree" "$f")
		if [ -n "$sym" ] && ! grep -qE "^$sym=(y|m)$" "$obj/.config"; then
			why[$f]="not built on x86_64: $sym cannot be enabled (its dependencies)"
			continue
		fi
		build+=("$f")
	done

	# 3. Before: the originals, each result kept while the original, the
	# .config and the API headers are the same.
	step_start
	local compile=() cached=0 key
	mkdir -p "$dir/cache"
	for f in "${build[@]}"; do
		# shellcheck disable=SC2046 # paths without blanks
		key=$(cat "$tree/$f" "$obj/.config" $(api_headers "$tree") | sha256sum | cut -c1-32)
		if [ -f "$dir/cache/$f.key" ] && [ "$(cat "$dir/cache/$f.key")" = "$key" ]; then
			cached=$((cached + 1))
			continue
		fi
		mkdir -p "$(dirname "$dir/cache/$f")"
		echo "$key" >"$dir/cache/$f.key.new"
		compile+=("$f")
	done
	echo ">> $name: before: ${#build[@]} changed .c files buildable on x86_64; compiling the ${#compile[@]} originals not in the cache ($cached cached)"
	compile_files "$name" before "${compile[@]}"
	for f in "${compile[@]}"; do
		rm -f "$dir/cache/$f.ok" "$dir/cache/$f.log"
		if [ -f "$dir/before/$f.ok" ]; then touch "$dir/cache/$f.ok"; else cp "$dir/before/$f.log" "$dir/cache/$f.log"; fi
		mv "$dir/cache/$f.key.new" "$dir/cache/$f.key"
	done
	step_end "$dir" before "${#compile[@]} compiled, $cached cached"

	# 4. After: every changed file in the copy at once.
	step_start
	echo ">> $name: after: all ${#changed[@]} changed files in the copy at once; compiling the ${#build[@]} changed .c files"
	printf '%s\n' "${changed[@]}" >"$dir/swapped"
	for f in "${changed[@]}"; do
		mkdir -p "$(dirname "$shadow/$f")"
		rm -f "$shadow/$f" && cp "$copies/$f" "$shadow/$f"
	done
	compile_files "$name" after "${build[@]}"
	for f in "${changed[@]}"; do restore_file "$name" "$tree" "$f"; done
	rm -f "$dir/swapped"
	step_end "$dir" after "${#build[@]} compiled"

	# 5. checkpatch, and the verdicts.
	step_start
	local results="$dir/results.tsv" before after verdict detail extra
	printf 'file\thooks\tbefore\tafter\tverdict\tdetail\n' >"$results"
	for f in "${changed[@]}"; do
		before=- after=- detail=""
		if [ -n "${why[$f]:-}" ]; then
			verdict=${why[$f]%%:*} detail=${why[$f]#*: }
		else
			before=no after=no
			[ ! -f "$dir/cache/$f.ok" ] || before=yes
			[ ! -f "$dir/after/$f.ok" ] || after=yes
			if [ "$before" = no ]; then
				verdict="original does not build here"
				detail=$(first_error "$name" "$dir/cache/$f.log")
			elif [ "$after" = yes ]; then
				verdict="compiled before and after"
			else
				verdict=REGRESSION
				detail=$(first_error "$name" "$dir/after/$f.log")
			fi
		fi
		# The original's message types, kept while the file is the same.
		key=$(sha256sum <"$tree/$f" 2>/dev/null | cut -c1-32)
		mkdir -p "$(dirname "$dir/cache/$f")"
		if [ "$(cat "$dir/cache/$f.checkpatch-key" 2>/dev/null)" != "$key" ]; then
			{ [ ! -f "$tree/$f" ] || checkpatch_types "$tree" "$tree/$f"; } >"$dir/cache/$f.checkpatch"
			echo "$key" >"$dir/cache/$f.checkpatch-key"
		fi
		extra=$(awk 'NR == FNR { was[$2] = $1; next } $1 > was[$2] + 0 { print $2 }' \
			"$dir/cache/$f.checkpatch" <(checkpatch_types "$tree" "$copies/$f") | tr '\n' ' ')
		[ -z "$extra" ] || detail="${detail:+$detail; }checkpatch --strict: new ${extra% }"
		printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$f" "${hooks[$f]}" "$before" "$after" "$verdict" "$detail" >>"$results"
	done
	step_end "$dir" checkpatch
	printf 'total\t%s\t\n' "$(($(date +%s) - t_all))" >>"$dir/times.tsv"

	local n_both n_reg n_not n_orig n_hdr n_cp
	n_both=$(grep -c $'\tcompiled before and after\t' "$results")
	n_reg=$(grep -c $'\tREGRESSION\t' "$results")
	n_not=$(grep -c $'\tnot built on x86_64\t' "$results")
	n_orig=$(grep -c $'\toriginal does not build here\t' "$results")
	n_hdr=$(grep -c $'\theader\t' "$results")
	n_cp=$(grep -c 'checkpatch --strict: new' "$results")
	{
		printf 'version\t%s\n' "$(tree_version "$name" "$tree")"
		printf 'input\t%s\n' "${#files[@]}"
		printf 'changed\t%s\n' "${#changed[@]}"
		printf 'headers\t%s\n' "$n_hdr"
		printf 'built\t%s\n' "${#build[@]}"
		printf 'both\t%s\n' "$n_both"
		printf 'regressions\t%s\n' "$n_reg"
		printf 'not built\t%s\n' "$n_not"
		printf 'original fails\t%s\n' "$n_orig"
		printf 'checkpatch new\t%s\n' "$n_cp"
		printf 'report pairs\t%s\n' "$(wc -l <"$dir/report-pairs.txt")"
		printf 'report mismatch\t%s\n' "$(grep -c . <<<"$mismatch")"
	} >"$dir/summary.tsv"
	echo ">> $name: ${#files[@]} files in, ${#changed[@]} changed by patch mode: $n_both compiled before and after," \
		"$n_reg regressions, $n_not not built on x86_64, $n_orig whose original does not build here, $n_hdr headers;" \
		"$n_cp with new checkpatch messages"
	# Aligned columns (column(1) is not on a minimal Debian 12).
	awk -F'\t' 'NR == FNR { for (i = 1; i <= NF; i++) if (length($i) > w[i]) w[i] = length($i); next }
		{ line = "   "; for (i = 1; i < NF; i++) line = line sprintf("%-" w[i] "s  ", $i); print line $NF }' \
		"$results" "$results"
	[ "$n_reg" = 0 ] && [ -z "$mismatch" ]
}

tree_version() { # NAME TREE
	if [ "$1" = mainline ]; then
		echo "linux-source-7 $(cat "$2/.kit-package-version" 2>/dev/null || echo '?')"
	else
		echo "linux-source-6.12 $(dpkg-query -W -f '${Version}' linux-source-6.12 2>/dev/null || echo '?'), the kit's series"
	fi
}

start=$(date +%s)
done_trees=() status=0
for target in "$@"; do
	case "$target" in
	kit)
		prove_tree kit-6.12 "$(realpath "$kit_root/build/linux")" || status=1
		[ ! -s "$proof/kit-6.12/results.tsv" ] || done_trees+=("6.12, kit target=$proof/kit-6.12")
		;;
	mainline)
		if [ ! -d "$kit_root/build/mainline-src/mm" ]; then
			echo ">> mainline: skipped: $(cat "$kit_root/build/mainline-unavailable" 2>/dev/null || echo 'no mainline source')"
			continue
		fi
		prove_tree mainline "$(realpath "$kit_root/build/mainline-src")" --mainline || status=1
		[ ! -s "$proof/mainline/results.tsv" ] || done_trees+=("mainline, --mainline=$proof/mainline")
		;;
	*)
		echo "usage: $0 [kit|mainline]..." >&2
		exit 2
		;;
	esac
done
[ ${#done_trees[@]} -gt 0 ] || { echo "error: no tree was proven" >&2; exit 1; }
"$here/proof-table.py" "$kit_root/Documentation/cocci-proof.inc" "${done_trees[@]}"
# The docs show one converted real driver, before and after: of the last
# tree (mainline when it ran), the smallest change with an action in it that
# compiled before and after, else the smallest such change.
last=${done_trees[-1]#*=}
example=$(awk -F'\t' '$5 == "compiled before and after" && $6 !~ /checkpatch/ {print $1}' "$last/results.tsv" |
	while read -r f; do
		d="$last/diffs/${f//\//_}.diff"
		grep -q '^+.*mmap_action_' "$d" && rank=0 || rank=1
		echo "$rank $(wc -l <"$d") $d"
	done | sort -n -k1,1 -k2,2 | head -n 1 | cut -d' ' -f3)
[ -z "$example" ] || cp "$example" "$kit_root/Documentation/cocci-proof-example.diff"
echo ">> make cocci-proof: $(($(date +%s) - start)) s; the counts and the list are in Documentation/cocci-proof.inc"
[ "$status" = 0 ] || echo ">> make cocci-proof: FAILED (a regression, or report mode is not patch mode's result): see above"
exit "$status"
