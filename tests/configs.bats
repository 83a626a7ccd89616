#!/usr/bin/env bats
# Tests of the checks that run per config of configs/matrix.txt besides
# the build: the runner's "configs" declaration (results named
# <check>-<config>, "needs build" as the build of the same config), on
# the fixture kernel of validate.bats.  (The guest check that boots the
# other configs is on branch issue11-configs, not merged yet.)

load test_helper
bats_require_minimum_version 1.5.0

setup() {
	setup_validate_fixture
	OUT=$BATS_TEST_TMPDIR/out
	RESULTS_DIR=$WF_CACHE/branches/6.1/validate/results
	BUILD_ROOT=$WF_CACHE/branches/6.1/validate/build
}

# checks_copy: a copy of checks/ in CHECKS_COPY, for a test's edits,
# beside links to tools/ and qemu-boot/ (the build check's scripts find
# tools/lib.sh next to their checks directory).
checks_copy() {
	mkdir -p "$BATS_TEST_TMPDIR/wf"
	CHECKS_COPY=$BATS_TEST_TMPDIR/wf/checks
	cp -r "$CHECKS" "$CHECKS_COPY"
	ln -s "$TOOLS" "$BATS_TEST_TMPDIR/wf/tools"
	ln -s "$QEMU_BOOT" "$BATS_TEST_TMPDIR/wf/qemu-boot"
}

@test "configs: a new check declaring 'configs' gets <check>-<config> results, in the matrix's order, on its config's build" {
	validate_commit_edit kernel/names.c 's/return 2;/return 3;/' "sysctl: Translate one more name"
	checks_copy
	mkdir "$CHECKS_COPY/probe"
	cat >"$CHECKS_COPY/probe/run" <<'CHECK'
#!/bin/sh
[ -x "$WF_CHECK_BUILD/arch/x86/boot/bzImage" ] || { echo "no kernel in $WF_CHECK_BUILD"; exit 1; }
grep -q "^CONFIG_64BIT=y" "$WF_CHECK_BUILD/.config" && bits=64 || bits=32
# The build result's kept files: .../results/<build result>/<key>/kept.
b=${WF_CHECK_BUILD%/*/kept}
echo "$WF_CHECK_NAME: config $WF_CHECK_CONFIG, build ${b##*/}, $bits-bit"
CHECK
	chmod +x "$CHECKS_COPY/probe/run"
	# Listed out of order: the results follow the matrix.
	printf 'order 90\nconfigs i386 boot\nneeds build\n' >"$CHECKS_COPY/probe/conf"
	WF_CHECKS_DIR=$CHECKS_COPY validate -c probe
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(jq -c .checks "$OUT/results.json")" = \
		'["checkpatch","codespell","sparse","kernel-doc","boot","off","nonet","i386","noproc","qemu","probe-boot","probe-i386"]' ]
	[ "$(reason 1 probe-boot)" = "probe-boot: config boot, build boot, 64-bit" ]
	[ "$(reason 1 probe-i386)" = "probe-i386: config i386, build i386, 32-bit" ]
	# -c probe selected its two results and the builds they need, no more.
	[ "$(cell 1 boot)" = pass ]
	[ "$(cell 1 i386)" = pass ]
	[ "$(cell 1 off)" = skip ]
	# Every column within 100: the columns that do not fit go to another
	# table, with the same rows, in the runner's order.
	[ "$(awk '{ print length($0) }' "$OUT/report.txt" | sort -n | tail -n 1)" -le 100 ]
	[ "$(grep -c '^#   commit ' "$OUT/report.txt")" -ge 2 ]
	[ "$(grep -E '^# +commit' "$OUT/report.txt" | sed -E 's/^# +commit( +subject)?//' | xargs)" = \
		"checkpatch codespell sparse kernel-doc boot off nonet i386 noproc qemu probe-boot probe-i386" ]
	# The declarations a runner must refuse, in one line each.
	printf 'configs debug\n' >"$CHECKS_COPY/probe/conf"
	WF_CHECKS_DIR=$CHECKS_COPY validate -c probe
	[ "$status" -eq 2 ]
	[ "$output" = "validate: error: $CHECKS_COPY/probe/conf:1: 'debug' is not a per-commit config (see $CHECKS_COPY/configs/matrix.txt)" ]
	printf 'per-config\nconfigs all\n' >"$CHECKS_COPY/probe/conf"
	WF_CHECKS_DIR=$CHECKS_COPY validate -c probe
	[ "$status" -eq 2 ]
	[ "$output" = "validate: error: $CHECKS_COPY/probe/conf: declare one of 'per-config', 'configs' and 'config'" ]
	printf 'needs build\n' >"$CHECKS_COPY/probe/conf"
	WF_CHECKS_DIR=$CHECKS_COPY validate -c probe
	[ "$status" -eq 2 ]
	[ "$output" = "validate: error: $CHECKS_COPY/probe/conf: needs 'build', which has no result in the config '(none)' of probe" ]
	# A per-config check without a declaration of its own collides.
	printf 'per-config\n' >"$CHECKS_COPY/probe/conf"
	WF_CHECKS_DIR=$CHECKS_COPY validate -c probe
	[ "$status" -eq 2 ]
	[ "$output" = "validate: error: two checks give a result named 'boot' ($CHECKS_COPY/build and $CHECKS_COPY/probe)" ]
}

