// SPDX-License-Identifier: GPL-2.0
/*
 * threads: a concurrency stress test of sysctl(2).
 *
 * Runs as root inside a guest, never on a host.  It first moves into new
 * network and UTS namespaces, so that every write lands in a throw-away
 * namespace, then runs THREADS_N threads (default 6) for THREADS_SECONDS
 * seconds (default 10).  The threads read and write the same names
 * (kernel.hostname, kernel.domainname, net.ipv4.ip_default_ttl,
 * net.ipv4.conf.lo.forwarding by ifindex, net.core.somaxconn) and each
 * also has a name of its own, mixing sysctl(2) with open/read/write and
 * pread of the same /proc/sys files.  Even threads mostly read and write
 * only their own name; odd threads mostly write.
 *
 * What counts as an error:
 *  - a value read, by either method, that no writer writes (torn, foreign,
 *    a stale length) or, for a name only one thread writes, that is not
 *    the value that thread wrote last;
 *  - sysctl(2) writing past the length it reports (the buffers are
 *    poisoned), or reporting a length that does not fit the value;
 *  - any errno, except the ones a probe asks for on purpose: ENOENT for a
 *    translated name without a file, ENOTDIR for an untranslated name, a
 *    directory or an interface index that does not exist, EACCES for a
 *    write to a read-only file, EINVAL for a value out of range.  Those
 *    are counted as "expected" and their absence is an error; so is a
 *    failing write of less than one int, which writes nothing.  No other errno is
 *    tolerated: the restart of a forwarding write that loses the race for
 *    the RTNL (ERESTARTNOINTR) must stay inside the kernel;
 *  - after the run, the original namespaces (entered again with setns())
 *    not holding the values they had before: a write escaped.
 *
 * /proc/sys files are read with a single read() at offset 0: a second
 * read() of a string file starts from its current value at that offset,
 * which may be another value, so a looped read could tear in user space.
 *
 * Prints KTAP (guest.h) with one result: one diagnostic line per thread
 * and the totals, then the result, whose text is the figure
 * "threads: N calls in S s, M errors", "ok" without errors; exits 0
 * without errors, else 1.  A run that cannot start (no namespaces, a name
 * that cannot be set up) is "not ok 1 threads: 0 calls in 0 s, M errors".
 * GUEST_SYSCTL_NR=N in the environment makes it call system call N
 * instead of sysctl(2), to see it fail.
 *
 * Build:  gcc -static -O2 -Wall -Wextra -Werror -pthread [-m32] threads.c
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/sysctl.h>
#include <net/if.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "guest.h"

#define DEFAULT_THREADS		6
#define MAX_THREADS		64
#define DEFAULT_SECONDS		10
#define MAX_REPORTS		10	/* error lines printed per thread */
#define MAX_VALUES		4
#define MAX_ELEMS		3
#define BUF_SIZE		256
#define POISON			0xa5
#define IFINDEX			-1	/* placeholder for lo's ifindex */

enum kind { K_STR, K_INT };

/* A name under test and the values that the writers write to it. */
struct var {
	const char *path;		/* below /proc/sys; "%s" is lo's name */
	int nlen;
	int name[CTL_MAXNAME];
	enum kind kind;
	int nelem;			/* ints per value, for K_INT */
	int nvalues;
	const char *str[MAX_VALUES];
	int ints[MAX_VALUES][MAX_ELEMS];
	int optional;			/* may be absent from the namespace */
	/* Set at run time. */
	int present;
	int owners;			/* threads whose own name it is */
	char file[128];			/* full /proc/sys path */
	char orig[BUF_SIZE];		/* text in the original namespaces */
};

/* The longest names the UTS fields hold: 64 characters. */
#define H64 "host-64-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
#define D64 "dom-64.xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx.org"
_Static_assert(sizeof(H64) == 65 && sizeof(D64) == 65, "64 characters");

#define NAME(...)	.name = { __VA_ARGS__ },			\
			.nlen = sizeof((int []) { __VA_ARGS__ }) / sizeof(int)
#define STRS(...)	.kind = K_STR, .str = { __VA_ARGS__ },		\
			.nvalues = sizeof((const char *[]) { __VA_ARGS__ }) / \
				   sizeof(const char *)
/* Values of one int each. */
#define INTS(...)	.kind = K_INT, .nelem = 1,			\
			.ints = { __VA_ARGS__ },			\
			.nvalues = sizeof((int [][1]) { __VA_ARGS__ }) /	\
				   sizeof(int[1])
