#!/usr/bin/env bats
# Tests of tools/port.sh (make port) on two fixture branches: the clean
# port, the stop at a conflict and --continue, the replay of a recorded
# resolution, the fixups, bad input, and the recovery from a killed run.

load test_helper

setup() {
	setup_fixture
	case $BATS_TEST_DESCRIPTION in
	*"clean"* | *"fixup"* | *"bad input"*) make_port_fixture ;;
	*) make_port_fixture conflict ;;
	esac
}

# port ARGS...: tools/port.sh, its output in $output (bats run).
port() {
	run "$TOOLS/port.sh" "$@"
	echo "$output"
}

# to_git ARGS...: git in the 6.12 branch's cache repo.
to_git() {
	git -C "$WF_CACHE/branches/6.12/linux" "$@"
}

# resolve: the user's resolution of the fixture's conflict.
resolve() {
	printf '/* one */\nint one;\n/* two */\nlong two = 2;\n/* three */\nint three;\n' >"$PORT_TREE/kernel/sysctl.c"
}

# stopped_at_conflict: the fixture's port stopped at its conflict.
stopped_at_conflict() {
	run "$TOOLS/port.sh" 6.1 6.12
	[ "$status" -eq 1 ]
	[ -d "$PORT_TREE/.git/rebase-apply" ]
}

# ported_with_resolution: the fixture's port, resolved and finished.
ported_with_resolution() {
	stopped_at_conflict
	resolve
	git -C "$PORT_TREE" add -f kernel/sysctl.c
	git -C "$PORT_TREE" am --continue >/dev/null
	"$TOOLS/port.sh" --continue 6.1 6.12 2>/dev/null
}

# ported_with_saved_fixup: the clean port, then a fixup! of its last
# commit, made on the port and saved by --continue.
ported_with_saved_fixup() {
	port 6.1 6.12
	[ "$status" -eq 0 ]
	printf '/* one */\nint one;\n/* two */\nint two = 2;\n/* three */\nint three = 3; /* 6.12 */\n' >"$PORT_TREE/kernel/sysctl.c"
	git -C "$PORT_TREE" commit -q -a --fixup=HEAD
	port --continue 6.1 6.12
	[ "$status" -eq 0 ]
}

