#!/usr/bin/env bats
# Crash safety: each recovery path of rebuild, base, export, other-base,
# bisect, submit, send, trailers and stress, on the state a killed run leaves (a
# marker, a half-made worktree, half-sent mail), and stress on a full
# disk.  dev/faults.sh, which kills the commands at random moments, is
# faults.bats's.

load test_helper
bats_require_minimum_version 1.5.0


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
	submit:* | send:* | trailers:*)
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

# received_ids: the Message-Id of each message the server received.
received_ids() {
	[[ -e $MBOX ]] || return 0
	sed -n 's/^Message-Id: //Ip' "$MBOX"
}

# written_ids [FIRST]: the Message-Ids of the written v1, from message
# FIRST (0-based) on (of its copy in the cache when out/ is gone).
written_ids() {
	local f d=$WF_TOP/out/6.1/submit/v1
	[[ -d $d ]] || d=$BATS_TEST_TMPDIR/v1
	for f in "$d"/*.eml; do
		sed -n 's/^Message-Id: //Ip' "$f"
	done | tail -n +"$((${1:-0} + 1))"
}

# half_sent N STATE: the state a send killed while sending message N
# (0-based) of v1 leaves: its copy of out/6.1/submit/v1 in the cache, N
# messages sent, message N on its way, its SMTP dialogue in send.log
# ending as STATE says: "connected" (before the data), "dot" (the final
# dot written, no answer).
half_sent() {
	local n=$1 state=$2 i=0 f dir=$WF_CACHE/branches/6.1/sending/v1
	rm -rf "$dir"
	mkdir -p "${dir%/*}"
	cp -r "$WF_TOP/out/6.1/submit/v1" "$dir"
	cp -r "$WF_TOP/out/6.1/submit/v1" "$BATS_TEST_TMPDIR/v1"
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

@test "rebuild: a killed run that left nothing half-done is said so in one line" {
	tip=$(git -C "$WF_REPO" rev-parse fixture-topic)
	mark_killed_run rebuild
	run "$TOOLS/rebuild.sh"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"rebuild: cleaning up an interrupted run (pid 4242, started 2026-01-01 00:00:00): nothing was left half-done"* ]]
	[ ! -e "$WF_CACHE/branches/6.1/rebuild.run" ]
	[ "$(git -C "$WF_REPO" rev-parse fixture-topic)" = "$tip" ]
	# Said once: the next run has nothing to say.
	run "$TOOLS/rebuild.sh"
	[ "$status" -eq 0 ]
	[[ $output != *"interrupted run"* ]]
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
	run "$TOOLS/send.sh" -R -s 127.0.0.1:25
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
	half_sent 2 connected
	rm "$WF_CACHE/branches/6.1/send.run"
	before=$(cat "$WF_TOP"/out/6.1/submit/v1/*.eml | sha256sum)
	run "$TOOLS/submit.sh"
	echo "$output"
	[ "$status" -eq 1 ]
	[ "${lines[-1]}" = "submit: error: v1 is being sent (pid 4242, started 2026-01-01 00:00:00): finish sending it with 'make send' before writing it again" ]
	[ "$(cat "$WF_TOP"/out/6.1/submit/v1/*.eml | sha256sum)" = "$before" ]
}

# use_test_server: start_smtp, named as the user's own server
# (sendemail.*): a real send goes there.
use_test_server() {
	start_smtp
	git config --global sendemail.smtpServer 127.0.0.1
	git config --global sendemail.smtpServerPort "$SMTP_PORT"
}

@test "send: a half-sent revision is finished after make clean, without duplicates, and recorded once complete" {
	"$TOOLS/submit.sh" >/dev/null 2>&1
	use_test_server
	# Killed while sending message 2, before its data: 0 and 1 arrived;
	# its scratch directory is there.  Then make clean.
	half_sent 2 connected
	mkdir -p "$WF_CACHE/branches/6.1/send-tmp"
	echo half >"$WF_CACHE/branches/6.1/send-tmp/patches.mbox"
	[ -n "$WF_TOP" ]
	make -s -C "$REPO_ROOT" clean
	[ ! -e "$WF_TOP/out" ]
	run "$TOOLS/send.sh"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"send: cleaning up an interrupted run (pid 4242, started 2026-01-01 00:00:00): removed its scratch directory send-tmp; v1 was half-sent: 2 message(s) sent already, 0002-"*".eml did not arrive; sending the rest"* ]]
	[[ $output == *"send: sent 4 message(s) of v1 to 127.0.0.1:$SMTP_PORT (no encryption) (their To/Cc)"* ]]
	diff <(written_ids 2) <(received_ids)
	[ -f "$WF_TOP/cover-letters/6.1/sent/v1/record" ]
	[ ! -e "$WF_CACHE/branches/6.1/sending/v1" ] && [ ! -e "$WF_CACHE/branches/6.1/send.run" ]
	[ ! -e "$WF_CACHE/branches/6.1/send-tmp" ]
}

@test "send: a message that may have reached the server is not sent again unless ARRIVED=no says so" {
	"$TOOLS/submit.sh" >/dev/null 2>&1
	use_test_server
	# Killed after the final dot of message 3, before the server's answer.
	half_sent 3 dot
	m3=$(basename "$WF_TOP"/out/6.1/submit/v1/0003-*.eml)
	run "$TOOLS/send.sh"
	echo "$output"
	[ "$status" -eq 1 ]
	[ "${lines[-1]}" = "send: error: an interrupted send of v1 (pid 4242, started 2026-01-01 00:00:00) was stopped while the server was taking $m3: check whether it arrived, then run 'make send ARRIVED=yes' if it did, 'ARRIVED=no' to send it again" ]
	[ -z "$(received_ids)" ]
	[ ! -e "$WF_TOP/cover-letters/6.1/sent/v1" ]
	run make -s -C "$REPO_ROOT" send ARRIVED=maybe
	[ "$status" -ne 0 ]
	[[ $output == "send: error: ARRIVED='maybe' is neither yes nor no"* ]]
	# It arrived: the rest only.
	run make -s -C "$REPO_ROOT" send ARRIVED=yes
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"v1 was half-sent: 4 message(s) sent already, $m3 arrived; sending the rest"* ]]
	diff <(written_ids 4) <(received_ids)
	[ -f "$WF_TOP/cover-letters/6.1/sent/v1/record" ]
	# It did not: sent again, then the rest.
	rm -rf "$WF_TOP/cover-letters/6.1/sent" "$MBOX"
	half_sent 3 dot
	run "$TOOLS/send.sh" -A no
	echo "$output"
	[ "$status" -eq 0 ]
	diff <(written_ids 3) <(received_ids)
}

@test "send: killed after recording, the next run sends nothing and says so" {
	"$TOOLS/submit.sh" >/dev/null 2>&1
	use_test_server
	"$TOOLS/send.sh" -y 2>/dev/null
	rm "$MBOX"
	# Killed after the record, before removing its copy; and a
	# half-written record of another run.
	half_sent 5 dot
	mkdir -p "$WF_TOP/cover-letters/6.1/sent/.v1.tmp"
	run "$TOOLS/send.sh"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "send: cleaning up an interrupted run (pid 4242, started 2026-01-01 00:00:00): removed the half-written record cover-letters/6.1/sent/.v1.tmp; v1 was sent and recorded in cover-letters/6.1/sent/v1; removed its copy sending/v1" ]
	[ -z "$(received_ids)" ]
	run "$TOOLS/send.sh" -y
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

# sent_with_replies: v1 written and recorded as sent; REPLIES, an mbox of
# replies to it (tests/fixtures/trailers, as trailers.bats uses it).
sent_with_replies() {
	local sent=$WF_TOP/cover-letters/6.1/sent/v1 ids
	"$TOOLS/submit.sh" >/dev/null 2>&1
	"$TOOLS/record-sent.sh" >/dev/null 2>&1
	mapfile -t ids < <(sed -n 's/^Message-Id: //Ip' "$sent/patches.mbox")
	REPLIES=$BATS_TEST_TMPDIR/replies.mbox
	sed -e "s/@COVER@/$(sed -n 's/^message-id: //p' "$sent/record")/g" \
		-e "s/@P3@/${ids[2]}/g" -e "s/@P5@/${ids[4]}/g" \
		"$REPO_ROOT/tests/fixtures/trailers/replies.mbox" >"$REPLIES"
}

@test "trailers: killed after moving the branch, before the export, the next run exports; killed before, it applies again" {
	sent_with_replies
	before=$(git -C "$WF_REPO" rev-parse fixture-topic)
	cp -r "$WF_TOP/patches" "$BATS_TEST_TMPDIR/patches.before"
	# An uninterrupted run: the reference.
	run "$TOOLS/trailers.sh" -m "$REPLIES" -y
	[ "$status" -eq 0 ]
	after=$(git -C "$WF_REPO" rev-parse fixture-topic)
	[ "$after" != "$before" ]
	cp -r "$WF_TOP/patches" "$BATS_TEST_TMPDIR/patches.after"
	# Back to before, then what a kill between the update-ref and the
	# export leaves: the branch moved, patches/ and refs/wf/exported not.
	git -C "$WF_REPO" update-ref refs/heads/fixture-topic "$before"
	git -C "$WF_REPO" update-ref refs/wf/exported "$before"
	rm -rf "$WF_TOP/patches" && cp -r "$BATS_TEST_TMPDIR/patches.before" "$WF_TOP/patches"
	git -C "$WF_REPO" update-ref refs/heads/fixture-topic "$after"
	mark_killed_run trailers phase=export "new=$after"
	run "$TOOLS/trailers.sh" -m "$REPLIES" -y
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(grep -c 'cleaning up' <<<"$output")" -eq 1 ]
	[[ ${lines[0]} == "trailers: cleaning up an interrupted run (pid 4242, started 2026-01-01 00:00:00): exporting the trailers it had added to fixture-topic" ]]
	[[ ${lines[-1]} == "trailers: nothing to apply (1 trailer(s) reported)" ]]
	[ "$(git -C "$WF_REPO" rev-parse fixture-topic)" = "$after" ]
	[ "$(git -C "$WF_REPO" rev-parse refs/wf/exported)" = "$after" ]
	diff -r "$BATS_TEST_TMPDIR/patches.after" "$WF_TOP/patches"
	[ ! -e "$WF_CACHE/branches/6.1/trailers.run" ]
	# Killed before the branch moved: the commits it made are unreachable;
	# the next run applies the trailers, to the same commits.
	git -C "$WF_REPO" update-ref refs/heads/fixture-topic "$before"
	git -C "$WF_REPO" update-ref refs/wf/exported "$before"
	rm -rf "$WF_TOP/patches" && cp -r "$BATS_TEST_TMPDIR/patches.before" "$WF_TOP/patches"
	mark_killed_run trailers phase=update "new=$after"
	run "$TOOLS/trailers.sh" -m "$REPLIES" -y
	echo "$output"
	[ "$status" -eq 0 ]
	[[ ${lines[0]} == "trailers: cleaning up an interrupted run (pid 4242, started 2026-01-01 00:00:00): nothing was left half-done" ]]
	[ "$(git -C "$WF_REPO" rev-parse fixture-topic)" = "$after" ]
	diff -r "$BATS_TEST_TMPDIR/patches.after" "$WF_TOP/patches"
	[ ! -e "$WF_CACHE/branches/6.1/trailers.run" ]
	# Killed inside the update-ref: git's lock on the branch is left, and
	# the next run's update-ref would fail on it (seen under make faults).
	git -C "$WF_REPO" update-ref refs/heads/fixture-topic "$before"
	git -C "$WF_REPO" update-ref refs/wf/exported "$before"
	rm -rf "$WF_TOP/patches" && cp -r "$BATS_TEST_TMPDIR/patches.before" "$WF_TOP/patches"
	lock=$(git -C "$WF_REPO" rev-parse --path-format=absolute --git-common-dir)/refs/heads/fixture-topic.lock
	echo "$after" >"$lock"
	# With the branch checked out, update-ref locks HEAD too (its reflog).
	[ "$(git -C "$WF_REPO" symbolic-ref HEAD)" = refs/heads/fixture-topic ]
	head_lock=$(git -C "$WF_REPO" rev-parse --path-format=absolute --git-dir)/HEAD.lock
	echo "ref: refs/heads/fixture-topic" >"$head_lock"
	mark_killed_run trailers phase=update "new=$after"
	run "$TOOLS/trailers.sh" -m "$REPLIES" -y
	echo "$output"
	[ "$status" -eq 0 ]
	[[ ${lines[0]} == "trailers: cleaning up an interrupted run (pid 4242, started 2026-01-01 00:00:00): removed the stale lock "*"refs/heads/fixture-topic.lock"* ]]
	[[ ${lines[0]} == *"removed the stale lock "*"/HEAD.lock"* ]]
	[ ! -e "$lock" ]
	[ ! -e "$head_lock" ]
	[ "$(git -C "$WF_REPO" rev-parse fixture-topic)" = "$after" ]
	diff -r "$BATS_TEST_TMPDIR/patches.after" "$WF_TOP/patches"
}

@test "trailers: refuses while another run holds its lock, and changes nothing" {
	sent_with_replies
	before=$(git -C "$WF_REPO" rev-parse fixture-topic)
	hold_lock "$WF_CACHE/branches/6.1/trailers.lock"
	run "$TOOLS/trailers.sh" -m "$REPLIES" -y
	release_lock
	refused_by_lock trailers "$WF_CACHE/branches/6.1/trailers.lock"
	[ "$(git -C "$WF_REPO" rev-parse fixture-topic)" = "$before" ]
	[ ! -e "$WF_CACHE/branches/6.1/trailers.run" ]
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
	[ "$status" -eq 3 ]
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
	[ "$status" -eq 3 ]
	[ "${lines[-1]}" = "stress: infrastructure error: no space left on device in $TMPFS/out" ]
	[ ! -e "$TMPFS/out/summary.txt" ]
}
