#!/usr/bin/env bash
# Boot a kernel in QEMU with the smoke test as /init and judge the result.
#
#   qemu-boot/run.sh [-i INITRAMFS] [-a APPEND] [-d] [-t SECONDS] [-l LOG]
#                    [-A auto|kvm|tcg] [-n CPUS] BZIMAGE
#   qemu-boot/run.sh -c LOG          judge an existing console log only
#
# BZIMAGE is an x86 bzImage (qemu-system-x86_64, the PC machine) or an
# arm64 Image, told by its header's magic (qemu-system-aarch64 from
# qemu-system-arm, the virt machine, a Cortex-A57, which runs 32-bit ARM
# programs at EL0 as arm64's compat layer needs; always TCG here).
#
# The series' sysctl(2) is off unless the kernel is booted with
# sysctl_syscall=on: every guest gets it, and SYSCTL_SYSCALL_TEST_LOG=1
# (the guest is a test machine: the kselftest may use up a name's line
# of the kernel log), before APPEND, which may turn it off again; -d
# boots with neither, to see the kernel's default.
# Without -i, the initramfs is built by mkinitramfs.sh.  KVM is used only
# when a probe (a boot sector that exits through isa-debug-exit) shows it
# works; otherwise TCG, multi-threaded when the guest has more than one
# CPU (-n, default 1), so that its CPUs really run at once.  The guest is
# killed after SECONDS.  It fails on a
# timeout, a panic, an oops, "BUG:", "WARNING:", a sanitizer report, a
# missing TAP plan, a "not ok" line or fewer test lines than the plan;
# the console lines that fail it are the patterns of bad-console.txt.
# LOG is written without the serial console's carriage returns (with them
# while the guest runs).  SIGINT, SIGTERM or SIGHUP stop the guest at
# once: the runner then dies of that signal (status 130, 143, 129).
# Exit status: 0 pass, 1 fail, 2 could not run.
set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/../tools/lib.sh"

# The timeout command running the current QEMU (GUARDED while guarded()
# starts it), the log to finish when interrupted, the signal that
# interrupted the runner, a temporary file to remove.
GUEST_PID='' GUARDED='' LOG='' INTERRUPTED='' TMPFILE=''
# The architecture of the kernel booted: x86 or arm64 (image_arch).
GUEST_ARCH=x86

usage() {
	cat >&2 <<-'EOF'
	usage: qemu-boot/run.sh [-i INITRAMFS] [-a APPEND] [-d] [-t SECONDS] [-l LOG]
	                        [-A auto|kvm|tcg] [-n CPUS] BZIMAGE
	       qemu-boot/run.sh -c LOG
	EOF
	exit 2
}

fail_setup() {
	printf '%s: error: %s\n' "$WF_PROG" "$*" >&2
	exit 2
}

# on_signal SIG: stop the running guest (guarded() then returns and the
# runner dies of SIG), or die of SIG now when none runs.
on_signal() {
	INTERRUPTED=$1
	[[ -n $GUARDED ]] || die_interrupted
	[[ -z $GUEST_PID ]] || kill -TERM "$GUEST_PID" 2>/dev/null || true
}

# die_interrupted: say so in one line, clean up, die of INTERRUPTED.
die_interrupted() {
	local sig=$INTERRUPTED
	[[ -n $LOG && -f $LOG ]] && strip_cr "$LOG"
	rm -f "$TMPFILE"
	printf '%s: error: interrupted by SIG%s: the guest was stopped%s\n' "$WF_PROG" "$sig" \
		"${LOG:+ (log: $LOG)}" >&2
	trap - "$sig" EXIT
	kill -s "$sig" $$
	# Not dead: SIG was ignored when the runner started.
	exit $((128 + $(kill -l "$sig")))
}

