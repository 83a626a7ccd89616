#!/usr/bin/env bash
# Benchmark runner/validate.sh against the naive "git rebase --exec".
#
#   dev/bench-validate.sh [-d DIR] [-c CHECK,...] [-t TIP] [-k K] [-N] [-E]
#   dev/bench-validate.sh -s TIMINGS
#
# Times, on the real series (base..branch, or base..TIP), in a scratch
# cache DIR (default: a new temporary directory) that clones the cache
# repo (the base import is reused, nothing else):
#   cold        empty result cache, empty build directories, empty ccache
#   warm        a re-run with nothing changed
#   edit last   after rewording the last commit's message
#   edit K      after adding a comment to a C file of patch K (default 12,
#               or the last patch when there are fewer)
# and the same four runs of the naive baseline: git rebase --exec running
# checkpatch, the build of every config (one build directory each, the
# boot config with sparse) and the boot, for every commit, no result
# cache.  -N skips the naive runs; -E skips only the naive loop's two edit
# runs (it re-checks every commit whatever changed, so they cost what its
# warm run costs; each takes as long as that).  Prints a table with the
# ratios, and splits the cold validate run (from its timings.tsv) into the
# builds it cannot avoid (the base and every commit, once per config),
# the boots, checkpatch and the rest, with the ratio of the whole run to
# the builds.  Not a test: a cold run of 23 commits takes long on two cores.
# -s prints only that split, of any validate run's timings.tsv (make
# validate writes out/<id>/validate/timings.tsv), its wall time from its
# first line to its last.
set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/../tools/lib.sh"
# shellcheck source=runner/lib.sh
. "$WF_HOME/runner/lib.sh"

usage() {
	echo "usage: dev/bench-validate.sh [-d DIR] [-c CHECK,...] [-t TIP] [-k K] [-N] [-E]" >&2
	echo "       dev/bench-validate.sh -s TIMINGS" >&2
	exit 2
}

# timed NAME CMD...: run CMD, record its wall time in TIMES[NAME].
timed() {
	local name=$1 start rc=0
	shift
	info "running: $name"
	start=$(date +%s.%N)
	"$@" >"$BENCH/$name.log" 2>&1 || rc=$?
	TIMES[$name]=$(echo "$(date +%s.%N) - $start" | bc)
	info "$name: $(printf '%.1f' "${TIMES[$name]}")s (exit $rc, log $BENCH/$name.log)"
}

# validate_run: the validator on the scratch cache.
validate_run() {
	WF_CACHE=$BENCH/cache WF_REPO=$BENCH/cache/linux CCACHE_DIR=$BENCH/cache/ccache \
		"$WF_HOME/runner/validate.sh" -o "$BENCH/out" -c "$CHECKS" "$BASE..$TOPIC_REF"
}

# step_split TIMINGS: "builds boots cheap total" seconds of a validate
# run, from the step start times of its timings.tsv (a step lasts until
# the next one starts): the builds (a config's build, sparse, W=1, clang,
# and bringing a build directory to a commit), the boots (qemu, the
# guests), the checks of the source alone (checkpatch, codespell,
# kernel-doc, kconfig), and all the steps together.
step_split() {
	awk -F'\t' '
		NR > 1 { d = $1 - t; total += d
			if (c ~ /^(checkpatch|codespell|kernel-doc|kconfig)$/) cp += d
			else if (c == "qemu" || c ~ /^guest-/) boot += d
			else if (c != "start") build += d }
		{ t = $1; c = $3; w = $4 }
		END { printf "%.1f %.1f %.1f %.1f\n", build, boot, cp, total }' "$1"
}

# print_split TIMINGS WALL: the table of a cold run by step, and the ratio
# of the whole run (WALL seconds) to its builds.
print_split() {
	local build boot cp total
	read -r build boot cp total < <(step_split "$1")
	printf '\ncold validate run, by step (from %s):\n' "$1"
	printf '  %-42s %9.1fs\n' "builds (base + every commit, per config)" "$build" \
		"boots (smoke test, kselftest, guests)" "$boot" "checks of the source (incl. the checkout)" "$cp"
	# (with -s the wall time is the steps' own: nothing is outside them)
	[[ $(echo "$2 - $total > 0.05" | bc) -eq 0 ]] ||
		printf '  %-42s %9.1fs\n' "everything else (cache, reports)" "$(echo "$2 - $total" | bc)"
	if [[ $(echo "$build > 0" | bc) -eq 1 ]]; then
		printf '  %-42s %9.2fx\n' "whole cold run / builds" "$(echo "$2 / $build" | bc -l)" \
			"whole cold run / (builds + boots)" "$(echo "$2 / ($build + $boot)" | bc -l)"
	fi
}

