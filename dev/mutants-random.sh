#!/usr/bin/env bash
# Mutants nobody chose: N one-line bugs drawn at random from SEED in the
# shell scripts of runner/, checks/, tools/ and qemu-boot/, each run
# against the suites that cover the file it mutates (through
# dev/mutants.sh, as the hand-written mutants of tests/mutants/ are).
#
#   dev/mutants-random.sh -n N [-s SEED]     draw N mutants, run them
#   dev/mutants-random.sh -n N -d [-s SEED]  draw them only (to read)
#   dev/mutants-random.sh -R -s SEED         the report of the last run of
#                                              SEED again (after a judgement)
#   dev/mutants-random.sh -l                 count the sites, run nothing
#
# Files: those tests/mutants/random-suites.txt maps to suites ("GLOB
# SUITE..." a line, the first matching line wins; "-" for no suite: the
# file is left out, as are files whose only suites may not run here:
# qemu.bats, stress.bats and series.bats build a real kernel).  Sites:
# each line of such a file outside comments and here-documents, and each
# operator that applies to it:
#   cmp     a comparison flipped (-eq/-ne, -lt/-ge, -gt/-le, == and != in [[ ]])
#   status  an exit status flipped (return 0/1, exit 0/N)
#   bound   a loop bound or an index moved by one (< and <= of for ((,
#           its start, [0], [-1], head/tail -n 1, + 1 and - 1 in (( )))
#   andor   a && made || or a || made &&
#   pattern a letter of git --diff-filter dropped, a regex class changed
#           ([0-9], [a-z], [^/], \s, \w, [[:space:]]), an option letter
#           of grep, sed, sort, cut, tr or git dropped
#   drop    a line that sets a variable or calls a function of the
#           project made a no-op (:)
# The draw: an operator at random among those with sites left, then one
# of its sites; a mutant bash -n refuses is drawn again.  The same seed
# on the same checkout draws the same mutants.
#
# A mutant that survives is a missing test, unless it is equivalent (no
# test could tell it from the code): tests/mutants/equivalent.txt lists
# those, "ID REASON" a line (ID: the mutant's, from its operator, file
# and the line before and after; it does not change when other lines
# move).  They are counted apart, with their reason.  The end: a table
# "mutant | operator | where | result | time", then "N mutants (seed S):
# K killed, S survived, E equivalent[, X errors]; survival rate
# S/(K+S) = P%; Tm..s"; exit status 0 only with no survivor and no error.
# The mutants and the logs are kept in out/mutants-random/.
#
# Settings: WF_MUTANTS_TOP (the checkout, default this one), MUTANTS_TIMEOUT
# (seconds per mutant, default 600 here: a flipped loop bound may never end).
set -euo pipefail
WF_PROG=mutants
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/../tools/lib.sh"
# shellcheck source=runner/lib.sh
. "$WF_HOME/runner/lib.sh"

TOP=${WF_MUTANTS_TOP:-$WF_HOME}
OUT=$TOP/out/mutants-random
MAP=$TOP/tests/mutants/random-suites.txt
EQUIV=$TOP/tests/mutants/equivalent.txt
# The suites that build a real kernel: never run by a mutant here.
HEAVY='qemu.bats stress.bats series.bats'

usage() {
	echo "usage: dev/mutants-random.sh (-n N [-d] | -l | -R) [-s SEED]" >&2
	exit 2
}

