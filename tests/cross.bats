#!/usr/bin/env bats
# Tests of the cross check (checks/cross): the tip built with clang
# (LLVM=1) for each Debian architecture of configs/matrix.txt's
# "# cross:" lines, on the fixture kernel of validate.bats, whose
# Makefile compiles for the architecture's triplet with real clang and
# links with ld.lld (tests/fixtures/validate/Makefile): a file breaks one
# architecture by testing the compiler's macros (__aarch64__).  No
# kernel is built.  Each expectation fails on the commit that breaks it.

load test_helper
bats_require_minimum_version 1.5.0

setup() {
	setup_validate_fixture
	OUT=$BATS_TEST_TMPDIR/out
	BUILD=$WF_CACHE/branches/6.1/validate/build/cross
}

# rows ROW: rows.txt of the cross result on commit ROW.
rows() {
	cat "$(dirname "$(log "$1" cross)")/rows.txt"
}

# row_of ROW DEB OPTION: the verdict, warnings and new warnings of DEB's
# row with OPTION on commit ROW ("pass 0 0").
row_of() {
	rows "$1" | awk -v d="$2" -v o="$3" '$1 == d && $2 == o { print $3, $4, $5; exit }'
}

# amend_base SED-SCRIPT FILE: the fixture's base with FILE edited.
amend_base() {
	sed -i "$1" "$WF_REPO/$2"
	git -C "$WF_REPO" commit -q -a --amend --no-edit
	git -C "$WF_REPO" tag -f fixture-base >/dev/null
}

@test "cross: at the tip only, a row per Debian architecture, each built with clang for its triplet and compared with the base" {
	validate_commit_edit kernel/names.c 's/return 2;/return 3;/' "sysctl: Translate one more name"
	# The option's dependency, as the series has it in init/Kconfig.
	mkdir -p "$WF_REPO/init"
	printf 'config SYSCTL_SYSCALL\n\tbool "Sysctl syscall support" if EXPERT\n\tdepends on PROC_SYSCTL && X86\n' \
		>"$WF_REPO/init/Kconfig"
	git -C "$WF_REPO" add -f init/Kconfig
	validate_commit_edit kernel/names.c 's/return 12;/return 13;/' "sysctl: Probe one more name"
	validate -c cross
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(cell 1 cross)" = skip ]
	[ "$(reason 1 cross)" = "not run: at the tip only" ]
	[ "$(cell 2 cross)" = pass ]
	rows 2
	[[ $(reason 2 cross) == "built, 0 new warnings: amd64 off+on, i386 off+on, arm64 off, armhf off, armel off, mips64el off, ppc64el off, "*"riscv64 off"* ]]
	for deb in amd64 i386; do
		[ "$(row_of 2 $deb off)" = "pass 0 0" ]
		[ "$(row_of 2 $deb on)" = "pass 0 0" ]
	done
	for deb in arm64 armhf armel mips64el ppc64el riscv64; do
		[ "$(row_of 2 $deb off)" = "pass 0 0" ]
	done
	# A named row, not a silent skip: the option is x86's.
	for deb in armhf armel mips64el ppc64el riscv64; do
		rows 2 | grep -qE "^$deb +on +none .* off only: SYSCTL_SYSCALL depends on PROC_SYSCTL && X86\$"
	done
	# arm64 has an on row, for the commits whose Kconfig lets arm64
	# select the option: not this one.
	rows 2 | grep -qE "^arm64 +on +none .* off only at this commit: SYSCTL_SYSCALL depends on PROC_SYSCTL && X86\$"
	[ ! -e "$BUILD/cross-arm64-on" ]
	# Each row was built for its own triplet, in its own directory.
	file "$BUILD/cross-arm64/tip/kernel/names.o" | grep -q 'ARM aarch64'
	file "$BUILD/cross-ppc64el/tip/kernel/names.o" | grep -q '64-bit PowerPC'
	file "$BUILD/cross-mips64el/tip/kernel/names.o" | grep -q 'MIPS'
	file "$BUILD/cross-armhf/tip/kernel/names.o" | grep -q '32-bit LSB relocatable, ARM'
	grep -qx 'CONFIG_SYSCTL_SYSCALL=y' "$BUILD/cross-amd64-on/tip/.config"
	grep -qx '# CONFIG_SYSCTL_SYSCALL is not set' "$BUILD/cross-amd64-off/tip/.config"
	# No warning: the base is never built.
	[ ! -e "$BUILD/base-src" ]
	# s390x: ld.lld 14 cannot link it (it crashes), a MISS named with
	# its reason, never built; a later lld that links it builds it.
	if ! (ld.lld -e probe "$BUILD/probe/s390x/probe.o" -o /dev/null) 2>/dev/null; then
		[[ $(reason 2 cross) == *"; MISS: s390x (ld.lld cannot link for s390x-linux-gnu: "* ]]
		rows 2 | grep -qE '^s390x +- +MISS '
		[ ! -e "$BUILD/cross-s390x" ]
	fi
}

