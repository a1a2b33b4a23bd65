// SPDX-License-Identifier: GPL-2.0
/*
 * Direct EL0 reads of PMU counters (kernel.perf_user_access and the rdpmc
 * format bit, config1:1):
 *
 *   - with the sysctl on, a task's rdpmc event shows cap_user_rdpmc, an
 *     index and a width in its user page, and reading the counter with
 *     mrs under the page's sequence count gives the count read() gives;
 *   - refusals: a CPU-wide rdpmc event (EINVAL), long (config1:0) with
 *     rdpmc on a PMU without 64-bit event counters (EOPNOTSUPP), except
 *     for cycles, whose counter is 64 bits wide on every PMU: exact too;
 *   - no leak: a task without an rdpmc event traps (SIGILL) on mrs, even
 *     right after a task with access ran on the same CPU; a task with
 *     access reads 0 from counters it does not own, idle or held by a
 *     CPU-wide event, and its own read stays exact beside CPU-wide
 *     events; an unprivileged task reads 0 from a kernel-only counter
 *     root attached to it; clearing the sysctl makes the next read trap;
 *   - a reader keeps its access while rotation takes its event off and
 *     puts it back on a counter: it falls back to read(), it never traps.
 *
 * The sysctl is restored on exit.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pmu_lib.h"
#include "pmu_user_read.h"

#define ITERS		100000UL
/* What the C code between a user read and the disabling ioctl may run */
#define READ_SLACK	64
/* More events than any PMU has counters (31 + the cycle counter) */
#define CROWD		33
/* Multiplexing intervals a reader runs through */
#define ROTATIONS	100

static struct pmu_info pmu;
/* Exactly 2 * n user instructions once inlined */
static inline void spin(unsigned long n)
{
	asm volatile("1:	subs	%0, %0, #1\n\t"
		     "b.ne	1b" : "+r" (n) : : "cc");
}

/* mrs that may trap: SIGILL ends in trap_jmp */
static sigjmp_buf trap_jmp;

static void on_sigill(int sig)
{
	siglongjmp(trap_jmp, 1);
}

/* Counter index (perf numbering, 32 = cycles) through the selector */
static uint64_t selector_read(uint32_t index)
{
	if (index == PMU_USER_CYCLE_INDEX)
		return pmu_user_cycle_counter();
	return pmu_user_event_counter(index - 1);
}

/* Event counters 0-3 (index 1-4) by their own registers, as libperf reads */
static uint64_t direct_read(uint32_t index)
{
	uint64_t val = 0;

	switch (index) {
	case 1:
		asm volatile("mrs %0, pmevcntr0_el0" : "=r" (val));
		break;
	case 2:
		asm volatile("mrs %0, pmevcntr1_el0" : "=r" (val));
		break;
	case 3:
		asm volatile("mrs %0, pmevcntr2_el0" : "=r" (val));
		break;
	case 4:
		asm volatile("mrs %0, pmevcntr3_el0" : "=r" (val));
		break;
	}
	return val;
}

/* 1 if reading counter index with read() traps, else its value in *val */
static int traps_via(uint64_t (*read)(uint32_t), uint32_t index, uint64_t *val)
{
	struct sigaction sa = { .sa_handler = on_sigill };
	struct sigaction old;
	int trapped = 0;

	sigaction(SIGILL, &sa, &old);
	if (sigsetjmp(trap_jmp, 1))
		trapped = 1;
	else
		*val = read(index);
	sigaction(SIGILL, &old, NULL);
	return trapped;
}

static int traps(uint32_t index, uint64_t *val)
{
	return traps_via(selector_read, index, val);
}

/* Open (-errno on failure) an EL0-only event of this task and map its page */
static int user_event_open(struct pmu_user_event *ev, uint64_t evt, uint64_t config1)
{
	struct perf_event_attr attr;

	pmu_attr_user(&attr, pmu.type, evt);
	attr.config1 = config1;
	return pmu_user_event_open(ev, &attr);
}

