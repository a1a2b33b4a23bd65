/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A workload of exactly known length for demos and perf-tool checks: no
 * libc, no relocation, so every user instruction it retires is below.
 * Total user instructions = 2 (load count) + 2 * LOOPS + 3 (exit);
 * branches (b.ne) = LOOPS. known-loop is the default; long-loop is built
 * with -DLOOPS=0x80000001: 2^32 + 7 instructions, so a 32-bit counter
 * wraps and a chained pair must carry (CHAIN) for the total to be right.
 */
#ifndef LOOPS
#define LOOPS 10000000
#endif

	.text
	.global _start
_start:
	movz	x0, #(LOOPS & 0xffff)
	movk	x0, #(LOOPS >> 16), lsl #16
.Lloop:
	subs	x0, x0, #1
	b.ne	.Lloop
	mov	x0, #0
	mov	x8, #93		/* exit */
	svc	#0
