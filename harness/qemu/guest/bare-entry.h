/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Assembler macros shared by the bare-metal programs' start files
 * (pmu-bare-start.S, brbe-bare-start.S, spe-bare-start.S).
 */
#ifndef BARE_ENTRY_H
#define BARE_ENTRY_H

/*
 * Call main, then PSCI SYSTEM_OFF: SMC is the virt board's conduit when
 * it has EL2, HVC the fallback; wait if neither answers.
 */
.macro	call_main_then_power_off
	bl	main
	ldr	x0, =0x84000008
	smc	#0
	ldr	x0, =0x84000008
	hvc	#0
1:	wfi
	b	1b
.endm

/*
 * EL2 vectors (vectors, for VBAR_EL2): an HVC returns to the next
 * instruction; anything else (an SMC with no EL3 is UNDEFINED) skips the
 * instruction that caused it. Then a 16 KiB stack (stack_top) in .bss.
 */
.macro	el2_vectors_and_stack
	.balign 2048
vectors:
	.rept	16
	.balign	128
	b	sync
	.endr
sync:
	mrs	x9, esr_el2
	lsr	x9, x9, #26
	cmp	x9, #0x16
	b.eq	1f
	mrs	x9, elr_el2
	add	x9, x9, #4
	msr	elr_el2, x9
1:	eret

	.bss
	.balign	16
	.space	16384
stack_top:
.endm

#endif /* BARE_ENTRY_H */
