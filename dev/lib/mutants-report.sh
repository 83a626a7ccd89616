#!/usr/bin/env bash
# What the runs of dev/mutants.sh found: the test that killed each
# mutant, the table, and which check or command no mutant aims at.
# Sourced, never run.
# shellcheck shell=bash

# count_tests SUITE FILTER: COUNT, the number of tests of SUITE that
# FILTER selects (-1 when bats cannot read the suite).
count_tests() {
	local -a args=()
	[[ -z $2 ]] || args=(--filter "$2")
	COUNT=$(cd "$SCRATCH/copy/tests" && bats --count "${args[@]}" "$1" 2>/dev/null) || COUNT=-1
	[[ $COUNT =~ ^[0-9]+$ ]] || COUNT=-1
}


# killed_by: the killed-by column of the run just made.
killed_by() {
	local first n more
	if [[ $RUN_TIMEOUT -eq 1 ]]; then
		echo "timeout ($(vl_elapsed "$TIMEOUT"))"
		return 0
	fi
	if [[ -z $RUN_FAILED ]]; then
		# (run.sh's own verdicts: no test run, a count that does not add
		# up, a test that wrote into WF_CACHE)
		first=$(grep -m1 -E '^# (bats ran no test|bats planned|a test wrote into WF_CACHE)' "$RUN_LOG" || true)
		echo "tests/run.sh exit $RUN_RC${first:+: ${first#\# }}"
		return 0
	fi
	first=$(head -n 1 <<<"$RUN_FAILED")
	n=$(wc -l <<<"$RUN_FAILED")
	more=''
	[[ $n -le 1 ]] || more=" (+$((n - 1)) more)"
	[[ ${#first} -le 60 ]] || first="${first:0:57}..."
	echo "$first$more"
}


# targets: the check directories and commands of the checkout, one a line.
targets() {
	local d f
	for d in "$TOP"/checks/*/; do
		[[ -f $d/run ]] && echo "checks/$(basename "$d")"
	done
	for f in "$TOP"/tools/*.sh "$TOP"/dev/*.sh; do
		[[ -f $f && $(basename "$f") != lib*.sh ]] && echo "${f#"$TOP"/}"
	done
	for f in "$TOP"/runner/*.sh; do
		[[ -f $f ]] && echo "runner/$(basename "$f")"
	done
	return 0
}


# coverage: print each target with the mutants whose diff touches it;
# UNCOVERED the targets with none, space-separated.
coverage() {
	local t m name aims path
	local -A touched=()
	UNCOVERED=''
	for m in "$MDIR"/*.patch; do
		[[ -e $m ]] || continue
		name=$(basename "$m" .patch)
		touched[$name]=$(sed -n 's|^diff --git a/\(.*\) b/.*$|\1|p' "$m")
	done
	while IFS= read -r t; do
		aims=''
		for name in "${!touched[@]}"; do
			while IFS= read -r path; do
				[[ $path == "$t" || $path == "$t"/* ]] || continue
				aims+=" $name"
				break
			done <<<"${touched[$name]}"
		done
		aims=$(tr ' ' '\n' <<<"$aims" | sed '/^$/d' | sort | paste -sd ' ')
		printf '%-24s %s\n' "$t" "${aims:-(none)}"
		[[ -n $aims ]] || UNCOVERED+=" $t"
	done < <(targets)
	UNCOVERED=${UNCOVERED# }
}


# print_table: the results as "mutant | suites | killed by | time" and
# the closing count.
print_table() {
	local name w1=6 w2=6 w3=9
	for name in "${NAMES[@]}"; do
		[[ ${#name} -le $w1 ]] || w1=${#name}
		[[ ${#R_SUITES[$name]} -le $w2 ]] || w2=${#R_SUITES[$name]}
		[[ ${#R_BY[$name]} -le $w3 ]] || w3=${#R_BY[$name]}
	done
	printf "%-${w1}s | %-${w2}s | %-${w3}s | %s\n" mutant suites "killed by" time
	for name in "${NAMES[@]}"; do
		printf "%-${w1}s | %-${w2}s | %-${w3}s | %s\n" "$name" "${R_SUITES[$name]}" "${R_BY[$name]}" "${R_TIME[$name]}"
	done
	if [[ $ERRORS -gt 0 ]]; then
		echo "$KILLED killed, $SURVIVED survived, $ERRORS errors"
	else
		echo "$KILLED killed, $SURVIVED survived"
	fi
}
