#!/usr/bin/env bats
# Tests of the check directories codespell, kernel-doc, w1 and clang, run by
# runner/validate.sh on the fixture kernel of validate.bats
# (tests/fixtures/validate; checkpatch.pl, spelling.txt and kernel-doc
# of the real 6.1 base).  Each check passes on a clean commit, fails on
# a broken one, and lets a finding that the parent already had pass.

load test_helper
bats_require_minimum_version 1.5.0

setup() {
	setup_validate_fixture
	OUT=$BATS_TEST_TMPDIR/out
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

# commit_tool TEXT: a commit that adds tools/fixture/tool.c (user space,
# not part of the fixture's vmlinux) with printf's TEXT.
commit_tool() {
	mkdir -p "$WF_REPO/tools/fixture"
	# shellcheck disable=SC2059 # TEXT is a printf format on purpose
	printf "$1" >"$WF_REPO/tools/fixture/tool.c"
	git -C "$WF_REPO" add -f tools/fixture/tool.c
	git -C "$WF_REPO" -c user.name=A -c user.email=a@example.org commit -q -s -m "tools: Add a tool" -m "Why."
}

@test "codespell: a misspelling in a comment or a message fails its commit; one the parent had does not" {
	validate_commit_edit kernel/names.c 's/return 2;/return 3;/' "sysctl: Translate one more name"
	validate_commit_edit kernel/names.c 's|^int probed(void)$|/* The names we recieve. */\nint probed(void)|' \
		"sysctl: Say where the names come from"
	validate_commit_edit kernel/names.c 's|we recieve\.|we recieve, all of them.|' "sysctl: Say it of all names"
	# "acheive" is in codespell's dictionary, not in scripts/spelling.txt.
	validate_commit_edit kernel/names.c 's/return 12;/return 13;/' "sysctl: Probe one more name" \
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

@test "codespell: a renamed file keeps the misspellings it had: they are not new in the commit that renames it" {
	validate_commit_edit kernel/names.c 's|^int probed(void)$|/* The names we recieve. */\nint probed(void)|' \
		"sysctl: Say where the names come from"
	# Renamed, and the line with the misspelling touched on the way.
	git -C "$WF_REPO" mv kernel/names.c kernel/translate.c
	validate_commit_edit kernel/translate.c 's|we recieve\.|we recieve, all of them.|' "sysctl: Rename names.c"
	git -C "$WF_REPO" show --stat --format= HEAD | grep -qF 'kernel/{names.c => translate.c}'
	validate -c codespell
	echo "$output"
	[ "$status" -eq 1 ]
	[ "$(cell 1 codespell)" = fail ]
	[ "$(cell 2 codespell)" = pass ]
	[ "$(reason 2 codespell)" = "codespell: none new (1 on lines the commit touches, there at the parent already)" ]
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
	# The table and the report name the cause, not only an exit status.
	[ "$(reason 1 codespell)" = "codespell: cannot read the codespell dictionary $BATS_TEST_TMPDIR/none/dictionary.txt" ]
	[[ $output == *"infrastructure error: "*" codespell: codespell: cannot read the codespell dictionary"* ]]
	# Found where Debian's codespell package puts it, it runs.
	run_check codespell
	[ "$status" -eq 0 ]
	# shellcheck disable=SC2154 # set by run --separate-stderr
	[[ $stderr == *"dictionary: "*"/dictionary.txt"* ]]
}

@test "checkpatch: no perl is an infrastructure error, named, never a fail of the commit" {
	validate_commit_edit kernel/names.c 's/return 2;/return 3;/' "sysctl: Translate one more name"
	# A PATH with everything the runner needs but perl.
	mkdir -p "$BATS_TEST_TMPDIR/bin"
	for t in bash git sed awk grep cat head tail cut tr sort mkdir rm mv cp ln ls find xargs \
		sha256sum date wc stat realpath mktemp flock jq dirname basename env tee df sleep touch chmod uniq; do
		ln -sf "$(command -v "$t")" "$BATS_TEST_TMPDIR/bin/$t"
	done
	PATH=$BATS_TEST_TMPDIR/bin validate -c checkpatch
	echo "$output"
	[ "$status" -eq 3 ]
	[ "$(cell 1 checkpatch)" = infra ]
	[ "$(reason 1 checkpatch)" = "checkpatch: perl is not installed (run: apt-get install perl)" ]
	# make checkpatch says so too, and judges no commit.
	PATH=$BATS_TEST_TMPDIR/bin run "$TOOLS/checkpatch.sh" "$VALIDATE_RANGE"
	[ "$status" -eq 3 ]
	[[ $output == *"checkpatch: infrastructure error: "*": checkpatch: perl is not installed (run: apt-get install perl)" ]]
	[[ $output != *"fail "* ]]
	# Nothing of it was cached: with perl, it runs and passes.
	validate -c checkpatch
	[ "$status" -eq 0 ]
	[ "$(cell 1 checkpatch)" = pass ]
}

@test "checkpatch: a helper script that dies (spdxcheck.py without its modules) is an infrastructure error" {
	# checkpatch.pl runs scripts/spdxcheck.py on each new SPDX line and
	# goes on when it dies: without python3-ply the license check never ran.
	printf '#!/usr/bin/env python3\nraise ModuleNotFoundError("No module named %s")\n' "'ply'" \
		>"$WF_REPO/scripts/spdxcheck.py"
	chmod +x "$WF_REPO/scripts/spdxcheck.py"
	git -C "$WF_REPO" add -f scripts/spdxcheck.py
	printf '// SPDX-License-Identifier: GPL-2.0\n\nint spdx_checked;\n' >"$WF_REPO/kernel/spdx.c"
	git -C "$WF_REPO" add -f kernel/spdx.c
	git -C "$WF_REPO" -c user.name="A Developer" -c user.email=dev@example.org \
		commit -q -s -m "sysctl: Add spdx.c" -m "Why this change is needed."
	validate -c checkpatch
	echo "$output"
	[ "$status" -eq 3 ]
	[ "$(cell 1 checkpatch)" = infra ]
	[ "$(reason 1 checkpatch)" = "checkpatch: a script run by checkpatch.pl failed, so not all of its checks ran: ModuleNotFoundError: No module named 'ply' (see the log)" ]
	# The log keeps checkpatch's output, the traceback included.
	grep -q '^Traceback (most recent call last):' "$(log 1 checkpatch)"
	grep -q 'total: 0 errors' "$(log 1 checkpatch)"
}

@test "checkpatch: a message accepted for one file, with its reason, passes there and nowhere else" {
	validate_commit_edit kernel/names.c 's/return 12;/return -ENOSYS;/' "sysctl: Answer ENOSYS when off"
	# Not accepted: checkpatch's ENOSYS warning fails the commit.
	validate -c checkpatch
	[ "$status" -eq 1 ]
	[ "$(reason 1 checkpatch)" = "checkpatch: 0 errors, 1 warnings, 0 checks" ]
	grep -q "^WARNING:ENOSYS: ENOSYS means 'invalid syscall nr' and nothing else" "$(log 1 checkpatch)"
	# Accepted for that file: a pass, and the summary says what it accepted.
	checks_copy
	printf '# why\nENOSYS kernel/*.c the call is switched off\n' >"$CHECKS_COPY/checkpatch/accepted"
	WF_CHECKS_DIR=$CHECKS_COPY validate -c checkpatch
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(reason 1 checkpatch)" = "checkpatch: 0 errors, 1 warnings, 0 checks; 1 accepted (ENOSYS in kernel/names.c)" ]
	# Accepted for another file only, or another type: a fail again.
	# A glob matches no path below a directory: * and ? stop at a /.
	for line in 'ENOSYS kernel/other.c reason' 'ENOTSUPP kernel/names.c reason' 'ENOSYS kernel/names.c.orig reason' \
		'ENOSYS *.c reason' 'ENOSYS *names.c reason' 'ENOSYS kernel?names.c reason'; do
		printf '%s\n' "$line" >"$CHECKS_COPY/checkpatch/accepted"
		WF_CHECKS_DIR=$CHECKS_COPY validate -c checkpatch
		echo "accepted: $line: $(reason 1 checkpatch)"
		[ "$status" -eq 1 ]
		[ "$(reason 1 checkpatch)" = "checkpatch: 0 errors, 1 warnings, 0 checks" ]
	done
}

@test "kernel-doc: a new kernel-doc error fails its commit; one the parent had does not; no C file is a skip" {
	# tools/ (user space) is left out, so this commit has no file to check.
	commit_tool '/**\n * tool_main() - The tool.\n */\nint tool_main(int argc)\n{\n\treturn argc;\n}\n'
	validate_commit_edit kernel/names.c 's|^int probed(void)$|/**\n * names_total() - The number of names.\n * @kind: which names.\n *\n * Return: how many there are.\n */\nint names_total(int kind)\n{\n\treturn kind;\n}\n\nint probed(void)|' \
		"sysctl: Count the names"
	validate_commit_edit kernel/names.c 's|^int probed(void)$|/**\n * names_left() - The names not translated.\n *\n * Return: how many there are.\n */\nint names_left(int foo)\n{\n\treturn foo;\n}\n\nint probed(void)|' \
		"sysctl: Count the names left"
	validate_commit_edit kernel/names.c 's/return 12;/return 13;/' "sysctl: Probe one more name"
	validate -c kernel-doc
	echo "$output"
	[ "$status" -eq 1 ]
	[ "$(cell 1 kernel-doc)" = skip ]
	[ "$(reason 1 kernel-doc)" = "kernel-doc: no .c or .h file changed (outside tools/ and Documentation/)" ]
	[ "$(cell 2 kernel-doc)" = pass ]
	# 6.1's kernel-doc has no -Wall: -v turns on the same warnings.
	[ "$(reason 2 kernel-doc)" = "kernel-doc -v: 1 file(s), 0 message(s), none new" ]
	[ "$(cell 3 kernel-doc)" = fail ]
	[ "$(reason 3 kernel-doc)" = "kernel-doc: 1 new message(s) in 1 file(s): kernel/names.c: warning: Function parameter or member 'foo' not described in 'names_left'" ]
	grep -qE "^kernel/names.c:[0-9]+: warning: Function parameter or member 'foo' not described in 'names_left'" \
		"$(log 3 kernel-doc)"
	[ "$(cell 4 kernel-doc)" = pass ]
	[ "$(reason 4 kernel-doc)" = "kernel-doc -v: 1 file(s), 1 message(s), none new" ]
}

@test "kernel-doc: a renamed file keeps its old messages; a new file has no parent; no kernel-doc is an infrastructure error" {
	validate_commit_edit kernel/names.c 's|^int probed(void)$|/**\n * names_left() - The names not translated.\n */\nint names_left(int foo)\n{\n\treturn foo;\n}\n\nint probed(void)|' \
		"sysctl: Count the names left"
	git -C "$WF_REPO" mv kernel/names.c kernel/sysctl_names.c
	git -C "$WF_REPO" -c user.name=A -c user.email=a@example.org commit -q -s -m "sysctl: Rename names.c" -m "Why."
	printf '/**\n * extra() - More.\n */\nint extra(int bar);\n' >"$WF_REPO/include/extra.h"
	git -C "$WF_REPO" add -f include/extra.h
	git -C "$WF_REPO" -c user.name=A -c user.email=a@example.org commit -q -s -m "sysctl: Add extra.h" -m "Why."
	validate -c kernel-doc
	echo "$output"
	[ "$status" -eq 1 ]
	[ "$(cell 1 kernel-doc)" = fail ]
	# (its comment has no @foo and no Return: two messages)
	[ "$(cell 2 kernel-doc)" = pass ]
	[ "$(reason 2 kernel-doc)" = "kernel-doc -v: 1 file(s), 2 message(s), none new" ]
	[ "$(cell 3 kernel-doc)" = fail ]
	[[ $(reason 3 kernel-doc) == *"include/extra.h: warning: Function parameter or member 'bar' not described in 'extra'" ]]
	git -C "$WF_REPO" rm -q scripts/kernel-doc
	git -C "$WF_REPO" -c user.name=A -c user.email=a@example.org commit -q -s -m "scripts: Drop kernel-doc" -m "Why."
	validate_commit_edit include/extra.h 's/int bar/int baz/' "sysctl: Rename bar"
	run_check kernel-doc
	[ "$status" -eq 2 ]
	[ "$output" = "kernel-doc: no scripts/kernel-doc in $WF_REPO" ]
	# One that dies after some chatter: its last line, in one line.
	mkdir -p "$WF_REPO/scripts"
	printf 'print STDERR "reading the files\\n";\ndie "kernel-doc broke\\n";\n' >"$WF_REPO/scripts/kernel-doc"
	git -C "$WF_REPO" add -f scripts/kernel-doc
	git -C "$WF_REPO" -c user.name=A -c user.email=a@example.org commit -q -s -m "scripts: A kernel-doc that dies" -m "Why."
	validate_commit_edit include/extra.h 's/int baz/int qux/' "sysctl: Rename baz"
	run_check kernel-doc
	echo "$output"
	[ "$status" -eq 2 ]
	[[ $output == "kernel-doc: scripts/kernel-doc failed on "*": kernel-doc broke" ]]
	[ "${#lines[@]}" -eq 1 ]
}

@test "the runner picks up codespell, kernel-doc, kconfig, w1, clang and cross as directories, with no edit to it" {
	validate_commit_edit kernel/names.c 's/return 2;/return 3;/' "sysctl: Translate one more name"
	# A copy of checks/ without them.
	local copy=$BATS_TEST_TMPDIR/wf/checks
	mkdir -p "$copy"
	for d in "$CHECKS"/*; do
		case ${d##*/} in codespell | kernel-doc | kconfig | w1 | clang | cross | arm64) continue ;; esac
		cp -r "$d" "$copy/"
	done
	WF_CHECKS_DIR=$copy validate -c checkpatch
	[ "$status" -eq 0 ]
	[ "$(jq -c .checks "$OUT/results.json")" = '["checkpatch","recipients","sparse","boot","off","nonet","i386","noproc","qemu","abi","guest-boot","guest-off","guest-nonet","guest-i386","guest-noproc"]' ]
	cp -r "$CHECKS/codespell" "$CHECKS/kernel-doc" "$CHECKS/kconfig" "$CHECKS/w1" "$CHECKS/clang" "$CHECKS/cross" "$copy/"
	WF_CHECKS_DIR=$copy validate -c checkpatch,codespell,kernel-doc,kconfig,w1,clang,cross
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(jq -c .checks "$OUT/results.json")" = '["checkpatch","recipients","codespell","sparse","kernel-doc","kconfig","boot","off","nonet","i386","noproc","w1","clang","cross","qemu","abi","guest-boot","guest-off","guest-nonet","guest-i386","guest-noproc"]' ]
	for check in codespell kernel-doc w1 clang cross; do [ "$(cell 1 $check)" = pass ]; done
	# (the fixture's commit changes no Kconfig file: kconfig.bats tests it)
	[ "$(cell 1 kconfig)" = skip ]
	# Their columns in the report's tables (as many as 100 columns need),
	# in the runner's order.
	[ "$(grep -E '^# +commit' "$OUT/report.txt" | sed -E 's/^# +commit( +subject)?//' | xargs)" = \
		"checkpatch recipients codespell sparse kernel-doc kconfig boot off nonet i386 noproc w1 clang cross qemu abi guest-boot guest-off guest-nonet guest-i386 guest-noproc" ]
	[ "$(awk '{ print length($0) }' "$OUT/report.txt" | sort -n | tail -n 1)" -le 100 ]
}

