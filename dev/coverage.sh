#!/usr/bin/env bash
# Which lines of the workflow's shell scripts the tool tests run, and
# which they never do: where the next test should go.
#
#   dev/coverage.sh [SUITE...]
#   dev/coverage.sh -r       the figures of the last run again, run nothing
#
# Runs the tools' suites (those of tests/run.sh but series.bats, or the
# SUITEs given: files of tests/), one after the other, through tests/run.sh,
# with BASH_ENV naming a file that turns bash's xtrace on in every bash
# whose $0 is a script of runner/, checks/, tools/, dev/ or qemu-boot/ of this
# checkout: each traced line goes to a file of that process's own
# (BASH_XTRACEFD) as "SOURCE:LINE" (PS4; the script or the library it
# sources).  After each suite the traces are cut down to the lines they
# name; its verdict is shown, and its lines are counted whatever it is.
# A script a test copies elsewhere and runs there is not counted.
#
# The lines of code of a script: those that are not blank, comments,
# here-document bodies (python, awk), a keyword alone (then, do, else,
# fi, esac, ;;, {, }), a function's head, a "for ((" head or a "done"
# (xtrace names no line of theirs); a command continued over several
# lines (a "\" at the end, a quoted string such as an awk program, an
# array or a command substitution in parentheses) is one, run when
# xtrace names any of its lines (bash's LINENO is off by a line or two
# inside a command substitution: the figures are close, not exact).  A test that reads a
# script's own xtrace on stderr fails here (it goes to the trace file).
# A script counts when its first line is a bash shebang or it ends in
# .sh.  Written to out/coverage/: summary.txt (per directory and per
# script: lines of code, run, never run, the percentage, the directory
# lines first), <path>.txt per script (its never-run lines, "LINE: text").
# The summary is printed at the end.  Exit status: tests/run.sh's last
# non-zero status, else 0 (the figures are written either way).
set -euo pipefail
WF_PROG=coverage
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/../tools/lib.sh"

TOP=$WF_HOME
OUT=$TOP/out/coverage

# tool_suites: the suites of tests/run.sh that test the tools (all but
# series.bats, the real series), one a line.
tool_suites() {
	sed -n -e '/^suites=(/,/)$/p' -e '/^[[:space:]]*suites+=(/p' "$TOP/tests/run.sh" |
		grep -oE '[a-z0-9-]+\.bats' | grep -vx 'series\.bats'
}

