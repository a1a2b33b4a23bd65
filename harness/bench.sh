#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench: the deterministic cost of every hot path of the PMU driver,
# the pristine base 6.12 driver and mainline 7.3's against ours, in one run.
#
# Builds the three kernels from one config (harness/kernel.sh, VARIANT=base,
# ours and mainline) and the static programs of harness/bench/, boots each
# kernel in QEMU TCG with -cpu max -smp 1 -icount shift=0,sleep=off, one
# after the other, runs the same programs (harness/bench/run.sh), then
# boots each again as a nVHE host (KVM_MODE=nvhe) for the KVM program only
# (BOOTS says which boot runs what), and prints a table (path, base, ours, mainline, the ratios, targets). Under -icount shift=0 guest time is instruction count
# (1 ns per instruction, checked by bench/clock.c), so every number is in
# guest instructions per operation, exact and repeatable on any host. The
# PMU under test never measures itself: every cost is a CLOCK_MONOTONIC
# difference, net of a stated baseline (see the table's notes).
#
# When our QEMU was built with plugin support (the default build is), a
# TCG plugin of ours (bench/sysreg-plugin.c, built here against that QEMU's
# qemu-plugin.h) also counts, in the same windows, the kernel's executed
# instructions and its MRS, MSR and ISB (system-register reads, writes and
# the synchronisation they need: on hardware those are the expensive part;
# under TCG they cost one instruction each). The table gains those columns.
#
# Writes build/bench/: bench.json, table.md, notes.txt, the consoles
# base.log, ours.log, mainline.log and their *-nvhe.log twins, the plugin's
# counts *.sysreg (VHE boots),
# and the build logs. Exits 0 whatever the ratios (targets are reported,
# not asserted); exits 1 only when a build fails or a boot does not finish
# its benchmarks.
#
# Knobs: QEMU (binary, as for qemu.sh), TIMEOUT (per boot), BENCH_SELFMON=0
# (report the self-monitoring read n/a even where the kernel offers it),
# BASE_IMAGE, OURS_IMAGE and MAINLINE_IMAGE (boot these Images instead of
# building the kernels), INITRD (use this initramfs instead of building one),
# BENCH_PLUGIN=0 (no plugin columns), BENCH_PCS=1 (the plugin also lists
# every kernel MRS/MSR/ISB address executed in each window, in *.sysreg),
# LAZY_SYNC=0 (boot without our QEMU's x-pmu-lazy-sync, under which PMU
# control writes take effect at the next ISB or exception as hardware may
# make them; the instruction counts are the same either way, since the
# mode moves when writes take effect, not what the guest executes).

. "$(dirname "$0")/lib.sh"

START=$(date +%s)
SRC_DIR=$HARNESS/bench
PLUGIN_SRC=$SRC_DIR/sysreg-plugin.c
OUT=$TOP/build/bench
# selfmon.c measures the documented user-space reader (pmu_user_read.h)
USER_READ=$TOP/tools/testing/selftests/arm64/pmu/pmu_user_read.h
# brbe.c runs the selftests' known branch sequence
BRBE_SEQ=$TOP/tools/testing/selftests/arm64/pmu/brbe_seq.h
# kvm_exit.c links the base tree's KVM selftest library: harness/kvm-tests.sh
# builds it with the KVM selftests, from these inputs too
KVM_SELFTESTS=$TOP/tools/testing/selftests/kvm
BIN=$CACHE/bench/$(hash_inputs "$SRC_DIR" "$USER_READ" "$BRBE_SEQ" "$HARNESS/bench.sh" \
	"$KVM_SELFTESTS" "$TOP/BASE" "$HARNESS/kvm-tests.sh")
