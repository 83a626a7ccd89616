#!/usr/bin/env bats
# Tests of the make targets with no suite of their own (deps, build,
# checkpatch, status, all-branches, the order of the stages, what make passes
# on), and of tests/run.sh, on fixture trees.

load test_helper

setup() {
	setup_fixture
}

@test "deps: a missing package is named with the install command" {
	WF_EXTRA_PACKAGES=no-such-package-sysctl-wf run "$TOOLS/deps.sh" --check
	[ "$status" -eq 3 ]
	[[ $output == *"missing packages: no-such-package-sysctl-wf (run: sudo apt-get update && sudo apt-get install -y no-such-package-sysctl-wf)"* ]]
}

@test "build: an unknown config is named" {
	"$TOOLS/rebuild.sh"
	run "$TOOLS/build.sh" -s "$WF_REPO" no-such-config
	[ "$status" -eq 2 ]
	[[ $output == *"unknown config 'no-such-config'"* ]]
}

@test "build: an unknown config is named before a missing kernel tree" {
	run make -s -C "$REPO_ROOT" build CONFIG=no-such-config
	[ "$status" -ne 0 ]
	[[ ${lines[0]} == "build: error: unknown config 'no-such-config' (see "*"/configs/matrix.txt)" ]]
	run "$TOOLS/build.sh" boot
	[ "$status" -eq 2 ]
	[ "$output" = "build: error: $WF_REPO is not a kernel source tree (run: make rebuild)" ]
}

@test "all-branches: make all on each topic branch in turn, then a table; a failing branch fails the run, not the next" {
	local dir=$BATS_TEST_TMPDIR/wf
	mkdir -p "$dir/tools/lib"
	cp "$TOOLS/all-branches.sh" "$TOOLS/lib.sh" "$dir/tools/"
	cp "$TOOLS/lib/run.sh" "$dir/tools/lib/"
	# The stand-in for make all: it notes its branch, and fails on FAIL's.
	# shellcheck disable=SC2016 # make's own $(BRANCH)
	printf 'all:\n\t@echo "all $(BRANCH)" >>"%s"\n\t@test "$(BRANCH)" != "$(FAIL)"\n' "$dir/log" >"$dir/Makefile"
	printf '%s\n' 'topic 6.1 fixture-topic linux-source-6.1 any patches/6.1' \
		'topic 6.12 fixture-topic-6.12 linux-source-6.12 any patches/6.12' \
		'topic 6.13 fixture-topic-6.13 linux-source-6.13 any patches/6.13' >"$WF_TOP/branches.txt"
	FAIL=6.12 run "$dir/tools/all-branches.sh"
	echo "$output"
	[ "$status" -eq 1 ]
	[ "$(cat "$dir/log")" = "$(printf 'all 6.1\nall 6.12\nall 6.13')" ]
	grep -qE '^6\.1 +\| fixture-topic +\| pass +\| [0-9]+s$' <<<"$output"
	grep -qE '^6\.12 +\| fixture-topic-6\.12 +\| fail \(make all: 2\) +\| [0-9]+s$' <<<"$output"
	grep -qE '^6\.13 +\| fixture-topic-6\.13 +\| pass +\| [0-9]+s$' <<<"$output"
	FAIL=none run "$dir/tools/all-branches.sh"
	[ "$status" -eq 0 ]
	[ "$(grep -c '| pass ' <<<"$output")" -eq 3 ]
}

# fake_stages DIR: the Makefile in DIR with each stage's script replaced
# by one that logs its start and end in DIR/log, a second apart.
fake_stages() {
	local dir=$1 s
	mkdir -p "$dir/tools" "$dir/runner"
	cp "$REPO_ROOT/Makefile" "$dir/"
	for s in tools/deps tools/base tools/rebuild runner/validate tools/stress; do
		printf '#!/bin/sh\necho "start %s" >>"%s"\nsleep 1\necho "end %s" >>"%s"\n' \
			"${s#*/}" "$dir/log" "${s#*/}" "$dir/log" >"$dir/$s.sh"
		chmod +x "$dir/$s.sh"
	done
}

