# shellcheck shell=bash
# Shared setup for the bats tests: a fixture "package" tarball, a fixture
# checkout (branches.txt + patches/) and a private cache per test.

REPO_ROOT=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
TOOLS=$REPO_ROOT/tools
# shellcheck disable=SC2034 # used by the .bats files
DEV=$REPO_ROOT/dev
CHECKS=$REPO_ROOT/checks
RUNNER=$REPO_ROOT/runner
# shellcheck disable=SC2034 # used by the .bats files
QEMU_BOOT=$REPO_ROOT/qemu-boot

# The tests' own cache, never the user's WF_CACHE (like git's t/, the
# tests own their state): the kernel files the fixtures borrow and the
# boot kernel the runner and stress tests boot, built by the tools
# themselves with WF_CACHE pointing here, and what the tests of the real
# series (series.bats) validate and keep.  It outlives a run, like
# ccache: what is in it is keyed on content (the tarball, patches/, the
# config), so a second run reuses it and a changed input rebuilds it.
# WF_TEST_CACHE moves it.
TEST_CACHE=${WF_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/sysctl-wf-tests}

# require PREREQ...: skip the test, saying which prerequisite this
# machine lacks, unless it has each PREREQ (git's test prerequisites, as
# one call at the top of a test):
#   TMPFS          a tmpfs can be mounted (root)
#   STRACE         strace is installed
#   X86_64         the host is x86_64
#   NO_SYSCTL      the host kernel has no sysctl(2) (ENOSYS)
#   REAL_KERNELS   WF_TEST_KERNELS names a directory of real kernels
require() {
	local p probe
	for p in "$@"; do
		case $p in
		TMPFS)
			probe=$(mktemp -d)
			if mount -t tmpfs -o size=4k tmpfs "$probe" 2>/dev/null; then
				umount "$probe"
				rmdir "$probe"
			else
				rmdir "$probe"
				skip "cannot mount a tmpfs here (not root?)"
			fi ;;
		STRACE) command -v strace >/dev/null || skip "no strace" ;;
		X86_64) [[ $(uname -m) == x86_64 ]] || skip "not an x86_64 host" ;;
		NO_SYSCTL) perl -MPOSIX -e 'syscall(156, 0); exit($! == ENOSYS ? 0 : 1)' ||
			skip "this host kernel has sysctl(2)" ;;
		REAL_KERNELS) [[ -n ${WF_TEST_KERNELS:-} ]] || skip "WF_TEST_KERNELS names no directory of real kernels" ;;
		*) echo "require: no prerequisite named $p" >&2; return 1 ;;
		esac
	done
}

# make_fixture_tarball DIR: a small "linux-source-6.1" tarball whose
# top-level .gitignore ignores everything, like Debian's ignores dot files.
make_fixture_tarball() {
	local dir=$1 src
	src=$(mktemp -d)
	mkdir -p "$src/linux-source-6.1/kernel" "$src/linux-source-6.1/include/linux" \
		"$src/linux-source-6.1/scripts"
	printf '*\n' >"$src/linux-source-6.1/.gitignore"
	printf 'hidden\n' >"$src/linux-source-6.1/.mailmap"
	printf 'VERSION = 6\nPATCHLEVEL = 1\n' >"$src/linux-source-6.1/Makefile"
	printf '/* one */\nint one;\n/* two */\nint two;\n/* three */\nint three;\n' \
		>"$src/linux-source-6.1/kernel/sysctl.c"
	printf '#define CTL_MAXNAME 10\n' >"$src/linux-source-6.1/include/linux/sysctl.h"
	printf 'build\n' >"$src/linux-source-6.1/kernel/.gitignore"
	ln -s ../Makefile "$src/linux-source-6.1/scripts/link"
	mkdir -p "$dir"
	tar -cJf "$dir/linux-source-6.1.tar.xz" -C "$src" linux-source-6.1
	rm -rf "$src"
}

