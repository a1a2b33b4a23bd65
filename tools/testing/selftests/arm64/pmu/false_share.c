// SPDX-License-Identifier: GPL-2.0
/*
 * false_share: two threads, each adding to its own 8-byte word of one
 * 64-byte cache line, fs_line: false sharing, the workload perf mem and
 * perf c2c are for (harness/plans/workflows.plan). Each thread runs
 * fs_writer_loop, five instructions an iteration (a load and a store of
 * its word, an add, the count and the branch), ITERS times (default
 * 1,000,000). With "apart" after ITERS, the control: each thread's word
 * is the first of a line of its own, fs_apart[0] and fs_apart[1], so
 * nothing is shared. Prints each thread's name, TID and word address, so
 * that a plan can match perf's rows to them; exits 1 if a word's final
 * value is not ITERS.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

struct fs_line_t {
	_Alignas(64) uint64_t word[8];
};

/* global, not static: perf names data addresses by these symbols */
struct fs_line_t fs_line;
struct fs_line_t fs_apart[2];

static uint64_t iters = 1000000;
static int apart;
static pthread_barrier_t start;

/* The loop perf's samples land in: a load and a store of *word per pass */
static void fs_writer_loop(uint64_t *word, uint64_t n)
{
	asm volatile("1:	ldr	x9, [%0]\n"
		     "	add	x9, x9, #1\n"
		     "	str	x9, [%0]\n"
		     "	subs	%1, %1, #1\n"
		     "	b.ne	1b\n"
		     : "+r" (word), "+r" (n) : : "x9", "cc", "memory");
}

/* Thread i's word: on the shared line, or alone on its line (apart) */
static uint64_t *writer_word(long i)
{
	return apart ? &fs_apart[i].word[0] : &fs_line.word[i];
}

static void *writer_thread(void *arg)
{
	long i = (long)arg;
	uint64_t *word = writer_word(i);
	char name[16];

	snprintf(name, sizeof(name), "fs-writer-%ld", i);
	prctl(PR_SET_NAME, name);
	printf("%s tid %d word %p\n", name, gettid(), (void *)word);
	fflush(stdout);
	/* both threads start together, so on several CPUs the line moves */
	pthread_barrier_wait(&start);
	fs_writer_loop(word, iters);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[2];
	long i;
	int bad = 0;

	if (argc > 1)
		iters = strtoull(argv[1], NULL, 0);
	if (!iters)
		return 2;
	if (argc > 2)
		apart = !strcmp(argv[2], "apart");
	pthread_barrier_init(&start, NULL, 2);
	for (i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, writer_thread, (void *)i))
			return 2;
	for (i = 0; i < 2; i++) {
		pthread_join(t[i], NULL);
		if (*writer_word(i) != iters) {
			printf("word %ld is %llu, want %llu\n", i,
			       (unsigned long long)*writer_word(i),
			       (unsigned long long)iters);
			bad = 1;
		}
	}
	return bad;
}
