// SPDX-License-Identifier: GPL-2.0
/*
 * cost: what a sysctl(2) read costs next to open/read/close of the same
 * /proc/sys file.
 *
 * Runs inside a guest, never on a host.  For kernel.ostype (a string),
 * kernel.printk (4 ints; net.ipv4.tcp_rmem when there is no printk) and
 * net.ipv4.conf.lo.forwarding (by ifindex), it times COST_SAMPLES
 * (default 2000) sysctl(2) reads and as many open/read/close sequences,
 * and prints the medians and their ratio, in KTAP diagnostics (guest.h):
 *
 *   # cost: <name> sysctl_ns=<median> proc_ns=<median> ratio=<sysctl/proc>
 *
 * The wrapper makes one system call where /proc/sys takes three, so the
 * ratio should not be above 1.  To tell what its cost is made of, the same
 * rounds also time, per name, sysctl(2) without buffers (the name is
 * translated and nothing is opened: translate_ns), pread() of an open file
 * (read_ns) and open+close (open_close_ns) and, once, getppid() (the cost
 * of a system call), an untranslated name (ENOTDIR, before any path is
 * built) and a translated name without a file (kernel.reboot-cmd: ENOENT
 * from the in-kernel path walk) with the open() that fails the same way,
 * a write to the read-only kernel.ostype (EACCES: the whole path walk
 * and the permission check, no file opened) with its open(O_WRONLY),
 * and open/read/close with a read of 4095 bytes (proc_page_ns: what a
 * page-sized read costs, since the handler allocates and clears a buffer
 * of the size asked for).
 * From these it splits each sysctl(2) median into entry, translation and
 * file work, and names the larger part of the excess when the ratio is
 * above 1.
 *
 * Timing: clock_gettime(CLOCK_MONOTONIC) around each call, when the clock
 * steps finely enough: its smallest step must be under 1/20 of a
 * getppid().  A guest without a usable clocksource runs on jiffies (the
 * tinyconfig guest under TCG: "tsc: Unable to calibrate against PIT",
 * 4 ms steps), where a call cannot be timed and batches long enough to
 * time would take hours.  There, on x86, each call is timed with the TSC
 * instead (rdtsc, which QEMU derives from the host's clock), its rate
 * calibrated against CLOCK_MONOTONIC over a window of whole clock steps;
 * the ratios do not depend on that rate.  Without either, each sample is a
 * batch of up to MAX_BATCH calls timed with CLOCK_MONOTONIC, divided by
 * the batch size.  The "cost: clock" line says which (clock=monotonic,
 * tsc or monotonic with batch>1).  The median cost of reading the clock
 * itself is subtracted.  Each round takes one sample of every method, in
 * an order that rotates from round to round, so that noise, timer ticks
 * and cache state hit all methods alike; warm-up rounds come first.
 *
 * Every call's result is checked, and once, before timing, both methods
 * must return the same value.  The one KTAP result is "ok 1 cost: " and,
 * per name, "<name> ratio=<ratio> pread_ratio=<ratio>" joined with "; ",
 * whatever the ratios, or "not ok 1 cost: <the first error>" when a call
 * fails; the exit status is 1 then, 0 otherwise.  GUEST_SYSCTL_NR=N in
 * the environment makes it call system call N instead of sysctl(2), to
 * see it fail.
 *
 * COST_STAGES=1 in the environment runs the stage breakdown instead, on a
 * kernel built with qemu-boot/cost-stages.patch (tools/cost-stages.sh):
 * per name, COST_SAMPLES rounds of one sysctl(2) read, whose stages the
 * instrumented kernel times with the TSC, and one open/read/close whose
 * three calls are timed here; then one line per method,
 *
 *   # cost: stages <name> sysctl args_ns=... name_ns=... ... total_ns=...
 *   # cost: stages <name> proc open_ns=... read_ns=... close_ns=... total_ns=...
 *
 * medians of each stage, converted with the TSC's rate against
 * CLOCK_MONOTONIC.  The kernel's stages do not include the entry and the
 * exit of the system call, where the last reference to the file goes
 * (__fput() runs there): call_ns, the whole sysctl(2) call timed here,
 * has them.  The open/read/close stages include one entry and exit each
 * (getppid_ns, printed with them).  The result is "ok 1 cost: stages"
 * with the figures, "not ok" when a call fails or the kernel has no
 * instrumentation (the report name is then ENOTDIR).
 *
 * Build:  gcc -static -O2 -Wall -Wextra -Werror [-m32] cost.c
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/sysctl.h>
#include <net/if.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "guest.h"

#define DEFAULT_SAMPLES	2000
#define MAX_BATCH	64
#define BUF_SIZE	256
#define PAGE_READ	4095	/* a page-sized read, for proc_page_ns */
#define MAX_NAMES	3

