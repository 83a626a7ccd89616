#!/usr/bin/env bash
# Carry the series of one topic branch onto the base of another.
#
#   tools/port.sh [-f] [--continue | --abort] FROM TO
#
# FROM and TO are topic ids of branches.txt (make port FROM=6.1 TO=6.12).
# The FROM branch is rebuilt and both bases are imported first (rebuild.sh
# and base.sh, each on its branch and in its cache).  The FROM patches,
# copied aside when the port starts, are applied one by one with
# "git am -3", rerere on, in the port tree of the tool's own:
# $WF_CACHE/port/<FROM>..<TO>/linux, a repo whose objects/info/alternates
# name the two branches' cache repos (the 3-way fallback finds the FROM
# blobs there; nothing is copied).
#
# What the port remembers lives beside the TO series, in <TO dir>/port/:
#   from       the FROM id;
#   rr-cache/  rerere's recorded resolutions, copied into the port repo
#              when a port starts; those the port used or recorded are
#              written back (a new one cut down to its conflicts plus
#              three lines of context when rerere replays it so), the
#              others are dropped;
#   fixups/    fixup!/amend!/squash! commits as patch files: the edits
#              that are not conflict resolutions (a reworded message, a
#              change the TO base needs); applied after the series and
#              folded with git rebase -i --autosquash.  An amend! one
#              replaces the whole message, so <fixup>.amends beside it
#              keeps the message it rewords: when the FROM series has
#              changed that message since, the port stops and says so.
#
# A patch whose conflicts rerere cannot resolve stops the port: one line
# names the patch and the conflicting files, the git am stays in progress
# in the port tree for the user, and the next commands are printed.
# --continue finishes that am when the user has not, applies the rest,
# the fixups, writes <TO dir>/ (*.patch as tools/export.sh writes them,
# and port/; beside it, then renamed) and out/port/<FROM>..<TO>.txt (git
# range-diff of the two series), and rebuilds the TO branch from it.
# After a finished port, fixup!/amend! commits made in the port tree are
# saved into fixups/ by --continue.  --abort drops a port in progress;
# -f (FORCE=1) drops it and starts again.
#
# Crash safety: a lock, the marker $WF_CACHE/port/<FROM>..<TO>/port.run,
# and the state file beside it (status=applying|stopped|applied|done,
# next=<patch number>, head=<commit the patch goes on>).  A git am of the
# tool's own (status applying) found after a kill is dropped and the patch
# applied again; a stop at a conflict (status stopped) is the user's and
# is never dropped without --abort or -f.  Commit ids are reproducible:
# fixed committer, committer date = author date.
set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/lib.sh"

usage() {
	echo "usage: $0 [-f] [--continue | --abort] FROM TO" >&2
	exit 2
}

# refuse MESSAGE: this run ends with nothing half-done (its marker goes),
# with MESSAGE as the error.
refuse() {
	wf_run_end
	die "$@"
}

# --- the two branches --------------------------------------------------------

# topic_index ID: the index of the topic ID in the TOPICS_* arrays.
topic_index() {
	local i
	for i in "${!TOPICS_ID[@]}"; do
		[[ ${TOPICS_ID[i]} != "$1" ]] || { printf '%s\n' "$i"; return 0; }
	done
	return 1
}

# check_ids FROM TO: die in one line on a missing, unknown or equal id.
check_ids() {
	local from=$1 to=$2 id
	[[ -n $from && -n $to ]] ||
		die "FROM= and TO= are both needed, e.g. make port FROM=${TOPICS_ID[0]} TO=${TOPICS_ID[1]:-<id>} (the branches: ${TOPICS_ID[*]})"
	for id in "$from" "$to"; do
		# shellcheck disable=SC2310 # topic_index is one loop: its status is the answer
		topic_index "$id" >/dev/null ||
			die "no branch '$id' in $WF_BRANCHES (the branches: ${TOPICS_ID[*]})"
	done
	[[ $from != "$to" ]] || die "FROM and TO are the same branch '$from'"
}

