#!/usr/bin/env bats
# Tests of runner/validate.sh, the runner of the check directories, on a
# fixture kernel tree (tests/fixtures/validate: a Makefile with kbuild's
# interface that compiles two C files into a host program printing a
# "console log").  The real checks run: checks/build (kbuild.sh),
# checks/sparse, checkpatch.pl of 6.1, checks/qemu with run.sh's log
# judge; only the boot is the fixture's.  Each check must fail on the
# right row.

load test_helper
bats_require_minimum_version 1.5.0

setup() {
	setup_validate_fixture
	OUT=$BATS_TEST_TMPDIR/out
}

teardown() {
	if [[ -n ${TMPFS:-} ]]; then
		umount "$TMPFS" 2>/dev/null || true
	fi
}

# full_tmpfs DIR SIZE [FROM]: a tmpfs of SIZE on DIR (TMPFS, unmounted by
# teardown) holding a copy of FROM's files if given, filled up by the file
# filler; skips the test when it cannot mount one.
full_tmpfs() {
	require TMPFS
	TMPFS=$1
	mkdir -p "$TMPFS"
	mount -t tmpfs -o size="$2" tmpfs "$TMPFS"
	[[ -z ${3:-} ]] || cp -a "$3/." "$TMPFS/"
	dd if=/dev/zero of="$TMPFS/filler" bs=4k 2>/dev/null || true
}

# infra_lines_under DIR: how many lines of the output name an
# infrastructure error from a full disk under DIR.
infra_lines_under() {
	grep -cE "^validate: infrastructure error: [0-9a-f]{12} [a-z0-9-]+: no space left on device in $1(/| \(|$)" <<<"$output" || true
}