CFLAGS="-static -O2 -Wall -I$(dirname "$USER_READ")"
# the kernels, and the table's columns
VARIANTS=(base ours mainline)
# The boots, one after the other: name (console NAME.log)|kernel|KVM_MODE|
# the programs run.sh runs (BENCH_PROGS; clock always). A nVHE host runs
# only the KVM round trips (kvm_exit), the one program whose path goes
# through the hypervisor's world switch; the plugin stays off there, since
# it counts the upper half only and nVHE's hypervisor runs in the lower.
# The base and mainline are booted too for kvm-entry-exit@nvhe: it is the
# only row comparing the three kernels' PMU code on the nVHE switch.
BOOTS=(
"base|base|vhe|all"
"ours|ours|vhe|all"
"mainline|mainline|vhe|all"
"base-nvhe|base|nvhe|kvm_exit"
"ours-nvhe|ours|nvhe|kvm_exit"
"mainline-nvhe|mainline|nvhe|kvm_exit"
)
# Same numbers on every boot: no kernel or user address randomisation
# (the dtb's kaslr-seed and rng-seed change from boot to boot).
APPEND_ARGS="nokaslr norandmaps"
# The boots' CPU: qemu.sh cannot tell our QEMU behind the plugin's wrapper
LAZY_SYNC=${LAZY_SYNC:-1}
BENCH_CPU=max
[ "$LAZY_SYNC" = 1 ] && BENCH_CPU+=,x-pmu-lazy-sync=on

