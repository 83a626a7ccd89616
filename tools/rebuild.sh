#!/usr/bin/env bash
# Rebuild the topic branch: git am the patches onto the pristine base.
#
#   tools/rebuild.sh [-f]
#
# The patches are applied in a scratch worktree of the tool's own
# ($WF_CACHE/rebuild-tree); the branch moves once, with git update-ref,
# when all of them applied, so a patch that does not apply, or a run that
# is killed, leaves the previous branch as it was.  The work tree of the
# cache repo (the one users edit) is then checked out on the branch.
# Refuses to run over uncommitted changes in that work tree, over a git am
# or rebase the user has in progress there, or over commits on the branch
# that were never exported to the patch directory (-f discards the am or
# rebase and those commits).  A killed run is cleaned up by the next one.
# Commit ids are reproducible: the committer is fixed and its date is the
# author date.
set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/lib.sh"

EXPORTED=refs/wf/exported
SCRATCH=${WF_REBUILD_TREE:-$WF_CACHE/rebuild-tree}
# The old and new tips of a killed run's ref move, kept in this run's marker.
CARRIED=()

# repo_gitdir: the .git directory of the cache repo's work tree.
repo_gitdir() {
	repo_git rev-parse --absolute-git-dir
}

# discard_user_operation KIND: abort the user's git am or rebase and the
# changes it made to the work tree (-f).
discard_user_operation() {
	local kind=$1
	repo_git reset -q --hard
	# shellcheck disable=SC2310 # repo_git is one git command
	repo_git "$kind" --abort >/dev/null 2>&1 || repo_git "$kind" --quit
	info "discarded the git $kind in progress in $WF_REPO and its changes to the work tree (FORCE=1)"
}

# check_user_operation FORCE: a git am or rebase in the work tree is the
# user's (rebuild never runs one there): refuse, naming the commands that
# end it, unless forced.
check_user_operation() {
	local force=$1 gitdir kind
	gitdir=$(repo_gitdir)
	if [[ -d $gitdir/rebase-apply && -e $gitdir/rebase-apply/applying ]]; then
		kind=am
	elif [[ -d $gitdir/rebase-apply || -d $gitdir/rebase-merge ]]; then
		kind=rebase
	else
		return 0
	fi
	[[ $force -eq 1 ]] || die "a git $kind is in progress in $WF_REPO (not started by rebuild); finish it with 'git -C $WF_REPO $kind --continue', drop it with 'git -C $WF_REPO $kind --abort', or discard it with 'make rebuild FORCE=1'"
	discard_user_operation "$kind"
}

# clear_stale_locks TOPIC: remove the lock files a killed git left on the
# work tree's index and HEAD and on the refs rebuild moves.
clear_stale_locks() {
	local gitdir common
	gitdir=$(repo_gitdir)
	common=$(repo_git rev-parse --path-format=absolute --git-common-dir)
	remove_stale_locks "$gitdir/index.lock" "$gitdir/HEAD.lock" \
		"$common/refs/heads/$1.lock" "$common/$EXPORTED.lock" "$common/packed-refs.lock"
}

# recover_work_tree: the previous run was killed while it checked out its
# new tip in the work tree (which it had found clean): finish that.
recover_work_tree() {
	[[ ${WF_PREV[phase]:-} == finish ]] || return 0
	# shellcheck disable=SC2310 # repo_git is one git command
	repo_git checkout -q -f --detach "${WF_PREV[new]}" ||
		die "cannot finish the checkout of ${WF_PREV[new]} in $WF_REPO"
	wf_repaired "finished the checkout of its new tip in the work tree $WF_REPO"
}

# check_work_tree TOPIC FORCE: die if rebuilding would lose work.
check_work_tree() {
	local topic=$1 force=$2 tip exported
	check_user_operation "$force"
	# shellcheck disable=SC2310 # repo_git is one git command
	[[ -z $(repo_git --no-optional-locks status --porcelain --untracked-files=no) ]] ||
		die "the work tree $WF_REPO has uncommitted changes; commit or stash them first"
	# shellcheck disable=SC2310 # repo_git is one git command
	tip=$(repo_git rev-parse -q --verify "refs/heads/$topic") || return 0
	# shellcheck disable=SC2310 # repo_git is one git command
	exported=$(repo_git rev-parse -q --verify $EXPORTED) || exported=''
	[[ $force -eq 0 && -n $exported && $tip != "$exported" ]] || return 0
	# A run killed while it moved the two refs: both are its old or new
	# tip.  This run's marker keeps the pair, in case it is killed too.
	if [[ -n ${WF_PREV[new]:-} ]] &&
		[[ $tip == "${WF_PREV[old]}" || $tip == "${WF_PREV[new]}" ]] &&
		[[ $exported == "${WF_PREV[old]}" || $exported == "${WF_PREV[new]}" ]]; then
		CARRIED=("old=${WF_PREV[old]}" "new=${WF_PREV[new]}")
		return 0
	fi
	die "branch $topic has changes not exported to $TOPIC_PATCHDIR/ (run 'make export', or 'make rebuild FORCE=1' to discard them)"
}

