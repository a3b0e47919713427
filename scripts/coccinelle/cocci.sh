#!/usr/bin/env bash
# make cocci: scripts/coccinelle/mmap_prepare.cocci on stage 0's legacy
# driver (and two variants of it), for both targets, as TAP. Each converted
# driver must be reported convertible, build with W=1 (warnings are errors),
# pass checkpatch --strict, and pass stage 2's checks unchanged in a guest of
# its kernel: the kit's 6.12 kernel for the default target, the mainline
# kernel for -D mainline (skipped, with the reason, when that kernel is
# unavailable). 6.12's drivers/char/mem.c is converted beside them, in the
# same runs of the script: one report run and one patch run per target.
# Then make cocci-proof in small: the real files of
# scripts/coccinelle/proof-sample.txt converted in one run per target, each
# converted or left untouched as listed there, and each changed one
# compiled before and after against that target's kernel.
# Writes build/logs/cocci.result for the summary of make check; with
# --target mainline only that target (build/logs/cocci-mainline.result), with
# --target kit all but that target (make check runs the kit part while the
# mainline kernel still builds; the report mode check in a git tree is the
# kit part's).
# Usage: cocci.sh [--target kit|mainline] KERNEL_SRC KERNEL_OBJ CHECKER_DIR
set -uo pipefail

targets=(kit mainline) result_name=cocci
if [ "${1:-}" = --target ]; then
	targets=("$2")
	[ "$2" != mainline ] || result_name=cocci-mainline
	shift 2
fi

src=$(realpath "$1") kobj=$(realpath "$2") checker=$(realpath "$3")
here=$(dirname "$(realpath "$0")")
# shellcheck source=qemu/stages.sh
. "$here/../../qemu/stages.sh"
conv="$kit_root/scripts/coccinelle/mmap-prepare.sh"
out="$kit_root/build/cocci"
logs="$kit_root/build/logs"
mkdir -p "$out" "$logs"
start=$(date +%s)
# shellcheck source=scripts/lib/tap.sh
. "$here/../lib/tap.sh"
# shellcheck source=scripts/lib/checkpatch-run.sh
. "$here/../lib/checkpatch-run.sh"

legacy="$kit_root/labs/00-legacy-mmap"
target_stage=2
echo "TAP version 13"
if ! command -v spatch >/dev/null; then
	result 1 "spatch is installed (Debian package coccinelle; make packages)"
	echo "1..$n"
	echo "$result_name $passed $failed $skipped -" >"$logs/$result_name.result"
	exit 1
fi
echo "# $(spatch --version | head -n 1)"

# Stage 0 as it is ("plain": it returns remap_pfn_range()'s error), and two
# of the aid's test cases, which are stage 0 but for its hook (make
# cocci-tests keeps them so): "errno" translates that error (if (remap...)
# return -EAGAIN; return 0;), which becomes an error hook (kit) or
# error_override (mainline); "locals" keeps the size and the protection in
# locals, as many drivers do (the conversion makes the protection the
# descriptor's own; make cocci-proof builds real drivers that also change
# it with pgprot_noncached()).
declare -A variant_c=([plain]="$legacy/mmap_lab0.c" [errno]="$here/tests/stage0-errno.c"
	[locals]="$here/tests/stage0-locals.c")

# The unpacked 6.12 drivers/char/mem.c (/dev/mem and /dev/zero), a real
# driver of two hooks that both targets convert beside the variants: kept by
# scripts/kernel/kernel-source.sh (else read from the tarball, which takes
# seconds to reach it), copied to DEST; fails, leaving no DEST, when
# neither has it.
tarballs=(/usr/src/linux-source-6.12.tar.*)
tarball=${tarballs[0]}
pristine_mem_c() { # DEST
	mkdir -p "$(dirname "$1")"
	cp "$src-pristine/drivers/char/mem.c" "$1" 2>/dev/null ||
		tar -xf "$tarball" -O "$(basename "${tarball%.tar.*}")/drivers/char/mem.c" >"$1" 2>/dev/null ||
		{ rm -f "$1" && return 1; }
}

