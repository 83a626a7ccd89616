#!/usr/bin/env bash
# Write the topic branch as mailing-list messages with b4, and check them.
#
#   tools/submit.sh [-f] [-o DIR] [-r N] [-c COVER] [-S 'NAME <EMAIL>'] [-N] [-C]
#
# Never sends anything.  The messages are written with "b4 send -o" to DIR
# (default $WF_OUT/submit/vN/), one .eml file per message, with the
# cover letter as written (cover.txt) and a draft record (record); review
# them, then "make send" (tools/send.sh) sends them and records vN in
# cover-letters/<id>/sent/vN/ (tools/lib/sent.sh), or the user sends them with her
# own git send-email and records them (make record-sent).  Rehearsals
# (make rehearse) are no revisions: they count for nothing here.  The b4
# work repo's SMTP server is /bin/false on purpose.
#
# The b4 work happens in its own clone of the cache repo, $WF_CACHE/b4/linux
# (objects shared with the cache repo), never in the developer's work tree:
#   1. the topic branch is copied there and enrolled with "b4 prep -e"
#      (cover strategy branch-description: tracking and cover letter live
#      in the branch config, so rebuilding the branch keeps the change-id);
#   2. the sender is -S 'NAME <EMAIL>' (SENDER=), else git config
#      user.name/user.email; with -S, the sender takes authorship of the
#      commits whose author uses a reserved example domain (From becomes
#      the sender, such Signed-off-by lines go); commits whose last
#      Signed-off-by is not the sender get the sender's Signed-off-by; in
#      that clone only (patches/ stay as they are);
#   3. the revision is -r N, or the last one recorded in cover-letters/<id>/sent/
#      plus 1 (v1 when none), so writing a draft again keeps its number;
#      the change-id is the recorded one (else b4's enrollment's; -N,
#      NEW_CHANGE_ID=1, a new one, refused once a revision is recorded),
#      and each recorded revision is the tag
#      sent/<branch>-vK in the b4 repo, rebuilt from its record when
#      missing (a fresh cache); "b4 prep --force-revision" sets it;
#   4. the cover letter is COVER, else cover-letters/<id>/vN.txt, else the
#      highest cover-letters/<id>/vK.txt with K < N (first line subject, blank
#      line, body); from v2 on, a "Changes in vN:" section made from the
#      range-diff is appended unless the file has one;
#   5. "b4 prep --edit-cover" (with a non-interactive editor), "b4 prep
#      --auto-to-cc" (scripts/get_maintainer.pl), "b4 send -o"; each b4
#      step that may take a minute (the enrollment, --compare-to,
#      --auto-to-cc, send -o) is said in one line before it runs;
#   6. each patch message gets its own To/Cc from get_maintainer.pl on that
#      patch (plus the people in its trailers); the cover keeps the union;
#      then every To/Cc in a reserved example domain (a placeholder) goes,
#      and so does the sender herself unless -C (CC_SELF=1), each named;
#   7. round trip: git am of the patch messages onto the base must give the
#      tree of the branch tip, with the authors restored and each commit
#      signed off by its author and the sender;
#   8. the range-diff against the previous recorded revision ("b4 prep
#      --compare-to") is written next to the messages;
#   9. tools/preflight.sh: validation results, a new cover letter, no
#      reserved-domain identity or recipient (-f, FORCE=1, overrides and
#      says so);
#  10. with a patatt key (b4's own check), each message signed with it,
#      last; else one line says the mail is unsigned.
# A failure at any step leaves DIR and the recorded revisions as they were.
# The messages are written in the cache, copied beside DIR as .vN.submit-new
# and renamed to DIR last (the old DIR aside as .vN.submit-old until then),
# so DIR is never half-written; a killed run (marker $WF_CACHE/submit.run)
# is cleaned up by the next one: its scratch directories, the b4 repo's
# stale locks and git am or rebase, the swap of DIR.  A revision that
# tools/send.sh has started to send (DIR/sending) is not written again.
set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tools/lib/sent.sh
. "$WF_HOME/tools/lib/sent.sh"
# shellcheck source=tools/lib/submit-mail.sh
. "$WF_HOME/tools/lib/submit-mail.sh"

