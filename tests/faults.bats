#!/usr/bin/env bats
# dev/faults.sh (make faults): kill every command at random moments,
# run it again, compare; with small counts on fixture series.  Its kills
# land at moments drawn within measured durations: tests/run.sh runs this
# suite alone, before the others.  Each tool's recovery paths, on the
# state a killed run leaves, are recovery.bats's.

load test_helper
bats_require_minimum_version 1.5.0

setup() {
	setup_fixture
	make_faults_series
}

# show_failed_kills: the log of the kills, then the stderr and the diff
# of each run that did not recover identically (bats prints them when
# the test fails: a short row says why).
show_failed_kills() {
	local log=$WF_CACHE/branches/6.1/faults/log.txt f
	[[ -r $log ]] || return 0
	cat "$log"
	grep -oE 'see [^ )]+' "$log" | cut -d' ' -f2 | sort -u | while read -r f; do
		printf -- '--- %s\n' "$f"
		cat "$f" 2>/dev/null || true
	done
}

# left_by_marker MARKER: (run) the "left:" lines faults.sh's leftovers
# prints for the scratch paths the run marker MARKER lists.
left_by_marker() {
	# shellcheck disable=SC2016 # expanded by the inner bash
	run bash -c '. "$1/tools/lib.sh"; FAULTS=$WF_CACHE/faults; . "$1/dev/lib/faults-rows.sh"
		declare -A ROW_SCRATCH=(); marker_phase "$2"; leftovers | grep "^left: " || true' _ "$REPO_ROOT" "$1"
}

@test "faults: a run's marker lists its scratch paths; what is left of them is named" {
	local c=$WF_CACHE/branches/6.1
	# shellcheck disable=SC2016 # expanded by the inner bash
	run bash -c '. "$1/tools/lib.sh"; wf_run_begin demo "$WF_CACHE/demo.tmp-*" "$WF_CACHE/demo-dir"
		wf_run_note phase=work k=v; wf_run_note phase=work k=w; wf_run_note phase=end; cat "$WF_CACHE/demo.run"' _ "$REPO_ROOT"
	[ "$status" -eq 0 ]
	# Every phase the run has been in, once each, in order.
	grep -qx 'phases=start work end' <<<"$output"
	[ "$(grep -c '^scratch=' <<<"$output")" -eq 2 ]
	grep -qxF "scratch=$c/demo.tmp-*" <<<"$output"
	grep -qxF "scratch=$c/demo-dir" <<<"$output"
	grep -qx 'phase=end' <<<"$output"
	# The next run knows what the killed one may have left.
	# shellcheck disable=SC2016 # expanded by the inner bash
	run bash -c '. "$1/tools/lib.sh"; wf_run_begin demo; printf "%s\n" "$WF_PREV_RUN" "${WF_PREV_SCRATCH[@]}"' _ "$REPO_ROOT"
	[ "${lines[1]}" = "$c/demo.tmp-*" ] && [ "${lines[2]}" = "$c/demo-dir" ]
	# faults.sh reads them from the markers it sees (marker_phase) and
	# names what is left (leftovers).
	rm "$c/demo.run"
	touch "$c/demo.tmp-1" "$c/demo.tmp-2"
	left_by_marker "$BATS_TEST_TMPDIR/marker"
	[ "$output" = "" ]
	printf 'pid 1, started -\nphase=x\nscratch=%s\n' "$c/demo.tmp-*" >"$BATS_TEST_TMPDIR/marker"
	left_by_marker "$BATS_TEST_TMPDIR/marker"
	echo "$output"
	[ "$output" = "$(printf 'left: %s\n' "$c/demo.tmp-1" "$c/demo.tmp-2")" ]
}

@test "faults: every command recovers from every kill on the fixture series" {
	run "$DEV/faults.sh" -s 7 -k 2 rebuild base export other-base bisect
	echo "$output"
	show_failed_kills
	[ "$status" -eq 0 ]
	[[ $output == *"cache $WF_CACHE (WF_CACHE), seed 7, 2 kill(s) per command: rebuild base export other-base bisect"* ]]
	for row in rebuild base export other-base bisect; do
		grep -qE "^$row +\| 2 +\| 2/2 +\| 2/2$" <<<"$output"
	done
	# What each may leave is what its marker lists (leftovers).
	[[ $output == *"base: reference run "*" ms; 2 scratch path(s) from its marker;"* ]]
	[[ $output == *"export: reference run "*" ms; 1 scratch path(s) from its marker;"* ]]
	[[ $output == *"rebuild: reference run "*" ms; 0 scratch path(s) from its marker;"* ]]
	# The checkout's own patches were not written: faults works on a copy.
	[ -z "$(find "$WF_TOP/patches" -newer "$WF_CACHE/branches/6.1/faults/top/branches.txt")" ]
}