# path|what|unit|subtracted baseline|target (ratio <= x, "abs <= x",
# "brbe <= x": ours' BRBE register accesses per operation at most x, or at
# most those of the path x, or "none -": a row of ours alone, no target)|
# the target against mainline (ours/mainline <= x)|
# the plugin's labels of the measured windows and of their baseline ("-":
# no plugin columns). PATH@nvhe is PATH as the KERNEL-nvhe boot printed it.
PATHS=(
"read|read() of a counting event|insns/read()|read() of a software dummy event|ratio|1.0|1.0|read.raw read.base"
"selfmon-read|self-monitoring read (mmap page + mrs)|insns/read|the same loop with an empty body|abs|20|1.0|selfmon-read.raw selfmon-read.base"
"selfmon-shared|self-monitoring read beside a CPU-wide event|insns/read|the same loop with an empty body|abs|830|1.0|selfmon-shared.raw selfmon-shared.base"
"ioctl-enable-disable|PERF_EVENT_IOC_ENABLE + _DISABLE|insns/pair|the same pair on a software dummy event|ratio|1.0|1.0|ioctl-enable-disable.raw ioctl-enable-disable.base"
"ctxsw-1|context switch, 1 per-task event|insns/switch|the same ping-pong without events|ratio|0.85|1.0|ctxsw-1 ctxsw-0"
"ctxsw-6|context switch, 6 per-task events|insns/switch|the same ping-pong without events|ratio|0.85|1.0|ctxsw-6 ctxsw-0"
"overflow|overflow interrupt, cycles:u sampling|insns/sample|the same loop with the event counting instead|ratio|0.85|1.0|overflow.raw overflow.base"
"kvm-entry-exit|KVM guest entry/exit with :G/:H events|insns/entry+exit|the same round trips without events|ratio|1.0|1.0|kvm-entry-exit.raw kvm-entry-exit.base"
"kvm-novpmu|KVM entry/exit of a VM without a vPMU (kvm-entry-exit's baseline)|insns/entry+exit|nothing: the whole round trip|ratio|1.0|1.0|-"
"kvm-vpmu-shown|KVM entry/exit, vPMU guest shown BRBE and SPE, using neither|insns/entry+exit|the same vPMU guest with BRBE and SPE hidden|abs|10|1.0|kvm-vpmu-shown.raw kvm-vpmu-shown.base"
"kvm-vpmu-brbe-shown|KVM entry/exit, vPMU guest shown BRBE only, not using it|insns/entry+exit|the same vPMU guest with BRBE and SPE hidden|abs|10|1.0|kvm-vpmu-brbe-shown.raw kvm-vpmu-shown.base"
"kvm-vpmu-spe-shown|KVM entry/exit, vPMU guest shown SPE only, not using it|insns/entry+exit|the same vPMU guest with BRBE and SPE hidden|abs|10|1.0|kvm-vpmu-spe-shown.raw kvm-vpmu-shown.base"
"kvm-vpmu-brbe|KVM entry/exit, vPMU guest recording into its BRBE|insns/entry+exit|the vPMU guest shown BRBE and SPE, using neither|none|-|1.0|kvm-vpmu-brbe.raw kvm-vpmu-shown.raw"
"kvm-vpmu-brbe-kept|KVM entry/exit, vPMU guest's paused full BRBE kept and injected back|insns/entry+exit|the vPMU guest recording into its BRBE, emptied|none|-|1.0|kvm-vpmu-brbe-kept.raw kvm-vpmu-brbe.raw"
"kvm-vpmu-spe|KVM entry/exit, vPMU guest profiling into its SPE buffer|insns/entry+exit|the vPMU guest shown BRBE and SPE, using neither|none|-|1.0|kvm-vpmu-spe.raw kvm-vpmu-shown.raw"
"kvm-spe-s2fault-1|stage-2 fault on a guest's SPE buffer, KVM maps 1 page|insns/fault|the same guest's bursts into mapped pages|none|-|1.0|kvm-spe-s2fault-1.raw kvm-spe-s2fault-1.base"
"kvm-spe-s2fault-64|stage-2 fault on a guest's SPE buffer, KVM maps 64 pages|insns/fault|the same guest's bursts into mapped pages|none|-|1.0|kvm-spe-s2fault-64.raw kvm-spe-s2fault-64.base"
"kvm-entry-exit@nvhe|nVHE host: KVM guest entry/exit with :G/:H events|insns/entry+exit|the same round trips without events|ratio|1.0|1.0|-"
"kvm-novpmu@nvhe|nVHE host: KVM entry/exit of a VM without a vPMU (kvm-entry-exit's baseline)|insns/entry+exit|nothing: the whole round trip|ratio|1.0|1.0|-"
"kvm-vpmu-shown@nvhe|nVHE host: KVM entry/exit, vPMU guest shown BRBE and SPE, using neither|insns/entry+exit|the same vPMU guest with BRBE and SPE hidden|abs|10|1.0|-"
"kvm-vpmu-brbe-shown@nvhe|nVHE host: KVM entry/exit, vPMU guest shown BRBE only, not using it|insns/entry+exit|the same vPMU guest with BRBE and SPE hidden|abs|10|1.0|-"
"kvm-vpmu-spe-shown@nvhe|nVHE host: KVM entry/exit, vPMU guest shown SPE only, not using it|insns/entry+exit|the same vPMU guest with BRBE and SPE hidden|abs|10|1.0|-"
"kvm-vpmu-brbe@nvhe|nVHE host: KVM entry/exit, vPMU guest recording into its BRBE|insns/entry+exit|the vPMU guest shown BRBE and SPE, using neither|none|-|1.0|-"
"kvm-vpmu-brbe-kept@nvhe|nVHE host: KVM entry/exit, vPMU guest's paused full BRBE kept and injected back|insns/entry+exit|the vPMU guest recording into its BRBE, emptied|none|-|1.0|-"
"kvm-vpmu-spe@nvhe|nVHE host: KVM entry/exit, vPMU guest profiling into its SPE buffer|insns/entry+exit|the vPMU guest shown BRBE and SPE, using neither|none|-|1.0|-"
"kvm-spe-s2fault-1@nvhe|nVHE host: stage-2 fault on a guest's SPE buffer, KVM maps 1 page|insns/fault|the same guest's bursts into mapped pages|none|-|1.0|-"
"kvm-spe-s2fault-64@nvhe|nVHE host: stage-2 fault on a guest's SPE buffer, KVM maps 64 pages|insns/fault|the same guest's bursts into mapped pages|none|-|1.0|-"
"ctxsw-brbe|context switch, 1 per-task branch-stack event (-j any,u)|insns/switch|the same ping-pong without events|brbe|8|0.9|ctxsw-brbe ctxsw-0"
"brbe-overflow-1|overflow interrupt, 1 branch event (-j any,u)|insns/interrupt|the same loop with the event counting instead|brbe|100|1.0|brbe-overflow-1.raw brbe-overflow-1.base"
"brbe-overflow-6|overflow interrupt, 6 branch events of distinct filters|insns/interrupt|the same loop with the events counting instead|brbe|brbe-overflow-1|0.45|brbe-overflow-6.raw brbe-overflow-6.base"
"spe-irq|SPE buffer management interrupt, arm_spe_0//u every 256|insns/interrupt|the same loop and draining without the event|ratio|1.0|1.0|spe-irq.raw spe-irq.base"
"spe-irq-per-mib|SPE interrupts per MiB of trace (64 KiB AUX buffer)|interrupts/MiB|none|ratio|1.0|1.0|-"
"spe-snap-irq|SPE buffer management interrupt, 1 MiB snapshot buffer|insns/interrupt|the same loop without the event|abs|6000|6|spe-snap-irq.raw spe-snap-irq.base"
"ctxsw-spe|context switch, 1 per-task SPE event with its AUX buffer|insns/switch|the same ping-pong without events|ratio|1.0|1.0|ctxsw-spe ctxsw-spe.base"
)
# the plugin's counters, in the order of its sysreg: lines and of the table
SYSREG_KEYS=(mrs msr isb pmu insns brbe)

