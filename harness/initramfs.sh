#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Pack busybox, perf, our test programs, the test plans and the init script
# into a cpio archive.
#
#   harness/initramfs.sh [build]   build it (and perf, the selftests and the
#                                  KVM tests it holds) if needed
#   harness/initramfs.sh path      print its path, build nothing
#
# The archive is named by its inputs: the paths of perf, the selftests and
# the KVM tests (each named by its own inputs), the host's busybox and bash,
# the plans, harness/abi (plans/abi-probe.plan's data), the guest files and
# this script.

. "$(dirname "$0")/lib.sh"

BUSYBOX=/bin/busybox
PERF_BIN=$("$HARNESS/perf.sh" path)
TESTS_DIR=$("$HARNESS/tests.sh" path)
KVM_TESTS_DIR=$("$HARNESS/kvm-tests.sh" path)
VMM_DIR=$("$HARNESS/vmm/build.sh" path)

# The base tree's own perf shell tests that the plans run, in tests/shell
# beside the perf binary as perf test expects them, and bash to run them:
# busybox's sh runs its own applets ahead of PATH, and its mktemp refuses
# the tests' templates (guest/mktemp, first in PATH, takes them).
# bash-static:arm64 is Debian's static bash.
BASH_STATIC=/bin/bash-static
BASE_TREE=$("$HARNESS/base.sh" path)
PERF_SHELL_DIR=$BASE_TREE/tools/perf/tests/shell
PERF_SHELL_TESTS=(test_arm_spe.sh test_arm_spe_fork.sh test_brstack.sh lib/perf_has_symbol.sh)

# GNU grep, first in PATH (/usr/local/bin) as on the distributions the perf
# shell tests are written for: they filter perf script's output with
# grep -E, and on the 485,000 lines of test_arm_spe.sh's system-wide trace
# busybox's grep (glibc's regexec, line by line) takes 40 s of guest time,
# GNU grep under 1. Debian's grep:arm64, downloaded and never installed (it
# would replace the host's grep), pinned as bookworm lists it (a version
# the archive drops fails the build, with this line to update), with the
# libraries it loads from libc6:arm64 and libpcre2-8-0:arm64 (make deps).
GREP_VERSION=3.8-5
GREP_SHA256=2caf08393ef6ea18a52e7e4609a7bd13811ff53733b4e45d2c7b0957e8d592cf
GREP_LIBS=(/lib/ld-linux-aarch64.so.1 /lib/aarch64-linux-gnu/libc.so.6
	   /lib/aarch64-linux-gnu/libpcre2-8.so.0)

# An amd64 busybox would boot to a kernel panic ("init failed"): say why.
is_arm64_elf() {
	[ "$(od -An -j18 -N2 -tu2 "$1" | tr -d ' ')" = 183 ]
}

# The base tree, perf and the test folders are named by their inputs: their
# paths stand for their contents.
OUT=$CACHE/initramfs/$({ hash_inputs "$BUSYBOX" "$BASH_STATIC" "${GREP_LIBS[@]}" \
	"$HARNESS/plans" "$HARNESS/abi" "$HARNESS/guest" "$HARNESS/qemu/guest" \
	"$HARNESS/vmm/l2-run.sh" "$HARNESS/vmm/l2-initrd.sh" "$0"
	echo "$PERF_BIN $TESTS_DIR $KVM_TESTS_DIR $VMM_DIR $BASE_TREE grep $GREP_SHA256"; } | sha256sum | cut -c1-16).cpio

# install_grep ROOT: Debian's arm64 GNU grep and its libraries into ROOT,
# the package fetched once per version into $CACHE/debs
install_grep() {
	local dir=$CACHE/debs deb=$CACHE/debs/grep_${GREP_VERSION}_arm64.deb lib
	if [ ! -f "$deb" ]; then
		mkdir -p "$dir"
		msg "downloading grep:arm64 $GREP_VERSION (not installed)"
		(cd "$dir" && apt-get -q -o APT::Sandbox::User=root download "grep:arm64=$GREP_VERSION") >&2 ||
			die "apt-get download grep:arm64=$GREP_VERSION failed: the archive moved on? Update GREP_VERSION and GREP_SHA256 in $0"
	fi
	echo "$GREP_SHA256  $deb" | sha256sum --quiet -c - || die "$deb: not GREP_SHA256"
	mkdir -p "$1/usr/local/bin" "$1/lib/aarch64-linux-gnu"
	dpkg-deb --fsys-tarfile "$deb" | tar -xOf - ./bin/grep > "$1/usr/local/bin/grep"
	chmod 755 "$1/usr/local/bin/grep"
	for lib in "${GREP_LIBS[@]}"; do
		is_arm64_elf "$lib" || die "$lib is not arm64: run 'make deps' (libc6:arm64, libpcre2-8-0:arm64)"
		install -D -m 755 "$lib" "$1$lib"
	done
}