# html_matches_json: report.html has a row per commit and one cell per
# result, of the class of its status in results.json, linking its log.
html_matches_json() {
	local html=$OUT/report.html st n
	[ "$(jq .schema "$OUT/results.json")" -eq 3 ]
	[ "$(grep -c '^<tr><td>' "$html")" -eq "$(jq '.commits | length' "$OUT/results.json")" ]
	# (a tip-only check below the tip is no result: "-", of class none)
	for st in pass fail skip infra; do
		n=$(jq "[.commits[].results[] | select(.status == \"$st\" and .reason != \"not run: at the tip only\")] | length" "$OUT/results.json")
		[ "$(grep -o "<td class=\"$st\"" "$html" | wc -l)" -eq "$n" ]
	done
	n=$(jq '[.commits[].results[] | select(.reason == "not run: at the tip only")] | length' "$OUT/results.json")
	[ "$(grep -o '<td class="none" title="not run: at the tip only">-</td>' "$html" | wc -l)" -eq "$n" ]
	# Every result that ran links its log, and the log is there.
	while read -r f; do
		[ -f "$f" ]
	done < <(grep -o 'href="file://[^"]*"' "$html" | sed 's/^href="file:\/\///; s/"$//')
	[ "$(grep -o 'href="file://' "$html" | wc -l)" -eq "$(jq '[.commits[].results[] | select(.log != "")] | length' "$OUT/results.json")" ]
}

@test "validate: a clean series passes every check; a re-run comes from the cache and builds nothing" {
	validate_commit_edit kernel/names.c 's/return 2;/return 3;/' "sysctl: Translate one more name"
	validate_commit_edit kernel/names.c 's/return 12;/return 13;/' "sysctl: Probe one more name"
	validate
	echo "$output"
	[ "$status" -eq 0 ]
	for row in 1 2; do
		for check in checkpatch recipients codespell sparse kernel-doc boot off nonet i386 noproc w1 qemu abi guest-boot guest-off guest-nonet guest-i386 guest-noproc; do
			[ "$(cell $row $check)" = pass ]
		done
		# (no commit of the fixture changes a Kconfig file)
		[ "$(cell $row kconfig)" = skip ]
	done
	# clang, cross and arm64 at the tip only: below it no result, "-" in the tables
	for check in clang cross arm64; do
		[ "$(cell 1 $check)" = skip ]
		[ "$(cell 2 $check)" = pass ]
	done
	grep -qxF -- '- is no result: clang cross arm64 run(s) at the tip only' "$OUT/report.txt"
	grep -qE '^1 +[0-9a-f]{12} .* -( |$)' "$OUT/report.txt"
	[ "$(jq .failed "$OUT/results.json")" -eq 0 ]
	[[ $output == *"41 result(s): 0 failed, 0 from the cache (marked *), 41 run now, 0 infrastructure error(s)"* ]]
	grep -qE '^2 +[0-9a-f]{12} sysctl: Probe one.* +pass +pass' "$OUT/report.txt"
	# The table fits in 100 columns; the page has the same grid.
	[ "$(awk '{ print length($0) }' "$OUT/report.txt" | sort -n | tail -n 1)" -le 100 ]
	html_matches_json
	# Progress lines: commit i/N, the check, the elapsed time.
	[[ $output == *"[    2/2] "*" nonet      build ("[0-9]*"m"[0-9][0-9]"s)"* ]]
	stamp=$(date -r "$WF_CACHE/branches/6.1/validate/build/boot/build.log" +%s.%N)
	validate
	[ "$status" -eq 0 ]
	[[ $output == *"41 result(s): 0 failed, 41 from the cache (marked *), 0 run now"* ]]
	[[ $output != *" build ("* ]]
	grep -qE '^1 +[0-9a-f]{12} sysctl: Translate on.* +pass\* +pass\*' "$OUT/report.txt"
	[ "$(date -r "$WF_CACHE/branches/6.1/validate/build/boot/build.log" +%s.%N)" = "$stamp" ]
	[ "$(jq '.commits[1].results.qemu.cached' "$OUT/results.json")" = true ]
	# The developer's work tree was not touched.
	[ "$(git -C "$WF_REPO" rev-parse HEAD)" = "$(git -C "$WF_REPO" rev-parse fixture-topic)" ]
	[ -z "$(git -C "$WF_REPO" status --porcelain --untracked-files=no)" ]
}

@test "validate: a checkpatch error fails that commit's checkpatch cell; a warning alone does too; so does the cache" {
	validate_commit_edit kernel/names.c 's/return 2;/return 3;/' "sysctl: Translate one more name"
	validate_commit_edit kernel/names.c 's/^\treturn 12;$/\treturn  12 ;   /' "sysctl: Add badly formatted code"
	# the trailing whitespace (an error) gone, the space before ";" (a warning) kept
	validate_commit_edit kernel/names.c 's/^\treturn  12 ;   $/\treturn 12 ;/' "sysctl: Keep a space before the semicolon"
	validate -c checkpatch
	[ "$status" -eq 1 ]
	[ "$(cell 1 checkpatch)" = pass ]
	[ "$(cell 2 checkpatch)" = fail ]
	[ "$(cell 2 boot)" = skip ]
	[ "$(reason 2 checkpatch)" = "checkpatch: 1 errors, 1 warnings, 0 checks" ]
	[ "$(cell 3 checkpatch)" = fail ]
	[ "$(reason 3 checkpatch)" = "checkpatch: 0 errors, 1 warnings, 0 checks" ]
	# From the cache, a failure is still one.
	validate -c checkpatch
	[ "$status" -eq 1 ]
	[ "$(jq -c '[.commits[].results.checkpatch.cached]' "$OUT/results.json")" = '[true,true,true]' ]
	[ "$(cell 2 checkpatch)" = fail ]
	[ "$(cell 3 checkpatch)" = fail ]
	grep -q "ERROR:TRAILING_WHITESPACE: trailing whitespace" "$(log 2 checkpatch)"
	grep -q "WARNING:SPACING: space prohibited before semicolon" "$(log 2 checkpatch)"
	# The failure names its log file.
	grep -A2 '^fail 2 [0-9a-f]* sysctl: Add badly formatted code \[checkpatch\]' "$OUT/report.txt" |
		grep -qxF "  log: $(log 2 checkpatch)"
}

@test "validate: a new compiler warning fails its commit, an old one does not, a replacing one does" {
	validate_commit_edit kernel/names.c 's/^\treturn 2;/\tint unused_a;\n\n\treturn 2;/' "sysctl: Add a warning"
	validate_commit_edit kernel/names.c 's/return 12;/return 13;/' "sysctl: Keep the warning"
	validate_commit_edit kernel/names.c 's/unused_a/unused_b/' "sysctl: Replace the warning by another"
	# A commit that does not recompile names.c, then one that does: its
	# warning is still old.
	validate_commit_edit kernel/main.c 's/fixture booted/fixture booted!/' "sysctl: Say it louder"
	validate_commit_edit kernel/names.c 's/return 13;/return 14;/' "sysctl: Probe another name"
	validate -c boot,i386
	echo "$output"
	[ "$status" -eq 1 ]
	for check in boot i386; do
		[ "$(cell 1 $check)" = fail ]
		[ "$(cell 2 $check)" = pass ]
		[ "$(cell 3 $check)" = fail ]
		[ "$(cell 4 $check)" = pass ]
		[ "$(cell 5 $check)" = pass ]
	done
	[[ $(reason 1 boot) == *"1 new compiler warning(s) in boot"* ]]
	[[ $(reason 1 boot) == *"kernel/names.c: warning: unused variable 'unused_a' [-Wunused-variable]"* ]]
	[[ $(reason 3 i386) == *"kernel/names.c: warning: unused variable 'unused_b'"* ]]
	[[ $(reason 3 i386) != *"unused_a"* ]]
}

@test "validate: a new sparse warning fails its commit; the base's own sparse warnings do not" {
	# The base's kernel/sysctl.c has sparse warnings ("int one;" is not
	# static); recompiling it must not report them.
	validate_commit_edit kernel/sysctl.c 's/^int one;/int one = 1;/' "sysctl: Initialise one"
	validate_commit_edit kernel/names.c 's/^int probed(void)$/int *null_names(void)\n{\n\treturn 0;\n}\n\nint probed(void)/' \
		"sysctl: Return a plain zero as a pointer"
	sed -i 's/^int probed(void);/int probed(void);\nint *null_names(void);/' "$WF_REPO/include/fixture.h"
	git -C "$WF_REPO" add -f include/fixture.h
	git -C "$WF_REPO" -c user.name=A -c user.email=a@example.org commit -q --amend --no-edit
	validate -c sparse,boot
	echo "$output"
	[ "$status" -eq 1 ]
	[ "$(cell 1 sparse)" = pass ]
	[ "$(cell 1 boot)" = pass ]
	[ "$(cell 2 sparse)" = fail ]
	[ "$(cell 2 boot)" = pass ]
	[[ $(reason 2 sparse) == *"kernel/names.c: warning: Using plain integer as NULL pointer"* ]]
	grep -q "kernel/sysctl.c: warning: symbol 'two' was not declared" \
		"$WF_CACHE"/branches/6.1/validate/results/sparse/*/state
	# sparse builds apart: the build check's warnings have none of its own.
	run ! grep -q 'sparse' "$WF_CACHE"/branches/6.1/validate/results/boot/*/state
}

@test "validate: a commit that does not build fails on that commit alone" {
	validate_commit_edit kernel/names.c 's/return 2;/return 3;/' "sysctl: Translate one more name"
	validate_commit_edit kernel/names.c 's/^int probed(void)$/#ifndef CONFIG_NET\nbroken\n#endif\nint probed(void)/' \
		"sysctl: Break the build without networking"
	validate_commit_edit kernel/names.c '/^#ifndef CONFIG_NET$/,/^#endif$/d' "sysctl: Fix the build without networking"
	validate -c boot,nonet
	echo "$output"
	[ "$status" -eq 1 ]
	[ "$(cell 1 nonet)" = pass ]
	[ "$(cell 2 nonet)" = fail ]
	[ "$(cell 3 nonet)" = pass ]
	for row in 1 2 3; do [ "$(cell $row boot)" = pass ]; done
	[[ $(reason 2 nonet) == *"does not build in nonet"* ]]
	[[ $(reason 2 nonet) == *"kernel/names.c"*"error:"* ]]
	[ "$(grep -c '^fail ' "$OUT/report.txt")" -eq 1 ]
}

@test "validate: a failing boot and a drop of the translated names fail the qemu cell" {
	validate_commit_edit kernel/names.c 's/return 2;/return 3;/' "sysctl: Translate one more name"
	validate_commit_edit kernel/main.c 's/^\tprintf("1..1\\n");/\tprintf("not ok 2 - sysctl(2) reads kernel\/ostype: 0 bytes\\n1..2\\n");/' \
		"sysctl: Break the smoke test"
	validate_commit_edit kernel/main.c 's/^\tprintf("not ok 2.*/\tprintf("1..1\\n");/' "sysctl: Repair the smoke test"
	validate_commit_edit kernel/names.c 's/return 3;/return 1;/' "sysctl: Lose two names"
	validate -c qemu
	echo "$output"
	[ "$status" -eq 1 ]
	[ "$(cell 1 qemu)" = pass ]
	[ "$(cell 2 qemu)" = fail ]
	[ "$(cell 3 qemu)" = pass ]
	[ "$(cell 4 qemu)" = fail ]
	[[ $(reason 2 qemu) == *"FAIL: 1 test(s) failed: not ok 2 - sysctl(2) reads kernel/ostype"* ]]
	grep -qF '| # translated 3 of 12 probed names' "$(log 2 qemu)"
	grep -q '^not ok 2 - sysctl(2) reads kernel/ostype' "$(dirname "$(log 2 qemu)")/console.log"
	[[ $(reason 4 qemu) == *"regression: the smoke test translated 1 of 12 probed names, the previous commit 3"* ]]
	for row in 1 2 3 4; do [ "$(cell $row boot)" = pass ]; done
}

@test "validate: a boot kernel that wires sysctl(2) up and turns it on must not answer ENOSYS" {
	# The smoke test skips what ENOSYS keeps it from checking; the qemu
	# check knows from the tree and the .config that the call must be there.
	mkdir -p "$WF_REPO/arch/x86/entry/syscalls"
	printf '156\t64\t_sysctl\t\t\tsys_sysctl\n' >"$WF_REPO/arch/x86/entry/syscalls/syscall_64.tbl"
	git -C "$WF_REPO" add -f arch/x86/entry/syscalls/syscall_64.tbl
	validate_commit_edit kernel/main.c 's/^\tprintf("1..1\\n");/\tprintf("# sysctl(2) is present\\n");\n&/' \
		"x86/syscalls: Wire up sysctl(2)"
	validate_commit_edit kernel/main.c 's/# sysctl(2) is present/# sysctl(2) is absent (ENOSYS)/' \
		"sysctl: Answer nothing"
	validate -c qemu
	echo "$output"
	[ "$status" -eq 1 ]
	[ "$(cell 1 qemu)" = pass ]
	[ "$(cell 2 qemu)" = fail ]
	[ "$(reason 2 qemu)" = "sysctl(2) answers ENOSYS, though this commit wires it up for x86_64 and the kernel is booted with sysctl_syscall=on" ]
}

@test "validate: rewording a message re-runs only its checkpatch; editing patch 2 re-checks 2..3 only" {
	validate_commit_edit kernel/names.c 's/return 2;/return 3;/' "sysctl: Translate one more name"
	validate_commit_edit kernel/names.c 's/return 12;/return 13;/' "sysctl: Probe one more name"
	validate_commit_edit kernel/main.c 's/fixture booted/fixture booted!/' "sysctl: Say it louder"
	validate -c checkpatch,off,qemu
	[ "$status" -eq 0 ]
	# shellcheck disable=SC2016 # expanded by the shell of git rebase --exec
	git -C "$WF_REPO" -c user.name=A -c user.email=a@example.org -c core.editor=true \
		rebase -q --exec 'git commit -q --amend -m "$(git log -1 --format=%B | sed "s/Probe one more name/Probe a 13th name/")"' \
		fixture-topic~2 2>/dev/null
	git -C "$WF_REPO" log -2 --format=%s | grep -qx 'sysctl: Probe a 13th name'
	validate -c checkpatch,off,qemu
	echo "$output"
	[ "$status" -eq 0 ]
	# (qemu boots what the boot config built: that is checked too)
	[[ $output == *"12 result(s): 0 failed, 11 from the cache (marked *), 1 run now,"* ]]
	[ "$(jq '[.commits[].results.checkpatch.cached]' -c "$OUT/results.json")" = '[true,false,true]' ]
	# A change of content in patch 2 changes the trees of 2 and 3.
	git -C "$WF_REPO" -c user.name=A -c user.email=a@example.org -c core.editor=true \
		rebase -q --exec 'if git log -1 --format=%s | grep -q 13th; then sed -i s/13/14/ kernel/names.c && git commit -q -a --amend --no-edit; fi' \
		fixture-topic~2 2>/dev/null
	validate -c checkpatch,off,qemu
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"12 result(s): 0 failed, 4 from the cache (marked *), 8 run now,"* ]]
	[[ $output != *"[    1/3]"* ]]
	[[ $output == *"[    2/3]"*"off        build"* ]]
	[ "$(jq -c '[.commits[].results.off.cached]' "$OUT/results.json")" = '[true,false,false]' ]
}

