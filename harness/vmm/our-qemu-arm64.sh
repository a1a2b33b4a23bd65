#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Our QEMU (harness/qemu: the same source and patches) cross-built for an
# arm64 host, as a VMM inside the QEMU guest: plans/l2-qemu.plan runs it
# with KVM there to boot our kernel as an L2 guest with -cpu host,spe=on,
# the VMM side of guest SPE (issue 42, "A Linux guest under a real VMM").
# KVM only (no TCG), the virt board alone. This packs qemu-system-aarch64
# and the arm64 libraries it loads into a cpio that harness/qemu.sh
# appends with L2_OURQEMU=1, as /l2o/qemu-system-aarch64 and
# /lib/aarch64-linux-gnu (the same libraries, where Debian's QEMU of
# vmm/debian-qemu.sh needs them too, so the two cpios may be appended
# together).
#
#   harness/vmm/our-qemu-arm64.sh [build]   cross-build and pack, if needed
#   harness/vmm/our-qemu-arm64.sh path      print the cpio's path
#
# The arm64 libraries come from make deps (harness/deps.sh), except
# libfdt-dev: its arm64 package conflicts with the host's own (which
# harness/qemu needs), so it is only downloaded and unpacked into a
# folder of its own here, and linked statically.

# The source, its patches and unpack() (and lib.sh) from our x86 build
# shellcheck source=../qemu/build.sh
. "$(dirname "$0")/../qemu/build.sh"
# shellcheck source=arm64-libs.sh
. "$(dirname "$0")/arm64-libs.sh"

XDIR=$CACHE/our-qemu-arm64
# What the cross-build links (harness/deps.sh installs them)
ARM64_DEPS=(libc6-dev:arm64 libglib2.0-dev:arm64 zlib1g-dev:arm64)
FDT_PKG=libfdt-dev:arm64
FDT_VERSION=$(apt-cache policy "$FDT_PKG" 2>/dev/null | sed -n 's/^ *Candidate: //p')
[ -n "$FDT_VERSION" ] && [ "$FDT_VERSION" != "(none)" ] ||
	die "apt offers no $FDT_PKG: run 'make deps' (it adds the arm64 architecture)"

# KVM and the virt board only: the guest's VMM needs nothing else
XCONFIGURE=(
	--cross-prefix=aarch64-linux-gnu-
	--target-list=aarch64-softmmu
	--without-default-features
	--disable-download --disable-install-blobs
	--enable-kvm --disable-tcg
	--enable-fdt=system
	--disable-docs --disable-tools --disable-guest-agent
	--without-default-devices --with-devices-aarch64=l2o
)

KEY=$({ hash_inputs "$QDIR/SOURCE" "$QDIR/patches" "$0" "$(dirname "$0")/arm64-libs.sh"
	echo "$FDT_VERSION"; declare -f unpack configure_build; } | sha256sum | cut -c1-16)
TREE=$XDIR/$QEMU_UPSTREAM_VERSION-$KEY
OUT=$TREE.cpio

# fdt_prefix: libfdt-dev for arm64 unpacked, its folder printed
fdt_prefix() {
	local dir=$XDIR/libfdt-$FDT_VERSION deb
	if [ ! -f "$dir/usr/lib/aarch64-linux-gnu/libfdt.a" ]; then
		rm -rf "$dir.tmp"
		mkdir -p "$dir.tmp"
		msg "downloading $FDT_PKG $FDT_VERSION (not installed)"
		(cd "$dir.tmp" && apt-get -q -o APT::Sandbox::User=root download "$FDT_PKG=$FDT_VERSION") >&2 ||
			die "apt-get download $FDT_PKG=$FDT_VERSION failed"
		deb=$(ls "$dir.tmp"/libfdt-dev_*_arm64.deb)
		dpkg -x "$deb" "$dir.tmp"
		# libfdt.a alone: linked statically, no libfdt.so loaded at run time
		rm -f "$dir.tmp/usr/lib/aarch64-linux-gnu/libfdt.so"
		rm -rf "$dir" && mv "$dir.tmp" "$dir"
	fi
	echo "$dir"
}

xbuild() {
	local fdt root
	fdt=$(fdt_prefix)
	rm -rf "$TREE"
	mkdir -p "$TREE/build"
	unpack "$TREE/src"
	echo CONFIG_ARM_VIRT=y > "$TREE/src/configs/devices/aarch64-softmmu/l2o.mak"
	msg "configuring QEMU for arm64 in $TREE/build"
	# configure runs aarch64-linux-gnu-pkg-config: arm64's .pc files only.
	# libfdt has none; meson finds it with the compiler.
	export PATH=/usr/lib/ccache:$PATH CCACHE_BASEDIR=$TREE CCACHE_NOHASHDIR=1
	export PKG_CONFIG_LIBDIR=/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig
	configure_build "$TREE" "${XCONFIGURE[@]}" \
		--extra-cflags="-I$fdt/usr/include" \
		--extra-ldflags="-L$fdt/usr/lib/aarch64-linux-gnu"
	is_arm64 "$TREE/build/qemu-system-aarch64" || die "$TREE/build/qemu-system-aarch64 is not arm64"

	msg "packing $OUT"
	root=$TREE/cpio
	rm -rf "$root"
	install -D -m 755 "$TREE/build/qemu-system-aarch64" "$root/l2o/qemu-system-aarch64"
	aarch64-linux-gnu-strip "$root/l2o/qemu-system-aarch64"
	echo "$QEMU_UPSTREAM_VERSION $KEY" > "$root/l2o/version"
	pack_libs "$root/l2o/qemu-system-aarch64" "$root"
	(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc --quiet) > "$OUT.$$.tmp"
	mv "$OUT.$$.tmp" "$OUT"
	# The cpio is the output: the 400 MB tree goes, its logs stay
	rm -rf "$TREE/src" "$TREE/build" "$root"
}

case "${1:-build}" in
path) echo "$OUT" ;;
build)
	[ -f "$OUT" ] && exit 0
	install_deps
	for p in gcc-aarch64-linux-gnu "${ARM64_DEPS[@]}"; do
		dpkg-query -W -f '${Status}\n' "$p" 2>/dev/null | grep -q 'install ok installed' ||
			die "$p is not installed: run 'make deps'"
	done
	take_lock "$TREE.lock" "harness/vmm/our-qemu-arm64.sh building $TREE"
	if [ ! -f "$OUT" ]; then
		fetch_orig
		xbuild
	fi
	;;
*) die "usage: $0 build|path" ;;
esac
