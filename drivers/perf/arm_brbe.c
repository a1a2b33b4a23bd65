// SPDX-License-Identifier: GPL-2.0-only
/*
 * Branch stack sampling with FEAT_BRBE, the Branch Record Buffer Extension.
 *
 * One buffer per CPU serves every branch-stack event there: it records the
 * union of their filters, is read once per overflow interrupt, and each
 * event gets only the records its own filters select.
 */

#include <linux/bitfield.h>
#include <linux/bits.h>
#include <linux/build_bug.h>
#include <linux/cpufeature.h>
#include <linux/minmax.h>
#include <linux/percpu.h>
#include <linux/static_call.h>
#include <linux/perf/arm_pmu.h>
#include <linux/perf/arm_pmuv3.h>
#include <linux/perf_event.h>

#include <asm/brbe.h>
#include <asm/sysreg.h>
#include <asm/virt.h>

#include "arm_brbe.h"

#define BRBE_BRANCH_TYPES	(PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_ANY_CALL |	\
				 PERF_SAMPLE_BRANCH_ANY_RETURN |			\
				 PERF_SAMPLE_BRANCH_IND_CALL |				\
				 PERF_SAMPLE_BRANCH_IND_JUMP |				\
				 PERF_SAMPLE_BRANCH_CALL | PERF_SAMPLE_BRANCH_COND)

/* HV: a VHE kernel's own EL2 branches (brbe_levels()) */
#define BRBE_BRANCH_SUPPORTED	(PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_KERNEL |	\
				 PERF_SAMPLE_BRANCH_HV | BRBE_BRANCH_TYPES |		\
				 PERF_SAMPLE_BRANCH_NO_FLAGS |				\
				 PERF_SAMPLE_BRANCH_NO_CYCLES |				\
				 PERF_SAMPLE_BRANCH_TYPE_SAVE |				\
				 PERF_SAMPLE_BRANCH_PRIV_SAVE |				\
				 PERF_SAMPLE_BRANCH_HW_INDEX)

/* BRBE has no transactions, cannot pop returned calls, counts no events */
#define BRBE_BRANCH_REFUSED	(PERF_SAMPLE_BRANCH_ABORT_TX | PERF_SAMPLE_BRANCH_IN_TX |	\
				 PERF_SAMPLE_BRANCH_NO_TX |				\
				 PERF_SAMPLE_BRANCH_CALL_STACK |			\
				 PERF_SAMPLE_BRANCH_COUNTERS)

/* A bit the perf ABI adds must be classified here before this builds */
static_assert((BRBE_BRANCH_SUPPORTED | BRBE_BRANCH_REFUSED) == PERF_SAMPLE_BRANCH_MAX - 1);
static_assert(!(BRBE_BRANCH_SUPPORTED & BRBE_BRANCH_REFUSED));

/*
 * A VHE kernel is the hypervisor: HV asks for its EL2 branches, which are
 * KERNEL's. A hypervisor below a kernel at EL1 is never recorded for it.
 */
static u64 brbe_levels(u64 bst, bool kernel_at_el2)
{
	if (kernel_at_el2 && (bst & PERF_SAMPLE_BRANCH_HV))
		bst |= PERF_SAMPLE_BRANCH_KERNEL;
	return bst;
}

static u64 brbe_event_bst(const struct perf_event *event)
{
	return brbe_levels(event->attr.branch_sample_type, is_kernel_in_hyp_mode());
}

/* With no branch type, nothing would be recorded */
static bool brbe_bst_supported(u64 bst)
{
	return !(bst & ~BRBE_BRANCH_SUPPORTED) && (bst & BRBE_BRANCH_TYPES);
}

static bool brbe_host_levels(const struct perf_event_attr *attr)
{
	/*
	 * The host never records a guest's branches: a guest with BRBE owns
	 * the buffer while it runs, and KVM stops recording around one
	 * without. A guest-only event, or one without user and kernel,
	 * would record nothing.
	 */
	return !attr->exclude_host && !(attr->exclude_user && attr->exclude_kernel);
}

