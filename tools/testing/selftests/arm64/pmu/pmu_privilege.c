// SPDX-License-Identifier: GPL-2.0
/*
 * What an unprivileged task may do with the PMU at each perf_event_paranoid
 * level, and with kernel.perf_user_access on and off.
 *
 * Runs as root: root sets the two sysctls (and restores them on exit),
 * then forks a child that drops to nobody (uid/gid 65534, no groups, no
 * capabilities) and tries each case below. The expectations are those of
 * core perf in kernel/events/core.c of the base tree, none of them the
 * driver's own:
 *
 *   - sys_perf_event_open() refuses every unprivileged call with EACCES
 *     when perf_paranoid_any(), i.e. paranoid > 2 (Debian's level 3);
 *   - !exclude_kernel, or PERF_SAMPLE_CALLCHAIN without
 *     exclude_callchain_kernel, needs perf_allow_kernel(): EACCES when
 *     paranoid > 1 without CAP_PERFMON;
 *   - an event of no task (pid == -1, cpu >= 0) needs perf_allow_cpu() in
 *     find_get_context(): EACCES when paranoid > 0;
 *   - an event of another task needs perf_check_permission(): CAP_PERFMON
 *     or ptrace_may_access(PTRACE_MODE_READ_REALCREDS), which another
 *     user's task fails at every level: EACCES;
 *   - exclude_hv is not a privilege: nothing in core checks it. The driver
 *     must still keep the kernel out: on VHE the kernel runs at EL2, so an
 *     exclude_kernel event counts nothing of it whatever exclude_hv says.
 *
 *   case (unprivileged)                      paranoid: 3       2       1      -1
 *   own task, user only, exact count                   EACCES  ok      ok      ok
 *   own task, user + hv (exclude_hv=0), exact          EACCES  ok      ok      ok
 *   own task, kernel counted (exclude_kernel=0)        EACCES  EACCES  ok      ok
 *   CPU-wide (pid -1, cpu 0), user only                EACCES  EACCES  EACCES  ok
 *   own task, sampling with kernel IPs                 EACCES  EACCES  ok      ok
 *   own task, user sampling, kernel callchain          EACCES  EACCES  ok      ok
 *   own task, user + hv sampling, IPs all in loop      EACCES  ok      ok      ok
 *   another user's (root's) task, user only            EACCES  EACCES  EACCES  EACCES
 *   another task of the same user, user only           EACCES  ok      ok      ok
 *   rdpmc, perf_user_access=1: page allows, mrs = read EACCES  ok      ok      ok
 *   rdpmc, perf_user_access=0: index 0, mrs traps      EACCES  ok      ok      ok
 *
 * An allowed case must also behave: user-only counts are exact
 * (pmu_expected_user()), a count with the kernel exceeds the user-only
 * count, user-only samples all fall inside the loop and say
 * PERF_RECORD_MISC_USER, kernel sampling yields at least one sample with
 * PERF_RECORD_MISC_KERNEL, and an rdpmc read agrees with read().
 */
#define _GNU_SOURCE
#include <grp.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "pmu_lib.h"
#include "pmu_user_read.h"

#define PARANOID	"/proc/sys/kernel/perf_event_paranoid"
#define USER_ACCESS	"/proc/sys/kernel/perf_user_access"
#define NOBODY		65534

#define ITERS		100000UL
/* User sampling as in pmu_sampling: the window is 10.5 periods long */
#define PERIOD		100000UL
#define SAMPLE_ITERS	((PERIOD * 21 / 2 - PMU_WINDOW_OVERHEAD) / 2)
#define DATA_PAGES	8
/* Kernel sampling: system calls, most of whose cycles are the kernel's */
#define KPERIOD		20000UL
#define KCALLS		2000
/* What the C code between an rdpmc read and the disabling ioctl may run */
#define READ_SLACK	64
/* A CPU-wide user count may also see other tasks' user code on CPU 0 */
#define CPU_WIDE_SLACK	20000

#define NLEVELS		4
static const int levels[NLEVELS] = { 2, 1, -1, 3 };

/* Columns of want[] below, in the order of levels[] */
#define WANT(p2, p1, m1, p3)	{ p2, p1, m1, p3 }
#define EACC	(-EACCES)

static struct pmu_info pmu;

struct target {
	pid_t root_pid;		/* a task of root's */
	pid_t peer_pid;		/* another task of nobody's */
};

/* ---- cases: each runs as nobody, returns 0 or the open's -errno ---- */

