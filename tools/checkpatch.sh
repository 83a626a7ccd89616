#!/usr/bin/env bash
# Run checkpatch.pl --strict on every commit of the topic branch
# ("make checkpatch", RANGE= another range).
#
#   tools/checkpatch.sh [REV-RANGE]
#
# REV-RANGE defaults to base..branch.  Runs the checkpatch check
# (checks/checkpatch/run) on each commit with the cache repo's work tree
# (its scripts/checkpatch.pl) as the source.  Prints one line per commit
# ("pass" or "fail", the commit, its subject, the check's summary), the
# checkpatch output of each failing one, and the totals.  Exit status: 0
# every commit passed, 1 one failed, 2 bad input, 3 checkpatch could not run
# (no perl: the commit was not judged).
set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/lib.sh"

main() {
	local range=${1:-} c n=0 bad=0 subject summary rc ver parent
	[[ $# -le 1 && $range != -* ]] || { echo "usage: $0 [REV-RANGE]" >&2; exit 2; }
	if [[ -z $range ]]; then
		parse_branches
		ver=$(package_version)
		range="$(base_ref "$ver")..refs/heads/$TOPIC_NAME"
	fi
	[[ -x $WF_REPO/scripts/checkpatch.pl ]] || bad_input "no scripts/checkpatch.pl in $WF_REPO (run: make rebuild)"
	# shellcheck disable=SC2310 # repo_git is one git command
	c=$(repo_git rev-list -n 1 "$range" 2>/dev/null) || bad_input "bad revision range '$range' in $WF_REPO"
	[[ -n $c ]] || bad_input "no commits in the range '$range': nothing to check"
	TMPD=$(mktemp -d)
	trap 'rm -rf "$TMPD"' EXIT
	for c in $(repo_git rev-list --reverse "$range"); do
		n=$((n + 1))
		subject=$(repo_git log -1 --format=%s "$c")
		rc=0
		parent=$(git -C "$WF_REPO" rev-parse -q --verify "$c^") || parent=''
		summary=$(WF_CHECK_NAME=checkpatch WF_CHECK_SRC=$WF_REPO WF_CHECK_COMMIT=$c \
			WF_CHECK_PARENT=$parent WF_CHECK_OUT=$TMPD \
			"$WF_HOME/checks/checkpatch/run" 2>"$TMPD/log") || rc=$?
		if [[ $rc -eq 0 ]]; then
			printf 'pass %s %s: %s\n' "${c:0:12}" "$subject" "$summary"
		elif [[ $rc -ne 1 ]]; then
			# (the commit was not judged: no pass, no fail)
			printf '%s: infrastructure error: %s %s: %s\n' "$WF_PROG" "${c:0:12}" "$subject" "$summary" >&2
			exit 3
		else
			printf 'fail %s %s: %s\n' "${c:0:12}" "$subject" "$summary"
			sed 's/^/    /' "$TMPD/log"
			bad=$((bad + 1))
		fi
	done
	printf 'checkpatch: %d commit(s): %d pass, %d fail\n' "$n" $((n - bad)) "$bad"
	[[ $bad -eq 0 ]]
}

main "$@"
