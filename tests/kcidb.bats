#!/usr/bin/env bats
# Tests of tools/kcidb.sh (make kcidb): the results.json of a fixture
# validation (tests/validate.bats's fixture kernel, cheap checks only)
# exported as KCIDB's I/O data, validated against the schema kcidb-io
# publishes (tests/fixtures/kcidb/, with python3-jsonschema), and as
# patchwork's checks, one per patch.

load test_helper
bats_require_minimum_version 1.5.0

SCHEMA=$BATS_TEST_DIRNAME/fixtures/kcidb/kcidb-io.schema.v5.3.json

setup() {
	setup_validate_fixture
	OUT=$BATS_TEST_TMPDIR/out
}

# kcidb_valid FILE: FILE adheres to KCIDB's I/O schema (Draft 7, formats
# checked, as kcidb-io validates); else its first errors, and false.
kcidb_valid() {
	/usr/bin/python3 - "$SCHEMA" "$1" <<'PY'
import json, sys
import jsonschema
schema = json.load(open(sys.argv[1]))
data = json.load(open(sys.argv[2]))
validator = jsonschema.Draft7Validator(schema, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER)
errors = list(validator.iter_errors(data))
for e in errors[:5]:
    print("/".join(map(str, e.absolute_path)), e.message)
sys.exit(1 if errors else 0)
PY
}

# kcidb: tools/kcidb.sh on the fixture validation's results.
kcidb() {
	run --separate-stderr "$TOOLS/kcidb.sh" "$OUT/results.json"
	echo "$output"
	# shellcheck disable=SC2154 # set by run --separate-stderr
	echo "$stderr"
}

# kstatus ROW RESULT: the KCIDB status of RESULT's test or build on
# commit ROW ("none" when it has no status).
kstatus() {
	jq -r --arg r "$2" --argjson i "$1" '.checkouts[$i - 1].misc.commit as $c |
		[(.tests + .builds)[] | select(.misc.result == $r and (.id | startswith("sysctl_wf:" + $c + ":")))] |
		if length == 1 then .[0].status // "none" else "\(length) records" end' "$OUT/kcidb.json"
}

# pw ROW FIELD: FIELD of the patchwork check of commit ROW.
pw() {
	jq -r --argjson i "$1" --arg f "$2" '.[$i - 1].check[$f]' "$OUT/patchwork.json"
}

@test "kcidb: a validation exported adheres to KCIDB's schema v5.3; a failed check is FAIL, one not asked for MISS; patchwork's check per patch" {
	validate_commit_edit kernel/names.c 's/return 2;/return 3;/' "sysctl: Translate one more name"
	validate_commit_edit kernel/names.c 's/^\treturn 12;$/\treturn  12 ;   /' "sysctl: Add badly formatted code"
	validate -c checkpatch
	[ "$status" -eq 1 ]
	kcidb
	[ "$status" -eq 0 ]
	kcidb_valid "$OUT/kcidb.json"
	[ "$(jq -c .version "$OUT/kcidb.json")" = '{"major":5,"minor":3}' ]
	# A checkout per commit, the builds of each config and the tests of each
	# other result (one record per result and commit), every id the origin's.
	[ "$(jq '.checkouts | length' "$OUT/kcidb.json")" -eq 2 ]
	n=$(jq '.checks | length' "$OUT/results.json")
	[ "$(jq '[.builds[] | select(.misc.result)] + .tests | length' "$OUT/kcidb.json")" -eq $((2 * n)) ]
	[ "$(jq '[.. | .id? // empty | select(startswith("sysctl_wf:") | not)] | length' "$OUT/kcidb.json")" -eq 0 ]
	[ "$(kstatus 1 checkpatch)" = PASS ]
	[ "$(kstatus 2 checkpatch)" = FAIL ]
	[ "$(jq -r '.tests[] | select(.status == "FAIL") | .comment' "$OUT/kcidb.json")" = "checkpatch: 1 errors, 1 warnings, 0 checks" ]
	# Not asked for: MISS, never SKIP (a SKIP would sum up as a PASS).
	for r in recipients kconfig boot i386 clang qemu abi guest-off; do
		[ "$(kstatus 1 "$r")" = MISS ]
		[ "$(kstatus 2 "$r")" = MISS ]
	done
	[ "$(jq '[(.builds + .tests)[] | select(.status == "SKIP")] | length' "$OUT/kcidb.json")" -eq 0 ]
	# Each test on the build it needs, or its config's; the checks of the
	# source on the commit's source, a build with no status.
	c=$(jq -r '.commits[0].commit' "$OUT/results.json")
	[ "$(jq -r --arg id "sysctl_wf:$c:qemu" '.tests[] | select(.id == $id) | .build_id' "$OUT/kcidb.json")" = "sysctl_wf:$c:build-boot" ]
	[ "$(jq -r --arg id "sysctl_wf:$c:guest-i386" '.tests[] | select(.id == $id) | "\(.build_id) \(.path)"' "$OUT/kcidb.json")" = "sysctl_wf:$c:build-i386 guest.i386" ]
	[ "$(jq -r --arg id "sysctl_wf:$c:build-i386" '.builds[] | select(.id == $id) | "\(.architecture) \(.config_name) \(.compiler)"' "$OUT/kcidb.json")" = "i386 i386 gcc" ]
	[ "$(jq -r --arg id "sysctl_wf:$c:checkpatch" '.tests[] | select(.id == $id) | .build_id' "$OUT/kcidb.json")" = "sysctl_wf:$c:source" ]
	[ "$(jq -r --arg id "sysctl_wf:$c:source" '.builds[] | select(.id == $id) | .status // "none"' "$OUT/kcidb.json")" = none ]
	# A result's log is a file:// URL of its log.
	log=$(jq -r '.commits[1].results.checkpatch.log' "$OUT/results.json")
	[ -f "$log" ]
	[ "$(jq -r '.tests[] | select(.status == "FAIL") | .log_url' "$OUT/kcidb.json")" = "file://$log" ]
	# patchwork: a check per patch, in order.
	[ "$(jq length "$OUT/patchwork.json")" -eq 2 ]
	[ "$(jq -r '.[1].patch.subject' "$OUT/patchwork.json")" = "sysctl: Add badly formatted code" ]
	[ "$(pw 1 state)" = success ]
	[ "$(pw 2 state)" = fail ]
	[ "$(pw 1 context)" = sysctl_wf ]
	[ "$(pw 2 description)" = "0 passed; 1 failed: checkpatch; $((n - 1)) not asked for" ]
	[ "$(pw 1 target_url)" = "file://$OUT/report.html" ]
	[ "$(jq -c '[.[].check | keys]' "$OUT/patchwork.json")" = \
		'[["context","description","state","target_url"],["context","description","state","target_url"]]' ]
	# The schema bites: a status in results.json's words is refused.
	jq '.tests[0].status = "pass"' "$OUT/kcidb.json" >"$BATS_TEST_TMPDIR/bad.json"
	run kcidb_valid "$BATS_TEST_TMPDIR/bad.json"
	[ "$status" -eq 1 ]
	[[ $output == *"'pass' is not one of ['FAIL', 'ERROR', 'MISS', 'PASS', 'DONE', 'SKIP']"* ]]
}

