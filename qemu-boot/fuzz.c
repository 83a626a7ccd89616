// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz: a seeded, reproducible fuzzer for the restored sysctl(2).
 *
 * Meant to run inside a QEMU guest, as root, as a child of the smoke test
 * (qemu-boot/smoke.c runs every program of /tests).  Never run it on a
 * machine you care about: it calls the system call with garbage.
 *
 * It makes a bounded number of calls, each with arguments drawn from its
 * own PRNG: names that hit the translation table (per-interface names
 * included) or random ones, every nlen from negative to huge, and in every
 * pointer field (the argument block itself, name, oldval, oldlenp, newval)
 * NULL, unmapped, kernel-space, read-only, page-straddling, misaligned or
 * good pointers, with oldlen and newlen from 0 to SIZE_MAX.
 *
 * Writes go only where they cannot stop the guest: the process first moves
 * to a new network and a new UTS namespace, and newval is non-NULL only
 * when the name the kernel will read is under CTL_NET or is exactly
 * kernel.hostname or kernel.domainname.  Without the namespaces nothing is
 * written at all.
 *
 * After each call it checks: the return value and errno are ones the
 * contract allows; an error the contract fixes (EFAULT for an unreadable
 * block, name or oldlenp, ENOTDIR for a bad nlen, an unknown top level or
 * an interface that does not exist) is the one returned; no
 * EFAULT when every pointer is good; no success that would have needed a
 * bad pointer; nothing written at oldval past the oldlen the kernel read
 * (guard bytes) nor, on success, past the length it reports; the reported
 * length is at most the one passed in, and 0 without oldval (oldlenp is
 * read and written back whenever it is given); *oldlenp and the inputs
 * untouched on failure.  The kernel's own reports (KASAN, UBSAN, lockdep, BUG,
 * WARNING) are judged on the console by qemu-boot/run.sh.
 *
 * Output, on stdout, in KTAP (guest.h) with one result: diagnostics with
 * the seed and the count first, a progress line every 10000 calls, then
 * the number of calls, of successes, one line per errno seen, the number
 * of calls of each kind of bad input, then the result, whose text is the
 * figure "fuzz: N calls, M failures", "ok" without failures, and the
 * totals.  Exit 0 without failures, else 1 (a kernel without sysctl(2),
 * ENOSYS, is a failure too: "not ok 1 fuzz: 0 calls, 1 failures").
 * GUEST_SYSCTL_NR=N in the environment makes it call system call N
 * instead, to see it fail.
 *
 * Reproduce:  FUZZ_SEED=S FUZZ_CALLS=N ./fuzz    or    ./fuzz -s S -n N
 * Every call draws from its own stream (seed, call number), so one call
 * can be replayed alone, with its arguments printed:  ./fuzz -s S -f I -n 1 -v
 * (the state the earlier calls left in the namespaces is not replayed).
 * In the guest, kernel arguments become the environment: boot with
 * "FUZZ_SEED=S FUZZ_CALLS=N", and FUZZ_FIRST=I (-f) and FUZZ_VERBOSE=1
 * (-v, print every call) replay one call there.
 *
 * The default 100000 calls take 50 to 110 s each way on the KASAN kernel
 * under TCG, 6 s on the plain one: within the 300 s smoke.c allows.
 *
 * Build:  gcc -static -O2 -Wall -Wextra -Werror -o fuzz fuzz.c
 *         gcc -m32 -static -O2 -Wall -Wextra -Werror -o fuzz_32 fuzz.c
 * The 32-bit build goes through the compat entry point.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/sysctl.h>
#include <net/if.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "guest.h"

#define PAGE		4096UL
#define NAME_SLOTS	(CTL_MAXNAME + 2)
#define PROGRESS	10000
#define MAX_REPORTS	40
#define MAX_ERRNO	4096

/*
 * The memory the pointers point into: one mapping, in which the pages
 * marked HOLE are unmapped again, so that each area is followed by a page
 * that faults.  OLD is the oldval arena: larger than anything the kernel
 * may store (a vector of at most PAGE_SIZE - 1 characters of text gives at
 * most 2048 elements of 8 bytes), so that even with a huge oldlen a store
 * lands in it and the guard bytes can be checked.
 */
enum {
	PG_ARGS = 0, PG_ARGS_HOLE,
	PG_NAME, PG_NAME_HOLE,
	PG_LENP, PG_LENP_HOLE,
	PG_OLD, PG_OLD_HOLE = PG_OLD + 6,
	PG_EDGE, PG_EDGE_HOLE,
	PG_NEW, PG_NEW_HOLE = PG_NEW + 2,
	PG_RO, PG_RO_HOLE,
	NPAGES
};

#define OLD_SIZE	((PG_OLD_HOLE - PG_OLD) * PAGE)
#define NEW_SIZE	((PG_NEW_HOLE - PG_NEW) * PAGE)
/* Offsets in the read-only page: a name, then oldlen values. */
#define RO_NAME		0
#define RO_LENS		64

static const int holes[] = {
	PG_ARGS_HOLE, PG_NAME_HOLE, PG_LENP_HOLE, PG_OLD_HOLE, PG_EDGE_HOLE,
	PG_NEW_HOLE, PG_RO_HOLE,
};

static const size_t ro_lens[] = {
	0, 1, 4, 16, 64, PAGE, SIZE_MAX, SIZE_MAX / 2, (size_t)1 << 31,
};

/* What a pointer field holds. */
enum kind {
	K_GOOD, K_MISALIGNED, K_NULL, K_UNMAPPED, K_KERNEL, K_READONLY,
	K_PARTIAL, K_RANDOM, K_NR
};

static const char *const kind_names[K_NR] = {
	"good", "misaligned", "NULL", "unmapped", "kernel", "read-only",
	"page-straddling", "random",
};

struct ptr {
	enum kind kind;
	char *p;
	long rd;		/* bytes readable there, -1 unknown */
	long wr;		/* bytes writable there */
};

struct call {
	unsigned long long idx;
	int name[NAME_SLOTS];	/* as generated */
	int len;		/* its length */
	int nlen;
	int ifpos;		/* its position, or -1 */
	const int *kname;	/* the name the kernel reads, when we know it */
	int safe;
	struct ptr args, nm, old, lenp, new;
	size_t oldlen;		/* what the kernel reads at oldlenp */
	int oldlen_known;
	size_t newlen;
	struct __sysctl_args a;	/* what the argument block holds */
	long ret;
	int err;
	size_t newoldlen;	/* *oldlenp after the call */
};

static char *mem;			/* the NPAGES mapping */
static unsigned char old_tpl[OLD_SIZE];	/* what the arena holds between calls */
static unsigned char lenp_tpl[PAGE];
static uintptr_t kaddrs[8];
static int nkaddrs;
#define MAX_IFINDEX	256
static unsigned char ifexists[MAX_IFINDEX];	/* in our namespace */
static int writes_ok;			/* in our own namespaces */
static int net_ok;			/* the CTL_NET table is there */
static int verbose;
/*
 * A clean call has good pointers and the real nlen, so that it gets as far
 * as the file: only its name, lengths and values are fuzzed.
 */
