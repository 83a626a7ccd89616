#!/usr/bin/env bash
# Send a revision written by tools/submit.sh, and record it as sent.
#
#   tools/send.sh [-f] [-r N | -d DIR] -t maintainers|ADDRESS[,ADDRESS...] [-s HOST[:PORT]] [-A yes|no]
#   tools/send.sh [-f] [-r N | -d DIR] -n
#
# DIR is the written revision: -r N is out/<id>/submit/vN, the default the
# highest one written.  The
# messages go with git send-email to one SMTP server only: -s (SMTP=), else
# git config sendemail.smtpServer (and smtpServerPort), and only when that
# server is a loopback address (127.0.0.0/8, ::1, or a name that resolves
# to nothing else): a local MTA relays for real, a test server keeps them.
# No other git send-email setting is read (no global, system or repo
# config): no Cc from trailers, no Bcc, no authentication, no TLS.
#   -t maintainers   each message to the To/Cc written in it (the
#                    get_maintainer.pl addresses), then vN is recorded in
#                    cover-letters/sent/vN/ (lib-sent.sh): the next
#                    "make submit" writes v(N+1) against it;
#   -t ADDRESS,...   a trial: every message to these addresses only, the
#                    To/Cc of the messages dropped; nothing is recorded;
#   -n               send nothing: record DIR as vN, sent by other means.
# Before anything, tools/preflight.sh checks DIR (-f, FORCE=1, overrides
# it and says so).  A revision already recorded is not sent as such again.
#
# Killed in the middle (-t maintainers), a send leaves a half-sent series:
# DIR/sending lists the messages sent ("sent: FILE", written after each
# git send-email) and the one on its way ("sending: FILE"); DIR/send.log
# has each one's SMTP dialogue (--smtp-debug).  The next run finishes it
# without duplicates: a message on its way whose final "." never left
# (no ">>> ." in its dialogue) is sent again, one the server accepted
# (">>> ." then "<<< 250") is not.  Killed between the two, nobody here can
# know whether the server kept it: the next run refuses, in one line
# naming the command that says (-A yes, ARRIVED=yes: it arrived; -A no:
# send it again).  vN is recorded only once every message was sent; then
# DIR/sending goes.  tools/submit.sh does not rewrite a half-sent DIR.
set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tools/lib-sent.sh
. "$WF_HOME/tools/lib-sent.sh"

usage() {
	echo "usage: $0 [-f] [-r N | -d DIR] (-t maintainers|ADDRESS,... [-s HOST[:PORT]] [-A yes|no] | -n)" >&2
	exit 2
}

# latest_written: the highest out/<id>/submit/vN.
latest_written() {
	find "$WF_OUT/submit" -maxdepth 1 -name 'v*' -type d 2>/dev/null |
		sed -nE 's#.*/v([0-9]+)$#\1 &#p' | sort -n | tail -n 1 | cut -d' ' -f2-
}

