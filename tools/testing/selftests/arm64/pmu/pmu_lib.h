/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared helpers for the arm64 PMUv3 selftests.
 *
 * Every test measures a loop whose instruction count is known exactly. The
 * loop lives in pmu_window() (assembly below) together with the two system
 * calls that switch the counters on and off, so that nothing the compiler
 * or libc does can land inside the counted window:
 *
 *	svc	#0		// enable: EL0 counting starts after this
 *	mov	x13, x0		// 1  keep the enable call's return value
 *	mov	x0, x9		// 1  iteration count
 * pmu_loop_begin:
 *	subs	x0, x0, #1	// 2 per iteration
 *	b.ne	pmu_loop_begin
 * pmu_loop_end:
 *	mov	x0, x10		// 1 \
 *	mov	x1, x11		// 1  } arguments of the disable call
 *	mov	x2, x12		// 1 /
 *	svc	#0		// 1  the disable call itself
 *
 * An SVC is architecturally executed (it completes by taking the exception),
 * so it is counted by INST_RETIRED at EL0 before the exception moves the CPU
 * to the kernel; the instructions after the enabling SVC are counted from
 * the ERET back to EL0. A user-only instruction count of one window is
 * therefore exactly 2 * iterations + PMU_WINDOW_OVERHEAD with the overhead
 * 6 = 2 (before the loop) + 4 (after it).
 */
#ifndef PMU_LIB_H
#define PMU_LIB_H

#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "kselftest.h"

/* Architectural PMUv3 common event numbers used by the tests. */
#define ARMV8_EVT_SW_INCR	0x00
#define ARMV8_EVT_INST_RETIRED	0x08
#define ARMV8_EVT_CPU_CYCLES	0x11
#define ARMV8_EVT_CHAIN		0x1e
#define ARMV8_EVT_BR_RETIRED	0x21

/* config1 fields of the PMU's format/ directory. */
#define PMU_CFG1_LONG		(1ULL << 0)
#define PMU_CFG1_RDPMC		(1ULL << 1)
#define PMU_CFG1_TH_SHIFT	5
#define PMU_CFG1_TH_MASK	0xfffULL

#define PMU_WINDOW_OVERHEAD	6

#ifndef PR_TASK_PERF_EVENTS_DISABLE
#define PR_TASK_PERF_EVENTS_DISABLE	31
#define PR_TASK_PERF_EVENTS_ENABLE	32
#endif

/*
 * long pmu_window(nr, en0, en1, en2, iters, dis0, dis1, dis2)
 *
 * Issues syscall nr(en0, en1, en2), runs the loop iters times (iters >= 1),
 * then issues syscall nr(dis0, dis1, dis2). Returns the first call's return
 * value if it is non-zero, otherwise the second call's. The kernel keeps
 * every register but x0 across a system call, so x8-x13 survive.
 */
long pmu_window(long nr, long en0, long en1, long en2, unsigned long iters,
		long dis0, long dis1, long dis2);
extern const char pmu_loop_begin[], pmu_loop_end[];

asm(
"	.text\n"
"	.balign	64\n"
"	.global	pmu_window\n"
"	.type	pmu_window, %function\n"
"pmu_window:\n"
"	mov	x8, x0\n"
"	mov	x9, x4\n"
"	mov	x10, x5\n"
"	mov	x11, x6\n"
"	mov	x12, x7\n"
"	mov	x0, x1\n"
"	mov	x1, x2\n"
"	mov	x2, x3\n"
"	svc	#0\n"
"	mov	x13, x0\n"
"	mov	x0, x9\n"
"	.global	pmu_loop_begin\n"
"pmu_loop_begin:\n"
"	subs	x0, x0, #1\n"
"	b.ne	pmu_loop_begin\n"
"	.global	pmu_loop_end\n"
"pmu_loop_end:\n"
"	mov	x0, x10\n"
"	mov	x1, x11\n"
"	mov	x2, x12\n"
"	svc	#0\n"
"	cbz	x13, 1f\n"
"	mov	x0, x13\n"
"1:	ret\n"
"	.size	pmu_window, . - pmu_window\n"
);

