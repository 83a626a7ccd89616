#!/usr/bin/env bash
# Crash safety, for every command that changes state (sourced by
# tools/lib.sh, never run).
#
# A command that changes state holds a lock (released by the kernel when its
# processes die, however they die) and keeps a marker file of the run in
# progress, $WF_CACHE/<command>.run, removed when it ends.  A marker found
# at the start is an interrupted run: the command cleans up what that run
# left (its scratch worktree, its temporary files, its lock files) and says
# so in one line.  Scratch files under fixed names of the command's own are
# a dead run's whenever the command holds its lock, marker or not (a
# signal during an EXIT trap can remove the marker before them): they are
# cleaned up too.  WF_TEST_NO_RECOVERY=1 skips that cleanup, to show that
# dev/faults.sh notices a tool that does not recover.
# shellcheck shell=bash

# wf_lock NAME: hold $WF_CACHE/NAME.lock until this process and its
# children exit; dies when another run holds it.
wf_lock() {
	mkdir -p "$WF_CACHE"
	wf_lock_file "$WF_CACHE/$1.lock" "another $1 is running on $WF_CACHE"
}

# wf_lock_file FILE MESSAGE: hold the lock FILE until this process and its
# children exit; when another run holds it, "MESSAGE (lock: FILE)" and
# exit 1, as every command's lock refuses (validate's, make mutants' on
# its output directory).
wf_lock_file() {
	exec {WF_LOCK_FD}>>"$1"
	flock -n "$WF_LOCK_FD" || die "$2 (lock: $1)"
}

