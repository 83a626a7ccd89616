#!/usr/bin/env bash
# The cache of runner/validate.sh: the key of a result, the results
# stored under RESULTS/<result>/<key>, the files a result keeps, and the
# build directories under BUILDROOT brought to the commit a check needs.
# Sourced, never run, after runner/model.sh.
#
# What the walk over the commits has made so far (reset_results): the key
# of each result at each commit, the results that are usable (they have
# a state: the next commit compares with them, or builds on them), and
# per result the last usable one.
# shellcheck shell=bash

# reset_results: no result known yet.
reset_results() {
	declare -gA KEY=() USABLE=() PREV_DIR=() PREV_KEY=() PREV_IDX=()
}

# keyed RESULT I: the key of RESULT at commit I, into KEY (its result is
# stored in RESULTS/RESULT/KEY).
keyed() {
	KEY[$1,$2]=$(result_key "$1" "$2")
}


# usable RESULT I: true when RESULT at commit I is usable.
usable() {
	[[ -n ${USABLE[$1,$2]:-} ]]
}

# mark_usable RESULT I DIR: RESULT at commit I (its result in DIR) is
# usable, and the last of RESULT that is (PREV_DIR, the result a check
# that compares is given).
mark_usable() {
	USABLE[$1,$2]=1
	# shellcheck disable=SC2034 # PREV_DIR: read by check_result (runner/step.sh)
	PREV_DIR[$1]=$3 PREV_KEY[$1]=${KEY[$1,$2]} PREV_IDX[$1]=$2
}


# kept_dir RESULT I: where RESULT's result at commit I keeps its files.
kept_dir() {
	printf '%s/%s/%s/kept' "$RESULTS" "$1" "${KEY[$1,$2]}"
}

# kept_complete RESULT DIR: true when the result in DIR holds every file
# RESULT keeps.
kept_complete() {
	local p
	for p in $(result_conf "$1" keep); do
		[[ -f $2/kept/$p ]] || return 1
	done
}

# given_build RESULT I: the WF_CHECK_BUILD of RESULT at commit I: its
# own build directory, or what the result it needs gives: the files that
# result kept at this commit (a tree of their paths), or its build
# directory (brought to this commit).
given_build() {
	# shellcheck disable=SC2310 # its status is its answer
	if gets_kept "$1"; then
		kept_dir "$(needs "$1")" "$2"
	else
		build_dir "$1"
	fi
}

# build_dir RESULT: the build directory RESULT's check gets (its own, or
# that of the result it needs), or nothing.
build_dir() {
	local r=$1 dep
	# shellcheck disable=SC2310 # its status is its answer
	if result_declares "$r" build-dir; then
		printf '%s/%s' "$BUILDROOT" "$r"
		return
	fi
	dep=$(needs "$r")
	[[ -n $dep ]] && build_dir "$dep"
	return 0
}

# static_keys: R_STATIC[result], the part of its key that does not
# depend on the commit: the check's directory, what it uses, its
# config's matrix row and fragments, its tools' versions.
static_keys() {
	local r c cfg u row v frags f
	local -a files
	declare -gA R_STATIC=()
	for r in "${RUN_ORDER[@]}"; do
		c=${R_CHECK[$r]} cfg=${R_CONFIG[$r]}
		R_STATIC[$r]=$( {
			printf 'result %s check %s config %s\n' "$r" "$c" "$cfg"
			printf 'dir %s\n' "$(vl_path_hash "$CHECKS_DIR/$c")"
			for u in $(conf "$c" uses); do printf 'uses %s %s\n' "$u" "$(vl_path_hash "$WF_HOME/$u")"; done
			if [[ -n $cfg ]]; then
				row=$(vl_matrix_row "$MATRIX" "$cfg")
				read -r _ frags <<<"$row"
				files=()
				for f in $frags; do files+=("$CONFIGS_DIR/$f"); done
				printf 'config %s %s\n' "$row" "$(vl_files_hash "${files[@]}")"
			fi
			while IFS= read -r v; do
				[[ -z $v ]] || printf 'version %s\n' "$(vl_tool_version "$v")"
			done <<<"$(conf "$c" version)"
		} | vl_hash)
	done
}

