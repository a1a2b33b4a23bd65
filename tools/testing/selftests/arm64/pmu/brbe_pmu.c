// SPDX-License-Identifier: GPL-2.0
/*
 * Branch stack sampling (FEAT_BRBE) through perf_event_open: exact
 * records of a known branch sequence, the branch type filters, two events
 * of different privilege filters sharing the buffer, two tasks sharing
 * the CPU, and the errno of each refused branch_sample_type.
 *
 * brbe_seq() (assembly below) runs the same seven taken branches per
 * iteration, each after a different number of instructions since the
 * previous one (1 to 7), so a record says by its addresses, its type and
 * its cycle count (instructions since the previous record under
 * -icount shift=0) which branch it is. A sample's records, newest first,
 * must be consecutive branches of that sequence, going backwards.
 *
 * Run on a CPU with BRBE (our QEMU's -cpu max, VHE): with no BRBE,
 * perf_event_open must refuse branch stacks with EOPNOTSUPP, and every
 * other check is skipped.
 */
#include <sched.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "pmu_lib.h"
#include "brbe_seq.h"
#include "brbe_gap.h"

/* The libc headers may predate the 6.8 ABI's branch counters */
#ifndef PERF_SAMPLE_BRANCH_COUNTERS
#define PERF_SAMPLE_BRANCH_COUNTERS	(1U << 19)
#endif
/* The first bit past the 6.12 ABI's */
#define BRANCH_UNKNOWN_BIT		(1ULL << 20)

#define SEQ_ITERS	100000UL
#define PERIOD		100003ULL
#define SEED_PERIOD	10007ULL
#define DATA_PAGES	64
#define MAX_RECORDS	64
#define MAX_SAMPLES	128


struct sample {
	uint64_t ip;
	uint64_t nr, hw_idx;
	struct perf_branch_entry br[MAX_RECORDS];
};

struct run {
	unsigned int nr_samples, nr_lost, nr_bad, switches;
	struct sample samples[MAX_SAMPLES];
};

static void ring_copy(const char *data, size_t size, uint64_t off, void *dst, size_t len)
{
	size_t start = off % size, first = len;

	if (first > size - start)
		first = size - start;
	memcpy(dst, data + start, first);
	memcpy((char *)dst + first, data, len - first);
}

/* Samples of sample_type IP | BRANCH_STACK, with hw_idx if HW_INDEX */
static void parse_ring(struct perf_event_mmap_page *pg, size_t data_size, bool hw_index,
		       struct run *run)
{
	const char *data = (const char *)pg + pg->data_offset;
	uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = pg->data_tail;

	while (tail < head) {
		struct perf_event_header hdr;
		uint64_t off = tail + sizeof(hdr);
		struct sample *s;

		ring_copy(data, data_size, tail, &hdr, sizeof(hdr));
		if (hdr.size < sizeof(hdr))
			break;
		if (hdr.type == PERF_RECORD_LOST)
			run->nr_lost++;
		if (hdr.type != PERF_RECORD_SAMPLE || run->nr_samples >= MAX_SAMPLES) {
			tail += hdr.size;
			continue;
		}
		s = &run->samples[run->nr_samples];
		memset(s, 0, sizeof(*s));
		ring_copy(data, data_size, off, &s->ip, 8);
		ring_copy(data, data_size, off + 8, &s->nr, 8);
		off += 16;
		if (hw_index) {
			ring_copy(data, data_size, off, &s->hw_idx, 8);
			off += 8;
		}
		if (s->nr > MAX_RECORDS) {
			run->nr_bad++;
		} else {
			ring_copy(data, data_size, off, s->br, s->nr * sizeof(s->br[0]));
			run->nr_samples++;
		}
		tail += hdr.size;
	}
	__atomic_store_n(&pg->data_tail, tail, __ATOMIC_RELEASE);
}

struct brbe_event {
	int fd;
	void *ring;
	size_t len;
	bool hw_index;
};