@test "make: under -j2 each stage starts after the stages it needs" {
	fake_stages "$BATS_TEST_TMPDIR/fake"
	run make -s -j2 -C "$BATS_TEST_TMPDIR/fake"
	[ "$status" -eq 0 ]
	[ "$(tr '\n' ' ' <"$BATS_TEST_TMPDIR/fake/log")" = "start deps end deps start base end base start rebuild end rebuild start validate end validate start stress end stress " ]
	rm "$BATS_TEST_TMPDIR/fake/log"
	run make -s -j2 -C "$BATS_TEST_TMPDIR/fake" stress
	[ "$status" -eq 0 ]
	[ "$(tr '\n' ' ' <"$BATS_TEST_TMPDIR/fake/log")" = "start deps end deps start base end base start rebuild end rebuild start stress end stress " ]
}

# status_lines [VAR=VALUE...]: make status of the fixture checkout (bats run).
status_lines() {
	run make -s -C "$REPO_ROOT" status "$@"
}

@test "status: exported or not, the last validate's verdict and age, the next revision, a half-done send, a dead run" {
	local c=$WF_CACHE/branches/6.1 results=$WF_TOP/out/6.1/validate/results.json tip tree
	status_lines
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "branch 6.1 (fixture-topic): not built (make rebuild)" ]
	"$TOOLS/rebuild.sh" 2>/dev/null
	commit_in_repo kernel/new.c 'int new;\n' "sysctl: Add new.c"
	status_lines
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 5 ]
	[ "${lines[0]}" = "branch 6.1 (fixture-topic): 1 commit(s) on base/6.1.99-1, 1 not exported (make export)" ]
	[ "${lines[1]}" = "validate: none yet (make validate)" ]
	[ "${lines[2]}" = "revision: v1 next, none sent" ]
	[ "${lines[3]}" = "send: none half done" ]
	[ "${lines[4]}" = "runs: none interrupted" ]
	"$TOOLS/export.sh" 2>/dev/null
	# A validation of this tip, two hours old, that passed.
	tip=$(git -C "$WF_REPO" rev-parse fixture-topic)
	tree=$(git -C "$WF_REPO" rev-parse 'fixture-topic^{tree}')
	mkdir -p "${results%/*}"
	jq -n --arg c "$tip" --arg t "$tree" '{schema: 3, state: "done", failed: 0, infra: 0, pending: 0,
		commits: [{index: 1, commit: $c, tree: $t, subject: "sysctl: Add new.c", results: {}}]}' >"$results"
	touch -d '2 hours ago' "$results"
	# v1 sent, v2's send half done, a validate killed (its marker, its
	# lock held by no process).
	mkdir -p "$WF_TOP/cover-letters/6.1/sent/v1" "$c/sending/v2"
	printf 'revision: 1\ndate: 2024-05-01T10:00:00Z\n' >"$WF_TOP/cover-letters/6.1/sent/v1/record"
	printf 'revision: 2\nstarted: pid 1, started 2024-05-02 10:00:00\nsending: 0000-cover.eml\nsent: 0000-cover.eml\n' \
		>"$c/sending/v2/sending"
	touch "$c/sending/v2/0000-cover.eml" "$c/sending/v2/0001-sysctl-Add-new.c.eml"
	printf 'pid 999999, started 2024-05-02 11:00:00\nphase=start\n' >"$c/validate.run"
	fs_state "$WF_CACHE" "$WF_TOP" >"$BATS_TEST_TMPDIR/before"
	status_lines
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "branch 6.1 (fixture-topic): 1 commit(s) on base/6.1.99-1, exported to patches/" ]
	[ "${lines[1]}" = "validate: pass, 2h ago, at this tip (out/6.1/validate/report.txt)" ]
	[ "${lines[2]}" = "revision: v2 next, v1 sent 2024-05-01T10:00:00Z" ]
	[ "${lines[3]}" = "send: v2 half done, 1 of 2 message(s) sent (make send finishes it)" ]
	[ "${lines[4]}" = "runs: validate interrupted (pid 999999, started 2024-05-02 11:00:00): its next run cleans up" ]
	# It touched nothing.
	fs_state "$WF_CACHE" "$WF_TOP" | diff "$BATS_TEST_TMPDIR/before" -
	# A validate that runs: its lock is held.
	hold_lock "$c/validate.lock"
	status_lines
	release_lock
	[ "${lines[4]}" = "runs: validate running (pid 999999, started 2024-05-02 11:00:00)" ]
	# patches/ changed since the export (a pull): not the branch.
	sed -i 's/^+int new;$/+int renewed;/' "$WF_TOP"/patches/0001-*.patch
	status_lines
	[ "${lines[0]}" = "branch 6.1 (fixture-topic): 1 commit(s) on base/6.1.99-1, patches/ differs in 1 file(s) (make rebuild takes patches/, make export the branch)" ]
	"$TOOLS/export.sh" 2>/dev/null
	# A new commit, and a change not committed: the verdict is another tip's.
	commit_in_repo kernel/two.c 'int two;\n' "sysctl: Add two.c"
	echo '/* edit */' >>"$WF_REPO/kernel/two.c"
	jq '.failed = 2' "$results" >"$results.new" && mv "$results.new" "$results"
	touch -d '3 days ago' "$results"
	status_lines
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "branch 6.1 (fixture-topic): 2 commit(s) on base/6.1.99-1, 1 not exported (make export); uncommitted changes" ]
	[ "${lines[1]}" = "validate: fail (2 failed), 3d ago, at another tip (out/6.1/validate/report.txt)" ]
	# Bad input.
	status_lines BRANCH=nope
	[ "$status" -ne 0 ]
	[ "${lines[0]}" = "status: error: no branch 'nope' in $WF_TOP/branches.txt (the branches: 6.1)" ]
	run "$TOOLS/status.sh" extra
	[ "$status" -eq 2 ]
}

