// SPDX-License-Identifier: GPL-2.0
/*
 * spe - the SPE driver's hot paths, in guest instructions (-icount shift=0),
 * the same program on the base kernel and on ours:
 *
 *   spe-irq          a user loop of LOOP_ITERS subs/b.ne pairs sampled by
 *                    arm_spe_0//u at the model's minimum interval (256)
 *                    into a 64 KiB AUX buffer that this process drains
 *                    after every chunk, as perf record would: the time it
 *                    takes, minus the same loop and draining with no
 *                    event, per buffer management interrupt. Under TCG
 *                    the model writes records without guest instructions,
 *                    so what is left is the interrupt: the driver's
 *                    handler, perf core's AUX bookkeeping and the
 *                    PERF_RECORD_AUX it writes, the restart.
 *   spe-irq-per-mib  those interrupts per MiB of trace (AUX bytes): how
 *                    far the driver lets the hardware fill the buffer
 *                    before it interrupts.
 *   spe-snap-irq     the same loop into a 1 MiB snapshot (overwrite)
 *                    buffer, never drained, per interrupt: what a driver
 *                    that clears or pads the buffer as it wraps does with
 *                    interrupts off.
 *   ctxsw-spe        a pipe ping-pong between two processes, each with an
 *                    SPE event sampling its user time and an AUX buffer
 *                    mapped, against the same ping-pong with no event:
 *                    the cost of stopping and starting SPE at a switch.
 *
 * Each is the median of REPS runs. Without an arm_spe_N PMU (no FEAT_SPE,
 * or a kernel without the driver) every path prints n/a.
 */
#include "bench.h"
#include <stdbool.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>

#define SPE_PERIOD	256
#define AUX_PAGES	16		/* 64 KiB */
#define SNAP_PAGES	256		/* 1 MiB with 4 KiB pages */
#define CHUNKS		100
#define CHUNK_ITERS	100000UL	/* 200,000 instructions, 781 samples */
#define PINGPONG	2000

struct spe_event {
	int fd;
	struct perf_event_mmap_page *pc;
	size_t ring_len;
	void *aux;
	size_t aux_len;
};

/*
 * An enabled arm_spe_N//u event on this task, its ring and AUX mapped;
 * a read-only AUX mapping asks for snapshot (overwrite) mode.
 */
static void spe_open_aux(uint32_t type, uint64_t period, long pages, bool snapshot,
			 struct spe_event *e)
{
	struct perf_event_attr attr = {
		.type = type,
		.sample_period = period,
		.exclude_kernel = 1,
		.exclude_hv = 1,
		.disabled = 1,
	};
	long page = sysconf(_SC_PAGESIZE);

	e->fd = perf_open(&attr, -1);
	e->ring_len = 2 * page;
	e->pc = mmap(NULL, e->ring_len, PROT_READ | PROT_WRITE, MAP_SHARED, e->fd, 0);
	if (e->pc == MAP_FAILED)
		die("mmap ring");
	e->aux_len = pages * page;
	e->pc->aux_offset = e->ring_len;
	e->pc->aux_size = e->aux_len;
	e->aux = mmap(NULL, e->aux_len, PROT_READ | (snapshot ? 0 : PROT_WRITE), MAP_SHARED,
		      e->fd, e->ring_len);
	if (e->aux == MAP_FAILED)
		die("mmap aux");
	if (ioctl(e->fd, PERF_EVENT_IOC_ENABLE, 0))
		die("enable");
}

static void spe_open(uint32_t type, uint64_t period, struct spe_event *e)
{
	spe_open_aux(type, period, AUX_PAGES, false, e);
}

static void spe_close(struct spe_event *e)
{
	ioctl(e->fd, PERF_EVENT_IOC_DISABLE, 0);
	munmap(e->aux, e->aux_len);
	munmap(e->pc, e->ring_len);
	close(e->fd);
}

