/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A workload of exactly known exceptions and branches: N system calls in
 * a loop, N = 1000 * argc ("svc-loop" makes 1000, "svc-loop x" 2000), so a
 * test can compare two runs and cancel what is not the loop's. No libc,
 * no relocation.
 *
 * At EL0 it executes:
 *   instructions  4 + 4 * N + 3
 *   branches      N              (b.ne; svc is not a branch)
 *   svc           N + 1          (N invalid system calls, then exit)
 * The invalid system call number makes each call return -ENOSYS at once.
 */
#define PER_ARG	1000

	.text
	.global _start
_start:
	ldr	x19, [sp]		/* argc */
	mov	x20, #PER_ARG
	mul	x19, x19, x20
	mov	x8, #0xfff		/* no such system call */
.Lloop:
	svc	#0
	mov	x8, #0xfff
	subs	x19, x19, #1
	b.ne	.Lloop
	mov	x0, #0
	mov	x8, #93			/* exit */
	svc	#0
