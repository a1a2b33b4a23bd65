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
 * E0BRE and E1BRE, BRBFCR_EL1 0), and kvm-vpmu-spe, a guest profiling
 * into its own buffer (every SPE_INTERVAL operations: a few records,
 * never full), each net of the one shown both that uses neither.
 *
 * Built by harness/kvm-tests.sh on the base tree's KVM selftest library;
 * harness/bench.sh carries it into the guest as /bench/kvm_exit. Under
 * nested virtualisation (QEMU virtualization=on) the guest clock counts
 * the nested guest's instructions too: the same few in both runs.
 */
#include "bench.h"

#include <kvm_util.h>
#include <processor.h>

#include "vpmu_vm.h"

#define OPS	10000
#define NR_EV	4

/* The guest's exit address, set by the host before the first run */
static uint64_t exit_gva;

/* What a vPMU guest enables before its loop */
enum guest_mode { MODE_NONE, MODE_BRBE, MODE_SPE };

#define SPE_BUF_PAGES	4
/* About 2 operations per round trip: a few records in the whole run */
#define SPE_INTERVAL	4096

/* Set by the host before the first run of a vPMU guest */
static uint64_t guest_mode, guest_buf, guest_buf_size;

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

/* Record every branch at EL1 and EL0 into the guest's own buffer */
static void guest_brbe_on(void)
{
	write_sysreg_s(0, SYS_BRBFCR_EL1);
	write_sysreg_s(BRBCR_E0BRE | BRBCR_E1BRE, SYS_BRBCR_EL1);
	isb();
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

static void guest_vpmu_code(void)
{
	switch (READ_ONCE(guest_mode)) {
	case MODE_BRBE:
		guest_brbe_on();
		break;
	case MODE_SPE:
		guest_spe_on(READ_ONCE(guest_buf), READ_ONCE(guest_buf_size));
		break;
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

/* OPS round trips, each exactly one KVM_RUN ending at the guest's store */
static double round_trips(struct kvm_vcpu *vcpu, const char *label)
{
	uint64_t exit_gpa = vcpu->vm->max_gfn << vcpu->vm->page_shift;
	struct kvm_run *run = vcpu->run;
	uint64_t t0, t1;
	int i, bad = 0;

	t0 = now_ns();
	mark_begin();
	for (i = 0; i < OPS; i++) {
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
		mark_emit(label, OPS);
	return (double)(t1 - t0) / OPS;
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
	kvm_vm_free(vm);
}

/*
 * The vPMU guests: what each is shown (the rest of BRBE and SPE written 0
 * in ID_AA64DFR0_EL1 before its first run) and what it enables.
 */
enum { G_HIDDEN, G_SHOWN, G_BRBE_SHOWN, G_SPE_SHOWN, G_BRBE, G_SPE, NR_G };

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
	[G_SPE] = { DFR0_BOTH, MODE_SPE, "kvm-vpmu-spe.raw" },
};

#define ID_DFR0		KVM_ARM64_SYS_REG(SYS_ID_AA64DFR0_EL1)

/*
 * A vPMU VM whose guest is shown no more of BRBE and SPE than @shown and
 * enables what @mode says. Every one has the same buffer and exit page,
 * and the SPE interrupt where SPE is shown.
 */
static struct kvm_vcpu *vpmu_guest_create(struct kvm_vm **vm, uint64_t shown,
					  enum guest_mode mode)
{
	struct kvm_vcpu *vcpu = vpmu_vm_create(vm, guest_vpmu_code);
	uint64_t dfr0, hide;

	vcpu_get_reg(vcpu, ID_DFR0, &dfr0);
	hide = dfr0 & DFR0_BOTH & ~shown;
	if (hide)
		vcpu_set_reg(vcpu, ID_DFR0, dfr0 & ~hide);
	if ((dfr0 & ~hide & DFR0_PMSVER_MASK) && vpmu_vm_spe_irq(vcpu))
		die("KVM_ARM_VCPU_SPE_IRQ");
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
	}
	if (!(dfr0 & DFR0_PMSVER_MASK)) {
		printf("bench: kvm-vpmu-spe-shown n/a %s SPE\n", why);
		printf("bench: kvm-vpmu-spe n/a %s SPE\n", why);
	}
	if (dfr0 & DFR0_BOTH)
		return true;
	printf("bench: kvm-vpmu-shown n/a %s BRBE or SPE\n", why);
	return false;
}

/* Fail the run unless the guests really recorded and profiled */
static void vpmu_guests_check(struct kvm_vcpu **vcpu, uint64_t dfr0, char *brbe, char *spe)
{
	uint64_t brbcr, ptr, status;

	if (dfr0 & DFR0_BRBE_MASK) {
		vcpu_get_reg(vcpu[G_BRBE], REG_BRBCR_EL1, &brbcr);
		if (brbcr != (BRBCR_E0BRE | BRBCR_E1BRE)) {
			fprintf(stderr, "bench: error: kvm-vpmu-brbe: BRBCR_EL1 %#lx\n",
				(unsigned long)brbcr);
			exit(1);
		}
		sprintf(brbe, "brbcr=%#lx", (unsigned long)brbcr);
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

/* One row: the median of guest @g's round trips net of guest @base's */
static void vpmu_report(const char *path, double (*t)[REPS], int g, int base,
			const char *extra)
{
	report(path, median(t[g], REPS), median(t[base], REPS), OPS, extra);
}

/*
 * kvm-vpmu-shown, -brbe-shown and -spe-shown: what KVM's switch of both, of
 * BRBE, of SPE costs a guest that uses neither; kvm-vpmu-brbe and -spe:
 * what the guest's recording or profiling adds to the switch of both.
 */
static void entry_exit_vpmu(void)
{
	double t[NR_G][REPS];
	struct kvm_vcpu *vcpu[NR_G];
	struct kvm_vm *vm[NR_G];
	char brbe[64] = "", spe[64] = "";
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
	vpmu_guests_check(vcpu, dfr0, brbe, spe);

	vpmu_report("kvm-vpmu-shown", t, G_SHOWN, G_HIDDEN, NULL);
	if (dfr0 & DFR0_BRBE_MASK) {
		vpmu_report("kvm-vpmu-brbe-shown", t, G_BRBE_SHOWN, G_HIDDEN, NULL);
		vpmu_report("kvm-vpmu-brbe", t, G_BRBE, G_SHOWN, brbe);
	}
	if (dfr0 & DFR0_PMSVER_MASK) {
		vpmu_report("kvm-vpmu-spe-shown", t, G_SPE_SHOWN, G_HIDDEN, NULL);
		vpmu_report("kvm-vpmu-spe", t, G_SPE, G_SHOWN, spe);
	}
	for (g = 0; g < NR_G; g++)
		kvm_vm_free(vm[g]);
}

int main(void)
{
	pin_cpu0();
	if (access("/dev/kvm", R_OK | W_OK)) {
		printf("bench: kvm-entry-exit n/a no /dev/kvm (the kernel did not boot at EL2)\n");
		vpmu_rows_available(0, "no /dev/kvm: no");
		return 0;
	}
	entry_exit_events();
	entry_exit_vpmu();
	return 0;
}