@test "cross: arm64's on row is built from the commit whose Kconfig lets arm64 select the option" {
	mkdir -p "$WF_REPO/init"
	printf 'config SYSCTL_SYSCALL\n\tbool "Sysctl syscall support" if EXPERT\n\tdepends on PROC_SYSCTL && X86\n' \
		>"$WF_REPO/init/Kconfig"
	git -C "$WF_REPO" add -f init/Kconfig
	validate_commit_edit kernel/names.c 's/return 2;/return 3;/' "sysctl: Translate one more name"
	validate_commit_edit init/Kconfig 's/X86$/(X86 || (ARM64 \&\& COMPAT))/' "arm64: Wire up sysctl(2) for 32-bit tasks"
	WF_EVERY_COMMIT=cross validate -c cross
	echo "$output"
	[ "$status" -eq 0 ]
	rows 1
	rows 1 | grep -qE "^arm64 +on +none .* off only at this commit: SYSCTL_SYSCALL depends on PROC_SYSCTL && X86\$"
	[[ $(reason 1 cross) == *"arm64 off, armhf off"* ]]
	rows 2
	[ "$(row_of 2 arm64 on)" = "pass 0 0" ]
	[[ $(reason 2 cross) == *"arm64 off+on, armhf off"* ]]
	grep -qx 'CONFIG_SYSCTL_SYSCALL=y' "$BUILD/cross-arm64-on/tip/.config"
	file "$BUILD/cross-arm64-on/tip/kernel/names.o" | grep -q 'ARM aarch64'
	# armhf (ARM) is not named by the dependency: still off only.
	rows 2 | grep -qE "^armhf +on +none .* off only: SYSCTL_SYSCALL depends on PROC_SYSCTL && \(X86 \|\| \(ARM64 && COMPAT\)\)\$"
}

@test "cross: a commit that breaks the arm64 build alone fails the check, naming arm64; the base builds there" {
	validate_commit_edit kernel/names.c 's/return 2;/return 3;/' "sysctl: Translate one more name"
	validate_commit_edit kernel/names.c 's|^int probed(void)$|#ifdef __aarch64__\nint arm64_only(void)\n{\n\treturn undeclared_on_arm64;\n}\n#endif\n\nint probed(void)|' \
		"sysctl: Add an arm64 helper"
	validate -c cross
	echo "$output"
	[ "$status" -eq 1 ]
	rows 2
	[[ $(reason 2 cross) == "failed: arm64 off, arm64 on (arm64 off: does not build with clang, the base does: "*"kernel/names.c:"*"error: use of undeclared identifier 'undeclared_on_arm64'); built, 0 new warnings: amd64 off+on, i386 off+on, armhf off,"* ]]
	[ "$(row_of 2 arm64 off)" = "fail 0 0" ]
	# No Kconfig in the fixture says arm64 cannot have the option on.
	[ "$(row_of 2 arm64 on)" = "fail 0 0" ]
	[ "$(row_of 2 armhf off)" = "pass 0 0" ]
	# The base was built for arm64 alone, to tell a break from a MISS.
	[ -f "$BUILD/cross-arm64/base/kernel/names.o" ]
	[ ! -e "$BUILD/cross-armhf/base" ]
	grep -q "^fail 2 .*\[cross\]" "$OUT/report.txt"
}

