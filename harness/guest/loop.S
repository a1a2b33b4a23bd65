/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A workload of exactly known length for demos and perf-tool checks: no
 * libc, no relocation, so every user instruction it retires is below.
 * Total user instructions = 2 (load count) + 2 * LOOPS + 3 (exit).
 */
#define LOOPS 10000000

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
