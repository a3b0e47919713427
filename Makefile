# The mmap_prepare teaching kit. `make` builds everything, `make check` tests it.
# `make help` lists the targets. The Makefile only wires the scripts in scripts/,
# qemu/ and labs/ together; each of them does one job and says what it does.

SHELL := /bin/bash
.DEFAULT_GOAL := all

TOP      := $(CURDIR)
# Not configurable: the scripts find their outputs under build/ too.
override BUILD := $(TOP)/build
TARBALL  := /usr/src/linux-source-6.12.tar.xz
KSRC     := $(BUILD)/linux
KOBJ     := $(BUILD)/kernel
# The mainline (7.x) kernel of the stages whose stage.conf says
# STAGE_KERNEL=mainline: fetched and built by scripts/kernel/kernel-mainline.sh.
KOBJ_MAINLINE := $(BUILD)/kernel-mainline
CHECKER  := $(BUILD)/checker
NPROC    := $(shell nproc)
HTML     := $(BUILD)/html
PATCHES  := $(TOP)/patches
FRAGMENT := $(TOP)/qemu/kernel.config

# A kit copied (cp -a) or moved (mv) after a build: kbuild's object
# directories hold the old absolute path, so rewrite it before anything runs
# (build/.kit-root says where build/ was made). Quick when nothing moved.
# On a fresh clone only the stamp is written, by the shell: nothing to
# rewrite yet, and python3 may not be installed (make packages installs it).
ifeq ($(MAKELEVEL),0)
ifneq ($(wildcard $(BUILD)),)
$(shell scripts/setup/relocate-build.py $(BUILD) >&2)
else
$(shell mkdir -p $(BUILD) && realpath $(TOP) >$(BUILD)/.kit-root)
endif
endif

SOURCE_STAMP := $(BUILD)/.stamp-kernel-source
KERNEL_STAMP := $(KOBJ)/.stamp-kernel-built
PATCH_FILES  := $(PATCHES)/series $(wildcard $(PATCHES)/*.patch)

STAGES := $(shell qemu/stages.sh list)
ifneq ($(STAGE),)
$(shell qemu/stages.sh check $(STAGE) >&2)
ifneq ($(.SHELLSTATUS),0)
$(error unknown STAGE=$(STAGE); valid stages: $(STAGES))
endif
endif
CHECK_STAGES := $(if $(STAGE),$(STAGE),$(STAGES))
# The lab stages, those make start copies: the labs/NN-name folders.
LAB_STAGES = $(patsubst 0%,%,$(patsubst labs/%,%,$(foreach d,$(wildcard labs/[0-9][0-9]-*),$(firstword $(subst -, ,$(d))))))
# make boot needs a STAGE before it builds anything.
ifneq ($(filter boot,$(MAKECMDGOALS)),)
ifeq ($(STAGE),)
$(error usage: make boot STAGE=N (one of: $(STAGES)))
endif
endif
# Worked out on first use only, once (each costs a fraction of a second, and
# most targets need neither): the lazy-once idiom of GNU make.
MAINLINE_STAGES = $(eval MAINLINE_STAGES := $$(shell qemu/stages.sh list-kernel mainline))$(MAINLINE_STAGES)
KIT_612_STAGES = $(eval KIT_612_STAGES := $$(shell qemu/stages.sh list-kernel 6.12))$(KIT_612_STAGES)
# A mainline STAGE=N needs the mainline kernel before its module.
STAGE_NEEDS_MAINLINE := $(if $(STAGE),$(filter mainline,$(shell qemu/stages.sh kernel $(STAGE))))
LAB_DIRS     := $(wildcard labs/[0-9][0-9]-*)

.PHONY: all help ready packages kernel-source kernel kernel-mainline check-mainline cocci cocci-tests cocci-report cocci-proof cocci-recall cocci-boot bench bench-docs stress modules start diff checker skeletons docs \
	docs-kernel check check-static check-todos check-loop record-loop vma-tests boot kernel-git export-patches \
	check-series check-stock check-driver check-driver-cases check-mainline-lane check-mistakes check-relocation check-sanitizers record-sanitizers record-times record-fail-nth fresh-machine-test clean distclean

# The checker and the HTML docs need only the kernel's source: they build
# beside the kernel, at nice 19, in its idle moments and then on the core
# that modules and skeletons (one kbuild run each) leave idle; built one
# after the other at the end, they were 16 of make's last 22 s, on one core
# (measured on 2026-12-07, 2 cores).
# Meanwhile the mainline kernel's source is fetched, configured and prepared
# in the background (nice 19: the 6.12 build's idle moments), for make
# check, whose mainline build then starts from there; make waits for it at
# the end (not on failure: the job stops when make is gone). Only for the
# make the user typed: make check runs make all too, beside its own
# background job that fetches and builds the mainline kernel.
all: packages ## build kernel, modules, checker, skeletons and HTML docs (and fetch the mainline kernel's source)
ifeq ($(MAKELEVEL),0)
	@KIT_OWNER_PID=$$PPID scripts/kernel/kernel-mainline.sh --prefetch
endif
	@$(MAKE) --no-print-directory kernel-source
	@echo ">> the checker and the HTML docs: built beside the kernel (nice 19), their output after the kernel's"
	@mkdir -p $(BUILD)/logs && nice -n 19 $(MAKE) --no-print-directory -j$(NPROC) checker docs >$(BUILD)/logs/beside-kernel.out 2>&1 & beside=$$!; \
	$(MAKE) --no-print-directory kernel modules skeletons; rc=$$?; \
	wait $$beside || { cat $(BUILD)/logs/beside-kernel.out; echo "error: the checker or the HTML docs did not build (above; log: $(BUILD)/logs/beside-kernel.out)" >&2; exit 1; }; \
	cat $(BUILD)/logs/beside-kernel.out; exit $$rc
ifeq ($(MAKELEVEL),0)
	@scripts/kernel/kernel-mainline.sh --prefetch-wait
endif

# make help is the kit's index: each target, what it does, and the script
# that does it (scripts/JOB/TARGET.sh, named after the target).
help: ## list the targets, with the script each one runs
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/' | while IFS=$$'\t' read -r target what; do \
		script=$$(ls scripts/*/"$$target".sh 2>/dev/null | head -n 1); \
		printf '%-19s %s%s\n' "$$target" "$$what" "$${script:+ [$$script]}"; \
	done

