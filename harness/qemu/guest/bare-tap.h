/* SPDX-License-Identifier: GPL-2.0 */
/*
 * TAP on the virt board's PL011 for the bare-metal model checks
 * (pmu-bare, brbe-bare, spe-bare): no C library, no runtime, one C file
 * per program, so everything here is static inline and the counter of
 * results is set by main() (nothing clears .bss).
 */
#ifndef BARE_TAP_H
#define BARE_TAP_H

#include <stdint.h>

#define UART_DR		((volatile uint32_t *)0x09000000)
#define UART_CR		((volatile uint32_t *)0x09000030)
#define UART_CR_ON	0x301	/* UARTEN | TXE | RXE */

static int test_n;

/* What the compiler calls to clear a struct */
void *memset(void *s, int c, unsigned long n);
void *memset(void *s, int c, unsigned long n)
{
	volatile unsigned char *p = s;

	while (n--)
		*p++ = c;
	return s;
}

static inline void tap_start(void)
{
	test_n = 0;
	*UART_CR = UART_CR_ON;
}

static inline void putc_(char c)
{
	*UART_DR = c;
}

static inline void puts_(const char *s)
{
	while (*s)
		putc_(*s++);
}

static inline void putu(uint64_t v)
{
	char buf[21];
	int i = 0;

	do {
		buf[i++] = '0' + v % 10;
		v /= 10;
	} while (v);
	while (i)
		putc_(buf[--i]);
}

static inline void putx(uint64_t v)
{
	int i;

	puts_("0x");
	for (i = 60; i > 0 && !(v >> i); i -= 4)
		;
	for (; i >= 0; i -= 4)
		putc_("0123456789abcdef"[(v >> i) & 15]);
}

/* "ok N name" or "not ok N name", without the end of line */
static inline void result(const char *name, int pass)
{
	if (!pass)
		puts_("not ");
	puts_("ok ");
	putu(++test_n);
	putc_(' ');
	puts_(name);
}

static inline void ok(const char *name, int pass)
{
	result(name, pass);
	putc_('\n');
}

static inline void check(const char *name, uint64_t got, uint64_t want)
{
	if (got != want) {
		puts_("# ");
		puts_(name);
		puts_(": got ");
		putu(got);
		puts_(" (");
		putx(got);
		puts_("), want ");
		putu(want);
		puts_(" (");
		putx(want);
		puts_(")\n");
	}
	ok(name, got == want);
}

static inline void skip(const char *name, const char *why)
{
	result(name, 1);
	puts_(" # SKIP ");
	puts_(why);
	putc_('\n');
}

#endif /* BARE_TAP_H */
