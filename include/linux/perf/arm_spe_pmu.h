/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the Arm SPE PMU driver offers the rest of the kernel
 */
#ifndef __LINUX_PERF_ARM_SPE_PMU_H
#define __LINUX_PERF_ARM_SPE_PMU_H

#include <linux/cpumask.h>
#include <linux/types.h>

/*
 * KVM lets guests own the profiling buffer only where this driver takes
 * the buffer interrupt, and reaches it with symbol_get(): the driver may
 * be a module, or not loaded at all.
 */
bool arm_spe_pmu_irq_on(const struct cpumask *cpus);

#endif /* __LINUX_PERF_ARM_SPE_PMU_H */
