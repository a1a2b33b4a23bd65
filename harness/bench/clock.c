// SPDX-License-Identifier: GPL-2.0
/*
 * Check the premise of every other benchmark: under -icount shift=0,
 * CLOCK_MONOTONIC advances by 1 ns per guest instruction.
 *
 * A user loop of exactly 2 instructions per iteration runs for N and for
 * 2N iterations; the difference of the two clock readings is therefore
 * 2N instructions, the fixed costs (clock calls, loop setup) cancel. The
 * smallest of several runs is taken, which drops runs a timer tick (4 ms)
 * landed in. Prints "bench: clock <ns per instruction> ...".
 */
#include "bench.h"

#define N	200000UL
#define RUNS	7

static uint64_t shortest(unsigned long iters)
{
	uint64_t best = UINT64_MAX, t0, t1;
	int i;

	for (i = 0; i < RUNS; i++) {
		t0 = now_ns();
		busy_loop(iters);
		t1 = now_ns();
		if (t1 - t0 < best)
			best = t1 - t0;
	}
	return best;
}

int main(void)
{
	uint64_t one, two, frq;

	pin_cpu0();
	asm volatile("mrs %0, cntfrq_el0" : "=r"(frq));
	one = shortest(N);
	two = shortest(2 * N);
	printf("bench: clock %.4f insns=%lu ns=%lu timer_hz=%lu\n",
	       (double)(two - one) / (2 * N), 2 * N, (unsigned long)(two - one),
	       (unsigned long)frq);
	return 0;
}
