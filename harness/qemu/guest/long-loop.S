/* SPDX-License-Identifier: GPL-2.0 */
/*
 * known-loop's longer sibling: more than 2^32 user instructions, so a
 * 32-bit event counter wraps and a chained pair's odd counter must count
 * (CHAIN) for the total to come out right. No libc, no relocation.
 * Total user instructions = 2 (load count) + 2 * LOOPS + 3 (exit)
 *                         = 4,294,967,303 = 2^32 + 7.
 * Branches (b.ne) = LOOPS = 2,147,483,649.
 */
#define LOOPS 0x80000001

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