@test "checkpatch: a commit with a checkpatch error fails on that commit only" {
	"$TOOLS/rebuild.sh"
	add_checkpatch_to_fixture
	git -C "$WF_REPO" add -f .
	git -C "$WF_REPO" -c user.name=A -c user.email=a@example.org commit -q -m "Add checkpatch for the fixture"
	git -C "$WF_REPO" tag -f fixture-base >/dev/null
	commit_in_repo kernel/sysctl.c '/* one */\nint one;\n/* two */\nint two;\n/* three */\nint three = 3;\n' "sysctl: Initialise three"
	commit_in_repo kernel/new.c 'int  bad ;   \n' "sysctl: Add badly formatted code"
	run "$TOOLS/checkpatch.sh" fixture-base..fixture-topic
	[ "$status" -eq 1 ]
	[[ ${lines[0]} == "pass "*" sysctl: Initialise three: checkpatch: 0 errors, 0 warnings, 0 checks" ]]
	[[ ${lines[1]} == "fail "*" sysctl: Add badly formatted code: checkpatch: 1 errors, 2 warnings, 0 checks" ]]
	[[ $output == *"WARNING:SPACING: space prohibited before semicolon"* ]]
	[[ $output == *"ERROR:TRAILING_WHITESPACE: trailing whitespace"* ]]
	[ "${lines[-1]}" = "checkpatch: 2 commit(s): 1 pass, 1 fail" ]
	# make checkpatch RANGE=a..b: the same, on that range only.
	run make -s -C "$REPO_ROOT" checkpatch RANGE=fixture-topic~1..fixture-topic
	[ "$status" -ne 0 ]
	[[ ${lines[0]} == "fail "*" sysctl: Add badly formatted code: "* ]]
	[[ $output == *"checkpatch: 1 commit(s): 0 pass, 1 fail"* ]]
	run "$TOOLS/checkpatch.sh" fixture-base..no-such-branch
	[ "$status" -eq 2 ]
	[ "$output" = "checkpatch: error: bad revision range 'fixture-base..no-such-branch' in $WF_REPO" ]
	# No commit is no verdict, never "0 commit(s): 0 pass, 0 fail".
	run "$TOOLS/checkpatch.sh" fixture-topic..fixture-topic
	[ "$status" -eq 2 ]
	[ "$output" = "checkpatch: error: no commits in the range 'fixture-topic..fixture-topic': nothing to check" ]
}

