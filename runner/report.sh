#!/usr/bin/env bash
# The reports of runner/validate.sh: report.txt (the table and the
# failures), results.json and report.html, written whole or not at all,
# again and again while the run goes on.  Sourced, never run.
#
# The table they show: a cell per commit and result (set_cell), with its
# status, whether it came from the cache, the check's summary and its
# log; the notes on the base; where FAIL_FAST stopped.
# shellcheck shell=bash

# reset_cells: an empty table.
reset_cells() {
	declare -gA STATUS=() CACHED=() SUMMARY=() LOG=() TIP_ONLY=()
	BASE_NOTES=() STOPPED_AT=''
}

# set_cell I RESULT STATUS CACHED SUMMARY LOG
set_cell() {
	STATUS[$1,$2]=$3
	CACHED[$1,$2]=$4
	SUMMARY[$1,$2]=$5
	LOG[$1,$2]=$6
}

# set_tip_only I RESULT: the cell of a check run at the tip only, below
# the tip: no result ("-"), a skip in results.json.
set_tip_only() {
	set_cell "$1" "$2" skip 0 "not run: at the tip only" ''
	TIP_ONLY[$1,$2]=1
}

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
	elif [[ $RUN_STATE == interrupted ]]; then
		CELL_ST=pending CELL_REASON="not run: the run was interrupted ($RUN_SIGNAL)"
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
	elif [[ $RUN_STATE == interrupted ]]; then
		printf 'interrupted (%s) after %s: %d of %d results known; ... never ran (run make validate again)\n' \
			"$RUN_SIGNAL" "$(vl_elapsed $((SECONDS - START)))" "$known" "$all"
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

# write_tables: the table of the results (cell_of), on stdout.  It fits
# in 100 columns: when its columns do not, with a subject of at least
# 20, they go into several tables one under the other, each with the
# commits and their subjects.
write_tables() {
	local r w fixed=18
	local -a block=()
	declare -A width=()
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
}

# write_report: the table and the failures, on stdout.
write_report() {
	local i n=$((${#COMMITS[@]} - 1)) r note total=0 cached=0 st tips
	printf 'validate: %d commit(s) on %s (%s)\n' "$n" "${COMMITS[0]:0:12}" "$RANGE"
	[[ -z $AS_IS ]] || printf 'validated: %s\n' "$BRANCH_NOTE"
	run_state_line
	write_tables
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
		--arg as_is "$AS_IS" --arg branch "${AS_IS_BRANCH:-}" --argjson unexported "${UNEXPORTED:-0}" \
		--arg uncommitted "${UNCOMMITTED:-0}" \
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
		 if $stopped != "" then .stopped_at = $stopped else . end |
		 if $as_is != "" then .as_is = {branch: $branch, unexported: $unexported,
		   uncommitted: ($uncommitted == "1")} else . end'
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
$([[ -z $AS_IS ]] || printf '<p>validated: %s</p>' "$(vl_html "$BRANCH_NOTE")")
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

# publish_reports: report.txt, results.json and report.html of RUN_STATE.
publish_reports() {
	publish "$OUTDIR/report.txt" write_report
	publish "$OUTDIR/results.json" write_json
	publish "$OUTDIR/report.html" write_html
}
