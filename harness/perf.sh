#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build a static arm64 perf from the base tree's tools/perf, unmodified, for
# the guest. Output goes to $CACHE/perf-<hash>/ (O=), never into the base
# tree; the hash covers the base version, the build flags and the build
# and check functions, so a cached binary is reused until one of them
# changes.
#
#   harness/perf.sh [build]   build if needed, check the binary
#   harness/perf.sh path      print the binary's path, build nothing
#
# Needs the arm64 -dev packages libelf-dev, libtraceevent-dev, zlib1g-dev
# and libc6-dev (static libraries plus pkg-config files) and pkg-config.

. "$(dirname "$0")/lib.sh"

# Every optional feature is named: the ones we need (REQUIRED below) are
# checked after the build, all others are switched off so that whatever
# happens to be installed on the host cannot change the binary.
# libtraceevent is the one that matters: without it perf silently drops its
# "mmap interface tests" (the user-space counter reading tests). Static
# linking rules out the dlfilter .so files, hence the `perf` target rather
# than `all`. ccache works with tools/perf's CC=, but only helps a rebuild
# in the same folder (the O= path is in every command line).
PERF_FLAGS=(
	ARCH=arm64
	"CROSS_COMPILE=$CROSS_COMPILE"
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
REQUIRED=(libtraceevent libelf zlib)
# The cross pkg-config search path: only the arm64 .pc files are seen, so a
# host library can never be picked up by mistake.
export PKG_CONFIG_LIBDIR=/usr/lib/aarch64-linux-gnu/pkgconfig
unset PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR
# No build date in the binary.
export SOURCE_DATE_EPOCH=0


# Three independent looks at the required features: perf's own feature
# check (FEATURE-DUMP), the linked symbols of libtraceevent, and, where
# qemu-aarch64 (qemu-user) can run the binary, `perf version
# --build-options` and the test list itself. Output is captured before
# grepping: `cmd | grep -q` can kill cmd with SIGPIPE, which pipefail turns
# into a false failure.
check_features() {
	local out f
	for f in "${REQUIRED[@]}"; do
		grep -qx "feature-$f=1" "$OUT/FEATURE-DUMP" ||
			die "perf's feature check did not find $f (see $OUT/FEATURE-DUMP)"
	done
	out=$("${CROSS_COMPILE}nm" "$PERF")
	grep -q ' T tep_parse_event$' <<<"$out" ||
		die "$PERF is not linked with libtraceevent: its mmap interface tests would be missing"
	command -v qemu-aarch64 >/dev/null || return 0
	# qemu-user takes its CPU model from QEMU_CPU, which is ours for the
	# guest (e.g. max,x-pmuv3p9=on, which Debian's qemu-user lacks)
	local -x QEMU_CPU=max
	out=$(qemu-aarch64 "$PERF" version --build-options)
	for f in "${REQUIRED[@]}"; do
		grep -Eq "^ +$f: \[ on  \]" <<<"$out" ||
			die "$PERF version --build-options does not report $f"
	done
	out=$(qemu-aarch64 "$PERF" test list 2>&1)
	grep -q 'User space counter reading of cycles' <<<"$out" ||
		die "$PERF test list lacks the user space counter reading tests"
}

check_static() {
	local out
	out=$(file -L "$PERF")
	grep -q 'ARM aarch64.*statically linked' <<<"$out" ||
		die "$PERF is not a static arm64 executable: $out"
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

# The key: what shapes the binary (the base, the flags, the build and its
# checks), not the rest of this script
build_key() {
	{
		echo "$BASE_DEB_VERSION"
		printf '%s\n' "${PERF_FLAGS[@]}" "${REQUIRED[@]}"
		declare -f build_perf check_features check_static
	} | sha256sum | cut -c1-16
}

OUT=$CACHE/perf-$(build_key)
PERF=$OUT/perf

case "${1:-build}" in
path) echo "$PERF" ;;
build)
	if [ ! -x "$PERF" ]; then
		# perf comes from the base tree alone, so once the tree is
		# unpacked the overlay's drift check in base.sh is no reason
		# to refuse building it.
		if [ ! -f "$BASE_TREE/../.unpacked" ]; then
			"$HARNESS/base.sh" build
			BASE_TREE=$("$HARNESS/base.sh" path)
		fi
		build_perf
	fi
	check_static
	check_features
	;;
*) die "usage: $0 build|path" ;;
esac
