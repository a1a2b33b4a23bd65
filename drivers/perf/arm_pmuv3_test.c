// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for the PMUv3 driver's translation logic: attribute checks,
 * event mapping, exception level filters, counter allocation and the
 * user access (rdpmc) decisions.
 *
 * Built as part of arm_pmuv3.c (see the end of that file) so that the
 * static functions are tested as they are. Nothing here touches a PMU
 * register: the PMUs are fakes described by the profiles below.
 */

#include <kunit/test.h>

/* A dynamic PMU type number, as perf_pmu_register() would hand out */
#define TEST_PMU_TYPE		(PERF_TYPE_MAX + 16)

/* PMUVer encodings (ID_AA64DFR0_EL1 and ID_DFR0 agree) */
#define TEST_PMUVER_V3		0x1
#define TEST_PMUVER_V3P5	0x6
#define TEST_PMUVER_V3P9	0x9

#define TEST_EV(name)		BIT_ULL(ARMV8_PMUV3_PERFCTR_##name)
#define TEST_BASE_EVENTS	(TEST_EV(SW_INCR) | TEST_EV(L1D_CACHE_REFILL) |	\
				 TEST_EV(L1D_CACHE) | TEST_EV(INST_RETIRED) |	\
				 TEST_EV(BR_MIS_PRED) | TEST_EV(CPU_CYCLES) |	\
				 TEST_EV(BR_PRED) | TEST_EV(BR_RETIRED))

enum test_pmu_id {
	TEST_PMU_V3,		/* 32-bit counters, implements CHAIN */
	TEST_PMU_V3_NO_CHAIN,	/* 32-bit counters, no CHAIN (QEMU's A57) */
	TEST_PMU_V3P5,		/* 64-bit counters */
	TEST_PMU_V3P9,		/* 64-bit counters, thresholds, instruction counter */
};

static const struct test_pmu_profile {
	int pmuver;
	u64 common;		/* events 0x00-0x3f, as PMCEID announces them */
	u64 ext;		/* events 0x4000-0x403f */
	u32 thwidth;		/* PMMIR_EL1.THWIDTH */
	unsigned int nr_cntrs;
	bool icntr;
} test_pmu_profiles[] = {
	[TEST_PMU_V3] = {
		TEST_PMUVER_V3, TEST_BASE_EVENTS | TEST_EV(CHAIN), 0, 0, 6, false
	},
	[TEST_PMU_V3_NO_CHAIN] = {
		TEST_PMUVER_V3, TEST_BASE_EVENTS, 0, 0, 6, false
	},
	[TEST_PMU_V3P5] = {
		TEST_PMUVER_V3P5, TEST_BASE_EVENTS | TEST_EV(CHAIN), BIT_ULL(5), 0, 6, false
	},
	[TEST_PMU_V3P9] = {
		TEST_PMUVER_V3P9, TEST_BASE_EVENTS | TEST_EV(CHAIN), BIT_ULL(5), 8, 6, true
	},
};

static struct arm_pmu *test_pmu(struct kunit *test, enum test_pmu_id id)
{
	const struct test_pmu_profile *prof = &test_pmu_profiles[id];
	struct arm_pmu *cpu_pmu;

	cpu_pmu = kunit_kzalloc(test, sizeof(*cpu_pmu), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, cpu_pmu);

	cpu_pmu->pmu.type = TEST_PMU_TYPE;
	cpu_pmu->name = "armv8_pmuv3";
	cpu_pmu->pmuver = prof->pmuver;
	bitmap_from_u64(cpu_pmu->pmceid_bitmap, prof->common);
	bitmap_from_u64(cpu_pmu->pmceid_ext_bitmap, prof->ext);
	cpu_pmu->reg_pmmir = FIELD_PREP(ARMV8_PMU_THWIDTH, prof->thwidth);
	bitmap_set(cpu_pmu->cntr_mask, 0, prof->nr_cntrs);
	__set_bit(ARMV8_PMU_CYCLE_IDX, cpu_pmu->cntr_mask);
	if (prof->icntr)
		__set_bit(ARMV8_PMU_INSTR_IDX, cpu_pmu->cntr_mask);
	return cpu_pmu;
}

static struct perf_event *test_event(struct kunit *test, struct arm_pmu *cpu_pmu,
				     u32 type, u64 config, u64 config1)
{
	struct perf_event *event;

	event = kunit_kzalloc(test, sizeof(*event), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, event);

	event->pmu = &cpu_pmu->pmu;
	event->attr.type = type;
	event->attr.config = config;
	event->attr.config1 = config1;
	event->hw.idx = -1;
	return event;
}

/* What the framework's event_init does with our callbacks */
static int test_init_event(struct perf_event *event)
{
	int evnum = armv8pmu_validate_and_place(event);

	if (evnum < 0)
		return evnum;
	armv8pmu_event_filter_set(&event->hw, &event->attr);
	event->hw.config_base |= evnum;
	return evnum;
}

static int test_map(struct kunit *test, enum test_pmu_id id, u32 type,
		    u64 config, u64 config1)
{
	return test_init_event(test_event(test, test_pmu(test, id), type, config, config1));
}

/* Arch-neutral expectations would hide what the tests are about */
static int test_arm64_only(struct kunit *test)
{
	if (!IS_ENABLED(CONFIG_ARM64))
		kunit_skip(test, "expectations are those of an arm64 kernel");
	return 0;
}

/* ---- Exception level filters ---- */

#define TEST_U		BIT(0)
#define TEST_K		BIT(1)
#define TEST_HV		BIT(2)
#define TEST_HOST	BIT(3)
#define TEST_GUEST	BIT(4)

struct test_filter_case {
	bool vhe;
	u8 exclude;
	bool el0, el1, el2;	/* expected to count */
};

/*
 * Straight from the perf attribute rules: the kernel is EL1 on nVHE and
 * EL1+EL2 on VHE, exclude_hv is EL2 on nVHE and ignored on VHE.
 */
static const struct test_filter_case test_filter_cases[] = {
	{ false, 0,				true,  true,  true },
	{ false, TEST_HV,			true,  true,  false },
	{ false, TEST_K,			true,  false, true },
	{ false, TEST_K | TEST_HV,		true,  false, false },
	{ false, TEST_U,			false, true,  true },
	{ false, TEST_U | TEST_HV,		false, true,  false },
	{ false, TEST_U | TEST_K,		false, false, true },
	{ false, TEST_U | TEST_K | TEST_HV,	false, false, false },
	{ true,  0,				true,  true,  true },
	{ true,  TEST_HV,			true,  true,  true },
	{ true,  TEST_K,			true,  false, false },
	{ true,  TEST_K | TEST_HV,		true,  false, false },
	{ true,  TEST_U,			false, true,  true },
	{ true,  TEST_U | TEST_HV,		false, true,  true },
	{ true,  TEST_U | TEST_K,		false, false, false },
	{ true,  TEST_U | TEST_K | TEST_HV,	false, false, false },
	/* nVHE: KVM switches the counter, EL2 is left out for the host */
	{ false, TEST_HOST,			true,  true,  false },
	{ false, TEST_GUEST,			true,  true,  true },
	/* VHE: guests only run at EL1; the host at EL0 and EL2 */
	{ true,  TEST_HOST,			false, true,  false },
	{ true,  TEST_GUEST,			true,  false, true },
};

static void test_filter_desc(const struct test_filter_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s%s%s%s%s%s",
		 c->vhe ? "VHE" : "nVHE",
		 c->exclude & TEST_U ? " exclude_user" : "",
		 c->exclude & TEST_K ? " exclude_kernel" : "",
		 c->exclude & TEST_HV ? " exclude_hv" : "",
		 c->exclude & TEST_HOST ? " exclude_host" : "",
		 c->exclude & TEST_GUEST ? " exclude_guest" : "");
}

KUNIT_ARRAY_PARAM(test_filter, test_filter_cases, test_filter_desc);

static void test_el_filter_matches_attr_rules(struct kunit *test)
{
	const struct test_filter_case *c = test->param_value;
	struct perf_event_attr attr = {
		.exclude_user = !!(c->exclude & TEST_U),
		.exclude_kernel = !!(c->exclude & TEST_K),
		.exclude_hv = !!(c->exclude & TEST_HV),
		.exclude_host = !!(c->exclude & TEST_HOST),
		.exclude_guest = !!(c->exclude & TEST_GUEST),
	};
	u32 want = (c->el0 ? 0 : ARMV8_PMU_EXCLUDE_EL0) |
		   (c->el1 ? 0 : ARMV8_PMU_EXCLUDE_EL1) |
		   (c->el2 ? ARMV8_PMU_INCLUDE_EL2 : 0);

	KUNIT_EXPECT_EQ(test, armv8pmu_el_filter(&attr, c->vhe), want);
}

static void test_filter_lands_in_config_base(struct kunit *test)
{
	struct perf_event *event;

	event = test_event(test, test_pmu(test, TEST_PMU_V3), PERF_TYPE_RAW,
			   ARMV8_PMUV3_PERFCTR_INST_RETIRED, 0);
	event->attr.exclude_user = 1;
	KUNIT_ASSERT_EQ(test, test_init_event(event), ARMV8_PMUV3_PERFCTR_INST_RETIRED);

	KUNIT_EXPECT_TRUE(test, event->hw.config_base & ARMV8_PMU_EXCLUDE_EL0);
	KUNIT_EXPECT_EQ(test, event->hw.config_base & ARMV8_PMU_EVTYPE_EVENT,
			ARMV8_PMUV3_PERFCTR_INST_RETIRED);
}

/* ---- Event mapping ---- */

#define TEST_CACHE(c, op, res)	(PERF_COUNT_HW_CACHE_##c |			\
				 PERF_COUNT_HW_CACHE_OP_##op << 8 |		\
				 PERF_COUNT_HW_CACHE_RESULT_##res << 16)

struct test_map_case {
	const char *desc;
	enum test_pmu_id pmu;
	u32 type;
	u64 config;
	int want;		/* event number, or errno */
};