@test "kcidb: an infrastructure error is ERROR (patchwork: warning), a check's own skip SKIP; a run in progress leaves a result to come without status" {
	validate_commit_edit kernel/names.c 's/return 2;/return 3;/' "sysctl: Translate one more name"
	validate_commit_edit kernel/names.c 's/return 12;/return 13;/' "sysctl: Probe one more name"
	checks_copy
	mkdir "$CHECKS_COPY/probe"
	# (commit 1: a broken tool, exit 3; commit 2: not applicable, 125)
	cat >"$CHECKS_COPY/probe/run" <<'CHECK'
#!/bin/sh
if git -C "$WF_CHECK_SRC" log -1 --format=%s | grep -q Translate; then
	echo "probe: its tool is broken"; exit 3
fi
echo "probe: nothing to probe"; exit 125
CHECK
	chmod +x "$CHECKS_COPY/probe/run"
	printf 'order 5\n' >"$CHECKS_COPY/probe/conf"
	export WF_CHECKS_DIR=$CHECKS_COPY
	validate -c probe,kconfig
	[ "$status" -eq 3 ]
	kcidb
	[ "$status" -eq 0 ]
	kcidb_valid "$OUT/kcidb.json"
	[ "$(kstatus 1 probe)" = ERROR ]
	[ "$(jq -r '.tests[] | select(.status == "ERROR") | .comment' "$OUT/kcidb.json")" = "probe: its tool is broken" ]
	[ "$(kstatus 2 probe)" = SKIP ]
	# (no commit of the fixture changes a Kconfig file: kconfig skips)
	[ "$(kstatus 1 kconfig)" = SKIP ]
	[ "$(kstatus 1 qemu)" = MISS ]
	[ "$(pw 1 state)" = warning ]
	[[ $(pw 1 description) == "0 passed; 1 infrastructure error(s): probe; 1 skipped; "*" not asked for" ]]
	[ "$(pw 2 state)" = success ]
	# A run in progress: a result still to come has no status yet (KCIDB:
	# unknown), and its patch is pending; once the run stopped, it never
	# ran: MISS, a warning.
	jq '.state = "running" | .commits[1].results.probe.status = "pending"' "$OUT/results.json" >"$OUT/r.json"
	mv "$OUT/r.json" "$OUT/results.json"
	kcidb
	[ "$status" -eq 0 ]
	kcidb_valid "$OUT/kcidb.json"
	[ "$(kstatus 2 probe)" = none ]
	[ "$(pw 2 state)" = pending ]
	jq '.state = "stopped"' "$OUT/results.json" >"$OUT/r.json"
	mv "$OUT/r.json" "$OUT/results.json"
	kcidb
	[ "$(kstatus 2 probe)" = MISS ]
	[ "$(pw 2 state)" = warning ]
	[[ $(pw 2 description) == "0 passed; 1 never ran: probe; 1 skipped; "* ]]
}

