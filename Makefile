# The front door of the workflow: each target runs one script.
# "make help" lists them.

SHELL := /bin/bash
# Every recipe runs its script through $(call run,COMMAND).  The script's
# exit status is 0 pass, 1 a check failed, 2 bad input, 3 an
# infrastructure error; GNU make turns any failure into its own 2, so when
# WF_STATUS names a file (./wf sets it), the first recipe that fails
# writes "<target> <status>" there, and ./wf exits with that status.
run = st=0; $(1) || st=$$?; \
	if [ $$st -ne 0 ] && [ -n "$$WF_STATUS" ]; then (set -C; echo "$@ $$st" >"$$WF_STATUS") 2>/dev/null || :; fi; \
	exit $$st
CONFIG ?= boot
FORCE ?= 0
# BRANCH=<id>: the topic branch of branches.txt to work on, by its id or
# its git branch (BRANCH=sysctl-syscall-6.12); default: the first topic
# line, the 6.1 branch.  Every target takes it.
ifneq ($(BRANCH),)
export WF_BRANCH := $(BRANCH)
endif
# DISTCC_HOSTS="host:port/jobs ...": every kernel build (validate, build,
# boot, stress, bisect, other-base) compiles through distcc on those
# hosts, ccache in front; see doc/scaling.md.
ifneq ($(DISTCC_HOSTS),)
export WF_DISTCC_HOSTS := $(DISTCC_HOSTS)
endif

.PHONY: all all-branches port deps base rebuild export build boot checkpatch validate kcidb stress \
	status cost-stages bench-validate bench-distcc submit send rehearse record-sent trailers trees other-base bisect test test-tools \
	lint help clean

## all: the whole pipeline on one branch (BRANCH=, default the first of branches.txt): deps, base, rebuild, validate every commit, stress the tip
all: deps rebuild validate stress

## all-branches: the whole pipeline on every topic branch of branches.txt, one after the other
all-branches: deps
	@$(call run,tools/all-branches.sh)

## port: carry the series of branch FROM onto the base of branch TO (git am -3, rerere), export it, range-diff (FROM=6.1 TO=6.12; CONTINUE=1 after a resolution, ABORT=1 drops it, FORCE=1 starts again)
port: deps
	@$(call run,tools/port.sh $(if $(filter 1,$(CONTINUE)),--continue) $(if $(filter 1,$(ABORT)),--abort) $(if $(filter 1,$(FORCE)),-f) "$(FROM)" "$(TO)")

# Each stage after the ones it needs, also under make -j: validate and
# stress check the branch that rebuild makes, and when both run, stress
# (the long debug-kernel run) comes after validate.
STRESS_AFTER := $(if $(filter all validate,$(or $(MAKECMDGOALS),all)),validate)

## deps: install the Debian packages the workflow needs (as root)
deps:
	@$(call run,tools/deps.sh)

## base: import the branch's /usr/src/linux-source-<version>.tar.xz into its cache repo
base: deps
	@$(call run,tools/base.sh >/dev/null)

## rebuild: git am patches/ onto the base as the topic branch (make rebuild FORCE=1 discards unexported commits; FORCE=1 given to another target does not)
rebuild: base
	@$(call run,tools/rebuild.sh $(if $(and $(filter 1,$(FORCE)),$(filter rebuild,$(MAKECMDGOALS))),-f))

## export: write the topic branch back to patches/ (git format-patch)
export:
	@$(call run,tools/export.sh)

## checkpatch: checkpatch.pl --strict on every commit of the branch (RANGE=a..b another range)
checkpatch:
	@$(call run,tools/checkpatch.sh $(RANGE))

## build: build the branch tip in CONFIG (default boot; see configs/matrix.txt)
build:
	@$(call run,tools/build.sh $(CONFIG))

## boot: build the boot config at the tip and run the smoke test in QEMU
boot:
	@$(call run,tools/boot.sh)

# What validate runs first: rebuild (the branch from patches/, refusing
# commits never exported); with AS_IS=1 only the base (the branch the
# work tree is on is checked as it stands); with PLAN=1 nothing (the
# plan touches nothing).
VALIDATE_FIRST := $(if $(filter 1,$(PLAN)),,$(if $(filter 1,$(AS_IS)),base,rebuild))