# on_branch ID COMMAND...: run COMMAND on the topic branch ID, in its own
# cache (never the port's, never a WF_REPO of the environment).
on_branch() {
	local id=$1
	shift
	env -u WF_REPO -u WF_REBUILD_TREE WF_BRANCH="$id" WF_CACHE="$WF_CACHE_ROOT" "$@"
}

# check_to_branch: die when the TO branch has commits that were never
# exported: the port would replace the patches they came from.
check_to_branch() {
	local tip exported
	tip=$(git -C "$TO_REPO" rev-parse -q --verify "refs/heads/$TO_NAME" 2>/dev/null) || return 0
	exported=$(git -C "$TO_REPO" rev-parse -q --verify refs/wf/exported 2>/dev/null) || return 0
	[[ $tip == "$exported" ]] ||
		refuse "branch $TO_NAME has commits not exported to $TO_PATCHDIR/, which the port would replace (run 'make export BRANCH=$TO' first, or 'make rebuild BRANCH=$TO FORCE=1' to discard them)"
}

# prepare_branches: the FROM branch rebuilt from its patches, the TO base
# imported; sets FROM_BASE and TO_BASE (their refs).
prepare_branches() {
	# Their errors are their own, in one line.
	# shellcheck disable=SC2310 # on_branch is one command
	FROM_BASE=$(on_branch "$FROM" "$WF_HOME/tools/base.sh") || { wf_run_end; exit 1; }
	# shellcheck disable=SC2310 # on_branch is one command
	on_branch "$FROM" "$WF_HOME/tools/rebuild.sh" || { wf_run_end; exit 1; }
	# shellcheck disable=SC2310 # on_branch is one command
	TO_BASE=$(on_branch "$TO" "$WF_HOME/tools/base.sh") || { wf_run_end; exit 1; }
	check_to_branch
}

# --- the port repo and its state ---------------------------------------------

# init_port_repo: the port repo (made aside and renamed), its alternates
# and its settings.
init_port_repo() {
	local tmp=$TREE.init
	if [[ ! -d $TREE/.git ]]; then
		rm -rf "$tmp"
		mkdir -p "$PORT_DIR"
		git init -q "$tmp"
		rm -rf "$TREE"
		mv "$tmp" "$TREE"
	fi
	printf '%s\n' "$FROM_REPO/.git/objects" "$TO_REPO/.git/objects" >"$GITDIR/objects/info/alternates.tmp"
	mv -f "$GITDIR/objects/info/alternates.tmp" "$GITDIR/objects/info/alternates"
	repo_git config core.autocrlf false
	repo_git config gc.auto 0
	repo_git config rerere.enabled true
	repo_git config rerere.autoupdate true
	repo_git config commit.gpgSign false
	# The user's "git am --continue" gives the commit a run of the tool
	# would have made (the date comes from the am's own options).
	repo_git config user.name "${WF_COMMITTER_NAME:-sysctl-wf}"
	repo_git config user.email "${WF_COMMITTER_EMAIL:-sysctl-wf@localhost}"
}

