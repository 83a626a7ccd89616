# The front door of the workflow: each target runs one script.
# "make help" lists them.

SHELL := /bin/bash
CONFIG ?= boot
FORCE ?= 0

.PHONY: all deps base rebuild export build boot checkpatch validate stress \
	bench-validate submit trees other-base bisect test test-tools lint help \
	clean

## all: the whole pipeline: deps, base, rebuild, validate every commit, stress the tip
all: deps rebuild validate stress

## deps: install the Debian packages the workflow needs (as root)
deps:
	@tools/deps.sh

## base: import /usr/src/linux-source-6.1.tar.xz into the cache repo
base: deps
	@tools/base.sh >/dev/null

## rebuild: git am patches/ onto the base as the topic branch (FORCE=1 discards unexported commits)
rebuild: base
	@tools/rebuild.sh $(if $(filter 1,$(FORCE)),-f)

## export: write the topic branch back to patches/ (git format-patch)
export:
	@tools/export.sh

## checkpatch: checkpatch.pl --strict on every commit of the branch
checkpatch:
	@checks/checkpatch.sh

## build: build the branch tip in CONFIG (default boot; see checks/configs/matrix.txt)
build:
	@checks/build.sh $(CONFIG)

## boot: build the boot config at the tip and run the smoke test in QEMU
boot:
	@checks/boot.sh

## validate: checkpatch, sparse, build matrix and QEMU boot on every commit, cached by tree id (CHECKS=a,b limits)
validate:
	@checks/validate.sh $(if $(CHECKS),-c $(CHECKS))

## stress: the tip under a debug kernel (KASAN, UBSAN, lockdep): kselftest, fuzzer, threads, cost (CALLS=, SEED=)
stress:
	@checks/stress.sh $(if $(CALLS),-n $(CALLS)) $(if $(SEED),-S $(SEED))

## bench-validate: time validate against a naive git rebase --exec loop (long)
bench-validate:
	@tools/bench-validate.sh

## submit: write the series as mail with b4 into out/submit/vN (never sends; REV=N, COVER=file)
submit:
	@tools/submit.sh $(if $(REV),-r $(REV)) $(if $(COVER),-c $(COVER))

## trees: say whether each patch applies to its subsystem tree (branches.txt)
trees:
	@tools/trees.sh

## other-base: apply and build on another linux-source-6.1 (BASE=6.1.176-1, a .deb or a .tar.xz)
other-base:
	@tools/other-base.sh $(BASE)

## bisect: git bisect run build+boot+smoke between GOOD and BAD (GOOD=base/6.1.192-3 BAD=sysctl-syscall)
bisect:
	@tools/bisect-run.sh start $(GOOD) $(BAD)

## faults: kill each command at SEED-chosen moments (KILLS= per command, default 20), re-run, compare (long; not in all)
.PHONY: faults
faults:
	@tools/faults.sh $(if $(SEED),-s $(SEED)) $(if $(KILLS),-k $(KILLS)) $(ROWS)

## test: the tests of the tools (fixtures) and of the real series
test: deps
	@tests/run.sh

## test-tools: only the fast tests of the tools on fixture trees
test-tools: deps
	@tests/run.sh --tools

## lint: shellcheck the scripts
lint:
	@shellcheck -x tools/*.sh checks/*.sh qemu-boot/*.sh tests/*.sh .ci/run

## clean: remove this checkout's output (the cache stays; WF_CACHE names it)
clean:
	rm -rf out

## help: list the targets
help:
	@sed -n "s/^## \([a-z-]*\): /\1\t/p" $(MAKEFILE_LIST) | expand -t 16