# The benchmark programs, static, and run.sh, as a cpio archive that is
# appended to the harness's initramfs (the kernel unpacks both): /bench.
# kvm_exit comes from harness/kvm-tests.sh, built on the KVM selftest library.
build_programs() {
	local c kvm
	[ -f "$BIN/.built" ] && return 0
	msg "building the benchmark programs into $BIN"
	rm -rf "$BIN" && mkdir -p "$BIN/root/bench" || return 1
	kvm=$(built "$HARNESS/kvm-tests.sh") || return 1
	install -m 755 "$kvm/kvm_exit" "$BIN/root/bench/kvm_exit" || return 1
	for c in "$SRC_DIR"/*.c; do
		# a host program, and the one kvm-tests.sh builds
		[ "$c" = "$PLUGIN_SRC" ] || [ "$c" = "$SRC_DIR/kvm_exit.c" ] && continue
		# shellcheck disable=SC2086
		"${CROSS_COMPILE}gcc" $CFLAGS -o "$BIN/root/bench/$(basename "$c" .c)" "$c" ||
			return 1
	done
	install -m 755 "$SRC_DIR/run.sh" "$BIN/root/bench/run.sh" || return 1
	(cd "$BIN/root" && find bench | LC_ALL=C sort | cpio -o -H newc --quiet) \
		> "$BIN/bench.cpio" || return 1
	touch "$BIN/.built"
}

# The plugin, for the QEMU that boots the kernels (lib.sh's
# sysreg_plugin). Sets PLUGIN to the .so, or leaves it empty and says why
# in PLUGIN_WHY.
PLUGIN=
PLUGIN_WHY=
build_plugin() {
	if [ "${BENCH_PLUGIN:-1}" = 0 ]; then
		PLUGIN_WHY="BENCH_PLUGIN=0"
		return 0
	fi
	PLUGIN=$(sysreg_plugin "$QEMU" 2> "$TMP/plugin-why")
	PLUGIN_WHY=$(cat "$TMP/plugin-why")
}

# failed LOG: show the end of a build log and stop
failed() {
	tail -n 40 "$1"
	die "build failed (full log: $1)"
}

# build_kernel VARIANT IMAGE: the kernel's Image path into $TMP/image-VARIANT,
# IMAGE itself when set, else from a build started in the background (its
# pid in $TMP/pid-VARIANT, its log build/bench/build-VARIANT.log)
build_kernel() {
	if [ -n "$2" ]; then
		echo "$2" > "$TMP/image-$1"
		return
	fi
	VARIANT=$1 "$HARNESS/kernel.sh" image > "$TMP/image-$1" 2> "$OUT/build-$1.log" &
	echo $! > "$TMP/pid-$1"
}

# The kernels (in parallel: separate trees and locks), perf, the
# initramfs with the programs appended, the plugin. Logs:
# build/bench/build-*.log. BASE_IMAGE, OURS_IMAGE, MAINLINE_IMAGE and
# INITRD skip builds.
build_all() {
	local v
	msg "building what is missing: the base, our and the mainline kernel, perf, initramfs, programs, plugin"
	: > "$OUT/build.log"
	build_kernel base "${BASE_IMAGE:-}"
	build_kernel ours "${OURS_IMAGE:-}"
	build_kernel mainline "${MAINLINE_IMAGE:-}"
	build_programs >> "$OUT/build.log" 2>&1 || failed "$OUT/build.log"
	if [ -z "${INITRD:-}" ]; then
		INITRD=$(built "$HARNESS/initramfs.sh" 2>> "$OUT/build.log") ||
			failed "$OUT/build.log"
	fi
	build_plugin
	for v in "${VARIANTS[@]}"; do
		[ -f "$TMP/pid-$v" ] || continue
		wait "$(cat "$TMP/pid-$v")" || failed "$OUT/build-$v.log"
	done
	cat "$INITRD" "$BIN/bench.cpio" > "$TMP/initrd"
}

# boot NAME KERNEL KVM_MODE PROGRAMS (a line of BOOTS): run those benchmarks
# on that kernel; console in $OUT/NAME.log, the plugin's counts (VHE boots)
# in $OUT/NAME.sysreg. qemu.sh takes no extra QEMU options, so the plugin
# rides in a wrapper that qemu.sh runs as its QEMU.
boot() {
	local image qemu=$QEMU
	image=$(cat "$TMP/image-$2")
	rm -f "$OUT/$1.sysreg"
	if [ -n "$PLUGIN" ] && [ "$3" = vhe ]; then
		qemu=$TMP/qemu-$1
		printf '#!/bin/sh\nexec %q -plugin %q "$@"\n' "$(command -v "$QEMU")" \
			"$PLUGIN,out=$OUT/$1.sysreg,pcs=$([ "${BENCH_PCS:-0}" = 1 ] && echo on || echo off)" \
			> "$qemu"
		chmod +x "$qemu"
	fi
	env -u SHARE -u KUNIT APPEND="$APPEND_ARGS" IMAGE="$image" INITRD="$TMP/initrd" \
		QEMU="$qemu" QEMU_CPU="$BENCH_CPU" LAZY_SYNC=0 SMP=1 ICOUNT=shift=0,sleep=off KVM_MODE="$3" \
		"$HARNESS/qemu.sh" run "BENCH_SELFMON=${BENCH_SELFMON:-1} BENCH_PROGS='$4' sh /bench/run.sh" \
		> "$OUT/$1.log" 2>&1 || true
}

# sysreg VARIANT LABELS: the plugin's net counts per operation of a path,
# "mrs msr isb pmu insns" (SYSREG_KEYS), each the median over the path's
# windows (count / ops) minus the median over its baseline's; empty when
# the plugin did not run or a label has no window.
sysreg() {
	local f=$OUT/$1.sysreg
	[ "$2" != - ] && [ -s "$f" ] || return 0
	# shellcheck disable=SC2086
	awk -v raw="${2% *}" -v base="${2#* }" -v keys="${SYSREG_KEYS[*]}" '
	function med(lbl, k,    n, i, j, t, v) {
		n = cnt[lbl]
		for (i = 1; i <= n; i++) v[i] = val[lbl, k, i]
		for (i = 2; i <= n; i++)		# insertion sort: n is small
			for (j = i; j > 1 && v[j - 1] > v[j]; j--) {
				t = v[j]; v[j] = v[j - 1]; v[j - 1] = t
			}
		return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
	}
	$1 == "sysreg:" && ($2 == raw || $2 == base) {
		delete kv
		for (i = 3; i <= NF; i++) { split($i, p, "="); kv[p[1]] = p[2] }
		if (kv["ops"] <= 0) next
		n = ++cnt[$2]
		for (k in kv) val[$2, k, n] = kv[k] / kv["ops"]
	}
	END {
		if (!cnt[raw] || !cnt[base]) exit
		nk = split(keys, key, " ")
		for (i = 1; i <= nk; i++)
			printf "%s%.2f", (i > 1 ? " " : ""), med(raw, key[i]) - med(base, key[i])
		printf "\n"
	}' "$f"
}

# sysreg_key VARIANT LABELS KEY: one of the sysreg counts, or "-"
sysreg_key() {
	local v i
	read -r -a v <<< "$(sysreg "$1" "$2")"
	for i in "${!SYSREG_KEYS[@]}"; do
		[ "${SYSREG_KEYS[$i]}" = "$3" ] && { echo "${v[$i]:--}"; return; }
	done
	echo -
}

# shortest form of a count: 3.00 -> 3, 0.50 -> 0.5
trim() {
	local x=$1
	[[ $x == *.* ]] && { x=${x%0}; x=${x%0}; x=${x%.}; }
	[ "$x" = -0 ] && x=0
	echo "$x"
}

# log_of VARIANT PATH: the console PATH is read from (VARIANT-nvhe.log for
# PATH@nvhe)
log_of() {
	case $2 in
	*@nvhe) echo "$OUT/$1-nvhe.log" ;;
	*) echo "$OUT/$1.log" ;;
	esac
}

# field VARIANT PATH: the line's value field ("n/a", a number, or empty)
field() {
	sed -n "s/^bench: ${2%@*} \([^ ]*\).*/\1/p" "$(log_of "$1" "$2")" 2> /dev/null |
		tail -n 1
}

