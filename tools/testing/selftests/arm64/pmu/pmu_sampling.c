// SPDX-License-Identifier: GPL-2.0
/*
 * Sampling-mode checks of the arm64 PMUv3 driver: a fixed sample_period
 * over a loop of known length must give one PERF_RECORD_SAMPLE per period,
 * each taken inside the loop, each tagged with this task and the period.
 *
 * The window runs L = 2 * ITERS + 6 user instructions (pmu_lib.h) with
 * L = 10.5 * PERIOD, so overflows fall at PERIOD, 2 * PERIOD, ...,
 * 10 * PERIOD, none closer than half a period to either end of the loop:
 * 10 samples are expected, asserted within +-1. Under -icount shift=0 the
 * user-only cycle count equals the instruction count (pmu_counting checks
 * this within 1%), so the same numbers hold for cycles.
 *
 * Stock QEMU (Debian's 7.2, upstream 10.0) raises the overflow interrupt of
 * an event counter counting instructions only when the counter is next
 * synchronised, e.g. at the next exception: 2 samples instead of 10, taken
 * in the kernel. With PMU_QEMU_STOCK=1 in the environment the instructions
 * cases are still run and their numbers printed, but reported as skipped.
 */
#include <sys/mman.h>

#include "pmu_lib.h"

#define PERIOD		100000UL
#define ITERS		((PERIOD * 21 / 2 - PMU_WINDOW_OVERHEAD) / 2)
#define DATA_PAGES	16

struct sample {
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t period;
};

#define MAX_SAMPLES	256

struct sample_run {
	int64_t count;		/* the event's own count (read()) */
	unsigned int nr_samples, nr_lost, nr_throttle, nr_other;
	struct sample samples[MAX_SAMPLES];
};

/* Copy len bytes at offset off of the ring, which may wrap. */
static void ring_copy(const char *data, size_t size, uint64_t off, void *dst,
		      size_t len)
{
	size_t start = off % size, first = len;

	if (first > size - start)
		first = size - start;
	memcpy(dst, data + start, first);
	memcpy((char *)dst + first, data, len - first);
}

static int parse_ring(struct perf_event_mmap_page *pg, size_t data_size,
		      struct sample_run *run)
{
	const char *data = (const char *)pg + pg->data_offset;
	uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = pg->data_tail;

	if (head - tail > data_size) {
		ksft_print_msg("ring overran: %" PRIu64 " bytes\n", head - tail);
		return -1;
	}
	while (tail < head) {
		struct perf_event_header hdr;
		uint64_t rec[8];

		ring_copy(data, data_size, tail, &hdr, sizeof(hdr));
		if (hdr.size < sizeof(hdr))
			return -1;
		if (hdr.type == PERF_RECORD_SAMPLE) {
			struct sample *s;

			if (hdr.size != sizeof(hdr) + sizeof(*s)) {
				ksft_print_msg("sample record of %u bytes\n",
					       hdr.size);
				return -1;
			}
			ring_copy(data, data_size, tail + sizeof(hdr), rec,
				  sizeof(*s));
			if (run->nr_samples < MAX_SAMPLES) {
				s = &run->samples[run->nr_samples];
				memcpy(s, rec, sizeof(*s));
			}
			run->nr_samples++;
		} else if (hdr.type == PERF_RECORD_LOST) {
			run->nr_lost++;
		} else if (hdr.type == PERF_RECORD_THROTTLE ||
			   hdr.type == PERF_RECORD_UNTHROTTLE) {
			run->nr_throttle++;
		} else {
			run->nr_other++;
		}
		tail += hdr.size;
	}
	__atomic_store_n(&pg->data_tail, tail, __ATOMIC_RELEASE);
	return 0;
}

