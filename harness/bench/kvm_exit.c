// SPDX-License-Identifier: GPL-2.0
/*
 * KVM guest entry + exit with the host's :G and :H events: OPS round trips
 * of a guest that does nothing but a store to an address no memslot backs
 * (a KVM_EXIT_MMIO to this thread, the VMM, which only issues KVM_RUN
 * again), once with instructions:G, instructions:H, cycles:G and cycles:H
 * open on this thread (exclude_host / exclude_guest, as perf's :G and :H
 * set them) and once with no event. Per round trip: one KVM_RUN, vcpu
 * load, guest entry, the guest's store, exit, vcpu put and the return to
 * user space. The difference is what the PMU driver and KVM's PMU code
 * add per round trip: switching the counters between the host's and the
 * guest's view on each entry and exit (on VHE at vcpu load and put, on
 * nVHE in the world switch) and the events' bookkeeping.
 *
 * Not the library's GUEST_SYNC: get_ucall() completes each ucall with a
 * second KVM_RUN (immediate_exit), two vcpu load/put pairs per sync. The
 * store is a plain str with one register, which KVM decodes from the
 * fault syndrome and skips on the next KVM_RUN.
 *
 * The same round trip on vCPUs with a vPMU that are shown BRBE and SPE
 * (ours only: the base and mainline show a guest neither) gives the cost
 * of switching those at every entry and exit, each VM made by the
 * selftests' vpmu_vm_create() (vpmu_vm.h, beside this file in the build):
 * kvm-vpmu-shown, a guest that uses neither, net of the same VM with both
 * hidden (ID_AA64DFR0_EL1.BRBE and PMSVer written 0, so KVM switches
 * nothing); kvm-vpmu-brbe-shown and -spe-shown, the same with only one of
 * them shown; kvm-vpmu-brbe, a guest recording its branches (BRBCR_EL1
 * E0BRE and E1BRE, BRBFCR_EL1 every type: the loop's b is recorded on
 * each round trip), and kvm-vpmu-spe, a guest profiling
 * into its own buffer (every SPE_INTERVAL operations: a few records,
 * never full), each net of the one shown both that uses neither.
 *
 * kvm-vpmu-brbe-kept: what keeping a paused buffer's records across an
 * exit costs (brbe-kvm.rst, the freeze): a guest that fills its buffer
 * (BRBIDR0_EL1.NUMREC records) and pauses it (BRBFCR_EL1.PAUSED) before
 * its loop, so that every exit reads the full buffer out and every entry
 * injects it back with BRB INJ, net of kvm-vpmu-brbe's guest, whose
 * buffer is emptied. After its windows the host checks that the buffer
 * is still paused and has the guest read its records: all valid.
 *
 * kvm-spe-s2fault-N: what a stage-2 fault on a guest's SPE buffer costs
 * the host, which handles it unseen by the guest (spe-kvm.rst, "Stage-2
 * faults on the buffer"): one more exit and entry, KVM's translation of
 * the N pages from PMBPTR_EL1 to the buffer's limit and its mapping of
 * each. Round trips of a guest that profiles a short burst into a buffer
 * of N pages the guest never touched (a new one every round trip, so one
 * fault each; the VMM wrote them, so the host's pages exist), net of the
 * same guest bursting into N pages it wrote before, so mapped. N = 1 and
 * 64 (KVM's most per fault) give the fixed part and the part per page.
 *
 * Built by harness/kvm-tests.sh on the base tree's KVM selftest library;
 * harness/bench.sh carries it into the guest as /bench/kvm_exit. Under
 * nested virtualisation (QEMU virtualization=on) the guest clock counts
 * the nested guest's instructions too: the same few in both runs.
 */
#include "bench.h"

#include <kvm_util.h>
#include <processor.h>

#include "vcpu_stat.h"
#include "vpmu_vm.h"

#define OPS	10000
#define NR_EV	4

/* The guest's exit address, set by the host before the first run */
static uint64_t exit_gva;

/*
 * What a vPMU guest enables before its loop; MODE_SPE_FRESH and _MAPPED
 * burst into a new buffer of never-touched pages, or into the same touched
 * one, before each exit
 */
enum guest_mode {
	MODE_NONE, MODE_BRBE, MODE_BRBE_KEPT, MODE_SPE, MODE_SPE_FRESH, MODE_SPE_MAPPED
};

#define SPE_BUF_PAGES	4
/* About 2 operations per round trip: a few records in the whole run */
#define SPE_INTERVAL	4096

/* Set by the host before the first run of a vPMU guest */
static uint64_t guest_mode, guest_buf, guest_buf_size;

