#!/usr/bin/env bash
# Fault injection: kill each command that changes state at random moments
# and check that its next run recovers by itself and gives the result of
# an uninterrupted run.
#
#   tools/faults.sh [-s SEED] [-k KILLS] [-n] [-a] [COMMAND...]
#
# COMMAND: rebuild, base, export, other-base, bisect, port, validate,
# stress, submit, send, full-disk (default: all, in that order).
# full-disk is validate and stress on a full disk (see "a full disk"
# below).  For each other: after a first run that warms the cache up (-n:
# none, the cache is warm), an uninterrupted run gives the reference result
# (commit ids, tree of files, printed result) and its duration; then
# KILLS times (default 20): start the command in a process group of its
# own, send SIGKILL, SIGTERM or SIGINT (chosen by the seed) to the group
# after a random delay within that duration, wait until the group is
# gone, run the command again normally and compare its result with the
# reference.  A run that ended before the signal is not counted (and is
# tried again, up to 3 x KILLS times, with the delays drawn within at
# most 3/4 of the range that missed).  Prints the table
#   command | kills | recovered | identical
# (recovered: the next run succeeded; identical: and gave the reference
# result, with no scratch state left behind) and exits 1 when a row is
# short.  SEED and KILLS may also come from the environment.
#
# -a aims the kills at the phases of the command's own run marker
# ($WF_CACHE/<command>.run, "phase=..."; see tools/lib-run.sh) instead of the
# whole run: the reference run is watched to learn each phase's length,
# and kill number i waits until its run is in phase i mod (number of
# phases), then sleeps a random delay within that phase's length.  A run
# that is past the phase before it was seen counts as ended before the
# signal.  A command with no marker (validate) is killed at random.
#
# The cache is $WF_CACHE when it is set, else ~/.cache/sysctl-wf-faults:
# never the workflow's own cache unless WF_CACHE names it.  The commands
# work on a copy of branches.txt and the patch directory
# ($WF_CACHE/faults/top), never on the checkout's.  Logs: $WF_CACHE/faults.
#
# A row is four functions, row_<name>_setup (once), row_<name>_prepare
# (before every run: give the command work to do), row_<name>_cmd (sets
# CMD) and row_<name>_result (prints what must be identical; $1 is the
# run's stdout), and optionally row_<name>_teardown (once, at the end).
#
# validate and stress run as the environment says: on the real series
# they build kernels (CHECKS= limits validate's checks; stress boots the
# debug kernel with small counts), on the fixture of tests/faults-fixture.sh
# (eval "$(tests/faults-fixture.sh DIR)") they use the fixture kernel of
# tests/fixtures/validate (WF_TEST_VALIDATE_BOOT) and the fixture guest of
# tests/fixtures/stress (WF_TEST_STRESS_RUN, WF_TEST_STRESS_MKINITRAMFS,
# FAULTS_STRESS_KERNEL).  submit and send use FORCE (the preflight is not
# what they test) and the sender FAULTS_SENDER; send sends to a local SMTP
# server of its own (tests/fixtures/send/smtp-server.py, aiosmtpd), and
# its result is what that server received.
set -euo pipefail
if [[ -z ${WF_CACHE:-} ]]; then
	WF_CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/sysctl-wf-faults
fi
export WF_CACHE
unset WF_REPO
unset WF_REBUILD_TREE WF_OTHER_TREE WF_BISECT_TREE WF_TEST_NO_RECOVERY_ONCE
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/lib.sh"

FAULTS=$WF_CACHE/faults
ALL_ROWS=(rebuild base export other-base bisect port validate stress submit send full-disk)
SIGNALS=(KILL TERM INT)

usage() {
	echo "usage: $0 [-s SEED] [-k KILLS] [-n] [-a] [${ALL_ROWS[*]}]..." >&2
	exit 2
}

# ------------------------------------------------------------------ the rows

