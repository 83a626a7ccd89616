#!/usr/bin/env bash
# The results of tools/stress.sh kept in the cache, under a key of what
# the run was (the tree, the kernel, the programs and their settings),
# and the output directory of a killed run set right.  Sourced, never
# run.
# shellcheck shell=bash

# recover_output: what a killed run left in OUT: its half-written
# summary, and after an interrupted run its partial logs, programs and
# initramfs (the next steps rewrite them; said here so that nobody reads
# them as this run's).
recover_output() {
	local f
	local -a partial=()
	if [[ -e $OUT/summary.txt.tmp ]]; then
		rm -f "$OUT/summary.txt.tmp"
		wf_repaired "removed the half-written ${OUT#"$WF_TOP"/}/summary.txt.tmp"
	fi
	# shellcheck disable=SC2310 # wf_recovering is one test: its status is the answer
	wf_recovering || return 0
	for f in "$OUT"/*-console.log "$OUT"/*-run.txt "$OUT"/*.cpio "$OUT"/*.cpio.tmp "$OUT/bin"; do
		[[ -e $f ]] && partial+=("${f##*/}")
	done
	[[ ${#partial[@]} -gt 0 ]] || return 0
	rm -rf "$OUT"/*-console.log "$OUT"/*-run.txt "$OUT"/*.cpio "$OUT"/*.cpio.tmp "${OUT:?}/bin"
	wf_repaired "removed its partial output in ${OUT#"$WF_TOP"/} (${partial[*]})"
}


# result_key COST: the key of this run's result on stdout, or nothing when
# the run is not kept (a program from outside, a tree with changes).
result_key() {
	local cost=$1 tree changes image=none p
	[[ ${#EXTRA[@]} -eq 0 ]] || return 0
	changes=$(git -C "$SRC" status --porcelain 2>/dev/null) || return 0
	[[ -z $changes ]] || return 0
	tree=$(git -C "$SRC" rev-parse 'HEAD^{tree}' 2>/dev/null) || return 0
	[[ -z $KERNEL_ARG ]] || image=$(vl_hash <"$KERNEL_ARG")
	{
		printf 'tree %s image %s\ncalls %s seed %s secs %s timeout %s cost %s append %s\n' \
			"$tree" "$image" "$CALLS" "$SEED" "$SECS" "$TIMEOUT" "$cost" "$APPEND"
		printf 'programs %s\n' "${PROGRAMS[*]}"
		printf 'recorded %s\n' "$(vl_hash <"$RECORDED")"
		# What builds, boots and judges the guests, and keeps and writes
		# the result: whole directories, as validate hashes a check's
		# (qemu-boot/ has the smoke test too).
		for p in tools/stress.sh tools/lib/stress-cache.sh tools/lib/stress-report.sh \
			tools/build.sh tools/kbuild.sh qemu-boot; do
			printf '%s %s\n' "$p" "$(vl_path_hash "$WF_HOME/$p")"
		done
		printf 'fragments %s\n' "$(vl_files_hash "${WF_CONFIGS_DIR:-$WF_HOME/configs}/debug.config" \
			"${WF_CONFIGS_DIR:-$WF_HOME/configs}/boot.config")"
	} | vl_hash
}


# kept_result KEY: print the kept table of KEY, copy its logs to OUTDIR
# and return its status; 3 when nothing is kept.
kept_result() {
	local dir=$RESULTS/$1 status
	[[ -n $1 && -r $dir/status ]] || return 3
	status=$(cat "$dir/status")
	cp "$dir"/*.log "$dir/summary.txt" "$OUT/" 2>/dev/null || return 3
	info "result kept from $(cat "$dir/date") for tree $(cut -c1-12 "$dir/tree") (FORCE=1 runs again)"
	cat "$OUT/summary.txt"
	if [[ $status -eq 0 ]]; then info "PASS (kept; logs: $OUT)"; else info "FAIL (kept; logs: $OUT)"; fi
	return "$status"
}


# keep_result KEY STATUS: keep this run's table and console logs under
# KEY, written beside and renamed, so a killed run keeps nothing.
keep_result() {
	local key=$1 status=$2 tmp
	[[ -n $key ]] || return 0
	[[ $status -eq 0 || $status -eq 1 ]] || return 0
	mkdir -p "$RESULTS"
	tmp=$RESULTS/.tmp-$key
	rm -rf "$tmp"
	mkdir "$tmp"
	cp "$OUT"/*-console.log "$OUT/summary.txt" "$tmp/"
	git -C "$SRC" rev-parse 'HEAD^{tree}' >"$tmp/tree"
	date -u +%Y-%m-%dT%H:%M:%SZ >"$tmp/date"
	echo "$status" >"$tmp/status"
	rm -rf "${RESULTS:?}/$key"
	mv "$tmp" "$RESULTS/$key"
}