static int event_open(struct brbe_event *ev, uint64_t config, bool user, bool kernel,
		      uint64_t period, uint64_t bst)
{
	size_t page = sysconf(_SC_PAGESIZE);
	struct perf_event_attr attr;

	memset(ev, 0, sizeof(*ev));
	pmu_attr_user(&attr, PERF_TYPE_HARDWARE, config);
	attr.exclude_user = !user;
	attr.exclude_kernel = !kernel;
	attr.sample_period = period;
	attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_BRANCH_STACK;
	attr.branch_sample_type = bst;
	ev->hw_index = bst & PERF_SAMPLE_BRANCH_HW_INDEX;
	ev->fd = pmu_open(&attr, -1);
	if (ev->fd < 0)
		return ev->fd;
	ev->len = (DATA_PAGES + 1) * page;
	ev->ring = mmap(NULL, ev->len, PROT_READ | PROT_WRITE, MAP_SHARED, ev->fd, 0);
	if (ev->ring == MAP_FAILED) {
		close(ev->fd);
		return -errno;
	}
	return 0;
}

static void event_collect(struct brbe_event *ev, struct run *run)
{
	memset(run, 0, sizeof(*run));
	parse_ring(ev->ring, ev->len - sysconf(_SC_PAGESIZE), ev->hw_index, run);
	munmap(ev->ring, ev->len);
	close(ev->fd);
}

/* Context switches of this thread so far */
static long thread_switches(void)
{
	struct rusage ru;

	getrusage(RUSAGE_THREAD, &ru);
	return ru.ru_nvcsw + ru.ru_nivcsw;
}

/* Run brbe_seq under one user-only cycles event of branch_sample_type bst */
static int sample_seq(uint64_t bst, struct run *run)
{
	struct brbe_event ev;
	long switches;
	int err;

	err = event_open(&ev, PERF_COUNT_HW_CPU_CYCLES, true, false, PERIOD, bst);
	if (err)
		return err;
	switches = thread_switches();
	ioctl(ev.fd, PERF_EVENT_IOC_ENABLE, 0);
	brbe_seq(SEQ_ITERS);
	ioctl(ev.fd, PERF_EVENT_IOC_DISABLE, 0);
	switches = thread_switches() - switches;
	event_collect(&ev, run);
	run->switches = switches;
	return 0;
}

static unsigned int numrec;

static void report_record(const char *name, unsigned int i, unsigned int j,
			  const struct perf_branch_entry *br, const char *why)
{
	uint64_t f = BR_FLAGS(br);

	ksft_print_msg("%s: sample %u record %u: 0x%llx -> 0x%llx type %u priv %u cycles %u: %s\n",
		       name, i, j, br->from, br->to, (unsigned int)BR_TYPE(f),
		       (unsigned int)BR_PRIV(f), (unsigned int)BR_CYCLES(f), why);
}

/*
 * An interrupt taken from user space, as -j any,u records it, newest
 * first: its return (target only: the kernel is not recorded) and its
 * exception (source only).
 */
static bool interrupt_at(const struct perf_branch_entry *br, unsigned int left)
{
	return left >= 2 && !br[0].from && br[0].to &&
	       BR_TYPE(BR_FLAGS(&br[0])) == PERF_BR_ERET && br[1].from && !br[1].to;
}

/*
 * Every sample: numrec records, each a branch of the sequence the filter
 * selects with its type, user privilege and cycle count, in order.
 * A timer interrupt between two branches adds its instructions to the
 * later one's count: one record per sample may count more than expected.
 * Under -j any,u the interrupt is recorded instead (interrupt_at()), once
 * per sample at most, and the branch after it counts from its return.
 * A context switch empties the buffer (no record crosses tasks): each one
 * of this thread may leave one sample with fewer records, all still exact.
 */
