#!/usr/bin/env bash
# make ready: is this machine ready for a workshop tomorrow? Checks, without
# installing or building anything: the Debian packages, the free disk, both
# kernels built (else how long building them takes here), the guests'
# accelerator and why (qemu/accel.sh: on its first run this boot it boots its
# probe guest, at most 5 s; nothing longer), the network for the mainline
# source (only while the mainline kernel is not built), and what the
# learner's work/ holds. Prints one line per check ("ok: ...", "TO DO: ..."
# or facts), then one line: READY, or NOT READY with what to do first. Exits 0 when ready, 1 when not (make
# ready ignores the status: its last line is the verdict).
# Usage: ready.sh
set -euo pipefail

here=$(dirname "$(realpath "$0")")
top=$(realpath "$here/../..")
build=$top/build
todo=() notes=()
line() { printf '%-11s %s\n' "$1" "$2"; }

# Packages.
if out=$("$here/packages.sh" --dry-run 2>&1); then
	line packages "ok: $out"
else
	line packages "TO DO: $(head -n 1 <<<"$out")"
	tail -n +2 <<<"$out" | while IFS= read -r l; do line "" "${l#"${l%%[! ]*}"}"; done
	cmd=$(grep -o 'sudo apt-get install .*' <<<"$out" || true)
	todo+=("${cmd:+install the missing packages: }${cmd:-$(head -n 1 <<<"$out")}")
fi

# The kernels: built, or how long building them takes.
kernel_612=0 kernel_mainline=0
# Built, and newer than what it is built from (the series, the configuration).
built() { # OBJ INPUT...
	local stamp=$1/.stamp-kernel-built
	[ -f "$stamp" ] && [ -f "$1/vmlinux" ] || return 1
	shift
	[ -z "$(find "$@" -newer "$stamp" 2>/dev/null | head -n 1)" ]
}
! built "$build/kernel" "$top/patches" "$top/qemu/kernel.config" || kernel_612=1
! built "$build/kernel-mainline" "$top/patches-mainline" "$top/qemu/kernel.config" "$top/qemu/kernel-mainline.config" || kernel_mainline=1
how_long() { # OBJ
	local t
	t=$("$top/scripts/kernel/kernel.sh" --how-long "$1")
	echo "${t:-no figure recorded}"
}
if [ "$kernel_612" = 1 ] && [ -x "$build/checker/check_fail_nth" ]; then
	line "6.12" "ok: the kit's kernel and the checker are built (build/kernel, build/checker)"
elif [ "$kernel_612" = 1 ]; then
	line "6.12" "TO DO: the kernel is built, the checker is not: make builds it"
	todo+=("finish the build: make")
else
	line "6.12" "TO DO: not built, or older than patches/: make builds it ($(how_long "$build/kernel"))"
	todo+=("build the kit's 6.12 kernel: make")
fi
if [ "$kernel_mainline" = 1 ]; then
	line mainline "ok: the mainline kernel is built (build/kernel-mainline)"
else
	line mainline "TO DO: not built, or older than patches-mainline/: make kernel-mainline fetches and builds it ($(how_long "$build/kernel-mainline"))"
	todo+=("fetch and build the mainline kernel: make kernel-mainline (network needed)")
fi

# Free disk: what the builds still to do take, and 1 GB for logs and work/.
# Measured on 2026-12-06: the 6.12 tree and kernel take 1.9 GB, the mainline
# source, its package and kernel 2.3 GB.
need=1
[ "$kernel_612" = 1 ] || need=$((need + 2))
[ "$kernel_mainline" = 1 ] || need=$((need + 3))
free=$(df -Pk "$top" | awk 'NR == 2 { printf "%d", $4 / 1024 / 1024 }')
if [ "$free" -ge "$need" ]; then
	line disk "ok: $free GB free, $need GB needed"
else
	line disk "TO DO: $free GB free, $need GB needed"
	todo+=("free $((need - free)) GB on $(df -P "$top" | awk 'NR == 2 { print $6 }')")
fi

# The accelerator.
accel=$("$top/qemu/accel.sh" --why)
line guests "$accel"
case "$accel" in
KVM*) ;;
*"not usable by"*) notes+=("guests run under TCG: join the kvm group for KVM (see the guests line)") ;;
*"not probed yet"*) ;;
*) notes+=("guests run under TCG, each stage's check takes seconds longer") ;;
esac

# The network, for the mainline source.
if [ "$kernel_mainline" = 1 ]; then
	line network "not needed: the mainline kernel is built"
elif out=$("$top/scripts/kernel/fetch-mainline-source.sh" --reachable 2>&1); then
	line network "ok: $out (for the mainline source)"
else
	line network "TO DO: $out"
	todo+=("reach the network to fetch the mainline source, or build it elsewhere and copy the kit")
fi

# The learner's work/.
started=()
for d in "$top"/work/[0-9][0-9]-*/; do
	[ -d "$d" ] || continue
	started+=("$(basename "$d")")
done
if [ ${#started[@]} = 0 ]; then
	line work "empty: every stage starts from its skeleton (make start STAGE=N)"
else
	line work "holds ${#started[@]} started stage(s): ${started[*]}"
	for d in "${started[@]}"; do
		solution=$(ls -d "$top/labs/$d" 2>/dev/null || true)
		[ -z "$solution" ] || line "" "$("$top/scripts/labs/todo-status.sh" "$top/work/$d" "$solution" | sed "s|^$top/||")"
	done
	notes+=("work/ is not empty: for a new attendee, rm -r work")
fi

if [ ${#todo[@]} = 0 ]; then
	echo "READY${notes[0]:+ (note: ${notes[*]})}"
	exit 0
fi
more=$((${#todo[@]} - 1))
echo "NOT READY: ${todo[0]}$([ "$more" = 0 ] || echo " (and $more more, above)"); then make ready again"
exit 1
