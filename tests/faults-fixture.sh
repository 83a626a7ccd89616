#!/usr/bin/env bash
# A fixture checkout and cache for dev/faults.sh's validate, stress,
# submit, send and trailers rows: no kernel is built, no QEMU runs,
# nothing leaves this machine.
#
#   eval "$(tests/faults-fixture.sh DIR)"
#   make faults ROWS="validate stress submit send trailers" KILLS=20
#
# DIR (created; it must not exist) gets the fixture "package" tarball (the
# files get_maintainer.pl, checkpatch.pl and the fixture kernel of
# tests/fixtures/validate need, in the base), a checkout with three
# patches by a developer, a cover letter and a passing validation, and
# the cache with the rebuilt branch.  Prints the environment that points
# the tools there: WF_* (WF_TEST_VALIDATE_BOOT: the fixture's boot), the
# fixture guest of make stress (WF_TEST_STRESS_RUN, WF_TEST_STRESS_MKINITRAMFS,
# FAULTS_STRESS_KERNEL), git's identity, ccache's directory.
set -euo pipefail

# commit_edit SED SUBJECT: an edit of kernel/names.c by the fixture
# developer.
commit_edit() {
	sed -i "$1" "$WF_REPO/kernel/names.c"
	git -C "$WF_REPO" add -f kernel/names.c
	dev_git commit -q -s -m "$2" -m "Why this change is needed."
}

main() {
	local dir=${1:-} fix tmp top
	[[ -n $dir ]] || { echo "usage: $0 DIR" >&2; exit 2; }
	[[ ! -e $dir ]] || { echo "faults-fixture: error: $dir exists" >&2; exit 2; }
	mkdir -p "$dir"
	dir=$(cd "$dir" && pwd)
	# The environment of a fixture made before (a test's) is not this one's.
	unset WF_CACHE WF_TOP WF_REPO WF_SRC_DIR WF_PKG_VERSION WF_BRANCHES
	BATS_TEST_DIRNAME=$(cd "$(dirname "$0")" && pwd)
	BATS_TEST_TMPDIR=$dir
	# shellcheck source=tests/test_helper.bash
	. "$BATS_TEST_DIRNAME/test_helper.bash"
	fix=$REPO_ROOT/tests/fixtures/validate
	setup_kernel_fixture
	# The fixture kernel of the validate tests, in the base.
	tmp=$(mktemp -d)
	tar -xJf "$WF_SRC_DIR/linux-source-6.1.tar.xz" -C "$tmp"
	top=$tmp/linux-source-6.1
	for f in scripts/checkpatch.pl scripts/spelling.txt scripts/const_structs.checkpatch; do
		kernel_file "$f" "$top/$f"
	done
	chmod +x "$top/scripts/checkpatch.pl"
	cp "$fix/Makefile" "$top/Makefile"
	mkdir -p "$top/kernel/configs" "$top/arch/x86/configs"
	cp "$fix/include/fixture.h" "$top/include/"
	cp "$fix/kernel/main.c" "$fix/kernel/names.c" "$top/kernel/"
	printf 'CONFIG_EMBEDDED=y\n' >"$top/kernel/configs/tiny-base.config"
	printf 'CONFIG_CC_OPTIMIZE_FOR_SIZE=y\n' >"$top/kernel/configs/tiny.config"
	printf 'CONFIG_NOHIGHMEM=y\n' >"$top/arch/x86/configs/tiny.config"
	tar -cJf "$WF_SRC_DIR/linux-source-6.1.tar.xz" -C "$tmp" linux-source-6.1
	rm -rf "$tmp"
	# Three patches, exported, rebuilt, validated.
	"$TOOLS/rebuild.sh" 2>/dev/null
	commit_edit 's/return 2;/return 3;/' "sysctl: Translate one more name"
	commit_edit 's/return 12;/return 13;/' "sysctl: Probe one more name"
	commit_edit 's/return 3;/return 4;/' "sysctl: Translate another name"
	"$TOOLS/export.sh" 2>/dev/null
	"$TOOLS/rebuild.sh" 2>/dev/null
	pass_validation
	# make stress's guest: tests/fixtures/stress (no kernel, no QEMU).
	printf 'not a kernel\n' >"$dir/bzImage"
	cat <<EOF
export WF_CACHE='$WF_CACHE' WF_SRC_DIR='$WF_SRC_DIR' WF_PKG_VERSION='$WF_PKG_VERSION'
export WF_TOP='$WF_TOP' WF_REPO='$WF_REPO'
export GIT_CONFIG_GLOBAL='$GIT_CONFIG_GLOBAL' GIT_CONFIG_NOSYSTEM=1
export WF_TEST_VALIDATE_BOOT='$fix/boot.sh' CCACHE_DIR='$dir/ccache'
export WF_TEST_STRESS_RUN='$REPO_ROOT/tests/fixtures/stress/run.sh'
export WF_TEST_STRESS_MKINITRAMFS='$REPO_ROOT/tests/fixtures/stress/mkinitramfs.sh'
export FAULTS_STRESS_KERNEL='$dir/bzImage'
EOF
}

main "$@"
