#!/usr/bin/env bats
# Tests of tools/submit.sh (b4 prep / b4 send -o) on a fixture kernel tree.

load test_helper

setup() {
	setup_kernel_fixture
	make_kernel_series
	pass_validation
}

# use_checkout DIR CACHE: the rest of the test runs on the checkout DIR
# with the cache CACHE (a function, like setup_fixture: shellcheck takes
# an export in a test for one a later test would lose).
use_checkout() {
	export WF_TOP=$1 WF_CACHE=$2
	export WF_REPO=$WF_CACHE/branches/6.1/linux
}

@test "submit: v1 is a threaded cover + 5 patches, per-patch Cc, the package base and change-id" {
	run "$TOOLS/submit.sh"
	echo "$output"
	[ "$status" -eq 0 ]
	dir=$WF_TOP/out/6.1/submit/v1
	[ "$(find "$dir" -maxdepth 1 -name '*.eml' | wc -l)" -eq 6 ]
	[[ $output == *"[PATCH 0/5] sysctl: Bring back sysctl(2) as a compatibility wrapper"* ]]
	[[ $output == *"[PATCH 5/5] sysctl: Initialise one"* ]]
	cover=$(ls "$dir"/0000-*.eml)
	# The base is the Debian package: the import commit is in no public
	# tree, so no message names it as a base-commit.
	grep -qx "base: linux-source-6.1 6.1.99-1 (Debian), Linux 6.1.99" "$cover"
	if grep -q '^base-commit:' "$dir"/*.eml; then false; fi
	grep -q '^change-id: [0-9]*-fixture-topic-' "$cover"
	msgid=$(sed -n 's/^Message-Id: //p' "$cover")
	for f in "$dir"/000[1-5]-*.eml; do
		grep -qx "In-Reply-To: $msgid" "$f"
		grep -qx 'From: Sam Sender <sam@fixture.home.arpa>' "$f"
		grep -qx 'From: A Developer <dev@fixture.home.arpa>' "$f"
	done
	# Each patch goes to its own maintainers: x86 for patch 2, not docs.
	p2=$(ls "$dir"/0002-*.eml)
	sed -n '1,/^$/p' "$p2" | grep -q 'x86@kernel.fixture.home.arpa'
	headers=$(sed -n '1,/^$/p' "$p2")
	[[ $headers != *docs@kernel.fixture.home.arpa* ]]
	# A maintainer found by a keyword (K:) of one patch's text gets that
	# patch alone: not patch 2, whose draft headers (b4's, the whole
	# series' addresses) hold the keyword in her list's address.
	headers=$(sed -n '1,/^$/p' "$dir"/0004-*.eml)
	[[ $headers == *keeper@kernel.fixture.home.arpa* ]]
	headers=$(sed -n '1,/^$/p' "$p2")
	[[ $headers != *keeper@kernel.fixture.home.arpa* && $headers != *sysctl_binary@lists.fixture.home.arpa* ]]
	# Patch 1 as well: its own maintainers and the people of its trailers.
	headers=$(sed -n '1,/^$/p' "$dir"/0001-*.eml)
	[[ $headers == *sysctl@kernel.fixture.home.arpa* && $headers == *dev@fixture.home.arpa* ]]
	[[ $headers != *x86@kernel.fixture.home.arpa* && $headers != *docs@kernel.fixture.home.arpa* ]]
	# The cover goes to everyone.
	sed -n '1,/^$/p' "$cover" | grep -q 'docs@kernel.fixture.home.arpa'
	sed -n '1,/^$/p' "$cover" | grep -q 'x86@kernel.fixture.home.arpa'
	# Round trip, checked by the script and again here.
	[[ $output == *"round trip: git am of 5 patch(es) onto base/6.1.99-1 gives tree $(git -C "$WF_REPO" rev-parse 'fixture-topic^{tree}') = tree of fixture-topic: ok"* ]]
	am=$BATS_TEST_TMPDIR/am
	git clone -q "$WF_REPO" "$am"
	git -C "$am" checkout -q --detach refs/tags/base/6.1.99-1
	git -C "$am" am -q "$dir"/000[1-5]-*.eml
	[ "$(git -C "$am" rev-parse 'HEAD^{tree}')" = "$(git -C "$WF_REPO" rev-parse 'fixture-topic^{tree}')" ]
	[ "$(git -C "$am" log -1 --format='%an <%ae>')" = "A Developer <dev@fixture.home.arpa>" ]
	git -C "$am" log -1 --format=%B | tail -n 2 | grep -qx 'Signed-off-by: Sam Sender <sam@fixture.home.arpa>'
	# The developer's work tree was not touched; patches/ neither.
	[ "$(git -C "$WF_REPO" symbolic-ref HEAD)" = refs/heads/fixture-topic ]
	run grep -l 'Sam Sender' "$WF_TOP"/patches/*.patch
	[ "$status" -eq 1 ]
	# The draft: the cover letter as written, the trees for the preflight.
	cmp "$WF_TOP/cover-letters/6.1/v1.txt" "$dir/cover.txt"
	grep -qx 'revision: 1' "$dir/record"
	grep -qx "trees: $(git -C "$WF_REPO" log --reverse --format=%T base/6.1.99-1..fixture-topic | paste -sd ' ')" "$dir/record"
	# Nothing is recorded as sent by writing.
	[ ! -e "$WF_TOP/cover-letters/6.1/sent" ]
}

@test "submit: a b4 work repo left on its base branch (a user looked at it) is moved off it, and the next revision is written" {
	run "$TOOLS/submit.sh"
	[ "$status" -eq 0 ]
	git -C "$WF_CACHE/branches/6.1/b4/linux" checkout -q wf-base
	rm -rf "$WF_TOP/out/6.1/submit"
	run "$TOOLS/submit.sh"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(find "$WF_TOP/out/6.1/submit/v1" -maxdepth 1 -name '*.eml' | wc -l)" -eq 6 ]
}

@test "submit: the round trip checks every patch, the first too: patch 1 without its author's Signed-off-by is refused" {
	local base
	base=$(git -C "$WF_REPO" rev-parse 'refs/tags/base/6.1.99-1^{commit}')
	# Patch 1's message without its author's sign-off (the trees as they were).
	GIT_SEQUENCE_EDITOR="sed -i '1s/^pick/reword/'" GIT_EDITOR="sed -i '/^Signed-off-by: A Developer/d'" \
		git -C "$WF_REPO" -c user.name=A -c user.email=a@example.org rebase -q -i "$base"
	msg=$(git -C "$WF_REPO" log -1 --format=%B "$(git -C "$WF_REPO" rev-list --reverse "$base..fixture-topic" | head -n 1)")
	[[ $msg != *"Signed-off-by: A Developer"* ]]
	"$TOOLS/export.sh" 2>/dev/null
	pass_validation
	run "$TOOLS/submit.sh"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ $output == *"round trip: patch 1: no Signed-off-by from its author A Developer <dev@fixture.home.arpa>"* ]]
}

@test "submit: a line before each b4 step that may take a minute says what it does" {
	run "$TOOLS/submit.sh"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"submit: b4 prep -e: enrolling fixture-topic in the b4 work repo (the first time)"* ]]
	[[ $output == *"submit: b4 prep --auto-to-cc: To/Cc of 5 patch(es) from scripts/get_maintainer.pl"* ]]
	[[ $output == *"submit: b4 send -o: writing the cover letter and 5 patch(es) as mail"* ]]
	[[ $output != *"--compare-to"* ]]
	"$TOOLS/record-sent.sh" >/dev/null 2>&1
	change_series_cover
	run "$TOOLS/submit.sh"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output != *"enrolling"* ]]
	[[ $output == *"submit: b4 prep --compare-to v1: the range-diff of v2 against v1"* ]]
}

@test "submit: a draft keeps its number until sent; v2 after v1 is recorded: changelog, range-diff" {
	"$TOOLS/submit.sh"
	# Written again, not sent: still v1.
	run "$TOOLS/submit.sh"
	[ "$status" -eq 0 ]
	[[ $output == *"v1: 6 message(s) written to out/6.1/submit/v1 (not sent: make send)"* ]]
	[ ! -e "$WF_TOP/out/6.1/submit/v2" ]
	v1=$(sed -n 's/^Message-Id: <\(.*\)>$/\1/p' "$WF_TOP"/out/6.1/submit/v1/0000-*.eml)
	# Recorded as sent (by hand): the repository now holds v1.
	run "$TOOLS/record-sent.sh"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"recorded v1 in cover-letters/6.1/sent/v1: commit it"* ]]
	sent=$WF_TOP/cover-letters/6.1/sent/v1
	grep -qx 'revision: 1' "$sent/record"
	grep -qx "message-id: <$v1>" "$sent/record"
	cmp "$WF_TOP/cover-letters/6.1/v1.txt" "$sent/cover.txt"
	[ "$(grep -c '^Subject: \[PATCH' "$sent/patches.mbox")" -eq 5 ]
	# Recording twice is refused.
	run "$TOOLS/record-sent.sh"
	[ "$status" -eq 1 ]
	[[ $output == *"v1 was sent already (cover-letters/6.1/sent/v1): make submit writes v2"* ]]
	change_series
	run "$TOOLS/submit.sh"
	echo "$output"
	[ "$status" -eq 0 ]
	dir=$WF_TOP/out/6.1/submit/v2
	[[ $output == *"[PATCH v2 0/6] sysctl: Bring back"* ]]
	[[ $output == *"[PATCH v2 6/6] sysctl: Initialise two"* ]]
	cover=$(ls "$dir"/0000-*.eml)
	grep -qx 'Changes in v2:' "$cover"
	grep -qx -- '- New: sysctl: Initialise two' "$cover"
	grep -qx -- "- Link to v1: https://lore.kernel.org/r/$v1" "$cover"
	[ "$(grep '^change-id: ' "$cover")" = "$(grep '^change-id: ' "$WF_TOP"/out/6.1/submit/v1/0000-*.eml)" ]
	grep -qE '^-: +-+ > 6: +[0-9a-f]+ sysctl: Initialise two$' "$dir/range-diff-v1-v2.txt"
	grep -qE '^1: +[0-9a-f]+ = 1: +[0-9a-f]+ sysctl: Add the sysctl\(2\) entry point$' "$dir/range-diff-v1-v2.txt"
	[[ $output == *"range-diff against v1: out/6.1/submit/v2/range-diff-v1-v2.txt"* ]]
	# An explicit revision.
	run "$TOOLS/submit.sh" -r 5 -o "$BATS_TEST_TMPDIR/v5"
	[ "$status" -eq 0 ]
	[[ $output == *"[PATCH v5 0/6]"* ]]
	[ -e "$BATS_TEST_TMPDIR/v5/range-diff-v1-v5.txt" ]
}

@test "submit: the changelog calls a patch range-diff could not pair, same subject, rewritten, not dropped and new" {
	# The lines of git range-diff v2...v3 of the real series that matter.
	cat >"$BATS_TEST_TMPDIR/rd" <<-'EOF'
	 1:  95e34a0 !  1:  81ac430 sysctl: Add the entry point
	    @@ Commit message
	 2:  61550b0 <  -:  ------- sysctl: Log each deprecated use once per name
	 3:  37cac17 <  -:  ------- sysctl: Translate the CTL_DEV names
	 -:  ------- >  2:  f9aae44 sysctl: Log each deprecated use once per name
	 -:  ------- >  3:  047b806 net: Declare netdev_get_name()
	 4:  4989751 =  4:  022bb3a MAINTAINERS: Add an entry
	EOF
	run awk -f "$TOOLS/lib/changelog.awk" "$BATS_TEST_TMPDIR/rd"
	[ "$status" -eq 0 ]
	printf '%s\n' "$output"
	[ "$output" = "- Changed: sysctl: Add the entry point
- Dropped: sysctl: Translate the CTL_DEV names
- Rewritten: sysctl: Log each deprecated use once per name
- New: net: Declare netdev_get_name()
- Unchanged: 1 patch(es)" ]
}

@test "submit: a fresh clone with an empty cache writes v2 against the recorded v1" {
	"$TOOLS/submit.sh"
	"$TOOLS/record-sent.sh"
	cid=$(grep '^change-id: ' "$WF_TOP"/out/6.1/submit/v1/0000-*.eml)
	change_series
	# The fresh clone: what the repository tracks, and nothing else.
	clone=$BATS_TEST_TMPDIR/clone
	mkdir "$clone"
	cp -r "$WF_TOP/branches.txt" "$WF_TOP/patches" "$WF_TOP/cover-letters" "$clone/"
	use_checkout "$clone" "$BATS_TEST_TMPDIR/fresh-cache"
	"$TOOLS/rebuild.sh"
	pass_validation
	run "$TOOLS/submit.sh"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"change-id ${cid#change-id: } (recorded with v1)"* ]]
	[[ $output == *"v1: tag sent/fixture-topic-v1 rebuilt from cover-letters/6.1/sent/v1"* ]]
	[[ $output == *"[PATCH v2 0/6] sysctl: Bring back"* ]]
	cover=$(ls "$clone"/out/6.1/submit/v2/0000-*.eml)
	grep -qx "$cid" "$cover"
	grep -qx -- '- New: sysctl: Initialise two' "$cover"
	grep -qx -- '- Unchanged: 5 patch(es)' "$cover"
	grep -qE '^5: +[0-9a-f]+ = 5: +[0-9a-f]+ sysctl: Initialise one$' "$clone/out/6.1/submit/v2/range-diff-v1-v2.txt"
	# A record that does not give its tree is named, and nothing is written.
	cp -r "$clone/out/6.1/submit/v2" "$BATS_TEST_TMPDIR/before"
	sed -i 's/^tip-tree: .*/tip-tree: 0123456789012345678901234567890123456789/' "$clone/cover-letters/6.1/sent/v1/record"
	run "$TOOLS/submit.sh"
	[ "$status" -eq 1 ]
	[[ $output == *"submit: error: cover-letters/6.1/sent/v1/patches.mbox gives tree "*", its record says 0123456789012345678901234567890123456789"* ]]
	diff -r "$BATS_TEST_TMPDIR/before" "$clone/out/6.1/submit/v2"
}

