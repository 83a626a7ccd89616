#!/usr/bin/env bats
# The exit status through the front door: ./wf TARGET runs make TARGET and
# exits as the command behind it (0 pass, 1 a check failed, 2 bad input,
# 3 an infrastructure error), where make alone says 2 for any failure.
# One test per verb, on fixture trees; make's -o skips the stages a
# target runs first (deps, rebuild) where the fixture is already there.

load test_helper

# wf ARGS...: ./wf of the checkout (bats run); RAW is its output, output
# and lines the tools' lines without make's own "make: *** [...] Error N"
# (make[N]: when a make runs the tests).
wf() {
	run "$REPO_ROOT/wf" "$@"
	echo "./wf $*: exit $status"
	echo "$output"
	RAW=$output
	output=$(grep -Ev '^make(\[[0-9]+\])?: \*\*\* \[' <<<"$output" || true)
	mapfile -t lines <<<"$output"
}

teardown() {
	if [[ -n ${TMPFS:-} ]] && mountpoint -q "$TMPFS"; then
		umount "$TMPFS" 2>/dev/null || true
	fi
}

@test "./wf: make's 2 becomes the command's status; make's own failure is bad input; --help" {
	setup_fixture
	"$TOOLS/rebuild.sh" 2>/dev/null
	commit_in_repo kernel/new.c 'int new;\n' "sysctl: Add new.c"
	# make alone: every failure is 2.
	run make -s -C "$REPO_ROOT" export BRANCH=nope
	[ "$status" -eq 2 ]
	wf export BRANCH=nope
	[ "$status" -eq 2 ]
	[ "$output" = "export: error: no branch 'nope' in $WF_TOP/branches.txt (the branches: 6.1)" ]
	# Under a make (CI's "make test"), make says make[1]: the same lines.
	MAKELEVEL=1 wf export BRANCH=nope
	[ "$status" -eq 2 ]
	[[ $RAW == *"make[1]: *** ["* ]]
	[ "$output" = "export: error: no branch 'nope' in $WF_TOP/branches.txt (the branches: 6.1)" ]
	wf export
	[ "$status" -eq 0 ]
	[ -e "$WF_TOP/patches/0001-sysctl-Add-new.c.patch" ]
	unset WF_PKG_VERSION
	sed -i 's/ linux-source-6.1 / linux-source-sysctl-wf-none /' "$WF_TOP/branches.txt"
	wf export
	[ "$status" -eq 3 ]
	[ "$output" = "export: infrastructure error: package linux-source-sysctl-wf-none is not installed (run: apt-get install linux-source-sysctl-wf-none)" ]
	wf no-such-target
	[ "$status" -eq 2 ]
	[[ $RAW == *"No rule to make target 'no-such-target'"* ]]
	wf --help
	[ "$status" -eq 0 ]
	[[ ${lines[0]} == "make, with the exit status of the command it ran"* ]]
}

@test "./wf validate: 0 pass, 1 a check failed, 2 bad input, 1 its lock, 3 a full disk" {
	setup_validate_fixture
	validate_commit_edit kernel/names.c 's/return 2;/return 3;/' "sysctl: Translate one more name"
	wf validate -o rebuild CHECKS=checkpatch RANGE="$VALIDATE_RANGE"
	[ "$status" -eq 0 ]
	validate_commit_edit kernel/names.c 's/return 3;/return 3 ;   /' "sysctl: Space out a name"
	wf validate -o rebuild CHECKS=checkpatch RANGE="$VALIDATE_RANGE"
	[ "$status" -eq 1 ]
	wf validate -o rebuild CHECKS=checkpatch RANGE=fixture-base..no-such-branch
	[ "$status" -eq 2 ]
	[ "$output" = "validate: error: bad revision range 'fixture-base..no-such-branch' in $WF_REPO" ]
	wf validate -o rebuild CHECKS=no-such-check RANGE="$VALIDATE_RANGE"
	[ "$status" -eq 2 ]
	wf validate -o rebuild BRANCH=nope
	[ "$status" -eq 2 ]
	# Another run holds the lock: refused as every command's lock refuses.
	hold_lock "$WF_CACHE/branches/6.1/validate.lock"
	wf validate -o rebuild CHECKS=checkpatch RANGE="$VALIDATE_RANGE"
	release_lock
	[ "$status" -eq 1 ]
	[ "$output" = "validate: error: another validate is running on $WF_CACHE/branches/6.1 (lock: $WF_CACHE/branches/6.1/validate.lock)" ]
	# A full disk where the reports go.
	require TMPFS
	TMPFS=$WF_TOP/out/6.1/validate
	rm -rf "$TMPFS"
	mkdir -p "$TMPFS"
	mount -t tmpfs -o size=64k tmpfs "$TMPFS"
	dd if=/dev/zero of="$TMPFS/filler" bs=4k 2>/dev/null || true
	validate_commit_edit kernel/names.c 's/return 12;/return 13;/' "sysctl: Probe one more name"
	wf validate -o rebuild CHECKS=checkpatch RANGE="$VALIDATE_RANGE"
	[ "$status" -eq 3 ]
	[[ ${lines[-1]} == "validate: infrastructure error: "*"no space left on device in $TMPFS" ]]
}