static int clean;

static unsigned long long calls, successes, failures;
static unsigned long long errs[MAX_ERRNO], err_other;
static unsigned long long n_bad_args, n_bad_name, n_bad_old, n_bad_lenp;
static unsigned long long n_bad_new, n_bad_nlen, n_huge_old, n_huge_new;
static unsigned long long n_clean, n_writes, n_writes_ok, n_misaligned;
static unsigned long long n_random_name, n_ifnames;

/* --- PRNG: splitmix64 seeds one xorshift64* stream per call --- */

static uint64_t rng;

static uint64_t splitmix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static void rng_seed(uint64_t seed, uint64_t idx)
{
	rng = splitmix64(seed ^ splitmix64(idx));
	if (!rng)
		rng = 1;
}

static uint64_t rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545f4914f6cdd1dULL;
}

static uint64_t below(uint64_t n)
{
	return rnd() % n;
}

static int percent(unsigned int p)
{
	return below(100) < p;
}

/* Picks an index with the given weights. */
static int pick(const unsigned char *w, int n)
{
	unsigned int total = 0, r;
	int i;

	for (i = 0; i < n; i++)
		total += w[i];
	r = below(total);
	for (i = 0; i < n; i++) {
		if (r < w[i])
			return i;
		r -= w[i];
	}
	return n - 1;
}

/* --- names --- */

/*
 * The directories of the translation table, and a few top levels it does
 * not have.  IF marks the per-interface directories: an interface index
 * (or "all", "default") comes next.
 */
#define IF	1

struct prefix {
	unsigned char weight;
	unsigned char flags;
	unsigned char len;
	int comp[4];
	short lo, hi;		/* where its numbers are */
};

static const struct prefix prefixes[] = {
	{ 10, 0, 1, { CTL_KERN }, 1, 78 },
	{ 2, 0, 2, { CTL_KERN, KERN_RANDOM }, 1, 6 },
	{ 1, 0, 2, { CTL_KERN, KERN_PTY }, 1, 2 },
	{ 6, 0, 1, { CTL_VM }, 1, 36 },
	{ 5, 0, 1, { CTL_FS }, 1, 20 },
	{ 1, 0, 2, { CTL_FS, FS_DQSTATS }, 1, 9 },
	{ 1, 0, 2, { CTL_FS, FS_XFS }, 1, 20 },
	{ 1, 0, 2, { CTL_FS, FS_INOTIFY }, 1, 3 },
	{ 1, 0, 3, { CTL_FS, FS_OCFS2, 1 }, 1, 2 },
	{ 1, 0, 2, { CTL_DEV, DEV_RAID }, 1, 2 },
	{ 1, 0, 2, { CTL_DEV, DEV_MAC_HID }, 1, 6 },
	{ 1, 0, 2, { CTL_DEV, DEV_SCSI }, 1, 2 },
	{ 1, 0, 2, { CTL_DEV, DEV_IPMI }, 1, 2 },
	{ 1, 0, 1, { CTL_DEV }, 1, 8 },
	{ 1, 0, 2, { CTL_BUS, CTL_BUS_ISA }, 1, 3 },
	{ 1, 0, 1, { CTL_S390DBF }, 5677, 5680 },
	{ 1, 0, 1, { CTL_SUNRPC }, 1, 12 },
	{ 1, 0, 1, { CTL_DEBUG }, 1, 20 },
	{ 1, 0, 1, { CTL_ABI }, 1, 10 },
	{ 1, 0, 1, { CTL_PM }, 1, 10 },
	{ 2, 0, 1, { CTL_NET }, 1, 20 },
	{ 6, 0, 2, { CTL_NET, NET_CORE }, 1, 22 },
	{ 2, 0, 2, { CTL_NET, NET_UNIX }, 1, 3 },
	{ 12, 0, 2, { CTL_NET, NET_IPV4 }, 8, 125 },
	{ 3, 0, 3, { CTL_NET, NET_IPV4, NET_IPV4_ROUTE }, 1, 17 },
	{ 10, IF, 3, { CTL_NET, NET_IPV4, NET_IPV4_CONF }, 1, 20 },
	{ 6, IF, 3, { CTL_NET, NET_IPV4, NET_IPV4_NEIGH }, 1, 18 },
	{ 2, 0, 2, { CTL_NET, NET_IPV6 }, 1, 20 },
	{ 8, IF, 3, { CTL_NET, NET_IPV6, NET_IPV6_CONF }, 1, 23 },
	{ 5, IF, 3, { CTL_NET, NET_IPV6, NET_IPV6_NEIGH }, 1, 18 },
	{ 1, 0, 3, { CTL_NET, NET_IPV6, NET_IPV6_ROUTE }, 1, 12 },
	{ 1, 0, 3, { CTL_NET, NET_IPV6, NET_IPV6_ICMP }, 1, 2 },
	{ 1, IF, 2, { CTL_NET, NET_AX25 }, 1, 14 },
	{ 1, 0, 2, { CTL_NET, NET_NETROM }, 1, 12 },
	{ 1, 0, 2, { CTL_NET, NET_ROSE }, 1, 12 },
	{ 1, 0, 2, { CTL_NET, NET_X25 }, 1, 6 },
	{ 1, 0, 2, { CTL_NET, NET_SCTP }, 1, 20 },
	{ 1, 0, 2, { CTL_NET, NET_ATALK }, 1, 4 },
	{ 1, 0, 2, { CTL_NET, NET_NETFILTER }, 1, 32 },
	{ 1, 0, 4, { CTL_NET, NET_LLC, NET_LLC2, NET_LLC2_TIMEOUT }, 1, 4 },
};

/* The top levels the translation table has. */
static const int roots[] = {
	CTL_KERN, CTL_VM, CTL_NET, CTL_FS, CTL_DEV, CTL_BUS, CTL_S390DBF,
	CTL_SUNRPC,
};

static int random_int(void)
{
	static const int special[] = {
		0, 1, -1, 2, INT_MAX, INT_MIN, INT_MAX - 1, INT_MIN + 1,
		CTL_MAXNAME, 255, 256, 65535, 65536,
	};

	switch (below(3)) {
	case 0:
		return special[below(ARRAY_SIZE(special))];
	case 1:
		return (int)below(2048) - 1024;
	default:
		return (int)rnd();
	}
}

/* The interface component: lo, all, default or one that does not exist. */
static int random_ifindex(void)
{
	static const unsigned char w[] = { 40, 8, 8, 12, 12, 6, 6, 4, 4 };

	switch (pick(w, ARRAY_SIZE(w))) {
	case 0:
		return 1;				/* lo */
	case 1:
		return 0;
	case 2:
		return -1;
	case 3:
		return NET_PROTO_CONF_ALL;
	case 4:
		return NET_PROTO_CONF_DEFAULT;
	case 5:
		return 2 + below(64);
	case 6:
		return INT_MAX;
	case 7:
		return INT_MIN;
	default:
		return (int)rnd();
	}
}

