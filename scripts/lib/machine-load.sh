#!/usr/bin/env bash
# Was the machine otherwise idle while this script did a piece of work? The
# machine's busy CPU time (/proc/stat: user, nice, system, irq, softirq) and
# the time its host gave to other guests (steal), against the CPU time of
# this shell's own finished children (bash's `times`). scripts/kernel/kernel.sh
# labels every kernel build with it, scripts/dev/fresh-machine-test.sh a
# whole run. Source it:
#   kit_load_mark FILE    (run it in the working shell itself, not in $(...):
#                         `times` there would see only the subshell's
#                         children) appends "BUSY STEAL OURS SECONDS" to FILE
#   kit_load_label FILE   from FILE's first and last marks: "alone", or
#                         "beside other work: 1.2 of 2 cores busy with it"
#                         (", 0.4 taken by the host" where steal counts)
# A figure is "alone" when other work and steal each stayed under 0.2 cores.

kit_load_mark() { # FILE
	local busy steal ours
	read -r busy steal < <(awk '/^cpu / { print $2 + $3 + $4 + $7 + $8, $9; exit }' /proc/stat)
	times >"$1.times"
	ours=$(awk 'NR == 2 { t = 0; for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); t += a[1] * 60 + a[2] } print t }' "$1.times")
	rm -f "$1.times"
	echo "$busy $steal $ours $(date +%s.%N)" >>"$1"
}

kit_load_label() { # FILE
	awk -v hz="$(getconf CLK_TCK)" -v n="$(nproc)" '
		NR == 1 { b0 = $1; s0 = $2; o0 = $3; t0 = $4 }
		{ b1 = $1; s1 = $2; o1 = $3; t1 = $4 }
		END {
			t = t1 - t0; if (t <= 0) t = 1
			other = ((b1 - b0) / hz - (o1 - o0)) / t; stolen = (s1 - s0) / hz / t
			if (other < 0) other = 0
			if (other < 0.2 && stolen < 0.2) { print "alone"; exit }
			printf "beside other work: %.1f of %d cores busy with it", other + stolen, n
			if (stolen >= 0.2) printf ", %.1f taken by the host", stolen
			printf "\n"
		}' "$1"
}
