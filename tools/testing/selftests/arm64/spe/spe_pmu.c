// SPDX-License-Identifier: GPL-2.0
/*
 * Our SPE driver (drivers/perf/arm_spe_pmu.c) through perf_event_open and
 * an AUX buffer, its records read back with our own decoder (spe_decode.h).
 * Written for our QEMU's SPE model under -icount shift=0 (-smp 1), where
 * sampling is exact (harness/qemu/README.md, "The FEAT_SPE model"): with
 * jitter off, the N-th member of the population after PMSICR_EL1 = 0 is
 * sampled, then every N-th, N the period (a multiple of 256). Members
 * are the instructions executed where profiling is enabled: EL0 only for
 * an exclude_kernel event.
 *
 * The known workload is spe_window() (spe_loop.h). A window is
 * T = 5 * iters + 6 members, so it gives T / N records (rounded down),
 * the k-th of member k * N: in the loop iteration (k * N - 3) / 5
 * (x0 = iters minus that), at instruction (k * N - 3) % 5 of the loop,
 * with no page fault inside the window (see run_window()). The tests
 * predict every record from that: PC, operation type, data address, and
 * so which records each filter keeps. The model's fixed events and
 * latencies (retired always; L1D and TLB access for loads and stores;
 * misaligned for the load, whose array is offset by 4 bytes; total
 * latency 3, 6 for loads and stores; never a refill) give each filter of
 * perf-arm-spe(1) a known outcome.
 *
 * SPE_PMSVER=2 in the environment (SPEv1p1, no FnE, no discard) makes the
 * tests of those expect EOPNOTSUPP instead.
 */
#define _GNU_SOURCE
#include <grp.h>
#include <sched.h>
#include <stddef.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "../pmu/pmu_lib.h"
#include "spe_decode.h"
#include "spe_loop.h"

/* config bits of the arm_spe PMU's format/ (perf-arm-spe(1)) */
#define CFG_TS			(1ULL << 0)
#define CFG_PA			(1ULL << 1)
#define CFG_PCT			(1ULL << 2)
#define CFG_BRANCH		(1ULL << 32)
#define CFG_LOAD		(1ULL << 33)
#define CFG_STORE		(1ULL << 34)
#define CFG_DISCARD		(1ULL << 35)

/* The core PMU's SPE events (Arm ARM common event numbers) */
#define EVT_SAMPLE_FEED		0x4001
#define EVT_SAMPLE_FILTRATE	0x4002

/*
 * perf_event_attr grew config3 (PMSNEVFR_EL1 here) in v6.3 and config4
 * (mainline's inverted PMSDSFR_EL1, FEAT_SPE_FDS) later, after the libc
 * headers this is built with: the attr is written at its ABI size, the
 * larger only with config4 set, which 6.12 does not know.
 */
#define ATTR_SIZE_VER8		136
#define ATTR_SIZE_VER9		144
#define ATTR_CONFIG3_OFF	128
#define ATTR_CONFIG4_OFF	136
union spe_attr {
	struct perf_event_attr a;
	uint8_t raw[ATTR_SIZE_VER9];
};

static_assert(offsetof(struct perf_event_attr, config2) + 8 <= ATTR_CONFIG3_OFF,
	      "config3 follows the fields the libc headers know");

/* 1,000,006 members: 244 records at 4096, all in the loop */
#define ITERS			200000UL
#define PERIOD			4096ULL
#define AUX_PAGES		16
#define DATA_PAGES		4
#define MAX_RECORDS		8192

/* Snapshot: 3906 records of 26 or 38 bytes through a 16 KiB buffer */
#define SNAP_PERIOD		256ULL
#define SNAP_AUX_PAGES		4
/*
 * Draining a running event: 683 or 684 loop records of 26 or 38 bytes a
 * chunk (about 21 KiB), 210 KiB through the 64 KiB buffer
 */
#define DRAIN_PERIOD		256ULL
#define DRAIN_ITERS		35000UL
#define DRAIN_CHUNKS		10
#define DRAIN_TRACE_MAX		(1UL << 20)

/* Two tasks on one CPU, 10,000,006 members each, 152 records at 65536 */
#define TWO_PERIOD		65536ULL
#define TWO_SPE_ITERS		2000000UL
#define TWO_PMU_ITERS		5000000UL

#define PARANOID		"/proc/sys/kernel/perf_event_paranoid"
#define NOBODY			65534

static struct pmu_info spe, cpu_pmu;
static int pmsver = 3;
static struct spe_record recs[MAX_RECORDS];

/* The loop's arrays; src is read 4 bytes off its alignment */
static uint64_t *src_words, *dst_words;
#define ARRAY_BYTES		((ARRAY_WORDS + 1) * sizeof(uint64_t))
#define ARRAY_FILL		0x5a5a5a5a5a5a5a5aULL
#define SRC_BASE		((uintptr_t)src_words + 4)
#define DST_BASE		((uintptr_t)dst_words)

/*
 * Write to every page of both arrays first, so that no page fault (after
 * a fork, copy on write) lands inside the window: the faulting
 * instruction would run, and be counted as a member, twice.
 */
static long run_window(int fd, unsigned long iters)
{
	size_t i, page = sysconf(_SC_PAGESIZE) / sizeof(uint64_t);

	for (i = 0; i < ARRAY_WORDS + 1; i += page) {
		src_words[i] = ARRAY_FILL;
		dst_words[i] = 0;
	}
	return spe_window(fd, iters, (const void *)SRC_BASE, dst_words);
}

static uint64_t window_members(unsigned long iters)
{
	return LOOP_PRE + LOOP_LEN * (uint64_t)iters + LOOP_POST;
}

/* What member m of a window of iters iterations is; false past the loop */
struct expect {
	unsigned int pos;
	uintptr_t pc, va;
};

static bool expect_member(uint64_t m, unsigned long iters, struct expect *e)
{
	uint64_t it, x0;

	if (m <= LOOP_PRE || m > LOOP_PRE + LOOP_LEN * (uint64_t)iters)
		return false;
	it = (m - LOOP_PRE - 1) / LOOP_LEN;
	e->pos = (m - LOOP_PRE - 1) % LOOP_LEN;
	e->pc = (uintptr_t)spe_loop_begin + 4 * e->pos;
	x0 = iters - it;
	e->va = 0;
	if (e->pos == POS_LOAD)
		e->va = SRC_BASE + 8 * (x0 & (ARRAY_WORDS - 1));
	else if (e->pos == POS_STORE)
		e->va = DST_BASE + 8 * (x0 & (ARRAY_WORDS - 1));
	return true;
}