static const struct test_map_case test_map_cases[] = {
	{ "cycles is CPU_CYCLES", TEST_PMU_V3, PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_CPU_CYCLES, ARMV8_PMUV3_PERFCTR_CPU_CYCLES },
	{ "instructions is INST_RETIRED", TEST_PMU_V3, PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_INSTRUCTIONS, ARMV8_PMUV3_PERFCTR_INST_RETIRED },
	{ "branches is BR_RETIRED", TEST_PMU_V3, PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_BRANCH_INSTRUCTIONS, ARMV8_PMUV3_PERFCTR_BR_RETIRED },
	{ "branch-misses is BR_MIS_PRED", TEST_PMU_V3, PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_BRANCH_MISSES, ARMV8_PMUV3_PERFCTR_BR_MIS_PRED },
	{ "ref-cycles has no event", TEST_PMU_V3, PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_REF_CPU_CYCLES, -ENOENT },
	{ "bus-cycles not in PMCEID", TEST_PMU_V3, PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_BUS_CYCLES, -ENOENT },
	{ "L1D read miss is L1D_CACHE_REFILL", TEST_PMU_V3, PERF_TYPE_HW_CACHE,
	  TEST_CACHE(L1D, READ, MISS), ARMV8_PMUV3_PERFCTR_L1D_CACHE_REFILL },
	{ "BPU read access is BR_PRED", TEST_PMU_V3, PERF_TYPE_HW_CACHE,
	  TEST_CACHE(BPU, READ, ACCESS), ARMV8_PMUV3_PERFCTR_BR_PRED },
	{ "L1D write has no event", TEST_PMU_V3, PERF_TYPE_HW_CACHE,
	  TEST_CACHE(L1D, WRITE, ACCESS), -ENOENT },
	{ "raw IMPDEF event passes through", TEST_PMU_V3, PERF_TYPE_RAW, 0x00c5, 0x00c5 },
	{ "PMU type IMPDEF event passes through", TEST_PMU_V3, TEST_PMU_TYPE, 0xbeef, 0xbeef },
	{ "raw common event passes through", TEST_PMU_V3, TEST_PMU_TYPE,
	  ARMV8_PMUV3_PERFCTR_BR_MIS_PRED, ARMV8_PMUV3_PERFCTR_BR_MIS_PRED },
	{ "extended event announced by PMCEID", TEST_PMU_V3P5, PERF_TYPE_RAW,
	  ARMV8_AMU_PERFCTR_STALL_BACKEND_MEM, ARMV8_AMU_PERFCTR_STALL_BACKEND_MEM },
	{ "raw extended event not announced opens", TEST_PMU_V3P5, PERF_TYPE_RAW,
	  ARMV8_AMU_PERFCTR_CNT_CYCLES, ARMV8_AMU_PERFCTR_CNT_CYCLES },
	{ "raw CHAIN refused", TEST_PMU_V3, PERF_TYPE_RAW, ARMV8_PMUV3_PERFCTR_CHAIN, -EINVAL },
};

KUNIT_ARRAY_PARAM_DESC(test_map, test_map_cases, desc);

static void test_event_mapping(struct kunit *test)
{
	const struct test_map_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, test_map(test, c->pmu, c->type, c->config, 0), c->want);
}

/* ---- Attribute checks ---- */

struct test_attr_case {
	const char *desc;
	enum test_pmu_id pmu;
	u64 config, config1, config2;
	bool exclude_idle;
	int err;
};

#define TEST_TH(n)		FIELD_PREP_CONST(ARMV8PMU_CFG1_THRESHOLD, n)
#define TEST_CYCLES		ARMV8_PMUV3_PERFCTR_CPU_CYCLES
#define TEST_INST		ARMV8_PMUV3_PERFCTR_INST_RETIRED

static const struct test_attr_case test_attr_cases[] = {
	{ "plain raw event", TEST_PMU_V3, TEST_CYCLES, 0, 0, false, 0 },
	{ "config bit 16 reserved", TEST_PMU_V3, BIT(16) | TEST_CYCLES, 0, 0, false, -EINVAL },
	{ "config1 bit 17 reserved", TEST_PMU_V3, TEST_CYCLES, BIT(17), 0, false, -EINVAL },
	{ "config2 reserved", TEST_PMU_V3, TEST_CYCLES, 0, 1, false, -EINVAL },
	{ "CHAIN refused", TEST_PMU_V3, ARMV8_PMUV3_PERFCTR_CHAIN, 0, 0, false, -EINVAL },
	{ "unimplemented raw common event opens", TEST_PMU_V3, ARMV8_PMUV3_PERFCTR_STALL_SLOT,
	  0, 0, false, 0 },
	{ "IMPDEF event trusted", TEST_PMU_V3, 0x00c0, 0, 0, false, 0 },
	{ "exclude_idle", TEST_PMU_V3, TEST_CYCLES, 0, 0, true, -EOPNOTSUPP },
	{ "rdpmc on a CPU-wide event", TEST_PMU_V3P5, TEST_CYCLES, ARMV8PMU_CFG1_RDPMC, 0,
	  false, -EINVAL },
	{ "long with CHAIN", TEST_PMU_V3, TEST_CYCLES, ARMV8PMU_CFG1_LONG, 0, false, 0 },
	{ "long without CHAIN", TEST_PMU_V3_NO_CHAIN, ARMV8_PMUV3_PERFCTR_INST_RETIRED,
	  ARMV8PMU_CFG1_LONG, 0, false, -EOPNOTSUPP },
	{ "long cycles without CHAIN", TEST_PMU_V3_NO_CHAIN, TEST_CYCLES,
	  ARMV8PMU_CFG1_LONG, 0, false, 0 },
	{ "long with 64-bit counters", TEST_PMU_V3P5, TEST_CYCLES, ARMV8PMU_CFG1_LONG, 0,
	  false, 0 },
	{ "threshold without FEAT_PMUv3_TH", TEST_PMU_V3P5, TEST_CYCLES, TEST_TH(1), 0,
	  false, -EOPNOTSUPP },
	{ "threshold at threshold_max", TEST_PMU_V3P9, TEST_CYCLES, TEST_TH(255), 0,
	  false, 0 },
	{ "threshold above threshold_max", TEST_PMU_V3P9, TEST_CYCLES, TEST_TH(256), 0,
	  false, -EINVAL },
	{ "compare without threshold ignored", TEST_PMU_V3P5, TEST_CYCLES,
	  ARMV8PMU_CFG1_TC, 0, false, 0 },
};

KUNIT_ARRAY_PARAM_DESC(test_attr, test_attr_cases, desc);

static void test_attr_errno(struct kunit *test)
{
	const struct test_attr_case *c = test->param_value;
	struct perf_event *event;
	int ret;

	event = test_event(test, test_pmu(test, c->pmu), TEST_PMU_TYPE, c->config,
			   c->config1);
	event->attr.config2 = c->config2;
	event->attr.exclude_idle = c->exclude_idle;

	ret = test_init_event(event);
	KUNIT_EXPECT_EQ(test, ret < 0 ? ret : 0, c->err);
}

/* ---- Direct user access (rdpmc) ---- */

#define TEST_RDPMC		ARMV8PMU_CFG1_RDPMC
#define TEST_RDPMC_LONG		(ARMV8PMU_CFG1_RDPMC | ARMV8PMU_CFG1_LONG)

/* PERF_TYPE_HARDWARE is 0, so the PMU's own type needs a marker of its own */
#define TEST_OWN_TYPE		U32_MAX

struct test_user_case {
	const char *desc;
	enum test_pmu_id pmu;
	u32 type;
	u64 config1;
	u32 evnum;
	bool task_bound;
	unsigned int nr_pmus;
	int err;
};

static const struct test_user_case test_user_cases[] = {
	{ "task event, own type", TEST_PMU_V3, TEST_OWN_TYPE, TEST_RDPMC, TEST_INST, true, 1,
	  0 },
	{ "task event, raw type, one PMU", TEST_PMU_V3, PERF_TYPE_RAW, TEST_RDPMC, TEST_INST,
	  true, 1, 0 },
	{ "task event, generic type, one PMU", TEST_PMU_V3, PERF_TYPE_HARDWARE, TEST_RDPMC,
	  TEST_INST, true, 1, 0 },
	{ "CPU-wide event", TEST_PMU_V3P5, TEST_OWN_TYPE, TEST_RDPMC, TEST_INST, false, 1,
	  -EINVAL },
	/* perf core binds a generic event to one PMU, the one it names if any */
	{ "generic type, two PMUs", TEST_PMU_V3P5, PERF_TYPE_HARDWARE, TEST_RDPMC, TEST_INST,
	  true, 2, 0 },
	{ "generic cache type, two PMUs", TEST_PMU_V3P5, PERF_TYPE_HW_CACHE, TEST_RDPMC,
	  TEST_INST, true, 2, 0 },
	{ "raw type, two PMUs", TEST_PMU_V3P5, PERF_TYPE_RAW, TEST_RDPMC, TEST_INST, true, 2,
	  -EOPNOTSUPP },
	{ "own type, two PMUs", TEST_PMU_V3P5, TEST_OWN_TYPE, TEST_RDPMC, TEST_INST, true, 2,
	  0 },
	{ "long with 64-bit counters", TEST_PMU_V3P5, TEST_OWN_TYPE, TEST_RDPMC_LONG, TEST_INST,
	  true, 1, 0 },
	{ "long with CHAIN only", TEST_PMU_V3, TEST_OWN_TYPE, TEST_RDPMC_LONG, TEST_INST, true,
	  1, -EOPNOTSUPP },
	{ "long without CHAIN", TEST_PMU_V3_NO_CHAIN, TEST_OWN_TYPE, TEST_RDPMC_LONG, TEST_INST,
	  true, 1, -EOPNOTSUPP },
	/* The cycle counter is 64 bits wide on every PMUv3 */
	{ "long cycles with CHAIN only", TEST_PMU_V3, TEST_OWN_TYPE, TEST_RDPMC_LONG,
	  TEST_CYCLES, true, 1, 0 },
	{ "long cycles without CHAIN", TEST_PMU_V3_NO_CHAIN, TEST_OWN_TYPE, TEST_RDPMC_LONG,
	  TEST_CYCLES, true, 1, 0 },
};

KUNIT_ARRAY_PARAM_DESC(test_user, test_user_cases, desc);

static void test_user_access_errno(struct kunit *test)
{
	const struct test_user_case *c = test->param_value;
	struct perf_event_attr attr = {
		.type = c->type == TEST_OWN_TYPE ? TEST_PMU_TYPE : c->type,
		.config1 = c->config1,
	};

	KUNIT_EXPECT_EQ(test, armv8pmu_check_user_access(test_pmu(test, c->pmu), &attr, c->evnum,
							 c->task_bound, c->nr_pmus),
			c->err);
}

