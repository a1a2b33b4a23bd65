// SPDX-License-Identifier: GPL-2.0
/*
 * PERF_EVENT_IOC_ENABLE + PERF_EVENT_IOC_DISABLE of a per-task cycles
 * event of the PMU (the only event of the task), minus the same pair on a
 * software dummy event (the same perf-core reschedule; no PMU driver).
 * Per pair.
 */
#include "bench.h"

#define OPS	10000

static double per_pair(int fd, const char *label)
{
	uint64_t t0, t1;
	int i;

	t0 = now_ns();
	mark_begin();
	for (i = 0; i < OPS; i++) {
		if (ioctl(fd, PERF_EVENT_IOC_ENABLE, 0))
			die("PERF_EVENT_IOC_ENABLE");
		if (ioctl(fd, PERF_EVENT_IOC_DISABLE, 0))
			die("PERF_EVENT_IOC_DISABLE");
	}
	mark_end();
	t1 = now_ns();
	mark_emit(label, OPS);
	return (double)(t1 - t0) / OPS;
}

int main(void)
{
	double raw[REPS], base[REPS];
	int hw, sw, r;

	pin_cpu0();
	/* One at a time: each event is alone in the task's context. */
	hw = open_hw(EVT_CPU_CYCLES, 0, 0);
	ioctl(hw, PERF_EVENT_IOC_DISABLE, 0);
	per_pair(hw, "warm");
	for (r = 0; r < REPS; r++)
		raw[r] = per_pair(hw, "ioctl-enable-disable.raw");
	close(hw);

	sw = open_sw_dummy();
	ioctl(sw, PERF_EVENT_IOC_DISABLE, 0);
	per_pair(sw, "warm");
	for (r = 0; r < REPS; r++)
		base[r] = per_pair(sw, "ioctl-enable-disable.base");
	close(sw);

	report("ioctl-enable-disable", median(raw, REPS), median(base, REPS),
	       OPS, NULL);
	return 0;
}
