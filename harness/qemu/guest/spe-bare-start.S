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

	el2_vectors_and_stack
