// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for the BRBE driver's pure functions: branch_sample_type to
 * filter registers, record decoding, and the per-event software filter
 * on synthetic snapshots. Only brbe_test_write_config touches BRBE
 * registers: what brbe_write_config() leaves in them.
 *
 * Built as part of arm_brbe.c (see the end of that file) so that the
 * static functions are tested as they are.
 */

#include <kunit/test.h>

#define B(name)		PERF_SAMPLE_BRANCH_##name
#define FCR(name)	BRBFCR_EL1_##name
#define CR(name)	BRBCR_ELx_##name

/* Addresses of each half of the VA space */
#define USER_A		0x0000aaaa00001000ULL
#define USER_B		0x0000aaaa00002000ULL
#define KERN_A		0xffff800080001000ULL
#define KERN_B		0xffff800080002000ULL

/* ---- branch_sample_type classification ---- */

static int test_check(struct kunit *test, u64 bst)
{
	struct perf_event *event = kunit_kzalloc(test, sizeof(*event), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, event);
	event->attr.sample_type = PERF_SAMPLE_BRANCH_STACK;
	event->attr.branch_sample_type = bst;
	return brbe_event_check(event);
}

/* Each bit alone, beside ANY|USER so that the event is otherwise valid */
static void brbe_test_every_bit_classified(struct kunit *test)
{
	static const u64 refused = B(ABORT_TX) | B(IN_TX) | B(NO_TX) |
				   B(CALL_STACK) | B(COUNTERS);
	int shift;

	for (shift = 0; shift < PERF_SAMPLE_BRANCH_MAX_SHIFT; shift++) {
		u64 bit = BIT_ULL(shift);

		KUNIT_EXPECT_EQ_MSG(test, test_check(test, B(ANY) | B(USER) | bit),
				    bit & refused ? -EOPNOTSUPP : 0, "bit %d", shift);
	}
}

/* Bits past the ABI's are refused too, as are refused bits in company */
static void brbe_test_unknown_bits_refused(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, test_check(test, B(ANY) | B(USER) | B(MAX)), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, test_check(test, BIT_ULL(63) | B(USER)), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, test_check(test, B(ANY_CALL) | B(ANY_RETURN) | B(KERNEL) |
					 B(CALL_STACK)), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, test_check(test, B(COND) | B(USER) | B(KERNEL) | B(HV) |
					 B(TYPE_SAVE) | B(PRIV_SAVE) | B(HW_INDEX) |
					 B(NO_FLAGS) | B(NO_CYCLES)), 0);
}

/* ---- branch_sample_type x exclude bits: every acceptance and refusal ---- */

/* The event's exclude bits */
#define X_USER		BIT(0)
#define X_KERNEL	BIT(1)
#define X_HV		BIT(2)
#define X_HOST		BIT(3)
#define X_GUEST		BIT(4)

struct test_accept {
	const char *name;
	u64 bst;
	unsigned int exclude;
	int err;
};

#define NOTSUPP		-EOPNOTSUPP

static const struct test_accept test_accepts[] = {
	/* what perf record -j asks for, with the event's levels */
	{ "cycles:u -j any,u", B(ANY) | B(USER), X_KERNEL | X_HV, 0 },
	{ "cycles:k -j any,k", B(ANY) | B(KERNEL), X_USER | X_HV, 0 },
	{ "cycles -j any (u,k,hv)", B(ANY) | B(USER) | B(KERNEL) | B(HV), 0, 0 },
	{ "cycles:H -j any", B(ANY) | B(USER) | B(KERNEL), X_GUEST, 0 },
	{ "cycles:uk -j any,hv", B(ANY) | B(HV), X_HV, 0 },
	{ "every type, u", B(ANY_CALL) | B(ANY_RETURN) | B(IND_CALL) | B(IND_JUMP) |
	  B(CALL) | B(COND) | B(USER), X_KERNEL, 0 },
	{ "cond alone, u", B(COND) | B(USER), X_KERNEL, 0 },
	{ "ind_jump alone, k", B(IND_JUMP) | B(KERNEL), X_USER, 0 },
	/* no branch type: the buffer would record nothing for it */
	{ "u,no_cycles", B(USER) | B(NO_CYCLES), X_KERNEL, NOTSUPP },
	{ "u,k,hv,no_flags", B(USER) | B(KERNEL) | B(HV) | B(NO_FLAGS), 0, NOTSUPP },
	{ "save_type,priv,hw_index", B(USER) | B(TYPE_SAVE) | B(PRIV_SAVE) | B(HW_INDEX),
	  X_KERNEL, NOTSUPP },
	{ "nothing at all", 0, 0, NOTSUPP },
	/* guest-only: a guest's samples would carry the host's branches */
	{ "cycles:G -j any", B(ANY) | B(USER) | B(KERNEL), X_HOST, NOTSUPP },
	{ "cycles:Gu -j any,u", B(ANY) | B(USER), X_HOST | X_KERNEL | X_HV, NOTSUPP },
	{ "neither host nor guest", B(ANY) | B(USER), X_HOST | X_GUEST, NOTSUPP },
	/* neither user nor kernel: only a guest or a nVHE hypervisor is left */
	{ "cycles:h -j any,hv", B(ANY) | B(HV), X_USER | X_KERNEL, NOTSUPP },
	{ "exclude every level", B(ANY) | B(USER), X_USER | X_KERNEL | X_HV, NOTSUPP },
	/* bits with no BRBE equivalent, even with a type and a level */
	{ "any,u,call_stack", B(ANY) | B(USER) | B(CALL_STACK), X_KERNEL, NOTSUPP },
	{ "any,u,counters", B(ANY) | B(USER) | B(COUNTERS), X_KERNEL, NOTSUPP },
};

