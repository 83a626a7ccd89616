#!/usr/bin/env bats
# One copy of each helper (issue 44, item 12): a helper the scripts share
# is defined once, and the scripts use it.  The copies that stay are in
# the files the validation cache keys its results by (checks/*/, and
# what a check's conf "uses": tools/kbuild.sh...): changing one of those
# throws away every cached build of every branch, so they keep their own.

load test_helper

# keyed: the paths the validation cache keys its results by, one a line:
# each check's directory, and what the confs name with "uses".
keyed() {
	local d
	for d in "$REPO_ROOT"/checks/*/; do
		d=${d%/}
		echo "checks/${d##*/}"
	done
	sed -n 's/^uses //p' "$REPO_ROOT"/checks/*/conf | tr ' ' '\n' | sed '/^$/d' | sort -u
}

# scripts: the workflow's scripts that are not keyed, one a line (paths
# from the top of the checkout).
scripts() {
	local f k skip
	local -a keys
	mapfile -t keys < <(keyed)
	(cd "$REPO_ROOT" && find tools runner dev wf -type f \( -name '*.sh' -o -name '*.awk' -o -name wf \) 2>/dev/null | LC_ALL=C sort) |
		while read -r f; do
			skip=''
			for k in "${keys[@]}"; do
				[[ $f != "$k" && $f != "$k"/* ]] || skip=1
			done
			[[ -n $skip ]] || echo "$f"
		done
}

# lines ERE: "file:line: text" of each line of code (not a comment) of
# those scripts matching ERE.
lines() {
	local -a files
	mapfile -t files < <(scripts)
	(cd "$REPO_ROOT" && grep -nE -- "$1" "${files[@]}" | grep -vE '^[^:]+:[0-9]+:[[:space:]]*#') || true
}

# once WHAT ERE: the lines matching ERE are exactly one; else print them.
once() {
	local found
	found=$(lines "$2")
	echo "$1: ${found:-none}"
	[[ $(grep -c . <<<"$found") -eq 1 ]]
}

# only_in FILE ERE: the lines matching ERE are all in FILE (and there
# are some); else print them.
only_in() {
	local found
	found=$(lines "$2")
	echo "$2: ${found:-none}"
	[[ -n $found ]] || return 1
	if grep -qv "^$1:" <<<"$found"; then return 1; fi
}

@test "layout: the keyed files are what the checks' confs name (the copies left in them are known)" {
	run keyed
	echo "$output"
	[[ $output == *tools/kbuild.sh* && $output == *tools/lib-warnings.sh* && $output == *tools/lib-checkout.sh* ]]
	# Their copies: tools/kbuild.sh's bad_input, vl_elapsed and matrix_row,
	# checks/cross/run's vl_elapsed, checks/guest/run's matrix lookup.
	grep -q '^bad_input()' "$TOOLS/kbuild.sh"
	grep -q '^vl_elapsed()' "$TOOLS/kbuild.sh"
	grep -q '^matrix_row()' "$TOOLS/kbuild.sh"
}

@test "layout: bad_input is defined once, in tools/lib.sh" {
	once bad_input '^bad_input\(\)'
	[[ $(lines '^bad_input\(\)') == tools/lib.sh:* ]]
}

@test "layout: bad input ends a run that had begun: no marker left for the next run to take as interrupted" {
	local cache=$BATS_TEST_TMPDIR/cache
	# shellcheck disable=SC2016 # expanded by the inner bash
	run env WF_CACHE="$cache" WF_BRANCHES=/nonexistent bash -c '
		set -euo pipefail
		. "$1/lib.sh"
		wf_run_begin layout
		[[ -e $WF_CACHE/layout.run ]]
		bad_input "no such thing"' _ "$TOOLS"
	echo "$output"
	[ "$status" -eq 2 ]
	[[ $output == *"error: no such thing"* ]]
	[ ! -e "$cache/layout.run" ]
}

@test "layout: the free-space test is one, runner/lib.sh's vl_free_kb (validate's and stress's full disk alike)" {
	once 'free space' '\bdf\b.*-P'
	[[ $(lines '\bdf\b.*-P') == runner/lib.sh:* ]]
	grep -q 'vl_nearly_full' "$TOOLS/stress.sh"
}

@test "layout: a duration is written by one function, runner/lib.sh's vl_elapsed" {
	once 'vl_elapsed' '^vl_elapsed\(\)'
	once 'its format' "%dm%02ds"
	[[ $(lines "%dm%02ds") == runner/lib.sh:* ]]
}

@test "layout: a config's row of the matrix is looked up by one function, runner/lib.sh's vl_matrix_row" {
	once 'vl_matrix_row' '^vl_matrix_row\(\)'
	once 'the lookup' "\\\$1 == n \{"
	[[ $(lines "\\\$1 == n \{") == runner/lib.sh:* ]]
}

@test "layout: vl_elapsed writes minutes and two-digit seconds, as the runner, stress and mutants print them" {
	# shellcheck source=runner/lib.sh
	. "$RUNNER/lib.sh"
	[ "$(vl_elapsed 0)" = 0m00s ]
	[ "$(vl_elapsed 65)" = 1m05s ]
	[ "$(vl_elapsed 3600)" = 60m00s ]
}

@test "layout: the committer of the tools' commits is written once, in tools/lib.sh's wf_committer_env" {
	once 'the identity' 'sysctl-wf@localhost'
	[[ $(lines 'sysctl-wf@localhost') == tools/lib.sh:* ]]
	once 'GIT_COMMITTER_NAME set' 'GIT_COMMITTER_NAME='
}

@test "layout: a placeholder left in a cover letter is one test, tools/preflight.sh's check_cover" {
	only_in tools/preflight.sh 'EDITME|@\[A-Z\]'
	[ "$(lines 'grep .*(EDITME|@\[A-Z\])' | wc -l)" -eq 2 ]
}

@test "layout: a lock is taken one way, tools/lib/run.sh's wf_lock_file (wf_lock): another run holding it is exit 1 everywhere" {
	once 'flock' '\bflock\b'
	[[ $(lines '\bflock\b') == tools/lib/run.sh:* ]]
}

@test "layout: tools/ holds the user's verbs and the keyed files, tools/lib/ their libraries, dev/ the developers' harness" {
	local f n bad=()
	local -a keys
	mapfile -t keys < <(keyed)
	# A library left in tools/ is one the checks name (keyed); tools/lib.sh
	# is sourced by the checks' run too.
	for f in "$TOOLS"/lib*.sh; do
		f=tools/${f##*/}
		[[ $f == tools/lib.sh || " ${keys[*]} " == *" $f "* ]] || bad+=("$f: a library outside tools/lib/")
	done
	# The harness is in dev/, not among the verbs.
	for n in faults mutants mutants-random coverage bench-validate bench-distcc; do
		[[ ! -e $TOOLS/$n.sh ]] || bad+=("tools/$n.sh: harness among the verbs")
		[[ -x $DEV/$n.sh ]] || bad+=("dev/$n.sh: missing")
	done
	# Libraries are sourced, never run.
	for f in "$TOOLS"/lib/*.sh "$DEV"/lib/*.sh; do
		[[ ! -x $f ]] || bad+=("${f#"$REPO_ROOT"/}: executable")
	done
	# Each make target runs a verb of tools/ (or the runner, the tests),
	# and only the harness' targets run dev/.
	# shellcheck disable=SC2016 # make's $(call ...), no shell expansion
	n=$(sed -n 's/^\t@\$(call run,.*\(dev\/[a-z-]*\.sh\).*/\1/p' "$REPO_ROOT/Makefile" | sort -u | paste -sd ' ')
	[[ $n == "dev/bench-distcc.sh dev/bench-validate.sh dev/coverage.sh dev/faults.sh dev/mutants.sh" ]] ||
		bad+=("Makefile runs: $n")
	echo "${bad[*]}"
	[[ ${#bad[@]} -eq 0 ]]
}
