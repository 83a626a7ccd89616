#!/usr/bin/env bats
# Crash safety: each recovery path of rebuild, base, export, other-base,
# bisect, submit, send and stress, on the state a killed run leaves, and
# stress on a full disk; then tools/faults.sh (kill every command at
# random moments, run it again, compare) with small counts on a fixture
# series.

load test_helper
bats_require_minimum_version 1.5.0

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
	printf 'pid 4242, started 2026-01-01 00:00:00\n' >"$WF_CACHE/branches/6.1/$name.run"
	[[ $# -eq 0 ]] || printf '%s\n' "$@" >>"$WF_CACHE/branches/6.1/$name.run"
}

setup() {
	case $BATS_TEST_DESCRIPTION in
	submit:* | send:*)
		setup_kernel_fixture
		make_kernel_series >/dev/null 2>&1
		pass_validation
		;;
	*)
		setup_fixture
		make_faults_series
		;;
	esac
}

teardown() {
	[[ -z ${SMTP_PID:-} ]] || kill "$SMTP_PID" 2>/dev/null || true
	[[ -z ${TMPFS:-} ]] || umount "$TMPFS" 2>/dev/null || true
}

# show_failed_kills: the log of the kills, then the stderr and the diff
# of each run that did not recover identically (bats prints them when
# the test fails: a short row says why).
show_failed_kills() {
	local log=$WF_CACHE/branches/6.1/faults/log.txt f
	[[ -r $log ]] || return 0
	cat "$log"
	grep -oE 'see [^ )]+' "$log" | cut -d' ' -f2 | sort -u | while read -r f; do
		printf -- '--- %s\n' "$f"
		cat "$f" 2>/dev/null || true
	done
}

# received_ids: the Message-Id of each message the server received.
received_ids() {
	[[ -e $MBOX ]] || return 0
	sed -n 's/^Message-Id: //Ip' "$MBOX"
}

# written_ids [FIRST]: the Message-Ids of the written v1, from message
# FIRST (0-based) on.
written_ids() {
	local f
	for f in "$WF_TOP"/out/6.1/submit/v1/*.eml; do
		sed -n 's/^Message-Id: //Ip' "$f"
	done | tail -n +"$((${1:-0} + 1))"
}

# half_sent N STATE: the state a send killed while sending message N
# (0-based) of v1 leaves: N messages sent, message N on its way, its SMTP
# dialogue in send.log ending as STATE says: "connected" (before the
# data), "dot" (the final dot written, no answer).
half_sent() {
	local n=$1 state=$2 i=0 f dir=$WF_TOP/out/6.1/submit/v1
	printf 'revision: 1\nstarted: pid 4242, started 2026-01-01 00:00:00\n' >"$dir/sending"
	: >"$dir/send.log"
	for f in "$dir"/*.eml; do
		[[ $i -lt $n ]] || break
		printf 'sending: %s\nsent: %s\n' "${f##*/}" "${f##*/}" >>"$dir/sending"
		i=$((i + 1))
	done
	f=$(find "$dir" -maxdepth 1 -name "$(printf '%04d' "$n")-*.eml")
	printf 'sending: %s\n' "${f##*/}" >>"$dir/sending"
	{
		printf '+ git send-email %s\n' "${f##*/}"
		printf 'Net::SMTP=GLOB(0x1)<<< 220 smtp.fixture.test\nNet::SMTP=GLOB(0x1)>>> MAIL FROM:<sam@fixture.home.arpa>\n'
		[[ $state != dot ]] || printf 'Net::SMTP=GLOB(0x1)<<< 354 End data\nNet::SMTP=GLOB(0x1)>>> Subject: x\nNet::SMTP=GLOB(0x1)>>> .\n'
	} >>"$dir/send.log"
	mark_killed_run send
}

@test "rebuild: a run killed in git am is cleaned up and gives the same commits" {
	tip=$(git -C "$WF_REPO" rev-parse fixture-topic)
	scratch=$WF_CACHE/branches/6.1/rebuild-tree
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
	[ ! -e "$WF_CACHE/branches/6.1/rebuild.run" ]
	[ -z "$(git -C "$scratch" status --porcelain --ignored)" ]
	# The next run has nothing to clean.
	run "$TOOLS/rebuild.sh"
	[[ $output != *"cleaning up"* ]]
}

