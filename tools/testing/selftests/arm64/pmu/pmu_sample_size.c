// SPDX-License-Identifier: GPL-2.0
/*
 * The largest samples perf can write: a user stack dump of the maximum
 * size (sample_stack_user = 65528) together with every user and interrupt
 * register. A record's size is a 16-bit field, so perf core must shrink
 * the stack dump until the whole record fits; the interrupt registers are
 * written after the stack dump, so they must be counted before the dump
 * is sized. If they are not, the size wraps past 65535: the ring reserves
 * a few hundred bytes while some 65 KiB are written, over the records
 * that follow (fuzz_pmu first met this as garbage at the start of a ring).
 *
 * Record layout for IP | TID | REGS_USER | STACK_USER | REGS_INTR, with
 * all 33 arm64 registers (x0-x30, sp, pc) in both register sets:
 *
 *	header, ip, pid/tid,
 *	abi, regs[33]			REGS_USER
 *	size, data[size], dyn_size	STACK_USER (only size when size is 0)
 *	abi, regs[33]			REGS_INTR
 *
 * Every field but the stack dump is fixed: H = 8 + 8 + 8 + 272 + 272 =
 * 568 bytes. Core perf sizes the dump as 65535 - (H + 16) - 8, rounded up
 * to 8 bytes, which makes every sample exactly H + 16 + (65512 - H) =
 * 65528 bytes: the largest multiple of 8 a record can have.
 *
 * Mainline 7.3 still sizes the dump before the interrupt registers (our
 * patches/0001 fixes that in the base): under PMU_KERNEL=mainline the test
 * expects its first sample's size to have wrapped to exactly
 * (65528 + 8 + 33 * 8) & 0xffff = 264 bytes.
 */
#include "pmu_lib.h"

#define PERIOD		100000UL
/* 2.5 periods: overflows at 1 and 2 periods, half a period from the ends */
#define ITERS		((PERIOD * 5 / 2 - PMU_WINDOW_OVERHEAD) / 2)
/* Three of the largest records fit: no sample of the run is lost */
#define DATA_BYTES	(256 * 1024)
#define NR_REGS		33
#define REG_PC		32
#define MAX_RECORD	65528
/* A record that adds the interrupt registers after sizing the dump */
#define WRAPPED_RECORD	((MAX_RECORD + 8 + NR_REGS * 8) & 0xffff)

struct big_run {
	unsigned int samples, lost, bad_layout, bad_size, bad_ip;
	unsigned int first_size;	/* of the first sample */
};

static uint64_t ring_u64(const uint8_t *data, uint64_t size, uint64_t off)
{
	uint64_t v;

	/* Records are 8-byte aligned and the ring's size a power of two */
	memcpy(&v, data + (off & (size - 1)), sizeof(v));
	return v;
}

/*
 * Walk one sample's fields from its start; returns the offset just past
 * them, to be compared with the size its header claims.
 */
static uint64_t sample_end(const uint8_t *data, uint64_t size, uint64_t rec,
			   uint64_t *ip, uint64_t *intr_pc)
{
	uint64_t off = rec + sizeof(struct perf_event_header), dump;

	*intr_pc = 0;
	*ip = ring_u64(data, size, off);
	off += 8 + 8;				/* ip, pid/tid */
	if (ring_u64(data, size, off) != PERF_SAMPLE_REGS_ABI_64)
		return 0;
	off += 8 + NR_REGS * 8;			/* user registers */
	dump = ring_u64(data, size, off);
	off += 8;
	if (dump)
		off += dump + 8;		/* data, dyn_size */
	if (ring_u64(data, size, off) != PERF_SAMPLE_REGS_ABI_64)
		return 0;
	*intr_pc = ring_u64(data, size, off + 8 + REG_PC * 8);
	return off + 8 + NR_REGS * 8;
}