@test "validate: the key has the parent's tree: reordered commits with the same tip are checked again" {
	# X documents a function with a wrong @param (a kernel-doc finding
	# new against its parent); Y changes a plain comment of the same file.
	validate_commit_edit kernel/names.c 's|^int probed(void)$|/**\n * names_left() - The names not translated.\n * @kind: which names.\n *\n * Return: how many there are.\n */\nint names_left(int foo)\n{\n\treturn foo;\n}\n\nint probed(void)|' \
		"sysctl: Count the names left"
	x=$(git -C "$WF_REPO" rev-parse HEAD)
	validate_commit_edit kernel/names.c 's|^/\* The names the fixture "translates". \*/$|/* The names the fixture translates. */|' \
		"sysctl: Reword a comment"
	y=$(git -C "$WF_REPO" rev-parse HEAD)
	validate -c kernel-doc
	echo "$output"
	[ "$status" -eq 1 ]
	[ "$(cell 1 kernel-doc)" = fail ]
	first=$(reason 1 kernel-doc)
	[ "$first" = "kernel-doc: 2 new message(s) in 1 file(s): kernel/names.c: warning: Excess function parameter 'kind' description in 'names_left'" ]
	# Y's parent has X's finding: not new.
	[ "$(cell 2 kernel-doc)" = pass ]
	# Y then X: the same tip tree, so X's tree is the one Y had, with
	# another parent, which does not have X's finding.
	tip=$(git -C "$WF_REPO" rev-parse 'HEAD^{tree}')
	git -C "$WF_REPO" reset -q --hard fixture-base
	git -C "$WF_REPO" -c user.name=A -c user.email=a@example.org cherry-pick "$y" "$x" >/dev/null
	[ "$(git -C "$WF_REPO" rev-parse 'HEAD^{tree}')" = "$tip" ]
	[ "$(git -C "$WF_REPO" log -1 --format=%s)" = "sysctl: Count the names left" ]
	validate -c kernel-doc
	echo "$output"
	[ "$(cell 1 kernel-doc)" = pass ]
	[ "$(cell 2 kernel-doc)" = fail ]
	[ "$(jq '.commits[1].results["kernel-doc"].cached' "$OUT/results.json")" = false ]
	[ "$(reason 2 kernel-doc)" = "$first" ]
	[ "$status" -eq 1 ]
}

@test "validate: a tool's version is in the key: a new version re-runs the check, the same one does not" {
	validate_commit_edit kernel/names.c 's/return 2;/return 3;/' "sysctl: Translate one more name"
	# A copy of checks/ with a check that declares the version of a tool
	# the test controls.
	mkdir "$BATS_TEST_TMPDIR/bin"
	cat >"$BATS_TEST_TMPDIR/bin/fixture-tool" <<'TOOL'
#!/bin/sh
echo "fixture-tool $(cat "$(dirname "$0")/version")"
TOOL
	chmod +x "$BATS_TEST_TMPDIR/bin/fixture-tool"
	echo 1.0 >"$BATS_TEST_TMPDIR/bin/version"
	cp -r "$CHECKS" "$BATS_TEST_TMPDIR/checks"
	mkdir "$BATS_TEST_TMPDIR/checks/tool"
	printf '#!/bin/sh\nfixture-tool --version\n' >"$BATS_TEST_TMPDIR/checks/tool/run"
	chmod +x "$BATS_TEST_TMPDIR/checks/tool/run"
	# Two tools: every version line is in the key, the first as the last.
	cat >"$BATS_TEST_TMPDIR/bin/other-tool" <<'TOOL'
#!/bin/sh
echo "other-tool $(cat "$(dirname "$0")/other-version")"
TOOL
	chmod +x "$BATS_TEST_TMPDIR/bin/other-tool"
	echo 1.0 >"$BATS_TEST_TMPDIR/bin/other-version"
	printf 'order 12\nversion fixture-tool --version\nversion other-tool --version\n' >"$BATS_TEST_TMPDIR/checks/tool/conf"
	export PATH=$BATS_TEST_TMPDIR/bin:$PATH WF_CHECKS_DIR=$BATS_TEST_TMPDIR/checks
	validate -c tool
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(reason 1 tool)" = "fixture-tool 1.0" ]
	[ "$(jq '.commits[0].results.tool.cached' "$OUT/results.json")" = false ]
	# The same version: from the cache.
	validate -c tool
	[ "$status" -eq 0 ]
	[ "$(jq '.commits[0].results.tool.cached' "$OUT/results.json")" = true ]
	# Another version: run again.
	echo 2.0 >"$BATS_TEST_TMPDIR/bin/version"
	validate -c tool
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(jq '.commits[0].results.tool.cached' "$OUT/results.json")" = false ]
	[ "$(reason 1 tool)" = "fixture-tool 2.0" ]
	# Another version of the second tool: run again too.
	echo 2.0 >"$BATS_TEST_TMPDIR/bin/other-version"
	validate -c tool
	[ "$status" -eq 0 ]
	[ "$(jq '.commits[0].results.tool.cached' "$OUT/results.json")" = false ]
}

