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
# port/<FROM>..<TO>/linux at the top of the cache, a repo whose
# objects/info/alternates name the two branches' cache repos (the 3-way
# fallback finds the FROM blobs there; nothing is copied).
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
# -f (FORCE=1) drops it and starts again, with the resolutions the user
# committed in it (rerere's, replayed).
#
# Crash safety: a lock, the marker port/<FROM>..<TO>/port.run of the cache,
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

# check_ids FROM TO: bad input (exit 2) in one line on a missing, unknown or equal id.
check_ids() {
	local from=$1 to=$2 id
	[[ -n $from && -n $to ]] ||
		bad_input "FROM= and TO= are both needed, e.g. make port FROM=${TOPICS_ID[0]} TO=${TOPICS_ID[1]:-<id>} (the branches: ${TOPICS_ID[*]})"
	for id in "$from" "$to"; do
		# shellcheck disable=SC2310 # topic_index is one loop: its status is the answer
		topic_index "$id" >/dev/null ||
			bad_input "no branch '$id' in $WF_BRANCHES (the branches: ${TOPICS_ID[*]})"
	done
	[[ $from != "$to" ]] || bad_input "FROM and TO are the same branch '$from'"
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

# The port repo, its state, the start of a port; the series and the
# fixups applied.
# shellcheck source=tools/lib/port-repo.sh
. "$WF_HOME/tools/lib/port-repo.sh"
# shellcheck source=tools/lib/port-apply.sh
. "$WF_HOME/tools/lib/port-apply.sh"

# --- the result --------------------------------------------------------------

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

# drop_port WHY [keep]: forget the port in progress: state, am or rebase,
# the resolutions it recorded (not saved); the tree back at the TO base.
# With keep (FORCE=1), those resolutions stay for the port started next
# (load_rr_cache): one the user committed (git am --continue) is not lost.
drop_port() {
	local what
	what=${ST[status]:-}
	[[ $what != stopped ]] || what="stopped at $(patch_name "${ST[next]}")"
	state_save status=none
	[[ -d $GITDIR ]] || { info "$1 the port from $FROM to $TO ($what); $TO_PATCHDIR/ is unchanged"; return 0; }
	clear_git_locks
	[[ ${2:-} == keep ]] || rm -rf "$GITDIR/rr-cache" "$PORT_DIR/started" "$PORT_DIR/saved"
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

# read_options ARGS...: MODE (run, continue, abort), FORCE, FROM and TO.
read_options() {
	local -a ids=()
	MODE=run FORCE=0
	while [[ $# -gt 0 ]]; do
		case $1 in
		--continue) [[ $MODE == run ]] || usage; MODE='continue' ;;
		--abort) [[ $MODE == run ]] || usage; MODE='abort' ;;
		-f) FORCE=1 ;;
		-*) usage ;;
		*) ids+=("$1") ;;
		esac
		shift
	done
	[[ ${#ids[@]} -le 2 ]] || usage
	FROM=${ids[0]:-} TO=${ids[1]:-}
	check_ids "$FROM" "$TO"
}

# set_paths: the two topic lines' names and patch directories, their
# repositories, and the port's own directory, tree and state; the lock,
# the marker and the git helpers of lib.sh work on the port.
set_paths() {
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
	WF_CACHE=$PORT_DIR WF_REPO=$TREE
	declare -gA ST=()
}

# begin_run: the lock and marker of this run, the state of the port, and
# what an interrupted run left cleaned up.
begin_run() {
	wf_lock port
	wf_run_begin port "$PORT_DIR/*.tmp" "$PORT_DIR/*.new" "$PORT_DIR/rr-keep" "$PORT_DIR/trim" \
		"$TREE.init" "$(patch_dir_aside "$WF_TOP/$TO_PATCHDIR" port '*')" "$WF_TOP/out/port/*.tmp"
	state_load
	recover_port
	wf_report_repairs last
}

# continue_port: CONTINUE=1: on from where the port stopped, with the
# fixups made since saved; a finished port with nothing new ends the
# run here (exit 0).
continue_port() {
	case ${ST[status]:-none} in
	none) refuse "no port from $FROM to $TO to continue (run: make port FROM=$FROM TO=$TO)" ;;
	done)
		if [[ -z $(git -C "$TREE" rev-list "${ST[result]}..HEAD") ]]; then
			wf_run_end
			info "the port from $FROM to $TO is done, nothing to continue ($TO_PATCHDIR/ is written)"
			exit 0
		fi
		check_to_branch
		save_new_fixups
		;;
	*) check_to_branch ;;
	esac
}

# run_port: a port from the start (the series may have changed), unless
# one stopped for the user or has unsaved commits and FORCE is not set.
run_port() {
	local unsaved
	case ${ST[status]:-none} in
	stopped)
		[[ $FORCE -eq 1 ]] ||
			refuse "the port from $FROM to $TO is stopped at $(patch_name "${ST[next]}") in $TREE, for you to resolve: continue it with 'make port FROM=$FROM TO=$TO CONTINUE=1', drop it with 'ABORT=1', or start again with 'FORCE=1'"
		drop_port "discarded (FORCE=1)" keep
		;;
	done)
		unsaved=$(git -C "$TREE" rev-list --count "${ST[result]}..HEAD" 2>/dev/null) || unsaved=0
		[[ $unsaved -eq 0 || $FORCE -eq 1 ]] ||
			refuse "$TREE has $unsaved commit(s) on the port that are not saved: save the fixup!/amend! ones with 'make port FROM=$FROM TO=$TO CONTINUE=1', drop them with 'FORCE=1'"
		;;
	esac
	prepare_branches
	# A port of nothing would write an empty TO series.
	[[ -n $(find "$WF_TOP/$FROM_PATCHDIR" -maxdepth 1 -name '*.patch' -type f) ]] ||
		refuse "no patches in $FROM_PATCHDIR/: nothing to port ($TO_PATCHDIR/ stays as it is)"
	start_port
}

main() {
	read_options "$@"
	set_paths
	[[ $MODE != abort || -d $PORT_DIR ]] || die "no port from $FROM to $TO to drop"
	begin_run
	case $MODE in
	abort)
		[[ ${ST[status]:-none} != none ]] || refuse "no port from $FROM to $TO to drop"
		drop_port dropped
		wf_run_end
		return 0
		;;
	continue) continue_port ;;
	run) run_port ;;
	esac
	[[ ${ST[status]} != stopped ]] || continue_stopped
	[[ ${ST[status]} != applying ]] || apply_series
	finish_port
}

main "$@"
