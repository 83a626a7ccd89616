#!/usr/bin/env bash
# Make sure the Debian packages the workflow uses are installed.
#
#   tools/deps.sh [--check]
#
# As root, installs what is missing (apt-get update once, then install).
# Otherwise, or with --check, prints the exact command and fails: a
# missing package is an infrastructure error (exit 3).
set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/lib.sh"

# The branch's source package (make BRANCH=6.12: linux-source-6.12) and
# the tools; for the arm64 guest (checks/arm64), its QEMU and the armhf
# C library that clang links its 32-bit ARM programs against (the
# *-cross packages, not gcc-arm-linux-gnueabihf, which would remove
# gcc-multilib).
PACKAGES=("${TOPIC_PACKAGE:-linux-source-6.1}" b4 git git-filter-repo perl gcc make sparse
	codespell qemu-system-x86 ccache bc bison flex libelf-dev libssl-dev cpio bats
	shellcheck gcc-multilib libc6-dev xz-utils python3 jq git-email
	python3-aiosmtpd python3-ply python3-git python3-jsonschema python3-rfc3987 clang lld llvm distcc
	qemu-system-arm libc6-dev-armhf-cross libgcc-12-dev-armhf-cross)

# WF_EXTRA_PACKAGES: more packages to require (space separated).
read -r -a EXTRA <<<"${WF_EXTRA_PACKAGES:-}"
PACKAGES+=("${EXTRA[@]}")

missing_packages() {
	local pkg
	for pkg in "${PACKAGES[@]}"; do
		dpkg-query -W -f='${Status}\n' "$pkg" 2>/dev/null |
			grep -q 'install ok installed' || printf '%s\n' "$pkg"
	done
}

main() {
	local -a missing
	[[ $# -eq 0 || ($# -eq 1 && $1 == --check) ]] || bad_input "usage: tools/deps.sh [--check]"
	mapfile -t missing < <(missing_packages)
	if [[ ${#missing[@]} -eq 0 ]]; then
		info "all ${#PACKAGES[@]} packages are installed"
		return 0
	fi
	if [[ ${1:-} == --check || $(id -u) -ne 0 ]]; then
		infra_error "missing packages: ${missing[*]} (run: sudo apt-get update && sudo apt-get install -y ${missing[*]})"
	fi
	info "installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q >/dev/null || infra_error "apt-get update failed"
	apt-get install -y -q "${missing[@]}" >/dev/null ||
		infra_error "apt-get install ${missing[*]} failed"
	mapfile -t missing < <(missing_packages)
	[[ ${#missing[@]} -eq 0 ]] || infra_error "still missing after install: ${missing[*]}"
	info "installed; all ${#PACKAGES[@]} packages are present"
}

main "$@"
