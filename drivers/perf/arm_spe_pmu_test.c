// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for the SPE driver's translation logic: attribute checks and
 * their errno, attributes to register values, AUX buffer windows,
 * PMBSR decoding and the mending of a cut record.
 *
 * Built as part of arm_spe_pmu.c (see the end of that file) so that the
 * static functions are tested as they are. Nothing here touches the
 * profiling unit: implementations are described by identification
 * register values, as arm_spe_pmu_probe_cpu() would read them.
 */

#include <kunit/test.h>

/* PMSIDR_EL1 of our QEMU's -cpu max: FE FT FL ArchInst FnE EFT, 256, 64 B, 12 bit */
#define TEST_PMSIDR_FULL	0x0402604fULL
/* An early implementation: no FnE, no latency filter, interval 1024 */
#define TEST_PMSIDR_SMALL	0x0002640bULL

static void test_caps(struct arm_spe_pmu_caps *caps, u32 pmsver, u64 pmsidr, u64 pmbidr)
{
	arm_spe_pmu_caps_from_regs(pmsver, pmsidr, pmbidr, caps);
}

static void test_attr(struct perf_event_attr *attr, u64 period)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->sample_period = period;
}

static void arm_spe_test_caps_decode(struct kunit *test)
{
	struct arm_spe_pmu_caps caps;

	test_caps(&caps, ID_AA64DFR0_EL1_PMSVer_V1P2, TEST_PMSIDR_FULL, 0);
	KUNIT_EXPECT_EQ(test, caps.min_interval, 256);
	KUNIT_EXPECT_EQ(test, caps.max_record, 64);
	KUNIT_EXPECT_EQ(test, caps.align, 1);
	KUNIT_EXPECT_EQ(test, caps.count_size, 12);
	KUNIT_EXPECT_EQ(test, caps.features,
			ARM_SPE_FEAT_FE | ARM_SPE_FEAT_FT | ARM_SPE_FEAT_FL |
			ARM_SPE_FEAT_FNE | ARM_SPE_FEAT_ARCH_INST | ARM_SPE_FEAT_DISCARD |
			ARM_SPE_FEAT_EFT);
	KUNIT_EXPECT_EQ(test, caps.evfr_res0, PMSEVFR_EL1_RES0_V1P2);
	/* SPEv1p2 filters on events 1, 3, 5-7, 11-15, 17, 18, 24-31 and 48-63 */
	KUNIT_EXPECT_EQ(test, arm_spe_pmu_cap_value(&caps, ARM_SPE_CAP_EVENT_FILTER),
			0xffff0000ff06f8eaULL);
	KUNIT_EXPECT_EQ(test, arm_spe_pmu_cap_value(&caps, ARM_SPE_CAP_ARCH_INST), 1);
	KUNIT_EXPECT_EQ(test, arm_spe_pmu_cap_value(&caps, ARM_SPE_CAP_ERND), 0);
	KUNIT_EXPECT_EQ(test, arm_spe_pmu_cap_value(&caps, ARM_SPE_CAP_MIN_INTERVAL), 256);

	/* 16-bit counters, ERnd, interval 4096, 2 KiB records, 64-byte alignment */
	test_caps(&caps, ID_AA64DFR0_EL1_PMSVer_IMP, 0x0003b827ULL, 0x6);
	KUNIT_EXPECT_EQ(test, caps.min_interval, 4096);
	KUNIT_EXPECT_EQ(test, caps.max_record, 2048);
	KUNIT_EXPECT_EQ(test, caps.align, 64);
	KUNIT_EXPECT_EQ(test, caps.count_size, 16);
	KUNIT_EXPECT_EQ(test, arm_spe_pmu_cap_value(&caps, ARM_SPE_CAP_ERND), 1);
	KUNIT_EXPECT_FALSE(test, caps.features & ARM_SPE_FEAT_DISCARD);
	KUNIT_EXPECT_FALSE(test, caps.features & ARM_SPE_FEAT_EFT);
	KUNIT_EXPECT_EQ(test, caps.evfr_res0, PMSEVFR_EL1_RES0_IMP);
	KUNIT_EXPECT_EQ(test, arm_spe_pmu_cap_value(&caps, ARM_SPE_CAP_EVENT_FILTER),
			~PMSEVFR_EL1_RES0_IMP);

	/* A reserved interval encoding falls back to the largest */
	test_caps(&caps, ID_AA64DFR0_EL1_PMSVer_V1P1, 0x00026107ULL, 0);
	KUNIT_EXPECT_EQ(test, caps.min_interval, 4096);
	KUNIT_EXPECT_EQ(test, caps.evfr_res0, PMSEVFR_EL1_RES0_V1P1);
}

/*
 * A unit without the optional misaligned-access event (11): its filter
 * bit read back as 0, so neither the cap nor an event may name it; a bit
 * read back where the version has none (a RES0 bit that keeps what was
 * written) stays refused too.
 */
