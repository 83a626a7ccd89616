#!/usr/bin/env bash
# Build the programs that run inside a guest, static, with the flags they
# are meant to build with: the one place that knows how.
#
#   qemu-boot/programs.sh -o DIR [-s SRC] NAME...
#
# NAME is one of the guest programs of qemu-boot/ (smoke, fuzz, threads,
# cost; NAME_32 is the 32-bit build, which goes through the compat entry
# point) or kselftest / kselftest_32, the series' own
# tools/testing/selftests/sysctl/sysctl_syscall.c of the kernel tree SRC,
# built by that directory's own Makefile, as "make kselftest" and the
# test robots build it (CC="gcc -static": the guest has no C library),
# which builds sysctl_syscall and, where gcc can build a 32-bit program,
# sysctl_syscall_32 (skipped, with a warning, when SRC has no test, or
# its Makefile builds no such program: the commits before them).  Each lands in DIR under its name in /tests, with
# the number that orders it there (/init runs /tests in name order):
# 00-smoke_32, 10-sysctl_syscall, 11-sysctl_syscall_32, 20-fuzz, 21-fuzz_32,
# 30-threads, 31-threads_32, 40-cost, 41-cost_32.  smoke_arm32 and
# kselftest_arm32 (00-smoke_arm32, 12-sysctl_syscall_arm32) are 32-bit
# ARM programs, for the compat entry point of an arm64 guest (the arm64
# check): built by clang for arm-linux-gnueabihf and linked by ld.lld
# against Debian's armhf cross C library (libc6-dev-armhf-cross,
# libgcc-12-dev-armhf-cross; the gcc-arm-linux-gnueabihf compiler would
# remove gcc-multilib), the kselftest through its Makefile with that CC.
# The path of each program built is printed, one a line.
# Exit status: 0, or 2 when a program does not build (gcc's messages on
# stderr; "No space left on device" among them when the disk is full) or
# NAME is unknown.
set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/../tools/lib.sh"

