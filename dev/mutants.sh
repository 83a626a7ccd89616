#!/usr/bin/env bash
# A mutation run for the tools' own tests: plant one deliberate bug at a
# time in a scratch copy of the checkout and run the tests meant to catch
# it.  A mutant that no test kills (a survivor) is a missing test.
#
#   dev/mutants.sh [NAME...]     run the mutants (all, or those named)
#   dev/mutants.sh --coverage    the mutants aiming at each check and command
#
# A mutant is one file, tests/mutants/<name>.patch: header lines, a blank
# line, then a unified diff as "git diff" prints it (paths a/ and b/ from
# the top of the checkout) that plants ONE small deliberate bug:
#
#   Bug: <one line: the bug this mutant plants>
#   Suites: validate.bats [other.bats ...]
#   Filter: <optional: a bats --filter regex, the tests meant to kill it>
#
#   diff --git a/runner/validate.sh b/runner/validate.sh
#   ...
#
# A suite is a file of tests/, or a path from the top of the checkout.
# The copy holds the files git tracks, with their uncommitted changes,
# and the untracked files git does not ignore (not out/); it lives in a
# temporary directory removed at the end.  Each (suite, filter) of the
# mutants runs once on the copy without any mutant first: when it selects
# no test or fails there, its mutants are errors, never kills.  Then, one
# mutant at a time, in the order of their names: the copy is reset, the
# diff applied (one that does not apply is a stale mutant, an error), and
# the suites run through the copy's tests/run.sh (the tests see the copy
# as their REPO_ROOT and keep to their own caches), under a timeout,
# and stopped at the first test that fails (the baselines too).
# Killed: a test failed (its name is shown), or the run timed out.  A
# line as each mutant starts and ends, then the table "mutant | suites |
# killed by | time" and "N killed, N survived" (", N errors"); exit
# status 0 only with no survivor and no error.  The log
# of each run is kept in out/mutants/ (<name>.log, base-<n>.log).
#
# Coverage: every check directory (checks/*/ with a run), every command
# (tools/*.sh but lib*.sh; dev/*.sh, the harness) and every file of the runner (runner/*.sh)
# should be the target of a mutant, one whose diff touches a file of that
# directory or that script.
# --coverage lists the mutants aiming at each and exits 1 naming those
# with none; a run prints that gap as a warning before it starts.
#
# Settings:
#   WF_MUTANTS_DIR   the mutants (default: tests/mutants of the checkout)
#   WF_MUTANTS_TOP   the checkout to copy and mutate (default: this one)
#   WF_MUTANTS_OUT   where the logs go (default: out/mutants of the checkout)
#   MUTANTS_TIMEOUT  seconds a mutant's run may take (default 1200); a
#                    timeout is a kill ("timeout" in the killed-by column)
set -euo pipefail
WF_PROG=mutants
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/../tools/lib.sh"
# shellcheck source=runner/lib.sh
. "$WF_HOME/runner/lib.sh"
# shellcheck source=dev/lib/mutants-report.sh
. "$WF_HOME/dev/lib/mutants-report.sh"

TOP=${WF_MUTANTS_TOP:-$WF_HOME}
MDIR=${WF_MUTANTS_DIR:-$TOP/tests/mutants}
OUT=${WF_MUTANTS_OUT:-$TOP/out/mutants}
TIMEOUT=${MUTANTS_TIMEOUT:-1200}
SCRATCH=''
CHILD=''

usage() {
	echo "usage: dev/mutants.sh [--coverage] [NAME...]" >&2
	exit 2
}

cleanup() {
	[[ -z $SCRATCH ]] || rm -rf "$SCRATCH"
}

# on_signal SIG STATUS: stop the suites running (timeout forwards the
# signal to their process group) and exit.
on_signal() {
	trap - INT TERM
	if [[ -n $CHILD ]]; then
		kill -s "$1" "$CHILD" 2>/dev/null || true
		wait "$CHILD" 2>/dev/null || true
	fi
	info "interrupted"
	exit "$2"
}

# shown_filter FILTER: " --filter 'FILTER'", nothing for no filter.
shown_filter() {
	[[ -z $1 ]] || printf " --filter '%s'" "$1"
}

