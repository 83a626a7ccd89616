#!/usr/bin/env bats
# Tests of the QEMU runner and the smoke test: each way a boot can fail
# must be caught.  Uses the boot-config kernel of the real series, built
# in the tests' own cache (use_boot_kernel).

load test_helper

setup_file() {
	use_boot_kernel "the runner tests"
	FIX=$BATS_FILE_TMPDIR/fixtures
	mkdir -p "$FIX"
	for p in hang badtap noplan panic; do
		gcc -static -Os -Wall -Wextra -Werror -o "$FIX/$p" "$REPO_ROOT/tests/fixtures/$p.c"
		"$QEMU_BOOT/mkinitramfs.sh" -n -i "$FIX/$p" -o "$FIX/$p.cpio"
	done
	export FIX
}

@test "runner: the smoke test passes on the boot kernel" {
	run "$QEMU_BOOT/run.sh" -l "$BATS_TEST_TMPDIR/console.log" "$KERNEL"
	[ "$status" -eq 0 ]
	[[ $output == *"PASS: "*" tests"* ]]
	grep -q '^ok .* - /proc/sys/kernel/ostype reads Linux' "$BATS_TEST_TMPDIR/console.log"
	grep -q '^ok .* - /tests/00-smoke_32' "$BATS_TEST_TMPDIR/console.log"
}

@test "runner: a kernel panic fails the boot" {
	run "$QEMU_BOOT/run.sh" -t 60 -a "rdinit=/nothing" -l "$BATS_TEST_TMPDIR/console.log" "$KERNEL"
	[ "$status" -eq 1 ]
	[[ $output == *"FAIL: kernel reported: Kernel panic - not syncing"* ]]
}

@test "runner: a kernel panic after a complete, passing TAP run fails the boot" {
	log=$BATS_TEST_TMPDIR/console.log
	run "$QEMU_BOOT/run.sh" -t 60 -i "$FIX/panic.cpio" -l "$log" "$KERNEL"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ $output == *"FAIL: kernel reported: "*"Kernel panic - not syncing: Attempted to kill init!"* ]]
	# The panic comes after the plan, and the TAP alone passes.
	[ "$(grep -n 'Kernel panic' "$log" | head -n 1 | cut -d: -f1)" -gt "$(grep -nx '1\.\.2' "$log" | cut -d: -f1)" ]
	grep -E '^(TAP version|ok |1\.\.)' "$log" >"$BATS_TEST_TMPDIR/tap.log"
	run "$QEMU_BOOT/run.sh" -c "$BATS_TEST_TMPDIR/tap.log"
	[ "$status" -eq 0 ]
	[ "$output" = "PASS: 2 tests, 0 skipped" ]
}

@test "boot.sh: -B boots the kernel already built in OUT with the smoke test; a boot that fails fails it" {
	local out=$BATS_TEST_TMPDIR/out src=$BATS_TEST_TMPDIR/src
	mkdir -p "$out/arch/x86/boot" "$src"
	cp "$KERNEL" "$out/arch/x86/boot/bzImage"
	run "$TOOLS/boot.sh" -B -s "$src" -o "$out"
	echo "$output"
	[ "$status" -eq 0 ]
	grep -q '^ok .* - /proc/sys/kernel/ostype reads Linux' "$out/console.log"
	run "$TOOLS/boot.sh" -B -s "$src" -o "$out" -t 60 -a "rdinit=/nothing"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ $output == *"FAIL: kernel reported: Kernel panic - not syncing"* ]]
}

