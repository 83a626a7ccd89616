#!/usr/bin/env bash
# Build a kernel tree in one configuration of the matrix: the driver of
# kbuild that the build and sparse checks and tools/build.sh ("make
# build") share.
#
#   tools/kbuild.sh -s SRC -o OUT [-t TARGET]... [-C CHECK] [-m MAKEARG]... CONFIG
#
# SRC is the kernel work tree, OUT the build directory; -t names a target
# of make (bzImage without one; each -t adds one: kernel/sysctl.o builds
# that object alone, as kbuild's single targets do).  -C is make's C=
# (1: the checker on what is rebuilt, 2: on every target); -m adds one
# make argument (for instance CHECK=checks/sparse/sparse-cc).  The config
# is tinyconfig with the fragments that configs/matrix.txt (of the
# workflow; WF_CONFIGS_DIR names another) lists for CONFIG.  Every
# requested symbol that the tree defines must end up with the requested
# value.  Writes OUT/build.log and OUT/warnings.txt (compiler and sparse
# warnings as "file: message", line numbers removed), also when the
# build fails.  While make runs, one progress line every
# WF_PROGRESS_INTERVAL seconds (default 15) on stderr: the elapsed time
# and the objects built so far.  With WF_DISTCC_HOSTS (make
# DISTCC_HOSTS="host:port/jobs ..."; distcc's DISTCC_HOSTS syntax) gcc's
# compiles go through distcc behind ccache (CCACHE_PREFIX=distcc), with
# -Wp,-fdirectives-only (the local build's warnings, see distcc_setup;
# a clang build, -m CC=...clang or -m LLVM=1, is compiled here), and
# make runs as many jobs as the hosts take (distcc -j, at least nproc);
# a host that does not answer is said in one line and its jobs are
# compiled here (distcc's own fallback), so no result depends on the
# hosts.  distcc's state is in $WF_CACHE_ROOT/distcc (DISTCC_DIR).
# Exit status: 0 built, 1 the build or the config failed, 2 bad input.
set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/lib.sh"

CONFIGS=${WF_CONFIGS_DIR:-$WF_HOME/configs}

usage() {
	echo "usage: $0 -s SRC -o OUT [-t TARGET]... [-C CHECK] [-m MAKEARG]... CONFIG" >&2
	exit 2
}

bad_input() {
	printf '%s: error: %s\n' "$WF_PROG" "$*" >&2
	exit 2
}

# host_answers HOST PORT: true when something listens on HOST:PORT.
host_answers() {
	# shellcheck disable=SC2016 # expanded by the inner bash
	timeout 3 bash -c 'exec 3<>"/dev/tcp/$1/$2"' _ "$1" "$2" 2>/dev/null
}