static int random_leaf(const struct prefix *pf)
{
	static const int special[] = { 5678, 5679, 2089, 988, 7249, 69 };
	static const unsigned char w[] = { 15, 12, 4, 4, 5, 60 };

	switch (pick(w, ARRAY_SIZE(w))) {
	case 5:
		return pf->lo + below(pf->hi - pf->lo + 1);
	case 0:
		return below(41);
	case 1:
		return below(151);
	case 2:
		return special[below(ARRAY_SIZE(special))];
	case 3:
		return -(int)below(8);
	default:
		return random_int();
	}
}

static const struct prefix *pick_prefix(void)
{
	unsigned int total = 0, r;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(prefixes); i++)
		total += prefixes[i].weight;
	r = below(total);
	for (i = 0; r >= prefixes[i].weight; i++)
		r -= prefixes[i].weight;
	return &prefixes[i];
}

static void structured_name(struct call *c)
{
	const struct prefix *pf = pick_prefix();
	int i, extra;

	for (i = 0; i < pf->len; i++)
		c->name[i] = pf->comp[i];
	c->len = pf->len;
	if (pf->flags & IF) {
		c->ifpos = c->len;
		c->name[c->len++] = random_ifindex();
		n_ifnames++;
	}
	/* Mostly a file; sometimes the directory, sometimes deeper. */
	if (percent(92))
		c->name[c->len++] = random_leaf(pf);
	if (percent(6))
		for (extra = 1 + below(3); extra && c->len < CTL_MAXNAME; extra--)
			c->name[c->len++] = random_leaf(pf);
}

static void make_name(struct call *c)
{
	int i;

	c->ifpos = -1;
	for (i = 0; i < NAME_SLOTS; i++)
		c->name[i] = below(4) ? (int)below(151) : random_int();
	if (percent(5)) {
		c->name[0] = CTL_KERN;
		c->name[1] = percent(50) ? KERN_NODENAME : KERN_DOMAINNAME;
		c->len = 2;
	} else if (percent(88)) {
		structured_name(c);
	} else {
		c->len = 1 + below(CTL_MAXNAME);
		if (percent(50))
			c->name[0] = roots[below(ARRAY_SIZE(roots))];
		n_random_name++;
	}
}

static void make_nlen(struct call *c)
{
	static const unsigned char w[] = { 84, 3, 1, 1, 3, 2, 1, 1, 4 };

	switch (clean ? 0 : pick(w, ARRAY_SIZE(w))) {
	case 0:
		c->nlen = c->len;
		return;
	case 1:
		c->nlen = -1;
		break;
	case 2:
		c->nlen = INT_MIN;
		break;
	case 3:
		c->nlen = -(int)below(INT_MAX);
		break;
	case 4:
		c->nlen = 0;
		break;
	case 5:
		c->nlen = CTL_MAXNAME + 1;
		break;
	case 6:
		c->nlen = INT_MAX;
		break;
	case 7:
		c->nlen = CTL_MAXNAME + 1 + below(INT_MAX - CTL_MAXNAME - 1);
		break;
	default:
		/* Another valid length: the name cut short or run on. */
		c->nlen = 1 + below(CTL_MAXNAME);
		return;
	}
	n_bad_nlen++;
}

static int nlen_valid(const struct call *c)
{
	return c->nlen >= 1 && c->nlen <= CTL_MAXNAME;
}

/* Whether the name at @n, of @nlen components, may be written. */
static int safe_name(const int *n, int nlen)
{
	if (nlen >= 1 && n[0] == CTL_NET)
		return 1;
	return nlen == 2 && n[0] == CTL_KERN &&
	       (n[1] == KERN_NODENAME || n[1] == KERN_DOMAINNAME);
}

/* --- pointers --- */

static char *page(int pg)
{
	return mem + pg * PAGE;
}

static char *unmapped(void)
{
	return page(holes[below(ARRAY_SIZE(holes))]) + below(PAGE);
}

static char *kernel_addr(void)
{
	uintptr_t a;

	if (!nkaddrs)
		return unmapped();
	a = kaddrs[below(nkaddrs)];

	if (!percent(80))
		a += below(64);
	return (char *)a;
}

static char *random_addr(void)
{
	return (char *)(uintptr_t)rnd();
}

static enum kind pick_kind(const unsigned char *w)
{
	if (clean)
		return percent(80) ? K_GOOD : K_MISALIGNED;
	return (enum kind)pick(w, K_NR);
}

/* Bytes readable and writable at @x: -1 for unknown. */
static void set_room(struct ptr *x, long n)
{
	x->rd = n;
	x->wr = n;
}

/* Offset of a good pointer: aligned to @align, or not. */
static unsigned long offset(enum kind k, unsigned long align,
			    unsigned long span)
{
	unsigned long off = below(span / align) * align;

	if (k == K_MISALIGNED)
		off += 1 + below(align > 1 ? align - 1 : 1);
	return off;
}

/*
 * Fills @x for one of the bad kinds, the same way for every field;
 * @size is the size of the object, for the page-straddling pointer.
 */
static int bad_ptr(struct ptr *x, size_t size, char *edge)
{
	long k;

	set_room(x, 0);
	switch (x->kind) {
	case K_NULL:
		x->p = NULL;
		return 1;
	case K_UNMAPPED:
		x->p = unmapped();
		return 1;
	case K_KERNEL:
		x->p = kernel_addr();
		return 1;
	case K_RANDOM:
		x->p = random_addr();
		set_room(x, -1);
		return 1;
	case K_PARTIAL:
		/* @edge is the start of a hole: @k bytes before it are ours. */
		k = size > 1 ? 1 + below(size - 1) : 0;
		x->p = edge - k;
		set_room(x, k);
		return 1;
	default:
		return 0;
	}
}

static void make_name_ptr(struct call *c)
{
	static const unsigned char w[K_NR] = { 70, 18, 2, 2, 2, 2, 2, 2 };
	size_t size = NAME_SLOTS * sizeof(int);
	struct ptr *x = &c->nm;
	unsigned long off;

	x->kind = pick_kind(w);
	c->kname = NULL;
	if (x->kind == K_READONLY) {
		x->p = page(PG_RO) + RO_NAME;
		x->rd = PAGE - RO_NAME;
		x->wr = 0;
		c->kname = (const int *)x->p;
	} else if (bad_ptr(x, size, page(PG_NAME_HOLE))) {
		if (x->kind == K_PARTIAL) {
			memcpy(x->p, c->name, x->rd);
			if (nlen_valid(c) &&
			    (long)(c->nlen * sizeof(int)) <= x->rd)
				c->kname = (const int *)x->p;
		}
	} else {
		off = offset(x->kind, sizeof(int), PAGE - size);
		x->p = page(PG_NAME) + off;
		set_room(x, PAGE - off);
		memcpy(x->p, c->name, size);
		c->kname = (const int *)x->p;
	}
	if (x->kind != K_GOOD && x->kind != K_MISALIGNED &&
	    x->kind != K_READONLY)
		n_bad_name++;
}

