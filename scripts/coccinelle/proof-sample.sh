#!/usr/bin/env bash
# make cocci-proof's whole-tree proof in small, for make cocci (and so make
# check): the real files of scripts/coccinelle/proof-sample.txt for one
# target, converted by patch mode in one run, on copies. Each must be
# converted or left untouched as the list says, and every file the run
# changed must compile before and after (make FILE.o; a warning fails it)
# against the target's built kernel. "Before" is the kernel's own object
# when its build made one, else compiled once per original and kernel
# build (build/cocci/sample-TARGET/before/ keeps the key). The compiles
# write into a scratch copy of the kernel's object directory
# (build/cocci/sample-TARGET/obj), bind-mounted over the real one, with
# each converted file bind-mounted over the tree's, in a private mount
# namespace (unshare): the paths are the kernel's own, so nothing else is
# rebuilt, and the kit's trees and kernels are never written.
# Source it (after scripts/lib/tap.sh), then:
#   proof_sample TARGET TREE KERNEL_OBJ [WHY_NOT_BUILT]
# TARGET kit or mainline; TREE the kernel source; KERNEL_OBJ its built
# object directory (build/kernel, build/kernel-mainline); WHY_NOT_BUILT,
# when not empty, skips the compiles with that reason. Uses $kit_root,
# $conv and $out (build/cocci) of the caller.
# shellcheck disable=SC2154 # $out and $conv: the caller's

# Run make FILE.o... in the kernel's source and object directories, seen
# through the scratch copy and the converted files (SRC=COPY pairs).
sample_make() { # TREE KERNEL_OBJ SCRATCH LOG OBJECT... -- [SRC=COPY]...
	local tree=$1 kobj=$2 scratch=$3 log=$4 objs=() binds=()
	shift 4
	while [ $# -gt 0 ] && [ "$1" != -- ]; do objs+=("$1") && shift; done
	[ $# -eq 0 ] || shift
	binds=("$@")
	local ns=(unshare -m)
	[ "$(id -u)" = 0 ] || ns=(unshare -r -m)
	# The namespace's mounts go with it; its make sees the copy at the
	# kernel's path, and refuses to start when the copy is not there.
	# shellcheck disable=SC2016 # expanded by that bash
	"${ns[@]}" bash -euc '
		tree=$1 kobj=$2 scratch=$3 n=$4
		shift 4
		mount --bind "$scratch" "$kobj"
		test -f "$kobj/.kit-scratch"
		for ((i = 0; i < n; i++)); do
			mount --bind "${1#*=}" "$tree/${1%%=*}"
			shift
		done
		make -k -j2 -C "$tree" O="$kobj" "$@"' \
		sample-make "$tree" "$kobj" "$scratch" "${#binds[@]}" "${binds[@]}" "${objs[@]}" >"$log" 2>&1
}

# The compiler's first messages about FILE (else the log's first errors).
sample_errors() { # FILE LOG
	grep -m3 -E "${1//./\\.}:[0-9:]* (error|warning):" "$2" || grep -m3 -E 'error|warning:' "$2" || tail -n 3 "$2"
}

proof_sample() { # TARGET TREE KERNEL_OBJ [WHY_NOT_BUILT]
	local target=$1 tree=$2 kobj=$3 why_not=${4:-} list
	list="$(dirname "${BASH_SOURCE[0]}")/proof-sample.txt"
	local dir="$out/sample-$target" flags=() entries=() files=() f expect built why line
	[ "$target" != mainline ] || flags=(--mainline)
	mapfile -t entries < <(awk -v t="$target" '$1 == t { print $2, $3, $4 }' "$list")
	for line in "${entries[@]}"; do files+=("${line%% *}"); done
	rm -rf "$dir/converted" && mkdir -p "$dir/converted"
	if ! (cd "$tree" && tar cf - "${files[@]}") | tar xf - -C "$dir/converted"; then
		result 1 "proof sample, $target: its ${#files[@]} files are in ${tree#"$kit_root"/} (scripts/coccinelle/proof-sample.txt)"
		return
	fi
	(cd "$dir/converted" && "$conv" "${flags[@]}" "${files[@]}" >/dev/null 2>"$dir/patch.err")
	local compile=()
	for line in "${entries[@]}"; do
		read -r f expect built <<<"$line"
		why=$(sed -nE "s#^$target\s+$f\s+\S+\s+\S+\s+##p" "$list")
		local got=untouched diff="$dir/${f//\//_}.diff"
		cmp -s "$tree/$f" "$dir/converted/$f" || got=converted
		diff -u --label "a/$f" --label "b/$f" "$tree/$f" "$dir/converted/$f" >"$diff"
		local rc=0
		[ "$got" = "$expect" ] || rc=1
		result "$rc" "proof sample, $target: patch mode leaves $f $expect ($why)" \
			"$(grep -F "$f" "$dir/patch.err"; head -n 12 "$diff")"
		[ "$got" = converted ] || continue
		if [ "$built" = built ]; then
			compile+=("$f")
		else
			result 1 "proof sample, $target: $f, which patch mode changed, compiles against $(basename "$kobj")" \
				"not marked built in scripts/coccinelle/proof-sample.txt: it cannot be compiled there"
		fi
	done
	[ ${#compile[@]} -gt 0 ] || return 0
	local what
	what="compiles before and after the conversion (make FILE.o against $(basename "$kobj"), no warning)"
	local ns=(unshare -m)
	[ "$(id -u)" = 0 ] || ns=(unshare -r -m)
	[ -n "$why_not" ] || "${ns[@]}" true 2>/dev/null ||
		why_not="no private mount namespace here (${ns[*]} true fails), in which the copy would be mounted"
	if [ -n "$why_not" ]; then
		for f in "${compile[@]}"; do skip "proof sample, $target: $f $what" "$why_not"; done
		return
	fi
	# The scratch copy of the object directory, without the kernel's images.
	local scratch="$dir/obj"
	mkdir -p "$scratch"
	rsync -a --delete --exclude='/vmlinux*' --exclude='/.tmp_vmlinux*' --exclude='/arch/x86/boot' \
		--exclude='*.ko' --exclude=/.kit-scratch "$kobj/" "$scratch/"
	touch "$scratch/.kit-scratch"
	# Before: the kernel's own object; else compiled from the original,
	# once for this original and this kernel build (the key in before/).
	local before=() after=() binds=() o key
	mkdir -p "$dir/before"
	for f in "${compile[@]}"; do
		o="${f%.c}.o"
		rm -f "$scratch/$o"
		key=$({ cat "$tree/$f" "$kobj/.config"; stat -c %Y "$kobj/vmlinux"; } 2>/dev/null | sha256sum | cut -c1-32)
		if ! { [ -f "$kobj/$o" ] && [ "$kobj/$o" -nt "$tree/$f" ]; } &&
			[ "$(cat "$dir/before/${f//\//_}" 2>/dev/null)" != "$key" ]; then
			rm -f "$dir/before/${f//\//_}"
			before+=("$o")
		fi
		after+=("$o")
		binds+=("$f=$dir/converted/$f")
	done
	if [ ${#before[@]} -gt 0 ]; then
		sample_make "$tree" "$kobj" "$scratch" "$dir/before.log" "${before[@]}"
		for o in "${before[@]}"; do [ ! -f "$scratch/$o" ] || mv "$scratch/$o" "$scratch/$o.before"; done
	fi
	sample_make "$tree" "$kobj" "$scratch" "$dir/after.log" "${after[@]}" -- "${binds[@]}"
	local detail
	for f in "${compile[@]}"; do
		o="${f%.c}.o" detail=""
		if [[ " ${before[*]} " == *" $o "* ]]; then
			if [ -f "$scratch/$o.before" ] && ! grep -q "^[^ ]*${f//./\\.}:[0-9:]* warning:" "$dir/before.log"; then
				key=$({ cat "$tree/$f" "$kobj/.config"; stat -c %Y "$kobj/vmlinux"; } 2>/dev/null | sha256sum | cut -c1-32)
				echo "$key" >"$dir/before/${f//\//_}"
			else
				detail+="the original did not compile: $(sample_errors "$f" "$dir/before.log")"$'\n'
			fi
		fi
		[ -f "$scratch/$o" ] && ! grep -q "^[^ ]*${f//./\\.}:[0-9:]* warning:" "$dir/after.log" ||
			detail+="the converted file did not compile: $(sample_errors "$f" "$dir/after.log")"
		[ -z "$detail" ]
		result $? "proof sample, $target: $f $what" "$detail"
	done
}
