#!/usr/bin/env bash
# Run the test suites and end with "N passed, N failed, N skipped" (before
# it, the five slowest tests, with their times).
#
#   tests/run.sh [--tools] [--filter REGEX] [SUITE.bats...]
#
# SUITEs replace the list below (a path, or a file of tests/); --filter
# runs only the tests whose name matches REGEX (bats --filter).  The
# summary goes to out/test-summary (WF_TEST_SUMMARY names another file).
# WF_TEST_JOBS=N runs the suites in N lanes at once (see "Lanes" below),
# each line of a lane prefixed with its number.
# The tools' suites run on fixtures: base.bats (the base import,
# branches.txt), rebuild.bats (rebuild, export), make.bats (the targets
# with no suite of their own: deps, build, checkpatch, status, all-branches, the
# order of the stages; and this script), port.bats (make port on two fixture branches),
# recovery.bats (each tool's recovery from the state a killed run
# leaves), faults.bats (dev/faults.sh with small counts), qemu.bats (the runner and the smoke test; one build of the
# boot kernel the first time), qemu-standin.bats (the runner with a
# stand-in for QEMU, no kernel), stress.bats (tools/stress.sh on that
# kernel), validate.bats (the runner of the per-commit checks on a
# fixture kernel), kcidb.bats (its results as KCIDB's I/O data, against
# the schema of tests/fixtures/kcidb/, and as patchwork's checks),
# schedule.bats (its order by cost, its reports while it runs,
# FAIL_FAST), distcc.bats (builds through a distccd on
# loopback), configs.bats (the checks per config: the guest boots),
# checks.bats (the codespell and kernel-doc checks on it), cross.bats (the
# cross check: clang for each Debian architecture, on it), arm64.bats (the
# arm64 check on it, with a stand-in guest), kconfig.bats
# (the kconfig check, on it with the real base's init/Kconfig), trees.bats,
# bisect.bats, status.bats (the exit status of each command through
# ./wf), mutants.bats (dev/mutants.sh on a fixture) and
# cost-stages.bats (tools/cost-stages.sh without a kernel), docs.bats
# (the documents against the code: every setting listed), layout.bats
# (one copy of each shared helper, each file in its room), and, in the
# full run, the b4 suites (a minute or two each): submit.bats (b4 prep and
# send -o, the revisions recorded in cover-letters/<id>/sent/), preflight.bats
# (no revision without green checks), send.bats (make send through a real
# SMTP server on 127.0.0.1 and back) and trailers.bats (review replies
# back as trailers).  series.bats tests the
# real series in the tests' own cache: rebuild from patches/, export,
# checkpatch, codespell and kernel-doc on every commit, the boot of the
# tip, the stress programs on its boot kernel (the per-commit builds and
# boots and the debug kernel are the main job's, make).
set -euo pipefail

# -h/--help: this header; an option it does not know: exit 2.  Both
# before anything runs or is written.
for arg in "$@"; do
	case $arg in
	-h | --help)
		sed -n '2,${/^#/!q;s/^# \{0,1\}//;p}' "$0"
		exit 0 ;;
	esac
done

summary=$(cd "$(dirname "$0")/.." && pwd)/out/test-summary
summary=${WF_TEST_SUMMARY:-$summary}
cd "$(dirname "$0")"
suites=(base.bats rebuild.bats make.bats port.bats recovery.bats faults.bats qemu.bats qemu-standin.bats stress.bats validate.bats kcidb.bats schedule.bats configs.bats
	checks.bats cross.bats arm64.bats kconfig.bats distcc.bats trees.bats bisect.bats status.bats mutants.bats cost-stages.bats docs.bats layout.bats)
if [[ ${1:-} == --tools ]]; then
	shift
else
	suites+=(submit.bats preflight.bats send.bats trailers.bats series.bats)