static bool check_seq_samples(const char *name, uint64_t bst, const struct run *run)
{
	bool any = bst & PERF_SAMPLE_BRANCH_ANY;
	unsigned int i, j, bad = 0, fulls = 0;

	for (i = 0; i < run->nr_samples; i++) {
		const struct sample *s = &run->samples[i];
		int k, prev = -1, longer = 0;
		bool interrupted = false;

		if (s->nr == numrec)
			fulls++;
		for (j = 0; j < s->nr; j++) {
			const struct perf_branch_entry *br = &s->br[j];
			uint64_t f = BR_FLAGS(br);
			bool after_irq = any && interrupt_at(br + 1, s->nr - j - 1);

			if (any && !interrupted && interrupt_at(br, s->nr - j)) {
				interrupted = true;
				j++;
				continue;
			}
			k = seq_find(br);
			if (k < 0 || (prev >= 0 && k != seq_prev(prev, bst)) ||
			    BR_TYPE(f) != seq[k].type || BR_PRIV(f) != PERF_BR_PRIV_USER ||
			    (!any && !(seq[k].sel & bst))) {
				if (bad++ < 4)
					report_record(name, i, j, br, k < 0 ?
						      "not in the sequence" :
						      "out of order or wrong type");
				break;
			}
			if (any) {
				/* only ANY records every branch: counts are exact */
				if (BR_CYCLES(f) != seq[k].cycles &&
				    !(after_irq && BR_CYCLES(f) < seq[k].cycles) &&
				    (BR_CYCLES(f) < seq[k].cycles || longer++)) {
					if (bad++ < 4)
						report_record(name, i, j, br,
							      "wrong cycle count");
				}
			}
			prev = k;
		}
		/*
		 * The overflow froze the buffer: the sampled instruction lies
		 * between the newest record's target and the next branch.
		 */
		k = s->nr ? seq_find(&s->br[0]) : -1;
		if (any && k >= 0 &&
		    (s->ip < s->br[0].to || s->ip > seq[(k + 1) % NSEQ].from)) {
			if (bad++ < 4)
				ksft_print_msg("%s: sample %u at 0x%llx, newest record to 0x%llx\n",
					       name, i, (unsigned long long)s->ip,
					       (unsigned long long)s->br[0].to);
		}
		if ((bst & PERF_SAMPLE_BRANCH_HW_INDEX) && s->nr && s->hw_idx != 0) {
			if (bad++ < 4)
				ksft_print_msg("%s: sample %u hw_idx %llu\n", name, i,
					       (unsigned long long)s->hw_idx);
		}
	}
	ksft_print_msg("%s: %u samples, %u with %u records, %u switches, %u lost, %u bad\n",
		       name, run->nr_samples, fulls, numrec, run->switches, run->nr_lost, bad);
	return run->nr_samples >= 20 && fulls + run->switches >= run->nr_samples &&
	       !bad && !run->nr_lost;
}

static void test_any_user(void)
{
	static struct run run;
	uint64_t bst = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER |
		       PERF_SAMPLE_BRANCH_TYPE_SAVE | PERF_SAMPLE_BRANCH_PRIV_SAVE |
		       PERF_SAMPLE_BRANCH_HW_INDEX;
	int err = sample_seq(bst, &run);

	if (err)
		ksft_print_msg("perf_event_open: %s\n", strerror(-err));
	pmu_result(!err && check_seq_samples("any,u", bst, &run), "brbe_any_u_exact_records");
}

/*
 * Our QEMU's static branch predictor (harness/qemu/README.md, BRBE): a
 * taken conditional branch is mispredicted when it goes forward, an
 * indirect branch (BR, BLR) always; B, BL and RET are predicted.
 */
static bool seq_mispredicted(int k)
{
	switch (seq[k].type) {
	case PERF_BR_IND:
	case PERF_BR_IND_CALL:
		return true;
	case PERF_BR_COND:
		return seq[k].to > seq[k].from;
	default:
		return false;
	}
}

/*
 * -j any,u with cycles and flags: every record of the sequence carries a
 * cycle count, and exactly the misprediction the predictor gives its
 * branch (BLR and BR mispredicted, the backward CBNZ and the rest
 * predicted). A VHE host gets them only if BRBCR_EL12 allows CC and
 * MPRED as BRBCR_EL2 does (the Arm ARM's BRBCycleCountingEnabled() and
 * BRBEMispredictAllowed() read BRBCR_EL1 at every level).
 */