/* Through event_init: the task-bound state comes from the event itself */
static void test_user_access_needs_task(struct kunit *test)
{
	struct arm_pmu *cpu_pmu = test_pmu(test, TEST_PMU_V3P5);
	struct perf_event *event;

	event = test_event(test, cpu_pmu, TEST_PMU_TYPE, TEST_CYCLES, TEST_RDPMC);
	KUNIT_EXPECT_EQ(test, test_init_event(event), -EINVAL);

	event = test_event(test, cpu_pmu, TEST_PMU_TYPE, TEST_CYCLES, TEST_RDPMC);
	event->attach_state = PERF_ATTACH_TASK;
	KUNIT_EXPECT_EQ(test, test_init_event(event), TEST_CYCLES);
}

/* A 32-bit user reader masks the counter: the kernel must wrap at 32 too */
static void test_user_access_width_follows_long(struct kunit *test)
{
	struct arm_pmu *cpu_pmu = test_pmu(test, TEST_PMU_V3P5);
	struct perf_event *event;

	event = test_event(test, cpu_pmu, TEST_PMU_TYPE, TEST_CYCLES, TEST_RDPMC);
	event->attach_state = PERF_ATTACH_TASK;
	KUNIT_ASSERT_GE(test, test_init_event(event), 0);
	KUNIT_EXPECT_FALSE(test, event->hw.flags & ARMPMU_EVT_64BIT);

	event = test_event(test, cpu_pmu, TEST_PMU_TYPE, TEST_CYCLES, TEST_RDPMC_LONG);
	event->attach_state = PERF_ATTACH_TASK;
	KUNIT_ASSERT_GE(test, test_init_event(event), 0);
	KUNIT_EXPECT_TRUE(test, event->hw.flags & ARMPMU_EVT_64BIT);
}

/* perf's user page has no index for PMICNTR_EL0 */
static void test_user_access_avoids_instruction_counter(struct kunit *test)
{
	struct arm_pmu *cpu_pmu = test_pmu(test, TEST_PMU_V3P9);
	struct perf_event_attr attr = { .config1 = TEST_RDPMC };

	KUNIT_EXPECT_EQ(test, armv8pmu_dedicated_counter(cpu_pmu, &attr,
							 ARMV8_PMUV3_PERFCTR_INST_RETIRED), -1);
	KUNIT_EXPECT_EQ(test, armv8pmu_dedicated_counter(cpu_pmu, &attr,
							 ARMV8_PMUV3_PERFCTR_CPU_CYCLES),
			ARMV8_PMU_CYCLE_IDX);
}

/* PMCCNTR_EL0's overflow does not freeze BRBE: branch stacks stay off it */
static void test_branch_stack_avoids_cycle_counter(struct kunit *test)
{
	struct arm_pmu *cpu_pmu = test_pmu(test, TEST_PMU_V3P5);
	struct perf_event_attr attr = { .sample_type = PERF_SAMPLE_BRANCH_STACK };

	KUNIT_EXPECT_EQ(test, armv8pmu_dedicated_counter(cpu_pmu, &attr,
							 ARMV8_PMUV3_PERFCTR_CPU_CYCLES), -1);
	attr.sample_type = PERF_SAMPLE_IP;
	KUNIT_EXPECT_EQ(test, armv8pmu_dedicated_counter(cpu_pmu, &attr,
							 ARMV8_PMUV3_PERFCTR_CPU_CYCLES),
			ARMV8_PMU_CYCLE_IDX);
}

/*
 * With BRBE a guest-only cycles event (KVM's, for a guest counter) stays
 * off PMCCNTR_EL0 too: the guest's branch records freeze on its overflow
 */
static void test_guest_cycles_avoid_cycle_counter_with_brbe(struct kunit *test)
{
	struct arm_pmu *cpu_pmu = test_pmu(test, TEST_PMU_V3P5);
	struct perf_event_attr attr = { .exclude_host = 1 };

	KUNIT_EXPECT_EQ(test, armv8pmu_dedicated_counter(cpu_pmu, &attr,
							 ARMV8_PMUV3_PERFCTR_CPU_CYCLES),
			ARMV8_PMU_CYCLE_IDX);
	cpu_pmu->branch_stack_add_del = brbe_add_del;
	KUNIT_EXPECT_EQ(test, armv8pmu_dedicated_counter(cpu_pmu, &attr,
							 ARMV8_PMUV3_PERFCTR_CPU_CYCLES), -1);
	attr.exclude_host = 0;
	KUNIT_EXPECT_EQ(test, armv8pmu_dedicated_counter(cpu_pmu, &attr,
							 ARMV8_PMUV3_PERFCTR_CPU_CYCLES),
			ARMV8_PMU_CYCLE_IDX);
}

static void test_user_index_is_counter_plus_one(struct kunit *test)
{
	struct arm_pmu *cpu_pmu = test_pmu(test, TEST_PMU_V3P5);
	struct perf_event *event;
	int saved = armv8pmu_user_access_on;

	event = test_event(test, cpu_pmu, TEST_PMU_TYPE, TEST_CYCLES, TEST_RDPMC);
	event->hw.idx = ARMV8_PMU_CYCLE_IDX;

	WRITE_ONCE(armv8pmu_user_access_on, 0);
	KUNIT_EXPECT_EQ(test, armv8pmu_user_index(event), 0);
	WRITE_ONCE(armv8pmu_user_access_on, 1);
	KUNIT_EXPECT_EQ(test, armv8pmu_user_index(event), 32);
	event->hw.idx = 0;
	KUNIT_EXPECT_EQ(test, armv8pmu_user_index(event), 1);
	event->attr.config1 = 0;
	KUNIT_EXPECT_EQ(test, armv8pmu_user_index(event), 0);
	WRITE_ONCE(armv8pmu_user_access_on, saved);
}

/* ---- Counter width and threshold encoding ---- */

struct test_width_case {
	const char *desc;
	enum test_pmu_id pmu;
	u64 config1;
	bool wide;
};

static const struct test_width_case test_width_cases[] = {
	{ "plain event is 32-bit on PMUv3", TEST_PMU_V3, 0, false },
	{ "long event is 64-bit on PMUv3", TEST_PMU_V3, ARMV8PMU_CFG1_LONG, true },
	{ "plain event is 64-bit on PMUv3p5", TEST_PMU_V3P5, 0, true },
};

KUNIT_ARRAY_PARAM_DESC(test_width, test_width_cases, desc);

static void test_counter_width(struct kunit *test)
{
	const struct test_width_case *c = test->param_value;
	struct perf_event *event;

	event = test_event(test, test_pmu(test, c->pmu), PERF_TYPE_RAW, TEST_CYCLES, c->config1);
	KUNIT_ASSERT_GE(test, test_init_event(event), 0);
	KUNIT_EXPECT_EQ(test, !!(event->hw.flags & ARMPMU_EVT_64BIT), c->wide);
}

static void test_threshold_fields_fill_th_and_tc(struct kunit *test)
{
	struct perf_event_attr attr = {
		.config1 = TEST_TH(5) | FIELD_PREP(ARMV8PMU_CFG1_TH_COMPARE, 2) |
			   ARMV8PMU_CFG1_TH_COUNT,
	};
	u64 bits = armv8pmu_threshold_bits(&attr);

	KUNIT_EXPECT_EQ(test, FIELD_GET(ARMV8_PMU_EVTYPE_TH, bits), 5);
	/* Greater-than-or-equal, counting one per cycle: TC = 0b101 */
	KUNIT_EXPECT_EQ(test, FIELD_GET(ARMV8_PMU_EVTYPE_TC, bits), 0x5);
}

static void test_zero_threshold_leaves_evtype_alone(struct kunit *test)
{
	struct perf_event_attr attr = { .config1 = ARMV8PMU_CFG1_TC };

	KUNIT_EXPECT_EQ(test, armv8pmu_threshold_bits(&attr), 0);
}

static void test_caps_decode_pmmir(struct kunit *test)
{
	struct arm_pmu *cpu_pmu = test_pmu(test, TEST_PMU_V3P9);

	cpu_pmu->reg_pmmir |= FIELD_PREP(ARMV8_PMU_SLOTS, 4) |
			      FIELD_PREP(ARMV8_PMU_BUS_SLOTS, 2) |
			      FIELD_PREP(ARMV8_PMU_BUS_WIDTH, 4);

	KUNIT_EXPECT_EQ(test, armv8pmu_cap_value(cpu_pmu, ARMV8PMU_CAP_SLOTS), 4);
	KUNIT_EXPECT_EQ(test, armv8pmu_cap_value(cpu_pmu, ARMV8PMU_CAP_BUS_SLOTS), 2);
	KUNIT_EXPECT_EQ(test, armv8pmu_cap_value(cpu_pmu, ARMV8PMU_CAP_BUS_WIDTH), 8);
	KUNIT_EXPECT_EQ(test, armv8pmu_cap_value(cpu_pmu, ARMV8PMU_CAP_THRESHOLD_MAX), 255);
}

static void test_caps_unknown_bus_width_reads_zero(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, armv8pmu_bus_width_bytes(0), 0);
	KUNIT_EXPECT_EQ(test, armv8pmu_bus_width_bytes(FIELD_PREP(ARMV8_PMU_BUS_WIDTH, 13)), 0);
}

/* ---- Counter allocation ---- */

static struct pmu_hw_events *test_cpuc(struct kunit *test)
{
	struct pmu_hw_events *cpuc = kunit_kzalloc(test, sizeof(*cpuc), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, cpuc);
	return cpuc;
}

/* Initialise a raw event and place it the way armpmu_add() does */
static int test_add(struct kunit *test, struct pmu_hw_events *cpuc,
		    struct arm_pmu *cpu_pmu, u64 config, u64 config1)
{
	struct perf_event *event = test_event(test, cpu_pmu, PERF_TYPE_RAW, config, config1);
	int idx;

	KUNIT_ASSERT_GE(test, test_init_event(event), 0);
	idx = armv8pmu_counter_alloc(cpuc, event);
	event->hw.idx = idx;
	return idx;
}

/* Put event on counter idx of cpuc, as the framework's add does */
static void test_place(struct pmu_hw_events *cpuc, struct perf_event *event,
		       int idx, bool task_bound)
{
	event->hw.idx = idx;
	event->attach_state = task_bound ? PERF_ATTACH_TASK : 0;
	cpuc->events[idx] = event;
	__set_bit(idx, cpuc->used_mask);
}

