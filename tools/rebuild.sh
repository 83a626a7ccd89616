#!/usr/bin/env bash
# Rebuild the topic branch: git am the patches onto the pristine base.
#
#   tools/rebuild.sh [-f]
#
# The patches are applied on a detached HEAD; the branch moves only when
# all of them applied, so a patch that does not apply leaves the previous
# branch as it was.  Refuses to run over uncommitted changes in the work
# tree, or over commits on the branch that were never exported to the
# patch directory (-f discards those).  Commit ids are reproducible: the
# committer is fixed and its date is the author date.
set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/lib.sh"

EXPORTED=refs/wf/exported

# check_work_tree TOPIC FORCE: die if rebuilding would lose work.
check_work_tree() {
	local topic=$1 force=$2 tip exported
	[[ -d $WF_REPO/.git/rebase-apply || -d $WF_REPO/.git/rebase-merge ]] &&
		die "a git am or rebase is in progress in $WF_REPO; finish or abort it first"
	# shellcheck disable=SC2310 # repo_git is one git command
	[[ -z $(repo_git status --porcelain --untracked-files=no) ]] ||
		die "the work tree $WF_REPO has uncommitted changes; commit or stash them first"
	# shellcheck disable=SC2310 # repo_git is one git command
	tip=$(repo_git rev-parse -q --verify "refs/heads/$topic") || return 0
	# shellcheck disable=SC2310 # repo_git is one git command
	exported=$(repo_git rev-parse -q --verify $EXPORTED) || exported=''
	if [[ $force -eq 0 && -n $exported && $tip != "$exported" ]]; then
		die "branch $topic has changes not exported to $TOPIC_PATCHDIR/ (run 'make export', or 'make rebuild FORCE=1' to discard them)"
	fi
}

# explain_failure OUTPUT: "file: reason" from git am's error output.
explain_failure() {
	local reason
	reason=$(grep -m1 -E '^error: ' <<<"$1" | sed 's/^error: //') || true
	[[ -n $reason ]] || reason=$(grep -m1 -v '^$' <<<"$1") || true
	printf '%s\n' "${reason:-git am failed}"
}

main() {
	local force=0 base topic old out n next failed
	local -a patches
	while getopts 'f' opt; do
		case $opt in
		f) force=1 ;;
		*) echo "usage: $0 [-f]" >&2; exit 2 ;;
		esac
	done
	parse_branches
	topic=$TOPIC_NAME
	mapfile -t patches < <(patch_files)
	base=$("$WF_HOME/tools/base.sh")
	# shellcheck disable=SC2310 # repo_git is one git command
	if ! repo_git rev-parse -q --verify HEAD >/dev/null; then
		info "checking out $base in $WF_REPO (first time)"
		repo_git checkout -q --detach "$base"
	fi
	check_work_tree "$topic" "$force"
	# shellcheck disable=SC2310 # repo_git is one git command
	old=$(repo_git rev-parse -q --verify "refs/heads/$topic") || old=''
	repo_git checkout -q --detach "$base"
	n=${#patches[@]}
	info "applying $n patch(es) from $TOPIC_PATCHDIR/ onto $base"
	if [[ $n -gt 0 ]]; then
		wf_committer_env
		# shellcheck disable=SC2310 # repo_git is one git command
		if ! out=$(repo_git am -q --committer-date-is-author-date "${patches[@]}" 2>&1); then
			next=$(cat "$WF_REPO/.git/rebase-apply/next" 2>/dev/null) || next=1
			failed=${patches[$((next - 1))]}
			repo_git am --abort >/dev/null 2>&1 || true
			if [[ -n $old ]]; then
				repo_git checkout -q "$topic"
			fi
			die "${failed#"$WF_TOP"/} does not apply: $(explain_failure "$out")"
		fi
	fi
	repo_git branch -f "$topic" HEAD >/dev/null
	repo_git checkout -q "$topic"
	repo_git update-ref $EXPORTED "refs/heads/$topic"
	info "branch $topic = $(repo_git rev-parse --short=12 HEAD) ($n commits on $base, tree $(repo_git rev-parse --short=12 'HEAD^{tree}'))"
}

main "$@"
