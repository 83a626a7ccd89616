#!/usr/bin/env bats
# Tests of tools/trees.sh (subsystem trees) and tools/other-base.sh
# (another version of the packaged source) on fixture trees.

load test_helper
bats_require_minimum_version 1.5.0

# make_tree NAME BRANCH: a subsystem tree repo made from the fixture base.
make_tree() {
	local dir=$BATS_TEST_TMPDIR/trees/$1
	git init -q "$dir"
	git -C "$dir" fetch -q "$WF_REPO" refs/tags/base/6.1.99-1
	git -C "$dir" checkout -q -b "$2" FETCH_HEAD
}

# tree_commit NAME FILE CONTENT: a commit in a fixture tree.
tree_commit() {
	local dir=$BATS_TEST_TMPDIR/trees/$1
	mkdir -p "$(dirname "$dir/$2")"
	printf '%b' "$3" >"$dir/$2"
	git -C "$dir" add -f "$2"
	git -C "$dir" -c user.name=M -c user.email=m@example.org commit -q -m "$1: change $2"
}

setup() {
	setup_kernel_fixture
	make_kernel_series
	make_tree sysctl sysctl-next
	tree_commit sysctl kernel/other.c 'int other;\n'
	make_tree tip x86/asm
	# The deliberate conflict: tip changed the line patch 2 changes.
	tree_commit tip arch/x86/entry/syscalls/syscall_64.tbl \
		'# 64-bit system call numbers (fixture)\n154\t64\tmodify_ldt\t\tsys_modify_ldt\n155\tcommon\tpivot_root\t\tsys_pivot_root\n156\t64\treserved\t\tsys_ni_syscall\n157\tcommon\tprctl\t\t\tsys_prctl\n158\t64\tarch_prctl\t\tsys_arch_prctl\n'
	make_tree kselftest next
	make_tree docs docs-next
	cat >>"$WF_TOP/branches.txt" <<-END
	tree sysctl $BATS_TEST_TMPDIR/trees/sysctl sysctl-next kernel/ include/linux/sysctl.h
	tree tip $BATS_TEST_TMPDIR/trees/tip x86/asm arch/x86/entry/syscalls/
	tree kselftest $BATS_TEST_TMPDIR/trees/kselftest next tools/testing/selftests/
	tree docs $BATS_TEST_TMPDIR/trees/docs docs-next Documentation/
	tree gone git://git.invalid/nowhere.git master 0005-*
	END
}

@test "trees: per tree and patch, applies, conflicts, needs, unreachable" {
	run "$TOOLS/trees.sh"
	echo "$output"
	[ "$status" -eq 1 ]
	row() { grep -E "^$1 +[^ ]+ +$2" <<<"$output"; }
	[[ $(row sysctl 0001-sysctl-Add-the-sysctl-2-entry-point) == *"applies" ]]
	[[ $(row sysctl 0004-Documentation-Describe-sysctl-2) == *"applies" ]]
	[[ $(row sysctl 0005-sysctl-Initialise-one) == *"applies" ]]
	[[ $(row tip 0002-x86-syscalls) == *"CONFLICT: arch/x86/entry/syscalls/syscall_64.tbl" ]]
	[[ $(row kselftest 0003-selftests) == *"applies" ]]
	[[ $(row docs 0004-Documentation) == *"needs 0001-sysctl-Add-the-sysctl-2-entry-point (sysctl)" ]]
	[[ $(row gone -) == *"SKIPPED: cannot fetch git://git.invalid/nowhere.git"* ]]
	[[ $output == *"0002-x86-syscalls-Wire-up-sysctl-2-for-64-bit-callers: cannot apply to tip/x86/asm ("*"): conflicts in arch/x86/entry/syscalls/syscall_64.tbl"* ]]
	[[ $output == *"0004-Documentation-Describe-sysctl-2 (docs) must go in together with 0001-sysctl-Add-the-sysctl-2-entry-point (sysctl)"* ]]
	[ -s "$WF_TOP/out/6.1/trees.txt" ]
}

