// SPDX-License-Identifier: GPL-2.0
/*
 * perf_event_open() errno contract of the arm64 PMUv3 driver: each
 * attribute the driver refuses is refused with its own errno. Every case
 * changes one thing in an attr that opens (raw INST_RETIRED, user only,
 * checked first), so each refusal is about the attribute under test.
 *
 *   unadvertised common event (0x01-0x3f, not CHAIN)  opens (as mainline)
 *   generic hardware event without a mapping           ENOENT
 *   config bits above the 16-bit event number          EINVAL
 *   config1 bits above the threshold field (17+)       EINVAL
 *   config2 != 0                                        EINVAL
 *   threshold > caps/threshold_max                      EINVAL
 *   threshold != 0 without FEAT_PMUv3_TH (max 0)        EOPNOTSUPP
 *   exclude_idle                                        EOPNOTSUPP
 *   CHAIN (0x1e) on its own                             EINVAL
 *   (rdpmc (config1:1) opens on a task event: see pmu_user_access)
 *   long (config1:0) without 64-bit counters or CHAIN   EOPNOTSUPP
 *   (except cycles, whose dedicated counter is 64-bit)
 *   group needing more counters than the PMU has        EINVAL
 *
 * and where `long` opens, it counts exactly and takes one 64-bit counter
 * or a chained pair of 32-bit ones.
 */
#include "pmu_lib.h"

#define ITERS		100000UL
#define MAX_GROUP	64

static struct pmu_info pmu;

static void attr_raw(struct perf_event_attr *attr, uint64_t config)
{
	pmu_attr_user(attr, pmu.type, config);
}

/* Open, close, and compare with the wanted result (0 = must open). */
static void expect_open(struct perf_event_attr *attr, int want,
			const char *name)
{
	int fd = pmu_open(attr, -1);
	int got = fd < 0 ? fd : 0;

	if (fd >= 0)
		close(fd);
	if (got != want)
		ksft_print_msg("%s: got %s, expected %s\n", name,
			       got ? strerror(-got) : "success",
			       want ? strerror(-want) : "success");
	pmu_result(got == want, name);
}

/*
 * expect_open(), or on mainline (PMU_KERNEL=mainline) its own answer under
 * a name of its own: mainline passes raw event numbers and bits outside
 * the format fields through unchecked, and refuses a threshold without
 * FEAT_PMUv3_TH as one above threshold_max (harness/qemu/README.md).
 */
static void expect_open_mainline(struct perf_event_attr *attr, int want,
				 const char *name, int mainline_want,
				 const char *mainline_name)
{
	if (pmu_kernel_mainline())
		expect_open(attr, mainline_want, mainline_name);
	else
		expect_open(attr, want, name);
}

static void test_valid_raw(void)
{
	struct perf_event_attr attr;

	attr_raw(&attr, ARMV8_EVT_INST_RETIRED);
	expect_open(&attr, 0, "raw_inst_retired_opens");
}

static void test_unadvertised_event(void)
{
	const char *name = "unadvertised_common_event_opens";
	struct perf_event_attr attr;
	unsigned int evt;

	for (evt = 0x01; evt < 0x40; evt++)
		if (evt != ARMV8_EVT_CHAIN && !pmu_event_advertised(&pmu, evt))
			break;
	if (evt == 0x40) {
		pmu_skip(name, "every common event 0x01-0x3f is advertised");
		return;
	}
	ksft_print_msg("event 0x%02x is not in %s/events\n", evt, pmu.dir);
	attr_raw(&attr, evt);
	expect_open(&attr, 0, name);
}

static void test_unmapped_hw_event(void)
{
	struct perf_event_attr attr;

	/* No PMUv3 event stands for a constant-rate reference clock. */
	pmu_attr_user(&attr, PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES);
	expect_open(&attr, -ENOENT, "unmapped_hw_ref_cycles_enoent");
}

