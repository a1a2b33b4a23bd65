// SPDX-License-Identifier: GPL-2.0
/*
 * Overflow interrupt with branch stacks (FEAT_BRBE): N user-only
 * INST_RETIRED events in one group, each sampling every PERIOD
 * instructions with PERF_SAMPLE_BRANCH_STACK and a branch filter of its
 * own, over brbe_seq (the selftests' known sequence of B, BL, RET, BLR,
 * RET, BR and CBNZ, so that every filter has records to keep). The group
 * starts all its counters at once, so the N events overflow at the same
 * instruction and share one interrupt: the cost is given per interrupt
 * (the PMU's line of /proc/interrupts), minus the same loop with the same
 * group counting instead of sampling. N = 1 and N = 6: the -cpu max PMU
 * has 6 event counters (and the cycle counter, whose overflow is not tied
 * to an instruction count), so 6 is the most that overflow together.
 *
 * The claim measured (sysreg-plugin.c's brbe column): the driver reads
 * the buffer once per interrupt and filters that snapshot for each event,
 * so its BRBE register reads do not grow with N.
 *
 * A kernel without branch stack sampling (the base 6.12 has no BRBE
 * driver) refuses the events: both rows are n/a there.
 */
#include "bench.h"
#include "brbe_seq.h"
#include <sys/mman.h>

#define ITERS		100000UL	/* 28 instructions an iteration */
#define PERIOD		20011		/* prime: never in step with the loop */
#define RB_PAGES	128		/* a sample is at most ~1.6 KiB */
#define MAX_EVENTS	6

/* Distinct filters, all user-only; every one has branches of brbe_seq */
static const uint64_t filters[MAX_EVENTS] = {
	PERF_SAMPLE_BRANCH_ANY,
	PERF_SAMPLE_BRANCH_ANY_CALL,
	PERF_SAMPLE_BRANCH_ANY_RETURN,
	PERF_SAMPLE_BRANCH_IND_CALL,
	PERF_SAMPLE_BRANCH_IND_JUMP,
	PERF_SAMPLE_BRANCH_COND,
};

struct run { uint64_t ns; long irqs, samples, throttles, lost; };

/* Interrupts the PMU took so far: its line of /proc/interrupts */
static long pmu_irqs(void)
{
	char line[512], *p;
	long n = -1, v;
	int used;
	FILE *f = fopen("/proc/interrupts", "r");

	if (!f)
		die("/proc/interrupts");
	while (fgets(line, sizeof(line), f)) {
		if (!strstr(line, "arm-pmu") || !(p = strchr(line, ':')))
			continue;
		/* one count per CPU, then the controller's name */
		for (n = 0, p++; sscanf(p, "%ld%n", &v, &used) == 1; p += used)
			n += v;
		break;
	}
	fclose(f);
	if (n < 0) {
		errno = ENOENT;
		die("no arm-pmu line in /proc/interrupts");
	}
	return n;
}

static void walk(struct perf_event_mmap_page *pg, struct run *r)
{
	uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	uint64_t size = (uint64_t)RB_PAGES * getpagesize();
	char *data = (char *)pg + getpagesize();
	uint64_t pos;

	if (head >= size)
		fprintf(stderr, "bench: warning: ring buffer wrapped\n");
	for (pos = 0; pos < head && pos < size; ) {
		struct perf_event_header *h = (void *)(data + pos);

		if (!h->size)
			break;
		if (h->type == PERF_RECORD_SAMPLE)
			r->samples++;
		else if (h->type == PERF_RECORD_THROTTLE)
			r->throttles++;
		else if (h->type == PERF_RECORD_LOST)
			r->lost++;
		pos += h->size;
	}
}

/* Open event i of a group of n (sampling or counting); -errno on refusal */
static int open_one(int i, int sampling, int leader)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = pmu_type(),
		.config = EVT_INST_RETIRED,
		.exclude_kernel = 1,
		.exclude_hv = 1,
		.disabled = !i,
	};
	int fd;

	if (sampling) {
		attr.sample_period = PERIOD;
		attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_BRANCH_STACK;
		attr.branch_sample_type = filters[i] | PERF_SAMPLE_BRANCH_USER;
	}
	fd = syscall(__NR_perf_event_open, &attr, 0, -1, leader, PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* One run of brbe_seq under a group of n events; -errno if refused */
static int once(int n, int sampling, struct run *r)
{
	size_t len = (1 + RB_PAGES) * getpagesize();
	void *pg[MAX_EVENTS];
	int fd[MAX_EVENTS], i, err;
	long irqs;
	uint64_t t0;

	for (i = 0; i < n; i++) {
		fd[i] = open_one(i, sampling, i ? fd[0] : -1);
		if (fd[i] < 0) {
			err = fd[i];
			while (i--) {
				munmap(pg[i], len);
				close(fd[i]);
			}
			return err;
		}
		pg[i] = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd[i], 0);
		if (pg[i] == MAP_FAILED)
			die("mmap");
	}
	memset(r, 0, sizeof(*r));
	settle();
	irqs = pmu_irqs();
	t0 = now_ns();
	mark_begin();
	ioctl(fd[0], PERF_EVENT_IOC_ENABLE, 0);
	brbe_seq(ITERS);
	ioctl(fd[0], PERF_EVENT_IOC_DISABLE, 0);
	mark_end();
	r->ns = now_ns() - t0;
	r->irqs = pmu_irqs() - irqs;
	/*
	 * Leader last: only the leader was disabled, and closing it makes
	 * each member a group of its own, enabled, which counts and samples
	 * again from the next context switch on, into rings not yet walked.
	 */
	for (i = n - 1; i >= 0; i--) {
		walk(pg[i], r);
		munmap(pg[i], len);
		close(fd[i]);
	}
	return 0;
}

static void bench(int n)
{
	double s[REPS], c[REPS], irqs;
	char label[32], mark[40], extra[160];
	struct run r;
	int i, err;

	snprintf(label, sizeof(label), "brbe-overflow-%d", n);
	err = once(n, 1, &r);			/* warm up */
	if (err) {
		printf("bench: %s n/a branch stack sampling refused (%s)\n", label,
		       strerror(-err));
		return;
	}
	for (i = 0; i < REPS; i++) {
		once(n, 1, &r);
		if (!r.irqs || r.samples != n * r.irqs) {
			printf("bench: %s n/a %ld samples in %ld interrupts, not %d each\n",
			       label, r.samples, r.irqs, n);
			return;
		}
		s[i] = r.ns;
		c[i] = r.irqs;
		snprintf(mark, sizeof(mark), "%s.raw", label);
		mark_emit(mark, r.irqs);
		once(n, 0, &r);
		snprintf(mark, sizeof(mark), "%s.base", label);
		mark_emit(mark, c[i]);
		s[i] /= c[i];
		c[i] = r.ns / c[i];
	}
	once(n, 1, &r);
	irqs = r.irqs;
	snprintf(extra, sizeof(extra),
		 "events=%d interrupts=%.0f samples=%ld period=%d throttles=%ld lost=%ld",
		 n, irqs, r.samples, PERIOD, r.throttles, r.lost);
	report(label, median(s, REPS), median(c, REPS), (unsigned long)irqs, extra);
}

int main(void)
{
	pin_cpu0();
	bench(1);
	bench(MAX_EVENTS);
	return 0;
}
