// SPDX-License-Identifier: GPL-2.0
/*
 * KVM guest entry + exit with the host's :G and :H events: OPS round trips
 * of a guest that does nothing but a store to an address no memslot backs
 * (a KVM_EXIT_MMIO to this thread, the VMM, which only issues KVM_RUN
 * again), once with instructions:G, instructions:H, cycles:G and cycles:H
 * open on this thread (exclude_host / exclude_guest, as perf's :G and :H
 * set them) and once with no event. Per round trip: one KVM_RUN, vcpu
 * load, guest entry, the guest's store, exit, vcpu put and the return to
 * user space. The difference is what the PMU driver and KVM's PMU code
 * add per round trip: switching the counters between the host's and the
 * guest's view on each entry and exit (on VHE at vcpu load and put, on
 * nVHE in the world switch) and the events' bookkeeping.
 *
 * Not the library's GUEST_SYNC: get_ucall() completes each ucall with a
 * second KVM_RUN (immediate_exit), two vcpu load/put pairs per sync. The
 * store is a plain str with one register, which KVM decodes from the
 * fault syndrome and skips on the next KVM_RUN.
 *
 * Built by harness/kvm-tests.sh on the base tree's KVM selftest library;
 * harness/bench.sh carries it into the guest as /bench/kvm_exit. Under
 * nested virtualisation (QEMU virtualization=on) the guest clock counts
 * the nested guest's instructions too: the same few in both runs.
 */
#include "bench.h"

#include <kvm_util.h>
#include <processor.h>

#define OPS	10000
#define NR_EV	4

/* The guest's exit address, set by the host before the first run */
static uint64_t exit_gva;

/*
 * One asm loop, whatever the compiler makes of C: the str exits and is
 * skipped by KVM (never retired), so the guest retires exactly one
 * instruction per round trip, the b, which instructions:G shows.
 */
static void guest_code(void)
{
	uint64_t addr = READ_ONCE(exit_gva);

	for (;;)
		asm volatile("1:	str	%0, [%0]\n"
			     "	b	1b\n"
			     : : "r" (addr) : "memory");
}

static uint64_t exit_gpa;

/* OPS round trips, each exactly one KVM_RUN ending at the guest's store */
static double round_trips(struct kvm_vcpu *vcpu, const char *label)
{
	struct kvm_run *run = vcpu->run;
	uint64_t t0, t1;
	int i, bad = 0;

	t0 = now_ns();
	mark_begin();
	for (i = 0; i < OPS; i++) {
		if (__vcpu_run(vcpu))
			die("KVM_RUN");
		bad |= run->exit_reason != KVM_EXIT_MMIO || run->mmio.phys_addr != exit_gpa;
	}
	mark_end();
	t1 = now_ns();
	if (bad) {
		fprintf(stderr, "bench: error: kvm-entry-exit: exit reason %u at %#llx\n",
			run->exit_reason, (unsigned long long)run->mmio.phys_addr);
		exit(1);
	}
	if (label)
		mark_emit(label, OPS);
	return (double)(t1 - t0) / OPS;
}

/* instructions:G, instructions:H, cycles:G, cycles:H on this thread */
static const struct { uint64_t config; int guest; const char *name; } evs[NR_EV] = {
	{ PERF_COUNT_HW_INSTRUCTIONS, 1, "insns_G" },
	{ PERF_COUNT_HW_INSTRUCTIONS, 0, "insns_H" },
	{ PERF_COUNT_HW_CPU_CYCLES, 1, "cycles_G" },
	{ PERF_COUNT_HW_CPU_CYCLES, 0, "cycles_H" },
};

/* Open the four events, counting at once; -1 with errno when one fails */
static int open_events(int *fd)
{
	int i;

	for (i = 0; i < NR_EV; i++) {
		struct perf_event_attr attr = {
			.size = sizeof(attr),
			.type = PERF_TYPE_HARDWARE,
			.config = evs[i].config,
			.exclude_host = evs[i].guest,
			.exclude_guest = !evs[i].guest,
		};

		fd[i] = syscall(__NR_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd[i] < 0) {
			int err = errno;

			while (i--)
				close(fd[i]);
			errno = err;
			return -1;
		}
	}
	return 0;
}

static void close_events(int *fd, uint64_t *count)
{
	int i;

	for (i = 0; i < NR_EV; i++) {
		if (read(fd[i], &count[i], sizeof(count[i])) != sizeof(count[i]))
			die("read");
		close(fd[i]);
	}
}

int main(void)
{
	double raw[REPS], base[REPS];
	uint64_t count[NR_EV], pre[NR_EV];
	struct kvm_vcpu *vcpu;
	struct kvm_vm *vm;
	char extra[256];
	int fd[NR_EV], r, i, n;

	pin_cpu0();
	if (access("/dev/kvm", R_OK | W_OK)) {
		printf("bench: kvm-entry-exit n/a no /dev/kvm (the kernel did not boot at EL2)\n");
		return 0;
	}
	vm = vm_create_with_one_vcpu(&vcpu, guest_code);
	/* The top page of the IPA space: no memslot reaches it */
	exit_gpa = vm->max_gfn << vm->page_shift;
	exit_gva = vm_vaddr_unused_gap(vm, vm->page_size, KVM_UTIL_MIN_VADDR);
	virt_pg_map(vm, exit_gva, exit_gpa);
	sync_global_to_guest(vm, exit_gva);

	/* Warm up: stage-2 faults on the guest's code, stack and tables */
	round_trips(vcpu, NULL);
	if (open_events(fd)) {
		printf("bench: kvm-entry-exit n/a perf_event_open(:G/:H): %s\n",
		       strerror(errno));
		kvm_vm_free(vm);
		return 0;
	}
	round_trips(vcpu, NULL);
	close_events(fd, count);

	for (r = 0; r < REPS; r++) {
		if (open_events(fd))
			die("perf_event_open");
		/* what opening counted, left out of the per-trip counts */
		for (i = 0; i < NR_EV; i++)
			if (read(fd[i], &pre[i], sizeof(pre[i])) != sizeof(pre[i]))
				die("read");
		raw[r] = round_trips(vcpu, "kvm-entry-exit.raw");
		close_events(fd, count);
		base[r] = round_trips(vcpu, "kvm-entry-exit.base");
	}

	/*
	 * The last run's counts per round trip, read around the window: the
	 * events did count, the :G ones exactly the guest's one b.
	 */
	n = 0;
	for (i = 0; i < NR_EV; i++)
		n += snprintf(extra + n, sizeof(extra) - n, "%s%s=%.1f", i ? " " : "",
			      evs[i].name, (double)(count[i] - pre[i]) / OPS);
	report("kvm-entry-exit", median(raw, REPS), median(base, REPS), OPS, extra);
	kvm_vm_free(vm);
	return 0;
}
