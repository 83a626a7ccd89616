#!/usr/bin/env bats
# Tests of the checks that run per config of configs/matrix.txt besides
# the build: the runner's "configs" declaration (results named
# <check>-<config>, "needs build" as the build of the same config) and the
# guest check (checks/guest: the off, nonet, i386 and noproc kernels
# booted with the smoke test and what their config promises), on the
# fixture kernel of validate.bats and its fixture guest
# (tests/fixtures/validate/guest-run.sh: the initramfs' /init run on this
# host).  Each expectation must fail on the commit that breaks it.
# WF_TEST_KERNELS=DIR (DIR/<config>.bzImage, copies of real kernels)
# adds real boots of the four configs.

load test_helper
bats_require_minimum_version 1.5.0

setup() {
	setup_validate_fixture
	OUT=$BATS_TEST_TMPDIR/out
	RESULTS_DIR=$WF_CACHE/branches/6.1/validate/results
	BUILD_ROOT=$WF_CACHE/branches/6.1/validate/build
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
		'["checkpatch","recipients","codespell","sparse","kernel-doc","kconfig","boot","off","nonet","i386","noproc","w1","clang","cross","qemu","abi","guest-boot","guest-off","guest-nonet","guest-i386","guest-noproc","arm64","probe-boot","probe-i386"]' ]
	[ "$(reason 1 probe-boot)" = "probe-boot: config boot, build boot, 64-bit" ]
	[ "$(reason 1 probe-i386)" = "probe-i386: config i386, build i386, 32-bit" ]
	# -c probe selected its two results and the builds they need, no more.
	[ "$(cell 1 boot)" = pass ]
	[ "$(cell 1 i386)" = pass ]
	[ "$(cell 1 off)" = skip ]
	[ "$(cell 1 guest-off)" = skip ]
	# Every column within 100: the columns that do not fit go to a second table.
	[ "$(awk '{ print length($0) }' "$OUT/report.txt" | sort -n | tail -n 1)" -le 100 ]
	# (a subject of at least 20 columns: 6, 8, 6 and 3 columns)
	[ "$(grep -c '^#   commit ' "$OUT/report.txt")" -eq 4 ]
	grep -qE '^#   commit +subject +boot +off +nonet +i386 +noproc w1 +clang +cross *$' "$OUT/report.txt"
	grep -qE '^#   commit +subject +qemu +abi +guest-boot guest-off guest-nonet guest-i386 *$' "$OUT/report.txt"
	grep -qE '^#   commit +subject +guest-noproc arm64 +probe-boot probe-i386 *$' "$OUT/report.txt"
	# The declarations a runner must refuse, in one line each.
	printf 'configs debug\n' >"$CHECKS_COPY/probe/conf"
	WF_CHECKS_DIR=$CHECKS_COPY validate -c probe
	[ "$status" -eq 2 ]
	[ "$output" = "validate: error: $CHECKS_COPY/probe/conf:1: 'debug' is not a per-commit config (see $CONFIGS_COPY/matrix.txt)" ]
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
	# Every usable build result keeps its kernel, config and objects.
	[ "$(find "$RESULTS_DIR"/{boot,off,nonet,i386,noproc} -path '*/kept/arch/x86/boot/bzImage' | wc -l)" -eq 15 ]
	[ "$(find "$RESULTS_DIR"/{boot,off,nonet,i386,noproc} -path '*/kept/.config' | wc -l)" -eq 15 ]
	[ "$(find "$RESULTS_DIR"/{boot,off,nonet,i386,noproc} -path '*/kept/objects.txt' | wc -l)" -eq 15 ]
	[ "$(cat "$(find "$RESULTS_DIR/boot" -path '*/kept/objects.txt' | head -n 1)")" = "$(printf 'kernel/main.o\nkernel/names.o\nkernel/sysctl.o')" ]
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
	[ "$(reason 1 probe-boot)" = "boot: bzImage .config arch objects.txt " ]
	[ "$(reason 2 probe-i386)" = "i386: bzImage .config arch objects.txt " ]
	[ "$(jq '[.commits[].results.boot.cached] | all' "$OUT/results.json")" = true ]
	[ ! -e "$BUILD_ROOT" ]
	[[ $output != *'bringing the build directory'* ]]
	# A kept result that lost its kernel is no longer a result: the build
	# runs again at that commit (and only there), and keeps it again.
	# (commit 1's: the base's is no cell of the table; which of the
	# results find lists first depends on their keys)
	rm "$(dirname "$(log 1 nonet)")/kept/arch/x86/boot/bzImage"
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

