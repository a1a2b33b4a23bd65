// SPDX-License-Identifier: GPL-2.0
/*
 * Counts stay with their task across context switches, when the counter
 * one task's event used is handed to another task's event.
 *
 * Two threads of one process on one CPU ping-pong a byte through two
 * pipes, so the CPU switches between them on every read. Threads, because
 * a switch between processes changes the translation tables, and the ISB
 * that follows would synchronize the PMU writes by chance. The measured task counts its own
 * user instructions exactly; its partner has an event on the same counter
 * that counts at EL1 (or samples there, overflowing often). A write to a
 * PMU control register (PMCR_EL0.E, PMCNTENCLR_EL0, PMEVTYPER<n>_EL0) only
 * takes effect on counting at the next context synchronization event: a
 * driver that reprograms a counter without one lets it go on counting the
 * partner's kernel instructions into the measured task's new value until
 * the exception return to user space. Our QEMU's x-pmu-lazy-sync property
 * delays every such write as long as the architecture allows, so that a
 * missing ISB shows here as a count too high.
 *
 * The measured window is pmu_pingpong_window() of pmu_lib.h: a user-only
 * instruction count of it is exactly 12 * iterations + 5.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>

#include "pmu_lib.h"

#define PINGPONG_ITERS		2000UL

/* A small period, so that the partner's counter is often near overflow */
#define PARTNER_PERIOD		1009

enum partner_event {
	PARTNER_NONE,		/* no event: nothing to hand over */
	PARTNER_KERNEL_COUNT,	/* counts EL1 instructions */
	PARTNER_KERNEL_SAMPLE,	/* samples EL1 instructions, overflowing often */
};

static struct pmu_info pmu;

/* Both tasks on CPU 0, so that each read switches to the other */
static int pin_to_cpu0(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

static int open_partner_event(enum partner_event kind)
{
	struct perf_event_attr attr;

	pmu_attr_user(&attr, pmu.type, ARMV8_EVT_INST_RETIRED);
	attr.disabled = 0;
	attr.exclude_user = 1;
	attr.exclude_kernel = 0;
	if (kind == PARTNER_KERNEL_SAMPLE)
		attr.sample_period = PARTNER_PERIOD;
	return pmu_open(&attr, -1);
}

struct partner {
	enum partner_event kind;
	int rfd, wfd;
	const char *failed;	/* what went wrong, or NULL */
};

/*
 * The partner thread: echoes every byte back until the pipe closes. Its
 * own event counts (or samples) its kernel instructions all along; it
 * must have counted some, or the test proves nothing.
 */
static void *partner(void *arg)
{
	struct partner *p = arg;
	int fd = -1;
	char c;

	if (pin_to_cpu0()) {
		p->failed = "sched_setaffinity";
		return NULL;
	}
	if (p->kind != PARTNER_NONE) {
		fd = open_partner_event(p->kind);
		if (fd < 0) {
			p->failed = "perf_event_open";
			return NULL;
		}
	}
	while (read(p->rfd, &c, 1) == 1) {
		if (write(p->wfd, &c, 1) != 1) {
			p->failed = "write";
			break;
		}
	}
	if (fd >= 0) {
		if (pmu_read_count(fd) <= 0)
			p->failed = "nothing counted";
		close(fd);
	}
	return NULL;
}

/*
 * Ping-pong iters times with a partner thread whose event is of the given
 * kind; return this thread's user instruction count, or -1.
 */
static int64_t pingpong_count(enum partner_event kind, uint64_t config1,
			      unsigned long iters)
{
	int to_partner[2], from_partner[2], fd;
	struct partner p = { .kind = kind };
	struct perf_event_attr attr;
	int64_t count = -1;
	pthread_t thread;
	char buf = 'x';

	if (pipe(to_partner) || pipe(from_partner))
		return -1;
	p.rfd = to_partner[0];
	p.wfd = from_partner[1];
	if (pthread_create(&thread, NULL, partner, &p)) {
		ksft_print_msg("pthread_create failed\n");
		goto out;
	}

	pmu_attr_user(&attr, pmu.type, ARMV8_EVT_INST_RETIRED);
	attr.config1 = config1;
	fd = pmu_open(&attr, -1);
	if (fd < 0) {
		ksft_print_msg("perf_event_open: %s\n", strerror(-fd));
	} else {
		if (pmu_pingpong_window(fd, to_partner[1], from_partner[0],
					iters, &buf))
			ksft_print_msg("ping-pong window failed\n");
		else
			count = pmu_read_count(fd);
		close(fd);
	}
	/* EOF ends the partner's loop */
	close(to_partner[1]);
	to_partner[1] = -1;
	pthread_join(thread, NULL);
	if (p.failed) {
		ksft_print_msg("partner failed: %s\n", p.failed);
		count = -1;
	}
out:
	close(to_partner[0]);
	close(from_partner[0]);
	close(from_partner[1]);
	if (to_partner[1] >= 0)
		close(to_partner[1]);
	return count;
}

/* Whether the PMU takes an event of config1 (a long one needs CHAIN) */
static bool pmu_takes(uint64_t config1)
{
	struct perf_event_attr attr;
	int fd;

	pmu_attr_user(&attr, pmu.type, ARMV8_EVT_INST_RETIRED);
	attr.config1 = config1;
	fd = pmu_open(&attr, -1);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

static void test_pingpong(enum partner_event kind, uint64_t config1,
			  const char *name)
{
	uint64_t want = PMU_PINGPONG_PER_ITER * PINGPONG_ITERS + PMU_PINGPONG_OVERHEAD;
	int64_t got = pingpong_count(kind, config1, PINGPONG_ITERS);

	if (got != (int64_t)want)
		ksft_print_msg("%s: %" PRId64 " user instructions, want %" PRIu64
			       " (%" PRId64 " too many)\n", name, got, want,
			       got - (int64_t)want);
	pmu_result(got == (int64_t)want, name);
}

int main(void)
{
	ksft_print_header();
	pmu_find_or_skip(&pmu);
	if (pin_to_cpu0())
		ksft_exit_fail_msg("sched_setaffinity: %s\n", strerror(errno));
	ksft_set_plan(4);

	test_pingpong(PARTNER_NONE, 0, "switch_user_count_exact_alone");
	test_pingpong(PARTNER_KERNEL_COUNT, 0,
		      "switch_user_count_exact_beside_kernel_count");
	test_pingpong(PARTNER_KERNEL_SAMPLE, 0,
		      "switch_user_count_exact_beside_kernel_samples");
	/* A 64-bit count: a chained pair where the PMU has no 64-bit counters */
	if (!pmu_takes(PMU_CFG1_LONG))
		pmu_skip("switch_long_user_count_exact_beside_kernel_samples",
			 "the PMU refuses 64-bit events (no CHAIN)");
	else
		test_pingpong(PARTNER_KERNEL_SAMPLE, PMU_CFG1_LONG,
			      "switch_long_user_count_exact_beside_kernel_samples");

	ksft_finished();
}
