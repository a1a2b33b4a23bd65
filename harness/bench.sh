#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench: the deterministic cost of every hot path of the PMU driver,
# the pristine base 6.12 driver against ours, in one run.
#
# Builds both kernels from one config (harness/kernel.sh, VARIANT=base and
# ours) and the static programs of harness/bench/, boots each kernel in
# QEMU TCG with -cpu max -smp 1 -icount shift=0,sleep=off, runs the same
# programs (harness/bench/run.sh) and prints a table (path, base, ours,
# ratio, target). Under -icount shift=0 guest time is instruction count
# (1 ns per instruction, checked by bench/clock.c), so every number is in
# guest instructions per operation, exact and repeatable on any host. The
# PMU under test never measures itself: every cost is a CLOCK_MONOTONIC
# difference, net of a stated baseline (see the table's notes).
#
# Writes build/bench/: bench.json, table.md, notes.txt, the consoles
# base.log and ours.log, and the build logs. Exits 0 whatever the ratios
# (targets are reported, not asserted); exits 1 only when a build fails or
# a boot does not finish its benchmarks.
#
# Knobs: QEMU (binary, as for qemu.sh), TIMEOUT (per boot), BENCH_SELFMON=0
# (report the self-monitoring read n/a even where the kernel offers it).

. "$(dirname "$0")/lib.sh"

START=$(date +%s)
SRC_DIR=$HARNESS/bench
OUT=$TOP/build/bench
# selfmon.c measures the documented user-space reader (pmu_user_read.h)
USER_READ=$TOP/tools/testing/selftests/arm64/pmu/pmu_user_read.h
BIN=$CACHE/bench/$(hash_inputs "$SRC_DIR" "$USER_READ" "$HARNESS/bench.sh")
CFLAGS="-static -O2 -Wall -I$(dirname "$USER_READ")"
VARIANTS=(base ours)
# Same numbers on every boot: no kernel or user address randomisation
# (the dtb's kaslr-seed and rng-seed change from boot to boot).
APPEND_ARGS="nokaslr norandmaps"

# path|what|unit|subtracted baseline|target (ratio <= x, or "abs <= x")
PATHS=(
"read|read() of a counting event|insns/read()|read() of a software dummy event|ratio|1.0"
"selfmon-read|self-monitoring read (mmap page + mrs)|insns/read|the same loop with an empty body|abs|20"
"ioctl-enable-disable|PERF_EVENT_IOC_ENABLE + _DISABLE|insns/pair|the same pair on a software dummy event|ratio|1.0"
"ctxsw-1|context switch, 1 per-task event|insns/switch|the same ping-pong without events|ratio|0.85"
"ctxsw-6|context switch, 6 per-task events|insns/switch|the same ping-pong without events|ratio|0.85"
"overflow|overflow interrupt, cycles:u sampling|insns/sample|the same loop with the event counting instead|ratio|0.85"
"kvm-entry-exit|KVM guest entry/exit with :G/:H events|insns/entry+exit|-|ratio|1.0"
)

