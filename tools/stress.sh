#!/usr/bin/env bash
# Stress the tip of the series under a debug kernel: the kselftest (64 and
# 32 bit), a seeded fuzzer (64 and 32 bit), a concurrency test and the
# cost benchmark, all in one QEMU guest of the debug config (KASAN, UBSAN,
# lockdep, DEBUG_ATOMIC_SLEEP, DEBUG_OBJECTS, hardened usercopy); then the
# cost benchmark again on the boot config, whose figures are not skewed
# by the sanitizers.
#
#   tools/stress.sh [-s SRC] [-o OUTDIR] [-k BZIMAGE] [-n CALLS] [-S SEED]
#                    [-T SECONDS] [-t TIMEOUT] [-P NAMES] [-p PROGRAM]...
#                    [-a ARGS] [-R RECORDED] [-C] [-f]
#
# SRC is the kernel work tree (default: the cache repo's), built in
# $WF_CACHE/build/debug and, for the cost figures, $WF_CACHE/build/boot;
# when SRC is the branch's tip as make validate left it in its cache,
# its kernel of the boot config is booted instead of a second build of
# the same (runner/validate.sh -k build-boot).  -k boots BZIMAGE as the
# debug kernel instead of building one (no cost run on the boot config).
# -n is the number of fuzzer calls per build (default 100000), -S its seed
# (default 1), -T how long the concurrency test runs (default 10 s), -t
# the guest's time limit (default 1800 s).  -P runs only the guest
# programs NAMES names (comma-separated, of kselftest, kselftest_32,
# fuzz, fuzz_32, threads, threads_32 and cost; default all: a developer
# working on one program, or a test of this script, need not wait for
# the kselftest's rate-limit pauses); without cost, no cost run on the
# boot config.  -p adds a static program to the guest's tests; -a adds
# kernel command line arguments (KEY=VALUE ones reach the programs'
# environment: GUEST_SYSCTL_NR=N makes them call system call N instead,
# to see them fail); -C skips the cost run on the boot config.  Writes
# OUTDIR (default $WF_TOP/out/<id>/stress, <id> the branch): the console
# logs, summary.txt.
# The cost run on the boot config runs the cost program 64-bit and
# 32-bit (the compat entry point); the summary sets each name's ratio to
# open/read/close beside the one recorded in RECORDED (default
# qemu-boot/cost-recorded.txt) and marks one more than 10% above it as a
# regression: a figure for a person to read, not a failure (the guest's
# timing is too noisy to fail a run on).
#
# A run that passed or failed is kept in $WF_CACHE/stress/results
# ($WF_STRESS_RESULTS when set), keyed
# on the tree id of SRC, the guest programs, the kselftest, the scripts
# and config fragments that build and boot the guests, and the counts,
# seed and options above; the next run with the same key prints the kept
# table and status without building or booting anything.  -f runs again.
# With -k the image is part of the key.  Nothing is kept for -p, a work
# tree with uncommitted changes, or a run that could not run.  -P is part
# of the key.
# While a guest runs (the debug one up to TIMEOUT), one progress line every
# WF_PROGRESS_INTERVAL seconds (default 60) on stderr: how long it has
# run, the lines of its console so far and the last program that finished
# there, with its result.
# Fails when a program fails, the guest hangs or panics, or the console
# has any report of the debug options, or the tip does not build in the
# debug config (the series may have broken it).  Exit status: 0 pass, 1
# fail, 2 bad input, 3 an infrastructure error: a guest could not run
# (qemu-boot/run.sh's 2), or a full disk (less than 1 MiB free where the
# run writes, OUTDIR or $WF_CACHE), neither a pass nor a failure of the
# kernel: one line names it.  Killed, the run
# leaves no summary.txt (it is written last, under a temporary name); the
# next run says what it cleaned up (lock and marker: tools/lib.sh).
# WF_TEST_STRESS_RUN and WF_TEST_STRESS_MKINITRAMFS replace qemu-boot/run.sh and
# qemu-boot/mkinitramfs.sh (tests/fixtures/stress: a guest without a
# kernel, for the tests and dev/faults.sh).
set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=runner/lib.sh
. "$WF_HOME/runner/lib.sh"
# shellcheck source=tools/lib/stress-cache.sh
. "$WF_HOME/tools/lib/stress-cache.sh"
# shellcheck source=tools/lib/stress-report.sh
. "$WF_HOME/tools/lib/stress-report.sh"

