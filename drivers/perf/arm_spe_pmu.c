// SPDX-License-Identifier: GPL-2.0-only
/*
 * Arm Statistical Profiling Extension (SPE): records of sampled operations
 * written by the CPU into the perf AUX buffer.
 *
 * The file reads in the order perf uses it: attribute layout and sysfs
 * tables, register access, the pure translations (attributes to register
 * values, AUX buffer windows, PMBSR outcomes) that KUnit tests, the AUX
 * buffer and the interrupt, the pmu callbacks, then probing.
 */

#include <linux/bitfield.h>
#include <linux/bits.h>
#include <linux/capability.h>
#include <linux/cpuhotplug.h>
#include <linux/device.h>
#include <linux/errno.h>
#include <linux/idr.h>
#include <linux/interrupt.h>
#include <linux/irq.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/of.h>
#include <linux/perf/arm_pmu.h>
#include <linux/perf/arm_spe_pmu.h>
#include <linux/perf_event.h>
#include <linux/platform_device.h>
#include <linux/printk.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/vmalloc.h>

#include <asm/barrier.h>
#include <asm/cpufeature.h>
#include <asm/esr.h>
#include <asm/mmu.h>
#include <asm/sysreg.h>
#include <asm/virt.h>

#define ARM_SPE_PMU_NAME		"arm_spe"
#define DRVNAME				"arm_spe_pmu"

/*
 * Where the user-visible fields live in perf_event_attr. This is perf tool
 * ABI (tools/perf/arch/arm64/util/arm-spe.c, perf-arm-spe(1)): format/
 * shows these masks.
 */
#define ARM_SPE_CFG_TS			BIT_ULL(0)	/* PMSCR.TS */
#define ARM_SPE_CFG_PA			BIT_ULL(1)	/* PMSCR.PA */
#define ARM_SPE_CFG_PCT			BIT_ULL(2)	/* PMSCR.PCT */
#define ARM_SPE_CFG_JITTER		BIT_ULL(16)	/* PMSIRR.RND */
#define ARM_SPE_CFG_BRANCH		BIT_ULL(32)	/* PMSFCR.B */
#define ARM_SPE_CFG_LOAD		BIT_ULL(33)	/* PMSFCR.LD */
#define ARM_SPE_CFG_STORE		BIT_ULL(34)	/* PMSFCR.ST */
#define ARM_SPE_CFG_DISCARD		BIT_ULL(35)	/* PMBLIMITR.FM */
/* FEAT_SPE_EFT: more operation types, and masks that AND a type in */
#define ARM_SPE_CFG_BRANCH_MASK		BIT_ULL(36)	/* PMSFCR.Bm */
#define ARM_SPE_CFG_LOAD_MASK		BIT_ULL(37)	/* PMSFCR.LDm */
#define ARM_SPE_CFG_STORE_MASK		BIT_ULL(38)	/* PMSFCR.STm */
#define ARM_SPE_CFG_SIMD		BIT_ULL(39)	/* PMSFCR.SIMD */
#define ARM_SPE_CFG_SIMD_MASK		BIT_ULL(40)	/* PMSFCR.SIMDm */
#define ARM_SPE_CFG_FLOAT		BIT_ULL(41)	/* PMSFCR.FP */
#define ARM_SPE_CFG_FLOAT_MASK		BIT_ULL(42)	/* PMSFCR.FPm */
#define ARM_SPE_CFG_EFT			GENMASK_ULL(42, 36)
#define ARM_SPE_CFG_ALL			(ARM_SPE_CFG_TS | ARM_SPE_CFG_PA |	\
					 ARM_SPE_CFG_PCT | ARM_SPE_CFG_JITTER |	\
					 ARM_SPE_CFG_BRANCH | ARM_SPE_CFG_LOAD |	\
					 ARM_SPE_CFG_STORE | ARM_SPE_CFG_DISCARD |	\
					 ARM_SPE_CFG_EFT)
/* config1 is PMSEVFR_EL1, config3 is PMSNEVFR_EL1, config2 holds MINLAT */
#define ARM_SPE_CFG2_MINLAT		GENMASK_ULL(11, 0)

/* Capabilities the probe finds, as bits of arm_spe_pmu_caps::features */
#define ARM_SPE_FEAT_FE			BIT(0)	/* event filter, PMSEVFR */
#define ARM_SPE_FEAT_FT			BIT(1)	/* operation type filter */
#define ARM_SPE_FEAT_FL			BIT(2)	/* latency filter */
#define ARM_SPE_FEAT_FNE		BIT(3)	/* inverted event filter, PMSNEVFR */
#define ARM_SPE_FEAT_ARCH_INST		BIT(4)	/* samples instructions, not uops */
#define ARM_SPE_FEAT_ERND		BIT(5)	/* exact random interval */
#define ARM_SPE_FEAT_DISCARD		BIT(6)	/* PMBLIMITR.FM discard, SPEv1p2 */
#define ARM_SPE_FEAT_EFT		BIT(7)	/* extended operation type filter */

/*
 * FEAT_SPE_EFT's fields, which this kernel's arch/arm64/tools/sysreg
 * predates; their positions are those of the Arm ARM (PMSIDR_EL1 bit 26,
 * PMSFCR_EL1 bits 19-20 and 48-52).
 */
#define ARM_SPE_PMSIDR_EFT		BIT_ULL(26)
#define ARM_SPE_PMSFCR_FP		BIT_ULL(19)
#define ARM_SPE_PMSFCR_SIMD		BIT_ULL(20)
#define ARM_SPE_PMSFCR_BM		BIT_ULL(48)
#define ARM_SPE_PMSFCR_LDM		BIT_ULL(49)
#define ARM_SPE_PMSFCR_STM		BIT_ULL(50)
#define ARM_SPE_PMSFCR_FPM		BIT_ULL(51)
#define ARM_SPE_PMSFCR_SIMDM		BIT_ULL(52)

/* PMSCR_ELx.PCT value selecting the physical counter (EL1 and EL2 agree) */
#define ARM_SPE_PMSCR_PCT_PHYS		1

/*
 * PMSIRR_EL1.INTERVAL holds bits [31:8] of the interval and must not be
 * zero: intervals are multiples of 256, from 256 to this.
 */
#define ARM_SPE_MAX_PERIOD		PMSIRR_EL1_INTERVAL_MASK
#define ARM_SPE_PERIOD_GRANULE		256

/**
 * struct arm_spe_pmu_caps - what one SPE unit offers, and a bound of ours
 * @features: ARM_SPE_FEAT_* bits from PMSIDR_EL1 and PMSVer
 * @min_interval: the smallest sampling interval PMSIDR_EL1 recommends
 * @max_record: the largest record, in bytes (PMSIDR_EL1.MaxSize)
 * @align: the buffer pointer's alignment, in bytes (PMBIDR_EL1.Align)
 * @count_size: the width of latency counters, in bits
 * @pmsver: ID_AA64DFR0_EL1.PMSVer
 * @evfr_res0: PMSEVFR_EL1/PMSNEVFR_EL1 bits this unit cannot filter on
 * @window_max: the longest normal window in bytes, 0 for none; set by
 *	where this kernel runs, not by the unit (it bounds the mend's walk)
 */
struct arm_spe_pmu_caps {
	u32 features;
	u32 min_interval;
	u32 max_record;
	u32 align;
	u32 count_size;
	u32 pmsver;
	u64 evfr_res0;
	unsigned long window_max;
};

/**
 * struct arm_spe_pmu_regs - the register values one event programs
 * @pmscr: PMSCR_EL1 (PMSCR_EL2 on a VHE host: the bits line up)
 * @pmsfcr: PMSFCR_EL1
 * @pmsevfr: PMSEVFR_EL1
 * @pmsnevfr: PMSNEVFR_EL1, written only where FnE exists
 * @pmslatfr: PMSLATFR_EL1
 * @pmsirr: PMSIRR_EL1
 * @pmblimitr_fm: PMBLIMITR_EL1.FM, fill or discard
 */
struct arm_spe_pmu_regs {
	u64 pmscr;
	u64 pmsfcr;
	u64 pmsevfr;
	u64 pmsnevfr;
	u64 pmslatfr;
	u64 pmsirr;
	u64 pmblimitr_fm;
};

/**
 * struct arm_spe_pmu_window - the next stretch of AUX buffer for the CPU
 * @pad: bytes of padding to write from the head before the window
 * @zero: bytes to clear from @start (snapshot: the chunk being reused)
 * @start: buffer offset of PMBPTR_EL1
 * @limit: buffer offset of PMBLIMITR_EL1.LIMIT (exclusive)
 */
struct arm_spe_pmu_window {
	unsigned long pad;
	unsigned long zero;
	unsigned long start;
	unsigned long limit;
};

/* A buffer management event, as arm_spe_pmu_pmbsr_decode() classifies it */
enum arm_spe_pmu_outcome {
	ARM_SPE_OUTCOME_NONE,		/* PMBSR.S clear: profiling goes on */
	ARM_SPE_OUTCOME_FULL,		/* continue in a fresh window */
	ARM_SPE_OUTCOME_LOST,		/* full, a record cut (DL): stop */
	ARM_SPE_OUTCOME_REMAP,		/* stage-2 fault: mend, map, go on */
	ARM_SPE_OUTCOME_FATAL,		/* fault or abort: stop the event */
};

