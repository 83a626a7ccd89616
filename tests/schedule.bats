#!/usr/bin/env bats
# Tests of the order in which runner/validate.sh gives its verdicts, on
# the fixture kernel of validate.bats: the cheap checks on every commit
# first, then the boot config's build and boot per commit, then the rest;
# the reports written while the run goes on; FAIL_FAST.

load test_helper
bats_require_minimum_version 1.5.0

setup() {
	setup_validate_fixture
	OUT=$BATS_TEST_TMPDIR/out
	validate_commit_edit kernel/names.c 's/return 2;/return 3;/' "sysctl: Translate one more name"
	validate_commit_edit kernel/names.c 's/return 12;/return 13;/' "sysctl: Probe one more name"
}

# started: "COMMIT RESULT" for each step that validate started, in order
# (from its timings.tsv).
started() {
	awk -F'\t' 'NR > 1 && $3 != "end" { print $2, $3 }' "$OUT/timings.tsv"
}

# first_line PATTERN / last_line PATTERN: the line number in started of
# the first / last step matching the extended regular expression.
first_line() {
	started | grep -nE "$1" | head -n 1 | cut -d: -f1
}
last_line() {
	started | grep -nE "$1" | tail -n 1 | cut -d: -f1
}

@test "schedule: the cheap checks on every commit first, then the boot build and boot per commit, then the rest" {
	validate
	echo "$output"
	[ "$status" -eq 0 ]
	started
	# Stage 1, checkpatch, recipients, codespell, kernel-doc and kconfig, on both
	# commits before any build.
	[ "$(started | head -n 10 | tr '\n' ' ')" = "1 checkpatch 1 recipients 1 codespell 1 kernel-doc 1 kconfig 2 checkpatch 2 recipients 2 codespell 2 kernel-doc 2 kconfig " ]
	# Stage 2: the boot config at the base, then build and boot per
	# commit, before any other config, sparse, W=1 or clang.
	[ "$(started | sed -n '11,17p' | tr '\n' ' ')" = "0 boot 1 boot 1 qemu 1 abi 2 boot 2 qemu 2 abi " ]
	[ "$(first_line ' (sparse|off|nonet|i386|noproc|w1|clang|guest-.*)$')" -eq 18 ]
	# The run says which result runs in which stage.
	[[ $output == *"validate: in stages: 1: checkpatch recipients codespell kernel-doc kconfig; 2: boot qemu abi; 3: "*"sparse"*"guest-noproc"* ]]
	# Each result is said as it is known.
	[[ $output == *"[    1/2] "*" checkpatch pass: checkpatch: 0 errors, 0 warnings, 0 checks"* ]]
	[[ $output == *"[    2/2] "*" qemu       pass: "* ]]
	# The final reports are done: nothing pending.
	[ "$(jq -r .state "$OUT/results.json")" = "done" ]
	[ "$(jq .pending "$OUT/results.json")" -eq 0 ]
	[ "$(grep -c 'in progress' "$OUT/report.txt" || true)" -eq 0 ]
	# Cached, the same order and no step run.
	validate
	[ "$status" -eq 0 ]
	[ -z "$(started)" ]
}

@test "schedule: the reports are written while the run goes on, the results to come pending" {
	# A check of stage 3 (it needs the off config's build) that keeps a
	# copy of the reports as they stand when it runs on commit 1.
	cp -r "$CHECKS" "$BATS_TEST_TMPDIR/checks"
	mkdir "$BATS_TEST_TMPDIR/checks/spy"
	cat >"$BATS_TEST_TMPDIR/checks/spy/run" <<CHECK
#!/bin/sh
if [ "\$(git -C "\$WF_CHECK_SRC" rev-parse HEAD)" = "$(git -C "$WF_REPO" rev-parse fixture-topic~1)" ]; then
	cp "$OUT/results.json" "$BATS_TEST_TMPDIR/seen.json"
	cp "$OUT/report.txt" "$BATS_TEST_TMPDIR/seen.txt"
	cp "$OUT/report.html" "$BATS_TEST_TMPDIR/seen.html"
fi
echo "spied"
CHECK
	chmod +x "$BATS_TEST_TMPDIR/checks/spy/run"
	printf 'order 90\nconfigs off\nneeds build\n' >"$BATS_TEST_TMPDIR/checks/spy/conf"
	WF_CHECKS_DIR=$BATS_TEST_TMPDIR/checks WF_REPORT_INTERVAL=1 validate -c checkpatch,codespell,boot,qemu,spy
	echo "$output"
	[ "$status" -eq 0 ]
	# What a reader saw then: a run in progress, stages 1 and 2 known on
	# both commits, the spy itself pending.
	[ "$(jq -r .state "$BATS_TEST_TMPDIR/seen.json")" = running ]
	for row in 1 2; do
		for check in checkpatch codespell boot qemu; do
			[ "$(jq -r ".commits[$((row - 1))].results.$check.status" "$BATS_TEST_TMPDIR/seen.json")" = pass ]
		done
	done
	[ "$(jq -r '.commits[0].results["spy-off"].status' "$BATS_TEST_TMPDIR/seen.json")" = pending ]
	[ "$(jq -r '.commits[1].results["spy-off"].reason' "$BATS_TEST_TMPDIR/seen.json")" = "not run yet" ]
	[ "$(jq .pending "$BATS_TEST_TMPDIR/seen.json")" -ge 2 ]
	grep -qE '^in progress: [0-9]+ of [0-9]+ results known' "$BATS_TEST_TMPDIR/seen.txt"
	grep -qE '^1 +[0-9a-f]{12} .* pass +pass ' "$BATS_TEST_TMPDIR/seen.txt"
	grep -q '<strong>in progress: ' "$BATS_TEST_TMPDIR/seen.html"
	grep -q '<td class="pending" title="not run yet">...</td>' "$BATS_TEST_TMPDIR/seen.html"
	# At the end: done, the spy known.
	[ "$(jq -r .state "$OUT/results.json")" = "done" ]
	[ "$(cell 1 spy-off)" = pass ]
	[ "$(grep -c 'class="pending"' "$OUT/report.html" || true)" -eq 0 ]
}