GUEST=$WF_HOME/qemu-boot
# The cost figures last recorded, and how far above them a ratio is
# reported as a regression (percent).
RECORDED=$GUEST/cost-recorded.txt
REGRESSION_PCT=10
# The guest's /tests, built by qemu-boot/programs.sh.
PROGRAMS=(kselftest kselftest_32 fuzz fuzz_32 threads threads_32 cost)
RUNNER=${WF_TEST_STRESS_RUN:-$WF_HOME/qemu-boot/run.sh}
MKINITRAMFS=${WF_TEST_STRESS_MKINITRAMFS:-$WF_HOME/qemu-boot/mkinitramfs.sh}

usage() {
	echo "usage: $0 [-s SRC] [-o OUTDIR] [-k BZIMAGE] [-n CALLS] [-S SEED] [-T SECONDS] [-t TIMEOUT] [-P NAMES] [-p PROGRAM]... [-a ARGS] [-R RECORDED] [-C] [-f]" >&2
	exit 2
}

# --- a full disk -------------------------------------------------------------

# out_of_space DIR...: the first DIR whose file system has less than 1 MiB
# free (vl_nearly_full, runner/lib.sh: validate's test), none: fails.
out_of_space() {
	local d
	for d in "$@"; do
		[[ -d $d ]] || continue
		# shellcheck disable=SC2310 # its status is its answer
		if vl_nearly_full "$d"; then
			printf '%s\n' "$d"
			return 0
		fi
	done
	return 1
}

# build_failed MESSAGE: a kernel of the tip does not build: a failed
# check (exit 1), said in one line; the run ends cleanly (its marker goes).
# A build that failed for want of space is the infrastructure error
# instead (on_exit).
build_failed() {
	printf '%s: error: %s\n' "$WF_PROG" "$*" >&2
	[[ -z ${WF_RUN_NAME:-} ]] || wf_run_end
	exit 1
}

# infra_error DIR: the infrastructure error of a full disk, in one line;
# exit 3.
infra_error() {
	trap - EXIT
	printf '%s: infrastructure error: no space left on device in %s\n' "$WF_PROG" "$1" >&2
	[[ -z ${WF_RUN_NAME:-} ]] || wf_run_end
	exit 3
}

# infra_error_if_full [DIR]: infra_error when OUT or the cache is full, or
# DIR is given (a step said "No space left on device" there).
infra_error_if_full() {
	local d
	# shellcheck disable=SC2310 # its status is its answer; it does not rely on set -e
	d=$(out_of_space "$OUT" "$WF_CACHE") || d=${1:-}
	[[ -z $d ]] || infra_error "$d"
}

# on_exit STATUS: a run that did not pass, with the disk full, failed
# for want of space (a truncated console log, a step that could not
# write): say that instead.
on_exit() {
	[[ $1 -eq 0 ]] || infra_error_if_full
}

# validated_boot_kernel: the boot config's kernel that make validate kept
# for the tip of the branch, when that is SRC's tree with no change
# (runner/validate.sh -k build-boot: from its cache alone, built by the same
# scripts and fragments as tools/build.sh builds), else nothing.
validated_boot_kernel() {
	local out tree dir
	[[ $SRC == "$WF_REPO" && -z $(git -C "$SRC" status --porcelain 2>/dev/null) ]] || return 0
	out=$("$WF_HOME/runner/validate.sh" -k build-boot 2>/dev/null) || return 0
	read -r tree dir <<<"$out"
	[[ $tree == "$(git -C "$SRC" rev-parse 'HEAD^{tree}' 2>/dev/null)" && -r $dir/arch/x86/boot/bzImage ]] || return 0
	printf '%s\n' "$dir/arch/x86/boot/bzImage"
}

