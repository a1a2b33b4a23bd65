// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_pmu - a bounded, seeded fuzzer of perf_event_open() and of what can
 * be done with the events it returns, aimed at the arm64 PMUv3 driver.
 *
 *   fuzz_pmu [-s SEED] [-n ITERATIONS] [-i ITERATION] [-t SECONDS] [-v]
 *
 * Each iteration draws its random numbers from its own generator, seeded
 * from (SEED, iteration) only, and starts and ends with no event open: an
 * iteration can be replayed alone with -s SEED -i ITERATION (-v prints
 * every system call and its result). Choices never depend on what a
 * system call returned: an operation on a slot whose open failed is made
 * on fd -1 (and must fail with EBADF), so the sequence is the same on any
 * kernel.
 *
 * An iteration opens a few events with random attributes (our PMU's
 * dynamic type, HARDWARE, HW_CACHE, RAW and SOFTWARE; groups with leaders
 * of any of them), then runs random ioctl/read/mmap/munmap/close/fcntl/poll
 * operations with short busy loops in between, forks children that do the
 * same on the inherited events (some exec this program again, for
 * enable_on_exec and remove_on_exec), attaches events to a spinning victim
 * process, moves between CPUs, and, as root, flips
 * kernel.perf_user_access between iterations.
 *
 * The fuzzing runs in a worker process under a supervisor that bounds its
 * run time: a system call that never returns is reported with the
 * iteration and the last operation started, then the worker's process
 * group is killed. Children are bounded by alarm() and by the worker's
 * wait. The program cannot see kernel warnings: the plan that runs it
 * scans the kernel log afterwards.
 *
 * What is checked (KTAP, one line each):
 *   - every perf_event_open() returns an fd or -1 with an errno from the
 *     set the perf ABI documents for it;
 *   - so do ioctl(), read(), mmap(), close(), fcntl() on the events;
 *   - read() returns exactly the size read_format implies, running time
 *     never exceeds enabled time, and the id matches PERF_EVENT_IOC_ID;
 *   - ring buffers hold 8-byte-aligned records that end at data_head;
 *   - the user page of our PMU's events names a counter only when it
 *     grants reading it, with a width of 32 or 64 bits;
 *   - every child exits by itself within its bound;
 *   - events were really opened on our PMU, read and mapped (a run that
 *     only collects refusals proves nothing);
 *   - on a PMU with branch stacks (BRBE), branch-stack events were opened
 *     on it: sane draws carry a branch_sample_type perf could ask for;
 *   - on a CPU with SPE, events of the arm_spe_N PMU were opened and their
 *     AUX buffers mapped: sane draws set the fields its format/ folder
 *     names, in range, with the periods perf record -c would ask for;
 *     wild ones set bits no format names and odd periods;
 *   - the worker finishes within its bound, not killed by a signal.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#include "pmu_lib.h"
#include "pmu_user_read.h"

#define DEFAULT_SEED		1
#define DEFAULT_ITERATIONS	5000
#define DEFAULT_TIMEOUT		600	/* seconds for the whole run */
#define CHILD_TIMEOUT		30	/* seconds a child may live */
#define NSLOT			12	/* events open at once, per process */
#define MAX_OPS			32	/* operations per iteration */
#define MAX_CHILD_OPS		12
#define MAX_CHILDREN		4	/* forked per iteration */
#define MAX_TARGETS		8	/* dynamic PMU types fuzzed */
#define MAX_ERRNO		160
#define MAX_REPORTS		20	/* failures printed in full */
#define READ_BUF		4096
#define EXEC_ARG		"--fuzz-exec-child"

/*
 * The attr the kernel of this tree knows is PERF_ATTR_SIZE_VER8 (136
 * bytes, config3 last); the libc headers may be older, so the attr lives
 * in a larger buffer and config3 is written at its ABI offset.
 */
#define ATTR_SIZE_VER8		136
#define ATTR_CONFIG3_OFF	128
#define ATTR_FLAGS_OFF		40	/* the u64 of bit fields after read_format */

union attr_buf {
	struct perf_event_attr attr;
	uint8_t raw[256];
};

_Static_assert(offsetof(struct perf_event_attr, read_format) + 8 == ATTR_FLAGS_OFF,
	       "perf_event_attr bit fields are not where the ABI has them");
_Static_assert(sizeof(struct perf_event_attr) <= ATTR_CONFIG3_OFF,
	       "libc's perf_event_attr is newer than expected");

/* ---- Counters shared by the supervisor, the worker and its children ---- */

enum op_class { C_OPEN, C_IOCTL, C_READ, C_MMAP, C_OTHER, C_NR };
static const char *const class_name[C_NR] = {
	"open", "ioctl", "read", "mmap", "close/fcntl/munmap",
};

struct stats {
	uint64_t calls[C_NR];
	uint64_t errno_hist[C_NR][MAX_ERRNO + 1];	/* [0]: success */
	uint64_t open_ours;		/* opens that landed on our PMU */
	uint64_t open_branch;		/* ... of them with a branch stack */
	uint64_t open_spe;		/* opens of the SPE PMU */
	uint64_t aux_mmap_ok;		/* AUX areas mapped (of any PMU) */
	uint64_t aux_snapshot_ok;	/* ... of them read-only: snapshot mode */
	uint64_t read_ok, mmap_ok, ioctl_ok;
	uint64_t forks, execs, children_ok, victims, migrations, sysctl_writes;
	uint64_t user_reads, user_read_ok, user_read_traps, user_pages;
	uint64_t ring_walks, ring_records;
	uint64_t sigio, sigtrap, busy_loops;
	/* failures, by KTAP line */
	uint64_t bad_open, bad_errno, bad_child, bad_read, bad_ring, bad_page;
	uint64_t reports;
	/* where the worker is, for a hang report */
	uint64_t iteration;
	char last_op[160];
};

static struct stats *st;
static uint64_t seed;
static uint64_t cur_iter;
static bool verbose;
static bool in_child;		/* a forked child of the worker */
static bool is_root;
static int ncpu;
static long page_size;
/*
 * kernel.perf_event_max_sample_rate's default. The kernel lowers the live
 * value when its interrupts take long, so the draws use this one and the
 * sequence stays a function of the seed alone.
 */
#define MAX_SAMPLE_RATE		100000
#define SIGTRAP_MIN_PERIOD	10000	/* see gen_attr(): sparse SIGTRAPs */
#define SIGTRAP_MAX_FREQ	1000
#define FLOOR_MAX_FREQ		1000	/* the frequency cap that goes with -p */

/*
 * -p: no sampling period below this, no frequency above FLOOR_MAX_FREQ.
 * For debug kernels, where a sample costs ~100k instructions: there an
 * event sampling every few instructions (period 3 of user BR_RETIRED on a
 * CPU, seed 3 iteration 446) leaves the sampled code a few instructions
 * per interrupt, and one iteration runs for minutes. An event that counts
 * the kernel also counts the signal its overflow sends (sigtrap, or SIGIO
 * to the owner of an O_ASYNC event): when delivering it costs more than
 * the period, the event overflows again on the way back to userspace and
 * the task never advances. Throttling cannot help, as that is one
 * interrupt per signal. On the debug kernel, period 10000 of
 * BR_RETIRED:uk sending SIGIO (seed 1 iteration 48) and period 100000 of a
 * sigtrap instructions:uk event both hung: the debug boot uses -p 1000000.
 */
static uint64_t min_period;
static uint64_t max_sample_rate = MAX_SAMPLE_RATE;	/* the live value, printed */
static const char *self_exe = "/proc/self/exe";

static void stat_add(uint64_t *p, uint64_t n)
{
	__atomic_fetch_add(p, n, __ATOMIC_RELAXED);
}

#define STAT_INC(field)	stat_add(&st->field, 1)

/* A failure: printed with what is needed to replay it (the first few). */
static void __printf(2, 3)
report(uint64_t *counter, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	stat_add(counter, 1);
	if (__atomic_fetch_add(&st->reports, 1, __ATOMIC_RELAXED) >= MAX_REPORTS)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	printf("# FAIL seed %" PRIu64 " iteration %" PRIu64 "%s: %s\n", seed,
	       cur_iter, in_child ? " (child)" : "", msg);
	printf("# replay: fuzz_pmu -s %" PRIu64 " -i %" PRIu64 " -v\n", seed, cur_iter);
}

static void __printf(1, 2) vlog(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(st->last_op, sizeof(st->last_op), fmt, ap);
	va_end(ap);
	if (verbose)
		printf("# [%" PRIu64 "%s] %s\n", cur_iter, in_child ? " child" : "",
		       st->last_op);
}

/* ---- Random numbers: splitmix64, one stream per iteration ---- */

static uint64_t rng;

