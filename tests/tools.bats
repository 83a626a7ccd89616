#!/usr/bin/env bats
# Tests of the base import, rebuild and export tools on fixture trees.

load test_helper

setup() {
	setup_fixture
}

@test "base: imports every file of the tarball, ignored ones included" {
	run "$TOOLS/base.sh"
	[ "$status" -eq 0 ]
	[ "${lines[-1]}" = "refs/tags/base/6.1.99-1" ]
	files=$(git -C "$WF_REPO" ls-tree -r --name-only refs/tags/base/6.1.99-1)
	[ "$(wc -l <<<"$files")" -eq 7 ]
	grep -qx '.gitignore' <<<"$files"
	grep -qx '.mailmap' <<<"$files"
	grep -qx 'kernel/.gitignore' <<<"$files"
	grep -qx 'scripts/link' <<<"$files"
	git -C "$WF_REPO" log -1 --format=%B refs/tags/base/6.1.99-1 | grep -q 'version 6.1.99-1'
}

@test "base: imports once per package version" {
	"$TOOLS/base.sh"
	first=$(git -C "$WF_REPO" rev-parse refs/tags/base/6.1.99-1)
	run "$TOOLS/base.sh"
	[ "$status" -eq 0 ]
	[[ $output != *unpacking* ]]
	[ "$(git -C "$WF_REPO" rev-parse refs/tags/base/6.1.99-1)" = "$first" ]
	WF_PKG_VERSION=6.1.100-1 run "$TOOLS/base.sh"
	[ "$status" -eq 0 ]
	[[ $output == *unpacking* ]]
	git -C "$WF_REPO" rev-parse -q --verify refs/tags/base/6.1.100-1
}

@test "base: a missing tarball is named, with the package to install" {
	rm "$WF_SRC_DIR/linux-source-6.1.tar.xz"
	run "$TOOLS/base.sh"
	[ "$status" -eq 1 ]
	[[ $output == *"linux-source-6.1.tar.xz not found (install it: apt-get install linux-source-6.1)"* ]]
	[ ! -e "$WF_REPO" ]
}

@test "base: a version outside the constraint is refused" {
	printf 'topic 6.1 t linux-source-6.1 >=6.1.150 patches\n' >"$WF_TOP/branches.txt"
	run "$TOOLS/base.sh"
	[ "$status" -eq 1 ]
	[[ $output == *"6.1.99-1 does not satisfy the constraint >=6.1.150"* ]]
}

@test "branches.txt: malformed lines are named by line number" {
	printf '# comment\n\ntopic 6.1 t linux-source-6.1 >=6.1\n' >"$WF_TOP/branches.txt"
	run "$TOOLS/rebuild.sh"
	[ "$status" -eq 1 ]
	[[ $output == *"branches.txt:3: 'topic' takes 5 fields"* ]]

	printf 'topic 6.1 t linux-source-6.1 >=6.1 patches\nbranch x y\n' >"$WF_TOP/branches.txt"
	run "$TOOLS/rebuild.sh"
	[[ $output == *"branches.txt:2: unknown record 'branch'"* ]]

	printf 'topic 6.1 t linux-source-6.1 6.1 patches\n' >"$WF_TOP/branches.txt"
	run "$TOOLS/rebuild.sh"
	[[ $output == *"branches.txt:1: '6.1' is not a version constraint"* ]]

	printf 'topic 6.1 t linux-source-6.1 any patches\ntree sysctl /nowhere\n' >"$WF_TOP/branches.txt"
	run "$TOOLS/rebuild.sh"
	[[ $output == *"branches.txt:2: 'tree' takes at least 4 fields"* ]]

	printf 'topic 6.1 t..x linux-source-6.1 any patches\n' >"$WF_TOP/branches.txt"
	run "$TOOLS/rebuild.sh"
	[[ $output == *"branches.txt:1: 't..x' is not a valid branch name"* ]]

	printf 'topic 6/1 t linux-source-6.1 any patches\n' >"$WF_TOP/branches.txt"
	run "$TOOLS/rebuild.sh"
	[[ $output == *"branches.txt:1: '6/1' is not a branch id"* ]]

	printf 'topic 6.1 t linux-source-6.1 any p1\ntopic 6.1 u linux-source-6.12 any p2\n' >"$WF_TOP/branches.txt"
	run "$TOOLS/rebuild.sh"
	[[ $output == *"branches.txt:2: second topic with the id '6.1'"* ]]

	printf 'topic 6.1 t linux-source-6.1 any p1\ntopic 6.12 t linux-source-6.12 any p2\n' >"$WF_TOP/branches.txt"
	run "$TOOLS/rebuild.sh"
	[[ $output == *"branches.txt:2: second topic on the branch 't'"* ]]
	[ ! -e "$WF_REPO" ]
}

@test "branches: BRANCH= selects a topic line, its cache, out/ and cover letters; an unknown one is named" {
	printf 'topic 6.1 t linux-source-6.1 any p1\ntopic 6.12 u linux-source-6.12 >=6.12 p2\n' >"$WF_TOP/branches.txt"
	run env WF_BRANCH=6.13 "$TOOLS/rebuild.sh"
	[ "$status" -eq 1 ]
	[ "$output" = "rebuild: error: no branch '6.13' in $WF_TOP/branches.txt (the branches: 6.1 6.12)" ]
	# What each branch works on (lib.sh, as every script sees it).
	where() {
		# shellcheck disable=SC2016 # expanded by the inner bash, after lib.sh
		env -u WF_REPO WF_BRANCH="$1" bash -c '. "$1"; echo "$TOPIC_NAME $TOPIC_PACKAGE $TOPIC_PATCHDIR $WF_CACHE $WF_REPO $WF_OUT $WF_COVERS"' \
			where "$TOOLS/lib.sh"
	}
	[ "$(where '')" = "t linux-source-6.1 p1 $WF_CACHE/branches/6.1 $WF_CACHE/branches/6.1/linux $WF_TOP/out/6.1 $WF_TOP/cover-letters/6.1" ]
	[ "$(where 6.12)" = "u linux-source-6.12 p2 $WF_CACHE/branches/6.12 $WF_CACHE/branches/6.12/linux $WF_TOP/out/6.12 $WF_TOP/cover-letters/6.12" ]
	# A script run by another gets the same branch and cache.
	[ "$(WF_BRANCH=6.12 WF_CACHE=$WF_CACHE/branches/6.12 where 6.12)" = "$(where 6.12)" ]
	# make BRANCH= reaches the scripts.
	run make -s -C "$REPO_ROOT" rebuild BRANCH=6.13 WF_TOP="$WF_TOP"
	[[ $output == *"no branch '6.13' in $WF_TOP/branches.txt"* ]]
}

@test "rebuild: no patches gives the base itself, for a series that starts" {
	run "$TOOLS/rebuild.sh"
	[ "$status" -eq 0 ]
	[[ $output == *"no patches in patches/ yet: the branch fixture-topic starts at its base"* ]]
	[ "$(git -C "$WF_REPO" rev-parse fixture-topic)" = "$(git -C "$WF_REPO" rev-parse 'refs/tags/base/6.1.99-1^{commit}')" ]
	# Again: nothing to lose, nothing refused.
	run "$TOOLS/rebuild.sh"
	[ "$status" -eq 0 ]
}

# make_series: three commits on the topic branch, exported to patches/.
make_series() {
	"$TOOLS/rebuild.sh"
	commit_in_repo kernel/sysctl.c '/* one */\nint one = 1;\n/* two */\nint two;\n/* three */\nint three;\n' "sysctl: Initialise one"
	commit_in_repo kernel/new.c 'int new;\n' "sysctl: Add new.c"
	commit_in_repo kernel/sysctl.c '/* one */\nint one = 1;\n/* two */\nint two;\n/* three */\nint three = 3;\n' "sysctl: Initialise three"
	"$TOOLS/export.sh"
}

@test "export and rebuild: patches -> branch -> patches is byte-stable" {
	make_series
	[ "$(find "$WF_TOP/patches" -mindepth 1 -maxdepth 1 | wc -l)" -eq 3 ]
	cp -r "$WF_TOP/patches" "$BATS_TEST_TMPDIR/before"
	tree=$(git -C "$WF_REPO" rev-parse 'fixture-topic^{tree}')
	run "$TOOLS/rebuild.sh"
	[ "$status" -eq 0 ]
	[[ $output == *"3 commits on refs/tags/base/6.1.99-1"* ]]
	[ "$(git -C "$WF_REPO" rev-parse 'fixture-topic^{tree}')" = "$tree" ]
	first=$(git -C "$WF_REPO" rev-parse fixture-topic)
	run "$TOOLS/export.sh"
	[ "$status" -eq 0 ]
	[[ $output == *"wrote 3 patch(es) to patches/ (0 file(s) changed)"* ]]
	diff -r "$BATS_TEST_TMPDIR/before" "$WF_TOP/patches"
	# A second rebuild gives the very same commits.
	"$TOOLS/rebuild.sh"
	[ "$(git -C "$WF_REPO" rev-parse fixture-topic)" = "$first" ]
	git -C "$WF_REPO" log --format=%an fixture-topic -1 | grep -qx 'A Developer'
}

# branch_state: the branch, the exported mark and the work tree's HEAD.
branch_state() {
	git -C "$WF_REPO" rev-parse fixture-topic refs/wf/exported HEAD
	git -C "$WF_REPO" symbolic-ref HEAD
}

@test "rebuild: a patch directory that does not exist ends the run in one line; the branch stays" {
	make_series
	before=$(branch_state)
	# The typo of the issue: the topic's patch directory misspelt.
	sed -i 's/ patches$/ patches.x/' "$WF_TOP/branches.txt"
	run "$TOOLS/rebuild.sh"
	[ "$status" -eq 1 ]
	[ "$output" = "rebuild: error: patch directory $WF_TOP/patches.x does not exist" ]
	[ "$(branch_state)" = "$before" ]
	# Through make, the pipeline stops there: validate never runs.
	run make -s -C "$REPO_ROOT" validate CHECKS=checkpatch WF_TOP="$WF_TOP"
	[ "$status" -ne 0 ]
	[[ $output == *"rebuild: error: patch directory $WF_TOP/patches.x does not exist"* ]]
	[[ $output != *"result(s)"* ]]
	[ "$(branch_state)" = "$before" ]
}

@test "rebuild: an empty patch directory does not reset a branch that has commits, unless forced" {
	make_series
	before=$(branch_state)
	mv "$WF_TOP/patches" "$BATS_TEST_TMPDIR/saved"
	mkdir "$WF_TOP/patches"
	run "$TOOLS/rebuild.sh"
	[ "$status" -eq 1 ]
	[ "$output" = "rebuild: error: no patches in patches/: that would reset fixture-topic (3 commits) to its base; put the patches back, or 'make rebuild FORCE=1' to reset it" ]
	[ "$(branch_state)" = "$before" ]
	run "$TOOLS/rebuild.sh" -f
	[ "$status" -eq 0 ]
	[ "$(git -C "$WF_REPO" rev-parse fixture-topic)" = "$(git -C "$WF_REPO" rev-parse 'refs/tags/base/6.1.99-1^{commit}')" ]
}

@test "export: a branch with no commits does not empty the patch directory" {
	make_series
	cp -r "$WF_TOP/patches" "$BATS_TEST_TMPDIR/before"
	git -C "$WF_REPO" reset -q --hard 'refs/tags/base/6.1.99-1^{commit}'
	run "$TOOLS/export.sh"
	[ "$status" -eq 1 ]
	[ "$output" = "export: error: branch fixture-topic has no commits on refs/tags/base/6.1.99-1: nothing to export (patches/ keeps its 3 patch(es))" ]
	diff -r "$BATS_TEST_TMPDIR/before" "$WF_TOP/patches"
}

@test "export: the same bytes under a hostile git configuration, in a packed repository" {
	# The reference: a configuration of nobody's.
	export GIT_CONFIG_GLOBAL=$BATS_TEST_TMPDIR/gitconfig-clean GIT_CONFIG_NOSYSTEM=1
	: >"$GIT_CONFIG_GLOBAL"
	make_series
	# A rename, blank context lines, two files, a non-ASCII message.
	git -C "$WF_REPO" mv kernel/new.c kernel/newer.c
	dev_git commit -q -s -m "sysctl: Rename new.c" -m "Why."
	printf 'a\n\nb\n\nc\n{\n}\nx\n{\n}\ny\n' >"$WF_REPO/kernel/blank.c"
	printf 'zz\n' >"$WF_REPO/kernel/a.c"
	git -C "$WF_REPO" add -f kernel/blank.c kernel/a.c
	dev_git commit -q -s -m "sysctl: Add blank.c" -m "Why."
	printf 'a\n\nB\n\nc\n{\n}\nq\n{\n}\nx\n{\n}\ny\n' >"$WF_REPO/kernel/blank.c"
	printf 'yy\n' >"$WF_REPO/kernel/a.c"
	git -C "$WF_REPO" add -f kernel/blank.c kernel/a.c
	dev_git commit -q -s -m "sysctl: Edit blank.c for the café" -m "Naïve."
	# Edits that git's diff algorithms and its indent heuristic each show
	# another way; two hunks 8 lines apart; a non-ASCII file name.
	printf '%s\n' $'\tif (a) {' 'int f(void)' '{' 'int g(void)' $'\tx();' 'int g(void)' '}' $'\tx();' '' \
		'int g(void)' '}' $'\t}' >"$WF_REPO/kernel/algorithm.c"
	printf '%s\n' $'\tx();' $'\t}' $'\tx();' $'\t}' 'int f(void)' '{' 'int g(void)' 'int f(void)' '{' \
		>"$WF_REPO/kernel/heuristic.c"
	seq 20 >"$WF_REPO/kernel/hunks.c"
	git -C "$WF_REPO" add -f kernel/algorithm.c kernel/heuristic.c kernel/hunks.c
	dev_git commit -q -s -m "sysctl: Add three files" -m "Why."
	printf '%s\n' $'\tif (a) {' 'int f(void)' '{' 'int g(void)' $'\tx();' 'int g(void)' '}' $'\tx();' $'\t}' \
		'int g(void)' '' '' '' 'int f(void)' 'int g(void)' 'int g(void)' '}' $'\t}' >"$WF_REPO/kernel/algorithm.c"
	printf '%s\n' $'\tx();' $'\t}' $'\tx();' $'\t}' 'int f(void)' '{' 'int g(void)' 'int f(void)' $'\tx();' \
		$'\tif (a) {' 'int f(void)' '{' '{' 'int f(void)' >"$WF_REPO/kernel/heuristic.c"
	sed -i 's/^3$/three/; s/^12$/twelve/' "$WF_REPO/kernel/hunks.c"
	echo 'À la carte.' >"$WF_REPO/kernel/carte-à-jouer.txt"
	git -C "$WF_REPO" add -f kernel/algorithm.c kernel/heuristic.c kernel/hunks.c kernel/carte-à-jouer.txt
	dev_git commit -q -s -m "sysctl: Edit the three files" -m "Why."
	"$TOOLS/export.sh"
	cp -r "$WF_TOP/patches" "$BATS_TEST_TMPDIR/clean"
	# Every object in a pack, and a user who configured format-patch and
	# diff every way that changes their output.
	git -C "$WF_REPO" repack -adq
	[ -z "$(find "$WF_REPO/.git/objects" -path '*/objects/[0-9a-f][0-9a-f]/*' -type f)" ]
	printf 'kernel/sysctl.c\nkernel/blank.c\n' >"$BATS_TEST_TMPDIR/orderfile"
	printf '*.c -diff\n' >"$BATS_TEST_TMPDIR/attributes"
	export GIT_CONFIG_GLOBAL=$BATS_TEST_TMPDIR/gitconfig-hostile
	while read -r key value; do
		git config --global --add "$key" "$value"
	done <<CONFIG
core.abbrev 12
core.quotePath false
core.attributesFile $BATS_TEST_TMPDIR/attributes
diff.noprefix true
diff.mnemonicPrefix true
diff.context 5
diff.interHunkContext 10
diff.suppressBlankEmpty true
diff.orderFile $BATS_TEST_TMPDIR/orderfile
diff.renames false
diff.algorithm patience
diff.indentHeuristic false
diff.relative true
format.signOff true
format.coverLetter true
format.numbered false
format.subjectPrefix HOSTILE
format.suffix .diff
format.headers X-Hostile: yes
format.to hostile@fixture.home.arpa
format.cc hostile@fixture.home.arpa
format.from Hostile <hostile@fixture.home.arpa>
format.forceInBodyFrom true
format.attach true
format.filenameMaxLength 20
format.encodeEmailHeaders false
format.signature hostile
format.thread deep
format.useAutoBase true
format.notes true
i18n.logOutputEncoding ISO-8859-1
user.name Hostile
user.email hostile@fixture.home.arpa
CONFIG
	git -C "$WF_REPO" notes add -m "A hostile note." HEAD
	run "$TOOLS/export.sh"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"wrote 8 patch(es) to patches/ (0 file(s) changed)"* ]]
	diff -r "$BATS_TEST_TMPDIR/clean" "$WF_TOP/patches"
}

@test "export: an amended commit message is written back" {
	make_series
	git -C "$WF_REPO" -c user.name=B -c user.email=b@example.org \
		commit -q --amend -m "sysctl: Initialise three, reworded" -m "Better reason." -m "Signed-off-by: A Developer <dev@example.org>"
	run "$TOOLS/export.sh"
	[ "$status" -eq 0 ]
	[[ $output == *"(2 file(s) changed)"* ]]
	grep -q 'reworded' "$WF_TOP/patches/0003-sysctl-Initialise-three-reworded.patch"
	[ ! -e "$WF_TOP/patches/0003-sysctl-Initialise-three.patch" ]
}

@test "rebuild: a patch that does not apply names the patch and the hunk, and keeps the branch" {
	make_series
	old=$(git -C "$WF_REPO" rev-parse fixture-topic)
	sed -i 's/^ int two;$/ int deux;/' "$WF_TOP/patches/0003-sysctl-Initialise-three.patch"
	run "$TOOLS/rebuild.sh"
	[ "$status" -eq 1 ]
	[ "$(grep -c "error:" <<<"$output")" -eq 1 ]
	[[ ${lines[-1]} == "rebuild: error: patches/0003-sysctl-Initialise-three.patch does not apply: patch failed: kernel/sysctl.c:3" ]]
	[ "$(git -C "$WF_REPO" rev-parse fixture-topic)" = "$old" ]
	[ "$(git -C "$WF_REPO" symbolic-ref HEAD)" = refs/heads/fixture-topic ]
	[ -z "$(git -C "$WF_REPO" status --porcelain --untracked-files=no)" ]
	[ ! -d "$WF_REPO/.git/rebase-apply" ]
}

@test "rebuild: a patch for a missing file names the file" {
	make_series
	sed -i 's#kernel/sysctl.c#kernel/gone.c#g' "$WF_TOP/patches/0001-sysctl-Initialise-one.patch"
	run "$TOOLS/rebuild.sh"
	[ "$status" -eq 1 ]
	[[ ${lines[-1]} == *"patches/0001-sysctl-Initialise-one.patch does not apply: kernel/gone.c: does not exist in index"* ]]
}

@test "rebuild: refuses to drop commits that were never exported, unless forced" {
	make_series
	commit_in_repo kernel/new.c 'int newer;\n' "sysctl: Not exported"
	run "$TOOLS/rebuild.sh"
	[ "$status" -eq 1 ]
	[[ $output == *"branch fixture-topic has changes not exported to patches/"* ]]
	git -C "$WF_REPO" log -1 --format=%s fixture-topic | grep -qx 'sysctl: Not exported'
	run "$TOOLS/rebuild.sh" -f
	[ "$status" -eq 0 ]
	git -C "$WF_REPO" log -1 --format=%s fixture-topic | grep -qx 'sysctl: Initialise three'
}

@test "rebuild: refuses to run over uncommitted changes" {
	make_series
	echo '/* local edit */' >>"$WF_REPO/kernel/sysctl.c"
	run "$TOOLS/rebuild.sh"
	[ "$status" -eq 1 ]
	[[ $output == *"has uncommitted changes"* ]]
	grep -q 'local edit' "$WF_REPO/kernel/sysctl.c"
}

@test "rebuild, export: each refuses while another run holds its lock, and changes nothing" {
	make_series
	# What each would change: rebuild, the branch to the two patches
	# left; export, patches/ to the branch with one more commit.
	for cmd in rebuild export; do
		case $cmd in
		rebuild) rm "$WF_TOP/patches/0003-sysctl-Initialise-three.patch" ;;
		export) commit_in_repo kernel/new.c 'int newer;\n' "sysctl: Not exported yet" ;;
		esac
		cp -r "$WF_TOP/patches" "$BATS_TEST_TMPDIR/patches-$cmd"
		refs=$(git -C "$WF_REPO" for-each-ref)
		head=$(git -C "$WF_REPO" rev-parse HEAD)
		lock=$WF_CACHE/branches/6.1/$cmd.lock
		hold_lock "$lock"
		run "$TOOLS/$cmd.sh"
		release_lock
		refused_by_lock "$cmd" "$lock"
		diff -r "$BATS_TEST_TMPDIR/patches-$cmd" "$WF_TOP/patches"
		[ "$(git -C "$WF_REPO" for-each-ref)" = "$refs" ]
		[ "$(git -C "$WF_REPO" rev-parse HEAD)" = "$head" ]
		[ -z "$(git -C "$WF_REPO" status --porcelain --untracked-files=no)" ]
		[ ! -e "$WF_CACHE/branches/6.1/$cmd.run" ]
	done
}

@test "deps: a missing package is named with the install command" {
	WF_EXTRA_PACKAGES=no-such-package-sysctl-wf run "$TOOLS/deps.sh" --check
	[ "$status" -eq 1 ]
	[[ $output == *"missing packages: no-such-package-sysctl-wf (run: sudo apt-get update && sudo apt-get install -y no-such-package-sysctl-wf)"* ]]
}

@test "build: an unknown config is named" {
	"$TOOLS/rebuild.sh"
	run "$TOOLS/build.sh" -s "$WF_REPO" no-such-config
	[ "$status" -eq 2 ]
	[[ $output == *"unknown config 'no-such-config'"* ]]
}

@test "build: an unknown config is named before a missing kernel tree" {
	run make -s -C "$REPO_ROOT" build CONFIG=no-such-config
	[ "$status" -ne 0 ]
	[[ ${lines[0]} == "build: error: unknown config 'no-such-config' (see "*"/configs/matrix.txt)" ]]
	run "$TOOLS/build.sh" boot
	[ "$status" -eq 2 ]
	[ "$output" = "build: error: $WF_REPO is not a kernel source tree (run: make rebuild)" ]
}

@test "all-branches: make all on each topic branch in turn, then a table; a failing branch fails the run, not the next" {
	local dir=$BATS_TEST_TMPDIR/wf
	mkdir -p "$dir/tools"
	cp "$TOOLS/all-branches.sh" "$TOOLS/lib.sh" "$TOOLS/lib-run.sh" "$dir/tools/"
	# The stand-in for make all: it notes its branch, and fails on FAIL's.
	# shellcheck disable=SC2016 # make's own $(BRANCH)
	printf 'all:\n\t@echo "all $(BRANCH)" >>"%s"\n\t@test "$(BRANCH)" != "$(FAIL)"\n' "$dir/log" >"$dir/Makefile"
	printf '%s\n' 'topic 6.1 fixture-topic linux-source-6.1 any patches/6.1' \
		'topic 6.12 fixture-topic-6.12 linux-source-6.12 any patches/6.12' \
		'topic 6.13 fixture-topic-6.13 linux-source-6.13 any patches/6.13' >"$WF_TOP/branches.txt"
	FAIL=6.12 run "$dir/tools/all-branches.sh"
	echo "$output"
	[ "$status" -eq 1 ]
	[ "$(cat "$dir/log")" = "$(printf 'all 6.1\nall 6.12\nall 6.13')" ]
	grep -qE '^6\.1 +\| fixture-topic +\| pass +\| [0-9]+s$' <<<"$output"
	grep -qE '^6\.12 +\| fixture-topic-6\.12 +\| fail \(make all: 2\) +\| [0-9]+s$' <<<"$output"
	grep -qE '^6\.13 +\| fixture-topic-6\.13 +\| pass +\| [0-9]+s$' <<<"$output"
	FAIL=none run "$dir/tools/all-branches.sh"
	[ "$status" -eq 0 ]
	[ "$(grep -c '| pass ' <<<"$output")" -eq 3 ]
}

# fake_stages DIR: the Makefile in DIR with each stage's script replaced
# by one that logs its start and end in DIR/log, a second apart.
fake_stages() {
	local dir=$1 s
	mkdir -p "$dir/tools" "$dir/runner"
	cp "$REPO_ROOT/Makefile" "$dir/"
	for s in tools/deps tools/base tools/rebuild runner/validate tools/stress; do
		printf '#!/bin/sh\necho "start %s" >>"%s"\nsleep 1\necho "end %s" >>"%s"\n' \
			"${s#*/}" "$dir/log" "${s#*/}" "$dir/log" >"$dir/$s.sh"
		chmod +x "$dir/$s.sh"
	done
}

@test "make: under -j2 each stage starts after the stages it needs" {
	fake_stages "$BATS_TEST_TMPDIR/fake"
	run make -s -j2 -C "$BATS_TEST_TMPDIR/fake"
	[ "$status" -eq 0 ]
	[ "$(tr '\n' ' ' <"$BATS_TEST_TMPDIR/fake/log")" = "start deps end deps start base end base start rebuild end rebuild start validate end validate start stress end stress " ]
	rm "$BATS_TEST_TMPDIR/fake/log"
	run make -s -j2 -C "$BATS_TEST_TMPDIR/fake" stress
	[ "$status" -eq 0 ]
	[ "$(tr '\n' ' ' <"$BATS_TEST_TMPDIR/fake/log")" = "start deps end deps start base end base start rebuild end rebuild start stress end stress " ]
}

@test "checkpatch: a commit with a checkpatch error fails on that commit only" {
	"$TOOLS/rebuild.sh"
	add_checkpatch_to_fixture
	git -C "$WF_REPO" add -f .
	git -C "$WF_REPO" -c user.name=A -c user.email=a@example.org commit -q -m "Add checkpatch for the fixture"
	git -C "$WF_REPO" tag -f fixture-base >/dev/null
	commit_in_repo kernel/sysctl.c '/* one */\nint one;\n/* two */\nint two;\n/* three */\nint three = 3;\n' "sysctl: Initialise three"
	commit_in_repo kernel/new.c 'int  bad ;   \n' "sysctl: Add badly formatted code"
	run "$TOOLS/checkpatch.sh" fixture-base..fixture-topic
	[ "$status" -eq 1 ]
	[[ ${lines[0]} == "pass "*" sysctl: Initialise three: checkpatch: 0 errors, 0 warnings, 0 checks" ]]
	[[ ${lines[1]} == "fail "*" sysctl: Add badly formatted code: checkpatch: 1 errors, 2 warnings, 0 checks" ]]
	[[ $output == *"WARNING:SPACING: space prohibited before semicolon"* ]]
	[[ $output == *"ERROR:TRAILING_WHITESPACE: trailing whitespace"* ]]
	[ "${lines[-1]}" = "checkpatch: 2 commit(s): 1 pass, 1 fail" ]
	# make checkpatch RANGE=a..b: the same, on that range only.
	run make -s -C "$REPO_ROOT" checkpatch RANGE=fixture-topic~1..fixture-topic
	[ "$status" -ne 0 ]
	[[ ${lines[0]} == "fail "*" sysctl: Add badly formatted code: "* ]]
	[[ $output == *"checkpatch: 1 commit(s): 0 pass, 1 fail"* ]]
	run "$TOOLS/checkpatch.sh" fixture-base..no-such-branch
	[ "$status" -eq 2 ]
	[ "$output" = "checkpatch: error: bad revision range 'fixture-base..no-such-branch' in $WF_REPO" ]
	# No commit is no verdict, never "0 commit(s): 0 pass, 0 fail".
	run "$TOOLS/checkpatch.sh" fixture-topic..fixture-topic
	[ "$status" -eq 2 ]
	[ "$output" = "checkpatch: error: no commits in the range 'fixture-topic..fixture-topic': nothing to check" ]
}

@test "make validate passes RANGE, CHECKS, V and FAIL_FAST through" {
	run make -s -n -C "$REPO_ROOT" validate RANGE=a..b CHECKS=checkpatch,qemu V=1
	[ "$status" -eq 0 ]
	[[ $output == *"WF_VERBOSE=1 WF_FAIL_FAST= runner/validate.sh -c checkpatch,qemu a..b"* ]]
	run make -s -n -C "$REPO_ROOT" validate FAIL_FAST=1
	[[ $output == *"WF_FAIL_FAST=1 runner/validate.sh"* ]]
}

@test "export, validate, checkpatch: a topic package that is not installed is named in one line" {
	unset WF_PKG_VERSION
	sed -i 's/ linux-source-6.1 / linux-source-sysctl-wf-none /' "$WF_TOP/branches.txt"
	run "$TOOLS/export.sh"
	[ "$status" -eq 1 ]
	[ "$output" = "export: error: package linux-source-sysctl-wf-none is not installed (run: apt-get install linux-source-sysctl-wf-none)" ]
	mkdir -p "$WF_REPO/.git"
	run "$RUNNER/validate.sh" -o "$BATS_TEST_TMPDIR/out"
	[ "$status" -eq 1 ]
	[ "$output" = "validate: error: package linux-source-sysctl-wf-none is not installed (run: apt-get install linux-source-sysctl-wf-none)" ]
	run "$TOOLS/checkpatch.sh"
	[ "$status" -eq 1 ]
	[ "$output" = "checkpatch: error: package linux-source-sysctl-wf-none is not installed (run: apt-get install linux-source-sysctl-wf-none)" ]
}

@test "mkinitramfs: without a kernel base, one line says so" {
	run "$QEMU_BOOT/mkinitramfs.sh" -o "$BATS_TEST_TMPDIR/initramfs.cpio"
	[ "$status" -eq 1 ]
	[ "$output" = "mkinitramfs: error: no kernel base in $WF_REPO (run: make base)" ]
	[ ! -e "$BATS_TEST_TMPDIR/initramfs.cpio" ]
}

@test "tests: a suite that writes into WF_CACHE fails the run, one that does not passes" {
	summary=$BATS_TEST_TMPDIR/summary
	# printf: a line starting with @test here would be read as a test of this file.
	# shellcheck disable=SC2016 # expanded by the inner suite
	printf '@%s\n' 'test "forgets its own cache" { mkdir -p "$WF_CACHE/branches"; }' \
		>"$BATS_TEST_TMPDIR/writes.bats"
	# shellcheck disable=SC2016 # expanded by the inner suite
	printf '@%s\n' 'test "uses its own cache" { WF_CACHE=$BATS_TEST_TMPDIR/c; mkdir -p "$WF_CACHE/branches"; }' \
		>"$BATS_TEST_TMPDIR/owns.bats"
	WF_TEST_SUMMARY=$summary run "$REPO_ROOT/tests/run.sh" "$BATS_TEST_TMPDIR/writes.bats" 3>&-
	[ "$status" -eq 1 ]
	[[ $output == *"# a test wrote into WF_CACHE ("*": branches ): tests must use a cache of their own"* ]]
	[ "$(cat "$summary")" = "1 passed, 1 failed, 0 skipped" ]
	WF_TEST_SUMMARY=$summary run "$REPO_ROOT/tests/run.sh" "$BATS_TEST_TMPDIR/owns.bats" 3>&-
	[ "$status" -eq 0 ]
	[ "$(cat "$summary")" = "1 passed, 0 failed, 0 skipped" ]
}
