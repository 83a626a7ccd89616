#!/usr/bin/env bash
# A checkout of its own, for a check that compiles a revision other than
# the one the runner checked out (the w1 check compiles a commit's parent,
# the clang check the base).  Sourced, never run.
# shellcheck shell=bash

# private_checkout SRC DIR REV: make DIR hold REV (a commit or a tree) of
# the repository of the work tree SRC, with an index of its own (DIR.index)
# and without touching that repository's work trees or index.  Only the
# files that differ from what DIR held are written, so an incremental
# kbuild over DIR recompiles what changed, as in the runner's tree.  The
# index is written last: a run killed half-way left files that the index
# still describes as the old revision, and the next call writes them
# again; a killed run's lock is removed (the runner runs one check at a
# time per build directory).
private_checkout() {
	local src=$1 dir=$2 rev=$3 git_dir
	git_dir=$(git -C "$src" rev-parse --path-format=absolute --git-common-dir) ||
		die "$src is not a git work tree"
	mkdir -p "$dir"
	rm -f "$dir.index.lock"
	GIT_INDEX_FILE=$dir.index git --git-dir="$git_dir" --work-tree="$dir" \
		read-tree --reset -u "$rev" ||
		die "cannot check out $rev in $dir"
}
