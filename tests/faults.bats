#!/usr/bin/env bats
# Crash safety: each recovery path of rebuild, base, export, other-base
# and bisect, on the state a killed run leaves; then tools/faults.sh (kill
# every command at random moments, run it again, compare) with small
# counts on a fixture series.

load test_helper

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

# mark_killed_run NAME [KEY=VALUE...]: the marker a killed run of NAME
# leaves in the cache.
mark_killed_run() {
	local name=$1
	shift
	printf 'pid 4242, started 2026-01-01 00:00:00\n' >"$WF_CACHE/$name.run"
	[[ $# -eq 0 ]] || printf '%s\n' "$@" >>"$WF_CACHE/$name.run"
}

setup() {
	setup_fixture
	make_faults_series
}

@test "rebuild: a run killed in git am is cleaned up and gives the same commits" {
	tip=$(git -C "$WF_REPO" rev-parse fixture-topic)
	scratch=$WF_CACHE/rebuild-tree
	# The state a SIGKILL in the middle of git am leaves in the scratch
	# worktree: an am session, a stale index.lock, a half-applied file.
	git -C "$scratch" checkout -q --detach refs/tags/base/6.1.99-1
	git -C "$scratch" am -q "$WF_TOP"/patches/000[1-3]*.patch "$WF_TOP/patches/0001-sysctl-Add-f1.c.patch" 2>/dev/null || true
	[ -d "$WF_REPO/.git/worktrees/rebuild-tree/rebase-apply" ]
	touch "$WF_REPO/.git/worktrees/rebuild-tree/index.lock"
	echo half >"$scratch/kernel/f5.c"
	mark_killed_run rebuild phase=apply
	run "$TOOLS/rebuild.sh"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(grep -c 'cleaning up' <<<"$output")" -eq 1 ]
	[[ $output == *"rebuild: cleaning up an interrupted run (pid 4242, started 2026-01-01 00:00:00): removed the stale lock linux/.git/worktrees/rebuild-tree/index.lock; dropped the git am in progress in rebuild-tree"* ]]
	[ "$(git -C "$WF_REPO" rev-parse fixture-topic)" = "$tip" ]
	[ ! -e "$WF_CACHE/rebuild.run" ]
	[ -z "$(git -C "$scratch" status --porcelain --ignored)" ]
	# The next run has nothing to clean.
	run "$TOOLS/rebuild.sh"
	[[ $output != *"cleaning up"* ]]
}

@test "rebuild: a run killed while checking out the work tree is finished" {
	tip=$(git -C "$WF_REPO" rev-parse fixture-topic)
	# Killed in move_branch's checkout: the work tree half-way from the
	# base to the new tip, with git's index.lock.
	git -C "$WF_REPO" checkout -q --detach refs/tags/base/6.1.99-1
	echo 'int f1;' >"$WF_REPO/kernel/f1.c"
	touch "$WF_REPO/.git/index.lock"
	mark_killed_run rebuild phase=finish "old=$tip" "new=$tip"
	run "$TOOLS/rebuild.sh"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"rebuild: cleaning up an interrupted run (pid 4242, started 2026-01-01 00:00:00): removed the stale lock linux/.git/index.lock; finished the checkout of its new tip in the work tree $WF_REPO"* ]]
	[ "$(git -C "$WF_REPO" rev-parse fixture-topic)" = "$tip" ]
	[ "$(git -C "$WF_REPO" symbolic-ref HEAD)" = refs/heads/fixture-topic ]
	[ -z "$(git -C "$WF_REPO" status --porcelain)" ]
}

@test "rebuild: killed between the two refs, the next run needs no FORCE" {
	old=$(git -C "$WF_REPO" rev-parse fixture-topic~1)
	tip=$(git -C "$WF_REPO" rev-parse fixture-topic)
	git -C "$WF_REPO" update-ref refs/wf/exported "$old"
	mark_killed_run rebuild phase=finish "old=$old" "new=$tip"
	run "$TOOLS/rebuild.sh"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(git -C "$WF_REPO" rev-parse refs/wf/exported)" = "$tip" ]
	# The run that recovers is killed too, before it moves the refs.
	git -C "$WF_REPO" update-ref refs/wf/exported "$old"
	mark_killed_run rebuild phase=apply "old=$old" "new=$tip"
	run "$TOOLS/rebuild.sh"
	[ "$status" -eq 0 ]
	[ "$(git -C "$WF_REPO" rev-parse refs/wf/exported)" = "$tip" ]
	# Without the marker, the same refs are unexported changes.
	git -C "$WF_REPO" update-ref refs/wf/exported "$old"
	run "$TOOLS/rebuild.sh"
	[ "$status" -eq 1 ]
	[[ ${lines[-1]} == *"branch fixture-topic has changes not exported to patches/"* ]]
}

