#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build a static arm64 perf from the base tree's tools/perf, unmodified, for
# the guest. Output goes to $CACHE/perf-<hash>/ (O=), never into the base
# tree; the hash covers the base version, the build flags and this script,
# so a cached binary is reused until one of them changes.
#
#   harness/perf.sh     build if needed; the last line of stdout is the binary
#
# Needs the arm64 -dev packages libelf-dev, libtraceevent-dev, zlib1g-dev
# and libc6-dev (static libraries plus pkg-config files) and pkg-config.

. "$(dirname "$0")/lib.sh"

BASE_TREE=$("$HARNESS/base.sh")

# Every optional feature is named: the ones we need are required (the build
# fails without them), all others are switched off so that whatever happens
# to be installed on the host cannot change the binary. libtraceevent is the
# one that matters: without it perf silently drops "mmap interface tests"
# (the user-space counter reading tests). Static linking rules out the
# dlfilter .so files, hence the `perf` target rather than `all`.
PERF_FLAGS=(
	ARCH=arm64
	CROSS_COMPILE=$CROSS_COMPILE
	"CC=ccache ${CROSS_COMPILE}gcc"
	LDFLAGS=-static
	PKG_CONFIG=pkg-config
	WERROR=0
	NO_JEVENTS=1
	NO_LIBPYTHON=1 NO_LIBPERL=1
	NO_LIBBPF=1 BUILD_BPF_SKEL=0
	NO_DWARF=1 NO_LIBDW_DWARF_UNWIND=1 NO_LIBUNWIND=1 NO_LIBDEBUGINFOD=1
	NO_SLANG=1 NO_LIBNUMA=1 NO_LIBAUDIT=1 NO_LIBCRYPTO=1 NO_LIBCAP=1
	NO_LIBBABELTRACE=1 NO_CAPSTONE=1 NO_LIBLLVM=1 NO_DEMANGLE=1
	NO_LZMA=1 NO_LIBZSTD=1 NO_LIBPFM4=1 NO_JVMTI=1 NO_SDT=1
	NO_SHELLCHECK=1
)
# The cross pkg-config search path: only the arm64 .pc files are seen, so a
# host library can never be picked up by mistake.
export PKG_CONFIG_LIBDIR=/usr/lib/aarch64-linux-gnu/pkgconfig
unset PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR
# Build ids and paths in the binary should not depend on the date or user.
export SOURCE_DATE_EPOCH=0 KBUILD_BUILD_TIMESTAMP=@0

build_key() {
	{
		echo "$BASE_DEB_VERSION"
		printf '%s\n' "${PERF_FLAGS[@]}"
		cat "$0"
	} | sha256sum | cut -c1-16
}

OUT=$CACHE/perf-$(build_key)
PERF=$OUT/perf

# tools/perf records the detected features in its FEATURE-DUMP and in the
# `perf version --build-options` table (built from the same -DHAVE_* flags);
# the symbol check catches a link that dropped the library anyway.
check_libtraceevent() {
	grep -q '^feature-libtraceevent=1$' "$OUT/FEATURE-DUMP" ||
		die "perf's feature check did not find libtraceevent (see $OUT/FEATURE-DUMP)"
	"${CROSS_COMPILE}nm" "$PERF" | grep -q ' T tep_parse_event$' ||
		die "$PERF is not linked with libtraceevent: its mmap interface tests would be missing"
	if command -v qemu-aarch64 >/dev/null; then
		qemu-aarch64 "$PERF" version --build-options |
			grep -Eq 'libtraceevent: \[ on  \]' ||
			die "$PERF version --build-options does not report libtraceevent"
	fi
}

check_static() {
	file -L "$PERF" | grep -q 'ARM aarch64.*statically linked' ||
		die "$PERF is not a static arm64 executable: $(file -L "$PERF")"
}

build_perf() {
	local log=$OUT/build.log start=$SECONDS
	mkdir -p "$OUT"
	msg "building static arm64 perf in $OUT (log: $log)"
	# -s keeps the log short; the feature table is still printed.
	if ! make -s -C "$BASE_TREE/tools/perf" O="$OUT" -j"${JOBS:-2}" \
		"${PERF_FLAGS[@]}" perf >"$log" 2>&1; then
		tail -n 40 "$log" >&2
		die "perf build failed (full log: $log)"
	fi
	msg "perf built in $((SECONDS - start))s"
}

if [ ! -x "$PERF" ]; then
	build_perf
fi
check_static
check_libtraceevent
echo "$PERF"
