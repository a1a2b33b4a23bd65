// SPDX-License-Identifier: GPL-2.0
/*
 * A QEMU TCG plugin for harness/bench.sh: counts what the guest kernel
 * executes between two markers that a benchmark program places around its
 * operations, so that a path's cost can be given in system-register
 * accesses (the expensive part on hardware) as well as in instructions.
 *
 * Counted, for every executed instruction whose virtual address has bit 63
 * set (the kernel half: TTBR1, EL1 or VHE EL2; user space and the early
 * boot code with the MMU off live in the lower half; so would nVHE's hyp
 * code, which this does not count):
 *
 *	insns	every instruction
 *	mrs	MRS Xt, <sysreg>		(A64: 1101 0101 0011 ... op0 2/3)
 *	msr	MSR <sysreg>, Xt		(A64: 1101 0101 0001 ... op0 2/3)
 *	isb	ISB				(A64: 1101 0101 0000 0011 0011 xxxx 110 11111)
 *	pmu	the MRS/MSR above whose register is a PMUv3 one (PM*_EL0,
 *		PMEVCNTR<n>/PMEVTYPER<n>_EL0, PMINTEN{SET,CLR}_EL1, PMMIR_EL1)
 *	brbe	the MRS/MSR above whose register is a BRBE one: the records
 *		BRBINF/BRBSRC/BRBTGT<n>_EL1 (op0 2, op1 1, CRn 8) and the
 *		controls BRBCR/BRBFCR/BRBTS/BRB*INJ/BRBIDR0_EL1, BRBCR_EL2 and
 *		BRBCR_EL12 (op0 2, op1 1, 4 or 5, CRn 9), as
 *		arch/arm64/tools/sysreg encodes them; not the BRB IALL/INJ
 *		instructions (SYS, op0 1)
 *
 * The MSR (immediate) form (PSTATE fields, e.g. DAIFSet) and the SYS/SYSL
 * instructions (op0 1: TLBI, DC, AT) are neither mrs nor msr.
 *
 * Markers: the benchmark executes HINT #0x7e (an unallocated hint, a NOP
 * on any CPU and when the plugin is not loaded) in user space with a
 * command in x0:
 *
 *	x0 = 1	begin: remember the current counts
 *	x0 = 2	end: freeze the counts since begin
 *	x0 = 3	emit: x1 = address of a NUL-terminated label (at most 63
 *		bytes, in a page that is present), x2 = the number of
 *		operations; appends to the output file the line
 *
 *		sysreg: <label> ops=<x2> insns=<n> mrs=<n> msr=<n> isb=<n> pmu=<n> brbe=<n>
 *
 * end and emit are separate so that a program can count its operations
 * after the measured window (e.g. context switches from getrusage()).
 *
 * Arguments: out=<file> (required: where emit appends), pcs=on (a profile
 * for mapping to kernel symbols; slower: also list, after each emitted
 * line, every kernel MRS/MSR/ISB executed in the window with its address,
 * encoding and count, "sysreg-pc: <label> <vaddr> <insn> <count>", and
 * every kernel translation block entered, with its start address, its
 * number of instructions and how often it ran, "sysreg-tb: <label> <vaddr>
 * <insns> <count>": a block left early by an exception counts in full).
 *
 * Counts are for vCPU 0 only: bench.sh boots with -smp 1.
 *
 * owner=on (instead of counting): check where code at EL2 hands the
 * Statistical Profiling buffer between owners, for harness/boot-suite.sh's
 * SPE_OWNER=1. The buffer writes through its owner's translation regime
 * (MDCR_EL2.E2PB: 0b00 EL2, else EL1), so a hypervisor must enable a
 * buffer only under the regime that owns it, and disable it before that
 * regime takes another context's tables: an enabled buffer, not stopped
 * and not in discard mode, may translate speculatively for its owning
 * regime even out of context (Arm ARM known issue D23136). Three rules,
 * for any vCPU:
 *
 *	owner	MDCR_EL2 never changes the owner while the buffer is enabled
 *		(PMBLIMITR_EL1.E) and EL1 sampling is on (PMSCR_EL1.E0SPE or
 *		E1SPE): a guest's buffer enabled before EL1 owns it
 *	ttbr	no EL1 TTBR is loaded at EL2 (TTBR0/1_EL1 with HCR_EL2.E2H
 *		clear, TTBR0/1_EL12) after the buffer was enabled at EL2 and
 *		before the next ERET: a nVHE host's buffer enabled before its
 *		own TTBRs are back
 *	regime	no EL1 TTBR is loaded at EL2 while an EL1-owned buffer is
 *		enabled and not in discard mode (PMBLIMITR_EL1.FM 0b10): a
 *		nVHE host's buffer left enabled while a guest's tables load
 *
 * with the registers as last written by MSR at any EL (PMSCR_EL1 at EL1,
 * at EL2 with E2H clear, or as PMSCR_EL12). At exit the output file gets
 * "spe-owner: changes=<n> enables=<n> violations=<n>" (owner changes and
 * EL2 buffer enables seen, so that a run that checked nothing shows) and
 * "spe-owner-violation: <rule> <vaddr>" for each violation.
 */