@test "w1: a new W=1 warning of a touched file fails its commit, against the parent; an old one passes; only touched files that are built" {
	validate_commit_edit kernel/names.c 's/return 2;/return 3;/' "sysctl: Translate one more name"
	validate_commit_edit kernel/names.c 's|^int probed(void)$|int names_unlisted(void)\n{\n\treturn 1;\n}\n\nint probed(void)|' \
		"sysctl: Add a function without a prototype"
	validate_commit_edit kernel/names.c 's|^\treturn 3;$|\tint set_only;\n\n\tset_only = 1;\n\treturn 3;|' \
		"sysctl: Set a variable that is not used"
	validate_commit_edit kernel/names.c 's/return 12;/return 13;/' "sysctl: Probe one more name"
	# A C file that vmlinux is not made of: W=1 would warn, it is not compiled.
	commit_tool 'int tool_main(int argc)\n{\n\treturn argc;\n}\n'
	# After a commit it skipped, the next is compared with its own parent.
	validate_commit_edit kernel/names.c 's/return 13;/return 14;/' "sysctl: Probe another name"
	validate_commit_edit kernel/names.c 's/^int probed(void)$/broken\nint probed(void)/' "sysctl: Break the build"
	validate -c w1,boot
	echo "$output"
	[ "$status" -eq 1 ]
	[ "$(cell 1 w1)" = pass ]
	[ "$(reason 1 w1)" = "0 W=1 warnings in kernel/names.c (boot)" ]
	[ "$(cell 2 w1)" = fail ]
	[ "$(reason 2 w1)" = "1 new W=1 warning(s) in boot, against the parent: kernel/names.c: warning: no previous prototype for 'names_unlisted' [-Wmissing-prototypes]" ]
	grep -qF "W=1 on kernel/names.c at the parent" "$(log 2 w1)"
	[ "$(cell 3 w1)" = fail ]
	[[ $(reason 3 w1) == *"against the parent: kernel/names.c: warning: variable 'set_only' set but not used [-Wunused-but-set-variable]" ]]
	for row in 1 2 3 4 5 6; do [ "$(cell $row boot)" = pass ]; done
	# The same file compiled at the commit and its parent: both warnings are old.
	[ "$(cell 4 w1)" = pass ]
	[ "$(reason 4 w1)" = "2 W=1 warning(s) in kernel/names.c (boot), none new against the parent" ]
	[ "$(cell 5 w1)" = skip ]
	[ "$(reason 5 w1)" = "not run: it touches no C file that boot builds" ]
	[ "$(cell 6 w1)" = pass ]
	[ "$(cell 7 boot)" = fail ]
	[ "$(cell 7 w1)" = skip ]
	[ "$(reason 7 w1)" = "not run: boot gave no usable result on this commit" ]
	# Its own checkout and objects; the build check's have no W=1 warning.
	[ -f "$WF_CACHE/branches/6.1/validate/build/w1/src/kernel/names.c" ]
	[ -f "$WF_CACHE/branches/6.1/validate/build/w1/obj/kernel/names.o" ]
	[ ! -e "$WF_CACHE/branches/6.1/validate/build/w1/obj/kernel/main.o" ]
	run ! grep -q 'names_unlisted' "$WF_CACHE"/branches/6.1/validate/results/boot/*/state
}

@test "w1: the C files a commit adds or renames are compiled, not only those it modifies" {
	printf '// SPDX-License-Identifier: GPL-2.0\n#include "fixture.h"\n\nint added_unlisted(void)\n{\n\treturn 1;\n}\n' \
		>"$WF_REPO/kernel/added.c"
	git -C "$WF_REPO" add -f kernel/added.c
	git -C "$WF_REPO" -c user.name="A Developer" -c user.email=dev@example.org \
		commit -q -s -m "sysctl: Add added.c" -m "Why this change is needed."
	git -C "$WF_REPO" mv kernel/names.c kernel/translate.c
	git -C "$WF_REPO" -c user.name="A Developer" -c user.email=dev@example.org \
		commit -q -s -m "sysctl: Rename names.c" -m "Why this change is needed."
	validate -c w1,boot
	echo "$output"
	[ "$status" -eq 1 ]
	[ "$(cell 1 w1)" = fail ]
	[ "$(reason 1 w1)" = "1 new W=1 warning(s) in boot, against the parent: kernel/added.c: warning: no previous prototype for 'added_unlisted' [-Wmissing-prototypes]" ]
	[ "$(cell 2 w1)" = pass ]
	[ "$(reason 2 w1)" = "0 W=1 warnings in kernel/translate.c (boot)" ]
}

@test "w1: a file compiled earlier is compiled again; the runner's work tree is left alone" {
	validate_commit_edit kernel/names.c 's|^int probed(void)$|int names_unlisted(void)\n{\n\treturn 1;\n}\n\nint probed(void)|' \
		"sysctl: Add a function without a prototype"
	validate_commit_edit kernel/names.c 's/return 12;/return 13;/' "sysctl: Probe one more name"
	validate -c w1,boot
	echo "$output"
	[ "$(cell 1 w1)" = fail ]
	[ "$(cell 2 w1)" = pass ]
	[ "$(reason 2 w1)" = "1 W=1 warning(s) in kernel/names.c (boot), none new against the parent" ]
	# Its checkout is at the last commit it compiled; going back to the
	# first compiles names.c again (its object is up to date there).
	git -C "$WF_REPO" reset -q --hard HEAD^
	rm -rf "$WF_CACHE/branches/6.1/validate/results/w1"
	validate -c w1,boot
	echo "$output"
	[ "$(cell 1 w1)" = fail ]
	[[ $(reason 1 w1) == *"names_unlisted"* ]]
	[ -z "$(git -C "$WF_REPO" status --porcelain)" ]
	[[ $(git -C "$WF_REPO" worktree list) != *validate/build/w1* ]]
}

@test "clang: at the tip only, against the base; a warning clang gives and gcc does not fails it" {
	validate_commit_edit kernel/names.c 's/return 2;/return 3;/' "sysctl: Translate one more name"
	validate_commit_edit kernel/names.c 's|^\treturn 12;$|\tint n = 12;\n\n\treturn n \&\& 2 ? n : 0;|' \
		"sysctl: Probe with a constant operand"
	validate -c clang,boot
	echo "$output"
	[ "$status" -eq 1 ]
	[ "$(cell 1 clang)" = skip ]
	[ "$(reason 1 clang)" = "not run: at the tip only" ]
	[ "$(cell 2 clang)" = fail ]
	[[ $(reason 2 clang) == "1 new clang warning(s) in boot (against the base, tree "*"): kernel/names.c: warning: use of logical '&&' with constant operand [-Wconstant-logical-operand]" ]]
	grep -qF "1 clang warning(s) at the tip: building the base" "$(log 2 clang)"
	for row in 1 2; do [ "$(cell $row boot)" = pass ]; done
	# Fixed at a new tip: no warning, the base is not built.
	validate_commit_edit kernel/names.c 's/return n \&\& 2 ? n : 0;/return n;/' "sysctl: Drop the constant operand"
	rm -rf "$WF_CACHE/branches/6.1/validate/build/clang/base"
	validate -c clang
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(cell 2 clang)" = skip ]
	[ "$(cell 3 clang)" = pass ]
	[ "$(reason 3 clang)" = "0 clang warnings in boot" ]
	[ -d "$WF_CACHE/branches/6.1/validate/build/clang/tip" ]
	[ ! -e "$WF_CACHE/branches/6.1/validate/build/clang/base" ]
}

@test "clang: clang without ld.lld (or ld.lld without clang) is an infrastructure error, named, before anything runs" {
	validate_commit_edit kernel/names.c 's/return 2;/return 3;/' "sysctl: Translate one more name"
	local tool bin
	for tool in ld.lld clang; do
		# Everything of this machine's PATH but TOOL.
		bin=$BATS_TEST_TMPDIR/bin-$tool
		mkdir -p "$bin"
		for f in /usr/local/bin/* /usr/bin/* /bin/*; do
			case ${f##*/} in "$tool" | "$tool"-[0-9]*) continue ;; esac
			ln -sf "$f" "$bin/${f##*/}"
		done
		PATH=$bin run_check clang
		echo "$tool: $output"
		[ "$status" -eq 2 ]
		[ "$output" = "clang or ld.lld is not installed (apt-get install clang lld llvm)" ]
		[ ! -e "$BATS_TEST_TMPDIR/clang/tree" ]
	done
}

