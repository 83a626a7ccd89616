#!/usr/bin/env bash
# The full-disk row of dev/faults.sh.  Sourced, never run.
#
# full-disk is not a kill row: validate, then stress, run with the
# directory they write to on a small tmpfs that fills up.  Validate: its
# build directories ($WF_CACHE/validate/build), FAULTS_FULL_DISK_SIZE
# (default 64m, which a kernel build outgrows midway); stress: its output
# directory, FAULTS_FULL_DISK_STRESS_SIZE (default 4m, less than the
# initramfs it writes there).  Each run must be an infrastructure error
# (validate exits 3, stress 2: neither a pass nor a failure of the
# kernel), named in one line per result ("infrastructure error: ... no
# space left on device in DIR"), and keep no result; with the tmpfs gone,
# the next run must give the result of an uninterrupted run.  Then
# validate once more with the whole WF_CACHE on a tmpfs that has
# FAULTS_FULL_DISK_CACHE_SIZE left (default 64m, less than a checkout of
# the kernel): the same infrastructure error, and with the room back the
# next run in that cache gives validate's result.  Mounting needs root:
# without it the row says so and counts as not run.
# shellcheck shell=bash

FULL_DISK_MNT=''

# unmount_full_disk: the row's tmpfs, if one is mounted; lazily when it
# is busy (killed, the command's processes may still be ending).
unmount_full_disk() {
	[[ -z $FULL_DISK_MNT ]] || umount "$FULL_DISK_MNT" 2>/dev/null ||
		umount -l "$FULL_DISK_MNT" 2>/dev/null || true
	FULL_DISK_MNT=''
}