@test "trees: a patch that needs the patch right before it, of another tree, is \"needs\", not a conflict" {
	# Patch 6 changes the line patch 5 (sysctl's) changes; proc takes 6 only.
	commit_in_repo kernel/sysctl.c '/* one */\nint one = 2;\n/* two */\nint two;\n/* three */\nint three;\n' \
		"sysctl: Initialise one to two"
	"$TOOLS/export.sh"
	make_tree proc proc-next
	sed -i -e '/^tree tip/d' -e '/^tree gone/d' "$WF_TOP/branches.txt"
	echo "tree proc $BATS_TEST_TMPDIR/trees/proc proc-next 0006-*" >>"$WF_TOP/branches.txt"
	run "$TOOLS/trees.sh"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $(grep -E '^proc +' <<<"$output") == *"0006-sysctl-Initialise-one-to-two"*"needs 0005-sysctl-Initialise-one (sysctl)" ]]
	[[ $output == *"0006-sysctl-Initialise-one-to-two (proc) must go in together with 0005-sysctl-Initialise-one (sysctl)"* ]]
	[[ $output != *CONFLICT* ]]
	# stdout is the report and nothing else (the search for what a patch
	# needs prints nothing of its own).
	run --separate-stderr "$TOOLS/trees.sh"
	[ "$status" -eq 0 ]
	diff <(printf '%s\n' "$output") "$WF_TOP/out/6.1/trees.txt"
}

@test "trees: all applying gives exit 0; nothing fetched is left in the cache repo" {
	sed -i -e '/^tree tip/d' -e '/^tree gone/d' "$WF_TOP/branches.txt"
	run "$TOOLS/trees.sh"
	[ "$status" -eq 0 ]
	[[ $output != *CONFLICT* ]]
	[[ $(git -C "$WF_REPO" for-each-ref) != *refs/trees/* ]]
}

@test "trees: a tree that cannot be fetched is an infrastructure error, exit 3, unless a patch conflicts" {
	# (offline, every tree: nothing checked is not a pass)
	local line="trees: infrastructure error: 1 tree(s) could not be fetched (gone): the patches they take were not checked"
	cp "$WF_TOP/branches.txt" "$BATS_TEST_TMPDIR/branches.txt"
	sed -i '/^tree tip/d' "$WF_TOP/branches.txt"
	run "$TOOLS/trees.sh"
	echo "$output"
	[ "$status" -eq 3 ]
	[ "${lines[-1]}" = "$line" ]
	# A conflict elsewhere is the verdict: exit 1, the skip still said.
	cp "$BATS_TEST_TMPDIR/branches.txt" "$WF_TOP/branches.txt"
	run "$TOOLS/trees.sh"
	[ "$status" -eq 1 ]
	[ "${lines[-1]}" = "$line" ]
}

@test "trees and other-base: a missing or empty patch directory is named in one line, nothing checked" {
	sed -i 's# patches$# patches.x#' "$WF_TOP/branches.txt"
	run "$TOOLS/trees.sh"
	[ "$status" -eq 1 ]
	[ "$output" = "trees: error: patch directory $WF_TOP/patches.x does not exist" ]
	mkdir -p "$BATS_TEST_TMPDIR/other"
	cp "$WF_SRC_DIR/linux-source-6.1.tar.xz" "$BATS_TEST_TMPDIR/other/"
	WF_TEST_OTHER_BUILD=true run "$TOOLS/other-base.sh" -V 6.1.98-1 "$BATS_TEST_TMPDIR/other/linux-source-6.1.tar.xz"
	[ "$status" -eq 1 ]
	[ "$output" = "other-base: error: patch directory $WF_TOP/patches.x does not exist" ]
	mkdir "$WF_TOP/patches.x"
	run "$TOOLS/trees.sh"
	[ "$status" -eq 1 ]
	[ "$output" = "trees: error: no patches in patches.x/: nothing to check" ]
	WF_TEST_OTHER_BUILD=true run "$TOOLS/other-base.sh" -V 6.1.98-1 "$BATS_TEST_TMPDIR/other/linux-source-6.1.tar.xz"
	[ "$status" -eq 1 ]
	[ "$output" = "other-base: error: no patches in patches.x/: nothing to apply" ]
}

@test "trees: a tree record without owned patches is named by line" {
	printf 'tree docs /x docs-next\n' >>"$WF_TOP/branches.txt"
	run "$TOOLS/trees.sh"
	[ "$status" -eq 2 ]
	[[ $output == *"branches.txt:7: 'tree' takes at least 4 fields"* ]]
}

# other_tarball VERSION DIR: the fixture source with kernel/sysctl.c
# changed where patch 5 changes it, as DIR/linux-source-6.1.tar.xz.
other_tarball() {
	local src
	src=$(mktemp -d)
	tar -xJf "$WF_SRC_DIR/linux-source-6.1.tar.xz" -C "$src"
	printf '/* one */\nint one = 0;\n/* two */\nint two;\n/* three */\nint three;\n' \
		>"$src/linux-source-6.1/kernel/sysctl.c"
	mkdir -p "$2"
	tar -cJf "$2/linux-source-6.1.tar.xz" -C "$src" linux-source-6.1
	rm -rf "$src"
}

@test "other-base: a .deb of another version: the patch that needs rework is named" {
	pkg=$BATS_TEST_TMPDIR/deb
	other_tarball 6.1.50-1 "$pkg/usr/src"
	mkdir -p "$pkg/DEBIAN"
	printf 'Package: linux-source-6.1\nVersion: 6.1.50-1\nArchitecture: all\nMaintainer: Fixture <f@example.org>\nDescription: fixture\n' \
		>"$pkg/DEBIAN/control"
	dpkg-deb --build "$pkg" "$BATS_TEST_TMPDIR/linux-source-6.1_6.1.50-1_all.deb" >/dev/null
	run "$TOOLS/other-base.sh" "$BATS_TEST_TMPDIR/linux-source-6.1_6.1.50-1_all.deb"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ $output == *"0001-sysctl-Add-the-sysctl-2-entry-point.patch"*"applies"* ]]
	[[ $output == *"0005-sysctl-Initialise-one.patch"*"needs rework: kernel/sysctl.c"* ]]
	[[ ${lines[-1]} == "base/6.1.50-1: 4 of 5 patch(es) apply; not built: 1 patch(es) need rework" ]]
	git -C "$WF_REPO" rev-parse -q --verify refs/tags/base/6.1.50-1
}