/* One AUX buffer, mapped contiguously for the profiling unit's writes */
struct arm_spe_pmu_buf {
	void *base;
	unsigned long size;
	bool snapshot;
	bool retrying;		/* the window opened at a stage-2 fault */
};

struct arm_spe_pmu {
	struct pmu pmu;
	struct platform_device *pdev;
	cpumask_t supported_cpus;
	struct hlist_node hp_node;
	int irq;
	int id;
	int probe_err;
	struct arm_spe_pmu_caps caps;
	struct perf_output_handle __percpu *handle;
};

#define to_arm_spe_pmu(p)	container_of(p, struct arm_spe_pmu, pmu)

static enum cpuhp_state arm_spe_pmu_hp_state;
static DEFINE_IDA(arm_spe_pmu_ida);
/* The CPUs of every probed instance: their buffer interrupt is ours */
static cpumask_t arm_spe_pmu_irq_cpus;

/* sysfs: format/ (perf tool ABI), caps/ and cpumask */

/*
 * A format/ file: which config word of perf_event_attr, which bits of it
 * (contiguous), and the features the hardware needs to honour them. The
 * file's text is made from the mask, so each bit is written down once.
 */
struct arm_spe_pmu_format {
	struct device_attribute dev_attr;
	const char *word;
	u64 bits;
	u32 needs;
};

static ssize_t arm_spe_pmu_format_show(struct device *dev,
				       struct device_attribute *attr, char *buf)
{
	const struct arm_spe_pmu_format *fmt =
		container_of(attr, struct arm_spe_pmu_format, dev_attr);
	unsigned int lo = __ffs64(fmt->bits), hi = fls64(fmt->bits) - 1;

	if (lo == hi)
		return sysfs_emit(buf, "%s:%u\n", fmt->word, lo);
	return sysfs_emit(buf, "%s:%u-%u\n", fmt->word, lo, hi);
}

#define ARM_SPE_FORMAT(_name, _word, _bits, _needs)				\
	(&((struct arm_spe_pmu_format[]) {					\
		{ __ATTR(_name, 0444, arm_spe_pmu_format_show, NULL),		\
		  _word, _bits, _needs }					\
	})[0].dev_attr.attr)

static struct attribute *arm_spe_pmu_format_attrs[] = {
	ARM_SPE_FORMAT(ts_enable, "config", ARM_SPE_CFG_TS, 0),
	ARM_SPE_FORMAT(pa_enable, "config", ARM_SPE_CFG_PA, 0),
	ARM_SPE_FORMAT(pct_enable, "config", ARM_SPE_CFG_PCT, 0),
	ARM_SPE_FORMAT(jitter, "config", ARM_SPE_CFG_JITTER, 0),
	ARM_SPE_FORMAT(branch_filter, "config", ARM_SPE_CFG_BRANCH, ARM_SPE_FEAT_FT),
	ARM_SPE_FORMAT(load_filter, "config", ARM_SPE_CFG_LOAD, ARM_SPE_FEAT_FT),
	ARM_SPE_FORMAT(store_filter, "config", ARM_SPE_CFG_STORE, ARM_SPE_FEAT_FT),
	ARM_SPE_FORMAT(discard, "config", ARM_SPE_CFG_DISCARD, ARM_SPE_FEAT_DISCARD),
	ARM_SPE_FORMAT(branch_filter_mask, "config", ARM_SPE_CFG_BRANCH_MASK, ARM_SPE_FEAT_EFT),
	ARM_SPE_FORMAT(load_filter_mask, "config", ARM_SPE_CFG_LOAD_MASK, ARM_SPE_FEAT_EFT),
	ARM_SPE_FORMAT(store_filter_mask, "config", ARM_SPE_CFG_STORE_MASK, ARM_SPE_FEAT_EFT),
	ARM_SPE_FORMAT(simd_filter, "config", ARM_SPE_CFG_SIMD, ARM_SPE_FEAT_EFT),
	ARM_SPE_FORMAT(simd_filter_mask, "config", ARM_SPE_CFG_SIMD_MASK, ARM_SPE_FEAT_EFT),
	ARM_SPE_FORMAT(float_filter, "config", ARM_SPE_CFG_FLOAT, ARM_SPE_FEAT_EFT),
	ARM_SPE_FORMAT(float_filter_mask, "config", ARM_SPE_CFG_FLOAT_MASK, ARM_SPE_FEAT_EFT),
	ARM_SPE_FORMAT(event_filter, "config1", U64_MAX, ARM_SPE_FEAT_FE),
	ARM_SPE_FORMAT(min_latency, "config2", ARM_SPE_CFG2_MINLAT, ARM_SPE_FEAT_FL),
	ARM_SPE_FORMAT(inv_event_filter, "config3", U64_MAX, ARM_SPE_FEAT_FNE),
	NULL,
};

/* Does this SPE have every feature of needs? */
static bool arm_spe_pmu_has(const struct arm_spe_pmu_caps *caps, u32 needs)
{
	return (caps->features & needs) == needs;
}

/* A format the hardware cannot honour is not shown (and is refused) */
static bool arm_spe_pmu_format_shown(const struct arm_spe_pmu_caps *caps,
				     const struct attribute *attr)
{
	return arm_spe_pmu_has(caps, container_of(attr, struct arm_spe_pmu_format,
						  dev_attr.attr)->needs);
}

static umode_t arm_spe_pmu_format_visible(struct kobject *kobj,
					  struct attribute *attr, int unused)
{
	struct device *dev = kobj_to_dev(kobj);
	struct arm_spe_pmu *spe = to_arm_spe_pmu(dev_get_drvdata(dev));

	return arm_spe_pmu_format_shown(&spe->caps, attr) ? attr->mode : 0;
}

static const struct attribute_group arm_spe_pmu_format_group = {
	.name = "format",
	.is_visible = arm_spe_pmu_format_visible,
	.attrs = arm_spe_pmu_format_attrs,
};

enum arm_spe_pmu_cap {
	ARM_SPE_CAP_ARCH_INST,
	ARM_SPE_CAP_ERND,
	ARM_SPE_CAP_COUNT_SIZE,
	ARM_SPE_CAP_MIN_INTERVAL,
	ARM_SPE_CAP_EVENT_FILTER,
};

static u64 arm_spe_pmu_cap_value(const struct arm_spe_pmu_caps *caps,
				 enum arm_spe_pmu_cap cap)
{
	switch (cap) {
	case ARM_SPE_CAP_ARCH_INST:
		return !!(caps->features & ARM_SPE_FEAT_ARCH_INST);
	case ARM_SPE_CAP_ERND:
		return !!(caps->features & ARM_SPE_FEAT_ERND);
	case ARM_SPE_CAP_COUNT_SIZE:
		return caps->count_size;
	case ARM_SPE_CAP_MIN_INTERVAL:
		return caps->min_interval;
	case ARM_SPE_CAP_EVENT_FILTER:
		/* The PMSEVFR_EL1 bits event_filter may set */
		return ~caps->evfr_res0;
	}
	return 0;
}

static ssize_t arm_spe_pmu_cap_show(struct device *dev,
				    struct device_attribute *attr, char *buf)
{
	struct arm_spe_pmu *spe = to_arm_spe_pmu(dev_get_drvdata(dev));
	struct dev_ext_attribute *ea = container_of(attr, struct dev_ext_attribute, attr);
	enum arm_spe_pmu_cap cap = (unsigned long)ea->var;
	u64 val = arm_spe_pmu_cap_value(&spe->caps, cap);

	/* A bit mask reads best in hex, as perf's event_filter is written */
	if (cap == ARM_SPE_CAP_EVENT_FILTER)
		return sysfs_emit(buf, "0x%llx\n", val);
	return sysfs_emit(buf, "%llu\n", val);
}

#define ARM_SPE_CAP_ATTR(_name, _cap)						\
	(&((struct dev_ext_attribute[]) {					\
		{ __ATTR(_name, 0444, arm_spe_pmu_cap_show, NULL), (void *)_cap }	\
	})[0].attr.attr)

static struct attribute *arm_spe_pmu_caps_attrs[] = {
	ARM_SPE_CAP_ATTR(arch_inst, ARM_SPE_CAP_ARCH_INST),
	ARM_SPE_CAP_ATTR(ernd, ARM_SPE_CAP_ERND),
	ARM_SPE_CAP_ATTR(count_size, ARM_SPE_CAP_COUNT_SIZE),
	ARM_SPE_CAP_ATTR(min_interval, ARM_SPE_CAP_MIN_INTERVAL),
	ARM_SPE_CAP_ATTR(event_filter, ARM_SPE_CAP_EVENT_FILTER),
	NULL,
};

/*
 * The feature a cap needs, as for formats: event_filter, like the format
 * of that name, only where FE exists.
 */
static const u32 arm_spe_pmu_cap_needs[] = {
	[ARM_SPE_CAP_EVENT_FILTER] = ARM_SPE_FEAT_FE,
};

static bool arm_spe_pmu_cap_shown(const struct arm_spe_pmu_caps *caps,
				  enum arm_spe_pmu_cap cap)
{
	if (cap >= ARRAY_SIZE(arm_spe_pmu_cap_needs))
		return true;
	return arm_spe_pmu_has(caps, arm_spe_pmu_cap_needs[cap]);
}