#include <glib.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

#define MARKER		(0xd503201fu | (0x7eu << 5))	/* HINT #0x7e */
#define CMD_BEGIN	1
#define CMD_END		2
#define CMD_EMIT	3
#define LABEL_MAX	64

struct counts {
	uint64_t insns, mrs, msr, isb, pmu, brbe;
};

/* what a kernel instruction adds beside insns */
enum kind { K_OTHER, K_MRS, K_MSR, K_ISB };

/*
 * For pcs=on: one kernel MRS/MSR/ISB (insn is its encoding, ninsns 0) or
 * one kernel translation block (insn 0, ninsns its length). The same
 * address can hold several: text patched at run time, and blocks cut short
 * by icount.
 */
struct site {
	uint64_t vaddr;
	uint32_t insn, ninsns;
	uint64_t count, at_begin, window;
};

static struct qemu_plugin_scoreboard *board;
static qemu_plugin_u64 c_insns, c_mrs, c_msr, c_isb, c_pmu, c_brbe;
static struct counts begin, window;
static FILE *out;
static bool pcs;
static GHashTable *sites;		/* struct site (its key part) -> itself */
static GMutex sites_lock;
static struct qemu_plugin_register *reg_x[3];

/* owner=on */
#define OWNER_VCPUS	8
#define ERET		0xd69f03e0u
/* An MSR's register: o0 op1 CRn CRm op2 (op0 3) */
#define SYSREG(op1, crn, crm, op2) \
	(1u << 14 | (op1) << 11 | (crn) << 7 | (crm) << 3 | (op2))
#define R_MDCR_EL2	SYSREG(4, 1, 1, 1)
#define R_PMBLIMITR_EL1	SYSREG(0, 9, 10, 0)
#define R_PMSCR_EL1	SYSREG(0, 9, 9, 0)
#define R_PMSCR_EL12	SYSREG(5, 9, 9, 0)
#define R_TTBR0_EL1	SYSREG(0, 2, 0, 0)
#define R_TTBR1_EL1	SYSREG(0, 2, 0, 1)
#define R_TTBR0_EL12	SYSREG(5, 2, 0, 0)
#define R_TTBR1_EL12	SYSREG(5, 2, 0, 1)

struct owner {
	struct qemu_plugin_register *x[31], *cpsr, *hcr;
	unsigned int e2pb;	/* MDCR_EL2.E2PB */
	bool enabled;		/* PMBLIMITR_EL1.E */
	bool discard;		/* PMBLIMITR_EL1.FM is discard mode */
	bool el1_sampling;	/* PMSCR_EL1.E0SPE | E1SPE */
	bool enabled_at_el2;	/* an EL2 MSR set E since the last ERET */
};

static bool owner_mode;
static struct owner owners[OWNER_VCPUS];
static uint64_t owner_changes, owner_enables, owner_violations;
static GMutex owner_lock;

static bool is_kernel(uint64_t vaddr)
{
	return vaddr >> 63;
}

static enum kind classify(uint32_t insn)
{
	/* MRS/MSR (register): 1101 0101 00 L 1 o0 op1 CRn CRm op2 Rt, op0 = 2 + o0 */
	if ((insn & 0xfff00000u) == 0xd5300000u)
		return K_MRS;
	if ((insn & 0xfff00000u) == 0xd5100000u)
		return K_MSR;
	/* ISB: 1101 0101 0000 0011 0011 CRm 110 11111, any CRm (option) */
	if ((insn & 0xfffff0ffu) == 0xd50330dfu)
		return K_ISB;
	return K_OTHER;
}

