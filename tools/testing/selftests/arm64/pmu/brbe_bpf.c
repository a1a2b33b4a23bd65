// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_get_branch_snapshot() on BRBE: a BPF program, loaded through the
 * raw bpf() system call (no compiler in the guest: its instructions are
 * written out below), takes a snapshot of the branch records into an
 * array map, from a uprobe on snap_probe() or from a branch-stack event's
 * overflow interrupt.
 *
 * Under -icount shift=0 the records are exact: a snapshot at snap_probe()
 * after brbe_seq() (brbe_seq.h) holds, newest first, the breakpoint
 * exception of the uprobe (its source only: the user-only filter does not
 * record the kernel), the call to snap_probe(), brbe_seq()'s return, and
 * then the sequence's branches going backwards, with their exact types and
 * cycle counts, up to the buffer's size. A snapshot empties the buffer: a
 * second one taken right after holds the branches since the first alone.
 * With no branch-stack event scheduled the helper returns -ENOENT. That the
 * helper gives a pseudo-NMI handler its interrupt masks back exactly is a
 * KUnit test of the driver (brbe_test_snapshot_keeps_daif): no probe of
 * the overflow path could see PSTATE from here.
 *
 * Run as root on a kernel with BPF_EVENTS and UPROBE_EVENTS (the debug
 * kernel) on a CPU with BRBE (our QEMU's -cpu max); argv[1] is the
 * buffer's size in records (32 unless given).
 */
#include <stddef.h>
#include <sys/resource.h>
#include <linux/bpf.h>
#include <linux/bpf_perf_event.h>

#include "pmu_lib.h"
#include "brbe_seq.h"
#include "brbe_snap.h"

#define SNAP_RECORDS	64
#define SNAP_BYTES	(SNAP_RECORDS * sizeof(struct perf_branch_entry))
#define SEQ_PERIOD	100003ULL
#define BESIDE_PERIOD	1009ULL
#define BESIDE_ROUNDS	2000

/* brbe_seq()'s last instruction, its RET, comes right before seq_fn_a */
#define SEQ_RET		((uintptr_t)seq_fn_a - 4)

/* The map's one value: what the program saw at its latest run */
struct snap_value {
	uint64_t runs;
	int64_t ret;	/* bpf_get_branch_snapshot()'s */
	struct perf_branch_entry br[SNAP_RECORDS];
};

static unsigned int numrec;
static int map_fd;

static long sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

static int map_create(void)
{
	union bpf_attr attr = {
		.map_type = BPF_MAP_TYPE_ARRAY,
		.key_size = sizeof(uint32_t),
		.value_size = sizeof(struct snap_value),
		.max_entries = 1,
	};

	return sys_bpf(BPF_MAP_CREATE, &attr);
}

#define INSN(c, d, s, o, i) \
	((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s), .off = (o), .imm = (i) })

/*
 * value = map[0]; if (value) { value->ret = bpf_get_branch_snapshot(
 * value->br, SNAP_BYTES, 0); value->runs++; } return 1 (a perf event's
 * program returning 1 lets its sample through).
 */
static int prog_load(enum bpf_prog_type type)
{
	struct bpf_insn insns[] = {
		INSN(BPF_ST | BPF_MEM | BPF_W, BPF_REG_10, 0, -4, 0),
		INSN(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_2, BPF_REG_10, 0, 0),
		INSN(BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_2, 0, 0, -4),
		INSN(BPF_LD | BPF_DW | BPF_IMM, BPF_REG_1, BPF_PSEUDO_MAP_FD, 0, map_fd),
		INSN(0, 0, 0, 0, 0),
		INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_map_lookup_elem),
		INSN(BPF_JMP | BPF_JEQ | BPF_K, BPF_REG_0, 0, 9, 0),
		INSN(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_6, BPF_REG_0, 0, 0),
		INSN(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_1, BPF_REG_6, 0, 0),
		INSN(BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_1, 0, 0,
		     offsetof(struct snap_value, br)),
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_2, 0, 0, SNAP_BYTES),
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_3, 0, 0, 0),
		INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_get_branch_snapshot),
		INSN(BPF_STX | BPF_MEM | BPF_DW, BPF_REG_6, BPF_REG_0,
		     offsetof(struct snap_value, ret), 0),
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_1, 0, 0, 1),
		INSN(BPF_STX | BPF_ATOMIC | BPF_DW, BPF_REG_6, BPF_REG_1,
		     offsetof(struct snap_value, runs), BPF_ADD),
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 1),
		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
	};
	static char log[4096];
	union bpf_attr attr = {
		.prog_type = type,
		.insns = (uintptr_t)insns,
		.insn_cnt = ARRAY_SIZE(insns),
		/* bpf_get_branch_snapshot() is for GPL programs only */
		.license = (uintptr_t)"GPL",
		.log_buf = (uintptr_t)log,
		.log_size = sizeof(log),
		.log_level = 1,
	};
	int fd = sys_bpf(BPF_PROG_LOAD, &attr);

	if (fd < 0)
		ksft_print_msg("BPF_PROG_LOAD: %s\n%s\n", strerror(errno), log);
	return fd;
}

