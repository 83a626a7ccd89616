#!/usr/bin/env bats
# Tests of the distributed builds (make DISTCC_HOSTS=...): a distccd that
# listens on loopback only and allows loopback only, the fixture kernel
# of validate.bats built through it by tools/kbuild.sh and by
# validate.  Its log shows the compile jobs; the objects and the
# verdicts are a local build's; a host that is down, or one that
# refuses, is said in one line and its jobs are compiled here.

load test_helper
# shellcheck source=dev/lib/distccd.sh
. "$BATS_TEST_DIRNAME/../dev/lib/distccd.sh"

setup() {
	setup_validate_fixture
	validate_commit_edit kernel/names.c 's/return 2;/return 3;/' "sysctl: Translate one more name"
	# distcc's state (host backoff) is the test's.
	export DISTCC_DIR=$BATS_TEST_TMPDIR/distcc-state
	mkdir -p "$DISTCC_DIR"
}

teardown() {
	[[ -z ${DISTCCD_PID:-} ]] || kill "$DISTCCD_PID" 2>/dev/null || true
}

# start_distccd [ALLOW]: a distccd of dev/lib/distccd.sh on loopback,
# allowing ALLOW (default 127.0.0.1/32), 2 jobs.
start_distccd() {
	start_loopback_distccd distccd "${1:-127.0.0.1/32}" 2
}

# build DIR [HOSTS]: the fixture's boot config built by kbuild.sh into DIR
# with a ccache of its own (so that every object is compiled), through
# HOSTS when given.
build() {
	CCACHE_DIR=$BATS_TEST_TMPDIR/ccache-${1##*/} WF_DISTCC_HOSTS=${2:-} \
		run "$TOOLS/kbuild.sh" -s "$WF_REPO" -o "$1" boot
	echo "$output"
}

# same_objects A B: the object files of two builds are byte for byte the same.
same_objects() {
	local f n=0
	for f in "$1"/kernel/*.o; do
		cmp "$f" "$2/kernel/${f##*/}"
		n=$((n + 1))
	done
	[ "$n" -ge 2 ]
}

# add_macro_comparison: a function in kernel/names.c whose loop condition
# a macro's expansion makes always true (&n->key != NULL), as
# list_for_each_entry_safe_from() in 6.1's kernel/workqueue.c: compilers
# warn about it in preprocessed text, not in the source.
add_macro_comparison() {
	cat >>"$WF_REPO/kernel/names.c" <<-'EOF'

	struct node { int key; struct node *next; };
	#define for_each_node(n, head) for (n = (head); &n->key != NULL; n = n->next)

	int count(struct node *head);
	int count(struct node *head)
	{
		struct node *n;
		int c = 0;

		for_each_node(n, head)
			c++;
		return c;
	}
	EOF
	sed -i '3a #include <stddef.h>' "$WF_REPO/kernel/names.c"
}

@test "distcc: the build goes through a distccd on loopback, with the objects of a local build" {
	start_distccd
	build "$BATS_TEST_TMPDIR/local"
	[ "$status" -eq 0 ]
	build "$BATS_TEST_TMPDIR/remote" "127.0.0.1:$DISTCC_PORT/2"
	[ "$status" -eq 0 ]
	[[ $output != *distcc:* ]]
	cat "$DISTCCD_LOG"
	# Each C file of the fixture was compiled by the daemon.
	grep -qE 'COMPILE_OK .*kernel/main\.c$' "$DISTCCD_LOG"
	grep -qE 'COMPILE_OK .*kernel/names\.c$' "$DISTCCD_LOG"
	same_objects "$BATS_TEST_TMPDIR/local" "$BATS_TEST_TMPDIR/remote"
	cmp "$BATS_TEST_TMPDIR/local/warnings.txt" "$BATS_TEST_TMPDIR/remote/warnings.txt"
}

