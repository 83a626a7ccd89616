# shellcheck shell=bash
# Shared setup for the bats tests: a fixture "package" tarball, a fixture
# checkout (branches.txt + patches/) and a private cache per test.

REPO_ROOT=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
TOOLS=$REPO_ROOT/tools
CHECKS=$REPO_ROOT/checks
QEMU_BOOT=$REPO_ROOT/qemu-boot

# The real cache of the user running the tests (kernel repo, builds).
REAL_CACHE=${WF_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/sysctl-wf}

# make_fixture_tarball DIR: a small "linux-source-6.1" tarball whose
# top-level .gitignore ignores everything, like Debian's ignores dot files.
make_fixture_tarball() {
	local dir=$1 src
	src=$(mktemp -d)
	mkdir -p "$src/linux-source-6.1/kernel" "$src/linux-source-6.1/include/linux" \
		"$src/linux-source-6.1/scripts"
	printf '*\n' >"$src/linux-source-6.1/.gitignore"
	printf 'hidden\n' >"$src/linux-source-6.1/.mailmap"
	printf 'VERSION = 6\nPATCHLEVEL = 1\n' >"$src/linux-source-6.1/Makefile"
	printf '/* one */\nint one;\n/* two */\nint two;\n/* three */\nint three;\n' \
		>"$src/linux-source-6.1/kernel/sysctl.c"
	printf '#define CTL_MAXNAME 10\n' >"$src/linux-source-6.1/include/linux/sysctl.h"
	printf 'build\n' >"$src/linux-source-6.1/kernel/.gitignore"
	ln -s ../Makefile "$src/linux-source-6.1/scripts/link"
	mkdir -p "$dir"
	tar -cJf "$dir/linux-source-6.1.tar.xz" -C "$src" linux-source-6.1
	rm -rf "$src"
}

# setup_fixture: environment for one test, all under $BATS_TEST_TMPDIR.
setup_fixture() {
	export WF_CACHE=$BATS_TEST_TMPDIR/cache
	export WF_SRC_DIR=$BATS_TEST_TMPDIR/usr-src
	export WF_PKG_VERSION=6.1.99-1
	export WF_TOP=$BATS_TEST_TMPDIR/checkout
	export WF_REPO=$WF_CACHE/linux
	unset WF_BRANCHES
	make_fixture_tarball "$WF_SRC_DIR"
	mkdir -p "$WF_TOP/patches"
	printf 'topic fixture-topic linux-source-6.1 >=6.1.0 patches\n' >"$WF_TOP/branches.txt"
}

# commit_in_repo FILE CONTENT SUBJECT: commit a change on the topic branch.
commit_in_repo() {
	printf '%b' "$2" >"$WF_REPO/$1"
	git -C "$WF_REPO" add -f "$1"
	git -C "$WF_REPO" -c user.name="A Developer" -c user.email=dev@example.org \
		commit -q -s -m "$3" -m "Why this change is needed."
}

# kernel_file PATH DEST: a file of the real 6.1 base, from the user's
# cache repo when it exists, else from the packaged tarball.
kernel_file() {
	local path=$1 dest=$2 ref
	mkdir -p "$(dirname "$dest")"
	if ref=$(git -C "$REAL_CACHE/linux" for-each-ref --count=1 --format='%(refname)' refs/tags/base/ 2>/dev/null) &&
		[[ -n $ref ]]; then
		git -C "$REAL_CACHE/linux" show "$ref:$path" >"$dest"
	else
		tar -xJOf /usr/src/linux-source-6.1.tar.xz "linux-source-6.1/$path" >"$dest"
	fi
}
