// SPDX-License-Identifier: GPL-2.0-only
/*
 * spe_guest - a KVM guest with a vPMU programs the Statistical Profiling
 * Extension directly
 *
 * KVM shows ID_AA64DFR0_EL1.PMSVer to a guest with a vPMU where the host
 * has SPE, lets it own the profiling buffer (MDCR_EL2.E2PB 0b11, no TPMS
 * trap) while it runs, and switches its PMS and PMB registers at every
 * entry and exit, from a load on which the guest left its buffer enabled
 * or from its first SPE access (Documentation/arch/arm64/spe-kvm.rst). The guest
 * programs SPE as on bare metal and hands what it read to the host,
 * which checks:
 *
 *   - the guest sees SPE (PMSVer, PMSIDR_EL1), and its registers are
 *     vCPU state that one-reg lists, reads and writes, PMSDSFR_EL1 too
 *     where the unit has FEAT_SPE_FDS; userspace can show no version
 *     below the hardware's;
 *   - a guest that left SPE disabled traps on its first SPE access after
 *     each load, once; a buffer userspace restored enabled samples from
 *     the first entry, without a trap;
 *   - a known loop sampled every 256 members into a buffer in guest
 *     memory gives exactly its records, each at the PC that member's
 *     position in the loop names, at EL1, and nothing else;
 *   - a buffer of one page fills: the guest reads its own PMBSR_EL1 (S,
 *     EC buffer, BSC full) with PMBPTR_EL1 after the last record that
 *     fit, and profiling stopped there;
 *   - the same loop into a buffer whose pages the guest never touched,
 *     so not yet mapped at stage 2, gives every record but the first,
 *     whose write took the fault, with a clear status: KVM mapped the
 *     buffer's pages at once and resumed the guest's profiling;
 *   - with its PPI named (KVM_ARM_VCPU_SPE_IRQ), a buffer that fills
 *     raises the guest's own interrupt, once, and its handler reads the
 *     full status;
 *   - asking for physical addresses and physical timestamps, the guest
 *     gets timestamps of its virtual count and no physical address;
 *   - SPE is shown only to a VMM that asked for it, naming the buffer's
 *     interrupt; one that asked can hide it again (PMSVer written 0): the
 *     guest then reads PMSVer 0 and takes an UNDEF on PMSCR_EL1;
 *   - the host's memory management never costs the guest more than the
 *     record that took the fault: a buffer whose memslot logs dirty pages
 *     (live migration), whose host pages were reclaimed (madvise) or
 *     write-protected and back (mprotect), or whose stage-1 table pages
 *     the host took away and back, gives every other record, and the
 *     dirty log has every page the records went to.
 *
 * Under QEMU's -icount the members are exact: the loop's 3 * n
 * instructions, the disabling MSR and its ISB (record_pc()); with
 * PMSICR_EL1 = 0 and an interval of 256, member 256 * k is sampled. The
 * host's own run between exits is at EL2, which an EL1-owned buffer never
 * samples.
 *
 * Encodings and fields from the Arm ARM: PMSCR_EL1 s3_0_c9_c9_0,
 * PMSICR_EL1 _2, PMSIRR_EL1 _3, PMSFCR_EL1 _4, PMSEVFR_EL1 _5, PMSLATFR_EL1
 * _6, PMSIDR_EL1 _7; PMBLIMITR_EL1 s3_0_c9_c10_0, PMBPTR_EL1 _1, PMBSR_EL1
 * _3; the record packets of the SPE chapter.
 */
#include <string.h>
#include <sys/mman.h>

#include <kvm_util.h>
#include <gic.h>
#include <processor.h>
#include <test_util.h>
#include <vgic.h>

#include "vcpu_stat.h"
#include "vpmu_vm.h"

/* The SPE registers' SYS_ encodings come from the generated sysreg-defs.h */
#define ONE_REG(r)		KVM_ARM64_SYS_REG(SYS_##r)

#define PMSCR_PA		BIT(4)
#define PMSCR_TS		BIT(5)
#define PMSCR_PCT		BIT(6)
#define PMBSR_S			BIT(17)
#define PMBSR_EC_SHIFT		26
#define PMBSR_BSC_FULL		1

#define INTERVAL		256
#define LOOP_N			25600	/* 3 * n + 2 members: 300 samples */
#define LOOP_INSNS		3
#define REC_SIZE		21	/* PC 9, events 3, type 2, two latencies 6, End 1 */
#define REC_SIZE_TS		29	/* the same with a timestamp (9) instead of End */
#define BUF_PAGES		4
#define PAGE			4096

enum phase {
	PH_ID, PH_PROFILE, PH_FULL, PH_FRESH, PH_TOUCH, PH_IRQ, PH_TS, PH_HIDDEN, PH_NOP,
	PH_REGS, PH_RESTORED,
};

/* one-reg values: userspace's to the guest, the guest's to userspace */
#define HOST_PMSIRR		(INTERVAL * 3)
#define GUEST_PMSLATFR		0x123
#define HOST_PMSDSFR		0x8000000000000001ULL
#define GUEST_PMSDSFR		0x4000000000000002ULL

/* FEAT_SPE_FDS (PMSIDR_EL1.FDS, bit 7): PMSDSFR_EL1, s3_0_c9_c10_4 */
#define PMSIDR_FDS		BIT(7)
#define SPE_PMSDSFR		sys_reg(3, 0, 9, 10, 4)
#define REG_PMSDSFR		ARM64_SYS_REG(3, 0, 9, 10, 4)