static uint64_t rnd64(void)
{
	uint64_t z = (rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void rng_seed_iteration(uint64_t s, uint64_t iter)
{
	rng = s * 0xd1342543de82ef95ULL + iter;
	rnd64();
	rng ^= iter * 0xa0761d6478bd642fULL;
}

static uint32_t rnd(uint32_t n)
{
	return n ? rnd64() % n : 0;
}

static bool chance(unsigned int percent)
{
	return rnd(100) < percent;
}

/* 0, 1, all ones, a single bit, a mask, around a bit boundary, random */
static uint64_t interesting64(void)
{
	unsigned int b = rnd(64);

	switch (rnd(9)) {
	case 0:
		return 0;
	case 1:
		return 1;
	case 2:
		return ~0ULL;
	case 3:
		return 1ULL << b;
	case 4:
		return (1ULL << b) - 1;
	case 5:
		return (1ULL << b) + 1;
	case 6:
		return ~0ULL >> b;
	case 7:
		return rnd(256);
	default:
		return rnd64();
	}
}

/* ---- Targets ---- */

struct target {
	char name[64];
	uint32_t type;
	bool ours;		/* the PMUv3 instance (format/long) */
};

static struct target targets[MAX_TARGETS];
static int ntargets;
static struct pmu_info our_pmu;
static bool have_our_pmu;
static bool have_branch_stack;	/* our PMU samples branch stacks (BRBE) */

/*
 * Whether our PMU opens a branch-stack event: only then must the sane
 * branch-stack draws reach the driver, for the KTAP line that says so.
 */
static bool branch_stack_works(void)
{
	struct perf_event_attr attr;
	int fd;

	pmu_attr_user(&attr, our_pmu.type, 0x11);	/* CPU_CYCLES */
	attr.sample_period = 100000;
	attr.sample_type = PERF_SAMPLE_BRANCH_STACK;
	attr.branch_sample_type = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER;
	fd = pmu_open(&attr, -1);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/*
 * Dynamic PMUs with a format/ folder: the arm PMUs (PMUv3, and later SPE
 * or BRBE users). kprobe and uprobe have one too, but their config1 is a
 * user pointer to a symbol name: not what this fuzzer is for.
 */
static void find_targets(void)
{
	static const char base[] = "/sys/bus/event_source/devices";
	char path[512], buf[64];
	struct dirent *de;
	DIR *d;

	have_our_pmu = pmu_find(&our_pmu) == 0;
	have_branch_stack = have_our_pmu && branch_stack_works();
	d = opendir(base);
	if (!d)
		return;
	while ((de = readdir(d)) && ntargets < MAX_TARGETS) {
		struct target *t = &targets[ntargets];

		if (de->d_name[0] == '.' || !strcmp(de->d_name, "kprobe") ||
		    !strcmp(de->d_name, "uprobe"))
			continue;
		snprintf(path, sizeof(path), "%s/%s/format", base, de->d_name);
		if (access(path, F_OK))
			continue;
		snprintf(path, sizeof(path), "%s/%s/type", base, de->d_name);
		if (pmu_read_sysfs(path, buf, sizeof(buf)))
			continue;
		t->type = strtoul(buf, NULL, 0);
		if (t->type < PERF_TYPE_MAX)
			continue;
		snprintf(t->name, sizeof(t->name), "%.63s", de->d_name);
		t->ours = have_our_pmu && t->type == our_pmu.type;
		ntargets++;
	}
	closedir(d);
}

/*
 * The SPE PMU (arm_spe_N) and the fields its format/ folder names, each
 * "configN:LO[-HI]", in name order so that the draws depend on the seed
 * and the kernel's formats only.
 */
#define MAX_SPE_FORMATS	32
struct spe_format {
	unsigned int word;	/* 0: config, 1: config1, ... 3: config3 */
	unsigned int lo, hi;
};

static struct spe_format spe_formats[MAX_SPE_FORMATS];
static int nspe_formats;
static uint32_t spe_type;
static bool have_spe;

static bool parse_spe_format(const char *text, struct spe_format *f)
{
	unsigned int word = 0, lo, hi;
	const char *bits = text + strlen("config");
	int n;

	if (strncmp(text, "config", strlen("config")))
		return false;
	if (*bits >= '1' && *bits <= '3')
		word = *bits++ - '0';
	if (*bits != ':')
		return false;
	n = sscanf(bits + 1, "%u-%u", &lo, &hi);
	if (n == 1)
		hi = lo;
	if (n < 1 || lo > hi || hi > 63)
		return false;
	*f = (struct spe_format){ .word = word, .lo = lo, .hi = hi };
	return true;
}

static void find_spe(void)
{
	static const char base[] = "/sys/bus/event_source/devices";
	char path[640], buf[64];
	struct dirent **names;
	int i, n;

	for (i = 0; i < ntargets && strncmp(targets[i].name, "arm_spe_", 8); i++)
		;
	if (i == ntargets)
		return;
	spe_type = targets[i].type;
	snprintf(path, sizeof(path), "%s/%s/format", base, targets[i].name);
	n = scandir(path, &names, NULL, alphasort);
	for (int j = 0; j < n; j++) {
		snprintf(path, sizeof(path), "%s/%s/format/%s", base, targets[i].name,
			 names[j]->d_name);
		if (names[j]->d_name[0] != '.' && nspe_formats < MAX_SPE_FORMATS &&
		    !pmu_read_sysfs(path, buf, sizeof(buf)) &&
		    parse_spe_format(buf, &spe_formats[nspe_formats]))
			nspe_formats++;
		free(names[j]);
	}
	if (n >= 0)
		free(names);
	have_spe = nspe_formats > 0;
}

/* The event numbers our PMU lists in events/ */
static uint64_t advertised[128];
static int nadvertised;

static void find_advertised(void)
{
	char path[640], buf[128];
	struct dirent *de;
	DIR *d;

	if (!have_our_pmu)
		return;
	snprintf(path, sizeof(path), "%s/events", our_pmu.dir);
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d)) && nadvertised < 128) {
		const char *p;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/events/%s", our_pmu.dir, de->d_name);
		if (pmu_read_sysfs(path, buf, sizeof(buf)))
			continue;
		p = strstr(buf, "event=");
		if (p)
			advertised[nadvertised++] = strtoul(p + 6, NULL, 0);
	}
	closedir(d);
}

/* Does an event of this type and config land on our PMU (if it opens)? */
static bool lands_on_our_pmu(uint32_t type, uint64_t config)
{
	if (!have_our_pmu)
		return false;
	if (type == our_pmu.type || type == PERF_TYPE_RAW)
		return true;
	if (type == PERF_TYPE_HARDWARE || type == PERF_TYPE_HW_CACHE)
		return !(config >> 32) || (config >> 32) == our_pmu.type;
	return false;
}

/* ---- Attribute generation ---- */

/* PMUv3 event numbers: common, extended common, CHAIN, IMPDEF, junk */
static uint64_t gen_pmu_event(void)
{
	switch (rnd(10)) {
	case 0:
	case 1:
	case 2:
		return rnd(0x40);
	case 3:
		return 0x4000 + rnd(0x40);
	case 4:
		return ARMV8_EVT_CHAIN;
	case 5:
		return ARMV8_EVT_CPU_CYCLES;
	case 6:
		return ARMV8_EVT_INST_RETIRED;
	case 7:
		return rnd(0x10000);
	case 8:
		return ARMV8_EVT_BR_RETIRED;
	default:
		return interesting64();
	}
}

/* config1: long (0), rdpmc (1), threshold_count (2), compare (3-4), threshold (5-16) */
static uint64_t gen_pmu_config1(void)
{
	switch (rnd(10)) {
	case 0:
	case 1:
	case 2:
		return 0;
	case 3:
		return PMU_CFG1_LONG;
	case 4:
		return PMU_CFG1_RDPMC;
	case 5:
		return PMU_CFG1_LONG | PMU_CFG1_RDPMC;
	case 6:
		return (rnd(PMU_CFG1_TH_MASK + 1) << PMU_CFG1_TH_SHIFT) |
		       (rnd(4) << 3) | (rnd(2) << 2) | rnd(4);
	case 7:
		return rnd(1 << 17);
	case 8:
		return 1ULL << (17 + rnd(47));
	default:
		return interesting64();
	}
}

/* Generic events may name the PMU in config bits 32-63 */
static uint64_t gen_ext_type(bool wild)
{
	if (!wild || !chance(30))
		return 0;
	if (have_our_pmu && chance(70))
		return (uint64_t)our_pmu.type << 32;
	return (uint64_t)rnd(64) << 32;
}

static uint64_t gen_sample_period(bool wild)
{
	static const uint64_t periods[] = {
		1, 2, 3, 100, 1000, 4096, 10000, 100000, 1000000, 0x7fffffff,
		0x80000000ULL, 0xffffffffULL, 0x100000000ULL, 0x100000001ULL,
		1ULL << 62, 1ULL << 63, ~0ULL,
	};

	if (wild && chance(10))
		return interesting64();
	/* the last three are refused: bit 63 set */
	return periods[rnd(ARRAY_SIZE(periods) - (wild ? 0 : 3))];
}

static uint64_t gen_sample_freq(bool wild)
{
	switch (rnd(wild ? 8 : 6)) {
	case 0:
		return 0;
	case 1:
		return 1;
	case 2:
		return 10;
	case 3:
		return 1000;
	case 4:
		return 4000;
	case 5:
		return MAX_SAMPLE_RATE;
	case 6:
		return MAX_SAMPLE_RATE + 1;	/* refused, unless raised */
	default:
		return interesting64();
	}
}

/*
 * An SPE event's config words: sane, each named field set with p = 1/3 to
 * a value that fits it (filters, latency, flags); wild, the same plus
 * bits no field names, which the driver must refuse.
 */
static void gen_spe_config(uint64_t cfg[4], bool wild)
{
	memset(cfg, 0, 4 * sizeof(*cfg));
	for (int i = 0; i < nspe_formats; i++) {
		const struct spe_format *f = &spe_formats[i];
		unsigned int width = f->hi - f->lo + 1;
		uint64_t v = chance(50) ? 1 : rnd64();

		if (!chance(33))
			continue;
		if (width < 64)
			v &= (1ULL << width) - 1;
		cfg[f->word] |= v << f->lo;
	}
	if (wild)
		cfg[rnd(4)] |= chance(50) ? 1ULL << rnd(64) : interesting64();
}

/*
 * SPE periods: what perf record -c asks for (multiples of the 256 the
 * interval register keeps, and below the minimum interval), or wild
 * ones past the 32-bit register.
 */