static int test_check_excl(struct kunit *test, u64 bst, unsigned int exclude)
{
	struct perf_event *event = kunit_kzalloc(test, sizeof(*event), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, event);
	event->attr.sample_type = PERF_SAMPLE_BRANCH_STACK;
	event->attr.branch_sample_type = bst;
	event->attr.exclude_user = !!(exclude & X_USER);
	event->attr.exclude_kernel = !!(exclude & X_KERNEL);
	event->attr.exclude_hv = !!(exclude & X_HV);
	event->attr.exclude_host = !!(exclude & X_HOST);
	event->attr.exclude_guest = !!(exclude & X_GUEST);
	return brbe_event_check(event);
}

static void brbe_test_accept_table(struct kunit *test)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(test_accepts); i++) {
		const struct test_accept *a = &test_accepts[i];

		KUNIT_EXPECT_EQ_MSG(test, test_check_excl(test, a->bst, a->exclude), a->err,
				    "%s", a->name);
	}
}

/* Each branch type alone is enough; none at all is refused whatever else is set */
static void brbe_test_type_required(struct kunit *test)
{
	static const u64 types[] = { B(ANY), B(ANY_CALL), B(ANY_RETURN), B(IND_CALL),
				     B(IND_JUMP), B(CALL), B(COND) };
	static const u64 others = B(USER) | B(KERNEL) | B(HV) | B(NO_FLAGS) |
				  B(NO_CYCLES) | B(TYPE_SAVE) | B(PRIV_SAVE) | B(HW_INDEX);
	int i;

	for (i = 0; i < ARRAY_SIZE(types); i++)
		KUNIT_EXPECT_EQ_MSG(test, test_check_excl(test, types[i] | B(USER), X_KERNEL), 0,
				    "type %d", i);
	KUNIT_EXPECT_EQ(test, test_check_excl(test, others, 0), NOTSUPP);
}

/* ---- HV: a VHE kernel's own branches, nothing under a kernel at EL1 ---- */

static void brbe_test_hv_levels(struct kunit *test)
{
	static const struct {
		const char *name;
		u64 bst;
		bool kernel_at_el2;
		u64 levels;
	} cases[] = {
		{ "hv, VHE: the kernel's", B(ANY) | B(HV), true, B(ANY) | B(HV) | B(KERNEL) },
		{ "hv, EL1: nothing", B(ANY) | B(HV), false, B(ANY) | B(HV) },
		{ "u,hv, VHE", B(COND) | B(USER) | B(HV), true,
		  B(COND) | B(USER) | B(HV) | B(KERNEL) },
		{ "u, VHE: no kernel", B(ANY) | B(USER), true, B(ANY) | B(USER) },
		{ "k, EL1", B(ANY) | B(KERNEL), false, B(ANY) | B(KERNEL) },
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++)
		KUNIT_EXPECT_EQ_MSG(test, brbe_levels(cases[i].bst, cases[i].kernel_at_el2),
				    cases[i].levels, "%s", cases[i].name);

	/* and so BRBCR_EL2 records EL2 for -j any,hv on a VHE host */
	KUNIT_EXPECT_TRUE(test, brbe_event_config(brbe_levels(B(ANY) | B(HV), true)).cr &
			  CR(ExBRE));
	KUNIT_EXPECT_FALSE(test, brbe_event_config(brbe_levels(B(ANY) | B(HV), false)).cr &
			   CR(ExBRE));
}

/* ---- Filter translation ---- */

struct test_xlate {
	const char *name;
	u64 bst;
	u64 fcr;
	u64 cr;
};

/* NO_FLAGS|NO_CYCLES leave CC and MPRED out so that only the mapping shows */
#define QUIET	(B(NO_FLAGS) | B(NO_CYCLES))

static const struct test_xlate test_xlates[] = {
	{ "any", B(ANY) | QUIET, FCR(DIRECT) | FCR(INDIRECT) | FCR(RTN) |
	  FCR(INDCALL) | FCR(DIRCALL) | FCR(CONDDIR), CR(EXCEPTION) | CR(ERTN) },
	{ "any_call", B(ANY_CALL) | QUIET, FCR(DIRCALL) | FCR(INDCALL), CR(EXCEPTION) },
	{ "any_return", B(ANY_RETURN) | QUIET, FCR(RTN), CR(ERTN) },
	{ "ind_call", B(IND_CALL) | QUIET, FCR(INDCALL), 0 },
	{ "call", B(CALL) | QUIET, FCR(DIRCALL), 0 },
	{ "ind_jump", B(IND_JUMP) | QUIET, FCR(INDIRECT), 0 },
	{ "cond", B(COND) | QUIET, FCR(CONDDIR), 0 },
	{ "user", B(USER) | QUIET, 0, CR(E0BRE) },
	{ "kernel", B(KERNEL) | QUIET, 0, BRBCR_ELx_ExBRE },
	{ "hv records nothing", B(HV) | QUIET, 0, 0 },
	{ "cycles and flags by default", 0, 0, CR(CC) | CR(MPRED) },
	{ "no_cycles", B(NO_CYCLES), 0, CR(MPRED) },
	{ "no_flags", B(NO_FLAGS), 0, CR(CC) },
	{ "save bits change no register", B(TYPE_SAVE) | B(PRIV_SAVE) | B(HW_INDEX) | QUIET,
	  0, 0 },
	{ "call,cond,u,k", B(CALL) | B(COND) | B(USER) | B(KERNEL) | QUIET,
	  FCR(DIRCALL) | FCR(CONDDIR), CR(E0BRE) | BRBCR_ELx_ExBRE },
	{ "ind_call,any_call overlap", B(IND_CALL) | B(ANY_CALL) | QUIET,
	  FCR(DIRCALL) | FCR(INDCALL), CR(EXCEPTION) },
};

