// SPDX-License-Identifier: GPL-2.0
/*
 * The perf ABI of the arm64 PMU drivers as one sorted list of
 * "key: value" lines, to compare one kernel's answers with another's on
 * the same CPU model (harness/abi/: mainline 7.3's recorded output and
 * the documented differences; harness/plans/abi-probe.plan compares).
 *
 * Every line is a fact a user or the perf tool can observe: the errno of
 * perf_event_open() for a table of attributes on the CPU PMU and on SPE,
 * the PMUs' events/, format/ and caps/ files, a few event groups, and the
 * kinds of branch records each branch filter gives for a known branch
 * sequence. Values hold no address, PMU type number or time, so two runs
 * of one kernel print the same lines. The PMUs are named by role: "cpu"
 * for the PMUv3 instance (the one with format/long), "spe" for arm_spe_*.
 *
 * Exits 0 once every line is printed; 1 if the probe itself could not run
 * (no CPU PMU, out of memory). It judges nothing: the plan does.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <sys/utsname.h>

#include "pmu_lib.h"
#include "brbe_seq.h"

#ifndef PERF_SAMPLE_BRANCH_COUNTERS
#define PERF_SAMPLE_BRANCH_COUNTERS	(1U << 19)
#endif
#define BRANCH_BITS		21	/* the 6.12 ABI's 20, and one past them */
#define BRANCH_PRIV		(PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_KERNEL | \
				 PERF_SAMPLE_BRANCH_HV)
#define BRANCH_SAVE		(PERF_SAMPLE_BRANCH_TYPE_SAVE | PERF_SAMPLE_BRANCH_PRIV_SAVE)

#define EVT_INST_RETIRED	0x08
#define EVT_CPU_CYCLES		0x11

#define SPE_PERIOD		4096
#define MAX_LINES		4096
#define MAX_GROUP		64

/* The output: every line, sorted before it is printed */
static char *lines[MAX_LINES];
static unsigned int nr_lines;

static __printf(2, 3) void out(const char *key, const char *fmt, ...)
{
	char val[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(val, sizeof(val), fmt, ap);
	va_end(ap);
	if (nr_lines == MAX_LINES ||
	    asprintf(&lines[nr_lines], "%s: %s", key, val) < 0)
		ksft_exit_fail_msg("no room for line %s\n", key);
	nr_lines++;
}

static int line_cmp(const void *a, const void *b)
{
	const char *x = *(const char * const *)a, *y = *(const char * const *)b;

	/* by key: ':' sorts before any character a key holds */
	for (; *x && *x == *y; x++, y++)
		;
	return (*x == ':' ? 0 : (unsigned char)*x) - (*y == ':' ? 0 : (unsigned char)*y);
}

static void print_lines(void)
{
	unsigned int i;

	qsort(lines, nr_lines, sizeof(lines[0]), line_cmp);
	for (i = 0; i < nr_lines; i++) {
		if (i && !line_cmp(&lines[i - 1], &lines[i]))
			ksft_exit_fail_msg("key printed twice: %s\n", lines[i]);
		printf("%s\n", lines[i]);
	}
}

/* errno as its name: the value of a line, stable across libcs */
static const char *err_name(int err)
{
	static const struct { int err; const char *name; } names[] = {
		{ 0, "ok" }, { EINVAL, "EINVAL" }, { ENOENT, "ENOENT" },
		{ EOPNOTSUPP, "EOPNOTSUPP" }, { EACCES, "EACCES" }, { EPERM, "EPERM" },
		{ E2BIG, "E2BIG" }, { ENODEV, "ENODEV" }, { EBUSY, "EBUSY" },
		{ ENOSPC, "ENOSPC" }, { EFAULT, "EFAULT" }, { ENOMEM, "ENOMEM" },
		{ EMFILE, "EMFILE" }, { EBADF, "EBADF" }, { ESRCH, "ESRCH" },
		{ EEXIST, "EEXIST" }, { ERANGE, "ERANGE" },
	};
	static char buf[16];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		if (names[i].err == err)
			return names[i].name;
	}
	snprintf(buf, sizeof(buf), "E%d", err);
	return buf;
}

/* The PMUs under test: the CPU's PMUv3 and SPE, if there is one */
static struct pmu_info cpu;
static struct pmu_info spe;
static bool have_spe;

static int spe_find(struct pmu_info *pmu)
{
	static const char base[] = "/sys/bus/event_source/devices";
	struct dirent *de;
	uint64_t type;
	DIR *d;

	d = opendir(base);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (!strncmp(de->d_name, "arm_spe_", 8))
			break;
	}
	if (de)
		snprintf(pmu->dir, sizeof(pmu->dir), "%s/%s", base, de->d_name);
	closedir(d);
	if (!de)
		return -ENOENT;
	pmu->name = strrchr(pmu->dir, '/') + 1;
	if (pmu_sysfs_u64(pmu, "type", &type))
		return -ENOENT;
	pmu->type = type;
	return 0;
}

