#!/usr/bin/env bash
# What the mail of tools/submit.sh says: the sender and the sign-offs,
# the cover letter and its changelog, the patches as b4 writes them (and
# the check that they apply back to the same tree); and what b4 keeps of
# the revisions sent (their tags, the change-id), restored from
# cover-letters/<id>/sent/.  Sourced, never run.
# shellcheck shell=bash

# use_sender 'NAME <EMAIL>': the identity of git and b4 for this run
# (git's GIT_CONFIG_COUNT, so that every git b4 runs sees it).
use_sender() {
	local n=${GIT_CONFIG_COUNT:-0}
	[[ $1 =~ ^([^<>@]*[^<>@ ])\ +\<([^<>@ ]+@[^<>@ ]+)\>$ ]] ||
		die "sender '$1' is not 'Name <address>'"
	export "GIT_CONFIG_KEY_$n=user.name" "GIT_CONFIG_VALUE_$n=${BASH_REMATCH[1]}"
	export "GIT_CONFIG_KEY_$((n + 1))=user.email" "GIT_CONFIG_VALUE_$((n + 1))=${BASH_REMATCH[2]}"
	export GIT_CONFIG_COUNT=$((n + 2))
}


# sender: "Name <email>" of the person running this (git config).
sender() {
	local name email
	# shellcheck disable=SC2310 # b4_git is one git command
	name=$(b4_git config user.name) || true
	# shellcheck disable=SC2310 # b4_git is one git command
	email=$(b4_git config user.email) || true
	[[ -n $name && -n $email ]] ||
		die "no sender identity: set git config --global user.name and user.email, or SENDER='Name <address>'"
	printf '%s <%s>\n' "$name" "$email"
}