# guarded SECONDS OUT CMD...: CMD under timeout (TERM at SECONDS, KILL
# 5 s later), its output in OUT, in the background so that a signal's
# trap runs at once (bash runs traps only between commands); returns
# timeout's status.  The
# timeout command keeps QEMU in a process group of its own: a terminal's
# Ctrl-C reaches the runner only, which stops the guest itself.  A
# SIGKILL cannot be trapped: timeout gets one when the runner dies, QEMU
# one when timeout dies (the parent-death signal), so a killed make
# leaves no guest running in its own group.
guarded() {
	local limit=$1 out=$2 rc=0
	shift 2
	GUARDED=1
	setpriv --pdeathsig KILL timeout -k 5 "$limit" setpriv --pdeathsig KILL "$@" \
		</dev/null >"$out" 2>&1 &
	GUEST_PID=$!
	[[ -z $INTERRUPTED ]] || kill -TERM "$GUEST_PID" 2>/dev/null || true
	wait "$GUEST_PID" || rc=$?
	# wait returns early when a trap ran: the guest got TERM; a second to
	# stop, then KILL (timeout dies of it, QEMU of its parent-death
	# signal): a QEMU that does not stop on TERM (one stuck in a device,
	# one that ignores it) would otherwise keep the terminal until
	# timeout's own KILL, 5 s later.
	[[ -z $INTERRUPTED ]] || stop_guest
	GUEST_PID='' GUARDED=''
	[[ -z $INTERRUPTED ]] || die_interrupted
	return $rc
}

# stop_guest: wait up to a second for GUEST_PID (TERM sent) to end, then
# KILL it; reaps it.  Waits in nap (tools/lib.sh), so that a second
# signal's trap runs at once.
stop_guest() {
	local grace=10 state
	while read -r _ _ state _ <"/proc/$GUEST_PID/stat" 2>/dev/null && [[ $state != Z ]]; do
		if ((grace-- == 0)); then
			kill -KILL "$GUEST_PID" 2>/dev/null || true
		fi
		nap 0.1
	done
	wait "$GUEST_PID" 2>/dev/null || true
}

# strip_cr LOG: remove the serial console's carriage returns, once, so
# that no reader of LOG has to.
strip_cr() {
	tr -d '\r' <"$1" >"$1.tmp" && mv -f "$1.tmp" "$1"
}

# kvm_cpu KERNEL: set KVM_CPU to the first CPU model with which KVM really
# runs a guest here; fail if none does (not in a subshell: the probe is a
# guest, and the signal traps must see it).  /dev/kvm can exist and still fail: on
# some hosts "-cpu host" aborts setting MSRs, and on others a boot sector
# runs but a kernel hangs.  So the probe boots KERNEL with no root and
# panic=-1: under working KVM it panics and resets within seconds.  The
# answer is cached per host boot and QEMU version.
kvm_cpu() {
	local kernel=$1 cpu rc key cache=$WF_CACHE/boot/kvm-probe
	[[ -r /dev/kvm && -w /dev/kvm ]] || return 1
	key="$(cat /proc/sys/kernel/random/boot_id) $(qemu-system-x86_64 --version | head -n 1)"
	if [[ -r $cache && $(head -n 1 "$cache") == "$key" ]]; then
		KVM_CPU=$(sed -n 2p "$cache")
		[[ $KVM_CPU != none ]]
		return
	fi
	info "probing KVM (cached in $cache)"
	for cpu in host qemu64 none; do
		[[ $cpu == none ]] && break
		rc=0
		# shellcheck disable=SC2310 # its status is its answer; it does not rely on set -e
		guarded 20 /dev/null qemu-system-x86_64 -accel kvm -cpu "$cpu" -M pc \
			-m 256M -nodefaults -display none -no-reboot \
			-serial "file:$cache.log" -kernel "$kernel" \
			-append "console=ttyS0 panic=-1 rdinit=/kvm-probe root=/dev/null" || rc=$?
		[[ $rc -eq 0 ]] && grep -q 'Kernel panic' "$cache.log" && break
	done
	printf '%s\n%s\n' "$key" "$cpu" >"$cache"
	KVM_CPU=$cpu
	[[ $cpu != none ]]
}

# last_line LOG: the last non-empty console line, shortened.
last_line() {
	grep -v '^$' "$1" | tail -n 1 | cut -c1-120 || true
}

