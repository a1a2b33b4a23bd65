// SPDX-License-Identifier: GPL-2.0
/*
 * Multiplexing checks of the arm64 PMUv3 driver. The number of counters an
 * instructions:u event can use is found by opening more and more
 * independent events until one of them is not scheduled. Twice that many
 * events are then run over a loop lasting many multiplexing intervals: each
 * must get a share of the counters, the counters must stay busy, and each
 * count scaled by time_enabled / time_running must estimate the true
 * instruction count of the loop. Then groups of instructions and BR_RETIRED,
 * twice as many as fit, must rotate with their members in step.
 */
#include "pmu_lib.h"

#define MAX_EVENTS	64
#define PROBE_ITERS	10000UL		/* far shorter than one mux interval */
#define WINDOW_ITERS	50000000UL	/* 100,000,006 instructions per window */
#define MAX_WINDOWS	200
#define ROTATIONS	25		/* intervals the measured run must last */

/*
 * The loop runs at a constant rate, so scaling is only off by the kernel
 * time inside the enabled time, which the user-only counts do not see but
 * time_running may include: above all the prctl() that enables and disables
 * the events one by one (tens of microseconds for a dozen events), plus
 * ticks and the rotations themselves. With 100 ms windows that is well
 * under 1% under QEMU, and under 4% on a debug kernel (KASAN, lockdep),
 * whose prctl() and rotations take many times longer; with 20 ms windows
 * the debug kernel was 10% off. Allowed: 5% for every event.
 */
#define SCALE_PCT	5

/*
 * With twice as many events as counters and round-robin rotation, every
 * counter should hold some event at all times: the running times add up to
 * N counters * time_enabled, less rotation gaps. Allowed: 10% short.
 */
#define BUSY_PCT	10

/* The most two-member groups opened at once */
#define GROUP_MAX	32

struct group_reading {
	uint64_t nr, enabled, running;
	uint64_t value[2];
};

struct reading {
	uint64_t value, enabled, running;
};

static int open_events(int *fds, int n)
{
	struct perf_event_attr attr;
	int i;

	pmu_attr_user(&attr, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS);
	attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			   PERF_FORMAT_TOTAL_TIME_RUNNING;
	for (i = 0; i < n; i++) {
		fds[i] = pmu_open(&attr, -1);
		if (fds[i] < 0) {
			ksft_print_msg("open event %d: %s\n", i,
				       strerror(-fds[i]));
			while (i--)
				close(fds[i]);
			return -1;
		}
	}
	return 0;
}

static void close_events(int *fds, int n)
{
	while (n--)
		close(fds[n]);
}

static int read_events(int *fds, int n, struct reading *r)
{
	int i;

	for (i = 0; i < n; i++)
		if (read(fds[i], &r[i], sizeof(r[i])) != sizeof(r[i]))
			return -1;
	return 0;
}

/*
 * The largest n for which n events all run the whole time, or -1. Also
 * reports whether, at that n, every event counted the loop exactly.
 */
static int count_counters(bool *exact_at_n)
{
	static struct reading r[MAX_EVENTS];
	int fds[MAX_EVENTS], n, i;
	bool all_full, exact;

	*exact_at_n = false;
	for (n = 1; n <= MAX_EVENTS; n++) {
		if (open_events(fds, n))
			return -1;
		if (pmu_run_prctl(PROBE_ITERS) || read_events(fds, n, r)) {
			close_events(fds, n);
			return -1;
		}
		close_events(fds, n);
		all_full = true;
		exact = true;
		for (i = 0; i < n; i++) {
			all_full &= r[i].running == r[i].enabled &&
				    r[i].enabled > 0;
			exact &= r[i].value == pmu_expected_user(PROBE_ITERS);
		}
		if (!all_full) {
			ksft_print_msg("%d events: event %d ran %" PRIu64 " of %" PRIu64 " ns\n",
				       n, n - 1, r[n - 1].running,
				       r[n - 1].enabled);
			return n - 1;
		}
		*exact_at_n = exact;
	}
	return -1;
}

