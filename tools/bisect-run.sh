#!/usr/bin/env bash
# Test one commit for "git bisect run": build the boot config, boot it in
# QEMU and run the smoke test.
#
#   tools/bisect-run.sh                   the test step (run by git bisect
#                                         run in the tree under bisection)
#   tools/bisect-run.sh start [GOOD [BAD]]  the whole bisection, in its
#                                         own worktree $WF_CACHE/bisect/linux
#                                         (default: the base and the branch);
#                                         BAD is tested first, and one that
#                                         passes is refused
#
# Exit status of the test step, as git bisect run expects:
#   0    good: it builds, boots, and the smoke test passes
#   1    bad:  it builds, and the boot or the smoke test fails
#             (qemu-boot/run.sh exit 1: panic, oops, WARNING, "not ok", ...)
#   125  skip: the commit cannot be tested: it does not build, or the
#             runner could not run (qemu-boot/run.sh exit 2, or any other
#             status).  A build break is skipped, not called bad, because
#             we bisect boot/smoke regressions; set WF_BISECT_BUILD_FAIL=bad
#             to bisect a build break instead.
#
# The commands are those of the boot check, overridable for tests:
#   WF_TEST_BISECT_BUILD  default: tools/build.sh -s "$SRC" -o "$OUT" boot
#   WF_TEST_BISECT_BOOT   default: tools/boot.sh -B -s "$SRC" -o "$OUT"
#                    (the kernel the build step made, the series'
#                    kselftest when the tree has it, initramfs,
#                    qemu-boot/run.sh; no second make)
# Both run with bash -c, with SRC (the tree under test, default: the
# current git work tree) and OUT (the build directory, default
# $WF_CACHE/build/bisect-boot) exported.  A bisection that was killed
# (its git bisect, a lock, a half-checked-out commit in the worktree) is
# cleaned up by the next "start", which bisects again from scratch.
set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/lib.sh"

BISECT_TREE=${WF_BISECT_TREE:-$WF_CACHE/bisect/linux}

# test_step: build, boot, map the result to 0/1/125.
test_step() {
	local rc=0 commit subject
	SRC=${SRC:-$(git rev-parse --show-toplevel)}
	OUT=${OUT:-$WF_CACHE/build/bisect-boot}
	export SRC OUT WF_HOME
	mkdir -p "$OUT"
	commit=$(git -C "$SRC" rev-parse --short=12 HEAD)
	subject=$(git -C "$SRC" log -1 --format=%s HEAD)
	# shellcheck disable=SC2016 # expanded by bash -c
	local build=${WF_TEST_BISECT_BUILD:-'"$WF_HOME/tools/build.sh" -s "$SRC" -o "$OUT" boot'}
	# shellcheck disable=SC2016 # expanded by bash -c
	local boot=${WF_TEST_BISECT_BOOT:-'"$WF_HOME/tools/boot.sh" -B -s "$SRC" -o "$OUT"'}
	bash -c "$build" >"$OUT/bisect-build.log" 2>&1 || rc=$?
	if [[ $rc -ne 0 ]]; then
		if [[ ${WF_BISECT_BUILD_FAIL:-skip} == bad ]]; then
			info "$commit $subject: build failed -> bad (log: $OUT/bisect-build.log)"
			return 1
		fi
		info "$commit $subject: build failed -> skip (log: $OUT/bisect-build.log)"
		return 125
	fi
	bash -c "$boot" >"$OUT/bisect-boot.log" 2>&1 || rc=$?
	case $rc in
	0) info "$commit $subject: boot and smoke test passed -> good" ;;
	1) info "$commit $subject: boot or smoke test failed -> bad: $(grep -m1 -E 'FAIL|error' "$OUT/bisect-boot.log" || tail -n 1 "$OUT/bisect-boot.log")"
		return 1 ;;
	*) info "$commit $subject: could not boot (exit $rc) -> skip (log: $OUT/bisect-boot.log)"
		return 125 ;;
	esac
}