@test "submit: bad input is named and leaves the written revision alone" {
	"$TOOLS/submit.sh"
	cp -r "$WF_TOP/out/6.1/submit/v1" "$BATS_TEST_TMPDIR/before"
	run "$TOOLS/submit.sh" -r zero
	[ "$status" -eq 2 ]
	[[ $output == *"revision 'zero' is not a positive number"* ]]
	printf 'No blank line after the subject\nbody\n' >"$BATS_TEST_TMPDIR/bad-cover.txt"
	run "$TOOLS/submit.sh" -c "$BATS_TEST_TMPDIR/bad-cover.txt" -r 1
	[ "$status" -eq 1 ]
	[[ $output == *"bad-cover.txt: expected a subject line, a blank line, then the body"* ]]
	printf 'Subject\n\nEDITME: body\n' >"$WF_TOP/cover-letters/6.1/v1.txt"
	run "$TOOLS/submit.sh" -r 1
	[ "$status" -eq 1 ]
	[[ $output == *"preflight: error: refusing: cover: the cover letter (cover-letters/6.1/v1.txt) still has b4's placeholder EDITME: fill it in"* ]]
	rm "$WF_TOP/cover-letters/6.1/v1.txt"
	run "$TOOLS/submit.sh" -r 1
	[ "$status" -eq 1 ]
	[[ $output == *"no cover letter for v1: write cover-letters/6.1/v1.txt"* ]]
	diff -r "$BATS_TEST_TMPDIR/before" "$WF_TOP/out/6.1/submit/v1"
	# Unexported commits are refused: patches/ are what gets submitted.
	commit_in_repo kernel/new.c 'int new;\n' "sysctl: Not exported"
	run "$TOOLS/submit.sh"
	[ "$status" -eq 1 ]
	[[ $output == *"branch fixture-topic has changes not exported to patches/"* ]]
}

