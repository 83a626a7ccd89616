#!/usr/bin/env bash
# The check model of runner/validate.sh: the check directories of
# CHECKS_DIR, what each declares in its conf (doc/checks.md), and the
# results they give (a per-config check gives one per config of the
# matrix).  Sourced, never run, after tools/lib.sh and runner/lib.sh.
#
# A check's declarations are read through one interface, by the keyword
# of its conf: conf CHECK KEYWORD prints what it declares, declares
# CHECK KEYWORD answers by its status; for a result, result_conf and
# result_declares.  The results: RESULT_NAMES in table order, and for
# each its check (R_CHECK), its config (R_CONFIG) and the result it needs
# at the same commit (needs).
# shellcheck shell=bash

# conf CHECK KEYWORD: what CHECK's conf declares with KEYWORD: its words
# (a keyword given twice: all of them; version: one command a line), 1
# for a keyword without argument, nothing when not declared (order: 50).
conf() {
	printf '%s' "${CONF[$1:$2]:-}"
}

# declares CHECK KEYWORD: true when CHECK's conf declares KEYWORD.
declares() {
	[[ -n ${CONF[$1:$2]:-} ]]
}

# result_conf RESULT KEYWORD, result_declares RESULT KEYWORD: the same
# for the check that gives RESULT.
result_conf() {
	conf "${R_CHECK[$1]}" "$2"
}

result_declares() {
	declares "${R_CHECK[$1]}" "$2"
}