# Each target's conversions as a driver author runs the script on several
# files at once (every spatch run starts by parsing the semantic patch, a
# few seconds, the same for one file or ten): report mode over the variants
# and mem.c, then patch mode over copies of them in build/cocci/TARGET-VARIANT/
# and build/cocci/mem-TARGET/; then spatch alone, the kernel's way, over
# copies of the plain and errno variants. Sets report[TARGET] (report mode's
# output) and patch_log[TARGET] (what patch mode printed).
declare -A report=() patch_log=()
variants=(plain errno locals)
convert_all() { # TARGET
	local target=$1 flags=() v dir originals=() copies=()
	[ "$target" = kit ] || flags=(--mainline)
	for v in "${variants[@]}"; do
		dir="$out/$target-$v"
		rm -rf "$dir" && mkdir -p "$dir"
		cp "$legacy/Kbuild" "$dir/" && cp "${variant_c[$v]}" "$dir/mmap_lab0.c"
		originals+=("${variant_c[$v]}") copies+=("$dir/mmap_lab0.c")
	done
	dir="$out/mem-$target"
	rm -rf "$dir"
	if pristine_mem_c "$dir/original/mem.c"; then
		mkdir -p "$dir/converted" && cp "$dir/original/mem.c" "$dir/converted/mem.c"
		originals+=("$dir/original/mem.c") copies+=("$dir/converted/mem.c")
	fi
	report[$target]=$("$conv" --report "${flags[@]}" "${originals[@]}" 2>&1)
	patch_log[$target]=$("$conv" "${flags[@]}" "${copies[@]}" 2>&1 >/dev/null)
	standalone_convert "$target"
}

# The kernel's way: the target's standalone semantic patch
# (scripts/coccinelle/standalone/, make-standalone.py), run by spatch alone
# as make coccicheck MODE=patch runs it, on copies of the originals (one run,
# each file its own group). Each result must build with -Werror (not W=1:
# its kernel-doc still names the old function and @file/@vma, which W=1's
# kernel-doc check reports), and equal the script's once tidy-converted.py
# has run over it: what the script adds is the tidy pass.
standalone_variants=(plain errno)
standalone_convert() { # TARGET
	local v sdir groups="$out/$1-standalone.groups"
	: >"$groups"
	for v in "${standalone_variants[@]}"; do
		sdir="$out/$1-$v-standalone"
		rm -rf "$sdir" && mkdir -p "$sdir"
		cp "$legacy/Kbuild" "$sdir/" && cp "${variant_c[$v]}" "$sdir/mmap_lab0.c"
		printf '%s\n\n' "$sdir/mmap_lab0.c" >>"$groups"
	done
	spatch --very-quiet --no-includes --no-scanner --sp-file "$here/standalone/mmap_prepare_$1.cocci" \
		-D patch --in-place --file-groups "$groups" >/dev/null 2>&1
}
standalone_check() { # TARGET VARIANT SCRIPT_C KERNEL_OBJ
	local target=$1 variant=$2 sdir="$out/$1-$2-standalone" build rc
	build=$(make -s -C "$4" M="$sdir" KCFLAGS=-Werror modules 2>&1)
	rc=$?
	grep -q 'mmap_lab_mmap_prepare(struct vm_area_desc \*desc)' "$sdir/mmap_lab0.c" || rc=1
	result "$rc" "$target/$variant: spatch --sp-file standalone/mmap_prepare_$target.cocci -D patch alone converts it, and the result builds with -Werror" "$build"
	"$here/tidy-converted.py" "$sdir/mmap_lab0.c" >/dev/null
	build=$(diff -u "$3" "$sdir/mmap_lab0.c" 2>&1)
	result $? "$target/$variant: after tidy-converted.py it is the script's conversion (the tidy pass is all the script adds)" "$build"
}

# The lines of OUTPUT about FILE (report mode's and patch mode's lines start
# with the file's path).
lines_of() { # OUTPUT FILE
	grep -F -- "$2:" <<<"$1" || true
}

