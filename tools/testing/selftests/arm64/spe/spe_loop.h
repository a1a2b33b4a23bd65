/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The SPE selftests' known workload.
 *
 * spe_window(): between the PERF_EVENT_IOC_ENABLE and _DISABLE system
 * calls, 2 instructions, then a loop of 5, iters times, then 4 (the last
 * the disabling SVC): a window is 5 * iters + 6 members of the sampled
 * population at EL0.
 *
 *	mov	x13, x0			member 1
 *	mov	x0, x9			member 2
 * spe_loop_begin:
 *	and	x3, x0, #0x3ff		+0  other
 *	ldr	x1, [x14, x3, lsl #3]	+1  load of src[x0 & 1023], misaligned
 *	str	x1, [x15, x3, lsl #3]	+2  store to dst[x0 & 1023]
 *	subs	x0, x0, #1		+3  other
 *	b.ne	spe_loop_begin		+4  conditional branch
 *	mov x0, x10; mov x1, #0x2401; mov x2, #0; svc #0
 */
#ifndef SPE_LOOP_H
#define SPE_LOOP_H

/* Instruction i of iteration it (from 0) is member LOOP_PRE + 1 + 5 * it + i */
#define LOOP_PRE		2
#define LOOP_LEN		5
#define LOOP_POST		4
#define POS_AND			0
#define POS_LOAD		1
#define POS_STORE		2
#define POS_SUBS		3
#define POS_BNE			4
#define KEEP(pos)		(1U << (pos))
#define KEEP_ALL		((1U << LOOP_LEN) - 1)
#define KEEP_LDST		(KEEP(POS_LOAD) | KEEP(POS_STORE))
#define ARRAY_WORDS		1024

/*
 * long spe_window(fd, iters, src, dst): PERF_EVENT_IOC_ENABLE fd, run the
 * loop iters times (iters >= 1) over src and dst, _DISABLE fd. Returns
 * the enable call's result if non-zero, else the disable call's. The
 * kernel keeps every register but x0 across a system call.
 */
long spe_window(long fd, unsigned long iters, const void *src, void *dst);
extern const char spe_loop_begin[], spe_loop_end[];
asm("	.text\n"
"	.balign	64\n"
"	.global	spe_window\n"
"	.type	spe_window, %function\n"
"spe_window:\n"
"	mov	x10, x0\n"
"	mov	x9, x1\n"
"	mov	x14, x2\n"
"	mov	x15, x3\n"
"	mov	x8, #29\n"
"	mov	x1, #0x2400\n"
"	mov	x2, #0\n"
"	svc	#0\n"
"	mov	x13, x0\n"
"	mov	x0, x9\n"
"	.global	spe_loop_begin\n"
"spe_loop_begin:\n"
"	and	x3, x0, #0x3ff\n"
"	ldr	x1, [x14, x3, lsl #3]\n"
"	str	x1, [x15, x3, lsl #3]\n"
"	subs	x0, x0, #1\n"
"	b.ne	spe_loop_begin\n"
"	.global	spe_loop_end\n"
"spe_loop_end:\n"
"	mov	x0, x10\n"
"	mov	x1, #0x2401\n"
"	mov	x2, #0\n"
"	svc	#0\n"
"	cbz	x13, 1f\n"
"	mov	x0, x13\n"
"1:	ret\n"
"	.size	spe_window, . - spe_window\n");

#endif /* SPE_LOOP_H */
