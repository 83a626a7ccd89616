/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the programs that run inside the QEMU guest share (smoke.c, the
 * /init, and fuzz.c, threads.c and cost.c, which it runs from /tests):
 *
 *  - the number of sysctl(2), SYSCTL_NR, which the build may replace
 *    (-DSYSCTL_NR=39: the tests build smoke.c with getpid() in its place,
 *    to play a broken sysctl(2) that answers), and sysctl_nr, the number
 *    the program calls, which GUEST_SYSCTL_NR=N in the environment
 *    replaces at run time (the tests use a number no kernel has, to see
 *    the programs fail);
 *  - one wrapper of the system call, guest_sysctl_args() and
 *    guest_sysctl(), with one error convention: 0 or the errno;
 *  - numbers read from the environment, where the guest's kernel command
 *    line puts KEY=VALUE: env_int();
 *  - a monotonic clock: guest_now(), guest_now_ns();
 *  - KTAP output (Documentation/dev-tools/ktap.rst, as kselftest prints
 *    it), on stdout, flushed after every line: the programs run under a
 *    pipe and may be killed by a timeout, so that a line printed is a
 *    line seen.
 */
#ifndef GUEST_H
#define GUEST_H

#include <errno.h>
#include <linux/sysctl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef SYSCTL_NR
#if defined(__x86_64__)
#define SYSCTL_NR	156
#elif defined(__i386__) || defined(__arm__)
#define SYSCTL_NR	149
#else
#error "unknown sysctl(2) number for this architecture"
#endif
#endif

#if defined(__x86_64__)
#define GUEST_BITS	"64-bit, native entry point"
#elif defined(__i386__)
#define GUEST_BITS	"32-bit, compat entry point"
#elif defined(__arm__)
#define GUEST_BITS	"32-bit ARM, arm64's compat entry point"
#else
#define GUEST_BITS	"unknown entry point"
#endif

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* As kselftest.h has it. */
#ifndef __printf
#define __printf(a, b) __attribute__((format(printf, a, b)))
#endif

/* --- KTAP --- */

static int ktap_count, ktap_pass, ktap_fail, ktap_skip;

static inline void ktap_header(void)
{
	printf("TAP version 13\n");
	fflush(stdout);
}

static inline void ktap_plan(int n)
{
	printf("1..%d\n", n);
	fflush(stdout);
}

/* One diagnostic line, "# <text>"; whole, even from several threads. */
static inline void ktap_vprint(const char *fmt, va_list ap)
{
	flockfile(stdout);
	fputs("# ", stdout);
	vprintf(fmt, ap);
	putchar('\n');
	fflush(stdout);
	funlockfile(stdout);
}

static inline __printf(1, 2)
void ktap_print(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ktap_vprint(fmt, ap);
	va_end(ap);
}

/*
 * One result line, "ok N <text>" or "not ok N <text>", numbered from 1;
 * @directive, when given, follows as " # <directive>".  A directive that
 * starts with SKIP counts the test as skipped, not as passed.
 */
static inline void ktap_vresult(int ok, const char *directive,
				const char *fmt, va_list ap)
{
	flockfile(stdout);
	printf("%s %d ", ok ? "ok" : "not ok", ++ktap_count);
	vprintf(fmt, ap);
	if (directive)
		printf(" # %s", directive);
	putchar('\n');
	fflush(stdout);
	funlockfile(stdout);
	if (directive && !strncmp(directive, "SKIP", 4))
		ktap_skip++;
	else if (ok)
		ktap_pass++;
	else
		ktap_fail++;
}

static inline __printf(2, 3)
void ktap_result(int ok, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ktap_vresult(ok, NULL, fmt, ap);
	va_end(ap);
}

/* "ok N <text> # SKIP" */
static inline __printf(1, 2)
void ktap_result_skip(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ktap_vresult(1, "SKIP", fmt, ap);
	va_end(ap);
}

/* "ok N <text> # SKIP <why>" */
static inline __printf(2, 3)
void ktap_result_skip_why(const char *why, const char *fmt, ...)
{
	char directive[128];
	va_list ap;

	snprintf(directive, sizeof(directive), "SKIP %s", why);
	va_start(ap, fmt);
	ktap_vresult(1, directive, fmt, ap);
	va_end(ap);
}

/* Prints the totals; returns the exit status, 1 when a test failed. */
static inline int ktap_finish(void)
{
	printf("# Totals: pass:%d fail:%d xfail:0 xpass:0 skip:%d error:0\n",
	       ktap_pass, ktap_fail, ktap_skip);
	fflush(stdout);
	return ktap_fail ? 1 : 0;
}

/* --- the environment --- */

/*
 * The number in the environment variable @name, @def when it is unset;
 * @prog says so in a diagnostic when it is not a number in min..max.
 */
static inline int env_int(const char *prog, const char *name, int def,
			  int min, int max)
{
	const char *s = getenv(name);
	char *end;
	long val;

	if (!s || !*s)
		return def;
	val = strtol(s, &end, 10);
	if (*end || val < min || val > max) {
		ktap_print("%s: ignoring %s=%s (want %d..%d)", prog, name, s,
			   min, max);
		return def;
	}
	return val;
}

/* The system call the program makes; see guest_init(). */
static long sysctl_nr = SYSCTL_NR;

/* Reads GUEST_SYSCTL_NR; after ktap_header(), as it may print. */
static inline void guest_init(const char *prog)
{
	sysctl_nr = env_int(prog, "GUEST_SYSCTL_NR", SYSCTL_NR, 0, 4095);
}

/* --- sysctl(2) --- */

/* What the last call of this thread returned, as the system call did. */
static __thread long guest_sysctl_ret;

/*
 * Calls sysctl(2) (system call sysctl_nr) with the argument block @args,
 * which may be a bad pointer (NULL, unmapped: EFAULT is tested on it).
 * Returns 0 when the call returned 0, the errno when it failed (errno is
 * left as the call set it), and -1 when it returned anything else, which
 * only a broken sysctl(2) can: guest_sysctl_ret holds the value.
 */
static inline int guest_sysctl_args(struct __sysctl_args *args)
{
	guest_sysctl_ret = syscall(sysctl_nr, args);
	if (guest_sysctl_ret == -1)
		return errno;
	return guest_sysctl_ret ? -1 : 0;
}

/* The same, with the argument block built from the fields. */
static inline int guest_sysctl(const int *name, int nlen, void *oldval,
			       size_t *oldlenp, const void *newval,
			       size_t newlen)
{
	struct __sysctl_args args = {
		.name = (int *)name, .nlen = nlen,
		.oldval = oldval, .oldlenp = oldlenp,
		.newval = (void *)newval, .newlen = newlen,
	};

	return guest_sysctl_args(&args);
}

/* --- the clock --- */

/* CLOCK_MONOTONIC in ns. */
static inline uint64_t guest_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

/* CLOCK_MONOTONIC in seconds. */
static inline double guest_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

#endif /* GUEST_H */