# naive_step: what the naive loop runs at each commit (in the edit tree).
naive_step() {
	local c
	local -a checks
	IFS=, read -r -a checks <<<"$CHECKS"
	for c in "${checks[@]}"; do
		case $c in
		checkpatch) WF_CHECK_NAME=checkpatch WF_CHECK_SRC=$PWD WF_CHECK_COMMIT=HEAD WF_CHECK_OUT=$BENCH/naive \
			"$WF_HOME/checks/checkpatch/run" >/dev/null 2>&1 || true ;;
		sparse | qemu) ;;
		boot) "$WF_HOME/tools/build.sh" -s "$PWD" -o "$BENCH/naive/boot" -C 1 \
			-m "CHECK=$WF_HOME/checks/sparse/sparse-cc" boot || true ;;
		*) "$WF_HOME/tools/build.sh" -s "$PWD" -o "$BENCH/naive/$c" "$c" || true ;;
		esac
	done
	if [[ ,$CHECKS, == *,qemu,* ]]; then
		"$WF_HOME/tools/boot.sh" -B -s "$PWD" -o "$BENCH/naive/boot" || true
	fi
}

# naive_run: git rebase --exec over the series (the commits stay the same).
naive_run() {
	local step=$BENCH/naive-step.sh
	printf '#!/bin/sh\nexec env WF_BENCH_STEP=1 WF_BENCH_DIR=%q WF_BENCH_CHECKS=%q %q\n' \
		"$BENCH" "$CHECKS" "$WF_HOME/dev/bench-validate.sh" >"$step"
	chmod +x "$step"
	git -C "$EDIT" checkout -q --detach "$TOPIC_REF"
	WF_CACHE=$BENCH/cache WF_REPO=$BENCH/cache/linux CCACHE_DIR=$BENCH/naive-ccache \
		git -C "$EDIT" -c user.name=bench -c user.email=bench@localhost \
		rebase -q --exec "$step" "$BASE"
}

# edit_commit K SED-KIND: rewrite commit K of the series in the edit tree
# (message: reword; comment: a comment in its first C file) and move the
# topic ref to the result.
edit_commit() {
	local k=$1 kind=$2 target file
	target=$(git -C "$EDIT" rev-list --reverse "$BASE..$TOPIC_REF" | sed -n "${k}p")
	[[ -n $target ]] || die "the series has no commit $k"
	git -C "$EDIT" checkout -q --detach "$TOPIC_REF"
	if [[ $kind == message ]]; then
		git -C "$EDIT" -c user.name=bench -c user.email=bench@localhost rebase -q \
			--exec "if [ \$(git rev-parse HEAD^{tree}) = $(git -C "$EDIT" rev-parse "$target^{tree}") ]; then git commit -q --amend -m \"\$(git log -1 --format=%B) \" -m 'Reworded by bench-validate.'; fi" \
			"$target^"
	else
		file=$(git -C "$EDIT" diff-tree --no-commit-id --name-only -r "$target" | grep -m1 -E '\.[ch]$') ||
			die "commit $k touches no C file to edit"
		git -C "$EDIT" -c user.name=bench -c user.email=bench@localhost rebase -q \
			--exec "if [ \$(git rev-parse HEAD^{tree}) = $(git -C "$EDIT" rev-parse "$target^{tree}") ]; then printf '\\n/* edited by bench-validate */\\n' >>$file && git commit -q -a --amend --no-edit; fi" \
			"$target^"
	fi
	git -C "$BENCH/cache/linux" update-ref "$TOPIC_REF" "$(git -C "$EDIT" rev-parse HEAD)"
}