@test "runner: a hung guest is killed at the timeout" {
	# The limit leaves the guest time to boot on a loaded machine (its /init
	# runs 2 s after the start on an idle one, under TCG).  The
	# last console line is not checked: a late kernel message can follow
	# the line of /init, and did on a loaded machine.
	start=$SECONDS
	run "$QEMU_BOOT/run.sh" -t 12 -i "$FIX/hang.cpio" -l "$BATS_TEST_TMPDIR/console.log" "$KERNEL"
	[ "$status" -eq 1 ]
	[[ $output == *"FAIL: guest hung: killed after 12s (last line: "* ]]
	grep -q '^ok 1 - about to hang$' "$BATS_TEST_TMPDIR/console.log"
	[ $((SECONDS - start)) -lt 60 ]
	run pgrep -f "$BATS_TEST_TMPDIR/console.log"
	[ "$status" -eq 1 ]
}

# boot_hung_guest [ARG...]: run.sh [ARG...] on the hanging guest in the
# background, in a process group of its own as a shell with job control
# starts a command; returns once the guest's /init has printed its line.
# Sets PID.  SIGINT and SIGQUIT get their default action back first: a
# terminal's foreground job has them, but bats started in the background
# by a non-interactive shell (setsid make test &) inherits them ignored,
# and bash cannot trap a signal ignored on entry.
boot_hung_guest() {
	set -m
	env --default-signal=INT,QUIT "$QEMU_BOOT/run.sh" "$@" -t 300 -i "$FIX/hang.cpio" -l "$BATS_TEST_TMPDIR/console.log" "$KERNEL" \
		>"$BATS_TEST_TMPDIR/run.out" 2>&1 &
	PID=$!
	set +m
	for _ in $(seq 240); do
		grep -q '^ok 1 - about to hang' "$BATS_TEST_TMPDIR/console.log" 2>/dev/null && return 0
		sleep 0.5
	done
	return 1
}

# stopped_within SECONDS: run.sh (PID) has exited within SECONDS, leaving
# no QEMU process; sets status and output.
stopped_within() {
	local i
	for ((i = 0; i < $1 * 10; i++)); do
		kill -0 "$PID" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$PID" 2>/dev/null; then
		echo "# the runner still runs $1 s after the signal" >&2
		return 1
	fi
	status=0
	wait "$PID" || status=$?
	output=$(cat "$BATS_TEST_TMPDIR/run.out")
	mapfile -t lines <<<"$output"
	if pgrep -f "$BATS_TEST_TMPDIR/console.log"; then
		echo "# a QEMU process is left" >&2
		return 1
	fi
}

# teardown: end what a failed interruption test left running: the
# runner's process group and the QEMU of this test's console log.
teardown() {
	if [[ -n ${PID:-} ]]; then
		kill -KILL -- -"$PID" 2>/dev/null || true
		pgrep -f "$BATS_TEST_TMPDIR/console.log" | xargs -r kill -KILL || true
	fi
}

@test "runner: Ctrl-C stops the guest at once and says it was interrupted" {
	boot_hung_guest
	kill -INT -- -"$PID" # the whole process group, as a terminal's Ctrl-C
	stopped_within 5
	echo "$output"
	[ "$status" -eq 130 ]
	[[ ${lines[-1]} == "run: error: interrupted by SIGINT: the guest was stopped (log: $BATS_TEST_TMPDIR/console.log)" ]]
}

@test "runner: SIGTERM to the runner alone stops the guest at once" {
	boot_hung_guest
	kill -TERM "$PID"
	stopped_within 5
	echo "$output"
	[ "$status" -eq 143 ]
	[[ ${lines[-1]} == "run: error: interrupted by SIGTERM: the guest was stopped (log: $BATS_TEST_TMPDIR/console.log)" ]]
	# The log of an interrupted boot is written without carriage returns too.
	grep -q '^ok 1 - about to hang$' "$BATS_TEST_TMPDIR/console.log"
}