# Checked once, by the make that the user typed: the makes it runs (and the
# makes its scripts run, which inherit MAKELEVEL) never ask apt again.
packages: ## install missing Debian packages (as root), or print the apt-get line
ifeq ($(MAKELEVEL),0)
	@scripts/setup/packages.sh
else
	@:
endif

ready: ## the day before a workshop: packages, disk, both kernels, the guests' accelerator, network, work/; ends READY or NOT READY and what to do
	@scripts/setup/ready.sh || true

kernel-source: $(SOURCE_STAMP) ## unpack linux-source-6.12 into build/linux and apply patches/series
$(SOURCE_STAMP): $(PATCH_FILES) scripts/kernel/kernel-source.sh | packages
	@scripts/kernel/kernel-source.sh $(TARBALL) $(PATCHES) $(KSRC)
	@touch $@

kernel: $(KERNEL_STAMP) ## configure (tinyconfig + qemu/kernel.config) and build the kit kernel
$(KERNEL_STAMP): $(SOURCE_STAMP) $(FRAGMENT)
	@scripts/kernel/kernel.sh $(KSRC) $(KOBJ) $(FRAGMENT)
	@touch $@

kernel-mainline: packages ## fetch Debian's linux-source-7.* (pinned) and build the mainline kernel in build/kernel-mainline
	@$(if $(filter kernel-mainline,$(MAKECMDGOALS)),,KIT_QUIET_UP_TO_DATE=1 )scripts/kernel/kernel-mainline.sh

modules: $(KERNEL_STAMP) $(if $(STAGE_NEEDS_MAINLINE),kernel-mainline) ## build every stage's module (or only STAGE=N's): your work/ copy if any, else the solution
	@SOLUTION=$(SOLUTION) scripts/labs/modules.sh $(KOBJ) $(CHECK_STAGES)

start: ## copy STAGE=N's skeleton into work/NN-name/, your copy (never overwritten)
	@test -n "$(STAGE)" || { echo "usage: make start STAGE=N (a lab stage: $(LAB_STAGES))" >&2; exit 2; }
	@scripts/labs/start.sh $(STAGE)

