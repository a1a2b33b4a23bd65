/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A workload for SPE with known operations and data: no libc, so every
 * user instruction it retires is below. Each pass of spe_loop loads
 * spe_buf[0], stores it to spe_buf[1], adds and counts down:
 * user instructions = 3 (set-up) + 5 * LOOPS + 3 (exit). Five, not four:
 * SPE intervals are multiples of 256 (PMSIRR_EL1.INTERVAL is bits 31:8),
 * and 256 mod 5 = 1, so successive samples walk through the loop's five
 * instructions in turn instead of always landing on the same one.
 */
#define LOOPS 1000000

	.text
	.global _start
_start:
	adr	x2, spe_buf
	movz	x0, #(LOOPS & 0xffff)
	movk	x0, #(LOOPS >> 16), lsl #16

	.global spe_loop
	.type	spe_loop, %function
spe_loop:
	ldr	x1, [x2]
	str	x1, [x2, #8]
	add	x3, x3, #1
	subs	x0, x0, #1
	b.ne	spe_loop
	.size	spe_loop, . - spe_loop

	mov	x0, #0
	mov	x8, #93		/* exit */
	svc	#0

	.data
	.balign	16
	.global	spe_buf
	.type	spe_buf, %object
spe_buf:
	.quad	0x5350455f4c4f4f50, 0
	.size	spe_buf, . - spe_buf