# state_load: the state file into ST (empty: no port).
state_load() {
	local line
	ST=()
	[[ -e $STATE ]] || return 0
	while IFS= read -r line; do
		[[ $line == *=* ]] && ST[${line%%=*}]=${line#*=}
	done <"$STATE"
	return 0
}

# state_save KEY=VALUE...: replace the state file (atomically).
state_save() {
	printf '%s\n' "$@" >"$STATE.tmp"
	mv -f "$STATE.tmp" "$STATE"
	state_load
}

# counts: the tallies kept in the state from patch to patch.
counts() {
	printf '%s\n' "asis=${ST[asis]:-0}" "threeway=${ST[threeway]:-0}" \
		"replayed=${ST[replayed]:-0}" "byhand=${ST[byhand]:-0}"
}

# series: the patches of the port, in order (its copy of the FROM series).
series() {
	find "$PORT_DIR/series" -maxdepth 1 -name '*.patch' -type f | LC_ALL=C sort
}

# patch_name I: the FROM patch I (1-based) as the user knows it.
patch_name() {
	local -a all
	mapfile -t all < <(series)
	printf '%s/%s\n' "$FROM_PATCHDIR" "${all[$1 - 1]##*/}"
}

# in_progress: the git operation in progress in the port tree (am, rebase),
# or nothing.
in_progress() {
	if [[ -d $GITDIR/rebase-apply ]]; then
		echo am
	elif [[ -d $GITDIR/rebase-merge ]]; then
		echo rebase
	fi
}

# unmerged: the unmerged paths of the port tree, one per line.
unmerged() {
	repo_git diff --name-only --diff-filter=U
}

# clear_git_locks: remove the lock files a killed git left in the port
# repo (none is held: this run holds the port's lock).
clear_git_locks() {
	local -a locks
	[[ -d $GITDIR ]] || return 0
	mapfile -t locks < <(find "$GITDIR" -path "$GITDIR/objects" -prune -o -name '*.lock' -print | LC_ALL=C sort)
	[[ ${#locks[@]} -eq 0 ]] || remove_stale_locks "${locks[@]}"
}

# reset_tree COMMIT: drop any git am or rebase and rerere's state of the
# conflicts in progress, check COMMIT out, remove what is not in it.
reset_tree() {
	rm -rf "$GITDIR/rebase-apply" "$GITDIR/rebase-merge" "$GITDIR/MERGE_RR"
	repo_git checkout -q -f --detach "$1"
	repo_git clean -q -f -f -d -x
}

# --- starting a port ---------------------------------------------------------

# copy_dir SRC DEST [GLOB]: DEST becomes a copy of the files of SRC that
# match GLOB (default all; SRC may be missing), written aside and renamed.
copy_dir() {
	local src=$1 dest=$2 glob=${3:-*} f
	rm -rf "$dest.new"
	mkdir -p "$dest.new"
	if [[ -d $src ]]; then
		for f in "$src"/$glob; do
			[[ -e $f ]] && cp -a "$f" "$dest.new/"
		done
	fi
	rm -rf "$dest"
	mv "$dest.new" "$dest"
}

# unsaved_resolutions: the rr-cache entries (directories) that the last
# port used or recorded since it started ($PORT_DIR/started) or last
# wrote the patches ($PORT_DIR/saved), one per line.
unsaved_resolutions() {
	local since=$PORT_DIR/started
	[[ -e $since && -d $GITDIR/rr-cache ]] || return 0
	[[ ! $PORT_DIR/saved -nt $since ]] || since=$PORT_DIR/saved
	find "$GITDIR/rr-cache" -name 'postimage*' -type f -newer "$since" -printf '%h\n' |
		LC_ALL=C sort -u
}

# load_rr_cache: the port repo's rr-cache becomes the recorded resolutions
# of <TO dir>/port/rr-cache and those the previous port of this repo used
# or recorded and did not save (it was interrupted, or started again
# before it finished: the user's resolutions are not lost), all dated long
# ago: those this port uses or records are then the ones newer than
# $PORT_DIR/started.
load_rr_cache() {
	local saved=$WF_TOP/$TO_PATCHDIR/port/rr-cache keep=$PORT_DIR/rr-keep d
	if [[ ! -d $keep ]]; then
		rm -rf "$keep.new"
		mkdir -p "$keep.new"
		while IFS= read -r d; do
			cp -R "$d" "$keep.new/"
		done < <(unsaved_resolutions)
		mv "$keep.new" "$keep"
	fi
	rm -rf "$GITDIR/rr-cache" "$GITDIR/MERGE_RR"
	mkdir -p "$GITDIR/rr-cache"
	[[ ! -d $saved ]] || cp -R "$saved/." "$GITDIR/rr-cache/"
	cp -R "$keep/." "$GITDIR/rr-cache/"
	find "$GITDIR/rr-cache" -type f -exec touch -d @0 {} +
	touch "$PORT_DIR/started"
	rm -rf "$keep"
}

# load_fixups: the fixups of <TO dir>/port/fixups, when they were made for
# this FROM series.
load_fixups() {
	local saved=$WF_TOP/$TO_PATCHDIR/port from=''
	[[ ! -r $saved/from ]] || from=$(cat "$saved/from")
	if [[ -d $saved/fixups && -n $from && $from != "$FROM" ]]; then
		info "the fixups in $TO_PATCHDIR/port/fixups/ are for the port from $from, not $FROM: not applied"
		copy_dir /nonexistent "$PORT_DIR/fixups"
		return 0
	fi
	copy_dir "$saved/fixups" "$PORT_DIR/fixups"
}

# start_port: a new port: the series and fixups copied aside, the recorded
# resolutions loaded, the tree at the TO base.
start_port() {
	local base
	wf_run_note phase=setup
	init_port_repo
	repo_git update-ref refs/port/from-base "$(git -C "$FROM_REPO" rev-parse "$FROM_BASE^{commit}")"
	repo_git update-ref refs/port/from "$(git -C "$FROM_REPO" rev-parse "refs/heads/$FROM_NAME")"
	base=$(git -C "$TO_REPO" rev-parse "$TO_BASE^{commit}")
	repo_git update-ref refs/port/to-base "$base"
	state_save status=setup
	copy_dir "$WF_TOP/$FROM_PATCHDIR" "$PORT_DIR/series" '*.patch'
	load_fixups
	load_rr_cache
	info "checking out ${TO_BASE#refs/tags/} in $TREE"
	reset_tree "$base"
	state_save status=applying next=1 "head=$base" "to_base=$TO_BASE" "from_base=$FROM_BASE" \
		asis=0 threeway=0 replayed=0 byhand=0
}

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

# --- the result --------------------------------------------------------------

# replays_elsewhere PRE POST TPRE TPOST DIR: rerere's merge (that of git
# merge-file) with the cut-down pair TPRE, TPOST gives what it gives with
# the whole pair PRE, POST: on PRE itself, and on PRE with one line
# changed at the start, at a quarter, half, three quarters and at the
# end (a port after an edit elsewhere in the file).
replays_elsewhere() {
	local pre=$1 post=$2 tpre=$3 tpost=$4 dir=$5 n at
	n=$(wc -l <"$pre")
	for at in 0 1 $((n / 4)) $((n / 2)) $((n * 3 / 4)) "$n"; do
		if [[ $at -eq 0 ]]; then
			cp "$pre" "$dir/cur"
		else
			sed "${at}s/\$/ (port check)/" "$pre" >"$dir/cur"
		fi
		# A line of the conflict itself: the whole pair conflicts too.
		git merge-file -p "$dir/cur" "$pre" "$post" >"$dir/want" 2>/dev/null || continue
		git merge-file -p "$dir/cur" "$tpre" "$tpost" >"$dir/got" 2>/dev/null || return 1
		cmp -s "$dir/got" "$dir/want" || return 1
	done
}

# trim_rr_pair PRE POST DEST: PRE and POST (a preimage and its postimage)
# into DEST, as their lines around the resolution (three of context) when
# rerere replays them so (replays_elsewhere), else whole: xdiff does not
# find a small image in a large file of many repeated lines (MAINTAINERS).
trim_rr_pair() {
	local pre=$1 post=$2 dest=$3 tmp=$PORT_DIR/trim
	mkdir -p "$tmp"
	diff -U3 "$pre" "$post" >"$tmp/diff" || true
	tail -n +3 "$tmp/diff" | grep -v -e '^@@' -e '^[\\]' >"$tmp/hunks" || true
	sed -n 's/^[ -]//p' "$tmp/hunks" >"$tmp/pre"
	sed -n 's/^[ +]//p' "$tmp/hunks" >"$tmp/post"
	# shellcheck disable=SC2310 # replays_elsewhere's status is the answer
	if [[ -s $tmp/pre ]] && replays_elsewhere "$pre" "$post" "$tmp/pre" "$tmp/post" "$tmp"; then
		cp "$tmp/pre" "$dest/${pre##*/}"
		cp "$tmp/post" "$dest/${post##*/}"
	else
		cp "$pre" "$post" "$dest/"
	fi
	rm -rf "$tmp"
}

# save_rr_cache DEST: the resolutions this port used or recorded into
# DEST/rr-cache (cut down by trim_rr_pair).
save_rr_cache() {
	local dest=$1/rr-cache post id pre
	while IFS= read -r post; do
		id=${post%/*}
		id=${id##*/}
		pre=${post%/*}/pre${post##*/post}
		[[ -e $pre ]] || continue
		mkdir -p "$dest/$id"
		trim_rr_pair "$pre" "$post" "$dest/$id"
	done < <(find "$GITDIR/rr-cache" -name 'postimage*' -type f -newer "$PORT_DIR/started" | LC_ALL=C sort)
	return 0
}

# save_patches: <TO dir>/ becomes the port's patches, its other files
# (README.md) and port/ (from, rr-cache, fixups): written beside it and
# swapped in with two renames.  Prints how many patch files changed.
save_patches() {
	local dir=$WF_TOP/$TO_PATCHDIR new f changed
	new=$(patch_dir_aside "$dir" port new)
	wf_run_note phase=save
	rm -rf "$new"
	mkdir -p "$new/port"
	if [[ -d $dir ]]; then
		for f in "$dir"/* "$dir"/.[!.]*; do
			[[ -e $f && $f != *.patch && ${f##*/} != port ]] && cp -a "$f" "$new/"
		done
	fi
	wf_format_patch "$TREE" "refs/port/to-base..refs/port/result" "$new"
	printf '%s\n' "$FROM" >"$new/port/from"
	save_rr_cache "$new/port"
	if [[ -n $(find "$PORT_DIR/fixups" -name '*.patch') ]]; then
		mkdir -p "$new/port/fixups"
		cp -a "$PORT_DIR/fixups/." "$new/port/fixups/"
	fi
	changed=$(count_patch_changes "$dir" "$new")
	swap_in_patch_dir "$dir" "$new" port
	printf '%s\n' "$changed"
}

# write_range_diff: out/port/<FROM>..<TO>.txt, the range-diff of the FROM
# series and the port (written aside, renamed).  Prints its path.
write_range_diff() {
	local out=$WF_TOP/out/port/$FROM..$TO.txt
	mkdir -p "${out%/*}"
	repo_git -c core.abbrev=12 range-diff --no-color \
		refs/port/from-base..refs/port/from refs/port/to-base..refs/port/result >"$out.tmp"
	mv -f "$out.tmp" "$out"
	printf '%s\n' "${out#"$WF_TOP"/}"
}

# finish_port: the fixups, the patches, the range-diff, then the TO branch
# rebuilt from the patches.
finish_port() {
	local changed rd n nf
	apply_fixups
	changed=$(save_patches)
	# What it used is saved: a port started after this one keeps only
	# the resolutions recorded after it (load_rr_cache).
	touch "$PORT_DIR/saved"
	rd=$(write_range_diff)
	state_save status=done "result=$(repo_git rev-parse refs/port/result)" \
		"to_base=${ST[to_base]}" "from_base=${ST[from_base]}" "$(counts)"
	wf_run_end
	n=$(repo_git rev-list --count refs/port/to-base..refs/port/result)
	nf=$(find "$PORT_DIR/fixups" -name '*.patch' | wc -l)
	info "ported $n patch(es) of $FROM_PATCHDIR/ onto ${ST[to_base]#refs/tags/}: ${ST[asis]} as they were, ${ST[threeway]} through a 3-way merge, ${ST[replayed]} with a recorded resolution, ${ST[byhand]} resolved by hand; $nf fixup(s)"
	info "wrote $TO_PATCHDIR/ ($changed patch file(s) changed) and $rd"
	env -u WF_REPO -u WF_REBUILD_TREE WF_BRANCH="$TO" WF_CACHE="$WF_CACHE_ROOT" "$WF_HOME/tools/rebuild.sh" ||
		die "$TO_PATCHDIR/ is written, but the branch $TO_NAME was not rebuilt from it (the line above says why); then run make rebuild BRANCH=$TO"
}

# --- ending a port -----------------------------------------------------------

# drop_port WHY: forget the port in progress: state, am or rebase, the
# resolutions it recorded (not saved); the tree back at the TO base.
drop_port() {
	local what
	what=${ST[status]:-}
	[[ $what != stopped ]] || what="stopped at $(patch_name "${ST[next]}")"
	state_save status=none
	[[ -d $GITDIR ]] || return 0
	clear_git_locks
	rm -rf "$GITDIR/rr-cache" "$PORT_DIR/started" "$PORT_DIR/saved"
	# shellcheck disable=SC2310 # repo_git is one git command
	if repo_git rev-parse -q --verify refs/port/to-base >/dev/null; then
		reset_tree refs/port/to-base
	else
		rm -rf "$GITDIR/rebase-apply" "$GITDIR/rebase-merge" "$GITDIR/MERGE_RR"
	fi
	info "$1 the port from $FROM to $TO ($what) in $TREE; $TO_PATCHDIR/ is unchanged"
}

# --- recovery ----------------------------------------------------------------

# recover_port: clean what a killed run left (its marker is there).
recover_port() {
	local head op
	[[ -n ${WF_PREV_RUN:-} ]] || return 0
	clear_git_locks
	recover_patch_dir "$WF_TOP/$TO_PATCHDIR" port
	rm -f "$WF_TOP/out/port/$FROM..$TO.txt.tmp" "$STATE.tmp"
	rm -rf "$PORT_DIR/series.new" "$PORT_DIR/fixups.new" "$PORT_DIR/fixups.add" "$PORT_DIR/trim" \
		"$PORT_DIR/rr-keep.new" "$TREE.init"
	[[ -d $GITDIR ]] || return 0
	case ${ST[status]:-none} in
	setup)
		state_save status=none
		wf_repaired "dropped its half-made start of the port"
		;;
	applying)
		# The tool's own git am: applied again from its parent.
		op=$(in_progress)
		[[ -z $op ]] || wf_repaired "dropped the git am in progress in ${TREE#"$WF_CACHE"/}"
		reset_tree "${ST[head]}"
		;;
	stopped)
		head=$(repo_git rev-parse HEAD)
		if [[ $head == "${ST[head]}" ]]; then
			wf_repaired "kept the git am stopped at $(patch_name "${ST[next]}") (yours) in $TREE"
		else
			# The resolution is committed: the am may still be there.
			op=$(in_progress)
			[[ -z $op ]] || git -C "$TREE" am --quit
			wf_repaired "kept your resolution of $(patch_name "${ST[next]}"), committed"
			advance "$head" byhand
		fi
		;;
	applied)
		op=$(in_progress)
		[[ -z $op ]] || wf_repaired "dropped the $op of the fixups in ${TREE#"$WF_CACHE"/}"
		reset_tree "${ST[tip]}"
		;;
	esac
}

