#!/usr/bin/env bash
# The guests' virtual machine: qemu/boot.sh boots every guest on it, and the
# KVM probe (qemu/accel-probe.sh) boots its own on the same one. Source it;
# then "${kit_machine[@]}" are QEMU's options for it (after the accelerator
# and the CPUs), $kit_cmdline the kernel's command line, kit_accel ACCEL
# the -accel value, and kit_kernel_image KERNEL_OBJ_DIR names the image to
# boot.
#
# Every guest of make check pays its boot, so the machine starts the kernel
# the shortest way QEMU has: the kernel's ELF image (vmlinux) through its
# PVH entry (CONFIG_PVH, qemu/kernel.config), nothing to decompress, and
# qboot as the firmware, which only hands over to the kernel, where Debian's
# qemu-system-data ships it (SeaBIOS otherwise). Measured on 2026-12-07,
# eight boots of stage 0's guest each, alternating, TCG: 3.07 s of CPU with
# SeaBIOS and bzImage, 2.89 with SeaBIOS and vmlinux, 2.74 with qboot and
# vmlinux. qboot builds the MP table the kernel finds its CPUs in (there is
# no ACPI in the kit's kernels), as SeaBIOS does.

kit_qboot=${KIT_QBOOT:-/usr/share/qemu/qboot.rom}
kit_machine=(-m 512M -nographic -no-reboot -nic none -device edu)
[ ! -f "$kit_qboot" ] || kit_machine+=(-bios "$kit_qboot")

# The kernel's command line, before a guest's own additions.
# noapictimer: the kernel keeps the PIT as its timer (and broadcasts it to a
# second CPU) rather than calibrating the local APIC's timer against it,
# which waits out two 100 ms windows in every boot, a busy loop under TCG.
# Measured on 2026-12-07, the 6.12 kernel to user space and back, six boots
# each, alternating, TCG: 1.27 s of CPU with the APIC timer, 1.00 s
# without; make check boots some 55 guests. The guests' checks do not
# depend on the timer device (make stress's two CPUs run as before).
# shellcheck disable=SC2034 # read by the scripts that source this file
kit_cmdline="console=ttyS0 panic=-1 noapictimer"

# QEMU's -accel value for ACCEL (qemu/accel.sh's answer). Under TCG, a
# translation cache of 256 MB instead of QEMU's default 1 GB: the guests'
# code is a small kernel and the checker, and the smaller cache costs less
# to set up. Measured on 2026-12-07, stage 2's guest, three runs each,
# alternating: 2.49 s of CPU with the default, 2.36 with 256 MB (2.38
# with 64 MB).
kit_accel() { # ACCEL
	if [ "$1" = tcg ]; then echo tcg,tb-size=256; else echo "$1"; fi
}

# The image QEMU boots of the kernel built in KERNEL_OBJ_DIR.
kit_kernel_image() { # KERNEL_OBJ_DIR
	echo "$1/vmlinux"
}