@test "validate: an edit of a config fragment re-runs the results of the configs made of it, no other" {
	validate_commit_edit kernel/names.c 's/return 2;/return 3;/' "sysctl: Translate one more name"
	checks_copy
	validate -c boot,off,nonet
	echo "$output"
	[ "$status" -eq 0 ]
	# off.config: the second fragment of off (configs/matrix.txt), of no other.
	printf '# an edit\n' >>"$CONFIGS_COPY/off.config"
	validate -c boot,off,nonet
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(jq -c '.commits[0].results | [.boot.cached, .off.cached, .nonet.cached]' "$OUT/results.json")" = '[true,false,true]' ]
	# boot.config: the first fragment of all three.
	printf '# an edit\n' >>"$CONFIGS_COPY/boot.config"
	validate -c boot,off,nonet
	[ "$status" -eq 0 ]
	[ "$(jq -c '.commits[0].results | [.boot.cached, .off.cached, .nonet.cached]' "$OUT/results.json")" = '[false,false,false]' ]
}

@test "validate: a table of the report takes every column that fits in its 80, the subject the other 20" {
	validate_commit_edit kernel/names.c 's/return 2;/return 3;/' "sysctl: Translate one more name"
	# A first column of 7: the first table's columns end at 80 exactly
	# with boot (18 + 8 + 11 + 10 + 7 + 11 + 8 + 7), in a copy of the
	# checks without recipients.
	cp -r "$CHECKS" "$BATS_TEST_TMPDIR/checks"
	rm -r "$BATS_TEST_TMPDIR/checks/recipients"
	mkdir "$BATS_TEST_TMPDIR/checks/lengthy"
	printf '#!/bin/sh\necho fine\n' >"$BATS_TEST_TMPDIR/checks/lengthy/run"
	chmod +x "$BATS_TEST_TMPDIR/checks/lengthy/run"
	printf 'order 5\n' >"$BATS_TEST_TMPDIR/checks/lengthy/conf"
	WF_CHECKS_DIR=$BATS_TEST_TMPDIR/checks validate -c lengthy
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(grep -m 1 '^# ' "$OUT/report.txt" | awk '{ $1 = $2 = $3 = ""; print }' | xargs)" = \
		"lengthy checkpatch codespell sparse kernel-doc kconfig boot" ]
	[ "$(awk '{ print length($0) }' "$OUT/report.txt" | sort -n | tail -n 1)" -le 100 ]
}

@test "validate: bad input is named in one line" {
	validate -c checkpatch,nosuch
	[ "$status" -eq 2 ]
	[ "$output" = "validate: error: unknown check 'nosuch' (checks: checkpatch recipients codespell sparse kernel-doc kconfig boot off nonet i386 noproc w1 clang cross qemu abi guest-boot guest-off guest-nonet guest-i386 guest-noproc arm64)" ]
	# matrix.txt's tip-only debug row is built by make stress, not per commit
	validate -c debug
	[ "$status" -eq 2 ]
	[[ $output == "validate: error: unknown check 'debug' "* ]]
	run "$RUNNER/validate.sh" -o "$OUT" fixture-base..no-such-branch
	[ "$status" -eq 2 ]
	[ "$output" = "validate: error: bad revision range 'fixture-base..no-such-branch' in $WF_REPO" ]
	# A list of no check is no check, not all of them and not none.
	validate -c ,
	[ "$status" -eq 2 ]
	[[ $output == "validate: error: no check in '-c ,' (checks: "* ]]
}

@test "validate: CHECKS=build-boot is the build in the boot config, cached and reported as boot; CHECKS=boot says it is no boot" {
	validate_commit_edit kernel/names.c 's/return 2;/return 3;/' "sysctl: Translate one more name"
	validate -c build-boot
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(cell 1 boot)" = pass ]
	[ "$(cell 1 qemu)" = skip ]
	[ "$(jq -r '.commits[0].results | keys[]' "$OUT/results.json" | grep -c build-)" -eq 0 ]
	[[ $output == *"checks: boot"$'\n'* ]]
	[[ $output != *"is the build in"* ]]
	# The old name selects the same result, from the same cache, and says
	# what it is: the boots are the results that need it.
	validate -c boot
	[ "$status" -eq 0 ]
	[[ $output == *"result(s): 0 failed, "*" from the cache (marked *), 0 run now"* ]]
	[[ $output == *"validate: 'boot' is the build in the boot config (also build-boot), not a boot; these need it: w1 qemu abi guest-boot"* ]]
	# Every per-config result of the build check has its name; -k takes it.
	validate -c build-off,build-i386
	[ "$status" -eq 0 ]
	[ "$(cell 1 off)" = pass ]
	[ "$(cell 1 i386)" = pass ]
	[ "$(cell 1 nonet)" = skip ]
	run "$RUNNER/validate.sh" -k build-boot "$VALIDATE_RANGE"
	[ "$status" -eq 0 ]
	[[ $output == *" $WF_CACHE/branches/6.1/validate/results/boot/"* ]]
	validate -c build-debug
	[ "$status" -eq 2 ]
	[[ $output == "validate: error: unknown check 'build-debug' "* ]]
}

@test "validate: a range of no commits is bad input, never 0 results passed; the last report stays" {
	validate_commit_edit kernel/names.c 's/return 2;/return 3;/' "sysctl: Translate one more name"
	validate -c checkpatch
	[ "$status" -eq 0 ]
	cp -r "$OUT" "$BATS_TEST_TMPDIR/before"
	run "$RUNNER/validate.sh" -o "$OUT" -c checkpatch fixture-topic..fixture-topic
	[ "$status" -eq 2 ]
	[ "$output" = "validate: error: no commits in the range 'fixture-topic..fixture-topic': nothing to validate" ]
	# The default range: the branch reset to its base.
	git -C "$WF_REPO" reset -q --hard fixture-base
	git -C "$WF_REPO" update-ref refs/heads/fixture-topic "$(git -C "$WF_REPO" rev-parse 'refs/tags/base/6.1.99-1^{commit}')"
	run "$RUNNER/validate.sh" -o "$OUT" -c checkpatch
	[ "$status" -eq 2 ]
	[ "$output" = "validate: error: no commits in the range 'refs/tags/base/6.1.99-1..refs/heads/fixture-topic': nothing to validate (is fixture-topic at its base? make rebuild applies patches/)" ]
	diff -r "$BATS_TEST_TMPDIR/before" "$OUT"
}