/* Values of @n ints each. */
#define VECS(n, ...)	.kind = K_INT, .nelem = n,			\
			.ints = { __VA_ARGS__ },			\
			.nvalues = sizeof((int [][n]) { __VA_ARGS__ }) /	\
				   sizeof(int[n])
#define CONF(ifc, var)	NAME(CTL_NET, NET_IPV4, NET_IPV4_CONF, ifc, var)

/* The names that every thread reads and the odd threads write. */
static struct var shared[] = {
	{ .path = "kernel/hostname", NAME(CTL_KERN, KERN_NODENAME),
	  STRS("h", "host-two", "a-much-longer-host-name-3", H64) },
	{ .path = "kernel/domainname", NAME(CTL_KERN, KERN_DOMAINNAME),
	  STRS("d", "example.org", "stress.domain.example.net", D64) },
	{ .path = "net/ipv4/ip_default_ttl",
	  NAME(CTL_NET, NET_IPV4, NET_IPV4_DEFAULT_TTL),
	  INTS({ 64 }, { 1 }, { 128 }, { 255 }) },
	{ .path = "net/ipv4/conf/%s/forwarding",
	  CONF(IFINDEX, NET_IPV4_CONF_FORWARDING), INTS({ 0 }, { 1 }) },
	{ .path = "net/core/somaxconn",
	  NAME(CTL_NET, NET_CORE, NET_CORE_SOMAXCONN),
	  INTS({ 4096 }, { 128 }, { 1024 }), .optional = 1 },
};

#define NSHARED ((int)ARRAY_SIZE(shared))

/* One of these is each thread's own: the thread is its only writer. */
static struct var own[] = {
	{ .path = "net/ipv4/conf/%s/accept_redirects",
	  CONF(IFINDEX, NET_IPV4_CONF_ACCEPT_REDIRECTS), INTS({ 1 }, { 0 }) },
	{ .path = "net/ipv4/ip_local_port_range",
	  NAME(CTL_NET, NET_IPV4, NET_IPV4_LOCAL_PORT_RANGE),
	  VECS(2, { 32768, 60999 }, { 1024, 65535 }, { 20000, 30001 }) },
	{ .path = "net/ipv4/tcp_syn_retries",
	  NAME(CTL_NET, NET_IPV4, NET_IPV4_TCP_SYN_RETRIES),
	  INTS({ 6 }, { 3 }, { 5 }) },
	{ .path = "net/ipv4/conf/all/log_martians",
	  CONF(NET_PROTO_CONF_ALL, NET_IPV4_CONF_LOG_MARTIANS),
	  INTS({ 0 }, { 1 }) },
	{ .path = "net/ipv4/tcp_rmem", NAME(CTL_NET, NET_IPV4, NET_TCP_RMEM),
	  VECS(3, { 4096, 131072, 6291456 }, { 4096, 87380, 4194304 },
	       { 8192, 65536, 1048576 }) },
	{ .path = "net/ipv4/conf/%s/arp_ignore",
	  CONF(IFINDEX, NET_IPV4_CONF_ARP_IGNORE), INTS({ 0 }, { 1 }, { 2 }) },
	{ .path = "net/ipv4/tcp_fin_timeout",
	  NAME(CTL_NET, NET_IPV4, NET_IPV4_TCP_FIN_TIMEOUT),
	  INTS({ 60 }, { 30 }, { 45 }) },
	{ .path = "net/ipv4/icmp_ratemask",
	  NAME(CTL_NET, NET_IPV4, NET_IPV4_ICMP_RATEMASK),
	  INTS({ 6168 }, { 0 }, { 1 }) },
	{ .path = "net/ipv4/conf/%s/tag", CONF(IFINDEX, NET_IPV4_CONF_TAG),
	  INTS({ 0 }, { 7 }, { 123456 }) },
	{ .path = "net/ipv4/tcp_reordering",
	  NAME(CTL_NET, NET_IPV4, NET_TCP_REORDERING),
	  INTS({ 3 }, { 10 }, { 300 }) },
	{ .path = "net/ipv4/conf/%s/arp_announce",
	  CONF(IFINDEX, NET_IPV4_CONF_ARP_ANNOUNCE),
	  INTS({ 0 }, { 1 }, { 2 }) },
	{ .path = "net/ipv4/tcp_retries2",
	  NAME(CTL_NET, NET_IPV4, NET_IPV4_TCP_RETRIES2), INTS({ 15 }, { 8 }) },
	{ .path = "net/ipv4/conf/%s/medium_id",
	  CONF(IFINDEX, NET_IPV4_CONF_MEDIUM_ID), INTS({ 0 }, { 5 }, { 77 }) },
	{ .path = "net/ipv4/conf/default/log_martians",
	  CONF(NET_PROTO_CONF_DEFAULT, NET_IPV4_CONF_LOG_MARTIANS),
	  INTS({ 0 }, { 1 }) },
	{ .path = "net/ipv4/conf/%s/send_redirects",
	  CONF(IFINDEX, NET_IPV4_CONF_SEND_REDIRECTS), INTS({ 1 }, { 0 }) },
	{ .path = "net/ipv4/conf/%s/proxy_arp",
	  CONF(IFINDEX, NET_IPV4_CONF_PROXY_ARP), INTS({ 0 }, { 1 }) },
};