@test "faults: port recovers from every kill on the fixture series" {
	run "$DEV/faults.sh" -s 11 -k 4 port
	echo "$output"
	show_failed_kills
	[ "$status" -eq 0 ]
	grep -qE "^port +\| 4 +\| 4/4 +\| 4/4$" <<<"$output"
}

@test "faults: validate, stress, submit and send recover on the fixture of tests/faults-fixture.sh" {
	eval "$("$REPO_ROOT/tests/faults-fixture.sh" "$BATS_TEST_TMPDIR/fx")"
	export FIXTURE_STRESS_DELAY=0.05
	CHECKS=boot,qemu run "$DEV/faults.sh" -n -s 5 -k 1 validate stress submit send
	echo "$output"
	show_failed_kills
	[ "$status" -eq 0 ]
	for row in validate stress submit send; do
		grep -qE "^$row +\| 1 +\| 1/1 +\| 1/1$" <<<"$output"
	done
}

@test "faults: trailers recovers from a kill in each phase of its marker, on the fixture of tests/faults-fixture.sh" {
	eval "$("$REPO_ROOT/tests/faults-fixture.sh" "$BATS_TEST_TMPDIR/fx")"
	run "$DEV/faults.sh" -n -s 1 -k 4 -a trailers
	echo "$output"
	show_failed_kills
	[ "$status" -eq 0 ]
	grep -qE "^trailers +\| 4 +\| 4/4 +\| 4/4$" <<<"$output"
	[[ $output == *"aimed at start ("*" ms) rewrite ("*" ms) update ("*" ms) export ("* ]]
}

@test "faults: the aimed kills learn a phase shorter than the watcher's polls from the marker's list of phases" {
	eval "$("$REPO_ROOT/tests/faults-fixture.sh" "$BATS_TEST_TMPDIR/fx")"
	# Polled every 0.05 s, the reference run's update phase (some 15 ms)
	# is never the marker's phase when the watcher looks; a loaded
	# machine did that to the 5 ms polls.  No kill: the phases alone.
	WF_TEST_FAULTS_POLL=0.05 run "$DEV/faults.sh" -n -s 1 -k 0 -a trailers
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"aimed at start ("*" ms) rewrite ("*" ms) update ("*" ms) export ("* ]]
}

