#!/usr/bin/env bats
# Tests of tools/send.sh (make send): the written revision through a real
# SMTP server (aiosmtpd, started here on 127.0.0.1) and back: threading,
# git am / b4 am of what arrived, non-ASCII and long lines, the record.

load test_helper

# A long line (1500 characters, more than SMTP's 998) and non-ASCII text
# in a commit message.
LONG_LINE=$(printf 'long%.0s' {1..375})
UNICODE_SUBJECT='sysctl: Décrire le café naïve'
UNICODE_BODY='Ünïcödé survives: naïve café, “quotes”, 日本語, ✓.'

setup() {
	setup_kernel_fixture
	make_kernel_series
	printf '/* one */\nint one = 1;\n/* two */\nint two;\n/* three: café */\nint three;\n' >"$WF_REPO/kernel/sysctl.c"
	git -C "$WF_REPO" add -f kernel/sysctl.c
	dev_git commit -q -s -m "$UNICODE_SUBJECT" -m "$UNICODE_BODY" -m "$LONG_LINE"
	"$TOOLS/export.sh"
	pass_validation
	"$TOOLS/submit.sh" >/dev/null
	start_smtp
}

teardown() {
	[[ -z ${SMTP_PID:-} ]] || kill "$SMTP_PID" 2>/dev/null || true
}

# received HEADER: that header of each received message, in order.
received() {
	/usr/bin/python3 - "$MBOX" "$1" <<'PY'
import mailbox, sys
for m in mailbox.mbox(sys.argv[1]):
    print(' '.join(str(m[sys.argv[2]] or '').split()))
PY
}

@test "send: refuses without recipients, without a server, and any server off the loopback" {
	run make -s -C "$REPO_ROOT" send SMTP="127.0.0.1:$SMTP_PORT"
	[ "$status" -ne 0 ]
	[[ $output == "send: error: no recipients: TO=maintainers sends to the To/Cc of the messages, TO=address,... to those addresses only"* ]]
	run make -s -C "$REPO_ROOT" send TO=maintainers
	[ "$status" -ne 0 ]
	[[ $output == "send: error: no SMTP server: SMTP=127.0.0.1:PORT, or git config sendemail.smtpServer (a loopback address)"* ]]
	git config --global sendemail.smtpServer 192.0.2.1
	run "$TOOLS/send.sh" -t maintainers
	echo "$output"
	[ "$status" -eq 1 ]
	[ "$output" = "send: error: SMTP server '192.0.2.1' is not a loopback address (192.0.2.1): make send only talks to a server on this machine" ]
	run "$TOOLS/send.sh" -t maintainers -s smtp.fixture.invalid:25
	[ "$status" -eq 1 ]
	[ "$output" = "send: error: SMTP server 'smtp.fixture.invalid' does not resolve" ]
	run "$TOOLS/send.sh" -t 'not an address' -s "127.0.0.1:$SMTP_PORT"
	[ "$status" -eq 1 ]
	[ "$output" = "send: error: TO='not an address' is neither 'maintainers' nor a list of addresses" ]
	# Nothing arrived, nothing was recorded.
	[ ! -e "$MBOX" ]
	[ ! -e "$WF_TOP/cover-letters/6.1/sent" ]
	# The checks of the preflight hold for send as well.
	pass_validation '.commits[5].results.boot.status = "fail"'
	run "$TOOLS/send.sh" -t maintainers -s "127.0.0.1:$SMTP_PORT"
	[ "$status" -eq 1 ]
	[[ $output == "preflight: error: refusing: validation: 1 of 6 commit(s) lack a passing result, first patch 6/6"*"boot: fail (run: make validate)" ]]
	[ ! -e "$MBOX" ]
}