/* A burst: BURST_LOOPS loops of 2 instructions sampled every 256, 3 samples */
#define BURST_INTERVAL	256
#define BURST_LOOPS	400
/* The buffer-fault guests' buffers: each of guest_slots holds guest_slot_bytes */
static uint64_t guest_slots, guest_slot_bytes;
/* Filled by them: the least and most bytes a burst wrote, their PMBSR_EL1s ORed */
static uint64_t guest_burst_min = ~0ULL, guest_burst_max, guest_burst_status;

/*
 * One asm loop, whatever the compiler makes of C: the str exits and is
 * skipped by KVM (never retired), so the guest retires exactly one
 * instruction per round trip, the b, which instructions:G shows.
 */
static void guest_code(void)
{
	uint64_t addr = READ_ONCE(exit_gva);

	for (;;)
		asm volatile("1:	str	%0, [%0]\n"
			     "	b	1b\n"
			     : : "r" (addr) : "memory");
}

/* BRBFCR_EL1 (Arm ARM): EnI 0, so the type bits set are the types recorded */
#define BRBFCR_ALL		GENMASK(22, 17)
#define BRBFCR_PAUSED		BIT(7)
#define BRBFCR_BANK_SHIFT	28
#define BRBFCR_BANK_MASK	GENMASK(29, 28)
#define SYS_BRBIDR0_EL1		sys_reg(2, 1, 9, 2, 0)
#define REG_BRBFCR_EL1		ARM64_SYS_REG(2, 1, 9, 0, 1)
/* BRBINF of record 0 and record 31 of the selected bank */
#define SYS_BRBINF0_EL1		sys_reg(2, 1, 8, 0, 0)
#define SYS_BRBINF31_EL1	sys_reg(2, 1, 8, 15, 4)
#define BRBINF_VALID		GENMASK(1, 0)
#define BRBE_BANK_RECORDS	32

/* The kept guest's NUMREC, and its records' BRBINF as it read them at the end */
static uint64_t guest_numrec, guest_kept_first, guest_kept_last;

/* Record every branch at EL1 and EL0 into the guest's own buffer */
static void guest_brbe_on(void)
{
	write_sysreg_s(BRBFCR_ALL, SYS_BRBFCR_EL1);
	write_sysreg_s(BRBCR_E0BRE | BRBCR_E1BRE, SYS_BRBCR_EL1);
	isb();
}

/*
 * Record every branch until the buffer is full, twice over, then pause
 * it: from here on every exit keeps NUMREC records and every entry
 * injects them back
 */
static void guest_brbe_fill_pause(void)
{
	uint64_t numrec = read_sysreg_s(SYS_BRBIDR0_EL1) & 0xff;
	uint64_t n = 2 * numrec + 1;

	WRITE_ONCE(guest_numrec, numrec);
	write_sysreg_s(BRBFCR_ALL, SYS_BRBFCR_EL1);
	write_sysreg_s(BRBCR_E0BRE | BRBCR_E1BRE, SYS_BRBCR_EL1);
	isb();
	asm volatile("1:	subs	%0, %0, #1\n"
		     "	b.ne	1b\n" : "+r" (n));
	write_sysreg_s(BRBFCR_ALL | BRBFCR_PAUSED, SYS_BRBFCR_EL1);
	isb();
}

/*
 * Where the host sends the kept guest after its windows: the newest
 * record and the oldest (record 31 of the last bank), then the exit loop
 */
static void guest_brbe_kept_read(void)
{
	uint64_t fcr = read_sysreg_s(SYS_BRBFCR_EL1) & ~BRBFCR_BANK_MASK;
	uint64_t last = (READ_ONCE(guest_numrec) - 1) / BRBE_BANK_RECORDS;

	WRITE_ONCE(guest_kept_first, read_sysreg_s(SYS_BRBINF0_EL1));
	write_sysreg_s(fcr | last << BRBFCR_BANK_SHIFT, SYS_BRBFCR_EL1);
	isb();
	WRITE_ONCE(guest_kept_last, read_sysreg_s(SYS_BRBINF31_EL1));
	guest_code();
}

/* Profile EL1 and EL0 into [buf, buf + size), mapped at stage 2 first */
static void guest_spe_on(uint64_t buf, uint64_t size)
{
	uint64_t a;

	for (a = buf; a < buf + size; a += 4096)
		WRITE_ONCE(*(uint64_t *)a, 0);
	write_sysreg_s(0, SYS_PMSFCR_EL1);
	write_sysreg_s(0, SYS_PMSEVFR_EL1);
	write_sysreg_s(0, SYS_PMSLATFR_EL1);
	write_sysreg_s(SPE_INTERVAL, SYS_PMSIRR_EL1);
	write_sysreg_s(0, SYS_PMSICR_EL1);
	write_sysreg_s(buf, SYS_PMBPTR_EL1);
	write_sysreg_s(0, SYS_PMBSR_EL1);
	write_sysreg_s((buf + size) | PMBLIMITR_E, SYS_PMBLIMITR_EL1);
	write_sysreg_s(PMSCR_E0SPE | PMSCR_E1SPE, SYS_PMSCR_EL1);
	isb();
}