/* Records of the k-th samples a keep mask lets through */
static long expected_count(unsigned long iters, uint64_t period, unsigned int keep)
{
	uint64_t k, last = window_members(iters) / period;
	struct expect e;
	long n = 0;

	for (k = 1; k <= last; k++)
		if (expect_member(k * period, iters, &e) && (keep & KEEP(e.pos)))
			n++;
	return n;
}

/* Does one record say what the loop's instruction at e.pos does? */
static bool record_is(const struct spe_record *r, const struct expect *e)
{
	static const struct {
		uint8_t cls, op_mask, op;
		uint64_t ev_mask, ev;
	} want[LOOP_LEN] = {
		[POS_AND] = { SPE_OP_OTHER, 0, 0, SPE_EV_L1D_ACCESS, 0 },
		[POS_LOAD] = { SPE_OP_LDST, SPE_OP_LDST_STORE, 0,
			       SPE_EV_L1D_ACCESS | SPE_EV_MISALIGNED,
			       SPE_EV_L1D_ACCESS | SPE_EV_MISALIGNED },
		[POS_STORE] = { SPE_OP_LDST, SPE_OP_LDST_STORE, SPE_OP_LDST_STORE,
				SPE_EV_L1D_ACCESS | SPE_EV_MISALIGNED, SPE_EV_L1D_ACCESS },
		[POS_SUBS] = { SPE_OP_OTHER, 0, 0, SPE_EV_L1D_ACCESS, 0 },
		[POS_BNE] = { SPE_OP_BRANCH, SPE_OP_BRANCH_COND, SPE_OP_BRANCH_COND,
			      SPE_EV_L1D_ACCESS, 0 },
	};
	const typeof(want[0]) *w = &want[e->pos];

	if (!r->has_pc || r->pc != e->pc || r->el != 0 || !r->has_op)
		return false;
	if (r->op_class != w->cls || (r->op & w->op_mask) != w->op)
		return false;
	if (!(r->events & SPE_EV_RETIRED) || (r->events & w->ev_mask) != w->ev)
		return false;
	return e->va ? r->has_va && r->va == e->va : !r->has_va;
}

/*
 * The records must be exactly the samples first_k, first_k + 1, ... of
 * the window that the keep mask lets through, in order, each with a total
 * latency of at least min_lat.
 */
static bool records_match(const struct spe_record *r, long n, unsigned long iters,
			  uint64_t period, uint64_t first_k, unsigned int keep,
			  unsigned int min_lat)
{
	uint64_t k, last = window_members(iters) / period;
	struct expect e;
	long i = 0;

	for (k = first_k; k <= last; k++) {
		if (!expect_member(k * period, iters, &e) || !(keep & KEEP(e.pos)))
			continue;
		if (i >= n) {
			ksft_print_msg("sample %" PRIu64 " (pc %#lx) missing\n", k, e.pc);
			return false;
		}
		if (!record_is(&r[i], &e) || (min_lat && r[i].lat_total < min_lat)) {
			ksft_print_msg("record %ld: pc %#" PRIx64 " el %u op %u/%#x ev %#" PRIx64
				       " va %#" PRIx64 " lat %u; want sample %" PRIu64
				       " pc %#lx va %#lx\n", i, r[i].pc, r[i].el,
				       r[i].op_class, r[i].op, r[i].events, r[i].va,
				       r[i].lat_total, k, e.pc, e.va);
			return false;
		}
		i++;
	}
	if (i != n)
		ksft_print_msg("%ld records, %ld expected\n", n, i);
	return i == n;
}

/* ---- opening events and reading their AUX buffers ---- */

struct spe_params {
	uint64_t config, config1, config2, config3, config4, period;
	bool kernel, freq;
};

static void spe_attr_init(union spe_attr *u, const struct spe_params *p)
{
	memset(u, 0, sizeof(*u));
	u->a.size = p->config4 ? ATTR_SIZE_VER9 : ATTR_SIZE_VER8;
	u->a.type = spe.type;
	u->a.config = p->config;
	u->a.config1 = p->config1;
	u->a.config2 = p->config2;
	memcpy(u->raw + ATTR_CONFIG3_OFF, &p->config3, sizeof(p->config3));
	memcpy(u->raw + ATTR_CONFIG4_OFF, &p->config4, sizeof(p->config4));
	u->a.sample_period = p->period ? p->period : PERIOD;
	u->a.freq = p->freq;
	u->a.disabled = 1;
	u->a.exclude_kernel = !p->kernel;
	u->a.exclude_hv = !p->kernel;
}

/* Open for this task: fd, or -errno */
static int spe_open(const struct spe_params *p)
{
	union spe_attr u;
	int fd;

	spe_attr_init(&u, p);
	fd = syscall(__NR_perf_event_open, &u.a, 0, -1, -1, 0);
	return fd < 0 ? -errno : fd;
}

struct session {
	int fd;
	void *ring;
	size_t ring_len, aux_len;
	struct perf_event_mmap_page *pc;
	uint8_t *aux;
};

/* Open an event and map its ring and AUX buffer: 0, or -errno */
static int session_open(struct session *s, const struct spe_params *p,
			unsigned int aux_pages, bool snapshot)
{
	size_t page = sysconf(_SC_PAGESIZE);
	void *aux;

	memset(s, 0, sizeof(*s));
	s->fd = spe_open(p);
	if (s->fd < 0)
		return s->fd;
	s->ring_len = (1 + DATA_PAGES) * page;
	s->ring = mmap(NULL, s->ring_len, PROT_READ | PROT_WRITE, MAP_SHARED, s->fd, 0);
	if (s->ring == MAP_FAILED)
		goto fail;
	s->pc = s->ring;
	s->aux_len = aux_pages * page;
	s->pc->aux_offset = s->ring_len;
	s->pc->aux_size = s->aux_len;
	/* A read-only AUX mapping asks for overwrite (snapshot) mode */
	aux = mmap(NULL, s->aux_len, PROT_READ | (snapshot ? 0 : PROT_WRITE),
		   MAP_SHARED, s->fd, s->ring_len);
	if (aux == MAP_FAILED) {
		munmap(s->ring, s->ring_len);
		goto fail;
	}
	s->aux = aux;
	return 0;
fail:
	ksft_print_msg("mmap: %s\n", strerror(errno));
	close(s->fd);
	s->fd = -1;
	return -errno;
}