# judge_log LOG: prints a one-line verdict; returns 0 when the boot passed.
# The kernel's reports first, then the TAP of /init, as qemu-boot/ktap.awk
# reads it (every tool reads a guest's console through it).
judge_log() {
	local log=$1 bad
	bad=$(grep -m1 -E -e "$BAD_PATTERNS" "$log" || true)
	if [[ -n $bad ]]; then
		echo "FAIL: kernel reported: $bad"
		return 1
	fi
	awk -v mode=verdict -f "$WF_HOME/qemu-boot/ktap.awk" "$log"
}

# The parameters every guest boots with, unless -d: sysctl(2) on, and
# the kselftest's log case allowed.
SERIES_APPEND='sysctl_syscall=on SYSCTL_SYSCALL_TEST_LOG=1'

# read_options ARGS...: INITRD, APPEND, TIMEOUT, LOG_PATH, ACCEL, CHECK
# and CPUS from the options; the rest, the kernel image, in ARGS.  (LOG,
# which the signal handlers read, is set when the guest starts.)
read_options() {
	local opt default=''
	INITRD='' APPEND='' TIMEOUT='' LOG_PATH='' ACCEL=auto CHECK='' CPUS=1 ARGS=()
	while getopts 'i:a:dt:l:A:c:n:' opt; do
		case $opt in
		i) INITRD=$OPTARG ;;
		a) APPEND=$OPTARG ;;
		d) default=1 ;;
		t) TIMEOUT=$OPTARG ;;
		l) LOG_PATH=$OPTARG ;;
		A) ACCEL=$OPTARG ;;
		c) CHECK=$OPTARG ;;
		n) CPUS=$OPTARG ;;
		*) usage ;;
		esac
	done
	shift $((OPTIND - 1))
	ARGS=("$@")
	[[ -n $default ]] || APPEND="$SERIES_APPEND${APPEND:+ $APPEND}"
}

# image_arch KERNEL: arm64 when KERNEL is an arm64 Image (the magic
# "ARM\x64" at offset 56 of its header), x86 otherwise.
image_arch() {
	if [[ $(od -An -tx1 -j56 -N4 "$1" 2>/dev/null | tr -d ' \n') == 41524d64 ]]; then
		echo arm64
	else
		echo x86
	fi
}

# choose_accel KERNEL: ACCEL (kvm when asked for or when auto and KVM
# boots KERNEL, else tcg) and CPU, its -cpu; TIMEOUT defaults by it.
# An arm64 guest runs on TCG: this is an x86 host.
choose_accel() {
	CPU=max
	if [[ $GUEST_ARCH == arm64 ]]; then
		[[ $ACCEL != kvm ]] || fail_setup "KVM cannot run an arm64 guest on this host: use -A tcg"
		[[ $ACCEL == auto || $ACCEL == tcg ]] ||
			fail_setup "accelerator must be auto, kvm or tcg, not '$ACCEL'"
		ACCEL=tcg CPU=cortex-a57
		[[ -n $TIMEOUT ]] || TIMEOUT=300
		return 0
	fi
	# shellcheck disable=SC2310 # kvm_cpu's status is its answer
	case $ACCEL in
	auto) if kvm_cpu "$1"; then ACCEL=kvm CPU=$KVM_CPU; else ACCEL=tcg; fi ;;
	kvm) kvm_cpu "$1" || fail_setup "KVM does not work here (probe failed)"; CPU=$KVM_CPU ;;
	tcg) ;;
	*) fail_setup "accelerator must be auto, kvm or tcg, not '$ACCEL'" ;;
	esac
	[[ -n $TIMEOUT ]] || { [[ $ACCEL == kvm ]] && TIMEOUT=60 || TIMEOUT=180; }
}

# qemu_command KERNEL: QEMU, the command line of the guest.
qemu_command() {
	local -a machine=(qemu-system-x86_64 -M pc) console=ttyS0
	[[ $GUEST_ARCH != arm64 ]] || machine=(qemu-system-aarch64 -M virt) console=ttyAMA0
	QEMU=("${machine[@]}" -m 512M -smp "$CPUS" -nodefaults
		-display none -no-reboot -monitor none -serial "file:$LOG"
		-kernel "$1" -initrd "$INITRD"
		-append "console=$console panic=-1 loglevel=5 $APPEND")
	if [[ $GUEST_ARCH == arm64 ]]; then
		if [[ $CPUS -gt 1 ]]; then QEMU+=(-accel 'tcg,thread=multi'); else QEMU+=(-accel tcg); fi
		QEMU+=(-cpu "$CPU")
	elif [[ $ACCEL == kvm ]]; then
		QEMU+=(-accel kvm -cpu "$CPU")
	elif [[ $CPUS -gt 1 ]]; then
		QEMU+=(-accel 'tcg,thread=multi' -cpu max)
	else
		QEMU+=(-accel tcg -cpu max)
	fi
}

