#!/usr/bin/env bash
# Send a revision written by tools/submit.sh: for real (a revision), or
# as a rehearsal (never a revision).
#
#   tools/send.sh [-f] [-r N | -d DIR] [-n] [-y] [-A yes|no]
#   tools/send.sh -R [-f] [-r N | -d DIR] [-n] [-s HOST[:PORT]] [-t maintainers|ADDRESS,...]
#
# DIR is the written revision: -r N is out/<id>/submit/vN, the default the
# highest one written.  The messages go with git send-email, one by one,
# each to the To/Cc written in it and to nobody else (no Cc from the
# trailers or the author, none of the sender herself: submit.sh wrote the
# To/Cc), with no setting of git send-email but the server's.
#
# A real send (make send) goes through the SMTP server of the user's own
# git configuration: sendemail.smtpServer, smtpServerPort,
# smtpEncryption, smtpUser, smtpAuth, smtpDomain, smtpSslCertPath; the
# password comes from git's credential helper (the credential.* of the
# user's configuration, handed over in the environment), never from a
# command line, and the AUTH lines of the SMTP dialogue are blanked in
# the logs (tools/lib/perl/WFMaskAuth.pm).  It asks first, naming the server and the number of messages
# and recipients (-y, YES=1: no question); -n (DRY_RUN=1) prints what
# would go where (git send-email --dry-run) and sends nothing.  A To/Cc
# in a reserved example domain (a placeholder) refuses it, whatever
# FORCE says.  Sent, vN is recorded in cover-letters/<id>/sent/vN/
# (tools/lib/sent.sh): the next "make submit" writes v(N+1) against it.
#
# A rehearsal (-R, make rehearse) goes to a loopback server (-s, SMTP=:
# no authentication, no TLS; a test server that keeps what it gets), to
# the To/Cc of the messages, or with -t ADDRESS,... (TO=) to those
# addresses only (the written To/Cc dropped), through -s or else the
# user's own server.  It is recorded in cover-letters/<id>/sent/rehearsals/
# vN-K/record and counts for nothing: vN is still to be sent.
#
# Before anything, tools/preflight.sh checks DIR (-f, FORCE=1, overrides
# it and says so).  A revision already recorded is not sent again.
#
# A real send works from a copy of DIR in $WF_CACHE/sending/vN (made when
# it starts), which "make clean" does not reach.  Killed in the middle,
# it leaves there a half-sent series: "sending" lists the messages sent
# ("sent: FILE", written after each git send-email) and the one on its
# way ("sending: FILE"); send.log has each one's SMTP dialogue
# (--smtp-debug).  The next run (with or without out/) finishes it
# without duplicates: a message on its way whose final "." never left
# (no ">>> ." in its dialogue) is sent again, one the server accepted
# (">>> ." then "<<< 250") is not.  Killed between the two, nobody here
# can know whether the server kept it: the next run refuses, in one line
# naming the command that says (-A yes, ARRIVED=yes: it arrived; -A no:
# send it again).  vN is recorded only once every message was sent; then
# the copy goes.  tools/submit.sh does not rewrite a half-sent vN.
set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tools/lib/sent.sh
. "$WF_HOME/tools/lib/sent.sh"

usage() {
	echo "usage: $0 [-f] [-r N | -d DIR] [-n] [-y] [-A yes|no]" >&2
	echo "       $0 -R [-f] [-r N | -d DIR] [-n] [-s HOST[:PORT]] [-t maintainers|ADDRESS,...]" >&2
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
			bad_input "SMTP server '$host' is not a loopback address ($ip): a rehearsal only talks to a server on this machine (make send sends for real)"
	done
	printf '%s %s\n' "${ips[0]}" "$port"
}

# use_loopback SPEC: the git send-email arguments (SERVER_ARGS) for the
# loopback server SPEC, with no authentication and no TLS.
use_loopback() {
	local server ip port
	server=$(loopback_server "$1")
	read -r ip port <<<"$server"
	SERVER_ARGS=(--smtp-server="$ip" --smtp-server-port="$port" --smtp-encryption=none
		--smtp-auth=none --smtp-domain=localhost)
	SERVER_DESC="$ip:$port" VIA="smtp://$ip:$port" CRED_ENV=()
}