@test "validate: a run that stops half-way leaves no temporary result behind" {
	validate_commit_edit kernel/names.c 's/return 2;/return 3;/' "sysctl: Translate one more name"
	# A boot that stops validate (the parent of the qemu check that runs
	# it) as Ctrl-C or a failing step would.
	# shellcheck disable=SC2016 # the script's own $PPID
	printf '#!/bin/sh\nkill -TERM $(ps -o ppid= -p "$PPID")\n' >"$BATS_TEST_TMPDIR/boot-stop"
	chmod +x "$BATS_TEST_TMPDIR/boot-stop"
	WF_TEST_VALIDATE_BOOT=$BATS_TEST_TMPDIR/boot-stop validate -c qemu
	[ "$status" -eq 143 ]
	[ -d "$WF_CACHE/branches/6.1/validate/results/boot" ]
	[ ! -e "$WF_CACHE/branches/6.1/validate/results/tmp" ]
}

@test "validate: a new check directory is picked up with no edit to the runner; its fail and skip show" {
	validate_commit_edit kernel/names.c 's/return 2;/return 3;/' "sysctl: Translate one more name"
	validate_commit_edit kernel/names.c 's/return 12;/return 13;/' "sysctl: Probe one more name (skip me)"
	validate_commit_edit kernel/main.c 's/fixture booted/fixture booted!/' "sysctl: Say it louder (fail me)"
	# A copy of checks/ with one more directory: a check of the subject
	# lines, slow on the first commit (the heartbeat shows it).
	cp -r "$CHECKS" "$BATS_TEST_TMPDIR/checks"
	mkdir "$BATS_TEST_TMPDIR/checks/subject"
	cat >"$BATS_TEST_TMPDIR/checks/subject/run" <<'CHECK'
#!/bin/sh
subject=$(git -C "$WF_CHECK_SRC" log -1 --format=%s "$WF_CHECK_COMMIT")
echo "checking '$subject' (parent ${WF_CHECK_PARENT:-none})" >&2
case $subject in
*"(skip me)") echo "not applicable"; exit 125 ;;
*"(fail me)") echo "the subject asks to fail"; exit 1 ;;
*"one more name") sleep 3 ;;
esac
echo "subject ok"
CHECK
	chmod +x "$BATS_TEST_TMPDIR/checks/subject/run"
	printf '# a test check\norder 12\n' >"$BATS_TEST_TMPDIR/checks/subject/conf"
	WF_CHECKS_DIR=$BATS_TEST_TMPDIR/checks WF_PROGRESS_INTERVAL=1 validate -c checkpatch,subject
	echo "$output"
	[ "$status" -eq 1 ]
	[ "$(jq -c .checks "$OUT/results.json")" = '["checkpatch","recipients","subject","codespell","sparse","kernel-doc","kconfig","boot","off","nonet","i386","noproc","w1","clang","cross","qemu","abi","guest-boot","guest-off","guest-nonet","guest-i386","guest-noproc","arm64"]' ]
	[ "$(cell 1 subject)" = pass ]
	[ "$(cell 2 subject)" = skip ]
	[ "$(cell 3 subject)" = fail ]
	[ "$(reason 2 subject)" = "not applicable" ]
	[ "$(reason 3 subject)" = "the subject asks to fail" ]
	grep -qx "checking 'sysctl: Say it louder (fail me)' (parent $(git -C "$WF_REPO" rev-parse fixture-topic~1))" "$(log 3 subject)"
	grep -qE '^3 +[0-9a-f]{12} .* pass +skip +fail ' "$OUT/report.txt"
	grep -qE '^2 +[0-9a-f]{12} .* pass +skip +skip ' "$OUT/report.txt"
	grep -A2 '^fail 3 .*\[subject\]$' "$OUT/report.txt" | grep -qxF "  log: $(log 3 subject)"
	# No step silent for long: the slow check had a heartbeat.
	[[ $output == *"[    1/3] "*" subject    still running (0m0"*"s): checking 'sysctl: Translate one more name'"* ]]
	html_matches_json
	grep -q '<td class="fail" title="the subject asks to fail"><a href="file://' "$OUT/report.html"
	# Editing the check re-runs that check only.
	echo '# edited' >>"$BATS_TEST_TMPDIR/checks/subject/run"
	WF_CHECKS_DIR=$BATS_TEST_TMPDIR/checks validate -c checkpatch,subject
	[ "$status" -eq 1 ]
	[ "$(jq -c '[.commits[].results.subject.cached]' "$OUT/results.json")" = '[false,false,false]' ]
	[ "$(jq -c '[.commits[].results.checkpatch.cached]' "$OUT/results.json")" = '[true,true,true]' ]
	# The real checks directory does not have it.
	validate -c subject
	[ "$status" -eq 2 ]
	[[ $output == "validate: error: unknown check 'subject' "* ]]
}

# html_cells FILE: each <td> of the page FILE as a browser reads it, one
# per line: its title attribute, a tab, its text (entities decoded); and
# "tag: NAME" for each element that is not the page's own.
html_cells() {
	python3 - "$1" <<-'PY'
	import sys
	from html.parser import HTMLParser
	OWN = {"html", "head", "meta", "title", "style", "body", "h1", "code", "p", "strong", "table", "tr", "th", "td", "a"}
	class Cells(HTMLParser):
	    def __init__(self):
	        super().__init__(convert_charrefs=True)
	        self.td = None
	    def handle_starttag(self, tag, attrs):
	        if tag not in OWN:
	            print("tag: " + tag)
	        if tag == "td":
	            self.td = [dict(attrs).get("title") or "", ""]
	    def handle_endtag(self, tag):
	        if tag == "td" and self.td is not None:
	            print(self.td[0] + "\t" + self.td[1])
	            self.td = None
	    def handle_data(self, data):
	        if self.td is not None:
	            self.td[1] += data
	Cells().feed(open(sys.argv[1], encoding="utf-8").read())
	PY
}

@test "validate: the HTML report shows a subject and a summary holding & < > \" ' as they are, markup as text" {
	local subject summary
	subject="net: Declare netdev_get_name() in <linux/netdevice.h> & \"quote\" 'it'"
	summary="summary: <b>bold</b> & <script>x</script> \"q\" 'a' &amp;"
	validate_commit_edit kernel/names.c 's/return 2;/return 3;/' "$subject"
	cp -r "$CHECKS" "$BATS_TEST_TMPDIR/checks"
	mkdir "$BATS_TEST_TMPDIR/checks/says"
	# shellcheck disable=SC2016 # the check's own $SAYS
	printf '#!/bin/sh\nprintf "%%s\\n" "$SAYS"\n' >"$BATS_TEST_TMPDIR/checks/says/run"
	chmod +x "$BATS_TEST_TMPDIR/checks/says/run"
	printf '# a test check\norder 12\n' >"$BATS_TEST_TMPDIR/checks/says/conf"
	SAYS=$summary WF_CHECKS_DIR=$BATS_TEST_TMPDIR/checks validate -c says
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(reason 1 says)" = "$summary" ]
	run html_cells "$OUT/report.html"
	echo "$output"
	[[ $output != *"tag: "* ]]
	grep -qxF "$(printf '\t%s' "$subject")" <<<"$output"
	grep -qxF "$(printf '%s\tpass' "$summary")" <<<"$output"
	# Each of the five as its entity (an attribute may be quoted either way).
	grep -qF 'in &lt;linux/netdevice.h&gt; &amp; &quot;quote&quot; &#39;it&#39;' "$OUT/report.html"
}

