#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build our qemu-system-aarch64: Debian's QEMU source (harness/qemu/SOURCE)
# plus our patch series (harness/qemu/patches/*.patch, applied in name
# order), aarch64-softmmu only, with ccache.
#
#   harness/qemu/build.sh [build]  build if needed (installs the build
#                                  dependencies first)
#   harness/qemu/build.sh path     print the path of qemu-system-aarch64,
#                                  build nothing
#   harness/qemu/build.sh --deps   only install the build dependencies
#
# The build lives in $CACHE/qemu/<version>-<hash>, the hash covering SOURCE,
# the patches, the configure options and the build steps, so an unchanged
# series is never rebuilt and a changed one gets a fresh tree (ccache makes
# that cheap). Debian's source comes through a private sources
# list under $CACHE/qemu/apt: the system's apt configuration is not touched.

# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

QDIR=$HARNESS/qemu
# shellcheck source=SOURCE
. "$QDIR/SOURCE"
JOBS=${JOBS:-$(nproc)}

# Debian's build dependencies of QEMU that this configuration uses.
DEPS=(gcc make ninja-build python3 python3-venv pkg-config flex bison ccache
      patch xz-utils libglib2.0-dev libfdt-dev libpixman-1-dev zlib1g-dev)
# From $QEMU_DEB_SUITE (bookworm-backports): meson >= 1.5 (bookworm has
# 1.0.1) and pycotap, which QEMU's configure requires beside meson.
MESON_MIN=1.5.0
BACKPORTS=(python3-pycotap)
# Debian's python3: configure builds a venv on it that must see meson.
PYTHON=/usr/bin/python3

meson_ok() {
	local v
	v=$(/usr/bin/meson --version 2>/dev/null) || return 1
	[ "$(printf '%s\n%s\n' "$MESON_MIN" "$v" | sort -V | head -n 1)" = "$MESON_MIN" ]
}

