# The one reader of a guest's console (KTAP, as kselftest prints it): every
# tool that judges or summarises a guest reads it through this file.
#
# The console of a guest is the kernel's messages mixed with the KTAP of
# /init (qemu-boot/smoke.c): its own results ("ok N - text") at column 0,
# then one result per program of /tests ("ok N - /tests/NN-name"), each
# preceded by that program's own KTAP relayed with "# " in front: its
# plan, its results ("# ok 1 text") and its "# # Totals: ..." line, as the
# kselftest runner nests a test's output.  The plan of /init comes last,
# so that a guest that died in the middle has none.
#
#   awk -v mode=verdict -f ktap.awk LOG
#	one line, "PASS: N tests, K skipped" or "FAIL: why"; exit 0 or 1
#   awk -v mode=rows -f ktap.awk LOG
#	a line "name<TAB>pass|FAIL<TAB>figure" per program of /tests; the
#	figure is what the program says of itself: the text of its one
#	result, or its Totals line when it has several
#   awk -v mode=figures -v progs="NAME..." -f ktap.awk LOG
#	the numbers the named programs print as "key: N..." diagnostics, a
#	row per key and a column per program (progress and note lines left
#	out)
#
# A name is the program's file name in /tests without its NN- order
# prefix.

function prog_name(path) {
	sub(/ +#.*$/, "", path)
	sub(/^\/tests\//, "", path)
	sub(/^[0-9]+-/, "", path)
	return path
}

# The description of a result line, "ok 3 - text # SKIP" -> "text".
function description(line) {
	sub(/^(not )?ok [0-9]+ */, "", line)
	sub(/^- /, "", line)
	return line
}

function reset_block() {
	nres = 0
	last = ""
	totals = ""
	delete fig
	nfig = 0
}

BEGIN {
	reset_block()
	plan = ""
	nok = 0
	nnotok = 0
	nskip = 0
	first_bad = ""
	nprog = split(progs, want, " ")
	for (i = 1; i <= nprog; i++)
		wanted[want[i]] = i
}

# A program's own lines, relayed by /init.
/^# / {
	line = substr($0, 3)
	if (line ~ /^(not )?ok [0-9]+/) {
		nres++
		last = description(line)
	} else if (line ~ /^# Totals: /) {
		totals = substr(line, 3)
	} else if (line ~ /^# [^:]+: [0-9]/ && line !~ /^# (progress|note): /) {
		key = substr(line, 3)
		sub(/: .*/, "", key)
		val = substr(line, 3)
		sub(/^[^:]*: /, "", val)
		if (!(key in fig))
			order[++nfig] = key
		fig[key] = val
	}
	next
}

/^1\.\.[0-9]+$/ {
	plan = substr($0, 4)
	next
}

/^(not )?ok [0-9]+ / {
	failed = ($1 == "not")
	if (failed) {
		nnotok++
		if (first_bad == "")
			first_bad = $0
	} else {
		nok++
		if ($0 ~ /# SKIP/)
			nskip++
	}
	text = description($0)
	if (text ~ /^\/tests\//) {
		name = prog_name(text)
		if (mode == "rows") {
			figure = (nres == 1) ? last : totals
			printf "%s\t%s\t%s\n", name, failed ? "FAIL" : "pass", figure
		} else if (mode == "figures" && (name in wanted)) {
			col = wanted[name]
			for (i = 1; i <= nfig; i++) {
				k = order[i]
				if (!(k in seen)) {
					seen[k] = 1
					keys[++nkeys] = k
				}
				val_of[k, col] = fig[k]
			}
		}
	}
	reset_block()
	next
}

END {
	if (mode == "verdict") {
		if (nnotok > 0) {
			print "FAIL: " nnotok " test(s) failed: " first_bad
			exit 1
		}
		if (plan == "") {
			print "FAIL: no TAP plan on the console (the smoke test did not finish)"
			exit 1
		}
		if (nok != plan || plan == 0) {
			print "FAIL: TAP plan 1.." plan " but " nok " test line(s)"
			exit 1
		}
		print "PASS: " plan " tests, " nskip " skipped"
	} else if (mode == "figures") {
		if (!nkeys) {
			print "  (no figures)"
			exit 0
		}
		printf "  %-40s", ""
		for (c = 1; c <= nprog; c++)
			printf " %-20s", want[c]
		printf "\n"
		for (i = 1; i <= nkeys; i++) {
			printf "  %-40s", keys[i]
			for (c = 1; c <= nprog; c++)
				printf " %-20s", ((keys[i], c) in val_of) ? val_of[keys[i], c] : "-"
			printf "\n"
		}
	} else if (mode != "rows") {
		print "ktap.awk: mode must be verdict, rows or figures, not '" mode "'" > "/dev/stderr"
		exit 2
	}
}