# write_env FILE: the BASH_ENV file.
write_env() {
	cat >"$1" <<EOF
# (dev/coverage.sh) xtrace to a file of this process's own, for the
# scripts of the workflow only.
COVERAGE_CWD=\$PWD
COVERAGE_SCRIPT=\$0
[[ \$COVERAGE_SCRIPT == /* ]] || COVERAGE_SCRIPT=\$PWD/\$COVERAGE_SCRIPT
COVERAGE_SCRIPT=\${COVERAGE_SCRIPT//\/.\//\/}
while [[ \$COVERAGE_SCRIPT =~ ^(.*)/[^/]+/\.\./(.*)\$ ]]; do COVERAGE_SCRIPT=\${BASH_REMATCH[1]}/\${BASH_REMATCH[2]}; done
case \$COVERAGE_SCRIPT in
'$TOP'/runner/* | '$TOP'/checks/* | '$TOP'/tools/* | '$TOP'/dev/* | '$TOP'/qemu-boot/*)
	exec {COVERAGE_TRACE_FD}>>"$TRACES/\$\$.trace"
	BASH_XTRACEFD=\$COVERAGE_TRACE_FD
	PS4='+\${COVERAGE_CWD}|\${BASH_SOURCE[0]}:\${LINENO}: '
	set -x
	;;
esac
EOF
}

# collect: the traces so far into RUN (unique "SOURCE:LINE" lines of the
# scripts of this checkout), the raw traces removed.
collect() {
	local f
	for f in "$TRACES"/*.trace; do
		[[ -e $f ]] || continue
		awk -v top="$TOP/" '
			match($0, /^\++[^|]*\|[^:]*:[0-9]+: /) {
				t = substr($0, 1, RLENGTH - 2); sub(/^\++/, "", t)
				cwd = t; sub(/\|.*/, "", cwd); src = t; sub(/^[^|]*\|/, "", src)
				line = src; sub(/.*:/, "", line); sub(/:[0-9]+$/, "", src)
				if (src !~ /^\//) src = cwd "/" src
				while (gsub(/\/\.\//, "/", src)) {}
				while (sub(/\/[^\/]+\/\.\.\//, "/", src)) {}
				if (index(src, top) == 1) print src ":" line
			}' "$f" 2>/dev/null
		rm -f "$f"
	done | sort -u | sort -u -m - "$RUN" >"$RUN.new"
	mv "$RUN.new" "$RUN"
}

# code_lines FILE: FILE's lines of code, "FIRST LAST" a line: a command
# continued over several lines (a "\" at the end, a quoted string, an
# awk program) is one unit, which xtrace names by one of its lines.
code_lines() {
	awk '
		# scan LINE: the quotes and parentheses it opens or closes (SQ,
		# DQ, PAR); 1 when it ends in a "\" outside quotes.
		function scan(s,   i, c, n) {
			n = length(s)
			for (i = 1; i <= n; i++) {
				c = substr(s, i, 1)
				if (sq) { if (c == "\047") sq = 0; continue }
				if (c == "\\") { if (i == n) return 1; i++; continue }
				if (dq) { if (c == "\"") dq = 0; continue }
				if (c == "\047") sq = 1
				else if (c == "\"") dq = 1
				else if (c == "(") par++
				else if (c == ")") { if (par > 0) par-- }
				else if (c == "#" && (i == 1 || substr(s, i - 1, 1) ~ /[ \t;]/)) return 0
			}
			return 0
		}
		heredoc != "" { x = $0; if (strip) sub(/^\t+/, "", x); if (x == heredoc) heredoc = ""; next }
		{
			if (first == "") {
				s = $0; sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s)
				if (s == "" || s ~ /^#/) next
				if (s ~ /^(then|do|else|fi|esac|;;|\{|\}|\)|\(|in)$/) next
				# (xtrace shows no line of a function head, a "for ((" head
				# or a "done", whose process substitution it gives another)
				if (s ~ /^(function +)?[A-Za-z_][A-Za-z0-9_:-]*\(\)[ \t]*\{?$/ || s ~ /^(for \(\(|done)/) next
				first = NR
			}
			if (!sq && match($0, /<<(-?)[ \t]*[\047"]?[A-Za-z_]+[\047"]?/) && $0 !~ /<<</) {
				h = substr($0, RSTART, RLENGTH); strip = (h ~ /^<<-/)
				gsub(/^<<-?[ \t]*[\047"]?|[\047"]?$/, "", h); pending = h
			}
			if (scan($0) || sq || dq || par) next
			print first, NR
			first = ""
			if (pending != "") { heredoc = pending; pending = "" }
		}' "$1"
}

# is_script PATH: whether PATH (from the top) is a bash script.
is_script() {
	[[ $1 == *.sh ]] || head -n 1 "$TOP/$1" | grep -qE '^#!(/usr/bin/env bash|/bin/bash)'
}

# report: out/coverage/summary.txt and the per-script files; the summary
# on stdout.
report() {
	local path dir n r
	local -A dn=() dr=()
	rm -rf "$OUT/scripts"
	: >"$OUT/scripts.tsv"
	while IFS= read -r path; do
		# shellcheck disable=SC2310 # its status is its answer
		is_script "$path" || continue
		mkdir -p "$(dirname "$OUT/scripts/$path")"
		# A unit is run when xtrace named one of its lines.
		read -r n r < <(awk -v never="$OUT/scripts/$path.txt" -v src="$TOP/$path" '
			FILENAME == "-" { ran[$0] = 1; next }
			FNR == 1 && FILENAME == src { nsrc++ }
			FILENAME == src { text[FNR] = $0; next }
			{
				n++; hit = 0
				for (l = $1; l <= $2; l++) if (l in ran) hit = 1
				if (hit) r++; else miss[++m] = $1
			}
			END {
				printf "" >never
				for (i = 1; i <= m; i++) printf "%d: %s\n", miss[i], text[miss[i]] >never
				close(never); print n + 0, r + 0
			}' - "$TOP/$path" <(code_lines "$TOP/$path") < <(sed -n "s#^$TOP/$path:##p" "$RUN"))
		[[ $n -gt 0 ]] || { rm -f "$OUT/scripts/$path.txt"; continue; }
		dir=${path%%/*}
		[[ $dir != checks ]] || dir=checks
		dn[$dir]=$((${dn[$dir]:-0} + n)) dr[$dir]=$((${dr[$dir]:-0} + r))
		printf '%s\t%d\t%d\n' "$path" "$n" "$r" >>"$OUT/scripts.tsv"
	done < <(git -C "$TOP" ls-files runner checks tools dev qemu-boot)
	{
		printf '%-34s %6s %6s %6s %5s\n' 'directory / script' code run never '%'
		for dir in runner checks tools dev qemu-boot; do
			[[ -n ${dn[$dir]:-} ]] || continue
			printf '%-34s %6d %6d %6d %4d%%\n' "$dir/" "${dn[$dir]}" "${dr[$dir]}" \
				"$((dn[$dir] - dr[$dir]))" "$((100 * dr[$dir] / dn[$dir]))"
		done
		echo
		sort "$OUT/scripts.tsv" | while IFS=$'\t' read -r path n r; do
			printf '%-34s %6d %6d %6d %4d%%\n' "$path" "$n" "$r" "$((n - r))" "$((100 * r / n))"
		done
		printf '\nsuites: %s\nnever-run lines per script: out/coverage/scripts/<script>.txt\n' "${SUITES[*]}"
	} >"$OUT/summary.txt"
	rm -f "$OUT/scripts.tsv"
	cat "$OUT/summary.txt"
}

main() {
	local suite rc=0 last=0 i=0
	if [[ ${1:-} == -r ]]; then
		[[ -s $OUT/run.txt && -s $OUT/suites ]] || die "no run to report in ${OUT#"$TOP"/}"
		RUN=$OUT/run.txt
		read -r -a SUITES <"$OUT/suites"
		report
		return 0
	fi
	[[ ${1:-} != -* ]] || { echo "usage: dev/coverage.sh [-r | SUITE...]" >&2; exit 2; }
	SUITES=("$@")
	[[ ${#SUITES[@]} -gt 0 ]] || mapfile -t SUITES < <(tool_suites)
	for suite in "${SUITES[@]}"; do
		[[ -f $TOP/tests/$suite ]] || die "no suite $suite in tests/"
	done
	rm -rf "$OUT"
	mkdir -p "$OUT"
	TRACES=$OUT/traces RUN=$OUT/run.txt
	mkdir -p "$TRACES"
	: >"$RUN"
	write_env "$OUT/bash-env"
	echo "${SUITES[*]}" >"$OUT/suites"
	for suite in "${SUITES[@]}"; do
		i=$((i + 1))
		info "[$i/${#SUITES[@]}] $suite"
		rc=0
		BASH_ENV=$OUT/bash-env WF_TEST_SUMMARY=$OUT/test-summary "$TOP/tests/run.sh" "$suite" \
			>"$OUT/$suite.log" 2>&1 || rc=$?
		[[ $rc -eq 0 ]] || last=$rc
		info "[$i/${#SUITES[@]}] $suite: $(tail -n 1 "$OUT/$suite.log")"
		collect
	done
	rmdir "$TRACES" 2>/dev/null || true
	report
	return "$last"
}

main "$@"