/*
 * With FEAT_PMUv3p9, EL0 is given the running task's rdpmc counters only:
 * a CPU-wide event's counter stays out of PMUACR, and so does one that
 * counts the task for someone else, whatever else is on.
 */
static void test_pmuacr_names_only_task_counters(struct kunit *test)
{
	struct arm_pmu *cpu_pmu = test_pmu(test, TEST_PMU_V3P9);
	struct pmu_hw_events *cpuc = test_cpuc(test);

	test_place(cpuc, test_event(test, cpu_pmu, PERF_TYPE_RAW, TEST_INST, TEST_RDPMC), 0, true);
	test_place(cpuc, test_event(test, cpu_pmu, PERF_TYPE_RAW, TEST_INST, 0), 2, false);
	test_place(cpuc, test_event(test, cpu_pmu, PERF_TYPE_RAW, TEST_CYCLES, TEST_RDPMC),
		   ARMV8_PMU_CYCLE_IDX, true);
	test_place(cpuc, test_event(test, cpu_pmu, PERF_TYPE_RAW, TEST_INST, 0),
		   ARMV8_PMU_INSTR_IDX, false);
	/* Counting the task without rdpmc: root's perf stat -p, KVM's vPMU */
	test_place(cpuc, test_event(test, cpu_pmu, PERF_TYPE_RAW, TEST_INST, 0), 1, true);

	KUNIT_EXPECT_EQ(test, armv8pmu_task_counters(cpuc),
			BIT_ULL(0) | BIT_ULL(ARMV8_PMU_CYCLE_IDX));
	KUNIT_EXPECT_TRUE(test, armv8pmu_has_pmuacr(cpu_pmu));
	KUNIT_EXPECT_FALSE(test, armv8pmu_has_pmuacr(test_pmu(test, TEST_PMU_V3P5)));
}

/*
 * A chained pair is one event on two counters: both are the task's, or
 * EL0 would be kept off the hardware (and read 0 for the low half).
 */
static void test_task_counters_cover_both_halves_of_pair(struct kunit *test)
{
	struct arm_pmu *cpu_pmu = test_pmu(test, TEST_PMU_V3);
	struct pmu_hw_events *cpuc = test_cpuc(test);
	struct perf_event *pair = test_event(test, cpu_pmu, PERF_TYPE_RAW, TEST_INST, TEST_RDPMC);

	pair->hw.flags |= ARMV8PMU_EVT_PAIR;
	test_place(cpuc, pair, 3, true);
	__set_bit(2, cpuc->used_mask);
	test_place(cpuc, test_event(test, cpu_pmu, PERF_TYPE_RAW, TEST_INST, 0), 4, false);

	KUNIT_EXPECT_EQ(test, armv8pmu_task_counters(cpuc), BIT_ULL(2) | BIT_ULL(3));
}

static void test_cycles_take_cycle_counter(struct kunit *test)
{
	struct pmu_hw_events *cpuc = test_cpuc(test);
	struct arm_pmu *cpu_pmu = test_pmu(test, TEST_PMU_V3);

	KUNIT_EXPECT_EQ(test, test_add(test, cpuc, cpu_pmu, TEST_CYCLES, 0),
			ARMV8_PMU_CYCLE_IDX);
	/* Once it is taken, cycles go to an event counter */
	KUNIT_EXPECT_EQ(test, test_add(test, cpuc, cpu_pmu, TEST_CYCLES, 0), 0);
}

/* A PMU of SMT cores leaves the cycle counter out: cycles count on another */
static void test_smt_cycles_take_event_counter(struct kunit *test)
{
	struct pmu_hw_events *cpuc = test_cpuc(test);
	struct arm_pmu *cpu_pmu = test_pmu(test, TEST_PMU_V3);

	__clear_bit(ARMV8_PMU_CYCLE_IDX, cpu_pmu->cntr_mask);
	KUNIT_EXPECT_EQ(test, test_add(test, cpuc, cpu_pmu, TEST_CYCLES, 0), 0);
	KUNIT_EXPECT_EQ(test, test_add(test, cpuc, cpu_pmu, TEST_CYCLES, 0), 1);
}

static void test_threshold_cycles_avoid_cycle_counter(struct kunit *test)
{
	struct pmu_hw_events *cpuc = test_cpuc(test);
	struct arm_pmu *cpu_pmu = test_pmu(test, TEST_PMU_V3P9);

	KUNIT_EXPECT_EQ(test, test_add(test, cpuc, cpu_pmu, TEST_CYCLES, TEST_TH(2)), 0);
}

static void test_instructions_take_instruction_counter(struct kunit *test)
{
	struct pmu_hw_events *cpuc = test_cpuc(test);

	KUNIT_EXPECT_EQ(test, test_add(test, cpuc, test_pmu(test, TEST_PMU_V3P9), TEST_INST, 0),
			ARMV8_PMU_INSTR_IDX);
}

static void test_instructions_without_icntr_take_event_counter(struct kunit *test)
{
	struct pmu_hw_events *cpuc = test_cpuc(test);

	KUNIT_EXPECT_EQ(test, test_add(test, cpuc, test_pmu(test, TEST_PMU_V3P5), TEST_INST, 0),
			0);
}

static void test_event_counters_fill_then_eagain(struct kunit *test)
{
	struct pmu_hw_events *cpuc = test_cpuc(test);
	struct arm_pmu *cpu_pmu = test_pmu(test, TEST_PMU_V3);
	int i;

	for (i = 0; i < test_pmu_profiles[TEST_PMU_V3].nr_cntrs; i++)
		KUNIT_EXPECT_EQ(test, test_add(test, cpuc, cpu_pmu, TEST_INST, 0), i);
	KUNIT_EXPECT_EQ(test, test_add(test, cpuc, cpu_pmu, TEST_INST, 0), -EAGAIN);
}

static void test_long_event_takes_even_odd_pair(struct kunit *test)
{
	struct pmu_hw_events *cpuc = test_cpuc(test);
	struct arm_pmu *cpu_pmu = test_pmu(test, TEST_PMU_V3);

	__set_bit(0, cpuc->used_mask);
	/* Counter 1 is free but has no free even partner: the pair is 2+3 */
	KUNIT_EXPECT_EQ(test, test_add(test, cpuc, cpu_pmu, TEST_INST, ARMV8PMU_CFG1_LONG), 3);
	KUNIT_EXPECT_EQ(test, cpuc->used_mask[0], GENMASK(3, 2) | BIT(0));
}

static void test_long_event_pair_from_fragmented_mask(struct kunit *test)
{
	struct pmu_hw_events *cpuc = test_cpuc(test);
	struct arm_pmu *cpu_pmu = test_pmu(test, TEST_PMU_V3);

	__set_bit(0, cpuc->used_mask);
	__set_bit(3, cpuc->used_mask);
	KUNIT_EXPECT_EQ(test, test_add(test, cpuc, cpu_pmu, TEST_INST, ARMV8PMU_CFG1_LONG), 5);
}

static void test_long_event_eagain_without_whole_pair(struct kunit *test)
{
	struct pmu_hw_events *cpuc = test_cpuc(test);
	struct arm_pmu *cpu_pmu = test_pmu(test, TEST_PMU_V3);

	/* Three free counters, but no two of them form a pair */
	bitmap_set(cpuc->used_mask, 0, 1);
	bitmap_set(cpuc->used_mask, 2, 1);
	bitmap_set(cpuc->used_mask, 4, 1);
	KUNIT_EXPECT_EQ(test, test_add(test, cpuc, cpu_pmu, TEST_INST, ARMV8PMU_CFG1_LONG),
			-EAGAIN);
}

static void test_long_cycles_take_cycle_counter(struct kunit *test)
{
	struct pmu_hw_events *cpuc = test_cpuc(test);
	struct arm_pmu *cpu_pmu = test_pmu(test, TEST_PMU_V3);

	KUNIT_EXPECT_EQ(test, test_add(test, cpuc, cpu_pmu, TEST_CYCLES, ARMV8PMU_CFG1_LONG),
			ARMV8_PMU_CYCLE_IDX);
}

static void test_long_cycles_without_chain_wait_for_cycle_counter(struct kunit *test)
{
	struct pmu_hw_events *cpuc = test_cpuc(test);
	struct arm_pmu *cpu_pmu = test_pmu(test, TEST_PMU_V3_NO_CHAIN);

	KUNIT_EXPECT_EQ(test, test_add(test, cpuc, cpu_pmu, TEST_CYCLES, ARMV8PMU_CFG1_LONG),
			ARMV8_PMU_CYCLE_IDX);
	/* A pair of event counters could not count past 32 bits: no fallback */
	KUNIT_EXPECT_EQ(test, test_add(test, cpuc, cpu_pmu, TEST_CYCLES, ARMV8PMU_CFG1_LONG),
			-EAGAIN);
	KUNIT_EXPECT_EQ(test, cpuc->used_mask[0], BIT(ARMV8_PMU_CYCLE_IDX));
}

/* A user reader cannot read a chained pair: long rdpmc cycles never get one */
static void test_long_rdpmc_cycles_wait_for_cycle_counter(struct kunit *test)
{
	struct pmu_hw_events *cpuc = test_cpuc(test);
	struct arm_pmu *cpu_pmu = test_pmu(test, TEST_PMU_V3);
	struct perf_event *event;
	int i;

	for (i = 0; i < 2; i++) {
		event = test_event(test, cpu_pmu, TEST_PMU_TYPE, TEST_CYCLES, TEST_RDPMC_LONG);
		event->attach_state = PERF_ATTACH_TASK;
		KUNIT_ASSERT_EQ(test, test_init_event(event), TEST_CYCLES);
		KUNIT_EXPECT_EQ(test, armv8pmu_counter_alloc(cpuc, event),
				i ? -EAGAIN : ARMV8_PMU_CYCLE_IDX);
	}
	KUNIT_EXPECT_EQ(test, cpuc->used_mask[0], BIT(ARMV8_PMU_CYCLE_IDX));
}

static void test_long_event_single_counter_on_pmuv3p5(struct kunit *test)
{
	struct pmu_hw_events *cpuc = test_cpuc(test);
	struct arm_pmu *cpu_pmu = test_pmu(test, TEST_PMU_V3P5);

	KUNIT_EXPECT_EQ(test, test_add(test, cpuc, cpu_pmu, TEST_INST, ARMV8PMU_CFG1_LONG), 0);
	KUNIT_EXPECT_EQ(test, test_add(test, cpuc, cpu_pmu, TEST_INST, ARMV8PMU_CFG1_LONG), 1);
}

