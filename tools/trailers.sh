#!/usr/bin/env bash
# Bring the Reviewed-by, Acked-by and Tested-by of review replies back
# into the topic branch, and export it.
#
#   tools/trailers.sh -m MBOX [-y]
#
# MBOX is a local mailbox of replies to a sent revision (saved from a mail
# client, or fetched from lore by hand: this machine is offline).  A reply
# belongs to the sent message its In-Reply-To/References name: the cover
# letter or patch j of revision K, as recorded in cover-letters/<id>/sent/vK/
# (record: the cover's message-id; patches.mbox: the patches').  Its
# trailers are the unquoted "Reviewed-by:", "Acked-by:" and "Tested-by:"
# lines; one whose address is not the reply's sender is reported, not
# applied (b4's rule).  A trailer to the cover letter goes to every patch.
# Patch j of vK is the commit of the branch with the same patch-id (git
# patch-id --stable); when there is none, the patch's code changed since
# vK and its trailers are reported, not applied.
#
# b4 0.12's "b4 trailers -u -m MBOX" matches replies to commits by subject
# first, so it would put a review of vK on code that changed since: this
# script matches by patch-id only.
#
# The trailers found are shown per patch; with -y (YES=1), or "y" on
# stdin, they are added to the commit messages (git interpret-trailers;
# trees, authors and author dates stay; the committer is the rebuild's)
# and the branch is exported to patches/ (tools/export.sh).  The branch
# moves only once every commit was rewritten.
#
# Crash safety (tools/lib/run.sh): the lock and the run marker
# $WF_CACHE/trailers.run ("phase=rewrite", then "phase=update" and
# "phase=export" with the new tip, "new=").  Killed before the branch
# moved, a run left only unreachable commits: the next run applies the
# trailers again.  Killed after it moved and before the export was
# done, it left the branch ahead of patches/ (which the check that the
# branch is exported would refuse): the next run finishes the export,
# says so in one line, and then finds every trailer already there.
set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tools/lib/sent.sh
. "$WF_HOME/tools/lib/sent.sh"

usage() {
	echo "usage: $0 -m MBOX [-y]" >&2
	exit 2
}

# sent_ids: "MESSAGE-ID REV J" for every recorded message (J 0: cover).
sent_ids() {
	local k msgid j
	for k in $(sent_revisions); do
		msgid=$(sent_field "$k" message-id)
		[[ -z $msgid ]] || printf '%s %s 0\n' "$msgid" "$k"
		j=0
		sed -n 's/^Message-Id: *//Ip' "$SENT_DIR/v$k/patches.mbox" | while read -r msgid; do
			j=$((j + 1))
			printf '%s %s %s\n' "$msgid" "$k" "$j"
		done
	done
}

# replies MBOX IDS: "REV<TAB>J<TAB>TRAILER<TAB>STATUS<TAB>FROM" for every
# trailer of a reply to a recorded message (STATUS ok or mismatch).
replies() {
	python3 - "$1" "$2" <<'EOF'
import email.policy, email.utils, mailbox, re, sys

sent = {}
for line in open(sys.argv[2]):
    msgid, rev, j = line.split()
    sent[msgid.strip('<>')] = (rev, j)
TRAILER = re.compile(r'^(Reviewed-by|Acked-by|Tested-by):\s*(.*\S)\s*$', re.M | re.I)
box = mailbox.mbox(sys.argv[1], factory=None, create=False)
for msg in box:
    msg = email.message_from_bytes(msg.as_bytes(), policy=email.policy.default)
    refs = []
    for h in ('in-reply-to', 'references'):
        refs += [r.strip('<>') for r in re.findall(r'<[^>]+>', str(msg[h] or ''))]
    # The nearest recorded message: In-Reply-To first, then the
    # References from the last (the parent) back to the first.
    refs = refs[:1] + list(reversed(refs[1:]))
    target = next((sent[r] for r in refs if r in sent), None)
    if target is None:
        continue
    part = msg.get_body(('plain',))
    if part is None:
        continue
    body = part.get_content()
    sender = email.utils.parseaddr(str(msg['from'] or ''))
    for m in TRAILER.finditer(body):
        name = m.group(1).capitalize()
        value = m.group(2)
        addr = email.utils.parseaddr(value)[1].lower()
        status = 'ok' if addr and addr == sender[1].lower() else 'mismatch'
        print('\t'.join([target[0], target[1], f'{name}: {value}', status,
                         email.utils.formataddr(sender)]))
EOF
}

# patch_ids RANGE_OR_MBOX: the patch-id of each patch, in order.
sent_patch_ids() {
	git patch-id --stable <"$SENT_DIR/v$1/patches.mbox" | cut -d' ' -f1
}