/*
 * Profile one burst into [ptr, limit) from PMSICR_EL1 = 0, so that every
 * burst samples the same members; the bytes it wrote, its status in *status
 */
static uint64_t guest_burst(uint64_t ptr, uint64_t limit, uint64_t *status)
{
	uint64_t n = BURST_LOOPS;

	write_sysreg_s(0, SYS_PMSICR_EL1);
	write_sysreg_s(ptr, SYS_PMBPTR_EL1);
	write_sysreg_s(0, SYS_PMBSR_EL1);
	write_sysreg_s(limit | PMBLIMITR_E, SYS_PMBLIMITR_EL1);
	write_sysreg_s(PMSCR_E1SPE, SYS_PMSCR_EL1);
	isb();
	asm volatile("1:	subs	%0, %0, #1\n"
		     "	b.ne	1b\n" : "+r" (n));
	write_sysreg_s(0, SYS_PMSCR_EL1);
	isb();
	/* PSB CSYNC, DSB: the records and PMBPTR_EL1 are complete */
	asm volatile("hint #17\n\tdsb nsh\n\tisb" : : : "memory");
	*status = read_sysreg_s(SYS_PMBSR_EL1);
	n = read_sysreg_s(SYS_PMBPTR_EL1) - ptr;
	write_sysreg_s(0, SYS_PMBLIMITR_EL1);
	isb();
	return n;
}

/*
 * A buffer-fault guest: before each exit one burst into slot i of its
 * buffer, the next slot each time (MODE_SPE_FRESH: guest_slots covers
 * every round trip) or always the first (MODE_SPE_MAPPED: one slot), the
 * same instructions either way. The fresh guest first walks its stage 1
 * over the buffer with AT, so that KVM maps the tables it wrote (a Linux
 * guest writes its own) and only the buffer's pages are left unmapped;
 * the mapped one writes its slot's pages.
 */
static void guest_spe_fault_code(void)
{
	uint64_t addr = READ_ONCE(exit_gva), buf = READ_ONCE(guest_buf);
	uint64_t slots = READ_ONCE(guest_slots), bytes = READ_ONCE(guest_slot_bytes);
	uint64_t i, a, n, status;

	for (a = buf; a < buf + slots * bytes; a += 4096) {
		if (READ_ONCE(guest_mode) == MODE_SPE_FRESH)
			asm volatile("at	s1e1w, %0" : : "r" (a));
		else
			WRITE_ONCE(*(uint64_t *)a, 0);
	}
	isb();
	write_sysreg_s(0, SYS_PMSFCR_EL1);
	write_sysreg_s(0, SYS_PMSEVFR_EL1);
	write_sysreg_s(0, SYS_PMSLATFR_EL1);
	write_sysreg_s(BURST_INTERVAL, SYS_PMSIRR_EL1);
	for (i = 0;; i++) {
		a = buf + (i % slots) * bytes;
		n = guest_burst(a, a + bytes, &status);
		WRITE_ONCE(guest_burst_min, min(n, READ_ONCE(guest_burst_min)));
		WRITE_ONCE(guest_burst_max, max(n, READ_ONCE(guest_burst_max)));
		WRITE_ONCE(guest_burst_status, READ_ONCE(guest_burst_status) | status);
		asm volatile("str	%0, [%0]" : : "r" (addr) : "memory");
	}
}

static void guest_vpmu_code(void)
{
	switch (READ_ONCE(guest_mode)) {
	case MODE_BRBE:
		guest_brbe_on();
		break;
	case MODE_BRBE_KEPT:
		guest_brbe_fill_pause();
		break;
	case MODE_SPE:
		guest_spe_on(READ_ONCE(guest_buf), READ_ONCE(guest_buf_size));
		break;
	case MODE_SPE_FRESH:
	case MODE_SPE_MAPPED:
		guest_spe_fault_code();
	}
	guest_code();
}

/* The top page of the IPA space, which no memslot reaches, at exit_gva */
static void map_exit_page(struct kvm_vm *vm)
{
	exit_gva = vm_vaddr_unused_gap(vm, vm->page_size, KVM_UTIL_MIN_VADDR);
	virt_pg_map(vm, exit_gva, vm->max_gfn << vm->page_shift);
	sync_global_to_guest(vm, exit_gva);
}

