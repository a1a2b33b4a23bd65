/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The branchy workload behind harness/qemu/README.md's BRBE cost figure:
 * 100,000,000 taken branches at EL2 (a subs/b.ne loop), with BRBE
 * recording them if the word at 0x47ffe000 is 1 (BRBCR_EL2.E2BRE, all
 * BRBFCR_EL1 branch types), with BRBE idle otherwise. Not a test:
 *
 *   gcc ... -o brbe-cost.elf brbe-cost.S   (test-bare.sh's flags)
 *   time qemu-system-aarch64 -M virt,gic-version=3,virtualization=on \
 *	-cpu max -icount shift=0,sleep=off -display none -nic none \
 *	-kernel brbe-cost.elf -device loader,addr=0x47ffe000,data=1,data-len=4
 */
	.section .text.start, "ax"
	.global _start
_start:
	ldr	x1, =0x47ffe000
	ldr	w1, [x1]
	cbz	w1, 1f
	mov	x0, #(0x3f << 17)		/* BRBFCR_EL1: every type */
	msr	s2_1_c9_c0_1, x0
	mov	x0, #2				/* BRBCR_EL2.E2BRE */
	msr	s2_4_c9_c0_0, x0
	isb
1:	ldr	x0, =100000000
2:	subs	x0, x0, #1
	b.ne	2b
	/* PSCI SYSTEM_OFF: SMC is the virt board's conduit with EL2 */
	ldr	x0, =0x84000008
	smc	#0
3:	wfi
	b	3b