# draw MODE SEED N DIR: the generator (python): MODE "list" prints the
# sites per operator; "draw" writes N mutants into DIR (NAME.patch in the
# format of tests/mutants/) and DIR/index.tsv (name, id, operator,
# file:line, the line before, the line after).
draw() {
	python3 - "$1" "$2" "$3" "$4" "$TOP" "$MAP" "$HEAVY" <<'EOF'
import difflib, fnmatch, hashlib, os, random, re, subprocess, sys

mode, seed, n, out, top, mapfile, heavy = sys.argv[1:8]
seed, n, heavy = int(seed), int(n), set(heavy.split())

rules = []
for line in open(mapfile):
    line = line.split('#', 1)[0].split()
    if line:
        rules.append((line[0], [s for s in line[1:] if s != '-']))

def suites_of(path):
    for glob, suites in rules:
        if fnmatch.fnmatch(path, glob):
            return [s for s in suites if s not in heavy]
    return []

files = subprocess.run(['git', '-C', top, 'ls-files', '--cached', '--others', '--exclude-standard',
                        'runner', 'checks', 'tools', 'dev', 'qemu-boot'],
                       capture_output=True, text=True, check=True).stdout.split()
files = sorted(set(f for f in files if os.path.isfile(os.path.join(top, f))))
def is_shell(path):
    if path.endswith('.sh'):
        return True
    try:
        return open(os.path.join(top, path), errors='replace').readline().startswith('#!/usr/bin/env bash')
    except OSError:
        return False
files = [f for f in files if is_shell(f) and suites_of(f)]

def lines_of(path):
    text = open(os.path.join(top, path), errors='replace').read()
    return text[:-1].split('\n') if text.endswith('\n') else text.split('\n')
texts = {f: lines_of(f) for f in files}
funcs = set()
for f, lines in texts.items():
    for l in lines:
        m = re.match(r'^\s*([A-Za-z_][A-Za-z0-9_-]*)\(\)\s*\{', l)
        if m:
            funcs.add(m.group(1))

NEG = {'-eq': '-ne', '-ne': '-eq', '-lt': '-ge', '-ge': '-lt', '-gt': '-le', '-le': '-gt'}
CLASSES = [(r'[0-9]', r'[1-9]'), (r'[a-z]', r'[b-z]'), (r'[^/]', r'[^.]'), (r'\s', r'\S'),
           (r'\w', r'\W'), (r'[[:space:]]', r'[[:alpha:]]')]
OPTCMD = re.compile(r'\b(grep|sed|sort|cut|tr|git [a-z-]+)\b')

def subs(line, pattern, repl_of):
    """Each match of pattern replaced alone: the mutated lines."""
    res = []
    for m in re.finditer(pattern, line):
        new = repl_of(m)
        if new is not None:
            res.append(line[:m.start()] + new + line[m.end():])
    return res

def literal(line, old, new):
    res, i = [], line.find(old)
    while i >= 0:
        res.append(line[:i] + new + line[i + len(old):])
        i = line.find(old, i + 1)
    return res

def candidates(line, cont):
    s = line.strip()
    c = {op: [] for op in ('cmp', 'status', 'bound', 'andor', 'pattern', 'drop')}
    c['cmp'] += subs(line, r'(?<=\s)-(eq|ne|lt|le|gt|ge)(?=\s)', lambda m: NEG[m.group(0)])
    if '[[' in line:
        c['cmp'] += subs(line, r'(?<=\s)(==|!=)(?=\s)', lambda m: '!=' if m.group(0) == '==' else '==')
    c['status'] += subs(line, r'\breturn [01]\b', lambda m: 'return 1' if m.group(0) == 'return 0' else 'return 0')
    c['status'] += subs(line, r'\bexit [0-9]+\b', lambda m: 'exit 1' if m.group(0) == 'exit 0' else 'exit 0')
    if 'for ((' in line:
        c['bound'] += subs(line, r' <=? ', lambda m: ' < ' if m.group(0) == ' <= ' else ' <= ')
        c['bound'] += subs(line, r'= 0;', lambda m: '= 1;')
    c['bound'] += literal(line, '[0]', '[1]') + literal(line, '[-1]', '[-2]')
    c['bound'] += subs(line, r'\b(head|tail) -n 1\b', lambda m: m.group(1) + ' -n 2')
    if '((' in line:
        c['bound'] += subs(line, r' ([+-]) 1\b', lambda m: ' %s 2' % m.group(1))
    c['andor'] += literal(line, '&&', '||') + literal(line, '||', '&&')
    for m in re.finditer(r'--diff-filter=([A-Z]{2,})', line):
        for i in range(len(m.group(1))):
            letters = m.group(1)[:i] + m.group(1)[i + 1:]
            c['pattern'].append(line[:m.start(1)] + letters + line[m.end(1):])
    for old, new in CLASSES:
        c['pattern'] += literal(line, old, new)
    for cmd in OPTCMD.finditer(line):
        # its options: up to the end of the command (|, ;, a closing ")")
        end = re.search(r'[|;)]', line[cmd.end():])
        end = cmd.end() + (end.start() if end else len(line) - cmd.end())
        for m in re.finditer(r'(?<=\s)-([A-Za-z]+)(?=\s)', line[cmd.end():end]):
            opt, a, b = m.group(1), cmd.end() + m.start(), cmd.end() + m.end()
            if len(opt) == 1 and opt not in 'xFviEwqocunrsz':
                continue
            for i in range(len(opt)):
                rest = opt[:i] + opt[i + 1:]
                c['pattern'].append(line[:a] + ('-' + rest if rest else '') + line[b:].lstrip(' ' if not rest else ''))
    ends = ('\\', '{', '(', 'then', 'do', 'else', ';;', '|', '&&', '||')
    if not cont and not s.endswith(ends) and not s.startswith(('}', ')', 'fi', 'done', 'esac', 'else', 'elif')):
        first = re.match(r'^(?:local\s+|declare\s+-[a-zA-Z]+\s+)?([A-Za-z_][A-Za-z0-9_]*)(\[[^]]*\])?\+?=', s)
        word = s.split()[0] if s.split() else ''
        if (first and not s.startswith(('local ', 'declare '))) or (word in funcs and word != 'main'):
            c['drop'].append(re.match(r'^\s*', line).group(0) + ':')
    return c

pool = {}
for f in files:
    heredoc, cont = None, False
    for i, line in enumerate(texts[f]):
        if heredoc:
            if (line.strip() if heredoc[1] else line) == heredoc[0]:
                heredoc = None
            continue
        m = re.search(r"<<(-?)\s*['\"]?([A-Za-z_]+)['\"]?", line)
        if m and '<<<' not in line:
            heredoc = (m.group(2), m.group(1) == '-')
        if line.strip().startswith('#') or not line.strip():
            cont = False
            continue
        for op, news in candidates(line, cont).items():
            for new in news:
                if new != line:
                    pool.setdefault(op, []).append((f, i, line, new))
        cont = line.rstrip().endswith('\\')

ops = sorted(pool)
if mode == 'list':
    for op in ops:
        print('%-8s %5d sites in %d files' % (op, len(pool[op]), len({p[0] for p in pool[op]})))
    print('%-8s %5d sites in %d files' % ('all', sum(len(v) for v in pool.values()), len(files)))
    sys.exit(0)

rng = random.Random(seed)
for op in ops:
    rng.shuffle(pool[op])
picked, tries = [], 0
os.makedirs(out, exist_ok=True)
index = open(os.path.join(out, 'index.tsv'), 'w')
while len(picked) < n and any(pool.values()):
    op = rng.choice([o for o in ops if pool[o]])
    f, i, old, new = pool[op].pop()
    lines = list(texts[f])
    lines[i] = new
    mutated = '\n'.join(lines) + '\n'
    check = subprocess.run(['bash', '-n'], input=mutated, capture_output=True, text=True)
    if check.returncode != 0:
        continue
    ident = hashlib.sha1(('%s\0%s\0%s\0%s' % (op, f, old.strip(), new.strip())).encode()).hexdigest()[:10]
    slug = re.sub(r'[^a-z0-9]+', '-', f.lower().replace('.sh', '')).strip('-')
    name = 's%d-%02d-%s-%s' % (seed, len(picked) + 1, op, slug)
    diff = difflib.unified_diff(texts[f], lines, 'a/' + f, 'b/' + f, lineterm='', n=3)
    bug = '%s at %s:%d: %s -> %s' % (op, f, i + 1, old.strip(), new.strip())
    with open(os.path.join(out, name + '.patch'), 'w') as p:
        p.write('Bug: %s\nSuites: %s\n\n' % (bug.replace('\n', ' ')[:300], ' '.join(suites_of(f))))
        p.write('diff --git a/%s b/%s\n' % (f, f))
        for d in diff:
            p.write(d + '\n')
    index.write('\t'.join([name, ident, op, '%s:%d' % (f, i + 1), old.strip(), new.strip()]) + '\n')
    picked.append(name)
index.close()
if len(picked) < n:
    print('only %d mutants could be drawn' % len(picked), file=sys.stderr)
EOF
}

