#!/usr/bin/env bats
# Tests of tools/bisect-run.sh on a fixture series, with fixture build and
# boot commands (the real ones build and boot a kernel: minutes).

load test_helper

setup() {
	setup_fixture
	# A "build" that fails on an #error, a "boot" that fails on a marker
	# (expanded by bash -c in bisect-run.sh).
	# shellcheck disable=SC2016
	export WF_TEST_BISECT_BUILD='! grep -rq "^#error" "$SRC/kernel"'
	# shellcheck disable=SC2016
	export WF_TEST_BISECT_BOOT='! grep -q BROKEN "$SRC/kernel/sysctl.c"'
	"$TOOLS/rebuild.sh"
	commit_in_repo kernel/sysctl.c '/* one */\nint one = 1;\n/* two */\nint two;\n/* three */\nint three;\n' "sysctl: Initialise one"
	commit_in_repo kernel/new.c '#error half done\n' "sysctl: Add new.c, not building yet"
	commit_in_repo kernel/new.c 'int new;\n' "sysctl: Make new.c build"
	commit_in_repo kernel/sysctl.c '/* one */\nint one = 1;\n/* two BROKEN */\nint two;\n/* three */\nint three;\n' "sysctl: Break the boot"
	commit_in_repo kernel/sysctl.c '/* one */\nint one = 1;\n/* two BROKEN */\nint two;\n/* three */\nint three = 3;\n' "sysctl: Initialise three"
}

@test "bisect-run: exits 0 good, 1 bad, 125 skip for a build failure" {
	cd "$WF_REPO"
	git checkout -q fixture-topic~4
	run "$TOOLS/bisect-run.sh"
	[ "$status" -eq 0 ]
	[[ $output == *"sysctl: Initialise one: boot and smoke test passed -> good"* ]]
	git checkout -q fixture-topic~3
	run "$TOOLS/bisect-run.sh"
	[ "$status" -eq 125 ]
	[[ $output == *"build failed -> skip"* ]]
	WF_BISECT_BUILD_FAIL=bad run "$TOOLS/bisect-run.sh"
	[ "$status" -eq 1 ]
	git checkout -q fixture-topic~1
	run "$TOOLS/bisect-run.sh"
	[ "$status" -eq 1 ]
	[[ $output == *"sysctl: Break the boot: boot or smoke test failed -> bad"* ]]
	# A runner that could not run (qemu-boot/run.sh exit 2) is a skip.
	WF_TEST_BISECT_BOOT='exit 2' run "$TOOLS/bisect-run.sh"
	[ "$status" -eq 125 ]
}

@test "bisect-run: git bisect run names the broken commit, past an unbuildable one" {
	broken=$(git -C "$WF_REPO" rev-parse --short=12 fixture-topic~1)
	run "$TOOLS/bisect-run.sh" start refs/tags/base/6.1.99-1 fixture-topic
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"is the first bad commit"* ]]
	[ "${lines[-1]}" = "first bad commit: $broken sysctl: Break the boot" ]
	# The bisection ran in its own worktree; the cache work tree is untouched.
	[ "$(git -C "$WF_REPO" symbolic-ref HEAD)" = refs/heads/fixture-topic ]
	[ -z "$(git -C "$WF_REPO" status --porcelain --untracked-files=no)" ]
}

@test "bisect-run: a BAD that passes is named in one line, whether or not commits lie between" {
	# git bisect takes BAD's word for it: with commits between GOOD and
	# BAD that all pass, it would name BAD the first bad commit; with
	# none, git bisect run fails on a message of its own.
	for good in fixture-topic~4 fixture-topic~3; do
		passing=$(git -C "$WF_REPO" rev-parse --short=12 fixture-topic~2)
		run "$TOOLS/bisect-run.sh" start "$good" fixture-topic~2
		echo "$output"
		[ "$status" -eq 1 ]
		[ "${lines[-1]}" = "bisect-run: error: BAD $passing (sysctl: Make new.c build) passes the boot and the smoke test: it is not a bad commit, nothing to bisect" ]
		[[ $output != *"first bad commit"* ]]
		# No bisection left behind.
		[ ! -e "$WF_CACHE/branches/6.1/bisect.run" ]
		run git -C "$WF_CACHE/branches/6.1/bisect/linux" bisect log
		[ "$status" -ne 0 ]
	done
}

@test "bisect-run: an unknown good commit is named" {
	run "$TOOLS/bisect-run.sh" start no-such-commit fixture-topic
	[ "$status" -eq 2 ]
	[[ $output == *"good commit 'no-such-commit' not found"* ]]
}

@test "bisect-run: make bisect without GOOD and BAD bisects base..topic" {
	broken=$(git -C "$WF_REPO" rev-parse --short=12 fixture-topic~1)
	run make -s -C "$REPO_ROOT" bisect
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[-1]}" = "first bad commit: $broken sysctl: Break the boot" ]
	# Either end alone: the other one is the default.
	run make -s -C "$REPO_ROOT" bisect GOOD=fixture-topic~2
	[ "$status" -eq 0 ]
	[ "${lines[-1]}" = "first bad commit: $broken sysctl: Break the boot" ]
	run make -s -C "$REPO_ROOT" bisect BAD=fixture-topic~1
	[ "$status" -eq 0 ]
	[ "${lines[-1]}" = "first bad commit: $broken sysctl: Break the boot" ]
}

@test "bisect-run: the default boot step boots what the build step built, without a second make" {
	# A make that only says it ran; the build step stands in for the real one.
	mkdir -p "$BATS_TEST_TMPDIR/bin"
	printf '#!/bin/sh\necho "make $*" >>"%s/make-calls"\nexit 2\n' "$BATS_TEST_TMPDIR" >"$BATS_TEST_TMPDIR/bin/make"
	chmod +x "$BATS_TEST_TMPDIR/bin/make"
	unset WF_TEST_BISECT_BOOT
	cd "$WF_REPO"
	git checkout -q fixture-topic~4
	# Enough of a kernel tree for tools/build.sh to get to make.
	mkdir -p kernel/configs arch/x86/configs
	: >kernel/configs/tiny-base.config
	: >kernel/configs/tiny.config
	: >arch/x86/configs/tiny.config
	PATH="$BATS_TEST_TMPDIR/bin:$PATH" run "$TOOLS/bisect-run.sh"
	echo "$output"
	# No kernel was built, so the boot fails; but nothing after the
	# build step may have called make.
	[ "$status" -ne 0 ]
	[ ! -e "$BATS_TEST_TMPDIR/make-calls" ]
}