@test "schedule: FAIL_FAST=1 stops at the first failing result, names it, and builds nothing after it" {
	validate_commit_edit kernel/names.c 's/^\treturn 13;$/\treturn  13 ;   /' "sysctl: Add badly formatted code"
	WF_FAIL_FAST=1 validate
	echo "$output"
	[ "$status" -eq 1 ]
	[[ ${lines[-1]} == "validate: FAIL_FAST: stopped at the first failing result: 3/3 "*" sysctl: Add badly formatted code [checkpatch]: fail: checkpatch: 1 errors, "*" warnings, 0 checks" ]]
	# No build started: the failure came from the first stage.
	[ "$(started | grep -cvE ' (checkpatch|recipients|codespell|kernel-doc|kconfig)$' || true)" -eq 0 ]
	[ "$(jq -r .state "$OUT/results.json")" = stopped ]
	[ "$(cell 3 checkpatch)" = fail ]
	[ "$(cell 1 checkpatch)" = pass ]
	[ "$(cell 1 boot)" = pending ]
	[ "$(reason 1 boot)" = "not run: FAIL_FAST stopped the run at the first failure" ]
	grep -q '^stopped by FAIL_FAST at the first failing result' "$OUT/report.txt"
	grep -qE '^1 +[0-9a-f]{12} .* pass +pass +pass +\.\.\. ' "$OUT/report.txt"
	# Without it, the run goes to its end; what ran before is from the
	# cache.  (The checks of stage 1 and of stage 2: the whole matrix is
	# the first test's.)
	validate -c checkpatch,codespell,kernel-doc,kconfig,boot,qemu
	[ "$status" -eq 1 ]
	[ "$(jq -r .state "$OUT/results.json")" = "done" ]
	[ "$(cell 1 boot)" = pass ]
	[ "$(jq '.commits[0].results.checkpatch.cached' "$OUT/results.json")" = true ]
}

@test "schedule: FAIL_FAST=1 stops at an infrastructure error as at a failure" {
	# A check of the first stage, before checkpatch, whose tool is broken.
	cp -r "$CHECKS" "$BATS_TEST_TMPDIR/checks"
	mkdir "$BATS_TEST_TMPDIR/checks/broken"
	printf '#!/bin/sh\necho "broken: its tool is missing"\nexit 2\n' >"$BATS_TEST_TMPDIR/checks/broken/run"
	chmod +x "$BATS_TEST_TMPDIR/checks/broken/run"
	printf 'order 5\n' >"$BATS_TEST_TMPDIR/checks/broken/conf"
	WF_CHECKS_DIR=$BATS_TEST_TMPDIR/checks WF_FAIL_FAST=1 validate -c broken,checkpatch
	echo "$output"
	[ "$status" -eq 3 ]
	[[ ${lines[-1]} == "validate: FAIL_FAST: stopped at the first failing result: 1/2 "*" sysctl: Translate one more name [broken]: infra: broken: its tool is missing" ]]
	[ "$(jq -r .state "$OUT/results.json")" = stopped ]
	[ "$(cell 1 broken)" = infra ]
	[ "$(cell 1 checkpatch)" = pending ]
	[ "$(cell 2 broken)" = pending ]
	[ -z "$(started | grep -v ' broken$' || true)" ]
}

@test "schedule: EVERY_COMMIT runs the checks it names, of the tip only, at every commit; any other name is refused" {
	checks_copy
	mkdir "$CHECKS_COPY/tiponly"
	# shellcheck disable=SC2016 # expanded by the check
	printf '#!/bin/sh\necho "at $WF_CHECK_COMMIT"\n' >"$CHECKS_COPY/tiponly/run"
	chmod +x "$CHECKS_COPY/tiponly/run"
	printf 'order 95\ntip\n' >"$CHECKS_COPY/tiponly/conf"
	WF_CHECKS_DIR=$CHECKS_COPY validate -c tiponly
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(reason 1 tiponly)" = "not run: at the tip only" ]
	[ "$(reason 2 tiponly)" = "at $(git -C "$WF_REPO" rev-parse HEAD)" ]
	WF_EVERY_COMMIT=clang,tiponly WF_CHECKS_DIR=$CHECKS_COPY validate -c tiponly
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(reason 1 tiponly)" = "at $(git -C "$WF_REPO" rev-parse HEAD^)" ]
	[ "$(reason 2 tiponly)" = "at $(git -C "$WF_REPO" rev-parse HEAD)" ]
	run ! grep -q 'at the tip only' "$OUT/report.txt"
	# make validate passes EVERY_COMMIT to the runner as WF_EVERY_COMMIT.
	run make -n -s -C "$REPO_ROOT" -o rebuild validate EVERY_COMMIT=cross,tiponly
	[[ $output == *"WF_EVERY_COMMIT=cross,tiponly WF_VERBOSE="* ]]
	for bad in boot nosuch; do
		WF_EVERY_COMMIT=$bad WF_CHECKS_DIR=$CHECKS_COPY validate -c tiponly
		[ "$status" -eq 2 ]
		[[ $output == *"validate: error: EVERY_COMMIT: '$bad' is not a check run at the tip only"* ]]
	done
}