# --- main --------------------------------------------------------------------

main() {
	local mode=run force=0 ids=() unsaved
	while [[ $# -gt 0 ]]; do
		case $1 in
		--continue) [[ $mode == run ]] || usage; mode='continue' ;;
		--abort) [[ $mode == run ]] || usage; mode='abort' ;;
		-f) force=1 ;;
		-*) usage ;;
		*) ids+=("$1") ;;
		esac
		shift
	done
	[[ ${#ids[@]} -le 2 ]] || usage
	FROM=${ids[0]:-} TO=${ids[1]:-}
	check_ids "$FROM" "$TO"
	local fidx tidx
	fidx=$(topic_index "$FROM") tidx=$(topic_index "$TO")
	FROM_NAME=${TOPICS_NAME[fidx]} FROM_PATCHDIR=${TOPICS_PATCHDIR[fidx]}
	TO_NAME=${TOPICS_NAME[tidx]} TO_PATCHDIR=${TOPICS_PATCHDIR[tidx]}
	FROM_REPO=$WF_CACHE_ROOT/branches/$FROM/linux
	TO_REPO=$WF_CACHE_ROOT/branches/$TO/linux
	PORT_DIR=$WF_CACHE_ROOT/port/$FROM..$TO
	TREE=$PORT_DIR/linux
	GITDIR=$TREE/.git
	STATE=$PORT_DIR/state
	# The lock, the marker and the git helpers of lib.sh work on the port.
	WF_CACHE=$PORT_DIR WF_REPO=$TREE
	declare -gA ST=()

	if [[ $mode == abort ]]; then
		[[ -d $PORT_DIR ]] || die "no port from $FROM to $TO to drop"
	fi
	wf_lock port
	wf_run_begin port
	state_load
	recover_port
	wf_report_repairs last

	case $mode in
	abort)
		[[ ${ST[status]:-none} != none ]] || refuse "no port from $FROM to $TO to drop"
		drop_port dropped
		wf_run_end
		return 0
		;;
	continue)
		case ${ST[status]:-none} in
		none) refuse "no port from $FROM to $TO to continue (run: make port FROM=$FROM TO=$TO)" ;;
		done)
			if [[ -z $(git -C "$TREE" rev-list "${ST[result]}..HEAD") ]]; then
				wf_run_end
				info "the port from $FROM to $TO is done, nothing to continue ($TO_PATCHDIR/ is written)"
				return 0
			fi
			check_to_branch
			save_new_fixups
			;;
		*) check_to_branch ;;
		esac
		;;
	run)
		case ${ST[status]:-none} in
		stopped)
			[[ $force -eq 1 ]] ||
				refuse "the port from $FROM to $TO is stopped at $(patch_name "${ST[next]}") in $TREE, for you to resolve: continue it with 'make port FROM=$FROM TO=$TO CONTINUE=1', drop it with 'ABORT=1', or start again with 'FORCE=1'"
			drop_port "discarded (FORCE=1)"
			;;
		done)
			unsaved=$(git -C "$TREE" rev-list --count "${ST[result]}..HEAD" 2>/dev/null) || unsaved=0
			[[ $unsaved -eq 0 || $force -eq 1 ]] ||
				refuse "$TREE has $unsaved commit(s) on the port that are not saved: save the fixup!/amend! ones with 'make port FROM=$FROM TO=$TO CONTINUE=1', drop them with 'FORCE=1'"
			;;
		esac
		# Always from the start: the series may have changed.
		prepare_branches
		# A port of nothing would write an empty TO series.
		[[ -n $(find "$WF_TOP/$FROM_PATCHDIR" -maxdepth 1 -name '*.patch' -type f) ]] ||
			refuse "no patches in $FROM_PATCHDIR/: nothing to port ($TO_PATCHDIR/ stays as it is)"
		start_port
		;;
	esac
	[[ ${ST[status]} != stopped ]] || continue_stopped
	[[ ${ST[status]} != applying ]] || apply_series
	finish_port
}

main "$@"