@test "./wf validate AS_IS=1: the branch as it stands, a commit not exported too, said in the report" {
	setup_validate_fixture
	"$TOOLS/export.sh" 2>/dev/null
	validate_commit_edit kernel/names.c 's/return 2;/return 3;/' "sysctl: Translate one more name"
	tip=$(git -C "$WF_REPO" rev-parse fixture-topic)
	# make validate rebuilds from patches/ first, which refuses the commit.
	wf validate -o deps CHECKS=checkpatch RANGE="$VALIDATE_RANGE"
	[ "$status" -eq 1 ]
	[[ $output == *"has changes not exported"* ]]
	wf validate -o deps AS_IS=1 CHECKS=checkpatch RANGE="$VALIDATE_RANGE"
	[ "$status" -eq 0 ]
	[[ $output == *"validated: the branch as it stands (fixture-topic), 1 commit(s) not exported"* ]]
	grep -qF "validated: the branch as it stands (fixture-topic), 1 commit(s) not exported" "$WF_TOP/out/6.1/validate/report.txt"
	[ "$(jq .as_is.unexported "$WF_TOP/out/6.1/validate/results.json")" -eq 1 ]
	# The branch is as it was, and patches/ too.
	[ "$(git -C "$WF_REPO" rev-parse fixture-topic)" = "$tip" ]
	[ "$(find "$WF_TOP/patches" -name '*.patch' | wc -l)" -eq 1 ]
}

@test "./wf validate PLAN=1: what would run and what comes from the cache, touching nothing (no rebuild, lock or report)" {
	setup_validate_fixture
	validate_commit_edit kernel/names.c 's/return 2;/return 3;/' "sysctl: Translate one more name"
	wf validate -o rebuild CHECKS=checkpatch RANGE="$VALIDATE_RANGE"
	[ "$status" -eq 0 ]
	validate_commit_edit kernel/names.c 's/return 12;/return 13;/' "sysctl: Probe one more name"
	fs_state "$WF_CACHE" "$WF_TOP" >"$BATS_TEST_TMPDIR/before"
	# (the branch has commits never exported: a rebuild would refuse)
	wf validate -o deps PLAN=1 CHECKS=checkpatch RANGE="$VALIDATE_RANGE"
	[ "$status" -eq 0 ]
	grep -qxF "2 result(s): 1 from the cache (marked *), 1 to run now" <<<"$output"
	[[ $output == *"commit(s) not exported: make validate would refuse them (AS_IS=1 validates them as they stand)"* ]]
	# A build compares its warnings with its parent's: the base's build
	# is counted apart, and in what runs.
	wf validate -o deps PLAN=1 CHECKS=boot RANGE="$VALIDATE_RANGE"
	echo "$output"
	[ "$status" -eq 0 ]
	grep -qxF "2 result(s): 0 from the cache (marked *), 2 to run now, and 1 at the base" <<<"$output"
	[[ $output == *"to run: boot 3 "* ]]
	fs_state "$WF_CACHE" "$WF_TOP" | diff "$BATS_TEST_TMPDIR/before" -
}

@test "./wf checkpatch, rebuild, build: pass, a failed check, bad input" {
	setup_fixture
	"$TOOLS/rebuild.sh" 2>/dev/null
	add_checkpatch_to_fixture
	git -C "$WF_REPO" add -f .
	git -C "$WF_REPO" -c user.name=A -c user.email=a@example.org commit -q -m "Add checkpatch for the fixture"
	git -C "$WF_REPO" tag -f fixture-base >/dev/null
	commit_in_repo kernel/sysctl.c '/* one */\nint one;\n/* two */\nint two;\n/* three */\nint three = 3;\n' "sysctl: Initialise three"
	wf checkpatch RANGE=fixture-base..fixture-topic
	[ "$status" -eq 0 ]
	commit_in_repo kernel/new.c 'int  bad ;   \n' "sysctl: Add badly formatted code"
	wf checkpatch RANGE=fixture-base..fixture-topic
	[ "$status" -eq 1 ]
	wf checkpatch RANGE=fixture-base..no-such-branch
	[ "$status" -eq 2 ]
	wf build CONFIG=no-such-config
	[ "$status" -eq 2 ]
	# rebuild: the branch has commits never exported (a refusal, 1); a
	# patch that does not apply (1); an unknown branch (2); then a pass.
	wf rebuild -o base
	[ "$status" -eq 1 ]
	[[ $output == *"has changes not exported"* ]]
	wf rebuild -o base BRANCH=6.13
	[ "$status" -eq 2 ]
	"$TOOLS/export.sh" 2>/dev/null
	wf rebuild -o base
	[ "$status" -eq 0 ]
	sed -i 's/^+int three = 3;$/+int three = 4;/; s/^-int three;$/-int three = 9;/' "$WF_TOP"/patches/0002-*.patch
	wf rebuild -o base
	[ "$status" -eq 1 ]
	[[ $output == *"does not apply"* ]]
}

