#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The test command: build everything, run every suite, count TAP results.
# Ends with one line "N passed, N failed, N skipped"; exits 1 on a failure.
# Each suite's full output is in build/check/<suite>.log.

. "$(dirname "$0")/lib.sh"

LOGS=$TOP/build/check
rm -rf "$LOGS" && mkdir -p "$LOGS"
PASS=0 FAIL=0 SKIP=0

# Our QEMU (harness/qemu): CHAIN, exact EXC_TAKEN/EXC_RETURN/BR_RETIRED,
# per-vCPU INST_RETIRED, timely overflow. Tests that need these models
# know they have them.
export PMU_QEMU_STOCK=0
export KUNIT=1

# tally NAME: count the results in build/check/NAME.log
tally() {
	local out p f s
	out=$(awk -f "$HARNESS/tap-count.awk" "$LOGS/$1.log")
	read -r p f s <<< "$(tail -n 1 <<< "$out")"
	PASS=$((PASS + p)) FAIL=$((FAIL + f)) SKIP=$((SKIP + s))
	printf '%-28s %4d passed, %d failed, %d skipped\n' "$1" "$p" "$f" "$s"
	sed '$d' <<< "$out" | sed 's/^/    /'
}

# host_suite NAME CMD...: a suite run on the host; its output is TAP
host_suite() {
	local name=$1; shift
	"$@" > "$LOGS/$name.log" 2>&1 || true
	tally "$name"
}

# Guest suites run in lanes, two at a time by default (CHECK_LANES): a
# boot keeps about one core busy (TCG), and under -icount what a guest
# computes does not depend on what else the host runs, only how long it
# takes. Each boot's console goes to its own log; the results are counted
# in the order the suites were queued, each once every suite queued before
# it has finished, so the output reads the same whatever the timing. The
# time limit of a boot is twice qemu.sh's default: it is a backstop for a
# hung guest, and a boot shares the machine with another and with builds.
LANES=${CHECK_LANES:-2}
BOOT_TIMEOUT=1800
SUITES=()
TALLIED=0

# boot NAME "ENV=..." PLAN...: boot with ENV and run the plans
boot() {
	local name=$1 env=$2 plans cmd rc=0 stock=$PMU_QEMU_STOCK; shift 2
	case " $env " in *" PMU_QEMU_STOCK=1 "*) stock=1 ;; esac
	cmd="export PMU_QEMU_STOCK=$stock"
	for plans in "$@" dmesg; do cmd+="; sh /plans/$plans.plan"; done
	# shellcheck disable=SC2086 # ENV is a list of VAR=value words
	env TIMEOUT=$BOOT_TIMEOUT $env "$HARNESS/qemu.sh" run "$cmd" > "$LOGS/$name.log" 2>&1 ||
		rc=$?
	if [ $rc = 125 ]; then
		echo "not ok 1 ${name}_guest_finished # crashed or timed out" >> "$LOGS/$name.log"
	fi
}

running_suites() {
	local name n=0
	for name in "${SUITES[@]}"; do
		[ -e "$LOGS/.$name.done" ] || n=$((n + 1))
	done
	echo $n
}

# tally_finished: count the finished suites that are next in queue order
tally_finished() {
	while [ "$TALLIED" -lt "${#SUITES[@]}" ] &&
	      [ -e "$LOGS/.${SUITES[$TALLIED]}.done" ]; do
		tally "${SUITES[$TALLIED]}"
		TALLIED=$((TALLIED + 1))
	done
}

# guest_suite NAME "ENV=..." PLAN...: queue a boot; it starts in a free lane
guest_suite() {
	while [ "$(running_suites)" -ge "$LANES" ]; do
		tally_finished
		sleep 2
	done
	tally_finished
	# the mark is made whatever happened to the boot: the queue waits for it
	(boot "$@" || true; : > "$LOGS/.$1.done") &
	SUITES+=("$1")
}

# finish_suites: wait for every queued suite and count the rest
finish_suites() {
	while [ "$TALLIED" -lt "${#SUITES[@]}" ]; do
		tally_finished
		sleep 2
	done
}

# build_all: what every suite needs; a failure here ends the run.
build_all() {
	msg "building kernel, perf, selftests and initramfs (logs: $LOGS/build.log)"
	{
		IMAGE=$("$HARNESS/kernel.sh" image | tail -n 1) &&
		PERF_BIN=$("$HARNESS/perf.sh" | tail -n 1) &&
		TESTS_DIR=$("$HARNESS/tests.sh" | tail -n 1) &&
		INITRD=$(PERF_BIN=$PERF_BIN TESTS_DIR=$TESTS_DIR "$HARNESS/initramfs.sh" | tail -n 1) &&
		QEMU=$("$HARNESS/qemu/build.sh" | tail -n 1) &&
		HETERO_DTB=$(QEMU=$QEMU SMP=2 "$HARNESS/dt/hetero-dtb.sh" | tail -n 1)
	} > "$LOGS/build.log" 2>&1 || {
		tail -n 40 "$LOGS/build.log"
		echo "0 passed, 1 failed, 0 skipped"
		exit 1
	}
	export IMAGE INITRD QEMU
}

