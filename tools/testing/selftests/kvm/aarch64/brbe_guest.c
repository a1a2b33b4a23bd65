// SPDX-License-Identifier: GPL-2.0-only
/*
 * brbe_guest - a KVM guest with a vPMU programs the Branch Record Buffer
 *
 * KVM shows ID_AA64DFR0_EL1.BRBE to a guest with a vPMU where the host has
 * BRBE. From a vCPU's load on which the guest left BRBE recording, or from
 * its first BRBE access after the load, which traps once, KVM leaves the
 * guest's BRBE registers and BRB IALL/INJ untrapped and switches
 * BRBCR_EL1, BRBFCR_EL1 and BRBTS_EL1 at every entry and exit, emptying
 * the buffer (BRB IALL) each time so that no record crosses between host
 * and guest (Documentation/arch/arm64/brbe-kvm.rst).
 *
 * The guest programs the buffer itself, as on bare metal, and hands what
 * it read to the host, which checks:
 *
 *   - a known sequence of branches at guest EL1 (B, BL, B, RET, CBZ, BR)
 *     gives exactly its six records, newest first: source, target, type,
 *     EL and validity, and nothing older (the guest emptied the buffer);
 *     its run exits twice: its first BRBE access, and its sync;
 *   - a filter (BRBFCR_EL1 RTN | DIRCALL) keeps the BL and the RET only;
 *   - BRB IALL leaves no valid record;
 *   - with every level, type, exception and exception return recorded
 *     across an exit to the host (which meanwhile records its own
 *     branches with a branch-stack perf event, kernel and hypervisor
 *     included), every record the guest finds is its own: EL1, source
 *     and target inside this program's text, and none made before the
 *     exit (the switch empties the buffer);
 *   - the guest's BRBFCR_EL1 and BRBTS_EL1 are vCPU state that userspace
 *     reads and writes through one-reg (KVM_GET_REG_LIST lists them);
 *   - userspace can hide BRBE (ID_AA64DFR0_EL1.BRBE written 0): the guest
 *     then reads BRBE as absent and takes an UNDEF on BRBCR_EL1;
 *   - with BRBCR_EL1.FZP set, the overflow of the guest's own BR_RETIRED
 *     counter at the third branch of the sequence pauses the buffer
 *     (BRBFCR_EL1.PAUSED) and the guest finds exactly the two branches
 *     before it, although the overflow's interrupt exited to the host;
 *   - a host event's overflow while the guest runs (the hardware freezes
 *     the guest's buffer on any counter's) leaves the guest unpaused, its
 *     last branch recorded;
 *   - the guest's cycle counter overflowing with FZP set leaves the guest
 *     unpaused too: the cycle counter never freezes BRBE;
 *   - a buffer the guest paused itself stays paused, its records kept,
 *     across an exit, and across the exits of a host event's overflows;
 *   - the injection registers keep what the guest wrote across an exit,
 *     and userspace reads them through one-reg;
 *   - controls restored recording by userspace (a migration) record from
 *     the first entry, without a trap, also in a new VM on a host where
 *     no VM has had BRBE live yet; a guest's first access being a
 *     record read finds no host record, and BRB IALL and BRB INJ as first
 *     accesses act on the guest's own buffer after their trap;
 *   - a freeze with physical timestamps gives the guest's count, its
 *     offset applied, never the host's raw counter.
 *
 * A guest run that exits more than once (a host interrupt in the middle)
 * loses its records at that exit, by design: such a run is repeated, at
 * most RETRIES times. Under QEMU's -icount the runs are deterministic.
 *
 * Encodings and fields from the Arm ARM (op0 2, op1 1): BRBCR_EL1
 * c9_c0_0, BRBFCR_EL1 c9_c0_1, BRBTS_EL1 c9_c0_2, BRBIDR0_EL1 c9_c2_0;
 * record n < 16's BRBINF, BRBSRC, BRBTGT c8_c<n>_0, _1, _2, record n + 16's
 * c8_c<n>_4, _5, _6; BRB IALL is sys #1, C7, C2, #4.
 */
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>
#include <linux/stringify.h>

#include <kvm_util.h>
#include <processor.h>
#include <test_util.h>
#include <vgic.h>

#include "vcpu_stat.h"
#include "vpmu_vm.h"

#define BRBCR_FZP		BIT(8)
#define BRBCR_TS_VIRTUAL	(1UL << 5)
#define BRBCR_TS_PHYSICAL	(3UL << 5)
/* A freeze captures the timestamp TS selects: TS 0b00 is reserved */
#define BRBCR_FREEZE		(BRBCR_FZP | BRBCR_TS_VIRTUAL)
#define BRBCR_ERTN		BIT(22)
#define BRBCR_EXCEPTION		BIT(23)

#define BRBFCR_DIRECT		BIT(17)
#define BRBFCR_INDIRECT		BIT(18)
#define BRBFCR_RTN		BIT(19)
#define BRBFCR_INDCALL		BIT(20)
#define BRBFCR_DIRCALL		BIT(21)
#define BRBFCR_CONDDIR		BIT(22)
#define BRBFCR_ALL		(BRBFCR_DIRECT | BRBFCR_INDIRECT | BRBFCR_RTN | \
				 BRBFCR_INDCALL | BRBFCR_DIRCALL | BRBFCR_CONDDIR)
#define BRBFCR_PAUSED		BIT(7)

#define PMCR_E			BIT(0)
#define PMCR_LC			BIT(6)
#define PMOVS_ALL		GENMASK(31, 0)	/* the cycle counter and 31 others */
#define EV_BR_RETIRED		0x21
/* The guest's counter overflows at the sequence's third branch, the RET */
#define FREEZE_AT		3
#define CYCLES_AT		200	/* cycles to the cycle counter's overflow */
/* The host event's period, in guest branches, and the guest's loop */
#define HOST_PERIOD		50
#define LOOP_BRANCHES		400

#define BRBINF_VALID(inf)	((inf) & 3)
#define BRBINF_VALID_TARGET	1
#define BRBINF_VALID_SOURCE	2
#define BRBINF_VALID_FULL	3
#define BRBINF_EL(inf)		(((inf) >> 6) & 3)
#define BRBINF_TYPE(inf)	(((inf) >> 8) & 0x3f)
#define TYPE_DIRECT		0
#define TYPE_INDIRECT		1
#define TYPE_DIRECT_LINK	2
#define TYPE_RET		5
#define TYPE_DIRECT_COND	8

#define SYS_BRBTS_EL1		sys_reg(2, 1, 9, 0, 2)
#define SYS_BRBIDR0_EL1		sys_reg(2, 1, 9, 2, 0)

#define REG_BRBFCR_EL1		ARM64_SYS_REG(2, 1, 9, 0, 1)
#define REG_BRBTS_EL1		ARM64_SYS_REG(2, 1, 9, 0, 2)
#define REG_BRBSRCINJ_EL1	ARM64_SYS_REG(2, 1, 9, 1, 1)

