/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared helpers of the PMU benchmarks (harness/bench.sh runs them in the
 * guest, once on the base kernel and once on ours).
 *
 * Under QEMU TCG with -icount shift=0 the guest's virtual clock advances by
 * exactly 1 ns per executed instruction, so CLOCK_MONOTONIC differences are
 * guest instruction counts (clock.c checks this). The PMU under test is
 * never used to measure: every cost below is a clock difference.
 *
 * Every program prints one machine-readable line per path:
 *
 *	bench: <path> <net insns per op> raw=<r> baseline=<b> ops=<n> ...
 *
 * net = raw - baseline, each the median of REPS repetitions; the baseline
 * is the same operation without the driver work being measured (each
 * program says what it subtracts). bench.sh parses these lines.
 *
 * Each measured window is also bracketed by markers for sysreg-plugin.c,
 * the QEMU plugin bench.sh loads: it counts the kernel's instructions and
 * its MRS, MSR and ISB between mark_begin() and mark_end() and writes them
 * with the label and operation count of mark_emit(). Without the plugin
 * the markers are NOPs (an unallocated HINT), and they run in user space,
 * outside what the plugin counts: the kernel counts are exact. Each
 * clock-measured loop emits as "<path>.raw" and its baseline as
 * "<path>.base", once per repetition.
 */
#ifndef BENCH_H
#define BENCH_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>

#define REPS 5

/* Architectural PMUv3 common events (raw config of our PMU's type). */
#define EVT_INST_RETIRED	0x08
#define EVT_CPU_CYCLES		0x11

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static inline void die(const char *what)
{
	fprintf(stderr, "bench: error: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* One CPU, and only CPU 0: the guest has one vCPU, but say so anyway. */
static inline void pin_cpu0(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("sched_setaffinity");
}

/*
 * Let the kernel finish what earlier runs left it before a window opens:
 * events and ring buffers closed there are freed after an RCU grace
 * period, in softirq, perhaps inside the next window. Under icount an
 * idle guest skips ahead, so the wait costs no time.
 */
static inline void settle(void)
{
	usleep(20000);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static inline double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The perf type of the first PMU whose name starts with prefix, or 0 */
static inline uint32_t pmu_type_named(const char *prefix)
{
	static const char dir[] = "/sys/bus/event_source/devices";
	char path[512], buf[32];
	struct dirent *de;
	uint32_t type = 0;
	DIR *d = opendir(dir);
	int fd, n;

	if (!d)
		die(dir);
	while (!type && (de = readdir(d))) {
		if (strncmp(de->d_name, prefix, strlen(prefix)))
			continue;
		snprintf(path, sizeof(path), "%s/%s/type", dir, de->d_name);
		fd = open(path, O_RDONLY);
		if (fd < 0)
			continue;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n > 0) {
			buf[n] = 0;
			type = strtoul(buf, NULL, 10);
		}
	}
	closedir(d);
	return type;
}

/* The perf type of the PMUv3 PMU (armv8_pmuv3_0 on QEMU's virt DT). */
static inline uint32_t pmu_type(void)
{
	uint32_t type = pmu_type_named("armv8_");

	if (!type) {
		errno = ENODEV;
		die("no armv8_* PMU in /sys/bus/event_source/devices");
	}
	return type;
}

static inline int perf_open(struct perf_event_attr *attr, int group)
{
	int fd;

	attr->size = sizeof(*attr);
	fd = syscall(__NR_perf_event_open, attr, 0, -1, group, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		die("perf_event_open");
	return fd;
}

/* A counting event of the PMU on the calling task, counting at once. */
static inline int open_hw(uint64_t config, int exclude_user, int exclude_kernel)
{
	struct perf_event_attr attr = {
		.type = pmu_type(),
		.config = config,
		.exclude_user = exclude_user,
		.exclude_kernel = exclude_kernel,
	};

	return perf_open(&attr, -1);
}

/* The software twin used as a baseline: same core paths, no PMU driver. */
static inline int open_sw_dummy(void)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_DUMMY,
	};

	return perf_open(&attr, -1);
}

/* HINT #0x7e with a command in x0 (and arguments in x1, x2): see sysreg-plugin.c */
static inline void mark(unsigned long cmd, const char *label, unsigned long ops)
{
	register unsigned long x0 asm("x0") = cmd;
	register const char *x1 asm("x1") = label;
	register unsigned long x2 asm("x2") = ops;

	asm volatile("hint #0x7e" : : "r"(x0), "r"(x1), "r"(x2) : "memory");
}

static inline void mark_begin(void)
{
	mark(1, NULL, 0);
}

static inline void mark_end(void)
{
	mark(2, NULL, 0);
}

/*
 * The counts of the last begin-end window, as OPS operations of LABEL. The
 * label is copied to the stack first: the plugin reads it from guest
 * memory and needs it in a present page.
 */
static inline void mark_emit(const char *label, unsigned long ops)
{
	volatile char buf[64];
	size_t i;

	for (i = 0; i < sizeof(buf) - 1 && label[i]; i++)
		buf[i] = label[i];
	buf[i] = 0;
	mark(3, (const char *)buf, ops);
}

static inline void report(const char *path, double raw, double baseline,
			  unsigned long ops, const char *extra)
{
	printf("bench: %s %.1f raw=%.1f baseline=%.1f ops=%lu%s%s\n", path,
	       raw - baseline, raw, baseline, ops, extra ? " " : "",
	       extra ? extra : "");
	fflush(stdout);
}

/*
 * The loop of pmu_lib.h without the system calls: 2 * iters + 1 user
 * instructions, whatever the compiler does around it.
 */
static inline void busy_loop(unsigned long iters)
{
	asm volatile("1:	subs	%0, %0, #1\n"
		     "	b.ne	1b\n"
		     : "+r"(iters) : : "cc");
}

#endif /* BENCH_H */
