#!/usr/bin/env bash
# One step of runner/validate.sh: a result at a commit, from the cache or
# by running its check in the validation worktree, with a progress line
# as it starts and a heartbeat while it runs; and why a check that could
# not run could not (an infrastructure error).  Sourced, never run, after
# runner/cache.sh.
# shellcheck shell=bash

# label I: "base" or "i/n".
label() {
	if [[ $1 -eq 0 ]]; then echo base; else echo "$1/$((${#COMMITS[@]} - 1))"; fi
}

# progress I RESULT WHAT: one line on stderr, and the start of a step in
# OUTDIR/timings.tsv (time, commit, result, step; a step lasts until the
# next line), for dev/bench-validate.sh and whoever wonders where the
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
	if result_declares "$r" build-dir && needs_kept "$r"; then
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
	local r=$1 i=$2 dep dir tmp st summary reason log prev=''
	dep=$(needs "$r")
	# shellcheck disable=SC2310 # its status is its answer
	if [[ -n $dep ]] && ! usable "$dep" "$i"; then
		set_cell "$i" "$r" skip 0 "not run: $dep gave no usable result on this commit" ''
		return
	fi
	# shellcheck disable=SC2310 # its status is its answer
	if result_declares "$r" compare; then prev=${PREV_DIR[$r]:-}; fi
	keyed "$r" "$i"
	# (no subshell per result: a warm run is all lookups)
	dir=$RESULTS/$r/${KEY[$r,$i]}
	# shellcheck disable=SC2310 # its status is its answer
	if [[ -f $dir/status ]] && { [[ ! -e $dir/state ]] || kept_complete "$r" "$dir"; }; then
		set_cell "$i" "$r" "$(cat "$dir/status")" 1 "$(head -n 1 "$dir/summary")" "$dir/log"
	elif [[ -n $LOOKUP ]]; then
		# (-k: the cache alone)
		exit 1
	elif [[ -n $PLAN ]]; then
		# (-n: nothing runs)
		plan_step "$r" "$i"
		return
	else
		before_step "$r"
		prepare_build "$r" "$i"
		progress "$i" "$r" "${R_CHECK[$r]}$([[ $i -ne 0 ]] || echo ' (the base: the first comparison)')"
		tmp=$(new_result)
		local t0=${EPOCHREALTIME//[!0-9]/}
		run_check "$r" "$i" "$tmp" "$prev"
		# (what the check took, in seconds, for the estimate of a plan: -n)
		t0=$((${EPOCHREALTIME//[!0-9]/} - t0))
		printf '%d.%d\n' $((t0 / 1000000)) $((t0 % 1000000 / 100000)) >"$tmp/seconds" 2>/dev/null || true
		summary=$(head -n 1 "$tmp/summary" 2>/dev/null | cut -c1-300) || summary=''
		reason=$(infra_reason "$r" "$i" "$tmp")
		# shellcheck disable=SC2310 # its status is its answer
		if [[ -z $reason && -e $tmp/state ]] && result_declares "$r" keep; then reason=$(keep_files "$r" "$tmp"); fi
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
	if [[ -e $dir/state ]]; then mark_usable "$r" "$i" "$dir"; fi
}
