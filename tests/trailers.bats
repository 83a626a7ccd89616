#!/usr/bin/env bats
# Tests of tools/trailers.sh (make trailers): the trailers of review
# replies to a sent revision back into the branch, on a fixture mbox.

load test_helper

setup() {
	setup_kernel_fixture
	make_kernel_series
	pass_validation
	"$TOOLS/submit.sh" >/dev/null
	"$TOOLS/record-sent.sh" >/dev/null
	# The replies: to the cover letter, to patch 3, to patch 5.
	local sent=$WF_TOP/cover-letters/6.1/sent/v1 ids
	mapfile -t ids < <(sed -n 's/^Message-Id: //Ip' "$sent/patches.mbox")
	REPLIES=$BATS_TEST_TMPDIR/replies.mbox
	sed -e "s/@COVER@/$(sed -n 's/^message-id: //p' "$sent/record")/g" \
		-e "s/@P3@/${ids[2]}/g" -e "s/@P5@/${ids[4]}/g" \
		"$REPO_ROOT/tests/fixtures/trailers/replies.mbox" >"$REPLIES"
}

# msg N: the message of commit N of the branch.
msg() {
	git -C "$WF_REPO" log -1 --format=%B "$(git -C "$WF_REPO" rev-list --reverse base/6.1.99-1..fixture-topic | sed -n "$1p")"
}

@test "trailers: cover reply to every patch, patch reply to its patch, a changed patch reported; exported" {
	# Patch 5's code changes after v1 was sent.
	printf '/* one */\nint one = 11;\n/* two */\nint two;\n/* three */\nint three;\n' >"$WF_REPO/kernel/sysctl.c"
	git -C "$WF_REPO" add -f kernel/sysctl.c
	dev_git commit -q --amend --no-edit
	"$TOOLS/export.sh"
	before=$(git -C "$WF_REPO" rev-parse fixture-topic)
	# Shown, then not applied without a yes.
	run "$TOOLS/trailers.sh" -m "$REPLIES" </dev/null
	echo "$output"
	[ "$status" -eq 1 ]
	[[ $output == *"+ v1 patch 1/5 (reply to the cover letter) Reviewed-by: Rita Reviewer <rita@fixture.home.arpa> -> 1/5 sysctl: Add the sysctl(2) entry point"* ]]
	[[ $output == *"+ v1 patch 3/5                 Tested-by: Tess Tester <tess@fixture.home.arpa> -> 3/5 selftests/sysctl: Add a sysctl(2) test"* ]]
	[[ $output == *"! v1 patch 3/5                 Acked-by: Someone Else <else@fixture.home.arpa>: not applied: the reply is from Tess Tester <tess@fixture.home.arpa>"* ]]
	[[ $output == *"! v1 patch 5/5                 Acked-by: Andy Acker <andy@fixture.home.arpa>: not applied: the patch changed since v1"* ]]
	[[ $output == *"! v1 patch 5/5 (reply to the cover letter) Reviewed-by: Rita Reviewer <rita@fixture.home.arpa>: not applied: the patch changed since v1"* ]]
	[[ $output == *"trailers: error: not applied (5 trailer(s)): answer y, or YES=1"* ]]
	[[ $output != *Quoted* && $output != *"Other List"* ]]
	[ "$(git -C "$WF_REPO" rev-parse fixture-topic)" = "$before" ]
	# Applied on confirmation, through make.
	run make -s -C "$REPO_ROOT" trailers MBOX="$REPLIES" YES=1
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"trailers: added 5 trailer(s) to fixture-topic (3 reported, not applied)"* ]]
	for n in 1 2 3 4; do
		msg "$n" | grep -qx 'Reviewed-by: Rita Reviewer <rita@fixture.home.arpa>'
	done
	msg 3 | grep -qx 'Tested-by: Tess Tester <tess@fixture.home.arpa>'
	run msg 5
	[[ $output != *Rita* && $output != *Andy* ]]
	run msg 3
	[[ $output != *Quoted* && $output != *"Someone Else"* ]]
	# Same trees, authors and author dates; patches/ exported.
	diff <(git -C "$WF_REPO" log --format='%T %an %ad' "$before") <(git -C "$WF_REPO" log --format='%T %an %ad' fixture-topic)
	grep -qx 'Reviewed-by: Rita Reviewer <rita@fixture.home.arpa>' "$WF_TOP"/patches/0001-*.patch
	grep -qx 'Tested-by: Tess Tester <tess@fixture.home.arpa>' "$WF_TOP"/patches/0003-*.patch
	[ "$(git -C "$WF_REPO" rev-parse refs/wf/exported)" = "$(git -C "$WF_REPO" rev-parse fixture-topic)" ]
	# Twice: nothing new.
	run "$TOOLS/trailers.sh" -m "$REPLIES" -y
	[ "$status" -eq 0 ]
	[[ $output == *"trailers: nothing to apply (3 trailer(s) reported)"* ]]
}

