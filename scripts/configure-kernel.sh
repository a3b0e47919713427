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
make -s -C "$src" O="$obj" ARCH=x86_64 tinyconfig >/dev/null
"$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" "$fragment" >/dev/null
make -s -C "$src" O="$obj" ARCH=x86_64 olddefconfig >/dev/null

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