@test "submit: a branch other than the first says its base in the subject" {
	# The fixture branch becomes the second topic line.
	sed -i '1i topic 6.0 elsewhere linux-source-6.0 any patches-6.0' "$WF_TOP/branches.txt"
	mkdir -p "$WF_TOP/patches-6.0"
	run env WF_BRANCH=6.1 "$TOOLS/submit.sh"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"[PATCH 6.1 0/5] sysctl: Bring back sysctl(2) as a compatibility wrapper"* ]]
	[[ $output == *"[PATCH 6.1 5/5] sysctl: Initialise one"* ]]
	grep -qx 'Subject: \[PATCH 6.1 2/5\] .*' "$WF_TOP"/out/6.1/submit/v1/0002-*.eml
}

@test "submit: refuses while another submit holds its lock, and writes nothing" {
	lock=$WF_CACHE/branches/6.1/submit.lock
	hold_lock "$lock"
	run "$TOOLS/submit.sh"
	release_lock
	refused_by_lock submit "$lock"
	[ ! -e "$WF_TOP/out/6.1/submit" ]
	# (not find -name b4: a git object directory can be called b4)
	[ -z "$(find "$WF_CACHE" -path "*/objects" -prune -o -name b4 -print)" ]
	[ ! -e "$WF_CACHE/branches/6.1/submit.run" ]
}

