#!/usr/bin/env bash
# Proves make check DRIVER=DIR (scripts/driver/check-driver.sh) as a driver
# author meets it, on copies of the template made by example-driver/
# rename.sh in build/driver-cases/:
#   - the renamed template passes, on the kit's 6.12 kernel and (renamed with
#     --mainline) on mainline, the kernel chosen from the source;
#   - three changes an author makes to the template, done wrong, each fail
#     and the verdict names the check that caught it: a smaller buffer with
#     the range check still hard-coded to the old size
#     (bad.length_past_end), the remap without the mmap() offset
#     (data.page_offset_mapping_sees_its_part), the MAP_PRIVATE refusal
#     returning 0 (vma.map_private_refused);
#   - the MAP_PRIVATE change, said in kit-check.conf (DRIVER_REFUSES without
#     "private"), passes with the refusal's checks skipped;
#   - stage 0's legacy driver converted by the conversion aid passes the
#     before/after comparison with its original (BEFORE=), and the
#     conversion with the mmap() offset dropped fails it, the difference
#     listed;
#   - a driver whose device the guest lacks (DRIVER_NEEDS) gets the checks
#     that need no device, and says what it skipped;
#   - a folder without kit-check.conf is refused, pointing at rename.sh.
# The cases' make check runs side by side (scripts/lib/ordered-jobs.sh:
# KIT_JOBS at once); their verdicts are printed in the order above. Prints
# TAP, writes build/logs/driver.result.
# Usage: check-driver-cases.sh
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
# shellcheck source=scripts/lib/tap.sh
. "$top/scripts/lib/tap.sh"
# shellcheck source=qemu/stages.sh
. "$top/qemu/stages.sh"
# shellcheck source=scripts/lib/ordered-jobs.sh
. "$top/scripts/lib/ordered-jobs.sh"
area="$top/build/driver-cases"
logs="$top/build/logs"
start=$(date +%s)
rm -rf "$area" && mkdir -p "$area" "$logs"

# make check DRIVER=DIR [VAR=VALUE...]: its output goes to DIR.out, its
# exit status to DIR.rc. Each case runs it in a job of its own
# (scripts/lib/ordered-jobs.sh); cases that share a module name
# (build/driver/NAME, the guest's logs) must not run at once: one job runs
# them in turn. The verdicts are read once every job is done.
check_driver() { # DIR [VAR=VALUE...]
	local d=$1 rc=0
	shift
	env -u MAKELEVEL -u MAKEFLAGS -u MFLAGS make --no-print-directory check DRIVER="$d" "$@" >"$d.out" 2>&1 || rc=$?
	echo "$rc" >"$d.rc"
}
kit_job_done() { :; }
# The exit status of DIR's make check (DIR.rc; 99 when it never ran).
rc_of() { cat "$1.rc" 2>/dev/null || echo 99; }

# A renamed copy of the template, with a change (sed -E script, or "").
copy() { # NAME CHANGE [--mainline]
	example-driver/rename.sh ${3:+"$3"} "$1" "$area/$1" >/dev/null || return 1
	[ -z "$2" ] || sed -E -i "$2" "$area/$1/$1.c"
}

# 1. Every case's copy is made and its make check started, side by side.

# The example driver page's commands as it gives them (its "Rename" block's
# rename, then its "Check it" block), work/ being this scratch folder.
page=Documentation/labs/example-driver.rst
mapfile -t cmds < <(sed -n '/^Rename$/,/^Change the buffer$/s/^ *\$ \(example-driver\/rename.sh .*\)/\1/p' "$page"
	sed -n '/^Check it$/,/^It builds/s/^ *\$ //p' "$page")
page_commands() {
	local c rc=1
	if [ "${#cmds[@]}" = 2 ]; then
		for c in "${cmds[@]}"; do
			echo "\$ $c"
			env -u MAKELEVEL -u MAKEFLAGS -u MFLAGS bash -c "${c//work\//build/driver-cases/}" || break
		done >"$area/mydrv.out" 2>&1 && rc=0
	fi
	echo "$rc" >"$area/mydrv.rc"
}
kit_job mydrv "$area/mydrv.job" page_commands

ml_why=$(kit_mainline_unavailable)
if [ -z "$ml_why" ]; then
	copy mydrv_ml "" --mainline
	kit_job mydrv_ml "$area/mydrv_ml.job" check_driver "$area/mydrv_ml"
fi