@test "clang: a warning the base has too is old at the tip" {
	# The base warns in main.c; the series leaves that line alone.
	sed -i 's|^int main(void)$|static int unused_const(void)\n{\n\tint n = 1;\n\n\treturn n \&\& 2;\n}\n\nint main(void)|' \
		"$WF_REPO/kernel/main.c"
	grep -q unused_const "$WF_REPO/kernel/main.c"
	git -C "$WF_REPO" commit -q -a --amend --no-edit
	git -C "$WF_REPO" tag -f fixture-base >/dev/null
	validate_commit_edit kernel/names.c 's/return 2;/return 3;/' "sysctl: Translate one more name"
	validate -c clang
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(cell 1 clang)" = pass ]
	[[ $(reason 1 clang) == "2 clang warning(s) in boot, none new (against the base, tree "*")" ]]
}

# commit_by AUTHOR FILE TEXT: a commit by AUTHOR ("Name <addr>") that
# writes TEXT to FILE.
commit_by() {
	mkdir -p "$(dirname "$WF_REPO/$2")"
	printf '%s\n' "$3" >"$WF_REPO/$2"
	git -C "$WF_REPO" add -f "$2"
	git -C "$WF_REPO" -c user.name=C -c user.email=c@example.org commit -q --author="$1" -m "sysctl: Change $2" -m "Why."
}