@test "port: a clean port writes the TO patches and the range-diff, and rebuilds the TO branch" {
	port 6.1 6.12
	[ "$status" -eq 0 ]
	[[ $output == *"port: ported 3 patch(es) of patches/6.1/ onto base/6.1.99-1: 3 as they were, 0 through a 3-way merge, 0 with a recorded resolution, 0 resolved by hand; 0 fixup(s)"* ]]
	[[ $output == *"port: wrote patches/6.12/ (3 patch file(s) changed) and out/port/6.1..6.12.txt"* ]]
	[ "$(find "$WF_TOP/patches/6.12" -maxdepth 1 -name '*.patch' | wc -l)" -eq 3 ]
	[ "$(cat "$WF_TOP/patches/6.12/port/from")" = 6.1 ]
	[ ! -e "$WF_TOP/patches/6.12/port/rr-cache" ] || [ -z "$(ls -A "$WF_TOP/patches/6.12/port/rr-cache")" ]
	# The patches differ from 6.1's only by the blobs of the base.
	diff <(sed '/^index /d' "$WF_TOP"/patches/6.1/*.patch) <(sed '/^index /d' "$WF_TOP"/patches/6.12/*.patch)
	# One range-diff row per patch, all equal.
	[ "$(grep -c '^[0-9]*: *[0-9a-f]* = ' "$WF_TOP/out/port/6.1..6.12.txt")" -eq 3 ]
	# The TO branch is the port, on the 6.12 base.
	[ "$(to_git log --format=%s refs/tags/base/6.1.99-1..fixture-topic-6.12 | wc -l)" -eq 3 ]
	to_git show fixture-topic-6.12:Makefile | grep -qx 'PATCHLEVEL = 12'
	[ "$(to_git rev-parse fixture-topic-6.12)" = "$(to_git rev-parse refs/wf/exported)" ]
	# Again: the same files, none changed.
	cp -r "$WF_TOP/patches/6.12" "$BATS_TEST_TMPDIR/before"
	port 6.1 6.12
	[ "$status" -eq 0 ]
	[[ $output == *"(0 patch file(s) changed)"* ]]
	diff -r "$BATS_TEST_TMPDIR/before" "$WF_TOP/patches/6.12"
}

@test "port: a conflict stops the port with the patch and the file, the am left for the user; --continue finishes it" {
	port 6.1 6.12
	[ "$status" -eq 1 ]
	[ "$(grep -c 'error:' <<<"$output")" -eq 1 ]
	[[ $output == *"port: error: patches/6.1/0002-sysctl-Initialise-two.patch does not apply on base/6.1.99-1: conflicts in kernel/sysctl.c"* ]]
	[[ $output == *"port: the git am is stopped in $PORT_TREE: resolve it there, then run"* ]]
	[[ $output == *"  git -C $PORT_TREE add -f kernel/sysctl.c"* ]]
	[[ $output == *"  git -C $PORT_TREE am --continue"* ]]
	[[ $output == *"  make port FROM=6.1 TO=6.12 CONTINUE=1"* ]]
	[[ $output == *"ABORT=1"* ]]
	# The state left for the user: the am, the conflict in the file,
	# patch 1 applied; nothing written.
	[ -d "$PORT_TREE/.git/rebase-apply" ]
	grep -q '^<<<<<<<' "$PORT_TREE/kernel/sysctl.c"
	[ "$(git -C "$PORT_TREE" log -1 --format=%s)" = "sysctl: Add new.c" ]
	[ -z "$(ls -A "$WF_TOP/patches/6.12")" ]
	[ ! -e "$WF_TOP/out/port" ]
	# Not resolved yet: said so, nothing moves.
	port --continue 6.1 6.12
	[ "$status" -eq 1 ]
	[[ ${lines[-1]} == "port: error: patches/6.1/0002-sysctl-Initialise-two.patch: still conflicts in kernel/sysctl.c (in $PORT_TREE): resolve them, 'git -C $PORT_TREE add -f' them, then make port FROM=6.1 TO=6.12 CONTINUE=1" ]]
	# Resolved and added, but no "git am --continue": --continue does it.
	resolve
	git -C "$PORT_TREE" add -f kernel/sysctl.c
	port --continue 6.1 6.12
	[ "$status" -eq 0 ]
	[[ $output == *"patches/6.1/0002-sysctl-Initialise-two.patch: committed with your resolution"* ]]
	[[ $output == *"1 as they were, 1 through a 3-way merge, 0 with a recorded resolution, 1 resolved by hand"* ]]
	[[ $output != *"cleaning up"* ]]
	[ ! -d "$PORT_TREE/.git/rebase-apply" ]
	grep -q '^+long two = 2;$' "$WF_TOP/patches/6.12/0002-sysctl-Initialise-two.patch"
	grep -q '^+int three = 3;$' "$WF_TOP/patches/6.12/0003-sysctl-Initialise-three.patch"
	# The resolution is recorded beside the TO series, as rerere wrote it
	# (cut down to the conflict and three lines around it).
	run find "$WF_TOP/patches/6.12/port/rr-cache" -type f
	[ "${#lines[@]}" -eq 2 ]
	[[ ${lines[0]} == */postimage || ${lines[1]} == */postimage ]]
	grep -qx 'long two = 2;' "$WF_TOP"/patches/6.12/port/rr-cache/*/postimage
	grep -qx '<<<<<<<' "$WF_TOP"/patches/6.12/port/rr-cache/*/preimage
	[ -s "$WF_TOP/out/port/6.1..6.12.txt" ]
	grep -q '^ *1: *[0-9a-f]* = *1: *[0-9a-f]* sysctl: Add new.c' "$WF_TOP/out/port/6.1..6.12.txt"
	grep -q 'sysctl: Initialise two' "$WF_TOP/out/port/6.1..6.12.txt"
	to_git show fixture-topic-6.12:kernel/sysctl.c | grep -qx 'long two = 2;'
	to_git show fixture-topic-6.12:kernel/sysctl.c | grep -qx 'int three = 3;'
	# Nothing more to continue.
	port --continue 6.1 6.12
	[ "$status" -eq 0 ]
	[[ $output == *"the port from 6.1 to 6.12 is done, nothing to continue"* ]]
}

