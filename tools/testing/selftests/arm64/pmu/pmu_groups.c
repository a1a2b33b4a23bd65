// SPDX-License-Identifier: GPL-2.0
/*
 * Event-group checks of the arm64 PMUv3 driver: a group is scheduled as one
 * unit (time_running == time_enabled for every member), its members count
 * the same as they do alone, and a group needing more counters than the PMU
 * has is refused at perf_event_open() with EINVAL, as the arm_pmu
 * framework's group validation does.
 */
#include "pmu_lib.h"

#define ITERS		1000000UL
#define MAX_GROUP	64

struct group_read {
	uint64_t nr;
	uint64_t time_enabled;
	uint64_t time_running;
	struct {
		uint64_t value;
		uint64_t id;
	} v[MAX_GROUP + 1];
};

static struct pmu_info pmu;

/* Cycle counts of separate runs, or of two counters counting CPU_CYCLES */
static bool cycles_close(int64_t a, int64_t b)
{
	int64_t ref = a > b ? a : b;

	return a > 0 && b > 0 &&
	       (int64_t)pmu_absdiff(a, b) <= pmu_cycles_slack(ref);
}

static int open_member(uint32_t type, uint64_t config, int group_fd,
		       bool disabled)
{
	struct perf_event_attr attr;

	pmu_attr_user(&attr, type, config);
	attr.disabled = disabled;
	attr.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID |
			   PERF_FORMAT_TOTAL_TIME_ENABLED |
			   PERF_FORMAT_TOTAL_TIME_RUNNING;
	return pmu_open(&attr, group_fd);
}

static void close_all(int *fds, int n)
{
	while (n--)
		if (fds[n] >= 0)
			close(fds[n]);
}

/* Reset the group, run one window with the leader switched on, read it. */
static int run_group(int leader, unsigned long iters, struct group_read *gr)
{
	ssize_t want;
	long ret;

	memset(gr, 0, sizeof(*gr));
	if (ioctl(leader, PERF_EVENT_IOC_DISABLE, 0) ||
	    ioctl(leader, PERF_EVENT_IOC_RESET, PERF_IOC_FLAG_GROUP))
		return -1;
	ret = pmu_run_ioctl(leader, 0, iters);
	if (ret) {
		ksft_print_msg("group enable/disable: %ld\n", ret);
		return -1;
	}
	if (read(leader, gr, sizeof(*gr)) < 3 * (ssize_t)sizeof(uint64_t))
		return -1;
	want = (3 + 2 * gr->nr) * sizeof(uint64_t);
	return gr->nr <= MAX_GROUP + 1 && want <= (ssize_t)sizeof(*gr) ? 0 : -1;
}

static int64_t standalone(uint64_t config)
{
	int fd = open_member(PERF_TYPE_HARDWARE, config, -1, true);
	struct group_read gr;
	int64_t v = -1;

	if (fd < 0)
		return -1;
	if (!run_group(fd, ITERS, &gr) && gr.nr == 1)
		v = gr.v[0].value;
	close(fd);
	return v;
}

/* instructions:u leader with cycles:u and raw INST_RETIRED / CPU_CYCLES. */
static void test_mixed_group(void)
{
	static const char * const what[] = { "instructions:u", "cycles:u",
					      "raw 0x08:u", "raw 0x11:u" };
	int64_t expect = pmu_expected_user(ITERS), solo_ins, solo_cyc;
	int fds[4] = { -1, -1, -1, -1 };
	struct group_read gr;
	bool ok = false, ids = false;
	uint64_t i;

	fds[0] = open_member(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS,
			     -1, true);
	if (fds[0] >= 0) {
		fds[1] = open_member(PERF_TYPE_HARDWARE,
				     PERF_COUNT_HW_CPU_CYCLES, fds[0], false);
		fds[2] = open_member(pmu.type, ARMV8_EVT_INST_RETIRED, fds[0],
				     false);
		fds[3] = open_member(pmu.type, ARMV8_EVT_CPU_CYCLES, fds[0],
				     false);
	}
	if (fds[0] >= 0 && fds[1] >= 0 && fds[2] >= 0 && fds[3] >= 0)
		ok = !run_group(fds[0], ITERS, &gr) && gr.nr == 4;
	else
		ksft_print_msg("open: %d %d %d %d\n", fds[0], fds[1], fds[2],
			       fds[3]);

	if (ok) {
		ids = true;
		for (i = 0; i < 4; i++) {
			uint64_t id = 0;

			ioctl(fds[i], PERF_EVENT_IOC_ID, &id);
			ids &= gr.v[i].id == id;
			ksft_print_msg("%-15s %" PRIu64 "\n", what[i],
				       gr.v[i].value);
		}
		ksft_print_msg("time enabled %" PRIu64 " running %" PRIu64 "\n",
			       gr.time_enabled, gr.time_running);
	}
	pmu_result(ok && ids, "group_read_returns_every_member_by_id");
	pmu_result(ok && gr.time_enabled > 0 &&
		   gr.time_running == gr.time_enabled,
		   "group_members_scheduled_together");
	pmu_result(ok && (int64_t)gr.v[0].value == expect,
		   "group_instructions_exact");
	pmu_result(ok && gr.v[2].value == gr.v[0].value,
		   "group_raw_inst_retired_equals_instructions");
	pmu_result(ok && cycles_close(gr.v[3].value, gr.v[1].value),
		   "group_raw_cpu_cycles_matches_cycles");

	solo_ins = standalone(PERF_COUNT_HW_INSTRUCTIONS);
	solo_cyc = standalone(PERF_COUNT_HW_CPU_CYCLES);
	ksft_print_msg("standalone: instructions:u %" PRId64 " cycles:u %" PRId64 "\n",
		       solo_ins, solo_cyc);
	pmu_result(ok && solo_ins == (int64_t)gr.v[0].value &&
		   cycles_close(solo_cyc, gr.v[1].value),
		   "group_counts_match_standalone_counts");
	close_all(fds, 4);
}