@test "recipients: a patch whose only To: would be its author fails; one under a MAINTAINERS entry passes" {
	printf '%s\n' 'SYSCTL FIXTURE' 'M:	Jane Maintainer <jane@maintainers.test>' \
		'L:	fixture@lists.test' 'S:	Maintained' 'F:	kernel/names.c' '' \
		'THE REST' 'M:	Linus Torvalds <torvalds@linux-foundation.org>' \
		'L:	linux-kernel@vger.kernel.org' 'S:	Buried alive in reporters' 'F:	*' 'F:	*/' >"$WF_REPO/MAINTAINERS"
	git -C "$WF_REPO" add -f MAINTAINERS
	git -C "$WF_REPO" -c user.name=A -c user.email=a@example.org commit -q -m "Add MAINTAINERS"
	# A file no entry covers: To: would be the author alone (THE REST's
	# M: is Linus, whom b4 leaves out).
	commit_by 'Ann Author <ann@authors.test>' kernel/other.c 'int other;'
	run_check recipients
	echo "$output"; cat "$BATS_TEST_TMPDIR/recipients/"* 2>/dev/null || true
	[ "$status" -eq 1 ]
	[ "$output" = "To: would be the author alone: get_maintainer.pl names no maintainer for kernel/other.c" ]
	# A file of the entry: its maintainer.
	commit_by 'Ann Author <ann@authors.test>' kernel/names.c 'int names;'
	run_check recipients
	[ "$status" -eq 0 ]
	[ "$output" = "To: 1 maintainer(s) (jane@maintainers.test)" ]
	# The maintainer's own patch: no maintainer other than its author.
	commit_by 'Jane Maintainer <Jane@Maintainers.test>' kernel/names.c 'int names2;'
	run_check recipients
	[ "$status" -eq 1 ]
	[[ $output == "To: would be the author alone: "* ]]
}
