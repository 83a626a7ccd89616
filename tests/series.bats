#!/usr/bin/env bats
# The real series, in the tests' own cache (TEST_CACHE, like the boot
# kernel of the runner tests; never the user's WF_CACHE): rebuild the
# branch from patches/ on linux-source-6.1, export it back byte for
# byte, checkpatch, codespell and kernel-doc on every commit, build the
# boot config at the tip and boot it with the smoke test and the
# kselftest, and run the stress programs at the tip on that kernel.
#
# What these tests leave to the main job ("make", the series
# validation): the per-commit builds of the whole matrix, sparse, W=1,
# clang, the per-commit boots and the stress run under the debug kernel.
# Cold, those are hours of kernel builds on this machine, and the tests
# must run cold in well under the 90 minutes CI gives them; here the
# kernel builds are the one of the boot config at the tip, shared with
# the runner tests (use_boot_kernel).

load test_helper

setup_file() {
	use_boot_kernel "the real series"
	NPATCHES=$(find "$REPO_ROOT/patches/6.1" -maxdepth 1 -name '*.patch' | wc -l)
	export NPATCHES
}

@test "series: patches/6.1 holds the whole series, 24 patches" {
	# The assertions below on what the tip does (every name translated,
	# the kselftest, the stress programs) are those of the whole series.
	[ "$NPATCHES" -eq 24 ]
}

@test "series: the tests use their own cache, not the user's" {
	[ "$WF_CACHE" = "$TEST_CACHE" ]
	[ -d "$TEST_CACHE/branches/6.1/linux" ]
}

@test "series: the branch rebuilds from patches/ on linux-source-6.1" {
	run "$TOOLS/rebuild.sh"
	[ "$status" -eq 0 ]
	[[ $output == *"($NPATCHES commits on refs/tags/base/"* ]]
}

@test "series: patches -> branch -> patches is byte-stable" {
	before=$BATS_TEST_TMPDIR/before
	cp -r "$REPO_ROOT/patches/6.1" "$before"
	WF_TOP=$BATS_TEST_TMPDIR/top
	mkdir -p "$WF_TOP/patches"
	cp "$REPO_ROOT/branches.txt" "$WF_TOP/"
	cp -r "$before" "$WF_TOP/patches/6.1"
	WF_TOP=$WF_TOP run "$TOOLS/export.sh"
	[ "$status" -eq 0 ]
	[[ $output == *"wrote $NPATCHES patch(es) to patches/6.1/ (0 file(s) changed)"* ]]
	diff -r "$before" "$WF_TOP/patches/6.1"
}

@test "series: the kselftest cross-built for 32-bit ARM (LLVM=1, CROSS_COMPILE), as the robots build it, gives the ARM program alone" {
	local src=$TEST_CACHE/branches/6.1/linux/tools/testing/selftests/sysctl out=$BATS_TEST_TMPDIR/ks
	mkdir -p "$out/arm" "$out/native"
	# An x86_64 host: the 32-bit x86 probe must look at the compiler lib.mk
	# chose for the target, not at the host's cc.
	run make -C "$src" OUTPUT="$out/arm" LLVM=1 ARCH=arm CROSS_COMPILE=arm-linux-gnueabihf- LDFLAGS=-fuse-ld=lld
	echo "$output"
	[ "$status" -eq 0 ]
	file "$out/arm/sysctl_syscall" | grep -q 'ELF 32-bit LSB .*, ARM'
	[ ! -e "$out/arm/sysctl_syscall_32" ]
	# Natively, where gcc builds 32-bit programs, both.
	run make -C "$src" OUTPUT="$out/native"
	[ "$status" -eq 0 ]
	file "$out/native/sysctl_syscall" | grep -q 'x86-64'
	file "$out/native/sysctl_syscall_32" | grep -q 'ELF 32-bit LSB .*Intel 80386'
}

@test "series: every row of the matrix, tip-only and cross rows too, gets the symbols its fragments ask for at the tip" {
	# Config only (kbuild.sh's allnoconfig and its check of the fragments,
	# then olddefconfig for a target), no build: a fragment kconfig drops
	# (a symbol behind a dependency it does not set) would be an ERROR row
	# of the cross or arm64 check, seen only at the end of a long run.
	# Kept by its inputs, as validate keeps a result: the tree at the tip
	# (and any edit in it), every file of configs/ and tools/, the
	# compilers' and make's versions.  A change to any of them runs every
	# row again; nothing changed (a warm make test), the rows of the last
	# pass are said and not run again (19 rows, 93 s here).
	local row arch bad=0 key kept rows tree=$TEST_CACHE/branches/6.1/linux
	# The rows, "name arch", but s390x: a MISS row the cross check never
	# builds (ld.lld 14 crashes on its link); kconfig itself refuses clang
	# there ("Sorry, this C compiler is not supported").
	rows=$(sed 's/#.*//' "$REPO_ROOT/configs/matrix.txt" | awk 'NF >= 3 && $1 != "cross-s390x" { print $1, $2 }')
	key=$({
		git -C "$tree" rev-parse 'HEAD^{tree}'
		git -C "$tree" status --porcelain
		(cd "$REPO_ROOT" && find configs tools -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum)
		gcc --version; clang --version; make --version
	} | sha256sum | cut -c1-32)
	kept=$TEST_CACHE/matrix-config/$key
	if [[ -s $kept ]]; then
		echo "# the matrix's configs: kept from a pass on the same inputs ($kept: $(wc -l <"$kept") rows)" >&3
		diff <(cut -d' ' -f1 <<<"$rows") "$kept"
		return
	fi
	while read -r row arch; do
		local -a llvm=()
		[[ $arch == x86_64 || $arch == i386 ]] || llvm=(-m LLVM=1 -m CC=clang)
		run "$TOOLS/kbuild.sh" -s "$tree" -o "$BATS_TEST_TMPDIR/cfg/$row" -t olddefconfig "${llvm[@]}" "$row"
		[ "$status" -eq 0 ] || { echo "$row: $output"; bad=1; }
	done <<<"$rows"
	[ "$bad" -eq 0 ]
	mkdir -p "${kept%/*}"
	cut -d' ' -f1 <<<"$rows" >"$kept.tmp"
	mv "$kept.tmp" "$kept"
}

