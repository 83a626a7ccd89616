#!/usr/bin/env bash
# The series applied by tools/port.sh, patch by patch (git am -3 with
# rerere), stopping at a conflict, and the recorded fixups and amend!
# messages applied after it.  Sourced, never run.
# shellcheck shell=bash
# ST, the state of the port, is an associative array (tools/port.sh):
# shellcheck disable=SC2004,SC2154

# --- applying the series -----------------------------------------------------

# advance HEAD KIND: patch ST[next] is committed as HEAD; KIND (asis,
# threeway, replayed, byhand) is how.
advance() {
	local head=$1 kind=$2
	ST[$kind]=$((${ST[$kind]:-0} + 1))
	state_save status=applying "next=$((ST[next] + 1))" "head=$head" \
		"to_base=${ST[to_base]}" "from_base=${ST[from_base]}" "$(counts)"
}

# am_error OUTPUT: git am's reason, in one line.
am_error() {
	local reason
	reason=$(grep -m1 -E '^(error|fatal): ' <<<"$1" | sed -E 's/^(error|fatal): //') || true
	[[ -n $reason ]] || reason=$(grep -m1 -v -e '^$' -e '^Applying: ' <<<"$1") || true
	printf '%s\n' "${reason:-git am failed}"
}

# apply_patch I: git am -3 of patch I on HEAD.  A conflict that rerere
# resolves entirely is committed; any other stops the port.
apply_patch() {
	local i=$1 patch out files op
	local -a all
	mapfile -t all < <(series)
	patch=${all[i - 1]}
	wf_committer_env
	if out=$(git -C "$TREE" am -3 --rerere-autoupdate --committer-date-is-author-date "$patch" 2>&1); then
		if grep -q '^Falling back to patching base and 3-way merge' <<<"$out"; then
			advance "$(repo_git rev-parse HEAD)" threeway
		else
			advance "$(repo_git rev-parse HEAD)" asis
		fi
		return 0
	fi
	op=$(in_progress)
	if [[ $op != am ]]; then
		wf_run_end
		die "git am of $(patch_name "$i") failed in $TREE: $(am_error "$out")"
	fi
	files=$(unmerged | paste -sd ' ')
	if [[ -z $files ]] && ! git -C "$TREE" diff --cached --quiet; then
		# rerere resolved every conflict and staged the result.
		files=$(sed -nE "s/^(Resolved|Staged) '(.*)' using previous resolution\.$/\2/p" <<<"$out" | paste -sd ' ')
		if out=$(git -C "$TREE" am --continue 2>&1); then
			info "$(patch_name "$i"): replayed the recorded resolution of ${files:-its conflicts}"
			advance "$(repo_git rev-parse HEAD)" replayed
			return 0
		fi
		files=''
	fi
	stop_port "$i" "$files" "$out"
}

# stop_port I FILES OUTPUT: the port stops at patch I for the user: the
# state says so, the am stays in progress; one line names the patch and
# the conflicting FILES (or git am's reason), then the next commands.
stop_port() {
	local i=$1 files=$2 out=$3 name what add
	name=$(patch_name "$i")
	state_save status=stopped "next=$i" "head=${ST[head]}" "files=$files" \
		"to_base=${ST[to_base]}" "from_base=${ST[from_base]}" "$(counts)"
	wf_run_end
	if [[ -n $files ]]; then
		what="conflicts in $files"
		# -f: the tarball's .gitignore ignores every file of the tree.
		add="git -C $TREE add -f $files"
	else
		what=$(am_error "$out")
		add="git -C $TREE add -f <the files>"
	fi
	printf '%s: error: %s does not apply on %s: %s\n' "$WF_PROG" "$name" "${ST[to_base]#refs/tags/}" "$what" >&2
	info "the git am is stopped in $TREE: resolve it there, then run"
	info "  $add"
	info "  git -C $TREE am --continue"
	info "  make port FROM=$FROM TO=$TO CONTINUE=1"
	if [[ -n $files ]]; then
		info "rerere records the resolution for the next ports; 'make port FROM=$FROM TO=$TO ABORT=1' drops this port"
	else
		info "(no conflict markers: rerere cannot record this one, a new port stops here again); 'make port FROM=$FROM TO=$TO ABORT=1' drops this port"
	fi
	exit 1
}