@test "validate: a full disk is an infrastructure error, named in one line and never cached" {
	validate_commit_edit kernel/names.c 's/return 2;/return 3;/' "sysctl: Translate one more name"
	full_tmpfs "$WF_CACHE/branches/6.1/validate/build" 256k
	validate -c checkpatch,off
	echo "$output"
	[ "$status" -eq 3 ]
	[ "$(cell 1 checkpatch)" = pass ]
	[ "$(cell 1 off)" = infra ]
	[ "$(reason 1 off)" = "no space left on device in $TMPFS/off" ]
	c=$(git -C "$WF_REPO" rev-parse fixture-topic)
	[[ $output == *"validate: infrastructure error: ${c:0:12} off: no space left on device in $TMPFS/off"* ]]
	grep -qE '^1 +[0-9a-f]{12} .* pass( +skip){5} *$' "$OUT/report.txt"
	grep -qE '^1 +[0-9a-f]{12} .* skip +infra ' "$OUT/report.txt"
	grep -qE '^infra 1 [0-9a-f]{12} .*\[off\]$' "$OUT/report.txt"
	[[ $output == *", 1 infrastructure error(s);"* ]]
	[ "$(jq .infra "$OUT/results.json")" -eq 1 ]
	html_matches_json
	# Nothing of it was cached: with space again, it runs and passes.
	[ -z "$(find "$WF_CACHE/branches/6.1/validate/results" -path '*/off/*' -name status)" ]
	rm "$TMPFS/filler"
	validate -c checkpatch,off
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(cell 1 off)" = pass ]
	[ "$(jq '.commits[0].results.off.cached' "$OUT/results.json")" = false ]
	[ "$(jq '.commits[0].results.checkpatch.cached' "$OUT/results.json")" = true ]
}

@test "validate: a full result cache is an infrastructure error of every result, none kept" {
	validate_commit_edit kernel/names.c 's/return 2;/return 3;/' "sysctl: Translate one more name"
	R=$WF_CACHE/branches/6.1/validate/results
	validate -c checkpatch,off
	[ "$status" -eq 0 ]
	mv "$R" "$R.before"
	full_tmpfs "$R" 64k
	validate -c checkpatch,off
	echo "$output"
	[ "$status" -eq 3 ]
	[ "$(jq .failed "$OUT/results.json")" -eq 0 ]
	n=$(jq '.commits | length' "$OUT/results.json")
	[ "$(jq .infra "$OUT/results.json")" -eq $((2 * n)) ]
	[ "$(grep -cE "^validate: infrastructure error: [0-9a-f]{12} (checkpatch|off): no space left on device in $TMPFS/" <<<"$output")" -eq $((2 * n + 1)) ]
	[ -z "$(find "$TMPFS" -name status)" ]
	# The cache back: every result from it, as before.
	umount "$TMPFS"
	TMPFS=''
	rmdir "$R"
	mv "$R.before" "$R"
	validate -c checkpatch,off
	[ "$status" -eq 0 ]
	[[ $output == *", $((2 * n)) from the cache (marked *), 0 run now, 0 infrastructure error(s);"* ]]
}

@test "validate: a full WF_CACHE, the checkout too, is an infrastructure error of every result, none kept" {
	validate_commit_edit kernel/names.c 's/return 2;/return 3;/' "sysctl: Translate one more name"
	n=1
	# The whole cache on a full tmpfs, before validate made its worktree:
	# "git worktree add" cannot write.
	mv "$WF_CACHE" "$WF_CACHE.before"
	full_tmpfs "$WF_CACHE" 16m "$WF_CACHE.before"
	validate -c checkpatch,off
	echo "$output"
	[ "$status" -eq 3 ]
	[[ $output != *"error: cannot"* ]]
	[ "$(jq .failed "$OUT/results.json")" -eq 0 ]
	[ "$(jq .infra "$OUT/results.json")" -eq $((2 * n)) ]
	# every result, the base's off too, in a line of its own
	[ "$(infra_lines_under "$WF_CACHE")" -eq $((2 * n + 1)) ]
	[ "$(reason 1 checkpatch)" = "no space left on device in $WF_CACHE/branches/6.1/validate-tree" ]
	[ -z "$(find "$WF_CACHE" -name status)" ]
	# Room again: every result runs now, and passes.
	rm "$WF_CACHE/filler"
	validate -c checkpatch,off
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *", 0 from the cache (marked *), $((2 * n)) run now, 0 infrastructure error(s);"* ]]
	# A new commit, and the cache full again: its checkout cannot be
	# written; the first commit's results come from the cache.
	validate_commit_edit kernel/names.c 's/return 12;/return 13;/' "sysctl: Probe one more name"
	dd if=/dev/zero of="$WF_CACHE/filler" bs=4k 2>/dev/null || true
	validate -c checkpatch,off
	echo "$output"
	[ "$status" -eq 3 ]
	[ "$(cell 1 checkpatch)" = pass ]
	[ "$(cell 1 off)" = pass ]
	[ "$(cell 2 checkpatch)" = infra ]
	[ "$(cell 2 off)" = infra ]
	[ "$(infra_lines_under "$WF_CACHE")" -eq 2 ]
	rm "$WF_CACHE/filler"
	validate -c checkpatch,off
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *", 2 from the cache (marked *), 2 run now, 0 infrastructure error(s);"* ]]
}

@test "validate: a worktree cut short by a full disk is an infrastructure error, though removing it makes room" {
	# The base of the range with a file larger than the room left: git
	# worktree add fills the disk with it, and the half-made worktree,
	# removed, gives the room back.
	head -c 3M /dev/zero | tr '\0' 'x' | fold -w 64 >"$WF_REPO/Documentation/big.txt"
	git -C "$WF_REPO" add -f Documentation/big.txt
	git -C "$WF_REPO" -c user.name=A -c user.email=a@example.org commit -q -m "Documentation: A big file"
	validate_commit_edit kernel/names.c 's/return 2;/return 3;/' "sysctl: Translate one more name"
	mv "$WF_CACHE" "$WF_CACHE.before"
	full_tmpfs "$WF_CACHE" 64m "$WF_CACHE.before"
	rm "$WF_CACHE/filler"
	fallocate -l $(($(stat -f -c '%a * %S' "$WF_CACHE") - 2 * 1024 * 1024)) "$WF_CACHE/filler"
	run "$RUNNER/validate.sh" -o "$OUT" -c off fixture-topic~1..fixture-topic
	echo "$output"
	[ "$status" -eq 3 ]
	[[ $output != *"error: cannot"* ]]
	[[ $(reason 1 off) =~ ^no\ space\ left\ on\ device\ in\ $WF_CACHE/branches/6.1/validate-tree\ \(its\ files\ take\ [3-9]\ MiB,\ [0-2]\ MiB\ free\)$ ]]
	[ "$(infra_lines_under "$WF_CACHE/branches/6.1/validate-tree")" -eq 2 ]
	[ -z "$(find "$WF_CACHE" -name status)" ]
	# Room again: it passes.
	rm "$WF_CACHE/filler"
	run "$RUNNER/validate.sh" -o "$OUT" -c off fixture-topic~1..fixture-topic
	[ "$status" -eq 0 ]
}