fi
filter=()
if [[ ${1:-} == --filter ]]; then
	[[ $# -ge 2 ]] || { echo "run.sh: error: --filter needs a regular expression" >&2; exit 2; }
	filter=(--filter "$2")
	shift 2
fi
for arg in "$@"; do
	[[ $arg != -* ]] || { echo "run.sh: error: unknown option '$arg' (usage: tests/run.sh [--tools] [--filter REGEX] [SUITE.bats...])" >&2; exit 2; }
done
[[ $# -eq 0 ]] || suites=("$@")

# The tests own their state: they run with WF_CACHE naming an empty
# directory that must still be empty at the end (a test that forgot to
# set up its own cache would write there).
guard=$(mktemp -d)
work=$(mktemp -d)
trap 'rm -rf "$guard" "$work"' EXIT
export WF_CACHE=$guard
# A fresh bats, also when run.sh itself runs inside a bats test; and the
# tools' makes as from a shell, also under "make test" (make's MAKELEVEL
# would make them print "make[1]:", its MAKEFLAGS pass on its options).
unset MAKELEVEL MAKEFLAGS MFLAGS
# A fresh bats, also when run.sh itself runs inside a bats test.
while read -r var; do unset "$var"; done < <(compgen -e | grep '^BATS_' || true)

# Lanes.  The suites run in WF_TEST_JOBS lanes at once (default: 2 on a
# machine with two CPUs or more, else 1): faster on two cores than one
# lane (doc/timings.md).  faults.bats runs
# beside the lanes, in a lane of its own ([f]), from the start: it mostly
# waits (on the commands it kills, on a stalled test server: 99 s of CPU
# in 152 s alone, 2026-12-07), and its kills are drawn within durations it
# measures on the same machine, so a busy machine moves its moments and
# its measures alike (all 13 of its tests passed three runs in a row
# beside a kernel build, load 7 to 9 on two cores); with one lane, it runs first,
# then the others, one after the other.  qemu, stress
# and series share the tests' own cache (the boot kernel of the real
# series, its locks): they run one after the other, as one item.  The
# items wait in one queue, longest first, by the seconds each took
# (WEIGHT: .ci/run on a clean clone, this machine, two lanes, quiet,
# 2026-12-07; only their order matters; an unknown suite counts 60), and
# a lane takes the next one as it ends its last: a weight gone stale
# costs a lane no idle time.
cpus=$(nproc 2>/dev/null || echo 1)
jobs=${WF_TEST_JOBS:-$((cpus >= 2 ? 2 : 1))}
[[ $jobs =~ ^[1-9][0-9]?$ ]] || { echo "run.sh: error: WF_TEST_JOBS must be a number of lanes, not '$jobs'" >&2; exit 2; }
declare -A WEIGHT=([faults.bats]=170 [series.bats]=139 [validate.bats]=123 [send.bats]=113
	[submit.bats]=71 [recovery.bats]=69 [configs.bats]=57 [preflight.bats]=57 [stress.bats]=48
	[checks.bats]=47 [cross.bats]=42 [schedule.bats]=36 [qemu.bats]=32 [port.bats]=28 [make.bats]=26
	[trailers.bats]=15 [mutants.bats]=14 [status.bats]=11 [distcc.bats]=11 [kconfig.bats]=11
	[kcidb.bats]=10 [qemu-standin.bats]=10 [trees.bats]=9 [layout.bats]=9 [rebuild.bats]=5
	[arm64.bats]=5 [docs.bats]=4 [bisect.bats]=3 [base.bats]=1 [cost-stages.bats]=1)
solo=() shared=() items=()
for s in "${suites[@]}"; do
	case ${s##*/} in
	faults.bats) solo+=("$s") ;;
	qemu.bats | stress.bats | series.bats) shared+=("$s") ;;
	*) items+=("$s") ;;
	esac
done
# An item: its weight and its suites (the shared ones are one item).
weight_of() {
	local s w=0
	for s in "$@"; do w=$((w + ${WEIGHT[${s##*/}]:-60})); done
	echo "$w"
}
queue=$work/queue
{
	[[ ${#shared[@]} -eq 0 ]] || echo "$(weight_of "${shared[@]}") ${shared[*]}"
	for s in "${items[@]}"; do echo "$(weight_of "$s") $s"; done
} | sort -rn -k1,1 | cut -d' ' -f2- >"$queue"
used=$(grep -c . "$queue" || true)
[[ $used -le $jobs ]] || used=$jobs
# How many lanes run at once (faults' own lane too, beside two or more).
at_once=$used
[[ ${#solo[@]} -eq 0 || $jobs -lt 2 ]] || at_once=$((used + 1))

# next_item: the first item of the queue, taken off it (one lane at a
# time); status 1 when none is left.
next_item() {
	local item
	exec {qfd}>>"$queue.lock"
	flock "$qfd"
	item=$(head -n 1 "$queue")
	sed -i 1d "$queue"
	exec {qfd}>&-
	[[ -n $item ]] || return 1
	echo "$item"
}

# run_lane N [SUITE...]: bats on the SUITEs (none: on each item it takes
# from the queue, until none is left), TAP into work/N.tap, each line on
# the terminal too (prefixed [N] when two lanes or more run at once).
run_lane() {
	local n=$1 rc=0 prefix='' item
	shift
	[[ $at_once -le 1 ]] || prefix="[$n] "
	if [[ $# -gt 0 ]]; then
		bats --tap --timing "${filter[@]}" "$@" | tee "$work/$n.tap" | sed -u "s/^/$prefix/" || rc=$?
	else
		# shellcheck disable=SC2310 # its status 1 (no item left) ends the loop
		while item=$(next_item); do
			# shellcheck disable=SC2086 # an item is a list of suite names
			bats --tap --timing "${filter[@]}" $item | tee -a "$work/$n.tap" | sed -u "s/^/$prefix/" || rc=1
		done
	fi
	echo "$rc" >"$work/$n.rc"
}

rc=0
pids=()
if [[ ${#solo[@]} -gt 0 && $jobs -ge 2 ]]; then
	run_lane f "${solo[@]}" &
	pids+=($!)
elif [[ ${#solo[@]} -gt 0 ]]; then
	run_lane f "${solo[@]}"
fi
for ((i = 1; i <= used; i++)); do
	run_lane "$i" &
	pids+=($!)
done
for p in "${pids[@]}"; do wait "$p" || rc=1; done
for f in "$work"/*.rc; do [[ $(cat "$f") -eq 0 ]] || rc=1; done
tap=$work/all.tap
cat "$work"/*.tap >"$tap.tmp" 2>/dev/null || true
mv "$tap.tmp" "$tap"
passed=$(grep -E '^ok [0-9]+ ' "$tap" | grep -vc '# skip' || true)
skipped=$(grep -cE '^ok [0-9]+ .*# skip' "$tap" || true)
failed=$(grep -cE '^not ok [0-9]+ ' "$tap" || true)
planned=$(sed -nE 's/^1\.\.([0-9]+)$/\1/p' "$tap" | awk '{ n += $1 } END { print n + 0 }')
if [[ ${planned:-0} -eq 0 ]]; then
	echo "# bats ran no test"
	failed=$((failed + 1))
elif [[ $((passed + skipped + failed)) -ne $planned ]]; then
	echo "# bats planned $planned tests but reported $((passed + skipped + failed))"
	failed=$((failed + 1))
fi
if [[ -n $(find "$guard" -mindepth 1 -maxdepth 1) ]]; then
	echo "# a test wrote into WF_CACHE ($guard: $(find "$guard" -mindepth 1 -maxdepth 1 -printf '%f ' | head -c 200)): tests must use a cache of their own"
	failed=$((failed + 1))
fi
[[ $failed -eq 0 && $rc -ne 0 ]] && failed=1
# Where the time goes (bats --timing ends each line with "in N ms").
echo "# the slowest tests:"
# (awk reads all of sort's output: head would close the pipe early, and
# sort's SIGPIPE would end this script under pipefail before the summary)
sed -nE 's/^(not )?ok [0-9]+ (.*) in ([0-9]+)ms( # skip.*)?$/\3 \2/p' "$tap" | sort -rn |
	awk 'NR <= 5 { ms = $1; $1 = ""; printf "#   %6.1f s %s\n", ms / 1000, substr($0, 2) }'

mkdir -p "$(dirname "$summary")"
echo "$passed passed, $failed failed, $skipped skipped" | tee "$summary"
[[ $failed -eq 0 ]]