# The debug kernel builds while the plain kernel's boots run: each boot
# keeps one core busy, the build takes the rest. Whatever else needs the
# kernel source tree (quality, series) waits for it: one build at a time.
debug_kernel() {
	FLAVOUR=debug "$HARNESS/kernel.sh" image
}

# The 32-bit Arm kernel (KARCH=arm) builds in the background too; it waits
# for the debug build's lock on the shared source tree, then runs beside
# the remaining boots.
arm32_kernel_and_initramfs() {
	KARCH=arm "$HARNESS/kernel.sh" image && "$HARNESS/arm32/initramfs.sh"
}

# The base's own SPE driver (VARIANT=base: the pristine base, our config)
# validates our QEMU's SPE model now that our driver replaces it. Its
# source tree is its own, so it builds beside the debug kernel.
base_kernel() {
	VARIANT=base "$HARNESS/kernel.sh" image
}

# Quality and the series check build the kernel source tree on the host:
# they run beside the debug boots, each of which keeps only one core busy,
# queued by kernel.sh's lock on the source tree behind the background
# builds. finish_host_checks counts their results.
start_host_checks() {
	("$HARNESS/quality.sh" > "$LOGS/quality.log" 2>&1
	 "$HARNESS/series-check.sh" > "$LOGS/series.log" 2>&1) &
	HOST_CHECKS=$!
}
finish_host_checks() {
	# their failures are counted from the logs, not by stopping here
	wait "$HOST_CHECKS" || true
	tally quality
	tally series
}

# background_build NAME CMD...: run CMD in the background,
# its output in build-NAME.log and its exit status in build-NAME.rc. The
# status is not taken from `wait PID`: once, twenty minutes after the
# 32-bit build had succeeded, bash answered "pid N is not a child of this
# shell" (127), a failure that never happened. This script forks
# hundreds of children meanwhile and the builds wrap the PIDs (pid_max
# 32768): bash does not keep every status that long.
declare -A BUILD_PID
background_build() {
	local name=$1; shift
	rm -f "$LOGS/build-$name.rc"
	(rc=0; "$@" > "$LOGS/build-$name.log" 2>&1 || rc=$?
	 echo $rc > "$LOGS/build-$name.rc") &
	BUILD_PID[$name]=$!
}

# finish_build NAME: wait for background_build NAME; on failure show its
# log's tail and count one failed test. A build killed before it could
# write its status has failed too.
finish_build() {
	while [ ! -s "$LOGS/build-$1.rc" ] && kill -0 "${BUILD_PID[$1]}" 2>/dev/null; do
		sleep 2
	done
	wait "${BUILD_PID[$1]}" 2>/dev/null || true
	[ "$(cat "$LOGS/build-$1.rc" 2>/dev/null)" = 0 ] && return 0
	tail -n 40 "$LOGS/build-$1.log"
	echo "not ok 1 $1_kernel_builds" >> "$LOGS/build-$1.log"
	tally "build-$1"
	return 1
}

# finish_arm32_build: ARM32_IMAGE and ARM32_INITRD, or a failure counted
finish_arm32_build() {
	finish_build arm32 || return 1
	ARM32_IMAGE=$(grep '/zImage$' "$LOGS/build-arm32.log" | tail -n 1)
	ARM32_INITRD=$(build_output arm32)
}

# build_output NAME: the last line a finished build printed (its image)
build_output() {
	tail -n 1 "$LOGS/build-$1.log"
}

# debug_report SUITE...: what the debug kernel ran (tests, fuzzer
# iterations), and the reports its checkers left in the console
# (harness/plans/dmesg.plan counts them).
debug_report() {
	local tests=0 splats=0 iters=0 name out
	for name in "$@"; do
		out=$(awk -f "$HARNESS/tap-count.awk" "$LOGS/$name.log" | tail -n 1)
		tests=$((tests + $(awk '{ print $1 + $2 + $3 }' <<< "$out")))
		splats=$((splats + $(sed -n 's/^# splats: \([0-9]*\)$/\1/p' "$LOGS/$name.log" |
				     awk '{ n += $1 } END { print n + 0 }')))
		iters=$((iters + $(sed -n 's/^# \([0-9]*\) iterations in .*/\1/p' "$LOGS/$name.log" |
				   awk '{ n += $1 } END { print n + 0 }')))
	done
	echo "debug kernel: $tests tests run, $iters fuzz iterations, $splats splats"
}

