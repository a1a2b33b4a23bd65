// SPDX-License-Identifier: GPL-2.0
/*
 * Direct EL0 counter reads on a heterogeneous system: two PMUv3 PMUs, each
 * over its own CPUs (Documentation/arch/arm64/pmu-user-access.rst,
 * "Heterogeneous systems"). Under QEMU, harness/dt/hetero-dtb.sh makes such
 * a system from the virt machine; with one PMU the program skips.
 *
 *   - the two PMUs list disjoint CPU sets in their sysfs `cpus` files;
 *   - from a task pinned to a PMU's CPUs, instructions:u opened with that
 *     PMU's type counts the known loop exactly;
 *   - rdpmc (config1:1) with PERF_TYPE_RAW, whose event number may mean
 *     another event on the other PMU, is refused with EOPNOTSUPP, while
 *     the same event without rdpmc opens; with a generic type
 *     (PERF_TYPE_HARDWARE, PERF_TYPE_HW_CACHE) it opens, and one that
 *     names its PMU (the type in config's upper half, as perf's tools
 *     open the cycles and instructions of each PMU) is read exactly from
 *     EL0 on that PMU's CPUs;
 *   - rdpmc with the PMU's own type, from a task pinned to its CPUs: the
 *     user read (mmap page + mrs) follows the loop exactly and agrees with
 *     read();
 *   - the same event while the task runs on the other PMU's CPUs: it does
 *     not count, the page's index is 0 and mrs traps; back on its own
 *     CPUs, access returns;
 *   - an rdpmc event opened by a task that is not pinned is accepted (the
 *     affinity may change at any time after the open): what the task gets
 *     follows the CPU it runs on, as above;
 *   - mrs still traps on the other PMU's CPUs while a CPU-wide event of
 *     that PMU counts there: the task's rdpmc event gives it no access to
 *     a PMU it has no event on.
 *
 * kernel.perf_user_access is set to 1 and restored on exit.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/mman.h>

#include "pmu_lib.h"
#include "pmu_user_read.h"

#define ITERS		100000UL
/* Two instructions each: 10 ms of guest time at -icount shift=0, 2+ ticks */
#define BUSY_ITERS	5000000UL
/*
 * What the C code between a user read's mrs and read()'s svc may run:
 * the SIGILL guard's sigaction() and the wrappers (88 in this build)
 */
#define READ_SLACK	128
#define MAX_PMUS	4

#ifndef PERF_PMU_TYPE_SHIFT
#define PERF_PMU_TYPE_SHIFT	32
#endif

struct hetero_pmu {
	struct pmu_info info;
	cpu_set_t cpus;
	char cpulist[64];
};

static struct hetero_pmu pmus[MAX_PMUS];
static int nr_pmus;
/* "0", "0-1", "0,2-3": the sysfs cpulist format. 0 on success. */
static int parse_cpulist(const char *s, cpu_set_t *set)
{
	char *end;

	CPU_ZERO(set);
	while (*s && *s != '\n') {
		unsigned long a = strtoul(s, &end, 10), b = a;

		if (end == s)
			return -EINVAL;
		if (*end == '-') {
			s = end + 1;
			b = strtoul(s, &end, 10);
			if (end == s || b < a)
				return -EINVAL;
		}
		for (; a <= b && a < CPU_SETSIZE; a++)
			CPU_SET(a, set);
		s = *end == ',' ? end + 1 : end;
	}
	return CPU_COUNT(set) ? 0 : -EINVAL;
}

/*
 * Every PMUv3 PMU (an event source whose format/ has our `long` field),
 * with its type and CPUs. Returns how many were found.
 */
static int find_pmus(void)
{
	static const char base[] = "/sys/bus/event_source/devices";
	struct hetero_pmu *p;
	struct dirent *de;
	char path[512];
	uint64_t type;
	DIR *d;

	d = opendir(base);
	if (!d)
		return 0;
	while ((de = readdir(d)) && nr_pmus < MAX_PMUS) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/format/long", base, de->d_name);
		if (access(path, F_OK))
			continue;
		p = &pmus[nr_pmus];
		snprintf(p->info.dir, sizeof(p->info.dir), "%s/%s", base, de->d_name);
		p->info.name = strrchr(p->info.dir, '/') + 1;
		if (pmu_sysfs_u64(&p->info, "type", &type))
			continue;
		p->info.type = type;
		snprintf(path, sizeof(path), "%s/cpus", p->info.dir);
		if (pmu_read_sysfs(path, p->cpulist, sizeof(p->cpulist)))
			snprintf(p->cpulist, sizeof(p->cpulist), "(no cpus file)");
		p->cpulist[strcspn(p->cpulist, "\n")] = '\0';
		if (parse_cpulist(p->cpulist, &p->cpus))
			CPU_ZERO(&p->cpus);
		nr_pmus++;
	}
	closedir(d);
	return nr_pmus;
}