diff: ## show your work/ copy of STAGE=N against the reference solution
	@test -n "$(STAGE)" || { echo "usage: make diff STAGE=N" >&2; exit 2; }
	@scripts/labs/diff.sh $(STAGE)

checker: $(SOURCE_STAMP) ## build the static userspace checker programs
	@echo ">> building the checker (kselftest harness from build/linux)"
	@$(MAKE) -s -C labs/checker KSRC=$(KSRC) O=$(CHECKER)

skeletons: $(KERNEL_STAMP) ## generate the student skeletons and prove they compile
	@scripts/labs/skeletons.sh $(KOBJ) $(LAB_DIRS)

docs: $(SOURCE_STAMP) ## build the HTML docs into build/html (sphinx -W -n)
	@scripts/docs/docs.sh $(KSRC) $(HTML)

docs-kernel: $(SOURCE_STAMP) ## render the kernel pages the series changes (porting.rst, vfs.rst, ...) with the kernel's Sphinx setup, fail on any warning
	@scripts/series/docs-kernel.sh $(KSRC) $(BUILD)/kernel-docs

vma-tests: $(SOURCE_STAMP) ## build and run tools/testing/vma on the patched tree
	@scripts/series/vma-tests.sh $(KSRC)

check-static: $(KERNEL_STAMP) checker skeletons ## checkpatch, skeletons, shellcheck, conversion aid's cases, vma tests, kernel docs as TAP
	@scripts/static/check-static.sh $(KSRC) $(KOBJ)

check-loop: $(KERNEL_STAMP) checker ## replay the learner's loop (start, check, boot, paste each TODO, diff) on STAGE=N (default 1)
	@scripts/labs/check-loop.sh $(if $(STAGE),$(STAGE),1)

record-loop: $(KERNEL_STAMP) checker ## as check-loop, and record its outputs for the labs pages
	@scripts/labs/check-loop.sh --record $(if $(STAGE),$(STAGE),1)

check-todos: $(KERNEL_STAMP) checker ## prove every lab TODO is checked: each answer removed alone must fail a named check
	@scripts/labs/check-todos.sh $(KOBJ) $(CHECKER)