/* Is the register of an MRS/MSR one of PMUv3's? */
static bool is_pmu_reg(uint32_t insn)
{
	unsigned int op0 = 2 + ((insn >> 19) & 1), op1 = (insn >> 16) & 7;
	unsigned int crn = (insn >> 12) & 15, crm = (insn >> 8) & 15;
	unsigned int op2 = (insn >> 5) & 7;

	if (op0 != 3)
		return false;
	/* PMCR, PMCNTEN*, PMOVS*, PMSWINC, PMSELR, PMCEID*, PMCCNTR, PMXEV*, PMUSERENR, PMOVSSET */
	if (op1 == 3 && crn == 9 && crm >= 12 && crm <= 14)
		return true;
	/* PMEVCNTR<n>_EL0 (CRm 8-11), PMEVTYPER<n>_EL0 (12-14), PMCCFILTR_EL0 (15) */
	if (op1 == 3 && crn == 14 && crm >= 8)
		return true;
	/* PMINTENSET_EL1 (op2 1), PMINTENCLR_EL1 (2), PMMIR_EL1 (6) */
	return op1 == 0 && crn == 9 && crm == 14 && (op2 == 1 || op2 == 2 || op2 == 6);
}

/* Is the register of an MRS/MSR one of BRBE's? */
static bool is_brbe_reg(uint32_t insn)
{
	unsigned int op0 = 2 + ((insn >> 19) & 1), op1 = (insn >> 16) & 7;
	unsigned int crn = (insn >> 12) & 15;

	if (op0 != 2)
		return false;
	/* the records, of the bank BRBFCR_EL1.BANK selects */
	if (op1 == 1 && crn == 8)
		return true;
	/* the controls: EL1's (op1 1), BRBCR_EL2 (4), BRBCR_EL12 (5) */
	return crn == 9 && (op1 == 1 || op1 == 4 || op1 == 5);
}

static void snapshot(unsigned int vcpu, struct counts *c)
{
	c->insns = qemu_plugin_u64_get(c_insns, vcpu);
	c->mrs = qemu_plugin_u64_get(c_mrs, vcpu);
	c->msr = qemu_plugin_u64_get(c_msr, vcpu);
	c->isb = qemu_plugin_u64_get(c_isb, vcpu);
	c->pmu = qemu_plugin_u64_get(c_pmu, vcpu);
	c->brbe = qemu_plugin_u64_get(c_brbe, vcpu);
}

static uint64_t read_x(unsigned int n)
{
	GByteArray *buf = g_byte_array_new();
	uint64_t v = 0;
	int len = reg_x[n] ? qemu_plugin_read_register(reg_x[n], buf) : -1;

	/* target (little-endian) byte order */
	if (len == 8)
		for (int i = 7; i >= 0; i--)
			v = v << 8 | buf->data[i];
	g_byte_array_free(buf, TRUE);
	return v;
}

static void label_of(uint64_t vaddr, char *label)
{
	GByteArray *buf = g_byte_array_new();
	size_t i;

	strcpy(label, "?");
	/* byte by byte: the label may end right before an unmapped page */
	for (i = 0; i < LABEL_MAX - 1; i++) {
		g_byte_array_set_size(buf, 0);
		if (!qemu_plugin_read_memory_vaddr(vaddr + i, buf, 1) || !buf->data[0])
			break;
		/* the output is space-separated: no spaces or controls */
		label[i] = buf->data[0] > ' ' && buf->data[0] < 127 ? buf->data[0] : '_';
	}
	if (i)
		label[i] = 0;
	g_byte_array_free(buf, TRUE);
}

static void sites_begin(gpointer key, gpointer value, gpointer data)
{
	struct site *s = value;

	s->at_begin = s->count;
	s->window = 0;
}

static void sites_end(gpointer key, gpointer value, gpointer data)
{
	struct site *s = value;

	s->window = s->count - s->at_begin;
}

static gint by_vaddr(gconstpointer a, gconstpointer b)
{
	const struct site *x = *(struct site * const *)a, *y = *(struct site * const *)b;

	return (x->vaddr > y->vaddr) - (x->vaddr < y->vaddr);
}

