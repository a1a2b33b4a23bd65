/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Branch stack sampling with FEAT_BRBE, the Branch Record Buffer
 * Extension: what the PMUv3 driver calls. See
 * Documentation/arch/arm64/brbe.rst.
 */
#ifndef __ARM_BRBE_H
#define __ARM_BRBE_H

#include <linux/perf/arm_pmu.h>
#include <linux/perf_event.h>

#ifdef CONFIG_ARM64_BRBE
bool brbe_probe(void);
int brbe_event_check(const struct perf_event *event);
void brbe_reset(struct pmu_hw_events *cpuc);
void brbe_enable(struct pmu_hw_events *cpuc);
void brbe_disable(struct pmu_hw_events *cpuc);
void brbe_sample(struct perf_event *event, struct perf_sample_data *data);
void brbe_resume(struct pmu_hw_events *cpuc);
void brbe_sched_task(struct perf_event_pmu_context *pmu_ctx, bool sched_in);
void brbe_offer_snapshot(void);
#else
static inline bool brbe_probe(void)
{
	return false;
}

static inline int brbe_event_check(const struct perf_event *event)
{
	return -EOPNOTSUPP;
}

static inline void brbe_reset(struct pmu_hw_events *cpuc) { }
static inline void brbe_enable(struct pmu_hw_events *cpuc) { }
static inline void brbe_disable(struct pmu_hw_events *cpuc) { }
static inline void brbe_sample(struct perf_event *event,
			       struct perf_sample_data *data) { }
static inline void brbe_resume(struct pmu_hw_events *cpuc) { }
static inline void brbe_sched_task(struct perf_event_pmu_context *pmu_ctx,
				   bool sched_in) { }
static inline void brbe_offer_snapshot(void) { }
#endif

#endif /* __ARM_BRBE_H */
