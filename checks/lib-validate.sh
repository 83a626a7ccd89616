#!/usr/bin/env bash
# Helpers of checks/validate.sh: cache keys, warning sets, console logs.
# Sourced, never run.
# shellcheck shell=bash

# vl_hash: a short content hash of stdin.
vl_hash() {
	sha256sum | cut -c1-32
}

# vl_files_hash FILE...: hash of the names and contents of FILEs (a
# missing file counts as "missing", so adding it changes the hash).
vl_files_hash() {
	local f
	for f in "$@"; do
		printf '== %s\n' "${f##*/}"
		if [[ -r $f ]]; then cat "$f"; else echo missing; fi
	done | vl_hash
}

# vl_tool_version CMD...: the first line of CMD's version output, or
# "none" when it cannot run.
vl_tool_version() {
	local out
	out=$("$@" 2>&1 | head -n 1) || true
	printf '%s\n' "${out:-none}"
}

# vl_new_warnings OLD NEW: the lines of the warning set NEW that are not in
# OLD (both "file: warning: message" lines, line numbers removed).  The
# warnings themselves are compared, not their count, so a warning that
# replaces another is new.
vl_new_warnings() {
	LC_ALL=C comm -13 <(LC_ALL=C sort -u "$1") <(LC_ALL=C sort -u "$2")
}

# vl_next_state OLD NEW CHANGED: the warning state of a tree after an
# incremental build.  Warnings of OLD in files listed in CHANGED (the files
# that differ from the tree OLD describes) are dropped, those of the build
# (NEW: the files it recompiled) are added.
vl_next_state() {
	local old=$1 new=$2 changed=$3
	{
		awk -F': ' 'NR == FNR { gone[$0] = 1; next } !($1 in gone)' "$changed" "$old"
		cat "$new"
	} | LC_ALL=C sort -u
}

# vl_translated LOG: N of the smoke test's "# translated N of M probed
# names" line of PID 1 (not of a nested test), or nothing.
vl_translated() {
	sed -nE 's/^# translated ([0-9]+) of ([0-9]+) probed names.*/\1 \2/p' "$1" 2>/dev/null | head -n 1
}

# vl_elapsed SECONDS: "1m05s".
vl_elapsed() {
	printf '%dm%02ds' $(($1 / 60)) $(($1 % 60))
}

# vl_matrix_row MATRIX CONFIG: "arch fragment..." of CONFIG.
vl_matrix_row() {
	awk -v n="$2" '$1 == n { $1 = ""; sub(/^ +/, ""); print; exit }' <(sed 's/#.*//' "$1")
}

# vl_matrix_configs MATRIX: the names of the configs every commit is
# built in, in order: the rows of MATRIX less those its "# tip-only:"
# line names.
vl_matrix_configs() {
	local tip_only
	tip_only=$(sed -n 's/^# tip-only://p' "$1")
	sed 's/#.*//' "$1" | awk -v skip="$tip_only" '
		BEGIN { n = split(skip, s); for (i = 1; i <= n; i++) out[s[i]] = 1 }
		NF && !($1 in out) { print $1 }'
}