# setup_fixture: environment for one test, all under $BATS_TEST_TMPDIR.
setup_fixture() {
	export WF_CACHE=$BATS_TEST_TMPDIR/cache
	export WF_SRC_DIR=$BATS_TEST_TMPDIR/usr-src
	export WF_PKG_VERSION=6.1.99-1
	export WF_TOP=$BATS_TEST_TMPDIR/checkout
	export WF_REPO=$WF_CACHE/branches/6.1/linux
	unset WF_BRANCHES
	make_fixture_tarball "$WF_SRC_DIR"
	mkdir -p "$WF_TOP/patches"
	printf 'topic 6.1 fixture-topic linux-source-6.1 >=6.1.0 patches\n' >"$WF_TOP/branches.txt"
}

# dev_git ARGS...: git in the cache repo as the fixture developer
# (FIXTURE_DEV_EMAIL, default dev@example.org).
dev_git() {
	git -C "$WF_REPO" -c user.name="A Developer" -c user.email="${FIXTURE_DEV_EMAIL:-dev@example.org}" "$@"
}

# commit_in_repo FILE CONTENT SUBJECT: commit a change on the topic branch.
commit_in_repo() {
	printf '%b' "$2" >"$WF_REPO/$1"
	git -C "$WF_REPO" add -f "$1"
	dev_git commit -q -s -m "$3" -m "Why this change is needed."
}

# add_checkpatch_to_fixture: the real scripts/checkpatch.pl in the work
# tree of the fixture repo, and the files it looks for to know it is at
# the top of a kernel tree.
add_checkpatch_to_fixture() {
	local f d
	for f in scripts/checkpatch.pl scripts/spelling.txt scripts/const_structs.checkpatch; do
		kernel_file "$f" "$WF_REPO/$f"
	done
	chmod +x "$WF_REPO/scripts/checkpatch.pl"
	for f in COPYING CREDITS Kbuild MAINTAINERS README; do
		echo fixture >"$WF_REPO/$f"
	done
	for d in Documentation arch drivers fs init ipc lib; do
		mkdir -p "$WF_REPO/$d"
		echo fixture >"$WF_REPO/$d/README"
	done
}

# The files of the packaged 6.1 base that the fixtures borrow (a
# directory: all its files).
KERNEL_FILES=(scripts/checkpatch.pl scripts/spelling.txt scripts/const_structs.checkpatch
	scripts/get_maintainer.pl scripts/kernel-doc usr/gen_init_cpio.c
	init/Kconfig scripts/kconfig scripts/Kconfig.include scripts/cc-version.sh scripts/as-version.sh
	scripts/ld-version.sh scripts/min-tool-version.sh scripts/pahole-version.sh)

# kernel_file PATH DEST: a file or directory of the packaged 6.1 base (one of
# KERNEL_FILES).  The tarball is read once per version of it and of the
# list: the files are kept in the tests' cache under the tarball's size
# and mtime and a hash of the list.
kernel_file() {
	local path=$1 dest=$2 tarball=/usr/src/linux-source-6.1.tar.xz dir f
	local -a members=()
	[[ -r $tarball ]] || { echo "kernel_file: $tarball is missing (make deps)" >&2; return 1; }
	dir=$TEST_CACHE/kernel-files/$(stat -c '%s-%Y' "$tarball")-$(printf '%s\n' "${KERNEL_FILES[@]}" | md5sum | cut -c1-8)
	if [[ ! -e $dir/.done ]]; then
		mkdir -p "$TEST_CACHE/kernel-files"
		(
			flock 9
			[[ -e $dir/.done ]] && exit 0
			rm -rf "$dir.tmp" && mkdir -p "$dir.tmp"
			for f in "${KERNEL_FILES[@]}"; do members+=("linux-source-6.1/$f"); done
			tar -xJf "$tarball" -C "$dir.tmp" --strip-components=1 "${members[@]}"
			touch "$dir.tmp/.done"
			rm -rf "$dir" && mv "$dir.tmp" "$dir"
		) 9>"$TEST_CACHE/kernel-files/lock"
	fi
	[[ -r $dir/$path ]] || { echo "kernel_file: $path is not one of KERNEL_FILES" >&2; return 1; }
	mkdir -p "$(dirname "$dest")"
	cp -R "$dir/$path" "$dest"
}

# hold_lock FILE: a process of the test's own holds flock FILE, as a
# running command holds its lock (wf_lock); LOCK_HOLDER is its pid, for
# release_lock.
hold_lock() {
	mkdir -p "$(dirname "$1")"
	(
		exec 9>>"$1"
		flock 9
		exec sleep 60
	) 3>&- &
	LOCK_HOLDER=$!
	for _ in $(seq 50); do
		flock -n "$1" true || return 0
		sleep 0.1
	done
	echo "hold_lock: $1 was not taken" >&2
	return 1
}

