#!/usr/bin/env bats
# Tests of the kconfig check (checks/kconfig), run by runner/validate.sh
# on the fixture kernel of validate.bats with a Kconfig of the real 6.1
# base: its init/Kconfig (the files it sources left out: kconfig reads
# them from nowhere else here), scripts/Kconfig.include and the version
# scripts it runs, and scripts/kconfig, the parser the check's dumper is
# built from.  The check fails on a commit that moves an option in the
# menu tree (the bug of patch 1 of v2: a new option without "if EXPERT"
# ending the EXPERT submenu), passes on one that adds an option in its
# place, skips a commit that changes no Kconfig file, and fails a Kconfig
# that does not parse, naming the file.

load test_helper
bats_require_minimum_version 1.5.0

setup() {
	setup_validate_fixture
	add_kconfig_to_fixture
	# shellcheck disable=SC2034 # read by validate, cell, reason and log (test_helper.bash)
	OUT=$BATS_TEST_TMPDIR/out
}

# add_kconfig_to_fixture: the Kconfig of the real base in the fixture
# kernel, committed and made its base (fixture-base).
add_kconfig_to_fixture() {
	local f tmp=$BATS_TEST_TMPDIR/kconfig-init
	for f in scripts/kconfig scripts/Kconfig.include scripts/cc-version.sh scripts/as-version.sh \
		scripts/ld-version.sh scripts/min-tool-version.sh scripts/pahole-version.sh; do
		kernel_file "$f" "$WF_REPO/$f"
	done
	kernel_file init/Kconfig "$tmp"
	sed -E '/^[[:space:]]*source[[:space:]]/d' "$tmp" >"$WF_REPO/init/Kconfig"
	printf 'mainmenu "Fixture kernel"\n\nsource "scripts/Kconfig.include"\nsource "init/Kconfig"\n' \
		>"$WF_REPO/Kconfig"
	git -C "$WF_REPO" add -f Kconfig init/Kconfig scripts
	git -C "$WF_REPO" -c user.name=A -c user.email=a@example.org commit -q -m "Add the fixture Kconfig"
	git -C "$WF_REPO" tag -f fixture-base >/dev/null
}

# run_check NAME: checks/NAME/run by hand on the tip of the fixture
# branch, as the runner would call it (output in $BATS_TEST_TMPDIR/NAME).
run_check() {
	local out=$BATS_TEST_TMPDIR/$1
	rm -rf "$out" && mkdir -p "$out"
	run --separate-stderr env WF_HOME="$REPO_ROOT" WF_CHECK_NAME="$1" WF_CHECK_SRC="$WF_REPO" \
		WF_CHECK_COMMIT="$(git -C "$WF_REPO" rev-parse HEAD)" \
		WF_CHECK_PARENT="$(git -C "$WF_REPO" rev-parse HEAD^)" \
		WF_CHECK_CONFIG='' WF_CHECK_BUILD='' WF_CHECK_OUT="$out" WF_CHECK_PREV='' "$CHECKS/$1/run"
}

# A new option right after SYSFS_SYSCALL (the last of the EXPERT options
# before FHANDLE) with the prompt PROMPT.
new_option_after_sysfs() {
	printf '/^config FHANDLE$/i config SYSCTL_SYSCALL\\n\\tbool %s\\n\\tdepends on PROC_SYSCTL\\n\\thelp\\n\\t  sysctl(2).\\n' "$1"
}

