# shellcheck shell=bash
# hooks_of FILE: the hooks converted in FILE, one a line: those with a
# desc signature in it, or (a hook defined in another file of its group) a
# .mmap_prepare, a prototype, an EXPORT_SYMBOL; not a static helper
# converted with its hook (a desc signature called with desc: a hook is
# never called, the semantic patch leaves a called one). A file's hooks
# before and after a conversion differ by those it converted
# (mmap-prepare.sh, cocci-tests.sh).
hooks_of() {
	{
		grep -oE '\b\w+_prepare\(struct vm_area_desc \*(desc)?\)' "$1" | sed -E 's/_prepare\(.*//' | sort -u |
			grep -vxF -f <(grep -oE '\b\w+_prepare\(([^;()]*,\s*)?desc\s*[,)]' "$1" | sed -E 's/_prepare\(.*//'; echo '#')
		grep -oE '\.mmap_prepare\s*=\s*\w+_prepare\b|EXPORT_SYMBOL(_GPL)?\(\w+_prepare\)' "$1" |
			sed -E 's/^\.mmap_prepare\s*=\s*//; s/^EXPORT_SYMBOL(_GPL)?\(//; s/_prepare\b.*//'
	} | sort -u || true
}