@test "port: after an edit of the FROM series the recorded resolution replays, with no stop" {
	ported_with_resolution
	cp -r "$WF_TOP/patches/6.12/port/rr-cache" "$BATS_TEST_TMPDIR/rr-before"
	# Another patch of the series changes; the conflicting hunk does not.
	sed -i 's/^+int new;$/+int new = 1;/' "$WF_TOP/patches/6.1/0001-sysctl-Add-new.c.patch"
	port 6.1 6.12
	[ "$status" -eq 0 ]
	[[ $output == *"port: patches/6.1/0002-sysctl-Initialise-two.patch: replayed the recorded resolution of kernel/sysctl.c"* ]]
	[[ $output == *"1 as they were, 1 through a 3-way merge, 1 with a recorded resolution, 0 resolved by hand"* ]]
	[[ $output != *error* ]]
	grep -q '^+int new = 1;$' "$WF_TOP/patches/6.12/0001-sysctl-Add-new.c.patch"
	grep -q '^+long two = 2;$' "$WF_TOP/patches/6.12/0002-sysctl-Initialise-two.patch"
	diff -r "$BATS_TEST_TMPDIR/rr-before" "$WF_TOP/patches/6.12/port/rr-cache"
	to_git show fixture-topic-6.12:kernel/new.c | grep -qx 'int new = 1;'
	# A fresh cache (a fresh clone) replays it too.
	rm -rf "$WF_CACHE"
	cp -r "$WF_TOP/patches/6.12" "$BATS_TEST_TMPDIR/before"
	port 6.1 6.12
	[ "$status" -eq 0 ]
	[[ $output == *"replayed the recorded resolution of kernel/sysctl.c"* ]]
	diff -r "$BATS_TEST_TMPDIR/before" "$WF_TOP/patches/6.12"
	# A fixup saved after it keeps the resolution.
	git -C "$PORT_TREE" commit -q --allow-empty -m "amend! sysctl: Add new.c" -m "sysctl: Add new.c" -m "Reworded."
	port --continue 6.1 6.12
	[ "$status" -eq 0 ]
	diff -r "$BATS_TEST_TMPDIR/rr-before" "$WF_TOP/patches/6.12/port/rr-cache"
}

@test "port: fixup! and amend! commits made on the port are saved and applied by every port after" {
	port 6.1 6.12
	[ "$status" -eq 0 ]
	first=$(git -C "$PORT_TREE" rev-parse HEAD~2)
	third=$(git -C "$PORT_TREE" rev-parse HEAD)
	# A reworded message (amend!, no diff) and a code change (fixup!).
	git -C "$PORT_TREE" commit -q --allow-empty -m "amend! sysctl: Add new.c" \
		-m "sysctl: Add new.c" -m "Reworded for the 6.12 base." -m "Signed-off-by: A Developer <dev@example.org>"
	printf '/* one */\nint one;\n/* two */\nint two = 2;\n/* three */\nint three = 3; /* 6.12 */\n' >"$PORT_TREE/kernel/sysctl.c"
	git -C "$PORT_TREE" commit -q -a --fixup="$third"
	[ "$(git -C "$PORT_TREE" log -1 --format=%s)" = "fixup! sysctl: Initialise three" ]
	# Not saved yet: a new port refuses to drop them.
	port 6.1 6.12
	[ "$status" -eq 1 ]
	[[ ${lines[-1]} == "port: error: $PORT_TREE has 2 commit(s) on the port that are not saved: save the fixup!/amend! ones with 'make port FROM=6.1 TO=6.12 CONTINUE=1', drop them with 'FORCE=1'" ]]
	port --continue 6.1 6.12
	[ "$status" -eq 0 ]
	[[ $output == *"port: 2 new fixup(s) from $PORT_TREE"* ]]
	[[ $output == *"; 2 fixup(s)"* ]]
	[[ $output == *"(2 patch file(s) changed)"* ]]
	ls "$WF_TOP/patches/6.12/port/fixups/0001-amend-sysctl-Add-new.c.patch" \
		"$WF_TOP/patches/6.12/port/fixups/0002-fixup-sysctl-Initialise-three.patch"
	# The amend! keeps the message it rewords; the fixup! needs no such record.
	amends=$WF_TOP/patches/6.12/port/fixups/0001-amend-sysctl-Add-new.c.amends
	[ "$(head -n 1 "$amends")" = "sysctl: Add new.c" ]
	grep -qx 'Why this change is needed.' "$amends"
	[ ! -e "$WF_TOP/patches/6.12/port/fixups/0002-fixup-sysctl-Initialise-three.amends" ]
	grep -qx 'Reworded for the 6.12 base.' "$WF_TOP/patches/6.12/0001-sysctl-Add-new.c.patch"
	grep -q '^+int three = 3; /\* 6.12 \*/$' "$WF_TOP/patches/6.12/0003-sysctl-Initialise-three.patch"
	[ "$(find "$WF_TOP/patches/6.12" -maxdepth 1 -name '*.patch' | wc -l)" -eq 3 ]
	[ "$(git -C "$PORT_TREE" rev-parse HEAD~2)" != "$first" ]
	to_git log -1 --format=%B fixture-topic-6.12~2 | grep -qx 'Reworded for the 6.12 base.'
	# A new port, from a fresh cache, applies them again: the same files.
	cp -r "$WF_TOP/patches/6.12" "$BATS_TEST_TMPDIR/before"
	rm -rf "$WF_CACHE"
	port 6.1 6.12
	[ "$status" -eq 0 ]
	diff -r "$BATS_TEST_TMPDIR/before" "$WF_TOP/patches/6.12"
	# A commit that is no fixup is not taken.
	git -C "$PORT_TREE" commit -q --allow-empty -m "sysctl: Something new"
	port --continue 6.1 6.12
	[ "$status" -eq 1 ]
	[[ ${lines[-1]} == "port: error: commit "*" sysctl: Something new in $PORT_TREE is not a fixup!, amend! or squash! commit (git commit --fixup=amend:<commit>); only those are kept" ]]
	diff -r "$BATS_TEST_TMPDIR/before" "$WF_TOP/patches/6.12"
}

