#!/usr/bin/env bash
# Helpers of runner/validate.sh (the runner): cache keys, the matrix,
# durations.  Sourced, never run, after tools/lib.sh (vl_every naps).
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

# vl_path_hash PATH: hash of a file, or of a directory's files (their
# paths below it, contents and execute bits), wherever it lies; "missing"
# when there is nothing.
vl_path_hash() {
	local p=$1
	if [[ -d $p ]]; then
		(
			cd "$p" || exit 1
			find . -type f -print0 | LC_ALL=C sort -z | xargs -0r sha256sum
			find . -type f -perm -u+x | LC_ALL=C sort
		) | vl_hash
	elif [[ -f $p ]]; then
		vl_hash <"$p"
	else
		echo missing
	fi
}

# vl_tool_version COMMAND: the first line of what the shell command
# COMMAND prints, or "none" when it cannot run.
vl_tool_version() {
	local out
	out=$(bash -c "$1" 2>&1 | head -n 1) || true
	printf '%s\n' "${out:-none}"
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

# vl_html TEXT: TEXT with &, <, >, " and ' escaped for HTML, in text and
# in an attribute.  Each replacement is quoted: unquoted, bash 5.2
# (patsub_replacement, on by default) reads its & as the text matched,
# and "<" became "<lt;".
vl_html() {
	local s=$1
	s=${s//&/'&amp;'}
	s=${s//</'&lt;'}
	s=${s//>/'&gt;'}
	s=${s//\"/'&quot;'}
	s=${s//\'/'&#39;'}
	printf '%s' "$s"
}

# vl_free_kb DIR: the KiB free on the filesystem of DIR (or of its
# nearest existing parent); nothing when df cannot tell.
vl_free_kb() {
	local d=$1
	while [[ ! -e $d && $d == */* ]]; do d=${d%/*}; done
	df -Pk "${d:-/}" 2>/dev/null | awk 'NR == 2 { print $4 }'
}

# vl_nearly_full DIR: true when the filesystem of DIR (or of its nearest
# existing parent) has less than 1 MiB free.
vl_nearly_full() {
	local avail
	avail=$(vl_free_kb "$1")
	[[ -n $avail && $avail -lt 1024 ]]
}

# vl_every SECONDS FUNC ARGS...: call FUNC ARGS every SECONDS, for ever;
# run it in the background and end it with TERM.  No trap: it waits in
# nap (tools/lib.sh), so TERM's default action ends it at once wherever
# it is.
vl_every() {
	local every=$1
	shift
	while :; do
		nap "$every"
		"$@"
	done
}