# report DIR: the table and the counts of the run of DIR's mutants (its
# summary and index in DIR: summary.txt, index.tsv); RC 0 with no
# survivor and no error.
report() {
	local dir=$1 name id op where old new by time reason result
	local k=0 s=0 e=0 x=0 rate
	local -A by_of=() time_of=()
	while IFS='|' read -r name _ by time; do
		name=$(xargs <<<"$name")
		[[ -f $dir/$name.patch ]] || continue
		by_of[$name]=$(sed 's/^ *//; s/ *$//' <<<"$by")
		time_of[$name]=$(xargs <<<"$time")
	done <"$dir/summary.txt"
	printf '%s | %s | %s | %s | %s\n' mutant operator where result time
	while IFS=$'\t' read -r name id op where old new; do
		by=${by_of[$name]:-error: not run}
		reason=$(awk -v id="$id" '$1 == id { $1 = ""; sub(/^ /, ""); print; exit }' "$EQUIV" 2>/dev/null || true)
		case $by in
		SURVIVED)
			if [[ -n $reason ]]; then
				result="equivalent: $reason" e=$((e + 1))
			else
				result="SURVIVED ($id: '$old' -> '$new')" s=$((s + 1))
			fi ;;
		error:*) result=$by x=$((x + 1)) ;;
		*)
			result="killed by $by" k=$((k + 1))
			[[ -z $reason ]] || result+=" (listed as equivalent in ${EQUIV#"$TOP"/}: it is not)" ;;
		esac
		printf '%s | %s | %s | %s | %s\n' "$name" "$op" "$where" "$result" "${time_of[$name]:--}"
	done <"$dir/index.tsv"
	rate=$( ((k + s > 0)) && awk -v s="$s" -v t="$((k + s))" 'BEGIN { printf "%d/%d = %.0f%%", s, t, 100 * s / t }' || echo "0/0")
	printf '%d mutants (seed %s): %d killed, %d survived, %d equivalent%s; survival rate %s; %s\n' \
		"$((k + s + e + x))" "$SEED" "$k" "$s" "$e" "$( ((x == 0)) || echo ", $x errors")" "$rate" \
		"$(vl_elapsed "$SECONDS")"
	RC=0
	[[ $s -eq 0 && $x -eq 0 ]] || RC=1
}