@test "validate: a checkout cut short (a full disk, a kill) is done again, never taken for done" {
	validate_commit_edit kernel/names.c 's/return 2;/return 3;/' "sysctl: Translate one more name"
	validate -c off
	[ "$status" -eq 0 ]
	# The worktree back at the base, and a checkout of another commit
	# that stopped after writing one file: HEAD is still the base.
	tree=$WF_CACHE/branches/6.1/validate-tree
	git -C "$tree" checkout -q -f --detach fixture-base
	echo 'this does not compile' >"$tree/kernel/names.c"
	# and git's locks, when it was killed
	touch "$WF_REPO/.git/worktrees/validate-tree/index.lock" "$WF_REPO/.git/worktrees/validate-tree/HEAD.lock"
	rm -rf "$WF_CACHE/branches/6.1/validate/results"
	validate -c off
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(cell 1 off)" = pass ]
	[[ $output != *"off at the base"* ]]
}

@test "validate: a worktree add that was killed is cleared and made again" {
	validate_commit_edit kernel/names.c 's/return 2;/return 3;/' "sysctl: Translate one more name"
	validate -c off
	[ "$status" -eq 0 ]
	# What git worktree add leaves when killed before it wrote .git:
	# the directory, and its registration, locked while it initializes.
	tree=$WF_CACHE/branches/6.1/validate-tree
	rm -rf "$tree"
	mkdir "$tree"
	echo initializing >"$WF_REPO/.git/worktrees/validate-tree/locked"
	rm -rf "$WF_CACHE/branches/6.1/validate/results"
	validate -c off
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(cell 1 off)" = pass ]
	[ "$(git -C "$WF_REPO" worktree list | grep -c validate-tree)" -eq 1 ]
}

@test "validate: a full output directory is an infrastructure error, named; the last report stays" {
	validate_commit_edit kernel/names.c 's/return 2;/return 3;/' "sysctl: Translate one more name"
	validate -c checkpatch
	[ "$status" -eq 0 ]
	# A new commit: its result runs, and the report would change.
	validate_commit_edit kernel/names.c 's/return 12;/return 13;/' "sysctl: Probe one more name"
	cp -a "$OUT" "$BATS_TEST_TMPDIR/out.before"
	rm -rf "$OUT"
	full_tmpfs "$OUT" 1m "$BATS_TEST_TMPDIR/out.before"
	validate -c checkpatch
	echo "$output"
	[ "$status" -eq 3 ]
	[[ ${lines[-1]} =~ ^validate:\ infrastructure\ error:\ cannot\ write\ $OUT/[a-z.]+:\ no\ space\ left\ on\ device\ in\ $OUT$ ]]
	for f in report.txt results.json report.html; do
		cmp "$OUT/$f" "$BATS_TEST_TMPDIR/out.before/$f"
	done
}

@test "validate: Ctrl-C stops a kernel build at once, the reports say interrupted; the next run, started right after, is not refused" {
	# A compiler that takes its time (ccache, first on the PATH, notes its
	# pid and sleeps before it compiles), until slow-ccache goes.
	mkdir -p "$BATS_TEST_TMPDIR/bin"
	cat >"$BATS_TEST_TMPDIR/bin/ccache" <<-EOF
	#!/bin/sh
	if [ -e "$BATS_TEST_TMPDIR/slow-ccache" ]; then
		echo \$\$ >>"$BATS_TEST_TMPDIR/compilers"
		sleep 60
	fi
	exec /usr/bin/ccache "\$@"
	EOF
	chmod +x "$BATS_TEST_TMPDIR/bin/ccache"
	touch "$BATS_TEST_TMPDIR/slow-ccache"
	validate_commit_edit kernel/names.c 's/return 2;/return 3;/' "sysctl: Translate one more name"
	# The run in a process group of its own with SIGINT as a terminal's
	# foreground job has it (a background job of a script ignores it).
	# shellcheck disable=SC2016 # perl's variables
	env PATH="$BATS_TEST_TMPDIR/bin:$(printenv PATH)" setsid perl -e '$SIG{INT} = $SIG{QUIT} = "DEFAULT"; exec @ARGV' \
		"$RUNNER/validate.sh" -o "$OUT" -c boot "$VALIDATE_RANGE" >"$BATS_TEST_TMPDIR/first.log" 2>&1 3>&- &
	pid=$!
	for _ in $(seq 300); do
		[[ ! -s $BATS_TEST_TMPDIR/compilers ]] || break
		sleep 0.1
	done
	[ -s "$BATS_TEST_TMPDIR/compilers" ]
	# Ctrl-C: SIGINT to the group.
	kill -INT -- "-$pid"
	rc=0
	wait "$pid" || rc=$?
	cat "$BATS_TEST_TMPDIR/first.log"
	[ "$rc" -ne 0 ]
	# Its reports say so, not "in progress" for ever.
	[ "$(jq -r .state "$OUT/results.json")" = interrupted ]
	grep -q '^interrupted (SIGINT) after [0-9]m[0-9][0-9]s: [0-9]* of [0-9]* results known' "$OUT/report.txt"
	grep -q '<p><strong>interrupted (SIGINT) after ' "$OUT/report.html"
	[ "$(jq -r '.commits[0].results.boot.reason' "$OUT/results.json")" = "not run: the run was interrupted (SIGINT)" ]
	rm "$BATS_TEST_TMPDIR/slow-ccache"
	# At once, as a user would: not refused by the lock.
	slow_path=$BATS_TEST_TMPDIR/bin:$(printenv PATH)
	PATH=$slow_path validate -c boot
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(cell 1 boot)" = pass ]
	# Nothing of the first run's build is left.
	while read -r p; do
		if kill -0 "$p" 2>/dev/null; then
			echo "compiler $p still runs"
			false
		fi
	done <"$BATS_TEST_TMPDIR/compilers"
	# (a second at most, for the last of the group to be reaped)
	for _ in $(seq 10); do
		[[ -n $(pgrep -g "$pid" 2>/dev/null) ]] || break
		sleep 0.1
	done
	ps -o pid,ppid,stat,args -g "$pid" || true
	[ -z "$(pgrep -g "$pid" 2>/dev/null)" ]
}

@test "validate: the heartbeat stops on TERM without a word, whenever the TERM comes" {
	# A kill that lands while the heartbeat expands a command
	# substitution: bash 5.2 ran a TERM trap there as if inside the
	# substitution ("trap: line 2: unexpected EOF while looking for
	# matching `)'", seen once in a 2-hour run).  A hundred kills at
	# random moments of a fast heartbeat hit that window.
	run bash -c '. "$1/tools/lib.sh"; . "$1/runner/lib.sh"
		beat() { local x; x=$(echo "$(echo a)" | cut -c1); printf "%s\n" "$(echo "$x")" >/dev/null; }
		for i in $(seq 100); do
			vl_every 0.001 beat &
			p=$!
			sleep "0.0$((RANDOM % 5 + 1))"
			kill "$p"
			for _ in $(seq 20); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
			if kill -0 "$p" 2>/dev/null; then echo "the heartbeat outlived its TERM"; kill -KILL "$p"; fi
			wait "$p" 2>/dev/null || true
		done
		pgrep -P $$ sleep || true' _ "$REPO_ROOT"
	echo "$output" | sort | uniq -c
	[ "$status" -eq 0 ]
	[ -z "$output" ]
}

