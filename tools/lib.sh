#!/usr/bin/env bash
# Shared helpers for the workflow scripts.  Sourced, never run.
# shellcheck shell=bash

# -h or --help among the arguments of the script that sources this file
# (sourced at its top, it sees them): the script's header comment, its
# usage, on stdout, and exit 0, before anything is read or written.
wf_usage() {
	sed -n '2,${/^#/!q;/^# shellcheck /d;s/^# \{0,1\}//;p}' "$1"
}
for wf_arg in "$@"; do
	[[ $wf_arg != -- ]] || break
	[[ $wf_arg != -h && $wf_arg != --help ]] || { wf_usage "$0"; exit 0; }
done
unset wf_arg

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

# The exit status of every command (README.md, doc/pipeline.md "Exit
# status"): 0 pass, 1 a check failed, 2 bad input, 3 an infrastructure
# error.  die MESSAGE: the command failed (exit 1); bad_input MESSAGE: what
# it was given is wrong (exit 2); infra_error MESSAGE: what it needs is
# broken or missing, not the series (exit 3).  One line each, on stderr.
# A run that had begun (wf_run_begin) ends cleanly on bad input: its
# marker goes, or the next run would take it for an interrupted one.
die() {
	printf '%s: error: %s\n' "$WF_PROG" "$*" >&2
	exit 1
}

bad_input() {
	printf '%s: error: %s\n' "$WF_PROG" "$*" >&2
	[[ -z ${WF_RUN_NAME:-} ]] || wf_run_end
	exit 2
}

infra_error() {
	printf '%s: infrastructure error: %s\n' "$WF_PROG" "$*" >&2
	exit 3
}