## validate: rebuild, then every check of checks/ on every commit, cached, the cheap ones first (CHECKS=a,b RANGE=a..b V=1 FAIL_FAST=1 EVERY_COMMIT=cross; AS_IS=1 the work tree's branch as it stands, not rebuilt; PLAN=1 only say what would run and how long)
validate: $(VALIDATE_FIRST)
	@$(call run,WF_EVERY_COMMIT=$(EVERY_COMMIT) WF_VERBOSE=$(V) WF_FAIL_FAST=$(FAIL_FAST) runner/validate.sh$(if $(filter 1,$(AS_IS)), -a)$(if $(filter 1,$(PLAN)), -n) $(if $(CHECKS),-c $(CHECKS)) $(RANGE))

## status: where the branch stands, in five lines: exported or not, the last validate's verdict and age, the next revision, a send cut short, a killed run (reads only)
status:
	@$(call run,tools/status.sh)

## kcidb: the last validation as KCIDB's I/O data and patchwork's checks, beside its results.json (ORIGIN=, default sysctl_wf; REPORT_URL= where out/<id>/validate/ is published; runs nothing)
kcidb:
	@$(call run,tools/kcidb.sh $(if $(ORIGIN),--origin "$(ORIGIN)") $(if $(REPORT_URL),--url "$(REPORT_URL)"))

## cost-stages: the tip built once more with qemu-boot/cost-stages.patch (debug only): the median time of each stage of a sysctl(2) call next to open/read/close (SAMPLES=)
cost-stages:
	@$(call run,tools/cost-stages.sh $(if $(SAMPLES),--samples $(SAMPLES)))

## stress: rebuild, then the tip under a debug kernel (KASAN, UBSAN, lockdep): kselftest, fuzzer, threads, cost (CALLS=, SEED=, PROGRAMS=fuzz,threads only those)
stress: rebuild $(STRESS_AFTER)
	@$(call run,tools/stress.sh $(if $(CALLS),--calls $(CALLS)) $(if $(SEED),-S $(SEED)) $(if $(PROGRAMS),-P $(PROGRAMS)) $(if $(filter 1,$(FORCE)),-f))

## bench-validate: rebuild, then time validate against a naive git rebase --exec loop (long)
bench-validate: rebuild
	@$(call run,dev/bench-validate.sh)

## bench-distcc: the tip built twice from an empty ccache, locally and through a distccd on loopback: times, ratio, objects compared (CONFIG=)
bench-distcc:
	@$(call run,dev/bench-distcc.sh $(CONFIG))

## submit: write the series as mail with b4 into out/<id>/submit/vN (never sends; REV=N, COVER=file, SENDER='Name <addr>', NEW_CHANGE_ID=1, CC_SELF=1, FORCE=1)
submit: rebuild
	@$(call run,tools/submit.sh $(if $(REV),-r $(REV)) $(if $(COVER),-c $(COVER)) $(if $(SENDER),-S "$(SENDER)") $(if $(filter 1,$(NEW_CHANGE_ID)),-N) $(if $(filter 1,$(CC_SELF)),-C) $(if $(filter 1,$(FORCE)),-f))

## send: send out/<id>/submit/vN for real through your git config sendemail.*, after a confirmation; record it (DRY_RUN=1 shows what would go where, YES=1 asks nothing, FORCE=1; ARRIVED=yes|no after an interrupted send)
send:
	@$(call run,tools/send.sh $(if $(TO),-t "$(TO)") $(if $(SMTP),-s "$(SMTP)") $(if $(REV),-r $(REV)) $(if $(filter 1,$(DRY_RUN)),--dry-run) $(if $(filter 1,$(YES)),-y) $(if $(filter 1,$(FORCE)),-f) $(if $(ARRIVED),-A "$(ARRIVED)"))