@test "port: a saved fixup that no longer applies stops the port with git am's reason" {
	ported_with_saved_fixup
	fixup=$WF_TOP/patches/6.12/port/fixups/0001-fixup-sysctl-Initialise-three.patch
	# Edited by hand: a line it removes that the port does not have, and
	# no blob ids for a 3-way merge.
	grep -qx -- '-int three = 3;' "$fixup"
	sed -i -e '/^index /d' -e 's/^-int three = 3;$/-int three = 33;/' "$fixup"
	port 6.1 6.12
	[ "$status" -eq 1 ]
	[ "${lines[-1]}" = "port: error: fixup patches/6.12/port/fixups/0001-fixup-sysctl-Initialise-three.patch does not apply on the port: sha1 information is lacking or useless (kernel/sysctl.c)." ]
}

@test "port: an amend! fixup whose message the FROM series changed since stops the port" {
	local fixups=$WF_TOP/patches/6.12/port/fixups from=$WF_TOP/patches/6.1/0001-sysctl-Add-new.c.patch
	port 6.1 6.12
	[ "$status" -eq 0 ]
	git -C "$PORT_TREE" commit -q --allow-empty -m "amend! sysctl: Add new.c" \
		-m "sysctl: Add new.c" -m "Reworded for the 6.12 base."
	port --continue 6.1 6.12
	[ "$status" -eq 0 ]
	cp -r "$WF_TOP/patches/6.12" "$BATS_TEST_TMPDIR/before"
	cp "$from" "$BATS_TEST_TMPDIR/from"
	# The 6.1 series says more in that message now: the amend! would put
	# the old text back in 6.12, and a port that went on would say nothing.
	sed -i '0,/^---$/s//Why new.c is needed, as review asked.\n\n---/' "$from"
	port 6.1 6.12
	[ "$status" -eq 1 ]
	[[ ${lines[-1]} == "port: error: fixup patches/6.12/port/fixups/0001-amend-sysctl-Add-new.c.patch rewords the message 'sysctl: Add new.c' had; patches/6.1 has changed that message since: delete the fixup and its .amends, port again and make the amend! again (CONTRIBUTING.md, Port the series)" ]]
	diff -r "$BATS_TEST_TMPDIR/before" "$WF_TOP/patches/6.12"
	# An amend! with no record of the message it rewords (saved before
	# there were records) is not trusted either.
	cp "$BATS_TEST_TMPDIR/from" "$from"
	rm "$fixups/0001-amend-sysctl-Add-new.c.amends"
	port 6.1 6.12
	[ "$status" -eq 1 ]
	[[ ${lines[-1]} == "port: error: fixup patches/6.12/port/fixups/0001-amend-sysctl-Add-new.c.patch rewords 'sysctl: Add new.c' with no record of the message it rewords (patches/6.12/port/fixups/0001-amend-sysctl-Add-new.c.amends): delete it, port again and make the amend! again (CONTRIBUTING.md, Port the series)" ]]
	# With the record back, the port goes through as before.
	cp "$BATS_TEST_TMPDIR/before/port/fixups/0001-amend-sysctl-Add-new.c.amends" "$fixups/"
	port 6.1 6.12
	[ "$status" -eq 0 ]
	diff -r "$BATS_TEST_TMPDIR/before" "$WF_TOP/patches/6.12"
}