static uint64_t gen_spe_period(bool wild)
{
	static const uint64_t periods[] = {
		256, 1024, 4096, 65536, 1000000, 3, 1, 300, 1ULL << 24,
		0xffffff00ULL, 0x100000000ULL, ~0ULL,
	};

	return periods[rnd(ARRAY_SIZE(periods) - (wild ? 0 : 3))];
}

struct gen {
	union attr_buf a;
	bool wild;
	pid_t pid;
	int cpu;
	unsigned long flags;
	int group_slot;		/* -1: no group; else the slot used as group_fd */
	int group_fd_raw;	/* used when group_slot < -1 */
};

/*
 * The slots this iteration tried to open, whatever became of it: picking
 * among them makes most operations meet an event without letting the
 * sequence depend on which opens succeeded.
 */
static int tried[4 * MAX_OPS];
static int ntried;

static int pick_slot(void)
{
	if (ntried && chance(85))
		return tried[rnd(ntried)];
	return rnd(NSLOT);
}

static struct gen slot_gen[NSLOT];	/* each slot's last draw */

/*
 * The sample_type bits an ordinary profile asks for: each valid on its
 * own (WEIGHT and WEIGHT_STRUCT together are not, nor are AUX or
 * BRANCH_STACK on a PMU without them: those come from the wild draws).
 */
static uint64_t gen_sane_sample_type(void)
{
	static const uint64_t common = PERF_SAMPLE_IP | PERF_SAMPLE_TID |
		PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID |
		PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_STREAM_ID |
		PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW | PERF_SAMPLE_REGS_USER |
		PERF_SAMPLE_STACK_USER | PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC |
		PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TRANSACTION |
		PERF_SAMPLE_REGS_INTR | PERF_SAMPLE_PHYS_ADDR |
		PERF_SAMPLE_DATA_PAGE_SIZE | PERF_SAMPLE_CODE_PAGE_SIZE |
		PERF_SAMPLE_READ;

	return rnd64() & rnd64() & common;
}

/*
 * A branch_sample_type perf record -j could ask for: at least one branch
 * type (perf core refuses none), a level or none (the event's exclude_*
 * then decide), and a few of the output flags. Sane draws thus reach the
 * BRBE driver's filter merging, scheduling and interrupt paths; the wild
 * draws below mostly collect its refusals.
 */
static uint64_t gen_sane_branch_type(void)
{
	static const uint64_t levels[] = {
		0, PERF_SAMPLE_BRANCH_USER, PERF_SAMPLE_BRANCH_KERNEL,
		PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_KERNEL, PERF_SAMPLE_BRANCH_HV,
	};
	static const uint64_t types = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_ANY_CALL |
		PERF_SAMPLE_BRANCH_ANY_RETURN | PERF_SAMPLE_BRANCH_IND_CALL |
		PERF_SAMPLE_BRANCH_IND_JUMP | PERF_SAMPLE_BRANCH_CALL | PERF_SAMPLE_BRANCH_COND;
	static const uint64_t flags = PERF_SAMPLE_BRANCH_NO_FLAGS |
		PERF_SAMPLE_BRANCH_NO_CYCLES | PERF_SAMPLE_BRANCH_TYPE_SAVE |
		PERF_SAMPLE_BRANCH_PRIV_SAVE | PERF_SAMPLE_BRANCH_HW_INDEX;
	uint64_t type = rnd64() & types;

	return levels[rnd(5)] | (type ? type : PERF_SAMPLE_BRANCH_ANY) |
	       (rnd64() & rnd64() & flags);
}

/*
 * Two kinds of draws. A sane one looks like what perf asks for (valid
 * layout, few flags, our PMU's config fields in range) so that most open
 * and the operations after them reach the driver; a wild one sets every
 * field from interesting values and mostly exercises refusals.
 */
static void gen_attr(struct gen *g, pid_t victim)
{
	struct perf_event_attr *attr = &g->a.attr;
	bool wild = chance(25);
	uint64_t bits, config3 = 0;
	unsigned int r;

	memset(g, 0, sizeof(*g));
	g->wild = wild;
	r = rnd(100);
	if (r < 40 && ntargets) {
		attr->type = targets[rnd(ntargets)].type;
		attr->config = gen_pmu_event();
	} else if (r < 45 && have_spe) {
		attr->type = spe_type;
	} else if (r < 52) {
		attr->type = PERF_TYPE_HARDWARE;
		attr->config = !wild ? rnd(PERF_COUNT_HW_MAX + 1) : interesting64();
		attr->config |= gen_ext_type(wild);
	} else if (r < 62) {
		attr->type = PERF_TYPE_HW_CACHE;
		attr->config = !wild ?
			rnd(PERF_COUNT_HW_CACHE_MAX + 1) |
			rnd(PERF_COUNT_HW_CACHE_OP_MAX + 1) << 8 |
			rnd(PERF_COUNT_HW_CACHE_RESULT_MAX + 1) << 16 :
			interesting64();
		attr->config |= gen_ext_type(wild);
	} else if (r < 75) {
		attr->type = PERF_TYPE_RAW;
		attr->config = gen_pmu_event();
	} else if (r < 95) {
		attr->type = PERF_TYPE_SOFTWARE;
		attr->config = !wild ? rnd(PERF_COUNT_SW_MAX + 1) : interesting64();
	} else {
		/* an unknown or unrelated type: refused, or a core path */
		attr->type = chance(50) ? (uint32_t)interesting64() : rnd(64);
		attr->config = interesting64();
		if (attr->type == PERF_TYPE_TRACEPOINT || attr->type == PERF_TYPE_BREAKPOINT)
			attr->type = PERF_TYPE_MAX + 100;
	}
	/* mostly events the PMU announces, so that the operations after count */
	if (!wild && attr->config == ARMV8_EVT_CHAIN)
		attr->config = ARMV8_EVT_INST_RETIRED;
	if (!wild && nadvertised && chance(70) &&
	    (attr->type == PERF_TYPE_RAW || (ntargets && attr->type == targets[0].type))) {
		attr->config = advertised[rnd(nadvertised)];
		if (attr->config == ARMV8_EVT_CHAIN)
			attr->config = ARMV8_EVT_CPU_CYCLES;
	}
	attr->config1 = wild ? gen_pmu_config1() :
		chance(85) ? rnd(4) : gen_pmu_config1() & 0x1ffff;
	if (wild && chance(30))
		attr->config2 = interesting64();
	if (wild && chance(15))
		config3 = interesting64();
	if (have_spe && attr->type == spe_type) {
		uint64_t cfg[4];

		gen_spe_config(cfg, wild);
		attr->config = cfg[0];
		attr->config1 = cfg[1];
		attr->config2 = cfg[2];
		config3 = cfg[3];
	}

	if (wild) {
		/* The bit fields: each set with p = 1/8, reserved ones rarely */
		bits = rnd64() & rnd64() & rnd64();
		if (!chance(10))
			bits &= (1ULL << 38) - 1;
		memcpy(g->a.raw + ATTR_FLAGS_OFF, &bits, sizeof(bits));
		attr->precise_ip = rnd(4);
	} else {
		attr->mmap = chance(10);
		attr->comm = chance(10);
		attr->task = chance(10);
		attr->mmap2 = chance(5);
		attr->comm_exec = chance(5);
		attr->context_switch = chance(5);
		attr->sample_id_all = chance(30);
		attr->watermark = chance(10);
		attr->inherit_stat = chance(5);
		attr->exclude_callchain_kernel = chance(10);
		attr->exclude_callchain_user = chance(10);
		attr->write_backward = chance(5);
		attr->precise_ip = chance(85) ? 0 : rnd(4);
		attr->remove_on_exec = chance(5);
		attr->sigtrap = chance(4);
		if (attr->sigtrap)
			attr->remove_on_exec = 1;
	}
	attr->disabled = chance(50);
	attr->exclude_user = chance(15);
	attr->exclude_kernel = chance(35);
	attr->exclude_hv = chance(35);
	attr->exclude_idle = chance(wild ? 20 : 3);
	attr->exclude_host = chance(5);
	attr->exclude_guest = chance(10);
	attr->inherit = chance(30);
	attr->inherit_thread = attr->inherit && chance(10);
	attr->pinned = chance(10);
	attr->exclusive = chance(5);
	attr->enable_on_exec = chance(10);

	/* Counting, fixed period or frequency */
	r = rnd(100);
	attr->freq = 0;
	if (r < 25) {
		attr->freq = 1;
		attr->sample_freq = gen_sample_freq(wild);
	} else if (r < 60) {
		attr->sample_period = gen_sample_period(wild);
	}
	/*
	 * A sigtrap event that fires every few instructions keeps its task
	 * in the SIGTRAP handler, whose own instructions fire it again: the
	 * task then advances a few instructions per throttling tick. That
	 * is correct, but on a debug kernel, where each signal costs ~100k
	 * instructions, one such event took minutes: keep them sparse.
	 */
	/* SPE only samples, at a period: mostly what it takes */
	if (have_spe && attr->type == spe_type && (!wild || chance(50))) {
		attr->freq = chance(5);
		if (!attr->freq)
			attr->sample_period = gen_spe_period(wild);
	}
	if (attr->sigtrap && attr->freq && attr->sample_freq > SIGTRAP_MAX_FREQ)
		attr->sample_freq = SIGTRAP_MAX_FREQ;
	if (attr->sigtrap && !attr->freq && attr->sample_period &&
	    attr->sample_period < SIGTRAP_MIN_PERIOD)
		attr->sample_period = SIGTRAP_MIN_PERIOD;
	if (attr->freq && min_period && attr->sample_freq > FLOOR_MAX_FREQ)
		attr->sample_freq = FLOOR_MAX_FREQ;
	if (!attr->freq && attr->sample_period && attr->sample_period < min_period)
		attr->sample_period = min_period;
	if (!wild) {
		attr->sample_type = gen_sane_sample_type();
		if (attr->inherit)	/* PERF_SAMPLE_READ and inherit: refused */
			attr->sample_type &= ~PERF_SAMPLE_READ;
	} else {
		attr->sample_type = chance(70) ? rnd64() & rnd64() & (PERF_SAMPLE_MAX - 1) :
						 interesting64();
	}
	if (!wild && chance(15)) {
		attr->sample_type |= PERF_SAMPLE_BRANCH_STACK;
		attr->branch_sample_type = gen_sane_branch_type();
	} else if (attr->sample_type & PERF_SAMPLE_BRANCH_STACK || chance(wild ? 10 : 2)) {
		attr->branch_sample_type = chance(80) ?
			rnd64() & (PERF_SAMPLE_BRANCH_MAX - 1) : interesting64();
	}
	/* arm64 user and interrupt registers: x0-x30, sp, pc (0-32) */
	if (attr->sample_type & PERF_SAMPLE_REGS_USER)
		attr->sample_regs_user = !wild ? rnd64() & ((1ULL << 33) - 1) : interesting64();
	if (attr->sample_type & PERF_SAMPLE_REGS_INTR)
		attr->sample_regs_intr = !wild ? rnd64() & ((1ULL << 33) - 1) : interesting64();
	if (attr->sample_type & PERF_SAMPLE_STACK_USER) {
		static const uint32_t sizes[] = { 8, 512, 4096, 65528, 0, 7, 65536 };

		attr->sample_stack_user = sizes[rnd(wild ? 7 : 4)];
	}
	if (attr->sample_type & PERF_SAMPLE_CALLCHAIN) {
		static const uint16_t depths[] = { 0, 1, 16, 127, 128, 65535 };

		attr->sample_max_stack = depths[rnd(wild ? 6 : 4)];
	}
	attr->read_format = !wild || chance(80) ? rnd(PERF_FORMAT_MAX) : interesting64();
	if (attr->use_clockid)
		attr->clockid = chance(80) ? rnd(12) : (int32_t)interesting64();
	if (chance(30))
		attr->wakeup_events = !wild ? rnd(4) : (uint32_t)interesting64();
	if (wild && chance(10))
		attr->bp_type = rnd(16);
	if (wild && chance(10))
		attr->aux_watermark = (uint32_t)interesting64();
	if (wild && chance(10))
		attr->aux_sample_size = (uint32_t)interesting64();
	if (chance(10))
		attr->sig_data = interesting64();
	memcpy(g->a.raw + ATTR_CONFIG3_OFF, &config3, sizeof(config3));

	/* size: this ABI, an older one, 0 (= VER0), larger with a zero or dirty tail */
	r = rnd(100);
	if (r < 80 || !wild)
		attr->size = ATTR_SIZE_VER8;
	else if (r < 85)
		attr->size = PERF_ATTR_SIZE_VER0;
	else if (r < 88)
		attr->size = 128;
	else if (r < 90)
		attr->size = 0;
	else if (r < 94)
		attr->size = ATTR_SIZE_VER8 + 8 * (1 + rnd(8));
	else if (r < 97) {
		attr->size = ATTR_SIZE_VER8 + 8;
		g->a.raw[ATTR_SIZE_VER8 + rnd(8)] = 1 + rnd(255);
	} else {
		attr->size = rnd(sizeof(g->a.raw));
	}

	/* Whose events: ours on any CPU, ours on one, a CPU's, a victim's */
	r = rnd(100);
	g->cpu = -1;
	if (r < 75) {
		g->pid = 0;
	} else if (r < 83) {
		g->pid = 0;
		g->cpu = wild ? rnd(ncpu + 1) : rnd(ncpu);
	} else if (r < 91) {
		g->pid = -1;
		g->cpu = wild ? rnd(ncpu + 1) : rnd(ncpu);
	} else if (r < 97 && victim > 0) {
		g->pid = victim;
		g->cpu = chance(70) ? -1 : (int)rnd(ncpu);
	} else if (r < 98 && wild) {
		g->pid = -1;
	} else if (wild) {
		g->pid = 0x3fffffff;	/* no such process */
	}

	r = rnd(100);
	if (r < 50)
		g->flags = PERF_FLAG_FD_CLOEXEC;
	else if (r < 85 || !wild)
		g->flags = 0;
	else if (r < 90)
		g->flags = PERF_FLAG_FD_NO_GROUP;
	else if (r < 93)
		g->flags = PERF_FLAG_FD_OUTPUT;
	else if (r < 96)
		g->flags = PERF_FLAG_PID_CGROUP;
	else
		g->flags = interesting64();

	r = rnd(100);
	g->group_slot = -1;
	if (r < 40) {
		g->group_slot = pick_slot();
	} else if (r < 45 && wild) {
		g->group_slot = -2;
		g->group_fd_raw = chance(50) ? 0 : (int)interesting64();
	}

	if (wild)
		return;
	/*
	 * A sibling must count for the same task and CPU as its leader, and
	 * inherit as it does; only a leader is pinned or exclusive. Copy what
	 * the slot's last draw (not its result) asked for.
	 */
	if (g->group_slot >= 0 && slot_gen[g->group_slot].a.attr.size) {
		const struct gen *l = &slot_gen[g->group_slot];

		g->pid = l->pid;
		g->cpu = l->cpu;
		attr->inherit = l->a.attr.inherit;
		attr->inherit_thread = l->a.attr.inherit_thread;
		attr->pinned = 0;
		attr->exclusive = 0;
	}
	/* rdpmc is for task-bound events */
	if (g->pid == -1)
		attr->config1 &= ~PMU_CFG1_RDPMC;
}

