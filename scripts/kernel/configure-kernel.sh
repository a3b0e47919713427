#!/usr/bin/env bash
# Configure a kernel build directory: tinyconfig + the kit's fragments.
# Usage: configure-kernel.sh SRC_DIR OBJ_DIR FRAGMENT...
# Several fragments are merged in order; for an option set in more than one,
# the last fragment wins (qemu/kernel-mainline.config switches off what the
# mainline kernel does not need from qemu/kernel.config).
# Fails, naming the options, if any fragment option did not survive olddefconfig
# (a missing dependency would otherwise silently drop a check's prerequisite).
set -euo pipefail

src=$(realpath "$1")
mkdir -p "$2"
obj=$(realpath "$2")
shift 2
names=()
for f in "$@"; do names+=("$(basename "$f")"); done
# One effective fragment: every option once, with the value of the last
# fragment that names it.
fragment="$obj/kit-fragment.config"
cat "$@" | awk '
	/^CONFIG_[A-Za-z0-9_]*=/ { opt = $0; sub(/=.*/, "", opt) }
	/^# CONFIG_[A-Za-z0-9_]* is not set/ { opt = $2 }
	opt != "" { value[opt] = $0; if (!(opt in seen)) { seen[opt] = 1; order[++n] = opt } }
	{ opt = "" }
	END { for (i = 1; i <= n; i++) print value[order[i]] }
' >"$fragment"
echo ">> configuring kernel in $obj (tinyconfig + ${names[*]})"
fresh=1
[ ! -f "$obj/include/config/auto.conf" ] || fresh=0
# `make tinyconfig` is allnoconfig with tiny-base.config, then tiny.config
# merged and olddefconfig; here tiny.config and the kit's fragment are merged
# in one go and olddefconfig runs once. Each pass parses every Kconfig file
# and runs its compiler probes (about 5 s); the .config is the same (compared
# on both kernels). ARCH=x86_64 makes allnoconfig start from a 64-bit kernel
# (ARCH=x86 would leave IBT, 5-level paging, VMAP_STACK... to olddefconfig's
# defaults, on).
make -s -C "$src" O="$obj" ARCH=x86_64 KCONFIG_ALLCONFIG=kernel/configs/tiny-base.config allnoconfig >/dev/null
tiny=()
for f in "$src/kernel/configs/tiny.config" "$src/arch/x86/configs/tiny.config"; do
	[ ! -f "$f" ] || tiny+=("$f")
done
"$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" "${tiny[@]}" "$fragment" >/dev/null
# olddefconfig writes include/config/auto.conf (what the build reads) only
# when there is none, so in a new build directory the one allnoconfig wrote
# is removed: then the build does not parse the Kconfig files once more
# (syncconfig), provided it sees the same ARCH (the build leaves it unset).
# A directory that was built before keeps its auto.conf: the build's
# syncconfig compares the two and marks only the changed options, so that
# rebuild stays incremental.
[ "$fresh" = 0 ] || rm -f "$obj/include/config/auto.conf"
make -s -C "$src" O="$obj" olddefconfig >/dev/null

# Options the series adds are absent from an unpatched (stock) tree: only
# the symbols some Kconfig file defines are checked. One pass over the
# tree's Kconfig files (a search per option took 25 s).
declare -A defined=()
while IFS= read -r sym; do
	defined[$sym]=1
done < <(grep -rhoE --include='Kconfig*' '^(menu)?config [A-Za-z0-9_]+' "$src" | sed 's/.* //')
missing=()
while IFS= read -r line; do
	case "$line" in
	CONFIG_*=y | CONFIG_*=m)
		opt=${line%%=*}
		[ -n "${defined[${opt#CONFIG_}]:-}" ] || continue
		grep -qx "$line" "$obj/.config" || missing+=("$line")
		;;
	esac
done <"$fragment"

if [ ${#missing[@]} -gt 0 ]; then
	echo "error: these options from $fragment did not take effect (a dependency is missing):" >&2
	printf '  %s\n' "${missing[@]}" >&2
	echo "Run 'make -C $src O=$obj menuconfig', search for each, and add its dependencies to the fragment." >&2
	exit 1
fi
