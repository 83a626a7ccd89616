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
# line.  The programs of qemu-boot/ are built by qemu-boot/programs.sh
# (the builds of the smoke test are kept in $WF_CACHE/bin until its
# sources change); give the other programs its way.  The cpio is made
# with the kernel's own usr/gen_init_cpio, built from the base source in
# the cache.
set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/../tools/lib.sh"

BIN=$WF_CACHE/bin

usage() {
	echo "usage: $0 [-i INIT | -3] [-n] -o OUT [PROGRAM...]" >&2
	exit 2
}

# smoke NAME: the path of the smoke test's build NAME (smoke, smoke_32),
# built again when a file it is made of is newer than the kept one.
smoke() {
	local dir=$BIN/$1 f tmp
	local -a kept
	mapfile -t kept < <(find "$dir" -maxdepth 1 -type f 2>/dev/null)
	for f in smoke.c guest.h programs.sh; do
		f=$WF_HOME/qemu-boot/$f
		[[ ! -e $f || ${#kept[@]} -eq 0 || ${kept[0]} -nt $f ]] || kept=()
	done
	if [[ ${#kept[@]} -ne 1 ]]; then
		tmp=$(mktemp -d "$BIN/.smoke.XXXXXX")
		"$WF_HOME/qemu-boot/programs.sh" -o "$tmp" "$1" >/dev/null || { rm -rf "$tmp"; exit 2; }
		rm -rf "$dir"
		# Another run may have put its build there meanwhile: then use it.
		mv -T "$tmp" "$dir" 2>/dev/null || rm -rf "$tmp"
		mapfile -t kept < <(find "$dir" -maxdepth 1 -type f)
	fi
	printf '%s\n' "${kept[0]}"
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
	local smoke32=''
	if [[ $init32 -eq 1 || $with32 -eq 1 ]]; then
		smoke32=$(smoke smoke_32)
	fi
	[[ $init32 -eq 0 ]] || init=$smoke32
	[[ -n $init ]] || init=$(smoke smoke)
	[[ -f $init ]] || die "init program $init does not exist"
	LIST=$(mktemp)
	trap 'rm -f "$LIST"' EXIT
	{
		echo "dir /dev 0755 0 0"
		echo "nod /dev/console 0600 0 0 c 5 1"
		echo "dir /proc 0555 0 0"
		echo "dir /tmp 1777 0 0"
		echo "dir /tests 0755 0 0"
		echo "file /init $init 0755 0 0"
		if [[ $with32 -eq 1 ]]; then
			echo "file /tests/${smoke32##*/} $smoke32 0755 0 0"
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