static void test_cycles_mispred(void)
{
	static struct run run;
	uint64_t bst = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER |
		       PERF_SAMPLE_BRANCH_TYPE_SAVE;
	unsigned int i, j, recs = 0, zero = 0, wrong = 0, mispred = 0;
	int err = sample_seq(bst, &run);

	if (err)
		ksft_print_msg("perf_event_open: %s\n", strerror(-err));
	for (i = 0; !err && i < run.nr_samples; i++) {
		const struct sample *s = &run.samples[i];

		for (j = 0; j < s->nr; j++) {
			const struct perf_branch_entry *br = &s->br[j];
			uint64_t f = BR_FLAGS(br);
			int k = seq_find(br);
			bool want;

			if (k < 0)
				continue;
			want = seq_mispredicted(k);
			recs++;
			mispred += want;
			if (!BR_CYCLES(f) && zero++ < 4)
				report_record("cycles", i, j, br, "no cycle count");
			if ((BR_MISPRED(f) != want || BR_PREDICTED(f) != !want) &&
			    wrong++ < 4)
				report_record("mispred", i, j, br, want ?
					      "not flagged mispredicted" :
					      "not flagged predicted");
		}
	}
	ksft_print_msg("cycles/mispred: %u samples, %u records: %u mispred, %u no cycles, %u bad\n",
		       run.nr_samples, recs, mispred, zero, wrong);
	pmu_result(!err && run.nr_samples >= 20 && recs && !zero,
		   "brbe_any_u_cycles_nonzero");
	pmu_result(!err && run.nr_samples >= 20 && mispred && mispred < recs && !wrong,
		   "brbe_any_u_mispred_exact");
}

static const struct {
	const char *name;
	uint64_t filter;
} type_filters[] = {
	{ "cond", PERF_SAMPLE_BRANCH_COND },
	{ "call", PERF_SAMPLE_BRANCH_CALL },
	{ "ind_call", PERF_SAMPLE_BRANCH_IND_CALL },
	{ "any_call", PERF_SAMPLE_BRANCH_ANY_CALL },
	{ "any_ret", PERF_SAMPLE_BRANCH_ANY_RETURN },
	{ "ind_jump", PERF_SAMPLE_BRANCH_IND_JUMP },
	{ "call_cond", PERF_SAMPLE_BRANCH_CALL | PERF_SAMPLE_BRANCH_COND },
	{ "any_call_any_ret", PERF_SAMPLE_BRANCH_ANY_CALL | PERF_SAMPLE_BRANCH_ANY_RETURN },
};

static void test_type_filters(void)
{
	static struct run run;
	char name[64];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(type_filters); i++) {
		uint64_t bst = type_filters[i].filter | PERF_SAMPLE_BRANCH_USER |
			       PERF_SAMPLE_BRANCH_TYPE_SAVE | PERF_SAMPLE_BRANCH_PRIV_SAVE;
		int err = sample_seq(bst, &run);

		snprintf(name, sizeof(name), "brbe_filter_%s_u_exact_records",
			 type_filters[i].name);
		pmu_result(!err && check_seq_samples(type_filters[i].name, bst, &run), name);
	}
}

static bool kernel_addr(uint64_t a)
{
	return a & (1ULL << 55);
}

/* Samples with records, and how many hold an address of the other kind */
static void count_privs(const struct run *run, unsigned int *with, unsigned int *user,
			unsigned int *kernel)
{
	unsigned int i, j;

	*with = *user = *kernel = 0;
	for (i = 0; i < run->nr_samples; i++) {
		const struct sample *s = &run->samples[i];
		bool u = false, k = false;

		for (j = 0; j < s->nr; j++) {
			uint64_t a[2] = { s->br[j].from, s->br[j].to };
			int n;

			for (n = 0; n < 2; n++) {
				if (!a[n])
					continue;
				if (kernel_addr(a[n]))
					k = true;
				else
					u = true;
			}
		}
		*with += s->nr > 0;
		*user += u;
		*kernel += k;
	}
}

