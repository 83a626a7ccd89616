#!/usr/bin/env bash
# Boot a kernel in QEMU with the smoke test as /init and judge the result.
#
#   qemu-boot/run.sh [-i INITRAMFS] [-a APPEND] [-t SECONDS] [-l LOG]
#                    [-A auto|kvm|tcg] BZIMAGE
#   qemu-boot/run.sh -c LOG          judge an existing console log only
#
# Without -i, the initramfs is built by mkinitramfs.sh.  KVM is used only
# when a probe (a boot sector that exits through isa-debug-exit) shows it
# works; otherwise TCG.  The guest is killed after SECONDS.  It fails on a
# timeout, a panic, an oops, "BUG:", "WARNING:", a sanitizer report, a
# missing TAP plan, a "not ok" line or fewer test lines than the plan.
# Exit status: 0 pass, 1 fail, 2 could not run.
set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/../tools/lib.sh"

BAD_PATTERNS='Kernel panic|Oops|BUG:|WARNING:|general protection fault|UBSAN:|KASAN:|possible circular locking|possible recursive locking|sleeping function called|Call Trace:'

usage() {
	sed -n '4,7p' "$0" >&2
	exit 2
}

fail_setup() {
	printf '%s: error: %s\n' "$WF_PROG" "$*" >&2
	exit 2
}

# kvm_cpu KERNEL: print the first CPU model with which KVM really runs a
# guest here; fail if none does.  /dev/kvm can exist and still fail: on
# some hosts "-cpu host" aborts setting MSRs, and on others a boot sector
# runs but a kernel hangs.  So the probe boots KERNEL with no root and
# panic=-1: under working KVM it panics and resets within seconds.  The
# answer is cached per host boot and QEMU version.
kvm_cpu() {
	local kernel=$1 cpu rc key cache=$WF_CACHE/boot/kvm-probe
	[[ -r /dev/kvm && -w /dev/kvm ]] || return 1
	key="$(cat /proc/sys/kernel/random/boot_id) $(qemu-system-x86_64 --version | head -n 1)"
	if [[ -r $cache && $(head -n 1 "$cache") == "$key" ]]; then
		cpu=$(sed -n 2p "$cache")
		[[ $cpu != none ]] && printf '%s\n' "$cpu"
		[[ $cpu != none ]]
		return
	fi
	info "probing KVM (cached in $cache)"
	for cpu in host qemu64 none; do
		[[ $cpu == none ]] && break
		rc=0
		timeout -k 2 20 qemu-system-x86_64 -accel kvm -cpu "$cpu" -M pc \
			-m 256M -nodefaults -display none -no-reboot \
			-serial "file:$cache.log" -kernel "$kernel" \
			-append "console=ttyS0 panic=-1 rdinit=/kvm-probe root=/dev/null" \
			</dev/null >/dev/null 2>&1 || rc=$?
		[[ $rc -eq 0 ]] && grep -q 'Kernel panic' "$cache.log" && break
	done
	printf '%s\n%s\n' "$key" "$cpu" >"$cache"
	[[ $cpu != none ]] && printf '%s\n' "$cpu"
	[[ $cpu != none ]]
}

# last_line LOG: the last non-empty console line, shortened.
last_line() {
	tr -d '\r' <"$1" | grep -v '^$' | tail -n 1 | cut -c1-120 || true
}

# judge_log LOG: prints a one-line verdict; returns 0 when the boot passed.
judge_log() {
	local log=$1 plan bad nok ntests
	bad=$(tr -d '\r' <"$log" | grep -m1 -E "$BAD_PATTERNS" || true)
	if [[ -n $bad ]]; then
		echo "FAIL: kernel reported: $bad"
		return 1
	fi
	nok=$(tr -d '\r' <"$log" | grep -cE '^not ok ' || true)
	if [[ $nok -gt 0 ]]; then
		echo "FAIL: $nok test(s) failed: $(tr -d '\r' <"$log" | grep -m1 -E '^not ok ')"
		return 1
	fi
	plan=$(tr -d '\r' <"$log" | sed -nE 's/^1\.\.([0-9]+)$/\1/p' | tail -n 1)
	if [[ -z $plan ]]; then
		echo "FAIL: no TAP plan on the console (the smoke test did not finish)"
		return 1
	fi
	ntests=$(tr -d '\r' <"$log" | grep -cE '^ok ' || true)
	if [[ $ntests -ne $plan || $plan -eq 0 ]]; then
		echo "FAIL: TAP plan 1..$plan but $ntests test line(s)"
		return 1
	fi
	echo "PASS: $plan tests, $(tr -d '\r' <"$log" | grep -cE '^ok .*# SKIP' || true) skipped"
}