# rest VARIANT PATH: everything after the value (n/a reason, or key=value)
rest() {
	sed -n "s/^bench: ${2%@*} [^ ]* *//p" "$(log_of "$1" "$2")" 2> /dev/null | tail -n 1
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
		'BEGIN { if (b > 0) printf "%.3f", o / b; else exit 1 }' || echo "n/a"
}

# verdict KIND LIMIT BASE OURS RATIO: met / missed / - (not measured). The
# ratio is recomputed unrounded: 0.854 misses 0.85 though it prints 0.85.
verdict() {
	local x
	case "$1" in
	abs) x=$4 ;;
	*) is_num "$5" && x=$(awk -v b="$3" -v o="$4" 'BEGIN { printf "%.9f", o / b }') ||
		x=$5 ;;
	esac
	is_num "$x" || { echo "-"; return; }
	awk -v x="$x" -v l="$2" 'BEGIN { print (x <= l + 1e-9) ? "met" : "missed" }'
}

# path_labels PATH: the plugin labels of a row of PATHS
path_labels() {
	local line p
	for line in "${PATHS[@]}"; do
		p=${line%%|*}
		[ "$p" = "$1" ] && { echo "${line##*|}"; return; }
	done
}

# target KIND LIMIT LABELS BASE OURS RATIO: "text|verdict|json key|bound".
# The brbe kind bounds ours' BRBE register accesses per operation (the
# plugin's count) by a number, or by those of the path LIMIT names.
target() {
	local bound=$2 x
	case "$1" in
	brbe)
		is_num "$bound" || bound=$(sysreg_key ours "$(path_labels "$2")" brbe)
		x=$(sysreg_key ours "$3" brbe)
		if is_num "$2"; then
			printf 'ours BRBE registers <= %s' "$2"
		else
			printf 'ours BRBE registers <= those of %s (%s)' "$2" "$(trim "$bound")"
		fi
		if is_num "$bound"; then
			printf '|%s|ours_brbe_max|%s\n' "$(verdict abs "$bound" - "$x" -)" "$bound"
		else
			printf '|-|ours_brbe_max|null\n'
		fi
		;;
	abs) printf 'ours <= %s|%s|ours_max|%s\n' "$2" "$(verdict abs "$2" "$4" "$5" "$6")" "$2" ;;
	none) printf -- '-|-|ratio_max|null\n' ;;
	*) printf '<= %s|%s|ratio_max|%s\n' "$2" "$(verdict "$1" "$2" "$4" "$5" "$6")" "$2" ;;
	esac
}

