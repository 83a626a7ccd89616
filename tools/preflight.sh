#!/usr/bin/env bash
# The checks a written revision must pass before it is written out or
# sent (what b4 0.14 calls pre-flight checks; b4 0.12 has none).
#
#   tools/preflight.sh [-f] [-n] DIR
#
# DIR is a revision written by tools/submit.sh: the messages (*.eml), the
# cover letter as written (cover.txt) and a draft record (record: revision,
# trees of the commits, ...).  Refuses, one line per failed check, when
#   - validation: a commit of DIR (by tree id) has a failed or missing
#     result for a check in the last validation (out/<id>/validate/results.json;
#     WF_VALIDATE_RESULTS names another file);
#   - cover: the cover letter still has a placeholder (@NAME@, what a
#     draft has yet to fill in, or b4's EDITME, which b4 never sends:
#     refused whatever -f says), or is the one of the previous sent
#     revision (cover-letters/<id>/sent/vK/cover.txt);
#   - identity: a patch's author or one of its Signed-off-by lines uses a
#     reserved example domain (example.com/.net/.org, .example, .test,
#     .invalid, .localhost): such an address cannot certify the DCO;
#   - recipients: a To or Cc of a message uses such a domain (a
#     placeholder: no mail reaches it; tools/submit.sh drops them, so
#     this is a message edited since, or a bug).
# -f (FORCE=1) reports each failed check as overridden and succeeds.  -n:
# DIR has no messages yet (only its record and cover.txt): the checks
# that need none, validation and cover, which tools/submit.sh runs
# before any b4 work.
# Exit status 1 when a check failed (without -f), 2 on bad input.
set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tools/lib/sent.sh
. "$WF_HOME/tools/lib/sent.sh"

RESULTS_JSON=${WF_VALIDATE_RESULTS:-$WF_OUT/validate/results.json}

usage() {
	echo "usage: $0 [-f] [-n] DIR" >&2
	exit 2
}

# validation_results: "TREE CHECK STATUS" for every commit and check of
# the last validation (STATUS pass, fail, skip, missing, tip-only).  The
# check's own "not applicable" (exit 125, with its log) is a verdict and
# counts as pass; tip-only is a check run at the tip only, below the tip
# (check_validation judges it by the tip's result).  A skip without a log
# (not selected, not run) is no verdict.  Readers of validate's
# results (doc/results.md): this, tools/status.sh, tools/kcidb.sh and
# the faults rows (dev/lib/faults-*.sh).
validation_results() {
	[[ -e $RESULTS_JSON ]] || return 0
	jq -r '.checks as $checks | .commits[] | . as $c | $checks[] | . as $k | $c.results[$k] as $r |
		"\($c.tree) \($k) \(if $r.status == "skip" and ($r.log // "") != "" then "pass"
			elif $r.status == "skip" and $r.reason == "not run: at the tip only" then "tip-only"
			else $r.status // "missing" end)"' \
		"$RESULTS_JSON" 2>/dev/null ||
		die "cannot read the validation results $RESULTS_JSON"
}