/* The exact user-only instruction count of one window. */
static inline uint64_t pmu_expected_user(unsigned long iters)
{
	return 2ULL * iters + PMU_WINDOW_OVERHEAD;
}

/*
 * long pmu_pingpong_window(fd, wfd, rfd, iters, buf)
 *
 * Enables fd, ping-pongs iters times (writes a byte to wfd, reads one
 * from rfd: with a partner echoing on the same CPU, every read switches
 * to it and back), disables fd. Returns the disable call's return value.
 * The window is one block of assembly:
 *
 *	svc	#0		// PERF_EVENT_IOC_ENABLE: counting starts after it
 * 1:	mov	x8, #64		// write(wfd, buf, 1)	5 instructions
 *	mov	x0, x20
 *	mov	x1, x23
 *	mov	x2, #1
 *	svc	#0
 *	mov	x8, #63		// read(rfd, buf, 1)	5 instructions
 *	mov	x0, x21
 *	mov	x1, x23
 *	mov	x2, #1
 *	svc	#0
 *	subs	x19, x19, #1	//			2 instructions
 *	b.ne	1b
 *	mov	x8, #29		// ioctl(fd, PERF_EVENT_IOC_DISABLE, 0)
 *	mov	x0, x22		//			5 instructions
 *	mov	x1, #0x2401
 *	mov	x2, #0
 *	svc	#0
 *
 * An SVC counts at EL0 (see the top of this file), so a user-only
 * instruction count of the window is exactly 12 * iterations + 5.
 */
long pmu_pingpong_window(long fd, long wfd, long rfd, unsigned long iters, char *buf);
asm("	.text\n"
"	.balign	64\n"
"	.global	pmu_pingpong_window\n"
"	.type	pmu_pingpong_window, %function\n"
"pmu_pingpong_window:\n"
"	stp	x19, x20, [sp, #-32]!\n"
"	stp	x21, x22, [sp, #16]\n"
"	str	x23, [sp, #-16]!\n"
"	mov	x22, x0\n"
"	mov	x20, x1\n"
"	mov	x21, x2\n"
"	mov	x19, x3\n"
"	mov	x23, x4\n"
"	mov	x8, #29\n"
"	mov	x1, #0x2400\n"
"	mov	x2, #0\n"
"	svc	#0\n"
"1:	mov	x8, #64\n"
"	mov	x0, x20\n"
"	mov	x1, x23\n"
"	mov	x2, #1\n"
"	svc	#0\n"
"	mov	x8, #63\n"
"	mov	x0, x21\n"
"	mov	x1, x23\n"
"	mov	x2, #1\n"
"	svc	#0\n"
"	subs	x19, x19, #1\n"
"	b.ne	1b\n"
"	mov	x8, #29\n"
"	mov	x0, x22\n"
"	mov	x1, #0x2401\n"
"	mov	x2, #0\n"
"	svc	#0\n"
"	ldr	x23, [sp], #16\n"
"	ldp	x21, x22, [sp, #16]\n"
"	ldp	x19, x20, [sp], #32\n"
"	ret\n"
"	.size	pmu_pingpong_window, . - pmu_pingpong_window\n"
);

static_assert(PERF_EVENT_IOC_ENABLE == 0x2400, "pmu_pingpong_window's ENABLE");
static_assert(PERF_EVENT_IOC_DISABLE == 0x2401, "pmu_pingpong_window's DISABLE");
static_assert(__NR_read == 63 && __NR_write == 64 && __NR_ioctl == 29,
	      "pmu_pingpong_window's system call numbers");

#define PMU_PINGPONG_PER_ITER	12
#define PMU_PINGPONG_OVERHEAD	5