/*
 * perf_event_attr grew config3 in v6.3 and config4 (mainline's SPE data
 * source filter) after 6.12 and after the libc headers this is built
 * with: the attr is written at 6.12's size (VER8), at VER9's only with
 * config4 set, as the perf tool does.
 */
#define ATTR_SIZE_VER8		136
#define ATTR_SIZE_VER9		144
#define ATTR_CONFIG3_OFF	128
#define ATTR_CONFIG4_OFF	136
#define CONFIG_WORDS		5

union abi_attr {
	struct perf_event_attr a;
	uint8_t raw[ATTR_SIZE_VER9];
};

static_assert(offsetof(struct perf_event_attr, config2) + 8 <= ATTR_CONFIG3_OFF,
	      "config3 follows the fields the libc headers know");

/*
 * Set format field @name of @pmu to @val in @cfg (config to config4), as
 * the perf tool does from the PMU's format/ file ("config1:5-16", ranges
 * separated by commas, the value's low bits filling them in order).
 * Returns 0, or -ENOENT with no such file.
 */
static int fmt_set(const struct pmu_info *pmu, const char *name, uint64_t val,
		   uint64_t cfg[CONFIG_WORDS])
{
	char path[640], buf[128], *p, *range, *save;
	unsigned int word;

	snprintf(path, sizeof(path), "%s/format/%s", pmu->dir, name);
	if (pmu_read_sysfs(path, buf, sizeof(buf)))
		return -ENOENT;
	p = strchr(buf, ':');
	if (!p || strncmp(buf, "config", 6))
		return -EINVAL;
	*p++ = '\0';
	word = buf[6] ? strtoul(buf + 6, NULL, 10) : 0;
	if (word >= CONFIG_WORDS)
		return -EINVAL;
	for (range = strtok_r(p, ",", &save); range; range = strtok_r(NULL, ",", &save)) {
		unsigned int lo = strtoul(range, &p, 10), hi = lo, bits;

		if (*p == '-')
			hi = strtoul(p + 1, NULL, 10);
		if (hi < lo || hi > 63)
			return -EINVAL;
		bits = hi - lo + 1;
		cfg[word] |= (bits == 64 ? val : val & ((1ULL << bits) - 1)) << lo;
		val = bits == 64 ? 0 : val >> bits;
	}
	return 0;
}

/* One attribute to open: the table's row */
enum probe_pmu { ON_CPU, ON_SPE, ON_HW, ON_SW };

#define EX_USER		(1U << 0)
#define EX_KERNEL	(1U << 1)
#define EX_HV		(1U << 2)
#define EX_IDLE		(1U << 3)
#define EX_HOST		(1U << 4)
#define EX_GUEST	(1U << 5)
#define EX_BITS		6

struct probe_case {
	const char *key;
	enum probe_pmu pmu;
	const char *terms;	/* "field=value,..." through format/ */
	uint64_t config, config1, config2, config3;	/* raw bits, ORed in */
	bool set_period;	/* period as given, else the PMU's default */
	uint64_t period;
	uint64_t freq;		/* sample_freq, with attr.freq */
	unsigned int exclude;	/* EX_* */
	uint64_t bst;		/* branch_sample_type, with BRANCH_STACK */
	bool cpu_wide;		/* on CPU 0 for any task, not this task */
};

/*
 * Fill @attr from @c. Returns 0, or the reason no open was tried as a
 * value: a format file missing on this kernel ("no-format:NAME").
 */