static int open_on(struct perf_event_attr *attr, pid_t pid, int cpu)
{
	int fd = syscall(__NR_perf_event_open, attr, pid, cpu, -1, 0);

	return fd < 0 ? -errno : fd;
}

static int case_user_count(const struct target *t, bool *ok, bool excl_hv)
{
	struct perf_event_attr attr;
	int64_t got;
	int fd;

	pmu_attr_user(&attr, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS);
	attr.exclude_hv = excl_hv;
	fd = pmu_open(&attr, -1);
	if (fd < 0)
		return fd;
	got = pmu_measure(fd, ITERS);
	close(fd);
	*ok = got == (int64_t)pmu_expected_user(ITERS);
	ksft_print_msg("exclude_hv=%d: instructions:u %" PRId64 " (expected %" PRIu64 ")\n",
		       excl_hv, got, pmu_expected_user(ITERS));
	return 0;
}

static int case_own_user(const struct target *t, bool *ok)
{
	return case_user_count(t, ok, true);
}

static int case_own_user_hv(const struct target *t, bool *ok)
{
	return case_user_count(t, ok, false);
}

static int case_own_kernel(const struct target *t, bool *ok)
{
	struct perf_event_attr attr;
	int64_t got;
	int fd;

	pmu_attr_user(&attr, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS);
	attr.exclude_kernel = 0;
	fd = pmu_open(&attr, -1);
	if (fd < 0)
		return fd;
	got = pmu_measure(fd, ITERS);
	close(fd);
	/* The kernel half of the two ioctls is in the window too */
	*ok = got > (int64_t)pmu_expected_user(ITERS);
	ksft_print_msg("instructions:uk %" PRId64 " (user part %" PRIu64 ")\n",
		       got, pmu_expected_user(ITERS));
	return 0;
}

static int case_cpu_wide(const struct target *t, bool *ok)
{
	uint64_t want = pmu_expected_user(ITERS);
	struct perf_event_attr attr;
	cpu_set_t set;
	int64_t got;
	int fd;

	/* Run the loop on the CPU the event counts */
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		ksft_print_msg("sched_setaffinity: %s\n", strerror(errno));
	pmu_attr_user(&attr, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS);
	fd = open_on(&attr, -1, 0);
	if (fd < 0)
		return fd;
	got = pmu_measure(fd, ITERS);
	close(fd);
	*ok = got >= (int64_t)want && got <= (int64_t)(want + CPU_WIDE_SLACK);
	ksft_print_msg("CPU 0 instructions:u %" PRId64 " (loop %" PRIu64 ")\n", got, want);
	return 0;
}

/* Samples of one window: how many, and where */
struct sample_stats {
	unsigned int n, user, kernel, in_loop, other;
};

static void ring_scan(struct perf_event_mmap_page *pg, size_t size,
		      struct sample_stats *st)
{
	const char *data = (const char *)pg + pg->data_offset;
	uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = pg->data_tail;
	uint64_t lo = (uintptr_t)pmu_loop_begin, hi = (uintptr_t)pmu_loop_end;

	memset(st, 0, sizeof(*st));
	/* Records are 8-byte aligned and 8-byte multiples: none wraps mid-u64 */
	while (tail < head) {
		const struct perf_event_header *hdr =
			(const void *)(data + tail % size);
		uint64_t ip;

		if (hdr->size < sizeof(*hdr))
			break;
		if (hdr->type == PERF_RECORD_SAMPLE) {
			ip = *(const uint64_t *)(data + (tail + sizeof(*hdr)) % size);
			st->n++;
			switch (hdr->misc & PERF_RECORD_MISC_CPUMODE_MASK) {
			case PERF_RECORD_MISC_USER:
				st->user++;
				break;
			case PERF_RECORD_MISC_KERNEL:
				st->kernel++;
				break;
			}
			st->in_loop += ip >= lo && ip < hi;
		} else {
			st->other++;
		}
		tail += hdr->size;
	}
	__atomic_store_n(&pg->data_tail, tail, __ATOMIC_RELEASE);
}

/* Open a cycles sampler, map its ring, run work(fd), scan the ring */
static int sample_run(struct perf_event_attr *attr, void (*work)(int fd),
		      struct sample_stats *st)
{
	size_t page = sysconf(_SC_PAGESIZE), len = (DATA_PAGES + 1) * page;
	void *ring;
	int fd;

