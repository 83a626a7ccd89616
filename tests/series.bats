#!/usr/bin/env bats
# The real series: rebuild the branch from patches/ on linux-source-6.1,
# checkpatch every commit, build the boot config at the tip, boot it.
# Uses (and updates) the real cache; takes minutes on a cold cache.

load test_helper

setup_file() {
	export WF_CACHE=$REAL_CACHE
	NPATCHES=$(find "$REPO_ROOT/patches/6.1" -maxdepth 1 -name '*.patch' | wc -l)
	export NPATCHES
}

@test "series: patches/6.1 holds the whole series, 23 patches" {
	# The assertions below on what the tip does (every name translated,
	# the kselftest, the stress run) are those of the whole series.
	[ "$NPATCHES" -eq 23 ]
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

@test "series: every commit passes checkpatch --strict" {
	run "$CHECKS/checkpatch.sh"
	echo "$output" | tail -n 30
	[ "$status" -eq 0 ]
	[[ ${lines[-1]} == "checkpatch: $NPATCHES commit(s): $NPATCHES pass, 0 fail" ]]
}

@test "series: the tip builds in the boot config and passes the smoke test in QEMU" {
	run "$CHECKS/boot.sh"
	echo "$output" | tail -n 30
	[ "$status" -eq 0 ]
	[[ $output == *"config boot: built bzImage, 0 warning(s)"* ]]
	[[ $output == *"PASS: "* ]]
	log=$WF_CACHE/branches/6.1/build/boot/console.log
	# The whole series: every probed name is translated and the series'
	# kselftest ran, 64-bit and 32-bit.
	[ "$NPATCHES" -eq 23 ]
	grep -q '^# translated 13 of 13 probed names' "$log"
	grep -q '^ok .* - /tests/10-sysctl_syscall$' "$log"
	grep -q '^ok .* - /tests/11-sysctl_syscall_32$' "$log"
}

@test "series: every commit passes checkpatch, codespell, sparse, kernel-doc, the build matrix and the boots" {
	local c repo=$WF_CACHE/branches/6.1/linux
	run "$CHECKS/validate.sh" -o "$BATS_TEST_TMPDIR/validate"
	echo "$output" | grep -v '^validate: \[' | tail -n 40
	[ "$status" -eq 0 ]
	[[ $output == *"$((NPATCHES * 14)) result(s): 0 failed"* ]]
	json=$BATS_TEST_TMPDIR/validate/results.json
	# One entry per commit of the branch, in order, each with the fourteen
	# checks, every one passed, but kernel-doc on a commit that touches no
	# C file outside tools/ and Documentation/: skipped there, and only there.
	diff <(jq -r '.commits[].commit' "$json") \
		<(git -C "$repo" rev-list --reverse --first-parent "$(jq -r .range "$json")")
	jq -e --argjson n "$NPATCHES" '.failed == 0 and (.commits | length) == $n and
		.checks == ["checkpatch", "codespell", "sparse", "kernel-doc", "boot", "off", "nonet", "i386",
		            "noproc", "qemu", "guest-off", "guest-nonet", "guest-i386", "guest-noproc"] and
		all(.commits[]; (.results | keys | length) == 14 and
		    all(.results | to_entries[]; .value.status == "pass" or
		        (.key == "kernel-doc" and .value.status == "skip")))' "$json"
	diff <(jq -r '.commits[] | select(.results["kernel-doc"].status == "skip") | .commit' "$json") \
		<(for c in $(jq -r '.commits[].commit' "$json"); do
			git -C "$repo" diff-tree --no-commit-id --name-only -r "$c" |
				grep -E '\.[ch]$' | grep -qvE '^(tools|Documentation)/' || echo "$c"
		done)
}

@test "series: the tip passes the stress run under the debug kernel" {
	[ "$NPATCHES" -eq 23 ] # the figures below are those of the whole series
	run "$CHECKS/stress.sh" -o "$BATS_TEST_TMPDIR/stress"
	echo "$output" | tail -n 30
	[ "$status" -eq 0 ]
	summary=$BATS_TEST_TMPDIR/stress/summary.txt
	for p in sysctl_syscall sysctl_syscall_32 fuzz fuzz_32 threads threads_32 cost; do
		grep -qE "^debug +$p +pass " "$summary"
	done
	grep -qE '^debug +fuzz +pass +fuzz: 100000 calls, 0 failures' "$summary"
	grep -qE '^debug +fuzz_32 +pass +fuzz: 100000 calls, 0 failures' "$summary"
	grep -qE '^debug +\(kernel reports\) +pass +0 line' "$summary"
	grep -qE '^boot +cost +pass +.*ratio=' "$summary"
}
