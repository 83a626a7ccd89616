#!/usr/bin/env bash
# The port repo of tools/port.sh and the state of a port in it, the
# start of a port (the TO base, the recorded resolutions and fixups
# loaded), and the resolutions it used saved for later ports, cut down.
# Sourced, never run.
# shellcheck shell=bash

# --- the port repo and its state ---------------------------------------------

# init_port_repo: the port repo (made aside and renamed), its alternates
# and its settings.
init_port_repo() {
	local tmp=$TREE.init
	if [[ ! -d $TREE/.git ]]; then
		rm -rf "$tmp"
		mkdir -p "$PORT_DIR"
		git init -q "$tmp"
		rm -rf "$TREE"
		mv "$tmp" "$TREE"
	fi
	printf '%s\n' "$FROM_REPO/.git/objects" "$TO_REPO/.git/objects" >"$GITDIR/objects/info/alternates.tmp"
	mv -f "$GITDIR/objects/info/alternates.tmp" "$GITDIR/objects/info/alternates"
	repo_git config core.autocrlf false
	repo_git config gc.auto 0
	repo_git config rerere.enabled true
	repo_git config rerere.autoupdate true
	repo_git config commit.gpgSign false
	# The user's "git am --continue" gives the commit a run of the tool
	# would have made (the date comes from the am's own options).
	(
		wf_committer_env
		repo_git config user.name "$GIT_COMMITTER_NAME"
		repo_git config user.email "$GIT_COMMITTER_EMAIL"
	)
}