# fs_state DIR...: each file and directory under DIR with its size, mtime
# and mode, sorted: two calls differ when anything under DIR was
# written, created or removed (a command that must touch nothing).
fs_state() {
	find "$@" -printf '%p %s %T@ %m\n' 2>/dev/null | LC_ALL=C sort
}

# release_lock: end the process of hold_lock.
release_lock() {
	kill "$LOCK_HOLDER"
	wait "$LOCK_HOLDER" || true
}

# refused_by_lock NAME LOCK: the command that ran (bats run) stopped at
# once, with wf_lock's one line, because LOCK was held.
# shellcheck disable=SC2154 # output and status: set by bats' run
refused_by_lock() {
	echo "$output"
	[ "$status" -eq 1 ]
	[ "$output" = "$1: error: another $1 is running on $(dirname "$2") (lock: $2)" ]
}

# --- submit, trees, other-base and bisect tests ---------------------------

SUBMIT_FIXTURES=$REPO_ROOT/tests/fixtures/submit

# add_kernel_top DIR: what get_maintainer.pl needs to see a kernel tree
# at DIR, the real get_maintainer.pl, the fixture MAINTAINERS and the
# files the fixture series touches.
add_kernel_top() {
	local dir=$1 f d
	for f in COPYING CREDITS Kbuild README; do
		echo fixture >"$dir/$f"
	done
	for d in Documentation/admin-guide/sysctl arch/x86/entry/syscalls drivers fs \
		init ipc lib tools/testing/selftests/sysctl; do
		mkdir -p "$dir/$d"
	done
	for d in drivers fs init ipc lib; do
		echo fixture >"$dir/$d/README"
	done
	cp "$SUBMIT_FIXTURES/MAINTAINERS" "$dir/MAINTAINERS"
	cp "$SUBMIT_FIXTURES/syscall_64.tbl" "$dir/arch/x86/entry/syscalls/syscall_64.tbl"
	printf 'Sysctl\n======\n\n.. toctree::\n\n   kernel\n' >"$dir/Documentation/admin-guide/sysctl/index.rst"
	printf 'TEST_PROGS := sysctl.sh\n' >"$dir/tools/testing/selftests/sysctl/Makefile"
	kernel_file scripts/get_maintainer.pl "$dir/scripts/get_maintainer.pl"
	chmod +x "$dir/scripts/get_maintainer.pl"
}

# setup_kernel_fixture: setup_fixture with a fixture tarball that looks
# like a kernel tree to get_maintainer.pl, and a sender identity ("Sam
# Sender") that is not the author of the fixture commits.  Neither uses
# a reserved example domain (tools/preflight.sh refuses those): home.arpa
# is not routed on the Internet either (RFC 8375).
setup_kernel_fixture() {
	local tmp
	setup_fixture
	tmp=$(mktemp -d)
	tar -xJf "$WF_SRC_DIR/linux-source-6.1.tar.xz" -C "$tmp"
	add_kernel_top "$tmp/linux-source-6.1"
	tar -cJf "$WF_SRC_DIR/linux-source-6.1.tar.xz" -C "$tmp" linux-source-6.1
	rm -rf "$tmp"
	export GIT_CONFIG_GLOBAL=$BATS_TEST_TMPDIR/gitconfig
	export GIT_CONFIG_NOSYSTEM=1
	git config --global user.name "Sam Sender"
	git config --global user.email sam@fixture.home.arpa
	export FIXTURE_DEV_EMAIL=dev@fixture.home.arpa
	mkdir -p "$WF_TOP/cover-letters/6.1"
	cp "$SUBMIT_FIXTURES/cover-v1.txt" "$WF_TOP/cover-letters/6.1/v1.txt"
}

# edit_in_repo FILE SED: change FILE in the cache repo work tree.
edit_in_repo() {
	sed -i "$2" "$WF_REPO/$1"
}