/*
 * A length: @base plus a random amount below @span, with @step between
 * the values; a @span of 0 gives @base, ANY gives any value at all.
 */
#define ANY	SIZE_MAX

struct len_pick {
	unsigned char weight;
	size_t base, span, step;
};

static const struct len_pick oldlens[] = {
	{ 10, 0, 0, 1 },
	{ 8, 1, 0, 1 },
	{ 12, 2, 15, 1 },		/* small */
	{ 14, 4, 0, 1 },		/* one int */
	{ 12, 8, 32, 8 },		/* a few ints, a ulong, a UUID */
	{ 8, 64, 192, 1 },
	{ 6, PAGE, 0, 1 },
	{ 4, PAGE - 1, 0, 1 },
	{ 4, PAGE + 1, 0, 1 },
	{ 3, OLD_SIZE, 0, 1 },
	{ 4, SIZE_MAX, 0, 1 },
	{ 3, SIZE_MAX / 2, 0, 1 },
	{ 3, (size_t)1 << 31, 0, 1 },
	{ 4, 0, ANY, 1 },
	{ 5, 0, 4 * PAGE, 1 },
};

static const struct len_pick newlens[] = {
	{ 10, 0, 0, 1 },
	{ 5, 1, 3, 1 },			/* not a whole int */
	{ 28, 4, 0, 1 },		/* one int */
	{ 8, 8, 0, 1 },
	{ 5, 12, 16, 4 },
	{ 10, 0, 65, 1 },
	{ 8, 0, PAGE + 1, 1 },
	{ 3, 64, 4032, 64 },
	{ 4, PAGE, 0, 1 },
	{ 4, PAGE + 1, 0, 1 },
	{ 3, PAGE + 2, 4 * PAGE, 1 },
	{ 4, SIZE_MAX, 0, 1 },
	{ 2, SIZE_MAX / 2, 0, 1 },
	{ 2, (size_t)1 << 31, 0, 1 },
	{ 4, 0, ANY, 1 },
};

static size_t pick_len(const struct len_pick *t, size_t n)
{
	unsigned int total = 0, r;
	size_t i;

	for (i = 0; i < n; i++)
		total += t[i].weight;
	r = below(total);
	for (i = 0; r >= t[i].weight; i++)
		r -= t[i].weight;
	t += i;
	if (t->span == ANY)
		return (size_t)rnd();
	if (!t->span)
		return t->base;
	return t->base + below(t->span / t->step) * t->step;
}

static void make_oldlen(struct call *c)
{
	c->oldlen = pick_len(oldlens, ARRAY_SIZE(oldlens));
}

static void make_lenp(struct call *c)
{
	static const unsigned char w[K_NR] = { 70, 12, 4, 3, 3, 4, 4, 0 };
	struct ptr *x = &c->lenp;
	unsigned long off;
	size_t slot;

	x->kind = pick_kind(w);
	c->oldlen_known = 0;
	if (x->kind == K_READONLY) {
		slot = below(ARRAY_SIZE(ro_lens));
		x->p = page(PG_RO) + RO_LENS + slot * sizeof(size_t);
		x->rd = sizeof(size_t);
		x->wr = 0;
		c->oldlen = ro_lens[slot];
		c->oldlen_known = 1;
	} else if (bad_ptr(x, sizeof(size_t), page(PG_LENP_HOLE))) {
		/* No random pointer here: the kernel writes through it. */
	} else {
		off = 64 + offset(x->kind, sizeof(size_t), PAGE - 128);
		x->p = page(PG_LENP) + off;
		set_room(x, PAGE - off);
		memcpy(x->p, &c->oldlen, sizeof(size_t));
		c->oldlen_known = 1;
	}
	if (x->kind != K_GOOD && x->kind != K_MISALIGNED)
		n_bad_lenp++;
}

static void make_old(struct call *c)
{
	static const unsigned char w[K_NR] = { 48, 16, 12, 6, 6, 6, 6, 0 };
	struct ptr *x = &c->old;

	x->kind = pick_kind(w);
	if (clean && percent(25))
		x->kind = K_NULL;
	if (x->kind == K_READONLY) {
		x->p = page(PG_RO) + below(PAGE);
		x->rd = page(PG_RO_HOLE) - x->p;
		x->wr = 0;
	} else if (bad_ptr(x, 64, page(PG_EDGE_HOLE))) {
		/* No random pointer here either. */
	} else {
		x->p = page(PG_OLD) + (x->kind == K_MISALIGNED ? 1 + below(15) : 0);
		set_room(x, page(PG_OLD_HOLE) - x->p);
	}
	if (x->kind != K_GOOD && x->kind != K_MISALIGNED && x->kind != K_NULL)
		n_bad_old++;
}

static int random_small_int(void)
{
	static const int v[] = { 0, 1, 2, -1, 3, 10, 100, 1000 };

	return percent(70) ? v[below(ARRAY_SIZE(v))] : (int)below(101);
}

/* Fills @buf with @len bytes of a value to write. */
static void fill_value(char *buf, size_t len)
{
	static const char seps[] = { ' ', '\n', '-' };
	size_t i;
	int v;

	switch (below(5)) {
	case 0:		/* small ints, as most files take */
		for (i = 0; i + sizeof(int) <= len; i += sizeof(int)) {
			v = random_small_int();
			memcpy(buf + i, &v, sizeof(v));
		}
		memset(buf + i, 0, len - i);
		break;
	case 1:		/* any ints */
		for (i = 0; i + sizeof(int) <= len; i += sizeof(int)) {
			v = random_int();
			memcpy(buf + i, &v, sizeof(v));
		}
		memset(buf + i, 0, len - i);
		break;
	case 2:		/* a digit string, as for a string file */
		for (i = 0; i < len; i++)
			buf[i] = below(12) ? (char)('0' + below(10)) :
				 seps[below(3)];
		break;
	case 3:		/* random bytes */
		for (i = 0; i < len; i++)
			buf[i] = rnd();
		break;
	default:	/* empty */
		memset(buf, 0, len);
		break;
	}
}

static void make_newlen(struct call *c)
{
	c->newlen = pick_len(newlens, ARRAY_SIZE(newlens));
}

