// SPDX-License-Identifier: GPL-2.0-only
/*
 * Arm PMUv3 CPU performance monitors, on top of the arm_pmu framework.
 * The file reads in the order perf uses it, probing last.
 */

#include <linux/acpi.h>
#include <linux/bitfield.h>
#include <linux/bitmap.h>
#include <linux/bits.h>
#include <linux/device.h>
#include <linux/errno.h>
#include <linux/init.h>
#include <linux/math64.h>
#include <linux/nmi.h>
#include <linux/of.h>
#include <linux/of_device.h>
#include <linux/perf/arm_pmu.h>
#include <linux/perf/arm_pmuv3.h>
#include <linux/perf_event.h>
#include <linux/platform_device.h>
#include <linux/sched_clock.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/sysctl.h>
#include <linux/sysfs.h>
#include <linux/topology.h>

#include <asm/irq_regs.h>
#include <asm/virt.h>

#include <clocksource/arm_arch_timer.h>

#include "arm_brbe.h"

/* perf tool ABI, published in format/ from these masks */
#define ARMV8PMU_CFG_EVENT		GENMASK_ULL(15, 0)
#define ARMV8PMU_CFG1_LONG		BIT_ULL(0)
#define ARMV8PMU_CFG1_RDPMC		BIT_ULL(1)
#define ARMV8PMU_CFG1_TH_COUNT		BIT_ULL(2)
#define ARMV8PMU_CFG1_TH_COMPARE	GENMASK_ULL(4, 3)
#define ARMV8PMU_CFG1_THRESHOLD		GENMASK_ULL(16, 5)
#define ARMV8PMU_CFG1_ALL		GENMASK_ULL(16, 0)
/* threshold_count and threshold_compare are laid out as PMEVTYPER.TC */
#define ARMV8PMU_CFG1_TC		(ARMV8PMU_CFG1_TH_COUNT | ARMV8PMU_CFG1_TH_COMPARE)

/* Exception level filter bits, common to PMEVTYPER, PMCCFILTR and PMICFILTR */
#define ARMV8PMU_FILTER_MASK		(ARMV8_PMU_EXCLUDE_EL1 | ARMV8_PMU_EXCLUDE_EL0 | \
					 ARMV8_PMU_EXCLUDE_NS_EL1 | ARMV8_PMU_EXCLUDE_NS_EL0 | \
					 ARMV8_PMU_INCLUDE_EL2 | ARMV8_PMU_EXCLUDE_EL3)

/* A counter mask of the PMU fits in the first word of cntr_mask/used_mask */
static_assert(ARMPMU_MAX_HWEVENTS <= BITS_PER_LONG);

/* Where an event may be placed, decided once by event_init (hw.flags) */
#define ARMV8PMU_EVT_PAIR		BIT(8)	/* on event counters, a chained pair */
#define ARMV8PMU_EVT_FIXED_ONLY		BIT(9)	/* its dedicated counter or nothing */
#define ARMV8PMU_EVT_FIXED		GENMASK(15, 10)	/* dedicated counter + 1, or 0 */
static_assert((ARMV8PMU_EVT_FIXED >> 10) > ARMPMU_MAX_HWEVENTS);

/*
 * Event counters are 64 bits wide from PMUv3p5 (with PMCR.LP). AArch32 can
 * only reach their low half, so a 32-bit kernel keeps them 32 bits wide.
 */
static bool armv8pmu_has_64bit_evcntrs(const struct arm_pmu *cpu_pmu)
{
	return IS_ENABLED(CONFIG_ARM64) && is_pmuv3p5(cpu_pmu->pmuver);
}

static bool armv8pmu_has_chain(const struct arm_pmu *cpu_pmu)
{
	return test_bit(ARMV8_PMUV3_PERFCTR_CHAIN, cpu_pmu->pmceid_bitmap);
}

/*
 * FEAT_PMUv3p9 lets EL0 read only the counters PMUACR_EL1 names, its bits
 * numbered as our counters. The 6.12 headers predate it.
 */
#define ARMV8PMU_PMUVER_V3P9		0x9
#define ARMV8PMU_USERENR_UEN		BIT(4)
#define ARMV8PMU_SYS_PMUACR_EL1		sys_reg(3, 0, 9, 14, 4)

static bool armv8pmu_has_pmuacr(const struct arm_pmu *cpu_pmu)
{
	return IS_ENABLED(CONFIG_ARM64) && cpu_pmu->pmuver >= ARMV8PMU_PMUVER_V3P9;
}

/* THWIDTH is 0 without FEAT_PMUv3_TH; AArch32 cannot write TH at all */
static u32 armv8pmu_threshold_max(const struct arm_pmu *cpu_pmu)
{
	if (!IS_ENABLED(CONFIG_ARM64))
		return 0;

	return BIT(FIELD_GET(ARMV8_PMU_THWIDTH, cpu_pmu->reg_pmmir)) - 1;
}

/* PMCEID announces common events; IMPLEMENTATION DEFINED ones are trusted */
static bool armv8pmu_event_implemented(const struct arm_pmu *cpu_pmu, u32 evnum)
{
	u32 ext = evnum - ARMV8_PMUV3_EXT_COMMON_EVENT_BASE;

	if (evnum < ARMV8_PMUV3_MAX_COMMON_EVENTS)
		return test_bit(evnum, cpu_pmu->pmceid_bitmap);
	if (ext < ARMV8_PMUV3_MAX_COMMON_EVENTS)
		return test_bit(ext, cpu_pmu->pmceid_ext_bitmap);
	return true;
}

/*
 * May CPU_CYCLES go on PMCCNTR_EL0? Not where the PMU leaves it out (SMT),
 * and not where its overflow must freeze BRBE, which PMCCNTR_EL0's never
 * does (the Arm ARM's CheckPMUOverflowCondition() excludes it for
 * BRBEFreeze): a branch-stack event, whose stacks would end in the
 * interrupt's entry path, and, with BRBE, a guest-only event, as KVM's
 * stand for a guest's counters, whose overflow freezes the guest's own
 * branch records.
 */
static bool armv8pmu_cycles_on_cycle_counter(const struct arm_pmu *cpu_pmu,
					     const struct perf_event_attr *attr)
{
	return test_bit(ARMV8_PMU_CYCLE_IDX, cpu_pmu->cntr_mask) &&
	       !(attr->sample_type & PERF_SAMPLE_BRANCH_STACK) &&
	       !(attr->exclude_host && cpu_pmu->branch_stack_add_del);
}

/* The 64-bit counter dedicated to an event, or -1; only PMEVTYPER has TH */
static int armv8pmu_dedicated_counter(const struct arm_pmu *cpu_pmu,
				      const struct perf_event_attr *attr, u32 evnum)
{
	if (FIELD_GET(ARMV8PMU_CFG1_THRESHOLD, attr->config1))
		return -1;
	if (evnum == ARMV8_PMUV3_PERFCTR_CPU_CYCLES &&
	    armv8pmu_cycles_on_cycle_counter(cpu_pmu, attr))
		return ARMV8_PMU_CYCLE_IDX;
	/* The user page has no index for PMICNTR_EL0: user readers stay off it */
	if (attr->config1 & ARMV8PMU_CFG1_RDPMC)
		return -1;
	if (IS_ENABLED(CONFIG_ARM64) && evnum == ARMV8_PMUV3_PERFCTR_INST_RETIRED &&
	    test_bit(ARMV8_PMU_INSTR_IDX, cpu_pmu->cntr_mask))
		return ARMV8_PMU_INSTR_IDX;
	return -1;
}

static ssize_t armv8pmu_event_show(struct device *dev,
				   struct device_attribute *attr, char *page)
{
	struct perf_pmu_events_attr *ev;

	ev = container_of(attr, struct perf_pmu_events_attr, attr);
	return sysfs_emit(page, "event=0x%04llx\n", ev->id);
}

#define ARMV8PMU_EVENT(nr, name)	PMU_EVENT_ATTR_ID(name, armv8pmu_event_show, nr)

/*
 * Neither sw_incr (EL0 cannot write PMSWINC_EL0, and rotation moves the
 * counter anyway) nor chain (refused alone) is listed, as in 6.12 and
 * mainline: perf list shows only events one can open.
 */