#define NOWN ((int)ARRAY_SIZE(own))

enum op {
	OP_SYS_READ, OP_SYS_WRITE, OP_SYS_RW, OP_PROC_READ, OP_PROC_PREAD,
	OP_PROC_WRITE, OP_PROBE, NR_OPS
};

/* Weights of the operations: [0] for readers, [1] for writers. */
static const int op_weight[2][NR_OPS] = {
	{ 35, 8, 5, 25, 15, 7, 5 },
	{ 15, 30, 10, 10, 5, 25, 5 },
};

struct thread {
	pthread_t tid;
	int id;
	int writer;
	struct var *own;
	int own_last;			/* value of own last written */
	unsigned int rng;
	int fds[NSHARED + 1];		/* for pread; [NSHARED] is own */
	unsigned long sys_calls, proc_calls, expected, errors;
	unsigned long ops[NR_OPS];
};

static struct thread threads[MAX_THREADS];
static int nthreads = DEFAULT_THREADS;
static int lo_ifindex = 1;
static char lo_name[IF_NAMESIZE] = "lo";
static int stop;

static const char *const op_names[NR_OPS] = {
	"sysctl read", "sysctl write", "sysctl read+write", "proc read",
	"proc pread", "proc write", "probe",
};

static __printf(2, 3)
void fail(struct thread *t, const char *fmt, ...)
{
	char why[4 * BUF_SIZE + 256];
	va_list ap;

	if (t && t->errors++ >= MAX_REPORTS)
		return;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	/* One diagnostic line, whole: ktap_print() locks stdout. */
	if (t)
		ktap_print("thread %d: error: %s", t->id, why);
	else
		ktap_print("threads: error: %s", why);
}

static unsigned int rnd(struct thread *t, unsigned int n)
{
	unsigned int x = t->rng;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	t->rng = x;
	return x % n;
}

static const char *var_name(const struct var *v)
{
	return v->file + strlen("/proc/sys/");
}

/* The value's text as /proc/sys shows it. */
static int value_text(const struct var *v, int idx, char *buf, size_t size)
{
	size_t len = 0;
	int i;

	if (v->kind == K_STR)
		return snprintf(buf, size, "%s\n", v->str[idx]);
	for (i = 0; i < v->nelem; i++)
		len += snprintf(buf + len, size - len, "%d%c", v->ints[idx][i],
				i + 1 < v->nelem ? '\t' : '\n');
	return len;
}

/* The value's binary form, as sysctl(2) takes and returns it. */
static size_t value_bin(const struct var *v, int idx, const void **p)
{
	if (v->kind == K_STR) {
		*p = v->str[idx];
		return strlen(v->str[idx]);
	}
	*p = v->ints[idx];
	return v->nelem * sizeof(int);
}

static int poisoned(const unsigned char *buf, size_t from, size_t to)
{
	for (; from < to; from++)
		if (buf[from] != POISON)
			return 0;
	return 1;
}

/*
 * Whether a sysctl(2) read of @req bytes that reported @got bytes in @buf
 * (poisoned beforehand, BUF_SIZE bytes) is a read of value @idx of @v.
 */