static void make_new(struct call *c)
{
	static const unsigned char w[K_NR] = { 50, 8, 10, 7, 7, 6, 7, 5 };
	struct ptr *x = &c->new;
	unsigned long off;

	if (!c->safe) {
		/* Never a write, nor anything like one, to other names. */
		x->kind = K_NULL;
		x->p = NULL;
		set_room(x, 0);
		c->newlen = 0;
		return;
	}
	make_newlen(c);
	x->kind = pick_kind(w);
	if (x->kind == K_READONLY) {
		x->p = page(PG_RO) + below(PAGE);
		x->rd = page(PG_RO_HOLE) - x->p;
		x->wr = 0;
	} else if (bad_ptr(x, 64, page(PG_NEW_HOLE))) {
		if (x->kind == K_PARTIAL)
			fill_value(x->p, x->rd);
	} else {
		off = x->kind == K_MISALIGNED ? 1 + below(15) : 0;
		x->p = page(PG_NEW) + off;
		set_room(x, NEW_SIZE - off);
		fill_value(x->p, c->newlen < (size_t)x->rd ?
				 c->newlen : (size_t)x->rd);
	}
	if (x->kind != K_GOOD && x->kind != K_MISALIGNED &&
	    x->kind != K_READONLY && x->kind != K_NULL)
		n_bad_new++;
	if (x->p && c->newlen)
		n_writes++;
	if (x->p && c->newlen > PAGE + 1)
		n_huge_new++;
}

static void make_args(struct call *c)
{
	static const unsigned char w[K_NR] = { 76, 16, 2, 2, 2, 0, 2, 0 };
	struct ptr *x = &c->args;
	unsigned long off;

	memset(&c->a, 0, sizeof(c->a));
	c->a.name = (int *)c->nm.p;
	c->a.nlen = c->nlen;
	c->a.oldval = c->old.p;
	c->a.oldlenp = (size_t *)c->lenp.p;
	c->a.newval = c->new.p;
	c->a.newlen = c->newlen;
	if (percent(10))
		for (off = 0; off < ARRAY_SIZE(c->a.__unused); off++)
			c->a.__unused[off] = rnd();

	x->kind = pick_kind(w);
	if (bad_ptr(x, sizeof(c->a), page(PG_ARGS_HOLE))) {
		if (x->kind == K_PARTIAL)
			memcpy(x->p, &c->a, x->rd);
		n_bad_args++;
		return;
	}
	off = offset(x->kind, sizeof(long), PAGE - sizeof(c->a) - 64);
	x->p = page(PG_ARGS) + off;
	set_room(x, PAGE - off);
	memcpy(x->p, &c->a, sizeof(c->a));
}

static void make_call(struct call *c, uint64_t seed, unsigned long long idx)
{
	memset(c, 0, sizeof(*c));
	c->idx = idx;
	rng_seed(seed, idx);
	clean = percent(35);
	n_clean += clean;
	make_name(c);
	make_nlen(c);
	make_name_ptr(c);
	c->safe = writes_ok && nlen_valid(c) && c->kname &&
		  safe_name(c->kname, c->nlen);
	make_oldlen(c);
	make_lenp(c);
	make_old(c);
	make_new(c);
	make_args(c);
	if (c->old.p && c->oldlen_known && c->oldlen > 16 * PAGE)
		n_huge_old++;
	n_misaligned += (c->args.kind == K_MISALIGNED) +
			(c->nm.kind == K_MISALIGNED) +
			(c->old.kind == K_MISALIGNED) +
			(c->lenp.kind == K_MISALIGNED) +
			(c->new.kind == K_MISALIGNED);
}

/* --- reporting --- */

static const struct {
	int err;
	const char *name;
} errno_names[] = {
	{ EPERM, "EPERM" }, { ENOENT, "ENOENT" }, { EIO, "EIO" },
	{ ENXIO, "ENXIO" }, { E2BIG, "E2BIG" }, { EAGAIN, "EAGAIN" },
	{ ENOMEM, "ENOMEM" }, { EACCES, "EACCES" }, { EFAULT, "EFAULT" },
	{ EBUSY, "EBUSY" }, { ENODEV, "ENODEV" }, { ENOTDIR, "ENOTDIR" },
	{ EISDIR, "EISDIR" }, { EINVAL, "EINVAL" }, { ENOSPC, "ENOSPC" },
	{ ERANGE, "ERANGE" }, { ENAMETOOLONG, "ENAMETOOLONG" },
	{ ENOSYS, "ENOSYS" }, { EOPNOTSUPP, "EOPNOTSUPP" },
	{ EADDRINUSE, "EADDRINUSE" }, { EINTR, "EINTR" },
};

static const char *errname(int err)
{
	static char buf[32];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(errno_names); i++)
		if (errno_names[i].err == err)
			return errno_names[i].name;
	snprintf(buf, sizeof(buf), "errno %d", err);
	return buf;
}

static void describe(const struct call *c, char *buf, size_t size)
{
	const int *n = c->kname ? c->kname : c->name;
	int i, shown = nlen_valid(c) ? c->nlen : c->len;
	size_t len;

	len = snprintf(buf, size, "call %llu: name {", c->idx);
	for (i = 0; i < shown && len < size; i++)
		len += snprintf(buf + len, size - len, "%s%d", i ? "," : "",
				n[i]);
	if (len < size)
		snprintf(buf + len, size - len,
			 "} nlen %d; args %s %p, name %s %p, oldval %s %p, oldlenp %s %p (oldlen %zu%s), newval %s %p, newlen %zu: %s",
			 c->nlen, kind_names[c->args.kind], c->args.p,
			 kind_names[c->nm.kind], c->nm.p,
			 kind_names[c->old.kind], c->old.p,
			 kind_names[c->lenp.kind], c->lenp.p, c->oldlen,
			 c->oldlen_known ? "" : " unread",
			 kind_names[c->new.kind], c->new.p, c->newlen,
			 c->ret ? errname(c->err) : "success");
}

static __printf(2, 3)
void fail(const struct call *c, const char *fmt, ...)
{
	char buf[768], why[256];
	va_list ap;

	failures++;
	if (failures > MAX_REPORTS) {
		if (failures == MAX_REPORTS + 1)
			ktap_print("fuzz: more failures, not shown");
		return;
	}
	describe(c, buf, sizeof(buf));
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	ktap_print("FAIL %s; %s", buf, why);
}

/* --- checks --- */

/*
 * The errors the kernel may return, and why:
 *  EFAULT   a bad pointer in any field;
 *  ENOTDIR  nlen out of 1..CTL_MAXNAME, a name not in the table or naming
 *           a directory, or running on past a file;
 *  ENOENT   a translated name whose file does not exist (not built, or not
 *           in this network namespace), an interface index that does not
 *           exist, tcp_congestion_control set to an unknown algorithm;
 *  EACCES   the mode of the file: reading a write-only file
 *           (vm.drop_caches), writing a read-only one;
 *  EPERM    writing a UUID; tcp_congestion_control set to a restricted
 *           algorithm outside the initial network namespace;
 *  EINVAL   a newlen that is not a whole number of elements; a value the
 *           handler rejects (text written to a number, a value out of the
 *           range of proc_dointvec_minmax);
 *  E2BIG    a vector's newlen above PAGE_SIZE, or a vector whose text does
 *           not fit in a page (a string of any length is written);
 *  EIO      file text that is not a number where the table expects one
 *           (or a number beyond 64 bits), a UUID that does not parse;
 *  ENOMEM   the kernel buffers cannot be allocated;
 *  ERANGE   the range check of proc_douintvec_minmax and
 *           proc_dou8vec_minmax (many net.ipv4 settings);
 *  EBUSY    tcp_congestion_control set to an algorithm whose module is
 *           going away.
 * Not allowed, so reported as failures: ENAMETOOLONG (the longest
 * translated path is far below PATH_MAX, so it would mean the path is built
 * wrong), EISDIR (a table entry that is a file where /proc/sys has a
 * directory), EOPNOTSUPP, ENXIO, EAGAIN, ENODEV (no handler behind the
 * translated names returns them), and ERESTART*, EINTR and ENOSYS, which
 * must never reach a caller.
 */
