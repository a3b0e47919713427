#!/usr/bin/env bash
# Convert the .mmap hooks of the given C files to .mmap_prepare, in place:
# scripts/coccinelle/mmap_prepare*.cocci (spatch; the parts joined for the
# target, see mmap_prepare.cocci), then the kernel-doc of each
# converted hook and the brace of an added error hook (tidy-converted.py).
# Files whose hook uses the VMA in a way the semantic patch cannot express
# are left untouched: --report says which, and where.
# A hook defined in one of the files and named in others (its .mmap, its
# prototype in a header, its EXPORT_SYMBOL) is converted in all of them or
# in none: give them all, e.g. mmap-prepare.sh fs/ceph/*.[ch].
# Usage: mmap-prepare.sh [--mainline] [--report] FILE...
#   --mainline  write mainline's API (7.2+) instead of the kit's 6.12 API
#   --report    change nothing; print "FILE:LINE: HOOK: convertible" for each
#               hook patch mode converts (found by converting a copy of every
#               file), or where and why a hook is not
# A converted hook in which spatch left the VMA (code it could not parse) is
# put back as it was, with a message; the exit status is then 1.
set -euo pipefail

here=$(dirname "$(realpath "$0")")
defines=() mode=patch target=kit
while [ $# -gt 0 ]; do
	case "$1" in
	--mainline) defines+=(-D mainline) target=mainline ;;
	--report) mode=report ;;
	-*) echo "usage: $0 [--mainline] [--report] FILE..." >&2; exit 2 ;;
	*) break ;;
	esac
	shift