@test "submit: NEW_CHANGE_ID=1 starts a new change-id, refused once a revision is recorded" {
	"$TOOLS/submit.sh" >/dev/null 2>&1
	cid=$(grep '^change-id: ' "$WF_TOP"/out/6.1/submit/v1/record)
	run make -s -C "$REPO_ROOT" submit NEW_CHANGE_ID=1
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"submit: a new change-id: $(date -u +%Y%m%d)-fixture-topic-"* ]]
	new=$(grep '^change-id: ' "$WF_TOP"/out/6.1/submit/v1/record)
	[[ $new =~ ^change-id:\ [0-9]{8}-fixture-topic-[0-9a-f]{12}$ && $new != "$cid" ]]
	# It stays: written again, the same.
	"$TOOLS/submit.sh" >/dev/null 2>&1
	[ "$(grep '^change-id: ' "$WF_TOP"/out/6.1/submit/v1/record)" = "$new" ]
	"$TOOLS/record-sent.sh" >/dev/null 2>&1
	change_series
	run "$TOOLS/submit.sh" -N
	[ "$status" -eq 1 ]
	[ "${lines[-1]}" = "submit: error: NEW_CHANGE_ID=1: v1 was sent with change-id ${new#change-id: }; its next revisions keep it" ]
}

@test "submit: the repository's own records: the 6.1 v1, v2 and v3 never reached a list, so no revision is recorded" {
	# v1 was written and recorded by hand, v2 and v3 went to a loopback
	# test server from a reserved .example sender: rehearsals, each said.
	sent=$REPO_ROOT/cover-letters/6.1/sent
	[ "$(ls "$sent")" = rehearsals ]
	for k in 1 2 3; do
		grep -qx "revision: $k" "$sent/rehearsals/v$k-1/record"
		grep -q "sent/rehearsals/v$k-1/" "$REPO_ROOT/cover-letters/README.md"
	done
	grep -q '^sent-via: smtp://127.0.0.1:' "$sent/rehearsals/v2-1/record"
	grep -q '^sent-via: smtp://127.0.0.1:' "$sent/rehearsals/v3-1/record"
	# So the next real post of 6.1 is v1.
	# shellcheck disable=SC2034 # read by sent_revisions
	SENT_DIR=$sent
	eval "$(sed -n '/^sent_revisions()/,/^}/p' "$TOOLS/lib/sent.sh")"
	[ -z "$(sent_revisions)" ]
}