/* What perf record does with a user page: everything read, hand it back */
static void drain(struct perf_event_mmap_page *pc)
{
	__atomic_store_n(&pc->aux_tail, __atomic_load_n(&pc->aux_head, __ATOMIC_ACQUIRE),
			 __ATOMIC_RELEASE);
	__atomic_store_n(&pc->data_tail, __atomic_load_n(&pc->data_head, __ATOMIC_ACQUIRE),
			 __ATOMIC_RELEASE);
}

/* The SPE interrupts taken so far (the line of /proc/interrupts) */
static uint64_t spe_irqs(void)
{
	char line[512], *p, *end;
	uint64_t n = 0;
	FILE *f = fopen("/proc/interrupts", "r");

	if (!f)
		die("/proc/interrupts");
	while (fgets(line, sizeof(line), f)) {
		if (!strstr(line, "arm_spe"))
			continue;
		p = strchr(line, ':');
		for (p = p ? p + 1 : line; ; p = end) {
			uint64_t v = strtoull(p, &end, 10);

			if (end == p)
				break;
			n += v;
		}
	}
	fclose(f);
	return n;
}

/*
 * The sampled loop: ns, and with an event its interrupts and AUX bytes.
 * Without one the same draining runs on a page of our own.
 */
static uint64_t sampled_loop(uint32_t type, uint64_t *irqs, uint64_t *bytes)
{
	static struct perf_event_mmap_page idle;
	struct perf_event_mmap_page *pc = &idle;
	struct spe_event e;
	uint64_t t0, t1, i0;
	int c;

	if (type) {
		spe_open(type, SPE_PERIOD, &e);
		pc = e.pc;
	}
	i0 = spe_irqs();
	t0 = now_ns();
	mark_begin();
	for (c = 0; c < CHUNKS; c++) {
		busy_loop(CHUNK_ITERS);
		drain(pc);
	}
	mark_end();
	t1 = now_ns();
	*irqs = spe_irqs() - i0;
	*bytes = __atomic_load_n(&pc->aux_head, __ATOMIC_ACQUIRE);
	if (type)
		spe_close(&e);
	return t1 - t0;
}

static void bench_irq(uint32_t type)
{
	double per_irq[REPS], per_mib[REPS];
	uint64_t irqs = 0, bytes = 0, none_irqs, none_bytes, with, none;
	char extra[96];
	int r;

	for (r = 0; r < REPS; r++) {
		/* The plugin's counts of both windows, per interrupt of this one */
		with = sampled_loop(type, &irqs, &bytes);
		mark_emit("spe-irq.raw", irqs);
		none = sampled_loop(0, &none_irqs, &none_bytes);
		mark_emit("spe-irq.base", irqs);
		if (!irqs || !bytes) {
			printf("bench: spe-irq n/a no SPE interrupt or no trace\n");
			printf("bench: spe-irq-per-mib n/a no SPE interrupt or no trace\n");
			return;
		}
		per_irq[r] = ((double)with - (double)none) / irqs;
		per_mib[r] = irqs / (bytes / 1048576.0);
	}
	snprintf(extra, sizeof(extra), "irqs=%lu bytes=%lu", (unsigned long)irqs,
		 (unsigned long)bytes);
	report("spe-irq", median(per_irq, REPS), 0, irqs, extra);
	report("spe-irq-per-mib", median(per_mib, REPS), 0, irqs, extra);
}

/* The loop alone, or sampled into a snapshot buffer: ns, and interrupts */
static uint64_t snapshot_loop(uint32_t type, uint64_t *irqs)
{
	struct spe_event e;
	uint64_t t0, t1, i0;
	int c;

	if (type)
		spe_open_aux(type, SPE_PERIOD, SNAP_PAGES, true, &e);
	i0 = spe_irqs();
	t0 = now_ns();
	mark_begin();
	for (c = 0; c < CHUNKS; c++)
		busy_loop(CHUNK_ITERS);
	mark_end();
	t1 = now_ns();
	*irqs = spe_irqs() - i0;
	if (type)
		spe_close(&e);
	return t1 - t0;
}

