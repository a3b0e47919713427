#!/usr/bin/env bash
# make packages: install the Debian packages the kit needs that are missing,
# from this machine's configured apt sources (never add other suites: apt
# would upgrade the whole machine).
#
# The list is data, one file per supported Debian release:
# scripts/setup/releases/CODENAME.txt. A NAME=VERSION entry pins a package to
# the version the kit was tested with on that release (linux-source-6.12:
# the version patches/series was tested on); when the archive no longer has
# it, the newest is used with a loud warning.
#
# Every make target runs this check, so it is one dpkg-query when nothing is
# missing. When apt is needed and another apt holds the dpkg lock, apt-get
# waits for it (saying so) instead of failing.
#   --dry-run   install nothing: say whether every package is there, else
#               print the apt-get line (make ready)
# Usage: packages.sh [--dry-run]
set -euo pipefail

dry_run=0
[ "${1:-}" != --dry-run ] || dry_run=1

here=$(dirname "$(realpath "$0")")
kit_root=$(realpath "$here/../..")
releases=$here/releases

release=${KIT_DEBIAN_RELEASE:-}
if [ -z "$release" ] && [ -r /etc/os-release ]; then
	release=$(sed -n 's/^VERSION_CODENAME=//p' /etc/os-release | tr -d '"')
fi
list=$releases/$release.txt
if [ -z "$release" ] || [ ! -f "$list" ]; then
	supported=$(find "$releases" -name '*.txt' -printf '%f\n' | sed 's/\.txt$//' | sort | tr '\n' ' ')
	echo "error: this machine's Debian release (${release:-unknown}) is not one the kit supports: $supported" >&2
	echo "  Use one of those, or copy the nearest list in scripts/setup/releases/ to $release.txt" >&2
	echo "  (and set KIT_DEBIAN_RELEASE=$release if /etc/os-release names no codename)." >&2
	exit 1
fi

# The list's words: NAME or NAME=VERSION.
packages=()
declare -A pin=()
while read -r word; do
	name=${word%%=*}
	packages+=("$name")
	[ "$word" = "$name" ] || pin[$name]=${word#*=}
done < <(sed 's/#.*//' "$list" | tr -s ' \t' '\n' | grep -v '^$')

declare -A installed=()
while read -r name version; do
	installed[$name]=$version
done < <(dpkg-query -W -f='${Package} ${Status} ${Version}\n' "${packages[@]}" 2>/dev/null |
	sed -n 's/^\([^ ]*\) install ok installed /\1 /p')

# A pinned package installed at another version is missing only while the
# archive (as this machine's package lists know it) still has the pin: once
# it is gone, the installed one stays, and no later make asks apt again.
missing=()
for p in "${packages[@]}"; do
	if [ -z "${installed[$p]:-}" ]; then
		missing+=("$p")
	elif [ -n "${pin[$p]:-}" ] && [ "${installed[$p]}" != "${pin[$p]}" ]; then
		if apt-cache madison "$p" 2>/dev/null | awk -v pin="${pin[$p]}" '$3 == pin { found = 1 } END { exit !found }'; then
			missing+=("$p")
		else
			echo "WARNING: using $p=${installed[$p]}, not ${pin[$p]} (gone from the archive; see scripts/setup/releases/$release.txt)" >&2
		fi
	fi
done
if [ ${#missing[@]} = 0 ]; then
	[ "$dry_run" = 0 ] || echo "all ${#packages[@]} packages of scripts/setup/releases/$release.txt are installed"
	exit 0
fi

if [ "$(id -u)" != 0 ] || [ "$dry_run" = 1 ]; then
	line=()
	for p in "${missing[@]}"; do line+=("$p${pin[$p]:+=${pin[$p]}}"); done
	# An error on stderr; with --dry-run, the answer asked for, on stdout.
	if [ "$dry_run" = 1 ]; then
		exec 3>&1
		echo "${#missing[@]} of ${#packages[@]} packages missing (list: scripts/setup/releases/$release.txt). Run:"
	else
		exec 3>&2
		echo "error: missing Debian packages (list: scripts/setup/releases/$release.txt), and not root to install them. Run:" >&2
	fi
	echo "  sudo apt-get install --allow-downgrades --no-install-recommends ${line[*]}" >&3
	exit 1
fi

start=$(date +%s)
# Wait for another apt or dpkg instead of failing on its lock.
lock_wait=(-o DPkg::Lock::Timeout=900)
if command -v fuser >/dev/null && fuser /var/lib/dpkg/lock-frontend /var/lib/apt/lists/lock >/dev/null 2>&1; then
	echo ">> another apt or dpkg is running; waiting for it (up to 15 minutes)"
fi
echo ">> apt-get update (Debian $release)"
apt-get "${lock_wait[@]}" update -q >/dev/null
want=()
for p in "${missing[@]}"; do
	if [ -z "${pin[$p]:-}" ]; then
		want+=("$p")
	elif apt-cache madison "$p" | awk -v pin="${pin[$p]}" '$3 == pin { found = 1 } END { exit !found }'; then
		want+=("$p=${pin[$p]}")
	else
		newest=$(apt-cache madison "$p" | awk 'NR==1 {print $3}')
		echo "################################################################" >&2
		echo "WARNING: $p=${pin[$p]}, the version the kit was tested with on" >&2
		echo "WARNING: Debian $release, is gone from the archive. Using ${newest:-the newest}" >&2
		echo "WARNING: instead: patches/series may not apply. Update" >&2
		echo "WARNING: scripts/setup/releases/$release.txt once it is checked." >&2
		echo "################################################################" >&2
		want+=("$p")
	fi
done
echo ">> apt-get install ${want[*]}"
DEBIAN_FRONTEND=noninteractive apt-get "${lock_wait[@]}" install -y -q --allow-downgrades --no-install-recommends "${want[@]}" >/dev/null
secs=$(($(date +%s) - start))
echo ">> packages installed in $secs s"
mkdir -p "$kit_root/build/timings" && echo "$secs" >"$kit_root/build/timings/packages"