enum kind { K_STR, K_INT };

struct name {
	const char *label;		/* dotted, as printed */
	const char *path;		/* full /proc/sys path */
	int nlen;
	int name[CTL_MAXNAME];
	enum kind kind;
	int fd;				/* kept open for read_ns */
};

enum method {
	M_SYSCTL, M_PROC, M_TRANSLATE, M_READ, M_OPEN_CLOSE, M_PROC_PAGE,
	NR_PER_NAME
};

enum global {
	G_GETPPID, G_ENOTDIR, G_ENOENT, G_ENOENT_OPEN, G_EACCES, G_EACCES_OPEN,
	NR_GLOBAL
};

struct series {
	const char *what;
	struct name *n;
	int method;			/* enum method or enum global */
	int global;
	double *ns;			/* one per sample */
};

static struct name names[MAX_NAMES];
static int nnames;
static struct series series[MAX_NAMES * NR_PER_NAME + NR_GLOBAL];
static int nseries;
static int failures;

static const char *const method_names[NR_PER_NAME] = {
	"sysctl", "proc", "translate", "read", "open_close", "proc_page",
};

static const char *const global_names[NR_GLOBAL] = {
	"getppid", "enotdir", "enoent", "enoent_open", "eacces", "eacces_open",
};

static const int untranslated[] = { CTL_KERN, 31337 };
static const int no_file[] = { CTL_KERN, KERN_SPARC_REBOOT };
#define NO_FILE_PATH "/proc/sys/kernel/reboot-cmd"
static const int read_only[] = { CTL_KERN, KERN_OSTYPE };
#define READ_ONLY_PATH "/proc/sys/kernel/ostype"

/* What went wrong first: the text of the result of a failed run. */
static char first_error[256];

static void fail(const char *what, const char *how, int err)
{
	if (!failures)
		snprintf(first_error, sizeof(first_error), "%s: %s%s", what,
			 how, err ? strerror(err) : "");
	/* Report the first few; every one makes the run fail. */
	if (failures++ < 10)
		ktap_print("cost: error: %s: %s%s", what, how,
			   err ? strerror(err) : "");
}

/*
 * The one result line and the totals: @figure, the ratios, when nothing
 * failed, else what went wrong first.
 */
static int result(const char *figure)
{
	if (!failures)
		ktap_result(1, "cost: %s", figure);
	else if (failures == 1)
		ktap_result(0, "cost: %s", first_error);
	else
		ktap_result(0, "cost: %s (%d errors)", first_error, failures);
	return ktap_finish();
}

/* open/read/close of @path into @buf; 0, -1 when empty, or an errno. */
static int proc_read(const char *path, char *buf, size_t size)
{
	ssize_t ret;
	int fd, err;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return errno;
	ret = read(fd, buf, size);
	err = ret < 0 ? errno : (ret ? 0 : -1);
	close(fd);
	return err;
}