static void bench_snapshot_irq(uint32_t type)
{
	double per_irq[REPS];
	uint64_t irqs = 0, none_irqs, with, none;
	char extra[64];
	int r;

	for (r = 0; r < REPS; r++) {
		with = snapshot_loop(type, &irqs);
		mark_emit("spe-snap-irq.raw", irqs);
		none = snapshot_loop(0, &none_irqs);
		mark_emit("spe-snap-irq.base", irqs);
		if (!irqs) {
			printf("bench: spe-snap-irq n/a no SPE interrupt\n");
			return;
		}
		per_irq[r] = ((double)with - (double)none) / irqs;
	}
	snprintf(extra, sizeof(extra), "irqs=%lu", (unsigned long)irqs);
	report("spe-snap-irq", median(per_irq, REPS), 0, irqs, extra);
}

static long switches(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_nvcsw + ru.ru_nivcsw;
}

static void xfer(int fd, int out)
{
	char c = 0;

	if ((out ? write(fd, &c, 1) : read(fd, &c, 1)) != 1)
		die("pipe");
}

/* One ping-pong; ns per switch, each side with an SPE event if type */
static double pingpong(uint32_t type)
{
	int to_child[2], to_parent[2], status, i;
	long sw_parent, sw_child;
	struct spe_event e;
	uint64_t t0, t1;
	pid_t pid;

	if (pipe(to_child) || pipe(to_parent))
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		if (type)
			spe_open(type, 65536, &e);
		xfer(to_parent[1], 1);
		sw_child = switches();
		for (i = 0; i < PINGPONG; i++) {
			xfer(to_child[0], 0);
			xfer(to_parent[1], 1);
		}
		sw_child = switches() - sw_child;
		if (write(to_parent[1], &sw_child, sizeof(sw_child)) != sizeof(sw_child))
			die("write");
		_exit(0);
	}
	if (type)
		spe_open(type, 65536, &e);
	xfer(to_parent[0], 0);
	sw_parent = switches();
	t0 = now_ns();
	mark_begin();
	for (i = 0; i < PINGPONG; i++) {
		xfer(to_child[1], 1);
		xfer(to_parent[0], 0);
	}
	mark_end();
	t1 = now_ns();
	sw_parent = switches() - sw_parent;
	if (read(to_parent[0], &sw_child, sizeof(sw_child)) != sizeof(sw_child))
		die("read");
	waitpid(pid, &status, 0);
	if (type)
		spe_close(&e);
	close(to_child[0]);
	close(to_child[1]);
	close(to_parent[0]);
	close(to_parent[1]);
	mark_emit(type ? "ctxsw-spe" : "ctxsw-spe.base", sw_parent + sw_child);
	return (double)(t1 - t0) / (sw_parent + sw_child);
}

static void bench_ctxsw(uint32_t type)
{
	double none[REPS], one[REPS];
	int r;

	for (r = 0; r < REPS; r++) {
		none[r] = pingpong(0);
		one[r] = pingpong(type);
	}
	report("ctxsw-spe", median(one, REPS), median(none, REPS), 2 * PINGPONG, NULL);
}

int main(void)
{
	struct sched_param sp = { .sched_priority = 10 };
	uint32_t type = pmu_type_named("arm_spe_");

	if (!type) {
		printf("bench: spe-irq n/a no arm_spe_N PMU\n");
		printf("bench: spe-irq-per-mib n/a no arm_spe_N PMU\n");
		printf("bench: spe-snap-irq n/a no arm_spe_N PMU\n");
		printf("bench: ctxsw-spe n/a no arm_spe_N PMU\n");
		return 0;
	}
	pin_cpu0();
	/* as ctxsw: FIFO, so the two sides alternate and nothing else runs */
	sched_setscheduler(0, SCHED_FIFO, &sp);
	bench_irq(type);
	bench_snapshot_irq(type);
	bench_ctxsw(type);
	return 0;
}
