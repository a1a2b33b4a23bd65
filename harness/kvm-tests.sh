#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the KVM selftests run in the guest, statically linked for arm64:
# the base tree's aarch64/vpmu_counter_access and get-reg-list (its
# aarch64 part split off), unchanged, and our aarch64/pmu_host_guest and
# aarch64/brbe_guest and aarch64/spe_guest (tools/testing/selftests/kvm/aarch64/ of the
# overlay), all on the base tree's unmodified KVM selftest library, and on
# the same library the KVM benchmark of make bench, harness/bench/
# kvm_exit.c (with its bench.h), built as aarch64/kvm_exit. Copied beside
# our tests, it includes their vpmu_vm.h from our overlay, on the base's
# library like them.
#
#   harness/kvm-tests.sh [build]   build the six binaries if needed
#   harness/kvm-tests.sh path      print their folder, build nothing
#
# The build runs on a scratch copy of the base's tools/ (the kvm Makefile
# writes generated headers into it) with the base's UAPI headers from
# headers_install; our overlay of the kvm selftests (the test and the
# Makefile that lists it) goes over it, and TEST_GEN_PROGS_aarch64 on the
# command line keeps make from building the other fifty tests.

. "$(dirname "$0")/lib.sh"

KVM_SELFTESTS=tools/testing/selftests/kvm
OURS=aarch64/pmu_host_guest
BRBE=aarch64/brbe_guest
SPE=aarch64/spe_guest
BENCH=aarch64/kvm_exit
PROGS="aarch64/vpmu_counter_access get-reg-list $OURS $BRBE $SPE $BENCH"
OUT=$CACHE/kvm-tests/$(hash_inputs "$TOP/$KVM_SELFTESTS" "$TOP/BASE" "$0" \
	"$HARNESS/bench/kvm_exit.c" "$HARNESS/bench/bench.h")

build() {
	local p
	[ -f "$OUT/.built" ] && return 0
	"$HARNESS/base.sh" build
	BASE_TREE=$("$HARNESS/base.sh" path)
	rm -rf "$OUT" && mkdir -p "$OUT"
	work=$(mktemp -d "$CACHE/kvm-tests/.work.XXXXXX")
	trap 'rm -rf "$work"' EXIT
	msg "building KVM selftests into $OUT"

	# What the kvm selftests' Makefile reads: tools/ (lib.mk, kselftest.h,
	# tools/include, the sysreg header generator), the sysreg table and
	# scripts/subarch.include; the base tree itself stays read-only.
	mkdir -p "$work/src/arch/arm64" "$work/src/scripts"
	cp -a "$BASE_TREE/tools" "$work/src/"
	cp -a "$BASE_TREE/arch/arm64/tools" "$work/src/arch/arm64/"
	cp -a "$BASE_TREE/scripts/subarch.include" "$work/src/scripts/"
	chmod -R u+w "$work/src"
	cp -a "$TOP/$KVM_SELFTESTS/." "$work/src/$KVM_SELFTESTS/"
	# the benchmark beside the tests: the Makefile builds it as one of them
	cp "$HARNESS/bench/kvm_exit.c" "$HARNESS/bench/bench.h" \
		"$work/src/$KVM_SELFTESTS/aarch64/"

	# The UAPI headers at <top>/usr/include, where the Makefile looks
	make -s -C "$BASE_TREE" O="$work/hdr" ARCH=arm64 \
		INSTALL_HDR_PATH="$work/src/usr" headers_install >&2

	# -static through EXTRA_CFLAGS: the link line uses CFLAGS, and the
	# Makefile's own LDFLAGS (-pthread -no-pie) stay as they are.
	make -s -C "$work/src/$KVM_SELFTESTS" -j"$(nproc)" ARCH=arm64 \
		CROSS_COMPILE="$CROSS_COMPILE" EXTRA_CFLAGS=-static \
		TEST_GEN_PROGS_aarch64="$PROGS" OUTPUT="$work/out" >&2

	for p in $PROGS; do
		install -m 755 "$work/out/$p" "$OUT/${p##*/}"
	done
	touch "$OUT/.built"
}

case "${1:-build}" in
build) build ;;
path) echo "$OUT" ;;
*) die "usage: $0 build|path" ;;
esac