static void emit_sites(const char *label)
{
	GPtrArray *list = g_ptr_array_new();
	GHashTableIter it;
	gpointer k, v;

	g_hash_table_iter_init(&it, sites);
	while (g_hash_table_iter_next(&it, &k, &v)) {
		struct site *s = v;

		if (s->window)
			g_ptr_array_add(list, s);
	}
	g_ptr_array_sort(list, by_vaddr);
	for (guint i = 0; i < list->len; i++) {
		struct site *s = g_ptr_array_index(list, i);

		if (s->ninsns)
			fprintf(out, "sysreg-tb: %s %016" PRIx64 " %u %" PRIu64 "\n",
				label, s->vaddr, s->ninsns, s->window);
		else
			fprintf(out, "sysreg-pc: %s %016" PRIx64 " %08x %" PRIu64 "\n",
				label, s->vaddr, s->insn, s->window);
	}
	g_ptr_array_free(list, TRUE);
}

/*
 * A marker: the window's counts are exact because the markers run in user
 * space, outside what is counted, and the counts are per-vCPU and are only
 * updated by the vCPU thread that runs this callback.
 */
static void on_marker(unsigned int vcpu, void *udata)
{
	struct counts now;
	char label[LABEL_MAX];

	if (vcpu)
		return;
	switch (read_x(0)) {
	case CMD_BEGIN:
		snapshot(vcpu, &begin);
		if (pcs) {
			g_mutex_lock(&sites_lock);
			g_hash_table_foreach(sites, sites_begin, NULL);
			g_mutex_unlock(&sites_lock);
		}
		break;
	case CMD_END:
		snapshot(vcpu, &now);
		window.insns = now.insns - begin.insns;
		window.mrs = now.mrs - begin.mrs;
		window.msr = now.msr - begin.msr;
		window.isb = now.isb - begin.isb;
		window.pmu = now.pmu - begin.pmu;
		window.brbe = now.brbe - begin.brbe;
		if (pcs) {
			g_mutex_lock(&sites_lock);
			g_hash_table_foreach(sites, sites_end, NULL);
			g_mutex_unlock(&sites_lock);
		}
		break;
	case CMD_EMIT:
		label_of(read_x(1), label);
		fprintf(out, "sysreg: %s ops=%" PRIu64 " insns=%" PRIu64 " mrs=%" PRIu64
			" msr=%" PRIu64 " isb=%" PRIu64 " pmu=%" PRIu64 " brbe=%" PRIu64
			"\n", label, read_x(2), window.insns, window.mrs, window.msr,
			window.isb, window.pmu, window.brbe);
		if (pcs) {
			g_mutex_lock(&sites_lock);
			emit_sites(label);
			g_mutex_unlock(&sites_lock);
		}
		fflush(out);
		break;
	}
}

static void on_site(unsigned int vcpu, void *udata)
{
	struct site *s = udata;

	if (!vcpu)
		s->count++;
}

static guint site_hash(gconstpointer p)
{
	const struct site *s = p;

	return g_int64_hash(&s->vaddr) ^ s->insn ^ (s->ninsns << 16);
}

static gboolean site_equal(gconstpointer a, gconstpointer b)
{
	const struct site *x = a, *y = b;

	return x->vaddr == y->vaddr && x->insn == y->insn && x->ninsns == y->ninsns;
}

static struct site *site_of(uint64_t vaddr, uint32_t insn, uint32_t ninsns)
{
	struct site key = { .vaddr = vaddr, .insn = insn, .ninsns = ninsns }, *s;

	g_mutex_lock(&sites_lock);
	s = g_hash_table_lookup(sites, &key);
	if (!s) {
		s = g_memdup2(&key, sizeof(key));
		g_hash_table_add(sites, s);
	}
	g_mutex_unlock(&sites_lock);
	return s;
}

static uint64_t read_reg(struct qemu_plugin_register *reg)
{
	GByteArray *buf = g_byte_array_new();
	uint64_t v = 0;
	int len = reg ? qemu_plugin_read_register(reg, buf) : -1;

	/* target (little-endian) byte order */
	for (int i = len - 1; i >= 0; i--)
		v = v << 8 | buf->data[i];
	g_byte_array_free(buf, TRUE);
	return v;
}

static void owner_violation(const char *rule, uint64_t vaddr)
{
	owner_violations++;
	fprintf(out, "spe-owner-violation: %s %016" PRIx64 "\n", rule, vaddr);
}

