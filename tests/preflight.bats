#!/usr/bin/env bats
# Tests of tools/preflight.sh through tools/submit.sh (and tools/send.sh, tools/record-sent.sh):
# no revision is written or sent without green checks, a new cover letter
# and identities that can certify the DCO; FORCE=1 (-f) overrides.

load test_helper

setup() {
	setup_kernel_fixture
	make_kernel_series
	pass_validation
}

# trees N...: the tree ids (12 digits) of commits N of base..topic.
tree_of() {
	git -C "$WF_REPO" log --reverse --format=%T base/6.1.99-1..fixture-topic | sed -n "$1p" | cut -c1-12
}

@test "preflight: a failed or a missing validation result refuses in one line; FORCE=1 overrides and says so" {
	"$TOOLS/submit.sh"
	cp -r "$WF_TOP/out/6.1/submit/v1" "$BATS_TEST_TMPDIR/before"
	pass_validation '.commits[2].results.checkpatch.status = "fail"'
	run "$TOOLS/submit.sh"
	echo "$output"
	[ "$status" -eq 1 ]
	[ "$(grep -c 'refusing' <<<"$output")" -eq 1 ]
	[[ $output == *"preflight: error: refusing: validation: 1 of 5 commit(s) lack a passing result, first patch 3/5 (tree $(tree_of 3)) checkpatch: fail (run: make validate)"* ]]
	pass_validation 'del(.commits[4]) | .commits[0].results.boot.status = "skip"'
	run "$TOOLS/submit.sh"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ $output == *"preflight: error: refusing: validation: 2 of 5 commit(s) lack a passing result, first patch 1/5 (tree $(tree_of 1)) boot: not run (run: make validate)"* ]]
	rm "$WF_TOP/out/6.1/validate/results.json"
	run "$TOOLS/submit.sh"
	[ "$status" -eq 1 ]
	[[ $output == *"preflight: error: refusing: validation: no validation results (out/6.1/validate/results.json) for the 5 commit(s) (run: make validate)"* ]]
	# Nothing was written over the previous revision.
	diff -r "$BATS_TEST_TMPDIR/before" "$WF_TOP/out/6.1/submit/v1"
	# The validation of another branch state does not count.
	pass_validation
	commit_in_repo kernel/sysctl.c '/* one */\nint one = 2;\n/* two */\nint two;\n/* three */\nint three;\n' "sysctl: Initialise one to two"
	"$TOOLS/export.sh"
	run "$TOOLS/submit.sh"
	[ "$status" -eq 1 ]
	[[ $output == *"validation: 1 of 6 commit(s) lack a passing result, first patch 6/6"*"checkpatch: missing, boot: missing"* ]]
	run "$TOOLS/submit.sh" -f
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"preflight: FORCE=1: overriding the validation check: 1 of 6 commit(s) lack a passing result, first patch 6/6 (tree $(tree_of 6)) checkpatch: missing, boot: missing (run: make validate)"* ]]
	[ "$(find "$WF_TOP/out/6.1/submit/v1" -maxdepth 1 -name '0006-*.eml' | wc -l)" -eq 1 ]
}

@test "preflight: a check's own skip and a tip-only check below the tip pass; a check not selected refuses" {
	# As make validate writes them: kconfig skipped by the check itself
	# (exit 125, with its log) where no Kconfig changed, clang run at the
	# tip only and "-" below it.
	pass_validation '.checks += ["kconfig", "clang"] | .commits |= map(.results += {
		kconfig: {status: "skip", cached: true, reason: "kconfig: no Kconfig file changed", log: "/cache/kconfig/log"},
		clang: {status: "skip", cached: false, reason: "not run: at the tip only", log: ""}})
		| .commits[-1].results.clang = {status: "pass", cached: false, reason: "0 clang warnings in boot", log: "/cache/clang/log"}'
	run "$TOOLS/submit.sh"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output != *"refusing"* && $output == *"preflight: ok: validation, cover letter, identities and recipients of v1"* ]]
	# The tip-only check failed or was not run at the tip: refused.
	pass_validation '.checks += ["clang"] | .commits |= map(.results += {
		clang: {status: "skip", cached: false, reason: "not run: at the tip only", log: ""}})'
	run "$TOOLS/submit.sh"
	[ "$status" -eq 1 ]
	[[ $output == *"validation: 1 of 5 commit(s) lack a passing result, first patch 5/5 (tree $(tree_of 5)) clang: not run (run: make validate)"* ]]
	# A check that validate did not select (CHECKS=) is no verdict.
	pass_validation '.checks += ["qemu"] | .commits |= map(.results += {
		qemu: {status: "skip", cached: false, reason: "not selected", log: ""}})'
	run "$TOOLS/submit.sh"
	[ "$status" -eq 1 ]
	[[ $output == *"validation: 5 of 5 commit(s) lack a passing result, first patch 1/5 (tree $(tree_of 1)) qemu: not run (run: make validate)"* ]]
}