## rehearse: send out/<id>/submit/vN to a loopback test server (SMTP=127.0.0.1:PORT) or to TO=addr,... only; recorded apart, never a revision (REV=N, DRY_RUN=1, FORCE=1)
rehearse:
	@$(call run,tools/send.sh -R $(if $(TO),-t "$(TO)") $(if $(SMTP),-s "$(SMTP)") $(if $(REV),-r $(REV)) $(if $(filter 1,$(DRY_RUN)),--dry-run) $(if $(filter 1,$(FORCE)),-f))

## record-sent: record out/<id>/submit/vN as sent by your own git send-email (REV=N, FORCE=1)
record-sent:
	@$(call run,tools/record-sent.sh $(if $(REV),-r $(REV)) $(if $(filter 1,$(FORCE)),-f))

## trailers: apply the Reviewed-by/Acked-by/Tested-by of the replies in MBOX to the branch, export (YES=1)
trailers:
	@$(call run,tools/trailers.sh $(if $(MBOX),-m "$(MBOX)") $(if $(filter 1,$(YES)),-y))

## trees: say whether each patch applies to its subsystem tree (branches.txt)
trees:
	@$(call run,tools/trees.sh)

## other-base: apply and build on another version of the branch's package (BASE=6.1.176-1, a .deb or a .tar.xz; BRANCH=6.12 BASE=6.12.117-1~deb12u1)
other-base:
	@$(if $(BASE),,echo "make other-base: BASE= is needed (a version apt knows, a .deb or a .tar.xz)" >&2; exit 2;) \
	$(call run,tools/other-base.sh $(BASE))

## bisect: git bisect run build+boot+smoke between GOOD and BAD (default: the base and the branch)
bisect:
	@$(call run,tools/bisect-run.sh start "$(GOOD)" "$(BAD)")

## faults: kill each command at SEED-chosen moments (KILLS= per command, default 20; AIM=1 at each phase of its run marker), re-run, compare; then validate and stress on a full tmpfs, and validate with its whole cache on one (ROWS=full-disk; long; not in all)
.PHONY: faults
faults:
	@$(call run,dev/faults.sh $(if $(SEED),-s $(SEED)) $(if $(KILLS),-k $(KILLS)) $(if $(filter 1,$(AIM)),-a) $(ROWS))

## mutants: plant each bug of tests/mutants/ in a scratch copy and run the tests meant to catch it; a survivor is a missing test (MUTANTS=a,b those only; MUTANTS_TIMEOUT=s per mutant; RANDOM=N SEED=S: N bugs drawn at random instead, with the survival rate; not in test)
.PHONY: mutants
comma := ,
mutants:
	@$(call run,$(if $(RANDOM),dev/mutants-random.sh --count $(RANDOM) $(if $(SEED),-s $(SEED)),dev/mutants.sh $(subst $(comma), ,$(MUTANTS))))

## coverage: the tools' tests with bash's xtrace on: per directory and script, its lines of code the tests run and, in out/coverage/, those they never run (SUITES=a.bats,b.bats those only; not in test)
.PHONY: coverage
coverage:
	@$(call run,dev/coverage.sh $(subst $(comma), ,$(SUITES)))

## test: the tests of the tools (fixtures) and of the real series
test: deps
	@$(call run,tests/run.sh)

## test-tools: only the fast tests of the tools on fixture trees
test-tools: deps
	@$(call run,tests/run.sh --tools)

## lint: shellcheck the scripts and the tests (also: functions whose set -e an if or || turns off)
lint:
	@shellcheck -x --enable=check-set-e-suppressed wf tools/*.sh tools/lib/*.sh dev/*.sh dev/lib/*.sh runner/*.sh checks/*/run \
		checks/sparse/sparse-cc checks/qemu/boot qemu-boot/*.sh \
		tests/*.sh .ci/run tests/*.bats tests/*.bash tests/fixtures/validate/boot.sh \
		tests/fixtures/validate/guest-run.sh

## clean: remove this checkout's output (the cache stays, and with it a send half done: make send finishes it)
clean:
	rm -rf "$(or $(WF_TOP),.)/out"

## help: list the targets
help:
	@sed -n "s/^## \([a-z-]*\): /\1\t/p" $(MAKEFILE_LIST) | expand -t 16
