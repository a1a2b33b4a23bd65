// SPDX-License-Identifier: GPL-2.0
/*
 * Counting-mode checks of the arm64 PMUv3 driver: exact user-only
 * instruction counts, exception-level filtering, cycles against
 * instructions, and raw events against the generic hardware events.
 *
 * Run under QEMU TCG with -icount shift=0 every user instruction is counted
 * exactly once, so user-only counts are asserted exactly (see pmu_lib.h for
 * the derivation of the window overhead). Counts that include the kernel
 * depend on timer interrupts and are asserted against stated bounds.
 */
#include "pmu_lib.h"

/* Loop sizes for the exact counts: edge (1), small, and several ticks long. */
static const unsigned long exact_iters[] = { 1, 10, 1000, 100000, 1000000,
					      4000000 };
#define EXACT_REPEATS	3

/* Two lengths for the delta and the kernel-only growth checks. */
#define SHORT_ITERS	1000UL
#define LONG_ITERS	1001000UL
#define KERNEL_REPEATS	7

/*
 * A kernel-only count must not see the user loop. Between SHORT_ITERS and
 * LONG_ITERS the loop grows by 2,000,000 user instructions (2 ms of virtual
 * time at one instruction per ns, i.e. at most one 4 ms tick more), so the
 * smallest kernel-only count of several runs may grow by at most 1% of that:
 * a filter that let EL0 through would add the whole 2,000,000.
 */
#define KERNEL_GROWTH_PCT	1

/*
 * all-levels vs user + kernel: the three counters are one group, switched
 * on and off together by the PMU-wide enable, so the identity is exact;
 * allow a handful of instructions for a driver that starts the counters of
 * a group one at a time.
 */
#define LEVELS_SLACK		16

/*
 * exclude_hv on a kernel-only count: on a VHE host the kernel is the
 * hypervisor and exclude_hv is ignored; on an nVHE host it excludes EL2,
 * where nothing runs for a task that does not use KVM. Either way the two
 * grouped counts are equal; allow the same slack as above.
 */
#define HV_SLACK		16

static struct pmu_info pmu;

static int open_counter(uint32_t type, uint64_t config, bool excl_user,
			bool excl_kernel, bool excl_hv, int group_fd)
{
	struct perf_event_attr attr;

	pmu_attr_user(&attr, type, config);
	attr.exclude_user = excl_user;
	attr.exclude_kernel = excl_kernel;
	attr.exclude_hv = excl_hv;
	/* Group members follow their leader; only the leader starts off. */
	attr.disabled = group_fd < 0;
	return pmu_open(&attr, group_fd);
}

static int open_user_instructions(void)
{
	return open_counter(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS,
			    false, true, true, -1);
}

/* Run one window over a whole group; 0 on success. */
static int measure_group(int leader, unsigned long iters)
{
	long ret;

	if (ioctl(leader, PERF_EVENT_IOC_RESET, PERF_IOC_FLAG_GROUP))
		return -1;
	ret = pmu_run_ioctl(leader, 0, iters);
	if (ret) {
		ksft_print_msg("group enable/disable failed: %ld\n", ret);
		return -1;
	}
	return 0;
}

static void close_all(int *fds, int n)
{
	while (n--)
		if (fds[n] >= 0)
			close(fds[n]);
}

static void test_user_exact(void)
{
	char name[80];
	unsigned int i, r;
	int fd;

	fd = open_user_instructions();
	for (i = 0; i < ARRAY_SIZE(exact_iters); i++) {
		unsigned long n = exact_iters[i];
		uint64_t want = pmu_expected_user(n);
		bool pass = fd >= 0;

		for (r = 0; pass && r < EXACT_REPEATS; r++) {
			int64_t got = pmu_measure(fd, n);

			if (got != (int64_t)want) {
				ksft_print_msg("iters %lu run %u: instructions:u %" PRId64
					       ", expected %" PRIu64 "\n",
					       n, r, got, want);
				pass = false;
			}
		}
		snprintf(name, sizeof(name),
			 "user_instructions_exact_%lu_iterations", n);
		pmu_result(pass, name);
	}
	if (fd < 0)
		ksft_print_msg("open instructions:u: %s\n", strerror(-fd));
	else
		close(fd);
}