@test "make validate passes RANGE, CHECKS, V and FAIL_FAST through" {
	run make -s -n -C "$REPO_ROOT" validate RANGE=a..b CHECKS=checkpatch,qemu V=1
	[ "$status" -eq 0 ]
	[[ $output == *"WF_VERBOSE=1 WF_FAIL_FAST= runner/validate.sh -c checkpatch,qemu a..b"* ]]
	run make -s -n -C "$REPO_ROOT" validate FAIL_FAST=1
	[[ $output == *"WF_FAIL_FAST=1 runner/validate.sh"* ]]
}

@test "export, validate, checkpatch: a topic package that is not installed is named in one line, an infrastructure error" {
	unset WF_PKG_VERSION
	sed -i 's/ linux-source-6.1 / linux-source-sysctl-wf-none /' "$WF_TOP/branches.txt"
	run "$TOOLS/export.sh"
	[ "$status" -eq 3 ]
	[ "$output" = "export: infrastructure error: package linux-source-sysctl-wf-none is not installed (run: apt-get install linux-source-sysctl-wf-none)" ]
	mkdir -p "$WF_REPO/.git"
	run "$RUNNER/validate.sh" -o "$BATS_TEST_TMPDIR/out"
	[ "$status" -eq 3 ]
	[ "$output" = "validate: infrastructure error: package linux-source-sysctl-wf-none is not installed (run: apt-get install linux-source-sysctl-wf-none)" ]
	run "$TOOLS/checkpatch.sh"
	[ "$status" -eq 3 ]
	[ "$output" = "checkpatch: infrastructure error: package linux-source-sysctl-wf-none is not installed (run: apt-get install linux-source-sysctl-wf-none)" ]
}

@test "mkinitramfs: without a kernel base, one line says so" {
	run "$QEMU_BOOT/mkinitramfs.sh" -o "$BATS_TEST_TMPDIR/initramfs.cpio"
	[ "$status" -eq 1 ]
	[ "$output" = "mkinitramfs: error: no kernel base in $WF_REPO (run: make base)" ]
	[ ! -e "$BATS_TEST_TMPDIR/initramfs.cpio" ]
}

@test "coverage: the lines of the scripts a suite runs, and those it never runs" {
	# A checkout with a command, the library it sources and a suite that
	# runs one branch of its if (by a relative path, as make does).
	local fix=$BATS_TEST_TMPDIR/checkout
	mkdir -p "$fix/tools/lib" "$fix/dev" "$fix/tests"
	cp "$DEV/coverage.sh" "$fix/dev/"
	cp "$TOOLS/lib.sh" "$fix/tools/"
	cp "$TOOLS/lib/run.sh" "$fix/tools/lib/"
	cp "$REPO_ROOT/tests/run.sh" "$fix/tests/"
	# shellcheck disable=SC2016,SC1003 # the script's own expansions, and a "\" that ends its line
	printf '%s\n' '#!/usr/bin/env bash' 'set -euo pipefail' '. "$(dirname "$0")/lib-two.sh"' \
		'if [[ $1 == big ]]; then' '	echo "big" \' '		"$1"' 'else' '	twice "$1"' 'fi' >"$fix/tools/two.sh"
	# shellcheck disable=SC2016 # the scripts' own expansions
	printf '%s\n' '# shellcheck shell=bash' 'twice() {' '	echo "$1$1"' '}' >"$fix/tools/lib-two.sh"
	chmod +x "$fix/tools/two.sh"
	# shellcheck disable=SC2016 # the suite's own expansions
	printf '%s\n' '@test "two: twice" {' '	[ "$(cd "$BATS_TEST_DIRNAME/.." && tools/two.sh big)" = "big big" ]' '}' >"$fix/tests/two.bats"
	git -C "$fix" init -q
	git -C "$fix" add -A
	run "$fix/dev/coverage.sh" two.bats 3>&-
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"coverage: [1/1] two.bats: 1 passed, 0 failed, 0 skipped"* ]]
	# two.sh: 5 lines of code (the echo continued over two is one), the
	# else branch never run; the library's function, never called.
	grep -qE '^tools/two.sh +5 +4 +1 +80%$' "$fix/out/coverage/summary.txt"
	grep -qE '^tools/lib-two.sh +1 +0 +1 +0%$' "$fix/out/coverage/summary.txt"
	# shellcheck disable=SC2016 # the line of the script, as it is
	[ "$(cat "$fix/out/coverage/scripts/tools/two.sh.txt")" = "$(printf '8: \ttwice "$1"')" ]
	[ ! -e "$fix/out/coverage/traces" ]
}