# loopback_server HOST[:PORT]: "IP PORT" of the server when every address
# HOST resolves to is a loopback address; dies otherwise.
loopback_server() {
	local spec=$1 host port ip
	local -a ips
	if [[ $spec =~ ^\[([0-9a-fA-F:.]+)\](:([0-9]+))?$ ]]; then
		host=${BASH_REMATCH[1]} port=${BASH_REMATCH[3]}
	elif [[ $spec =~ ^([^:]+)(:([0-9]+))?$ ]]; then
		host=${BASH_REMATCH[1]} port=${BASH_REMATCH[3]}
	else
		bad_input "SMTP server '$spec' is not HOST[:PORT]"
	fi
	port=${port:-${SMTP_PORT:-25}}
	[[ $port =~ ^[0-9]+$ && $port -ge 1 && $port -le 65535 ]] || bad_input "SMTP server '$spec': bad port '$port'"
	mapfile -t ips < <(getent ahosts "$host" 2>/dev/null | awk '{print $1}' | sort -u)
	[[ ${#ips[@]} -gt 0 ]] || bad_input "SMTP server '$host' does not resolve"
	for ip in "${ips[@]}"; do
		[[ $ip =~ ^127\.[0-9]+\.[0-9]+\.[0-9]+$ || $ip == ::1 ]] ||
			bad_input "SMTP server '$host' is not a loopback address ($ip): make send only talks to a server on this machine"
	done
	printf '%s %s\n' "${ips[0]}" "$port"
}

# configured_server: sendemail.smtpServer[:smtpServerPort] of git config.
configured_server() {
	local host port
	host=$(git config sendemail.smtpServer 2>/dev/null) || return 0
	port=$(git config sendemail.smtpServerPort 2>/dev/null) || true
	printf '%s%s\n' "$host" "${port:+:$port}"
}

# delivery FILE LOG: whether the last SMTP dialogue of FILE in LOG
# delivered it: "arrived" (the server answered the final "." with 2xx),
# "unsent" (the final "." was never written) or "unknown" (written, no
# answer seen).  Net::SMTP prints ">>> ." before it writes the dot.
delivery() {
	awk -v f="+ git send-email $1" '
		$0 == f { arrived = 0; last = ""; next }
		/(>>>|<<<) / {
			match($0, /(>>>|<<<) .*/); line = substr($0, RSTART, RLENGTH)
			if (last == ">>> ." && line ~ /^<<< 2/) arrived = 1
			last = line
		}
		END { print arrived ? "arrived" : (last == ">>> ." ? "unknown" : "unsent") }' "$2"
}

# progress_state DIR: the state of an interrupted send of DIR (its file
# DIR/sending): SENT (the messages sent), INFLIGHT (the one on its way,
# empty when none), PREV_RUN (pid and start of that run).
progress_state() {
	local p=$1/sending line
	SENT=() INFLIGHT='' PREV_RUN=$(sed -n 's/^started: //p' "$p")
	while IFS= read -r line; do
		case $line in
		'sent: '*) SENT+=("${line#sent: }") INFLIGHT='' ;;
		'sending: '*) INFLIGHT=${line#sending: } ;;
		esac
	done <"$p"
}

# resume_plan DIR ARRIVED SERVER: after an interrupted send of DIR, which
# messages are sent already (the message on its way included when it
# arrived), a note for wf_report_repairs; or dies in one line when nobody can
# tell whether the message on its way arrived and ARRIVED does not say.
resume_plan() {
	local dir=$1 arrived=$2 server=$3 state=''
	progress_state "$dir"
	if [[ -n $INFLIGHT ]]; then
		state=$(delivery "$INFLIGHT" "$dir/send.log")
		if [[ $state == unknown ]]; then
			case $arrived in
			yes) state=arrived ;;
			no) state=unsent ;;
			*) die "an interrupted send of v$REV (${WF_PREV_RUN:-$PREV_RUN}) was stopped while the server was taking $INFLIGHT: check whether it arrived, then run 'make send TO=maintainers SMTP=$server ARRIVED=yes' if it did, 'ARRIVED=no' to send it again" ;;
			esac
		fi
		if [[ $state == arrived ]]; then
			SENT+=("$INFLIGHT")
			printf 'sent: %s
' "$INFLIGHT" >>"$dir/sending"
		fi
	fi
	wf_repaired "v$REV was half-sent: ${#SENT[@]} message(s) sent already${INFLIGHT:+, $INFLIGHT $([[ $state == arrived ]] && echo arrived || echo 'did not arrive')}; sending the rest"
}

# send_all DIR IP PORT TO SENDER: git send-email of every message of DIR,
# in order, to IP:PORT only; with TO=maintainers, the messages not in
# SENT, each noted in DIR/sending.
send_all() {
	local dir=$1 ip=$2 port=$3 to=$4 sender=$5 f tmp i=0 log s skip n=0
	local -a files=() args
	log=$dir/send.log
	tmp=$WF_CACHE/send-tmp
	rm -rf "$tmp"
	mkdir -p "$tmp"
	# shellcheck disable=SC2064 # expand now: tmp is local
	trap "rm -rf '$tmp'" RETURN
	args=(--smtp-server="$ip" --smtp-server-port="$port" --smtp-encryption=none
		--smtp-auth=none --smtp-domain=localhost --confirm=never --no-annotate
		--no-thread --no-chain-reply-to --no-to-cover --no-cc-cover
		--no-signed-off-by-cc --transfer-encoding=auto --8bit-encoding=UTF-8
		--from="$sender" --smtp-debug=1)
	if [[ $to == maintainers ]]; then
		# The To/Cc written in each message, nothing found in its body.
		args+=(--suppress-cc=body --suppress-cc=author --suppress-cc=cccmd)
		files=("$dir"/*.eml)
		[[ -e $dir/sending ]] || {
			printf 'revision: %s\nstarted: pid %s, started %s\n' "$REV" "$$" "$(date '+%F %T')" >"$dir/sending.tmp"
			mv "$dir/sending.tmp" "$dir/sending"
			: >"$log"
		}
	else
		log=$dir/trial.log
		: >"$log"
		args+=(--suppress-cc=all)
		local -a tos
		IFS=, read -r -a tos <<<"$to"
		for f in "${tos[@]}"; do args+=(--to="$f"); done
		for f in "$dir"/*.eml; do
			# Drop the written To/Cc: the trial goes to TO only.
			sed '1,/^$/{/^\(To\|Cc\):/I,/^[^ \t]/{/^\(To\|Cc\):/Id;/^[ \t]/d}}' "$f" >"$tmp/${f##*/}"
			files+=("$tmp/${f##*/}")
		done
	fi
	for f in "${files[@]}"; do
		i=$((i + 1))
		skip=0
		for s in "${SENT[@]}"; do
			[[ $s == "${f##*/}" ]] && skip=1
		done
		[[ $skip -eq 0 ]] || continue
		[[ $to != maintainers ]] || printf 'sending: %s\n' "${f##*/}" >>"$dir/sending"
		printf '+ git send-email %s\n' "${f##*/}" >>"$log"
		# No configuration but these arguments: a user's sendemail.* (a
		# Bcc, another server, a password) must not come in.
		if ! (cd "$tmp" && GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_COUNT=0 \
			git send-email "${args[@]}" "$f") >>"$log" 2>&1 </dev/null; then
			die "git send-email of ${f##*/} to $ip:$port failed after $((i - 1)) of ${#files[@]} message(s): $(grep -iE 'error|fail|unable' "$log" | grep -v '[<>]>> ' | tail -n 1) (log: $log)"
		fi
		[[ $to != maintainers ]] || printf 'sent: %s\n' "${f##*/}" >>"$dir/sending"
		n=$((n + 1))
	done
	info "sent $n message(s) of ${dir#"$WF_TOP"/} to $ip:$port ($([[ $to == maintainers ]] && echo 'their To/Cc' || echo "$to only"))"
}