#define BRBE_FCR_TYPES		(BRBFCR_EL1_DIRECT | BRBFCR_EL1_INDIRECT |		\
				 BRBFCR_EL1_RTN | BRBFCR_EL1_INDCALL |			\
				 BRBFCR_EL1_DIRCALL | BRBFCR_EL1_CONDDIR)

/* What one branch_sample_type bit records */
struct brbe_hw_filter {
	u64 perf;	/* PERF_SAMPLE_BRANCH_* */
	u64 fcr;	/* BRBFCR_EL1 types to record (EnI clear) */
	u64 cr;		/* BRBCR_EL1 exceptions, returns, levels */
};

static const struct brbe_hw_filter brbe_hw_filters[] = {
	{ PERF_SAMPLE_BRANCH_ANY, BRBE_FCR_TYPES,
	  BRBCR_ELx_EXCEPTION | BRBCR_ELx_ERTN },
	/* exceptions count as calls, exception returns as returns */
	{ PERF_SAMPLE_BRANCH_ANY_CALL, BRBFCR_EL1_DIRCALL | BRBFCR_EL1_INDCALL,
	  BRBCR_ELx_EXCEPTION },
	{ PERF_SAMPLE_BRANCH_ANY_RETURN, BRBFCR_EL1_RTN, BRBCR_ELx_ERTN },
	{ PERF_SAMPLE_BRANCH_IND_CALL, BRBFCR_EL1_INDCALL, 0 },
	{ PERF_SAMPLE_BRANCH_CALL, BRBFCR_EL1_DIRCALL, 0 },
	{ PERF_SAMPLE_BRANCH_IND_JUMP, BRBFCR_EL1_INDIRECT, 0 },
	{ PERF_SAMPLE_BRANCH_COND, BRBFCR_EL1_CONDDIR, 0 },
	/* the same bits mean EL0/EL1 in BRBCR_EL1, EL0/EL2 in BRBCR_EL2 */
	{ PERF_SAMPLE_BRANCH_USER, 0, BRBCR_ELx_E0BRE },
	{ PERF_SAMPLE_BRANCH_KERNEL, 0, BRBCR_ELx_ExBRE },
};

struct brbe_config {
	u64 cr;		/* BRBCR_EL1 (EL2 for a VHE kernel), without FZP */
	u64 fcr;	/* BRBFCR_EL1 */
};

/* Cycle counts and misprediction flags unless the event declines them */
static struct brbe_config brbe_event_config(u64 bst)
{
	struct brbe_config cfg = { };
	int i;

	for (i = 0; i < ARRAY_SIZE(brbe_hw_filters); i++) {
		if (bst & brbe_hw_filters[i].perf) {
			cfg.fcr |= brbe_hw_filters[i].fcr;
			cfg.cr |= brbe_hw_filters[i].cr;
		}
	}
	if (!(bst & PERF_SAMPLE_BRANCH_NO_CYCLES))
		cfg.cr |= BRBCR_ELx_CC;
	if (!(bst & PERF_SAMPLE_BRANCH_NO_FLAGS))
		cfg.cr |= BRBCR_ELx_MPRED;
	return cfg;
}

/* Record what any event wants; brbe_filter() gives each its own part */
static void brbe_config_merge(struct brbe_config *cfg, u64 bst)
{
	struct brbe_config one = brbe_event_config(bst);

	cfg->cr |= one.cr;
	cfg->fcr |= one.fcr;
}

/* What a BRBINF<n>_EL1.TYPE encoding means to perf */
struct brbe_type {
	u8 type;	/* PERF_BR_*, EXTEND_ABI when new_type says more */
	u8 new_type;	/* PERF_BR_NEW_* / PERF_BR_ARM64_* */
	u16 sel;	/* PERF_SAMPLE_BRANCH_* bits selecting it besides ANY */
};

