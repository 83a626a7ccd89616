#!/usr/bin/env bash
# Write the topic branch back to the patch directory.
#
#   tools/export.sh
#
# After editing the branch with ordinary git (rebase -i, commit --amend),
# this replaces <patchdir>/*.patch with "git format-patch" of base..branch.
# The output does not depend on commit ids or the git version (zero
# commit ids, no signature), so patches -> branch -> patches is
# byte-stable.  The new patch directory is written beside the old one
# (.<dir>.export-new, with the old one's other files such as README.md)
# and swapped in with two renames; a killed run leaves either the old
# directory or the new one, and the next run restores the old one from
# .<dir>.export-old if need be and writes the export again.
set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/lib.sh"

main() {
	local base topic dir new n changed f ver
	no_arguments "$@"
	parse_branches
	topic=$TOPIC_NAME
	dir=$WF_TOP/$TOPIC_PATCHDIR
	ver=$(package_version)
	base=$(base_ref "$ver")
	# shellcheck disable=SC2310 # repo_git is one git command
	repo_git rev-parse -q --verify "$base" >/dev/null ||
		die "no base $base in $WF_REPO (run: make rebuild)"
	# shellcheck disable=SC2310 # repo_git is one git command
	repo_git rev-parse -q --verify "refs/heads/$topic" >/dev/null ||
		die "no branch $topic in $WF_REPO (run: make rebuild)"
	# shellcheck disable=SC2310 # repo_git is one git command
	repo_git merge-base --is-ancestor "$base" "refs/heads/$topic" ||
		die "branch $topic is not based on $base"
	# An export of no commits would empty the patch directory: never what
	# an export is for (git rm the patches to drop a series).
	n=$(repo_git rev-list --count "$base..refs/heads/$topic")
	[[ $n -gt 0 ]] ||
		die "branch $topic has no commits on $base: nothing to export ($TOPIC_PATCHDIR/ keeps its $(find "$dir" -maxdepth 1 -name '*.patch' 2>/dev/null | wc -l) patch(es))"
	wf_lock export
	wf_run_begin export "$(patch_dir_aside "$dir" export '*')"
	# shellcheck disable=SC2310 # wf_no_recovery is one test: its status is the answer
	if ! wf_no_recovery; then
		recover_patch_dir "$dir" export
		remove_stale_locks "$(repo_git rev-parse --path-format=absolute --git-common-dir)/refs/wf/exported.lock"
	fi
	wf_report_repairs last
	new=$(patch_dir_aside "$dir" export new)
	mkdir -p "${dir%/*}"
	mkdir "$new"
	# The directory's other files (README.md) go with it.
	if [[ -d $dir ]]; then
		for f in "$dir"/* "$dir"/.[!.]*; do
			[[ -e $f && $f != *.patch ]] && cp -a "$f" "$new/"
		done
	fi
	wf_format_patch "$WF_REPO" "$base..refs/heads/$topic" "$new"
	n=$(find "$new" -maxdepth 1 -name '*.patch' | wc -l)
	changed=$(count_patch_changes "$dir" "$new")
	wf_run_note phase=swap
	swap_in_patch_dir "$dir" "$new" export
	repo_git update-ref refs/wf/exported "refs/heads/$topic"
	wf_run_end
	info "wrote $n patch(es) to $TOPIC_PATCHDIR/ ($changed file(s) changed)"
}

main "$@"
