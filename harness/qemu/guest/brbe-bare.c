// SPDX-License-Identifier: GPL-2.0
/*
 * Register-level checks of our QEMU's FEAT_BRBE model, with no kernel in
 * the way: QEMU loads this ELF on the virt board and starts it at EL2,
 * which runs known branch sequences at EL1 and EL0 (brbe-bare-start.S)
 * and compares the branch record buffer with what the architecture says
 * it must hold, record by record, and prints TAP on the PL011.
 *
 * test-bare.sh tells the program what the CPU should have: the word at
 * EXPECT is the expected BRBIDR0_EL1.NUMREC, or 0 for a CPU without BRBE,
 * plus EXPECT_LAZY when QEMU runs with x-pmu-lazy-sync=on (BRBE control
 * writes act at the next context synchronization event).
 */
#include <stdint.h>

#include "bare-tap.h"

#define EXPECT		((volatile uint32_t *)0x47ffe000)
#define EXPECT_LAZY	0x100

#define read_sysreg(r) ({ uint64_t __v; asm volatile("mrs %0, " #r : "=r"(__v)); __v; })
#define write_sysreg(v, r) asm volatile("msr " #r ", %0; isb" : : "r"((uint64_t)(v)))

/* BRBE registers by encoding: the assembler need not know their names */
#define BRBCR_EL1	s2_1_c9_c0_0
#define BRBFCR_EL1	s2_1_c9_c0_1
#define BRBTS_EL1	s2_1_c9_c0_2
#define BRBINFINJ_EL1	s2_1_c9_c1_0
#define BRBSRCINJ_EL1	s2_1_c9_c1_1
#define BRBTGTINJ_EL1	s2_1_c9_c1_2
#define BRBIDR0_EL1	s2_1_c9_c2_0
#define BRBCR_EL2	s2_4_c9_c0_0
#define brb_iall()	asm volatile("sys #1, c7, c2, #4; isb" ::: "memory")
#define brb_inj()	asm volatile("sys #1, c7, c2, #5; isb" ::: "memory")
#define rd(r)		read_sysreg(r)
#define wr(v, r)	write_sysreg(v, r)

/* BRBCR_EL1/EL2 */
#define E0BRE		(1UL << 0)	/* BRBCR_EL2: E0HBRE */
#define E1BRE		(1UL << 1)	/* BRBCR_EL2: E2BRE */
#define CC		(1UL << 3)
#define MPRED		(1UL << 4)
#define TS_VIRT		(1UL << 5)
#define TS_PHYS		(3UL << 5)
#define FZP		(1UL << 8)
#define ERTN		(1UL << 22)
#define EXCEPTION	(1UL << 23)
/* BRBFCR_EL1 */
#define PAUSED		(1UL << 7)
#define ENI		(1UL << 16)
#define F_DIRECT	(1UL << 17)
#define F_INDIRECT	(1UL << 18)
#define F_RTN		(1UL << 19)
#define F_INDCALL	(1UL << 20)
#define F_DIRCALL	(1UL << 21)
#define F_CONDDIR	(1UL << 22)
#define F_ALL		(0x3fUL << 17)
#define BANK1		(1UL << 28)
/* BRBINF: TYPE */
#define T_DIRECT	0x00
#define T_INDIRECT	0x01
#define T_DIRECT_LINK	0x02
#define T_INDIRECT_LINK	0x03
#define T_RET		0x05
#define T_ERET		0x07
#define T_COND		0x08
#define T_CALL		0x22
#define V_TARGET	1
#define V_SOURCE	2
#define V_FULL		3
#define CCU		(1UL << 46)
#define MPRED_BIT	(1UL << 5)

/* PMU */
#define PMCR_E		(1UL << 0)
#define PMCR_LC		(1UL << 6)
#define BR_RETIRED	0x21
#define MDCR_HPME	(1UL << 7)
#define HCR_RW		(1UL << 31)
#define HCR_TGE		(1UL << 27)

#define SPSR_EL1H	0x3c5UL
#define SPSR_EL0T	0x3c0UL

extern char el1_seq[], s_b[], t_b[], s_bl[], s_br[], t_br[], s_blr[],
	s_cbz[], t_cbz[], s_beq[], t_beq[], s_tbnz[], t_tbnz[], s_svc[],
	s_eret0[], el0_seq[], s_b0[], t_b0[], s_svc0[], el1_func[], s_ret[],
	vectors1[], s_eret1[], el0_host_seq[], s_b2[], t_b2[], loop_el1[],
	s_loop[], t_loop[], el0_host_cond[], s_c0[], t_c0[], s_c2[], t_c2[],
	s_lz1[], s_lz2[], s_lc1[], s_lc2[];
extern volatile uint64_t undef_count;
extern void run_lower(void *entry, uint64_t spsr);
extern void el2_cond(uint64_t cr2);
extern uint64_t lazy_fcr(uint64_t cr2, uint64_t fcr, uint64_t fcr2);
extern uint64_t lazy_cr2(uint64_t cr2, uint64_t fcr);
extern uint64_t bank_read(uint64_t fcr);

#define A(x)	((uint64_t)(x))


