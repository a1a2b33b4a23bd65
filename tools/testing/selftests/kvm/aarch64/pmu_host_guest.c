// SPDX-License-Identifier: GPL-2.0-only
/*
 * pmu_host_guest - host/guest split of the host's PMUv3 counters
 *
 * The host opens per-thread perf events with exclude_host / exclude_guest on
 * the thread that runs KVM_RUN (this one), runs a guest loop of a known
 * instruction count at guest EL1 or EL0, and checks what each event saw:
 *
 *   guest-only  (exclude_host)   the loop and the guest's few hundred
 *                                instructions of ucall code, never EL2;
 *   host-only   (exclude_guest)  the VMM and the host kernel, not the loop;
 *   both                         guest-only + host-only, plus on nVHE the
 *                                world-switch instructions that run at EL2
 *                                after KVM stops the host-only counters and
 *                                before it enters the guest (and back): the
 *                                blackout window of
 *                                Documentation/arch/arm64/pmu-kvm.rst.
 *
 * Under QEMU's -icount shift=0 the guest is deterministic, so the guest-side
 * counts are exact: what the loop adds is checked to the instruction by
 * running it with two lengths and comparing the difference. The host side
 * changes with the guest's run time only through the host's timer
 * interrupts that land while the guest runs, bounded below.
 *
 * A second VM has a vPMU: the guest counts its own loop at EL1 with
 * PMEVCNTR0_EL0, which KVM backs with a guest-only perf event on the host's
 * PMU, so that count goes through our driver's exclude_host path too.
 *
 * The host mode (VHE or nVHE, kvm-arm.mode=nvhe) is read from the kernel
 * log, where KVM announces it at boot.
 *
 * A third VM checks that the guest's accesses to the Branch Record Buffer,
 * which holds the host's branch records, take an UNDEF.
 *
 * "pmu_host_guest -l ITERS" only runs the loop once, at guest EL1, and
 * exits: a workload for perf stat's :G and :H modifiers.
 */
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>

#include <kvm_util.h>
#include <processor.h>
#include <test_util.h>
#include <vgic.h>
#include <perf/arm_pmuv3.h>

#include "vcpu_stat.h"
#include "vpmu_vm.h"

/* Two instructions per iteration: subs and b.ne */
#define LOOP_INSNS(n)		(2 * (n))
#define ITERS_SHORT		1000000UL
#define ITERS_LONG		6000000UL
#define LOOP_DELTA		LOOP_INSNS(ITERS_LONG - ITERS_SHORT)

/*
 * What the host-only side may add when the guest runs 10M more
 * instructions: the host's timer ticks (and their guest exits) that fall
 * into the longer run. Each costs the host a few thousand instructions
 * (measured: the longer run adds 6,000-19,000); 1% of the loop (100,000)
 * leaves a wide margin while a host-only event that saw the loop would be
 * 100 times over.
 */
#define HOST_DRIFT_MAX		(LOOP_DELTA / 100)

/*
 * The guest's own instructions around the loop within one KVM_RUN: return
 * from the ucall MMIO exit, the test's loop dispatch and the next ucall up
 * to its MMIO store. Measured at 319 on both host modes (see the printed
 * "overhead"); 2000 bounds it without depending on the compiler's exact
 * code, and is far below what one missed or doubled loop would add.
 */
#define GUEST_OVERHEAD_MAX	2000

/*
 * The nVHE blackout: the EL2 instructions of the world switch that run after
 * KVM has stopped the host-only counters and before it enters the guest,
 * and from the guest's exit to restarting them. Measured at 855-867 per
 * exit (one entry and one exit) under QEMU -cpu max; 1500 leaves room for
 * other exit reasons, while a host-only counter left stopped after an exit
 * would miss thousands of instructions of the VMM and host kernel per run.
 */
#define BLACKOUT_PER_EXIT_MAX	1500

enum { MODE_UNKNOWN, MODE_VHE, MODE_NVHE };

/* Set by the host before each run, read by the guest */
static uint64_t guest_iters;
static uint64_t guest_at_el0;

/*
 * The address of a label of this file's asm, which C does not declare:
 * taken PC-relative, as the compiler takes a symbol's, so right both on the
 * host and in the guest, which runs the test's image at the same addresses.
 */