static void arm_spe_test_caps_read_back(struct kunit *test)
{
	struct arm_spe_pmu_caps caps;
	struct perf_event_attr attr;

	test_caps(&caps, ID_AA64DFR0_EL1_PMSVer_V1P2, TEST_PMSIDR_FULL, 0);
	arm_spe_pmu_caps_limit_events(&caps, ~(PMSEVFR_EL1_RES0_V1P2 | BIT_ULL(11)) | BIT_ULL(0));
	KUNIT_EXPECT_EQ(test, arm_spe_pmu_cap_value(&caps, ARM_SPE_CAP_EVENT_FILTER),
			0xffff0000ff06f0eaULL);
	test_attr(&attr, 256);
	attr.config1 = BIT_ULL(11);
	KUNIT_EXPECT_EQ(test, arm_spe_pmu_check_attr(&caps, &attr), -EOPNOTSUPP);
	attr.config1 = 0;
	attr.config3 = BIT_ULL(11);
	KUNIT_EXPECT_EQ(test, arm_spe_pmu_check_attr(&caps, &attr), -EOPNOTSUPP);
	attr.config3 = 0;
	attr.config1 = BIT_ULL(0);
	KUNIT_EXPECT_EQ(test, arm_spe_pmu_check_attr(&caps, &attr), -EOPNOTSUPP);
	attr.config1 = BIT_ULL(12);
	KUNIT_EXPECT_EQ(test, arm_spe_pmu_check_attr(&caps, &attr), 0);
}

static const struct arm_spe_check_case {
	const char *name;
	u64 config, config1, config2, config3, period;
	bool freq, exclude_idle, exclude_host, branch_stack, small;
	int err;
} arm_spe_check_cases[] = {
	{ "default", 0, 0, 0, 0, 256, .err = 0 },
	{ "every_format", GENMASK_ULL(2, 0) | BIT_ULL(16) | GENMASK_ULL(42, 32),
	  BIT_ULL(1), 0xfff, BIT_ULL(3), 4096, .err = 0 },
	{ "freq", 0, 0, 0, 0, 4000, .freq = true, .err = -EINVAL },
	{ "no_period", 0, 0, 0, 0, 0, .err = -EINVAL },
	/* Below the recommended minimum is allowed since v6.17 */
	{ "below_min_interval", 0, 0, 0, 0, 255, .err = 0 },
	{ "period_one", 0, 0, 0, 0, 1, .err = 0 },
	{ "max_interval", 0, 0, 0, 0, 0xffffff00ULL, .err = 0 },
	/* PMSIRR_EL1.INTERVAL is bits [31:8]: refused, never clamped */
	{ "just_above_max_interval", 0, 0, 0, 0, 0xffffff01ULL, .err = -EINVAL },
	{ "max_u32_interval", 0, 0, 0, 0, 0xffffffffULL, .err = -EINVAL },
	{ "above_max_interval", 0, 0, 0, 0, 0x100000000ULL, .err = -EINVAL },
	{ "unknown_config_bit", BIT_ULL(3), 0, 0, 0, 256, .err = -EINVAL },
	{ "unknown_config_high", BIT_ULL(63), 0, 0, 0, 256, .err = -EINVAL },
	{ "unknown_config_past_eft", BIT_ULL(43), 0, 0, 0, 256, .err = -EINVAL },
	{ "eft_mask_alone", BIT_ULL(36), 0, 0, 0, 256, .err = 0 },
	{ "eft_simd_float", BIT_ULL(39) | BIT_ULL(41), 0, 0, 0, 256, .err = 0 },
	{ "min_latency_too_wide", 0, 0, 0x1000, 0, 256, .err = -EINVAL },
	{ "exclude_idle", 0, 0, 0, 0, 256, .exclude_idle = true, .err = -EOPNOTSUPP },
	/* perf's :G: the host's buffer never holds a guest's records */
	{ "guest_only", 0, 0, 0, 0, 256, .exclude_host = true, .err = -EOPNOTSUPP },
	{ "branch_stack", 0, 0, 0, 0, 256, .branch_stack = true, .err = -EOPNOTSUPP },
	{ "evfr_res0_bit", 0, BIT_ULL(0), 0, 0, 256, .err = -EOPNOTSUPP },
	{ "nevfr_res0_bit", 0, 0, 0, BIT_ULL(40), 256, .err = -EOPNOTSUPP },
	/* The small implementation: PMSVer 1, no FL, no FnE, interval 1024 */
	{ "small_default", 0, 0, 0, 0, 1024, .small = true, .err = 0 },
	{ "small_below_min", 0, 0, 0, 0, 768, .small = true, .err = 0 },
	{ "small_no_eft_mask", BIT_ULL(37), 0, 0, 0, 1024, .small = true, .err = -EOPNOTSUPP },
	{ "small_no_eft_simd", BIT_ULL(39), 0, 0, 0, 1024, .small = true, .err = -EOPNOTSUPP },
	{ "small_no_eft_float", BIT_ULL(41), 0, 0, 0, 1024, .small = true, .err = -EOPNOTSUPP },
	{ "small_no_discard", BIT_ULL(35), 0, 0, 0, 1024, .small = true, .err = -EOPNOTSUPP },
	{ "small_no_fl", 0, 0, 1, 0, 1024, .small = true, .err = -EOPNOTSUPP },
	{ "small_no_fne", 0, 0, 0, BIT_ULL(1), 1024, .small = true, .err = -EOPNOTSUPP },
	{ "small_fe_ok", 0, BIT_ULL(1), 0, 0, 1024, .small = true, .err = 0 },
	{ "small_v1p1_event", 0, BIT_ULL(11), 0, 0, 1024, .small = true, .err = -EOPNOTSUPP },
	{ "small_types_ok", BIT_ULL(33), 0, 0, 0, 1024, .small = true, .err = 0 },
};