# full_disk_validate ERR STATUS: validate's run on the full disk (its
# stderr ERR, its exit STATUS) was the infrastructure error it must be:
# prints how many results it named; else prints why not and fails.
full_disk_validate() {
	local json=$FAULTS/validate-out/results.json err=$1 rc=$2 infra commit r log
	[[ $rc -eq 3 ]] || { echo "exit $rc, not 3"; return 1; }
	infra=$(jq .infra "$json")
	[[ $infra -ge 1 ]] || { echo "no infrastructure error in results.json"; return 1; }
	[[ $(jq .failed "$json") -eq 0 ]] || { echo "$(jq .failed "$json") result(s) failed"; return 1; }
	# Each in one line of its own, and none kept in the result cache.
	while read -r commit r log; do
		grep -qxE "validate: infrastructure error: ${commit:0:12} $r: no space left on device in /.*" "$err" ||
			{ echo "no line names ${commit:0:12} $r"; return 1; }
		[[ $log == - || ! -e ${log%/*}/status ]] || { echo "kept ${log%/*}"; return 1; }
	done < <(jq -r '.commits[] | .commit as $c | .results | to_entries[] |
		select(.value.status == "infra") | "\($c) \(.key) \(if .value.log == "" then "-" else .value.log end)"' "$json")
	echo "$infra result(s) named"
}

# full_disk_stress ERR STATUS: the same for stress ("named").
full_disk_stress() {
	local err=$1 rc=$2
	[[ $rc -eq 3 ]] || { echo "exit $rc, not 3"; return 1; }
	[[ ! -e $FAULTS/stress-out/summary.txt ]] || { echo "kept $FAULTS/stress-out/summary.txt"; return 1; }
	grep -qxE 'stress: infrastructure error: no space left on device in /.*' "$err" ||
		{ echo "no line names it"; return 1; }
	echo named
}

# full_disk_mount MNT DIR ENTRY [OPTION...]: mount the row's tmpfs on MNT
# (mount's OPTIONs, its errors in DIR/mount.err); when it cannot, append
# ENTRY's "not run" to FULL_OUT, set FULL_SHORT=1 and fail.
full_disk_mount() {
	local mnt=$1 dir=$2 entry=$3
	shift 3
	mkdir -p "$mnt"
	if ! mount -t tmpfs "$@" faults-full-disk "$mnt" 2>"$dir/mount.err"; then
		FULL_OUT+=("$entry|-|not run: cannot mount a tmpfs on $mnt (root?)|-")
		FULL_SHORT=1
		return 1
	fi
	FULL_DISK_MNT=$mnt
}

# full_disk_judge ROW DIR RC: FULL_HOW, what ROW's run on the full disk
# (its stderr DIR/full.err, its exit RC) was: the answer of full_disk_ROW,
# or "NOT AN INFRASTRUCTURE ERROR: ..." and FULL_SHORT=1.
full_disk_judge() {
	# shellcheck disable=SC2310 # its status is the answer: the infrastructure error it must be
	if ! FULL_HOW=$("full_disk_$1" "$2/full.err" "$3"); then
		FULL_HOW="NOT AN INFRASTRUCTURE ERROR: $FULL_HOW (see $2/full.err)"
		FULL_SHORT=1
	fi
}

# full_disk_next ROW DIR REF CACHE ENTRY CMD...: the run after the full
# disk, with room again: CMD, and ROW's result of it (the paths of CACHE
# read as the faults cache's) compared with the file REF; appends
# "ENTRY|FULL_HOW|identical" (or why not) to FULL_OUT, FULL_SHORT=1 when
# it was not.
full_disk_next() {
	local row=$1 dir=$2 ref=$3 cache=$4 entry=$5 next=identical
	shift 5
	if ! "$@" >"$dir/next.out" 2>"$dir/next.err"; then
		next="FAILED (see $dir/next.err)"
	else
		# shellcheck disable=SC2310 # its output, errors too, is the answer: compared with the reference
		{ run_fn "$row" result "$dir/next.out" 2>&1 || true; } | sed "s|$cache|$WF_CACHE_ROOT|g" >"$dir/next.result"
		diff "$dir/next.result" "$ref" >"$dir/next.diff" || next="DIFFERENT (see $dir/next.diff)"
	fi
	# shellcheck disable=SC2034 # read by dev/faults.sh
	[[ $next == identical ]] || FULL_SHORT=1
	FULL_OUT+=("$entry|$FULL_HOW|$next")
}

# full_disk_case ROW DIR SIZE: ROW's reference run, its run with DIR on a
# tmpfs of SIZE, and the run after; appends to FULL_OUT; sets
# FULL_SHORT=1 when a run was not what it must be.
full_disk_case() {
	local row=$1 mnt=$2 size=$3 dir=$FAULTS/full-disk/$1 rc=0
	rm -rf "$dir"
	mkdir -p "$dir"
	run_fn "$row" setup
	run_fn "$row" cmd
	run_fn "$row" prepare
	"${CMD[@]}" >"$dir/reference.out" 2>"$dir/reference.err" ||
		die "the uninterrupted run of $row failed (see $dir/reference.err)"
	run_fn "$row" result "$dir/reference.out" >"$dir/reference.result"
	# shellcheck disable=SC2310 # its status is the answer: the tmpfs is there
	full_disk_mount "$mnt" "$dir" "$row|$size" -o "size=$size" || return 0
	info "full disk: $row with $mnt on a tmpfs of $size"
	run_fn "$row" prepare
	"${CMD[@]}" >"$dir/full.out" 2>"$dir/full.err" || rc=$?
	full_disk_judge "$row" "$dir" "$rc"
	unmount_full_disk
	run_fn "$row" prepare
	full_disk_next "$row" "$dir" "$dir/reference.result" "$WF_CACHE_ROOT" "$row|$size|$rc" "${CMD[@]}"
}

# fill_up DIR SIZE: leave SIZE (64k, 16m, 1g) free on the tmpfs mounted
# on DIR: its size shrunk to what it holds plus SIZE (a tmpfs is mounted
# with half the memory: filling that up would allocate it).
fill_up() {
	local dir=$1 keep used
	keep=$(numfmt --from=iec "${2^^}") || die "FAULTS_FULL_DISK_CACHE_SIZE '$2' is not a size"
	used=$(($(stat -f -c '(%b - %f) * %S' "$dir")))
	mount -o "remount,size=$((used + keep))" "$dir" || die "cannot shrink the tmpfs $dir to $((used + keep)) bytes"
}

# room_back DIR: the tmpfs on DIR back to its default size.
room_back() {
	mount -o remount,size=50% "$1" || die "cannot give the tmpfs $1 its room back"
}

# full_disk_cache_case SIZE: validate with the whole WF_CACHE on a tmpfs
# with SIZE free: the branch's repository copied there (its objects
# borrowed from the faults cache's repository), all the rest made by
# validate (its worktree, builds, results).  After validate's case, whose
# reference result the next run must give (the paths of its cache read
# as the faults cache's).
full_disk_cache_case() {
	local size=$1 dir=$FAULTS/full-disk/validate-cache mnt rc=0 repo entry
	local -a run
	rm -rf "$dir"
	mkdir -p "$dir"
	mnt=$dir/cache
	entry="validate, whole cache|$size free"
	# shellcheck disable=SC2310 # its status is the answer: the tmpfs is there
	full_disk_mount "$mnt" "$dir" "$entry" || return 0
	repo=$mnt/branches/$TOPIC_ID/linux
	{ git clone -q --mirror --shared "$WF_REPO" "$repo/.git" && git -C "$repo" config core.bare false; } ||
		die "cannot copy $WF_REPO onto the tmpfs $mnt"
	fill_up "$mnt" "$size"
	info "full disk: validate with the whole cache on a tmpfs with $size free"
	run_fn validate cmd
	# validate as the row runs it, in that cache (ccache stays the faults
	# cache's)
	run=(env "WF_CACHE=$mnt" "WF_CACHE_ROOT=$mnt" "CCACHE_DIR=$CCACHE_DIR" "${CMD[@]}")
	"${run[@]}" >"$dir/full.out" 2>"$dir/full.err" || rc=$?
	full_disk_judge validate "$dir" "$rc"
	room_back "$mnt"
	full_disk_next validate "$dir" "$FAULTS/full-disk/validate/reference.result" "$mnt" "$entry|$rc" "${run[@]}"
	unmount_full_disk
}

# run_full_disk: the full-disk cases of validate and stress.
run_full_disk() {
	trap unmount_full_disk EXIT
	full_disk_case validate "$WF_CACHE/validate/build" "${FAULTS_FULL_DISK_SIZE:-64m}"
	full_disk_case stress "$FAULTS/stress-out" "${FAULTS_FULL_DISK_STRESS_SIZE:-4m}"
	full_disk_cache_case "${FAULTS_FULL_DISK_CACHE_SIZE:-64m}"
	trap - EXIT
}
