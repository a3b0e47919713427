#!/usr/bin/env bash
# Boot a guest with QEMU's edu device and a hard timeout, under KVM when a
# guest has been seen to run under it on this boot of the machine, TCG
# otherwise (qemu/accel.sh decides, probing once; KIT_ACCEL=tcg or kvm forces
# one). The machine is qemu/machine.sh's, as the probe's (qemu/accel-probe.sh).
# Usage: boot.sh KERNEL_OBJ_DIR INITRAMFS LOG [EXTRA_CMDLINE]
#        (a kit kernel's build folder; LOG "-" = interactive)
set -euo pipefail

kobj=$1 initrd=$2 log=$3 extra=${4:-}
timeout_s=${KIT_BOOT_TIMEOUT:-180}
here=$(dirname "$(realpath "$0")")
# shellcheck source=qemu/machine.sh
. "$here/machine.sh"
kernel=$(kit_kernel_image "$kobj")
accel=(-accel "$(kit_accel "$("$here/accel.sh" --kernel "$kernel")")")
# KIT_CPUS: virtual CPUs (a stage.conf's STAGE_CPUS; make stress uses 2, which
# TCG runs on two host threads). One socket each: without ACPI the kernel
# finds its CPUs in the firmware's MP table, which lists one processor per
# socket.
cpus=${KIT_CPUS:-1}
qemu=(qemu-system-x86_64 "${accel[@]}" -smp "$cpus,sockets=$cpus" "${kit_machine[@]}" -kernel "$kernel" -initrd "$initrd")
cmdline="$kit_cmdline $extra"

if [ "$log" = - ]; then
	exec "${qemu[@]}" -append "$cmdline kit.shell"
fi
mkdir -p "$(dirname "$log")"
# make check's first guest: the time of its start, for scripts/dev/record-times.sh.
timings="$(dirname "$here")/build/timings"
[ ! -d "$timings" ] || [ -f "$timings/first-boot" ] || date +%s >"$timings/first-boot"
rc=0
timeout --kill-after=10 "$timeout_s" "${qemu[@]}" -append "$cmdline" </dev/null >"$log" 2>&1 || rc=$?
if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
	echo "error: guest did not finish within ${timeout_s}s; console log: $log" >&2
	exit 124
fi
exit "$rc"
