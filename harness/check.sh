#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The test command: build what a tier needs, run its suites, count TAP
# results. Ends with one line "N passed, N failed, N skipped"; exits 1 on a
# failure. Each suite's full output is in build/check/<suite>.log.
#
#   harness/check.sh [check]  the gate (make check, CI): our kernel and models
#   harness/check.sh all      make check-all: the gate and the reference
#                             suites (harness/suites.txt's tier column)
#   harness/check.sh ref      make check-ref: the reference suites alone,
#                             what check-all adds to a gate that passed

. "$(dirname "$0")/lib.sh"

TIER=${1:-check}
case $TIER in check|all|ref) ;; *) die "usage: $0 [check|all|ref]" ;; esac

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
	local p f s t
	read -r p f s < <(awk -v only=counts -f "$HARNESS/tap-count.awk" "$LOGS/$1.log")
	PASS=$((PASS + p)) FAIL=$((FAIL + f)) SKIP=$((SKIP + s))
	t=$(sed -n 's/^# boot-suite: \([0-9]*\) s$/, \1 s/p' "$LOGS/$1.log")
	printf '%-28s %4d passed, %d failed, %d skipped%s\n' "$1" "$p" "$f" "$s" "$t"
	awk -v only=details -f "$HARNESS/tap-count.awk" "$LOGS/$1.log" | sed 's/^/    /'
	plan_times "$LOGS/$1.log"
}

# plan_times LOG: each plan's share of a boot's wall time, from the
# "# plan-clock PLAN GUEST WALL" lines boot-suite.sh leaves (the first
# plan's share includes the boot)
plan_times() {
	awk '$2 == "plan-clock" && NF == 5 {
		out = out sep $3 " " $5 - last " s"; sep = ", "; last = $5
	} END { if (out != "") print "    plans: " out }' "$1"
}

# How each kernel of the table other than ours is built, beside the boots
build_cmd() {
	case "$1" in
	debug) echo 'FLAVOUR=debug $(H)/kernel.sh build' ;;
	base) echo 'VARIANT=base $(H)/kernel.sh build' ;;
	arm32) echo 'KARCH=arm $(H)/kernel.sh build && $(H)/arm32/initramfs.sh build' ;;
	mainline) echo 'VARIANT=mainline nice -n 10 $(H)/kernel.sh build' ;;
	deb) echo '$(H)/deb.sh current' ;;	# make deb builds it (an hour), outside make check
	*) die "suites.txt: unknown kernel '$1'" ;;
	esac
}

