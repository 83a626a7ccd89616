#!/usr/bin/env bash
# Send a revision written by tools/submit.sh, and record it as sent.
#
#   tools/send.sh [-f] [-r N | -d DIR] -t maintainers|ADDRESS[,ADDRESS...] [-s HOST[:PORT]]
#   tools/send.sh [-f] [-r N | -d DIR] -n
#
# DIR is the written revision: -r N is out/submit/vN, the default the
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
set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tools/lib-sent.sh
. "$WF_HOME/tools/lib-sent.sh"

usage() {
	echo "usage: $0 [-f] [-r N | -d DIR] (-t maintainers|ADDRESS,... [-s HOST[:PORT]] | -n)" >&2
	exit 2
}

# latest_written: the highest out/submit/vN.
latest_written() {
	find "$WF_TOP/out/submit" -maxdepth 1 -name 'v*' -type d 2>/dev/null |
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
		die "SMTP server '$spec' is not HOST[:PORT]"
	fi
	port=${port:-${SMTP_PORT:-25}}
	[[ $port =~ ^[0-9]+$ && $port -ge 1 && $port -le 65535 ]] || die "SMTP server '$spec': bad port '$port'"
	mapfile -t ips < <(getent ahosts "$host" 2>/dev/null | awk '{print $1}' | sort -u)
	[[ ${#ips[@]} -gt 0 ]] || die "SMTP server '$host' does not resolve"
	for ip in "${ips[@]}"; do
		[[ $ip =~ ^127\.[0-9]+\.[0-9]+\.[0-9]+$ || $ip == ::1 ]] ||
			die "SMTP server '$host' is not a loopback address ($ip): make send only talks to a server on this machine"
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

# send_all DIR IP PORT TO SENDER: git send-email of every message of DIR,
# in order, to IP:PORT only.
send_all() {
	local dir=$1 ip=$2 port=$3 to=$4 sender=$5 f tmp i=0 log
	local -a files=() args
	log=$dir/send.log
	: >"$log"
	tmp=$(mktemp -d)
	# shellcheck disable=SC2064 # expand now: tmp is local
	trap "rm -rf '$tmp'" RETURN
	args=(--smtp-server="$ip" --smtp-server-port="$port" --smtp-encryption=none
		--smtp-auth=none --smtp-domain=localhost --confirm=never --no-annotate
		--no-thread --no-chain-reply-to --no-to-cover --no-cc-cover
		--no-signed-off-by-cc --transfer-encoding=auto --8bit-encoding=UTF-8
		--from="$sender")
	if [[ $to == maintainers ]]; then
		# The To/Cc written in each message, nothing found in its body.
		args+=(--suppress-cc=body --suppress-cc=author --suppress-cc=cccmd)
		files=("$dir"/*.eml)
	else
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
		printf '+ git send-email %s\n' "${f##*/}" >>"$log"
		# No configuration but these arguments: a user's sendemail.* (a
		# Bcc, another server, a password) must not come in.
		if ! (cd "$tmp" && GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_COUNT=0 \
			git send-email "${args[@]}" "$f") >>"$log" 2>&1 </dev/null; then
			die "git send-email of ${f##*/} to $ip:$port failed after $((i - 1)) of ${#files[@]} message(s): $(grep -iE 'error|fail|unable' "$log" | tail -n 1) (log: $log)"
		fi
	done
	info "sent ${#files[@]} message(s) of ${dir#"$WF_TOP"/} to $ip:$port ($([[ $to == maintainers ]] && echo 'their To/Cc' || echo "$to only"))"
}

# record_sent DIR REV VIA: cover-letters/sent/vREV/ from the written
# revision DIR.
record_sent() {
	local dir=$1 rev=$2 via=$3 tmp f cover key
	local dest=$SENT_DIR/v$rev
	tmp=$SENT_DIR/.v$rev.tmp
	rm -rf "$tmp"
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
	info "recorded v$rev in ${dest#"$WF_TOP"/}: commit it (git add ${dest#"$WF_TOP"/})"
}

main() {
	local dir='' to='' server='' record_only=0 opt rev ip port sender
	local -a pf=()
	while getopts 'fd:r:t:s:n' opt; do
		case $opt in
		f) pf=(-f) ;;
		d) dir=$OPTARG ;;
		r)
			[[ $OPTARG =~ ^[1-9][0-9]*$ ]] || die "revision '$OPTARG' is not a positive number"
			dir=$WF_TOP/out/submit/v$OPTARG
			;;
		t) to=$OPTARG ;;
		s) server=$OPTARG ;;
		n) record_only=1 ;;
		*) usage ;;
		esac
	done
	shift $((OPTIND - 1))
	[[ $# -eq 0 ]] || usage
	dir=${dir:-$(latest_written)}
	[[ -n $dir ]] || die "no written revision in out/submit/ (run: make submit)"
	[[ -f $dir/record && -f $dir/cover.txt ]] ||
		die "$dir is not a revision written by make submit (no record or cover.txt)"
	rev=$(record_field "$dir/record" revision)
	if [[ $record_only -eq 0 ]]; then
		[[ -n $to ]] || die "no recipients: TO=maintainers sends to the To/Cc of the messages, TO=address,... to those addresses only"
		[[ $to == maintainers || $to =~ ^[^,@[:space:]]+@[^,@[:space:]]+(,[^,@[:space:]]+@[^,@[:space:]]+)*$ ]] ||
			die "TO='$to' is neither 'maintainers' nor a list of addresses"
		server=${server:-$(configured_server)}
		[[ -n $server ]] || die "no SMTP server: SMTP=127.0.0.1:PORT, or git config sendemail.smtpServer (a loopback address)"
		server=$(loopback_server "$server")
		read -r ip port <<<"$server"
	fi
	if [[ $record_only -eq 1 || $to == maintainers ]]; then
		[[ ! -e $SENT_DIR/v$rev ]] ||
			die "v$rev was sent already (cover-letters/sent/v$rev): make submit writes v$((rev + 1))"
	fi
	"$WF_HOME/tools/preflight.sh" "${pf[@]}" "$dir"
	if [[ $record_only -eq 1 ]]; then
		record_sent "$dir" "$rev" "by hand"
		return
	fi
	sender=$(eml_header "$(find "$dir" -maxdepth 1 -name '*.eml' | LC_ALL=C sort | head -n 1)" From |
		python3 -c 'import sys, email.header as h; print(str(h.make_header(h.decode_header(sys.stdin.read().strip()))))')
	send_all "$dir" "$ip" "$port" "$to" "$sender"
	if [[ $to == maintainers ]]; then
		record_sent "$dir" "$rev" "smtp://$ip:$port"
	else
		info "a trial to $to: v$rev is not recorded as sent (TO=maintainers sends and records it)"
	fi
}

main "$@"
