#!/usr/bin/env bash
# Fail (exit 1) and print the offending lines if a console log shows a kernel
# warning, bug, oops, call trace, panic, lockdep report, list corruption or bad
# page, x86 PAT freeing a memory type it never reserved (a leaked
# reservation), or a report of the sanitizer profile's kernels (KASAN and
# page_table_check say BUG, UBSAN says UBSAN:, kmemleak lists each
# "unreferenced object" at the end of the guest: qemu/guest-init.sh).
#
# One exception, for a test that proves a kernel warns: between the lines
#   kit-expect-warning: begin ERE
#   kit-expect-warning: end
# that a check writes to /dev/kmsg (lab_expect_warning_begin/end), exactly one
# warning block ("cut here" to "end trace") whose WARNING: line matches ERE
# is expected and left out of the scan. None, or more than one, is reported;
# so is any other warning in the window, and a window left open.
# Usage: scan-kernel-log.sh CONSOLE_LOG
set -euo pipefail

# What a kernel report looks like, and the part of it that a warning block of
# its own also has (its WARNING: line and its call trace).
pattern='WARNING:|BUG:|Oops|list_add corruption|list_del corruption|Bad page|Call Trace|kernel BUG|Kernel panic|INFO: possible|INFO: lockdep|possible recursive locking|inconsistent lock state|circular locking|UBSAN:|general protection fault|freeing invalid memtype|unreferenced object|kit-expect-warning:'
own='WARNING:|Call Trace'

# The log without the expected warning blocks, with a line of its own for
# every window whose expectation failed. In an expected block, a line of
# any other report (printed in between by another CPU or an interrupt)
# stays in.
without_expected() {
	awk -v pattern="$pattern" -v own="$own" '
	function flush(   i) { for (i = 1; i <= n; i++) print block[i]; n = 0 }
	function close_window() {
		if (seen != 1)
			printf "kit-expect-warning: expected one warning matching /%s/, saw %d\n", want, seen
		open = 0
	}
	{ sub(/\r$/, "") }
	/kit-expect-warning: begin / {
		flush(); inblock = 0
		if (open) {
			print "kit-expect-warning: a begin inside an open window: expected its end first"
			close_window()
		}
		sub(/.*kit-expect-warning: begin /, ""); want = $0; open = 1; seen = 0; next
	}
	/kit-expect-warning: end/ {
		flush(); inblock = 0
		if (!open)
			print "kit-expect-warning: an end with no begin: expected nothing"
		else
			close_window()
		next
	}
	open && /-+\[ cut here \]-+/ { flush(); inblock = 1; matched = 0 }
	inblock {
		block[++n] = $0
		if ($0 ~ /WARNING:/ && $0 ~ want)
			matched = 1
		if ($0 ~ /---\[ end trace/) {
			if (matched) {
				seen++
				for (i = 1; i <= n; i++)
					if (block[i] ~ pattern && block[i] !~ own)
						print block[i]
				n = 0
			} else
				flush()
			inblock = 0
		}
		next
	}
	{ print }
	END {
		flush()
		if (open)
			printf "kit-expect-warning: window for /%s/ left open (no end line): expected an end\n", want
	}' "$1"
}

# awk stops on an ERE it cannot compile (a begin line garbled on the
# console): then nothing after that point was read, which is a finding too.
filtered=$(without_expected "$1") || {
	echo "kit-expect-warning: the scanner stopped (awk status $?) before the end of the log"
	exit 1
}
if grep -aE "$pattern" <<<"$filtered"; then
	exit 1
fi
exit 0