@test "other-base: a tarball where everything applies is built" {
	mkdir -p "$BATS_TEST_TMPDIR/other"
	cp "$WF_SRC_DIR/linux-source-6.1.tar.xz" "$BATS_TEST_TMPDIR/other/"
	# shellcheck disable=SC2016 # expanded by bash -c in other-base.sh
	WF_TEST_OTHER_BUILD='test -f "$SRC/kernel/sysctl_binary.c" && test "$(git -C "$SRC" rev-list --count HEAD)" -eq 6' \
		run "$TOOLS/other-base.sh" -V 6.1.98-1 "$BATS_TEST_TMPDIR/other/linux-source-6.1.tar.xz"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ ${lines[-1]} == "base/6.1.98-1: 5 of 5 patch(es) apply; built (boot config)" ]]
	run "$TOOLS/other-base.sh" -V 6.1.98-1 "$BATS_TEST_TMPDIR/missing.tar.xz"
	[ "$status" -eq 2 ]
	[[ $output == *"missing.tar.xz not found"* ]]
	run "$TOOLS/other-base.sh" 6.1.1-99
	[ "$status" -eq 2 ]
	[[ $output == *"apt knows no linux-source-6.1 6.1.1-99"* ]]
}

@test "other-base: a version apt does not know is named in one line" {
	run "$TOOLS/other-base.sh" nonsense
	echo "$output"
	[ "$status" -eq 2 ]
	[ "$output" = "other-base: error: apt knows no linux-source-6.1 nonsense (see: apt-cache madison linux-source-6.1)" ]
	# Refused before it began: the next run finds no interrupted run.
	run "$TOOLS/other-base.sh" nonsense
	[ "$status" -eq 2 ]
	[ "$output" = "other-base: error: apt knows no linux-source-6.1 nonsense (see: apt-cache madison linux-source-6.1)" ]
	run make -s -C "$REPO_ROOT" other-base
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "make other-base: BASE= is needed (a version apt knows, a .deb or a .tar.xz)" ]
}
