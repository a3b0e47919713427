#!/usr/bin/env bash
# Readers of a guest's console log, for the scripts that boot a guest of
# their own (qemu/run-stage.sh, scripts/perf/bench.sh, scripts/perf/stress.sh):
# the markers are those qemu/guest-init.sh prints. Source it.
#   kit_log_section LOG NAME   the lines of the TAP section NAME
#   kit_guest_finished LOG     succeeds if the guest ran to its last line

kit_log_section() { # LOG NAME
	tr -d '\r' <"$1" | awk -v name="$2" '
		$0 == "### KIT TAP BEGIN " name { on = 1; next }
		/^### KIT TAP END / && $5 == name { on = 0 }
		on'
}

kit_guest_finished() { # LOG
	grep -q '^### KIT GUEST DONE' < <(tr -d '\r' <"$1")
}
