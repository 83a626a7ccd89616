#!/usr/bin/env bash
# Build the kernel work tree in one configuration of the matrix ("make
# build"; also the build step of make boot, make stress, bisect and
# other-base).
#
#   tools/build.sh [-s SRC] [-o OUT] [-t TARGET] [-C CHECK] [-m MAKEARG]... CONFIG
#
# SRC defaults to the cache repo's work tree, OUT to $WF_CACHE/build/CONFIG.
# The rest is tools/kbuild.sh, the driver the build check uses:
# see its header.  Exit status: 0 built, 1 failed, 2 bad input.
set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/lib.sh"

main() {
	local src=$WF_REPO out='' config
	local -a args=()
	while getopts 's:o:t:C:m:' opt; do
		case $opt in
		s) src=$OPTARG ;;
		o) out=$OPTARG ;;
		t | C | m) args+=("-$opt" "$OPTARG") ;;
		*) echo "usage: $0 [-s SRC] [-o OUT] [-t TARGET] [-C CHECK] [-m MAKEARG]... CONFIG" >&2; exit 2 ;;
		esac
	done
	shift $((OPTIND - 1))
	[[ $# -eq 1 ]] || { echo "usage: $0 [-s SRC] [-o OUT] [-t TARGET] [-C CHECK] [-m MAKEARG]... CONFIG" >&2; exit 2; }
	config=$1
	WF_PROG=build exec "$WF_HOME/tools/kbuild.sh" -s "$src" -o "${out:-$WF_CACHE/build/$config}" \
		"${args[@]}" "$config"
}

main "$@"