static int first_cpu(const cpu_set_t *set)
{
	int cpu;

	for (cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, set))
			return cpu;
	return CPU_SETSIZE;
}

/* PMU 0 is the one of CPU 0: the same numbering on every boot */
static void sort_pmus(void)
{
	struct hetero_pmu tmp;
	int i, j;

	for (i = 1; i < nr_pmus; i++)
		for (j = i; j > 0 && first_cpu(&pmus[j].cpus) < first_cpu(&pmus[j - 1].cpus); j--) {
			tmp = pmus[j];
			pmus[j] = pmus[j - 1];
			pmus[j - 1] = tmp;
		}
	/* the copies moved: name points into dir */
	for (i = 0; i < nr_pmus; i++)
		pmus[i].info.name = strrchr(pmus[i].info.dir, '/') + 1;
}

static int pin(const cpu_set_t *set)
{
	if (sched_setaffinity(0, sizeof(*set), set)) {
		ksft_print_msg("sched_setaffinity: %s\n", strerror(errno));
		return -1;
	}
	/* The call moves the task off a CPU outside the set before returning */
	return 0;
}

static int unpin(void)
{
	cpu_set_t all;
	int cpu;

	CPU_ZERO(&all);
	for (cpu = 0; cpu < sysconf(_SC_NPROCESSORS_CONF); cpu++)
		CPU_SET(cpu, &all);
	return pin(&all);
}

/* Exactly 2 * n user instructions once inlined */
static inline void spin(unsigned long n)
{
	asm volatile("1:	subs	%0, %0, #1\n\t"
		     "b.ne	1b" : "+r" (n) : : "cc");
}

static sigjmp_buf trap_jmp;

static void on_sigill(int sig)
{
	siglongjmp(trap_jmp, 1);
}

/* 1 if reading the cycle counter from EL0 traps here */
static int mrs_traps(void)
{
	struct sigaction sa = { .sa_handler = on_sigill };
	struct sigaction old;
	int trapped = 0;

	sigaction(SIGILL, &sa, &old);
	if (sigsetjmp(trap_jmp, 1))
		trapped = 1;
	else
		pmu_user_cycle_counter();
	sigaction(SIGILL, &old, NULL);
	return trapped;
}

/* The user read, with a trap (a stale index) reported as no access */
static bool user_read_guarded(struct perf_event_mmap_page *pc, uint64_t *count)
{
	struct sigaction sa = { .sa_handler = on_sigill };
	struct sigaction old;
	bool ok;

	sigaction(SIGILL, &sa, &old);
	if (sigsetjmp(trap_jmp, 1)) {
		ksft_print_msg("user read trapped (page index %u)\n", pc->index);
		ok = false;
	} else {
		ok = pmu_user_read(pc, count);
	}
	sigaction(SIGILL, &old, NULL);
	return ok;
}

static void attr_for(struct perf_event_attr *attr, uint32_t type, uint64_t config,
		     uint64_t config1)
{
	pmu_attr_user(attr, type, config);
	attr->config1 = config1;
}

/* Open an rdpmc event of this task and map its page; -errno */
static int user_event_open_as(struct pmu_user_event *ev, uint32_t type, uint64_t config)
{
	struct perf_event_attr attr;

	attr_for(&attr, type, config, PMU_CFG1_RDPMC);
	return pmu_user_event_open(ev, &attr);
}

/* Open an rdpmc INST_RETIRED event on pmu and map its page; -errno */
static int user_event_open(struct pmu_user_event *ev, const struct hetero_pmu *pmu)
{
	return user_event_open_as(ev, pmu->info.type, ARMV8_EVT_INST_RETIRED);
}

static void test_disjoint(void)
{
	cpu_set_t both;
	bool ok = true;
	int i, j;

	for (i = 0; i < nr_pmus; i++) {
		ksft_print_msg("PMU %s type %u cpus %s\n", pmus[i].info.name,
			       pmus[i].info.type, pmus[i].cpulist);
		if (!CPU_COUNT(&pmus[i].cpus))
			ok = false;
		for (j = 0; j < i; j++) {
			CPU_AND(&both, &pmus[i].cpus, &pmus[j].cpus);
			if (CPU_COUNT(&both))
				ok = false;
		}
	}
	pmu_result(ok, "pmus_have_disjoint_cpus");
}

/* instructions:u on the PMU's own type, pinned to its CPUs: exact */
static void test_count_exact(int k)
{
	struct hetero_pmu *pmu = &pmus[k];
	struct perf_event_attr attr;
	char name[64];
	int64_t count = -1;
	int fd;

	snprintf(name, sizeof(name), "pmu%d_instructions_u_exact", k);
	if (pin(&pmu->cpus)) {
		pmu_result(false, name);
		return;
	}
	attr_for(&attr, pmu->info.type, ARMV8_EVT_INST_RETIRED, 0);
	fd = pmu_open(&attr, -1);
	if (fd >= 0) {
		count = pmu_measure(fd, ITERS);
		close(fd);
	}
	ksft_print_msg("%s on CPUs %s: %" PRId64 ", expected %" PRIu64 " (fd %d)\n",
		       pmu->info.name, pmu->cpulist, count,
		       pmu_expected_user(ITERS), fd);
	pmu_result(count == (int64_t)pmu_expected_user(ITERS), name);
}

/*
 * An event with rdpmc: EOPNOTSUPP if @refused, else it opens; the same
 * without rdpmc opens (so a refusal is about user access, not the event).
 */
static void test_generic(const char *name, uint32_t type, uint64_t config, bool refused)
{
	struct perf_event_attr attr;
	int with, without;

	attr_for(&attr, type, config, PMU_CFG1_RDPMC);
	with = pmu_open(&attr, -1);
	if (with >= 0)
		close(with);
	attr_for(&attr, type, config, 0);
	without = pmu_open(&attr, -1);
	if (without >= 0)
		close(without);
	ksft_print_msg("%s: with rdpmc %s, without %s\n", name,
		       with >= 0 ? "opened" : strerror(-with),
		       without >= 0 ? "opened" : strerror(-without));
	pmu_result((refused ? with == -EOPNOTSUPP : with >= 0) && without >= 0, name);
}

/*
 * PERF_TYPE_HW_CACHE: the first read-access cache event the PMU counts at
 * all (QEMU's PMU counts none of them: then the question cannot be asked).
 */
static void test_hw_cache(void)
{
	static const uint64_t caches[] = {
		PERF_COUNT_HW_CACHE_L1D, PERF_COUNT_HW_CACHE_L1I,
		PERF_COUNT_HW_CACHE_LL, PERF_COUNT_HW_CACHE_DTLB,
		PERF_COUNT_HW_CACHE_ITLB, PERF_COUNT_HW_CACHE_BPU,
	};
	static const char name[] = "rdpmc_hw_cache_type_opens";
	struct perf_event_attr attr;
	unsigned int i;
	int fd;

	for (i = 0; i < ARRAY_SIZE(caches); i++) {
		uint64_t config = caches[i] |
				  PERF_COUNT_HW_CACHE_OP_READ << 8 |
				  PERF_COUNT_HW_CACHE_RESULT_ACCESS << 16;

		attr_for(&attr, PERF_TYPE_HW_CACHE, config, 0);
		fd = pmu_open(&attr, -1);
		if (fd < 0)
			continue;
		close(fd);
		test_generic(name, PERF_TYPE_HW_CACHE, config, false);
		return;
	}
	pmu_skip(name, "the PMU counts no HW_CACHE event, with or without rdpmc");
}

/*
 * User reads around spin(n): their difference; 0 on failure. noipa: not
 * inlined nor specialised for a constant n, so that every call runs the
 * same instructions around the loop.
 */
static __attribute__((noipa)) uint64_t user_delta(struct pmu_user_event *ev, unsigned long n)
{
	uint64_t a, b;

	if (!user_read_guarded(ev->pc, &a))
		return 0;
	spin(n);
	if (!user_read_guarded(ev->pc, &b))
		return 0;
	return b - a;
}

/* A user read, then read() of the running event; false on failure */
static __attribute__((noipa)) bool read_pair(struct pmu_user_event *ev, uint64_t *user,
					     int64_t *sys)
{
	if (!user_read_guarded(ev->pc, user))
		return false;
	*sys = pmu_read_count(ev->fd);
	return *sys >= 0;
}

/*
 * The reads' own instructions cancel out between two windows, leaving the
 * loop exactly. read() right after a user read counts what the user read
 * saw plus the C code in between, the same code each time: the gap must
 * be the same small number around any amount of work.
 */