static umode_t arm_spe_pmu_caps_visible(struct kobject *kobj,
					struct attribute *attr, int unused)
{
	struct device *dev = kobj_to_dev(kobj);
	struct arm_spe_pmu *spe = to_arm_spe_pmu(dev_get_drvdata(dev));
	struct dev_ext_attribute *ea = container_of(attr, struct dev_ext_attribute,
						    attr.attr);

	return arm_spe_pmu_cap_shown(&spe->caps, (unsigned long)ea->var) ? attr->mode : 0;
}

static const struct attribute_group arm_spe_pmu_caps_group = {
	.name = "caps",
	.is_visible = arm_spe_pmu_caps_visible,
	.attrs = arm_spe_pmu_caps_attrs,
};

static ssize_t cpumask_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	struct arm_spe_pmu *spe = to_arm_spe_pmu(dev_get_drvdata(dev));

	return sysfs_emit(buf, "%*pbl\n", cpumask_pr_args(&spe->supported_cpus));
}
static DEVICE_ATTR_RO(cpumask);

/* The PMU's directory holds cpumask; format/ and caps/ are below it */
static const struct attribute_group *arm_spe_pmu_sysfs_groups[] = {
	&(const struct attribute_group) {
		.attrs = (struct attribute *[]) { &dev_attr_cpumask.attr, NULL },
	},
	&arm_spe_pmu_format_group,
	&arm_spe_pmu_caps_group,
	NULL,
};

/* Register access: everything that touches the profiling unit */

/*
 * PSB CSYNC makes the records of operations already sampled reach the
 * buffer, and the DSB completes those writes: PMBPTR_EL1 and the buffer's
 * contents then agree.
 */
static void arm_spe_pmu_hw_drain(void)
{
	psb_csync();
	dsb(nsh);
}

/* Stop sampling (the ISB makes it so before the drain), drain, disable */
static void arm_spe_pmu_hw_halt(void)
{
	write_sysreg_s(0, SYS_PMSCR_EL1);
	isb();
	arm_spe_pmu_hw_drain();
	write_sysreg_s(0, SYS_PMBLIMITR_EL1);
	isb();
}

/*
 * Clear a buffer management event: this lowers the interrupt, and the
 * ISB makes it so before the GIC sees the interrupt's end.
 */
static void arm_spe_pmu_hw_ack(void)
{
	write_sysreg_s(0, SYS_PMBSR_EL1);
	isb();
}

static void arm_spe_pmu_hw_reset(void)
{
	arm_spe_pmu_hw_halt();
	arm_spe_pmu_hw_ack();
}

static void arm_spe_pmu_hw_program_buffer(u64 ptr, u64 limitr)
{
	write_sysreg_s(ptr, SYS_PMBPTR_EL1);
	write_sysreg_s(limitr, SYS_PMBLIMITR_EL1);
}

static void arm_spe_pmu_hw_program_sampling(const struct arm_spe_pmu_caps *caps,
					    const struct arm_spe_pmu_regs *regs,
					    u64 pmsicr)
{
	write_sysreg_s(regs->pmsfcr, SYS_PMSFCR_EL1);
	write_sysreg_s(regs->pmsevfr, SYS_PMSEVFR_EL1);
	if (caps->features & ARM_SPE_FEAT_FNE)
		write_sysreg_s(regs->pmsnevfr, SYS_PMSNEVFR_EL1);
	write_sysreg_s(regs->pmslatfr, SYS_PMSLATFR_EL1);
	write_sysreg_s(regs->pmsirr, SYS_PMSIRR_EL1);
	write_sysreg_s(pmsicr, SYS_PMSICR_EL1);
	/* The buffer and filters must be in place before sampling starts */
	isb();
	write_sysreg_s(regs->pmscr, SYS_PMSCR_EL1);
	isb();
}

/* Pure translations, unit-tested by arm_spe_pmu_test.c */

/* Whether PMSIRR_EL1 can hold a period (intervals are rounded, not cut) */
static bool arm_spe_pmu_period_ok(u64 period)
{
	return period && period <= ARM_SPE_MAX_PERIOD;
}

/* The features an event's parameters need */
static u32 arm_spe_pmu_attr_needs(const struct perf_event_attr *attr)
{
	static const struct {
		u64 config;
		u32 feature;
	} needs[] = {
		{ ARM_SPE_CFG_DISCARD, ARM_SPE_FEAT_DISCARD },
		{ ARM_SPE_CFG_BRANCH | ARM_SPE_CFG_LOAD | ARM_SPE_CFG_STORE, ARM_SPE_FEAT_FT },
		{ ARM_SPE_CFG_EFT, ARM_SPE_FEAT_FT | ARM_SPE_FEAT_EFT },
	};
	u32 feat = 0;
	int i;

	for (i = 0; i < ARRAY_SIZE(needs); i++)
		if (attr->config & needs[i].config)
			feat |= needs[i].feature;
	if (attr->config1)
		feat |= ARM_SPE_FEAT_FE;
	if (attr->config2)
		feat |= ARM_SPE_FEAT_FL;
	if (attr->config3)
		feat |= ARM_SPE_FEAT_FNE;
	return feat;
}

/**
 * arm_spe_pmu_check_attr() - refuse what this SPE cannot record as asked
 * @caps: the implementation's capabilities
 * @attr: the requested attributes
 *
 * Privilege is checked by the caller; this only looks at the hardware.
 * A period below the recommended minimum interval is accepted, as Linux
 * has done since v6.17: see arm_spe_pmu_interval().
 *
 * Return: 0; -EINVAL for frequency mode, no period or one above the
 * widest interval, and unknown bits; -EOPNOTSUPP for what this
 * implementation lacks (a filter, discard mode, event filter bits its
 * version cannot filter on, idle exclusion, guest-only sampling, branch
 * stacks).
 */
static int arm_spe_pmu_check_attr(const struct arm_spe_pmu_caps *caps,
				  const struct perf_event_attr *attr)
{
	u32 needs = arm_spe_pmu_attr_needs(attr);

	/* The interval counts operations: there is no rate to aim at */
	if (attr->freq)
		return -EINVAL;
	if (!arm_spe_pmu_period_ok(attr->sample_period))
		return -EINVAL;
	if ((attr->config & ~ARM_SPE_CFG_ALL) || (attr->config2 & ~ARM_SPE_CFG2_MINLAT))
		return -EINVAL;
	/* Sampling stops at no exception level for idle */
	if (attr->exclude_idle)
		return -EOPNOTSUPP;
	/*
	 * Guest-only (perf's :G): the host's buffer never receives a guest's
	 * records (KVM stops profiling around it), so such an event would
	 * only ever sample the host it asked to leave out.
	 */
	if (attr->exclude_host)
		return -EOPNOTSUPP;
	if (attr->sample_type & PERF_SAMPLE_BRANCH_STACK)
		return -EOPNOTSUPP;
	if ((caps->features & needs) != needs)
		return -EOPNOTSUPP;
	if ((attr->config1 | attr->config3) & caps->evfr_res0)
		return -EOPNOTSUPP;
	return 0;
}

/**
 * arm_spe_pmu_interval() - the sampling interval a period programs
 * @period: the event's sample period, at most ARM_SPE_MAX_PERIOD
 *
 * PMSIRR_EL1.INTERVAL drops the low eight bits of the period, and must
 * not be zero. A period below the implementation's recommended minimum
 * (caps/min_interval) is kept, not raised to it: the recommendation is
 * set before the silicon exists and may be conservative, so users may
 * try shorter intervals (at the risk of collisions and a faster filling
 * buffer). Only what the register cannot hold is rounded: up to 256.
 *
 * Return: the INTERVAL field's value, in place.
 */
static u64 arm_spe_pmu_interval(u64 period)
{
	return max_t(u64, period & PMSIRR_EL1_INTERVAL_MASK, ARM_SPE_PERIOD_GRANULE);
}

/* PMSIRR_EL1: the interval, and jitter on it if asked for */
static u64 arm_spe_pmu_pmsirr(const struct perf_event_attr *attr)
{
	return arm_spe_pmu_interval(attr->sample_period) |
	       FIELD_PREP(PMSIRR_EL1_RND, !!(attr->config & ARM_SPE_CFG_JITTER));
}

/* perf_event_attr::config type filter bits and the PMSFCR_EL1 bits they set */
static const struct {
	u64 config;
	u64 pmsfcr;
} arm_spe_pmu_type_filters[] = {
	{ ARM_SPE_CFG_BRANCH, PMSFCR_EL1_B },
	{ ARM_SPE_CFG_LOAD, PMSFCR_EL1_LD },
	{ ARM_SPE_CFG_STORE, PMSFCR_EL1_ST },
	{ ARM_SPE_CFG_BRANCH_MASK, ARM_SPE_PMSFCR_BM },
	{ ARM_SPE_CFG_LOAD_MASK, ARM_SPE_PMSFCR_LDM },
	{ ARM_SPE_CFG_STORE_MASK, ARM_SPE_PMSFCR_STM },
	{ ARM_SPE_CFG_SIMD, ARM_SPE_PMSFCR_SIMD },
	{ ARM_SPE_CFG_SIMD_MASK, ARM_SPE_PMSFCR_SIMDM },
	{ ARM_SPE_CFG_FLOAT, ARM_SPE_PMSFCR_FP },
	{ ARM_SPE_CFG_FLOAT_MASK, ARM_SPE_PMSFCR_FPM },
};

