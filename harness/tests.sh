#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build our static arm64 selftests (tools/testing/selftests/arm64/pmu) from
# the overlaid source tree; print the folder holding the binaries.

. "$(dirname "$0")/lib.sh"

SELFTEST=tools/testing/selftests/arm64/pmu
OUT=$CACHE/tests/$(hash_inputs "$TOP/$SELFTEST" "$TOP/BASE")

if [ ! -f "$OUT/.built" ]; then
	SRC=$("$HARNESS/kernel.sh" src)
	rm -rf "$OUT" && mkdir -p "$OUT"
	msg "building selftests into $OUT"
	make -s -C "$SRC/$SELFTEST" ARCH=arm64 CROSS_COMPILE="$CROSS_COMPILE" \
		LDFLAGS=-static OUTPUT="$OUT" >&2
	touch "$OUT/.built"
fi
echo "$OUT"
