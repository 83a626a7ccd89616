#!/usr/bin/env bats
# The documents against the code: every setting the scripts read is in
# doc/settings.md, every test hook is named WF_TEST_*, the README stays a
# guide and its links lead somewhere.

load test_helper
bats_require_minimum_version 1.5.0

# The scripts of the project (not the tests' fixtures or mutants: those
# set variables, they do not define settings).
project_scripts() {
	cd "$REPO_ROOT" &&
		git ls-files -- tools dev runner checks qemu-boot Makefile wf tests/run.sh tests/test_helper.bash \
			tests/faults-fixture.sh '*.bats' | grep -v '^tests/mutants/'
}

@test "docs: every WF_* name the scripts use is in doc/settings.md (WF_CHECK_*: doc/checks.md)" {
	local name missing=()
	while read -r name; do
		if [[ $name == WF_CHECK_* ]]; then
			grep -qF "\`$name\`" "$REPO_ROOT/doc/checks.md" || missing+=("$name (doc/checks.md)")
		else
			grep -qF "\`$name\`" "$REPO_ROOT/doc/settings.md" || missing+=("$name")
		fi
	done < <(project_scripts | (cd "$REPO_ROOT" && xargs grep -hoE '\bWF_[A-Z0-9_]*[A-Z0-9]\b') | sort -u)
	echo "not documented: ${missing[*]}"
	[[ ${#missing[@]} -eq 0 ]]
}

@test "docs: every variable a make target passes on is in doc/settings.md" {
	local name missing=()
	while read -r name; do
		grep -qF "\`$name\`" "$REPO_ROOT/doc/settings.md" || missing+=("$name")
	done < <(grep -oE '\$\(([A-Z][A-Z_]*)\)' "$REPO_ROOT/Makefile" | sed -E 's/^.{2}//; s/.$//' | sort -u |
		grep -vxE 'SHELL|MAKEFILE_LIST|MAKECMDGOALS|STRESS_AFTER|VALIDATE_FIRST')
	echo "not documented: ${missing[*]}"
	[[ ${#missing[@]} -eq 0 ]]
}

@test "docs: a hook a test puts in place of a build, a boot or a recovery is named WF_TEST_*" {
	# The names the tests set for the scripts (NAME=... before a command,
	# or export NAME=...), that a project script reads.
	local name bad=()
	while read -r name; do
		# (WF_HOME and WF_CACHE: the check contract's, for a test that runs
		# a check directly)
		[[ $name == WF_TEST_* || $name == WF_CHECK_* || $name == WF_HOME ]] && continue
		grep -qF "\`$name\`" <(sed -n '/^## Settings/,/^## Test hooks/p' "$REPO_ROOT/doc/settings.md") ||
			bad+=("$name")
	done < <(cd "$REPO_ROOT/tests" && grep -hoE '\bWF_[A-Z0-9_]*[A-Z0-9]=' ./*.bats ./*.bash ./*.sh fixtures -r |
		tr -d '=' | sort -u)
	echo "set by tests, neither a user setting nor WF_TEST_*: ${bad[*]}"
	[[ ${#bad[@]} -eq 0 ]]
}

@test "docs: no test edits a project script (sed -i on tools/, dev/, runner/, checks/ or qemu-boot/)" {
	run grep -nE 'sed -i[^|;]*(tools|[^>]/dev|runner|checks|configs|qemu-boot|TOOLS|DEV|RUNNER|CHECKS|QEMU_BOOT)/' --exclude=docs.bats \
		"$REPO_ROOT"/tests/*.bats "$REPO_ROOT"/tests/*.bash
	echo "$output"
	[[ $status -eq 1 ]]
}

@test "docs: the README is a guide (at most 160 lines) and its links lead to files" {
	local n link missing=()
	n=$(wc -l <"$REPO_ROOT/README.md")
	echo "README.md: $n lines"
	((n <= 160))
	while read -r link; do
		[[ -e $REPO_ROOT/$link ]] || missing+=("$link")
	done < <(grep -oE '\]\([^)#]+\)' "$REPO_ROOT/README.md" | sed 's/^](//; s/)$//')
	echo "missing: ${missing[*]}"
	[[ ${#missing[@]} -eq 0 ]]
	for f in "$REPO_ROOT"/doc/*.md; do
		while read -r link; do
			[[ $link == http* ]] && continue
			[[ -e $(dirname "$f")/$link ]] || missing+=("${f##*/}: $link")
		done < <(grep -oE '\]\([^)#]+\)' "$f" | sed 's/^](//; s/)$//')
	done
	echo "missing: ${missing[*]}"
	[[ ${#missing[@]} -eq 0 ]]
}

@test "docs: a script's usage is written in its code, not read from its header by line number" {
	local -a scripts
	mapfile -t scripts < <(project_scripts | sed "s#^#$REPO_ROOT/#")
	run grep -nE "sed -n '[0-9,]+p' \"\\\$0\"" "${scripts[@]}"
	echo "$output"
	[[ $status -eq 1 ]]
	for s in runner/validate.sh dev/bench-validate.sh qemu-boot/run.sh; do
		run --separate-stderr "$REPO_ROOT/$s" -Z
		# shellcheck disable=SC2154 # set by run --separate-stderr
		echo "$s: $stderr"
		[ "$status" -eq 2 ]
		[[ $stderr == *"usage: $s "* ]]
	done
}

# settings_rows SECTION: the rows of that table of doc/settings.md, one a
# line, its cells separated by '|' (the outer bars gone).
settings_rows() {
	sed -n "/^## $1/,/^## /p" "$REPO_ROOT/doc/settings.md" | grep -E '^\| `' | sed 's/^| //; s/ |$//'
}

# cell_code N ROW: the `code` spans of cell N of ROW, one a line.
cell_code() {
	# shellcheck disable=SC2016 # Markdown's backquotes, no command
	cut -d'|' -f"$1" <<<"$2" | grep -oE '`[^`]+`' | tr -d '`'
}

# reads NAME FILE...: some FILE reads NAME ($NAME, ${NAME...}, $(NAME)).
reads() {
	local name=$1
	shift
	# shellcheck disable=SC2016 # a dollar sign to match
	grep -qE '\$(\{|\()?'"$name"'\b' "$@"
}

@test "docs: every setting doc/settings.md names is still read by a script or the Makefile, by each it says reads it" {
	local section row name file f bad=()
	local -a names files scripts libs
	mapfile -t scripts < <(project_scripts | grep -vx tests/docs.bats | sed "s#^#$REPO_ROOT/#")
	for section in 'Make variables' 'Settings' 'Test hooks' 'Internal'; do
		while IFS= read -r row; do
			mapfile -t names < <(cell_code 1 "$row" | grep -xE '[A-Z][A-Z0-9_]*')
			# The files of its "read by" column.
			files=()
			if [[ $section == Settings || $section == 'Test hooks' ]]; then
				while read -r f; do
					for file in "$f" "tools/$f" "dev/$f"; do
						[[ -f $REPO_ROOT/$file ]] && { files+=("$file"); break; }
					done
				done < <(cell_code 3 "$row")
			fi
			for name in "${names[@]}"; do
				reads "$name" "${scripts[@]}" || bad+=("$name (read by nothing)")
				for file in "${files[@]}"; do
					# (it, or a library of the project it sources)
					# shellcheck disable=SC2016 # a dollar sign to match
					mapfile -t libs < <(sed -nE 's#^\s*\. "\$WF_HOME/((tools|tools/lib|dev/lib|runner)/[a-z-]+\.sh)"$#'"$REPO_ROOT"'/\1#p' \
						"$REPO_ROOT/$file")
					reads "$name" "$REPO_ROOT/$file" "${libs[@]}" || bad+=("$name (not read by $file)")
				done
			done
		done < <(settings_rows "$section")
	done
	echo "documented, not read: ${bad[*]}"
	[[ ${#bad[@]} -eq 0 ]]
}

# recipe TARGET: the recipe of TARGET in the Makefile, and the scripts it
# runs with the tools' libraries they source.
recipe() {
	local text s
	text=$(awk -v t="$1:" '$1 == t { on = 1; next } on && /^\t/ { print; next } { on = 0 }' "$REPO_ROOT/Makefile")
	printf '%s\n' "$text"
	while read -r s; do
		cat "$REPO_ROOT/$s"
		grep -oE '(tools/lib-|tools/lib/|dev/lib/)[a-z-]+\.sh' "$REPO_ROOT/$s" | sort -u | sed "s#^#$REPO_ROOT/#" | xargs -r cat
	done < <(grep -oE '(tools|dev|runner|tests)/[a-z-]+\.sh' <<<"$text" | sort -u)
}

@test "docs: each make variable of doc/settings.md reaches each target it names" {
	local row name targets target text bad=()
	local -a names
	while IFS= read -r row; do
		mapfile -t names < <(cell_code 1 "$row" | grep -xE '[A-Z][A-Z0-9_]*')
		targets=$(cut -d'|' -f2 <<<"$row")
		# (all, all that build...: the Makefile exports it to every recipe)
		[[ $targets != ' all'* ]] || continue
		for target in ${targets//,/ }; do
			grep -qE "^$target:" "$REPO_ROOT/Makefile" || continue
			text=$(recipe "$target")
			for name in "${names[@]}"; do
				reads "$name" <<<"$text" || bad+=("$name: $target")
			done
		done
	done < <(settings_rows 'Make variables')
	echo "a target that does not take the variable doc/settings.md gives it: ${bad[*]}"
	[[ ${#bad[@]} -eq 0 ]]
}

@test "docs: no header or document names a branch's output without its id (out/<id>/..., cover-letters/<id>/sent/)" {
	local -a files
	mapfile -t files < <(project_scripts | grep -vx tests/docs.bats | sed "s#^#$REPO_ROOT/#")
	files+=("$REPO_ROOT"/README.md "$REPO_ROOT"/CONTRIBUTING.md "$REPO_ROOT"/doc/*.md)
	# shellcheck disable=SC2016 # a dollar sign to match
	run grep -nE 'cover-letters/sent|(\$WF_TOP/|[ `(])out/(validate|stress|submit|cost-stages|trees)' "${files[@]}"
	echo "$output"
	[[ $status -eq 1 ]]
}

# guest_lists: "WHERE: NAME..." for each list of the stress guest's
# programs: tools/stress.sh's PROGRAMS (the code), its usage, doc/pipeline.md.
guest_lists() {
	local text
	printf 'tools/stress.sh PROGRAMS: %s\n' "$(sed -n 's/^PROGRAMS=(\(.*\))$/\1/p' "$REPO_ROOT/tools/stress.sh")"
	text=$("$REPO_ROOT/tools/stress.sh" -h | tr '\n' ' ')
	[[ $text =~ -P\ runs\ only\ the\ guest\ +programs\ NAMES\ names\ \(comma-separated,\ of\ ([^\;]*)\; ]] ||
		{ echo "tools/stress.sh -h: no list"; return 1; }
	printf 'tools/stress.sh -h: %s\n' "$(sed 's/,\|and//g; s/  */ /g' <<<"${BASH_REMATCH[1]}")"
	text=$(tr '\n' ' ' <"$REPO_ROOT/doc/pipeline.md")
	[[ $text =~ runs\ only\ +those\ +guest\ +programs\ +\(of\ ([^\;]*)\; ]] ||
		{ echo "doc/pipeline.md: no list"; return 1; }
	# shellcheck disable=SC2016 # Markdown's backquotes, no command
	printf 'doc/pipeline.md: %s\n' "$(grep -oE '`[a-z0-9_]+`' <<<"${BASH_REMATCH[1]}" | tr -d '`' | paste -sd ' ')"
}

@test "docs: the guest programs of make stress are listed alike in its code, its usage and doc/pipeline.md, each one programs.sh builds" {
	local code list where names n bad=()
	run guest_lists
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 3 ]
	code=${lines[0]#*: }
	[[ $code == *kselftest*cost* ]]
	for list in "${lines[@]}"; do
		where=${list%%: *} names=${list#*: }
		[[ $names == "$code" ]] || bad+=("$where: $names")
	done
	for n in $code; do
		grep -qE "^\s+$n\) echo" "$REPO_ROOT/qemu-boot/programs.sh" || bad+=("qemu-boot/programs.sh: no $n")
	done
	echo "not as tools/stress.sh's PROGRAMS ($code): ${bad[*]}"
	[[ ${#bad[@]} -eq 0 ]]
}

@test "docs: the rows of make faults are listed alike in dev/faults.sh's ALL_ROWS and its usage, each a row_<name>_cmd" {
	local code usage text n bad=()
	code=$(sed -n 's/^ALL_ROWS=(\(.*\))$/\1/p' "$REPO_ROOT/dev/faults.sh")
	text=$("$REPO_ROOT/dev/faults.sh" -h | tr '\n' ' ')
	[[ $text =~ COMMAND:\ ([^\(]*)\ \(default:\ all,\ in\ that\ order\) ]]
	usage=$(sed 's/,//g; s/  */ /g' <<<"${BASH_REMATCH[1]}")
	echo "ALL_ROWS: $code"
	echo "usage:    $usage"
	[[ -n $code && $usage == "$code" ]]
	for n in $code; do
		[[ $n == full-disk ]] || grep -qE "^row_${n//-/_}_cmd\(\)" "$REPO_ROOT/dev/lib/faults-rows.sh" || bad+=("$n")
	done
	echo "no row_<name>_cmd in dev/lib/faults-rows.sh: ${bad[*]}"
	[[ ${#bad[@]} -eq 0 ]]
}