/*
 * PMSFCR_EL1: FT enables the type filter as soon as one type bit or mask
 * is set. A mask alone is meaningful with EFT: Bm with B clear keeps
 * what is not a branch.
 */
static u64 arm_spe_pmu_pmsfcr(const struct perf_event_attr *attr)
{
	u64 types = 0;
	int i;

	for (i = 0; i < ARRAY_SIZE(arm_spe_pmu_type_filters); i++)
		if (attr->config & arm_spe_pmu_type_filters[i].config)
			types |= arm_spe_pmu_type_filters[i].pmsfcr;
	return types | FIELD_PREP(PMSFCR_EL1_FT, !!types) |
	       FIELD_PREP(PMSFCR_EL1_FE, !!attr->config1) |
	       FIELD_PREP(PMSFCR_EL1_FnE, !!attr->config3) |
	       FIELD_PREP(PMSFCR_EL1_FL, !!attr->config2);
}

/**
 * arm_spe_pmu_attr_to_regs() - the register values of an accepted event
 * @attr: the event's attributes, accepted by arm_spe_pmu_check_attr()
 * @privileged: the opener passed perf_allow_kernel(): context packets
 * @regs: filled in
 *
 * Context packets carry other tasks' PIDs, so only a privileged opener
 * gets them; pa_enable and pct_enable were refused to others already.
 */
static void arm_spe_pmu_attr_to_regs(const struct perf_event_attr *attr,
				     bool privileged, struct arm_spe_pmu_regs *regs)
{
	u64 cfg = attr->config;

	regs->pmscr = FIELD_PREP(PMSCR_EL1_E0SPE, !attr->exclude_user) |
		      FIELD_PREP(PMSCR_EL1_E1SPE, !attr->exclude_kernel) |
		      FIELD_PREP(PMSCR_EL1_CX, privileged) |
		      FIELD_PREP(PMSCR_EL1_TS, !!(cfg & ARM_SPE_CFG_TS)) |
		      FIELD_PREP(PMSCR_EL1_PA, !!(cfg & ARM_SPE_CFG_PA)) |
		      FIELD_PREP(PMSCR_EL1_PCT, (cfg & ARM_SPE_CFG_PCT) ?
				 ARM_SPE_PMSCR_PCT_PHYS : 0);
	regs->pmsfcr = arm_spe_pmu_pmsfcr(attr);
	regs->pmsevfr = attr->config1;
	regs->pmsnevfr = attr->config3;
	regs->pmslatfr = FIELD_PREP(PMSLATFR_EL1_MINLAT, attr->config2);
	regs->pmsirr = arm_spe_pmu_pmsirr(attr);
	regs->pmblimitr_fm = FIELD_PREP(PMBLIMITR_EL1_FM, (cfg & ARM_SPE_CFG_DISCARD) ?
					PMBLIMITR_EL1_FM_DISCARD : PMBLIMITR_EL1_FM_FILL);
}

/*
 * Snapshot mode: the hardware fills one chunk of the buffer at a time
 * and the chunk it enters is cleared first. The other chunks then always
 * hold whole records, and the one being written whole records followed
 * by zeroes, which decode as padding: a snapshot never starts mid-record.
 * A chunk is half the buffer up to ARM_SPE_PMU_SNAPSHOT_CHUNK_PAGES, so
 * that the clearing done with interrupts off stays small however large
 * the buffer (perf record -S -m,512M); more chunks mean more interrupts.
 */
#define ARM_SPE_PMU_SNAPSHOT_CHUNK_PAGES	16

/*
 * The pages a stage-2 fault has the driver write, from the faulting one
 * on (arm_spe_pmu_buf_remap()), which bounds that work in the interrupt:
 * a snapshot window is never longer, and a normal window opened at the
 * fault stops there, so that no record crosses into a page not written.
 */
#define ARM_SPE_PMU_REMAP_PAGES		ARM_SPE_PMU_SNAPSHOT_CHUNK_PAGES

/*
 * The most arm_spe_pmu_buf_mend() walks, with interrupts off, to find a
 * record a stage-2 fault cut: where a stage 2 may translate the buffer,
 * normal windows are no longer (snapshot chunks and windows opened at a
 * fault are shorter).
 */
#define ARM_SPE_PMU_WALK_MAX		SZ_256K

static bool arm_spe_pmu_window_snapshot(unsigned long size, unsigned long head,
					u32 align, u32 max_record,
					struct arm_spe_pmu_window *w)
{
	unsigned long chunk = min(size / 2, ARM_SPE_PMU_SNAPSHOT_CHUNK_PAGES * PAGE_SIZE);
	unsigned long off = head % size;
	unsigned long s = ALIGN(off, align);
	unsigned long end = round_down(off, chunk) + chunk;

	if (chunk < max_record || chunk % PAGE_SIZE)
		return false;
	if (end - min(s, end) < max_record)
		s = end;
	s %= size;
	w->pad = (s - off) % size;
	w->start = s;
	w->zero = s % chunk ? 0 : chunk;
	w->limit = round_down(s, chunk) + chunk;
	return true;
}

/*
 * Normal mode: write only into the free space perf handed out, stop at
 * the wakeup mark (rounded up to the page LIMIT is counted in) so that
 * the reader is woken in time, never across the end of the buffer nor
 * further than caps->window_max from the page it starts in. Too
 * little room left before that page boundary is padded over and the next
 * page tried: positions here count from @off without wrapping.
 */
static bool arm_spe_pmu_window_normal(unsigned long size, unsigned long head,
				      unsigned long space, unsigned long wakeup,
				      const struct arm_spe_pmu_caps *caps,
				      struct arm_spe_pmu_window *w)
{
	u32 align = caps->align, max_record = caps->max_record;
	unsigned long off = head % size;
	unsigned long s = ALIGN(off, align);
	unsigned long wake = wakeup - head;
	int tries;

	for (tries = 0; tries < 2; tries++) {
		unsigned long seg_end = round_down(s, size) + size;
		unsigned long end = min(off + space, seg_end);
		unsigned long limit;

		if (wake && wake <= space && PAGE_ALIGN(off + wake) > s)
			end = min(end, PAGE_ALIGN(off + wake));
		if (caps->window_max)
			end = min(end, round_down(s, PAGE_SIZE) + caps->window_max);
		limit = round_down(end, PAGE_SIZE);
		if (limit >= s + max_record) {
			w->pad = s - off;
			w->zero = 0;
			w->start = s % size;
			w->limit = limit - round_down(s, size);
			return true;
		}
		if (PAGE_ALIGNED(s))
			break;
		s = PAGE_ALIGN(s);
	}
	return false;
}

/**
 * arm_spe_pmu_window() - where the profiling unit writes next
 * @size: the AUX buffer's size in bytes, a power of two
 * @head: perf's head, counting all bytes ever written
 * @space: the free bytes from @head (normal mode)
 * @wakeup: the head at which the reader wants a wakeup (normal mode)
 * @snapshot: overwrite mode (perf record -S)
 * @caps: for the alignment and the largest record
 * @w: filled in
 *
 * Return: true with @w describing at least one record's room, false when
 * there is no room (the data must then be marked truncated).
 */
static bool arm_spe_pmu_window(unsigned long size, unsigned long head,
			       unsigned long space, unsigned long wakeup,
			       bool snapshot, const struct arm_spe_pmu_caps *caps,
			       struct arm_spe_pmu_window *w)
{
	if (snapshot)
		return arm_spe_pmu_window_snapshot(size, head, caps->align,
						   caps->max_record, w);
	return arm_spe_pmu_window_normal(size, head, space, wakeup, caps, w);
}

/**
 * arm_spe_pmu_pmbsr_decode() - classify a buffer management event
 * @pmbsr: PMBSR_EL1
 * @aux_flags: PERF_AUX_FLAG_* to report with the data, ORed in
 *
 * Return: what the driver must do next.
 */
static enum arm_spe_pmu_outcome arm_spe_pmu_pmbsr_decode(u64 pmbsr, u64 *aux_flags)
{
	u64 ec = FIELD_GET(PMBSR_EL1_EC_MASK, pmbsr);

