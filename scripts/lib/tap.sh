#!/usr/bin/env bash
# TAP helpers for the scripts that print their own TAP (check-static,
# check-cocci, run-bench, run-stress). Source it; it sets the counters
# passed, failed, skipped and n (the last test's number), and defines:
#   result RC DESCRIPTION [DETAIL]   "ok N - ..." when RC is 0, else "not ok N
#                                    - ..." followed by DETAIL's last 15 lines
#                                    (TAP_DETAIL=head: its first 15) as comments
#   skip DESCRIPTION REASON          "ok N - DESCRIPTION # SKIP REASON"
# shellcheck disable=SC2034 # the counters are read by the sourcing script
passed=0 failed=0 skipped=0 n=0

result() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n - $2"
		passed=$((passed + 1))
	else
		echo "not ok $n - $2"
		[ -z "${3:-}" ] || echo "$3" | "${TAP_DETAIL:-tail}" -n 15 | sed 's/^/#   /'
		failed=$((failed + 1))
	fi
}

skip() {
	n=$((n + 1)) skipped=$((skipped + 1))
	echo "ok $n - $1 # SKIP $2"
}