KUNIT_ARRAY_PARAM_DESC(arm_spe_check, arm_spe_check_cases, name);

static void arm_spe_test_check_attr(struct kunit *test)
{
	const struct arm_spe_check_case *c = test->param_value;
	struct perf_event_attr attr;
	struct arm_spe_pmu_caps caps;

	if (c->small)
		test_caps(&caps, ID_AA64DFR0_EL1_PMSVer_IMP, TEST_PMSIDR_SMALL, 0);
	else
		test_caps(&caps, ID_AA64DFR0_EL1_PMSVer_V1P2, TEST_PMSIDR_FULL, 0);
	test_attr(&attr, c->period);
	attr.config = c->config;
	attr.config1 = c->config1;
	attr.config2 = c->config2;
	attr.config3 = c->config3;
	attr.freq = c->freq;
	attr.exclude_idle = c->exclude_idle;
	attr.exclude_host = c->exclude_host;
	if (c->branch_stack)
		attr.sample_type |= PERF_SAMPLE_BRANCH_STACK;
	KUNIT_EXPECT_EQ(test, arm_spe_pmu_check_attr(&caps, &attr), c->err);
}

static void arm_spe_test_regs_default(struct kunit *test)
{
	struct perf_event_attr attr;
	struct arm_spe_pmu_regs regs;

	test_attr(&attr, 4096);
	arm_spe_pmu_attr_to_regs(&attr, false, &regs);
	/* E0SPE and E1SPE, nothing else: no CX for an unprivileged opener */
	KUNIT_EXPECT_EQ(test, regs.pmscr, 0x3);
	KUNIT_EXPECT_EQ(test, regs.pmsfcr, 0);
	KUNIT_EXPECT_EQ(test, regs.pmsevfr, 0);
	KUNIT_EXPECT_EQ(test, regs.pmsnevfr, 0);
	KUNIT_EXPECT_EQ(test, regs.pmslatfr, 0);
	KUNIT_EXPECT_EQ(test, regs.pmsirr, 4096);
	KUNIT_EXPECT_EQ(test, regs.pmblimitr_fm, 0);
}

static void arm_spe_test_regs_pmscr(struct kunit *test)
{
	struct perf_event_attr attr;
	struct arm_spe_pmu_regs regs;

	test_attr(&attr, 256);
	attr.exclude_kernel = 1;
	arm_spe_pmu_attr_to_regs(&attr, true, &regs);
	/* E0SPE, CX */
	KUNIT_EXPECT_EQ(test, regs.pmscr, 0x9);

	attr.exclude_kernel = 0;
	attr.exclude_user = 1;
	attr.config = ARM_SPE_CFG_TS | ARM_SPE_CFG_PA | ARM_SPE_CFG_PCT;
	arm_spe_pmu_attr_to_regs(&attr, true, &regs);
	/* PCT 0b01, TS, PA, CX, E1SPE */
	KUNIT_EXPECT_EQ(test, regs.pmscr, 0x7a);

	attr.config = ARM_SPE_CFG_TS;
	arm_spe_pmu_attr_to_regs(&attr, false, &regs);
	KUNIT_EXPECT_EQ(test, regs.pmscr, 0x22);
}