@test "rebuild: a half-made scratch worktree is removed and made again" {
	tip=$(git -C "$WF_REPO" rev-parse fixture-topic)
	scratch=$WF_CACHE/branches/6.1/rebuild-tree
	# Killed in git worktree add: a directory with part of a checkout and
	# no repository of its own.
	git -C "$WF_REPO" worktree remove --force "$scratch"
	mkdir -p "$scratch/kernel"
	echo half >"$scratch/kernel/f1.c"
	mark_killed_run rebuild phase=start
	run "$TOOLS/rebuild.sh"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"rebuild: cleaning up an interrupted run (pid 4242, started 2026-01-01 00:00:00): removed the half-made worktree rebuild-tree"* ]]
	[ "$(git -C "$WF_REPO" rev-parse fixture-topic)" = "$tip" ]
	[ "$(git -C "$scratch" rev-parse --show-toplevel)" = "$scratch" ]
	[ -z "$(git -C "$scratch" status --porcelain --ignored)" ]
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
	mkdir -p "$WF_CACHE/branches/6.1/base-import/kernel"
	echo half >"$WF_CACHE/branches/6.1/base-import/kernel/sysctl.c"
	touch "$WF_CACHE/branches/6.1/base-import.index" "$WF_CACHE/branches/6.1/base-import.index.lock"
	mark_killed_run base "phase=import 6.1.99-1"
	run "$TOOLS/base.sh"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"base: cleaning up an interrupted run (pid 4242, started 2026-01-01 00:00:00): removed base-import; removed base-import.index; removed base-import.index.lock"* ]]
	[ "$(git -C "$WF_REPO" rev-parse refs/tags/base/6.1.99-1)" = "$first" ]
	[ ! -e "$WF_CACHE/branches/6.1/base-import" ] && [ ! -e "$WF_CACHE/branches/6.1/base.run" ]
	# A failed import leaves no tag.
	git -C "$WF_REPO" update-ref -d refs/tags/base/6.1.99-1
	echo 'not xz' >"$WF_SRC_DIR/linux-source-6.1.tar.xz"
	run "$TOOLS/base.sh"
	[ "$status" -eq 1 ]
	run git -C "$WF_REPO" rev-parse -q --verify refs/tags/base/6.1.99-1
	[ "$status" -ne 0 ]
	[ ! -e "$WF_CACHE/branches/6.1/base-import" ]
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
	export WF_TEST_OTHER_BUILD='test -z "$(git -C "$SRC" status --porcelain)"'
	run "$TOOLS/other-base.sh" -V 6.1.98-1 "$BATS_TEST_TMPDIR/other/linux-source-6.1.tar.xz"
	[ "$status" -eq 0 ]
	reference=$(grep -v '^base: ' <<<"$output")
	head=$(git -C "$WF_CACHE/branches/6.1/other-base/linux" rev-parse HEAD)
	# Killed in git am, with its scratch files still there.
	tree=$WF_CACHE/branches/6.1/other-base/linux
	git -C "$tree" checkout -q --detach refs/tags/base/6.1.98-1
	git -C "$tree" am -q "$WF_TOP/patches/0001-sysctl-Add-f1.c.patch" "$WF_TOP/patches/0001-sysctl-Add-f1.c.patch" 2>/dev/null || true
	touch "$WF_REPO/.git/worktrees/linux/index.lock"
	mkdir -p "$WF_CACHE/branches/6.1/other-base/tmp"
	mark_killed_run other-base
	run "$TOOLS/other-base.sh" -V 6.1.98-1 "$BATS_TEST_TMPDIR/other/linux-source-6.1.tar.xz"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"other-base: cleaning up an interrupted run (pid 4242, started 2026-01-01 00:00:00): removed its scratch files other-base/tmp; removed the stale lock linux/.git/worktrees/linux/index.lock; dropped the git am in progress in other-base/linux"* ]]
	[ "$(grep -v -e '^base: ' -e 'cleaning up' <<<"$output")" = "$reference" ]
	[ "$(git -C "$tree" rev-parse HEAD)" = "$head" ]
}

