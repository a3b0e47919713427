#!/usr/bin/env bash
# Prove `make check` from nothing: a debootstrap'ed Debian 12 (minbase) chroot
# with this machine's Debian apt sources and a fresh clone of the repository.
# Inside, as root, only `make` itself is installed by hand; `make check` does
# the rest. Prints the time of each part.
# Usage: fresh-machine-test.sh CHROOT_DIR   (run as root; not part of make check)
set -euo pipefail

root=$(realpath -m "$1")
top=$(cd "$(dirname "$0")/.." && pwd)
[ "$(id -u)" = 0 ] || { echo "error: run as root (debootstrap, chroot, mount)" >&2; exit 1; }
command -v debootstrap >/dev/null || { echo "error: apt-get install debootstrap" >&2; exit 1; }

if [ ! -x "$root/bin/bash" ]; then
	echo ">> debootstrap bookworm into $root"
	debootstrap --variant=minbase bookworm "$root" http://deb.debian.org/debian >/dev/null
fi
# The machine's Debian sources only (bookworm, -updates, -security).
rm -f "$root"/etc/apt/sources.list "$root"/etc/apt/sources.list.d/*
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list; do
	[ -f "$f" ] && grep -q 'deb.debian.org' "$f" && cp "$f" "$root/etc/apt/sources.list.d/"
done

mounts=()
cleanup() { for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do umount -l "${mounts[$i]}" || true; done; }
trap cleanup EXIT
for m in proc sys dev dev/pts; do
	mkdir -p "$root/$m"
	mount --bind "/$m" "$root/$m"
	mounts+=("$root/$m")
done
cp /etc/resolv.conf "$root/etc/resolv.conf"

rm -rf "$root/kit"
mkdir -p "$root/kit"
git clone -q "$top" "$root/kit/main"
[ -d "$top/../shared" ] && cp -r "$top/../shared" "$root/kit/shared"

# The script runs inside the chroot: its variables expand there.
# shellcheck disable=SC2016
chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root TERM=dumb /bin/bash -c '
	set -euo pipefail
	start=$(date +%s)
	apt-get update -q >/dev/null
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q make >/dev/null
	echo ">> make installed by hand in $(($(date +%s) - start)) s"
	cd /kit/main
	start=$(date +%s)
	make check
	echo ">> make check from nothing took $(($(date +%s) - start)) s"
'