/* ---- Per-process state: event slots, mappings, children ---- */

struct slot {
	int fd;
	bool self;		/* pid 0, cpu -1, opened by this process */
	bool ours;		/* an event of our PMU */
	bool in_group;		/* opened with a group_fd */
	uint64_t read_format;
	bool write_backward;
	uint64_t id;		/* PERF_EVENT_IOC_ID, 0: unknown */
};

struct mapping {
	void *addr;
	size_t len;
	int slot;		/* -1 once the slot's fd is gone */
	bool rw;
	bool touchable;		/* no part of it unmapped */
};

#define MAX_MAPS 16
static struct slot slots[NSLOT];
static struct mapping maps[MAX_MAPS];
static pid_t victim;

/* ---- Errno checks ---- */

static bool errno_allowed(enum op_class c, int e)
{
	switch (e) {
	case EINTR: case EBADF: case ENOMEM: case EINVAL: case EFAULT:
		return true;
	}
	switch (c) {
	case C_OPEN:
		/*
		 * EOVERFLOW: sample_max_stack above kernel.perf_event_max_stack.
		 * EAGAIN: a target task exiting while we attach.
		 */
		return e == ENOENT || e == EOPNOTSUPP || e == EACCES || e == EPERM ||
		       e == E2BIG || e == EBUSY || e == ENODEV || e == EMFILE ||
		       e == ENOSPC || e == ESRCH || e == EOVERFLOW || e == EAGAIN;
	case C_IOCTL:
		/* ENOTTY: unknown command; EEXIST, EPERM, EACCES: SET_BPF */
		return e == ENOTTY || e == ENOENT || e == EOPNOTSUPP || e == EPERM ||
		       e == EACCES || e == E2BIG || e == EBUSY || e == EEXIST ||
		       e == ENOSPC || e == EAGAIN || e == ENODEV;
	case C_READ:
		/* ECHILD: a group read racing with an inherited group's change */
		return e == ENOSPC || e == ECHILD || e == EAGAIN;
	case C_MMAP:
		return e == EPERM || e == EACCES || e == EBUSY || e == ENODEV ||
		       e == EAGAIN || e == EOPNOTSUPP;
	default:
		return false;
	}
}

static void note_result(enum op_class c, long ret, int e, const char *what)
{
	STAT_INC(calls[c]);
	if (ret >= 0) {
		STAT_INC(errno_hist[c][0]);
		vlog("%s = %ld", what, ret);
		return;
	}
	STAT_INC(errno_hist[c][e > 0 && e < MAX_ERRNO ? e : MAX_ERRNO]);
	vlog("%s = -1 %s", what, strerrorname_np(e) ?: "?");
	if (ret != -1 || !errno_allowed(c, e))
		report(c == C_OPEN ? &st->bad_open : &st->bad_errno,
		       "%s: returned %ld errno %d (%s), not allowed", what, ret, e,
		       strerrorname_np(e) ?: "?");
}

/* ---- Signals ---- */

static sigjmp_buf user_read_jmp;
static sig_atomic_t in_user_read;	/* accessed with __atomic_*() */

static void on_async(int sig)
{
	if (sig == SIGTRAP)
		STAT_INC(sigtrap);
	else
		STAT_INC(sigio);
}