/* The injection registers, and what the guest writes to them */
#define SYS_BRBINFINJ_EL1	sys_reg(2, 1, 9, 1, 0)
#define SYS_BRBSRCINJ_EL1	sys_reg(2, 1, 9, 1, 1)
#define SYS_BRBTGTINJ_EL1	sys_reg(2, 1, 9, 1, 2)
#define GUEST_INJ_INF		0x3ULL		/* VALID: both addresses */
#define GUEST_INJ_SRC		0x10000ULL
#define GUEST_INJ_TGT		0x20000ULL
/* The guest's virtual count, set by userspace far below the host's */
#define GUEST_CNT		0x1000ULL

#define NREC			32	/* bank 0: what the guest reads */
#define RETRIES			5

enum phase {
	PH_ID, PH_SEQ, PH_FILTER, PH_IALL, PH_ISOLATION, PH_HIDDEN, PH_NOP, PH_MID,
	PH_FREEZE, PH_HOST_FREEZE, PH_SELF_PAUSE, PH_CYCLE_FREEZE, PH_SELF_PAUSE_HOST,
	PH_INJ, PH_TS_PHYS, PH_RESTORED, PH_FIRST_REC, PH_FIRST_IALL, PH_FIRST_INJ,
	PH_WARM,
};

/* BRBTS_EL1 values: userspace's to the guest, the guest's to userspace */
#define HOST_BRBTS		0x1234567ULL
#define GUEST_BRBTS		0x7654321ULL

struct rec {
	uint64_t inf, src, tgt;
};

/* Set by the host before each run */
static uint64_t guest_phase;
/* Filled by the guest: the records of bank 0, and the ID values */
static struct rec guest_recs[NREC];
static uint64_t guest_dfr0, guest_brbidr0, guest_brbts, guest_undefs;
/* The guest's virtual count around a freeze */
static uint64_t guest_t0, guest_t1;
/* BRBFCR_EL1 and PMOVSSET_EL0 as the guest found them after recording */
static uint64_t guest_brbfcr, guest_pmovs;

/* As pmu_host_guest.c: an asm label's address, right in host and guest */
#define ASM_LABEL(label)						\
({									\
	uint64_t __addr;						\
									\
	asm("adrp %0, " #label "\n\t"					\
	    "add %0, %0, :lo12:" #label					\
	    : "=r" (__addr));						\
	__addr;								\
})

/*
 * brbe_seq(brbcr): record with BRBCR_EL1 = brbcr around six taken
 * branches, then stop. The ISB makes the enabling write act before the
 * first branch, the one after the disabling write before the return.
 */
asm(".pushsection .text\n"
	".global brbe_seq_cnt\n"
	"brbe_seq_cnt:\n"
	"	msr	pmevcntr0_el0, x1\n"
	".global brbe_seq\n"
	"brbe_seq:\n"
	"	mov	x9, x30\n"
	"	msr	s2_1_c9_c0_0, x0\n"
	"	isb\n"
	".global seq_b\n"
	"seq_b:	b	seq_bl\n"
	"	udf	#0\n"
	".global seq_bl\n"
	"seq_bl:	bl	seq_callee\n"
	".global seq_after_bl\n"
	"seq_after_bl:	b	seq_cbz\n"
	".global seq_callee\n"
	"seq_callee:	ret\n"
	".global seq_cbz\n"
	"seq_cbz:	cbz	xzr, seq_br_setup\n"
	"	udf	#0\n"
	".global seq_br_setup\n"
	"seq_br_setup:	adr	x1, seq_end\n"
	".global seq_br\n"
	"seq_br:	br	x1\n"
	"	udf	#0\n"
	".global seq_end\n"
	"seq_end:	msr	s2_1_c9_c0_0, xzr\n"
	"	isb\n"
	"	mov	x30, x9\n"
	"	ret\n"
	".global seq_marker\n"
	"seq_marker:	b	seq_marker_end\n"
	".global seq_marker_end\n"
	"seq_marker_end:	ret\n"
	".global brbe_loop\n"
	"brbe_loop:\n"
	"	msr	s2_1_c9_c0_0, x0\n"
	"	isb\n"
	"	mov	x1, #" __stringify(LOOP_BRANCHES) "\n"
	"1:	subs	x1, x1, #1\n"
	"	b.ne	1b\n"
	".global loop_last\n"
	"loop_last:	b	loop_end\n"
	".global loop_end\n"
	"loop_end:	msr	s2_1_c9_c0_0, xzr\n"
	"	isb\n"
	"	ret\n"
	".popsection\n");

typedef void (*brbe_seq_fn)(uint64_t brbcr);
typedef void (*brbe_seq_cnt_fn)(uint64_t brbcr, uint64_t pmevcntr0);
typedef void (*seq_marker_fn)(void);

/* One case of rec_read(): record n's three registers */
#define REC(n, crm, i, s, t)						\
	case n:								\
		r.inf = read_sysreg_s(sys_reg(2, 1, 8, crm, i));	\
		r.src = read_sysreg_s(sys_reg(2, 1, 8, crm, s));	\
		r.tgt = read_sysreg_s(sys_reg(2, 1, 8, crm, t));	\
		break

/* Record n of bank 0, which the encoding names: one case per record */
static struct rec rec_read(int n)
{
	struct rec r = { 0 };

	switch (n) {
	REC(0, 0, 0, 1, 2);
	REC(1, 1, 0, 1, 2);
	REC(2, 2, 0, 1, 2);
	REC(3, 3, 0, 1, 2);
	REC(4, 4, 0, 1, 2);
	REC(5, 5, 0, 1, 2);
	REC(6, 6, 0, 1, 2);
	REC(7, 7, 0, 1, 2);
	REC(8, 8, 0, 1, 2);
	REC(9, 9, 0, 1, 2);
	REC(10, 10, 0, 1, 2);
	REC(11, 11, 0, 1, 2);
	REC(12, 12, 0, 1, 2);
	REC(13, 13, 0, 1, 2);
	REC(14, 14, 0, 1, 2);
	REC(15, 15, 0, 1, 2);
	REC(16, 0, 4, 5, 6);
	REC(17, 1, 4, 5, 6);
	REC(18, 2, 4, 5, 6);
	REC(19, 3, 4, 5, 6);
	REC(20, 4, 4, 5, 6);
	REC(21, 5, 4, 5, 6);
	REC(22, 6, 4, 5, 6);
	REC(23, 7, 4, 5, 6);
	REC(24, 8, 4, 5, 6);
	REC(25, 9, 4, 5, 6);
	REC(26, 10, 4, 5, 6);
	REC(27, 11, 4, 5, 6);
	REC(28, 12, 4, 5, 6);
	REC(29, 13, 4, 5, 6);
	REC(30, 14, 4, 5, 6);
	REC(31, 15, 4, 5, 6);
	}
	return r;
}

static void recs_read(void)
{
	int n;

	for (n = 0; n < NREC; n++)
		guest_recs[n] = rec_read(n);
}

static void brb_iall(void)
{
	asm volatile("sys #1, C7, C2, #4" : : : "memory");
}

/* Empty the buffer, then record brbe_seq()'s branches of the types in fcr */
static void seq_record(uint64_t fcr)
{
	write_sysreg_s(fcr, SYS_BRBFCR_EL1);
	brb_iall();
	((brbe_seq_fn)ASM_LABEL(brbe_seq))(BRBCR_E1BRE);
}

