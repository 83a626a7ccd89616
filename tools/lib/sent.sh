#!/usr/bin/env bash
# The revisions sent so far, as kept in the repository, and the checks
# that every sent message must pass.  Sourced after lib.sh, never run.
# shellcheck shell=bash
#
# A sent revision N is the directory cover-letters/<id>/sent/vN/ with:
#   record        "key: value" lines: revision, change-id, base-tag,
#                 base-commit, tip-tree, date, message-id (the cover's,
#                 empty when unknown), sent-to
#   cover.txt     the cover letter as written for vN (b4 prep format:
#                 subject, blank line, body; without the generated
#                 "Changes in vN:" section)
#   patches.mbox  the patch messages of vN, in order, as git am takes them
# tools/send.sh writes it when it sends vN for real (through the user's
# own SMTP server), tools/record-sent.sh when vN was sent by other means
# (the user's own git send-email); tools/submit.sh reads it for the next
# revision's number, change-id, changelog and range-diff, so nothing of
# it lives only in $WF_CACHE.
#
# A rehearsal (tools/send.sh -R: to a loopback server, or to trial
# addresses) is no revision: the list never saw it.  It is recorded in
# cover-letters/<id>/sent/rehearsals/vN-K/record (the K-th rehearsal of vN),
# which nothing counts: not the numbering, not the changelog, not the
# range-diff.
#
# A real send in progress works from a copy of the written revision in
# $WF_CACHE/sending/vN/ (its messages, record, cover.txt and its
# progress, "sending"), so that "make clean" (which removes out/) cannot
# lead the next send to mail again what the list has: make send
# finishes it from there.

SENT_DIR=$WF_COVERS/sent
# shellcheck disable=SC2034 # used by the tools that source this
REHEARSALS_DIR=$SENT_DIR/rehearsals
SENDING_DIR=$WF_CACHE/sending

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

# half_sent_dir: the copy of the revision whose real send is half done
# ($SENDING_DIR/vN), empty when there is none.
half_sent_dir() {
	local d
	for d in "$SENDING_DIR"/v*; do
		[[ -f $d/sending ]] || continue
		printf '%s\n' "$d"
		return 0
	done
	return 0
}

# recipients DIR: "FILE<TAB>HEADER<TAB>ADDRESS" for every To and Cc
# address of every message of DIR (ADDRESS as "Name <user@host>", decoded).
recipients() {
	python3 - "$1"/*.eml <<'EOF'
import email, email.policy, sys
from email.utils import getaddresses, formataddr
for path in sys.argv[1:]:
    msg = email.message_from_binary_file(open(path, 'rb'), policy=email.policy.default)
    for hdr in ('To', 'Cc'):
        for name, addr in getaddresses([str(v) for v in msg.get_all(hdr, [])]):
            if addr:
                print('%s\t%s\t%s' % (path.rsplit('/', 1)[-1], hdr, formataddr((name, addr))))
EOF
}

# reserved_recipients DIR: "FILE<TAB>ADDRESS" for each To/Cc address of
# DIR in a reserved example domain (no mail reaches it: a placeholder).
reserved_recipients() {
	local f a
	while IFS=$'\t' read -r f _ a; do
		[[ -n $f ]] || continue
		# shellcheck disable=SC2310 # its status is its answer; it does not rely on set -e
		reserved_domain "$a" >/dev/null && printf '%s\t%s\n' "$f" "$a"
	done < <(recipients "$1")
	return 0
}

# record_revision DIR REV VIA: cover-letters/<id>/sent/vREV/ from the written
# revision DIR (through .vREV.tmp, renamed last).
record_revision() {
	local dir=$1 rev=$2 via=$3 tmp f cover key
	local dest=$SENT_DIR/v$rev
	tmp=$SENT_DIR/.v$rev.tmp
	rm -rf "$tmp"
	mkdir -p "$tmp"
	cover=$(find "$dir" -maxdepth 1 -name '0000-*.eml' | head -n 1)
	{
		printf '# vN as sent (tools/send.sh or tools/record-sent.sh; format in tools/lib/sent.sh)\n'
		for key in revision change-id base-tag base-commit tip-tree cover; do
			printf '%s: %s\n' "$key" "$(record_field "$dir/record" "$key")"
		done
		printf 'date: %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
		printf 'message-id: %s\n' "$(eml_header "$cover" Message-Id)"
		printf 'sent-via: %s\n' "$via"
	} >"$tmp/record"
	cp "$dir/cover.txt" "$tmp/cover.txt"
	for f in "$dir"/*.eml; do
		[[ ${f##*/} == 0000-* ]] && continue
		printf 'From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n'
		cat "$f"
		printf '\n'
	done >"$tmp/patches.mbox"
	mv "$tmp" "$dest"
	info "recorded v$rev in ${dest#"$WF_TOP"/}: commit it (git add ${dest#"$WF_TOP"/})"
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
