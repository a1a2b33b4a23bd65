#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# One guest suite of make check: boot KERNEL's image with KNOBS, run each
# PLAN (harness/plans/PLAN.plan) and then dmesg.plan; the console goes to
# LOG. A guest that crashed or timed out adds a failed result.
#
#   harness/boot-suite.sh LOG KERNEL 'KNOBS' PLAN...
#
# KERNEL as in harness/suites.txt: ours (IMAGE, INITRD and QEMU from the
# environment, as check.sh built them), debug, base, mainline, arm32 or deb
# (make deb's packages, with their modules in the initramfs; one skipped
# result where no package of the current sources exists).

. "$(dirname "$0")/lib.sh"

log=$1 kernel=$2 knobs=$3
shift 3
[ "$knobs" = - ] && knobs=

case "$kernel" in
ours) ;;
debug) IMAGE=$(FLAVOUR=debug "$HARNESS/kernel.sh" path) ;;
base) IMAGE=$(VARIANT=base "$HARNESS/kernel.sh" path) ;;
mainline) IMAGE=$(VARIANT=mainline "$HARNESS/kernel.sh" path) ;;
arm32)
	IMAGE=$(KARCH=arm "$HARNESS/kernel.sh" path)
	INITRD=$("$HARNESS/arm32/initramfs.sh" path)
	;;
deb)
	pkg=$("$HARNESS/deb.sh" current)
	if [ -z "$pkg" ]; then
		name=${log##*/}
		echo "ok 1 ${name%.log}_ran # SKIP no package of these kernel sources (make deb)" > "$log"
		exit 0
	fi
	IMAGE=$pkg/Image
	INITRD=$("$HARNESS/deb.sh" initramfs)
	export KUNIT=0	# Debian's config has no KUnit built in
	;;
*) die "unknown kernel '$kernel'" ;;
esac
export IMAGE INITRD

stock=${PMU_QEMU_STOCK:-0}
case " $knobs " in *" PMU_QEMU_STOCK=1 "*) stock=1 ;; esac
cmd="export PMU_QEMU_STOCK=$stock"
# Each plan ends with "# plan-clock PLAN T", T the guest clock in seconds;
# stamp() adds the host's wall clock, so the log says where the time went.
for plan in "$@" dmesg; do
	cmd+="; sh /plans/$plan.plan; echo \"# plan-clock $plan \$(cut -d' ' -f1 /proc/uptime)\""
done

# stamp: copy the console, appending the wall seconds since the boot
# started to each plan-clock line
stamp() {
	local line
	while IFS= read -r line || [ -n "$line" ]; do
		case "$line" in
		'# plan-clock '*) line+=" $((SECONDS - start))" ;;
		esac
		printf '%s\n' "$line"
	done
}

# Our QEMU's models report a reserved value the guest wrote in QEMU's
# -d guest_errors log (harness/qemu/README.md lists the messages, and
# nothing else there is ours): one result for a kernel whose drivers are
# ours, a comment for the reference kernels.
MODEL_MSGS='^(BRBE froze with BRBCR_EL1\.TS 0b00|BRBFCR_EL1: reserved|PMBLIMITR_EL1: reserved)'
export MODEL_LOG=$log.models
rm -f "$MODEL_LOG"
model_result() {
	local name=${log##*/} n
	name=${name%.log}
	n=$(grep -cE "$MODEL_MSGS" "$MODEL_LOG" 2>/dev/null || true)
	echo "TAP version 13"
	echo "# models: ${n:-0} reserved values written"
	grep -E "$MODEL_MSGS" "$MODEL_LOG" 2>/dev/null | sort | uniq -c | sed 's/^ */# model: /' ||
		true
	case "$kernel" in
	base|mainline) ;;
	*)
		if [ "${n:-0}" = 0 ]; then
			echo "ok 1 ${name}_models_saw_no_reserved_value"
		else
			echo "not ok 1 ${name}_models_saw_no_reserved_value"
		fi
		echo "1..1"
		;;
	esac
}

# SPE_OWNER=1 in KNOBS: our sysreg plugin watches every hand-over of the
# profiling buffer at EL2 (harness/bench/sysreg-plugin.c, owner=on); one
# result: no violation, and at least one owner change and one buffer
# enabled at EL2 seen, so that a boot that never handed the buffer over
# cannot pass.
case " $knobs " in *" SPE_OWNER=1 "*) export SPE_OWNER_LOG=$log.owner ;; esac
rm -f "${SPE_OWNER_LOG:-/nonexistent}"
owner_result() {
	local name=${log##*/} line changes enables violations
	name=${name%.log}
	line=$(grep '^spe-owner: ' "$SPE_OWNER_LOG" 2>/dev/null || true)
	changes=$(echo "$line" | sed -n 's/.* changes=\([0-9]*\).*/\1/p')
	enables=$(echo "$line" | sed -n 's/.* enables=\([0-9]*\).*/\1/p')
	violations=$(echo "$line" | sed -n 's/.* violations=\([0-9]*\).*/\1/p')
	echo "TAP version 13"
	echo "# ${line:-spe-owner: no result from the plugin}"
	grep '^spe-owner-violation: ' "$SPE_OWNER_LOG" 2>/dev/null | sort | uniq -c |
		sed 's/^ */# /' || true
	if [ "${violations:-1}" = 0 ] && [ "${changes:-0}" -gt 0 ] && [ "${enables:-0}" -gt 0 ]; then
		echo "ok 1 ${name}_spe_buffer_enabled_under_its_owner"
	else
		echo "not ok 1 ${name}_spe_buffer_enabled_under_its_owner"
	fi
	echo "1..1"
}

# The time limit is a backstop for a hung guest: a boot shares the machine
# with other boots and builds, so it is twice qemu.sh's default.
start=$SECONDS
# shellcheck disable=SC2086 # KNOBS is a list of VAR=value words
env TIMEOUT=1800 $knobs "$HARNESS/qemu.sh" run "$cmd" 2>&1 | stamp > "$log.tmp"
rc=${PIPESTATUS[0]}
if [ "$rc" = 125 ]; then
	name=${log##*/}
	echo "not ok 1 ${name%.log}_guest_finished # crashed or timed out" >> "$log.tmp"
fi
model_result >> "$log.tmp"
rm -f "$MODEL_LOG"
if [ -n "${SPE_OWNER_LOG:-}" ]; then
	owner_result >> "$log.tmp"
	rm -f "$SPE_OWNER_LOG"
fi
# Wall time, for make check's summary (where the time goes)
echo "# boot-suite: $((SECONDS - start)) s" >> "$log.tmp"
mv "$log.tmp" "$log"
