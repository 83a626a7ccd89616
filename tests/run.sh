#!/usr/bin/env bash
# Run the test suites and end with "N passed, N failed, N skipped".
#
#   tests/run.sh [--tools]
#
# The tools' suites run on fixtures: tools.bats (base, rebuild, export,
# checkpatch), port.bats (make port on two fixture branches),
# faults.bats (recovery from killed runs, tools/faults.sh
# with small counts), qemu.bats (the runner and the smoke test; one build of the
# boot kernel the first time), stress.bats (checks/stress.sh on that
# kernel), validate.bats (the runner of the per-commit checks on a
# fixture kernel), checks.bats (the codespell, kernel-doc and W=1 checks
# on it), trees.bats and bisect.bats, and, in the
# full run, the b4 suites (a minute or two each): submit.bats (b4 prep and
# send -o, the revisions recorded in cover-letters/sent/), preflight.bats
# (no revision without green checks), send.bats (make send through a real
# SMTP server on 127.0.0.1 and back) and trailers.bats (review replies
# back as trailers).  series.bats validates the
# real series: rebuild from patches/, checkpatch, build, boot, every
# commit (validate), and the stress run under the debug kernel.
set -euo pipefail

cd "$(dirname "$0")"
suites=(tools.bats port.bats faults.bats qemu.bats stress.bats validate.bats checks.bats trees.bats
	bisect.bats)
[[ ${1:-} == --tools ]] || suites+=(submit.bats preflight.bats send.bats trailers.bats series.bats)

tap=$(mktemp)
trap 'rm -f "$tap"' EXIT
rc=0
bats --tap "${suites[@]}" | tee "$tap" || rc=$?
passed=$(grep -E '^ok [0-9]+ ' "$tap" | grep -vc '# skip' || true)
skipped=$(grep -cE '^ok [0-9]+ .*# skip' "$tap" || true)
failed=$(grep -cE '^not ok [0-9]+ ' "$tap" || true)
planned=$(sed -nE 's/^1\.\.([0-9]+)$/\1/p' "$tap" | head -n 1)
if [[ $((passed + skipped + failed)) -ne ${planned:-0} ]]; then
	echo "# bats planned ${planned:-no} tests but reported $((passed + skipped + failed))"
	failed=$((failed + 1))
fi
[[ $failed -eq 0 && $rc -ne 0 ]] && failed=1
mkdir -p ../out
echo "$passed passed, $failed failed, $skipped skipped" | tee ../out/test-summary
[[ $failed -eq 0 ]]
