#!/usr/bin/env bash
# Write the commits base..HEAD of the kernel git tree back to patches/ as git format-patch files,
# and rewrite patches/series to list them in order.
# Usage: export-patches.sh KERNEL_GIT PATCH_DIR
set -euo pipefail

src=$(realpath "$1") patch_dir=$(realpath "$2")
git -C "$src" rev-parse -q --verify base >/dev/null || {
	echo "error: $src has no 'base' tag; create it with 'make kernel-git'" >&2
	exit 1
}
rm -f "$patch_dir"/[0-9][0-9][0-9][0-9]-*.patch
git -C "$src" -c core.abbrev=9 format-patch -q --no-signature --zero-commit -N -o "$patch_dir" base..HEAD
(
	echo "# The kit's patch series for Debian linux-source-6.12, applied in this order."
	echo "# Edit with 'make kernel-git', commit in build/kernel-git, then 'make export-patches'."
	cd "$patch_dir" && ls [0-9][0-9][0-9][0-9]-*.patch
) >"$patch_dir/series"
echo ">> exported $(grep -vc '^#' "$patch_dir/series") patches to $patch_dir"
