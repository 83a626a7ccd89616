#!/usr/bin/env bash
# Validate every commit of the topic branch: checkpatch --strict, sparse,
# a build in each config of the matrix and a QEMU boot with the smoke
# test, every result cached by tree id.
#
#   checks/validate.sh [-o OUTDIR] [-c CHECK,...] [RANGE]
#
# RANGE defaults to base..branch.  CHECKs are checkpatch, sparse, qemu and
# the configs of checks/configs/matrix.txt (default: all).  The commits are
# checked out in a worktree of the cache repo ($WF_CACHE/validate-tree;
# the developer's work tree is never touched) and built in order,
# incrementally, in $WF_CACHE/validate/build/<config> with ccache (apart
# from the build directories of "make build" and "make boot", which build
# the developer's work tree).  Warnings are new
# when the parent (the last commit that built in that config) did not have
# them.  Results live in $WF_CACHE/validate/results, keyed by the tree ids
# and a hash of each check's inputs.  Writes OUTDIR/report.txt and
# OUTDIR/results.json (default OUTDIR: $WF_TOP/out/validate), and the
# start time of every step run in OUTDIR/timings.tsv; exit status 1
# when anything failed, 2 on bad input.
#
# WF_VALIDATE_BOOT names the boot command (default checks/boot.sh, called
# as "CMD -B -s TREE -o BUILDDIR", writing BUILDDIR/console.log).
set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/../tools/lib.sh"
# shellcheck source=checks/lib-validate.sh
. "$WF_HOME/checks/lib-validate.sh"

MATRIX=$WF_HOME/checks/configs/matrix.txt
CONFIGS_DIR=$WF_HOME/checks/configs
TREE=$WF_CACHE/validate-tree
RESULTS=$WF_CACHE/validate/results
BUILDROOT=$WF_CACHE/validate/build
BOOT_CMD=${WF_VALIDATE_BOOT:-$WF_HOME/checks/boot.sh}
# The meaning of a cached result.  Bump it when a change to this script or
# lib-validate.sh changes what a check finds; edits that do not (messages,
# the report) keep the cache, so they do not cost a rebuild of the matrix.
CACHE_VERSION=1

usage() {
	echo "usage: $0 [-o OUTDIR] [-c CHECK,...] [RANGE]" >&2
	exit 2
}

# bad_input MESSAGE: one line naming the thing, exit 2.
bad_input() {
	printf '%s: error: %s\n' "$WF_PROG" "$*" >&2
	exit 2
}

# ---------------------------------------------------------------- inputs

