#!/usr/bin/env bash
# The summary of tools/stress.sh: a row per program of each guest, its
# kernel reports and verdict, the fuzzer's figures, and the cost ratios
# against the recorded ones (read from the console logs by
# qemu-boot/ktap.awk).  Sourced, never run.
# shellcheck shell=bash

# reports LOG: the number of console lines that report a kernel problem,
# by the patterns qemu-boot/run.sh judges a boot with (BAD_PATTERNS, from
# qemu-boot/bad-console.txt).
reports() {
	grep -cE -e "$BAD_PATTERNS" "$1" || true
}

# program_rows LOG: "program<TAB>result<TAB>figure" for each program of
# /tests, as qemu-boot/ktap.awk reads the console.
program_rows() {
	awk -v mode=rows -f "$GUEST/ktap.awk" "$1"
}

# summary: the table and the figures, on stdout.
summary() {
	local name log prog res fig nrep
	printf '%-8s %-22s %-6s %s\n' kernel program result figures
	for name in "${RUNS[@]}"; do
		log=$OUT/$name-console.log
		[[ -r $log ]] || continue
		while IFS=$'\t' read -r prog res fig; do
			printf '%-8s %-22s %-6s %s\n' "$name" "$prog" "$res" "$fig"
		done < <(program_rows "$log")
		nrep=$(reports "$log")
		printf '%-8s %-22s %-6s %s\n' "$name" "(kernel reports)" \
			"$([[ $nrep -eq 0 ]] && echo pass || echo FAIL)" \
			"$nrep line(s) of KASAN/UBSAN/lockdep/BUG/WARNING/Oops"
		printf '%-8s %-22s %-6s %s\n' "$name" "(guest)" "${VERDICT[$name]%%:*}" "${VERDICT[$name]#*: }"
	done
	# (-P without the fuzzer: no figures to show)
	[[ " ${PROGRAMS[*]} " == *' fuzz'[\ _]* ]] || return 0
	printf '\nfuzzer under the debug kernel (seed %s, %s calls per build):\n' "$SEED" "$CALLS"
	fuzz_figures "$OUT/debug-console.log"
}

# cost_against_recorded LOG: each ratio of the cost programs of the boot
# run (LOG) beside the one recorded in RECORDED ("program name ratio"
# lines, '#' comments), "REGRESSION" when more than REGRESSION_PCT
# percent above it.
cost_against_recorded() {
	printf '\ncost on the boot config (sysctl(2) / open+read+close, medians) against %s:\n' "${RECORDED#"$WF_HOME"/}"
	program_rows "$1" | awk -F'\t' -v pct="$REGRESSION_PCT" -v recorded="$RECORDED" '
		BEGIN {
			while ((getline line < recorded) > 0) {
				if (line ~ /^[ \t]*(#|$)/)
					continue
				split(line, f, /[ \t]+/)
				rec[f[1] " " f[2]] = f[3]
			}
			printf "%-8s %-28s %6s %9s %7s\n", "program", "name", "ratio", "recorded", "change"
		}
		$1 ~ /^cost(_32)?$/ {
			sub(/^cost: /, "", $3)
			n = split($3, parts, /; /)
			for (i = 1; i <= n; i++) {
				if (!match(parts[i], /ratio=[0-9.]+/))
					continue
				split(parts[i], w, " ")
				name = w[1]
				ratio = substr(parts[i], RSTART + 6, RLENGTH - 6)
				key = $1 " " name
				if (!(key in rec)) {
					printf "%-8s %-28s %6s %9s %7s\n", $1, name, ratio, "-", "(none recorded)"
					continue
				}
				change = (ratio / rec[key] - 1) * 100
				flag = ""
				if (change > pct)
					flag = "  REGRESSION (more than " pct "% above the recorded ratio)"
				printf "%-8s %-28s %6s %9s %+6.0f%%%s\n", $1, name, ratio, rec[key], change, flag
			}
		}'
}

# fuzz_figures LOG: what each fuzzer run tried and got, a column per
# build (64-bit, 32-bit), as qemu-boot/ktap.awk reads the console.
fuzz_figures() {
	awk -v mode=figures -v progs="fuzz fuzz_32" -f "$GUEST/ktap.awk" "$1"
}