/* Run the loop between PERF_EVENT_IOC_ENABLE and _DISABLE of fd. */
static inline long pmu_run_ioctl(int fd, unsigned long flags,
				 unsigned long iters)
{
	return pmu_window(__NR_ioctl, fd, PERF_EVENT_IOC_ENABLE, flags, iters,
			  fd, PERF_EVENT_IOC_DISABLE, flags);
}

/* Run the loop with every perf event of this task enabled (prctl). */
static inline long pmu_run_prctl(unsigned long iters)
{
	return pmu_window(__NR_prctl, PR_TASK_PERF_EVENTS_ENABLE, 0, 0, iters,
			  PR_TASK_PERF_EVENTS_DISABLE, 0, 0);
}

/* perf_event_open() for this task on any CPU; returns fd or -errno. */
static inline int pmu_open(struct perf_event_attr *attr, int group_fd)
{
	int fd = syscall(__NR_perf_event_open, attr, 0, -1, group_fd, 0);

	return fd < 0 ? -errno : fd;
}

/*
 * perf_event_open() for this task and a ring buffer of data_bytes (a
 * power of two pages) behind its user page. Returns the fd, with the
 * mapping in *ring and its length in *len, or -1 having said why.
 */
static inline int pmu_open_ring(struct perf_event_attr *attr, size_t data_bytes,
				void **ring, size_t *len)
{
	int fd = pmu_open(attr, -1);

	if (fd < 0) {
		ksft_print_msg("perf_event_open: %s\n", strerror(-fd));
		return -1;
	}
	*len = data_bytes + sysconf(_SC_PAGESIZE);
	*ring = mmap(NULL, *len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (*ring == MAP_FAILED) {
		ksft_perror("mmap ring buffer");
		close(fd);
		return -1;
	}
	return fd;
}

/* An attr counting only EL0, opened disabled. */
static inline void pmu_attr_user(struct perf_event_attr *attr, uint32_t type,
				 uint64_t config)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = type;
	attr->config = config;
	attr->disabled = 1;
	attr->exclude_kernel = 1;
	attr->exclude_hv = 1;
}

/* Read a plain (non-group, no read_format) counter; -1 on error. */
static inline int64_t pmu_read_count(int fd)
{
	uint64_t v;

	if (read(fd, &v, sizeof(v)) != sizeof(v))
		return -1;
	return (int64_t)v;
}

/* Reset, run one ioctl window, read. Returns the count or -1. */
static inline int64_t pmu_measure(int fd, unsigned long iters)
{
	long ret;

	if (ioctl(fd, PERF_EVENT_IOC_RESET, 0))
		return -1;
	ret = pmu_run_ioctl(fd, 0, iters);
	if (ret) {
		ksft_print_msg("enable/disable failed: %ld\n", ret);
		return -1;
	}
	return pmu_read_count(fd);
}

/* The CPU PMU under test. */
struct pmu_info {
	char dir[320];		/* /sys/bus/event_source/devices/<name> */
	const char *name;
	uint32_t type;
};

static inline int pmu_read_sysfs(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return 0;
}

/* Read a number (any base strtoull accepts) from <pmu>/<rel>. */
static inline int pmu_sysfs_u64(const struct pmu_info *pmu, const char *rel,
				uint64_t *val)
{
	char path[512], buf[64];
	int ret;

	snprintf(path, sizeof(path), "%s/%s", pmu->dir, rel);
	ret = pmu_read_sysfs(path, buf, sizeof(buf));
	if (ret)
		return ret;
	*val = strtoull(buf, NULL, 0);
	return 0;
}

static inline bool pmu_sysfs_exists(const struct pmu_info *pmu,
				    const char *rel)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", pmu->dir, rel);
	return access(path, F_OK) == 0;
}

/*
 * Find the PMUv3 PMU: the event source whose format/ has the `long` field.
 * Prefers armv8_pmuv3* names when several qualify.
 */