static void walk(struct perf_event_mmap_page *pg, struct big_run *run)
{
	const uint8_t *data = (const uint8_t *)pg + pg->data_offset;
	uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	uint64_t size = pg->data_size, tail = pg->data_tail, ip, pc;
	uintptr_t lo = (uintptr_t)pmu_loop_begin, hi = (uintptr_t)pmu_loop_end;

	while (tail < head) {
		struct perf_event_header hdr;

		memcpy(&hdr, data + (tail & (size - 1)), sizeof(hdr));
		if (hdr.size < sizeof(hdr)) {
			run->bad_layout++;
			break;
		}
		if (hdr.type == PERF_RECORD_LOST) {
			run->lost++;
		} else if (hdr.type == PERF_RECORD_SAMPLE) {
			if (!run->samples++)
				run->first_size = hdr.size;
			if (sample_end(data, size, tail, &ip, &pc) != tail + hdr.size) {
				ksft_print_msg("sample of %u bytes: its fields end elsewhere\n",
					       hdr.size);
				run->bad_layout++;
				break;
			}
			if (hdr.size != MAX_RECORD) {
				ksft_print_msg("sample of %u bytes, not %u\n",
					       hdr.size, MAX_RECORD);
				run->bad_size++;
			}
			if (ip < lo || ip >= hi || pc != ip)
				run->bad_ip++;
		}
		tail += hdr.size;
	}
	__atomic_store_n(&pg->data_tail, head, __ATOMIC_RELEASE);
}

static int big_samples(struct big_run *run)
{
	struct perf_event_attr attr;
	size_t len;
	void *ring;
	long ret;
	int fd;

	pmu_attr_user(&attr, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS);
	attr.sample_period = PERIOD;
	attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			   PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER |
			   PERF_SAMPLE_REGS_INTR;
	attr.sample_regs_user = (1ULL << NR_REGS) - 1;
	attr.sample_regs_intr = (1ULL << NR_REGS) - 1;
	attr.sample_stack_user = MAX_RECORD;
	fd = pmu_open_ring(&attr, DATA_BYTES, &ring, &len);
	if (fd < 0)
		return -1;
	ret = pmu_run_ioctl(fd, 0, ITERS);
	if (!ret)
		walk(ring, run);
	munmap(ring, len);
	close(fd);
	return ret ? -1 : 0;
}

int main(void)
{
	const char *stock = getenv("PMU_QEMU_STOCK");
	struct big_run run = { 0 };
	struct pmu_info pmu;
	bool ok;

	ksft_print_header();
	pmu_find_or_skip(&pmu);
	ksft_set_plan(pmu_kernel_mainline() ? 1 : 3);

	ok = !big_samples(&run);
	ksft_print_msg("%u samples (2 +-1 expected), %u lost\n", run.samples, run.lost);
	ksft_print_msg("%u of the wrong size, %u outside the loop\n",
		       run.bad_size, run.bad_ip);
	if (pmu_kernel_mainline()) {
		ksft_print_msg("first sample %u bytes (wrapped: %u)\n", run.first_size,
			       WRAPPED_RECORD);
		pmu_result(ok && run.samples && run.first_size == WRAPPED_RECORD,
			   "mainline_max_stack_and_intr_regs_record_size_wraps");
		ksft_finished();
	}
	pmu_result(ok && run.samples && !run.bad_layout && !run.lost,
		   "max_stack_and_intr_regs_records_parse");
	pmu_result(ok && run.samples && !run.bad_layout && !run.bad_size,
		   "max_stack_dump_shrunk_to_fit_record");
	/* Stock QEMU raises the overflow late, in the kernel (pmu_sampling.c) */
	if (stock && !strcmp(stock, "1"))
		pmu_skip("max_stack_samples_inside_loop",
			 "PMU_QEMU_STOCK=1: stock QEMU raises overflow interrupts late");
	else
		pmu_result(ok && !run.bad_layout && !run.bad_ip &&
			   pmu_absdiff(run.samples, 2) <= 1,
			   "max_stack_samples_inside_loop");
	ksft_finished();
}
