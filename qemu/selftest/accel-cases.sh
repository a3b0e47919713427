#!/usr/bin/env bash
# The accelerator chooser (qemu/accel.sh and its probe, qemu/accel-probe.sh)
# against stubs, whatever this machine has: no /dev/kvm, a /dev/kvm this user
# cannot open, a KVM whose guest cannot run (an emulation failure, QEMU
# aborting on an MSR, a kernel that never prints, one that hangs before user
# space), and a working KVM. A stub device file
# stands in for /dev/kvm (KIT_KVM_DEVICE) and a stub script for QEMU
# (KIT_QEMU); the probe's answer is kept in a file of the test's own
# (KIT_ACCEL_STATE), so the machine's own answer is neither used nor changed.
# KIT_ACCEL of the caller's environment is ignored: each case sets its own.
# Also: the answer is remembered for the boot (one probe, however many guests
# ask at once) and asked again on the next boot (KIT_BOOT_ID); a failing KVM
# is told within seconds, not at the probe's timeout.
# Prints one line per case and exits 1 if any answer is wrong. check-static
# runs it.
# Usage: accel-cases.sh
set -euo pipefail

here=$(dirname "$(realpath "$0")")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
# The chooser and its probe are run from a copy in the test's own folder:
# the cases asked as nobody must reach them wherever the kit lives (a
# clone in a mktemp -d folder is closed to other users).
mkdir "$tmp/qemu"
cp "$here/../accel.sh" "$here/../accel-probe.sh" "$here/../machine.sh" "$tmp/qemu/"
chooser=$tmp/qemu/accel.sh
touch "$tmp/vmlinux" "$tmp/kvm"
chmod 666 "$tmp/kvm"

# Stub QEMUs: each counts its runs in its calls file, then does what a QEMU
# on such a machine does.
stub() { # NAME BODY
	printf '#!/bin/sh\necho run >>"%s/%s.calls"\n%s\n' "$tmp" "$1" "$2" >"$tmp/$1"
	chmod 755 "$tmp/$1"
}
stub works 'echo "Run /init as init process"; echo KIT-ACCEL-PROBE-USER-SPACE; exit 0'
stub emulation 'echo "KVM internal error. Suberror: 1"; echo "emulation failure"; echo "RAX=0000000000000000 RIP=ffffffff81001234"; sleep 600'
stub msr 'echo "qemu-system-x86_64: error: failed to set MSR 0x10a to 0x69" >&2; echo "qemu-system-x86_64: ../target/i386/kvm/kvm.c:3225: kvm_buf_set_msrs: Assertion failed." >&2; exit 134'
stub silent 'echo "Booting from ROM..."; sleep 600'
stub stuck 'echo "[    0.000000] Linux version 6.12.0 (kit@probe)"; sleep 600'
stub slow-works 'sleep 1; echo KIT-ACCEL-PROBE-USER-SPACE; exit 0'

calls() { # STUB: how many times it ran
	if [ -f "$tmp/$1.calls" ]; then wc -l <"$tmp/$1.calls"; else echo 0; fi
}
bad=0
n=0
# case_is NAME WANT_PATTERN [VAR=VALUE...] -- ACCEL_SH_ARGS...: runs the
# chooser with a state file and boot of the case's own; WANT is a glob the
# output (stdout and stderr, then "exit N") must match.
case_is() {
	local name=$1 want=$2 got rc=0
	shift 2
	local env=()
	while [ "$1" != -- ]; do env+=("$1") && shift; done
	shift
	n=$((n + 1))
	got=$(env -u KIT_ACCEL KIT_ACCEL_STATE="$tmp/case-$n/state" KIT_BOOT_ID=boot-a KIT_ACCEL_PROBE_TIMEOUT=3 KIT_ACCEL_PROBE_SILENT=1 \
		KIT_KVM_DEVICE="$tmp/kvm" "${env[@]}" "$chooser" "$@" 2>&1) || rc=$?
	got="$got; exit $rc"
	# shellcheck disable=SC2053 # WANT is a glob
	if [[ "$got" == $want ]]; then
		echo "ok: $name: $got"
	else
		echo "WRONG: $name: got \"$got\", expected \"$want\""
		bad=1
	fi
}
k=(--kernel "$tmp/vmlinux")

# No /dev/kvm.
case_is "no /dev/kvm" "TCG (no /dev/kvm); exit 0" KIT_KVM_DEVICE="$tmp/none" -- --why "${k[@]}"
case_is "no /dev/kvm, KIT_ACCEL=kvm refused" "error: KIT_ACCEL=kvm, but $tmp/none does not exist; exit 1" \
	KIT_KVM_DEVICE="$tmp/none" KIT_ACCEL=kvm -- "${k[@]}"