static void arm_spe_test_regs_filters(struct kunit *test)
{
	struct perf_event_attr attr;
	struct arm_spe_pmu_regs regs;

	test_attr(&attr, 256);
	attr.config = ARM_SPE_CFG_LOAD;
	arm_spe_pmu_attr_to_regs(&attr, false, &regs);
	/* FT, LD */
	KUNIT_EXPECT_EQ(test, regs.pmsfcr, 0x20002);

	attr.config = ARM_SPE_CFG_BRANCH | ARM_SPE_CFG_STORE;
	attr.config1 = 0x882;
	attr.config2 = 100;
	attr.config3 = 0x20;
	arm_spe_pmu_attr_to_regs(&attr, false, &regs);
	/* ST, B, FnE, FL, FT, FE */
	KUNIT_EXPECT_EQ(test, regs.pmsfcr, 0x5000f);
	KUNIT_EXPECT_EQ(test, regs.pmsevfr, 0x882);
	KUNIT_EXPECT_EQ(test, regs.pmsnevfr, 0x20);
	KUNIT_EXPECT_EQ(test, regs.pmslatfr, 100);
}

static void arm_spe_test_regs_interval(struct kunit *test)
{
	struct perf_event_attr attr;
	struct arm_spe_pmu_regs regs;

	/* INTERVAL keeps bits [31:8]: 65537 samples every 65536 */
	test_attr(&attr, 65537);
	attr.config = ARM_SPE_CFG_JITTER;
	arm_spe_pmu_attr_to_regs(&attr, false, &regs);
	KUNIT_EXPECT_EQ(test, regs.pmsirr, 0x10001);

	test_attr(&attr, 0xffffff00ULL);
	arm_spe_pmu_attr_to_regs(&attr, false, &regs);
	KUNIT_EXPECT_EQ(test, regs.pmsirr, 0xffffff00ULL);

	attr.config = ARM_SPE_CFG_DISCARD;
	arm_spe_pmu_attr_to_regs(&attr, false, &regs);
	KUNIT_EXPECT_EQ(test, regs.pmblimitr_fm, 0x4);
}

/*
 * Periods below the recommended minimum are kept (Linux v6.17 on): only
 * what INTERVAL cannot hold changes, the low byte dropped and a zero
 * interval raised to 256.
 */
static void arm_spe_test_regs_short_interval(struct kunit *test)
{
	static const struct {
		u64 period, pmsirr;
	} cases[] = {
		{ 1, 0x100 }, { 255, 0x100 }, { 256, 0x100 }, { 511, 0x100 },
		{ 512, 0x200 }, { 768, 0x300 },
	};
	struct perf_event_attr attr;
	struct arm_spe_pmu_regs regs;
	int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		test_attr(&attr, cases[i].period);
		arm_spe_pmu_attr_to_regs(&attr, false, &regs);
		KUNIT_EXPECT_EQ_MSG(test, regs.pmsirr, cases[i].pmsirr,
				    "period %llu", cases[i].period);
	}
}

/* FEAT_SPE_EFT: each parameter its PMSFCR_EL1 bit, and FT with any */
static void arm_spe_test_regs_eft(struct kunit *test)
{
	static const struct {
		u64 config, pmsfcr;
	} cases[] = {
		{ ARM_SPE_CFG_BRANCH_MASK, BIT_ULL(48) | BIT_ULL(1) },
		{ ARM_SPE_CFG_LOAD_MASK, BIT_ULL(49) | BIT_ULL(1) },
		{ ARM_SPE_CFG_STORE_MASK, BIT_ULL(50) | BIT_ULL(1) },
		{ ARM_SPE_CFG_SIMD, BIT_ULL(20) | BIT_ULL(1) },
		{ ARM_SPE_CFG_SIMD_MASK, BIT_ULL(52) | BIT_ULL(1) },
		{ ARM_SPE_CFG_FLOAT, BIT_ULL(19) | BIT_ULL(1) },
		{ ARM_SPE_CFG_FLOAT_MASK, BIT_ULL(51) | BIT_ULL(1) },
		/* store AND SIMD, as perf-arm-spe(1) spells it */
		{ ARM_SPE_CFG_STORE | ARM_SPE_CFG_SIMD | ARM_SPE_CFG_STORE_MASK |
		  ARM_SPE_CFG_SIMD_MASK, 0x0014000000140002ULL },
		{ GENMASK_ULL(42, 32), 0x001f0000001f0002ULL },
	};
	struct perf_event_attr attr;
	struct arm_spe_pmu_regs regs;
	int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		test_attr(&attr, 256);
		attr.config = cases[i].config;
		arm_spe_pmu_attr_to_regs(&attr, false, &regs);
		KUNIT_EXPECT_EQ_MSG(test, regs.pmsfcr, cases[i].pmsfcr,
				    "config 0x%llx", cases[i].config);
	}
}

/* Which format/ entries an SPEv1p2 with EFT, an SPEv1p1 and a bare SPE show */
static const struct {
	const char *name;
	bool v1p2, v1p1, bare;
} arm_spe_format_shown[] = {
	{ "ts_enable", true, true, true },
	{ "pa_enable", true, true, true },
	{ "pct_enable", true, true, true },
	{ "jitter", true, true, true },
	{ "branch_filter", true, true, false },
	{ "load_filter", true, true, false },
	{ "store_filter", true, true, false },
	{ "discard", true, false, false },
	{ "branch_filter_mask", true, false, false },
	{ "load_filter_mask", true, false, false },
	{ "store_filter_mask", true, false, false },
	{ "simd_filter", true, false, false },
	{ "simd_filter_mask", true, false, false },
	{ "float_filter", true, false, false },
	{ "float_filter_mask", true, false, false },
	{ "event_filter", true, true, false },
	{ "min_latency", true, true, false },
	{ "inv_event_filter", true, false, false },
};