/* @ops round trips, each exactly one KVM_RUN ending at the guest's store */
static double round_trips_n(struct kvm_vcpu *vcpu, const char *label, int ops)
{
	uint64_t exit_gpa = vcpu->vm->max_gfn << vcpu->vm->page_shift;
	struct kvm_run *run = vcpu->run;
	uint64_t t0, t1;
	int i, bad = 0;

	t0 = now_ns();
	mark_begin();
	for (i = 0; i < ops; i++) {
		if (__vcpu_run(vcpu))
			die("KVM_RUN");
		bad |= run->exit_reason != KVM_EXIT_MMIO || run->mmio.phys_addr != exit_gpa;
	}
	mark_end();
	t1 = now_ns();
	if (bad) {
		fprintf(stderr, "bench: error: %s: exit reason %u at %#llx\n",
			label ? label : "kvm warm-up", run->exit_reason,
			(unsigned long long)run->mmio.phys_addr);
		exit(1);
	}
	if (label)
		mark_emit(label, ops);
	return (double)(t1 - t0) / ops;
}

static double round_trips(struct kvm_vcpu *vcpu, const char *label)
{
	return round_trips_n(vcpu, label, OPS);
}

/* instructions:G, instructions:H, cycles:G, cycles:H on this thread */
static const struct { uint64_t config; int guest; const char *name; } evs[NR_EV] = {
	{ PERF_COUNT_HW_INSTRUCTIONS, 1, "insns_G" },
	{ PERF_COUNT_HW_INSTRUCTIONS, 0, "insns_H" },
	{ PERF_COUNT_HW_CPU_CYCLES, 1, "cycles_G" },
	{ PERF_COUNT_HW_CPU_CYCLES, 0, "cycles_H" },
};

/* Open the four events, counting at once; -1 with errno when one fails */
static int open_events(int *fd)
{
	int i;

	for (i = 0; i < NR_EV; i++) {
		struct perf_event_attr attr = {
			.size = sizeof(attr),
			.type = PERF_TYPE_HARDWARE,
			.config = evs[i].config,
			.exclude_host = evs[i].guest,
			.exclude_guest = !evs[i].guest,
		};

		fd[i] = syscall(__NR_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd[i] < 0) {
			int err = errno;

			while (i--)
				close(fd[i]);
			errno = err;
			return -1;
		}
	}
	return 0;
}

static void close_events(int *fd, uint64_t *count)
{
	int i;

	for (i = 0; i < NR_EV; i++) {
		if (read(fd[i], &count[i], sizeof(count[i])) != sizeof(count[i]))
			die("read");
		close(fd[i]);
	}
}

/* The row of the :G/:H events: kvm-entry-exit */
static void entry_exit_events(void)
{
	double raw[REPS], base[REPS];
	uint64_t count[NR_EV], pre[NR_EV];
	struct kvm_vcpu *vcpu;
	struct kvm_vm *vm;
	char extra[256];
	int fd[NR_EV], r, i, n;

	vm = vm_create_with_one_vcpu(&vcpu, guest_code);
	map_exit_page(vm);

	/* Warm up: stage-2 faults on the guest's code, stack and tables */
	round_trips(vcpu, NULL);
	if (open_events(fd)) {
		printf("bench: kvm-entry-exit n/a perf_event_open(:G/:H): %s\n",
		       strerror(errno));
		printf("bench: kvm-novpmu n/a with kvm-entry-exit\n");
		kvm_vm_free(vm);
		return;
	}
	round_trips(vcpu, NULL);
	close_events(fd, count);

	for (r = 0; r < REPS; r++) {
		if (open_events(fd))
			die("perf_event_open");
		/* what opening counted, left out of the per-trip counts */
		for (i = 0; i < NR_EV; i++)
			if (read(fd[i], &pre[i], sizeof(pre[i])) != sizeof(pre[i]))
				die("read");
		raw[r] = round_trips(vcpu, "kvm-entry-exit.raw");
		close_events(fd, count);
		base[r] = round_trips(vcpu, "kvm-entry-exit.base");
	}

	/*
	 * The last run's counts per round trip, read around the window: the
	 * events did count, the :G ones exactly the guest's one b.
	 */
	n = 0;
	for (i = 0; i < NR_EV; i++)
		n += snprintf(extra + n, sizeof(extra) - n, "%s%s=%.1f", i ? " " : "",
			      evs[i].name, (double)(count[i] - pre[i]) / OPS);
	report("kvm-entry-exit", median(raw, REPS), median(base, REPS), OPS, extra);
	/* The round trip itself, of this VM without a vPMU: against the base's */
	report("kvm-novpmu", median(base, REPS), 0, OPS, NULL);
	kvm_vm_free(vm);
}

