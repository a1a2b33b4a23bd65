// SPDX-License-Identifier: GPL-2.0
/*
 * Register-level checks of our QEMU's FEAT_SPE model, with no kernel in
 * the way: QEMU loads this ELF on the virt board and starts it at EL2,
 * which owns the profiling buffer (MDCR_EL2.E2PB = 0). The program
 * profiles known code (spe-bare-start.S) at a known interval, walks the
 * records the model wrote, and checks each one's PC, operation type,
 * events, latencies and data address against what the instruction
 * stream says they must be; then each filter, discard mode with the
 * SAMPLE_* PMU events, the buffer-full event and its interrupt,
 * collisions, and the buffer's stage 1 translation and its faults.
 * Built and run by harness/qemu/test-bare.sh.
 */
#include <stdint.h>

#include "bare-tap.h"

/* GICv3 redistributor of CPU 0, SGI/PPI frame: GICR_ISPENDR0 */
#define GICR_ISPENDR0	((volatile uint32_t *)(0x080a0000 + 0x10000 + 0x200))
#define SPE_PPI		21

#define read_sysreg(r) ({ uint64_t __v; asm volatile("mrs %0, " #r : "=r"(__v)); __v; })
#define write_sysreg(v, r) asm volatile("msr " #r ", %0; isb" : : "r"((uint64_t)(v)))

/* SPE registers by encoding: the assembler may not know their names */
#define PMSCR_EL2	s3_4_c9_c9_0
#define PMSICR_EL1	s3_0_c9_c9_2
#define PMSIRR_EL1	s3_0_c9_c9_3
#define PMSFCR_EL1	s3_0_c9_c9_4
#define PMSEVFR_EL1	s3_0_c9_c9_5
#define PMSLATFR_EL1	s3_0_c9_c9_6
#define PMSIDR_EL1	s3_0_c9_c9_7
#define PMSNEVFR_EL1	s3_0_c9_c9_1
#define PMBLIMITR_EL1	s3_0_c9_c10_0
#define PMBPTR_EL1	s3_0_c9_c10_1
#define PMBSR_EL1	s3_0_c9_c10_3
#define PMBIDR_EL1	s3_0_c9_c10_7
#define rd(r)		read_sysreg(r)
#define wr(v, r)	write_sysreg(v, r)

#define E2SPE		(1UL << 1)
#define CX		(1UL << 3)
#define PA		(1UL << 4)
#define TS		(1UL << 5)
#define PCT		(1UL << 6)

#define FE		(1UL << 0)
#define FT		(1UL << 1)
#define FL		(1UL << 2)
#define FNE		(1UL << 3)
#define F_B		(1UL << 16)
#define F_LD		(1UL << 17)
#define F_ST		(1UL << 18)
#define F_FP		(1UL << 19)
#define F_SIMD		(1UL << 20)
#define M_B		(1UL << 48)
#define M_LD		(1UL << 49)
#define M_ST		(1UL << 50)
#define M_FP		(1UL << 51)
#define M_SIMD		(1UL << 52)

/* Written by test-bare.sh's loader: the mode properties of this run */
#define MODE_FLAGS	((volatile uint32_t *)0x47fff000)
#define MODE_LAZY	1
#define MODE_CUT	2
#define MODE_FDS	4
#define MODE_UNIMPL	16	/* x-spe-unimpl-events=0x800 */
#define MODE_EL3	32	/* x-spe-el3-owned=on */
#define MODE_COH	64	/* x-spe-coherence=on, -smp 2 */
/* With x-spe-lazy-sync and one instruction per TB: only isb_member_tests() */
#define MODE_ISB	8

/* A write with no ISB after it: x-spe-lazy-sync defers its effect */
#define msr_nosync(v, r)	asm volatile("msr " #r ", %0" : : "r"((uint64_t)(v)))
#define wr_nosync(v, r)	msr_nosync(v, r)
/* PSB CSYNC by its hint encoding */
#define psb_csync()	asm volatile("hint #17" : : : "memory")

#define LIM_E		1UL
#define LIM_DISCARD	(2UL << 1)

#define S_BIT		(1UL << 17)
#define DL_BIT		(1UL << 19)
#define COLL_BIT	(1UL << 16)

#define EV_RETIRED	(1 << 1)
#define EV_L1D		(1 << 2)
#define EV_TLB		(1 << 4)
#define EV_NOT_TAKEN	(1 << 6)
#define EV_MISALIGNED	(1 << 11)

/* PMU: events at EL2 (PMEVTYPER.NSH) */
#define NSH		(1UL << 27)
#define SAMPLE_POP	0x4000
#define SAMPLE_FEED	0x4001
#define SAMPLE_FILTRATE	0x4002
#define SAMPLE_COLLISION 0x4003

/* Memory: RAM from 0x40000000, this image at 0x40080000 */
#define BUF		0x41000000UL	/* profiling buffer */
#define BUF_SIZE	0x100000UL
#define SRC		0x42000000UL	/* spe_loop's loads */
#define DST		0x43000000UL	/* spe_loop's stores */
#define PT		0x44000000UL	/* page tables */

#define INTERVAL	256

extern void spe_loop(uint64_t n, uint64_t src, uint64_t dst, uint64_t pmscr);
extern void spe_collide(uint64_t pmscr, uint64_t count);
extern void spe_lazy_window(uint64_t pmscr);
extern void spe_loop_el1(uint64_t n, uint64_t src, uint64_t dst, uint64_t pmscr);
extern uint64_t at_el1(void *fn, uint64_t a, uint64_t b, uint64_t c, uint64_t d);
extern char spe_loop_body[], spe_collide_sampled[], spe_loop_el1_body[];
/* spe_sync_K and its K, in spe-bare-start.S's table, ended by a null fn */
struct sync_window {
	void (*fn)(uint64_t pmscr);
	uint64_t k;
};
extern const struct sync_window spe_sync_windows[];



static void memset8(uint64_t addr, uint8_t v, uint64_t len)
{
	volatile uint8_t *p = (volatile uint8_t *)addr;

	while (len--)
		*p++ = v;
}

/* ---- PMU: counters 0-3 count the SAMPLE_* events at EL2 ---- */

static void pmu_start(void)
{
	int i;

	write_sysreg(~0UL, pmcntenclr_el0);
	for (i = 0; i < 4; i++) {
		write_sysreg(i, pmselr_el0);
		write_sysreg(NSH | (SAMPLE_POP + i), pmxevtyper_el0);
	}
	write_sysreg(3, pmcr_el0);		/* E, P: zero them */
	write_sysreg(0xf, pmcntenset_el0);
}

static uint64_t pmu_read(int i)
{
	write_sysreg(i, pmselr_el0);
	return read_sysreg(pmxevcntr_el0);
}

/* ---- Records ---- */

struct rec {
	uint64_t pc;
	int el, ns;
	int cls, sub;
	uint32_t events;
	int lat_total, lat_issue, lat_xlat;
	int has_va, has_pa, has_ctx, has_ts, has_ds;
	uint64_t va, pa, ctx, ts, ds;
};

#define MAX_RECS	1200
static struct rec recs[MAX_RECS];

/*
 * Byte by byte: with the MMU off all memory is Device, where an
 * unaligned access the compiler might merge the bytes into faults.
 */