@test "kconfig: an option that ends the EXPERT submenu fails, naming the options that drop out; one inside it, or at the end of a menu, passes" {
	validate_commit_edit kernel/names.c 's/return 2;/return 3;/' "sysctl: Translate one more name"
	validate_commit_edit init/Kconfig "$(new_option_after_sysfs '"Sysctl syscall support" if EXPERT')" \
		"sysctl: Add CONFIG_SYSCTL_SYSCALL for experts"
	validate_commit_edit init/Kconfig \
		'/^menu "Scheduler features"$/,/^endmenu$/ s/^endmenu$/config SCHED_FIXTURE\n\tbool "A fixture scheduler feature"\n\nendmenu/' \
		"sched: Add a fixture feature"
	validate_commit_edit init/Kconfig 's/^config SYSCTL_SYSCALL$/config SYSCTL_SYSCALL_OLD/' "sysctl: Rename it"
	validate_commit_edit init/Kconfig "$(new_option_after_sysfs '"Sysctl syscall support"')" \
		"sysctl: Add CONFIG_SYSCTL_SYSCALL"
	validate -c kconfig
	echo "$output"
	[ "$status" -eq 1 ]
	[ "$(cell 1 kconfig)" = skip ]
	[ "$(reason 1 kconfig)" = "kconfig: no Kconfig file changed" ]
	[ "$(cell 2 kconfig)" = pass ]
	[[ $(reason 2 kconfig) =~ ^kconfig:\ menu\ tree\ of\ [0-9]{3,}\ options\ unchanged\ \(1\ added\)$ ]]
	grep -qxF '    SYSCTL_SYSCALL' "$(log 2 kconfig)"
	[ "$(cell 3 kconfig)" = pass ]
	[[ $(reason 3 kconfig) == *" options unchanged (1 added)" ]]
	# A rename is an option removed and one added: neither is compared.
	[ "$(cell 4 kconfig)" = pass ]
	grep -qxF '    SYSCTL_SYSCALL_OLD' "$(log 4 kconfig)"
	grep -qxF 'options the commit removes (1):' "$(log 4 kconfig)"
	[ "$(cell 5 kconfig)" = fail ]
	[[ $(reason 5 kconfig) =~ ^kconfig:\ [0-9]+\ option\(s\)\ moved:\ FHANDLE\ \(Configure\ standard\ kernel\ features\ \(expert\ users\)\ -\>\ General\ setup\),\ POSIX_TIMERS\ \( ]]
	grep -qF '    PRINTK: General setup > Configure standard kernel features (expert users)  ->  General setup' \
		"$(log 5 kconfig)"
}

@test "kconfig: a Kconfig that does not parse fails its commit with kconfig's message; at the parent, nothing is compared" {
	validate_commit_edit init/Kconfig 's/^config FHANDLE$/config FHANDLE oops/' "fs: Break the Kconfig"
	run_check kconfig
	echo "$output"
	[ "$status" -eq 1 ]
	[[ $output =~ ^kconfig:\ the\ commit\'s\ Kconfig\ does\ not\ parse:\ init/Kconfig:[0-9]+:\ syntax\ error$ ]]
	validate_commit_edit kernel/names.c 's/return 2;/return 3;/' "sysctl: Translate one more name"
	validate_commit_edit init/Kconfig 's/^config FHANDLE oops$/config FHANDLE/' "fs: Mend the Kconfig"
	run_check kconfig
	echo "$output"
	[ "$status" -eq 125 ]
	[[ $output =~ ^kconfig:\ the\ parent\'s\ Kconfig\ does\ not\ parse\ \(init/Kconfig:[0-9]+:\ syntax\ error\):\ nothing\ to\ compare\ with$ ]]
}

@test "kconfig: no bison, or a kconfig parser that does not build, is an infrastructure error, named in one line" {
	validate_commit_edit init/Kconfig "$(new_option_after_sysfs '"Sysctl syscall support" if EXPERT')" \
		"sysctl: Add CONFIG_SYSCTL_SYSCALL for experts"
	mkdir -p "$BATS_TEST_TMPDIR/bin"
	for t in bash git sed awk grep cat head tail cut tr sort mkdir rm mv cp ls find sha256sum wc \
		dirname basename env tee tar gcc flex ld comm gzip flock chmod mktemp rmdir; do
		ln -sf "$(command -v "$t")" "$BATS_TEST_TMPDIR/bin/$t"
	done
	PATH=$BATS_TEST_TMPDIR/bin run_check kconfig
	[ "$status" -eq 2 ]
	[ "$output" = "kconfig: bison is not installed (run: apt-get install bison)" ]
	validate_commit_edit scripts/kconfig/util.c '1i #error broken' "kconfig: Break util.c"
	validate_commit_edit init/Kconfig 's/^config FHANDLE$/config FHANDLE\n\t# a comment/' "fs: Comment FHANDLE"
	run_check kconfig
	echo "$output"
	[ "$status" -eq 2 ]
	[[ $output =~ ^kconfig:\ the\ kconfig\ dumper\ does\ not\ build\ from\ scripts/kconfig\ of\ [0-9a-f]{12}:\ scripts/kconfig/util.c:1:[0-9]+:\ error:\ #error\ broken$ ]]
	# shellcheck disable=SC2154 # set by run --separate-stderr
	[[ $stderr == *"gcc "*"util.c"* ]]
}