/* Every format is shown where the hardware has what it programs */
static void arm_spe_test_format_visibility(struct kunit *test)
{
	struct arm_spe_pmu_caps v1p2, v1p1, bare;
	struct attribute **a = arm_spe_pmu_format_attrs;
	int i;

	test_caps(&v1p2, ID_AA64DFR0_EL1_PMSVer_V1P2, TEST_PMSIDR_FULL, 0);
	/* The same at SPEv1p1: no discard, FnE or EFT */
	test_caps(&v1p1, ID_AA64DFR0_EL1_PMSVer_V1P1, TEST_PMSIDR_FULL &
		  ~(PMSIDR_EL1_FnE | ARM_SPE_PMSIDR_EFT), 0);
	/* No filters at all */
	test_caps(&bare, ID_AA64DFR0_EL1_PMSVer_IMP, PMSIDR_EL1_ARCHINST, 0);

	for (i = 0; i < ARRAY_SIZE(arm_spe_format_shown); i++, a++) {
		KUNIT_ASSERT_NOT_NULL(test, *a);
		KUNIT_EXPECT_STREQ(test, (*a)->name, arm_spe_format_shown[i].name);
		KUNIT_EXPECT_EQ_MSG(test, arm_spe_pmu_format_shown(&v1p2, *a),
				    arm_spe_format_shown[i].v1p2, "%s", (*a)->name);
		KUNIT_EXPECT_EQ_MSG(test, arm_spe_pmu_format_shown(&v1p1, *a),
				    arm_spe_format_shown[i].v1p1, "%s", (*a)->name);
		KUNIT_EXPECT_EQ_MSG(test, arm_spe_pmu_format_shown(&bare, *a),
				    arm_spe_format_shown[i].bare, "%s", (*a)->name);
	}
	/* and the table covers every format */
	KUNIT_EXPECT_NULL(test, *a);
}

/* caps/event_filter only where FE exists; the other caps everywhere */
static void arm_spe_test_caps_visibility(struct kunit *test)
{
	static const enum arm_spe_pmu_cap always[] = {
		ARM_SPE_CAP_ARCH_INST, ARM_SPE_CAP_ERND, ARM_SPE_CAP_COUNT_SIZE,
		ARM_SPE_CAP_MIN_INTERVAL,
	};
	struct arm_spe_pmu_caps full, bare;
	int i;

	test_caps(&full, ID_AA64DFR0_EL1_PMSVer_V1P2, TEST_PMSIDR_FULL, 0);
	test_caps(&bare, ID_AA64DFR0_EL1_PMSVer_IMP, PMSIDR_EL1_ARCHINST, 0);
	KUNIT_EXPECT_TRUE(test, arm_spe_pmu_cap_shown(&full, ARM_SPE_CAP_EVENT_FILTER));
	KUNIT_EXPECT_FALSE(test, arm_spe_pmu_cap_shown(&bare, ARM_SPE_CAP_EVENT_FILTER));
	for (i = 0; i < ARRAY_SIZE(always); i++) {
		KUNIT_EXPECT_TRUE(test, arm_spe_pmu_cap_shown(&full, always[i]));
		KUNIT_EXPECT_TRUE(test, arm_spe_pmu_cap_shown(&bare, always[i]));
	}
}

#define TP	PAGE_SIZE