# select_programs NAMES: PROGRAMS becomes the comma-separated NAMES, in
# the order of the full list; an unknown or repeated name is bad input.
select_programs() {
	local name all=" ${PROGRAMS[*]} "
	local -A want=()
	local -a picked=()
	[[ -n ${1//,/} ]] || bad_input "-P names no program (of: ${PROGRAMS[*]})"
	for name in ${1//,/ }; do
		[[ $all == *" $name "* ]] || bad_input "-P: unknown guest program '$name' (of: ${PROGRAMS[*]})"
		[[ -z ${want[$name]:-} ]] || bad_input "-P: '$name' named twice"
		want[$name]=1
	done
	for name in "${PROGRAMS[@]}"; do
		[[ -z ${want[$name]:-} ]] || picked+=("$name")
	done
	PROGRAMS=("${picked[@]}")
}

# build_programs: the guest's /tests, in the order /init runs them, built
# by qemu-boot/programs.sh into OUT/bin, then the programs of -p.  A full
# disk there is an infrastructure error; gcc's messages are shown only
# for another failure.
build_programs() {
	local bin=$OUT/bin prog err
	rm -rf "$bin"
	mkdir -p "$bin"
	if ! err=$("$GUEST/programs.sh" -o "$bin" -s "$SRC" "${PROGRAMS[@]}" 2>&1 >"$bin/.list"); then
		[[ $err != *'No space left on device'* ]] || infra_error_if_full "$bin"
		infra_error_if_full
		printf '%s\n' "$err" >&2
		bad_input "cannot build the guest programs: $(tail -n 1 <<<"$err")"
	fi
	[[ -z $err ]] || printf '%s\n' "$err" >&2
	mapfile -t PROGS <"$bin/.list"
	for prog in "${EXTRA[@]}"; do
		[[ -f $prog && -x $prog ]] || bad_input "test program $prog does not exist or is not executable"
		cp "$prog" "$bin/50-${prog##*/}"
		PROGS+=("$bin/50-${prog##*/}")
	done
}

# guest_ticker NAME LOG: while the guest NAME runs, every EVERY seconds,
# how long it has run, the lines of its console LOG so far and the last
# program of /tests that finished there, with its result.  Run in the
# background and ended by TERM (it waits in nap: no trap, tools/lib.sh);
# it ends by itself once this script is gone.
guest_ticker() {
	local name=$1 log=$2 pid=$$ start=$SECONDS n last
	while :; do
		nap "$EVERY"
		kill -0 "$pid" 2>/dev/null || return 0
		n=$(wc -l <"$log" 2>/dev/null) || n=0
		last=$(grep -aoE '(not )?ok [0-9]+ - /tests/[^ ]+' "$log" 2>/dev/null | tail -n 1) || true
		if [[ $last =~ ^(not )?ok\ [0-9]+\ -\ /tests/(.*)$ ]]; then
			last="last finished: ${BASH_REMATCH[2]} (${BASH_REMATCH[1]:+not }ok)"
		else
			last='no program finished yet'
		fi
		info "the $name guest is running, $(vl_elapsed $((SECONDS - start))), $n line(s) of console so far, $last"
	done
}

# boot NAME KERNEL INITRD CPUS [ARGS]: one guest with CPUS CPUs; its log
# is OUTDIR/NAME-console.log, and while it runs a progress line comes
# every EVERY seconds (guest_ticker).  Sets VERDICT[NAME]; returns
# run.sh's status.
boot() {
	local name=$1 kernel=$2 initrd=$3 cpus=$4 args=${5:-} rc=0 ticker
	info "booting the $name kernel, $cpus CPU(s) (log $OUT/$name-console.log)"
	guest_ticker "$name" "$OUT/$name-console.log" &
	ticker=$!
	"$RUNNER" -i "$initrd" -t "$TIMEOUT" -n "$cpus" \
		-l "$OUT/$name-console.log" \
		-a "FUZZ_SEED=$SEED FUZZ_CALLS=$CALLS THREADS_SECONDS=$SECS $args $APPEND" "$kernel" \
		2>"$OUT/$name-run.txt" || rc=$?
	kill "$ticker" 2>/dev/null || true
	wait "$ticker" 2>/dev/null || true
	VERDICT[$name]=$(sed -n 's/^run: \(PASS\|FAIL\)/\1/p' "$OUT/$name-run.txt" | tail -n 1)
	[[ -n ${VERDICT[$name]} ]] || VERDICT[$name]="could not run: $(tail -n 1 "$OUT/$name-run.txt")"
	info "the $name kernel: ${VERDICT[$name]}"
	return $rc
}

# read_options ARG...: the settings (SRC, OUT, CALLS, ...; KERNEL_ARG,
# COST, FORCE, PROGRAMS), each checked.
read_options() {
	local name names='' opt
	SRC=$WF_REPO OUT=$WF_OUT/stress CALLS=100000 SEED=1 SECS=10 TIMEOUT=1800
	EXTRA=() APPEND='' KERNEL_ARG='' RESULTS=${WF_STRESS_RESULTS:-$WF_CACHE/stress/results}
	COST=1 FORCE=0
	while getopts 's:o:k:n:S:T:t:P:p:a:R:Cf' opt; do
		case $opt in
		s) SRC=$OPTARG ;;
		o) OUT=$OPTARG ;;
		k) KERNEL_ARG=$OPTARG ;;
		n) CALLS=$OPTARG ;;
		S) SEED=$OPTARG ;;
		T) SECS=$OPTARG ;;
		t) TIMEOUT=$OPTARG ;;
		P) names=$OPTARG ;;
		p) EXTRA+=("$OPTARG") ;;
		a) APPEND=$OPTARG ;;
		R) RECORDED=$OPTARG ;;
		C) COST=0 ;;
		f) FORCE=1 ;;
		*) usage ;;
		esac
	done
	shift $((OPTIND - 1))
	[[ $# -eq 0 ]] || usage
	for name in CALLS SEED SECS TIMEOUT; do
		[[ ${!name} =~ ^[0-9]+$ ]] || bad_input "$name must be a number, not '${!name}'"
	done
	EVERY=${WF_PROGRESS_INTERVAL:-60}
	[[ $EVERY =~ ^[1-9][0-9]*$ ]] || bad_input "WF_PROGRESS_INTERVAL must be a number of seconds, not '$EVERY'"
	[[ -z $names ]] || select_programs "$names"
	[[ " ${PROGRAMS[*]} " == *' cost '* ]] || COST=0
	[[ -d $SRC ]] || bad_input "kernel tree $SRC does not exist (run: make rebuild)"
	[[ -z $KERNEL_ARG || -r $KERNEL_ARG ]] || bad_input "kernel image $KERNEL_ARG does not exist"
	[[ -r $RECORDED ]] || bad_input "the recorded cost figures $RECORDED do not exist"
	for name in fuzz threads cost; do
		[[ -r $GUEST/$name.c ]] || bad_input "$GUEST/$name.c is missing"
	done
	# shellcheck disable=SC2310 # its status is its answer; it does not rely on set -e
	BAD_PATTERNS=$(bad_console_patterns) || exit 2
}

# begin_run: the lock and the run marker; what a killed run left is
# cleaned up; the last run's output goes.
begin_run() {
	mkdir -p "$OUT"
	trap 'on_exit $?' EXIT
	wf_lock stress
	wf_run_begin stress "$OUT/summary.txt.tmp" "$RESULTS/.tmp-*"
	# shellcheck disable=SC2310 # wf_no_recovery is one test: its status is the answer
	wf_no_recovery || recover_output
	wf_report_repairs last
	rm -f "$OUT"/*-console.log "$OUT"/*-run.txt "$OUT/summary.txt"
}

# build_kernels: KERNEL, the debug kernel (-k's, or built), and
# BOOT_KERNEL for the cost figures (the one make validate kept for this
# tree, or built; none without the cost program).
build_kernels() {
	KERNEL=$KERNEL_ARG BOOT_KERNEL=''
	[[ -z $KERNEL ]] || return 0
	info "building the debug config of $SRC"
	"$WF_HOME/tools/build.sh" -s "$SRC" -o "$WF_CACHE/build/debug" debug ||
		build_failed "the debug config of $SRC does not build (log: $WF_CACHE/build/debug/build.log)"
	KERNEL=$WF_CACHE/build/debug/arch/x86/boot/bzImage
	[[ $COST -eq 1 ]] || return 0
	BOOT_KERNEL=$(validated_boot_kernel)
	if [[ -n $BOOT_KERNEL ]]; then
		info "the boot config: the kernel make validate built for this tree ($BOOT_KERNEL)"
	else
		info "building the boot config of $SRC (for the cost figures)"
		"$WF_HOME/tools/build.sh" -s "$SRC" -o "$WF_CACHE/build/boot" boot ||
			build_failed "the boot config of $SRC does not build (log: $WF_CACHE/build/boot/build.log)"
		BOOT_KERNEL=$WF_CACHE/build/boot/arch/x86/boot/bzImage
	fi
}

# run_guests: the debug guest, then the boot guest for the cost figures
# when there is one; RC, the worse of their statuses.
run_guests() {
	local r
	RC=0
	"$MKINITRAMFS" -o "$OUT/debug.cpio" "${PROGS[@]}"
	declare -gA VERDICT=()
	RUNS=(debug)
	# The sanitizers skew the cost figures: fewer samples there, the
	# figures come from the boot config.
	# Two CPUs: the concurrency test's threads race inside the wrapper.
	# shellcheck disable=SC2310 # its status is its answer; it does not rely on set -e
	boot debug "$KERNEL" "$OUT/debug.cpio" 2 COST_SAMPLES=300 || RC=$?
	[[ -n $BOOT_KERNEL ]] || return 0
	# The compat entry point too.
	"$GUEST/programs.sh" -o "$OUT/bin" cost_32 >/dev/null ||
		bad_input "cannot build the 32-bit cost program"
	"$MKINITRAMFS" -n -o "$OUT/boot.cpio" "$OUT/bin/40-cost" "$OUT/bin/41-cost_32"
	RUNS+=(boot)
	# shellcheck disable=SC2310 # its status is its answer; it does not rely on set -e
	boot boot "$BOOT_KERNEL" "$OUT/boot.cpio" 1 || {
		r=$?
		[[ $r -gt $RC ]] && RC=$r
	}
}

# write_summary: summary.txt, renamed into place whole, and on stdout.
write_summary() {
	{
		summary
		[[ -z $BOOT_KERNEL ]] || cost_against_recorded "$OUT/boot-console.log"
	} >"$OUT/summary.txt.tmp"
	mv "$OUT/summary.txt.tmp" "$OUT/summary.txt"
	cat "$OUT/summary.txt"
}

main() {
	local key r
	read_options "$@"
	begin_run
	key=$(result_key "$COST")
	if [[ $FORCE -eq 0 && -n $key ]]; then
		r=0
		# shellcheck disable=SC2310 # its status is its answer; it does not rely on set -e
		kept_result "$key" || r=$?
		if [[ $r -ne 3 ]]; then
			wf_run_end
			return "$r"
		fi
	fi
	build_programs
	build_kernels
	run_guests
	write_summary
	# A failure for want of space is no result: never kept.
	[[ $RC -eq 0 ]] || infra_error_if_full
	# A guest that could not run (run.sh's 2): an infrastructure error.
	[[ $RC -ne 2 ]] || RC=3
	keep_result "$key" "$RC"
	wf_run_end
	case $RC in
	0) info "PASS (logs: $OUT)" ;;
	3) printf '%s: infrastructure error: a guest could not run (logs: %s)\n' "$WF_PROG" "$OUT" >&2 ;;
	*) info "FAIL (logs: $OUT)" ;;
	esac
	return $RC
}

long_options calls=n -- "$@"
main "${LONG_ARGS[@]}"
