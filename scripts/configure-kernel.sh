#!/usr/bin/env bash
# Configure a kernel build directory: tinyconfig + the kit's fragment.
# Usage: configure-kernel.sh SRC_DIR OBJ_DIR FRAGMENT
# Fails, naming the options, if any fragment option did not survive olddefconfig
# (a missing dependency would otherwise silently drop a check's prerequisite).
set -euo pipefail

src=$(realpath "$1")
mkdir -p "$2"
obj=$(realpath "$2")
fragment=$(realpath "$3")
echo ">> configuring kernel in $obj (tinyconfig + $(basename "$fragment"))"
make -s -C "$src" O="$obj" ARCH=x86_64 tinyconfig >/dev/null
"$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" "$fragment" >/dev/null
make -s -C "$src" O="$obj" ARCH=x86_64 olddefconfig >/dev/null

missing=()
while IFS= read -r line; do
	case "$line" in
	CONFIG_*=y | CONFIG_*=m)
		opt=${line%%=*}
		# Options the series adds are absent from an unpatched (stock) tree.
		if ! grep -qr --include='Kconfig*' -E "^(menu)?config ${opt#CONFIG_}\$" "$src" 2>/dev/null; then
			continue
		fi
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