/*
 * brbe_seq() with counter 0 counting the guest's branches (BR_RETIRED) to
 * overflow at the FREEZE_AT-th, its interrupt enabled, and FZP set. The
 * counter's value is written (a trap to KVM) just before recording starts.
 */
static void seq_freeze_with(uint64_t brbcr)
{
	write_sysreg_s(BRBFCR_ALL, SYS_BRBFCR_EL1);
	brb_iall();
	/* KVM resets the overflow flags to an UNKNOWN value */
	write_sysreg(PMOVS_ALL, pmovsclr_el0);
	write_sysreg(EV_BR_RETIRED, pmevtyper0_el0);
	write_sysreg(BIT(0), pmintenset_el1);
	write_sysreg(BIT(0), pmcntenset_el0);
	write_sysreg(read_sysreg(pmcr_el0) | PMCR_E, pmcr_el0);
	isb();
	guest_t0 = read_sysreg(cntvct_el0);
	((brbe_seq_cnt_fn)ASM_LABEL(brbe_seq_cnt))(brbcr, BIT_ULL(32) - FREEZE_AT);
	guest_t1 = read_sysreg(cntvct_el0);
	guest_brbfcr = read_sysreg_s(SYS_BRBFCR_EL1);
	guest_brbts = read_sysreg_s(SYS_BRBTS_EL1);
	guest_pmovs = read_sysreg(pmovsset_el0);
	recs_read();

	write_sysreg(read_sysreg(pmcr_el0) & ~PMCR_E, pmcr_el0);
	write_sysreg(BIT(0), pmcntenclr_el0);
	write_sysreg(BIT(0), pmintenclr_el1);
	write_sysreg(BIT(0), pmovsclr_el0);
	write_sysreg_s(BRBFCR_ALL, SYS_BRBFCR_EL1);
}

static void seq_freeze(void)
{
	seq_freeze_with(BRBCR_E1BRE | BRBCR_FREEZE);
}

/*
 * brbe_loop() with FZP set and the cycle counter, its interrupt enabled,
 * overflowing CYCLES_AT cycles in: the cycle counter never freezes BRBE.
 */
static void seq_cycle_freeze(void)
{
	uint64_t start = BIT_ULL(32) - CYCLES_AT;

	write_sysreg_s(BRBFCR_ALL, SYS_BRBFCR_EL1);
	brb_iall();
	write_sysreg(PMOVS_ALL, pmovsclr_el0);
	write_sysreg(0, pmccfiltr_el0);
	if (read_sysreg(pmcr_el0) & PMCR_LC)
		start = -(uint64_t)CYCLES_AT;
	write_sysreg(start, pmccntr_el0);
	write_sysreg(BIT(31), pmintenset_el1);
	write_sysreg(BIT(31), pmcntenset_el0);
	write_sysreg(read_sysreg(pmcr_el0) | PMCR_E, pmcr_el0);
	isb();
	((brbe_seq_fn)ASM_LABEL(brbe_loop))(BRBCR_E1BRE | BRBCR_FREEZE);
	guest_brbfcr = read_sysreg_s(SYS_BRBFCR_EL1);
	guest_pmovs = read_sysreg(pmovsset_el0);
	guest_recs[0] = rec_read(0);

	write_sysreg(read_sysreg(pmcr_el0) & ~PMCR_E, pmcr_el0);
	write_sysreg(BIT(31), pmcntenclr_el0);
	write_sysreg(BIT(31), pmintenclr_el1);
	write_sysreg(BIT(31), pmovsclr_el0);
	write_sysreg_s(BRBFCR_ALL, SYS_BRBFCR_EL1);
}

/* The guest pauses its buffer, then exits (a PMU register read traps) */
static void seq_self_pause(void)
{
	write_sysreg_s(BRBFCR_ALL, SYS_BRBFCR_EL1);
	brb_iall();
	write_sysreg_s(BRBCR_E1BRE, SYS_BRBCR_EL1);
	isb();
	((seq_marker_fn)ASM_LABEL(seq_marker))();
	write_sysreg_s(BRBFCR_ALL | BRBFCR_PAUSED, SYS_BRBFCR_EL1);
	isb();
	read_sysreg(pmcr_el0);
	guest_brbfcr = read_sysreg_s(SYS_BRBFCR_EL1);
	write_sysreg_s(0, SYS_BRBCR_EL1);
	isb();
	recs_read();
	write_sysreg_s(BRBFCR_ALL, SYS_BRBFCR_EL1);
}

/*
 * The guest pauses its buffer (FZP clear), then runs brbe_loop(), which
 * a host event counting its branches interrupts with overflows
 */
static void seq_self_pause_host(void)
{
	write_sysreg_s(BRBFCR_ALL, SYS_BRBFCR_EL1);
	brb_iall();
	write_sysreg_s(BRBCR_E1BRE, SYS_BRBCR_EL1);
	isb();
	((seq_marker_fn)ASM_LABEL(seq_marker))();
	write_sysreg_s(BRBFCR_ALL | BRBFCR_PAUSED, SYS_BRBFCR_EL1);
	isb();
	((brbe_seq_fn)ASM_LABEL(brbe_loop))(BRBCR_E1BRE);
	guest_brbfcr = read_sysreg_s(SYS_BRBFCR_EL1);
	recs_read();
	write_sysreg_s(BRBFCR_ALL, SYS_BRBFCR_EL1);
}

/*
 * Branches recorded under controls userspace restored, the guest touching
 * BRBE only to stop recording once they are made
 */
static void seq_restored(void)
{
	((seq_marker_fn)ASM_LABEL(seq_marker))();
	write_sysreg_s(0, SYS_BRBCR_EL1);
	isb();
	recs_read();
}

/* Touch what seq_restored() uses, BRBE excepted: its stage-2 faults now */
static void seq_warm(void)
{
	int i;

	((seq_marker_fn)ASM_LABEL(seq_marker))();
	for (i = 0; i < NREC; i++)
		guest_recs[i].inf = 0;
}

static void brb_inj(void)
{
	asm volatile("sys #1, C7, C2, #5" : : : "memory");
}

/* The injection registers written, an exit (a PMU register read traps), read */
static void seq_inj(void)
{
	write_sysreg_s(GUEST_INJ_INF, SYS_BRBINFINJ_EL1);
	write_sysreg_s(GUEST_INJ_SRC, SYS_BRBSRCINJ_EL1);
	write_sysreg_s(GUEST_INJ_TGT, SYS_BRBTGTINJ_EL1);
	read_sysreg(pmcr_el0);
	guest_recs[0].inf = read_sysreg_s(SYS_BRBINFINJ_EL1);
	guest_recs[0].src = read_sysreg_s(SYS_BRBSRCINJ_EL1);
	guest_recs[0].tgt = read_sysreg_s(SYS_BRBTGTINJ_EL1);
}

