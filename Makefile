# SPDX-License-Identifier: GPL-2.0
# Our arm64 PMU stack on Linux 6.12: build, boot in QEMU, test, export.
#
#   make demo     boot the patched kernel and show perf on our PMU driver
#   make check    run every test; prints "N passed, N failed, N skipped"
#   make bench    hot-path costs of our driver against the base's, in guest
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

.PHONY: help deps need-deps base kernel perf tests initramfs qemu run demo \
	check series series-check bench base-edit base-refresh deb deb-check fdo-check

help:
	@sed -n 's/^#   //p' Makefile
	@echo "other targets: deps base kernel perf tests initramfs qemu run series series-check"
	@echo "base files: make base-edit [FILES='path...'], edit build/base-edit/, make base-refresh"

deps:
	$(H)/deps.sh

need-deps:
	@$(H)/deps.sh --if-missing

base: need-deps
	@$(H)/base.sh

kernel: need-deps
	@$(H)/kernel.sh image

perf: need-deps
	@$(H)/perf.sh

tests: need-deps
	@$(H)/tests.sh

initramfs: need-deps
	@$(H)/initramfs.sh

qemu: need-deps
	@$(H)/qemu.sh shell

run: need-deps
	@test -n "$(CMD)" || { echo "usage: make run CMD='...' [SHARE=dir]"; exit 2; }
	@$(H)/qemu.sh run "$(CMD)"

demo: need-deps
	@$(H)/demo.sh

check: need-deps
	@$(H)/check.sh

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