static int read_is(const struct var *v, int idx, const unsigned char *buf,
		   size_t req, size_t got)
{
	const void *val;
	size_t len = value_bin(v, idx, &val);

	if (v->kind == K_STR) {
		if (req > len) {
			/* The newline was read and became a NUL. */
			return got == len && !memcmp(buf, val, len) &&
			       buf[len] == '\0' &&
			       poisoned(buf, len + 1, BUF_SIZE);
		}
		return got == req && !memcmp(buf, val, req) &&
		       poisoned(buf, req, BUF_SIZE);
	}
	/* Whole ints only, as many as fit. */
	if (req / sizeof(int) < (size_t)v->nelem)
		len = req / sizeof(int) * sizeof(int);
	return got == len && !memcmp(buf, val, len) &&
	       poisoned(buf, len, BUF_SIZE);
}

/* Whether the text of a /proc/sys file is value @idx of @v. */
static int text_is(const struct var *v, int idx, const char *text,
		   ssize_t len)
{
	char want[BUF_SIZE];
	int wlen = value_text(v, idx, want, sizeof(want));

	return len == wlen && !memcmp(text, want, wlen);
}

/* Finds which value was read; -1 for none.  @own_last for an own name. */
static int match(struct thread *t, const struct var *v, int exact,
		 const unsigned char *buf, size_t req, size_t got, int text)
{
	int i;

	for (i = 0; i < v->nvalues; i++) {
		if (exact && i != t->own_last)
			continue;
		if (text ? text_is(v, i, (const char *)buf, got) :
			   read_is(v, i, buf, req, got))
			return i;
	}
	return -1;
}

/* Prints what was read, for an error line. */
static const char *shown(const struct var *v, const unsigned char *buf,
			 size_t len, int text, char *out, size_t size)
{
	size_t i, n = 0;

	if (len > BUF_SIZE)
		len = BUF_SIZE;
	if (text || v->kind == K_STR) {
		for (i = 0; i < len && n + 5 < size; i++)
			n += snprintf(out + n, size - n,
				      buf[i] >= 0x20 && buf[i] < 0x7f ? "%c" :
				      "\\x%02x", buf[i]);
	} else {
		for (i = 0; i + sizeof(int) <= len && n + 13 < size;
		     i += sizeof(int)) {
			int val;

			memcpy(&val, buf + i, sizeof(val));
			n += snprintf(out + n, size - n, "%s%d", i ? " " : "",
				      val);
		}
	}
	out[n] = '\0';
	return out;
}

static void check_read(struct thread *t, const struct var *v, int exact,
		       const unsigned char *buf, size_t req, size_t got,
		       int text, const char *how)
{
	char seen[4 * BUF_SIZE];

	if (match(t, v, exact, buf, req, got, text) >= 0)
		return;
	fail(t, "%s %s: read \"%s\" (%zu bytes of %zu)%s", how, var_name(v),
	      shown(v, buf, got, text, seen, sizeof(seen)), got, req,
	      exact ? ", not the value it last wrote" :
		      ", not a value any writer writes");
}

/* Whether @v is @t's own name with no other writer. */
static int is_exact(const struct thread *t, const struct var *v)
{
	return v == t->own && v->owners == 1;
}

static void op_sys_read(struct thread *t, struct var *v)
{
	unsigned char buf[BUF_SIZE];
	size_t req = BUF_SIZE, got;
	int err;

	/* One read in four asks for less than the whole value. */
	if (!rnd(t, 4))
		req = rnd(t, v->kind == K_STR ? 70 : v->nelem * sizeof(int) + 4);
	got = req;
	memset(buf, POISON, sizeof(buf));
	t->sys_calls++;
	err = guest_sysctl(v->name, v->nlen, buf, &got, NULL, 0);
	if (err) {
		fail(t, "sysctl(2) read %s: %s", var_name(v), strerror(err));
		return;
	}
	if (!req) {
		/* Nothing to read: no file opened, length 0. */
		if (got || !poisoned(buf, 0, BUF_SIZE))
			fail(t, "sysctl(2) read of 0 bytes of %s: %zu bytes",
			      var_name(v), got);
		return;
	}
	check_read(t, v, is_exact(t, v), buf, req, got, 0, "sysctl(2) read");
}

static void op_sys_write(struct thread *t, struct var *v, int with_old)
{
	unsigned char buf[BUF_SIZE];
	int idx = rnd(t, v->nvalues), err;
	size_t got = BUF_SIZE, len;
	const void *val;

	len = value_bin(v, idx, &val);
	/* Strings: with or without their NUL, both are whole values. */
	if (v->kind == K_STR && rnd(t, 2))
		len++;
	memset(buf, POISON, sizeof(buf));
	t->sys_calls++;
	err = guest_sysctl(v->name, v->nlen, with_old ? buf : NULL,
			 with_old ? &got : NULL, val, len);
	if (err) {
		fail(t, "sysctl(2) %s %s: %s",
		      with_old ? "read+write" : "write", var_name(v),
		      strerror(err));
		return;
	}
	if (with_old)
		check_read(t, v, is_exact(t, v), buf, BUF_SIZE, got, 0,
			   "sysctl(2) read+write");
	if (v == t->own)
		t->own_last = idx;
}