# make_kernel_series: five commits by "A Developer" through four trees,
# exported to patches/:
#   1 kernel/        2 arch/x86/entry/syscalls/   3 tools/testing/selftests/
#   4 Documentation/ and the file that patch 1 creates (needs patch 1)
#   5 kernel/
make_kernel_series() {
	"$TOOLS/rebuild.sh"
	commit_in_repo kernel/sysctl_binary.c '// SPDX-License-Identifier: GPL-2.0\n/* sysctl(2) */\nint sysctl_binary;\n' \
		"sysctl: Add the sysctl(2) entry point"
	edit_in_repo arch/x86/entry/syscalls/syscall_64.tbl 's/^156\t64\t_sysctl\t\t\tsys_ni_syscall$/156\t64\t_sysctl\t\t\tsys_sysctl/'
	git -C "$WF_REPO" add -f arch/x86/entry/syscalls/syscall_64.tbl
	dev_git commit -q -s -m "x86/syscalls: Wire up sysctl(2) for 64-bit callers" -m "Why."
	commit_in_repo tools/testing/selftests/sysctl/sysctl_syscall.c 'int main(void) { return 0; }\n' \
		"selftests/sysctl: Add a sysctl(2) test"
	printf 'Sysctl\n======\n\n.. toctree::\n\n   kernel\n   syscall\n' >"$WF_REPO/Documentation/admin-guide/sysctl/index.rst"
	printf '// SPDX-License-Identifier: GPL-2.0\n/* sysctl(2): see Documentation/admin-guide/sysctl/ */\nint sysctl_binary;\n' \
		>"$WF_REPO/kernel/sysctl_binary.c"
	git -C "$WF_REPO" add -f Documentation kernel/sysctl_binary.c
	dev_git commit -q -s -m "Documentation: Describe sysctl(2)" -m "Why."
	commit_in_repo kernel/sysctl.c '/* one */\nint one = 1;\n/* two */\nint two;\n/* three */\nint three;\n' \
		"sysctl: Initialise one"
	"$TOOLS/export.sh"
}

# pass_validation [FILTER]: out/6.1/validate/results.json as runner/validate.sh
# writes it, every commit of base..topic passing checkpatch and boot;
# FILTER, a jq program, edits it (a failed or missing result).
# shellcheck disable=SC2120 # FILTER comes from preflight.bats and send.bats (load is not followed)
pass_validation() {
	local base
	base=$(git -C "$WF_REPO" rev-parse 'refs/tags/base/6.1.99-1^{commit}')
	mkdir -p "$WF_TOP/out/6.1/validate"
	git -C "$WF_REPO" log --reverse --format='%H %T %s' "$base..fixture-topic" |
		jq -R 'capture("^(?<commit>\\S+) (?<tree>\\S+) (?<subject>.*)$")' |
		jq -s --arg base "$base" '{range: ($base + "..fixture-topic"), base: $base,
			checks: ["checkpatch", "boot"],
			commits: (to_entries | map(.value + {index: (.key + 1),
				results: {checkpatch: {status: "pass", cached: false, reason: ""},
				          boot: {status: "pass", cached: false, reason: ""}}})),
			failed: 0}' | jq "${1:-.}" >"$WF_TOP/out/6.1/validate/results.json"
}

# change_series: a sixth commit, exported and validated, and a cover
# letter for v2.
change_series() {
	commit_in_repo kernel/sysctl.c '/* one */\nint one = 1;\n/* two */\nint two = 2;\n/* three */\nint three;\n' "sysctl: Initialise two"
	"$TOOLS/export.sh"
	pass_validation
	change_series_cover
}

# change_series_cover: cover-letters/6.1/v2.txt, v1's with a new paragraph.
change_series_cover() {
	{
		head -n 2 "$WF_TOP/cover-letters/6.1/v1.txt"
		printf 'This revision also initialises two.\n\n'
		tail -n +3 "$WF_TOP/cover-letters/6.1/v1.txt"
	} >"$WF_TOP/cover-letters/6.1/v2.txt"
}

