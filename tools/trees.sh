#!/usr/bin/env bash
# Check the patches against the subsystem trees of branches.txt.
#
#   tools/trees.sh [-o REPORT]
#
# Fetches each "tree" record (a local path or a git URL) into the cache's
# trees.git (shared by the branches; WF_TREES_GIT names another), then
# applies, in series order, the patches the tree owns onto its branch
# (git apply --cached on a temporary index: no checkout).  Per tree and patch it says whether the
# patch applies and, if not, which files conflict, like the build robots'
# "cannot apply to" lines.  A patch that does not apply to its tree alone
# but does once earlier patches owned by other trees are applied must go
# in together with those: it is reported as "needs ...".
#
# A tree that cannot be fetched (WF_FETCH_TIMEOUT seconds, default 60:
# this machine is usually offline) is checked on the copy fetched before,
# said in one line; one never fetched is a row "SKIPPED" and the patches
# it takes go unchecked.
#
# The table goes to stdout and to REPORT (default $WF_TOP/out/<id>/trees.txt,
# <id> the branch).  Exit status 1 when a patch conflicts with a tree it
# belongs to; else 3 (an infrastructure error, named in one line) when a
# tree was never fetched; else 0.
set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/lib.sh"

TREES_GIT=${WF_TREES_GIT:-$WF_CACHE_ROOT/trees.git}
FETCH_TIMEOUT=${WF_FETCH_TIMEOUT:-60}

# init_trees_repo: a bare repo sharing the cache repo's objects.
init_trees_repo() {
	[[ -d $TREES_GIT ]] || git init -q --bare "$TREES_GIT"
	if [[ -d $WF_REPO/.git/objects ]]; then
		printf '%s\n' "$WF_REPO/.git/objects" >"$TREES_GIT/objects/info/alternates"
	fi
}

# fetch_tree NAME LOCATION BRANCH: prints "" on success or the reason.
fetch_tree() {
	local name=$1 url=$2 branch=$3 out
	if [[ $url != *:* && $url != /* ]]; then
		url=$WF_TOP/$url
	fi
	if out=$(GIT_TERMINAL_PROMPT=0 timeout "$FETCH_TIMEOUT" \
		git -C "$TREES_GIT" fetch -q --no-tags "$url" "+refs/heads/$branch:refs/trees/$name" 2>&1); then
		return 0
	fi
	grep -m1 -E 'fatal|error' <<<"$out" | sed -E 's/^(fatal|error): //' || echo "fetch failed"
}

# touched PATCH: the files a patch touches, one per line.
touched() {
	sed -nE 's#^diff --git a/(.*) b/(.*)$#\1\n\2#p' "$1" | sort -u
}

# owns OWNED PATCH: whether a tree owning OWNED (globs on patch names,
# paths, directories ending in /) takes PATCH.
owns() {
	local owned=$1 patch=$2 pat f name
	name=${patch##*/}
	for pat in $owned; do
		# shellcheck disable=SC2053 # glob match on purpose
		[[ $name == $pat || $name == $pat.patch ]] && return 0
		while IFS= read -r f; do
			if [[ $pat == */ ]]; then
				[[ $f == "$pat"* ]] && return 0
			else
				# shellcheck disable=SC2053
				[[ $f == $pat ]] && return 0
			fi
		done < <(touched "$patch")
	done
	return 1
}

# try_apply INDEX PATCH: apply PATCH to INDEX; on failure print the
# conflicting files and return 1 (INDEX unchanged).
try_apply() {
	local index=$1 patch=$2 out
	if out=$(GIT_INDEX_FILE=$index git -C "$TREES_GIT" apply --cached "$patch" 2>&1); then
		return 0
	fi
	sed -nE -e 's/^error: patch failed: (.*):[0-9]+$/\1/p' \
		-e 's/^error: (.*): (does not exist in index|already exists in index|patch does not apply)$/\1/p' \
		<<<"$out" | sort -u | tr '\n' ' ' | sed 's/ $//'
	return 1
}

short() {
	local n=${1##*/}
	printf '%s\n' "${n%.patch}"
}

# read_options ARGS...: REPORT, from -o or the default.
read_options() {
	local opt
	REPORT=''
	while getopts 'o:' opt; do
		case $opt in
		o) REPORT=$OPTARG ;;
		*) echo "usage: $0 [-o REPORT]" >&2; exit 2 ;;
		esac
	done
	parse_branches
	REPORT=${REPORT:-$WF_OUT/trees.txt}
}

