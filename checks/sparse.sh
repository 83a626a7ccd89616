#!/usr/bin/env bash
# The sparse that kbuild runs for C=1/C=2 during a build (CHECK=).
#
#   make C=1 CHECK=checks/sparse.sh ...
#
# Runs sparse (WF_SPARSE names another binary) with kbuild's arguments and
# tags its diagnostics "file:line:col: warning: sparse: message", so that
# the build log keeps sparse's warnings apart from the compiler's.
set -euo pipefail

main() {
	local rc=0
	{ "${WF_SPARSE:-sparse}" "$@" 2>&1 1>&3 3>&- |
		sed -E 's/^([^ :]+:[0-9]+(:[0-9]+)?: )(warning|error): /\1\3: sparse: /' >&2; } 3>&1 ||
		rc=$?
	return "$rc"
}

main "$@"
