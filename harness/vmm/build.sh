#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build l2-vmm (our minimal VMM, static arm64) and the DTB of the machine it
# gives its guest (l2.dts), for harness/initramfs.sh to pack into /l2 of the
# guest's initramfs; plans/l2-guest.plan boots our kernel with them as a
# KVM guest inside the QEMU guest.
#
#   harness/vmm/build.sh [build]   build them if needed
#   harness/vmm/build.sh path      print their folder, build nothing
#
# The DTB is compiled by the host's dtc (device-tree-compiler, which make
# deps installs for harness/dt too): the tree is fixed, so the kernel build
# need not exist first. The VMM uses the cross toolchain's UAPI headers.

. "$(dirname "$0")/../lib.sh"

VMM_DIR=$HARNESS/vmm
OUT=$CACHE/vmm/$(hash_inputs "$VMM_DIR/l2-vmm.c" "$VMM_DIR/l2.dts" "$0")

build() {
	[ -f "$OUT/.built" ] && return 0
	msg "building l2-vmm and l2.dtb into $OUT"
	mkdir -p "$OUT"
	"${CROSS_COMPILE}gcc" -O2 -Wall -Wextra -Werror -static \
		-o "$OUT/l2-vmm" "$VMM_DIR/l2-vmm.c"
	dtc -q -I dts -O dtb -o "$OUT/l2.dtb" "$VMM_DIR/l2.dts"
	touch "$OUT/.built"
}

case "${1:-build}" in
build) build ;;
path) echo "$OUT" ;;
*) die "usage: $0 build|path" ;;
esac
