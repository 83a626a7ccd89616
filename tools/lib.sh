#!/usr/bin/env bash
# Shared helpers for the workflow scripts.  Sourced, never run.
# shellcheck shell=bash

# The checkout holding these scripts.
WF_HOME=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# The checkout holding the data: branches.txt and the patches (the tests
# point it at fixtures).
WF_TOP=${WF_TOP:-$WF_HOME}
# Cache outside the checkout: kernel repo, build directories, ccache, logs.
# Each topic branch has its own, $WF_CACHE_ROOT/branches/<id> (set below,
# once the branch is known); ccache and the subsystem trees are shared.
WF_CACHE=${WF_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/sysctl-wf}
WF_CACHE_ROOT=${WF_CACHE_ROOT:-$WF_CACHE}
# Where Debian's linux-source-* packages put their tarball.
WF_SRC_DIR=${WF_SRC_DIR:-/usr/src}
# The branches file describing the topic branches and the subsystem trees.
WF_BRANCHES=${WF_BRANCHES:-$WF_TOP/branches.txt}
# The topic branch to work on: the id of one of its topic lines (make
# BRANCH=); empty means the first one.
WF_BRANCH=${WF_BRANCH:-}

WF_PROG=${WF_PROG:-$(basename "$0" .sh)}

# die MESSAGE: the command failed (exit 1); bad_input MESSAGE: what it
# was given is wrong (exit 2).  One line each, on stderr.
die() {
	printf '%s: error: %s\n' "$WF_PROG" "$*" >&2
	exit 1
}

bad_input() {
	printf '%s: error: %s\n' "$WF_PROG" "$*" >&2
	exit 2
}

# nap SECONDS: wait SECONDS (a fraction too) with no child process: in
# the builtin read, on a pipe that never delivers (opened once per shell,
# NAP_FD).  A signal ends the wait at once: its trap runs, or its default
# action ends the shell wherever the wait is.  A sleep child would hold a
# trap until it ended; and a TERM trap that ran while a command
# substitution was being expanded failed in bash 5.2 ("unexpected EOF
# while looking for matching `)'") and left a loop running.
nap() {
	[[ -n ${NAP_FD:-} ]] || exec {NAP_FD}<> <(:)
	read -r -t "$1" -u "$NAP_FD" _ || true
}

info() {
	printf '%s: %s\n' "$WF_PROG" "$*" >&2
}

