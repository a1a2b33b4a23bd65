// SPDX-License-Identifier: GPL-2.0
/*
 * Context-switch overhead of per-task events: two tasks on CPU 0
 * ping-pong one byte over two pipes, ROUNDS round trips, 2 switches each.
 * Each task opens its own N counting events of the PMU (N = 1 and 6; not
 * inherited, so every switch schedules the outgoing task's N events out
 * and the incoming task's N events in: no context-swap shortcut). The cost
 * per context switch with N events minus the same ping-pong without events
 * is reported as ctxsw-N.
 *
 * ctxsw-brbe: each task has one branch-stack event instead (cycles:u
 * sampling with -j any,u, at a period the ping-pong never reaches, not
 * inherited as above; `perf record -j any,u` inherits): the switch also
 * programs the branch buffer for the incoming task's filters and drops
 * the outgoing task's records. n/a on a kernel that refuses branch stacks (the base 6.12).
 *
 * Both tasks run SCHED_FIFO at one priority, so a wakeup never preempts:
 * exactly one switch per blocking read, and no other task gets in. The
 * switches are counted (getrusage of both tasks) rather than assumed.
 */
#include "bench.h"
#include <sys/resource.h>
#include <sys/wait.h>

#define ROUNDS	5000

/* cycles, instructions, and the two again for :u and for :k */
static const struct { uint64_t config; int xu, xk; } evts[] = {
	{ EVT_CPU_CYCLES, 0, 0 }, { EVT_INST_RETIRED, 0, 0 },
	{ EVT_CPU_CYCLES, 0, 1 }, { EVT_INST_RETIRED, 0, 1 },
	{ EVT_CPU_CYCLES, 1, 0 }, { EVT_INST_RETIRED, 1, 0 },
};

static long switches(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_nvcsw + ru.ru_nivcsw;
}

/* n < 0: the one branch-stack event of ctxsw-brbe */
#define BRANCH_EVENT	-1

static int open_branch_event(void)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = pmu_type(),
		.config = EVT_CPU_CYCLES,
		.exclude_kernel = 1,
		.exclude_hv = 1,
		.sample_period = 1ULL << 62,
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_BRANCH_STACK,
		.branch_sample_type = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER,
	};

	return syscall(__NR_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

static void open_events(int n)
{
	int i;

	if (n == BRANCH_EVENT && open_branch_event() < 0)
		die("perf_event_open (branch stack)");
	for (i = 0; i < n; i++)
		open_hw(evts[i].config, evts[i].xu, evts[i].xk);
}

static void xfer(int fd, int out)
{
	char c = 0;

	if ((out ? write(fd, &c, 1) : read(fd, &c, 1)) != 1)
		die("pipe");
}

/* One ping-pong of ROUNDS round trips; returns ns, *nsw = switches. */
static uint64_t pingpong(int nevents, long *nsw)
{
	int to_child[2], to_parent[2], status, i;
	long sw_parent, sw_child;
	uint64_t t0, t1;
	char label[16];
	pid_t pid;

	if (pipe(to_child) || pipe(to_parent))
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		open_events(nevents);
		xfer(to_parent[1], 1);		/* ready */
		sw_child = switches();
		for (i = 0; i < ROUNDS; i++) {
			xfer(to_child[0], 0);
			xfer(to_parent[1], 1);
		}
		sw_child = switches() - sw_child;
		if (write(to_parent[1], &sw_child, sizeof(sw_child)) != sizeof(sw_child))
			die("write");
		_exit(0);
	}
	open_events(nevents);
	xfer(to_parent[0], 0);
	sw_parent = switches();
	t0 = now_ns();
	mark_begin();
	for (i = 0; i < ROUNDS; i++) {
		xfer(to_child[1], 1);
		xfer(to_parent[0], 0);
	}
	mark_end();
	t1 = now_ns();
	sw_parent = switches() - sw_parent;
	if (read(to_parent[0], &sw_child, sizeof(sw_child)) != sizeof(sw_child))
		die("read");
	waitpid(pid, &status, 0);
	close(to_child[0]); close(to_child[1]);
	close(to_parent[0]); close(to_parent[1]);
	*nsw = sw_parent + sw_child;
	if (nevents == BRANCH_EVENT)
		snprintf(label, sizeof(label), "ctxsw-brbe");
	else
		snprintf(label, sizeof(label), "ctxsw-%d", nevents);
	mark_emit(label, *nsw);
	return t1 - t0;
}

/* Median ns per switch over REPS runs; events live in a child process so
 * that each run starts with none. */
static double per_switch(int nevents, long *nsw)
{
	double v[REPS];
	int fd[2], r, status;
	pid_t pid;

	for (r = 0; r < REPS; r++) {
		if (pipe(fd))
			die("pipe");
		pid = fork();
		if (pid < 0)
			die("fork");
		if (pid == 0) {
			long n;
			uint64_t ns = pingpong(nevents, &n);
			double per = (double)ns / n;

			if (write(fd[1], &per, sizeof(per)) != sizeof(per) ||
			    write(fd[1], &n, sizeof(n)) != sizeof(n))
				die("write");
			_exit(0);
		}
		if (read(fd[0], &v[r], sizeof(v[r])) != sizeof(v[r]) ||
		    read(fd[0], nsw, sizeof(*nsw)) != sizeof(*nsw))
			die("read");
		waitpid(pid, &status, 0);
		close(fd[0]);
		close(fd[1]);
	}
	return median(v, REPS);
}

int main(void)
{
	struct sched_param sp = { .sched_priority = 10 };
	const char *policy = "fifo";
	double none, one, six, branch;
	long s0, s1, s6, sb;
	char extra[96];
	int fd;

	pin_cpu0();
	if (sched_setscheduler(0, SCHED_FIFO, &sp))
		policy = "other";
	per_switch(0, &s0);		/* warm up */
	none = per_switch(0, &s0);
	one = per_switch(1, &s1);
	six = per_switch(6, &s6);
	snprintf(extra, sizeof(extra), "switches=%ld sched=%s", s1, policy);
	report("ctxsw-1", one, none, s1, extra);
	snprintf(extra, sizeof(extra), "switches=%ld sched=%s", s6, policy);
	report("ctxsw-6", six, none, s6, extra);
	printf("bench: ctxsw-0 %.1f switches=%ld sched=%s\n", none, s0, policy);
	fd = open_branch_event();
	if (fd < 0) {
		printf("bench: ctxsw-brbe n/a branch stack sampling refused (%s)\n",
		       strerror(errno));
		return 0;
	}
	close(fd);
	branch = per_switch(BRANCH_EVENT, &sb);
	snprintf(extra, sizeof(extra), "switches=%ld sched=%s", sb, policy);
	report("ctxsw-brbe", branch, none, sb, extra);
	return 0;
}
