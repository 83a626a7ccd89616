#!/usr/bin/env bash
# Run checkpatch.pl --strict on every commit of the topic branch.
#
#   checks/checkpatch.sh [REV-RANGE]
#
# REV-RANGE defaults to base..branch.  Uses the scripts/checkpatch.pl of
# the base tree.  FILE_PATH_CHANGES is the one message type accepted (see
# shared/design/series.md): the series itself adds its new files to
# MAINTAINERS.  Prints one line per commit and the totals; fails if any
# commit has an error, a warning or a check.
set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/../tools/lib.sh"

main() {
	local range=${1:-} c out e w k bad=0 n=0 te=0 tw=0 tk=0 subject ver
	parse_branches
	if [[ -z $range ]]; then
		ver=$(package_version)
		range="$(base_ref "$ver")..refs/heads/$TOPIC_NAME"
	fi
	[[ -x $WF_REPO/scripts/checkpatch.pl ]] || die "no scripts/checkpatch.pl in $WF_REPO (run: make rebuild)"
	for c in $(repo_git rev-list --reverse "$range"); do
		n=$((n + 1))
		subject=$(repo_git log -1 --format=%s "$c")
		out=$(cd "$WF_REPO" && ./scripts/checkpatch.pl --strict --no-color \
			--ignore FILE_PATH_CHANGES --summary-file -g "$c" 2>&1) || true
		read -r e w k < <(sed -nE 's/.*total: ([0-9]+) errors, ([0-9]+) warnings, ([0-9]+) checks.*/\1 \2 \3/p' <<<"$out" | tail -n 1)
		if [[ -z ${e:-} ]]; then
			printf 'FAIL %s %s: checkpatch gave no summary: %s\n' "${c:0:12}" "$subject" "$(head -n 1 <<<"$out")"
			bad=1
			continue
		fi
		te=$((te + e)) tw=$((tw + w)) tk=$((tk + k))
		if [[ $((e + w + k)) -ne 0 ]]; then
			printf 'FAIL %s %s: %s errors, %s warnings, %s checks\n' "${c:0:12}" "$subject" "$e" "$w" "$k"
			grep -E '^(ERROR|WARNING|CHECK):' <<<"$out" | sed 's/^/    /'
			bad=1
		else
			printf 'ok   %s %s\n' "${c:0:12}" "$subject"
		fi
	done
	printf 'checkpatch: %d commit(s): %d errors, %d warnings, %d checks\n' "$n" "$te" "$tw" "$tk"
	return $bad
}

main "$@"
