/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A VM of one vCPU with a vPMU on a vGICv3, as KVM requires for guest
 * counters, BRBE and SPE: for the arm64 PMU, BRBE and SPE guest tests.
 */
#ifndef SELFTEST_KVM_AARCH64_VPMU_VM_H
#define SELFTEST_KVM_AARCH64_VPMU_VM_H

#include <kvm_util.h>
#include <processor.h>
#include <test_util.h>
#include <vgic.h>

#define VPMU_PPI	23	/* the vPMU's interrupt: a PPI, as KVM requires */

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

#endif /* SELFTEST_KVM_AARCH64_VPMU_VM_H */