/* Run everything on one CPU, so that a child shares the parent's PMU */
static void pin_to_cpu0(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		ksft_print_msg("sched_setaffinity: %s\n", strerror(errno));
}

/*
 * The event counters' width, 64 or 32 (-1: unknown), from the CPU, not
 * from an event's page: pmc_width is defined only with cap_user_rdpmc
 * (perf_event.h), and mainline leaves it 0 on other events' pages.
 */
static int counter_width(void)
{
	int wide = pmu_has_64bit_counters();

	return wide < 0 ? -1 : wide ? 64 : 32;
}

static void test_page(void)
{
	struct pmu_user_event ev;
	bool ok;

	if (user_event_open(&ev, ARMV8_EVT_INST_RETIRED, PMU_CFG1_RDPMC)) {
		pmu_result(false, "rdpmc_page_describes_counter");
		return;
	}
	ioctl(ev.fd, PERF_EVENT_IOC_ENABLE, 0);
	ok = ev.pc->cap_user_rdpmc && ev.pc->index >= 1 && ev.pc->index <= 31 &&
	     ev.pc->pmc_width == 32;
	ksft_print_msg("cap_user_rdpmc %u index %u pmc_width %u\n",
		       (unsigned int)ev.pc->cap_user_rdpmc, ev.pc->index,
		       (unsigned int)ev.pc->pmc_width);
	ioctl(ev.fd, PERF_EVENT_IOC_DISABLE, 0);
	pmu_user_event_close(&ev);
	pmu_result(ok, "rdpmc_page_describes_counter");
}

/* User reads around spin(n): their difference; 0 on failure */
static uint64_t user_delta(struct pmu_user_event *ev, unsigned long n)
{
	uint64_t a, b;

	if (!pmu_user_read(ev->pc, &a))
		return 0;
	spin(n);
	if (!pmu_user_read(ev->pc, &b))
		return 0;
	return b - a;
}

/*
 * The reads' own instructions cancel out between two windows; what is
 * left is the loop, exactly. read() after the window adds only the C code
 * between the last user read and the disabling ioctl.
 */
static void test_exact(const char *name, uint64_t evnum, uint64_t config1)
{
	uint64_t d1, d2, last, total;
	struct pmu_user_event ev;
	int ret, tries;
	bool ok;

	ret = user_event_open(&ev, evnum, config1 | PMU_CFG1_RDPMC);
	if (ret) {
		ksft_print_msg("%s: open: %s\n", name, strerror(-ret));
		pmu_result(false, name);
		return;
	}
	ioctl(ev.fd, PERF_EVENT_IOC_RESET, 0);
	ioctl(ev.fd, PERF_EVENT_IOC_ENABLE, 0);
	/* A read retried after preemption runs longer: allow three tries */
	for (tries = 0; tries < 3; tries++) {
		d1 = user_delta(&ev, ITERS);
		d2 = user_delta(&ev, 2 * ITERS);
		if (d2 - d1 == 2 * ITERS)
			break;
	}
	ok = pmu_user_read(ev.pc, &last);
	ioctl(ev.fd, PERF_EVENT_IOC_DISABLE, 0);
	total = pmu_read_count(ev.fd);

	ksft_print_msg("%s: width %u, deltas %" PRIu64 " %" PRIu64
		       ", user %" PRIu64 ", read() %" PRIu64 "\n", name,
		       (unsigned int)ev.pc->pmc_width, d1, d2, last, total);
	ok = ok && d1 && d2 && d2 - d1 == 2 * ITERS &&
	     (!(config1 & PMU_CFG1_LONG) || ev.pc->pmc_width == 64) &&
	     total >= last && total - last <= READ_SLACK;
	pmu_user_event_close(&ev);
	pmu_result(ok, name);
}