static int allowed_errno(int err)
{
	switch (err) {
	case EFAULT: case ENOTDIR: case ENOENT: case EACCES: case EPERM:
	case EINVAL: case E2BIG: case EIO: case ENOMEM: case ERANGE:
	case EBUSY:
		return 1;
	}
	return 0;
}

static int readable(const struct ptr *x, long need)
{
	return x->rd < 0 || x->rd >= need;
}

static int top_known(int top)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(roots); i++)
		if (roots[i] == top)
			return 1;
	return 0;
}

/*
 * Whether the name reaches an interface directory that does not exist:
 * only known in our own network namespace, where lo is all there is.
 */
static int missing_interface(const struct call *c)
{
	const int *n = c->kname;
	int i, v, conf, neigh;

	if (!writes_ok || !net_ok || c->ifpos < 0 || c->nlen <= c->ifpos)
		return 0;
	for (i = 0; i < c->ifpos; i++)
		if (n[i] != c->name[i])
			return 0;
	v = n[c->ifpos];
	if (v > 0 && (v >= MAX_IFINDEX || ifexists[v]))
		return 0;
	/* NET_IPV4_CONF == NET_IPV6_CONF, NET_IPV4_NEIGH == NET_IPV6_NEIGH */
	conf = c->name[1] != NET_AX25 && c->name[2] == NET_IPV4_CONF;
	neigh = c->name[1] != NET_AX25 && c->name[2] == NET_IPV4_NEIGH;
	if (v == NET_PROTO_CONF_DEFAULT && (conf || neigh))
		return 0;
	return !(v == NET_PROTO_CONF_ALL && conf);
}

#define E_FAULT		1
#define E_NOTDIR	2

/*
 * The errors the contract fixes for this call, whatever the order of the
 * kernel's checks: the call must fail with one of them.  0 when it fixes
 * none.
 */
static int expected(const struct call *c)
{
	int mask = 0, other_bad;

	if (!readable(&c->args, sizeof(c->a)))
		return E_FAULT;
	if (c->args.kind == K_RANDOM)
		return 0;
	if (!nlen_valid(c))
		mask |= E_NOTDIR;
	if ((c->old.p || c->lenp.p) && !readable(&c->lenp, sizeof(size_t)))
		mask |= E_FAULT;
	if (nlen_valid(c) && !readable(&c->nm, c->nlen * sizeof(int)))
		mask |= E_FAULT;
	if (nlen_valid(c) && c->kname && !top_known(c->kname[0]))
		mask |= E_NOTDIR;
	if (nlen_valid(c) && c->kname && missing_interface(c))
		mask |= E_NOTDIR;
	if (!mask)
		return 0;
	/* Another bad pointer may be found first. */
	other_bad = (c->nlen > 0 && !readable(&c->nm, 1)) ||
		    (c->old.p && c->old.wr == 0) ||
		    ((c->old.p || c->lenp.p) && !readable(&c->lenp, sizeof(size_t))) ||
		    (c->new.p && c->newlen && !readable(&c->new, 1));
	return mask | (other_bad ? E_FAULT : 0);
}

static int errno_bit(int err)
{
	switch (err) {
	case EFAULT:
		return E_FAULT;
	case ENOTDIR:
		return E_NOTDIR;
	}
	return 0;
}

/* Whether every pointer the kernel may use is good. */
static int all_good(const struct call *c)
{
	if (c->args.kind != K_GOOD && c->args.kind != K_MISALIGNED)
		return 0;
	if (nlen_valid(c) && (c->nm.rd < 0 ||
			      c->nm.rd < (long)(c->nlen * sizeof(int))))
		return 0;
	if ((c->old.p || c->lenp.p) && c->lenp.wr < (long)sizeof(size_t))
		return 0;
	/* The arena takes any store; elsewhere, oldlen must fit. */
	if (c->old.p && c->old.kind != K_GOOD && c->old.kind != K_MISALIGNED &&
	    (c->old.wr < 0 || (size_t)c->old.wr < c->oldlen))
		return 0;
	/* A string of any length is read from newval, as 5.4 did. */
	if (c->new.p && c->newlen &&
	    (c->new.rd < 0 || (size_t)c->new.rd < c->newlen))
		return 0;
	return 1;
}

/* Why this call must not succeed, or NULL. */
static const char *must_fail(const struct call *c)
{
	if (expected(c))
		return "the contract fixes an error";
	if ((c->old.p || c->lenp.p) && c->lenp.wr < (long)sizeof(size_t) &&
	    c->lenp.rd >= 0)
		return "oldlenp is not writable";
	/*
	 * A vector's write reads only whole elements (a shorter newlen
	 * writes nothing, as in 5.4); the fuzzer does not know the name's
	 * type, so below the largest element it cannot tell.
	 */
	if (c->new.p && c->newlen >= sizeof(long) && c->new.rd >= 0 &&
	    (size_t)c->new.rd < c->newlen)
		return "newval is not readable";
	return NULL;
}

static void check_result(const struct call *c)
{
	int mask = expected(c);
	const char *why;

	if (c->ret != 0 && c->ret != -1) {
		fail(c, "returned %ld", c->ret);
		return;
	}
	if (c->ret == 0) {
		why = must_fail(c);
		if (why)
			fail(c, "succeeded, but %s", why);
		return;
	}
	if (!allowed_errno(c->err))
		fail(c, "errno %s is not one sysctl(2) may return",
		     errname(c->err));
	else if (mask && !(errno_bit(c->err) & mask))
		fail(c, "the contract wants %s%s",
		     mask & E_FAULT ? "EFAULT " : "",
		     mask & E_NOTDIR ? "ENOTDIR " : "");
	else if (c->err == EFAULT && all_good(c))
		fail(c, "EFAULT, but every pointer is good");
}

/* The bytes at oldval the kernel may have written. */
static size_t old_limit(const struct call *c)
{
	size_t room;

	if (!c->old.p || c->old.wr <= 0 || !c->oldlen_known)
		return 0;
	room = c->old.wr;
	return c->oldlen < room ? c->oldlen : room;
}