# result_key RESULT I: the cache key of RESULT at commit I.
result_key() {
	local r=$1 i=$2 dep
	{
		printf '%s\n' "${R_STATIC[$r]}" "tree ${TREES[$i]}" "parent ${PTREES[$i]}"
		# shellcheck disable=SC2310 # its status is its answer
		if result_declares "$r" key; then repo_git log -1 --format='%an <%ae>%n%B' "${COMMITS[$i]}"; fi
		# shellcheck disable=SC2310 # its status is its answer
		if result_declares "$r" compare; then printf 'prev %s\n' "${PREV_KEY[$r]:-none}"; fi
		dep=$(needs "$r")
		[[ -z $dep ]] || printf 'needs %s\n' "${KEY[$dep,$i]}"
	} | vl_hash
}

# built_at RESULT I: true when RESULT's build directory holds commit I.
built_at() {
	local bdir
	bdir=$(build_dir "$1")
	[[ -n $bdir && $(cat "$bdir/.validate-at" 2>/dev/null) == "${TREES[$2]}" ]]
}

# sync_build RESULT I FOR: bring RESULT's build directory to commit I by
# running its check there (the result is thrown away), for commit FOR.
sync_build() {
	local r=$1 i=$2 tmp
	# shellcheck disable=SC2310 # its status is its answer
	built_at "$r" "$i" && return 0
	progress "$3" "$r" "bringing the build directory to ${COMMITS[$i]:0:12}"
	tmp=$(new_result)
	run_check "$r" "$i" "$tmp" ''
	rm -rf "$tmp"
}

# prepare_build RESULT I: the build directory RESULT's check gets holds
# what it must: nothing for a baseline, the commit it compares with, or
# this commit for a check that needs another's build.
prepare_build() {
	local r=$1 i=$2 dep dep_dir
	# shellcheck disable=SC2310 # its status is its answer
	if result_declares "$r" build-dir; then
		if [[ $i -eq 0 ]]; then
			# Warnings come only from what is compiled: start from scratch.
			rm -rf "${BUILDROOT:?}/$r"
		elif [[ -n ${PREV_IDX[$r]:-} ]]; then
			sync_build "$r" "${PREV_IDX[$r]}" "$i"
		fi
	fi
	dep=$(needs "$r")
	[[ -n $dep ]] || return 0
	# shellcheck disable=SC2310 # its status is its answer
	if needs_kept "$r"; then return 0; fi
	dep_dir=$(build_dir "$dep")
	[[ -z $dep_dir ]] || sync_build "$dep" "$i" "$i"
}

# keep_files RESULT OUT: copy the files RESULT keeps from its build
# directory into OUT/kept; an error (a file the check did not leave, a
# full disk) is an infrastructure error: prints why, or nothing.
keep_files() {
	local r=$1 out=$2 bdir p
	bdir=$(build_dir "$r")
	for p in $(result_conf "$r" keep); do
		if [[ ! -f $bdir/$p ]]; then
			echo "the check left no $p in $bdir to keep"
			return 0
		fi
		mkdir -p "$(dirname "$out/kept/$p")" 2>/dev/null && cp "$bdir/$p" "$out/kept/$p" 2>/dev/null && continue
		echo "cannot keep $p: no space left on device in $out"
		return 0
	done
}

# new_result: a fresh scratch directory for a result.
new_result() {
	local d
	mkdir -p "$RESULTS/tmp"
	d=$(mktemp -d "$RESULTS/tmp/r.XXXXXX")
	: >"$d/log"
	printf '%s\n' "$d"
}

# store_result TMPDIR DIR: make the result visible (atomically).
store_result() {
	mkdir -p "${2%/*}"
	rm -rf "$2"
	mv "$1" "$2"
}
