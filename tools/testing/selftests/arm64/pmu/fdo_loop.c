// SPDX-License-Identifier: GPL-2.0
/*
 * fdo_loop: a known hot loop for the tools that turn branch stacks into
 * compiler profiles (harness/fdo.sh, llvm-profgen). fdo_hot runs ITERS
 * (default 10,000,000) passes of a two-instruction loop, subs and b.ne,
 * both on one source line, so a converted profile gives that line the
 * loop's count. Built with -g: the converters map addresses to lines
 * through DWARF. The loop starts one instruction after the function's
 * entry: a branch to an entry reads as a call to the converters.
 */
#include <stdint.h>
#include <stdlib.h>

static void fdo_hot(uint64_t n)
{
	asm volatile("nop\n1:\tsubs %0, %0, #1\n\tb.ne 1b" : "+r" (n) : : "cc");
}

int main(int argc, char **argv)
{
	uint64_t iters = argc > 1 ? strtoull(argv[1], NULL, 0) : 10000000;

	if (!iters)
		return 2;
	fdo_hot(iters);
	return 0;
}