@test "port: new fixups after a deleted one are numbered after the last, each amend! with its own record" {
	local fixups=$WF_TOP/patches/6.12/port/fixups
	port 6.1 6.12
	[ "$status" -eq 0 ]
	# Two amend! fixups, then the first deleted (a stale one, as the
	# port asks): the one left is 0002, one file.
	git -C "$PORT_TREE" commit -q --allow-empty -m "amend! sysctl: Add new.c" \
		-m "sysctl: Add new.c" -m "Reworded for the 6.12 base."
	git -C "$PORT_TREE" commit -q --allow-empty -m "amend! sysctl: Initialise three" \
		-m "sysctl: Initialise three" -m "Three, reworded for 6.12."
	port --continue 6.1 6.12
	[ "$status" -eq 0 ]
	rm "$fixups"/0001-amend-sysctl-Add-new.c.*
	port 6.1 6.12
	[ "$status" -eq 0 ]
	# A new amend! now: numbered 0003, after the last, not 0002 again.
	git -C "$PORT_TREE" commit -q --allow-empty -m "amend! sysctl: Add new.c" \
		-m "sysctl: Add new.c" -m "Reworded again for the 6.12 base."
	port --continue 6.1 6.12
	[ "$status" -eq 0 ]
	[ "$(cd "$fixups" && echo *)" = "0002-amend-sysctl-Initialise-three.amends 0002-amend-sysctl-Initialise-three.patch 0003-amend-sysctl-Add-new.c.amends 0003-amend-sysctl-Add-new.c.patch" ]
	[ "$(head -n 1 "$fixups/0002-amend-sysctl-Initialise-three.amends")" = "sysctl: Initialise three" ]
	[ "$(head -n 1 "$fixups/0003-amend-sysctl-Add-new.c.amends")" = "sysctl: Add new.c" ]
	grep -qx 'Reworded again for the 6.12 base.' "$WF_TOP/patches/6.12/0001-sysctl-Add-new.c.patch"
	grep -qx 'Three, reworded for 6.12.' "$WF_TOP/patches/6.12/0003-sysctl-Initialise-three.patch"
	port 6.1 6.12
	[ "$status" -eq 0 ]
}

@test "port: bad input is named in one line and changes nothing" {
	cp -r "$WF_TOP" "$BATS_TEST_TMPDIR/top-before"
	for args in "6.1" "" "6.1 6.13" "6.0 6.12" "6.1 6.1" "--continue 6.12 6.12"; do
		# shellcheck disable=SC2086 # the words are the arguments
		port $args
		[ "$status" -ne 0 ]
		[ "${#lines[@]}" -eq 1 ]
		case $args in
		"6.1" | "") [[ $output == "port: error: FROM= and TO= are both needed, e.g. make port FROM=6.1 TO=6.12 (the branches: 6.1 6.12)" ]] ;;
		"6.1 6.13") [[ $output == "port: error: no branch '6.13' in $WF_TOP/branches.txt (the branches: 6.1 6.12)" ]] ;;
		"6.0 6.12") [[ $output == "port: error: no branch '6.0' in $WF_TOP/branches.txt (the branches: 6.1 6.12)" ]] ;;
		*) [[ $output == "port: error: FROM and TO are the same branch '"*"'" ]] ;;
		esac
	done
	# Nothing to continue or drop yet.
	port --continue 6.1 6.12
	[ "$status" -eq 1 ]
	[[ ${lines[-1]} == "port: error: no port from 6.1 to 6.12 to continue (run: make port FROM=6.1 TO=6.12)" ]]
	port --abort 6.1 6.12
	[ "$status" -eq 1 ]
	[[ ${lines[-1]} == "port: error: no port from 6.1 to 6.12 to drop" ]]
	diff -r "$BATS_TEST_TMPDIR/top-before" "$WF_TOP"
	[ ! -e "$WF_CACHE/port/6.1..6.12/linux" ]
	# make passes FROM and TO through.
	run make -s -C "$REPO_ROOT" port FROM=6.1 TO=6.1 WF_TOP="$WF_TOP"
	[ "$status" -ne 0 ]
	[[ $output == *"port: error: FROM and TO are the same branch '6.1'"* ]]
	# A TO branch with commits never exported is not overwritten.
	port 6.1 6.12
	[ "$status" -eq 0 ]
	cp -r "$WF_TOP/patches/6.12" "$BATS_TEST_TMPDIR/before"
	to_git -c user.name=U -c user.email=u@example.org commit -q --allow-empty -m "Not exported"
	port 6.1 6.12
	[ "$status" -eq 1 ]
	[[ ${lines[-1]} == "port: error: branch fixture-topic-6.12 has commits not exported to patches/6.12/, which the port would replace (run 'make export BRANCH=6.12' first, or 'make rebuild BRANCH=6.12 FORCE=1' to discard them)" ]]
	diff -r "$BATS_TEST_TMPDIR/before" "$WF_TOP/patches/6.12"
}

@test "port: bad input: a FROM series of no patches, or no patch directory, ports nothing and keeps TO" {
	port 6.1 6.12
	[ "$status" -eq 0 ]
	cp -r "$WF_TOP/patches/6.12" "$BATS_TEST_TMPDIR/before"
	# The FROM patch directory misspelt in branches.txt.
	sed -i 's#any patches/6.1$#any patches/6.x#' "$WF_TOP/branches.txt"
	port 6.1 6.12
	[ "$status" -eq 1 ]
	[ "${lines[-1]}" = "rebuild: error: patch directory $WF_TOP/patches/6.x does not exist" ]
	diff -r "$BATS_TEST_TMPDIR/before" "$WF_TOP/patches/6.12"
	# An empty one, on a FROM branch at its base.
	sed -i 's#any patches/6.x$#any patches/6.0#' "$WF_TOP/branches.txt"
	mkdir "$WF_TOP/patches/6.0"
	WF_BRANCH=6.1 "$TOOLS/rebuild.sh" -f 2>/dev/null
	port 6.1 6.12
	[ "$status" -eq 1 ]
	[ "${lines[-1]}" = "port: error: no patches in patches/6.0/: nothing to port (patches/6.12/ stays as it is)" ]
	diff -r "$BATS_TEST_TMPDIR/before" "$WF_TOP/patches/6.12"
}

