#!/usr/bin/env bats
# Tests of tools/stress.sh: bad input is named in one line, a failing
# program and a debug report in the kernel log each fail the run, and the
# fuzzer, the concurrency test and the cost benchmark fail on a broken
# sysctl(2).  The guest is the boot-config kernel of the tests' cache (-k),
# standing in for the debug kernel, with small counts; the tests that are
# not about the kselftest leave it out (-P: it waits out the kernel's
# log rate limit, most of a guest's 20 s).

load test_helper

setup_file() {
	use_boot_kernel "the stress tests"
	FIX=$BATS_FILE_TMPDIR/fixtures
	mkdir -p "$FIX"
	for p in failing fakereport; do
		gcc -static -Os -Wall -Wextra -Werror -o "$FIX/$p" "$REPO_ROOT/tests/fixtures/$p.c"
	done
	export FIX
}

setup() {
	# Kept results of this test only: every test boots its guest.
	export WF_STRESS_RESULTS=$BATS_TEST_TMPDIR/results
}

# stress ARGS...: a short stress run on the stand-in kernel.
stress() {
	run "$TOOLS/stress.sh" -k "$KERNEL" -o "$BATS_TEST_TMPDIR/out" -n 2000 -T 1 -t 300 "$@"
}

@test "stress: the programs pass on the series and the table lists each" {
	# All but the kselftest, whose rate-limit pauses are most of a guest's
	# 20 s: stress.sh runs it in series.bats (full counts).
	stress -P fuzz,fuzz_32,threads,threads_32,cost
	[ "$status" -eq 0 ]
	for p in fuzz fuzz_32 threads threads_32 cost; do
		grep -qE "^debug +$p +pass +" "$BATS_TEST_TMPDIR/out/summary.txt"
	done
	grep -qE '^debug +fuzz +pass +fuzz: 2000 calls, 0 failures' "$BATS_TEST_TMPDIR/out/summary.txt"
	grep -qE '^debug +\(kernel reports\) +pass +0 line' "$BATS_TEST_TMPDIR/out/summary.txt"
}

@test "stress: -P runs only the programs it names, and is part of the result's key" {
	stress -P threads,fuzz_32
	[ "$status" -eq 0 ]
	# The table has the smoke test of the initramfs and the two named.
	[ "$(grep -cE '^debug +(kselftest|sysctl_syscall|fuzz |threads_32|cost)' "$BATS_TEST_TMPDIR/out/summary.txt")" -eq 0 ]
	grep -qE '^debug +threads +pass' "$BATS_TEST_TMPDIR/out/summary.txt"
	grep -qE '^debug +fuzz_32 +pass +fuzz: 2000 calls' "$BATS_TEST_TMPDIR/out/summary.txt"
	stress -P threads
	[ "$status" -eq 0 ]
	[[ $output == *"booting the debug kernel"* ]]
	[[ $output != *"fuzz_32"* ]]
	[[ $output != *"fuzzer under"* ]]
	run "$TOOLS/stress.sh" -k "$KERNEL" -o "$BATS_TEST_TMPDIR/out" -P threads,fuzz3
	[ "$status" -eq 2 ]
	[[ $output == "stress: error: -P: unknown guest program 'fuzz3' (of: kselftest kselftest_32 fuzz fuzz_32 threads threads_32 cost)" ]]
}

@test "stress: a failing program fails the run and is named" {
	stress -P fuzz -p "$FIX/failing"
	[ "$status" -eq 1 ]
	grep -qE '^debug +failing +FAIL' "$BATS_TEST_TMPDIR/out/summary.txt"
	[[ $output == *"FAIL: 1 test(s) failed: not ok "*" - /tests/50-failing"* ]]
}

@test "stress: a KASAN report in the kernel log fails the run" {
	stress -P fuzz -p "$FIX/fakereport"
	[ "$status" -eq 1 ]
	grep -qE '^debug +fakereport +pass' "$BATS_TEST_TMPDIR/out/summary.txt"
	grep -qE '^debug +\(kernel reports\) +FAIL +[1-9][0-9]* line' "$BATS_TEST_TMPDIR/out/summary.txt"
	[[ $output == *"FAIL: kernel reported: "*"KASAN: slab-use-after-free"* ]]
}

