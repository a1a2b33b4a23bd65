#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Unpack the recorded base tree once and check that every base file one of
# our files replaces whole is byte-identical to the version the series was
# written against (BASE.sha256).
#
#   harness/base.sh [build]  unpack (if needed) and verify
#   harness/base.sh path     print the tree's path (named by the installed
#                            package's version), unpack nothing
#   harness/base.sh record   rewrite BASE and BASE.sha256 from the installed base

. "$(dirname "$0")/lib.sh"

installed_version() {
	dpkg-query -W -f '${Version}' "$BASE_DEB_PACKAGE" 2>/dev/null ||
		die "$BASE_DEB_PACKAGE is not installed: run 'make deps'"
}

unpack() {
	local dest=$CACHE/base/$BASE_DEB_VERSION
	[ -f "$dest/.unpacked" ] && return 0
	[ -f "$BASE_TARBALL" ] || die "$BASE_TARBALL is missing: run 'make deps'"
	msg "unpacking $BASE_TARBALL into $dest"
	rm -rf "$dest" && mkdir -p "$dest"
	tar -xJf "$BASE_TARBALL" -C "$dest"
	chmod -R a-w "$dest/linux-source-6.12"
	touch "$dest/.unpacked"
}

# The base files one of our files replaces whole. The files we patch need
# no record: a patch that no longer applies names its file itself.
modified_base_files() {
	own_files | while read -r f; do
		if [ -e "$BASE_TREE/$f" ]; then echo "$f"; fi
	done
}

record() {
	local v
	v=$(installed_version)
	[ "$v" = "$BASE_DEB_VERSION" ] || {
		sed -i "s/^BASE_DEB_VERSION=.*/BASE_DEB_VERSION=$v/" "$TOP/BASE"
		BASE_DEB_VERSION=$v
		BASE_TREE=$CACHE/base/$v/linux-source-6.12
	}
	unpack
	sed -i "s/^BASE_KERNELVERSION=.*/BASE_KERNELVERSION=$(make -s -C "$BASE_TREE" kernelversion)/" "$TOP/BASE"
	(cd "$BASE_TREE" && modified_base_files | xargs -r sha256sum) > "$TOP/BASE.sha256"
	msg "recorded $(wc -l < "$TOP/BASE.sha256") base files at $v"
}

# installed: the tree of the installed package, which may have moved on
# from BASE (verify says so)
installed() {
	local v
	v=$(installed_version)
	if [ "$v" != "$BASE_DEB_VERSION" ]; then
		BASE_DEB_VERSION=$v
		BASE_TREE=$CACHE/base/$v/linux-source-6.12
		return 1
	fi
}

verify() {
	local bad=0 f
	if ! installed; then
		msg "WARNING: installed $BASE_DEB_PACKAGE is $BASE_DEB_VERSION, the series was written against $(sed -n 's/^BASE_DEB_VERSION=//p' "$TOP/BASE")"
		msg "WARNING: unpacking $BASE_DEB_VERSION; files the series modifies are checked below"
	fi
	unpack
	while read -r sum f; do
		if ! echo "$sum  $BASE_TREE/$f" | sha256sum --quiet -c - 2>/dev/null; then
			msg "base drift: $f differs from the version recorded in BASE.sha256"
			bad=1
		fi
	done < "$TOP/BASE.sha256"
	for f in $(modified_base_files); do
		grep -q "  $f\$" "$TOP/BASE.sha256" && continue
		die "$f replaces a base file that BASE.sha256 does not record:
  run 'harness/base.sh record' on an unchanged base and commit BASE.sha256"
	done
	[ $bad = 0 ] || die "the base moved under the overlay. To rebase: diff each file named above
  against the new base, port our changes onto it, then run 'harness/base.sh record' and commit
  BASE and BASE.sha256."
}

case "${1:-build}" in
build|verify) verify ;;
path) installed || true; echo "$BASE_TREE" ;;
record) record ;;
*) die "usage: $0 build|path|record" ;;
esac