# Check TARGET's conversion of VARIANT of stage 0 (convert_all made it):
# report mode, patch mode, checkpatch, a W=1 -Werror build and stage 2's
# checks in a guest, with the errno user space must see when the action
# fails.
check_conversion() { # TARGET VARIANT ERRNO
	local target=$1 variant=$2 errno=$3 name="$1/$2"
	local stage_kobj=$kobj kernel_conf=() src_c=${variant_c[$2]}
	if [ "$target" = mainline ]; then
		stage_kobj="$kit_root/build/kernel-mainline"
		kernel_conf=(STAGE_KERNEL=mainline)
	fi
	local dir="$out/$target-$variant" said
	said=$(lines_of "${report[$target]}" "$src_c")
	grep -qE '^[^ ]+:[0-9]+: mmap_lab_mmap: convertible$' <<<"$said"
	result $? "$name: report mode says mmap_lab_mmap is convertible" "${said:-${report[$target]}}"

	log=$(lines_of "${patch_log[$target]}" "$dir/mmap_lab0.c")
	rc=0
	# The code, without its comments and strings, has no VMA left.
	code=$(python3 -c 'import re,sys; print(re.sub(r"/\*.*?\*/|//[^\n]*|\"(?:\\.|[^\"\\])*\"", "", open(sys.argv[1]).read(), flags=re.S))' "$dir/mmap_lab0.c")
	[ -z "$log" ] && grep -q '\.mmap_prepare = mmap_lab_mmap_prepare' <<<"$code" &&
		! grep -qwE 'vm_area_struct|vma|remap_pfn_range|vm_flags_set|vm_flags_clear' <<<"$code" || rc=1
	local what="no VMA, remap or vm_flags_*() call left"
	if [ "$variant" = errno ]; then
		if [ "$target" = mainline ]; then
			grep -q 'desc->action.error_override = -EAGAIN;' <<<"$code" || rc=1
			what="$what; the errno is desc->action.error_override"
		else
			grep -q 'desc->action.error_hook = mmap_lab_mmap_error;' <<<"$code" || rc=1
			what="$what; the errno comes from an error hook"
		fi
	fi
	if [ "$variant" = locals ]; then
		! grep -qw prot <<<"$code" || rc=1
		what="$what; no protection local left"
	fi
	result "$rc" "$name: the semantic patch converts it ($what)" "${log:-${patch_log[$target]}}"
	diff -u "$src_c" "$dir/mmap_lab0.c" | sed "s|$kit_root/||g" >"$dir/mmap_lab0.diff"

	cp_out=$(checkpatch -f "$dir/mmap_lab0.c")
	rc=0
	grep -qE ': (ERROR|WARNING|CHECK):' <<<"$cp_out" && rc=1
	result "$rc" "$name: the converted driver is checkpatch --strict clean" "$cp_out"

	if [ "$target" = mainline ]; then
		why=$(kit_mainline_unavailable)
		if [ -n "$why" ]; then
			skip "$name: the converted driver builds" "$why"
			skip "$name: the converted driver passes stage $target_stage's checks" "$why"
			return
		fi
	fi
	build=$(make -s -C "$stage_kobj" M="$dir" W=1 KCFLAGS=-Werror modules 2>&1)
	rc=$?
	result "$rc" "$name: the converted driver builds with W=1 -Werror against $(basename "$stage_kobj")" "$build"
	[ "$rc" = 0 ] || return
	[ "$variant" = locals ] || standalone_check "$target" "$variant" "$dir/mmap_lab0.c" "$stage_kobj"

	# Stage 0's device and module, stage 2's checks and expectations: the
	# converted driver must now behave as the remap-action stage does, with
	# the errno of the variant when the action fails.
	conf="$dir/stage.conf"
	kit_conf_override "$legacy/stage.conf" "$conf" \
		STAGE_TITLE="stage 0 ($variant) converted by mmap_prepare.cocci ($target)" "${kernel_conf[@]}" \
		STAGE_CHECKS="$(kit_stage_get "$target_stage" STAGE_CHECKS)" \
		MMAP_LAB_VMFLAGS="$(kit_stage_get "$target_stage" MMAP_LAB_VMFLAGS)" \
		MMAP_LAB_ACTION="$(kit_stage_get "$target_stage" MMAP_LAB_ACTION)" \
		MMAP_LAB_ACTION_ERRNO="$errno"
	run="cocci-boot-$target-$variant"
	boot=$(KIT_STAGE_CONF="$conf" KIT_MODULE_DIR="$dir" KIT_RUN_NAME="$run" \
		"$kit_root/qemu/run-stage.sh" "$kobj" "$checker" 0 2>&1)
	rc=$?
	read -r _ p f s _ <"$logs/$run.result"
	result "$rc" "$name: the converted driver passes stage $target_stage's checks in a guest, a failed action giving $errno ($p passed, $f failed, $s skipped)" \
		"$(echo "$boot" | grep -E '^not ok')"
}