static void guest_phase_run(uint64_t phase)
{
	switch (phase) {
	case PH_ID:
		guest_dfr0 = read_sysreg(id_aa64dfr0_el1);
		guest_brbidr0 = read_sysreg_s(SYS_BRBIDR0_EL1);
		guest_brbts = read_sysreg_s(SYS_BRBTS_EL1);
		write_sysreg_s(GUEST_BRBTS, SYS_BRBTS_EL1);
		break;
	case PH_SEQ:
		seq_record(BRBFCR_ALL);
		recs_read();
		break;
	case PH_FILTER:
		seq_record(BRBFCR_RTN | BRBFCR_DIRCALL);
		recs_read();
		break;
	case PH_IALL:
		seq_record(BRBFCR_ALL);
		guest_recs[0] = rec_read(0);
		brb_iall();
		guest_recs[1] = rec_read(0);
		break;
	case PH_ISOLATION:
		write_sysreg_s(BRBFCR_ALL, SYS_BRBFCR_EL1);
		brb_iall();
		write_sysreg_s(BRBCR_E0BRE | BRBCR_E1BRE | BRBCR_EXCEPTION | BRBCR_ERTN,
			       SYS_BRBCR_EL1);
		isb();
		((seq_marker_fn)ASM_LABEL(seq_marker))();
		GUEST_SYNC1(PH_MID);
		write_sysreg_s(0, SYS_BRBCR_EL1);
		isb();
		recs_read();
		break;
	case PH_HIDDEN:
		guest_dfr0 = read_sysreg(id_aa64dfr0_el1);
		read_sysreg_s(SYS_BRBCR_EL1);
		break;
	case PH_FREEZE:
		seq_freeze();
		break;
	case PH_HOST_FREEZE:
		write_sysreg_s(BRBFCR_ALL, SYS_BRBFCR_EL1);
		brb_iall();
		((brbe_seq_fn)ASM_LABEL(brbe_loop))(BRBCR_E1BRE | BRBCR_FREEZE);
		guest_brbfcr = read_sysreg_s(SYS_BRBFCR_EL1);
		guest_recs[0] = rec_read(0);
		write_sysreg_s(BRBFCR_ALL, SYS_BRBFCR_EL1);
		break;
	case PH_SELF_PAUSE:
		seq_self_pause();
		break;
	case PH_CYCLE_FREEZE:
		seq_cycle_freeze();
		break;
	case PH_SELF_PAUSE_HOST:
		seq_self_pause_host();
		break;
	case PH_INJ:
		seq_inj();
		break;
	case PH_TS_PHYS:
		seq_freeze_with(BRBCR_E1BRE | BRBCR_FZP | BRBCR_TS_PHYSICAL);
		break;
	case PH_RESTORED:
		seq_restored();
		break;
	case PH_FIRST_REC:
		guest_recs[0] = rec_read(0);
		break;
	case PH_FIRST_IALL:
		brb_iall();
		guest_recs[0] = rec_read(0);
		break;
	case PH_FIRST_INJ:
		brb_inj();
		guest_recs[0] = rec_read(0);
		break;
	case PH_WARM:
		seq_warm();
		break;
	case PH_NOP:
		break;
	}
}

static void guest_code(void)
{
	for (;;) {
		uint64_t phase = READ_ONCE(guest_phase);

		guest_phase_run(phase);
		GUEST_SYNC1(phase);
	}
}

static void guest_undef_handler(struct ex_regs *regs)
{
	guest_undefs++;
	regs->pc += 4;
}

/* ---- host side ---- */

#define report(cond, fmt, ...) ksft_test_result(cond, fmt "\n", ##__VA_ARGS__)

static void run_to_sync(struct kvm_vcpu *vcpu, uint64_t want)
{
	struct ucall uc;

	vcpu_run(vcpu);
	switch (get_ucall(vcpu, &uc)) {
	case UCALL_SYNC:
		TEST_ASSERT(uc.args[0] == want, "guest sync %lu, not %lu",
			    (unsigned long)uc.args[0], (unsigned long)want);
		break;
	case UCALL_ABORT:
		REPORT_GUEST_ASSERT(uc);
		break;
	default:
		TEST_FAIL("guest exit %u without its sync", vcpu->run->exit_reason);
	}
}

/*
 * The phases that run once whatever their exits: they trap on ID or PMU
 * registers, UNDEF, or take the interrupts of overflows whose effect on
 * the records across exits is what they check.
 */
static bool phase_exits(uint64_t phase)
{
	return phase == PH_ID || phase == PH_HIDDEN || phase == PH_FREEZE ||
	       phase == PH_HOST_FREEZE || phase == PH_SELF_PAUSE ||
	       phase == PH_CYCLE_FREEZE || phase == PH_SELF_PAUSE_HOST || phase == PH_INJ ||
	       phase == PH_TS_PHYS;
}

/* The exits of the last measured run of phase_run() */
static uint64_t phase_exits_seen;

/*
 * A vCPU shown BRBE whose guest left it not recording traps its first
 * BRBE access after each load (KVM_RUN), once: BRBE is switched lazily.
 */
static uint64_t first_use_traps(struct kvm_vcpu *vcpu)
{
	uint64_t brbcr;

	if (__vcpu_get_reg(vcpu, REG_BRBCR_EL1, &brbcr))
		return 0;		/* BRBE hidden */
	return !(brbcr & (BRBCR_E0BRE | BRBCR_E1BRE));
}

/*
 * One guest phase, with the guest's results copied back. Where the guest
 * reads records, its last stretch (the whole phase, or from the isolation
 * phase's own exit on) must be one run that exits only at its sync and
 * at the trap of its first BRBE access, before it records: any other exit
 * (a stage-2 fault on first touching a page, a host interrupt) empties
 * the buffer. The other phases trap on ID registers or UNDEF, and run once.
 * Return: false if no try got there.
 */
static bool phase_run(struct kvm_vcpu *vcpu, uint64_t phase)
{
	struct kvm_vm *vm = vcpu->vm;
	uint64_t exits, expect;
	int try;

	for (try = 0; try < RETRIES; try++) {
		guest_phase = phase;
		sync_global_to_guest(vm, guest_phase);
		if (phase == PH_ISOLATION)
			run_to_sync(vcpu, PH_MID);
		expect = 1 + first_use_traps(vcpu);
		exits = vcpu_stat(vcpu, "exits");
		run_to_sync(vcpu, phase);
		exits = vcpu_stat(vcpu, "exits") - exits;
		sync_global_from_guest(vm, guest_recs);
		sync_global_from_guest(vm, guest_dfr0);
		sync_global_from_guest(vm, guest_brbidr0);
		sync_global_from_guest(vm, guest_brbts);
		sync_global_from_guest(vm, guest_t0);
		sync_global_from_guest(vm, guest_t1);
		sync_global_from_guest(vm, guest_undefs);
		sync_global_from_guest(vm, guest_brbfcr);
		sync_global_from_guest(vm, guest_pmovs);
		phase_exits_seen = exits;
		if (exits == expect || phase_exits(phase))
			return true;
		ksft_print_msg("phase %lu: %lu exits, again\n", (unsigned long)phase,
			       (unsigned long)exits);
	}
	return false;
}

#define ROUND_TRIPS		1000

/*
 * A figure, not a check: the host's instructions (kernel and hypervisor
 * included, the guest's excluded) per guest round trip to userspace, for
 * comparing a vCPU with BRBE and one whose VMM hid it. Return: 0 if the
 * host cannot count.
 */
