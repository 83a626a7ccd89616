#!/usr/bin/env bash
# The runner of the per-commit checks: every check directory of checks/
# on every commit of the topic branch, every result cached.
#
#   runner/validate.sh [-o OUTDIR] [-c CHECK,...] [RANGE]
#   runner/validate.sh -k RESULT [RANGE]
#
# RANGE defaults to base..branch; CHECKs are the result names (the check
# directories, a per-config check once per config of configs/matrix.txt;
# default: all).  Exit status: 0 every result passed (or was skipped), 1
# a check failed on a commit, 2 bad input, 3 an infrastructure error
# (a check could not run: disk full, a broken tool; never cached).
# -k prints "TREE DIR": the tree of the last commit and the directory of
# the files RESULT's result there keeps (build: its kernel), from the
# cache alone (nothing runs, nothing is written); exit 1 when that
# result, or one it depends on, is not cached or kept nothing.
#
# A check is a directory with an executable "run" and a "conf"
# (doc/checks.md describes both and the environment a
# check gets).  The commits are checked out in a worktree of the cache
# repo ($WF_CACHE/validate-tree; the developer's work tree is never
# touched).  Checks with a build directory build in
# $WF_CACHE/validate/build/<result>, incrementally from commit to commit
# (ccache).  A result is cached in $WF_CACHE/validate/results/<result>/
# under a key made of the commit's tree, its parent's tree, a hash of the
# check's directory and of what its conf declares (the paths it uses, its
# config's fragments, tool versions, the message, the result it compares
# with or needs).  Writes OUTDIR/report.txt, OUTDIR/report.html,
# OUTDIR/results.json (default OUTDIR: $WF_TOP/out/validate) and the
# start time of every step in OUTDIR/timings.tsv.  No step is silent for
# more than WF_PROGRESS_INTERVAL seconds (default 15); WF_VERBOSE=1 (make
# V=1) shows the checks' logs live.  WF_CHECKS_DIR names another checks
# directory.
set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/../tools/lib.sh"
# shellcheck source=runner/lib.sh
. "$WF_HOME/runner/lib.sh"

CHECKS_DIR=${WF_CHECKS_DIR:-$WF_HOME/checks}
CONFIGS_DIR=${WF_CONFIGS_DIR:-$WF_HOME/configs}
MATRIX=$CONFIGS_DIR/matrix.txt
TREE=$WF_CACHE/validate-tree
RESULTS=$WF_CACHE/validate/results
BUILDROOT=$WF_CACHE/validate/build
SCHEMA=3
EVERY=${WF_PROGRESS_INTERVAL:-15}
BEAT_PID=''
# FAIL_FAST (make FAIL_FAST=1): stop at the first failing result.
FAIL_FAST=${WF_FAIL_FAST:-0}
# The reports are written again while the run goes on, at most this often.
STREAM_EVERY=${WF_REPORT_INTERVAL:-5}
# Where the reports go (empty: -k, no report); running, done or stopped.
OUTDIR='' RUN_STATE='' UNPUBLISHED=''
# goto_commit's: the tree is at HEAD's files; the disk was full.
TREE_SYNCED='' CHECKOUT_FULL=''

usage() {
	cat >&2 <<-'EOF'
	usage: runner/validate.sh [-o OUTDIR] [-c CHECK,...] [RANGE]
	       runner/validate.sh -k RESULT [RANGE]
	EOF
	exit 2
}

# ---------------------------------------------------------------- checks