@test "port: a killed run's git am is dropped and the port done again; a stop at a conflict is the user's and is kept" {
	ported_with_resolution
	cp -r "$WF_TOP/patches/6.12" "$BATS_TEST_TMPDIR/before"
	dir=$WF_CACHE/port/6.1..6.12
	# The state a SIGKILL during the git am of patch 2 leaves: the am in
	# progress, a stale index.lock, a half-written file, the marker.
	head=$(git -C "$PORT_TREE" rev-parse refs/port/result~2)
	printf 'status=applying\nnext=2\nhead=%s\nto_base=refs/tags/base/6.1.99-1\nfrom_base=refs/tags/base/6.1.99-1\n' "$head" >"$dir/state"
	git -C "$PORT_TREE" checkout -q -f --detach "$head"
	git -C "$PORT_TREE" am -3 "$dir"/series/0002-*.patch >/dev/null 2>&1 || true
	[ -d "$PORT_TREE/.git/rebase-apply" ]
	touch "$PORT_TREE/.git/index.lock"
	echo half >"$PORT_TREE/kernel/new.c"
	printf 'pid 4242, started 2026-01-01 00:00:00\nphase=apply\n' >"$dir/port.run"
	port --continue 6.1 6.12
	[ "$status" -eq 0 ]
	[ "$(grep -c 'cleaning up' <<<"$output")" -eq 1 ]
	[[ $output == *"port: cleaning up an interrupted run (pid 4242, started 2026-01-01 00:00:00): removed the stale lock linux/.git/index.lock; dropped the git am in progress in linux"* ]]
	[[ $output == *"replayed the recorded resolution of kernel/sysctl.c"* ]]
	diff -r "$BATS_TEST_TMPDIR/before" "$WF_TOP/patches/6.12"
	[ ! -e "$dir/port.run" ]
	[ -z "$(git -C "$PORT_TREE" status --porcelain)" ]

	# A stop at a conflict (none recorded now) is the user's: a new port
	# refuses to drop it, naming the commands.
	rm -r "$WF_TOP/patches/6.12/port/rr-cache"
	stopped_at_conflict
	resolve
	port 6.1 6.12
	[ "$status" -eq 1 ]
	[[ ${lines[-1]} == "port: error: the port from 6.1 to 6.12 is stopped at patches/6.1/0002-sysctl-Initialise-two.patch in $PORT_TREE, for you to resolve: continue it with 'make port FROM=6.1 TO=6.12 CONTINUE=1', drop it with 'ABORT=1', or start again with 'FORCE=1'" ]]
	[ -d "$PORT_TREE/.git/rebase-apply" ]
	grep -qx 'long two = 2;' "$PORT_TREE/kernel/sysctl.c"
	# Killed while --continue committed the user's resolution (before the
	# commit): the resolution is kept, and so is the am.
	git -C "$PORT_TREE" add -f kernel/sysctl.c
	touch "$PORT_TREE/.git/index.lock"
	printf 'pid 4242, started 2026-01-01 00:00:00\nphase=continue\n' >"$dir/port.run"
	port 6.1 6.12
	[ "$status" -eq 1 ]
	[[ $output == *"port: cleaning up an interrupted run (pid 4242, started 2026-01-01 00:00:00): removed the stale lock linux/.git/index.lock; kept the git am stopped at patches/6.1/0002-sysctl-Initialise-two.patch (yours) in $PORT_TREE"* ]]
	[[ ${lines[-1]} == "port: error: the port from 6.1 to 6.12 is stopped at "* ]]
	[ -d "$PORT_TREE/.git/rebase-apply" ]
	[ "$(git -C "$PORT_TREE" show :kernel/sysctl.c | sed -n 4p)" = 'long two = 2;' ]
	# ABORT=1 drops it; patches/6.12 stays as it was.
	port --abort 6.1 6.12
	[ "$status" -eq 0 ]
	[[ ${lines[-1]} == "port: dropped the port from 6.1 to 6.12 (stopped at patches/6.1/0002-sysctl-Initialise-two.patch) in $PORT_TREE; patches/6.12/ is unchanged" ]]
	[ ! -d "$PORT_TREE/.git/rebase-apply" ]
	[ -z "$(git -C "$PORT_TREE" status --porcelain)" ]
	diff -r "$BATS_TEST_TMPDIR/before/" "$WF_TOP/patches/6.12/" -x rr-cache
}