# parse_conf NAME FILE: the declarations of check NAME into CONF.
parse_conf() {
	local name=$1 file=$2 line lineno=0 word rest row
	CONF[$name:order]=50
	[[ -e $file ]] || return 0
	while IFS= read -r line || [[ -n $line ]]; do
		lineno=$((lineno + 1))
		[[ $line =~ ^[[:space:]]*(#|$) ]] && continue
		read -r word rest <<<"$line"
		case $word in
		order) [[ $rest =~ ^[0-9]+$ ]] || bad_input "$file:$lineno: order takes a number, not '$rest'"
			CONF[$name:order]=$rest ;;
		per-config | baseline | compare | build-dir | tip)
			[[ -z $rest ]] || bad_input "$file:$lineno: '$word' takes no argument"
			CONF[$name:$word]=1 ;;
		config) row=$(vl_matrix_row "$MATRIX" "$rest")
			[[ -n $row ]] || bad_input "$file:$lineno: unknown config '$rest' (see $MATRIX)"
			CONF[$name:config]=$rest ;;
		configs) [[ -n $rest ]] || bad_input "$file:$lineno: 'configs' takes 'all' or config names"
			for word in $rest; do
				[[ $word == all || " ${PER_COMMIT[*]} " == *" $word "* ]] ||
					bad_input "$file:$lineno: '$word' is not a per-commit config (see $MATRIX)"
			done
			CONF[$name:configs]=" $rest " ;;
		needs) CONF[$name:needs]=$rest ;;
		keep) [[ -n $rest ]] || bad_input "$file:$lineno: 'keep' takes paths in the build directory"
			for word in $rest; do
				[[ $word != /* && /$word/ != */../* ]] ||
					bad_input "$file:$lineno: keep '$word': a path inside the build directory"
			done
			CONF[$name:keep]+="$rest " ;;
		uses) for word in $rest; do
				[[ -e $WF_HOME/$word ]] || bad_input "$file:$lineno: '$word' does not exist in $WF_HOME"
			done
			CONF[$name:uses]+="$rest " ;;
		version) CONF[$name:version]+="$rest"$'\n' ;;
		key) [[ $rest == message ]] || bad_input "$file:$lineno: 'key' takes 'message', not '$rest'"
			CONF[$name:key]=message ;;
		*) bad_input "$file:$lineno: unknown declaration '$word'" ;;
		esac
	done <"$file"
}

# load_checks: the check directories of CHECKS_DIR, and the results they
# give, in table order (RESULT_NAMES; R_CHECK, R_CONFIG, R_NEEDS).
load_checks() {
	local dir name r cfg dep
	local -a names
	declare -gA CONF=() R_CHECK=() R_CONFIG=() R_OF=() R_NEEDS=()
	[[ -r $MATRIX ]] || bad_input "cannot read the config matrix $MATRIX"
	mapfile -t PER_COMMIT < <(vl_matrix_configs "$MATRIX")
	names=()
	for dir in "$CHECKS_DIR"/*/; do
		dir=${dir%/}
		name=${dir##*/}
		[[ -e $dir/run ]] || continue
		[[ -x $dir/run ]] || bad_input "$dir/run is not executable"
		[[ $name =~ ^[a-z0-9][a-z0-9_-]*$ ]] || bad_input "check directory '$name': use a-z, 0-9, _ and -"
		parse_conf "$name" "$dir/conf"
		[[ ${CONF[$name:per-config]:+1}${CONF[$name:configs]:+1}${CONF[$name:config]:+1} != 1?* ]] ||
			bad_input "$dir/conf: declare one of 'per-config', 'configs' and 'config'"
		[[ -z ${CONF[$name:keep]:-} || -n ${CONF[$name:build-dir]:-} ]] ||
			bad_input "$dir/conf: 'keep' names files of the build directory: declare 'build-dir'"
		names+=("$name")
	done
	[[ ${#names[@]} -gt 0 ]] || bad_input "no check directories in $CHECKS_DIR"
	RESULT_NAMES=()
	while read -r _ name; do
		if declares "$name" per-config; then
			for cfg in "${PER_COMMIT[@]}"; do add_result "$cfg" "$name" "$cfg"; done
		elif declares "$name" configs; then
			for cfg in "${PER_COMMIT[@]}"; do
				[[ ${CONF[$name:configs]} == *" all "* || ${CONF[$name:configs]} == *" $cfg "* ]] || continue
				add_result "$name-$cfg" "$name" "$cfg"
			done
		else
			add_result "$name" "$name" "$(conf "$name" config)"
		fi
	done < <(for name in "${names[@]}"; do printf '%s %s\n' "$(conf "$name" order)" "$name"; done |
		LC_ALL=C sort -k1,1n -k2,2)
	# What each result needs: a result, or a check that runs per config:
	# its result in the same config.
	for r in "${RESULT_NAMES[@]}"; do
		name=${R_CHECK[$r]} cfg=${R_CONFIG[$r]}
		dep=$(conf "$name" needs)
		[[ -n $dep ]] || continue
		if [[ -n ${R_CHECK[$dep]:-} ]]; then
			R_NEEDS[$r]=$dep
		elif [[ -n ${CONF[$dep:per-config]:-}${CONF[$dep:configs]:-} && -n ${R_OF[$dep,$cfg]:-} ]]; then
			R_NEEDS[$r]=${R_OF[$dep,$cfg]}
		elif [[ -n ${CONF[$dep:per-config]:-}${CONF[$dep:configs]:-} ]]; then
			bad_input "$CHECKS_DIR/$name/conf: needs '$dep', which has no result in the config '${cfg:-(none)}' of $r"
		else
			bad_input "$CHECKS_DIR/$name/conf: needs '$dep', which no check gives"
		fi
	done
}

# add_result RESULT CHECK CONFIG
add_result() {
	[[ -z ${R_CHECK[$1]:-} ]] ||
		bad_input "two checks give a result named '$1' ($CHECKS_DIR/${R_CHECK[$1]} and $CHECKS_DIR/$2)"
	R_CHECK[$1]=$2
	R_CONFIG[$1]=$3
	[[ -z $3 ]] || R_OF[$2,$3]=$1
	RESULT_NAMES+=("$1")
}

# typed_result NAME: the result a name typed in CHECKS= or -k selects:
# NAME itself, or for <check>-<config> the result of a per-config check
# in that config (build-boot: the build check's result "boot", cached and
# reported under that name; its directory, its cache and the reports keep
# the config's name, the typed one says what it is).
typed_result() {
	local r
	if [[ -z ${R_CHECK[$1]:-} ]]; then
		for r in "${RESULT_NAMES[@]}"; do
			# shellcheck disable=SC2310 # its status is its answer
			if result_declares "$r" per-config && [[ $1 == "${R_CHECK[$r]}-${R_CONFIG[$r]}" ]]; then
				printf '%s\n' "$r"
				return
			fi
		done
	fi
	printf '%s\n' "$1"
}

# is_check NAME: true when NAME is a check's name (its directory's).
is_check() {
	[[ -n ${CONF[$1:order]:-} ]]
}

# needs RESULT: the result RESULT needs at the same commit, or nothing.
needs() {
	printf '%s' "${R_NEEDS[$1]:-}"
}

# needs_kept RESULT: true when the result RESULT needs keeps files of its
# build directory with each usable result (its check's 'keep').
needs_kept() {
	local dep
	dep=$(needs "$1")
	[[ -n $dep ]] && result_declares "$dep" keep
}

# gets_kept RESULT: true when RESULT has no build directory of its own
# and the result it needs keeps files: its check gets those files, and
# no build directory is brought to its commit.
gets_kept() {
	# shellcheck disable=SC2310 # its status is its answer
	! result_declares "$1" build-dir && needs_kept "$1"
}