static struct attribute *armv8pmu_event_attrs[] = {
	ARMV8PMU_EVENT(0x01, l1i_cache_refill),		ARMV8PMU_EVENT(0x02, l1i_tlb_refill),
	ARMV8PMU_EVENT(0x03, l1d_cache_refill),		ARMV8PMU_EVENT(0x04, l1d_cache),
	ARMV8PMU_EVENT(0x05, l1d_tlb_refill),		ARMV8PMU_EVENT(0x06, ld_retired),
	ARMV8PMU_EVENT(0x07, st_retired),		ARMV8PMU_EVENT(0x08, inst_retired),
	ARMV8PMU_EVENT(0x09, exc_taken),		ARMV8PMU_EVENT(0x0a, exc_return),
	ARMV8PMU_EVENT(0x0b, cid_write_retired),	ARMV8PMU_EVENT(0x0c, pc_write_retired),
	ARMV8PMU_EVENT(0x0d, br_immed_retired),		ARMV8PMU_EVENT(0x0e, br_return_retired),
	ARMV8PMU_EVENT(0x0f, unaligned_ldst_retired),	ARMV8PMU_EVENT(0x10, br_mis_pred),
	ARMV8PMU_EVENT(0x11, cpu_cycles),		ARMV8PMU_EVENT(0x12, br_pred),
	ARMV8PMU_EVENT(0x13, mem_access),		ARMV8PMU_EVENT(0x14, l1i_cache),
	ARMV8PMU_EVENT(0x15, l1d_cache_wb),		ARMV8PMU_EVENT(0x16, l2d_cache),
	ARMV8PMU_EVENT(0x17, l2d_cache_refill),		ARMV8PMU_EVENT(0x18, l2d_cache_wb),
	ARMV8PMU_EVENT(0x19, bus_access),		ARMV8PMU_EVENT(0x1a, memory_error),
	ARMV8PMU_EVENT(0x1b, inst_spec),		ARMV8PMU_EVENT(0x1c, ttbr_write_retired),
	ARMV8PMU_EVENT(0x1d, bus_cycles),		ARMV8PMU_EVENT(0x1f, l1d_cache_allocate),
	ARMV8PMU_EVENT(0x20, l2d_cache_allocate),	ARMV8PMU_EVENT(0x21, br_retired),
	ARMV8PMU_EVENT(0x22, br_mis_pred_retired),	ARMV8PMU_EVENT(0x23, stall_frontend),
	ARMV8PMU_EVENT(0x24, stall_backend),		ARMV8PMU_EVENT(0x25, l1d_tlb),
	ARMV8PMU_EVENT(0x26, l1i_tlb),			ARMV8PMU_EVENT(0x27, l2i_cache),
	ARMV8PMU_EVENT(0x28, l2i_cache_refill),		ARMV8PMU_EVENT(0x29, l3d_cache_allocate),
	ARMV8PMU_EVENT(0x2a, l3d_cache_refill),		ARMV8PMU_EVENT(0x2b, l3d_cache),
	ARMV8PMU_EVENT(0x2c, l3d_cache_wb),		ARMV8PMU_EVENT(0x2d, l2d_tlb_refill),
	ARMV8PMU_EVENT(0x2e, l2i_tlb_refill),		ARMV8PMU_EVENT(0x2f, l2d_tlb),
	ARMV8PMU_EVENT(0x30, l2i_tlb),			ARMV8PMU_EVENT(0x31, remote_access),
	ARMV8PMU_EVENT(0x32, ll_cache),			ARMV8PMU_EVENT(0x33, ll_cache_miss),
	ARMV8PMU_EVENT(0x34, dtlb_walk),		ARMV8PMU_EVENT(0x35, itlb_walk),
	ARMV8PMU_EVENT(0x36, ll_cache_rd),		ARMV8PMU_EVENT(0x37, ll_cache_miss_rd),
	ARMV8PMU_EVENT(0x38, remote_access_rd),		ARMV8PMU_EVENT(0x39, l1d_cache_lmiss_rd),
	ARMV8PMU_EVENT(0x3a, op_retired),		ARMV8PMU_EVENT(0x3b, op_spec),
	ARMV8PMU_EVENT(0x3c, stall),			ARMV8PMU_EVENT(0x3d, stall_slot_backend),
	ARMV8PMU_EVENT(0x3e, stall_slot_frontend),	ARMV8PMU_EVENT(0x3f, stall_slot),
	ARMV8PMU_EVENT(0x4000, sample_pop),		ARMV8PMU_EVENT(0x4001, sample_feed),
	ARMV8PMU_EVENT(0x4002, sample_filtrate),	ARMV8PMU_EVENT(0x4003, sample_collision),
	ARMV8PMU_EVENT(0x4004, cnt_cycles),		ARMV8PMU_EVENT(0x4005, stall_backend_mem),
	ARMV8PMU_EVENT(0x4006, l1i_cache_lmiss),	ARMV8PMU_EVENT(0x4009, l2d_cache_lmiss_rd),
	ARMV8PMU_EVENT(0x400a, l2i_cache_lmiss),	ARMV8PMU_EVENT(0x400b, l3d_cache_lmiss_rd),
	ARMV8PMU_EVENT(0x400c, trb_wrap),		ARMV8PMU_EVENT(0x400e, trb_trig),
	ARMV8PMU_EVENT(0x4010, trcextout0),		ARMV8PMU_EVENT(0x4011, trcextout1),
	ARMV8PMU_EVENT(0x4012, trcextout2),		ARMV8PMU_EVENT(0x4013, trcextout3),
	ARMV8PMU_EVENT(0x4018, cti_trigout4),		ARMV8PMU_EVENT(0x4019, cti_trigout5),
	ARMV8PMU_EVENT(0x401a, cti_trigout6),		ARMV8PMU_EVENT(0x401b, cti_trigout7),
	ARMV8PMU_EVENT(0x4020, ldst_align_lat),		ARMV8PMU_EVENT(0x4021, ld_align_lat),
	ARMV8PMU_EVENT(0x4022, st_align_lat),		ARMV8PMU_EVENT(0x4024, mem_access_checked),
	ARMV8PMU_EVENT(0x4025, mem_access_checked_rd),
	ARMV8PMU_EVENT(0x4026, mem_access_checked_wr),
	NULL,
};

/* Only list the events this PMU says it implements */
static umode_t armv8pmu_event_visible(struct kobject *kobj,
				      struct attribute *attr, int unused)
{
	struct pmu *pmu = dev_get_drvdata(kobj_to_dev(kobj));
	struct perf_pmu_events_attr *ev;

	ev = container_of(attr, struct perf_pmu_events_attr, attr.attr);
	return armv8pmu_event_implemented(to_arm_pmu(pmu), ev->id) ? attr->mode : 0;
}

static const struct attribute_group armv8pmu_events_group = {
	.name = "events",
	.attrs = armv8pmu_event_attrs,
	.is_visible = armv8pmu_event_visible,
};

/* A format/ file: the bits of one config word, as the driver decodes them */
struct armv8pmu_format {
	struct device_attribute attr;
	u8 word;	/* 0: config, 1: config1 */
	u64 mask;
};

/* Printed from the masks that decode the fields: each fact written once */
static ssize_t armv8pmu_format_show(struct device *dev, struct device_attribute *attr,
				    char *page)
{
	struct armv8pmu_format *fmt = container_of(attr, struct armv8pmu_format, attr);
	const char *word = fmt->word ? "config1" : "config";
	unsigned int lo = __ffs64(fmt->mask), hi = fls64(fmt->mask) - 1;

	if (lo == hi)
		return sysfs_emit(page, "%s:%u\n", word, lo);
	return sysfs_emit(page, "%s:%u-%u\n", word, lo, hi);
}

#define ARMV8PMU_FORMAT_ATTR(_name, _word, _mask)					\
	(&((struct armv8pmu_format[]) {						\
		{ __ATTR(_name, 0444, armv8pmu_format_show, NULL), _word, _mask }	\
	})[0].attr.attr)

static struct attribute *armv8pmu_format_attrs[] = {
	ARMV8PMU_FORMAT_ATTR(event,		0, ARMV8PMU_CFG_EVENT),
	ARMV8PMU_FORMAT_ATTR(long,		1, ARMV8PMU_CFG1_LONG),
	ARMV8PMU_FORMAT_ATTR(rdpmc,		1, ARMV8PMU_CFG1_RDPMC),
	ARMV8PMU_FORMAT_ATTR(threshold_count,	1, ARMV8PMU_CFG1_TH_COUNT),
	ARMV8PMU_FORMAT_ATTR(threshold_compare,	1, ARMV8PMU_CFG1_TH_COMPARE),
	ARMV8PMU_FORMAT_ATTR(threshold,		1, ARMV8PMU_CFG1_THRESHOLD),
	NULL,
};

static const struct attribute_group armv8pmu_format_group = {
	.name = "format",
	.attrs = armv8pmu_format_attrs,
};

enum armv8pmu_cap {
	ARMV8PMU_CAP_SLOTS,
	ARMV8PMU_CAP_BUS_SLOTS,
	ARMV8PMU_CAP_BUS_WIDTH,
	ARMV8PMU_CAP_THRESHOLD_MAX,
	ARMV8PMU_CAP_BRANCHES,
};

/* PMMIR_EL1.BUS_WIDTH holds log2(bytes) + 1; encodings outside 4..2048 bytes are unknown */
static u32 armv8pmu_bus_width_bytes(u64 pmmir)
{
	u32 enc = FIELD_GET(ARMV8_PMU_BUS_WIDTH, pmmir);

	return enc >= 3 && enc <= 12 ? BIT(enc - 1) : 0;
}

static u32 armv8pmu_cap_value(const struct arm_pmu *cpu_pmu, enum armv8pmu_cap cap)
{
	switch (cap) {
	case ARMV8PMU_CAP_SLOTS:
		return FIELD_GET(ARMV8_PMU_SLOTS, cpu_pmu->reg_pmmir);
	case ARMV8PMU_CAP_BUS_SLOTS:
		return FIELD_GET(ARMV8_PMU_BUS_SLOTS, cpu_pmu->reg_pmmir);
	case ARMV8PMU_CAP_BUS_WIDTH:
		return armv8pmu_bus_width_bytes(cpu_pmu->reg_pmmir);
	case ARMV8PMU_CAP_THRESHOLD_MAX:
		return armv8pmu_threshold_max(cpu_pmu);
	case ARMV8PMU_CAP_BRANCHES:
		return brbe_records(&cpu_pmu->supported_cpus);
	}
	return 0;
}

static ssize_t armv8pmu_cap_show(struct device *dev,
				 struct device_attribute *attr, char *page)
{
	struct dev_ext_attribute *ea = container_of(attr, struct dev_ext_attribute, attr);
	struct arm_pmu *cpu_pmu = to_arm_pmu(dev_get_drvdata(dev));

	unsigned long cap = (unsigned long)ea->var;

	/* branches is a count, in decimal as mainline writes it */
	return sysfs_emit(page, cap == ARMV8PMU_CAP_BRANCHES ? "%u\n" : "0x%08x\n",
			  armv8pmu_cap_value(cpu_pmu, cap));
}

#define ARMV8PMU_CAP_ATTR(_name, _cap)						\
	(&((struct dev_ext_attribute[]) {					\
		{ __ATTR(_name, 0444, armv8pmu_cap_show, NULL), (void *)_cap }	\
	})[0].attr.attr)

