#!/usr/bin/env bash
# Where the time of a sysctl(2) call goes: a debug-only measurement.
#
#   tools/cost-stages.sh [-c COMMIT] [-n SAMPLES] [-o OUTDIR]
#
# Checks COMMIT (default: the branch's tip in the cache repo) out in the
# worktree $WF_CACHE/cost-stages/linux, applies qemu-boot/cost-stages.patch
# (which stamps the TSC at the end of each stage of a call and never goes
# into the series), builds the boot config in $WF_CACHE/cost-stages/build,
# and boots it once with the cost program (64 and 32 bit) in its stage
# mode (COST_STAGES=1, SAMPLES rounds per name, default 2000).  Prints,
# per name and entry point, the median of each stage of the call next to
# the open, read and close of the same file, and writes OUTDIR (default
# $WF_TOP/out/<id>/cost-stages, <id> the branch): the console log and
# stages.txt, the table.
# A patch that no longer applies is said in one line: regenerate it from
# an instrumented copy of kernel/sysctl_binary.c.  A run holds its lock
# and its marker ($WF_CACHE/cost-stages.run, tools/lib/run.sh); the
# table is written beside (stages.txt.tmp) and renamed.  After a killed
# run, the next one says so in one line and cleans up what it left (the
# worktree, a half-written table).
# Exit status: 0 measured; the runner's when the guest did not pass (1
# failed, 2 could not run); 1 when the tree cannot be instrumented or
# built.
set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/lib.sh"

STAGES_DIR=$WF_CACHE/cost-stages
PATCH=$WF_HOME/qemu-boot/cost-stages.patch

usage() {
	echo "usage: $0 [-c COMMIT] [-n SAMPLES] [-o OUTDIR]" >&2
	exit 2
}

# refuse MESSAGE: this run ends with nothing half-done (its marker goes),
# with MESSAGE as the error.
refuse() {
	wf_run_end
	die "$@"
}

# begin_run OUT: the lock and the marker; what a killed run left in the
# worktree and OUT is cleaned up and said.
begin_run() {
	local out=$1
	wf_lock cost-stages
	wf_run_begin cost-stages "$out/stages.txt.tmp"
	recover_worktree "$STAGES_DIR/linux"
	# shellcheck disable=SC2310 # wf_no_recovery is one test: its status is the answer
	if [[ -e $out/stages.txt.tmp ]] && ! wf_no_recovery; then
		rm -f "$out/stages.txt.tmp"
		wf_repaired "removed the half-written ${out#"$WF_TOP"/}/stages.txt.tmp"
	fi
	wf_report_repairs last
}

# prepare_tree COMMIT: the instrumented source in $STAGES_DIR/linux.
prepare_tree() {
	local commit=$1 tree=$STAGES_DIR/linux
	scratch_worktree "$tree" "$commit"
	git -C "$tree" apply "$PATCH" 2>/dev/null ||
		refuse "qemu-boot/cost-stages.patch does not apply to $(git -C "$tree" log -1 --format='%h %s'): regenerate it"
}

# table LOG: the stage lines of the console LOG, one row per entry point
# (the 64-bit program runs first, then the 32-bit one), name and method.
table() {
	awk '{ sub(/^(# )+/, "") }
		/^cost: stages tsc/ { entry = entry ? "32-bit" : "64-bit"; next }
		/^cost: stages [^ ]+ (sysctl|proc) / {
			printf "%-7s %-28s %-6s", entry, $3, $4
			for (i = 5; i <= NF; i++) printf " %s", $i
			print ""
		}' "$1"
}

main() {
	local commit='' samples=2000 out='' opt kernel bin what rc=0
	while getopts 'c:n:o:' opt; do
		case $opt in
		c) commit=$OPTARG ;;
		n) samples=$OPTARG ;;
		o) out=$OPTARG ;;
		*) usage ;;
		esac
	done
	shift $((OPTIND - 1))
	[[ $# -eq 0 ]] || usage
	[[ $samples =~ ^[0-9]+$ && $samples -ge 11 && $samples -le 4096 ]] ||
		bad_input "SAMPLES must be a number from 11 to 4096 (the kernel keeps 4096), not '$samples'"
	[[ -r $PATCH ]] || die "$PATCH is missing"
	[[ -d $WF_REPO/.git ]] || die "no cache repo at $WF_REPO (run: make rebuild)"
	# shellcheck disable=SC2310 # repo_git is one git command
	commit=$(repo_git rev-parse -q --verify "${commit:-$TOPIC_NAME}^{commit}") ||
		bad_input "no commit '${commit:-$TOPIC_NAME}' in the cache repo"
	out=${out:-$WF_OUT/cost-stages}
	mkdir -p "$out" "$STAGES_DIR"
	begin_run "$out"
	wf_run_note phase=prepare
	prepare_tree "$commit"
	what=$(git -C "$STAGES_DIR/linux" log -1 --format='%h %s' "$commit")
	info "building the boot config of $what with the stage stamps"
	wf_run_note phase=build
	"$WF_HOME/tools/build.sh" -s "$STAGES_DIR/linux" -o "$STAGES_DIR/build" boot ||
		refuse "the instrumented boot config does not build (log: $STAGES_DIR/build/build.log)"
	kernel=$STAGES_DIR/build/arch/x86/boot/bzImage
	bin=$STAGES_DIR/bin
	rm -rf "$bin"
	"$WF_HOME/qemu-boot/programs.sh" -o "$bin" cost cost_32 >/dev/null
	"$WF_HOME/qemu-boot/mkinitramfs.sh" -n -o "$STAGES_DIR/stages.cpio" "$bin"/*
	info "booting it: $samples rounds per name and entry point"
	wf_run_note phase=boot
	"$WF_HOME/qemu-boot/run.sh" -i "$STAGES_DIR/stages.cpio" -t 1800 \
		-a "COST_STAGES=1 COST_SAMPLES=$samples" -l "$out/console.log" "$kernel" >/dev/null || rc=$?
	{
		echo "# $what, $samples rounds, medians in ns"
		grep -E '^(# )+cost: stages tsc' "$out/console.log" | sed -E 's/^(# )+cost: stages /# /' || true
		printf '%-7s %-28s %-6s %s\n' entry name method 'stage medians (ns)'
		table "$out/console.log"
	} >"$out/stages.txt.tmp"
	mv "$out/stages.txt.tmp" "$out/stages.txt"
	wf_run_end
	cat "$out/stages.txt"
	[[ $rc -eq 0 ]] || info "the guest failed (status $rc): $out/console.log"
	return "$rc"
}

long_options samples=n -- "$@"
main "${LONG_ARGS[@]}"
