#!/usr/bin/env bash
# Static checks as TAP, before any guest boots: checkpatch on every patch, lab
# solution, the example driver and the checker sources; every skeleton
# compiled; shellcheck on every script; the conversion aid's test cases
# (make cocci-tests); the kernel's VMA userland tests; the
# kernel pages the series changes rendered with the kernel's Sphinx setup; the
# example driver's rename script.
# Writes build/logs/static.result.
# Usage: check-static.sh KERNEL_SRC KERNEL_OBJ
set -uo pipefail

src=$(realpath "$1") kobj=$(realpath "$2")
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
mkdir -p build/logs
# The first lines of a failure's output are the ones that say what failed.
TAP_DETAIL="head"
# shellcheck source=scripts/lib/tap.sh
. "$top/scripts/lib/tap.sh"
# shellcheck source=scripts/lib/checkpatch-run.sh
. "$top/scripts/lib/checkpatch-run.sh"

echo "TAP version 13"
# One checkpatch run for each list (scripts/lib/checkpatch-run.sh).
mapfile -t series < <(grep -v '^#' patches/series | sed "s|^|$top/patches/|")
checkpatch_each -- "${series[@]}"
for p in "${series[@]}"; do
	out=${checkpatch_out[$p]}
	errors=$(echo "$out" | grep -c ': ERROR:')
	result "$errors" "checkpatch --strict: patches/${p##*/} has no errors" "$out"
done
mapfile -t series < <(grep -v '^#' patches-mainline/series | sed "s|^|$top/patches-mainline/|")
checkpatch_each -- "${series[@]}"
for p in "${series[@]}"; do
	out=${checkpatch_out[$p]}
	bad=$(echo "$out" | grep -cE ': (ERROR|WARNING|CHECK):')
	result "$bad" "checkpatch --strict: patches-mainline/${p##*/} (kit-only) is clean" "$out"
done
kernel_style=(labs/[0-9][0-9]-*/*.c labs/intree/*.[ch] labs/mainline-probe/*.c labs/bench/*.h example-driver/*.c example-driver/mainline/*.c qemu/selftest/*/*.c)
checkpatch_each -f -- "${kernel_style[@]/#/$top/}"
for f in "${kernel_style[@]}"; do
	out=${checkpatch_out[$top/$f]}
	bad=$(echo "$out" | grep -cE ': (ERROR|WARNING|CHECK):')
	result "$bad" "checkpatch --strict -f: $f is clean" "$out"
