#!/usr/bin/env bash
# Sourced: build and boot a batch of a stage's mutants, copies of its
# sources each changed in one way, in one kbuild run and one guest. Used by
# the TODO mutation proof (check-todos.sh: each answer removed) and the
# mistake corpus (check-mistakes.sh: each plausible mistake planted). A batch
# folder holds one subfolder per mutant, NAME/, with the stage's sources.
# The caller sources qemu/stages.sh first.

# Build the mutants NAME... of the batch folder BATCH (each with the stage's
# modules MODULES) against the kernel KOBJ in one kbuild run: named .ko
# targets skip kbuild's check that module names are unique, which these are
# not; as many jobs as cores. Fails if any of them does not build; LOG says why.
kit_build_mutants() { # KOBJ BATCH "MODULE..." LOG NAME...
	local kobj=$1 batch=$2 modules=$3 log=$4 name module targets=()
	shift 4
	for name; do
		for module in $modules; do targets+=("$name/$module.ko"); done
	done
	echo "obj-m := ${*/%//}" >"$batch/Kbuild"
	make -s -C "$kobj" M="$batch" -j"$(nproc)" "${targets[@]}" >"$log" 2>&1
}

# Boot stage ID once for the mutants NAME... of BATCH (built): the guest
# loads each in turn, runs the checker programs of STAGE_MUTANT_CHECKS_NAME
# (given as NAME=PROGRAM,PROGRAM words in CHECKS) on it and unloads it
# (qemu/guest-init.sh, STAGE_MUTANTS). The logs go under run RUN
# (build/logs/RUN/NAME.*.tap, build/logs/RUN.log); prints run-stage.sh's
# output. KIT_STAGE_CONF, when set, is the stage.conf the batch's is made
# from (make check DRIVER= BEFORE=: the driver's).
kit_boot_mutants() { # KOBJ CHECKER ID BATCH RUN "NAME=PROGRAM,...  ..." NAME...
	local kobj=$1 checker=$2 id=$3 batch=$4 run=$5 checks=$6 assign=() word base
	shift 6
	base=${KIT_STAGE_CONF:-$(kit_stage_conf "$id")}
	for word in $checks; do assign+=("STAGE_MUTANT_CHECKS_${word%%=*}=${word#*=}"); done
	assign=("${assign[@]//,/ }")
	kit_conf_override "$base" "$batch/stage.conf" STAGE_MODULES= STAGE_CHECKS= \
		STAGE_MUTANTS="$*" STAGE_MUTANT_MODULES="$(kit_conf_get "$base" STAGE_MODULES)" "${assign[@]}"
	# shellcheck disable=SC2154 # kit_root: set by qemu/stages.sh
	KIT_STAGE_CONF="$batch/stage.conf" KIT_MODULE_DIR="$batch" KIT_MUTANT_ROOT="$batch" \
		KIT_RUN_NAME="$run" "$kit_root/qemu/run-stage.sh" "$kobj" "$checker" "$id" 2>&1
}
