/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A VM of one vCPU with a vPMU on a vGICv3, as KVM requires for guest
 * counters, BRBE and SPE: for the arm64 PMU, BRBE and SPE guest tests and
 * the KVM benchmark of make bench (harness/bench/kvm_exit.c). With it, the
 * ID fields and controls they share (Arm ARM): BRBCR_EL1 s2_1_c9_c0_0,
 * BRBFCR_EL1 _1; the SPE registers' encodings are in sysreg-defs.h.
 */
#ifndef SELFTEST_KVM_AARCH64_VPMU_VM_H
#define SELFTEST_KVM_AARCH64_VPMU_VM_H

#include <kvm_util.h>
#include <processor.h>
#include <test_util.h>
#include <vgic.h>

#define VPMU_PPI	23	/* the vPMU's interrupt: a PPI, as KVM requires */

#define DFR0_PMSVER_SHIFT	32
#define DFR0_PMSVER_MASK	(0xfULL << DFR0_PMSVER_SHIFT)
#define DFR0_BRBE_SHIFT		52
#define DFR0_BRBE_MASK		(0xfULL << DFR0_BRBE_SHIFT)

#define SYS_BRBCR_EL1		sys_reg(2, 1, 9, 0, 0)
#define SYS_BRBFCR_EL1		sys_reg(2, 1, 9, 0, 1)
#define REG_BRBCR_EL1		ARM64_SYS_REG(2, 1, 9, 0, 0)
#define BRBCR_E0BRE		BIT(0)
#define BRBCR_E1BRE		BIT(1)

#define PMSCR_E0SPE		BIT(0)
#define PMSCR_E1SPE		BIT(1)
#define PMBLIMITR_E		BIT(0)

/*
 * The vCPU attributes that ask for SPE, naming the buffer's PPI, and claim
 * it (the base's UAPI lacks them)
 */
#ifndef KVM_ARM_VCPU_SPE_CTRL
#define KVM_ARM_VCPU_SPE_CTRL	3
#define KVM_ARM_VCPU_SPE_IRQ	0
#define KVM_ARM_VCPU_SPE_INIT	1
#endif
#define SPE_PPI			21

static inline struct kvm_vcpu *vpmu_vm_create(struct kvm_vm **vm, void *guest_code)
{
	struct kvm_vcpu_init init;
	struct kvm_vcpu *vcpu;
	int irq = VPMU_PPI;
	struct kvm_device_attr irq_attr = {
		.group = KVM_ARM_VCPU_PMU_V3_CTRL,
		.attr = KVM_ARM_VCPU_PMU_V3_IRQ,
		.addr = (uint64_t)&irq,
	};
	struct kvm_device_attr init_attr = {
		.group = KVM_ARM_VCPU_PMU_V3_CTRL,
		.attr = KVM_ARM_VCPU_PMU_V3_INIT,
	};

	*vm = vm_create(1);
	vm_ioctl(*vm, KVM_ARM_PREFERRED_TARGET, &init);
	init.features[0] |= 1 << KVM_ARM_VCPU_PMU_V3;
	vcpu = aarch64_vcpu_add(*vm, 0, &init, guest_code);
	TEST_ASSERT(vgic_v3_setup(*vm, 1, 64) >= 0, "vGICv3");
	vcpu_ioctl(vcpu, KVM_SET_DEVICE_ATTR, &irq_attr);
	vcpu_ioctl(vcpu, KVM_SET_DEVICE_ATTR, &init_attr);
	return vcpu;
}

/* Ask KVM for SPE, naming its buffer's PPI: 0, or the errno (ENXIO without SPE) */
static inline int vpmu_vm_spe_irq(struct kvm_vcpu *vcpu)
{
	int irq = SPE_PPI;
	struct kvm_device_attr attr = {
		.group = KVM_ARM_VCPU_SPE_CTRL,
		.attr = KVM_ARM_VCPU_SPE_IRQ,
		.addr = (uint64_t)&irq,
	};

	return __vcpu_ioctl(vcpu, KVM_SET_DEVICE_ATTR, &attr) ? errno : 0;
}

#endif /* SELFTEST_KVM_AARCH64_VPMU_VM_H */
