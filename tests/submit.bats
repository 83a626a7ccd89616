#!/usr/bin/env bats
# Tests of tools/submit.sh (b4 prep / b4 send -o) on a fixture kernel tree.

load test_helper

setup() {
	setup_kernel_fixture
	make_kernel_series
}

@test "submit: v1 is a threaded cover + 5 patches, per-patch Cc, base-commit and change-id" {
	run "$TOOLS/submit.sh"
	echo "$output"
	[ "$status" -eq 0 ]
	dir=$WF_TOP/out/submit/v1
	[ "$(ls "$dir"/*.eml | wc -l)" -eq 6 ]
	[[ $output == *"[PATCH 0/5] sysctl: Bring back sysctl(2) as a compatibility wrapper"* ]]
	[[ $output == *"[PATCH 5/5] sysctl: Initialise one"* ]]
	cover=$(ls "$dir"/0000-*.eml)
	base=$(git -C "$WF_REPO" rev-parse 'refs/tags/base/6.1.99-1^{commit}')
	grep -qx "base-commit: $base" "$cover"
	grep -q '^change-id: [0-9]*-fixture-topic-' "$cover"
	msgid=$(sed -n 's/^Message-Id: //p' "$cover")
	for f in "$dir"/000[1-5]-*.eml; do
		grep -qx "In-Reply-To: $msgid" "$f"
		grep -qx 'From: Sam Sender <sam@example.org>' "$f"
		grep -qx 'From: A Developer <dev@example.org>' "$f"
	done
	# Each patch goes to its own maintainers: x86 for patch 2, not docs.
	p2=$(ls "$dir"/0002-*.eml)
	sed -n '1,/^$/p' "$p2" | grep -q 'x86@example.org'
	headers=$(sed -n '1,/^$/p' "$p2")
	[[ $headers != *docs@example.org* ]]
	# The cover goes to everyone.
	sed -n '1,/^$/p' "$cover" | grep -q 'docs@example.org'
	sed -n '1,/^$/p' "$cover" | grep -q 'x86@example.org'
	# Round trip, checked by the script and again here.
	[[ $output == *"round trip: git am of 5 patch(es) onto base/6.1.99-1 gives tree $(git -C "$WF_REPO" rev-parse 'fixture-topic^{tree}') = tree of fixture-topic: ok"* ]]
	am=$BATS_TEST_TMPDIR/am
	git clone -q "$WF_REPO" "$am"
	git -C "$am" checkout -q --detach refs/tags/base/6.1.99-1
	git -C "$am" am -q "$dir"/000[1-5]-*.eml
	[ "$(git -C "$am" rev-parse 'HEAD^{tree}')" = "$(git -C "$WF_REPO" rev-parse 'fixture-topic^{tree}')" ]
	[ "$(git -C "$am" log -1 --format='%an <%ae>')" = "A Developer <dev@example.org>" ]
	git -C "$am" log -1 --format=%B | tail -n 2 | grep -qx 'Signed-off-by: Sam Sender <sam@example.org>'
	# The developer's work tree was not touched; patches/ neither.
	[ "$(git -C "$WF_REPO" symbolic-ref HEAD)" = refs/heads/fixture-topic ]
	run grep -l 'Sam Sender' "$WF_TOP"/patches/*.patch
	[ "$status" -eq 1 ]
}

@test "submit: v2 after a change: revision up, changelog, range-diff" {
	"$TOOLS/submit.sh"
	v1=$(sed -n 's/^Message-Id: <\(.*\)>$/\1/p' "$WF_TOP"/out/submit/v1/0000-*.eml)
	# Unchanged: the same revision again.
	run "$TOOLS/submit.sh"
	[ "$status" -eq 0 ]
	[[ $output == *"unchanged since v1: writing v1 again"* ]]
	[ ! -e "$WF_TOP/out/submit/v2" ]
	v1=$(sed -n 's/^Message-Id: <\(.*\)>$/\1/p' "$WF_TOP"/out/submit/v1/0000-*.eml)
	commit_in_repo kernel/sysctl.c '/* one */\nint one = 1;\n/* two */\nint two = 2;\n/* three */\nint three;\n' "sysctl: Initialise two"
	"$TOOLS/export.sh"
	run "$TOOLS/submit.sh"
	echo "$output"
	[ "$status" -eq 0 ]
	dir=$WF_TOP/out/submit/v2
	[[ $output == *"[PATCH v2 0/6] sysctl: Bring back"* ]]
	[[ $output == *"[PATCH v2 6/6] sysctl: Initialise two"* ]]
	cover=$(ls "$dir"/0000-*.eml)
	grep -qx 'Changes in v2:' "$cover"
	grep -qx -- '- New: sysctl: Initialise two' "$cover"
	grep -qx -- "- Link to v1: https://lore.kernel.org/r/$v1" "$cover"
	grep -q '^change-id: ' "$cover"
	[ "$(grep '^change-id: ' "$cover")" = "$(grep '^change-id: ' "$WF_TOP"/out/submit/v1/0000-*.eml)" ]
	grep -qE '^-: +-+ > 6: +[0-9a-f]+ sysctl: Initialise two$' "$dir/range-diff-v1-v2.txt"
	grep -qE '^1: +[0-9a-f]+ = 1: +[0-9a-f]+ sysctl: Add the sysctl\(2\) entry point$' "$dir/range-diff-v1-v2.txt"
	[[ $output == *"range-diff against v1: out/submit/v2/range-diff-v1-v2.txt"* ]]
	# An explicit revision.
	run "$TOOLS/submit.sh" -r 5 -o "$BATS_TEST_TMPDIR/v5"
	[ "$status" -eq 0 ]
	[[ $output == *"[PATCH v5 0/6]"* ]]
	[ -e "$BATS_TEST_TMPDIR/v5/range-diff-v2-v5.txt" ]
}

@test "submit: bad input is named and leaves the written revision alone" {
	"$TOOLS/submit.sh"
	cp -r "$WF_TOP/out/submit/v1" "$BATS_TEST_TMPDIR/before"
	run "$TOOLS/submit.sh" -r zero
	[ "$status" -eq 1 ]
	[[ $output == *"revision 'zero' is not a positive number"* ]]
	printf 'No blank line after the subject\nbody\n' >"$BATS_TEST_TMPDIR/bad-cover.txt"
	run "$TOOLS/submit.sh" -c "$BATS_TEST_TMPDIR/bad-cover.txt" -r 1
	[ "$status" -eq 1 ]
	[[ $output == *"bad-cover.txt: expected a subject line, a blank line, then the body"* ]]
	printf 'Subject\n\nEDITME: body\n' >"$WF_TOP/cover-letters/v1.txt"
	run "$TOOLS/submit.sh" -r 1
	[ "$status" -eq 1 ]
	[[ $output == *"cover-letters/v1.txt still has EDITME in it"* ]]
	rm "$WF_TOP/cover-letters/v1.txt"
	run "$TOOLS/submit.sh" -r 1
	[ "$status" -eq 1 ]
	[[ $output == *"no cover letter for v1: write cover-letters/v1.txt"* ]]
	diff -r "$BATS_TEST_TMPDIR/before" "$WF_TOP/out/submit/v1"
	# Unexported commits are refused: patches/ are what gets submitted.
	commit_in_repo kernel/new.c 'int new;\n' "sysctl: Not exported"
	run "$TOOLS/submit.sh"
	[ "$status" -eq 1 ]
	[[ $output == *"branch fixture-topic has changes not exported to patches/"* ]]
}