@test "keep: sparse depends on the build driver, not on the build check's conf" {
	validate_commit_edit kernel/names.c 's/return 2;/return 3;/' "sysctl: Translate one more name"
	checks_copy
	# The copy's own runner: its 'uses' paths are the copy's.
	run "$COPY_TOP/runner/validate.sh" -o "$OUT" -c sparse,boot "$VALIDATE_RANGE"
	[ "$status" -eq 0 ]
	# What the build check keeps is the build results' business only.
	echo '# edited' >>"$CHECKS_COPY/build/conf"
	run "$COPY_TOP/runner/validate.sh" -o "$OUT" -c sparse,boot "$VALIDATE_RANGE"
	[ "$status" -eq 0 ]
	[ "$(jq -c '[.commits[].results.boot.cached]' "$OUT/results.json")" = '[false]' ]
	[ "$(jq -c '[.commits[].results.sparse.cached]' "$OUT/results.json")" = '[true]' ]
	# The driver both build with (tools/, not a check's directory) is
	# part of both keys.
	echo '# edited' >>"$COPY_TOP/tools/kbuild.sh"
	run "$COPY_TOP/runner/validate.sh" -o "$OUT" -c sparse,boot "$VALIDATE_RANGE"
	[ "$status" -eq 0 ]
	[ "$(jq -c '[.commits[].results.boot.cached]' "$OUT/results.json")" = '[false]' ]
	[ "$(jq -c '[.commits[].results.sparse.cached]' "$OUT/results.json")" = '[false]' ]
}

@test "guest: off and noproc fail on the commit whose sysctl(2) answers without CONFIG_SYSCTL_SYSCALL" {
	require STRACE
	validate_commit_edit kernel/names.c 's/return 2;/return 3;/' "sysctl: Translate one more name"
	validate_commit_edit kernel/main.c 's/^\tprintf("1..1\\n");/#ifndef CONFIG_SYSCTL_SYSCALL\n\tprintf("fixture: sysctl(2) answers\\n");\n#endif\n&/' \
		"sysctl: Answer even when the option is off"
	validate_commit_edit kernel/main.c '/^#ifndef CONFIG_SYSCTL_SYSCALL$/,/^#endif$/d' "sysctl: Answer only when the option is on"
	validate -c guest
	echo "$output"
	[ "$status" -eq 1 ]
	for row in 1 2 3; do
		[ "$(cell $row guest-nonet)" = pass ]
		[ "$(cell $row guest-i386)" = pass ]
	done
	[ "$(cell 1 guest-off)" = pass ]
	[ "$(cell 2 guest-off)" = fail ]
	[ "$(cell 3 guest-off)" = pass ]
	[ "$(cell 2 guest-noproc)" = fail ]
	[ "$(cell 3 guest-noproc)" = pass ]
	[ "$(reason 1 guest-off)" = "boots; the smoke test passes (x86_64 /init, SMOKE_EXPECT=enosys), 0 of 13 names translated" ]
	[[ $(reason 2 guest-off) == "boot failed (x86_64 /init, SMOKE_EXPECT=enosys): FAIL: "*" test(s) failed: not ok 1 - sysctl(2) is absent (ENOSYS), as SMOKE_EXPECT=enosys says: it answers" ]]
	[[ $(reason 2 guest-noproc) == *"not ok 1 - sysctl(2) is absent (ENOSYS), as SMOKE_EXPECT=noproc says: it answers" ]]
	grep -q '^# sysctl(2) is present$' "$(console 2 guest-off)"
	grep -q '^# sysctl(2) is absent (ENOSYS)$' "$(console 3 guest-off)"
}