B4_DIR=${WF_B4_DIR:-$WF_CACHE/b4/linux}
B4_LOG=$B4_DIR.log
# The branch at the pristine base in the b4 repo: b4's enrollment base.
B4_BASE=wf-base
LINKMASK=https://lore.kernel.org/r/%s

usage() {
	echo "usage: $0 [-f] [-o DIR] [-r N] [-c COVER] [-S 'NAME <EMAIL>'] [-N] [-C]" >&2
	exit 2
}

b4_git() {
	git -C "$B4_DIR" "$@"
}

# run_b4 ARGS...: b4 in the b4 repo, its chatter in $B4_LOG; dies with
# b4's own complaint when it fails.
run_b4() {
	local rc=0 msg
	printf '+ b4 %s\n' "$*" >>"$B4_LOG"
	(cd "$B4_DIR" && b4 -n --offline-mode "$@") >>"$B4_LOG" 2>&1 </dev/null || rc=$?
	if [[ $rc -ne 0 ]]; then
		msg=$(grep -E 'CRITICAL|ERROR|Error|error' "$B4_LOG" | tail -n 1) || true
		die "b4 $1 $2 failed: ${msg:-exit $rc} (log: $B4_LOG)"
	fi
}

# recover_written_dirs PARENT: undo what a killed run left beside the
# written revisions in PARENT: .X.submit-old put back when X is missing,
# then the half-copied .X.submit-new and the old .X.submit-old removed.
recover_written_dirs() {
	local parent=$1 d name
	for d in "$parent"/.*.submit-old; do
		[[ -d $d ]] || continue
		name=${d##*/.}
		name=${name%.submit-old}
		[[ -e $parent/$name ]] && continue
		mv "$d" "$parent/$name"
		wf_repaired "put back ${parent#"$WF_TOP"/}/$name from ${d#"$WF_TOP"/}"
	done
	for d in "$parent"/.*.submit-new "$parent"/.*.submit-old; do
		[[ -e $d ]] || continue
		rm -rf "$d"
		wf_repaired "removed ${d#"$WF_TOP"/}"
	done
}

# recover_b4_work: what a killed run left in the cache: its scratch
# directories beside the b4 repo, and in the b4 repo its stale locks, a
# git am or rebase, changed files (recover_worktree), its editor setting.
recover_b4_work() {
	local d
	for d in "$B4_DIR".new.* "$B4_DIR".out.*; do
		[[ -e $d ]] || continue
		rm -rf "$d"
		wf_repaired "removed its scratch directory ${d#"$WF_CACHE"/}"
	done
	[[ -d $B4_DIR/.git ]] || return 0
	recover_worktree "$B4_DIR"
	# shellcheck disable=SC2310 # b4_git is one git command
	if [[ -n $(b4_git config core.editor || true) ]]; then
		b4_git config --unset core.editor
		wf_repaired "unset the cover letter editor of b4/${B4_DIR##*/}"
	fi
}

# write_out NEW OUT: make the messages in NEW (in the cache) the directory
# OUT: copied beside it first, renamed last.
write_out() {
	local new=$1 out=$2 next old
	next=${out%/*}/.${out##*/}.submit-new
	old=${out%/*}/.${out##*/}.submit-old
	mkdir -p "${out%/*}"
	rm -rf "$next"
	cp -a "$new" "$next"
	wf_run_note phase=swap "out=$out"
	[[ ! -e $out ]] || mv "$out" "$old"
	mv "$next" "$out"
	rm -rf "$old" "$new"
}

# setup_b4_repo TOPIC BASE: the clone, the base branch, the topic branch.
setup_b4_repo() {
	local topic=$1 base=$2 tmp
	mkdir -p "$(dirname "$B4_DIR")"
	if [[ ! -d $B4_DIR/.git ]]; then
		info "creating the b4 work repo $B4_DIR (first time: checks out the tree)"
		tmp=$B4_DIR.new.$$
		rm -rf "$tmp"
		git clone -q --shared "$WF_REPO" "$tmp"
		git -C "$tmp" config gc.auto 0
		mv "$tmp" "$B4_DIR"
	fi
	: >"$B4_LOG"
	# Cover letter and tracking in the branch config, not in a commit.
	b4_git config b4.prep-cover-strategy branch-description
	# A local "server" that can only fail: b4 never picks its web
	# endpoint, and nothing can leave this machine from here.
	b4_git config sendemail.smtpserver /bin/false
	b4_git config b4.linkmask "$LINKMASK"
	# shellcheck disable=SC2310 # b4_git is one git command
	[[ -z $(b4_git status --porcelain --untracked-files=no) ]] ||
		die "the b4 work repo $B4_DIR has uncommitted changes; clean it or remove it"
	b4_git fetch -q --no-tags "$WF_REPO" "+refs/heads/$topic:refs/wf/topic" "+$base:refs/wf/base"
	# shellcheck disable=SC2310 # b4_git is one git command
	if [[ $(b4_git symbolic-ref -q HEAD || true) == "refs/heads/$B4_BASE" ]]; then
		b4_git checkout -q --detach
	fi
	b4_git branch -f "$B4_BASE" refs/wf/base >/dev/null
	b4_git checkout -q -B "$topic" refs/wf/topic
}

# write_draft DIR REV COVER TREES: the cover letter as written and the
# draft record of the revision, for tools/preflight.sh and tools/send.sh.
write_draft() {
	local dir=$1 rev=$2 cover=$3 trees=$4 cid
	cp "$cover" "$dir/cover.txt"
	cid=$(b4_git config "branch.$TOPIC_NAME.b4-tracking" | jq -r '.series["change-id"]')
	{
		printf 'revision: %s\n' "$rev"
		printf 'change-id: %s\n' "$cid"
		printf 'base-tag: %s\n' "${BASE_REF#refs/tags/}"
		printf 'base-commit: %s\n' "$(b4_git rev-parse "$B4_BASE^{commit}")"
		printf 'tip-tree: %s\n' "${trees##* }"
		printf 'trees: %s\n' "$trees"
		printf 'cover: %s\n' "${cover#"$WF_TOP"/}"
		printf 'written: %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
	} >"$dir/record"
}

# print_table DIR: one row per message.
print_table() {
	local dir=$1 f n=0 subj to cc
	printf '%-3s %-72s %3s %3s\n' '#' 'subject' 'To' 'Cc'
	for f in "$dir"/*.eml; do
		subj=$(eml_header "$f" Subject)
		# shellcheck disable=SC2310 # eml_header is one pipeline; || true is for grep -c finding none
		to=$(eml_header "$f" To | tr ',' '\n' | grep -c @ || true)
		# shellcheck disable=SC2310 # eml_header is one pipeline; || true is for grep -c finding none
		cc=$(eml_header "$f" Cc | tr ',' '\n' | grep -c @ || true)
		printf '%-3s %-72s %3s %3s\n' "$(printf '%02d' "$n")" "${subj:0:72}" "$to" "$cc"
		n=$((n + 1))
	done
}

# early_preflight BASE TOPIC REV COVER: the pre-flight's checks that need
# no message (validation, the cover letter), on the branch's commits and
# before any b4 work, so that a refusal comes in seconds, not after a
# minute of b4.  The whole pre-flight runs again on the written messages.
# With FORCE=1 (PF) it says nothing unless a check FORCE does not
# override refuses (b4's EDITME).
early_preflight() {
	local base=$1 topic=$2 rev=$3 cover=$4 trees dir out rc=0
	trees=$(repo_git log --reverse --format=%T "$base..refs/heads/$topic" | tr '\n' ' ')
	dir=$(mktemp -d)
	cp "$cover" "$dir/cover.txt"
	printf 'revision: %s\ntrees: %s\ncover: %s\n' "$rev" "${trees% }" "${cover#"$WF_TOP"/}" >"$dir/record"
	out=$("$WF_HOME/tools/preflight.sh" --no-messages "${PF[@]}" "$dir" 2>&1) || rc=$?
	rm -rf "$dir"
	# (its "ok" line comes with the whole pre-flight)
	[[ $rc -eq 0 ]] || { printf '%s\n' "$out" >&2; exit "$rc"; }
}

# read_options ARG...: OUT (-o), REV (-r), COVER_OPT (-c), SENDER_OPT
# (-S), PF (-f: the pre-flight's FORCE), each checked.
read_options() {
	local opt
	OUT='' REV='' COVER_OPT='' SENDER_OPT='' PF=() NEW_CID=0 CC_SELF=0
	while getopts 'fo:r:c:S:NC' opt; do
		case $opt in
		f) PF=(-f) ;;
		N) NEW_CID=1 ;;
		C) CC_SELF=1 ;;
		o) OUT=$(realpath -m "$OPTARG") ;;
		r) REV=$OPTARG ;;
		c) COVER_OPT=$OPTARG ;;
		S) SENDER_OPT=$OPTARG ;;
		*) usage ;;
		esac
	done
	shift $((OPTIND - 1))
	[[ $# -eq 0 ]] || usage
	[[ -z $REV || $REV =~ ^[1-9][0-9]*$ ]] || bad_input "revision '$REV' is not a positive number"
	[[ -z $SENDER_OPT ]] || use_sender "$SENDER_OPT"
	command -v b4 >/dev/null || die "b4 is not installed (apt-get install b4)"
	command -v git-filter-repo >/dev/null || die "git-filter-repo is not installed (apt-get install git-filter-repo)"
}

# check_branch: TOPIC, BASE and BASE_REF, N its commits; the branch must
# exist, have commits and be exported.
check_branch() {
	parse_branches
	TOPIC=$TOPIC_NAME
	BASE=$(package_version)
	BASE=$(base_ref "$BASE")
	BASE_REF=$BASE
	# shellcheck disable=SC2310 # repo_git is one git command
	repo_git rev-parse -q --verify "$BASE" >/dev/null ||
		die "no base $BASE in $WF_REPO (run: make rebuild)"
	# shellcheck disable=SC2310 # repo_git is one git command
	repo_git rev-parse -q --verify "refs/heads/$TOPIC" >/dev/null ||
		die "no branch $TOPIC in $WF_REPO (run: make rebuild)"
	N=$(repo_git rev-list --count "$BASE..refs/heads/$TOPIC")
	[[ $N -gt 0 ]] || die "branch $TOPIC has no commits on $BASE: nothing to submit"
	# shellcheck disable=SC2310 # its status is its answer
	branch_exported "$TOPIC" ||
		die "branch $TOPIC has changes not exported to $TOPIC_PATCHDIR/ (run 'make export' first: patches/ are what gets submitted)"
}

# begin_run: the lock and the run marker; what a killed run left is
# cleaned up.
begin_run() {
	wf_lock submit
	wf_run_begin submit "$B4_DIR.new.*" "$B4_DIR.out.*" "$WF_OUT/submit/.*.submit-*"
	# shellcheck disable=SC2310 # wf_no_recovery is one test: its status is the answer
	if ! wf_no_recovery; then
		recover_b4_work
		recover_written_dirs "$WF_OUT/submit"
		[[ -z $OUT ]] || recover_written_dirs "${OUT%/*}"
	fi
	wf_report_repairs last
}

# prepare_b4: the b4 repo at the branch, enrolled with its recorded
# change-id, its prefixes, its sent tags, the authors and sign-offs;
# SENDER.
prepare_b4() {
	setup_b4_repo "$TOPIC" "$BASE"
	SENDER=$(sender)
	# shellcheck disable=SC2310 # b4_git is one git command
	if [[ -z $(b4_git config "branch.$TOPIC.b4-tracking" || true) ]]; then
		info "b4 prep -e: enrolling $TOPIC in the b4 work repo (the first time)"
		run_b4 prep -e "$B4_BASE"
		info "enrolled $TOPIC with b4 prep (change-id $(b4_git config "branch.$TOPIC.b4-tracking" | jq -r '.series["change-id"]'))"
	fi
	use_recorded_change_id
	[[ $NEW_CID -eq 0 ]] || new_change_id
	# Every branch but the first (the one upstream is asked to take) says
	# its base in the subject: [PATCH 6.12 v2 00/23].
	if [[ $TOPIC_ID != "${TOPICS_ID[0]}" ]]; then
		run_b4 prep --set-prefixes "$TOPIC_ID"
	fi
	restore_sent_tags
	[[ -z $SENDER_OPT ]] || take_authorship "$SENDER"
	add_sender_signoff "$SENDER"
}

# write_messages TMP: the messages of revision REV in TMP/msgs (b4 prep
# and send -o), the cover letter with its changelog against PREV, the
# range-diff in RD (RDNAME); checked by the round trip (TREES) and the
# pre-flight.
write_messages() {
	local tmp=$1
	cp "$COVER" "$tmp/cover.txt"
	RD='' RDNAME=''
	if [[ -n $PREV ]]; then
		RDNAME=range-diff-v$PREV-v$REV.txt
		RD=$tmp/$RDNAME
		info "b4 prep --compare-to v$PREV: the range-diff of v$REV against v$PREV"
		(cd "$B4_DIR" && b4 -n --offline-mode prep --compare-to "v$PREV") >"$RD" 2>>"$B4_LOG" ||
			die "b4 prep --compare-to v$PREV failed (log: $B4_LOG)"
		if ! grep -qiE "^changes in v$REV:" "$tmp/cover.txt"; then
			printf '\n---\n' >>"$tmp/cover.txt"
			changelog "$REV" "$PREV" "$RD" >>"$tmp/cover.txt"
		fi
	fi
	b4_git config core.editor "cp -- '$tmp/cover.txt'"
	run_b4 prep --edit-cover
	b4_git config --unset core.editor
	info "b4 prep --auto-to-cc: To/Cc of $N patch(es) from scripts/get_maintainer.pl"
	run_b4 prep --auto-to-cc
	mkdir -p "$tmp/msgs"
	info "b4 send -o: writing the cover letter and $N patch(es) as mail"
	run_b4 send --no-sign -o "$tmp/msgs"
	describe_base "$tmp/msgs" "$(package_version)"
	retarget_patches "$tmp/msgs"
	clean_recipients "$tmp/msgs" "$SENDER" "$CC_SELF"
	TREES=$(round_trip "$tmp/msgs" "$SENDER")
	write_draft "$tmp/msgs" "$REV" "$COVER" "$TREES"
	"$WF_HOME/tools/preflight.sh" "${PF[@]}" "$tmp/msgs"
	sign_messages "$tmp/msgs"
}

# report: what was written, the round trip, the authors, the range-diff.
report() {
	info "v$REV: $(find "$OUT" -name '*.eml' | wc -l) message(s) written to ${OUT#"$WF_TOP"/} (not sent: make send)"
	print_table "$OUT"
	printf 'round trip: git am of %s patch(es) onto %s gives tree %s = tree of %s: ok\n' \
		"$N" "${BASE#refs/tags/}" "${TREES##* }" "$TOPIC"
	printf 'authors restored, Signed-off-by from each author and from the sender %s\n' "$SENDER"
	if [[ -n $RDNAME ]]; then
		printf 'range-diff against v%s: %s\n' "$PREV" "${OUT#"$WF_TOP"/}/$RDNAME"
	fi
}

main() {
	local last tmp
	read_options "$@"
	check_branch
	# (the recorded revisions, not b4's tags, say which is next)
	last=$(sent_revisions | tail -n 1)
	REV=${REV:-$((${last:-0} + 1))}
	PREV=$(prev_sent_revision "$REV")
	COVER=$(pick_cover "$REV" "$COVER_OPT")
	require_cover_format "$COVER"
	early_preflight "$BASE" "$TOPIC" "$REV" "$COVER"

	begin_run
	prepare_b4
	OUT=${OUT:-$WF_OUT/submit/v$REV}
	local half
	half=$(half_sent_dir)
	[[ ${half##*/} != "v$REV" ]] ||
		die "v$REV is being sent ($(sed -n 's/^started: //p' "$half/sending")): finish sending it with 'make send' before writing it again"
	run_b4 prep --force-revision "$REV"
	tmp=$(mktemp -d "$B4_DIR.out.XXXXXX")
	# shellcheck disable=SC2064 # expand now: tmp is local
	trap "rm -rf '$tmp'" EXIT
	write_messages "$tmp"
	[[ -z $RD ]] || mv "$RD" "$tmp/msgs/"
	write_out "$tmp/msgs" "$OUT"
	wf_run_end
	report
}

main "$@"
