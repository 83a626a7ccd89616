#!/usr/bin/env bash
# Fault injection: kill each command that changes state at random moments
# and check that its next run recovers by itself and gives the result of
# an uninterrupted run.
#
#   dev/faults.sh [-s SEED] [-k KILLS] [-n] [-a] [COMMAND...]
#
# COMMAND: rebuild, base, export, other-base, bisect, port, validate,
# stress, submit, send, trailers, full-disk (default: all, in that order).
# full-disk is validate and stress on a full disk (see "a full disk"
# below).  For each other: after a first run that warms the cache up (-n:
# none, the cache is warm), an uninterrupted run gives the reference result
# (commit ids, tree of files, printed result) and its duration; then
# KILLS times (default 20): start the command in a process group of its
# own, send SIGKILL, SIGTERM or SIGINT (chosen by the seed) to the group
# after a random delay within that duration, wait until the group is
# gone, run the command again normally and compare its result with the
# reference.  A run that ended before the signal is not counted (and is
# tried again, up to 3 x KILLS times, with the delays drawn within the
# time that run took, at most 3/4 of the range that missed: the runs
# after the reference can be faster, a cache warmed).  Prints the table
#   command | kills | recovered | identical
# (recovered: the next run succeeded; identical: and gave the reference
# result, with no scratch state left behind) and exits 1 when a row is
# short.  SEED and KILLS may also come from the environment.
#
# -a aims the kills at the phases of the command's own run marker
# ($WF_CACHE/<command>.run, "phase=..."; see tools/lib/run.sh) instead of the
# whole run: the reference run is watched to learn each phase's length,
# and kill number i waits until its run is in phase i mod (number of
# phases), then sleeps a random delay within that phase's length.  A run
# that is past the phase before it was seen counts as ended before the
# signal.  A command with no marker (validate) is killed at random.
#
# The cache is $WF_CACHE when it is set, else ~/.cache/sysctl-wf-faults:
# never the workflow's own cache unless WF_CACHE names it.  The commands
# work on a copy of branches.txt and the patch directory
# ($WF_CACHE/faults/top), never on the checkout's.  Logs: $WF_CACHE/faults.
#
# A row is four functions, row_<name>_setup (once), row_<name>_prepare
# (before every run: give the command work to do), row_<name>_cmd (sets
# CMD) and row_<name>_result (prints what must be identical; $1 is the
# run's stdout), and optionally row_<name>_teardown (once, at the end).
#
# validate and stress run as the environment says: on the real series
# they build kernels (CHECKS= and VALIDATE_RANGE= limit validate's checks
# and commits; stress boots the debug kernel with small counts), on the
# fixture of tests/faults-fixture.sh (eval "$(tests/faults-fixture.sh
# DIR)") they use the fixture kernel of
# tests/fixtures/validate (WF_TEST_VALIDATE_BOOT) and the fixture guest of
# tests/fixtures/stress (WF_TEST_STRESS_RUN, WF_TEST_STRESS_MKINITRAMFS,
# FAULTS_STRESS_KERNEL).  submit and send use FORCE (the preflight is not
# what they test) and the sender FAULTS_SENDER; send sends to a local SMTP
# server of its own (tests/fixtures/send/smtp-server.py, aiosmtpd), and
# its result is what that server received.
set -euo pipefail
if [[ -z ${WF_CACHE:-} ]]; then
	WF_CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/sysctl-wf-faults
fi
export WF_CACHE
unset WF_REPO
unset WF_REBUILD_TREE WF_OTHER_TREE WF_BISECT_TREE
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/../tools/lib.sh"

FAULTS=$WF_CACHE/faults
ALL_ROWS=(rebuild base export other-base bisect port validate stress submit send trailers full-disk)
# The signals a kill sends, one drawn at random for each: WF_TEST_FAULTS_SIGNALS
# (space separated, as "KILL TERM") narrows them, for a row whose test
# is about one of them.
read -r -a SIGNALS <<<"${WF_TEST_FAULTS_SIGNALS:-KILL TERM INT}"