@test "bisect-run: a killed bisection is ended and bisected again" {
	export WF_TEST_BISECT_BUILD=true
	# shellcheck disable=SC2016 # expanded by bash -c in bisect-run.sh
	export WF_TEST_BISECT_BOOT='! test -e "$SRC/kernel/f4.c"'
	run "$TOOLS/bisect-run.sh" start refs/tags/base/6.1.99-1 fixture-topic
	[ "$status" -eq 0 ]
	reference=${lines[-1]}
	[[ $reference == "first bad commit: "*" sysctl: Add f4.c" ]]
	# Killed in git bisect run, in the middle of a checkout.
	tree=$WF_CACHE/branches/6.1/bisect/linux
	git -C "$tree" bisect start fixture-topic refs/tags/base/6.1.99-1 >/dev/null
	touch "$WF_REPO/.git/worktrees/linux/index.lock" "$WF_REPO/.git/worktrees/linux/BISECT_EXPECTED_REV.lock"
	# The lock git takes in the repository itself to delete a ref
	# (git bisect reset deletes BISECT_HEAD and refs/bisect/*).
	touch "$WF_REPO/.git/packed-refs.lock"
	echo half >"$tree/kernel/f6.c"
	# And the log it writes last, half-written.
	echo half >"$WF_CACHE/branches/6.1/bisect/bisect.log.tmp"
	mark_killed_run bisect
	run "$TOOLS/bisect-run.sh" start refs/tags/base/6.1.99-1 fixture-topic
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"bisect-run: cleaning up an interrupted run (pid 4242, started 2026-01-01 00:00:00): removed the stale lock linux/.git/packed-refs.lock; removed the stale lock linux/.git/worktrees/linux/BISECT_EXPECTED_REV.lock; removed the stale lock linux/.git/worktrees/linux/index.lock; ended the git bisect in progress in bisect/linux; removed the half-written bisect/bisect.log.tmp"* ]]
	[ "${lines[-1]}" = "$reference" ]
	[ ! -e "$WF_CACHE/branches/6.1/bisect/bisect.log.tmp" ]
	[ ! -e "$WF_REPO/.git/packed-refs.lock" ]
}

@test "submit: a run killed while swapping out/6.1/submit/v1 is undone; the b4 repo is cleaned up" {
	"$TOOLS/submit.sh" >/dev/null 2>&1
	dir=$WF_TOP/out/6.1/submit/v1
	b4=$WF_CACHE/branches/6.1/b4/linux
	# Killed between the two renames: the old v1 aside, the new one
	# half-copied; and, in the b4 repo, a git am with its index.lock,
	# a scratch directory and the editor setting of an earlier step.
	mv "$dir" "$WF_TOP/out/6.1/submit/.v1.submit-old"
	mkdir "$WF_TOP/out/6.1/submit/.v1.submit-new"
	echo half >"$WF_TOP/out/6.1/submit/.v1.submit-new/0000-half.eml"
	git -C "$b4" checkout -q --detach wf-base
	git -C "$b4" am -q "$WF_TOP"/patches/0004-*.patch 2>/dev/null || true
	[ -d "$b4/.git/rebase-apply" ]
	touch "$b4/.git/index.lock"
	mkdir "$b4.out.Xy12ab"
	git -C "$b4" config core.editor "cp -- '$b4.out.Xy12ab/cover.txt'"
	mark_killed_run submit phase=swap "out=$dir"
	# What make send sees meanwhile: no v1 to take as complete.
	run "$TOOLS/send.sh" -n
	[ "$status" -eq 1 ]
	[ "$output" = "send: error: no written revision in out/6.1/submit/ (run: make submit)" ]
	run "$TOOLS/submit.sh"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(grep -c 'cleaning up' <<<"$output")" -eq 1 ]
	[[ $output == *"submit: cleaning up an interrupted run (pid 4242, started 2026-01-01 00:00:00): removed its scratch directory b4/linux.out.Xy12ab; removed the stale lock b4/linux/.git/index.lock; dropped the git am in progress in b4/linux; unset the cover letter editor of b4/linux; put back out/6.1/submit/v1 from out/6.1/submit/.v1.submit-old; removed out/6.1/submit/.v1.submit-new"* ]]
	[ "$(find "$dir" -name '*.eml' | wc -l)" -eq 6 ]
	[ ! -e "$WF_CACHE/branches/6.1/submit.run" ]
	run ls -A "$WF_TOP/out/6.1/submit" "$WF_CACHE/branches/6.1/b4"
	[[ $output != *submit-* && $output != *linux.out* ]]
	[ ! -d "$b4/.git/rebase-apply" ]
}

