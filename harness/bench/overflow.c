// SPDX-License-Identifier: GPL-2.0
/*
 * Overflow interrupt per sample: a user busy loop of 2 * ITERS
 * instructions with a cycles:u sampling event of the PMU at PERIOD
 * (PERF_SAMPLE_IP into a ring buffer big enough to hold every sample),
 * minus the same loop with the same event counting instead of sampling
 * (same open, mmap, enable and disable), divided by the number of
 * PERF_RECORD_SAMPLEs found in the ring buffer. The interrupt, the
 * driver's overflow handler, the sample output and the return to the
 * loop are what remains.
 *
 * run.sh lifts perf_event_max_sample_rate and sets perf_cpu_time_max_percent
 * to 0 first, so neither throttling nor the kernel's self-tuning of the
 * sample rate changes the work done from one run (or kernel) to the next.
 */
#include "bench.h"
#include <sys/mman.h>

#define ITERS		10000000UL
#define PERIOD		10000
#define RB_PAGES	64

struct run { uint64_t ns, count; long samples, throttles, lost; };

static void walk(struct perf_event_mmap_page *pg, struct run *r)
{
	uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	uint64_t off = pg->data_offset ? pg->data_offset : (uint64_t)getpagesize();
	uint64_t size = pg->data_size ? pg->data_size : (uint64_t)RB_PAGES * getpagesize();
	char *data = (char *)pg + off;
	uint64_t pos;

	if (head >= size)
		fprintf(stderr, "bench: warning: ring buffer wrapped\n");
	for (pos = 0; pos < head && pos < size; ) {
		struct perf_event_header *h = (void *)(data + pos);

		if (!h->size)
			break;
		if (h->type == PERF_RECORD_SAMPLE)
			r->samples++;
		else if (h->type == PERF_RECORD_THROTTLE)
			r->throttles++;
		else if (h->type == PERF_RECORD_LOST)
			r->lost++;
		pos += h->size;
	}
}

static void once(int sampling, struct run *r)
{
	struct perf_event_attr attr = {
		.type = pmu_type(),
		.config = EVT_CPU_CYCLES,
		.exclude_kernel = 1,
		.exclude_hv = 1,
		.disabled = 1,
	};
	size_t len = (1 + RB_PAGES) * getpagesize();
	uint64_t t0, t1;
	void *pg;
	int fd;

	if (sampling) {
		attr.sample_period = PERIOD;
		attr.sample_type = PERF_SAMPLE_IP;
	}
	fd = perf_open(&attr, -1);
	pg = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (pg == MAP_FAILED)
		die("mmap");
	memset(r, 0, sizeof(*r));
	t0 = now_ns();
	mark_begin();
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	busy_loop(ITERS);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	mark_end();
	t1 = now_ns();
	r->ns = t1 - t0;
	if (read(fd, &r->count, sizeof(r->count)) != sizeof(r->count))
		die("read");
	walk(pg, r);
	munmap(pg, len);
	close(fd);
}

int main(void)
{
	double s[REPS], c[REPS], n[REPS], samples;
	struct run r;
	char extra[160];
	int i;

	pin_cpu0();
	once(1, &r);			/* warm up */
	for (i = 0; i < REPS; i++) {
		once(1, &r);
		if (!r.samples) {
			printf("bench: overflow n/a no samples in the ring buffer\n");
			return 0;
		}
		s[i] = r.ns;
		n[i] = r.samples;
		/* both windows per sample of this sampling run */
		mark_emit("overflow.raw", r.samples);
		once(0, &r);
		mark_emit("overflow.base", n[i]);
		c[i] = r.ns;
	}
	samples = median(n, REPS);
	once(1, &r);
	snprintf(extra, sizeof(extra),
		 "samples=%.0f period=%d count=%llu count_per_period=%.1f throttles=%ld lost=%ld",
		 samples, PERIOD, (unsigned long long)r.count,
		 (double)r.count / PERIOD, r.throttles, r.lost);
	report("overflow", median(s, REPS) / samples, median(c, REPS) / samples,
	       (unsigned long)samples, extra);
	return 0;
}