static void session_close(struct session *s)
{
	if (s->fd < 0)
		return;
	munmap(s->aux, s->aux_len);
	munmap(s->ring, s->ring_len);
	close(s->fd);
	s->fd = -1;
}

static uint64_t session_aux_head(const struct session *s)
{
	return __atomic_load_n(&s->pc->aux_head, __ATOMIC_ACQUIRE);
}

/* Decode a normal-mode buffer that did not wrap: records, or -1 */
static long session_records(const struct session *s)
{
	uint64_t head = session_aux_head(s);

	if (head > s->aux_len) {
		ksft_print_msg("AUX buffer wrapped: head %" PRIu64 "\n", head);
		return -1;
	}
	return spe_decode(s->aux, head, recs, MAX_RECORDS);
}

/* Open p, run a window of iters, decode: records, or -errno / -1000 */
static long record_window(const struct spe_params *p, unsigned long iters,
			  struct session *s)
{
	long n, ret;

	ret = session_open(s, p, AUX_PAGES, false);
	if (ret)
		return ret;
	ret = run_window(s->fd, iters);
	n = ret ? -1 : session_records(s);
	if (ret)
		ksft_print_msg("enable/disable: %ld\n", ret);
	return n < 0 ? -1000 : n;
}

/* ---- the tests ---- */

static bool all_ctx_are(const struct spe_record *r, long n, pid_t pid)
{
	long i;

	for (i = 0; i < n; i++)
		if (!r[i].has_ctx || r[i].ctx != (uint32_t)pid)
			return false;
	return true;
}

static bool none_has_ctx(const struct spe_record *r, long n)
{
	long i;

	for (i = 0; i < n; i++)
		if (r[i].has_ctx)
			return false;
	return true;
}

/* How many records are of user code in [lo, hi) */
static long count_in(const struct spe_record *r, long n, const char *lo, const char *hi)
{
	long i, in = 0;

	for (i = 0; i < n; i++)
		if (r[i].has_pc && !r[i].el && r[i].pc >= (uintptr_t)lo && r[i].pc < (uintptr_t)hi)
			in++;
	return in;
}

static bool all_in(const struct spe_record *r, long n, const char *lo, const char *hi)
{
	return count_in(r, n, lo, hi) == n;
}

/* Copy len bytes at pos of the ring's data area, which wraps */
static void ring_copy(const struct session *s, uint64_t pos, void *buf, size_t len)
{
	const uint8_t *data = (const uint8_t *)s->ring + s->pc->data_offset;
	uint8_t *out = buf;
	size_t i;

	for (i = 0; i < len; i++)
		out[i] = data[(pos + i) % s->pc->data_size];
}

/*
 * The PERF_RECORD_AUX records perf core wrote for the driver's hand-overs:
 * the bytes they cover, the largest of them and their flags ORed. False
 * if the ring is garbled.
 */
static bool aux_records(const struct session *s, uint64_t *bytes, uint64_t *largest,
			uint64_t *flags)
{
	uint64_t head = __atomic_load_n(&s->pc->data_head, __ATOMIC_ACQUIRE);
	struct perf_event_header h;
	uint64_t pos, aux[3];

	*bytes = *largest = *flags = 0;
	for (pos = 0; pos < head; pos += h.size) {
		ring_copy(s, pos, &h, sizeof(h));
		if (h.size < sizeof(h))
			return false;
		if (h.type != PERF_RECORD_AUX)
			continue;
		/* aux_offset, aux_size, flags */
		ring_copy(s, pos + sizeof(h), aux, sizeof(aux));
		*bytes += aux[1];
		if (aux[1] > *largest)
			*largest = aux[1];
		*flags |= aux[2];
	}
	return true;
}

/*
 * With x-spe-cut-records our QEMU fills each window to its limit and cuts
 * the record that does not fit (PMBSR_EL1.DL): nothing after it would
 * decode, so the hand-over that holds it must say PARTIAL and TRUNCATED
 * and be the last with data. 4 pages fill at their first wakeup mark.
 */
#define CUT_AUX_PAGES		4
#define CUT_ITERS		35000UL

static void test_cut_record(void)
{
	struct spe_params p = { .period = DRAIN_PERIOD };
	uint64_t head, pos, aux[3], after = 0;
	struct perf_event_header h;
	int partial = 0, partial_only = 0;
	struct session s;

	if (session_open(&s, &p, CUT_AUX_PAGES, false) || run_window(s.fd, CUT_ITERS)) {
		pmu_result(false, "cut_record_flags_partial_and_truncated");
		pmu_result(false, "cut_record_ends_the_trace");
		return;
	}
	head = __atomic_load_n(&s.pc->data_head, __ATOMIC_ACQUIRE);
	for (pos = 0; pos < head; pos += h.size) {
		ring_copy(&s, pos, &h, sizeof(h));
		if (h.size < sizeof(h))
			break;
		if (h.type != PERF_RECORD_AUX)
			continue;
		/* aux_offset, aux_size, flags */
		ring_copy(&s, pos + sizeof(h), aux, sizeof(aux));
		ksft_print_msg("cut: AUX offset %" PRIu64 " size %" PRIu64 " flags %#" PRIx64 "\n",
			       aux[0], aux[1], aux[2]);
		if (partial && aux[1])
			after += aux[1];
		if (aux[2] & PERF_AUX_FLAG_PARTIAL) {
			partial++;
			if (!(aux[2] & PERF_AUX_FLAG_TRUNCATED))
				partial_only++;
		}
	}
	ksft_print_msg("cut: %d partial hand-overs, %d not truncated, %" PRIu64
		       " bytes after the first\n", partial, partial_only, after);
	pmu_result(partial && !partial_only, "cut_record_flags_partial_and_truncated");
	pmu_result(partial && !after, "cut_record_ends_the_trace");
	session_close(&s);
}