static void brbe_test_filter_translation(struct kunit *test)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(test_xlates); i++) {
		const struct test_xlate *x = &test_xlates[i];
		struct brbe_config cfg = brbe_event_config(x->bst);

		KUNIT_EXPECT_EQ_MSG(test, cfg.fcr, x->fcr, "%s", x->name);
		KUNIT_EXPECT_EQ_MSG(test, cfg.cr, x->cr, "%s", x->name);
		/* EnI stays clear: the bits name what is recorded */
		KUNIT_EXPECT_FALSE_MSG(test, cfg.fcr & FCR(EnI), "%s", x->name);
	}
}

/* The seed's case: cycles:u and instructions:k both get recorded */
static void brbe_test_merge_unions(struct kunit *test)
{
	struct brbe_config cfg = { };

	brbe_config_merge(&cfg, B(ANY) | B(USER) | B(TYPE_SAVE));
	brbe_config_merge(&cfg, B(ANY) | B(KERNEL) | B(TYPE_SAVE));
	KUNIT_EXPECT_EQ(test, cfg.cr & (CR(E0BRE) | BRBCR_ELx_ExBRE), CR(E0BRE) | BRBCR_ELx_ExBRE);

	/* One event wanting cycles keeps them on for the buffer */
	cfg = (struct brbe_config) { };
	brbe_config_merge(&cfg, B(COND) | B(USER) | QUIET);
	KUNIT_EXPECT_EQ(test, cfg.cr, CR(E0BRE));
	brbe_config_merge(&cfg, B(CALL) | B(USER) | B(NO_FLAGS));
	KUNIT_EXPECT_EQ(test, cfg.cr, CR(E0BRE) | CR(CC));
	KUNIT_EXPECT_EQ(test, cfg.fcr, FCR(CONDDIR) | FCR(DIRCALL));
}

/* ---- Record decoding ---- */

