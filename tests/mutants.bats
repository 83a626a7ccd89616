#!/usr/bin/env bats
# dev/mutants.sh, the mutation run, on a fixture checkout: a tool, a
# check, the real tests/run.sh and a tiny suite, with mutants of the
# test's own (WF_MUTANTS_DIR).

load test_helper

setup() {
	FIX=$BATS_TEST_TMPDIR/checkout
	mkdir -p "$FIX/tests" "$FIX/tools" "$FIX/checks/double"
	cp "$REPO_ROOT/tests/run.sh" "$FIX/tests/"
	printf '/out/\n' >"$FIX/.gitignore"
	# shellcheck disable=SC2016 # the script's own expansions
	printf '#!/usr/bin/env bash\necho $(($1 + $2))\n' >"$FIX/tools/add.sh"
	# shellcheck disable=SC2016 # the script's own expansions
	printf '#!/usr/bin/env bash\necho $(($1 * 2))\n' >"$FIX/checks/double/run"
	chmod +x "$FIX/tools/add.sh" "$FIX/checks/double/run"
	# (bats would take "@test" at the start of a line here for a test of
	# this file: "%test" is turned into it after)
	cat >"$FIX/tests/add.bats" <<-'EOF'
		%test "add: two and two make four" {
			run "$BATS_TEST_DIRNAME/../tools/add.sh" 2 2
			[ "$output" = 4 ]
		}
		%test "add: zero changes nothing" {
			run "$BATS_TEST_DIRNAME/../tools/add.sh" 5 0
			[ "$output" = 5 ]
		}
		%test "double: doubles" {
			run "$BATS_TEST_DIRNAME/../checks/double/run" 3
			[ "$output" = 6 ]
		}
	EOF
	sed -i 's/^%test/@test/' "$FIX/tests/add.bats"
	git -C "$FIX" init -q
	git -C "$FIX" add -A
	git -C "$FIX" -c user.name=A -c user.email=a@example.org commit -q -m fixture
	export WF_MUTANTS_TOP=$FIX WF_MUTANTS_DIR=$BATS_TEST_TMPDIR/mutants
	export WF_MUTANTS_OUT=$BATS_TEST_TMPDIR/mutants-out
	mkdir -p "$WF_MUTANTS_DIR"
}

# mutant NAME SUITES FILTER FILE SED: tests/mutants-style NAME.patch, the
# diff of SED on FILE as it is in the fixture checkout (FILTER empty:
# none).
mutant() {
	local name=$1 suites=$2 filter=$3 file=$4 sed=$5 f=$WF_MUTANTS_DIR/$1.patch
	{
		echo "Bug: the bug of $name"
		echo "Suites: $suites"
		[[ -z $filter ]] || echo "Filter: $filter"
		echo
	} >"$f"
	sed "$sed" "$FIX/$file" >"$BATS_TEST_TMPDIR/mutated"
	echo "diff --git a/$file b/$file" >>"$f"
	diff -u --label "a/$file" --label "b/$file" "$FIX/$file" "$BATS_TEST_TMPDIR/mutated" >>"$f" || true
	grep -q '^@@' "$f"
}

# row NAME: NAME's row of the table, its columns' padding squeezed.
row() {
	grep "^$1 " <<<"$output" | tr -s ' '
}

# mutants [ARGS...]: the runner on the fixture, its fd 3 closed (it runs
# bats).
mutants() {
	mkdir -p "$BATS_TEST_TMPDIR/tmp"
	TMPDIR=$BATS_TEST_TMPDIR/tmp run "$DEV/mutants.sh" "$@" 3>&-
}

@test "mutants: a mutant a test catches is killed, by that test; the others run only with the named ones" {
	mutant add-subtracts add.bats '^add:' tools/add.sh 's/+/-/'
	mutant double-triples add.bats '' checks/double/run 's/\* 2/* 3/'
	mutants add-subtracts
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $(row add-subtracts) == "add-subtracts | add.bats | add: two and two make four | "* ]]
	[[ $output != *double-triples* ]]
	[ "${lines[-1]}" = "1 killed, 0 survived" ]
	mutants
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $(row double-triples) == "double-triples | add.bats | double: doubles "* ]]
	[ "${lines[-1]}" = "2 killed, 0 survived" ]
}