# bisect GOOD BAD: git bisect run this script in the bisect worktree.
bisect() {
	local good=$1 bad=$2 rc=0 first out
	# shellcheck disable=SC2310 # repo_git is one git command
	repo_git rev-parse -q --verify "$good^{commit}" >/dev/null || bad_input "good commit '$good' not found in $WF_REPO"
	# shellcheck disable=SC2310 # repo_git is one git command
	repo_git rev-parse -q --verify "$bad^{commit}" >/dev/null || bad_input "bad commit '$bad' not found in $WF_REPO"
	good=$(repo_git rev-parse "$good^{commit}")
	bad=$(repo_git rev-parse "$bad^{commit}")
	wf_lock bisect
	wf_run_begin bisect "$WF_CACHE/bisect/bisect.log.tmp"
	recover_worktree "$BISECT_TREE"
	# shellcheck disable=SC2310 # wf_no_recovery is one test: its status is the answer
	if [[ -e $WF_CACHE/bisect/bisect.log.tmp ]] && ! wf_no_recovery; then
		rm -f "$WF_CACHE/bisect/bisect.log.tmp"
		wf_repaired "removed the half-written bisect/bisect.log.tmp"
	fi
	wf_report_repairs last
	scratch_worktree "$BISECT_TREE" "$bad"
	git -C "$BISECT_TREE" bisect reset >/dev/null 2>&1 || true
	# git bisect takes BAD's word for it: a BAD that passes would come out
	# as the first bad commit, or fail git bisect run.  Test it first.
	(cd "$BISECT_TREE" && "$WF_HOME/tools/bisect-run.sh") || rc=$?
	if [[ $rc -eq 0 ]]; then
		wf_run_end
		die "BAD $(repo_git rev-parse --short=12 "$bad") ($(repo_git log -1 --format=%s "$bad")) passes the boot and the smoke test: it is not a bad commit, nothing to bisect"
	fi
	rc=0
	git -C "$BISECT_TREE" bisect start "$bad" "$good" >/dev/null
	out=$(cd "$BISECT_TREE" && git bisect run "$WF_HOME/tools/bisect-run.sh" 2>&1) || rc=$?
	printf '%s\n' "$out" | grep -E '^bisect-run: |is the first bad commit|first bad commit could be any of|^[0-9a-f]{40}$' || true
	first=$(git -C "$BISECT_TREE" rev-parse -q --verify refs/bisect/bad || true)
	mkdir -p "$WF_CACHE/bisect"
	git -C "$BISECT_TREE" bisect log >"$WF_CACHE/bisect/bisect.log.tmp" 2>/dev/null || true
	mv -f "$WF_CACHE/bisect/bisect.log.tmp" "$WF_CACHE/bisect/bisect.log"
	git -C "$BISECT_TREE" bisect reset >/dev/null 2>&1 || true
	wf_run_end
	if [[ $rc -ne 0 ]]; then
		die "git bisect run failed (exit $rc): $(tail -n 1 <<<"$out")"
	fi
	if grep -q 'is the first bad commit' <<<"$out"; then
		printf 'first bad commit: %s %s\n' "$(repo_git rev-parse --short=12 "$first")" \
			"$(repo_git log -1 --format=%s "$first")"
	else
		printf 'no single first bad commit (skipped commits in the way); log: %s\n' "$WF_CACHE/bisect/bisect.log"
	fi
}

main() {
	case ${1:-} in
	'') test_step ;;
	start)
		# An empty or missing GOOD is the base, BAD the topic branch.
		[[ $# -le 3 ]] || { echo "usage: $0 start [GOOD [BAD]]" >&2; exit 2; }
		parse_branches
		local good=${2:-} bad=${3:-refs/heads/$TOPIC_NAME} ver
		if [[ -z $good ]]; then
			ver=$(package_version)
			good=$(base_ref "$ver")
		fi
		bisect "$good" "$bad" ;;
	*) echo "usage: $0 [start [GOOD [BAD]]]" >&2; exit 2 ;;
	esac
}

main "$@"
