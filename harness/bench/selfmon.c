// SPDX-License-Identifier: GPL-2.0
/*
 * Self-monitoring read: the count of an event read in user space from the
 * event's mmap'ed page and the counter register (mrs), inside the page's
 * seqlock, minus the same loop with an empty body. Per read.
 *
 * The reader is the documented one, pmu_user_read() of
 * tools/testing/selftests/arm64/pmu/pmu_user_read.h (the example of
 * Documentation/arch/arm64/pmu-user-access.rst; bench.sh passes its folder
 * with -I), so the number is what a user of the documented sequence pays.
 * The reported path is cycles:u (the cycle counter, PMCCNTR_EL0); the
 * details add instructions:u (an event counter, through PMSELR_EL0).
 *
 * selfmon-shared is the same read of cycles:u while a pinned CPU-wide
 * instructions event (every exception level) holds an event counter, as
 * under `perf stat -a` or the NMI watchdog: a driver that must keep the
 * task off that counter and has no FEAT_PMUv3p9 lets each mrs trap and
 * answers it in the kernel. One that does not shows the CPU-wide count.
 *
 * Needs config1:1 (rdpmc) and kernel.perf_user_access=1 (run.sh sets it
 * when the kernel has it, and reports the path n/a when it does not).
 * When the page offers no rdpmc this prints n/a with the reason.
 */
#include "bench.h"
#include <sys/mman.h>
#include "pmu_user_read.h"

#define OPS	10000

static volatile uint64_t sink;

/*
 * Median ns per read and per empty iteration, of an rdpmc event of config
 * (emitted to the plugin as <path>.raw and <path>.base, or as warm when
 * path is NULL); returns -1 with *why when user access is not offered,
 * else 0 with the counter's index and width in *why.
 */
static int per_read(uint64_t config, const char *path, double *read_ns,
		    double *empty_ns, const char **why)
{
	char raw_label[64], base_label[64];
	struct perf_event_attr attr = {
		.type = pmu_type(),
		.config = config,
		.config1 = 1ULL << 1,		/* rdpmc */
		.exclude_kernel = 1,
		.exclude_hv = 1,
	};
	struct perf_event_mmap_page *pc;
	double raw[REPS], base[REPS];
	uint64_t t0, t1, c, sum = 0;
	static char buf[128];
	int fd, r, i;

	snprintf(raw_label, sizeof(raw_label), "%s.raw", path ? path : "warm");
	snprintf(base_label, sizeof(base_label), "%s.base", path ? path : "warm");
	attr.size = sizeof(attr);
	fd = syscall(__NR_perf_event_open, &attr, 0, -1, -1, 0);
	if (fd < 0) {
		snprintf(buf, sizeof(buf), "perf_event_open with rdpmc: %s",
			 strerror(errno));
		*why = buf;
		return -1;
	}
	pc = mmap(NULL, getpagesize(), PROT_READ, MAP_SHARED, fd, 0);
	if (pc == MAP_FAILED)
		die("mmap");
	if (!pmu_user_read(pc, &c)) {
		snprintf(buf, sizeof(buf), "cap_user_rdpmc=%u index=%u",
			 (unsigned int)pc->cap_user_rdpmc, pc->index);
		*why = buf;
		return -1;
	}
	for (r = 0; r < REPS; r++) {
		t0 = now_ns();
		mark_begin();
		for (i = 0; i < OPS; i++) {
			pmu_user_read(pc, &c);
			sum += c;
		}
		mark_end();
		t1 = now_ns();
		mark_emit(raw_label, OPS);
		raw[r] = (double)(t1 - t0) / OPS;
		t0 = now_ns();
		mark_begin();
		for (i = 0; i < OPS; i++) {
			c = i;
			asm volatile("" : "+r"(c) : : "memory");
			sum += c;
		}
		mark_end();
		t1 = now_ns();
		mark_emit(base_label, OPS);
		base[r] = (double)(t1 - t0) / OPS;
	}
	snprintf(buf, sizeof(buf), "index=%u pmc_width=%u", pc->index,
		 pc->pmc_width);
	*why = buf;
	munmap(pc, getpagesize());
	close(fd);
	*read_ns = median(raw, REPS);
	*empty_ns = median(base, REPS);
	sink = sum;			/* the reads are used */
	return 0;
}

/* cycles:u read as selfmon-shared, beside a CPU-wide instructions event */
static void shared_read(void)
{
	struct perf_event_attr attr = {
		.type = pmu_type(),
		.config = EVT_INST_RETIRED,
		.pinned = 1,
	};
	double cyc, cyc_empty;
	char extra[192];
	const char *why;
	uint64_t wide;
	int fd;

	attr.size = sizeof(attr);
	fd = syscall(__NR_perf_event_open, &attr, -1, 0, -1, 0);
	if (fd < 0) {
		printf("bench: selfmon-shared n/a CPU-wide event: %s\n", strerror(errno));
		return;
	}
	if (per_read(EVT_CPU_CYCLES, "selfmon-shared", &cyc, &cyc_empty, &why)) {
		printf("bench: selfmon-shared n/a %s\n", why);
	} else {
		if (read(fd, &wide, sizeof(wide)) != sizeof(wide))
			die("read");
		snprintf(extra, sizeof(extra), "event=cycles:u %s cpu_wide_count=%llu",
			 why, (unsigned long long)wide);
		report("selfmon-shared", cyc, cyc_empty, OPS, extra);
	}
	close(fd);
}

int main(void)
{
	double cyc, cyc_empty, ins, ins_empty;
	char cyc_info[128], evc[32] = "n/a", extra[256];
	const char *why;

	pin_cpu0();
	if (per_read(EVT_CPU_CYCLES, "selfmon-read", &cyc, &cyc_empty, &why)) {
		printf("bench: selfmon-read n/a %s\n", why);
		printf("bench: selfmon-shared n/a %s\n", why);
		return 0;
	}
	snprintf(cyc_info, sizeof(cyc_info), "%s", why);
	if (!per_read(EVT_INST_RETIRED, NULL, &ins, &ins_empty, &why))
		snprintf(evc, sizeof(evc), "%.1f", ins - ins_empty);
	snprintf(extra, sizeof(extra), "event=cycles:u %s event_counter_read=%s",
		 cyc_info, evc);
	report("selfmon-read", cyc, cyc_empty, OPS, extra);
	shared_read();
	return 0;
}