static const char *case_attr(const struct probe_case *c, union abi_attr *u)
{
	const struct pmu_info *pmu = c->pmu == ON_SPE ? &spe : &cpu;
	uint64_t cfg[CONFIG_WORDS] = {
		c->config, c->config1, c->config2, c->config3, 0,
	};
	struct perf_event_attr *attr = &u->a;
	static char why[96];
	char terms[256], *t, *save;

	memset(u, 0, sizeof(*u));
	attr->disabled = 1;
	switch (c->pmu) {
	case ON_HW:
		attr->type = PERF_TYPE_HARDWARE;
		break;
	case ON_SW:
		attr->type = PERF_TYPE_SOFTWARE;
		break;
	case ON_CPU:
		attr->type = cpu.type;
		break;
	case ON_SPE:
		attr->type = spe.type;
		attr->sample_period = SPE_PERIOD;
		break;
	}
	snprintf(terms, sizeof(terms), "%s", c->terms ? c->terms : "");
	for (t = strtok_r(terms, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(t, '=');
		int err;

		*eq = '\0';
		err = fmt_set(pmu, t, strtoull(eq + 1, NULL, 0), cfg);
		if (err) {
			snprintf(why, sizeof(why), "%s:%s",
				 err == -ENOENT ? "no-format" : "bad-format", t);
			return why;
		}
	}
	attr->size = cfg[4] ? ATTR_SIZE_VER9 : ATTR_SIZE_VER8;
	attr->config = cfg[0];
	attr->config1 = cfg[1];
	attr->config2 = cfg[2];
	memcpy(u->raw + ATTR_CONFIG3_OFF, &cfg[3], sizeof(cfg[3]));
	memcpy(u->raw + ATTR_CONFIG4_OFF, &cfg[4], sizeof(cfg[4]));
	if (c->set_period)
		attr->sample_period = c->period;
	if (c->freq) {
		attr->freq = 1;
		attr->sample_freq = c->freq;
	}
	attr->exclude_user = !!(c->exclude & EX_USER);
	attr->exclude_kernel = !!(c->exclude & EX_KERNEL);
	attr->exclude_hv = !!(c->exclude & EX_HV);
	attr->exclude_idle = !!(c->exclude & EX_IDLE);
	attr->exclude_host = !!(c->exclude & EX_HOST);
	attr->exclude_guest = !!(c->exclude & EX_GUEST);
	if (c->bst) {
		attr->branch_sample_type = c->bst;
		attr->sample_type |= PERF_SAMPLE_BRANCH_STACK;
		if (!attr->sample_period)
			attr->sample_period = 100000;
	}
	return NULL;
}

static int open_attr(union abi_attr *u, bool cpu_wide, int group_fd)
{
	int fd = syscall(__NR_perf_event_open, &u->a, cpu_wide ? -1 : 0,
			 cpu_wide ? 0 : -1, group_fd, 0);

	return fd < 0 ? -errno : fd;
}

/*
 * Open the case's attribute and close it: 0 or the errno perf_event_open
 * gave; *why says instead why no open was tried (NULL if one was).
 */
static int try_open(const struct probe_case *c, const char **why)
{
	union abi_attr attr;
	int fd;

	*why = NULL;
	if (c->pmu == ON_SPE && !have_spe) {
		*why = "no-spe";
		return 0;
	}
	*why = case_attr(c, &attr);
	if (*why)
		return 0;
	fd = open_attr(&attr, c->cpu_wide, -1);
	if (fd < 0)
		return -fd;
	close(fd);
	return 0;
}

/* One line: the case's key, "ok" or the errno perf_event_open gave */
static void probe(const struct probe_case *c)
{
	const char *why;
	int err = try_open(c, &why);

	out(c->key, "%s", why ? why : err_name(err));
}

/*
 * One line for a run of cases numbered first to last (event numbers,
 * bits of a config word): for each answer, the numbers that got it, in
 * ranges ("EINVAL 3-15,17-31; ok 0-2,16"), answers in name order.
 */
#define SWEEP_MAX	128

static void sweep(const char *key, unsigned int first, unsigned int last, bool hex,
		  void (*make)(unsigned int i, struct probe_case *c))
{
	const char *ans[SWEEP_MAX], *names[SWEEP_MAX];
	unsigned int i, j, n = 0, nr_names = 0;
	char val[2048];
	size_t len = 0;

	for (i = first; i <= last && n < SWEEP_MAX; i++, n++) {
		struct probe_case c = { key };
		const char *why;
		int err;

		make(i, &c);
		err = try_open(&c, &why);
		ans[n] = why ? why : err_name(err);
		for (j = 0; j < nr_names && strcmp(names[j], ans[n]); j++)
			;
		if (j == nr_names)
			names[nr_names++] = ans[n];
	}
	qsort(names, nr_names, sizeof(names[0]), line_cmp);
	for (j = 0; j < nr_names; j++) {
		bool open = false;

		len += snprintf(val + len, sizeof(val) - len, "%s%s ", j ? "; " : "", names[j]);
		for (i = 0; i < n; i++) {
			bool in = !strcmp(ans[i], names[j]);
			bool next = i + 1 < n && !strcmp(ans[i + 1], names[j]);

			if (in && !open) {
				len += snprintf(val + len, sizeof(val) - len,
						hex ? "%s0x%02x" : "%s%u",
						val[len - 1] == ' ' ? "" : ",", first + i);
				open = true;
			}
			if (in && open && !next) {
				if (i && !strcmp(ans[i - 1], names[j]))
					len += snprintf(val + len, sizeof(val) - len,
							hex ? "-0x%02x" : "-%u", first + i);
				open = false;
			}
		}
	}
	out(key, "%s", val);
}

/* The attributes with a name of their own */
static const struct probe_case cases[] = {
	/* event numbers: generic, implementation defined, out of range */
	{ "attr.cpu.hw_cycles", ON_HW, .config = PERF_COUNT_HW_CPU_CYCLES },
	{ "attr.cpu.hw_instructions", ON_HW, .config = PERF_COUNT_HW_INSTRUCTIONS },
	{ "attr.cpu.hw_branch_misses", ON_HW, .config = PERF_COUNT_HW_BRANCH_MISSES },
	{ "attr.cpu.hw_bus_cycles", ON_HW, .config = PERF_COUNT_HW_BUS_CYCLES },
	{ "attr.cpu.hw_ref_cycles", ON_HW, .config = PERF_COUNT_HW_REF_CPU_CYCLES },
	{ "attr.cpu.hw_out_of_range", ON_HW, .config = PERF_COUNT_HW_MAX },
	{ "attr.cpu.raw_0x0080", ON_CPU, .config = 0x80 },
	{ "attr.cpu.raw_0x0100", ON_CPU, .config = 0x100 },
	{ "attr.cpu.raw_0x3fff", ON_CPU, .config = 0x3fff },
	{ "attr.cpu.raw_0x4100", ON_CPU, .config = 0x4100 },
	{ "attr.cpu.raw_0xffff", ON_CPU, .config = 0xffff },
	/* config words past the event number */
	{ "attr.cpu.config3_bit_0", ON_CPU, .config = EVT_CPU_CYCLES, .config3 = 1 },
	/* the format fields: long, rdpmc, threshold */
	{ "attr.cpu.long", ON_CPU, "long=1", EVT_INST_RETIRED },
	{ "attr.cpu.long_cycles", ON_CPU, "long=1", EVT_CPU_CYCLES },
	{ "attr.cpu.rdpmc", ON_CPU, "rdpmc=1", EVT_INST_RETIRED },
	{ "attr.cpu.rdpmc_long", ON_CPU, "rdpmc=1,long=1", EVT_INST_RETIRED },
	{ "attr.cpu.rdpmc_cpu_wide", ON_CPU, "rdpmc=1", EVT_INST_RETIRED, .cpu_wide = true },
	{ "attr.cpu.rdpmc_sampling", ON_CPU, "rdpmc=1", EVT_INST_RETIRED,
	  .set_period = true, .period = 100000 },
	{ "attr.cpu.threshold_1", ON_CPU, "threshold=1", EVT_INST_RETIRED },
	{ "attr.cpu.threshold_max", ON_CPU, "threshold=0xfff", EVT_INST_RETIRED },
	{ "attr.cpu.threshold_1_compare_1", ON_CPU, "threshold=1,threshold_compare=1",
	  EVT_INST_RETIRED },
	{ "attr.cpu.threshold_1_compare_3", ON_CPU, "threshold=1,threshold_compare=3",
	  EVT_INST_RETIRED },
	{ "attr.cpu.threshold_1_count", ON_CPU, "threshold=1,threshold_count=1",
	  EVT_INST_RETIRED },
	{ "attr.cpu.threshold_0_compare_2", ON_CPU, "threshold_compare=2", EVT_INST_RETIRED },
	{ "attr.cpu.threshold_0_count", ON_CPU, "threshold_count=1", EVT_INST_RETIRED },
	{ "attr.cpu.threshold_1_cycles", ON_CPU, "threshold=1", EVT_CPU_CYCLES },
	/* sampling periods and frequencies */
	{ "attr.cpu.period_1", ON_CPU, .config = EVT_CPU_CYCLES, .set_period = true, .period = 1 },
	{ "attr.cpu.period_2e31", ON_CPU, .config = EVT_CPU_CYCLES, .set_period = true,
	  .period = 1ULL << 31 },
	{ "attr.cpu.period_2e32", ON_CPU, .config = EVT_CPU_CYCLES, .set_period = true,
	  .period = 1ULL << 32 },
	{ "attr.cpu.period_2e32_long", ON_CPU, "long=1", EVT_INST_RETIRED, .set_period = true,
	  .period = 1ULL << 32 },
	{ "attr.cpu.period_2e62", ON_CPU, .config = EVT_CPU_CYCLES, .set_period = true,
	  .period = 1ULL << 62 },
	{ "attr.cpu.period_2e63", ON_CPU, .config = EVT_CPU_CYCLES, .set_period = true,
	  .period = 1ULL << 63 },
	{ "attr.cpu.freq_1", ON_CPU, .config = EVT_CPU_CYCLES, .freq = 1 },
	{ "attr.cpu.freq_4000", ON_CPU, .config = EVT_CPU_CYCLES, .freq = 4000 },
	{ "attr.cpu.freq_1e9", ON_CPU, .config = EVT_CPU_CYCLES, .freq = 1000000000 },

	/* SPE: periods around the minimum interval and the register's width */
	{ "attr.spe.period_0", ON_SPE, .set_period = true, .period = 0 },
	{ "attr.spe.period_1", ON_SPE, .set_period = true, .period = 1 },
	{ "attr.spe.period_255", ON_SPE, .set_period = true, .period = 255 },
	{ "attr.spe.period_256", ON_SPE, .set_period = true, .period = 256 },
	{ "attr.spe.period_1023", ON_SPE, .set_period = true, .period = 1023 },
	{ "attr.spe.period_1024", ON_SPE, .set_period = true, .period = 1024 },
	{ "attr.spe.period_4095", ON_SPE, .set_period = true, .period = 4095 },
	{ "attr.spe.period_0xffffff00", ON_SPE, .set_period = true, .period = 0xffffff00 },
	{ "attr.spe.period_0xffffff01", ON_SPE, .set_period = true, .period = 0xffffff01 },
	{ "attr.spe.period_2e32", ON_SPE, .set_period = true, .period = 1ULL << 32 },
	{ "attr.spe.freq_1000", ON_SPE, .freq = 1000 },
	{ "attr.spe.branch_stack", ON_SPE, .bst = PERF_SAMPLE_BRANCH_ANY },
	{ "attr.spe.config3_bit_0", ON_SPE, .config3 = 1 },
	{ "attr.spe.cpu_wide", ON_SPE, .cpu_wide = true },
	{ "attr.spe.min_latency_max", ON_SPE, "min_latency=0xfff" },
	{ "attr.spe.event_filter_all", ON_SPE, "event_filter=0xffffffffffffffff" },
	{ "attr.spe.event_filter_bit_1", ON_SPE, "event_filter=0x2" },
	{ "attr.spe.inv_event_filter_bit_1", ON_SPE, "inv_event_filter=0x2" },
	{ "attr.spe.load_store_filter", ON_SPE, "load_filter=1,store_filter=1" },
	{ "attr.spe.discard_pa", ON_SPE, "discard=1,pa_enable=1" },
};

/* SPE's format fields, each set to 1 alone */
static const char * const spe_fields[] = {
	"ts_enable", "pa_enable", "pct_enable", "jitter", "branch_filter",
	"branch_filter_mask", "load_filter", "load_filter_mask", "store_filter",
	"store_filter_mask", "simd_filter", "simd_filter_mask", "float_filter",
	"float_filter_mask", "event_filter", "inv_event_filter",
	"inv_data_src_filter", "min_latency", "discard",
};

/* The PERF_SAMPLE_BRANCH_* bits by their perf tool names */
static const char * const branch_names[BRANCH_BITS] = {
	"u", "k", "hv", "any", "any_call", "any_ret", "ind_call", "abort_tx",
	"in_tx", "no_tx", "cond", "call_stack", "ind_jump", "call", "no_flags",
	"no_cycles", "save_type", "hw_index", "priv_save", "counters", "bit20",
};

static void exclude_name(unsigned int ex, char *buf, size_t len)
{
	static const char * const names[EX_BITS] = {
		"user", "kernel", "hv", "idle", "host", "guest",
	};
	unsigned int i;
	size_t n = 0;

	buf[0] = '\0';
	for (i = 0; i < EX_BITS; i++) {
		if (ex & (1U << i))
			n += snprintf(buf + n, len - n, "%s%s", n ? "+" : "", names[i]);
	}
	if (!n)
		snprintf(buf, len, "none");
}

/* The rows of the sweeps */
static void make_raw(unsigned int i, struct probe_case *c)
{
	c->pmu = ON_CPU;
	c->config = i;
}

static void make_cpu_config(unsigned int i, struct probe_case *c)
{
	c->pmu = ON_CPU;
	c->config = EVT_CPU_CYCLES | 1ULL << i;
}

static void make_cpu_config1(unsigned int i, struct probe_case *c)
{
	c->pmu = ON_CPU;
	c->config = EVT_CPU_CYCLES;
	c->config1 = 1ULL << i;
}

static void make_cpu_config2(unsigned int i, struct probe_case *c)
{
	c->pmu = ON_CPU;
	c->config = EVT_CPU_CYCLES;
	c->config2 = 1ULL << i;
}

static void make_spe_config(unsigned int i, struct probe_case *c)
{
	c->pmu = ON_SPE;
	c->config = 1ULL << i;
}

static void make_spe_config2(unsigned int i, struct probe_case *c)
{
	c->pmu = ON_SPE;
	c->config2 = 1ULL << i;
}

/* The table, then the rows made by loops: events, bits, combinations */
static void probe_attrs(void)
{
	static const uint64_t privs[] = {
		0, PERF_SAMPLE_BRANCH_USER, PERF_SAMPLE_BRANCH_KERNEL,
		PERF_SAMPLE_BRANCH_HV, PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_KERNEL,
	};
	static const char * const priv_names[] = { "", "_u", "_k", "_hv", "_uk" };
	char key[128], ex[64];
	unsigned int i, j;

	for (i = 0; i < ARRAY_SIZE(cases); i++)
		probe(&cases[i]);

	/* the common event numbers, PMUv3's and the extended range's */
	sweep("attr.cpu.raw_common", 0, 0x3f, true, make_raw);
	sweep("attr.cpu.raw_common_ext", 0x4000, 0x403f, true, make_raw);
	/* every bit of the config words beside the event number */
	sweep("attr.cpu.config_bits", 16, 63, false, make_cpu_config);
	sweep("attr.cpu.config1_bits", 0, 63, false, make_cpu_config1);
	sweep("attr.cpu.config2_bits", 0, 63, false, make_cpu_config2);
	for (i = 0; i < 1U << EX_BITS; i++) {
		struct probe_case c = { key, ON_CPU, .config = EVT_CPU_CYCLES, .exclude = i };

		exclude_name(i, ex, sizeof(ex));
		snprintf(key, sizeof(key), "attr.cpu.exclude.%s", ex);
		probe(&c);
	}
	/* each branch_sample_type bit alone and with each privilege */
	for (i = 0; i < BRANCH_BITS; i++) {
		for (j = 0; j < ARRAY_SIZE(privs); j++) {
			struct probe_case c = { key, ON_CPU, .config = EVT_CPU_CYCLES,
				.bst = 1ULL << i | privs[j] };

			if ((1ULL << i) & BRANCH_PRIV && j)
				continue;
			snprintf(key, sizeof(key), "attr.cpu.branch.%s%s", branch_names[i],
				 priv_names[j]);
			probe(&c);
		}
	}

	/* SPE: every bit of its config words, each format field, exclusions */
	sweep("attr.spe.config_bits", 0, 63, false, make_spe_config);
	sweep("attr.spe.config2_bits", 0, 63, false, make_spe_config2);
	for (i = 0; i < ARRAY_SIZE(spe_fields); i++) {
		char terms[64];
		struct probe_case c = { key, ON_SPE, terms };

		snprintf(terms, sizeof(terms), "%s=1", spe_fields[i]);
		snprintf(key, sizeof(key), "attr.spe.field.%s", spe_fields[i]);
		probe(&c);
	}
	for (i = 0; i < 1U << EX_BITS; i++) {
		struct probe_case c = { key, ON_SPE, .exclude = i };

		/* user and kernel alone and together, with each other one */
		if (__builtin_popcount(i & ~(EX_USER | EX_KERNEL)) > 1)
			continue;
		exclude_name(i, ex, sizeof(ex));
		snprintf(key, sizeof(key), "attr.spe.exclude.%s", ex);
		probe(&c);
	}
}

/* sysfs: each file of events/, format/ and caps/ with its content */
static void probe_sysfs_dir(const char *role, const struct pmu_info *pmu, const char *sub)
{
	char path[640], key[320], buf[512], *p;
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "%s/%s", pmu->dir, sub);
	d = opendir(path);
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/%s", pmu->dir, sub, de->d_name);
		snprintf(key, sizeof(key), "sysfs.%s.%s.%s", role, sub, de->d_name);
		if (pmu_read_sysfs(path, buf, sizeof(buf))) {
			out(key, "unreadable");
			continue;
		}
		buf[strcspn(buf, "\n")] = '\0';
		for (p = buf; *p; p++) {
			if (*p < ' ' || *p > '~')
				*p = '?';
		}
		out(key, "%s", buf);
	}
	if (d)
		closedir(d);
	snprintf(key, sizeof(key), "sysfs.%s.%s", role, sub);
	out(key, "%s", d ? "present" : "absent");
}

