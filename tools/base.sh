#!/usr/bin/env bash
# Import the packaged kernel source as the base commit of the cache repo.
#
# Unpacks /usr/src/<package>.tar.xz once per installed package version
# and commits every file of it (Debian's top-level .gitignore would hide
# most of them from a plain "git add") under the tag base/<version>.
# Prints the base ref on stdout.  The unpacked tree and its index live in
# $WF_CACHE/base-import until the commit exists; the tag is made last, so
# it only ever names a complete import.  What a killed import left is
# removed by the next run.
set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/lib.sh"

IMPORT=$WF_CACHE/base-import

# cleanup: on exit, failed or not, the import's scratch files go.
cleanup() {
	rm -rf "$IMPORT" "$IMPORT.index" "$IMPORT.index.lock"
	wf_run_end
}

# clean_interrupted_import REF: remove what a killed run left: the unpacked
# tree, its index and the index's lock, a half-made repo, a stale lock
# on the tag REF.
clean_interrupted_import() {
	local f
	for f in "$IMPORT" "$IMPORT.index" "$IMPORT.index.lock" "$WF_REPO.init"; do
		[[ -e $f ]] || continue
		rm -rf "$f"
		wf_repaired "removed ${f#"$WF_CACHE"/}"
	done
	[[ -d $WF_REPO/.git ]] || return 0
	remove_stale_locks "$WF_REPO/.git/packed-refs.lock" "$WF_REPO/.git/$1.lock"
}

init_repo() {
	local tmp=$WF_REPO.init
	rm -rf "$tmp"
	git init -q "$tmp"
	git -C "$tmp" config core.autocrlf false
	git -C "$tmp" config gc.auto 0
	mv "$tmp" "$WF_REPO"
}

import_tarball() {
	local ver=$1 ref=$2 index tree commit date
	wf_run_note "phase=import $ver"
	mkdir "$IMPORT"
	info "unpacking $TOPIC_TARBALL ($TOPIC_PACKAGE $ver)"
	tar -xJf "$TOPIC_TARBALL" -C "$IMPORT" --strip-components=1 ||
		die "cannot unpack $TOPIC_TARBALL"
	info "committing the unpacked tree"
	index=$IMPORT.index
	# -f: take every file, whatever the tarball's .gitignore files say.
	GIT_INDEX_FILE=$index git -C "$WF_REPO" --work-tree="$IMPORT" add -f -A .
	tree=$(GIT_INDEX_FILE=$index git -C "$WF_REPO" write-tree)
	rm -f "$index"
	local nfiles ngit
	nfiles=$(find "$IMPORT" \( -type f -o -type l \) | wc -l)
	ngit=$(git -C "$WF_REPO" ls-tree -r "$tree" | wc -l)
	[[ $nfiles -eq $ngit ]] ||
		die "import of $TOPIC_TARBALL took $ngit of $nfiles files"
	date="$(stat -c %Y "$TOPIC_TARBALL") +0000"
	commit=$(wf_committer_env
		GIT_AUTHOR_NAME="Debian kernel source" GIT_AUTHOR_EMAIL=debian-kernel@lists.debian.org \
		GIT_AUTHOR_DATE=$date GIT_COMMITTER_DATE=$date \
		git -C "$WF_REPO" commit-tree "$tree" -m "Import $TOPIC_PACKAGE $ver" -m \
		"Pristine import of $TOPIC_TARBALL as shipped by the Debian package
$TOPIC_PACKAGE, version $ver ($nfiles files).")
	git -C "$WF_REPO" update-ref "$ref" "$commit"
	info "base $ref = $commit ($nfiles files)"
}

main() {
	local ver ref
	no_arguments "$@"
	parse_branches
	[[ -r $TOPIC_TARBALL ]] ||
		infra_error "$TOPIC_TARBALL not found (install it: apt-get install $TOPIC_PACKAGE)"
	ver=$(package_version)
	check_constraint "$ver"
	ref=$(base_ref "$ver")
	wf_lock base
	wf_run_begin base "$IMPORT*" "$WF_REPO.init"
	# Under the lock, the scratch files are a dead run's, with or without
	# its marker (a signal in the EXIT trap can remove the marker first).
	# shellcheck disable=SC2310 # wf_no_recovery is one test: its status is the answer
	wf_no_recovery || clean_interrupted_import "$ref"
	wf_report_repairs last
	[[ -d $WF_REPO/.git ]] || init_repo
	# shellcheck disable=SC2310 # repo_git is one git command
	if ! repo_git rev-parse -q --verify "$ref^{commit}" >/dev/null; then
		trap cleanup EXIT
		import_tarball "$ver" "$ref"
	fi
	wf_run_end
	printf '%s\n' "$ref"
}

main "$@"
