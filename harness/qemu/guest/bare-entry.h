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

#endif /* BARE_ENTRY_H */
