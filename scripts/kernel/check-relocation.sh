#!/usr/bin/env bash
# make check-relocation: a built kit still works after it is copied (cp -a)
# and then moved (mv), with no kernel rebuilt and no trace of its old paths.
#
# The kit is copied to build/relocation/copied, that copy is moved to
# build/relocation/moved, and in each place, as a user would there:
#   - make's first run rewrites the old path in build/ (relocate-build.py);
#   - both kernels' builds, run as `make kernel` runs them, rebuild nothing
#     (no object or vmlinux newer than before);
#   - no text file or symlink under build/ names an old place of the kit;
# and in the moved copy (whose first place is gone, as after any mv):
#   - `make modules STAGE=1` builds the 6.12 stage against the moved tree;
#   - `make check STAGE=6` (mainline) builds its module and passes in a guest.
# The unpacked source trees are hard-linked into the copy (the build never
# writes to them, and relocation skips them): a full cp -a costs 3.5 GB.
# What the checks remake on every run (logs, initramfs archives, make
# cocci's work, the HTML) is not copied.
# --full runs the whole `make check` in the moved copy instead of stage 6.
# Writes build/logs/relocation.result; removes the copies when done.
# Usage: check-relocation.sh [--full]
set -uo pipefail

full=0
[ "${1:-}" != --full ] || full=1
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
# shellcheck source=scripts/lib/tap.sh
. "$top/scripts/lib/tap.sh"
logs="$top/build/logs"
area="$top/build/relocation"
copied="$area/copied" moved="$area/moved"
log="$logs/relocation.log"
mkdir -p "$logs"
: >"$log"
start=$(date +%s)
finish() {
	rm -rf "$area"
	echo "relocation $passed $failed $skipped $(($(date +%s) - start))" >"$logs/relocation.result"
	echo "1..$n"
	[ "$failed" = 0 ]
	exit
}
# Run a command in a copy of the kit as its user would: from a shell, not
# from inside this make.
in_kit() { # DIR COMMAND...
	local dir=$1
	shift
	(cd "$dir" && env -u MAKELEVEL -u MAKEFLAGS -u MFLAGS "$@") >>"$log" 2>&1
}
# Every text file or symlink under DIR/build naming OLD (sources aside).
# The copies live in the kit's build/relocation/, so a path there is new,
# not the kit's old one.
old_paths() { # DIR OLD
	local re="\\Q$2\\E/(?!build/relocation/)"
	{
		grep -rlIP "$re" "$1/build" --exclude-dir=linux --exclude-dir=linux-pristine \
			--exclude-dir=mainline-src --exclude-dir=logs 2>/dev/null
		find "$1/build" -type l -printf '%l\t%p\n' | grep -P "^$re" | cut -f2
		# The guests' programs: a path compiled in would show in their output.
		grep -rlaP "$re" "$1/build/checker" 2>/dev/null
	} | sed "s|^$1/||" | head -n 10
}
# Rebuild one kernel the way make kernel does; print what it remade, apart
# from what kbuild writes on every run (the object directory's Makefile, the
# syscall check's dependency file) and the kit's own logs and timings.
kernel_remade() { # DIR SRC OBJ FRAGMENT...
	local dir=$1 src=$2 obj=$3
	shift 3
	# Dated two seconds back rather than waited for: a file system that
	# keeps whole seconds still shows anything written from now on as newer,
	# and nothing else writes into the copy's kernel tree meanwhile.
	touch -d "@$(($(date +%s) - 2))" "$area/marker"
	in_kit "$dir" scripts/kernel/kernel.sh "$src" "$obj" "$@" || echo "(the build failed: see ${log#"$top"/})"
	find "$dir/$obj" -type f -newer "$area/marker" ! -name '*.cmd' ! -name '*.log' ! -name build-seconds \
		! -path "$dir/$obj/Makefile" ! -name .missing-syscalls.d | sed "s|^$dir/||" | head -n 10
}
# In DIR, moved from FROM: make's first run, both kernels, and the old
# places of the kit (FROM and the others) named in its build/.
check_place() { # DIR WHERE FROM [OLD...]
	local dir=$1 where=$2 out
	shift 2
	in_kit "$dir" make -s help
	grep -qF "the kit moved from $1 to $dir:" "$log"
	result $? "$where: make's first run rewrites the old path in build/" "$(tail -n 5 "$log")"
	out=$(kernel_remade "$dir" build/linux build/kernel qemu/kernel.config)
	result "$([ -z "$out" ] && echo 0 || echo 1)" "$where: the 6.12 kernel's build rebuilds nothing" "$out"
	if [ -f "$top/build/kernel-mainline/.stamp-kernel-built" ]; then
		out=$(kernel_remade "$dir" build/mainline-src build/kernel-mainline qemu/kernel.config qemu/kernel-mainline.config)
		result "$([ -z "$out" ] && echo 0 || echo 1)" "$where: the mainline kernel's build rebuilds nothing" "$out"
	else
		skip "$where: the mainline kernel's build rebuilds nothing" "no mainline kernel built here"
	fi
	for old in "$@"; do
		out=$(old_paths "$dir" "$old")
		result "$([ -z "$out" ] && echo 0 || echo 1)" "$where: no file or symlink in build/ names ${old#"$top"/}" "$out"
	done
}