# A real driver: /dev/mem and /dev/zero of unpatched 6.12
# (drivers/char/mem.c), converted by convert_all. mmap_mem() hands its VMA
# to private_mapping_ok(), defined once per #ifdef branch, and returns
# -EAGAIN from a braced branch when its remap fails; mmap_zero() returns
# early under #ifndef CONFIG_MMU, then uses shmem_zero_setup() and
# vma_set_anonymous(). The kit target converts mmap_mem() and reports
# mmap_zero() (its API has no vma_set_anonymous() form); mainline converts
# both, as mainline did.
check_mem_c() { # TARGET
	local target=$1 dir="$out/mem-$1" said code
	if [ ! -f "$dir/original/mem.c" ]; then
		result 1 "6.12's drivers/char/mem.c can be read from ${tarball:-/usr/src/linux-source-6.12.tar.*} (make packages)"
		return
	fi
	said=$(lines_of "${report[$target]}" "$dir/original/mem.c")
	fn() { sed -n "/^static int $1(/,/^}/p" "$dir/converted/mem.c"; }
	if [ "$target" = kit ]; then
		grep -q 'mmap_mem: convertible' <<<"$said" && grep -q 'mmap_zero: not converted: vma_set_anonymous()' <<<"$said"
		result $? "kit target: 6.12's /dev/mem hook is reported convertible, /dev/zero's for vma_set_anonymous()" "$said"
		code=$(fn mmap_mem_prepare)
		grep -q 'mmap_action_remap_full(desc, desc->pgoff);' <<<"$code" && grep -q 'error_hook = mmap_mem_error;' <<<"$code" &&
			grep -q 'private_mapping_ok(desc)' <<<"$code" && ! grep -qw vma <<<"$code" &&
			[ "$(grep -c 'int private_mapping_ok(struct vm_area_desc \*desc)' "$dir/converted/mem.c")" = 2 ] &&
			grep -q '^static int mmap_zero(struct file \*file, struct vm_area_struct \*vma)' "$dir/converted/mem.c"
		result $? "kit target: /dev/mem becomes a remap action with an error hook, its helper's two definitions take the descriptor, /dev/zero is left as it was" "$code"
	else
		grep -q 'mmap_mem: convertible' <<<"$said" && grep -q 'mmap_zero: convertible' <<<"$said"
		result $? "--mainline: 6.12's /dev/mem and /dev/zero hooks (a return under #ifndef CONFIG_MMU) are reported convertible" "$said"
		code=$(fn mmap_zero_prepare; fn mmap_mem_prepare)
		grep -q 'return shmem_zero_setup_desc(desc);' <<<"$code" && grep -q 'vma_desc_set_anonymous(desc);' <<<"$code" &&
			grep -q 'desc->action.error_override = -EAGAIN;' <<<"$code" && grep -q 'private_mapping_ok(desc)' <<<"$code" &&
			grep -q 'is_nommu_shared_vma_flags(&desc->vma_flags)' "$dir/converted/mem.c" && ! grep -qw vma <<<"$code"
		result $? "--mainline: /dev/zero becomes shmem_zero_setup_desc() and vma_desc_set_anonymous(), /dev/mem a remap action with error_override" "$code"
	fi
}

# make cocci-proof in small (scripts/coccinelle/proof-sample.sh): the real
# files of proof-sample.txt converted in one run, each converted or left
# untouched as listed, every changed one compiled before and after against
# the target's kernel.
# shellcheck source=scripts/coccinelle/proof-sample.sh
. "$here/proof-sample.sh"
sample() { # TARGET
	local t0 tree=$src kernel=$kobj why=""
	t0=$(date +%s)
	if [ "$1" = mainline ]; then
		tree="$kit_root/build/mainline-src" kernel="$kit_root/build/kernel-mainline"
		if [ ! -d "$tree/mm" ]; then
			skip "proof sample, mainline: the files of scripts/coccinelle/proof-sample.txt" \
				"$(cat "$kit_root/build/mainline-unavailable" 2>/dev/null || echo 'no mainline source in build/mainline-src')"
			return
		fi
		why=$(kit_mainline_unavailable)
	fi
	proof_sample "$1" "$tree" "$kernel" "$why"
	echo "# proof sample, $1: $(($(date +%s) - t0)) s"
}