/* branches, the records of each sample's stack (perf's max_branches), with BRBE */
static umode_t armv8pmu_cap_visible(struct kobject *kobj, struct attribute *attr,
				    int unused)
{
	struct arm_pmu *cpu_pmu = to_arm_pmu(dev_get_drvdata(kobj_to_dev(kobj)));
	struct dev_ext_attribute *ea = container_of(attr, struct dev_ext_attribute, attr.attr);

	if ((unsigned long)ea->var == ARMV8PMU_CAP_BRANCHES && !cpu_pmu->branch_stack_add_del)
		return 0;
	return attr->mode;
}

static const struct attribute_group armv8pmu_caps_group = {
	.name = "caps",
	.attrs = (struct attribute *[]) {
		ARMV8PMU_CAP_ATTR(slots,	 ARMV8PMU_CAP_SLOTS),
		ARMV8PMU_CAP_ATTR(bus_slots,	 ARMV8PMU_CAP_BUS_SLOTS),
		ARMV8PMU_CAP_ATTR(bus_width,	 ARMV8PMU_CAP_BUS_WIDTH),
		ARMV8PMU_CAP_ATTR(threshold_max, ARMV8PMU_CAP_THRESHOLD_MAX),
		ARMV8PMU_CAP_ATTR(branches,	 ARMV8PMU_CAP_BRANCHES),
		NULL,
	},
	.is_visible = armv8pmu_cap_visible,
};

#define ARMV8PMU_HW(gen, arch)						\
	[PERF_COUNT_HW_##gen] = ARMV8_PMUV3_PERFCTR_##arch

static const unsigned int armv8pmu_hw_map[PERF_COUNT_HW_MAX] = {
	ARMV8PMU_HW(CPU_CYCLES, CPU_CYCLES),
	ARMV8PMU_HW(INSTRUCTIONS, INST_RETIRED),
	ARMV8PMU_HW(CACHE_REFERENCES, L1D_CACHE),
	ARMV8PMU_HW(CACHE_MISSES, L1D_CACHE_REFILL),
	ARMV8PMU_HW(BRANCH_INSTRUCTIONS, BR_RETIRED),
	ARMV8PMU_HW(BRANCH_MISSES, BR_MIS_PRED),
	ARMV8PMU_HW(BUS_CYCLES, BUS_CYCLES),
	ARMV8PMU_HW(STALLED_CYCLES_FRONTEND, STALL_FRONTEND),
	ARMV8PMU_HW(STALLED_CYCLES_BACKEND, STALL_BACKEND),
	[PERF_COUNT_HW_REF_CPU_CYCLES] = HW_OP_UNSUPPORTED,
};

/* Common events give only read access/miss pairs for the generic caches */
#define ARMV8PMU_CACHE_NO_OP							\
	{ [C(RESULT_ACCESS)] = CACHE_OP_UNSUPPORTED,				\
	  [C(RESULT_MISS)] = CACHE_OP_UNSUPPORTED }

#define ARMV8PMU_CACHE_READS(access, miss) {					\
	[C(OP_READ)] = { [C(RESULT_ACCESS)] = ARMV8_PMUV3_PERFCTR_##access,	\
			 [C(RESULT_MISS)] = ARMV8_PMUV3_PERFCTR_##miss },	\
	[C(OP_WRITE)] = ARMV8PMU_CACHE_NO_OP,					\
	[C(OP_PREFETCH)] = ARMV8PMU_CACHE_NO_OP,				\
}

#define ARMV8PMU_CACHE_NONE {							\
	[C(OP_READ)] = ARMV8PMU_CACHE_NO_OP,					\
	[C(OP_WRITE)] = ARMV8PMU_CACHE_NO_OP,					\
	[C(OP_PREFETCH)] = ARMV8PMU_CACHE_NO_OP,				\
}

static const unsigned int armv8pmu_cache_map[PERF_COUNT_HW_CACHE_MAX]
					    [PERF_COUNT_HW_CACHE_OP_MAX]
					    [PERF_COUNT_HW_CACHE_RESULT_MAX] = {
	[C(L1D)]  = ARMV8PMU_CACHE_READS(L1D_CACHE, L1D_CACHE_REFILL),
	[C(L1I)]  = ARMV8PMU_CACHE_READS(L1I_CACHE, L1I_CACHE_REFILL),
	[C(LL)]	  = ARMV8PMU_CACHE_READS(LL_CACHE_RD, LL_CACHE_MISS_RD),
	[C(DTLB)] = ARMV8PMU_CACHE_READS(L1D_TLB, L1D_TLB_REFILL),
	[C(ITLB)] = ARMV8PMU_CACHE_READS(L1I_TLB, L1I_TLB_REFILL),
	[C(BPU)]  = ARMV8PMU_CACHE_READS(BR_PRED, BR_MIS_PRED),
	[C(NODE)] = ARMV8PMU_CACHE_NONE,
};

/*
 * Second choices, where the PMU lacks the maps' common event or they give
 * none: PC_WRITE_RETIRED for branches on the first ARMv8.0 CPUs, and some
 * CPUs' IMPLEMENTATION DEFINED events (their TRMs) for cache writes,
 * prefetches and bus accesses. The maps stay first: one name, one event.
 */
struct armv8pmu_alt_event {
	u32 type;	/* PERF_TYPE_HARDWARE or PERF_TYPE_HW_CACHE */
	u32 config;	/* the generic event, as perf_event_attr.config */
	u16 evnum;
};