/* One call of a method; returns 0 when it went as it must. */
static int run_one(const struct series *s)
{
	static char page[PAGE_READ];
	char buf[BUF_SIZE];
	size_t len = sizeof(buf);
	ssize_t ret;
	int fd, err;

	if (s->global) {
		switch (s->method) {
		case G_GETPPID:
			syscall(SYS_getppid);
			return 0;
		case G_ENOTDIR:
			err = guest_sysctl(untranslated, 2, buf, &len, NULL, 0);
			return err == ENOTDIR ? 0 : (err ? err : -1);
		case G_ENOENT:
			err = guest_sysctl(no_file, 2, buf, &len, NULL, 0);
			return err == ENOENT ? 0 : (err ? err : -1);
		case G_ENOENT_OPEN:
			fd = open(NO_FILE_PATH, O_RDONLY);
			err = fd < 0 ? errno : -1;
			if (fd >= 0)
				close(fd);
			return err == ENOENT ? 0 : err;
		case G_EACCES:
			err = guest_sysctl(read_only, 2, NULL, NULL, "Plan9", 5);
			return err == EACCES ? 0 : (err ? err : -1);
		default:
			fd = open(READ_ONLY_PATH, O_WRONLY);
			err = fd < 0 ? errno : -1;
			if (fd >= 0)
				close(fd);
			return err == EACCES ? 0 : err;
		}
	}
	switch (s->method) {
	case M_SYSCTL:
		err = guest_sysctl(s->n->name, s->n->nlen, buf, &len, NULL, 0);
		return err ? err : (len ? 0 : -1);
	case M_PROC:
		return proc_read(s->n->path, buf, sizeof(buf));
	case M_TRANSLATE:
		return guest_sysctl(s->n->name, s->n->nlen, NULL, NULL, NULL, 0);
	case M_READ:
		ret = pread(s->n->fd, buf, sizeof(buf), 0);
		return ret < 0 ? errno : (ret ? 0 : -1);
	case M_PROC_PAGE:
		return proc_read(s->n->path, page, sizeof(page));
	default:
		fd = open(s->n->path, O_RDONLY);
		if (fd < 0)
			return errno;
		close(fd);
		return 0;
	}
}

#if defined(__x86_64__) || defined(__i386__)
#define HAVE_TSC 1
static uint64_t rdtsc(void)
{
	return __builtin_ia32_rdtsc();
}
#else
#define HAVE_TSC 0
static uint64_t rdtsc(void)
{
	return 0;
}
#endif

static int use_tsc;
static double ticks_per_ns = 1;