/* An MSR of one of the registers of SYSREG(), or an ERET (udata: its site) */
static void on_owner_insn(unsigned int vcpu, void *udata)
{
	const struct site *site = udata;
	uint32_t insn = site->insn;
	struct owner *o = &owners[vcpu];
	unsigned int reg = (insn >> 5) & 0x7fff, rt = insn & 31;
	unsigned int el = (read_reg(o->cpsr) >> 2) & 3;
	uint64_t val;
	bool e2h;

	if (insn == ERET) {
		if (el == 2)
			o->enabled_at_el2 = false;
		return;
	}
	val = rt == 31 ? 0 : read_reg(o->x[rt]);
	e2h = el == 2 && (read_reg(o->hcr) >> 34) & 1;
	g_mutex_lock(&owner_lock);
	if (reg == R_MDCR_EL2) {
		unsigned int e2pb = (val >> 12) & 3;

		if (!e2pb != !o->e2pb) {
			owner_changes++;
			if (o->enabled && o->el1_sampling)
				owner_violation("owner", site->vaddr);
		}
		o->e2pb = e2pb;
	} else if (reg == R_PMBLIMITR_EL1) {
		o->enabled = val & 1;
		o->discard = ((val >> 1) & 3) == 2;
		if (o->enabled && el == 2) {
			owner_enables++;
			o->enabled_at_el2 = true;
		}
	} else if (reg == R_PMSCR_EL12 || (reg == R_PMSCR_EL1 && !e2h)) {
		o->el1_sampling = val & 3;
	} else if (el == 2 && (reg == R_TTBR0_EL12 || reg == R_TTBR1_EL12 || !e2h)) {
		if (o->enabled_at_el2)
			owner_violation("ttbr", site->vaddr);
		else if (o->enabled && !o->discard && o->e2pb)
			owner_violation("regime", site->vaddr);
	}
	g_mutex_unlock(&owner_lock);
}

static bool is_owner_insn(uint32_t insn)
{
	unsigned int reg = (insn >> 5) & 0x7fff;

	if (insn == ERET)
		return true;
	if ((insn & 0xfff00000u) != 0xd5100000u)
		return false;
	return reg == R_MDCR_EL2 || reg == R_PMBLIMITR_EL1 || reg == R_PMSCR_EL1 ||
	       reg == R_PMSCR_EL12 || reg == R_TTBR0_EL1 || reg == R_TTBR1_EL1 ||
	       reg == R_TTBR0_EL12 || reg == R_TTBR1_EL12;
}

static void on_translate_owner(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	for (size_t i = 0; i < qemu_plugin_tb_n_insns(tb); i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		uint32_t op = 0;

		if (qemu_plugin_insn_data(insn, &op, sizeof(op)) == sizeof(op) &&
		    is_owner_insn(op))
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_owner_insn,
							       QEMU_PLUGIN_CB_R_REGS,
							       site_of(qemu_plugin_insn_vaddr(insn),
								       op, 0));
	}
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb);

	if (pcs && is_kernel(qemu_plugin_tb_vaddr(tb)))
		qemu_plugin_register_vcpu_tb_exec_cb(tb, on_site, QEMU_PLUGIN_CB_NO_REGS,
						     site_of(qemu_plugin_tb_vaddr(tb), 0, n));

	for (size_t i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		uint64_t vaddr = qemu_plugin_insn_vaddr(insn);
		uint32_t op = 0;
		enum kind k;

		if (qemu_plugin_insn_data(insn, &op, sizeof(op)) != sizeof(op))
			continue;
		if (!is_kernel(vaddr)) {
			if (op == MARKER)
				qemu_plugin_register_vcpu_insn_exec_cb(insn, on_marker,
								       QEMU_PLUGIN_CB_R_REGS, NULL);
			continue;
		}
		qemu_plugin_register_vcpu_insn_exec_inline_per_vcpu(
			insn, QEMU_PLUGIN_INLINE_ADD_U64, c_insns, 1);
		k = classify(op);
		if (k == K_OTHER)
			continue;
		qemu_plugin_register_vcpu_insn_exec_inline_per_vcpu(
			insn, QEMU_PLUGIN_INLINE_ADD_U64,
			k == K_MRS ? c_mrs : k == K_MSR ? c_msr : c_isb, 1);
		if (k != K_ISB && is_pmu_reg(op))
			qemu_plugin_register_vcpu_insn_exec_inline_per_vcpu(
				insn, QEMU_PLUGIN_INLINE_ADD_U64, c_pmu, 1);
		if (k != K_ISB && is_brbe_reg(op))
			qemu_plugin_register_vcpu_insn_exec_inline_per_vcpu(
				insn, QEMU_PLUGIN_INLINE_ADD_U64, c_brbe, 1);
		if (pcs)
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_site,
							       QEMU_PLUGIN_CB_NO_REGS,
							       site_of(vaddr, op, 0));
	}
}

