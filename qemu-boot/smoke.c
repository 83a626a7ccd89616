// SPDX-License-Identifier: GPL-2.0
/*
 * smoke: the checks that must hold at every commit of the sysctl(2) series.
 *
 * Runs as /init of an initramfs (PID 1) or as an ordinary program.  Prints
 * KTAP on stdout (guest.h), with the plan at the end so that a crash in
 * the middle shows up as a missing plan.  As PID 1 it first mounts /proc
 * and /dev (devtmpfs, where the kernel has it), then runs
 * its own checks, then every executable in /tests (a 32-bit build of
 * itself, the series' kselftest, fuzz, threads, cost...), each reported as
 * one test line with its output (KTAP of its own) as diagnostics, and
 * finally powers the guest off.
 *
 * What it checks, at every commit:
 *  - /proc/sys/kernel/ostype reads "Linux";
 *  - sysctl(2) either is not there (ENOSYS) or follows the contract for
 *    the names it probes: the value is exactly what the /proc/sys file
 *    holds, or ENOTDIR while the name is not translated yet (reported as a
 *    skip, counted in the "translated" diagnostic), or ENOENT when the
 *    file does not exist;
 *  - the argument checks: bad nlen -> ENOTDIR, bad pointers -> EFAULT;
 *  - as PID 1, without proc on /proc: ENOENT (no proc mount of its own).
 *
 * What a kernel config promises beyond that comes in the environment
 * variable SMOKE_EXPECT (for /init, the kernel parameter SMOKE_EXPECT=...:
 * the kernel passes an unknown key=value parameter to init's environment,
 * and the programs of /tests inherit it):
 *  - unset or empty: nothing more (the checks above, unchanged);
 *  - "enosys" (CONFIG_SYSCTL_SYSCALL=n): one more test, that sysctl(2)
 *    is absent (ENOSYS), which fails when it answers;
 *  - "noproc" (CONFIG_PROC_SYSCTL=n): that test, and /proc/sys is absent
 *    in place of the /proc/sys/kernel/ostype test;
 *  - "complete" (the commit wires sysctl(2) up and the kernel turns it
 *    on): one more test, that sysctl(2) answers, and a probed name that
 *    is not translated (ENOTDIR) fails instead of being skipped.
 * Any other value fails a test.
 *
 * GUEST_SYSCTL_NR=N in the environment makes it, and the programs of
 * /tests, call system call N in place of sysctl(2) (guest.h); building
 * with -DSYSCTL_NR=N does the same for smoke alone.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/sysctl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guest.h"

#define TESTS_DIR "/tests"
#define CHILD_TIMEOUT 300

enum kind { K_STR, K_INT, K_ULONG, K_UUID };

struct probe {
	const char *path;	/* below /proc/sys */
	enum kind kind;
	int nlen;
	int name[4];
};

static const struct probe probes[] = {
	{ "kernel/ostype", K_STR, 2, { CTL_KERN, KERN_OSTYPE } },
	{ "kernel/osrelease", K_STR, 2, { CTL_KERN, KERN_OSRELEASE } },
	{ "kernel/version", K_STR, 2, { CTL_KERN, KERN_VERSION } },
	{ "kernel/hostname", K_STR, 2, { CTL_KERN, KERN_NODENAME } },
	{ "kernel/panic", K_INT, 2, { CTL_KERN, KERN_PANIC } },
	{ "kernel/printk", K_INT, 2, { CTL_KERN, KERN_PRINTK } },
	{ "kernel/pid_max", K_INT, 2, { CTL_KERN, KERN_PIDMAX } },
	{ "kernel/random/boot_id", K_UUID, 3,
	  { CTL_KERN, KERN_RANDOM, RANDOM_BOOT_ID } },
	{ "vm/overcommit_memory", K_INT, 2, { CTL_VM, VM_OVERCOMMIT_MEMORY } },
	{ "kernel/shmmax", K_ULONG, 2, { CTL_KERN, KERN_SHMMAX } },
	{ "fs/file-max", K_INT, 2, { CTL_FS, FS_MAXFILE } },
	{ "net/core/somaxconn", K_INT, 3,
	  { CTL_NET, NET_CORE, NET_CORE_SOMAXCONN } },
	{ "net/ipv4/ip_forward", K_INT, 3,
	  { CTL_NET, NET_IPV4, NET_IPV4_FORWARD } },
};