static int open_branch_groups(const struct pmu_info *pmu, int *fds, int n)
{
	struct perf_event_attr attr;
	int i;

	for (i = 0; i < 2 * n; i++) {
		bool leader = !(i & 1);

		pmu_attr_user(&attr, leader ? PERF_TYPE_HARDWARE : pmu->type,
			      leader ? PERF_COUNT_HW_INSTRUCTIONS : ARMV8_EVT_BR_RETIRED);
		attr.disabled = leader;
		attr.read_format = PERF_FORMAT_GROUP |
				   PERF_FORMAT_TOTAL_TIME_ENABLED |
				   PERF_FORMAT_TOTAL_TIME_RUNNING;
		fds[i] = pmu_open(&attr, leader ? -1 : fds[i - 1]);
		if (fds[i] < 0) {
			ksft_print_msg("open group member %d: %s\n", i,
				       strerror(-fds[i]));
			close_events(fds, i);
			return -1;
		}
	}
	return 0;
}

/*
 * Groups of {instructions:u, br_retired:u} rotate as units, so within a
 * group both members see the same stretch of user code. In a window that
 * is 2 instructions per branch (subs + b.ne) plus the window's own
 * PMU_WINDOW_OVERHEAD branch-free instructions. A stretch that starts or
 * ends between the subs and the b.ne of one iteration is off by one
 * instruction at each end: for one group, |instructions - 2 * branches| is
 * at most PMU_WINDOW_OVERHEAD per window plus 2 per time the group was
 * scheduled in, which happens at most once per window and once per
 * rotation. A member that started or stopped a single tick apart from its
 * leader would be off by millions.
 */
static bool group_in_step(const struct group_reading *g, int windows,
			  uint64_t interval_ns)
{
	uint64_t instr = g->value[0], branches = g->value[1];
	uint64_t sched_ins = windows + g->enabled / interval_ns + 1;
	uint64_t bound = windows * PMU_WINDOW_OVERHEAD + 2 * sched_ins;
	uint64_t truth = windows * WINDOW_ITERS;
	double scaled = g->running ?
		(double)branches * g->enabled / g->running : 0;
	double err = (scaled - truth) * 100.0 / truth;

	ksft_print_msg("group: instructions %" PRIu64 " branches %" PRIu64
		       " running %" PRIu64 "/%" PRIu64 " |i-2b| %" PRIu64
		       " (bound %" PRIu64 ") scaled branches %+.3f%%\n",
		       instr, branches, g->running, g->enabled,
		       pmu_absdiff(instr, 2 * branches), bound, err);
	return g->nr == 2 && g->running > 0 && g->running < g->enabled &&
	       pmu_absdiff(instr, 2 * branches) <= bound &&
	       err <= SCALE_PCT && err >= -SCALE_PCT;
}

/*
 * Twice as many two-member groups as fit at once: each group's members
 * must stay in step through every rotation.
 */
static void test_rotating_groups(const struct pmu_info *pmu, int counters,
				 uint64_t interval_ms)
{
	const char *name = "overcommitted_groups_rotate_members_in_step";
	static struct group_reading g[GROUP_MAX];
	uint64_t need_ns = ROTATIONS * interval_ms * 1000000ULL;
	int fds[2 * GROUP_MAX], groups = counters, windows = 0, i;
	bool pass = true;

	if (!pmu_event_advertised(pmu, ARMV8_EVT_BR_RETIRED)) {
		pmu_skip(name, "PMU does not count BR_RETIRED (Debian's QEMU)");
		return;
	}
	if (counters < 2) {
		pmu_skip(name, "fewer than 2 counters: no room for a group of 2");
		return;
	}
	if (groups > GROUP_MAX)
		groups = GROUP_MAX;
	if (open_branch_groups(pmu, fds, groups)) {
		pmu_result(false, name);
		return;
	}
	do {
		if (pmu_run_prctl(WINDOW_ITERS))
			ksft_exit_fail_msg("group window %d failed\n", windows);
		windows++;
		for (i = 0; i < groups; i++)
			if (read(fds[2 * i], &g[i], sizeof(g[i])) != sizeof(g[i]))
				ksft_exit_fail_msg("read group %d\n", i);
	} while (g[0].enabled < need_ns && windows < MAX_WINDOWS);
	ksft_print_msg("%d groups of 2 over %d counters, %d windows\n",
		       groups, counters, windows);
	for (i = 0; i < groups; i++)
		pass &= group_in_step(&g[i], windows, interval_ms * 1000000ULL);
	close_events(fds, 2 * groups);
	pmu_result(pass, name);
}

