#!/usr/bin/env bats
# Tests of the check directory codespell, run by
# checks/validate.sh on the fixture kernel of validate.bats
# (tests/fixtures/validate; checkpatch.pl, spelling.txt and kernel-doc
# of the real 6.1 base).  Each check passes on a clean commit, fails on
# a broken one, and lets a finding that the parent already had pass.

load test_helper
bats_require_minimum_version 1.5.0

setup() {
	setup_validate_fixture
	OUT=$BATS_TEST_TMPDIR/out
}

# validate [ARGS...]: run the validator on the fixture range.
validate() {
	run "$CHECKS/validate.sh" -o "$OUT" "$@" "$VALIDATE_RANGE"
}

# cell ROW CHECK: the status of CHECK on commit ROW (1-based).
cell() {
	jq -r ".commits[$(($1 - 1))].results[\"$2\"].status" "$OUT/results.json"
}

# reason ROW CHECK: the summary line of CHECK on commit ROW.
reason() {
	jq -r ".commits[$(($1 - 1))].results[\"$2\"].reason" "$OUT/results.json"
}

# log ROW CHECK: the log file of CHECK on commit ROW.
log() {
	jq -r ".commits[$(($1 - 1))].results[\"$2\"].log" "$OUT/results.json"
}

# commit_with_message FILE SED-SCRIPT SUBJECT BODY: an edit of FILE made
# by sed, committed with that message.
commit_with_message() {
	sed -i "$2" "$WF_REPO/$1"
	git -C "$WF_REPO" add -f "$1"
	git -C "$WF_REPO" -c user.name="A Developer" -c user.email=dev@example.org \
		commit -q -s -m "$3" -m "$4"
}

# run_check NAME: checks/NAME/run by hand on the tip of the fixture
# branch, as the runner would call it (output in $BATS_TEST_TMPDIR/NAME).
run_check() {
	local out=$BATS_TEST_TMPDIR/$1
	mkdir -p "$out"
	run --separate-stderr env WF_HOME="$REPO_ROOT" WF_CHECK_NAME="$1" WF_CHECK_SRC="$WF_REPO" \
		WF_CHECK_COMMIT="$(git -C "$WF_REPO" rev-parse HEAD)" \
		WF_CHECK_PARENT="$(git -C "$WF_REPO" rev-parse HEAD^)" \
		WF_CHECK_CONFIG='' WF_CHECK_BUILD='' WF_CHECK_OUT="$out" WF_CHECK_PREV='' "$CHECKS/$1/run"
}

@test "codespell: a misspelling in a comment or a message fails its commit; one the parent had does not" {
	validate_commit_edit kernel/names.c 's/return 2;/return 3;/' "sysctl: Translate one more name"
	validate_commit_edit kernel/names.c 's|^int probed(void)$|/* The names we recieve. */\nint probed(void)|' \
		"sysctl: Say where the names come from"
	validate_commit_edit kernel/names.c 's|we recieve\.|we recieve, all of them.|' "sysctl: Say it of all names"
	# "acheive" is in codespell's dictionary, not in scripts/spelling.txt.
	commit_with_message kernel/names.c 's/return 12;/return 13;/' "sysctl: Probe one more name" \
		"To acheive a full probe."
	validate -c codespell
	echo "$output"
	[ "$status" -eq 1 ]
	[ "$(cell 1 codespell)" = pass ]
	[ "$(reason 1 codespell)" = "codespell: no misspelling in the commit or its message" ]
	[ "$(cell 2 codespell)" = fail ]
	[ "$(reason 2 codespell)" = "codespell: 1 new misspelling(s): kernel/names.c: 'recieve' may be misspelled - perhaps 'receive'?" ]
	grep -qF '+/* The names we recieve. */' "$(log 2 codespell)"
	# The line changed, its misspelling did not: the parent had it.
	[ "$(cell 3 codespell)" = pass ]
	[ "$(reason 3 codespell)" = "codespell: none new (1 on lines the commit touches, there at the parent already)" ]
	[ "$(cell 4 codespell)" = fail ]
	[ "$(reason 4 codespell)" = "codespell: 1 new misspelling(s): commit message: 'acheive' may be misspelled - perhaps 'achieve'?" ]
	# Rewording the message re-runs the check: the key has the message.
	git -C "$WF_REPO" -c user.name="A Developer" -c user.email=dev@example.org \
		commit -q --amend -s -m "sysctl: Probe one more name" -m "To achieve a full probe."
	validate -c codespell
	echo "$output"
	[ "$(cell 4 codespell)" = pass ]
	[ "$(jq -c '[.commits[].results.codespell.cached]' "$OUT/results.json")" = '[true,true,true,false]' ]
}

@test "codespell: no dictionary is an infrastructure error, named in one line" {
	validate_commit_edit kernel/names.c 's/return 2;/return 3;/' "sysctl: Translate one more name"
	WF_CODESPELL_DICT=$BATS_TEST_TMPDIR/none/dictionary.txt run_check codespell
	[ "$status" -eq 2 ]
	[ "$output" = "codespell: cannot read the codespell dictionary $BATS_TEST_TMPDIR/none/dictionary.txt" ]
	WF_CODESPELL_DICT=$BATS_TEST_TMPDIR/none/dictionary.txt validate -c codespell
	echo "$output"
	[ "$status" -eq 3 ]
	[ "$(cell 1 codespell)" = infra ]
	grep -qxF "codespell: cannot read the codespell dictionary $BATS_TEST_TMPDIR/none/dictionary.txt" "$(log 1 codespell)"
	# Found where Debian's codespell package puts it, it runs.
	run_check codespell
	[ "$status" -eq 0 ]
	# shellcheck disable=SC2154 # set by run --separate-stderr
	[[ $stderr == *"dictionary: "*"/dictionary.txt"* ]]
}