	/* A collision only loses a sample; it does not stop profiling */
	if (pmbsr & PMBSR_EL1_COLL)
		*aux_flags |= PERF_AUX_FLAG_COLLISION;
	if (!(pmbsr & PMBSR_EL1_S))
		return ARM_SPE_OUTCOME_NONE;
	/*
	 * A stage-2 translation, access flag or permission fault: a
	 * hypervisor has not mapped, or has write-protected, memory of ours
	 * that it would map for a CPU access. One that cut a record (DL)
	 * left its first bytes, which arm_spe_pmu_buf_mend() pads over.
	 */
	if (!(pmbsr & PMBSR_EL1_EA) && ec == PMBSR_EL1_EC_FAULT_S2 &&
	    (esr_fsc_is_translation_fault(pmbsr) || esr_fsc_is_access_flag_fault(pmbsr) ||
	     esr_fsc_is_permission_fault(pmbsr))) {
		if (pmbsr & PMBSR_EL1_DL)
			*aux_flags |= PERF_AUX_FLAG_PARTIAL;
		return ARM_SPE_OUTCOME_REMAP;
	}
	/*
	 * Part of a record was lost where the driver cannot mend it: at the
	 * buffer's end, PMBPTR_EL1 need not follow the last whole record, so
	 * the data may end in a torn one and nothing written after it would
	 * decode. It is the end of the trace.
	 */
	if (pmbsr & PMBSR_EL1_DL)
		*aux_flags |= PERF_AUX_FLAG_PARTIAL | PERF_AUX_FLAG_TRUNCATED;
	if (!(pmbsr & PMBSR_EL1_EA) && ec == PMBSR_EL1_EC_BUF &&
	    FIELD_GET(PMBSR_EL1_BUF_BSC_MASK, pmbsr) == PMBSR_EL1_BUF_BSC_FULL)
		return (pmbsr & PMBSR_EL1_DL) ? ARM_SPE_OUTCOME_LOST :
						ARM_SPE_OUTCOME_FULL;
	/*
	 * Faults on our own kernel mapping, external aborts and anything
	 * IMPLEMENTATION DEFINED: the buffer cannot be trusted further.
	 */
	*aux_flags |= PERF_AUX_FLAG_TRUNCATED;
	return ARM_SPE_OUTCOME_FATAL;
}

/* The AUX buffer */

static void *arm_spe_pmu_buf_alloc(struct perf_event *event, void **pages,
				   int nr_pages, bool snapshot)
{
	int cpu = event->cpu == -1 ? raw_smp_processor_id() : event->cpu;
	struct arm_spe_pmu_buf *buf;
	struct page **pglist;
	int i;

	/* Snapshot mode alternates between two halves of at least a page */
	if (!nr_pages || (snapshot && nr_pages < 2))
		return NULL;

	buf = kzalloc_node(sizeof(*buf), GFP_KERNEL, cpu_to_node(cpu));
	pglist = kcalloc(nr_pages, sizeof(*pglist), GFP_KERNEL);
	if (!buf || !pglist)
		goto out_free;
	for (i = 0; i < nr_pages; i++)
		pglist[i] = virt_to_page(pages[i]);
	buf->base = vmap(pglist, nr_pages, VM_MAP, PAGE_KERNEL);
	if (!buf->base)
		goto out_free;
	buf->size = (unsigned long)nr_pages << PAGE_SHIFT;
	buf->snapshot = snapshot;
	kfree(pglist);
	return buf;

out_free:
	kfree(pglist);
	kfree(buf);
	return NULL;
}

static void arm_spe_pmu_buf_free(void *aux)
{
	struct arm_spe_pmu_buf *buf = aux;

	vunmap(buf->base);
	kfree(buf);
}

/* Move the head over padding the CPU wrote; overwrite mode keeps its own */
static void arm_spe_pmu_buf_skip(struct perf_output_handle *handle,
				 struct arm_spe_pmu_buf *buf, unsigned long bytes)
{
	if (!bytes)
		return;
	if (buf->snapshot)
		handle->head += bytes;
	else
		WARN_ON_ONCE(perf_aux_output_skip(handle, bytes));
}

/* The window from the handle as it stands; ends it as truncated if none */
static bool arm_spe_pmu_buf_window(struct arm_spe_pmu *spe,
				   struct perf_output_handle *handle,
				   struct arm_spe_pmu_buf *buf,
				   struct arm_spe_pmu_window *w)
{
	if (arm_spe_pmu_window(buf->size, handle->head, handle->size, handle->wakeup,
			       buf->snapshot, &spe->caps, w))
		return true;
	perf_aux_output_flag(handle, PERF_AUX_FLAG_TRUNCATED);
	perf_aux_output_end(handle, 0);
	return false;
}

/*
 * Open the next window of the event's AUX buffer and point the profiling
 * unit at it; @retry when it starts where a stage-2 fault stopped the
 * unit. Return false (with the handle ended) when there is no room.
 */
static bool arm_spe_pmu_buf_open(struct arm_spe_pmu *spe,
				 struct perf_output_handle *handle,
				 struct perf_event *event, bool retry)
{
	struct arm_spe_pmu_buf *buf = perf_aux_output_begin(handle, event);
	struct arm_spe_pmu_window w;
	const struct arm_spe_pmu_regs *regs = event->pmu_private;

	if (!buf)
		return false;
	buf->retrying = retry;
	if (!arm_spe_pmu_buf_window(spe, handle, buf, &w))
		return false;
	while (w.pad) {
		/* Zeroes are padding packets to the decoder */
		memset(buf->base + handle->head % buf->size, 0,
		       min(w.pad, buf->size - handle->head % buf->size));
		arm_spe_pmu_buf_skip(handle, buf, w.pad);
		if (buf->snapshot)
			break;
		/*
		 * If the padding crossed the wakeup mark, perf woke the
		 * reader and set the next mark: the window must stop at that
		 * one. Else it runs on to the end of the free space, and a
		 * reader who sees only what interrupts hand over cannot free
		 * room in time: the trace ends truncated.
		 */
		if (!arm_spe_pmu_buf_window(spe, handle, buf, &w))
			return false;
	}
	if (retry && !buf->snapshot)
		w.limit = min(w.limit, round_down(w.start, PAGE_SIZE) +
			      ARM_SPE_PMU_REMAP_PAGES * PAGE_SIZE);
	if (w.zero)
		memset(buf->base + w.start, 0, w.zero);
	arm_spe_pmu_hw_program_buffer((u64)buf->base + w.start,
				      ((u64)buf->base + w.limit) | regs->pmblimitr_fm |
				      PMBLIMITR_EL1_E);
	return true;
}

/* Packet headers (the Arm ARM's SPE packet format) the mending parses */
#define ARM_SPE_PKT_PAD			0x00
#define ARM_SPE_PKT_END			0x01
#define ARM_SPE_PKT_TIMESTAMP		0x71
#define ARM_SPE_PKT_EXT_MASK		GENMASK(7, 2)
#define ARM_SPE_PKT_EXT			0x20
#define ARM_SPE_PKT_SIZE		GENMASK(5, 4)

/* The length of the packet at @p, which may run past the data */
static unsigned int arm_spe_pmu_pkt_len(const u8 *p, const u8 *end)
{
	unsigned int hdr = 1;

	if (*p == ARM_SPE_PKT_PAD || *p == ARM_SPE_PKT_END)
		return 1;
	/* An extended header's second byte gives the payload's size */
	if ((*p & ARM_SPE_PKT_EXT_MASK) == ARM_SPE_PKT_EXT) {
		if (p + 1 >= end)
			return 2;
		hdr = 2;
	}
	return hdr + (1U << FIELD_GET(ARM_SPE_PKT_SIZE, p[hdr - 1]));
}

/**
 * arm_spe_pmu_whole_records() - where the whole records of a window end
 * @start: the window's first byte, where a record or padding begins
 * @ptr: the first byte the unit did not write (PMBPTR_EL1)
 *
 * A record is packets up to an END or a TIMESTAMP packet, each packet's
 * length in its header.
 *
 * Return: the byte after the last whole record before @ptr, or @start.
 */
static const u8 *arm_spe_pmu_whole_records(const u8 *start, const u8 *ptr)
{
	const u8 *p = start, *whole = start;
	unsigned int len;

	while (p < ptr) {
		len = arm_spe_pmu_pkt_len(p, ptr);
		if (len > ptr - p)
			break;
		if (*p == ARM_SPE_PKT_END || *p == ARM_SPE_PKT_TIMESTAMP)
			whole = p + len;
		p += len;
	}
	return whole;
}

/**
 * arm_spe_pmu_mend() - pad over the record a stage-2 fault cut
 * @start: the window's first byte, where a record or padding begins
 * @ptr: the byte that faulted (PMBPTR_EL1), after @start
 * @aux_flags: PERF_AUX_FLAG_TRUNCATED is ORed in when it cannot mend
 *
 * Pad from the end of the last whole record to @ptr, so that the trace
 * decodes on after the torn one. The walk is bounded: a window longer
 * than ARM_SPE_PMU_WALK_MAX (a kernel at EL2) is not walked.
 *
 * Return: ARM_SPE_OUTCOME_REMAP when mended, else ARM_SPE_OUTCOME_FATAL.
 */
static enum arm_spe_pmu_outcome arm_spe_pmu_mend(u8 *start, u8 *ptr, u64 *aux_flags)
{
	u8 *whole;

	if (ptr - start > ARM_SPE_PMU_WALK_MAX) {
		*aux_flags |= PERF_AUX_FLAG_TRUNCATED;
		return ARM_SPE_OUTCOME_FATAL;
	}
	whole = (u8 *)arm_spe_pmu_whole_records(start, ptr);
	memset(whole, ARM_SPE_PKT_PAD, ptr - whole);
	return ARM_SPE_OUTCOME_REMAP;
}

/*
 * Mend a stage-2 fault that cut a record (PMBSR_EL1.DL in @pmbsr): the
 * record crossed into a page the hypervisor unmapped while the unit wrote
 * the page before (protected KVM takes a page of a block and unmaps the
 * rest of it, at any time). Its first bytes are in the buffer, and @ptr
 * (PMBPTR_EL1) is the byte that faulted. The sample is lost, as at any
 * fault.
 */
