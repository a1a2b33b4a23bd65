#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Our changes to base files live as patches/<kernel path>.patch, one per
# file, so that what we changed is all a reader sees. To change them:
#
#   harness/basepatch.sh edit [FILE...]  put every patched base file, and
#                                        each FILE (a base file to start
#                                        changing), in build/base-edit/
#   harness/basepatch.sh refresh         turn build/base-edit/ back into
#                                        patches/ (a file equal to the
#                                        base loses its patch), then
#                                        remove build/base-edit/
#
# (make base-edit [FILES=...] and make base-refresh do the same.)

. "$(dirname "$0")/lib.sh"

BASE_TREE=$("$HARNESS/base.sh")
EDIT=$TOP/build/base-edit

edit() {
	local f
	[ -e "$EDIT" ] && die "$EDIT exists: refresh it first, or remove it"
	for f in "$@"; do
		[ -f "$BASE_TREE/$f" ] || die "$f is not a file of the base"
		[ -f "$TOP/$f" ] && die "$f is one of our own files: edit it in place"
	done
	for f in $(patched_files) "$@"; do
		mkdir -p "$EDIT/${f%/*}"
		cp "$(overlay_path "$f")" "$EDIT/$f"
	done
	msg "edit the files in $EDIT, then run: harness/basepatch.sh refresh"
	echo "$EDIT"
}

refresh() {
	local f p rc
	[ -d "$EDIT" ] || die "nothing to refresh: run harness/basepatch.sh edit first"
	while read -r f; do
		p=$BASE_PATCHES/$f.patch
		mkdir -p "${p%/*}"
		rc=0
		diff -up --label "a/$f" --label "b/$f" "$BASE_TREE/$f" "$EDIT/$f" > "$p.tmp" ||
			rc=$?
		case $rc in
		0) rm -f "$p" "$p.tmp"; msg "$f equals the base: no patch" ;;
		1) mv "$p.tmp" "$p" ;;
		*) die "diff failed on $f" ;;
		esac
	done < <(cd "$EDIT" && find . -type f | sed 's|^\./||' | LC_ALL=C sort)
	find "$BASE_PATCHES" -type d -empty -delete 2>/dev/null || true
	rm -rf "$EDIT"
	msg "$(patched_files | wc -l) base files patched under $BASE_PATCHES"
}

case "${1:-}" in
edit) shift; edit "$@" ;;
refresh) refresh ;;
*) die "usage: $0 edit [FILE...] | refresh" ;;
esac