# state_load: the state file into ST (empty: no port).
state_load() {
	local line
	ST=()
	[[ -e $STATE ]] || return 0
	while IFS= read -r line; do
		[[ $line == *=* ]] && ST[${line%%=*}]=${line#*=}
	done <"$STATE"
	return 0
}

# state_save KEY=VALUE...: replace the state file (atomically).
state_save() {
	printf '%s\n' "$@" >"$STATE.tmp"
	mv -f "$STATE.tmp" "$STATE"
	state_load
}

# counts: the tallies kept in the state from patch to patch.
counts() {
	printf '%s\n' "asis=${ST[asis]:-0}" "threeway=${ST[threeway]:-0}" \
		"replayed=${ST[replayed]:-0}" "byhand=${ST[byhand]:-0}"
}

# series: the patches of the port, in order (its copy of the FROM series).
series() {
	find "$PORT_DIR/series" -maxdepth 1 -name '*.patch' -type f | LC_ALL=C sort
}

# patch_name I: the FROM patch I (1-based) as the user knows it.
patch_name() {
	local -a all
	mapfile -t all < <(series)
	printf '%s/%s\n' "$FROM_PATCHDIR" "${all[$1 - 1]##*/}"
}

# in_progress: the git operation in progress in the port tree (am, rebase),
# or nothing.
in_progress() {
	if [[ -d $GITDIR/rebase-apply ]]; then
		echo am
	elif [[ -d $GITDIR/rebase-merge ]]; then
		echo rebase
	fi
}

# unmerged: the unmerged paths of the port tree, one per line.
unmerged() {
	repo_git diff --name-only --diff-filter=U
}

# clear_git_locks: remove the lock files a killed git left in the port
# repo (none is held: this run holds the port's lock).
clear_git_locks() {
	local -a locks
	[[ -d $GITDIR ]] || return 0
	mapfile -t locks < <(find "$GITDIR" -path "$GITDIR/objects" -prune -o -name '*.lock' -print | LC_ALL=C sort)
	[[ ${#locks[@]} -eq 0 ]] || remove_stale_locks "${locks[@]}"
}

# reset_tree COMMIT: drop any git am or rebase and rerere's state of the
# conflicts in progress, check COMMIT out, remove what is not in it.
reset_tree() {
	rm -rf "$GITDIR/rebase-apply" "$GITDIR/rebase-merge" "$GITDIR/MERGE_RR"
	repo_git checkout -q -f --detach "$1"
	repo_git clean -q -f -f -d -x
}

# --- starting a port ---------------------------------------------------------

# copy_dir SRC DEST [GLOB]: DEST becomes a copy of the files of SRC that
# match GLOB (default all; SRC may be missing), written aside and renamed.
copy_dir() {
	local src=$1 dest=$2 glob=${3:-*} f
	rm -rf "$dest.new"
	mkdir -p "$dest.new"
	if [[ -d $src ]]; then
		for f in "$src"/$glob; do
			[[ -e $f ]] && cp -a "$f" "$dest.new/"
		done
	fi
	rm -rf "$dest"
	mv "$dest.new" "$dest"
}

# unsaved_resolutions: the rr-cache entries (directories) that the last
# port used or recorded since it started ($PORT_DIR/started) or last
# wrote the patches ($PORT_DIR/saved), one per line.
unsaved_resolutions() {
	local since=$PORT_DIR/started
	[[ -e $since && -d $GITDIR/rr-cache ]] || return 0
	[[ ! $PORT_DIR/saved -nt $since ]] || since=$PORT_DIR/saved
	find "$GITDIR/rr-cache" -name 'postimage*' -type f -newer "$since" -printf '%h\n' |
		LC_ALL=C sort -u
}

# load_rr_cache: the port repo's rr-cache becomes the recorded resolutions
# of <TO dir>/port/rr-cache and those the previous port of this repo used
# or recorded and did not save (it was interrupted, or started again
# before it finished: the user's resolutions are not lost), all dated long
# ago: those this port uses or records are then the ones newer than
# $PORT_DIR/started.
load_rr_cache() {
	local saved=$WF_TOP/$TO_PATCHDIR/port/rr-cache keep=$PORT_DIR/rr-keep d
	if [[ ! -d $keep ]]; then
		rm -rf "$keep.new"
		mkdir -p "$keep.new"
		while IFS= read -r d; do
			cp -R "$d" "$keep.new/"
		done < <(unsaved_resolutions)
		mv "$keep.new" "$keep"
	fi
	rm -rf "$GITDIR/rr-cache" "$GITDIR/MERGE_RR"
	mkdir -p "$GITDIR/rr-cache"
	[[ ! -d $saved ]] || cp -R "$saved/." "$GITDIR/rr-cache/"
	cp -R "$keep/." "$GITDIR/rr-cache/"
	find "$GITDIR/rr-cache" -type f -exec touch -d @0 {} +
	touch "$PORT_DIR/started"
	rm -rf "$keep"
}

# load_fixups: the fixups of <TO dir>/port/fixups, when they were made for
# this FROM series.
load_fixups() {
	local saved=$WF_TOP/$TO_PATCHDIR/port from=''
	[[ ! -r $saved/from ]] || from=$(cat "$saved/from")
	# shellcheck disable=SC2153 # FROM: the branch id tools/port.sh was given
	if [[ -d $saved/fixups && -n $from && $from != "$FROM" ]]; then
		info "the fixups in $TO_PATCHDIR/port/fixups/ are for the port from $from, not $FROM: not applied"
		copy_dir /nonexistent "$PORT_DIR/fixups"
		return 0
	fi
	copy_dir "$saved/fixups" "$PORT_DIR/fixups"
}

# start_port: a new port: the series and fixups copied aside, the recorded
# resolutions loaded, the tree at the TO base.
start_port() {
	local base
	wf_run_note phase=setup
	init_port_repo
	repo_git update-ref refs/port/from-base "$(git -C "$FROM_REPO" rev-parse "$FROM_BASE^{commit}")"
	repo_git update-ref refs/port/from "$(git -C "$FROM_REPO" rev-parse "refs/heads/$FROM_NAME")"
	base=$(git -C "$TO_REPO" rev-parse "$TO_BASE^{commit}")
	repo_git update-ref refs/port/to-base "$base"
	state_save status=setup
	copy_dir "$WF_TOP/$FROM_PATCHDIR" "$PORT_DIR/series" '*.patch'
	load_fixups
	load_rr_cache
	info "checking out ${TO_BASE#refs/tags/} in $TREE"
	reset_tree "$base"
	state_save status=applying next=1 "head=$base" "to_base=$TO_BASE" "from_base=$FROM_BASE" \
		asis=0 threeway=0 replayed=0 byhand=0
}

# --- the resolutions saved for later ports ------------------------------------

# replays_elsewhere PRE POST TPRE TPOST DIR: rerere's merge (that of git
# merge-file) with the cut-down pair TPRE, TPOST gives what it gives with
# the whole pair PRE, POST: on PRE itself, and on PRE with one line
# changed at the start, at a quarter, half, three quarters and at the
# end (a port after an edit elsewhere in the file).
replays_elsewhere() {
	local pre=$1 post=$2 tpre=$3 tpost=$4 dir=$5 n at
	n=$(wc -l <"$pre")
	for at in 0 1 $((n / 4)) $((n / 2)) $((n * 3 / 4)) "$n"; do
		if [[ $at -eq 0 ]]; then
			cp "$pre" "$dir/cur"
		else
			sed "${at}s/\$/ (port check)/" "$pre" >"$dir/cur"
		fi
		# A line of the conflict itself: the whole pair conflicts too.
		git merge-file -p "$dir/cur" "$pre" "$post" >"$dir/want" 2>/dev/null || continue
		git merge-file -p "$dir/cur" "$tpre" "$tpost" >"$dir/got" 2>/dev/null || return 1
		cmp -s "$dir/got" "$dir/want" || return 1
	done
}

# trim_rr_pair PRE POST DEST: PRE and POST (a preimage and its postimage)
# into DEST, as their lines around the resolution (three of context) when
# rerere replays them so (replays_elsewhere), else whole: xdiff does not
# find a small image in a large file of many repeated lines (MAINTAINERS).
trim_rr_pair() {
	local pre=$1 post=$2 dest=$3 tmp=$PORT_DIR/trim
	mkdir -p "$tmp"
	diff -U3 "$pre" "$post" >"$tmp/diff" || true
	tail -n +3 "$tmp/diff" | grep -v -e '^@@' -e '^[\\]' >"$tmp/hunks" || true
	sed -n 's/^[ -]//p' "$tmp/hunks" >"$tmp/pre"
	sed -n 's/^[ +]//p' "$tmp/hunks" >"$tmp/post"
	# shellcheck disable=SC2310 # replays_elsewhere's status is the answer
	if [[ -s $tmp/pre ]] && replays_elsewhere "$pre" "$post" "$tmp/pre" "$tmp/post" "$tmp"; then
		cp "$tmp/pre" "$dest/${pre##*/}"
		cp "$tmp/post" "$dest/${post##*/}"
	else
		cp "$pre" "$post" "$dest/"
	fi
	rm -rf "$tmp"
}

# save_rr_cache DEST: the resolutions this port used or recorded into
# DEST/rr-cache (cut down by trim_rr_pair).
save_rr_cache() {
	local dest=$1/rr-cache post id pre
	while IFS= read -r post; do
		id=${post%/*}
		id=${id##*/}
		pre=${post%/*}/pre${post##*/post}
		[[ -e $pre ]] || continue
		mkdir -p "$dest/$id"
		trim_rr_pair "$pre" "$post" "$dest/$id"
	done < <(find "$GITDIR/rr-cache" -name 'postimage*' -type f -newer "$PORT_DIR/started" | LC_ALL=C sort)
	return 0
}
