#!/usr/bin/env bats
# Tests of tools/cost-stages.sh (the stage breakdown of a sysctl(2) call)
# that need no kernel: bad input, a patch that does not apply, the table.

load test_helper

setup() {
	setup_fixture
}

@test "cost-stages: a sample count out of range is refused in one line" {
	run "$TOOLS/cost-stages.sh" -n 5000
	[ "$status" -ne 0 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ $output == *"SAMPLES must be a number from 11 to 4096"*"'5000'"* ]]
}

@test "cost-stages: no cache repo is said in one line" {
	run "$TOOLS/cost-stages.sh"
	[ "$status" -ne 0 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ $output == *"no cache repo at $WF_REPO (run: make rebuild)"* ]]
}

@test "cost-stages: a patch that does not apply names the commit, nothing is built" {
	"$TOOLS/rebuild.sh" >/dev/null
	run "$TOOLS/cost-stages.sh"
	[ "$status" -ne 0 ]
	[[ ${lines[-1]} == *"qemu-boot/cost-stages.patch does not apply to "*"regenerate it"* ]]
	[ ! -e "$WF_CACHE/branches/6.1/cost-stages/build" ]
}

@test "cost-stages: the table has one row per entry point, name and method" {
	log=$BATS_TEST_TMPDIR/console.log
	cat >"$log" <<-'END'
	# # cost: stages tsc_ticks_per_ns=2.1 samples=20 getppid_ns=400
	# # cost: stages kernel.ostype sysctl args_ns=500 total_ns=9000
	# # cost: stages kernel.ostype proc open_ns=7000 total_ns=9500
	ok 23 - /tests/40-cost
	# # cost: stages tsc_ticks_per_ns=2.1 samples=20 getppid_ns=450
	# # cost: stages kernel.ostype sysctl args_ns=600 total_ns=9100
	# # cost: stages kernel.ostype proc open_ns=7100 total_ns=9600
	END
	# shellcheck source=/dev/null
	source <(sed -n '/^table()/,/^}/p' "$TOOLS/cost-stages.sh")
	run table "$log"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 4 ]
	[[ ${lines[0]} == "64-bit "*kernel.ostype*sysctl*"args_ns=500 total_ns=9000" ]]
	[[ ${lines[1]} == "64-bit "*kernel.ostype*proc*"open_ns=7000 total_ns=9500" ]]
	[[ ${lines[2]} == "32-bit "*kernel.ostype*sysctl*"args_ns=600 total_ns=9100" ]]
	[[ ${lines[3]} == "32-bit "*kernel.ostype*proc*"open_ns=7100 total_ns=9600" ]]
}

@test "cost-stages: a killed run's marker is named, its half-written table removed; the run takes its lock" {
	"$TOOLS/rebuild.sh" >/dev/null
	mkdir -p "$WF_TOP/out/6.1/cost-stages"
	echo half >"$WF_TOP/out/6.1/cost-stages/stages.txt.tmp"
	printf 'pid 4242, started 2026-01-01 00:00:00\nphase=boot\n' >"$WF_CACHE/branches/6.1/cost-stages.run"
	run "$TOOLS/cost-stages.sh"
	echo "$output"
	[ "$status" -eq 1 ]
	[ "${lines[0]}" = "cost-stages: cleaning up an interrupted run (pid 4242, started 2026-01-01 00:00:00): removed the half-written out/6.1/cost-stages/stages.txt.tmp" ]
	[[ ${lines[-1]} == *"qemu-boot/cost-stages.patch does not apply to "* ]]
	[ ! -e "$WF_TOP/out/6.1/cost-stages/stages.txt.tmp" ]
	# A refusal leaves no marker: the next run finds no interrupted run.
	[ ! -e "$WF_CACHE/branches/6.1/cost-stages.run" ]
	run "$TOOLS/cost-stages.sh"
	[[ $output != *"cleaning up"* ]]
	hold_lock "$WF_CACHE/branches/6.1/cost-stages.lock"
	run "$TOOLS/cost-stages.sh"
	release_lock
	refused_by_lock cost-stages "$WF_CACHE/branches/6.1/cost-stages.lock"
}
