#!/usr/bin/env bash
# make cocci-tests: the conversion aid's test cases, on both targets.
# As the kernel's scripts/coccinelle tests are, each case is a C file and
# its expected result: scripts/coccinelle/tests/NAME.c is converted in place
# by mmap-prepare.sh (patch mode) and reported (--report), for the kit
# target and for --mainline, and for each TARGET (kit, mainline):
#  - the converted file must be NAME.TARGET.res byte for byte (a .res equal
#    to NAME.c: the file must be left untouched);
#  - the report must be NAME.TARGET.report line for line;
#  - the hooks the report calls convertible must be exactly those patch
#    mode converted (a FOO_prepare(struct vm_area_desc *desc) that NAME.c
#    did not have); a file patch mode changed must have a converted hook,
#    and a file it left untouched a "not converted: REASON" line;
#  - the conversion adds no line of blanks only.
# A case can be several files, a folder tests/NAME/ (a hook defined in one
# file and named in others): each of its files FILE must be converted as
# NAME/FILE.TARGET.res, and the report of all of them is NAME.TARGET.report.
# All the cases go through one conversion and one report per target (the
# two targets in parallel): a few seconds of spatch. Prints TAP, one line
# per case and target.
# Usage: cocci-tests.sh [--update]
#   --update  write the .res and .report files from this run instead (then
#             read their diff: it is what the aid now does)
set -euo pipefail

here=$(dirname "$(realpath "$0")")
cases="$here/tests"
update=0
[ "${1:-}" != --update ] || update=1
command -v spatch >/dev/null || { echo "error: spatch not found: install Debian's coccinelle (make packages)" >&2; exit 1; }
# shellcheck source=scripts/lib/tap.sh
. "$here/../lib/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

names=() paths=()
for c in "$cases"/*.c "$cases"/*/; do
	names+=("$(basename "$c" .c)")