usage() {
	echo "usage: $0 [-s SEED] [-k KILLS] [-n] [-a] [${ALL_ROWS[*]}]..." >&2
	exit 2
}

# shellcheck source=dev/lib/faults-rows.sh
. "$WF_HOME/dev/lib/faults-rows.sh"
# shellcheck source=dev/lib/faults-full-disk.sh
. "$WF_HOME/dev/lib/faults-full-disk.sh"

# ---------------------------------------------------------------- the harness

# run_fn ROW WHAT [ARGS...]: call row_<ROW>_<WHAT>.
run_fn() {
	local row=$1 what=$2
	shift 2
	"row_${row//-/_}_$what" "$@"
}

# start_in_group OUT: start CMD in a process group of its own, with the
# default disposition of SIGINT (a background job of a script ignores
# it); sets PID (also the group id).
start_in_group() {
	# shellcheck disable=SC2016 # perl code
	setsid perl -e '$SIG{INT} = $SIG{QUIT} = "DEFAULT"; exec @ARGV or die "$ARGV[0]: $!\n"' \
		"${CMD[@]}" >"$1" 2>"$1.err" </dev/null &
	PID=$! RUN_T0=$(now_ms)
}

# sleep_unless_ended MS: sleep MS milliseconds, or less when the run
# started by start_in_group ends first (then fails).  RAN: how long the
# run has taken so far (MS when it outlived the sleep; a run that ends
# just after it took about that).
sleep_unless_ended() {
	local sleeper ended=''
	sleep "$(printf '%d.%03d' $(($1 / 1000)) $(($1 % 1000)))" &
	sleeper=$!
	wait -n -p ended "$PID" "$sleeper" 2>/dev/null || true
	if [[ $ended == "$sleeper" ]]; then
		RAN=$1
		return 0
	fi
	RAN=$(($(now_ms) - RUN_T0))
	kill "$sleeper" 2>/dev/null || true
	wait "$sleeper" 2>/dev/null || true
	return 1
}

# wait_group PID: reap the leader, then wait until no process of its
# group is left (SIGKILL after 60 s).
wait_group() {
	local pid=$1 n=0
	{ wait "$pid"; } 2>/dev/null || true
	while kill -0 -- "-$pid" 2>/dev/null; do
		n=$((n + 1))
		[[ $n -eq 1200 ]] && kill -KILL -- "-$pid" 2>/dev/null
		sleep 0.05
	done
}

now_ms() {
	local t=${EPOCHREALTIME/[.,]/}
	printf '%s\n' "$((t / 1000))"
}

