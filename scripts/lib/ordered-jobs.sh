#!/usr/bin/env bash
# Sourced: run the parts of a check (a lab stage, a driver case) as
# background jobs, at most KIT_JOBS at once (default: the number of cores),
# and hand each one back in the order they were started. Each part is a
# kbuild run and a guest, one core's work; make check runs these checks
# beside its other lane. Used by check-todos.sh, check-mistakes.sh and
# check-driver-cases.sh.
#   kit_job NAME OUT COMMAND...   run COMMAND (a function of the caller will
#                                 do) in the background, its output in OUT,
#                                 once a slot is free: while every slot is
#                                 taken, the oldest job is waited for and
#                                 handed back
#   kit_jobs_finish               hand back every job left, in order
# Handing a job back calls the caller's kit_job_done NAME OUT.

kit_jobs_max=${KIT_JOBS:-$(nproc)}
kit_jobs_queue=()
declare -A kit_jobs_pid=() kit_jobs_out=()

kit_job_hand_back() {
	local name=${kit_jobs_queue[0]}
	wait "${kit_jobs_pid[$name]}"
	kit_jobs_queue=("${kit_jobs_queue[@]:1}")
	kit_job_done "$name" "${kit_jobs_out[$name]}"
}

kit_job() { # NAME OUT COMMAND...
	local name=$1 out=$2
	shift 2
	while [ ${#kit_jobs_queue[@]} -ge "$kit_jobs_max" ]; do kit_job_hand_back; done
	"$@" >"$out" 2>&1 &
	kit_jobs_pid[$name]=$! kit_jobs_out[$name]=$out
	kit_jobs_queue+=("$name")
}

kit_jobs_finish() {
	while [ ${#kit_jobs_queue[@]} -gt 0 ]; do kit_job_hand_back; done
}