@test "preflight: the cover letter of the previous revision refuses; a new one passes" {
	"$TOOLS/submit.sh"
	"$TOOLS/record-sent.sh"
	change_series
	rm "$WF_TOP/cover-letters/6.1/v2.txt"
	run "$TOOLS/submit.sh"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ $output == *"preflight: error: refusing: cover: the cover letter of v2 (cover-letters/6.1/v1.txt) is the one sent with v1: write cover-letters/6.1/v2.txt saying what changed"* ]]
	[ ! -e "$WF_TOP/out/6.1/submit/v2" ]
	run "$TOOLS/submit.sh" -f
	[ "$status" -eq 0 ]
	[[ $output == *"preflight: FORCE=1: overriding the cover check: the cover letter of v2 (cover-letters/6.1/v1.txt) is the one sent with v1"* ]]
	# record-sent (as send) runs the same checks on what was written.
	run "$TOOLS/record-sent.sh"
	[ "$status" -eq 1 ]
	[[ $output == *"preflight: error: refusing: cover: the cover letter of v2"* ]]
	[ ! -e "$WF_TOP/cover-letters/6.1/sent/v2" ]
	change_series_cover
	run "$TOOLS/submit.sh"
	[ "$status" -eq 0 ]
	[[ $output == *"preflight: ok: validation, cover letter, identities and recipients of v2"* ]]
}

@test "preflight: a reserved-domain author or Signed-off-by refuses; SENDER takes authorship" {
	git -C "$WF_REPO" -c user.name="Sysctl Compat" -c user.email=sysctl-compat@example.org \
		commit -q --amend --reset-author -m "sysctl: Initialise one" -m "Why." \
		-m "Signed-off-by: Sysctl Compat <sysctl-compat@example.org>"
	"$TOOLS/export.sh"
	pass_validation
	run "$TOOLS/submit.sh"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ $output == *"preflight: error: refusing: identity: 2 author/Signed-off-by address(es) in a reserved example domain cannot certify the DCO, first patch 5 '[PATCH 5/5] sysctl: Initialise one': author Sysctl Compat <sysctl-compat@example.org> (take authorship: SENDER='Name <address>', see CONTRIBUTING.md)"* ]]
	[ ! -e "$WF_TOP/out/6.1/submit/v1" ]
	# The sender takes authorship: From and Signed-off-by, in the b4 repo only.
	run "$TOOLS/submit.sh" -S "Sam Sender <sam@fixture.home.arpa>"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"Sam Sender <sam@fixture.home.arpa> takes authorship of 1 commit(s) by a reserved-domain author"* ]]
	p5=$(ls "$WF_TOP"/out/6.1/submit/v1/0005-*.eml)
	run grep -c sysctl-compat "$p5"
	[ "$output" -eq 0 ]
	grep -qx 'Signed-off-by: Sam Sender <sam@fixture.home.arpa>' "$p5"
	grep -q 'sysctl-compat@example.org' "$WF_TOP"/patches/0005-*.patch
	# A sign-off alone in a reserved domain refuses as well, even with SENDER.
	git -C "$WF_REPO" -c user.name="A Developer" -c user.email=dev@fixture.home.arpa \
		commit -q --amend --reset-author -m "sysctl: Initialise one" -m "Why." \
		-m "Signed-off-by: A Developer <dev@fixture.home.arpa>
Signed-off-by: Other <other@mail.example.com>"
	"$TOOLS/export.sh"
	pass_validation
	run "$TOOLS/submit.sh" -S "Sam Sender <sam@fixture.home.arpa>"
	[ "$status" -eq 1 ]
	[[ $output == *"refusing: identity: 1 author/Signed-off-by address(es) in a reserved example domain cannot certify the DCO, first patch 5 '[PATCH 5/5] sysctl: Initialise one': Signed-off-by Other <other@mail.example.com>"* ]]
	run "$TOOLS/submit.sh" -f
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"preflight: FORCE=1: overriding the identity check: 1 author/Signed-off-by address(es)"* ]]
}

