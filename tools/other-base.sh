#!/usr/bin/env bash
# Apply and build the series on another version of the packaged source.
#
#   tools/other-base.sh [-n] [-V VERSION] SOURCE
#
# SOURCE is one of
#   VERSION     a version of the package that apt knows (apt-cache madison
#               linux-source-6.1): fetched with "apt-get download" into
#               $WF_CACHE/debs
#   FILE.deb    a linux-source-6.1 .deb (its version is read from it)
#   FILE.tar.xz the source tarball itself (-V VERSION names it)
# The source is imported by tools/base.sh as base/<version> in the cache
# repo (once per version).  Each patch is applied in order on a temporary
# index and reported as "applies" or "needs rework" with the conflicting
# files; when all apply, the series is git am'd in the worktree
# $WF_CACHE/other-base/linux and built in the boot config (tools/build.sh
# -s that worktree -o $WF_CACHE/build/other-<version>; WF_TEST_OTHER_BUILD
# overrides the command, run with SRC and OUT exported).  -n: no build.
# Exit status 1 when a patch needs rework or the build fails.  Its scratch
# files are in $WF_CACHE/other-base/tmp; what a killed run left there and
# in the worktree (a git am, a lock) is cleaned up by the next run.
set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/lib.sh"

OTHER_TREE=${WF_OTHER_TREE:-$WF_CACHE/other-base/linux}
SCRATCH_DIR=$WF_CACHE/other-base/tmp

usage() {
	echo "usage: $0 [-n] [-V VERSION] VERSION|FILE.deb|FILE.tar.xz" >&2
	exit 2
}

# unpack_deb DEB DIR: the tarball of a linux-source .deb into DIR.
unpack_deb() {
	local deb=$1 dir=$2 pkg
	pkg=$(dpkg-deb -f "$deb" Package 2>/dev/null) || bad_input "$deb is not a .deb package"
	[[ $pkg == "$TOPIC_PACKAGE" ]] || bad_input "$deb is $pkg, not $TOPIC_PACKAGE"
	dpkg-deb -x "$deb" "$dir/x"
	[[ -r $dir/x/usr/src/$TOPIC_PACKAGE.tar.xz ]] ||
		bad_input "$deb has no usr/src/$TOPIC_PACKAGE.tar.xz"
	mv "$dir/x/usr/src/$TOPIC_PACKAGE.tar.xz" "$dir/"
	rm -rf "$dir/x"
}

# check_source SRC VERSION: refuse a SRC (a .deb, a tarball, a version)
# that cannot be imported, before the run begins: bad input leaves no
# marker of a run behind.
check_source() {
	case $1 in
	*.deb | *.tar.xz)
		[[ -r $1 ]] || bad_input "$1 not found"
		[[ $1 == *.deb || -n $2 ]] || bad_input "-V VERSION is needed with a tarball" ;;
	*)
		[[ -z $2 ]] || usage
		apt-cache madison "$TOPIC_PACKAGE" | awk -F'|' '{ gsub(/ /, "", $2); print $2 }' |
			grep -qxF "$1" || bad_input "apt knows no $TOPIC_PACKAGE $1 (see: apt-cache madison $TOPIC_PACKAGE)" ;;
	esac
}

# download VERSION: the .deb of that version, from apt.
download() {
	local ver=$1 debs=$WF_CACHE/debs deb
	mkdir -p "$debs"
	deb=$(find "$debs" -name "${TOPIC_PACKAGE}_${ver//:/%3a}_*.deb" | head -n 1)
	if [[ -z $deb ]]; then
		info "downloading $TOPIC_PACKAGE $ver"
		(cd "$debs" && apt-get download -q "$TOPIC_PACKAGE=$ver" >&2) ||
			die "apt-get download $TOPIC_PACKAGE=$ver failed"
		deb=$(find "$debs" -name "${TOPIC_PACKAGE}_${ver//:/%3a}_*.deb" | head -n 1)
		[[ -n $deb ]] || die "apt-get download $TOPIC_PACKAGE=$ver wrote no .deb in $debs"
	fi
	printf '%s\n' "$deb"
}

