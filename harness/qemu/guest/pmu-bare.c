// SPDX-License-Identifier: GPL-2.0
/*
 * Register-level checks of our QEMU's PMU models, with no kernel in the
 * way: QEMU loads this ELF on the virt board and starts it at EL2, where
 * it programs the PMU itself and prints TAP on the PL011. What perf cannot
 * reach is checked here: CHAIN with PMCR_EL0.LP set and at the
 * MDCR_EL2.HPMN boundary, the odd counter's own filter, and exact
 * EXC_TAKEN/EXC_RETURN/BR_RETIRED counts with no interrupt to blur them.
 * Built and run by harness/qemu/test-bare.sh.
 */
#include <stdint.h>

#include "bare-tap.h"

#define PSCI_SYSTEM_OFF	0x84000008

#define SW_INCR		0x00
#define INST_RETIRED	0x08
#define EXC_TAKEN	0x09
#define EXC_RETURN	0x0a
#define CHAIN		0x1e
#define BR_RETIRED	0x21

#define PMCR_E		(1UL << 0)
#define PMCR_P		(1UL << 1)
#define PMCR_LP		(1UL << 7)
#define NSH		(1UL << 27)	/* PMEVTYPER: count at EL2 */
#define MDCR_HPMN	0x1fUL
#define MDCR_HPME	(1UL << 7)
#define MDCR_HLP	(1UL << 26)

#define read_sysreg(r) ({ uint64_t __v; asm volatile("mrs %0, " #r : "=r"(__v)); __v; })
#define write_sysreg(v, r) asm volatile("msr " #r ", %0; isb" : : "r"((uint64_t)(v)))


/* Event counter n, through PMSELR_EL0 */
static void evtyper(int n, uint64_t v)
{
	write_sysreg(n, pmselr_el0);
	write_sysreg(v, pmxevtyper_el0);
}

static void evcntr_write(int n, uint64_t v)
{
	write_sysreg(n, pmselr_el0);
	write_sysreg(v, pmxevcntr_el0);
}

static uint64_t evcntr(int n)
{
	write_sysreg(n, pmselr_el0);
	return read_sysreg(pmxevcntr_el0);
}

static uint64_t ovs(void)
{
	return read_sysreg(pmovsclr_el0);
}

/* Stop and zero everything; keep PMCR.LP as asked */
static void pmu_reset(uint64_t lp)
{
	write_sysreg(~0UL, pmcntenclr_el0);
	write_sysreg(~0UL, pmovsclr_el0);
	write_sysreg(~0UL, pmintenclr_el1);
	write_sysreg(PMCR_P | lp, pmcr_el0);
	write_sysreg(PMCR_E | lp, pmcr_el0);
}

static void swinc(int n, int times)
{
	while (times--)
		write_sysreg(1UL << n, pmswinc_el0);
}

/* The loops whose branches and exceptions are counted: see below */
extern void branch_loop(uint64_t n, uint64_t counters);
extern void hvc_loop(uint64_t n, uint64_t counters);
extern uint64_t insn_loop(uint64_t n, uint64_t counters);