# apply_series: git am the patches from ST[next] on.
apply_series() {
	local n
	n=$(series | wc -l)
	wf_run_note phase=apply
	[[ ${ST[next]} -gt 1 || $n -eq 0 ]] ||
		info "applying $n patch(es) of $FROM_PATCHDIR/ onto ${ST[to_base]#refs/tags/} in $TREE"
	while [[ ${ST[next]} -le $n ]]; do
		apply_patch "${ST[next]}"
	done
	repo_git update-ref refs/port/applied HEAD
	state_save status=applied "tip=$(repo_git rev-parse HEAD)" \
		"to_base=${ST[to_base]}" "from_base=${ST[from_base]}" "$(counts)"
}

# continue_stopped: the user's turn at patch ST[next] is over: commit it
# (git am --continue) unless the user did, then go on.
continue_stopped() {
	local i=${ST[next]} h=${ST[head]} head left name out op
	name=$(patch_name "$i")
	head=$(repo_git rev-parse HEAD)
	op=$(in_progress)
	if [[ $op == am ]]; then
		left=$(unmerged | paste -sd ' ')
		[[ -z $left ]] ||
			refuse "$name: still conflicts in $left (in $TREE): resolve them, 'git -C $TREE add -f' them, then make port FROM=$FROM TO=$TO CONTINUE=1"
		# shellcheck disable=SC2086 # the file names are words
		left=$(cd "$TREE" && grep -l -E '^(<<<<<<<|>>>>>>>)( |$)' -- ${ST[files]} 2>/dev/null | paste -sd ' ') || true
		[[ -z $left ]] ||
			refuse "$name: conflict markers left in $left (in $TREE): resolve them, then make port FROM=$FROM TO=$TO CONTINUE=1"
		wf_run_note phase=continue
		wf_committer_env
		out=$(git -C "$TREE" am --continue 2>&1) ||
			refuse "$name: git am --continue failed in $TREE: $(am_error "$out")"
		head=$(repo_git rev-parse HEAD)
	fi
	if [[ $head == "$h" ]]; then
		info "$name: its git am ended without a commit in $TREE; applying it again"
		state_save status=applying "next=$i" "head=$h" "to_base=${ST[to_base]}" "from_base=${ST[from_base]}" "$(counts)"
		return 0
	fi
	git -C "$TREE" merge-base --is-ancestor "$h" "$head" ||
		refuse "HEAD of $TREE is no longer on the port (not a descendant of $h); drop the port with make port FROM=$FROM TO=$TO ABORT=1"
	info "$name: committed with your resolution"
	advance "$head" byhand
}

# --- the fixups --------------------------------------------------------------

# amended_message SUBJECT SERIES: the message of the commit of the series
# refs/port/to-base..SERIES whose subject is SUBJECT, the one an amend!
# fixup of that subject rewords; nothing when no commit has it.
amended_message() {
	local subject=$1 series=$2 c
	c=$(repo_git log --format='%H %s' "refs/port/to-base..$series" |
		awk -v s="$subject" 'substr($0, 42) == s { print $1; exit }')
	[[ -z $c ]] || repo_git log -1 --format=%B "$c"
}

# record_amended_messages RESULT NOLD: beside each amend! fixup of the
# commits RESULT..HEAD (written as the fixups after the NOLD old ones), the
# message it rewords as the FROM series has it, in <fixup>.amends.
record_amended_messages() {
	local result=$1 n=$2 c subject file text
	local -a files commits
	lines_of files find_fixups "$PORT_DIR/fixups.add"
	lines_of commits git -C "$TREE" rev-list --reverse "$result..HEAD"
	for c in "${commits[@]}"; do
		file=${files[n]}
		n=$((n + 1))
		subject=$(git -C "$TREE" log -1 --format=%s "$c")
		[[ $subject == 'amend! '* ]] || continue
		text=$(amended_message "${subject#amend! }" refs/port/applied)
		[[ -n $text ]] || die "the fixup '$subject' names no commit of the port"
		printf '%s\n' "$text" >"${file%.patch}.amends"
	done
}

# find_fixups DIR: the fixup patches of DIR, in the order they apply.
find_fixups() {
	find "$1" -maxdepth 1 -name '*.patch' -type f | LC_ALL=C sort
}