static const struct arm_spe_window_case {
	const char *name;
	unsigned long size, head, space, wakeup;
	bool snapshot;
	u32 align;
	bool ok;
	unsigned long pad, zero, start, limit;
	unsigned long window_max;
} arm_spe_window_cases[] = {
	/* Normal mode: size, head, free space, wakeup */
	{ "empty", 4 * TP, 0, 4 * TP, 2 * TP, false, 1, true, 0, 0, 0, 2 * TP },
	{ "wakeup_rounds_up", 4 * TP, 0, 4 * TP, TP + 1, false, 1, true, 0, 0, 0, 2 * TP },
	{ "wakeup_passed", 4 * TP, 100, 4 * TP - 100, 50, false, 1, true, 0, 0, 100, 4 * TP },
	{ "space_ends_mid_page", 4 * TP, 0, 3 * TP + 100, 0, false, 1, true, 0, 0, 0, 3 * TP },
	{ "mid_page", 4 * TP, 100, 2 * TP, 0, false, 1, true, 0, 0, 100, 2 * TP },
	{ "pad_past_wakeup", 4 * TP, TP - 10, 3 * TP, TP - 5, false, 1,
	  true, 10, 0, TP, 3 * TP },
	{ "wrap_pads_to_end", 4 * TP, 8 * TP - 10, 2 * TP, 0, false, 1,
	  true, 10, 0, 0, TP },
	{ "no_room_tail", 4 * TP, 3 * TP + 100, TP - 200, 0, false, 1, false },
	{ "no_room_under_record", 4 * TP, 0, 63, 0, false, 1, false },
	{ "one_record_at_page_end", 4 * TP, TP - 64, 64, 0, false, 1,
	  true, 0, 0, TP - 64, TP },
	{ "one_page_buffer", TP, 5 * TP + 8, TP, 0, false, 1, true, 0, 0, 8, TP },
	{ "aligned_head", 4 * TP, 65, 2 * TP, 0, false, 64, true, 63, 0, 128, 2 * TP },
	/* At EL1: no longer than the walk a cut record may need */
	{ "walk_bound", 1024 * TP, 0, 1024 * TP, 0, false, 1,
	  true, 0, 0, 0, SZ_256K, SZ_256K },
	{ "walk_bound_mid_page", 1024 * TP, 100, 1024 * TP, 0, false, 1,
	  true, 0, 0, 100, SZ_256K, SZ_256K },
	{ "walk_bound_wakeup_first", 1024 * TP, 0, 1024 * TP, TP, false, 1,
	  true, 0, 0, 0, TP, SZ_256K },
	{ "walk_bound_snapshot_chunks", 1024 * TP, 0, 0, 0, true, 1,
	  true, 0, 16 * TP, 0, 16 * TP, SZ_256K },
	/* Snapshot mode: halves of a small buffer */
	{ "snap_first_half", 4 * TP, 0, 0, 0, true, 1, true, 0, 2 * TP, 0, 2 * TP },
	{ "snap_resume", 4 * TP, 100, 0, 0, true, 1, true, 0, 0, 100, 2 * TP },
	{ "snap_half_full", 4 * TP, 2 * TP - 40, 0, 0, true, 1,
	  true, 40, 2 * TP, 2 * TP, 4 * TP },
	{ "snap_wrap", 4 * TP, 12 * TP - 8, 0, 0, true, 1, true, 8, 2 * TP, 0, 2 * TP },
	{ "snap_two_pages", 2 * TP, 3 * TP, 0, 0, true, 1, true, 0, TP, TP, 2 * TP },
	{ "snap_one_page", TP, 0, 0, 0, true, 1, false },
	/* A large buffer: chunks of 16 pages, cleared one at a time */
	{ "snap_large_first_chunk", 1024 * TP, 0, 0, 0, true, 1, true, 0, 16 * TP, 0, 16 * TP },
	{ "snap_large_chunk_full", 1024 * TP, 16 * TP - 40, 0, 0, true, 1,
	  true, 40, 16 * TP, 16 * TP, 32 * TP },
	{ "snap_large_resume", 1024 * TP, 17 * TP, 0, 0, true, 1, true, 0, 0, 17 * TP, 32 * TP },
	{ "snap_large_wrap", 1024 * TP, 2048 * TP - 8, 0, 0, true, 1,
	  true, 8, 16 * TP, 0, 16 * TP },
};

KUNIT_ARRAY_PARAM_DESC(arm_spe_window, arm_spe_window_cases, name);

static void arm_spe_test_window(struct kunit *test)
{
	const struct arm_spe_window_case *c = test->param_value;
	struct arm_spe_pmu_caps caps = {
		.max_record = 64, .align = c->align, .window_max = c->window_max,
	};
	struct arm_spe_pmu_window w = { };
	bool ok;

	ok = arm_spe_pmu_window(c->size, c->head, c->space, c->wakeup, c->snapshot,
				&caps, &w);
	KUNIT_ASSERT_EQ(test, ok, c->ok);
	if (!ok)
		return;
	KUNIT_EXPECT_EQ(test, w.pad, c->pad);
	KUNIT_EXPECT_EQ(test, w.zero, c->zero);
	KUNIT_EXPECT_EQ(test, w.start, c->start);
	KUNIT_EXPECT_EQ(test, w.limit, c->limit);
	/* Invariants: room for a record, within the buffer, padding in space */
	KUNIT_EXPECT_GE(test, w.limit, w.start + caps.max_record);
	KUNIT_EXPECT_LE(test, w.limit, c->size);
	KUNIT_EXPECT_TRUE(test, PAGE_ALIGNED(w.limit));
	KUNIT_EXPECT_EQ(test, (c->head + w.pad) % c->size, w.start);
	if (!c->snapshot)
		KUNIT_EXPECT_LE(test, w.pad + (w.limit - w.start), c->space);
	if (c->window_max)
		KUNIT_EXPECT_LE(test, w.limit - w.start, c->window_max);
}