@test "stress: the fuzzer, the thread test and the benchmark fail on a broken sysctl(2)" {
	# Every call made through a syscall number no kernel has: ENOSYS.
	stress -P fuzz,threads,cost -C -a "GUEST_SYSCTL_NR=1023"
	[ "$status" -eq 1 ]
	for p in fuzz threads cost; do
		grep -qE "^debug +$p +FAIL" "$BATS_TEST_TMPDIR/out/summary.txt"
	done
}

@test "stress: bad input is named in one line and nothing runs" {
	run "$TOOLS/stress.sh" -k "$KERNEL" -o "$BATS_TEST_TMPDIR/out" -n lots
	[ "$status" -eq 2 ]
	[[ $output == *"error: CALLS must be a number, not 'lots'"* ]]
	[ ! -e "$BATS_TEST_TMPDIR/out/summary.txt" ]
	run "$TOOLS/stress.sh" -k "$BATS_TEST_TMPDIR/no-such-bzImage"
	[ "$status" -eq 2 ]
	[[ $output == *"error: kernel image $BATS_TEST_TMPDIR/no-such-bzImage does not exist"* ]]
	run "$TOOLS/stress.sh" -k "$KERNEL" -o "$BATS_TEST_TMPDIR/out" -P fuzz -p /no/such/program
	[ "$status" -eq 2 ]
	[[ $output == *"error: test program /no/such/program does not exist or is not executable"* ]]
	# That run had begun (the programs were being built): it ended
	# cleanly, so the next one finds no interrupted run to clean up.
	run "$TOOLS/stress.sh" -k "$KERNEL" -o "$BATS_TEST_TMPDIR/out" -P fuzz -p /no/such/program
	[ "$status" -eq 2 ]
	[[ $output != *"interrupted run"* ]]
}

@test "stress: a result is kept by tree, kernel, counts and code; -f and a new count run again" {
	stress -P fuzz -C
	[ "$status" -eq 0 ]
	[[ $output == *"booting the debug kernel"* ]]
	cp "$BATS_TEST_TMPDIR/out/summary.txt" "$BATS_TEST_TMPDIR/first.txt"
	rm -rf "$BATS_TEST_TMPDIR/out"
	stress -P fuzz -C
	[ "$status" -eq 0 ]
	[[ $output != *"booting"* ]]
	[[ $output == *"result kept from "* ]]
	cmp "$BATS_TEST_TMPDIR/first.txt" "$BATS_TEST_TMPDIR/out/summary.txt"
	[ -s "$BATS_TEST_TMPDIR/out/debug-console.log" ]
	stress -P fuzz -C -f
	[ "$status" -eq 0 ]
	[[ $output == *"booting the debug kernel"* ]]
	run "$TOOLS/stress.sh" -k "$KERNEL" -o "$BATS_TEST_TMPDIR/out" -n 1000 -T 1 -t 300 -P fuzz -C
	[ "$status" -eq 0 ]
	[[ $output == *"booting the debug kernel"* ]]
	# The code that keeps and writes the result is in the key: a copy of
	# the workflow keeps it, an edit of either library runs again.
	checks_copy
	cp "$REPO_ROOT/branches.txt" "$COPY_TOP/"
	run "$COPY_TOP/tools/stress.sh" -k "$KERNEL" -o "$BATS_TEST_TMPDIR/out" -n 1000 -T 1 -t 300 -P fuzz -C
	[ "$status" -eq 0 ]
	[[ $output == *"result kept from "* ]]
	for lib in lib/stress-cache.sh lib/stress-report.sh; do
		echo '# edited' >>"$COPY_TOP/tools/$lib"
		run "$COPY_TOP/tools/stress.sh" -k "$KERNEL" -o "$BATS_TEST_TMPDIR/out" -n 1000 -T 1 -t 300 -P fuzz -C
		[ "$status" -eq 0 ]
		[[ $output == *"booting the debug kernel"* ]]
	done
}