@test "submit: with a patatt key (b4's own check) the messages are signed, and the signatures hold; without one, it says once that the mail is unsigned" {
	run "$TOOLS/submit.sh"
	[ "$status" -eq 0 ]
	[ "$(grep -c 'submit: the mail is unsigned (no patatt key: patatt genkey, or git config user.signingKey; doc/sending.md)' <<<"$output")" -eq 1 ]
	[ -z "$(grep -l '^X-Developer-Signature:' "$WF_TOP"/out/6.1/submit/v1/*.eml || true)" ]
	# An ed25519 key as "patatt genkey" makes it, its public half in a
	# keyring of patatt's layout.
	keys=$BATS_TEST_TMPDIR/patatt
	/usr/bin/python3 - "$keys" <<-'PY'
	import base64, os, sys
	from nacl.signing import SigningKey
	d = sys.argv[1]
	k = SigningKey.generate()
	os.makedirs(d + '/ring/ed25519/fixture.home.arpa/sam')
	open(d + '/fixture.key', 'wb').write(base64.b64encode(bytes(k)))
	open(d + '/ring/ed25519/fixture.home.arpa/sam/fixture', 'wb').write(base64.b64encode(k.verify_key.encode()))
	PY
	git config --global patatt.signingkey "ed25519:$keys/fixture.key"
	git config --global patatt.selector fixture
	run "$TOOLS/submit.sh"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"submit: signed 6 message(s) with patatt (ed25519:$keys/fixture.key)"* && $output != *unsigned* ]]
	for f in "$WF_TOP"/out/6.1/submit/v1/*.eml; do
		/usr/bin/python3 - "$f" "$keys/ring" <<-'PY'
		import sys, patatt
		res = patatt.validate_message(open(sys.argv[1], 'rb').read(), [sys.argv[2]])
		assert res and all(r[0] == patatt.RES_VALID for r in res), (sys.argv[1], res)
		PY
	done
}
