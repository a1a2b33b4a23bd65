/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The known branch sequence of brbe_pmu: brbe_seq(iters) runs seven taken
 * branches per iteration (B, BL, RET, BLR, RET, BR, CBNZ), each after a
 * different number of instructions since the previous one (1 to 7); the
 * labels name each branch and its target. seq[] describes the branches
 * as a record of each must read.
 */
#ifndef BRBE_SEQ_H
#define BRBE_SEQ_H

#include <stdint.h>
#include <string.h>
#include <linux/perf_event.h>

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

/* perf_branch_entry's flags word: bit fields as the uapi lays them out */
#define BR_FLAGS(br)	(((const uint64_t *)(br))[2])
#define BR_MISPRED(f)	((f) & 1)
#define BR_PREDICTED(f)	(((f) >> 1) & 1)
#define BR_CYCLES(f)	(((f) >> 4) & 0xffff)
#define BR_TYPE(f)	(((f) >> 20) & 0xf)
#define BR_PRIV(f)	(((f) >> 30) & 0x7)

#define NSEQ		7

struct seq_branch {
	const char *name;
	uintptr_t from, to;
	unsigned int type;	/* PERF_BR_* */
	uint64_t sel;		/* the filters that select it, besides ANY */
	unsigned int cycles;	/* instructions since the previous branch */
};

/* In program order; branch 0 follows branch NSEQ - 1 */
static struct seq_branch seq[NSEQ];

static inline void seq_init(void)
{
	struct seq_branch s[NSEQ] = {
		{ "b", (uintptr_t)seq_b, (uintptr_t)seq_bl, PERF_BR_UNCOND, 0, 1 },
		{ "bl", (uintptr_t)seq_bl_at, (uintptr_t)seq_fn_a, PERF_BR_CALL,
		  PERF_SAMPLE_BRANCH_CALL | PERF_SAMPLE_BRANCH_ANY_CALL, 2 },
		{ "ret_a", (uintptr_t)seq_ret_a, (uintptr_t)seq_after_bl, PERF_BR_RET,
		  PERF_SAMPLE_BRANCH_ANY_RETURN, 3 },
		{ "blr", (uintptr_t)seq_blr_at, (uintptr_t)seq_fn_b, PERF_BR_IND_CALL,
		  PERF_SAMPLE_BRANCH_IND_CALL | PERF_SAMPLE_BRANCH_ANY_CALL, 4 },
		{ "ret_b", (uintptr_t)seq_ret_b, (uintptr_t)seq_after_blr, PERF_BR_RET,
		  PERF_SAMPLE_BRANCH_ANY_RETURN, 5 },
		{ "br", (uintptr_t)seq_br_at, (uintptr_t)seq_ind_target, PERF_BR_IND,
		  PERF_SAMPLE_BRANCH_IND_JUMP, 6 },
		{ "cbnz", (uintptr_t)seq_cond_at, (uintptr_t)seq_b, PERF_BR_COND,
		  PERF_SAMPLE_BRANCH_COND, 7 },
	};

	memcpy(seq, s, sizeof(seq));
}

/* The branch of the sequence @br records, or -1 */
static inline int seq_find(const struct perf_branch_entry *br)
{
	int i;

	for (i = 0; i < NSEQ; i++) {
		if (br->from == seq[i].from && br->to == seq[i].to)
			return i;
	}
	return -1;
}

/* The branch before seq[i] that filter bst lets through */
static inline int seq_prev(int i, uint64_t bst)
{
	int k, j = i;

	for (k = 0; k < NSEQ; k++) {
		j = (j + NSEQ - 1) % NSEQ;
		if ((bst & PERF_SAMPLE_BRANCH_ANY) || (seq[j].sel & bst))
			return j;
	}
	return -1;
}

#endif /* BRBE_SEQ_H */