# messages DIR: one line per patch message of DIR (the cover excluded):
# "N<TAB>SUBJECT<TAB>ROLE<TAB>ADDRESS" for its author (the in-body From:
# line, else the header) and each Signed-off-by, decoded.
messages() {
	python3 - "$1"/*.eml <<'EOF'
import email, email.policy, re, sys
n = 0
for path in sys.argv[1:]:
    if path.rsplit('/', 1)[-1].startswith('0000-'):
        continue
    n += 1
    msg = email.message_from_binary_file(open(path, 'rb'), policy=email.policy.default)
    subject = re.sub(r'\s+', ' ', str(msg['subject']))
    body = msg.get_body(('plain',)).get_content()
    head = body.split('\n---\n', 1)[0]
    m = re.match(r'From: (.*)\n', body)
    author = m.group(1) if m else str(msg['from'])
    print(f'{n}\t{subject}\tauthor\t{author}')
    for sob in re.findall(r'^Signed-off-by: (.*)$', head, re.M):
        print(f'{n}\t{subject}\tSigned-off-by\t{sob}')
EOF
}

# check_validation DIR: every tree of DIR has a pass for every check.
check_validation() {
	local dir=$1 tree i=0 n bad=0 first='' missing st c results
	local -a trees
	declare -A status=()
	read -r -a trees <<<"$(record_field "$dir/record" trees)"
	n=${#trees[@]}
	local -a checks=()
	results=$(validation_results)
	while read -r tree c st; do
		[[ -n $tree ]] || continue
		status[$tree $c]=$st
		[[ " ${checks[*]} " == *" $c "* ]] || checks+=("$c")
	done <<<"$results"
	if [[ ${#checks[@]} -eq 0 ]]; then
		echo "validation: no validation results (${RESULTS_JSON#"$WF_TOP"/}) for the $n commit(s) (run: make validate)"
		return
	fi
	for tree in "${trees[@]}"; do
		i=$((i + 1))
		missing=''
		for c in "${checks[@]}"; do
			st=${status[$tree $c]:-missing}
			# (below the revision's last commit, a tip-only check is judged
			# there; at it, one that did not run is a skip)
			if [[ $st == tip-only ]]; then
				[[ $i -eq $n ]] || continue
				st=skip
			fi
			[[ $st == pass ]] || missing+="$c: ${st/skip/not run}, "
		done
		[[ -z $missing ]] && continue
		bad=$((bad + 1))
		[[ -n $first ]] || first="patch $i/$n (tree ${tree:0:12}) ${missing%, }"
	done
	[[ $bad -eq 0 ]] ||
		echo "validation: $bad of $n commit(s) lack a passing result, first $first (run: make validate)"
}

# check_cover DIR: the cover letter has no placeholder left (@NAME@, as a
# draft marks what is still to be written, or EDITME, as b4 prep's
# template does: the one test of a placeholder, submit's and send's) and
# differs from the previous revision's.  EDITME is refused whatever
# FORCE says (a line "!..."): b4 sends no cover letter that has it.
check_cover() {
	local dir=$1 rev prev hole
	if grep -qw EDITME "$dir/cover.txt"; then
		echo "!cover: the cover letter ($(record_field "$dir/record" cover)) still has b4's placeholder EDITME: fill it in (b4 sends no cover letter with it, FORCE=1 or not)"
	fi
	hole=$(grep -o -m1 -E '@[A-Z][A-Z0-9_]*@' "$dir/cover.txt" | head -n 1) || true
	if [[ -n $hole ]]; then
		echo "cover: the cover letter ($(record_field "$dir/record" cover)) still has the placeholder $hole: fill it in"
	fi
	rev=$(record_field "$dir/record" revision)
	prev=$(prev_sent_revision "$rev")
	[[ -n $prev ]] || return 0
	if cmp -s "$dir/cover.txt" "$SENT_DIR/v$prev/cover.txt"; then
		echo "cover: the cover letter of v$rev ($(record_field "$dir/record" cover)) is the one sent with v$prev: write cover-letters/$WF_BRANCH/v$rev.txt saying what changed"
	fi
}

# check_identities DIR: no author or Signed-off-by in a reserved domain.
check_identities() {
	local dir=$1 n subj role addr bad=0 first='' people
	people=$(messages "$dir")
	while IFS=$'\t' read -r n subj role addr; do
		[[ -n $n ]] || continue
		# shellcheck disable=SC2310 # its status is its answer; it does not rely on set -e
		reserved_domain "$addr" >/dev/null || continue
		bad=$((bad + 1))
		[[ -n $first ]] || first="patch $n '$subj': $role $addr"
	done <<<"$people"
	[[ $bad -eq 0 ]] ||
		echo "identity: $bad author/Signed-off-by address(es) in a reserved example domain cannot certify the DCO, first $first (take authorship: SENDER='Name <address>', see CONTRIBUTING.md)"
}

# check_recipients DIR: no To/Cc in a reserved domain.
check_recipients() {
	local list first
	list=$(reserved_recipients "$1")
	[[ -n $list ]] || return 0
	first=$(head -n 1 <<<"$list")
	echo "recipients: $(wc -l <<<"$list") To/Cc address(es) in a reserved example domain (a placeholder no mail reaches), first ${first#*$'\t'} in ${first%%$'\t'*} (make submit drops them: write the messages again)"
}

main() {
	local force=0 messages=1 dir opt line failed=0 hard=0 check out what
	local -a checks
	while getopts 'fn' opt; do
		case $opt in
		f) force=1 ;;
		n) messages=0 ;;
		*) usage ;;
		esac
	done
	shift $((OPTIND - 1))
	[[ $# -eq 1 ]] || usage
	dir=$1
	[[ -f $dir/record && -f $dir/cover.txt ]] ||
		bad_input "$dir is not a revision written by tools/submit.sh (no record or cover.txt)"
	if [[ $messages -eq 1 ]]; then
		compgen -G "$dir/*.eml" >/dev/null || bad_input "$dir has no messages (*.eml)"
		checks=(check_validation check_cover check_identities check_recipients) what='validation, cover letter, identities and recipients'
	else
		checks=(check_validation check_cover) what='validation and cover letter'
	fi
	# shellcheck disable=SC2310 # record_field is one pipeline; its output is the answer
	[[ -n $(record_field "$dir/record" trees) && -n $(record_field "$dir/record" revision) ]] ||
		bad_input "$dir/record has no revision or trees: write it with tools/submit.sh"
	for check in "${checks[@]}"; do
		out=$("$check" "$dir")
		while IFS= read -r line; do
			[[ -n $line ]] || continue
			failed=$((failed + 1))
			if [[ $line == '!'* ]]; then
				hard=$((hard + 1))
				printf '%s: error: refusing: %s\n' "$WF_PROG" "${line#!}" >&2
			elif [[ $force -eq 1 ]]; then
				printf '%s: FORCE=1: overriding the %s check: %s\n' "$WF_PROG" "${line%%:*}" "${line#*: }" >&2
			else
				printf '%s: error: refusing: %s\n' "$WF_PROG" "$line" >&2
			fi
		done <<<"$out"
	done
	if [[ $failed -eq 0 ]]; then
		info "ok: $what of $(record_field "$dir/record" revision | sed 's/^/v/')"
	elif [[ $force -eq 0 || $hard -gt 0 ]]; then
		return 1
	fi
}

long_options no-messages=n -- "$@"
main "${LONG_ARGS[@]}"