# The benchmark programs, static, and run.sh, as a cpio archive that is
# appended to the harness's initramfs (the kernel unpacks both): /bench.
build_programs() {
	local c
	[ -f "$BIN/.built" ] && return 0
	msg "building the benchmark programs into $BIN"
	rm -rf "$BIN" && mkdir -p "$BIN/root/bench" || return 1
	for c in "$SRC_DIR"/*.c; do
		# shellcheck disable=SC2086
		"${CROSS_COMPILE}gcc" $CFLAGS -o "$BIN/root/bench/$(basename "$c" .c)" "$c" ||
			return 1
	done
	install -m 755 "$SRC_DIR/run.sh" "$BIN/root/bench/run.sh" || return 1
	(cd "$BIN/root" && find bench | LC_ALL=C sort | cpio -o -H newc --quiet) \
		> "$BIN/bench.cpio" || return 1
	touch "$BIN/.built"
}

# failed LOG: show the end of a build log and stop
failed() {
	tail -n 40 "$1"
	die "build failed (full log: $1)"
}

# Both kernels (in parallel: separate trees and locks), perf, the
# initramfs with the programs appended. Logs: build/bench/build-*.log.
build_all() {
	local pid_base pid_ours
	msg "building what is missing: base and our kernel, perf, initramfs, programs"
	VARIANT=base "$HARNESS/kernel.sh" image \
		> "$TMP/image-base" 2> "$OUT/build-base.log" &
	pid_base=$!
	"$HARNESS/kernel.sh" image > "$TMP/image-ours" 2> "$OUT/build-ours.log" &
	pid_ours=$!
	build_programs > "$OUT/build.log" 2>&1 || failed "$OUT/build.log"
	INITRD=$("$HARNESS/initramfs.sh" 2>> "$OUT/build.log" | tail -n 1) || failed "$OUT/build.log"
	wait "$pid_base" || failed "$OUT/build-base.log"
	wait "$pid_ours" || failed "$OUT/build-ours.log"
	cat "$INITRD" "$BIN/bench.cpio" > "$TMP/initrd"
}

# boot VARIANT: run the benchmarks on that kernel; console in $OUT/VARIANT.log
boot() {
	local image
	image=$(tail -n 1 "$TMP/image-$1")
	env -u SHARE -u KUNIT APPEND="$APPEND_ARGS" IMAGE="$image" INITRD="$TMP/initrd" \
		QEMU_CPU=max SMP=1 ICOUNT=shift=0,sleep=off KVM_MODE=vhe \
		"$HARNESS/qemu.sh" run "BENCH_SELFMON=${BENCH_SELFMON:-1} sh /bench/run.sh" \
		> "$OUT/$1.log" 2>&1 || true
}

# field VARIANT PATH: the line's value field ("n/a", a number, or empty)
field() {
	sed -n "s/^bench: $2 \([^ ]*\).*/\1/p" "$OUT/$1.log" | tail -n 1
}

# rest VARIANT PATH: everything after the value (n/a reason, or key=value)
rest() {
	sed -n "s/^bench: $2 [^ ]* *//p" "$OUT/$1.log" | tail -n 1
}

# cell VARIANT PATH: what the table shows
cell() {
	local v
	v=$(field "$1" "$2")
	case "$v" in
	'') echo "missing" ;;
	n/a) echo "n/a ($(rest "$1" "$2"))" ;;
	*) echo "$v" ;;
	esac
}

is_num() { [[ $1 =~ ^-?[0-9]+(\.[0-9]+)?$ ]]; }

ratio() {
	is_num "$1" && is_num "$2" && awk -v b="$1" -v o="$2" \
		'BEGIN { if (b > 0) printf "%.2f", o / b; else exit 1 }' || echo "n/a"
}

# verdict KIND LIMIT BASE OURS RATIO: met / missed / - (not measured)
verdict() {
	local x
	case "$1" in
	abs) x=$4 ;;
	*) x=$5 ;;
	esac
	is_num "$x" || { echo "-"; return; }
	awk -v x="$x" -v l="$2" 'BEGIN { print (x <= l + 1e-9) ? "met" : "missed" }'
}

json_str() { local s=${1//\\/\\\\}; printf '"%s"' "${s//\"/\\\"}"; }
json_val() { if is_num "$1"; then printf '%s' "$1"; else json_str "$1"; fi; }

# details VARIANT PATH: the key=value fields of the line as a JSON object
details() {
	local kv first=1
	printf '{'
	for kv in $(rest "$1" "$2"); do
		case "$kv" in *=*) ;; *) continue ;; esac
		[ $first = 1 ] || printf ', '
		first=0
		json_str "${kv%%=*}"; printf ': '; json_val "${kv#*=}"
	done
	printf '}'
}

