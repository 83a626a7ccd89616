#!/usr/bin/env bash
# Where the branch stands, in five lines (make status).
#
#   tools/status.sh
#
#   branch    whether the cache's branch is what patches/ holds: its
#             commits on the base, those not exported (make export),
#             patches/ changed since (a pull: make rebuild), uncommitted
#             changes in its work tree; or not built yet
#   validate  the verdict of the last make validate (out/<id>/validate/
#             results.json), its age, and whether it is of this tip
#   revision  the next revision and the last one sent
#             (cover-letters/<id>/sent/), one written and not sent
#   send      a real send cut short (make send finishes it)
#   runs      a command killed while it ran (its marker, <command>.run
#             of the cache, with its lock held by no process: its next
#             run cleans up), or one running now
#
# Reads only: no lock, no marker, nothing written (patches/ is compared
# with a format-patch of the branch in a temporary directory).  Exit
# status 0, or 2 on bad input (an argument, an unknown BRANCH=).
set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tools/lib/sent.sh
. "$WF_HOME/tools/lib/sent.sh"

TMP=''
trap '[[ -z $TMP ]] || rm -rf "$TMP"' EXIT

# age_text SECONDS: "42s", "5m", "3h", "2d".
age_text() {
	local s=$1
	if [[ $s -lt 60 ]]; then
		printf '%ds' "$s"
	elif [[ $s -lt 3600 ]]; then
		printf '%dm' $((s / 60))
	elif [[ $s -lt 86400 ]]; then
		printf '%dh' $((s / 3600))
	else
		printf '%dd' $((s / 86400))
	fi
}

# patches_differ BASE TOPIC: how many patch files of patches/ differ from
# a format-patch of BASE..TOPIC (export's), written in a temporary
# directory.
patches_differ() {
	TMP=$(mktemp -d)
	wf_format_patch "$WF_REPO" "$1..refs/heads/$2" "$TMP"
	count_patch_changes "$WF_TOP/$TOPIC_PATCHDIR" "$TMP"
}

# branch_line: the branch against patches/.
branch_line() {
	local topic=$TOPIC_NAME tip base n line mark changed
	line="branch $TOPIC_ID ($topic): "
	# shellcheck disable=SC2310 # repo_git is one git command
	if [[ ! -d $WF_REPO/.git ]] || ! tip=$(repo_git rev-parse -q --verify "refs/heads/$topic"); then
		printf '%snot built (make rebuild)\n' "$line"
		return 0
	fi
	# shellcheck disable=SC2310 # repo_git is one git command
	base=$(repo_git describe --tags --abbrev=0 --match 'base/*' "$tip" 2>/dev/null) || base=''
	if [[ -z $base ]]; then
		printf '%son no base tag (make rebuild)\n' "$line"
		return 0
	fi
	n=$(repo_git rev-list --count "refs/tags/$base..$tip")
	line+="$n commit(s) on $base, "
	# shellcheck disable=SC2310 # repo_git is one git command
	mark=$(repo_git rev-parse -q --verify refs/wf/exported) || mark=''
	if [[ $mark != "$tip" ]]; then
		line+="$(repo_git rev-list --count "${mark:+$mark..}$tip") not exported (make export)"
	else
		changed=$(patches_differ "refs/tags/$base" "$topic")
		if [[ $changed -eq 0 ]]; then
			line+="exported to $TOPIC_PATCHDIR/"
		else
			line+="$TOPIC_PATCHDIR/ differs in $changed file(s) (make rebuild takes $TOPIC_PATCHDIR/, make export the branch)"
		fi
	fi
	# shellcheck disable=SC2310 # repo_git is one git command
	if [[ $(repo_git symbolic-ref -q HEAD) == "refs/heads/$topic" &&
		-n $(repo_git --no-optional-locks status --porcelain --untracked-files=no) ]]; then
		line+="; uncommitted changes"
	fi
	printf '%s\n' "$line"
}