/* Set by the host before each run */
static uint64_t guest_phase, guest_buf, guest_buf_size, guest_pmscr = PMSCR_E1SPE;
/* Filled by the guest */
static uint64_t guest_dfr0, guest_pmbidr, guest_pmsidr, guest_pmsirr, guest_ptr, guest_status;
static uint64_t guest_pmsdsfr;
static uint64_t guest_undefs;
/* The guest's virtual count around its loop */
static uint64_t guest_vct0, guest_vct1;
/* The guest's buffer interrupts: how many, the last INTID and PMBSR_EL1 */
static uint64_t guest_irqs, guest_irq_intid, guest_irq_status;

/* As pmu_host_guest.c: an asm label's address, right in host and guest */
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
 * spe_loop(n, pmscr): profile with PMSCR_EL1 = pmscr around n times three
 * instructions. Members: the 3 * n loop instructions, the disabling MSR
 * and the ISB that acts on it (record_pc()).
 */
asm(".pushsection .text\n"
	".global spe_loop\n"
	"spe_loop:\n"
	"	msr	s3_0_c9_c9_0, x1\n"
	"	isb\n"
	".global spe_loop_body\n"
	"spe_loop_body:\n"
	"	add	x2, x2, #1\n"
	"	subs	x0, x0, #1\n"
	"	b.ne	spe_loop_body\n"
	"	msr	s3_0_c9_c9_0, xzr\n"
	"	isb\n"
	"	ret\n"
	".popsection\n");

typedef void (*spe_loop_fn)(uint64_t n, uint64_t pmscr);

/* Wait for the unit's records and its PMBPTR/PMBSR updates */
static void spe_drain(void)
{
	asm volatile("hint #17\n\tdsb nsh\n\tisb" : : : "memory");
}

/* The drained buffer's pointer and status, then the buffer disabled */
static void guest_buffer_stop(void)
{
	guest_ptr = read_sysreg_s(SYS_PMBPTR_EL1);
	guest_status = read_sysreg_s(SYS_PMBSR_EL1);
	write_sysreg_s(0, SYS_PMBLIMITR_EL1);
	write_sysreg_s(0, SYS_PMBSR_EL1);
	isb();
}

static void guest_profile(uint64_t buf, uint64_t size)
{
	write_sysreg_s(0, SYS_PMSFCR_EL1);
	write_sysreg_s(0, SYS_PMSEVFR_EL1);
	write_sysreg_s(0, SYS_PMSLATFR_EL1);
	write_sysreg_s(INTERVAL, SYS_PMSIRR_EL1);
	write_sysreg_s(0, SYS_PMSICR_EL1);
	write_sysreg_s(buf, SYS_PMBPTR_EL1);
	write_sysreg_s(0, SYS_PMBSR_EL1);
	write_sysreg_s((buf + size) | PMBLIMITR_E, SYS_PMBLIMITR_EL1);
	isb();
	guest_vct0 = read_sysreg(cntvct_el0);
	((spe_loop_fn)ASM_LABEL(spe_loop))(LOOP_N, guest_pmscr);
	spe_drain();
	guest_vct1 = read_sysreg(cntvct_el0);
	guest_buffer_stop();
}

/*
 * spe_loop()'s body under controls userspace restored, the guest touching
 * SPE only at its end (the disabling MSR), then as guest_profile()
 */
static void guest_profile_restored(void)
{
	((spe_loop_fn)ASM_LABEL(spe_loop_body))(LOOP_N, 0);
	spe_drain();
	guest_buffer_stop();
}

/* Map the buffer at stage 2 the usual way: the guest writes each page */
static void guest_touch(uint64_t buf, uint64_t size)
{
	uint64_t a;

	for (a = buf; a < buf + size; a += PAGE)
		WRITE_ONCE(*(uint64_t *)a, 0);
}

static void guest_phase_run(uint64_t phase)
{
	int i;

	switch (phase) {
	case PH_ID:
		guest_dfr0 = read_sysreg(id_aa64dfr0_el1);
		/* First, as Linux's driver probes: is the buffer EL1's? */
		guest_pmbidr = read_sysreg_s(SYS_PMBIDR_EL1);
		guest_pmsidr = read_sysreg_s(SYS_PMSIDR_EL1);
		guest_pmsirr = read_sysreg_s(SYS_PMSIRR_EL1);
		write_sysreg_s(GUEST_PMSLATFR, SYS_PMSLATFR_EL1);
		if (guest_pmsidr & PMSIDR_FDS) {
			guest_pmsdsfr = read_sysreg_s(SPE_PMSDSFR);
			write_sysreg_s(GUEST_PMSDSFR, SPE_PMSDSFR);
		}
		break;
	case PH_PROFILE:
	case PH_FULL:
		guest_touch(guest_buf, guest_buf_size);
		guest_profile(guest_buf, guest_buf_size);
		break;
	case PH_FRESH:
		guest_profile(guest_buf, guest_buf_size);
		break;
	case PH_TOUCH:
		guest_touch(guest_buf, guest_buf_size);
		break;
	case PH_TS:
		guest_touch(guest_buf, guest_buf_size);
		guest_pmscr = PMSCR_E1SPE | PMSCR_PA | PMSCR_TS | PMSCR_PCT;
		guest_profile(guest_buf, guest_buf_size);
		guest_pmscr = PMSCR_E1SPE;
		break;
	case PH_IRQ:
		gic_init(GIC_V3, 1);
		gic_irq_enable(SPE_PPI);
		local_irq_enable();
		guest_touch(guest_buf, guest_buf_size);
		guest_profile(guest_buf, guest_buf_size);
		local_irq_disable();
		break;
	case PH_HIDDEN:
		guest_dfr0 = read_sysreg(id_aa64dfr0_el1);
		read_sysreg_s(SYS_PMSCR_EL1);
		break;
	case PH_REGS:
		for (i = 0; i < 16; i++)
			guest_pmsirr = read_sysreg_s(SYS_PMSIRR_EL1);
		break;
	case PH_RESTORED:
		guest_profile_restored();
		break;
	case PH_NOP:
		break;
	}
}

