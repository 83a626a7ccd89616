#!/usr/bin/env bash
# The plan of runner/validate.sh (-n; make validate PLAN=1): the walk over
# the commits (check_all) with nothing run: each result comes from the
# cache (its verdict) or would run now (plan_step); then the table of it
# and an estimate of the time the results to run take, from the timings
# recorded by earlier runs.  Nothing is written, no lock is taken, no
# worktree made.  Sourced, never run, after runner/report.sh.
# shellcheck shell=bash

# plan_run: the plan, on stdout.
plan_run() {
	# (cell_of: every selected cell is known; nothing is pending)
	# shellcheck disable=SC2034 # read by cell_of (runner/report.sh)
	RUN_STATE=plan
	static_keys
	check_all
	write_plan
}

# plan_step RESULT I: RESULT at commit I would run now.  It is taken as
# usable (a check that runs leaves its state, as a rule): what needs it
# or compares with it would run after it, under the key it would have.
plan_step() {
	set_cell "$2" "$1" run 0 "to run now" ''
	mark_usable "$1" "$2" ''
}

# recorded_timings: "RESULT DECISECONDS", the time one run of RESULT
# takes, for each result with a recorded timing: the mean of what its
# stored results took (their file "seconds"), else the mean of its steps
# in REPORT_DIR/timings.tsv (a step lasts until the next one starts).
recorded_timings() {
	local tsv=$REPORT_DIR/timings.tsv
	{
		[[ ! -d $RESULTS ]] ||
			find "$RESULTS" -mindepth 3 -maxdepth 3 -name seconds -exec \
				awk '{ n = split(FILENAME, p, "/"); print "cache", p[n - 2], $1 + 0 }' {} +
		[[ ! -r $tsv ]] ||
			awk -F'\t' 'NR > 1 && c != "start" && c != "end" { print "tsv", c, $1 - t } { t = $1; c = $3 }' "$tsv"
	} | awk '{ if ($1 == "cache") { cs[$2] += $3; cn[$2]++ } else { ts[$2] += $3; tn[$2]++ } }
		END { for (k in cn) printf "%s %d\n", k, cs[k] / cn[k] * 10 + 0.5
		      for (k in tn) if (!(k in cn)) printf "%s %d\n", k, ts[k] / tn[k] * 10 + 0.5 }'
}

# plan_branch_line: what the range's tip is against patches/ (branch_note).
plan_branch_line() {
	local line="plan: the branch as it stands ($AS_IS_BRANCH), $UNEXPORTED commit(s) not exported"
	[[ -n $AS_IS || $UNEXPORTED -eq 0 ]] ||
		line+=": make validate would refuse them (AS_IS=1 validates them as they stand)"
	[[ $UNCOMMITTED -eq 0 ]] || line+="; its uncommitted changes would not be validated"
	printf '%s\n' "$line"
}

# deciseconds_text DS: "~1m05s" for DS tenths of a second.
deciseconds_text() {
	printf '~%s' "$(vl_elapsed $((($1 + 5) / 10)))"
}

# write_plan: the plan's table (a result from the cache shows its
# verdict, marked *; one to run now, "run"), the counts, what runs how
# many times and for how long, and the estimate.
write_plan() {
	local n=$((${#COMMITS[@]} - 1)) i r total=0 fromcache=0 torun=0 atbase=0 est=0 known=0 res ds
	local runs_line='' unknown='' line
	local -A runs=() mean=()
	printf 'validate: plan for %d commit(s) on %s (%s): nothing is run or written\n' "$n" "${COMMITS[0]:0:12}" "$RANGE"
	plan_branch_line
	write_tables
	for ((i = 0; i <= n; i++)); do
		for r in "${RUN_ORDER[@]}"; do
			[[ -n ${STATUS[$i,$r]:-} && -z ${TIP_ONLY[$i,$r]:-} ]] || continue
			if [[ ${STATUS[$i,$r]} == run ]]; then
				runs[$r]=$((${runs[$r]:-0} + 1))
				if [[ $i -eq 0 ]]; then atbase=$((atbase + 1)); else torun=$((torun + 1)); fi
			fi
			[[ $i -gt 0 ]] || continue
			total=$((total + 1))
			[[ ${CACHED[$i,$r]} -eq 0 ]] || fromcache=$((fromcache + 1))
		done
	done
	line="$total result(s): $fromcache from the cache (marked *), $torun to run now"
	[[ $atbase -eq 0 ]] || line+=", and $atbase at the base"
	[[ $((total - fromcache - torun)) -eq 0 ]] || line+=", $((total - fromcache - torun)) not run (what they need gave no usable result)"
	printf '\n%s\n' "$line"
	while read -r res ds; do
		[[ -z $res ]] || mean[$res]=$ds
	done <<<"$(recorded_timings)"
	for r in "${RUN_ORDER[@]}"; do
		[[ -n ${runs[$r]:-} ]] || continue
		if [[ -n ${mean[$r]:-} ]]; then
			runs_line+=", $r ${runs[$r]} ($(deciseconds_text "${mean[$r]}") each)"
			est=$((est + ${runs[$r]} * ${mean[$r]})) known=1
		else
			runs_line+=", $r ${runs[$r]} (no timing recorded)"
			unknown+=" $r"
		fi
	done
	if [[ -z $runs_line ]]; then
		printf 'estimate: 0m00s: every result comes from the cache\n'
		return 0
	fi
	printf 'to run: %s\n' "${runs_line#, }"
	if [[ $known -eq 0 ]]; then
		printf 'estimate: unknown: no timing recorded for%s\n' "$unknown"
	elif [[ -n $unknown ]]; then
		printf 'estimate: %s, and more: no timing recorded for%s\n' "$(deciseconds_text "$est")" "$unknown"
	else
		printf 'estimate: %s (the timings recorded in the cache and in %s)\n' "$(deciseconds_text "$est")" \
			"$REPORT_DIR/timings.tsv"
	fi
}
