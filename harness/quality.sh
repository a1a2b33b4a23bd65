#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Compiler, sparse and kernel-doc gates, as TAP: a W=1 build of
# drivers/perf with no warning, and no sparse warning in the files this
# repository carries, for arm64 and for 32-bit Arm (tests prefixed
# arm32_); no kernel-doc warning in a file we carry or patch that the
# base's file does not have.

. "$(dirname "$0")/lib.sh"

LOG=$(mktemp)
trap 'rm -f "$LOG"*' EXIT
n=0

result() {	# result OK NAME
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n $2"; else echo "not ok $n $2"; fi
}

# gate KARCH PREFIX [NOT_OURS]: W=1 and sparse on drivers/perf for one
# architecture; warnings located in files matching NOT_OURS (a regex) are
# the base's, not counted. W=1 changes the flags, so kbuild recompiles the
# folder and shows its warnings; C=2 then runs sparse on every file of it,
# rebuilt or not.
gate() {
	local karch=$1 prefix=$2 not_ours=${3:-^$} pass rc f
	for pass in W=1 C=2; do
		rc=0
		KARCH=$karch "$HARNESS/kernel.sh" make "$pass" drivers/perf/ > "$LOG.$pass" 2>&1 || rc=$?
		sed "s/^/# $karch $pass: /" "$LOG.$pass"
		result $rc "${prefix}build_of_drivers_perf_with_${pass%=*}_succeeds"
	done
	result "$(grep 'warning:' "$LOG.W=1" | grep -cEv "$not_ours" || true)" \
		"${prefix}w1_drivers_perf_has_no_compiler_warning"
	for f in $(overlay_files | grep '^drivers/.*\.c$'); do
		result "$(grep -c "$f:.*: \(warning\|error\):" "$LOG.C=2" || true)" \
			"${prefix}sparse_clean_$(basename "$f" .c)"
	done
}

# kdoc_warnings TREE FILE: the kernel-doc warnings of TREE/FILE, without
# their line numbers, sorted (none for a file TREE does not have)
kdoc_warnings() {
	[ -f "$1/$2" ] || return 0
	perl "$SRC/scripts/kernel-doc" -none -Wall "$1/$2" 2>&1 |
		sed -n "s|^$1/$2:[0-9]*: ||p" | LC_ALL=C sort
}

# kernel-doc on every C file and header we carry or patch: no warning the
# base's version of the file does not have (a comment that lost its
# function, a parameter not described)
kdoc_gate() {
	local f new
	for f in $(overlay_files | grep -E '\.[ch]$'); do
		new=$(LC_ALL=C comm -13 <(kdoc_warnings "$BASE_TREE" "$f") <(kdoc_warnings "$SRC" "$f"))
		[ -z "$new" ] || sed "s|^|# $f: |" <<< "$new"
		result "$(grep -c . <<< "$new")" "kernel_doc_adds_no_warning_$(tr '/.-' '___' <<< "$f")"
	done
}

echo "TAP version 13"
SRC=$("$HARNESS/kernel.sh" src)
BASE_TREE=$(built "$HARNESS/base.sh")
kdoc_gate
gate arm64 ""
# The same driver on 32-bit Arm kernels (ARM_PMUV3 on CPU_V7):
# harness/config/arm32-pmu.config, Debian's gcc-arm-linux-gnueabihf. CPU_V7
# always builds the base's ARMv7 PMU driver too (ARM_V7_PMU is a def_bool),
# whose event tables W=1 flags (-Woverride-init): the base's, not ours.
gate arm arm32_ '^[^:]*drivers/perf/arm_v7_pmu\.c:'
echo "1..$n"
