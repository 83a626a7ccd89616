#!/usr/bin/env bash
# Build the boot config of a kernel tree and boot it with the smoke test
# ("make boot"; bisect's boot step).
#
#   tools/boot.sh [-s SRC] [-o OUT] [-t SECONDS] [-a APPEND] [-B]
#
# -B boots the kernel already built in OUT (the caller built it).  The
# boot is checks/qemu/boot's (the qemu check's): the smoke test and, when
# the tree has it, the series' kselftest; the console log is
# OUT/console.log.  Exit status: 0 pass, 1 fail, 2 bad input.
set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/lib.sh"

main() {
	local src=$WF_REPO out='' build=1
	local -a args=()
	while getopts 's:o:t:a:B' opt; do
		case $opt in
		s) src=$OPTARG ;;
		o) out=$OPTARG ;;
		t | a) args+=("-$opt" "$OPTARG") ;;
		B) build=0 ;;
		*) echo "usage: $0 [-s SRC] [-o OUT] [-t SECONDS] [-a APPEND] [-B]" >&2; exit 2 ;;
		esac
	done
	out=${out:-$WF_CACHE/build/boot}
	if [[ $build -eq 1 ]]; then
		"$WF_HOME/tools/build.sh" -s "$src" -o "$out" boot
	fi
	"$WF_HOME/checks/qemu/boot" -s "$src" -k "$out/arch/x86/boot/bzImage" -o "$out" "${args[@]}"
}

main "$@"