@test "guest: the boot kernel booted with its default must not answer; one on by default fails" {
	require STRACE
	validate_commit_edit kernel/main.c 's/^\tprintf("1..1\\n");/\tprintf("fixture: sysctl(2) answers\\n");\n&/' \
		"sysctl: Answer"
	validate_commit_edit kernel/main.c 's/^\tprintf("1..1\\n");/\tprintf("fixture: sysctl(2) on by default\\n");\n&/' \
		"sysctl: Answer without sysctl_syscall=on"
	validate -c guest-boot
	echo "$output"
	[ "$status" -eq 1 ]
	[ "$(cell 1 guest-boot)" = pass ]
	[ "$(reason 1 guest-boot)" = "boots; the smoke test passes (x86_64 /init, the kernel's default (no sysctl_syscall=), SMOKE_EXPECT=enosys), 0 of 13 names translated" ]
	grep -q '^# sysctl(2) is absent (ENOSYS)$' "$(console 1 guest-boot)"
	[ "$(cell 2 guest-boot)" = fail ]
	[[ $(reason 2 guest-boot) == "boot failed (x86_64 /init, the kernel's default (no sysctl_syscall=), SMOKE_EXPECT=enosys): FAIL: "*"not ok 1 - sysctl(2) is absent (ENOSYS), as SMOKE_EXPECT=enosys says: it answers" ]]
}

@test "guest: noproc passes without /proc/sys, fails on the commit where it appears, and needs its expectation" {
	validate_commit_edit kernel/names.c 's/return 2;/return 3;/' "sysctl: Translate one more name"
	validate_commit_edit kernel/main.c 's/^\tprintf("1..1\\n");/#ifndef CONFIG_PROC_SYSCTL\n\tprintf("fixture: \/proc\/sys\\n");\n#endif\n&/' \
		"sysctl: Register /proc/sys without PROC_SYSCTL"
	validate_commit_edit kernel/main.c '/^#ifndef CONFIG_PROC_SYSCTL$/,/^#endif$/d' "sysctl: Register /proc/sys only with PROC_SYSCTL"
	validate -c guest-noproc,guest-off
	echo "$output"
	[ "$status" -eq 1 ]
	[ "$(cell 1 guest-noproc)" = pass ]
	[ "$(cell 2 guest-noproc)" = fail ]
	[ "$(cell 3 guest-noproc)" = pass ]
	for row in 1 2 3; do [ "$(cell $row guest-off)" = pass ]; done
	grep -q '^ok 2 - /proc/sys is absent, as SMOKE_EXPECT=noproc says (No such file or directory)$' "$(console 1 guest-noproc)"
	[[ $(reason 2 guest-noproc) == *"FAIL: 1 test(s) failed: not ok 2 - /proc/sys is absent, as SMOKE_EXPECT=noproc says (it is there)" ]]
	# Without its row's expectation, the smoke test's own contract
	# (/proc/sys/kernel/ostype) fails every commit of noproc.
	checks_copy
	sed -i 's/^noproc .*/noproc    -/' "$CHECKS_COPY/guest/expect"
	WF_CHECKS_DIR=$CHECKS_COPY validate -c guest-noproc
	[ "$status" -eq 1 ]
	[[ $(reason 1 guest-noproc) == "boot failed (x86_64 /init): FAIL: 1 test(s) failed: not ok 1 - /proc/sys/kernel/ostype reads Linux"* ]]
	[ "$(cell 3 guest-noproc)" = fail ]
	# A config of "configs" without a row cannot be checked: infra.
	sed -i '/^noproc /d' "$CHECKS_COPY/guest/expect"
	WF_CHECKS_DIR=$CHECKS_COPY validate -c guest-noproc
	[ "$status" -eq 3 ]
	grep -qxF "no row for the config 'noproc' in $CHECKS_COPY/guest/expect" \
		"$WF_CACHE"/branches/6.1/validate/results/infra/guest-noproc/1/summary
}