static void test_cycles(void)
{
	struct pmu_user_event ev;
	uint64_t a = 0, b = 0;
	bool ok;

	if (user_event_open(&ev, ARMV8_EVT_CPU_CYCLES, PMU_CFG1_RDPMC)) {
		pmu_result(false, "rdpmc_cycles_on_pmccntr");
		return;
	}
	ioctl(ev.fd, PERF_EVENT_IOC_ENABLE, 0);
	ok = ev.pc->index == PMU_USER_CYCLE_INDEX && pmu_user_read(ev.pc, &a);
	spin(ITERS);
	ok = ok && pmu_user_read(ev.pc, &b) && b > a;
	ksft_print_msg("cycles: index %u, %" PRIu64 " -> %" PRIu64 "\n",
		       ev.pc->index, a, b);
	ioctl(ev.fd, PERF_EVENT_IOC_DISABLE, 0);
	pmu_user_event_close(&ev);
	pmu_result(ok, "rdpmc_cycles_on_pmccntr");
}

static void test_refusals(int width)
{
	struct perf_event_attr attr;
	struct pmu_user_event ev;
	int fd, ret;

	pmu_attr_user(&attr, pmu.type, ARMV8_EVT_INST_RETIRED);
	attr.config1 = PMU_CFG1_RDPMC;
	fd = syscall(__NR_perf_event_open, &attr, -1, 0, -1, 0);
	ret = fd < 0 ? -errno : 0;
	if (fd >= 0)
		close(fd);
	pmu_result(ret == -EINVAL, "rdpmc_cpu_wide_einval");

	ret = user_event_open(&ev, ARMV8_EVT_INST_RETIRED, PMU_CFG1_RDPMC | PMU_CFG1_LONG);
	if (width != 32) {
		if (!ret)
			pmu_user_event_close(&ev);
		pmu_skip("rdpmc_long_without_64bit_eopnotsupp", width == 64 ?
			 "this PMU has 64-bit event counters" : "counter width unknown");
	} else {
		if (!ret)
			pmu_user_event_close(&ev);
		pmu_result(ret == -EOPNOTSUPP, "rdpmc_long_without_64bit_eopnotsupp");
	}
}

/* A child with no event of its own, on the same CPU: mrs must trap */
static void test_child_without_event_traps(void)
{
	struct pmu_user_event ev;
	uint64_t v;
	pid_t pid;
	int status = 0;

	if (user_event_open(&ev, ARMV8_EVT_INST_RETIRED, PMU_CFG1_RDPMC)) {
		pmu_result(false, "child_without_rdpmc_event_traps");
		return;
	}
	ioctl(ev.fd, PERF_EVENT_IOC_ENABLE, 0);
	/* Access is live on this CPU right up to the fork */
	if (!pmu_user_read(ev.pc, &v))
		ksft_print_msg("parent could not read its own counter\n");

	pid = fork();
	if (pid == 0)
		_exit(traps(PMU_USER_CYCLE_INDEX, &v) && traps(1, &v) ? 0 : 1);
	waitpid(pid, &status, 0);
	ioctl(ev.fd, PERF_EVENT_IOC_DISABLE, 0);
	pmu_user_event_close(&ev);
	/* Mainline leaves EL0 access on for the next task (a defect) */
	if (pmu_kernel_mainline())
		pmu_result(WIFEXITED(status) && WEXITSTATUS(status) == 1,
			   "mainline_child_without_rdpmc_event_reads_counters");
	else
		pmu_result(WIFEXITED(status) && WEXITSTATUS(status) == 0,
			   "child_without_rdpmc_event_traps");
}

/*
 * Leave counts in counters 0-1 (two plain events), then take access with
 * one rdpmc event on the cycle counter: event counters 0 and 1 are no
 * longer anyone's and must read 0.
 */