static void on_sigill(int sig)
{
	if (__atomic_load_n(&in_user_read, __ATOMIC_RELAXED)) {
		__atomic_store_n(&in_user_read, 0, __ATOMIC_RELAXED);
		siglongjmp(user_read_jmp, 1);
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

static void install_handlers(void)
{
	struct sigaction sa = { .sa_handler = on_async, .sa_flags = SA_RESTART };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGIO, &sa, NULL);
	sigaction(SIGTRAP, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGRTMIN, &sa, NULL);
	sa.sa_handler = on_sigill;
	sa.sa_flags = SA_NODEFER;
	sigaction(SIGILL, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/* ---- Operations ---- */

static uint64_t sink;

/* Keep a computed value alive without a store the compiler could drop */
static inline void keep(uint64_t v)
{
	asm volatile("" : : "r" (v) : "memory");
	sink = v;
}

/* Some instructions, branches and loads for the counters to see */
static void busy(void)
{
	uint32_t n = chance(80) ? rnd(20000) : rnd(200000);
	uint64_t acc = rng;

	vlog("spin %u", n);
	for (uint32_t i = 0; i < n; i++) {
		acc = acc * 6364136223846793005ULL + i;
		if (acc & 8)
			keep(acc);
	}
	STAT_INC(busy_loops);
}

static int slot_fd(int s)
{
	return slots[s].fd;
}

static void do_open(int s)
{
	struct slot *sl = &slots[s];
	struct gen g;
	int group_fd, fd, e;
	char what[160];

	gen_attr(&g, in_child ? 0 : victim);
	slot_gen[s] = g;
	if (ntried < (int)ARRAY_SIZE(tried))
		tried[ntried++] = s;
	if (g.group_slot >= 0)
		group_fd = slot_fd(g.group_slot);
	else if (g.group_slot == -1)
		group_fd = -1;
	else
		group_fd = g.group_fd_raw;

	snprintf(what, sizeof(what),
		 "open slot %d type %u config %#llx config1 %#llx size %u pid %d cpu %d group %d flags %#lx",
		 s, g.a.attr.type, (unsigned long long)g.a.attr.config,
		 (unsigned long long)g.a.attr.config1, g.a.attr.size, g.pid, g.cpu,
		 group_fd, g.flags);
	vlog("%s", what);
	if (verbose) {
		uint64_t bits;

		memcpy(&bits, g.a.raw + ATTR_FLAGS_OFF, sizeof(bits));
		printf("#   %s bits %#" PRIx64 " period %#llx sample_type %#llx",
		       g.wild ? "wild" : "sane", bits, (unsigned long long)g.a.attr.sample_period,
		       (unsigned long long)g.a.attr.sample_type);
		printf(" read_format %#llx branch %#llx config2 %#llx\n",
		       (unsigned long long)g.a.attr.read_format,
		       (unsigned long long)g.a.attr.branch_sample_type,
		       (unsigned long long)g.a.attr.config2);
	}

	if (sl->fd >= 0)
		close(sl->fd);
	sl->fd = -1;
	for (int m = 0; m < MAX_MAPS; m++)
		if (maps[m].addr && maps[m].slot == s)
			maps[m].slot = -1;

	fd = syscall(__NR_perf_event_open, &g.a.attr, g.pid, g.cpu, group_fd, g.flags);
	e = errno;
	note_result(C_OPEN, fd, e, what);
	if (fd < 0)
		return;
	sl->fd = fd;
	sl->self = g.pid == 0 && g.cpu == -1;
	sl->ours = lands_on_our_pmu(g.a.attr.type, g.a.attr.config);
	sl->in_group = group_fd >= 0;
	sl->read_format = g.a.attr.read_format;
	sl->write_backward = g.a.attr.write_backward;
	sl->id = 0;
	if (sl->ours)
		STAT_INC(open_ours);
	if (sl->ours && g.a.attr.sample_type & PERF_SAMPLE_BRANCH_STACK)
		STAT_INC(open_branch);
	if (have_spe && g.a.attr.type == spe_type)
		STAT_INC(open_spe);
}

static void do_ioctl(int s)
{
	int fd = slot_fd(s), other = slot_fd(pick_slot());
	union attr_buf mod;
	uint64_t val = 0, id = 0;
	unsigned long cmd, arg;
	struct {
		uint32_t ids_len, prog_cnt, ids[4];
	} query = { .ids_len = rnd(5) };
	static const char *const filters[] = { "", "filter", "filter 0x1000/8@/bin/sh" };
	char what[96];
	long ret;
	int e;

	switch (rnd(16)) {
	case 0: case 1:
		cmd = PERF_EVENT_IOC_ENABLE;
		arg = chance(70) ? 0 : chance(80) ? PERF_IOC_FLAG_GROUP : interesting64();
		break;
	case 2: case 3:
		cmd = PERF_EVENT_IOC_DISABLE;
		arg = chance(70) ? 0 : chance(80) ? PERF_IOC_FLAG_GROUP : interesting64();
		break;
	case 4:
		cmd = PERF_EVENT_IOC_RESET;
		arg = chance(70) ? 0 : PERF_IOC_FLAG_GROUP;
		break;
	case 5: {
		static const long refresh[] = { 0, 1, 2, 100, -1, 0x7fffffff };

		cmd = PERF_EVENT_IOC_REFRESH;
		arg = refresh[rnd(6)];
		break;
	}
	case 6: case 7:
		cmd = PERF_EVENT_IOC_PERIOD;
		val = chance(50) ? gen_sample_period(chance(20)) : gen_sample_freq(chance(20));
		/* with -p: a period above the floor, or a frequency perf refuses */
		if (val < min_period)
			val = 100 * min_period;
		arg = chance(95) ? (unsigned long)&val : chance(50) ? 0 : 16;
		break;
	case 8:
		cmd = PERF_EVENT_IOC_SET_OUTPUT;
		arg = chance(70) ? (unsigned long)other : chance(50) ? -1UL : interesting64();
		break;
	case 9:
		cmd = PERF_EVENT_IOC_ID;
		arg = chance(95) ? (unsigned long)&id : 0;
		break;
	case 10:
		cmd = PERF_EVENT_IOC_PAUSE_OUTPUT;
		arg = chance(80) ? rnd(2) : interesting64();
		break;
	case 11:
		cmd = PERF_EVENT_IOC_SET_FILTER;
		arg = chance(90) ? (unsigned long)filters[rnd(3)] : 0;
		break;
	case 12:
		cmd = PERF_EVENT_IOC_SET_BPF;
		arg = chance(50) ? (unsigned long)other : rnd(4);
		break;
	case 13:
		cmd = PERF_EVENT_IOC_QUERY_BPF;
		arg = chance(90) ? (unsigned long)&query : 0;
		break;
	case 14:
		cmd = PERF_EVENT_IOC_MODIFY_ATTRIBUTES;
		memset(&mod, 0, sizeof(mod));
		mod.attr.size = chance(80) ? ATTR_SIZE_VER8 : rnd(sizeof(mod.raw));
		mod.attr.type = chance(50) ? PERF_TYPE_BREAKPOINT : rnd(16);
		mod.attr.bp_type = rnd(8);
		arg = chance(90) ? (unsigned long)&mod : 0;
		break;
	default:
		/* unknown commands: of perf's magic, or anything */
		cmd = chance(50) ? _IO('$', 12 + rnd(8)) : (unsigned long)interesting64();
		arg = interesting64();
		break;
	}
	snprintf(what, sizeof(what), "ioctl slot %d fd %d cmd %#lx arg %#lx", s, fd, cmd, arg);
	vlog("%s", what);
	ret = ioctl(fd, cmd, arg);
	e = errno;
	note_result(C_IOCTL, ret, e, what);
	if (ret > 0)
		report(&st->bad_errno, "%s: returned %ld", what, ret);
	if (ret == 0) {
		STAT_INC(ioctl_ok);
		if (cmd == PERF_EVENT_IOC_ID && fd >= 0)
			slots[s].id = id;
	}
}

/* The bytes read() returns for one event (no PERF_FORMAT_GROUP) */
static size_t read_size_one(uint64_t rf)
{
	return 8 * (1 + !!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) +
		    !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING) + !!(rf & PERF_FORMAT_ID) +
		    !!(rf & PERF_FORMAT_LOST));
}

static void check_read(int s, const uint64_t *buf, long ret, size_t len)
{
	uint64_t rf = slots[s].read_format;
	bool te = rf & PERF_FORMAT_TOTAL_TIME_ENABLED;
	bool tr = rf & PERF_FORMAT_TOTAL_TIME_RUNNING;
	size_t want;

	if (ret % 8 || (size_t)ret > len) {
		report(&st->bad_read, "read slot %d: %ld bytes of %zu", s, ret, len);
		return;
	}
	if (rf & PERF_FORMAT_GROUP) {
		uint64_t nr = buf[0];
		size_t entry = 8 * (1 + !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST));

		want = 8 * (1 + te + tr) + nr * entry;
		if (nr < 1 || nr > 1024 || (size_t)ret != want) {
			report(&st->bad_read,
			       "group read slot %d (format %#" PRIx64 "): %ld bytes, nr %" PRIu64,
			       s, rf, ret, nr);
			return;
		}
		if (te && tr && buf[2] > buf[1])
			report(&st->bad_read,
			       "group read slot %d: running %" PRIu64 " > enabled %" PRIu64,
			       s, buf[2], buf[1]);
		return;
	}
	want = read_size_one(rf);
	if ((size_t)ret != want) {
		report(&st->bad_read, "read slot %d (format %#" PRIx64 "): %ld bytes, want %zu",
		       s, rf, ret, want);
		return;
	}
	if (te && tr && buf[2] > buf[1])
		report(&st->bad_read, "read slot %d: running %" PRIu64 " > enabled %" PRIu64,
		       s, buf[2], buf[1]);
	if ((rf & PERF_FORMAT_ID) && slots[s].id && buf[1 + te + tr] != slots[s].id)
		report(&st->bad_read,
		       "read slot %d: id %" PRIu64 ", PERF_EVENT_IOC_ID said %" PRIu64,
		       s, buf[1 + te + tr], slots[s].id);
}