static enum arm_spe_pmu_outcome arm_spe_pmu_buf_mend(struct perf_output_handle *handle,
						     u64 pmbsr, u8 *ptr, u64 *aux_flags)
{
	struct arm_spe_pmu_buf *buf = perf_get_aux(handle);
	u8 *start = buf->base + handle->head % buf->size;

	/* Nothing cut; or PMBPTR_EL1 outside the window, which stops */
	if (!(pmbsr & PMBSR_EL1_DL) || ptr <= start || ptr > (u8 *)buf->base + buf->size)
		return ARM_SPE_OUTCOME_REMAP;
	return arm_spe_pmu_mend(start, ptr, aux_flags);
}

/*
 * Have the hypervisor map the pages of a stage-2 fault (protected KVM, for
 * one, unmaps the rest of a block of the host's memory when it takes a
 * page of it): a CPU write through our own mapping faults a page in, as
 * for any other access of ours, and the unit goes on at @ptr (PMBPTR_EL1),
 * the byte that faulted, in the next window; the sample being written is
 * lost. The pages after it are written too, up to the window's limit or
 * ARM_SPE_PMU_REMAP_PAGES in all: with only the first, a record crossing
 * into the next page of the same block would fault there half written
 * (PMBSR_EL1.DL), losing a sample more. The same fault again before a
 * byte was written there means the hypervisor will not map the page: the
 * event stops.
 */
static enum arm_spe_pmu_outcome arm_spe_pmu_buf_remap(struct perf_output_handle *handle,
						      u8 *ptr, u64 *aux_flags)
{
	struct arm_spe_pmu_buf *buf = perf_get_aux(handle);
	u8 *start = buf->base + handle->head % buf->size;
	u8 *end = (u8 *)buf->base + buf->size;
	u8 *limit = (u8 *)(read_sysreg_s(SYS_PMBLIMITR_EL1) & PMBLIMITR_EL1_LIMIT_MASK);
	u8 *stop = PTR_ALIGN_DOWN(ptr, PAGE_SIZE) + ARM_SPE_PMU_REMAP_PAGES * PAGE_SIZE;
	u8 *p;

	if (ptr < start || ptr >= end || (buf->retrying && ptr == start)) {
		*aux_flags |= PERF_AUX_FLAG_TRUNCATED;
		return ARM_SPE_OUTCOME_FATAL;
	}
	for (p = ptr; p < min3(limit, end, stop); p = PTR_ALIGN(p + 1, PAGE_SIZE))
		WRITE_ONCE(*p, READ_ONCE(*p));
	return ARM_SPE_OUTCOME_REMAP;
}

/* Hand what the hardware wrote since the window opened, up to @ptr, to perf */
static void arm_spe_pmu_buf_close(struct perf_output_handle *handle, u8 *ptr,
				  u64 aux_flags)
{
	struct arm_spe_pmu_buf *buf = perf_get_aux(handle);
	u8 *start = buf->base + handle->head % buf->size;
	unsigned long size = 0;

	if (ptr > start)
		size = min_t(unsigned long, ptr - start, buf->size - handle->head % buf->size);
	if (aux_flags)
		perf_aux_output_flag(handle, aux_flags);
	if (buf->snapshot)
		handle->head += size;
	perf_aux_output_end(handle, size);
}

static bool arm_spe_pmu_is_discard(struct perf_event *event)
{
	return event->attr.config & ARM_SPE_CFG_DISCARD;
}

static irqreturn_t arm_spe_pmu_irq(int irq, void *dev)
{
	struct perf_output_handle *handle = dev;
	struct perf_event *event = handle->event;
	enum arm_spe_pmu_outcome outcome;
	u64 pmbsr, aux_flags = 0;
	u8 *ptr;

	/*
	 * The profiling unit's own updates of PMBSR_EL1 and PMBPTR_EL1 reach
	 * direct reads only after PSB CSYNC, a DSB and a context
	 * synchronization event (taking this interrupt came before the
	 * barriers, so it does not count). PMBSR.S has stopped profiling:
	 * the barriers also drain what was already sampled.
	 */
	arm_spe_pmu_hw_drain();
	isb();
	pmbsr = read_sysreg_s(SYS_PMBSR_EL1);
	if (!(pmbsr & PMBSR_EL1_S))
		return IRQ_NONE;
	if (!event) {
		/* Nothing to hand over (a discard event, or already stopped) */
		arm_spe_pmu_hw_ack();
		return IRQ_HANDLED;
	}

	/* Where the unit stopped, which nothing here moves before the close */
	ptr = (u8 *)read_sysreg_s(SYS_PMBPTR_EL1);
	outcome = arm_spe_pmu_pmbsr_decode(pmbsr, &aux_flags);
	if (outcome == ARM_SPE_OUTCOME_REMAP)
		outcome = arm_spe_pmu_buf_mend(handle, pmbsr, ptr, &aux_flags);
	if (outcome == ARM_SPE_OUTCOME_REMAP)
		outcome = arm_spe_pmu_buf_remap(handle, ptr, &aux_flags);
	arm_spe_pmu_buf_close(handle, ptr, aux_flags);
	if ((outcome == ARM_SPE_OUTCOME_FULL || outcome == ARM_SPE_OUTCOME_REMAP) &&
	    arm_spe_pmu_buf_open(to_arm_spe_pmu(event->pmu), handle, event,
				 outcome == ARM_SPE_OUTCOME_REMAP)) {
		/*
		 * Clearing PMBSR.S resumes profiling, and may take effect
		 * before the new PMBPTR/PMBLIMITR do unless a context
		 * synchronization event orders them first.
		 */
		isb();
	} else {
		if (outcome == ARM_SPE_OUTCOME_FATAL)
			pr_err_ratelimited("%s: buffer fault, PMBSR_EL1 0x%llx: event stopped\n",
					   event->pmu->name, pmbsr);
		arm_spe_pmu_hw_halt();
		event->hw.state |= PERF_HES_STOPPED;
	}
	arm_spe_pmu_hw_ack();
	return IRQ_HANDLED;
}

/* The pmu callbacks */

static void arm_spe_pmu_event_run(struct perf_event *event, int flags)
{
	struct arm_spe_pmu *spe = to_arm_spe_pmu(event->pmu);
	struct perf_output_handle *handle = this_cpu_ptr(spe->handle);
	struct hw_perf_event *hwc = &event->hw;
	struct arm_spe_pmu_regs *regs = event->pmu_private;

	hwc->state = 0;
	/* PERF_EVENT_IOC_PERIOD may have changed the period since */
	regs->pmsirr = arm_spe_pmu_pmsirr(&event->attr);
	if (arm_spe_pmu_is_discard(event)) {
		/* Discard mode writes nothing: no buffer is needed */
		arm_spe_pmu_hw_program_buffer(0, regs->pmblimitr_fm | PMBLIMITR_EL1_E);
	} else if (!arm_spe_pmu_buf_open(spe, handle, event, false)) {
		hwc->state = PERF_HES_STOPPED;
		return;
	}
	/* The interval count carries on where this event last stopped */
	arm_spe_pmu_hw_program_sampling(&spe->caps, regs, local64_read(&hwc->period_left));
}

static void arm_spe_pmu_event_halt(struct perf_event *event, int flags)
{
	struct arm_spe_pmu *spe = to_arm_spe_pmu(event->pmu);
	struct perf_output_handle *handle = this_cpu_ptr(spe->handle);
	struct hw_perf_event *hwc = &event->hw;
	u64 pmbsr, aux_flags = 0;

	if (hwc->state & PERF_HES_STOPPED)
		return;
	arm_spe_pmu_hw_halt();
	local64_set(&hwc->period_left, read_sysreg_s(SYS_PMSICR_EL1));
	pmbsr = read_sysreg_s(SYS_PMBSR_EL1);
	/*
	 * A buffer event raised just before the halt is handled here rather
	 * than by the interrupt: the buffer is being handed over anyway.
	 */
	if (handle->event == event) {
		u8 *ptr = (u8 *)read_sysreg_s(SYS_PMBPTR_EL1);

		if (arm_spe_pmu_pmbsr_decode(pmbsr, &aux_flags) == ARM_SPE_OUTCOME_REMAP)
			arm_spe_pmu_buf_mend(handle, pmbsr, ptr, &aux_flags);
		arm_spe_pmu_buf_close(handle, ptr, aux_flags);
	}
	if (pmbsr)
		arm_spe_pmu_hw_ack();
	hwc->state |= PERF_HES_STOPPED | PERF_HES_UPTODATE;
}

static int arm_spe_pmu_sched_in(struct perf_event *event, int flags)
{
	struct arm_spe_pmu *spe = to_arm_spe_pmu(event->pmu);
	struct hw_perf_event *hwc = &event->hw;

	if (!cpumask_test_cpu(smp_processor_id(), &spe->supported_cpus))
		return -ENOENT;
	hwc->state = PERF_HES_STOPPED | PERF_HES_UPTODATE;
	if (flags & PERF_EF_START)
		arm_spe_pmu_event_run(event, PERF_EF_RELOAD);
	return 0;
}

