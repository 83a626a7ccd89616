#!/usr/bin/env bash
# Build the initramfs that the boot check runs.
#
#   qemu-boot/mkinitramfs.sh [-i INIT | -3] [-n] -o OUT [PROGRAM...]
#
# /init is the smoke test (qemu-boot/smoke.c, built static) unless -i names
# another static program; -3 makes it the 32-bit build of the smoke test,
# for a native 32-bit kernel (which cannot run a 64-bit /init).  A 32-bit
# build of the smoke test (unless -n) and every PROGRAM given go to
# /tests, where /init runs them in name order and reports each as one TAP
# line.  The cpio is made with the kernel's own
# usr/gen_init_cpio, built from the base source in the cache.
set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/../tools/lib.sh"

BIN=$WF_CACHE/bin
CFLAGS=(-static -Os -Wall -Wextra -Werror)

usage() {
	echo "usage: $0 [-i INIT | -3] [-n] -o OUT [PROGRAM...]" >&2
	exit 2
}

# build_if_stale OUT SRC [CFLAGS...]: compile SRC into OUT unless up to date.
build_if_stale() {
	local out=$1 src=$2
	shift 2
	[[ $out -nt $src ]] && return 0
	gcc "$@" -o "$out.tmp" "$src" || die "cannot compile $src"
	mv "$out.tmp" "$out"
}

gen_init_cpio() {
	local src=$BIN/gen_init_cpio.c
	if [[ ! -x $BIN/gen_init_cpio ]]; then
		local ref
		ref=$(git -C "$WF_REPO" for-each-ref --count=1 --format='%(refname)' refs/tags/base/ 2>/dev/null) || true
		[[ -n $ref ]] || die "no kernel base in $WF_REPO (run: make base)"
		git -C "$WF_REPO" show "$ref:usr/gen_init_cpio.c" >"$src"
		gcc -O2 -o "$BIN/gen_init_cpio" "$src" || die "cannot build usr/gen_init_cpio"
	fi
	printf '%s\n' "$BIN/gen_init_cpio"
}

main() {
	local init='' out='' with32=1 init32=0 prog cpio
	while getopts 'i:o:n3' opt; do
		case $opt in
		i) init=$OPTARG ;;
		o) out=$OPTARG ;;
		n) with32=0 ;;
		3) init32=1 ;;
		*) usage ;;
		esac
	done
	shift $((OPTIND - 1))
	[[ -n $out ]] || usage
	[[ -z $init || $init32 -eq 0 ]] || usage
	mkdir -p "$BIN"
	build_if_stale "$BIN/smoke" "$WF_HOME/qemu-boot/smoke.c" "${CFLAGS[@]}"
	if [[ $init32 -eq 1 || $with32 -eq 1 ]]; then
		build_if_stale "$BIN/smoke32" "$WF_HOME/qemu-boot/smoke.c" -m32 "${CFLAGS[@]}"
	fi
	[[ $init32 -eq 0 ]] || init=$BIN/smoke32
	[[ -n $init ]] || init=$BIN/smoke
	[[ -f $init ]] || die "init program $init does not exist"
	LIST=$(mktemp)
	trap 'rm -f "$LIST"' EXIT
	{
		echo "dir /dev 0755 0 0"
		echo "nod /dev/console 0600 0 0 c 5 1"
		echo "dir /proc 0555 0 0"
		echo "dir /tests 0755 0 0"
		echo "file /init $init 0755 0 0"
		if [[ $with32 -eq 1 ]]; then
			echo "file /tests/00-smoke32 $BIN/smoke32 0755 0 0"
		fi
		for prog in "$@"; do
			[[ -f $prog ]] || die "test program $prog does not exist"
			echo "file /tests/$(basename "$prog") $prog 0755 0 0"
		done
	} >"$LIST"
	# Not as the command's name: a failure there would not stop the script.
	cpio=$(gen_init_cpio)
	"$cpio" "$LIST" >"$out.tmp" || die "gen_init_cpio failed on $LIST"
	mv "$out.tmp" "$out"
}

main "$@"