static uint64_t round_trip_cost(struct kvm_vcpu *vcpu)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_HARDWARE,
		.config = PERF_COUNT_HW_INSTRUCTIONS,
		.disabled = 1,
		.exclude_guest = 1,
	};
	uint64_t count = 0;
	int fd, i;

	guest_phase = PH_NOP;
	sync_global_to_guest(vcpu->vm, guest_phase);
	run_to_sync(vcpu, PH_NOP);		/* the guest at its sync loop */
	fd = syscall(__NR_perf_event_open, &attr, 0, -1, -1, 0);
	if (fd < 0)
		return 0;
	TEST_ASSERT(!ioctl(fd, PERF_EVENT_IOC_ENABLE, 0), "enable");
	for (i = 0; i < ROUND_TRIPS; i++)
		run_to_sync(vcpu, PH_NOP);
	TEST_ASSERT(!ioctl(fd, PERF_EVENT_IOC_DISABLE, 0), "disable");
	TEST_ASSERT(read(fd, &count, sizeof(count)) == sizeof(count), "read");
	close(fd);
	return count / ROUND_TRIPS;
}

/* The vPMU VM, an unexpected exception (an UNDEF) failing the run by name */
static struct kvm_vcpu *brbe_vm_create(struct kvm_vm **vm)
{
	struct kvm_vcpu *vcpu = vpmu_vm_create(vm, guest_code);

	vm_init_descriptor_tables(*vm);
	vcpu_init_descriptor_tables(vcpu);
	return vcpu;
}

static bool reg_listed(struct kvm_vcpu *vcpu, uint64_t id)
{
	struct kvm_reg_list *list = vcpu_get_reg_list(vcpu);
	bool found = false;
	uint64_t i;

	for (i = 0; i < list->n; i++)
		found |= list->reg[i] == id;
	free(list);
	return found;
}

/*
 * A branch-stack event of the host on this thread, every level but the
 * guest's, so that the host records while the vCPU runs: -1 if the host
 * has no BRBE (or refuses).
 */
static int host_branch_event(void)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_HARDWARE,
		.config = PERF_COUNT_HW_INSTRUCTIONS,
		.sample_period = 1000000000ULL,
		.sample_type = PERF_SAMPLE_BRANCH_STACK,
		.branch_sample_type = PERF_SAMPLE_BRANCH_ANY,
		.exclude_guest = 1,
	};

	return syscall(__NR_perf_event_open, &attr, 0, -1, -1, 0);
}

static bool protected_kvm(void)
{
	char line[4096] = "";
	FILE *f = fopen("/proc/cmdline", "r");

	if (f) {
		if (!fgets(line, sizeof(line), f))
			line[0] = 0;
		fclose(f);
	}
	return strstr(line, "kvm-arm.mode=protected");
}

static int valid_count(void)
{
	int n, valid = 0;

	for (n = 0; n < NREC; n++)
		valid += BRBINF_VALID(guest_recs[n].inf) != 0;
	return valid;
}

struct exp {
	unsigned int type;
	uint64_t src, tgt;
};

/* Records 0..nr-1 are exp[] at guest EL1, record nr and older invalid */
static bool recs_match(const struct exp *exp, int nr)
{
	bool ok = true;
	int n;

	for (n = 0; n < NREC; n++) {
		const struct rec *r = &guest_recs[n];

		if (n >= nr) {
			if (r->inf) {
				ksft_print_msg("record %d: inf %#lx src %#lx tgt %#lx, %s\n",
					       n, r->inf, r->src, r->tgt, "expected none");
				ok = false;
			}
			continue;
		}
		if (BRBINF_VALID(r->inf) != BRBINF_VALID_FULL || BRBINF_EL(r->inf) != 1 ||
		    BRBINF_TYPE(r->inf) != exp[n].type || r->src != exp[n].src ||
		    r->tgt != exp[n].tgt) {
			ksft_print_msg("record %d: inf %#lx src %#lx tgt %#lx\n",
				       n, r->inf, r->src, r->tgt);
			ksft_print_msg("  expected type %u src %#lx tgt %#lx at EL1\n",
				       exp[n].type, exp[n].src, exp[n].tgt);
			ok = false;
		}
	}
	return ok;
}

static void test_id_and_one_reg(struct kvm_vcpu *vcpu)
{
	unsigned int numrec;
	uint64_t val;
	bool ok, set;

	/* Without KVM's BRBE the register is unknown (ENOENT): go on to the UNDEF */
	set = !__vcpu_set_reg(vcpu, REG_BRBTS_EL1, HOST_BRBTS);
	ok = phase_run(vcpu, PH_ID);
	numrec = guest_brbidr0 & 0xff;
	ksft_print_msg("guest ID_AA64DFR0_EL1 %#lx, BRBIDR0_EL1 %#lx (%u records)\n",
		       guest_dfr0, guest_brbidr0, numrec);
	report(ok && (guest_dfr0 & DFR0_BRBE_MASK) &&
	       (numrec == 8 || numrec == 16 || numrec == 32 || numrec == 64),
	       "guest_sees_brbe");
	report(reg_listed(vcpu, REG_BRBCR_EL1) && reg_listed(vcpu, REG_BRBFCR_EL1) &&
	       reg_listed(vcpu, REG_BRBTS_EL1), "reg_list_has_brbe_controls");
	report(set && guest_brbts == HOST_BRBTS, "one_reg_brbts_reaches_guest");
	vcpu_get_reg(vcpu, REG_BRBTS_EL1, &val);
	report(val == GUEST_BRBTS, "one_reg_brbts_from_guest");
	/* BRBCR_EL1 bit 2 is RES0 */
	report(__vcpu_set_reg(vcpu, REG_BRBCR_EL1, BIT(2) | BRBCR_E1BRE) < 0 &&
	       errno == EINVAL, "one_reg_refuses_res0");
}

static void test_records(struct kvm_vcpu *vcpu)
{
	const struct exp seq[] = {
		{ TYPE_INDIRECT, ASM_LABEL(seq_br), ASM_LABEL(seq_end) },
		{ TYPE_DIRECT_COND, ASM_LABEL(seq_cbz), ASM_LABEL(seq_br_setup) },
		{ TYPE_DIRECT, ASM_LABEL(seq_after_bl), ASM_LABEL(seq_cbz) },
		{ TYPE_RET, ASM_LABEL(seq_callee), ASM_LABEL(seq_after_bl) },
		{ TYPE_DIRECT_LINK, ASM_LABEL(seq_bl), ASM_LABEL(seq_callee) },
		{ TYPE_DIRECT, ASM_LABEL(seq_b), ASM_LABEL(seq_bl) },
	};
	const struct exp filtered[] = { seq[3], seq[4] };
	uint64_t val;
	bool ok;

	vcpu_set_reg(vcpu, REG_BRBCR_EL1, 0);
	ok = phase_run(vcpu, PH_SEQ);
	report(ok && recs_match(seq, ARRAY_SIZE(seq)), "sequence_records_exact");
	/* Again, the guest's pages mapped: no stage-2 fault can stand in for the trap */
	ok = phase_run(vcpu, PH_SEQ);
	ksft_print_msg("exits of the sequence's run: %lu\n", (unsigned long)phase_exits_seen);
	report(ok && phase_exits_seen == 2, "first_use_traps_once_per_run");

	ok = phase_run(vcpu, PH_FILTER);
	report(ok && recs_match(filtered, ARRAY_SIZE(filtered)), "filter_rtn_dircall_exact");
	vcpu_get_reg(vcpu, REG_BRBFCR_EL1, &val);
	report(val == (BRBFCR_RTN | BRBFCR_DIRCALL), "one_reg_brbfcr_from_guest");

	ok = phase_run(vcpu, PH_IALL);
	ksft_print_msg("record 0 before BRB IALL: inf %#lx, after: inf %#lx\n",
		       guest_recs[0].inf, guest_recs[1].inf);
	report(ok && guest_recs[0].src == seq[0].src && !guest_recs[1].inf &&
	       !guest_recs[1].src && !guest_recs[1].tgt, "iall_empties");
}