@test "port: a run killed while it started the port is dropped and the port started again" {
	ported_with_resolution
	cp -r "$WF_TOP/patches/6.12" "$BATS_TEST_TMPDIR/before"
	dir=$WF_CACHE/port/6.1..6.12
	# Killed in start_port: the state says setup, the series half-copied.
	printf 'status=setup\n' >"$dir/state"
	rm -f "$dir"/series/0003-*.patch
	printf 'pid 4242, started 2026-01-01 00:00:00\nphase=setup\n' >"$dir/port.run"
	port 6.1 6.12
	[ "$status" -eq 0 ]
	[[ $output == *"port: cleaning up an interrupted run (pid 4242, started 2026-01-01 00:00:00): dropped its half-made start of the port"* ]]
	[[ $output == *"replayed the recorded resolution of kernel/sysctl.c"* ]]
	diff -r "$BATS_TEST_TMPDIR/before" "$WF_TOP/patches/6.12"
	[ ! -e "$dir/port.run" ]
}

@test "port: a clean port killed before it made its tree leaves a marker only; the next run cleans that up and ports" {
	dir=$WF_CACHE/port/6.1..6.12
	mkdir -p "$dir"
	printf 'pid 4242, started 2026-01-01 00:00:00\nphase=setup\n' >"$dir/port.run"
	[ ! -e "$PORT_TREE" ]
	port 6.1 6.12
	[ "$status" -eq 0 ]
	[[ $output == *"port: cleaning up an interrupted run (pid 4242, started 2026-01-01 00:00:00)"* ]]
	[[ $output == *"port: wrote patches/6.12/ (3 patch file(s) changed)"* ]]
	[ ! -e "$dir/port.run" ]
}

@test "port: a run killed after it committed the user's resolution keeps the commit and goes on" {
	ported_with_resolution
	cp -r "$WF_TOP/patches/6.12" "$BATS_TEST_TMPDIR/before"
	dir=$WF_CACHE/port/6.1..6.12
	# Stopped at the conflict again (the recorded resolution set aside),
	# resolved; --continue killed right after its git am --continue made
	# the commit: the state still says stopped.
	mv "$WF_TOP/patches/6.12/port/rr-cache" "$BATS_TEST_TMPDIR/rr-cache"
	port -f 6.1 6.12
	[ "$status" -eq 1 ]
	[ -d "$PORT_TREE/.git/rebase-apply" ]
	resolve
	git -C "$PORT_TREE" add -f kernel/sysctl.c
	git -C "$PORT_TREE" am --continue >/dev/null
	grep -q '^status=stopped$' "$dir/state"
	printf 'pid 4242, started 2026-01-01 00:00:00\nphase=continue\n' >"$dir/port.run"
	port --continue 6.1 6.12
	[ "$status" -eq 0 ]
	[[ $output == *"port: cleaning up an interrupted run (pid 4242, started 2026-01-01 00:00:00): kept your resolution of patches/6.1/0002-sysctl-Initialise-two.patch, committed"* ]]
	[[ $output == *"1 as they were, 1 through a 3-way merge, 0 with a recorded resolution, 1 resolved by hand"* ]]
	diff -r "$BATS_TEST_TMPDIR/before" "$WF_TOP/patches/6.12" -x rr-cache
	[ -z "$(git -C "$PORT_TREE" status --porcelain)" ]
}

