#!/usr/bin/env bats
# Tests of the arm64 check (checks/arm64) on the fixture kernel of
# validate.bats, whose Makefile builds an "Image" with real clang for
# aarch64 (tests/fixtures/validate/Makefile), booted by a stand-in for
# qemu-boot/run.sh that keeps what it was given (the kernel command line,
# the initramfs) and prints the console of a passing or failing guest:
# no kernel, no QEMU.  The guest programs are real 32-bit ARM builds.
# Each expectation fails on the commit that breaks it.

load test_helper

setup() {
	setup_validate_fixture
	# shellcheck disable=SC2034 # OUT: where validate() (test_helper.bash) writes
	OUT=$BATS_TEST_TMPDIR/out
	BUILD=$WF_CACHE/branches/6.1/validate/build/arm64
	GUEST=$BATS_TEST_TMPDIR/guest
	mkdir -p "$GUEST"
	cat >"$GUEST/run.sh" <<GUEST
#!/usr/bin/env bash
# The stand-in guest: run.sh's options; keeps the append, the kernel's
# magic and the initramfs' files with their types; passes unless
# $GUEST/fail exists.
set -euo pipefail
while getopts 'i:l:a:dt:' opt; do
	case \$opt in
	i) initrd=\$OPTARG ;;
	l) log=\$OPTARG ;;
	a) printf '%s\n' "\$OPTARG" >>"$GUEST/append" ;;
	*) ;;
	esac
done
shift \$((OPTIND - 1))
od -An -c -j56 -N4 "\$1" | tr -d ' ' >"$GUEST/magic"
rm -rf "$GUEST/root"; mkdir "$GUEST/root"
(cd "$GUEST/root" && cpio -id --quiet) <"\$initrd"
(cd "$GUEST/root" && find . -type f | sort | xargs file) >"$GUEST/files"
if [[ -e $GUEST/fail ]]; then
	printf 'TAP version 13\n1..1\nnot ok 1 - smoke\n' >"\$log"
	echo "FAIL: not ok 1 - smoke"
	exit 1
fi
printf 'TAP version 13\n1..1\n# translated 7 of 7 probed names\nok 1 - smoke\n' >"\$log"
GUEST
	chmod +x "$GUEST/run.sh"
	export WF_TEST_VALIDATE_GUEST_RUN=$GUEST/run.sh
}

# wire_arm64 FILE: a commit that points arm64's compat 149 at
# compat_sys_sysctl, as the series' arm64 patch does in 6.1's FILE.
wire_arm64() {
	mkdir -p "$WF_REPO/arch/arm64/include/asm"
	printf '#define __NR__sysctl 149\n__SYSCALL(__NR__sysctl, compat_sys_sysctl)\n' \
		>"$WF_REPO/arch/arm64/include/asm/unistd32.h"
	git -C "$WF_REPO" add -f arch/arm64/include/asm/unistd32.h
	git -C "$WF_REPO" -c user.name="A Developer" -c user.email=dev@example.org \
		commit -q -s -m "arm64: Wire up sysctl(2) for 32-bit tasks" -m "Why."
}

@test "arm64: before the arm64 wiring, the arm64-off kernel boots expecting ENOSYS; from it, the option's, expecting every name" {
	validate_commit_edit kernel/names.c 's/return 2;/return 3;/' "sysctl: Translate one more name"
	wire_arm64
	WF_EVERY_COMMIT=arm64 validate -c arm64
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(cell 1 arm64)" = pass ]
	[ "$(reason 1 arm64)" = "arm64, 32-bit ARM programs: not wired up here, ENOSYS with sysctl_syscall=on, as the base (config arm64-off)" ]
	[ "$(cell 2 arm64)" = pass ]
	[ "$(reason 2 arm64)" = "arm64, 32-bit ARM programs: wired up, 7 of 7 names translated (config arm64)" ]
	# What each guest was told, and what it booted.
	[ "$(sed -n 1p "$GUEST/append")" = SMOKE_EXPECT=enosys ]
	[ "$(sed -n 2p "$GUEST/append")" = SMOKE_EXPECT=complete ]
	[ "$(cat "$GUEST/magic")" = ARMd ]
	grep -qx 'CONFIG_SYSCTL_SYSCALL=y' "$BUILD/.config"
	grep -qx 'CONFIG_COMPAT=y' "$BUILD/.config"
	file "$BUILD/kernel/names.o" | grep -q 'ARM aarch64'
	# /init is the smoke test, a static 32-bit ARM program; no x86 one.
	grep -E '^\./init: +ELF 32-bit LSB executable, ARM, .*statically linked' "$GUEST/files"
	run ! grep -q 'x86' "$GUEST/files"
	# At the tip only by default.
	validate -c arm64
	[ "$status" -eq 0 ]
	[ "$(cell 1 arm64)" = skip ]
	[ "$(cell 2 arm64)" = pass ]
}