# record_sent DIR REV VIA: cover-letters/sent/vREV/ from the written
# revision DIR.
record_sent() {
	local dir=$1 rev=$2 via=$3 tmp f cover key
	local dest=$SENT_DIR/v$rev
	tmp=$SENT_DIR/.v$rev.tmp
	rm -rf "$tmp"
	# Every message sent: a record only then.
	[[ $via == 'by hand' || ! -e $dir/sending ]] || {
		progress_state "$dir"
		[[ ${#SENT[@]} -eq $(find "$dir" -maxdepth 1 -name '*.eml' | wc -l) ]] ||
			die "v$rev: ${#SENT[@]} message(s) sent, not all: not recorded"
	}
	mkdir -p "$tmp"
	cover=$(find "$dir" -maxdepth 1 -name '0000-*.eml' | head -n 1)
	{
		printf '# vN as sent (tools/send.sh; format in tools/lib-sent.sh)\n'
		for key in revision change-id base-tag base-commit tip-tree cover; do
			printf '%s: %s\n' "$key" "$(record_field "$dir/record" "$key")"
		done
		printf 'date: %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
		printf 'message-id: %s\n' "$(eml_header "$cover" Message-Id)"
		printf 'sent-via: %s\n' "$via"
	} >"$tmp/record"
	cp "$dir/cover.txt" "$tmp/cover.txt"
	for f in "$dir"/*.eml; do
		[[ ${f##*/} == 0000-* ]] && continue
		printf 'From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n'
		cat "$f"
		printf '\n'
	done >"$tmp/patches.mbox"
	mv "$tmp" "$dest"
	rm -f "$dir/sending"
	info "recorded v$rev in ${dest#"$WF_TOP"/}: commit it (git add ${dest#"$WF_TOP"/})"
}

# recover_send DIR REV: what a killed run left: the scratch directory, a
# half-written record, a half-sent DIR already recorded.  Sets RECORDED
# when vREV was sent and recorded (nothing left to do).
recover_send() {
	local dir=$1 rev=$2
	RECORDED=0
	if [[ -e $WF_CACHE/send-tmp ]]; then
		rm -rf "$WF_CACHE/send-tmp"
		wf_repaired "removed its scratch directory send-tmp"
	fi
	if [[ -e $SENT_DIR/.v$rev.tmp ]]; then
		rm -rf "$SENT_DIR/.v$rev.tmp"
		wf_repaired "removed the half-written record ${SENT_DIR#"$WF_TOP"/}/.v$rev.tmp"
	fi
	if [[ -e $dir/sending && -f $SENT_DIR/v$rev/record ]]; then
		rm -f "$dir/sending"
		wf_repaired "v$rev was sent and recorded in ${SENT_DIR#"$WF_TOP"/}/v$rev; removed ${dir#"$WF_TOP"/}/sending"
		RECORDED=1
	fi
}