START=$(date +%s)
build_all
background_build debug debug_kernel
background_build base base_kernel
# Mainline 7.3 (harness/mainline.sh): its own source tree, niced
background_build mainline env VARIANT=mainline nice -n 10 "$HARNESS/kernel.sh" image
background_build arm32 arm32_kernel_and_initramfs
host_suite qemu-bare "$HARNESS/qemu/test-bare.sh"
guest_suite boot-max-vhe "" kunit selftests perftool perftest spe-driver spe-self qemu-models kvm fuzz brbe spe-perftest
guest_suite boot-max-nvhe "KVM_MODE=nvhe" kunit selftests perftool kvm brbe spe-driver spe-self spe
# SPEv1p1: no discard, FnE or EFT, their formats hidden and refused
guest_suite boot-max-spe-v1p1 "QEMU_CPU=max,x-spe-pmsver=2 APPEND=SPE_PMSVER=2" spe-driver spe-self
guest_suite boot-max-pseudo-nmi "APPEND=irqchip.gicv3_pseudo_nmi=1" nmi selftests perftool
guest_suite boot-cortex-a57 "QEMU_CPU=cortex-a57" kunit selftests perftool qemu-models brbe-absent
# Two vCPUs: per-vCPU instruction counts. Cycles follow virtual time, which
# the other vCPU advances too, so the cycles = instructions checks of the
# one-vCPU plans do not apply here.
guest_suite boot-cortex-a57-smp2 "QEMU_CPU=cortex-a57 SMP=2" kunit qemu-models
# Debian's QEMU has no CHAIN: there a 64-bit event must be refused, not
# silently counted in 32 bits.
guest_suite boot-cortex-a57-debian-qemu \
	"QEMU=qemu-system-aarch64 QEMU_CPU=cortex-a57 PMU_QEMU_STOCK=1" selftests perftool
# A device tree with two PMUs over two CPU sets (big.LITTLE-like)
guest_suite boot-max-hetero "SMP=2 DTB=$HETERO_DTB" hetero
# FEAT_PMUv3p9's PMUACR_EL1 (our QEMU's model): EL0 reads of the task's own
# counters go to the hardware even beside CPU-wide events
guest_suite boot-max-pmuv3p9 "QEMU_CPU=max,x-pmuv3p9=on" kunit pmuv3p9 perftest
# UEFI (edk2) and ACPI instead of a DT: the PMU probed from the MADT
guest_suite boot-max-acpi "ACPI=1" acpi kunit selftests perftool
# The base kernel has its own source tree and is ready first; the 32-bit
# one waits for the debug build's lock on the shared tree.
if finish_build base; then
	# The base's SPE driver and the perf tool read our QEMU's SPE model
	guest_suite boot-base-spe "IMAGE=$(build_output base)" spe spe-perftest
fi
# Without the debug kernel its failure is counted and its boots left out
debug_built=0
finish_build debug && debug_built=1 && DEBUG_IMAGE=$(build_output debug)
start_host_checks
if [ $debug_built = 1 ]; then
	# KASAN, lockdep, UBSAN, KFENCE, lockup and hang detectors
	# (debug.config): any report in the console fails the boot's dmesg plan.
	# A sample costs ~100k instructions there, and a signal per overflow
	# more: the fuzzer samples no more often than every 10^6 events
	# (fuzz.plan; fuzz_pmu.c says why).
	guest_suite boot-debug "IMAGE=$DEBUG_IMAGE APPEND=FUZZ_MIN_PERIOD=1000000" \
		kunit selftests perftool fuzz
	# Branch stacks (merged filters, two tasks, a KVM guest, BPF
	# snapshots: only this kernel has BPF) and our SPE driver (every
	# parameter, a KVM guest, our selftest's exact records) under the
	# checkers: a boot of its own, so that it runs beside the one above.
	guest_suite boot-debug-brbe-spe "IMAGE=$DEBUG_IMAGE" brbe brbe-bpf spe-driver spe-self
	# CPU hotplug, sysctl toggles and exhaustion need several CPUs
	guest_suite boot-debug-smp4 "IMAGE=$DEBUG_IMAGE SMP=4" stress brbe-hotplug spe-hotplug
fi
# Mainline's BRBE and SPE drivers on our models (harness/qemu/README.md)
if finish_build mainline; then
	guest_suite boot-mainline "IMAGE=$(build_output mainline)" mainline-brbe spe spe-perftest
fi
if finish_arm32_build; then
	# A 32-bit Arm kernel on the same CPU model in AArch32 (harness/arm32).
	# No KUnit plan: our KUnit suites skip every case on a 32-bit kernel.
	guest_suite boot-arm32 "KARCH=arm IMAGE=$ARM32_IMAGE INITRD=$ARM32_INITRD" arm32
fi
finish_suites
[ $debug_built = 1 ] && debug_report boot-debug boot-debug-brbe-spe boot-debug-smp4
finish_host_checks

echo "check took $(( $(date +%s) - START ))s; logs in $LOGS"
echo "$PASS passed, $FAIL failed, $SKIP skipped"
[ "$FAIL" = 0 ]
