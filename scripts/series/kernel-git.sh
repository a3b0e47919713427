#!/usr/bin/env bash
# Turn the kernel tree into a git branch for editing the series:
#   build/kernel-git/ = pristine linux-source-6.12 (commit "base") + one commit per patch in patches/series.
# Edit with ordinary git (commit --fixup, rebase -i, ...), then run scripts/series/export-patches.sh.
# Usage: kernel-git.sh TARBALL DEST PATCH_DIR
set -euo pipefail

tarball=$1 dest=$2 patch_dir=$(realpath "$3")

if [ -d "$dest/.git" ]; then
	echo "error: $dest already exists; export your work with 'make export-patches' and remove it first" >&2
	exit 1
fi
start=$(date +%s)
mkdir -p "$dest"
echo ">> unpacking $(basename "$tarball") into $dest"
tar -xf "$tarball" -C "$dest" --strip-components=1
cd "$dest"
git init -q -b kit
git config user.name "${GIT_AUTHOR_NAME:-mmap_prepare kit}"
git config user.email "${GIT_AUTHOR_EMAIL:-kit@example.invalid}"
echo ">> committing the pristine tree as 'base' (about a minute)"
# Debian's tree ships a .gitignore that ignores everything at the top level (/*).
git add -A -f >/dev/null
git commit -q -m "base: Debian $(basename "$tarball")"
git tag base
while IFS= read -r p; do
	case "$p" in '' | '#'*) continue ;; esac
	echo ">> git am $p"
	git am -q --whitespace=nowarn "$patch_dir/$p"
done <"$patch_dir/series"
echo ">> $dest: branch 'kit', $(git rev-list --count base..HEAD) patches on 'base' ($(($(date +%s) - start)) s)"
