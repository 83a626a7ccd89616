#!/usr/bin/env bash
# Benchmark a kernel build through distcc against a local one: is the
# distributed build the same build, and what does distcc cost here?
#
#   dev/bench-distcc.sh [-d DIR] [-s SRC] [CONFIG]
#
# Builds SRC (default: the branch's work tree in the cache, at its tip)
# in CONFIG (default boot) twice with tools/kbuild.sh, each from an
# empty ccache in the same, emptied, build directory under DIR (default
# $WF_CACHE/bench-distcc): once locally, once with every compile sent to
# a distccd that this script starts on 127.0.0.1 only (--allow
# 127.0.0.1/32, a free port), as make DISTCC_HOSTS=... does.  On one
# machine the distributed build cannot be faster: the point is that it
# works and costs little.  Prints
#   build  | time | compiled by distccd | warnings
# and then the ratio distcc/local, how many of the object files are
# byte for byte the same, how many more differ only in their debugging
# information, and whether the warnings are the same.  Exit status: 0
# the same build (every object's code and data, the warnings, distccd
# compiled at least one file), 1 they differ or distccd compiled
# nothing, 2 bad input.  Not
# a test: two cold kernel builds take minutes.
set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/../tools/lib.sh"
# shellcheck source=dev/lib/distccd.sh
. "$WF_HOME/dev/lib/distccd.sh"

usage() {
	echo "usage: $0 [-d DIR] [-s SRC] [CONFIG]" >&2
	exit 2
}

stop_distccd() {
	[[ -z ${DISTCCD_PID:-} ]] || kill "$DISTCCD_PID" 2>/dev/null || true
	wait "${DISTCCD_PID:-}" 2>/dev/null || true
	DISTCCD_PID=
}

# build NAME [HOSTS]: kbuild.sh with the empty ccache DIR/NAME/ccache,
# through HOSTS when given, into DIR/build, then moved to DIR/NAME/build
# (both builds in the same directory, as validate builds a config in
# one: the debugging information of some objects names it); SECS[NAME]
# its time.
build() {
	local name=$1 hosts=${2:-} start rc=0
	rm -rf "${DIR:?}/$name" "$DIR/build"
	mkdir -p "$DIR/$name/ccache"
	info "$name build of $CONFIG$([[ -z $hosts ]] || printf ' through %s' "$hosts") (log: $DIR/$name/build/build.log)"
	start=$(date +%s)
	CCACHE_DIR=$DIR/$name/ccache DISTCC_DIR=$DIR/$name/distcc WF_DISTCC_HOSTS=$hosts \
		"$WF_HOME/tools/kbuild.sh" -s "$SRC" -o "$DIR/build" "$CONFIG" >&2 || rc=$?
	SECS[$name]=$(($(date +%s) - start))
	mv "$DIR/build" "$DIR/$name/build"
	[[ $rc -eq 0 ]] || die "the $name build of $CONFIG failed (exit $rc; log: $DIR/$name/build/build.log)"
}

# compare_objects: ALL, the object files of the local build; SAME, those
# the distcc build has byte for byte; DEBUG, those that differ only in
# their debugging information (the same once objcopy --strip-debug took
# it out: the code compiled from text preprocessed elsewhere lists its
# headers' directories in another order); DIFFERENT, the first few that
# differ in anything else.
compare_objects() {
	local f a b
	SAME=0 DEBUG=0 ALL=0 DIFFERENT=()
	a=$DIR/local.stripped b=$DIR/distcc.stripped
	while IFS= read -r -d '' f; do
		ALL=$((ALL + 1))
		if cmp -s "$DIR/local/build/$f" "$DIR/distcc/build/$f"; then
			SAME=$((SAME + 1))
		elif objcopy --strip-debug "$DIR/local/build/$f" "$a" 2>/dev/null &&
			objcopy --strip-debug "$DIR/distcc/build/$f" "$b" 2>/dev/null && cmp -s "$a" "$b"; then
			DEBUG=$((DEBUG + 1))
		elif [[ ${#DIFFERENT[@]} -lt 5 ]]; then
			DIFFERENT+=("$f")
		fi
	done < <(cd "$DIR/local/build" && find . -name '*.o' -type f -print0 | LC_ALL=C sort -z)
	rm -f "$a" "$b"
}

main() {
	local opt compiled ratio rc=0 wsame
	declare -gA SECS=()
	DIR=$WF_CACHE/bench-distcc SRC=''
	while getopts 'd:s:' opt; do
		case $opt in
		d) DIR=$OPTARG ;;
		s) SRC=$OPTARG ;;
		*) usage ;;
		esac
	done
	shift $((OPTIND - 1))
	[[ $# -le 1 ]] || usage
	CONFIG=${1:-boot}
	command -v distccd >/dev/null || bad_input "distccd is not installed (apt-get install distcc)"
	if [[ -z $SRC ]]; then
		SRC=$(git -C "$WF_REPO" rev-parse --show-toplevel 2>/dev/null) ||
			bad_input "no kernel work tree in $WF_REPO: run make rebuild first"
	fi
	[[ -f $SRC/Makefile ]] || bad_input "$SRC is not a kernel tree (no Makefile)"
	mkdir -p "$DIR"
	trap stop_distccd EXIT
	build local
	# shellcheck disable=SC2310 # its status is its answer
	start_loopback_distccd bench-distccd 127.0.0.1/32 "$(nproc)" ||
		die "distccd did not start on 127.0.0.1:$DISTCC_PORT (log: $DISTCCD_LOG)"
	build distcc "127.0.0.1:$DISTCC_PORT/$(nproc)"
	stop_distccd
	compiled=$(grep -c 'COMPILE_OK' "$DISTCCD_LOG" || true)
	compare_objects
	wsame=no
	cmp -s "$DIR/local/build/warnings.txt" "$DIR/distcc/build/warnings.txt" && wsame=yes
	printf '%-7s | %-7s | %-19s | %s\n' build time 'compiled by distccd' warnings
	printf '%-7s | %-7s | %-19s | %s\n' local "${SECS[local]} s" - "$(wc -l <"$DIR/local/build/warnings.txt")"
	printf '%-7s | %-7s | %-19s | %s\n' distcc "${SECS[distcc]} s" "$compiled" \
		"$(wc -l <"$DIR/distcc/build/warnings.txt")"
	ratio=$(awk -v d="${SECS[distcc]}" -v l="${SECS[local]}" 'BEGIN { printf "%.2f", (l > 0 ? d / l : 0) }')
	printf 'distcc / local: %sx; objects: %d of %d the same, %d more in all but debugging information; warnings the same: %s\n' \
		"$ratio" "$SAME" "$ALL" "$DEBUG" "$wsame"
	if [[ $((SAME + DEBUG)) -ne $ALL || $ALL -eq 0 ]]; then
		printf 'differ: %s\n' "${DIFFERENT[*]}"
		rc=1
	fi
	[[ $wsame == yes ]] || rc=1
	if [[ $compiled -eq 0 ]]; then
		echo "distccd compiled nothing (log: $DISTCCD_LOG)"
		rc=1
	fi
	return "$rc"
}

main "$@"