static void chain_tests(int v3p5, int ncntr)
{
	uint64_t hpmn_saved = read_sysreg(mdcr_el2);

	/* 32-bit even counter: bits [31:0] wrap into the odd counter */
	pmu_reset(0);
	evtyper(0, NSH | SW_INCR);
	evtyper(1, NSH | CHAIN);
	evcntr_write(0, 0xfffffffe);
	evcntr_write(1, 5);
	write_sysreg(3, pmcntenset_el0);
	swinc(0, 3);
	check("chain_even_wraps_at_32_bits", evcntr(0) & 0xffffffff, 1);
	check("chain_odd_counts_the_wrap", evcntr(1), 6);
	check("chain_even_overflow_flag", ovs() & 3, 1);

	/* The odd counter overflows as any counter does */
	write_sysreg(3, pmovsclr_el0);
	evcntr_write(0, 0xffffffff);
	evcntr_write(1, 0xffffffff);
	swinc(0, 1);
	check("chain_odd_overflows", evcntr(1) & 0xffffffff, 0);
	check("chain_both_overflow_flags", ovs() & 3, 3);

	/* The odd counter counts CHAIN subject to its own filter */
	pmu_reset(0);
	evtyper(0, NSH | SW_INCR);
	evtyper(1, CHAIN);		/* not at EL2 */
	evcntr_write(0, 0xffffffff);
	evcntr_write(1, 7);
	write_sysreg(3, pmcntenset_el0);
	swinc(0, 1);
	check("chain_odd_filtered_out_at_el2", evcntr(1), 7);

	/* ... and its own enable */
	pmu_reset(0);
	evtyper(0, NSH | SW_INCR);
	evtyper(1, NSH | CHAIN);
	evcntr_write(0, 0xffffffff);
	evcntr_write(1, 7);
	write_sysreg(1, pmcntenset_el0);
	swinc(0, 1);
	check("chain_odd_disabled", evcntr(1), 7);

	/* An even counter does not count CHAIN */
	pmu_reset(0);
	evtyper(2, NSH | CHAIN);
	evtyper(1, NSH | SW_INCR);
	evcntr_write(1, 0xffffffff);
	evcntr_write(2, 4);
	write_sysreg(6, pmcntenset_el0);
	swinc(1, 1);
	check("chain_not_on_even_counter", evcntr(2), 4);

	/* No chaining across MDCR_EL2.HPMN: counter 1 belongs to EL2 */
	pmu_reset(0);
	write_sysreg((hpmn_saved & ~MDCR_HPMN) | MDCR_HPME | 1, mdcr_el2);
	evtyper(0, NSH | SW_INCR);
	evtyper(1, NSH | CHAIN);
	evcntr_write(0, 0xffffffff);
	evcntr_write(1, 9);
	write_sysreg(3, pmcntenset_el0);
	swinc(0, 1);
	check("chain_not_across_hpmn", evcntr(1), 9);
	write_sysreg(hpmn_saved, mdcr_el2);

	if (!v3p5) {
		skip("chain_lp_even_is_64_bit", "no FEAT_PMUv3p5");
		skip("chain_lp_no_chain_at_32_bits", "no FEAT_PMUv3p5");
		skip("chain_lp_even_wraps_at_64_bits", "no FEAT_PMUv3p5");
		skip("chain_lp_chains_64_bit_wrap", "no FEAT_PMUv3p5");
		skip("chain_hlp_even_is_64_bit", "no FEAT_PMUv3p5");
		skip("chain_hlp_no_chain_at_32_bits", "no FEAT_PMUv3p5");
		return;
	}

	/* PMCR.LP: the even counter is 64 bits, its overflow at bit 63 */
	pmu_reset(PMCR_LP);
	evtyper(0, NSH | SW_INCR);
	evtyper(1, NSH | CHAIN);
	evcntr_write(0, 0xffffffff);
	evcntr_write(1, 0);
	write_sysreg(3, pmcntenset_el0);
	swinc(0, 1);
	check("chain_lp_even_is_64_bit", evcntr(0), 0x100000000UL);
	check("chain_lp_no_chain_at_32_bits", evcntr(1), 0);
	evcntr_write(0, ~0UL);
	swinc(0, 2);
	check("chain_lp_even_wraps_at_64_bits", evcntr(0), 1);
	check("chain_lp_chains_64_bit_wrap", evcntr(1), 1);

	/* MDCR_EL2.HLP does the same for the counters from HPMN up */
	pmu_reset(0);
	write_sysreg((hpmn_saved & ~MDCR_HPMN) | MDCR_HPME | MDCR_HLP | 2,
		     mdcr_el2);
	if (ncntr >= 4) {
		evtyper(2, NSH | SW_INCR);
		evtyper(3, NSH | CHAIN);
		evcntr_write(2, 0xffffffff);
		evcntr_write(3, 0);
		write_sysreg(0xc, pmcntenset_el0);
		swinc(2, 1);
		check("chain_hlp_even_is_64_bit", evcntr(2), 0x100000000UL);
		check("chain_hlp_no_chain_at_32_bits", evcntr(3), 0);
	} else {
		skip("chain_hlp_even_is_64_bit", "fewer than 4 counters");
		skip("chain_hlp_no_chain_at_32_bits", "fewer than 4 counters");
	}
	write_sysreg(hpmn_saved, mdcr_el2);
}