static void probe_sysfs(void)
{
	static const char * const subs[] = { "events", "format", "caps" };
	unsigned int i;

	out("sysfs.cpu.name", "%s", cpu.name);
	for (i = 0; i < 3; i++)
		probe_sysfs_dir("cpu", &cpu, subs[i]);
	out("sysfs.spe.name", "%s", have_spe ? spe.name : "absent");
	for (i = 0; have_spe && i < 3; i++)
		probe_sysfs_dir("spe", &spe, subs[i]);
}

/* Groups: the errno of each member's open, in order ("ok,ok,EINVAL") */
struct group_case {
	const char *key;
	struct probe_case members[4];
};

#define SW_CLOCK	{ "sw", ON_SW, .config = PERF_COUNT_SW_TASK_CLOCK }
#define CPU_CYCLES	{ "cpu", ON_CPU, .config = EVT_CPU_CYCLES }
#define CPU_INSTS	{ "cpu", ON_CPU, .config = EVT_INST_RETIRED }
#define SPE_EVENT	{ "spe", ON_SPE }

static const struct group_case groups[] = {
	{ "group.cpu_cpu", { CPU_CYCLES, CPU_INSTS } },
	{ "group.cpu_sw", { CPU_CYCLES, SW_CLOCK } },
	{ "group.sw_cpu", { SW_CLOCK, CPU_CYCLES } },
	{ "group.sw_cpu_cpu", { SW_CLOCK, CPU_CYCLES, CPU_INSTS } },
	{ "group.cpu_spe", { CPU_CYCLES, SPE_EVENT } },
	{ "group.spe_cpu", { SPE_EVENT, CPU_CYCLES } },
	{ "group.spe_sw", { SPE_EVENT, SW_CLOCK } },
	{ "group.sw_spe", { SW_CLOCK, SPE_EVENT } },
	{ "group.sw_spe_cpu", { SW_CLOCK, SPE_EVENT, CPU_CYCLES } },
	{ "group.sw_cpu_spe", { SW_CLOCK, CPU_CYCLES, SPE_EVENT } },
	{ "group.spe_spe", { SPE_EVENT, SPE_EVENT } },
};

