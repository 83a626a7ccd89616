#!/usr/bin/env bats
# Tests of make base (the import of the tarball) and of branches.txt,
# which every command reads, on fixture trees.

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

@test "base: the import's committer is every tool commit's (wf_committer_env), WF_COMMITTER_* included" {
	"$TOOLS/base.sh"
	[ "$(git -C "$WF_REPO" log -1 --format='%cn <%ce>' refs/tags/base/6.1.99-1)" = "sysctl-wf <sysctl-wf@localhost>" ]
	WF_COMMITTER_NAME=Other WF_COMMITTER_EMAIL=other@home.arpa WF_PKG_VERSION=6.1.100-1 "$TOOLS/base.sh"
	[ "$(git -C "$WF_REPO" log -1 --format='%cn <%ce>' refs/tags/base/6.1.100-1)" = "Other <other@home.arpa>" ]
}

@test "base: a missing tarball is named, with the package to install" {
	rm "$WF_SRC_DIR/linux-source-6.1.tar.xz"
	run "$TOOLS/base.sh"
	[ "$status" -eq 3 ]
	[[ $output == *"linux-source-6.1.tar.xz not found (install it: apt-get install linux-source-6.1)"* ]]
	[ ! -e "$WF_REPO" ]
}

@test "base: a version outside the constraint is refused" {
	printf 'topic 6.1 t linux-source-6.1 >=6.1.150 patches\n' >"$WF_TOP/branches.txt"
	run "$TOOLS/base.sh"
	[ "$status" -eq 3 ]
	[[ $output == *"6.1.99-1 does not satisfy the constraint >=6.1.150"* ]]
}

@test "branches.txt: malformed lines are named by line number" {
	# Each case: the file, then what the parser says of it.  The parser
	# runs as every script runs it: sourcing tools/lib.sh.
	local c file want
	local -a cases=(
		$'# comment\n\ntopic 6.1 t linux-source-6.1 >=6.1|branches.txt:3: \'topic\' takes 5 fields'
		$'topic 6.1 t linux-source-6.1 >=6.1 patches\nbranch x y|branches.txt:2: unknown record \'branch\''
		$'topic 6.1 t linux-source-6.1 6.1 patches|branches.txt:1: \'6.1\' is not a version constraint'
		$'topic 6.1 t linux-source-6.1 any patches\ntree sysctl /nowhere|branches.txt:2: \'tree\' takes at least 4 fields'
		$'topic 6.1 t..x linux-source-6.1 any patches|branches.txt:1: \'t..x\' is not a valid branch name'
		$'topic 6/1 t linux-source-6.1 any patches|branches.txt:1: \'6/1\' is not a branch id'
		$'topic 6.1 t linux-source-6.1 any p1\ntopic 6.1 u linux-source-6.12 any p2|branches.txt:2: second topic with the id \'6.1\''
		$'topic 6.1 t linux-source-6.1 any p1\ntopic 6.12 t linux-source-6.12 any p2|branches.txt:2: second topic on the branch \'t\''
	)
	for c in "${cases[@]}"; do
		file=${c%%|*} want=${c#*|}
		printf '%s\n' "$file" >"$WF_TOP/branches.txt"
		# shellcheck disable=SC2016 # expanded by the inner bash
		run bash -c '. "$1/tools/lib.sh"' _ "$REPO_ROOT"
		echo "$want: $output"
		[ "$status" -ne 0 ]
		[[ $output == *"$want"* ]]
	done
	# A command given such a file stops before it touches anything.
	run "$TOOLS/rebuild.sh"
	[ "$status" -eq 2 ]
	[[ $output == *"branches.txt:2: second topic on the branch 't'"* ]]
	[ ! -e "$WF_REPO" ]
}

@test "branches: BRANCH= selects a topic line, its cache, out/ and cover letters; an unknown one is named" {
	printf 'topic 6.1 t linux-source-6.1 any p1\ntopic 6.12 u linux-source-6.12 >=6.12 p2\n' >"$WF_TOP/branches.txt"
	run env WF_BRANCH=6.13 "$TOOLS/rebuild.sh"
	[ "$status" -eq 2 ]
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

@test "branches: BRANCH= takes a topic's git branch too; one that names two lines is refused, naming them" {
	printf 'topic 6.1 sysctl-syscall linux-source-6.1 any p1\ntopic 6.12 sysctl-syscall-6.12 linux-source-6.12 >=6.12 p2\n' >"$WF_TOP/branches.txt"
	where() {
		# shellcheck disable=SC2016 # expanded by the inner bash, after lib.sh
		env -u WF_REPO WF_BRANCH="$1" bash -c '. "$1"; echo "$WF_BRANCH $TOPIC_ID $TOPIC_NAME $WF_CACHE $WF_OUT $WF_COVERS"' \
			where "$TOOLS/lib.sh"
	}
	# The git branch of the cache names the same topic as its id, and
	# the scripts it runs get the id.
	[ "$(where sysctl-syscall)" = "$(where 6.1)" ]
	[ "$(where sysctl-syscall-6.12)" = "$(where 6.12)" ]
	[ "$(where sysctl-syscall-6.12)" = "6.12 6.12 sysctl-syscall-6.12 $WF_CACHE/branches/6.12 $WF_TOP/out/6.12 $WF_TOP/cover-letters/6.12" ]
	# Through make, as typed.
	run env -u WF_REPO make -s -C "$REPO_ROOT" export BRANCH=sysctl-syscall-6.12 WF_TOP="$WF_TOP"
	[[ $output == *"$WF_CACHE/branches/6.12/linux"* ]]
	# A name that is one line's id and another's git branch: bad input,
	# one line naming both, before anything is touched.
	printf 'topic a b linux-source-6.1 any p1\ntopic b c linux-source-6.12 any p2\n' >"$WF_TOP/branches.txt"
	run env WF_BRANCH=b "$TOOLS/rebuild.sh"
	[ "$status" -eq 2 ]
	[ "$output" = "rebuild: error: BRANCH 'b' is ambiguous in $WF_TOP/branches.txt: the id of the topic b (line 2) and the git branch of the topic a (line 1); type the id" ]
	[ ! -e "$WF_CACHE" ]
	[ "$(where a | cut -d' ' -f1-3)" = "a a b" ]
	[ "$(where c | cut -d' ' -f1-3)" = "b b c" ]
}