@test "distcc: a warning GCC leaves out inside a macro's expansion stays out through distcc" {
	# GCC does not warn about a comparison that a macro's expansion
	# makes always false (-Waddress, as list_for_each_entry_safe_from()
	# in 6.1's kernel/workqueue.c); compiling distcc's preprocessed text,
	# it does.  A distributed build must give the local build's warnings,
	# or the build check would call them new.
	add_macro_comparison
	start_distccd
	build "$BATS_TEST_TMPDIR/local"
	[ "$status" -eq 0 ]
	[ ! -s "$BATS_TEST_TMPDIR/local/warnings.txt" ]
	build "$BATS_TEST_TMPDIR/remote" "127.0.0.1:$DISTCC_PORT/2"
	[ "$status" -eq 0 ]
	grep -qE 'COMPILE_OK .*kernel/names\.c$' "$DISTCCD_LOG"
	cat "$BATS_TEST_TMPDIR/remote/warnings.txt"
	[ ! -s "$BATS_TEST_TMPDIR/remote/warnings.txt" ]
	same_objects "$BATS_TEST_TMPDIR/local" "$BATS_TEST_TMPDIR/remote"
}

@test "distcc: the clang check's build (CC=clang) is compiled here, said in one line: the local objects, warnings and verdict" {
	# clang rejects gcc's -fdirectives-only: given it, every compile
	# failed and the clang check reported a false failure, then cached
	# it.  Without it, clang warns in a macro's expanded text
	# (-Wtautological-pointer-compare) where it does not in the source.
	add_macro_comparison
	validate_commit_edit kernel/names.c 's/return 12;/return 13;/' "sysctl: Count the nodes"
	start_distccd
	CCACHE_DIR=$BATS_TEST_TMPDIR/ccache-clang-local \
		run "$TOOLS/kbuild.sh" -s "$WF_REPO" -o "$BATS_TEST_TMPDIR/clang-local" -m LLVM=1 -m "CC=ccache clang" boot
	echo "$output"
	[ "$status" -eq 0 ]
	CCACHE_DIR=$BATS_TEST_TMPDIR/ccache-clang-remote WF_DISTCC_HOSTS="127.0.0.1:$DISTCC_PORT/2" \
		run "$TOOLS/kbuild.sh" -s "$WF_REPO" -o "$BATS_TEST_TMPDIR/clang-remote" -m LLVM=1 -m "CC=ccache clang" boot
	echo "$output"
	cat "$DISTCCD_LOG"
	[ "$status" -eq 0 ]
	[ "$(grep -c distcc: <<<"$output")" -eq 1 ]
	[[ $output == *"kbuild: distcc: a clang build is compiled here"* ]]
	[ "$(grep -c 'COMPILE_OK' "$DISTCCD_LOG")" -eq 0 ]
	[ ! -s "$BATS_TEST_TMPDIR/clang-local/warnings.txt" ]
	same_objects "$BATS_TEST_TMPDIR/clang-local" "$BATS_TEST_TMPDIR/clang-remote"
	cmp "$BATS_TEST_TMPDIR/clang-local/warnings.txt" "$BATS_TEST_TMPDIR/clang-remote/warnings.txt"
	# The clang check itself, through validate: the local verdict.
	CCACHE_DIR=$BATS_TEST_TMPDIR/ccache-clang-validate WF_DISTCC_HOSTS="127.0.0.1:$DISTCC_PORT/2" \
		run "$RUNNER/validate.sh" -o "$BATS_TEST_TMPDIR/out-distcc" -c clang "$VALIDATE_RANGE"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(jq -r '.commits[-1].results.clang.status' "$BATS_TEST_TMPDIR/out-distcc/results.json")" = pass ]
}