/* Opens the /proc/sys file of @v; counts the call. */
static int proc_open(struct thread *t, const struct var *v, int flags)
{
	int fd;

	t->proc_calls++;
	fd = open(v->file, flags | O_CLOEXEC);
	if (fd < 0)
		fail(t, "open %s: %s", v->file, strerror(errno));
	return fd;
}

static void op_proc_read(struct thread *t, struct var *v, int slot)
{
	unsigned char buf[BUF_SIZE];
	ssize_t len;
	int fd;

	if (slot >= 0) {
		if (t->fds[slot] < 0)
			t->fds[slot] = proc_open(t, v, O_RDONLY);
		fd = t->fds[slot];
	} else {
		fd = proc_open(t, v, O_RDONLY);
	}
	if (fd < 0)
		return;
	t->proc_calls++;
	len = slot >= 0 ? pread(fd, buf, sizeof(buf), 0) :
			  read(fd, buf, sizeof(buf));
	if (len < 0)
		fail(t, "%s %s: %s", slot >= 0 ? "pread" : "read", v->file,
		      strerror(errno));
	else
		check_read(t, v, is_exact(t, v), buf, sizeof(buf), len, 1,
			   slot >= 0 ? "pread" : "read");
	if (slot < 0) {
		t->proc_calls++;
		close(fd);
	}
}

static void op_proc_write(struct thread *t, struct var *v)
{
	char text[BUF_SIZE];
	int idx = rnd(t, v->nvalues), len, fd, i;
	ssize_t ret;

	len = value_text(v, idx, text, sizeof(text));
	/* Without the newline, and vectors with spaces, also parse. */
	if (rnd(t, 2))
		text[--len] = '\0';
	if (v->kind == K_INT && rnd(t, 2))
		for (i = 0; i < len; i++)
			if (text[i] == '\t')
				text[i] = ' ';
	fd = proc_open(t, v, O_WRONLY);
	if (fd < 0)
		return;
	t->proc_calls++;
	ret = write(fd, text, len);
	if (ret < 0)
		fail(t, "write %s: %s", v->file, strerror(errno));
	else if (ret != len)
		fail(t, "write %s: %zd of %d bytes", v->file, ret, len);
	else if (v == t->own)
		t->own_last = idx;
	t->proc_calls++;
	close(fd);
}

/* The calls that must fail, and how. */
static void op_probe(struct thread *t)
{
	static const int reboot_cmd[] = { CTL_KERN, KERN_SPARC_REBOOT };
	static const int untranslated[] = { CTL_KERN, 31337 };
	static const int ostype[] = { CTL_KERN, KERN_OSTYPE };
	static const int ttl[] = { CTL_NET, NET_IPV4, NET_IPV4_DEFAULT_TTL };
	int noif[] = { CTL_NET, NET_IPV4, NET_IPV4_CONF, lo_ifindex + 1000,
		       NET_IPV4_CONF_FORWARDING };
	int confdir[] = { CTL_NET, NET_IPV4, NET_IPV4_CONF, lo_ifindex };
	unsigned char buf[BUF_SIZE];
	size_t len = sizeof(buf);
	int want, err, bad, via_proc = 0;
	const char *what;
	short two = 1;

	switch (rnd(t, 8)) {
	case 0:
		what = "read of an interface that does not exist";
		want = ENOTDIR;
		err = guest_sysctl(noif, 5, buf, &len, NULL, 0);
		break;
	case 1:
		what = "read of kernel.reboot-cmd (no such file)";
		want = ENOENT;
		err = guest_sysctl(reboot_cmd, 2, buf, &len, NULL, 0);
		break;
	case 2:
		what = "read of an untranslated name";
		want = ENOTDIR;
		err = guest_sysctl(untranslated, 2, buf, &len, NULL, 0);
		break;
	case 3:
		what = "read of the directory net.ipv4.conf.lo";
		want = ENOTDIR;
		err = guest_sysctl(confdir, 4, buf, &len, NULL, 0);
		break;
	case 4:
		what = "write of the read-only kernel.ostype";
		want = EACCES;
		err = guest_sysctl(ostype, 2, NULL, NULL, "Plan9", 5);
		break;
	case 5:
		bad = rnd(t, 2) ? 0 : 256;
		what = bad ? "write of ttl 256" : "write of ttl 0";
		want = EINVAL;
		err = guest_sysctl(ttl, 3, NULL, NULL, &bad, sizeof(bad));
		break;
	case 6:
		what = "write of 2 bytes to the int ttl (writes nothing)";
		want = 0;
		err = guest_sysctl(ttl, 3, NULL, NULL, &two, sizeof(two));
		break;
	default: {
		int fd;
		ssize_t ret;

		what = "proc write of ttl 0";
		want = EINVAL;
		via_proc = 1;
		fd = proc_open(t, &shared[2], O_WRONLY);
		if (fd < 0)
			return;
		ret = write(fd, "0\n", 2);
		err = ret < 0 ? errno : 0;
		close(fd);
		t->proc_calls += 2;
		break;
	}
	}
	if (!via_proc)
		t->sys_calls++;
	if (err == want)
		t->expected++;
	else
		fail(t, "%s: %s, want %s", what, err ? strerror(err) : "success",
		      strerror(want));
}