static void probe_groups(void)
{
	int fds[MAX_GROUP + 1];
	unsigned int i, j, n;
	char val[256];

	for (i = 0; i < ARRAY_SIZE(groups); i++) {
		const struct group_case *g = &groups[i];
		size_t len = 0;
		bool uses_spe = false;

		n = 0;
		for (j = 0; j < 4 && g->members[j].key; j++) {
			union abi_attr attr;
			const struct probe_case *m = &g->members[j];
			int fd;

			uses_spe |= m->pmu == ON_SPE;
			case_attr(m, &attr);
			/* group validation counts only the members switched on */
			attr.a.disabled = !j;
			fd = open_attr(&attr, false, n ? fds[0] : -1);
			len += snprintf(val + len, sizeof(val) - len, "%s%s", j ? "," : "",
					err_name(fd >= 0 ? 0 : -fd));
			if (fd >= 0)
				fds[n++] = fd;
			else if (!j)
				break;
		}
		while (n)
			close(fds[--n]);
		out(g->key, "%s", uses_spe && !have_spe ? "no-spe" : val);
	}

	/*
	 * Too many counters: members counting INST_RETIRED join a cycles
	 * leader until one is refused; the count is the PMU's general
	 * counters (PMCR_EL0.N), the same on both kernels on one model.
	 */
	for (n = 0; n <= MAX_GROUP; n++) {
		struct probe_case c = CPU_INSTS;
		union abi_attr attr;

		if (!n)
			c.config = EVT_CPU_CYCLES;
		case_attr(&c, &attr);
		attr.a.disabled = !n;
		fds[n] = open_attr(&attr, false, n ? fds[0] : -1);
		if (fds[n] < 0)
			break;
	}
	if (n > MAX_GROUP)
		out("group.too_many", "all %u opened", n);
	else
		out("group.too_many", "%u opened, then %s", n, err_name(-fds[n]));
	while (n)
		close(fds[--n]);
}