@test "./wf port, trailers, faults, other-base, bisect, cost-stages: bad input is 2" {
	setup_fixture
	"$TOOLS/rebuild.sh" 2>/dev/null
	commit_in_repo kernel/new.c 'int new;\n' "sysctl: Add new.c"
	"$TOOLS/export.sh" 2>/dev/null
	wf port -o deps FROM=6.1
	[ "$status" -eq 2 ]
	[[ $output == "port: error: FROM= and TO= are both needed"* ]]
	wf port -o deps FROM=6.1 TO=7.0
	[ "$status" -eq 2 ]
	wf trailers
	[ "$status" -eq 2 ]
	[ "$output" = "trailers: error: no mailbox: MBOX=file names the replies to a sent revision" ]
	wf trailers MBOX="$BATS_TEST_TMPDIR/none.mbox"
	[ "$status" -eq 2 ]
	wf faults KILLS=x
	[ "$status" -eq 2 ]
	[[ $output == *"KILLS 'x' is not a number"* ]]
	wf faults ROWS=nothing KILLS=0
	[ "$status" -eq 2 ]
	wf other-base
	[ "$status" -eq 2 ]
	wf other-base BASE=nonsense
	[ "$status" -eq 2 ]
	[ "$output" = "other-base: error: apt knows no linux-source-6.1 nonsense (see: apt-cache madison linux-source-6.1)" ]
	wf other-base BASE="$BATS_TEST_TMPDIR/missing.tar.xz"
	[ "$status" -eq 2 ]
	wf bisect GOOD=no-such-commit
	[ "$status" -eq 2 ]
	[[ $output == *"good commit 'no-such-commit' not found"* ]]
	wf cost-stages SAMPLES=x
	[ "$status" -eq 2 ]
}

@test "./wf submit, send: bad input is 2 (send.bats: a bad TO= or SMTP=)" {
	setup_kernel_fixture
	make_kernel_series
	wf submit -o rebuild REV=abc
	[ "$status" -eq 2 ]
	[[ $output == *"revision 'abc' is not a positive number"* ]]
	wf send REV=abc TO=maintainers
	[ "$status" -eq 2 ]
	wf send TO=maintainers SMTP=127.0.0.1:25 ARRIVED=maybe
	[ "$status" -eq 2 ]
}

@test "./wf trees: 0 all apply, 3 a tree never fetched" {
	setup_kernel_fixture
	make_kernel_series
	git init -q "$BATS_TEST_TMPDIR/tree"
	git -C "$BATS_TEST_TMPDIR/tree" fetch -q "$WF_REPO" refs/tags/base/6.1.99-1
	git -C "$BATS_TEST_TMPDIR/tree" checkout -q -b next FETCH_HEAD
	echo "tree sysctl $BATS_TEST_TMPDIR/tree next kernel/" >>"$WF_TOP/branches.txt"
	wf trees
	[ "$status" -eq 0 ]
	echo "tree gone git://git.invalid/nowhere.git master Documentation/" >>"$WF_TOP/branches.txt"
	WF_FETCH_TIMEOUT=5 wf trees
	[ "$status" -eq 3 ]
	[[ ${lines[-1]} == "trees: infrastructure error: 1 tree(s) could not be fetched (gone)"* ]]
}

@test "./wf stress: 2 bad input, 1 when the debug config of the tip does not build" {
	setup_validate_fixture
	export WF_TEST_STRESS_RUN=$REPO_ROOT/tests/fixtures/stress/run.sh
	export WF_TEST_STRESS_MKINITRAMFS=$REPO_ROOT/tests/fixtures/stress/mkinitramfs.sh
	export WF_STRESS_RESULTS=$BATS_TEST_TMPDIR/results
	wf stress -o rebuild -o validate PROGRAMS=nothing
	[ "$status" -eq 2 ]
	[[ $output == "stress: error: -P: unknown guest program 'nothing'"* ]]
	# The series broke the build of the tip: a failed check, not bad input.
	printf 'int broken(void) { return }\n' >>"$WF_REPO/kernel/main.c"
	git -C "$WF_REPO" add -f kernel/main.c
	dev_git commit -q -m "sysctl: Break the build"
	wf stress -o rebuild -o validate PROGRAMS=fuzz CALLS=10
	[ "$status" -eq 1 ]
	[[ ${lines[-1]} == "stress: error: the debug config of $WF_REPO does not build (log: "* ]]
	[ ! -e "$WF_CACHE/branches/6.1/stress.run" ]
}