@test "tests: a suite that writes into WF_CACHE fails the run, one that does not passes" {
	summary=$BATS_TEST_TMPDIR/summary
	# printf: a line starting with @test here would be read as a test of this file.
	# shellcheck disable=SC2016 # expanded by the inner suite
	printf '@%s\n' 'test "forgets its own cache" { mkdir -p "$WF_CACHE/branches"; }' \
		>"$BATS_TEST_TMPDIR/writes.bats"
	# shellcheck disable=SC2016 # expanded by the inner suite
	printf '@%s\n' 'test "uses its own cache" { WF_CACHE=$BATS_TEST_TMPDIR/c; mkdir -p "$WF_CACHE/branches"; }' \
		>"$BATS_TEST_TMPDIR/owns.bats"
	WF_TEST_SUMMARY=$summary run "$REPO_ROOT/tests/run.sh" "$BATS_TEST_TMPDIR/writes.bats" 3>&-
	[ "$status" -eq 1 ]
	[[ $output == *"# a test wrote into WF_CACHE ("*": branches ): tests must use a cache of their own"* ]]
	[ "$(cat "$summary")" = "1 passed, 1 failed, 0 skipped" ]
	WF_TEST_SUMMARY=$summary run "$REPO_ROOT/tests/run.sh" "$BATS_TEST_TMPDIR/owns.bats" 3>&-
	[ "$status" -eq 0 ]
	[ "$(cat "$summary")" = "1 passed, 0 failed, 0 skipped" ]
}

@test "tests: suites run in WF_TEST_JOBS lanes at once (two by default); a failure in any lane fails the run; faults.bats in a lane of its own" {
	local d=$BATS_TEST_TMPDIR/suites summary=$BATS_TEST_TMPDIR/summary
	mkdir -p "$d"
	# Each test notes when it starts and ends, a second apart.
	# shellcheck disable=SC2016 # expanded by the inner suites
	for s in a b faults; do
		printf '@%s\n' "test \"$s\" { echo \"start $s \$(date +%s.%N)\" >>\"$d/log\"; sleep 1; echo \"end $s \$(date +%s.%N)\" >>\"$d/log\"; }" \
			>"$d/$s.bats"
	done
	# shellcheck disable=SC2016 # expanded by the inner suite
	printf '@%s\n' 'test "fails" { false; }' >"$d/c.bats"
	WF_TEST_JOBS=2 WF_TEST_SUMMARY=$summary run "$REPO_ROOT/tests/run.sh" "$d/a.bats" "$d/b.bats" "$d/faults.bats" 3>&-
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(cat "$summary")" = "3 passed, 0 failed, 0 skipped" ]
	# faults in a lane of its own beside the two lanes of a and b: the
	# three at once.
	[ "$(awk '{ print $1 }' "$d/log" | head -n 3 | tr '\n' ' ')" = "start start start " ]
	grep -q '^\[1\] ok 1 ' <<<"$output" && grep -q '^\[2\] ok 1 ' <<<"$output"
	grep -q '^\[f\] ok 1 faults' <<<"$output"
	# With one lane, faults first and alone, then the others one after
	# the other.
	rm "$d/log"
	WF_TEST_JOBS=1 WF_TEST_SUMMARY=$summary run "$REPO_ROOT/tests/run.sh" "$d/a.bats" "$d/b.bats" "$d/faults.bats" 3>&-
	[ "$status" -eq 0 ]
	[ "$(awk '{ print $1, $2 }' "$d/log" | head -n 2 | tr '\n' ' ')" = "start faults end faults " ]
	[ "$(awk '{ print $1 }' "$d/log" | tr '\n' ' ')" = "start end start end start end " ]
	[ "$(grep -c '^\[' <<<"$output" || true)" -eq 0 ]
	# A failure in the second lane fails the run; one lane is one after the other.
	rm "$d/log"
	WF_TEST_JOBS=2 WF_TEST_SUMMARY=$summary run "$REPO_ROOT/tests/run.sh" "$d/a.bats" "$d/c.bats" 3>&-
	[ "$status" -eq 1 ]
	[ "$(cat "$summary")" = "1 passed, 1 failed, 0 skipped" ]
	rm "$d/log"
	WF_TEST_JOBS=1 WF_TEST_SUMMARY=$summary run "$REPO_ROOT/tests/run.sh" "$d/a.bats" "$d/b.bats" 3>&-
	[ "$status" -eq 0 ]
	[ "$(awk '{ print $1 }' "$d/log" | tr '\n' ' ')" = "start end start end " ]
	# By default, two lanes on two CPUs or more, else one (whatever
	# WF_TEST_JOBS the run of this suite was given).
	rm "$d/log"
	unset WF_TEST_JOBS
	WF_TEST_SUMMARY=$summary run "$REPO_ROOT/tests/run.sh" "$d/a.bats" "$d/b.bats" 3>&-
	[ "$status" -eq 0 ]
	if [ "$(nproc)" -ge 2 ]; then
		[ "$(awk '{ print $1 }' "$d/log" | head -n 2 | tr '\n' ' ')" = "start start " ]
	else
		[ "$(awk '{ print $1 }' "$d/log" | tr '\n' ' ')" = "start end start end " ]
	fi
	WF_TEST_JOBS=lots run "$REPO_ROOT/tests/run.sh" "$d/a.bats" 3>&-
	[ "$status" -eq 2 ]
	[ "$output" = "run.sh: error: WF_TEST_JOBS must be a number of lanes, not 'lots'" ]
}