static bool map_read(struct snap_value *v)
{
	uint32_t key = 0;
	union bpf_attr attr = {
		.map_fd = map_fd,
		.key = (uintptr_t)&key,
		.value = (uintptr_t)v,
	};

	return !sys_bpf(BPF_MAP_LOOKUP_ELEM, &attr);
}

static bool map_clear(void)
{
	static struct snap_value zero;
	uint32_t key = 0;
	union bpf_attr attr = {
		.map_fd = map_fd,
		.key = (uintptr_t)&key,
		.value = (uintptr_t)&zero,
	};

	return !sys_bpf(BPF_MAP_UPDATE_ELEM, &attr);
}

/*
 * A uprobe on snap_probe() running program @prog: the uprobe PMU takes
 * the file and the offset in it, found through this process's mapping.
 */
static int uprobe_open(int prog)
{
	static char exe[256];
	uintptr_t addr = (uintptr_t)snap_probe;
	unsigned long start, end, off;
	struct perf_event_attr attr;
	char line[512], perms[8];
	uint64_t type;
	bool found = false;
	FILE *maps;
	int fd;

	if (pmu_read_sysfs("/sys/bus/event_source/devices/uprobe/type", line, sizeof(line)))
		return -ENOENT;
	type = strtoull(line, NULL, 0);
	if (readlink("/proc/self/exe", exe, sizeof(exe) - 1) < 0)
		return -errno;
	maps = fopen("/proc/self/maps", "r");
	if (!maps)
		return -errno;
	while (!found && fgets(line, sizeof(line), maps))
		found = sscanf(line, "%lx-%lx %7s %lx", &start, &end, perms, &off) == 4 &&
			addr >= start && addr < end;
	fclose(maps);
	if (!found)
		return -ENOENT;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config1 = (uintptr_t)exe;		/* uprobe_path */
	attr.config2 = addr - start + off;	/* probe_offset */
	attr.sample_period = 1;
	fd = pmu_open(&attr, -1);
	if (fd < 0)
		return fd;
	if (ioctl(fd, PERF_EVENT_IOC_SET_BPF, prog) || ioctl(fd, PERF_EVENT_IOC_ENABLE, 0)) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

/*
 * cycles sampling every @period with the branch stack of -j any,u; the
 * cycles of the kernel too with @kernel, so that it overflows there.
 */
static int branch_event_open(uint64_t period, bool kernel)
{
	struct perf_event_attr attr;

	pmu_attr_user(&attr, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	attr.exclude_kernel = !kernel;
	attr.sample_period = period;
	attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_BRANCH_STACK;
	attr.branch_sample_type = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER;
	return pmu_open(&attr, -1);
}

static void report(const char *name, unsigned int i, const struct perf_branch_entry *br,
		   const char *why)
{
	uint64_t f = BR_FLAGS(br);

	ksft_print_msg("%s: record %u: 0x%llx -> 0x%llx type %u priv %u cycles %u: %s\n",
		       name, i, br->from, br->to, (unsigned int)BR_TYPE(f),
		       (unsigned int)BR_PRIV(f), (unsigned int)BR_CYCLES(f), why);
}

/* One record: its addresses, type, privilege and cycle count */
static bool record_is(const char *name, const struct snap_value *v, unsigned int i,
		      uintptr_t from, uintptr_t to, unsigned int type, unsigned int cycles)
{
	const struct perf_branch_entry *br = &v->br[i];
	uint64_t f = BR_FLAGS(br);

	if (br->from == from && br->to == to && BR_TYPE(f) == type &&
	    BR_PRIV(f) == PERF_BR_PRIV_USER && BR_CYCLES(f) == cycles)
		return true;
	report(name, i, br, "unexpected");
	return false;
}

/*
 * Records first..nr-1: consecutive branches of brbe_seq() going backwards
 * from seq[k], each with its type and exact cycle count.
 */
static bool seq_chain(const char *name, const struct snap_value *v, unsigned int first,
		      unsigned int nr, int k)
{
	unsigned int i;

	for (i = first; i < nr; i++, k = seq_prev(k, PERF_SAMPLE_BRANCH_ANY)) {
		if (!record_is(name, v, i, seq[k].from, seq[k].to, seq[k].type,
			       seq[k].cycles))
			return false;
	}
	return true;
}

/* The breakpoint exception of the uprobe: its source, not its kernel target */
static bool probe_exception(const char *name, const struct snap_value *v)
{
	const struct perf_branch_entry *br = &v->br[0];

	if (br->from == (uintptr_t)snap_probe && !br->to)
		return true;
	report(name, 0, br, "not the uprobe's exception");
	return false;
}

static bool snapshot_nr(const char *name, const struct snap_value *v, uint64_t runs,
			unsigned int nr)
{
	if (v->runs == runs && v->ret == (int64_t)(nr * sizeof(v->br[0])))
		return true;
	ksft_print_msg("%s: %llu runs, helper returned %lld; expected %llu, %u records\n",
		       name, (unsigned long long)v->runs, (long long)v->ret,
		       (unsigned long long)runs, nr);
	return false;
}

/* No branch-stack event: nothing is recorded, the helper says -ENOENT */
static void test_no_event(void)
{
	struct snap_value v;

	map_clear();
	snap_twice();
	if (map_read(&v) && v.runs == 2 && v.ret == -ENOENT) {
		pmu_result(true, "bpf_snapshot_enoent_without_branch_event");
		return;
	}
	ksft_print_msg("no event: %llu runs, helper returned %lld\n",
		       (unsigned long long)v.runs, (long long)v.ret);
	pmu_result(false, "bpf_snapshot_enoent_without_branch_event");
}

/*
 * Run @work under a branch event that never overflows, the uprobe's
 * program taking its snapshots; the latest one in @v.
 */
static bool snapshot_of(void (*work)(void), struct snap_value *v)
{
	int fd = branch_event_open(1ULL << 40, false);

	if (fd < 0) {
		ksft_print_msg("branch event: %s\n", strerror(-fd));
		return false;
	}
	map_clear();
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	work();
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	close(fd);
	return map_read(v);
}

static void seq_then_probe(void)
{
	snap_run(20);
}

/*
 * After brbe_seq(20) the buffer is full: the exception, the call to
 * snap_probe() (one instruction after the return it follows), brbe_seq()'s
 * return (nine instructions after its last taken branch, the BR: five NOPs,
 * SUB, CBNZ not taken, MOV, RET), then the sequence from that BR back.
 */
static void test_exact(void)
{
	const char *name = "bpf_snapshot_exact_records";
	struct snap_value v;

	pmu_result(snapshot_of(seq_then_probe, &v) && snapshot_nr(name, &v, 1, numrec) &&
		   probe_exception(name, &v) &&
		   record_is(name, &v, 1, (uintptr_t)snap_run_probe_at, (uintptr_t)snap_probe,
			     PERF_BR_CALL, 1) &&
		   record_is(name, &v, 2, SEQ_RET, (uintptr_t)snap_run_probe_at, PERF_BR_RET, 9) &&
		   seq_chain(name, &v, 3, numrec, 5), name);
}

static void seq_then_two_probes(void)
{
	brbe_seq(20);
	snap_twice();
}

/*
 * The second of two probes in a row sees what followed the first: the
 * return from the exception to snap_twice_second_at (its target only),
 * the call there, and its own exception. Nothing older survived.
 */
static void test_consumed(void)
{
	const char *name = "bpf_snapshot_empties_buffer";
	uintptr_t second = (uintptr_t)snap_twice_second_at;
	struct snap_value v;
	bool ok;

	ok = snapshot_of(seq_then_two_probes, &v) && snapshot_nr(name, &v, 2, 3) &&
	     probe_exception(name, &v) &&
	     record_is(name, &v, 1, second, (uintptr_t)snap_probe, PERF_BR_CALL, 1);
	if (ok && (v.br[2].from || v.br[2].to != second)) {
		report(name, 2, &v.br[2], "not the exception return");
		ok = false;
	}
	pmu_result(ok, name);
}

/*
 * The program attached to the branch event itself runs in its overflow
 * interrupt, on the buffer the overflow froze: numrec records of the
 * sequence, newest first. It runs once per overflow: the event's count
 * over its period. That is exact even when perf throttles the event
 * (the debug kernel lowers the sample rate as its interrupts run long):
 * a throttled counter stops, and counts nothing until it restarts.
 */
static void test_in_overflow(void)
{
	const char *name = "bpf_snapshot_in_overflow_interrupt";
	struct snap_value v;
	int64_t count;
	int prog, fd, k;
	bool ok;

	prog = prog_load(BPF_PROG_TYPE_PERF_EVENT);
	fd = branch_event_open(SEQ_PERIOD, false);
	if (prog < 0 || fd < 0 || ioctl(fd, PERF_EVENT_IOC_SET_BPF, prog)) {
		ksft_print_msg("overflow program: %s\n", strerror(fd < 0 ? -fd : errno));
		pmu_result(false, name);
		return;
	}
	map_clear();
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	brbe_seq(100000);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	count = pmu_read_count(fd);
	ksft_print_msg("%s: %lld cycles, %lld periods\n", name, (long long)count,
		       (long long)(count / SEQ_PERIOD));
	ok = map_read(&v) && count >= (int64_t)SEQ_PERIOD &&
	     snapshot_nr(name, &v, count / SEQ_PERIOD, numrec);
	k = ok ? seq_find(&v.br[0]) : -1;
	if (ok && k < 0)
		report(name, 0, &v.br[0], "not in the sequence");
	ok = ok && k >= 0 && seq_chain(name, &v, 0, numrec, k);
	close(fd);
	close(prog);
	pmu_result(ok, name);
}

static bool user_record(const struct perf_branch_entry *br)
{
	return !(br->from >> 48) && !(br->to >> 48);
}

/* Context switches of this thread so far */
static long switches(void)
{
	struct rusage ru;

	getrusage(RUSAGE_THREAD, &ru);
	return ru.ru_nvcsw + ru.ru_nivcsw;
}

/*
 * Snapshots beside a branch event overflowing every 1009 cycles, the
 * kernel's included: the overflow interrupt comes due inside the helper
 * too, and must wait for it. Every snapshot holds at least the probe's
 * exception, at most the buffer, and no kernel address; or nothing
 * (-ENOENT) if the thread was switched out on the way or an overflow
 * interrupt came after the probe's exception: either empties the buffer.
 */
static void test_beside_overflows(void)
{
	const char *name = "bpf_snapshot_beside_overflows";
	unsigned int i, j, bad = 0, switched = 0, emptied = 0;
	struct snap_value v;
	long sw;
	int fd;

	fd = branch_event_open(BESIDE_PERIOD, true);
	if (fd < 0) {
		ksft_print_msg("branch event: %s\n", strerror(-fd));
		pmu_result(false, name);
		return;
	}
	map_clear();
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	for (i = 0; i < BESIDE_ROUNDS; i++) {
		sw = switches();
		snap_run(3);
		if (!map_read(&v)) {
			bad++;
			continue;
		}
		if (v.runs == i + 1 && v.ret == -ENOENT) {
			if (switches() != sw)
				switched++;
			else
				emptied++;
			continue;
		}
		if (v.runs != i + 1 || v.ret < (int64_t)sizeof(v.br[0]) ||
		    v.ret > (int64_t)(numrec * sizeof(v.br[0]))) {
			if (bad++ < 4)
				ksft_print_msg("%s: round %u: %llu runs, helper returned %lld\n",
					       name, i, (unsigned long long)v.runs,
					       (long long)v.ret);
			continue;
		}
		for (j = 0; j < v.ret / sizeof(v.br[0]); j++) {
			if (!user_record(&v.br[j]) && bad++ < 4)
				report(name, j, &v.br[j], "kernel address");
		}
	}
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	close(fd);
	ksft_print_msg("%s: %u rounds, emptied by a context switch %u, by an overflow %u; %u bad\n",
		       name, BESIDE_ROUNDS, switched, emptied, bad);
	pmu_result(!bad && switched < BESIDE_ROUNDS / 100, name);
}

int main(int argc, char **argv)
{
	int prog, probe;

	ksft_print_header();
	seq_init();
	numrec = argc > 1 ? strtoul(argv[1], NULL, 0) : 32;
	ksft_set_plan(5);

	map_fd = map_create();
	prog = map_fd < 0 ? -1 : prog_load(BPF_PROG_TYPE_KPROBE);
	probe = prog < 0 ? -1 : uprobe_open(prog);
	if (map_fd < 0 || prog < 0 || probe < 0)
		ksft_exit_fail_msg("BPF map, program or uprobe: %s\n",
				   strerror(probe < -1 ? -probe : errno));

	test_no_event();
	test_exact();
	test_consumed();
	test_beside_overflows();
	close(probe);
	test_in_overflow();
	ksft_finished();
}