# leader_alive PID: the process PID runs (not a zombie).  Builtins only.
leader_alive() {
	local stat
	{ read -r stat <"/proc/$1/stat"; } 2>/dev/null || return 1
	stat=${stat##*) }
	[[ ${stat%% *} != Z ]]
}

# watch_phases PID T0: while the process PID runs, note each phase MARKER
# names, in order, into PHASES, and how long the run stayed in it (ms;
# the last one until PID ended) into PHASE_LEN.  The marker's list of
# the phases it has been in names those that came and went between two
# polls too (WF_TEST_FAULTS_POLL: the seconds between polls, 0.005): each
# is taken to have begun when it was first seen listed.
watch_phases() {
	local pid=$1 t0=$2 last='' now i poll=${WF_TEST_FAULTS_POLL:-0.005}
	local -a names=() starts=()
	# shellcheck disable=SC2310 # leader_alive is one test: its status is the answer
	while leader_alive "$pid"; do
		marker_phase "$MARKER"
		now=$(($(now_ms) - t0))
		if [[ ${#MPHASES[@]} -gt ${#names[@]} ]]; then
			for ((i = ${#names[@]}; i < ${#MPHASES[@]}; i++)); do
				names+=("${MPHASES[i]}")
				starts+=("$now")
			done
			last=${names[-1]}
		elif [[ ${#MPHASES[@]} -eq 0 && -n $MPHASE && $MPHASE != "$last" ]]; then
			names+=("$MPHASE")
			starts+=("$now")
			last=$MPHASE
		fi
		nap "$poll"
	done
	now=$(($(now_ms) - t0))
	PHASES=() PHASE_LEN=()
	for i in "${!names[@]}"; do
		PHASES+=("${names[i]}")
		if [[ $((i + 1)) -lt ${#names[@]} ]]; then
			PHASE_LEN+=($((starts[i + 1] - starts[i])))
		else
			PHASE_LEN+=($((now - starts[i])))
		fi
		[[ ${PHASE_LEN[-1]} -ge 1 ]] || PHASE_LEN[-1]=1
	done
}

# wait_phase PID NAME INDEX: wait until the run of group PID is in phase
# NAME (the INDEX-th of PHASES); false when the run ended or the marker
# went on to a later phase first.
wait_phase() {
	local pid=$1 name=$2 idx=$3 j
	# shellcheck disable=SC2310 # leader_alive is one test: its status is the answer
	while leader_alive "$pid"; do
		marker_phase "$MARKER"
		[[ $MPHASE == "$name" ]] && return 0
		for ((j = idx + 1; j < ${#PHASES[@]}; j++)); do
			[[ $MPHASE == "${PHASES[j]}" ]] && return 1
		done
		nap 0.005
	done
	return 1
}

# run_row ROW: the reference run, then the kills; appends a row to ROWS_OUT
# and sets SHORT=1 when the row is short.  It relies on set -e (its setup,
# its reference result): call it on its own.
run_row() {
	local row=$1 dir=$FAULTS/$1 t0 dur span i kills=0 recovered=0 identical=0 missed=0
	local delay sig rc res p at
	local -a sigs_used=() asked=()
	rm -rf "$dir"
	mkdir -p "$dir"
	run_fn "$row" setup
	run_fn "$row" cmd
	# A first run warms the cache up (worktrees, objects), so that the
	# reference run measures the duration of the runs that get killed.
	if [[ $WARM_UP -eq 1 ]]; then
		run_fn "$row" prepare
		"${CMD[@]}" >"$dir/warm-up.out" 2>"$dir/warm-up.err" ||
			die "the uninterrupted run of $row failed (see $dir/warm-up.err)"
	fi
	MARKER=$WF_CACHE/$row.run
	if declare -F "row_${row//-/_}_marker" >/dev/null; then run_fn "$row" marker; fi
	# What the row's command may leave behind: the scratch paths its
	# marker lists (leftovers reads them), seen while the reference run
	# goes and in the marker of each killed run.
	declare -gA ROW_SCRATCH=()
	PHASES=() PHASE_LEN=()
	run_fn "$row" prepare
	t0=$(now_ms)
	"${CMD[@]}" >"$dir/reference.out" 2>"$dir/reference.err" &
	watch_phases $! "$t0"
	wait $! || die "the uninterrupted run of $row failed (see $dir/reference.err)"
	[[ $AIM -eq 1 ]] || PHASES=() PHASE_LEN=()
	dur=$(($(now_ms) - t0))
	run_fn "$row" result "$dir/reference.out" >"$dir/reference.result"
	info "$row: reference run $dur ms; $KILLS kill(s)$([[ $AIM -eq 0 ]] || printf ', aimed at %s' \
		"$(for i in "${!PHASES[@]}"; do printf '%s (%s ms) ' "${PHASES[i]}" "${PHASE_LEN[i]}"; done)")"
	span=$((dur >= 1 ? dur : 1))
	for ((i = 1; kills < KILLS && i <= 3 * KILLS; i++)); do
		run_fn "$row" prepare
		sig=${SIGNALS[RANDOM % ${#SIGNALS[@]}]}
		if [[ ${#PHASES[@]} -gt 0 ]]; then
			p=$((kills % ${#PHASES[@]}))
			delay=$(((RANDOM * 32768 + RANDOM) % PHASE_LEN[p]))
			at="${PHASES[p]}+$delay ms"
			start_in_group "$dir/$i.killed.out"
			# shellcheck disable=SC2310 # its status is the answer: the phase was seen
			if ! wait_phase "$PID" "${PHASES[p]}" "$p"; then
				# Past the phase: let it end, an uninterrupted run.
				wait_group "$PID"
				missed=$((missed + 1))
				continue
			fi
		else
			delay=$(((RANDOM * 32768 + RANDOM) % span))
			at="$delay ms"
			start_in_group "$dir/$i.killed.out"
		fi
		# shellcheck disable=SC2310 # its status is the answer: the run outlived the delay
		if ! sleep_unless_ended "$delay" || ! kill -s "$sig" -- "-$PID" 2>/dev/null; then
			# It ended before the signal.
			wait_group "$PID"
			missed=$((missed + 1))
			# The runs are faster than the reference (a cache it
			# warmed): aim earlier from now on, within the phase with
			# -a, else within the time the run that ended took.
			if [[ ${#PHASES[@]} -gt 0 ]]; then
				PHASE_LEN[p]=$((delay > PHASE_LEN[p] * 3 / 4 ? delay : PHASE_LEN[p] * 3 / 4 + 1))
			else
				span=$((RAN < span * 3 / 4 ? RAN : span * 3 / 4 + 1))
				[[ $span -ge 1 ]] || span=1
			fi
			continue
		fi
		wait_group "$PID"
		marker_phase "$MARKER"
		kills=$((kills + 1))
		sigs_used+=("$sig")
		rc=0
		"${CMD[@]}" >"$dir/$i.out" 2>"$dir/$i.err" || rc=$?
		# A command that cannot know what the kill did asks the user
		# (row_<name>_answer gives the answer): the run with it counts.
		ANSWER=()
		# shellcheck disable=SC2310 # its status is the answer: the question was recognised
		if [[ $rc -ne 0 ]] && declare -F "row_${row//-/_}_answer" >/dev/null &&
			run_fn "$row" answer "$dir/$i.err"; then
			asked+=("$i: ${ANSWER[*]}")
			mv "$dir/$i.err" "$dir/$i.asked.err"
			rc=0
			"${CMD[@]}" "${ANSWER[@]}" >"$dir/$i.out" 2>"$dir/$i.err" || rc=$?
		fi
		[[ $rc -eq 0 ]] && recovered=$((recovered + 1))
		# shellcheck disable=SC2310 # its output, errors too, is the answer: compared with the reference
		res=$(run_fn "$row" result "$dir/$i.out" 2>&1) || true
		if [[ $rc -eq 0 && $res == "$(cat "$dir/reference.result")" ]]; then
			identical=$((identical + 1))
			printf '%s\t%s\t%s\tSIG%s\trecovered%s\tidentical\n' "$row" "$i" "$at" "$sig" "${ANSWER[*]:+ after ${ANSWER[*]}}"
		else
			diff <(printf '%s\n' "$res") "$dir/reference.result" >"$dir/$i.diff" || true
			printf '%s\t%s\t%s\tSIG%s\t%s\t%s\n' "$row" "$i" "$at" "$sig" \
				"$([[ $rc -eq 0 ]] && echo recovered || echo "FAILED (exit $rc, see $dir/$i.err)")" \
				"DIFFERENT (see $dir/$i.diff)"
		fi >>"$FAULTS/log.txt"
	done
	if declare -F "row_${row//-/_}_teardown" >/dev/null; then run_fn "$row" teardown; fi
	ROWS_OUT+=("$row|$kills|$recovered/$kills|$identical/$kills")
	NOTES+=("$row: reference run $dur ms; ${#ROW_SCRATCH[@]} scratch path(s) from its marker; signals:$(printf '%s\n' "${sigs_used[@]}" | sort | uniq -c |
		awk '$2 != "" { printf " SIG%s x%s", $2, $1 }'); $missed run(s) ended before the signal$(
		[[ ${#asked[@]} -eq 0 ]] || printf '; %s run(s) asked the user, answered from what was done (%s)' \
			"${#asked[@]}" "$(IFS=,; echo "${asked[*]}")")")
	[[ $kills -eq $KILLS && $recovered -eq $kills && $identical -eq $kills ]] || SHORT=1
}

# copy_top: the commands work on a copy of branches.txt and the patches.
copy_top() {
	local top=$FAULTS/top
	rm -rf "$top"
	mkdir -p "$top"
	cp "$WF_BRANCHES" "$top/branches.txt"
	mkdir -p "$top/$TOPIC_PATCHDIR"
	cp -a "$WF_TOP/$TOPIC_PATCHDIR/." "$top/$TOPIC_PATCHDIR/"
	# For submit and send: the cover letters, the revisions sent, the
	# last validation.
	[[ ! -d $WF_TOP/cover-letters ]] || cp -a "$WF_TOP/cover-letters" "$top/"
	if [[ -e $WF_OUT/validate/results.json ]]; then
		mkdir -p "$top/out/$TOPIC_ID/validate"
		cp "$WF_OUT/validate/results.json" "$top/out/$TOPIC_ID/validate/"
	fi
	export WF_TOP=$top WF_BRANCHES=$top/branches.txt
	select_branch
}

main() {
	local seed=${SEED:-1} row rc=0 ver
	local -a rows
	KILLS=${KILLS:-20} WARM_UP=1 AIM=0
	while getopts 's:k:na' opt; do
		case $opt in
		s) seed=$OPTARG ;;
		k) KILLS=$OPTARG ;;
		n) WARM_UP=0 ;;
		a) AIM=1 ;;
		*) usage ;;
		esac
	done
	shift $((OPTIND - 1))
	[[ $seed =~ ^[0-9]+$ ]] || bad_input "SEED '$seed' is not a number"
	[[ $KILLS =~ ^[0-9]+$ ]] || bad_input "KILLS '$KILLS' is not a number"
	rows=("$@")
	[[ ${#rows[@]} -gt 0 ]] || rows=("${ALL_ROWS[@]}")
	for row in "${rows[@]}"; do
		[[ $row == full-disk ]] || declare -F "row_${row//-/_}_cmd" >/dev/null || bad_input "unknown command '$row' (known: ${ALL_ROWS[*]})"
	done
	parse_branches
	[[ -r $TOPIC_TARBALL ]] || die "$TOPIC_TARBALL not found (install it: apt-get install $TOPIC_PACKAGE)"
	ver=$(package_version)
	BASE_REF=$(base_ref "$ver")
	# One run per cache: a second would remove the first's results and
	# copy its patches under it.
	wf_lock faults
	mkdir -p "$FAULTS"
	copy_top
	info "cache $WF_CACHE_ROOT (WF_CACHE), seed $seed, $KILLS kill(s) per command: ${rows[*]}"
	: >"$FAULTS/log.txt"
	RANDOM=$seed
	ROWS_OUT=() NOTES=() FULL_OUT=() SHORT=0 FULL_SHORT=0
	for row in "${rows[@]}"; do
		if [[ $row == full-disk ]]; then
			run_full_disk
		else
			run_row "$row"
		fi
	done
	[[ $SHORT -eq 0 && $FULL_SHORT -eq 0 ]] || rc=1
	{
		[[ ${#ROWS_OUT[@]} -eq 0 ]] ||
			printf '%s\n' "command|kills|recovered|identical" "${ROWS_OUT[@]}" | column -t -s '|' -o ' | '
		[[ ${#NOTES[@]} -eq 0 ]] || printf '%s\n' "${NOTES[@]}"
		[[ ${#FULL_OUT[@]} -eq 0 ]] ||
			printf '%s\n' "full disk|tmpfs|exit|infrastructure error|next run" "${FULL_OUT[@]}" |
			column -t -s '|' -o ' | '
	} | tee "$FAULTS/table.txt"
	[[ $SHORT -eq 0 ]] || info "a command did not recover from every kill: see $FAULTS/log.txt"
	[[ $FULL_SHORT -eq 0 ]] || info "a full disk was not named as an infrastructure error, or the run after it differed: see $FAULTS/full-disk"
	return $rc
}

long_options no-warm-up=n -- "$@"
main "${LONG_ARGS[@]}"
