#!/bin/sh
# /init of every stage guest (busybox sh). Loads the stage's modules, runs its
# checks, prints each check's TAP between markers, dumps the kernel log, and
# reboots. With "kit.shell" on the kernel command line it opens a shell instead.
export PATH=/bin:/sbin:/usr/bin

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
mount -t debugfs debugfs /sys/kernel/debug

# Keep kernel messages off the console while TAP is printed; the whole log
# is dumped at the end, and emergencies (panics) still reach the console.
dmesg -n 1

# A kernel with kmemleak (the sanitizer profile, make check-sanitizers):
# what boot left unreferenced is scanned now and forgotten, so that the scan
# at the end reports only what the modules and checks leaked. kmemleak looks
# only at objects at least 5 s old: the first scan waits until the kernel
# has been up for 6 s.
kmemleak=/sys/kernel/debug/kmemleak
if [ -w "$kmemleak" ]; then
	while [ "$(cut -d . -f 1 /proc/uptime)" -lt 6 ]; do sleep 1; done
	echo scan >"$kmemleak"
	echo clear >"$kmemleak"
fi

# shellcheck source=/dev/null
. /etc/stage.conf
for var in $(set | sed -n 's/^\(MMAP_LAB_[A-Z_]*\)=.*/\1/p'); do
	export "${var?}"
done

# Every parameter of every module, set once at load time: the module either
# refuses it or loads and unloads again. A parameter whose .set is missing
# or broken oopses here (the log scan then fails the stage).
echo "### KIT TAP BEGIN module-params"
echo "TAP version 13"
n=0
while read -r module param; do
	n=$((n + 1))
	if out=$(insmod "/lib/modules/$module.ko" "$param=1" 2>&1); then
		if rmout=$(rmmod "$module" 2>&1); then
			echo "ok $n $module $param=1: loaded, unloaded"
		else
			echo "not ok $n $module $param=1: loaded, but rmmod failed: $rmout"
		fi
	else
		echo "ok $n $module $param=1: refused ($out)"
	fi
done </etc/module-params
if [ "$n" = 0 ]; then
	echo "1..0 # SKIP no module of this stage has parameters"
else
	echo "1..$n"
fi
echo "### KIT TAP END module-params exit=0"

# The guest's own steps are a TAP stream too: one test per module load.
echo "### KIT TAP BEGIN guest"
# shellcheck disable=SC2086 # a list of words
set -- $STAGE_MODULES
echo "TAP version 13"
echo "1..$#"
n=0
for module in $STAGE_MODULES; do
	n=$((n + 1))
	# STAGE_MODULE_PARAMS is a list of words by design.
	# shellcheck disable=SC2086
	if out=$(insmod "/lib/modules/$module.ko" $STAGE_MODULE_PARAMS 2>&1); then
		echo "ok $n insmod $module"
	else
		echo "not ok $n insmod $module # $out"
	fi
done
echo "### KIT TAP END guest exit=0"

if grep -q 'kit.shell' /proc/cmdline; then
	echo
	echo "Stage: $STAGE_TITLE"
	echo "Modules loaded: $STAGE_MODULES. Checks on the PATH: $STAGE_CHECKS"
	echo "Leave the shell (exit or Ctrl-D) to power off."
	setsid cttyhack sh -l
	reboot -f
fi

# run_checks PREFIX CHECK...: each check in a TAP section PREFIXCHECK.
run_checks() {
	prefix=$1
	shift
	for check; do
		echo "### KIT TAP BEGIN $prefix$check"
		"/usr/bin/$check"
		echo "### KIT TAP END $prefix$check exit=$?"
	done
}

# run_variants PREFIX: each variant runs its VARIANT_CHECKS with its
# variant-NAME.conf's settings over the stage's, in TAP sections named
# PREFIXNAME.CHECK.
run_variants() {
	for variant in $STAGE_VARIANTS; do
		(
			# shellcheck source=/dev/null
			. "/etc/variant-$variant.conf"
			for var in $(set | sed -n 's/^\(MMAP_LAB_[A-Z_]*\)=.*/\1/p'); do
				export "${var?}"
			done
			# shellcheck disable=SC2086 # a list of words
			run_checks "$1$variant." $VARIANT_CHECKS
		)
	done
}

# The TODO mutation proof (scripts/labs/check-todos.sh) boots one guest for all
# of a stage's mutants: STAGE_MUTANTS names them; mutant M's modules are in
# /lib/mutants/M/ and its checks in STAGE_MUTANT_CHECKS_M. Each is loaded,
# checked (TAP sections M.CHECK, its variants included) and unloaded in
# turn; sections M.load and M.unload say whether that worked, so that a
# check failing because the module was not there is never taken for a
# failure the mutation caused.
# The kernel log, printed at the end, has a line where each begins and ends:
# what the kernel said while a mutant was loaded can be told apart.
for mutant in $STAGE_MUTANTS; do
	echo "kit: mutant $mutant begins" >/dev/kmsg || true
	echo "### KIT TAP BEGIN $mutant.load"
	echo "TAP version 13"
	n=0
	for module in $STAGE_MUTANT_MODULES; do
		n=$((n + 1))
		if out=$(insmod "/lib/mutants/$mutant/$module.ko" 2>&1); then
			echo "ok $n insmod $mutant/$module"
		else
			echo "not ok $n insmod $mutant/$module # $out"
		fi
	done
	echo "1..$n"
	echo "### KIT TAP END $mutant.load exit=0"
	eval "checks=\$STAGE_MUTANT_CHECKS_$mutant"
	run_variants "$mutant."
	# shellcheck disable=SC2086,SC2154 # a list of words, set by eval
	run_checks "$mutant." $checks
	echo "### KIT TAP BEGIN $mutant.unload"
	echo "TAP version 13"
	n=0
	for module in $STAGE_MUTANT_MODULES; do
		n=$((n + 1))
		if out=$(rmmod "$module" 2>&1); then
			echo "ok $n rmmod $module"
		else
			echo "not ok $n rmmod $module # $out"
		fi
	done
	echo "1..$n"
	echo "### KIT TAP END $mutant.unload exit=0"
	echo "kit: mutant $mutant ends" >/dev/kmsg || true
done

# Variants first (the stage's own checks end with check_unload); a
# mutation-proof guest has only its mutants.
if [ -z "$STAGE_MUTANTS" ]; then
	run_variants ""
	# shellcheck disable=SC2086 # a list of words
	run_checks "" $STAGE_CHECKS
fi

# The leaks since the clear above, listed on the console where the log scan
# (qemu/scan-kernel-log.sh) sees their "unreferenced object" lines. The
# newest objects must be 5 s old first; a second scan drops an object whose
# only reference sat in a register or on a stack during the first.
if [ -w "$kmemleak" ]; then
	sleep 6
	echo scan >"$kmemleak"
	echo scan >"$kmemleak"
	echo "### KIT KMEMLEAK BEGIN"
	cat "$kmemleak"
	echo "### KIT KMEMLEAK END"
fi

echo "### KIT DMESG BEGIN"
dmesg
echo "### KIT DMESG END"
echo "### KIT GUEST DONE"
reboot -f