# take_authorship SENDER: commits whose author uses a reserved example
# domain get SENDER as author, without their reserved-domain
# Signed-off-by lines (add_sender_signoff adds SENDER's).  Trees and
# author dates stay.
take_authorship() {
	local sender=$1 c parent msg n=0 author line
	local name=${1% <*} email=${1##*<}
	email=${email%>}
	parent=$(b4_git rev-parse "$B4_BASE^{commit}")
	for c in $(b4_git rev-list --reverse "$B4_BASE..HEAD"); do
		author=$(b4_git log -1 --format='%an <%ae>' "$c")
		msg=$(b4_git log -1 --format=%B "$c")
		# shellcheck disable=SC2310 # its status is its answer; it does not rely on set -e
		if reserved_domain "$author" >/dev/null; then
			n=$((n + 1))
			msg=$(while IFS= read -r line; do
				# shellcheck disable=SC2310 # its status is its answer; it does not rely on set -e
				[[ $line == 'Signed-off-by: '* ]] && reserved_domain "$line" >/dev/null && continue
				printf '%s\n' "$line"
			done <<<"$msg")
			author=$sender
		fi
		parent=$(recommit "$B4_DIR" "$c" "$parent" "$author" <<<"$msg")
	done
	[[ $n -eq 0 ]] && return 0
	b4_git update-ref "refs/heads/$TOPIC_NAME" "$parent"
	info "$name <$email> takes authorship of $n commit(s) by a reserved-domain author: From and Signed-off-by (b4 work repo only)"
}


# last_signoff COMMIT: the last Signed-off-by line of COMMIT's message.
last_signoff() {
	b4_git log -1 --format=%B "$1" | git interpret-trailers --parse |
		sed -n 's/^Signed-off-by: //p' | tail -n 1
}


# add_sender_signoff SENDER: sign off every commit not last signed off by
# SENDER (git rebase --signoff; trees do not change).
add_sender_signoff() {
	local sender=$1 c n=0
	for c in $(b4_git rev-list "$B4_BASE..HEAD"); do
		# shellcheck disable=SC2310 # its status is its answer; it does not rely on set -e
		[[ $(last_signoff "$c") == "$sender" ]] || n=$((n + 1))
	done
	[[ $n -eq 0 ]] && return 0
	# shellcheck disable=SC2310 # b4_git is one git command
	b4_git rebase -q --force-rebase --signoff "$B4_BASE" >>"$B4_LOG" 2>&1 || {
		b4_git rebase --abort >/dev/null 2>&1 || true
		die "could not add the sender's Signed-off-by (log: $B4_LOG)"
	}
	info "added 'Signed-off-by: $sender' to $n commit(s) (b4 work repo only)"
}


# pick_cover REV [FILE]: the cover letter file for revision REV.
pick_cover() {
	local rev=$1 file=${2:-} dir=$WF_COVERS k best=''
	if [[ -n $file ]]; then
		[[ -r $file ]] || die "cover letter $file not found"
		printf '%s\n' "$file"
		return
	fi
	for k in $(find "$dir" -maxdepth 1 -name 'v*.txt' 2>/dev/null |
		sed -nE 's#.*/v([0-9]+)\.txt$#\1#p' | sort -n); do
		[[ $k -le $rev ]] && best=$k
	done
	[[ -n $best ]] || die "no cover letter for v$rev: write cover-letters/$WF_BRANCH/v$rev.txt (first line subject, blank line, body)"
	printf '%s\n' "$dir/v$best.txt"
}


# require_cover_format FILE: the b4 prep format; else die.  (A
# placeholder left in it, @NAME@ or b4's EDITME, is tools/preflight.sh's
# check_cover's: refused before any b4 work, FORCE=1 overrides it.)
require_cover_format() {
	local file=$1
	[[ -n $(sed -n 1p "$file") && -z $(sed -n 2p "$file") && -n $(sed -n '3,$p' "$file" | tr -d '[:space:]') ]] ||
		die "cover letter $file: expected a subject line, a blank line, then the body"
}


# changelog REV PREV RANGEDIFF: a "Changes in vREV:" section summarising
# the range-diff against vPREV (tools/lib/changelog.awk), and the link to vPREV.
changelog() {
	local rev=$1 prev=$2 rd=$3 msgid
	printf 'Changes in v%s:\n' "$rev"
	awk -f "$WF_HOME/tools/lib/changelog.awk" "$rd"
	msgid=$(sent_field "$prev" message-id | tr -d '<>')
	if [[ -n $msgid ]]; then
		# shellcheck disable=SC2059 # the link mask is the format
		printf -- "- Link to v%s: $LINKMASK\n" "$prev" "$msgid"
	fi
}


# is_cover FILE: whether a written message is the cover letter (counter 0).
is_cover() {
	[[ ${1##*/} == 0000-* ]]
}


# retarget_patches DIR: To/Cc of each patch message from get_maintainer.pl
# on that patch, plus the people in its trailers.  get_maintainer.pl reads
# the message without b4's To/Cc: it matches the keywords of MAINTAINERS
# (K:) against everything before the diff, and b4's headers name the
# whole series' people (CLANG/LLVM's K: matched llvm@lists.linux.dev
# there, and every patch went to the LLVM maintainers).
retarget_patches() {
	local dir=$1 f
	local -a files=()
	for f in "$dir"/*.eml; do
		# shellcheck disable=SC2310 # its status is its answer; it does not rely on set -e
		is_cover "$f" || files+=("$f")
	done
	[[ -x $B4_DIR/scripts/get_maintainer.pl ]] || {
		info "no scripts/get_maintainer.pl: patches keep b4's To/Cc"
		return 0
	}
	(cd "$B4_DIR" && python3 - "${files[@]}") <<'EOF'
import os, re, subprocess, sys, tempfile
from email.utils import getaddresses, formataddr

GM = ['./scripts/get_maintainer.pl', '--nogit', '--nogit-fallback',
      '--nogit-chief-penguins', '--norolestats']
TRAILER = re.compile(r'^(Signed-off-by|Co-developed-by|Acked-by|Reviewed-by|'
                     r'Tested-by|Reported-by|Suggested-by|Cc): (.*)$', re.M)

def addrs(args):
    out = subprocess.run(GM + args, capture_output=True, text=True, check=True)
    return getaddresses([l for l in out.stdout.splitlines() if l.strip()])

def maintainers(lines, body):
    """get_maintainer.pl's To and Cc for the message of header LINES."""
    fd, name = tempfile.mkstemp(suffix='.eml')
    try:
        with os.fdopen(fd, 'w', encoding='utf-8') as f:
            f.write('\n'.join(lines) + '\n\n' + body)
        return addrs(['--nol', name]), addrs(['--nom', name])
    finally:
        os.unlink(name)

for path in sys.argv[1:]:
    raw = open(path, encoding='utf-8').read()
    head, body = raw.split('\n\n', 1)
    # The headers unfolded, without b4's To/Cc: what get_maintainer.pl
    # reads, and what the new To/Cc go into.
    lines = [l for l in re.sub(r'\n[ \t]+', ' ', head).split('\n')
             if not re.match(r'(?i)^(to|cc):', l)]
    tos, ccs = maintainers(lines, body)
    ccs += getaddresses([m.group(2) for m in TRAILER.finditer(body)])
    seen, to, cc = set(), [], []
    for lst, pairs in ((to, tos), (cc, ccs)):
        for name, mail in pairs:
            if mail and mail.lower() not in seen:
                seen.add(mail.lower())
                lst.append(formataddr((name, mail)))
    if not to:
        to, cc = cc, []
    # The new To/Cc after Subject.
    out = []
    for line in lines:
        out.append(line)
        if re.match(r'(?i)^subject:', line):
            out.append('To: ' + ',\n '.join(to))
            if cc:
                out.append('Cc: ' + ',\n '.join(cc))
    open(path, 'w', encoding='utf-8').write('\n'.join(out) + '\n\n' + body)
EOF
}


# describe_base DIR VERSION: the base in words a reader can act on.  The
# base is the import of the Debian package, a commit in no public tree:
# a "base-commit:" naming it would send b4 and the build robots looking
# for it in vain (and b4 0.12 writes its parent anyway).  Its line
# becomes "base: <package> <version> (Debian), Linux <upstream version>".
describe_base() {
	local f what
	what="base: $TOPIC_PACKAGE $2 (Debian), Linux ${2%%-*}"
	for f in "$1"/*.eml; do
		sed -i "s/^base-commit: .*/$what/" "$f"
	done
}


# round_trip DIR SENDER: git am the patch messages onto the base and
# compare with the branch (trees) and with what b4 sent (authors).
# Prints the am'd commits' tree ids on one line, the tip's last.
round_trip() {
	local dir=$1 sender=$2 f out head tree want i=0 bad=''
	local -a files=() am_authors want_authors am_commits
	for f in "$dir"/*.eml; do
		# shellcheck disable=SC2310 # its status is its answer; it does not rely on set -e
		is_cover "$f" || files+=("$f")
	done
	b4_git checkout -q --detach "$B4_BASE"
	# shellcheck disable=SC2310 # b4_git is one git command
	if ! out=$(b4_git am -q "${files[@]}" 2>&1); then
		b4_git am --abort >/dev/null 2>&1 || true
		b4_git checkout -q "$TOPIC_NAME"
		die "round trip: the written messages do not apply to the base: $(grep -m1 -E '^(error|Patch failed)' <<<"$out" || head -n 1 <<<"$out")"
	fi
	head=$(b4_git rev-parse HEAD)
	b4_git checkout -q "$TOPIC_NAME"
	tree=$(b4_git rev-parse "$head^{tree}")
	want=$(b4_git rev-parse "refs/wf/topic^{tree}")
	[[ $tree == "$want" ]] ||
		die "round trip: git am of $dir gives tree $tree, the branch $TOPIC_NAME has $want"
	mapfile -t am_authors < <(b4_git log --reverse --format='%an <%ae>' "$B4_BASE..$head")
	mapfile -t want_authors < <(b4_git log --reverse --format='%an <%ae>' "$B4_BASE..$TOPIC_NAME")
	mapfile -t am_commits < <(b4_git rev-list --reverse "$B4_BASE..$head")
	[[ ${#am_authors[@]} -eq ${#want_authors[@]} ]] ||
		die "round trip: ${#am_authors[@]} commits from the messages, ${#want_authors[@]} on the branch"
	for ((i = 0; i < ${#am_authors[@]}; i++)); do
		[[ ${am_authors[i]} == "${want_authors[i]}" ]] ||
			bad+="patch $((i + 1)): author ${am_authors[i]}, expected ${want_authors[i]}; "
		# shellcheck disable=SC2310 # b4_git is one git command
		b4_git log -1 --format=%B "${am_commits[i]}" | grep -qxF "Signed-off-by: ${want_authors[i]}" ||
			bad+="patch $((i + 1)): no Signed-off-by from its author ${want_authors[i]}; "
		# shellcheck disable=SC2310 # its status is its answer; it does not rely on set -e
		[[ $(last_signoff "${am_commits[i]}") == "$sender" ]] ||
			bad+="patch $((i + 1)): the last Signed-off-by is not the sender $sender; "
	done
	[[ -z $bad ]] || die "round trip: ${bad%; }"
	b4_git log --reverse --format=%T "$B4_BASE..$head" | paste -sd ' ' 
}

# --- the revisions sent, in the b4 repo -------------------------------------

# restore_sent_tags: the tag sent/<topic>-vK of each revision recorded in
# cover-letters/<id>/sent/ (b4 prep --compare-to reads it), rebuilt from the
# record (git am -s of its patches onto its base) when missing or not the
# recorded tree; tags of revisions not recorded there are dropped.
restore_sent_tags() {
	local tag k base want have rec
	for tag in $(b4_git tag -l "sent/$TOPIC_NAME-v*"); do
		[[ -f $SENT_DIR/v${tag##*-v}/record ]] || b4_git tag -d "$tag" >/dev/null
	done
	for k in $(sent_revisions); do
		tag=sent/$TOPIC_NAME-v$k rec=cover-letters/$WF_BRANCH/sent/v$k
		want=$(sent_field "$k" tip-tree)
		# shellcheck disable=SC2310 # b4_git is one git command
		have=$(b4_git rev-parse -q --verify "refs/tags/$tag^{tree}" || true)
		[[ -n $have && ( -z $want || $have == "$want" ) ]] && continue
		base=$(sent_field "$k" base-commit)
		[[ $base =~ ^[0-9a-f]{40}$ ]] || die "$rec/record: no base-commit"
		# shellcheck disable=SC2310 # b4_git is one git command, sent_field one pipeline
		b4_git cat-file -e "$base^{commit}" 2>/dev/null ||
			b4_git fetch -q --no-tags "$WF_REPO" "+refs/tags/$(sent_field "$k" base-tag):refs/wf/sent-base" 2>/dev/null || true
		# shellcheck disable=SC2310 # b4_git is one git command
		b4_git cat-file -e "$base^{commit}" 2>/dev/null ||
			die "$rec: its base $(sent_field "$k" base-tag) ($base) is not in $WF_REPO (import it: make base)"
		b4_git checkout -q --detach "$base"
		# shellcheck disable=SC2310 # b4_git is one git command
		if ! b4_git am -q -s "$SENT_DIR/v$k/patches.mbox" >>"$B4_LOG" 2>&1; then
			# shellcheck disable=SC2310 # b4_git is one git command
			b4_git am --abort >/dev/null 2>&1 || true
			b4_git checkout -q "$TOPIC_NAME"
			die "$rec/patches.mbox does not apply to its base $base (log: $B4_LOG)"
		fi
		have=$(b4_git rev-parse 'HEAD^{tree}')
		[[ -z $want || $have == "$want" ]] || {
			b4_git checkout -q "$TOPIC_NAME"
			die "$rec/patches.mbox gives tree $have, its record says $want"
		}
		{
			cat "$SENT_DIR/v$k/cover.txt"
			printf '\n---\nbase-commit: %s\nchange-id: %s\n' "$base" "$(sent_field "$k" change-id)"
		} | b4_git tag -f -a -F - "$tag" HEAD >/dev/null
		b4_git checkout -q "$TOPIC_NAME"
		info "v$k: tag $tag rebuilt from $rec"
	done
}

# new_change_id: a new change-id for the series (b4's form: date, branch,
# 12 hex digits), refused once a revision is recorded: its change-id
# is the series' name on the list.
new_change_id() {
	local last cid tracking
	last=$(sent_revisions | tail -n 1)
	[[ -z $last ]] ||
		die "NEW_CHANGE_ID=1: v$last was sent with change-id $(sent_field "$last" change-id); its next revisions keep it"
	cid=$(date -u +%Y%m%d)-$TOPIC_NAME-$(od -An -N6 -tx1 /dev/urandom | tr -d ' \n')
	tracking=$(b4_git config "branch.$TOPIC_NAME.b4-tracking")
	b4_git config "branch.$TOPIC_NAME.b4-tracking" \
		"$(jq -c --arg c "$cid" '.series["change-id"] = $c' <<<"$tracking")"
	info "a new change-id: $cid"
}

# use_recorded_change_id: the change-id of the last recorded revision, so
# that a fresh b4 enrollment continues the series.
use_recorded_change_id() {
	local last cid tracking
	last=$(sent_revisions | tail -n 1)
	[[ -n $last ]] || return 0
	cid=$(sent_field "$last" change-id)
	[[ -n $cid ]] || die "cover-letters/$WF_BRANCH/sent/v$last/record: no change-id"
	tracking=$(b4_git config "branch.$TOPIC_NAME.b4-tracking")
	[[ $(jq -r '.series["change-id"]' <<<"$tracking") == "$cid" ]] && return 0
	b4_git config "branch.$TOPIC_NAME.b4-tracking" \
		"$(jq -c --arg c "$cid" '.series["change-id"] = $c' <<<"$tracking")"
	info "change-id $cid (recorded with v$last)"
}

# clean_recipients DIR SENDER KEEP_SELF: To/Cc of each message of DIR
# without the addresses no one should get: one in a reserved example
# domain (a placeholder, as a MAINTAINERS entry of the series may name:
# no mail reaches it) and, unless KEEP_SELF is 1, the sender herself (b4
# copies her from her Signed-off-by).  A message left with Cc only gets
# them as To; one left with no recipient stops the run.  Says what it
# dropped, one line per address.
clean_recipients() {
	local dir=$1 sender=$2 keep_self=$3 line
	local -a files=("$dir"/*.eml)
	while IFS= read -r line; do
		[[ -n $line ]] || continue
		case $line in
		'none '*) die "${line#none }: no recipient left after dropping the reserved-domain addresses: name a real maintainer in MAINTAINERS" ;;
		*) info "$line" ;;
		esac
	done < <(python3 - "$sender" "$keep_self" "${files[@]}" <<'PY'
import re, sys
from email.utils import getaddresses, formataddr, parseaddr

sender = parseaddr(sys.argv[1])[1].lower()
keep_self = sys.argv[2] == '1'

def reserved(addr):
    host = addr.rsplit('@', 1)[-1].lower()
    return bool(re.search(r'(^|\.)example\.(com|net|org)$', host)
                or re.search(r'(^|\.)(example|test|invalid|localhost)$', host))

dropped = {}
for path in sys.argv[3:]:
    raw = open(path, encoding='utf-8').read()
    head, body = raw.split('\n\n', 1)
    lines = re.sub(r'\n[ \t]+', ' ', head).split('\n')
    kept = {'to': [], 'cc': []}
    where = None
    for i, line in enumerate(lines):
        m = re.match(r'(?i)^(to|cc):\s*(.*)$', line)
        if not m:
            continue
        where = where if where is not None else i
        for name, mail in getaddresses([m.group(2)]):
            if not mail:
                continue
            why = None
            if reserved(mail):
                why = 'in a reserved example domain (a placeholder: no mail reaches it)'
            elif mail.lower() == sender and not keep_self:
                why = 'the sender herself (CC_SELF=1 keeps her)'
            if why:
                dropped.setdefault((formataddr((name, mail)), why), set()).add(path)
            else:
                kept[m.group(1).lower()].append(formataddr((name, mail)))
    if where is None:
        continue
    if not kept['to']:
        kept['to'], kept['cc'] = kept['cc'], []
    if not kept['to']:
        print('none ' + path.rsplit('/', 1)[-1])
        sys.exit(0)
    out = [l for l in lines if not re.match(r'(?i)^(to|cc):', l)]
    new = ['To: ' + ',\n '.join(kept['to'])]
    if kept['cc']:
        new.append('Cc: ' + ',\n '.join(kept['cc']))
    out[where:where] = new
    open(path, 'w', encoding='utf-8').write('\n'.join(out) + '\n\n' + body)
for (addr, why), paths in sorted(dropped.items()):
    print('dropped %s from To/Cc of %d message(s): %s' % (addr, len(paths), why))
PY
	)
}

# sign_messages DIR: each message of DIR signed with patatt (the
# X-Developer-Signature b4 adds), last, when patatt has a key as b4
# checks it (patatt.signingkey, else user.signingKey; not with
# b4.send-no-patatt-sign); else says once that the mail is unsigned.
sign_messages() {
	local dir=$1 key off py
	# shellcheck disable=SC2310 # b4_git is one git command; unset is an answer
	key=$(b4_git config patatt.signingkey || b4_git config user.signingkey || true)
	# shellcheck disable=SC2310 # b4_git is one git command; unset is an answer
	off=$(b4_git config b4.send-no-patatt-sign || true)
	if [[ -z $key || ${off,,} =~ ^(yes|true|y)$ ]]; then
		info "the mail is unsigned (no patatt key: patatt genkey, or git config user.signingKey; doc/sending.md)"
		return 0
	fi
	# (b4's own interpreter: the one that has its patatt)
	py=$(sed -n '1s/^#! *\([^ ]*\).*/\1/p' "$(command -v b4)")
	(cd "$B4_DIR" && "${py:-python3}" - "$dir"/*.eml) <<'PY' >>"$B4_LOG" 2>&1 ||
import sys
import patatt
for path in sys.argv[1:]:
    with open(path, 'rb') as f:
        data = f.read()
    with open(path, 'wb') as f:
        f.write(patatt.rfc2822_sign(data))
PY
		die "patatt could not sign the messages with $key (log: $B4_LOG)"
	info "signed $(find "$dir" -maxdepth 1 -name '*.eml' | wc -l) message(s) with patatt ($key)"
}