ifneq ($(DRIVER),)
check: check-driver
else ifeq ($(STAGE),)
# Every part runs and gets its row in the summary, failures included; the
# summary's closing line and exit status count them all.
# The mainline kernel is fetched in the background from the start and built
# there (nice 19) once the 6.12 kernel is built. The 6.12 stages boot as soon
# as the kernel, their modules and the checker are built (the first guest is
# the figure a newcomer waits for). make cocci-boot follows: it swaps two
# files of the 6.12 tree while it builds its images (in a copy of
# build/kernel), so it runs before anything else reads that tree. Then the
# mainline lane starts in the background (scripts/lib/check-lane.sh): it
# waits for the mainline kernel and runs what needs it (and, to even out the
# two lanes, make check-driver-cases), beside the 6.12 phases that follow, so
# that both cores stay busy once the mainline kernel is built. The mistake corpus waits for the lane's stages
# before its first mainline stage (it replays make check STAGE=N on them
# too; its 6.12 stages run meanwhile), and the relocation test (it boots
# stage 6 in its copy) and the 6.12 TODO proof follow it, beside the lane's
# last checks. The checker builds beside the 6.12 kernel (its configure step
# leaves a core idle).
# scripts/lib/check-phase.sh prints and records the timeline
# (build/timings/phases, and phases-mainline for the lane).
PHASE := scripts/lib/check-phase.sh
LANE := scripts/lib/check-lane.sh
# The mainline lab stage whose learner's loop make check replays (--quick:
# start, check, paste the answers, check, diff), after its own boot.
LOOP_MAINLINE_STAGE := 5
check: packages ## build everything, static checks, TODO mutation proof, then boot every stage and run its checks
	@rm -f $(addprefix $(BUILD)/logs/,$(addsuffix .result,$(shell qemu/check-all.sh --gates)))
	@mkdir -p $(BUILD)/timings $(BUILD)/logs && rm -f $(BUILD)/timings/first-boot $(BUILD)/timings/phases $(BUILD)/timings/phases-* && date +%s >$(BUILD)/timings/check-start
	@KIT_OWNER_PID=$$PPID scripts/kernel/kernel-mainline.sh --start
	@$(PHASE) "the 6.12 kernel: unpack linux-source-6.12, apply patches/series, build (the checker beside it)"
	@$(MAKE) --no-print-directory kernel-source
	@$(MAKE) --no-print-directory checker >$(BUILD)/logs/checker-build.out 2>&1 & checker=$$!; \
	$(MAKE) --no-print-directory kernel; rc=$$?; \
	wait $$checker || { echo "error: the checker did not build:" >&2; rc=1; }; cat $(BUILD)/logs/checker-build.out; exit $$rc
	@scripts/kernel/kernel-mainline.sh --go
	@$(PHASE) "the 6.12 stages: their modules, the checker, one guest per stage"
	@$(MAKE) --no-print-directory checker & checker=$$!; \
	$(MAKE) --no-print-directory modules; rc=$$?; wait $$checker && exit $$rc
	@qemu/check-all.sh --no-summary $(KOBJ) $(CHECKER) $(KIT_612_STAGES) || true
	@$(PHASE) "the rest of make all: skeletons and HTML docs"
	@$(MAKE) --no-print-directory all
	@$(PHASE) "real drivers converted by the conversion aid, booted beside the originals (make cocci-boot)"
	@scripts/coccinelle/cocci-boot.sh $(KSRC) $(KOBJ) $(CHECKER) || true
	@$(LANE) start mainline $(MAKE) --no-print-directory check-mainline-lane
	@$(PHASE) "static checks (checkpatch, skeletons, shellcheck, vma tests, kernel docs)"
	@scripts/static/check-static.sh $(KSRC) $(KOBJ) || true
	@$(PHASE) "the learner's loop of the labs pages, replayed on stage 1"
	@scripts/labs/check-loop.sh 1 || true
	@$(PHASE) "the conversion aid (make cocci), kit target"
	@scripts/coccinelle/cocci.sh --target kit $(KSRC) $(KOBJ) $(CHECKER) || true
	@$(PHASE) "the performance lab's guard (make bench, short): remap action against legacy remap and fault-per-page"
	@$(MAKE) --no-print-directory bench BENCH=short || true
	@$(PHASE) "the stress run, short (make stress): every driver side by side in a 2-CPU guest"
	@$(MAKE) --no-print-directory stress STRESS=short || true
	@$(PHASE) "the labs' mistake corpus (labs/NN-name/mistakes.tsv): each mistake planted, the verdict names its TODO and hint (make check-mistakes)"
	@KIT_BEFORE_MAINLINE="$(LANE) wait mainline stages" scripts/labs/check-mistakes.sh || true
	@$(PHASE) "the built kit copied (cp -a) and moved (mv): no kernel rebuilds there, stage 6 passes (make check-relocation)"
	@$(LANE) wait mainline stages
	@scripts/kernel/check-relocation.sh || true
	@$(PHASE) "the TODO mutation proof on the 6.12 stages (here to even out the two lanes)"
	@scripts/labs/check-todos.sh $(KOBJ) $(CHECKER) $(KIT_612_STAGES) || true
	@$(PHASE) "waiting for the mainline lane to end"
	@$(LANE) join mainline
	@$(PHASE) --table
	@qemu/check-all.sh --summary-only $(KOBJ) $(CHECKER)
else
check: kernel modules checker ## (STAGE=N) check one stage: your work/ copy if you started one, else the solution
	@qemu/check-all.sh $(KOBJ) $(CHECKER) $(STAGE)
endif