@test "keep: a check that needs a build boots the kernel its result kept; no build directory is rebuilt for it" {
	validate_commit_edit kernel/names.c 's/return 2;/return 3;/' "sysctl: Translate one more name"
	validate_commit_edit kernel/names.c 's/return 3;/return 4;/' "sysctl: Translate another name"
	validate -c build
	[ "$status" -eq 0 ]
	# Every usable build result keeps its kernel and config.
	[ "$(find "$RESULTS_DIR"/{boot,off,nonet,i386,noproc} -path '*/kept/arch/x86/boot/bzImage' | wc -l)" -eq 15 ]
	[ "$(find "$RESULTS_DIR"/{boot,off,nonet,i386,noproc} -path '*/kept/.config' | wc -l)" -eq 15 ]
	# A new check that needs the builds, with the build directories gone:
	# it gets the kept files and nothing is built.
	rm -rf "$BUILD_ROOT"
	checks_copy
	mkdir "$CHECKS_COPY/probe"
	cat >"$CHECKS_COPY/probe/run" <<'CHECK'
#!/bin/sh
[ -x "$WF_CHECK_BUILD/arch/x86/boot/bzImage" ] || { echo "no kernel in $WF_CHECK_BUILD"; exit 1; }
echo "$WF_CHECK_CONFIG: $(ls "$WF_CHECK_BUILD/arch/x86/boot" | tr '\n' ' ')$(cd "$WF_CHECK_BUILD" && ls -A | tr '\n' ' ')"
CHECK
	chmod +x "$CHECKS_COPY/probe/run"
	printf 'order 90\nconfigs all\nneeds build\n' >"$CHECKS_COPY/probe/conf"
	WF_CHECKS_DIR=$CHECKS_COPY validate -c probe
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(reason 1 probe-boot)" = "boot: bzImage .config arch " ]
	[ "$(reason 2 probe-i386)" = "i386: bzImage .config arch " ]
	[ "$(jq '[.commits[].results.boot.cached] | all' "$OUT/results.json")" = true ]
	[ ! -e "$BUILD_ROOT" ]
	[[ $output != *'bringing the build directory'* ]]
	# A kept result that lost its kernel is no longer a result: the build
	# runs again at that commit (and only there), and keeps it again.
	rm "$(find "$RESULTS_DIR/nonet" -path '*/kept/arch/x86/boot/bzImage' | head -n 1)"
	validate -c build
	[ "$status" -eq 0 ]
	[ "$(jq '[.commits[].results.nonet.cached] | map(select(. == false)) | length' "$OUT/results.json")" -eq 1 ]
	[ "$(find "$RESULTS_DIR/nonet" -path '*/kept/arch/x86/boot/bzImage' | wc -l)" -eq 3 ]
	# 'keep' is for a check with a build directory.
	printf 'config boot\nkeep vmlinux\n' >"$CHECKS_COPY/probe/conf"
	WF_CHECKS_DIR=$CHECKS_COPY validate -c probe
	[ "$status" -eq 2 ]
	[ "$output" = "validate: error: $CHECKS_COPY/probe/conf: 'keep' names files of the build directory: declare 'build-dir'" ]
	printf 'config boot\nbuild-dir\nkeep ../vmlinux\n' >"$CHECKS_COPY/probe/conf"
	WF_CHECKS_DIR=$CHECKS_COPY validate -c probe
	[ "$status" -eq 2 ]
	[ "$output" = "validate: error: $CHECKS_COPY/probe/conf:3: keep '../vmlinux': a path inside the build directory" ]
}