static inline int pmu_find(struct pmu_info *pmu)
{
	static const char base[] = "/sys/bus/event_source/devices";
	char path[512];
	struct dirent *de;
	bool found = false;
	uint64_t type;
	DIR *d;

	d = opendir(base);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/format/long", base,
			 de->d_name);
		if (access(path, F_OK))
			continue;
		if (found && strncmp(de->d_name, "armv8_pmuv3", 11))
			continue;
		snprintf(pmu->dir, sizeof(pmu->dir), "%s/%s", base,
			 de->d_name);
		found = true;
	}
	closedir(d);
	if (!found)
		return -ENOENT;
	pmu->name = strrchr(pmu->dir, '/') + 1;
	if (pmu_sysfs_u64(pmu, "type", &type))
		return -ENOENT;
	pmu->type = type;
	return 0;
}

/* Find the PMU or end the program with a KTAP skip. */
static inline void pmu_find_or_skip(struct pmu_info *pmu)
{
	if (pmu_find(pmu))
		ksft_exit_skip("no PMU with format/long in /sys/bus/event_source/devices\n");
	ksft_print_msg("PMU %s type %u\n", pmu->name, pmu->type);
}

/* Is event number evt listed (as event=0x..) in the PMU's events/? */
static inline bool pmu_event_advertised(const struct pmu_info *pmu,
					unsigned int evt)
{
	char path[640], buf[128];
	struct dirent *de;
	bool found = false;
	DIR *d;

	snprintf(path, sizeof(path), "%s/events", pmu->dir);
	d = opendir(path);
	if (!d)
		return false;
	while (!found && (de = readdir(d))) {
		const char *p;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/events/%s", pmu->dir,
			 de->d_name);
		if (pmu_read_sysfs(path, buf, sizeof(buf)))
			continue;
		p = strstr(buf, "event=");
		if (p && strtoul(p + 6, NULL, 0) == evt)
			found = true;
	}
	closedir(d);
	return found;
}

/* Write val to a sysctl or sysfs file: 0, or -errno */
static inline int pmu_write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	close(fd);
	if (n < 0)
		return -errno;
	return n == (ssize_t)strlen(val) ? 0 : -EIO;
}

#define PMU_USER_ACCESS_SYSCTL	"/proc/sys/kernel/perf_user_access"

static inline int pmu_user_access_set(char val)
{
	char buf[2] = { val, 0 };

	return pmu_write_file(PMU_USER_ACCESS_SYSCTL, buf);
}

/* The value kernel.perf_user_access had when the test started */
static inline char *pmu_user_access_saved(void)
{
	static char saved = '0';

	return &saved;
}

static inline void pmu_user_access_restore(void)
{
	pmu_user_access_set(*pmu_user_access_saved());
}

/* Note kernel.perf_user_access, to be put back at exit, and set it to 1 */
static inline void pmu_user_access_enable(void)
{
	char buf[8];

	if (pmu_read_sysfs(PMU_USER_ACCESS_SYSCTL, buf, sizeof(buf)))
		ksft_exit_fail_msg(PMU_USER_ACCESS_SYSCTL " is missing\n");
	*pmu_user_access_saved() = buf[0];
	atexit(pmu_user_access_restore);
	if (pmu_user_access_set('1'))
		ksft_exit_fail_msg("cannot write " PMU_USER_ACCESS_SYSCTL "\n");
}

/* An event of this task with its user page mapped, for EL0 reads */
struct pmu_user_event {
	int fd;
	struct perf_event_mmap_page *pc;
};

/* Open attr for this task on any CPU and map its page: 0, or -errno */
static inline int pmu_user_event_open(struct pmu_user_event *ev,
				      struct perf_event_attr *attr)
{
	void *page;

	ev->fd = pmu_open(attr, -1);
	if (ev->fd < 0)
		return ev->fd;
	page = mmap(NULL, sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED, ev->fd, 0);
	if (page == MAP_FAILED) {
		close(ev->fd);
		return -errno;
	}
	ev->pc = page;
	return 0;
}

static inline void pmu_user_event_close(struct pmu_user_event *ev)
{
	munmap((void *)ev->pc, sysconf(_SC_PAGESIZE));
	close(ev->fd);
}

