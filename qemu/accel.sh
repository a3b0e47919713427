#!/usr/bin/env bash
# Which accelerator the guests use: "kvm" when /dev/kvm is usable by this
# user (it opens and answers KVM_GET_API_VERSION with 12), "tcg" otherwise.
# KIT_ACCEL=tcg or KIT_ACCEL=kvm forces one (kvm then fails if unusable).
# --why prints it for people, with the reason: "KVM (/dev/kvm usable)",
# "TCG (no /dev/kvm)" ...
# Usage: accel.sh [--why]
set -euo pipefail

why=
case "${KIT_ACCEL:-auto}" in
tcg) accel=tcg why="KIT_ACCEL=tcg" ;;
kvm | auto)
	if [ ! -e /dev/kvm ]; then
		accel=tcg why="no /dev/kvm"
	elif perl -e 'open(my $f, "+<", "/dev/kvm") or exit 1; my $v = ioctl($f, 0xAE00, 0); exit(($v // -1) == 12 ? 0 : 1)' 2>/dev/null; then
		accel=kvm why="/dev/kvm usable"
	else
		accel=tcg why="/dev/kvm not usable by $(id -un)"
	fi
	if [ "${KIT_ACCEL:-auto}" = kvm ] && [ "$accel" != kvm ]; then
		echo "error: KIT_ACCEL=kvm, but $why" >&2
		exit 1
	fi
	;;
*)
	echo "error: KIT_ACCEL=${KIT_ACCEL} (use auto, kvm or tcg)" >&2
	exit 2
	;;
esac
if [ "${1:-}" = --why ]; then
	echo "${accel^^} ($why)"
else
	echo "$accel"
fi