/*
 * Branch records: the kinds of record each filter gives for the known
 * sequence (brbe_seq.h) run between system calls. A kind is the record's
 * type, its source and target (u: a user address, k: a kernel one, 0:
 * none, a half record) and its privilege; the value lists each kind seen
 * once, sorted, so the number of samples does not matter. Interrupts and
 * SErrors are left out, and so are exception returns from the kernel to
 * the kernel, which only end an exception the kernel took: whether a
 * timer interrupt lands in a sample's records depends on where the
 * kernel's code spends its instructions, which a driver or model change
 * moves.
 */
#define BR_PERIOD	10007
#define BR_CHUNKS	3000
#define BR_SEQ_ITERS	2
#define BR_PAGES	64
#define BR_MAX_KINDS	64

static const char *br_type_name(uint64_t f)
{
	static const char * const types[] = {
		"unknown", "cond", "uncond", "ind", "call", "ind_call", "ret",
		"syscall", "sysret", "cond_call", "cond_ret", "eret", "irq",
		"serror", "no_tx", "extend",
	};
	static const char * const new_types[] = {
		"fault_algn", "fault_data", "fault_inst", "arch_1", "arch_2",
		"arch_3", "arch_4", "arch_5",
	};
	unsigned int type = BR_TYPE(f), new_type = (f >> 26) & 0xf;
	static char buf[16];

	if (type != PERF_BR_EXTEND_ABI)
		return types[type];
	if (new_type < ARRAY_SIZE(new_types))
		return new_types[new_type];
	snprintf(buf, sizeof(buf), "new_%u", new_type);
	return buf;
}

