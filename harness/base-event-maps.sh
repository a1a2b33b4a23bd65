#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Record how the base driver resolves perf's generic events on every CPU it
# knows, for the expectations of the KUnit test "arm_pmuv3_cpu_maps"
# (drivers/perf/arm_pmuv3_test.c). Not part of make check: run it again
# only when the base changes, and paste its output over the recorded block.
#
#   harness/base-event-maps.sh     print the recorded block (C) on stdout
#
# The base driver is not run from a copy kept here: this script cuts its
# map tables and map_event functions (and the framework's armpmu_map_event)
# out of the base tree at run time, compiles them on the host against a few
# stubs, and asks them, for each DT compatible, each PMCEID profile and
# each generic hardware and cache event, which event number they choose.
# What the base decides from anything but the event and PMCEID (64-bit
# and user-access flags) is stubbed out: the test only records the choice
# of event.

. "$(dirname "$0")/lib.sh"

BASE_TREE=$(built "$HARNESS/base.sh")
DRV=$BASE_TREE/drivers/perf/arm_pmuv3.c
FWK=$BASE_TREE/drivers/perf/arm_pmu.c
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# function_of FILE NAME: a top-level function definition, return type to brace
function_of() {
	awk -v name="$2" '
	{ line[NR] = $0 }
	END {
		for (i = 1; i <= NR; i++)
			if (line[i] ~ ("(^|[ *])" name "\\(") && line[i] !~ /^[ \t]/ &&
			    line[i] !~ /;$/)
				break
		if (i > NR)
			exit 1
		start = line[i - 1] ~ /^(static )?[a-z_ ]+$/ ? i - 1 : i
		for (j = i; line[j] != "}"; j++)
			;
		for (k = start; k <= j; k++)
			print line[k]
	}' "$1" || die "no function $2 in $1"
}

# The CPU-specific map_event functions, named by PMUV3_INIT_MAP_EVENT()
map_functions() {
	sed -n 's/^PMUV3_INIT_MAP_EVENT([a-z0-9_]*, *\([a-z0-9_]*\))$/\1/p' "$DRV" | sort -u
}