#define INF(type, el, valid)							\
	(BRBINFx_EL1_TYPE_##type << BRBINFx_EL1_TYPE_SHIFT |			\
	 (u64)(el) << BRBINFx_EL1_EL_SHIFT |					\
	 BRBINFx_EL1_VALID_##valid << BRBINFx_EL1_VALID_SHIFT)

struct test_type {
	u64 enc;
	u8 type;
	u8 new_type;
	u16 sel;
};

#define TT(enc, t, nt, s) { BRBINFx_EL1_TYPE_##enc, PERF_BR_##t, nt, s }

static const struct test_type test_types[] = {
	TT(DIRECT_UNCOND, UNCOND, 0, 0),
	TT(INDIRECT, IND, 0, B(IND_JUMP)),
	TT(DIRECT_LINK, CALL, 0, B(CALL) | B(ANY_CALL)),
	TT(INDIRECT_LINK, IND_CALL, 0, B(IND_CALL) | B(ANY_CALL)),
	TT(RET, RET, 0, B(ANY_RETURN)),
	TT(ERET, ERET, 0, B(ANY_RETURN)),
	TT(DIRECT_COND, COND, 0, B(COND)),
	TT(CALL, SYSCALL, 0, B(ANY_CALL)),
	TT(TRAP, IRQ, 0, B(ANY_CALL)),
	TT(IRQ, IRQ, 0, B(ANY_CALL)),
	TT(FIQ, EXTEND_ABI, PERF_BR_ARM64_FIQ, B(ANY_CALL)),
	TT(SERROR, SERROR, 0, B(ANY_CALL)),
	TT(ALIGN_FAULT, EXTEND_ABI, PERF_BR_NEW_FAULT_ALGN, B(ANY_CALL)),
	TT(INSN_FAULT, EXTEND_ABI, PERF_BR_NEW_FAULT_INST, B(ANY_CALL)),
	TT(DATA_FAULT, EXTEND_ABI, PERF_BR_NEW_FAULT_DATA, B(ANY_CALL)),
	TT(INSN_DEBUG, EXTEND_ABI, PERF_BR_ARM64_DEBUG_INST, B(ANY_CALL)),
	TT(DATA_DEBUG, EXTEND_ABI, PERF_BR_ARM64_DEBUG_DATA, B(ANY_CALL)),
	TT(DEBUG_HALT, EXTEND_ABI, PERF_BR_ARM64_DEBUG_HALT, B(ANY_CALL)),
	TT(DEBUG_EXIT, EXTEND_ABI, PERF_BR_ARM64_DEBUG_EXIT, B(ANY_RETURN)),
	TT(IMPDEF_TRAP_EL3, UNKNOWN, 0, 0),
};

/* Every one of the 64 encodings: the named ones, the rest unknown */
static void brbe_test_decode_every_type(struct kunit *test)
{
	unsigned int enc, i, named = 0;

	for (enc = 0; enc < 64; enc++) {
		u64 inf = FIELD_PREP(BRBINFx_EL1_TYPE_MASK, enc) | BRBINFx_EL1_VALID_FULL;
		const struct test_type *want = NULL;
		struct brbe_record rec;

		for (i = 0; i < ARRAY_SIZE(test_types); i++)
			if (test_types[i].enc == enc)
				want = &test_types[i];
		KUNIT_ASSERT_TRUE(test, brbe_decode(inf, USER_A, USER_B, false, &rec));
		KUNIT_EXPECT_EQ_MSG(test, (unsigned int)rec.entry.type,
				    want ? want->type : PERF_BR_UNKNOWN, "type 0x%x", enc);
		KUNIT_EXPECT_EQ_MSG(test, (unsigned int)rec.entry.new_type,
				    want ? want->new_type : 0, "type 0x%x", enc);
		KUNIT_EXPECT_EQ_MSG(test, rec.sel, want ? want->sel : 0, "type 0x%x", enc);
		named += want != NULL;
	}
	KUNIT_EXPECT_EQ(test, named, ARRAY_SIZE(test_types));
}

static void brbe_test_decode_valid(struct kunit *test)
{
	struct brbe_record rec;

	KUNIT_EXPECT_FALSE(test, brbe_decode(INF(RET, 0, NONE), USER_A, USER_B, false, &rec));

	KUNIT_ASSERT_TRUE(test, brbe_decode(INF(RET, 0, FULL), USER_A, USER_B, false, &rec));
	KUNIT_EXPECT_EQ(test, rec.entry.from, USER_A);
	KUNIT_EXPECT_EQ(test, rec.entry.to, USER_B);

	KUNIT_ASSERT_TRUE(test, brbe_decode(INF(CALL, 1, SOURCE), USER_A, KERN_B, false, &rec));
	KUNIT_EXPECT_EQ(test, rec.entry.from, USER_A);
	KUNIT_EXPECT_EQ(test, rec.entry.to, 0);

	KUNIT_ASSERT_TRUE(test, brbe_decode(INF(ERET, 0, TARGET), KERN_A, USER_B, false, &rec));
	KUNIT_EXPECT_EQ(test, rec.entry.from, 0);
	KUNIT_EXPECT_EQ(test, rec.entry.to, USER_B);
}

static void brbe_test_decode_el(struct kunit *test)
{
	static const struct {
		unsigned int el;
		bool kernel_at_el2;
		u8 priv;
	} cases[] = {
		{ 0, false, PERF_BR_PRIV_USER },
		{ 1, false, PERF_BR_PRIV_KERNEL },
		{ 2, false, PERF_BR_PRIV_HV },
		{ 2, true, PERF_BR_PRIV_KERNEL },
		{ 0, true, PERF_BR_PRIV_USER },
		{ 3, false, PERF_BR_PRIV_UNKNOWN },
		{ 3, true, PERF_BR_PRIV_UNKNOWN },
	};
	struct brbe_record rec;
	int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		KUNIT_ASSERT_TRUE(test, brbe_decode(INF(DIRECT_UNCOND, cases[i].el, FULL),
						    USER_A, USER_B, cases[i].kernel_at_el2,
						    &rec));
		KUNIT_EXPECT_EQ_MSG(test, (unsigned int)rec.entry.priv, cases[i].priv,
				    "case %d", i);
	}
}

/* A valid record whose CC has exponent e and mantissa m */
#define test_cc(e, m)								\
	((((u64)(e) << 8 | (m)) << BRBINFx_EL1_CC_SHIFT) | BRBINFx_EL1_VALID_FULL)

static void brbe_test_decode_cycles(struct kunit *test)
{
	static const struct {
		u64 inf;
		u16 cycles;
	} cases[] = {
		{ BRBINFx_EL1_VALID_FULL, 0 },
		{ test_cc(0, 1), 1 },
		{ test_cc(0, 255), 255 },
		{ test_cc(1, 0), 256 },
		{ test_cc(1, 255), 511 },
		{ test_cc(2, 0x80), 0x180 << 1 },
		{ test_cc(8, 0xff), 0x1ff << 7 },	/* the largest that fits */
		{ test_cc(9, 0), U16_MAX },
		{ test_cc(12, 0xff), U16_MAX },		/* 20 bits */
		{ test_cc(0x3f, 0xff), U16_MAX },	/* saturated */
		/* CCU: no count (first record, or counting off) */
		{ test_cc(0, 5) | BRBINFx_EL1_CCU, 0 },
	};
	struct brbe_record rec;
	int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		KUNIT_ASSERT_TRUE(test, brbe_decode(cases[i].inf, USER_A, USER_B, false, &rec));
		KUNIT_EXPECT_EQ_MSG(test, (unsigned int)rec.entry.cycles, cases[i].cycles,
				    "case %d", i);
	}
}

static void brbe_test_decode_mpred(struct kunit *test)
{
	struct brbe_record rec;

	KUNIT_ASSERT_TRUE(test, brbe_decode(INF(DIRECT_COND, 0, FULL) | BRBINFx_EL1_MPRED,
					    USER_A, USER_B, false, &rec));
	KUNIT_EXPECT_EQ(test, (unsigned int)rec.entry.mispred, 1);
	KUNIT_EXPECT_EQ(test, (unsigned int)rec.entry.predicted, 0);
	KUNIT_ASSERT_TRUE(test, brbe_decode(INF(DIRECT_COND, 0, FULL),
					    USER_A, USER_B, false, &rec));
	KUNIT_EXPECT_EQ(test, (unsigned int)rec.entry.mispred, 0);
	KUNIT_EXPECT_EQ(test, (unsigned int)rec.entry.predicted, 1);
}

