#!/usr/bin/env bash
# Install the Debian packages in scripts/packages.txt that are missing, from
# this machine's configured apt sources (never add other suites: apt would
# upgrade the whole machine). linux-source-6.12 is pinned to the version in
# scripts/kernel-version.txt; when the archive no longer has it, the newest is
# used with a loud warning.
set -euo pipefail

here=$(dirname "$(realpath "$0")")
pin=$(cat "$here/kernel-version.txt")
mapfile -t packages < <(sed 's/#.*//' "$here/packages.txt" | tr ' ' '\n' | grep -v '^$')

# One dpkg-query for all of them (every make target runs this check): the
# installed ones, as "NAME VERSION".
declare -A installed=()
while read -r name version; do
	installed[$name]=$version
done < <(dpkg-query -W -f='${Package} ${Status} ${Version}\n' "${packages[@]}" linux-source-6.12 2>/dev/null |
	sed -n 's/^\([^ ]*\) install ok installed /\1 /p')

missing=()
for p in "${packages[@]}"; do
	[ -n "${installed[$p]:-}" ] || missing+=("$p")
done
kernel_ok=1
[ "${installed[linux-source-6.12]:-}" = "$pin" ] || kernel_ok=0
if [ ${#missing[@]} -eq 0 ] && [ "$kernel_ok" = 1 ]; then
	exit 0
fi

start=$(date +%s)
if [ "$(id -u)" != 0 ]; then
	echo "error: missing Debian packages, and not root to install them. Run:" >&2
	line=()
	for p in "${missing[@]}"; do [ "$p" = linux-source-6.12 ] || line+=("$p"); done
	[ "$kernel_ok" = 1 ] || line+=("linux-source-6.12=$pin")
	echo "  sudo apt-get install --allow-downgrades ${line[*]}" >&2
	[ "$kernel_ok" = 1 ] || echo "  (linux-source-6.12 must be version $pin, the one the series was tested on)" >&2
	exit 1
fi

echo ">> apt-get update"
apt-get update -q >/dev/null
want=()
for p in "${missing[@]}"; do [ "$p" = linux-source-6.12 ] || want+=("$p"); done
if [ "$kernel_ok" = 0 ]; then
	if apt-cache madison linux-source-6.12 | awk -v pin="$pin" '$3 == pin { found = 1 } END { exit !found }'; then
		want+=("linux-source-6.12=$pin")
	else
		newest=$(apt-cache madison linux-source-6.12 | awk 'NR==1 {print $3}')
		echo "################################################################" >&2
		echo "WARNING: linux-source-6.12=$pin, the version the series was tested" >&2
		echo "WARNING: on, is gone from the archive. Using $newest instead: the" >&2
		echo "WARNING: patches may not apply. Update scripts/kernel-version.txt" >&2
		echo "WARNING: once the series is checked on it." >&2
		echo "################################################################" >&2
		want+=("linux-source-6.12")
	fi
fi
echo ">> apt-get install ${want[*]}"
DEBIAN_FRONTEND=noninteractive apt-get install -y -q --allow-downgrades --no-install-recommends "${want[@]}" >/dev/null
secs=$(($(date +%s) - start))
echo ">> packages installed in $secs s"
mkdir -p "$here/../build/timings" && echo "$secs" >"$here/../build/timings/packages"