# NAME  CHANGE  CHECK THAT MUST FAIL  WHAT
wrong=(
	"smallbuf	s/(BUF_ORDER\t)4/\\13/; s/edev->size >> PAGE_SHIFT/16/; s/edev->size - \\(desc->pgoff/16 * PAGE_SIZE - (desc->pgoff/	bad.length_past_end	a smaller buffer (order 3), the range check still on the old 64 KiB"
	"nooffset	s/page_to_pfn\\(edev->pages\\) \\+ desc->pgoff/page_to_pfn(edev->pages)/	data.page_offset_mapping_sees_its_part	the remap without the mmap() offset"
	"privateok	0,/\t\treturn -EINVAL;/s//\t\treturn 0;/	vma.map_private_refused	the MAP_PRIVATE refusal returning 0"
)
declare -A planted=()
for w in "${wrong[@]}"; do
	IFS=$'\t' read -r name change _ _ <<<"$w"
	copy "$name" "$change"
	[ "$name" != smallbuf ] || sed -i 's/^DRIVER_MAP_SIZE=.*/DRIVER_MAP_SIZE=32768/' "$area/$name/kit-check.conf"
	planted[$name]=1
	if cmp -s "$area/$name/$name.c" <(sed -e "s/mmap_example/$name/g" -e "s/MMAP_EXAMPLE_/${name^^}_/g" example-driver/mmap_example.c); then
		planted[$name]=0
		continue
	fi
	kit_job "$name" "$area/$name.job" check_driver "$area/$name"
done

# The same MAP_PRIVATE change, said in kit-check.conf: its checks skip.
copy privatesaid "0,/\t\treturn -EINVAL;/s//\t\treturn 0;/"
sed -i 's/^DRIVER_REFUSES=.*/DRIVER_REFUSES="exec grow past-end"/' "$area/privatesaid/kit-check.conf"
kit_job privatesaid "$area/privatesaid.job" check_driver "$area/privatesaid"

# Before and after: stage 0's legacy driver, converted by the conversion
# aid (kit target), compared with the original; then the conversion broken
# (the same module: one job runs the two in turn). Its kit-check.conf is
# the renamed template's (the page's copy, mydrv) with stage 0's names.
legacy=labs/00-legacy-mmap/mmap_lab0.c
mkdir -p "$area/lab0"
cp "$legacy" "$area/lab0/"
echo "obj-m := mmap_lab0.o" >"$area/lab0/Kbuild"
tpl_conf=$(mktemp -d)
example-driver/rename.sh mydrv "$tpl_conf/mydrv" >/dev/null
sed -e 's/^DRIVER_MODULE=.*/DRIVER_MODULE=mmap_lab0/' -e 's|^DRIVER_DEVICE=.*|DRIVER_DEVICE=/dev/mmap_lab0|' \
	-e 's/^DRIVER_ACTION_ERRNO=.*/DRIVER_ACTION_ERRNO=ENOMEM/' -e 's/^DRIVER_COUNTER=.*/DRIVER_COUNTER=/' \
	"$tpl_conf/mydrv/kit-check.conf" >"$area/lab0/kit-check.conf"
rm -rf "$tpl_conf"
converted=0
if scripts/coccinelle/mmap-prepare.sh "$area/lab0/mmap_lab0.c" >"$area/lab0.convert.out" 2>&1; then
	converted=1
	cp -r "$area/lab0" "$area/lab0broken"
	sed -i 's/page_to_pfn(ldev->pages) + desc->pgoff/page_to_pfn(ldev->pages)/' "$area/lab0broken/mmap_lab0.c"
	lab0_cases() {
		check_driver "$area/lab0" BEFORE="$legacy"
		check_driver "$area/lab0broken" BEFORE="$legacy"
	}
	kit_job lab0 "$area/lab0.job" lab0_cases
fi

# No device in the guest: the device-less checks only.
copy nodev ""
sed -i 's/^DRIVER_NEEDS=.*/DRIVER_NEEDS="a PCI device 1af4:10ff"/' "$area/nodev/kit-check.conf"
kit_job nodev "$area/nodev.job" check_driver "$area/nodev"

# No kit-check.conf: refused, pointing at rename.sh.
copy noconf ""
rm "$area/noconf/kit-check.conf"
kit_job noconf "$area/noconf.job" check_driver "$area/noconf"
kit_jobs_finish