# setup_validate_fixture: a fixture kernel repo for runner/validate.sh:
# the fixture tarball's base, then one commit adding checkpatch and
# kernel-doc (from the real 6.1 base), the files that make checkpatch
# recognise a kernel tree, the tiny Makefile of tests/fixtures/validate
# and the config files that tools/build.sh reads.  Tagged fixture-base;
# validate base..topic with VALIDATE_RANGE.  The boot command is the
# fixture's, and so is the guest of the guest check
# (tests/fixtures/validate/guest-run.sh).
setup_validate_fixture() {
	local fix=$REPO_ROOT/tests/fixtures/validate
	setup_fixture
	"$TOOLS/rebuild.sh" 2>/dev/null
	add_checkpatch_to_fixture
	kernel_file scripts/kernel-doc "$WF_REPO/scripts/kernel-doc"
	chmod +x "$WF_REPO/scripts/kernel-doc"
	# The recipients check's get_maintainer.pl, and an entry for every
	# file: the fixture's patches reach a maintainer.
	kernel_file scripts/get_maintainer.pl "$WF_REPO/scripts/get_maintainer.pl"
	cp "$fix/MAINTAINERS" "$WF_REPO/MAINTAINERS"
	cp "$fix/Makefile" "$WF_REPO/Makefile"
	mkdir -p "$WF_REPO/include" "$WF_REPO/kernel/configs" "$WF_REPO/arch/x86/configs"
	cp -r "$fix/include/." "$WF_REPO/include/"
	cp "$fix/kernel/main.c" "$fix/kernel/names.c" "$WF_REPO/kernel/"
	printf 'CONFIG_EMBEDDED=y\n' >"$WF_REPO/kernel/configs/tiny-base.config"
	printf 'CONFIG_CC_OPTIMIZE_FOR_SIZE=y\n' >"$WF_REPO/kernel/configs/tiny.config"
	printf 'CONFIG_NOHIGHMEM=y\n' >"$WF_REPO/arch/x86/configs/tiny.config"
	git -C "$WF_REPO" add -f .
	git -C "$WF_REPO" -c user.name=A -c user.email=a@example.org commit -q -m "Add the fixture kernel"
	git -C "$WF_REPO" tag -f fixture-base >/dev/null
	export VALIDATE_RANGE=fixture-base..fixture-topic
	export WF_TEST_VALIDATE_BOOT=$fix/boot.sh
	export WF_TEST_VALIDATE_GUEST_RUN=$fix/guest-run.sh
	add_gen_init_cpio
	export CCACHE_DIR=$BATS_TEST_TMPDIR/ccache
}

# add_gen_init_cpio: the cache's usr/gen_init_cpio, for mkinitramfs.sh
# (the guest check builds an initramfs), compiled once per bats run.
add_gen_init_cpio() {
	local once=$BATS_RUN_TMPDIR/gen_init_cpio
	if [[ ! -x $once ]]; then
		kernel_file usr/gen_init_cpio.c "$once.c"
		gcc -O2 -o "$once.tmp" "$once.c"
		mv "$once.tmp" "$once"
	fi
	mkdir -p "$WF_CACHE/branches/6.1/bin"
	cp "$once" "$WF_CACHE/branches/6.1/bin/gen_init_cpio"
}

# validate_commit_edit FILE SED-SCRIPT SUBJECT [BODY]: commit an edit of
# FILE made by sed, with that message.
validate_commit_edit() {
	sed -i "$2" "$WF_REPO/$1"
	git -C "$WF_REPO" add -f "$1"
	git -C "$WF_REPO" -c user.name="A Developer" -c user.email=dev@example.org \
		commit -q -s -m "$3" -m "${4:-Why this change is needed.}"
}

# checks_copy: a copy of the workflow in COPY_TOP for a test's edits:
# checks/ (CHECKS_COPY), configs/ (CONFIGS_COPY, exported as
# WF_CONFIGS_DIR), tools/ and runner/, beside a link to qemu-boot/.  The copy's
# own scripts read the copy: a check's 'uses' paths are the copy's.
checks_copy() {
	COPY_TOP=$BATS_TEST_TMPDIR/wf
	mkdir -p "$COPY_TOP"
	CHECKS_COPY=$COPY_TOP/checks
	CONFIGS_COPY=$COPY_TOP/configs
	cp -r "$CHECKS" "$CHECKS_COPY"
	cp -r "$REPO_ROOT/configs" "$CONFIGS_COPY"
	cp -r "$TOOLS" "$COPY_TOP/tools"
	cp -r "$RUNNER" "$COPY_TOP/runner"
	export WF_CONFIGS_DIR=$CONFIGS_COPY
	ln -s "$QEMU_BOOT" "$BATS_TEST_TMPDIR/wf/qemu-boot"
}