echo "TAP version 13"
echo "# copy of the built kit in ${area#"$top"/}; log: ${log#"$top"/}"
if [ ! -f build/kernel/.stamp-kernel-built ]; then
	skip "a built kit works after cp -a and mv" "no built 6.12 kernel: run make first"
	finish
fi
rm -rf "$area" && mkdir -p "$copied/build"
# make's parse step writes build/.kit-root; a kit built before it existed
# was built here.
[ -f build/.kit-root ] || echo "$top" >build/.kit-root
rc=0
rsync -a --exclude=/build --exclude=/work ./ "$copied/" >>"$log" 2>&1 || rc=1
for d in build/*; do
	case "${d#build/}" in
	# What a check remakes on every run (logs, the guests' initramfs
	# archives, make cocci's and the learner's loops' work, the HTML): not
	# the built kit. They were about half of what this copied.
	relocation | logs | learner-loop* | html | doctrees | initramfs | cocci) ;;
	linux | linux-pristine | mainline-src | mainline-apt) cp -al "$d" "$copied/build/" || rc=1 ;;
	# What cp -a does; make check runs this beside its mainline lane, whose
	# checks write their own folders meanwhile (build/driver, build/mutants,
	# a guest's initramfs): a file they remove during the copy is not an
	# error (rsync's status 24), and none of them is what this test uses.
	*) rsync -a "$d" "$copied/build/" || [ $? = 24 ] || rc=1 ;;
	esac
done >>"$log" 2>&1
cp -a build/.kit-root build/.stamp-* "$copied/build/" 2>>"$log" || rc=1
result "$rc" "the built kit is copied (cp -a, sources hard-linked) to ${copied#"$top"/}" "$(tail -n 5 "$log")"
[ "$rc" = 0 ] || finish

check_place "$copied" "cp -a" "$top"
mv "$copied" "$moved"
check_place "$moved" "then mv" "$copied" "$top"

in_kit "$moved" make -s modules STAGE=1
rc=$?
out=$(grep -lF "$moved/build/linux/" "$moved"/build/modules/1/.*.o.cmd 2>/dev/null | head -n 1)
[ -n "$out" ] || rc=1
result "$rc" "then mv: make modules STAGE=1 builds against the moved 6.12 tree" "$(tail -n 10 "$log")"
if [ "$full" = 1 ]; then
	in_kit "$moved" make check
	result $? "then mv: make check passes in the moved kit" "$(tail -n 15 "$log")"
elif [ -f "$top/build/kernel-mainline/.stamp-kernel-built" ]; then
	in_kit "$moved" make check STAGE=6
	rc=$?
	grep -qF "$moved/build/mainline-src/" "$moved"/build/modules/6/.*.o.cmd 2>/dev/null || rc=1
	result "$rc" "then mv: make check STAGE=6 builds against the moved mainline tree and passes" "$(tail -n 15 "$log")"
else
	skip "then mv: make check STAGE=6 passes" "no mainline kernel built here"
fi
finish
