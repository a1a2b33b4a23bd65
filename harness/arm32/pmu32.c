// SPDX-License-Identifier: GPL-2.0
/*
 * Counting and sampling of known loops through perf_event_open() on a
 * 32-bit Arm kernel (the perf tool is not built for armhf). TAP output.
 *
 *   [PMU32_CYCLES=1] [PMU32_BRANCHES=1] pmu32 LOOP [LONG_LOOP]
 *
 * LOOP retires exactly 2 + 2 * 10000000 + 3 user instructions, all in the
 * seven instructions from its ELF entry (harness/arm32/loop.S); LONG_LOOP
 * 2^32 + 7. Under QEMU's -icount shift=0 a cycle is an instruction.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define LOOP_INSNS	20000005ULL
#define LONG_INSNS	((1ULL << 32) + 7)
#define PERIOD		1000000
#define RING_PAGES	8

/*
 * The cycle counter: a 32-bit kernel reads and writes PMCCNTR whole, with
 * MRRC/MCRR (p15, 0, c9), which QEMU does not implement (10.0: only the
 * 32-bit MRC/MCR view): the access is undefined and the kernel oopses.
 * PMU32_CYCLES=1 runs the cycles tests on a model that has it.
 */
#define NO_CYCLES	"QEMU lacks the AArch32 64-bit PMCCNTR access (MRRC/MCRR p15, 0, c9)"
/* Our QEMU's BR_RETIRED (harness/qemu patch 0008) counts A64 branches only */
#define NO_BRANCHES	"our QEMU counts BR_RETIRED for A64 branches only, not A32"

static int tap_n, tap_failed;

static void tap(int ok, const char *name)
{
	tap_n++;
	if (!ok)
		tap_failed = 1;
	printf("%sok %d %s\n", ok ? "" : "not ", tap_n, name);
}

static void tap_skip(const char *name, const char *why)
{
	printf("ok %d %s # SKIP %s\n", ++tap_n, name, why);
}

static void tap_eq(const char *name, uint64_t got, uint64_t want)
{
	if (got != want)
		printf("# %s: got %llu, want %llu\n", name,
		       (unsigned long long)got, (unsigned long long)want);
	tap(got == want, name);
}

static void tap_within(const char *name, uint64_t got, uint64_t lo, uint64_t hi)
{
	if (got < lo || got > hi)
		printf("# %s: got %llu, want %llu..%llu\n", name,
		       (unsigned long long)got, (unsigned long long)lo,
		       (unsigned long long)hi);
	tap(got >= lo && got <= hi, name);
}

static int perf_open(struct perf_event_attr *attr, pid_t pid, int group)
{
	return syscall(__NR_perf_event_open, attr, pid, -1, group, 0);
}

/* A child stopped before exec: its events are opened, then it runs PROG. */
static pid_t child_start(const char *prog, int *go)
{
	int p[2];
	pid_t pid;
	char c;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(p[1]);
		if (read(p[0], &c, 1) != 1)
			_exit(127);
		execl(prog, prog, (char *)NULL);
		_exit(127);
	}
	close(p[0]);
	*go = p[1];
	return pid;
}

static int child_finish(pid_t pid, int go)
{
	int status;

	if (write(go, "x", 1) != 1)
		return -1;
	close(go);
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void attr_init(struct perf_event_attr *a, uint32_t type, uint64_t config,
		      int user_only, int kernel_only)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = type;
	a->config = config;
	a->exclude_kernel = user_only;
	a->exclude_user = kernel_only;
	a->exclude_hv = 1;
	a->disabled = 1;
	a->enable_on_exec = 1;
}

static uint64_t read_count(int fd)
{
	uint64_t v = 0;

	if (fd < 0 || read(fd, &v, sizeof(v)) != sizeof(v))
		return ~0ULL;
	return v;
}

/* count: one event over one run of PROG; ~0 if it could not be counted */
static uint64_t count(const char *prog, uint32_t type, uint64_t config,
		      int user_only, int kernel_only)
{
	struct perf_event_attr a;
	uint64_t v;
	int go, fd;
	pid_t pid;

	pid = child_start(prog, &go);
	if (pid < 0)
		return ~0ULL;
	attr_init(&a, type, config, user_only, kernel_only);
	fd = perf_open(&a, pid, -1);
	if (fd < 0)
		printf("# perf_event_open type %u config %#llx: %s\n", type,
		       (unsigned long long)config, strerror(errno));
	if (child_finish(pid, go))
		printf("# %s did not exit cleanly\n", prog);
	v = read_count(fd);
	if (fd >= 0)
		close(fd);
	return v;
}

/* The entry of a static ELF32 program: where the loop's code starts */
static uint32_t elf_entry(const char *prog)
{
	Elf32_Ehdr eh;
	int fd = open(prog, O_RDONLY);

	if (fd < 0 || read(fd, &eh, sizeof(eh)) != sizeof(eh))
		eh.e_entry = 0;
	if (fd >= 0)
		close(fd);
	return eh.e_entry;
}

/*
 * sample: record EVENT every PERIOD user events over one run of PROG;
 * *in_loop gets how many samples hit the loop's seven instructions.
 */