/* A cycle count of m alone, VALID left to the record */
#define CC_RAW(m)	((u64)(m) << BRBINFx_EL1_CC_SHIFT)

/*
 * A half record gives only its own side's fields: EL (priv) is the
 * target's, MPRED the source's; TYPE and CC the whole record's.
 */
static void brbe_test_decode_half_records(struct kunit *test)
{
	static const struct {
		const char *name;
		u64 inf;
		u64 src, tgt;
		u8 priv, mispred, predicted;
		u16 cycles;
		u8 type;
	} cases[] = {
		{ "full, mispredicted", INF(CALL, 1, FULL) | BRBINFx_EL1_MPRED | CC_RAW(5),
		  USER_A, KERN_A, PERF_BR_PRIV_KERNEL, 1, 0, 5, PERF_BR_SYSCALL },
		{ "full, predicted", INF(RET, 0, FULL) | CC_RAW(6), USER_A, USER_B,
		  PERF_BR_PRIV_USER, 0, 1, 6, PERF_BR_RET },
		/* user to an unrecorded kernel: EL names the kernel's level, absent */
		{ "source only, mispredicted", INF(CALL, 1, SOURCE) | BRBINFx_EL1_MPRED |
		  CC_RAW(7), USER_A, KERN_A, PERF_BR_PRIV_UNKNOWN, 1, 0, 7, PERF_BR_SYSCALL },
		{ "source only, predicted", INF(DIRECT_LINK, 2, SOURCE) | CC_RAW(8),
		  USER_A, KERN_A, PERF_BR_PRIV_UNKNOWN, 0, 1, 8, PERF_BR_CALL },
		/* an unrecorded kernel's return to user: no prediction of its own */
		{ "target only, MPRED set", INF(ERET, 0, TARGET) | BRBINFx_EL1_MPRED |
		  CC_RAW(9), KERN_A, USER_B, PERF_BR_PRIV_USER, 0, 0, 9, PERF_BR_ERET },
		{ "target only, MPRED clear", INF(ERET, 1, TARGET) | CC_RAW(10),
		  USER_A, KERN_B, PERF_BR_PRIV_KERNEL, 0, 0, 10, PERF_BR_ERET },
	};
	struct brbe_record rec;
	int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		KUNIT_ASSERT_TRUE(test, brbe_decode(cases[i].inf, cases[i].src, cases[i].tgt,
						    false, &rec));
		KUNIT_EXPECT_EQ_MSG(test, (unsigned int)rec.entry.priv, cases[i].priv,
				    "%s", cases[i].name);
		KUNIT_EXPECT_EQ_MSG(test, (unsigned int)rec.entry.mispred, cases[i].mispred,
				    "%s", cases[i].name);
		KUNIT_EXPECT_EQ_MSG(test, (unsigned int)rec.entry.predicted, cases[i].predicted,
				    "%s", cases[i].name);
		KUNIT_EXPECT_EQ_MSG(test, (unsigned int)rec.entry.cycles, cases[i].cycles,
				    "%s", cases[i].name);
		KUNIT_EXPECT_EQ_MSG(test, (unsigned int)rec.entry.type, cases[i].type,
				    "%s", cases[i].name);
	}
}

/* ---- The software filter on a synthetic snapshot ---- */

enum {
	SNAP_USER_COND,		/* user to user, conditional */
	SNAP_USER_CALL,		/* user to user, BL */
	SNAP_SVC,		/* user to kernel, SVC */
	SNAP_KERN_CALL,		/* kernel to kernel, BL */
	SNAP_KERN_RET,		/* kernel to kernel, RET */
	SNAP_ERET,		/* kernel to user */
	SNAP_USER_IND,		/* user to user, BR */
	SNAP_NR
};

static void test_snapshot(struct kunit *test, struct brbe_record *snap)
{
	static const struct {
		u64 inf;
		u64 src, tgt;
	} raw[SNAP_NR] = {
		[SNAP_USER_COND] = { INF(DIRECT_COND, 0, FULL) | test_cc(0, 7), USER_A, USER_B },
		[SNAP_USER_CALL] = { INF(DIRECT_LINK, 0, FULL) | BRBINFx_EL1_MPRED,
				     USER_B, USER_A },
		[SNAP_SVC] = { INF(CALL, 1, FULL), USER_A, KERN_A },
		[SNAP_KERN_CALL] = { INF(DIRECT_LINK, 1, FULL), KERN_A, KERN_B },
		[SNAP_KERN_RET] = { INF(RET, 1, FULL), KERN_B, KERN_A },
		[SNAP_ERET] = { INF(ERET, 0, FULL), KERN_A, USER_B },
		[SNAP_USER_IND] = { INF(INDIRECT, 0, FULL), USER_B, USER_A },
	};
	int i;

	for (i = 0; i < SNAP_NR; i++)
		KUNIT_ASSERT_TRUE(test, brbe_decode(raw[i].inf, raw[i].src, raw[i].tgt,
						    false, &snap[i]));
}

static bool test_any_kernel_addr(const struct perf_branch_entry *e, unsigned int n)
{
	while (n--) {
		if ((e[n].from | e[n].to) & BIT_ULL(55))
			return true;
	}
	return false;
}