# make check's mainline lane (scripts/lib/check-lane.sh runs it in the
# background): everything that needs the mainline kernel and, to even out
# the two lanes, make check-driver-cases (both kernels), one after the
# other.
check-mainline-lane: ## (make check's background lane) wait for the mainline kernel, boot the mainline stages, replay the quick learner's loop, the TODO proof and the conversion aid on mainline, make check-driver-cases
	@$(PHASE) "waiting for the mainline kernel (fetched and built in the background since the start)"
	@scripts/kernel/kernel-mainline.sh --wait || echo "error: the mainline kernel did not build (build/logs/mainline-kernel.log): the summary counts it as failed; its stages are skipped" >&2
	@$(PHASE) "the mainline stages: their modules, one guest per stage, then the learner's quick loop on stage $(LOOP_MAINLINE_STAGE)"
	@SOLUTION=$(SOLUTION) scripts/labs/modules.sh $(KOBJ) $(MAINLINE_STAGES) || true
	@qemu/check-all.sh --no-summary $(KOBJ) $(CHECKER) $(MAINLINE_STAGES) || true
	@scripts/labs/check-loop.sh --quick --result loop-mainline $(LOOP_MAINLINE_STAGE) || true
	@$(LANE) mark mainline stages
	@$(PHASE) "the TODO mutation proof on the mainline stages"
	@scripts/labs/check-todos.sh --result todos-mainline $(KOBJ) $(CHECKER) $(MAINLINE_STAGES) || true
	@$(PHASE) "the conversion aid (make cocci), mainline target"
	@scripts/coccinelle/cocci.sh --target mainline $(KSRC) $(KOBJ) $(CHECKER) || true
	@$(PHASE) "make check DRIVER= on the template renamed (both kernels) and on three wrong changes to it (make check-driver-cases)"
	@scripts/driver/check-driver-cases.sh || true

check-driver: kernel checker ## (DRIVER=DIR) the stages' checks on a driver of your own: DIR's .c files, Kbuild and kit-check.conf (example-driver/rename.sh writes one); KERNEL=6.12|mainline overrides what the source says; BEFORE=FILE compares with the .mmap() original
	@[ -n "$(DRIVER)" ] || { echo "usage: make check DRIVER=DIR (your driver's folder: .c files, Kbuild, kit-check.conf)" >&2; exit 2; }
	@BEFORE=$(BEFORE) scripts/driver/check-driver.sh $(DRIVER)

check-driver-cases: kernel checker ## prove make check DRIVER=: the template renamed passes on both kernels, three wrong changes to it fail with the check named, a device-less driver, a folder without kit-check.conf
	@scripts/driver/check-driver-cases.sh

check-mistakes: kernel checker ## the labs' mistake corpus (labs/NN-name/mistakes.tsv): plant each mistake in a copy, check it, the verdict must name its TODO first with its hint
	@scripts/labs/check-mistakes.sh

check-relocation: kernel checker ## copy the built kit (cp -a), move the copy (mv): no kernel rebuilds there, no old path left, stage 6 passes; FULL=1: all of make check there
	@scripts/kernel/check-relocation.sh $(if $(FULL),--full)

check-sanitizers: kernel-source checker ## every stage, the fail-nth sweeps and the full stress run on kernels with KASAN, UBSAN, kmemleak and page_table_check (both kernels; not in make check: about 30 min from scratch on 2 cores)
	@scripts/kernel/check-sanitizers.sh $(KSRC) $(CHECKER)

record-sanitizers: kernel checker ## build time and guest time of the sanitizer profile against make check's kernel, side by side; writes Documentation/sanitizers-cost.inc
	@scripts/dev/record-sanitizers.sh

cocci: kernel checker ## convert stage 0 with scripts/coccinelle/ (both targets), build it, run stage 2's checks on it; the whole-tree proof on a sample (proof-sample.txt)
	@scripts/coccinelle/cocci.sh $(KSRC) $(KOBJ) $(CHECKER)

cocci-tests: ## the conversion aid's test cases (scripts/coccinelle/tests/): each .c converted as its .res, report and patch mode agree, both targets
	@scripts/coccinelle/cocci-tests.sh

cocci-boot: kernel checker ## convert real drivers (scripts/coccinelle/real-drivers/) for the kit kernel, build that kernel, boot both, compare data, VmFlags, errno
	@scripts/coccinelle/cocci-boot.sh $(KSRC) $(KOBJ) $(CHECKER)

cocci-report: kernel-source kernel-mainline ## count the .mmap hooks of the 6.12 and 7.x trees the semantic patch converts, and why not the others
	@scripts/coccinelle/cocci-report.sh

cocci-recall: kernel-source kernel-mainline ## the aid on the 6.12 versions of the files mainline converted by hand, against mainline's own conversion; writes Documentation/cocci-recall.inc
	@scripts/coccinelle/cocci-recall.sh