	fd = pmu_open(attr, -1);
	if (fd < 0)
		return fd;
	ring = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (ring == MAP_FAILED) {
		ksft_perror("mmap ring");
		memset(st, 0, sizeof(*st));
		close(fd);
		return 0;
	}
	work(fd);
	ring_scan(ring, DATA_PAGES * page, st);
	munmap(ring, len);
	close(fd);
	return 0;
}

static void work_loop(int fd)
{
	pmu_run_ioctl(fd, 0, SAMPLE_ITERS);
}

static void work_syscalls(int fd)
{
	int i;

	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	for (i = 0; i < KCALLS; i++)
		syscall(__NR_getppid);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
}

static int case_sample_kernel(const struct target *t, bool *ok)
{
	struct perf_event_attr attr;
	struct sample_stats st;
	int ret;

	pmu_attr_user(&attr, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	attr.exclude_kernel = 0;
	attr.sample_period = KPERIOD;
	attr.sample_type = PERF_SAMPLE_IP;
	ret = sample_run(&attr, work_syscalls, &st);
	if (ret)
		return ret;
	ksft_print_msg("cycles:uk over %d syscalls: %u samples, %u kernel, %u user\n",
		       KCALLS, st.n, st.kernel, st.user);
	*ok = st.kernel > 0;
	return 0;
}

static int case_sample_kcallchain(const struct target *t, bool *ok)
{
	struct perf_event_attr attr;
	int fd;

	pmu_attr_user(&attr, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	attr.sample_period = PERIOD;
	attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN;
	fd = pmu_open(&attr, -1);
	if (fd < 0)
		return fd;
	close(fd);
	*ok = true;
	return 0;
}

static int case_sample_user_hv(const struct target *t, bool *ok)
{
	uint64_t want = pmu_expected_user(SAMPLE_ITERS) / PERIOD;
	struct perf_event_attr attr;
	struct sample_stats st;
	int ret;

	pmu_attr_user(&attr, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	attr.exclude_hv = 0;
	attr.sample_period = PERIOD;
	attr.sample_type = PERF_SAMPLE_IP;
	ret = sample_run(&attr, work_loop, &st);
	if (ret)
		return ret;
	ksft_print_msg("cycles:u (exclude_hv=0): %u samples (expected %" PRIu64
		       " +-1), %u user, %u in the loop, %u other records\n",
		       st.n, want, st.user, st.in_loop, st.other);
	*ok = pmu_absdiff(st.n, want) <= 1 && st.user == st.n && st.in_loop == st.n;
	return 0;
}

static int case_task(pid_t pid, bool *ok)
{
	struct perf_event_attr attr;
	int fd;

	pmu_attr_user(&attr, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS);
	fd = open_on(&attr, pid, -1);
	if (fd < 0)
		return fd;
	close(fd);
	*ok = true;
	return 0;
}

static int case_root_task(const struct target *t, bool *ok)
{
	return case_task(t->root_pid, ok);
}

static int case_peer_task(const struct target *t, bool *ok)
{
	return case_task(t->peer_pid, ok);
}

/* An rdpmc event of this task with its user page mapped */
static int rdpmc_open(struct perf_event_mmap_page **pc)
{
	struct perf_event_attr attr;
	void *page;
	int fd;

	pmu_attr_user(&attr, pmu.type, ARMV8_EVT_INST_RETIRED);
	attr.config1 = PMU_CFG1_RDPMC;
	fd = pmu_open(&attr, -1);
	if (fd < 0)
		return fd;
	page = mmap(NULL, sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED, fd, 0);
	if (page == MAP_FAILED) {
		ksft_perror("mmap user page");
		close(fd);
		return -EIO;
	}
	*pc = page;
	return fd;
}

static inline void spin(unsigned long n)
{
	asm volatile("1:	subs	%0, %0, #1\n\t"
		     "b.ne	1b" : "+r" (n) : : "cc");
}

static int case_rdpmc_on(const struct target *t, bool *ok)
{
	struct perf_event_mmap_page *pc;
	unsigned int cap, index;
	uint64_t user = 0;
	int64_t total;
	bool read_ok;
	int fd;

	fd = rdpmc_open(&pc);
	if (fd < 0)
		return fd == -EIO ? 0 : fd;
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	spin(ITERS);
	read_ok = pmu_user_read(pc, &user);
	cap = pc->cap_user_rdpmc;
	index = pc->index;
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	total = pmu_read_count(fd);
	ksft_print_msg("perf_user_access=1: cap_user_rdpmc %u index %u, user read %s %" PRIu64
		       ", read() %" PRId64 "\n",
		       cap, index, read_ok ? "ok" : "refused", user, total);
	*ok = read_ok && cap && index && user >= 2 * ITERS &&
	      total >= (int64_t)user && total - (int64_t)user <= READ_SLACK;
	munmap(pc, sysconf(_SC_PAGESIZE));
	close(fd);
	return 0;
}

static sigjmp_buf trap_jmp;

static void on_sigill(int sig)
{
	siglongjmp(trap_jmp, 1);
}

/* Does reading event counter 0 from EL0 trap? */
static bool counter0_traps(void)
{
	struct sigaction sa = { .sa_handler = on_sigill }, old;

	sigaction(SIGILL, &sa, &old);
	if (sigsetjmp(trap_jmp, 1)) {
		/* back from on_sigill(): the read trapped */
		sigaction(SIGILL, &old, NULL);
		return true;
	}
	pmu_user_event_counter(0);
	sigaction(SIGILL, &old, NULL);
	return false;
}

static int case_rdpmc_off(const struct target *t, bool *ok)
{
	struct perf_event_mmap_page *pc;
	unsigned int cap, index;
	uint64_t user = 0;
	int64_t total;
	bool read_ok, trapped;
	int fd;

	fd = rdpmc_open(&pc);
	if (fd < 0)
		return fd == -EIO ? 0 : fd;
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	spin(ITERS);
	read_ok = pmu_user_read(pc, &user);
	cap = pc->cap_user_rdpmc;
	index = pc->index;
	trapped = counter0_traps();
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	total = pmu_read_count(fd);
	ksft_print_msg("perf_user_access=0: cap_user_rdpmc %u index %u, user read %s, %s, read() %"
		       PRId64 "\n", cap, index, read_ok ? "ok" : "refused",
		       trapped ? "mrs trapped" : "mrs did not trap", total);
	/*
	 * index 0 tells the reader to fall back to read() whatever
	 * cap_user_rdpmc says (the user-read algorithm in perf_event.h):
	 * ours clears both, mainline keeps cap_user_rdpmc for the event.
	 */
	*ok = !read_ok && !index && trapped &&
	      total >= 2 * (int64_t)ITERS;
	munmap(pc, sysconf(_SC_PAGESIZE));
	close(fd);
	return 0;
}

struct pcase {
	const char *name;
	int (*run)(const struct target *t, bool *ok);
	int want[NLEVELS];	/* 0: opens and behaves; else -errno */
	char user_access;	/* the perf_user_access the case runs under */
};

static const struct pcase cases[] = {
	{ "own_user_count_exact", case_own_user, WANT(0, 0, 0, EACC), '1' },
	{ "own_user_hv_count_exact", case_own_user_hv, WANT(0, 0, 0, EACC), '1' },
	{ "own_kernel_count", case_own_kernel, WANT(EACC, 0, 0, EACC), '1' },
	{ "cpu_wide_count", case_cpu_wide, WANT(EACC, EACC, 0, EACC), '1' },
	{ "kernel_sampling", case_sample_kernel, WANT(EACC, 0, 0, EACC), '1' },
	{ "kernel_callchain_sampling", case_sample_kcallchain, WANT(EACC, 0, 0, EACC), '1' },
	{ "user_hv_sampling_in_loop", case_sample_user_hv, WANT(0, 0, 0, EACC), '1' },
	{ "root_task_event", case_root_task, WANT(EACC, EACC, EACC, EACC), '1' },
	{ "same_user_task_event", case_peer_task, WANT(0, 0, 0, EACC), '1' },
	{ "rdpmc_user_access_1_reads", case_rdpmc_on, WANT(0, 0, 0, EACC), '1' },
	{ "rdpmc_user_access_0_index_0", case_rdpmc_off, WANT(0, 0, 0, EACC), '0' },
};

#define NCASES	ARRAY_SIZE(cases)

struct outcome {
	bool ran, ok;
	int err;
};

/* ---- the privileged side ---- */

static char saved_paranoid[16], saved_access[16];

static void sysctls_restore(void)
{
	pmu_write_file(PARANOID, saved_paranoid);
	pmu_write_file(USER_ACCESS, saved_access);
}

/* Become nobody with no groups and, as a result, no capabilities */
static int drop_privileges(void)
{
	int fd;

	if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY))
		return -errno;
	if (getuid() != NOBODY || geteuid() != NOBODY)
		return -EPERM;
	/* A root-only file must now be out of reach */
	fd = open(PARANOID, O_WRONLY);
	if (fd >= 0) {
		close(fd);
		return -EPERM;
	}
	/* Credentials changed: ptrace (and perf) of our children needs this */
	prctl(PR_SET_DUMPABLE, 1);
	return 0;
}

static void sleeper(void)
{
	for (;;)
		pause();
}

/* Run, as nobody, the cases of perf_user_access ua; fill out[] */
static void run_unprivileged(pid_t root_pid, char ua, struct outcome *out)
{
	struct target t = { .root_pid = root_pid };
	int status, err;
	unsigned int i;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		ksft_exit_fail_perror("fork");
	if (pid == 0) {
		err = drop_privileges();
		if (err) {
			ksft_print_msg("cannot become nobody: %s\n", strerror(-err));
			fflush(stdout);
			_exit(1);
		}
		t.peer_pid = fork();
		if (t.peer_pid == 0)
			sleeper();
		for (i = 0; i < NCASES; i++) {
			if (cases[i].user_access != ua)
				continue;
			out[i].err = cases[i].run(&t, &out[i].ok);
			out[i].ran = true;
		}
		if (t.peer_pid > 0) {
			kill(t.peer_pid, SIGKILL);
			waitpid(t.peer_pid, NULL, 0);
		}
		fflush(stdout);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		ksft_print_msg("unprivileged child ended with status 0x%x\n", status);
}

static const char *errname(int err)
{
	switch (err) {
	case 0:
		return "allowed";
	case -EACCES:
		return "eacces";
	case -EPERM:
		return "eperm";
	case -EINVAL:
		return "einval";
	default:
		return "error";
	}
}

static void report(int level, const struct outcome *out)
{
	int li;
	unsigned int i;
	char name[128];

	for (li = 0; li < NLEVELS && levels[li] != level; li++)
		;
	for (i = 0; i < NCASES; i++) {
		int want = cases[i].want[li];
		bool pass = out[i].ran && out[i].err == want && (want || out[i].ok);

		snprintf(name, sizeof(name), "paranoid_%d_%s_%s", level, cases[i].name,
			 errname(want));
		if (!out[i].ran)
			ksft_print_msg("%s: did not run\n", name);
		else if (out[i].err != want)
			ksft_print_msg("%s: open gave %s\n", name,
				       out[i].err ? strerror(-out[i].err) : "success");
		else if (!want && !out[i].ok)
			ksft_print_msg("%s: opened, but the result is wrong (see above)\n", name);
		pmu_result(pass, name);
	}
}

int main(void)
{
	struct outcome *out;
	pid_t root_pid;
	int li;

	ksft_print_header();
	pmu_find_or_skip(&pmu);
	if (geteuid() != 0)
		ksft_exit_skip("needs root to set the sysctls and become nobody\n");
	if (pmu_read_sysfs(PARANOID, saved_paranoid, sizeof(saved_paranoid)) ||
	    pmu_read_sysfs(USER_ACCESS, saved_access, sizeof(saved_access)))
		ksft_exit_fail_msg("cannot read " PARANOID " or " USER_ACCESS "\n");
	saved_paranoid[strcspn(saved_paranoid, "\n")] = '\0';
	saved_access[strcspn(saved_access, "\n")] = '\0';
	ksft_print_msg("perf_event_paranoid %s, perf_user_access %s\n",
		       saved_paranoid, saved_access);
	atexit(sysctls_restore);

	out = mmap(NULL, sizeof(*out) * NCASES, PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (out == MAP_FAILED)
		ksft_exit_fail_perror("mmap");
	ksft_set_plan(NLEVELS * NCASES);

	fflush(stdout);
	root_pid = fork();
	if (root_pid < 0)
		ksft_exit_fail_perror("fork");
	if (root_pid == 0)
		sleeper();

	for (li = 0; li < NLEVELS; li++) {
		char val[8];

		snprintf(val, sizeof(val), "%d", levels[li]);
		if (pmu_write_file(PARANOID, val))
			ksft_exit_fail_msg("cannot write %s to " PARANOID "\n", val);
		ksft_print_msg("perf_event_paranoid = %s\n", val);
		memset(out, 0, sizeof(*out) * NCASES);
		if (pmu_write_file(USER_ACCESS, "1"))
			ksft_exit_fail_msg("cannot write " USER_ACCESS "\n");
		run_unprivileged(root_pid, '1', out);
		pmu_write_file(USER_ACCESS, "0");
		run_unprivileged(root_pid, '0', out);
		report(levels[li], out);
	}

	kill(root_pid, SIGKILL);
	waitpid(root_pid, NULL, 0);
	ksft_finished();
}