static const struct arm_spe_pmbsr_case {
	const char *name;
	u64 pmbsr;
	enum arm_spe_pmu_outcome outcome;
	u64 flags;
} arm_spe_pmbsr_cases[] = {
	{ "clear", 0, ARM_SPE_OUTCOME_NONE, 0 },
	{ "collision_only", PMBSR_EL1_COLL, ARM_SPE_OUTCOME_NONE, PERF_AUX_FLAG_COLLISION },
	{ "full", PMBSR_EL1_S | 1, ARM_SPE_OUTCOME_FULL, 0 },
	{ "full_collision", PMBSR_EL1_S | PMBSR_EL1_COLL | 1, ARM_SPE_OUTCOME_FULL,
	  PERF_AUX_FLAG_COLLISION },
	{ "full_data_loss", PMBSR_EL1_S | PMBSR_EL1_DL | 1, ARM_SPE_OUTCOME_LOST,
	  PERF_AUX_FLAG_PARTIAL | PERF_AUX_FLAG_TRUNCATED },
	{ "buffer_event_not_full", PMBSR_EL1_S, ARM_SPE_OUTCOME_FATAL, PERF_AUX_FLAG_TRUNCATED },
	{ "stage1_fault", PMBSR_EL1_S | (0x24ULL << 26) | 0x7, ARM_SPE_OUTCOME_FATAL,
	  PERF_AUX_FLAG_TRUNCATED },
	/* Protected KVM's lazily mapped host memory; write-protected memory */
	{ "stage2_translation", PMBSR_EL1_S | (0x25ULL << 26) | 0x7, ARM_SPE_OUTCOME_REMAP, 0 },
	{ "stage2_translation_l2", PMBSR_EL1_S | (0x25ULL << 26) | 0x6,
	  ARM_SPE_OUTCOME_REMAP, 0 },
	{ "stage2_access_flag", PMBSR_EL1_S | (0x25ULL << 26) | 0xb, ARM_SPE_OUTCOME_REMAP, 0 },
	{ "stage2_permission", PMBSR_EL1_S | (0x25ULL << 26) | 0xf, ARM_SPE_OUTCOME_REMAP, 0 },
	{ "stage2_collision", PMBSR_EL1_S | PMBSR_EL1_COLL | (0x25ULL << 26) | 0x7,
	  ARM_SPE_OUTCOME_REMAP, PERF_AUX_FLAG_COLLISION },
	/* A walk's external abort, an address size fault */
	/* A record cut by a stage-2 fault: padded over, then on */
	{ "stage2_fault_dl", PMBSR_EL1_S | PMBSR_EL1_DL | (0x25ULL << 26) | 0x7,
	  ARM_SPE_OUTCOME_REMAP, PERF_AUX_FLAG_PARTIAL },
	{ "stage2_walk_abort", PMBSR_EL1_S | (0x25ULL << 26) | 0x17, ARM_SPE_OUTCOME_FATAL,
	  PERF_AUX_FLAG_TRUNCATED },
	{ "stage2_address_size", PMBSR_EL1_S | (0x25ULL << 26) | 0x3, ARM_SPE_OUTCOME_FATAL,
	  PERF_AUX_FLAG_TRUNCATED },
	{ "stage2_external_abort", PMBSR_EL1_S | PMBSR_EL1_EA | (0x25ULL << 26) | 0x7,
	  ARM_SPE_OUTCOME_FATAL, PERF_AUX_FLAG_TRUNCATED },
	{ "external_abort", PMBSR_EL1_S | PMBSR_EL1_EA | 1, ARM_SPE_OUTCOME_FATAL,
	  PERF_AUX_FLAG_TRUNCATED },
	{ "gpc_fault", PMBSR_EL1_S | (0x1eULL << 26), ARM_SPE_OUTCOME_FATAL,
	  PERF_AUX_FLAG_TRUNCATED },
	{ "imp_def", PMBSR_EL1_S | (0x1fULL << 26) | 1, ARM_SPE_OUTCOME_FATAL,
	  PERF_AUX_FLAG_TRUNCATED },
};

KUNIT_ARRAY_PARAM_DESC(arm_spe_pmbsr, arm_spe_pmbsr_cases, name);

static void arm_spe_test_pmbsr(struct kunit *test)
{
	const struct arm_spe_pmbsr_case *c = test->param_value;
	u64 flags = 0;

	KUNIT_EXPECT_EQ(test, arm_spe_pmu_pmbsr_decode(c->pmbsr, &flags), c->outcome);
	KUNIT_EXPECT_EQ(test, flags, c->flags);
}

/*
 * Records of packets as the unit writes them: an address packet and END;
 * an extended-header address packet and a TIMESTAMP; two padding bytes;
 * then a record cut in its second packet.
 */
