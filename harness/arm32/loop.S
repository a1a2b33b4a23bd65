/* SPDX-License-Identifier: GPL-2.0 */
/*
 * harness/guest/loop.S for 32-bit Arm (A32): the same known workload, no
 * libc, so every user instruction it retires is below. Total user
 * instructions = 2 (load count) + 2 * LOOPS + 3 (exit); branches (bne) =
 * LOOPS. known-loop is the default; long-loop (-DLOOPS=0x80000001) retires
 * 2^32 + 7, past what one 32-bit counter holds.
 */
#ifndef LOOPS
#define LOOPS 10000000
#endif

	.arm
	.text
	.global _start
_start:
	movw	r0, #(LOOPS & 0xffff)
	movt	r0, #(LOOPS >> 16)
.Lloop:
	subs	r0, r0, #1
	bne	.Lloop
	mov	r0, #0
	mov	r7, #1		/* exit */
	svc	#0