static void do_read(int s)
{
	static uint64_t buf[READ_BUF / 8];
	int fd = slot_fd(s);
	size_t one = read_size_one(slots[s].read_format), len;
	char what[64];
	long ret;
	int e;

	switch (rnd(8)) {
	case 0:
		len = 0;
		break;
	case 1:
		len = 1 + rnd(7);
		break;
	case 2:
		len = 8;
		break;
	case 3:
		len = one - 8;
		break;
	case 4:
		len = one + 8;
		break;
	case 5:
		len = READ_BUF;
		break;
	default:
		len = one;
		break;
	}
	snprintf(what, sizeof(what), "read slot %d fd %d len %zu", s, fd, len);
	vlog("%s", what);
	memset(buf, 0, sizeof(buf));
	ret = read(fd, buf, len);
	e = errno;
	note_result(C_READ, ret, e, what);
	if (fd < 0)
		return;
	if (ret > 0) {
		STAT_INC(read_ok);
		check_read(s, buf, ret, len);
	} else if (ret < 0 && e == ENOSPC && !(slots[s].read_format & PERF_FORMAT_GROUP) &&
		   len >= one) {
		report(&st->bad_read, "%s: ENOSPC with room for %zu bytes", what, one);
	}
}

/* Read our PMU's counter from EL0 as the user page allows; count traps */
static void user_read(struct perf_event_mmap_page *pc)
{
	uint64_t count;

	STAT_INC(user_reads);
	if (sigsetjmp(user_read_jmp, 1)) {
		/*
		 * Access can be withdrawn between reading the page and the
		 * counter (a rotation in between): not an error by itself.
		 */
		STAT_INC(user_read_traps);
		vlog("user read trapped");
		return;
	}
	__atomic_store_n(&in_user_read, 1, __ATOMIC_SEQ_CST);
	if (pmu_user_read(pc, &count))
		STAT_INC(user_read_ok);
	__atomic_store_n(&in_user_read, 0, __ATOMIC_SEQ_CST);
}

static void check_user_page(int s, struct mapping *m)
{
	struct perf_event_mmap_page *pc = m->addr;
	uint32_t seq, index, width, cap;
	int tries = 0;

	STAT_INC(user_pages);
	do {
		seq = __atomic_load_n(&pc->lock, __ATOMIC_ACQUIRE);
		index = pc->index;
		width = pc->pmc_width;
		cap = pc->cap_user_rdpmc;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
	} while ((seq & 1 || pc->lock != seq) && ++tries < 1000);
	if (tries >= 1000)
		return;
	if (s >= 0 && slots[s].ours && (index > PMU_USER_CYCLE_INDEX || (index && !cap) ||
					(width != 0 && width != 32 && width != 64)))
		report(&st->bad_page,
		       "user page of slot %d: index %u cap_user_rdpmc %u pmc_width %u",
		       s, index, cap, width);
	if (s >= 0 && slots[s].ours && slots[s].self && cap && index)
		user_read(pc);
}

/* Walk the records between data_tail and data_head, then consume them */
static void walk_ring(struct mapping *m)
{
	struct perf_event_mmap_page *pc = m->addr;
	uint64_t head, tail, size, off;
	uint8_t *data;

	off = pc->data_offset ? pc->data_offset : (uint64_t)page_size;
	size = pc->data_size ? pc->data_size : m->len - page_size;
	if (off + size > m->len || !size || size & (size - 1)) {
		report(&st->bad_ring, "ring: data_offset %llu data_size %llu in a %zu byte mapping",
		       (unsigned long long)pc->data_offset,
		       (unsigned long long)pc->data_size, m->len);
		return;
	}
	data = (uint8_t *)m->addr + off;
	head = __atomic_load_n(&pc->data_head, __ATOMIC_ACQUIRE);
	tail = pc->data_tail;
	STAT_INC(ring_walks);
	if (head - tail > size) {
		report(&st->bad_ring, "ring: head %" PRIu64 " tail %" PRIu64 " size %" PRIu64,
		       head, tail, size);
		return;
	}
	while (tail < head) {
		struct perf_event_header *h = (void *)(data + (tail & (size - 1)));

		if (h->size < sizeof(*h) || h->size % 8 || tail + h->size > head ||
		    !h->type || h->type >= 64) {
			report(&st->bad_ring,
			       "ring: record type %u size %u at %" PRIu64 " (head %" PRIu64 ")",
			       h->type, h->size, tail, head);
			break;
		}
		tail += h->size;
		STAT_INC(ring_records);
	}
	__atomic_store_n(&pc->data_tail, head, __ATOMIC_RELEASE);
	/*
	 * Hand back the AUX area too, if one is mapped writable: a driver
	 * with a full buffer stops until it has room (perf core ignores
	 * aux_tail otherwise).
	 */
	__atomic_store_n(&pc->aux_tail, __atomic_load_n(&pc->aux_head, __ATOMIC_ACQUIRE),
			 __ATOMIC_RELEASE);
}

/*
 * A slot whose last draw was an SPE event, looking from s on, else s: AUX
 * areas are for AUX PMUs. The draws, not the opens' results, decide, so
 * the sequence stays the same on any kernel.
 */
static int spe_slot(int s)
{
	for (int i = 0; have_spe && i < NSLOT; i++) {
		int t = (s + i) % NSLOT;

		if (slot_gen[t].a.attr.size && slot_gen[t].a.attr.type == spe_type)
			return t;
	}
	return s;
}

/* A mapped, writable ring of the slot: its maps[] index or -1 */
static int find_ring(int s)
{
	for (int m = 0; m < MAX_MAPS; m++)
		if (maps[m].addr && maps[m].slot == s && maps[m].rw && maps[m].touchable &&
		    maps[m].len > (size_t)page_size)
			return m;
	return -1;
}

/* A writable ring of 1 + 2^n pages for the slot: its maps[] index or -1 */
static int map_ring(int s)
{
	size_t pages = 1 + (1UL << rnd(4));
	char what[96];
	void *addr;
	int m, e;

	for (m = 0; m < MAX_MAPS && maps[m].addr; m++)
		;
	if (m == MAX_MAPS)
		return -1;
	snprintf(what, sizeof(what), "mmap ring slot %d fd %d pages %zu", s, slot_fd(s), pages);
	vlog("%s", what);
	addr = mmap(NULL, pages * page_size, PROT_READ | PROT_WRITE, MAP_SHARED, slot_fd(s), 0);
	e = errno;
	note_result(C_MMAP, addr == MAP_FAILED ? -1 : 0, e, what);
	if (addr == MAP_FAILED)
		return -1;
	STAT_INC(mmap_ok);
	maps[m] = (struct mapping){ .addr = addr, .len = pages * page_size, .slot = s,
				    .rw = true, .touchable = true };
	return m;
}

/*
 * Map an AUX area behind one of the slot's ring buffers, as perf record
 * does for SPE: aux_offset and aux_size in the user page, then mmap() of
 * that range; read-only is snapshot (overwrite) mode. Mostly power-of-two
 * sizes from one page up, sometimes one that is not.
 */
static void do_aux_mmap(int s)
{
	struct perf_event_mmap_page *pc;
	size_t pages, off;
	int m, a, prot;
	char what[96];
	void *addr;
	int e;

	m = find_ring(s);
	if (m < 0)
		m = map_ring(s);
	for (a = 0; a < MAX_MAPS && maps[a].addr; a++)
		;
	if (m < 0 || a == MAX_MAPS)
		return;
	pages = chance(90) ? 1UL << rnd(7) : 1 + rnd(12);
	prot = chance(40) ? PROT_READ : PROT_READ | PROT_WRITE;
	pc = maps[m].addr;
	off = pc->data_offset + pc->data_size;
	pc->aux_offset = off;
	pc->aux_size = pages * page_size;
	snprintf(what, sizeof(what), "aux mmap slot %d fd %d pages %zu prot %d off %zu",
		 s, slot_fd(s), pages, prot, off);
	vlog("%s", what);
	addr = mmap(NULL, pages * page_size, prot, MAP_SHARED, slot_fd(s), off);
	e = errno;
	note_result(C_MMAP, addr == MAP_FAILED ? -1 : 0, e, what);
	if (addr == MAP_FAILED)
		return;
	STAT_INC(aux_mmap_ok);
	if (!(prot & PROT_WRITE))
		STAT_INC(aux_snapshot_ok);
	maps[a] = (struct mapping){ .addr = addr, .len = pages * page_size, .slot = s };
}

static void do_mmap(int s)
{
	int fd = slot_fd(s), prot, flags = MAP_SHARED, m;
	size_t pages;
	off_t off = 0;
	char what[96];
	void *addr;
	int e;

	for (m = 0; m < MAX_MAPS && maps[m].addr; m++)
		;
	if (m == MAX_MAPS)
		return;
	switch (rnd(10)) {
	case 0:
		pages = 1;
		break;
	case 1:
		pages = rnd(4);		/* 0, 1 or not 1 + 2^n */
		break;
	case 2:
		pages = 1 + rnd(64);
		break;
	default:
		pages = 1 + (1UL << rnd(5));
		break;
	}
	prot = chance(75) ? PROT_READ | PROT_WRITE : chance(80) ? PROT_READ : PROT_WRITE;
	if (chance(5))
		flags = MAP_PRIVATE;
	if (chance(5))
		off = page_size * (1 + rnd(4));		/* the AUX area */
	snprintf(what, sizeof(what), "mmap slot %d fd %d pages %zu prot %d flags %d off %lld",
		 s, fd, pages, prot, flags, (long long)off);
	vlog("%s", what);
	addr = mmap(NULL, pages * page_size, prot, flags, fd, off);
	e = errno;
	note_result(C_MMAP, addr == MAP_FAILED ? -1 : 0, e, what);
	if (addr == MAP_FAILED)
		return;
	if ((uintptr_t)addr % page_size) {
		report(&st->bad_errno, "%s: unaligned %p", what, addr);
		return;
	}
	STAT_INC(mmap_ok);
	maps[m] = (struct mapping){ .addr = addr, .len = pages * page_size, .slot = s,
				    .rw = prot & PROT_WRITE, .touchable = true };
	if (off || !(prot & PROT_READ))
		maps[m].touchable = false;
	if (maps[m].touchable)
		check_user_page(s, &maps[m]);
}