# distcc_setup COMPILER: distcc for WF_DISTCC_HOSTS, and JOBS, make's -j:
# the jobs the hosts that answer take (distcc -j), at least nproc; no
# distcc when none answers.  Each host that does not answer is said in one
# line.  A clang build (COMPILER clang) is compiled here, said in one
# line: clang rejects gcc's -fdirectives-only (every compile would fail,
# a false failure of the clang check), and without it clang warns in a
# macro's expanded text where it does not in the source
# (-Wtautological-pointer-compare); its -frewrite-includes keeps the
# macros but names the object's file "<built-in>": not the local build.
distcc_setup() {
	local compiler=$1 spec host port up=() n
	if [[ $compiler == clang ]]; then
		info "distcc: a clang build is compiled here (distcc's preprocessed text does not give clang's local warnings and objects)"
		return 0
	fi
	command -v distcc >/dev/null || bad_input "DISTCC_HOSTS is set but distcc is not installed (apt-get install distcc)"
	for spec in $WF_DISTCC_HOSTS; do
		case $spec in
		localhost* | @* | --*) up+=("$spec"); continue ;;
		esac
		host=${spec%%[/,]*}
		port=3632
		if [[ $host == *:* ]]; then
			port=${host##*:}
			host=${host%:*}
		fi
		# shellcheck disable=SC2310 # its status is its answer
		if host_answers "$host" "$port"; then
			up+=("$spec")
		else
			info "distcc: $host:$port does not answer: its jobs are compiled here"
		fi
	done
	[[ ${#up[@]} -gt 0 ]] || return 0
	export DISTCC_HOSTS="${up[*]}" CCACHE_PREFIX=distcc
	# distcc preprocesses here and compiles the text there, and GCC warns
	# in that text about what it leaves out inside a macro's expansion
	# (-Waddress in list_for_each_entry_safe_from(): a warning a local
	# build does not have, which the build check would call new).  With
	# -fdirectives-only the text keeps its macros, expanded where it is
	# compiled: the local build's warnings and objects.  Given as -Wp,
	# because ccache drops a plain -fdirectives-only from the command it
	# hands to distcc; KCFLAGS reaches the C compiles only, not the
	# assembler's preprocessing.
	export KCFLAGS="${KCFLAGS:+$KCFLAGS }-Wp,-fdirectives-only"
	export DISTCC_DIR=${DISTCC_DIR:-$WF_CACHE_ROOT/distcc}
	mkdir -p "$DISTCC_DIR"
	n=$(distcc -j 2>/dev/null) || n=0
	[[ $n -le $JOBS ]] || JOBS=$n
}

# distcc_fallbacks: one line when distcc compiled jobs here that a host
# refused or failed (its warnings are in the build log).
distcc_fallbacks() {
	local n
	n=$(grep -c 'failed to distribute' "$OUT/build.log" || true)
	[[ $n -eq 0 ]] ||
		info "distcc: $n compile(s) could not be distributed (a host refused or failed): compiled here; see $OUT/build.log"
}

# matrix_row CONFIG: prints "arch fragment..." for CONFIG.
matrix_row() {
	local name=$1 row
	row=$(awk -v n="$name" '$1 == n { $1 = ""; print; exit }' \
		<(sed 's/#.*//' "$CONFIGS/matrix.txt"))
	[[ -n $row ]] || bad_input "unknown config '$name' (see $CONFIGS/matrix.txt)"
	printf '%s\n' "$row"
}

# merged_fragment ARCH FRAGMENTS...: tinyconfig's inputs and ours, in order.
# Only ours are verified afterwards: tiny.config names symbols of both
# x86 flavours.
merged_fragment() {
	local frag
	shift
	cat "$SRC/kernel/configs/tiny-base.config" "$SRC/kernel/configs/tiny.config"
	cat "$SRC/arch/x86/configs/tiny.config"
	for frag in "$@"; do
		cat "$CONFIGS/$frag"
	done
}

# verify_config FRAGMENT: every symbol requested by FRAGMENT (last value
# wins) that the tree knows must have that value in OUT/.config.
verify_config() {
	local frag=$1 sym want have bad=0
	while read -r sym want; do
		have=$(grep -E "^(CONFIG_$sym=|# CONFIG_$sym is not set)" "$OUT/.config" || true)
		case $have in
		"CONFIG_$sym=$want") continue ;;
		"# CONFIG_$sym is not set") [[ $want == n ]] && continue ;;
		"") [[ $want == n ]] && continue
			grep -rqE "^[[:space:]]*(menu)?config[[:space:]]+$sym\$" \
				--include='Kconfig*' "$SRC" || continue ;;
		esac
		printf '%s: config %s: CONFIG_%s=%s requested, .config has "%s"\n' \
			"$WF_PROG" "$CONFIG" "$sym" "$want" "${have:-nothing}" >&2
		bad=1
	done < <(sed -nE -e 's/^CONFIG_([A-Za-z0-9_]+)=(.*)/\1 \2/p' \
		-e 's/^# CONFIG_([A-Za-z0-9_]+) is not set/\1 n/p' "$frag" |
		awk '{ v[$1] = $2; if (!($1 in o)) { o[$1] = n++; k[n - 1] = $1 } }
		     END { for (i = 0; i < n; i++) print k[i], v[k[i]] }')
	return $bad
}

# progress_ticker PID STAMP: while PID (this script) runs, every
# WF_PROGRESS_INTERVAL seconds, the elapsed time and the number of objects
# newer than STAMP.  Run in the background; TERM ends it at once wherever
# it is: no trap, it waits in nap (tools/lib.sh).
progress_ticker() {
	local pid=$1 stamp=$2 every=${WF_PROGRESS_INTERVAL:-15} start=$SECONDS n
	while :; do
		nap "$every"
		kill -0 "$pid" 2>/dev/null || return 0
		n=$(find "$OUT" -name '*.o' -newer "$stamp" 2>/dev/null | wc -l)
		info "config $CONFIG: building ${TARGETS[*]}, $(vl_elapsed $((SECONDS - start))), $n object(s) built"
	done
}

# vl_elapsed SECONDS: "1m05s".
vl_elapsed() {
	printf '%dm%02ds' $(($1 / 60)) $(($1 % 60))
}

# run_make ARGS...: make with the progress ticker; its status.  make runs
# in the foreground, in the caller's process group: a Ctrl-C (SIGINT to
# the group) stops it and its compilers at once.  (Started with "&", a
# non-interactive bash would start it with SIGINT ignored, and every
# compiler after it: the build went on as an orphan, holding the lock of
# the make validate that ran it.)  The ticker is the background job, a
# subshell, which SIGINT to the group ends too; it is ended after make,
# and ends by itself once this script is gone.
run_make() {
	local rc=0 ticker
	: >"$OUT/.kbuild-stamp"
	progress_ticker $$ "$OUT/.kbuild-stamp" &
	ticker=$!
	"${MK[@]}" "$@" >"$OUT/build.log" 2>&1 || rc=$?
	kill "$ticker" 2>/dev/null || true
	wait "$ticker" 2>/dev/null || true
	return $rc
}

main() {
	local check=0 row arch frag f rc=0 compiler
	local -a extra=()
	SRC='' OUT='' TARGETS=()
	while getopts 's:o:t:C:m:' opt; do
		case $opt in
		s) SRC=$OPTARG ;;
		o) OUT=$OPTARG ;;
		t) TARGETS+=("$OPTARG") ;;
		C) check=$OPTARG ;;
		m) extra+=("$OPTARG") ;;
		*) usage ;;
		esac
	done
	shift $((OPTIND - 1))
	[[ $# -eq 1 && -n $SRC && -n $OUT ]] || usage
	[[ ${#TARGETS[@]} -gt 0 ]] || TARGETS=(bzImage)
	CONFIG=$1
	row=$(matrix_row "$CONFIG")
	read -r arch frag <<<"$row"
	for f in $frag; do
		[[ -r $CONFIGS/$f ]] || bad_input "config fragment $CONFIGS/$f is missing"
	done
	[[ -f $SRC/Makefile && -d $SRC/kernel ]] ||
		bad_input "$SRC is not a kernel source tree$([[ $SRC != "$WF_REPO" ]] || echo ' (run: make rebuild)')"
	mkdir -p "$OUT"
	rm -f "$OUT/warnings.txt"
	# shellcheck disable=SC2086 # the fragment list is split on purpose
	merged_fragment "$arch" $frag >"$OUT/fragment.config"
	# shellcheck disable=SC2086
	(cd "$CONFIGS" && cat $frag) >"$OUT/requested.config"
	export CCACHE_DIR=${CCACHE_DIR:-$WF_CACHE/ccache}
	export KBUILD_BUILD_TIMESTAMP='Thu Jan  1 00:00:00 UTC 1970'
	export KBUILD_BUILD_USER=sysctl-wf KBUILD_BUILD_HOST=qemu
	JOBS=$(nproc)
	compiler=gcc
	for f in "${extra[@]}"; do
		case $f in
		LLVM=* | CC=*clang*) compiler=clang ;;
		esac
	done
	[[ -z ${WF_DISTCC_HOSTS:-} ]] || distcc_setup "$compiler"
	MK=(make -s -C "$SRC" O="$OUT" ARCH="$arch" "CC=ccache gcc"
		-j"$JOBS" "${extra[@]}")
	"${MK[@]}" KCONFIG_ALLCONFIG="$OUT/fragment.config" allnoconfig \
		>"$OUT/config.log" 2>&1 || {
		tail -n 5 "$OUT/config.log" >&2
		die "config $CONFIG: allnoconfig failed (log: $OUT/config.log)"
	}
	# shellcheck disable=SC2310 # its status is its answer; it does not rely on set -e
	verify_config "$OUT/requested.config" ||
		die "config $CONFIG does not have the symbols its fragments request"
	# shellcheck disable=SC2310 # its status is its answer; it does not rely on set -e
	run_make C="$check" "${TARGETS[@]}" || rc=$?
	[[ -z ${CCACHE_PREFIX:-} ]] || distcc_fallbacks
	extract_warnings <"$OUT/build.log" >"$OUT/warnings.txt"
	if [[ $rc -ne 0 ]]; then
		grep -E 'error|Error' "$OUT/build.log" | head -n 5 >&2 || true
		die "config $CONFIG: build of ${TARGETS[*]} failed (log: $OUT/build.log)"
	fi
	info "config $CONFIG: built ${TARGETS[*]}, $(wc -l <"$OUT/warnings.txt") warning(s)"
}

# extract_warnings: "file: message" for each compiler or sparse warning,
# with the line and column numbers and the build directory removed, and
# gcc's typographic quotes made plain, so that warnings can be compared
# between commits.
extract_warnings() {
	sed -nE 's/^([^ :]+):[0-9]+(:[0-9]+)?: (warning|error): (.*)$/\1: \3: \4/p' |
		LC_ALL=C sed -E -e "s#^(\\.\\./|$SRC/)##" -e "s/\xe2\x80[\x98\x99]/'/g" | LC_ALL=C sort -u
}

main "$@"
