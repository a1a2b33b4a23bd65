// SPDX-License-Identifier: GPL-2.0
/*
 * read() of a counting event: OPS read() calls of an 8-byte count from a
 * per-task cycles event of the PMU, minus the same read() calls on a
 * software dummy event (identical syscall and perf-core path; only the
 * PMU driver's pmu->read is missing). Per read().
 */
#include "bench.h"

#define OPS	10000

static double per_read(int fd, const char *label)
{
	uint64_t val, t0, t1;
	int i;

	t0 = now_ns();
	mark_begin();
	for (i = 0; i < OPS; i++)
		if (read(fd, &val, sizeof(val)) != sizeof(val))
			die("read");
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
	hw = open_hw(EVT_CPU_CYCLES, 0, 0);
	sw = open_sw_dummy();
	per_read(hw, "warm");		/* warm the caches and TLBs */
	per_read(sw, "warm");
	for (r = 0; r < REPS; r++) {
		raw[r] = per_read(hw, "read.raw");
		base[r] = per_read(sw, "read.base");
	}
	report("read", median(raw, REPS), median(base, REPS), OPS, NULL);
	return 0;
}