@test "runner: a guest that ignores SIGTERM is killed a second after Ctrl-C" {
	# A QEMU slow to stop, as on a loaded machine: a stand-in that
	# writes the console line and ignores TERM.  timeout's own KILL
	# would come 5 s after the TERM.
	mkdir -p "$BATS_TEST_TMPDIR/bin"
	cat >"$BATS_TEST_TMPDIR/bin/qemu-system-x86_64" <<'QEMU'
#!/bin/sh
while [ $# -gt 0 ]; do
	case $1 in -serial) log=${2#file:} ;; esac
	shift
done
echo "ok 1 - about to hang" >"$log"
trap '' TERM
exec sleep 300
QEMU
	chmod +x "$BATS_TEST_TMPDIR/bin/qemu-system-x86_64"
	PATH=$BATS_TEST_TMPDIR/bin:$PATH boot_hung_guest -A tcg
	kill -INT -- -"$PID"
	stopped_within 3
	echo "$output"
	[ "$status" -eq 130 ]
	[[ ${lines[-1]} == "run: error: interrupted by SIGINT: the guest was stopped (log: $BATS_TEST_TMPDIR/console.log)" ]]
}

@test "runner: SIGKILL to its process group leaves no guest running" {
	boot_hung_guest
	kill -KILL -- -"$PID" # a killed make: nothing can be trapped
	stopped_within 5
	[ "$status" -eq 137 ]
}

@test "runner: a failing smoke test fails the boot" {
	run "$QEMU_BOOT/run.sh" -t 60 -i "$FIX/badtap.cpio" -l "$BATS_TEST_TMPDIR/console.log" "$KERNEL"
	[ "$status" -eq 1 ]
	[[ $output == *"FAIL: 1 test(s) failed: not ok 2 - the sysctl value differs"* ]]
}

@test "runner: a smoke test without its TAP plan fails the boot" {
	run "$QEMU_BOOT/run.sh" -t 60 -i "$FIX/noplan.cpio" -l "$BATS_TEST_TMPDIR/console.log" "$KERNEL"
	[ "$status" -eq 1 ]
	[[ $output == *"FAIL: no TAP plan on the console"* ]]
}

@test "runner: a panic, oops, BUG, WARNING and sanitizer reports in the log fail" {
	good=$BATS_TEST_TMPDIR/good.log
	printf 'TAP version 13\r\nok 1 - a\r\nok 2 - b # SKIP x\r\n1..2\r\n' >"$good"
	run "$QEMU_BOOT/run.sh" -c "$good"
	[ "$status" -eq 0 ]
	[ "$output" = "PASS: 2 tests, 1 skipped" ]
	for report in \
		"WARNING: CPU: 0 PID: 1 at kernel/sysctl_binary.c:120 bin_string+0x1/0x2" \
		"BUG: kernel NULL pointer dereference, address: 0000000000000000" \
		"Oops: 0000 [#1] PREEMPT SMP" \
		"BUG: KASAN: slab-out-of-bounds in bin_intvec+0x2a/0x1b0" \
		"UBSAN: shift-out-of-bounds in kernel/sysctl_binary.c:99:3"; do
		{ head -n 2 "$good"; echo "[    1.234] $report"; tail -n 2 "$good"; } >"$BATS_TEST_TMPDIR/bad.log"
		run "$QEMU_BOOT/run.sh" -c "$BATS_TEST_TMPDIR/bad.log"
		[ "$status" -eq 1 ]
		[[ $output == "FAIL: kernel reported: [    1.234] $report" ]]
	done
	# After the plan too: a panic once the TAP run is complete.
	{ cat "$good"; echo "[    1.234] Kernel panic - not syncing: Fatal exception"; } >"$BATS_TEST_TMPDIR/bad.log"
	run "$QEMU_BOOT/run.sh" -c "$BATS_TEST_TMPDIR/bad.log"
	[ "$status" -eq 1 ]
	[ "$output" = "FAIL: kernel reported: [    1.234] Kernel panic - not syncing: Fatal exception" ]
	printf 'ok 1 - a\n1..3\n' >"$BATS_TEST_TMPDIR/short.log"
	run "$QEMU_BOOT/run.sh" -c "$BATS_TEST_TMPDIR/short.log"
	[ "$status" -eq 1 ]
	[ "$output" = "FAIL: TAP plan 1..3 but 1 test line(s)" ]
}

@test "ktap: one reader of the console: the verdict, a row per program, the figures" {
	# /init's results at column 0; each program's own KTAP relayed
	# under "# ", as smoke.c nests it.  A program's own "not ok" is its
	# business: its exit status makes its result at the top.
	log=$BATS_TEST_TMPDIR/console.log
	cat >"$log" <<-'EOF'
		[    0.5] Linux version 6.1.0
		TAP version 13
		ok 1 - /proc/sys/kernel/ostype reads Linux
		# TAP version 13
		# 1..3
		# ok 1 a
		# not ok 2 b
		# ok 3 c # SKIP
		# # Totals: pass:1 fail:1 xfail:0 xpass:0 skip:1 error:0
		ok 2 - /tests/10-sysctl_syscall
		# TAP version 13
		# 1..1
		# # fuzz: seed 1, 2000 calls
		# # calls: 2000
		# # errno ENOENT: 12
		# # progress: 1000 calls, 0 failures, 1.0 s
		# # note: 6 kernel-space addresses
		# ok 1 fuzz: 2000 calls, 0 failures
		# # Totals: pass:1 fail:0 xfail:0 xpass:0 skip:0 error:0
		ok 3 - /tests/20-fuzz
		# # calls: 1999
		# # errno EFAULT: 3
		# not ok 1 fuzz: 1999 calls, 1 failures
		not ok 4 - /tests/21-fuzz_32
		# some output, no KTAP
		ok 5 - /tests/50-other # SKIP not here
		1..5
	EOF
	run awk -v mode=verdict -f "$QEMU_BOOT/ktap.awk" "$log"
	[ "$status" -eq 1 ]
	[ "$output" = "FAIL: 1 test(s) failed: not ok 4 - /tests/21-fuzz_32" ]
	run awk -v mode=rows -f "$QEMU_BOOT/ktap.awk" "$log"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 4 ]
	[ "${lines[0]}" = "$(printf 'sysctl_syscall\tpass\tTotals: pass:1 fail:1 xfail:0 xpass:0 skip:1 error:0')" ]
	[ "${lines[1]}" = "$(printf 'fuzz\tpass\tfuzz: 2000 calls, 0 failures')" ]
	[ "${lines[2]}" = "$(printf 'fuzz_32\tFAIL\tfuzz: 1999 calls, 1 failures')" ]
	[ "${lines[3]}" = "$(printf 'other\tpass\t')" ]
	run awk -v mode=figures -v progs="fuzz fuzz_32" -f "$QEMU_BOOT/ktap.awk" "$log"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 4 ]
	[[ ${lines[0]} =~ ^\ +fuzz\ +fuzz_32\ *$ ]]
	[[ ${lines[1]} =~ ^\ +calls\ +2000\ +1999\ *$ ]]
	[[ ${lines[2]} =~ ^\ +errno\ ENOENT\ +12\ +-\ *$ ]]
	[[ ${lines[3]} =~ ^\ +errno\ EFAULT\ +-\ +3\ *$ ]]
	# The last failure fixed: a pass, its skips counted at the top only.
	sed -i 's/^not ok 4/ok 4/' "$log"
	run awk -v mode=verdict -f "$QEMU_BOOT/ktap.awk" "$log"
	[ "$status" -eq 0 ]
	[ "$output" = "PASS: 5 tests, 1 skipped" ]
	run awk -v mode=nonsense -f "$QEMU_BOOT/ktap.awk" "$log"
	[ "$status" -eq 2 ]
	[[ $output == *"mode must be verdict, rows or figures, not 'nonsense'"* ]]
}