main() {
	local opt n='' list=0 only=0 again=0 dir
	SEED=''
	while getopts 'n:s:ldR' opt; do
		case $opt in
		n) n=$OPTARG ;;
		s) SEED=$OPTARG ;;
		l) list=1 ;;
		d) only=1 ;;
		R) again=1 ;;
		*) usage ;;
		esac
	done
	[[ $OPTIND -gt $# ]] || usage
	[[ $list -eq 1 || -n $n || ($again -eq 1 && -n $SEED) ]] || usage
	[[ -z $n || $n =~ ^[1-9][0-9]*$ ]] || die "RANDOM is not a number of mutants: $n"
	SEED=${SEED:-$((RANDOM * 32768 + RANDOM))}
	[[ $SEED =~ ^[0-9]+$ ]] || die "SEED is not a number: $SEED"
	[[ -r $MAP ]] || die "no map of the suites that cover each file: $MAP"
	if [[ $list -eq 1 ]]; then
		draw list "$SEED" 0 ''
		return 0
	fi
	dir=$OUT/seed-$SEED
	if [[ $again -eq 1 ]]; then
		[[ -s $dir/index.tsv && -s $dir/summary.txt ]] || die "no run of seed $SEED in ${OUT#"$TOP"/}"
		SECONDS=$(sed -n 's/.*; \([0-9]*\)m\([0-9]*\)s$/\1 \2/p' "$OUT/report-$SEED.txt" 2>/dev/null |
			awk '{ print $1 * 60 + $2 }')
		report "$dir" >"$OUT/report-$SEED.txt.new"
		mv "$OUT/report-$SEED.txt.new" "$OUT/report-$SEED.txt"
		cat "$OUT/report-$SEED.txt"
		return "$RC"
	fi
	rm -rf "$dir"
	mkdir -p "$dir"
	draw draw "$SEED" "$n" "$dir"
	info "seed $SEED: $(wc -l <"$dir/index.tsv") mutant(s) drawn into ${dir#"$TOP"/}"
	[[ $only -eq 0 ]] || return 0
	WF_MUTANTS_DIR=$dir WF_MUTANTS_OUT=$OUT MUTANTS_TIMEOUT=${MUTANTS_TIMEOUT:-600} \
		"$WF_HOME/dev/mutants.sh" >&2 || true
	[[ -s $OUT/summary.txt ]] || die "the run of the mutants wrote no summary ($OUT/summary.txt)"
	cp "$OUT/summary.txt" "$dir/summary.txt"
	report "$dir" >"$OUT/report-$SEED.txt"
	cat "$OUT/report-$SEED.txt"
	return "$RC"
}

long_options count=n -- "$@"
main "${LONG_ARGS[@]}"
