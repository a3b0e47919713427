#!/usr/bin/env bash
# make fresh-machine-test SUITE=trixie [AS_ROOT=1]: prove `make` then `make
# check` from nothing on a fresh Debian machine of that release. It is a
# minbase debootstrap chroot of SUITE (bookworm or trixie, any release with a
# list in scripts/setup/releases/) whose apt sources are this machine's Debian
# mirror for SUITE, written inside the chroot only (the host's sources are
# never touched); the chroot sees the host's /dev, /dev/kvm included. Inside,
# only `make` is installed by hand, into a fresh clone of this repository
# with ../shared beside it. Then, as the README says:
#   --as user (the default): an ordinary user, "learner" (not root, not in
#     group kvm), runs `make`, which must fail printing the apt-get line;
#     root runs that line; then the user runs `make` and `make check`;
#   --as root: root runs `make` (it installs the packages) and `make check`.
# Prints the time of each part and records it, with the kernel builds, the
# guests' accelerator and make check's closing line, in
# Documentation/measured-releases.txt. A run is labelled "alone" only when
# the machine's busy CPU time during it was the run's own (the script is a
# child subreaper, so the CPU time of the background jobs that make check
# leaves behind counts as its own too) and the host took no CPU time from
# this machine (steal); else the label says how busy the machine was with
# other work (scripts/lib/machine-load.sh).
# Usage: fresh-machine-test.sh [--as user|root] SUITE [CHROOT_DIR]
#   (root; not part of make check)
# CHROOT_DIR defaults to /var/tmp/kit-fresh-SUITE; it is made anew for each
# run, a copy of the debootstrap kept in CHROOT_DIR.base.
set -euo pipefail

# Become a child subreaper (prctl PR_SET_CHILD_SUBREAPER, kept across exec):
# processes orphaned inside the chroot are then reaped by this script, and
# their CPU time is in its `times`.
if [ -z "${KIT_FRESH_SUBREAPER:-}" ]; then
	exec env KIT_FRESH_SUBREAPER=1 python3 -c 'import ctypes, os, sys
ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)
os.execvp(sys.argv[1], sys.argv[1:])' "$0" "$@"
fi

as=user
if [ "${1:-}" = --as ]; then
	as=${2:?--as needs user or root} && shift 2
fi
case "$as" in user | root) ;; *) echo "error: --as $as: use user or root" >&2 && exit 2 ;; esac
suite=${1:?usage: fresh-machine-test.sh [--as user|root] SUITE [CHROOT_DIR]}
root=$(realpath -m "${2:-/var/tmp/kit-fresh-$suite}")
top=$(realpath "$(dirname "$0")/../..")
# shellcheck source=scripts/lib/machine-load.sh
. "$top/scripts/lib/machine-load.sh"
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

# The chroot is a copy of a pristine debootstrap kept in CHROOT_DIR.base,
# made anew for each run: packages installed by a former run would make the
# next one neither fresh nor honest about its times.
base=$root.base
if [ ! -x "$base/bin/bash" ]; then
	echo ">> debootstrap --variant=minbase $suite into $base (from $mirror; kept for the next runs)"
	rm -rf --one-file-system "$base"
	debootstrap --variant=minbase "$suite" "$base" "$mirror" >"$base.debootstrap.log" 2>&1 ||
		{ echo "error: debootstrap failed; see $base.debootstrap.log" >&2; exit 1; }
fi
# A former run that was killed may have left its bind mounts.
while read -r mnt; do umount -l "$mnt" || true; done < <(awk -v r="$root/" 'index($2, r) == 1 { print $2 }' /proc/mounts | sort -r)
rm -rf --one-file-system "$root"
cp -a "$base" "$root"
echo ">> $root: a fresh copy of $base"
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

# Whether the machine did other work during the run
# (scripts/lib/machine-load.sh; another fresh-machine test beside this one
# is such work).
marks=$(mktemp)
trap 'cleanup; rm -f "$marks"' EXIT
kit_load_mark "$marks"

rc=0
# The scripts run inside the chroot: their variables expand there.
in_chroot() { # USER SCRIPT
	local spec=()
	[ "$1" = root ] || spec=(--userspec="$1:$1")
	chroot "${spec[@]}" "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME="$([ "$1" = root ] && echo /root || echo "/home/$1")" \
		USER="$1" LOGNAME="$1" TERM=dumb /bin/bash -c "$2"
}
# shellcheck disable=SC2016
in_chroot root '
	set -euo pipefail
	t0=$(date +%s)
	apt-get update -q >/dev/null
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q make >/dev/null
	echo ">> make installed by hand in $(($(date +%s) - t0)) s"
'
if [ "$as" = user ]; then
	in_chroot root 'id learner >/dev/null 2>&1 || useradd -m -s /bin/bash learner; chown -R learner:learner /kit'
	echo ">> as the ordinary user learner: make, which must print the apt-get line"
	# shellcheck disable=SC2016
	in_chroot learner 'cd /kit/main && make' >"$root/kit/make-as-user.log" 2>&1 &&
		{ echo "error: make as an ordinary user on a fresh machine succeeded without the packages" >&2; exit 1; }
	cat "$root/kit/make-as-user.log"
	line=$(sed -n 's/^ *sudo \(apt-get install .*\)/\1/p' "$root/kit/make-as-user.log")
	[ -n "$line" ] || { echo "error: make as an ordinary user printed no 'sudo apt-get install' line" >&2; exit 1; }
	echo ">> as root, the line make printed: $line"
	t0=$(date +%s)
	in_chroot root "DEBIAN_FRONTEND=noninteractive ${line/apt-get install/apt-get install -y -q} >/dev/null"
	packages=$(($(date +%s) - t0))
	echo ">> packages installed in $packages s"
fi
# shellcheck disable=SC2016
in_chroot "$([ "$as" = user ] && echo learner || echo root)" '
	set -euo pipefail
	cd /kit/main
	t1=$(date +%s)
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

kit_load_mark "$marks"
label=$(kit_load_label "$marks")
# One line per release in Documentation/measured-releases.txt (make
# record-times shows them in the README and the guide; scripts/kernel/kernel.sh
# announces its kernel builds): what a fresh machine of that release took,
# and make check's closing line. Values with spaces are written with _.
t=$root/kit/main/build/timings
field() { # NAME FILE: NAME=the file's first line, spaces as _
	[ ! -f "$2" ] || printf ' %s=%s' "$1" "$(head -n 1 "$2" | tr ' ' _)"
}
summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$root/kit/check.log" | tail -n 1)
accel_why=$(grep -m 1 -oE 'under (KVM|TCG) \([^)]*\)' "$root/kit/check.log" | sed 's/^under //' || true)
line="$suite as=$as $(cat "$root/kit/fresh-times")${packages:+ packages=$packages}$([ -n "${packages:-}" ] || field packages "$t/packages")$(field kernel "$t/kernel-kernel")$(field kernel_load "$t/kernel-kernel.load")"
line+="$(field kernel_mainline "$t/kernel-kernel-mainline")$(field kernel_mainline_load "$t/kernel-kernel-mainline.load")"
line+=" commit=$commit date=$(date -u +%F) accel=${accel_why// /_} cores=$(nproc) run=${label// /_} summary=${summary// /_}"
data="$top/Documentation/measured-releases.txt"
{ grep -v "^$suite " "$data" 2>/dev/null || true; echo "$line"; } | sort >"$data.new" && mv "$data.new" "$data"
echo ">> fresh Debian $suite: $line"
echo ">> recorded in ${data#"$top"/}; make record-times puts it into the README and the guide"
exit "$rc"