main() {
	local dir='' tip='' k=12 naive=1 naive_edits=1 n name ratio wall
	if [[ -n ${WF_BENCH_STEP:-} ]]; then
		BENCH=$WF_BENCH_DIR CHECKS=$WF_BENCH_CHECKS
		naive_step
		return
	fi
	CHECKS=checkpatch,sparse,$(vl_matrix_configs "$WF_HOME/configs/matrix.txt" | paste -sd,),qemu
	while getopts 'd:c:t:k:NEs:' opt; do
		case $opt in
		s) [[ -r $OPTARG ]] || die "cannot read the timings $OPTARG"
			wall=$(awk -F'\t' 'NR == 1 { t0 = $1 } { t = $1 } END { printf "%.1f", t - t0 }' "$OPTARG")
			print_split "$OPTARG" "$wall"
			return ;;
		d) dir=$OPTARG ;;
		c) CHECKS=$OPTARG ;;
		t) tip=$OPTARG ;;
		k) k=$OPTARG ;;
		N) naive=0 ;;
		E) naive_edits=0 ;;
		*) usage ;;
		esac
	done
	parse_branches
	BASE=$(package_version)
	BASE=$(base_ref "$BASE")
	# shellcheck disable=SC2310 # repo_git is one git command
	repo_git rev-parse -q --verify "$BASE" >/dev/null || die "no base $BASE in $WF_REPO (run: make base)"
	BENCH=${dir:-$(mktemp -d /tmp/bench-validate.XXXXXX)}
	[[ ! -e $BENCH/cache ]] || die "$BENCH/cache exists: give a new directory with -d"
	mkdir -p "$BENCH/cache" "$BENCH/naive"
	TOPIC_REF=refs/heads/bench-topic
	tip=${tip:-refs/heads/$TOPIC_NAME}
	info "cloning $WF_REPO into $BENCH/cache/linux (shared objects, no checkout)"
	git clone -q --shared --no-checkout "$WF_REPO" "$BENCH/cache/linux"
	git -C "$BENCH/cache/linux" update-ref "$BASE" "$(repo_git rev-parse "$BASE")"
	git -C "$BENCH/cache/linux" update-ref "$TOPIC_REF" "$(repo_git rev-parse "$tip")"
	n=$(git -C "$BENCH/cache/linux" rev-list --count "$BASE..$TOPIC_REF")
	[[ $n -gt 0 ]] || die "no commits in $BASE..$tip to benchmark"
	[[ $k -le $n ]] || k=$n
	EDIT=$BENCH/edit-tree
	info "checking out the edit tree $EDIT"
	git -C "$BENCH/cache/linux" worktree add -q --detach "$EDIT" "$TOPIC_REF"
	declare -gA TIMES=()
	timed validate-cold validate_run
	cp "$BENCH/out/timings.tsv" "$BENCH/validate-cold.timings.tsv"
	timed validate-warm validate_run
	[[ $naive -eq 1 ]] && timed naive-cold naive_run
	[[ $naive -eq 1 ]] && timed naive-warm naive_run
	edit_commit "$n" message
	timed validate-edit-last validate_run
	[[ $naive -eq 1 && $naive_edits -eq 1 ]] && timed naive-edit-last naive_run
	edit_commit "$k" comment
	timed "validate-edit-$k" validate_run
	[[ $naive -eq 1 && $naive_edits -eq 1 ]] && timed "naive-edit-$k" naive_run
	printf '\nbench-validate: %d commit(s), checks %s\n\n' "$n" "$CHECKS"
	printf '%-28s %12s %12s %14s\n' scenario validate naive naive/validate
	for name in cold warm edit-last "edit-$k"; do
		ratio=-
		if [[ -n ${TIMES[naive-$name]:-} ]]; then
			ratio=$(printf '%.1fx' "$(echo "${TIMES[naive-$name]} / ${TIMES[validate-$name]}" | bc -l)")
		fi
		printf '%-28s %11.1fs %12s %14s\n' "$name" "${TIMES[validate-$name]}" \
			"$(if [[ -n ${TIMES[naive-$name]:-} ]]; then printf '%.1fs' "${TIMES[naive-$name]}"; else echo -; fi)" "$ratio"
	done
	printf '\n(edit-last: the last commit reworded; edit-%s: a comment added to patch %s)\n' "$k" "$k"
	print_split "$BENCH/validate-cold.timings.tsv" "${TIMES[validate-cold]}"
	info "logs and the scratch cache: $BENCH (remove it when done)"
}

main "$@"