done
[ $# -gt 0 ] || { echo "usage: $0 [--mainline] [--report] FILE..." >&2; exit 2; }
command -v spatch >/dev/null || { echo "error: spatch not found: install Debian's coccinelle" >&2; exit 1; }
# --no-scanner: inside a git work tree (the kit's), spatch would look for
# the files of --file-groups with git grep, as if they were folders, and
# find none.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The semantic patch, joined from its parts (mmap_prepare.cocci says which
# does what): the target's own rewrites between the verdict and the shared
# rewrites.
cat "$here/mmap_prepare.cocci" "$here/mmap_prepare_uses.cocci" "$here/mmap_prepare_verdict.cocci" \
	"$here/mmap_prepare_$target.cocci" "$here/mmap_prepare_rewrite.cocci" >"$tmp/mmap_prepare.cocci"
cocci=(spatch --very-quiet --no-includes --no-scanner --sp-file "$tmp/mmap_prepare.cocci" "${defines[@]}")

# spatch with the semantic patch; a spatch that cannot load Python (its
# rules need the release's libpython3.N.so, from libpython3.N-dev: see
# scripts/setup/releases/) stops everything with
# that said, instead of converting nothing.
run_spatch() {
	local rc=0
	"${cocci[@]}" "$@" 2>"$tmp/spatch.err" || rc=$?
	if grep -q 'unable to find the Python library' "$tmp/spatch.err"; then
		echo "error: spatch cannot load Python (libpython3.N.so): run make packages (it installs the libpython3.N-dev of scripts/setup/releases/)" >&2
		exit 1
	fi
	# An error in the semantic patch itself: nothing was converted.
	if grep -qF "File \"$tmp/mmap_prepare.cocci\"" "$tmp/spatch.err"; then
		cat "$tmp/spatch.err" >&2
		echo "error: the semantic patch does not parse (scripts/coccinelle/mmap_prepare*.cocci, joined)" >&2
		exit 2
	fi
	cat "$tmp/spatch.err" >&2
	return "$rc"
}

# spatch takes the files on its command line as one group, in which a hook
# of one file can be matched against the rules' findings in another (two
# files with a hook of the same name: one not convertible hides the other's
# verdict). Every file is its own group here, all in one spatch run, but for
# the files that share a hook defined in one of them and named in others
# (hook-groups.py): those are one group, converted together or not at all.
"$here/hook-groups.py" "$@" >"$tmp/hooks.tsv"
file_groups() { # FILE...: the files of the run, in the order of hooks.tsv
	local files=("$@") kind gid members i grouped=()
	{
		while IFS=$'\t' read -r kind gid members; do
			[ "$kind" = group ] || continue
			for i in $members; do
				echo "${files[$i]}"
				grouped[i]=1
			done
			echo
		done <"$tmp/hooks.tsv"
		for i in "${!files[@]}"; do
			[ -n "${grouped[i]:-}" ] || printf '%s\n\n' "${files[$i]}"
		done
	} >"$tmp/groups"
	echo "$tmp/groups"
}

# The files' originals, kept to compare with and to put back: pairs holds
# ORIGINAL COPY ... (the copy in $tmp/original, then the file).
pairs=()
keep_originals() { # FILE...
	local i=0 f
	mkdir -p "$tmp/original"
	for f; do
		cp "$f" "$tmp/original/$i.c"
		pairs+=("$tmp/original/$i.c" "$f")
		i=$((i + 1))
	done
}

# After spatch converted the files in place: the tidy pass; then a converted
# hook in which spatch left the VMA or the file argument (code it could not
# parse), or an emptied branch (verify-converted.py), is put back as it was,
# with a message. Status 1 if any file was put back.
finish_conversion() { # FILE... (as given to keep_originals)
	local i=0 f rc=0
	# Each Python script once for all the files.
	"$here/tidy-converted.py" "$@" >/dev/null
	"$here/verify-converted.py" "${pairs[@]}" >"$tmp/verify.txt" || true
	cat "$tmp/verify.txt" >&2
	cut -d ' ' -f 1 "$tmp/verify.txt" >"$tmp/refused.txt"
	local refused=() kind gid members j
	i=0
	for f; do
		if grep -qxF -- "$f:" "$tmp/refused.txt"; then
			refused[i]=1
		fi
		i=$((i + 1))
	done
	# A group's hooks were converted together: a refused file puts its whole
	# group back.
	while IFS=$'\t' read -r kind gid members; do
		[ "$kind" = group ] || continue
		for i in $members; do
			[ -n "${refused[i]:-}" ] || continue
			for j in $members; do
				refused[j]=${refused[j]:-": its hooks go with ${pairs[2 * i + 1]}'s, which was put back"}
			done
		done
	done <"$tmp/hooks.tsv"
	i=0
	for f; do
		if [ -n "${refused[i]:-}" ]; then
			cp "$tmp/original/$i.c" "$f"
			echo "$f: left untouched${refused[i]#1}" >&2
			rc=1
		fi
		i=$((i + 1))
	done
	return "$rc"
}

# Convert the files in place (see finish_conversion for what is put back).
convert() { # FILE...
	keep_originals "$@"
	run_spatch -D patch --in-place --file-groups "$(file_groups "$@")" >/dev/null || true
	finish_conversion "$@"
}

if [ "$mode" = patch ]; then
	convert "$@"
	exit
fi
# Report mode is patch mode on a copy of every file, all in one
# conversion: a hook is "convertible" exactly when patch mode converted it
# there (its FOO_prepare(struct vm_area_desc *desc) appeared), so the report
# lists what patch mode changes, the same files and the same hooks. spatch's
# report run only gives the line of each .mmap and, for a hook patch mode
# leaves, the reason; a hook it called convertible that the conversion left
# (code spatch could not parse, or refused by verify-converted.py) gets the
# reason of that instead. A file patch mode changes without converting a hook
# is said so (it would be a bug of the semantic patch).
# One spatch run does both, on the copies: the report rules and the
# conversion (-D report -D patch; the report's rules print, the rewrite's
# rules change the copies, and neither reads what the other does). Its
# report names the copies: they are written back as the files given.
declare -A index=()
trials=() i=0
: >"$tmp/trial-names.tsv"
for f; do
	index[$f]=$i
	mkdir -p "$tmp/trial/$i"
	cp "$f" "$tmp/trial/$i/"
	trials+=("$tmp/trial/$i/$(basename "$f")")
	printf '%s\t%s\n' "${trials[$i]}" "$f" >>"$tmp/trial-names.tsv"
	i=$((i + 1))
done
keep_originals "${trials[@]}"
run_spatch -D report -D patch --no-show-diff --in-place --file-groups "$(file_groups "${trials[@]}")" \
	>"$tmp/trial-report.txt" || true
awk -F '\t' 'NR == FNR { given[$1] = $2; next }
	{ p = $0; sub(/:.*/, "", p); if (p in given) $0 = given[p] substr($0, length(p) + 1); print }' \
	"$tmp/trial-names.tsv" "$tmp/trial-report.txt" >"$tmp/report.txt"
finish_conversion "${trials[@]}" 2>"$tmp/trial.err" || true
# shellcheck source=scripts/coccinelle/hooks-of.sh
. "$here/hooks-of.sh"
declare -A converted=() reported=() missing=() group_of=() first=() why=() fops_hook=()
for f; do
	trial=${trials[${index[$f]}]}
	for h in $(comm -13 <(hooks_of "$f") <(hooks_of "$trial")); do
		converted[$f:$h]=1
	done
done
# hook-groups.py's findings: the files that share a hook (its group, and
# the line of the file that first names it), and the file to add for a
# hook defined in none of them.
files=("$@") links=()
while IFS=$'\t' read -r kind a b c d; do
	case "$kind" in
	link)
		group_of[${files[$c]}:$b]=$a first[${files[$c]}:$b]=$d
		links+=("${files[$c]}:$b")
		;;
	missing)
		missing[${files[$a]}:$b]=$d first[${files[$a]}:$b]=$c
		links+=("${files[$a]}:$b")
		;;
	esac