# read_options ARGS...: DIR (the written revision), TO, SERVER, RECORD_ONLY
# (-n), ARRIVED (-A) and PF (preflight's -f).
read_options() {
	local opt
	DIR='' TO='' SERVER='' RECORD_ONLY=0 ARRIVED='' PF=()
	while getopts 'fd:r:t:s:nA:' opt; do
		case $opt in
		f) PF=(-f) ;;
		d) DIR=$OPTARG ;;
		r)
			[[ $OPTARG =~ ^[1-9][0-9]*$ ]] || bad_input "revision '$OPTARG' is not a positive number"
			DIR=$WF_OUT/submit/v$OPTARG
			;;
		t) TO=$OPTARG ;;
		s) SERVER=$OPTARG ;;
		n) RECORD_ONLY=1 ;;
		A)
			[[ $OPTARG == yes || $OPTARG == no ]] || bad_input "ARRIVED='$OPTARG' is neither yes nor no"
			ARRIVED=$OPTARG
			;;
		*) usage ;;
		esac
	done
	shift $((OPTIND - 1))
	[[ $# -eq 0 ]] || usage
	DIR=${DIR:-$(latest_written)}
	[[ -n $DIR ]] || die "no written revision in ${WF_OUT#"$WF_TOP"/}/submit/ (run: make submit)"
	[[ -f $DIR/record && -f $DIR/cover.txt ]] ||
		die "$DIR is not a revision written by make submit (no record or cover.txt)"
}

# check_destination: TO is "maintainers" or addresses, and the SMTP
# server a loopback one (IP and PORT); SPEC is the server as given.
check_destination() {
	[[ -n $TO ]] || bad_input "no recipients: TO=maintainers sends to the To/Cc of the messages, TO=address,... to those addresses only"
	[[ $TO == maintainers || $TO =~ ^[^,@[:space:]]+@[^,@[:space:]]+(,[^,@[:space:]]+@[^,@[:space:]]+)*$ ]] ||
		bad_input "TO='$TO' is neither 'maintainers' nor a list of addresses"
	SPEC=${SERVER:-$(configured_server)}
	[[ -n $SPEC ]] || bad_input "no SMTP server: SMTP=127.0.0.1:PORT, or git config sendemail.smtpServer (a loopback address)"
	local server
	server=$(loopback_server "$SPEC")
	read -r IP PORT <<<"$server"
}

# sender_of DIR: the From of the first message, decoded.
sender_of() {
	eml_header "$(find "$1" -maxdepth 1 -name '*.eml' | LC_ALL=C sort | head -n 1)" From |
		python3 -c 'import sys, email.header as h; print(str(h.make_header(h.decode_header(sys.stdin.read().strip()))))'
}

main() {
	local rev sender
	SENT=()
	read_options "$@"
	rev=$(record_field "$DIR/record" revision)
	REV=$rev
	wf_lock send
	wf_run_begin send "$DIR/sending*" "$WF_CACHE/send-tmp" "$SENT_DIR/.*.tmp"
	# shellcheck disable=SC2310 # wf_no_recovery is one test: its status is the answer
	wf_no_recovery || recover_send "$DIR" "$rev"
	if [[ $RECORDED -eq 1 && $RECORD_ONLY -eq 0 && $TO == maintainers ]]; then
		wf_report_repairs last
		wf_run_end
		return 0
	fi
	[[ $RECORD_ONLY -eq 1 ]] || check_destination
	if [[ $RECORD_ONLY -eq 1 || $TO == maintainers ]]; then
		[[ ! -e $SENT_DIR/v$rev ]] ||
			die "v$rev was sent already (cover-letters/$WF_BRANCH/sent/v$rev): make submit writes v$((rev + 1))"
	fi
	"$WF_HOME/tools/preflight.sh" "${PF[@]}" "$DIR"
	if [[ $RECORD_ONLY -eq 1 ]]; then
		wf_report_repairs last
		record_sent "$DIR" "$rev" "by hand"
		wf_run_end
		return
	fi
	# shellcheck disable=SC2310 # wf_no_recovery is one test: its status is the answer
	if [[ $TO == maintainers && -e $DIR/sending ]] && ! wf_no_recovery; then
		resume_plan "$DIR" "$ARRIVED" "$SPEC"
	fi
	wf_report_repairs last
	sender=$(sender_of "$DIR")
	send_all "$DIR" "$IP" "$PORT" "$TO" "$sender"
	if [[ $TO == maintainers ]]; then
		record_sent "$DIR" "$rev" "smtp://$IP:$PORT"
	else
		info "a trial to $TO: v$rev is not recorded as sent (TO=maintainers sends and records it)"
	fi
	wf_run_end
}

main "$@"