# validate_line: the verdict of the last make validate.
validate_line() {
	local json=$WF_OUT/validate/results.json state failed infra verdict last tree='' age where
	if [[ ! -r $json ]]; then
		echo "validate: none yet (make validate)"
		return 0
	fi
	read -r state failed infra last <<<"$(jq -r '[.state, .failed, .infra, (.commits[-1].tree // "-")] | @tsv' \
		"$json" 2>/dev/null)" || true
	if [[ ! $failed =~ ^[0-9]+$ || ! $infra =~ ^[0-9]+$ ]]; then
		echo "validate: ${json#"$WF_TOP"/} cannot be read (make validate)"
		return 0
	fi
	case $state in
	running)
		verdict="killed while it ran"
		# shellcheck disable=SC2310 # its status is its answer
		if lock_holder "$WF_CACHE/validate.lock" >/dev/null; then verdict=running; fi ;;
	interrupted) verdict=interrupted ;;
	stopped) verdict="fail (stopped by FAIL_FAST at the first failure)" ;;
	*)
		if [[ $infra -gt 0 ]]; then
			verdict="infrastructure error(s): $infra"
		elif [[ $failed -gt 0 ]]; then
			verdict="fail ($failed failed)"
		else
			verdict=pass
		fi ;;
	esac
	age=$(age_text $(($(date +%s) - $(stat -c %Y "$json"))))
	# shellcheck disable=SC2310 # repo_git is one git command
	[[ ! -d $WF_REPO/.git ]] || tree=$(repo_git rev-parse -q --verify "refs/heads/$TOPIC_NAME^{tree}") || tree=''
	where="another tip"
	[[ $last != "$tree" ]] || where="this tip"
	printf 'validate: %s, %s ago, at %s (%s)\n' "$verdict" "$age" "$where" "${WF_OUT#"$WF_TOP"/}/validate/report.txt"
}

# revision_line: the next revision, the last sent, one written not sent.
revision_line() {
	local last next line written
	last=$(sent_revisions | tail -n 1)
	next=$((${last:-0} + 1))
	line="revision: v$next next, "
	if [[ -n $last ]]; then
		line+="v$last sent $(sent_field "$last" date)"
	else
		line+="none sent"
	fi
	written=$WF_OUT/submit/v$next
	if compgen -G "$written/*.eml" >/dev/null; then
		line+="; v$next written in ${written#"$WF_TOP"/} (make send)"
	fi
	printf '%s\n' "$line"
}

# send_line: a real send cut short.
send_line() {
	local dir rev sent all
	dir=$(half_sent_dir)
	if [[ -z $dir ]]; then
		echo "send: none half done"
		return 0
	fi
	rev=${dir##*/}
	sent=$(grep -c '^sent: ' "$dir/sending" || true)
	all=$(find "$dir" -maxdepth 1 -name '*.eml' | wc -l)
	printf 'send: %s half done, %s of %s message(s) sent (make send finishes it)\n' "$rev" "$sent" "$all"
}

# runs_line: the commands whose marker is there: running (a process
# holds their lock) or killed.
runs_line() {
	local marker name what out
	local -a runs=()
	for marker in "$WF_CACHE"/*.run "$WF_CACHE_ROOT"/port/*/port.run; do
		[[ -f $marker ]] || continue
		name=${marker##*/}
		name=${name%.run}
		what=$(head -n 1 "$marker")
		# shellcheck disable=SC2310 # its status is its answer
		if lock_holder "${marker%.run}.lock" >/dev/null; then
			runs+=("$name running (${what:-no details})")
		else
			runs+=("$name interrupted (${what:-no details}): its next run cleans up")
		fi
	done
	[[ ${#runs[@]} -gt 0 ]] || runs=("none interrupted")
	out=$(printf '%s; ' "${runs[@]}")
	printf 'runs: %s\n' "${out%; }"
}

main() {
	no_arguments "$@"
	parse_branches
	branch_line
	validate_line
	revision_line
	send_line
	runs_line
}

main "$@"