@test "guest: fewer names translated than at the last commit that booted in the config fail it" {
	validate_commit_edit kernel/names.c 's/return 2;/return 3;/' "sysctl: Translate one more name"
	validate -c guest-nonet
	[ "$status" -eq 0 ]
	# The fixture's guest runs the smoke test on this host, whose
	# sysctl(2) translates no name: an earlier result of 3 is a drop.
	local prev=$BATS_TEST_TMPDIR/prev out=$BATS_TEST_TMPDIR/out-nonet
	mkdir -p "$prev" "$out"
	echo 3 >"$prev/state"
	run --separate-stderr env WF_CHECK_CONFIG=nonet WF_CHECK_BUILD="$BUILD_ROOT/nonet" WF_CHECK_OUT="$out" \
		WF_CHECK_PREV="$prev" WF_CACHE="$WF_CACHE/branches/6.1" WF_HOME="$REPO_ROOT" "$CHECKS/guest/run"
	echo "$output"
	[ "$status" -eq 1 ]
	[ "$output" = "regression (x86_64 /init): the smoke test translated 0 of 13 probed names, the previous commit 3" ]
	echo 0 >"$prev/state"
	run --separate-stderr env WF_CHECK_CONFIG=nonet WF_CHECK_BUILD="$BUILD_ROOT/nonet" WF_CHECK_OUT="$out" \
		WF_CHECK_PREV="$prev" WF_CACHE="$WF_CACHE/branches/6.1" WF_HOME="$REPO_ROOT" "$CHECKS/guest/run"
	[ "$status" -eq 0 ]
	[ "$output" = "boots; the smoke test passes (x86_64 /init), 0 of 13 names translated" ]
	[ "$(cat "$out/state")" -eq 0 ]
}

@test "guest: the i386 guest's /init is the 32-bit smoke test; a 64-bit /init fails it" {
	"$QEMU_BOOT/mkinitramfs.sh" -3 -n -o "$BATS_TEST_TMPDIR/i386.cpio"
	mkdir "$BATS_TEST_TMPDIR/root"
	(cd "$BATS_TEST_TMPDIR/root" && cpio -id --quiet) <"$BATS_TEST_TMPDIR/i386.cpio"
	# ELF class 1 (32-bit), machine 3 (i386); nothing in /tests.
	[ "$(od -An -tu1 -j4 -N1 "$BATS_TEST_TMPDIR/root/init" | tr -d ' ')" -eq 1 ]
	[ "$(od -An -tu2 -j18 -N2 "$BATS_TEST_TMPDIR/root/init" | tr -d ' ')" -eq 3 ]
	[[ $(file -b "$BATS_TEST_TMPDIR/root/init") == "ELF 32-bit LSB executable, Intel 80386"* ]]
	[ -z "$(ls "$BATS_TEST_TMPDIR/root/tests")" ]
	run "$QEMU_BOOT/mkinitramfs.sh" -3 -i /bin/true -o "$BATS_TEST_TMPDIR/x.cpio"
	[ "$status" -eq 2 ]
	validate_commit_edit kernel/names.c 's/return 2;/return 3;/' "sysctl: Translate one more name"
	validate -c guest-i386,guest-nonet
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(reason 1 guest-i386)" = "boots; the smoke test passes (i386 /init), 0 of 13 names translated" ]
	grep -q 'fixture: /init is ELF32$' "$(console 1 guest-i386)"
	grep -q 'fixture: /init is ELF64$' "$(console 1 guest-nonet)"
	# A guest check that took i386 for x86_64 would give it a 64-bit /init.
	checks_copy
	sed -i 's/^i386 .*/i386      x86_64   i386.config/' "$CONFIGS_COPY/matrix.txt"
	WF_CHECKS_DIR=$CHECKS_COPY validate -c guest-i386
	echo "$output"
	[ "$status" -eq 1 ]
	[ "$(reason 1 guest-i386)" = "boot failed (x86_64 /init): FAIL: kernel reported: [    0.000000] Kernel panic - not syncing: No working init found." ]
}