/* The time source of the samples: ns, or TSC ticks. */
static uint64_t ticks(void)
{
	return use_tsc ? rdtsc() : guest_now_ns();
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The @p-th percentile of @n sorted values. */
static double pct(const double *v, int n, int p)
{
	double pos = (n - 1) * p / 100.0;
	int i = (int)pos;

	if (i + 1 >= n)
		return v[n - 1];
	return v[i] + (v[i + 1] - v[i]) * (pos - i);
}

/* The next step of CLOCK_MONOTONIC after @t; returns its time. */
static uint64_t next_step(uint64_t t)
{
	uint64_t n;

	while ((n = guest_now_ns()) == t)
		;
	return n;
}

/* The smallest step of CLOCK_MONOTONIC seen in 20 steps. */
static uint64_t clock_granularity(void)
{
	uint64_t a, b, g = UINT64_MAX;
	int i;

	a = next_step(guest_now_ns());
	for (i = 0; i < 20; i++) {
		b = next_step(a);
		if (b - a < g)
			g = b - a;
		a = b;
	}
	return g;
}

/* Median ticks() between two back-to-back reads. */
static double ticks_overhead(void)
{
	double d[1001];
	uint64_t a, b;
	int i;

	for (i = 0; i < 1001; i++) {
		a = ticks();
		b = ticks();
		d[i] = b - a;
	}
	qsort(d, 1001, sizeof(d[0]), cmp_double);
	return d[500];
}

/*
 * TSC ticks per ns, against CLOCK_MONOTONIC over at least @window_ns
 * between two steps of the clock; 0 when the TSC does not count.
 */
static double tsc_calibrate(uint64_t window_ns)
{
	uint64_t n0, n1, c0, c1;

	if (!HAVE_TSC)
		return 0;
	n0 = next_step(guest_now_ns());
	c0 = rdtsc();
	n1 = n0;
	while (n1 - n0 < window_ns)
		n1 = next_step(n1);
	c1 = rdtsc();
	if (c1 <= c0 || rdtsc() == rdtsc())
		return 0;
	return (double)(c1 - c0) / (n1 - n0);
}

static void add_series(struct name *n, int method, int global, int samples)
{
	struct series *s = &series[nseries++];

	s->n = n;
	s->method = method;
	s->global = global;
	s->what = global ? global_names[method] : method_names[method];
	s->ns = calloc(samples, sizeof(double));
	if (!s->ns) {
		ktap_print("cost: out of memory");
		if (!failures++)
			strcpy(first_error, "out of memory");
		exit(result(NULL));
	}
}

/* Parses the text of an int file; returns the number of ints. */
static int parse_ints(const char *text, int *out, int max)
{
	int n = 0;
	char *end;

	while (n < max) {
		long v = strtol(text, &end, 10);

		if (end == text)
			break;
		out[n++] = (int)v;
		text = end;
	}
	return n;
}

/* Checks once that sysctl(2) returns what the file holds. */
static int verify(const struct name *n)
{
	char text[BUF_SIZE], buf[BUF_SIZE];
	size_t len = sizeof(buf);
	int ints[BUF_SIZE / sizeof(int)], nints, err, fd;
	ssize_t tlen;

	fd = open(n->path, O_RDONLY);
	if (fd < 0) {
		fail(n->path, "", errno);
		return -1;
	}
	tlen = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (tlen <= 0) {
		fail(n->path, "read: ", tlen ? errno : 0);
		return -1;
	}
	text[tlen] = '\0';
	err = guest_sysctl(n->name, n->nlen, buf, &len, NULL, 0);
	if (err) {
		fail(n->label, "sysctl(2): ", err);
		return -1;
	}
	if (n->kind == K_STR) {
		if (text[tlen - 1] == '\n')
			tlen--;
		if ((size_t)tlen != len || memcmp(buf, text, len)) {
			fail(n->label, "sysctl(2) and /proc/sys differ", 0);
			return -1;
		}
	} else {
		nints = parse_ints(text, ints, BUF_SIZE / sizeof(int));
		if (len != nints * sizeof(int) || memcmp(buf, ints, len)) {
			fail(n->label, "sysctl(2) and /proc/sys differ", 0);
			return -1;
		}
	}
	ktap_print("cost: %s: both methods read the same %zu bytes", n->label,
		   len);
	return 0;
}

static void add_name(const char *label, const char *path, enum kind kind,
		     int nlen, const int *name)
{
	struct name *n = &names[nnames];

	n->label = label;
	n->path = path;
	n->kind = kind;
	n->nlen = nlen;
	memcpy(n->name, name, nlen * sizeof(int));
	if (verify(n))
		return;
	n->fd = open(path, O_RDONLY);
	if (n->fd < 0) {
		fail(path, "", errno);
		return;
	}
	nnames++;
}


/* Times @rounds rounds of every series; records them unless warming up. */
static void measure(int rounds, int batch, double overhead, int record)
{
	int r, i, k, err;

	for (r = 0; r < rounds; r++) {
		for (i = 0; i < nseries; i++) {
			struct series *s = &series[(r + i) % nseries];
			uint64_t t0, t1;

			err = 0;
			t0 = ticks();
			for (k = 0; k < batch; k++)
				err |= run_one(s);
			t1 = ticks();
			if (err) {
				fail(s->n ? s->n->label : "", s->what, 0);
				continue;
			}
			if (record)
				s->ns[r] = ((double)(t1 - t0) - overhead) /
					   ticks_per_ns / batch;
		}
	}
}

/* The name that makes an instrumented kernel report its stages. */
static const int stages_name[] = { CTL_KERN, -4242 };

/* The kernel's stages, as qemu-boot/cost-stages.patch stamps them. */
static const char *const kernel_stages[] = {
	NULL, "args", "name", "lookup", "log", "open", "prep", "read",
	"convert", "free", "fput", "copyout",
};
#define NR_KSTAGES (sizeof(kernel_stages) / sizeof(kernel_stages[0]))

/* The instrumented kernel's count and medians (ticks); 0 or an errno. */
static int kernel_report(uint32_t *out)
{
	size_t len = NR_KSTAGES * sizeof(uint32_t);

	memset(out, 0, len);
	return guest_sysctl(stages_name, 2, out, &len, NULL, 0);
}

static double median_ticks(uint64_t *v, int n)
{
	double d[n];
	int i;

	for (i = 0; i < n; i++)
		d[i] = v[i];
	qsort(d, n, sizeof(d[0]), cmp_double);
	return pct(d, n, 50);
}

/* The stage breakdown of COST_STAGES=1; returns the exit status. */
static int run_stages(int samples)
{
	uint64_t *p_open, *p_read, *p_close, *entry, *call, t0, t1, t2, t3;
	uint32_t k[NR_KSTAGES];
	char figure[512] = "stages:";
	size_t flen = strlen(figure), si;
	char buf[BUF_SIZE];
	double ksum, psum, po, pr, pc;
	int i, r, err;

	ticks_per_ns = tsc_calibrate(100000000);
	if (ticks_per_ns <= 0) {
		fail("stages", "no TSC to time the stages with", 0);
		return result(NULL);
	}
	err = kernel_report(k);
	if (err) {
		fail("stages", "the kernel reports no stages "
		     "(not built with qemu-boot/cost-stages.patch?): ", err);
		return result(NULL);
	}
	p_open = calloc(samples, sizeof(*p_open));
	p_read = calloc(samples, sizeof(*p_read));
	p_close = calloc(samples, sizeof(*p_close));
	entry = calloc(samples, sizeof(*entry));
	call = calloc(samples, sizeof(*call));
	if (!p_open || !p_read || !p_close || !entry || !call) {
		fail("stages", "out of memory", 0);
		return result(NULL);
	}
	for (r = 0; r < samples; r++) {
		t0 = rdtsc();
		syscall(SYS_getppid);
		entry[r] = rdtsc() - t0;
	}
	ktap_print("cost: stages tsc_ticks_per_ns=%.4f samples=%d "
		   "getppid_ns=%.0f", ticks_per_ns, samples,
		   median_ticks(entry, samples) / ticks_per_ns);
	for (i = 0; i < nnames; i++) {
		struct name *n = &names[i];
		char line[512];
		size_t len;
		int fd;

		for (r = -samples / 10; r < samples; r++) {
			if (r == 0 && (err = kernel_report(k))) {
				fail(n->label, "stage report: ", err);
				return result(NULL);
			}
			len = sizeof(buf);
			t0 = rdtsc();
			err = guest_sysctl(n->name, n->nlen, buf, &len, NULL, 0);
			t1 = rdtsc();
			if (r >= 0)
				call[r] = t1 - t0;
			if (err || !len) {
				fail(n->label, "sysctl(2): ", err);
				return result(NULL);
			}
			t0 = rdtsc();
			fd = open(n->path, O_RDONLY);
			t1 = rdtsc();
			if (fd < 0 || read(fd, buf, sizeof(buf)) <= 0) {
				fail(n->path, "", errno);
				return result(NULL);
			}
			t2 = rdtsc();
			close(fd);
			t3 = rdtsc();
			if (r >= 0) {
				p_open[r] = t1 - t0;
				p_read[r] = t2 - t1;
				p_close[r] = t3 - t2;
			}
		}
		err = kernel_report(k);
		if (err || k[0] != (uint32_t)samples) {
			fail(n->label, err ? "stage report: " :
			     "the kernel sampled another number of calls", err);
			return result(NULL);
		}
		len = snprintf(line, sizeof(line), "cost: stages %s sysctl",
			       n->label);
		ksum = 0;
		for (si = 1; si < NR_KSTAGES; si++) {
			ksum += k[si];
			len += snprintf(line + len, sizeof(line) - len,
					" %s_ns=%.0f", kernel_stages[si],
					k[si] / ticks_per_ns);
		}
		/*
		 * The call as the program sees it: the stages, the entry and
		 * the exit, where the file's last reference goes (__fput()).
		 */
		ktap_print("%s total_ns=%.0f call_ns=%.0f", line, ksum / ticks_per_ns,
			   median_ticks(call, samples) / ticks_per_ns);
		po = median_ticks(p_open, samples);
		pr = median_ticks(p_read, samples);
		pc = median_ticks(p_close, samples);
		psum = po + pr + pc;
		ktap_print("cost: stages %s proc open_ns=%.0f read_ns=%.0f "
			   "close_ns=%.0f total_ns=%.0f", n->label,
			   po / ticks_per_ns, pr / ticks_per_ns, pc / ticks_per_ns,
			   psum / ticks_per_ns);
		if (flen < sizeof(figure))
			flen += snprintf(figure + flen, sizeof(figure) - flen,
					 "%s %s kernel_ns=%.0f proc_ns=%.0f",
					 i ? ";" : "", n->label,
					 ksum / ticks_per_ns,
					 psum / ticks_per_ns);
	}
	return result(figure);
}

static double median_of(int name, int method, int global, int samples)
{
	int i;

	for (i = 0; i < nseries; i++)
		if (series[i].global == global && series[i].method == method &&
		    (global || series[i].n == &names[name]))
			return pct(series[i].ns, samples, 50);
	return 0;
}

int main(void)
{
	int forwarding[] = { CTL_NET, NET_IPV4, NET_IPV4_CONF, 1,
			     NET_IPV4_CONF_FORWARDING };
	static const int ostype[] = { CTL_KERN, KERN_OSTYPE };
	static const int printk[] = { CTL_KERN, KERN_PRINTK };
	static const int rmem[] = { CTL_NET, NET_IPV4, NET_TCP_RMEM };
	double overhead, entry, enotdir, enoent, enoent_open, eacces;
	double eacces_open;
	int samples, batch = 1, i, j;
	uint64_t granularity, t0, t1;
	struct timespec res;
	char figure[512] = "";
	size_t flen = 0;
	double pilot;
	unsigned int lo;

	setvbuf(stdout, NULL, _IOLBF, 0);
	ktap_header();
	ktap_plan(1);
	samples = env_int("cost", "COST_SAMPLES", DEFAULT_SAMPLES, 11,
			  1000000);
	guest_init("cost");
	if (sysctl_nr != __NR__sysctl)
		ktap_print("cost: calling system call %ld as sysctl(2)",
			   sysctl_nr);

	add_name("kernel.ostype", "/proc/sys/kernel/ostype", K_STR, 2, ostype);
	if (!access("/proc/sys/kernel/printk", R_OK))
		add_name("kernel.printk", "/proc/sys/kernel/printk", K_INT, 2,
			 printk);
	else
		add_name("net.ipv4.tcp_rmem", "/proc/sys/net/ipv4/tcp_rmem",
			 K_INT, 3, rmem);
	lo = if_nametoindex("lo");
	if (lo) {
		forwarding[3] = lo;
		add_name("net.ipv4.conf.lo.forwarding",
			 "/proc/sys/net/ipv4/conf/lo/forwarding", K_INT, 5,
			 forwarding);
	} else {
		ktap_print("cost: no lo, no per-interface row");
	}
	if (failures)
		return result(NULL);
	if (env_int("cost", "COST_STAGES", 0, 0, 1))
		return run_stages(samples);

	for (i = 0; i < nnames; i++)
		for (j = 0; j < NR_PER_NAME; j++)
			add_series(&names[i], j, 0, samples);
	for (j = 0; j < NR_GLOBAL; j++)
		add_series(NULL, j, 1, samples);

	/* Warm up, then see whether one call is long enough to time. */
	measure(samples / 10 < 100 ? 100 : samples / 10, 1, 0, 0);
	clock_getres(CLOCK_MONOTONIC, &res);
	granularity = clock_granularity();
	t0 = guest_now_ns();
	i = 0;
	do {
		for (j = 0; j < 100; j++)
			syscall(SYS_getppid);
		i += 100;
		t1 = guest_now_ns();
	} while (t1 - t0 < 20 * granularity || t1 - t0 < 1000000);
	pilot = (double)(t1 - t0) / i;
	if (granularity * 20 > pilot) {
		/* Calibrate over 100 steps, at least 100 ms. */
		ticks_per_ns = tsc_calibrate(granularity * 100 > 100000000 ?
					     granularity * 100 : 100000000);
		use_tsc = ticks_per_ns > 0;
		if (!use_tsc) {
			ticks_per_ns = 1;
			while (batch < MAX_BATCH &&
			       granularity * 20 > pilot * batch)
				batch *= 2;
		}
	}
	overhead = ticks_overhead();
	ktap_print("cost: clock=%s res_ns=%ld granularity_ns=%llu "
		   "getppid_pilot_ns=%.0f tsc_ticks_per_ns=%.4f "
		   "overhead_ns=%.0f batch=%d samples=%d",
		   use_tsc ? "tsc" : "monotonic",
		   res.tv_nsec + res.tv_sec * 1000000000L,
		   (unsigned long long)granularity, pilot,
		   use_tsc ? ticks_per_ns : 0, overhead / ticks_per_ns, batch,
		   samples);
	if (batch > 1 && granularity * 20 > pilot * batch)
		ktap_print("cost: warning: the clock is too coarse even for "
			   "batches of %d: the figures are quantized", batch);
	if (failures)
		return result(NULL);

	measure(samples, batch, overhead, 1);
	if (failures)
		return result(NULL);

	for (i = 0; i < nseries; i++)
		qsort(series[i].ns, samples, sizeof(double), cmp_double);

	entry = median_of(0, G_GETPPID, 1, samples);
	enotdir = median_of(0, G_ENOTDIR, 1, samples);
	enoent = median_of(0, G_ENOENT, 1, samples);
	enoent_open = median_of(0, G_ENOENT_OPEN, 1, samples);
	eacces = median_of(0, G_EACCES, 1, samples);
	eacces_open = median_of(0, G_EACCES_OPEN, 1, samples);

	for (i = 0; i < nnames; i++) {
		double sys = median_of(i, M_SYSCTL, 0, samples);
		double proc = median_of(i, M_PROC, 0, samples);
		double tr = median_of(i, M_TRANSLATE, 0, samples);
		double rd = median_of(i, M_READ, 0, samples);
		double oc = median_of(i, M_OPEN_CLOSE, 0, samples);
		double pg = median_of(i, M_PROC_PAGE, 0, samples);
		double ratio = proc > 0 ? sys / proc : 0;
		/* The excess of sysctl(2) over /proc, in two parts. */
		double tr_extra = (tr - entry) - 2 * entry;
		double file_extra = (sys - tr) - (proc - 3 * entry);
		const struct series *s = &series[i * NR_PER_NAME];

		/* pread() on a kept-open file: the floor of any method */
		ktap_print("cost: %s sysctl_ns=%.0f proc_ns=%.0f ratio=%.2f "
			   "pread_ns=%.0f pread_ratio=%.2f", names[i].label, sys,
			   proc, ratio, rd, rd > 0 ? sys / rd : 0);
		/* The result's figure: the two ratios of every name. */
		if (flen < sizeof(figure))
			flen += snprintf(figure + flen, sizeof(figure) - flen,
					 "%s%s ratio=%.2f pread_ratio=%.2f",
					 i ? "; " : "", names[i].label, ratio,
					 rd > 0 ? sys / rd : 0);
		ktap_print("cost: %s spread sysctl_p10_ns=%.0f "
			   "sysctl_p90_ns=%.0f proc_p10_ns=%.0f proc_p90_ns=%.0f",
			   names[i].label,
			   pct(s[M_SYSCTL].ns, samples, 10),
			   pct(s[M_SYSCTL].ns, samples, 90),
			   pct(s[M_PROC].ns, samples, 10),
			   pct(s[M_PROC].ns, samples, 90));
		ktap_print("cost: %s translate_ns=%.0f read_ns=%.0f "
			   "open_close_ns=%.0f proc_page_ns=%.0f", names[i].label,
			   tr, rd, oc, pg);
		/*
		 * sysctl(2) = entry + translation + file work;
		 * /proc = 3 entries + file work (open, read, close).
		 */
		ktap_print("cost: %s split sysctl_entry_ns=%.0f "
			   "sysctl_translate_ns=%.0f sysctl_file_ns=%.0f "
			   "proc_entries_ns=%.0f proc_file_ns=%.0f",
			   names[i].label, entry, tr - entry, sys - tr,
			   3 * entry, proc - 3 * entry);
		if (ratio <= 1)
			continue;
		ktap_print("cost: %s above 1 by %.0f ns: translation beyond "
			   "the 2 saved entries %.0f ns, in-kernel file work "
			   "beyond /proc's %.0f ns", names[i].label, sys - proc,
			   tr_extra, file_extra);
		if (tr_extra > file_extra)
			ktap_print("cost: %s dominated by the translation: "
				   "enotdir_ns=%.0f shows the fixed part "
				   "(argument and name copies, the log check) "
				   "before any table walk",
				   names[i].label, enotdir);
		else
			ktap_print("cost: %s dominated by the in-kernel file "
				   "work (the open through the caller's /proc, "
				   "the conversion buffer, read and conversion; "
				   "a page-sized read would add %.0f ns)",
				   names[i].label, pg - proc);
	}
	ktap_print("cost: getppid_ns=%.0f", entry);
	ktap_print("cost: enotdir_ns=%.0f", enotdir);
	ktap_print("cost: enoent_ns=%.0f enoent_open_ns=%.0f", enoent,
		   enoent_open);
	ktap_print("cost: eacces_ns=%.0f eacces_open_ns=%.0f", eacces,
		   eacces_open);
	/* The same failed lookups, without the entry and the translation. */
	ktap_print("cost: lookup kernel_enoent_ns=%.0f user_enoent_ns=%.0f "
		   "kernel_eacces_ns=%.0f user_eacces_ns=%.0f",
		   enoent - enotdir, enoent_open - entry,
		   eacces - median_of(0, M_TRANSLATE, 0, samples),
		   eacces_open - entry);
	ktap_print("cost: %d samples per method, batch %d, %d methods "
		   "interleaved", samples, batch, nseries);
	return result(figure);
}
