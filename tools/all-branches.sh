#!/usr/bin/env bash
# The whole pipeline (make all) on every topic branch of branches.txt, one
# after the other, then a table: branch, result, time.  A failing branch
# does not stop the next; the exit status is 1 when any failed.
#
#   tools/all-branches.sh
set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/lib.sh"

main() {
	local i id rc start failed=0
	local -a rows=()
	[[ $# -eq 0 ]] || { echo "usage: $0" >&2; exit 2; }
	for i in "${!TOPICS_ID[@]}"; do
		id=${TOPICS_ID[i]}
		info "branch $id ($((i + 1))/${#TOPICS_ID[@]}): ${TOPICS_NAME[i]} on ${TOPICS_PACKAGE[i]}"
		start=$SECONDS rc=0
		make --no-print-directory -C "$WF_HOME" all BRANCH="$id" || rc=$?
		if [[ $rc -eq 0 ]]; then
			rows+=("$id|${TOPICS_NAME[i]}|pass|$((SECONDS - start))s")
		else
			rows+=("$id|${TOPICS_NAME[i]}|fail (make all: $rc)|$((SECONDS - start))s")
			failed=1
		fi
	done
	printf '%s\n' "branch|topic|result|time" "${rows[@]}" | column -t -s '|' -o ' | '
	return $failed
}

main "$@"
