/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gap_loop(iters): one taken branch, the B.NE at gap_loop_br, every
 * GAP_INSNS instructions, so that under -icount shift=0 the number of
 * loop branches between two overflows of a user instruction count is
 * known from the period alone.
 */
#ifndef BRBE_GAP_H
#define BRBE_GAP_H

#define GAP_INSNS	10000

asm("	.text\n"
	"	.p2align 6\n"
	"	.global gap_loop\n"
	"gap_loop:\n"
	"	.rept 9998\n"		/* GAP_INSNS less the SUBS and the B.NE */
	"	nop\n"
	"	.endr\n"
	"	subs	x0, x0, #1\n"
	"	.global gap_loop_br\n"
	"gap_loop_br:\n"
	"	b.ne	gap_loop\n"
	"	ret\n");

void gap_loop(unsigned long iters);
extern const char gap_loop_br[];

#endif /* BRBE_GAP_H */
