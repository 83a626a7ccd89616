#!/usr/bin/env bash
# The last validation in the words of the kernel's CI ecosystem, written
# beside the results.json it is read from: kcidb.json, KCIDB's I/O schema
# v5.3 (checkouts, builds, tests) for whoever submits to KernelCI's
# database, and patchwork.json, one patchwork check per patch for
# whoever posts results to a patchwork.
#
#   tools/kcidb.sh [--origin NAME] [--url PREFIX] [RESULTS_JSON]
#
# RESULTS_JSON defaults to out/<id>/validate/results.json
# (WF_VALIDATE_RESULTS names another).  --origin (-o, make ORIGIN=,
# default sysctl_wf): KCIDB's name of this CI system, a-z, 0-9 and _, the
# start of every id and patchwork's context.  --url (-u, make
# REPORT_URL=): where the directory of results.json is published; each
# patch's target_url is PREFIX/report.html (default: the local report as
# a file:// URL).  Nothing runs: the validation is translated as it is,
# one in progress too.  The statuses: pass PASS, fail FAIL, infra ERROR,
# a check not asked for (or asked for and never run) MISS, one that does
# not apply (its own skip, a tip-only check below the tip, nothing built
# to boot) SKIP.  Each commit is a checkout: the base and the series'
# patches up to it (their sha256, as format-patch writes them; linked
# when patches/ holds the same bytes).  doc/results.md gives both
# formats and the mapping.  Exit status: 0 written, 2 bad input (no
# results.json, one it cannot read, a bad origin or URL), 3 a file could
# not be written.
set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=runner/lib.sh
. "$WF_HOME/runner/lib.sh"

CHECKS_DIR=${WF_CHECKS_DIR:-$WF_HOME/checks}
CONFIGS_DIR=${WF_CONFIGS_DIR:-$WF_HOME/configs}
MATRIX=$CONFIGS_DIR/matrix.txt
# The checks whose results are KCIDB builds (one per config); every
# other result is a test, of the build it needs or of its config's, else
# of the commit's source (a build record with no status: nothing built).
BUILD_CHECKS=(build clang)
# The KCIDB I/O schema version written.
KCIDB_MAJOR=5 KCIDB_MINOR=3
SCRATCH=''
# shellcheck source=runner/model.sh
. "$WF_HOME/runner/model.sh"

usage() {
	echo "usage: tools/kcidb.sh [--origin NAME] [--url PREFIX] [RESULTS_JSON]" >&2
	exit 2
}

# file_url PATH: PATH as a file:// URL, each segment percent-encoded.
file_url() {
	jq -rn --arg p "$1" '"file://" + ($p | split("/") | map(@uri) | join("/"))'
}

# model_json: what the checks say of each result, as a JSON object by
# result name: its check, config, architecture, kind (build or test),
# the build a test is of (a result, or "" for the source), its KCIDB path.
model_json() {
	local r c cfg kind build arch path
	for r in "${RESULT_NAMES[@]}"; do
		c=${R_CHECK[$r]} cfg=${R_CONFIG[$r]} kind=test build='' arch=''
		[[ -z $cfg ]] || arch=$(vl_matrix_row "$MATRIX" "$cfg" | awk '{ print $1 }')
		if [[ " ${BUILD_CHECKS[*]} " == *" $c "* ]]; then
			kind=build
		elif [[ -n ${R_NEEDS[$r]:-} && " ${BUILD_CHECKS[*]} " == *" ${R_CHECK[${R_NEEDS[$r]}]} "* ]]; then
			build=${R_NEEDS[$r]}
		elif [[ -n $cfg && -n ${R_OF[build,$cfg]:-} ]]; then
			build=${R_OF[build,$cfg]}
		fi
		path=$c
		# shellcheck disable=SC2310 # its status is its answer
		if declares "$c" per-config || declares "$c" configs; then path=$c.$cfg; fi
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$r" "$c" "$cfg" "$arch" "$kind" "$build" "$path"
	done | jq -R -s 'split("\n") | map(select(length > 0) | split("\t") |
		{key: .[0], value: {check: .[1], config: .[2], arch: .[3], kind: .[4], build: .[5], path: .[6]}}) |
		from_entries'
}