/* The plain loop: count, PCs, every record, and (root) context packets */
static void test_loop(void)
{
	struct spe_params p = { 0 };
	long want = expected_count(ITERS, PERIOD, KEEP_ALL);
	uint64_t bytes, largest, flags;
	struct session s;
	bool ok;
	long n;

	n = record_window(&p, ITERS, &s);
	ksft_print_msg("loop: %ld records, %ld expected (%" PRIu64 " members / %llu)\n",
		       n, want, window_members(ITERS), PERIOD);
	pmu_result(n == want, "loop_record_count_exact");
	pmu_result(n > 0 && all_in(recs, n, spe_loop_begin, spe_loop_end),
		   "loop_pcs_in_loop");
	pmu_result(n > 0 && records_match(recs, n, ITERS, PERIOD, 1, KEEP_ALL, 0),
		   "loop_records_match_layout");
	pmu_result(n > 0 && all_ctx_are(recs, n, getpid()), "context_packets_carry_pid");
	ok = aux_records(&s, &bytes, &largest, &flags);
	ksft_print_msg("loop: PERF_RECORD_AUX cover %" PRIu64 " bytes (flags %#" PRIx64
		       "), aux head %" PRIu64 "\n", bytes, flags, session_aux_head(&s));
	pmu_result(ok && n > 0 && bytes == session_aux_head(&s) && !flags,
		   "loop_aux_records_cover_the_data");
	session_close(&s);
}

struct filter_case {
	const char *name;
	uint64_t config, config1, config2, config3;
	unsigned int keep;
	bool fne;	/* needs FEAT_SPE_FnE (SPEv1p2) */
	uint64_t config4;
};

/*
 * FEAT_SPE_FDS through mainline's config4 (inv_data_src_filter, set bits
 * drop a data source): only loads carry a data source, which the model
 * gives as L1D (0) for the loop's cacheable memory; other operations are
 * kept.
 */
#define DS_L1D			(1ULL << 0)
#define DS_DRAM			(1ULL << 14)
#define FDS_CASE(_name, inv, _keep) { .name = _name, .config4 = inv, .keep = _keep }

static const struct filter_case filter_cases[] = {
	{ "load_filter_only_loads", CFG_LOAD, 0, 0, 0, KEEP(POS_LOAD) },
	{ "store_filter_only_stores", CFG_STORE, 0, 0, 0, KEEP(POS_STORE) },
	{ "branch_filter_only_branches", CFG_BRANCH, 0, 0, 0, KEEP(POS_BNE) },
	{ "load_store_filters_either", CFG_LOAD | CFG_STORE, 0, 0, 0, KEEP_LDST },
	{ "event_filter_retired_keeps_all", 0, SPE_EV_RETIRED, 0, 0, KEEP_ALL },
	{ "event_filter_misaligned_only_loads", 0, SPE_EV_MISALIGNED, 0, 0, KEEP(POS_LOAD) },
	/* The model has no caches: nothing refills */
	{ "event_filter_l1d_refill_keeps_none", 0, 1ULL << 3, 0, 0, 0 },
	{ "event_filter_retired_and_misaligned", 0, SPE_EV_RETIRED | SPE_EV_MISALIGNED, 0, 0,
	  KEEP(POS_LOAD) },
	{ "inv_event_filter_misaligned_all_but_loads", 0, 0, 0, SPE_EV_MISALIGNED,
	  KEEP_ALL & ~KEEP(POS_LOAD), true },
	{ "inv_event_filter_retired_keeps_none", 0, 0, 0, SPE_EV_RETIRED, 0, true },
	{ "min_latency_4_only_loads_stores", 0, 0, 4, 0, KEEP_LDST },
	{ "min_latency_6_only_loads_stores", 0, 0, 6, 0, KEEP_LDST },
	{ "min_latency_7_keeps_none", 0, 0, 7, 0, 0 },
	{ "load_filter_and_min_latency", CFG_LOAD, 0, 4, 0, KEEP(POS_LOAD) },
	FDS_CASE("fds_only_l1d_keeps_all", ~DS_L1D, KEEP_ALL),
	FDS_CASE("fds_all_but_l1d_drops_loads", DS_L1D, KEEP_ALL & ~KEEP(POS_LOAD)),
	FDS_CASE("fds_only_dram_drops_loads", ~DS_DRAM, KEEP_ALL & ~KEEP(POS_LOAD)),
};

static void test_filter(const struct filter_case *c)
{
	struct spe_params p = { c->config, c->config1, c->config2, c->config3, c->config4 };
	long want = expected_count(ITERS, PERIOD, c->keep);
	struct session s;
	char name[128];
	long n;

	if (c->config4 && !pmu_sysfs_exists(&spe, "format/inv_data_src_filter")) {
		pmu_skip(c->name, "no format/inv_data_src_filter (FEAT_SPE_FDS with config4)");
		return;
	}

	if (c->fne && pmsver < 3) {
		snprintf(name, sizeof(name), "%s_refused_before_v1p2", c->name);
		n = spe_open(&p);
		pmu_result(n == -EOPNOTSUPP, name);
		if (n >= 0)
			close(n);
		return;
	}
	n = record_window(&p, ITERS, &s);
	ksft_print_msg("%s: %ld records, %ld expected\n", c->name, n, want);
	pmu_result(n == want && records_match(recs, n, ITERS, PERIOD, 1, c->keep, c->config2),
		   c->name);
	session_close(&s);
}

/* pagemap: the physical address of va, 0 if unknown */
static uint64_t phys_of(int pagemap, uintptr_t va)
{
	size_t page = sysconf(_SC_PAGESIZE);
	uint64_t ent;

	if (pread(pagemap, &ent, sizeof(ent), va / page * sizeof(ent)) != sizeof(ent))
		return 0;
	if (!(ent & (1ULL << 63)))
		return 0;
	return (ent & ((1ULL << 55) - 1)) * page + va % page;
}