/* KTAP result line "ok N name" / "not ok N name". */
static inline void pmu_result(bool pass, const char *name)
{
	ksft_test_result_code(pass ? KSFT_PASS : KSFT_FAIL, name, NULL);
}

static inline void pmu_skip(const char *name, const char *why)
{
	ksft_test_result_code(KSFT_SKIP, name, "%s", why);
}

static inline uint64_t pmu_absdiff(uint64_t a, uint64_t b)
{
	return a > b ? a - b : b - a;
}

/*
 * How far a user-only cycle count may stray from its instruction count, or
 * from another cycle count of the same work. Under -icount shift=0 QEMU's
 * cycle counter runs on the virtual clock, one tick per instruction, but
 * rounded at EL changes: 1% + 64. Every vCPU's instructions move that
 * clock, so with several the others' work during the window (a tick, a
 * kworker) lands in it too, whatever the window's length: 24,668 cycles
 * over 2,000,006 and 10,168 over 200,006 measured with four. So 3% and
 * 16384 for each other CPU.
 */
static inline int64_t pmu_cycles_slack(int64_t ref)
{
	long others = sysconf(_SC_NPROCESSORS_ONLN) - 1;

	if (others < 1)
		return ref / 100 + 64;
	return ref * 3 / 100 + 64 + 16384 * others;
}

/* A 0/1 environment variable, or -1 when unset or malformed. */
static inline int pmu_env_bool(const char *name)
{
	const char *v = getenv(name);

	if (v && (!strcmp(v, "0") || !strcmp(v, "1")))
		return v[0] == '1';
	return -1;
}

/*
 * Does this PMU have 64-bit event counters (FEAT_PMUv3p5)? EL0 cannot see
 * ID_AA64DFR0_EL1.PMUVer, so: PMU_LONG_COUNTERS=0/1 if set, else the CPU
 * models QEMU emulates, by MIDR. Returns 1, 0, or -1 for unknown.
 */
static inline int pmu_has_64bit_counters(void)
{
	int env = pmu_env_bool("PMU_LONG_COUNTERS");
	unsigned int impl, part;
	char buf[64];
	uint64_t midr;

	if (env >= 0)
		return env;
	if (pmu_read_sysfs("/sys/devices/system/cpu/cpu0/regs/identification/midr_el1",
			   buf, sizeof(buf)))
		return -1;
	midr = strtoull(buf, NULL, 0);
	impl = (midr >> 24) & 0xff;
	part = (midr >> 4) & 0xfff;
	ksft_print_msg("MIDR_EL1 0x%08" PRIx64 " (implementer 0x%02x part 0x%03x)\n",
		       midr, impl, part);
	/* QEMU's "max" CPU: implementer 0, part 0x51, PMUv3p5 or later. */
	if (impl == 0x00 && part == 0x051)
		return 1;
	/* Arm cores before Armv8.4 (PMUv3p4 or older): 32-bit counters. */
	if (impl == 0x41) {
		switch (part) {
		case 0xd03: /* Cortex-A53 */
		case 0xd04: /* Cortex-A35 */
		case 0xd05: /* Cortex-A55 */
		case 0xd07: /* Cortex-A57 */
		case 0xd08: /* Cortex-A72 */
		case 0xd0b: /* Cortex-A76 */
		case 0xd0c: /* Neoverse-N1 */
			return 0;
		}
	}
	return -1;
}

/*
 * Is the kernel under test mainline's (PMU_KERNEL=mainline, which
 * mainline-self.plan sets from uname -r)? Where mainline's driver makes
 * another choice the ABI allows, or has a known defect, a test expects
 * mainline's answer exactly there; harness/qemu/README.md lists each.
 */
static inline bool pmu_kernel_mainline(void)
{
	const char *v = getenv("PMU_KERNEL");

	return v && !strcmp(v, "mainline");
}

#endif /* PMU_LIB_H */