cocci-proof: kernel-source kernel-mainline ## whole-tree proof: patch mode over every .mmap file of both trees (one run each), every changed file compiled before and after in allmodconfig, report = patch; writes Documentation/cocci-proof.inc
	@scripts/coccinelle/cocci-proof.sh

bench: kernel checker ## the performance lab: legacy remap, fault-per-page and remap action side by side in one guest (mainline too, if built); BENCH=short: make check's guard
	@scripts/perf/bench.sh $(if $(filter short,$(BENCH)),--short) $(KOBJ) $(CHECKER)

bench-docs: kernel checker ## make bench, and write its table and plot into Documentation/ for the performance page
	@scripts/perf/bench.sh --docs $(KOBJ) $(CHECKER)

stress: kernel checker ## every driver side by side in a 2-CPU guest: processes, threads, fork, mremap, injected failures, rmmod; STRESS=short: make check's run
	@scripts/perf/stress.sh $(if $(filter short,$(STRESS)),--short) $(KOBJ) $(CHECKER)

check-mainline: kernel-mainline checker ## only the mainline stages: fetch and build the 7.x kernel, boot them
	@SOLUTION=$(SOLUTION) scripts/labs/modules.sh $(KOBJ) $(MAINLINE_STAGES)
	@qemu/check-all.sh $(KOBJ) $(CHECKER) $(MAINLINE_STAGES)

boot: kernel modules checker ## boot STAGE=N with an interactive shell (module loaded, checks on PATH)
	@qemu/make-initramfs.sh "$$(qemu/stages.sh conf $(STAGE))" $(BUILD)/modules/$(STAGE) \
		$(CHECKER) $(BUILD)/initramfs/$(STAGE).cpio
	@echo ">> booting stage $(STAGE) under $$(qemu/accel.sh --why); leave the shell to power off (Ctrl-A x kills QEMU)"
	@qemu/boot.sh $(if $(STAGE_NEEDS_MAINLINE),$(KOBJ_MAINLINE),$(KOBJ)) $(BUILD)/initramfs/$(STAGE).cpio - \
		"$$(qemu/stages.sh get $(STAGE) STAGE_CMDLINE)"

record-times: ## after a timed make check: write its timeline and figures into Documentation/measured-times.inc and the README
	@scripts/dev/record-times.sh $(TOTAL)

record-fail-nth: ## after make check: write each guest's fail-nth sweep figures (fault points per mapped file) into the error paths page
	@scripts/dev/record-fail-nth.sh

fresh-machine-test: ## (root, SUITE=bookworm|trixie [AS_ROOT=1]) make then make check in a fresh minbase debootstrap chroot of that Debian release, as an ordinary user (AS_ROOT=1: as root)
	@test -n "$(SUITE)" || { echo "usage: make fresh-machine-test SUITE=bookworm|trixie" >&2; exit 2; }
	@scripts/dev/fresh-machine-test.sh $(if $(AS_ROOT),--as root) $(SUITE) $(CHROOT)

kernel-git: packages ## make build/kernel-git: the pristine tree + one commit per patch, to edit the series
	@scripts/series/kernel-git.sh $(TARBALL) $(BUILD)/kernel-git $(PATCHES)

export-patches: ## write build/kernel-git's commits back to patches/ (git format-patch)
	@scripts/series/export-patches.sh $(BUILD)/kernel-git $(PATCHES)

check-series: packages ## bisectability: build the test kernel after each patch (incremental)
	@scripts/series/check-series.sh $(TARBALL) $(PATCHES) $(FRAGMENT) $(BUILD)/series

check-stock: kernel checker ## oracle: run the in-tree user checks on unpatched 6.12
	@scripts/series/check-stock.sh $(TARBALL) $(FRAGMENT) $(BUILD)/stock $(KOBJ) $(CHECKER)

clean: ## remove build outputs, keep the unpacked and built kernel (and your work/)
	rm -rf $(BUILD)/modules $(BUILD)/initramfs $(BUILD)/logs $(BUILD)/skeletons $(CHECKER) $(HTML)

distclean: ## remove build/ entirely (your work/ stays)
	rm -rf $(BUILD)
	@if [ -d work ]; then echo ">> kept your work area work/; remove it yourself (rm -r work) to start over"; fi