/* Independent of the overhead constant: each iteration is 2 instructions. */
static void test_user_delta(void)
{
	int64_t a, b;
	int fd;

	fd = open_user_instructions();
	a = fd >= 0 ? pmu_measure(fd, SHORT_ITERS) : -1;
	b = fd >= 0 ? pmu_measure(fd, LONG_ITERS) : -1;
	ksft_print_msg("instructions:u %lu iters: %" PRId64 ", %lu iters: %" PRId64 "\n",
		       SHORT_ITERS, a, LONG_ITERS, b);
	pmu_result(a >= 0 && b >= 0 &&
		   b - a == 2 * (int64_t)(LONG_ITERS - SHORT_ITERS),
		   "user_instructions_delta_two_per_iteration");
	if (fd >= 0)
		close(fd);
}

/* A disabled counter must not move while the loop runs again. */
static void test_disabled_stays(void)
{
	int64_t before, after = -1;
	int fd;

	fd = open_user_instructions();
	before = fd >= 0 ? pmu_measure(fd, SHORT_ITERS) : -1;
	if (before >= 0) {
		/* Same loop, framed by harmless getpid() calls instead. */
		pmu_window(__NR_getpid, 0, 0, 0, LONG_ITERS, 0, 0, 0);
		after = pmu_read_count(fd);
	}
	ksft_print_msg("disabled counter: %" PRId64 " before, %" PRId64 " after another loop\n",
		       before, after);
	pmu_result(before == (int64_t)pmu_expected_user(SHORT_ITERS) &&
		   after == before, "disabled_counter_does_not_count");
	if (fd >= 0)
		close(fd);
}

static int64_t min_kernel_count(int fd, unsigned long iters)
{
	int64_t best = -1;
	int r;

	for (r = 0; r < KERNEL_REPEATS; r++) {
		int64_t v = pmu_measure(fd, iters);

		if (v < 0)
			return -1;
		if (best < 0 || v < best)
			best = v;
	}
	return best;
}

static void test_kernel_only(void)
{
	int64_t k_short = -1, k_long = -1, limit;
	int fd;

	fd = open_counter(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS,
			  true, false, false, -1);
	if (fd >= 0) {
		k_short = min_kernel_count(fd, SHORT_ITERS);
		k_long = min_kernel_count(fd, LONG_ITERS);
		close(fd);
	} else {
		ksft_print_msg("open instructions:k: %s\n", strerror(-fd));
	}
	limit = 2 * (int64_t)(LONG_ITERS - SHORT_ITERS) *
		KERNEL_GROWTH_PCT / 100;
	ksft_print_msg("instructions:k (min of %d) %lu iters: %" PRId64 ", %lu iters: %" PRId64
		       ", growth limit %" PRId64 "\n",
		       KERNEL_REPEATS, SHORT_ITERS, k_short, LONG_ITERS, k_long,
		       limit);
	/* The enable/disable system calls themselves run in the kernel. */
	pmu_result(k_short > 0, "kernel_only_instructions_count_syscall_path");
	pmu_result(k_short > 0 && k_long >= 0 && k_long - k_short <= limit,
		   "kernel_only_instructions_exclude_user_loop");
}

static void test_levels_sum(void)
{
	int fds[3] = { -1, -1, -1 };
	int64_t all = -1, u = -1, k = -1;
	bool pass = false;
	int r;

	fds[0] = open_counter(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS,
			      false, false, false, -1);
	if (fds[0] >= 0) {
		fds[1] = open_counter(PERF_TYPE_HARDWARE,
				      PERF_COUNT_HW_INSTRUCTIONS, false, true,
				      true, fds[0]);
		fds[2] = open_counter(PERF_TYPE_HARDWARE,
				      PERF_COUNT_HW_INSTRUCTIONS, true, false,
				      false, fds[0]);
	}
	if (fds[0] >= 0 && fds[1] >= 0 && fds[2] >= 0) {
		pass = true;
		for (r = 0; r < 3 && pass; r++) {
			if (measure_group(fds[0], r ? LONG_ITERS : SHORT_ITERS)) {
				pass = false;
				break;
			}
			all = pmu_read_count(fds[0]);
			u = pmu_read_count(fds[1]);
			k = pmu_read_count(fds[2]);
			ksft_print_msg("run %d: all %" PRId64 " user %" PRId64 " kernel %" PRId64
				       " diff %" PRId64 "\n",
				       r, all, u, k, all - (u + k));
			pass = u > 0 && k > 0 &&
			       pmu_absdiff(all, u + k) <= LEVELS_SLACK;
		}
	} else {
		ksft_print_msg("opening the all/user/kernel group failed\n");
	}
	pmu_result(pass, "all_levels_equals_user_plus_kernel");
	close_all(fds, 3);
}