static void touch_map(struct mapping *m)
{
	if (!m->addr || !m->touchable)
		return;
	vlog("touch map %p slot %d", m->addr, m->slot);
	check_user_page(m->slot, m);
	/* Children share the parent's buffers: only the worker consumes them */
	if (!in_child && m->rw && m->len > (size_t)page_size && m->slot >= 0 &&
	    !slots[m->slot].write_backward)
		walk_ring(m);
}

static void do_touch_map(void)
{
	touch_map(&maps[rnd(MAX_MAPS)]);
}

static void do_munmap(void)
{
	struct mapping *m = &maps[rnd(MAX_MAPS)];
	size_t off = 0, len;

	if (!m->addr)
		return;
	len = m->len;
	if (chance(15) && m->len > (size_t)page_size) {
		/* part of it: the perf mapping must survive or refuse the split */
		off = chance(50) ? 0 : m->len - page_size;
		len = page_size;
	}
	vlog("munmap %p+%zu len %zu", m->addr, off, len);
	STAT_INC(calls[C_OTHER]);
	if (munmap((uint8_t *)m->addr + off, len)) {
		note_result(C_OTHER, -1, errno, "munmap");
		return;
	}
	STAT_INC(errno_hist[C_OTHER][0]);
	if (len == m->len)
		memset(m, 0, sizeof(*m));
	else
		m->touchable = false;
}

static void unmap_all(void)
{
	for (int m = 0; m < MAX_MAPS; m++) {
		if (maps[m].addr)
			munmap(maps[m].addr, maps[m].len);
		memset(&maps[m], 0, sizeof(maps[m]));
	}
}

static void do_close(int s)
{
	char what[48];
	int ret;

	snprintf(what, sizeof(what), "close slot %d fd %d", s, slots[s].fd);
	vlog("%s", what);
	if (slots[s].fd < 0)
		return;
	ret = close(slots[s].fd);
	note_result(C_OTHER, ret, errno, what);
	slots[s].fd = -1;
	for (int m = 0; m < MAX_MAPS; m++)
		if (maps[m].addr && maps[m].slot == s)
			maps[m].slot = -1;
}

static void do_fcntl(int s)
{
	int fd = slot_fd(s), ret;
	char what[64];

	switch (rnd(3)) {
	case 0:
		snprintf(what, sizeof(what), "fcntl slot %d fd %d O_ASYNC", s, fd);
		vlog("%s", what);
		if (fcntl(fd, F_SETOWN, getpid()) < 0)
			break;
		ret = fcntl(fd, F_SETFL, chance(80) ? O_ASYNC | O_NONBLOCK : 0);
		note_result(C_OTHER, ret, errno, what);
		break;
	case 1: {
		static const int sigs[] = { 0, SIGIO, SIGUSR1 };
		int sig = chance(80) ? sigs[rnd(3)] : SIGRTMIN;

		snprintf(what, sizeof(what), "fcntl slot %d fd %d F_SETSIG %d", s, fd, sig);
		vlog("%s", what);
		ret = fcntl(fd, F_SETSIG, sig);
		note_result(C_OTHER, ret, errno, what);
		break;
	}
	default: {
		struct pollfd p = { .fd = fd, .events = POLLIN | POLLHUP };

		snprintf(what, sizeof(what), "poll slot %d fd %d", s, fd);
		vlog("%s", what);
		ret = poll(&p, 1, 0);
		note_result(C_OTHER, ret, errno, what);
		break;
	}
	}
}

static void do_migrate(void)
{
	cpu_set_t set;

	if (ncpu < 2)
		return;
	CPU_ZERO(&set);
	CPU_SET(rnd(ncpu), &set);
	vlog("migrate");
	if (!sched_setaffinity(0, sizeof(set), &set))
		STAT_INC(migrations);
}

static void allow_all_cpus(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	for (int c = 0; c < ncpu; c++)
		CPU_SET(c, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static void do_prctl(void)
{
	int op = chance(50) ? PR_TASK_PERF_EVENTS_ENABLE : PR_TASK_PERF_EVENTS_DISABLE;

	vlog("prctl %d", op);
	if (prctl(op, 0, 0, 0, 0))
		report(&st->bad_errno, "prctl(%d) failed: %s", op, strerror(errno));
}

/*
 * Wait for a child, at most bound_ms milliseconds; kill it past that.
 * Returns its status, or -1 if it had to be killed.
 */
static int wait_bounded(pid_t pid, int bound_ms)
{
	struct timespec ts = { 0, 1000000 };
	int status, ms;

	for (ms = 0; ms < bound_ms; ms++) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid)
			return status;
		if (r < 0 && errno != EINTR)
			return 0;
		nanosleep(&ts, NULL);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return -1;
}

static void run_ops(int nops);

/*
 * A child on the inherited events (and its own): operations, maybe an
 * exec of this program, then _exit. It must end by itself.
 */
static void do_fork(void)
{
	bool exec = chance(25);
	int status;
	pid_t pid;

	vlog("fork%s", exec ? " + exec" : "");
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		if (errno != EAGAIN && errno != ENOMEM)
			report(&st->bad_errno, "fork: %s", strerror(errno));
		return;
	}
	if (!pid) {
		in_child = true;
		alarm(CHILD_TIMEOUT);
		/* perf mappings are not inherited (VM_DONTCOPY); the events are */
		memset(maps, 0, sizeof(maps));
		for (int s = 0; s < NSLOT; s++)
			slots[s].self = false;
		run_ops(rnd(MAX_CHILD_OPS));
		if (exec) {
			/* ignored signals stay ignored across exec, handlers do not */
			signal(SIGIO, SIG_IGN);
			signal(SIGUSR1, SIG_IGN);
			signal(SIGRTMIN, SIG_IGN);
			/*
			 * A sigtrap event's signal sent just before the exec
			 * stays pending across it and would find SIG_DFL
			 * there; ignoring SIGTRAP drops it (sigtrap events
			 * are remove_on_exec, so no more come after).
			 */
			signal(SIGTRAP, SIG_IGN);
			execl(self_exe, "fuzz_pmu", EXEC_ARG, (char *)NULL);
			_exit(3);
		}
		_exit(0);
	}
	STAT_INC(forks);
	if (exec)
		STAT_INC(execs);
	status = wait_bounded(pid, (CHILD_TIMEOUT + 5) * 1000);
	if (status >= 0 && WIFEXITED(status) && !WEXITSTATUS(status)) {
		STAT_INC(children_ok);
		return;
	}
	if (status < 0)
		report(&st->bad_child, "child %d did not exit within %d s", pid, CHILD_TIMEOUT + 5);
	else if (WIFSIGNALED(status))
		report(&st->bad_child, "child %d killed by signal %d%s", pid, WTERMSIG(status),
		       WTERMSIG(status) == SIGALRM ? " (its time bound)" : "");
	else
		report(&st->bad_child, "child %d exit status %d", pid, WEXITSTATUS(status));
}

static void run_ops(int nops)
{
	for (int i = 0; i < nops; i++) {
		int s = pick_slot();

		switch (rnd(100)) {
		case 0 ... 13:
			do_open(chance(50) ? s : (int)rnd(NSLOT));
			break;
		case 14 ... 35:
			do_ioctl(s);
			break;
		case 36 ... 47:
			do_read(s);
			break;
		case 48 ... 53:
			do_mmap(s);
			break;
		case 54 ... 55:
			do_aux_mmap(spe_slot(s));
			break;
		case 56 ... 61:
			do_touch_map();
			break;
		case 62 ... 64:
			do_munmap();
			break;
		case 65 ... 69:
			do_close(s);
			break;
		case 70 ... 73:
			do_fcntl(s);
			break;
		case 74 ... 89:
			busy();
			break;
		case 90 ... 92:
			do_migrate();
			break;
		case 93 ... 94:
			do_prctl();
			break;
		default:
			if (!in_child)
				do_fork();
			else
				busy();
			break;
		}
	}
}

/* ---- The worker ---- */

static int sysctl_user_access = -1;	/* its value before the run */

static int read_int_file(const char *path)
{
	char buf[32];

	if (pmu_read_sysfs(path, buf, sizeof(buf)))
		return -1;
	return atoi(buf);
}

static void write_int_file(const char *path, int val)
{
	char buf[16];
	int fd = open(path, O_WRONLY);

	if (fd < 0)
		return;
	snprintf(buf, sizeof(buf), "%d\n", val);
	if (write(fd, buf, strlen(buf)) > 0)
		STAT_INC(sysctl_writes);
	close(fd);
}

/* A process that spins until killed, for events attached to another task */
static void start_victim(void)
{
	fflush(stdout);
	victim = fork();
	if (victim < 0) {
		victim = 0;
		return;
	}
	if (!victim) {
		alarm(CHILD_TIMEOUT);
		for (;;) {
			for (int i = 0; i < 10000; i++)
				keep(sink + i);
			sched_yield();
		}
	}
	STAT_INC(victims);
}

static void stop_victim(void)
{
	int status;

	if (victim <= 0)
		return;
	kill(victim, SIGKILL);
	status = wait_bounded(victim, (CHILD_TIMEOUT + 5) * 1000);
	if (status < 0 || !WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL)
		report(&st->bad_child, "victim %d: status %d", victim, status);
	victim = 0;
}