static int sample_loop(uint64_t config, struct sample_run *run)
{
	size_t data_size = DATA_PAGES * sysconf(_SC_PAGESIZE), len;
	struct perf_event_attr attr;
	void *ring;
	long ret;
	int fd;

	memset(run, 0, sizeof(*run));
	pmu_attr_user(&attr, PERF_TYPE_HARDWARE, config);
	attr.sample_period = PERIOD;
	attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			   PERF_SAMPLE_PERIOD;
	fd = pmu_open_ring(&attr, data_size, &ring, &len);
	if (fd < 0)
		return -1;
	ret = pmu_run_ioctl(fd, 0, ITERS);
	run->count = pmu_read_count(fd);
	if (ret || parse_ring(ring, data_size, run))
		ret = -1;
	munmap(ring, len);
	close(fd);
	return ret ? -1 : 0;
}

static void check_run(const char *ev, int err, const struct sample_run *run,
		      const char *skip_why)
{
	uint64_t loop = pmu_expected_user(ITERS), expect = loop / PERIOD;
	uint64_t lo = (uintptr_t)pmu_loop_begin, hi = (uintptr_t)pmu_loop_end;
	unsigned int i, n = run->nr_samples, bad_ip = 0, bad_tag = 0;
	bool count_ok, ip_ok, tag_ok;
	char name[96];

	if (n > MAX_SAMPLES)
		n = MAX_SAMPLES;
	for (i = 0; i < n; i++) {
		const struct sample *s = &run->samples[i];

		if (s->ip < lo || s->ip >= hi) {
			if (bad_ip++ < 4)
				ksft_print_msg("%s sample %u: ip 0x%" PRIx64
					       " outside loop [0x%" PRIx64 ", 0x%" PRIx64 ")\n",
					       ev, i, s->ip, lo, hi);
		}
		if (s->pid != (uint32_t)getpid() ||
		    s->tid != (uint32_t)gettid() || s->period != PERIOD) {
			if (bad_tag++ < 4)
				ksft_print_msg("%s sample %u: pid %u tid %u period %" PRIu64 "\n",
					       ev, i, s->pid, s->tid, s->period);
		}
	}
	ksft_print_msg("%s: %u samples (expected %" PRIu64 " +-1 for %" PRIu64
		       " instructions, period %lu), event count %" PRId64
		       ", lost %u, throttle %u\n",
		       ev, run->nr_samples, expect, loop, PERIOD, run->count,
		       run->nr_lost, run->nr_throttle);

	count_ok = !err && !run->nr_lost &&
		   pmu_absdiff(run->nr_samples, expect) <= 1;
	ip_ok = !err && run->nr_samples && !bad_ip;
	tag_ok = !err && run->nr_samples && !bad_tag;

	snprintf(name, sizeof(name), "%s_sample_count_matches_period", ev);
	if (skip_why)
		pmu_skip(name, skip_why);
	else
		pmu_result(count_ok, name);
	snprintf(name, sizeof(name), "%s_sample_ips_inside_loop", ev);
	if (skip_why)
		pmu_skip(name, skip_why);
	else
		pmu_result(ip_ok, name);
	snprintf(name, sizeof(name), "%s_samples_carry_task_and_period", ev);
	if (skip_why)
		pmu_skip(name, skip_why);
	else
		pmu_result(tag_ok, name);
}

int main(void)
{
	static struct sample_run run;
	const char *stock = getenv("PMU_QEMU_STOCK");
	struct pmu_info pmu;
	int err;

	ksft_print_header();
	pmu_find_or_skip(&pmu);
	ksft_set_plan(6);

	err = sample_loop(PERF_COUNT_HW_CPU_CYCLES, &run);
	check_run("cycles", err, &run, NULL);

	err = sample_loop(PERF_COUNT_HW_INSTRUCTIONS, &run);
	check_run("instructions", err, &run,
		  stock && !strcmp(stock, "1") ?
		  "PMU_QEMU_STOCK=1: stock QEMU raises overflow interrupts late" :
		  NULL);

	ksft_finished();
}