# 2. The verdicts, in order.
echo "TAP version 13"
ok=1
[ "$(rc_of "$area/mydrv")" = 0 ] && grep -qE '^[0-9]+ passed, 0 failed' "$area/mydrv.out" &&
	grep -q 'for the 6.12 kernel (from the source)' "$area/mydrv.out" && ok=0
result "$ok" "the example driver page's rename and make check DRIVER= (${#cmds[@]} commands): the template renamed passes on the kit's 6.12 kernel ($(tail -n 1 "$area/mydrv.out"))" \
	"$(grep -E '^\$|^not ok|^error|^#   ' "$area/mydrv.out")"

if [ -n "$ml_why" ]; then
	skip "the mainline template renamed passes on mainline" "$ml_why"
else
	ok=1
	[ "$(rc_of "$area/mydrv_ml")" = 0 ] && grep -qE '^[0-9]+ passed, 0 failed' "$area/mydrv_ml.out" &&
		grep -q 'for the mainline kernel (from the source)' "$area/mydrv_ml.out" && ok=0
	result "$ok" "the template renamed with --mainline passes on mainline, chosen from the source ($(tail -n 1 "$area/mydrv_ml.out"))" \
		"$(grep -E '^not ok|^error|^#   ' "$area/mydrv_ml.out")"
fi

for w in "${wrong[@]}"; do
	IFS=$'\t' read -r name change test what <<<"$w"
	if [ "${planted[$name]}" = 0 ]; then
		result 1 "$what: planted" "the change did nothing: $change"
		continue
	fi
	verdict=$(sed -n '/^# driver '"$name"': [0-9]* failing/,/^#$/p' "$area/$name.out")
	ok=1
	[ "$(rc_of "$area/$name")" != 0 ] && grep -qF "#   $test: " <<<"$verdict" && ok=0
	result "$ok" "$what: make check DRIVER= fails, its verdict names $test" "${verdict:-$(tail -n 15 "$area/$name.out")}"
done

ok=1
[ "$(rc_of "$area/privatesaid")" = 0 ] && grep -q 'SKIP the driver does not refuse MAP_PRIVATE' "$area/privatesaid.out" && ok=0
result "$ok" "the MAP_PRIVATE change with DRIVER_REFUSES saying so: passes, the refusal's checks skipped with the reason" \
	"$(grep -E '^not ok|^#   |passed,' "$area/privatesaid.out")"

if [ "$converted" = 0 ]; then
	result 1 "stage 0's legacy driver, converted by the aid, passes the before/after comparison" "$(cat "$area/lab0.convert.out")"
else
	ok=1
	[ "$(rc_of "$area/lab0")" = 0 ] && grep -q '^ok - before and after: user space sees the same' "$area/lab0.out" && ok=0
	result "$ok" "stage 0's legacy driver, converted by the aid, passes make check DRIVER= BEFORE=its original: the same observations" \
		"$(grep -E '^not ok|^#   |^error' "$area/lab0.out")"
	ok=1
	[ "$(rc_of "$area/lab0broken")" != 0 ] && grep -q '^not ok - before and after: .* differ' "$area/lab0broken.out" &&
		grep -q '^#   data.page_offset_mapping_fnv1a: before ' "$area/lab0broken.out" && ok=0
	result "$ok" "the same conversion with the offset dropped fails the comparison, the difference listed (data.page_offset_mapping_fnv1a)" \
		"$(grep -E '^not ok|^#   |^error|^ok - before' "$area/lab0broken.out")"
fi

ok=1
[ "$(rc_of "$area/nodev")" = 0 ] && grep -q '^# skipped: every check of the device: it needs a PCI device 1af4:10ff' "$area/nodev.out" &&
	grep -q 'check_unload' "$area/nodev.out" && ! grep -q 'check_data' <(grep -v '^# skipped' "$area/nodev.out") && ok=0
result "$ok" "a driver whose device the guest lacks: loads, unloads, clean log; the rest skipped with the reason" "$(tail -n 15 "$area/nodev.out")"

ok=1
[ "$(rc_of "$area/noconf")" != 0 ] && grep -q 'kit-check.conf is missing' "$area/noconf.out" && grep -q 'rename.sh' "$area/noconf.out" && ok=0
result "$ok" "a folder without kit-check.conf is refused, pointing at rename.sh" "$(cat "$area/noconf.out")"

echo "1..$n"
echo "driver $passed $failed $skipped $(($(date +%s) - start))" >"$logs/driver.result"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