@test "faults: a send killed before the server's answer asks ARRIVED=; the row answers from what its server got" {
	eval "$("$REPO_ROOT/tests/faults-fixture.sh" "$BATS_TEST_TMPDIR/fx")"
	# Each message's answer 2 s late: most kills land between the final
	# dot and the answer, where send cannot know whether it arrived; and
	# every kill a SIGKILL, which nothing in the run can catch: where it
	# lands alone decides whether the next run must ask (with TERM and
	# INT drawn too, a run of seed 9 once asked nothing).
	export SMTP_FIXTURE_STALL=2 WF_TEST_FAULTS_SIGNALS=KILL
	run "$DEV/faults.sh" -n -s 9 -k 3 send
	echo "$output"
	[ "$status" -eq 0 ]
	grep -qE "^send +\| 3 +\| 3/3 +\| 3/3$" <<<"$output"
	[[ $output == *"run(s) asked the user, answered from what was done ("*": -A yes"* ]]
	log=$WF_CACHE/branches/6.1/faults/log.txt
	cat "$log"
	grep -qE $'^send\t[0-9]+\t[0-9]+ ms\tSIG[A-Z]+\trecovered after -A yes\tidentical$' "$log"
	# What send said, and the run that answered it.
	f=$(find "$WF_CACHE/branches/6.1/faults/send" -name "*.asked.err" | head -n 1)
	grep -q "was stopped while the server was taking .*\.eml: check whether it arrived" "$f"
	# The runs after a kill found the send half done, ran "make clean"
	# (out/ gone) and finished it from the cache's copy; the server got
	# each message once (identical, above).
	grep -l "v1 was half-sent: .* sending the rest" "$WF_CACHE"/branches/6.1/faults/send/*.err
}

@test "faults: a tool that skips its cleanup makes a row short and the run fail" {
	# -a: half the kills aimed at export's first phase, where it writes
	# the new patch directory beside the old one: an export that does not
	# remove what a killed one left cannot start again.  (Random moments
	# over the whole run can all miss the windows that need a cleanup;
	# with export's 60 ms, four kills on a busy machine sometimes did: 12
	# make a miss of all of them unlikely.)
	WF_TEST_NO_RECOVERY=1 run "$DEV/faults.sh" -a -s 3 -k 12 export
	echo "$output"
	[ "$status" -eq 1 ]
	grep -qE '^export +\| [0-9]+ +\| ' <<<"$output"

	log=$WF_CACHE/branches/6.1/faults/log.txt
	cat "$log"
	grep -qE $'^export\t[0-9]+\tstart\\+[0-9]+ ms\tSIG[A-Z]+\tFAILED' "$log"
	# The recovered column counts the runs that did not fail.
	row=$(grep -E '^export +\|' <<<"$output" | tr -d ' ')
	kills=$(cut -d'|' -f2 <<<"$row")
	failed=$(grep -cE $'^export\t[0-9]+\t[^\t]+\tSIG[A-Z]+\tFAILED' "$log")
	[ "$failed" -gt 0 ]
	[ "$(cut -d'|' -f3 <<<"$row")" = "$((kills - failed))/$kills" ]
	[[ ${lines[-1]} == "faults: a command did not recover from every kill: see $WF_CACHE/branches/6.1/faults/log.txt" ]]
}

@test "faults: a row whose kills all landed but did not recover is short" {
	# (above, after the first kill the runs that cannot start again end
	# before any signal: that row is short by its kills too).  One kill:
	# whether it leaves export something to clean up depends on when it
	# lands, so seeds are tried until one does.
	local seed found=''
	for seed in 3 4 5 6 7 8; do
		WF_TEST_NO_RECOVERY=1 run "$DEV/faults.sh" -a -s "$seed" -k 1 export
		echo "seed $seed: $output"
		grep -qE '^export +\| 1 +\| 0/1 +\| 0/1$' <<<"$output" || continue
		[ "$status" -eq 1 ]
		[[ ${lines[-1]} == "faults: a command did not recover from every kill: see $WF_CACHE/branches/6.1/faults/log.txt" ]]
		found=$seed
		break
	done
	[ -n "$found" ]
}

@test "faults: -a aims the kills at each phase of the command's run marker" {
	run "$DEV/faults.sh" -a -s 5 -k 6 rebuild
	echo "$output"
	[ "$status" -eq 0 ]
	# The reference run's phases, as rebuild notes them, in order.
	[[ $output == *"rebuild: reference run "*" ms; 6 kill(s), aimed at start ("*" ms) apply ("*" ms) finish ("*" ms) "* ]]
	grep -qE '^rebuild +\| 6 +\| 6/6 +\| 6/6' <<<"$output"
	# Kill i in phase i mod 3: two in each.
	log=$WF_CACHE/branches/6.1/faults/log.txt
	cat "$log"
	for p in start apply finish; do
		[ "$(grep -cE $'^rebuild\t[0-9]+\t'"$p"$'\\+[0-9]+ ms\t' "$log")" -eq 2 ]
	done
}

@test "faults: full-disk: validate and stress on a tmpfs that fills up are named infrastructure errors, kept nowhere" {
	eval "$("$REPO_ROOT/tests/faults-fixture.sh" "$BATS_TEST_TMPDIR/fx")"
	export FAULTS_FULL_DISK_SIZE=16k FAULTS_FULL_DISK_STRESS_SIZE=1536k FAULTS_FULL_DISK_CACHE_SIZE=16k
	require TMPFS
	FIXTURE_STRESS_DELAY=0.05 CHECKS=boot,qemu run "$DEV/faults.sh" -n full-disk
	echo "$output"
	[ "$status" -eq 0 ]
	grep -qE '^validate +\| 16k +\| 3 +\| [1-9][0-9]* result\(s\) named +\| identical$' <<<"$output"
	grep -qE '^stress +\| 1536k +\| 3 +\| named +\| identical$' <<<"$output"
	grep -qE '^validate, whole cache +\| 16k free +\| 3 +\| [1-9][0-9]* result\(s\) named +\| identical$' <<<"$output"
	[[ $output != *"command | kills"* ]]
	# What each said, in one line, and no tmpfs left behind.
	dir=$WF_CACHE/branches/6.1/faults/full-disk
	grep -qE "^validate: infrastructure error: [0-9a-f]{12} boot: no space left on device in $WF_CACHE/branches/6.1/validate/build/boot$" "$dir/validate/full.err"
	grep -qx "stress: infrastructure error: no space left on device in $WF_CACHE/branches/6.1/faults/stress-out" "$dir/stress/full.err"
	grep -qE "^validate: infrastructure error: [0-9a-f]{12} [a-z-]+: no space left on device in $dir/validate-cache/cache/branches/6.1/" "$dir/validate-cache/full.err"
	# (its own: a make faults of the user's may be running)
	[ -z "$(grep "^faults-full-disk $BATS_TEST_TMPDIR/" /proc/mounts || true)" ]
	# A validate that calls a full disk a failed build, and a stress
	# that does not look at the disk: both rows short, the run fails.
	mkdir "$BATS_TEST_TMPDIR/wf"
	cp -a "$REPO_ROOT/tools" "$REPO_ROOT/dev" "$REPO_ROOT/runner" "$REPO_ROOT/checks" "$REPO_ROOT/configs" "$REPO_ROOT/qemu-boot" \
		"$BATS_TEST_TMPDIR/wf/"
	# (the two bugs are mutants of their own; here they show that the
	# row notices them)
	for m in validate-full-disk-failed stress-full-disk-unchecked; do
		git -C "$BATS_TEST_TMPDIR/wf" apply "$REPO_ROOT/tests/mutants/$m.patch"
	done
	FIXTURE_STRESS_DELAY=0.05 CHECKS=boot,qemu run "$BATS_TEST_TMPDIR/wf/dev/faults.sh" -n full-disk
	echo "$output"
	[ "$status" -eq 1 ]
	grep -qE '^validate +\| 16k +\| 1 +\| NOT AN INFRASTRUCTURE ERROR: exit 1, not 3 ' <<<"$output"
	grep -qE '^stress +\| 1536k +\| [0-9]+ +\| NOT AN INFRASTRUCTURE ERROR: ' <<<"$output"
	grep -qE '^validate, whole cache +\| 16k free +\| [0-9]+ +\| NOT AN INFRASTRUCTURE ERROR: ' <<<"$output"
	[[ ${lines[-1]} == "faults: a full disk was not named as an infrastructure error, or the run after it differed: see $WF_CACHE/branches/6.1/faults/full-disk" ]]
	run ! grep -q "^faults-full-disk $BATS_TEST_TMPDIR/" /proc/mounts
}

@test "faults: a second run on the same cache is refused and changes nothing" {
	run "$DEV/faults.sh" -n -k 1 base
	[ "$status" -eq 0 ]
	faults=$WF_CACHE/branches/6.1/faults
	cp -a "$faults" "$BATS_TEST_TMPDIR/before"
	flock "$WF_CACHE/branches/6.1/faults.lock" sleep 30 &
	holder=$!
	for _ in $(seq 50); do
		flock -n "$WF_CACHE/branches/6.1/faults.lock" true || break
		sleep 0.1
	done
	run "$DEV/faults.sh" -n -k 1 base
	kill "$holder"
	wait "$holder" || true
	echo "$output"
	[ "$status" -eq 1 ]
	[ "$output" = "faults: error: another faults is running on $WF_CACHE/branches/6.1 (lock: $WF_CACHE/branches/6.1/faults.lock)" ]
	diff -r "$BATS_TEST_TMPDIR/before" "$faults"
}

@test "faults: never the workflow's cache unless WF_CACHE names it" {
	unset WF_CACHE
	export XDG_CACHE_HOME=$BATS_TEST_TMPDIR/xdg
	run "$DEV/faults.sh" -k x
	[ "$status" -eq 2 ]
	[[ $output == *"KILLS 'x' is not a number"* ]]
	run "$DEV/faults.sh" -n -k 0 base
	echo "$output"
	[ "$status" -eq 0 ]
	[[ ${lines[0]} == "faults: cache $XDG_CACHE_HOME/sysctl-wf-faults (WF_CACHE), seed 1, 0 kill(s) per command: base" ]]
	[ ! -e "$XDG_CACHE_HOME/sysctl-wf" ]
	# -n: no warm-up run.
	[ ! -e "$XDG_CACHE_HOME/sysctl-wf-faults/branches/6.1/faults/base/warm-up.out" ]
}