# wf_run_begin NAME [SCRATCH...]: read the marker an interrupted run of
# NAME left: WF_PREV_RUN describes it ("pid N, started T", empty when
# there was none), WF_PREV holds its KEY=VALUE notes and WF_PREV_SCRATCH
# its scratch paths.  Then mark this run.  SCRATCH are the paths (shell
# patterns) this run keeps only while it runs: every version of its
# marker lists them, one "scratch=PATTERN" line each, so that whoever
# finds the marker of a killed run knows what that run may have left
# (dev/faults.sh checks that the next run leaves none of it).
wf_run_begin() {
	local marker=$WF_CACHE/$1.run line
	WF_RUN_NAME=$1 WF_PREV_RUN='' WF_REPAIRED=() WF_PREV_SCRATCH=()
	WF_RUN_SCRATCH=("${@:2}")
	declare -gA WF_PREV=()
	if [[ -e $marker ]]; then
		WF_PREV_RUN=$(head -n 1 "$marker")
		WF_PREV_RUN=${WF_PREV_RUN:-no details}
		while IFS= read -r line; do
			if [[ $line == scratch=* ]]; then
				WF_PREV_SCRATCH+=("${line#scratch=}")
			elif [[ $line == *=* ]]; then
				# shellcheck disable=SC2034 # read by the scripts that source this file
				WF_PREV[${line%%=*}]=${line#*=}
			fi
		done < <(tail -n +2 "$marker")
	fi
	WF_RUN_PHASES=()
	wf_run_note phase=start
}

# wf_run_note [KEY=VALUE...]: rewrite this run's marker (atomically).
# Besides the notes, "phases=" lists every phase this run has been in, in
# order: a watcher that polls the marker (dev/faults.sh -a) learns a
# phase shorter than its polling interval too.
wf_run_note() {
	local marker=$WF_CACHE/$WF_RUN_NAME.run arg
	mkdir -p "$WF_CACHE"
	for arg; do
		[[ $arg == phase=* ]] || continue
		[[ ${#WF_RUN_PHASES[@]} -gt 0 && ${WF_RUN_PHASES[-1]} == "${arg#phase=}" ]] ||
			WF_RUN_PHASES+=("${arg#phase=}")
	done
	{
		printf 'pid %s, started %s\n' "$$" "${WF_RUN_STARTED:=$(date '+%F %T')}"
		[[ $# -eq 0 ]] || printf '%s\n' "$@"
		[[ ${#WF_RUN_PHASES[@]} -eq 0 ]] || printf 'phases=%s\n' "${WF_RUN_PHASES[*]}"
		[[ ${#WF_RUN_SCRATCH[@]} -eq 0 ]] || printf 'scratch=%s\n' "${WF_RUN_SCRATCH[@]}"
	} >"$marker.tmp"
	mv -f "$marker.tmp" "$marker"
}

# wf_run_end: this run is over; remove its marker.
wf_run_end() {
	rm -f "$WF_CACHE/$WF_RUN_NAME.run"
}

# wf_no_recovery: true when the tests ask the tools not to clean up.
wf_no_recovery() {
	[[ ${WF_TEST_NO_RECOVERY:-0} == 1 ]]
}

# wf_recovering: true when an interrupted run was found and its state is
# to be cleaned up.
wf_recovering() {
	[[ -n ${WF_PREV_RUN:-} ]] && ! wf_no_recovery
}

# wf_repaired WHAT: note one thing cleaned up.  wf_report_repairs says
# them all in one line; with "last", it also says when an interrupted run
# had left nothing to clean.
wf_repaired() {
	WF_REPAIRED+=("$*")
}

wf_report_repairs() {
	local what
	if [[ ${#WF_REPAIRED[@]} -eq 0 ]]; then
		[[ ${1:-} == last && -z ${WF_REPORTED:-} ]] && wf_recovering &&
			info "cleaning up an interrupted run ($WF_PREV_RUN): nothing was left half-done"
		return 0
	fi
	what=$(printf '%s; ' "${WF_REPAIRED[@]}")
	if [[ -n $WF_PREV_RUN ]]; then
		info "cleaning up an interrupted run ($WF_PREV_RUN): ${what%; }"
	else
		info "cleaning up what an interrupted run left: ${what%; }"
	fi
	WF_REPAIRED=() WF_REPORTED=1
}

# lock_holder FILE: the pid of a process that has FILE open (none: fails).
lock_holder() {
	local fd
	for fd in /proc/[0-9]*/fd/*; do
		if [[ $(readlink "$fd" 2>/dev/null) == "$1" ]]; then
			fd=${fd#/proc/}
			printf '%s\n' "${fd%%/*}"
			return 0
		fi
	done 2>/dev/null
	return 1
}

# remove_stale_locks FILE...: remove each git lock file that exists and
# that no process has open (a git killed while holding it).
remove_stale_locks() {
	local f pid
	for f in "$@"; do
		[[ -e $f ]] || continue
		if pid=$(lock_holder "$f"); then
			die "$f is held by a running process (pid $pid); wait for it to finish"
		fi
		rm -f "$f"
		wf_repaired "removed the stale lock ${f#"$WF_CACHE"/}"
	done
}

# A patch directory is rewritten by export and port (WHO) beside itself:
# the new one is written as .<name>.WHO-new, the old one moved to
# .<name>.WHO-old, then the new one renamed in place and the old one
# removed.  A killed run leaves at most those two behind.

# patch_dir_aside DIR WHO WHICH: the path .<name>.WHO-WHICH (WHICH: new,
# old) beside the patch directory DIR.
patch_dir_aside() {
	printf '%s/.%s.%s-%s\n' "${1%/*}" "${1##*/}" "$2" "$3"
}

# count_patch_changes OLD NEW: how many patch files differ between the
# two directories (added, removed or changed).
count_patch_changes() {
	local old=$1 new=$2 f changed=0
	for f in "$new"/*.patch; do
		[[ -e $f ]] || continue
		cmp -s "$f" "$old/${f##*/}" || changed=$((changed + 1))
	done
	for f in "$old"/*.patch; do
		[[ -e $f && ! -e $new/${f##*/} ]] && changed=$((changed + 1))
	done
	printf '%s\n' "$changed"
}

# swap_in_patch_dir DIR NEW WHO: make NEW the patch directory DIR,
# keeping the old one (as WHO's -old) until the new one is in place.
swap_in_patch_dir() {
	local dir=$1 new=$2 old
	old=$(patch_dir_aside "$dir" "$3" old)
	[[ ! -e $dir ]] || mv "$dir" "$old"
	mv "$new" "$dir"
	rm -rf "$old"
}

# recover_patch_dir DIR WHO: undo what a killed run of WHO left beside
# the patch directory DIR.
recover_patch_dir() {
	local dir=$1 new old
	new=$(patch_dir_aside "$dir" "$2" new)
	old=$(patch_dir_aside "$dir" "$2" old)
	if [[ ! -e $dir && -d $old ]]; then
		mv "$old" "$dir"
		wf_repaired "restored ${dir#"$WF_TOP"/}/ from ${old#"$WF_TOP"/}"
	fi
	if [[ -e $new ]]; then
		rm -rf "$new"
		wf_repaired "removed the half-written ${new#"$WF_TOP"/}"
	fi
	if [[ -e $old ]]; then
		rm -rf "$old"
		wf_repaired "removed ${old#"$WF_TOP"/}"
	fi
}

# drop_worktree DIR: unregister and delete the worktree at DIR, also when
# "git worktree add" was killed half-way (no .git file, or a registration
# without its gitdir file).
drop_worktree() {
	local dir=$1 common entry name=${1##*/}
	common=$(repo_git rev-parse --path-format=absolute --git-common-dir)
	rm -rf "$dir"
	for entry in "$common"/worktrees/*/; do
		entry=${entry%/}
		[[ -d $entry ]] || continue
		if [[ -e $entry/gitdir ]]; then
			[[ $(cat "$entry/gitdir") == "$dir/.git" ]] || continue
		else
			[[ ${entry##*/} =~ ^${name}[0-9]*$ ]] || continue
		fi
		rm -rf "$entry"
	done
	repo_git worktree prune
}

# recover_worktree DIR: clean what a killed run left in DIR, a worktree of
# the cache repo owned by the tools: a half-made worktree (removed), stale
# lock files (its own, and the repository's packed-refs.lock, which git
# takes in a linked worktree too to delete a ref), a git am, rebase or
# bisect in progress, and, after an interrupted run, changed and untracked
# files (git clean reads the whole tree, so only then).
recover_worktree() {
	local dir gitdir common top found=0
	local -a locks
	wf_no_recovery && return 0
	dir=$(realpath -m "$1")
	[[ -e $dir ]] || return 0
	top=$(git -C "$dir" rev-parse --show-toplevel 2>/dev/null) || top=''
	if [[ $top != "$dir" ]] || ! git -C "$dir" rev-parse -q --verify HEAD >/dev/null; then
		drop_worktree "$dir"
		wf_repaired "removed the half-made worktree ${dir#"$WF_CACHE"/}"
		return 0
	fi
	gitdir=$(git -C "$dir" rev-parse --absolute-git-dir)
	common=$(git -C "$dir" rev-parse --path-format=absolute --git-common-dir)
	# Its own lock files: index.lock, HEAD.lock, BISECT_EXPECTED_REV.lock,
	# refs/bisect/*.lock...; and packed-refs.lock, which git bisect reset
	# takes to delete BISECT_HEAD.
	mapfile -t locks < <({
		find "$gitdir" -name '*.lock'
		[[ $common == "$gitdir" || ! -e $common/packed-refs.lock ]] || echo "$common/packed-refs.lock"
	} | LC_ALL=C sort)
	if [[ ${#locks[@]} -gt 0 ]]; then
		remove_stale_locks "${locks[@]}"
		found=1
	fi
	if [[ -d $gitdir/rebase-apply || -d $gitdir/rebase-merge ]]; then
		rm -rf "$gitdir/rebase-apply" "$gitdir/rebase-merge"
		wf_repaired "dropped the git am in progress in ${dir#"$WF_CACHE"/}"
		found=1
	fi
	if [[ -e $gitdir/BISECT_START ]]; then
		git -C "$dir" reset -q --hard
		git -C "$dir" bisect reset HEAD >/dev/null 2>&1 ||
			die "cannot end the git bisect in $dir"
		wf_repaired "ended the git bisect in progress in ${dir#"$WF_CACHE"/}"
		found=1
	fi
	if [[ $found -eq 1 ]] || wf_recovering; then
		git -C "$dir" reset -q --hard
		git -C "$dir" clean -q -f -f -d -x
	fi
}

# scratch_worktree DIR COMMIT: DIR becomes a worktree of the cache repo,
# detached at COMMIT (git rewrites only the files that differ).  Call
# recover_worktree first.  A DIR that is a worktree of another repo (the
# same cache used with another WF_REPO: dev/faults.sh's, then the
# per-branch one of make port) is made again.
scratch_worktree() {
	local dir=$1 commit=$2 theirs ours
	if [[ -e $dir ]]; then
		theirs=$(git -C "$dir" rev-parse --path-format=absolute --git-common-dir 2>/dev/null) || theirs=''
		ours=$(repo_git rev-parse --path-format=absolute --git-common-dir)
		[[ $theirs == "$ours" ]] || rm -rf "$dir"
	fi
	if [[ ! -e $dir ]]; then
		repo_git worktree prune
		mkdir -p "${dir%/*}"
		repo_git worktree add -q -f --detach "$dir" "$commit" 2>/dev/null ||
			die "cannot create the worktree $dir"
		return 0
	fi
	git -C "$dir" checkout -q -f --detach "$commit" 2>/dev/null ||
		die "cannot check out $commit in $dir"
}