@test "smoke: SMOKE_EXPECT=enosys fails where sysctl(2) answers; an unknown value fails; empty is the default" {
	gcc -static -Os -Wall -Wextra -Werror -o "$BATS_TEST_TMPDIR/smoke" "$QEMU_BOOT/smoke.c"
	# Built with getpid() in place of sysctl(2): a sysctl(2) that answers.
	gcc -static -Os -Wall -Wextra -Werror -DSYSCTL_NR=39 \
		-o "$BATS_TEST_TMPDIR/smoke-answers" "$QEMU_BOOT/smoke.c"
	SMOKE_EXPECT=enosys run "$BATS_TEST_TMPDIR/smoke-answers"
	[ "$status" -eq 1 ]
	[ "${lines[2]}" = "not ok 1 - sysctl(2) is absent (ENOSYS), as SMOKE_EXPECT=enosys says: it answers" ]
	SMOKE_EXPECT=noproc run "$BATS_TEST_TMPDIR/smoke"
	[ "$status" -eq 1 ]
	[[ $output == *"not ok 2 - /proc/sys is absent, as SMOKE_EXPECT=noproc says (it is there)"* ]]
	SMOKE_EXPECT=enosis run "$BATS_TEST_TMPDIR/smoke"
	[ "$status" -eq 1 ]
	[[ $output == *"not ok 1 - SMOKE_EXPECT=enosis: unknown (enosys, noproc, complete or empty)"* ]]
	# Unset and empty give the same lines (the qemu check's, the
	# kselftest's): no test is added.
	run env -u SMOKE_EXPECT "$BATS_TEST_TMPDIR/smoke"
	unset_out=$output
	SMOKE_EXPECT='' run "$BATS_TEST_TMPDIR/smoke"
	[ "$output" = "$unset_out" ]
	[[ $output == *"1..21"* ]]
}

@test "smoke: SMOKE_EXPECT=complete fails on ENOSYS and on a name not translated, which is a skip without it" {
	require STRACE
	gcc -static -Os -Wall -Wextra -Werror -o "$BATS_TEST_TMPDIR/smoke" "$QEMU_BOOT/smoke.c"
	# This host's ENOSYS.
	SMOKE_EXPECT=complete run strace -qq -o /dev/null -e trace=_sysctl -e inject=_sysctl:error=ENOSYS "$BATS_TEST_TMPDIR/smoke"
	[ "$status" -eq 1 ]
	[[ $output == *"not ok 1 - sysctl(2) answers, as SMOKE_EXPECT=complete says: ENOSYS"* ]]
	# Every name ENOTDIR: not translated.
	SMOKE_EXPECT=complete run strace -qq -o /dev/null -e trace=_sysctl -e inject=_sysctl:error=ENOTDIR "$BATS_TEST_TMPDIR/smoke"
	[ "$status" -eq 1 ]
	[[ $output == *"ok 1 - sysctl(2) answers, as SMOKE_EXPECT=complete says"* ]]
	[[ $output == *"not ok 3 - sysctl(2) reads kernel/ostype: not translated (ENOTDIR), though SMOKE_EXPECT=complete"* ]]
	# Without it, the same kernel is a commit before the names come.
	run strace -qq -o /dev/null -e trace=_sysctl -e inject=_sysctl:error=ENOTDIR "$BATS_TEST_TMPDIR/smoke"
	[[ $output == *"ok 2 - sysctl(2) reads kernel/ostype # SKIP not translated at this commit"* ]]
}

@test "guest: the real kernels of WF_TEST_KERNELS boot with their expectations" {
	require REAL_KERNELS
	unset WF_TEST_VALIDATE_GUEST_RUN
	for cfg in off nonet i386 noproc; do
		build=$BATS_TEST_TMPDIR/build/$cfg
		mkdir -p "$build/arch/x86/boot" "$BATS_TEST_TMPDIR/out-$cfg"
		cp "$WF_TEST_KERNELS/$cfg.bzImage" "$build/arch/x86/boot/bzImage"
		run --separate-stderr env WF_CHECK_CONFIG="$cfg" WF_CHECK_BUILD="$build" WF_CHECK_OUT="$BATS_TEST_TMPDIR/out-$cfg" \
			WF_CHECK_PREV='' WF_CACHE="$WF_CACHE/branches/6.1" WF_HOME="$REPO_ROOT" "$CHECKS/guest/run"
		echo "$cfg: $output"
		[ "$status" -eq 0 ]
		[[ $output == "boots; the smoke test passes"* ]]
	done
}