static void test_clear_releases_both_halves_of_pair(struct kunit *test)
{
	struct pmu_hw_events *cpuc = test_cpuc(test);
	struct arm_pmu *cpu_pmu = test_pmu(test, TEST_PMU_V3);
	struct perf_event *event;

	event = test_event(test, cpu_pmu, PERF_TYPE_RAW, TEST_INST, ARMV8PMU_CFG1_LONG);
	KUNIT_ASSERT_GE(test, test_init_event(event), 0);
	event->hw.idx = armv8pmu_counter_alloc(cpuc, event);
	KUNIT_ASSERT_EQ(test, event->hw.idx, 1);

	KUNIT_EXPECT_EQ(test, armv8pmu_event_cntrs(event), GENMASK_ULL(1, 0));
	armv8pmu_counter_free(cpuc, event);
	KUNIT_EXPECT_TRUE(test, bitmap_empty(cpuc->used_mask, ARMPMU_MAX_HWEVENTS));
}

/* ---- sysfs ABI ---- */

/* What perf parses in format/: user ABI, written out here on purpose */
static const struct {
	const char *name;
	const char *show;
} test_formats[] = {
	{ "event",		"config:0-15\n" },
	{ "long",		"config1:0\n" },
	{ "rdpmc",		"config1:1\n" },
	{ "threshold_count",	"config1:2\n" },
	{ "threshold_compare",	"config1:3-4\n" },
	{ "threshold",		"config1:5-16\n" },
};

static void test_format_files_keep_the_abi(struct kunit *test)
{
	char *page = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, page);
	KUNIT_ASSERT_EQ(test, ARRAY_SIZE(armv8pmu_format_attrs), ARRAY_SIZE(test_formats) + 1);
	for (i = 0; i < ARRAY_SIZE(test_formats); i++) {
		struct device_attribute *attr;

		attr = container_of(armv8pmu_format_attrs[i], struct device_attribute, attr);
		KUNIT_EXPECT_STREQ(test, attr->attr.name, test_formats[i].name);
		KUNIT_EXPECT_EQ(test, attr->show(NULL, attr, page),
				(ssize_t)strlen(test_formats[i].show));
		KUNIT_EXPECT_STREQ(test, page, test_formats[i].show);
	}
}

/* ---- Probe tables ---- */

/*
 * Each compatible's PMU name, its match data, ends with the compatible's
 * model ("arm,cortex-a57-pmu" names "armv8_cortex_a57"): a name pasted
 * against the wrong line shows.
 */
static bool test_ends_with(const char *str, const char *suffix)
{
	size_t len = strlen(str), slen = strlen(suffix);

	return len >= slen && !strcmp(str + len - slen, suffix);
}

static void test_dt_names_match_compatibles(struct kunit *test)
{
	const struct of_device_id *id;

	for (id = armv8pmu_of_match; id->compatible[0]; id++) {
		char model[32];

		strscpy(model, strchr(id->compatible, ',') + 1);
		if (test_ends_with(model, "-pmu"))
			model[strlen(model) - 4] = '\0';
		strreplace(model, '-', '_');

		KUNIT_EXPECT_TRUE_MSG(test, test_ends_with(id->data, model),
				      "%s registers as %s", id->compatible,
				      (const char *)id->data);
	}
}

static struct kunit_case armv8pmu_test_cases[] = {
	KUNIT_CASE_PARAM(test_el_filter_matches_attr_rules, test_filter_gen_params),
	KUNIT_CASE(test_filter_lands_in_config_base),
	KUNIT_CASE_PARAM(test_event_mapping, test_map_gen_params),
	KUNIT_CASE_PARAM(test_attr_errno, test_attr_gen_params),
	KUNIT_CASE_PARAM(test_user_access_errno, test_user_gen_params),
	KUNIT_CASE(test_user_access_needs_task),
	KUNIT_CASE(test_user_access_width_follows_long),
	KUNIT_CASE(test_user_access_avoids_instruction_counter),
	KUNIT_CASE(test_branch_stack_avoids_cycle_counter),
	KUNIT_CASE(test_guest_cycles_avoid_cycle_counter_with_brbe),
	KUNIT_CASE(test_user_index_is_counter_plus_one),
	KUNIT_CASE(test_pmuacr_names_only_task_counters),
	KUNIT_CASE(test_task_counters_cover_both_halves_of_pair),
	KUNIT_CASE_PARAM(test_counter_width, test_width_gen_params),
	KUNIT_CASE(test_threshold_fields_fill_th_and_tc),
	KUNIT_CASE(test_zero_threshold_leaves_evtype_alone),
	KUNIT_CASE(test_caps_decode_pmmir),
	KUNIT_CASE(test_caps_unknown_bus_width_reads_zero),
	KUNIT_CASE(test_cycles_take_cycle_counter),
	KUNIT_CASE(test_smt_cycles_take_event_counter),
	KUNIT_CASE(test_threshold_cycles_avoid_cycle_counter),
	KUNIT_CASE(test_instructions_take_instruction_counter),
	KUNIT_CASE(test_instructions_without_icntr_take_event_counter),
	KUNIT_CASE(test_event_counters_fill_then_eagain),
	KUNIT_CASE(test_long_event_takes_even_odd_pair),
	KUNIT_CASE(test_long_event_pair_from_fragmented_mask),
	KUNIT_CASE(test_long_event_eagain_without_whole_pair),
	KUNIT_CASE(test_long_cycles_take_cycle_counter),
	KUNIT_CASE(test_long_cycles_without_chain_wait_for_cycle_counter),
	KUNIT_CASE(test_long_rdpmc_cycles_wait_for_cycle_counter),
	KUNIT_CASE(test_long_event_single_counter_on_pmuv3p5),
	KUNIT_CASE(test_clear_releases_both_halves_of_pair),
	KUNIT_CASE(test_format_files_keep_the_abi),
	KUNIT_CASE(test_dt_names_match_compatibles),
	{}
};

static struct kunit_suite armv8pmu_test_suite = {
	.name = "arm_pmuv3",
	.init = test_arm64_only,
	.test_cases = armv8pmu_test_cases,
};

kunit_test_suite(armv8pmu_test_suite);

/* ---- Generic events on each CPU, as the base driver resolves them ---- */

/*
 * Which event each generic event counts depends on the CPU (its DT
 * compatible) and on the common events its PMCEID announces. The base
 * driver's choices are recorded below for three announcements, so that
 * the test does not depend on the CPU it runs on: every common event (the
 * maps win wherever they have an entry), events 0x00-0x1f only (the first
 * ARMv8.0 CPUs, with nothing in PMCEID1: no BR_RETIRED, no L1D_TLB, no
 * LL_CACHE_RD) and none (every second choice shows). The profiles must
 * stay those of harness/base-event-maps.sh.
 */
enum test_pmceid {
	TEST_PMCEID_ALL,
	TEST_PMCEID_V80,
	TEST_PMCEID_NONE,
	TEST_PMCEID_NR
};

static const struct {
	const char *desc;
	u64 common;
} test_pmceids[TEST_PMCEID_NR] = {
	[TEST_PMCEID_ALL] = { "every common event", GENMASK_ULL(63, 0) },
	[TEST_PMCEID_V80] = { "common events 0x00-0x1f", GENMASK_ULL(31, 0) },
	[TEST_PMCEID_NONE] = { "no common event", 0 },
};

struct test_want {
	int hw[PERF_COUNT_HW_MAX];
	int cache[PERF_COUNT_HW_CACHE_MAX][PERF_COUNT_HW_CACHE_OP_MAX]
		 [PERF_COUNT_HW_CACHE_RESULT_MAX];
};

struct test_cpu_map {
	const char *compatible;
	const struct test_want *want[TEST_PMCEID_NR];
};