/*
 * Every record the guest finds across an exit is its own: at EL1 (the
 * guest runs nothing at EL0 here; the host's EL2 and EL0 show as 2 and 0),
 * each valid side inside this program's text, where the host's kernel and
 * hypervisor never are, and none from before the exit.
 */
static void test_isolation(struct kvm_vcpu *vcpu, int host_fd)
{
	/* The linker's bounds of this program's text */
	uint64_t lo = ASM_LABEL(__executable_start), hi = ASM_LABEL(etext);
	int n, valid, foreign = 0, before = 0;
	bool ok;

	TEST_ASSERT(!ioctl(host_fd, PERF_EVENT_IOC_ENABLE, 0), "host branch event enable");
	ok = phase_run(vcpu, PH_ISOLATION);
	TEST_ASSERT(!ioctl(host_fd, PERF_EVENT_IOC_DISABLE, 0), "host branch event disable");

	for (n = 0; n < NREC; n++) {
		const struct rec *r = &guest_recs[n];
		uint64_t v = BRBINF_VALID(r->inf);

		if (!v)
			continue;
		if (BRBINF_EL(r->inf) != 1 ||
		    ((v & BRBINF_VALID_SOURCE) && (r->src < lo || r->src >= hi)) ||
		    ((v & BRBINF_VALID_TARGET) && (r->tgt < lo || r->tgt >= hi))) {
			ksft_print_msg("record %d not the guest's: inf %#lx src %#lx tgt %#lx\n",
				       n, r->inf, r->src, r->tgt);
			foreign++;
		}
		if (r->src == ASM_LABEL(seq_marker))
			before++;
	}
	valid = valid_count();
	ksft_print_msg("after the exit: %d valid records, %d not the guest's, %d from before\n",
		       valid, foreign, before);
	report(ok && valid >= 2 && !foreign, "guest_records_only_its_own");
	report(ok && !before, "exit_empties_guest_records");
}

/*
 * The guest's counter overflow pauses the guest's buffer (FZP), with the
 * branches before it kept across the interrupt's exit: the B and the BL,
 * not the RET whose count overflowed, nor anything after.
 */
static void test_freeze(struct kvm_vcpu *vcpu)
{
	const struct exp kept[] = {
		{ TYPE_DIRECT_LINK, ASM_LABEL(seq_bl), ASM_LABEL(seq_callee) },
		{ TYPE_DIRECT, ASM_LABEL(seq_b), ASM_LABEL(seq_bl) },
	};
	uint64_t exits = vcpu_stat(vcpu, "exits");
	bool ok;

	ok = phase_run(vcpu, PH_FREEZE);
	ksft_print_msg("freeze: BRBFCR_EL1 %#lx, PMOVSSET_EL0 %#lx, %lu exits\n",
		       guest_brbfcr, guest_pmovs,
		       (unsigned long)(vcpu_stat(vcpu, "exits") - exits));
	report(ok && (guest_pmovs & BIT(0)), "freeze_guest_counter_overflowed");
	report(ok && (guest_brbfcr & BRBFCR_PAUSED), "freeze_pauses_on_guest_overflow");
	report(ok && recs_match(kept, ARRAY_SIZE(kept)), "freeze_keeps_records_before_overflow");
}

/*
 * phase_run() with a host event counting the guest's branches, which
 * overflows every HOST_PERIOD of them; *count gets its total.
 */
static bool phase_run_host_counting(struct kvm_vcpu *vcpu, uint64_t phase, uint64_t *count)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_RAW,
		.config = EV_BR_RETIRED,
		.sample_period = HOST_PERIOD,
		.exclude_host = 1,
		.disabled = 1,
	};
	int fd;
	bool ok;

	*count = 0;
	fd = syscall(__NR_perf_event_open, &attr, 0, -1, -1, 0);
	TEST_ASSERT(fd >= 0, "host event on the guest's branches: %s", strerror(errno));
	TEST_ASSERT(!ioctl(fd, PERF_EVENT_IOC_ENABLE, 0), "host event enable");
	ok = phase_run(vcpu, phase);
	TEST_ASSERT(!ioctl(fd, PERF_EVENT_IOC_DISABLE, 0), "host event disable");
	TEST_ASSERT(read(fd, count, sizeof(*count)) == sizeof(*count), "host event read");
	close(fd);
	return ok;
}

/*
 * A host event counting the guest's branches overflows every HOST_PERIOD
 * of them while the guest loops with FZP set: the hardware pauses the
 * guest's buffer at each, and KVM resumes it, as no guest counter
 * overflowed. The guest ends unpaused, its last branch recorded.
 */
static void test_host_freeze(struct kvm_vcpu *vcpu)
{
	uint64_t count;
	bool ok;

	ok = phase_run_host_counting(vcpu, PH_HOST_FREEZE, &count);
	ksft_print_msg("host freeze: %lu guest branches, BRBFCR_EL1 %#lx, record 0 %#lx -> %#lx\n",
		       count, guest_brbfcr, guest_recs[0].src, guest_recs[0].tgt);
	report(ok && count >= LOOP_BRANCHES && !(guest_brbfcr & BRBFCR_PAUSED),
	       "host_overflow_leaves_guest_unpaused");
	report(ok && guest_recs[0].src == ASM_LABEL(loop_last) &&
	       guest_recs[0].tgt == ASM_LABEL(loop_end), "host_overflow_guest_records_to_the_end");
}

/*
 * The guest's cycle counter overflows with FZP set: as on hardware
 * (ShouldBRBEFreeze() leaves the cycle counter out), the guest's buffer
 * is not paused. (Which branch the overflow's exit lands after depends
 * on when the model's cycle counter notices its overflow, and the exit
 * empties an unpaused buffer: the records are not checked.)
 */
static void test_cycle_freeze(struct kvm_vcpu *vcpu)
{
	bool ok;

	ok = phase_run(vcpu, PH_CYCLE_FREEZE);
	ksft_print_msg("cycle freeze: BRBFCR_EL1 %#lx, PMOVSSET_EL0 %#lx, record 0 %#lx -> %#lx\n",
		       guest_brbfcr, guest_pmovs, guest_recs[0].src, guest_recs[0].tgt);
	report(ok && (guest_pmovs & BIT(31)), "cycle_counter_overflowed");
	report(ok && !(guest_brbfcr & BRBFCR_PAUSED), "cycle_overflow_leaves_guest_unpaused");
}