static void test_pa(void)
{
	struct spe_params p = { CFG_PA };
	int pagemap = open("/proc/self/pagemap", O_RDONLY);
	long n, i, with_pa = 0, want = expected_count(ITERS, PERIOD, KEEP_LDST);
	bool ok = pagemap >= 0;
	struct session s;

	n = record_window(&p, ITERS, &s);
	for (i = 0; ok && i < n; i++) {
		if (!recs[i].has_va) {
			ok = !recs[i].has_pa;
			continue;
		}
		with_pa++;
		ok = recs[i].has_pa && recs[i].pa == phys_of(pagemap, recs[i].va);
		if (!ok)
			ksft_print_msg("va %#" PRIx64 ": pa %#" PRIx64 ", pagemap %#" PRIx64 "\n",
				       recs[i].va, recs[i].pa, phys_of(pagemap, recs[i].va));
	}
	ksft_print_msg("pa_enable: %ld of %ld records with a PA, %ld expected\n",
		       with_pa, n, want);
	pmu_result(ok && with_pa == want && n > 0, "pa_enable_matches_pagemap");
	if (pagemap >= 0)
		close(pagemap);
	session_close(&s);
}

static uint64_t cntvct(void)
{
	uint64_t v;

	asm volatile("isb; mrs %0, cntvct_el0" : "=r"(v) :: "memory");
	return v;
}

static void test_ts(void)
{
	struct spe_params p = { CFG_TS };
	bool rising = true, stamped = true;
	uint64_t before, after;
	struct session s;
	long n, i;

	before = cntvct();
	n = record_window(&p, ITERS, &s);
	after = cntvct();
	for (i = 0; i < n; i++) {
		stamped &= recs[i].has_ts;
		if (i)
			rising &= recs[i].ts > recs[i - 1].ts;
	}
	pmu_result(n == expected_count(ITERS, PERIOD, KEEP_ALL) && stamped && rising,
		   "ts_enable_timestamps_increase");
	ksft_print_msg("timestamps %" PRIu64 "..%" PRIu64 ", counter %" PRIu64 "..%" PRIu64 "\n",
		       n > 0 ? recs[0].ts : 0, n > 0 ? recs[n - 1].ts : 0, before, after);
	pmu_result(n > 0 && recs[0].ts >= before && recs[n - 1].ts <= after,
		   "ts_enable_within_window");
	session_close(&s);
}

/*
 * Has a snapshot buffer wrapped? The ABI leaves aux_head free in snapshot
 * mode: ours keeps counting (head past the buffer), mainline keeps it an
 * offset in the buffer. So, as perf's own snapshot reader does: a head
 * past the buffer, or data in the buffer's last 512 bytes, which were 0
 * when mapped and which only a wrap reaches before the head does.
 */
static bool snapshot_wrapped(const struct session *s, uint64_t head)
{
	size_t i;

	if (head > s->aux_len)
		return true;
	for (i = s->aux_len - 512; i < s->aux_len; i++)
		if (s->aux[i])
			return true;
	return false;
}

/*
 * Snapshot mode: a 16 KiB buffer the hardware fills one 8 KiB half at a
 * time, far smaller than the window's trace. What is left must be the
 * newest records, whole and consecutive: the older half, then the newer
 * one up to the head.
 */
static void test_snapshot(void)
{
	struct spe_params p = { .period = SNAP_PERIOD };
	uint64_t head, last = window_members(ITERS) / SNAP_PERIOD;
	size_t half, newest;
	struct session s;
	uint8_t *copy;
	bool wrapped;
	long n = -1;

	if (session_open(&s, &p, SNAP_AUX_PAGES, true)) {
		pmu_result(false, "snapshot_wrapped");
		pmu_result(false, "snapshot_holds_newest_records");
		return;
	}
	run_window(s.fd, ITERS);
	head = session_aux_head(&s);
	wrapped = head && snapshot_wrapped(&s, head);
	half = s.aux_len / 2;
	newest = (head - 1) % s.aux_len / half * half;
	copy = malloc(s.aux_len);
	if (copy && wrapped) {
		memcpy(copy, s.aux + (newest ^ half), half);
		memcpy(copy + half, s.aux + newest, (head - 1) % s.aux_len + 1 - newest);
		n = spe_decode(copy, half + (head - 1) % s.aux_len + 1 - newest,
			       recs, MAX_RECORDS);
	}
	ksft_print_msg("snapshot: head %" PRIu64 ", %ld records kept of %" PRIu64 "\n",
		       head, n, last);
	pmu_result(wrapped, "snapshot_wrapped");
	pmu_result(n >= (long)(half / 64) && n <= (long)last &&
		   records_match(recs, n, ITERS, SNAP_PERIOD, last - n + 1, KEEP_ALL, 0),
		   "snapshot_holds_newest_records");
	free(copy);
	session_close(&s);
}

/*
 * Append what the driver handed over since the reader's tail, then free
 * it. memcpy(): the copy runs sampled too, and must add few records.
 */
static size_t drain_copy(struct session *s, uint8_t *trace, size_t len)
{
	uint64_t head = session_aux_head(s), tail = s->pc->aux_tail;

	while (tail < head && len < DRAIN_TRACE_MAX) {
		size_t off = tail % s->aux_len;
		size_t n = head - tail;

		if (n > s->aux_len - off)
			n = s->aux_len - off;
		if (n > DRAIN_TRACE_MAX - len)
			n = DRAIN_TRACE_MAX - len;

		memcpy(trace + len, s->aux + off, n);
		len += n;
		tail += n;
	}
	__atomic_store_n(&s->pc->aux_tail, tail, __ATOMIC_RELEASE);
	return len;
}

/*
 * A reader that drains the AUX buffer while the event runs on, as perf
 * record does, with no system call that would stop the event: it sees
 * only what the driver hands over at its interrupts. Each chunk writes
 * less than half the buffer, so as long as the driver stops at every
 * wakeup mark (half the buffer) the unread data never fills it. A full
 * window ends a few bytes short of its mark, and the padding to the next
 * window's start crosses the mark: that window must stop at the next
 * one, not run on to the end of the free space, or the trace ends
 * truncated a few chunks later. run_window()'s ioctl()s fail on fd -1
 * and stop nothing. The interval counter runs on between the chunks, so
 * each chunk's loop yields LOOP_LEN * DRAIN_ITERS / DRAIN_PERIOD
 * records, rounded either way: any fewer were lost.
 */
