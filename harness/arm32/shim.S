/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Boot a 32-bit Arm kernel on an AArch64 CPU under QEMU's TCG, which only
 * runs AArch32 at EL1 and EL0 beneath an AArch64 EL2 (QEMU refuses
 * aarch64=off without KVM). QEMU starts this at EL2 (virt,
 * virtualization=on); it makes EL1 AArch32 with nothing trapped to EL2,
 * then enters the zImage at ZIMAGE in SVC mode as the Arm boot protocol
 * wants it (Documentation/arch/arm/booting.rst): MMU and caches off,
 * interrupts masked, r0 = 0, r1 = ~0 (no machine number: DT only),
 * r2 = the DTB at DTB.
 */
	.text
	.globl	_start
_start:
	/* HCR_EL2.RW = 0: EL1 is AArch32; VM and every trap bit off */
	msr	hcr_el2, xzr
	msr	hstr_el2, xzr
	/* CPTR_EL2: its RES1 bits; TFP clear, so FP/NEON do not trap */
	mov	x0, #0x33ff
	msr	cptr_el2, x0
	/* CNTHCTL_EL2.EL1PCTEN/EL1PCEN: EL1 reads the physical counter */
	mov	x0, #3
	msr	cnthctl_el2, x0
	msr	cntvoff_el2, xzr
	/* MDCR_EL2.HPMN = PMCR.N: EL1 owns every event counter, no trap */
	mrs	x0, pmcr_el0
	ubfx	x0, x0, #11, #5
	msr	mdcr_el2, x0
	/* EL1 reads MIDR and MPIDR through these: the CPU's own values */
	mrs	x0, midr_el1
	msr	vpidr_el2, x0
	mrs	x0, mpidr_el1
	msr	vmpidr_el2, x0
	/* ICC_SRE_EL2: SRE, DFB, DIB, Enable: EL1 uses the GICv3 CPU
	 * interface's system registers without trapping here */
	mov	x0, #0xf
	msr	S3_4_C12_C9_5, x0
	isb
	/* SCTLR: MMU, caches and alignment checks off */
	ldr	x0, =0x00c50838
	msr	sctlr_el1, x0
	/* SPSR_EL2: AArch32 SVC mode, A, I and F masked, ARM state */
	mov	x0, #0x1d3
	msr	spsr_el2, x0
	ldr	x0, =ZIMAGE
	msr	elr_el2, x0
	mov	x0, #0
	mov	x1, #0xffffffff
	ldr	x2, =DTB
	isb
	eret