# leftovers: the scratch state the tools keep only while they run; after
# a run that succeeded, none of it may be there.
leftovers() {
	local f gitdir
	for f in "$WF_CACHE"/*.run "$WF_CACHE"/base-import* \
		"$WF_REPO.init" "$WF_CACHE/other-base/tmp" "$WF_CACHE/bisect/bisect.log.tmp" \
		"$WF_TOP"/.*.export-* "$WF_CACHE"/b4/linux.new.* "$WF_CACHE"/b4/linux.out.* \
		"$WF_OUT"/submit/.*.submit-* "$WF_OUT"/submit/*/sending* \
		"$WF_CACHE/send-tmp" "$WF_COVERS"/sent/.*.tmp \
		"$WF_CACHE/validate/results/tmp" "$FAULTS/stress-out/summary.txt.tmp" \
		"$WF_CACHE"/stress/results/.tmp-*; do
		[[ -e $f ]] && printf 'left: %s\n' "$f"
	done
	gitdir=$WF_CACHE/b4/linux/.git
	if [[ -d $gitdir ]]; then
		find "$gitdir" -name '*.lock' -printf 'left: %p\n'
		for f in rebase-apply rebase-merge; do
			[[ -e $gitdir/$f ]] && printf 'left: %s\n' "$gitdir/$f"
		done
		git -C "${gitdir%/.git}" status --porcelain --untracked-files=no | sed 's/^/b4 repo changed: /'
	fi
	[[ -d $WF_REPO/.git ]] || return 0
	repo_git worktree list --porcelain | sed -n 's/^worktree /worktree: /p'
	while read -r gitdir; do
		for f in index.lock HEAD.lock rebase-apply rebase-merge BISECT_START; do
			[[ -e $gitdir/$f ]] && printf 'left: %s\n' "$gitdir/$f"
		done
	done < <(printf '%s\n' "$WF_REPO/.git" "$WF_REPO"/.git/worktrees/*)
	return 0
}

topic_ref() {
	printf 'refs/heads/%s\n' "$TOPIC_NAME"
}

# ensure_branch: the base and the topic branch exist in the cache repo.
ensure_branch() {
	# shellcheck disable=SC2310 # repo_git is one git command, topic_ref one printf
	repo_git rev-parse -q --verify "$(topic_ref)" >/dev/null 2>&1 && return 0
	"$WF_HOME/tools/rebuild.sh" -f >/dev/null 2>&1 || die "cannot rebuild the branch in $WF_CACHE"
}

row_base_setup() { :; }
row_base_prepare() {
	[[ -d $WF_REPO/.git ]] || return 0
	# shellcheck disable=SC2310 # repo_git is one git command
	repo_git update-ref -d "$BASE_REF" 2>/dev/null || true
}
row_base_cmd() { CMD=("$WF_HOME/tools/base.sh"); }
row_base_result() {
	printf 'base: %s\n' "$(repo_git rev-parse -q --verify "$BASE_REF")"
	leftovers
}

row_rebuild_setup() { "$WF_HOME/tools/base.sh" >/dev/null 2>&1 || die "cannot import the base in $WF_CACHE"; }
# The work tree goes back to the base, so that every run checks the
# branch out again.
row_rebuild_prepare() {
	# shellcheck disable=SC2310 # repo_git is one git command
	repo_git checkout -q -f --detach "$BASE_REF" 2>/dev/null || true
}
row_rebuild_cmd() { CMD=("$WF_HOME/tools/rebuild.sh"); }
row_rebuild_result() {
	printf 'branch: %s\n' "$(repo_git rev-parse "$(topic_ref)")"
	printf 'exported: %s\n' "$(repo_git rev-parse refs/wf/exported)"
	# shellcheck disable=SC2310 # repo_git is one git command
	printf 'HEAD: %s\n' "$(repo_git symbolic-ref -q HEAD || echo detached)"
	repo_git status --porcelain | sed 's/^/changed: /'
	leftovers
}

row_export_setup() { ensure_branch; }
# A stale patch file and none of the right ones: everything is rewritten.
row_export_prepare() {
	local dir=$WF_TOP/$TOPIC_PATCHDIR
	# An unrecovered kill (WF_TEST_NO_RECOVERY) can leave no directory.
	mkdir -p "$dir"
	find "$dir" -maxdepth 1 -name '*.patch' -delete
	echo stale >"$dir/9999-stale.patch"
}
row_export_cmd() { CMD=("$WF_HOME/tools/export.sh"); }
row_export_result() {
	(cd "$WF_TOP/$TOPIC_PATCHDIR" && find . -type f | LC_ALL=C sort | xargs -r sha256sum)
	printf 'exported: %s\n' "$(repo_git rev-parse refs/wf/exported)"
	leftovers
}

# other-base: the topic's own tarball under another version, imported
# again on every run; the "build" only checks the worktree.
row_other_base_setup() {
	ensure_branch
	OTHER_VERSION=$(package_version)+faults
	OTHER_REF=$(base_ref "$OTHER_VERSION")
	mkdir -p "$FAULTS/other"
	[[ -e $FAULTS/other/$TOPIC_PACKAGE.tar.xz ]] || cp "$TOPIC_TARBALL" "$FAULTS/other/"
	# shellcheck disable=SC2016 # expanded by other-base.sh
	export WF_TEST_OTHER_BUILD='test -z "$(git -C "$SRC" status --porcelain)"'
}
row_other_base_prepare() {
	# shellcheck disable=SC2310 # repo_git is one git command
	repo_git update-ref -d "$OTHER_REF" 2>/dev/null || true
}
row_other_base_cmd() {
	CMD=("$WF_HOME/tools/other-base.sh" -V "$OTHER_VERSION" "$FAULTS/other/$TOPIC_PACKAGE.tar.xz")
}
row_other_base_result() {
	cat "$1"
	printf 'base: %s\n' "$(repo_git rev-parse -q --verify "$OTHER_REF")"
	printf 'tree: %s\n' "$(git -C "$WF_CACHE/other-base/linux" rev-parse HEAD 2>/dev/null)"
	leftovers
}

# bisect: a "boot" that fails from the middle commit of the series on,
# and a build that always works, so that no kernel is built.
row_bisect_setup() {
	local n
	ensure_branch
	n=$(repo_git rev-list --count "$BASE_REF..$(topic_ref)")
	[[ $n -ge 2 ]] || die "bisect needs 2 or more commits on $TOPIC_NAME, it has $n"
	FAULTS_BISECT_BAD=$(repo_git rev-parse "$(topic_ref)~$((n / 2))")
	export FAULTS_BISECT_BAD WF_TEST_BISECT_BUILD=true
	# shellcheck disable=SC2016 # expanded by bisect-run.sh
	export WF_TEST_BISECT_BOOT='! git -C "$SRC" merge-base --is-ancestor "$FAULTS_BISECT_BAD" HEAD'
	export OUT=$FAULTS/bisect-out
}
row_bisect_prepare() { :; }
row_bisect_cmd() { CMD=("$WF_HOME/tools/bisect-run.sh" start "$BASE_REF" "$(topic_ref)"); }
row_bisect_result() {
	tail -n 1 "$1"
	sha256sum <"$WF_CACHE/bisect/bisect.log"
	leftovers
}

# port: the topic's series ported onto a second topic of the copy of
# branches.txt, faults-port, on the same package (so every patch applies
# as it is: the kills land in the am, the save of the patches, the
# range-diff and the rebuild of faults-port); every run ports again from
# the start.
row_port_setup() {
	ensure_branch
	grep -q '^topic faults-port ' "$WF_BRANCHES" ||
		printf 'topic faults-port %s-port %s any patches-faults-port\n' "$TOPIC_NAME" "$TOPIC_PACKAGE" >>"$WF_BRANCHES"
	PORT_DIR=$WF_CACHE_ROOT/port/$TOPIC_ID..faults-port
}
row_port_prepare() { :; }
row_port_marker() { MARKER=$PORT_DIR/port.run; }
row_port_cmd() { CMD=("$WF_HOME/tools/port.sh" "$TOPIC_ID" faults-port); }
row_port_result() {
	local f gitdir=$PORT_DIR/linux/.git
	(cd "$WF_TOP/patches-faults-port" && find . -type f | LC_ALL=C sort | xargs -r sha256sum)
	sha256sum <"$WF_TOP/out/port/$TOPIC_ID..faults-port.txt"
	printf 'branch: %s\n' "$(git -C "$WF_CACHE_ROOT/branches/faults-port/linux" rev-parse "refs/heads/$TOPIC_NAME-port")"
	grep '^status=' "$PORT_DIR/state"
	for f in "$PORT_DIR"/*.run "$PORT_DIR"/*.tmp "$PORT_DIR"/*.new "$PORT_DIR/rr-keep" "$PORT_DIR/trim" \
		"$PORT_DIR/linux.init" "$WF_TOP"/.patches-faults-port.port-* "$WF_TOP"/out/port/*.tmp \
		"$gitdir/rebase-apply" "$gitdir/rebase-merge" "$WF_CACHE_ROOT"/branches/faults-port/*.run; do
		[[ -e $f ]] && printf 'left: %s\n' "$f"
	done
	find "$gitdir" -path "$gitdir/objects" -prune -o -name '*.lock' -printf 'left: %p\n'
	git -C "$PORT_DIR/linux" status --porcelain | sed 's/^/port tree changed: /'
	leftovers
}

# validate: every result computed again on every run (the result cache
# emptied; the build directories stay, incremental).
row_validate_setup() { ensure_branch; }
row_validate_prepare() { rm -rf "$WF_CACHE/validate/results"; }
row_validate_cmd() {
	CMD=("$WF_HOME/runner/validate.sh" -o "$FAULTS/validate-out")
	[[ -z ${CHECKS:-} ]] || CMD+=(-c "$CHECKS")
	[[ -z ${VALIDATE_RANGE:-} ]] || CMD+=("$VALIDATE_RANGE")
}
# The results without "cached" (a re-run takes what the killed run
# finished from the cache) and the report's table without its marks.
row_validate_result() {
	jq -S 'del(.. | .cached?)' "$FAULTS/validate-out/results.json"
	sed -nE 's/\*//g; s/ +/ /g; /^[0-9]+ [0-9a-f]+ /p' "$FAULTS/validate-out/report.txt"
	leftovers
}

# stress: small counts, run again every time (-f: not the kept result);
# FAULTS_STRESS_KERNEL (-k) boots that kernel instead of building the
# debug config.  The table's first three columns (the
# figures hold times).
row_stress_setup() { ensure_branch; }
row_stress_prepare() { :; }
row_stress_cmd() {
	CMD=("$WF_HOME/tools/stress.sh" -f -o "$FAULTS/stress-out" -n 2000 -T 1 -t 300)
	[[ -z ${FAULTS_STRESS_KERNEL:-} ]] || CMD+=(-k "$FAULTS_STRESS_KERNEL")
}
row_stress_result() {
	sed -n '1,/^$/p' "$FAULTS/stress-out/summary.txt" | awk '{ print $1, $2, $3 }'
	leftovers
}

# submit: out/<id>/submit/vN written again over the previous one, with a stale
# message in it that must go.  The messages without what b4 makes anew
# each time (Date, the random part of the Message-Ids, X-B4-Tracking, the
# record's "written").
row_submit_setup() {
	ensure_branch
	[[ -n $(find "$WF_COVERS" -maxdepth 1 -name 'v*.txt' 2>/dev/null) ]] || {
		mkdir -p "$WF_COVERS"
		printf 'sysctl: the faults row\n\nA cover letter for tools/faults.sh.\n' >"$WF_COVERS/v1.txt"
	}
	FAULTS_SENDER=${FAULTS_SENDER:-Faults Row <faults@faults.home.arpa>}
}
row_submit_prepare() {
	local d
	for d in "$WF_OUT"/submit/v*/; do
		[[ -d $d ]] && echo stale >"$d/0099-stale.eml"
	done
	return 0
}
row_submit_cmd() { CMD=("$WF_HOME/tools/submit.sh" -f -S "$FAULTS_SENDER"); }
row_submit_result() {
	local f
	(cd "$WF_OUT/submit" && find . -type f | LC_ALL=C sort | while read -r f; do
		printf '%s ' "$f"
		normalize_mail <"$f" | sha256sum
	done)
	leftovers
}

# normalize_mail: a message, record or range-diff without what changes
# from one run of b4 to the next (b4 prep commits the series anew, so a
# range-diff's commit ids are new every run).
normalize_mail() {
	sed -E -e '/^X-B4-Tracking:/,/^[^ \t]/{/^X-B4-Tracking:/d;/^[ \t]/d}' \
		-e 's/^( *[0-9-]+: +)[0-9a-f-]{7,40}( [=!<>] +[0-9-]+: +)[0-9a-f-]{7,40} /\1-\2- /' \
		-e 's/^(Date|written|date): .*/\1: -/' \
		-e 's/[0-9]{8}-([A-Za-z0-9_.-]+-v[0-9]+-[0-9]+)-[0-9a-f]{12}@/-\1-@/g' \
		-e 's/^From MAILER-DAEMON .*/From MAILER-DAEMON/'
}

# send: the revision written once (setup), sent to the row's SMTP server;
# each run starts from nothing received and nothing recorded.
row_send_setup() {
	local i
	row_submit_setup
	"$WF_HOME/tools/submit.sh" -f -S "$FAULTS_SENDER" >"$FAULTS/send-submit.out" 2>&1 ||
		die "cannot write the revision to send (see $FAULTS/send-submit.out)"
	SEND_DIR=$(find "$WF_OUT/submit" -maxdepth 1 -name 'v*' -type d | sort -V | tail -n 1)
	SEND_REV=${SEND_DIR##*/v}
	SEND_MBOX=$FAULTS/send/received.mbox
	rm -f "$FAULTS/send/port"
	/usr/bin/python3 "$WF_HOME/tests/fixtures/send/smtp-server.py" "$SEND_MBOX" "$FAULTS/send/port" \
		>"$FAULTS/send/smtp.log" 2>&1 </dev/null &
	SMTP_PID=$!
	for ((i = 0; i < 100; i++)); do
		[[ -s $FAULTS/send/port ]] && break
		sleep 0.1
	done
	[[ -s $FAULTS/send/port ]] || die "the SMTP server did not start (see $FAULTS/send/smtp.log)"
	SMTP_PORT=$(cat "$FAULTS/send/port")
}
row_send_prepare() {
	rm -f "$SEND_MBOX" "$SEND_DIR/sending" "$SEND_DIR/send.log"
	rm -rf "$WF_COVERS/sent/v$SEND_REV"
}
row_send_cmd() { CMD=("$WF_HOME/tools/send.sh" -f -r "$SEND_REV" -t maintainers -s "127.0.0.1:$SMTP_PORT"); }
row_send_result() {
	normalize_mail <"$SEND_MBOX" | sha256sum | sed 's/^/received: /'
	grep -c '^From MAILER-DAEMON' "$SEND_MBOX" | sed 's/^/messages: /'
	normalize_mail <"$WF_COVERS/sent/v$SEND_REV/record" | sha256sum | sed 's/^/record: /'
	sha256sum <"$WF_COVERS/sent/v$SEND_REV/patches.mbox" | sed 's/^/patches: /'
	leftovers
}
row_send_teardown() { kill "$SMTP_PID" 2>/dev/null || true; }

# send, killed after the final dot of a message and before the server's
# answer, cannot tell whether that message arrived: it asks (ARRIVED=).
# The row answers as a user would, from what its server received, and
# runs it again with -A.
row_send_answer() {
	local eml id
	eml=$(sed -n 's/.* was stopped while the server was taking \([^:]*\.eml\): check whether it arrived.*/\1/p' "$1")
	[[ -n $eml && -e $SEND_DIR/$eml ]] || return 1
	id=$(sed -n 's/^Message-Id: *//Ip' "$SEND_DIR/$eml" | head -n 1)
	[[ -n $id ]] || return 1
	if [[ -e $SEND_MBOX ]] && grep -qiF "Message-Id: $id" "$SEND_MBOX"; then
		ANSWER=(-A yes)
	else
		ANSWER=(-A no)
	fi
}

# ---------------------------------------------------------------- a full disk

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
	[[ $rc -eq 2 ]] || { echo "exit $rc, not 2"; return 1; }
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

# fill_up DIR SIZE: leave SIZE (64k, 16m, 1g) free on DIR's filesystem,
# the rest taken by DIR/filler.
fill_up() {
	local dir=$1 keep avail
	keep=$(numfmt --from=iec "${2^^}") || die "FAULTS_FULL_DISK_CACHE_SIZE '$2' is not a size"
	avail=$(($(stat -f -c '%a * %S' "$dir")))
	[[ $avail -le $keep ]] || fallocate -l $((avail - keep)) "$dir/filler" ||
		die "cannot fill up the tmpfs $dir"
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
	rm -f "$mnt/filler"
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

# ---------------------------------------------------------------- the harness

# run_fn ROW WHAT [ARGS...]: call row_<ROW>_<WHAT>.
run_fn() {
	local row=$1 what=$2
	shift 2
	"row_${row//-/_}_$what" "$@"
}

# start_in_group OUT: start CMD in a process group of its own, with the
# default disposition of SIGINT (a background job of a script ignores
# it); sets PID (also the group id).
start_in_group() {
	# shellcheck disable=SC2016 # perl code
	setsid perl -e '$SIG{INT} = $SIG{QUIT} = "DEFAULT"; exec @ARGV or die "$ARGV[0]: $!\n"' \
		"${CMD[@]}" >"$1" 2>"$1.err" </dev/null &
	PID=$!
}

# wait_group PID: reap the leader, then wait until no process of its
# group is left (SIGKILL after 60 s).
wait_group() {
	local pid=$1 n=0
	{ wait "$pid"; } 2>/dev/null || true
	while kill -0 -- "-$pid" 2>/dev/null; do
		n=$((n + 1))
		[[ $n -eq 1200 ]] && kill -KILL -- "-$pid" 2>/dev/null
		sleep 0.05
	done
}

now_ms() {
	local t=${EPOCHREALTIME/[.,]/}
	printf '%s\n' "$((t / 1000))"
}

# marker_phase FILE: MPHASE is the phase the run marker FILE names (empty:
# none).  Builtins only: it is polled every few milliseconds, also on a
# loaded machine.
marker_phase() {
	local line
	MPHASE=''
	[[ -e $1 ]] || return 0
	{
		while IFS= read -r line; do
			[[ $line == phase=* ]] && MPHASE=${line#phase=} && return 0
		done <"$1"
	} 2>/dev/null
	return 0
}

# leader_alive PID: the process PID runs (not a zombie).  Builtins only.
leader_alive() {
	local stat
	{ read -r stat <"/proc/$1/stat"; } 2>/dev/null || return 1
	stat=${stat##*) }
	[[ ${stat%% *} != Z ]]
}

# watch_phases PID T0: while the process PID runs, note each phase MARKER
# names, in the order seen, into PHASES, and how long the run stayed in
# it (ms; the last one until PID ended) into PHASE_LEN.
watch_phases() {
	local pid=$1 t0=$2 last='' now i
	local -a names=() starts=()
	# shellcheck disable=SC2310 # leader_alive is one test: its status is the answer
	while leader_alive "$pid"; do
		marker_phase "$MARKER"
		if [[ -n $MPHASE && $MPHASE != "$last" ]]; then
			names+=("$MPHASE")
			starts+=($(($(now_ms) - t0)))
			last=$MPHASE
		fi
		nap 0.005
	done
	now=$(($(now_ms) - t0))
	PHASES=() PHASE_LEN=()
	for i in "${!names[@]}"; do
		PHASES+=("${names[i]}")
		if [[ $((i + 1)) -lt ${#names[@]} ]]; then
			PHASE_LEN+=($((starts[i + 1] - starts[i])))
		else
			PHASE_LEN+=($((now - starts[i])))
		fi
		[[ ${PHASE_LEN[-1]} -ge 1 ]] || PHASE_LEN[-1]=1
	done
}

# wait_phase PID NAME INDEX: wait until the run of group PID is in phase
# NAME (the INDEX-th of PHASES); false when the run ended or the marker
# went on to a later phase first.
wait_phase() {
	local pid=$1 name=$2 idx=$3 j
	# shellcheck disable=SC2310 # leader_alive is one test: its status is the answer
	while leader_alive "$pid"; do
		marker_phase "$MARKER"
		[[ $MPHASE == "$name" ]] && return 0
		for ((j = idx + 1; j < ${#PHASES[@]}; j++)); do
			[[ $MPHASE == "${PHASES[j]}" ]] && return 1
		done
		nap 0.005
	done
	return 1
}

# run_row ROW: the reference run, then the kills; appends a row to ROWS_OUT
# and sets SHORT=1 when the row is short.  It relies on set -e (its setup,
# its reference result): call it on its own.
run_row() {
	local row=$1 dir=$FAULTS/$1 t0 dur i kills=0 recovered=0 identical=0 missed=0
	local delay sig rc res p at
	local -a sigs_used=() asked=()
	rm -rf "$dir"
	mkdir -p "$dir"
	run_fn "$row" setup
	run_fn "$row" cmd
	# A first run warms the cache up (worktrees, objects), so that the
	# reference run measures the duration of the runs that get killed.
	if [[ $WARM_UP -eq 1 ]]; then
		run_fn "$row" prepare
		"${CMD[@]}" >"$dir/warm-up.out" 2>"$dir/warm-up.err" ||
			die "the uninterrupted run of $row failed (see $dir/warm-up.err)"
	fi
	MARKER=$WF_CACHE/$row.run
	if declare -F "row_${row//-/_}_marker" >/dev/null; then run_fn "$row" marker; fi
	PHASES=() PHASE_LEN=()
	run_fn "$row" prepare
	t0=$(now_ms)
	if [[ $AIM -eq 1 ]]; then
		"${CMD[@]}" >"$dir/reference.out" 2>"$dir/reference.err" &
		watch_phases $! "$t0"
		wait $! || die "the uninterrupted run of $row failed (see $dir/reference.err)"
	else
		"${CMD[@]}" >"$dir/reference.out" 2>"$dir/reference.err" ||
			die "the uninterrupted run of $row failed (see $dir/reference.err)"
	fi
	dur=$(($(now_ms) - t0))
	run_fn "$row" result "$dir/reference.out" >"$dir/reference.result"
	info "$row: reference run $dur ms; $KILLS kill(s)$([[ $AIM -eq 0 ]] || printf ', aimed at %s' \
		"$(for i in "${!PHASES[@]}"; do printf '%s (%s ms) ' "${PHASES[i]}" "${PHASE_LEN[i]}"; done)")"
	[[ $dur -ge 1 ]] || dur=1
	for ((i = 1; kills < KILLS && i <= 3 * KILLS; i++)); do
		run_fn "$row" prepare
		sig=${SIGNALS[RANDOM % ${#SIGNALS[@]}]}
		if [[ ${#PHASES[@]} -gt 0 ]]; then
			p=$((kills % ${#PHASES[@]}))
			delay=$(((RANDOM * 32768 + RANDOM) % PHASE_LEN[p]))
			at="${PHASES[p]}+$delay ms"
			start_in_group "$dir/$i.killed.out"
			# shellcheck disable=SC2310 # its status is the answer: the phase was seen
			if ! wait_phase "$PID" "${PHASES[p]}" "$p"; then
				# Past the phase: let it end, an uninterrupted run.
				wait_group "$PID"
				missed=$((missed + 1))
				continue
			fi
		else
			delay=$(((RANDOM * 32768 + RANDOM) % dur))
			at="$delay ms"
			start_in_group "$dir/$i.killed.out"
		fi
		sleep "$(printf '%d.%03d' $((delay / 1000)) $((delay % 1000)))"
		if ! kill -s "$sig" -- "-$PID" 2>/dev/null; then
			# It ended before the signal.
			wait_group "$PID"
			missed=$((missed + 1))
			# The runs are faster than the reference: aim a little
			# earlier from now on (within the phase, with -a).
			if [[ ${#PHASES[@]} -gt 0 ]]; then
				PHASE_LEN[p]=$((delay > PHASE_LEN[p] * 3 / 4 ? delay : PHASE_LEN[p] * 3 / 4 + 1))
			else
				dur=$((delay > dur * 3 / 4 ? delay : dur * 3 / 4 + 1))
			fi
			continue
		fi
		wait_group "$PID"
		kills=$((kills + 1))
		sigs_used+=("$sig")
		rc=0
		"${CMD[@]}" >"$dir/$i.out" 2>"$dir/$i.err" || rc=$?
		# A command that cannot know what the kill did asks the user
		# (row_<name>_answer gives the answer): the run with it counts.
		ANSWER=()
		# shellcheck disable=SC2310 # its status is the answer: the question was recognised
		if [[ $rc -ne 0 ]] && declare -F "row_${row//-/_}_answer" >/dev/null &&
			run_fn "$row" answer "$dir/$i.err"; then
			asked+=("$i: ${ANSWER[*]}")
			mv "$dir/$i.err" "$dir/$i.asked.err"
			rc=0
			"${CMD[@]}" "${ANSWER[@]}" >"$dir/$i.out" 2>"$dir/$i.err" || rc=$?
		fi
		[[ $rc -eq 0 ]] && recovered=$((recovered + 1))
		# shellcheck disable=SC2310 # its output, errors too, is the answer: compared with the reference
		res=$(run_fn "$row" result "$dir/$i.out" 2>&1) || true
		if [[ $rc -eq 0 && $res == "$(cat "$dir/reference.result")" ]]; then
			identical=$((identical + 1))
			printf '%s\t%s\t%s\tSIG%s\trecovered%s\tidentical\n' "$row" "$i" "$at" "$sig" "${ANSWER[*]:+ after ${ANSWER[*]}}"
		else
			diff <(printf '%s\n' "$res") "$dir/reference.result" >"$dir/$i.diff" || true
			printf '%s\t%s\t%s\tSIG%s\t%s\t%s\n' "$row" "$i" "$at" "$sig" \
				"$([[ $rc -eq 0 ]] && echo recovered || echo "FAILED (exit $rc, see $dir/$i.err)")" \
				"DIFFERENT (see $dir/$i.diff)"
		fi >>"$FAULTS/log.txt"
	done
	if declare -F "row_${row//-/_}_teardown" >/dev/null; then run_fn "$row" teardown; fi
	ROWS_OUT+=("$row|$kills|$recovered/$kills|$identical/$kills")
	NOTES+=("$row: reference run $dur ms; signals:$(printf '%s\n' "${sigs_used[@]}" | sort | uniq -c |
		awk '$2 != "" { printf " SIG%s x%s", $2, $1 }'); $missed run(s) ended before the signal$(
		[[ ${#asked[@]} -eq 0 ]] || printf '; %s run(s) asked the user, answered from what was done (%s)' \
			"${#asked[@]}" "$(IFS=,; echo "${asked[*]}")")")
	[[ $kills -eq $KILLS && $recovered -eq $kills && $identical -eq $kills ]] || SHORT=1
}

# copy_top: the commands work on a copy of branches.txt and the patches.
copy_top() {
	local top=$FAULTS/top
	rm -rf "$top"
	mkdir -p "$top"
	cp "$WF_BRANCHES" "$top/branches.txt"
	mkdir -p "$top/$TOPIC_PATCHDIR"
	cp -a "$WF_TOP/$TOPIC_PATCHDIR/." "$top/$TOPIC_PATCHDIR/"
	# For submit and send: the cover letters, the revisions sent, the
	# last validation.
	[[ ! -d $WF_TOP/cover-letters ]] || cp -a "$WF_TOP/cover-letters" "$top/"
	if [[ -e $WF_OUT/validate/results.json ]]; then
		mkdir -p "$top/out/$TOPIC_ID/validate"
		cp "$WF_OUT/validate/results.json" "$top/out/$TOPIC_ID/validate/"
	fi
	export WF_TOP=$top WF_BRANCHES=$top/branches.txt
	select_branch
}

main() {
	local seed=${SEED:-1} row rc=0 ver
	local -a rows
	KILLS=${KILLS:-20} WARM_UP=1 AIM=0
	while getopts 's:k:na' opt; do
		case $opt in
		s) seed=$OPTARG ;;
		k) KILLS=$OPTARG ;;
		n) WARM_UP=0 ;;
		a) AIM=1 ;;
		*) usage ;;
		esac
	done
	shift $((OPTIND - 1))
	[[ $seed =~ ^[0-9]+$ ]] || die "SEED '$seed' is not a number"
	[[ $KILLS =~ ^[0-9]+$ ]] || die "KILLS '$KILLS' is not a number"
	rows=("$@")
	[[ ${#rows[@]} -gt 0 ]] || rows=("${ALL_ROWS[@]}")
	for row in "${rows[@]}"; do
		[[ $row == full-disk ]] || declare -F "row_${row//-/_}_cmd" >/dev/null || die "unknown command '$row' (known: ${ALL_ROWS[*]})"
	done
	parse_branches
	[[ -r $TOPIC_TARBALL ]] || die "$TOPIC_TARBALL not found (install it: apt-get install $TOPIC_PACKAGE)"
	ver=$(package_version)
	BASE_REF=$(base_ref "$ver")
	# One run per cache: a second would remove the first's results and
	# copy its patches under it.
	wf_lock faults
	mkdir -p "$FAULTS"
	copy_top
	info "cache $WF_CACHE_ROOT (WF_CACHE), seed $seed, $KILLS kill(s) per command: ${rows[*]}"
	: >"$FAULTS/log.txt"
	RANDOM=$seed
	ROWS_OUT=() NOTES=() FULL_OUT=() SHORT=0 FULL_SHORT=0
	for row in "${rows[@]}"; do
		if [[ $row == full-disk ]]; then
			run_full_disk
		else
			run_row "$row"
		fi
	done
	[[ $SHORT -eq 0 && $FULL_SHORT -eq 0 ]] || rc=1
	{
		[[ ${#ROWS_OUT[@]} -eq 0 ]] ||
			printf '%s\n' "command|kills|recovered|identical" "${ROWS_OUT[@]}" | column -t -s '|' -o ' | '
		[[ ${#NOTES[@]} -eq 0 ]] || printf '%s\n' "${NOTES[@]}"
		[[ ${#FULL_OUT[@]} -eq 0 ]] ||
			printf '%s\n' "full disk|tmpfs|exit|infrastructure error|next run" "${FULL_OUT[@]}" |
			column -t -s '|' -o ' | '
	} | tee "$FAULTS/table.txt"
	[[ $SHORT -eq 0 ]] || info "a command did not recover from every kill: see $FAULTS/log.txt"
	[[ $FULL_SHORT -eq 0 ]] || info "a full disk was not named as an infrastructure error, or the run after it differed: see $FAULTS/full-disk"
	return $rc
}

main "$@"