/* GCC may call these for structure copies, even freestanding */
void *memcpy(void *d, const void *s, unsigned long n);
void *memcpy(void *d, const void *s, unsigned long n)
{
	char *dp = d;
	const char *sp = s;

	while (n--)
		*dp++ = *sp++;
	return d;
}

/* "prefix_suffix" names without a C library */
static const char *name2(const char *a, const char *b, int idx)
{
	static char buf[96];
	char *p = buf;

	while (*a)
		*p++ = *a++;
	*p++ = '_';
	while (*b)
		*p++ = *b++;
	if (idx >= 0) {
		if (idx >= 10)
			*p++ = '0' + idx / 10;
		*p++ = '0' + idx % 10;
	}
	*p = 0;
	return buf;
}

/* BRBINF/BRBSRC/BRBTGT<n>_EL1, n = 0..31, by encoding */
#define BRB_CASE(n, crm, o0, o1, o2) \
	case n: \
		if (k == 0) \
			asm volatile("mrs %0, s2_1_c8_c" #crm "_" #o0 : "=r"(v)); \
		else if (k == 1) \
			asm volatile("mrs %0, s2_1_c8_c" #crm "_" #o1 : "=r"(v)); \
		else \
			asm volatile("mrs %0, s2_1_c8_c" #crm "_" #o2 : "=r"(v)); \
		break;

static uint64_t brb_read(int k, int n)
{
	uint64_t v = 0;

	switch (n) {
	BRB_CASE(0, 0, 0, 1, 2) BRB_CASE(1, 1, 0, 1, 2)
	BRB_CASE(2, 2, 0, 1, 2) BRB_CASE(3, 3, 0, 1, 2)
	BRB_CASE(4, 4, 0, 1, 2) BRB_CASE(5, 5, 0, 1, 2)
	BRB_CASE(6, 6, 0, 1, 2) BRB_CASE(7, 7, 0, 1, 2)
	BRB_CASE(8, 8, 0, 1, 2) BRB_CASE(9, 9, 0, 1, 2)
	BRB_CASE(10, 10, 0, 1, 2) BRB_CASE(11, 11, 0, 1, 2)
	BRB_CASE(12, 12, 0, 1, 2) BRB_CASE(13, 13, 0, 1, 2)
	BRB_CASE(14, 14, 0, 1, 2) BRB_CASE(15, 15, 0, 1, 2)
	BRB_CASE(16, 0, 4, 5, 6) BRB_CASE(17, 1, 4, 5, 6)
	BRB_CASE(18, 2, 4, 5, 6) BRB_CASE(19, 3, 4, 5, 6)
	BRB_CASE(20, 4, 4, 5, 6) BRB_CASE(21, 5, 4, 5, 6)
	BRB_CASE(22, 6, 4, 5, 6) BRB_CASE(23, 7, 4, 5, 6)
	BRB_CASE(24, 8, 4, 5, 6) BRB_CASE(25, 9, 4, 5, 6)
	BRB_CASE(26, 10, 4, 5, 6) BRB_CASE(27, 11, 4, 5, 6)
	BRB_CASE(28, 12, 4, 5, 6) BRB_CASE(29, 13, 4, 5, 6)
	BRB_CASE(30, 14, 4, 5, 6) BRB_CASE(31, 15, 4, 5, 6)
	}
	return v;
}

struct rec {
	uint64_t src, tgt, inf;
};

static int numrec;

/* Record r of the buffer (0 is the newest), through BRBFCR_EL1.BANK */
static struct rec rec_read(int r)
{
	uint64_t fcr = rd(BRBFCR_EL1);
	struct rec x;

	wr((fcr & ~BANK1) | (r >= 32 ? BANK1 : 0), BRBFCR_EL1);
	x.src = brb_read(1, r % 32);
	x.tgt = brb_read(2, r % 32);
	x.inf = brb_read(0, r % 32);
	wr(fcr, BRBFCR_EL1);
	return x;
}

/* How many valid records the buffer holds (they are the newest ones) */
static int rec_count(void)
{
	int r;

	for (r = 0; r < numrec; r++)
		if (!(rec_read(r).inf & 3))
			break;
	return r;
}

/*
 * The records the EL1 sequence makes with everything enabled, newest
 * first, with the exception level of each side (for the prohibited
 * regions) and what enables the record (a BRBFCR bit, EXCEPTION or ERTN).
 */
struct exp {
	const char *name;
	uint64_t src, tgt;
	unsigned int type, src_el, tgt_el;
	uint64_t filter;	/* its BRBFCR_EL1 type bit, or 0 ... */
	uint64_t enable;	/* ... its BRBCR_EL1 bit, EXCEPTION or ERTN */
};

#define SEQ_N	14
static struct exp seq[SEQ_N];

static void seq_init(void)
{
	struct exp s[SEQ_N] = {
		{ "svc_el0", A(s_svc0) + 4, A(vectors1) + 0x400, T_CALL, 0, 1, 0, EXCEPTION },
		{ "b_el0", A(s_b0), A(t_b0), T_DIRECT, 0, 0, F_DIRECT, 0 },
		{ "eret_to_el0", A(s_eret0), A(el0_seq), T_ERET, 1, 0, 0, ERTN },
		{ "eret_el1", A(s_eret1), A(s_svc) + 4, T_ERET, 1, 1, 0, ERTN },
		{ "svc_el1", A(s_svc) + 4, A(vectors1) + 0x200, T_CALL, 1, 1, 0, EXCEPTION },
		{ "tbnz", A(s_tbnz), A(t_tbnz), T_COND, 1, 1, F_CONDDIR, 0 },
		{ "beq", A(s_beq), A(t_beq), T_COND, 1, 1, F_CONDDIR, 0 },
		{ "cbz", A(s_cbz), A(t_cbz), T_COND, 1, 1, F_CONDDIR, 0 },
		{ "ret2", A(s_ret), A(s_blr) + 4, T_RET, 1, 1, F_RTN, 0 },
		{ "blr", A(s_blr), A(el1_func), T_INDIRECT_LINK, 1, 1, F_INDCALL, 0 },
		{ "br", A(s_br), A(t_br), T_INDIRECT, 1, 1, F_INDIRECT, 0 },
		{ "ret1", A(s_ret), A(s_bl) + 4, T_RET, 1, 1, F_RTN, 0 },
		{ "bl", A(s_bl), A(el1_func), T_DIRECT_LINK, 1, 1, F_DIRCALL, 0 },
		{ "b", A(s_b), A(t_b), T_DIRECT, 1, 1, F_DIRECT, 0 },
	};
	int i;

	for (i = 0; i < SEQ_N; i++)
		seq[i] = s[i];
}

static uint64_t inf_fields(unsigned int type, unsigned int el,
			   unsigned int valid)
{
	return type << 8 | el << 6 | valid;
}

/* Start from an empty buffer, run the EL1 sequence with these controls */
static void run_seq(uint64_t cr1, uint64_t cr2, uint64_t fcr)
{
	wr(cr2, BRBCR_EL2);
	wr(cr1, BRBCR_EL1);
	wr(fcr, BRBFCR_EL1);
	brb_iall();
	run_lower(el1_seq, SPSR_EL1H);
}

/*
 * What the sequence must leave with BRBCR_EL1 = cr1 and BRBFCR_EL1 = fcr
 * (BRBCR_EL2 clear: EL2 records nothing): a side at an EL whose E0BRE or
 * E1BRE is clear is prohibited, reads as 0 and is left out of VALID; a
 * record with both sides prohibited, or of a type filtered out, is not
 * made. Compares the buffer with that; returns the number of records.
 */
static int expect_seq(const char *name, uint64_t cr1, uint64_t fcr)
{
	int allowed[2] = { !!(cr1 & E0BRE), !!(cr1 & E1BRE) };
	int i, n = 0, bad = -1;
	struct rec got;

	for (i = 0; i < SEQ_N; i++) {
		const struct exp *e = &seq[i];
		int src_ok = allowed[e->src_el], tgt_ok = allowed[e->tgt_el];
		int on;

		if (e->filter)
			on = !!(fcr & e->filter) ^ !!(fcr & ENI);
		else
			on = !!(cr1 & e->enable);
		if (!on || !(src_ok || tgt_ok))
			continue;
		got = rec_read(n);
		if (bad < 0 &&
		    (got.src != (src_ok ? e->src : 0) ||
		     got.tgt != (tgt_ok ? e->tgt : 0) ||
		     (got.inf & 0x3fff) != inf_fields(e->type, e->tgt_el,
						       src_ok << 1 | tgt_ok))) {
			bad = n;
			puts_("# ");
			puts_(name);
			puts_(": record ");
			putu(n);
			puts_(" (");
			puts_(e->name);
			puts_(") src ");
			putx(got.src);
			puts_(" tgt ");
			putx(got.tgt);
			puts_(" inf ");
			putx(got.inf);
			putc_('\n');
		}
		n++;
	}
	check(name2(name, "count", -1), rec_count(), n);
	ok(name2(name, "records", -1), bad < 0);
	return n;
}

static void id_tests(int expect)
{
	uint64_t dfr0 = rd(id_aa64dfr0_el1);

	check("id_aa64dfr0_brbe", (dfr0 >> 52) & 0xf, expect ? 2 : 0);
	if (!expect) {
		/* No BRBE: its registers and instructions are UNDEFINED */
		undef_count = 0;
		(void)rd(BRBIDR0_EL1);
		(void)rd(BRBCR_EL1);
		wr(0, BRBFCR_EL1);
		(void)brb_read(0, 0);
		brb_iall();
		check("brbe_registers_undefined", undef_count, 5);
		return;
	}
	/* CC 20-bit, FORMAT 0, NUMREC */
	check("brbidr0", rd(BRBIDR0_EL1), 0x5000 | expect);
}

/* The sequence with everything on: every record, field by field */
static void sequence_tests(void)
{
	uint64_t cr1 = E0BRE | E1BRE | EXCEPTION | ERTN | CC;
	int i;

	run_seq(cr1, CC, F_ALL);
	check("seq_count", rec_count(), SEQ_N);
	for (i = 0; i < SEQ_N; i++) {
		struct rec r = rec_read(i);

		check(name2("seq", seq[i].name, -1), r.src, seq[i].src);
		check(name2("seq", seq[i].name, -1), r.tgt, seq[i].tgt);
		check(name2("seq", seq[i].name, -1), r.inf & 0x3fff,
		      inf_fields(seq[i].type, seq[i].tgt_el, V_FULL));
	}
	/*
	 * CC: cycles (instructions, under -icount shift=0) since the last
	 * record: the BL is the first instruction after the B; BR follows
	 * the RET's return with an ADR; BLR follows BR's target with an ADR
	 * and 5 NOPs.
	 */
	check("cc_bl", rec_read(12).inf >> 32, 1);
	check("cc_br", rec_read(10).inf >> 32, 2);
	check("cc_blr", rec_read(9).inf >> 32, 7);

	/* Not-taken CBNZ: nothing between CBZ's and B.EQ's records */
	check("cond_not_taken_not_recorded", rec_read(6).src, A(s_beq));

	/* BRBCR.CC clear (at EL1 or at EL2): CC 0, CCU set */
	run_seq(cr1 & ~CC, CC, F_ALL);
	check("cc_off_ccu", rec_read(9).inf >> 32, CCU >> 32);
	run_seq(cr1, 0, F_ALL);
	check("cc_off_at_el2_ccu", rec_read(9).inf >> 32, CCU >> 32);

}

/*
 * MPRED of each record of the EL1 sequence, newest first, as the model's
 * static predictor makes it: taken forward conditional branches (TBNZ,
 * B.EQ, CBZ) and indirect branches (BLR, BR) mispredicted; B, BL, RET,
 * ERET predicted; exceptions 0.
 */
static const int seq_mpred[SEQ_N] = { 0, 0, 0, 0, 0, 1, 1, 1, 0, 1, 1, 0, 0, 0 };

/* How many records of the EL1 sequence have MPRED set */
static int mpred_count(void)
{
	int i, n = 0;

	for (i = 0; i < SEQ_N; i++)
		n += !!(rec_read(i).inf & MPRED_BIT);
	return n;
}

/*
 * BRBEMispredictAllowed() and BRBCycleCountingEnabled(): a record has
 * MPRED and its cycle count only if BRBCR_EL1 and BRBCR_EL2 both allow
 * them, at EL1 and EL0 as at EL2 and the host's EL0 (HCR_EL2.TGE).
 */
static void mpred_cc_tests(void)
{
	uint64_t cr1 = E0BRE | E1BRE | EXCEPTION | ERTN | CC | MPRED;
	struct rec r;
	int i;

	run_seq(cr1, CC | MPRED, F_ALL);
	for (i = 0; i < SEQ_N; i++)
		check(name2("mpred", seq[i].name, -1),
		      !!(rec_read(i).inf & MPRED_BIT), seq_mpred[i]);
	run_seq(cr1, CC, F_ALL);
	check("mpred_off_at_el2_none", mpred_count(), 0);
	run_seq(cr1 & ~MPRED, CC | MPRED, F_ALL);
	check("mpred_off_at_el1_none", mpred_count(), 0);

	/* Records at EL2: BRBCR_EL1's CC and MPRED count too */
	wr(F_CONDDIR, BRBFCR_EL1);
	wr(0, BRBCR_EL1);
	brb_iall();
	el2_cond(E1BRE | CC | MPRED);
	check("el2_cond_count", rec_count(), 1);
	r = rec_read(0);
	check("el2_cond_src", r.src, A(s_c2));
	check("el2_record_needs_el1_mpred", r.inf & MPRED_BIT, 0);
	check("el2_record_needs_el1_cc", r.inf & CCU, CCU);
	wr(CC | MPRED, BRBCR_EL1);
	brb_iall();
	el2_cond(E1BRE | CC | MPRED);
	r = rec_read(0);
	check("el2_record_mpred_with_both", r.inf & MPRED_BIT, MPRED_BIT);
	check("el2_record_cc_with_both", r.inf & CCU, 0);
	check("el2_record_inf", r.inf & 0x3fdf, inf_fields(T_COND, 2, V_FULL));

	/* The host's EL0 (TGE): the same */
	wr(rd(hcr_el2) | HCR_TGE, hcr_el2);
	wr(0, BRBCR_EL1);
	wr(E0BRE | CC | MPRED, BRBCR_EL2);
	brb_iall();
	run_lower(el0_host_cond, SPSR_EL0T);
	check("host_el0_cond_count", rec_count(), 1);
	r = rec_read(0);
	check("host_el0_cond_src", r.src, A(s_c0));
	check("host_el0_record_needs_el1_mpred", r.inf & MPRED_BIT, 0);
	check("host_el0_record_needs_el1_cc", r.inf & CCU, CCU);
	wr(CC | MPRED, BRBCR_EL1);
	brb_iall();
	run_lower(el0_host_cond, SPSR_EL0T);
	r = rec_read(0);
	check("host_el0_record_mpred_with_both", r.inf & MPRED_BIT, MPRED_BIT);
	check("host_el0_record_cc_with_both", r.inf & CCU, 0);
	wr(rd(hcr_el2) & ~HCR_TGE, hcr_el2);
	wr(0, BRBCR_EL2);
	wr(0, BRBCR_EL1);
}

/*
 * Writes of BRBFCR_EL1 (PAUSED, BANK) and BRBCR_EL2 reach recording at
 * the next context synchronization event under x-pmu-lazy-sync, at once
 * without it; a direct read sees them at once either way.
 */
static void sync_tests(int lazy)
{
	uint64_t v;

	/* Pausing: the branch before the ISB is still recorded */
	v = lazy_fcr(E1BRE, F_DIRECT, F_DIRECT | PAUSED);
	check("sync_paused_read_at_once", v & PAUSED, PAUSED);
	check("sync_pause_count", rec_count(), lazy ? 1 : 0);
	check("sync_pause_record", rec_read(0).src, lazy ? A(s_lz1) : 0);

	/* Resuming: the branch before the ISB is not recorded yet */
	v = lazy_fcr(E1BRE, F_DIRECT | PAUSED, F_DIRECT);
	check("sync_resumed_read_at_once", v & PAUSED, 0);
	check("sync_resume_count", rec_count(), lazy ? 1 : 2);
	check("sync_resume_record", rec_read(0).src, A(s_lz2));

	/* Enabling EL2 in BRBCR_EL2 */
	v = lazy_cr2(E1BRE, F_DIRECT);
	check("sync_cr2_read_at_once", v, E1BRE);
	check("sync_cr2_count", rec_count(), lazy ? 1 : 2);
	check("sync_cr2_record", rec_read(0).src, A(s_lc2));
	wr(0, BRBFCR_EL1);

	/* BANK picks the records a direct read names: an indirect read */
	run_seq(E0BRE | E1BRE | EXCEPTION | ERTN, 0, F_ALL);
	check("sync_bank_read", bank_read(F_ALL | BANK1),
	      lazy ? seq[0].src : 0);
	wr(F_ALL, BRBFCR_EL1);

	/* An exception return synchronizes: no ISB before run_lower */
	wr(E0BRE | E1BRE | EXCEPTION | ERTN, BRBCR_EL1);
	wr(0, BRBFCR_EL1);
	brb_iall();
	asm volatile("msr s2_1_c9_c0_1, %0" : : "r"(F_ALL));
	run_lower(el1_seq, SPSR_EL1H);
	check("sync_eret_synchronizes", rec_count(), SEQ_N);
	wr(0, BRBCR_EL1);
	wr(0, BRBFCR_EL1);
}

static void filter_tests(void)
{
	static const struct {
		const char *name;
		uint64_t bit;
	} f[] = {
		{ "filter_direct", F_DIRECT }, { "filter_indirect", F_INDIRECT },
		{ "filter_rtn", F_RTN }, { "filter_indcall", F_INDCALL },
		{ "filter_dircall", F_DIRCALL }, { "filter_conddir", F_CONDDIR },
	};
	uint64_t cr1 = E0BRE | E1BRE | EXCEPTION | ERTN;
	unsigned int i;

	/* Each type bit clear removes exactly its type */
	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		run_seq(cr1, 0, F_ALL & ~f[i].bit);
		expect_seq(f[i].name, cr1, F_ALL & ~f[i].bit);
	}
	/* EnI: the selected types are the ones left out */
	run_seq(cr1, 0, ENI | F_CONDDIR | F_RTN);
	check("filter_eni_excludes",
	      expect_seq("filter_eni", cr1, ENI | F_CONDDIR | F_RTN), 9);
	/* No type selected: branches left out, exceptions still recorded */
	run_seq(cr1, 0, 0);
	check("filter_none_keeps_exceptions",
	      expect_seq("filter_none", cr1, 0), 4);
	/* EXCEPTION and ERTN */
	run_seq(cr1 & ~EXCEPTION, 0, F_ALL);
	check("no_exception_records",
	      expect_seq("filter_exception", cr1 & ~EXCEPTION, F_ALL), 12);
	run_seq(cr1 & ~ERTN, 0, F_ALL);
	check("no_eret_records",
	      expect_seq("filter_ertn", cr1 & ~ERTN, F_ALL), 12);
}

static void prohibited_tests(void)
{
	uint64_t all = E0BRE | E1BRE | EXCEPTION | ERTN;
	struct rec r;

	/*
	 * EL0 prohibited: no EL0 branch; the ERET to EL0 keeps its source
	 * only, the SVC from EL0 its target only.
	 */
	run_seq(all & ~E0BRE, 0, F_ALL);
	check("el0_prohibited_count",
	      expect_seq("el0_prohibited", all & ~E0BRE, F_ALL), 13);
	r = rec_read(0);
	check("el0_prohibited_svc_target_only", r.inf & 3, V_TARGET);
	check("el0_prohibited_svc_src_zero", r.src, 0);
	r = rec_read(1);
	check("el0_prohibited_eret_source_only", r.inf & 3, V_SOURCE);
	check("el0_prohibited_eret_tgt_zero", r.tgt, 0);

	/* EL1 prohibited: the reverse, and nothing made at EL1 */
	run_seq(all & ~E1BRE, 0, F_ALL);
	check("el1_prohibited_count",
	      expect_seq("el1_prohibited", all & ~E1BRE, F_ALL), 3);
	check("el1_prohibited_svc_source_only", rec_read(0).inf & 3, V_SOURCE);
	check("el1_prohibited_eret_target_only", rec_read(2).inf & 3, V_TARGET);

	/* Both: nothing */
	run_seq(EXCEPTION | ERTN, 0, F_ALL);
	check("all_prohibited_empty", rec_count(), 0);

	/*
	 * EL0 with HCR_EL2.TGE set is the host's: BRBCR_EL2.E0HBRE decides,
	 * not BRBCR_EL1.E0BRE; the SVC to EL2 is recorded with
	 * BRBCR_EL2.EXCEPTION, source only (EL2 itself is prohibited).
	 */
	wr(rd(hcr_el2) | HCR_TGE, hcr_el2);
	wr(E0BRE | E1BRE, BRBCR_EL1);
	wr(E0BRE, BRBCR_EL2);
	brb_iall();
	run_lower(el0_host_seq, SPSR_EL0T);
	check("host_el0_e0hbre_count", rec_count(), 1);
	r = rec_read(0);
	check("host_el0_branch_src", r.src, A(s_b2));
	check("host_el0_branch_inf", r.inf & 0x3fff,
	      inf_fields(T_DIRECT, 0, V_FULL));

	wr(0, BRBCR_EL2);
	brb_iall();
	run_lower(el0_host_seq, SPSR_EL0T);
	check("host_el0_e0bre_ignored", rec_count(), 0);

	wr(E0BRE | EXCEPTION, BRBCR_EL2);
	brb_iall();
	run_lower(el0_host_seq, SPSR_EL0T);
	check("host_el0_svc_count", rec_count(), 2);
	r = rec_read(0);
	check("host_el0_svc_src", r.src, A(t_b2) + 4);
	check("host_el0_svc_tgt", r.tgt, 0);
	check("host_el0_svc_inf", r.inf & 0x3fff,
	      inf_fields(T_CALL, 2, V_SOURCE));
	wr(rd(hcr_el2) & ~HCR_TGE, hcr_el2);
	wr(0, BRBCR_EL2);
}

/* Several runs fill the buffer: the oldest records fall out in order */
static void capacity_tests(void)
{
	uint64_t cr1 = E0BRE | E1BRE | EXCEPTION | ERTN;
	int r, runs, bad = -1;

	run_seq(cr1, 0, F_ALL);
	for (runs = 1; runs * SEQ_N < numrec + SEQ_N; runs++)
		run_lower(el1_seq, SPSR_EL1H);
	check("full_count", rec_count(), numrec);
	for (r = 0; r < numrec; r++) {
		struct rec x = rec_read(r);
		const struct exp *e = &seq[r % SEQ_N];

		if (bad < 0 && (x.src != e->src || x.tgt != e->tgt)) {
			bad = r;
			puts_("# record ");
			putu(r);
			puts_(" src ");
			putx(x.src);
			putc_('\n');
		}
	}
	ok("full_records_in_order", bad < 0);
	/* Bank 1 holds records 32-63, or reads as zero below 64 records */
	wr(BANK1 | F_ALL, BRBFCR_EL1);
	check("bank1_record0_src", brb_read(1, 0),
	      numrec > 32 ? seq[32 % SEQ_N].src : 0);
	check("bank1_record31_inf", brb_read(0, 31) & 3,
	      numrec > 32 ? V_FULL : 0);
	wr(F_ALL, BRBFCR_EL1);

	/* IALL empties it */
	brb_iall();
	check("iall_empties", rec_count(), 0);
	check("iall_record0_inf", rec_read(0).inf, 0);
}

static void inject_tests(void)
{
	uint64_t inf = inf_fields(T_INDIRECT, 1, V_FULL) | 5UL << 32;
	struct rec r;

	run_seq(E1BRE | E0BRE, 0, F_ALL);
	wr(inf, BRBINFINJ_EL1);
	wr(0x1234, BRBSRCINJ_EL1);
	wr(0x5678, BRBTGTINJ_EL1);
	check("injinf_reads_back", rd(BRBINFINJ_EL1), inf);
	brb_inj();
	r = rec_read(0);
	check("inj_record0_src", r.src, 0x1234);
	check("inj_record0_tgt", r.tgt, 0x5678);
	check("inj_record0_inf", r.inf, inf);
	check("inj_previous_record0_moves_to_1", rec_read(1).src, A(s_b0));
	check("inj_count", rec_count(), 11);
	check("inj_registers_invalid_after", rd(BRBINFINJ_EL1) & 3, 0);
}

/*
 * Freeze on overflow: PMU counter 0 counts BR_RETIRED at EL1 and EL0
 * and overflows on loop_el1's tenth branch; with BRBCR_EL1.FZP BRBE is
 * paused there, the nine branches before it recorded and the branch that
 * overflows and the rest not. Clearing the overflow and PAUSED resumes.
 */
#define LOOP_BRANCHES	40	/* loop_el1: 39 b.ne taken, 1 not taken */

/* A count of records, which the buffer holds at most NUMREC of */
static int at_most(int n)
{
	return n < numrec ? n : numrec;
}

static void pmu_setup(int counter, uint64_t start)
{
	wr(~0UL, pmcntenclr_el0);
	wr(~0UL, pmovsclr_el0);
	wr(~0UL, pmintenclr_el1);
	wr(counter, pmselr_el0);
	wr(BR_RETIRED, pmxevtyper_el0);
	wr(start, pmxevcntr_el0);
	wr(1UL << counter, pmintenset_el1);
	wr(PMCR_E, pmcr_el0);
	wr(1UL << counter, pmcntenset_el0);
}

static void freeze_tests(void)
{
	uint64_t mdcr = rd(mdcr_el2), t0, t1;
	unsigned int n = (rd(pmcr_el0) >> 11) & 0x1f;
	struct rec r;

	/* Counter 0 below HPMN, BRBCR_EL1.FZP */
	wr(E1BRE | FZP | TS_PHYS, BRBCR_EL1);
	wr(0, BRBCR_EL2);
	wr(F_ALL, BRBFCR_EL1);
	wr(0, BRBTS_EL1);
	brb_iall();
	pmu_setup(0, 0xffffffffUL - 9);
	t0 = rd(cntpct_el0);
	run_lower(loop_el1, SPSR_EL1H);
	t1 = rd(cntpct_el0);
	check("fzp_paused", rd(BRBFCR_EL1) & PAUSED, PAUSED);
	check("fzp_overflow_flagged", rd(pmovsclr_el0) & 1, 1);
	check("fzp_records_before_overflow", rec_count(), 9);
	r = rec_read(0);
	check("fzp_record0_is_loop_branch", r.src, A(s_loop));
	ok("fzp_brbts_captured",
	   rd(BRBTS_EL1) >= t0 && rd(BRBTS_EL1) <= t1);

	/* Nothing recorded while paused */
	run_lower(el1_seq, SPSR_EL1H);
	check("paused_records_nothing", rec_count(), 9);

	/* Clear the overflow, then PAUSED: recording resumes */
	wr(~0UL, pmcntenclr_el0);
	wr(~0UL, pmovsclr_el0);
	wr(F_ALL, BRBFCR_EL1);
	run_lower(loop_el1, SPSR_EL1H);
	check("resumed_records", rec_count(), at_most(9 + LOOP_BRANCHES - 1));
	check("resumed_not_paused", rd(BRBFCR_EL1) & PAUSED, 0);

	/* Without FZP, the same overflow does not pause */
	wr(E1BRE, BRBCR_EL1);
	brb_iall();
	pmu_setup(0, 0xffffffffUL - 9);
	run_lower(loop_el1, SPSR_EL1H);
	check("no_fzp_no_pause", rd(BRBFCR_EL1) & PAUSED, 0);
	check("no_fzp_all_recorded", rec_count(), at_most(LOOP_BRANCHES - 1));

	/*
	 * The cycle counter's overflow never freezes BRBE, FZP or not
	 * (CheckPMUOverflowCondition(PMUOverflowCondition_BRBEFreeze) leaves
	 * CCNTR out). It counts at EL1 only (PMCCFILTR_EL0 NSH clear), one
	 * cycle per instruction under -icount shift=0, and starts 41 cycles
	 * from its 32-bit overflow: it overflows at loop_el1's 20th B.NE, its
	 * interrupt enabled, and every branch of the loop is still recorded.
	 */
	wr(E1BRE | FZP, BRBCR_EL1);
	wr(F_ALL, BRBFCR_EL1);
	brb_iall();
	wr(~0UL, pmcntenclr_el0);
	wr(~0UL, pmovsclr_el0);
	wr(~0UL, pmintenclr_el1);
	wr(0, pmccfiltr_el0);
	wr(0xffffffffUL - 40, pmccntr_el0);
	wr(1UL << 31, pmintenset_el1);
	wr(PMCR_E, pmcr_el0);
	wr(1UL << 31, pmcntenset_el0);
	run_lower(loop_el1, SPSR_EL1H);
	check("fzp_cycle_counter_overflowed", rd(pmovsclr_el0) >> 31 & 1, 1);
	check("fzp_cycle_counter_no_pause", rd(BRBFCR_EL1) & PAUSED, 0);
	check("fzp_cycle_counter_all_recorded", rec_count(), at_most(LOOP_BRANCHES - 1));
	wr(~0UL, pmcntenclr_el0);
	wr(~0UL, pmovsclr_el0);

	/*
	 * An event counter's flag alone is the condition: with its counter,
	 * its interrupt and PMCR_EL0.E all disabled, a flag set freezes at
	 * the return to EL1 (EL2 is prohibited here), before any branch,
	 * and freezes again at every resume until it is cleared.
	 */
	wr(~0UL, pmintenclr_el1);
	wr(0, pmcr_el0);
	wr(E1BRE | FZP, BRBCR_EL1);
	wr(F_ALL, BRBFCR_EL1);
	brb_iall();
	wr(1UL, pmovsset_el0);
	run_lower(loop_el1, SPSR_EL1H);
	check("fzp_flag_without_enables_pauses", rd(BRBFCR_EL1) & PAUSED, PAUSED);
	check("fzp_flag_without_enables_records", rec_count(), 0);
	wr(F_ALL, BRBFCR_EL1);
	run_lower(loop_el1, SPSR_EL1H);
	check("fzp_flag_left_pauses_again", rd(BRBFCR_EL1) & PAUSED, PAUSED);
	check("fzp_flag_left_records", rec_count(), 0);
	wr(~0UL, pmovsclr_el0);
	wr(F_ALL, BRBFCR_EL1);
	run_lower(loop_el1, SPSR_EL1H);
	check("fzp_flag_cleared_records", rec_count(), at_most(LOOP_BRANCHES - 1));

	if (n < 2) {
		ok("fzp_hpmn_range # SKIP fewer than 2 counters", 1);
		return;
	}
	/*
	 * Counter n - 1 at or above MDCR_EL2.HPMN = n - 1 belongs to EL2:
	 * BRBCR_EL1.FZP does not freeze on it, BRBCR_EL2.FZP does.
	 */
	wr((mdcr & ~0x1fUL) | MDCR_HPME | (n - 1), mdcr_el2);
	wr(E1BRE | FZP, BRBCR_EL1);
	wr(F_ALL, BRBFCR_EL1);
	brb_iall();
	pmu_setup(n - 1, 0xffffffffUL - 9);
	run_lower(loop_el1, SPSR_EL1H);
	check("hpmn_counter_el1_fzp_no_pause", rd(BRBFCR_EL1) & PAUSED, 0);
	check("hpmn_counter_overflowed", (rd(pmovsclr_el0) >> (n - 1)) & 1, 1);

	wr(FZP, BRBCR_EL2);
	wr(F_ALL, BRBFCR_EL1);
	brb_iall();
	pmu_setup(n - 1, 0xffffffffUL - 9);
	run_lower(loop_el1, SPSR_EL1H);
	check("hpmn_counter_el2_fzp_pauses", rd(BRBFCR_EL1) & PAUSED, PAUSED);
	check("hpmn_counter_el2_fzp_records", rec_count(), 9);

	wr(~0UL, pmcntenclr_el0);
	wr(~0UL, pmovsclr_el0);
	wr(~0UL, pmintenclr_el1);
	wr(mdcr, mdcr_el2);
	wr(0, BRBCR_EL2);
	wr(0, BRBCR_EL1);
	wr(0, BRBFCR_EL1);
}

/*
 * BRBTS_EL1 on a freeze: BRBCR_EL2.TS decides unless it is 0b00, then
 * BRBCR_EL1.TS, whose 0b00 is reserved: the model captures 0.
 */
static uint64_t freeze_ts(uint64_t cr1, uint64_t cr2, uint64_t *t0, uint64_t *t1)
{
	uint64_t ts;

	wr(cr1 | FZP | E1BRE, BRBCR_EL1);
	wr(cr2, BRBCR_EL2);
	wr(F_ALL, BRBFCR_EL1);
	wr(0x1234, BRBTS_EL1);
	brb_iall();
	pmu_setup(0, 0xffffffffUL - 9);
	*t0 = rd(cntpct_el0);
	run_lower(loop_el1, SPSR_EL1H);
	*t1 = rd(cntpct_el0);
	ts = rd(BRBTS_EL1);
	check(name2("ts_paused", cr1 ? "el1" : cr2 ? "el2" : "none", -1),
	      rd(BRBFCR_EL1) & PAUSED, PAUSED);
	wr(~0UL, pmcntenclr_el0);
	wr(~0UL, pmovsclr_el0);
	wr(~0UL, pmintenclr_el1);
	wr(0, BRBCR_EL2);
	wr(0, BRBCR_EL1);
	wr(0, BRBFCR_EL1);
	return ts;
}

static void ts_tests(void)
{
	uint64_t t0, t1, ts;

	check("ts_reserved_captures_zero", freeze_ts(0, 0, &t0, &t1), 0);
	ts = freeze_ts(0, TS_PHYS, &t0, &t1);
	ok("ts_el2_decides", ts >= t0 && ts <= t1);
	/* No CNTVOFF_EL2 is set: the virtual count is the physical one */
	ts = freeze_ts(TS_VIRT, 0, &t0, &t1);
	ok("ts_el1_virtual", ts >= t0 && ts <= t1);
}

int main(void)
{
	int expect = *EXPECT & 0xff;
	int lazy = !!(*EXPECT & EXPECT_LAZY);

	tap_start();
	seq_init();
	puts_("# brbe-bare: expecting NUMREC ");
	putu(expect);
	putc_('\n');
	/* EL1 is AArch64 */
	wr(HCR_RW, hcr_el2);
	id_tests(expect);
	if (expect) {
		numrec = rd(BRBIDR0_EL1) & 0xff;
		sequence_tests();
		filter_tests();
		prohibited_tests();
		capacity_tests();
		inject_tests();
		freeze_tests();
		mpred_cc_tests();
		ts_tests();
		sync_tests(lazy);
	}
	puts_("1..");
	putu(test_n);
	putc_('\n');
	return 0;
}
