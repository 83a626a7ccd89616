#!/usr/bin/env bash
# Build the programs that run inside a guest, static, with the flags they
# are meant to build with: the one place that knows how.
#
#   qemu-boot/programs.sh -o DIR [-s SRC] NAME...
#
# NAME is one of the guest programs of qemu-boot/ (smoke, fuzz, threads,
# cost; NAME_32 is the 32-bit build, which goes through the compat entry
# point) or kselftest / kselftest_32, the series' own
# tools/testing/selftests/sysctl/sysctl_syscall.c of the kernel tree SRC
# (skipped, with a warning, when SRC has none: the commits before the
# series' kselftest).  Each lands in DIR under its name in /tests, with
# the number that orders it there (/init runs /tests in name order):
# 00-smoke_32, 10-sysctl_syscall, 11-sysctl_syscall_32, 20-fuzz, 21-fuzz_32,
# 30-threads, 31-threads_32, 40-cost, 41-cost_32.  The path of each
# program built is printed, one a line.
# Exit status: 0, or 2 when a program does not build (gcc's messages on
# stderr; "No space left on device" among them when the disk is full) or
# NAME is unknown.
set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/../tools/lib.sh"

SELFTEST=tools/testing/selftests/sysctl/sysctl_syscall.c
# The kselftest harness is not -Wextra clean: -Wall only, as kselftest's
# own Makefile builds it.
SELFTEST_CFLAGS=(-static -O2 -Wall)
CFLAGS=(-static -O2 -Wall -Wextra -Werror)

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
	kselftest) echo "10-sysctl_syscall SELFTEST" ;;
	kselftest_32) echo "11-sysctl_syscall_32 SELFTEST -m32" ;;
	fuzz) echo "20-fuzz $here/fuzz.c" ;;
	fuzz_32) echo "21-fuzz_32 $here/fuzz.c -m32" ;;
	threads) echo "30-threads $here/threads.c -pthread" ;;
	threads_32) echo "31-threads_32 $here/threads.c -m32 -pthread" ;;
	cost) echo "40-cost $here/cost.c" ;;
	cost_32) echo "41-cost_32 $here/cost.c -m32" ;;
	*) return 1 ;;
	esac
}

# compile_link OUT SOURCE FLAGS... [-- LIBS...]: OUT from SOURCE, compiled
# through ccache when there is one (a program whose source and headers
# did not change is not compiled again), then linked; the object file
# beside OUT is removed.
compile_link() {
	local out=$1 source=$2 rc=0
	local -a flags=() libs=() cc=(gcc)
	shift 2
	while [[ $# -gt 0 && $1 != -- ]]; do flags+=("$1"); shift; done
	[[ $# -eq 0 ]] || libs=("${@:2}")
	! command -v ccache >/dev/null || cc=(ccache gcc)
	"${cc[@]}" "${flags[@]}" -c -o "$out.o" "$source" && gcc "${flags[@]}" -o "$out" "$out.o" "${libs[@]}" || rc=$?
	rm -f "$out.o"
	return "$rc"
}

# build DIR SRC NAME: compile NAME into DIR; print its path.
build() {
	local dir=$1 src=$2 file source rest spec
	local -a flags
	# shellcheck disable=SC2310 # its status is its answer
	spec=$(program "$3") || fail "unknown program $3"
	read -r file source rest <<<"$spec"
	read -ra flags <<<"$rest"
	if [[ $source == SELFTEST ]]; then
		if [[ ! -f $src/$SELFTEST ]]; then
			[[ -n ${NO_SELFTEST:-} ]] || info "warning: $src has no $SELFTEST: no kselftest in the guest"
			NO_SELFTEST=1
			return 0
		fi
		# shellcheck disable=SC2310 # its status is the answer: the program built
		compile_link "$dir/$file" "$src/$SELFTEST" "${SELFTEST_CFLAGS[@]}" "${flags[@]}" \
			-I"$src/tools/testing/selftests" -- -lpthread || fail "cannot build $SELFTEST ($3)"
	else
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
		program "$name" >/dev/null || fail "unknown guest program '$name' (smoke, kselftest, fuzz, threads, cost, each also NAME_32)"
		[[ $name != kselftest* || -n $src ]] || fail "$name needs the kernel tree (-s SRC)"
	done
	mkdir -p "$dir"
	for name in "$@"; do
		build "$dir" "$src" "$name"
	done
}

main "$@"
