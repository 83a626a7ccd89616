#!/usr/bin/env bash
# Shared helpers for the workflow scripts.  Sourced, never run.
# shellcheck shell=bash

# The checkout holding these scripts.
WF_HOME=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# The checkout holding the data: branches.txt and the patches (the tests
# point it at fixtures).
WF_TOP=${WF_TOP:-$WF_HOME}
# Cache outside the checkout: kernel repo, build directories, ccache, logs.
WF_CACHE=${WF_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/sysctl-wf}
# Where Debian's linux-source-* packages put their tarball.
WF_SRC_DIR=${WF_SRC_DIR:-/usr/src}
# The branches file describing the topic branch and the subsystem trees.
WF_BRANCHES=${WF_BRANCHES:-$WF_TOP/branches.txt}
# The kernel git repository (with a work tree) in the cache.
WF_REPO=${WF_REPO:-$WF_CACHE/linux}

WF_PROG=${WF_PROG:-$(basename "$0" .sh)}

die() {
	printf '%s: error: %s\n' "$WF_PROG" "$*" >&2
	exit 1
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

# parse_branches: read $WF_BRANCHES and set TOPIC_* variables, and the
# TREE_* arrays for the subsystem trees.  Dies naming the line number of
# the first malformed line.
parse_branches() {
	local file=$WF_BRANCHES line lineno=0 kind
	local -a f
	[[ -r $file ]] || die "cannot read branches file $file"
	TOPIC_NAME='' TOPIC_PACKAGE='' TOPIC_CONSTRAINT='' TOPIC_PATCHDIR=''
	TREE_NAMES=() TREE_URLS=() TREE_BRANCHES=() TREE_OWNS=()
	while IFS= read -r line || [[ -n $line ]]; do
		lineno=$((lineno + 1))
		line=${line%%#*}
		read -r -a f <<<"$line" || true
		[[ ${#f[@]} -eq 0 ]] && continue
		kind=${f[0]}
		case $kind in
		topic)
			[[ ${#f[@]} -eq 5 ]] ||
				die "$file:$lineno: 'topic' takes 4 fields (name package constraint patchdir), got $((${#f[@]} - 1))"
			[[ -z $TOPIC_NAME ]] || die "$file:$lineno: second 'topic' line"
			git check-ref-format --branch "${f[1]}" >/dev/null 2>&1 ||
				die "$file:$lineno: '${f[1]}' is not a valid branch name"
			[[ ${f[2]} =~ ^[a-z0-9][a-z0-9.+-]+$ ]] ||
				die "$file:$lineno: '${f[2]}' is not a Debian package name"
			[[ ${f[3]} =~ ^(\>=|\<=|\>\>|\<\<|=)[0-9][A-Za-z0-9.+~:-]*$ || ${f[3]} == any ]] ||
				die "$file:$lineno: '${f[3]}' is not a version constraint (>=V, <=V, >>V, <<V, =V or any)"
			[[ ${f[4]} != /* && ${f[4]} != *..* ]] ||
				die "$file:$lineno: patch directory '${f[4]}' must be relative to the checkout"
			TOPIC_NAME=${f[1]} TOPIC_PACKAGE=${f[2]}
			TOPIC_CONSTRAINT=${f[3]} TOPIC_PATCHDIR=${f[4]}
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
	[[ -n $TOPIC_NAME ]] || die "$file: no 'topic' line"
	# shellcheck disable=SC2034 # used by the scripts that source this file
	TOPIC_TARBALL=$WF_SRC_DIR/$TOPIC_PACKAGE.tar.xz
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

# patch_files: the topic's patches, in order, one per line.
patch_files() {
	local dir=$WF_TOP/$TOPIC_PATCHDIR
	[[ -d $dir ]] || die "patch directory $dir does not exist"
	find "$dir" -maxdepth 1 -name '*.patch' -type f | LC_ALL=C sort
}