/* owner=on: x0-x30, the PSTATE and HCR_EL2 of every vCPU */
static void owner_vcpu_init(unsigned int vcpu, GArray *regs)
{
	struct owner *o = &owners[vcpu];

	for (guint i = 0; i < regs->len; i++) {
		qemu_plugin_reg_descriptor *d =
			&g_array_index(regs, qemu_plugin_reg_descriptor, i);
		unsigned int n;

		if (sscanf(d->name, "x%u", &n) == 1 && n < 31)
			o->x[n] = d->handle;
		else if (!strcmp(d->name, "cpsr"))
			o->cpsr = d->handle;
		else if (!strcmp(d->name, "HCR_EL2"))
			o->hcr = d->handle;
	}
	if (!o->cpsr || !o->hcr || !o->x[30])
		fprintf(stderr, "sysreg-plugin: vCPU %u lacks x30, cpsr or HCR_EL2\n", vcpu);
}

/* Register handles are per vCPU and only available in its context. */
static void on_vcpu_init(qemu_plugin_id_t id, unsigned int vcpu)
{
	GArray *regs = qemu_plugin_get_registers();

	if (owner_mode) {
		if (vcpu < OWNER_VCPUS)
			owner_vcpu_init(vcpu, regs);
		goto out;
	}
	if (vcpu)
		goto out;
	for (guint i = 0; i < regs->len; i++) {
		qemu_plugin_reg_descriptor *d =
			&g_array_index(regs, qemu_plugin_reg_descriptor, i);

		for (unsigned int n = 0; n < 3; n++) {
			char name[4];

			snprintf(name, sizeof(name), "x%u", n);
			if (!strcmp(d->name, name))
				reg_x[n] = d->handle;
		}
	}
	if (!reg_x[0] || !reg_x[1] || !reg_x[2])
		fprintf(stderr, "sysreg-plugin: x0-x2 not found: markers ignored\n");
out:
	g_array_free(regs, TRUE);
}

static void on_atexit(qemu_plugin_id_t id, void *udata)
{
	if (out && owner_mode)
		fprintf(out, "spe-owner: changes=%" PRIu64 " enables=%" PRIu64
			" violations=%" PRIu64 "\n", owner_changes, owner_enables,
			owner_violations);
	if (out)
		fclose(out);
	out = NULL;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info,
					   int argc, char **argv)
{
	const char *path = NULL;

	if (strcmp(info->target_name, "aarch64") || !info->system_emulation) {
		fprintf(stderr, "sysreg-plugin: aarch64 system emulation only\n");
		return -1;
	}
	for (int i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "out=", 4)) {
			path = argv[i] + 4;
		} else if (!strncmp(argv[i], "pcs=", 4)) {
			if (!qemu_plugin_bool_parse("pcs", argv[i] + 4, &pcs))
				goto bad;
		} else if (!strncmp(argv[i], "owner=", 6)) {
			if (!qemu_plugin_bool_parse("owner", argv[i] + 6, &owner_mode))
				goto bad;
		} else {
			goto bad;
		}
	}
	if (!path)
		goto bad;
	out = fopen(path, "w");
	if (!out) {
		perror(path);
		return -1;
	}
	sites = g_hash_table_new(site_hash, site_equal);
	board = qemu_plugin_scoreboard_new(sizeof(struct counts));
	c_insns = qemu_plugin_scoreboard_u64_in_struct(board, struct counts, insns);
	c_mrs = qemu_plugin_scoreboard_u64_in_struct(board, struct counts, mrs);
	c_msr = qemu_plugin_scoreboard_u64_in_struct(board, struct counts, msr);
	c_isb = qemu_plugin_scoreboard_u64_in_struct(board, struct counts, isb);
	c_pmu = qemu_plugin_scoreboard_u64_in_struct(board, struct counts, pmu);
	c_brbe = qemu_plugin_scoreboard_u64_in_struct(board, struct counts, brbe);
	qemu_plugin_register_vcpu_init_cb(id, on_vcpu_init);
	qemu_plugin_register_vcpu_tb_trans_cb(id, owner_mode ? on_translate_owner : on_translate);
	qemu_plugin_register_atexit_cb(id, on_atexit, NULL);
	return 0;
bad:
	fprintf(stderr, "sysreg-plugin: usage: -plugin <so>,out=<file>[,pcs=on|owner=on]\n");
	return -1;
}