static void test_reserved_bits(void)
{
	struct perf_event_attr attr;

	attr_raw(&attr, ARMV8_EVT_INST_RETIRED | (1ULL << 16));
	expect_open_mainline(&attr, -EINVAL, "config_bit16_reserved_einval",
			     0, "mainline_config_bit16_ignored");

	attr_raw(&attr, ARMV8_EVT_INST_RETIRED | (1ULL << 63));
	expect_open_mainline(&attr, -EINVAL, "config_bit63_reserved_einval",
			     0, "mainline_config_bit63_ignored");

	attr_raw(&attr, ARMV8_EVT_INST_RETIRED);
	attr.config1 = 1ULL << 17;
	expect_open_mainline(&attr, -EINVAL, "config1_bit17_reserved_einval",
			     0, "mainline_config1_bit17_ignored");

	attr_raw(&attr, ARMV8_EVT_INST_RETIRED);
	attr.config2 = 1;
	expect_open_mainline(&attr, -EINVAL, "config2_nonzero_einval",
			     0, "mainline_config2_ignored");
}

static void test_threshold(void)
{
	const char *above = "threshold_above_threshold_max_einval";
	struct perf_event_attr attr;
	uint64_t max = 0;

	if (pmu_sysfs_u64(&pmu, "caps/threshold_max", &max))
		ksft_print_msg("no caps/threshold_max: taking 0\n");
	ksft_print_msg("threshold_max %" PRIu64 "\n", max);

	attr_raw(&attr, ARMV8_EVT_INST_RETIRED);
	if (!max) {
		attr.config1 = 1ULL << PMU_CFG1_TH_SHIFT;
		expect_open_mainline(&attr, -EOPNOTSUPP,
				     "threshold_without_feat_pmuv3_th_eopnotsupp",
				     -EINVAL,
				     "mainline_threshold_without_feat_pmuv3_th_einval");
	} else {
		attr.config1 = max << PMU_CFG1_TH_SHIFT;
		expect_open(&attr, 0, "threshold_at_threshold_max_opens");
	}

	if (!max) {
		pmu_skip(above, "threshold_max is 0");
	} else if (max >= PMU_CFG1_TH_MASK) {
		pmu_skip(above, "threshold_max fills the threshold field");
	} else {
		attr_raw(&attr, ARMV8_EVT_INST_RETIRED);
		attr.config1 = (max + 1) << PMU_CFG1_TH_SHIFT;
		expect_open(&attr, -EINVAL, above);
	}
}

static void test_modifiers(void)
{
	struct perf_event_attr attr;

	attr_raw(&attr, ARMV8_EVT_INST_RETIRED);
	attr.exclude_idle = 1;
	expect_open(&attr, -EOPNOTSUPP, "exclude_idle_eopnotsupp");

	attr_raw(&attr, ARMV8_EVT_CHAIN);
	expect_open(&attr, -EINVAL, "chain_event_alone_einval");

	attr_raw(&attr, ARMV8_EVT_INST_RETIRED);
	attr.config1 = PMU_CFG1_RDPMC;
	expect_open(&attr, 0, "rdpmc_task_event_opens");
}

/*
 * Does the PMU implement the CHAIN event? EL0 cannot read PMCEID and the
 * driver does not list chain (it cannot be opened alone): PMU_CHAIN=0/1,
 * which selftests.plan sets from the CPU model, else unknown.
 */
static int has_chain(void)
{
	return pmu_env_bool("PMU_CHAIN");
}

static const char *tristate(int v)
{
	return v < 0 ? "unknown" : v ? "yes" : "no";
}

/*
 * How many INST_RETIRED events with this config1 fit in one group; *err
 * gets the refused open's -errno (0 if MAX_GROUP fit). Every member is
 * opened enabled, so that group validation accounts for all of them.
 */
static int group_size(uint64_t config1, int *err)
{
	struct perf_event_attr attr;
	int fds[MAX_GROUP], n, i;

	attr_raw(&attr, ARMV8_EVT_INST_RETIRED);
	attr.config1 = config1;
	attr.disabled = 0;
	*err = 0;
	for (n = 0; n < MAX_GROUP; n++) {
		fds[n] = pmu_open(&attr, n ? fds[0] : -1);
		if (fds[n] < 0) {
			*err = fds[n];
			break;
		}
	}
	for (i = 0; i < n; i++)
		close(fds[i]);
	return n;
}