{
	cat <<'EOF'
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <linux/perf_event.h>

typedef uint64_t u64;
typedef uint32_t u32;
#define BIT(n)			(1UL << (n))
#define GENMASK(h, l)		(((~0UL) << (l)) & (~0UL >> (63 - (h))))
#define GENMASK_ULL(h, l)	GENMASK(h, l)
#define ARMV8_PMUV3_MAX_COMMON_EVENTS	0x40
#define ARMPMU_EVT_64BIT		1
#define PERF_EVENT_FLAG_USER_READ_CNT	2
#define PERF_ATTACH_TASK		4

struct pmu { int type; };
struct arm_pmu { struct pmu pmu; unsigned long pmceid_bitmap[1]; };
struct perf_event {
	struct perf_event_attr attr;
	struct pmu *pmu;
	struct { unsigned long flags; } hw;
	int attach_state;
};
#define to_arm_pmu(p)		((struct arm_pmu *)(p))

static bool test_bit(int nr, const unsigned long *map)
{
	return map[0] >> nr & 1;
}

static bool armv8pmu_event_is_64bit(struct perf_event *event) { return false; }
static bool armv8pmu_event_want_user_access(struct perf_event *event) { return false; }
static bool armv8pmu_has_long_event(struct arm_pmu *cpu_pmu) { return false; }
EOF
	grep -E '^#define (HW_OP_UNSUPPORTED|C\(_x\)|CACHE_OP_UNSUPPORTED)' \
		"$BASE_TREE/include/linux/perf/arm_pmu.h"
	sed -n '/^#define PERF_MAP_ALL_UNSUPPORTED/,/^$/p;/^#define PERF_CACHE_MAP_ALL_UNSUPPORTED/,/^}$/p' \
		"$BASE_TREE/include/linux/perf/arm_pmu.h"
	grep -E '^#define ARMV8_[A-Z0-9]+_PERFCTR_|^#define ARMV8_PMU_EVTYPE_EVENT' \
		"$BASE_TREE/include/linux/perf/arm_pmuv3.h" "$DRV" | cut -d: -f2-
	for f in armpmu_map_cache_event armpmu_map_hw_event armpmu_map_raw_event \
		 armpmu_map_event; do
		function_of "$FWK" "$f"
	done
	sed -n '/^static const unsigned armv8_pmuv3_perf_map/,/^};/p' "$DRV"
	sed -n '/^static const unsigned armv8_pmuv3_perf_cache_map/,/^};/p' "$DRV"
	for f in $(map_functions); do
		sed -n "/^static const unsigned ${f%_map_event}_perf_cache_map/,/^};/p" "$DRV"
	done
	for f in __armv8_pmuv3_map_event_id __armv8_pmuv3_map_event \
		 armv8_pmuv3_map_event $(map_functions); do
		function_of "$DRV" "$f"
	done
	# compatible -> map_event, from the DT table and the init macros
	echo 'static const struct { const char *compat; int (*map)(struct perf_event *); } cpus[] = {'
	sed -n 's/^\t{\.compatible = \("[^"]*"\),[ \t]*\.data = \([a-z0-9_]*\)_pmu_init},$/\1 \2/p' "$DRV" |
	while read -r compat name; do
		map=$(sed -n "s/^PMUV3_INIT_MAP_EVENT($name, *\([a-z0-9_]*\))$/\1/p" "$DRV")
		echo "	{ $compat, ${map:-armv8_pmuv3_map_event} },"
	done
	echo '};'
	cat <<'EOF'

/* Profiles of announced common events, as the test names them */
static const struct { const char *name; uint64_t pmceid; } profiles[] = {
	{ "ALL", ~0ULL },		/* every common event 0x00-0x3f */
	{ "V80", 0xffffffffULL },	/* 0x00-0x1f: nothing in PMCEID1 */
	{ "NONE", 0 },
};

static const char *const caches[] = {
	"L1D", "L1I", "LL", "DTLB", "ITLB", "BPU", "NODE",
};

static int resolve(int (*map)(struct perf_event *), uint64_t pmceid,
		   uint32_t type, uint64_t config)
{
	struct arm_pmu cpu_pmu = { .pmu.type = 16, .pmceid_bitmap = { pmceid } };
	struct perf_event event = { .pmu = &cpu_pmu.pmu };

	event.attr.type = type;
	event.attr.config = config;
	return map(&event);
}

static void print_value(int v)
{
	if (v == -ENOENT)
		printf("NO");
	else if (v < 0)
		printf("%d", v);
	else
		printf("0x%02x", v);
}

/* One expectation table per map_event and profile: its C initializer */
static void print_table(const char *tag, int (*map)(struct perf_event *),
			uint64_t pmceid)
{
	int i, c, op, res;

	printf("static const struct test_want test_want_%s = {\n\t.hw = { ", tag);
	for (i = 0; i < PERF_COUNT_HW_MAX; i++) {
		print_value(resolve(map, pmceid, PERF_TYPE_HARDWARE, i));
		printf(i + 1 < PERF_COUNT_HW_MAX ? ", " : " },\n");
	}
	printf("\t.cache = {\n");
	for (c = 0; c < PERF_COUNT_HW_CACHE_MAX; c++) {
		printf("\t\t{ ");
		for (op = 0; op < PERF_COUNT_HW_CACHE_OP_MAX; op++) {
			printf("{ ");
			for (res = 0; res < PERF_COUNT_HW_CACHE_RESULT_MAX; res++) {
				print_value(resolve(map, pmceid, PERF_TYPE_HW_CACHE,
						    c | op << 8 | res << 16));
				printf(res + 1 < PERF_COUNT_HW_CACHE_RESULT_MAX ? ", " : " }");
			}
			printf(op + 1 < PERF_COUNT_HW_CACHE_OP_MAX ? ", " : " },");
		}
		printf("\t/* %s */\n", caches[c]);
	}
	printf("\t},\n};\n\n");
}

/* "armv8_a53_map_event" -> "a53", "armv8_pmuv3_map_event" -> "pmuv3" */
static const char *short_name(const char *fn, char *buf)
{
	strcpy(buf, fn + strlen("armv8_"));
	buf[strlen(buf) - strlen("_map_event")] = '\0';
	return buf;
}

#define NAMED(fn)	{ #fn, fn }

int main(void)
{
	static const struct { const char *name; int (*map)(struct perf_event *); } maps[] = {
		NAMED(armv8_pmuv3_map_event),
EOF
	for f in $(map_functions); do echo "		NAMED($f),"; done
	cat <<'EOF'
	};
	unsigned int m, p, i;
	char buf[64], tag[80];

	for (m = 0; m < sizeof(maps) / sizeof(maps[0]); m++)
		for (p = 0; p < 3; p++) {
			snprintf(tag, sizeof(tag), "%s_%s", short_name(maps[m].name, buf),
				 profiles[p].name);
			for (i = 0; tag[i]; i++)
				tag[i] = tag[i] >= 'A' && tag[i] <= 'Z' ? tag[i] + 32 : tag[i];
			print_table(tag, maps[m].map, profiles[p].pmceid);
		}

	printf("static const struct test_cpu_map test_cpu_maps[] = {\n");
	for (i = 0; i < sizeof(cpus) / sizeof(cpus[0]); i++) {
		for (m = 0; maps[m].map != cpus[i].map; m++)
			;
		short_name(maps[m].name, buf);
		printf("\tTEST_CPU_MAP(\"%s\", %s),\n", cpus[i].compat, buf);
	}
	printf("};\n");
	return 0;
}
EOF
} > "$WORK/base-maps.c"

gcc -O0 -w -o "$WORK/base-maps" "$WORK/base-maps.c" || die "could not build the base's maps"
echo "/* Recorded by harness/base-event-maps.sh from $BASE_DEB_PACKAGE $BASE_DEB_VERSION */"
"$WORK/base-maps"
printf "\n/* End of the recorded block */\n"