# patchset_json BASE COMMIT...: per commit, its patch as format-patch
# writes the series (tools/export.sh's bytes): [{name, hash, set, url}],
# set the patchset hash of the patches up to it (KCIDB's: the sha256 of
# their sha256s, a line each), url the file of patches/ with the same
# bytes or ""; [] when the commits are not in the cache repo as one line
# of commits on BASE.
patchset_json() {
	local base=$1 f name url hash mine sums=''
	shift
	local -a files
	# shellcheck disable=SC2310 # repo_git is one git command
	if ! repo_git cat-file -e "$base^{commit}" 2>/dev/null || ! repo_git cat-file -e "${!#}^{commit}" 2>/dev/null ||
		[[ $(repo_git rev-list --reverse --first-parent "$base..${!#}" 2>/dev/null | tr '\n' ' ') != "$* " ]]; then
		info "the commits of the validation are not in $WF_REPO on its base: checkouts by commit, no patchset hashes"
		echo '[]'
		return
	fi
	mkdir -p "$SCRATCH/patches"
	wf_format_patch "$WF_REPO" "$base..${!#}" "$SCRATCH/patches"
	mapfile -t files < <(find "$SCRATCH/patches" -maxdepth 1 -name '*.patch' | LC_ALL=C sort)
	[[ ${#files[@]} -eq $# ]] || bad_input "format-patch wrote ${#files[@]} patch(es) for $# commit(s)"
	for f in "${files[@]}"; do
		name=${f##*/}
		hash=$(sha256sum <"$f" | cut -c1-64)
		sums+=$hash$'\n'
		url=''
		mine=$WF_TOP/$TOPIC_PATCHDIR/$name
		if [[ -f $mine && $(sha256sum <"$mine" | cut -c1-64) == "$hash" ]]; then url=$(file_url "$mine"); fi
		printf '%s\t%s\t%s\t%s\n' "$name" "$hash" "$(printf '%s' "$sums" | sha256sum | cut -c1-64)" "$url"
	done | jq -R -s 'split("\n") | map(select(length > 0) | split("\t") | {name: .[0], hash: .[1], set: .[2], url: .[3]})'
}

# start_time DIR RANGE: the ISO time the run of RANGE began (the first
# line of DIR/timings.tsv), or nothing.
start_time() {
	local t _ what range
	[[ -r $1/timings.tsv ]] || return 0
	IFS=$'\t' read -r t _ what range <"$1/timings.tsv" || return 0
	[[ $what == start && $range == "$2" && $t =~ ^[0-9]+(\.[0-9]+)?$ ]] || return 0
	jq -rn --argjson t "$t" '$t | floor | todate'
}

# The translation: results.json on stdin, the KCIDB report (MODE kcidb)
# or the patchwork checks (MODE patchwork) on stdout.
# shellcheck disable=SC2016 # jq's variables
JQ_EXPORT='
# The KCIDB status of a result of results.json, or null (a result still
# to come in a run that goes on: no status yet).
def kstatus($state):
  if .status == "pass" then "PASS"
  elif .status == "fail" then "FAIL"
  elif .status == "infra" then "ERROR"
  elif .status == "skip" and (.reason == "not selected" or .reason == "not run") then "MISS"
  elif .status == "skip" then "SKIP"
  elif .status == "pending" and $state == "running" then null
  elif .status == "pending" then "MISS"
  else error("unknown status \(.status)") end;
def asked: .reason != "not selected";
def nonempty: with_entries(select(.value != null and .value != ""));
# A path as a file:// URL, each segment percent-encoded (file_url).
def furl: "file://" + (split("/") | map(@uri) | join("/"));
.state as $state | .base as $base | (.commits | length) as $n |
[.commits[] | . as $c |
  {index, commit, tree, subject,
   results: [.results | to_entries[] | .key as $r |
     ($model[$r] // {check: $r, config: "", arch: "", kind: "test", build: "", path: ($r | gsub("[^a-zA-Z0-9_-]"; "_"))}) as $m |
     {name: $r, m: $m, st: (.value | kstatus($state)), asked: (.value | asked), v: .value,
      typed: (if $m.kind == "build" and $m.check != $r then "\($m.check)-\($r)" else $r end)}]}] as $commits |
if $mode == "kcidb" then
  {version: {major: $major, minor: $minor},
   checkouts: [$commits[] | . as $c |
     ({id: "\($origin):\(.commit)", origin: $origin, tree_name: $tree_name,
       comment: .subject, valid: true, start_time: $start} +
      (if ($patches | length) == $n then
         {git_commit_hash: $base,
          patchset_hash: $patches[$c.index - 1].set} +
         (if all($patches[:$c.index][]; .url != "") then {patchset_files: [$patches[:$c.index][] | {name, url}]} else {} end)
       else {git_commit_hash: .commit} end) +
      {misc: {branch: $branch, git_branch: $git_branch, commit: .commit, tree: .tree, patch: .index, patches: $n,
              range: $range, validation: $state}})
     | nonempty],
   builds: [$commits[] | . as $c |
     (.results[] | select(.m.kind == "build") |
       {id: "\($origin):\($c.commit):\(.typed)", origin: $origin, checkout_id: "\($origin):\($c.commit)",
        config_name: .m.config, architecture: .m.arch, compiler: (if .m.check == "clang" then "clang" else "gcc" end),
        status: .st, comment: .v.reason, log_url: (if .v.log != "" then (.v.log | furl) else null end),
        misc: {result: .name, check: .m.check, cached: .v.cached, status: .v.status}} | nonempty),
     (select(any(.results[]; .m.kind == "test" and .m.build == "")) |
       {id: "\($origin):\(.commit):source", origin: $origin, checkout_id: "\($origin):\(.commit)",
        comment: "no build: the checks that read the commit, not a kernel"})],
   tests: [$commits[] | . as $c |
     .results[] | select(.m.kind == "test") |
       {id: "\($origin):\($c.commit):\(.name)", origin: $origin,
        build_id: "\($origin):\($c.commit):\(.m.build as $b | if $b == "" then "source" else ([$c.results[] | select(.name == $b)][0].typed // $b) end)",
        path: .m.path, status: .st, comment: .v.reason,
        log_url: (if .v.log != "" then (.v.log | furl) else null end),
        misc: {result: .name, check: .m.check, config: .m.config, cached: .v.cached, status: .v.status}} | nonempty]}
else
  [$commits[] |
    [.results[] | select(.m.kind == "build" or .m.kind == "test")] as $rs |
    ([$rs[] | select(.st == "FAIL") | .typed]) as $failed |
    ([$rs[] | select(.st == "ERROR") | .typed]) as $errors |
    ([$rs[] | select(.st == "MISS" and .asked) | .typed]) as $missing |
    ([$rs[] | select(.st == null)] | length) as $pending |
    {patch: {index, of: $n, commit, subject},
     check: {state: (if ($failed | length) > 0 then "fail"
                     elif $pending > 0 then "pending"
                     elif ($errors | length) > 0 or ($missing | length) > 0 then "warning"
                     else "success" end),
             context: $origin,
             description: ([
               "\([$rs[] | select(.st == "PASS")] | length) passed",
               (if ($failed | length) > 0 then "\($failed | length) failed: \($failed | join(", "))" else empty end),
               (if ($errors | length) > 0 then "\($errors | length) infrastructure error(s): \($errors | join(", "))" else empty end),
               (if ($missing | length) > 0 then "\($missing | length) never ran: \($missing | join(", "))" else empty end),
               (if $pending > 0 then "\($pending) to come" else empty end),
               ([$rs[] | select(.st == "SKIP")] | length | if . > 0 then "\(.) skipped" else empty end),
               ([$rs[] | select(.st == "MISS" and (.asked | not))] | length | if . > 0 then "\(.) not asked for" else empty end)
             ] | join("; ")),
             target_url: $target}}]
end'

# export_json MODE RESULTS MODEL PATCHES: the JSON of MODE.
export_json() {
	local results=$2 model=$3 patches=$4 dir start
	dir=$(dirname "$results")
	start=$(start_time "$dir" "$(jq -r .range "$results")")
	jq --arg mode "$1" --arg origin "$ORIGIN" --arg target "$TARGET" --argjson model "$model" \
		--argjson patches "$patches" \
		--arg tree_name "$TOPIC_PACKAGE" --arg branch "$TOPIC_ID" --arg git_branch "$TOPIC_NAME" \
		--arg range "$(jq -r .range "$results")" --arg start "$start" \
		--argjson major "$KCIDB_MAJOR" --argjson minor "$KCIDB_MINOR" "$JQ_EXPORT" "$results"
}

# write FILE TEXT: TEXT into FILE, whole or not at all.
write() {
	if ! printf '%s\n' "$2" >"$1.tmp" 2>/dev/null || ! mv -f "$1.tmp" "$1"; then
		rm -f "$1.tmp"
		infra_error "cannot write $1"
	fi
}

main() {
	local opt results dir model patches kcidb patchwork
	local -a commits
	ORIGIN=sysctl_wf URL=''
	while getopts ':o:u:' opt; do
		case $opt in
		o) ORIGIN=$OPTARG ;;
		u) URL=$OPTARG ;;
		*) usage ;;
		esac
	done
	shift $((OPTIND - 1))
	[[ $# -le 1 ]] || usage
	[[ $ORIGIN =~ ^[a-z0-9_]+$ ]] || bad_input "ORIGIN '$ORIGIN' is not a KCIDB origin (a-z, 0-9 and _)"
	[[ -z $URL || $URL =~ ^[a-zA-Z][a-zA-Z0-9+.-]*://[^[:space:]]+$ ]] ||
		bad_input "REPORT_URL '$URL' is not a URL (scheme://...)"
	parse_branches
	results=${1:-${WF_VALIDATE_RESULTS:-$WF_TOP/out/$TOPIC_ID/validate/results.json}}
	[[ -f $results ]] || bad_input "no validation results $results (run: make validate)"
	[[ $(jq -r '.schema' "$results" 2>/dev/null) == 3 ]] ||
		bad_input "$results is not the results.json of make validate (schema 3)"
	dir=$(cd "$(dirname "$results")" && pwd)
	results=$dir/${results##*/}
	if [[ -n $URL ]]; then TARGET=${URL%/}/report.html; else TARGET=$(file_url "$dir/report.html"); fi
	load_checks
	model=$(model_json)
	SCRATCH=$(mktemp -d)
	trap 'rm -rf "$SCRATCH"' EXIT
	mapfile -t commits < <(jq -r '.commits[].commit' "$results")
	patches='[]'
	[[ ${#commits[@]} -eq 0 ]] || patches=$(patchset_json "$(jq -r .base "$results")" "${commits[@]}")
	# shellcheck disable=SC2310 # a jq that fails is what the message says
	kcidb=$(export_json kcidb "$results" "$model" "$patches") ||
		bad_input "cannot translate $results"
	# shellcheck disable=SC2310 # as above
	patchwork=$(export_json patchwork "$results" "$model" "$patches") ||
		bad_input "cannot translate $results"
	write "$dir/kcidb.json" "$kcidb"
	write "$dir/patchwork.json" "$patchwork"
	info "$(jq '.checkouts | length' <<<"$kcidb") checkout(s), $(jq '.builds | length' <<<"$kcidb") build(s), $(jq '.tests | length' <<<"$kcidb") test(s): $dir/kcidb.json (KCIDB v$KCIDB_MAJOR.$KCIDB_MINOR); patchwork checks: $dir/patchwork.json"
}

long_options origin=o url=u -- "$@"
main "${LONG_ARGS[@]}"
