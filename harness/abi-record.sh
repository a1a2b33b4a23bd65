#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Record mainline 7.3's answers to abi_probe on our QEMU's -cpu max, the
# model boot-mainline runs, into harness/abi/mainline-7.3.txt, which
# plans/abi-probe.plan compares our kernel with (harness/README.md, "The
# ABI against mainline's"). Builds the initramfs if needed; the mainline
# kernel must be built (VARIANT=mainline harness/kernel.sh build), or
# given as IMAGE=.
#
#   harness/abi-record.sh

. "$(dirname "$0")/lib.sh"

IMAGE=${IMAGE:-$(VARIANT=mainline "$HARNESS/kernel.sh" path)}
"$HARNESS/initramfs.sh" build
export IMAGE
out=$HARNESS/abi/mainline-7.3.txt
log=$(mktemp)
trap 'rm -f "$log"' EXIT
"$HARNESS/qemu.sh" run 'uname -r; /tests/abi_probe' > "$log" ||
	die "the probe failed on $IMAGE (console: $log)"
grep -qx '7\.[0-9.]*[^ ]*' "$log" || die "$IMAGE is not a 7.x kernel"
sed -n '/^# abi-probe begin$/,/^# abi-probe end/p' "$log" | sed '1d;$d' > "$out.tmp"
[ -s "$out.tmp" ] || die "no probe output in the console"
mv "$out.tmp" "$out"
msg "recorded $(wc -l < "$out") lines in ${out#"$TOP"/}"
