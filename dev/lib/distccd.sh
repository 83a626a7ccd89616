# shellcheck shell=bash
# A distccd on loopback, for dev/bench-distcc.sh and tests/distcc.bats.
# Sourced, never run.

# free_port: a TCP port of 127.0.0.1 that nothing listens on.
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# start_loopback_distccd NAME ALLOW JOBS: distccd listening on 127.0.0.1
# only, on a free port (DISTCC_PORT), allowing ALLOW, running JOBS jobs;
# DISTCCD_PID, and its log DISTCCD_LOG in a new directory
# /tmp/NAME.XXXXXX that the daemon's user can write (distccd drops root
# to "distcc").  Returns 1 when it does not listen within 10 s.
start_loopback_distccd() {
	local dir i
	dir=$(mktemp -d "/tmp/$1.XXXXXX")
	chmod 777 "$dir"
	DISTCCD_LOG=$dir/log
	DISTCC_PORT=$(free_port)
	distccd --daemon --no-detach --listen 127.0.0.1 --allow "$2" --port "$DISTCC_PORT" \
		--log-file "$DISTCCD_LOG" --log-level info --jobs "$3" 3>&- &
	# shellcheck disable=SC2034 # the caller stops it
	DISTCCD_PID=$!
	for ((i = 0; i < 100; i++)); do
		grep -q 'listening on' "$DISTCCD_LOG" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}