# parse_conf NAME FILE: the declarations of check NAME (C_* arrays).
parse_conf() {
	local name=$1 file=$2 line lineno=0 word rest row
	C_ORDER[$name]=50
	[[ -e $file ]] || return 0
	while IFS= read -r line || [[ -n $line ]]; do
		lineno=$((lineno + 1))
		[[ $line =~ ^[[:space:]]*(#|$) ]] && continue
		read -r word rest <<<"$line"
		case $word in
		order) [[ $rest =~ ^[0-9]+$ ]] || bad_input "$file:$lineno: order takes a number, not '$rest'"
			C_ORDER[$name]=$rest ;;
		per-config | baseline | compare | build-dir | tip)
			[[ -z $rest ]] || bad_input "$file:$lineno: '$word' takes no argument"
			case $word in
			per-config) C_per_config[$name]=1 ;;
			baseline) C_baseline[$name]=1 ;;
			tip) C_tip[$name]=1 ;;
			compare) C_compare[$name]=1 ;;
			build-dir) C_build_dir[$name]=1 ;;
			esac ;;
		config) row=$(vl_matrix_row "$MATRIX" "$rest")
			[[ -n $row ]] || bad_input "$file:$lineno: unknown config '$rest' (see $MATRIX)"
			C_CONFIG[$name]=$rest ;;
		configs) [[ -n $rest ]] || bad_input "$file:$lineno: 'configs' takes 'all' or config names"
			for word in $rest; do
				[[ $word == all || " ${PER_COMMIT[*]} " == *" $word "* ]] ||
					bad_input "$file:$lineno: '$word' is not a per-commit config (see $MATRIX)"
			done
			C_CONFIGS[$name]=" $rest " ;;
		needs) C_NEEDS[$name]=$rest ;;
		keep) [[ -n $rest ]] || bad_input "$file:$lineno: 'keep' takes paths in the build directory"
			for word in $rest; do
				[[ $word != /* && /$word/ != */../* ]] ||
					bad_input "$file:$lineno: keep '$word': a path inside the build directory"
			done
			C_KEEP[$name]+="$rest " ;;
		uses) for word in $rest; do
				[[ -e $WF_HOME/$word ]] || bad_input "$file:$lineno: '$word' does not exist in $WF_HOME"
			done
			C_USES[$name]+="$rest " ;;
		version) C_VERSIONS[$name]+="$rest"$'\n' ;;
		key) [[ $rest == message ]] || bad_input "$file:$lineno: 'key' takes 'message', not '$rest'"
			C_KEYMSG[$name]=1 ;;
		*) bad_input "$file:$lineno: unknown declaration '$word'" ;;
		esac
	done <"$file"
}

# load_checks: the check directories of CHECKS_DIR, and the results they
# give, in table order (RESULT_NAMES; R_CHECK, R_CONFIG).
load_checks() {
	local dir name r cfg dep
	local -a names
	# shellcheck disable=SC2034 # C_baseline, C_compare, C_build_dir, C_tip, C_KEYMSG: read through flag()
	declare -gA C_ORDER=() C_per_config=() C_baseline=() C_compare=() C_build_dir=() C_tip=() C_CONFIG=() \
		C_CONFIGS=() C_NEEDS=() C_USES=() C_VERSIONS=() C_KEYMSG=() C_KEEP=() R_CHECK=() R_CONFIG=() \
		R_OF=() R_NEEDS=()
	[[ -r $MATRIX ]] || bad_input "cannot read the config matrix $MATRIX"
	mapfile -t PER_COMMIT < <(vl_matrix_configs "$MATRIX")
	names=()
	for dir in "$CHECKS_DIR"/*/; do
		dir=${dir%/}
		name=${dir##*/}
		[[ -e $dir/run ]] || continue
		[[ -x $dir/run ]] || bad_input "$dir/run is not executable"
		[[ $name =~ ^[a-z0-9][a-z0-9_-]*$ ]] || bad_input "check directory '$name': use a-z, 0-9, _ and -"
		parse_conf "$name" "$dir/conf"
		[[ ${C_per_config[$name]:+1}${C_CONFIGS[$name]:+1}${C_CONFIG[$name]:+1} != 1?* ]] ||
			bad_input "$dir/conf: declare one of 'per-config', 'configs' and 'config'"
		[[ -z ${C_KEEP[$name]:-} || -n ${C_build_dir[$name]:-} ]] ||
			bad_input "$dir/conf: 'keep' names files of the build directory: declare 'build-dir'"
		names+=("$name")
	done
	[[ ${#names[@]} -gt 0 ]] || bad_input "no check directories in $CHECKS_DIR"
	RESULT_NAMES=()
	while read -r _ name; do
		if [[ -n ${C_per_config[$name]:-} ]]; then
			for cfg in "${PER_COMMIT[@]}"; do add_result "$cfg" "$name" "$cfg"; done
		elif [[ -n ${C_CONFIGS[$name]:-} ]]; then
			for cfg in "${PER_COMMIT[@]}"; do
				[[ ${C_CONFIGS[$name]} == *" all "* || ${C_CONFIGS[$name]} == *" $cfg "* ]] || continue
				add_result "$name-$cfg" "$name" "$cfg"
			done
		else
			add_result "$name" "$name" "${C_CONFIG[$name]:-}"
		fi
	done < <(for name in "${names[@]}"; do printf '%s %s\n' "${C_ORDER[$name]}" "$name"; done |
		LC_ALL=C sort -k1,1n -k2,2)
	# What each result needs: a result, or a check that runs per config:
	# its result in the same config.
	for r in "${RESULT_NAMES[@]}"; do
		name=${R_CHECK[$r]} cfg=${R_CONFIG[$r]}
		dep=${C_NEEDS[$name]:-}
		[[ -n $dep ]] || continue
		if [[ -n ${R_CHECK[$dep]:-} ]]; then
			R_NEEDS[$r]=$dep
		elif [[ -n ${C_per_config[$dep]:-}${C_CONFIGS[$dep]:-} && -n ${R_OF[$dep,$cfg]:-} ]]; then
			R_NEEDS[$r]=${R_OF[$dep,$cfg]}
		elif [[ -n ${C_per_config[$dep]:-}${C_CONFIGS[$dep]:-} ]]; then
			bad_input "$CHECKS_DIR/$name/conf: needs '$dep', which has no result in the config '${cfg:-(none)}' of $r"
		else
			bad_input "$CHECKS_DIR/$name/conf: needs '$dep', which no check gives"
		fi
	done
}

# add_result RESULT CHECK CONFIG
add_result() {
	[[ -z ${R_CHECK[$1]:-} ]] ||
		bad_input "two checks give a result named '$1' ($CHECKS_DIR/${R_CHECK[$1]} and $CHECKS_DIR/$2)"
	R_CHECK[$1]=$2
	R_CONFIG[$1]=$3
	[[ -z $3 ]] || R_OF[$2,$3]=$1
	RESULT_NAMES+=("$1")
}

# flag RESULT WHAT: true when RESULT's check declares WHAT.
flag() {
	local -n arr=C_$2
	[[ -n ${arr[${R_CHECK[$1]}]:-} ]]
}

# needs RESULT: the result RESULT needs at the same commit, or nothing.
needs() {
	printf '%s' "${R_NEEDS[$1]:-}"
}

# keeps RESULT: the paths of its build directory that RESULT keeps with
# a usable result (its check's 'keep'), or nothing.
keeps() {
	printf '%s' "${C_KEEP[${R_CHECK[$1]}]:-}"
}

# given_kept RESULT: "1" when the result RESULT needs keeps files (RESULT
# then gets those instead of a build directory), else nothing.
given_kept() {
	local dep
	dep=$(needs "$1")
	[[ -z $dep || -z ${C_KEEP[${R_CHECK[$dep]}]:-} ]] || echo 1
}

# kept_dir RESULT I: where RESULT's result at commit I keeps its files.
kept_dir() {
	printf '%s/%s/%s/kept' "$RESULTS" "$1" "${KEY[$1,$2]}"
}

# has_kept RESULT DIR: true when the result in DIR holds every file
# RESULT keeps.
has_kept() {
	local p
	for p in $(keeps "$1"); do
		[[ -f $2/kept/$p ]] || return 1
	done
}

# gets_kept RESULT: true when RESULT has no build directory of its own
# and the result it needs keeps files: its check gets those files, and
# no build directory is brought to its commit.
gets_kept() {
	# shellcheck disable=SC2310 # its status is its answer
	! flag "$1" build_dir && [[ -n $(given_kept "$1") ]]
}

# given_build RESULT I: the WF_CHECK_BUILD of RESULT at commit I: its
# own build directory, or what the result it needs gives: the files that
# result kept at this commit (a tree of their paths), or its build
# directory (brought to this commit).
given_build() {
	# shellcheck disable=SC2310 # its status is its answer
	if gets_kept "$1"; then
		kept_dir "$(needs "$1")" "$2"
	else
		build_dir "$1"
	fi
}

# build_dir RESULT: the build directory RESULT's check gets (its own, or
# that of the result it needs), or nothing.
build_dir() {
	local r=$1 dep
	# shellcheck disable=SC2310 # its status is its answer
	if flag "$r" build_dir; then
		printf '%s/%s' "$BUILDROOT" "$r"
		return
	fi
	dep=$(needs "$r")
	[[ -n $dep ]] && build_dir "$dep"
	return 0
}

# select_results CHECKLIST: ENABLED[result]=1 for the comma list and what
# they need; RUN_ORDER: the enabled results, each after what it needs.
select_results() {
	local checklist=$1 r dep progress
	local -a asked want=()
	declare -gA ENABLED=() ADDED=()
	IFS=, read -r -a asked <<<"${checklist:-$(IFS=,; echo "${RESULT_NAMES[*]}")}"
	for r in "${asked[@]}"; do
		[[ -n $r ]] || continue
		if [[ -z ${R_CHECK[$r]:-} && -n ${C_ORDER[$r]:-} ]]; then
			# A check's name: all its results (build: one per config).
			for dep in "${RESULT_NAMES[@]}"; do
				[[ ${R_CHECK[$dep]} != "$r" ]] || want+=("$dep")
			done
		else
			want+=("$r")
		fi
	done
	[[ ${#want[@]} -gt 0 ]] || bad_input "no check in '-c $checklist' (checks: ${RESULT_NAMES[*]})"
	for r in "${want[@]}"; do
		[[ -n ${R_CHECK[$r]:-} ]] || bad_input "unknown check '$r' (checks: ${RESULT_NAMES[*]})"
		while [[ -n $r && -z ${ENABLED[$r]:-} ]]; do
			ENABLED[$r]=1
			r=$(needs "$r")
		done
	done
	RUN_ORDER=()
	progress=1
	while [[ $progress -eq 1 ]]; do
		progress=0
		for r in "${RESULT_NAMES[@]}"; do
			[[ -n ${ENABLED[$r]:-} && -z ${ADDED[$r]:-} ]] || continue
			dep=$(needs "$r")
			[[ -z $dep || -n ${ADDED[$dep]:-} ]] || continue
			RUN_ORDER+=("$r")
			ADDED[$r]=1 progress=1
		done
	done
	[[ ${#RUN_ORDER[@]} -eq ${#ENABLED[@]} ]] || bad_input "the checks' needs form a cycle"
}

# stage_list: "1: a b; 2: c; 3: d e", the results of each stage.
stage_list() {
	local stage r line out=''
	for stage in 1 2 3; do
		line=''
		for r in "${RUN_ORDER[@]}"; do
			[[ ${STAGE[$r]} -ne $stage ]] || line+=" $r"
		done
		[[ -z $line ]] || out+="$stage:$line; "
	done
	printf '%s\n' "${out%; }"
}

# assign_stages: STAGE[result], when it runs.  check_all runs the stages
# one after the other, each over every commit, so that the cheap
# verdicts come first: 1, the checks of the source alone (no build
# directory, no config, nothing needed: checkpatch, codespell,
# kernel-doc), minutes for the whole range; 2, the build in the boot
# config (the matrix's first) and what needs it with no build directory
# of its own (the QEMU boot): what git bisect needs; 3, the rest (the
# other configs, W=1, sparse, clang, the guests).  A result never runs in
# a stage before the one of the result it needs.  The keys do not
# depend on the stages.
assign_stages() {
	local r c dep
	declare -gA STAGE=()
	for r in "${RUN_ORDER[@]}"; do
		c=${R_CHECK[$r]}
		dep=$(needs "$r")
		if [[ -z $dep && -z ${C_build_dir[$c]:-} && -z ${R_CONFIG[$r]} ]]; then
			STAGE[$r]=1
		elif [[ -n ${C_per_config[$c]:-} && ${R_CONFIG[$r]} == "${PER_COMMIT[0]}" ]] ||
			[[ -n $dep && -z ${C_build_dir[$c]:-} && -z ${C_CONFIGS[$c]:-} && ${STAGE[$dep]} -eq 2 ]]; then
			STAGE[$r]=2
		else
			STAGE[$r]=3
		fi
		[[ -z $dep || ${STAGE[$dep]} -le ${STAGE[$r]} ]] || STAGE[$r]=${STAGE[$dep]}
	done
}

# static_keys: R_STATIC[result], the part of its key that does not
# depend on the commit: the check's directory, what it uses, its
# config's matrix row and fragments, its tools' versions.
static_keys() {
	local r c cfg u row v frags f
	local -a files
	declare -gA R_STATIC=()
	for r in "${RUN_ORDER[@]}"; do
		c=${R_CHECK[$r]} cfg=${R_CONFIG[$r]}
		R_STATIC[$r]=$( {
			printf 'result %s check %s config %s\n' "$r" "$c" "$cfg"
			printf 'dir %s\n' "$(vl_path_hash "$CHECKS_DIR/$c")"
			for u in ${C_USES[$c]:-}; do printf 'uses %s %s\n' "$u" "$(vl_path_hash "$WF_HOME/$u")"; done
			if [[ -n $cfg ]]; then
				row=$(vl_matrix_row "$MATRIX" "$cfg")
				read -r _ frags <<<"$row"
				files=()
				for f in $frags; do files+=("$CONFIGS_DIR/$f"); done
				printf 'config %s %s\n' "$row" "$(vl_files_hash "${files[@]}")"
			fi
			while IFS= read -r v; do
				[[ -z $v ]] || printf 'version %s\n' "$(vl_tool_version "$v")"
			done <<<"${C_VERSIONS[$c]:-}"
		} | vl_hash)
	done
}

# result_key RESULT I: the cache key of RESULT at commit I.
result_key() {
	local r=$1 i=$2 dep
	{
		printf '%s\n' "${R_STATIC[$r]}" "tree ${TREES[$i]}" "parent ${PTREES[$i]}"
		# shellcheck disable=SC2310 # its status is its answer
		if flag "$r" KEYMSG; then repo_git log -1 --format='%an <%ae>%n%B' "${COMMITS[$i]}"; fi
		# shellcheck disable=SC2310 # its status is its answer
		if flag "$r" compare; then printf 'prev %s\n' "${PREV_KEY[$r]:-none}"; fi
		dep=$(needs "$r")
		[[ -z $dep ]] || printf 'needs %s\n' "${KEY[$dep,$i]}"
	} | vl_hash
}

# ---------------------------------------------------------------- inputs

# empty_range_hint RANGE: for the default range (base..branch), what
# leaves it empty.
empty_range_hint() {
	[[ -n ${TOPIC_NAME:-} && $1 == *"..refs/heads/$TOPIC_NAME" ]] || return 0
	printf ' (is %s at its base? make rebuild applies %s/)' "$TOPIC_NAME" "$TOPIC_PATCHDIR"
}

# load_commits RANGE: COMMITS (0 is the parent of the first), TREES,
# PTREES (the trees of their parents), SUBJECTS.
load_commits() {
	local range=$1 c first p
	local -a list
	# shellcheck disable=SC2310 # repo_git is one git command
	repo_git rev-list -n 1 "$range" >/dev/null 2>&1 || bad_input "bad revision range '$range' in $WF_REPO"
	lines_of list repo_git rev-list --reverse --first-parent "$range"
	# No commit is no verdict: never a report of 0 results that passed.
	[[ ${#list[@]} -gt 0 ]] || bad_input "no commits in the range '$range': nothing to validate$(empty_range_hint "$range")"
	first=${list[0]}
	# shellcheck disable=SC2310 # repo_git is one git command
	COMMITS=("$(repo_git rev-parse -q --verify "$first^" 2>/dev/null)") ||
		bad_input "the first commit of '$range' has no parent"
	COMMITS+=("${list[@]}")
	TREES=() PTREES=() SUBJECTS=() PARENTS=()
	for c in "${COMMITS[@]}"; do
		TREES+=("$(repo_git rev-parse "$c^{tree}")")
		SUBJECTS+=("$(repo_git log -1 --format=%s "$c")")
		# shellcheck disable=SC2310 # repo_git is one git command
		p=$(repo_git rev-parse -q --verify "$c^" 2>/dev/null) || p=''
		PARENTS+=("$p")
		if [[ -n $p ]]; then PTREES+=("$(repo_git rev-parse "$p^{tree}")"); else PTREES+=(none); fi
	done
}

# ---------------------------------------------------------------- progress

# label I: "base" or "i/n".
label() {
	if [[ $1 -eq 0 ]]; then echo base; else echo "$1/$((${#COMMITS[@]} - 1))"; fi
}

# progress I RESULT WHAT: one line on stderr, and the start of a step in
# OUTDIR/timings.tsv (time, commit, result, step; a step lasts until the
# next line), for tools/bench-validate.sh and whoever wonders where the
# time goes.
progress() {
	# (a full disk loses the line: the report, written last, says so)
	printf '%s\t%s\t%s\t%s\n' "$EPOCHREALTIME" "$1" "$2" "$3" >>"$TIMINGS" 2>/dev/null || true
	printf '%s: [%7s] %s %-10s %s (%s)\n' "$WF_PROG" "$(label "$1")" "${COMMITS[$1]:0:12}" "$2" "$3" \
		"$(vl_elapsed $((SECONDS - START)))" >&2
}

# heartbeat I RESULT LOG: every EVERY seconds, that RESULT still runs,
# for how long, and the last line of its LOG.  Run in the background
# (vl_every); TERM ends it at once.
heartbeat() {
	vl_every "$EVERY" beat "$1" "$2" "$3" "$SECONDS"
}

# beat I RESULT LOG START: one line of the heartbeat.
beat() {
	local line
	line=$(tail -n 1 "$3" 2>/dev/null | tr -d '\r' | cut -c1-60) || line=''
	printf '%s: [%7s] %s %-10s still running (%s)%s\n' "$WF_PROG" "$(label "$1")" "${COMMITS[$1]:0:12}" \
		"$2" "$(vl_elapsed $((SECONDS - $4)))" "${line:+: $line}" >&2
}

# ---------------------------------------------------------------- worktree

# goto_commit I: check out commit I in the validation worktree.  git only
# rewrites the files that differ, so make rebuilds only what changed.  The
# first checkout of a run, and the first after one that failed, is done
# even when HEAD is already the commit: a checkout cut short (a kill, a
# full disk) leaves HEAD where it was and some files of the next commit.
# On a full disk it sets CHECKOUT_FULL, where (an infrastructure error of
# the result); any other error ends the run.
goto_commit() {
	local c=${COMMITS[$1]} gitdir err real
	CHECKOUT_FULL=''
	if [[ ! -e $TREE/.git ]]; then
		info "creating the validation worktree $TREE"
		# (and what a killed git worktree add left: its directory, its
		# registration locked while it initialized)
		real=$(realpath -m "$TREE")
		drop_worktree "$real"
		TREE_SYNCED=''
		# shellcheck disable=SC2310 # repo_git is one git command
		if ! err=$(repo_git worktree add -q -f --detach "$TREE" "$c" 2>&1 >/dev/null); then
			disk_full_at_checkout "$c"
			drop_worktree "$real"
			[[ -n $CHECKOUT_FULL ]] || die "cannot create the worktree $TREE: $(tail -n 1 <<<"$err")"
			return 0
		fi
	fi
	[[ -n $TREE_SYNCED && $(git -C "$TREE" rev-parse HEAD) == "$c" ]] && return 0
	# We hold the validate lock: an index.lock or a HEAD.lock is a killed
	# run's.
	gitdir=$(git -C "$TREE" rev-parse --absolute-git-dir)
	rm -f "$gitdir/index.lock" "$gitdir/HEAD.lock"
	TREE_SYNCED=''
	if ! err=$(git -C "$TREE" checkout -q -f --detach "$c" 2>&1); then
		disk_full_at_checkout "$c"
		[[ -n $CHECKOUT_FULL ]] || die "cannot check out $c in $TREE: $(tail -n 1 <<<"$err")"
		return 0
	fi
	TREE_SYNCED=1
}

# disk_full_at_checkout COMMIT: (goto_commit, after git failed) set
# CHECKOUT_FULL when the disk of the worktree is full, or has less room
# than COMMIT's files take (git worktree add removes what it wrote when
# it fails, and its messages do not say why: "unable to write file").
disk_full_at_checkout() {
	local need free
	# shellcheck disable=SC2310 # its status is its answer
	if vl_nearly_full "$TREE"; then
		CHECKOUT_FULL="no space left on device in $TREE"
		return 0
	fi
	# (in 4 KiB blocks, as the files take them)
	# shellcheck disable=SC2310 # repo_git is one git command
	need=$(repo_git ls-tree -r -l "$1" | awk '$4 ~ /^[0-9]+$/ { s += int(($4 + 4095) / 4096) * 4 } END { print s + 0 }') ||
		need=0
	free=$(vl_free_kb "$TREE")
	if [[ -n $free && $free -lt $need ]]; then
		CHECKOUT_FULL="no space left on device in $TREE (its files take $((need / 1024)) MiB, $((free / 1024)) MiB free)"
	fi
	return 0
}

# ---------------------------------------------------------------- running

# run_check RESULT I OUT PREV: run RESULT's check on commit I with its
# output directory OUT (its stdout in OUT/summary, its stderr in OUT/log)
# and PREV as the result it compares with.  Sets RC.  The check runs in
# the foreground, in the runner's process group: Ctrl-C or a kill of the
# group stops it with the runner.
run_check() {
	local r=$1 i=$2 out=$3 prev=$4 bdir='' run given kept=''
	# shellcheck disable=SC2310 # its status is its answer
	gets_kept "$r" || bdir=$(build_dir "$r")
	given=$(given_build "$r" "$i")
	# A check with a build directory of its own that needs a result that
	# keeps files gets those as well.
	# shellcheck disable=SC2310 # its status is its answer
	if flag "$r" build_dir && [[ -n $(given_kept "$r") ]]; then
		kept=$(kept_dir "$(needs "$r")" "$i")
	fi
	run=$CHECKS_DIR/${R_CHECK[$r]}/run
	RC=0
	goto_commit "$i"
	if [[ -n $CHECKOUT_FULL ]]; then
		# (not a status of the check's contract: infra_reason names why)
		RC=2
		return 0
	fi
	if [[ -n $bdir ]]; then
		mkdir -p "$bdir"
		rm -f "$bdir/.validate-at"
	fi
	RC=0
	heartbeat "$i" "$r" "$out/log" &
	BEAT_PID=$!
	local -a env=(env WF_HOME="$WF_HOME" WF_CACHE="$WF_CACHE" WF_CHECK_NAME="$r" WF_CHECK_SRC="$TREE"
		WF_CHECK_BUILD="$given" WF_CHECK_COMMIT="${COMMITS[$i]}" WF_CHECK_PARENT="${PARENTS[$i]}"
		WF_CHECK_CONFIG="${R_CONFIG[$r]}" WF_CHECK_OUT="$out" WF_CHECK_PREV="$prev"
		WF_CHECK_KEPT="$kept")
	# (a redirection that fails, on a full disk, fails the command: RC says so)
	if [[ ${WF_VERBOSE:-0} == 1 ]]; then
		"${env[@]}" "$run" </dev/null >"$out/summary" 2> >(tee -a "$out/log" | sed "s/^/  $r: /" >&2) || RC=$?
	else
		"${env[@]}" "$run" </dev/null >"$out/summary" 2>>"$out/log" || RC=$?
	fi
	kill "$BEAT_PID" 2>/dev/null || true
	wait "$BEAT_PID" 2>/dev/null || true
	BEAT_PID=''
	if [[ -n $bdir && ($RC -eq 0 || $RC -eq 1 || $RC -eq 125) ]]; then
		printf '%s\n' "${TREES[$i]}" >"$bdir/.validate-at" 2>/dev/null || true
	fi
}

# built_at RESULT I: true when RESULT's build directory holds commit I.
built_at() {
	local bdir
	bdir=$(build_dir "$1")
	[[ -n $bdir && $(cat "$bdir/.validate-at" 2>/dev/null) == "${TREES[$2]}" ]]
}

# sync_build RESULT I FOR: bring RESULT's build directory to commit I by
# running its check there (the result is thrown away), for commit FOR.
sync_build() {
	local r=$1 i=$2 tmp
	# shellcheck disable=SC2310 # its status is its answer
	built_at "$r" "$i" && return 0
	progress "$3" "$r" "bringing the build directory to ${COMMITS[$i]:0:12}"
	tmp=$(new_result)
	run_check "$r" "$i" "$tmp" ''
	rm -rf "$tmp"
}

# prepare_build RESULT I: the build directory RESULT's check gets holds
# what it must: nothing for a baseline, the commit it compares with, or
# this commit for a check that needs another's build.
prepare_build() {
	local r=$1 i=$2 dep dep_dir kept
	# shellcheck disable=SC2310 # its status is its answer
	if flag "$r" build_dir; then
		if [[ $i -eq 0 ]]; then
			# Warnings come only from what is compiled: start from scratch.
			rm -rf "${BUILDROOT:?}/$r"
		elif [[ -n ${PREV_IDX[$r]:-} ]]; then
			sync_build "$r" "${PREV_IDX[$r]}" "$i"
		fi
	fi
	dep=$(needs "$r")
	kept=$(given_kept "$r")
	[[ -n $dep && -z $kept ]] || return 0
	dep_dir=$(build_dir "$dep")
	[[ -z $dep_dir ]] || sync_build "$dep" "$i" "$i"
}

# keep_files RESULT OUT: copy the files RESULT keeps from its build
# directory into OUT/kept; an error (a file the check did not leave, a
# full disk) is an infrastructure error: prints why, or nothing.
keep_files() {
	local r=$1 out=$2 bdir p
	bdir=$(build_dir "$r")
	for p in $(keeps "$r"); do
		if [[ ! -f $bdir/$p ]]; then
			echo "the check left no $p in $bdir to keep"
			return 0
		fi
		mkdir -p "$(dirname "$out/kept/$p")" 2>/dev/null && cp "$bdir/$p" "$out/kept/$p" 2>/dev/null && continue
		echo "cannot keep $p: no space left on device in $out"
		return 0
	done
}

# infra_reason RESULT I OUT: why the check could not run, when it could
# not (a full disk, an exit status outside the contract), else nothing.
infra_reason() {
	local r=$1 out=$3 bdir d
	bdir=$(build_dir "$r")
	if [[ -n $CHECKOUT_FULL ]]; then
		echo "$CHECKOUT_FULL"
		return 0
	fi
	[[ $RC -eq 0 || $RC -eq 125 ]] && return 0
	# shellcheck disable=SC2310 # vl_nearly_full's status is its answer
	if grep -qis 'no space left on device' "$out/log" "$out/summary" ||
		{ [[ -n $bdir ]] && vl_nearly_full "$bdir"; } || vl_nearly_full "$out"; then
		for d in $bdir "$out" "${TMPDIR:-/tmp}"; do
			# shellcheck disable=SC2310 # its status is its answer
			if vl_nearly_full "$d"; then
				echo "no space left on device in $d"
				return 0
			fi
		done
		echo "no space left on device in ${bdir:-$out}"
		return 0
	fi
	[[ $RC -eq 1 ]] && return 0
	# (the check's own line names the cause, as the contract asks)
	if [[ -s $out/summary ]]; then
		head -n 1 "$out/summary" | cut -c1-300
	else
		echo "the check exited with status $RC and printed no summary (0 pass, 1 fail, 125 skip, else an infrastructure error)"
	fi
}

# check_result RESULT I: RESULT at commit I, from the cache or run now.
check_result() {
	local r=$1 i=$2 dep key dir tmp st summary reason log prev=''
	dep=$(needs "$r")
	if [[ -n $dep && -z ${USABLE[$dep,$i]:-} ]]; then
		set_cell "$i" "$r" skip 0 "not run: $dep gave no usable result on this commit" ''
		return
	fi
	# shellcheck disable=SC2310 # its status is its answer
	if flag "$r" compare && [[ -n ${PREV_DIR[$r]:-} ]]; then prev=${PREV_DIR[$r]}; fi
	key=$(result_key "$r" "$i")
	KEY[$r,$i]=$key
	dir=$RESULTS/$r/$key
	# shellcheck disable=SC2310 # its status is its answer
	if [[ -f $dir/status ]] && { [[ ! -e $dir/state ]] || has_kept "$r" "$dir"; }; then
		set_cell "$i" "$r" "$(cat "$dir/status")" 1 "$(head -n 1 "$dir/summary")" "$dir/log"
	elif [[ -n $LOOKUP ]]; then
		# (-k: the cache alone)
		exit 1
	else
		before_step "$r"
		prepare_build "$r" "$i"
		progress "$i" "$r" "${R_CHECK[$r]}$([[ $i -ne 0 ]] || echo ' (the base: the first comparison)')"
		tmp=$(new_result)
		run_check "$r" "$i" "$tmp" "$prev"
		summary=$(head -n 1 "$tmp/summary" 2>/dev/null | cut -c1-300) || summary=''
		reason=$(infra_reason "$r" "$i" "$tmp")
		if [[ -z $reason && -e $tmp/state && -n $(keeps "$r") ]]; then reason=$(keep_files "$r" "$tmp"); fi
		case $RC in
		0) st=pass ;;
		125) st=skip ;;
		*) st=fail ;;
		esac
		if [[ -z $reason ]] && ! echo "$st" >"$tmp/status" 2>/dev/null; then
			reason="no space left on device in $RESULTS"
		fi
		if [[ -n $reason ]]; then
			info "infrastructure error: ${COMMITS[$i]:0:12} $r: $reason"
			rm -rf "${RESULTS:?}/infra/$r/$i"
			if mkdir -p "$RESULTS/infra/$r" 2>/dev/null; then
				mv "$tmp" "$RESULTS/infra/$r/$i" 2>/dev/null || true
			fi
			# (its log, unless the disk had no room for it)
			log=$RESULTS/infra/$r/$i/log
			[[ -f $log ]] || log=''
			set_cell "$i" "$r" infra 0 "$reason" "$log"
			return
		fi
		[[ -n $summary ]] || echo "(the check printed no summary)" >"$tmp/summary"
		store_result "$tmp" "$dir"
		set_cell "$i" "$r" "$st" 0 "${summary:-(the check printed no summary)}" "$dir/log"
	fi
	if [[ -e $dir/state ]]; then
		USABLE[$r,$i]=1
		PREV_DIR[$r]=$dir PREV_KEY[$r]=$key PREV_IDX[$r]=$i
	fi
}

# ---------------------------------------------------------------- results

# new_result: a fresh scratch directory for a result.
new_result() {
	local d
	mkdir -p "$RESULTS/tmp"
	d=$(mktemp -d "$RESULTS/tmp/r.XXXXXX")
	: >"$d/log"
	printf '%s\n' "$d"
}

# store_result TMPDIR DIR: make the result visible (atomically).
store_result() {
	mkdir -p "${2%/*}"
	rm -rf "$2"
	mv "$1" "$2"
}

# set_cell I RESULT STATUS CACHED SUMMARY LOG
set_cell() {
	STATUS[$1,$2]=$3
	CACHED[$1,$2]=$4
	SUMMARY[$1,$2]=$5
	LOG[$1,$2]=$6
}

# ---------------------------------------------------------------- report

# cell_of I RESULT: CELL_ST, RESULT's status at commit I (pass, fail,
# skip, infra, or pending: selected and not known yet, in a run in
# progress or one FAIL_FAST stopped), CELL_REASON (the check's summary,
# or why there is none) and CELL_TEXT, the word of the tables: the
# status, with "*" when cached; "-" for a tip-only check below the tip
# (no result: nothing was skipped); "..." for a result still to come.
# (No subshell: the writers call it for every cell, and they run again
# and again while the run goes on.)
cell_of() {
	if [[ -n ${STATUS[$1,$2]:-} ]]; then
		CELL_ST=${STATUS[$1,$2]} CELL_REASON=${SUMMARY[$1,$2]}
	elif [[ -z ${ENABLED[$2]:-} ]]; then
		CELL_ST=skip CELL_REASON='not selected'
	elif [[ $RUN_STATE == stopped ]]; then
		CELL_ST=pending CELL_REASON='not run: FAIL_FAST stopped the run at the first failure'
	elif [[ $RUN_STATE == "done" ]]; then
		CELL_ST=skip CELL_REASON='not run'
	else
		CELL_ST=pending CELL_REASON='not run yet'
	fi
	if [[ $CELL_ST == pending ]]; then
		CELL_TEXT=...
	elif [[ -n ${TIP_ONLY[$1,$2]:-} ]]; then
		CELL_TEXT=-
	elif [[ ${CACHED[$1,$2]:-0} -eq 1 ]]; then
		CELL_TEXT="$CELL_ST*"
	else
		CELL_TEXT=$CELL_ST
	fi
}

# run_state_line: for a run that is not done, what the reports are.
run_state_line() {
	local i r known=0 all=0 n=$((${#COMMITS[@]} - 1))
	[[ $RUN_STATE != "done" ]] || return 0
	for ((i = 1; i <= n; i++)); do
		for r in "${RUN_ORDER[@]}"; do
			all=$((all + 1))
			[[ -z ${STATUS[$i,$r]:-} ]] || known=$((known + 1))
		done
	done
	if [[ $RUN_STATE == stopped ]]; then
		printf 'stopped by FAIL_FAST at the first failing result (%d of %d results known; ... never ran): %s\n' \
			"$known" "$all" "$STOPPED_AT"
	else
		printf 'in progress: %d of %d results known (%s elapsed); ... is a result still to come\n' "$known" "$all" \
			"$(vl_elapsed $((SECONDS - START)))"
	fi
}

# count STATUS: the results of the table (base excluded) with STATUS.
count() {
	local i n=$((${#COMMITS[@]} - 1)) r k=0
	for ((i = 1; i <= n; i++)); do
		for r in "${RESULT_NAMES[@]}"; do
			[[ ${STATUS[$i,$r]:-} == "$1" ]] && k=$((k + 1))
		done
	done
	echo "$k"
}

# write_table RESULT...: a blank line, then the table of the commits
# with a column per RESULT (widths in the caller's "width"), in 100
# columns.
write_table() {
	local i n=$((${#COMMITS[@]} - 1)) r subj sw fixed=18
	for r in "$@"; do fixed=$((fixed + ${width[$r]} + 1)); done
	sw=$((100 - fixed))
	[[ $sw -ge 8 ]] || sw=8
	printf '\n%-3s %-12s %-*s' '#' commit "$sw" subject
	for r in "$@"; do printf ' %-*s' "${width[$r]}" "$r"; done
	printf '\n'
	for ((i = 1; i <= n; i++)); do
		subj=${SUBJECTS[$i]}
		[[ ${#subj} -le $sw ]] || subj="${subj:0:$((sw - 2))}.."
		printf '%-3s %-12s %-*s' "$i" "${COMMITS[$i]:0:12}" "$sw" "$subj"
		for r in "$@"; do
			cell_of "$i" "$r"
			printf ' %-*s' "${width[$r]}" "$CELL_TEXT"
		done
		printf '\n'
	done
}

# write_report: the table and the failures, on stdout.  The table fits in
# 100 columns: when its columns do not, with a subject of at least 20,
# they go into several tables one under the other, each with the
# commits and their subjects.
write_report() {
	local i n=$((${#COMMITS[@]} - 1)) r note total=0 cached=0 st w fixed=18 tips
	local -a block=()
	declare -A width=()
	printf 'validate: %d commit(s) on %s (%s)\n' "$n" "${COMMITS[0]:0:12}" "$RANGE"
	run_state_line
	for r in "${RESULT_NAMES[@]}"; do
		w=${#r}
		[[ $w -ge 6 ]] || w=6
		width[$r]=$w
		if [[ ${#block[@]} -gt 0 && $((fixed + w + 1)) -gt 80 ]]; then
			write_table "${block[@]}"
			block=() fixed=18
		fi
		block+=("$r")
		fixed=$((fixed + w + 1))
	done
	write_table "${block[@]}"
	for ((i = 1; i <= n; i++)); do
		for r in "${RESULT_NAMES[@]}"; do
			# (a tip-only check's cell below the tip is no result)
			if [[ -n ${STATUS[$i,$r]:-} && -z ${TIP_ONLY[$i,$r]:-} ]]; then
				total=$((total + 1))
				[[ ${CACHED[$i,$r]} -eq 1 ]] && cached=$((cached + 1))
			fi
		done
	done
	printf '\n%d result(s): %d failed, %d from the cache (marked *), %d run now, %d infrastructure error(s); %s\n' \
		"$total" "$(count fail)" "$cached" $((total - cached)) "$(count infra)" "$(vl_elapsed $((SECONDS - START)))"
	tips=$(for r in "${RESULT_NAMES[@]}"; do [[ -z ${TIP_ONLY[1,$r]:-} ]] || printf '%s ' "$r"; done)
	[[ -z $tips ]] || printf -- '- is no result: %s run(s) at the tip only\n' "${tips% }"
	for note in "${BASE_NOTES[@]}"; do printf 'note: %s\n' "$note"; done
	for ((i = 1; i <= n; i++)); do
		for r in "${RESULT_NAMES[@]}"; do
			st=${STATUS[$i,$r]:-}
			[[ $st == fail || $st == infra ]] || continue
			printf '\n%s %s %s %s [%s]\n' "$st" "$i" "${COMMITS[$i]:0:12}" "${SUBJECTS[$i]}" "$r"
			printf '  %s\n' "${SUMMARY[$i,$r]}"
			[[ -z ${LOG[$i,$r]} ]] || printf '  log: %s\n' "${LOG[$i,$r]}"
		done
	done
}

# write_json: the same results, machine-readable (schema SCHEMA).
write_json() {
	local i n=$((${#COMMITS[@]} - 1)) r sep=$'\x1e\x1f' subject reason
	# One record per result, its fields ended by US (0x1f), records by RS
	# (0x1e), read by a single jq: one jq per result cost 20-40 ms each,
	# most of a warm run.  (Neither separator can be in a field: they
	# are removed.)
	{
		for ((i = 1; i <= n; i++)); do
			subject=${SUBJECTS[$i]//[$sep]/}
			for r in "${RESULT_NAMES[@]}"; do
				cell_of "$i" "$r"
				reason=$CELL_REASON
				printf '%s\x1f' "$i" "${COMMITS[$i]}" "${TREES[$i]}" "$subject" "$r" \
					"$CELL_ST" "${CACHED[$i,$r]:-0}" "${reason//[$sep]/}" "${LOG[$i,$r]:-}"
				printf '\x1e'
			done
		done
		[[ $n -ge 1 ]] || printf '\x1e'
	} | jq -R -s --argjson schema "$SCHEMA" --arg range "$RANGE" --arg base "${COMMITS[0]}" \
		--arg state "$RUN_STATE" --arg stopped "$STOPPED_AT" \
		--argjson checks "$(printf '%s\n' "${RESULT_NAMES[@]}" | jq -R . | jq -s .)" \
		'split("\u001e") | map(select(length > 0) | split("\u001f") |
		   {index: (.[0] | tonumber), commit: .[1], tree: .[2], subject: .[3], check: .[4],
		    status: .[5], cached: (.[6] == "1"), reason: .[7],
		    log: .[8]}) |
		 {schema: $schema, state: $state, range: $range, base: $base, checks: $checks,
		  commits: (group_by(.index) | map({index: .[0].index, commit: .[0].commit, tree: .[0].tree,
		            subject: .[0].subject,
		            results: (map({key: .check, value: {status, cached, reason, log}}) | from_entries)})),
		  failed: (map(select(.status == "fail")) | length),
		  infra: (map(select(.status == "infra")) | length),
		  pending: (map(select(.status == "pending")) | length)} |
		 if $stopped != "" then .stopped_at = $stopped else . end'
}

# write_html: the same grid as a static page: one coloured cell per
# result, linking its log, the summary as the cell's title.
write_html() {
	local i n=$((${#COMMITS[@]} - 1)) r st text
	cat <<EOF
<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>validate: $(vl_html "$RANGE")</title>
<style>
body { font-family: sans-serif; } table { border-collapse: collapse; }
th, td { border: 1px solid #999; padding: 2px 6px; font-size: 90%; }
td.pass { background: #9e9; } td.fail { background: #f77; }
td.skip { background: #ddd; } td.infra { background: #fb5; }
td.none { color: #999; text-align: center; } td.pending { background: #fff; color: #999; }
td a { color: black; }
</style></head><body>
<h1>validate: $n commit(s) on <code>${COMMITS[0]:0:12}</code></h1>
$([[ $RUN_STATE == "done" ]] || printf '<p><strong>%s</strong></p>' "$(vl_html "$(run_state_line)")")
<p>$(vl_html "$RANGE"): $(count fail) failed, $(count infra) infrastructure error(s);
a * marks a result from the cache; a cell links its log, its title is the check's summary;
- is no result (a check run at the tip only).</p>
<table>
<tr><th>#</th><th>commit</th><th>subject</th>$(for r in "${RESULT_NAMES[@]}"; do printf '<th>%s</th>' "$(vl_html "$r")"; done)</tr>
EOF
	for ((i = 1; i <= n; i++)); do
		printf '<tr><td>%s</td><td><code>%s</code></td><td>%s</td>' "$i" "${COMMITS[$i]:0:12}" "$(vl_html "${SUBJECTS[$i]}")"
		for r in "${RESULT_NAMES[@]}"; do
			cell_of "$i" "$r"
			st=$CELL_ST text=$CELL_TEXT
			[[ -z ${TIP_ONLY[$i,$r]:-} ]] || st=none
			if [[ -n ${LOG[$i,$r]:-} ]]; then
				printf '<td class="%s" title="%s"><a href="file://%s">%s</a></td>' "$st" \
					"$(vl_html "${SUMMARY[$i,$r]}")" "$(vl_html "${LOG[$i,$r]}")" "$text"
			else
				printf '<td class="%s" title="%s">%s</td>' "$st" "$(vl_html "$CELL_REASON")" "$text"
			fi
		done
		printf '</tr>\n'
	done
	printf '</table>\n</body></html>\n'
}

# publish FILE WRITER: what the function WRITER prints, into FILE under a
# temporary name, renamed only when WRITER succeeded and all of it was
# written: a writer that dies half-way (a jq error, an unset variable)
# leaves the last FILE, not a truncated one, and stops the run; so does a
# full disk, an infrastructure error (exit 3).
publish() {
	local file=$1 text
	shift
	# shellcheck disable=SC2310 # an unset variable or a failed pipe still ends it
	text=$("$@" && printf x) || die "cannot write $file ($1 failed)"
	if ! printf '%s' "${text%x}" >"$file.tmp" 2>/dev/null; then
		rm -f "$file.tmp"
		out_full_or_die "$file"
	fi
	mv -f "$file.tmp" "$file"
}

# out_full_or_die FILE: FILE could not be written; on a full disk that is
# an infrastructure error (exit 3), named in one line; else an error.
out_full_or_die() {
	# shellcheck disable=SC2310 # its status is its answer
	if vl_nearly_full "${1%/*}"; then
		printf '%s: infrastructure error: cannot write %s: no space left on device in %s\n' \
			"$WF_PROG" "$1" "${1%/*}" >&2
		exit 3
	fi
	die "cannot write $1"
}

# ---------------------------------------------------------------- signals

# on_signal SIG: (the check in the foreground has ended) clean up, die
# of SIG.
on_signal() {
	[[ -z $BEAT_PID ]] || kill "$BEAT_PID" 2>/dev/null || true
	rm -rf "$RESULTS/tmp"
	trap - "$1" EXIT
	kill -s "$1" $$
}

# check_all: stage by stage (assign_stages), every selected result of
# the stage with a baseline at the base, then every one at each commit (a
# tip-only check at the last commit only; its cells below read "-"),
# from the cache or run now; the cells, keys and base notes start empty.
# Each result is said as soon as it is known (result_known); with
# FAIL_FAST, the first that fails ends the walk (STOPPED_AT).
check_all() {
	local i r n=$((${#COMMITS[@]} - 1)) stage
	declare -gA STATUS=() CACHED=() SUMMARY=() LOG=() KEY=() USABLE=() PREV_DIR=() PREV_KEY=() PREV_IDX=() TIP_ONLY=()
	BASE_NOTES=() STOPPED_AT=''
	for stage in 1 2 3; do
		for r in "${RUN_ORDER[@]}"; do
			[[ ${STAGE[$r]} -eq $stage ]] || continue
			# shellcheck disable=SC2310 # its status is its answer
			flag "$r" baseline || continue
			check_result "$r" 0
			[[ ${STATUS[0,$r]} == pass ]] ||
				BASE_NOTES+=("$r at the base: ${STATUS[0,$r]}: ${SUMMARY[0,$r]}${LOG[0,$r]:+ (log: ${LOG[0,$r]})}")
		done
		for ((i = 1; i <= n; i++)); do
			for r in "${RUN_ORDER[@]}"; do
				[[ ${STAGE[$r]} -eq $stage ]] || continue
				# shellcheck disable=SC2310 # its status is its answer
				if [[ $i -lt $n ]] && flag "$r" tip; then
					set_cell "$i" "$r" skip 0 "not run: at the tip only" ''
					TIP_ONLY[$i,$r]=1
					continue
				fi
				check_result "$r" "$i"
				result_known "$i" "$r"
				[[ -z $STOPPED_AT ]] || return 0
			done
		done
	done
}

# result_known I RESULT: RESULT at commit I is known.  Run now, it is
# said in one line and the reports are written again (stream_report);
# with FAIL_FAST, a failure or an infrastructure error stops the run.
result_known() {
	local i=$1 r=$2 st=${STATUS[$1,$2]}
	[[ -z $LOOKUP ]] || return 0
	UNPUBLISHED=1
	if [[ ${CACHED[$i,$r]} -eq 0 ]]; then
		printf '%s: [%7s] %s %-10s %s: %s\n' "$WF_PROG" "$(label "$i")" "${COMMITS[$i]:0:12}" "$r" \
			"$st" "${SUMMARY[$i,$r]:0:100}" >&2
	fi
	if [[ $FAIL_FAST == 1 && ($st == fail || $st == infra) ]]; then
		STOPPED_AT="$(label "$i") ${COMMITS[$i]:0:12} ${SUBJECTS[$i]} [$r]: $st: ${SUMMARY[$i,$r]}"
		return 0
	fi
	[[ ${CACHED[$i,$r]} -eq 1 ]] || stream_report
}

# stream_report [now]: while the run goes on, the reports as they stand
# (RUN_STATE running: the results still to come are pending), when a
# result is known that they do not have, at most every STREAM_EVERY
# seconds unless "now".  A run whose results all come from the cache
# writes its reports once, at the end.
stream_report() {
	[[ -n $OUTDIR && -n $UNPUBLISHED ]] || return 0
	[[ ${1:-} == now || $((SECONDS - STREAMED)) -ge $STREAM_EVERY ]] || return 0
	STREAMED=$SECONDS
	publish_reports
}

# before_step RESULT: RESULT is about to run.  A step of stage 2 or 3 (a
# build, a boot) takes minutes: the reports get what is known first.
before_step() {
	[[ ${STAGE[$1]} -lt 2 ]] || stream_report now
}

# publish_reports: report.txt, results.json and report.html of RUN_STATE.
publish_reports() {
	UNPUBLISHED=
	publish "$OUTDIR/report.txt" write_report
	publish "$OUTDIR/results.json" write_json
	publish "$OUTDIR/report.html" write_html
}

# kept_at_tip RESULT: (-k) "TREE DIR" of RESULT at the last commit, from
# the cache alone (check_result exits 1 at the first result that is not
# cached); 1 when the result there is not usable.
kept_at_tip() {
	local res=$1 kept n=$((${#COMMITS[@]} - 1))
	kept=$(keeps "$res")
	[[ -n $kept ]] || bad_input "-k: $res keeps no files"
	static_keys
	check_all
	[[ -n ${USABLE[$res,$n]:-} ]] || return 1
	printf '%s %s\n' "${TREES[$n]}" "$(kept_dir "$res" "$n")"
}

# ---------------------------------------------------------------- main

main() {
	local outdir=$WF_OUT/validate checks='' n rc=0 ver infra failed
	LOOKUP=''
	while getopts 'o:c:k:' opt; do
		case $opt in
		o) outdir=$OPTARG ;;
		c) checks=$OPTARG ;;
		k) LOOKUP=$OPTARG ;;
		*) usage ;;
		esac
	done
	shift $((OPTIND - 1))
	[[ $# -le 1 ]] || usage
	[[ $EVERY =~ ^[1-9][0-9]*$ ]] || bad_input "WF_PROGRESS_INTERVAL must be a number of seconds, not '$EVERY'"
	START=$SECONDS
	RANGE=${1:-}
	if [[ -z $RANGE ]]; then
		parse_branches
		ver=$(package_version)
		RANGE="$(base_ref "$ver")..refs/heads/$TOPIC_NAME"
	fi
	[[ -d $WF_REPO/.git || -f $WF_REPO/HEAD ]] || bad_input "no kernel repo at $WF_REPO (run: make rebuild)"
	load_checks
	[[ -z $LOOKUP ]] || checks=$LOOKUP
	select_results "$checks"
	assign_stages
	load_commits "$RANGE"
	if [[ -n $LOOKUP ]]; then
		kept_at_tip "$LOOKUP"
		return
	fi
	mkdir -p "$WF_CACHE/validate"
	exec 9>"$WF_CACHE/validate/lock"
	flock -n 9 || bad_input "another validate.sh is running on $WF_CACHE (lock: $WF_CACHE/validate/lock)"
	# The results being made: gone however the run ends (it holds the
	# lock), and a killed run's are removed now.
	rm -rf "$RESULTS/tmp"
	trap 'rm -rf "$RESULTS/tmp"' EXIT
	trap 'on_signal INT' INT
	trap 'on_signal TERM' TERM
	trap 'on_signal HUP' HUP
	static_keys
	mkdir -p "$RESULTS" "$outdir"
	TIMINGS=$outdir/timings.tsv
	printf '%s\t0\tstart\t%s\n' "$EPOCHREALTIME" "$RANGE" 2>/dev/null >"$TIMINGS" || out_full_or_die "$TIMINGS"
	n=$((${#COMMITS[@]} - 1))
	info "$n commit(s) in $RANGE; checks: ${RUN_ORDER[*]}"
	info "in stages: $(stage_list)"
	OUTDIR=$outdir RUN_STATE=running STREAMED=$SECONDS
	check_all
	printf '%s\t%s\tend\treport\n' "$EPOCHREALTIME" "$n" >>"$TIMINGS" 2>/dev/null || true
	RUN_STATE="done"
	[[ -z $STOPPED_AT ]] || RUN_STATE=stopped
	publish_reports
	cat "$outdir/report.txt"
	info "report: $outdir/report.txt, $outdir/report.html; results: $outdir/results.json"
	if [[ -n $STOPPED_AT ]]; then
		info "FAIL_FAST: stopped at the first failing result: $STOPPED_AT"
		[[ $STOPPED_AT != *"]: infra: "* ]] || return 3
		return 1
	fi
	infra=$(count infra)
	failed=$(count fail)
	if [[ $infra -gt 0 ]]; then
		rc=3
	elif [[ $failed -gt 0 ]]; then
		rc=1
	fi
	return $rc
}

main "$@"