/*
 * perf record -e cycles:u -e instructions:k -j any,save_type: the buffer
 * records both levels for the two events, and each gets only its own.
 * The privilege bits are left to the core, which takes them from the
 * events' exclude bits. An instructions:k overflow at the end of a system
 * call, with interrupts masked, may be taken (and freeze the buffer) only
 * after the return to user space, once user branches have filled the
 * buffer: such a sample has no record left for the event (a third of
 * them under QEMU), so at least half of its samples must have records,
 * and none a user address.
 */
static void test_seed_case(void)
{
	static struct run cyc, ins;
	uint64_t bst = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_TYPE_SAVE;
	struct brbe_event ec, ei;
	unsigned int cw, cu, ck, iw, iu, ik;
	unsigned long i;
	int err;

	err = event_open(&ec, PERF_COUNT_HW_CPU_CYCLES, true, false, SEED_PERIOD, bst);
	if (!err) {
		err = event_open(&ei, PERF_COUNT_HW_INSTRUCTIONS, false, true, SEED_PERIOD, bst);
		if (err)
			event_collect(&ec, &cyc);
	}
	if (err) {
		ksft_print_msg("perf_event_open: %s\n", strerror(-err));
		pmu_result(false, "brbe_cycles_u_instructions_k_own_records");
		return;
	}
	ioctl(ec.fd, PERF_EVENT_IOC_ENABLE, 0);
	ioctl(ei.fd, PERF_EVENT_IOC_ENABLE, 0);
	for (i = 0; i < 2000; i++) {
		brbe_seq(200);
		getppid();
	}
	ioctl(ei.fd, PERF_EVENT_IOC_DISABLE, 0);
	ioctl(ec.fd, PERF_EVENT_IOC_DISABLE, 0);
	event_collect(&ec, &cyc);
	event_collect(&ei, &ins);
	count_privs(&cyc, &cw, &cu, &ck);
	count_privs(&ins, &iw, &iu, &ik);
	ksft_print_msg("cycles:u: %u samples, %u with records: %u user, %u kernel addrs\n",
		       cyc.nr_samples, cw, cu, ck);
	ksft_print_msg("instructions:k: %u samples, %u with records: %u user, %u kernel addrs\n",
		       ins.nr_samples, iw, iu, ik);
	pmu_result(cyc.nr_samples >= 5 && cw == cyc.nr_samples && cu == cw && !ck &&
		   ins.nr_samples >= 5 && iw * 2 >= ins.nr_samples && ik == iw && !iu,
		   "brbe_cycles_u_instructions_k_own_records");
}

static bool in_range(uint64_t a, const void *lo, const void *hi)
{
	return a >= (uintptr_t)lo && a < (uintptr_t)hi;
}

/* Samples of one task: with records of its own sequence, with the other's */
static void count_owners(const struct run *run, const void *own, const void *own_end,
			 const void *other, const void *other_end, unsigned int *mine,
			 unsigned int *theirs)
{
	unsigned int i, j;

	*mine = *theirs = 0;
	for (i = 0; i < run->nr_samples; i++) {
		const struct sample *s = &run->samples[i];
		bool m = false, t = false;

		for (j = 0; j < s->nr; j++) {
			m |= in_range(s->br[j].from, own, own_end);
			t |= in_range(s->br[j].from, other, other_end) ||
			     in_range(s->br[j].to, other, other_end);
		}
		*mine += m;
		*theirs += t;
	}
}

static void run_task(void (*fn)(unsigned long), struct run *run, bool *ok)
{
	struct brbe_event ev;
	unsigned long i;

	*ok = !event_open(&ev, PERF_COUNT_HW_CPU_CYCLES, true, false, PERIOD,
			  PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER);
	if (!*ok)
		return;
	ioctl(ev.fd, PERF_EVENT_IOC_ENABLE, 0);
	for (i = 0; i < 400; i++) {
		fn(500);
		sched_yield();
	}
	ioctl(ev.fd, PERF_EVENT_IOC_DISABLE, 0);
	event_collect(&ev, run);
}

