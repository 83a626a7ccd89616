#!/usr/bin/env bash
# Write the topic branch back to the patch directory.
#
#   tools/export.sh
#
# After editing the branch with ordinary git (rebase -i, commit --amend),
# this replaces <patchdir>/*.patch with "git format-patch" of base..branch.
# The output does not depend on commit ids or the git version (zero
# commit ids, no signature), so patches -> branch -> patches is
# byte-stable.
set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/lib.sh"

main() {
	local base topic dir tmp n changed=0 f ver
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
	tmp=$(mktemp -d)
	# shellcheck disable=SC2064 # expand now: tmp is local
	trap "rm -rf '$tmp'" EXIT
	repo_git -c diff.noprefix=false -c diff.mnemonicPrefix=false \
		-c format.signOff=false -c format.coverLetter=false \
		format-patch -q --zero-commit --no-signature --no-thread \
		-o "$tmp" "$base..refs/heads/$topic"
	n=$(find "$tmp" -name '*.patch' | wc -l)
	mkdir -p "$dir"
	for f in "$tmp"/*.patch; do
		[[ -e $f ]] || continue
		cmp -s "$f" "$dir/${f##*/}" || changed=$((changed + 1))
	done
	for f in "$dir"/*.patch; do
		[[ -e $f && ! -e $tmp/${f##*/} ]] && changed=$((changed + 1))
	done
	# Replace only once everything was written.
	find "$dir" -maxdepth 1 -name '*.patch' -delete
	[[ $n -eq 0 ]] || mv "$tmp"/*.patch "$dir"/
	repo_git update-ref refs/wf/exported "refs/heads/$topic"
	info "wrote $n patch(es) to $TOPIC_PATCHDIR/ ($changed file(s) changed)"
}

main "$@"
