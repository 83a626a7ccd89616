#!/usr/bin/env bash
# The runner of the per-commit checks: every check directory of checks/
# on every commit of the topic branch, every result cached.
#
#   runner/validate.sh [-o OUTDIR] [-c CHECK,...] [-a] [-n] [RANGE]
#   runner/validate.sh -k RESULT [RANGE]
#
# RANGE defaults to base..branch; CHECKs are the result names (the check
# directories, a per-config check once per config of configs/matrix.txt;
# default: all).  -a (make validate AS_IS=1): the branch as it stands:
# RANGE defaults to base..the branch the cache repo's work tree is on,
# and the reports say how many of its commits are not exported (and
# that its uncommitted changes are not validated).  -n (make validate
# PLAN=1): the plan, on stdout: per commit and result, from the cache
# (its verdict, marked *) or to run now, and an estimate of the time
# those take, from the recorded timings (what each stored result took,
# else the steps of OUTDIR/timings.tsv); nothing runs, nothing is
# written, no lock is taken.  Exit status: 0 every result passed (or was skipped), 1
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
#   plan.sh      the plan (-n): what would run, and how long it takes
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
# shellcheck source=runner/plan.sh
. "$WF_HOME/runner/plan.sh"

usage() {
	cat >&2 <<-'EOF'
	usage: runner/validate.sh [-o OUTDIR] [-c CHECK,...] [-a] [-n] [RANGE]
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

# read_options ARG...: LOOKUP (-k), CHECKLIST (-c), REPORT_DIR (-o),
# AS_IS (-a), PLAN (-n) and RANGE (default: base..branch of
# branches.txt, or with -a base..the work tree's branch).
read_options() {
	local opt ver tip
	LOOKUP='' CHECKLIST='' REPORT_DIR=$WF_OUT/validate AS_IS='' PLAN=''
	while getopts 'o:c:k:an' opt; do
		case $opt in
		o) REPORT_DIR=$OPTARG ;;
		c) CHECKLIST=$OPTARG ;;
		k) LOOKUP=$OPTARG ;;
		a) AS_IS=1 ;;
		n) PLAN=1 ;;
		*) usage ;;
		esac
	done
	shift $((OPTIND - 1))
	[[ $# -le 1 ]] || usage
	[[ $EVERY =~ ^[1-9][0-9]*$ ]] || bad_input "WF_PROGRESS_INTERVAL must be a number of seconds, not '$EVERY'"
	[[ -z $LOOKUP ]] || CHECKLIST=$LOOKUP
	RANGE=${1:-}
	[[ -n $RANGE ]] || parse_branches
	[[ -d $WF_REPO/.git || -f $WF_REPO/HEAD ]] || bad_input "no kernel repo at $WF_REPO (run: make rebuild)"
	if [[ -z $RANGE ]]; then
		ver=$(package_version)
		tip=refs/heads/$TOPIC_NAME
		[[ -z $AS_IS ]] || tip=$(work_tree_branch)
		RANGE="$(base_ref "$ver")..$tip"
	fi
}

# work_tree_branch: the branch the cache repo's work tree is on
# (refs/heads/...); bad input when it is on none.
work_tree_branch() {
	# shellcheck disable=SC2310 # repo_git is one git command
	repo_git symbolic-ref -q HEAD ||
		bad_input "the work tree $WF_REPO is on no branch (HEAD detached): check out a branch, or give a range"
}

# branch_note: (-a, -n) BRANCH_NOTE, what the range's tip is against
# patches/: "the branch as it stands (NAME), N commit(s) not exported"
# (AS_IS_BRANCH, UNEXPORTED: those commits, not in refs/wf/exported,
# which rebuild and export set), and UNCOMMITTED, 1 when the work tree
# on that tip has changes not committed.  Reads only: git status takes
# no optional lock, so the index is not refreshed.
branch_note() {
	local n=$((${#COMMITS[@]} - 1)) tip head name mark
	BRANCH_NOTE='' AS_IS_BRANCH='' UNEXPORTED=0 UNCOMMITTED=0
	[[ -n $AS_IS || -n $PLAN ]] || return 0
	tip=${COMMITS[$n]}
	name=${RANGE##*..}
	# shellcheck disable=SC2310 # repo_git is one git command
	head=$(repo_git rev-parse -q --verify HEAD) || head=''
	if [[ $head == "$tip" ]]; then
		# shellcheck disable=SC2310 # repo_git is one git command
		name=$(repo_git symbolic-ref -q --short HEAD) || name=${tip:0:12}
		# shellcheck disable=SC2310 # repo_git is one git command
		[[ -z $(repo_git --no-optional-locks status --porcelain --untracked-files=no) ]] || UNCOMMITTED=1
	fi
	AS_IS_BRANCH=${name#refs/heads/}
	# shellcheck disable=SC2310 # repo_git is one git command
	if mark=$(repo_git rev-parse -q --verify refs/wf/exported); then
		UNEXPORTED=$(repo_git rev-list --count "$mark..$tip")
	else
		UNEXPORTED=$n
	fi
	BRANCH_NOTE="the branch as it stands ($AS_IS_BRANCH), $UNEXPORTED commit(s) not exported"
	[[ $UNCOMMITTED -eq 0 ]] || BRANCH_NOTE+="; its uncommitted changes are not"
}

# take_lock: one run per cache (wf_lock: another run is refused, exit 1,
# as every command's lock refuses), marked in $WF_CACHE/validate.run with its
# scratch directory (tools/lib/run.sh); the results being made
# (RESULTS/tmp) are gone however the run ends, and a killed run's are
# removed now.
take_lock() {
	wf_lock validate
	# (no marker on a full disk: there is no room for it, and each result
	# says why it could not run, an infrastructure error)
	# shellcheck disable=SC2310 # its status is its answer
	if ! vl_nearly_full "$WF_CACHE"; then wf_run_begin validate "$RESULTS/tmp"; fi
	rm -rf "$RESULTS/tmp"
	# Only this shell cleans up: a background subshell (the heartbeat)
	# that a signal reaches before it has reset the traps it inherited
	# runs this EXIT trap too, and removed the scratch directory of the
	# result being made (seen as "no space left" on a loaded machine).
	trap '[[ $BASHPID != "$$" ]] || { rm -rf "$RESULTS/tmp"; [[ -z ${WF_RUN_NAME:-} ]] || wf_run_end; }' EXIT
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
	[[ -z $AS_IS ]] || info "validating $BRANCH_NOTE"
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
	branch_note
	if [[ -n $PLAN ]]; then
		plan_run
		return
	fi
	take_lock
	static_keys
	start_run
	check_all
	end_run
}

main "$@"