/*
 * Two tasks take turns on one CPU (sched_yield), each with its own branch
 * event: neither ever gets a record of the other's sequence. A sample
 * taken just after a switch may hold no record of its own sequence yet
 * (the switch emptied the buffer): 90% of them must.
 */
static bool owners_ok(const struct run *run, unsigned int mine, unsigned int theirs)
{
	return run->nr_samples >= 10 && mine * 10 >= run->nr_samples * 9 && !theirs;
}

static void test_two_tasks(void)
{
	static struct run run;
	unsigned int mine, theirs;
	cpu_set_t cpus;
	int status;
	bool ok;
	pid_t pid;

	CPU_ZERO(&cpus);
	CPU_SET(0, &cpus);
	sched_setaffinity(0, sizeof(cpus), &cpus);
	pid = fork();
	if (pid == 0) {
		run_task(brbe_seq2, &run, &ok);
		count_owners(&run, brbe_seq2, brbe_seq2_end, brbe_seq, brbe_seq_end,
			     &mine, &theirs);
		ksft_print_msg("task 2: %u samples, %u with its records, %u with the other's\n",
			       run.nr_samples, mine, theirs);
		_exit(ok && owners_ok(&run, mine, theirs) ? 0 : 1);
	}
	run_task(brbe_seq, &run, &ok);
	count_owners(&run, brbe_seq, brbe_seq_end, brbe_seq2, brbe_seq2_end, &mine, &theirs);
	ksft_print_msg("task 1: %u samples, %u with its records, %u with the other's\n",
		       run.nr_samples, mine, theirs);
	waitpid(pid, &status, 0);
	pmu_result(ok && owners_ok(&run, mine, theirs) && WIFEXITED(status) && !WEXITSTATUS(status),
		   "brbe_two_tasks_never_see_each_other");
}

static int open_errno(uint64_t bst)
{
	struct perf_event_attr attr;
	int fd;

	pmu_attr_user(&attr, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	attr.sample_period = PERIOD;
	attr.sample_type = PERF_SAMPLE_BRANCH_STACK;
	attr.branch_sample_type = bst;
	fd = pmu_open(&attr, -1);
	if (fd >= 0) {
		close(fd);
		return 0;
	}
	return fd;
}

static const struct {
	const char *name;
	uint64_t bits;
	int err;
} refusals[] = {
	{ "call_stack", PERF_SAMPLE_BRANCH_CALL_STACK, -EOPNOTSUPP },
	{ "abort_tx", PERF_SAMPLE_BRANCH_ABORT_TX, -EOPNOTSUPP },
	{ "in_tx", PERF_SAMPLE_BRANCH_IN_TX, -EOPNOTSUPP },
	{ "no_tx", PERF_SAMPLE_BRANCH_NO_TX, -EOPNOTSUPP },
	{ "counters", PERF_SAMPLE_BRANCH_COUNTERS, -EOPNOTSUPP },
	/* the core refuses bits past the ABI's */
	{ "unknown_bit", BRANCH_UNKNOWN_BIT, -EINVAL },
	/* and the neighbours open */
	{ "any_u", 0, 0 },
	{ "any_u_save_type_hw_index", PERF_SAMPLE_BRANCH_TYPE_SAVE | PERF_SAMPLE_BRANCH_HW_INDEX |
	  PERF_SAMPLE_BRANCH_PRIV_SAVE | PERF_SAMPLE_BRANCH_NO_FLAGS |
	  PERF_SAMPLE_BRANCH_NO_CYCLES, 0 },
};

static void test_refusals(void)
{
	char name[64];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(refusals); i++) {
		int err = open_errno(PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER |
				     refusals[i].bits);

		if (err != refusals[i].err)
			ksft_print_msg("%s: %s, expected %s\n", refusals[i].name, strerror(-err),
				       strerror(-refusals[i].err));
		snprintf(name, sizeof(name), "brbe_errno_%s", refusals[i].name);
		pmu_result(err == refusals[i].err, name);
	}
}

/*
 * The branch ABI as mainline defines it: an event with no branch type
 * bit would record nothing, and a guest-only event's samples taken in a
 * guest would carry the host's branches; both are refused.
 */