static bool test_any_user_addr(const struct perf_branch_entry *e, unsigned int n)
{
	while (n--) {
		if ((e[n].from && !(e[n].from & BIT_ULL(55))) ||
		    (e[n].to && !(e[n].to & BIT_ULL(55))))
			return true;
	}
	return false;
}

/* A user-only event never gets a kernel address, whoever asked for them */
static void brbe_test_filter_user_only(struct kunit *test)
{
	struct brbe_record snap[SNAP_NR];
	struct perf_branch_entry out[SNAP_NR];
	u64 hw_idx;
	unsigned int n;

	test_snapshot(test, snap);
	n = brbe_filter(snap, SNAP_NR, B(ANY) | B(USER) | B(TYPE_SAVE), out, &hw_idx);
	/* the two kernel-only records go, the SVC and ERET keep their user side */
	KUNIT_ASSERT_EQ(test, n, SNAP_NR - 2);
	KUNIT_EXPECT_FALSE(test, test_any_kernel_addr(out, n));
	KUNIT_EXPECT_EQ(test, hw_idx, 0);
	KUNIT_EXPECT_EQ(test, (unsigned int)out[2].type, PERF_BR_SYSCALL);
	KUNIT_EXPECT_EQ(test, out[2].from, USER_A);
	KUNIT_EXPECT_EQ(test, out[2].to, 0);
	KUNIT_EXPECT_EQ(test, (unsigned int)out[3].type, PERF_BR_ERET);
	KUNIT_EXPECT_EQ(test, out[3].from, 0);
	KUNIT_EXPECT_EQ(test, out[3].to, USER_B);
}

static void brbe_test_filter_kernel_only(struct kunit *test)
{
	struct brbe_record snap[SNAP_NR];
	struct perf_branch_entry out[SNAP_NR];
	u64 hw_idx;
	unsigned int n;

	test_snapshot(test, snap);
	n = brbe_filter(snap, SNAP_NR, B(ANY) | B(KERNEL), out, &hw_idx);
	KUNIT_ASSERT_EQ(test, n, 4);
	KUNIT_EXPECT_FALSE(test, test_any_user_addr(out, n));
	/* the newest record given is the SVC, third in the buffer */
	KUNIT_EXPECT_EQ(test, hw_idx, SNAP_SVC);
	KUNIT_EXPECT_EQ(test, out[0].to, KERN_A);
	KUNIT_EXPECT_EQ(test, out[0].from, 0);
}

struct test_type_filter {
	const char *name;
	u64 bst;
	unsigned long want;	/* bit i: snapshot record i is given */
};

#define UK	(B(USER) | B(KERNEL))

static const struct test_type_filter test_type_filters[] = {
	{ "any", B(ANY) | UK, GENMASK(SNAP_NR - 1, 0) },
	{ "cond", B(COND) | UK, BIT(SNAP_USER_COND) },
	{ "call", B(CALL) | UK, BIT(SNAP_USER_CALL) | BIT(SNAP_KERN_CALL) },
	{ "any_call", B(ANY_CALL) | UK,
	  BIT(SNAP_USER_CALL) | BIT(SNAP_SVC) | BIT(SNAP_KERN_CALL) },
	{ "any_return", B(ANY_RETURN) | UK, BIT(SNAP_KERN_RET) | BIT(SNAP_ERET) },
	{ "ind_jump", B(IND_JUMP) | UK, BIT(SNAP_USER_IND) },
	{ "ind_call", B(IND_CALL) | UK, 0 },
	{ "call,cond,u", B(CALL) | B(COND) | B(USER), BIT(SNAP_USER_COND) | BIT(SNAP_USER_CALL) },
	{ "any_return,u", B(ANY_RETURN) | B(USER), BIT(SNAP_ERET) },
	{ "no level", B(ANY), 0 },
};

/* @e is @rec, with perhaps one address hidden (0) by the level filter */
static bool test_same_record(const struct perf_branch_entry *e,
			     const struct perf_branch_entry *rec)
{
	return (e->from == rec->from || !e->from) && (e->to == rec->to || !e->to) &&
	       (e->from || e->to);
}

static void brbe_test_filter_types(struct kunit *test)
{
	struct brbe_record snap[SNAP_NR];
	struct perf_branch_entry out[SNAP_NR];
	unsigned int i, j, k, n;
	u64 hw_idx;

	test_snapshot(test, snap);
	for (i = 0; i < ARRAY_SIZE(test_type_filters); i++) {
		const struct test_type_filter *f = &test_type_filters[i];
		unsigned long want = f->want;

		n = brbe_filter(snap, SNAP_NR, f->bst, out, &hw_idx);
		KUNIT_EXPECT_EQ_MSG(test, n, hweight_long(want), "%s", f->name);
		KUNIT_EXPECT_EQ_MSG(test, hw_idx, want ? (u64)__ffs(want) : -1ULL,
				    "%s", f->name);
		/* the records given are the wanted ones, in buffer order */
		j = 0;
		for_each_set_bit(k, &want, SNAP_NR) {
			if (j >= n)
				break;
			KUNIT_EXPECT_TRUE_MSG(test, test_same_record(&out[j], &snap[k].entry),
					      "%s, record %u", f->name, k);
			j++;
		}
	}
}

/*
 * Type and privilege go out whether or not the event asked (as mainline);
 * the flags and cycles it declined are clear.
 */