# wire_tables 64 32: commit syscall tables that point sysctl(2)'s x86_64
# and i386 numbers at sys_sysctl (1) or sys_ni_syscall (0).
wire_tables() {
	local d=$WF_REPO/arch/x86/entry/syscalls e64=sys_ni_syscall e32=sys_ni_syscall
	[[ $1 -eq 0 ]] || e64=sys_sysctl
	[[ $2 -eq 0 ]] || e32=$(printf 'sys_sysctl\t\t\tcompat_sys_sysctl')
	mkdir -p "$d"
	printf '155\tcommon\tpivot_root\t\tsys_pivot_root\n156\t64\t_sysctl\t\t\t%s\n' "$e64" >"$d/syscall_64.tbl"
	printf '148\ti386\tfdatasync\t\tsys_fdatasync\n149\ti386\t_sysctl\t\t\t%s\n' "$e32" >"$d/syscall_32.tbl"
	git -C "$WF_REPO" add -f arch/x86/entry/syscalls
	git -C "$WF_REPO" -c user.name="A Developer" -c user.email=dev@example.org \
		commit -q -s -m "x86/syscalls: Wire up sysctl(2) ($1 $2)" -m "Why."
}

@test "abi: ENOSYS for both widths before the wiring, all of it after; one width alone or an early answer fails" {
	require STRACE
	# 1: not wired, and ENOSYS with sysctl_syscall=on: a pass.
	wire_tables 0 0
	# 2: an answer before the wiring (the kernel answers): a fail.
	validate_commit_edit kernel/main.c 's/^\tprintf("1..1\\n");/\tprintf("fixture: sysctl(2) answers\\n");\n&/' \
		"sysctl: Answer before the call is wired up"
	# 3: x86_64 wired up, i386 not: a fail without a boot.
	wire_tables 1 0
	# 4: both wired up: every probed name must answer (the fixture's
	# answer is EPERM): a fail.
	wire_tables 1 1
	# 5: both wired up, and sysctl(2) not answering: a fail.
	validate_commit_edit kernel/main.c '/fixture: sysctl(2) answers/d' "sysctl: Stop answering"
	validate -c abi
	echo "$output"
	[ "$status" -eq 1 ]
	[ "$(cell 1 abi)" = pass ]
	[ "$(reason 1 abi)" = "not wired up yet: ENOSYS for 64 and 32-bit callers with sysctl_syscall=on" ]
	[ "$(cell 2 abi)" = fail ]
	[[ $(reason 2 abi) == "SMOKE_EXPECT=enosys: FAIL: "*"not ok 1 - sysctl(2) is absent (ENOSYS), as SMOKE_EXPECT=enosys says: it answers" ]]
	[ "$(cell 3 abi)" = fail ]
	[ "$(reason 3 abi)" = "sysctl(2) is wired up for x86_64 callers only: both widths must answer from the same commit" ]
	[ ! -e "$(console 3 abi)" ]
	[ "$(cell 4 abi)" = fail ]
	[[ $(reason 4 abi) == "SMOKE_EXPECT=complete: FAIL: "* ]]
	grep -q '^not ok [0-9]* - sysctl(2) reads kernel/ostype: Operation not permitted$' "$(console 4 abi)"
	[ "$(cell 5 abi)" = fail ]
	grep -q '^not ok 1 - sysctl(2) answers, as SMOKE_EXPECT=complete says: ENOSYS$' "$(console 5 abi)"
}

