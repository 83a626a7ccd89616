#!/usr/bin/env bash
# The rows of dev/faults.sh: for each command, its setup, the work it
# is given before each run, its command line and what of its result must
# be identical (the contract is at the top of dev/faults.sh); and
# leftovers, the scratch state no run may leave, and marker_phase, what
# a run marker says of it.  Sourced, never run.
# shellcheck shell=bash

# marker_phase FILE: MPHASE is the phase the run marker FILE names (empty:
# none), MPHASES every phase the run has been in, in order (its
# "phases=" line, tools/lib/run.sh); the scratch paths it lists are added
# to ROW_SCRATCH.  Builtins only: it is polled every few milliseconds,
# also on a loaded machine.
marker_phase() {
	local line
	MPHASE='' MPHASES=()
	[[ -e $1 ]] || return 0
	{
		while IFS= read -r line; do
			# shellcheck disable=SC2034 # MPHASE, MPHASES: read by dev/faults.sh
			case $line in
			phase=*) MPHASE=${line#phase=} ;;
			phases=*) read -r -a MPHASES <<<"${line#phases=}" ;;
			scratch=*) ROW_SCRATCH[${line#scratch=}]=1 ;;
			esac
		done <"$1"
	} 2>/dev/null
	return 0
}

# leftovers: the scratch state the tools keep only while they run; after
# a run that succeeded, none of it may be there: no run marker, nothing
# of what the row's markers list as scratch (ROW_SCRATCH, see run_row),
# no lock or operation in progress in a git repository.
leftovers() {
	local f p gitdir
	for f in "$WF_CACHE"/*.run; do
		[[ -e $f ]] && printf 'left: %s\n' "$f"
	done
	for p in "${!ROW_SCRATCH[@]}"; do
		while IFS= read -r f; do
			printf 'left: %s\n' "$f"
		done < <(compgen -G "$p" | LC_ALL=C sort || true)
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
# shellcheck disable=SC2034 # read by dev/faults.sh
row_port_marker() { MARKER=$PORT_DIR/port.run; }
row_port_cmd() { CMD=("$WF_HOME/tools/port.sh" "$TOPIC_ID" faults-port); }
row_port_result() {
	local f gitdir=$PORT_DIR/linux/.git
	(cd "$WF_TOP/patches-faults-port" && find . -type f | LC_ALL=C sort | xargs -r sha256sum)
	sha256sum <"$WF_TOP/out/port/$TOPIC_ID..faults-port.txt"
	printf 'branch: %s\n' "$(git -C "$WF_CACHE_ROOT/branches/faults-port/linux" rev-parse "refs/heads/$TOPIC_NAME-port")"
	grep '^status=' "$PORT_DIR/state"
	# (the scratch paths port.sh's marker lists: leftovers)
	for f in "$PORT_DIR"/*.run "$gitdir/rebase-apply" "$gitdir/rebase-merge" \
		"$WF_CACHE_ROOT"/branches/faults-port/*.run; do
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
	CMD=("$WF_HOME/tools/stress.sh" -f -o "$FAULTS/stress-out" --calls 2000 -T 1 -t 300)
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
		printf 'sysctl: the faults row\n\nA cover letter for dev/faults.sh.\n' >"$WF_COVERS/v1.txt"
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

# send: the revision written once (setup; kept in $FAULTS/send/written),
# sent for real to the row's SMTP server, named as the user's own
# (sendemail.*, in GIT_CONFIG_* of the command); each run starts from
# nothing received and nothing recorded.  A run that finds a send half
# done runs "make clean" first (out/ removed, as a user may): it must
# finish the send from the cache's copy, each message once.
row_send_setup() {
	local i
	row_submit_setup
	"$WF_HOME/tools/submit.sh" -f -S "$FAULTS_SENDER" >"$FAULTS/send-submit.out" 2>&1 ||
		die "cannot write the revision to send (see $FAULTS/send-submit.out)"
	SEND_DIR=$(find "$WF_OUT/submit" -maxdepth 1 -name 'v*' -type d | sort -V | tail -n 1)
	SEND_REV=${SEND_DIR##*/v}
	rm -rf "$FAULTS/send/written"
	mkdir -p "$FAULTS/send"
	cp -a "$SEND_DIR" "$FAULTS/send/written"
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
	rm -f "$SEND_MBOX"
	rm -rf "$WF_COVERS/sent/v$SEND_REV" "$WF_CACHE/sending" "$SEND_DIR"
	mkdir -p "${SEND_DIR%/*}"
	cp -a "$FAULTS/send/written" "$SEND_DIR"
}
# (bash -c: "make clean" when a send is half done, then send.sh)
# shellcheck disable=SC2016 # expanded by that bash
row_send_cmd() {
	CMD=(env GIT_CONFIG_COUNT=3 GIT_CONFIG_KEY_0=sendemail.smtpServer GIT_CONFIG_VALUE_0=127.0.0.1
		GIT_CONFIG_KEY_1=sendemail.smtpServerPort "GIT_CONFIG_VALUE_1=$SMTP_PORT"
		GIT_CONFIG_KEY_2=sendemail.smtpEncryption GIT_CONFIG_VALUE_2=none
		bash -c 'if compgen -G "$1/v*/sending" >/dev/null; then rm -rf "$2"; fi; exec "$3" -f -y "${@:4}"'
		send-after-clean "$WF_CACHE/sending" "$WF_OUT" "$WF_HOME/tools/send.sh")
}
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
	[[ -n $eml && -e $FAULTS/send/written/$eml ]] || return 1
	id=$(sed -n 's/^Message-Id: *//Ip' "$FAULTS/send/written/$eml" | head -n 1)
	[[ -n $id ]] || return 1
	# shellcheck disable=SC2034 # ANSWER: read by dev/faults.sh
	if [[ -e $SEND_MBOX ]] && grep -qiF "Message-Id: $id" "$SEND_MBOX"; then
		ANSWER=(-A yes)
	else
		ANSWER=(-A no)
	fi
}