@test "rebuild: a stale index.lock is removed; one a process holds is named" {
	touch "$WF_REPO/.git/index.lock"
	run "$TOOLS/rebuild.sh"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"rebuild: cleaning up what an interrupted run left: removed the stale lock linux/.git/index.lock"* ]]
	[ ! -e "$WF_REPO/.git/index.lock" ]
	# A lock that a running process holds is not touched.
	(exec 9>>"$WF_REPO/.git/index.lock"; sleep 30) &
	holder=$!
	sleep 0.5
	run "$TOOLS/rebuild.sh"
	kill "$holder"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ ${lines[-1]} == "rebuild: error: $WF_REPO/.git/index.lock is held by a running process (pid "*"); wait for it to finish" ]]
}

@test "rebuild: the user's own git am is kept and named, FORCE=1 discards it" {
	tip=$(git -C "$WF_REPO" rev-parse fixture-topic)
	# The user's am stops on a patch that is already applied.
	git -C "$WF_REPO" -c user.name=U -c user.email=u@example.org \
		am -q "$WF_TOP/patches/0006-sysctl-Add-f6.c.patch" 2>/dev/null || true
	[ -d "$WF_REPO/.git/rebase-apply" ]
	run "$TOOLS/rebuild.sh"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ ${lines[-1]} == "rebuild: error: a git am is in progress in $WF_REPO (not started by rebuild); finish it with 'git -C $WF_REPO am --continue', drop it with 'git -C $WF_REPO am --abort', or discard it with 'make rebuild FORCE=1'" ]]
	[ -d "$WF_REPO/.git/rebase-apply" ]
	# What the issue saw: an am, a stale index.lock and a half-applied
	# file.  FORCE=1 gets out of it with no hand repair.
	touch "$WF_REPO/.git/index.lock"
	echo 'int half;' >"$WF_REPO/kernel/f6.c"
	run "$TOOLS/rebuild.sh" -f
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"rebuild: discarded the git am in progress in $WF_REPO and its changes to the work tree (FORCE=1)"* ]]
	[ ! -d "$WF_REPO/.git/rebase-apply" ]
	[ "$(git -C "$WF_REPO" rev-parse fixture-topic)" = "$tip" ]
	[ -z "$(git -C "$WF_REPO" status --porcelain)" ]
}

@test "base: a half-imported base is removed and imported again; the tag comes last" {
	first=$(git -C "$WF_REPO" rev-parse refs/tags/base/6.1.99-1)
	git -C "$WF_REPO" update-ref -d refs/tags/base/6.1.99-1
	# Killed while unpacking: part of the tree, no tag.
	mkdir -p "$WF_CACHE/base-import/kernel"
	echo half >"$WF_CACHE/base-import/kernel/sysctl.c"
	touch "$WF_CACHE/base-import.index" "$WF_CACHE/base-import.index.lock"
	mark_killed_run base "phase=import 6.1.99-1"
	run "$TOOLS/base.sh"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"base: cleaning up an interrupted run (pid 4242, started 2026-01-01 00:00:00): removed base-import; removed base-import.index; removed base-import.index.lock"* ]]
	[ "$(git -C "$WF_REPO" rev-parse refs/tags/base/6.1.99-1)" = "$first" ]
	[ ! -e "$WF_CACHE/base-import" ] && [ ! -e "$WF_CACHE/base.run" ]
	# A failed import leaves no tag.
	git -C "$WF_REPO" update-ref -d refs/tags/base/6.1.99-1
	echo 'not xz' >"$WF_SRC_DIR/linux-source-6.1.tar.xz"
	run "$TOOLS/base.sh"
	[ "$status" -eq 1 ]
	run git -C "$WF_REPO" rev-parse -q --verify refs/tags/base/6.1.99-1
	[ "$status" -ne 0 ]
	[ ! -e "$WF_CACHE/base-import" ]
}

@test "export: a half-written patch directory is put back and written again" {
	printf 'About these patches.\n' >"$WF_TOP/patches/README.md"
	cp -r "$WF_TOP/patches" "$BATS_TEST_TMPDIR/before"
	# Killed between the two renames: the old directory aside, the new
	# one half-written.
	mv "$WF_TOP/patches" "$WF_TOP/.patches.export-old"
	mkdir "$WF_TOP/.patches.export-new"
	echo half >"$WF_TOP/.patches.export-new/0001-sysctl-Add-f1.c.patch"
	mark_killed_run export phase=swap
	run "$TOOLS/export.sh"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"export: cleaning up an interrupted run (pid 4242, started 2026-01-01 00:00:00): restored patches/ from .patches.export-old; removed the half-written .patches.export-new"* ]]
	[[ ${lines[-1]} == "export: wrote 6 patch(es) to patches/ (0 file(s) changed)" ]]
	diff -r "$BATS_TEST_TMPDIR/before" "$WF_TOP/patches"
	run ls -A "$WF_TOP"
	[[ $output != *export* ]]
}

