/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The known branch sequence of brbe_pmu: brbe_seq(iters) runs seven taken
 * branches per iteration (B, BL, RET, BLR, RET, BR, CBNZ), each after a
 * different number of instructions since the previous one (1 to 7); the
 * labels name each branch and its target.
 */
#ifndef BRBE_SEQ_H
#define BRBE_SEQ_H

/*
 * Two copies of the sequence (brbe_seq for one task, brbe_seq2 for the
 * other) so that each task's branches have addresses of their own.
 */
#define SEQ_ASM(n)							\
	"	.text\n"						\
	"	.p2align 6\n"						\
	"	.global brbe_seq" n "\n"				\
	"	.type brbe_seq" n ", %function\n"			\
	"brbe_seq" n ":\n"						\
	"	mov	x9, x30\n"					\
	"	adr	x10, seq" n "_ind_target\n"			\
	"	adr	x11, seq" n "_fn_b\n"				\
	"	.global seq" n "_b\n"					\
	"seq" n "_b:\n"							\
	"	b	seq" n "_bl\n"					\
	"	.global seq" n "_bl\n"					\
	"seq" n "_bl:\n"						\
	"	nop\n"							\
	"	.global seq" n "_bl_at\n"				\
	"seq" n "_bl_at:\n"						\
	"	bl	seq" n "_fn_a\n"				\
	"	.global seq" n "_after_bl\n"				\
	"seq" n "_after_bl:\n"						\
	"	nop\n nop\n nop\n"					\
	"	.global seq" n "_blr_at\n"				\
	"seq" n "_blr_at:\n"						\
	"	blr	x11\n"						\
	"	.global seq" n "_after_blr\n"				\
	"seq" n "_after_blr:\n"						\
	"	nop\n nop\n nop\n nop\n nop\n"				\
	"	.global seq" n "_br_at\n"				\
	"seq" n "_br_at:\n"						\
	"	br	x10\n"						\
	"	.global seq" n "_ind_target\n"				\
	"seq" n "_ind_target:\n"					\
	"	nop\n nop\n nop\n nop\n nop\n"				\
	"	sub	x0, x0, #1\n"					\
	"	.global seq" n "_cond_at\n"				\
	"seq" n "_cond_at:\n"						\
	"	cbnz	x0, seq" n "_b\n"				\
	"	mov	x30, x9\n"					\
	"	ret\n"							\
	"	.global seq" n "_fn_a\n"				\
	"seq" n "_fn_a:\n"						\
	"	nop\n nop\n"						\
	"	.global seq" n "_ret_a\n"				\
	"seq" n "_ret_a:\n"						\
	"	ret\n"							\
	"	.global seq" n "_fn_b\n"				\
	"seq" n "_fn_b:\n"						\
	"	nop\n nop\n nop\n nop\n"				\
	"	.global seq" n "_ret_b\n"				\
	"seq" n "_ret_b:\n"						\
	"	ret\n"							\
	"	.global brbe_seq" n "_end\n"				\
	"brbe_seq" n "_end:\n"

asm(SEQ_ASM("") SEQ_ASM("2"));

void brbe_seq(unsigned long iters);
void brbe_seq2(unsigned long iters);
extern const char brbe_seq_end[], brbe_seq2_end[];
extern const char seq_b[], seq_bl[], seq_bl_at[], seq_after_bl[], seq_blr_at[];
extern const char seq_after_blr[], seq_br_at[], seq_ind_target[], seq_cond_at[];
extern const char seq_fn_a[], seq_ret_a[], seq_fn_b[], seq_ret_b[];

#endif /* BRBE_SEQ_H */