@test "series: the stage stamps of make cost-stages apply to the tip" {
	git -C "$TEST_CACHE/branches/6.1/linux" apply --check "$QEMU_BOOT/cost-stages.patch"
}

@test "series: every commit passes checkpatch --strict with nothing accepted, codespell, kernel-doc and recipients in validate" {
	# (validate's results, kept by tree and by the checks' code: a change
	# to either runs them again.  make checkpatch, which keeps nothing,
	# is tested on fixtures in make.bats.)
	local c repo=$WF_CACHE/branches/6.1/linux
	run "$RUNNER/validate.sh" -c checkpatch,codespell,kernel-doc,recipients -o "$BATS_TEST_TMPDIR/validate"
	echo "$output" | grep -v '^validate: \[' | tail -n 40
	[ "$status" -eq 0 ]
	[[ $output == *"$((NPATCHES * 4)) result(s): 0 failed"* ]]
	json=$BATS_TEST_TMPDIR/validate/results.json
	# One entry per commit of the branch, in order, each with the four
	# checks, every one passed (checkpatch with nothing accepted: the
	# accepted list has no entry for the series), but kernel-doc on a commit that touches no
	# C file outside tools/ and Documentation/: skipped there, and only
	# there; the other checks not selected.
	diff <(jq -r '.commits[].commit' "$json") \
		<(git -C "$repo" rev-list --reverse --first-parent "$(jq -r .range "$json")")
	jq -e --argjson n "$NPATCHES" '.failed == 0 and (.commits | length) == $n and
		all(.commits[]; .results.checkpatch.status == "pass" and .results.codespell.status == "pass" and
		        (.results.checkpatch.reason | test("accepted") | not) and
		        .results.recipients.status == "pass" and
		        (.results["kernel-doc"].status == "pass" or .results["kernel-doc"].status == "skip") and
		        all(.results | to_entries[] | select(.key | IN("checkpatch", "codespell", "kernel-doc", "recipients") | not);
		            .value.status == "skip" and .value.reason == "not selected"))' "$json"
	diff <(jq -r '.commits[] | select(.results["kernel-doc"].status == "skip") | .commit' "$json") \
		<(for c in $(jq -r '.commits[].commit' "$json"); do
			git -C "$repo" diff-tree --no-commit-id --name-only -r "$c" |
				grep -E '\.[ch]$' | grep -qvE '^(tools|Documentation)/' || echo "$c"
		done)
}

@test "series: the tip builds in the boot config and passes the smoke test in QEMU" {
	run "$TOOLS/boot.sh"
	echo "$output" | tail -n 30
	[ "$status" -eq 0 ]
	[[ $output == *"config boot: built bzImage, 0 warning(s)"* ]]
	[[ $output == *"PASS: "* ]]
	log=$WF_CACHE/branches/6.1/build/boot/console.log
	# The whole series: every probed name is translated and the series'
	# kselftest ran, 64-bit and 32-bit.
	grep -q '^# translated 13 of 13 probed names' "$log"
	grep -q '^ok .* - /tests/10-sysctl_syscall$' "$log"
	grep -q '^ok .* - /tests/11-sysctl_syscall_32$' "$log"
}

@test "series: the tip passes the stress programs on the boot kernel, full counts" {
	# The kselftest, 100,000 fuzzer calls and the concurrency test, 64 and
	# 32 bit, on the boot kernel of the tip (the debug kernel's run,
	# KASAN and lockdep, is the main job's: make stress).
	run "$TOOLS/stress.sh" -k "$KERNEL" -C -o "$BATS_TEST_TMPDIR/stress"
	echo "$output" | tail -n 30
	[ "$status" -eq 0 ]
	summary=$BATS_TEST_TMPDIR/stress/summary.txt
	for p in sysctl_syscall sysctl_syscall_32 fuzz fuzz_32 threads threads_32 cost; do
		grep -qE "^debug +$p +pass " "$summary"
	done
	grep -qE '^debug +sysctl_syscall +pass +Totals: pass:[0-9]+ fail:0 ' "$summary"
	grep -qE '^debug +fuzz +pass +fuzz: 100000 calls, 0 failures' "$summary"
	grep -qE '^debug +fuzz_32 +pass +fuzz: 100000 calls, 0 failures' "$summary"
	grep -qE '^debug +threads +pass +threads: [0-9]+ calls in [0-9.]+ s, 0 errors' "$summary"
	grep -qE '^debug +\(kernel reports\) +pass +0 line' "$summary"
}