#define ASM_LABEL(label)						\
({									\
	uint64_t __addr;						\
									\
	asm("adrp %0, " #label "\n\t"					\
	    "add %0, %0, :lo12:" #label					\
	    : "=r" (__addr));						\
	__addr;								\
})

/*
 * The EL0 loop lives on pages of its own, which the host maps readable and
 * executable at EL0. It counts x0 down and returns to EL1 with svc.
 * 64K alignment fits every translation granule.
 */
asm(".pushsection .text.el0_loop, \"ax\"\n"
	".balign 65536\n"
	".global el0_loop\n"
	"el0_loop:\n"
	"1:	subs	x0, x0, #1\n"
	"	b.ne	1b\n"
	"	svc	#0\n"
	".balign 65536\n"
	".global el0_loop_end\n"
	"el0_loop_end:\n"
	".popsection\n");

/*
 * run_at_el0(iters, entry): eret to EL0 at entry with x0 = iters. The svc
 * handler below resumes at el0_return at EL1h on the same SP_EL1, and the
 * exception frame gives back every register EL0 did not touch (only x0),
 * so to the caller this is an ordinary call that clobbers x0 and x1.
 */
typedef void (*run_at_el0_fn)(uint64_t iters, uint64_t entry);
asm(".pushsection .text\n"
	".global run_at_el0\n"
	"run_at_el0:\n"
	"	msr	elr_el1, x1\n"
	"	mov	x1, #0x3c0\n"		/* EL0t, interrupts masked */
	"	msr	spsr_el1, x1\n"
	"	isb\n"
	"	eret\n"
	".global el0_return\n"
	"el0_return:\n"
	"	ret\n"
	".popsection\n");

static void guest_svc_handler(struct ex_regs *regs)
{
	regs->pc = ASM_LABEL(el0_return);
	regs->pstate = PSR_MODE_EL1h | PSR_D_BIT | PSR_A_BIT | PSR_I_BIT | PSR_F_BIT;
}

static void guest_loop_el1(uint64_t iters)
{
	asm volatile("1:	subs	%0, %0, #1\n"
		     "	b.ne	1b\n"
		     : "+r" (iters) : : "cc");
}

static void guest_code(void)
{
	run_at_el0_fn run_at_el0 = (run_at_el0_fn)ASM_LABEL(run_at_el0);

	for (;;) {
		GUEST_SYNC(0);
		if (READ_ONCE(guest_at_el0))
			run_at_el0(READ_ONCE(guest_iters), ASM_LABEL(el0_loop));
		else
			guest_loop_el1(READ_ONCE(guest_iters));
	}
}

/*
 * The guest's own PMU: counter 0 counts INST_RETIRED at EL1 (EL0 excluded)
 * around the loop, and the count goes to the host with the sync. Each PMU
 * register access traps to KVM, which emulates it without retiring it, so
 * only the isb and the loop are counted, plus what the CPU retires between
 * the enabling write taking effect and the disabling one.
 */
static void guest_vpmu_code(void)
{
	uint64_t count = 0;

	for (;;) {
		GUEST_SYNC1(count);
		write_sysreg(0, pmcr_el0);
		write_sysreg(ARMV8_PMUV3_PERFCTR_INST_RETIRED | ARMV8_PMU_EXCLUDE_EL0,
			     pmevtyper0_el0);
		write_sysreg(0, pmevcntr0_el0);
		write_sysreg(BIT(0), pmcntenset_el0);
		write_sysreg(ARMV8_PMU_PMCR_E, pmcr_el0);
		isb();
		guest_loop_el1(READ_ONCE(guest_iters));
		write_sysreg(0, pmcr_el0);
		isb();
		count = read_sysreg(pmevcntr0_el0);
	}
}