# read_options ARGS...: BUILD (0 with -n), VER (-V) and SOURCE.
read_options() {
	local opt
	BUILD=1 VER=''
	while getopts 'nV:' opt; do
		case $opt in
		n) BUILD=0 ;;
		V) VER=$OPTARG ;;
		*) usage ;;
		esac
	done
	shift $((OPTIND - 1))
	[[ $# -eq 1 ]] || usage
	SOURCE=$1
}

# begin_run: the lock and marker of this run, after cleaning up what an
# interrupted one left (its scratch directory, its worktree).
begin_run() {
	wf_lock other-base
	wf_run_begin other-base "$SCRATCH_DIR"
	# shellcheck disable=SC2310 # wf_no_recovery is one test: its status is the answer
	if [[ -e $SCRATCH_DIR ]] && ! wf_no_recovery; then
		rm -rf "$SCRATCH_DIR"
		wf_repaired "removed its scratch files ${SCRATCH_DIR#"$WF_CACHE"/}"
	fi
	recover_worktree "$OTHER_TREE"
	wf_report_repairs last
	mkdir -p "${SCRATCH_DIR%/*}"
	mkdir "$SCRATCH_DIR"
	trap 'rm -rf "$SCRATCH_DIR"' EXIT
}

# import_source: the package SOURCE names (a .deb, a tarball, or a version
# to download) imported as a base; REF its tag, VER its version.
import_source() {
	local tmp=$SCRATCH_DIR src=$SOURCE
	case $src in
	*.deb)
		[[ -n $VER ]] || VER=$(dpkg-deb -f "$src" Version)
		unpack_deb "$src" "$tmp" ;;
	*.tar.xz)
		# -p: the import's commit date is the tarball's mtime.
		cp -p "$src" "$tmp/$TOPIC_PACKAGE.tar.xz" ;;
	*)
		VER=$src
		# Not inside unpack_deb's arguments: a failure must stop here.
		src=$(download "$VER")
		unpack_deb "$src" "$tmp" ;;
	esac
	REF=$(WF_SRC_DIR=$tmp WF_PKG_VERSION=$VER "$WF_HOME/tools/base.sh") ||
		die "cannot import $TOPIC_PACKAGE $VER"
}

# apply_each: each of PATCHES applied alone to REF (in an index of its
# own): a row of ROWS each; N_BAD, how many need rework.
apply_each() {
	local p out conflicts
	ROWS=() N_BAD=0
	GIT_INDEX_FILE=$SCRATCH_DIR/index repo_git read-tree "$REF"
	for p in "${PATCHES[@]}"; do
		# shellcheck disable=SC2310 # repo_git is one git command
		if out=$(GIT_INDEX_FILE=$SCRATCH_DIR/index repo_git apply --cached "$p" 2>&1); then
			ROWS+=("${p##*/}|applies")
		else
			# (git apply follows its "patch failed: FILE:LINE" with
			# "FILE: patch does not apply": one line names each file.)
			conflicts=$(sed -nE 's/^error: (.*): (does not exist in index|already exists in index|patch does not apply)$/\1/p' \
				<<<"$out" | sort -u | tr '\n' ' ')
			ROWS+=("${p##*/}|needs rework: ${conflicts% }")
			N_BAD=$((N_BAD + 1))
		fi
	done
}

# build_series: the series applied with git am onto REF in a worktree of
# its own and built in the boot config; STATUS says how that went, RC=1
# when it did not build.
build_series() {
	local label=${REF#refs/tags/} cmd
	scratch_worktree "$OTHER_TREE" "$REF"
	wf_committer_env
	git -C "$OTHER_TREE" am -q --committer-date-is-author-date "${PATCHES[@]}" >/dev/null ||
		die "git am onto $label failed although git apply --check passed"
	export SRC=$OTHER_TREE OUT=$WF_CACHE/build/other-$VER
	# shellcheck disable=SC2016 # expanded by bash -c
	cmd=${WF_TEST_OTHER_BUILD:-'"$WF_HOME/tools/build.sh" -s "$SRC" -o "$OUT" boot'}
	export WF_HOME
	if bash -c "$cmd" >"$SCRATCH_DIR/build.log" 2>&1; then
		STATUS="built (boot config)"
	else
		STATUS="BUILD FAILED: $(tail -n 1 "$SCRATCH_DIR/build.log")"
		RC=1
	fi
}

main() {
	local label
	RC=0 STATUS="not built (-n)"
	read_options "$@"
	parse_branches
	lines_of PATCHES patch_files
	[[ ${#PATCHES[@]} -gt 0 ]] || die "no patches in $TOPIC_PATCHDIR/: nothing to apply"
	check_source "$SOURCE" "$VER"
	begin_run
	import_source
	label=${REF#refs/tags/}
	apply_each
	if [[ $N_BAD -gt 0 ]]; then
		STATUS="not built: $N_BAD patch(es) need rework"
		RC=1
	elif [[ $BUILD -eq 1 ]]; then
		build_series
	fi
	printf '%s\n' "patch|on $label" "${ROWS[@]}" | column -t -s '|' -o '  '
	wf_run_end
	printf '%s: %s of %s patch(es) apply; %s\n' "$label" "$((${#PATCHES[@]} - N_BAD))" "${#PATCHES[@]}" "$STATUS"
	return "$RC"
}

long_options no-build=n -- "$@"
main "${LONG_ARGS[@]}"
