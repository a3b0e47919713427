#!/usr/bin/env bash
# make fresh-machine-test SUITE=trixie: prove `make` then `make check` from
# nothing on a fresh Debian machine of that release. It is a minbase
# debootstrap chroot of SUITE (bookworm or trixie, any release with a list in
# scripts/setup/releases/) whose apt sources are this machine's Debian mirror
# for SUITE, written inside the chroot only (the host's sources are never
# touched). Inside, as root, only `make` is installed by hand, into a fresh
# clone of this repository with ../shared beside it; `make` installs the
# rest. Prints the time of each part and records it, with make check's
# closing line, in Documentation/measured-releases.txt.
# Usage: fresh-machine-test.sh SUITE [CHROOT_DIR]   (root; not part of make check)
# CHROOT_DIR defaults to /var/tmp/kit-fresh-SUITE, kept for re-runs (only the
# clone inside is made anew each time).
set -euo pipefail

suite=${1:?usage: fresh-machine-test.sh SUITE [CHROOT_DIR]}
root=$(realpath -m "${2:-/var/tmp/kit-fresh-$suite}")
top=$(realpath "$(dirname "$0")/../..")
[ -f "$top/scripts/setup/releases/$suite.txt" ] ||
	{ echo "error: no package list for $suite in scripts/setup/releases/" >&2; exit 1; }
[ "$(id -u)" = 0 ] || { echo "error: run as root (debootstrap, chroot, mount)" >&2; exit 1; }
command -v debootstrap >/dev/null || { echo "error: debootstrap is missing: apt-get install debootstrap" >&2; exit 1; }

# This machine's Debian mirror (and its security mirror), as apt knows them.
uris=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null |
	grep -oE 'https?://[^ ]*debian[^ ]*' | sort -u || true)
mirror=$(grep -v security <<<"$uris" | head -n 1 || true)
security=$(grep security <<<"$uris" | head -n 1 || true)
[ -n "$mirror" ] || { echo "error: no Debian mirror in this machine's apt sources" >&2; exit 1; }

if [ ! -x "$root/bin/bash" ]; then
	echo ">> debootstrap --variant=minbase $suite into $root (from $mirror)"
	debootstrap --variant=minbase "$suite" "$root" "$mirror" >"$root.debootstrap.log" 2>&1 ||
		{ echo "error: debootstrap failed; see $root.debootstrap.log" >&2; exit 1; }
fi
rm -f "$root"/etc/apt/sources.list.d/*
{
	echo "deb $mirror $suite main"
	echo "deb $mirror $suite-updates main"
	[ -z "$security" ] || echo "deb $security $suite-security main"
} >"$root/etc/apt/sources.list"

mounts=()
# shellcheck disable=SC2317 # run by the EXIT trap
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
commit=$(git -C "$root/kit/main" rev-parse --short HEAD)
[ ! -d "$top/../shared" ] || cp -r "$top/../shared" "$root/kit/shared"
echo ">> Debian $suite chroot $root: clone of $commit in /kit/main"

rc=0
# The script runs inside the chroot: its variables expand there.
# shellcheck disable=SC2016
chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root TERM=dumb /bin/bash -c '
	set -euo pipefail
	t0=$(date +%s)
	apt-get update -q >/dev/null
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q make >/dev/null
	t1=$(date +%s)
	echo ">> make installed by hand in $((t1 - t0)) s"
	cd /kit/main
	make
	t2=$(date +%s)
	echo ">> make took $((t2 - t1)) s"
	rc=0
	make check 2>&1 | tee /kit/check.log || rc=$?
	t3=$(date +%s)
	echo ">> make check took $((t3 - t2)) s (exit $rc)"
	echo "make=$((t2 - t1)) check=$((t3 - t2)) rc=$rc" >/kit/fresh-times
	exit "$rc"
' || rc=$?
[ -f "$root/kit/fresh-times" ] || { echo "error: make failed in the $suite chroot (exit $rc)" >&2; exit 1; }
# One line per release in Documentation/measured-releases.txt (make
# record-times shows them in the README and the guide): what a fresh machine
# of that release took, and make check's closing line.
summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$root/kit/check.log" | tail -n 1)
line="$suite $(cat "$root/kit/fresh-times") commit=$commit date=$(date -u +%F) accel=$("$top/qemu/accel.sh") cores=$(nproc) summary=${summary// /_}"
data="$top/Documentation/measured-releases.txt"
{ grep -v "^$suite " "$data" 2>/dev/null || true; echo "$line"; } | sort >"$data.new" && mv "$data.new" "$data"
echo ">> fresh Debian $suite: $line"
echo ">> recorded in ${data#"$top"/}; make record-times puts it into the README and the guide"
exit "$rc"