static uint64_t sample(const char *prog, uint64_t config, uint64_t *in_loop)
{
	long page = sysconf(_SC_PAGESIZE);
	struct perf_event_mmap_page *meta;
	uint32_t entry = elf_entry(prog);
	struct perf_event_attr a;
	uint64_t n = 0, pos;
	unsigned char *data;
	void *ring;
	int go, fd;
	pid_t pid;

	*in_loop = 0;
	pid = child_start(prog, &go);
	if (pid < 0)
		return 0;
	attr_init(&a, PERF_TYPE_HARDWARE, config, 1, 0);
	a.sample_period = PERIOD;
	a.sample_type = PERF_SAMPLE_IP;
	fd = perf_open(&a, pid, -1);
	if (fd < 0) {
		printf("# perf_event_open sampling: %s\n", strerror(errno));
		child_finish(pid, go);
		return 0;
	}
	ring = mmap(NULL, (RING_PAGES + 1) * page, PROT_READ | PROT_WRITE,
		    MAP_SHARED, fd, 0);
	if (ring == MAP_FAILED) {
		printf("# mmap: %s\n", strerror(errno));
		child_finish(pid, go);
		close(fd);
		return 0;
	}
	child_finish(pid, go);
	meta = ring;
	data = (unsigned char *)ring + page;
	__sync_synchronize();
	for (pos = meta->data_tail; pos < meta->data_head;) {
		struct perf_event_header h;
		uint64_t ip;
		size_t off = pos % (RING_PAGES * page);

		/* records are 8-byte aligned and the ring a power of two: whole */
		memcpy(&h, data + off, sizeof(h));
		if (!h.size)
			break;
		if (h.type == PERF_RECORD_SAMPLE) {
			memcpy(&ip, data + off + sizeof(h), sizeof(ip));
			n++;
			if (ip >= entry && ip < entry + 7 * 4)
				(*in_loop)++;
			else
				printf("# sample outside the loop: %#llx\n",
				       (unsigned long long)ip);
		}
		pos += h.size;
	}
	munmap(ring, (RING_PAGES + 1) * page);
	close(fd);
	return n;
}

/* user + kernel = all, from one group started and stopped together */
static void user_plus_kernel(const char *prog)
{
	struct perf_event_attr a;
	int go, fd[3], i;
	uint64_t v[3];
	pid_t pid;

	pid = child_start(prog, &go);
	if (pid < 0)
		return;
	attr_init(&a, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 0, 0);
	fd[0] = perf_open(&a, pid, -1);
	a.disabled = 0;
	a.enable_on_exec = 0;
	a.exclude_kernel = 1;
	fd[1] = perf_open(&a, pid, fd[0]);
	a.exclude_kernel = 0;
	a.exclude_user = 1;
	fd[2] = perf_open(&a, pid, fd[0]);
	child_finish(pid, go);
	for (i = 0; i < 3; i++) {
		v[i] = read_count(fd[i]);
		if (fd[i] >= 0)
			close(fd[i]);
	}
	tap_eq("group_instructions_u_exact", v[1], LOOP_INSNS);
	tap_eq("group_user_plus_kernel_equals_all", v[1] + v[2], v[0]);
	tap_within("group_kernel_part_is_small_and_nonzero", v[2], 1, 5000000);
}

int main(int argc, char **argv)
{
	uint64_t ins, cyc, n, in_loop;
	const char *loop;
	int cycles, branches;

	if (argc < 2) {
		fprintf(stderr, "usage: %s LOOP [LONG_LOOP]\n", argv[0]);
		return 2;
	}
	loop = argv[1];
	cycles = getenv("PMU32_CYCLES") && !strcmp(getenv("PMU32_CYCLES"), "1");
	branches = getenv("PMU32_BRANCHES") && !strcmp(getenv("PMU32_BRANCHES"), "1");
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("TAP version 13\n");

	ins = count(loop, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 1, 0);
	tap_eq("instructions_u_exact", ins, LOOP_INSNS);
	/* INST_RETIRED, event 0x08, by number */
	tap_eq("raw_inst_retired_u_exact", count(loop, PERF_TYPE_RAW, 0x08, 1, 0),
	       LOOP_INSNS);
	if (cycles) {
		cyc = count(loop, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 1, 0);
		tap_within("cycles_u_tracks_instructions_u", cyc, LOOP_INSNS - 100,
			   LOOP_INSNS + 100);
	} else {
		tap_skip("cycles_u_tracks_instructions_u", NO_CYCLES);
	}
	/* BR_RETIRED, event 0x21: one bne per iteration, where modelled */
	if (branches)
		tap_eq("raw_br_retired_u_exact",
		       count(loop, PERF_TYPE_RAW, 0x21, 1, 0), 10000000);
	else
		tap_skip("raw_br_retired_u_exact", NO_BRANCHES);
	user_plus_kernel(loop);

	n = sample(loop, PERF_COUNT_HW_INSTRUCTIONS, &in_loop);
	tap_within("sample_instructions_u_count", n, LOOP_INSNS / PERIOD - 1,
		   LOOP_INSNS / PERIOD + 1);
	tap_eq("sample_instructions_u_all_in_loop", in_loop, n);
	if (cycles) {
		n = sample(loop, PERF_COUNT_HW_CPU_CYCLES, &in_loop);
		tap_within("sample_cycles_u_count", n, LOOP_INSNS / PERIOD - 1,
			   LOOP_INSNS / PERIOD + 1);
		tap_eq("sample_cycles_u_all_in_loop", in_loop, n);
	} else {
		tap_skip("sample_cycles_u_count", NO_CYCLES);
		tap_skip("sample_cycles_u_all_in_loop", NO_CYCLES);
	}

	/* Past 2^32: the count carries beyond one 32-bit counter */
	if (argc > 2)
		tap_eq("long_loop_instructions_u_exact_past_2_32",
		       count(argv[2], PERF_TYPE_HARDWARE,
			     PERF_COUNT_HW_INSTRUCTIONS, 1, 0), LONG_INSNS);
	printf("1..%d\n", tap_n);
	return tap_failed;
}