#define BRBE_TYPE(enc, t, nt, s)						\
	[BRBINFx_EL1_TYPE_##enc] = { .type = PERF_BR_##t, .new_type = nt, .sel = s }
#define BRBE_EXC(enc, t, nt)							\
	BRBE_TYPE(enc, t, nt, PERF_SAMPLE_BRANCH_ANY_CALL)

/*
 * Encodings not listed decode as PERF_BR_UNKNOWN, selected only by ANY.
 * A trap shows as PERF_BR_IRQ, as perf's tools expect.
 */
static const struct brbe_type brbe_types[BIT(6)] = {
	BRBE_TYPE(DIRECT_UNCOND, UNCOND, 0, 0),
	BRBE_TYPE(INDIRECT, IND, 0, PERF_SAMPLE_BRANCH_IND_JUMP),
	BRBE_TYPE(DIRECT_LINK, CALL, 0,
		  PERF_SAMPLE_BRANCH_CALL | PERF_SAMPLE_BRANCH_ANY_CALL),
	BRBE_TYPE(INDIRECT_LINK, IND_CALL, 0,
		  PERF_SAMPLE_BRANCH_IND_CALL | PERF_SAMPLE_BRANCH_ANY_CALL),
	BRBE_TYPE(RET, RET, 0, PERF_SAMPLE_BRANCH_ANY_RETURN),
	BRBE_TYPE(ERET, ERET, 0, PERF_SAMPLE_BRANCH_ANY_RETURN),
	BRBE_TYPE(DIRECT_COND, COND, 0, PERF_SAMPLE_BRANCH_COND),
	BRBE_EXC(CALL, SYSCALL, 0),
	BRBE_EXC(TRAP, IRQ, 0),
	BRBE_EXC(IRQ, IRQ, 0),
	BRBE_EXC(FIQ, EXTEND_ABI, PERF_BR_ARM64_FIQ),
	BRBE_EXC(SERROR, SERROR, 0),
	BRBE_EXC(ALIGN_FAULT, EXTEND_ABI, PERF_BR_NEW_FAULT_ALGN),
	BRBE_EXC(INSN_FAULT, EXTEND_ABI, PERF_BR_NEW_FAULT_INST),
	BRBE_EXC(DATA_FAULT, EXTEND_ABI, PERF_BR_NEW_FAULT_DATA),
	BRBE_EXC(INSN_DEBUG, EXTEND_ABI, PERF_BR_ARM64_DEBUG_INST),
	BRBE_EXC(DATA_DEBUG, EXTEND_ABI, PERF_BR_ARM64_DEBUG_DATA),
	BRBE_EXC(DEBUG_HALT, EXTEND_ABI, PERF_BR_ARM64_DEBUG_HALT),
	/* leaving Debug state returns to the program, as an ERET does */
	BRBE_TYPE(DEBUG_EXIT, EXTEND_ABI, PERF_BR_ARM64_DEBUG_EXIT,
		  PERF_SAMPLE_BRANCH_ANY_RETURN),
};

struct brbe_record {
	struct perf_branch_entry entry;	/* for an event that wants it all */
	u16 sel;			/* as brbe_type.sel */
};

/*
 * BRBINF.CC (BRBIDR0_EL1.CC 20-bit format): an 8-bit mantissa M and a
 * 6-bit exponent E; E 0 is M cycles, otherwise 1:M followed by E - 1
 * zeros. perf's field is 16 bits wide: longer counts saturate there.
 */
static u16 brbe_cycles(u64 inf)
{
	u64 cc = FIELD_GET(BRBINFx_EL1_CC_MASK, inf);
	unsigned int e = cc >> 8, m = cc & 0xff;

	if (inf & BRBINFx_EL1_CCU)
		return 0;
	if (!e)
		return m;
	/* (1:M) << (E - 1) reaches 2^16 from E 9 on */
	if (e >= 9)
		return U16_MAX;
	return (0x100 | m) << (e - 1);
}

/* EL2 is the kernel's own under VHE, otherwise a hypervisor's */
static u8 brbe_priv(u64 inf, bool kernel_at_el2)
{
	switch (FIELD_GET(BRBINFx_EL1_EL_MASK, inf)) {
	case BRBINFx_EL1_EL_EL0:
		return PERF_BR_PRIV_USER;
	case BRBINFx_EL1_EL_EL1:
		return PERF_BR_PRIV_KERNEL;
	case BRBINFx_EL1_EL_EL2:
		return kernel_at_el2 ? PERF_BR_PRIV_KERNEL : PERF_BR_PRIV_HV;
	default:
		return PERF_BR_PRIV_UNKNOWN;
	}
}

/*
 * BRBINF's MPRED belongs to the source and EL to the target: the Arm ARM
 * gives each only when its side is valid. A missing side's reads "unknown".
 */
static void brbe_keep_sides(struct perf_branch_entry *e, bool source, bool target)
{
	if (!source) {
		e->mispred = 0;
		e->predicted = 0;
	}
	if (!target)
		e->priv = PERF_BR_PRIV_UNKNOWN;
}

/*
 * VALID says which addresses the record holds: a branch from or to an
 * unrecorded level keeps only its recorded side. Return: false for an
 * invalid record, the end of the buffer's records.
 */
static bool brbe_decode(u64 inf, u64 src, u64 tgt, bool kernel_at_el2,
			struct brbe_record *rec)
{
	u64 valid = FIELD_GET(BRBINFx_EL1_VALID_MASK, inf);
	const struct brbe_type *t = &brbe_types[FIELD_GET(BRBINFx_EL1_TYPE_MASK, inf)];
	bool source = valid & BRBINFx_EL1_VALID_SOURCE;
	bool target = valid & BRBINFx_EL1_VALID_TARGET;
	bool mispred = inf & BRBINFx_EL1_MPRED;

	if (valid == BRBINFx_EL1_VALID_NONE)
		return false;

	*rec = (struct brbe_record) {
		.entry = {
			.from = source ? src : 0,
			.to = target ? tgt : 0,
			.mispred = mispred,
			.predicted = !mispred,
			.cycles = brbe_cycles(inf),
			.type = t->type,
			.new_type = t->new_type,
			.priv = brbe_priv(inf, kernel_at_el2),
		},
		.sel = t->sel,
	};
	brbe_keep_sides(&rec->entry, source, target);
	return true;
}

/* Kernel addresses (EL1, or EL2 under VHE) are those of the upper VA range */
static bool brbe_addr_allowed(u64 addr, u64 bst)
{
	if (!addr)
		return true;
	if (addr & BIT_ULL(55))
		return bst & PERF_SAMPLE_BRANCH_KERNEL;
	return bst & PERF_SAMPLE_BRANCH_USER;
}

/*
 * An address of a level the event did not ask for reads 0, as if only its
 * levels had been recorded. Return: false if nothing is left for it.
 */
static bool brbe_filter_one(const struct brbe_record *rec, u64 bst,
			    struct perf_branch_entry *out)
{
	if (!(bst & PERF_SAMPLE_BRANCH_ANY) && !(rec->sel & bst))
		return false;

	*out = rec->entry;
	if (!brbe_addr_allowed(out->from, bst))
		out->from = 0;
	if (!brbe_addr_allowed(out->to, bst))
		out->to = 0;
	if (!out->from && !out->to)
		return false;
	/* A hidden side takes its fields along, as in a half record */
	brbe_keep_sides(out, out->from, out->to);

	/*
	 * The type and privilege go out whether or not TYPE_SAVE/PRIV_SAVE
	 * asked for them, as mainline's driver does: perf script then shows
	 * them for a plain -j any.
	 */
	if (bst & PERF_SAMPLE_BRANCH_NO_FLAGS) {
		out->mispred = 0;
		out->predicted = 0;
	}
	if (bst & PERF_SAMPLE_BRANCH_NO_CYCLES)
		out->cycles = 0;
	return true;
}

/* Return: the records of @snap for @bst in @out; *@hw_idx the newest's index */
static unsigned int brbe_filter(const struct brbe_record *snap, unsigned int nr,
				u64 bst, struct perf_branch_entry *out, u64 *hw_idx)
{
	unsigned int i, n = 0;

	*hw_idx = -1ULL;
	for (i = 0; i < nr; i++) {
		if (!brbe_filter_one(&snap[i], bst, &out[n]))
			continue;
		if (!n)
			*hw_idx = i;
		n++;
	}
	return n;
}

/* Drop every record; the caller's ISB completed the branches before it */
static void brbe_invalidate_synced(void)
{
	asm volatile(__msr_s(OP_BRB_IALL, "xzr"));
	isb();
}

static void brbe_invalidate(void)
{
	/* Records made before this point must not survive it */
	isb();
	brbe_invalidate_synced();
}

/* A freeze stamps the virtual count, the kernel clock's; 0b00 is reserved */
#define BRBE_CR_TS	FIELD_PREP(BRBCR_ELx_TS_MASK, BRBCR_ELx_TS_VIRTUAL)

/*
 * BRBCR_EL1.FZP freezes on the counters below MDCR_EL2.HPMN, BRBCR_EL2's
 * on the others: with both, any overflow freezes the buffer. BRBCR_EL12,
 * the guest's, records no level, but its CC and MPRED must allow them too
 * (BRBCycleCountingEnabled(), BRBEMispredictAllowed()). Writes act at the
 * next ISB: the first stops recording before the buffer is emptied.
 */
static void brbe_write_config(const struct brbe_config *cfg)
{
	u64 fz = cfg->cr ? BRBCR_ELx_FZP : 0;
	u64 cr = cfg->cr | fz | BRBE_CR_TS;

	write_sysreg_s(BRBE_CR_TS, SYS_BRBCR_EL1);
	isb();
	brbe_invalidate_synced();
	write_sysreg_s(cfg->fcr, SYS_BRBFCR_EL1);
	if (is_kernel_in_hyp_mode())
		write_sysreg_s(cr & (BRBCR_ELx_CC | BRBCR_ELx_MPRED | BRBCR_ELx_FZP |
				     BRBCR_ELx_TS_MASK), SYS_BRBCR_EL12);
	write_sysreg_s(cr, SYS_BRBCR_EL1);
	isb();
}

/* One CPU's buffer and the snapshot read from it */
struct brbe_cpu {
	unsigned int numrec;	/* 0: no BRBE on this CPU */
	unsigned int users;	/* branch-stack events scheduled */
	bool changed;		/* since the buffer was last programmed */
	bool parked;		/* paused with no users, cfg kept */
	struct brbe_config cfg;
	bool snapped;		/* snap holds this interrupt's records */
	unsigned int nr;
	struct brbe_record snap[BRBE_MAX_RECORDS];	/* newest first */
	struct perf_branch_stack stack;		/* one event's, for perf */
	struct perf_branch_entry entries[BRBE_MAX_RECORDS];
};

static DEFINE_PER_CPU(struct brbe_cpu, brbe_cpu);

/* The number of records this CPU's buffer holds, 0 if it cannot be used */
static unsigned int brbe_cpu_numrec(void)
{
	u64 dfr0 = read_sysreg_s(SYS_ID_AA64DFR0_EL1);
	u64 idr;

	/* A hypervisor advertises BRBE only if its guest's accesses reach it */
	if (!cpuid_feature_extract_unsigned_field(dfr0, ID_AA64DFR0_EL1_BRBE_SHIFT))
		return 0;

	idr = read_sysreg_s(SYS_BRBIDR0_EL1);
	/* The record and cycle count formats decoded here are the only ones */
	if (FIELD_GET(BRBIDR0_EL1_FORMAT_MASK, idr) != BRBIDR0_EL1_FORMAT_FORMAT_0 ||
	    FIELD_GET(BRBIDR0_EL1_CC_MASK, idr) != BRBIDR0_EL1_CC_20_BIT)
		return 0;
	switch (FIELD_GET(BRBIDR0_EL1_NUMREC_MASK, idr)) {
	case 8: case 16: case 32: case 64:
		return FIELD_GET(BRBIDR0_EL1_NUMREC_MASK, idr);
	default:
		return 0;
	}
}

/**
 * brbe_probe() - whether this CPU has a BRBE the driver can use
 *
 * Return: true if the CPU has a BRBE of a format the driver decodes.
 */
bool brbe_probe(void)
{
	return brbe_cpu_numrec();
}

/**
 * brbe_records() - the records a PMU's buffers hold, for caps/branches
 * @cpus: the PMU's CPUs, all of one kind
 *
 * Return: the first CPU's number of records, 0 without a usable BRBE.
 */
unsigned int brbe_records(const struct cpumask *cpus)
{
	return per_cpu(brbe_cpu, cpumask_first(cpus)).numrec;
}

/**
 * brbe_event_check() - check a branch-stack event's branch_sample_type
 * @event: the event, with PERF_SAMPLE_BRANCH_STACK
 *
 * Return: 0, or -EOPNOTSUPP for a bit BRBE cannot honour, no branch type,
 * or no host level to record (guest-only, or neither user nor kernel).
 */
int brbe_event_check(const struct perf_event *event)
{
	if (!brbe_bst_supported(event->attr.branch_sample_type) ||
	    !brbe_host_levels(&event->attr))
		return -EOPNOTSUPP;
	return 0;
}

/**
 * brbe_reset() - stop this CPU's buffer as the CPU comes up or lost state
 */
void brbe_reset(void)
{
	struct brbe_cpu *bc = this_cpu_ptr(&brbe_cpu);

	bc->numrec = brbe_cpu_numrec();
	if (!bc->numrec)
		return;
	bc->cfg = (struct brbe_config) { };
	brbe_write_config(&bc->cfg);
	bc->changed = true;
	bc->parked = false;
}

static bool brbe_config_equal(const struct brbe_config *a,
			      const struct brbe_config *b)
{
	return a->cr == b->cr && a->fcr == b->fcr;
}

/*
 * A freeze (FZP) whose overflow interrupt never came, because its event
 * was stopped or deleted first with interrupts masked, would leave the
 * buffer paused for every branch event still scheduled: restart it empty.
 * Outside an interrupt's snapshot only a freeze pauses a buffer in use;
 * one whose overflow is still flagged waits for its interrupt, as a
 * resume would only freeze again (ShouldBRBEFreeze() is level-sensitive).
 */
static void brbe_thaw(struct brbe_cpu *bc)
{
	if (!bc->users || bc->snapped ||
	    !(read_sysreg_s(SYS_BRBFCR_EL1) & BRBFCR_EL1_PAUSED) ||
	    (read_sysreg(pmovsclr_el0) &
	     GENMASK(ARMV8_PMU_MAX_GENERAL_COUNTERS - 1, 0)))
		return;
	asm volatile(__msr_s(OP_BRB_IALL, "xzr"));
	write_sysreg_s(bc->cfg.fcr, SYS_BRBFCR_EL1);
}

/**
 * brbe_enable() - program the buffer for a changed set of branch events
 * @cpuc: this CPU's PMU events
 *
 * The records made for the previous set are dropped. A parked buffer stays
 * parked for a set without branch events, and only resumes for one that
 * programs it alike (a context switch between tasks with the same
 * filters): the caller's ISB completes the emptying and the write, while
 * nothing is recorded. An unchanged set gets a lost freeze undone.
 */
void brbe_enable(struct pmu_hw_events *cpuc)
{
	struct brbe_cpu *bc = this_cpu_ptr(&brbe_cpu);
	struct brbe_config cfg = { };
	int idx;

	if (!bc->numrec)
		return;
	if (!bc->changed) {
		brbe_thaw(bc);
		return;
	}
	bc->changed = false;

	for (idx = 0; idx < ARMPMU_MAX_HWEVENTS; idx++) {
		struct perf_event *event = cpuc->events[idx];

		if (event && has_branch_stack(event))
			brbe_config_merge(&cfg, brbe_event_bst(event));
	}
	if (bc->parked && !cfg.cr)
		return;
	if (bc->parked && brbe_config_equal(&cfg, &bc->cfg)) {
		asm volatile(__msr_s(OP_BRB_IALL, "xzr"));
		write_sysreg_s(cfg.fcr, SYS_BRBFCR_EL1);
	} else {
		bc->cfg = cfg;
		brbe_write_config(&bc->cfg);
	}
	bc->parked = false;
}

/*
 * Stop recording with the last branch event gone: pause, keeping the
 * programming for the next set, often the same one a context switch
 * brings back. Nothing relies on the pause before brbe_enable() empties
 * the buffer, so the write needs no ISB of its own.
 */
static void brbe_disable(struct brbe_cpu *bc)
{
	if (!bc->numrec || !bc->cfg.cr)
		return;
	bc->parked = true;
	write_sysreg_s(bc->cfg.fcr | BRBFCR_EL1_PAUSED, SYS_BRBFCR_EL1);
}

/*
 * Records are dropped at context switches. A task's own event is deleted
 * and added around them, and brbe_enable() empties the buffer; one that
 * stays scheduled, CPU-wide or inherited (perf swaps the contexts of a
 * task's clones instead), needs the switch callback.
 */
static bool brbe_event_spans_switches(const struct perf_event *event)
{
	return !(event->attach_state & PERF_ATTACH_TASK) || event->attr.inherit;
}

/**
 * brbe_add_del() - a branch-stack event is added to or deleted from this CPU
 * @event: the event
 * @add: it is added, else deleted
 *
 * While one that spans context switches is scheduled, they call
 * brbe_sched_task().
 */
void brbe_add_del(struct perf_event *event, bool add)
{
	struct brbe_cpu *bc = this_cpu_ptr(&brbe_cpu);
	bool cb = brbe_event_spans_switches(event);

	bc->changed = true;
	if (add) {
		bc->users++;
		if (cb)
			perf_sched_cb_inc(event->pmu);
		return;
	}
	bc->users--;
	if (cb)
		perf_sched_cb_dec(event->pmu);
	if (!bc->users)
		brbe_disable(bc);
}

/* Stop recording; return BRBFCR_EL1 as it was, paused or not */
static u64 brbe_pause(void)
{
	u64 fcr = read_sysreg_s(SYS_BRBFCR_EL1);

	if (!(fcr & BRBFCR_EL1_PAUSED)) {
		write_sysreg_s(fcr | BRBFCR_EL1_PAUSED, SYS_BRBFCR_EL1);
		isb();
	}
	return fcr;
}

/* The paused buffer's valid records into @bc->snap; @fcr is BRBFCR_EL1 */
static void brbe_read(struct brbe_cpu *bc, u64 fcr)
{
	bool kernel_at_el2 = is_kernel_in_hyp_mode();
	u64 inf, src = 0, tgt = 0;
	unsigned int i;

	fcr |= BRBFCR_EL1_PAUSED;
	bc->nr = 0;
	for (i = 0; i < bc->numrec; i++) {
		if (i % BRBE_BANK_RECORDS == 0) {
			fcr &= ~BRBFCR_EL1_BANK_MASK;
			fcr |= FIELD_PREP(BRBFCR_EL1_BANK_MASK, i / BRBE_BANK_RECORDS);
			write_sysreg_s(fcr, SYS_BRBFCR_EL1);
			isb();
		}
		brbe_read_record(i % BRBE_BANK_RECORDS, &inf, &src, &tgt);
		if (!brbe_decode(inf, src, tgt, kernel_at_el2, &bc->snap[bc->nr]))
			break;
		bc->nr++;
	}
}

/* The pause covers an interrupt that no overflow's freeze (FZP) caused */
static void brbe_snapshot(struct brbe_cpu *bc)
{
	brbe_read(bc, brbe_pause());
	bc->snapped = true;
}

/**
 * brbe_sample() - give an overflowed event its branch records
 * @event: a branch-stack event whose period elapsed
 * @data: its sample
 *
 * The first call of an interrupt reads the buffer, once for every event.
 */
void brbe_sample(struct perf_event *event, struct perf_sample_data *data)
{
	struct brbe_cpu *bc = this_cpu_ptr(&brbe_cpu);

	if (!bc->numrec)
		return;
	if (!bc->snapped)
		brbe_snapshot(bc);

	bc->stack.nr = brbe_filter(bc->snap, bc->nr, brbe_event_bst(event),
				   bc->entries, &bc->stack.hw_idx);
	perf_sample_save_brstack(data, event, &bc->stack, NULL);
}

/**
 * brbe_resume() - let the buffer record again at the end of an interrupt
 *
 * It restarts empty: a later sample must not join the records before the
 * freeze to the branches after the interrupt as one path, nor repeat them.
 */
void brbe_resume(void)
{
	struct brbe_cpu *bc = this_cpu_ptr(&brbe_cpu);

	if (!bc->numrec || !bc->users)
		return;
	bc->snapped = false;
	/* The exception return completes both, while nothing is recorded */
	asm volatile(__msr_s(OP_BRB_IALL, "xzr"));
	write_sysreg_s(bc->cfg.fcr, SYS_BRBFCR_EL1);
}

/**
 * brbe_sched_task() - start the next task on an empty buffer
 * @pmu_ctx: the PMU context switched
 * @task: the task switched
 * @sched_in: the incoming side
 */
void brbe_sched_task(struct perf_event_pmu_context *pmu_ctx,
		     struct task_struct *task, bool sched_in)
{
	struct brbe_cpu *bc = this_cpu_ptr(&brbe_cpu);

	/* A changed set is programmed, records dropped, as the PMU is enabled */
	if (sched_in && bc->numrec && !bc->changed)
		brbe_invalidate();
}

/*
 * PSTATE.I masks pseudo-NMIs too, whatever PMR holds. DAIF is restored
 * raw: local_daif_restore() would leave a pseudo-NMI handler's I set, A
 * clear state with I clear, where another NMI can nest.
 */
static unsigned long brbe_mask_daif(void)
{
	unsigned long daif = read_sysreg(daif);

	asm volatile("msr daifset, #0xf" : : : "memory");
	return daif;
}

static void brbe_restore_daif(unsigned long daif)
{
	barrier();
	write_sysreg(daif, daif);
}

/*
 * bpf_get_branch_snapshot(): unfiltered (the program has CAP_PERFMON and
 * CAP_BPF). It may run in any context, an NMI's included: every interrupt
 * is masked so none reads, resumes or reprograms the buffer halfway. Each
 * record is handed out once: the buffer is emptied after the read.
 */
static int brbe_branch_snapshot(struct perf_branch_entry *entries, unsigned int cnt)
{
	unsigned long daif = brbe_mask_daif();
	struct brbe_cpu *bc = this_cpu_ptr(&brbe_cpu);
	unsigned int i, n = 0;
	u64 fcr = 0;

	/* A parked buffer holds the records of events no longer scheduled */
	if (!bc->numrec || !bc->cfg.cr || bc->parked)
		goto out;

	if (!bc->snapped) {
		fcr = brbe_pause();
		brbe_read(bc, fcr);
	}
	n = min(bc->nr, cnt);
	for (i = 0; i < n; i++)
		entries[i] = bc->snap[i].entry;
	brbe_invalidate_synced();
	/* The pause as found: a freeze the interrupt has yet to see stays */
	if (!bc->snapped) {
		write_sysreg_s(fcr, SYS_BRBFCR_EL1);
		isb();
	}
out:
	brbe_restore_daif(daif);
	return n;
}

/**
 * brbe_offer_snapshot() - serve bpf_get_branch_snapshot() from BRBE
 *
 * A CPU without BRBE gives an empty snapshot.
 */
void brbe_offer_snapshot(void)
{
	static_call_update(perf_snapshot_branch_stack, brbe_branch_snapshot);
}

/* The tests call the static functions above */
#if IS_ENABLED(CONFIG_ARM64_BRBE_KUNIT_TEST)
#include "arm_brbe_test.c"
#endif
