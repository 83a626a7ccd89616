#!/usr/bin/env bash
# Import the packaged kernel source as the base commit of the cache repo.
#
# Unpacks /usr/src/<package>.tar.xz once per installed package version
# and commits every file of it (Debian's top-level .gitignore would hide
# most of them from a plain "git add") under the tag base/<version>.
# Prints the base ref on stdout.
set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/lib.sh"

cleanup() {
	[[ -n ${TMPDIR_IMPORT:-} ]] && rm -rf "$TMPDIR_IMPORT" "$TMPDIR_IMPORT.index"
	return 0
}

init_repo() {
	local tmp=$WF_REPO.init.$$
	rm -rf "$tmp"
	git init -q "$tmp"
	git -C "$tmp" config core.autocrlf false
	git -C "$tmp" config gc.auto 0
	mv "$tmp" "$WF_REPO"
}

import_tarball() {
	local ver=$1 ref=$2 index tree commit date
	TMPDIR_IMPORT=$(mktemp -d "$WF_CACHE/import.XXXXXX")
	info "unpacking $TOPIC_TARBALL ($TOPIC_PACKAGE $ver)"
	tar -xJf "$TOPIC_TARBALL" -C "$TMPDIR_IMPORT" --strip-components=1 ||
		die "cannot unpack $TOPIC_TARBALL"
	info "committing the unpacked tree"
	index=$TMPDIR_IMPORT.index
	# -f: take every file, whatever the tarball's .gitignore files say.
	GIT_INDEX_FILE=$index git -C "$WF_REPO" --work-tree="$TMPDIR_IMPORT" add -f -A .
	tree=$(GIT_INDEX_FILE=$index git -C "$WF_REPO" write-tree)
	rm -f "$index"
	local nfiles ngit
	nfiles=$(find "$TMPDIR_IMPORT" \( -type f -o -type l \) | wc -l)
	ngit=$(git -C "$WF_REPO" ls-tree -r "$tree" | wc -l)
	[[ $nfiles -eq $ngit ]] ||
		die "import of $TOPIC_TARBALL took $ngit of $nfiles files"
	date="$(stat -c %Y "$TOPIC_TARBALL") +0000"
	commit=$(GIT_AUTHOR_NAME="Debian kernel source" GIT_AUTHOR_EMAIL=debian-kernel@lists.debian.org \
		GIT_AUTHOR_DATE=$date GIT_COMMITTER_DATE=$date \
		GIT_COMMITTER_NAME=sysctl-wf GIT_COMMITTER_EMAIL=sysctl-wf@localhost \
		git -C "$WF_REPO" commit-tree "$tree" -m "Import $TOPIC_PACKAGE $ver" -m \
		"Pristine import of $TOPIC_TARBALL as shipped by the Debian package
$TOPIC_PACKAGE, version $ver ($nfiles files).")
	git -C "$WF_REPO" update-ref "$ref" "$commit"
	info "base $ref = $commit ($nfiles files)"
}

main() {
	local ver ref
	parse_branches
	[[ -r $TOPIC_TARBALL ]] ||
		die "$TOPIC_TARBALL not found (install it: apt-get install $TOPIC_PACKAGE)"
	ver=$(package_version)
	check_constraint "$ver"
	ref=$(base_ref "$ver")
	mkdir -p "$WF_CACHE"
	[[ -d $WF_REPO/.git ]] || init_repo
	# shellcheck disable=SC2310 # repo_git is one git command
	if ! repo_git rev-parse -q --verify "$ref^{commit}" >/dev/null; then
		trap cleanup EXIT
		import_tarball "$ver" "$ref"
	fi
	printf '%s\n' "$ref"
}

main "$@"