@test "send: through a real SMTP server and back: threaded, b4 am gives the tree, non-ASCII and long lines intact, v1 recorded" {
	dir=$WF_TOP/out/6.1/submit/v1
	run make -s -C "$REPO_ROOT" send TO=maintainers SMTP="127.0.0.1:$SMTP_PORT"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"send: sent 7 message(s) of out/6.1/submit/v1 to 127.0.0.1:$SMTP_PORT (their To/Cc)"* ]]
	[[ $output == *"send: recorded v1 in cover-letters/6.1/sent/v1: commit it"* ]]
	# Every message arrived once, with its Message-Id, threaded as written.
	[ "$(received Message-Id | wc -l)" -eq 7 ]
	diff <(for f in "$dir"/*.eml; do sed -n 's/^Message-Id: //Ip' "$f"; done) <(received Message-Id)
	cover=$(sed -n 's/^Message-Id: //Ip' "$dir"/0000-*.eml)
	diff <(printf '\n'; for _ in 1 2 3 4 5 6; do echo "$cover"; done) <(received In-Reply-To)
	diff <(printf '\n'; for _ in 1 2 3 4 5 6; do echo "$cover"; done) <(received References)
	# To each of the addresses written in it, and to no other.
	p2=$(ls "$dir"/0002-*.eml)
	want=$(sed -n '1,/^$/p' "$p2" | sed -e ':a' -e 'N' -e '$!ba' -e 's/\n[ \t]\+/ /g' |
		grep -iE '^(To|Cc): ' | grep -oE '[A-Za-z0-9._-]+@[A-Za-z0-9.-]+' | sort -u)
	got=$(received X-Envelope-To | sed -n 3p | tr ',' '\n' | tr -d ' ' | sort -u)
	[ "$want" = "$got" ]
	# SMTP's line limit held: the long line was encoded, not cut.
	[ "$(awk 'length > 998' "$MBOX" | wc -l)" -eq 0 ]
	grep -q "^Subject: \[PATCH 6/6\] sysctl: D=C3=A9crire\|^Subject: =?utf-8?" "$MBOX"
	# b4 am of what arrived, onto a clean base, gives the branch's tree and
	# the commit messages as they were written.
	am=$BATS_TEST_TMPDIR/am
	mkdir "$BATS_TEST_TMPDIR/b4am"
	(cd "$BATS_TEST_TMPDIR" && b4 -n --offline-mode am -m "$MBOX" -o "$BATS_TEST_TMPDIR/b4am" >/dev/null 2>&1)
	git clone -q "$WF_REPO" "$am"
	git -C "$am" checkout -q --detach refs/tags/base/6.1.99-1
	git -C "$am" am -q "$BATS_TEST_TMPDIR"/b4am/*.mbx
	[ "$(git -C "$am" rev-parse 'HEAD^{tree}')" = "$(git -C "$WF_REPO" rev-parse 'fixture-topic^{tree}')" ]
	[ "$(git -C "$am" log -1 --format=%s)" = "$UNICODE_SUBJECT" ]
	git -C "$am" log -1 --format=%B | grep -qxF "$UNICODE_BODY"
	git -C "$am" log -1 --format=%B | grep -qxF "$LONG_LINE"
	diff <(git -C "$WF_REPO" log --format='%an <%ae>%n%B' base/6.1.99-1..fixture-topic) \
		<(git -C "$am" log --format='%an <%ae>%n%B' base/6.1.99-1..HEAD | grep -vx 'Signed-off-by: Sam Sender <sam@fixture.home.arpa>')
	# The record: what the next revision is written against.
	sent=$WF_TOP/cover-letters/6.1/sent/v1
	grep -qx "message-id: $cover" "$sent/record"
	grep -qx "sent-via: smtp://127.0.0.1:$SMTP_PORT" "$sent/record"
	# Sent once: not again as v1.
	run "$TOOLS/send.sh" -t maintainers -s "127.0.0.1:$SMTP_PORT"
	[ "$status" -eq 1 ]
	[ "$output" = "send: error: v1 was sent already (cover-letters/6.1/sent/v1): make submit writes v2" ]
}

@test "send: a trial goes to TO only and records nothing" {
	run "$TOOLS/send.sh" -t me@fixture.home.arpa -s "localhost:$SMTP_PORT"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"send: a trial to me@fixture.home.arpa: v1 is not recorded as sent (TO=maintainers sends and records it)"* ]]
	[ "$(received X-Envelope-To | sort -u)" = "me@fixture.home.arpa" ]
	[ "$(received To | sort -u)" = "me@fixture.home.arpa" ]
	[ "$(received Cc | sort -u)" = "" ]
	[ ! -e "$WF_TOP/cover-letters/6.1/sent" ]
}

@test "send: refuses while another send holds its lock, and sends and records nothing" {
	dir=$WF_TOP/out/6.1/submit/v1
	cp -r "$dir" "$BATS_TEST_TMPDIR/v1-before"
	lock=$WF_CACHE/branches/6.1/send.lock
	hold_lock "$lock"
	run "$TOOLS/send.sh" -t maintainers -s "127.0.0.1:$SMTP_PORT"
	release_lock
	refused_by_lock send "$lock"
	[ ! -e "$MBOX" ]
	[ ! -e "$WF_TOP/cover-letters/6.1/sent" ]
	diff -r "$BATS_TEST_TMPDIR/v1-before" "$dir"
	[ ! -e "$WF_CACHE/branches/6.1/send.run" ]
}

@test "send: a message whose final dot the server rejects (5xx) fails the send, is not taken for sent, and goes again" {
	dir=$WF_TOP/out/6.1/submit/v1
	# A server that rejects the fourth message it is given.
	kill "$SMTP_PID"
	wait "$SMTP_PID" || true
	rm "$BATS_TEST_TMPDIR/port"
	SMTP_FIXTURE_REJECT=4 start_smtp
	run "$TOOLS/send.sh" -t maintainers -s "127.0.0.1:$SMTP_PORT"
	echo "$output"
	[ "$status" -eq 1 ]
	mapfile -t files < <(find "$dir" -maxdepth 1 -name '*.eml' -printf '%f\n' | LC_ALL=C sort)
	[[ ${lines[-1]} == "send: error: git send-email of ${files[3]} to 127.0.0.1:$SMTP_PORT failed after 3 of 7 message(s): "* ]]
	# Its dialogue: the dot written, answered 554.
	sed -n "/^+ git send-email ${files[3]}\$/,\$p" "$dir/send.log" | grep -A1 '>>> \.$' | grep -q '<<< 554 '
	[ "$(grep '^sending: ' "$dir/sending" | tail -n 1)" = "sending: ${files[3]}" ]
	[ ! -e "$WF_TOP/cover-letters/6.1/sent" ]
	# Run again (the server takes it now): that message again, then the rest.
	run "$TOOLS/send.sh" -t maintainers -s "127.0.0.1:$SMTP_PORT"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"v1 was half-sent: 3 message(s) sent already, ${files[3]} did not arrive; sending the rest"* ]]
	diff <(for f in "${files[@]}"; do sed -n 's/^Message-Id: //Ip' "$dir/$f"; done) <(received Message-Id)
	[ -f "$WF_TOP/cover-letters/6.1/sent/v1/record" ]
}

@test "send: a server that dies part-way fails the send in one line; the re-run sends only the rest" {
	dir=$WF_TOP/out/6.1/submit/v1
	# A server that exits after its third message.
	kill "$SMTP_PID"
	wait "$SMTP_PID" || true
	rm "$BATS_TEST_TMPDIR/port"
	SMTP_FIXTURE_EXIT_AFTER=3 start_smtp
	run "$TOOLS/send.sh" -t maintainers -s "127.0.0.1:$SMTP_PORT"
	echo "$output"
	[ "$status" -eq 1 ]
	mapfile -t files < <(find "$dir" -maxdepth 1 -name '*.eml' -printf '%f\n' | LC_ALL=C sort)
	[ "${#files[@]}" -eq 7 ]
	[[ ${lines[-1]} == "send: error: git send-email of ${files[3]} to 127.0.0.1:$SMTP_PORT failed after 3 of 7 message(s): "*" (log: $dir/send.log)" ]]
	# The server got the first three; the revision says which went.
	diff <(for f in "${files[@]:0:3}"; do sed -n 's/^Message-Id: //Ip' "$dir/$f"; done) <(received Message-Id)
	[ "$(grep '^sent: ' "$dir/sending")" = "$(printf 'sent: %s\n' "${files[@]:0:3}")" ]
	[ "$(grep '^sending: ' "$dir/sending" | tail -n 1)" = "sending: ${files[3]}" ]
	[ ! -e "$WF_TOP/cover-letters/6.1/sent" ]
	# The server back (on another port): the rest, and v1 recorded.
	wait "$SMTP_PID" || true
	mv "$MBOX" "$BATS_TEST_TMPDIR/first.mbox"
	rm "$BATS_TEST_TMPDIR/port"
	start_smtp
	run "$TOOLS/send.sh" -t maintainers -s "127.0.0.1:$SMTP_PORT"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"v1 was half-sent: 3 message(s) sent already, ${files[3]} did not arrive; sending the rest"* ]]
	[[ $output == *"send: sent 4 message(s) of out/6.1/submit/v1 to 127.0.0.1:$SMTP_PORT (their To/Cc)"* ]]
	diff <(for f in "${files[@]:3}"; do sed -n 's/^Message-Id: //Ip' "$dir/$f"; done) <(received Message-Id)
	[ -f "$WF_TOP/cover-letters/6.1/sent/v1/record" ]
	[ ! -e "$dir/sending" ]
}