@test "preflight: the refusals that need no message come before any b4 work" {
	# A b4 that records each call, then runs the real one.
	mkdir -p "$BATS_TEST_TMPDIR/bin"
	printf '#!/bin/sh\necho "b4 $*" >>"%s"\nexec %s "$@"\n' "$BATS_TEST_TMPDIR/b4-calls" "$(command -v b4)" \
		>"$BATS_TEST_TMPDIR/bin/b4"
	chmod +x "$BATS_TEST_TMPDIR/bin/b4"
	export PATH=$BATS_TEST_TMPDIR/bin:$PATH
	pass_validation '.commits[2].results.checkpatch.status = "fail"'
	run "$TOOLS/submit.sh"
	echo "$output"
	[ "$status" -eq 1 ]
	[ "$output" = "preflight: error: refusing: validation: 1 of 5 commit(s) lack a passing result, first patch 3/5 (tree $(tree_of 3)) checkpatch: fail (run: make validate)" ]
	[ ! -e "$BATS_TEST_TMPDIR/b4-calls" ]
	[ ! -e "$WF_TOP/out/6.1/submit" ]
	# Green, the whole pre-flight runs on the messages b4 wrote, once.
	pass_validation
	run "$TOOLS/submit.sh"
	[ "$status" -eq 0 ]
	[ -s "$BATS_TEST_TMPDIR/b4-calls" ]
	[ "$(grep -c 'preflight: ok' <<<"$output")" -eq 1 ]
	[[ $output == *"preflight: ok: validation, cover letter, identities and recipients of v1"* ]]
}

@test "preflight: a placeholder author refuses, though every Signed-off-by is real" {
	# submit's round trip stops such a commit before the preflight (its
	# author has no Signed-off-by), so the written messages are edited
	# here: make send checks them again.
	"$TOOLS/submit.sh"
	p5=$(ls "$WF_TOP"/out/6.1/submit/v1/0005-*.eml)
	grep -qx 'From: A Developer <dev@fixture.home.arpa>' "$p5"
	sed -i 's/^From: A Developer <dev@fixture.home.arpa>$/From: Sysctl Compat <sysctl-compat@example.org>/' "$p5"
	[ -z "$(grep '^Signed-off-by: .*example' "$p5" || true)" ]
	run "$TOOLS/record-sent.sh"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ $output == *"preflight: error: refusing: identity: 1 author/Signed-off-by address(es) in a reserved example domain cannot certify the DCO, first patch 5 '[PATCH 5/5] sysctl: Initialise one': author Sysctl Compat <sysctl-compat@example.org> (take authorship: SENDER='Name <address>', see CONTRIBUTING.md)"* ]]
	[ ! -e "$WF_TOP/cover-letters/6.1/sent/v1" ]
}

@test "preflight: a cover letter with a placeholder left in it refuses, naming it" {
	printf '\n@TESTING@\n' >>"$WF_TOP/cover-letters/6.1/v1.txt"
	run "$TOOLS/submit.sh"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ $output == *"preflight: error: refusing: cover: the cover letter (cover-letters/6.1/v1.txt) still has the placeholder @TESTING@: fill it in"* ]]
	[ ! -e "$WF_TOP/out/6.1/submit/v1" ]
	sed -i 's/^@TESTING@$/Tested on the fixture./' "$WF_TOP/cover-letters/6.1/v1.txt"
	run "$TOOLS/submit.sh"
	[ "$status" -eq 0 ]
}

@test "preflight: b4's EDITME is a placeholder as @NAME@ is: one check refuses it, naming it; FORCE=1 too (b4 would not send it)" {
	printf '\nEDITME: say what was tested\n' >>"$WF_TOP/cover-letters/6.1/v1.txt"
	run "$TOOLS/submit.sh"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ $output == *"preflight: error: refusing: cover: the cover letter (cover-letters/6.1/v1.txt) still has b4's placeholder EDITME: fill it in"* ]]
	[ ! -e "$WF_TOP/out/6.1/submit/v1" ]
	run "$TOOLS/submit.sh" -f
	echo "$output"
	[ "$status" -eq 1 ]
	[[ $output == *"preflight: error: refusing: cover: the cover letter (cover-letters/6.1/v1.txt) still has b4's placeholder EDITME: fill it in (b4 sends no cover letter with it, FORCE=1 or not)"* ]]
	[[ $output != *"b4 send --no-sign failed"* ]]
	[ ! -e "$WF_TOP/out/6.1/submit/v1" ]
}