@test "submit: a revision that make send has started is not written again" {
	"$TOOLS/submit.sh" >/dev/null 2>&1
	printf 'revision: 1\nstarted: pid 4242, started 2026-01-01 00:00:00\n' >"$WF_TOP/out/6.1/submit/v1/sending"
	before=$(cat "$WF_TOP"/out/6.1/submit/v1/*.eml | sha256sum)
	run "$TOOLS/submit.sh"
	echo "$output"
	[ "$status" -eq 1 ]
	[ "${lines[-1]}" = "submit: error: v1 is being sent (pid 4242, started 2026-01-01 00:00:00): finish sending it with 'make send TO=maintainers' before writing it again" ]
	[ "$(cat "$WF_TOP"/out/6.1/submit/v1/*.eml | sha256sum)" = "$before" ]
}

@test "send: a half-sent revision is finished without duplicates and recorded once complete" {
	"$TOOLS/submit.sh" >/dev/null 2>&1
	start_smtp
	# Killed while sending message 2, before its data: 0 and 1 arrived;
	# its scratch directory is there.
	half_sent 2 connected
	mkdir -p "$WF_CACHE/branches/6.1/send-tmp"
	echo half >"$WF_CACHE/branches/6.1/send-tmp/patches.mbox"
	run "$TOOLS/send.sh" -t maintainers -s "127.0.0.1:$SMTP_PORT"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"send: cleaning up an interrupted run (pid 4242, started 2026-01-01 00:00:00): removed its scratch directory send-tmp; v1 was half-sent: 2 message(s) sent already, 0002-"*".eml did not arrive; sending the rest"* ]]
	[[ $output == *"send: sent 4 message(s) of out/6.1/submit/v1 to 127.0.0.1:$SMTP_PORT (their To/Cc)"* ]]
	diff <(written_ids 2) <(received_ids)
	[ -f "$WF_TOP/cover-letters/6.1/sent/v1/record" ]
	[ ! -e "$WF_TOP/out/6.1/submit/v1/sending" ] && [ ! -e "$WF_CACHE/branches/6.1/send.run" ]
	[ ! -e "$WF_CACHE/branches/6.1/send-tmp" ]
}

@test "send: a message that may have reached the server is not sent again unless ARRIVED=no says so" {
	"$TOOLS/submit.sh" >/dev/null 2>&1
	start_smtp
	# Killed after the final dot of message 3, before the server's answer.
	half_sent 3 dot
	m3=$(basename "$WF_TOP"/out/6.1/submit/v1/0003-*.eml)
	run "$TOOLS/send.sh" -t maintainers -s "127.0.0.1:$SMTP_PORT"
	echo "$output"
	[ "$status" -eq 1 ]
	[ "${lines[-1]}" = "send: error: an interrupted send of v1 (pid 4242, started 2026-01-01 00:00:00) was stopped while the server was taking $m3: check whether it arrived, then run 'make send TO=maintainers SMTP=127.0.0.1:$SMTP_PORT ARRIVED=yes' if it did, 'ARRIVED=no' to send it again" ]
	[ -z "$(received_ids)" ]
	[ ! -e "$WF_TOP/cover-letters/6.1/sent/v1" ]
	run make -s -C "$REPO_ROOT" send TO=maintainers SMTP="127.0.0.1:$SMTP_PORT" ARRIVED=maybe
	[ "$status" -ne 0 ]
	[[ $output == "send: error: ARRIVED='maybe' is neither yes nor no"* ]]
	# It arrived: the rest only.
	run make -s -C "$REPO_ROOT" send TO=maintainers SMTP="127.0.0.1:$SMTP_PORT" ARRIVED=yes
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"v1 was half-sent: 4 message(s) sent already, $m3 arrived; sending the rest"* ]]
	diff <(written_ids 4) <(received_ids)
	[ -f "$WF_TOP/cover-letters/6.1/sent/v1/record" ]
	# It did not: sent again, then the rest.
	rm -rf "$WF_TOP/cover-letters/6.1/sent" "$MBOX"
	half_sent 3 dot
	run "$TOOLS/send.sh" -A no -t maintainers -s "127.0.0.1:$SMTP_PORT"
	echo "$output"
	[ "$status" -eq 0 ]
	diff <(written_ids 3) <(received_ids)
}

@test "send: killed after recording, the next run sends nothing and says so" {
	"$TOOLS/submit.sh" >/dev/null 2>&1
	start_smtp
	"$TOOLS/send.sh" -t maintainers -s "127.0.0.1:$SMTP_PORT" 2>/dev/null
	rm "$MBOX"
	# Killed after the record, before removing its progress; and a
	# half-written record of another run.
	half_sent 5 dot
	mkdir -p "$WF_TOP/cover-letters/6.1/sent/.v1.tmp"
	run "$TOOLS/send.sh" -t maintainers -s "127.0.0.1:$SMTP_PORT"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "send: cleaning up an interrupted run (pid 4242, started 2026-01-01 00:00:00): removed the half-written record cover-letters/6.1/sent/.v1.tmp; v1 was sent and recorded in cover-letters/6.1/sent/v1; removed out/6.1/submit/v1/sending" ]
	[ -z "$(received_ids)" ]
	run "$TOOLS/send.sh" -t maintainers -s "127.0.0.1:$SMTP_PORT"
	[ "$status" -eq 1 ]
	[ "$output" = "send: error: v1 was sent already (cover-letters/6.1/sent/v1): make submit writes v2" ]
}

# stress_fixture ARGS...: tools/stress.sh with the fixture guest
# (tests/fixtures/stress: no kernel, no QEMU) and small counts, never a
# kept result (-f).
stress_fixture() {
	printf 'not a kernel\n' >"$BATS_TEST_TMPDIR/bzImage"
	WF_TEST_STRESS_RUN=$REPO_ROOT/tests/fixtures/stress/run.sh \
		WF_TEST_STRESS_MKINITRAMFS=$REPO_ROOT/tests/fixtures/stress/mkinitramfs.sh FIXTURE_STRESS_DELAY=0 \
		run "$TOOLS/stress.sh" -f -k "$BATS_TEST_TMPDIR/bzImage" -n 2000 -T 1 -t 60 "$@"
}

@test "stress: a killed run's partial output is removed and named; summary.txt comes last" {
	out=$WF_TOP/out/6.1/stress
	stress_fixture
	[ "$status" -eq 0 ]
	cp "$out/summary.txt" "$BATS_TEST_TMPDIR/summary.txt"
	# Killed while writing the summary: half of it under its temporary
	# name, no summary.txt; the console log of the run.
	rm "$out/summary.txt"
	head -n 2 "$BATS_TEST_TMPDIR/summary.txt" >"$out/summary.txt.tmp"
	mark_killed_run stress
	stress_fixture
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"stress: cleaning up an interrupted run (pid 4242, started 2026-01-01 00:00:00): removed the half-written out/6.1/stress/summary.txt.tmp; removed its partial output in out/6.1/stress (debug-console.log debug-run.txt debug.cpio bin)"* ]]
	diff "$BATS_TEST_TMPDIR/summary.txt" "$out/summary.txt"
	[ ! -e "$out/summary.txt.tmp" ] && [ ! -e "$WF_CACHE/branches/6.1/stress.run" ]
}

@test "stress: a full disk is an infrastructure error, named in one line, with no result" {
	require TMPFS
	TMPFS=$BATS_TEST_TMPDIR/small
	mkdir -p "$TMPFS"
	mount -t tmpfs -o size=1536k tmpfs "$TMPFS"
	stress_fixture -o "$TMPFS/out"
	echo "$output"
	[ "$status" -eq 2 ]
	[ "$(grep -c 'infrastructure error' <<<"$output")" -eq 1 ]
	[ "${lines[-1]}" = "stress: infrastructure error: no space left on device in $TMPFS/out" ]
	[[ $output != *"cannot compile"* && $output != *PASS* && $output != *FAIL* ]]
	[ ! -e "$TMPFS/out/summary.txt" ]
	# Full later in the run (the programs fit again, the initramfs
	# does not): the same.
	umount "$TMPFS"
	mount -t tmpfs -o size=8m tmpfs "$TMPFS"
	stress_fixture -o "$TMPFS/out"
	[ "$status" -eq 0 ]
	rm "$TMPFS/out/summary.txt"
	cat /dev/zero >"$TMPFS/filler" 2>/dev/null || true
	stress_fixture -o "$TMPFS/out"
	echo "$output"
	[ "$status" -eq 2 ]
	[ "${lines[-1]}" = "stress: infrastructure error: no space left on device in $TMPFS/out" ]
	[ ! -e "$TMPFS/out/summary.txt" ]
}

# left_by_marker MARKER: (run) the "left:" lines faults.sh's leftovers
# prints for the scratch paths the run marker MARKER lists.
left_by_marker() {
	# shellcheck disable=SC2016 # expanded by the inner bash
	run bash -c '. "$1/tools/lib.sh"; FAULTS=$WF_CACHE/faults; . "$1/tools/lib-faults-rows.sh"
		declare -A ROW_SCRATCH=(); marker_phase "$2"; leftovers | grep "^left: " || true' _ "$REPO_ROOT" "$1"
}

@test "faults: a run's marker lists its scratch paths; what is left of them is named" {
	local c=$WF_CACHE/branches/6.1
	# shellcheck disable=SC2016 # expanded by the inner bash
	run bash -c '. "$1/tools/lib.sh"; wf_run_begin demo "$WF_CACHE/demo.tmp-*" "$WF_CACHE/demo-dir"
		wf_run_note phase=work k=v; cat "$WF_CACHE/demo.run"' _ "$REPO_ROOT"
	[ "$status" -eq 0 ]
	[ "$(grep -c '^scratch=' <<<"$output")" -eq 2 ]
	grep -qxF "scratch=$c/demo.tmp-*" <<<"$output"
	grep -qxF "scratch=$c/demo-dir" <<<"$output"
	grep -qx 'phase=work' <<<"$output"
	# The next run knows what the killed one may have left.
	# shellcheck disable=SC2016 # expanded by the inner bash
	run bash -c '. "$1/tools/lib.sh"; wf_run_begin demo; printf "%s\n" "$WF_PREV_RUN" "${WF_PREV_SCRATCH[@]}"' _ "$REPO_ROOT"
	[ "${lines[1]}" = "$c/demo.tmp-*" ] && [ "${lines[2]}" = "$c/demo-dir" ]
	# faults.sh reads them from the markers it sees (marker_phase) and
	# names what is left (leftovers).
	rm "$c/demo.run"
	touch "$c/demo.tmp-1" "$c/demo.tmp-2"
	left_by_marker "$BATS_TEST_TMPDIR/marker"
	[ "$output" = "" ]
	printf 'pid 1, started -\nphase=x\nscratch=%s\n' "$c/demo.tmp-*" >"$BATS_TEST_TMPDIR/marker"
	left_by_marker "$BATS_TEST_TMPDIR/marker"
	echo "$output"
	[ "$output" = "$(printf 'left: %s\n' "$c/demo.tmp-1" "$c/demo.tmp-2")" ]
}

@test "faults: every command recovers from every kill on the fixture series" {
	run "$TOOLS/faults.sh" -s 7 -k 2 rebuild base export other-base bisect
	echo "$output"
	show_failed_kills
	[ "$status" -eq 0 ]
	[[ $output == *"cache $WF_CACHE (WF_CACHE), seed 7, 2 kill(s) per command: rebuild base export other-base bisect"* ]]
	for row in rebuild base export other-base bisect; do
		grep -qE "^$row +\| 2 +\| 2/2 +\| 2/2$" <<<"$output"
	done
	# What each may leave is what its marker lists (leftovers).
	[[ $output == *"base: reference run "*" ms; 2 scratch path(s) from its marker;"* ]]
	[[ $output == *"export: reference run "*" ms; 1 scratch path(s) from its marker;"* ]]
	[[ $output == *"rebuild: reference run "*" ms; 0 scratch path(s) from its marker;"* ]]
	# The checkout's own patches were not written: faults works on a copy.
	[ -z "$(find "$WF_TOP/patches" -newer "$WF_CACHE/branches/6.1/faults/top/branches.txt")" ]
}

@test "faults: port recovers from every kill on the fixture series" {
	run "$TOOLS/faults.sh" -s 11 -k 4 port
	echo "$output"
	show_failed_kills
	[ "$status" -eq 0 ]
	grep -qE "^port +\| 4 +\| 4/4 +\| 4/4$" <<<"$output"
}

@test "faults: validate, stress, submit and send recover on the fixture of tests/faults-fixture.sh" {
	eval "$("$REPO_ROOT/tests/faults-fixture.sh" "$BATS_TEST_TMPDIR/fx")"
	export FIXTURE_STRESS_DELAY=0.05
	CHECKS=boot,qemu run "$TOOLS/faults.sh" -n -s 5 -k 1 validate stress submit send
	echo "$output"
	show_failed_kills
	[ "$status" -eq 0 ]
	for row in validate stress submit send; do
		grep -qE "^$row +\| 1 +\| 1/1 +\| 1/1$" <<<"$output"
	done
}

@test "faults: a send killed before the server's answer asks ARRIVED=; the row answers from what its server got" {
	eval "$("$REPO_ROOT/tests/faults-fixture.sh" "$BATS_TEST_TMPDIR/fx")"
	# Each message's answer 2 s late: most kills land between the final
	# dot and the answer, where send cannot know whether it arrived.
	export SMTP_FIXTURE_STALL=2
	run "$TOOLS/faults.sh" -n -s 9 -k 3 send
	echo "$output"
	[ "$status" -eq 0 ]
	grep -qE "^send +\| 3 +\| 3/3 +\| 3/3$" <<<"$output"
	[[ $output == *"run(s) asked the user, answered from what was done ("*": -A yes"* ]]
	log=$WF_CACHE/branches/6.1/faults/log.txt
	cat "$log"
	grep -qE $'^send\t[0-9]+\t[0-9]+ ms\tSIG[A-Z]+\trecovered after -A yes\tidentical$' "$log"
	# What send said, and the run that answered it.
	f=$(find "$WF_CACHE/branches/6.1/faults/send" -name "*.asked.err" | head -n 1)
	grep -q "was stopped while the server was taking .*\.eml: check whether it arrived" "$f"
}

@test "faults: a tool that skips its cleanup makes a row short and the run fail" {
	# -a: half the kills aimed at export's first phase, where it writes
	# the new patch directory beside the old one: an export that does not
	# remove what a killed one left cannot start again.  (Random moments
	# over the whole run can all miss the windows that need a cleanup;
	# with export's 60 ms, four kills on a busy machine sometimes did: 12
	# make a miss of all of them unlikely.)
	WF_TEST_NO_RECOVERY=1 run "$TOOLS/faults.sh" -a -s 3 -k 12 export
	echo "$output"
	[ "$status" -eq 1 ]
	grep -qE '^export +\| [0-9]+ +\| ' <<<"$output"

	log=$WF_CACHE/branches/6.1/faults/log.txt
	cat "$log"
	grep -qE $'^export\t[0-9]+\tstart\\+[0-9]+ ms\tSIG[A-Z]+\tFAILED' "$log"
	# The recovered column counts the runs that did not fail.
	row=$(grep -E '^export +\|' <<<"$output" | tr -d ' ')
	kills=$(cut -d'|' -f2 <<<"$row")
	failed=$(grep -cE $'^export\t[0-9]+\t[^\t]+\tSIG[A-Z]+\tFAILED' "$log")
	[ "$failed" -gt 0 ]
	[ "$(cut -d'|' -f3 <<<"$row")" = "$((kills - failed))/$kills" ]
	[[ ${lines[-1]} == "faults: a command did not recover from every kill: see $WF_CACHE/branches/6.1/faults/log.txt" ]]
}

@test "faults: a row whose kills all landed but did not recover is short" {
	# (above, after the first kill the runs that cannot start again end
	# before any signal: that row is short by its kills too).  One kill:
	# whether it leaves export something to clean up depends on when it
	# lands, so seeds are tried until one does.
	local seed found=''
	for seed in 3 4 5 6 7 8; do
		WF_TEST_NO_RECOVERY=1 run "$TOOLS/faults.sh" -a -s "$seed" -k 1 export
		echo "seed $seed: $output"
		grep -qE '^export +\| 1 +\| 0/1 +\| 0/1$' <<<"$output" || continue
		[ "$status" -eq 1 ]
		[[ ${lines[-1]} == "faults: a command did not recover from every kill: see $WF_CACHE/branches/6.1/faults/log.txt" ]]
		found=$seed
		break
	done
	[ -n "$found" ]
}

@test "faults: -a aims the kills at each phase of the command's run marker" {
	run "$TOOLS/faults.sh" -a -s 5 -k 6 rebuild
	echo "$output"
	[ "$status" -eq 0 ]
	# The reference run's phases, as rebuild notes them, in order.
	[[ $output == *"rebuild: reference run "*" ms; 6 kill(s), aimed at start ("*" ms) apply ("*" ms) finish ("*" ms) "* ]]
	grep -qE '^rebuild +\| 6 +\| 6/6 +\| 6/6' <<<"$output"
	# Kill i in phase i mod 3: two in each.
	log=$WF_CACHE/branches/6.1/faults/log.txt
	cat "$log"
	for p in start apply finish; do
		[ "$(grep -cE $'^rebuild\t[0-9]+\t'"$p"$'\\+[0-9]+ ms\t' "$log")" -eq 2 ]
	done
}

@test "faults: full-disk: validate and stress on a tmpfs that fills up are named infrastructure errors, kept nowhere" {
	eval "$("$REPO_ROOT/tests/faults-fixture.sh" "$BATS_TEST_TMPDIR/fx")"
	export FAULTS_FULL_DISK_SIZE=16k FAULTS_FULL_DISK_STRESS_SIZE=1536k FAULTS_FULL_DISK_CACHE_SIZE=16k
	require TMPFS
	FIXTURE_STRESS_DELAY=0.05 CHECKS=boot,qemu run "$TOOLS/faults.sh" -n full-disk
	echo "$output"
	[ "$status" -eq 0 ]
	grep -qE '^validate +\| 16k +\| 3 +\| [1-9][0-9]* result\(s\) named +\| identical$' <<<"$output"
	grep -qE '^stress +\| 1536k +\| 2 +\| named +\| identical$' <<<"$output"
	grep -qE '^validate, whole cache +\| 16k free +\| 3 +\| [1-9][0-9]* result\(s\) named +\| identical$' <<<"$output"
	[[ $output != *"command | kills"* ]]
	# What each said, in one line, and no tmpfs left behind.
	dir=$WF_CACHE/branches/6.1/faults/full-disk
	grep -qE "^validate: infrastructure error: [0-9a-f]{12} boot: no space left on device in $WF_CACHE/branches/6.1/validate/build/boot$" "$dir/validate/full.err"
	grep -qx "stress: infrastructure error: no space left on device in $WF_CACHE/branches/6.1/faults/stress-out" "$dir/stress/full.err"
	grep -qE "^validate: infrastructure error: [0-9a-f]{12} [a-z-]+: no space left on device in $dir/validate-cache/cache/branches/6.1/" "$dir/validate-cache/full.err"
	# (its own: a make faults of the user's may be running)
	[ -z "$(grep "^faults-full-disk $BATS_TEST_TMPDIR/" /proc/mounts || true)" ]
	# A validate that calls a full disk a failed build, and a stress
	# that does not look at the disk: both rows short, the run fails.
	mkdir "$BATS_TEST_TMPDIR/wf"
	cp -a "$REPO_ROOT/tools" "$REPO_ROOT/runner" "$REPO_ROOT/checks" "$REPO_ROOT/configs" "$REPO_ROOT/qemu-boot" \
		"$BATS_TEST_TMPDIR/wf/"
	# (the two bugs are mutants of their own; here they show that the
	# row notices them)
	for m in validate-full-disk-failed stress-full-disk-unchecked; do
		git -C "$BATS_TEST_TMPDIR/wf" apply "$REPO_ROOT/tests/mutants/$m.patch"
	done
	FIXTURE_STRESS_DELAY=0.05 CHECKS=boot,qemu run "$BATS_TEST_TMPDIR/wf/tools/faults.sh" -n full-disk
	echo "$output"
	[ "$status" -eq 1 ]
	grep -qE '^validate +\| 16k +\| 1 +\| NOT AN INFRASTRUCTURE ERROR: exit 1, not 3 ' <<<"$output"
	grep -qE '^stress +\| 1536k +\| [0-9]+ +\| NOT AN INFRASTRUCTURE ERROR: ' <<<"$output"
	grep -qE '^validate, whole cache +\| 16k free +\| [0-9]+ +\| NOT AN INFRASTRUCTURE ERROR: ' <<<"$output"
	[[ ${lines[-1]} == "faults: a full disk was not named as an infrastructure error, or the run after it differed: see $WF_CACHE/branches/6.1/faults/full-disk" ]]
	run ! grep -q "^faults-full-disk $BATS_TEST_TMPDIR/" /proc/mounts
}

@test "faults: a second run on the same cache is refused and changes nothing" {
	run "$TOOLS/faults.sh" -n -k 1 base
	[ "$status" -eq 0 ]
	faults=$WF_CACHE/branches/6.1/faults
	cp -a "$faults" "$BATS_TEST_TMPDIR/before"
	flock "$WF_CACHE/branches/6.1/faults.lock" sleep 30 &
	holder=$!
	for _ in $(seq 50); do
		flock -n "$WF_CACHE/branches/6.1/faults.lock" true || break
		sleep 0.1
	done
	run "$TOOLS/faults.sh" -n -k 1 base
	kill "$holder"
	wait "$holder" || true
	echo "$output"
	[ "$status" -eq 1 ]
	[ "$output" = "faults: error: another faults is running on $WF_CACHE/branches/6.1 (lock: $WF_CACHE/branches/6.1/faults.lock)" ]
	diff -r "$BATS_TEST_TMPDIR/before" "$faults"
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
	[ ! -e "$XDG_CACHE_HOME/sysctl-wf-faults/branches/6.1/faults/base/warm-up.out" ]
}