@test "cross: a warning on arm64 alone that the base does not give fails; one the base gives too is old" {
	checks_copy
	# The base warns on arm64 in main.c; the series leaves it alone.
	amend_base 's|^int main(void)$|#ifdef __aarch64__\nstatic int unused_in_base;\n#endif\n\nint main(void)|' kernel/main.c
	validate_commit_edit kernel/names.c 's/return 2;/return 3;/' "sysctl: Translate one more name"
	validate -c cross
	echo "$output"
	[ "$status" -eq 0 ]
	rows 1
	[ "$(row_of 1 arm64 off)" = "pass 1 0" ]
	[ "$(row_of 1 armhf off)" = "pass 0 0" ]
	[ -f "$BUILD/cross-arm64/base/kernel/main.o" ]
	# A new one, on arm64 only.
	validate_commit_edit kernel/names.c 's|^int probed(void)$|#ifdef __aarch64__\nstatic int unused_on_arm64;\n#endif\n\nint probed(void)|' \
		"sysctl: Add an arm64 variable"
	validate -c cross
	echo "$output"
	[ "$status" -eq 1 ]
	rows 2
	[ "$(row_of 2 arm64 off)" = "fail 2 1" ]
	[[ $(reason 2 cross) == "failed: arm64 off, arm64 on (arm64 off: 1 new warning(s): kernel/names.c: warning: unused variable 'unused_on_arm64' [-Wunused-variable]); "* ]]
	grep -qF "cross-arm64: kernel/names.c: warning: unused variable 'unused_on_arm64'" "$(log 2 cross)"
	# The base's build was kept: not built again for the same base.
	grep -qF "cross-arm64: the base, tree" "$(log 2 cross)"
	run ! grep -qF "cross-arm64: building the base" "$(log 2 cross)"
	# The same base in another config (the row's fragment changed) is
	# built again.
	echo '# changed' >>"$WF_CONFIGS_DIR/cross/arm64.config"
	validate_commit_edit kernel/names.c 's/return 3;/return 4;/' "sysctl: Translate yet another name"
	validate -c cross
	[ "$status" -eq 1 ]
	grep -qF "cross-arm64: building the base" "$(log 3 cross)"
}

@test "cross: an architecture whose compiler probe fails is a MISS with its reason, never built, never a pass" {
	validate_commit_edit kernel/names.c 's/return 2;/return 3;/' "sysctl: Translate one more name"
	checks_copy
	# An architecture clang has no backend for, with the arm64 row.
	sed -i '/^# cross: /d' "$CONFIGS_COPY/matrix.txt"
	printf '# cross: arm64  aarch64-linux-gnu  cross-arm64  -\n# cross: nosuch  nosuch64-linux-gnu  cross-armhf  -\n' \
		>>"$CONFIGS_COPY/matrix.txt"
	WF_CHECKS_DIR=$CHECKS_COPY validate -c cross
	echo "$output"
	[ "$status" -eq 0 ]
	rows 1
	[[ $(reason 1 cross) == "built, 0 new warnings: arm64 off; MISS: nosuch (clang cannot compile for nosuch64-linux-gnu: "*"unknown target triple"*")" ]]
	rows 1 | grep -qE '^nosuch +- +MISS '
	[ ! -e "$BUILD/cross-armhf" ]
}

@test "cross: an architecture the base does not build either is a MISS, not a failure of the series" {
	amend_base 's|^int main(void)$|#ifdef __powerpc64__\n#error "no ppc64 here"\n#endif\n\nint main(void)|' kernel/main.c
	validate_commit_edit kernel/names.c 's/return 2;/return 3;/' "sysctl: Translate one more name"
	validate -c cross
	echo "$output"
	[ "$status" -eq 0 ]
	rows 1
	[ "$(row_of 1 ppc64el off)" = "MISS 0 0" ]
	[[ $(reason 1 cross) == *"; MISS: ppc64el (off: does not build at the base either)"* ]]
	[[ $(reason 1 cross) != *"ppc64el off"* ]]
}

@test "cross: EVERY_COMMIT=cross runs it at every commit, each against the base; a name that is no tip-only check is refused" {
	validate_commit_edit kernel/names.c 's|^int probed(void)$|#ifdef __aarch64__\n#error "arm64 broken"\n#endif\n\nint probed(void)|' \
		"sysctl: Break arm64"
	validate_commit_edit kernel/names.c 's|^#error "arm64 broken"$|int arm64_ok;|' "sysctl: Mend arm64"
	WF_EVERY_COMMIT=cross validate -c cross
	echo "$output"
	[ "$status" -eq 1 ]
	[ "$(cell 1 cross)" = fail ]
	[[ $(reason 1 cross) == "failed: arm64 off, arm64 on (arm64 off: "* ]]
	[ "$(cell 2 cross)" = pass ]
	# Through make, and refused for a check that runs at every commit anyway.
	WF_EVERY_COMMIT=boot validate -c cross
	[ "$status" -eq 2 ]
	[[ $output == *"EVERY_COMMIT: 'boot' is not a check run at the tip only"* ]]
}