static int open_errno_excl(uint64_t bst, bool exclude_host)
{
	struct perf_event_attr attr;
	int fd;

	pmu_attr_user(&attr, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	attr.exclude_host = exclude_host;
	attr.sample_period = PERIOD;
	attr.sample_type = PERF_SAMPLE_BRANCH_STACK;
	attr.branch_sample_type = bst;
	fd = pmu_open(&attr, -1);
	if (fd >= 0) {
		close(fd);
		return 0;
	}
	return fd;
}

static const struct {
	const char *name;
	uint64_t bst;
	bool exclude_host;
	int err;
} abi_refusals[] = {
	{ "no_branch_type", PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_NO_CYCLES, false,
	  -EOPNOTSUPP },
	{ "guest_only", PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER, true, -EOPNOTSUPP },
	/* the neighbours of each open */
	{ "cond_only", PERF_SAMPLE_BRANCH_COND | PERF_SAMPLE_BRANCH_USER, false, 0 },
	{ "host_any_u", PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER, false, 0 },
};

static void test_abi_refusals(void)
{
	char name[64];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(abi_refusals); i++) {
		int err = open_errno_excl(abi_refusals[i].bst, abi_refusals[i].exclude_host);

		if (err != abi_refusals[i].err)
			ksft_print_msg("%s: %s, expected %s\n", abi_refusals[i].name,
				       strerror(-err), strerror(-abi_refusals[i].err));
		snprintf(name, sizeof(name), "brbe_errno_%s", abi_refusals[i].name);
		pmu_result(err == abi_refusals[i].err, name);
	}
}

#define GAP_PERIOD	100003ULL
#define GAP_ITERS	1000UL

/* Samples as parse_ring() gives them, with the throttling records seen */
static void parse_gap_ring(struct perf_event_mmap_page *pg, size_t data_size,
			   struct run *run, bool *after_throttle)
{
	const char *data = (const char *)pg + pg->data_offset;
	uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = pg->data_tail;
	bool throttled = false;

	while (tail < head && run->nr_samples < MAX_SAMPLES) {
		struct perf_event_header hdr;
		struct sample *s = &run->samples[run->nr_samples];

		ring_copy(data, data_size, tail, &hdr, sizeof(hdr));
		if (hdr.size < sizeof(hdr))
			break;
		if (hdr.type == PERF_RECORD_THROTTLE || hdr.type == PERF_RECORD_UNTHROTTLE)
			throttled = true;
		if (hdr.type == PERF_RECORD_LOST)
			run->nr_lost++;
		if (hdr.type == PERF_RECORD_SAMPLE) {
			ring_copy(data, data_size, tail + sizeof(hdr), &s->ip, 8);
			ring_copy(data, data_size, tail + sizeof(hdr) + 8, &s->nr, 8);
			if (s->nr > MAX_RECORDS) {
				run->nr_bad++;
			} else {
				ring_copy(data, data_size, tail + sizeof(hdr) + 16, s->br,
					  s->nr * sizeof(s->br[0]));
				after_throttle[run->nr_samples++] = throttled;
				throttled = false;
			}
		}
		tail += hdr.size;
	}
}

/* The loop's branches in a sample; *crossed if any is older than the return to @prev_ip */
static unsigned int gap_records(const struct sample *s, uint64_t prev_ip, bool *crossed)
{
	unsigned int j, n = 0;
	bool returned = false;

	*crossed = false;
	for (j = 0; j < s->nr; j++) {
		const struct perf_branch_entry *br = &s->br[j];

		if (br->from == (uintptr_t)gap_loop_br) {
			n++;
			*crossed |= returned;
		}
		/* the return from the previous overflow interrupt, if recorded */
		if (!br->from && br->to == prev_ip &&
		    BR_TYPE(BR_FLAGS(br)) == PERF_BR_ERET)
			returned = true;
	}
	return n;
}