@test "runner: the console patterns are those of bad-console.txt; a broken one is named" {
	wf=$BATS_TEST_TMPDIR/wf
	mkdir -p "$wf/tools/lib" "$wf/qemu-boot"
	cp "$TOOLS/lib.sh" "$wf/tools/"
	cp "$TOOLS/lib/run.sh" "$wf/tools/lib/"
	cp "$QEMU_BOOT/run.sh" "$QEMU_BOOT/ktap.awk" "$QEMU_BOOT/bad-console.txt" "$wf/qemu-boot/"
	printf 'ok 1 - a\n[    1.5] sysctl-fixture: bad thing\n1..1\n' >"$BATS_TEST_TMPDIR/c.log"
	run "$wf/qemu-boot/run.sh" -c "$BATS_TEST_TMPDIR/c.log"
	[ "$status" -eq 0 ]
	printf '# a comment\n\nsysctl-fixture: (bad|worse)\n' >>"$wf/qemu-boot/bad-console.txt"
	run "$wf/qemu-boot/run.sh" -c "$BATS_TEST_TMPDIR/c.log"
	[ "$status" -eq 1 ]
	[ "$output" = "FAIL: kernel reported: [    1.5] sysctl-fixture: bad thing" ]
	n=$(wc -l <"$wf/qemu-boot/bad-console.txt")
	echo 'unbalanced (' >>"$wf/qemu-boot/bad-console.txt"
	run "$wf/qemu-boot/run.sh" -c "$BATS_TEST_TMPDIR/c.log"
	[ "$status" -eq 2 ]
	[ "$output" = "run: error: $wf/qemu-boot/bad-console.txt:$((n + 1)): not an extended regular expression: unbalanced (" ]
}

