#!/usr/bin/env bash
# Configure (when the fragment changed) and build the kit kernel.
#   --prepare-only   configure and make prepare (host tools, generated
#                    headers: the single-threaded start of a build), no more
#   --how-long OBJ   only say how long building OBJ takes, from the last
#                    build here or the kit's reference figure (make ready)
# Usage: kernel.sh [--prepare-only] SRC OBJ FRAGMENT... | --how-long OBJ
set -euo pipefail

here=$(dirname "$(realpath "$0")")
# shellcheck source=scripts/lib/machine-load.sh
. "$here/../lib/machine-load.sh"
# How long building OBJ takes, from a measurement: the last build of that
# object directory on this machine (written below), else the kit's reference
# build from scratch on a fresh machine of this Debian release (make
# fresh-machine-test writes Documentation/measured-releases.txt), else
# nothing. Each figure says whether the machine was otherwise idle then.
how_long() { # OBJ
	local last releases field secs load suite line
	last="$(dirname "$1")/timings/kernel-$(basename "$1")"
	releases="$here/../../Documentation/measured-releases.txt"
	case "$(basename "$1")" in
	kernel-mainline) field=kernel_mainline ;;
	*) field=kernel ;;
	esac
	if [ -f "$last" ] && secs=$(cat "$last") && [[ "$secs" =~ ^[0-9]+$ ]]; then
		load=$(cat "$last.load" 2>/dev/null || echo "load not measured")
		echo "the last build here, maybe incremental, took $(mins "$secs"), $load"
	elif [ -f "$releases" ]; then
		# "SUITE key=value ...": this release's line, else the first.
		suite=$(sed -n 's/^VERSION_CODENAME=//p' /etc/os-release 2>/dev/null | tr -d '"')
		line=$(grep -m 1 "^$suite " "$releases" || head -n 1 "$releases")
		local -A f=()
		for kv in ${line#* }; do f[${kv%%=*}]=${kv#*=}; done
		[[ "${f[$field]:-}" =~ ^[0-9]+$ ]] || return 0
		load=${f[${field}_load]:-its_load_not_recorded}
		echo "from scratch on the kit's reference machine: $(mins "${f[$field]}"), ${f[cores]:-?} cores, Debian ${line%% *}, ${load//_/ }; Documentation/measured-releases.txt"
	fi
}
mins() { printf '%d min %02d s' $(($1 / 60)) $(($1 % 60)); }

if [ "${1:-}" = --how-long ]; then
	how_long "$(realpath -m "${2:?--how-long needs the object directory}")"
	exit 0
fi
prepare_only=0
[ "${1:-}" != --prepare-only ] || { prepare_only=1 && shift; }
src=$(realpath "$1") obj=$2
shift 2
fragments=("$@")
mkdir -p "$obj"
obj=$(realpath "$obj")
reconfigure=0
[ -f "$obj/.config" ] && [ ! "$src/Makefile" -nt "$obj/.config" ] || reconfigure=1
for f in "${fragments[@]}"; do [ ! "$f" -nt "$obj/.config" ] || reconfigure=1; done
if [ "$reconfigure" = 1 ]; then
	start=$(date +%s)
	"$here/configure-kernel.sh" "$src" "$obj" "${fragments[@]}"
	mkdir -p "$(dirname "$obj")/timings" && echo $(($(date +%s) - start)) >"$(dirname "$obj")/timings/configure-$(basename "$obj")"
fi
jobs=$(nproc)
if [ "$prepare_only" = 1 ]; then
	echo ">> make prepare in ${obj#"$PWD"/}"
	make -s -C "$src" O="$obj" -j"$jobs" prepare >"$obj/prepare.log" 2>&1 ||
		{ tail -n 20 "$obj/prepare.log" >&2; echo "error: make prepare failed; full log: $obj/prepare.log" >&2; exit 1; }
	exit 0
fi
hint=$(how_long "$obj")
echo ">> building the kernel in ${obj#"$PWD"/} with $jobs jobs${hint:+ ($hint)}"
# Whether the machine did other work meanwhile (scripts/lib/machine-load.sh).
marks=$obj/.build-load
rm -f "$marks"
kit_load_mark "$marks"
start=$(date +%s)
# vmlinux and modules (Module.symvers, which the stages' module builds need),
# not make's default all: the guests boot vmlinux (qemu/machine.sh), and
# bzImage (its setup code and the compressed copy of vmlinux) is about 6 s
# of CPU that nothing uses.
if ! make -s -C "$src" O="$obj" -j"$jobs" vmlinux modules >"$obj/build.log" 2>&1; then
	tail -n 40 "$obj/build.log" >&2
	echo "error: kernel build failed; full log: $obj/build.log" >&2
	exit 1
fi
kit_load_mark "$marks"
secs=$(($(date +%s) - start))
load=$(kit_load_label "$marks")
rm -f "$marks"
grep -E 'warning:' "$obj/build.log" >"$obj/build-warnings.log" || true
echo ">> kernel built in ${secs} s, $load ($(wc -l <"$obj/build-warnings.log") compiler warnings, see ${obj#"$PWD"/}/build-warnings.log)"
echo "$secs" >"$obj/build-seconds"
mkdir -p "$(dirname "$obj")/timings"
echo "$secs" >"$(dirname "$obj")/timings/kernel-$(basename "$obj")"
echo "$load" >"$(dirname "$obj")/timings/kernel-$(basename "$obj").load"