/*
 * Records are not carried across an overflow: the buffer restarts empty
 * after each interrupt. instructions:u samples gap_loop() every
 * GAP_PERIOD user instructions, -j any,u: between two overflows the loop
 * branches GAP_PERIOD / GAP_INSNS times (10 or 11), so each sample after
 * the first holds that many loop records, not the buffer's numrec; the
 * return from the previous interrupt, if recorded, is the oldest record
 * (no stack crosses the interrupt); and over the run no more loop records
 * are given than the loop branched (no record is in two samples). A
 * sample after perf throttled the event may hold what the buffer recorded
 * while it was stopped, and is not counted.
 */
static void test_no_carry_over(void)
{
	static struct run run;
	static bool after_throttle[MAX_SAMPLES];
	const unsigned int lo = GAP_PERIOD / GAP_INSNS, hi = lo + 1;
	unsigned int i, n, total = 0, checked = 0, bad = 0, emptied = 0, shown = 0;
	struct brbe_event ev;
	bool crossed;
	int err;

	err = event_open(&ev, PERF_COUNT_HW_INSTRUCTIONS, true, false, GAP_PERIOD,
			 PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER |
			 PERF_SAMPLE_BRANCH_TYPE_SAVE);
	if (err) {
		ksft_print_msg("perf_event_open: %s\n", strerror(-err));
		pmu_result(false, "brbe_no_record_carried_across_overflow");
		return;
	}
	ioctl(ev.fd, PERF_EVENT_IOC_ENABLE, 0);
	gap_loop(GAP_ITERS);
	ioctl(ev.fd, PERF_EVENT_IOC_DISABLE, 0);
	memset(&run, 0, sizeof(run));
	parse_gap_ring(ev.ring, ev.len - sysconf(_SC_PAGESIZE), &run, after_throttle);
	munmap(ev.ring, ev.len);
	close(ev.fd);

	for (i = 0; i < run.nr_samples; i++) {
		n = gap_records(&run.samples[i], i ? run.samples[i - 1].ip : 0, &crossed);
		total += n;
		if (!i || after_throttle[i])
			continue;
		checked++;
		/*
		 * More than one period's records, or one older than the last
		 * interrupt, is a carry-over. Fewer is a context switch within
		 * the period, which empties the buffer: allowed, rarely.
		 */
		if (n < lo)
			emptied++;
		if (n > hi || crossed)
			bad++;
		if ((n < lo || n > hi || crossed) && shown++ < 4)
			ksft_print_msg("sample %u: %llu records, %u of the loop (%u to %u)%s\n",
				       i, (unsigned long long)run.samples[i].nr, n, lo, hi,
				       crossed ? ", some older than the interrupt" : "");
	}
	ksft_print_msg("no carry-over: %u samples, %u checked, %u carried, %u emptied; ",
		       run.nr_samples, checked, bad, emptied);
	printf("%u loop records of %lu\n", total, GAP_ITERS - 1);
	pmu_result(checked >= run.nr_samples / 2 && checked >= 20 && !bad &&
		   emptied * 20 <= checked && total <= GAP_ITERS - 1 && !run.nr_lost &&
		   !run.nr_bad, "brbe_no_record_carried_across_overflow");
}

#define NTESTS	(1 + ARRAY_SIZE(type_filters) + 1 + 1 + ARRAY_SIZE(refusals) + \
		 ARRAY_SIZE(abi_refusals) + 1 + 2)

int main(int argc, char **argv)
{
	struct pmu_info pmu;
	int err;

	ksft_print_header();
	pmu_find_or_skip(&pmu);
	seq_init();
	numrec = argc > 1 ? strtoul(argv[1], NULL, 0) : 32;

	err = open_errno(PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER);
	if (err == -EOPNOTSUPP) {
		ksft_set_plan(1);
		pmu_result(!getenv("BRBE_EXPECTED"), "brbe_refused_without_brbe");
		ksft_finished();
	}
	ksft_set_plan(NTESTS);
	test_any_user();
	test_type_filters();
	test_seed_case();
	test_two_tasks();
	test_refusals();
	test_abi_refusals();
	test_no_carry_over();
	test_cycles_mispred();
	ksft_finished();
}