static void test_drain_running(void)
{
	uint64_t members = (uint64_t)LOOP_LEN * DRAIN_ITERS;
	long lo = DRAIN_CHUNKS * (members / DRAIN_PERIOD);
	long hi = DRAIN_CHUNKS * ((members + DRAIN_PERIOD - 1) / DRAIN_PERIOD);
	struct spe_params p = { .period = DRAIN_PERIOD };
	uint64_t bytes, largest, flags;
	uint8_t *trace = malloc(DRAIN_TRACE_MAX);
	unsigned int chunk;
	struct session s;
	size_t len = 0;
	long n = -1;
	bool ok;

	if (!trace || session_open(&s, &p, AUX_PAGES, false) ||
	    ioctl(s.fd, PERF_EVENT_IOC_ENABLE, 0)) {
		pmu_result(false, "drain_running_never_truncated");
		pmu_result(false, "drain_running_stops_at_wakeup_marks");
		pmu_result(false, "drain_running_loses_no_record");
		free(trace);
		return;
	}
	for (chunk = 0; chunk < DRAIN_CHUNKS; chunk++) {
		run_window(-1, DRAIN_ITERS);
		len = drain_copy(&s, trace, len);
	}
	ioctl(s.fd, PERF_EVENT_IOC_DISABLE, 0);
	len = drain_copy(&s, trace, len);
	ok = aux_records(&s, &bytes, &largest, &flags);
	if (len < DRAIN_TRACE_MAX)
		n = spe_decode(trace, len, recs, MAX_RECORDS);
	if (n >= 0)
		n = count_in(recs, n, spe_loop_begin, spe_loop_end);
	ksft_print_msg("drain: %" PRIu64 " bytes handed over, largest %" PRIu64 " of %zu, flags %#"
		       PRIx64 ", %ld loop records (%ld..%ld)\n", bytes, largest, s.aux_len,
		       flags, n, lo, hi);
	pmu_result(ok && !flags, "drain_running_never_truncated");
	pmu_result(ok && bytes && largest <= s.aux_len / 2, "drain_running_stops_at_wakeup_marks");
	pmu_result(n >= lo && n <= hi, "drain_running_loses_no_record");
	session_close(&s);
	free(trace);
}

/* A core PMU counter of this task, EL0 only, counting from now */
static int cpu_counter(unsigned int evt)
{
	struct perf_event_attr attr;

	pmu_attr_user(&attr, cpu_pmu.type, evt);
	attr.disabled = 0;
	return pmu_open(&attr, -1);
}

/*
 * Discard mode (perf-arm-spe(1)): the PMU events count as if records
 * were written, and none is. SAMPLE_FEED counts every sample taken,
 * SAMPLE_FILTRATE those the filter keeps.
 */
static void test_discard(void)
{
	struct spe_params p = { CFG_DISCARD | CFG_LOAD };
	int feed, filtrate, ret;
	int64_t nfeed, nfilt;
	struct session s;

	if (pmsver < 3) {
		ret = spe_open(&p);
		pmu_result(ret == -EOPNOTSUPP, "discard_refused_before_v1p2");
		if (ret >= 0)
			close(ret);
		return;
	}
	feed = cpu_counter(EVT_SAMPLE_FEED);
	filtrate = cpu_counter(EVT_SAMPLE_FILTRATE);
	ret = session_open(&s, &p, AUX_PAGES, false);
	if (ret || feed < 0 || filtrate < 0) {
		ksft_print_msg("discard: open %d, counters %d %d\n", ret, feed, filtrate);
		ret = -1;
	} else {
		ret = run_window(s.fd, ITERS);
	}
	nfeed = ret ? -1 : pmu_read_count(feed);
	nfilt = ret ? -1 : pmu_read_count(filtrate);
	ksft_print_msg("discard: SAMPLE_FEED %" PRId64 ", SAMPLE_FILTRATE %" PRId64
		       ", aux head %" PRIu64 "\n", nfeed, nfilt, ret ? 0 : session_aux_head(&s));
	pmu_result(nfeed == expected_count(ITERS, PERIOD, KEEP_ALL), "discard_sample_feed_exact");
	pmu_result(nfilt == expected_count(ITERS, PERIOD, KEEP(POS_LOAD)),
		   "discard_sample_filtrate_loads");
	pmu_result(!ret && session_aux_head(&s) == 0, "discard_no_aux_data");
	if (!ret)
		session_close(&s);
	if (feed >= 0)
		close(feed);
	if (filtrate >= 0)
		close(filtrate);
}

/* What the other task of test_two_tasks() saw, through shared memory */
struct task_result {
	long n;
	bool in_loop, own_ctx;
	long switches;
};

static long involuntary_switches(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_nivcsw;
}

/*
 * Two processes on the one CPU, each with its own event, each running its
 * own loop (the child pmu_lib.h's subs/b.ne, this one spe_window) at the
 * same time, so the scheduler switches between them: each buffer must
 * hold exactly its own window's samples, none of the other's PCs, and
 * its own pid in every context packet.
 */