# check_no_patches TOPIC OLD BASE FORCE: an empty patch directory starts a
# series at its base; it never resets a branch that has commits (OLD,
# its tip) unless forced: an emptied or mistyped directory is not an
# intent to drop the series.
check_no_patches() {
	local topic=$1 old=$2 base=$3 force=$4 n=0
	[[ -z $old ]] || n=$(repo_git rev-list --count "$base..$old")
	if [[ $n -eq 0 ]]; then
		info "no patches in $TOPIC_PATCHDIR/ yet: the branch $topic starts at its base"
		return 0
	fi
	[[ $force -eq 1 ]] ||
		die "no patches in $TOPIC_PATCHDIR/: that would reset $topic ($n commits) to its base; put the patches back, or 'make rebuild FORCE=1' to reset it"
	info "no patches in $TOPIC_PATCHDIR/: resetting $topic ($n commits) to its base (FORCE=1)"
}

# explain_failure OUTPUT: "file: reason" from git am's error output.
explain_failure() {
	local reason
	reason=$(grep -m1 -E '^error: ' <<<"$1" | sed 's/^error: //') || true
	[[ -n $reason ]] || reason=$(grep -m1 -v '^$' <<<"$1") || true
	printf '%s\n' "${reason:-git am failed}"
}

# apply_patches PATCH...: git am in the scratch worktree (checked out at
# the base); prints the new tip.  On a patch that does not apply, dies
# naming it.
apply_patches() {
	local out next failed gitdir
	if [[ $# -gt 0 ]]; then
		wf_committer_env
		if ! out=$(git -C "$SCRATCH" am -q --committer-date-is-author-date "$@" 2>&1); then
			gitdir=$(git -C "$SCRATCH" rev-parse --absolute-git-dir)
			next=$(cat "$gitdir/rebase-apply/next" 2>/dev/null) || next=1
			failed=${*:next:1}
			git -C "$SCRATCH" am --abort >/dev/null 2>&1 || true
			wf_run_end
			die "${failed#"$WF_TOP"/} does not apply: $(explain_failure "$out")"
		fi
	fi
	git -C "$SCRATCH" rev-parse HEAD
}

# move_branch TOPIC OLD NEW: check NEW out in the work tree (refusing, as
# git checkout does, to overwrite untracked files), point the branch and
# the exported mark at it in one update-ref, and put the work tree on the
# branch.
move_branch() {
	local topic=$1 old=$2 new=$3 out
	wf_run_note phase=finish "old=$old" "new=$new"
	# shellcheck disable=SC2310 # repo_git is one git command
	if ! out=$(repo_git checkout -q --detach "$new" 2>&1); then
		wf_run_end
		die "cannot check out the new $topic in $WF_REPO: $(explain_failure "$out")"
	fi
	printf 'update refs/heads/%s %s\nupdate %s %s\n' "$topic" "$new" $EXPORTED "$new" |
		repo_git update-ref --stdin
	repo_git symbolic-ref HEAD "refs/heads/$topic"
}

main() {
	local force=0 base topic old new n
	local -a patches
	while getopts 'f' opt; do
		case $opt in
		f) force=1 ;;
		*) echo "usage: $0 [-f]" >&2; exit 2 ;;
		esac
	done
	parse_branches
	topic=$TOPIC_NAME
	lines_of patches patch_files
	base=$("$WF_HOME/tools/base.sh")
	wf_lock rebuild
	wf_run_begin rebuild
	# shellcheck disable=SC2310 # wf_no_recovery is one test: its status is the answer
	if ! wf_no_recovery; then
		clear_stale_locks "$topic"
		# shellcheck disable=SC2310 # wf_recovering is one test: its status is the answer
		wf_recovering && recover_work_tree
		recover_worktree "$SCRATCH"
	fi
	wf_report_repairs last
	check_work_tree "$topic" "$force"
	# shellcheck disable=SC2310 # repo_git is one git command
	old=$(repo_git rev-parse -q --verify "refs/heads/$topic") || old=''
	[[ ${#patches[@]} -gt 0 ]] || check_no_patches "$topic" "$old" "$base" "$force"
	wf_run_note phase=apply "${CARRIED[@]}"
	scratch_worktree "$SCRATCH" "$base"
	n=${#patches[@]}
	info "applying $n patch(es) from $TOPIC_PATCHDIR/ onto $base"
	new=$(apply_patches "${patches[@]}")
	move_branch "$topic" "$old" "$new"
	wf_run_end
	info "branch $topic = $(repo_git rev-parse --short=12 HEAD) ($n commits on $base, tree $(repo_git rev-parse --short=12 'HEAD^{tree}'))"
}

main "$@"