# trailers: the review replies of tests/fixtures/trailers to the last
# revision recorded as sent (written and recorded by hand, send -n, when
# there is none), applied with -y; before each run the branch,
# refs/wf/exported and the patch directory go back to before them.
row_trailers_setup() {
	local sent rev
	local -a ids
	row_submit_setup
	rev=''
	[[ ! -d $WF_COVERS/sent ]] ||
		rev=$(find "$WF_COVERS/sent" -maxdepth 1 -name 'v*' -type d | sed 's#.*/v##' | sort -n | tail -n 1)
	if [[ -z $rev ]]; then
		"$WF_HOME/tools/submit.sh" -f -S "$FAULTS_SENDER" >"$FAULTS/trailers-submit.out" 2>&1 ||
			die "cannot write the revision to reply to (see $FAULTS/trailers-submit.out)"
		"$WF_HOME/tools/record-sent.sh" -f >>"$FAULTS/trailers-submit.out" 2>&1 ||
			die "cannot record the revision to reply to (see $FAULTS/trailers-submit.out)"
		rev=$(find "$WF_COVERS/sent" -maxdepth 1 -name 'v*' -type d | sed 's#.*/v##' | sort -n | tail -n 1)
	fi
	sent=$WF_COVERS/sent/v$rev
	mapfile -t ids < <(sed -n 's/^Message-Id: //Ip' "$sent/patches.mbox")
	[[ ${#ids[@]} -ge 3 ]] || die "the trailers row needs a series of 3 patches or more ($sent has ${#ids[@]})"
	mkdir -p "$FAULTS/trailers"
	TRAILERS_MBOX=$FAULTS/trailers/replies.mbox
	# (the replies to patches 3 and 5: to the third and the last)
	sed -e "s/@COVER@/$(sed -n 's/^message-id: //p' "$sent/record")/g" \
		-e "s/@P3@/${ids[2]}/g" -e "s/@P5@/${ids[-1]}/g" \
		"$WF_HOME/tests/fixtures/trailers/replies.mbox" >"$TRAILERS_MBOX"
	TRAILERS_TIP=$(repo_git rev-parse "$(topic_ref)")
	TRAILERS_PATCHES=$FAULTS/trailers/patches
	rm -rf "$TRAILERS_PATCHES"
	cp -r "$WF_TOP/$TOPIC_PATCHDIR" "$TRAILERS_PATCHES"
}
row_trailers_prepare() {
	repo_git update-ref "$(topic_ref)" "$TRAILERS_TIP"
	repo_git update-ref refs/wf/exported "$TRAILERS_TIP"
	rm -rf "${WF_TOP:?}/$TOPIC_PATCHDIR"
	cp -r "$TRAILERS_PATCHES" "$WF_TOP/$TOPIC_PATCHDIR"
}
row_trailers_cmd() { CMD=("$WF_HOME/tools/trailers.sh" -m "$TRAILERS_MBOX" -y); }
row_trailers_result() {
	printf 'branch: %s\n' "$(repo_git rev-parse "$(topic_ref)")"
	printf 'exported: %s\n' "$(repo_git rev-parse refs/wf/exported)"
	(cd "$WF_TOP/$TOPIC_PATCHDIR" && find . -type f | LC_ALL=C sort | xargs -r sha256sum)
	leftovers
}
