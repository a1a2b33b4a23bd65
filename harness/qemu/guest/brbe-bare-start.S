/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Entry, vectors and the recorded sequences of brbe-bare.c. The program
 * runs at EL2; run_lower() enters a sequence at EL1 or EL0 and returns
 * when the sequence (or anything unexpected) takes an exception to EL2.
 * Every branch that brbe-bare.c expects in the buffer has a label, s_*
 * for its source and t_* for its target.
 */
#include "bare-entry.h"

	.section .text.start, "ax"
	.global _start
_start:
	ldr	x0, =stack_top
	mov	sp, x0
	adr	x0, vectors2
	msr	vbar_el2, x0
	adr	x0, vectors1
	msr	vbar_el1, x0
	ldr	x0, =el1_stack_top
	msr	sp_el1, x0
	isb
	call_main_then_power_off

	.text
/*
 * run_lower(entry, spsr): ERET to entry with SPSR_EL2 = spsr, back here
 * on the next exception taken to EL2 from below.
 */
	.global run_lower
run_lower:
	stp	x19, x20, [sp, #-96]!
	stp	x21, x22, [sp, #16]
	stp	x23, x24, [sp, #32]
	stp	x25, x26, [sp, #48]
	stp	x27, x28, [sp, #64]
	stp	x29, x30, [sp, #80]
	mov	x9, sp
	adr	x10, saved_sp
	str	x9, [x10]
	msr	elr_el2, x0
	msr	spsr_el2, x1
	eret
lower_return:
	adr	x10, saved_sp
	ldr	x9, [x10]
	mov	sp, x9
	ldp	x21, x22, [sp, #16]
	ldp	x23, x24, [sp, #32]
	ldp	x25, x26, [sp, #48]
	ldp	x27, x28, [sp, #64]
	ldp	x29, x30, [sp, #80]
	ldp	x19, x20, [sp], #96
	ret

/*
 * The EL1 sequence: one taken branch of each type, a branch not taken,
 * an SVC to EL1 and its ERET, an ERET to EL0, a branch at EL0 and an SVC
 * from EL0 (whose EL1 vector leaves for EL2 with an HVC).
 */
	.global el1_seq
	.global s_b, t_b, s_bl, s_br, t_br, s_blr, s_cbz, t_cbz, s_beq, t_beq
	.global s_tbnz, t_tbnz, s_svc, s_eret0, el0_seq, s_b0, t_b0, s_svc0
	.global el1_func, s_ret
el1_seq:
s_b:	b	t_b
t_b:
s_bl:	bl	el1_func
	adr	x0, t_br
s_br:	br	x0
t_br:	adr	x0, el1_func
	nop
	nop
	nop
	nop
	nop
s_blr:	blr	x0
	mov	x1, #0
s_cbz:	cbz	x1, t_cbz
	nop
t_cbz:	cbnz	x1, t_cbz
	cmp	x1, #0
s_beq:	b.eq	t_beq
	nop
t_beq:	mov	x2, #4
s_tbnz:	tbnz	x2, #2, t_tbnz
	nop
t_tbnz:
s_svc:	svc	#0
	adr	x0, el0_seq
	msr	elr_el1, x0
	mov	x0, #0x3c0		/* EL0t, DAIF masked */
	msr	spsr_el1, x0
s_eret0: eret
el0_seq:
s_b0:	b	t_b0
t_b0:
s_svc0:	svc	#0
el1_func:
s_ret:	ret

/* EL0 with HCR_EL2.TGE set: a branch, then an SVC to EL2 */
	.global el0_host_seq, s_b2, t_b2
el0_host_seq:
s_b2:	b	t_b2
t_b2:	svc	#0

/* EL0 with HCR_EL2.TGE set: a taken forward CBZ, then an SVC to EL2 */
	.global el0_host_cond, s_c0, t_c0
el0_host_cond:
s_c0:	cbz	xzr, t_c0
	nop
t_c0:	svc	#0

/* BRBCR_EL2 and BRBFCR_EL1 by encoding */
#define BRBCR_EL2	s2_4_c9_c0_0
#define BRBFCR_EL1	s2_1_c9_c0_1

/*
 * el2_cond(cr2): one taken forward CBZ at EL2 with BRBCR_EL2 = cr2,
 * nothing else recorded (BRBCR_EL2 is cleared before the RET).
 */
	.global el2_cond, s_c2, t_c2
el2_cond:
	msr	BRBCR_EL2, x0
	isb
s_c2:	cbz	xzr, t_c2
	nop
t_c2:	msr	BRBCR_EL2, xzr
	isb
	ret

/*
 * lazy_fcr(cr2, fcr, fcr2): record EL2 with BRBCR_EL2 = cr2 and BRBFCR_EL1
 * = fcr on an empty buffer, then write fcr2 with no ISB and branch
 * (s_lz1), ISB, branch again (s_lz2). Returns BRBFCR_EL1 as read right
 * after the write.
 */
	.global lazy_fcr, s_lz1, s_lz2
lazy_fcr:
	msr	BRBFCR_EL1, x1
	msr	BRBCR_EL2, x0
	isb
	sys	#1, c7, c2, #4		/* BRB IALL */
	isb
	msr	BRBFCR_EL1, x2
	mrs	x0, BRBFCR_EL1
s_lz1:	b	1f
1:	isb
s_lz2:	b	2f
2:	msr	BRBCR_EL2, xzr
	isb
	ret

/*
 * lazy_cr2(cr2, fcr): the same with BRBCR_EL2 first clear, then cr2
 * written with no ISB before s_lc1; returns BRBCR_EL2 read after it.
 */
	.global lazy_cr2, s_lc1, s_lc2
lazy_cr2:
	msr	BRBFCR_EL1, x1
	msr	BRBCR_EL2, xzr
	isb
	sys	#1, c7, c2, #4		/* BRB IALL */
	isb
	msr	BRBCR_EL2, x0
	mrs	x0, BRBCR_EL2
s_lc1:	b	1f
1:	isb
s_lc2:	b	2f
2:	msr	BRBCR_EL2, xzr
	isb
	ret

/* bank_read(fcr): BRBFCR_EL1 = fcr with no ISB, then BRBSRC0_EL1 */
	.global bank_read
bank_read:
	msr	BRBFCR_EL1, x0
	mrs	x0, s2_1_c8_c0_1
	ret

/*
 * loop_el1: LOOP_N - 1 taken b.ne at EL1 (s_loop -> t_loop), the last
 * one not taken, then back to EL2.
 */
#define LOOP_N	40
	.global loop_el1, s_loop, t_loop
loop_el1:
	mov	x0, #LOOP_N
t_loop:	subs	x0, x0, #1
s_loop:	b.ne	t_loop
	hvc	#0

/* EL1 vectors: an SVC from EL1 returns at once, anything else goes to EL2 */
	.global vectors1, s_eret1
	.balign 2048
vectors1:
	.rept	4
	.balign	128
	hvc	#0
	.endr
	.balign	128		/* 0x200: sync, current EL with SP_EL1 */
s_eret1: eret
	.rept	11
	.balign	128
	hvc	#0
	.endr

/*
 * EL2 vectors: from a lower EL, back to run_lower's caller; at EL2 (an
 * UNDEFINED access, as brbe-bare.c expects on a CPU without BRBE), count
 * it in undef_count and skip the instruction.
 */
	.balign 2048
vectors2:
	.rept	8
	.balign	128
	b	el2_sync
	.endr
	.rept	8
	.balign	128
	b	lower_return
	.endr
el2_sync:
	stp	x9, x10, [sp, #-16]!
	adr	x9, undef_count
	ldr	x10, [x9]
	add	x10, x10, #1
	str	x10, [x9]
	mrs	x9, elr_el2
	add	x9, x9, #4
	msr	elr_el2, x9
	ldp	x9, x10, [sp], #16
	eret

	.data
	.balign	8
saved_sp:
	.quad	0
	.global undef_count
undef_count:
	.quad	0

	.bss
	.balign	16
	.space	16384
stack_top:
	.space	4096
el1_stack_top:
