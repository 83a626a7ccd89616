#!/usr/bin/env bats
# Tests of make rebuild (patches/ onto the base) and make export (the
# branch back to patches/) on fixture trees.

load test_helper

setup() {
	setup_fixture
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