/* Records go to the AUX buffer: there is no count to read */
static void arm_spe_pmu_no_count(struct perf_event *event)
{
}

static bool arm_spe_pmu_cpu_unserved(struct pmu *pmu, int cpu)
{
	return !cpumask_test_cpu(cpu, &to_arm_spe_pmu(pmu)->supported_cpus);
}

static void arm_spe_pmu_event_destroy(struct perf_event *event)
{
	kfree(event->pmu_private);
}

static int arm_spe_pmu_event_open(struct perf_event *event)
{
	struct arm_spe_pmu *spe = to_arm_spe_pmu(event->pmu);
	struct perf_event_attr *attr = &event->attr;
	struct arm_spe_pmu_regs *regs;
	int ret;

	if (attr->type != event->pmu->type)
		return -ENOENT;
	if (event->cpu >= 0 && !cpumask_test_cpu(event->cpu, &spe->supported_cpus))
		return -ENOENT;
	ret = arm_spe_pmu_check_attr(&spe->caps, attr);
	if (ret)
		return ret;
	if (attr->sample_period < spe->caps.min_interval)
		dev_warn_ratelimited(&spe->pdev->dev,
				     "period %llu below the recommended minimum interval %u: sampling every %llu operations\n",
				     attr->sample_period, spe->caps.min_interval,
				     arm_spe_pmu_interval(attr->sample_period));
	/* Physical addresses and the physical counter are kernel information */
	if (attr->config & (ARM_SPE_CFG_PA | ARM_SPE_CFG_PCT)) {
		ret = perf_allow_kernel();
		if (ret)
			return ret;
	}
	/* The registers are worked out once: start() runs at every switch */
	regs = kmalloc(sizeof(*regs), GFP_KERNEL);
	if (!regs)
		return -ENOMEM;
	arm_spe_pmu_attr_to_regs(attr, !perf_allow_kernel(), regs);
	event->pmu_private = regs;
	event->destroy = arm_spe_pmu_event_destroy;
	local64_set(&event->hw.period_left, 0);
	return 0;
}

/* PERF_EVENT_IOC_PERIOD: the same limits as at perf_event_open() */
static int arm_spe_pmu_period_change(struct perf_event *event, u64 value)
{
	return arm_spe_pmu_period_ok(value) ? 0 : -EINVAL;
}

/* Probing */

/* PMSIDR_EL1.INTERVAL to the minimum interval it recommends */
static const u16 arm_spe_pmu_intervals[] = {
	[PMSIDR_EL1_INTERVAL_256] = 256,
	[PMSIDR_EL1_INTERVAL_512] = 512,
	[PMSIDR_EL1_INTERVAL_768] = 768,
	[PMSIDR_EL1_INTERVAL_1024] = 1024,
	[PMSIDR_EL1_INTERVAL_1536] = 1536,
	[PMSIDR_EL1_INTERVAL_2048] = 2048,
	[PMSIDR_EL1_INTERVAL_3072] = 3072,
	[PMSIDR_EL1_INTERVAL_4096] = 4096,
};

/**
 * arm_spe_pmu_caps_from_regs() - decode the identification registers
 * @pmsver: ID_AA64DFR0_EL1.PMSVer
 * @pmsidr: PMSIDR_EL1
 * @pmbidr: PMBIDR_EL1
 * @caps: filled in
 */
static void arm_spe_pmu_caps_from_regs(u32 pmsver, u64 pmsidr, u64 pmbidr,
				       struct arm_spe_pmu_caps *caps)
{
	static const struct {
		u64 pmsidr_bit;
		u32 feature;
	} bits[] = {
		{ PMSIDR_EL1_FE, ARM_SPE_FEAT_FE },
		{ PMSIDR_EL1_FT, ARM_SPE_FEAT_FT },
		{ PMSIDR_EL1_FL, ARM_SPE_FEAT_FL },
		{ PMSIDR_EL1_FnE, ARM_SPE_FEAT_FNE },
		{ PMSIDR_EL1_ARCHINST, ARM_SPE_FEAT_ARCH_INST },
		{ PMSIDR_EL1_ERND, ARM_SPE_FEAT_ERND },
		{ ARM_SPE_PMSIDR_EFT, ARM_SPE_FEAT_EFT },
	};
	u32 interval = FIELD_GET(PMSIDR_EL1_INTERVAL_MASK, pmsidr);
	int i;

	memset(caps, 0, sizeof(*caps));
	caps->pmsver = pmsver;
	for (i = 0; i < ARRAY_SIZE(bits); i++)
		if (pmsidr & bits[i].pmsidr_bit)
			caps->features |= bits[i].feature;
	if (pmsver >= ID_AA64DFR0_EL1_PMSVer_V1P2)
		caps->features |= ARM_SPE_FEAT_DISCARD;
	/* A reserved encoding: the largest interval is the safe choice */
	caps->min_interval = 4096;
	if (interval < ARRAY_SIZE(arm_spe_pmu_intervals) && arm_spe_pmu_intervals[interval])
		caps->min_interval = arm_spe_pmu_intervals[interval];
	caps->max_record = 1U << FIELD_GET(PMSIDR_EL1_MAXSIZE_MASK, pmsidr);
	caps->align = 1U << FIELD_GET(PMBIDR_EL1_ALIGN_MASK, pmbidr);
	caps->count_size = FIELD_GET(PMSIDR_EL1_COUNTSIZE_MASK, pmsidr) ==
			   PMSIDR_EL1_COUNTSIZE_16_BIT_SAT ? 16 : 12;
	if (pmsver >= ID_AA64DFR0_EL1_PMSVer_V1P2)
		caps->evfr_res0 = PMSEVFR_EL1_RES0_V1P2;
	else if (pmsver == ID_AA64DFR0_EL1_PMSVer_V1P1)
		caps->evfr_res0 = PMSEVFR_EL1_RES0_V1P1;
	else
		caps->evfr_res0 = PMSEVFR_EL1_RES0_IMP;
}

/*
 * The events an implementation has are its choice among those of its
 * version: the filter bits of the others are RES0. Ones written to
 * PMSEVFR_EL1 read back as the bits it filters on (mainline does the
 * same); the version's table still bounds them, should a RES0 bit keep
 * what was written. PMSNEVFR_EL1 filters the same events.
 */
static u64 arm_spe_pmu_read_evfr_impl(const struct arm_spe_pmu_caps *caps)
{
	u64 impl;

	if (!(caps->features & ARM_SPE_FEAT_FE))
		return 0;
	write_sysreg_s(U64_MAX, SYS_PMSEVFR_EL1);
	impl = read_sysreg_s(SYS_PMSEVFR_EL1);
	write_sysreg_s(0, SYS_PMSEVFR_EL1);
	return impl;
}

static void arm_spe_pmu_caps_limit_events(struct arm_spe_pmu_caps *caps, u64 impl)
{
	caps->evfr_res0 |= ~impl;
}

/* Runs on one CPU the PMU serves: read its identification registers */
static void arm_spe_pmu_probe_cpu(void *info)
{
	struct arm_spe_pmu *spe = info;
	struct device *dev = &spe->pdev->dev;
	u64 dfr0 = read_sysreg(id_aa64dfr0_el1);
	u32 pmsver = cpuid_feature_extract_unsigned_field(dfr0, ID_AA64DFR0_EL1_PMSVer_SHIFT);
	u64 pmbidr;

	spe->probe_err = -ENXIO;
	if (!pmsver) {
		dev_err(dev, "no SPE on CPU%d\n", smp_processor_id());
		return;
	}
	pmbidr = read_sysreg_s(SYS_PMBIDR_EL1);
	if (pmbidr & PMBIDR_EL1_P) {
		dev_err(dev, "profiling buffer owned by a higher exception level\n");
		return;
	}
	arm_spe_pmu_caps_from_regs(pmsver, read_sysreg_s(SYS_PMSIDR_EL1), pmbidr, &spe->caps);
	arm_spe_pmu_caps_limit_events(&spe->caps, arm_spe_pmu_read_evfr_impl(&spe->caps));
	/*
	 * Only a stage 2 cuts records: a hypervisor's under a kernel at EL1.
	 * A kernel at EL2 is behind one only as a nested guest, where a cut
	 * record in a window longer than the walk's bound stops the event.
	 */
	if (!is_kernel_in_hyp_mode())
		spe->caps.window_max = ARM_SPE_PMU_WALK_MAX;
	if (spe->caps.max_record > PAGE_SIZE) {
		dev_err(dev, "records of %u bytes exceed a page\n", spe->caps.max_record);
		return;
	}
	spe->probe_err = 0;
}

static int arm_spe_pmu_cpu_online(unsigned int cpu, struct hlist_node *node)
{
	struct arm_spe_pmu *spe = hlist_entry_safe(node, struct arm_spe_pmu, hp_node);

	if (!cpumask_test_cpu(cpu, &spe->supported_cpus))
		return 0;
	/* Firmware or a previous kernel may have left it running */
	arm_spe_pmu_hw_reset();
	enable_percpu_irq(spe->irq, IRQ_TYPE_NONE);
	return 0;
}

/*
 * This runs before perf core removes the CPU's events (CPUHP_AP_PERF_ONLINE
 * is torn down later): their stop() still drains and hands over the
 * buffer, handling any pending buffer event itself.
 */
