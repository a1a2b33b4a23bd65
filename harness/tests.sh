#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build our static arm64 selftests (tools/testing/selftests/arm64/pmu and
# spe) from the overlaid source tree into one folder.
#
#   harness/tests.sh [build]   build if needed
#   harness/tests.sh path      print the folder's path, build nothing

. "$(dirname "$0")/lib.sh"

SELFTESTS=(tools/testing/selftests/arm64/pmu tools/testing/selftests/arm64/spe)
OUT=$CACHE/tests/$(hash_inputs "${SELFTESTS[@]/#/$TOP/}" "$TOP/BASE")

build() {
	local src dir
	[ -f "$OUT/.built" ] && return 0
	src=$("$HARNESS/kernel.sh" src)
	rm -rf "$OUT" && mkdir -p "$OUT"
	msg "building selftests into $OUT"
	for dir in "${SELFTESTS[@]}"; do
		make -s -C "$src/$dir" ARCH=arm64 CROSS_COMPILE="$CROSS_COMPILE" \
			LDFLAGS=-static OUTPUT="$OUT" >&2
	done
	touch "$OUT/.built"
}

case "${1:-build}" in
build) build ;;
path) echo "$OUT" ;;
*) die "usage: $0 build|path" ;;
esac
