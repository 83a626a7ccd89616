# The "Changes in vN:" list of a cover letter, from the output of
# "git range-diff vPREV...vN" (tools/submit.sh):
#   - Changed: SUBJECT     a patch of both revisions, with a different diff
#   - New: SUBJECT         in vN only
#   - Dropped: SUBJECT     in vPREV only
#   - Rewritten: SUBJECT   a patch range-diff could not pair because too
#                          much of it changed, but with the same subject in
#                          both: one patch, not a dropped and a new one
#   - Unchanged: N patch(es)
# in the range-diff's order (a rewritten patch where vN has it).
#
#   awk -f tools/lib/changelog.awk RANGEDIFF
/^ *[0-9-]+: +[0-9a-f-]+ [=!<>] +[0-9-]+: +[0-9a-f-]+ / {
	op = $3
	subj = $0
	sub(/^ *[0-9-]+: +[0-9a-f-]+ [=!<>] +[0-9-]+: +[0-9a-f-]+ /, "", subj)
	if (op == "=") {
		same++
		next
	}
	n++
	ops[n] = op
	subjs[n] = subj
	if (op == "<")
		dropped[subj] = 1
	else if (op == ">")
		added[subj] = 1
}
END {
	for (i = 1; i <= n; i++) {
		op = ops[i]
		subj = subjs[i]
		if (op == "!")
			print "- Changed: " subj
		else if (op == ">")
			print "- " ((subj in dropped) ? "Rewritten" : "New") ": " subj
		else if (!(subj in added))
			print "- Dropped: " subj
	}
	if (same)
		print "- Unchanged: " same " patch(es)"
}
