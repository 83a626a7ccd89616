/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the guest programs of stress/ share: the number of sysctl(2), which
 * STRESS_SYSCTL_NR=N in the environment replaces (the tests use a number no
 * kernel has, to see the programs fail), and numbers read from the
 * environment, where the guest's kernel command line puts KEY=VALUE.
 */
#ifndef STRESS_GUEST_H
#define STRESS_GUEST_H

#include <stdio.h>
#include <stdlib.h>

#if defined(__x86_64__)
#define SYSCTL_NR	156
#define GUEST_BITS	"64-bit, native entry point"
#elif defined(__i386__)
#define SYSCTL_NR	149
#define GUEST_BITS	"32-bit, compat entry point"
#else
#error "unknown sysctl(2) number for this architecture"
#endif

/* The system call the program makes; see guest_init(). */
static long sysctl_nr = SYSCTL_NR;

/*
 * The number in the environment variable @name, @def when it is unset;
 * @prog says so on stdout when it is not a number in min..max.
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
		printf("%s: ignoring %s=%s (want %d..%d)\n", prog, name, s, min,
		       max);
		return def;
	}
	return val;
}

/* Reads STRESS_SYSCTL_NR. */
static inline void guest_init(const char *prog)
{
	sysctl_nr = env_int(prog, "STRESS_SYSCTL_NR", SYSCTL_NR, 0, 4095);
}

#endif /* STRESS_GUEST_H */
