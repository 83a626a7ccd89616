#!/usr/bin/env bash
# The revisions sent so far, as kept in the repository, and the checks
# that every sent message must pass.  Sourced after lib.sh, never run.
# shellcheck shell=bash
#
# A sent revision N is the directory cover-letters/sent/vN/ with:
#   record        "key: value" lines: revision, change-id, base-tag,
#                 base-commit, tip-tree, date, message-id (the cover's,
#                 empty when unknown), sent-to
#   cover.txt     the cover letter as written for vN (b4 prep format:
#                 subject, blank line, body; without the generated
#                 "Changes in vN:" section)
#   patches.mbox  the patch messages of vN, in order, as git am takes them
# tools/send.sh writes it when it sends vN (or records a revision sent by
# hand, -n); tools/submit.sh reads it for the next revision's number,
# change-id, changelog and range-diff, so nothing of it lives only in
# $WF_CACHE.

SENT_DIR=$WF_COVERS/sent

# sent_revisions: the recorded revision numbers, ascending.
sent_revisions() {
	local d
	for d in "$SENT_DIR"/v*/record; do
		[[ -f $d ]] || continue
		d=${d%/record}
		d=${d##*/v}
		[[ $d =~ ^[1-9][0-9]*$ ]] && printf '%s\n' "$d"
	done | sort -n
}

# prev_sent_revision REV: the highest recorded revision below REV (empty
# when there is none).
prev_sent_revision() {
	sent_revisions | awk -v r="$1" '$1 < r' | tail -n 1
}

# record_field FILE KEY: the value of KEY in a record file (empty when
# absent).
record_field() {
	sed -n "s/^$2: *//p" "$1" | head -n 1
}

# sent_field REV KEY: the value of KEY in the record of revision REV.
sent_field() {
	record_field "$SENT_DIR/v$1/record" "$2"
}

# eml_header FILE NAME: an unfolded header of a written message.
eml_header() {
	sed -n '1,/^$/p' "$1" | sed -e ':a' -e 'N' -e '$!ba' -e 's/\n[ \t]\+/ /g' |
		sed -n "s/^$2: //Ip" | head -n 1
}

# recommit REPO COMMIT PARENT AUTHOR: a commit with COMMIT's tree and
# author date on PARENT, by AUTHOR ("Name <address>"), with the message
# read from stdin; prints its id.
recommit() {
	local repo=$1 c=$2 parent=$3 author=$4 email
	email=${author##*<}
	GIT_AUTHOR_NAME=${author% <*} GIT_AUTHOR_EMAIL=${email%>} \
		GIT_AUTHOR_DATE=$(git -C "$repo" log -1 --format=%ad --date=raw "$c") \
		git -C "$repo" commit-tree -p "$parent" -F - "$c^{tree}"
}

# reserved_domain ADDRESS: the reserved example domain (RFC 2606, RFC
# 6761) that ADDRESS ("Name <user@host>" or "user@host") uses; fails
# when it uses none.
reserved_domain() {
	local host
	host=${1##*@}
	host=${host%%>*}
	host=${host,,}
	if [[ $host =~ (^|\.)(example\.(com|net|org))$ ]]; then
		printf '%s\n' "${BASH_REMATCH[2]}"
	elif [[ $host =~ \.(example|test|invalid|localhost)$ || $host =~ ^(example|test|invalid|localhost)$ ]]; then
		printf '%s\n' "${BASH_REMATCH[1]}"
	else
		return 1
	fi
}
