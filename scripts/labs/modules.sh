#!/usr/bin/env bash
# Build stages' modules out of tree against the kit kernel. For a lab stage
# with a learner copy (work/NN-name, from `make start`) that copy is built,
# unless SOLUTION=1; otherwise the stage's own sources. They are copied to
# build/modules/ID so neither folder gets build output. The first line
# printed for a stage names what is built; build/modules/ID/.checked keeps it
# for the summary table.
# A stage whose STAGE_KERNEL is mainline is built against build/kernel-mainline
# instead of KERNEL_OBJ_DIR, and skipped (with the reason) while that kernel
# is unavailable.
# The stages of one kernel build in one kbuild run (M=build/modules, a
# folder per stage): a run per stage would pay kbuild's start-up, about 2 s,
# each time. When that run fails, each stage is built on its own, so that
# every error shows under the stage it belongs to. Fails if any stage fails.
# With KIT_PROFILE=sanitize (make check-sanitizers), build/modules-sanitize
# and build/kernel-mainline-sanitize instead (qemu/stages.sh).
# Usage: [SOLUTION=1] [KIT_PROFILE=sanitize] modules.sh KERNEL_OBJ_DIR STAGE_ID...
set -euo pipefail

kobj=$(realpath "$1")
shift
here=$(dirname "$(realpath "$0")")
# shellcheck source=scripts/labs/learner-copy.sh
. "$here/learner-copy.sh"
modules=$(kit_build_path modules)
# One build at a time in build/modules: its Kbuild and kbuild's own files
# there are shared by every stage, and make check runs make check STAGE=N
# in two lanes at once (scripts/lib/check-lane.sh).
mkdir -p "$modules"
exec {modules_lock}>"$modules/.lock"
flock "$modules_lock"

# Copy stage $1's sources into build/modules/ID and say what is built.
prepare() { # ID
	local id=$1 src which rel names=() f out="$modules/$1" status
	IFS=$'\t' read -r src which < <(kit_checked_source "$id")
	rel=${src#"$kit_root"/}
	for f in "$src"/*.c; do names+=("$rel/$(basename "$f")"); done
	echo ">> stage $id: checking ${names[*]} ($which)"
	mkdir -p "$out"
	# A module built from the other source must not survive a switch; nor
	# may one from an earlier run when this build fails (a guest would load
	# it): kbuild links a .ko again from its objects in a moment.
	if [ "$(cut -f1 "$out/.checked" 2>/dev/null)" != "$rel" ]; then
		rm -f "$out"/*.c "$out"/*.h "$out"/*.o
	fi
	rm -f "$out"/*.ko
	# Copy only what changed, so kbuild's timestamps stay meaningful.
	for f in "$src"/*.c "$src"/*.h "$src"/Kbuild; do
		[ -e "$f" ] || continue
		cmp -s "$f" "$out/$(basename "$f")" || cp "$f" "$out/"
	done
	printf '%s\t%s\n' "$rel" "$which" >"$out/.checked"
	# The TODOs the learner has not answered yet, a number a line, for the
	# verdict (qemu/verdict.sh: a test that several TODOs share is laid on
	# the ones still open).
	: >"$out/.todos-left"
	if [ "$which" = "your copy" ]; then
		status=$("$here/todo-status.sh" "$src" "$(kit_stage_dir "$id")")
		printf '>> %s\n' "$status"
		"$here/todo-status.sh" --left "$src" "$(kit_stage_dir "$id")" >"$out/.todos-left"
	fi
}

# The compiler's messages name the copies in build/modules/ID/ (6.12's
# kbuild: the absolute path; mainline's: "ID/file.c", relative to M=); say
# the files the learner edits instead (work/NN-name/file.c: same lines, the
# copies are verbatim), or the stage's own sources. kbuild's own "make[N]:
# *** ... Error" lines, which name only its build folders, are left out:
# the line this script prints after a failure says which stage failed.
learner_paths() { # ID...
	local id rel args=(-e '/^make\[[0-9]*\]: \*\*\* /d')
	for id; do
		rel=$(cut -f1 "$modules/$id/.checked" 2>/dev/null) || continue
		args+=(-e "s|$modules/$id/|$rel/|g" -e "s#(^|[[:space:]'\"(‘])$id/#\\1$rel/#g")
	done
	sed -E "${args[@]}"
}

# Build the stages ID... (prepared, all for kernel $1) in one kbuild run;
# its messages go to stderr with the learner's paths.
build() { # KOBJ ID...
	local k=$1 rc=0
	shift
	echo "obj-m := ${*/%//}" >"$modules/Kbuild"
	make -s -C "$k" M="$modules" W=1 -j"$(nproc)" modules 2>"$modules/build.raw" || rc=$?
	learner_paths "$@" <"$modules/build.raw" >&2
	return "$rc"
}

declare -A stages_of=()
for id; do
	kit_require_stage "$id"
	k=$(kit_stage_kobj "$id" "$kobj")
	if [ "$(kit_stage_kernel "$id")" = mainline ] && why=$(kit_mainline_not_ready) && [ -n "$why" ]; then
		echo ">> stage $id: not built: it runs on the mainline kernel, and $why"
		continue
	fi
	prepare "$id"
	stages_of[$k]="${stages_of[$k]:-} $id"
done
rc=0
for k in "${!stages_of[@]}"; do
	# shellcheck disable=SC2086 # stage ids are single words
	set -- ${stages_of[$k]}
	if [ $# -gt 1 ]; then
		if build "$k" "$@" 2>"$modules/build.err"; then
			cat "$modules/build.err" >&2 # the warnings, if any
			continue
		fi
		echo ">> building stages $* together failed: each on its own, to show whose error it is"
	fi
	for id; do
		build "$k" "$id" || { echo ">> stage $id: the module does not build (errors above)" >&2; rc=1; }
	done
done
exit "$rc"