static void brbe_test_filter_fields(struct kunit *test)
{
	struct brbe_record snap[SNAP_NR];
	struct perf_branch_entry out[SNAP_NR];
	u64 hw_idx;

	test_snapshot(test, snap);
	KUNIT_ASSERT_EQ(test, brbe_filter(snap, 2, B(ANY) | B(USER), out, &hw_idx), 2);
	KUNIT_EXPECT_EQ(test, (unsigned int)out[0].type, PERF_BR_COND);
	KUNIT_EXPECT_EQ(test, (unsigned int)out[0].priv, PERF_BR_PRIV_USER);
	KUNIT_EXPECT_EQ(test, (unsigned int)out[0].cycles, 7);
	KUNIT_EXPECT_EQ(test, (unsigned int)out[0].predicted, 1);
	KUNIT_EXPECT_EQ(test, (unsigned int)out[1].mispred, 1);

	KUNIT_ASSERT_EQ(test, brbe_filter(snap, 2, B(ANY) | B(USER) | B(TYPE_SAVE) |
					  B(PRIV_SAVE) | B(NO_FLAGS) | B(NO_CYCLES),
					  out, &hw_idx), 2);
	KUNIT_EXPECT_EQ(test, (unsigned int)out[0].type, PERF_BR_COND);
	KUNIT_EXPECT_EQ(test, (unsigned int)out[0].priv, PERF_BR_PRIV_USER);
	KUNIT_EXPECT_EQ(test, (unsigned int)out[0].cycles, 0);
	KUNIT_EXPECT_EQ(test, (unsigned int)out[0].predicted, 0);
	KUNIT_EXPECT_EQ(test, (unsigned int)out[1].mispred, 0);
	KUNIT_EXPECT_EQ(test, (unsigned int)out[1].type, PERF_BR_CALL);
}

/*
 * A side the event may not see takes its fields along, as in a half
 * record: a user-only event's SVC has no level (the kernel's), its ERET
 * no prediction (the kernel's branch).
 */
static void brbe_test_filter_hidden_side(struct kunit *test)
{
	struct brbe_record snap[SNAP_NR];
	struct perf_branch_entry out[SNAP_NR];
	u64 hw_idx;
	unsigned int n;

	test_snapshot(test, snap);
	n = brbe_filter(snap, SNAP_NR, B(ANY) | B(USER) | B(PRIV_SAVE), out, &hw_idx);
	KUNIT_ASSERT_EQ(test, n, SNAP_NR - 2);
	/* out[2] is the SVC, out[3] the ERET (brbe_test_filter_user_only()) */
	KUNIT_EXPECT_EQ(test, out[2].to, 0);
	KUNIT_EXPECT_EQ(test, (unsigned int)out[2].priv, PERF_BR_PRIV_UNKNOWN);
	KUNIT_EXPECT_EQ(test, (unsigned int)out[2].predicted, 1);
	KUNIT_EXPECT_EQ(test, out[3].from, 0);
	KUNIT_EXPECT_EQ(test, (unsigned int)out[3].priv, PERF_BR_PRIV_USER);
	KUNIT_EXPECT_EQ(test, (unsigned int)out[3].mispred, 0);
	KUNIT_EXPECT_EQ(test, (unsigned int)out[3].predicted, 0);
	/* the full user records keep everything */
	KUNIT_EXPECT_EQ(test, (unsigned int)out[0].priv, PERF_BR_PRIV_USER);
	KUNIT_EXPECT_EQ(test, (unsigned int)out[0].predicted, 1);
}

/* -j any,hv on a VHE host gets the kernel's records; under a kernel at EL1 none */
static void brbe_test_filter_hv(struct kunit *test)
{
	struct brbe_record snap[SNAP_NR];
	struct perf_branch_entry out[SNAP_NR];
	u64 hw_idx;

	test_snapshot(test, snap);
	KUNIT_EXPECT_EQ(test, brbe_filter(snap, SNAP_NR, brbe_levels(B(ANY) | B(HV), true),
					  out, &hw_idx), 4);
	KUNIT_EXPECT_FALSE(test, test_any_user_addr(out, 4));
	KUNIT_EXPECT_EQ(test, brbe_filter(snap, SNAP_NR, brbe_levels(B(ANY) | B(HV), false),
					  out, &hw_idx), 0);
}

/* ---- The control registers as brbe_write_config() leaves them ---- */

/*
 * TS holds a value the architecture defines (0b00 is reserved), and a VHE
 * kernel's BRBCR_EL12 has CC and MPRED as BRBCR_EL2 has them, without
 * its levels: the guest's EL0 and EL1 stay prohibited.
 */
static void brbe_test_write_config(struct kunit *test)
{
	struct brbe_config cfg = {
		.cr = CR(E0BRE) | CR(CC) | CR(MPRED),
		.fcr = FCR(DIRECT),
	};
	u64 levels = CR(E0BRE) | BRBCR_ELx_ExBRE | CR(CC) | CR(MPRED);
	u64 cr, cr12 = 0;

	preempt_disable();
	if (!this_cpu_read(brbe_cpu.numrec)) {
		preempt_enable();
		kunit_skip(test, "no BRBE on this CPU");
	}
	brbe_write_config(&cfg);
	cr = read_sysreg_s(SYS_BRBCR_EL1);
	if (is_kernel_in_hyp_mode())
		cr12 = read_sysreg_s(SYS_BRBCR_EL12);
	/* Back to what the scheduled events asked for */
	brbe_write_config(this_cpu_ptr(&brbe_cpu.cfg));
	preempt_enable();

	/* Named values: KUnit prints the expressions it compares */
	cr = FIELD_GET(BRBCR_ELx_TS_MASK, cr) << 8 | (cr & levels);
	KUNIT_EXPECT_EQ(test, cr, BRBCR_ELx_TS_VIRTUAL << 8 | CR(E0BRE) | CR(CC) | CR(MPRED));
	if (!is_kernel_in_hyp_mode())
		return;
	cr12 = FIELD_GET(BRBCR_ELx_TS_MASK, cr12) << 8 | (cr12 & levels);
	KUNIT_EXPECT_EQ(test, cr12, BRBCR_ELx_TS_VIRTUAL << 8 | CR(CC) | CR(MPRED));
}