static void test_long(void)
{
	const char *name_open = "long_counter_open_matches_capability";
	const char *name_count = "long_counter_counts_exactly";
	const char *name_width = "long_counter_takes_one_counter_or_a_chained_pair";
	int wide = pmu_has_64bit_counters(), chain = has_chain();
	int want, fd, got, plain, longs, err;
	struct perf_event_attr attr;
	int64_t v;

	want = wide == 1 || chain == 1 ? 1 : wide == 0 && chain == 0 ? 0 : -1;
	ksft_print_msg("64-bit counters %s, CHAIN %s: long should %s\n",
		       tristate(wide), tristate(chain),
		       want < 0 ? "open or fail with EOPNOTSUPP" :
		       want ? "open" : "fail with EOPNOTSUPP");

	attr_raw(&attr, ARMV8_EVT_INST_RETIRED);
	attr.config1 = PMU_CFG1_LONG;
	fd = pmu_open(&attr, -1);
	got = fd < 0 ? fd : 0;
	ksft_print_msg("long open: %s\n", got ? strerror(-got) : "success");
	if (want == 1)
		pmu_result(!got, name_open);
	else if (want == 0)
		pmu_result(got == -EOPNOTSUPP, name_open);
	else
		pmu_result(!got || got == -EOPNOTSUPP, name_open);

	if (fd < 0) {
		pmu_skip(name_count, "the long event did not open");
		pmu_skip(name_width, "the long event did not open");
		return;
	}
	v = pmu_measure(fd, ITERS);
	ksft_print_msg("long instructions:u %" PRId64 ", expected %" PRIu64 "\n",
		       v, pmu_expected_user(ITERS));
	pmu_result(v == (int64_t)pmu_expected_user(ITERS), name_count);
	close(fd);

	/*
	 * A long event needs one 64-bit counter, or two 32-bit counters
	 * joined by CHAIN: a group holds as many long events as plain ones
	 * on a 64-bit PMU, half as many on a 32-bit one.
	 */
	if (wide < 0) {
		pmu_skip(name_width, "counter width unknown");
		return;
	}
	plain = group_size(0, &err);
	longs = group_size(PMU_CFG1_LONG, &err);
	ksft_print_msg("a group holds %d plain and %d long events\n", plain,
		       longs);
	pmu_result(plain > 1 && longs == (wide ? plain : plain / 2),
		   name_width);
}

/*
 * The cycle counter is 64 bits wide on every PMUv3, so a long cycles event
 * opens even where event counters can neither be 64-bit nor chained (KVM
 * asks for exactly this for a guest's cycle counter). Under -icount
 * shift=0 user cycles track user instructions, within pmu_cycles_slack().
 */
static void test_long_cycles(void)
{
	struct perf_event_attr attr;
	int64_t v, want, slack;
	int fd;

	attr_raw(&attr, ARMV8_EVT_CPU_CYCLES);
	attr.config1 = PMU_CFG1_LONG;
	fd = pmu_open(&attr, -1);
	pmu_result(fd >= 0, "long_cycles_open_on_every_pmu");
	if (fd < 0) {
		pmu_skip("long_cycles_count_user_cycles", "the long cycles event did not open");
		return;
	}
	v = pmu_measure(fd, ITERS);
	want = pmu_expected_user(ITERS);
	slack = pmu_cycles_slack(want);
	ksft_print_msg("long cycles:u %" PRId64 ", user instructions %" PRId64 "\n", v, want);
	pmu_result(v >= want - slack && v <= want + slack, "long_cycles_count_user_cycles");
	close(fd);
}

static void test_group_overflow(void)
{
	int n, err;

	n = group_size(0, &err);
	ksft_print_msg("group: %d events opened, next: %s\n", n,
		       err ? strerror(-err) : "not tried");
	pmu_result(n >= 1 && err == -EINVAL, "group_over_counters_einval");
}

int main(void)
{
	ksft_print_header();
	pmu_find_or_skip(&pmu);
	ksft_set_plan(18);

	test_valid_raw();
	test_unadvertised_event();
	test_unmapped_hw_event();
	test_reserved_bits();
	test_threshold();
	test_modifiers();
	test_long();
	test_long_cycles();
	test_group_overflow();

	ksft_finished();
}