static uint64_t le(const volatile uint8_t *p, int n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

/* Decode [BUF, end): the number of records, or -1 on a malformed one */
static int parse(uint64_t start, uint64_t end)
{
	const uint8_t *p = (const uint8_t *)start, *e = (const uint8_t *)end;
	int n = 0;
	struct rec *r = &recs[0];

	for (int i = 0; i < MAX_RECS; i++)
		recs[i] = (struct rec){ 0 };
	while (p < e && n < MAX_RECS) {
		uint8_t h = *p++;
		uint64_t v;

		if (h == 0x00)
			continue;
		if (h == 0x01) {
			r = &recs[++n];
			continue;
		}
		if (h == 0x71) {
			r->has_ts = 1;
			r->ts = le(p, 8);
			p += 8;
			r = &recs[++n];
			continue;
		}
		if ((h & 0xcf) == 0x42) {
			int sz = 1 << ((h >> 4) & 3);

			r->events = le(p, sz);
			p += sz;
		} else if ((h & 0xcf) == 0x43) {
			int sz = 1 << ((h >> 4) & 3);

			r->has_ds = 1;
			r->ds = le(p, sz);
			p += sz;
		} else if ((h & 0xfc) == 0x64) {
			r->has_ctx = 1;
			r->ctx = le(p, 4) | (uint64_t)(h & 3) << 32;
			p += 4;
		} else if ((h & 0xfc) == 0x48) {
			r->cls = h & 3;
			r->sub = *p++;
		} else if ((h & 0xf8) == 0xb0) {
			v = le(p, 8);
			p += 8;
			switch (h & 7) {
			case 0:
				r->pc = v & ((1UL << 56) - 1);
				r->el = (v >> 61) & 3;
				r->ns = v >> 63;
				break;
			case 2:
				r->has_va = 1;
				r->va = v;
				break;
			case 3:
				r->has_pa = 1;
				r->pa = v;
				break;
			default:
				return -1;
			}
		} else if ((h & 0xf8) == 0x98) {
			v = le(p, 2);
			p += 2;
			if ((h & 7) == 0)
				r->lat_total = v;
			else if ((h & 7) == 1)
				r->lat_issue = v;
			else if ((h & 7) == 2)
				r->lat_xlat = v;
			else
				return -1;
		} else {
			return -1;
		}
	}
	return p == e ? n : -1;
}

/* ---- What spe_loop's samples must be ---- */

struct op {
	uint64_t pc;
	int slot;		/* 0-6 in the loop body, 7: the final MSR */
	int cls, sub;
	uint32_t events;
	int lat;
	uint64_t va;
};

/* Member m (from 1) of spe_loop(n, SRC, DST) */
static struct op loop_member(uint64_t m, uint64_t n)
{
	struct op o = { 0 };
	uint64_t k = m - 2, i = k / 7;

	o.events = EV_RETIRED;
	o.lat = 3;
	if (m == 1 || m == 7 * n + 2) {
		o.slot = m == 1 ? -1 : 7;
		o.pc = (uint64_t)spe_loop_body + (m == 1 ? -4 : 28);
		return o;
	}
	o.slot = k % 7;
	o.pc = (uint64_t)spe_loop_body + 4 * o.slot;
	switch (o.slot) {
	case 0:
	case 1:
		o.cls = 1;
		o.sub = o.slot;		/* general-purpose, ST */
		o.events |= EV_L1D | EV_TLB;
		o.lat = 6;
		o.va = (o.slot ? DST : SRC) + 8 * i;
		break;
	case 6:
		o.cls = 2;
		o.sub = 1;		/* conditional */
		if (i == n - 1)
			o.events |= EV_NOT_TAKEN;
		break;
	}
	return o;
}

static int op_types(const struct op *o)
{
	switch (o->slot) {
	case 0:
		return F_LD;
	case 1:
		return F_ST;
	case 2:
		return F_FP;
	case 3:
		return F_SIMD;
	case 6:
		return F_B;
	}
	return 0;
}

/* Does the sample pass PMSFCR/PMSEVFR/PMSNEVFR/PMSLATFR as the model's doc says */
static int passes(const struct op *o, uint64_t fcr, uint64_t evfr,
		  uint64_t nevfr, uint64_t minlat)
{
	uint64_t want = fcr & 0x1f0000, mask = (fcr >> 32) & 0x1f0000;
	uint64_t types = op_types(o), or_set = want & ~mask;

	if ((fcr & FE) && (o->events & evfr) != evfr)
		return 0;
	if ((fcr & FNE) && (o->events & nevfr))
		return 0;
	if (fcr & FT) {
		if ((types ^ want) & mask)
			return 0;
		if (or_set && !(types & or_set))
			return 0;
	}
	if ((fcr & FL) && (uint64_t)o->lat < minlat)
		return 0;
	return 1;
}

/*
 * The model's jitter: PMSIRR_EL1.RND adds the low byte of a xorshift64
 * generator seeded at reset with 0x5350452d4a495454 (CPU 0) to each
 * reload. The first reload is at the first member.
 */
static uint64_t rng_state = 0x5350452d4a495454UL;

static uint64_t next_interval(int jitter)
{
	uint64_t x = rng_state;

	if (!jitter)
		return INTERVAL;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	rng_state = x;
	return INTERVAL + (x & 0xff);
}

static void spe_reset(void)
{
	wr(0, PMSCR_EL2);
	wr(0, PMBLIMITR_EL1);
	wr(0, PMBSR_EL1);
	wr(0, PMSICR_EL1);
	wr(INTERVAL, PMSIRR_EL1);
	wr(0, PMSFCR_EL1);
	wr(0, PMSEVFR_EL1);
	wr(0, PMSNEVFR_EL1);
	wr(0, PMSLATFR_EL1);
	wr(BUF, PMBPTR_EL1);
	wr((BUF + BUF_SIZE) | LIM_E, PMBLIMITR_EL1);
	memset8(BUF, 0, 0x2000);
}

/*
 * Profile spe_loop(n) with the filter given, and check every record
 * against the instruction stream: count, PC, EL/NS, operation type,
 * events, latencies, data address; and the SAMPLE_* counts.
 */
static void run_loop(const char *name, uint64_t n, uint64_t fcr,
		     uint64_t evfr, uint64_t nevfr, uint64_t minlat, int jitter)
{
	uint64_t members = 7 * n + 2, m;
	int want = 0, got, bad = 0, j = 0, feed = 0;
	uint64_t bytes;

	spe_reset();
	if (jitter)
		wr(INTERVAL | 1, PMSIRR_EL1);
	wr(fcr, PMSFCR_EL1);
	wr(evfr, PMSEVFR_EL1);
	wr(nevfr, PMSNEVFR_EL1);
	wr(minlat, PMSLATFR_EL1);
	pmu_start();
	spe_loop(n, SRC, DST, E2SPE);
	write_sysreg(~0UL, pmcntenclr_el0);

	bytes = rd(PMBPTR_EL1) - BUF;
	got = parse(BUF, BUF + bytes);
	for (m = next_interval(jitter); m <= members;
	     m += next_interval(jitter)) {
		struct op o = loop_member(m, n);
		struct rec *r = &recs[j];

		feed++;
		if (!passes(&o, fcr, evfr, nevfr, minlat))
			continue;
		want++;
		if (j >= got) {
			j++;
			continue;
		}
		if (r->pc != o.pc || r->el != 2 || !r->ns || r->cls != o.cls ||
		    r->sub != o.sub || r->events != o.events ||
		    r->lat_total != o.lat || r->lat_issue != 1 ||
		    r->lat_xlat != (o.cls == 1 ? 2 : 0) ||
		    r->has_va != (o.cls == 1) || (o.cls == 1 && r->va != o.va) ||
		    r->has_pa || r->has_ctx || r->has_ts) {
			if (!bad) {
				puts_("# ");
				puts_(name);
				puts_(": record ");
				putu(j);
				puts_(" pc ");
				putx(r->pc);
				puts_(" want ");
				putx(o.pc);
				puts_(" op ");
				putu(r->cls);
				putc_('/');
				putx(r->sub);
				puts_(" ev ");
				putx(r->events);
				puts_(" va ");
				putx(r->va);
				puts_(" el/ns ");
				putu(r->el);
				putu(r->ns);
				puts_(" lat ");
				putu(r->lat_total);
				putc_('/');
				putu(r->lat_issue);
				putc_('/');
				putu(r->lat_xlat);
				puts_(" pa/ctx/ts ");
				putu(r->has_pa);
				putu(r->has_ctx);
				putu(r->has_ts);
				putc_('\n');
			}
			bad++;
		}
		j++;
	}
	test_n++;
	if (got != want || bad) {
		puts_("# ");
		puts_(name);
		puts_(": ");
		putu(got < 0 ? 0 : got);
		puts_(" records (parse ");
		puts_(got < 0 ? "failed" : "ok");
		puts_("), want ");
		putu(want);
		puts_(", ");
		putu(bad);
		puts_(" differ\n");
		puts_("not ");
	}
	puts_("ok ");
	putu(test_n);
	putc_(' ');
	puts_(name);
	puts_("_records\n");

	/* Population, samples taken, samples kept, collisions */
	{
		char buf[64];
		const char *sfx[] = { "_pop", "_feed", "_filtrate", "_collision" };
		uint64_t wants[] = { members, feed, want, 0 };
		int i, k;

		for (i = 0; i < 4; i++) {
			for (k = 0; name[k]; k++)
				buf[k] = name[k];
			for (int l = 0; sfx[i][l]; l++)
				buf[k++] = sfx[i][l];
			buf[k] = 0;
			check(buf, pmu_read(i), wants[i]);
		}
	}
}

static void run_loop_checked(const char *name, uint64_t n, uint64_t fcr,
			     uint64_t evfr, uint64_t nevfr, uint64_t minlat)
{
	run_loop(name, n, fcr, evfr, nevfr, minlat, 0);
}

static void identification(uint64_t *pmsver)
{
	uint64_t dfr0 = read_sysreg(id_aa64dfr0_el1);

	*pmsver = (dfr0 >> 32) & 0xf;
	puts_("# spe-bare: PMSVer ");
	putu(*pmsver);
	putc_('\n');
}

static void id_tests(void)
{
	uint64_t pmceid0 = read_sysreg(pmceid0_el0);

	/* FE, FT, FL, ArchInst, FnE; Interval 256, MaxSize 64, 12-bit; EFT */
	check("pmsidr", rd(PMSIDR_EL1), 0x402604fUL);
	/* Align 0, P 0 at the owning EL2, F: flags managed */
	check("pmbidr", rd(PMBIDR_EL1), 0x20);
	check("pmceid0_sample_events", (pmceid0 >> 32) & 0xf, 0xf);
	/* No FEAT_SPE_FDS without x-spe-fds: PMSFCR_EL1.FDS is RES0 */
	wr(1UL << 4, PMSFCR_EL1);
	check("pmsfcr_fds_res0", rd(PMSFCR_EL1), 0);
	wr(0, PMSFCR_EL1);
}

static void sampling_tests(void)
{
	/* No filter: every 256th member, 27 of 7002 */
	run_loop_checked("loop", 1000, 0, 0, 0, 0);
	check("loop_pmsicr_after", rd(PMSICR_EL1), INTERVAL - (7002 % INTERVAL));
	check("loop_pmbsr_clear", rd(PMBSR_EL1), 0);

	/* Type filters */
	run_loop_checked("ft_load", 1000, FT | F_LD, 0, 0, 0);
	run_loop_checked("ft_store", 1000, FT | F_ST, 0, 0, 0);
	run_loop_checked("ft_branch", 1000, FT | F_B, 0, 0, 0);
	run_loop_checked("ft_load_or_store", 1000, FT | F_LD | F_ST, 0, 0, 0);
	/* EFT: SIMD and FP only with their masks; AND with a 0: not stores */
	run_loop_checked("eft_simd", 1000, FT | F_SIMD | M_SIMD, 0, 0, 0);
	run_loop_checked("eft_fp", 1000, FT | F_FP | M_FP, 0, 0, 0);
	run_loop_checked("eft_not_store", 1000, FT | M_ST, 0, 0, 0);
	run_loop_checked("eft_load_or_simd", 1000, FT | F_LD | F_SIMD, 0, 0, 0);

	/* Event filters: retired (all), not taken (the last b.ne) */
	run_loop_checked("fe_retired", 1000, FE, EV_RETIRED, 0, 0);
	run_loop_checked("fe_misaligned", 1000, FE, EV_MISALIGNED, 0, 0);
	/* 7 * 1095 + 2 = 7667: member 7424 + 256 > 7667, choose n so the
	 * last b.ne (member 7n + 1) is sampled: 7n + 1 = 256 * 30 */
	run_loop_checked("fe_not_taken", 1097, FE, EV_NOT_TAKEN, 0, 0);
	run_loop_checked("fne_not_taken", 1097, FNE, 0, EV_NOT_TAKEN, 0);
	run_loop_checked("fne_retired", 1000, FNE, 0, EV_RETIRED, 0);

	/* Latency: loads and stores take 6 cycles, the rest 3 */
	run_loop_checked("fl_6", 1000, FL, 0, 0, 6);
	run_loop_checked("fl_7", 1000, FL, 0, 0, 7);
	run_loop_checked("fl_and_ft", 1000, FL | FT | F_LD | F_B, 0, 0, 4);

	/* PMSIRR_EL1.RND: the seeded jitter, the same at every run */
	run_loop("jitter", 1000, 0, 0, 0, 0, 1);
	check("jitter_pmsirr", rd(PMSIRR_EL1), INTERVAL | 1);
}

static void discard_tests(void)
{
	spe_reset();
	memset8(BUF, 0xaa, 64);
	wr((BUF + BUF_SIZE) | LIM_DISCARD | LIM_E, PMBLIMITR_EL1);
	pmu_start();
	spe_loop(1000, SRC, DST, E2SPE);
	write_sysreg(~0UL, pmcntenclr_el0);
	check("discard_pmbptr_unchanged", rd(PMBPTR_EL1), BUF);
	check("discard_buffer_untouched", *(volatile uint64_t *)BUF,
	      0xaaaaaaaaaaaaaaaaUL);
	check("discard_pop", pmu_read(0), 7002);
	check("discard_feed", pmu_read(1), 27);
	check("discard_filtrate", pmu_read(2), 27);
	check("discard_collision", pmu_read(3), 0);
	check("discard_pmbsr", rd(PMBSR_EL1), 0);
}

/*
 * Buffer full: loads only (33-byte records) into one 4 KB page. After
 * the 123rd record, 37 bytes are left, less than a record's 64 at most:
 * the buffer management event stops profiling there.
 */
static void buffer_full_tests(void)
{
	uint64_t n = 40000, members = 7 * n + 2, m, loads = 0, full_at = 0;

	spe_reset();
	wr(FT | F_LD, PMSFCR_EL1);
	wr((BUF + 0x1000) | LIM_E, PMBLIMITR_EL1);
	check("irq_not_pending_before", *GICR_ISPENDR0 >> SPE_PPI & 1, 0);
	pmu_start();
	spe_loop(n, SRC, DST, E2SPE);
	write_sysreg(~0UL, pmcntenclr_el0);

	for (m = INTERVAL; m <= members && !full_at; m += INTERVAL) {
		struct op o = loop_member(m, n);

		if (o.slot == 0 && ++loads == 123)
			full_at = m;
	}
	check("full_pmbsr", rd(PMBSR_EL1), S_BIT | 1);
	check("full_pmbptr", rd(PMBPTR_EL1), BUF + 123 * 33);
	check("full_records", parse(BUF, rd(PMBPTR_EL1)), 123);
	check("full_last_record_pc", recs[122].pc, (uint64_t)spe_loop_body);
	check("full_last_record_va", recs[122].va,
	      SRC + 8 * ((full_at - 2) / 7));
	/* Profiling stopped at the sample that filled the buffer */
	check("full_pop_stops", pmu_read(0), full_at);
	check("full_feed_stops", pmu_read(1), full_at / INTERVAL);
	check("full_filtrate", pmu_read(2), 123);
	check("full_pmsicr_frozen", rd(PMSICR_EL1), INTERVAL);
	check("full_irq_pending", *GICR_ISPENDR0 >> SPE_PPI & 1, 1);
	wr(0, PMBSR_EL1);
	check("full_irq_cleared", *GICR_ISPENDR0 >> SPE_PPI & 1, 0);
	wr(0, PMBLIMITR_EL1);
}

/* Collisions: a sample selected while the previous one is in flight */
static void collision_tests(void)
{
	/* Third nop sampled at member 3, in flight until member 6 */
	spe_reset();
	wr(3, PMSICR_EL1);
	pmu_start();
	spe_collide(E2SPE, 1);		/* next one at member 5: collides */
	write_sysreg(~0UL, pmcntenclr_el0);
	check("coll_pmbsr", rd(PMBSR_EL1), COLL_BIT);
	check("coll_records", parse(BUF, rd(PMBPTR_EL1)), 1);
	check("coll_record_pc", recs[0].pc, (uint64_t)spe_collide_sampled);
	check("coll_pop", pmu_read(0), 9);
	check("coll_feed", pmu_read(1), 1);
	check("coll_collision", pmu_read(3), 1);

	spe_reset();
	wr(3, PMSICR_EL1);
	pmu_start();
	spe_collide(E2SPE, 2);		/* at member 6: the first is done */
	write_sysreg(~0UL, pmcntenclr_el0);
	check("nocoll_pmbsr", rd(PMBSR_EL1), 0);
	check("nocoll_records", parse(BUF, rd(PMBPTR_EL1)), 2);
	check("nocoll_second_pc", recs[1].pc,
	      (uint64_t)spe_collide_sampled + 12);
	check("nocoll_collision", pmu_read(3), 0);
}

/* Timestamp, context and physical address packets */
static void packet_tests(void)
{
	uint64_t t0, t1;
	int n, i, ok = 1;

	spe_reset();
	write_sysreg(0x5a5a, s3_4_c13_c0_1);	/* CONTEXTIDR_EL2 */
	t0 = read_sysreg(cntpct_el0);
	spe_loop(300, SRC, DST, E2SPE | CX | PA | TS | PCT);
	t1 = read_sysreg(cntpct_el0);
	n = parse(BUF, rd(PMBPTR_EL1));
	check("ts_records", n, 2102 / INTERVAL);
	for (i = 0; i < n; i++) {
		if (!recs[i].has_ts || recs[i].ts < t0 || recs[i].ts > t1 ||
		    (i && recs[i].ts < recs[i - 1].ts) ||
		    recs[i].ctx != ((1UL << 32) | 0x5a5a))
			ok = 0;
	}
	check("ts_ctx_in_every_record", ok, 1);
	/* Sample 4 is a load (member 1024: iteration 146); MMU off: PA = VA */
	check("pa_load_va", recs[3].va, SRC + 8 * 146);
	check("pa_load_pa", recs[3].pa, (1UL << 63) | (SRC + 8 * 146));
	check("pa_only_for_data", recs[0].has_pa, 0);
}

/* Profiling prohibited or off: E2PB = 0b11 gives the buffer to EL1 */
static void prohibited_tests(void)
{
	uint64_t mdcr = read_sysreg(mdcr_el2);

	spe_reset();
	pmu_start();
	write_sysreg(mdcr | (3UL << 12), mdcr_el2);
	spe_loop(1000, SRC, DST, E2SPE);
	write_sysreg(mdcr, mdcr_el2);
	write_sysreg(~0UL, pmcntenclr_el0);
	check("el1_owner_prohibits_el2", rd(PMBPTR_EL1), BUF);
	check("el1_owner_pop", pmu_read(0), 0);

	spe_reset();
	pmu_start();
	spe_loop(1000, SRC, DST, 0);
	write_sysreg(~0UL, pmcntenclr_el0);
	check("e2spe_off", rd(PMBPTR_EL1), BUF);
	check("e2spe_off_pop", pmu_read(0), 0);
}

/*
 * The buffer is written through EL2's stage 1: with the MMU on, VA
 * 0x80000000 maps RAM at 0x40000000 and 0xc0000000 is unmapped.
 */
static void mmu_on(void)
{
	uint64_t *l1 = (uint64_t *)PT;
	int i;

	for (i = 0; i < 512; i++)
		l1[i] = 0;
	l1[0] = 0x00000000UL | 0x401 | (0 << 2);	/* devices */
	l1[1] = 0x40000000UL | 0x701 | (1 << 2);	/* RAM */
	l1[2] = 0x40000000UL | 0x701 | (1 << 2);	/* RAM, alias */
	asm volatile("dsb sy");
	write_sysreg(0xff00, mair_el2);
	/* T0SZ 25 (start at level 1), WBWA, inner shareable, 4K, 40-bit PA */
	write_sysreg(25 | (1 << 8) | (1 << 10) | (3 << 12) | (2UL << 16) |
		     (1UL << 23) | (1UL << 31), tcr_el2);
	write_sysreg(PT, ttbr0_el2);
	asm volatile("tlbi alle2; dsb sy; isb");
	write_sysreg(read_sysreg(sctlr_el2) | 1 | (1 << 2) | (1 << 12),
		     sctlr_el2);
}

static void translation_tests(void)
{
	uint64_t alias = BUF - 0x40000000UL + 0x80000000UL;

	mmu_on();
	spe_reset();
	wr(alias, PMBPTR_EL1);
	wr((alias + BUF_SIZE) | LIM_E, PMBLIMITR_EL1);
	spe_loop(1000, SRC, DST, E2SPE);
	check("stage1_pmbptr_is_va", rd(PMBPTR_EL1) - alias > 0, 1);
	check("stage1_records_at_pa", parse(BUF, BUF + rd(PMBPTR_EL1) - alias),
	      27);
	check("stage1_pmbsr", rd(PMBSR_EL1), 0);

	spe_reset();
	wr(0xc0000000UL, PMBPTR_EL1);
	wr((0xc0000000UL + BUF_SIZE) | LIM_E, PMBLIMITR_EL1);
	pmu_start();
	spe_loop(1000, SRC, DST, E2SPE);
	write_sysreg(~0UL, pmcntenclr_el0);
	/* S, EC 0x24 (stage 1 data abort), FSC 0x05 (translation, level 1) */
	check("fault_pmbsr", rd(PMBSR_EL1), (0x24UL << 26) | S_BIT | 0x05);
	check("fault_pmbptr", rd(PMBPTR_EL1), 0xc0000000UL);
	check("fault_stops_profiling", pmu_read(0), INTERVAL);
	check("fault_irq_pending", *GICR_ISPENDR0 >> SPE_PPI & 1, 1);
	wr(0, PMBSR_EL1);
	wr(0, PMBLIMITR_EL1);
}

/* ---- EL1 owning the buffer, with stage 2 ---- */

#define E1SPE		(1UL << 1)	/* PMSCR_EL1.E1SPE */
#define PMSCR_EL1	s3_0_c9_c9_0
#define HCR_VM		(1UL << 0)
#define HCR_RW		(1UL << 31)
#define HCR_E2H		(1UL << 34)
#define E2PB_EL1	(3UL << 12)	/* MDCR_EL2.E2PB: EL1 owns, no traps */
#define EC_S1		(0x24UL << 26)
#define EC_S2		(0x25UL << 26)
#define EA_BIT		(1UL << 18)

/* Stage 2: identity, 2 MB blocks, the buffer's 2 MB in 4 KB pages */
#define S2L1		(PT + 0x10000)
#define S2L2		(PT + 0x11000)
#define S2L3		(PT + 0x12000)
#define S2_RAM		0x7fdUL		/* AF, inner shareable, RW, Normal WB */
#define S2_DEV		0x4c1UL		/* AF, RW, Device-nGnRnE */
/* EL1's stage 1 tables (the stage 2 IPA space) */
#define S1L1		(PT + 0x13000)
#define HOLE		(BUF + 0x1000)	/* no stage 2 mapping */
#define NO_RAM		0x1000000000UL	/* no memory here on the virt board */

static void s2_tables(void)
{
	uint64_t *l1 = (uint64_t *)S2L1, *l2 = (uint64_t *)S2L2;
	uint64_t *l3 = (uint64_t *)S2L3;
	int i;

	for (i = 0; i < 512; i++) {
		l1[i] = 0;
		l2[i] = (0x40000000UL + ((uint64_t)i << 21)) | S2_RAM;
		l3[i] = (0x41000000UL + ((uint64_t)i << 12)) | S2_RAM | 2;
	}
	l1[0] = 0x00000000UL | S2_DEV;
	l1[1] = S2L2 | 3;
	l2[(BUF - 0x40000000UL) >> 21] = S2L3 | 3;
	l3[(HOLE - BUF) >> 12] = 0;
	/* 0x41200000: a table the walk cannot read (external abort) */
	l2[((BUF - 0x40000000UL) >> 21) + 1] = NO_RAM | 3;
	asm volatile("dsb sy");
	/* T0SZ 25, SL0 1 (level 1), WBWA, inner shareable, 4K, 40-bit PS */
	write_sysreg(25 | (1 << 6) | (1 << 8) | (1 << 10) | (3 << 12) |
		     (2UL << 16) | (1UL << 31), vtcr_el2);
	write_sysreg(S2L1, vttbr_el2);
	asm volatile("tlbi alle1; dsb sy; isb");
}

static void s2_map_hole(int mapped)
{
	((volatile uint64_t *)S2L3)[(HOLE - BUF) >> 12] =
		mapped ? HOLE | S2_RAM | 2 : 0;
	asm volatile("dsb sy; tlbi alle1; dsb sy; isb");
}

/*
 * EL1's stage 1: the EL2 layout of mmu_on() (RAM at VA 0x40000000 and
 * 0x80000000, nothing at 0xc0000000) in its own table, or with
 * 0xc0000000's level 2 table at an IPA stage 2 does not map.
 */
static void el1_mmu(int on, int table_in_hole)
{
	uint64_t *l1 = (uint64_t *)S1L1;
	int i;

	if (!on) {
		write_sysreg(read_sysreg(sctlr_el1) & ~1UL, sctlr_el1);
		return;
	}
	for (i = 0; i < 512; i++)
		l1[i] = 0;
	l1[0] = 0x00000000UL | 0x401;
	l1[1] = 0x40000000UL | 0x701 | (1 << 2);
	l1[2] = 0x40000000UL | 0x701 | (1 << 2);
	if (table_in_hole)
		l1[3] = HOLE | 3;
	asm volatile("dsb sy");
	write_sysreg(0xff00, mair_el1);
	/* T0SZ 25, WBWA, inner shareable, 4K, EPD1, 40-bit IPS */
	write_sysreg(25 | (1 << 8) | (1 << 10) | (3 << 12) | (1UL << 23) |
		     (2UL << 32), tcr_el1);
	write_sysreg(S1L1, ttbr0_el1);
	asm volatile("tlbi vmalle1; dsb sy; isb");
	write_sysreg(read_sysreg(sctlr_el1) | 1 | (1 << 2) | (1 << 12),
		     sctlr_el1);
}

/* EL1 owns the buffer, stage 2 on; EL1's PMSCR enables E1SPE only */
static void el1_owner(int s2)
{
	write_sysreg(read_sysreg(mdcr_el2) | E2PB_EL1, mdcr_el2);
	write_sysreg(HCR_RW | (s2 ? HCR_VM : 0), hcr_el2);
	write_sysreg(3UL << 20, cpacr_el1);	/* FPEN: the loop's FP/SIMD */
}

static void el2_owner(void)
{
	write_sysreg(HCR_RW, hcr_el2);
	write_sysreg(read_sysreg(mdcr_el2) & ~E2PB_EL1, mdcr_el2);
}

/* spe_loop_el1(n) at EL1 with PMSCR_EL1 = pmscr */
static void loop_at_el1(uint64_t n, uint64_t pmscr)
{
	pmu_start();
	at_el1(spe_loop_el1, n, SRC, DST, pmscr);
	write_sysreg(~0UL, pmcntenclr_el0);
}

/* Every record of [start, end) a sample of spe_loop_el1 at EL1 */
static int el1_records_ok(uint64_t start, uint64_t end, int want)
{
	int n = parse(start, end), i;

	if (n != want)
		return 0;
	for (i = 0; i < n; i++) {
		if (recs[i].el != 1 || recs[i].pc < (uint64_t)spe_loop_el1_body - 4 ||
		    recs[i].pc > (uint64_t)spe_loop_el1_body + 28)
			return 0;
	}
	return 1;
}

/*
 * A buffer EL1 owns is written through stage 1 and stage 2; a stage 2
 * fault is a buffer management event with EC 0b100101 and the fault
 * status in MSS, PMBPTR_EL1 at the byte that faulted.
 */
static void stage2_tests(void)
{
	uint64_t first = 0xff8, *p = (uint64_t *)(HOLE - 8);

	s2_tables();
	el1_owner(1);

	/* No fault: 27 records at EL1 through stage 2 */
	spe_reset();
	loop_at_el1(1000, E1SPE);
	check("el1_s2_pmbsr", rd(PMBSR_EL1), 0);
	check("el1_s2_records", el1_records_ok(BUF, rd(PMBPTR_EL1), 27), 1);

	/* The first record (21 bytes) straddles into the hole after 8 */
	spe_reset();
	*p = 0;
	wr(BUF + first, PMBPTR_EL1);
	loop_at_el1(1000, E1SPE);
	check("s2_fault_pmbsr", rd(PMBSR_EL1), EC_S2 | S_BIT | DL_BIT | 0x07);
	check("s2_fault_pmbptr", rd(PMBPTR_EL1), HOLE);
	check("s2_fault_partial_written", *(volatile uint8_t *)(BUF + first),
	      0xb0);
	check("s2_fault_stops_profiling", pmu_read(0), INTERVAL);
	check("s2_fault_pmsicr_frozen", rd(PMSICR_EL1), INTERVAL);
	check("s2_fault_irq_pending", *GICR_ISPENDR0 >> SPE_PPI & 1, 1);

	/* What a hypervisor does: map the page, clear S, resume */
	s2_map_hole(1);
	wr(0, PMBSR_EL1);
	check("s2_fault_irq_cleared", *GICR_ISPENDR0 >> SPE_PPI & 1, 0);
	loop_at_el1(1000, E1SPE);
	check("s2_resume_pmbsr", rd(PMBSR_EL1), 0);
	check("s2_resume_records_at_fault", el1_records_ok(HOLE, rd(PMBPTR_EL1), 27), 1);
	s2_map_hole(0);

	/* A record starting in the hole: nothing lost, no DL */
	spe_reset();
	wr(HOLE, PMBPTR_EL1);
	loop_at_el1(1000, E1SPE);
	check("s2_fault_at_start_pmbsr", rd(PMBSR_EL1), EC_S2 | S_BIT | 0x07);
	check("s2_fault_at_start_pmbptr", rd(PMBPTR_EL1), HOLE);
	wr(0, PMBSR_EL1);

	/* The stage 2 walk aborts (no memory under the table): EA */
	spe_reset();
	wr(BUF + 0x200000, PMBPTR_EL1);
	wr((BUF + 0x300000) | LIM_E, PMBLIMITR_EL1);
	loop_at_el1(1000, E1SPE);
	check("s2_walk_abort_pmbsr", rd(PMBSR_EL1),
	      EC_S2 | S_BIT | EA_BIT | 0x17);
	check("s2_walk_abort_pmbptr", rd(PMBPTR_EL1), BUF + 0x200000);
	wr(0, PMBSR_EL1);

	/* EL1's stage 1: its own faults are EC 0b100100 */
	el1_mmu(1, 0);
	spe_reset();
	wr(0xc0000000UL, PMBPTR_EL1);
	wr((0xc0000000UL + BUF_SIZE) | LIM_E, PMBLIMITR_EL1);
	loop_at_el1(1000, E1SPE);
	check("el1_s1_fault_pmbsr", rd(PMBSR_EL1), EC_S1 | S_BIT | 0x05);
	check("el1_s1_fault_pmbptr", rd(PMBPTR_EL1), 0xc0000000UL);
	wr(0, PMBSR_EL1);

	/* Through both stages at the alias VA: records land at the PA */
	spe_reset();
	wr(BUF + 0x40000000UL, PMBPTR_EL1);
	wr((BUF + 0x40000000UL + BUF_SIZE) | LIM_E, PMBLIMITR_EL1);
	loop_at_el1(1000, E1SPE);
	check("el1_s1_s2_pmbsr", rd(PMBSR_EL1), 0);
	check("el1_s1_s2_records_at_pa",
	      el1_records_ok(BUF, rd(PMBPTR_EL1) - 0x40000000UL, 27), 1);

	/* Stage 1's table in the stage 2 hole: a stage 2 fault on the walk */
	el1_mmu(1, 1);
	spe_reset();
	wr(0xc0000000UL, PMBPTR_EL1);
	wr((0xc0000000UL + BUF_SIZE) | LIM_E, PMBLIMITR_EL1);
	loop_at_el1(1000, E1SPE);
	check("s2_fault_on_s1_walk_pmbsr", rd(PMBSR_EL1),
	      EC_S2 | S_BIT | 0x07);
	check("s2_fault_on_s1_walk_pmbptr", rd(PMBPTR_EL1), 0xc0000000UL);
	wr(0, PMBSR_EL1);
	el1_mmu(0, 0);

	/* A buffer EL2 owns is never written through stage 2 */
	el2_owner();
	write_sysreg(HCR_RW | HCR_VM, hcr_el2);
	spe_reset();
	wr(HOLE, PMBPTR_EL1);
	spe_loop(1000, SRC, DST, E2SPE);
	check("el2_owner_ignores_s2_pmbsr", rd(PMBSR_EL1), 0);
	check("el2_owner_ignores_s2_records", parse(HOLE, rd(PMBPTR_EL1)), 27);
	write_sysreg(HCR_RW, hcr_el2);
	wr(0, PMBLIMITR_EL1);
}

/*
 * PMSCR_EL2 limits what an EL1 owner collects: the physical address
 * only with PMSCR_EL2.PA, the physical timestamp only as PMSCR_EL2.PCT
 * allows (0b00: virtual, 0b01: EL1's choice, 0b11: physical minus
 * CNTPOFF_EL2 in place of physical, FEAT_ECV). Timestamps are checked
 * against EL2's CNTPCT_EL0 read around the loop, minus the offset the
 * rule picks.
 */
#define CNTVOFF		(1UL << 40)
#define CNTPOFF		(1UL << 41)
#define PCT_PHYS	(1UL << 6)
#define PCT_GUEST	(3UL << 6)
#define CNTHCTL_ECV	(1UL << 12)

static int el1_ts_ok(uint64_t pmscr_el2, uint64_t pmscr_el1, uint64_t off,
		     int want_pa)
{
	uint64_t t0, t1;
	int n, i;

	spe_reset();
	wr(pmscr_el2, PMSCR_EL2);
	t0 = read_sysreg(cntpct_el0) - off;
	at_el1(spe_loop_el1, 300, SRC, DST, E1SPE | TS | pmscr_el1);
	t1 = read_sysreg(cntpct_el0) - off;
	wr(0, PMSCR_EL2);
	n = parse(BUF, rd(PMBPTR_EL1));
	if (n != 2102 / INTERVAL)
		return 0;
	for (i = 0; i < n; i++) {
		if (!recs[i].has_ts || recs[i].ts - t0 > t1 - t0 ||
		    recs[i].has_pa != (want_pa && recs[i].cls == 1))
			return 0;
	}
	/* Sample 4 is a load: its PA, the same as its VA (identity) */
	return !want_pa || recs[3].pa == ((1UL << 63) | (SRC + 8 * 146));
}

/* The same at EL2, which owns the buffer */
static int el2_ts_ok(uint64_t pct, uint64_t off)
{
	uint64_t t0, t1;
	int n, i;

	spe_reset();
	t0 = read_sysreg(cntpct_el0) - off;
	spe_loop(300, SRC, DST, E2SPE | TS | pct);
	t1 = read_sysreg(cntpct_el0) - off;
	n = parse(BUF, rd(PMBPTR_EL1));
	if (n != 2102 / INTERVAL)
		return 0;
	for (i = 0; i < n; i++) {
		if (!recs[i].has_ts || recs[i].ts - t0 > t1 - t0)
			return 0;
	}
	return 1;
}

static void pmscr_el2_tests(void)
{
	uint64_t cptr;

	el1_owner(0);
	write_sysreg(CNTVOFF, cntvoff_el2);
	write_sysreg(CNTPOFF, s3_4_c14_c0_6);		/* CNTPOFF_EL2 */
	write_sysreg(read_sysreg(cnthctl_el2) | CNTHCTL_ECV, cnthctl_el2);

	check("el1_pa_needs_el2_pa", el1_ts_ok(0, PA, CNTVOFF, 0), 1);
	check("el1_pa_with_el2_pa", el1_ts_ok(PA, PA, CNTVOFF, 1), 1);
	check("el2_pa_alone_no_pa", el1_ts_ok(PA, 0, CNTVOFF, 0), 1);
	check("el1_pct_el2_virtual", el1_ts_ok(0, PCT_PHYS, CNTVOFF, 0), 1);
	check("el1_pct_el2_phys", el1_ts_ok(PCT_PHYS, PCT_PHYS, 0, 0), 1);
	check("el1_virtual_el2_phys", el1_ts_ok(PCT_PHYS, 0, CNTVOFF, 0), 1);
	check("el1_pct_el2_guest", el1_ts_ok(PCT_GUEST, PCT_PHYS, CNTPOFF, 0), 1);
	check("el1_guest_el2_phys", el1_ts_ok(PCT_PHYS, PCT_GUEST, CNTPOFF, 0), 1);
	check("el1_virtual_el2_guest", el1_ts_ok(PCT_GUEST, 0, CNTVOFF, 0), 1);
	/* 0b10 is reserved: the virtual timestamp */
	check("el1_pct_reserved_virtual",
	      el1_ts_ok(PCT_PHYS, 2UL << 6, CNTVOFF, 0), 1);
	/* CNTPOFF_EL2 applies only with CNTHCTL_EL2.ECV */
	write_sysreg(read_sysreg(cnthctl_el2) & ~CNTHCTL_ECV, cnthctl_el2);
	check("el1_guest_no_ecv_phys", el1_ts_ok(PCT_GUEST, PCT_PHYS, 0, 0), 1);

	el2_owner();
	check("el2_virtual_ts", el2_ts_ok(0, CNTVOFF), 1);
	/* A host (E2H) has no virtual offset: PCT 0b00 is physical there */
	write_sysreg(read_sysreg(sctlr_el2) & ~1UL, sctlr_el2);
	cptr = read_sysreg(cptr_el2);
	write_sysreg(HCR_RW | HCR_E2H, hcr_el2);
	write_sysreg(3UL << 20, cptr_el2);	/* E2H's FPEN: no FP traps */
	check("el2_host_virtual_is_physical", el2_ts_ok(0, 0), 1);
	write_sysreg(HCR_RW, hcr_el2);
	write_sysreg(cptr, cptr_el2);
	write_sysreg(0, cntvoff_el2);
	write_sysreg(0, s3_4_c14_c0_6);
}

/*
 * x-spe-fds (FEAT_SPE_FDS): loads carry a Data Source packet, 0 (L1D)
 * from cacheable memory, 14 (DRAM) from Device memory (the MMU off) or
 * non-cacheable; PMSFCR_EL1.FDS drops a load whose source's PMSDSFR_EL1
 * bit is clear and keeps every other operation.
 */
#define PMSDSFR_EL1	s3_0_c9_c10_4
#define FDS		(1UL << 4)
#define DS_L1D		0
#define DS_DRAM		14

/* spe_loop(1000) with the filter given: each record as it must be */
static int fds_run(uint64_t fcr, uint64_t dsfr, uint64_t ds, int keep_loads)
{
	uint64_t m;
	int got, j = 0;

	spe_reset();
	wr(fcr, PMSFCR_EL1);
	wr(dsfr, PMSDSFR_EL1);
	spe_loop(1000, SRC, DST, E2SPE);
	got = parse(BUF, rd(PMBPTR_EL1));
	for (m = INTERVAL; m <= 7002; m += INTERVAL) {
		struct op o = loop_member(m, 1000);
		int load = o.slot == 0;

		if ((load && !keep_loads) || ((fcr & FT) && !load))
			continue;
		if (j >= got || recs[j].pc != o.pc || recs[j].has_ds != load ||
		    (load && recs[j].ds != ds))
			return 0;
		j++;
	}
	return j == got && rd(PMBSR_EL1) == 0;
}

/*
 * x-spe-unimpl-events=0x800: no misaligned-access event (11). Its filter
 * bit reads as zero in both filter registers, the rest of SPEv1p2's set
 * (0xffff0000ff06f8ea) reads back as written.
 */
static void unimpl_events_tests(void)
{
	wr(~0UL, PMSEVFR_EL1);
	check("unimpl_pmsevfr_reads_back_without_11", rd(PMSEVFR_EL1), 0xffff0000ff06f0eaUL);
	wr(~0UL, PMSNEVFR_EL1);
	check("unimpl_pmsnevfr_reads_back_without_11", rd(PMSNEVFR_EL1), 0xffff0000ff06f0eaUL);
	wr(0, PMSEVFR_EL1);
	wr(0, PMSNEVFR_EL1);
}

/* x-spe-el3-owned: firmware keeps the buffer, PMBIDR_EL1.P says so */
static void el3_owned_tests(void)
{
	check("el3_owned_pmbidr_p", rd(PMBIDR_EL1) >> 4 & 1, 1);
}

static void fds_tests(void)
{
	/* LDS, FDS beside the rest */
	check("fds_pmsidr", rd(PMSIDR_EL1), 0x402604fUL | (1 << 4) | (1 << 7));
	spe_reset();
	wr(FDS, PMSFCR_EL1);
	check("fds_pmsfcr_fds", rd(PMSFCR_EL1), FDS);
	wr(0x8000000000004001UL, PMSDSFR_EL1);
	check("fds_pmsdsfr", rd(PMSDSFR_EL1), 0x8000000000004001UL);

	/* MMU off: Device memory, source DRAM */
	check("fds_off_all_records", fds_run(0, 0, DS_DRAM, 1), 1);
	check("fds_dram_kept", fds_run(FDS, 1UL << DS_DRAM, DS_DRAM, 1), 1);
	check("fds_l1d_only_drops_loads", fds_run(FDS, 1UL << DS_L1D, 0, 0), 1);
	check("fds_none_drops_loads", fds_run(FDS, 0, 0, 0), 1);
	check("fds_and_ft_load", fds_run(FDS | FT | F_LD, 1UL << DS_L1D, 0, 0), 1);
	check("fds_and_ft_load_kept",
	      fds_run(FDS | FT | F_LD, ~0UL, DS_DRAM, 1), 1);

	/* EL2's MMU on: Normal write-back memory, source L1D */
	mmu_on();
	check("fds_cacheable_l1d_kept", fds_run(FDS, 1UL << DS_L1D, DS_L1D, 1), 1);
	check("fds_cacheable_dram_only_drops",
	      fds_run(FDS, 1UL << DS_DRAM, 0, 0), 1);
	wr(0, PMBLIMITR_EL1);
}

/*
 * ---- x-spe-coherence: data sources from the coherence model ----
 *
 * CPU 1 (started with PSCI CPU_ON) makes one access at a time for CPU 0
 * through a mailbox; CPU 0 samples one load of its own and reads the
 * record's data source: 0 (L1D) for a line it holds, 9 (peer core) for
 * one CPU 1 wrote since, 14 (DRAM) for one no CPU wrote and it does not
 * hold. WFE hands the turn to the other vCPU (TCG yields on it).
 */
#define COH_LINES	0x45000000UL	/* lines nothing touched since reset */
#define COH_MBOX	((volatile uint64_t *)0x46000000UL)	/* cmd, addr, done */
#define DS_PEER_CORE	9
#define COH_WAIT	1000000	/* WFEs CPU 0 waits for CPU 1 at most */

enum { COH_IDLE, COH_LOAD, COH_STORE, COH_ATOMIC, COH_ZVA };

extern void coh_secondary_entry(void);
extern void coh_load(uint64_t addr, uint64_t pmscr);
extern void coh_store(uint64_t addr, uint64_t pmscr);
extern char coh_load_insn[], coh_store_insn[];

static void coh_access(uint64_t cmd, uint64_t addr)
{
	uint64_t v;

	switch (cmd) {
	case COH_LOAD:
		asm volatile("ldr %0, [%1]" : "=r"(v) : "r"(addr) : "memory");
		break;
	case COH_STORE:
		asm volatile("str %0, [%0]" : : "r"(addr) : "memory");
		break;
	case COH_ATOMIC:
		asm volatile(".arch_extension lse\n\tldadd %1, %0, [%2]"
			     : "=r"(v) : "r"(1UL), "r"(addr) : "memory");
		break;
	case COH_ZVA:
		asm volatile("dc zva, %0" : : "r"(addr) : "memory");
		break;
	}
}

/* CPU 1: one access per command CPU 0 posts, then the count done so far */
void coh_secondary(void);
void coh_secondary(void)
{
	uint64_t done = 0, cmd;

	for (;;) {
		cmd = COH_MBOX[0];
		if (cmd == COH_IDLE) {
			asm volatile("wfe");
			continue;
		}
		asm volatile("dmb ish" : : : "memory");
		coh_access(cmd, COH_MBOX[1]);
		COH_MBOX[0] = COH_IDLE;
		asm volatile("dmb ish" : : : "memory");
		COH_MBOX[2] = ++done;
	}
}

static uint64_t coh_posted;

/* CPU 1 makes one access; 0 if it did not answer */
static int coh_peer(uint64_t cmd, uint64_t addr)
{
	int i;

	COH_MBOX[1] = addr;
	asm volatile("dmb ish" : : : "memory");
	COH_MBOX[0] = cmd;
	coh_posted++;
	for (i = 0; i < COH_WAIT && COH_MBOX[2] != coh_posted; i++)
		asm volatile("wfe");
	return COH_MBOX[2] == coh_posted;
}

static uint64_t psci_cpu_on(uint64_t mpidr, uint64_t entry)
{
	register uint64_t x0 asm("x0") = 0xc4000003;	/* CPU_ON, SMC64 */
	register uint64_t x1 asm("x1") = mpidr;
	register uint64_t x2 asm("x2") = entry;
	register uint64_t x3 asm("x3") = 0;

	asm volatile("smc #0" : "+r"(x0) : "r"(x1), "r"(x2), "r"(x3) : "memory");
	return x0;
}

/*
 * CPU 0's own sampled load (or store) at addr: the data source of its
 * one record; -1 without a Data Source packet, -2 if the record is not
 * the one access at addr.
 */
static uint64_t coh_sample(uint64_t addr, int store)
{
	uint64_t pc = (uint64_t)(store ? coh_store_insn : coh_load_insn);

	spe_reset();
	wr(2, PMSICR_EL1);
	if (store)
		coh_store(addr, E2SPE);
	else
		coh_load(addr, E2SPE);
	if (parse(BUF, rd(PMBPTR_EL1)) != 1 || recs[0].pc != pc ||
	    recs[0].va != addr)
		return -2;
	return recs[0].has_ds ? recs[0].ds : (uint64_t)-1;
}

/* CPU 1 makes an access, then CPU 0 samples a load: its data source */
static uint64_t coh_after_peer(uint64_t cmd, uint64_t peer_addr, uint64_t addr)
{
	if (!coh_peer(cmd, peer_addr))
		return -3;
	return coh_sample(addr, 0);
}

static void coherence_tests(void)
{
	uint64_t a = COH_LINES, b = a + 0x1000, c = a + 0x2000;
	uint64_t d = a + 0x3000, e = a + 0x4000, g = a + 0x5000;

	/* LDS: loads carry a Data Source packet; no FDS without x-spe-fds */
	check("coh_pmsidr_lds", rd(PMSIDR_EL1), 0x402604fUL | (1 << 4));
	COH_MBOX[0] = COH_IDLE;
	COH_MBOX[2] = 0;
	coh_posted = 0;
	check("coh_cpu1_on", psci_cpu_on(1, (uint64_t)coh_secondary_entry), 0);

	/* MMU off: Device memory comes from DRAM, held or not */
	check("coh_device_memory_dram", coh_sample(g, 0), DS_DRAM);
	check("coh_device_memory_held_dram", coh_sample(g, 0), DS_DRAM);

	mmu_on();
	/* Normal cacheable memory: the line's state decides */
	check("coh_untouched_line_dram", coh_sample(a, 0), DS_DRAM);
	check("coh_repeated_load_l1d", coh_sample(a, 0), DS_L1D);
	check("coh_peer_store_peer_core", coh_after_peer(COH_STORE, a, a), DS_PEER_CORE);
	check("coh_after_snoop_l1d", coh_sample(a, 0), DS_L1D);
	/* False sharing: another word of the line is the same line */
	check("coh_peer_store_other_word_peer_core",
	      coh_after_peer(COH_STORE, a + 56, a), DS_PEER_CORE);
	check("coh_peer_store_next_line_l1d",
	      coh_after_peer(COH_STORE, a + 64, a), DS_L1D);
	/* A store has no Data Source packet; it leaves its CPU the holder */
	check("coh_store_no_source", coh_sample(b, 1), -1);
	check("coh_own_store_l1d", coh_sample(b, 0), DS_L1D);
	check("coh_peer_load_keeps_l1d", coh_after_peer(COH_LOAD, b, b), DS_L1D);
	/* Read by CPU 1 only, never written: no cache to snoop, DRAM */
	check("coh_peer_load_only_dram", coh_after_peer(COH_LOAD, c, c), DS_DRAM);
	/* An atomic and DC ZVA (the whole 64-byte block) are writes */
	check("coh_held_before_atomic", coh_sample(d, 0), DS_DRAM);
	check("coh_peer_atomic_peer_core", coh_after_peer(COH_ATOMIC, d, d), DS_PEER_CORE);
	check("coh_held_before_dc_zva", coh_sample(e + 40, 0), DS_DRAM);
	check("coh_peer_dc_zva_peer_core",
	      coh_after_peer(COH_ZVA, e + 8, e + 40), DS_PEER_CORE);
	wr(0, PMBLIMITR_EL1);
}

/*
 * x-spe-cut-records: the buffer fills to LIMIT and the record that does
 * not fit is cut there, with PMBSR_EL1.DL. One page holds 124 of the
 * 33-byte load records (4092 bytes): the 125th writes its first 4 bytes.
 */
static void cut_records_tests(void)
{
	uint64_t n = 40000, members = 7 * n + 2, m, loads = 0, cut_at = 0;

	spe_reset();
	wr(FT | F_LD, PMSFCR_EL1);
	wr((BUF + 0x1000) | LIM_E, PMBLIMITR_EL1);
	pmu_start();
	spe_loop(n, SRC, DST, E2SPE);
	write_sysreg(~0UL, pmcntenclr_el0);

	for (m = INTERVAL; m <= members && !cut_at; m += INTERVAL) {
		struct op o = loop_member(m, n);

		if (o.slot == 0 && ++loads == 125)
			cut_at = m;
	}
	check("cut_pmbsr_dl", rd(PMBSR_EL1), S_BIT | DL_BIT | 1);
	check("cut_pmbptr_at_limit", rd(PMBPTR_EL1), BUF + 0x1000);
	check("cut_whole_records", parse(BUF, BUF + 124 * 33), 124);
	/* The torn record starts as every record does */
	check("cut_torn_record_header", *(volatile uint8_t *)(BUF + 124 * 33),
	      *(volatile uint8_t *)BUF);
	check("cut_pop_stops", pmu_read(0), cut_at);
	check("cut_filtrate", pmu_read(2), 125);
	check("cut_irq_pending", *GICR_ISPENDR0 >> SPE_PPI & 1, 1);
	wr(0, PMBSR_EL1);

	/* Two records that end exactly at LIMIT: full, nothing lost */
	spe_reset();
	wr(FT | F_LD, PMSFCR_EL1);
	wr(BUF + 0x1000 - 2 * 33, PMBPTR_EL1);
	wr((BUF + 0x1000) | LIM_E, PMBLIMITR_EL1);
	spe_loop(n, SRC, DST, E2SPE);
	check("cut_exact_fit_pmbsr", rd(PMBSR_EL1), S_BIT | 1);
	check("cut_exact_fit_pmbptr", rd(PMBPTR_EL1), BUF + 0x1000);
	check("cut_exact_fit_records", parse(BUF + 0x1000 - 2 * 33, BUF + 0x1000), 2);
	wr(0, PMBSR_EL1);
	wr(0, PMBLIMITR_EL1);
}

/* What spe_loop(n) writes with no filter: the bytes of its records */
static uint64_t loop_bytes(uint64_t n)
{
	uint64_t m, bytes = 0;

	for (m = INTERVAL; m <= 7 * n + 2; m += INTERVAL)
		bytes += loop_member(m, n).cls == 1 ? 33 : 21;
	return bytes;
}

/* The one record of a window sampled at member @count: its PC, or 0 */
static uint64_t window_sample_pc(void (*fn)(uint64_t), uint64_t count)
{
	spe_reset();
	wr(count, PMSICR_EL1);
	fn(E2SPE);
	psb_csync();
	asm volatile("dsb nsh; isb");
	return parse(BUF, rd(PMBPTR_EL1)) == 1 ? recs[0].pc : 0;
}

/*
 * Which of the instructions around an enabling MSR and ISB are members,
 * wherever the pair sits in its translation block (spe_sync_K): under
 * x-spe-lazy-sync the enabling ISB is not one and the disabling ISB is
 * (an ISB runs under the controls it synchronizes away from), so member 1
 * is the nop after the first ISB and member 6 the second ISB; with writes
 * acting at once, member 1 is the enabling ISB and member 6 the
 * disabling MSR.
 */
static void isb_member_tests(void)
{
	static const char *const first[] = {
		"isb_member_1_at_k0", "isb_member_1_at_k1",
		"isb_member_1_at_k6", "isb_member_1_at_k14",
	};
	static const char *const last[] = {
		"isb_member_6_at_k0", "isb_member_6_at_k1",
		"isb_member_6_at_k6", "isb_member_6_at_k14",
	};
	int lazy = !!(*MODE_FLAGS & MODE_LAZY), i;

	for (i = 0; spe_sync_windows[i].fn; i++) {
		/* The enabling MSR */
		uint64_t msr = (uint64_t)spe_sync_windows[i].fn + 4 * spe_sync_windows[i].k;

		check(first[i], window_sample_pc(spe_sync_windows[i].fn, 1),
		      msr + (lazy ? 8 : 4));
		check(last[i], window_sample_pc(spe_sync_windows[i].fn, 6),
		      msr + (lazy ? 28 : 24));
	}
}

/*
 * x-spe-lazy-sync: control writes act at the next context
 * synchronization event, and the unit's own PMBPTR_EL1/PMBSR_EL1 reach
 * direct reads only after PSB CSYNC, DSB and one.
 */
static void lazy_sync_tests(void)
{
	uint64_t n = 1000;

	/* A direct read sees a direct write at once */
	spe_reset();
	wr_nosync(BUF + 0x40, PMBPTR_EL1);
	check("lazy_direct_read_after_write", rd(PMBPTR_EL1), BUF + 0x40);
	wr_nosync(INTERVAL | 1, PMSIRR_EL1);
	check("lazy_pmsirr_read_after_write", rd(PMSIRR_EL1), INTERVAL | 1);
	asm volatile("isb");

	/*
	 * spe_lazy_window: enable, 5 nops, ISB, 3 nops, disable, 4 nops,
	 * ISB. Profiling runs from after the first ISB to the second: 3
	 * nops, the disabling MSR, 4 nops and the ISB (10 members if the
	 * writes acted at once).
	 */
	spe_reset();
	pmu_start();
	spe_lazy_window(E2SPE);
	write_sysreg(~0UL, pmcntenclr_el0);
	check("lazy_enable_disable_at_isb_pop", pmu_read(0), 9);
	isb_member_tests();

	/* The unit's pointer, published only by PSB CSYNC + DSB + ISB */
	spe_reset();
	spe_loop(n, SRC, DST, E2SPE);
	check("lazy_pmbptr_before_psb", rd(PMBPTR_EL1), BUF);
	psb_csync();
	asm volatile("isb");
	check("lazy_pmbptr_psb_isb_no_dsb", rd(PMBPTR_EL1), BUF);
	psb_csync();
	asm volatile("dsb nsh");
	check("lazy_pmbptr_psb_dsb_no_isb", rd(PMBPTR_EL1), BUF);
	asm volatile("isb");
	check("lazy_pmbptr_psb_dsb_isb", rd(PMBPTR_EL1), BUF + loop_bytes(n));

	/* Buffer full: the interrupt at once, PMBSR_EL1 once published */
	spe_reset();
	wr(FT | F_LD, PMSFCR_EL1);
	wr((BUF + 0x1000) | LIM_E, PMBLIMITR_EL1);
	spe_loop(40000, SRC, DST, E2SPE);
	check("lazy_full_irq_pending", *GICR_ISPENDR0 >> SPE_PPI & 1, 1);
	check("lazy_full_pmbsr_unpublished", rd(PMBSR_EL1), 0);
	psb_csync();
	asm volatile("dsb nsh; isb");
	check("lazy_full_pmbsr_published", rd(PMBSR_EL1), S_BIT | 1);
	check("lazy_full_pmbptr_published", rd(PMBPTR_EL1), BUF + 123 * 33);
	/* Clearing PMBSR_EL1.S lowers the interrupt only at the ISB */
	wr_nosync(0, PMBSR_EL1);
	check("lazy_pmbsr_clear_irq_until_isb", *GICR_ISPENDR0 >> SPE_PPI & 1, 1);
	asm volatile("isb");
	check("lazy_pmbsr_clear_irq_after_isb", *GICR_ISPENDR0 >> SPE_PPI & 1, 0);
	wr(0, PMBLIMITR_EL1);
}

void main(void);

void main(void)
{
	uint64_t pmsver;

	tap_start();
	puts_("TAP version 13\n");
	identification(&pmsver);
	if (!pmsver) {
		check("no_spe_pmsver", pmsver, 0);
		check("pmceid0_no_sample_events",
		      (read_sysreg(pmceid0_el0) >> 32) & 0xf, 0);
		puts_("1..");
		putu(test_n);
		putc_('\n');
		return;
	}
	check("pmsver_v1p2", pmsver, 3);
	/* The mode runs check only what the mode changes */
	if (*MODE_FLAGS) {
		puts_(*MODE_FLAGS & MODE_ISB ? "# x-spe-lazy-sync=on, one instruction per TB\n" :
		      *MODE_FLAGS & MODE_LAZY ? "# x-spe-lazy-sync=on\n" :
		      *MODE_FLAGS & MODE_CUT ? "# x-spe-cut-records=on\n" :
		      *MODE_FLAGS & MODE_UNIMPL ? "# x-spe-unimpl-events=0x800\n" :
		      *MODE_FLAGS & MODE_EL3 ? "# x-spe-el3-owned=on\n" :
		      *MODE_FLAGS & MODE_COH ? "# x-spe-coherence=on, -smp 2\n" :
		      "# x-spe-fds=on\n");
		if (*MODE_FLAGS & MODE_ISB)
			isb_member_tests();
		else if (*MODE_FLAGS & MODE_LAZY)
			lazy_sync_tests();
		if (*MODE_FLAGS & MODE_CUT)
			cut_records_tests();
		if (*MODE_FLAGS & MODE_FDS)
			fds_tests();
		if (*MODE_FLAGS & MODE_UNIMPL)
			unimpl_events_tests();
		if (*MODE_FLAGS & MODE_EL3)
			el3_owned_tests();
		if (*MODE_FLAGS & MODE_COH)
			coherence_tests();
		puts_("1..");
		putu(test_n);
		putc_('\n');
		return;
	}
	id_tests();
	sampling_tests();
	discard_tests();
	buffer_full_tests();
	collision_tests();
	isb_member_tests();
	packet_tests();
	prohibited_tests();
	translation_tests();
	stage2_tests();
	pmscr_el2_tests();
	if (0)
		skip("", "");

	puts_("1..");
	putu(test_n);
	putc_('\n');
}
