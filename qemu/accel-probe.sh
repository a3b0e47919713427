#!/usr/bin/env bash
# Can a guest run under KVM here, and faster than under TCG? Boots KERNEL
# (an image qemu/machine.sh's kit_kernel_image names) under KVM with a
# one-line /init (busybox) and waits, at most KIT_ACCEL_PROBE_TIMEOUT seconds
# (5), for that /init to print its mark: a kernel that reaches user space has
# passed the early boot that half-working nested KVM cannot run (an
# "emulation failure" at an xrstor, QEMU aborting on an MSR). Under TCG the
# same guest prints its mark 1.5 s after QEMU starts (2-core machine, idle),
# so a KVM that needs more than 5 s is slower than the emulation it would
# replace: on the kit's own machines KVM runs the guest, but at a crawl (0.6 s
# of guest boot in the first 3 s; the emulation failure after 15-20 s), and
# waiting for it cost 15 s of a core at the first guest of every fresh
# clone. The kernel prints from its first moments (earlycon): one that has
# printed nothing after KIT_ACCEL_PROBE_SILENT seconds (3) never started, the
# way some nested KVM fails, its vCPU spinning in the host kernel; under TCG
# its first line comes 0.5 s after QEMU starts. The guest gets QEMU's
# default CPU and the machine of qemu/boot.sh's guests (qemu/machine.sh).
# Prints one line: "kvm REASON" when the guest ran, "tcg REASON" when it
# did not, e.g. "tcg KVM present but a guest could not run: emulation failure".
# Exits 0 either way; 2 on a usage error.
# qemu/accel.sh runs it once per boot of this machine and remembers the line.
# qemu/accel.sh has checked that /dev/kvm exists and that this user can open it.
# Test seam (make check-static's stubbed probes): KIT_QEMU replaces
# qemu-system-x86_64.
# Usage: accel-probe.sh KERNEL WORKDIR   (WORKDIR: where the probe's
# initramfs and console log are kept)
set -euo pipefail

kernel=${1:?usage: accel-probe.sh KERNEL WORKDIR} workdir=${2:?usage: accel-probe.sh KERNEL WORKDIR}
qemu=${KIT_QEMU:-qemu-system-x86_64}
# shellcheck source=qemu/machine.sh
. "$(dirname "$(realpath "$0")")/machine.sh"
timeout_s=${KIT_ACCEL_PROBE_TIMEOUT:-5}
silent_s=${KIT_ACCEL_PROBE_SILENT:-3}
# The kernel's first line (start_kernel's banner, replayed by earlycon).
first_line='Linux version'
mark=KIT-ACCEL-PROBE-USER-SPACE

[ -f "$kernel" ] || { echo "error: accel-probe.sh: no kernel image $kernel" >&2; exit 2; }

# The probe's initramfs: busybox and an /init that prints the mark and
# reboots (QEMU's -no-reboot then exits). Made once, kept in WORKDIR.
mkdir -p "$workdir"
initrd=$workdir/probe.cpio
if [ ! -s "$initrd" ]; then
	root=$(mktemp -d)
	trap 'rm -rf "$root"' EXIT
	mkdir -p "$root/bin"
	cp /bin/busybox "$root/bin/busybox"
	ln -s busybox "$root/bin/sh"
	printf '#!/bin/sh\n/bin/busybox echo %s\n/bin/busybox reboot -f\n' "$mark" >"$root/init"
	chmod 755 "$root/init"
	(cd "$root" && find . -print0 | cpio --null -o -H newc --owner=0:0 --quiet) >"$initrd.tmp"
	mv "$initrd.tmp" "$initrd"
fi

log=$workdir/probe.log
# QEMU in the background, its console watched: the probe ends as soon as the
# mark or a known failure shows (after an emulation failure KVM stops the
# guest, and QEMU would wait for ever).
failures='emulation failure|failed to set MSR|KVM internal error|Permission denied|failed to initiali[sz]e (kvm|KVM)'
# Emptied here, before QEMU starts: the loop below must not read a former
# probe's log.
: >"$log"
start=$(date +%s.%N)
"$qemu" -accel kvm -smp 1,sockets=1 "${kit_machine[@]}" \
	-kernel "$kernel" -initrd "$initrd" -append "$kit_cmdline earlycon=uart8250,io,0x3f8" </dev/null >>"$log" 2>&1 &
pid=$!
rc="" silent=""
deadline=$((SECONDS + timeout_s)) first_deadline=$((SECONDS + silent_s))
while [ "$SECONDS" -lt "$deadline" ]; do
	if [ "$SECONDS" -ge "$first_deadline" ] && ! grep -q "$first_line" "$log"; then
		silent=1
		break
	fi
	if ! kill -0 "$pid" 2>/dev/null; then
		rc=0
		wait "$pid" || rc=$?
		break
	fi
	! grep -qE "$mark|$failures" "$log" || break
	sleep 0.2
done
if [ -z "$rc" ]; then
	kill -9 "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	rc=timeout
fi
seconds=$(printf '%.1f' "$(echo "$(date +%s.%N) - $start" | bc)")
log_text=$(tr -d '\r' <"$log")

if grep -q "$mark" <<<"$log_text"; then
	echo "kvm a guest reached user space in $seconds s"
	exit 0
fi
# Why not, in QEMU's own words where it said one of the known ones.
case "$log_text" in
*"emulation failure"*) why="emulation failure" ;;
*"failed to set MSR"*) why="QEMU aborted: $(grep -o -m 1 'failed to set MSR [^ ]*' <<<"$log_text")" ;;
*"Permission denied"*) why="permission denied on /dev/kvm" ;;
*"KVM internal error"*) why="KVM internal error" ;;
*"failed to initialize kvm"* | *"failed to initialize KVM"*) why="QEMU could not initialise KVM" ;;
*)
	if [ -n "$silent" ]; then
		why="the kernel printed nothing within $silent_s s"
	elif [ "$rc" = timeout ]; then
		why="no user space within $timeout_s s"
	else
		last=$(grep -v '^\s*$' <<<"$log_text" | tail -n 1 | cut -c 1-80)
		why="QEMU exited with $rc before user space${last:+: $last}"
	fi
	;;
esac
echo "tcg KVM present but a guest could not run: $why"