done <"$tmp/hooks.tsv"
while IFS= read -r line; do
	if [[ "$line" =~ ^([^:]+):([0-9]+)(:[0-9-]+)?:\ ([A-Za-z_0-9]+):\ (.*)$ ]]; then
		f=${BASH_REMATCH[1]} at=${BASH_REMATCH[2]} h=${BASH_REMATCH[4]} verdict=${BASH_REMATCH[5]}
		if [ -n "${converted[$f:$h]:-}" ]; then
			[ -z "${reported[$f:$h]:-}" ] || continue
			line="$f:$at: $h: convertible"
		elif [ "$verdict" = convertible ]; then
			trial=${trials[${index[$f]}]}
			# verify-converted.py's reason, when it gave one; a hook that
			# converted cleanly goes back with the rest of its file
			reason=$(grep -F "$trial: $h: not converted: " "$tmp/trial.err" | sed -n 's/^.*: not converted: //p' | head -n 1 || true)
			other=$(grep -F "$trial: " "$tmp/trial.err" | grep -F ': not converted: ' | head -n 1 || true)
			other=${other#"$trial: "}
			[ -n "$reason" ] || [ -z "$other" ] ||
				reason="${other%%:*}() of this file could not be converted cleanly, and patch mode then leaves the whole file as it was"
			line="$f:$at: $h: not converted: ${reason:-part of it was not parsed by spatch (an #ifdef branch or a macro?)}"
		elif [ "$verdict" = "not converted: its definition was not found or not parsed in this file" ]; then
			# a file_operations hook (spatch looks at no other .mmap)
			fops_hook[$h]=1
			[ -z "${missing[$f:$h]:-}" ] || line="$f:$at: $h: not converted: ${missing[$f:$h]}"
		fi
		reported[$f:$h]=1
		# The reason of a hook shared by files, for its other files.
		gid=${group_of[$f:$h]:-}
		[ -z "$gid" ] || [ -n "${why[$gid:$h]:-}" ] || why[$gid:$h]="${line#*: "$h": } ($f:$at)"
	fi
	echo "$line"
done <"$tmp/report.txt"
# The other files of a shared hook: what patch mode does to them, at the
# line that first names the hook.
for key in ${links[@]+"${links[@]}"}; do
	[ -z "${reported[$key]:-}" ] || continue
	reported[$key]=1
	f=${key%:*} h=${key##*:}
	if [ -n "${converted[$key]:-}" ]; then
		echo "$f:${first[$key]}: $h: convertible"
	elif [ -n "${missing[$key]:-}" ]; then
		# Not the .mmap of another structure (dma_map_ops, ...).
		[ -z "${fops_hook[$h]:-}" ] || echo "$f:${first[$key]}: $h: not converted: ${missing[$key]}"
	else
		reason=${why[${group_of[$key]}:$h]:-not converted: its definition was not found or not parsed}
		# (converted elsewhere, and only named in a comment here: no line)
		[ "${reason%% *}" = convertible ] || echo "$f:${first[$key]}: $h: $reason"
	fi
done
for f; do
	trial=${trials[${index[$f]}]}
	changed=0
	for key in "${!converted[@]}"; do
		[ "${key%:*}" != "$f" ] || { changed=1 && [ -n "${reported[$key]:-}" ] || echo "$f:0: ${key##*:}: convertible"; }
	done
	[ "$changed" = 1 ] || cmp -s "$f" "$trial" || echo "$f:0: ?: patch mode changes this file without converting a hook (a bug of the semantic patch)"
done