static void test_unowned_counters_read_zero(void)
{
	struct perf_event_attr attr;
	struct pmu_user_event ev;
	uint64_t c0 = 1, c1 = 1;
	int fds[2], i;
	bool ok;

	pmu_attr_user(&attr, pmu.type, ARMV8_EVT_INST_RETIRED);
	for (i = 0; i < 2; i++)
		fds[i] = pmu_open(&attr, -1);
	for (i = 0; i < 2; i++)
		ioctl(fds[i], PERF_EVENT_IOC_ENABLE, 0);
	spin(ITERS);
	for (i = 0; i < 2; i++) {
		ioctl(fds[i], PERF_EVENT_IOC_DISABLE, 0);
		if (pmu_read_count(fds[i]) <= 0)
			ksft_print_msg("plain event %d counted nothing\n", i);
		close(fds[i]);
	}

	if (user_event_open(&ev, ARMV8_EVT_CPU_CYCLES, PMU_CFG1_RDPMC)) {
		pmu_result(false, "unowned_counters_read_zero");
		return;
	}
	ioctl(ev.fd, PERF_EVENT_IOC_ENABLE, 0);
	ok = ev.pc->index == PMU_USER_CYCLE_INDEX &&
	     !traps(1, &c0) && !traps(2, &c1) && !c0 && !c1;
	ksft_print_msg("unowned counters 0, 1: %" PRIu64 " %" PRIu64 "\n", c0, c1);
	ioctl(ev.fd, PERF_EVENT_IOC_DISABLE, 0);
	pmu_user_event_close(&ev);
	pmu_result(ok, "unowned_counters_read_zero");
}

/*
 * With the task's rdpmc event counting, read every counter but its own,
 * through the selector (index 1-31, then the cycle counter), then event
 * counters 0-3 by their own registers: a nonzero value or a trap, each
 * printed, is what the task must not see.
 */
static int count_visible_foreign_counters(void)
{
	struct pmu_user_event ev;
	uint32_t i, own;
	int bad = 0;
	uint64_t v;

	if (user_event_open(&ev, ARMV8_EVT_INST_RETIRED, PMU_CFG1_RDPMC))
		return -1;
	ioctl(ev.fd, PERF_EVENT_IOC_ENABLE, 0);
	spin(ITERS);
	own = ev.pc->index;
	for (i = 1; i <= PMU_USER_CYCLE_INDEX + 4; i++) {
		bool direct = i > PMU_USER_CYCLE_INDEX;
		uint32_t index = direct ? i - PMU_USER_CYCLE_INDEX : i;
		int trapped;

		if (index == own)
			continue;
		v = 0;
		trapped = traps_via(direct ? direct_read : selector_read, index, &v);
		if (trapped || v) {
			ksft_print_msg("counter index %u%s: %s %" PRIu64 "\n", index,
				       direct ? " (PMEVCNTR<n>_EL0)" : "",
				       trapped ? "traps" : "reads", v);
			bad++;
		}
	}
	ioctl(ev.fd, PERF_EVENT_IOC_DISABLE, 0);
	pmu_user_event_close(&ev);
	return bad;
}

/*
 * How the reads above were served: the kernel instructions that run
 * during READS reads of the task's own counter. About 0 when they go to
 * the hardware (FEAT_PMUv3p9's PMUACR_EL1 opens that counter alone to
 * EL0), hundreds when each traps to the kernel. Either way is correct;
 * the pmuv3p9 plan checks that a CPU with PMUv3p9 takes the first.
 */
#define READS	1000

static void report_kernel_work_per_read(void)
{
	struct perf_event_attr attr;
	struct pmu_user_event ev;
	uint64_t c, sum = 0;
	int64_t kernel;
	int fd, i;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = pmu.type;
	attr.config = ARMV8_EVT_INST_RETIRED;
	attr.disabled = 1;
	attr.exclude_user = 1;
	fd = pmu_open(&attr, -1);
	if (fd < 0 || user_event_open(&ev, ARMV8_EVT_INST_RETIRED, PMU_CFG1_RDPMC)) {
		ksft_print_msg("kernel work per read: cannot open the events\n");
		if (fd >= 0)
			close(fd);
		return;
	}
	ioctl(ev.fd, PERF_EVENT_IOC_ENABLE, 0);
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	for (i = 0; i < READS; i++)
		if (pmu_user_read(ev.pc, &c))
			sum += c;
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	kernel = pmu_read_count(fd);
	ksft_print_msg("own reads beside CPU-wide events: %" PRId64
		       " kernel instructions per read (sum %" PRIu64 ")\n",
		       kernel / READS, sum);
	close(fd);
	pmu_user_event_close(&ev);
}

