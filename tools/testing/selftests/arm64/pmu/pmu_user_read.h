/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Read a perf event's count from EL0 without a system call, using the
 * event's mmap()ed first page (struct perf_event_mmap_page). The example
 * of Documentation/arch/arm64/pmu-user-access.rst, compiled and run by
 * pmu_user_access.c.
 */
#ifndef PMU_USER_READ_H
#define PMU_USER_READ_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/perf_event.h>

/* index 32 is the cycle counter; 1-31 are event counters 0-30 */
#define PMU_USER_CYCLE_INDEX	32

static inline uint64_t pmu_user_cycle_counter(void)
{
	uint64_t val;

	asm volatile("mrs %0, pmccntr_el0" : "=r" (val));
	return val;
}

/* Event counter n through the selector: one code path for every n */
static inline uint64_t pmu_user_event_counter(uint32_t n)
{
	uint64_t val;

	asm volatile("msr pmselr_el0, %1\n\t"
		     "isb\n\t"
		     "mrs %0, pmxevcntr_el0"
		     : "=r" (val) : "r" ((uint64_t)n));
	return val;
}

/*
 * The count of the event behind pc, into *count. Returns false when the
 * counter cannot be read from EL0 (no access, or the event is not on a
 * counter right now): fall back to read() on the event's fd.
 *
 * The kernel bumps pc->lock before and after every change to the page,
 * including each time the event is put on a counter, so a pass that saw
 * the same value on both sides read a consistent page and the counter
 * that page names; otherwise the task was preempted: read again.
 */
static inline bool pmu_user_read(struct perf_event_mmap_page *pc,
				 uint64_t *count)
{
	uint32_t seq, index, width, shift;
	uint64_t offset, raw;

	/*
	 * The compiler barriers make each pass load the page afresh; on
	 * this CPU the kernel only changes it while the task is not running.
	 */
	do {
		seq = pc->lock;
		asm volatile("" ::: "memory");

		index = pc->index;
		offset = pc->offset;
		width = pc->pmc_width;
		if (!pc->cap_user_rdpmc || !index)
			return false;

		if (index == PMU_USER_CYCLE_INDEX)
			raw = pmu_user_cycle_counter();
		else
			raw = pmu_user_event_counter(index - 1);

		asm volatile("" ::: "memory");
	} while (pc->lock != seq);

	/*
	 * Only the low pmc_width bits are the event's (a 32-bit event's
	 * counter may hold anything above bit 31). The kernel keeps offset
	 * against those bits taken as a signed number: sign-extend them.
	 */
	shift = 64 - width;
	*count = offset + (uint64_t)((int64_t)(raw << shift) >> shift);
	return true;
}

#endif /* PMU_USER_READ_H */