# verdict_of RC: the verdict of a guest whose run ended with RC (124 or
# 137: killed at the timeout), from its console log.
verdict_of() {
	if [[ $1 -eq 124 || $1 -eq 137 ]]; then
		echo "FAIL: guest hung: killed after ${TIMEOUT}s (last line: $(last_line "$LOG"))"
	elif [[ $1 -ne 0 ]]; then
		echo "FAIL: qemu exited with status $1: $(head -n 1 "$LOG.qemu")"
	else
		# shellcheck disable=SC2310 # its status is its answer; it does not rely on set -e
		judge_log "$LOG" || true
	fi
}

main() {
	local kernel verdict start end secs rc=0
	read_options "$@"
	# shellcheck disable=SC2310 # its status is its answer; it does not rely on set -e
	BAD_PATTERNS=$(bad_console_patterns) || exit 2
	trap 'on_signal INT' INT
	trap 'on_signal TERM' TERM
	trap 'on_signal HUP' HUP
	trap 'rm -f "$TMPFILE"' EXIT
	if [[ -n $CHECK ]]; then
		# A log from elsewhere (a raw serial capture) may have them.
		[[ -r $CHECK ]] || fail_setup "console log $CHECK does not exist"
		TMPFILE=$(mktemp)
		tr -d '\r' <"$CHECK" >"$TMPFILE"
		judge_log "$TMPFILE"
		return
	fi
	[[ ${#ARGS[@]} -eq 1 ]] || usage
	kernel=${ARGS[0]}
	[[ -r $kernel ]] || fail_setup "kernel image $kernel does not exist"
	GUEST_ARCH=$(image_arch "$kernel")
	if [[ $GUEST_ARCH == arm64 ]]; then
		command -v qemu-system-aarch64 >/dev/null ||
			fail_setup "qemu-system-aarch64 not found (apt-get install qemu-system-arm)"
	else
		command -v qemu-system-x86_64 >/dev/null ||
			fail_setup "qemu-system-x86_64 not found (apt-get install qemu-system-x86)"
	fi
	mkdir -p "$WF_CACHE/boot"
	choose_accel "$kernel"
	[[ $TIMEOUT =~ ^[0-9]+$ ]] || fail_setup "timeout '$TIMEOUT' is not a number of seconds"
	[[ $CPUS =~ ^[1-9][0-9]?$ ]] || fail_setup "CPUs '$CPUS' is not a number from 1 to 99"
	[[ -n $LOG_PATH ]] || LOG_PATH=$WF_CACHE/boot/console.log
	if [[ -z $INITRD ]]; then
		TMPFILE=$(mktemp)
		"$WF_HOME/qemu-boot/mkinitramfs.sh" -o "$TMPFILE" || exit 2
		INITRD=$TMPFILE
	fi
	[[ -r $INITRD ]] || fail_setup "initramfs $INITRD does not exist"
	LOG=$LOG_PATH
	qemu_command "$kernel"
	info "booting $kernel ($ACCEL -cpu $CPU -smp $CPUS, timeout ${TIMEOUT}s, log $LOG)"
	: >"$LOG"
	start=$(date +%s.%N)
	# shellcheck disable=SC2310 # its status is its answer; it does not rely on set -e
	guarded "$TIMEOUT" "$LOG.qemu" "${QEMU[@]}" || rc=$?
	end=$(date +%s.%N)
	strip_cr "$LOG"
	secs=$(printf '%.1f' "$(echo "$end - $start" | bc)")
	verdict=$(verdict_of "$rc")
	info "$verdict [${secs}s, $ACCEL]"
	[[ $verdict == PASS* ]] || {
		tail -n 15 "$LOG" | sed 's/^/  | /' >&2
		return 1
	}
}

main "$@"
