#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Mainline Linux as a second reference (issue 27): Debian's
# linux-source-7.3 from trixie-backports, the one package the MAINLINE
# file records (version and .deb hash), fetched with `apt-get download`
# through a private sources list (lists and caches under
# $CACHE/mainline/apt; /etc/apt and /var/lib/apt are neither read nor
# written), extracted with dpkg-deb -x (never installed, its dependencies
# neither) and its tarball unpacked read-only under $CACHE/mainline. Its
# code is built and run for comparison only, never copied into ours.
#
#   harness/mainline.sh [build]  fetch and unpack (if needed)
#   harness/mainline.sh path     print the tree's path (named by MAINLINE)
#   harness/mainline.sh check    ask the suite (its package list, not the
#                                package): fail if it moved from MAINLINE
#   harness/mainline.sh record   rewrite MAINLINE from the suite's version
#
# Drift fails loudly: if the suite no longer offers the recorded version,
# or offers it with another hash, nothing is unpacked; `record` (and a
# look at what changed) moves to the new one.

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=../MAINLINE
. "$TOP/MAINLINE"

MDIR=$CACHE/mainline
APT=$MDIR/apt
DL=$MDIR/dl
DEB=${MAINLINE_DEB_PACKAGE}_${MAINLINE_DEB_VERSION}_all.deb
DEST=$MDIR/$MAINLINE_DEB_VERSION
TREE=$DEST/$MAINLINE_DEB_PACKAGE

# suite: "VERSION SHA256" of the package as the suite offers it now
suite() {
	local key=/usr/share/keyrings/debian-archive-keyring.gpg
	mkdir -p "$APT/lists/partial" "$APT/cache/archives/partial"
	echo "deb [signed-by=$key] $(debian_uri) $MAINLINE_DEB_SUITE main" \
		> "$APT/sources.list"
	msg "apt-get update (private list $APT/sources.list)"
	papt apt-get -q update >&2 || die "apt-get update of the private list failed"
	papt apt-cache show "$MAINLINE_DEB_PACKAGE" 2>/dev/null | awk '
		/^Version: / { v = $2 } /^SHA256: / { s = $2 }
		/^$/ && v != "" { print v, s; v = "" } END { if (v != "") print v, s }' |
		sort -V | tail -n 1
}

# check: the suite still offers MAINLINE's version with MAINLINE's hash
check() {
	local v s
	read -r v s <<< "$(suite)"
	[ -n "$v" ] || die "$MAINLINE_DEB_SUITE offers no $MAINLINE_DEB_PACKAGE"
	[ "$v" = "$MAINLINE_DEB_VERSION" ] || die "mainline drift: $MAINLINE_DEB_SUITE offers $MAINLINE_DEB_PACKAGE $v,
  MAINLINE records $MAINLINE_DEB_VERSION. To move: run 'harness/mainline.sh record', rebuild
  (VARIANT=mainline harness/kernel.sh), rerun boot-mainline and update the differences
  in harness/qemu/README.md, then commit MAINLINE."
	[ "$s" = "$MAINLINE_DEB_SHA256" ] || die "mainline drift: $MAINLINE_DEB_PACKAGE $v has SHA256 $s in $MAINLINE_DEB_SUITE,
  MAINLINE records $MAINLINE_DEB_SHA256"
}

fetch() {
	[ -f "$DL/$DEB" ] && return 0
	check
	mkdir -p "$DL"
	msg "downloading $MAINLINE_DEB_PACKAGE $MAINLINE_DEB_VERSION (one package, not installed)"
	(cd "$DL" && papt apt-get -q download "$MAINLINE_DEB_PACKAGE=$MAINLINE_DEB_VERSION") >&2 ||
		die "apt-get download of $MAINLINE_DEB_PACKAGE=$MAINLINE_DEB_VERSION failed"
}

unpack() {
	local tarball
	# the marker names what was unpacked: a MAINLINE edit unpacks again
	[ "$(cat "$DEST/.unpacked" 2>/dev/null)" = "$MAINLINE_DEB_SHA256" ] && return 0
	fetch
	echo "$MAINLINE_DEB_SHA256  $DL/$DEB" | sha256sum --quiet -c - ||
		die "$DL/$DEB does not match MAINLINE's SHA256: delete it and rerun"
	msg "extracting $DEB and unpacking its source into $DEST"
	[ -d "$DEST" ] && chmod -R u+w "$DEST"
	rm -rf "$DEST" && mkdir -p "$DEST/deb"
	dpkg-deb -x "$DL/$DEB" "$DEST/deb"
	tarball=$DEST/deb/usr/src/$MAINLINE_DEB_PACKAGE.tar.xz
	[ -f "$tarball" ] || die "$DEB holds no usr/src/$MAINLINE_DEB_PACKAGE.tar.xz"
	tar -xJf "$tarball" -C "$DEST"
	rm -rf "$DEST/deb"
	[ -d "$TREE" ] || die "the tarball of $DEB holds no $MAINLINE_DEB_PACKAGE/"
	local kv
	kv=$(make -s -C "$TREE" kernelversion)
	[ "$kv" = "$MAINLINE_KERNELVERSION" ] ||
		die "$DEB holds kernel $kv, MAINLINE records $MAINLINE_KERNELVERSION"
	chmod -R a-w "$TREE"
	echo "$MAINLINE_DEB_SHA256" > "$DEST/.unpacked"
}

record() {
	local v s
	read -r v s <<< "$(suite)"
	[ -n "$v" ] || die "$MAINLINE_DEB_SUITE offers no $MAINLINE_DEB_PACKAGE"
	sed -i -e "s/^MAINLINE_DEB_VERSION=.*/MAINLINE_DEB_VERSION=$v/" \
		-e "s/^MAINLINE_DEB_SHA256=.*/MAINLINE_DEB_SHA256=$s/" "$TOP/MAINLINE"
	# shellcheck source=../MAINLINE
	. "$TOP/MAINLINE"
	DEB=${MAINLINE_DEB_PACKAGE}_${MAINLINE_DEB_VERSION}_all.deb
	DEST=$MDIR/$MAINLINE_DEB_VERSION TREE=$DEST/$MAINLINE_DEB_PACKAGE
	rm -rf "$DEST"
	fetch
	echo "$s  $DL/$DEB" | sha256sum --quiet -c - || die "$DEB does not match its SHA256"
	mkdir -p "$DEST"
	dpkg-deb --fsys-tarfile "$DL/$DEB" |
		tar -xO "./usr/src/$MAINLINE_DEB_PACKAGE.tar.xz" | tar -xJ -C "$DEST"
	sed -i "s/^MAINLINE_KERNELVERSION=.*/MAINLINE_KERNELVERSION=$(make -s -C "$TREE" kernelversion)/" \
		"$TOP/MAINLINE"
	rm -rf "$DEST"
	msg "recorded $MAINLINE_DEB_PACKAGE $v; commit MAINLINE"
}

case "${1:-build}" in
build) unpack ;;
path) echo "$TREE" ;;
check) check; msg "$MAINLINE_DEB_SUITE still offers $MAINLINE_DEB_PACKAGE $MAINLINE_DEB_VERSION" ;;
record) record ;;
*) die "usage: $0 build|path|check|record" ;;
esac
