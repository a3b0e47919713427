#!/usr/bin/env bash
# Configure (when the fragment changed) and build the kit kernel.
#   --prepare-only   configure and make prepare (host tools, generated
#                    headers: the single-threaded start of a build), no more
#   --how-long OBJ   only say how long building OBJ takes, from the last
#                    build here or the kit's reference figure (make ready)
# Usage: kernel.sh [--prepare-only] SRC OBJ FRAGMENT... | --how-long OBJ
set -euo pipefail

here=$(dirname "$(realpath "$0")")
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
# Whether the machine did other work meanwhile: its busy CPU time (and the
# time its hypervisor gave to other guests, "steal") against the CPU time of
# this build's own processes.
cpu_ticks() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8, $9; exit }' /proc/stat; }
# The CPU time of this shell's finished children, from `times` run in this
# shell (in a $(...) it would see only the subshell's).
times_file=$obj/.build-times
children_cpu() { awk 'NR == 2 { t = 0; for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); t += a[1] * 60 + a[2] } print t }' "$times_file"; }
read -r busy0 steal0 < <(cpu_ticks)
times >"$times_file"
ours0=$(children_cpu)
start=$(date +%s.%N)
if ! make -s -C "$src" O="$obj" -j"$jobs" >"$obj/build.log" 2>&1; then
	tail -n 40 "$obj/build.log" >&2
	echo "error: kernel build failed; full log: $obj/build.log" >&2
	exit 1
fi
read -r busy1 steal1 < <(cpu_ticks)
times >"$times_file"
ours1=$(children_cpu)
rm -f "$times_file"
elapsed=$(echo "$(date +%s.%N) - $start" | bc)
secs=$(printf '%.0f' "$elapsed")
hz=$(getconf CLK_TCK)
load=$(awk -v b="$((busy1 - busy0))" -v s="$((steal1 - steal0))" -v ours="$(echo "$ours1 - $ours0" | bc)" \
	-v hz="$hz" -v t="$elapsed" -v n="$(nproc)" 'BEGIN {
	other = (b / hz - ours) / t; stolen = s / hz / t
	if (other < 0) other = 0
	if (other < 0.2 && stolen < 0.2) { print "alone"; exit }
	printf "beside other work: %.1f of %d cores busy with it", other + stolen, n
	if (stolen >= 0.2) printf " (%.1f taken by the host)", stolen
	printf "\n"
}')
grep -E 'warning:' "$obj/build.log" >"$obj/build-warnings.log" || true
echo ">> kernel built in ${secs} s, $load ($(wc -l <"$obj/build-warnings.log") compiler warnings, see ${obj#"$PWD"/}/build-warnings.log)"
echo "$secs" >"$obj/build-seconds"
mkdir -p "$(dirname "$obj")/timings"
echo "$secs" >"$(dirname "$obj")/timings/kernel-$(basename "$obj")"
echo "$load" >"$(dirname "$obj")/timings/kernel-$(basename "$obj").load"
