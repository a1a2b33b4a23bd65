#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Debian's own arm64 QEMU, unmodified, as a VMM inside the QEMU guest:
# plans/l2-qemu.plan runs qemu-system-aarch64 with KVM there to boot our
# kernel as an L2 guest, the way a user's VMM would (issue 42, "A Linux
# guest under a real VMM"). This packs the binary of the qemu-system-arm
# package (arm64, the version the machine's apt offers) and the arm64
# libraries it loads into a cpio that harness/qemu.sh appends with
# L2_QEMU=1, as /l2q/qemu-system-aarch64 and /lib/aarch64-linux-gnu.
#
#   harness/vmm/debian-qemu.sh [build]   fetch and pack, if needed
#   harness/vmm/debian-qemu.sh path      print the cpio's path
#
# The package comes from the machine's apt sources (apt-get download, no
# dependencies installed); its libraries are the arm64 ones make deps
# installs (harness/deps.sh, QEMU_ARM64_LIBS).

. "$(dirname "$0")/../lib.sh"

# shellcheck source=arm64-libs.sh
. "$(dirname "$0")/arm64-libs.sh"

PKG=qemu-system-arm:arm64

version() {
	apt-cache policy "$PKG" 2>/dev/null | sed -n 's/^ *Candidate: //p'
}

VERSION=$(version)
[ -n "$VERSION" ] && [ "$VERSION" != "(none)" ] ||
	die "apt offers no $PKG: run 'make deps' (it adds the arm64 architecture)"
OUT=$CACHE/debian-qemu/$(echo "$VERSION $(cat "$0" "$(dirname "$0")/arm64-libs.sh")" | sha256sum | cut -c1-16).cpio

build() {
	# apt-get download's name for it (the epoch's colon escaped)
	local dir=$CACHE/debs deb=$CACHE/debs/qemu-system-arm_${VERSION/:/%3a}_arm64.deb
	[ -f "$OUT" ] && return 0
	if [ ! -f "$deb" ]; then
		mkdir -p "$dir"
		msg "downloading $PKG $VERSION (not installed)"
		(cd "$dir" && apt-get -q -o APT::Sandbox::User=root download "$PKG=$VERSION") >&2 ||
			die "apt-get download $PKG=$VERSION failed"
	fi
	msg "packing $OUT from $(basename "$deb")"
	root=$(mktemp -d)
	trap 'rm -rf "$root"' EXIT
	dpkg-deb --fsys-tarfile "$deb" | tar -xOf - ./usr/bin/qemu-system-aarch64 > "$root/qemu"
	is_arm64 "$root/qemu" || die "$deb: no arm64 qemu-system-aarch64"
	install -D -m 755 "$root/qemu" "$root/cpio/l2q/qemu-system-aarch64"
	echo "$VERSION" > "$root/cpio/l2q/version"
	pack_libs "$root/qemu" "$root/cpio"
	mkdir -p "$(dirname "$OUT")"
	(cd "$root/cpio" && find . | LC_ALL=C sort | cpio -o -H newc --quiet) > "$OUT.$$.tmp"
	mv "$OUT.$$.tmp" "$OUT"
}

case "${1:-build}" in
build) build ;;
path) echo "$OUT" ;;
*) die "usage: $0 build|path" ;;
esac