static void test_two_tasks(void)
{
	struct spe_params p = { .period = TWO_PERIOD };
	struct task_result *child, me = { 0 };
	int go[2], status;
	long want_child;
	struct session s;
	pid_t pid;
	char c = 0;

	want_child = (2 * TWO_PMU_ITERS + PMU_WINDOW_OVERHEAD) / TWO_PERIOD;
	child = mmap(NULL, sizeof(*child), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (child == MAP_FAILED || pipe(go))
		ksft_exit_fail_perror("two tasks");
	child->n = -1;
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		ksft_exit_fail_perror("fork");
	if (pid == 0) {
		long sw = involuntary_switches();

		if (!session_open(&s, &p, AUX_PAGES, false)) {
			if (write(go[1], &c, 1) != 1)
				_exit(1);
			if (!pmu_run_ioctl(s.fd, 0, TWO_PMU_ITERS)) {
				child->n = session_records(&s);
				child->in_loop = all_in(recs, child->n, pmu_loop_begin,
							pmu_loop_end);
				child->own_ctx = all_ctx_are(recs, child->n, getpid());
			}
			session_close(&s);
		}
		child->switches = involuntary_switches() - sw;
		_exit(0);
	}
	close(go[1]);
	me.n = -1;
	if (!session_open(&s, &p, AUX_PAGES, false)) {
		me.switches = involuntary_switches();
		/* Start once the child's window has started */
		if (read(go[0], &c, 1) == 1 && !run_window(s.fd, TWO_SPE_ITERS)) {
			me.n = session_records(&s);
			me.own_ctx = all_ctx_are(recs, me.n, getpid());
		}
		me.switches = involuntary_switches() - me.switches;
		session_close(&s);
	}
	close(go[0]);
	waitpid(pid, &status, 0);
	ksft_print_msg("two tasks: %ld, %ld records (want %ld, %ld), %ld, %ld preemptions\n",
		       me.n, child->n,
		       expected_count(TWO_SPE_ITERS, TWO_PERIOD, KEEP_ALL),
		       want_child, me.switches, child->switches);
	pmu_result(me.switches + child->switches > 0, "two_tasks_interleaved");
	pmu_result(me.n == expected_count(TWO_SPE_ITERS, TWO_PERIOD, KEEP_ALL) &&
		   records_match(recs, me.n, TWO_SPE_ITERS, TWO_PERIOD, 1, KEEP_ALL, 0) &&
		   me.own_ctx, "two_tasks_only_own_records_parent");
	pmu_result(child->n == want_child && child->in_loop && child->own_ctx,
		   "two_tasks_only_own_records_child");
	munmap(child, sizeof(*child));
}

static const char *errname(int err)
{
	switch (err) {
	case 0:
		return "ok";
	case 1:
		return "misbehaved";
	case -EACCES:
		return "EACCES";
	default:
		return strerror(-err);
	}
}

/*
 * The period is PMSIRR_EL1.INTERVAL, bits [31:8]: 0xffffff00 at most.
 * Ours refuses a longer one; mainline clamps it to that maximum
 * (arm_spe_event_sanitise_period(), a choice the ABI leaves open), so
 * under PMU_KERNEL=mainline those open.
 */
static void test_periods(void)
{
	bool ml = pmu_kernel_mainline();
	const struct {
		const char *name;
		uint64_t period;
		bool freq;
		int err;
	} cases[] = {
		{ "period_max_interval_opens", 0xffffff00ULL, false, 0 },
		{ ml ? "mainline_period_above_max_interval_opens" :
		  "period_above_max_interval_einval", 0xffffff01ULL, false, ml ? 0 : -EINVAL },
		{ ml ? "mainline_period_2_32_opens" : "period_2_32_einval",
		  1ULL << 32, false, ml ? 0 : -EINVAL },
		{ "freq_einval", 4000, true, -EINVAL },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct spe_params p = { .period = cases[i].period, .freq = cases[i].freq };
		int fd = spe_open(&p);
		int got = fd < 0 ? fd : 0;

		if (fd >= 0)
			close(fd);
		if (got != cases[i].err)
			ksft_print_msg("%s: %s\n", cases[i].name, errname(got));
		pmu_result(got == cases[i].err, cases[i].name);
	}
}

/*
 * PERF_EVENT_IOC_PERIOD changes a running event's interval: the new one
 * must be what the next window samples at, and one the open would refuse
 * must be refused here too, not cut down to what PMSIRR_EL1 can hold.
 */
static void test_ioc_period(void)
{
	struct spe_params p = { 0 };
	uint64_t twice = 2 * PERIOD, max = 0xffffff00ULL, above = max + 1;
	long want = expected_count(ITERS, twice, KEEP_ALL), n = -1;
	int max_err = 0, above_err = 0;
	struct session s;

	if (!session_open(&s, &p, AUX_PAGES, false)) {
		max_err = ioctl(s.fd, PERF_EVENT_IOC_PERIOD, &max) ? -errno : 0;
		above_err = ioctl(s.fd, PERF_EVENT_IOC_PERIOD, &above) ? -errno : 0;
		if (!ioctl(s.fd, PERF_EVENT_IOC_PERIOD, &twice) && !run_window(s.fd, ITERS))
			n = session_records(&s);
		session_close(&s);
	}
	ksft_print_msg("ioc_period: %ld records at %" PRIu64 ", %ld expected; max %s, above %s\n",
		       n, twice, want, errname(max_err), errname(above_err));
	pmu_result(n >= 0 && records_match(recs, n, ITERS, twice, 1, KEEP_ALL, 0),
		   "ioc_period_samples_at_the_new_interval");
	pmu_result(max_err == 0, "ioc_period_max_interval_ok");
	if (pmu_kernel_mainline())
		pmu_result(above_err == 0, "mainline_ioc_period_above_max_interval_ok");
	else
		pmu_result(above_err == -EINVAL, "ioc_period_above_max_interval_einval");
}

/* ---- an unprivileged user at each perf_event_paranoid level ---- */

/*
 * Each case runs as nobody and returns 0 when the event opened and
 * behaved, 1 when it opened and misbehaved, or the open's -errno.
 * Core perf refuses kernel sampling without perf_allow_kernel(); the
 * driver refuses pa_enable and pct_enable the same way and leaves out
 * context packets (they name other tasks) for such a user: they appear
 * only where perf_allow_kernel() passes (paranoid 1 and below).
 */
static bool priv_ctx_expected;

/* User sampling with a filter and timestamps, which need no privilege */
static int priv_user(void)
{
	struct spe_params p = { CFG_TS | CFG_LOAD };
	struct session s;
	bool ok;
	long n, i;

	n = record_window(&p, ITERS, &s);
	if (n < 0 && n != -1000)
		return n;
	ok = n > 0 && records_match(recs, n, ITERS, PERIOD, 1, KEEP(POS_LOAD), 0);
	for (i = 0; i < n; i++)
		ok &= recs[i].has_ts;
	if (n > 0)
		ok &= priv_ctx_expected ? all_ctx_are(recs, n, getpid()) : none_has_ctx(recs, n);
	session_close(&s);
	return !ok;
}

static int priv_open_run(const struct spe_params *p, bool (*check)(long n))
{
	struct session s;
	long n;
	int ret;

	n = record_window(p, ITERS, &s);
	if (n < 0 && n != -1000)
		return n;
	ret = n == -1000 || !check(n);
	session_close(&s);
	return ret;
}

/* Kernel sampling counts kernel members too: at least the user's records */
static bool check_kernel(long n)
{
	return n >= expected_count(ITERS, PERIOD, KEEP_ALL);
}

static bool check_pa(long n)
{
	long i;

	for (i = 0; i < n; i++)
		if (recs[i].has_va != recs[i].has_pa)
			return false;
	return n == expected_count(ITERS, PERIOD, KEEP_ALL);
}

static bool check_ts(long n)
{
	long i;

	for (i = 0; i < n; i++)
		if (!recs[i].has_ts)
			return false;
	return n == expected_count(ITERS, PERIOD, KEEP_ALL);
}

static int priv_kernel(void)
{
	struct spe_params p = { .kernel = true };

	return priv_open_run(&p, check_kernel);
}

static int priv_pa(void)
{
	struct spe_params p = { CFG_PA };

	return priv_open_run(&p, check_pa);
}

static int priv_pct(void)
{
	struct spe_params p = { CFG_TS | CFG_PCT };

	return priv_open_run(&p, check_ts);
}

#define EACC	(-EACCES)
static const struct priv_case {
	const char *name;
	int (*run)(void);
	int want[3];	/* at paranoid 2, 1, 3 */
} priv_cases[] = {
	{ "user_load_filter_ts", priv_user, { 0, 0, EACC } },
	{ "kernel_sampling", priv_kernel, { EACC, 0, EACC } },
	{ "pa_enable", priv_pa, { EACC, 0, EACC } },
	{ "pct_enable", priv_pct, { EACC, 0, EACC } },
};
#define NPRIV	ARRAY_SIZE(priv_cases)
static const int priv_levels[] = { 2, 1, 3 };

static int drop_privileges(void)
{
	if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY))
		return -errno;
	return getuid() == NOBODY && geteuid() == NOBODY ? 0 : -EPERM;
}