static bool user_read_exact(struct pmu_user_event *ev, const char *pmu_name)
{
	uint64_t d1 = 0, d2 = 0, ua = 0, ub = 0;
	int64_t ra = -1, rb = -1;
	bool ok = false;
	int tries;

	/* A read retried after preemption runs longer: allow three tries */
	for (tries = 0; tries < 3 && !ok; tries++) {
		d1 = user_delta(ev, ITERS);
		d2 = user_delta(ev, 2 * ITERS);
		ok = read_pair(ev, &ua, &ra);
		spin(ITERS);
		ok = read_pair(ev, &ub, &rb) && ok;
		ok = ok && d1 && d2 && d2 - d1 == 2 * ITERS &&
		     (uint64_t)ra > ua && (uint64_t)ra - ua <= READ_SLACK &&
		     (uint64_t)rb - ub == (uint64_t)ra - ua;
	}
	ksft_print_msg("%s: index %u width %u, deltas %" PRIu64 " %" PRIu64
		       ", user %" PRIu64 " read() %" PRId64 ", then user %" PRIu64
		       " read() %" PRId64 "\n", pmu_name, ev->pc->index,
		       (unsigned int)ev->pc->pmc_width, d1, d2, ua, ra, ub, rb);
	return ok;
}

/*
 * From a task pinned to PMU k's CPUs, an rdpmc event opened as @type and
 * @config (INST_RETIRED with the PMU's type, or instructions naming it;
 * @what, in the test's name, says which): the user read follows the loop
 * exactly and agrees with read()
 */
static void test_rdpmc_user_read(int k, const char *what, uint32_t type, uint64_t config)
{
	struct hetero_pmu *pmu = &pmus[k];
	struct pmu_user_event ev;
	char name[64];
	bool ok;
	int ret;

	snprintf(name, sizeof(name), "pmu%d_rdpmc_%suser_read_matches_read", k, what);
	if (pin(&pmu->cpus)) {
		pmu_result(false, name);
		return;
	}
	ret = user_event_open_as(&ev, type, config);
	if (ret) {
		ksft_print_msg("%s: rdpmc open: %s\n", pmu->info.name, strerror(-ret));
		pmu_result(false, name);
		return;
	}
	ioctl(ev.fd, PERF_EVENT_IOC_RESET, 0);
	ioctl(ev.fd, PERF_EVENT_IOC_ENABLE, 0);
	ok = ev.pc->cap_user_rdpmc && ev.pc->index >= 1 && ev.pc->index <= 32;
	ok = user_read_exact(&ev, pmu->info.name) && ok;
	ioctl(ev.fd, PERF_EVENT_IOC_DISABLE, 0);
	pmu_user_event_close(&ev);
	pmu_result(ok, name);
}

/*
 * An rdpmc event of PMU 0 opened by a task that is not pinned; then the
 * task on PMU 1's CPUs (no count, index 0, mrs traps) and back on PMU 0's
 * (access again, exact).
 */
static void test_follows_cpu(void)
{
	struct pmu_user_event ev;
	int64_t before, after;
	uint64_t v;
	bool away_ok, back_ok;
	uint32_t away_index;
	int ret, trapped;

	if (unpin()) {
		pmu_result(false, "unpinned_rdpmc_open_accepted");
		pmu_result(false, "other_pmu_cpus_no_count_no_access");
		pmu_result(false, "own_pmu_cpus_access_again");
		return;
	}
	ret = user_event_open(&ev, &pmus[0]);
	ksft_print_msg("rdpmc on %s from an unpinned task: %s\n",
		       pmus[0].info.name, ret ? strerror(-ret) : "opened");
	pmu_result(!ret, "unpinned_rdpmc_open_accepted");
	if (ret) {
		pmu_result(false, "other_pmu_cpus_no_count_no_access");
		pmu_result(false, "own_pmu_cpus_access_again");
		return;
	}
	ioctl(ev.fd, PERF_EVENT_IOC_RESET, 0);
	ioctl(ev.fd, PERF_EVENT_IOC_ENABLE, 0);

	pin(&pmus[1].cpus);
	before = pmu_read_count(ev.fd);
	spin(ITERS);
	away_index = ev.pc->index;
	trapped = mrs_traps();
	after = pmu_read_count(ev.fd);
	ksft_print_msg("on %s's CPUs %s: count %" PRId64 " -> %" PRId64
		       ", index %u, mrs %s\n", pmus[1].info.name, pmus[1].cpulist,
		       before, after, away_index, trapped ? "trapped" : "did not trap");
	away_ok = before >= 0 && after == before && !away_index && trapped &&
		  !user_read_guarded(ev.pc, &v);
	pmu_result(away_ok, "other_pmu_cpus_no_count_no_access");

	pin(&pmus[0].cpus);
	back_ok = user_read_exact(&ev, pmus[0].info.name);
	pmu_result(back_ok, "own_pmu_cpus_access_again");

	ioctl(ev.fd, PERF_EVENT_IOC_DISABLE, 0);
	pmu_user_event_close(&ev);
}