@test "validate -n: the plan, per commit and check from the cache or run now, an estimate from the recorded timings; nothing written" {
	local R=$WF_CACHE/branches/6.1/validate/results f
	validate_commit_edit kernel/names.c 's/return 2;/return 3;/' "sysctl: Translate one more name"
	validate_commit_edit kernel/names.c 's/return 12;/return 13;/' "sysctl: Probe one more name"
	validate -c checkpatch
	[ "$status" -eq 0 ]
	# Each result run keeps how long its check took.
	[ "$(find "$R/checkpatch" -name seconds | wc -l)" -eq 2 ]
	grep -qxE '[0-9]+\.[0-9]' "$(find "$R/checkpatch" -name seconds | head -n 1)"
	for f in "$R"/checkpatch/*/seconds; do echo 7.0 >"$f"; done
	# A reworded message: its checkpatch would run again, the other's
	# comes from the cache.
	git -C "$WF_REPO" -c user.name=A -c user.email=a@example.org commit -q --amend -m "sysctl: Probe a 13th name" -m "Why."
	fs_state "$WF_CACHE" "$OUT" >"$BATS_TEST_TMPDIR/before"
	validate -n -c checkpatch
	echo "$output"
	[ "$status" -eq 0 ]
	grep -qE '^1 +[0-9a-f]{12} sysctl: Trans.* +pass\* ' <<<"$output"
	grep -qE '^2 +[0-9a-f]{12} sysctl: Probe.* +run ' <<<"$output"
	[[ $output == *"2 result(s): 1 from the cache (marked *), 1 to run now"* ]]
	[[ $output == *"to run: checkpatch 1 (~0m07s each)"* ]]
	[[ $output == *"estimate: ~0m07s"* ]]
	# Nothing was run or written: no lock, no worktree, no result, no report.
	fs_state "$WF_CACHE" "$OUT" | diff "$BATS_TEST_TMPDIR/before" -
	# Without the cache's records: the steps of the last run's timings.tsv.
	rm "$R"/checkpatch/*/seconds
	printf '%s\t%s\t%s\t%s\n' 100.0 0 start range 100.0 1 checkpatch checkpatch 103.0 2 checkpatch checkpatch \
		108.0 2 end report >"$OUT/timings.tsv"
	validate -n -c checkpatch
	[ "$status" -eq 0 ]
	[[ $output == *"estimate: ~0m04s"* ]]
	rm "$OUT/timings.tsv"
	validate -n -c checkpatch
	[ "$status" -eq 0 ]
	[[ $output == *"estimate: unknown: no timing recorded for checkpatch"* ]]
}

@test "validate -a: the branch the work tree is on, as it stands; the reports say how many commits are not exported" {
	"$TOOLS/export.sh" 2>/dev/null
	validate_commit_edit kernel/names.c 's/return 2;/return 3;/' "sysctl: Translate one more name"
	git -C "$WF_REPO" checkout -q -b mine
	validate_commit_edit kernel/names.c 's/return 12;/return 13;/' "sysctl: Probe one more name"
	echo '/* not committed */' >>"$WF_REPO/kernel/main.c"
	run "$RUNNER/validate.sh" -o "$OUT" -a -c checkpatch fixture-base..mine
	echo "$output"
	[ "$status" -eq 0 ]
	note="validated: the branch as it stands (mine), 2 commit(s) not exported; its uncommitted changes are not"
	grep -qxF "$note" "$OUT/report.txt"
	[[ $output == *"$note"* ]]
	grep -qF "$note" "$OUT/report.html"
	[ "$(jq -c .as_is "$OUT/results.json")" = '{"branch":"mine","unexported":2,"uncommitted":true}' ]
	# Without a range: the base..the work tree's branch.
	run "$RUNNER/validate.sh" -o "$OUT" -n -a -c checkpatch
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"(refs/tags/base/6.1.99-1..refs/heads/mine)"* ]]
	# A work tree on no branch (a rebase stopped half-way): bad input.
	git -C "$WF_REPO" checkout -q --detach
	run "$RUNNER/validate.sh" -o "$OUT" -n -a -c checkpatch
	[ "$status" -eq 2 ]
	[ "$output" = "validate: error: the work tree $WF_REPO is on no branch (HEAD detached): check out a branch, or give a range" ]
	# A run without -a says nothing of it.
	validate -c checkpatch
	[ "$status" -eq 0 ]
	[ "$(jq -c .as_is "$OUT/results.json")" = null ]
	run ! grep -q '^validated: ' "$OUT/report.txt"
}

@test "bench-validate: validate cold, warm, after a reword and after a code edit, each re-checking what changed" {
	validate_commit_edit kernel/names.c 's/return 2;/return 3;/' "sysctl: Translate one more name"
	validate_commit_edit kernel/main.c 's/fixture booted/fixture booted!/' "sysctl: Say it louder"
	local b=$BATS_TEST_TMPDIR/bench
	# base..topic: the fixture kernel's commit and these two; patch 2's
	# first C file gets the comment.
	run "$DEV/bench-validate.sh" -d "$b" -c checkpatch -k 2 -E
	echo "$output"
	[ "$status" -eq 0 ]
	grep -q '^3 result(s): [0-9]* failed, 0 from the cache (marked \*), 3 run now,' "$b/validate-cold.log"
	grep -q '^3 result(s): [0-9]* failed, 3 from the cache (marked \*), 0 run now,' "$b/validate-warm.log"
	grep -q '^3 result(s): [0-9]* failed, 2 from the cache (marked \*), 1 run now,' "$b/validate-edit-last.log"
	grep -q '^3 result(s): [0-9]* failed, 1 from the cache (marked \*), 2 run now,' "$b/validate-edit-2.log"
	git -C "$b/cache/linux" show refs/heads/bench-topic~1:kernel/names.c | grep -qxF '/* edited by bench-validate */'
	grep -qE '^cold +[0-9.]+s +[0-9.]+s +[0-9.]+x$' <<<"$output"
	grep -qE '^warm +[0-9.]+s +[0-9.]+s +[0-9.]+x$' <<<"$output"
	grep -qE '^edit-2 +[0-9.]+s +- +-$' <<<"$output"
}

@test "bench-validate -s: a validate run's timings split into builds, boots and the checks of the source" {
	printf '%s\t%s\t%s\t%s\n' 100.0 0 start range 100.0 1 checkpatch checkpatch 101.0 1 boot boot \
		111.0 1 qemu qemu 113.0 1 guest-off guest 114.0 1 sparse sparse 120.0 1 end report \
		>"$BATS_TEST_TMPDIR/timings.tsv"
	run "$DEV/bench-validate.sh" -s "$BATS_TEST_TMPDIR/timings.tsv"
	echo "$output"
	[ "$status" -eq 0 ]
	grep -qE '^  builds \(base \+ every commit, per config\) +16\.0s$' <<<"$output"
	grep -qE '^  boots \(smoke test, kselftest, guests\) +3\.0s$' <<<"$output"
	grep -qE '^  checks of the source \(incl. the checkout\) +1\.0s$' <<<"$output"
	grep -qE '^  whole cold run / builds +1\.25x$' <<<"$output"
	grep -qE '^  whole cold run / \(builds \+ boots\) +1\.05x$' <<<"$output"
	run "$DEV/bench-validate.sh" -s "$BATS_TEST_TMPDIR/none.tsv"
	[ "$status" -ne 0 ]
	[[ $output == *"cannot read the timings $BATS_TEST_TMPDIR/none.tsv"* ]]
}