# sysreg_json VARIANT LABELS: the plugin's counts as a JSON object, or null
sysreg_json() {
	local v i
	read -r -a v <<< "$(sysreg "$1" "$2")"
	[ ${#v[@]} = 0 ] && { printf 'null'; return; }
	printf '{'
	for i in "${!SYSREG_KEYS[@]}"; do
		[ "$i" = 0 ] || printf ', '
		printf '"%s": %s' "${SYSREG_KEYS[$i]}" "${v[$i]}"
	done
	printf '}'
}

# json_met VERDICT: met / missed / - as true / false / null
json_met() { case $1 in met) echo true ;; missed) echo false ;; *) echo null ;; esac; }

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
	local line p what unit sub kind limit mlimit labels b o m r rm tgt v k sr key bound first=1 mode progs
	{
		echo "| path | unit | base | ours | mainline | ours/base | target | | ours/mainline | target | | kernel MRS base / ours / mainline | MSR | ISB | of MRS+MSR: PMU registers | kernel insns | BRBE registers |"
		echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
		for line in "${PATHS[@]}"; do
			IFS='|' read -r p what unit sub kind limit mlimit labels <<< "$line"
			b=$(cell base "$p") o=$(cell ours "$p") m=$(cell mainline "$p")
			r=$(ratio "$b" "$o") rm=$(ratio "$m" "$o")
			IFS='|' read -r tgt v key bound <<< "$(target "$kind" "$limit" "$labels" "$b" "$o" "$r")"
			sr=
			for k in "${SYSREG_KEYS[@]}"; do
				sr+=" $(trim "$(sysreg_key base "$labels" "$k")") / $(trim "$(sysreg_key ours "$labels" "$k")")"
				sr+=" / $(trim "$(sysreg_key mainline "$labels" "$k")") |"
			done
			echo "| $what | $unit | $b | $o | $m | $r | $tgt | $v | $rm | <= $mlimit | $(verdict ratio "$mlimit" "$m" "$o" "$rm") |$sr"
		done
	} > "$OUT/table.md"
	{
		echo "Guest instructions per operation (1 guest ns = 1 instruction at -icount"
		echo "shift=0), median of 5 runs, net of a baseline; ours/base < 1 and"
		echo "ours/mainline < 1: ours is cheaper."
		for line in "${PATHS[@]}"; do
			IFS='|' read -r p what unit sub kind limit <<< "$line"
			# the @nvhe rows subtract what their VHE twins do
			[ "$sub" = - ] || [[ $p == *@nvhe ]] || echo "  $p: minus $sub"
		done
		echo "  (ctxsw-N: each of the two tasks has its own N events; 6 = cycles,"
		echo "  instructions, each also :u and :k)"
		echo "  (kvm-entry-exit: a KVM_RUN to a guest MMIO store and back to the VMM,"
		echo "  VHE; events instructions:G, instructions:H, cycles:G, cycles:H)"
		echo "  (@nvhe: the same, the kernel booted again as a nVHE host)"
		echo "  (kvm-vpmu-*: the same round trip on vCPUs with a vPMU, ours only: the"
		echo "  base and mainline show a guest no BRBE or SPE; -shown, -brbe-shown and"
		echo "  -spe-shown: KVM's switch of both, of BRBE, of SPE for a guest that uses"
		echo "  neither; -brbe and -spe: what the guest's own recording or profiling"
		echo "  adds to the switch of both; -brbe-kept: what keeping a paused full"
		echo "  buffer across each exit (read out, injected back) adds to -brbe)"
		echo "  (kvm-spe-s2fault-N: per fault: a vPMU guest's bursts into a buffer of N"
		echo "  never-touched pages, one fault each, minus the same into mapped pages:"
		echo "  one more exit and entry, KVM's translation and mapping of the N pages)"
		echo "  (ctxsw-brbe, brbe-overflow-N: branch stacks, which the base 6.12 lacks"
		echo "  and mainline has since 6.17;"
		echo "  brbe-overflow-N: N instructions:u events of one group, each with its own"
		echo "  branch filter, overflowing together: per interrupt, not per sample)"
		echo "CPU: -cpu $BENCH_CPU (same counts with LAZY_SYNC=0: the mode delays the"
		echo "effect of PMU control writes, not what the guest executes; the ISB"
		echo "column is what correctness under it costs)"
		printf 'clock check, ns per guest instruction:'
		for line in "${BOOTS[@]}"; do
			printf ' %s %s' "${line%%|*}" "$(field "${line%%|*}" clock)"
		done
		echo
		echo "ping-pong without events: base $(field base ctxsw-0), ours $(field ours ctxsw-0), mainline $(field mainline ctxsw-0) insns/switch"
		if [ -n "$PLUGIN" ]; then
			echo "kernel MRS/MSR/ISB, PMU registers, kernel insns: executed in the kernel"
			echo "(bit 63 of the PC set) per operation, counted by bench/sysreg-plugin.c in"
			echo "the same windows, median of the runs, net of the same baseline"
		else
			echo "kernel MRS/MSR/ISB columns: not measured ($PLUGIN_WHY)"
		fi
	} > "$OUT/notes.txt"

	{
		printf '{\n  "qemu": %s,\n' "$(json_str "$("${QEMU:-qemu-system-aarch64}" --version | head -n 1)")"
		printf '  "machine": "virt,gic-version=3,virtualization=on -cpu %s -smp 1 -icount shift=0,sleep=off",\n' "$BENCH_CPU"
		printf '  "kernel_args": "%s",\n' "$APPEND_ARGS"
		printf '  "plugin": %s,\n' "$(json_str "${PLUGIN:-none: $PLUGIN_WHY}")"
		printf '  "kernel_per_op": "plugin counts per operation in the kernel (PC bit 63 set), net of the baseline: mrs, msr (register forms), isb, pmu (MRS/MSR of PMUv3 registers), insns, brbe (MRS/MSR of BRBE registers)",\n'
		printf '  "unit": "guest instructions per operation (CLOCK_MONOTONIC ns at 1 ns per instruction)",\n'
		printf '  "kernels": {'
		for line in "${BOOTS[@]}"; do
			IFS='|' read -r v k mode progs <<< "$line"
			[ "$v" = base ] || printf ', '
			printf '%s: {"image": %s, "kvm_mode": %s, "programs": %s, "uname": %s, "pmu": %s, "clock_ns_per_insn": %s, "ctxsw_no_events": %s}' \
				"$(json_str "$v")" "$(json_str "$(cat "$TMP/image-$k")")" \
				"$(json_str "$mode")" "$(json_str "$progs")" \
				"$(json_str "$(field "$v" kernel) $(rest "$v" kernel)")" \
				"$(json_str "$(field "$v" pmu) $(rest "$v" pmu)")" \
				"$(json_val "$(field "$v" clock)")" "$(json_val "$(field "$v" ctxsw-0)")"
		done
		printf '},\n  "paths": [\n'
		for line in "${PATHS[@]}"; do
			IFS='|' read -r p what unit sub kind limit mlimit labels <<< "$line"
			b=$(cell base "$p") o=$(cell ours "$p") m=$(cell mainline "$p")
			r=$(ratio "$b" "$o") rm=$(ratio "$m" "$o")
			[ $first = 1 ] || printf ',\n'
			first=0
			printf '    {"path": %s, "what": %s, "unit": %s, "subtracts": %s,\n' \
				"$(json_str "$p")" "$(json_str "$what")" "$(json_str "$unit")" "$(json_str "$sub")"
			printf '     "base": %s, "ours": %s, "mainline": %s, "ratio": %s, "ratio_mainline": %s,\n' \
				"$(json_val "$b")" "$(json_val "$o")" "$(json_val "$m")" "$(json_val "$r")" \
				"$(json_val "$rm")"
			IFS='|' read -r tgt v key bound <<< "$(target "$kind" "$limit" "$labels" "$b" "$o" "$r")"
			printf '     "target": {"%s": %s, "met": %s},\n' "$key" "$bound" "$(json_met "$v")"
			printf '     "target_mainline": {"ratio_max": %s, "met": %s},\n' "$mlimit" \
				"$(json_met "$(verdict ratio "$mlimit" "$m" "$o" "$rm")")"
			printf '     "base_detail": %s, "ours_detail": %s, "mainline_detail": %s,\n' \
				"$(details base "$p")" "$(details ours "$p")" "$(details mainline "$p")"
			printf '     "kernel_per_op": {"base": %s, "ours": %s, "mainline": %s}}' \
				"$(sysreg_json base "$labels")" "$(sysreg_json ours "$labels")" \
				"$(sysreg_json mainline "$labels")"
		done
		printf '\n  ]\n}\n'
	} > "$OUT/bench.json"
}

mkdir -p "$OUT"
QEMU=${QEMU:-$(built "$HARNESS/qemu/build.sh")}
export QEMU
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

build_all
# One boot at a time: the machine's cores are shared, and under -icount
# the figures do not depend on what else runs.
msg "booting the kernels one after the other under -icount shift=0 (consoles: $OUT/{base,ours,mainline}{,-nvhe}.log)"
for line in "${BOOTS[@]}"; do
	IFS='|' read -r -a b <<< "$line"
	boot "${b[@]}"
done

report
cat "$OUT/table.md"
echo
cat "$OUT/notes.txt"
echo "bench took $(( $(date +%s) - START ))s; JSON: $OUT/bench.json"

rc=0
for line in "${BOOTS[@]}"; do
	v=${line%%|*}
	grep -qx 'bench: done' "$OUT/$v.log" || {
		msg "the $v kernel did not finish the benchmarks: see $OUT/$v.log"
		rc=1
	}
done
exit $rc