/*
 * Pinned CPU-wide cycles and instructions, every exception level, share
 * the PMU with the reader: they count the whole CPU, kernel included, and
 * no task may see that. Without FEAT_PMUv3p9 EL0 cannot be kept off one
 * counter, so the kernel leaves EL0 access off and answers each read that
 * traps: the task's own counter as it is (the read stays exact), every
 * other counter 0.
 */
static void test_cpu_wide_counters_hidden(void)
{
	static const uint64_t evts[] = { ARMV8_EVT_CPU_CYCLES, ARMV8_EVT_INST_RETIRED };
	int64_t counts[2] = { -1, -1 };
	struct perf_event_attr attr;
	int wide[2], i, bad;

	for (i = 0; i < 2; i++) {
		memset(&attr, 0, sizeof(attr));
		attr.size = sizeof(attr);
		attr.type = pmu.type;
		attr.config = evts[i];
		attr.pinned = 1;
		wide[i] = syscall(__NR_perf_event_open, &attr, -1, 0, -1, 0);
		if (wide[i] < 0) {
			ksft_print_msg("CPU-wide event %d: %s\n", i, strerror(errno));
			while (i--)
				close(wide[i]);
			pmu_result(false, "rdpmc_exact_beside_cpu_wide_events");
			pmu_result(false, "cpu_wide_counters_read_zero");
			return;
		}
	}
	test_exact("rdpmc_exact_beside_cpu_wide_events", ARMV8_EVT_INST_RETIRED, 0);
	report_kernel_work_per_read();
	bad = count_visible_foreign_counters();
	for (i = 0; i < 2; i++) {
		counts[i] = pmu_read_count(wide[i]);
		close(wide[i]);
	}
	ksft_print_msg("CPU-wide cycles %" PRId64 ", instructions %" PRId64
		       ", foreign counters seen %d\n", counts[0], counts[1], bad);
	/* Mainline opens every counter to EL0 without PMUv3p9 (a leak) */
	if (pmu_kernel_mainline())
		pmu_result(bad > 0 && counts[0] > 0 && counts[1] > 0,
			   "mainline_cpu_wide_counters_visible");
	else
		pmu_result(bad == 0 && counts[0] > 0 && counts[1] > 0,
			   "cpu_wide_counters_read_zero");
}

#define PARANOID_SYSCTL	"/proc/sys/kernel/perf_event_paranoid"
#define NOBODY		65534

/* In a child: become nobody, wait for root's event, count what leaks */
static int unprivileged_foreign_counters(int ready, int go)
{
	char c = 0;
	int bad;

	if (setgid(NOBODY) || setuid(NOBODY) || write(ready, &c, 1) != 1 ||
	    read(go, &c, 1) != 1)
		return 255;
	bad = count_visible_foreign_counters();
	return bad < 0 ? 255 : bad > 100 ? 100 : bad;
}

/*
 * Root counts an unprivileged task's kernel work (perf stat -e
 * inst_retired:k -p PID) while the task reads its own rdpmc event: the
 * task opened only the EL0 count of itself (perf_event_paranoid 2), so
 * root's counter must read 0 or trap, never its kernel count.
 */