static void test_unprivileged(void)
{
	char saved[16] = "2", level[8];
	unsigned int l, i;
	int *got, status;
	pid_t pid;

	got = mmap(NULL, sizeof(int) * NPRIV, PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (got == MAP_FAILED)
		ksft_exit_fail_perror("mmap");
	pmu_read_sysfs(PARANOID, saved, sizeof(saved));
	for (l = 0; l < ARRAY_SIZE(priv_levels); l++) {
		snprintf(level, sizeof(level), "%d", priv_levels[l]);
		for (i = 0; i < NPRIV; i++)
			got[i] = -EINTR;
		if (pmu_write_file(PARANOID, level))
			ksft_exit_fail_msg("cannot write " PARANOID "\n");
		priv_ctx_expected = priv_levels[l] <= 1;
		fflush(stdout);
		pid = fork();
		if (pid == 0) {
			if (drop_privileges())
				_exit(1);
			for (i = 0; i < NPRIV; i++)
				got[i] = priv_cases[i].run();
			fflush(stdout);
			_exit(0);
		}
		waitpid(pid, &status, 0);
		for (i = 0; i < NPRIV; i++) {
			char name[128];

			snprintf(name, sizeof(name), "paranoid_%d_%s_%s", priv_levels[l],
				 priv_cases[i].name, errname(priv_cases[i].want[l]));
			if (got[i] != priv_cases[i].want[l])
				ksft_print_msg("%s: got %s\n", name, errname(got[i]));
			pmu_result(got[i] == priv_cases[i].want[l], name);
		}
	}
	pmu_write_file(PARANOID, saved);
	munmap(got, sizeof(int) * NPRIV);
}

/* ---- setup ---- */

/* The arm_spe_N PMU, or a skip */
static void find_spe(void)
{
	static const char base[] = "/sys/bus/event_source/devices";
	struct dirent *de;
	uint64_t type;
	DIR *d;

	d = opendir(base);
	while (d && (de = readdir(d))) {
		if (strncmp(de->d_name, "arm_spe_", 8))
			continue;
		snprintf(spe.dir, sizeof(spe.dir), "%s/%s", base, de->d_name);
		spe.name = strrchr(spe.dir, '/') + 1;
		break;
	}
	if (d)
		closedir(d);
	if (!spe.name)
		ksft_exit_skip("no arm_spe_N PMU: the CPU lacks FEAT_SPE\n");
	if (pmu_sysfs_u64(&spe, "type", &type))
		ksft_exit_fail_msg("%s/type unreadable\n", spe.dir);
	spe.type = type;
	ksft_print_msg("SPE PMU %s type %u\n", spe.name, spe.type);
}

int main(void)
{
	const char *v = getenv("SPE_PMSVER"), *cut;
	unsigned int i;

	ksft_print_header();
	find_spe();
	if (pmu_find(&cpu_pmu))
		ksft_exit_fail_msg("no PMUv3 PMU for the SAMPLE_* events\n");
	if (getuid())
		ksft_exit_skip("must run as root (pagemap, perf_event_paranoid)\n");
	if (v)
		pmsver = atoi(v);
	ksft_print_msg("expecting PMSVer %d\n", pmsver);
	cut = getenv("SPE_CUT_RECORDS");
	ksft_set_plan(cut ? 2 : 5 + ARRAY_SIZE(filter_cases) + 1 + 2 + 2 + 3 +
		      (pmsver < 3 ? 1 : 3) + 3 + 4 + 3 + NPRIV * ARRAY_SIZE(priv_levels));

	/* Page-aligned arrays, faulted in with the loop's page before anything counts */
	src_words = mmap(NULL, ARRAY_BYTES, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	dst_words = mmap(NULL, ARRAY_BYTES, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (src_words == MAP_FAILED || dst_words == MAP_FAILED)
		ksft_exit_fail_perror("mmap arrays");
	memset(src_words, ARRAY_FILL & 0xff, ARRAY_BYTES);
	memset(dst_words, 0, ARRAY_BYTES);
	run_window(-1, 1);

	if (cut) {
		/* The model cuts records: only what that changes is checked */
		test_cut_record();
		ksft_finished();
		return 0;
	}
	test_loop();
	for (i = 0; i < ARRAY_SIZE(filter_cases); i++)
		test_filter(&filter_cases[i]);
	test_pa();
	test_ts();
	test_snapshot();
	test_drain_running();
	test_discard();
	test_two_tasks();
	test_periods();
	test_ioc_period();
	test_unprivileged();
	ksft_finished();
	return 0;
}