/*
 * A guest without BRBE (KVM gives none to one without a vPMU, as here)
 * must take an UNDEF on every register and instruction of the buffer,
 * which holds the host's records: the host's boot code opens the EL2
 * traps on them for a nVHE host's own driver, and a guest runs with the
 * host's traps unless KVM sets its own (under protected KVM, in the
 * hypervisor's own copy of the VM). Each access that traps is counted
 * and skipped; the counts, by kind, go to the host with the sync.
 * Encodings from the Arm ARM (op0 2, op1 1): BRBCR_EL1 c9_c0_0,
 * BRBFCR_EL1 c9_c0_1, BRBTS_EL1 c9_c0_2, BRBINFINJ_EL1 c9_c1_0,
 * BRBSRCINJ_EL1 c9_c1_1, BRBTGTINJ_EL1 c9_c1_2, BRBIDR0_EL1 c9_c2_0;
 * record n's BRBINF, BRBSRC and BRBTGT are c8_c<n[3:0]>_<op2> with op2
 * 0, 1, 2 for n < 16 and 4, 5, 6 above; BRB IALL and BRB INJ are sys #1,
 * C7, C2, #4 and #5.
 */
#define BRBE_CONTROL_READS	7
#define BRBE_CONTROL_WRITES	6
#define BRBE_RECORD_READS	(32 * 3)
#define BRBE_INSTRUCTIONS	2
static uint64_t guest_undefs;

static void guest_undef_handler(struct ex_regs *regs)
{
	guest_undefs++;
	regs->pc += 4;
}

#define BRBE_READ(enc)							\
	do {								\
		uint64_t __val;						\
									\
		asm volatile("mrs %0, " enc : "=r" (__val) : : "memory");	\
	} while (0)
#define BRBE_WRITE(enc)							\
	do {								\
		uint64_t __val = 0;					\
									\
		asm volatile("msr " enc ", %0" : : "r" (__val) : "memory");	\
	} while (0)