static char side(uint64_t addr)
{
	if (!addr)
		return '0';
	return addr >> 63 ? 'k' : 'u';
}

struct br_kinds {
	unsigned int n, samples;
	char kind[BR_MAX_KINDS][40];
};

static void kind_add(struct br_kinds *k, const struct perf_branch_entry *br)
{
	static const char * const privs[] = { "-", "user", "kernel", "hv" };
	uint64_t f = BR_FLAGS(br);
	unsigned int i, priv = BR_PRIV(f);
	char buf[40];

	if (BR_TYPE(f) == PERF_BR_IRQ || BR_TYPE(f) == PERF_BR_SERROR ||
	    (BR_TYPE(f) == PERF_BR_ERET && side(br->from) == 'k' && side(br->to) == 'k'))
		return;
	snprintf(buf, sizeof(buf), "%s:%c>%c:%s", br_type_name(f), side(br->from),
		 side(br->to), priv < 4 ? privs[priv] : "?");
	for (i = 0; i < k->n; i++) {
		if (!strcmp(k->kind[i], buf))
			return;
	}
	if (k->n < BR_MAX_KINDS)
		snprintf(k->kind[k->n++], sizeof(k->kind[0]), "%s", buf);
}

static void ring_read(const char *data, size_t size, uint64_t off, void *dst, size_t len)
{
	size_t start = off % size, first = len < size - start ? len : size - start;

	memcpy(dst, data + start, first);
	memcpy((char *)dst + first, data, len - first);
}