for target in "${targets[@]}"; do
	convert_all "$target"
	check_conversion "$target" plain "$(kit_stage_get "$target_stage" MMAP_LAB_ACTION_ERRNO)"
	check_conversion "$target" errno EAGAIN
	check_conversion "$target" locals "$(kit_stage_get "$target_stage" MMAP_LAB_ACTION_ERRNO)"
	check_mem_c "$target"
	# The conversion page's "On your own driver" steps, replayed on a
	# driver of three files (scripts/coccinelle/own-driver.sh).
	target_kobj=$kobj
	[ "$target" = kit ] || target_kobj="$kit_root/build/kernel-mainline"
	if [ "$target" = mainline ] && [ -n "$(kit_mainline_unavailable)" ]; then
		skip "own driver (mainline): the steps of the conversion page" "$(kit_mainline_unavailable)"
	else
		own=$("$here/own-driver.sh" "$target" "$target_kobj" "$n")
		echo "$own"
		passed=$((passed + $(grep -c '^ok ' <<<"$own"))) failed=$((failed + $(grep -c '^not ok ' <<<"$own")))
		n=$((n + $(grep -cE '^(not )?ok ' <<<"$own")))
	fi
	sample "$target"
done

# Debian 13's Coccinelle 1.3 prints the additions differently from Debian
# 12's 1.1 (tidy-converted.py says how). scripts/coccinelle/spatch-1.3/
# kit-errno.diff turns this run's errno conversion into what 1.3's spatch
# made of it before the tidying (taken from a Debian 13 run); tidied, that
# must be the run's conversion again, whichever Coccinelle ran, so both
# releases' tidying is checked on either.
if [ "$result_name" = cocci ] && [ -f "$out/kit-errno/mmap_lab0.c" ]; then
	raw="$out/spatch-1.3/mmap_lab0.c"
	mkdir -p "$(dirname "$raw")" && cp "$out/kit-errno/mmap_lab0.c" "$raw"
	drift=$(patch -s --fuzz=0 --no-backup-if-mismatch "$raw" <"$here/spatch-1.3/kit-errno.diff" 2>&1) &&
		"$here/tidy-converted.py" "$raw" >/dev/null &&
		drift=$(diff -u "$out/kit-errno/mmap_lab0.c" "$raw" | sed "s|$kit_root/||g")
	rc=0
	[ -z "$drift" ] || rc=1
	result "$rc" "Coccinelle 1.3's output, tidied, is this run's kit/errno conversion (if its diff no longer applies, stage 0 changed: refresh scripts/coccinelle/spatch-1.3/ from a Debian 13 run)" "$drift"
fi

# (Hooks it must report and leave, and the flags comparisons each target
# converts or not, are test cases of make cocci-tests: partial-remap.c,
# flags-compare.c, flags-mask.c.)
if [ "$result_name" = cocci ]; then
	# make cocci-report's way: from the top of a tree inside a git work tree
	# (build/linux, inside the kit's), relative paths, several files in one
	# run: a verdict for each file.
	tree_files=(./arch/arc/kernel/arc_hostlink.c ./arch/powerpc/kvm/book3s_64_vio.c ./arch/mips/sibyte/common/sb_tbprof.c)
	tree_report=$(cd "$src" && "$conv" --report "${tree_files[@]}" 2>&1)
	rc=0
	for f in "${tree_files[@]}"; do grep -q "^${f//./\\.}:[0-9]" <<<"$tree_report" || rc=1; done
	result "$rc" "report mode in a git tree, relative paths as make cocci-report gives them: a verdict for each of ${#tree_files[@]} files" "$tree_report"
fi

secs=$(($(date +%s) - start))
echo "1..$n"
echo "# make cocci: ${secs} s; the converted drivers and their diffs are in build/cocci/"
echo "$result_name $passed $failed $skipped $secs" >"$logs/$result_name.result"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