#define TEST_CPU_MAP(compat, map)						\
	{ compat, { &test_want_##map##_all, &test_want_##map##_v80,		\
		    &test_want_##map##_none } }

#define NO	(-ENOENT)

/* Recorded by harness/base-event-maps.sh from linux-source-6.12 6.12.118-1~deb12u1 */
static const struct test_want test_want_pmuv3_all = {
	.hw = { 0x11, 0x08, 0x04, 0x03, 0x21, 0x10, 0x1d, 0x23, 0x24, NO },
	.cache = {
		{ { 0x04, 0x03 }, { NO, NO }, { NO, NO } },	/* L1D */
		{ { 0x14, 0x01 }, { NO, NO }, { NO, NO } },	/* L1I */
		{ { 0x36, 0x37 }, { NO, NO }, { NO, NO } },	/* LL */
		{ { 0x25, 0x05 }, { NO, NO }, { NO, NO } },	/* DTLB */
		{ { 0x26, 0x02 }, { NO, NO }, { NO, NO } },	/* ITLB */
		{ { 0x12, 0x10 }, { NO, NO }, { NO, NO } },	/* BPU */
		{ { NO, NO }, { NO, NO }, { NO, NO } },	/* NODE */
	},
};

static const struct test_want test_want_pmuv3_v80 = {
	.hw = { 0x11, 0x08, 0x04, 0x03, 0x0c, 0x10, 0x1d, NO, NO, NO },
	.cache = {
		{ { 0x04, 0x03 }, { NO, NO }, { NO, NO } },	/* L1D */
		{ { 0x14, 0x01 }, { NO, NO }, { NO, NO } },	/* L1I */
		{ { NO, NO }, { NO, NO }, { NO, NO } },	/* LL */
		{ { NO, 0x05 }, { NO, NO }, { NO, NO } },	/* DTLB */
		{ { NO, 0x02 }, { NO, NO }, { NO, NO } },	/* ITLB */
		{ { 0x12, 0x10 }, { NO, NO }, { NO, NO } },	/* BPU */
		{ { NO, NO }, { NO, NO }, { NO, NO } },	/* NODE */
	},
};

static const struct test_want test_want_pmuv3_none = {
	.hw = { NO, NO, NO, NO, NO, NO, NO, NO, NO, NO },
	.cache = {
		{ { NO, NO }, { NO, NO }, { NO, NO } },	/* L1D */
		{ { NO, NO }, { NO, NO }, { NO, NO } },	/* L1I */
		{ { NO, NO }, { NO, NO }, { NO, NO } },	/* LL */
		{ { NO, NO }, { NO, NO }, { NO, NO } },	/* DTLB */
		{ { NO, NO }, { NO, NO }, { NO, NO } },	/* ITLB */
		{ { NO, NO }, { NO, NO }, { NO, NO } },	/* BPU */
		{ { NO, NO }, { NO, NO }, { NO, NO } },	/* NODE */
	},
};

static const struct test_want test_want_a53_all = {
	.hw = { 0x11, 0x08, 0x04, 0x03, 0x21, 0x10, 0x1d, 0x23, 0x24, NO },
	.cache = {
		{ { 0x04, 0x03 }, { NO, NO }, { NO, 0xc2 } },	/* L1D */
		{ { 0x14, 0x01 }, { NO, NO }, { NO, NO } },	/* L1I */
		{ { 0x36, 0x37 }, { NO, NO }, { NO, NO } },	/* LL */
		{ { 0x25, 0x05 }, { NO, NO }, { NO, NO } },	/* DTLB */
		{ { 0x26, 0x02 }, { NO, NO }, { NO, NO } },	/* ITLB */
		{ { 0x12, 0x10 }, { NO, NO }, { NO, NO } },	/* BPU */
		{ { 0x60, NO }, { 0x61, NO }, { NO, NO } },	/* NODE */
	},
};

static const struct test_want test_want_a53_v80 = {
	.hw = { 0x11, 0x08, 0x04, 0x03, 0x0c, 0x10, 0x1d, NO, NO, NO },
	.cache = {
		{ { 0x04, 0x03 }, { NO, NO }, { NO, 0xc2 } },	/* L1D */
		{ { 0x14, 0x01 }, { NO, NO }, { NO, NO } },	/* L1I */
		{ { NO, NO }, { NO, NO }, { NO, NO } },	/* LL */
		{ { NO, 0x05 }, { NO, NO }, { NO, NO } },	/* DTLB */
		{ { NO, 0x02 }, { NO, NO }, { NO, NO } },	/* ITLB */
		{ { 0x12, 0x10 }, { NO, NO }, { NO, NO } },	/* BPU */
		{ { 0x60, NO }, { 0x61, NO }, { NO, NO } },	/* NODE */
	},
};

static const struct test_want test_want_a53_none = {
	.hw = { NO, NO, NO, NO, NO, NO, NO, NO, NO, NO },
	.cache = {
		{ { NO, NO }, { NO, NO }, { NO, 0xc2 } },	/* L1D */
		{ { NO, NO }, { NO, NO }, { NO, NO } },	/* L1I */
		{ { NO, NO }, { NO, NO }, { NO, NO } },	/* LL */
		{ { NO, NO }, { NO, NO }, { NO, NO } },	/* DTLB */
		{ { NO, NO }, { NO, NO }, { NO, NO } },	/* ITLB */
		{ { NO, NO }, { NO, NO }, { NO, NO } },	/* BPU */
		{ { 0x60, NO }, { 0x61, NO }, { NO, NO } },	/* NODE */
	},
};

static const struct test_want test_want_a57_all = {
	.hw = { 0x11, 0x08, 0x04, 0x03, 0x21, 0x10, 0x1d, 0x23, 0x24, NO },
	.cache = {
		{ { 0x04, 0x03 }, { 0x41, 0x43 }, { NO, NO } },	/* L1D */
		{ { 0x14, 0x01 }, { NO, NO }, { NO, NO } },	/* L1I */
		{ { 0x36, 0x37 }, { NO, NO }, { NO, NO } },	/* LL */
		{ { 0x25, 0x05 }, { NO, 0x4d }, { NO, NO } },	/* DTLB */
		{ { 0x26, 0x02 }, { NO, NO }, { NO, NO } },	/* ITLB */
		{ { 0x12, 0x10 }, { NO, NO }, { NO, NO } },	/* BPU */
		{ { 0x60, NO }, { 0x61, NO }, { NO, NO } },	/* NODE */
	},
};

static const struct test_want test_want_a57_v80 = {
	.hw = { 0x11, 0x08, 0x04, 0x03, 0x0c, 0x10, 0x1d, NO, NO, NO },
	.cache = {
		{ { 0x04, 0x03 }, { 0x41, 0x43 }, { NO, NO } },	/* L1D */
		{ { 0x14, 0x01 }, { NO, NO }, { NO, NO } },	/* L1I */
		{ { NO, NO }, { NO, NO }, { NO, NO } },	/* LL */
		{ { NO, 0x05 }, { NO, 0x4d }, { NO, NO } },	/* DTLB */
		{ { NO, 0x02 }, { NO, NO }, { NO, NO } },	/* ITLB */
		{ { 0x12, 0x10 }, { NO, NO }, { NO, NO } },	/* BPU */
		{ { 0x60, NO }, { 0x61, NO }, { NO, NO } },	/* NODE */
	},
};

static const struct test_want test_want_a57_none = {
	.hw = { NO, NO, NO, NO, NO, NO, NO, NO, NO, NO },
	.cache = {
		{ { 0x40, 0x42 }, { 0x41, 0x43 }, { NO, NO } },	/* L1D */
		{ { NO, NO }, { NO, NO }, { NO, NO } },	/* L1I */
		{ { NO, NO }, { NO, NO }, { NO, NO } },	/* LL */
		{ { NO, 0x4c }, { NO, 0x4d }, { NO, NO } },	/* DTLB */
		{ { NO, NO }, { NO, NO }, { NO, NO } },	/* ITLB */
		{ { NO, NO }, { NO, NO }, { NO, NO } },	/* BPU */
		{ { 0x60, NO }, { 0x61, NO }, { NO, NO } },	/* NODE */
	},
};

static const struct test_want test_want_a73_all = {
	.hw = { 0x11, 0x08, 0x04, 0x03, 0x21, 0x10, 0x1d, 0x23, 0x24, NO },
	.cache = {
		{ { 0x04, 0x03 }, { 0x41, NO }, { NO, NO } },	/* L1D */
		{ { 0x14, 0x01 }, { NO, NO }, { NO, NO } },	/* L1I */
		{ { 0x36, 0x37 }, { NO, NO }, { NO, NO } },	/* LL */
		{ { 0x25, 0x05 }, { NO, NO }, { NO, NO } },	/* DTLB */
		{ { 0x26, 0x02 }, { NO, NO }, { NO, NO } },	/* ITLB */
		{ { 0x12, 0x10 }, { NO, NO }, { NO, NO } },	/* BPU */
		{ { NO, NO }, { NO, NO }, { NO, NO } },	/* NODE */
	},
};

static const struct test_want test_want_a73_v80 = {
	.hw = { 0x11, 0x08, 0x04, 0x03, 0x0c, 0x10, 0x1d, NO, NO, NO },
	.cache = {
		{ { 0x04, 0x03 }, { 0x41, NO }, { NO, NO } },	/* L1D */
		{ { 0x14, 0x01 }, { NO, NO }, { NO, NO } },	/* L1I */
		{ { NO, NO }, { NO, NO }, { NO, NO } },	/* LL */
		{ { NO, 0x05 }, { NO, NO }, { NO, NO } },	/* DTLB */
		{ { NO, 0x02 }, { NO, NO }, { NO, NO } },	/* ITLB */
		{ { 0x12, 0x10 }, { NO, NO }, { NO, NO } },	/* BPU */
		{ { NO, NO }, { NO, NO }, { NO, NO } },	/* NODE */
	},
};

static const struct test_want test_want_a73_none = {
	.hw = { NO, NO, NO, NO, NO, NO, NO, NO, NO, NO },
	.cache = {
		{ { 0x40, NO }, { 0x41, NO }, { NO, NO } },	/* L1D */
		{ { NO, NO }, { NO, NO }, { NO, NO } },	/* L1I */
		{ { NO, NO }, { NO, NO }, { NO, NO } },	/* LL */
		{ { NO, NO }, { NO, NO }, { NO, NO } },	/* DTLB */
		{ { NO, NO }, { NO, NO }, { NO, NO } },	/* ITLB */
		{ { NO, NO }, { NO, NO }, { NO, NO } },	/* BPU */
		{ { NO, NO }, { NO, NO }, { NO, NO } },	/* NODE */
	},
};

static const struct test_want test_want_thunder_all = {
	.hw = { 0x11, 0x08, 0x04, 0x03, 0x21, 0x10, 0x1d, 0x23, 0x24, NO },
	.cache = {
		{ { 0x04, 0x03 }, { 0x41, 0xe9 }, { 0xea, 0xeb } },	/* L1D */
		{ { 0x14, 0x01 }, { NO, NO }, { 0xec, 0xed } },	/* L1I */
		{ { 0x36, 0x37 }, { NO, NO }, { NO, NO } },	/* LL */
		{ { 0x25, 0x05 }, { 0x4f, 0x4d }, { NO, NO } },	/* DTLB */
		{ { 0x26, 0x02 }, { NO, NO }, { NO, NO } },	/* ITLB */
		{ { 0x12, 0x10 }, { NO, NO }, { NO, NO } },	/* BPU */
		{ { NO, NO }, { NO, NO }, { NO, NO } },	/* NODE */
	},
};

static const struct test_want test_want_thunder_v80 = {
	.hw = { 0x11, 0x08, 0x04, 0x03, 0x0c, 0x10, 0x1d, NO, NO, NO },
	.cache = {
		{ { 0x04, 0x03 }, { 0x41, 0xe9 }, { 0xea, 0xeb } },	/* L1D */
		{ { 0x14, 0x01 }, { NO, NO }, { 0xec, 0xed } },	/* L1I */
		{ { NO, NO }, { NO, NO }, { NO, NO } },	/* LL */
		{ { 0x4e, 0x05 }, { 0x4f, 0x4d }, { NO, NO } },	/* DTLB */
		{ { NO, 0x02 }, { NO, NO }, { NO, NO } },	/* ITLB */
		{ { 0x12, 0x10 }, { NO, NO }, { NO, NO } },	/* BPU */
		{ { NO, NO }, { NO, NO }, { NO, NO } },	/* NODE */
	},
};

static const struct test_want test_want_thunder_none = {
	.hw = { NO, NO, NO, NO, NO, NO, NO, NO, NO, NO },
	.cache = {
		{ { 0x40, 0x42 }, { 0x41, 0xe9 }, { 0xea, 0xeb } },	/* L1D */
		{ { NO, NO }, { NO, NO }, { 0xec, 0xed } },	/* L1I */
		{ { NO, NO }, { NO, NO }, { NO, NO } },	/* LL */
		{ { 0x4e, 0x4c }, { 0x4f, 0x4d }, { NO, NO } },	/* DTLB */
		{ { NO, NO }, { NO, NO }, { NO, NO } },	/* ITLB */
		{ { NO, NO }, { NO, NO }, { NO, NO } },	/* BPU */
		{ { NO, NO }, { NO, NO }, { NO, NO } },	/* NODE */
	},
};

static const struct test_want test_want_vulcan_all = {
	.hw = { 0x11, 0x08, 0x04, 0x03, 0x21, 0x10, 0x1d, 0x23, 0x24, NO },
	.cache = {
		{ { 0x04, 0x03 }, { 0x41, 0x43 }, { NO, NO } },	/* L1D */
		{ { 0x14, 0x01 }, { NO, NO }, { NO, NO } },	/* L1I */
		{ { 0x36, 0x37 }, { NO, NO }, { NO, NO } },	/* LL */
		{ { 0x25, 0x05 }, { 0x4f, 0x4d }, { NO, NO } },	/* DTLB */
		{ { 0x26, 0x02 }, { NO, NO }, { NO, NO } },	/* ITLB */
		{ { 0x12, 0x10 }, { NO, NO }, { NO, NO } },	/* BPU */
		{ { 0x60, NO }, { 0x61, NO }, { NO, NO } },	/* NODE */
	},
};

static const struct test_want test_want_vulcan_v80 = {
	.hw = { 0x11, 0x08, 0x04, 0x03, 0x0c, 0x10, 0x1d, NO, NO, NO },
	.cache = {
		{ { 0x04, 0x03 }, { 0x41, 0x43 }, { NO, NO } },	/* L1D */
		{ { 0x14, 0x01 }, { NO, NO }, { NO, NO } },	/* L1I */
		{ { NO, NO }, { NO, NO }, { NO, NO } },	/* LL */
		{ { 0x4e, 0x05 }, { 0x4f, 0x4d }, { NO, NO } },	/* DTLB */
		{ { NO, 0x02 }, { NO, NO }, { NO, NO } },	/* ITLB */
		{ { 0x12, 0x10 }, { NO, NO }, { NO, NO } },	/* BPU */
		{ { 0x60, NO }, { 0x61, NO }, { NO, NO } },	/* NODE */
	},
};

static const struct test_want test_want_vulcan_none = {
	.hw = { NO, NO, NO, NO, NO, NO, NO, NO, NO, NO },
	.cache = {
		{ { 0x40, 0x42 }, { 0x41, 0x43 }, { NO, NO } },	/* L1D */
		{ { NO, NO }, { NO, NO }, { NO, NO } },	/* L1I */
		{ { NO, NO }, { NO, NO }, { NO, NO } },	/* LL */
		{ { 0x4e, 0x4c }, { 0x4f, 0x4d }, { NO, NO } },	/* DTLB */
		{ { NO, NO }, { NO, NO }, { NO, NO } },	/* ITLB */
		{ { NO, NO }, { NO, NO }, { NO, NO } },	/* BPU */
		{ { 0x60, NO }, { 0x61, NO }, { NO, NO } },	/* NODE */
	},
};

static const struct test_cpu_map test_cpu_maps[] = {
	TEST_CPU_MAP("arm,armv8-pmuv3", pmuv3),
	TEST_CPU_MAP("arm,cortex-a34-pmu", pmuv3),
	TEST_CPU_MAP("arm,cortex-a35-pmu", a53),
	TEST_CPU_MAP("arm,cortex-a53-pmu", a53),
	TEST_CPU_MAP("arm,cortex-a55-pmu", pmuv3),
	TEST_CPU_MAP("arm,cortex-a57-pmu", a57),
	TEST_CPU_MAP("arm,cortex-a65-pmu", pmuv3),
	TEST_CPU_MAP("arm,cortex-a72-pmu", a57),
	TEST_CPU_MAP("arm,cortex-a73-pmu", a73),
	TEST_CPU_MAP("arm,cortex-a75-pmu", pmuv3),
	TEST_CPU_MAP("arm,cortex-a76-pmu", pmuv3),
	TEST_CPU_MAP("arm,cortex-a77-pmu", pmuv3),
	TEST_CPU_MAP("arm,cortex-a78-pmu", pmuv3),
	TEST_CPU_MAP("arm,cortex-a510-pmu", pmuv3),
	TEST_CPU_MAP("arm,cortex-a520-pmu", pmuv3),
	TEST_CPU_MAP("arm,cortex-a710-pmu", pmuv3),
	TEST_CPU_MAP("arm,cortex-a715-pmu", pmuv3),
	TEST_CPU_MAP("arm,cortex-a720-pmu", pmuv3),
	TEST_CPU_MAP("arm,cortex-a725-pmu", pmuv3),
	TEST_CPU_MAP("arm,cortex-x1-pmu", pmuv3),
	TEST_CPU_MAP("arm,cortex-x2-pmu", pmuv3),
	TEST_CPU_MAP("arm,cortex-x3-pmu", pmuv3),
	TEST_CPU_MAP("arm,cortex-x4-pmu", pmuv3),
	TEST_CPU_MAP("arm,cortex-x925-pmu", pmuv3),
	TEST_CPU_MAP("arm,neoverse-e1-pmu", pmuv3),
	TEST_CPU_MAP("arm,neoverse-n1-pmu", pmuv3),
	TEST_CPU_MAP("arm,neoverse-n2-pmu", pmuv3),
	TEST_CPU_MAP("arm,neoverse-n3-pmu", pmuv3),
	TEST_CPU_MAP("arm,neoverse-v1-pmu", pmuv3),
	TEST_CPU_MAP("arm,neoverse-v2-pmu", pmuv3),
	TEST_CPU_MAP("arm,neoverse-v3-pmu", pmuv3),
	TEST_CPU_MAP("arm,neoverse-v3ae-pmu", pmuv3),
	TEST_CPU_MAP("cavium,thunder-pmu", thunder),
	TEST_CPU_MAP("brcm,vulcan-pmu", vulcan),
	TEST_CPU_MAP("nvidia,carmel-pmu", pmuv3),
	TEST_CPU_MAP("nvidia,denver-pmu", pmuv3),
};

/* End of the recorded block */

#undef NO

static const char *const test_hw_names[PERF_COUNT_HW_MAX] = {
	"cycles", "instructions", "cache-references", "cache-misses", "branches",
	"branch-misses", "bus-cycles", "stalled-cycles-frontend",
	"stalled-cycles-backend", "ref-cycles",
};

static const char *const test_cache_names[PERF_COUNT_HW_CACHE_MAX] = {
	"L1-dcache", "L1-icache", "LLC", "dTLB", "iTLB", "branch", "node",
};

static const char *const test_op_names[PERF_COUNT_HW_CACHE_OP_MAX] = {
	"load", "store", "prefetch",
};

static const char *const test_result_names[PERF_COUNT_HW_CACHE_RESULT_MAX] = {
	"accesses", "misses",
};

static void test_cpu_map_desc(const struct test_cpu_map *c, char *desc)
{
	strscpy(desc, c->compatible, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(test_cpu_map, test_cpu_maps, test_cpu_map_desc);

/* A PMU as the DT probe makes it for @compatible, announcing @common */
static struct arm_pmu *test_dt_pmu(struct kunit *test, const char *compatible, u64 common)
{
	struct arm_pmu *cpu_pmu = test_pmu(test, TEST_PMU_V3);
	const struct of_device_id *id;

	for (id = armv8pmu_of_match; id->compatible[0]; id++)
		if (!strcmp(id->compatible, compatible))
			break;
	KUNIT_ASSERT_TRUE_MSG(test, id->compatible[0], "%s is not in our DT table", compatible);

	cpu_pmu->name = (char *)id->data;
	bitmap_from_u64(cpu_pmu->pmceid_bitmap, common);
	bitmap_zero(cpu_pmu->pmceid_ext_bitmap, ARMV8_PMUV3_MAX_COMMON_EVENTS);
	return cpu_pmu;
}

static int test_resolve(struct kunit *test, struct arm_pmu *cpu_pmu, u32 type, u64 config)
{
	return test_init_event(test_event(test, cpu_pmu, type, config, 0));
}

static void test_cpu_map_hw(struct kunit *test, struct arm_pmu *cpu_pmu,
			    const struct test_want *want, const char *pmceid)
{
	unsigned int hw;

	for (hw = 0; hw < PERF_COUNT_HW_MAX; hw++)
		KUNIT_EXPECT_EQ_MSG(test, test_resolve(test, cpu_pmu, PERF_TYPE_HARDWARE, hw),
				    want->hw[hw], "%s, %s", test_hw_names[hw], pmceid);
}

static void test_cpu_map_cache(struct kunit *test, struct arm_pmu *cpu_pmu,
			       const struct test_want *want, const char *pmceid)
{
	unsigned int cache, op, result;

	for (cache = 0; cache < PERF_COUNT_HW_CACHE_MAX; cache++)
		for (op = 0; op < PERF_COUNT_HW_CACHE_OP_MAX; op++)
			for (result = 0; result < PERF_COUNT_HW_CACHE_RESULT_MAX; result++)
				KUNIT_EXPECT_EQ_MSG(test,
						    test_resolve(test, cpu_pmu, PERF_TYPE_HW_CACHE,
								 cache | op << 8 | result << 16),
						    want->cache[cache][op][result],
						    "%s-%s-%s, %s", test_cache_names[cache],
						    test_op_names[op], test_result_names[result],
						    pmceid);
}

/* Every generic hardware and cache event, under each PMCEID profile */
static void test_generic_events_resolve_as_on_base(struct kunit *test)
{
	const struct test_cpu_map *c = test->param_value;
	enum test_pmceid p;

	for (p = 0; p < TEST_PMCEID_NR; p++) {
		struct arm_pmu *cpu_pmu = test_dt_pmu(test, c->compatible,
						      test_pmceids[p].common);

		test_cpu_map_hw(test, cpu_pmu, c->want[p], test_pmceids[p].desc);
		test_cpu_map_cache(test, cpu_pmu, c->want[p], test_pmceids[p].desc);
	}
}

/* The base knows no CPU we do not: each of our compatibles has its record */
static void test_every_compatible_recorded(struct kunit *test)
{
	const struct of_device_id *id;
	unsigned int j;

	for (id = armv8pmu_of_match; id->compatible[0]; id++) {
		for (j = 0; j < ARRAY_SIZE(test_cpu_maps); j++)
			if (!strcmp(test_cpu_maps[j].compatible, id->compatible))
				break;
		KUNIT_EXPECT_LT_MSG(test, j, ARRAY_SIZE(test_cpu_maps),
				    "no record for %s", id->compatible);
	}
}

/* ACPI PMUs are named armv8_pmuv3_<n>: the common second choices only */
static void test_acpi_pmu_takes_common_alternatives_only(struct kunit *test)
{
	struct arm_pmu *cpu_pmu = test_dt_pmu(test, "cavium,thunder-pmu",
					      test_pmceids[TEST_PMCEID_V80].common);

	cpu_pmu->name = "armv8_pmuv3_0";
	KUNIT_EXPECT_EQ(test, test_resolve(test, cpu_pmu, PERF_TYPE_HW_CACHE,
					   TEST_CACHE(L1D, WRITE, ACCESS)), -ENOENT);
	KUNIT_EXPECT_EQ(test, test_resolve(test, cpu_pmu, PERF_TYPE_HARDWARE,
					   PERF_COUNT_HW_BRANCH_INSTRUCTIONS),
			ARMV8_PMUV3_PERFCTR_PC_WRITE_RETIRED);
}

static struct kunit_case armv8pmu_cpu_map_test_cases[] = {
	KUNIT_CASE_PARAM(test_generic_events_resolve_as_on_base, test_cpu_map_gen_params),
	KUNIT_CASE(test_every_compatible_recorded),
	KUNIT_CASE(test_acpi_pmu_takes_common_alternatives_only),
	{}
};

static struct kunit_suite armv8pmu_cpu_map_test_suite = {
	.name = "arm_pmuv3_cpu_maps",
	.test_cases = armv8pmu_cpu_map_test_cases,
};

kunit_test_suite(armv8pmu_cpu_map_test_suite);

#ifdef CONFIG_ARM64
/* ---- EL0 counter reads that trapped (these touch PMSELR_EL0) ---- */

struct test_el0_idx_case {
	const char *desc;
	u32 sysreg;
	int idx;
};

static const struct test_el0_idx_case test_el0_idx_cases[] = {
	{ "PMEVCNTR0_EL0", SYS_PMEVCNTRn_EL0(0), 0 },
	{ "PMEVCNTR7_EL0", SYS_PMEVCNTRn_EL0(7), 7 },
	{ "PMEVCNTR8_EL0", SYS_PMEVCNTRn_EL0(8), 8 },
	{ "PMEVCNTR30_EL0", SYS_PMEVCNTRn_EL0(30), 30 },
	{ "PMCCNTR_EL0", SYS_PMCCNTR_EL0, ARMV8_PMU_CYCLE_IDX },
	{ "no PMEVCNTR31_EL0", sys_reg(3, 3, 14, 11, 7), -1 },
	{ "PMEVTYPER3_EL0", SYS_PMEVTYPERn_EL0(3), -1 },
	{ "PMCCFILTR_EL0", SYS_PMCCFILTR_EL0, -1 },
	{ "PMCR_EL0", SYS_PMCR_EL0, -1 },
	{ "PMXEVTYPER_EL0", SYS_PMXEVTYPER_EL0, -1 },
	{ "PMUSERENR_EL0", SYS_PMUSERENR_EL0, -1 },
};

KUNIT_ARRAY_PARAM_DESC(test_el0_idx, test_el0_idx_cases, desc);

static void test_el0_counter_idx(struct kunit *test)
{
	const struct test_el0_idx_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, armv8pmu_el0_counter_idx(c->sysreg), c->idx);
}

static void test_el0_selector_picks_counter(struct kunit *test)
{
	write_sysreg(5, pmselr_el0);
	isb();
	KUNIT_EXPECT_EQ(test, armv8pmu_el0_counter_idx(SYS_PMXEVCNTR_EL0), 5);
	write_sysreg(ARMV8_PMU_CYCLE_IDX, pmselr_el0);
	isb();
	KUNIT_EXPECT_EQ(test, armv8pmu_el0_counter_idx(SYS_PMXEVCNTR_EL0), -1);
	write_sysreg(0, pmselr_el0);
}

/* PMXEVCNTR_EL0 reads the hardware PMSELR_EL0: no interrupt in between */
static bool test_el0_emulate(u64 readable, u32 sysreg, bool is_read, u64 *val)
{
	unsigned long flags;
	bool done;

	local_irq_save(flags);
	done = armv8pmu_el0_emulate(readable, sysreg, is_read, val);
	local_irq_restore(flags);
	return done;
}

static void test_el0_unowned_counter_reads_zero(struct kunit *test)
{
	u64 val = 0xdead;

	KUNIT_EXPECT_TRUE(test, test_el0_emulate(BIT_ULL(1), SYS_PMCCNTR_EL0, true, &val));
	KUNIT_EXPECT_EQ(test, val, 0);
	val = 0xdead;
	KUNIT_EXPECT_TRUE(test, test_el0_emulate(0, SYS_PMEVCNTRn_EL0(1), true, &val));
	KUNIT_EXPECT_EQ(test, val, 0);
}

/* The cycle counter only goes up: an owned read falls between two reads */
static void test_el0_owned_counter_reads_hardware(struct kunit *test)
{
	u64 before, val, after;

	before = read_pmccntr();
	KUNIT_EXPECT_TRUE(test, test_el0_emulate(BIT_ULL(ARMV8_PMU_CYCLE_IDX),
						 SYS_PMCCNTR_EL0, true, &val));
	after = read_pmccntr();
	KUNIT_EXPECT_GE(test, val, before);
	KUNIT_EXPECT_LE(test, val, after);
}

/* Only counter reads and the selector: the rest stays undefined at EL0 */
static void test_el0_other_access_refused(struct kunit *test)
{
	u64 val = 0;

	KUNIT_EXPECT_FALSE(test, test_el0_emulate(~0ULL, SYS_PMCR_EL0, true, &val));
	KUNIT_EXPECT_FALSE(test, test_el0_emulate(~0ULL, SYS_PMEVCNTRn_EL0(0), false, &val));
	KUNIT_EXPECT_FALSE(test, test_el0_emulate(~0ULL, SYS_PMCCNTR_EL0, false, &val));
	KUNIT_EXPECT_FALSE(test, test_el0_emulate(~0ULL, SYS_PMEVTYPERn_EL0(0), true, &val));
}

static void test_el0_selector_write_keeps_sel_bits(struct kunit *test)
{
	u64 val = 0x25;

	KUNIT_EXPECT_TRUE(test, test_el0_emulate(0, SYS_PMSELR_EL0, false, &val));
	val = 0;
	KUNIT_EXPECT_TRUE(test, test_el0_emulate(0, SYS_PMSELR_EL0, true, &val));
	KUNIT_EXPECT_EQ(test, val, 5);
	write_sysreg(0, pmselr_el0);
}

/*
 * A counter disabled with its overflow flagged and not yet handled: the
 * flag must go with it, or BRBE freezes again at every resume. An idle
 * counter of this CPU stands in, interrupts masked throughout.
 */
static void test_counter_disable_clears_overflow(struct kunit *test)
{
	struct perf_event *event = kunit_kzalloc(test, sizeof(*event), GFP_KERNEL);
	struct pmu_hw_events *cpuc;
	struct arm_pmu *cpu_pmu;
	unsigned long flags, idle;
	u64 flagged;

	KUNIT_ASSERT_NOT_NULL(test, event);
	local_irq_save(flags);
	cpu_pmu = __this_cpu_read(armv8pmu_cpu_pmu);
	if (!cpu_pmu) {
		local_irq_restore(flags);
		kunit_skip(test, "no PMUv3 on this CPU");
	}
	cpuc = this_cpu_ptr(cpu_pmu->hw_events);
	idle = cpu_pmu->cntr_mask[0] & ~cpuc->used_mask[0] &
	       GENMASK(ARMV8_PMU_MAX_GENERAL_COUNTERS - 1, 0);
	if (!idle) {
		local_irq_restore(flags);
		kunit_skip(test, "every event counter in use");
	}
	event->hw.idx = __fls(idle);
	write_sysreg(BIT(event->hw.idx), pmovsset_el0);
	armv8pmu_counter_disable(event);
	isb();
	flagged = read_pmovsclr() & BIT(event->hw.idx);
	write_pmovsclr(BIT(event->hw.idx));
	local_irq_restore(flags);

	KUNIT_EXPECT_EQ(test, flagged, 0);
}

/*
 * The probed PMU of each online CPU uses its cycle counter exactly when
 * the CPU has no SMT sibling (boot-cortex-a57-smp2 runs two threads of
 * one core, every other boot none).
 */
static void test_cycle_counter_follows_smt_topology(struct kunit *test)
{
	unsigned int cpu, checked = 0;

	cpus_read_lock();
	for_each_online_cpu(cpu) {
		struct arm_pmu *cpu_pmu = per_cpu(armv8pmu_cpu_pmu, cpu);

		if (!cpu_pmu)
			continue;
		KUNIT_EXPECT_EQ_MSG(test, test_bit(ARMV8_PMU_CYCLE_IDX, cpu_pmu->cntr_mask),
				    !armv8pmu_cpu_has_smt(cpu), "CPU %u", cpu);
		checked++;
	}
	cpus_read_unlock();
	if (!checked)
		kunit_skip(test, "no PMUv3 CPU");
}

static struct kunit_case armv8pmu_el0_test_cases[] = {
	KUNIT_CASE_PARAM(test_el0_counter_idx, test_el0_idx_gen_params),
	KUNIT_CASE(test_el0_selector_picks_counter),
	KUNIT_CASE(test_el0_unowned_counter_reads_zero),
	KUNIT_CASE(test_el0_owned_counter_reads_hardware),
	KUNIT_CASE(test_el0_other_access_refused),
	KUNIT_CASE(test_el0_selector_write_keeps_sel_bits),
	KUNIT_CASE(test_counter_disable_clears_overflow),
	KUNIT_CASE(test_cycle_counter_follows_smt_topology),
	{}
};

static struct kunit_suite armv8pmu_el0_test_suite = {
	.name = "arm_pmuv3_el0",
	.test_cases = armv8pmu_el0_test_cases,
};

kunit_test_suite(armv8pmu_el0_test_suite);
#endif