@test "other-base: a run killed in git am is cleaned up and gives the same result" {
	mkdir -p "$BATS_TEST_TMPDIR/other"
	cp -p "$WF_SRC_DIR/linux-source-6.1.tar.xz" "$BATS_TEST_TMPDIR/other/"
	# shellcheck disable=SC2016 # expanded by bash -c in other-base.sh
	export WF_OTHER_BUILD='test -z "$(git -C "$SRC" status --porcelain)"'
	run "$TOOLS/other-base.sh" -V 6.1.98-1 "$BATS_TEST_TMPDIR/other/linux-source-6.1.tar.xz"
	[ "$status" -eq 0 ]
	reference=$(grep -v '^base: ' <<<"$output")
	head=$(git -C "$WF_CACHE/other-base/linux" rev-parse HEAD)
	# Killed in git am, with its scratch files still there.
	tree=$WF_CACHE/other-base/linux
	git -C "$tree" checkout -q --detach refs/tags/base/6.1.98-1
	git -C "$tree" am -q "$WF_TOP/patches/0001-sysctl-Add-f1.c.patch" "$WF_TOP/patches/0001-sysctl-Add-f1.c.patch" 2>/dev/null || true
	touch "$WF_REPO/.git/worktrees/linux/index.lock"
	mkdir -p "$WF_CACHE/other-base/tmp"
	mark_killed_run other-base
	run "$TOOLS/other-base.sh" -V 6.1.98-1 "$BATS_TEST_TMPDIR/other/linux-source-6.1.tar.xz"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"other-base: cleaning up an interrupted run (pid 4242, started 2026-01-01 00:00:00): removed its scratch files other-base/tmp; removed the stale lock linux/.git/worktrees/linux/index.lock; dropped the git am in progress in other-base/linux"* ]]
	[ "$(grep -v -e '^base: ' -e 'cleaning up' <<<"$output")" = "$reference" ]
	[ "$(git -C "$tree" rev-parse HEAD)" = "$head" ]
}

@test "bisect-run: a killed bisection is ended and bisected again" {
	export WF_BISECT_BUILD=true
	# shellcheck disable=SC2016 # expanded by bash -c in bisect-run.sh
	export WF_BISECT_BOOT='! test -e "$SRC/kernel/f4.c"'
	run "$TOOLS/bisect-run.sh" start refs/tags/base/6.1.99-1 fixture-topic
	[ "$status" -eq 0 ]
	reference=${lines[-1]}
	[[ $reference == "first bad commit: "*" sysctl: Add f4.c" ]]
	# Killed in git bisect run, in the middle of a checkout.
	tree=$WF_CACHE/bisect/linux
	git -C "$tree" bisect start fixture-topic refs/tags/base/6.1.99-1 >/dev/null
	touch "$WF_REPO/.git/worktrees/linux/index.lock" "$WF_REPO/.git/worktrees/linux/BISECT_EXPECTED_REV.lock"
	echo half >"$tree/kernel/f6.c"
	mark_killed_run bisect
	run "$TOOLS/bisect-run.sh" start refs/tags/base/6.1.99-1 fixture-topic
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"bisect-run: cleaning up an interrupted run (pid 4242, started 2026-01-01 00:00:00): removed the stale lock linux/.git/worktrees/linux/BISECT_EXPECTED_REV.lock; removed the stale lock linux/.git/worktrees/linux/index.lock; ended the git bisect in progress in bisect/linux"* ]]
	[ "${lines[-1]}" = "$reference" ]
}

@test "faults: every command recovers from every kill on the fixture series" {
	run "$TOOLS/faults.sh" -s 7 -k 2
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"cache $WF_CACHE (WF_CACHE), seed 7, 2 kill(s) per command: rebuild base export other-base bisect"* ]]
	for row in rebuild base export other-base bisect; do
		grep -qE "^$row +\| 2 +\| 2/2 +\| 2/2$" <<<"$output"
	done
	# The checkout's own patches were not written: faults works on a copy.
	[ -z "$(find "$WF_TOP/patches" -newer "$WF_CACHE/faults/top/branches.txt")" ]
}

@test "faults: a tool that skips its cleanup makes a row short and the run fail" {
	WF_TEST_NO_RECOVERY=1 run "$TOOLS/faults.sh" -s 3 -k 5 rebuild export
	echo "$output"
	[ "$status" -eq 1 ]
	grep -qE '^(rebuild|export) +\| 5 +\| [0-4]/5 ' <<<"$output"
	[[ ${lines[-1]} == "faults: a command did not recover from every kill: see $WF_CACHE/faults/log.txt" ]]
}

@test "faults: never the workflow's cache unless WF_CACHE names it" {
	unset WF_CACHE
	export XDG_CACHE_HOME=$BATS_TEST_TMPDIR/xdg
	run "$TOOLS/faults.sh" -k x
	[ "$status" -eq 1 ]
	[[ $output == *"KILLS 'x' is not a number"* ]]
	run "$TOOLS/faults.sh" -n -k 0 base
	echo "$output"
	[ "$status" -eq 0 ]
	[[ ${lines[0]} == "faults: cache $XDG_CACHE_HOME/sysctl-wf-faults (WF_CACHE), seed 1, 0 kill(s) per command: base" ]]
	[ ! -e "$XDG_CACHE_HOME/sysctl-wf" ]
	# -n: no warm-up run.
	[ ! -e "$XDG_CACHE_HOME/sysctl-wf-faults/faults/base/warm-up.out" ]
}