static void run_iteration(uint64_t iter)
{
	cur_iter = iter;
	__atomic_store_n(&st->iteration, iter, __ATOMIC_RELAXED);
	rng_seed_iteration(seed, iter);
	for (int s = 0; s < NSLOT; s++)
		slots[s] = (struct slot){ .fd = -1 };

	/* Between iterations only: a reader may lose access when it flips */
	if (is_root && sysctl_user_access >= 0 && chance(12)) {
		int v = chance(70);

		vlog("perf_user_access = %d", v);
		write_int_file("/proc/sys/kernel/perf_user_access", v);
	}
	if (chance(20))
		start_victim();

	ntried = 0;
	memset(slot_gen, 0, sizeof(slot_gen));
	for (int i = 2 + rnd(6); i > 0; i--)
		do_open(rnd(NSLOT));
	run_ops(rnd(MAX_OPS));

	/* What the events wrote while the iteration ran */
	for (int m = 0; m < MAX_MAPS; m++)
		if (maps[m].addr)
			touch_map(&maps[m]);
	unmap_all();
	for (int s = 0; s < NSLOT; s++)
		if (slots[s].fd >= 0)
			close(slots[s].fd);
	stop_victim();
	allow_all_cpus();
}

static int worker(uint64_t first, uint64_t n)
{
	setpgid(0, 0);
	install_handlers();
	sysctl_user_access = read_int_file("/proc/sys/kernel/perf_user_access");
	for (uint64_t i = first; i < first + n; i++)
		run_iteration(i);
	if (is_root && sysctl_user_access >= 0)
		write_int_file("/proc/sys/kernel/perf_user_access", sysctl_user_access);
	return 0;
}

/* ---- The supervisor ---- */

static void print_hist(enum op_class c)
{
	char line[1024];
	int len;

	len = snprintf(line, sizeof(line), "# %s: %" PRIu64 " calls, ok %" PRIu64,
		       class_name[c], st->calls[c], st->errno_hist[c][0]);
	for (int e = 1; e <= MAX_ERRNO && len < (int)sizeof(line) - 32; e++) {
		if (!st->errno_hist[c][e])
			continue;
		len += snprintf(line + len, sizeof(line) - len, " %s %" PRIu64,
				e == MAX_ERRNO ? "other" : strerrorname_np(e) ?: "?",
				st->errno_hist[c][e]);
	}
	printf("%s\n", line);
}

static void print_usage(void)
{
	fprintf(stderr, "usage: fuzz_pmu [-s SEED] [-n ITERATIONS] [-i ITERATION] [-t SECONDS]\n"
			"                [-p MIN_PERIOD] [-v]\n");
	exit(KSFT_FAIL);
}

int main(int argc, char **argv)
{
	uint64_t n = DEFAULT_ITERATIONS, first = 0;
	struct timespec t0, t1;
	bool finished = false;
	int timeout = DEFAULT_TIMEOUT, status = 0, opt;
	double secs;
	pid_t pid;

	/* This program again, exec'ed by a child: count a little, then go */
	if (argc == 2 && !strcmp(argv[1], EXEC_ARG)) {
		for (int i = 0; i < 10000; i++)
			keep(sink + i);
		_exit(0);
	}

	seed = DEFAULT_SEED;
	while ((opt = getopt(argc, argv, "s:n:i:t:p:v")) != -1) {
		switch (opt) {
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'n':
			n = strtoull(optarg, NULL, 0);
			break;
		case 'i':
			first = strtoull(optarg, NULL, 0);
			n = 1;
			break;
		case 't':
			timeout = atoi(optarg);
			break;
		case 'p':
			min_period = strtoull(optarg, NULL, 0);
			break;
		case 'v':
			verbose = true;
			break;
		default:
			print_usage();
		}
	}

	setvbuf(stdout, NULL, _IOLBF, 0);
	ksft_print_header();
	ksft_set_plan(8);
	st = mmap(NULL, sizeof(*st), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (st == MAP_FAILED)
		ksft_exit_fail_msg("mmap: %s\n", strerror(errno));
	page_size = sysconf(_SC_PAGESIZE);
	ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	if (ncpu < 1)
		ncpu = 1;
	is_root = geteuid() == 0;
	if (access(self_exe, X_OK))
		self_exe = argv[0];
	{
		int rate = read_int_file("/proc/sys/kernel/perf_event_max_sample_rate");

		if (rate > 0)
			max_sample_rate = rate;
	}
	find_targets();
	find_spe();
	find_advertised();

	printf("# seed %" PRIu64 " iterations %" PRIu64 "\n", seed, n);
	if (first)
		printf("# replaying from iteration %" PRIu64 "\n", first);
	printf("# %d CPUs, page %ld, max sample rate %" PRIu64
	       ", root %d, our PMU %s type %u, %d events\n",
	       ncpu, page_size, max_sample_rate, is_root,
	       have_our_pmu ? our_pmu.name : "(none)", have_our_pmu ? our_pmu.type : 0,
	       nadvertised);
	for (int t = 0; t < ntargets; t++)
		printf("# target %s type %u\n", targets[t].name, targets[t].type);

	clock_gettime(CLOCK_MONOTONIC, &t0);
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		ksft_exit_fail_msg("fork: %s\n", strerror(errno));
	if (!pid)
		_exit(worker(first, n));

	/* Bounded wait: a system call that never returns is a finding */
	for (;;) {
		struct timespec ts = { 0, 10000000 };
		pid_t r = waitpid(pid, &status, WNOHANG);

		clock_gettime(CLOCK_MONOTONIC, &t1);
		secs = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
		if (r == pid) {
			finished = WIFEXITED(status) && !WEXITSTATUS(status);
			if (!finished)
				ksft_print_msg("worker ended: status %#x (signal %d), iteration %"
					       PRIu64 ", last: %s\n",
					       status, WIFSIGNALED(status) ? WTERMSIG(status) : 0,
					       st->iteration, st->last_op);
			break;
		}
		if (secs > timeout) {
			ksft_print_msg("worker still running after %d s, in iteration %" PRIu64
				       ", last: %s\n",
				       timeout, st->iteration, st->last_op);
			ksft_print_msg("replay: fuzz_pmu -s %" PRIu64 " -i %" PRIu64 " -v\n",
				       seed, st->iteration);
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			for (int i = 0; i < 500 && waitpid(pid, &status, WNOHANG) != pid; i++)
				nanosleep(&ts, NULL);
			break;
		}
		nanosleep(&ts, NULL);
	}

	printf("# %" PRIu64 " iterations in %.1f s: %.1f/s\n", finished ? n : st->iteration - first,
	       secs, (finished ? n : st->iteration - first) / (secs > 0 ? secs : 1));
	for (int c = 0; c < C_NR; c++)
		print_hist(c);
	printf("# opens on our PMU %" PRIu64 " (%" PRIu64 " with a branch stack)",
	       st->open_ours, st->open_branch);
	printf(", ioctls ok %" PRIu64 ", reads ok %" PRIu64 ", mmaps ok %" PRIu64 "\n",
	       st->ioctl_ok, st->read_ok, st->mmap_ok);
	printf("# SPE events opened %" PRIu64 " (%d formats), AUX areas mapped %" PRIu64
	       " (%" PRIu64 " snapshot)\n",
	       st->open_spe, nspe_formats, st->aux_mmap_ok, st->aux_snapshot_ok);
	printf("# forks %" PRIu64 " (execs %" PRIu64 ", exited cleanly %" PRIu64
	       "), victims %" PRIu64 ", migrations %" PRIu64
	       ", perf_user_access writes %" PRIu64 "\n",
	       st->forks, st->execs, st->children_ok, st->victims, st->migrations,
	       st->sysctl_writes);
	printf("# user pages %" PRIu64 ", user reads %" PRIu64 " (ok %" PRIu64 ", trapped %" PRIu64
	       "), ring walks %" PRIu64 " (%" PRIu64
	       " records), busy loops %" PRIu64 ", SIGIO %" PRIu64
	       ", SIGTRAP %" PRIu64 "\n",
	       st->user_pages, st->user_reads, st->user_read_ok, st->user_read_traps,
	       st->ring_walks, st->ring_records,
	       st->busy_loops, st->sigio, st->sigtrap);

	pmu_result(!st->bad_open && st->calls[C_OPEN], "fuzz_open_returns_sane");
	pmu_result(!st->bad_errno, "fuzz_no_unexpected_errno");
	pmu_result(!st->bad_child && (n < 20 || st->forks), "fuzz_children_all_exit");
	pmu_result(!st->bad_read && !st->bad_ring && !st->bad_page,
		   "fuzz_read_ring_user_page_sane");
	if (!have_our_pmu)
		pmu_skip("fuzz_reached_our_pmu", "no PMU with format/long");
	else if (n < 20)
		pmu_skip("fuzz_reached_our_pmu", "fewer than 20 iterations: not enough to tell");
	else
		pmu_result(st->open_ours && st->read_ok && st->mmap_ok && st->ioctl_ok,
			   "fuzz_reached_our_pmu");
	if (!have_branch_stack)
		pmu_skip("fuzz_reached_branch_stack",
			 "our PMU opens no branch-stack event (no BRBE)");
	else if (n < 20)
		pmu_skip("fuzz_reached_branch_stack",
			 "fewer than 20 iterations: not enough to tell");
	else
		pmu_result(st->open_branch, "fuzz_reached_branch_stack");
	if (!have_spe)
		pmu_skip("fuzz_reached_spe", "no arm_spe_N PMU with formats (no FEAT_SPE)");
	else if (n < 20)
		pmu_skip("fuzz_reached_spe", "fewer than 20 iterations: not enough to tell");
	else
		pmu_result(st->open_spe && st->aux_mmap_ok && st->aux_snapshot_ok,
			   "fuzz_reached_spe");
	pmu_result(finished, "fuzz_run_finished");
	ksft_finished();
}