/*
 * The vPMU guests: what each is shown (the rest of BRBE and SPE written 0
 * in ID_AA64DFR0_EL1 before its first run) and what it enables.
 */
enum { G_HIDDEN, G_SHOWN, G_BRBE_SHOWN, G_SPE_SHOWN, G_BRBE, G_BRBE_KEPT, G_SPE, NR_G };

#define DFR0_BOTH	(DFR0_BRBE_MASK | DFR0_PMSVER_MASK)

static const struct {
	uint64_t shown;
	enum guest_mode mode;
	const char *label;
} vpmu_guests[NR_G] = {
	[G_HIDDEN] = { 0, MODE_NONE, "kvm-vpmu-shown.base" },
	[G_SHOWN] = { DFR0_BOTH, MODE_NONE, "kvm-vpmu-shown.raw" },
	[G_BRBE_SHOWN] = { DFR0_BRBE_MASK, MODE_NONE, "kvm-vpmu-brbe-shown.raw" },
	[G_SPE_SHOWN] = { DFR0_PMSVER_MASK, MODE_NONE, "kvm-vpmu-spe-shown.raw" },
	[G_BRBE] = { DFR0_BOTH, MODE_BRBE, "kvm-vpmu-brbe.raw" },
	[G_BRBE_KEPT] = { DFR0_BOTH, MODE_BRBE_KEPT, "kvm-vpmu-brbe-kept.raw" },
	[G_SPE] = { DFR0_BOTH, MODE_SPE, "kvm-vpmu-spe.raw" },
};

#define ID_DFR0		KVM_ARM64_SYS_REG(SYS_ID_AA64DFR0_EL1)

/*
 * A vPMU VM whose guest is shown no more of BRBE and SPE than @shown and
 * enables what @mode says. Every one has the same buffer and exit page;
 * the VMM names the SPE interrupt where SPE is to be shown.
 */
static struct kvm_vcpu *vpmu_guest_create(struct kvm_vm **vm, uint64_t shown,
					  enum guest_mode mode)
{
	struct kvm_vcpu *vcpu = vpmu_vm_create(vm, guest_vpmu_code);
	uint64_t dfr0, hide;

	/* SPE is shown once the VMM names its interrupt; none where KVM has none */
	if (shown & DFR0_PMSVER_MASK)
		vpmu_vm_spe_irq(vcpu);
	vcpu_get_reg(vcpu, ID_DFR0, &dfr0);
	hide = dfr0 & DFR0_BOTH & ~shown;
	if (hide)
		vcpu_set_reg(vcpu, ID_DFR0, dfr0 & ~hide);
	guest_mode = mode;
	guest_buf_size = SPE_BUF_PAGES * (*vm)->page_size;
	/* before the exit page: vm_vaddr_alloc() would reuse its free gap */
	guest_buf = vm_vaddr_alloc(*vm, guest_buf_size, KVM_UTIL_MIN_VADDR);
	sync_global_to_guest(*vm, guest_mode);
	sync_global_to_guest(*vm, guest_buf);
	sync_global_to_guest(*vm, guest_buf_size);
	map_exit_page(*vm);
	return vcpu;
}

/* n/a, saying @why, for the rows of what the guests are not shown; false if both */
static bool vpmu_rows_available(uint64_t dfr0, const char *why)
{
	if (!(dfr0 & DFR0_BRBE_MASK)) {
		printf("bench: kvm-vpmu-brbe-shown n/a %s BRBE\n", why);
		printf("bench: kvm-vpmu-brbe n/a %s BRBE\n", why);
		printf("bench: kvm-vpmu-brbe-kept n/a %s BRBE\n", why);
	}
	if (!(dfr0 & DFR0_PMSVER_MASK)) {
		printf("bench: kvm-vpmu-spe-shown n/a %s SPE\n", why);
		printf("bench: kvm-vpmu-spe n/a %s SPE\n", why);
		printf("bench: kvm-spe-s2fault-1 n/a %s SPE\n", why);
		printf("bench: kvm-spe-s2fault-64 n/a %s SPE\n", why);
	}
	if (dfr0 & DFR0_BOTH)
		return true;
	printf("bench: kvm-vpmu-shown n/a %s BRBE or SPE\n", why);
	return false;
}