@test "stress: a failed result is kept as failed" {
	stress -P fuzz -C -a "GUEST_SYSCTL_NR=1023"
	[ "$status" -eq 1 ]
	stress -P fuzz -C -a "GUEST_SYSCTL_NR=1023"
	[ "$status" -eq 1 ]
	[[ $output == *"result kept from "* ]]
	[[ $output == *"FAIL (kept"* ]]
	grep -qE '^debug +fuzz +FAIL' "$BATS_TEST_TMPDIR/out/summary.txt"
}

@test "stress: the cost run boots the boot kernel make validate kept for the tip, and builds one otherwise" {
	# The fixture of dev/faults.sh: the fixture kernel, a stand-in guest.
	eval "$("$REPO_ROOT/tests/faults-fixture.sh" "$BATS_TEST_TMPDIR/fx")"
	"$RUNNER/validate.sh" -c boot >/dev/null
	run "$RUNNER/validate.sh" -k build-boot
	[ "$status" -eq 0 ]
	kept=${output#* }
	[ "${output%% *}" = "$(git -C "$WF_REPO" rev-parse 'HEAD^{tree}')" ]
	run "$TOOLS/stress.sh" -n 100 -T 1
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"stress: the boot config: the kernel make validate built for this tree ($kept/arch/x86/boot/bzImage)"* ]]
	[[ $output != *"building the boot config"* ]]
	[ ! -e "$WF_CACHE/branches/6.1/build/boot" ]
	# A commit make validate has not seen: no kept kernel of its tree.
	printf '/* more */\n' >>"$WF_REPO/kernel/names.c"
	dev_git commit -q -a -s -m "sysctl: One more line"
	run "$RUNNER/validate.sh" -k build-boot
	[ "$status" -eq 1 ]
	run "$TOOLS/stress.sh" -n 100 -T 1
	[ "$status" -eq 0 ]
	[[ $output == *"building the boot config of $WF_REPO (for the cost figures)"* ]]
	[ -e "$WF_CACHE/branches/6.1/build/boot/arch/x86/boot/bzImage" ]
}

@test "stress: the cost run has both entry points, and a ratio 10% above the recorded one is reported" {
	eval "$("$REPO_ROOT/tests/faults-fixture.sh" "$BATS_TEST_TMPDIR/fx")"
	# The fixture guest's cost programs say ratio=0.50.
	rec=$BATS_TEST_TMPDIR/recorded.txt
	printf '# comment\ncost kernel.ostype 0.50\ncost_32 kernel.ostype 0.40\n' >"$rec"
	run "$TOOLS/stress.sh" -n 100 -T 1 -R "$rec"
	[ "$status" -eq 0 ]
	sum=$WF_TOP/out/6.1/stress/summary.txt
	grep -qE '^boot +cost +pass +cost: kernel.ostype ratio=0.50' "$sum"
	grep -qE '^boot +cost_32 +pass +cost: kernel.ostype ratio=0.50' "$sum"
	grep -qE '^cost +kernel.ostype +0.50 +0.50 +\+0%$' "$sum"
	grep -qE '^cost_32 +kernel.ostype +0.50 +0.40 +\+25%  REGRESSION \(more than 10% above the recorded ratio\)$' "$sum"
	# Not a failure: a figure for a person; nothing recorded is said so.
	printf 'cost kernel.ostype 0.46\n' >"$rec"
	run "$TOOLS/stress.sh" -n 100 -T 1 -R "$rec"
	[ "$status" -eq 0 ]
	grep -qE '^cost +kernel.ostype +0.50 +0.46 +\+9%$' "$sum"
	grep -qE '^cost_32 +kernel.ostype +0.50 +- +\(none recorded\)$' "$sum"
	run "$TOOLS/stress.sh" -n 100 -T 1 -R "$BATS_TEST_TMPDIR/nothing.txt"
	[ "$status" -eq 2 ]
	[[ $output == *"the recorded cost figures $BATS_TEST_TMPDIR/nothing.txt do not exist"* ]]
}