case_is "no /dev/kvm, KIT_ACCEL=tcg" "tcg; exit 0" KIT_KVM_DEVICE="$tmp/none" KIT_ACCEL=tcg -- "${k[@]}"
# A /dev/kvm this user cannot open: asked as nobody when run as root (root
# opens anything); with group access the reason names the group to join,
# without it the owner.
# As another user the file is the user's own: its owner bits must shut it.
as=() modes="060 000"
[ "$(id -u)" != 0 ] || as=(setpriv --reuid=nobody --regid=nogroup --clear-groups) modes="660 600"
for mode in $modes; do
	touch "$tmp/kvm.$mode"
	chmod "$mode" "$tmp/kvm.$mode"
	got=$("${as[@]}" env -u KIT_ACCEL KIT_ACCEL_STATE="$tmp/none/state" KIT_KVM_DEVICE="$tmp/kvm.$mode" KIT_QEMU="$tmp/works" \
		"$chooser" --why "${k[@]}" 2>&1) || got="$got; exit $?"
	case $mode in
	?6?) want="TCG (/dev/kvm not usable by *: join group * with sudo adduser * *, then log in again)" ;;
	*) want="TCG (/dev/kvm not usable by *: mode *, only * may open it)" ;;
	esac
	# shellcheck disable=SC2053 # WANT is a glob
	if [[ "$got" == $want ]] && [ ! -e "$tmp/works.calls" ]; then
		echo "ok: /dev/kvm this user cannot open, mode $mode: $got"
	else
		echo "WRONG: /dev/kvm this user cannot open, mode $mode: got \"$got\"$([ ! -e "$tmp/works.calls" ] || echo ", and the probe ran")"
		bad=1
	fi
done

# A KVM whose guests cannot run: told quickly, not at the probe's timeout
# (3 s here) where QEMU says why.
start=$SECONDS
case_is "KVM with an emulation failure" "TCG (KVM present but a guest could not run: emulation failure); exit 0" \
	KIT_QEMU="$tmp/emulation" -- --why "${k[@]}"
if [ $((SECONDS - start)) -ge 3 ]; then
	echo "WRONG: the emulation failure was told after $((SECONDS - start)) s, at the probe's timeout"
	bad=1
fi
case_is "KVM where QEMU aborts on an MSR" "TCG (KVM present but a guest could not run: QEMU aborted: failed to set MSR 0x10a); exit 0" \
	KIT_QEMU="$tmp/msr" -- --why "${k[@]}"
start=$SECONDS
case_is "KVM whose kernel never prints" "TCG (KVM present but a guest could not run: the kernel printed nothing within 1 s); exit 0" \
	KIT_QEMU="$tmp/silent" -- --why "${k[@]}"
if [ $((SECONDS - start)) -ge 3 ]; then
	echo "WRONG: the silent kernel was told after $((SECONDS - start)) s, at the probe's timeout"
	bad=1
fi
case_is "KVM whose kernel prints, then hangs before user space" "TCG (KVM present but a guest could not run: no user space within 3 s); exit 0" \
	KIT_QEMU="$tmp/stuck" -- --why "${k[@]}"
# The probe's own deadlines (empty: the defaults): a KVM whose guest prints
# but has not reached user space by the time TCG's would have, three times
# over, is given up at 5 s, not waited for.
start=$SECONDS
case_is "KVM whose kernel prints but crawls, the probe's default deadlines" \
	"TCG (KVM present but a guest could not run: no user space within 5 s); exit 0" \
	KIT_ACCEL_PROBE_TIMEOUT= KIT_ACCEL_PROBE_SILENT= KIT_QEMU="$tmp/stuck" -- --why "${k[@]}"
if [ $((SECONDS - start)) -gt 6 ]; then
	echo "WRONG: the crawling KVM was told after $((SECONDS - start)) s, not at 5 s"
	bad=1
fi
case_is "a KVM that cannot run guests, KIT_ACCEL=kvm forces it" "kvm; exit 0" KIT_QEMU="$tmp/silent" KIT_ACCEL=kvm -- "${k[@]}"
case_is "a KVM that cannot run guests, KIT_ACCEL=tcg" "tcg; exit 0" KIT_QEMU="$tmp/silent" KIT_ACCEL=tcg -- "${k[@]}"

# A working KVM.
case_is "a working KVM" "KVM (a guest reached user space in * s); exit 0" KIT_QEMU="$tmp/works" -- --why "${k[@]}"
case_is "a working KVM, KIT_ACCEL=tcg" "TCG (KIT_ACCEL=tcg); exit 0" KIT_QEMU="$tmp/works" KIT_ACCEL=tcg -- --why "${k[@]}"
case_is "a working KVM, KIT_ACCEL=kvm" "kvm; exit 0" KIT_QEMU="$tmp/works" KIT_ACCEL=kvm -- "${k[@]}"
case_is "a bad KIT_ACCEL refused" "error: KIT_ACCEL=bogus (use auto, kvm or tcg); exit 2" KIT_ACCEL=bogus -- "${k[@]}"
case_is "no kernel to probe with" "TCG (KVM present, not probed yet: no kernel built to boot); exit 0" \
	KIT_QEMU="$tmp/works" -- --why --kernel "$tmp/no-vmlinux"

# Remembered for the boot: three guests asking at once probe once; the
# next boot probes again.
rm -f "$tmp/slow-works.calls"
state=(KIT_ACCEL_STATE="$tmp/state-shared" KIT_KVM_DEVICE="$tmp/kvm" KIT_QEMU="$tmp/slow-works")
for i in 1 2 3; do
	env -u KIT_ACCEL "${state[@]}" KIT_BOOT_ID=boot-a "$chooser" "${k[@]}" >"$tmp/together-$i" 2>&1 &
done
wait
got="$(cat "$tmp"/together-* | tr '\n' ' ')probes: $(calls slow-works)"
env -u KIT_ACCEL "${state[@]}" KIT_BOOT_ID=boot-b "$chooser" "${k[@]}" >/dev/null
got+=", after a reboot: $(calls slow-works)"
if [ "$got" = "kvm kvm kvm probes: 1, after a reboot: 2" ]; then
	echo "ok: one probe a boot: $got"
else
	echo "WRONG: one probe a boot: got \"$got\", expected \"kvm kvm kvm probes: 1, after a reboot: 2\""
	bad=1
fi
exit "$bad"
