#!/usr/bin/env bash
# Download Debian's linux-source-7.* (mainline's form of the API) and unpack it
# into DEST with patches-mainline/series applied, WITHOUT touching this
# machine's apt sources or installed packages: a private apt configuration
# (its own sources list, lists and cache under build/mainline-apt) is built at
# run time from the mirror URIs this machine already has, asking only for
# Debian's trixie-backports and sid suites; only `apt-get download` runs.
#
# The version is pinned in patches-mainline/tested-version.txt. When the
# archive no longer serves it, the newest linux-source-7.* is used with a loud
# warning. Exit status 3 means "no mainline source can be had" (no network, no
# package): callers report the mainline checks as skipped, never as passed.
# With --reachable it fetches nothing but the sid suite's Release file (about
# 200 kB), to say whether the mirror can be reached (make ready).
# Usage: fetch-mainline-source.sh DEST | --reachable
set -euo pipefail

here=$(dirname "$(realpath "$0")")
kit_root=$(dirname "$(dirname "$here")")
unavailable() { echo "mainline source unavailable: $*" >&2; exit 3; }
reachable=0
[ "$1" != --reachable ] || reachable=1

# This machine's Debian mirror, into $mirror. KIT_APT_MIRROR overrides it
# (check-static points it at a closed port to prove the unavailable path).
find_mirror() {
	mirror=${KIT_APT_MIRROR:-}
	[ -n "$mirror" ] || mirror=$(awk '/^URIs:/ && $2 !~ /security/ {print $2; exit}' /etc/apt/sources.list.d/*.sources 2>/dev/null || true)
	if [ -z "$mirror" ]; then
		mirror=$(awk '$1 == "deb" && $2 !~ /security/ {print $2; exit}' /etc/apt/sources.list 2>/dev/null || true)
	fi
	[ -n "$mirror" ] || unavailable "no Debian mirror is configured in /etc/apt on this machine"
}
if [ "$reachable" = 1 ]; then
	find_mirror
	release=$(mktemp)
	trap 'rm -f "$release"' EXIT
	timeout 30 /usr/lib/apt/apt-helper download-file "${mirror%/}/dists/sid/Release" "$release" >/dev/null 2>&1 ||
		unavailable "cannot read ${mirror%/}/dists/sid/Release within 30 s (no network?)"
	echo "$mirror reached"
	exit 0
fi

dest=$(realpath -m "$1")
pin=$(cat "$kit_root/patches-mainline/tested-version.txt")
apt_dir=${KIT_APT_DIR:-$kit_root/build/mainline-apt}
stamp="$dest/.kit-source-version"

# Already unpacked from the package we would fetch? Then nothing to do (the
# build stays incremental). The pin file and the patches are part of the key.
key="$pin $(cat "$kit_root"/patches-mainline/series "$kit_root"/patches-mainline/*.patch | md5sum | cut -c1-12)"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$key" ]; then
	exit 0
fi

mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$apt_dir/etc"
find_mirror
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
cat >"$apt_dir/etc/sources.list" <<SOURCES
deb [signed-by=$keyring] $mirror trixie-backports main
deb [signed-by=$keyring] $mirror sid main
SOURCES
apt_opts=(
	-o "Dir::Etc::SourceList=$apt_dir/etc/sources.list"
	-o "Dir::Etc::SourceParts=/nonexistent"
	-o "Dir::State::Lists=$apt_dir/lists"
	-o "Dir::Cache=$apt_dir/cache"
	-o "Dir::State::status=/var/lib/dpkg/status"
	-o "APT::Get::List-Cleanup=0"
	-o "Debug::NoLocking=1"
	-o "Acquire::Check-Valid-Until=false"
)
start=$(date +%s)
echo ">> reading Debian's package lists for linux-source-7.* (private apt state in ${apt_dir#"$kit_root"/})"
apt-get "${apt_opts[@]}" update -q >"$apt_dir/update.log" 2>&1 ||
	unavailable "apt-get update failed (no network?); see ${apt_dir#"$kit_root"/}/update.log"

pkg=$(apt-cache "${apt_opts[@]}" pkgnames linux-source-7 | sort -V | tail -n 1)
if [ -z "$pkg" ] && grep -qE '^(W|E): (Failed to fetch|Could not|Unable to)' "$apt_dir/update.log"; then
	unavailable "cannot read the package lists from $mirror (no network?): $(grep -m1 -E '^(W|E): (Failed to fetch|Could not|Unable to)' "$apt_dir/update.log")"
fi
[ -n "$pkg" ] || unavailable "the archive serves no linux-source-7.* package"
version=$pin
# The pinned version may belong to an older linux-source-7.N package name.
pinned_pkg=linux-source-$(echo "$pin" | cut -d. -f1,2)
if apt-cache "${apt_opts[@]}" madison "$pinned_pkg" 2>/dev/null | awk -v pin="$pin" '$3 == pin { found = 1 } END { exit !found }'; then
	pkg=$pinned_pkg
else
	version=$(apt-cache "${apt_opts[@]}" policy "$pkg" | awk '/Candidate:/ {print $2}')
	echo "################################################################" >&2
	echo "WARNING: $pinned_pkg=$pin, the mainline version the kit was tested" >&2
	echo "WARNING: on, is no longer served. Using $pkg=$version instead:" >&2
	echo "WARNING: the mainline stage may not build or behave as documented." >&2
	echo "WARNING: Update patches-mainline/tested-version.txt once checked." >&2
	echo "################################################################" >&2
fi
echo ">> downloading $pkg=$version"
(cd "$apt_dir" && rm -f ./*.deb && apt-get "${apt_opts[@]}" download -q "$pkg=$version" >download.log 2>&1) ||
	unavailable "apt-get download $pkg=$version failed; see ${apt_dir#"$kit_root"/}/download.log"

echo ">> unpacking $pkg into ${dest#"$kit_root"/} and applying patches-mainline/series"
tmp=$(mktemp -d "$kit_root/build/mainline-unpack.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
dpkg-deb --fsys-tarfile "$apt_dir"/*.deb | tar -x -C "$tmp" --wildcards './usr/src/linux-source-*.tar.xz'
new="$dest.new"
rm -rf "$new" && mkdir -p "$new"
xz -T"$(nproc)" -dc "$tmp"/usr/src/linux-source-*.tar.xz | tar -x -C "$new" --strip-components=1
while IFS= read -r p; do
	case "$p" in '' | '#'*) continue ;; esac
	if ! out=$(patch -d "$new" -p1 -N -s --fuzz=0 --no-backup-if-mismatch <"$kit_root/patches-mainline/$p" 2>&1) ||
		grep -qiE 'offset|fuzz' <<<"$out"; then
		echo "$out" >&2
		echo "error: patches-mainline/$p does not apply cleanly to $pkg=$version; refresh it" >&2
		exit 1
	fi
done <"$kit_root/patches-mainline/series"
# Keep unchanged files' timestamps so the kernel build stays incremental.
if [ -d "$dest" ]; then
	rsync -rlc --delete "$new/" "$dest/"
	rm -rf "$new"
else
	mv "$new" "$dest"
fi
echo "$key" >"$stamp"
echo "$version" >"$dest/.kit-package-version"
secs=$(($(date +%s) - start))
echo ">> mainline source $version ready in ${dest#"$kit_root"/} ($secs s)"
mkdir -p "$kit_root/build/timings" && echo "$secs" >"$kit_root/build/timings/mainline-source"