static int translated;
/* SMOKE_EXPECT=complete: every probed name must be translated. */
static int want_complete;

/* Reads /proc/sys/<path> into buf; returns its length or -errno. */
static ssize_t read_proc(const char *path, char *buf, size_t size)
{
	char full[256];
	ssize_t len, total = 0;
	int fd;

	snprintf(full, sizeof(full), "/proc/sys/%s", path);
	fd = open(full, O_RDONLY);
	if (fd < 0)
		return -errno;
	while ((size_t)total < size - 1) {
		len = read(fd, buf + total, size - 1 - total);
		if (len < 0) {
			len = -errno;
			close(fd);
			return len;
		}
		if (len == 0)
			break;
		total += len;
	}
	close(fd);
	buf[total] = '\0';
	return total;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Converts the file's text into the binary form the contract describes. */
static ssize_t expected_value(const struct probe *p, const char *text,
			      size_t len, unsigned char *out, size_t size)
{
	const char *s = text;
	char *end;
	size_t n = 0;

	switch (p->kind) {
	case K_STR:
		if (len && text[len - 1] == '\n')
			len--;
		if (len > size)
			return -1;
		memcpy(out, text, len);
		return len;
	case K_INT:
	case K_ULONG:
		for (;;) {
			while (*s == ' ' || *s == '\t' || *s == '\n')
				s++;
			if (!*s)
				break;
			if (p->kind == K_INT) {
				/* Wider values are truncated to 32 bits. */
				int v = (int)strtoll(s, &end, 10);

				if (n + sizeof(v) > size)
					return -1;
				memcpy(out + n, &v, sizeof(v));
				n += sizeof(v);
			} else {
				unsigned long v = strtoul(s, &end, 10);

				if (n + sizeof(v) > size)
					return -1;
				memcpy(out + n, &v, sizeof(v));
				n += sizeof(v);
			}
			if (end == s)
				return -1;
			s = end;
		}
		return n;
	case K_UUID:
		for (; *s && *s != '\n'; s++) {
			int hi, lo;

			if (*s == '-')
				continue;
			hi = hexval(s[0]);
			lo = hexval(s[1]);
			if (hi < 0 || lo < 0 || n >= size)
				return -1;
			out[n++] = hi << 4 | lo;
			s++;
		}
		return n == 16 ? 16 : -1;
	}
	return -1;
}

/* Returns 1 when sysctl(2) answers at all (not ENOSYS). */
static int syscall_present(void)
{
	int name[2] = { CTL_KERN, KERN_OSTYPE };
	struct __sysctl_args args = { .name = name, .nlen = 2 };

	return guest_sysctl_args(&args) != ENOSYS;
}

static void check_proc_ostype(void)
{
	char buf[64];
	ssize_t len = read_proc("kernel/ostype", buf, sizeof(buf));

	ktap_result(len == 6 && !strcmp(buf, "Linux\n"),
		    "- /proc/sys/kernel/ostype reads Linux (%zd bytes)", len);
}

/* err: 0, an errno, or -1 for a return value other than 0 and -1. */
static void check_probe(const struct probe *p, int present)
{
	unsigned char got[1024], want[1024];
	char text[1024];
	size_t oldlen = sizeof(got);
	ssize_t tlen, wlen;
	int err;

	if (!present) {
		ktap_result_skip_why("sysctl(2) not available (ENOSYS)",
				     "- sysctl(2) reads %s", p->path);
		return;
	}
	err = guest_sysctl(p->name, p->nlen, got, &oldlen, NULL, 0);
	tlen = read_proc(p->path, text, sizeof(text));
	if (err == ENOTDIR && want_complete) {
		ktap_result(0, "- sysctl(2) reads %s: not translated (ENOTDIR), though SMOKE_EXPECT=complete",
			    p->path);
		return;
	}
	if (err == ENOTDIR) {
		ktap_result_skip_why("not translated at this commit",
				     "- sysctl(2) reads %s", p->path);
		return;
	}
	if (tlen < 0) {
		ktap_result(err == -tlen,
			    "- sysctl(2) reads %s: no such file, error %s (want %s)",
			    p->path, err > 0 ? strerror(err) : "none",
			    strerror(-tlen));
		return;
	}
	if (err > 0) {
		ktap_result(0, "- sysctl(2) reads %s: %s", p->path,
			    strerror(err));
		return;
	}
	if (err < 0) {
		ktap_result(0, "- sysctl(2) reads %s: returned %ld", p->path,
			    guest_sysctl_ret);
		return;
	}
	translated++;
	wlen = expected_value(p, text, tlen, want, sizeof(want));
	if (wlen < 0) {
		ktap_result(0, "- sysctl(2) reads %s: cannot parse the file",
			    p->path);
		return;
	}
	if (p->kind == K_STR && oldlen < sizeof(got) && got[oldlen] != '\0') {
		ktap_result(0, "- sysctl(2) reads %s: string not NUL-terminated",
			    p->path);
		return;
	}
	if ((size_t)wlen != oldlen || memcmp(got, want, wlen)) {
		ktap_result(0, "- sysctl(2) reads %s: %zu bytes, file gives %zd",
			    p->path, oldlen, wlen);
		return;
	}
	ktap_result(1, "- sysctl(2) reads %s (%zu bytes)", p->path, oldlen);
}

/* @args may be NULL or unmapped: the block itself must give EFAULT. */
static void expect_errno(int present, void *args, int want, const char *what)
{
	int err;

	if (!present) {
		ktap_result_skip_why("sysctl(2) not available (ENOSYS)", "- %s",
				     what);
		return;
	}
	err = guest_sysctl_args(args);
	ktap_result(err == want, "- %s: %s (want %s)", what,
		    err > 0 ? strerror(err) : "success", strerror(want));
}

static void check_arguments(int present)
{
	int name[CTL_MAXNAME + 1] = { CTL_KERN, KERN_OSTYPE };
	char buf[64];
	size_t len = sizeof(buf);
	struct __sysctl_args args;
	void *bad;

	bad = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (bad == MAP_FAILED) {
		ktap_result(0, "- mmap of a PROT_NONE page: %s", strerror(errno));
		return;
	}
	args = (struct __sysctl_args){ .name = name, .nlen = -1,
				       .oldval = buf, .oldlenp = &len };
	expect_errno(present, &args, ENOTDIR, "nlen -1");
	args.nlen = CTL_MAXNAME + 1;
	expect_errno(present, &args, ENOTDIR, "nlen CTL_MAXNAME + 1");
	expect_errno(present, NULL, EFAULT, "args NULL");
	expect_errno(present, bad, EFAULT, "args unmapped");
	args.nlen = 2;
	args.name = bad;
	expect_errno(present, &args, EFAULT, "name unmapped");
	args.name = name;
	args.oldlenp = NULL;
	expect_errno(present, &args, EFAULT, "oldval without oldlenp");
	args.oldlenp = bad;
	expect_errno(present, &args, EFAULT, "oldlenp unmapped");
	munmap(bad, 4096);
}

/*
 * Without proc on /proc, sysctl(2) finds no file, as the caller's own
 * /proc/sys would give none (the series has no proc mount of its own):
 * ENOENT, or ENOTDIR while the name is not translated yet.  Only PID 1
 * covers /proc, and only for the time of one call.
 */
static void check_without_proc(int present)
{
	int name[2] = { CTL_KERN, KERN_OSTYPE };
	char buf[64];
	size_t len = sizeof(buf);
	int err;

	if (!present) {
		ktap_result_skip_why("sysctl(2) not available (ENOSYS)",
				     "- sysctl(2) without /proc mounted");
		return;
	}
	if (mount("smoke", "/proc", "tmpfs", MS_RDONLY, NULL)) {
		ktap_result(0, "- sysctl(2) without /proc mounted: mount: %s",
			    strerror(errno));
		return;
	}
	err = guest_sysctl(name, 2, buf, &len, NULL, 0);
	if (umount2("/proc", 0))
		ktap_print("umount of the tmpfs on /proc: %s", strerror(errno));
	if (err == ENOTDIR) {
		ktap_result_skip_why("not translated at this commit",
				     "- sysctl(2) without /proc mounted");
		return;
	}
	ktap_result(err == ENOENT,
		    "- sysctl(2) without /proc mounted: %s (want %s)",
		    err > 0 ? strerror(err) : "success", strerror(ENOENT));
}

/* Runs one program of /tests with a time limit; returns 1 when it passed. */
static int run_child(const char *path)
{
	char line[512];
	int pipefd[2], status = 0, waited = 0;
	FILE *out;
	pid_t pid;

	if (pipe(pipefd) < 0)
		return 0;
	pid = fork();
	if (pid < 0)
		return 0;
	if (pid == 0) {
		dup2(pipefd[1], 1);
		dup2(pipefd[1], 2);
		close(pipefd[0]);
		close(pipefd[1]);
		alarm(CHILD_TIMEOUT);
		execl(path, path, (char *)NULL);
		printf("exec %s: %s\n", path, strerror(errno));
		_exit(127);
	}
	close(pipefd[1]);
	out = fdopen(pipefd[0], "r");
	while (out && fgets(line, sizeof(line), out)) {
		line[strcspn(line, "\n")] = '\0';
		ktap_print("%s", line);
	}
	if (out)
		fclose(out);
	while (!waited) {
		if (waitpid(pid, &status, 0) == pid)
			waited = 1;
		else if (errno != EINTR)
			return 0;
	}
	if (WIFSIGNALED(status))
		ktap_print("%s: killed by signal %d", path, WTERMSIG(status));
	/* kselftest uses exit code 4 for "all skipped". */
	return WIFEXITED(status) &&
	       (WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == 4);
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static void run_tests_dir(void)
{
	struct dirent **list;
	char path[512];
	struct stat st;
	int i, n;

	n = scandir(TESTS_DIR, &list, NULL, by_name);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", TESTS_DIR, list[i]->d_name);
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
		    (st.st_mode & 0111))
			ktap_result(run_child(path), "- %s", path);
		free(list[i]);
	}
	if (n >= 0)
		free(list);
}

