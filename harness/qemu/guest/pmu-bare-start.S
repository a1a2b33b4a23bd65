/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Entry, EL2 vectors and the measured loops of pmu-bare.c. Each loop
 * enables the counters in x1, runs, and disables them again, so what the
 * counters see between the two writes is known to the instruction.
 */
#include "bare-entry.h"

	.section .text.start, "ax"
	.global _start
_start:
	ldr	x0, =stack_top
	mov	sp, x0
	adr	x0, vectors
	msr	vbar_el2, x0
	isb
	call_main_then_power_off

	.text
/* branch_loop(n, counters): n b.ne, the last one not taken */
	.global branch_loop
branch_loop:
	msr	pmcntenset_el0, x1
	isb
1:	subs	x0, x0, #1
	b.ne	1b
	msr	pmcntenclr_el0, x1
	isb
	ret

/* hvc_loop(n, counters): n HVCs from EL2 to EL2, each returned by ERET */
	.global hvc_loop
hvc_loop:
	msr	pmcntenset_el0, x1
	isb
1:	hvc	#0
	subs	x0, x0, #1
	b.ne	1b
	msr	pmcntenclr_el0, x1
	isb
	ret

/*
 * insn_loop(n, counters): what INST_RETIRED counts between the enabling
 * and the disabling write: isb, n * (subs, b.ne), and the disabling MSR.
 */
	.global insn_loop
insn_loop:
	msr	pmcntenset_el0, x1
	isb
1:	subs	x0, x0, #1
	b.ne	1b
	msr	pmcntenclr_el0, x1
	isb
	ret

/*
 * The windows of the register synchronization tests. Counter 0 counts
 * INST_RETIRED at EL2 on entry; x0 is written to the control register
 * named, which stops it, and 100 NOPs run before a context
 * synchronization event (ISB, ERET, or the exception entry of an HVC),
 * then 100 more. Counter 0 is read before the write, before the event and
 * at the end, into out[0..2] (x1).
 */
.macro	sync_window name, reg, event
	.global	\name
\name:
	adr	x5, 2f			/* where the ERET goes */
	msr	elr_el2, x5
	mrs	x5, spsr_el2
	mov	x6, #0x3c9		/* EL2h, DAIF masked */
	msr	spsr_el2, x6
	isb
	mrs	x6, pmevcntr0_el0
	msr	\reg, x0
	.rept	100
	nop
	.endr
	mrs	x7, pmevcntr0_el0
	\event
2:	.rept	100
	nop
	.endr
	mrs	x8, pmevcntr0_el0
	msr	spsr_el2, x5
	stp	x6, x7, [x1]
	str	x8, [x1, #16]
	ret
.endm

	sync_window sync_cntenclr_isb, pmcntenclr_el0, isb
	sync_window sync_pmcr_isb, pmcr_el0, isb
	sync_window sync_evtyper_isb, pmevtyper0_el0, isb
	sync_window sync_cntenclr_eret, pmcntenclr_el0, eret
	sync_window sync_cntenclr_hvc, pmcntenclr_el0, "hvc #0"

	el2_vectors_and_stack