@test "arm64: 6.12's table (arch/arm64/tools/syscall_32.tbl) wires it up as 6.1's unistd32.h does" {
	validate_commit_edit kernel/names.c 's/return 2;/return 3;/' "sysctl: Translate one more name"
	mkdir -p "$WF_REPO/arch/arm64/tools"
	printf '148\tcommon\tfdatasync\t\tsys_fdatasync\n149\tcommon\t_sysctl\t\t\tsys_sysctl\t\tcompat_sys_sysctl\n' \
		>"$WF_REPO/arch/arm64/tools/syscall_32.tbl"
	git -C "$WF_REPO" add -f arch/arm64/tools/syscall_32.tbl
	git -C "$WF_REPO" -c user.name="A Developer" -c user.email=dev@example.org \
		commit -q -s -m "arm64: Wire up sysctl(2) for 32-bit tasks" -m "Why."
	validate -c arm64
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(reason 2 arm64)" = "arm64, 32-bit ARM programs: wired up, 7 of 7 names translated (config arm64)" ]
	[ "$(sed -n 1p "$GUEST/append")" = SMOKE_EXPECT=complete ]
}

@test "arm64: a guest that fails fails the check, with its failing line" {
	wire_arm64
	touch "$GUEST/fail"
	validate -c arm64
	echo "$output"
	[ "$status" -eq 1 ]
	[ "$(cell 1 arm64)" = fail ]
	[[ $(reason 1 arm64) == "config arm64, SMOKE_EXPECT=complete: boot failed: FAIL: not ok 1 - smoke" ]]
}

@test "arm64: a commit that breaks the arm64 build fails the check" {
	wire_arm64
	validate_commit_edit kernel/names.c 's|^int probed(void)$|#ifdef __aarch64__\n#error "arm64 broken"\n#endif\n\nint probed(void)|' \
		"sysctl: Break arm64"
	validate -c arm64
	echo "$output"
	[ "$status" -eq 1 ]
	[[ $(reason 2 arm64) == "config arm64: does not build with clang: "*'error: "arm64 broken"'* ]]
	[ ! -e "$GUEST/append" ]
}

@test "arm64: the guest programs are static 32-bit ARM builds, the kselftest through its own Makefile" {
	local src=$BATS_TEST_TMPDIR/src out=$BATS_TEST_TMPDIR/progs
	mkdir -p "$src/tools/testing/selftests/sysctl"
	cat >"$src/tools/testing/selftests/sysctl/Makefile" <<'MK'
TEST_GEN_PROGS := sysctl_syscall
all: $(OUTPUT)/sysctl_syscall
$(OUTPUT)/sysctl_syscall: sysctl_syscall.c
	$(CC) -o $@ $<
MK
	printf 'int main(void)\n{\n\treturn 0;\n}\n' >"$src/tools/testing/selftests/sysctl/sysctl_syscall.c"
	run "$QEMU_BOOT/programs.sh" -o "$out" -s "$src" smoke_arm32 kselftest_arm32
	echo "$output"
	[ "$status" -eq 0 ]
	file "$out/00-smoke_arm32" | grep -E 'ELF 32-bit LSB executable, ARM, .*statically linked'
	file "$out/12-sysctl_syscall_arm32" | grep -E 'ELF 32-bit LSB executable, ARM, .*statically linked'
	[ ! -e "$out/.kselftest-arm32" ]
}