static void counted_event_tests(void)
{
	/* 1000 b.ne executed, taken or not, between enable and disable */
	pmu_reset(0);
	evtyper(0, NSH | BR_RETIRED);
	evtyper(1, BR_RETIRED);		/* not at EL2 */
	branch_loop(1000, 3);
	check("br_retired_exact", evcntr(0), 1000);
	check("br_retired_filtered_out", evcntr(1), 0);

	/* Overflow on the branch that overflows the counter, not later */
	pmu_reset(0);
	evtyper(0, NSH | BR_RETIRED);
	evcntr_write(0, 0xffffffff - 9);
	branch_loop(9, 1);
	check("br_retired_no_overflow_before_last", ovs() & 1, 0);
	branch_loop(1, 1);
	check("br_retired_overflow_on_branch", ovs() & 1, 1);

	/* HVC from EL2 to EL2: exception taken and returned at EL2 */
	pmu_reset(0);
	evtyper(0, NSH | EXC_TAKEN);
	evtyper(1, NSH | EXC_RETURN);
	evtyper(2, EXC_TAKEN);		/* not at EL2 */
	hvc_loop(100, 7);
	check("exc_taken_exact", evcntr(0), 100);
	check("exc_return_exact", evcntr(1), 100);
	check("exc_taken_filtered_out", evcntr(2), 0);

	/* Overflow flagged on the exception that overflows the counter */
	pmu_reset(0);
	evtyper(0, NSH | EXC_TAKEN);
	evcntr_write(0, 0xffffffff - 4);
	hvc_loop(4, 1);
	check("exc_taken_no_overflow_before_last", ovs() & 1, 0);
	hvc_loop(1, 1);
	check("exc_taken_overflow_on_exception", ovs() & 1, 1);
}

static void inst_retired_tests(uint64_t pmceid0)
{
	if (!(pmceid0 & (1UL << INST_RETIRED))) {
		skip("inst_retired_exact", "INST_RETIRED needs -icount");
		skip("inst_retired_chained_exact", "INST_RETIRED needs -icount");
		return;
	}
	/* insn_loop: isb, n * 2 loop instructions, the disabling MSR */
	pmu_reset(0);
	evtyper(0, NSH | INST_RETIRED);
	insn_loop(1000, 1);
	check("inst_retired_exact", evcntr(0), 1 + 1000 * 2 + 1);

	/* A chained pair whose even half wraps during the loop */
	pmu_reset(0);
	evtyper(0, NSH | INST_RETIRED);
	evtyper(1, NSH | CHAIN);
	evcntr_write(0, 0xffffffff - 999);
	evcntr_write(1, 0x12345678);
	insn_loop(1000, 3);
	check("inst_retired_chained_exact",
	      evcntr(1) << 32 | (evcntr(0) & 0xffffffff),
	      0x12345679UL << 32 | (1 + 1000 * 2 + 1 - 1000));
}

/*
 * test-bare.sh writes 1 here (-device loader) when it runs QEMU with
 * x-pmu-lazy-sync=on: PMU control writes then take effect on counting
 * only at the next context synchronization event.
 */
#define LAZY_SYNC_FLAG	((volatile uint32_t *)0x47fff000)