static void test_exclude_hv(void)
{
	int fds[2] = { -1, -1 };
	int64_t k = -1, k_nohv = -1;
	bool pass = false;
	char cmdline[1024] = "";
	bool nvhe;

	pmu_read_sysfs("/proc/cmdline", cmdline, sizeof(cmdline));
	nvhe = strstr(cmdline, "kvm-arm.mode=nvhe") ||
	       strstr(cmdline, "kvm-arm.mode=protected");
	ksft_print_msg("host kernel: %s\n", nvhe ? "nVHE (exclude_hv drops EL2)" :
		       "VHE or EL1 (exclude_hv ignored)");

	fds[0] = open_counter(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS,
			      true, false, false, -1);
	if (fds[0] >= 0)
		fds[1] = open_counter(PERF_TYPE_HARDWARE,
				      PERF_COUNT_HW_INSTRUCTIONS, true, false,
				      true, fds[0]);
	if (fds[0] >= 0 && fds[1] >= 0 && !measure_group(fds[0], LONG_ITERS)) {
		k = pmu_read_count(fds[0]);
		k_nohv = pmu_read_count(fds[1]);
		pass = k > 0 && k_nohv > 0 &&
		       pmu_absdiff(k, k_nohv) <= HV_SLACK;
	}
	ksft_print_msg("instructions:k %" PRId64 ", with exclude_hv %" PRId64 "\n",
		       k, k_nohv);
	pmu_result(pass, "exclude_hv_does_not_change_kernel_count");
	close_all(fds, 2);
}

static void test_cycles_vs_instructions(void)
{
	int fds[2] = { -1, -1 };
	int64_t cyc = -1, ins = -1, slack;
	bool pass = false;

	fds[0] = open_counter(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS,
			      false, true, true, -1);
	if (fds[0] >= 0)
		fds[1] = open_counter(PERF_TYPE_HARDWARE,
				      PERF_COUNT_HW_CPU_CYCLES, false, true,
				      true, fds[0]);
	if (fds[0] >= 0 && fds[1] >= 0 && !measure_group(fds[0], LONG_ITERS)) {
		ins = pmu_read_count(fds[0]);
		cyc = pmu_read_count(fds[1]);
	}
	slack = pmu_cycles_slack(ins);
	ksft_print_msg("cycles:u %" PRId64 ", instructions:u %" PRId64
		       ", allowed difference %" PRId64 "\n",
		       cyc, ins, slack);
	pass = ins == (int64_t)pmu_expected_user(LONG_ITERS) && cyc > 0 &&
	       (int64_t)pmu_absdiff(cyc, ins) <= slack;
	pmu_result(pass, "user_cycles_track_user_instructions");
	close_all(fds, 2);
}

/* A raw INST_RETIRED of the given type, grouped with the generic event. */
static void test_raw_vs_hw(uint32_t type, const char *name)
{
	int fds[2] = { -1, -1 };
	int64_t hw = -1, raw = -1;

	fds[0] = open_counter(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS,
			      false, true, true, -1);
	if (fds[0] >= 0)
		fds[1] = open_counter(type, ARMV8_EVT_INST_RETIRED, false,
				      true, true, fds[0]);
	if (fds[0] >= 0 && fds[1] >= 0 && !measure_group(fds[0], LONG_ITERS)) {
		hw = pmu_read_count(fds[0]);
		raw = pmu_read_count(fds[1]);
	} else {
		ksft_print_msg("open/run of type %u config 0x08 failed (%d)\n",
			       type, fds[1]);
	}
	ksft_print_msg("%s: hardware %" PRId64 ", raw %" PRId64 "\n", name, hw,
		       raw);
	pmu_result(hw == (int64_t)pmu_expected_user(LONG_ITERS) && raw == hw,
		   name);
	close_all(fds, 2);
}

int main(void)
{
	ksft_print_header();
	pmu_find_or_skip(&pmu);
	ksft_set_plan(ARRAY_SIZE(exact_iters) + 9);

	test_user_exact();
	test_user_delta();
	test_disabled_stays();
	test_kernel_only();
	test_levels_sum();
	test_exclude_hv();
	test_cycles_vs_instructions();
	test_raw_vs_hw(pmu.type, "pmu_type_inst_retired_equals_hw_instructions");
	test_raw_vs_hw(PERF_TYPE_RAW, "raw_type_inst_retired_equals_hw_instructions");

	ksft_finished();
}