@test "tests: a lane takes the next suite as it ends its last: a long suite holds back no short one queued behind it" {
	local d=$BATS_TEST_TMPDIR/suites summary=$BATS_TEST_TMPDIR/summary
	mkdir -p "$d"
	# One long suite and three short ones, of the same (unknown) weight:
	# queued z-long, s3, s2, s1.  Fixed lanes would give the first lane
	# z-long then s2; from the queue, the second lane runs s3, s2 and s1
	# while the first runs z-long.
	# shellcheck disable=SC2016 # expanded by the inner suites
	for s in z-long:8 s1:1 s2:1 s3:1; do
		printf '@%s\n' "test \"${s%:*}\" { echo \"start ${s%:*}\" >>\"$d/log\"; sleep ${s#*:}; echo \"end ${s%:*}\" >>\"$d/log\"; }" \
			>"$d/${s%:*}.bats"
	done
	WF_TEST_JOBS=2 WF_TEST_SUMMARY=$summary run "$REPO_ROOT/tests/run.sh" "$d/s1.bats" "$d/s2.bats" "$d/s3.bats" "$d/z-long.bats" 3>&-
	echo "$output"
	cat "$d/log"
	[ "$status" -eq 0 ]
	[ "$(cat "$summary")" = "4 passed, 0 failed, 0 skipped" ]
	[ "$(tail -n 1 "$d/log")" = "end z-long" ]
	[ "$(grep -c '^end s' "$d/log")" -eq 3 ]
}

# commands: the executable scripts a user or make runs (not the libraries).
commands() {
	local f
	for f in "$1"/tools/*.sh "$1"/dev/*.sh "$1"/runner/*.sh "$1"/tests/run.sh "$1"/wf; do
		[[ -x $f && ${f##*/} != lib*.sh ]] && printf '%s\n' "$f"
	done
}

# state DIR...: each file and directory under DIR, with its size, mtime
# and mode.
state() {
	find "$@" -printf '%p %s %T@ %m\n' 2>/dev/null | LC_ALL=C sort
}