# find_owners: OWNER_OF[i], the trees (space-separated) that take
# PATCHES[i], after the tree records' "owns" patterns.
find_owners() {
	local i t
	OWNER_OF=()
	for ((i = 0; i < ${#PATCHES[@]}; i++)); do
		OWNER_OF[i]=''
		for ((t = 0; t < ${#TREE_NAMES[@]}; t++)); do
			# shellcheck disable=SC2310 # its status is its answer; it does not rely on set -e
			owns "${TREE_OWNS[t]}" "${PATCHES[i]}" && OWNER_OF[i]+="${TREE_NAMES[t]} "
		done
		OWNER_OF[i]=${OWNER_OF[i]% }
	done
}

# check_tree T TMP: fetch tree number T and apply to it, in order, the
# patches it takes (in the index file TMP/NAME.index); a row of ROWS per
# patch, and ROBOT / TOGETHER lines for a conflict / a patch that needs
# another tree's patches first; RC=1 on a conflict.
check_tree() {
	local t=$1 tmp=$2 name=${TREE_NAMES[$1]} branch=${TREE_BRANCHES[$1]} why tidx i j p q conflicts deps
	info "fetching $name (${TREE_URLS[t]} $branch)"
	# shellcheck disable=SC2310 # its status is its answer; it does not rely on set -e
	why=$(fetch_tree "$name" "${TREE_URLS[t]}" "$branch") || true
	if [[ -n $why ]]; then
		if git -C "$TREES_GIT" rev-parse -q --verify "refs/trees/$name" >/dev/null; then
			info "$name: cannot fetch ($why): using the copy fetched before"
		else
			ROWS+=("$name|$branch|-|SKIPPED: cannot fetch ${TREE_URLS[t]}: $why")
			UNFETCHED+=("$name")
			return 0
		fi
	fi
	tidx=$tmp/$name.index
	GIT_INDEX_FILE=$tidx git -C "$TREES_GIT" read-tree "refs/trees/$name"
	for ((i = 0; i < ${#PATCHES[@]}; i++)); do
		p=${PATCHES[i]}
		[[ " ${OWNER_OF[i]} " == *" $name "* ]] || continue
		# shellcheck disable=SC2310 # its status is its answer; it does not rely on set -e
		if conflicts=$(try_apply "$tidx" "$p"); then
			ROWS+=("$name|$branch|$(short "$p")|applies")
			continue
		fi
		# Does it apply with the earlier patches of other trees that
		# touch the same files?
		cp "$tidx" "$tidx.with"
		deps=''
		for ((j = 0; j < i; j++)); do
			q=${PATCHES[j]}
			[[ " ${OWNER_OF[j]} " == *" $name "* ]] && continue
			# shellcheck disable=SC2310 # its status is its answer; it does not rely on set -e
			comm -12 <(touched "$p") <(touched "$q") | grep -q . || continue
			# shellcheck disable=SC2310 # its status is its answer; it does not rely on set -e
			try_apply "$tidx.with" "$q" >/dev/null && deps+="$(short "$q") (${OWNER_OF[j]:-no tree}), "
		done
		# shellcheck disable=SC2310 # its status is its answer; it does not rely on set -e
		if [[ -n $deps ]] && try_apply "$tidx.with" "$p" >/dev/null; then
			deps=${deps%, }
			ROWS+=("$name|$branch|$(short "$p")|needs $deps")
			TOGETHER+=("$(short "$p") ($name) must go in together with $deps")
			mv "$tidx.with" "$tidx"
		else
			ROWS+=("$name|$branch|$(short "$p")|CONFLICT: $conflicts")
			ROBOT+=("$(short "$p"): cannot apply to $name/$branch ($(git -C "$TREES_GIT" rev-parse --short=12 "refs/trees/$name")): conflicts in $conflicts")
			RC=1
		fi
	done
}

# write_report: the table of ROWS, the patches no tree takes, the ROBOT
# and TOGETHER lines, on stdout and in REPORT.
write_report() {
	local i
	mkdir -p "$(dirname "$REPORT")"
	{
		printf '%s\n' "tree|branch|patch|result" "${ROWS[@]}" |
			column -t -s '|' -o '  '
		for ((i = 0; i < ${#PATCHES[@]}; i++)); do
			[[ -n ${OWNER_OF[i]} ]] || printf 'not taken by any tree: %s\n' "$(short "${PATCHES[i]}")"
		done
		[[ ${#ROBOT[@]} -eq 0 ]] || printf '%s\n' "" "${ROBOT[@]}"
		[[ ${#TOGETHER[@]} -eq 0 ]] || printf '%s\n' "" "${TOGETHER[@]}"
	} | tee "$REPORT"
}

main() {
	local tmp t
	ROWS=() ROBOT=() TOGETHER=() UNFETCHED=() RC=0
	read_options "$@"
	lines_of PATCHES patch_files
	[[ ${#PATCHES[@]} -gt 0 ]] || die "no patches in $TOPIC_PATCHDIR/: nothing to check"
	[[ ${#TREE_NAMES[@]} -gt 0 ]] || die "no 'tree' records in $WF_BRANCHES"
	init_trees_repo
	tmp=$(mktemp -d)
	# shellcheck disable=SC2064 # expand now: tmp is local
	trap "rm -rf '$tmp'" EXIT
	find_owners
	for ((t = 0; t < ${#TREE_NAMES[@]}; t++)); do
		check_tree "$t" "$tmp"
	done
	write_report
	# A tree not fetched checked nothing: not a pass (a conflict
	# elsewhere is still the verdict).
	if [[ ${#UNFETCHED[@]} -gt 0 ]]; then
		printf '%s: infrastructure error: %s tree(s) could not be fetched (%s): the patches they take were not checked\n' \
			"$WF_PROG" "${#UNFETCHED[@]}" "${UNFETCHED[*]}" | tee -a "$REPORT"
		[[ $RC -ne 0 ]] || RC=3
	fi
	return "$RC"
}

main "$@"
