#!/usr/bin/env bash
# Build the boot config of a kernel tree and boot it with the smoke test.
#
#   checks/boot.sh [-s SRC] [-o OUT] [-t SECONDS] [-a APPEND] [-B]
#
# -B boots the kernel already built in OUT (the caller built it).
# When the tree has the series' kselftest
# (tools/testing/selftests/sysctl/sysctl_syscall.c), it is built static,
# 64-bit and 32-bit, and runs in the guest after the smoke test.
set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/../tools/lib.sh"

SELFTEST=tools/testing/selftests/sysctl/sysctl_syscall.c

main() {
	local src=$WF_REPO out='' timeout='' append='' initrd build=1
	local -a runargs=() progs=()
	while getopts 's:o:t:a:B' opt; do
		case $opt in
		s) src=$OPTARG ;;
		o) out=$OPTARG ;;
		t) timeout=$OPTARG ;;
		a) append=$OPTARG ;;
		B) build=0 ;;
		*) echo "usage: $0 [-s SRC] [-o OUT] [-t SECONDS] [-a APPEND] [-B]" >&2; exit 2 ;;
		esac
	done
	out=${out:-$WF_CACHE/build/boot}
	if [[ $build -eq 1 ]]; then
		"$WF_HOME/checks/build.sh" -s "$src" -o "$out" boot
	fi
	if [[ -f $src/$SELFTEST ]]; then
		info "building the series' kselftest ($SELFTEST), 64 and 32 bit"
		gcc -static -O2 -Wall -I"$src/tools/testing/selftests" \
			-o "$out/sysctl_syscall" "$src/$SELFTEST" -lpthread ||
			die "cannot build $SELFTEST"
		gcc -m32 -static -O2 -Wall -I"$src/tools/testing/selftests" \
			-o "$out/sysctl_syscall_32" "$src/$SELFTEST" -lpthread ||
			die "cannot build $SELFTEST with -m32"
		progs=("$out/sysctl_syscall" "$out/sysctl_syscall_32")
	fi
	initrd=$out/initramfs.cpio
	"$WF_HOME/qemu-boot/mkinitramfs.sh" -o "$initrd" "${progs[@]}"
	[[ -n $timeout ]] && runargs+=(-t "$timeout")
	[[ -n $append ]] && runargs+=(-a "$append")
	"$WF_HOME/qemu-boot/run.sh" -i "$initrd" -l "$out/console.log" "${runargs[@]}" \
		"$out/arch/x86/boot/bzImage"
}

main "$@"