/* Samples of sample_type BRANCH_STACK: nr, then nr records */
static void ring_kinds(struct perf_event_mmap_page *pg, size_t size, struct br_kinds *k)
{
	const char *data = (const char *)pg + pg->data_offset;
	uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = pg->data_tail, nr, i;
	struct perf_event_header hdr;
	struct perf_branch_entry br;

	for (; tail < head; tail += hdr.size) {
		ring_read(data, size, tail, &hdr, sizeof(hdr));
		if (hdr.size < sizeof(hdr))
			break;
		if (hdr.type != PERF_RECORD_SAMPLE)
			continue;
		k->samples++;
		ring_read(data, size, tail + sizeof(hdr), &nr, sizeof(nr));
		for (i = 0; i < nr && i < 64; i++) {
			ring_read(data, size, tail + sizeof(hdr) + 8 + i * sizeof(br),
				  &br, sizeof(br));
			kind_add(k, &br);
		}
	}
}

static int kind_cmp(const void *a, const void *b)
{
	return strcmp(a, b);
}

struct br_filter {
	const char *name;
	uint64_t bst;
};

static const struct br_filter br_filters[] = {
	{ "any_u", PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER | BRANCH_SAVE },
	{ "any_u_nosave", PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER },
	{ "any_call_u", PERF_SAMPLE_BRANCH_ANY_CALL | PERF_SAMPLE_BRANCH_USER | BRANCH_SAVE },
	{ "any_ret_u", PERF_SAMPLE_BRANCH_ANY_RETURN | PERF_SAMPLE_BRANCH_USER | BRANCH_SAVE },
	{ "ind_call_u", PERF_SAMPLE_BRANCH_IND_CALL | PERF_SAMPLE_BRANCH_USER | BRANCH_SAVE },
	{ "call_u", PERF_SAMPLE_BRANCH_CALL | PERF_SAMPLE_BRANCH_USER | BRANCH_SAVE },
	{ "ind_jump_u", PERF_SAMPLE_BRANCH_IND_JUMP | PERF_SAMPLE_BRANCH_USER | BRANCH_SAVE },
	{ "cond_u", PERF_SAMPLE_BRANCH_COND | PERF_SAMPLE_BRANCH_USER | BRANCH_SAVE },
	{ "any_k", PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_KERNEL | BRANCH_SAVE },
	{ "any_ret_k", PERF_SAMPLE_BRANCH_ANY_RETURN | PERF_SAMPLE_BRANCH_KERNEL | BRANCH_SAVE },
	{ "any_uk", PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER |
		    PERF_SAMPLE_BRANCH_KERNEL | BRANCH_SAVE },
};

static void probe_branches(void)
{
	size_t page = sysconf(_SC_PAGESIZE), len = (BR_PAGES + 1) * page;
	unsigned int i, j;
	char key[128];

	/* fault the sequence's page in before any event records */
	brbe_seq(1);
	syscall(__NR_getppid);
	for (i = 0; i < ARRAY_SIZE(br_filters); i++) {
		const struct br_filter *bf = &br_filters[i];
		struct probe_case c = { key, ON_HW, .config = PERF_COUNT_HW_CPU_CYCLES,
			.set_period = true, .period = BR_PERIOD, .bst = bf->bst };
		union abi_attr attr;
		static struct br_kinds k;
		char val[BR_MAX_KINDS * 40];
		size_t n = 0;
		void *ring;
		int fd;

		snprintf(key, sizeof(key), "branch.%s", bf->name);
		/* the event counts where the filter records */
		if (!(bf->bst & PERF_SAMPLE_BRANCH_KERNEL))
			c.exclude = EX_KERNEL | EX_HV;
		case_attr(&c, &attr);
		fd = open_attr(&attr, false, -1);
		if (fd < 0) {
			out(key, "%s", err_name(-fd));
			continue;
		}
		ring = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (ring == MAP_FAILED) {
			out(key, "mmap-%s", err_name(errno));
			close(fd);
			continue;
		}
		ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
		for (j = 0; j < BR_CHUNKS; j++) {
			brbe_seq(BR_SEQ_ITERS);
			syscall(__NR_getppid);
		}
		ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
		memset(&k, 0, sizeof(k));
		ring_kinds(ring, len - page, &k);
		munmap(ring, len);
		close(fd);
		qsort(k.kind, k.n, sizeof(k.kind[0]), kind_cmp);
		for (j = 0; j < k.n; j++)
			n += snprintf(val + n, sizeof(val) - n, "%s%s", j ? " " : "", k.kind[j]);
		out(key, "%s", !k.samples ? "no samples" : k.n ? val : "no records");
	}
}

int main(void)
{
	struct utsname u;

	if (pmu_find(&cpu)) {
		printf("# abi_probe: no PMUv3 PMU (format/long) in sysfs\n");
		return 1;
	}
	have_spe = !spe_find(&spe);
	seq_init();
	uname(&u);
	printf("# abi_probe: kernel %s, cpu PMU %s, SPE %s\n", u.release, cpu.name,
	       have_spe ? spe.name : "absent");

	probe_attrs();
	probe_sysfs();
	probe_groups();
	probe_branches();

	printf("# abi-probe begin\n");
	print_lines();
	printf("# abi-probe end %u lines\n", nr_lines);
	return 0;
}
