#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The initramfs of 32-bit Arm boots (harness/qemu.sh KARCH=arm): Debian's
# armhf busybox, our init, the known loops and pmu32 built for A32, the
# plans they run.
#
#   harness/arm32/initramfs.sh [build]   build it if needed
#   harness/arm32/initramfs.sh path      print its path, build nothing
#
# busybox-static:armhf cannot be installed beside the arm64 one (both own
# /bin/busybox), so its package is downloaded and unpacked into $CACHE,
# through a private apt configuration: armhf only, bookworm's main suite,
# its own lists. The system's apt is not made armhf multi-arch, so an armhf
# index caught mid-sync on some other suite cannot fail make deps.

. "$(dirname "$0")/../lib.sh"

ARM32=$HARNESS/arm32
CC32=arm-linux-gnueabihf-gcc

APT=$CACHE/arm32/apt
papt() {
	apt-get -o Dir::Etc::SourceList="$APT/sources.list" \
		-o Dir::Etc::SourceParts=/dev/null -o Dir::State::Lists="$APT/lists" \
		-o Dir::State::status="$APT/status" -o Dir::Cache="$APT/cache" \
		-o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache= \
		-o APT::Architecture=armhf -o APT::Architectures=armhf \
		-o APT::Sandbox::User=root "$@"
}

# busybox_armhf: the path of the armhf busybox, fetched once
busybox_armhf() {
	local dir=$CACHE/arm32/busybox deb key=/usr/share/keyrings/debian-archive-keyring.gpg
	if [ ! -x "$dir/bin/busybox" ]; then
		rm -rf "$dir.tmp" && mkdir -p "$dir.tmp" "$APT/lists/partial" "$APT/cache/archives/partial"
		echo "deb [signed-by=$key] $(debian_uri) bookworm main" > "$APT/sources.list"
		: > "$APT/status"
		msg "fetching busybox-static:armhf"
		papt update -q >&2 || die "apt-get update of $APT/sources.list failed"
		(cd "$dir.tmp" && papt download -q busybox-static >&2) ||
			die "apt-get download busybox-static:armhf failed"
		deb=$(ls "$dir.tmp"/busybox-static_*_armhf.deb)
		dpkg-deb -x "$deb" "$dir.tmp"
		rm -rf "$dir" && mv "$dir.tmp" "$dir"
	fi
	echo "$dir/bin/busybox"
}

# Named by its recipe: busybox is what bookworm's busybox-static:armhf was
# when it was first fetched (this script names the suite), never refreshed.
OUT=$CACHE/arm32/initramfs/$(hash_inputs "$0" "$ARM32" "$HARNESS/guest/init" \
	"$HARNESS/plans/tap.sh" "$HARNESS/plans/kunit.plan" "$HARNESS/plans/dmesg.plan" \
	"$(command -v "$CC32")").cpio

build() {
	local busybox
	[ -f "$OUT" ] && return 0
	busybox=$(busybox_armhf)
	root=$(mktemp -d)
	trap 'rm -rf "$root"' EXIT
	mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,root,plans,etc}
	install -m 755 "$busybox" "$root/bin/busybox"
	ln -s busybox "$root/bin/sh"
	install -m 755 "$HARNESS/guest/init" "$root/init"
	$CC32 -nostdlib -static -o "$root/usr/bin/known-loop" "$ARM32/loop.S"
	$CC32 -nostdlib -static -DLOOPS=0x80000001 -o "$root/usr/bin/long-loop" "$ARM32/loop.S"
	$CC32 -O2 -Wall -Wextra -Werror -static -o "$root/usr/bin/pmu32" "$ARM32/pmu32.c"
	cp "$HARNESS/plans/tap.sh" "$HARNESS/plans/kunit.plan" "$HARNESS/plans/dmesg.plan" \
		"$ARM32/arm32.plan" "$root/plans/"
	echo 'root:x:0:0:root:/root:/bin/sh' > "$root/etc/passwd"
	printf 'root:x:0:\n' > "$root/etc/group"
	mkdir -p "$(dirname "$OUT")"
	(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc --quiet) > "$OUT.tmp"
	mv "$OUT.tmp" "$OUT"
}

case "${1:-build}" in
build) build ;;
path) echo "$OUT" ;;
*) die "usage: $0 build|path" ;;
esac
