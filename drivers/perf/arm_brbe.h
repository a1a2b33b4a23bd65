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
unsigned int brbe_records(const struct cpumask *cpus);
int brbe_event_check(const struct perf_event *event);
void brbe_add_del(struct perf_event *event, bool add);
void brbe_sched_task(struct perf_event_pmu_context *pmu_ctx,
		     struct task_struct *task, bool sched_in);
void brbe_reset(void);
void brbe_enable(struct pmu_hw_events *cpuc);
void brbe_sample(struct perf_event *event, struct perf_sample_data *data);
void brbe_resume(void);
void brbe_offer_snapshot(void);
#else
static inline bool brbe_probe(void)
{
	return false;
}

static inline unsigned int brbe_records(const struct cpumask *cpus)
{
	return 0;
}

static inline int brbe_event_check(const struct perf_event *event)
{
	return -EOPNOTSUPP;
}

static inline void brbe_add_del(struct perf_event *event, bool add) { }
static inline void brbe_sched_task(struct perf_event_pmu_context *pmu_ctx,
				   struct task_struct *task, bool sched_in) { }
static inline void brbe_reset(void) { }
static inline void brbe_enable(struct pmu_hw_events *cpuc) { }
static inline void brbe_sample(struct perf_event *event,
			       struct perf_sample_data *data) { }
static inline void brbe_resume(void) { }
static inline void brbe_offer_snapshot(void) { }
#endif

#endif /* __ARM_BRBE_H */