report() {
	local line p what unit sub kind limit b o r tgt v first=1
	{
		echo "| path | unit | base | ours | ours/base | target | |"
		echo "|---|---|---|---|---|---|---|"
		for line in "${PATHS[@]}"; do
			IFS='|' read -r p what unit sub kind limit <<< "$line"
			b=$(cell base "$p") o=$(cell ours "$p")
			r=$(ratio "$b" "$o")
			[ "$kind" = abs ] && tgt="ours <= $limit" || tgt="<= $limit"
			v=$(verdict "$kind" "$limit" "$b" "$o" "$r")
			echo "| $what | $unit | $b | $o | $r | $tgt | $v |"
		done
	} > "$OUT/table.md"
	{
		echo "Guest instructions per operation (1 guest ns = 1 instruction at -icount"
		echo "shift=0), median of 5 runs, net of a baseline; ours/base < 1: ours is cheaper."
		for line in "${PATHS[@]}"; do
			IFS='|' read -r p what unit sub kind limit <<< "$line"
			[ "$sub" = - ] || echo "  $p: minus $sub"
		done
		echo "  (ctxsw-N: each of the two tasks has its own N events; 6 = cycles,"
		echo "  instructions, each also :u and :k)"
		echo "clock check, ns per guest instruction: base $(field base clock), ours $(field ours clock)"
		echo "ping-pong without events: base $(field base ctxsw-0), ours $(field ours ctxsw-0) insns/switch"
	} > "$OUT/notes.txt"

	{
		printf '{\n  "qemu": %s,\n' "$(json_str "$("${QEMU:-qemu-system-aarch64}" --version | head -n 1)")"
		printf '  "machine": "virt,gic-version=3,virtualization=on -cpu max -smp 1 -icount shift=0,sleep=off",\n'
		printf '  "kernel_args": "%s",\n' "$APPEND_ARGS"
		printf '  "unit": "guest instructions per operation (CLOCK_MONOTONIC ns at 1 ns per instruction)",\n'
		printf '  "kernels": {'
		for v in "${VARIANTS[@]}"; do
			[ "$v" = base ] || printf ', '
			printf '%s: {"image": %s, "uname": %s, "pmu": %s, "clock_ns_per_insn": %s, "ctxsw_no_events": %s}' \
				"$(json_str "$v")" "$(json_str "$(tail -n 1 "$TMP/image-$v")")" \
				"$(json_str "$(field "$v" kernel) $(rest "$v" kernel)")" \
				"$(json_str "$(field "$v" pmu) $(rest "$v" pmu)")" \
				"$(json_val "$(field "$v" clock)")" "$(json_val "$(field "$v" ctxsw-0)")"
		done
		printf '},\n  "paths": [\n'
		for line in "${PATHS[@]}"; do
			IFS='|' read -r p what unit sub kind limit <<< "$line"
			b=$(cell base "$p") o=$(cell ours "$p")
			r=$(ratio "$b" "$o")
			[ $first = 1 ] || printf ',\n'
			first=0
			printf '    {"path": %s, "what": %s, "unit": %s, "subtracts": %s,\n' \
				"$(json_str "$p")" "$(json_str "$what")" "$(json_str "$unit")" "$(json_str "$sub")"
			printf '     "base": %s, "ours": %s, "ratio": %s,\n' \
				"$(json_val "$b")" "$(json_val "$o")" "$(json_val "$r")"
			printf '     "target": {"%s": %s, "met": %s},\n' \
				"$([ "$kind" = abs ] && echo ours_max || echo ratio_max)" "$limit" \
				"$(case $(verdict "$kind" "$limit" "$b" "$o" "$r") in met) echo true ;; missed) echo false ;; *) echo null ;; esac)"
			printf '     "base_detail": %s, "ours_detail": %s}' \
				"$(details base "$p")" "$(details ours "$p")"
		done
		printf '\n  ]\n}\n'
	} > "$OUT/bench.json"
}

mkdir -p "$OUT"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

build_all
msg "booting both kernels under -icount shift=0 (consoles: $OUT/base.log, $OUT/ours.log)"
for v in "${VARIANTS[@]}"; do boot "$v" & done
wait

report
cat "$OUT/table.md"
echo
cat "$OUT/notes.txt"
echo "bench took $(( $(date +%s) - START ))s; JSON: $OUT/bench.json"

rc=0
for v in "${VARIANTS[@]}"; do
	grep -qx 'bench: done' "$OUT/$v.log" || {
		msg "the $v kernel did not finish the benchmarks: see $OUT/$v.log"
		rc=1
	}
done
exit $rc