/* The guest pauses its own buffer: an exit keeps it paused, records and all */
static void test_self_pause(struct kvm_vcpu *vcpu)
{
	bool ok;

	ok = phase_run(vcpu, PH_SELF_PAUSE);
	ksft_print_msg("self pause: BRBFCR_EL1 %#lx, %d records\n", guest_brbfcr, valid_count());
	report(ok && (guest_brbfcr & BRBFCR_PAUSED), "self_pause_survives_exit");
	report(ok && guest_recs[0].src == ASM_LABEL(seq_marker_end) &&
	       guest_recs[1].src == ASM_LABEL(seq_marker) &&
	       guest_recs[1].tgt == ASM_LABEL(seq_marker_end), "self_pause_records_survive_exit");
}

/*
 * A guest without FZP pauses itself, then a host event counting its
 * branches overflows at every HOST_PERIOD of them: the hardware does not
 * freeze a buffer without FZP, so these exits are no freeze, and the
 * guest's own pause stays, its newest records the marker's.
 */
static void test_self_pause_host(struct kvm_vcpu *vcpu)
{
	uint64_t count;
	bool ok;

	ok = phase_run_host_counting(vcpu, PH_SELF_PAUSE_HOST, &count);
	ksft_print_msg("self pause: %lu host-counted branches, BRBFCR_EL1 %#lx, %d records\n",
		       count, guest_brbfcr, valid_count());
	report(ok && count >= LOOP_BRANCHES && (guest_brbfcr & BRBFCR_PAUSED),
	       "self_pause_survives_host_overflow");
	report(ok && guest_recs[0].src == ASM_LABEL(seq_marker_end) &&
	       guest_recs[1].src == ASM_LABEL(seq_marker), "self_pause_host_overflow_records_kept");
}

/*
 * The injection registers are guest state: what the guest wrote before an
 * exit reads back after it, and userspace reads it for migration.
 */
static void test_injection_registers(struct kvm_vcpu *vcpu)
{
	uint64_t src = 0;
	bool ok;

	ok = phase_run(vcpu, PH_INJ);
	ksft_print_msg("injection registers after an exit: %#lx %#lx %#lx\n",
		       guest_recs[0].inf, guest_recs[0].src, guest_recs[0].tgt);
	report(ok && guest_recs[0].inf == GUEST_INJ_INF && guest_recs[0].src == GUEST_INJ_SRC &&
	       guest_recs[0].tgt == GUEST_INJ_TGT, "injection_registers_survive_exit");
	report(!__vcpu_get_reg(vcpu, REG_BRBSRCINJ_EL1, &src) && src == GUEST_INJ_SRC,
	       "one_reg_injection_from_guest");
}

/* seq_restored()'s records: seq_marker's branch and return, newest first */
static bool restored_records_newest(void)
{
	return BRBINF_TYPE(guest_recs[0].inf) == TYPE_RET &&
	       guest_recs[0].src == ASM_LABEL(seq_marker_end) &&
	       guest_recs[1].src == ASM_LABEL(seq_marker) &&
	       guest_recs[1].tgt == ASM_LABEL(seq_marker_end);
}

/*
 * A migration's restore into a new VM on a host where no VM has had BRBE
 * or SPE live yet: KVM tests no vCPU's live units until one has, so the
 * restored controls themselves must turn those tests on (kvm_units_used)
 * for the guest to record from its next entry. The VM first runs a phase
 * that takes its stage-2 faults without touching BRBE.
 */
static void test_restored_first(void)
{
	struct kvm_vcpu *vcpu;
	struct kvm_vm *vm;
	bool ok;

	vcpu = brbe_vm_create(&vm);
	guest_phase = PH_WARM;
	sync_global_to_guest(vm, guest_phase);
	run_to_sync(vcpu, PH_WARM);
	vcpu_set_reg(vcpu, REG_BRBFCR_EL1, BRBFCR_ALL);
	vcpu_set_reg(vcpu, REG_BRBCR_EL1, BRBCR_E1BRE);
	ok = phase_run(vcpu, PH_RESTORED);
	ksft_print_msg("restored recording, first on the host: %lu exits, record 0 %#lx -> %#lx\n",
		       (unsigned long)phase_exits_seen, guest_recs[0].src, guest_recs[0].tgt);
	report(ok && phase_exits_seen == 1 && restored_records_newest(),
	       "restored_recording_first_on_host");
	kvm_vm_free(vm);
}

/*
 * Lazy switching, as a guest and a migration meet it. Controls restored
 * recording (BRBCR_EL1 E1BRE by one-reg) record from the first entry,
 * without the guest touching BRBE first: the guest stops recording after
 * seq_marker's branch and return and finds them newest. A guest that left BRBE off
 * (BRBCR_EL1 0) first touches it with a record read, BRB IALL or BRB INJ:
 * each traps once and is replayed on the guest's own buffer, emptied of
 * the host's records (the host's branch event records meanwhile), with
 * the guest's injection registers.
 */
static void test_lazy(struct kvm_vcpu *vcpu)
{
	struct rec first_rec, after_iall;
	bool ok, rec, iall, inj;

	vcpu_set_reg(vcpu, REG_BRBFCR_EL1, BRBFCR_ALL);
	vcpu_set_reg(vcpu, REG_BRBCR_EL1, BRBCR_E1BRE);
	ok = phase_run(vcpu, PH_RESTORED);
	ksft_print_msg("restored recording: %lu exits, record 0 %#lx -> %#lx, 1 %#lx -> %#lx\n",
		       (unsigned long)phase_exits_seen, guest_recs[0].src, guest_recs[0].tgt,
		       guest_recs[1].src, guest_recs[1].tgt);
	report(ok && phase_exits_seen == 1 && restored_records_newest(),
	       "restored_recording_records_from_entry");

	vcpu_set_reg(vcpu, REG_BRBCR_EL1, 0);
	rec = phase_run(vcpu, PH_FIRST_REC) && phase_exits_seen == 2;
	first_rec = guest_recs[0];
	iall = phase_run(vcpu, PH_FIRST_IALL) && phase_exits_seen == 2;
	after_iall = guest_recs[0];
	vcpu_set_reg(vcpu, REG_BRBSRCINJ_EL1, GUEST_INJ_SRC);
	inj = phase_run(vcpu, PH_FIRST_INJ) && phase_exits_seen == 2;
	ksft_print_msg("first uses: record 0 %#lx %#lx; after IALL %#lx; after INJ %#lx\n",
		       first_rec.inf, first_rec.src, after_iall.inf, guest_recs[0].src);
	report(rec && !first_rec.inf && !first_rec.src,
	       "first_use_record_read_finds_no_host_record");
	report(iall && !after_iall.inf && inj && guest_recs[0].src == GUEST_INJ_SRC,
	       "first_use_iall_and_inj_replayed");
}

/*
 * A guest freezing with physical timestamps (BRBCR_EL1.TS 0b11), its
 * virtual counter set by userspace far from the host's: the timestamp is
 * the guest's count, never the host's raw one, which would leak the host
 * counter past the offset.
 */
static void test_ts_offset(struct kvm_vcpu *vcpu)
{
	bool ok;

	vcpu_set_reg(vcpu, KVM_REG_ARM_TIMER_CNT, GUEST_CNT);
	ok = phase_run(vcpu, PH_TS_PHYS);
	ksft_print_msg("physical TS with counter offset: BRBTS_EL1 %#lx, guest count %#lx..%#lx\n",
		       guest_brbts, guest_t0, guest_t1);
	report(ok && (guest_brbfcr & BRBFCR_PAUSED), "ts_phys_freeze_pauses");
	report(ok && guest_brbts >= guest_t0 && guest_brbts <= guest_t1,
	       "ts_phys_is_guest_count");
}