/*
 * Fail the run unless the kept guest's buffer is still paused and, read
 * by the guest in one more round trip, holds NUMREC valid records. The
 * guest is sent to guest_brbe_kept_read() at its exit: not as an MMIO
 * exit, so that KVM does not skip that function's first instruction.
 */
static void brbe_kept_check(struct kvm_vcpu *vcpu, char *kept)
{
	uint64_t fcr;

	vcpu_get_reg(vcpu, REG_BRBFCR_EL1, &fcr);
	vcpu_set_reg(vcpu, ARM64_CORE_REG(regs.pc), (uint64_t)guest_brbe_kept_read);
	vcpu->run->exit_reason = KVM_EXIT_UNKNOWN;
	round_trips_n(vcpu, NULL, 1);
	sync_global_from_guest(vcpu->vm, guest_numrec);
	sync_global_from_guest(vcpu->vm, guest_kept_first);
	sync_global_from_guest(vcpu->vm, guest_kept_last);
	if (!(fcr & BRBFCR_PAUSED) || guest_numrec < BRBE_BANK_RECORDS ||
	    (guest_kept_first & BRBINF_VALID) != BRBINF_VALID ||
	    (guest_kept_last & BRBINF_VALID) != BRBINF_VALID) {
		fprintf(stderr,
			"bench: error: kvm-vpmu-brbe-kept: BRBFCR_EL1 %#lx, NUMREC %lu, BRBINF %#lx to %#lx\n",
			(unsigned long)fcr, (unsigned long)guest_numrec,
			(unsigned long)guest_kept_first, (unsigned long)guest_kept_last);
		exit(1);
	}
	sprintf(kept, "brbfcr=%#lx records=%lu", (unsigned long)fcr,
		(unsigned long)guest_numrec);
}

/* Fail the run unless the guests really recorded and profiled */
static void vpmu_guests_check(struct kvm_vcpu **vcpu, uint64_t dfr0, char *brbe,
			      char *kept, char *spe)
{
	uint64_t brbcr, fcr, ptr, status;

	if (dfr0 & DFR0_BRBE_MASK) {
		/* Recording, at EL1, every type: the loop's b on each trip */
		vcpu_get_reg(vcpu[G_BRBE], REG_BRBCR_EL1, &brbcr);
		vcpu_get_reg(vcpu[G_BRBE], REG_BRBFCR_EL1, &fcr);
		if (brbcr != (BRBCR_E0BRE | BRBCR_E1BRE) || fcr != BRBFCR_ALL) {
			fprintf(stderr, "bench: error: kvm-vpmu-brbe: BRBCR_EL1 %#lx BRBFCR_EL1 %#lx\n",
				(unsigned long)brbcr, (unsigned long)fcr);
			exit(1);
		}
		sprintf(brbe, "brbcr=%#lx", (unsigned long)brbcr);
		brbe_kept_check(vcpu[G_BRBE_KEPT], kept);
	}
	if (dfr0 & DFR0_PMSVER_MASK) {
		sync_global_from_guest(vcpu[G_SPE]->vm, guest_buf);
		vcpu_get_reg(vcpu[G_SPE], KVM_ARM64_SYS_REG(SYS_PMBPTR_EL1), &ptr);
		vcpu_get_reg(vcpu[G_SPE], KVM_ARM64_SYS_REG(SYS_PMBSR_EL1), &status);
		/* records written, the buffer neither full nor stopped */
		if (ptr <= guest_buf || ptr >= guest_buf + guest_buf_size || status) {
			fprintf(stderr,
				"bench: error: kvm-vpmu-spe: PMBPTR_EL1 +%#lx, PMBSR_EL1 %#lx\n",
				(unsigned long)(ptr - guest_buf), (unsigned long)status);
			exit(1);
		}
		sprintf(spe, "spe_bytes=%lu", (unsigned long)(ptr - guest_buf));
	}
}

/* KVM's most pages mapped per fault on the buffer: it maps 64 4KB pages */
#define KVM_SPE_FAULT_PAGES	64

/* One row: the median of guest @g's round trips net of guest @base's */
static void vpmu_report(const char *path, double (*t)[REPS], int g, int base,
			const char *extra)
{
	report(path, median(t[g], REPS), median(t[base], REPS), OPS, extra);
}

/* The buffer-fault guests' memory: its own memslot, far above slot 0 */
#define FAULT_SLOT	1
#define FAULT_GPA	BIT_ULL(30)
/* Round trips before the windows: the guest's setup, its code's faults */
#define FAULT_WARM	10

/*
 * A vPMU VM shown SPE whose guest bursts into @slots slots of @pages pages
 * each (MODE_SPE_FRESH or _MAPPED): the buffer, and the stage-1 tables
 * that map it, in a memslot of their own, so that slot 0 (the guest's
 * code and the library's) need not hold them.
 */