static void guest_code(void)
{
	for (;;) {
		uint64_t phase = READ_ONCE(guest_phase);

		guest_phase_run(phase);
		GUEST_SYNC1(phase);
	}
}

static void guest_undef_handler(struct ex_regs *regs)
{
	guest_undefs++;
	regs->pc += 4;
}

/*
 * The buffer management interrupt, as a guest driver takes it: read the
 * status, stop the buffer (it is full) and clear the status, which KVM
 * turns into the interrupt's low level at the exit the write traps to.
 */
static void guest_irq_handler(struct ex_regs *regs)
{
	unsigned int intid = gic_get_and_ack_irq();

	guest_irqs++;
	guest_irq_intid = intid;
	spe_drain();
	guest_irq_status = read_sysreg_s(SYS_PMBSR_EL1);
	guest_ptr = read_sysreg_s(SYS_PMBPTR_EL1);
	write_sysreg_s(0, SYS_PMBLIMITR_EL1);
	write_sysreg_s(0, SYS_PMBSR_EL1);
	isb();
	gic_set_eoi(intid);
}

/* ---- host side ---- */

#define report(cond, fmt, ...) ksft_test_result(cond, fmt "\n", ##__VA_ARGS__)

static void phase_run(struct kvm_vcpu *vcpu, uint64_t phase)
{
	struct kvm_vm *vm = vcpu->vm;
	struct ucall uc;

	guest_phase = phase;
	sync_global_to_guest(vm, guest_phase);
	sync_global_to_guest(vm, guest_buf);
	sync_global_to_guest(vm, guest_buf_size);
	vcpu_run(vcpu);
	switch (get_ucall(vcpu, &uc)) {
	case UCALL_SYNC:
		TEST_ASSERT(uc.args[0] == phase, "guest sync %lu, not %lu",
			    (unsigned long)uc.args[0], (unsigned long)phase);
		break;
	case UCALL_ABORT:
		REPORT_GUEST_ASSERT(uc);
		break;
	default:
		TEST_FAIL("guest exit %u without its sync", vcpu->run->exit_reason);
	}
	sync_global_from_guest(vm, guest_dfr0);
	sync_global_from_guest(vm, guest_pmbidr);
	sync_global_from_guest(vm, guest_pmsidr);
	sync_global_from_guest(vm, guest_pmsirr);
	sync_global_from_guest(vm, guest_pmsdsfr);
	sync_global_from_guest(vm, guest_ptr);
	sync_global_from_guest(vm, guest_status);
	sync_global_from_guest(vm, guest_undefs);
	sync_global_from_guest(vm, guest_irqs);
	sync_global_from_guest(vm, guest_irq_intid);
	sync_global_from_guest(vm, guest_irq_status);
	sync_global_from_guest(vm, guest_vct0);
	sync_global_from_guest(vm, guest_vct1);
}

/* The vPMU VM, with the guest's IRQ handler; an UNDEF fails the run by name */
static struct kvm_vcpu *spe_vm_create(struct kvm_vm **vm)
{
	struct kvm_vcpu *vcpu = vpmu_vm_create(vm, guest_code);

	vm_init_descriptor_tables(*vm);
	vcpu_init_descriptor_tables(vcpu);
	vm_install_exception_handler(*vm, VECTOR_IRQ_CURRENT, guest_irq_handler);
	return vcpu;
}

/* One entry and exit of the vPMU guest, doing nothing: the world switch */
static bool guest_runs_without_spe(struct kvm_vcpu *vcpu)
{
	phase_run(vcpu, PH_NOP);
	return true;
}

static bool reg_listed(struct kvm_vcpu *vcpu, uint64_t id)
{
	struct kvm_reg_list *list = vcpu_get_reg_list(vcpu);
	bool found = false;
	uint64_t i;

	for (i = 0; i < list->n; i++)
		found |= list->reg[i] == id;
	free(list);
	return found;
}

static bool protected_kvm(void)
{
	char line[4096] = "";
	FILE *f = fopen("/proc/cmdline", "r");

	if (f) {
		if (!fgets(line, sizeof(line), f))
			line[0] = 0;
		fclose(f);
	}
	return strstr(line, "kvm-arm.mode=protected");
}

/* A capability the host's SPE driver names in sysfs, or -1 */
static long host_spe_cap(const char *cap)
{
	char path[128];
	long val = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/arm_spe_0/caps/%s", cap);
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%li", &val) != 1)
			val = -1;
		fclose(f);
	}
	return val;
}

/* PMSIDR_EL1.INTERVAL (bits 11:8): the recommended minimum interval */
static long pmsidr_min_interval(uint64_t pmsidr)
{
	static const long interval[16] = {
		256, 0, 512, 768, 1024, 1536, 2048, 3072, 4096,
	};

	return interval[(pmsidr >> 8) & 0xf];
}

