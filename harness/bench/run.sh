#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of harness/bench.sh: run every benchmark once, in a fixed
# order, and print one "bench: <path> <value> ..." line per path on the
# console. The same script runs on the base kernel and on ours.
# BENCH_PROGS (bench.sh's boot table): the programs to run, "all" for every
# one; clock, the check of the clock itself, always runs.

# Sampling must cost the same work on both kernels and on every run: no
# throttling (up to 1M samples/s) and no self-tuning of the sample rate
# from the measured handler time (a percentage of 0 turns that off).
echo 1000000 > /proc/sys/kernel/perf_event_max_sample_rate
echo 0 > /proc/sys/kernel/perf_cpu_time_max_percent
# The context-switch ping-pong runs SCHED_FIFO: no RT throttling.
echo -1 > /proc/sys/kernel/sched_rt_runtime_us

echo "bench: kernel $(uname -r) $(uname -v)"
echo "bench: pmu $(dmesg | grep -m 1 'hw perfevents' | sed 's/^\[[^]]*\] //')"

cd /bench || exit 1
rc=0
# wanted PROG: BENCH_PROGS names it (or is all)
wanted() {
	case " ${BENCH_PROGS:-all} " in
	*" all "* | *" $1 "*) return 0 ;;
	esac
	return 1
}
# run_prog PROG: run it if wanted, rc=1 if it fails
run_prog() {
	if wanted "$1"; then
		"./$1" || rc=1
	fi
}
./clock || rc=1
run_prog read
# The self-monitoring read needs kernel.perf_user_access (and rdpmc in
# the driver); selfmon itself says n/a when the event page offers no rdpmc.
if ! wanted selfmon; then
	:
elif [ "${BENCH_SELFMON:-1}" = 0 ] || [ ! -e /proc/sys/kernel/perf_user_access ]; then
	echo "bench: selfmon-read n/a userspace access not implemented yet"
	echo "bench: selfmon-shared n/a userspace access not implemented yet"
else
	echo 1 > /proc/sys/kernel/perf_user_access
	./selfmon || rc=1
fi
run_prog ioctl
run_prog ctxsw
run_prog overflow
# Branch stacks (BRBE): n/a on a kernel that refuses them
run_prog brbe
# KVM_RUN round trips with and without :G/:H events (n/a without /dev/kvm)
run_prog kvm_exit
# SPE: buffer interrupts, their rate, switches (n/a without arm_spe_N)
run_prog spe
echo "bench: done"
exit $rc