# read_mutant FILE: its header and diff into M_BUG, M_SUITES (array),
# M_FILTER (empty: none), M_FILES (the paths its diff
# touches) and the file $SCRATCH/diff; M_ERROR says what is wrong with
# it, empty when nothing is.
read_mutant() {
	local file=$1 line n=0 ended=0 key val
	M_BUG='' M_FILTER='' M_ERROR=''
	M_SUITES=() M_FILES=()
	while IFS= read -r line; do
		n=$((n + 1))
		[[ -n $line ]] || { ended=1; break; }
		if [[ ! $line =~ ^(Bug|Suites|Filter):[[:space:]]*(.*[^[:space:]])?[[:space:]]*$ ]]; then
			M_ERROR="line $n is not a header line (Bug:, Suites:, Filter:): $line"
			return 0
		fi
		key=${BASH_REMATCH[1]} val=${BASH_REMATCH[2]}
		[[ -n $val ]] || { M_ERROR="line $n: an empty $key:"; return 0; }
		case $key in
		Bug) M_BUG=$val ;;
		Suites) read -r -a M_SUITES <<<"$val" ;;
		Filter) M_FILTER=$val ;;
		esac
	done <"$file"
	[[ $ended -eq 1 ]] || { M_ERROR="no blank line after the header"; return 0; }
	[[ -n $M_BUG ]] || { M_ERROR="no Bug: line"; return 0; }
	[[ ${#M_SUITES[@]} -gt 0 ]] || { M_ERROR="no Suites: line"; return 0; }
	tail -n "+$((n + 1))" "$file" >"$SCRATCH/diff"
	mapfile -t M_FILES < <(sed -n 's|^diff --git a/\(.*\) b/.*$|\1|p' "$SCRATCH/diff")
	[[ ${#M_FILES[@]} -gt 0 ]] || M_ERROR="no diff (a \"diff --git a/... b/...\" line) after the header"
}

# suite_path SUITE: the suite's path in the copy (a file of tests/, or a
# path from the top).
suite_path() {
	if [[ $1 == */* ]]; then
		echo "$SCRATCH/copy/$1"
	else
		echo "$SCRATCH/copy/tests/$1"
	fi
}

# make_copy: $SCRATCH/copy, the checkout as it is (tracked files with
# their changes, untracked files that are not ignored; not out/), as a
# git repository whose one commit is the unmutated state.
make_copy() {
	local -a files=()
	local f
	while IFS= read -r -d '' f; do
		[[ $f == out/* ]] && continue
		[[ -e $TOP/$f || -L $TOP/$f ]] && files+=("$f")
	done < <(git -C "$TOP" ls-files -z --cached --others --exclude-standard)
	[[ ${#files[@]} -gt 0 ]] || die "no file to copy in $TOP"
	mkdir "$SCRATCH/copy"
	printf '%s\0' "${files[@]}" | sort -zu | tar -C "$TOP" --null --no-recursion -T - -cf - |
		tar -C "$SCRATCH/copy" -xf -
	git -C "$SCRATCH/copy" init -q
	git -C "$SCRATCH/copy" add -A -f .
	git -C "$SCRATCH/copy" -c user.name=mutants -c user.email=mutants@localhost \
		-c commit.gpgsign=false commit -q --no-verify -m unmutated
}

# reset_copy: the copy back to its unmutated state, the tests' leftovers
# (its out/) gone.
reset_copy() {
	git -C "$SCRATCH/copy" reset -q --hard
	git -C "$SCRATCH/copy" clean -q -ffdx
}

# run_suites LOG FILTER SUITE...: the suites through the copy's
# tests/run.sh (FILTER empty: no filter) under the timeout, stopped at the
# first test that fails (one failure is the verdict: the tests after it
# would only cost time, up to the timeout when the mutant also makes one
# hang); RUN_RC its status, RUN_TIMEOUT 1 when the timeout ended it,
# RUN_FAILED the names of the tests that failed, one a line, RUN_LOG the
# log.
run_suites() {
	local log=$1 filter=$2
	local -a args=()
	shift 2
	[[ -z $filter ]] || args=(--filter "$filter")
	RUN_RC=0 RUN_TIMEOUT=0 RUN_LOG=$log
	WF_TEST_SUMMARY=$SCRATCH/copy/out/test-summary \
		timeout -k 30 "$TIMEOUT" "$SCRATCH/copy/tests/run.sh" "${args[@]}" "$@" </dev/null >"$log" 2>&1 &
	CHILD=$!
	while kill -0 "$CHILD" 2>/dev/null; do
		# shellcheck disable=SC2310 # its output is the answer; it does not rely on set -e
		if failed_tests "$log" | grep -q .; then
			# (timeout passes TERM on to the suites' process group, and
			# dies of it: not its own 124)
			kill -TERM "$CHILD" 2>/dev/null || true
			break
		fi
		nap 0.5
	done
	wait "$CHILD" || RUN_RC=$?
	CHILD=''
	[[ $RUN_RC -ne 124 && $RUN_RC -ne 137 ]] || RUN_TIMEOUT=1
	RUN_FAILED=$(failed_tests "$log")
}

# failed_tests LOG: the names of the tests that failed in LOG (the TAP
# of tests/run.sh, whose lines carry "[N] " when lanes run at once).
failed_tests() {
	# (none before the log is there: the run's first moments)
	[[ -e $1 ]] || return 0
	sed -nE 's/^(\[[0-9a-z]+\] )?not ok [0-9]+ (.*) in [0-9]+ms( # .*)?$/\2/p' "$1"
}

# apply_mutant NAME [--check]: the diff applied to the copy (--check:
# only tried); APPLY_ERROR the stale message when it does not apply,
# empty when it does.
apply_mutant() {
	local name=$1 err file rc=0
	local -a check=()
	[[ ${2:-} != --check ]] || check=(--check)
	APPLY_ERROR=''
	err=$(git -C "$SCRATCH/copy" apply "${check[@]}" --whitespace=nowarn "$SCRATCH/diff" 2>&1) || rc=$?
	[[ $rc -ne 0 ]] || return 0
	file=$(sed -n '/^error: /{s/^error: //;p;q}' <<<"$err")
	case $file in
	"patch failed: "*) file=${file#patch failed: } file=${file%:*} ;;
	*": "*) file=${file%%: *} ;;
	*) file='' ;;
	esac
	# a file it names that is not one the diff touches: say the diff's
	if [[ -z $file ]] || ! printf '%s\n' "${M_FILES[@]}" | grep -qxF -e "$file"; then
		file=${M_FILES[0]}
	fi
	APPLY_ERROR="stale mutant: $name: $file does not apply"
}

# select_mutants [NAME...]: NAMES, the mutants to run (default: all of
# MDIR), each checked to exist.
select_mutants() {
	local m name
	NAMES=()
	if [[ $# -gt 0 ]]; then
		NAMES=("$@")
		for name in "${NAMES[@]}"; do
			[[ -f $MDIR/$name.patch ]] || bad_input "no mutant $name in $MDIR"
		done
	else
		for m in "$MDIR"/*.patch; do
			[[ -e $m ]] && NAMES+=("$(basename "$m" .patch)")
		done
	fi
	[[ ${#NAMES[@]} -gt 0 ]] || die "no mutant in $MDIR"
}

# read_mutants: each mutant's header, whether it applies to the copy, and
# the (suite, filter) pairs it runs: PAIRS (each once), M_PAIRS[name],
# M_ERRORS[name] for a mutant that cannot run; R_SUITES, R_TIME.
read_mutants() {
	local name suite path pair
	declare -gA R_SUITES=() R_BY=() R_TIME=() M_PAIRS=() M_ERRORS=() PAIR_STATE=() PAIR_WHY=()
	PAIRS=()
	for name in "${NAMES[@]}"; do
		read_mutant "$MDIR/$name.patch"
		R_SUITES[$name]=${M_SUITES[*]:-?}
		R_TIME[$name]=-
		if [[ -n $M_ERROR ]]; then
			M_ERRORS[$name]="$name.patch: $M_ERROR"
			continue
		fi
		# (a stale mutant costs no run of its suites)
		apply_mutant "$name" --check
		if [[ -n $APPLY_ERROR ]]; then
			M_ERRORS[$name]=$APPLY_ERROR
			info "$APPLY_ERROR"
			continue
		fi
		for suite in "${M_SUITES[@]}"; do
			path=$(suite_path "$suite")
			[[ -f $path ]] || { M_ERRORS[$name]="$name.patch: no suite $suite (${path#"$SCRATCH/copy/"})"; break; }
			pair="$suite"$'\t'"$M_FILTER"
			M_PAIRS[$name]+="$pair"$'\n'
			[[ -n ${PAIR_STATE[$pair]:-} ]] || PAIRS+=("$pair")
			PAIR_STATE[$pair]=unknown
		done
	done
}

# run_baselines: each (suite, filter) of PAIRS without any mutant; one
# that selects no test or fails already is "bad" (PAIR_WHY says why),
# and its mutants are errors, never kills.
run_baselines() {
	local n=0 pair suite path log start
	for pair in "${PAIRS[@]}"; do
		n=$((n + 1))
		suite=${pair%%$'\t'*}
		M_FILTER=${pair#*$'\t'}
		path=$(suite_path "$suite")
		count_tests "$path" "$M_FILTER"
		if [[ $COUNT -le 0 ]]; then
			PAIR_STATE[$pair]=bad
			if [[ $COUNT -lt 0 ]]; then
				PAIR_WHY[$pair]="bats cannot read $suite"
			else
				PAIR_WHY[$pair]="filter '$M_FILTER' selects no test of $suite"
			fi
			info "error: ${PAIR_WHY[$pair]}"
			continue
		fi
		log=$OUT/base-$n.log
		info "without a mutant: $suite$(shown_filter "$M_FILTER") ($COUNT tests)"
		start=$SECONDS
		run_suites "$log" "$M_FILTER" "$path"
		if [[ $RUN_RC -eq 0 ]]; then
			PAIR_STATE[$pair]=ok
			info "without a mutant: $suite$(shown_filter "$M_FILTER") passes ($(vl_elapsed $((SECONDS - start))))"
		else
			PAIR_STATE[$pair]=bad
			PAIR_WHY[$pair]="suite fails without the mutant: $suite$(shown_filter "$M_FILTER"): $(killed_by) (log: $log)"
			info "error: ${PAIR_WHY[$pair]}"
		fi
		reset_copy
	done
}

# run_mutant NAME I: plant mutant NAME (the I-th) in a clean copy and run
# its suites; STATUS (killed, survived, error) and BY (the test that
# killed it, or why it is an error).
run_mutant() {
	local name=$1 i=$2 pair suite start
	local -a suites=()
	STATUS='' BY=''
	if [[ -n ${M_ERRORS[$name]:-} ]]; then
		STATUS=error BY="error: ${M_ERRORS[$name]}"
		return 0
	fi
	while IFS= read -r pair; do
		[[ -n $pair && ${PAIR_STATE[$pair]} == bad ]] || continue
		STATUS=error BY="error: ${PAIR_WHY[$pair]}"
		return 0
	done <<<"${M_PAIRS[$name]}"
	read_mutant "$MDIR/$name.patch"
	for suite in "${M_SUITES[@]}"; do suites+=("$(suite_path "$suite")"); done
	info "[$i/${#NAMES[@]}] $name: ${M_SUITES[*]}$(shown_filter "$M_FILTER"): $M_BUG"
	reset_copy
	apply_mutant "$name"
	if [[ -n $APPLY_ERROR ]]; then
		STATUS=error BY="error: $APPLY_ERROR"
		info "$APPLY_ERROR"
		return 0
	fi
	start=$SECONDS
	run_suites "$OUT/$name.log" "$M_FILTER" "${suites[@]}"
	R_TIME[$name]=$(vl_elapsed $((SECONDS - start)))
	if [[ $RUN_RC -ne 0 ]]; then
		STATUS=killed BY=$(killed_by)
	else
		STATUS=survived BY=SURVIVED
		info "$name survived: a missing test (log: $OUT/$name.log)"
	fi
}

# run_mutants: every mutant of NAMES in turn, counted in KILLED, SURVIVED
# and ERRORS, a line as each ends.
run_mutants() {
	local name i=0
	KILLED=0 SURVIVED=0 ERRORS=0
	for name in "${NAMES[@]}"; do
		i=$((i + 1))
		run_mutant "$name" "$i"
		R_BY[$name]=$BY
		case $STATUS in
		killed) KILLED=$((KILLED + 1))
			info "[$i/${#NAMES[@]}] $name: killed by $BY (${R_TIME[$name]})" ;;
		survived) SURVIVED=$((SURVIVED + 1))
			info "[$i/${#NAMES[@]}] $name: SURVIVED (${R_TIME[$name]})" ;;
		error) ERRORS=$((ERRORS + 1))
			info "[$i/${#NAMES[@]}] $name: $BY" ;;
		esac
	done
}

main() {
	local mode=run name var
	[[ ${1:-} != --coverage ]] || { mode=coverage; shift; }
	for name in "$@"; do
		[[ $name != -* ]] || usage
	done
	[[ $TIMEOUT =~ ^[1-9][0-9]*$ ]] || bad_input "MUTANTS_TIMEOUT is not a number of seconds: $TIMEOUT"
	[[ -d $MDIR ]] || die "no mutants directory $MDIR"
	git -C "$TOP" rev-parse --show-toplevel >/dev/null 2>&1 || die "$TOP is not a git checkout"
	if [[ $mode == coverage ]]; then
		coverage
		[[ -z $UNCOVERED ]] || die "no mutant aims at: $UNCOVERED"
		return 0
	fi
	select_mutants "$@"
	coverage >/dev/null
	[[ -z $UNCOVERED ]] || info "warning: no mutant aims at: $UNCOVERED"

	# A fresh bats, also when this runs inside a bats test.
	while read -r var; do unset "$var"; done < <(compgen -e | grep '^BATS_' || true)
	SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/mutants.XXXXXX")
	trap cleanup EXIT
	trap 'on_signal INT 130' INT
	trap 'on_signal TERM 143' TERM
	mkdir -p "$OUT"
	# One run per output directory: another would remove this one's logs.
	wf_lock_file "$OUT/lock" "another make mutants is writing to $OUT"
	rm -f "$OUT"/*.log
	make_copy
	read_mutants
	run_baselines
	run_mutants
	reset_copy
	print_table | tee "$OUT/summary.txt"
	[[ $SURVIVED -eq 0 && $ERRORS -eq 0 ]]
}

main "$@"