static void test_attached_counters_hidden(void)
{
	int ready[2], go[2], status = 0, fd = -1;
	struct perf_event_attr attr;
	char paranoid[8] = "2", c = 0;
	int64_t count = -1;
	pid_t pid;

	pmu_read_sysfs(PARANOID_SYSCTL, paranoid, sizeof(paranoid));
	if (pipe(ready) || pipe(go) || pmu_write_file(PARANOID_SYSCTL, "2")) {
		pmu_result(false, "attached_counters_hidden");
		return;
	}
	pid = fork();
	if (pid == 0)
		_exit(unprivileged_foreign_counters(ready[1], go[0]));
	close(ready[1]);
	close(go[0]);
	if (pid > 0 && read(ready[0], &c, 1) == 1) {
		memset(&attr, 0, sizeof(attr));
		attr.size = sizeof(attr);
		attr.type = pmu.type;
		attr.config = ARMV8_EVT_INST_RETIRED;
		attr.exclude_user = 1;
		fd = syscall(__NR_perf_event_open, &attr, pid, -1, -1, 0);
		if (fd < 0)
			ksft_print_msg("attach to %d: %s\n", pid, strerror(errno));
	}
	if (write(go[1], &c, 1) != 1)
		ksft_print_msg("could not start the reader\n");
	close(go[1]);
	close(ready[0]);
	if (pid > 0)
		waitpid(pid, &status, 0);
	if (fd >= 0) {
		count = pmu_read_count(fd);
		close(fd);
	}
	pmu_write_file(PARANOID_SYSCTL, paranoid);
	ksft_print_msg("root's kernel count of the reader %" PRId64
		       ", foreign counters the reader saw %d\n", count,
		       WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	if (!WIFEXITED(status) || WEXITSTATUS(status) == 255 || count <= 0) {
		pmu_result(false, "attached_counters_hidden");
		return;
	}
	/* Without PMUv3p9 mainline opens every counter to EL0 (a leak) */
	if (pmu_kernel_mainline())
		pmu_result(WEXITSTATUS(status) > 0, "mainline_attached_counters_visible");
	else
		pmu_result(WEXITSTATUS(status) == 0, "attached_counters_hidden");
}

static void test_sysctl_off_revokes(void)
{
	struct pmu_user_event ev;
	uint64_t v;
	bool before, after;

	if (user_event_open(&ev, ARMV8_EVT_INST_RETIRED, PMU_CFG1_RDPMC)) {
		pmu_result(false, "sysctl_off_mid_run_traps");
		return;
	}
	ioctl(ev.fd, PERF_EVENT_IOC_ENABLE, 0);
	before = !traps(ev.pc->index, &v);
	pmu_user_access_set('0');
	after = traps(ev.pc->index, &v);
	pmu_user_access_set('1');
	ioctl(ev.fd, PERF_EVENT_IOC_DISABLE, 0);
	pmu_user_event_close(&ev);
	ksft_print_msg("read before: %s, after sysctl 0: %s\n",
		       before ? "ok" : "trapped", after ? "trapped" : "ok");
	pmu_result(before && after, "sysctl_off_mid_run_traps");
}

/* Guest time in ns: under -icount it advances with instructions */
static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/*
 * Read for span_ns, through the user page when it names a counter, else
 * with read(); a trap is counted, not fatal. Values must never go back.
 */
/*
 * read_through_rotations()'s state. It changes between the sigsetjmp() and
 * the siglongjmp() of a trap, so it is not in locals (which would need
 * volatile): objects of static storage duration keep their values across
 * the jump, and the compiler barrier in pmu_user_read() has them stored
 * before each mrs that may trap.
 */
static struct rot_reads {
	unsigned long user, fallback, trapped, i;
	uint64_t last;
	bool mono;
} rot;

static void read_through_rotations(struct pmu_user_event *ev, uint64_t span_ns,
				   unsigned long *user, unsigned long *fallback,
				   unsigned long *trapped, bool *monotonic)
{
	struct sigaction sa = { .sa_handler = on_sigill };
	uint64_t v, end = now_ns() + span_ns;
	struct sigaction old;

	rot = (struct rot_reads){ .mono = true };
	sigaction(SIGILL, &sa, &old);
	/* Once, not per read: sigsetjmp() saving the mask is a system call */
	if (sigsetjmp(trap_jmp, 1))
		rot.trapped++;
	for (; (rot.i % 64) || now_ns() < end; rot.i++) {
		if (pmu_user_read(ev->pc, &v)) {
			rot.user++;
		} else {
			v = pmu_read_count(ev->fd);
			rot.fallback++;
		}
		rot.mono = rot.mono && v >= rot.last;
		rot.last = v;
	}
	sigaction(SIGILL, &old, NULL);
	*user = rot.user;
	*fallback = rot.fallback;
	*trapped = rot.trapped;
	*monotonic = rot.mono;
}

/*
 * One group of the task's own events as large as the PMU takes fills every
 * event counter, so rotation puts the rdpmc event and the group on the
 * counters in turn, while the task reads. Access belongs to the task for
 * as long as it has the event: a read that raced with the rotation sees
 * the sequence count move and reads again, one that finds no counter
 * uses read().
 */
static void test_reader_survives_rotation(void)
{
	const char *name = "rdpmc_reader_survives_rotation";
	unsigned long user, fallback, trapped;
	uint64_t interval_ms = 4;
	struct perf_event_attr attr;
	struct pmu_user_event ev;
	int fds[CROWD], n;
	bool monotonic;

	if (user_event_open(&ev, ARMV8_EVT_INST_RETIRED, PMU_CFG1_RDPMC)) {
		pmu_result(false, name);
		return;
	}
	pmu_sysfs_u64(&pmu, "perf_event_mux_interval_ms", &interval_ms);
	pmu_attr_user(&attr, pmu.type, ARMV8_EVT_INST_RETIRED);
	attr.disabled = 0;
	for (n = 0; n < CROWD; n++) {
		fds[n] = pmu_open(&attr, n ? fds[0] : -1);
		if (fds[n] < 0)
			break;
	}
	ksft_print_msg("group of %d events next to the rdpmc event\n", n);
	ioctl(ev.fd, PERF_EVENT_IOC_ENABLE, 0);
	read_through_rotations(&ev, ROTATIONS * interval_ms * 1000000ULL,
			       &user, &fallback, &trapped, &monotonic);
	ioctl(ev.fd, PERF_EVENT_IOC_DISABLE, 0);
	while (n--)
		close(fds[n]);
	pmu_user_event_close(&ev);
	ksft_print_msg("%lu user reads, %lu read() fallbacks, %lu traps, %s\n",
		       user, fallback, trapped,
		       monotonic ? "monotonic" : "went backwards");
	pmu_result(!trapped && user && fallback && monotonic, name);
}

int main(void)
{
	int width;

	ksft_print_header();
	pmu_find_or_skip(&pmu);
	pin_to_cpu0();
	ksft_set_plan(15);

	/* Before anything is granted: no rdpmc event, so mrs traps */
	{
		uint64_t v;

		pmu_result(traps(PMU_USER_CYCLE_INDEX, &v), "no_event_traps");
	}

	pmu_user_access_enable();
	width = counter_width();
	ksft_print_msg("counting width %d\n", width);

	test_page();
	test_exact("rdpmc_user_read_matches_read", ARMV8_EVT_INST_RETIRED, 0);
	if (width == 64)
		test_exact("rdpmc_long_user_read_matches_read", ARMV8_EVT_INST_RETIRED,
			   PMU_CFG1_LONG);
	else
		pmu_skip("rdpmc_long_user_read_matches_read",
			 "no 64-bit event counters (long is refused)");
	test_cycles();
	/* One cycle per instruction under icount; PMCCNTR is 64-bit everywhere */
	test_exact("rdpmc_long_cycles_user_read_matches_read", ARMV8_EVT_CPU_CYCLES,
		   PMU_CFG1_LONG);
	test_refusals(width);
	test_child_without_event_traps();
	test_unowned_counters_read_zero();
	test_cpu_wide_counters_hidden();
	test_attached_counters_hidden();
	test_sysctl_off_revokes();
	test_reader_survives_rotation();

	ksft_finished();
}