@test "kcidb: each commit is the base and the patches up to it, hashed as KCIDB says, linked in patches/ when the bytes are the same" {
	validate_commit_edit kernel/names.c 's/return 2;/return 3;/' "sysctl: Translate one more name"
	validate_commit_edit kernel/names.c 's/return 12;/return 13;/' "sysctl: Probe one more name"
	"$TOOLS/export.sh" 2>/dev/null
	# The whole series, base..branch (the fixture kernel's commit first).
	run "$RUNNER/validate.sh" -o "$OUT" -c kconfig
	[ "$status" -eq 0 ]
	kcidb
	[ "$status" -eq 0 ]
	kcidb_valid "$OUT/kcidb.json"
	mapfile -t patches < <(cd "$WF_TOP/patches" && ls ./*.patch)
	[ "${#patches[@]}" -eq 3 ]
	[ "$(jq -r '[.checkouts[].git_commit_hash] | unique | .[]' "$OUT/kcidb.json")" = "$(jq -r .base "$OUT/results.json")" ]
	for i in 1 2 3; do
		want=$(cd "$WF_TOP/patches" && sha256sum "${patches[@]:0:i}" | cut -c-64 | sha256sum | cut -c-64)
		[ "$(jq -r --argjson i "$i" '.checkouts[$i - 1].patchset_hash' "$OUT/kcidb.json")" = "$want" ]
		[ "$(jq -r --argjson i "$i" '.checkouts[$i - 1].patchset_files | map(.name) | join(" ")' "$OUT/kcidb.json")" = \
			"$(printf '%s ' "${patches[@]:0:i}" | sed 's#\./##g; s/ $//')" ]
	done
	[ "$(jq -r '.checkouts[2].patchset_files[2].url' "$OUT/kcidb.json")" = "file://$WF_TOP/patches/${patches[2]#./}" ]
	# A branch edited since its export: the hashes stay, the links go.
	sed -i 's/Probe one more name/Probe another name/' "$WF_TOP/patches/${patches[2]#./}"
	kcidb
	[ "$(jq -r '.checkouts[2].patchset_hash' "$OUT/kcidb.json")" = "$want" ]
	[ "$(jq -r '.checkouts[2].patchset_files // "none"' "$OUT/kcidb.json")" = none ]
	[ "$(jq '.checkouts[1].patchset_files | length' "$OUT/kcidb.json")" -eq 2 ]
}

@test "make kcidb: ORIGIN and REPORT_URL; no results.json, a bad origin or URL is bad input in one line" {
	validate_commit_edit kernel/names.c 's/return 2;/return 3;/' "sysctl: Translate one more name"
	run "$RUNNER/validate.sh" -c kconfig
	[ "$status" -eq 0 ]
	run make -s -C "$REPO_ROOT" kcidb ORIGIN=lab_ci REPORT_URL=https://ci.example.org/6.1/
	echo "$output"
	[ "$status" -eq 0 ]
	dir=$WF_TOP/out/6.1/validate
	kcidb_valid "$dir/kcidb.json"
	[ "$(jq '[.. | .id? // empty | select(startswith("lab_ci:") | not)] | length' "$dir/kcidb.json")" -eq 0 ]
	[ "$(jq -r '.[0].check | "\(.context) \(.target_url)"' "$dir/patchwork.json")" = "lab_ci https://ci.example.org/6.1/report.html" ]
	# (./wf: the command's status, where make says 2 for any)
	run "$REPO_ROOT/wf" kcidb ORIGIN=Lab-CI
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "kcidb: error: ORIGIN 'Lab-CI' is not a KCIDB origin (a-z, 0-9 and _)" ]
	run "$TOOLS/kcidb.sh" --url 'ci.example.org/x'
	[ "$status" -eq 2 ]
	[ "$output" = "kcidb: error: REPORT_URL 'ci.example.org/x' is not a URL (scheme://...)" ]
	rm -r "$WF_TOP/out"
	run "$TOOLS/kcidb.sh"
	[ "$status" -eq 2 ]
	[ "$output" = "kcidb: error: no validation results $WF_TOP/out/6.1/validate/results.json (run: make validate)" ]
	echo '{"schema": 2}' >"$BATS_TEST_TMPDIR/old.json"
	run "$TOOLS/kcidb.sh" "$BATS_TEST_TMPDIR/old.json"
	[ "$status" -eq 2 ]
	[ "$output" = "kcidb: error: $BATS_TEST_TMPDIR/old.json is not the results.json of make validate (schema 3)" ]
	[ ! -e "$BATS_TEST_TMPDIR/kcidb.json" ]
}