@test "--help: every command prints its header and exits 0, refuses an unknown option with 2, and touches nothing" {
	local copy=$BATS_TEST_TMPDIR/copy cmd header n=0
	# A copy of the checkout, where a command that ran would write
	# (patches/, out/), the fixture's tarball to import, and stand-ins that
	# note a call of apt-get or bats.
	mkdir -p "$copy" "$BATS_TEST_TMPDIR/bin"
	tar -C "$REPO_ROOT" --exclude=./out --exclude=./.git -cf - . | tar -C "$copy" -xf -
	for t in apt-get apt-cache bats sudo; do
		printf '#!/bin/sh\necho "%s $*" >>"%s"\n' "$t" "$BATS_TEST_TMPDIR/calls" >"$BATS_TEST_TMPDIR/bin/$t"
		chmod +x "$BATS_TEST_TMPDIR/bin/$t"
	done
	unset WF_TOP WF_REPO
	mkdir -p "$WF_CACHE"
	state "$copy" "$WF_CACHE" >"$BATS_TEST_TMPDIR/before"
	while read -r cmd; do
		n=$((n + 1))
		header=$(sed -n '2,${/^#/!q;/^# shellcheck /d;s/^# \{0,1\}//;p}' "$cmd")
		for opt in --help -h; do
			PATH=$BATS_TEST_TMPDIR/bin:$PATH run "$cmd" "$opt"
			echo "$cmd $opt: $status"
			[ "$status" -eq 0 ]
			[ "$output" = "$header" ]
		done
		PATH=$BATS_TEST_TMPDIR/bin:$PATH run "$cmd" --no-such-option
		echo "$cmd --no-such-option: $status: $output"
		[ "$status" -eq 2 ]
		state "$copy" "$WF_CACHE" | diff "$BATS_TEST_TMPDIR/before" -
	done < <(commands "$copy")
	[ "$n" -ge 20 ]
	[ ! -e "$BATS_TEST_TMPDIR/calls" ]
}

@test "-n: make gives each script a count or a skipped step as a long option, -n only as a dry run; the scripts take it" {
	run make -s -n -C "$REPO_ROOT" stress CALLS=5 SEED=2
	[[ $output == *"tools/stress.sh --calls 5 -S 2 "* ]]
	run make -s -n -C "$REPO_ROOT" cost-stages SAMPLES=100
	[[ $output == *"tools/cost-stages.sh --samples 100 "* ]]
	run make -s -n -C "$REPO_ROOT" mutants RANDOM=3
	[[ $output == *"dev/mutants-random.sh --count 3 "* ]]
	run make -s -n -C "$REPO_ROOT" send rehearse DRY_RUN=1
	[ "$(grep -c -- '--dry-run' <<<"$output")" -eq 2 ]
	run make -s -n -C "$REPO_ROOT" stress cost-stages send rehearse mutants CALLS=5 SAMPLES=100 RANDOM=3 DRY_RUN=1
	[[ $output != *".sh -n "* && $output != *" -n) "* ]]
	# Each long option, --NAME VALUE or --NAME=VALUE, reaches the script
	# as its -n did (a bad value is named as it was).
	run "$TOOLS/stress.sh" --calls lots
	[ "$status" -eq 2 ]
	[[ $output == *"error: CALLS must be a number, not 'lots'"* ]]
	run "$TOOLS/stress.sh" --calls=lots
	[[ $output == *"error: CALLS must be a number, not 'lots'"* ]]
	run "$TOOLS/cost-stages.sh" --samples 5
	[[ $output == *"error: SAMPLES must be a number from 11 to 4096 (the kernel keeps 4096), not '5'"* ]]
	run "$DEV/mutants-random.sh" --count x
	[[ $output == *"error: RANDOM is not a number of mutants: x"* ]]
	run "$DEV/faults.sh" --no-warm-up -k x
	[[ $output == *"error: KILLS 'x' is not a number"* ]]
	run "$TOOLS/preflight.sh" --no-messages "$BATS_TEST_TMPDIR/nothing"
	[[ $output == *"error: $BATS_TEST_TMPDIR/nothing is not a revision written by tools/submit.sh"* ]]
	run "$TOOLS/other-base.sh" --no-build "$BATS_TEST_TMPDIR/nothing.tar.xz"
	[[ $output == *"error: no patches in patches/: nothing to apply"* ]]
	run "$TOOLS/send.sh" --dry-run -r x
	[[ $output == *"error: revision 'x' is not a positive number"* ]]
}
