#!/usr/bin/env bash
# Run `make boot STAGE=ID` as a learner at its shell would: the guest's
# console is fed from a pipe, the commands are typed once the shell is up,
# then `exit` powers the guest off. Each command's output is preceded by a
# line "=== N" (N = 1, 2, ...), printed by the guest, so that it can be told
# apart from the echo of what was typed (see boot_section below). The whole
# console goes to OUTPUT. Fails if make boot fails, or does not finish within
# KIT_BOOT_TIMEOUT seconds (default 180).
# Sourced, boot_section OUTPUT N prints the output of command N.
# Usage: replay-boot.sh ID OUTPUT COMMAND...

boot_section() { # OUTPUT N
	tr -d '\r' <"$1" | awk -v want="=== $2" '/^=== [0-9]+$/ { on = ($0 == want); next } on'
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	set -euo pipefail
	[ $# -ge 2 ] || { echo "usage: $0 ID OUTPUT COMMAND..." >&2; exit 2; }
	id=$1 out=$2
	shift 2
	top=$(cd "$(dirname "$0")/../.." && pwd)
	pipe=$(mktemp -u "${TMPDIR:-/tmp}/kit-boot-input.XXXXXX")
	mkfifo "$pipe"
	trap 'rm -f "$pipe"' EXIT
	: >"$out"
	cd "$top"
	timeout --kill-after=10 "${KIT_BOOT_TIMEOUT:-180}" make boot STAGE="$id" <"$pipe" >"$out" 2>&1 &
	pid=$!
	# The write end stays open until QEMU is gone: no end of file reaches
	# the guest before its shell has read everything.
	exec {keyboard}>"$pipe"
	while ! grep -q 'Leave the shell' "$out" && kill -0 "$pid" 2>/dev/null; do
		sleep 0.2
	done
	i=0
	for command; do
		i=$((i + 1))
		printf "printf '=== %%s\\\\n' %d; %s\\n" "$i" "$command" >&"$keyboard"
	done
	echo exit >&"$keyboard"
	rc=0
	wait "$pid" || rc=$?
	exec {keyboard}>&-
	if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		echo "error: make boot STAGE=$id did not finish within ${KIT_BOOT_TIMEOUT:-180}s" >&2
	fi
	exit "$rc"
fi