SELFTEST=tools/testing/selftests/sysctl/sysctl_syscall.c
CFLAGS=(-static -O2 -Wall -Wextra -Werror)
# The compiler of the 32-bit ARM programs, and the files of the C
# library it links against that tell whether that library is installed.
ARM32_CC=(clang --target=arm-linux-gnueabihf)
ARM32_LIBS=(/usr/arm-linux-gnueabihf/lib/libc.a /usr/lib/gcc-cross/arm-linux-gnueabihf/*/libgcc.a)

# fail MESSAGE: one line, exit 2 (the guest could not be made: no test ran).
fail() {
	printf '%s: error: %s\n' "$WF_PROG" "$*" >&2
	exit 2
}

usage() {
	echo "usage: $0 -o DIR [-s SRC] NAME..." >&2
	exit 2
}

# program NAME: "file source flags..." of NAME in /tests, or fails.
program() {
	local here=$WF_HOME/qemu-boot
	case $1 in
	smoke) echo "00-smoke $here/smoke.c -Os" ;;
	smoke_32) echo "00-smoke_32 $here/smoke.c -Os -m32" ;;
	kselftest) echo "10-sysctl_syscall SELFTEST sysctl_syscall" ;;
	kselftest_32) echo "11-sysctl_syscall_32 SELFTEST sysctl_syscall_32" ;;
	fuzz) echo "20-fuzz $here/fuzz.c" ;;
	fuzz_32) echo "21-fuzz_32 $here/fuzz.c -m32" ;;
	threads) echo "30-threads $here/threads.c -pthread" ;;
	threads_32) echo "31-threads_32 $here/threads.c -m32 -pthread" ;;
	cost) echo "40-cost $here/cost.c" ;;
	cost_32) echo "41-cost_32 $here/cost.c -m32" ;;
	smoke_arm32) echo "00-smoke_arm32 $here/smoke.c -Os ARM32" ;;
	kselftest_arm32) echo "12-sysctl_syscall_arm32 SELFTEST_ARM32 sysctl_syscall" ;;
	*) return 1 ;;
	esac
}

# compile_link OUT SOURCE FLAGS... [-- LIBS...]: OUT from SOURCE, compiled
# through ccache when there is one (a program whose source and headers
# did not change is not compiled again), then linked; the object file
# beside OUT is removed.  The compiler is gcc, or ARM32_CC for a 32-bit
# ARM program (the word ARM32 among FLAGS).
compile_link() {
	local out=$1 source=$2 rc=0
	local -a flags=() libs=() compiler=(gcc) ld=() cc
	shift 2
	while [[ $# -gt 0 && $1 != -- ]]; do
		if [[ $1 == ARM32 ]]; then compiler=("${ARM32_CC[@]}") ld=(-fuse-ld=lld); else flags+=("$1"); fi
		shift
	done
	[[ $# -eq 0 ]] || libs=("${@:2}")
	cc=("${compiler[@]}")
	! command -v ccache >/dev/null || cc=(ccache "${compiler[@]}")
	"${cc[@]}" "${flags[@]}" -c -o "$out.o" "$source" && "${compiler[@]}" "${ld[@]}" "${flags[@]}" -o "$out" "$out.o" "${libs[@]}" || rc=$?
	rm -f "$out.o"
	return "$rc"
}

# selftest_make DIR SRC [ARM32]: the programs of SRC's kselftest
# directory, built by its Makefile into DIR/.kselftest (once per run;
# with ARM32, by ARM32_CC into DIR/.kselftest-arm32); fails with make's
# messages on stderr.
selftest_make() {
	local out=$1/.kselftest
	local -a cc=(gcc)
	[[ -z ${3:-} ]] || { out+=-arm32; cc=("${ARM32_CC[@]}" -fuse-ld=lld); }
	[[ ! -d $out ]] || return 0
	! command -v ccache >/dev/null || cc=(ccache "${cc[@]}")
	mkdir -p "$out"
	make -s -C "$2/${SELFTEST%/*}" OUTPUT="$out" CC="${cc[*]} -static" >&2
}

# need_arm32: fails, naming the packages, when the 32-bit ARM programs
# cannot be built here.
need_arm32() {
	local f
	if ! command -v clang >/dev/null || ! command -v ld.lld >/dev/null; then
		fail "clang and ld.lld build the 32-bit ARM programs: not installed (apt-get install clang lld)"
	fi
	for f in "${ARM32_LIBS[@]}"; do
		[[ -f $f ]] || fail "no 32-bit ARM C library ($f): apt-get install libc6-dev-armhf-cross libgcc-12-dev-armhf-cross"
	done
}

# build DIR SRC NAME: compile NAME into DIR; print its path.
build() {
	local dir=$1 src=$2 file source rest spec
	local -a flags
	# shellcheck disable=SC2310 # its status is its answer
	spec=$(program "$3") || fail "unknown program $3"
	read -r file source rest <<<"$spec"
	read -ra flags <<<"$rest"
	if [[ $source == SELFTEST* ]]; then
		if [[ ! -f $src/$SELFTEST ]]; then
			[[ -n ${NO_SELFTEST:-} ]] || info "warning: $src has no $SELFTEST: no kselftest in the guest"
			NO_SELFTEST=1
			return 0
		fi
		# shellcheck disable=SC2310 # its status is the answer: the programs built
		local made=$dir/.kselftest arm=''
		[[ $source != SELFTEST_ARM32 ]] || { made+=-arm32; arm=ARM32; need_arm32; }
		# shellcheck disable=SC2086,SC2310 # $arm: one word or none; its status is the answer
		selftest_make "$dir" "$src" $arm || fail "cannot build $SELFTEST with its Makefile ($3)"
		if [[ ! -x $made/$rest ]]; then
			info "warning: the Makefile of ${SELFTEST%/*} in $src builds no $rest: not in the guest"
			return 0
		fi
		mv "$made/$rest" "$dir/$file"
	else
		[[ " ${flags[*]} " != *" ARM32 "* ]] || need_arm32
		# shellcheck disable=SC2310 # its status is the answer: the program built
		compile_link "$dir/$file" "$source" "${CFLAGS[@]}" "${flags[@]}" || fail "cannot build $source ($3)"
	fi
	printf '%s\n' "$dir/$file"
}

main() {
	local dir='' src='' name
	while getopts 'o:s:' opt; do
		case $opt in
		o) dir=$OPTARG ;;
		s) src=$OPTARG ;;
		*) usage ;;
		esac
	done
	shift $((OPTIND - 1))
	[[ -n $dir && $# -gt 0 ]] || usage
	for name in "$@"; do
		# shellcheck disable=SC2310 # its status is its answer; it does not rely on set -e
		program "$name" >/dev/null || fail "unknown guest program '$name' (smoke, kselftest, fuzz, threads, cost, each also NAME_32; smoke_arm32, kselftest_arm32)"
		[[ $name != kselftest* || -n $src ]] || fail "$name needs the kernel tree (-s SRC)"
	done
	mkdir -p "$dir"
	for name in "$@"; do
		build "$dir" "$src" "$name"
	done
	rm -rf "$dir/.kselftest" "$dir/.kselftest-arm32"
}

main "$@"