static int arm_spe_pmu_cpu_offline(unsigned int cpu, struct hlist_node *node)
{
	struct arm_spe_pmu *spe = hlist_entry_safe(node, struct arm_spe_pmu, hp_node);

	if (cpumask_test_cpu(cpu, &spe->supported_cpus))
		disable_percpu_irq(spe->irq);
	return 0;
}

static int arm_spe_pmu_irq_probe(struct arm_spe_pmu *spe)
{
	struct platform_device *pdev = spe->pdev;
	int irq = platform_get_irq(pdev, 0);

	if (irq < 0)
		return irq;
	if (!irq_is_percpu(irq)) {
		dev_err(&pdev->dev, "interrupt %d is not a PPI\n", irq);
		return -EINVAL;
	}
	if (irq_get_percpu_devid_partition(irq, &spe->supported_cpus) ||
	    cpumask_empty(&spe->supported_cpus))
		cpumask_copy(&spe->supported_cpus, cpu_possible_mask);
	spe->irq = irq;
	return 0;
}

/*
 * Every SPE PMU, its callbacks in the order an event's life meets them;
 * each copy gets its device as parent. Descheduling is halting: the halt
 * always brings the interval count and the buffer up to date.
 */
static const struct pmu arm_spe_pmu_template = {
	.event_init	= arm_spe_pmu_event_open,	/* perf_event_open() */
	.filter		= arm_spe_pmu_cpu_unserved,	/* CPU-bound contexts */
	.setup_aux	= arm_spe_pmu_buf_alloc,	/* mmap() of the AUX area */
	.add		= arm_spe_pmu_sched_in,		/* scheduled in, enabled */
	.start		= arm_spe_pmu_event_run,	/* unthrottled */
	.check_period	= arm_spe_pmu_period_change,	/* PERF_EVENT_IOC_PERIOD */
	.read		= arm_spe_pmu_no_count,
	.stop		= arm_spe_pmu_event_halt,	/* throttled */
	.del		= arm_spe_pmu_event_halt,	/* scheduled out, disabled */
	.free_aux	= arm_spe_pmu_buf_free,		/* munmap() */
	/*
	 * A hardware trace in the AUX area, one buffer a CPU. The software
	 * context, as in 6.12 and mainline: perf's group rules then let an
	 * SPE event join a group led by a CPU PMU event and lead one.
	 */
	.capabilities	= PERF_PMU_CAP_ITRACE | PERF_PMU_CAP_EXCLUSIVE,
	.task_ctx_nr	= perf_sw_context,
	.attr_groups	= arm_spe_pmu_sysfs_groups,
	.module		= THIS_MODULE,
};

/**
 * arm_spe_pmu_irq_on() - Whether this driver takes some CPUs' buffer interrupt
 * @cpus: the CPUs
 *
 * A KVM guest that owns the profiling buffer raises this interrupt too,
 * and the exit it causes is how KVM learns of the guest's buffer events.
 *
 * Return: true if a probed instance requested the interrupt of each CPU
 * in @cpus (the hotplug callbacks enable it as each comes online).
 */
bool arm_spe_pmu_irq_on(const struct cpumask *cpus)
{
	return cpumask_subset(cpus, &arm_spe_pmu_irq_cpus);
}
EXPORT_SYMBOL_GPL(arm_spe_pmu_irq_on);

/* Instances cover disjoint CPUs: each sets and clears its own bits */
static void arm_spe_pmu_irq_cpus_set(const struct arm_spe_pmu *spe, bool on)
{
	unsigned int cpu;

	for_each_cpu(cpu, &spe->supported_cpus)
		cpumask_assign_cpu(cpu, &arm_spe_pmu_irq_cpus, on);
}

static int arm_spe_pmu_device_probe(struct platform_device *pdev)
{
	struct device *dev = &pdev->dev;
	struct arm_spe_pmu *spe;
	char *name;
	int ret;

	/*
	 * Under KPTI the kernel is unmapped at EL0, so the profiling unit
	 * could not write its buffer while sampling user space.
	 */
	if (arm64_kernel_unmapped_at_el0()) {
		dev_warn_once(dev, "profiling buffer inaccessible. Try passing 'kpti=off' on the kernel command line\n");
		return -EPERM;
	}
	spe = devm_kzalloc(dev, sizeof(*spe), GFP_KERNEL);
	if (!spe)
		return -ENOMEM;
	spe->pdev = pdev;
	platform_set_drvdata(pdev, spe);
	spe->handle = devm_alloc_percpu(dev, struct perf_output_handle);
	if (!spe->handle)
		return -ENOMEM;
	ret = arm_spe_pmu_irq_probe(spe);
	if (ret)
		return ret;
	ret = smp_call_function_any(&spe->supported_cpus, arm_spe_pmu_probe_cpu, spe, 1);
	if (ret || spe->probe_err)
		return ret ?: spe->probe_err;

	ret = request_percpu_irq(spe->irq, arm_spe_pmu_irq, DRVNAME, spe->handle);
	if (ret)
		return ret;
	ret = cpuhp_state_add_instance(arm_spe_pmu_hp_state, &spe->hp_node);
	if (ret)
		goto out_free_irq;
	spe->id = ida_alloc(&arm_spe_pmu_ida, GFP_KERNEL);
	if (spe->id < 0) {
		ret = spe->id;
		goto out_remove_cpuhp;
	}
	name = devm_kasprintf(dev, GFP_KERNEL, "%s_%d", ARM_SPE_PMU_NAME, spe->id);
	if (!name) {
		ret = -ENOMEM;
		goto out_free_id;
	}
	spe->pmu = arm_spe_pmu_template;
	spe->pmu.parent = dev;
	ret = perf_pmu_register(&spe->pmu, name, -1);
	if (ret)
		goto out_free_id;
	arm_spe_pmu_irq_cpus_set(spe, true);
	dev_info(dev, "%s: SPE v%u on CPUs %*pbl, minimum interval %u\n", name,
		 spe->caps.pmsver, cpumask_pr_args(&spe->supported_cpus),
		 spe->caps.min_interval);
	return 0;

out_free_id:
	ida_free(&arm_spe_pmu_ida, spe->id);
out_remove_cpuhp:
	cpuhp_state_remove_instance(arm_spe_pmu_hp_state, &spe->hp_node);
out_free_irq:
	free_percpu_irq(spe->irq, spe->handle);
	return ret;
}

static void arm_spe_pmu_device_remove(struct platform_device *pdev)
{
	struct arm_spe_pmu *spe = platform_get_drvdata(pdev);

	arm_spe_pmu_irq_cpus_set(spe, false);
	perf_pmu_unregister(&spe->pmu);
	ida_free(&arm_spe_pmu_ida, spe->id);
	cpuhp_state_remove_instance(arm_spe_pmu_hp_state, &spe->hp_node);
	free_percpu_irq(spe->irq, spe->handle);
}

static const struct of_device_id arm_spe_pmu_of_match[] = {
	{ .compatible = "arm,statistical-profiling-extension-v1" },
	{ }
};
MODULE_DEVICE_TABLE(of, arm_spe_pmu_of_match);

/* arm_pmu_acpi registers this device from the MADT's SPE interrupt */
static const struct platform_device_id arm_spe_pmu_id_table[] = {
	{ ARMV8_SPE_PDEV_NAME, 0 },
	{ }
};
MODULE_DEVICE_TABLE(platform, arm_spe_pmu_id_table);

/*
 * Unbinding is not offered: perf events may still hold the PMU that
 * removing the device would free.
 */
static struct platform_driver arm_spe_pmu_driver = {
	.driver.name = DRVNAME,
	.driver.of_match_table = arm_spe_pmu_of_match,
	.driver.suppress_bind_attrs = true,
	.id_table = arm_spe_pmu_id_table,
	.probe = arm_spe_pmu_device_probe,
	.remove = arm_spe_pmu_device_remove,
};

/* Every SPE instance joins the hotplug state before any can probe */
static int __init arm_spe_pmu_init(void)
{
	int state = cpuhp_setup_state_multi(CPUHP_AP_ONLINE_DYN, DRVNAME,
					    arm_spe_pmu_cpu_online,
					    arm_spe_pmu_cpu_offline);
	int ret;

	if (state < 0)
		return state;
	arm_spe_pmu_hp_state = state;
	ret = platform_driver_register(&arm_spe_pmu_driver);
	if (ret)
		cpuhp_remove_multi_state(state);
	return ret;
}
module_init(arm_spe_pmu_init);

static void __exit arm_spe_pmu_exit(void)
{
	platform_driver_unregister(&arm_spe_pmu_driver);
	cpuhp_remove_multi_state(arm_spe_pmu_hp_state);
}
module_exit(arm_spe_pmu_exit);

/*
 * The tests exercise the static translation functions above directly, so
 * they are built into this file rather than exporting internals; they
 * need the driver built in, hence ARM_SPE_PMU=y.
 */
#if IS_ENABLED(CONFIG_ARM_SPE_PMU_KUNIT_TEST)
#include "arm_spe_pmu_test.c"
#endif

MODULE_DESCRIPTION("Perf driver for the Arm Statistical Profiling Extension");
MODULE_LICENSE("GPL");
