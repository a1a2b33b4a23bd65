/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading branch records, for the BRBE driver and for KVM, which keeps a
 * guest's paused records across an exit.
 */
#ifndef __ASM_BRBE_H
#define __ASM_BRBE_H

#include <linux/bitfield.h>
#include <asm/sysreg.h>

/* Records per bank: BRBFCR_EL1.BANK selects which 32 the registers show */
#define BRBE_BANK_RECORDS	32
/* BRBIDR0_EL1.NUMREC allows 8, 16, 32 or 64 records: two banks at most */
#define BRBE_MAX_RECORDS	64

/* Record n of the selected bank; n is in the encoding */
#define __BRBE_READ_RECORD(n)						\
	case n:								\
		*inf = read_sysreg_s(SYS_BRBINF_EL1(n));		\
		if (FIELD_GET(BRBINFx_EL1_VALID_MASK, *inf)) {		\
			*src = read_sysreg_s(SYS_BRBSRC_EL1(n));	\
			*tgt = read_sysreg_s(SYS_BRBTGT_EL1(n));	\
		}							\
		break

/**
 * brbe_read_record() - Read one record of the selected bank
 * @n: the record's index in the bank, below BRBE_BANK_RECORDS
 * @inf: its BRBINF<n>_EL1
 * @src: its BRBSRC<n>_EL1, read only if the record is valid
 * @tgt: its BRBTGT<n>_EL1, read only if the record is valid
 *
 * The caller synchronized the bank's selection (ISB after BRBFCR_EL1.BANK).
 */
static inline void brbe_read_record(int n, u64 *inf, u64 *src, u64 *tgt)
{
	switch (n) {
	__BRBE_READ_RECORD(0); __BRBE_READ_RECORD(1); __BRBE_READ_RECORD(2);
	__BRBE_READ_RECORD(3); __BRBE_READ_RECORD(4); __BRBE_READ_RECORD(5);
	__BRBE_READ_RECORD(6); __BRBE_READ_RECORD(7); __BRBE_READ_RECORD(8);
	__BRBE_READ_RECORD(9); __BRBE_READ_RECORD(10); __BRBE_READ_RECORD(11);
	__BRBE_READ_RECORD(12); __BRBE_READ_RECORD(13); __BRBE_READ_RECORD(14);
	__BRBE_READ_RECORD(15); __BRBE_READ_RECORD(16); __BRBE_READ_RECORD(17);
	__BRBE_READ_RECORD(18); __BRBE_READ_RECORD(19); __BRBE_READ_RECORD(20);
	__BRBE_READ_RECORD(21); __BRBE_READ_RECORD(22); __BRBE_READ_RECORD(23);
	__BRBE_READ_RECORD(24); __BRBE_READ_RECORD(25); __BRBE_READ_RECORD(26);
	__BRBE_READ_RECORD(27); __BRBE_READ_RECORD(28); __BRBE_READ_RECORD(29);
	__BRBE_READ_RECORD(30); __BRBE_READ_RECORD(31);
	default:
		*inf = 0;
	}
}

#endif /* __ASM_BRBE_H */