static struct kvm_vcpu *fault_guest_create(struct kvm_vm **vm, uint64_t pages,
					   uint64_t slots, enum guest_mode mode)
{
	struct kvm_vcpu *vcpu = vpmu_vm_create(vm, guest_vpmu_code);
	uint64_t npages = pages * slots;
	uint32_t data, pt;

	if (vpmu_vm_spe_irq(vcpu))
		die("KVM_ARM_VCPU_SPE_IRQ");
	/* the buffer's pages, then its tables: one per 512 pages, and a few more */
	vm_userspace_mem_region_add(*vm, VM_MEM_SRC_ANONYMOUS, FAULT_GPA, FAULT_SLOT,
				    npages + npages / 512 + 8, 0);
	data = (*vm)->memslots[MEM_REGION_TEST_DATA];
	pt = (*vm)->memslots[MEM_REGION_PT];
	(*vm)->memslots[MEM_REGION_TEST_DATA] = FAULT_SLOT;
	(*vm)->memslots[MEM_REGION_PT] = FAULT_SLOT;
	guest_buf = vm_vaddr_alloc(*vm, npages * (*vm)->page_size, KVM_UTIL_MIN_VADDR);
	(*vm)->memslots[MEM_REGION_TEST_DATA] = data;
	(*vm)->memslots[MEM_REGION_PT] = pt;
	/*
	 * The host's pages exist (the VMM wrote them): a fault costs KVM's
	 * work only, not the allocation any first write to guest memory pays
	 */
	memset(addr_gva2hva(*vm, guest_buf), 0, npages * (*vm)->page_size);
	guest_mode = mode;
	guest_slots = slots;
	guest_slot_bytes = pages * (*vm)->page_size;
	sync_global_to_guest(*vm, guest_mode);
	sync_global_to_guest(*vm, guest_buf);
	sync_global_to_guest(*vm, guest_slots);
	sync_global_to_guest(*vm, guest_slot_bytes);
	map_exit_page(*vm);
	return vcpu;
}

/* A buffer-fault guest's bursts: the bytes of each, failing unless all alike and clean */
static uint64_t fault_guest_bytes(struct kvm_vcpu *vcpu, const char *path)
{
	sync_global_from_guest(vcpu->vm, guest_burst_min);
	sync_global_from_guest(vcpu->vm, guest_burst_max);
	sync_global_from_guest(vcpu->vm, guest_burst_status);
	if (guest_burst_min != guest_burst_max || !guest_burst_max || guest_burst_status) {
		fprintf(stderr, "bench: error: %s: bursts of %lu to %lu bytes, PMBSR_EL1 %#lx\n",
			path, (unsigned long)guest_burst_min, (unsigned long)guest_burst_max,
			(unsigned long)guest_burst_status);
		exit(1);
	}
	return guest_burst_max;
}

/*
 * kvm-spe-s2fault-@pages: @ops round trips per window of a guest whose
 * every burst takes a stage-2 fault on a fresh buffer of @pages pages, net
 * of the same into mapped pages. Exact, not inferred: every fresh burst
 * must have lost the same bytes, one record, which only the fault loses,
 * and no burst may have ended with a status the guest would see. The
 * vCPU's exits per round trip, both guests', are printed beside: one more
 * for the fresh guest, give or take the host's timer interrupts.
 */
static void entry_exit_spe_fault(uint64_t pages, int ops)
{
	double t[2][REPS];
	struct kvm_vcpu *vcpu[2];
	struct kvm_vm *vm[2];
	uint64_t exits[2], fresh, mapped;
	char path[32], raw[48], base[48], extra[128];
	int r;

	snprintf(path, sizeof(path), "kvm-spe-s2fault-%lu", (unsigned long)pages);
	snprintf(raw, sizeof(raw), "%s.raw", path);
	snprintf(base, sizeof(base), "%s.base", path);
	vcpu[0] = fault_guest_create(&vm[0], pages, FAULT_WARM + REPS * ops, MODE_SPE_FRESH);
	vcpu[1] = fault_guest_create(&vm[1], pages, 1, MODE_SPE_MAPPED);

	for (r = 0; r < 2; r++) {
		round_trips_n(vcpu[r], NULL, FAULT_WARM);
		exits[r] = vcpu_stat(vcpu[r], "exits");
	}
	for (r = 0; r < REPS; r++) {
		t[0][r] = round_trips_n(vcpu[0], raw, ops);
		t[1][r] = round_trips_n(vcpu[1], base, ops);
	}
	for (r = 0; r < 2; r++)
		exits[r] = vcpu_stat(vcpu[r], "exits") - exits[r];

	fresh = fault_guest_bytes(vcpu[0], path);
	mapped = fault_guest_bytes(vcpu[1], path);
	/* a record is at most 64 bytes */
	if (fresh >= mapped || mapped - fresh > 64) {
		fprintf(stderr, "bench: error: %s: %lu bytes per burst, %lu into mapped pages\n",
			path, (unsigned long)fresh, (unsigned long)mapped);
		exit(1);
	}
	snprintf(extra, sizeof(extra),
		 "pages=%lu faults=%d lost_bytes=%lu burst_bytes=%lu exits=%.3f exits_mapped=%.3f",
		 (unsigned long)pages, REPS * ops, (unsigned long)(mapped - fresh),
		 (unsigned long)mapped, (double)exits[0] / (REPS * ops),
		 (double)exits[1] / (REPS * ops));
	report(path, median(t[0], REPS), median(t[1], REPS), ops, extra);
	for (r = 0; r < 2; r++)
		kvm_vm_free(vm[r]);
}