# stale_amend SERIES FIXUP...: an amend! fixup replaces the whole message
# of its commit, so one written against a message the FROM series has
# changed since would silently put the old text back.  Prints why the
# first amend! that does not reword the message its .amends records (or
# has no such record) cannot be folded; nothing when all can.
stale_amend() {
	local series=$1 f subject name have
	shift
	for f; do
		subject=$(git mailinfo /dev/null /dev/null <"$f" | sed -n 's/^Subject: //p')
		[[ $subject == 'amend! '* ]] || continue
		subject=${subject#amend! }
		name=$TO_PATCHDIR/port/fixups/${f##*/}
		have=$(amended_message "$subject" "$series")
		if [[ -z $have ]]; then
			printf "the fixup 'amend! %s' names no commit of the port\n" "$subject"
		elif [[ ! -r ${f%.patch}.amends ]]; then
			printf "fixup %s rewords '%s' with no record of the message it rewords (%s): delete it, port again and make the amend! again (CONTRIBUTING.md, Port the series)\n" \
				"$name" "$subject" "${name%.patch}.amends"
		elif [[ $have != "$(cat "${f%.patch}.amends")" ]]; then
			printf "fixup %s rewords the message '%s' had; %s has changed that message since: delete the fixup and its .amends, port again and make the amend! again (CONTRIBUTING.md, Port the series)\n" \
				"$name" "$subject" "$FROM_PATCHDIR"
		else
			continue
		fi
		return 0
	done
}

# apply_fixups: the fixups on ST[tip], folded into the commits they name.
apply_fixups() {
	local out left stale
	local -a fixups
	lines_of fixups find_fixups "$PORT_DIR/fixups"
	wf_run_note phase=fixups
	reset_tree "${ST[tip]}"
	if [[ ${#fixups[@]} -gt 0 ]]; then
		stale=$(stale_amend "${ST[tip]}" "${fixups[@]}")
		if [[ -n $stale ]]; then
			wf_run_end
			die "$stale"
		fi
		wf_committer_env
		if ! out=$(git -C "$TREE" am -3 --empty=keep --committer-date-is-author-date "${fixups[@]}" 2>&1); then
			left=$(cat "$GITDIR/rebase-apply/next" 2>/dev/null) || left=1
			reset_tree "${ST[tip]}"
			wf_run_end
			die "fixup $TO_PATCHDIR/port/fixups/${fixups[left - 1]##*/} does not apply on the port: $(am_error "$out")"
		fi
		if ! out=$(GIT_SEQUENCE_EDITOR=true GIT_EDITOR=true git -C "$TREE" rebase -q -i --autosquash \
			--committer-date-is-author-date refs/port/to-base 2>&1); then
			reset_tree "${ST[tip]}"
			wf_run_end
			die "the fixups of $TO_PATCHDIR/port/fixups/ do not fold into the port: $(am_error "$out")"
		fi
		left=$(git -C "$TREE" log --format=%s refs/port/to-base..HEAD | grep -m1 -E '^(fixup|amend|squash)! ') || true
		if [[ -n $left ]]; then
			reset_tree "${ST[tip]}"
			wf_run_end
			die "the fixup '$left' names no commit of the port"
		fi
	fi
	repo_git update-ref refs/port/result HEAD
}

# save_new_fixups: after a finished port, the fixup!/amend!/squash! commits
# made on it in the port tree join the fixups (<TO dir>/port/fixups and
# them, numbered after), and the port goes back to folding the fixups.
save_new_fixups() {
	local result=${ST[result]} bad nold last
	bad=$(git -C "$TREE" log --format='%h %s' "$result..HEAD" | grep -m1 -v -E '^[0-9a-f]+ (fixup|amend|squash)! ') || true
	[[ -z $bad ]] ||
		refuse "commit $bad in $TREE is not a fixup!, amend! or squash! commit (git commit --fixup=amend:<commit>); only those are kept"
	# Kept for the user, should they not fold into the port.
	repo_git update-ref refs/port/added-fixups HEAD
	copy_dir "$WF_TOP/$TO_PATCHDIR/port/fixups" "$PORT_DIR/fixups.add"
	nold=$(find "$PORT_DIR/fixups.add" -name '*.patch' | wc -l)
	# Numbered after the highest number, not the count: after a deleted
	# fixup (a stale amend!) the count would give a number in use, and
	# the new fixup would sort among the old ones.
	last=$(find "$PORT_DIR/fixups.add" -name '[0-9][0-9][0-9][0-9]-*.patch' -printf '%f\n' |
		cut -c1-4 | LC_ALL=C sort | tail -n 1)
	# --always: an amend! commit that only rewords has no diff.
	wf_format_patch "$TREE" "$result..HEAD" "$PORT_DIR/fixups.add" --always --start-number "$((10#${last:-0} + 1))"
	record_amended_messages "$result" "$nold"
	rm -rf "$PORT_DIR/fixups"
	mv "$PORT_DIR/fixups.add" "$PORT_DIR/fixups"
	info "$(repo_git rev-list --count "$result..HEAD") new fixup(s) from $TREE (refs/port/added-fixups)"
	state_save status=applied "tip=$(repo_git rev-parse refs/port/applied)" \
		"to_base=${ST[to_base]}" "from_base=${ST[from_base]}" "$(counts)"
}
