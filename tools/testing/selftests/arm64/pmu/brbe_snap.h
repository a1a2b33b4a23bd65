/* SPDX-License-Identifier: GPL-2.0 */
/*
 * brbe_bpf's calls around its uprobe, in assembly so that their branches
 * are known to the instruction.
 */
#ifndef BRBE_SNAP_H
#define BRBE_SNAP_H

/*
 * snap_run(iters): brbe_seq(iters), then snap_probe(). snap_twice():
 * snap_probe() twice in a row. snap_probe() is the one instruction the
 * uprobe replaces: a RET, which the kernel emulates, so no instruction is
 * stepped out of line between the two probes of snap_twice().
 */
asm("	.text\n"
	"	.p2align 4\n"
	"	.global snap_run\n"
	"snap_run:\n"
	"	stp	x29, x30, [sp, #-16]!\n"
	"	bl	brbe_seq\n"
	"	.global snap_run_probe_at\n"
	"snap_run_probe_at:\n"
	"	bl	snap_probe\n"
	"	ldp	x29, x30, [sp], #16\n"
	"	ret\n"
	"	.global snap_twice\n"
	"snap_twice:\n"
	"	stp	x29, x30, [sp, #-16]!\n"
	"	bl	snap_probe\n"
	"	.global snap_twice_second_at\n"
	"snap_twice_second_at:\n"
	"	bl	snap_probe\n"
	"	ldp	x29, x30, [sp], #16\n"
	"	ret\n"
	"	.global snap_probe\n"
	"snap_probe:\n"
	"	ret\n");

void snap_run(unsigned long iters);
void snap_twice(void);
void snap_probe(void);
extern const char snap_run_probe_at[], snap_twice_second_at[];

#endif /* BRBE_SNAP_H */
