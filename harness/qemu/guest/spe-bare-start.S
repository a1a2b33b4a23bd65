/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Entry, EL2 vectors and the profiled code of spe-bare.c. Each routine
 * enables profiling at EL2 itself (PMSCR_EL2.E2SPE) and disables it at
 * the end, so the members of the sample population are known to the
 * instruction: the first one is the instruction after the enabling MSR.
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
/*
 * spe_loop(n, src, dst, pmscr): members are the isb (1), then n times the
 * 7 instructions from spe_loop_body (slot 0: load, 1: store, 2: scalar
 * FP, 3: Advanced SIMD, 4: add, 5: subs, 6: b.ne, not taken the last
 * time), then the disabling MSR: 7 * n + 2 in all.
 */
/* s3_4_c9_c9_0 is PMSCR_EL2, s3_0_c9_c9_2 PMSICR_EL1 (FEAT_SPE names) */
	.global spe_loop
	.global spe_loop_body
spe_loop:
	msr	s3_4_c9_c9_0, x3
	isb
spe_loop_body:
	ldr	x4, [x1], #8
	str	x4, [x2], #8
	fadd	d0, d0, d1
	add	v0.2d, v0.2d, v1.2d
	add	x5, x5, #1
	subs	x0, x0, #1
	b.ne	spe_loop_body
	msr	s3_4_c9_c9_0, xzr
	isb
	ret

/*
 * spe_collide(pmscr, count): PMSICR_EL1.COUNT is 3 on entry, so the
 * third nop is sampled; the MSR then sets COUNT to x1 while that sample
 * is still in flight.
 */
	.global spe_collide
	.global spe_collide_sampled
spe_collide:
	msr	s3_4_c9_c9_0, x0
	nop
	nop
spe_collide_sampled:
	nop
	msr	s3_0_c9_c9_2, x1
	nop
	nop
	nop
	nop
	msr	s3_4_c9_c9_0, xzr
	isb
	ret

/*
 * spe_lazy_window(pmscr): under x-spe-lazy-sync the enabling MSR acts at
 * the first ISB, the disabling one at the second.
 */
	.global spe_lazy_window
spe_lazy_window:
	msr	s3_4_c9_c9_0, x0
	nop
	nop
	nop
	nop
	nop
	isb
	nop
	nop
	nop
	msr	s3_4_c9_c9_0, xzr
	nop
	nop
	nop
	nop
	isb
	ret

/*
 * spe_sync_K(pmscr): K nops, then profiling enabled by MSR and ISB around
 * 4 nops and disabled by MSR and ISB; K moves the pair within its
 * translation block. spe_sync_windows lists them, each with its K.
 */
	.macro	spe_sync k
	.global	spe_sync_\k
spe_sync_\k:
	.rept	\k
	nop
	.endr
	msr	s3_4_c9_c9_0, x0
	isb
	nop
	nop
	nop
	nop
	msr	s3_4_c9_c9_0, xzr
	isb
	ret
	.endm
	spe_sync 0
	spe_sync 1
	spe_sync 6
	spe_sync 14

	.section .rodata
	.balign	8
	.global	spe_sync_windows
spe_sync_windows:
	.quad	spe_sync_0, 0, spe_sync_1, 1, spe_sync_6, 6, spe_sync_14, 14, 0, 0
	.text

/*
 * spe_loop_el1(n, src, dst, pmscr): spe_loop's members at EL1, enabled
 * by PMSCR_EL1 (s3_0_c9_c9_0), with the same 7-instruction body.
 */
	.global spe_loop_el1
	.global spe_loop_el1_body
spe_loop_el1:
	msr	s3_0_c9_c9_0, x3
	isb
spe_loop_el1_body:
	ldr	x4, [x1], #8
	str	x4, [x2], #8
	fadd	d0, d0, d1
	add	v0.2d, v0.2d, v1.2d
	add	x5, x5, #1
	subs	x0, x0, #1
	b.ne	spe_loop_el1_body
	msr	s3_0_c9_c9_0, xzr
	isb
	ret

/*
 * at_el1(fn, a, b, c, d): fn(a, b, c, d) at EL1h, interrupts masked, on
 * its own stack; fn returns through an HVC that el1_vectors turns into
 * at_el1's return. HCR_EL2 and the stage 2 tables are the caller's.
 */
	.global at_el1
at_el1:
	stp	x29, x30, [sp, #-96]!
	stp	x19, x20, [sp, #16]
	stp	x21, x22, [sp, #32]
	stp	x23, x24, [sp, #48]
	stp	x25, x26, [sp, #64]
	stp	x27, x28, [sp, #80]
	ldr	x9, =el2_saved_sp
	mov	x10, sp
	str	x10, [x9]
	adr	x9, el1_vectors
	msr	vbar_el2, x9
	msr	elr_el2, x0
	mov	x9, #0x3c5		/* EL1h, D, A, I, F masked */
	msr	spsr_el2, x9
	ldr	x9, =el1_stack_top
	msr	sp_el1, x9
	mov	x0, x1
	mov	x1, x2
	mov	x2, x3
	mov	x3, x4
	adr	x30, el1_done
	isb
	eret
el1_done:
	hvc	#0

/* Taken from EL1: back on at_el1's stack with its result in x0 */
el1_back:
	ldr	x9, =el2_saved_sp
	ldr	x9, [x9]
	mov	sp, x9
	adr	x9, vectors
	msr	vbar_el2, x9
	isb
	ldp	x19, x20, [sp, #16]
	ldp	x21, x22, [sp, #32]
	ldp	x23, x24, [sp, #48]
	ldp	x25, x26, [sp, #64]
	ldp	x27, x28, [sp, #80]
	ldp	x29, x30, [sp], #96
	ret

/* Any exception from EL1 (the HVC, or a fault) ends the EL1 call */
	.balign 2048
el1_vectors:
	.rept	8
	.balign	128
	b	sync
	.endr
	.rept	8
	.balign	128
	b	el1_back
	.endr

	.bss
	.balign	16
	.space	8192
el1_stack_top:
el2_saved_sp:
	.space	8

/*
 * x-spe-coherence, with -smp 2: CPU 1 starts here (PSCI CPU_ON, at EL2,
 * MMU off) on its own stack and runs coh_secondary(), which never
 * returns.
 */
	.text
	.global coh_secondary_entry
coh_secondary_entry:
	ldr	x0, =coh_stack_top
	mov	sp, x0
	adr	x0, vectors
	msr	vbar_el2, x0
	isb
	bl	coh_secondary
1:	wfi
	b	1b

/*
 * coh_load(addr, pmscr) and coh_store(addr, pmscr): PMSICR_EL1.COUNT is
 * 2 on entry, so with the enabling ISB as member 1 the access at
 * coh_load_insn / coh_store_insn is the sampled member.
 */
	.global coh_load
	.global coh_load_insn
coh_load:
	msr	s3_4_c9_c9_0, x1
	isb
coh_load_insn:
	ldr	x2, [x0]
	msr	s3_4_c9_c9_0, xzr
	isb
	ret

	.global coh_store
	.global coh_store_insn
coh_store:
	msr	s3_4_c9_c9_0, x1
	isb
coh_store_insn:
	str	x1, [x0]
	msr	s3_4_c9_c9_0, xzr
	isb
	ret

	.bss
	.balign	16
	.space	4096
coh_stack_top:

	.text
	el2_vectors_and_stack