# The validator on the fixture range and its results, for the suites of
# the checks (validate.bats, checks.bats, configs.bats); OUT is the
# output directory.

# validate [ARGS...]: run the validator on the fixture range.
validate() {
	run "$RUNNER/validate.sh" -o "$OUT" "$@" "$VALIDATE_RANGE"
}

# cell ROW CHECK: the status of CHECK on commit ROW (1-based) in the JSON.
cell() {
	jq -r ".commits[$(($1 - 1))].results[\"$2\"].status" "$OUT/results.json"
}

# reason ROW CHECK: the reason (the check's summary line) of CHECK on
# commit ROW.
reason() {
	jq -r ".commits[$(($1 - 1))].results[\"$2\"].reason" "$OUT/results.json"
}

# log ROW CHECK: the log file of CHECK on commit ROW.
log() {
	jq -r ".commits[$(($1 - 1))].results[\"$2\"].log" "$OUT/results.json"
}

# console ROW CHECK: the console log a guest check kept on commit ROW.
console() {
	echo "$(dirname "$(log "$1" "$2")")/console.log"
}

# use_boot_kernel WHAT: KERNEL is the boot-config kernel of the real
# series (patches/6.1), built by the tools in the tests' own cache
# (TEST_CACHE, its own ccache too): base import, rebuild and an
# incremental build, once per run of bats (the first suite that needs it
# builds it, the others find the run's stamp); WHAT says for which tests,
# on the terminal.  The user's WF_CACHE is never read or written.
use_boot_kernel() {
	local stamp=$BATS_RUN_TMPDIR/prereq-boot-kernel log=$TEST_CACHE/boot-kernel.log
	export WF_CACHE=$TEST_CACHE CCACHE_DIR=$TEST_CACHE/ccache
	unset WF_REPO WF_TOP WF_BRANCHES WF_BRANCH
	KERNEL=$WF_CACHE/branches/6.1/build/boot/arch/x86/boot/bzImage
	if [[ ! -e $stamp ]]; then
		echo "# the boot kernel for $1, in $TEST_CACHE (log: $log)" >&3
		mkdir -p "$TEST_CACHE"
		{ "$TOOLS/base.sh" && "$TOOLS/rebuild.sh" && "$TOOLS/build.sh" boot; } >"$log" 2>&1 || {
			echo "# cannot build the boot kernel: see $log" >&3
			tail -n 20 "$log" >&3
			return 1
		}
		touch "$stamp"
	fi
	export KERNEL
}

# make_faults_series: six commits on the fixture topic, exported and
# rebuilt (so that the branch has rebuild's commit ids).
make_faults_series() {
	local i
	"$TOOLS/rebuild.sh" 2>/dev/null
	for i in 1 2 3 4 5 6; do
		commit_in_repo "kernel/f$i.c" "int f$i;\n" "sysctl: Add f$i.c"
	done
	"$TOOLS/export.sh" 2>/dev/null
	"$TOOLS/rebuild.sh" 2>/dev/null
}

# start_smtp: a real SMTP server (tests/fixtures/send/smtp-server.py,
# aiosmtpd) on 127.0.0.1:$SMTP_PORT, storing what it receives in $MBOX;
# SMTP_PID is its pid, for teardown.
start_smtp() {
	local i
	MBOX=$BATS_TEST_TMPDIR/received.mbox
	/usr/bin/python3 "$REPO_ROOT/tests/fixtures/send/smtp-server.py" "$MBOX" "$BATS_TEST_TMPDIR/port" \
		>"$BATS_TEST_TMPDIR/smtp.log" 2>&1 3>&- &
	# shellcheck disable=SC2034 # used by the .bats files
	SMTP_PID=$!
	for ((i = 0; i < 100; i++)); do
		[[ -s $BATS_TEST_TMPDIR/port ]] && break
		sleep 0.1
	done
	# shellcheck disable=SC2034 # used by the .bats files
	SMTP_PORT=$(cat "$BATS_TEST_TMPDIR/port")
}

