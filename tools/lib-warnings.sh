#!/usr/bin/env bash
# What the checks that build a kernel share (build, sparse, w1, clang):
# kbuild.sh run with its log in the check's log, and warning sets of
# incremental builds.  Sourced, never run.  A warning set is a sorted file
# of "file: warning: message" lines (line numbers removed, see kbuild.sh).
# shellcheck shell=bash

# logged_kbuild PROG OUT ARGS...: tools/kbuild.sh -o OUT ARGS...
# under the name PROG (its progress lines), then its build log on stderr
# (the check's log), whatever happened (none when kbuild.sh refused its
# input: an earlier build's log is removed first); kbuild.sh's status
# (0 built, 1 the build or the config failed, 2 bad input).
logged_kbuild() {
	local prog=$1 out=$2 rc=0
	shift 2
	rm -f "$out/build.log"
	WF_PROG=$prog "$(dirname "${BASH_SOURCE[0]}")/kbuild.sh" -o "$out" "$@" || rc=$?
	cat "$out/build.log" >&2 2>/dev/null || true
	return $rc
}

# new_warnings OLD NEW: the lines of NEW that are not in OLD.  The warnings
# themselves are compared, not their count, so a warning that replaces
# another is new.
new_warnings() {
	LC_ALL=C comm -13 <(LC_ALL=C sort -u "$1") <(LC_ALL=C sort -u "$2")
}

# next_state OLD NEW CHANGED: the warning state of a tree after an
# incremental build.  Warnings of OLD in files listed in CHANGED (the files
# that differ from the tree OLD describes) are dropped, those of the build
# (NEW: the files it recompiled) are added.
next_state() {
	local old=$1 new=$2 changed=$3
	{
		awk -F': ' 'NR == FNR { gone[$0] = 1; next } !($1 in gone)' "$changed" "$old"
		cat "$new"
	} | LC_ALL=C sort -u
}

# compare_warnings WARNINGS: against the state of WF_CHECK_PREV (none: no
# earlier build, every warning is old), write WF_CHECK_OUT/new.txt (the
# new warnings), WF_CHECK_OUT/state (the warnings of this tree) and
# WF_CHECK_OUT/tree (the tree it describes).
compare_warnings() {
	local warnings=$1 out=$WF_CHECK_OUT prev=${WF_CHECK_PREV:-}
	if [[ -n $prev && -r $prev/state && -r $prev/tree ]]; then
		new_warnings "$prev/state" "$warnings" >"$out/new.txt"
		git -C "$WF_CHECK_SRC" diff --name-only "$(cat "$prev/tree")" "$WF_CHECK_COMMIT" >"$out/changed.txt"
		next_state "$prev/state" "$warnings" "$out/changed.txt" >"$out/state"
	else
		: >"$out/new.txt"
		LC_ALL=C sort -u "$warnings" >"$out/state"
	fi
	git -C "$WF_CHECK_SRC" rev-parse "$WF_CHECK_COMMIT^{tree}" >"$out/tree"
}

# against: what the new warnings were compared with, for a summary line.
against() {
	if [[ -n ${WF_CHECK_PREV:-} && -r $WF_CHECK_PREV/tree ]]; then
		printf 'against tree %s' "$(cut -c1-12 "$WF_CHECK_PREV/tree")"
	else
		printf 'no earlier build to compare with'
	fi
}