static struct var *pick_var(struct thread *t, int *slot)
{
	int i;

	if (t->own && rnd(t, 10) < 3) {
		*slot = NSHARED;
		return t->own;
	}
	do
		i = rnd(t, NSHARED);
	while (!shared[i].present);
	*slot = i;
	return &shared[i];
}

static void *thread_main(void *arg)
{
	struct thread *t = arg;
	const int *w = op_weight[t->writer];
	int total = 0, i;

	for (i = 0; i < NR_OPS; i++)
		total += w[i];
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		int r = rnd(t, total), op = 0, slot;
		struct var *v = pick_var(t, &slot);

		while (r >= w[op])
			r -= w[op++];
		/* Readers write their own name only. */
		if (!t->writer && v != t->own &&
		    (op == OP_SYS_WRITE || op == OP_SYS_RW ||
		     op == OP_PROC_WRITE))
			op = OP_SYS_READ;
		t->ops[op]++;
		switch (op) {
		case OP_SYS_READ:
			op_sys_read(t, v);
			break;
		case OP_SYS_WRITE:
			op_sys_write(t, v, 0);
			break;
		case OP_SYS_RW:
			op_sys_write(t, v, 1);
			break;
		case OP_PROC_READ:
			op_proc_read(t, v, -1);
			break;
		case OP_PROC_PREAD:
			op_proc_read(t, v, slot);
			break;
		case OP_PROC_WRITE:
			op_proc_write(t, v);
			break;
		default:
			op_probe(t);
			break;
		}
	}
	for (i = 0; i <= NSHARED; i++)
		if (t->fds[i] >= 0)
			close(t->fds[i]);
	return NULL;
}

/* Reads the text of a /proc/sys file in one read(); -errno on failure. */
static ssize_t read_file(const char *path, char *buf, size_t size)
{
	ssize_t len;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	len = read(fd, buf, size - 1);
	if (len < 0)
		len = -errno;
	else
		buf[len] = '\0';
	close(fd);
	return len;
}

static int write_file(const char *path, const char *text)
{
	ssize_t ret;
	int fd;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	ret = write(fd, text, strlen(text));
	close(fd);
	return ret < 0 ? errno : 0;
}


static void var_init_paths(struct var *v)
{
	int i;

	snprintf(v->file, sizeof(v->file), "/proc/sys/");
	snprintf(v->file + strlen(v->file), sizeof(v->file) - strlen(v->file),
		 v->path, lo_name);
	for (i = 0; i < v->nlen; i++)
		if (v->name[i] == IFINDEX)
			v->name[i] = lo_ifindex;
}

/*
 * In the new namespaces: sets the first value of @v through /proc/sys and
 * checks that sysctl(2) reads it back.  Returns 0 or the number of errors.
 */
