#!/usr/bin/env bash
# The runner of the per-commit checks: every check directory of checks/
# on every commit of the topic branch, every result cached.
#
#   runner/validate.sh [-o OUTDIR] [-c CHECK,...] [RANGE]
#   runner/validate.sh -k RESULT [RANGE]
#
# RANGE defaults to base..branch; CHECKs are the result names (the check
# directories, a per-config check once per config of configs/matrix.txt;
# default: all).  Exit status: 0 every result passed (or was skipped), 1
# a check failed on a commit, 2 bad input, 3 an infrastructure error
# (a check could not run: disk full, a broken tool; never cached).
# -k prints "TREE DIR": the tree of the last commit and the directory of
# the files RESULT's result there keeps (build: its kernel), from the
# cache alone (nothing runs, nothing is written); exit 1 when that
# result, or one it depends on, is not cached or kept nothing.
#
# A check is a directory with an executable "run" and a "conf"
# (doc/checks.md describes both and the environment a
# check gets).  The commits are checked out in a worktree of the cache
# repo ($WF_CACHE/validate-tree; the developer's work tree is never
# touched).  Checks with a build directory build in
# $WF_CACHE/validate/build/<result>, incrementally from commit to commit
# (ccache).  A result is cached in $WF_CACHE/validate/results/<result>/
# under a key made of the commit's tree, its parent's tree, a hash of the
# check's directory and of what its conf declares (the paths it uses, its
# config's fragments, tool versions, the message, the result it compares
# with or needs).  Writes OUTDIR/report.txt, OUTDIR/report.html,
# OUTDIR/results.json (default OUTDIR: $WF_TOP/out/<id>/validate, <id> the branch) and the
# start time of every step in OUTDIR/timings.tsv.  No step is silent for
# more than WF_PROGRESS_INTERVAL seconds (default 15); WF_VERBOSE=1 (make
# V=1) shows the checks' logs live.  WF_CHECKS_DIR names another checks
# directory, WF_CONFIGS_DIR another config matrix.
#
# This file reads the options and the commits and runs the steps; the
# rest of the runner is in the files beside it, by concern:
#   model.sh     the checks and what their conf declares, the results
#   schedule.sh  which results run, in which stage, the walk over commits
#   cache.sh     keys, stored results, kept files, build directories
#   step.sh      one result at one commit: from the cache, or run now
#   report.sh    the table of results and the three reports
#   lib.sh       hashes, the matrix, durations (also read by other tools)
set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/../tools/lib.sh"
# shellcheck source=runner/lib.sh
. "$WF_HOME/runner/lib.sh"

CHECKS_DIR=${WF_CHECKS_DIR:-$WF_HOME/checks}
CONFIGS_DIR=${WF_CONFIGS_DIR:-$WF_HOME/configs}
MATRIX=$CONFIGS_DIR/matrix.txt
TREE=$WF_CACHE/validate-tree
RESULTS=$WF_CACHE/validate/results
BUILDROOT=$WF_CACHE/validate/build
SCHEMA=3
EVERY=${WF_PROGRESS_INTERVAL:-15}
BEAT_PID=''
# FAIL_FAST (make FAIL_FAST=1): stop at the first failing result.
FAIL_FAST=${WF_FAIL_FAST:-0}
# The reports are written again while the run goes on, at most this often.
STREAM_EVERY=${WF_REPORT_INTERVAL:-5}
# Where the reports go (empty: -k, no report); running, done, stopped or
# interrupted (RUN_SIGNAL: by which signal).
OUTDIR='' RUN_STATE='' RUN_SIGNAL='' UNPUBLISHED=''
# goto_commit's: the tree is at HEAD's files; the disk was full.
TREE_SYNCED='' CHECKOUT_FULL=''
# shellcheck source=runner/model.sh
. "$WF_HOME/runner/model.sh"
# shellcheck source=runner/schedule.sh
. "$WF_HOME/runner/schedule.sh"
# shellcheck source=runner/cache.sh
. "$WF_HOME/runner/cache.sh"
# shellcheck source=runner/step.sh
. "$WF_HOME/runner/step.sh"
# shellcheck source=runner/report.sh
. "$WF_HOME/runner/report.sh"

usage() {
	cat >&2 <<-'EOF'
	usage: runner/validate.sh [-o OUTDIR] [-c CHECK,...] [RANGE]
	       runner/validate.sh -k RESULT [RANGE]
	EOF
	exit 2
}

# empty_range_hint RANGE: for the default range (base..branch), what
# leaves it empty.
empty_range_hint() {
	[[ -n ${TOPIC_NAME:-} && $1 == *"..refs/heads/$TOPIC_NAME" ]] || return 0
	printf ' (is %s at its base? make rebuild applies %s/)' "$TOPIC_NAME" "$TOPIC_PATCHDIR"
}