@test "mutants: a mutant no test catches survives, and the run fails" {
	mutant add-subtracts add.bats '^add:' tools/add.sh 's/+/-/'
	mutant double-triples add.bats '^add:' checks/double/run 's/\* 2/* 3/'
	mutants
	echo "$output"
	[ "$status" -eq 1 ]
	[[ $(row double-triples) == "double-triples | add.bats | SURVIVED "* ]]
	[ "${lines[-1]}" = "1 killed, 1 survived" ]
}

@test "mutants: a run past MUTANTS_TIMEOUT is killed by the timeout" {
	mutant add-hangs add.bats '^add: two' tools/add.sh 's/^echo/sleep 60; echo/'
	MUTANTS_TIMEOUT=3 mutants
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $(row add-hangs) == "add-hangs | add.bats | timeout "* ]]
	[ "${lines[-1]}" = "1 killed, 0 survived" ]
}

@test "mutants: the suites stop at the first test that fails: a later test that hangs costs no timeout" {
	# add.sh subtracts (the first test fails) and hangs on 5 (the second
	# would run until the timeout)
	# shellcheck disable=SC2016 # sed's and add.sh's own expansions
	mutant add-hangs-later add.bats '^add:' tools/add.sh 's/^echo \$((\$1 + \$2))$/[ "$1" != 5 ] || sleep 600; echo $(($1 - $2))/'
	grep -qF 'sleep 600' "$WF_MUTANTS_DIR/add-hangs-later.patch"
	MUTANTS_TIMEOUT=120 mutants
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $(row add-hangs-later) == "add-hangs-later | add.bats | add: two and two make four | "* ]]
	[ "${lines[-1]}" = "1 killed, 0 survived" ]
}

@test "mutants: a mutant of two suites run in two lanes is killed by its test's name" {
	printf '@test "other: true" {\n\ttrue\n}\n' >"$FIX/tests/other.bats"
	mutant add-subtracts 'add.bats other.bats' '' tools/add.sh 's/+/-/'
	WF_TEST_JOBS=2 mutants
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $(row add-subtracts) == "add-subtracts | add.bats other.bats | add: two and two make four | "* ]]
}

@test "mutants: a mutant that makes a test write into WF_CACHE is killed by the guard of tests/run.sh" {
	# shellcheck disable=SC2016 # add.sh's own expansion
	mutant add-writes-cache add.bats '^add: two' tools/add.sh 's|^echo|: >"$WF_CACHE/leak"; echo|'
	mutants
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $(row add-writes-cache) == "add-writes-cache | add.bats | tests/run.sh exit 1: a test wrote into WF_CACHE "* ]]
	[ "${lines[-1]}" = "1 killed, 0 survived" ]
}

@test "mutants: a second run on the same output directory is refused in one line" {
	mutant add-subtracts add.bats '^add:' tools/add.sh 's/+/-/'
	mkdir -p "$WF_MUTANTS_OUT"
	flock "$WF_MUTANTS_OUT/lock" sleep 3 &
	sleep 0.5
	mutants add-subtracts
	wait
	echo "$output"
	[ "$status" -eq 1 ]
	[ "${lines[-1]}" = "mutants: error: another make mutants is writing to $WF_MUTANTS_OUT (lock: $WF_MUTANTS_OUT/lock)" ]
}

@test "mutants: a mutant that does not apply is stale, an error named, never a kill" {
	mutant add-subtracts add.bats '' tools/add.sh 's/+/-/'
	sed -i 's/^-echo/-printf/' "$WF_MUTANTS_DIR/add-subtracts.patch"
	mutants
	echo "$output"
	[ "$status" -eq 1 ]
	[[ $output == *"stale mutant: add-subtracts: tools/add.sh does not apply"* ]]
	# (found before any suite runs)
	[[ $output != *"without a mutant"* ]]
	[ "${lines[-1]}" = "0 killed, 0 survived, 1 errors" ]
}