static int var_setup(struct var *v)
{
	unsigned char buf[BUF_SIZE];
	size_t got = BUF_SIZE;
	char text[BUF_SIZE];
	int err;

	if (access(v->file, W_OK)) {
		if (v->optional) {
			ktap_print("threads: %s absent here, not used",
				   var_name(v));
			return 0;
		}
		fail(NULL, "%s: %s", v->file, strerror(errno));
		return 1;
	}
	value_text(v, 0, text, sizeof(text));
	err = write_file(v->file, text);
	if (err) {
		fail(NULL, "setting %s: %s", v->file, strerror(err));
		return 1;
	}
	memset(buf, POISON, sizeof(buf));
	err = guest_sysctl(v->name, v->nlen, buf, &got, NULL, 0);
	if (err) {
		fail(NULL, "sysctl(2) read %s: %s", var_name(v), strerror(err));
		return 1;
	}
	if (!read_is(v, 0, buf, BUF_SIZE, got)) {
		fail(NULL, "sysctl(2) read %s: not the value just written",
		      var_name(v));
		return 1;
	}
	v->present = 1;
	return 0;
}

/* The values in the original namespaces, read before and after. */
static int snapshot(int after)
{
	char text[BUF_SIZE];
	int errors = 0, i;
	ssize_t len;

	for (i = 0; i < NSHARED + NOWN; i++) {
		struct var *v = i < NSHARED ? &shared[i] : &own[i - NSHARED];

		if (!v->present)
			continue;
		len = read_file(v->file, text, sizeof(text));
		if (len < 0)
			snprintf(text, sizeof(text), "error %s\n",
				 strerror(-len));
		if (!after) {
			strcpy(v->orig, text);
		} else if (strcmp(v->orig, text)) {
			text[strcspn(text, "\n")] = '\0';
			v->orig[strcspn(v->orig, "\n")] = '\0';
			fail(NULL, "%s changed in the original namespaces: "
			      "\"%s\" -> \"%s\"", var_name(v), v->orig, text);
			errors++;
		}
	}
	return errors;
}

/* Final values: both methods agree, and own names hold the last write. */
static int final_check(void)
{
	unsigned char buf[BUF_SIZE];
	char text[BUF_SIZE];
	int errors = 0, i, j;
	ssize_t len;

	for (i = 0; i < NSHARED + NOWN; i++) {
		struct var *v = i < NSHARED ? &shared[i] : &own[i - NSHARED];
		size_t got = BUF_SIZE;
		int idx = -1, tidx = -1, err;

		if (!v->present)
			continue;
		memset(buf, POISON, sizeof(buf));
		err = guest_sysctl(v->name, v->nlen, buf, &got, NULL, 0);
		len = read_file(v->file, text, sizeof(text));
		for (j = 0; j < v->nvalues; j++) {
			if (!err && read_is(v, j, buf, BUF_SIZE, got))
				idx = j;
			if (len >= 0 && text_is(v, j, text, len))
				tidx = j;
		}
		if (err || len < 0 || idx < 0 || idx != tidx) {
			fail(NULL, "final %s: sysctl(2) %s value %d, /proc "
			      "value %d", var_name(v),
			      err ? strerror(err) : "ok", idx, tidx);
			errors++;
			continue;
		}
		for (j = 0; j < nthreads; j++) {
			if (threads[j].own == v && v->owners == 1 &&
			    threads[j].own_last != idx) {
				fail(NULL, "final %s: value %d, thread %d "
				      "wrote %d last", var_name(v), idx, j,
				      threads[j].own_last);
				errors++;
			}
		}
	}
	return errors;
}

/*
 * The one result line, whose text is the figure, and the totals; @secs
 * is negative when the threads did not run ("0 s").
 */
static int result(unsigned long calls, double secs, unsigned long errors)
{
	ktap_result(!errors, "threads: %lu calls in %.*f s, %lu errors", calls,
		    secs < 0 ? 0 : 1, secs < 0 ? 0 : secs, errors);
	return ktap_finish();
}