#define ARMV8PMU_ALT_HW(gen, ev)					\
	{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_##gen, ev }

#define ARMV8PMU_ALT_CACHE(cache, op, result, ev)			\
	{ PERF_TYPE_HW_CACHE,						\
	  C(cache) | C(OP_##op) << 8 | C(RESULT_##result) << 16, ev }

/* IMPLEMENTATION DEFINED events the 6.12 headers do not name */
#define ARMV8PMU_A53_PREF_LINEFILL		0xc2
#define ARMV8PMU_THUNDER_L1D_CACHE_MISS_ST	0xe9
#define ARMV8PMU_THUNDER_L1D_CACHE_PREF_ACCESS	0xea
#define ARMV8PMU_THUNDER_L1D_CACHE_PREF_MISS	0xeb
#define ARMV8PMU_THUNDER_L1I_CACHE_PREF_ACCESS	0xec
#define ARMV8PMU_THUNDER_L1I_CACHE_PREF_MISS	0xed

#define ARMV8PMU_IMPDEF(ev)			ARMV8_IMPDEF_PERFCTR_##ev

static const struct armv8pmu_alt_event armv8pmu_common_alts[] = {
	ARMV8PMU_ALT_HW(BRANCH_INSTRUCTIONS, ARMV8_PMUV3_PERFCTR_PC_WRITE_RETIRED),
	{ }
};

/* Cortex-A53 and Cortex-A35 */
static const struct armv8pmu_alt_event armv8pmu_a53_alts[] = {
	ARMV8PMU_ALT_CACHE(L1D, PREFETCH, MISS, ARMV8PMU_A53_PREF_LINEFILL),
	ARMV8PMU_ALT_CACHE(NODE, READ, ACCESS, ARMV8PMU_IMPDEF(BUS_ACCESS_RD)),
	ARMV8PMU_ALT_CACHE(NODE, WRITE, ACCESS, ARMV8PMU_IMPDEF(BUS_ACCESS_WR)),
	{ }
};

/* Cortex-A57 and Cortex-A72 */
static const struct armv8pmu_alt_event armv8pmu_a57_alts[] = {
	ARMV8PMU_ALT_CACHE(L1D, READ, ACCESS, ARMV8PMU_IMPDEF(L1D_CACHE_RD)),
	ARMV8PMU_ALT_CACHE(L1D, READ, MISS, ARMV8PMU_IMPDEF(L1D_CACHE_REFILL_RD)),
	ARMV8PMU_ALT_CACHE(L1D, WRITE, ACCESS, ARMV8PMU_IMPDEF(L1D_CACHE_WR)),
	ARMV8PMU_ALT_CACHE(L1D, WRITE, MISS, ARMV8PMU_IMPDEF(L1D_CACHE_REFILL_WR)),
	ARMV8PMU_ALT_CACHE(DTLB, READ, MISS, ARMV8PMU_IMPDEF(L1D_TLB_REFILL_RD)),
	ARMV8PMU_ALT_CACHE(DTLB, WRITE, MISS, ARMV8PMU_IMPDEF(L1D_TLB_REFILL_WR)),
	ARMV8PMU_ALT_CACHE(NODE, READ, ACCESS, ARMV8PMU_IMPDEF(BUS_ACCESS_RD)),
	ARMV8PMU_ALT_CACHE(NODE, WRITE, ACCESS, ARMV8PMU_IMPDEF(BUS_ACCESS_WR)),
	{ }
};

static const struct armv8pmu_alt_event armv8pmu_a73_alts[] = {
	ARMV8PMU_ALT_CACHE(L1D, READ, ACCESS, ARMV8PMU_IMPDEF(L1D_CACHE_RD)),
	ARMV8PMU_ALT_CACHE(L1D, WRITE, ACCESS, ARMV8PMU_IMPDEF(L1D_CACHE_WR)),
	{ }
};

/* Cavium ThunderX */
static const struct armv8pmu_alt_event armv8pmu_thunder_alts[] = {
	ARMV8PMU_ALT_CACHE(L1D, READ, ACCESS, ARMV8PMU_IMPDEF(L1D_CACHE_RD)),
	ARMV8PMU_ALT_CACHE(L1D, READ, MISS, ARMV8PMU_IMPDEF(L1D_CACHE_REFILL_RD)),
	ARMV8PMU_ALT_CACHE(L1D, WRITE, ACCESS, ARMV8PMU_IMPDEF(L1D_CACHE_WR)),
	ARMV8PMU_ALT_CACHE(L1D, WRITE, MISS, ARMV8PMU_THUNDER_L1D_CACHE_MISS_ST),
	ARMV8PMU_ALT_CACHE(L1D, PREFETCH, ACCESS, ARMV8PMU_THUNDER_L1D_CACHE_PREF_ACCESS),
	ARMV8PMU_ALT_CACHE(L1D, PREFETCH, MISS, ARMV8PMU_THUNDER_L1D_CACHE_PREF_MISS),
	ARMV8PMU_ALT_CACHE(L1I, PREFETCH, ACCESS, ARMV8PMU_THUNDER_L1I_CACHE_PREF_ACCESS),
	ARMV8PMU_ALT_CACHE(L1I, PREFETCH, MISS, ARMV8PMU_THUNDER_L1I_CACHE_PREF_MISS),
	ARMV8PMU_ALT_CACHE(DTLB, READ, ACCESS, ARMV8PMU_IMPDEF(L1D_TLB_RD)),
	ARMV8PMU_ALT_CACHE(DTLB, READ, MISS, ARMV8PMU_IMPDEF(L1D_TLB_REFILL_RD)),
	ARMV8PMU_ALT_CACHE(DTLB, WRITE, ACCESS, ARMV8PMU_IMPDEF(L1D_TLB_WR)),
	ARMV8PMU_ALT_CACHE(DTLB, WRITE, MISS, ARMV8PMU_IMPDEF(L1D_TLB_REFILL_WR)),
	{ }
};

/* Broadcom Vulcan (Cavium ThunderX2) */
static const struct armv8pmu_alt_event armv8pmu_vulcan_alts[] = {
	ARMV8PMU_ALT_CACHE(L1D, READ, ACCESS, ARMV8PMU_IMPDEF(L1D_CACHE_RD)),
	ARMV8PMU_ALT_CACHE(L1D, READ, MISS, ARMV8PMU_IMPDEF(L1D_CACHE_REFILL_RD)),
	ARMV8PMU_ALT_CACHE(L1D, WRITE, ACCESS, ARMV8PMU_IMPDEF(L1D_CACHE_WR)),
	ARMV8PMU_ALT_CACHE(L1D, WRITE, MISS, ARMV8PMU_IMPDEF(L1D_CACHE_REFILL_WR)),
	ARMV8PMU_ALT_CACHE(DTLB, READ, ACCESS, ARMV8PMU_IMPDEF(L1D_TLB_RD)),
	ARMV8PMU_ALT_CACHE(DTLB, READ, MISS, ARMV8PMU_IMPDEF(L1D_TLB_REFILL_RD)),
	ARMV8PMU_ALT_CACHE(DTLB, WRITE, ACCESS, ARMV8PMU_IMPDEF(L1D_TLB_WR)),
	ARMV8PMU_ALT_CACHE(DTLB, WRITE, MISS, ARMV8PMU_IMPDEF(L1D_TLB_REFILL_WR)),
	ARMV8PMU_ALT_CACHE(NODE, READ, ACCESS, ARMV8PMU_IMPDEF(BUS_ACCESS_RD)),
	ARMV8PMU_ALT_CACHE(NODE, WRITE, ACCESS, ARMV8PMU_IMPDEF(BUS_ACCESS_WR)),
	{ }
};

/* By DT PMU name; ACPI's armv8_pmuv3_<n> get the common ones only */
static const struct {
	const char *name;
	const struct armv8pmu_alt_event *alts;
} armv8pmu_cpu_alts[] = {
	{ "armv8_cortex_a35",		armv8pmu_a53_alts },
	{ "armv8_cortex_a53",		armv8pmu_a53_alts },
	{ "armv8_cortex_a57",		armv8pmu_a57_alts },
	{ "armv8_cortex_a72",		armv8pmu_a57_alts },
	{ "armv8_cortex_a73",		armv8pmu_a73_alts },
	{ "armv8_cavium_thunder",	armv8pmu_thunder_alts },
	{ "armv8_brcm_vulcan",		armv8pmu_vulcan_alts },
};

/*
 * Counter indexes are PMCNTENSET's bits: event counters 0-30, cycles 31,
 * instructions 32. A chained pair is known by its odd (high) counter.
 */
static bool armv8pmu_event_wants_pair(const struct perf_event *event)
{
	return event->hw.flags & ARMV8PMU_EVT_PAIR;
}

static bool armv8pmu_event_chained(const struct perf_event *event)
{
	return event->hw.idx < ARMV8_PMU_CYCLE_IDX && armv8pmu_event_wants_pair(event);
}

/* The PMCNTEN/PMINTEN/PMOVS bits of every counter the event occupies */
static u64 armv8pmu_event_cntrs(const struct perf_event *event)
{
	int idx = event->hw.idx;

	return armv8pmu_event_chained(event) ? GENMASK_ULL(idx, idx - 1) : BIT_ULL(idx);
}

/* Inline in every pmu->read, whatever else (the EL0 trap path) calls it */
static __always_inline u64 armv8pmu_read_hw_counter(int idx)
{
	if (idx == ARMV8_PMU_CYCLE_IDX)
		return read_pmccntr();
	if (idx == ARMV8_PMU_INSTR_IDX)
		return read_pmicntr();
	return read_pmevcntrn(idx);
}

static void armv8pmu_write_hw_counter(int idx, u64 value)
{
	if (idx == ARMV8_PMU_CYCLE_IDX)
		write_pmccntr(value);
	else if (idx == ARMV8_PMU_INSTR_IDX)
		write_pmicntr(value);
	else
		write_pmevcntrn(idx, value);
}

static u64 armv8pmu_counter_read(struct perf_event *event)
{
	int idx = event->hw.idx;
	u32 hi, lo;

	if (!armv8pmu_event_chained(event))
		return armv8pmu_read_hw_counter(idx);

	/* The pair may be counting: retry if the low half carried meanwhile */
	do {
		hi = read_pmevcntrn(idx);
		lo = read_pmevcntrn(idx - 1);
	} while (hi != (u32)read_pmevcntrn(idx));

	return (u64)hi << 32 | lo;
}

static void armv8pmu_counter_write(struct perf_event *event, u64 value)
{
	int idx = event->hw.idx;

	/*
	 * A 32-bit event may sit on a 64-bit counter (the cycle counter
	 * always overflows at 64 bits): with the top half all ones, the
	 * overflow comes when the low 32 bits wrap.
	 */
	if (!(event->hw.flags & ARMPMU_EVT_64BIT))
		value |= GENMASK_ULL(63, 32);

	if (armv8pmu_event_chained(event)) {
		write_pmevcntrn(idx - 1, lower_32_bits(value));
		write_pmevcntrn(idx, upper_32_bits(value));
	} else {
		armv8pmu_write_hw_counter(idx, value);
	}
}

/* config_base holds the PMEVTYPER value: filter, threshold and event number */
static void armv8pmu_write_evtype(struct perf_event *event)
{
	unsigned long evtype = event->hw.config_base;
	u32 filter = evtype & ARMV8PMU_FILTER_MASK;
	int idx = event->hw.idx;

	if (idx == ARMV8_PMU_CYCLE_IDX) {
		write_pmccfiltr(filter);
	} else if (idx == ARMV8_PMU_INSTR_IDX) {
		write_pmicfiltr(filter);
	} else if (armv8pmu_event_chained(event)) {
		/* The high half counts the low half's overflows, in the same ELs */
		write_pmevtypern(idx - 1, evtype);
		write_pmevtypern(idx, filter | ARMV8_PMUV3_PERFCTR_CHAIN);
	} else {
		write_pmevtypern(idx, evtype);
	}
}

static bool armv8pmu_event_rdpmc(const struct perf_event *event);

/*
 * armpmu_event_update() and armpmu_event_set_period() with counting
 * frozen: no compare-and-exchange, as nothing interrupts this handler on
 * its CPU and a reader it interrupted retries. Only an rdpmc reader adds
 * the counter to its page's offset and needs the new start; other pages
 * show no counter and are refreshed when scheduled.
 *
 * Return: whether a period elapsed, i.e. a sample is due.
 */
static bool armv8pmu_overflow_account(struct perf_event *event)
{
	bool elapsed;
	u64 start;

	armpmu_event_add_delta(event, local64_read(&event->hw.prev_count),
			       armv8pmu_counter_read(event));
	elapsed = armpmu_event_next_start(event, &start);
	armv8pmu_counter_write(event, start);

	if (armv8pmu_event_rdpmc(event))
		perf_event_update_userpage(event);
	return elapsed;
}

static void armv8pmu_overflow_event(struct perf_event *event, struct pt_regs *regs)
{
	struct perf_sample_data data;

	/* last_period as it was when the period that overflowed was armed */
	perf_sample_data_init(&data, 0, event->hw.last_period);
	if (!armv8pmu_overflow_account(event))
		return;

	if (has_branch_stack(event))
		brbe_sample(event, &data);
	if (perf_event_overflow(event, &data, regs))
		event->pmu->stop(event, 0);
}

/*
 * May run as a pseudo-NMI: no lock, this CPU's PMU only. Counting is
 * frozen so a group is sampled at one instant, then PMCR is put back as
 * found: the NMI may have landed inside a pmu_disable() section.
 */
static irqreturn_t armv8pmu_overflow_irq(struct arm_pmu *cpu_pmu)
{
	struct pmu_hw_events *cpuc = this_cpu_ptr(cpu_pmu->hw_events);
	struct pt_regs *regs = get_irq_regs();
	unsigned long overflowed;
	u64 pmcr;
	int idx;

	overflowed = read_pmovsclr() & cpu_pmu->cntr_mask[0];
	if (!overflowed)
		return IRQ_NONE;

	/* Acknowledge only what is handled below; later overflows re-raise */
	write_pmovsclr(overflowed);

	pmcr = read_pmcr();
	write_pmcr(pmcr & ~ARMV8_PMU_PMCR_E);
	/*
	 * Writes to PMCR_EL0 and PMOVSCLR_EL0 act on counting and on the
	 * interrupt only after a context synchronization event: freeze the
	 * counters before reading and rewriting them, and drop the interrupt
	 * before the GIC is told it was handled.
	 */
	isb();

	/* The low half of a chained pair has no event: its overflow is ignored */
	for_each_set_bit(idx, &overflowed, ARMPMU_MAX_HWEVENTS) {
		if (cpuc->events[idx])
			armv8pmu_overflow_event(cpuc->events[idx], regs);
	}

	brbe_resume();
	write_pmcr(pmcr);
	return IRQ_HANDLED;
}

/* KVM switches only counters that count in the host or guests, not both */
static bool armv8pmu_kvm_switched(const struct perf_event_attr *attr)
{
	return attr->exclude_host != attr->exclude_guest;
}

static void armv8pmu_counter_enable(struct perf_event *event)
{
	u64 cntrs = armv8pmu_event_cntrs(event);

	armv8pmu_write_evtype(event);

	if (armv8pmu_kvm_switched(&event->attr))
		kvm_set_pmu_events(cntrs, &event->attr);

	/* The high counter of a pair raises the overflow of the whole */
	write_pmintenset(BIT_ULL(event->hw.idx));

	/* On nVHE, KVM starts a host-excluded counter when entering a guest */
	if (!kvm_pmu_counter_deferred(&event->attr))
		write_pmcntenset(cntrs);
}

/*
 * An overflow flagged but not yet handled goes with its counter: a flag
 * left set freezes BRBE at every resume (ShouldBRBEFreeze() ignores the
 * enables). perf stops counting (PMCR_EL0.E) before this, so nothing
 * flags the counter again.
 */
static void armv8pmu_counter_disable(struct perf_event *event)
{
	u64 cntrs = armv8pmu_event_cntrs(event);

	write_pmcntenclr(cntrs);
	write_pmintenclr(cntrs);
	write_pmovsclr(cntrs);
	if (armv8pmu_kvm_switched(&event->attr))
		kvm_clr_pmu_events(cntrs);
}

/* Bit n set: counter n is odd and it and counter n - 1 are both set in m */
static unsigned long armv8pmu_pairs(unsigned long m)
{
	return m & (m << 1) & (~0UL / 3 << 1);
}

/**
 * armv8pmu_claim_counter() - pick and reserve the counter(s) for an event
 * @used: counters already taken; updated on success
 * @avail: counters the PMU implements
 * @fixed: dedicated counter able to count the event, or -1
 * @pair: whether an event counter must be chained with its neighbour
 *
 * The dedicated counter first, keeping event counters for other events.
 * Only @used is touched, so group validation uses it on a scratch bitmap.
 *
 * Return: the counter (the odd one of a pair), or -EAGAIN: perf rotates.
 */
static int armv8pmu_claim_counter(unsigned long *used, const unsigned long *avail,
				  int fixed, bool pair)
{
	unsigned long free = avail[0] & ~used[0];
	unsigned long general = free & GENMASK(ARMV8_PMU_MAX_GENERAL_COUNTERS - 1, 0);
	unsigned int idx;

	if (fixed >= 0 && (free & BIT(fixed))) {
		used[0] |= BIT(fixed);
		return fixed;
	}

	if (pair)
		general = armv8pmu_pairs(general);
	if (!general)
		return -EAGAIN;

	idx = __ffs(general);
	used[0] |= pair ? BIT(idx) | BIT(idx - 1) : BIT(idx);
	return idx;
}

static int armv8pmu_counter_alloc(struct pmu_hw_events *cpuc, struct perf_event *event)
{
	struct arm_pmu *cpu_pmu = to_arm_pmu(event->pmu);
	unsigned long flags = event->hw.flags;
	int fixed = (int)FIELD_GET(ARMV8PMU_EVT_FIXED, flags) - 1;
	bool pair = flags & ARMV8PMU_EVT_PAIR;
	unsigned long only_fixed;

	/*
	 * Without CHAIN, event_init let a 64-bit event in only because its
	 * dedicated counter is 64 bits wide: it waits for that counter rather
	 * than take a pair that cannot count past 32 bits.
	 */
	if (flags & ARMV8PMU_EVT_FIXED_ONLY) {
		only_fixed = BIT(fixed);
		return armv8pmu_claim_counter(cpuc->used_mask, &only_fixed, fixed, pair);
	}

	return armv8pmu_claim_counter(cpuc->used_mask, cpu_pmu->cntr_mask, fixed, pair);
}

static void armv8pmu_counter_free(struct pmu_hw_events *cpuc, struct perf_event *event)
{
	cpuc->used_mask[0] &= ~armv8pmu_event_cntrs(event);
}

/* kernel.perf_user_access: 1 lets a task read its own rdpmc events */
static int armv8pmu_user_access_on __read_mostly;

/* PMUv3 PMUs set up so far: with more than one, events must name theirs */
static atomic_t armv8pmu_nr_pmus = ATOMIC_INIT(0);

/* The host's PMUSERENR_EL0 grants EL0 access: only then is it cleared */
static DEFINE_PER_CPU(bool, armv8pmu_el0_granted);

/* PMCR_EL0.E: stopping what already stopped needs no write and no ISB */
static DEFINE_PER_CPU(bool, armv8pmu_counting);

/* For EL0 reads that trap: a task reads what its events hold on it */
static DEFINE_PER_CPU(struct arm_pmu *, armv8pmu_cpu_pmu);

static bool armv8pmu_event_rdpmc(const struct perf_event *event)
{
	return event->attr.config1 & ARMV8PMU_CFG1_RDPMC;
}

/* With a vCPU loaded (VHE) KVM keeps the host's value, for vcpu_put() */
static void armv8pmu_userenr_set(u32 val)
{
	if (!kvm_set_pmuserenr(val))
		write_pmuserenr(val);
	__this_cpu_write(armv8pmu_el0_granted, val != 0);
}

/*
 * The running task's context if it has rdpmc events (nr_user), scheduled
 * or not: rotation may take one off its counter between a reader's look
 * at the page and its mrs, which must then see the sequence move, not trap.
 */
static struct perf_event_context *armv8pmu_user_access_ctx(void)
{
	struct perf_event_context *ctx;

	if (!READ_ONCE(armv8pmu_user_access_on))
		return NULL;
	ctx = perf_cpu_task_ctx();
	return ctx && ctx->nr_user ? ctx : NULL;
}

/*
 * The counters current may read: its rdpmc events (task-bound events here
 * are all current's). Others that count it, such as root's `perf stat -p`
 * or KVM's vPMU on a vCPU thread, are not its to read.
 */
static u64 armv8pmu_task_counters(const struct pmu_hw_events *cpuc)
{
	u64 mask = 0;
	int idx;

	for_each_set_bit(idx, cpuc->used_mask, ARMPMU_MAX_HWEVENTS) {
		const struct perf_event *event = cpuc->events[idx];

		if (event && (event->attach_state & PERF_ATTACH_TASK) &&
		    armv8pmu_event_rdpmc(event))
			mask |= armv8pmu_event_cntrs(event);
	}
	return mask;
}

static void armv8pmu_write_pmuacr(u64 val)
{
#ifdef CONFIG_ARM64
	write_sysreg_s(val, ARMV8PMU_SYS_PMUACR_EL1);
#endif
}

/*
 * With FEAT_PMUv3p9, UEN limits EL0 to the counters PMUACR names. Without
 * it, ER and CR open every counter: only while all in use are the task's,
 * the idle ones zeroed. Otherwise reads trap to armv8pmu_el0_access().
 */
static void armv8pmu_user_access_grant(struct arm_pmu *cpu_pmu,
				       const struct pmu_hw_events *cpuc)
{
	u64 task = armv8pmu_task_counters(cpuc);
	unsigned long idle = cpu_pmu->cntr_mask[0] & ~cpuc->used_mask[0];
	u32 enable = ARMV8_PMU_USERENR_ER;
	int idx;

	/* A cycle counter the PMU does not use is not zeroed: not readable */
	if (test_bit(ARMV8_PMU_CYCLE_IDX, cpu_pmu->cntr_mask))
		enable |= ARMV8_PMU_USERENR_CR;

	if (armv8pmu_has_pmuacr(cpu_pmu)) {
		armv8pmu_write_pmuacr(task);
		armv8pmu_userenr_set(enable | ARMV8PMU_USERENR_UEN);
		return;
	}
	if (task != cpuc->used_mask[0])
		return;		/* EL0 reads trap: armv8pmu_el0_access() */
	for_each_set_bit(idx, &idle, ARMPMU_MAX_HWEVENTS)
		armv8pmu_write_hw_counter(idx, 0);
	armv8pmu_userenr_set(enable);
}

#ifdef CONFIG_ARM64
/* PMEVCNTR<n>_EL0: n is CRm[1:0]:op2, and 31 is no event counter */
static int armv8pmu_el0_counter_idx(u32 sysreg)
{
	int n = (sys_reg_CRm(sysreg) & 3) << 3 | sys_reg_Op2(sysreg);

	switch (sysreg) {
	case SYS_PMCCNTR_EL0:
		return ARMV8_PMU_CYCLE_IDX;
	case SYS_PMXEVCNTR_EL0:
		n = read_sysreg(pmselr_el0) & PMSELR_EL0_SEL_MASK;
		break;
	default:
		if (sysreg != SYS_PMEVCNTRn_EL0(n))
			return -1;
		break;
	}
	return n < ARMV8_PMU_MAX_GENERAL_COUNTERS ? n : -1;
}

/* Counters not in @readable read 0; PMSELR_EL0 serves PMXEVCNTR_EL0 */
static bool armv8pmu_el0_emulate(u64 readable, u32 sysreg, bool is_read, u64 *val)
{
	int idx;

	if (sysreg == SYS_PMSELR_EL0) {
		if (is_read)
			*val = read_sysreg(pmselr_el0);
		else
			write_sysreg(*val & PMSELR_EL0_SEL_MASK, pmselr_el0);
		return true;
	}
	idx = is_read ? armv8pmu_el0_counter_idx(sysreg) : -1;
	if (idx < 0)
		return false;
	*val = readable & BIT_ULL(idx) ? armv8pmu_read_hw_counter(idx) : 0;
	return true;
}

/*
 * On another PMU's CPUs a task's reads trap as if it had no events. The
 * trap came from EL0, so the context's lock can be taken.
 */
static bool armv8pmu_task_uses_pmu(struct perf_event_context *ctx,
				   struct arm_pmu *cpu_pmu)
{
	struct perf_event_pmu_context *epc;
	bool found = false;

	if (atomic_read(&armv8pmu_nr_pmus) < 2)
		return true;
	raw_spin_lock(&ctx->lock);
	list_for_each_entry(epc, &ctx->pmu_ctx_list, pmu_ctx_entry) {
		if (epc->pmu == &cpu_pmu->pmu) {
			found = true;
			break;
		}
	}
	raw_spin_unlock(&ctx->lock);
	return found;
}

/**
 * armv8pmu_el0_access() - carry out an EL0 PMU register access that trapped
 * @sysreg: the register, as sys_reg() encodes it
 * @is_read: the access is an MRS, else an MSR
 * @val: the value an MSR writes; where the value an MRS reads goes
 *
 * The task's own counters read as the hardware has them, others as 0.
 *
 * Return: false if it stays an undefined instruction.
 */
bool armv8pmu_el0_access(u32 sysreg, bool is_read, u64 *val)
{
	struct perf_event_context *ctx;
	struct arm_pmu *cpu_pmu;
	unsigned long flags;
	bool done = false;

	/* The counters may change hands in an interrupt: keep them still */
	local_irq_save(flags);
	cpu_pmu = __this_cpu_read(armv8pmu_cpu_pmu);
	ctx = armv8pmu_user_access_ctx();
	if (cpu_pmu && ctx && armv8pmu_task_uses_pmu(ctx, cpu_pmu)) {
		u64 task = armv8pmu_task_counters(this_cpu_ptr(cpu_pmu->hw_events));

		done = armv8pmu_el0_emulate(task, sysreg, is_read, val);
	}
	local_irq_restore(flags);
	return done;
}
#endif

/* Runs on every CPU when the sysctl is cleared, interrupting what ran */
static void armv8pmu_user_access_revoke(void *unused)
{
	armv8pmu_userenr_set(0);
	/* If a guest was interrupted, KVM must load its EL0 view again */
	kvm_vcpu_pmu_resync_el0();
}

static int armv8pmu_user_access_sysctl(const struct ctl_table *table, int write,
				       void *buffer, size_t *lenp, loff_t *ppos)
{
	int ret = proc_dointvec_minmax(table, write, buffer, lenp, ppos);

	/*
	 * Granting waits for each CPU's next reschedule; taking access away
	 * must not wait for a task that may never be switched out.
	 */
	if (!ret && write && !READ_ONCE(armv8pmu_user_access_on))
		on_each_cpu(armv8pmu_user_access_revoke, NULL, 1);
	return ret;
}

static struct ctl_table armv8pmu_sysctls[] = {
	{
		.procname	= "perf_user_access",
		.proc_handler	= armv8pmu_user_access_sysctl,
		.mode		= 0644,
		.data		= &armv8pmu_user_access_on,
		.maxlen		= sizeof(armv8pmu_user_access_on),
		.extra1		= SYSCTL_ZERO,
		.extra2		= SYSCTL_ONE,
	},
};

/* The user page's index: 0 while EL0 may not read it, else counter + 1 */
static int armv8pmu_user_index(struct perf_event *event)
{
	if (!READ_ONCE(armv8pmu_user_access_on) || !armv8pmu_event_rdpmc(event))
		return 0;
	return event->hw.idx + 1;
}

/* 32-bit events get their overflow point from armv8pmu_counter_write() */
static u32 armv8pmu_pmcr_mode(struct arm_pmu *cpu_pmu)
{
	u32 mode = ARMV8_PMU_PMCR_LC;

	if (armv8pmu_has_64bit_evcntrs(cpu_pmu))
		mode |= ARMV8_PMU_PMCR_LP;
	return mode;
}

/*
 * perf brackets every change of a CPU's events with pmu_disable/enable:
 * user access is dropped, then granted only if the task has rdpmc events.
 */
static void armv8pmu_counting_on(struct arm_pmu *cpu_pmu)
{
	struct pmu_hw_events *cpuc = this_cpu_ptr(cpu_pmu->hw_events);

	if (armv8pmu_user_access_ctx())
		armv8pmu_user_access_grant(cpu_pmu, cpuc);
	/*
	 * Counters programmed from an interrupt that came in while a vCPU
	 * was loaded (VHE) carry the host's EL0 filter bits: KVM must set the
	 * guest's again before it re-enters the guest.
	 */
	kvm_vcpu_pmu_resync_el0();
	brbe_enable(cpuc);
	/*
	 * The event types, enables and counter values written since
	 * counting stopped must all be in effect before it restarts, or a
	 * counter could count a moment for its previous event.
	 */
	isb();
	write_pmcr(armv8pmu_pmcr_mode(cpu_pmu) | ARMV8_PMU_PMCR_E);
	__this_cpu_write(armv8pmu_counting, true);
}

/* A context switch disables the PMU twice and enables it once */
static void armv8pmu_counting_off(struct arm_pmu *cpu_pmu)
{
	if (__this_cpu_read(armv8pmu_counting)) {
		write_pmcr(armv8pmu_pmcr_mode(cpu_pmu));
		/*
		 * Clearing PMCR_EL0.E stops the counters only at a context
		 * synchronization event: until then they would go on counting
		 * their old events into the values perf is about to read and
		 * rewrite for other events and tasks.
		 */
		isb();
		__this_cpu_write(armv8pmu_counting, false);
	}
	/* EL0 loses access at the exception return that ends the switch */
	if (__this_cpu_read(armv8pmu_el0_granted))
		armv8pmu_userenr_set(0);
}

/* Runs on each CPU as it comes up, and after it loses PMU state */
static void armv8pmu_cpu_reset(void *info)
{
	struct arm_pmu *cpu_pmu = info;
	unsigned long all = cpu_pmu->cntr_mask[0];

	write_pmcntenclr(all);
	write_pmintenclr(all);
	write_pmovsclr(all);
	kvm_clr_pmu_events(all);

	/* No user access to the PMU until perf grants it per event */
	write_pmuserenr(0);
	__this_cpu_write(armv8pmu_el0_granted, false);
	__this_cpu_write(armv8pmu_cpu_pmu, cpu_pmu);

	/* Stopped: armv8pmu_counting_on() synchronizes before it restarts */
	write_pmcr(armv8pmu_pmcr_mode(cpu_pmu) | ARMV8_PMU_PMCR_P | ARMV8_PMU_PMCR_C);
	__this_cpu_write(armv8pmu_counting, false);

	brbe_reset();
}

/**
 * armv8pmu_el_filter() - exception level filter bits for an event
 * @attr: the event's attributes
 * @kernel_at_el2: the host kernel runs at EL2 (VHE)
 *
 * A VHE kernel is the hypervisor: exclude_hv only matters on nVHE. On VHE
 * exclude_guest drops EL1 and exclude_host EL0 and EL2 (KVM re-includes
 * EL0 for guests); on nVHE KVM switches host-excluded counters. NSK/NSU
 * stay 0: in Non-secure state they must equal P/U.
 *
 * Return: the PMEVTYPER/PMCCFILTR/PMICFILTR filter bits.
 */
static u32 armv8pmu_el_filter(const struct perf_event_attr *attr, bool kernel_at_el2)
{
	bool el0 = !attr->exclude_user;
	bool el1 = !attr->exclude_kernel;
	bool el2 = kernel_at_el2 ? !attr->exclude_kernel : !attr->exclude_hv;
	u32 filter = 0;

	if (attr->exclude_host) {
		el2 = false;
		if (kernel_at_el2)
			el0 = false;
	}
	if (attr->exclude_guest && kernel_at_el2)
		el1 = false;

	if (!el0)
		filter |= ARMV8_PMU_EXCLUDE_EL0;
	if (!el1)
		filter |= ARMV8_PMU_EXCLUDE_EL1;
	if (el2)
		filter |= ARMV8_PMU_INCLUDE_EL2;
	return filter;
}

/*
 * PMEVTYPER.TC is threshold_count and threshold_compare taken together;
 * a threshold of zero leaves thresholding off, whatever TC says.
 */
static u64 armv8pmu_threshold_bits(const struct perf_event_attr *attr)
{
	u64 threshold = FIELD_GET(ARMV8PMU_CFG1_THRESHOLD, attr->config1);

	if (!threshold)
		return 0;

	return FIELD_PREP(ARMV8_PMU_EVTYPE_TH, threshold) |
	       FIELD_PREP(ARMV8_PMU_EVTYPE_TC, FIELD_GET(ARMV8PMU_CFG1_TC, attr->config1));
}

/**
 * armv8pmu_check_attr() - refuse what this PMU cannot count as asked
 * @cpu_pmu: the PMU; only its probed capabilities are read
 * @attr: the requested attributes
 * @evnum: the event number, after generic and cache events are mapped
 *
 * Return: 0, -EINVAL for reserved bits, CHAIN or an out of range threshold,
 * -EOPNOTSUPP for features this PMU or driver lacks, -ENOENT for a generic
 * event the PMU does not implement.
 */
static int armv8pmu_check_attr(const struct arm_pmu *cpu_pmu,
			       const struct perf_event_attr *attr, u32 evnum)
{
	bool generic = attr->type == PERF_TYPE_HARDWARE ||
		       attr->type == PERF_TYPE_HW_CACHE;
	u64 threshold = FIELD_GET(ARMV8PMU_CFG1_THRESHOLD, attr->config1);

	if ((!generic && (attr->config & ~ARMV8PMU_CFG_EVENT)) ||
	    (attr->config1 & ~ARMV8PMU_CFG1_ALL) || attr->config2)
		return -EINVAL;
	/* The chaining event only makes sense on a pair the driver builds */
	if (evnum == ARMV8_PMUV3_PERFCTR_CHAIN)
		return -EINVAL;
	/*
	 * A generic event maps only to what PMCEID announces. A raw number
	 * is the user's word, as in mainline: PMCEID can leave out an event
	 * the core counts, which its published event list names.
	 */
	if (generic && !armv8pmu_event_implemented(cpu_pmu, evnum))
		return -ENOENT;
	if (attr->exclude_idle)
		return -EOPNOTSUPP;
	if (threshold && !armv8pmu_threshold_max(cpu_pmu))
		return -EOPNOTSUPP;
	if (threshold > armv8pmu_threshold_max(cpu_pmu))
		return -EINVAL;
	/*
	 * 64 bits need 64-bit event counters, a chained pair, or a dedicated
	 * counter (always 64 bits wide) the event can wait for. KVM relies on
	 * the last for a guest's cycle counter on PMUs without CHAIN.
	 */
	if ((attr->config1 & ARMV8PMU_CFG1_LONG) &&
	    !armv8pmu_has_64bit_evcntrs(cpu_pmu) && !armv8pmu_has_chain(cpu_pmu) &&
	    armv8pmu_dedicated_counter(cpu_pmu, attr, evnum) < 0)
		return -EOPNOTSUPP;
	return 0;
}

/**
 * armv8pmu_check_user_access() - refuse rdpmc where it cannot be honoured
 * @cpu_pmu: the PMU; only its probed capabilities are read
 * @attr: the requested attributes, rdpmc (config1:1) set
 * @evnum: the event number it counts
 * @task_bound: the event counts for one task rather than for a whole CPU
 * @nr_pmus: how many PMUv3 PMUs the system has
 *
 * With several PMUs a raw event number may mean another event on the
 * other CPUs: it must come with its PMU's type. A generic event means the
 * same on each, and perf core binds it to one PMU (the one it names in
 * config's upper half, as perf's tools open cycles and instructions per
 * PMU), whose counters alone its user page then shows. EL0 cannot read a
 * chained pair consistently: a long event needs one 64-bit register.
 *
 * Return: 0, -EINVAL for an event not bound to a task, -EOPNOTSUPP for
 * PERF_TYPE_RAW with several PMUs or long with no 64-bit counter to hold it.
 */
static int armv8pmu_check_user_access(const struct arm_pmu *cpu_pmu,
				      const struct perf_event_attr *attr, u32 evnum,
				      bool task_bound, unsigned int nr_pmus)
{
	if (!task_bound)
		return -EINVAL;
	if (nr_pmus > 1 && attr->type == PERF_TYPE_RAW)
		return -EOPNOTSUPP;
	if ((attr->config1 & ARMV8PMU_CFG1_LONG) && !armv8pmu_has_64bit_evcntrs(cpu_pmu) &&
	    armv8pmu_dedicated_counter(cpu_pmu, attr, evnum) < 0)
		return -EOPNOTSUPP;
	return 0;
}

/* The first of @alts for this generic event that the PMU implements */
static int armv8pmu_alt_find(const struct arm_pmu *cpu_pmu,
			     const struct armv8pmu_alt_event *alts,
			     const struct perf_event_attr *attr)
{
	for (; alts && alts->evnum; alts++)
		if (alts->type == attr->type && alts->config == attr->config &&
		    armv8pmu_event_implemented(cpu_pmu, alts->evnum))
			return alts->evnum;
	return -ENOENT;
}

static const struct armv8pmu_alt_event *armv8pmu_alts_of(const struct arm_pmu *cpu_pmu)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(armv8pmu_cpu_alts); i++)
		if (!strcmp(cpu_pmu->name, armv8pmu_cpu_alts[i].name))
			return armv8pmu_cpu_alts[i].alts;
	return NULL;
}

/* The maps, then the second choices of the CPU and of every PMUv3 */
static int armv8pmu_evnum(const struct arm_pmu *cpu_pmu, struct perf_event *event)
{
	const struct perf_event_attr *attr = &event->attr;
	int evnum, alt;

	evnum = armpmu_map_event(event, &armv8pmu_hw_map, &armv8pmu_cache_map,
				 ARMV8_PMU_EVTYPE_EVENT);
	if (attr->type != PERF_TYPE_HARDWARE && attr->type != PERF_TYPE_HW_CACHE)
		return evnum;
	/* A malformed config stays refused; an implemented event is the answer */
	if (evnum == -EINVAL || (evnum >= 0 && armv8pmu_event_implemented(cpu_pmu, evnum)))
		return evnum;

	alt = armv8pmu_alt_find(cpu_pmu, armv8pmu_alts_of(cpu_pmu), attr);
	if (alt < 0)
		alt = armv8pmu_alt_find(cpu_pmu, armv8pmu_common_alts, attr);
	return alt < 0 ? evnum : alt;
}

/* map_event: the event number, with the counters it may take in hw.flags */
static int armv8pmu_validate_and_place(struct perf_event *event)
{
	struct arm_pmu *cpu_pmu = to_arm_pmu(event->pmu);
	int evnum, err;

	evnum = armv8pmu_evnum(cpu_pmu, event);
	if (evnum < 0)
		return evnum;

	err = armv8pmu_check_attr(cpu_pmu, &event->attr, evnum);
	if (!err && has_branch_stack(event))
		err = brbe_event_check(event);
	if (!err && armv8pmu_event_rdpmc(event))
		err = armv8pmu_check_user_access(cpu_pmu, &event->attr, evnum,
						 event->attach_state & PERF_ATTACH_TASK,
						 atomic_read(&armv8pmu_nr_pmus));
	if (err)
		return err;

	/* Counted by the perf core per task: see armv8pmu_user_access_ctx() */
	if (armv8pmu_event_rdpmc(event))
		event->hw.flags |= PERF_EVENT_FLAG_USER_READ_CNT;

	/*
	 * Count 64 bits wide when asked to, or when it costs nothing; but a
	 * user reader of a 32-bit event masks the counter to 32 bits, so the
	 * kernel's view must wrap there too.
	 */
	if ((event->attr.config1 & ARMV8PMU_CFG1_LONG) ||
	    (armv8pmu_has_64bit_evcntrs(cpu_pmu) && !armv8pmu_event_rdpmc(event)))
		event->hw.flags |= ARMPMU_EVT_64BIT;

	/*
	 * 64 bits on 32-bit event counters: a chained pair, if CHAIN exists
	 * and no user reader needs the count in one register.
	 */
	if ((event->hw.flags & ARMPMU_EVT_64BIT) && !armv8pmu_has_64bit_evcntrs(cpu_pmu)) {
		event->hw.flags |= ARMV8PMU_EVT_PAIR;
		if (!armv8pmu_has_chain(cpu_pmu) || armv8pmu_event_rdpmc(event))
			event->hw.flags |= ARMV8PMU_EVT_FIXED_ONLY;
	}
	event->hw.flags |= FIELD_PREP(ARMV8PMU_EVT_FIXED,
				      armv8pmu_dedicated_counter(cpu_pmu, &event->attr, evnum) + 1);

	return evnum;
}

static int armv8pmu_event_filter_set(struct hw_perf_event *hwc,
				     struct perf_event_attr *attr)
{
	hwc->config_base = armv8pmu_el_filter(attr, is_kernel_in_hyp_mode()) |
			   armv8pmu_threshold_bits(attr);
	return 0;
}

/*
 * On a multi-threaded core PMCCNTR_EL0 counts the processor's clock, not
 * the PE's (the Arm ARM, D13.1.3): it runs on while the PE waits in WFI
 * and a sibling does not. CPU_CYCLES then goes on an event counter, and
 * the PMU leaves the cycle counter out of the counters it schedules on.
 */
static bool armv8pmu_cpu_has_smt(unsigned int cpu)
{
	return cpumask_weight(topology_sibling_cpumask(cpu)) > 1;
}

/* PMCEID0/1's low halves announce 0x00-0x3f, their high ones 0x4000 on */
static void armv8pmu_probe_cpu(void *info)
{
	struct arm_pmu *cpu_pmu = info;
	u64 ceid0, ceid1;

	cpu_pmu->pmuver = read_pmuver();
	if (!pmuv3_implemented(cpu_pmu->pmuver))
		return;

	bitmap_set(cpu_pmu->cntr_mask, 0, FIELD_GET(ARMV8_PMU_PMCR_N, read_pmcr()));
	if (!armv8pmu_cpu_has_smt(smp_processor_id()))
		__set_bit(ARMV8_PMU_CYCLE_IDX, cpu_pmu->cntr_mask);
	if (pmuv3_has_icntr())
		__set_bit(ARMV8_PMU_INSTR_IDX, cpu_pmu->cntr_mask);

	ceid0 = read_pmceid0();
	ceid1 = read_pmceid1();
	bitmap_from_u64(cpu_pmu->pmceid_bitmap, lower_32_bits(ceid0) | ceid1 << 32);
	bitmap_from_u64(cpu_pmu->pmceid_ext_bitmap,
			upper_32_bits(ceid0) | (ceid1 & GENMASK_ULL(63, 32)));

	if (is_pmuv3p4(cpu_pmu->pmuver))
		cpu_pmu->reg_pmmir = read_pmmir();

	/* The framework hands branch-stack events to BRBE, and only if it can */
	if (brbe_probe())
		cpu_pmu->branch_stack_add_del = brbe_add_del;
}

/* event_init: perf attributes to register values, and the user page */
static void armv8pmu_wire_translation(struct arm_pmu *cpu_pmu)
{
	cpu_pmu->map_event = armv8pmu_validate_and_place;
	cpu_pmu->set_event_filter = armv8pmu_event_filter_set;
	cpu_pmu->pmu.event_idx = armv8pmu_user_index;
}

/* add/del/read: placing events on counters, and driving those counters */
static void armv8pmu_wire_counters(struct arm_pmu *cpu_pmu)
{
	cpu_pmu->get_event_idx = armv8pmu_counter_alloc;
	cpu_pmu->clear_event_idx = armv8pmu_counter_free;
	cpu_pmu->read_counter = armv8pmu_counter_read;
	cpu_pmu->write_counter = armv8pmu_counter_write;
	cpu_pmu->enable = armv8pmu_counter_enable;
	cpu_pmu->disable = armv8pmu_counter_disable;
}

/* The CPU's PMU as a whole, and its branch record buffer (BRBE) */
static void armv8pmu_wire_cpu(struct arm_pmu *cpu_pmu)
{
	cpu_pmu->handle_irq = armv8pmu_overflow_irq;
	cpu_pmu->reset = armv8pmu_cpu_reset;
	cpu_pmu->start = armv8pmu_counting_on;
	cpu_pmu->stop = armv8pmu_counting_off;
	if (cpu_pmu->branch_stack_add_del) {
		cpu_pmu->pmu.sched_task = brbe_sched_task;
		brbe_offer_snapshot();
	}
}

static int armv8pmu_init(struct arm_pmu *cpu_pmu, char *name)
{
	int ret;

	ret = smp_call_function_any(&cpu_pmu->supported_cpus, armv8pmu_probe_cpu,
				    cpu_pmu, 1);
	if (ret)
		return ret;
	if (!pmuv3_implemented(cpu_pmu->pmuver))
		return -ENODEV;

	cpu_pmu->name = name;
	armv8pmu_wire_translation(cpu_pmu);
	armv8pmu_wire_counters(cpu_pmu);
	armv8pmu_wire_cpu(cpu_pmu);

	cpu_pmu->attr_groups[ARMPMU_ATTR_GROUP_EVENTS] = &armv8pmu_events_group;
	cpu_pmu->attr_groups[ARMPMU_ATTR_GROUP_FORMATS] = &armv8pmu_format_group;
	cpu_pmu->attr_groups[ARMPMU_ATTR_GROUP_CAPS] = &armv8pmu_caps_group;

	atomic_inc(&armv8pmu_nr_pmus);
	return 0;
}

/* ACPI names the PMU generically; the framework appends an index */
static int armv8pmu_acpi_init(struct arm_pmu *cpu_pmu)
{
	return armv8pmu_init(cpu_pmu, "armv8_pmuv3");
}

#define ARMV8PMU_DT(compat, pmu_name)	{ .compatible = compat, .data = pmu_name }

/*
 * DT compatibles and, as match data, the name of the PMU each registers.
 * The names are user ABI (perf event specifications, sysfs paths): never
 * rename one.
 */
static const struct of_device_id armv8pmu_of_match[] = {
	ARMV8PMU_DT("arm,armv8-pmuv3",		"armv8_pmuv3"),
	ARMV8PMU_DT("arm,cortex-a34-pmu",	"armv8_cortex_a34"),
	ARMV8PMU_DT("arm,cortex-a35-pmu",	"armv8_cortex_a35"),
	ARMV8PMU_DT("arm,cortex-a53-pmu",	"armv8_cortex_a53"),
	ARMV8PMU_DT("arm,cortex-a55-pmu",	"armv8_cortex_a55"),
	ARMV8PMU_DT("arm,cortex-a57-pmu",	"armv8_cortex_a57"),
	ARMV8PMU_DT("arm,cortex-a65-pmu",	"armv8_cortex_a65"),
	ARMV8PMU_DT("arm,cortex-a72-pmu",	"armv8_cortex_a72"),
	ARMV8PMU_DT("arm,cortex-a73-pmu",	"armv8_cortex_a73"),
	ARMV8PMU_DT("arm,cortex-a75-pmu",	"armv8_cortex_a75"),
	ARMV8PMU_DT("arm,cortex-a76-pmu",	"armv8_cortex_a76"),
	ARMV8PMU_DT("arm,cortex-a77-pmu",	"armv8_cortex_a77"),
	ARMV8PMU_DT("arm,cortex-a78-pmu",	"armv8_cortex_a78"),
	ARMV8PMU_DT("arm,cortex-a510-pmu",	"armv9_cortex_a510"),
	ARMV8PMU_DT("arm,cortex-a520-pmu",	"armv9_cortex_a520"),
	ARMV8PMU_DT("arm,cortex-a710-pmu",	"armv9_cortex_a710"),
	ARMV8PMU_DT("arm,cortex-a715-pmu",	"armv9_cortex_a715"),
	ARMV8PMU_DT("arm,cortex-a720-pmu",	"armv9_cortex_a720"),
	ARMV8PMU_DT("arm,cortex-a725-pmu",	"armv9_cortex_a725"),
	ARMV8PMU_DT("arm,cortex-x1-pmu",	"armv8_cortex_x1"),
	ARMV8PMU_DT("arm,cortex-x2-pmu",	"armv9_cortex_x2"),
	ARMV8PMU_DT("arm,cortex-x3-pmu",	"armv9_cortex_x3"),
	ARMV8PMU_DT("arm,cortex-x4-pmu",	"armv9_cortex_x4"),
	ARMV8PMU_DT("arm,cortex-x925-pmu",	"armv9_cortex_x925"),
	ARMV8PMU_DT("arm,neoverse-e1-pmu",	"armv8_neoverse_e1"),
	ARMV8PMU_DT("arm,neoverse-n1-pmu",	"armv8_neoverse_n1"),
	ARMV8PMU_DT("arm,neoverse-n2-pmu",	"armv9_neoverse_n2"),
	ARMV8PMU_DT("arm,neoverse-n3-pmu",	"armv9_neoverse_n3"),
	ARMV8PMU_DT("arm,neoverse-v1-pmu",	"armv8_neoverse_v1"),
	ARMV8PMU_DT("arm,neoverse-v2-pmu",	"armv8_neoverse_v2"),
	ARMV8PMU_DT("arm,neoverse-v3-pmu",	"armv8_neoverse_v3"),
	ARMV8PMU_DT("arm,neoverse-v3ae-pmu",	"armv8_neoverse_v3ae"),
	ARMV8PMU_DT("cavium,thunder-pmu",	"armv8_cavium_thunder"),
	ARMV8PMU_DT("brcm,vulcan-pmu",		"armv8_brcm_vulcan"),
	ARMV8PMU_DT("nvidia,carmel-pmu",	"armv8_nvidia_carmel"),
	ARMV8PMU_DT("nvidia,denver-pmu",	"armv8_nvidia_denver"),
	{ }
};

static int armv8pmu_dt_init(struct arm_pmu *cpu_pmu)
{
	const char *name = of_device_get_match_data(&cpu_pmu->plat_device->dev);

	/* arm_pmu's name is not const, but nothing writes through it */
	return armv8pmu_init(cpu_pmu, (char *)name);
}

static int armv8pmu_device_probe(struct platform_device *pdev)
{
	return arm_pmu_device_probe_init(pdev, armv8pmu_dt_init);
}

static struct platform_driver armv8pmu_driver = {
	.probe = armv8pmu_device_probe,
	.driver = {
		.name = ARMV8_PMU_PDEV_NAME,
		.of_match_table = armv8pmu_of_match,
		.suppress_bind_attrs = true,
	},
};

static int __init armv8pmu_driver_init(void)
{
	int ret;

	ret = acpi_disabled ? platform_driver_register(&armv8pmu_driver) :
			      arm_pmu_acpi_probe(armv8pmu_acpi_init);

	if (ret)
		return ret;

	/* One switch for all PMUs, hence registered here and not per PMU */
	register_sysctl("kernel", armv8pmu_sysctls);

	/* A perf-based hard lockup detector may have given up before us */
	lockup_detector_retry_init();
	return 0;
}
device_initcall(armv8pmu_driver_init);

/*
 * Inside the page's sequence count, on the event's CPU: a reader that had
 * selected its counter with PMSELR_EL0 retries, so the selector may be
 * cleared here, and only here.
 */
static void armv8pmu_update_userpage(struct perf_event *event,
				     struct perf_event_mmap_page *userpg)
{
	if (event->pmu->event_idx != armv8pmu_user_index)
		return;

	userpg->cap_user_rdpmc = READ_ONCE(armv8pmu_user_access_on) &&
				 armv8pmu_event_rdpmc(event);
	userpg->pmc_width = event->hw.flags & ARMPMU_EVT_64BIT ? 64 : 32;
	if (userpg->index)
		write_pmselr(0);
}

/**
 * arch_perf_update_userpage() - fill the arm64 parts of the mmap page
 * @event: the event whose page is updated
 * @userpg: the page shared with userspace
 * @now: perf's current time, the base of time_enabled and time_running
 *
 * When sched_clock() is the architected counter, which EL0 can read too,
 * give userspace its conversion to extend times and stamp samples.
 */
void arch_perf_update_userpage(struct perf_event *event,
			       struct perf_event_mmap_page *userpg, u64 now)
{
	struct clock_read_data *rd;
	unsigned int seq;
	u64 cycles, mask, zero;
	u32 mult, shift;

	armv8pmu_update_userpage(event, userpg);

	do {
		rd = sched_clock_read_begin(&seq);
		if (rd->read_sched_clock != arch_timer_read_counter)
			return;

		mult = rd->mult;
		shift = rd->shift;
		cycles = rd->epoch_cyc;
		mask = rd->sched_clock_mask;
		zero = rd->epoch_ns;
	} while (sched_clock_read_retry(seq));

	/*
	 * The conversion as first published shifted a 32-bit value, so
	 * users expect time_shift below 32: trade one bit of precision.
	 */
	if (shift > 31) {
		mult >>= shift - 31;
		shift = 31;
	}
	zero -= mul_u64_u32_shr(cycles, mult, shift);

	userpg->cap_user_time = 1;
	userpg->cap_user_time_zero = 1;
	userpg->cap_user_time_short = 1;
	userpg->time_mult = mult;
	userpg->time_shift = shift;
	userpg->time_zero = zero;
	userpg->time_offset = zero - now;
	userpg->time_cycles = cycles;
	userpg->time_mask = mask;
}

/* The tests call the static functions above; the driver is never a module */
#if IS_ENABLED(CONFIG_ARM_PMUV3_KUNIT_TEST)
#include "arm_pmuv3_test.c"
#endif