static long first_diff(const unsigned char *a, const unsigned char *b,
		       size_t len)
{
	size_t i;

	if (!memcmp(a, b, len))
		return -1;
	for (i = 0; i < len && a[i] == b[i]; i++)
		;
	return i;
}

/* The guard bytes of the arena; puts the arena back as it was. */
static void check_arena(const struct call *c)
{
	unsigned char *arena = (unsigned char *)page(PG_OLD);
	size_t start, limit = old_limit(c), ok;
	long d, bad = 0;

	if (c->old.kind != K_GOOD && c->old.kind != K_MISALIGNED)
		return;
	start = (unsigned char *)c->old.p - arena;
	ok = limit;
	/* On success, the kernel stored what it says, and a NUL at most. */
	if (c->ret == 0 && c->lenp.wr >= (long)sizeof(size_t) &&
	    c->newoldlen < ok)
		ok = c->newoldlen + 1;
	d = first_diff(arena, old_tpl, start);
	if (d >= 0) {
		fail(c, "byte %ld before oldval was written", (long)start - d);
		bad = 1;
	}
	d = first_diff(arena + start + ok, old_tpl + start + ok,
		       OLD_SIZE - start - ok);
	if (d >= 0) {
		fail(c, "oldval written at byte %ld, past %zu (oldlen %zu, stored %zu)",
		     (long)ok + d, ok, c->oldlen, c->newoldlen);
		bad = 1;
	}
	memcpy(arena, old_tpl, bad ? OLD_SIZE : start + limit);
}

static void check_oldlen(const struct call *c)
{
	unsigned char *pg = (unsigned char *)page(PG_LENP);
	size_t off;

	if (c->lenp.kind != K_GOOD && c->lenp.kind != K_MISALIGNED)
		return;
	off = (unsigned char *)c->lenp.p - pg;
	if (first_diff(pg + off - 32, lenp_tpl + off - 32, 32) >= 0 ||
	    first_diff(pg + off + sizeof(size_t),
		       lenp_tpl + off + sizeof(size_t), 32) >= 0)
		fail(c, "bytes next to *oldlenp were written");
	if (c->ret == 0 && c->old.p && c->newoldlen > c->oldlen)
		fail(c, "*oldlenp grew from %zu to %zu", c->oldlen,
		     c->newoldlen);
	else if (c->ret != 0 && c->newoldlen != c->oldlen)
		fail(c, "*oldlenp changed from %zu to %zu on failure",
		     c->oldlen, c->newoldlen);
	else if (c->ret == 0 && !c->old.p && c->newoldlen != 0)
		fail(c, "*oldlenp is %zu after a call without oldval, not 0",
		     c->newoldlen);
	if (c->ret == 0 && c->old.p && c->old.wr >= 0 &&
	    c->newoldlen > (size_t)c->old.wr)
		fail(c, "success storing %zu bytes where %ld are writable",
		     c->newoldlen, c->old.wr);
	memcpy(pg + off - 32, lenp_tpl + off - 32, 64 + sizeof(size_t));
}

static void check_inputs(const struct call *c)
{
	if ((c->args.kind == K_GOOD || c->args.kind == K_MISALIGNED) &&
	    memcmp(c->args.p, &c->a, sizeof(c->a)))
		fail(c, "the argument block was written");
	if ((c->nm.kind == K_GOOD || c->nm.kind == K_MISALIGNED) &&
	    memcmp(c->nm.p, c->name, NAME_SLOTS * sizeof(int)))
		fail(c, "the name was written");
}

/* --- the run --- */

static void do_call(struct call *c)
{
	/* The block itself may be a bad pointer: EFAULT is tested on it. */
	c->err = guest_sysctl_args((struct __sysctl_args *)c->args.p);
	c->ret = guest_sysctl_ret;
	if (c->err < 0)
		c->err = 0;
	if (c->lenp.wr >= (long)sizeof(size_t))
		memcpy(&c->newoldlen, c->lenp.p, sizeof(size_t));
	calls++;
	if (!c->ret) {
		successes++;
		if (c->new.p && c->newlen)
			n_writes_ok++;
	} else if (c->err >= 0 && c->err < MAX_ERRNO) {
		errs[c->err]++;
	} else {
		err_other++;
	}
}

static void one_call(uint64_t seed, unsigned long long idx)
{
	struct call c;
	char buf[768];

	make_call(&c, seed, idx);
	do_call(&c);
	if (verbose) {
		describe(&c, buf, sizeof(buf));
		ktap_print("%s, *oldlenp %zu", buf, c.newoldlen);
	}
	check_result(&c);
	check_arena(&c);
	check_oldlen(&c);
	check_inputs(&c);
}

/* Whether @addr is mapped in this process. */
static int mapped(uintptr_t addr)
{
	unsigned char vec;

	return !mincore((void *)(addr & ~(PAGE - 1)), PAGE, &vec);
}

static void setup_kaddrs(void)
{
	static const uintptr_t cand[] = {
#if defined(__x86_64__)
		0xffffffff81000000UL,	/* kernel text */
		0xffff888000000000UL,	/* the direct map */
		0xffffffffff600000UL,	/* vsyscall page */
		0x8000000000000000UL,	/* non-canonical */
		0x00007ffffffff000UL,	/* the last user page, never mapped */
		0xfffffffffffff000UL,	/* error pointers */
#else
		0xffffe000UL,		/* above the compat TASK_SIZE */
		0xfffff000UL,
		0xffffffc0UL,		/* runs past 4 GiB */
		0xc0000000UL,		/* i386 kernel space */
#endif
	};
	size_t i;

	/* Kernel space for the kernel is still ours to check here. */
	for (i = 0; i < ARRAY_SIZE(cand); i++)
		if (!mapped(cand[i]) && !mapped(cand[i] + 63))
			kaddrs[nkaddrs++] = cand[i];
}

static int setup_memory(void)
{
	size_t i;

	mem = mmap(NULL, NPAGES * PAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED) {
		ktap_print("fuzz: mmap: %s", strerror(errno));
		return -1;
	}
	rng_seed(0x5eed, 0);
	for (i = 0; i < OLD_SIZE; i++)
		old_tpl[i] = rnd();
	for (i = 0; i < PAGE; i++)
		lenp_tpl[i] = rnd();
	memcpy(page(PG_OLD), old_tpl, OLD_SIZE);
	memcpy(page(PG_LENP), lenp_tpl, PAGE);
	for (i = 0; i < PAGE; i++)
		page(PG_RO)[i] = rnd();
	memcpy(page(PG_RO) + RO_NAME,
	       (const int[]){ CTL_KERN, KERN_OSTYPE }, 2 * sizeof(int));
	memcpy(page(PG_RO) + RO_LENS, ro_lens, sizeof(ro_lens));
	for (i = 0; i < ARRAY_SIZE(holes); i++)
		munmap(page(holes[i]), PAGE);
	mprotect(page(PG_RO), PAGE, PROT_READ);
	setup_kaddrs();
	return 0;
}