int main(void)
{
	unsigned long calls = 0, errors = 0, expected = 0, sys = 0, proc = 0;
	int seconds, old_net, old_uts, i, j, nown = 0;
	struct timespec ts;
	double start, secs;
	unsigned int idx;

	setvbuf(stdout, NULL, _IOLBF, 0);
	ktap_header();
	ktap_plan(1);
	nthreads = env_int("threads", "THREADS_N", DEFAULT_THREADS, 1,
			   MAX_THREADS);
	seconds = env_int("threads", "THREADS_SECONDS", DEFAULT_SECONDS, 1, 3600);
	guest_init("threads");
	if (sysctl_nr != __NR__sysctl)
		ktap_print("threads: calling system call %ld as sysctl(2)",
			   sysctl_nr);

	idx = if_nametoindex("lo");
	if (idx)
		lo_ifindex = idx;
	for (i = 0; i < NSHARED; i++)
		var_init_paths(&shared[i]);
	for (i = 0; i < NOWN; i++)
		var_init_paths(&own[i]);

	/* Remember the original namespaces and what they hold. */
	old_net = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	old_uts = open("/proc/self/ns/uts", O_RDONLY | O_CLOEXEC);
	for (i = 0; i < NSHARED + NOWN; i++) {
		struct var *v = i < NSHARED ? &shared[i] : &own[i - NSHARED];

		v->present = !access(v->file, R_OK);
	}
	snapshot(0);

	if (unshare(CLONE_NEWNET | CLONE_NEWUTS)) {
		ktap_print("threads: unshare(CLONE_NEWNET | CLONE_NEWUTS): %s",
			   strerror(errno));
		return result(0, -1, 1);
	}
	idx = if_nametoindex("lo");
	if (idx != (unsigned int)lo_ifindex) {
		ktap_print("threads: lo has ifindex %u in the new namespace, %d "
			   "before", idx, lo_ifindex);
		errors++;
	}

	for (i = 0; i < NSHARED; i++)
		errors += var_setup(&shared[i]);
	for (i = 0; i < NOWN; i++) {
		own[i].optional = 1;
		errors += var_setup(&own[i]);
	}
	for (i = 0; i < NOWN; i++)
		nown += own[i].present;
	if (errors)
		return result(0, -1, errors);

	ktap_print("threads: %d threads for %d s in new net and uts namespaces, "
		   "lo is ifindex %d, %d names of their own", nthreads, seconds,
		   lo_ifindex, nown);
	for (i = 0, j = 0; i < nthreads; i++) {
		struct thread *t = &threads[i];

		t->id = i;
		t->writer = i & 1;
		t->rng = (0x9e3779b9u * (i + 1) ^ (unsigned int)getpid()) | 1;
		memset(t->fds, -1, sizeof(t->fds));
		if (nown) {
			while (!own[j % NOWN].present)
				j++;
			t->own = &own[j++ % NOWN];
			t->own->owners++;
		}
	}

	start = guest_now();
	for (i = 0; i < nthreads; i++) {
		int err = pthread_create(&threads[i].tid, NULL, thread_main,
					 &threads[i]);

		if (err) {
			ktap_print("threads: pthread_create: %s",
				   strerror(err));
			__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
			nthreads = i;
			errors++;
			break;
		}
	}
	ts.tv_sec = seconds;
	ts.tv_nsec = 0;
	while (!errors && nanosleep(&ts, &ts) && errno == EINTR)
		;
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < nthreads; i++)
		pthread_join(threads[i].tid, NULL);
	secs = guest_now() - start;

	for (i = 0; i < nthreads; i++) {
		struct thread *t = &threads[i];
		char ops[512];
		size_t len = 0;

		ktap_print("thread %d (%s, own %s): %lu calls (sysctl(2) %lu, "
			   "proc %lu), %lu expected errnos, %lu errors", i,
			   t->writer ? "writer" : "reader",
			   t->own ? var_name(t->own) : "none",
			   t->sys_calls + t->proc_calls, t->sys_calls,
			   t->proc_calls, t->expected, t->errors);
		for (j = 0; j < NR_OPS && len < sizeof(ops); j++)
			len += snprintf(ops + len, sizeof(ops) - len,
					" %s %lu%s", op_names[j], t->ops[j],
					j + 1 < NR_OPS ? "," : "");
		ktap_print("thread %d ops:%s", i, ops);
		sys += t->sys_calls;
		proc += t->proc_calls;
		expected += t->expected;
		errors += t->errors;
	}
	errors += final_check();

	/* Nothing written must have reached the original namespaces. */
	if (old_net < 0 || old_uts < 0 || setns(old_net, CLONE_NEWNET) ||
	    setns(old_uts, CLONE_NEWUTS)) {
		fail(NULL, "cannot enter the original namespaces again: %s",
		      strerror(errno));
		errors++;
	} else {
		int bad = snapshot(1);

		ktap_print("threads: original namespaces %s",
			   bad ? "CHANGED" : "unchanged");
		errors += bad;
	}

	calls = sys + proc;
	ktap_print("threads: totals: sysctl(2) %lu, proc %lu, expected errnos "
		   "%lu", sys, proc, expected);
	return result(calls, secs, errors);
}