@test "runner: a missing kernel image is named and is not a test failure" {
	run "$QEMU_BOOT/run.sh" "$BATS_TEST_TMPDIR/no-bzImage"
	[ "$status" -eq 2 ]
	[[ $output == *"kernel image $BATS_TEST_TMPDIR/no-bzImage does not exist"* ]]
}

@test "runner: two CPUs boot (multi-threaded TCG); a bad CPU count is named" {
	run "$QEMU_BOOT/run.sh" -n 2 -l "$BATS_TEST_TMPDIR/console.log" "$KERNEL"
	[ "$status" -eq 0 ]
	[[ $output == *"-smp 2"* ]]
	[[ $output == *"PASS: "* ]]
	run "$QEMU_BOOT/run.sh" -n 0 "$KERNEL"
	[ "$status" -eq 2 ]
	[[ $output == *"CPUs '0' is not a number from 1 to 99"* ]]
}

@test "smoke: a sysctl(2) that returns wrong values is caught" {
	# Built with getpid() in place of sysctl(2): the call "succeeds"
	# without producing the value, and ignores bad arguments.
	gcc -static -Os -Wall -Wextra -Werror -DSYSCTL_NR=39 \
		-o "$BATS_TEST_TMPDIR/smoke-broken" "$QEMU_BOOT/smoke.c"
	run "$BATS_TEST_TMPDIR/smoke-broken"
	[ "$status" -eq 1 ]
	[[ $output == *"not ok 2 - sysctl(2) reads kernel/ostype: "* ]]
	[[ $output == *"not ok "*" - nlen -1: success (want Not a directory)"* ]]
	[[ $output == *"1..21"* ]]
}

@test "smoke: on a kernel without sysctl(2) every probe is skipped, /proc/sys is checked" {
	# Whether this host has sysctl(2) is asked of its kernel, not of the
	# smoke test: a smoke test that took ENOSYS for an answer must fail
	# here, not skip.
	require X86_64 NO_SYSCTL
	gcc -static -Os -Wall -Wextra -Werror -o "$BATS_TEST_TMPDIR/smoke" "$QEMU_BOOT/smoke.c"
	run "$BATS_TEST_TMPDIR/smoke"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"# sysctl(2) is absent (ENOSYS)"* ]]
	[[ $output == *"ok 1 - /proc/sys/kernel/ostype reads Linux"* ]]
	[[ $output == *"ok 2 - sysctl(2) reads kernel/ostype # SKIP sysctl(2) not available (ENOSYS)"* ]]
}