/*
 * A freeze whose overflow interrupt never came (its event was deleted
 * with interrupts masked): the next enable of the same set of branch
 * events must restart the buffer, or every stack left is empty.
 */
static void brbe_test_lost_freeze_thawed(struct kunit *test)
{
	struct brbe_config cfg = { .cr = CR(E0BRE), .fcr = FCR(DIRECT) };
	struct pmu_hw_events *cpuc;
	struct brbe_config old_cfg;
	unsigned int old_users;
	bool old_changed, old_parked, old_snapped;
	struct brbe_cpu *bc;
	unsigned long flags;
	u64 fcr;

	cpuc = kunit_kzalloc(test, sizeof(*cpuc), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, cpuc);
	local_irq_save(flags);
	bc = this_cpu_ptr(&brbe_cpu);
	if (!bc->numrec) {
		local_irq_restore(flags);
		kunit_skip(test, "no BRBE on this CPU");
	}
	old_users = bc->users;
	old_changed = bc->changed;
	old_parked = bc->parked;
	old_snapped = bc->snapped;
	old_cfg = bc->cfg;

	/* One branch event programmed, then the freeze of an overflow */
	bc->users = 1;
	bc->changed = false;
	bc->parked = false;
	bc->snapped = false;
	bc->cfg = cfg;
	brbe_write_config(&cfg);
	write_sysreg_s(cfg.fcr | BRBFCR_EL1_PAUSED, SYS_BRBFCR_EL1);
	isb();
	brbe_enable(cpuc);
	isb();
	fcr = read_sysreg_s(SYS_BRBFCR_EL1);

	bc->users = old_users;
	bc->changed = old_changed;
	bc->parked = old_parked;
	bc->snapped = old_snapped;
	bc->cfg = old_cfg;
	brbe_write_config(&old_cfg);
	if (old_parked)
		write_sysreg_s(old_cfg.fcr | BRBFCR_EL1_PAUSED, SYS_BRBFCR_EL1);
	isb();
	local_irq_restore(flags);

	KUNIT_EXPECT_EQ(test, fcr, cfg.fcr);
}

/*
 * bpf_get_branch_snapshot() from a pseudo-NMI: the handler runs with I
 * and F set and A clear, and must get exactly that back. With priority
 * masking, local_daif_restore() would clear I there (PMR at
 * GIC_PRIO_IRQOFF) and let another NMI nest.
 */
static void brbe_test_snapshot_keeps_daif(struct kunit *test)
{
	struct perf_branch_entry entries[4];
	unsigned long flags, daif, before, after;

	local_irq_save(flags);
	daif = read_sysreg(daif);
	asm volatile("msr daifset, #0x3\n\tmsr daifclr, #0x4" : : : "memory");
	before = read_sysreg(daif);
	brbe_branch_snapshot(entries, ARRAY_SIZE(entries));
	after = read_sysreg(daif);
	write_sysreg(daif, daif);
	local_irq_restore(flags);

	KUNIT_EXPECT_EQ(test, before & (PSR_A_BIT | PSR_I_BIT | PSR_F_BIT),
			(unsigned long)(PSR_I_BIT | PSR_F_BIT));
	KUNIT_EXPECT_EQ(test, after, before);
}

static struct kunit_case brbe_test_cases[] = {
	KUNIT_CASE(brbe_test_every_bit_classified),
	KUNIT_CASE(brbe_test_unknown_bits_refused),
	KUNIT_CASE(brbe_test_accept_table),
	KUNIT_CASE(brbe_test_type_required),
	KUNIT_CASE(brbe_test_hv_levels),
	KUNIT_CASE(brbe_test_filter_translation),
	KUNIT_CASE(brbe_test_merge_unions),
	KUNIT_CASE(brbe_test_decode_every_type),
	KUNIT_CASE(brbe_test_decode_valid),
	KUNIT_CASE(brbe_test_decode_el),
	KUNIT_CASE(brbe_test_decode_cycles),
	KUNIT_CASE(brbe_test_decode_mpred),
	KUNIT_CASE(brbe_test_decode_half_records),
	KUNIT_CASE(brbe_test_filter_user_only),
	KUNIT_CASE(brbe_test_filter_kernel_only),
	KUNIT_CASE(brbe_test_filter_types),
	KUNIT_CASE(brbe_test_filter_fields),
	KUNIT_CASE(brbe_test_filter_hidden_side),
	KUNIT_CASE(brbe_test_filter_hv),
	KUNIT_CASE(brbe_test_write_config),
	KUNIT_CASE(brbe_test_lost_freeze_thawed),
	KUNIT_CASE(brbe_test_snapshot_keeps_daif),
	{}
};

static struct kunit_suite brbe_test_suite = {
	.name = "arm_brbe",
	.test_cases = brbe_test_cases,
};

kunit_test_suite(brbe_test_suite);