/* The six records of a bank that share CRm: n and n + 16 */
#define BRBE_READ_RECORDS(crm)						\
	do {								\
		BRBE_READ("s2_1_c8_c" #crm "_0");			\
		BRBE_READ("s2_1_c8_c" #crm "_1");			\
		BRBE_READ("s2_1_c8_c" #crm "_2");			\
		BRBE_READ("s2_1_c8_c" #crm "_4");			\
		BRBE_READ("s2_1_c8_c" #crm "_5");			\
		BRBE_READ("s2_1_c8_c" #crm "_6");			\
	} while (0)

static void guest_brbe_code(void)
{
	uint64_t ctl_rd, ctl_wr, rec;

	BRBE_READ("s2_1_c9_c0_0");
	BRBE_READ("s2_1_c9_c0_1");
	BRBE_READ("s2_1_c9_c0_2");
	BRBE_READ("s2_1_c9_c1_0");
	BRBE_READ("s2_1_c9_c1_1");
	BRBE_READ("s2_1_c9_c1_2");
	BRBE_READ("s2_1_c9_c2_0");
	ctl_rd = READ_ONCE(guest_undefs);

	BRBE_WRITE("s2_1_c9_c0_0");
	BRBE_WRITE("s2_1_c9_c0_1");
	BRBE_WRITE("s2_1_c9_c0_2");
	BRBE_WRITE("s2_1_c9_c1_0");
	BRBE_WRITE("s2_1_c9_c1_1");
	BRBE_WRITE("s2_1_c9_c1_2");
	ctl_wr = READ_ONCE(guest_undefs) - ctl_rd;

	BRBE_READ_RECORDS(0);
	BRBE_READ_RECORDS(1);
	BRBE_READ_RECORDS(2);
	BRBE_READ_RECORDS(3);
	BRBE_READ_RECORDS(4);
	BRBE_READ_RECORDS(5);
	BRBE_READ_RECORDS(6);
	BRBE_READ_RECORDS(7);
	BRBE_READ_RECORDS(8);
	BRBE_READ_RECORDS(9);
	BRBE_READ_RECORDS(10);
	BRBE_READ_RECORDS(11);
	BRBE_READ_RECORDS(12);
	BRBE_READ_RECORDS(13);
	BRBE_READ_RECORDS(14);
	BRBE_READ_RECORDS(15);
	rec = READ_ONCE(guest_undefs) - ctl_rd - ctl_wr;

	asm volatile("sys #1, C7, C2, #4" : : : "memory");
	asm volatile("sys #1, C7, C2, #5" : : : "memory");
	GUEST_SYNC4(ctl_rd, ctl_wr, rec,
		    READ_ONCE(guest_undefs) - ctl_rd - ctl_wr - rec);
}

/* ---- host side ---- */

struct group {
	int fd[8];
	int nr;
};

static long perf_open(struct perf_event_attr *attr, int group_fd)
{
	return syscall(__NR_perf_event_open, attr, 0, -1, group_fd, 0);
}

/*
 * group_open(): one group of instruction counters on this thread, so all
 * of them start and stop together and their sums compare exactly.
 * flags[i] says which of EXCL_* the i-th event sets.
 */
#define EXCL_HOST	BIT(0)
#define EXCL_GUEST	BIT(1)
#define EXCL_USER	BIT(2)
#define EXCL_KERNEL	BIT(3)
#define EXCL_HV		BIT(4)

static void group_open(struct group *g, const unsigned int *flags, int nr)
{
	int i;

	g->nr = nr;
	for (i = 0; i < nr; i++) {
		struct perf_event_attr attr = {
			.size = sizeof(attr),
			.type = PERF_TYPE_HARDWARE,
			.config = PERF_COUNT_HW_INSTRUCTIONS,
			.disabled = i == 0,
			.read_format = PERF_FORMAT_GROUP,
			.exclude_host = !!(flags[i] & EXCL_HOST),
			.exclude_guest = !!(flags[i] & EXCL_GUEST),
			.exclude_user = !!(flags[i] & EXCL_USER),
			.exclude_kernel = !!(flags[i] & EXCL_KERNEL),
			.exclude_hv = !!(flags[i] & EXCL_HV),
		};

		g->fd[i] = perf_open(&attr, i ? g->fd[0] : -1);
		if (g->fd[i] < 0)
			ksft_exit_skip("perf_event_open(instructions, flags %#x): %s\n",
				       flags[i], strerror(errno));
	}
}

static void group_close(struct group *g)
{
	while (g->nr)
		close(g->fd[--g->nr]);
}

static int mode;

#define report(cond, fmt, ...) ksft_test_result(cond, fmt "\n", ##__VA_ARGS__)

struct run {
	uint64_t v[8];
	uint64_t exits;
};

/* One guest run of iters loop iterations with the group counting around it */
static void measure(struct kvm_vcpu *vcpu, struct group *g, uint64_t iters,
		    bool el0, struct run *r)
{
	struct kvm_vm *vm = vcpu->vm;
	uint64_t buf[1 + 8], exits;
	struct ucall uc;
	int i;

	guest_iters = iters;
	guest_at_el0 = el0;
	sync_global_to_guest(vm, guest_iters);
	sync_global_to_guest(vm, guest_at_el0);
	exits = vcpu_stat(vcpu, "exits");

	/*
	 * Enable and disable the leader only: the siblings stay enabled and
	 * the group goes on and off the PMU as one. PERF_IOC_FLAG_GROUP would
	 * switch the siblings off too, and enabling them again one ioctl
	 * step after the other starts each ~530 kernel instructions late.
	 */
	TEST_ASSERT(!ioctl(g->fd[0], PERF_EVENT_IOC_RESET, PERF_IOC_FLAG_GROUP), "reset");
	TEST_ASSERT(!ioctl(g->fd[0], PERF_EVENT_IOC_ENABLE, 0), "enable");
	vcpu_run(vcpu);
	TEST_ASSERT(!ioctl(g->fd[0], PERF_EVENT_IOC_DISABLE, 0), "disable");

	TEST_ASSERT(get_ucall(vcpu, &uc) == UCALL_SYNC, "guest stopped without its sync");
	TEST_ASSERT(read(g->fd[0], buf, sizeof(buf)) == (ssize_t)((1 + g->nr) * 8), "read");
	TEST_ASSERT(buf[0] == (uint64_t)g->nr, "group of %lu", buf[0]);
	for (i = 0; i < g->nr; i++)
		r->v[i] = buf[1 + i];
	r->exits = vcpu_stat(vcpu, "exits") - exits;
}

/* Guest-readable-and-executable-at-EL0 mapping of the EL0 loop's pages */
static void map_el0_loop(struct kvm_vm *vm)
{
	uint64_t gva, end = ASM_LABEL(el0_loop_end);

	for (gva = ASM_LABEL(el0_loop); gva < end; gva += vm->page_size) {
		uint64_t *pte = virt_get_pte_hva(vm, gva);

		/* AP[2:1] = 0b11: read-only at EL1 and EL0; UXN stays clear */
		*pte |= 3ULL << 6;
	}
}

/*
 * A sampling guest-only event in frequency mode counting the loop at guest
 * EL0. At every host tick perf stops and restarts such an event to adjust
 * its period, from the tick's interrupt, which on VHE arrives while the
 * vCPU is loaded: the restart writes the event's filter back with EL0
 * excluded, and the driver must have KVM set EL0 again before the guest
 * resumes, or the rest of the loop is lost.
 */
static void test_freq_el0(struct kvm_vcpu *vcpu)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_HARDWARE,
		.config = PERF_COUNT_HW_INSTRUCTIONS,
		.disabled = 1,
		.read_format = PERF_FORMAT_GROUP,
		.freq = 1,
		.sample_freq = 1000,
		.sample_type = PERF_SAMPLE_IP,
		.exclude_host = 1,
		.exclude_kernel = 1,
		.exclude_hv = 1,
	};
	struct group g = { .nr = 1 };
	struct run s, l;

	g.fd[0] = perf_open(&attr, -1);
	if (g.fd[0] < 0) {
		ksft_test_result_skip("guest_user_freq_event_counts_el0_loop: %s\n",
				      strerror(errno));
		return;
	}
	measure(vcpu, &g, ITERS_SHORT, true, &s);
	measure(vcpu, &g, ITERS_LONG, true, &l);
	group_close(&g);
	ksft_print_msg("freq-mode guest user event, loop at EL0: short %lu long %lu\n",
		       s.v[0], l.v[0]);
	report(s.v[0] == LOOP_INSNS(ITERS_SHORT) + 1 && l.v[0] == LOOP_INSNS(ITERS_LONG) + 1,
	       "guest_user_freq_event_counts_el0_loop");
}

/*
 * The guest's PMU (counters backed by host perf events KVM creates on our
 * driver) counting the guest's own loop: exact loop deltas, and a fixed
 * small rest: the isb and what retires around the trapped PMCR writes,
 * measured at 3; 16 allows another few instructions of compiled code.
 */
#define VPMU_REST_MAX	16

static uint64_t vpmu_run(struct kvm_vcpu *vcpu, uint64_t iters)
{
	struct ucall uc;

	guest_iters = iters;
	sync_global_to_guest(vcpu->vm, guest_iters);
	vcpu_run(vcpu);
	TEST_ASSERT(get_ucall(vcpu, &uc) == UCALL_SYNC, "vPMU guest stopped without its sync");
	return uc.args[0];
}

static void test_vpmu(void)
{
	const char *no_vpmu = "KVM has no vPMU (KVM_CAP_ARM_PMU_V3)";
	struct kvm_vcpu *vcpu;
	struct kvm_vm *vm;
	uint64_t s, l;

	if (!kvm_has_cap(KVM_CAP_ARM_PMU_V3)) {
		ksft_test_result_skip("vpmu_counts_guest_loop: %s\n", no_vpmu);
		ksft_test_result_skip("vpmu_rest_bounded: %s\n", no_vpmu);
		return;
	}

	vcpu = vpmu_vm_create(&vm, guest_vpmu_code);

	vpmu_run(vcpu, 1);			/* to the first sync */
	vpmu_run(vcpu, ITERS_SHORT);		/* warm-up */
	s = vpmu_run(vcpu, ITERS_SHORT);
	l = vpmu_run(vcpu, ITERS_LONG);
	kvm_vm_free(vm);

	ksft_print_msg("vPMU INST_RETIRED at guest EL1: short %lu long %lu (loop %lu, %lu)\n",
		       s, l, LOOP_INSNS(ITERS_SHORT), LOOP_INSNS(ITERS_LONG));
	report(l - s == LOOP_DELTA, "vpmu_counts_guest_loop");
	report(s >= LOOP_INSNS(ITERS_SHORT) && s - LOOP_INSNS(ITERS_SHORT) <= VPMU_REST_MAX,
	       "vpmu_rest_bounded");
}

static int host_mode(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	char rec[1024];
	int mode = MODE_UNKNOWN;
	ssize_t n;

	if (fd < 0)
		return MODE_UNKNOWN;
	/* One record per read; EAGAIN at the end of the log */
	while ((n = read(fd, rec, sizeof(rec) - 1)) > 0 || (n < 0 && errno == EPIPE)) {
		if (n <= 0)
			continue;
		rec[n] = 0;
		/*
		 * "VHE mode initialized successfully" with the kernel at EL2;
		 * "Hyp nVHE", "Hyp hVHE" or "Protected nVHE mode ..." when it
		 * runs at EL1 and KVM's hypervisor alone at EL2.
		 */
		if (strstr(rec, "]: VHE mode initialized successfully"))
			mode = MODE_VHE;
		else if (strstr(rec, "VHE mode initialized successfully"))
			mode = MODE_NVHE;
	}
	close(fd);
	return mode;
}

/*
 * Group {both, guest-only, host-only}, with or without exclude_hv on all.
 */
static void test_split(struct kvm_vcpu *vcpu, bool excl_hv)
{
	unsigned int hv = excl_hv ? EXCL_HV : 0;
	const unsigned int flags[] = { hv, EXCL_HOST | hv, EXCL_GUEST | hv };
	const char *sfx = excl_hv ? "_exclude_hv" : "";
	struct run s, l;
	struct group g;
	int64_t rest_s, rest_l;

	group_open(&g, flags, 3);
	measure(vcpu, &g, ITERS_SHORT, false, &s);	/* warm-up: stage-2 faults */
	measure(vcpu, &g, ITERS_SHORT, false, &s);
	measure(vcpu, &g, ITERS_LONG, false, &l);
	group_close(&g);

	ksft_print_msg("%s: short %lu iters: both %lu guest %lu host %lu exits %lu\n",
		       excl_hv ? "exclude_hv" : "count hv", ITERS_SHORT,
		       s.v[0], s.v[1], s.v[2], s.exits);
	ksft_print_msg("%s: long %lu iters: both %lu guest %lu host %lu exits %lu\n",
		       excl_hv ? "exclude_hv" : "count hv", ITERS_LONG,
		       l.v[0], l.v[1], l.v[2], l.exits);
	ksft_print_msg("guest overhead (guest-only minus loop): %ld\n",
		       (long)(s.v[1] - LOOP_INSNS(ITERS_SHORT)));

	/* The loop reaches guest-only to the instruction */
	report(l.v[1] - s.v[1] == LOOP_DELTA,
	       "guest_only_counts_loop_exactly%s", sfx);
	report(s.v[1] >= LOOP_INSNS(ITERS_SHORT) &&
	       s.v[1] - LOOP_INSNS(ITERS_SHORT) <= GUEST_OVERHEAD_MAX,
	       "guest_only_overhead_bounded%s", sfx);
	/* and not host-only */
	report(s.v[2] > 0 && (int64_t)(l.v[2] - s.v[2]) < (int64_t)HOST_DRIFT_MAX &&
	       (int64_t)(l.v[2] - s.v[2]) > -(int64_t)HOST_DRIFT_MAX,
	       "host_only_excludes_loop%s", sfx);

	/*
	 * both = guest + host exactly on VHE (KVM flips EL0 while at EL2, so
	 * every instruction is on one side) and on nVHE when EL2 is excluded;
	 * with EL2 counted on nVHE, the world switch's blackout instructions
	 * are in both only.
	 */
	rest_s = s.v[0] - s.v[1] - s.v[2];
	rest_l = l.v[0] - l.v[1] - l.v[2];
	ksft_print_msg("both - guest - host: short %ld long %ld\n", rest_s, rest_l);
	if (mode == MODE_UNKNOWN) {
		ksft_test_result_skip("both_is_guest_plus_host%s: %s\n", sfx,
				      "host mode not in the kernel log");
	} else if (mode == MODE_VHE || excl_hv) {
		report(rest_s == 0 && rest_l == 0, "both_is_guest_plus_host%s", sfx);
	} else {
		ksft_print_msg("blackout per exit: short %ld long %ld\n",
			       rest_s / (int64_t)s.exits, rest_l / (int64_t)l.exits);
		report(rest_s > 0 && rest_l > 0 &&
		       rest_s <= (int64_t)(s.exits * BLACKOUT_PER_EXIT_MAX) &&
		       rest_l <= (int64_t)(l.exits * BLACKOUT_PER_EXIT_MAX),
		       "both_is_guest_plus_host_plus_blackout%s", sfx);
	}
}

/*
 * Group {guest user, guest kernel, host user, host kernel}, the loop at
 * guest EL1 and then at guest EL0. All exclude_hv, so that on nVHE too
 * "user" is EL0 alone and "kernel" EL1 alone (exclude_kernel leaves EL2 to
 * exclude_hv there).
 */
static void test_user_kernel(struct kvm_vcpu *vcpu)
{
	const unsigned int flags[] = {
		EXCL_HOST | EXCL_KERNEL | EXCL_HV, EXCL_HOST | EXCL_USER | EXCL_HV,
		EXCL_GUEST | EXCL_KERNEL | EXCL_HV, EXCL_GUEST | EXCL_USER | EXCL_HV,
	};
	struct run s1, l1, s0, l0;
	struct group g;
	int64_t d;

	group_open(&g, flags, 4);
	measure(vcpu, &g, ITERS_SHORT, false, &s1);	/* warm-up */
	measure(vcpu, &g, ITERS_SHORT, true, &s0);	/* warm-up: EL0 pages */
	measure(vcpu, &g, ITERS_SHORT, false, &s1);
	measure(vcpu, &g, ITERS_LONG, false, &l1);
	measure(vcpu, &g, ITERS_SHORT, true, &s0);
	measure(vcpu, &g, ITERS_LONG, true, &l0);
	group_close(&g);

	ksft_print_msg("loop at EL1 short: guest u %lu k %lu host u %lu k %lu\n",
		       s1.v[0], s1.v[1], s1.v[2], s1.v[3]);
	ksft_print_msg("loop at EL1 long:  guest u %lu k %lu host u %lu k %lu\n",
		       l1.v[0], l1.v[1], l1.v[2], l1.v[3]);
	ksft_print_msg("loop at EL0 short: guest u %lu k %lu host u %lu k %lu\n",
		       s0.v[0], s0.v[1], s0.v[2], s0.v[3]);
	ksft_print_msg("loop at EL0 long:  guest u %lu k %lu host u %lu k %lu\n",
		       l0.v[0], l0.v[1], l0.v[2], l0.v[3]);

	/* The guest never runs at EL0 here */
	report(s1.v[0] == 0 && l1.v[0] == 0, "guest_user_zero_when_loop_at_el1");
	report(l1.v[1] - s1.v[1] == LOOP_DELTA, "guest_kernel_counts_el1_loop_exactly");

	/*
	 * At EL0 the guest runs the loop and its svc; the eret into it is an
	 * EL1 instruction.
	 */
	report(s0.v[0] == LOOP_INSNS(ITERS_SHORT) + 1 && l0.v[0] == LOOP_INSNS(ITERS_LONG) + 1,
	       "guest_user_is_el0_loop_plus_svc");
	report(l0.v[1] == s0.v[1], "guest_kernel_excludes_el0_loop");

	/*
	 * The host's user space is the VMM: never the guest's EL0 or EL1.
	 * Its path from KVM_RUN's return to the next one is the same whatever
	 * the guest did, and the host's interrupts are taken in the kernel,
	 * so its count is the same to the instruction in all four runs.
	 */
	report(s1.v[2] > 0 && l1.v[2] == s1.v[2] && s0.v[2] == s1.v[2] && l0.v[2] == s1.v[2],
	       "host_user_excludes_guest_el0_and_el1_loops");
	d = l0.v[3] - s0.v[3];
	report(s0.v[3] > 0 && d < (int64_t)HOST_DRIFT_MAX && d > -(int64_t)HOST_DRIFT_MAX,
	       "host_kernel_excludes_guest_el0_loop");
	d = l1.v[3] - s1.v[3];
	report(s1.v[3] > 0 && d < (int64_t)HOST_DRIFT_MAX && d > -(int64_t)HOST_DRIFT_MAX,
	       "host_kernel_excludes_guest_el1_loop");
}

/* The workload for perf stat: one guest run of iters loop iterations at EL1 */
static int run_workload(uint64_t iters)
{
	struct kvm_vcpu *vcpu;
	struct kvm_vm *vm;
	struct ucall uc;

	vm = vm_create_with_one_vcpu(&vcpu, guest_code);
	vcpu_run(vcpu);
	TEST_ASSERT(get_ucall(vcpu, &uc) == UCALL_SYNC, "guest did not start");
	guest_iters = iters;
	guest_at_el0 = 0;
	sync_global_to_guest(vm, guest_iters);
	sync_global_to_guest(vm, guest_at_el0);
	vcpu_run(vcpu);
	TEST_ASSERT(get_ucall(vcpu, &uc) == UCALL_SYNC, "guest stopped without its sync");
	kvm_vm_free(vm);
	return 0;
}

/* The guest's BRBE accesses all UNDEF, on VHE, nVHE and protected hosts */
static void test_brbe_undef(void)
{
	struct kvm_vcpu *vcpu;
	struct kvm_vm *vm;
	struct ucall uc;

	vm = vm_create_with_one_vcpu(&vcpu, guest_brbe_code);
	vm_init_descriptor_tables(vm);
	vcpu_init_descriptor_tables(vcpu);
	vm_install_sync_handler(vm, VECTOR_SYNC_CURRENT, ESR_EC_UNKNOWN, guest_undef_handler);
	vcpu_run(vcpu);
	TEST_ASSERT(get_ucall(vcpu, &uc) == UCALL_SYNC, "guest stopped without its sync");
	ksft_print_msg("guest BRBE UNDEFs: control reads %lu of %d, writes %lu of %d\n",
		       (unsigned long)uc.args[0], BRBE_CONTROL_READS,
		       (unsigned long)uc.args[1], BRBE_CONTROL_WRITES);
	ksft_print_msg("guest BRBE UNDEFs: record reads %lu of %d, BRB IALL/INJ %lu of %d\n",
		       (unsigned long)uc.args[2], BRBE_RECORD_READS,
		       (unsigned long)uc.args[3], BRBE_INSTRUCTIONS);
	report(uc.args[0] == BRBE_CONTROL_READS, "guest_brbe_control_reads_undef");
	report(uc.args[1] == BRBE_CONTROL_WRITES, "guest_brbe_control_writes_undef");
	report(uc.args[2] == BRBE_RECORD_READS, "guest_brbe_record_reads_undef");
	report(uc.args[3] == BRBE_INSTRUCTIONS, "guest_brbe_instructions_undef");
	kvm_vm_free(vm);
}

int main(int argc, char *argv[])
{
	struct kvm_vcpu *vcpu;
	struct kvm_vm *vm;
	struct ucall uc;

	if (argc == 3 && !strcmp(argv[1], "-l"))
		return run_workload(strtoull(argv[2], NULL, 0));

	ksft_print_header();
	mode = host_mode();
	ksft_print_msg("host mode: %s\n", mode == MODE_VHE ? "VHE" :
		       mode == MODE_NVHE ? "nVHE" : "unknown");

	vm = vm_create_with_one_vcpu(&vcpu, guest_code);
	vm_init_descriptor_tables(vm);
	vcpu_init_descriptor_tables(vcpu);
	vm_install_sync_handler(vm, VECTOR_SYNC_LOWER_64, ESR_EC_SVC64, guest_svc_handler);
	map_el0_loop(vm);

	/* To the guest's first sync: from here on each run is one loop */
	vcpu_run(vcpu);
	TEST_ASSERT(get_ucall(vcpu, &uc) == UCALL_SYNC, "guest did not start");

	ksft_set_plan(4 * 2 + 7 + 1 + 2 + 4);
	test_split(vcpu, false);
	test_split(vcpu, true);
	test_user_kernel(vcpu);
	test_freq_el0(vcpu);
	kvm_vm_free(vm);

	test_vpmu();
	test_brbe_undef();
	ksft_finished();
}