static uint64_t le(const uint8_t *p, int n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

/* Set by the host for records_check(): records end with a timestamp */
static bool records_ts;

/*
 * A record's last packet: End, or a timestamp of the guest's virtual
 * count while its loop ran (PMSCR_EL2.PCT clear: never the physical)
 */
static bool record_end_ok(const uint8_t *p)
{
	uint64_t ts;

	if (!records_ts)
		return p[0] == 0x01;
	ts = le(p + 1, 8);
	if (p[0] == 0x71 && ts >= guest_vct0 && ts <= guest_vct1)
		return true;
	ksft_print_msg("timestamp %#x %#lx, guest's virtual count %#lx..%#lx\n", p[0],
		       (unsigned long)ts, (unsigned long)guest_vct0, (unsigned long)guest_vct1);
	return false;
}

/*
 * The PC of member @member. Whether the ISB that synchronizes the enabling
 * write is a member, the Arm ARM leaves free; our model's choice is not
 * (harness/qemu/README.md, "SPE (x-spe-lazy-sync, patch 34)"): member 1 is the
 * loop's first instruction.
 */
static uint64_t record_pc(uint64_t member)
{
	return ASM_LABEL(spe_loop_body) + 4 * ((member - 1) % LOOP_INSNS);
}

/*
 * Walk the records in [p, p + len): each must be one PC packet at EL1,
 * events, operation type, two latencies and End (or a timestamp), the
 * k-th (from @first) at the PC of member 256 * k of spe_loop, and carry
 * nothing else (no physical address). Return: the number of records, or
 * -1 (printed) at the first that is not.
 */
static int records_check(const uint8_t *p, uint64_t len, uint64_t first)
{
	uint64_t k, pc;
	int size = records_ts ? REC_SIZE_TS : REC_SIZE, n = 0;

	if (len % size) {
		ksft_print_msg("%lu bytes of records, not a multiple of %d\n",
			       (unsigned long)len, size);
		return -1;
	}
	for (k = first; k < first + len / size; k++, p += size) {
		pc = record_pc(INTERVAL * k);
		if (p[0] != 0xb0 || (le(p + 1, 8) & ((1ULL << 56) - 1)) != pc ||
		    ((le(p + 1, 8) >> 61) & 3) != 1 || !record_end_ok(p + REC_SIZE - 1)) {
			ksft_print_msg("record %lu: PC %#x %#lx; expected %#lx at EL1\n",
				       (unsigned long)k, p[0], (unsigned long)le(p + 1, 8),
				       (unsigned long)pc);
			return -1;
		}
		n++;
	}
	return n;
}

/* The buffer's records after a profiling phase, from sample @first: -1 if malformed */
static int phase_records(struct kvm_vm *vm, uint64_t buf, uint64_t first)
{
	uint64_t len = guest_ptr - buf;

	if (guest_ptr < buf || len > BUF_PAGES * PAGE) {
		ksft_print_msg("PMBPTR_EL1 %#lx outside the buffer at %#lx\n",
			       (unsigned long)guest_ptr, (unsigned long)buf);
		return -1;
	}
	return records_check(addr_gva2hva(vm, buf), len, first);
}

static void test_id_and_one_reg(struct kvm_vcpu *vcpu)
{
	uint64_t val;
	bool set, set_dsfr;

	set = !__vcpu_set_reg(vcpu, ONE_REG(PMSIRR_EL1), HOST_PMSIRR);
	set_dsfr = !__vcpu_set_reg(vcpu, REG_PMSDSFR, HOST_PMSDSFR);
	phase_run(vcpu, PH_ID);
	ksft_print_msg("guest ID_AA64DFR0_EL1 %#lx, PMBIDR_EL1 %#lx, PMSIDR_EL1 %#lx\n",
		       (unsigned long)guest_dfr0, (unsigned long)guest_pmbidr,
		       (unsigned long)guest_pmsidr);
	report(guest_dfr0 & DFR0_PMSVER_MASK, "guest_sees_spe");
	/*
	 * Its first SPE access, before SPE is live: P set (EL2 owns the
	 * buffer until then) would make the guest's driver give up.
	 */
	report(!(guest_pmbidr & PMBIDR_EL1_P), "guest_pmbidr_buffer_is_its_own");
	/* The hardware's PMSIDR_EL1, as the host's driver read it */
	report(pmsidr_min_interval(guest_pmsidr) == host_spe_cap("min_interval") &&
	       !!(guest_pmsidr & BIT(3)) == host_spe_cap("arch_inst"),
	       "guest_pmsidr_is_the_hosts");
	report(reg_listed(vcpu, ONE_REG(PMSCR_EL1)) && reg_listed(vcpu, ONE_REG(PMBPTR_EL1)) &&
	       reg_listed(vcpu, ONE_REG(PMBLIMITR_EL1)) && reg_listed(vcpu, ONE_REG(PMBSR_EL1)),
	       "reg_list_has_spe_registers");
	report(set && guest_pmsirr == HOST_PMSIRR, "one_reg_pmsirr_reaches_guest");
	vcpu_get_reg(vcpu, ONE_REG(PMSLATFR_EL1), &val);
	report(val == GUEST_PMSLATFR, "one_reg_pmslatfr_from_guest");

	/*
	 * FEAT_SPE_FDS: the guest reaches PMSDSFR_EL1 untrapped, so it is
	 * vCPU state, switched and listed, or the host's filter leaks in.
	 */
	if (!(guest_pmsidr & PMSIDR_FDS)) {
		ksft_test_result_skip("one_reg_pmsdsfr_reaches_guest: the unit has no FDS\n");
		ksft_test_result_skip("one_reg_pmsdsfr_from_guest: the unit has no FDS\n");
		return;
	}
	report(set_dsfr && guest_pmsdsfr == HOST_PMSDSFR, "one_reg_pmsdsfr_reaches_guest");
	val = 0;
	__vcpu_get_reg(vcpu, REG_PMSDSFR, &val);
	report(val == GUEST_PMSDSFR, "one_reg_pmsdsfr_from_guest");
}

/*
 * A guest shown SPE has all the unit's registers, untrapped: userspace
 * may show the hardware's version or none, never one below it, whose
 * register list would lack what the world switch moves.
 */
static void test_pmsver_exact(uint64_t dfr0)
{
	uint64_t id = KVM_ARM64_SYS_REG(SYS_ID_AA64DFR0_EL1);
	uint64_t pmsver = (dfr0 & DFR0_PMSVER_MASK) >> DFR0_PMSVER_SHIFT;
	struct kvm_vcpu *vcpu;
	struct kvm_vm *vm;
	int ret;

	if (pmsver < 2) {
		ksft_test_result_skip("pmsver_below_hardware_refused: SPE is v1\n");
		return;
	}
	vcpu = spe_vm_create(&vm);
	TEST_ASSERT(!vpmu_vm_spe_irq(vcpu), "KVM_ARM_VCPU_SPE_IRQ");
	ret = __vcpu_set_reg(vcpu, id, (dfr0 & ~DFR0_PMSVER_MASK) |
			     ((pmsver - 1) << DFR0_PMSVER_SHIFT)) ? errno : 0;
	kvm_vm_free(vm);
	ksft_print_msg("PMSVer %lu written as %lu: %s\n", (unsigned long)pmsver,
		       (unsigned long)pmsver - 1, strerror(ret));
	report(ret == EINVAL, "pmsver_below_hardware_refused");
}

/*
 * The loop into a buffer of BUF_PAGES pages. The first sample whose record
 * takes a stage-2 fault (at its first byte: nothing cut) is lost, as a
 * buffer management event loses it on bare metal; KVM maps the buffer and
 * the guest's profiling resumes with the next: @lost samples are missing.
 */
static void test_profile(struct kvm_vcpu *vcpu, enum phase phase, uint64_t buf,
			 int lost, const char *name)
{
	int expect = (LOOP_INSNS * LOOP_N + 2) / INTERVAL - lost, n;

	guest_buf = buf;
	guest_buf_size = BUF_PAGES * PAGE;
	phase_run(vcpu, phase);
	n = phase_records(vcpu->vm, buf, 1 + lost);
	ksft_print_msg("%s: PMBSR_EL1 %#lx, %d records (%d expected)\n", name,
		       (unsigned long)guest_status, n, expect);
	report(!guest_status && n == expect, "%s", name);
}

/*
 * Lazy switching. A guest that left its buffer disabled traps on its first
 * SPE access after each load (KVM_RUN), once: sixteen reads of PMSIRR_EL1
 * exit twice, with the sync. A buffer and sampling controls userspace
 * restored enabled (a migration) sample from the first entry, the guest
 * touching SPE only to stop: from PMSICR_EL1 0 at entry, the loop's 3 * n
 * members and the fewer than 254 instructions before them give 300 samples.
 */
static void test_lazy(struct kvm_vcpu *vcpu, uint64_t buf)
{
	uint64_t exits, size = BUF_PAGES * PAGE;
	int expect = LOOP_INSNS * LOOP_N / INTERVAL, n;

	exits = vcpu_stat(vcpu, "exits");
	phase_run(vcpu, PH_REGS);
	exits = vcpu_stat(vcpu, "exits") - exits;
	ksft_print_msg("sixteen PMSIRR_EL1 reads: %lu exits\n", (unsigned long)exits);
	report(exits == 2, "first_use_traps_once_per_run");

	guest_buf = buf;
	guest_buf_size = size;
	phase_run(vcpu, PH_TOUCH);
	vcpu_set_reg(vcpu, ONE_REG(PMSIRR_EL1), INTERVAL);
	vcpu_set_reg(vcpu, ONE_REG(PMSICR_EL1), 0);
	vcpu_set_reg(vcpu, ONE_REG(PMSFCR_EL1), 0);
	vcpu_set_reg(vcpu, ONE_REG(PMSEVFR_EL1), 0);
	vcpu_set_reg(vcpu, ONE_REG(PMSLATFR_EL1), 0);
	vcpu_set_reg(vcpu, ONE_REG(PMBPTR_EL1), buf);
	vcpu_set_reg(vcpu, ONE_REG(PMBSR_EL1), 0);
	vcpu_set_reg(vcpu, ONE_REG(PMBLIMITR_EL1), (buf + size) | PMBLIMITR_E);
	vcpu_set_reg(vcpu, ONE_REG(PMSCR_EL1), PMSCR_E1SPE);
	phase_run(vcpu, PH_RESTORED);
	n = guest_ptr >= buf && !((guest_ptr - buf) % REC_SIZE) ?
	    (guest_ptr - buf) / REC_SIZE : -1;
	ksft_print_msg("restored buffer: PMBSR_EL1 %#lx, %d records (%d expected)\n",
		       (unsigned long)guest_status, n, expect);
	report(!guest_status && n == expect, "restored_buffer_samples_from_entry");
}

/* The buffer of the dirty-log test: a memslot of its own, mapped VA == IPA */
#define LOG_SLOT		1
#define LOG_GPA			(1ULL << 30)

static uint64_t log_buffer(struct kvm_vm *vm)
{
	vm_userspace_mem_region_add(vm, VM_MEM_SRC_ANONYMOUS, LOG_GPA, LOG_SLOT, BUF_PAGES,
				    KVM_MEM_LOG_DIRTY_PAGES);
	virt_map(vm, LOG_GPA, LOG_GPA, BUF_PAGES);
	return LOG_GPA;
}

/* The buffer's pages the dirty log has; reading it write-protects them */
static unsigned long log_dirty_pages(struct kvm_vm *vm)
{
	unsigned long bitmap = 0;

	kvm_vm_get_dirty_log(vm, LOG_SLOT, &bitmap);
	return bitmap & ((1UL << BUF_PAGES) - 1);
}

/* Profile a buffer the guest touched before: one record lost to the fault */
static int profile_again(struct kvm_vcpu *vcpu, uint64_t buf)
{
	guest_buf = buf;
	guest_buf_size = BUF_PAGES * PAGE;
	phase_run(vcpu, PH_FRESH);
	return phase_records(vcpu->vm, buf, 2);
}

/* Profile @buf again after the host's @what: all records but the faulting one */
static void report_one_lost(struct kvm_vcpu *vcpu, uint64_t buf, const char *what,
			    const char *name)
{
	int expect = (LOOP_INSNS * LOOP_N + 2) / INTERVAL - 1, n = profile_again(vcpu, buf);

	ksft_print_msg("%s: PMBSR_EL1 %#lx, %d records (%d expected)\n", what,
		       (unsigned long)guest_status, n, expect);
	report(!guest_status && n == expect, "%s", name);
}

/*
 * Live migration: reading the dirty log write-protects the pages the guest
 * touched, so the records' writes take stage-2 permission faults, which KVM
 * must resolve as it would a guest write's: relax the page and log it
 * dirty, else the unit faults again at every sample and writes nothing.
 * Then the same with logging turned off, the pages still read-only.
 */
static void test_dirty_log(struct kvm_vcpu *vcpu, uint64_t buf)
{
	int expect = (LOOP_INSNS * LOOP_N + 2) / INTERVAL - 1, n;
	unsigned long touched, logged, used;

	guest_buf = buf;
	guest_buf_size = BUF_PAGES * PAGE;
	phase_run(vcpu, PH_TOUCH);
	touched = log_dirty_pages(vcpu->vm);
	n = profile_again(vcpu, buf);
	logged = log_dirty_pages(vcpu->vm);
	used = n > 0 ? (1UL << DIV_ROUND_UP(guest_ptr - buf, PAGE)) - 1 : 0;
	ksft_print_msg("dirty logging: touched %#lx, PMBSR_EL1 %#lx, %d records (%d expected)\n",
		       touched, (unsigned long)guest_status, n, expect);
	ksft_print_msg("dirty logging: pages with records %#lx, logged %#lx\n", used, logged);
	report(!guest_status && n == expect, "dirty_logging_buffer_records_exact");
	report(used && (logged & used) == used, "dirty_logging_record_pages_logged");

	vm_mem_region_set_flags(vcpu->vm, LOG_SLOT, 0);
	report_one_lost(vcpu, buf, "logging off", "after_dirty_logging_records_exact");
}

/*
 * The host takes the buffer's pages away between two runs: reclaimed
 * (MADV_DONTNEED, as swap-out or a balloon would) or write-protected and
 * back (mprotect). Either unmaps them at stage 2, and the guest loses only
 * the record that took the fault.
 */
static void test_host_mm(struct kvm_vcpu *vcpu, uint64_t buf)
{
	void *hva = addr_gva2hva(vcpu->vm, buf);
	size_t size = BUF_PAGES * PAGE;

	guest_buf = buf;
	guest_buf_size = size;
	phase_run(vcpu, PH_TOUCH);
	TEST_ASSERT(!madvise(hva, size, MADV_DONTNEED), "madvise");
	report_one_lost(vcpu, buf, "reclaimed buffer", "host_reclaimed_buffer_records_exact");

	TEST_ASSERT(!mprotect(hva, size, PROT_READ), "mprotect");
	TEST_ASSERT(!mprotect(hva, size, PROT_READ | PROT_WRITE), "mprotect");
	report_one_lost(vcpu, buf, "write-protected and back",
			"host_mprotected_buffer_records_exact");
}

/*
 * The buffer of the table test: its stage-1 tables (all but the top one)
 * in a memslot of their own, from a VA no other mapping shares
 */
#define TABLE_SLOT		2
#define TABLE_GPA		(LOG_GPA + (1ULL << 28))
#define TABLE_PAGES		16
#define TABLE_VA		(1ULL << 40)

static uint64_t table_buffer(struct kvm_vm *vm)
{
	uint32_t pt = vm->memslots[MEM_REGION_PT];
	uint64_t buf;

	vm_userspace_mem_region_add(vm, VM_MEM_SRC_ANONYMOUS, TABLE_GPA, TABLE_SLOT,
				    TABLE_PAGES, 0);
	vm->memslots[MEM_REGION_PT] = TABLE_SLOT;
	buf = vm_vaddr_alloc(vm, BUF_PAGES * PAGE, TABLE_VA);
	vm->memslots[MEM_REGION_PT] = pt;
	return buf;
}

/*
 * The host takes away the pages of the buffer's stage-1 tables (an
 * mprotect() and back, as migration or compaction of those pages would):
 * the unit's own walk of its buffer then takes the stage-2 fault, and AT
 * can translate nothing. KVM must fault the tables in itself; the guest,
 * whose driver would treat the fault as fatal, loses only one record.
 */
static void test_host_tables(struct kvm_vcpu *vcpu, uint64_t buf)
{
	struct userspace_mem_region *tables = memslot2region(vcpu->vm, TABLE_SLOT);
	size_t size = tables->region.memory_size;
	void *hva = tables->host_mem;

	guest_buf = buf;
	guest_buf_size = BUF_PAGES * PAGE;
	phase_run(vcpu, PH_TOUCH);
	TEST_ASSERT(!mprotect(hva, size, PROT_NONE), "mprotect");
	TEST_ASSERT(!mprotect(hva, size, PROT_READ | PROT_WRITE), "mprotect");
	report_one_lost(vcpu, buf, "tables moved", "host_moved_tables_records_exact");
}

static void test_full(struct kvm_vcpu *vcpu, uint64_t buf)
{
	/* Full once fewer than MaxSize (64) bytes are left below the limit */
	int expect = (PAGE - 64) / REC_SIZE + 1, n;
	uint64_t val;

	guest_buf = buf;
	guest_buf_size = PAGE;
	phase_run(vcpu, PH_FULL);
	n = phase_records(vcpu->vm, buf, 1);
	ksft_print_msg("buffer full: PMBSR_EL1 %#lx, PMBPTR_EL1 +%#lx, %d records (%d expected)\n",
		       (unsigned long)guest_status, (unsigned long)(guest_ptr - buf), n, expect);
	report(guest_status == (PMBSR_S | PMBSR_BSC_FULL), "buffer_full_status");
	report(n == expect, "buffer_full_records_exact");
	vcpu_get_reg(vcpu, ONE_REG(PMBSR_EL1), &val);
	report(!val, "buffer_full_status_cleared_by_guest");
}

/*
 * The buffer fills with the guest's interrupts on: it takes its PPI once,
 * reads its PMBSR_EL1 in the handler, and the records stop where they
 * did without the interrupt.
 */
static void test_irq(struct kvm_vcpu *vcpu, uint64_t buf, int set)
{
	int expect = (PAGE - 64) / REC_SIZE + 1, n;

	guest_buf = buf;
	guest_buf_size = PAGE;
	phase_run(vcpu, PH_IRQ);
	n = phase_records(vcpu->vm, buf, 1);
	ksft_print_msg("irq: attribute %s, %lu taken, INTID %lu, PMBSR_EL1 %#lx, %d records\n",
		       set ? strerror(set) : "set", (unsigned long)guest_irqs,
		       (unsigned long)guest_irq_intid, (unsigned long)guest_irq_status, n);
	report(!set, "irq_attribute_accepted");
	report(guest_irqs == 1 && guest_irq_intid == SPE_PPI, "irq_taken_once_as_its_ppi");
	report(guest_irq_status == (PMBSR_S | PMBSR_BSC_FULL) && n == expect,
	       "irq_handler_reads_full_status");
}

/* Set an attribute of KVM_ARM_VCPU_SPE_CTRL: 0 or the errno */
static int spe_attr(struct kvm_vcpu *vcpu, uint64_t which, void *addr)
{
	struct kvm_device_attr attr = {
		.group = KVM_ARM_VCPU_SPE_CTRL,
		.attr = which,
		.addr = (uint64_t)addr,
	};

	return __vcpu_ioctl(vcpu, KVM_SET_DEVICE_ATTR, &attr) ? errno : 0;
}

/* KVM_ARM_VCPU_SPE_IRQ with this INTID: 0 or the errno */
static int spe_irq_attr(struct kvm_vcpu *vcpu, int irq)
{
	return spe_attr(vcpu, KVM_ARM_VCPU_SPE_IRQ, &irq);
}

/*
 * The buffer's PPI on VMs of their own: never the vPMU's (23) nor the
 * virtual timer's (27), whose levels would mix with the buffer's; never
 * set once the vCPU has run.
 */
static void test_irq_attribute(void)
{
	int pmu, timer, ran, init_unnamed, init, init_again;
	struct kvm_vcpu *vcpu;
	struct kvm_vm *vm;

	vcpu = spe_vm_create(&vm);
	pmu = spe_irq_attr(vcpu, VPMU_PPI);
	timer = spe_irq_attr(vcpu, 27);
	kvm_vm_free(vm);

	vcpu = spe_vm_create(&vm);
	phase_run(vcpu, PH_NOP);
	ran = spe_irq_attr(vcpu, SPE_PPI);
	kvm_vm_free(vm);

	/* The RFC's INIT: claims the named PPI, once */
	vcpu = spe_vm_create(&vm);
	init_unnamed = spe_attr(vcpu, KVM_ARM_VCPU_SPE_INIT, NULL);
	TEST_ASSERT(!spe_irq_attr(vcpu, SPE_PPI), "KVM_ARM_VCPU_SPE_IRQ");
	init = spe_attr(vcpu, KVM_ARM_VCPU_SPE_INIT, NULL);
	init_again = spe_attr(vcpu, KVM_ARM_VCPU_SPE_INIT, NULL);
	phase_run(vcpu, PH_NOP);
	kvm_vm_free(vm);

	ksft_print_msg("SPE PPI as the vPMU's: %s; as the virtual timer's: %s; after a run: %s\n",
		       strerror(pmu), strerror(timer), strerror(ran));
	report(pmu == EINVAL, "irq_attribute_refuses_vpmu_ppi");
	report(timer == EINVAL, "irq_attribute_refuses_timer_ppi");
	report(ran == EBUSY, "irq_attribute_refused_after_run");
	ksft_print_msg("INIT before the PPI is named: %s; after: %s; again: %s\n",
		       strerror(init_unnamed), strerror(init), strerror(init_again));
	report(init_unnamed == ENXIO && !init && init_again == EBUSY, "irq_init_claims_once");
}

/*
 * The guest asks for physical addresses and physical timestamps
 * (PMSCR_EL1.PA, PCT) with timestamps on: KVM runs it with PMSCR_EL2 0,
 * which the Arm ARM makes gate both, so every record carries a timestamp
 * of the guest's virtual count and no physical address (its loop has no
 * load or store, so no record has a data address either: the check is
 * the timestamp's, and the exact size of every record).
 */
static void test_timestamps(struct kvm_vcpu *vcpu, uint64_t buf)
{
	int expect = (LOOP_INSNS * LOOP_N + 2) / INTERVAL, n;

	guest_buf = buf;
	guest_buf_size = BUF_PAGES * PAGE;
	records_ts = true;
	phase_run(vcpu, PH_TS);
	n = phase_records(vcpu->vm, buf, 1);
	records_ts = false;
	ksft_print_msg("timestamps: PMBSR_EL1 %#lx, %d records (%d expected), CNTVCT %#lx..%#lx\n",
		       (unsigned long)guest_status, n, expect, (unsigned long)guest_vct0,
		       (unsigned long)guest_vct1);
	report(!guest_status && n == expect, "timestamps_virtual_no_pa");
}

/*
 * A VMM that never asks for SPE (names no interrupt) gets none: PMSVer 0,
 * no SPE register listed, and cannot write PMSVer in. One that asked can
 * hide it again (PMSVer written 0): the guest then reads PMSVer 0 and
 * takes an UNDEF on PMSCR_EL1.
 */
static void test_hidden(uint64_t shown)
{
	uint64_t dfr0, id = KVM_ARM64_SYS_REG(SYS_ID_AA64DFR0_EL1);
	uint64_t pmsver = (shown & DFR0_PMSVER_MASK) >> DFR0_PMSVER_SHIFT;
	struct kvm_vcpu *vcpu;
	struct kvm_vm *vm;
	int ret;

	vcpu = spe_vm_create(&vm);
	vcpu_get_reg(vcpu, id, &dfr0);
	report(!(dfr0 & DFR0_PMSVER_MASK) && !reg_listed(vcpu, ONE_REG(PMSCR_EL1)),
	       "unasked_spe_not_shown");
	ret = __vcpu_set_reg(vcpu, id, dfr0 | (pmsver << DFR0_PMSVER_SHIFT)) ? errno : 0;
	ksft_print_msg("unasked: ID_AA64DFR0_EL1 %#lx, PMSVer %lu written: %s\n",
		       (unsigned long)dfr0, (unsigned long)pmsver, strerror(ret));
	report(ret == EINVAL, "unasked_spe_id_write_refused");
	kvm_vm_free(vm);

	vcpu = spe_vm_create(&vm);
	vm_install_sync_handler(vm, VECTOR_SYNC_CURRENT, ESR_EC_UNKNOWN, guest_undef_handler);
	TEST_ASSERT(!vpmu_vm_spe_irq(vcpu), "KVM_ARM_VCPU_SPE_IRQ");
	vcpu_get_reg(vcpu, id, &dfr0);
	vcpu_set_reg(vcpu, id, dfr0 & ~DFR0_PMSVER_MASK);
	report(!reg_listed(vcpu, ONE_REG(PMSCR_EL1)), "hidden_spe_not_in_reg_list");
	phase_run(vcpu, PH_HIDDEN);
	report(!(guest_dfr0 & DFR0_PMSVER_MASK), "hidden_spe_id_reads_zero");
	report(guest_undefs == 1, "hidden_spe_register_undefs");
	kvm_vm_free(vm);
}

int main(void)
{
	uint64_t dfr0, id = KVM_ARM64_SYS_REG(SYS_ID_AA64DFR0_EL1);
	uint64_t size = BUF_PAGES * PAGE;
	struct kvm_vcpu *vcpu;
	struct kvm_vm *vm;
	const char *hides;
	int irq_set;

	ksft_print_header();
	TEST_REQUIRE(kvm_has_cap(KVM_CAP_ARM_PMU_V3));

	/* A VMM asks for SPE by naming its interrupt (spe-kvm.rst) */
	vcpu = spe_vm_create(&vm);
	irq_set = vpmu_vm_spe_irq(vcpu);
	vcpu_get_reg(vcpu, id, &dfr0);
	/*
	 * SPE_HOST_HIDES=firmware: firmware keeps the host's buffer
	 * (PMBIDR_EL1.P), which KVM must neither show nor touch.
	 * SPE_HOST_HIDES=no_driver: no host SPE driver takes the buffer's
	 * interrupt, without which KVM never learns of the guest's buffer
	 * events. Either way the VMM's ask is refused, the guest sees no SPE,
	 * and runs.
	 */
	hides = getenv("SPE_HOST_HIDES");
	if (hides) {
		ksft_set_plan(2);
		ksft_print_msg("SPE interrupt named: %s\n", strerror(irq_set));
		ksft_test_result(irq_set == ENXIO && !(dfr0 & DFR0_PMSVER_MASK),
				 "%s_spe_hidden_from_guest\n", hides);
		if (!(dfr0 & DFR0_PMSVER_MASK))
			ksft_test_result(guest_runs_without_spe(vcpu), "guest_runs_%s\n", hides);
		else
			ksft_test_result_skip("guest_runs_%s: not run\n", hides);
		kvm_vm_free(vm);
		ksft_finished();
	}
	if (!(dfr0 & DFR0_PMSVER_MASK)) {
		if (protected_kvm())
			ksft_exit_skip("protected KVM keeps SPE from its guests\n");
		ksft_exit_fail_msg("a vPMU guest sees no SPE (ID_AA64DFR0_EL1 %#lx): %s\n",
				   (unsigned long)dfr0, strerror(irq_set));
	}

	/* For a host session's check that none of its records is the guest's */
	ksft_print_msg("guest loop at %#lx, %d bytes\n", (unsigned long)ASM_LABEL(spe_loop_body),
		       4 * LOOP_INSNS);
	ksft_set_plan(8 + 1 + 3 + 1 + 2 + 3 + 3 + 3 + 1 + 5 + 1 + 4);
	test_id_and_one_reg(vcpu);
	test_profile(vcpu, PH_PROFILE, vm_vaddr_alloc(vm, size, KVM_UTIL_MIN_VADDR), 0,
		     "loop_records_exact");
	test_full(vcpu, vm_vaddr_alloc(vm, size, KVM_UTIL_MIN_VADDR));
	test_lazy(vcpu, vm_vaddr_alloc(vm, size, KVM_UTIL_MIN_VADDR));
	test_profile(vcpu, PH_FRESH, vm_vaddr_alloc(vm, size, KVM_UTIL_MIN_VADDR), 1,
		     "unmapped_buffer_records_exact");
	test_dirty_log(vcpu, log_buffer(vm));
	test_host_mm(vcpu, vm_vaddr_alloc(vm, size, KVM_UTIL_MIN_VADDR));
	test_host_tables(vcpu, table_buffer(vm));
	test_irq(vcpu, vm_vaddr_alloc(vm, size, KVM_UTIL_MIN_VADDR), irq_set);
	test_timestamps(vcpu, vm_vaddr_alloc(vm, size, KVM_UTIL_MIN_VADDR));
	kvm_vm_free(vm);

	test_hidden(dfr0);
	test_pmsver_exact(dfr0);
	test_irq_attribute();
	ksft_finished();
}