/*
 * A task with an rdpmc event of PMU 0, on PMU 1's CPUs while pinned
 * CPU-wide instructions of PMU 1 count there: mrs traps (no read of the
 * CPU-wide count, and no answer of 0 either: PMU 1 is not the task's).
 * The CPU-wide event samples by frequency, so perf reprograms PMU 1 at
 * every tick while the task runs there: each time the driver decides
 * access again, for a task with rdpmc events of another PMU.
 */
static void test_other_pmu_busy(void)
{
	struct perf_event_attr attr;
	struct pmu_user_event ev;
	int wide[CPU_SETSIZE], nr = 0, cpu, trapped = 0;
	int64_t wide_count = 0;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = pmus[1].info.type;
	attr.config = ARMV8_EVT_INST_RETIRED;
	attr.pinned = 1;
	attr.freq = 1;
	attr.sample_freq = 1000;
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, &pmus[1].cpus))
			continue;
		wide[nr] = syscall(__NR_perf_event_open, &attr, -1, cpu, -1, 0);
		if (wide[nr] >= 0)
			nr++;
	}
	if (!nr || user_event_open(&ev, &pmus[0])) {
		ksft_print_msg("cannot open the events: %s\n", strerror(errno));
		pmu_result(false, "other_pmu_busy_cpus_no_access");
		while (nr--)
			close(wide[nr]);
		return;
	}
	ioctl(ev.fd, PERF_EVENT_IOC_ENABLE, 0);
	pin(&pmus[1].cpus);
	spin(BUSY_ITERS);
	trapped = mrs_traps();
	pin(&pmus[0].cpus);
	ioctl(ev.fd, PERF_EVENT_IOC_DISABLE, 0);
	pmu_user_event_close(&ev);
	while (nr--) {
		wide_count += pmu_read_count(wide[nr]);
		close(wide[nr]);
	}
	ksft_print_msg("on %s's CPUs with its CPU-wide count at %" PRId64 ": mrs %s\n",
		       pmus[1].info.name, wide_count, trapped ? "trapped" : "did not trap");
	pmu_result(trapped && wide_count > 0, "other_pmu_busy_cpus_no_access");
}

int main(void)
{
	int k;

	ksft_print_header();
	/* A skip the counts see ("ok 1 name # SKIP"), exit status 4 */
	if (find_pmus() < 2) {
		char why[96];

		snprintf(why, sizeof(why), "%d PMUv3 PMU: needs two, over disjoint CPUs",
			 nr_pmus);
		ksft_set_plan(1);
		pmu_skip("heterogeneous_pmus", why);
		ksft_print_cnts();
		exit(KSFT_SKIP);
	}
	sort_pmus();
	pmu_user_access_enable();

	ksft_set_plan(1 + 2 * 2 + 3 + 2 * 2 + 3 + 1);
	test_disjoint();
	for (k = 0; k < 2; k++)
		test_count_exact(k);

	/* Pinned to PMU 0's CPUs: what is refused is the type alone */
	pin(&pmus[0].cpus);
	test_generic("rdpmc_hardware_type_opens", PERF_TYPE_HARDWARE,
		     PERF_COUNT_HW_INSTRUCTIONS, false);
	test_hw_cache();
	test_generic("rdpmc_raw_type_eopnotsupp", PERF_TYPE_RAW,
		     ARMV8_EVT_INST_RETIRED, true);

	for (k = 0; k < 2; k++) {
		test_rdpmc_user_read(k, "", pmus[k].info.type,
				     ARMV8_EVT_INST_RETIRED);
		test_rdpmc_user_read(k, "hardware_type_naming_pmu_", PERF_TYPE_HARDWARE,
				     (uint64_t)pmus[k].info.type << PERF_PMU_TYPE_SHIFT |
				     PERF_COUNT_HW_INSTRUCTIONS);
	}
	test_follows_cpu();
	test_other_pmu_busy();

	ksft_finished();
}
