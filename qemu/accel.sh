#!/usr/bin/env bash
# Which accelerator the guests use: "kvm" when a guest has been seen to run
# under KVM on this boot of the machine, "tcg" (QEMU's emulation) otherwise.
# A /dev/kvm that opens is not enough: half-working nested KVM (a laptop VM,
# a cloud VM, WSL2) opens and then stops the guest early in its boot, so
# qemu/accel-probe.sh boots a guest under KVM that must reach user space
# within seconds. The probe runs once per boot of the machine and user; its
# answer is kept in build/accel/probe-UID, keyed by
# /proc/sys/kernel/random/boot_id. It boots KERNEL, else the kit's built
# 6.12 (or mainline) kernel; before any kernel is built the answer is TCG,
# "not probed yet", and nothing is kept.
# KIT_ACCEL=tcg forces TCG. KIT_ACCEL=kvm forces KVM without the probe (it
# fails only where there is no /dev/kvm this user can open).
# --why prints it for people, with the reason, in one line:
#   "KVM (a guest reached user space in 0.8 s)", "TCG (no /dev/kvm)",
#   "TCG (KVM present but a guest could not run: emulation failure)"
# Test seams (make check-static's stubbed probes): KIT_ACCEL_STATE is the file
# the answer is kept in, KIT_BOOT_ID the boot's id, KIT_KVM_DEVICE replaces
# /dev/kvm; and accel-probe.sh's KIT_QEMU.
# Usage: accel.sh [--why] [--kernel KERNEL]
set -euo pipefail

here=$(dirname "$(realpath "$0")")
kit_root=$(dirname "$here")
# shellcheck source=qemu/machine.sh
. "$here/machine.sh"
why_wanted=0 kernel=
while [ $# -gt 0 ]; do
	case "$1" in
	--why) why_wanted=1 ;;
	--kernel) kernel=${2:?--kernel needs a file} && shift ;;
	*) echo "usage: accel.sh [--why] [--kernel KERNEL]" >&2 && exit 2 ;;
	esac
	shift
done
device=${KIT_KVM_DEVICE:-/dev/kvm}

say() { # ACCEL WHY
	if [ "$why_wanted" = 1 ]; then echo "${1^^} ($2)"; else echo "$1"; fi
}

# This boot's probe answer: "kvm REASON" or "tcg REASON"; empty when no
# kernel can be booted to ask.
probe_answer() {
	local state boot_id line
	state=${KIT_ACCEL_STATE:-$kit_root/build/accel/probe-$(id -u)}
	boot_id=${KIT_BOOT_ID:-$(cat /proc/sys/kernel/random/boot_id 2>/dev/null || echo unknown)}
	if [ -n "$kernel" ] && [ ! -f "$kernel" ]; then
		kernel=
	elif [ -z "$kernel" ]; then
		for k in "$kit_root/build/kernel" "$kit_root/build/kernel-mainline"; do
			[ ! -f "$(kit_kernel_image "$k")" ] || { kernel=$(kit_kernel_image "$k") && break; }
		done
	fi
	mkdir -p "$(dirname "$state")"
	# One probe at a time: make check boots guests side by side, and the
	# first one probes while the others wait for its answer.
	exec 9>>"$state.lock"
	flock 9
	line=$(sed -n "s/^$boot_id //p" "$state" 2>/dev/null || true)
	if [ -z "$line" ] && [ -n "$kernel" ]; then
		line=$("$here/accel-probe.sh" "$kernel" "$(dirname "$state")")
		case "$line" in
		kvm\ * | tcg\ *) echo "$boot_id $line" >"$state" ;;
		*) line="tcg the KVM probe failed: $line" ;;
		esac
	fi
	exec 9>&-
	echo "$line"
}

case "${KIT_ACCEL:-auto}" in
tcg) say tcg "KIT_ACCEL=tcg" ;;
kvm)
	if [ ! -e "$device" ] || [ ! -r "$device" ] || [ ! -w "$device" ]; then
		echo "error: KIT_ACCEL=kvm, but $device $([ -e "$device" ] && echo "cannot be opened by $(id -un)" || echo "does not exist")" >&2
		exit 1
	fi
	say kvm "KIT_ACCEL=kvm, not probed"
	;;
auto)
	if [ ! -e "$device" ]; then
		say tcg "no /dev/kvm"
		exit 0
	fi
	if [ ! -r "$device" ] || [ ! -w "$device" ]; then
		read -r mode owner group < <(stat -c '%a %U %G' "$device")
		if [ $(((8#$mode >> 3) & 6)) = 6 ]; then
			say tcg "/dev/kvm not usable by $(id -un): join group $group with sudo adduser $(id -un) $group, then log in again"
		else
			say tcg "/dev/kvm not usable by $(id -un): mode $mode, only $owner may open it"
		fi
		exit 0
	fi
	line=$(probe_answer)
	if [ -z "$line" ]; then
		say tcg "KVM present, not probed yet: no kernel built to boot"
	else
		say "${line%% *}" "${line#* }"
	fi
	;;
*)
	echo "error: KIT_ACCEL=${KIT_ACCEL} (use auto, kvm or tcg)" >&2
	exit 2
	;;
esac