install_deps() {
	local p missing=()
	for p in "${DEPS[@]}"; do
		dpkg-query -W -f '${Status}\n' "$p" 2>/dev/null | grep -q 'install ok installed' ||
			missing+=("$p")
	done
	for p in "${BACKPORTS[@]}"; do
		dpkg-query -W -f '${Status}\n' "$p" 2>/dev/null | grep -q 'install ok installed' ||
			missing+=("$p/$QEMU_DEB_SUITE")
	done
	meson_ok || missing+=("meson/$QEMU_DEB_SUITE")
	[ ${#missing[@]} = 0 ] && return 0
	[ "$(id -u)" = 0 ] || die "qemu build needs: ${missing[*]} (run as root to install)"
	msg "installing QEMU build dependencies: ${missing[*]}"
	apt-get update -q >&2
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
		"${missing[@]}" >&2
	meson_ok || die "meson >= $MESON_MIN needed (have $(/usr/bin/meson --version 2>/dev/null))"
}

# papt's private configuration (lib.sh): deb-src lines for Debian's suites
APT=$CACHE/qemu/apt

# fetch_orig: $DL/$QEMU_ORIG, checked against the pinned hash.
DL=$CACHE/qemu/dl
fetch_orig() {
	local key=/usr/share/keyrings/debian-archive-keyring.gpg uris line uri hash s archive security
	[ -f "$DL/$QEMU_ORIG" ] && return 0
	mkdir -p "$APT/lists/partial" "$APT/cache/archives/partial" "$DL"
	archive=$(debian_uri) security=$(debian_uri bookworm-security)
	{
		for s in bookworm bookworm-updates bookworm-backports; do
			echo "deb-src [signed-by=$key] $archive $s main"
		done
		echo "deb-src [signed-by=$key] $security bookworm-security main"
	} > "$APT/sources.list"
	msg "apt-get update (private list $APT/sources.list)"
	papt apt-get -q update >&2 || die "apt-get update of the private source list failed"
	# The recorded version; once the suite has moved on, any version of the
	# suite that ships the same orig tarball (same name, same hash).
	# (In an empty folder: apt-get source leaves out files it finds in '.'.)
	uris=$(cd "$APT/cache" &&
	       { papt apt-get source -q --print-uris "$QEMU_DEB_PACKAGE=$QEMU_DEB_VERSION" 2>/dev/null ||
	         papt apt-get source -q --print-uris "$QEMU_DEB_PACKAGE/$QEMU_DEB_SUITE" 2>/dev/null; }) ||
		die "apt-get source finds neither $QEMU_DEB_PACKAGE=$QEMU_DEB_VERSION nor $QEMU_DEB_PACKAGE/$QEMU_DEB_SUITE"
	line=$(grep -F " $QEMU_ORIG " <<< "$uris") || die "Debian's source of $QEMU_DEB_PACKAGE no longer has $QEMU_ORIG"
	read -r uri _ _ hash <<< "$line"
	[ "$hash" = "SHA256:$QEMU_ORIG_SHA256" ] ||
		die "Debian lists $QEMU_ORIG with $hash, SOURCE pins SHA256:$QEMU_ORIG_SHA256"
	msg "downloading $QEMU_ORIG"
	/usr/lib/apt/apt-helper -o APT::Sandbox::User=root download-file "${uri//\'/}" "$DL/$QEMU_ORIG.part" "$hash" >&2 ||
		die "download of $QEMU_ORIG failed"
	mv "$DL/$QEMU_ORIG.part" "$DL/$QEMU_ORIG"
}

# Only what the tests need: TCG, fdt (the virt board), plugins, virtio-9p
# (harness SHARE=), and of the devices only those of devices.mak (the
# other boards, PCI cards, USB, displays... are a third of the build).
# Everything else, documentation and tools included, is off; no
# subproject is downloaded.
CONFIGURE=(
	--target-list=aarch64-softmmu
	--without-default-features
	--disable-download --disable-install-blobs
	--enable-tcg
	--enable-fdt=system
	--enable-plugins
	--enable-virtfs --enable-attr
	--disable-docs --disable-tools --disable-guest-agent
	--disable-gtk --disable-sdl --disable-vnc --disable-opengl
	--without-default-devices --with-devices-aarch64=pmu
)

# unpack SRC: the orig tarball in SRC (emptied first) with our patches,
# ready to configure with --with-devices-aarch64=pmu. vmm/our-qemu-arm64.sh
# uses it too.
unpack() {
	local src=$1 p
	rm -rf "$src"
	mkdir -p "$src"
	tar -xJf "$DL/$QEMU_ORIG" --no-same-owner --strip-components=1 -C "$src"
	for p in "$QDIR"/patches/*.patch; do
		[ -e "$p" ] || continue
		msg "applying $(basename "$p")"
		patch -d "$src" -p1 -s -F0 --no-backup-if-mismatch < "$p" >&2 ||
			die "$(basename "$p") does not apply to $QEMU_ORIG"
	done
	# The +ds repack drops the prebuilt EDK2 firmware that pc-bios/meson.build
	# lists whenever bzip2 is installed; we build no firmware target, so empty
	# stand-ins let configure pass.
	sed -n "s/^ *'\(edk2-[a-z0-9_-]*\.fd\)',\$/\1/p" "$src/pc-bios/meson.build" |
	while read -r p; do
		[ -e "$src/pc-bios/$p.bz2" ] || : > "$src/pc-bios/$p.bz2"
	done
	cp "$QDIR/devices.mak" "$src/configs/devices/aarch64-softmmu/pmu.mak"
}

# configure_build TREE ARG...: configure TREE/src in TREE/build with
# configure's ARGs, then build qemu-system-aarch64 there; logs in TREE
configure_build() {
	local tree=$1
	shift
	(cd "$tree/build" && ../src/configure --python="$PYTHON" "$@") > "$tree/configure.log" 2>&1 || {
		tail -n 30 "$tree/configure.log" >&2
		die "configure failed; log: $tree/configure.log"
	}
	msg "building qemu-system-aarch64 (-j$JOBS; log: $tree/build.log)"
	ninja -C "$tree/build" -j"$JOBS" qemu-system-aarch64 > "$tree/build.log" 2>&1 || {
		grep -E -B2 -A8 'error:|FAILED' "$tree/build.log" | head -n 60 >&2
		die "build failed; log: $tree/build.log"
	}
}

build() {
	rm -rf "$OUT/build"
	mkdir -p "$OUT/build"
	unpack "$OUT/src"
	msg "configuring QEMU in $OUT/build"
	# ccache through its masquerade folder, with paths relative to $OUT, so
	# trees of different keys share the cache.
	export PATH=/usr/lib/ccache:$PATH CCACHE_BASEDIR=$OUT CCACHE_NOHASHDIR=1
	configure_build "$OUT" "${CONFIGURE[@]}"
	touch "$OUT/.built"
}

OUT=$CACHE/qemu/$QEMU_UPSTREAM_VERSION-$({ hash_inputs "$QDIR/SOURCE" "$QDIR/patches" "$QDIR/devices.mak"
	printf '%s\n' "${CONFIGURE[@]}"; declare -f unpack configure_build build; } | sha256sum | cut -c1-16)
BIN=$OUT/build/qemu-system-aarch64

# prune: keep the KEEP most recently built trees (about 800 MB each); a
# tree another build.sh is using (its lock held) stays.
KEEP=${KEEP:-3}
prune() {
	local d
	ls -1dt "$CACHE"/qemu/*/.built 2>/dev/null | tail -n +$((KEEP + 1)) |
	while read -r d; do
		d=$(dirname "$d")
		[ "$d" = "$OUT" ] && continue
		(flock -n 8 && rm -rf "$d" && rm -f "$d.lock") 8> "$d.lock" || true
	done
}

# Sourced (vmm/our-qemu-arm64.sh): the functions and variables only.
[ "${BASH_SOURCE[0]}" = "$0" ] || return 0

case "${1:-build}" in
path) echo "$BIN" ;;
--deps) install_deps ;;
build)
	install_deps
	mkdir -p "$CACHE/qemu"
	take_lock "$OUT.lock" "harness/qemu/build.sh building $OUT"
	if [ ! -f "$OUT/.built" ]; then
		fetch_orig
		build
		prune
	fi
	;;
*) die "usage: $0 build|path|--deps" ;;
esac