done
# The checker is userspace on the kselftest harness; what checkpatch says
# there that does not apply:
#  SPLIT_STRING            TH_LOG() messages are wrapped to fit the line; the
#                          TAP output names the test, nobody greps a message
#  MACRO_ARG_REUSE         the LAB_*() macros, like the harness' ASSERT_*(),
#                          assign to and test their arguments (plain variables)
#  MACRO_WITH_FLOW_CONTROL the harness' idiom: ASSERT_*() and SKIP(return, ...)
#                          return from the test, so macros built on them do too
#  PREFER_KERNEL_TYPES     u32 and friends are kernel-internal; uint32_t is C
#  VOLATILE                userspace has no readl()/writel(): volatile is how
#                          every access to a device mapping is made to happen
#  ENOSYS                  userspace sees ENOSYS for a system call the kernel
#                          lacks (memfd_secret, userfaultfd), the one meaning
#                          checkpatch reserves it for
#  PREFER_DEFINED_ATTRIBUTE_MACRO  the one line that defines __printf()
#                          for userspace is the line it flags
# The guest programs of make bench and make stress follow the same rules.
checker_ignore=SPLIT_STRING,MACRO_ARG_REUSE,MACRO_WITH_FLOW_CONTROL,PREFER_KERNEL_TYPES,VOLATILE,ENOSYS,PREFER_DEFINED_ATTRIBUTE_MACRO
userspace=(labs/checker/*.[ch] labs/bench/*.c labs/stress/*.c)
checkpatch_each --ignore "$checker_ignore" -f -- "${userspace[@]/#/$top/}"
for f in "${userspace[@]}"; do
	out=${checkpatch_out[$top/$f]}
	bad=$(echo "$out" | grep -cE ': (ERROR|WARNING|CHECK):')
	result "$bad" "checkpatch --strict -f: $f is clean (userspace rules)" "$out"
done
for d in labs/[0-9][0-9]-*; do
	name=$(basename "$d")
	if [ "$(qemu/stages.sh get-file "$d/stage.conf" STAGE_KERNEL)" = mainline ]; then
		# Its kernel may still be building (make check starts it in the
		# background); check-todos builds and boots this skeleton on it.
		echo "ok $((n + 1)) - skeleton of $name compiles # SKIP runs on the mainline kernel: check-todos builds it there"
		n=$((n + 1)) skipped=$((skipped + 1))
		continue
	fi
	# The skeleton build/skeletons/NAME/x.c is what the solution generates
	# now, and its module was compiled from it.
	rc=0
	for c in "$d"/*.c; do
		skel="build/skeletons/$name/$(basename "$c")"
		scripts/labs/make-skeleton.sh "$c" "build/logs/skeleton.tmp.c" 2>/dev/null || rc=1
		cmp -s "build/logs/skeleton.tmp.c" "$skel" || rc=1
		[ "${skel%.c}.ko" -nt "$skel" ] || rc=1
	done
	rm -f build/logs/skeleton.tmp.c
	result "$rc" "skeleton of $name was generated and compiles"
done
# The lab stage table of labs/README.md is what the stage.conf files make
# (the guide's is made by the same script, kit-lab-table).
out=$(scripts/labs/lab-table.py --check labs/README.md 2>&1)
result $? "labs/README.md's table of the lab stages is what their stage.conf files make (scripts/labs/lab-table.py)" "$out"
# The recipe "Add a lab stage" followed on a throwaway copy: its touch
# points, and every registry picking the new stage up.
out=$(scripts/static/check-stage-recipe.sh "$src" "$n")
echo "$out"
passed=$((passed + $(grep -c '^ok ' <<<"$out"))) failed=$((failed + $(grep -c '^not ok ' <<<"$out")))
skipped=$((skipped + $(grep -c '^ok .* # SKIP' <<<"$out")))
passed=$((passed - $(grep -c '^ok .* # SKIP' <<<"$out")))
n=$((n + $(grep -cE '^(not )?ok ' <<<"$out")))
# The test names the pages and the stage.conf files give are those the
# checker prints (FIXTURE.TEST, FIXTURE.VARIANT.TEST).
out=$(scripts/static/check-test-names.py "$top" 2>&1)
result $? "test names in the guide and in STAGE_TODO_CHECKS are the checker's ($(tail -n 1 <<<"$out"))" "$out"
# The conversion guide's mainline column is copied from tested drivers (the
# mainline stages, STAGE_KERNEL=mainline, and the mainline example) or
# from the mainline tree (fetched in the background by make check; without
# it, the forms only the tree has are a skip, not a pass).
mainline_c=()
for d in labs/[0-9][0-9]-*; do
	[ "$(qemu/stages.sh get-file "$d/stage.conf" STAGE_KERNEL)" != mainline ] || mainline_c+=("$d"/*.c)
done
rc=0
out=$(scripts/static/check-mainline-table.py Documentation/conversion-guide.rst build/mainline-src \
	"${mainline_c[@]}" example-driver/mainline/*.c 2>&1) || rc=$?
what="conversion guide: every mainline form is in a driver checked on mainline or in the 7.x tree"
if [ "$rc" = 3 ]; then
	n=$((n + 1)) skipped=$((skipped + 1))
	echo "ok $n - $what # SKIP $(echo "$out" | tail -n 1)"
else
	result "$rc" "$what ($(echo "$out" | tail -n 1))" "$(echo "$out" | grep -v '^found: ')"
fi
# Without network the mainline stages are skipped with the reason, never
# passed: the fetch names the unreachable mirror (exit 3), and a mainline
# stage whose kernel is unavailable is reported as one skip.
apt_tmp=$(mktemp -d)
out=$(KIT_APT_MIRROR=http://127.0.0.1:9/debian KIT_APT_DIR="$apt_tmp/apt" \
	scripts/kernel/fetch-mainline-source.sh "$apt_tmp/src" 2>&1)
rc=$?
rm -rf "$apt_tmp"
[ "$rc" = 3 ] && grep -q 'no network' <<<"$out" && rc=0
result "$rc" "mainline source: an unreachable mirror gives exit 3 and 'no network' (no stage can pass)" "$out"
mainline_stage=$(qemu/stages.sh list-kernel mainline | head -n 1)
out=$(KIT_MAINLINE_UNAVAILABLE="simulated by check-static" KIT_RUN_NAME=mainline-skip-test \
	qemu/run-stage.sh "$kobj" build/checker "$mainline_stage" 2>&1)
rc=$?
[ "$rc" = 0 ] && grep -q '# SKIP simulated by check-static' <<<"$out" &&
	[ "$(cat build/logs/mainline-skip-test.result)" = "mainline-skip-test 0 0 1 -" ] || rc=1
rm -rf build/logs/mainline-skip-test.result build/logs/mainline-skip-test
result "$rc" "mainline stage $mainline_stage without its kernel: reported as skipped with the reason" "$out"
# A mainline kernel that fails to build is a failure of make check (its
# own summary row), never a skip only, and leaves no older image to boot:
# scripts/kernel/kernel-mainline.sh in a sandbox kit whose fetch works and whose
# build fails, over a build directory that has an older, good build.
sandbox=$(mktemp -d)
mkdir -p "$sandbox/scripts/kernel" "$sandbox/qemu" "$sandbox/build/kernel-mainline"
cp scripts/kernel/kernel-mainline.sh "$sandbox/scripts/kernel/" && cp qemu/stages.sh qemu/kernel*.config "$sandbox/qemu/"
# shellcheck disable=SC2016 # the stubs' own $1
printf '#!/bin/sh\nmkdir -p "$1" && touch "$1/.kit-source-version" && echo 7.0-test >"$1/.kit-package-version"\n' \
	>"$sandbox/scripts/kernel/fetch-mainline-source.sh"
printf '#!/bin/sh\necho "simulated build failure" >&2\nexit 2\n' >"$sandbox/scripts/kernel/kernel.sh"
chmod +x "$sandbox"/scripts/kernel/*.sh
touch -d '1 hour ago' "$sandbox/build/kernel-mainline/.stamp-kernel-built"
out=$("$sandbox/scripts/kernel/kernel-mainline.sh" --wait 2>&1)
rc=$?
why=$(bash -c '. "$1" && kit_mainline_unavailable' _ "$sandbox/qemu/stages.sh")
row=$(cat "$sandbox/build/logs/mainline-kernel.result" 2>/dev/null)
out+=$'\n'"exit status $rc; row: $row; stamp: $(ls -A "$sandbox/build/kernel-mainline"); reason: $why"
rc2=1
[ "$rc" != 0 ] && [ "$row" = "mainline-kernel 0 1 0 -" ] && [ ! -e "$sandbox/build/kernel-mainline/.stamp-kernel-built" ] &&
	[[ "$why" == *"did not build"* ]] && rc2=0
rm -rf "$sandbox"
result "$rc2" "a mainline kernel that fails to build: a failed summary row, no older image left to boot, its stages skipped for that" "$out"
# The adaptation guide's rename (Documentation/labs/example-driver.rst):
# its two commands as the page gives them, work/ being a scratch folder
# here; the renamed copy builds against the kit kernel, under the new name.
rm -rf build/logs/rename-test
mapfile -t cmds < <(sed -n '/^Rename$/,/^Change the buffer$/s/^ *\$ //p' Documentation/labs/example-driver.rst)
out=$(for c in "${cmds[@]}"; do
	echo "\$ $c"
	bash -c "${c//work\//build/logs/rename-test/}" 2>&1 || exit 1
done &&
	[ "${#cmds[@]}" = 2 ] &&
	[ "$(modinfo -F name build/logs/rename-test/mydrv/mydrv.ko)" = mydrv ] &&
	! grep -q mmap_example build/logs/rename-test/mydrv/mydrv.c)
result $? "the example driver page's rename (${#cmds[@]} commands): the copy builds as module mydrv" "$out"
# example-driver/README.md's build and clean, as written there.
out=$(make -C example-driver 2>&1 && [ -f example-driver/mmap_example.ko ] &&
	make -C example-driver clean 2>&1 && [ ! -e example-driver/mmap_example.ko ])
result $? "example-driver/README.md: make -C example-driver builds mmap_example.ko, make -C example-driver clean removes it" "$out"
# The Debian releases (scripts/setup/releases/): each list pins
# linux-source-6.12, and a release without a list is refused with the list
# of those the kit supports.
out=$(for list in scripts/setup/releases/*.txt; do
	grep -qE '^linux-source-6\.12=[^ ]+$' "$list" || echo "$list: no linux-source-6.12=VERSION line"
done
KIT_DEBIAN_RELEASE=nonesuch scripts/setup/packages.sh 2>&1 && echo "packages.sh accepted Debian nonesuch")
rc=0
! grep -qE 'no linux-source-6.12=VERSION line|accepted Debian nonesuch' <<<"$out" &&
	grep -q "not one the kit supports: bookworm trixie" <<<"$out" || rc=1
result "$rc" "make packages: every release list pins linux-source-6.12; an unknown release is refused, naming bookworm and trixie" "$out"
# The guests' accelerator (qemu/accel.sh and its KVM probe) against stubbed
# machines: no /dev/kvm, one this user cannot open, a KVM whose guests cannot
# run, a working one; KIT_ACCEL forces, is refused when bad, and the
# environment's own KIT_ACCEL does not matter. This machine's own answer is
# in the test's name.
out=$(qemu/selftest/accel-cases.sh 2>&1)
result $? "qemu/accel.sh, against stubs of every kind of machine ($(grep -c '^ok: ' <<<"$out") cases); guests here: $(qemu/accel.sh --why)" "$(grep -v '^ok: ' <<<"$out")"
# make ready (scripts/setup/ready.sh): a line for each of its checks and a
# last line that agrees with them (READY exactly when no line asks for
# something), the 6.12 kernel seen as built (it is, here), and an unknown
# Debian release seen as not ready because of its packages.
out=$(scripts/setup/ready.sh 2>&1)
ready_rc=$?
rc=0
for check in packages 6.12 mainline disk guests network work; do
	grep -q "^$check " <<<"$out" || { echo "no '$check' line" && rc=1; }
done
last=$(tail -n 1 <<<"$out")
asks=$(grep -cE '^[a-z0-9.]+ +TO DO: ' <<<"$out")
if [ "$asks" = 0 ]; then [[ "$last" == READY* && "$ready_rc" = 0 ]] || rc=1; else [[ "$last" == "NOT READY: "*"; then make ready again" && "$ready_rc" = 1 ]] || rc=1; fi
grep -q '^6.12 *ok: ' <<<"$out" || rc=1
bad_release=$(KIT_DEBIAN_RELEASE=nonesuch scripts/setup/ready.sh 2>&1)
[[ "$(tail -n 1 <<<"$bad_release")" == "NOT READY: error: this machine's Debian release (nonesuch) is not one the kit supports"* ]] || rc=1
result "$rc" "make ready: one line a check, the verdict agrees with them ($last); an unknown release is not ready" \
	"$out"$'\n'"--- with KIT_DEBIAN_RELEASE=nonesuch:"$'\n'"$bad_release"
# The layout: each script the Makefile runs is scripts/JOB/TARGET.sh, named
# after its make target (scripts/lib/ holds the helpers several jobs share),
# so make help is the index; and calls go one way, Makefile -> scripts/ ->
# qemu/: nothing under qemu/ runs or sources a script of scripts/.
out=$(grep -oE 'scripts/[a-z]+/[a-z-]+\.sh' Makefile | sort -u | while read -r s; do
	case "$s" in scripts/lib/*) continue ;; esac
	t=$(basename "$s" .sh)
	grep -qE "^$t:" Makefile || echo "$s: the Makefile runs it, but has no target '$t'"
done
grep -nE '^[^#]*scripts/' qemu/*.sh qemu/selftest/*.sh | sed 's/$/  (qemu\/ calls into scripts\/)/')
rc=0
[ -z "$out" ] || rc=1
result "$rc" "layout: every script the Makefile runs is named after its target; qemu/ calls nothing in scripts/" "$out"
out=$(shellcheck -x qemu/*.sh qemu/selftest/*.sh scripts/*/*.sh example-driver/*.sh .ci/run 2>&1)
result $? "shellcheck: every script is clean" "$out"
out=$(scripts/static/lint-pipe-exits.py qemu/*.sh qemu/selftest/*.sh scripts/*/*.sh example-driver/*.sh .ci/run 2>&1)
result $? "no grep -q behind a pipe that SIGPIPE can decide under pipefail ($(tail -n 1 <<<"$out"))" "$out"
# The guest log scanner on made-up logs, its expected-warning window
# included (a check that proves a kernel warns).
out=$(qemu/selftest/log-scanner-cases.sh 2>&1)
result $? "the kernel log scanner: a stray warning or a sanitizer report fails, one expected warning in its window passes ($(grep -c '^ok: ' <<<"$out") cases)" "$(grep -v '^ok: ' <<<"$out")"
# The sanitizer profile (make check-sanitizers, not run here) still
# configures: a change to qemu/kernel.config could otherwise drop one of its
# options silently (configure-kernel.sh fails naming them). About 15 s.
sanitize_config=$(mktemp -d "$top/build/sanitize-config.XXXXXX")
mapfile -t fragments < <(KIT_PROFILE=sanitize qemu/stages.sh fragments 6.12)
out=$(scripts/kernel/configure-kernel.sh "$src" "$sanitize_config" "${fragments[@]}" 2>&1)
result $? "the sanitizer profile configures on 6.12: every option of qemu/kernel-sanitize.config takes effect" "$out"
rm -rf "$sanitize_config"
# The conversion aid's test cases (make cocci-tests): each case of
# scripts/coccinelle/tests/ converted on both targets must be its .res,
# reported as its .report, and report mode must call convertible exactly
# the hooks patch mode converted.
out=$(scripts/coccinelle/cocci-tests.sh 2>&1)
result $? "make cocci-tests: the conversion aid's cases convert as their .res, report agrees with patch mode ($(grep -c '^ok ' <<<"$out") of $(grep -cE '^(not )?ok ' <<<"$out") cases)" \
	"$(grep -vE '^(ok |TAP version|1\.\.)' <<<"$out")"
# The verdict that ends a failing stage, on made-up results: a TODO's test
# points at the TODO's line and text; the kernel reports with a known cause
# are named; errno values and signals are printed with their names.
fake=$(mktemp -d)
printf 'vma.map_private_refused\tExpected EINVAL (22) == e (0)\nbad.huge_offset_no_wrap_einval\tsucceeded, expected EINVAL\n' >"$fake/failures.tsv"
printf '%s\n' '[ 1.0] kernel BUG: Bad pagetable' '[ 1.1] WARNING: CPU: 0 PID: 9 at mm/util.c:1 mmap_action_finish+0x1/0x2' \
	'[ 1.2] WARNING: mm/util.c:1 at mmap_action_prepare+0x1/0x2, CPU#0: x/1' >"$fake/console.log"
out=$(qemu/verdict.sh 1 "$fake/failures.tsv" "$fake/console.log" "the guest did not run to the end" 2>&1)
printf 'TAP version 13\n# a.c:1:t:Expected ENOMEM (12) == errno (11)\n# t: Test terminated unexpectedly by signal 7\nok 1 t\n1..1\n' >"$fake/t.tap"
echo 0 >"$fake/t.tap.exit"
out+=$'\n'$(perl qemu/tap-summary.pl "$fake/t.tap" 2>&1)
rm -rf "$fake"
rc=0
for want in "TODO 2 (" "mmap_lab1.c:" "[fails vma.map_private_refused: Expected EINVAL (22) == e (0)]" "bad.huge_offset_no_wrap_einval: succeeded, expected EINVAL" \
	"a physical address was passed where a PFN is expected" "the error hook returned 0 or a positive value" \
	"desc->action.error_override is positive" "the guest did not run to the end" \
	"Expected ENOMEM (12 ENOMEM) == errno (11 EAGAIN)" "signal 7 (SIGBUS)"; do
	grep -qF -- "$want" <<<"$out" || { rc=1 && out+=$'\n'"missing: $want"; }
done
result "$rc" "the verdict of a failing stage names the TODO, the known kernel reports, errno values and signals" "$out"
# The stage list decides how many lab stages there are, never the guide's
# prose: no page counts them ("five lab stages", "seven labs") or names a
# range up to the last one ("0 to 6"), and the workshop schedule that make
# docs built (kit-workshop-schedule) has a row for every lab stage of
# qemu/stages.sh list, titled "Stage N:" and linking the stage's page.
labs=$(qemu/stages.sh list | grep -xE '[0-9]+')
last=$(tail -n 1 <<<"$labs")
count='(^|[^0-9a-z._])(two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|[0-9]+) (lab stages|labs)([ ,.;:)]|$)'
range="(^|[^0-9.])(0\`* (to|through) \`*$last|0-$last)([^0-9.]|$)"
out=$(find Documentation -name '*.rst' -o -name '*.inc' | sort | while read -r f; do
	tr -s '[:space:]' ' ' <"$f" | grep -oiE "$count|$range" | sed "s|^|$f: states the number of lab stages: |"
done)
html=build/html/workshop/schedule.html
if [ ! -f "$html" ]; then
	out+=$'\n'"$html: not built (make docs)"
else
	rows=$(tr -d '\n' <"$html" | sed 's|</tr>|&\n|g')
	for id in $labs; do
		page=$(basename "$(qemu/stages.sh dir "$id")").html
		grep -qE "<td><p>Stage $id: .*href=\"\.\./labs/${page//./\\.}[\"#]" <<<"$rows" ||
			out+=$'\n'"$html: no row for lab stage $id (\"Stage $id: ...\" linking labs/$page)"
	done
fi
out=$(sed '/^$/d' <<<"$out")
rc=0
[ -z "$out" ] || rc=1
result "$rc" "docs: no lab stage count in prose; the workshop schedule has a row for each lab stage (${labs//$'\n'/ })" "$out"
out=$(scripts/series/vma-tests.sh "$src" 2>&1)
rc=$?
tail -n 1 <<<"$out" | grep -q ' 0 failed' || rc=1
result "$rc" "tools/testing/vma builds and passes on the patched tree ($(echo "$out" | tail -n 1))" "$out"
out=$(scripts/series/docs-kernel.sh "$src" build/kernel-docs 2>&1)
result $? "kernel docs: the pages the series changes (porting.rst, vfs.rst, fault-injection.rst) render without warnings" "$out"
echo "1..$n"
echo "static $passed $failed $skipped -" >build/logs/static.result
echo "# static checks: $passed passed, $failed failed"
[ "$failed" = 0 ]
