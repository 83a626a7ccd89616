#!/usr/bin/env bash
# The schedule of runner/validate.sh: which results run (what was asked
# and what it needs), in which stage (the cheap ones first), and the walk
# over the commits that says each result as soon as it is known.
# Sourced, never run, after runner/model.sh.
# shellcheck shell=bash

# select_results CHECKLIST: ENABLED[result]=1 for the comma list and what
# they need; RUN_ORDER: the enabled results, each after what it needs.
select_results() {
	local checklist=$1 r dep progress every
	local -a asked want=()
	declare -gA ENABLED=() ADDED=()
	IFS=, read -r -a asked <<<"${checklist:-$(IFS=,; echo "${RESULT_NAMES[*]}")}"
	for r in "${asked[@]}"; do
		[[ -n $r ]] || continue
		# CHECKS=boot: one line saying it is no boot; build-boot is boot.
		[[ -z $checklist ]] || name_per_config_result "$r"
		r=$(typed_result "$r")
		# shellcheck disable=SC2310 # its status is its answer
		if [[ -z ${R_CHECK[$r]:-} ]] && is_check "$r"; then
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
	every=${WF_EVERY_COMMIT:-}
	for r in ${every//,/ }; do
		# shellcheck disable=SC2310 # their status is their answer
		if ! is_check "$r" || ! declares "$r" tip; then
			bad_input "EVERY_COMMIT: '$r' is not a check run at the tip only"
		fi
	done
}

# every_commit RESULT: true when WF_EVERY_COMMIT (make EVERY_COMMIT=, a
# comma list of checks) names RESULT's check: a check of the tip only
# then runs at every commit.
every_commit() {
	[[ ,${WF_EVERY_COMMIT:-}, == *",${R_CHECK[$1]},"* ]]
}

# name_per_config_result RESULT: when RESULT is a per-config check's
# result typed by its config's name alone (CHECKS=boot: the build of the
# boot config, not its boot), one line saying what it is, its other name
# and the results that need it.
name_per_config_result() {
	local r=$1 dep users=''
	[[ -n ${R_CHECK[$r]:-} ]] || return 0
	# shellcheck disable=SC2310 # its status is its answer
	result_declares "$r" per-config || return 0
	for dep in "${RESULT_NAMES[@]}"; do
		[[ ${R_NEEDS[$dep]:-} != "$r" ]] || users+=" $dep"
	done
	info "'$r' is the ${R_CHECK[$r]} in the ${R_CONFIG[$r]} config (also ${R_CHECK[$r]}-${R_CONFIG[$r]})${users:+, not a boot; these need it:$users}"
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
	local r c dep bdir per some
	declare -gA STAGE=()
	for r in "${RUN_ORDER[@]}"; do
		c=${R_CHECK[$r]}
		dep=$(needs "$r")
		bdir=$(conf "$c" build-dir) per=$(conf "$c" per-config) some=$(conf "$c" configs)
		if [[ -z $dep && -z $bdir && -z ${R_CONFIG[$r]} ]]; then
			STAGE[$r]=1
		elif [[ -n $per && ${R_CONFIG[$r]} == "${PER_COMMIT[0]}" ]] ||
			[[ -n $dep && -z $bdir && -z $some && ${STAGE[$dep]} -eq 2 ]]; then
			STAGE[$r]=2
		else
			STAGE[$r]=3
		fi
		[[ -z $dep || ${STAGE[$dep]} -le ${STAGE[$r]} ]] || STAGE[$r]=${STAGE[$dep]}
	done
}

# on_signal SIG: (the check in the foreground has ended) clean up, say
# in the reports that the run was interrupted (a report that says "in
# progress" would say it for ever), die of SIG.
on_signal() {
	# (a subshell that got the signal before resetting its traps: it ends)
	[[ $BASHPID == "$$" ]] || exit 1
	[[ -z $BEAT_PID ]] || kill "$BEAT_PID" 2>/dev/null || true
	if [[ -n $OUTDIR ]]; then
		# shellcheck disable=SC2034 # read by the writers of report.sh
		RUN_STATE=interrupted RUN_SIGNAL=SIG$1
		# (in a subshell: a writer that fails must not end the handler)
		(publish_reports) 2>/dev/null || true
	fi
	rm -rf "$RESULTS/tmp"
	trap - "$1" EXIT
	kill -s "$1" $$
}

# check_all: stage by stage (assign_stages), every selected result of
# the stage with a baseline at the base, then every one at each commit (a
# tip-only check at the last commit only, unless WF_EVERY_COMMIT names
# it; its cells below read "-"),
# from the cache or run now; the cells, keys and base notes start empty.
# Each result is said as soon as it is known (result_known); with
# FAIL_FAST, the first that fails ends the walk (STOPPED_AT).
check_all() {
	local i r n=$((${#COMMITS[@]} - 1)) stage
	reset_results
	reset_cells
	for stage in 1 2 3; do
		for r in "${RUN_ORDER[@]}"; do
			[[ ${STAGE[$r]} -eq $stage ]] || continue
			# shellcheck disable=SC2310 # its status is its answer
			result_declares "$r" baseline || continue
			check_result "$r" 0
			[[ ${STATUS[0,$r]} == pass ]] ||
				BASE_NOTES+=("$r at the base: ${STATUS[0,$r]}: ${SUMMARY[0,$r]}${LOG[0,$r]:+ (log: ${LOG[0,$r]})}")
		done
		for ((i = 1; i <= n; i++)); do
			for r in "${RUN_ORDER[@]}"; do
				[[ ${STAGE[$r]} -eq $stage ]] || continue
				# shellcheck disable=SC2310 # its status is its answer
				if [[ $i -lt $n ]] && result_declares "$r" tip && ! every_commit "$r"; then
					set_tip_only "$i" "$r"
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
	[[ -z $LOOKUP && -z $PLAN ]] || return 0
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
	STREAMED=$SECONDS UNPUBLISHED=''
	publish_reports
}

# before_step RESULT: RESULT is about to run.  A step of stage 2 or 3 (a
# build, a boot) takes minutes: the reports get what is known first.
before_step() {
	[[ ${STAGE[$1]} -lt 2 ]] || stream_report now
}

# lookup_kept RESULT: (-k) "TREE DIR" of RESULT at the last commit, from
# the cache alone (check_result exits 1 at the first result that is not
# cached); 1 when the result there is not usable.
lookup_kept() {
	local res n=$((${#COMMITS[@]} - 1))
	res=$(typed_result "$1")
	# shellcheck disable=SC2310 # its status is its answer
	result_declares "$res" keep || bad_input "-k: $res keeps no files"
	static_keys
	check_all
	# shellcheck disable=SC2310 # its status is its answer
	usable "$res" "$n" || return 1
	printf '%s %s\n' "${TREES[$n]}" "$(kept_dir "$res" "$n")"
}