# refuse MESSAGE: this run ends with nothing half-done (its marker goes),
# with MESSAGE as the error.
refuse() {
	wf_run_end
	die "$@"
}

# finish_interrupted: a killed run's marker with the tip it moved the
# branch to ("new="): when the branch is there and not exported, export it
# now (the killed run's last step).  A run killed inside its update-ref
# left git's lock on the branch (or on packed-refs, or on HEAD, which
# update-ref locks too when the branch is checked out): they go first.
finish_interrupted() {
	local tip common head
	local -a locks
	# shellcheck disable=SC2310 # wf_recovering is one test: its status is the answer
	wf_recovering || return 0
	common=$(repo_git rev-parse --path-format=absolute --git-common-dir)
	locks=("$common/refs/heads/$TOPIC_NAME.lock" "$common/packed-refs.lock")
	# shellcheck disable=SC2310 # repo_git is one git command
	head=$(repo_git symbolic-ref -q HEAD) || head=''
	[[ $head != "refs/heads/$TOPIC_NAME" ]] ||
		locks+=("$(repo_git rev-parse --path-format=absolute --git-dir)/HEAD.lock")
	remove_stale_locks "${locks[@]}"
	# shellcheck disable=SC2310 # repo_git is one git command
	tip=$(repo_git rev-parse -q --verify "refs/heads/$TOPIC_NAME") || tip=''
	# shellcheck disable=SC2310 # its status is its answer
	if [[ -n ${WF_PREV[new]:-} && $tip == "${WF_PREV[new]}" ]] && ! branch_exported "$TOPIC_NAME"; then
		wf_repaired "exporting the trailers it had added to $TOPIC_NAME"
		wf_report_repairs
		wf_run_note phase=export "new=$tip"
		"$WF_HOME/tools/export.sh"
	fi
	wf_report_repairs last
}

# check_branch: the branch TOPIC must be there, exported, and have a
# sent revision recorded.
check_branch() {
	# shellcheck disable=SC2310 # repo_git is one git command
	repo_git rev-parse -q --verify "refs/heads/$TOPIC" >/dev/null ||
		refuse "no branch $TOPIC in $WF_REPO (run: make rebuild)"
	# shellcheck disable=SC2310 # its status is its answer
	branch_exported "$TOPIC" ||
		refuse "branch $TOPIC has changes not exported to $TOPIC_PATCHDIR/ (run 'make export' first)"
	# shellcheck disable=SC2310 # its output is the answer; it does not rely on set -e
	[[ -n $(sent_revisions) ]] || refuse "no sent revision recorded in cover-letters/$WF_BRANCH/sent/: nothing to take replies to"
}

# read_branch: COMMITS of the branch, their SUBJECTS and patch-ids
# (PATCH_IDS).
read_branch() {
	local c
	mapfile -t COMMITS < <(repo_git rev-list --reverse "$BASE..refs/heads/$TOPIC")
	SUBJECTS=() PATCH_IDS=()
	for c in "${COMMITS[@]}"; do
		SUBJECTS+=("$(repo_git log -1 --format=%s "$c")")
		PATCH_IDS+=("$(repo_git show --format= "$c" | git patch-id --stable | cut -d' ' -f1)")
	done
}