/* The holes must stay holes: nothing may be mapped there by now. */
static int holes_intact(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(holes); i++)
		if (mapped((uintptr_t)page(holes[i])))
			return 0;
	return 1;
}

/*
 * Shows how a truncated read reports its length, next to the file: the
 * length stored, never the full one, and no NUL when there is no room.
 */
static void show_truncation(void)
{
	static const int name[] = { CTL_KERN, KERN_OSTYPE };
	char buf[64], text[64];
	size_t len;
	ssize_t tlen = -1;
	int fd, err;

	fd = open("/proc/sys/kernel/ostype", O_RDONLY);
	if (fd >= 0) {
		tlen = read(fd, text, sizeof(text) - 1);
		close(fd);
	}
	memset(buf, 'X', sizeof(buf));
	len = 3;
	err = guest_sysctl(name, 2, buf, &len, NULL, 0);
	ktap_print("note: kernel.ostype, oldlen 3: %s, *oldlenp %zu, \"%.4s\"; /proc/sys/kernel/ostype has %zd bytes",
		   err ? errname(err) : "success", len, buf, tlen);
	memset(buf, 'X', sizeof(buf));
	len = sizeof(buf);
	err = guest_sysctl(name, 2, buf, &len, NULL, 0);
	ktap_print("note: kernel.ostype, oldlen %zu: %s, *oldlenp %zu, NUL %s",
		   sizeof(buf), err ? errname(err) : "success", len,
		   !err && len < sizeof(buf) && !buf[len] ? "stored" : "not stored");
}

static int setup_namespaces(void)
{
	static const int somaxconn[] = { CTL_NET, NET_CORE, NET_CORE_SOMAXCONN };
	char ifname[IF_NAMESIZE];
	size_t len;
	int val, i;

	if (unshare(CLONE_NEWNET | CLONE_NEWUTS)) {
		ktap_print("fuzz: unshare(CLONE_NEWNET | CLONE_NEWUTS): %s; no writes, reads only",
			   strerror(errno));
		return 0;
	}
	len = sizeof(val);
	net_ok = !guest_sysctl(somaxconn, 3, &val, &len, NULL, 0);
	ktap_print("fuzz: in new network and UTS namespaces, writing to net.*, kernel.hostname, kernel.domainname");
	ktap_print("note: net.core.somaxconn %s",
		   net_ok ? "translated" : "not translated");
	for (i = 1; i < MAX_IFINDEX; i++) {
		if (!if_indextoname(i, ifname))
			continue;
		ifexists[i] = 1;
		ktap_print("note: interface %d is %s", i, ifname);
	}
	return 1;
}

/* The one result line, whose text is the figure, and the totals. */
static int result(void)
{
	ktap_result(!failures, "fuzz: %llu calls, %llu failures", calls,
		    failures);
	return ktap_finish();
}

/* Options and FUZZ_* are read before the KTAP header: a bad one fails. */
static unsigned long long number(const char *s, const char *what)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || !*s || *end) {
		ktap_header();
		ktap_plan(1);
		ktap_print("fuzz: bad %s '%s'", what, s);
		failures++;
		result();
		exit(2);
	}
	return v;
}

static void report(double secs)
{
	int i;

	ktap_print("calls: %llu", calls);
	ktap_print("successes: %llu", successes);
	for (i = 0; i < MAX_ERRNO; i++)
		if (errs[i])
			ktap_print("errno %s: %llu", errname(i), errs[i]);
	if (err_other)
		ktap_print("errno out of range: %llu", err_other);
	ktap_print("bad args pointer: %llu", n_bad_args);
	ktap_print("bad name pointer: %llu", n_bad_name);
	ktap_print("bad oldval: %llu", n_bad_old);
	ktap_print("bad oldlenp: %llu", n_bad_lenp);
	ktap_print("bad newval: %llu", n_bad_new);
	ktap_print("bad nlen: %llu", n_bad_nlen);
	ktap_print("huge oldlen: %llu", n_huge_old);
	ktap_print("huge newlen: %llu", n_huge_new);
	ktap_print("writes: %llu (%llu succeeded)", n_writes, n_writes_ok);
	ktap_print("misaligned pointers: %llu", n_misaligned);
	ktap_print("clean calls (good pointers, real nlen): %llu", n_clean);
	ktap_print("random names: %llu", n_random_name);
	ktap_print("per-interface names: %llu", n_ifnames);
	ktap_print("time: %.1f s", secs);
}

int main(int argc, char **argv)
{
	unsigned long long seed = 1, n = 100000, first = 0, i;
	const char *env;
	double start;
	int opt;

	setvbuf(stdout, NULL, _IOLBF, 0);
	env = getenv("FUZZ_SEED");
	if (env)
		seed = number(env, "FUZZ_SEED");
	env = getenv("FUZZ_CALLS");
	if (env)
		n = number(env, "FUZZ_CALLS");
	env = getenv("FUZZ_FIRST");
	if (env)
		first = number(env, "FUZZ_FIRST");
	env = getenv("FUZZ_VERBOSE");
	if (env && *env && strcmp(env, "0"))
		verbose = 1;
	while ((opt = getopt(argc, argv, "s:n:f:v")) != -1) {
		switch (opt) {
		case 's':
			seed = number(optarg, "seed");
			break;
		case 'n':
			n = number(optarg, "count");
			break;
		case 'f':
			first = number(optarg, "first call");
			break;
		case 'v':
			verbose = 1;
			break;
		default:
			printf("usage: %s [-s SEED] [-n CALLS] [-f FIRST] [-v]\n",
			       argv[0]);
			return 2;
		}
	}
	ktap_header();
	ktap_plan(1);
	guest_init("fuzz");
	ktap_print("fuzz: seed %llu, %llu calls from call %llu, %s, system call %ld (reproduce: FUZZ_SEED=%llu FUZZ_CALLS=%llu)",
		   seed, n, first, GUEST_BITS, sysctl_nr, seed, n);
	if (guest_sysctl_args(NULL) == ENOSYS) {
		ktap_print("fuzz: system call %ld is not there (ENOSYS)",
			   sysctl_nr);
		failures++;
		return result();
	}
	if (setup_memory()) {
		failures++;
		return result();
	}
	writes_ok = setup_namespaces();
	show_truncation();
	ktap_print("note: %d kernel-space addresses", nkaddrs);
	start = guest_now();
	for (i = first; i < first + n; i++) {
		one_call(seed, i);
		if ((i - first + 1) % PROGRESS == 0)
			ktap_print("progress: %llu calls, %llu failures, %.1f s%s",
				   i - first + 1, failures, guest_now() - start,
				   holes_intact() ? "" : ", HOLES MAPPED");
	}
	if (!holes_intact()) {
		ktap_print("fuzz: something was mapped in the holes");
		failures++;
	}
	report(guest_now() - start);
	return result();
}