build() {
	local t
	[ -f "$OUT" ] && return 0
	"$HARNESS/perf.sh" build
	"$HARNESS/tests.sh" build
	"$HARNESS/kvm-tests.sh" build
	"$HARNESS/vmm/build.sh" build
	"$HARNESS/base.sh" build
	is_arm64_elf "$BUSYBOX" || die "$BUSYBOX is not arm64: run 'make deps' (busybox-static:arm64)"
	is_arm64_elf "$PERF_BIN" || die "$PERF_BIN is not an arm64 perf"
	is_arm64_elf "$BASH_STATIC" || die "$BASH_STATIC is not arm64: run 'make deps' (bash-static:arm64)"
	msg "packing $OUT"
	root=$(mktemp -d)
	# mktemp made it 0700: the guest's / must let other users in
	chmod 755 "$root"
	trap 'rm -rf "$root"' EXIT
	mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,root,tests,kvm,plans,abi,etc}
	install -m 755 "$BUSYBOX" "$root/bin/busybox"
	ln -s busybox "$root/bin/sh"
	install -m 755 "$PERF_BIN" "$root/usr/bin/perf"
	install -m 755 "$BASH_STATIC" "$root/bin/bash"
	install -m 755 "$HARNESS/guest/init" "$root/init"
	install -D -m 755 "$HARNESS/guest/mktemp" "$root/usr/local/bin/mktemp"
	install_grep "$root"
	"${CROSS_COMPILE}gcc" -nostdlib -static -o "$root/usr/bin/known-loop" \
		"$HARNESS/guest/loop.S"
	"${CROSS_COMPILE}gcc" -nostdlib -static -DLOOPS=0x80000001 \
		-o "$root/usr/bin/long-loop" "$HARNESS/guest/loop.S"
	"${CROSS_COMPILE}gcc" -nostdlib -static -o "$root/usr/bin/spe-loop" \
		"$HARNESS/guest/spe-loop.S"
	# Its symbols, for plans/spe.plan to check sampled PCs and data
	# addresses against (busybox has no nm)
	"${CROSS_COMPILE}nm" "$root/usr/bin/spe-loop" > "$root/usr/bin/spe-loop.nm"
	# Their modes as in the tree: perf test takes executable files for tests
	for t in "${PERF_SHELL_TESTS[@]}"; do
		install -D -m "$(stat -c %a "$PERF_SHELL_DIR/$t")" "$PERF_SHELL_DIR/$t" \
			"$root/usr/bin/tests/shell/$t"
	done
	# Known exception and branch counts for the QEMU models
	"${CROSS_COMPILE}gcc" -nostdlib -static -o "$root/usr/bin/svc-loop" \
		"$HARNESS/qemu/guest/svc-loop.S"
	find "$TESTS_DIR" -maxdepth 1 -type f -perm -u+x -exec install -m 755 {} "$root/tests/" \;
	# false_share's writer loop disassembled, for plans/c2c.plan to name
	# the load and store perf c2c must find (busybox has no objdump)
	"${CROSS_COMPILE}objdump" -d --no-show-raw-insn "$TESTS_DIR/false_share" |
		awk '/<fs_writer_loop>:/ { f = 1; next } !NF { f = 0 } f' \
		> "$root/tests/false_share.loop"
	# KVM selftests, run by plans/kvm.plan and plans/kvm-guests.plan
	install -m 755 "$KVM_TESTS_DIR"/* "$root/kvm/"
	# Our VMM, its guest's DTB, the script the guest runs and the one that
	# packs its initrd, for plans/l2-guest.plan and plans/l2-qemu.plan (the
	# kernel Image comes with L2_IMAGE=1, Debian's QEMU with L2_QEMU=1)
	install -D -m 755 "$VMM_DIR/l2-vmm" "$root/l2/l2-vmm"
	install -m 644 "$VMM_DIR/l2.dtb" "$root/l2/l2.dtb"
	install -m 755 "$HARNESS/vmm/l2-run.sh" "$root/l2/run.sh"
	install -m 755 "$HARNESS/vmm/l2-initrd.sh" "$root/l2/initrd.sh"
	cp "$HARNESS"/plans/* "$root/plans/" 2>/dev/null || true
	# mainline's recorded ABI and the documented differences, for
	# plans/abi-probe.plan
	install -m 644 "$HARNESS"/abi/* "$root/abi/"
	echo 'root:x:0:0:root:/root:/bin/sh' > "$root/etc/passwd"
	echo 'nobody:x:65534:65534:nobody:/:/bin/sh' >> "$root/etc/passwd"
	printf 'root:x:0:\nnogroup:x:65534:\n' > "$root/etc/group"
	mkdir -p "$(dirname "$OUT")"
	(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc --quiet) > "$OUT.$$.tmp"
	mv "$OUT.$$.tmp" "$OUT"
}

case "${1:-build}" in
build) build ;;
path) echo "$OUT" ;;
*) die "usage: $0 build|path" ;;
esac