# fake_qemu: a stand-in qemu-system-x86_64 first in PATH that writes its
# kernel command line and a passing TAP run to the console log.
fake_qemu() {
	mkdir -p "$BATS_TEST_TMPDIR/bin"
	cat >"$BATS_TEST_TMPDIR/bin/qemu-system-x86_64" <<'QEMU'
#!/bin/sh
while [ $# -gt 0 ]; do
	case $1 in -serial) log=${2#file:} ;; -append) append=$2 ;; esac
	shift
done
printf 'cmdline: %s\nTAP version 13\nok 1 - booted\n1..1\n' "$append" >"$log"
QEMU
	chmod +x "$BATS_TEST_TMPDIR/bin/qemu-system-x86_64"
	: >"$BATS_TEST_TMPDIR/bzImage"
	: >"$BATS_TEST_TMPDIR/initramfs.cpio"
}

@test "runner: every guest boots with sysctl_syscall=on before its own parameters; -d with the kernel's default" {
	fake_qemu
	PATH=$BATS_TEST_TMPDIR/bin:$PATH run "$QEMU_BOOT/run.sh" -A tcg -i "$BATS_TEST_TMPDIR/initramfs.cpio" \
		-l "$BATS_TEST_TMPDIR/console.log" -a 'SMOKE_EXPECT=enosys sysctl_syscall=off' "$BATS_TEST_TMPDIR/bzImage"
	echo "$output"
	[ "$status" -eq 0 ]
	grep -qx 'cmdline: console=ttyS0 panic=-1 loglevel=5 sysctl_syscall=on SYSCTL_SYSCALL_TEST_LOG=1 SMOKE_EXPECT=enosys sysctl_syscall=off' \
		"$BATS_TEST_TMPDIR/console.log"
	PATH=$BATS_TEST_TMPDIR/bin:$PATH run "$QEMU_BOOT/run.sh" -A tcg -d -i "$BATS_TEST_TMPDIR/initramfs.cpio" \
		-l "$BATS_TEST_TMPDIR/console.log" -a 'SMOKE_EXPECT=enosys' "$BATS_TEST_TMPDIR/bzImage"
	[ "$status" -eq 0 ]
	grep -qx 'cmdline: console=ttyS0 panic=-1 loglevel=5 SMOKE_EXPECT=enosys' "$BATS_TEST_TMPDIR/console.log"
}

@test "programs: the kselftest is built by its own Makefile; a program it does not build is left out, one that fails fails" {
	local src=$BATS_TEST_TMPDIR/src dir
	dir=$src/tools/testing/selftests/sysctl
	mkdir -p "$dir"
	printf '#include <stdio.h>\nint main(void) { puts(WHO); return 0; }\n' >"$dir/sysctl_syscall.c"
	# Only the Makefile knows WHO: a program built without it does not compile.
	# shellcheck disable=SC2016 # make's variables, not the shell's
	printf 'all: $(OUTPUT)/sysctl_syscall\n$(OUTPUT)/sysctl_syscall: sysctl_syscall.c\n\t$(CC) -DWHO=\\"makefile\\" -o $@ $<\n' >"$dir/Makefile"
	run "$QEMU_BOOT/programs.sh" -o "$BATS_TEST_TMPDIR/out" -s "$src" kselftest kselftest_32
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"warning: the Makefile of tools/testing/selftests/sysctl in $src builds no sysctl_syscall_32: not in the guest"* ]]
	[ "$("$BATS_TEST_TMPDIR/out/10-sysctl_syscall")" = makefile ]
	file "$BATS_TEST_TMPDIR/out/10-sysctl_syscall" | grep -q 'statically linked'
	[ ! -e "$BATS_TEST_TMPDIR/out/11-sysctl_syscall_32" ]
	[ ! -e "$BATS_TEST_TMPDIR/out/.kselftest" ]
	# A Makefile that fails: the guest cannot be made.
	printf 'all:\n\tfalse\n' >"$dir/Makefile"
	run "$QEMU_BOOT/programs.sh" -o "$BATS_TEST_TMPDIR/out2" -s "$src" kselftest
	[ "$status" -eq 2 ]
	[[ ${lines[-1]} == "programs: error: cannot build tools/testing/selftests/sysctl/sysctl_syscall.c with its Makefile (kselftest)" ]]
}