# match_sent IDS: TARGET[K J], the index in COMMITS of patch J of vK as
# it was sent, for each revision K the replies IDS answer (empty: the
# patch changed since); TARGET[K count], how many patches vK had.
match_sent() {
	local k j i found
	declare -gA TARGET=()
	while read -r k; do
		j=0
		while read -r found; do
			j=$((j + 1))
			TARGET[$k $j]=''
			for ((i = 0; i < ${#COMMITS[@]}; i++)); do
				[[ ${PATCH_IDS[i]} == "$found" ]] && TARGET[$k $j]=$i && break
			done
		done < <(sent_patch_ids "$k")
		TARGET[$k count]=$j
	done < <(cut -f1 <<<"$1" | sort -un)
}

# plan_trailers IDS: for each trailer of the replies IDS, a line saying
# what becomes of it; ADD[i], the trailers commit i gets; APPLIED and
# REPORTED, how many.
plan_trailers() {
	local k j trailer st from i where n=${#COMMITS[@]}
	local -a js
	declare -gA ADD=()
	APPLIED=0 REPORTED=0
	while IFS=$'\t' read -r k j trailer st from; do
		js=("$j")
		if [[ $j -eq 0 ]]; then
			js=()
			for ((i = 1; i <= ${TARGET[$k count]}; i++)); do js+=("$i"); done
		fi
		for j in "${js[@]}"; do
			where="v$k patch $j/${TARGET[$k count]}"
			[[ ${#js[@]} -gt 1 ]] && where+=" (reply to the cover letter)"
			if [[ $st != ok ]]; then
				printf '  ! %-28s %s: not applied: the reply is from %s\n' "$where" "$trailer" "$from"
				REPORTED=$((REPORTED + 1))
				continue
			fi
			i=${TARGET[$k $j]:-}
			if [[ -z $i ]]; then
				printf '  ! %-28s %s: not applied: the patch changed since v%s\n' "$where" "$trailer" "$k"
				REPORTED=$((REPORTED + 1))
				continue
			fi
			# shellcheck disable=SC2310 # repo_git is one git command
			if repo_git log -1 --format=%B "${COMMITS[i]}" | grep -qixF "$trailer" ||
				[[ $'\n'${ADD[$i]:-} == *$'\n'"$trailer"$'\n'* ]]; then
				printf '  = %-28s %s: already there\n' "$where" "$trailer"
				continue
			fi
			ADD[$i]+="$trailer"$'\n'
			APPLIED=$((APPLIED + 1))
			printf '  + %-28s %s -> %s\n' "$where" "$trailer" "$(printf '%d/%d %s' $((i + 1)) "$n" "${SUBJECTS[i]}")"
		done
	done <<<"$1"
}

# rewrite_branch MBOX: the branch again from its base, each commit with
# the trailers ADD gives it (git interpret-trailers), the rebuild's
# committer and dates, so that the ids stay reproducible.
rewrite_branch() {
	local i c msg trailer parent n=${#COMMITS[@]}
	local -a targs
	wf_committer_env
	parent=$(repo_git rev-parse "$BASE^{commit}")
	for ((i = 0; i < n; i++)); do
		c=${COMMITS[i]}
		msg=$(repo_git log -1 --format=%B "$c")
		if [[ -n ${ADD[$i]:-} ]]; then
			targs=()
			while IFS= read -r trailer; do
				[[ -n $trailer ]] && targs+=(--trailer "$trailer")
			done <<<"${ADD[$i]}"
			msg=$(git interpret-trailers --if-exists addIfDifferent "${targs[@]}" <<<"$msg")
		fi
		# The rebuild's committer, the author date as committer date.
		parent=$(GIT_COMMITTER_DATE=$(repo_git log -1 --format=%ad --date=raw "$c") \
			recommit "$WF_REPO" "$c" "$parent" "$(repo_git log -1 --format='%an <%ae>' "$c")" <<<"$msg")
	done
	wf_run_note phase=update "new=$parent"
	repo_git update-ref -m "trailers from $1" "refs/heads/$TOPIC" "$parent" "${COMMITS[n - 1]}"
	wf_run_note phase=export "new=$parent"
}

main() {
	local mbox='' yes=0 opt tmp ids answer ver
	while getopts 'm:y' opt; do
		case $opt in
		m) mbox=$OPTARG ;;
		y) yes=1 ;;
		*) usage ;;
		esac
	done
	shift $((OPTIND - 1))
	[[ $# -eq 0 ]] || usage
	[[ -n $mbox ]] || bad_input "no mailbox: MBOX=file names the replies to a sent revision"
	[[ -f $mbox && -r $mbox ]] || bad_input "mailbox $mbox not found"
	parse_branches
	TOPIC=$TOPIC_NAME
	ver=$(package_version)
	BASE=$(base_ref "$ver")
	wf_lock trailers
	wf_run_begin trailers
	finish_interrupted
	check_branch

	tmp=$(mktemp -d)
	# shellcheck disable=SC2064 # expand now: tmp is local
	trap "rm -rf '$tmp'" EXIT
	sent_ids >"$tmp/ids"
	# shellcheck disable=SC2310 # replies is one python3 command
	ids=$(replies "$mbox" "$tmp/ids") || refuse "cannot read the mailbox $mbox"
	[[ -n $ids ]] || refuse "no Reviewed-by/Acked-by/Tested-by in $mbox in reply to a revision recorded in cover-letters/$WF_BRANCH/sent/"

	read_branch
	match_sent "$ids"
	printf 'trailers in %s:\n' "$mbox"
	plan_trailers "$ids"
	if [[ $APPLIED -eq 0 ]]; then
		info "nothing to apply ($REPORTED trailer(s) reported)"
		wf_run_end
		return 0
	fi
	if [[ $yes -eq 0 ]]; then
		printf 'Add %d trailer(s) to %s? [y/N] ' "$APPLIED" "$TOPIC" >&2
		read -r answer || { answer='' && echo >&2; }
		[[ $answer == [yY]* ]] || refuse "not applied ($APPLIED trailer(s)): answer y, or YES=1"
	fi
	wf_run_note phase=rewrite
	rewrite_branch "$mbox"
	info "added $APPLIED trailer(s) to $TOPIC ($REPORTED reported, not applied)"
	"$WF_HOME/tools/export.sh"
	wf_run_end
}

main "$@"