# load_commits RANGE: COMMITS (0 is the parent of the first), TREES,
# SUBJECTS.
load_commits() {
	local range=$1 c first
	local -a list
	# shellcheck disable=SC2310 # repo_git is one git command
	repo_git rev-list -n 1 "$range" >/dev/null 2>&1 || bad_input "bad revision range '$range' in $WF_REPO"
	# (mapfile's status is not rev-list's: the range is checked above)
	mapfile -t list < <(repo_git rev-list --reverse --first-parent "$range")
	if [[ ${#list[@]} -eq 0 ]]; then
		# shellcheck disable=SC2310 # repo_git is one git command
		first=$(repo_git rev-parse -q --verify "${range#*..}^{commit}" 2>/dev/null) ||
			bad_input "bad revision range '$range' in $WF_REPO"
		COMMITS=("$first")
	else
		first=${list[0]}
		# shellcheck disable=SC2310 # repo_git is one git command
		COMMITS=("$(repo_git rev-parse -q --verify "$first^" 2>/dev/null)") ||
			bad_input "the first commit of '$range' has no parent"
		COMMITS+=("${list[@]}")
	fi
	TREES=() SUBJECTS=()
	for c in "${COMMITS[@]}"; do
		TREES+=("$(repo_git rev-parse "$c^{tree}")")
		SUBJECTS+=("$(repo_git log -1 --format=%s "$c")")
	done
}

# select_checks CHECKLIST: ENABLED[check]=1 for the checks of the comma list.
select_checks() {
	local checklist=$1 c
	local -a want
	CONFIGS=()
	mapfile -t CONFIGS < <(vl_matrix_configs "$MATRIX")
	ALL_CHECKS=(checkpatch sparse "${CONFIGS[@]}" qemu)
	declare -gA ENABLED=()
	IFS=, read -r -a want <<<"${checklist:-$(IFS=,; echo "${ALL_CHECKS[*]}")}"
	for c in "${want[@]}"; do
		[[ " ${ALL_CHECKS[*]} " == *" $c "* ]] ||
			bad_input "unknown check '$c' (checks: ${ALL_CHECKS[*]})"
		ENABLED[$c]=1
	done
	# sparse runs in the boot config's build, qemu boots what it built.
	[[ -n ${ENABLED[sparse]:-} || -n ${ENABLED[qemu]:-} ]] && ENABLED[boot]=1
	return 0
}

# input_hashes: INPUTS[check], the hash of everything but the tree that a
# check's result depends on: the config fragments, tool versions, the
# smoke test, the scripts themselves.
input_hashes() {
	local c row arch frags gcc_v make_v sparse_v
	local -a files
	declare -gA INPUTS=()
	gcc_v=$(vl_tool_version gcc --version)
	make_v=$(vl_tool_version make --version)
	sparse_v=$(vl_tool_version "${WF_SPARSE:-sparse}" --version)
	for c in "${CONFIGS[@]}"; do
		row=$(vl_matrix_row "$MATRIX" "$c")
		read -r arch frags <<<"$row"
		files=()
		for f in $frags; do files+=("$CONFIGS_DIR/$f"); done
		INPUTS[$c]=$(printf '%s\n' "config $c $arch $frags" "$gcc_v" "$make_v" "$CACHE_VERSION" \
			"$(vl_files_hash "${files[@]}" "$WF_HOME/checks/build.sh")" \
			"sparse ${ENABLED[sparse]:-0} $sparse_v $(vl_files_hash "$WF_HOME/checks/sparse.sh")" | vl_hash)
	done
	INPUTS[checkpatch]=$(printf '%s\n' "$(vl_tool_version perl -e 'print "perl $]\n"')" "$CACHE_VERSION" | vl_hash)
	INPUTS[qemu]=$(printf '%s\n' "$gcc_v" "$CACHE_VERSION" "${BOOT_CMD##*/}" \
		"$(vl_tool_version qemu-system-x86_64 --version)" \
		"$(vl_files_hash "$CONFIGS_DIR/boot.config" "$WF_HOME/qemu-boot/smoke.c" \
			"$WF_HOME/qemu-boot/run.sh" "$WF_HOME/qemu-boot/bad-console.txt" \
			"$WF_HOME/qemu-boot/mkinitramfs.sh" \
			"$WF_HOME/checks/boot.sh" "$BOOT_CMD")" | vl_hash)
}

# ---------------------------------------------------------------- progress

# progress I CHECK WHAT: one line on stderr, and the start of a step in
# OUTDIR/timings.tsv (time, commit, check, step; a step lasts until the
# next line), for tools/bench-validate.sh and whoever wonders where the
# time goes.
progress() {
	local i=$1 n=$((${#COMMITS[@]} - 1)) label
	if [[ $i -eq 0 ]]; then label=base; else label="$i/$n"; fi
	printf '%s\t%s\t%s\t%s\n' "$EPOCHREALTIME" "$i" "$2" "$3" >>"$TIMINGS"
	printf '%s: [%7s] %s %-10s %s (%s)\n' "$WF_PROG" "$label" "${COMMITS[$i]:0:12}" "$2" "$3" \
		"$(vl_elapsed $((SECONDS - START)))" >&2
}

# ---------------------------------------------------------------- worktree

# goto_commit I: check out commit I in the validation worktree.  git only
# rewrites the files that differ, so make rebuilds only what changed.
goto_commit() {
	local c=${COMMITS[$1]}
	if [[ ! -e $TREE/.git ]]; then
		info "creating the validation worktree $TREE (once)"
		repo_git worktree prune
		rm -rf "$TREE"
		# shellcheck disable=SC2310 # repo_git is one git command
		repo_git worktree add -q -f --detach "$TREE" "$c" >/dev/null ||
			die "cannot create the worktree $TREE"
	fi
	[[ $(git -C "$TREE" rev-parse HEAD) == "$c" ]] && return 0
	git -C "$TREE" checkout -q -f --detach "$c" || die "cannot check out $c in $TREE"
}

# ---------------------------------------------------------------- results

# result_dir CHECK KEY
result_dir() {
	printf '%s/%s/%s\n' "$RESULTS" "$1" "$2"
}

# new_result: a fresh scratch directory for a result.
new_result() {
	local d
	mkdir -p "$RESULTS/tmp"
	d=$(mktemp -d "$RESULTS/tmp/r.XXXXXX")
	printf '%s\n' "$d"
}

# store_result TMPDIR CHECK KEY: make the result visible (atomically).
store_result() {
	local dir
	dir=$(result_dir "$2" "$3")
	mkdir -p "${dir%/*}"
	rm -rf "$dir"
	mv "$1" "$dir"
}

# set_cell I CHECK STATUS CACHED REASONFILE
set_cell() {
	STATUS[$1,$2]=$3
	CACHED[$1,$2]=$4
	REASON[$1,$2]=${5:-}
}

# ---------------------------------------------------------------- builds

# build_marker OUT: what the build directory was last built from by us:
# "tree source build.log-mtime".
build_marker() {
	cat "$1/.validate-at" 2>/dev/null || true
}

# marker_now OUT TREEID
marker_now() {
	printf '%s %s %s\n' "$2" "$TREE" "$(date -r "$1/build.log" +%s.%N 2>/dev/null || echo none)"
}

# run_build I CONFIG MODE LOG: build commit I in CONFIG.  MODE "check"
# runs sparse in the boot config (C=1: on what is rebuilt), "sync" only
# brings the build directory to the commit.
run_build() {
	local i=$1 config=$2 mode=$3 log=$4 out=$BUILDROOT/$2 rc=0
	# Two compilers or sparse runs writing at once under -j interleave
	# their lines (sparse writes a line in several pieces), which made a
	# warning of the base look new: make prints each target's output
	# whole.
	local -a args=(-s "$TREE" -o "$out" -m --output-sync=target)
	goto_commit "$i"
	if [[ $mode == check && $config == boot && -n ${ENABLED[sparse]:-} ]]; then
		args+=(-C 1 -m "CHECK=$WF_HOME/checks/sparse.sh")
	fi
	rm -f "$out/.validate-at"
	"$WF_HOME/checks/build.sh" "${args[@]}" "$config" >"$log" 2>&1 || rc=$?
	if [[ $rc -eq 0 ]]; then
		marker_now "$out" "${TREES[$i]}" >"$out/.validate-at"
	fi
	return $rc
}

# build_key I CMP CONFIG
build_key() {
	printf '%s\n' build "$3" "${TREES[$1]}" "${TREES[$2]}" "${INPUTS[$3]}" | vl_hash
}

# check_baseline CONFIG: the full build of the base (commit 0) whose
# warnings the first commit is compared with.  Sets LASTGOOD.
check_baseline() {
	local config=$1 key dir tmp out=$BUILDROOT/$1
	key=$(printf '%s\n' baseline "$config" "${TREES[0]}" "${INPUTS[$config]}" | vl_hash)
	dir=$(result_dir "$config" "$key")
	if [[ ! -f $dir/status ]]; then
		progress 0 "$config" "full build of the base (baseline warnings)"
		tmp=$(new_result)
		# Warnings come only from what is compiled: start from scratch.
		rm -rf "$out"
		# shellcheck disable=SC2310 # its status is its answer; it does not rely on set -e
		if run_build 0 "$config" check "$tmp/log"; then
			echo pass >"$tmp/status"
		else
			echo FAIL >"$tmp/status"
		fi
		cp "$out/warnings.txt" "$tmp/state.txt" 2>/dev/null || : >"$tmp/state.txt"
		store_result "$tmp" "$config" "$key"
	fi
	[[ $(cat "$dir/status") == pass ]] ||
		BASE_NOTES+=("the base does not build in $config (log: $dir/log)")
	LASTGOOD[$config]=0
	LASTGOOD_DIR[$config]=$dir
}

# check_build I CONFIG: build commit I in CONFIG, compare its warnings with
# the last commit that built there.
check_build() {
	local i=$1 config=$2 cmp=${LASTGOOD[$2]} key dir tmp out=$BUILDROOT/$2 built=1 st
	local prev=${LASTGOOD_DIR[$2]}/state.txt
	key=$(build_key "$i" "$cmp" "$config")
	dir=$(result_dir "$config" "$key")
	if [[ -f $dir/status ]]; then
		load_build_cells "$i" "$config" "$dir" 1
		return
	fi
	# The build directory must hold the compared commit, so that what the
	# build of I recompiles is exactly what differs from it.
	# shellcheck disable=SC2310 # prints a marker to compare; errors give another one
	if [[ $(build_marker "$out") != "$(marker_now "$out" "${TREES[$cmp]}")" ]]; then
		progress "$i" "$config" "bringing the build directory to ${COMMITS[$cmp]:0:12}"
		# shellcheck disable=SC2310 # its status is its answer; it does not rely on set -e
		run_build "$cmp" "$config" sync "$out/validate-sync.log" ||
			info "warning: ${COMMITS[$cmp]:0:12} no longer builds in $config (log: $out/validate-sync.log)"
	fi
	progress "$i" "$config" "build"
	tmp=$(new_result)
	# shellcheck disable=SC2310 # its status is its answer; it does not rely on set -e
	run_build "$i" "$config" check "$tmp/log" || built=0
	if [[ -r $out/warnings.txt ]]; then
		cp "$out/warnings.txt" "$tmp/warnings.txt"
	else
		: >"$tmp/warnings.txt"
	fi
	vl_new_warnings "$prev" "$tmp/warnings.txt" >"$tmp/new.txt"
	echo "$built" >"$tmp/built"
	if [[ $built -eq 1 ]]; then
		repo_git diff --name-only "${COMMITS[$cmp]}" "${COMMITS[$i]}" >"$tmp/changed.txt"
		vl_next_state "$prev" "$tmp/warnings.txt" "$tmp/changed.txt" >"$tmp/state.txt"
		st=pass
		if [[ $config == boot ]]; then
			grep -qv ': sparse: ' "$tmp/new.txt" && st=FAIL
		else
			[[ -s $tmp/new.txt ]] && st=FAIL
		fi
	else
		st=FAIL
	fi
	echo "$st" >"$tmp/status"
	build_reason "$tmp" "$config" "$cmp" >"$tmp/reason.txt"
	store_result "$tmp" "$config" "$key"
	load_build_cells "$i" "$config" "$dir" 0
}

# build_reason TMP CONFIG CMP: why a build result failed.
build_reason() {
	local tmp=$1 config=$2 cmp=$3 compiler
	if [[ $(cat "$tmp/built") -eq 0 ]]; then
		echo "does not build in $config:"
		grep -E 'error|Error' "$tmp/log" | grep -v ': warning: ' | head -n 8 | sed 's/^/    /'
	fi
	compiler=$(grep -v ': sparse: ' "$tmp/new.txt" || true)
	if [[ -n $compiler ]]; then
		echo "new compiler warnings in $config (against ${COMMITS[$cmp]:0:12}):"
		printf '    %s\n' "${compiler//$'\n'/$'\n'    }"
	fi
}

# load_build_cells I CONFIG DIR CACHED: the config's cell and, for the
# boot config, the sparse cell.
load_build_cells() {
	local i=$1 config=$2 dir=$3 cached=$4 sparse_new cmp=${LASTGOOD[$2]}
	set_cell "$i" "$config" "$(cat "$dir/status")" "$cached" "$dir/reason.txt"
	if [[ $(cat "$dir/built") -eq 1 ]]; then
		LASTGOOD[$config]=$i
		LASTGOOD_DIR[$config]=$dir
		BUILT[$i,$config]=1
	fi
	[[ $config == boot && -n ${ENABLED[sparse]:-} ]] || return 0
	if [[ $(cat "$dir/built") -ne 1 ]]; then
		printf 'the boot config does not build\n' >"$dir/sparse-reason.txt"
		set_cell "$i" sparse skip "$cached" "$dir/sparse-reason.txt"
		return
	fi
	sparse_new=$(grep ': sparse: ' "$dir/new.txt" | sed 's/: sparse: /: /' || true)
	if [[ -n $sparse_new ]]; then
		{
			echo "new sparse warnings (C=1, against ${COMMITS[$cmp]:0:12}):"
			printf '    %s\n' "${sparse_new//$'\n'/$'\n'    }"
		} >"$dir/sparse-reason.txt"
		set_cell "$i" sparse FAIL "$cached" "$dir/sparse-reason.txt"
	else
		set_cell "$i" sparse pass "$cached" ""
	fi
}

# ---------------------------------------------------------------- checkpatch

# check_checkpatch I: checkpatch --strict on commit I.  Keyed by what the
# patch is made of (trees, author, message), so a reworded commit re-runs
# but its rebased successors do not.
check_checkpatch() {
	local i=$1 key dir tmp c=${COMMITS[$1]} e w k out
	key=$( {
		printf '%s\n' checkpatch "${TREES[$i]}" "${TREES[$((i - 1))]}" "${INPUTS[checkpatch]}"
		repo_git log -1 --format='%an <%ae>%n%B' "$c"
		# shellcheck disable=SC2310 # repo_git is one git command
		repo_git rev-parse -q --verify "$c:scripts/checkpatch.pl" "$c:scripts/spelling.txt" \
			"$c:scripts/const_structs.checkpatch" 2>/dev/null || true
	} | vl_hash)
	dir=$(result_dir checkpatch "$key")
	if [[ ! -f $dir/status ]]; then
		progress "$i" checkpatch "checkpatch.pl --strict"
		tmp=$(new_result)
		goto_commit "$i"
		if [[ ! -x $TREE/scripts/checkpatch.pl ]]; then
			echo FAIL >"$tmp/status"
			echo "no scripts/checkpatch.pl in the tree" >"$tmp/reason.txt"
		else
			out=$(cd "$TREE" && ./scripts/checkpatch.pl --strict --no-color \
				--ignore FILE_PATH_CHANGES --summary-file -g "$c" 2>&1) || true
			printf '%s\n' "$out" >"$tmp/log"
			read -r e w k < <(sed -nE 's/.*total: ([0-9]+) errors, ([0-9]+) warnings, ([0-9]+) checks.*/\1 \2 \3/p' <<<"$out" | tail -n 1) || true
			if [[ -z ${e:-} ]]; then
				echo FAIL >"$tmp/status"
				printf 'checkpatch gave no summary: %s\n' "$(head -n 1 <<<"$out")" >"$tmp/reason.txt"
			elif [[ $((e + w + k)) -ne 0 ]]; then
				echo FAIL >"$tmp/status"
				{
					echo "checkpatch: $e errors, $w warnings, $k checks:"
					grep -A1 -E '^(ERROR|WARNING|CHECK):' <<<"$out" | grep -v '^--$' | sed 's/^/    /'
				} >"$tmp/reason.txt"
			else
				echo pass >"$tmp/status"
				: >"$tmp/reason.txt"
			fi
		fi
		store_result "$tmp" checkpatch "$key"
		set_cell "$i" checkpatch "$(cat "$dir/status")" 0 "$dir/reason.txt"
	else
		set_cell "$i" checkpatch "$(cat "$dir/status")" 1 "$dir/reason.txt"
	fi
}

# ---------------------------------------------------------------- boot

# check_qemu I: boot commit I's boot-config kernel, run the smoke test (and
# the series' kselftest), and compare its "translated" count with the
# last commit that booted.
check_qemu() {
	local i=$1 key dir tmp out=$BUILDROOT/boot rc=0 n m
	if [[ -z ${BUILT[$i,boot]:-} ]]; then
		set_cell "$i" qemu skip 0 "$SKIP_REASON"
		return
	fi
	key=$(printf '%s\n' qemu "${TREES[$i]}" "$BOOT_N" "${INPUTS[qemu]}" | vl_hash)
	dir=$(result_dir qemu "$key")
	if [[ ! -f $dir/status ]]; then
		# shellcheck disable=SC2310 # prints a marker to compare; errors give another one
		if [[ $(build_marker "$out") != "$(marker_now "$out" "${TREES[$i]}")" ]]; then
			progress "$i" qemu "bringing the boot build directory to this commit"
			run_build "$i" boot sync "$out/validate-sync.log" ||
				die "commit ${COMMITS[$i]:0:12} built before but not now (log: $out/validate-sync.log)"
		fi
		progress "$i" qemu "boot and smoke test"
		tmp=$(new_result)
		rm -f "$out/console.log"
		"$BOOT_CMD" -B -s "$TREE" -o "$out" >"$tmp/log" 2>&1 || rc=$?
		cp "$out/console.log" "$tmp/console.log" 2>/dev/null || : >"$tmp/console.log"
		# shellcheck disable=SC2310 # its status is its answer; it does not rely on set -e
		read -r n m < <(vl_translated "$tmp/console.log"; echo) || true
		echo "${n:-}" >"$tmp/translated"
		if [[ $rc -ne 0 ]]; then
			echo FAIL >"$tmp/status"
			{
				echo "boot failed: $(grep -E 'FAIL|error' "$tmp/log" | tail -n 1)"
				echo "    console log (tail):"
				tail -n 15 "$tmp/console.log" | sed 's/^/    | /'
			} >"$tmp/reason.txt"
		elif [[ -n $n && $n -lt $BOOT_N ]]; then
			echo FAIL >"$tmp/status"
			echo "regression: the smoke test translated $n of $m probed names, the previous commit $BOOT_N" >"$tmp/reason.txt"
		else
			echo pass >"$tmp/status"
			: >"$tmp/reason.txt"
		fi
		store_result "$tmp" qemu "$key"
		set_cell "$i" qemu "$(cat "$dir/status")" 0 "$dir/reason.txt"
	else
		set_cell "$i" qemu "$(cat "$dir/status")" 1 "$dir/reason.txt"
	fi
	n=$(cat "$dir/translated")
	if [[ $(cat "$dir/status") == pass && -n $n ]]; then
		BOOT_N=$n
	fi
}

# ---------------------------------------------------------------- report

# cell_text I CHECK: "pass", "FAIL", "skip", with "*" when cached.
cell_text() {
	local st=${STATUS[$1,$2]:-skip} mark=''
	[[ ${CACHED[$1,$2]:-0} -eq 1 ]] && mark='*'
	printf '%s%s' "$st" "$mark"
}

# write_report: the table and the failures, on stdout.
write_report() {
	local i n=$((${#COMMITS[@]} - 1)) c note total=0 cached=0 failed=0 subj
	printf 'validate: %d commit(s) on %s (%s)\n\n' "$n" "${COMMITS[0]:0:12}" "$RANGE"
	printf '%-3s %-12s %-40s' '#' commit subject
	for c in "${ALL_CHECKS[@]}"; do printf ' %-10s' "$c"; done
	printf '\n'
	for ((i = 1; i <= n; i++)); do
		subj=${SUBJECTS[$i]}
		[[ ${#subj} -gt 40 ]] && subj="${subj:0:37}..."
		printf '%-3s %-12s %-40s' "$i" "${COMMITS[$i]:0:12}" "$subj"
		for c in "${ALL_CHECKS[@]}"; do
			printf ' %-10s' "$(cell_text "$i" "$c")"
			if [[ -n ${STATUS[$i,$c]:-} ]]; then
				total=$((total + 1))
				[[ ${CACHED[$i,$c]} -eq 1 ]] && cached=$((cached + 1))
				[[ ${STATUS[$i,$c]} == FAIL ]] && failed=$((failed + 1))
			fi
		done
		printf '\n'
	done
	printf '\n%d result(s): %d failed, %d from the cache (marked *), %d run now; %s\n' \
		"$total" "$failed" "$cached" $((total - cached)) "$(vl_elapsed $((SECONDS - START)))"
	for note in "${BASE_NOTES[@]}"; do printf 'note: %s\n' "$note"; done
	for ((i = 1; i <= n; i++)); do
		for c in "${ALL_CHECKS[@]}"; do
			[[ ${STATUS[$i,$c]:-} == FAIL ]] || continue
			printf '\nFAIL %s %s %s [%s]\n' "$i" "${COMMITS[$i]:0:12}" "${SUBJECTS[$i]}" "$c"
			if [[ -s ${REASON[$i,$c]} ]]; then
				sed 's/^/  /' "${REASON[$i,$c]}"
			fi
		done
	done
}

# write_json: the same results, machine-readable.
write_json() {
	local i n=$((${#COMMITS[@]} - 1)) c reason
	{
		for ((i = 1; i <= n; i++)); do
			for c in "${ALL_CHECKS[@]}"; do
				reason=''
				[[ -n ${REASON[$i,$c]:-} && -r ${REASON[$i,$c]:-} ]] && reason=$(cat "${REASON[$i,$c]}")
				jq -cn --argjson index "$i" --arg commit "${COMMITS[$i]}" --arg tree "${TREES[$i]}" \
					--arg subject "${SUBJECTS[$i]}" --arg check "$c" \
					--arg status "${STATUS[$i,$c]:-skip}" --argjson cached "${CACHED[$i,$c]:-0}" \
					--arg reason "$reason" \
					'{index: $index, commit: $commit, tree: $tree, subject: $subject, check: $check,
					  status: ($status | ascii_downcase), cached: ($cached == 1), reason: $reason}'
			done
		done
	} | jq -s --arg range "$RANGE" --arg base "${COMMITS[0]}" --argjson checks "$(printf '%s\n' "${ALL_CHECKS[@]}" | jq -R . | jq -s .)" \
		'{range: $range, base: $base, checks: $checks,
		  commits: (group_by(.index) | map({index: .[0].index, commit: .[0].commit, tree: .[0].tree,
		            subject: .[0].subject,
		            results: (map({key: .check, value: {status, cached, reason}}) | from_entries)})),
		  failed: (map(select(.status == "fail")) | length)}'
}

# ---------------------------------------------------------------- main

main() {
	local outdir=${WF_TOP}/out/validate checks='' i c n rc=0 ver
	while getopts 'o:c:' opt; do
		case $opt in
		o) outdir=$OPTARG ;;
		c) checks=$OPTARG ;;
		*) usage ;;
		esac
	done
	shift $((OPTIND - 1))
	[[ $# -le 1 ]] || usage
	START=$SECONDS
	RANGE=${1:-}
	if [[ -z $RANGE ]]; then
		parse_branches
		ver=$(package_version)
		RANGE="$(base_ref "$ver")..refs/heads/$TOPIC_NAME"
	fi
	[[ -d $WF_REPO/.git || -f $WF_REPO/HEAD ]] || bad_input "no kernel repo at $WF_REPO (run: make rebuild)"
	select_checks "$checks"
	load_commits "$RANGE"
	mkdir -p "$WF_CACHE/validate"
	exec 9>"$WF_CACHE/validate/lock"
	flock -n 9 || bad_input "another validate.sh is running on $WF_CACHE (lock: $WF_CACHE/validate/lock)"
	# The results being made: gone however the run ends (it holds the lock).
	trap 'rm -rf "$RESULTS/tmp"' EXIT
	input_hashes
	declare -gA STATUS=() CACHED=() REASON=() LASTGOOD=() LASTGOOD_DIR=() BUILT=()
	BASE_NOTES=()
	BOOT_N=0
	SKIP_REASON=$RESULTS/skip-boot-reason.txt
	mkdir -p "$RESULTS" "$outdir"
	TIMINGS=$outdir/timings.tsv
	printf '%s\t0\tstart\t%s\n' "$EPOCHREALTIME" "$RANGE" >"$TIMINGS"
	echo "the boot config does not build, or its build was not checked" >"$SKIP_REASON"
	n=$((${#COMMITS[@]} - 1))
	info "$n commit(s) in $RANGE; checks: $(for c in "${ALL_CHECKS[@]}"; do [[ -n ${ENABLED[$c]:-} ]] && printf '%s ' "$c"; done)"
	for c in "${CONFIGS[@]}"; do
		[[ -n ${ENABLED[$c]:-} ]] && check_baseline "$c"
	done
	for ((i = 1; i <= n; i++)); do
		[[ -n ${ENABLED[checkpatch]:-} ]] && check_checkpatch "$i"
		for c in "${CONFIGS[@]}"; do
			[[ -n ${ENABLED[$c]:-} ]] && check_build "$i" "$c"
		done
		[[ -n ${ENABLED[qemu]:-} ]] && check_qemu "$i"
	done
	printf '%s\t%s\tend\treport\n' "$EPOCHREALTIME" "$n" >>"$TIMINGS"
	write_report | tee "$outdir/report.txt"
	write_json >"$outdir/results.json"
	info "report: $outdir/report.txt, results: $outdir/results.json"
	for ((i = 1; i <= n; i++)); do
		for c in "${ALL_CHECKS[@]}"; do
			[[ ${STATUS[$i,$c]:-} == FAIL ]] && rc=1
		done
	done
	return $rc
}

main "$@"