/*
 * Add instructions:u members, all enabled so that group validation counts
 * every one of them, until perf_event_open() fails. Returns the group size
 * reached; *err gets the failing open's -errno (0 if MAX_GROUP was reached).
 */
static int build_group(uint64_t leader_config, int *fds, int *err)
{
	int n;

	*err = 0;
	for (n = 0; n < MAX_GROUP; n++) {
		fds[n] = open_member(PERF_TYPE_HARDWARE,
				     n ? PERF_COUNT_HW_INSTRUCTIONS : leader_config,
				     n ? fds[0] : -1, false);
		if (fds[n] < 0) {
			*err = fds[n];
			break;
		}
	}
	return n;
}

/* Every member counted the whole window exactly; the leader may be cycles. */
static bool group_counts_all(int *fds, int n, bool cycles_leader)
{
	int64_t expect = pmu_expected_user(ITERS);
	struct group_read gr;
	bool ok;
	int i;

	if (n < 1 || run_group(fds[0], ITERS, &gr) || gr.nr != (uint64_t)n)
		return false;
	ok = gr.time_enabled > 0 && gr.time_running == gr.time_enabled;
	for (i = cycles_leader ? 1 : 0; i < n; i++)
		if ((int64_t)gr.v[i].value != expect) {
			ksft_print_msg("member %d: %" PRIu64 " (expected %" PRId64 ")\n",
				       i, gr.v[i].value, expect);
			ok = false;
		}
	if (cycles_leader)
		ok &= cycles_close(gr.v[0].value, expect);
	ksft_print_msg("group of %d: enabled %" PRIu64 " running %" PRIu64 "\n",
		       n, gr.time_enabled, gr.time_running);
	return ok;
}

static void test_group_limit(void)
{
	int fds[MAX_GROUP], n, m, err, err2;

	n = build_group(PERF_COUNT_HW_INSTRUCTIONS, fds, &err);
	ksft_print_msg("instructions:u group: %d members open, next open: %s\n",
		       n, err ? strerror(-err) : "not tried");
	pmu_result(n >= 1 && n < MAX_GROUP && err == -EINVAL,
		   "group_beyond_counters_rejected_einval");
	pmu_result(n >= 1 && group_counts_all(fds, n, false),
		   "group_at_counter_limit_counts_every_member");
	close_all(fds, n);

	/*
	 * CPU_CYCLES has the dedicated cycle counter, so a cycles leader
	 * fits next to as many instructions members as before.
	 */
	m = build_group(PERF_COUNT_HW_CPU_CYCLES, fds, &err2);
	ksft_print_msg("cycles:u + instructions:u group: %d members open, next open: %s\n",
		       m, err2 ? strerror(-err2) : "not tried");
	pmu_result(n >= 1 && m == n + 1 && err2 == -EINVAL &&
		   group_counts_all(fds, m, true),
		   "group_cycles_leader_uses_cycle_counter");
	close_all(fds, m);
}

/*
 * An architectural event of known count in the window (pmu_lib.h): user
 * BR_RETIRED is one b.ne per iteration, as no other instruction of the
 * window branches, and interrupts add none at EL0. Counted as one group
 * with instructions:u, both must be exact together. (EXC_TAKEN is not:
 * timer interrupts taken from EL0 during the window add to it.)
 */
static void test_exact_branch_group(void)
{
	const char *name = "group_br_retired_and_instructions_exact";
	struct group_read gr;
	int fds[2];
	bool pass;

	if (!pmu_event_advertised(&pmu, ARMV8_EVT_BR_RETIRED)) {
		pmu_skip(name, "PMU does not count BR_RETIRED (Debian's QEMU)");
		return;
	}
	fds[0] = open_member(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, -1, true);
	fds[1] = open_member(pmu.type, ARMV8_EVT_BR_RETIRED, fds[0], false);
	pass = fds[0] >= 0 && fds[1] >= 0 && !run_group(fds[0], ITERS, &gr) && gr.nr == 2;
	if (pass) {
		ksft_print_msg("instructions:u %" PRIu64 ", br_retired:u %" PRIu64 "\n",
			       gr.v[0].value, gr.v[1].value);
		pass = gr.v[0].value == pmu_expected_user(ITERS) && gr.v[1].value == ITERS &&
		       gr.time_enabled == gr.time_running;
	}
	pmu_result(pass, name);
	close_all(fds, 2);
}

int main(void)
{
	ksft_print_header();
	pmu_find_or_skip(&pmu);
	ksft_set_plan(10);

	test_mixed_group();
	test_group_limit();
	test_exact_branch_group();

	ksft_finished();
}
