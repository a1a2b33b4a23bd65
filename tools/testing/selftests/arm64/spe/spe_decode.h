/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small decoder of SPE records, enough for the selftests to check what
 * the profiling unit wrote: it turns a byte stream into one struct
 * spe_record per sampled operation and refuses anything it cannot parse.
 *
 * The packet format is the Arm ARM's (D10, "Statistical Profiling
 * Extension: packet formats"). A packet is a header byte, for some types
 * preceded by an extension byte, then a little-endian payload of
 * 1 << header[5:4] bytes:
 *
 *	header            packet               payload
 *	0000 0000         Padding              none
 *	0000 0001         End (closes a record) none
 *	0111 0001         Timestamp (closes)   8 bytes
 *	0010 00hh         extension: the next byte is the header, hh the
 *	                  high bits of its index
 *	1011 0iii         Address              8 bytes; index 0 PC, 1 branch
 *	                  target, 2 data VA, 3 data PA
 *	1001 1iii         Counter              2 bytes; index 0 total latency
 *	01ss 0010         Events               1, 2, 4 or 8 bytes
 *	01ss 0011         Data source          1, 2, 4 or 8 bytes
 *	0110 01ii         Context              4 bytes: CONTEXTIDR_ELx
 *	0100 10cc         Operation type       1 byte; cc: 0 other, 1 load or
 *	                  store, 2 branch
 *
 * Address payloads: bits [55:0] the address, for a PC bits [62:61] the
 * exception level and bit 63 NS.
 */
#ifndef SPE_DECODE_H
#define SPE_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

enum spe_op_class {
	SPE_OP_OTHER = 0,
	SPE_OP_LDST = 1,
	SPE_OP_BRANCH = 2,
};

/* Operation type payload bits the tests look at */
#define SPE_OP_LDST_STORE	(1U << 0)	/* load/store class: a store */
#define SPE_OP_BRANCH_COND	(1U << 0)	/* branch class: conditional */

/* Events packet bits (the same numbering as PMSEVFR_EL1) */
#define SPE_EV_RETIRED		(1ULL << 1)
#define SPE_EV_L1D_ACCESS	(1ULL << 2)
#define SPE_EV_MISALIGNED	(1ULL << 11)

#define SPE_ADDR_MASK		((1ULL << 56) - 1)

/* What one record said; has_* is set for each packet it carried */
struct spe_record {
	uint64_t pc, va, pa, ts, events;
	uint32_t ctx;
	uint16_t lat_total;
	uint8_t op, op_class, el;
	bool has_pc, has_va, has_pa, has_ts, has_ctx, has_op, has_lat;
};

/* Little-endian payload of n bytes */
static inline uint64_t spe_payload(const uint8_t *p, unsigned int n)
{
	uint64_t v = 0;

	while (n--)
		v = (v << 8) | p[n];
	return v;
}

static inline void spe_take_address(struct spe_record *r, unsigned int idx,
				    uint64_t v)
{
	switch (idx) {
	case 0:
		r->pc = v & SPE_ADDR_MASK;
		r->el = (v >> 61) & 3;
		r->has_pc = true;
		break;
	case 2:
		r->va = v & SPE_ADDR_MASK;
		r->has_va = true;
		break;
	case 3:
		r->pa = v & SPE_ADDR_MASK;
		r->has_pa = true;
		break;
	}
}

/*
 * Fold one packet (header h, index idx, payload v) into the record.
 * Return 1 if it closed the record, 0 if not, -1 for a header this
 * decoder does not know.
 */
static inline int spe_take_packet(struct spe_record *r, uint8_t h,
				  unsigned int idx, uint64_t v)
{
	if (h == 0x01)
		return 1;
	if (h == 0x71) {
		r->ts = v;
		r->has_ts = true;
		return 1;
	}
	if ((h & 0xf8) == 0xb0) {
		spe_take_address(r, idx, v);
	} else if ((h & 0xf8) == 0x98) {
		if (idx == 0) {
			r->lat_total = v;
			r->has_lat = true;
		}
	} else if ((h & 0xcf) == 0x42) {
		r->events = v;
	} else if ((h & 0xfc) == 0x64) {
		r->ctx = v;
		r->has_ctx = true;
	} else if ((h & 0xfc) == 0x48) {
		r->op = v;
		r->op_class = h & 3;
		r->has_op = true;
	} else if ((h & 0xcf) != 0x43) {
		return -1;
	}
	return 0;
}

/*
 * spe_decode() - split len bytes of trace into records
 * @out, @max: where to put them; records past max are counted, not kept
 *
 * Return: the number of records, or -1 if a packet is unknown or cut
 * short, or the trace ends inside a record.
 */
static inline long spe_decode(const uint8_t *buf, size_t len,
			      struct spe_record *out, size_t max)
{
	struct spe_record r;
	size_t pos = 0, n = 0;
	bool open = false;

	memset(&r, 0, sizeof(r));
	while (pos < len) {
		uint8_t h = buf[pos++];
		unsigned int idx, size;
		int done;

		if (h == 0x00 && !open)
			continue;		/* padding between records */
		if (h == 0x00)
			return -1;		/* padding inside a record */
		idx = h & 7;
		if ((h & 0xfc) == 0x20) {	/* extended header */
			if (pos >= len)
				return -1;
			idx = ((h & 3) << 3) | (buf[pos] & 7);
			h = buf[pos++];
		}
		size = h <= 0x01 ? 0 : 1U << ((h >> 4) & 3);
		if (pos + size > len)
			return -1;
		done = spe_take_packet(&r, h, idx, spe_payload(buf + pos, size));
		if (done < 0)
			return -1;
		pos += size;
		open = !done;
		if (done) {
			if (n < max)
				out[n] = r;
			n++;
			memset(&r, 0, sizeof(r));
		}
	}
	return open ? -1 : (long)n;
}

#endif /* SPE_DECODE_H */