/*
 * kvm-vpmu-shown, -brbe-shown and -spe-shown: what KVM's switch of both, of
 * BRBE, of SPE costs a guest that uses neither; kvm-vpmu-brbe and -spe:
 * what the guest's recording or profiling adds to the switch of both;
 * kvm-vpmu-brbe-kept: what keeping a full paused buffer adds to that.
 */
static void entry_exit_vpmu(void)
{
	double t[NR_G][REPS];
	struct kvm_vcpu *vcpu[NR_G];
	struct kvm_vm *vm[NR_G];
	char brbe[64] = "", kept[64] = "", spe[64] = "";
	uint64_t dfr0;
	int g, r;

	if (!kvm_has_cap(KVM_CAP_ARM_PMU_V3)) {
		vpmu_rows_available(0, "no KVM_CAP_ARM_PMU_V3: no vPMU, no");
		return;
	}
	vcpu[G_SHOWN] = vpmu_guest_create(&vm[G_SHOWN], DFR0_BOTH, MODE_NONE);
	vcpu_get_reg(vcpu[G_SHOWN], ID_DFR0, &dfr0);
	if (!vpmu_rows_available(dfr0, "the vPMU guest sees no")) {
		kvm_vm_free(vm[G_SHOWN]);
		return;
	}
	for (g = 0; g < NR_G; g++)
		if (g != G_SHOWN)
			vcpu[g] = vpmu_guest_create(&vm[g], vpmu_guests[g].shown,
						    vpmu_guests[g].mode);

	/* Warm up: stage-2 faults, the guests' enabling */
	for (g = 0; g < NR_G; g++)
		round_trips(vcpu[g], NULL);
	for (r = 0; r < REPS; r++)
		for (g = 0; g < NR_G; g++)
			t[g][r] = round_trips(vcpu[g], vpmu_guests[g].label);
	vpmu_guests_check(vcpu, dfr0, brbe, kept, spe);

	vpmu_report("kvm-vpmu-shown", t, G_SHOWN, G_HIDDEN, NULL);
	if (dfr0 & DFR0_BRBE_MASK) {
		vpmu_report("kvm-vpmu-brbe-shown", t, G_BRBE_SHOWN, G_HIDDEN, NULL);
		vpmu_report("kvm-vpmu-brbe", t, G_BRBE, G_SHOWN, brbe);
		vpmu_report("kvm-vpmu-brbe-kept", t, G_BRBE_KEPT, G_BRBE, kept);
	}
	if (dfr0 & DFR0_PMSVER_MASK) {
		vpmu_report("kvm-vpmu-spe-shown", t, G_SPE_SHOWN, G_HIDDEN, NULL);
		vpmu_report("kvm-vpmu-spe", t, G_SPE, G_SHOWN, spe);
	}
	for (g = 0; g < NR_G; g++)
		kvm_vm_free(vm[g]);
	if (dfr0 & DFR0_PMSVER_MASK) {
		entry_exit_spe_fault(1, 1000);
		entry_exit_spe_fault(KVM_SPE_FAULT_PAGES, 100);
	}
}

int main(void)
{
	pin_cpu0();
	if (access("/dev/kvm", R_OK | W_OK)) {
		printf("bench: kvm-entry-exit n/a no /dev/kvm (the kernel did not boot at EL2)\n");
		printf("bench: kvm-novpmu n/a no /dev/kvm\n");
		vpmu_rows_available(0, "no /dev/kvm: no");
		return 0;
	}
	entry_exit_events();
	entry_exit_vpmu();
	return 0;
}