/* Userspace hides BRBE: the guest sees none and UNDEFs on its registers */
static void test_hidden(void)
{
	uint64_t dfr0, id = KVM_ARM64_SYS_REG(SYS_ID_AA64DFR0_EL1);
	struct kvm_vcpu *vcpu;
	struct kvm_vm *vm;
	bool ok;

	vcpu = brbe_vm_create(&vm);
	vm_install_sync_handler(vm, VECTOR_SYNC_CURRENT, ESR_EC_UNKNOWN, guest_undef_handler);
	vcpu_get_reg(vcpu, id, &dfr0);
	vcpu_set_reg(vcpu, id, dfr0 & ~DFR0_BRBE_MASK);
	report(!reg_listed(vcpu, REG_BRBCR_EL1), "hidden_brbe_not_in_reg_list");
	ok = phase_run(vcpu, PH_HIDDEN);
	report(ok && !(guest_dfr0 & DFR0_BRBE_MASK), "hidden_brbe_id_reads_zero");
	report(ok && guest_undefs == 1, "hidden_brbe_register_undefs");
	ksft_print_msg("host instructions per round trip, BRBE hidden: %lu\n",
		       round_trip_cost(vcpu));
	kvm_vm_free(vm);
}

/* A one-reg id of BRBE's controls and injection registers: op0 2, op1 1, CRn 9 */
static bool is_brbe_reg(uint64_t id)
{
	return (id & KVM_REG_ARM_COPROC_MASK) == KVM_REG_ARM64_SYSREG &&
	       ((id & KVM_REG_ARM64_SYSREG_OP0_MASK) >> KVM_REG_ARM64_SYSREG_OP0_SHIFT) == 2 &&
	       ((id & KVM_REG_ARM64_SYSREG_OP1_MASK) >> KVM_REG_ARM64_SYSREG_OP1_SHIFT) == 1 &&
	       ((id & KVM_REG_ARM64_SYSREG_CRN_MASK) >> KVM_REG_ARM64_SYSREG_CRN_SHIFT) == 9;
}

/* KVM_SET_ONE_REG from a buffer of the register's size: 0 or the errno */
static int set_one_reg(struct kvm_vcpu *vcpu, uint64_t id, void *val)
{
	struct kvm_one_reg reg = { .id = id, .addr = (uint64_t)val };

	return __vcpu_ioctl(vcpu, KVM_SET_ONE_REG, &reg) ? errno : 0;
}

static bool in_list(const struct kvm_reg_list *list, uint64_t id)
{
	uint64_t i;

	for (i = 0; i < list->n; i++)
		if (list->reg[i] == id)
			return true;
	return false;
}

/*
 * Migration into a VMM that hides BRBE: the hidden vCPU lists exactly the
 * registers of one shown BRBE but BRBE's six (with the base tree's
 * get-reg-list finding those six new, its list is then the base's), takes
 * every one of their values from the vCPU that had BRBE, and refuses
 * BRBE's own.
 */
static void test_hidden_reg_list(void)
{
	uint64_t dfr0, id = KVM_ARM64_SYS_REG(SYS_ID_AA64DFR0_EL1);
	unsigned int brbe = 0, odd = 0, failed = 0, refused = 0;
	struct kvm_reg_list *shown_list, *hidden_list;
	struct kvm_vcpu *shown, *hidden;
	struct kvm_vm *vm_shown, *vm_hidden;
	uint8_t val[256];
	uint64_t i, r;
	int err;

	shown = brbe_vm_create(&vm_shown);
	hidden = brbe_vm_create(&vm_hidden);
	vcpu_get_reg(hidden, id, &dfr0);
	vcpu_set_reg(hidden, id, dfr0 & ~DFR0_BRBE_MASK);
	shown_list = vcpu_get_reg_list(shown);
	hidden_list = vcpu_get_reg_list(hidden);
	for (i = 0; i < shown_list->n; i++) {
		r = shown_list->reg[i];
		brbe += is_brbe_reg(r);
		odd += is_brbe_reg(r) == in_list(hidden_list, r);
	}
	for (i = 0; i < hidden_list->n; i++)
		odd += !in_list(shown_list, hidden_list->reg[i]);
	for (i = 0; i < shown_list->n; i++) {
		r = shown_list->reg[i];
		if (r == id || __vcpu_get_reg(shown, r, val))
			continue;
		err = set_one_reg(hidden, r, val);
		if (is_brbe_reg(r)) {
			refused += err == ENOENT;
		} else if (err && !failed++) {
			ksft_print_msg("register %#lx refused: %s\n", (unsigned long)r,
				       strerror(err));
		}
	}
	ksft_print_msg("BRBE hidden: %lu registers, shown: %lu (%u of BRBE), %u odd, %u refused\n",
		       (unsigned long)hidden_list->n, (unsigned long)shown_list->n, brbe, odd,
		       failed);
	report(brbe == 6 && !odd, "hidden_brbe_lists_shown_minus_brbe");
	report(!failed, "hidden_brbe_takes_every_listed_register");
	report(refused == brbe, "hidden_brbe_refuses_brbe_registers");
	free(shown_list);
	free(hidden_list);
	kvm_vm_free(vm_shown);
	kvm_vm_free(vm_hidden);
}

int main(void)
{
	uint64_t dfr0, id = KVM_ARM64_SYS_REG(SYS_ID_AA64DFR0_EL1);
	struct kvm_vcpu *vcpu;
	struct kvm_vm *vm;
	int host_fd;

	ksft_print_header();
	TEST_REQUIRE(kvm_has_cap(KVM_CAP_ARM_PMU_V3));
	host_fd = host_branch_event();
	if (host_fd < 0)
		ksft_exit_skip("the host has no branch-stack events (no BRBE): %s\n",
			       strerror(errno));

	vcpu = brbe_vm_create(&vm);
	vcpu_get_reg(vcpu, id, &dfr0);
	if (!(dfr0 & DFR0_BRBE_MASK) && protected_kvm())
		ksft_exit_skip("protected KVM keeps BRBE from its guests\n");

	ksft_set_plan(1 + 5 + 5 + 2 + 3 + 3 + 2 + 2 + 2 + 2 + 3 + 2 + 2 + 3);
	/* First: the VM above has not run, so no VM has used BRBE yet */
	test_restored_first();
	test_id_and_one_reg(vcpu);
	test_records(vcpu);
	test_isolation(vcpu, host_fd);
	test_freeze(vcpu);
	test_host_freeze(vcpu);
	test_cycle_freeze(vcpu);
	test_self_pause(vcpu);
	test_self_pause_host(vcpu);
	test_injection_registers(vcpu);
	test_lazy(vcpu);
	test_ts_offset(vcpu);
	ksft_print_msg("host instructions per round trip, guest BRBE: %lu\n",
		       round_trip_cost(vcpu));
	kvm_vm_free(vm);
	close(host_fd);

	test_hidden();
	test_hidden_reg_list();
	ksft_finished();
}