# user_config KEY: the value of git config KEY for the user (her global,
# system and this checkout's configuration); empty when unset.
user_config() {
	git -C "$WF_TOP" config --get "$1" 2>/dev/null || true
}

# use_configured_server: SERVER_ARGS from the user's sendemail.* (its
# server, port, encryption, user, authentication, domain, certificates),
# CRED_ENV her credential.* as GIT_CONFIG_* variables for git's
# credential helper; dies when no server is configured.
use_configured_server() {
	local host port enc user key flag v i=0
	host=$(user_config sendemail.smtpServer)
	[[ -n $host ]] || bad_input "no SMTP server in your git configuration: git config --global sendemail.smtpServer smtp.your.provider (with smtpServerPort, smtpEncryption, smtpUser: doc/sending.md); a rehearsal to a local test server: make rehearse SMTP=127.0.0.1:PORT"
	[[ $host != /* ]] ||
		bad_input "sendemail.smtpServer is a program ($host): make send talks SMTP only; send with your own git send-email, then: make record-sent REV=$REV"
	v=$(user_config sendemail.smtpPass)
	[[ -z $v ]] ||
		info "sendemail.smtpPass is not used: the password comes from git's credential helper (doc/sending.md)"
	SERVER_ARGS=()
	for key in smtpServer:smtp-server smtpServerPort:smtp-server-port smtpEncryption:smtp-encryption \
		smtpUser:smtp-user smtpAuth:smtp-auth smtpDomain:smtp-domain smtpSslCertPath:smtp-ssl-cert-path; do
		flag=${key#*:} key=${key%%:*}
		v=$(user_config "sendemail.$key")
		[[ -z $v ]] || SERVER_ARGS+=("--$flag=$v")
	done
	port=$(user_config sendemail.smtpServerPort)
	enc=$(user_config sendemail.smtpEncryption)
	user=$(user_config sendemail.smtpUser)
	SERVER_DESC="$host${port:+:$port} (${enc:-no encryption}${user:+, user $user})"
	VIA="smtp://$host${port:+:$port}"
	CRED_ENV=()
	while IFS= read -r -d '' v; do
		CRED_ENV+=("GIT_CONFIG_KEY_$i=${v%%$'\n'*}" "GIT_CONFIG_VALUE_$i=${v#*$'\n'}")
		i=$((i + 1))
	done < <(git -C "$WF_TOP" config -z --get-regexp '^credential\.' 2>/dev/null || true)
	CRED_ENV+=("GIT_CONFIG_COUNT=$i")
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

# resume_plan DIR ARRIVED: after an interrupted send of DIR, which
# messages are sent already (the message on its way included when it
# arrived), a note for wf_report_repairs; or dies in one line when nobody can
# tell whether the message on its way arrived and ARRIVED does not say.
resume_plan() {
	local dir=$1 arrived=$2 state=''
	progress_state "$dir"
	if [[ -n $INFLIGHT ]]; then
		state=$(delivery "$INFLIGHT" "$dir/send.log")
		if [[ $state == unknown ]]; then
			case $arrived in
			yes) state=arrived ;;
			no) state=unsent ;;
			*) die "an interrupted send of v$REV (${WF_PREV_RUN:-$PREV_RUN}) was stopped while the server was taking $INFLIGHT: check whether it arrived, then run 'make send ARRIVED=yes' if it did, 'ARRIVED=no' to send it again" ;;
			esac
		fi
		if [[ $state == arrived ]]; then
			SENT+=("$INFLIGHT")
			printf 'sent: %s\n' "$INFLIGHT" >>"$dir/sending"
		fi
	fi
	wf_repaired "v$REV was half-sent: ${#SENT[@]} message(s) sent already${INFLIGHT:+, $INFLIGHT $([[ $state == arrived ]] && echo arrived || echo 'did not arrive')}; sending the rest"
}

# send_args SENDER: the git send-email arguments of every message: the
# server's, then those that keep the recipients to the To/Cc written in
# the message (nothing from its body, its author, the sender herself, a
# command) and the message as written (threading, encoding).
send_args() {
	ARGS=("${SERVER_ARGS[@]}" --confirm=never --no-annotate --no-thread --no-chain-reply-to
		--no-to-cover --no-cc-cover --no-signed-off-by-cc --transfer-encoding=auto
		--8bit-encoding=UTF-8 --from="$1" --smtp-debug=1)
	if [[ $TO == maintainers ]]; then
		ARGS+=(--suppress-cc=self --suppress-cc=author --suppress-cc=body --suppress-cc=cccmd)
	else
		ARGS+=(--suppress-cc=all)
		local -a tos
		local a
		IFS=, read -r -a tos <<<"$TO"
		for a in "${tos[@]}"; do ARGS+=(--to="$a"); done
	fi
}

# git_send_email ARGS...: git send-email with none of the user's
# configuration but CRED_ENV (her credential helper), out of any git
# repository; its SMTP dialogue without the AUTH secrets
# (tools/lib/perl/WFMaskAuth.pm), straight to stdout and stderr.
git_send_email() {
	(cd "$TMP" && env GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 GIT_CEILING_DIRECTORIES="${TMP%/*}" \
		PERL5LIB="$WF_HOME/tools/lib/perl${PERL5LIB:+:$PERL5LIB}" PERL5OPT=-MWFMaskAuth \
		"${CRED_ENV[@]}" git send-email "$@") </dev/null 2>&1
}

# trial_copies DIR: the messages of DIR without their To/Cc (a trial
# goes to TO only), in TMP; their paths in FILES.
trial_copies() {
	local f
	FILES=()
	for f in "$1"/*.eml; do
		sed '1,/^$/{/^\(To\|Cc\):/I,/^[^ \t]/{/^\(To\|Cc\):/Id;/^[ \t]/d}}' "$f" >"$TMP/${f##*/}"
		FILES+=("$TMP/${f##*/}")
	done
}

# send_all DIR LOG PROGRESS: git send-email of each of FILES, in order,
# but those in SENT; with PROGRESS=1 each noted in DIR/sending.
send_all() {
	local dir=$1 log=$2 progress=$3 f s skip i=0 n=0
	for f in "${FILES[@]}"; do
		i=$((i + 1))
		skip=0
		for s in "${SENT[@]}"; do
			[[ $s == "${f##*/}" ]] && skip=1
		done
		[[ $skip -eq 0 ]] || continue
		[[ $progress -eq 0 ]] || printf 'sending: %s\n' "${f##*/}" >>"$dir/sending"
		printf '+ git send-email %s\n' "${f##*/}" >>"$log"
		# shellcheck disable=SC2310 # its status is the answer; the message is in the log
		if ! git_send_email "${ARGS[@]}" "$f" >>"$log"; then
			die "git send-email of ${f##*/} to $SERVER_DESC failed after $((i - 1)) of ${#FILES[@]} message(s): $(grep -aiE 'error|fail|unable' "$log" | grep -av '[<>]>> ' | tail -n 1) (log: $log)"
		fi
		[[ $progress -eq 0 ]] || printf 'sent: %s\n' "${f##*/}" >>"$dir/sending"
		n=$((n + 1))
		info "$i/${#FILES[@]} sent: ${f##*/}"
	done
	info "sent $n message(s) of v$REV to $SERVER_DESC ($([[ $TO == maintainers ]] && echo 'their To/Cc' || echo "$TO only"))"
}

# record_rehearsal DIR: cover-letters/<id>/sent/rehearsals/vREV-K/record, K
# the next free number.
record_rehearsal() {
	local dir=$1 k=1 dest tmp cover key
	while [[ -e $REHEARSALS_DIR/v$REV-$k ]]; do k=$((k + 1)); done
	dest=$REHEARSALS_DIR/v$REV-$k tmp=$REHEARSALS_DIR/.v$REV-$k.tmp
	mkdir -p "$tmp"
	cover=$(find "$dir" -maxdepth 1 -name '0000-*.eml' | head -n 1)
	{
		printf '# a rehearsal of vN, not a revision (tools/send.sh -R; format in tools/lib/sent.sh)\n'
		for key in revision change-id tip-tree cover; do
			printf '%s: %s\n' "$key" "$(record_field "$dir/record" "$key")"
		done
		printf 'rehearsal: %s\n' "$k"
		printf 'date: %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
		printf 'message-id: %s\n' "$(eml_header "$cover" Message-Id)"
		printf 'messages: %s\n' "${#FILES[@]}"
		printf 'sent-to: %s\n' "$([[ $TO == maintainers ]] && echo 'the To/Cc of each message' || echo "$TO")"
		printf 'sent-via: %s\n' "$VIA"
	} >"$tmp/record"
	mv "$tmp" "$dest"
	info "a rehearsal of v$REV, recorded in ${dest#"$WF_TOP"/} (not a revision: v$REV is still to be sent)"
}

# recover_send: what a killed run left: the scratch directory, a
# half-written record or copy, a half-sent copy already recorded (then
# RECORDED=1: nothing left to do).
recover_send() {
	local d
	RECORDED=0
	if [[ -e $WF_CACHE/send-tmp ]]; then
		rm -rf "$WF_CACHE/send-tmp"
		wf_repaired "removed its scratch directory send-tmp"
	fi
	for d in "$SENT_DIR"/.v*.tmp "$REHEARSALS_DIR"/.v*.tmp; do
		[[ -e $d ]] || continue
		rm -rf "$d"
		wf_repaired "removed the half-written record ${d#"$WF_TOP"/}"
	done
	for d in "$SENDING_DIR"/.v*.tmp; do
		[[ -e $d ]] || continue
		rm -rf "$d"
		wf_repaired "removed the half-made copy ${d#"$WF_CACHE"/}"
	done
	d=$(half_sent_dir)
	if [[ -n $d && -f $SENT_DIR/${d##*/}/record ]]; then
		rm -rf "$d"
		wf_repaired "${d##*/} was sent and recorded in ${SENT_DIR#"$WF_TOP"/}/${d##*/}; removed its copy ${d#"$WF_CACHE"/}"
		RECORDED=1
	fi
}

# read_options ARGS...: DIR (-r, -d), REHEARSE (-R), TO, SMTP_SPEC,
# DRY_RUN (-n), YES (-y), ARRIVED (-A) and PF (preflight's -f).
read_options() {
	local opt
	DIR='' TO='' SMTP_SPEC='' REHEARSE=0 DRY_RUN=0 YES=0 ARRIVED='' PF=()
	while getopts 'fd:r:t:s:nyRA:' opt; do
		case $opt in
		f) PF=(-f) ;;
		d) DIR=$OPTARG ;;
		r)
			[[ $OPTARG =~ ^[1-9][0-9]*$ ]] || bad_input "revision '$OPTARG' is not a positive number"
			DIR=$WF_OUT/submit/v$OPTARG
			;;
		t) TO=$OPTARG ;;
		s) SMTP_SPEC=$OPTARG ;;
		n) DRY_RUN=1 ;;
		y) YES=1 ;;
		R) REHEARSE=1 ;;
		A)
			[[ $OPTARG == yes || $OPTARG == no ]] || bad_input "ARRIVED='$OPTARG' is neither yes nor no"
			ARRIVED=$OPTARG
			;;
		*) usage ;;
		esac
	done
	shift $((OPTIND - 1))
	[[ $# -eq 0 ]] || usage
	TO=${TO:-maintainers}
	[[ $TO == maintainers || $TO =~ ^[^,@[:space:]]+@[^,@[:space:]]+(,[^,@[:space:]]+@[^,@[:space:]]+)*$ ]] ||
		bad_input "TO='$TO' is neither 'maintainers' nor a list of addresses"
	if [[ $REHEARSE -eq 0 ]]; then
		[[ -z $SMTP_SPEC ]] ||
			bad_input "SMTP=$SMTP_SPEC names a rehearsal's server (make rehearse SMTP=$SMTP_SPEC); make send sends through your git config sendemail.*"
		[[ $TO == maintainers ]] ||
			bad_input "a trial to $TO is a rehearsal: make rehearse TO=$TO"
	elif [[ $TO == maintainers && -z $SMTP_SPEC ]]; then
		bad_input "a rehearsal to the maintainers goes to a loopback test server only: SMTP=127.0.0.1:PORT (TO=you@your.domain: a trial through your own server)"
	fi
}

# pick_dir: the revision to send (DIR) and its number (REV): for a real
# send, the half-sent copy when there is one; else the written one.
pick_dir() {
	local half
	half=$(half_sent_dir)
	if [[ $REHEARSE -eq 0 && -n $half ]]; then
		[[ -z $DIR || ${DIR##*/} == "${half##*/}" ]] ||
			die "${half##*/} is half-sent ($(sed -n 's/^started: //p' "$half/sending")): finish it first with 'make send'"
		DIR=$half
	fi
	DIR=${DIR:-$(latest_written)}
	[[ -n $DIR ]] || die "no written revision in ${WF_OUT#"$WF_TOP"/}/submit/ (run: make submit)"
	[[ -f $DIR/record && -f $DIR/cover.txt ]] ||
		die "$DIR is not a revision written by make submit (no record or cover.txt)"
	REV=$(record_field "$DIR/record" revision)
}

# sender_of DIR: the From of the first message, decoded.
sender_of() {
	eml_header "$(find "$1" -maxdepth 1 -name '*.eml' | LC_ALL=C sort | head -n 1)" From |
		python3 -c 'import sys, email.header as h; print(str(h.make_header(h.decode_header(sys.stdin.read().strip()))))'
}

# refuse_placeholders DIR: dies when a To/Cc of DIR is in a reserved
# example domain: a placeholder never reaches a header of a real send.
refuse_placeholders() {
	local list first n
	list=$(reserved_recipients "$1")
	[[ -n $list ]] || return 0
	n=$(wc -l <<<"$list")
	first=$(head -n 1 <<<"$list")
	die "refusing: $n To/Cc address(es) in a reserved example domain (a placeholder no mail reaches), first ${first#*$'\t'} in ${first%%$'\t'*}: name a real maintainer in MAINTAINERS, then make submit"
}

# count_recipients DIR: the number of distinct To/Cc addresses of DIR.
count_recipients() {
	recipients "$1" | cut -f3 | sed 's/.*<\(.*\)>$/\1/' | tr '[:upper:]' '[:lower:]' | sort -u | wc -l
}

# confirm N M: asks on stdin, unless YES; dies unless the answer is "yes".
confirm() {
	local answer=''
	[[ $YES -eq 0 ]] || return 0
	printf '%s: send v%s for real: %s message(s) to %s recipient(s) through %s, from %s? Type yes to send: ' \
		"$WF_PROG" "$REV" "$1" "$2" "$SERVER_DESC" "$SENDER" >&2
	read -r answer || true
	[[ $answer == yes ]] || die "not confirmed ('${answer}'): nothing sent (YES=1 sends without asking)"
}

# dry_run: what would go where: git send-email --dry-run of each message.
dry_run() {
	local f
	info "dry run (nothing is sent): v$REV, ${#FILES[@]} message(s) through $SERVER_DESC"
	for f in "${FILES[@]}"; do
		printf '%s\n' "${f##*/}"
		# shellcheck disable=SC2310 # its status is the answer
		git_send_email --dry-run "${ARGS[@]}" "$f" |
			awk '/^(Dry-OK|(To|Cc|Bcc|From|Subject|In-Reply-To|Message-ID|Message-Id):|Server:)/ { keep = 1; print "  " $0; next }
				keep && /^[ \t]/ { print "  " $0; next } { keep = 0 }' ||
			die "git send-email --dry-run of ${f##*/} failed"
	done
}

# start_copy: the written revision DIR copied to $SENDING_DIR/vREV, with
# its progress file; DIR becomes the copy.
start_copy() {
	local dest=$SENDING_DIR/v$REV tmp=$SENDING_DIR/.v$REV.tmp
	mkdir -p "$SENDING_DIR"
	rm -rf "$tmp"
	cp -a "$DIR" "$tmp"
	rm -f "$tmp/sending" "$tmp"/*.log
	printf 'revision: %s\nstarted: pid %s, started %s\nfrom: %s\n' "$REV" "$$" "$(date '+%F %T')" "${DIR#"$WF_TOP"/}" >"$tmp/sending"
	: >"$tmp/send.log"
	mv "$tmp" "$dest"
	DIR=$dest
}

# rehearse: send DIR to the rehearsal's server and record it apart.
rehearse() {
	[[ $TO != maintainers ]] || [[ ${#PF[@]} -gt 0 ]] || refuse_placeholders "$DIR"
	send_args "$SENDER"
	if [[ $TO == maintainers ]]; then FILES=("$DIR"/*.eml); else trial_copies "$DIR"; fi
	if [[ $DRY_RUN -eq 1 ]]; then
		dry_run
		return
	fi
	: >"$DIR/rehearsal.log"
	send_all "$DIR" "$DIR/rehearsal.log" 0
	record_rehearsal "$DIR"
}

# send_for_real: DIR to the To/Cc of its messages through the user's
# server, after her confirmation; vREV recorded.
send_for_real() {
	local half=0
	[[ $DIR != "$SENDING_DIR"/* ]] || half=1
	refuse_placeholders "$DIR"
	send_args "$SENDER"
	FILES=("$DIR"/*.eml)
	if [[ $DRY_RUN -eq 1 ]]; then
		dry_run
		return
	fi
	if [[ $half -eq 1 ]]; then
		resume_plan "$DIR" "$ARRIVED"
	fi
	wf_report_repairs last
	[[ $half -eq 1 ]] || confirm "${#FILES[@]}" "$(count_recipients "$DIR")"
	if [[ $half -eq 0 ]]; then
		start_copy
		FILES=("$DIR"/*.eml)
	fi
	send_all "$DIR" "$DIR/send.log" 1
	progress_state "$DIR"
	[[ ${#SENT[@]} -eq ${#FILES[@]} ]] || die "v$REV: ${#SENT[@]} message(s) sent, not all: not recorded"
	record_revision "$DIR" "$REV" "$VIA"
	rm -rf "$DIR"
}

main() {
	SENT=()
	read_options "$@"
	wf_lock send
	wf_run_begin send "$SENDING_DIR/.v*.tmp" "$WF_CACHE/send-tmp" "$SENT_DIR/.*.tmp" "$REHEARSALS_DIR/.*.tmp"
	RECORDED=0
	# shellcheck disable=SC2310 # wf_no_recovery is one test: its status is the answer
	wf_no_recovery || recover_send
	if [[ $RECORDED -eq 1 && $REHEARSE -eq 0 ]]; then
		wf_report_repairs last
		wf_run_end
		return 0
	fi
	pick_dir
	if [[ $REHEARSE -eq 0 ]]; then
		[[ ! -e $SENT_DIR/v$REV ]] ||
			die "v$REV was sent already (cover-letters/$WF_BRANCH/sent/v$REV): make submit writes v$((REV + 1))"
		use_configured_server
	elif [[ -n $SMTP_SPEC ]]; then
		use_loopback "$SMTP_SPEC"
	else
		use_configured_server
	fi
	# (a half-sent copy passed it when its send began; out/ may be gone)
	[[ $DIR == "$SENDING_DIR"/* ]] || "$WF_HOME/tools/preflight.sh" "${PF[@]}" "$DIR"
	SENDER=$(sender_of "$DIR")
	TMP=$WF_CACHE/send-tmp
	rm -rf "$TMP"
	mkdir -p "$TMP"
	if [[ $REHEARSE -eq 1 ]]; then
		wf_report_repairs last
		rehearse
	else
		send_for_real
	fi
	rm -rf "$TMP"
	wf_run_end
}

long_options dry-run=n -- "$@"
main "${LONG_ARGS[@]}"