int main(void)
{
	static struct reading r[MAX_EVENTS];
	int fds[MAX_EVENTS], counters, events, windows = 0, i;
	uint64_t interval_ms = 4, need_ns, busy = 0, enabled_max = 0;
	bool exact_at_n, all_ran, shared, scaled_ok;
	struct pmu_info pmu;
	int64_t truth;

	ksft_print_header();
	pmu_find_or_skip(&pmu);
	ksft_set_plan(7);

	counters = count_counters(&exact_at_n);
	ksft_print_msg("instructions:u events that fit at once: %d\n",
		       counters);
	pmu_result(counters >= 1, "counter_count_detected");
	pmu_result(counters >= 1 && exact_at_n,
		   "events_up_to_counter_count_count_exactly");

	events = counters >= 1 ? 2 * counters : 2;
	if (events > MAX_EVENTS)
		events = MAX_EVENTS;
	pmu_sysfs_u64(&pmu, "perf_event_mux_interval_ms", &interval_ms);
	need_ns = ROTATIONS * interval_ms * 1000000ULL;
	ksft_print_msg("%d events, mux interval %" PRIu64 " ms, running for at least %" PRIu64
		       " ns\n",
		       events, interval_ms, need_ns);

	if (open_events(fds, events))
		ksft_exit_fail_msg("cannot open %d events\n", events);
	do {
		if (pmu_run_prctl(WINDOW_ITERS) || read_events(fds, events, r))
			ksft_exit_fail_msg("window %d failed\n", windows);
		windows++;
	} while (r[0].enabled < need_ns && windows < MAX_WINDOWS);
	close_events(fds, events);
	truth = windows * pmu_expected_user(WINDOW_ITERS);

	all_ran = true;
	scaled_ok = true;
	shared = false;
	for (i = 0; i < events; i++) {
		double scaled = r[i].running ?
			(double)r[i].value * r[i].enabled / r[i].running : 0;
		double err = (scaled - truth) * 100.0 / truth;

		ksft_print_msg("event %2d: count %" PRIu64 " enabled %" PRIu64 " running %" PRIu64
			       " scaled %.0f (%+.3f%%)\n",
			       i, r[i].value, r[i].enabled, r[i].running,
			       scaled, err);
		all_ran &= r[i].running > 0;
		shared |= r[i].running < r[i].enabled;
		scaled_ok &= r[i].running > 0 && err <= SCALE_PCT &&
			     err >= -SCALE_PCT;
		busy += r[i].running;
		if (r[i].enabled > enabled_max)
			enabled_max = r[i].enabled;
	}
	ksft_print_msg("%d windows, true count %" PRId64 "; running time %" PRIu64
		       " ns over %d counters x %" PRIu64 " ns\n",
		       windows, truth, busy, counters, enabled_max);

	pmu_result(counters >= 1 && all_ran && shared,
		   "overcommitted_events_share_counters");
	pmu_result(counters >= 1 && all_ran,
		   "overcommitted_events_all_get_counter_time");
	pmu_result(counters >= 1 && scaled_ok,
		   "overcommitted_scaled_counts_within_5pct");
	pmu_result(counters >= 1 &&
		   busy * 100 >= (100 - BUSY_PCT) * (uint64_t)counters * enabled_max,
		   "overcommitted_counters_kept_busy");

	test_rotating_groups(&pmu, counters, interval_ms);

	ksft_finished();
}