static const u8 arm_spe_test_records[] = {
	0xb0, 1, 2, 3, 4, 5, 6, 7, 8, 0x01,		/* 0: ends at 10 */
	0x20, 0xb0, 1, 2, 3, 4, 5, 6, 7, 8,		/* 10 */
	0x71, 1, 2, 3, 4, 5, 6, 7, 8,			/* 20: ends at 29 */
	0x00, 0x00,					/* 29 */
	0x52, 1, 2, 0xb0, 1, 2, 3,			/* 31: torn at 38 */
};

static void arm_spe_test_whole_records(struct kunit *test)
{
	const u8 *r = arm_spe_test_records;

	KUNIT_EXPECT_PTR_EQ(test, arm_spe_pmu_whole_records(r, r + sizeof(arm_spe_test_records)),
			    r + 29);
	KUNIT_EXPECT_PTR_EQ(test, arm_spe_pmu_whole_records(r, r + 29), r + 29);
	/* Cut in a payload, in an extended header, before any END */
	KUNIT_EXPECT_PTR_EQ(test, arm_spe_pmu_whole_records(r, r + 25), r + 10);
	KUNIT_EXPECT_PTR_EQ(test, arm_spe_pmu_whole_records(r, r + 11), r + 10);
	KUNIT_EXPECT_PTR_EQ(test, arm_spe_pmu_whole_records(r, r + 9), r);
	KUNIT_EXPECT_PTR_EQ(test, arm_spe_pmu_whole_records(r + 10, r + 33), r + 29);
}

/* The torn record is padded over; a window past the walk's bound stops */
static void arm_spe_test_mend(struct kunit *test)
{
	size_t len = ARM_SPE_PMU_WALK_MAX + 1;
	u8 *b = kunit_kzalloc(test, len, GFP_KERNEL);
	u64 flags = 0;

	KUNIT_ASSERT_NOT_NULL(test, b);
	memcpy(b, arm_spe_test_records, sizeof(arm_spe_test_records));
	KUNIT_EXPECT_EQ(test, arm_spe_pmu_mend(b, b + sizeof(arm_spe_test_records), &flags),
			ARM_SPE_OUTCOME_REMAP);
	KUNIT_EXPECT_EQ(test, flags, 0);
	KUNIT_EXPECT_EQ(test, memcmp(b, arm_spe_test_records, 29), 0);
	KUNIT_EXPECT_NULL(test, memchr_inv(b + 29, ARM_SPE_PKT_PAD, len - 29));

	/* A record torn at the bound's last byte, then one byte past it */
	b[len - 2] = 0xb0;
	b[len - 1] = 0xb0;
	KUNIT_EXPECT_EQ(test, arm_spe_pmu_mend(b, b + len, &flags), ARM_SPE_OUTCOME_FATAL);
	KUNIT_EXPECT_EQ(test, flags, PERF_AUX_FLAG_TRUNCATED);
	KUNIT_EXPECT_EQ(test, b[len - 2], 0xb0);
	flags = 0;
	KUNIT_EXPECT_EQ(test, arm_spe_pmu_mend(b, b + len - 1, &flags), ARM_SPE_OUTCOME_REMAP);
	KUNIT_EXPECT_EQ(test, flags, 0);
	KUNIT_EXPECT_EQ(test, b[len - 2], ARM_SPE_PKT_PAD);
	KUNIT_EXPECT_EQ(test, memcmp(b, arm_spe_test_records, 29), 0);
}

static struct kunit_case arm_spe_pmu_test_cases[] = {
	KUNIT_CASE(arm_spe_test_caps_decode),
	KUNIT_CASE(arm_spe_test_caps_read_back),
	KUNIT_CASE_PARAM(arm_spe_test_check_attr, arm_spe_check_gen_params),
	KUNIT_CASE(arm_spe_test_regs_default),
	KUNIT_CASE(arm_spe_test_regs_pmscr),
	KUNIT_CASE(arm_spe_test_regs_filters),
	KUNIT_CASE(arm_spe_test_regs_interval),
	KUNIT_CASE(arm_spe_test_regs_short_interval),
	KUNIT_CASE(arm_spe_test_regs_eft),
	KUNIT_CASE(arm_spe_test_format_visibility),
	KUNIT_CASE(arm_spe_test_caps_visibility),
	KUNIT_CASE_PARAM(arm_spe_test_window, arm_spe_window_gen_params),
	KUNIT_CASE_PARAM(arm_spe_test_pmbsr, arm_spe_pmbsr_gen_params),
	KUNIT_CASE(arm_spe_test_whole_records),
	KUNIT_CASE(arm_spe_test_mend),
	{}
};

static struct kunit_suite arm_spe_pmu_test_suite = {
	.name = "arm_spe_pmu",
	.test_cases = arm_spe_pmu_test_cases,
};

kunit_test_suite(arm_spe_pmu_test_suite);