@test "trailers: a trailer in a reply to a reply goes to the patch of that sub-thread, not to every patch" {
	local sent=$WF_TOP/cover-letters/6.1/sent/v1 cover p3
	cover=$(sed -n 's/^message-id: //p' "$sent/record")
	p3=$(sed -n 's/^Message-Id: //Ip' "$sent/patches.mbox" | sed -n 3p)
	# Ray answers Tess's reply to patch 3: the thread's root is the cover.
	cat >"$BATS_TEST_TMPDIR/reply.mbox" <<-EOF
	From ray@fixture.home.arpa Thu Dec  3 13:00:00 2026
	From: Ray Replier <ray@fixture.home.arpa>
	To: Tess Tester <tess@fixture.home.arpa>
	Subject: Re: [PATCH 3/5] selftests/sysctl: Add a sysctl(2) test
	Date: Thu, 3 Dec 2026 13:00:00 +0000
	Message-Id: <reply-reply-p3@fixture.home.arpa>
	In-Reply-To: <reply-p3@fixture.home.arpa>
	References: $cover $p3 <reply-p3@fixture.home.arpa>
	MIME-Version: 1.0
	Content-Type: text/plain; charset=utf-8

	Same result here.

	Reviewed-by: Ray Replier <ray@fixture.home.arpa>
	EOF
	run "$TOOLS/trailers.sh" -m "$BATS_TEST_TMPDIR/reply.mbox" -y
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"trailers: added 1 trailer(s) to fixture-topic"* ]]
	msg 3 | grep -qx 'Reviewed-by: Ray Replier <ray@fixture.home.arpa>'
	for n in 1 2 4 5; do
		run msg "$n"
		[[ $output != *Ray* ]]
	done
}

@test "trailers: bad input is named in one line and changes nothing" {
	before=$(git -C "$WF_REPO" rev-parse fixture-topic)
	run "$TOOLS/trailers.sh"
	[ "$status" -eq 2 ]
	[ "$output" = "trailers: error: no mailbox: MBOX=file names the replies to a sent revision" ]
	run "$TOOLS/trailers.sh" -m "$BATS_TEST_TMPDIR/none.mbox"
	[ "$status" -eq 2 ]
	[ "$output" = "trailers: error: mailbox $BATS_TEST_TMPDIR/none.mbox not found" ]
	sed -n '/^From other@/,$p' "$REPLIES" >"$BATS_TEST_TMPDIR/unrelated.mbox"
	run "$TOOLS/trailers.sh" -m "$BATS_TEST_TMPDIR/unrelated.mbox" -y
	[ "$status" -eq 1 ]
	[ "$output" = "trailers: error: no Reviewed-by/Acked-by/Tested-by in $BATS_TEST_TMPDIR/unrelated.mbox in reply to a revision recorded in cover-letters/6.1/sent/" ]
	commit_in_repo kernel/new.c 'int new;\n' "sysctl: Not exported"
	run "$TOOLS/trailers.sh" -m "$REPLIES" -y
	[ "$status" -eq 1 ]
	[ "$output" = "trailers: error: branch fixture-topic has changes not exported to patches/ (run 'make export' first)" ]
	[ "$(git -C "$WF_REPO" rev-parse fixture-topic^)" = "$before" ]
}