@test "distcc: make validate DISTCC_HOSTS= gives the verdicts of a local run" {
	start_distccd
	# (the builds' compiles, not ccache's hits: a ccache of the test's own)
	export CCACHE_DIR=$BATS_TEST_TMPDIR/ccache-validate
	WF_DISTCC_HOSTS="127.0.0.1:$DISTCC_PORT/2" run "$RUNNER/validate.sh" -o "$BATS_TEST_TMPDIR/out-distcc" \
		-c boot,qemu,nonet "$VALIDATE_RANGE"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(grep -c COMPILE_OK "$DISTCCD_LOG")" -ge 4 ]
	# The same run again, locally, from an empty result cache and ccache.
	rm -rf "$WF_CACHE/branches/6.1/validate" "$CCACHE_DIR"
	run "$RUNNER/validate.sh" -o "$BATS_TEST_TMPDIR/out-local" -c boot,qemu,nonet "$VALIDATE_RANGE"
	[ "$status" -eq 0 ]
	verdicts='[.commits[] | .results | to_entries[] | {check: .key, status: .value.status, reason: .value.reason}]'
	[ "$(jq -c "$verdicts" "$BATS_TEST_TMPDIR/out-distcc/results.json")" = \
		"$(jq -c "$verdicts" "$BATS_TEST_TMPDIR/out-local/results.json")" ]
	# make passes DISTCC_HOSTS to every build target (an environment
	# variable of every recipe).
	# shellcheck disable=SC2016 # make's $$, not the shell's
	[ "$(make -s -C "$REPO_ROOT" -f - print DISTCC_HOSTS="h1/4" <<<'include Makefile
print: ; @echo "$$WF_DISTCC_HOSTS"')" = "h1/4" ]
}

@test "distcc: a host that is down, or one that refuses, is said in one line and the build passes" {
	build "$BATS_TEST_TMPDIR/local"
	[ "$status" -eq 0 ]
	down=$(free_port)
	build "$BATS_TEST_TMPDIR/down" "127.0.0.1:$down/2"
	[ "$status" -eq 0 ]
	[ "$(grep -c 'distcc' <<<"$output")" -eq 1 ]
	[[ $output == *"kbuild: distcc: 127.0.0.1:$down does not answer: its jobs are compiled here"* ]]
	same_objects "$BATS_TEST_TMPDIR/local" "$BATS_TEST_TMPDIR/down"
	# A daemon that does not allow this client.
	start_distccd 10.0.0.0/8
	build "$BATS_TEST_TMPDIR/refused" "127.0.0.1:$DISTCC_PORT/2"
	[ "$status" -eq 0 ]
	[ "$(grep -c 'distcc' <<<"$output")" -eq 1 ]
	[[ $output == *"kbuild: distcc: "*" compile(s) could not be distributed (a host refused or failed): compiled here"* ]]
	same_objects "$BATS_TEST_TMPDIR/local" "$BATS_TEST_TMPDIR/refused"
}

@test "bench-distcc: the fixture built locally and through its own loopback distccd: times, the same objects" {
	run "$DEV/bench-distcc.sh" -d "$BATS_TEST_TMPDIR/bench" -s "$WF_REPO" boot
	echo "$output"
	[ "$status" -eq 0 ]
	grep -qE '^local +\| [0-9]+ s +\| - +\| 0$' <<<"$output"
	grep -qE '^distcc +\| [0-9]+ s +\| [1-9][0-9]* +\| 0$' <<<"$output"
	grep -qE '^distcc / local: [0-9.]+x; objects: ([1-9][0-9]*) of \1 the same, 0 more in all but debugging information; warnings the same: yes$' <<<"$output"
	# Each from an empty ccache: both compiled every file.
	[ -s "$BATS_TEST_TMPDIR/bench/local/build/kernel/main.o" ]
	[ -s "$BATS_TEST_TMPDIR/bench/distcc/build/kernel/names.o" ]
	# The daemon is gone with the script.
	[ -z "$(pgrep -f "distccd .*--allow 127.0.0.1/32 --port .*bench-distccd" || true)" ]
}

@test "bench-distcc: a tree that does not build is named in one line, exit 1" {
	validate_commit_edit kernel/names.c 's/return 3;/return 3/' "sysctl: Break the build"
	run "$DEV/bench-distcc.sh" -d "$BATS_TEST_TMPDIR/bench" -s "$WF_REPO" boot
	echo "$output"
	[ "$status" -eq 1 ]
	[[ ${lines[-1]} == "bench-distcc: error: the local build of boot failed (exit 1; log: $BATS_TEST_TMPDIR/bench/local/build/build.log)" ]]
	run "$DEV/bench-distcc.sh" -s "$BATS_TEST_TMPDIR/nowhere"
	[ "$status" -eq 2 ]
	[[ $output == "bench-distcc: error: $BATS_TEST_TMPDIR/nowhere is not a kernel tree (no Makefile)" ]]
}