@test "port: a run killed while folding the fixups drops its rebase and folds them again" {
	ported_with_saved_fixup
	[[ $output == *"; 1 fixup(s)"* ]]
	cp -r "$WF_TOP/patches/6.12" "$BATS_TEST_TMPDIR/before"
	dir=$WF_CACHE/port/6.1..6.12
	# Killed in apply_fixups: the series applied, the fixups' rebase
	# stopped half-way in the tree.
	tip=$(git -C "$PORT_TREE" rev-parse refs/port/applied)
	sed -i 's/^status=.*/status=applied/; /^result=/d' "$dir/state"
	echo "tip=$tip" >>"$dir/state"
	git -C "$PORT_TREE" checkout -q -f --detach "$tip"
	git -C "$PORT_TREE" am -q "$dir"/fixups/*.patch
	GIT_SEQUENCE_EDITOR="sed -i 's/^pick/edit/'" git -C "$PORT_TREE" rebase -q -i refs/port/to-base >/dev/null 2>&1
	[ -d "$PORT_TREE/.git/rebase-merge" ]
	printf 'pid 4242, started 2026-01-01 00:00:00\nphase=fixups\n' >"$dir/port.run"
	port --continue 6.1 6.12
	[ "$status" -eq 0 ]
	[[ $output == *"port: cleaning up an interrupted run (pid 4242, started 2026-01-01 00:00:00): dropped the rebase of the fixups in linux"* ]]
	[[ $output == *"; 1 fixup(s)"* ]]
	diff -r "$BATS_TEST_TMPDIR/before" "$WF_TOP/patches/6.12"
	[ ! -d "$PORT_TREE/.git/rebase-merge" ]
	[ -z "$(git -C "$PORT_TREE" status --porcelain)" ]
}

@test "port: FORCE=1 starts a stopped port again" {
	stopped_at_conflict
	resolve
	port -f 6.1 6.12
	[ "$status" -eq 1 ]
	[[ $output == *"port: discarded (FORCE=1) the port from 6.1 to 6.12 (stopped at patches/6.1/0002-sysctl-Initialise-two.patch)"* ]]
	[[ ${lines[-1]} != *"is stopped at"* ]]
	[[ $output == *"port: error: patches/6.1/0002-sysctl-Initialise-two.patch does not apply on base/6.1.99-1: conflicts in kernel/sysctl.c"* ]]
	grep -q '^<<<<<<<' "$PORT_TREE/kernel/sysctl.c"
}

@test "port: FORCE=1 after the user's git am --continue, before the patches are saved, keeps the resolution" {
	stopped_at_conflict
	resolve
	git -C "$PORT_TREE" add -f kernel/sysctl.c
	git -C "$PORT_TREE" am --continue >/dev/null
	# FORCE=1 instead of CONTINUE=1: rerere recorded the resolution.
	port -f 6.1 6.12
	[ "$status" -eq 0 ]
	[[ $output == *"replayed the recorded resolution of kernel/sysctl.c"* ]]
	grep -q '^+long two = 2;$' "$WF_TOP/patches/6.12/0002-sysctl-Initialise-two.patch"
	grep -qx 'long two = 2;' "$WF_TOP"/patches/6.12/port/rr-cache/*/postimage
}

@test "port: started again after a CONTINUE=1 killed before the patches were saved, it keeps the resolution" {
	stopped_at_conflict
	resolve
	git -C "$PORT_TREE" add -f kernel/sysctl.c
	git -C "$PORT_TREE" am --continue >/dev/null
	# The CONTINUE=1 was killed while it applied patch 3, then the user
	# started the port again.
	dir=$WF_CACHE/port/6.1..6.12
	sed -i "s/^status=.*/status=applying/; s/^next=.*/next=3/; s/^head=.*/head=$(git -C "$PORT_TREE" rev-parse HEAD)/" "$dir/state"
	printf 'pid 4242, started 2026-01-01 00:00:00\nphase=continue\n' >"$dir/port.run"
	port 6.1 6.12
	[ "$status" -eq 0 ]
	[[ $output == *"replayed the recorded resolution of kernel/sysctl.c"* ]]
	grep -q '^+long two = 2;$' "$WF_TOP/patches/6.12/0002-sysctl-Initialise-two.patch"
	grep -qx 'long two = 2;' "$WF_TOP"/patches/6.12/port/rr-cache/*/postimage
}

@test "port: ABORT=1 and FORCE=1 on a port whose tree was removed by hand" {
	stopped_at_conflict
	rm -rf "$PORT_TREE"
	port --abort 6.1 6.12
	[ "$status" -eq 0 ]
	[[ $output == *"port: dropped the port from 6.1 to 6.12 (stopped at patches/6.1/0002-sysctl-Initialise-two.patch); patches/6.12/ is unchanged"* ]]
	grep -qx 'status=none' "$WF_CACHE/port/6.1..6.12/state"
	stopped_at_conflict
	rm -rf "$PORT_TREE"
	port -f 6.1 6.12
	[ "$status" -eq 1 ]
	[[ $output == *"port: discarded (FORCE=1) the port from 6.1 to 6.12"* ]]
	[[ $output == *"port: error: patches/6.1/0002-sysctl-Initialise-two.patch does not apply on base/6.1.99-1: conflicts in kernel/sysctl.c"* ]]
}

@test "port: refuses while another port holds its lock, and changes nothing" {
	cp -r "$WF_TOP" "$BATS_TEST_TMPDIR/top-before"
	lock=$WF_CACHE/port/6.1..6.12/port.lock
	hold_lock "$lock"
	cache=$(find "$WF_CACHE" | sort)
	run "$TOOLS/port.sh" 6.1 6.12
	release_lock
	refused_by_lock port "$lock"
	diff -r "$BATS_TEST_TMPDIR/top-before" "$WF_TOP"
	# (no port tree, no 6.12 branch, no marker of a run)
	[ "$(find "$WF_CACHE" | sort)" = "$cache" ]
	[ ! -e "$PORT_TREE" ]
}