@test "mutants: a filter that selects no test, a missing suite or header are errors" {
	mutant add-subtracts add.bats '^nothing' tools/add.sh 's/+/-/'
	mutant no-suite nosuch.bats '' tools/add.sh 's/+/-/'
	mutant no-header add.bats '' tools/add.sh 's/+/-/'
	sed -i '/^Suites:/d' "$WF_MUTANTS_DIR/no-header.patch"
	mutants
	echo "$output"
	[ "$status" -eq 1 ]
	[[ $(row add-subtracts) == "add-subtracts | add.bats | error: filter '^nothing' selects no test of add.bats"* ]]
	[[ $output == *"error: no-suite.patch: no suite nosuch.bats (tests/nosuch.bats)"* ]]
	[[ $output == *"error: no-header.patch: no Suites: line"* ]]
	[ "${lines[-1]}" = "0 killed, 0 survived, 3 errors" ]
	mutants no-such-mutant
	[ "$status" -ne 0 ]
	[[ $output == "mutants: error: no mutant no-such-mutant in $WF_MUTANTS_DIR" ]]
}

@test "mutants: a suite that fails without the mutant makes its mutants errors, not kills" {
	# an untracked suite of the checkout is copied too
	printf '@test "broken: always" {\n\tfalse\n}\n' >"$FIX/tests/broken.bats"
	mutant add-subtracts 'add.bats broken.bats' '' tools/add.sh 's/+/-/'
	mutants
	echo "$output"
	[ "$status" -eq 1 ]
	[[ $(row add-subtracts) == "add-subtracts | add.bats broken.bats | error: suite fails without the mutant: broken.bats: broken: always"* ]]
	[ "${lines[-1]}" = "0 killed, 0 survived, 1 errors" ]
}

@test "mutants: the checkout is left as it was, uncommitted changes and untracked files included" {
	printf '# the sum\n' >>"$FIX/tools/add.sh"
	printf 'untracked\n' >"$FIX/notes.txt"
	mkdir -p "$FIX/out" && printf 'ignored\n' >"$FIX/out/old"
	# this mutant applies only to the uncommitted version of add.sh
	mutant add-subtracts add.bats '^add:' tools/add.sh 's/+/-/; s/the sum/the difference/'
	before=$(git -C "$FIX" status --porcelain --ignored; git -C "$FIX" diff; cd "$FIX" &&
		find . -path ./.git -prune -o -type f -print0 | sort -z | xargs -0 md5sum)
	mutants
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[-1]}" = "1 killed, 0 survived" ]
	after=$(git -C "$FIX" status --porcelain --ignored; git -C "$FIX" diff; cd "$FIX" &&
		find . -path ./.git -prune -o -type f -print0 | sort -z | xargs -0 md5sum)
	[ "$before" = "$after" ]
	[[ $before == *"tools/add.sh"* && $before == *notes.txt* && $before == *out/old* ]]
	# and no scratch copy is left behind
	[ -z "$(ls -A "$BATS_TEST_TMPDIR/tmp")" ]
}

@test "mutants: --coverage lists the mutants aiming at each check and command, and names those with none" {
	mutant add-subtracts add.bats '^add:' tools/add.sh 's/+/-/'
	printf '# sourced\n' >"$FIX/tools/lib.sh"
	run "$DEV/mutants.sh" --coverage
	echo "$output"
	[ "$status" -eq 1 ]
	[[ $output == *"tools/add.sh"*" add-subtracts"* ]]
	[[ $output == *"checks/double"*"(none)"* ]]
	[[ $output != *lib.sh* ]]
	[ "${lines[-1]}" = "mutants: error: no mutant aims at: checks/double" ]
	mutants
	[[ $output == *"mutants: warning: no mutant aims at: checks/double"* ]]
	mutant double-triples add.bats '^double' checks/double/run 's/\* 2/* 3/'
	run "$DEV/mutants.sh" --coverage
	[ "$status" -eq 0 ]
	[[ $output == *"checks/double"*" double-triples"* ]]
}

