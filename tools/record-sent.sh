#!/usr/bin/env bash
# Record a revision written by tools/submit.sh as sent by other means
# (the user's own git send-email of its messages): make record-sent REV=N.
#
#   tools/record-sent.sh [-f] [-r N | -d DIR]
#
# DIR is the written revision (-r N: out/<id>/submit/vN; default the
# highest one written).  Writes cover-letters/<id>/sent/vN/ (tools/lib/sent.sh) as
# tools/send.sh does after a real send, "sent-via: by hand"; the next
# "make submit" writes v(N+1) against it.  Refuses a revision recorded
# already, one that make send has half sent, and what tools/preflight.sh
# refuses (-f, FORCE=1, overrides it and says so).  Sends nothing.
set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tools/lib/sent.sh
. "$WF_HOME/tools/lib/sent.sh"

usage() {
	echo "usage: $0 [-f] [-r N | -d DIR]" >&2
	exit 2
}

main() {
	local opt dir='' rev half
	local -a pf=()
	while getopts 'fd:r:' opt; do
		case $opt in
		f) pf=(-f) ;;
		d) dir=$OPTARG ;;
		r)
			[[ $OPTARG =~ ^[1-9][0-9]*$ ]] || die "revision '$OPTARG' is not a positive number"
			dir=$WF_OUT/submit/v$OPTARG
			;;
		*) usage ;;
		esac
	done
	shift $((OPTIND - 1))
	[[ $# -eq 0 ]] || usage
	dir=${dir:-$(find "$WF_OUT/submit" -maxdepth 1 -name 'v*' -type d 2>/dev/null | sort -V | tail -n 1)}
	[[ -n $dir ]] || die "no written revision in ${WF_OUT#"$WF_TOP"/}/submit/ (run: make submit)"
	[[ -f $dir/record && -f $dir/cover.txt ]] ||
		die "${dir#"$WF_TOP"/} is not a revision written by make submit (no record or cover.txt)"
	rev=$(record_field "$dir/record" revision)
	wf_lock send
	[[ ! -e $SENT_DIR/v$rev ]] ||
		die "v$rev was sent already (cover-letters/$WF_BRANCH/sent/v$rev): make submit writes v$((rev + 1))"
	half=$(half_sent_dir)
	[[ -z $half ]] ||
		die "${half##*/} is half-sent by make send: finish it with 'make send', not by hand"
	"$WF_HOME/tools/preflight.sh" "${pf[@]}" "$dir"
	record_revision "$dir" "$rev" "by hand (git send-email)"
}

main "$@"
