#!/usr/bin/env bats
# Tests of tools/send.sh (make send, make rehearse) and
# tools/record-sent.sh: the written revision through a real SMTP server
# (aiosmtpd, started here on 127.0.0.1; as a provider: STARTTLS and AUTH)
# and back, by every recipe of README.md: threading, the recipients,
# git am / b4 am of what arrived, non-ASCII and long lines, the records
# (revisions, rehearsals apart), a send cut short and finished after
# make clean.

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

# no_mail_left: nothing arrived, nothing recorded, no send half done.
no_mail_left() {
	[ ! -e "$BATS_TEST_TMPDIR/received.mbox" ]
	[ ! -e "$WF_TOP/cover-letters/6.1/sent" ]
	[ ! -e "$WF_CACHE/branches/6.1/sending/v1" ]
}

# written_rcpts DIR: the To and Cc lines (unfolded) of each message of DIR.
written_rcpts() {
	local f
	for f in "$1"/*.eml; do
		sed -n '1,/^$/p' "$f" | sed -e ':a' -e 'N' -e '$!ba' -e 's/\n[ \t]\+/ /g' | grep -iE '^(to|cc):' || true
	done
}

# secrets_kept: the provider's password, in clear or in base64 (AUTH
# PLAIN and LOGIN), is in no file of the checkout or the cache (-a: the
# logs of a TLS dialogue have binary bytes).
secrets_kept() {
	local plain login
	plain=$(printf '\0sam\0%s' "$PROVIDER_PASSWORD" | base64 -w0)
	login=$(printf '%s' "$PROVIDER_PASSWORD" | base64 -w0)
	[ -z "$(grep -rlaF -e "$PROVIDER_PASSWORD" -e "$plain" -e "$login" "$WF_TOP" "$WF_CACHE" || true)" ]
}

@test "send: refusals, each in one line: a rehearsal's server or trial for make send, no configured server, a rehearsal off the loopback" {
	run make -s -C "$REPO_ROOT" send SMTP=127.0.0.1:2525
	[ "$status" -ne 0 ]
	[[ $output == "send: error: SMTP=127.0.0.1:2525 names a rehearsal's server (make rehearse SMTP=127.0.0.1:2525); make send sends through your git config sendemail.*"* ]]
	run make -s -C "$REPO_ROOT" send TO=me@fixture.home.arpa
	[ "$status" -ne 0 ]
	[[ $output == "send: error: a trial to me@fixture.home.arpa is a rehearsal: make rehearse TO=me@fixture.home.arpa"* ]]
	run make -s -C "$REPO_ROOT" send YES=1
	[ "$status" -ne 0 ]
	[[ $output == "send: error: no SMTP server in your git configuration: git config --global sendemail.smtpServer smtp.your.provider"* ]]
	run make -s -C "$REPO_ROOT" rehearse
	[ "$status" -ne 0 ]
	[[ $output == "send: error: a rehearsal to the maintainers goes to a loopback test server only: SMTP=127.0.0.1:PORT"* ]]
	run "$TOOLS/send.sh" -R -s 192.0.2.1
	[ "$status" -eq 2 ]
	[ "$output" = "send: error: SMTP server '192.0.2.1' is not a loopback address (192.0.2.1): a rehearsal only talks to a server on this machine (make send sends for real)" ]
	run "$TOOLS/send.sh" -R -s smtp.fixture.invalid:25
	[ "$status" -eq 2 ]
	[ "$output" = "send: error: SMTP server 'smtp.fixture.invalid' does not resolve" ]
	run "$TOOLS/send.sh" -R -t 'not an address' -s 127.0.0.1:2525
	[ "$status" -eq 2 ]
	[ "$output" = "send: error: TO='not an address' is neither 'maintainers' nor a list of addresses" ]
	no_mail_left
	# The checks of the preflight hold for a rehearsal and a send alike.
	start_provider
	pass_validation '.commits[5].results.boot.status = "fail"'
	for cmd in "$TOOLS/send.sh -y" "$TOOLS/send.sh -R -s 127.0.0.1:$SMTP_PORT"; do
		run $cmd
		[ "$status" -eq 1 ]
		[[ $output == "preflight: error: refusing: validation: 1 of 6 commit(s) lack a passing result, first patch 6/6"*"boot: fail (run: make validate)" ]]
	done
	no_mail_left
}

@test "send: rehearsals are no revisions: v1 rehearsed twice, then sent for real as v1, with no changelog" {
	start_smtp
	run make -s -C "$REPO_ROOT" rehearse SMTP="127.0.0.1:$SMTP_PORT"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"send: a rehearsal of v1, recorded in cover-letters/6.1/sent/rehearsals/v1-1 (not a revision: v1 is still to be sent)"* ]]
	check_arrived "$WF_TOP/out/6.1/submit/v1"
	grep -qx "sent-via: smtp://127.0.0.1:$SMTP_PORT" "$WF_TOP/cover-letters/6.1/sent/rehearsals/v1-1/record"
	# The series changes; written again, it is still v1, and rehearsed.
	change_series
	run "$TOOLS/submit.sh"
	[ "$status" -eq 0 ]
	[[ $output == *"submit: v1: 8 message(s) written to out/6.1/submit/v1"* && $output != *range-diff* ]]
	run make -s -C "$REPO_ROOT" rehearse SMTP="127.0.0.1:$SMTP_PORT"
	[ "$status" -eq 0 ]
	[ -f "$WF_TOP/cover-letters/6.1/sent/rehearsals/v1-2/record" ]
	[ ! -e "$WF_TOP/cover-letters/6.1/sent/v1" ]
	# Sent for real (a loopback server standing in for the provider): v1,
	# its cover letter without "Changes in", no range-diff.
	kill "$SMTP_PID"
	mv "$MBOX" "$BATS_TEST_TMPDIR/rehearsals.mbox"
	rm "$BATS_TEST_TMPDIR/port"
	start_provider
	run make -s -C "$REPO_ROOT" send YES=1
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"send: recorded v1 in cover-letters/6.1/sent/v1: commit it"* ]]
	check_arrived "$WF_TOP/out/6.1/submit/v1"
	[ "$(grep -ci '^changes in v' "$MBOX" || true)" -eq 0 ]
	[ -z "$(compgen -G "$WF_TOP/out/6.1/submit/v1/range-diff-*" || true)" ]
	[ "$(ls "$WF_TOP/cover-letters/6.1/sent")" = "$(printf 'rehearsals\nv1')" ]
}

@test "send: for real through the user's provider (STARTTLS, AUTH from her credential helper), after a dry run and a confirmation" {
	dir=$WF_TOP/out/6.1/submit/v1
	start_provider
	# The dry run: what would go where; nothing goes.
	run make -s -C "$REPO_ROOT" send DRY_RUN=1
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"send: dry run (nothing is sent): v1, 7 message(s) through 127.0.0.1:$SMTP_PORT (tls, user sam)"* ]]
	[ "$(grep -c '^  Dry-OK' <<<"$output")" -eq 7 ]
	[[ $output == *"0002-"*"  To: X86 Maintainer <x86@kernel.fixture.home.arpa>"* ]]
	no_mail_left
	# Not confirmed: nothing goes.
	run bash -c "echo no | make -s -C '$REPO_ROOT' send"
	[ "$status" -ne 0 ]
	[[ $output == *"send: send v1 for real: 7 message(s) to 13 recipient(s) through 127.0.0.1:$SMTP_PORT (tls, user sam), from Sam Sender <sam@fixture.home.arpa>? Type yes to send: send: error: not confirmed ('no'): nothing sent (YES=1 sends without asking)"* ]]
	no_mail_left
	run bash -c "echo yes | make -s -C '$REPO_ROOT' send"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"send: sent 7 message(s) of v1 to 127.0.0.1:$SMTP_PORT (tls, user sam) (their To/Cc)"* ]]
	check_arrived "$dir"
	# Through TLS, authenticated, the password from the credential helper
	# and written nowhere.
	[ "$(grep -c '^X-Fixture-Auth: sam$' "$MBOX")" -eq 7 ]
	[ "$(grep -c '^X-Fixture-TLS: yes$' "$MBOX")" -eq 7 ]
	grep -qx get "$BATS_TEST_TMPDIR/credential.log"
	secrets_kept
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
	cover=$(sed -n 's/^Message-Id: //Ip' "$dir"/0000-*.eml)
	grep -qx "message-id: $cover" "$sent/record"
	grep -qx "sent-via: smtp://127.0.0.1:$SMTP_PORT" "$sent/record"
	[ ! -e "$WF_CACHE/branches/6.1/sending/v1" ]
	# Sent once: not again as v1.
	run "$TOOLS/send.sh" -y
	[ "$status" -eq 1 ]
	[ "$output" = "send: error: v1 was sent already (cover-letters/6.1/sent/v1): make submit writes v2" ]
}

@test "send: the README's git send-email recipe, then make record-sent: one thread, b4's To/Cc exactly, not to the sender" {
	start_provider
	recipe=$(sed -n 's/^ *\(git send-email .*out\/6.1\/submit\/vN\/\*\.eml\)$/\1/p' "$REPO_ROOT/README.md")
	[ -n "$recipe" ]
	(cd "$WF_TOP" && eval "${recipe//vN/v1}") </dev/null >"$BATS_TEST_TMPDIR/recipe.out" 2>&1 ||
		{ cat "$BATS_TEST_TMPDIR/recipe.out"; false; }
	check_arrived "$WF_TOP/out/6.1/submit/v1"
	# -n is a dry run of make send: it records nothing.
	run "$TOOLS/send.sh" -n
	[ "$status" -eq 0 ]
	[ ! -e "$WF_TOP/cover-letters/6.1/sent/v1" ]
	run make -s -C "$REPO_ROOT" record-sent REV=1
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"record-sent: recorded v1 in cover-letters/6.1/sent/v1: commit it"* ]]
	grep -qx "sent-via: by hand (git send-email)" "$WF_TOP/cover-letters/6.1/sent/v1/record"
	run make -s -C "$REPO_ROOT" record-sent REV=1
	[ "$status" -ne 0 ]
	[[ $output == "record-sent: error: v1 was sent already (cover-letters/6.1/sent/v1): make submit writes v2"* ]]
}

@test "send: a trial goes to TO only, through the test server or the user's own, and is a rehearsal" {
	start_smtp
	run make -s -C "$REPO_ROOT" rehearse TO=me@fixture.home.arpa SMTP="localhost:$SMTP_PORT"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"send: a rehearsal of v1, recorded in cover-letters/6.1/sent/rehearsals/v1-1 (not a revision: v1 is still to be sent)"* ]]
	[ "$(received X-Envelope-To | sort -u)" = "me@fixture.home.arpa" ]
	[ "$(received To | sort -u)" = "me@fixture.home.arpa" ]
	[ "$(received Cc | sort -u)" = "" ]
	grep -qx "sent-to: me@fixture.home.arpa" "$WF_TOP/cover-letters/6.1/sent/rehearsals/v1-1/record"
	kill "$SMTP_PID"
	rm "$MBOX" "$BATS_TEST_TMPDIR/port"
	start_provider
	run make -s -C "$REPO_ROOT" rehearse TO=me@fixture.home.arpa
	[ "$status" -eq 0 ]
	[ "$(received X-Envelope-To | sort -u)" = "me@fixture.home.arpa" ]
	[ "$(grep -c '^X-Fixture-Auth: sam$' "$MBOX")" -eq 7 ]
	[ -f "$WF_TOP/cover-letters/6.1/sent/rehearsals/v1-2/record" ]
	[ "$(ls "$WF_TOP/cover-letters/6.1/sent")" = rehearsals ]
}

@test "send: a placeholder never reaches a header: submit drops reserved-domain recipients and the sender, send refuses one" {
	dir=$WF_TOP/out/6.1/submit/v1
	# The written To/Cc: not the sender, no reserved domain.
	[ -n "$(written_rcpts "$dir")" ]
	[ -z "$(written_rcpts "$dir" | grep -i 'sam@fixture.home.arpa' || true)" ]
	# The series names a placeholder maintainer (as a MAINTAINERS entry
	# of patch 23 did): submit drops it, says so.
	printf '\nSYSCTL COMPAT\nM:\tSysctl Compat <sysctl-compat@example.org>\nS:\tMaintained\nF:\tkernel/sysctl_binary.c\n' \
		>>"$WF_REPO/MAINTAINERS"
	git -C "$WF_REPO" add -f MAINTAINERS
	dev_git commit -q -s -m "MAINTAINERS: Add the sysctl(2) wrapper" -m "Why."
	"$TOOLS/export.sh"
	pass_validation
	run "$TOOLS/submit.sh"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"submit: dropped Sysctl Compat <sysctl-compat@example.org> from To/Cc of 3 message(s): in a reserved example domain (a placeholder: no mail reaches it)"* ]]
	[[ $output == *"submit: dropped Sam Sender <sam@fixture.home.arpa> from To/Cc of 8 message(s): the sender herself (CC_SELF=1 keeps her)"* ]]
	[ -z "$(written_rcpts "$dir" | grep -iE 'example\.org|sam@fixture' || true)" ]
	# A message edited since: refused by send, whatever FORCE says.
	sed -i 's/^To: /To: Sysctl Compat <sysctl-compat@example.org>, /' "$dir"/0001-*.eml
	start_provider
	run "$TOOLS/send.sh" -y -f
	echo "$output"
	[ "$status" -eq 1 ]
	[ "${lines[-1]}" = "send: error: refusing: 1 To/Cc address(es) in a reserved example domain (a placeholder no mail reaches), first Sysctl Compat <sysctl-compat@example.org> in $(basename "$dir"/0001-*.eml): name a real maintainer in MAINTAINERS, then make submit" ]
	run "$TOOLS/send.sh" -R -s "127.0.0.1:$SMTP_PORT"
	[ "$status" -eq 1 ]
	[[ $output == *"preflight: error: refusing: recipients: 1 To/Cc address(es) in a reserved example domain (a placeholder no mail reaches), first Sysctl Compat <sysctl-compat@example.org> in 0001-"* ]]
	no_mail_left
	# CC_SELF=1: she asked for her copy.
	run make -s -C "$REPO_ROOT" submit CC_SELF=1
	[ "$status" -eq 0 ]
	written_rcpts "$dir" | grep -q 'Sam Sender <sam@fixture.home.arpa>'
}

@test "send: refuses while another send holds its lock, and sends and records nothing" {
	dir=$WF_TOP/out/6.1/submit/v1
	start_provider
	cp -r "$dir" "$BATS_TEST_TMPDIR/v1-before"
	lock=$WF_CACHE/branches/6.1/send.lock
	hold_lock "$lock"
	run "$TOOLS/send.sh" -y
	release_lock
	refused_by_lock send "$lock"
	no_mail_left
	diff -r "$BATS_TEST_TMPDIR/v1-before" "$dir"
	[ ! -e "$WF_CACHE/branches/6.1/send.run" ]
}

@test "send: a message whose final dot the server rejects (5xx) fails the send, is not taken for sent, and goes again" {
	dir=$WF_TOP/out/6.1/submit/v1
	cp -r "$dir" "$BATS_TEST_TMPDIR/v1"
	# A provider that rejects the fourth message it is given.
	SMTP_FIXTURE_REJECT=4 start_provider
	run "$TOOLS/send.sh" -y
	echo "$output"
	[ "$status" -eq 1 ]
	mapfile -t files < <(find "$dir" -maxdepth 1 -name '*.eml' -printf '%f\n' | LC_ALL=C sort)
	copy=$WF_CACHE/branches/6.1/sending/v1
	[[ ${lines[-1]} == "send: error: git send-email of ${files[3]} to 127.0.0.1:$SMTP_PORT (tls, user sam) failed after 3 of 7 message(s): "* ]]
	# Its dialogue: the dot written, answered 554; not taken for sent.
	sed -n "/^+ git send-email ${files[3]}\$/,\$p" "$copy/send.log" | grep -A1 '>>> \.$' | grep -q '<<< 554 '
	[ "$(grep '^sent: ' "$copy/sending")" = "$(printf 'sent: %s\n' "${files[@]:0:3}")" ]
	[ ! -e "$WF_TOP/cover-letters/6.1/sent" ]
	# Run again (the server takes it now): that message again, then the rest.
	run "$TOOLS/send.sh" -y
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"v1 was half-sent: 3 message(s) sent already, ${files[3]} did not arrive; sending the rest"* ]]
	diff <(for f in "${files[@]}"; do sed -n 's/^Message-Id: //Ip' "$dir/$f"; done) <(received Message-Id)
	[ -f "$WF_TOP/cover-letters/6.1/sent/v1/record" ]
}

@test "send: a server that dies part-way fails the send in one line; after make clean, make send sends only the rest" {
	dir=$WF_TOP/out/6.1/submit/v1
	cp -r "$dir" "$BATS_TEST_TMPDIR/v1"
	# A provider that exits after its third message.
	SMTP_FIXTURE_EXIT_AFTER=3 start_provider
	run "$TOOLS/send.sh" -y
	echo "$output"
	[ "$status" -eq 1 ]
	mapfile -t files < <(find "$dir" -maxdepth 1 -name '*.eml' -printf '%f\n' | LC_ALL=C sort)
	[ "${#files[@]}" -eq 7 ]
	copy=$WF_CACHE/branches/6.1/sending/v1
	[[ ${lines[-1]} == "send: error: git send-email of ${files[3]} to 127.0.0.1:$SMTP_PORT (tls, user sam) failed after 3 of 7 message(s): "*" (log: $copy/send.log)" ]]
	# The server got the first three; the copy in the cache says which.
	diff <(for f in "${files[@]:0:3}"; do sed -n 's/^Message-Id: //Ip' "$dir/$f"; done) <(received Message-Id)
	[ "$(grep '^sent: ' "$copy/sending")" = "$(printf 'sent: %s\n' "${files[@]:0:3}")" ]
	[ ! -e "$WF_TOP/cover-letters/6.1/sent" ]
	# Its log: the SMTP dialogue of each message (the fourth found no
	# server), AUTH blanked.
	[ "$(grep -ac '^+ git send-email ' "$copy/send.log")" -eq 4 ]
	[ "$(grep -acE '>>> AUTH [A-Z0-9-]+ \[credentials not logged\]$' "$copy/send.log")" -eq 3 ]
	secrets_kept
	# make clean removes out/, not the send half done.
	[ -n "$WF_TOP" ]
	make -s -C "$REPO_ROOT" clean
	[ ! -e "$WF_TOP/out" ]
	# Another revision named while v1 is half-sent: refused, v1 first.
	run "$TOOLS/send.sh" -r 2
	echo "$output"
	[ "$status" -eq 1 ]
	[[ ${lines[-1]} == "send: error: v1 is half-sent ("*"): finish it first with 'make send'" ]]
	# The provider back (on another port): the rest, from the copy, and
	# v1 recorded; the server has each message once.
	wait "$SMTP_PID" || true
	mv "$MBOX" "$BATS_TEST_TMPDIR/first.mbox"
	rm "$BATS_TEST_TMPDIR/port"
	start_provider
	run make -s -C "$REPO_ROOT" send
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"v1 was half-sent: 3 message(s) sent already, ${files[3]} did not arrive; sending the rest"* ]]
	[[ $output == *"send: sent 4 message(s) of v1 to 127.0.0.1:$SMTP_PORT (tls, user sam) (their To/Cc)"* ]]
	cat "$BATS_TEST_TMPDIR/first.mbox" >>"$MBOX"
	check_arrived "$BATS_TEST_TMPDIR/v1"
	[ -f "$WF_TOP/cover-letters/6.1/sent/v1/record" ]
	[ ! -e "$copy" ]
	secrets_kept
}

@test "send: a first post, end to end: a rehearsal, v1 for real, the trailers of the replies, v2 for real" {
	start_provider
	run make -s -C "$REPO_ROOT" rehearse TO=me@fixture.home.arpa
	[ "$status" -eq 0 ]
	mv "$MBOX" "$BATS_TEST_TMPDIR/rehearsal.mbox"
	run make -s -C "$REPO_ROOT" send YES=1
	echo "$output"
	[ "$status" -eq 0 ]
	check_arrived "$WF_TOP/out/6.1/submit/v1"
	mv "$MBOX" "$BATS_TEST_TMPDIR/v1.mbox"
	# The replies (tests/fixtures/trailers) to the v1 the list got.
	sent=$WF_TOP/cover-letters/6.1/sent/v1
	mapfile -t ids < <(sed -n 's/^Message-Id: //Ip' "$sent/patches.mbox")
	sed -e "s/@COVER@/$(sed -n 's/^message-id: //p' "$sent/record")/g" \
		-e "s/@P3@/${ids[2]}/g" -e "s/@P5@/${ids[4]}/g" \
		"$REPO_ROOT/tests/fixtures/trailers/replies.mbox" >"$BATS_TEST_TMPDIR/replies.mbox"
	run make -s -C "$REPO_ROOT" trailers MBOX="$BATS_TEST_TMPDIR/replies.mbox" YES=1
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"trailers: added "*" trailer(s) to fixture-topic"* ]]
	pass_validation
	change_series_cover
	run "$TOOLS/submit.sh"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"range-diff against v1: out/6.1/submit/v2/range-diff-v1-v2.txt"* ]]
	run make -s -C "$REPO_ROOT" send YES=1
	echo "$output"
	[ "$status" -eq 0 ]
	check_arrived "$WF_TOP/out/6.1/submit/v2"
	grep -q '^Reviewed-by: Rita Reviewer <rita@fixture.home.arpa>$' "$MBOX"
	grep -qx 'Changes in v2:' "$MBOX"
	[ "$(ls "$WF_TOP/cover-letters/6.1/sent")" = "$(printf 'rehearsals\nv1\nv2')" ]
	[ "$(ls "$WF_TOP/cover-letters/6.1/sent/rehearsals")" = v1-1 ]
}

@test "send: the README's rehearsal, to the test server it names (python3 -m aiosmtpd), records a rehearsal" {
	recipe=$(tr '\n' ' ' <"$REPO_ROOT/README.md" | grep -o 'python3 -m aiosmtpd -n -l *127.0.0.1:8025' | tr -s ' ')
	[ "$recipe" = "python3 -m aiosmtpd -n -l 127.0.0.1:8025" ]
	port=$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	# (the README's command, on a free port; Debian's python3 is /usr/bin/python3)
	read -r -a cmd <<<"${recipe/8025/$port}"
	"/usr/bin/${cmd[0]}" "${cmd[@]:1}" >"$BATS_TEST_TMPDIR/aiosmtpd.out" 2>&1 3>&- &
	SMTP_PID=$!
	for ((i = 0; i < 100; i++)); do
		(exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
		sleep 0.1
	done
	run make -s -C "$REPO_ROOT" rehearse SMTP="127.0.0.1:$port"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"send: sent 7 message(s) of v1 to 127.0.0.1:$port (their To/Cc)"* ]]
	[ -f "$WF_TOP/cover-letters/6.1/sent/rehearsals/v1-1/record" ]
	[ ! -e "$WF_TOP/cover-letters/6.1/sent/v1" ]
	# It printed what it got, each message once.
	for f in "$WF_TOP"/out/6.1/submit/v1/*.eml; do
		id=$(sed -n 's/^Message-Id: //Ip' "$f")
		[ "$(grep -c "^Message-Id: $id" "$BATS_TEST_TMPDIR/aiosmtpd.out")" -eq 1 ]
	done
}