# load_commits RANGE: COMMITS (0 is the parent of the first), TREES,
# PTREES (the trees of their parents), SUBJECTS.
load_commits() {
	local range=$1 c first p
	local -a list
	# shellcheck disable=SC2310 # repo_git is one git command
	repo_git rev-list -n 1 "$range" >/dev/null 2>&1 || bad_input "bad revision range '$range' in $WF_REPO"
	lines_of list repo_git rev-list --reverse --first-parent "$range"
	# No commit is no verdict: never a report of 0 results that passed.
	[[ ${#list[@]} -gt 0 ]] || bad_input "no commits in the range '$range': nothing to validate$(empty_range_hint "$range")"
	first=${list[0]}
	# shellcheck disable=SC2310 # repo_git is one git command
	COMMITS=("$(repo_git rev-parse -q --verify "$first^" 2>/dev/null)") ||
		bad_input "the first commit of '$range' has no parent"
	COMMITS+=("${list[@]}")
	TREES=() PTREES=() SUBJECTS=() PARENTS=()
	for c in "${COMMITS[@]}"; do
		TREES+=("$(repo_git rev-parse "$c^{tree}")")
		SUBJECTS+=("$(repo_git log -1 --format=%s "$c")")
		# shellcheck disable=SC2310 # repo_git is one git command
		p=$(repo_git rev-parse -q --verify "$c^" 2>/dev/null) || p=''
		PARENTS+=("$p")
		if [[ -n $p ]]; then PTREES+=("$(repo_git rev-parse "$p^{tree}")"); else PTREES+=(none); fi
	done
}

# read_options ARG...: LOOKUP (-k), CHECKLIST (-c), REPORT_DIR (-o) and
# RANGE (default: base..branch of branches.txt).
read_options() {
	local opt ver
	LOOKUP='' CHECKLIST='' REPORT_DIR=$WF_OUT/validate
	while getopts 'o:c:k:' opt; do
		case $opt in
		o) REPORT_DIR=$OPTARG ;;
		c) CHECKLIST=$OPTARG ;;
		k) LOOKUP=$OPTARG ;;
		*) usage ;;
		esac
	done
	shift $((OPTIND - 1))
	[[ $# -le 1 ]] || usage
	[[ $EVERY =~ ^[1-9][0-9]*$ ]] || bad_input "WF_PROGRESS_INTERVAL must be a number of seconds, not '$EVERY'"
	[[ -z $LOOKUP ]] || CHECKLIST=$LOOKUP
	RANGE=${1:-}
	if [[ -z $RANGE ]]; then
		parse_branches
		ver=$(package_version)
		RANGE="$(base_ref "$ver")..refs/heads/$TOPIC_NAME"
	fi
	[[ -d $WF_REPO/.git || -f $WF_REPO/HEAD ]] || bad_input "no kernel repo at $WF_REPO (run: make rebuild)"
}

# take_lock: one run per cache (wf_lock: another run is refused, exit 1,
# as every command's lock refuses), marked in $WF_CACHE/validate.run with its
# scratch directory (tools/lib-run.sh); the results being made
# (RESULTS/tmp) are gone however the run ends, and a killed run's are
# removed now.
take_lock() {
	wf_lock validate
	# (no marker on a full disk: there is no room for it, and each result
	# says why it could not run, an infrastructure error)
	# shellcheck disable=SC2310 # its status is its answer
	if ! vl_nearly_full "$WF_CACHE"; then wf_run_begin validate "$RESULTS/tmp"; fi
	rm -rf "$RESULTS/tmp"
	trap 'rm -rf "$RESULTS/tmp"; [[ -z ${WF_RUN_NAME:-} ]] || wf_run_end' EXIT
	trap 'on_signal INT' INT
	trap 'on_signal TERM' TERM
	trap 'on_signal HUP' HUP
}

# start_run: the reports in REPORT_DIR, running; timings.tsv begun; what
# runs said.
start_run() {
	mkdir -p "$RESULTS" "$REPORT_DIR"
	TIMINGS=$REPORT_DIR/timings.tsv
	printf '%s\t0\tstart\t%s\n' "$EPOCHREALTIME" "$RANGE" 2>/dev/null >"$TIMINGS" || out_full_or_die "$TIMINGS"
	info "$((${#COMMITS[@]} - 1)) commit(s) in $RANGE; checks: ${RUN_ORDER[*]}"
	info "in stages: $(stage_list)"
	OUTDIR=$REPORT_DIR RUN_STATE=running STREAMED=$SECONDS
}

# end_run: the reports of the run as it ended (done, or stopped by
# FAIL_FAST), the table on stdout; the exit status of the run: 0 all
# passed, 1 a failure, 3 an infrastructure error.
end_run() {
	local infra failed
	printf '%s\t%s\tend\treport\n' "$EPOCHREALTIME" "$((${#COMMITS[@]} - 1))" >>"$TIMINGS" 2>/dev/null || true
	RUN_STATE="done"
	[[ -z $STOPPED_AT ]] || RUN_STATE=stopped
	publish_reports
	cat "$OUTDIR/report.txt"
	info "report: $OUTDIR/report.txt, $OUTDIR/report.html; results: $OUTDIR/results.json"
	if [[ -n $STOPPED_AT ]]; then
		info "FAIL_FAST: stopped at the first failing result: $STOPPED_AT"
		[[ $STOPPED_AT != *"]: infra: "* ]] || return 3
		return 1
	fi
	infra=$(count infra)
	failed=$(count fail)
	[[ $infra -eq 0 ]] || return 3
	[[ $failed -eq 0 ]] || return 1
}

main() {
	START=$SECONDS
	read_options "$@"
	load_checks
	select_results "$CHECKLIST"
	assign_stages
	load_commits "$RANGE"
	if [[ -n $LOOKUP ]]; then
		lookup_kept "$LOOKUP"
		return
	fi
	take_lock
	static_keys
	start_run
	check_all
	end_run
}

main "$@"
