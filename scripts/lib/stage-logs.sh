#!/usr/bin/env bash
# Keep a stage's logs of make check's own run aside, and put them back. The
# scripts that run `make check STAGE=N` again inside make check (the learner's
# loop, the Troubleshooting replay) write that stage's console log, TAP,
# result and verdict over the real run's; put back, the summary's row and
# verdict for the stage are the real run's. Source it:
#   kit_keep_stage_logs ID DIR       copy build/logs/ID{,.log,.result,.verdict} into DIR
#   kit_put_back_stage_logs ID DIR   remove this run's, copy DIR's back

kit_stage_log_files() { # ID
	local logs
	logs=$(kit_build_path logs)
	printf '%s\n' "$logs/$1" "$logs/$1.log" "$logs/$1.result" "$logs/$1.verdict"
}

kit_keep_stage_logs() { # ID DIR
	local f
	mkdir -p "$2"
	while IFS= read -r f; do
		[ ! -e "$f" ] || cp -r "$f" "$2/"
	done < <(kit_stage_log_files "$1")
}

kit_put_back_stage_logs() { # ID DIR
	local f
	while IFS= read -r f; do
		rm -rf "$f"
	done < <(kit_stage_log_files "$1")
	cp -r "$2"/. "$(kit_build_path logs)/" 2>/dev/null || true
}
