#!/usr/bin/env bash
# Fail (exit 1) and print the offending lines if a console log shows a kernel
# warning, bug, oops, call trace, panic, lockdep report, list corruption or bad
# page, or x86 PAT freeing a memory type it never reserved (a leaked
# reservation).
# Usage: scan-kernel-log.sh CONSOLE_LOG
set -euo pipefail

pattern='WARNING:|BUG:|Oops|list_add corruption|list_del corruption|Bad page|Call Trace|kernel BUG|Kernel panic|INFO: possible|INFO: lockdep|possible recursive locking|inconsistent lock state|circular locking|UBSAN:|general protection fault|freeing invalid memtype'
if grep -aE "$pattern" "$1"; then
	exit 1
fi
exit 0
