# SPDX-License-Identifier: GPL-2.0
# Our arm64 PMU stack on Linux 6.12: build, boot in QEMU, test, export.
#
#   make demo     boot the patched kernel and show perf on our PMU driver
#   make check    the gate: every suite of our kernel and models; prints
#                 "N passed, N failed, N skipped"
#   make check-all  the gate and the reference suites: base 6.12, mainline 7.3,
#                 make deb's packages, the modes the gate already covers
#   make check-ref  the reference suites alone, after a make check that passed
#   make bench    hot-path costs of our driver against the base's and mainline's, in guest
#                 instructions (reported, never asserted)
#   make deb      our kernel as Debian packages, with Debian's arm64 config
#   make deb-check  boot those packages' kernel and modules (boot-deb suite)
#   make fdo-check  BRBE branch stacks through llvm-profgen, count checked
#
# Machine knobs for qemu/run/demo: SMP=, QEMU_CPU=, KVM_MODE=vhe|nvhe,
# APPEND=, SHARE=dir, CMD='...', ACPI=1 (UEFI firmware and ACPI tables
# instead of a DT), KARCH=arm (the 32-bit Arm kernel in AArch32; also for
# make kernel). Build outputs live in $(CACHE), outside the repository,
# keyed by their inputs.

H := harness
export CACHE ?= $(HOME)/.cache/arm64-pmu

.PHONY: help deps need-deps base kernel perf tests initramfs qemu-build \
	boot-deps qemu run demo check check-all check-ref series series-check bench base-edit \
	base-refresh deb deb-check fdo-check

help:
	@sed -n 's/^#   //p' Makefile
	@echo "other targets: deps base kernel perf tests initramfs qemu-build qemu run series series-check"
	@echo "base files: make base-edit [FILES='path...'], edit build/base-edit/, make base-refresh"

deps:
	$(H)/deps.sh

need-deps:
	@$(H)/deps.sh --if-missing

# Each build script builds with `build` and prints its output's path with
# `path`: these targets do both.
base: need-deps
	@$(H)/base.sh build && $(H)/base.sh path

kernel: need-deps
	@$(H)/kernel.sh build && $(H)/kernel.sh path

perf: need-deps
	@$(H)/perf.sh build && $(H)/perf.sh path

tests: need-deps
	@$(H)/tests.sh build && $(H)/tests.sh path

INITRAMFS := $(H)/$(if $(filter arm,$(KARCH)),arm32/)initramfs.sh
initramfs: need-deps
	@$(INITRAMFS) build && $(INITRAMFS) path

qemu-build: need-deps
	@$(H)/qemu/build.sh build && $(H)/qemu/build.sh path

# What qemu.sh boots (it builds nothing): the kernel and initramfs for
# KARCH and our QEMU, unless IMAGE=, INITRD= or QEMU= name others
boot-deps: need-deps
	@$(if $(IMAGE),:,$(H)/kernel.sh build)
	@$(if $(INITRD),:,$(INITRAMFS) build)
	@$(if $(QEMU),:,$(H)/qemu/build.sh build)

qemu: boot-deps
	@$(H)/qemu.sh shell

run: $(if $(CMD),boot-deps)
	@test -n "$(CMD)" || { echo "usage: make run CMD='...' [SHARE=dir]"; exit 2; }
	@$(H)/qemu.sh run "$(CMD)"

demo: boot-deps
	@$(H)/demo.sh

check: need-deps
	@$(H)/check.sh check

check-all: need-deps
	@$(H)/check.sh all

check-ref: need-deps
	@$(H)/check.sh ref

series: need-deps
	@$(H)/series.sh

series-check: need-deps
	@$(H)/series-check.sh

bench: need-deps
	@$(H)/bench.sh

deb: need-deps
	@$(H)/deb.sh build

deb-check: need-deps
	@$(H)/deb.sh check

fdo-check: need-deps
	@$(H)/fdo.sh

# Our changes to base files are patches/ (quilt): edit them in build/base-edit
base-edit: need-deps
	@$(H)/basepatch.sh edit $(FILES)

base-refresh: need-deps
	@$(H)/basepatch.sh refresh