# bad_console_patterns: the extended regular expressions of
# qemu-boot/bad-console.txt, one per line, without its comments and blank
# lines.  On a missing file, no pattern or an invalid one: one line naming
# it on stderr, status 2.
bad_console_patterns() {
	local file=$WF_HOME/qemu-boot/bad-console.txt line lineno=0 rc pats=''
	[[ -r $file ]] || { printf '%s: error: cannot read %s\n' "$WF_PROG" "$file" >&2; return 2; }
	while IFS= read -r line || [[ -n $line ]]; do
		lineno=$((lineno + 1))
		[[ $line =~ ^[[:space:]]*(#|$) ]] && continue
		rc=0
		grep -qE -e "$line" </dev/null 2>/dev/null || rc=$?
		[[ $rc -eq 1 ]] || {
			printf '%s: error: %s:%d: not an extended regular expression: %s\n' \
				"$WF_PROG" "$file" "$lineno" "$line" >&2
			return 2
		}
		pats+=$line$'\n'
	done <"$file"
	[[ -n $pats ]] || { printf '%s: error: %s has no pattern\n' "$WF_PROG" "$file" >&2; return 2; }
	printf '%s' "$pats"
}

# Run git in the cache repository.
repo_git() {
	git -C "$WF_REPO" "$@"
}

# branch_exported BRANCH: true when BRANCH's tip is what its patch
# directory holds: refs/wf/exported (set by rebuild and export) is there.
branch_exported() {
	local tip mark
	# shellcheck disable=SC2310 # repo_git is one git command
	tip=$(repo_git rev-parse -q --verify "refs/heads/$1") || return 1
	# shellcheck disable=SC2310 # repo_git is one git command
	mark=$(repo_git rev-parse -q --verify refs/wf/exported) || return 1
	[[ $tip == "$mark" ]]
}

# parse_branches: read $WF_BRANCHES: the topic lines into the TOPICS_*
# arrays, the subsystem trees into the TREE_* arrays; then select the
# topic branch WF_BRANCH names (the first when empty) into the TOPIC_*
# variables.  Dies naming the line number of the first malformed line, or
# the branch that is not there.
parse_branches() {
	local file=$WF_BRANCHES line lineno=0 kind i sel=''
	local -a f
	[[ -r $file ]] || die "cannot read branches file $file"
	TOPICS_ID=() TOPICS_NAME=() TOPICS_PACKAGE=() TOPICS_CONSTRAINT=() TOPICS_PATCHDIR=()
	TREE_NAMES=() TREE_URLS=() TREE_BRANCHES=() TREE_OWNS=()
	while IFS= read -r line || [[ -n $line ]]; do
		lineno=$((lineno + 1))
		line=${line%%#*}
		read -r -a f <<<"$line" || true
		[[ ${#f[@]} -eq 0 ]] && continue
		kind=${f[0]}
		case $kind in
		topic)
			[[ ${#f[@]} -eq 6 ]] ||
				die "$file:$lineno: 'topic' takes 5 fields (id branch package constraint patchdir), got $((${#f[@]} - 1))"
			[[ ${f[1]} =~ ^[A-Za-z0-9][A-Za-z0-9._-]*$ ]] ||
				die "$file:$lineno: '${f[1]}' is not a branch id (letters, digits, '.', '_', '-')"
			for i in "${!TOPICS_ID[@]}"; do
				[[ ${TOPICS_ID[i]} != "${f[1]}" ]] || die "$file:$lineno: second topic with the id '${f[1]}'"
				[[ ${TOPICS_NAME[i]} != "${f[2]}" ]] || die "$file:$lineno: second topic on the branch '${f[2]}'"
			done
			git check-ref-format --branch "${f[2]}" >/dev/null 2>&1 ||
				die "$file:$lineno: '${f[2]}' is not a valid branch name"
			[[ ${f[3]} =~ ^[a-z0-9][a-z0-9.+-]+$ ]] ||
				die "$file:$lineno: '${f[3]}' is not a Debian package name"
			[[ ${f[4]} =~ ^(\>=|\<=|\>\>|\<\<|=)[0-9][A-Za-z0-9.+~:-]*$ || ${f[4]} == any ]] ||
				die "$file:$lineno: '${f[4]}' is not a version constraint (>=V, <=V, >>V, <<V, =V or any)"
			[[ ${f[5]} != /* && ${f[5]} != *..* ]] ||
				die "$file:$lineno: patch directory '${f[5]}' must be relative to the checkout"
			TOPICS_ID+=("${f[1]}") TOPICS_NAME+=("${f[2]}") TOPICS_PACKAGE+=("${f[3]}")
			TOPICS_CONSTRAINT+=("${f[4]}") TOPICS_PATCHDIR+=("${f[5]}")
			;;
		tree)
			[[ ${#f[@]} -ge 5 ]] ||
				die "$file:$lineno: 'tree' takes at least 4 fields (name location branch owned...), got $((${#f[@]} - 1))"
			[[ ${f[1]} =~ ^[A-Za-z0-9_.-]+$ ]] ||
				die "$file:$lineno: '${f[1]}' is not a tree name"
			TREE_NAMES+=("${f[1]}") TREE_URLS+=("${f[2]}")
			TREE_BRANCHES+=("${f[3]}") TREE_OWNS+=("${f[*]:4}")
			;;
		*)
			die "$file:$lineno: unknown record '$kind' (expected 'topic' or 'tree')"
			;;
		esac
	done <"$file"
	[[ ${#TOPICS_ID[@]} -gt 0 ]] || die "$file: no 'topic' line"
	for i in "${!TOPICS_ID[@]}"; do
		[[ -n $WF_BRANCH && ${TOPICS_ID[i]} != "$WF_BRANCH" ]] || { sel=$i; break; }
	done
	[[ -n $sel ]] ||
		die "no branch '$WF_BRANCH' in $file (the branches: ${TOPICS_ID[*]})"
	# shellcheck disable=SC2034 # used by the scripts that source this file
	TOPIC_ID=${TOPICS_ID[sel]} TOPIC_NAME=${TOPICS_NAME[sel]} TOPIC_PACKAGE=${TOPICS_PACKAGE[sel]}
	# shellcheck disable=SC2034
	TOPIC_CONSTRAINT=${TOPICS_CONSTRAINT[sel]} TOPIC_PATCHDIR=${TOPICS_PATCHDIR[sel]}
	# shellcheck disable=SC2034
	TOPIC_TARBALL=$WF_SRC_DIR/$TOPIC_PACKAGE.tar.xz
}

# select_branch: parse $WF_BRANCHES and point the per-branch locations at
# the selected topic branch: WF_CACHE becomes $WF_CACHE_ROOT/branches/<id>
# (idempotent: a script run by another gets the same), WF_REPO its kernel
# repository, WF_OUT its out/<id> and WF_COVERS its cover-letters/<id>.
# Exported, so that every script a script runs works on the same branch.
select_branch() {
	parse_branches
	WF_BRANCH=$TOPIC_ID
	WF_CACHE_ROOT=${WF_CACHE%/branches/"$TOPIC_ID"}
	WF_CACHE=$WF_CACHE_ROOT/branches/$TOPIC_ID
	WF_REPO=${WF_REPO:-$WF_CACHE/linux}
	# shellcheck disable=SC2034 # used by the scripts that source this file
	WF_OUT=$WF_TOP/out/$TOPIC_ID WF_COVERS=$WF_TOP/cover-letters/$TOPIC_ID
	# One ccache for every branch: most of two kernel lines' objects differ,
	# but the compilers and the tools are the same.
	CCACHE_DIR=${CCACHE_DIR:-$WF_CACHE_ROOT/ccache}
	export WF_BRANCH WF_CACHE WF_CACHE_ROOT CCACHE_DIR
}

# package_version: the installed version of the topic's source package.
# WF_PKG_VERSION overrides it (used by the tests' fixture tarballs).
package_version() {
	if [[ -n ${WF_PKG_VERSION:-} ]]; then
		printf '%s\n' "$WF_PKG_VERSION"
		return
	fi
	dpkg-query -W -f='${Version}\n' "$TOPIC_PACKAGE" 2>/dev/null ||
		die "package $TOPIC_PACKAGE is not installed (run: apt-get install $TOPIC_PACKAGE)"
}

# check_constraint VERSION: die unless VERSION satisfies TOPIC_CONSTRAINT.
check_constraint() {
	local ver=$1 op want
	[[ $TOPIC_CONSTRAINT == any ]] && return 0
	op=${TOPIC_CONSTRAINT%%[0-9]*}
	want=${TOPIC_CONSTRAINT#"$op"}
	case $op in
	'>=') op=ge ;; '<=') op=le ;; '>>') op=gt ;; '<<') op=lt ;; '=') op=eq ;;
	esac
	dpkg --compare-versions "$ver" "$op" "$want" ||
		die "$TOPIC_PACKAGE $ver does not satisfy the constraint $TOPIC_CONSTRAINT in $WF_BRANCHES"
}

# base_ref VERSION: the tag under which the pristine import is kept.
base_ref() {
	printf 'refs/tags/base/%s\n' "${1//[:~]/_}"
}

# Fixed identity and dates, so that a rebuild of the same patches gives
# the same commit ids every time.
wf_committer_env() {
	export GIT_COMMITTER_NAME=${WF_COMMITTER_NAME:-sysctl-wf}
	export GIT_COMMITTER_EMAIL=${WF_COMMITTER_EMAIL:-sysctl-wf@localhost}
}

# wf_format_patch REPO RANGE DIR [OPTION...]: RANGE of REPO as patch files
# in DIR, the same bytes whatever the commit ids, the git version, the
# user's configuration of format-patch and diff (each setting that
# changes their output is set to git's default here; tests/tools.bats
# sets them all the other way, but srcPrefix, dstPrefix and
# format.noprefix, which this git does not have) or how many objects the
# repo holds in packs (git's automatic abbreviation of the "index" lines
# grows with that count: 7 digits in a fresh cache, 9 once packed);
# export and port write patches with it.
wf_format_patch() {
	local repo=$1 range=$2 dir=$3
	shift 3
	git -C "$repo" -c core.abbrev=7 -c core.quotePath=true -c core.attributesFile=/dev/null \
		-c diff.noprefix=false -c diff.mnemonicPrefix=false -c diff.srcPrefix=a/ -c diff.dstPrefix=b/ \
		-c diff.context=3 -c diff.interHunkContext=0 -c diff.suppressBlankEmpty=false \
		-c diff.renames=true -c diff.indentHeuristic=true \
		-c format.signOff=false -c format.coverLetter=false -c format.numbered=auto \
		-c format.subjectPrefix=PATCH -c format.suffix=.patch -c format.filenameMaxLength=64 \
		-c format.encodeEmailHeaders=true -c format.useAutoBase=false -c format.noprefix=false \
		-c i18n.logOutputEncoding=UTF-8 \
		format-patch -q --zero-commit --no-signature --no-thread --no-notes --no-attach --no-from \
		--no-to --no-cc --no-add-header --diff-algorithm=myers -O/dev/null -o "$dir" "$@" "$range"
}

# lines_of ARRAY COMMAND [ARG...]: ARRAY becomes the lines COMMAND prints.
# Where "mapfile -t ARRAY < <(COMMAND)" loses COMMAND's status (a die in
# it ends only the process substitution, and the script goes on with what
# it printed), a COMMAND that fails here ends the script with its status.
lines_of() {
	# shellcheck disable=SC2034 # a nameref: the caller's array
	local -n lines_of_array=$1
	local lines_of_text lines_of_rc=0
	shift
	lines_of_text=$("$@") || lines_of_rc=$?
	[[ $lines_of_rc -eq 0 ]] || exit "$lines_of_rc"
	lines_of_array=()
	# shellcheck disable=SC2034 # the caller's array
	[[ -z $lines_of_text ]] || mapfile -t lines_of_array <<<"$lines_of_text"
}

# patch_files: the topic's patches, in order, one per line.
patch_files() {
	local dir=$WF_TOP/$TOPIC_PATCHDIR
	[[ -d $dir ]] || die "patch directory $dir does not exist"
	find "$dir" -maxdepth 1 -name '*.patch' -type f | LC_ALL=C sort
}

# --- crash safety ------------------------------------------------------------
# A command that changes state holds a lock (released by the kernel when its
# processes die, however they die) and keeps a marker file of the run in
# progress, $WF_CACHE/<command>.run, removed when it ends.  A marker found
# at the start is an interrupted run: the command cleans up what that run
# left (its scratch worktree, its temporary files, its lock files) and says
# so in one line.  Scratch files under fixed names of the command's own are
# a dead run's whenever the command holds its lock, marker or not (a
# signal during an EXIT trap can remove the marker before them): they are
# cleaned up too.  WF_TEST_NO_RECOVERY=1 skips that cleanup, to show that
# tools/faults.sh notices a tool that does not recover.

# wf_lock NAME: hold $WF_CACHE/NAME.lock until this process and its
# children exit; dies when another run holds it.
wf_lock() {
	local lock=$WF_CACHE/$1.lock
	mkdir -p "$WF_CACHE"
	exec {WF_LOCK_FD}>>"$lock"
	flock -n "$WF_LOCK_FD" || die "another $1 is running on $WF_CACHE (lock: $lock)"
}

# wf_run_begin NAME: read the marker an interrupted run of NAME left:
# WF_PREV_RUN describes it ("pid N, started T", empty when there was
# none) and WF_PREV holds its KEY=VALUE notes.  Then mark this run.
wf_run_begin() {
	local marker=$WF_CACHE/$1.run line
	WF_RUN_NAME=$1 WF_PREV_RUN='' WF_REPAIRED=()
	declare -gA WF_PREV=()
	if [[ -e $marker ]]; then
		WF_PREV_RUN=$(head -n 1 "$marker")
		WF_PREV_RUN=${WF_PREV_RUN:-no details}
		while IFS= read -r line; do
			# shellcheck disable=SC2034 # read by the scripts that source this file
			[[ $line == *=* ]] && WF_PREV[${line%%=*}]=${line#*=}
		done < <(tail -n +2 "$marker")
	fi
	wf_run_note phase=start
}

# wf_run_note [KEY=VALUE...]: rewrite this run's marker (atomically).
wf_run_note() {
	local marker=$WF_CACHE/$WF_RUN_NAME.run
	mkdir -p "$WF_CACHE"
	{
		printf 'pid %s, started %s\n' "$$" "${WF_RUN_STARTED:=$(date '+%F %T')}"
		[[ $# -eq 0 ]] || printf '%s\n' "$@"
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
# same cache used with another WF_REPO: tools/faults.sh's, then the
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

# --- the branch --------------------------------------------------------------
# Known as soon as this file is sourced, so that every path a script sets
# up is its branch's.  Without a branches file (a check run on its own),
# WF_CACHE is used as it is given.
if [[ -r $WF_BRANCHES ]]; then
	select_branch
else
	WF_CACHE_ROOT=${WF_CACHE_ROOT:-$WF_CACHE}
	WF_REPO=${WF_REPO:-$WF_CACHE/linux}
fi