# start_provider: start_smtp as a mail provider: STARTTLS with a
# throwaway certificate, then AUTH as sam with the password
# $PROVIDER_PASSWORD; the git configuration of the fixture's sender
# names it (sendemail.*), her credential helper gives the password (and
# notes each call in $BATS_TEST_TMPDIR/credential.log).
start_provider() {
	local d=$BATS_TEST_TMPDIR/provider
	PROVIDER_PASSWORD=s3cret-fixture-pw
	mkdir -p "$d"
	openssl req -x509 -newkey rsa:2048 -nodes -keyout "$d/key.pem" -out "$d/cert.pem" -days 2 \
		-subj /CN=localhost -addext 'subjectAltName=IP:127.0.0.1,DNS:localhost' 2>/dev/null
	SMTP_FIXTURE_AUTH=sam:$PROVIDER_PASSWORD SMTP_FIXTURE_TLS=$d/cert.pem:$d/key.pem start_smtp
	git config --global sendemail.smtpServer 127.0.0.1
	git config --global sendemail.smtpServerPort "$SMTP_PORT"
	git config --global sendemail.smtpEncryption tls
	git config --global sendemail.smtpUser sam
	git config --global sendemail.smtpSslCertPath "$d/cert.pem"
	git config --global credential.helper \
		"!f() { echo \"\$1\" >>'$BATS_TEST_TMPDIR/credential.log'; [ \"\$1\" != get ] || echo password=$PROVIDER_PASSWORD; }; f"
}

# check_arrived DIR [self]: what the server got ($MBOX) against the
# revision written in DIR (tests/fixtures/send/check-arrived.py): each
# message once, one thread, to its written To/Cc exactly, no reserved
# domain, nothing to the sender (unless "self").
check_arrived() {
	/usr/bin/python3 "$REPO_ROOT/tests/fixtures/send/check-arrived.py" "$MBOX" "$1" sam@fixture.home.arpa "${2:-}"
}

# --- port tests --------------------------------------------------------------

# make_port_fixture [conflict]: two topic branches, 6.1 on the fixture
# package and 6.12 on a second one, linux-source-6.12 (the same tree with
# PATCHLEVEL = 12 and, with "conflict", "long two;" where 6.1 has
# "int two;"), and a 6.1 series in patches/6.1: 1 adds kernel/new.c, 2
# initialises two (the conflict), 3 initialises three (through a 3-way
# merge after the resolution of 2).  Each branch has its own cache repo,
# so WF_REPO is left unset.
make_port_fixture() {
	local tmp
	tmp=$(mktemp -d)
	tar -xJf "$WF_SRC_DIR/linux-source-6.1.tar.xz" -C "$tmp"
	sed -i 's/^PATCHLEVEL = 1$/PATCHLEVEL = 12/' "$tmp/linux-source-6.1/Makefile"
	[[ ${1:-} != conflict ]] || sed -i 's/^int two;$/long two;/' "$tmp/linux-source-6.1/kernel/sysctl.c"
	mv "$tmp/linux-source-6.1" "$tmp/linux-source-6.12"
	tar -cJf "$WF_SRC_DIR/linux-source-6.12.tar.xz" -C "$tmp" linux-source-6.12
	rm -rf "$tmp"
	printf '%s\n' 'topic 6.1 fixture-topic linux-source-6.1 any patches/6.1' \
		'topic 6.12 fixture-topic-6.12 linux-source-6.12 any patches/6.12' >"$WF_TOP/branches.txt"
	mkdir -p "$WF_TOP/patches/6.1" "$WF_TOP/patches/6.12"
	export WF_REPO=$WF_CACHE/branches/6.1/linux
	WF_BRANCH=6.1 "$TOOLS/rebuild.sh" 2>/dev/null
	commit_in_repo kernel/new.c 'int new;\n' "sysctl: Add new.c"
	commit_in_repo kernel/sysctl.c '/* one */\nint one;\n/* two */\nint two = 2;\n/* three */\nint three;\n' \
		"sysctl: Initialise two"
	commit_in_repo kernel/sysctl.c '/* one */\nint one;\n/* two */\nint two = 2;\n/* three */\nint three = 3;\n' \
		"sysctl: Initialise three"
	WF_BRANCH=6.1 "$TOOLS/export.sh" 2>/dev/null
	unset WF_REPO
	# shellcheck disable=SC2034 # used by the .bats files
	PORT_TREE=$WF_CACHE/port/6.1..6.12/linux
}