/* pmu-bare-start.S: write, 100 NOPs, sync event, 100 NOPs */
typedef void sync_window_fn(uint64_t val, uint64_t out[3]);
extern sync_window_fn sync_cntenclr_isb, sync_pmcr_isb, sync_evtyper_isb,
	sync_cntenclr_eret, sync_cntenclr_hvc;

static const struct sync_case {
	const char *counts_until, *stops_at;
	sync_window_fn *window;
	uint64_t val;
} sync_cases[] = {
	{ "pmcntenclr_counts_until_isb", "pmcntenclr_stops_at_isb",
	  sync_cntenclr_isb, 1 },
	{ "pmcr_e_clear_counts_until_isb", "pmcr_e_clear_stops_at_isb",
	  sync_pmcr_isb, 0 },
	{ "pmevtyper_old_event_until_isb", "pmevtyper_new_event_at_isb",
	  sync_evtyper_isb, NSH | SW_INCR },
	{ "pmcntenclr_counts_until_eret", "pmcntenclr_stops_at_eret",
	  sync_cntenclr_eret, 1 },
	{ "pmcntenclr_counts_until_exception", "pmcntenclr_stops_at_exception",
	  sync_cntenclr_hvc, 1 },
};

/*
 * What INST_RETIRED counts of a window: with x-pmu-lazy-sync, the write,
 * the 100 NOPs and the read before the event, then the synchronizing
 * instruction itself (the new controls act after it) and nothing more;
 * without, the write alone.
 */
static void sync_tests(void)
{
	int lazy = *LAZY_SYNC_FLAG == 1;
	uint64_t out[3], enabled;
	unsigned int i;

	puts_(lazy ? "# x-pmu-lazy-sync=on\n" : "# x-pmu-lazy-sync=off\n");
	for (i = 0; i < sizeof(sync_cases) / sizeof(sync_cases[0]); i++) {
		const struct sync_case *c = &sync_cases[i];

		pmu_reset(0);
		evtyper(0, NSH | INST_RETIRED);
		write_sysreg(1, pmcntenset_el0);
		c->window(c->val, out);
		check(c->counts_until, out[1] - out[0], lazy ? 102 : 1);
		check(c->stops_at, out[2] - out[1], lazy ? 1 : 0);
	}

	/* A direct read sees the write at once, whatever counting sees */
	pmu_reset(0);
	write_sysreg(1, pmcntenset_el0);
	asm volatile("msr pmcntenclr_el0, %1\n\tmrs %0, pmcntenset_el0"
		     : "=r"(enabled) : "r"(1UL));
	check("pmcntenclr_read_back_at_once", enabled & 1, 0);
	pmu_reset(0);
}

void main(void);

void main(void)
{
	uint64_t dfr0 = read_sysreg(id_aa64dfr0_el1);
	int pmuver = (dfr0 >> 8) & 0xf;
	int v3p5 = pmuver >= 6 && pmuver != 0xf;
	uint64_t pmceid0 = read_sysreg(pmceid0_el0);
	uint64_t pmceid1 = read_sysreg(pmceid1_el0);
	int ncntr = (read_sysreg(pmcr_el0) >> 11) & 0x1f;

	tap_start();

	puts_("TAP version 13\n# pmu-bare: PMUVer ");
	putu(pmuver);
	puts_(", ");
	putu(ncntr);
	puts_(" counters\n");

	check("pmceid0_chain", pmceid0 >> CHAIN & 1, 1);
	check("pmceid0_exc_taken", pmceid0 >> EXC_TAKEN & 1, 1);
	check("pmceid0_exc_return", pmceid0 >> EXC_RETURN & 1, 1);
	check("pmceid1_br_retired", pmceid1 >> (BR_RETIRED - 32) & 1, 1);

	chain_tests(v3p5, ncntr);
	counted_event_tests();
	inst_retired_tests(pmceid0);
	if (pmceid0 & (1UL << INST_RETIRED))
		sync_tests();

	puts_("1..");
	putu(test_n);
	putc_('\n');
}