main() {
	local initrd='' append='' timeout='' log='' accel=auto check='' kernel
	local verdict start end rc=0 cpu=max
	while getopts 'i:a:t:l:A:c:' opt; do
		case $opt in
		i) initrd=$OPTARG ;;
		a) append=$OPTARG ;;
		t) timeout=$OPTARG ;;
		l) log=$OPTARG ;;
		A) accel=$OPTARG ;;
		c) check=$OPTARG ;;
		*) usage ;;
		esac
	done
	shift $((OPTIND - 1))
	if [[ -n $check ]]; then
		[[ -r $check ]] || fail_setup "console log $check does not exist"
		judge_log "$check"
		return
	fi
	[[ $# -eq 1 ]] || usage
	kernel=$1
	[[ -r $kernel ]] || fail_setup "kernel image $kernel does not exist"
	command -v qemu-system-x86_64 >/dev/null ||
		fail_setup "qemu-system-x86_64 not found (apt-get install qemu-system-x86)"
	mkdir -p "$WF_CACHE/boot"
	case $accel in
	auto) if cpu=$(kvm_cpu "$kernel"); then accel=kvm; else accel=tcg cpu=max; fi ;;
	kvm) cpu=$(kvm_cpu "$kernel") || fail_setup "KVM does not work here (probe failed)" ;;
	tcg) ;;
	*) fail_setup "accelerator must be auto, kvm or tcg, not '$accel'" ;;
	esac
	[[ -n $timeout ]] || { [[ $accel == kvm ]] && timeout=60 || timeout=180; }
	[[ $timeout =~ ^[0-9]+$ ]] || fail_setup "timeout '$timeout' is not a number of seconds"
	[[ -n $log ]] || log=$WF_CACHE/boot/console.log
	if [[ -z $initrd ]]; then
		TMP_INITRD=$(mktemp)
		trap 'rm -f "$TMP_INITRD"' EXIT
		"$WF_HOME/qemu-boot/mkinitramfs.sh" -o "$TMP_INITRD" || exit 2
		initrd=$TMP_INITRD
	fi
	[[ -r $initrd ]] || fail_setup "initramfs $initrd does not exist"
	local -a qemu=(qemu-system-x86_64 -M pc -m 512M -smp 1 -nodefaults
		-display none -no-reboot -monitor none -serial "file:$log"
		-kernel "$kernel" -initrd "$initrd"
		-append "console=ttyS0 panic=-1 loglevel=5 $append")
	if [[ $accel == kvm ]]; then
		qemu+=(-accel kvm -cpu "$cpu")
	else
		qemu+=(-accel tcg -cpu max)
	fi
	info "booting $kernel ($accel -cpu $cpu, timeout ${timeout}s, log $log)"
	: >"$log"
	start=$(date +%s.%N)
	timeout -k 5 "$timeout" "${qemu[@]}" </dev/null >"$log.qemu" 2>&1 || rc=$?
	end=$(date +%s.%N)
	local secs
	secs=$(printf '%.1f' "$(echo "$end - $start" | bc)")
	if [[ $rc -eq 124 || $rc -eq 137 ]]; then
		verdict="FAIL: guest hung: killed after ${timeout}s (last line: $(last_line "$log"))"
	elif [[ $rc -ne 0 ]]; then
		verdict="FAIL: qemu exited with status $rc: $(head -n 1 "$log.qemu")"
	else
		verdict=$(judge_log "$log") || true
	fi
	info "$verdict [${secs}s, $accel]"
	[[ $verdict == PASS* ]] || {
		tr -d '\r' <"$log" | tail -n 15 | sed 's/^/  | /' >&2
		return 1
	}
}

main "$@"
