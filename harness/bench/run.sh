#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of harness/bench.sh: run every benchmark once, in a fixed
# order, and print one "bench: <path> <value> ..." line per path on the
# console. The same script runs on the base kernel and on ours.

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
./clock || rc=1
./read || rc=1
# The self-monitoring read needs kernel.perf_user_access (and rdpmc in
# the driver); selfmon itself says n/a when the event page offers no rdpmc.
if [ "${BENCH_SELFMON:-1}" = 0 ] || [ ! -e /proc/sys/kernel/perf_user_access ]; then
	echo "bench: selfmon-read n/a userspace access not implemented yet"
	echo "bench: selfmon-shared n/a userspace access not implemented yet"
else
	echo 1 > /proc/sys/kernel/perf_user_access
	./selfmon || rc=1
fi
./ioctl || rc=1
./ctxsw || rc=1
./overflow || rc=1
# Branch stacks (BRBE): n/a on a kernel that refuses them
./brbe || rc=1
# KVM_RUN round trips with and without :G/:H events (n/a without /dev/kvm)
./kvm_exit || rc=1
# SPE: buffer interrupts, their rate, switches (n/a without arm_spe_N)
./spe || rc=1
echo "bench: done"
exit $rc