# long_options LONG=SHORT... -- ARG...: LONG_ARGS, the ARGs with each
# long option given as the short option the script's getopts reads
# (--calls 5 and --calls=5 as -n 5 for calls=n; --no-build as -n for
# no-build=n); "--" ends the options.  -n is a dry run wherever a
# script has one (send.sh); every other meaning an -n had is a long
# option, its old -n kept for the tests and scripts that type it
# (doc/settings.md, "-n across the tools").
long_options() {
	local -A short=()
	local pair arg
	while [[ $1 != -- ]]; do
		pair=$1
		short[--${pair%%=*}]=${pair#*=}
		shift
	done
	shift
	LONG_ARGS=()
	while [[ $# -gt 0 ]]; do
		arg=$1
		shift
		if [[ $arg == -- ]]; then
			LONG_ARGS+=(-- "$@")
			break
		elif [[ -n ${short[$arg]:-} ]]; then
			LONG_ARGS+=("-${short[$arg]}")
		elif [[ $arg == --*=* && -n ${short[${arg%%=*}]:-} ]]; then
			LONG_ARGS+=("-${short[${arg%%=*}]}" "${arg#*=}")
		else
			LONG_ARGS+=("$arg")
		fi
	done
}

# no_arguments ARG...: bad input, before anything is done, when a command
# that takes no argument is given one.
no_arguments() {
	[[ $# -eq 0 ]] || bad_input "unknown argument '$1': ${0##*/} takes none (--help: its usage)"
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
# variables.  Bad input (exit 2) naming the line number of the first
# malformed line, or the branch that is not there.
parse_branches() {
	local file=$WF_BRANCHES line lineno=0 kind i sel=''
	local -a f
	[[ -r $file ]] || bad_input "cannot read branches file $file"
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
				bad_input "$file:$lineno: 'topic' takes 5 fields (id branch package constraint patchdir), got $((${#f[@]} - 1))"
			[[ ${f[1]} =~ ^[A-Za-z0-9][A-Za-z0-9._-]*$ ]] ||
				bad_input "$file:$lineno: '${f[1]}' is not a branch id (letters, digits, '.', '_', '-')"
			for i in "${!TOPICS_ID[@]}"; do
				[[ ${TOPICS_ID[i]} != "${f[1]}" ]] || bad_input "$file:$lineno: second topic with the id '${f[1]}'"
				[[ ${TOPICS_NAME[i]} != "${f[2]}" ]] || bad_input "$file:$lineno: second topic on the branch '${f[2]}'"
			done
			git check-ref-format --branch "${f[2]}" >/dev/null 2>&1 ||
				bad_input "$file:$lineno: '${f[2]}' is not a valid branch name"
			[[ ${f[3]} =~ ^[a-z0-9][a-z0-9.+-]+$ ]] ||
				bad_input "$file:$lineno: '${f[3]}' is not a Debian package name"
			[[ ${f[4]} =~ ^(\>=|\<=|\>\>|\<\<|=)[0-9][A-Za-z0-9.+~:-]*$ || ${f[4]} == any ]] ||
				bad_input "$file:$lineno: '${f[4]}' is not a version constraint (>=V, <=V, >>V, <<V, =V or any)"
			[[ ${f[5]} != /* && ${f[5]} != *..* ]] ||
				bad_input "$file:$lineno: patch directory '${f[5]}' must be relative to the checkout"
			TOPICS_ID+=("${f[1]}") TOPICS_NAME+=("${f[2]}") TOPICS_PACKAGE+=("${f[3]}")
			TOPICS_CONSTRAINT+=("${f[4]}") TOPICS_PATCHDIR+=("${f[5]}")
			;;
		tree)
			[[ ${#f[@]} -ge 5 ]] ||
				bad_input "$file:$lineno: 'tree' takes at least 4 fields (name location branch owned...), got $((${#f[@]} - 1))"
			[[ ${f[1]} =~ ^[A-Za-z0-9_.-]+$ ]] ||
				bad_input "$file:$lineno: '${f[1]}' is not a tree name"
			TREE_NAMES+=("${f[1]}") TREE_URLS+=("${f[2]}")
			TREE_BRANCHES+=("${f[3]}") TREE_OWNS+=("${f[*]:4}")
			;;
		*)
			bad_input "$file:$lineno: unknown record '$kind' (expected 'topic' or 'tree')"
			;;
		esac
	done <"$file"
	[[ ${#TOPICS_ID[@]} -gt 0 ]] || bad_input "$file: no 'topic' line"
	for i in "${!TOPICS_ID[@]}"; do
		[[ -n $WF_BRANCH && ${TOPICS_ID[i]} != "$WF_BRANCH" ]] || { sel=$i; break; }
	done
	# What a kernel developer types: the git branch of the cache
	# (sysctl-syscall) names its topic as its id does; a name that is one
	# topic's id and another's git branch is refused.
	for i in "${!TOPICS_NAME[@]}"; do
		[[ -n $WF_BRANCH && ${TOPICS_NAME[i]} == "$WF_BRANCH" ]] || continue
		[[ -z $sel ]] ||
			bad_input "BRANCH '$WF_BRANCH' is ambiguous in $file: the id of the topic $WF_BRANCH (line $(topic_line "$file" "$sel")) and the git branch of the topic ${TOPICS_ID[i]} (line $(topic_line "$file" "$i")); type the id"
		sel=$i
	done
	[[ -n $sel ]] ||
		bad_input "no branch '$WF_BRANCH' in $file (the branches: ${TOPICS_ID[*]})"
	# shellcheck disable=SC2034 # used by the scripts that source this file
	TOPIC_ID=${TOPICS_ID[sel]} TOPIC_NAME=${TOPICS_NAME[sel]} TOPIC_PACKAGE=${TOPICS_PACKAGE[sel]}
	# shellcheck disable=SC2034
	TOPIC_CONSTRAINT=${TOPICS_CONSTRAINT[sel]} TOPIC_PATCHDIR=${TOPICS_PATCHDIR[sel]}
	# shellcheck disable=SC2034
	TOPIC_TARBALL=$WF_SRC_DIR/$TOPIC_PACKAGE.tar.xz
}

# topic_line FILE INDEX: the line number of the INDEXth (from 0) topic
# line of FILE.
topic_line() {
	awk -v want="$2" '{ sub(/#.*/, "") } $1 == "topic" && n++ == want { print NR; exit }' "$1"
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
		infra_error "package $TOPIC_PACKAGE is not installed (run: apt-get install $TOPIC_PACKAGE)"
}

# check_constraint VERSION: an infrastructure error (the package installed
# here) unless VERSION satisfies TOPIC_CONSTRAINT.
check_constraint() {
	local ver=$1 op want
	[[ $TOPIC_CONSTRAINT == any ]] && return 0
	op=${TOPIC_CONSTRAINT%%[0-9]*}
	want=${TOPIC_CONSTRAINT#"$op"}
	case $op in
	'>=') op=ge ;; '<=') op=le ;; '>>') op=gt ;; '<<') op=lt ;; '=') op=eq ;;
	esac
	dpkg --compare-versions "$ver" "$op" "$want" ||
		infra_error "$TOPIC_PACKAGE $ver does not satisfy the constraint $TOPIC_CONSTRAINT in $WF_BRANCHES"
}

# base_ref VERSION: the tag under which the pristine import is kept.
base_ref() {
	printf 'refs/tags/base/%s\n' "${1//[:~]/_}"
}

# wf_committer_env: the committer of every commit the tools make (the
# base's import, rebuilt, ported and amended commits), exported: fixed,
# so that the same tarball and patches give the same commit ids every
# time (WF_COMMITTER_NAME, WF_COMMITTER_EMAIL: another).
wf_committer_env() {
	export GIT_COMMITTER_NAME=${WF_COMMITTER_NAME:-sysctl-wf}
	export GIT_COMMITTER_EMAIL=${WF_COMMITTER_EMAIL:-sysctl-wf@localhost}
}

# wf_format_patch REPO RANGE DIR [OPTION...]: RANGE of REPO as patch files
# in DIR, the same bytes whatever the commit ids, the git version, the
# user's configuration of format-patch and diff (each setting that
# changes their output is set to git's default here; tests/rebuild.bats
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

# Crash safety: locks, run markers, recovery.
# shellcheck source=tools/lib/run.sh
. "$WF_HOME/tools/lib/run.sh"

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