/* /proc/sys is not there at all (CONFIG_PROC_SYSCTL=n). */
static void check_proc_absent(void)
{
	struct stat st;
	int ret = stat("/proc/sys", &st);

	ktap_result(ret < 0 && errno == ENOENT,
		    "- /proc/sys is absent, as SMOKE_EXPECT=noproc says (%s)",
		    ret < 0 ? strerror(errno) : "it is there");
}

static void run_checks(void)
{
	int present = syscall_present();
	const char *expect = getenv("SMOKE_EXPECT");
	size_t i;

	ktap_print("sysctl(2) is %s", present ? "present" : "absent (ENOSYS)");
	if (!expect || !*expect) {
		check_proc_ostype();
	} else if (!strcmp(expect, "enosys") || !strcmp(expect, "noproc")) {
		ktap_result(!present,
			    "- sysctl(2) is absent (ENOSYS), as SMOKE_EXPECT=%s says%s",
			    expect, present ? ": it answers" : "");
		if (!strcmp(expect, "noproc"))
			check_proc_absent();
		else
			check_proc_ostype();
	} else if (!strcmp(expect, "complete")) {
		want_complete = 1;
		ktap_result(present,
			    "- sysctl(2) answers, as SMOKE_EXPECT=complete says%s",
			    present ? "" : ": ENOSYS");
		check_proc_ostype();
	} else {
		ktap_result(0,
			    "- SMOKE_EXPECT=%s: unknown (enosys, noproc, complete or empty)",
			    expect);
		check_proc_ostype();
	}
	for (i = 0; i < ARRAY_SIZE(probes); i++)
		check_probe(&probes[i], present);
	check_arguments(present);
	if (getpid() == 1 && (!expect || !*expect || want_complete))
		check_without_proc(present);
	ktap_print("translated %d of %zu probed names", translated,
		   ARRAY_SIZE(probes));
}

int main(void)
{
	int pid1 = getpid() == 1;

	if (pid1) {
		mkdir("/proc", 0555);
		if (mount("proc", "/proc", "proc", 0, NULL) && errno != EBUSY)
			ktap_print("mount /proc: %s", strerror(errno));
		/* /dev/kmsg for the tests that read the kernel log. */
		if (mount("devtmpfs", "/dev", "devtmpfs", 0, NULL))
			ktap_print("mount /dev: %s", strerror(errno));
		setenv("PATH", "/bin:/tests", 1);
	}
	ktap_header();
	guest_init("smoke");
	if (sysctl_nr != SYSCTL_NR)
		ktap_print("smoke: calling system call %ld as sysctl(2)",
			   sysctl_nr);
	run_checks();
	if (pid1)
		run_tests_dir();
	/* No totals line: the last line is smoke's own count. */
	ktap_plan(ktap_count);
	ktap_print("smoke: %d failed of %d", ktap_fail, ktap_count);
	if (!pid1)
		return ktap_fail ? 1 : 0;
	sync();
	reboot(RB_AUTOBOOT);
	for (;;)
		pause();
}
