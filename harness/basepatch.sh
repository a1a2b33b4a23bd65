#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Our changes to base files are patches/*.patch, applied in the order of
# patches/series (quilt's layout, as Debian keeps its kernel patches), so
# what we changed is all a reader sees. To change them:
#
#   harness/basepatch.sh edit [FILE...]   build/base-edit/: the base files
#       the patches touch (and each FILE, a base file to start changing),
#       with every patch applied by quilt; its patches/ is the repository's
#   harness/basepatch.sh refresh          quilt refresh: the topmost
#       applied patch takes the edits made since it was pushed
#
# In build/base-edit, quilt does the rest: `quilt pop NAME` goes back to
# a patch to change it, `quilt new NAME.patch` + `quilt add FILE` starts
# one, `quilt push -a` reapplies the rest. (make base-edit [FILES=...] and
# make base-refresh do the same as the two commands.)

. "$(dirname "$0")/lib.sh"

BASE_TREE=$(built "$HARNESS/base.sh")
EDIT=$TOP/build/base-edit
export QUILT_PATCHES=patches QUILT_SERIES=series
export QUILT_REFRESH_ARGS='-p ab --no-timestamps --no-index --sort'
export QUILT_DIFF_ARGS='-p ab --no-timestamps --no-index' QUILT_DIFF_OPTS=-p

need_quilt() {
	command -v quilt > /dev/null || die "quilt is missing: make deps (or apt-get install quilt)"
}

edit() {
	local f
	need_quilt
	[ -e "$EDIT" ] && die "$EDIT exists: finish with it (refresh), or remove it"
	for f in "$@"; do
		[ -f "$BASE_TREE/$f" ] || die "$f is not a file of the base"
		[ -f "$TOP/$f" ] && die "$f is one of our own files: edit it in place"
	done
	mkdir -p "$EDIT"
	# shellcheck disable=SC2046 # a word list
	(cd "$BASE_TREE" && cp --parents $(patched_files) "$@" "$EDIT/")
	chmod -R u+w "$EDIT"
	ln -s "$BASE_PATCHES" "$EDIT/patches"
	(cd "$EDIT" && quilt --quiltrc=- push -a -q --fuzz=0 >&2) ||
		die "a patch does not apply (named above): fix it in $EDIT with quilt"
	msg "edit in $EDIT with quilt; the patches are the repository's patches/"
	echo "$EDIT"
}

refresh() {
	need_quilt
	[ -d "$EDIT" ] || die "nothing to refresh: run harness/basepatch.sh edit first"
	(cd "$EDIT" && quilt --quiltrc=- refresh >&2)
}

case "${1:-}" in
edit) shift; edit "$@" ;;
refresh) refresh ;;
*) die "usage: $0 edit [FILE...] | refresh" ;;
esac