done
case_files() { # NAME: its files, relative to tests/
	if [ -d "$cases/$1" ]; then
		(cd "$cases" && ls "$1"/*.[ch])
	else
		echo "$1.c"
	fi
}
for name in "${names[@]}"; do
	mapfile -t -O "${#paths[@]}" paths < <(case_files "$name")
done
# One copy to convert and one to report per target, the paths in the
# report relative to the copy's folder: "NAME.c:LINE: HOOK: verdict".
run_target() { # TARGET FLAG...
	local target=$1
	shift
	mkdir -p "$tmp/$target/patch" "$tmp/$target/report"
	for path in "${paths[@]}"; do
		mkdir -p "$tmp/$target/patch/$(dirname "$path")" "$tmp/$target/report/$(dirname "$path")"
		cp "$cases/$path" "$tmp/$target/patch/$path"
		cp "$cases/$path" "$tmp/$target/report/$path"
	done
	(cd "$tmp/$target/patch" && "$here/mmap-prepare.sh" "$@" "${paths[@]}" >/dev/null 2>"$tmp/$target/patch.err") || true
	(cd "$tmp/$target/report" && "$here/mmap-prepare.sh" --report "$@" "${paths[@]}" >"$tmp/$target/report.txt" 2>"$tmp/$target/report.err") || true
}
run_target kit &
kit=$!
run_target mainline --mainline
wait "$kit"

# shellcheck source=scripts/coccinelle/hooks-of.sh
. "$here/hooks-of.sh"
echo "TAP version 13"
for target in kit mainline; do
	for name in "${names[@]}"; do
		want_report="$cases/$name.$target.report"
		report=$(grep -E "^$name(\.c|/[^:]*):" "$tmp/$target/report.txt" || true)
		[ "$update" = 0 ] || echo "$report" >"$want_report"
		out="" what="converted as $name.$target.res"
		[ -f "$want_report" ] || out+="no $(basename "$want_report"): write it (--update, then read it)"$'\n'
		[ ! -f "$want_report" ] || [ "$report" = "$(cat "$want_report")" ] ||
			out+=$(diff -u "$want_report" <(echo "$report") | sed "s|$tmp/||" || true)$'\n'
		untouched=1
		for path in $(case_files "$name"); do
			src="$cases/$path" got="$tmp/$target/patch/$path" res="$cases/$name.$target.res"
			[ ! -d "$cases/$name" ] || res="$cases/$path.$target.res" what="converted as $name/*.$target.res"
			[ "$update" = 0 ] || cp "$got" "$res"
			cmp -s "$src" "$res" || untouched=0
			if [ ! -f "$res" ]; then
				out+="no $(basename "$res"): write it (--update, then read it)"$'\n'
			else
				cmp -s "$got" "$res" || out+=$(diff -u "$res" "$got" | sed "s|$tmp/||" || true)$'\n'
			fi
			# Report and patch mode agree: convertible = converted.
			lines=$(awk -v p="$path:" 'index($0, p) == 1' <<<"$report")
			converted=$(comm -13 <(hooks_of "$src") <(hooks_of "$got"))
			convertible=$(sed -n 's/^[^ ]*: \(\w*\): convertible$/\1/p' <<<"$lines" | sort -u)
			[ "$converted" = "$convertible" ] ||
				out+="$path: patch mode converted [${converted//$'\n'/ }], the report calls convertible [${convertible//$'\n'/ }]"$'\n'
			if cmp -s "$src" "$got"; then
				grep -qE ': not converted: .+' <<<"$lines" ||
					out+="$path: left untouched, but the report has no 'not converted: REASON' line"$'\n'
			elif [ -z "$converted" ]; then
				out+="$path: patch mode changed the file, but converted no hook"$'\n'
			fi
			blank=$(comm -13 <(grep -nE '^[[:space:]]+$' "$src" | cut -d: -f2- | sort) \
				<(grep -nE '^[[:space:]]+$' "$got" | cut -d: -f2- | sort))
			[ -z "$blank" ] || out+="$path: the conversion added a line of blanks only: $(grep -nE '^[[:space:]]+$' "$got" | head -n 3 || true)"$'\n'
		done
		[ "$untouched" = 0 ] || what="left untouched"
		rc=0
		[ -z "$out" ] || rc=1
		verdicts=$(sed -E 's/^[^ ]+ ([^:]+): (convertible|not converted).*/\1: \2/' <<<"$report" | paste -sd ';' | sed 's/;/; /g')
		shown=$name.c
		[ ! -d "$cases/$name" ] || shown=$name/
		result "$rc" "$target: tests/$shown $what, report agrees ($verdicts)" \
			"$out$(cat "$tmp/$target/patch.err" "$tmp/$target/report.err")"
	done
done

# The cases made from stage 0's driver (tests/stage0-*.c; tests/stage0.c is
# a link to it) are that driver but for the body of its hook: outside
# mmap_lab_mmap() they must be the lab's file as it is now. make cocci
# converts, builds and boots them too.
lab0=$here/../../labs/00-legacy-mmap/mmap_lab0.c
for c in "$cases"/stage0-*.c; do
	out=$(python3 - "$lab0" "$c" <<'PY'
import re, sys
def outside_hook(path):
    text = open(path).read()
    return re.sub(r"(?ms)^static int mmap_lab_mmap\(.*?^}$", "HOOK", text, count=1)
lab, case = (outside_hook(p) for p in sys.argv[1:])
if case != lab:
    import difflib
    sys.stdout.writelines(difflib.unified_diff(lab.splitlines(True), case.splitlines(True), "stage 0", sys.argv[2]))
    sys.exit(1)
PY
) && rc=0 || rc=1
	result "$rc" "tests/$(basename "$c") is stage 0's driver as it is, but for the body of mmap_lab_mmap() (else: redo its change on the lab's file)" "$out"
done

# The standalone semantic patches (scripts/coccinelle/standalone/): the
# files the parts make, and run the kernel's way they give every case the
# verdicts of the script's report mode, hook by hook, but where the script's
# check after patch mode decided (verify-converted.py: code spatch did not
# parse, a branch left empty, and the other hooks of a file put back whole):
# spatch alone cannot see what spatch does not parse.
rc=0
out=$("$here/make-standalone.py" --check 2>&1) || rc=1
result "$rc" "standalone/mmap_prepare_{kit,mainline}.cocci are what make-standalone.py makes of the parts" "$out"
post_check='part of it was not parsed by spatch|could not be converted cleanly|its test may have side effects'
verdicts_of() { # [REPORT...]: "CASE HOOK convertible|not converted" per hook, sorted
	sed -nE 's#^(\./)?([^:/.]+)[^:]*:[0-9]+(:[0-9-]+)?: (\w+): (convertible|not converted).*#\2 \4 \5#p' "$@" | sort -u
}
without() { # HOOKS: the verdicts of stdin but for the (file, hook) pairs of HOOKS
	awk 'NR == FNR { skip[$1 " " $2] = 1; next } !(($1 " " $2) in skip)' <(echo "$1") -
}
ksrc="$here/../../build/linux"
for target in kit mainline; do
	post=$(grep -E "$post_check" "$tmp/$target/report.txt" | verdicts_of)
	want=$(verdicts_of "$tmp/$target/report.txt" | without "$post")
	# One spatch run for all the cases, each case's files one group.
	for name in "${names[@]}"; do case_files "$name" | sed "s|^|$cases/|"; echo; done >"$tmp/groups"
	got=$(cd "$cases" && spatch --very-quiet --no-includes --no-scanner --sp-file "$here/standalone/mmap_prepare_$target.cocci" \
		-D report --file-groups "$tmp/groups" 2>/dev/null | sed "s|^$cases/||" | verdicts_of | without "$post")
	rc=0
	out=$(diff <(echo "$want") <(echo "$got")) || rc=1
	result "$rc" "$target: spatch --sp-file standalone/mmap_prepare_$target.cocci -D report gives the cases the script's verdicts, hook by hook ($(wc -l <<<"$want") hooks; $(grep -c . <<<"$post" || true) decided by the script's check after patch mode)" "$out"
	# make coccicheck on a copy of the cases (M=), in the 6.12 tree. It
	# takes each file alone, where the script takes a case's files as one
	# group: the cases of one file only.
	if [ -x "$ksrc/scripts/coccicheck" ]; then
		copy="$tmp/coccicheck-$target"
		mkdir -p "$copy"
		for name in "${names[@]}"; do [ -d "$cases/$name" ] || cp "$cases/$name.c" "$copy/"; done
		got=$(make -s -C "$ksrc" coccicheck COCCI="$here/standalone/mmap_prepare_$target.cocci" MODE=report \
			M="$copy" 2>/dev/null | sed "s|$copy/||" | verdicts_of | without "$post")
		single=$(for name in "${names[@]}"; do [ -d "$cases/$name" ] || echo "$name"; done)
		rc=0
		out=$(diff <(awk 'NR == FNR { one[$1] = 1; next } $1 in one' <(echo "$single") - <<<"$want") \
			<(echo "$got")) || rc=1
		result "$rc" "$target: make coccicheck COCCI=standalone/mmap_prepare_$target.cocci MODE=report M=DIR gives the one-file cases the same verdicts" "$out"
		# Context mode marks (with -) the header of a convertible hook and
		# the first state change of one that is not (on the case that has
		# both).
		mkdir -p "$copy/context" && cp "$cases/state-before-mapping.c" "$copy/context/"
		out=$(make -s -C "$ksrc" coccicheck COCCI="$here/standalone/mmap_prepare_$target.cocci" MODE=context \
			M="$copy/context" 2>/dev/null | sed "s|$copy/||")
		rc=0
		for mark in '-static int demo_check_mmap(struct file *file, struct vm_area_struct *vma)' \
			'-	kref_get(&d->ref);' '-	if (!atomic_inc_unless_negative(&d->user_count))'; do
			grep -qxF -- "$mark" <<<"$out" || rc=1
		done
		result "$rc" "$target: make coccicheck COCCI=standalone/mmap_prepare_$target.cocci MODE=context marks a convertible hook's header and a hook's state change" "$out"
	else
		skip "$target: make coccicheck COCCI=standalone/mmap_prepare_$target.cocci MODE=report" "no kernel tree in build/linux yet (make kernel-source)"
	fi
done
echo "1..$n"
echo "# make cocci-tests: $passed passed, $failed failed"
[ "$failed" = 0 ]