@test "mutants-random: the same seed draws the same mutants; killed, survived and equivalent counted apart" {
	# A command with two sites: a comparison its test catches, an exit
	# status no test looks at.
	# shellcheck disable=SC2016 # the script's own expansions
	printf '#!/usr/bin/env bash\nif [[ $1 -gt 10 ]]; then echo big; else echo small; fi\nexit 0\n' >"$FIX/tools/size.sh"
	chmod +x "$FIX/tools/size.sh"
	# shellcheck disable=SC2016 # the suite's own expansions
	printf '@test "size: 11 is big, 3 small" {\n\t[ "$("$BATS_TEST_DIRNAME/../tools/size.sh" 11)" = big ]\n\t[ "$("$BATS_TEST_DIRNAME/../tools/size.sh" 3)" = small ]\n}\n' \
		>"$FIX/tests/size.bats"
	mkdir -p "$FIX/tests/mutants"
	printf 'tools/size.sh size.bats\ntools/add.sh -\n' >"$FIX/tests/mutants/random-suites.txt"
	mkdir -p "$BATS_TEST_TMPDIR/tmp"
	TMPDIR=$BATS_TEST_TMPDIR/tmp run "$DEV/mutants-random.sh" -n 5 -s 7 3>&-
	echo "$output"
	[ "$status" -eq 1 ]
	index=$FIX/out/mutants-random/seed-7/index.tsv
	[ "$(cut -f3,4 "$index" | sort | tr '\t\n' ': ')" = "cmp:tools/size.sh:2 status:tools/size.sh:3 " ]
	cp "$index" "$BATS_TEST_TMPDIR/first.tsv"
	[[ $(grep '| cmp |' <<<"$output") == *"| killed by size: 11 is big, 3 small |"* ]]
	[[ $(grep '| status |' <<<"$output") == *"| SURVIVED ("*": 'exit 0' -> 'exit 1') |"* ]]
	[[ ${lines[-1]} == "2 mutants (seed 7): 1 killed, 1 survived, 0 equivalent; survival rate 1/2 = 50%; "*m*s ]]
	# Judged equivalent, with its reason: counted apart; the same draw.
	printf '%s no caller reads its status\n' "$(awk -F'\t' '$3 == "status" { print $2 }' "$index")" \
		>"$FIX/tests/mutants/equivalent.txt"
	TMPDIR=$BATS_TEST_TMPDIR/tmp run "$DEV/mutants-random.sh" -n 5 -s 7 3>&-
	echo "$output"
	[ "$status" -eq 0 ]
	diff "$BATS_TEST_TMPDIR/first.tsv" "$index"
	[[ $(grep '| status |' <<<"$output") == *"| equivalent: no caller reads its status |"* ]]
	[[ ${lines[-1]} == "2 mutants (seed 7): 1 killed, 0 survived, 1 equivalent; survival rate 0/1 = 0%; "* ]]
}

@test "make mutants passes RANDOM= and SEED= to the random mutants" {
	run make -s -n -C "$REPO_ROOT" mutants RANDOM=20 SEED=5
	[ "$status" -eq 0 ]
	[[ $output == "st=0; dev/mutants-random.sh --count 20 -s 5 || st=\$?; "* ]]
}

@test "make mutants passes MUTANTS= as names" {
	run make -s -n -C "$REPO_ROOT" mutants MUTANTS=a,b
	[ "$status" -eq 0 ]
	[[ $output == "st=0; dev/mutants.sh a b || st=\$?; "* ]]
}

@test "mutants: every check directory and every command of this checkout has a mutant, and each applies" {
	unset WF_MUTANTS_TOP WF_MUTANTS_DIR WF_MUTANTS_OUT
	run "$DEV/mutants.sh" --coverage
	echo "$output"
	[ "$status" -eq 0 ]
	# (a mutant the code moved away from is stale: it tests nothing)
	for m in "$REPO_ROOT"/tests/mutants/*.patch; do
		git -C "$REPO_ROOT" apply --check "$m" || { echo "stale: $m"; false; }
	done
}