# write_schedule: the make file that runs everything after build_all. Each
# suite is a target waiting for its kernel's build; make starts them in
# the table's order as its job slots free up (CHECK_JOBS, 3 by default:
# a boot keeps one core busy, a build the rest). Under -icount what a guest
# computes does not depend on what else runs, only how long it takes. The
# first two suites start beside the debug build; the other builds follow.
#
# The host checks come before the other suites: quality builds in the
# debug and 32-bit kernels' folders, and the series check then takes the
# source tree those kernels share to itself for a quarter of an hour of
# mostly serial relinks, which the debug boots run beside.
write_schedule() {
	local name kernel knobs plans first=() rest=() builds=() host=() k
	while IFS='|' read -r name kernel knobs plans; do
		knobs=${knobs//@HETERO_DTB@/$HETERO_DTB}
		knobs=${knobs//@MAINLINE_SHELL@/$MAINLINE_SHELL}
		printf '%s.log:%s\n\t@echo "[check] $(notdir $@)"; %s %s %q %q %s\n' \
			"$name" "$([ "$kernel" = ours ] || echo " build-$kernel.ok")" \
			'$(RUN)' '$(H)/boot-suite.sh $@' "$kernel" "$knobs" "$plans"
		if [ ${#first[@]} -lt 2 ]; then first+=("$name.log"); else rest+=("$name.log"); fi
		if [ "$kernel" != ours ] && [[ " ${builds[*]} " != *" $kernel "* ]]; then
			builds+=("$kernel")
		fi
	done < <(suite_rows "$TIER")
	for k in "${builds[@]}"; do
		# debug and arm32 read our source tree as it is: built side by side
		printf "build-%s.ok:\n\t@echo '[check] building %s'; %s sh -c '%s' > build-%s.log 2>&1 && touch \$@\n" \
			"$k" "$k" '$(RUN)' "$(build_cmd "$k")" "$k"
		case $k in debug|arm32) host+=("build-$k.ok") ;; esac
	done
	if [ "$TIER" = ref ]; then
		printf 'all: %s %s %s\n' "$(printf 'build-%s.ok ' "${builds[@]}")" \
			"${first[*]}" "${rest[*]}"
		return
	fi
	printf 'quality.log: %s\n\t@echo "[check] quality"; %s $(H)/quality.sh > $@ 2>&1 || true\n' \
		"${host[*]}" '$(RUN)'
	printf 'series.log: %s quality.log\n\t@echo "[check] series"; %s $(H)/series-check.sh > $@ 2>&1 || true\n' \
		"${host[*]}" '$(RUN)'
	printf 'qemu-bare.log:\n\t@echo "[check] qemu-bare"; %s $(H)/qemu/test-bare.sh > $@ 2>&1 || true\n' '$(RUN)'
	printf 'all: qemu-bare.log build-debug.ok %s %s quality.log series.log %s\n' \
		"${first[*]}" "$(for k in "${builds[@]}"; do [ "$k" = debug ] || printf 'build-%s.ok ' "$k"; done)" \
		"${rest[*]}"
}

# run_schedule: everything after build_all, in $LOGS; a failed build
# leaves its suites without a log, which tally_suites counts
run_schedule() {
	{
		echo "H := $HARNESS"
		echo "L := $LOGS"
		# the harness's own makes pick their -j: keep this one's out of them
		echo 'RUN := env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL'
		echo '.DEFAULT_GOAL := all'
		write_schedule
	} > "$LOGS/schedule.mk"
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -k -C "$LOGS" -f schedule.mk \
		-j"${CHECK_JOBS:-3}" all || true
}

# tally_suite NAME KERNEL: count a guest suite, or its kernel's failed build
tally_suite() {
	if [ ! -f "$LOGS/$1.log" ]; then
		tail -n 40 "$LOGS/build-$2.log" 2>/dev/null | sed 's/^/    /'
		echo "not ok 1 $1_ran # the $2 kernel did not build" > "$LOGS/$1.log"
	fi
	tally "$1"
}

# build_all: what every suite needs (mainline's source too: its perf
# shell tests run on our kernel); a failure here ends the run.
build_all() {
	msg "building kernel, perf, selftests and initramfs (logs: $LOGS/build.log)"
	{
		"$HARNESS/kernel.sh" build &&
		"$HARNESS/initramfs.sh" build &&
		"$HARNESS/vmm/debian-qemu.sh" build &&
		"$HARNESS/vmm/our-qemu-arm64.sh" build &&
		"$HARNESS/qemu/build.sh" build &&
		QEMU= SMP=2 "$HARNESS/dt/hetero-dtb.sh" build &&
		"$HARNESS/mainline.sh" build
	} > "$LOGS/build.log" 2>&1 || {
		tail -n 40 "$LOGS/build.log"
		echo "0 passed, 1 failed, 0 skipped"
		exit 1
	}
	IMAGE=$("$HARNESS/kernel.sh" path)
	INITRD=$("$HARNESS/initramfs.sh" path)
	QEMU=$("$HARNESS/qemu/build.sh" path)
	HETERO_DTB=$(QEMU= SMP=2 "$HARNESS/dt/hetero-dtb.sh" path)
	MAINLINE_SHELL=$("$HARNESS/mainline.sh" path)/tools/perf/tests/shell
	export IMAGE INITRD QEMU
}

# debug_report SUITE...: what the debug kernel ran (tests, fuzzer
# iterations), and the reports its checkers left in the console
# (harness/plans/dmesg.plan counts them).
debug_report() {
	local tests=0 splats=0 iters=0 name out
	for name in "$@"; do
		out=$(awk -v only=counts -f "$HARNESS/tap-count.awk" "$LOGS/$name.log")
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
run_schedule
[ "$TIER" = ref ] || tally qemu-bare
while IFS='|' read -r name kernel knobs plans; do
	tally_suite "$name" "$kernel"
done < <(suite_rows "$TIER")
if [ "$TIER" != ref ]; then
	debug_report $(suite_rows "$TIER" | awk -F'|' '$2 == "debug" { print $1 }')
	tally quality
	tally series
fi

echo "check ($TIER) took $(( $(date +%s) - START ))s; logs in $LOGS"
echo "$PASS passed, $FAIL failed, $SKIP skipped"
[ "$FAIL" = 0 ]
