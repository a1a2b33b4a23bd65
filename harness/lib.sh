# SPDX-License-Identifier: GPL-2.0
# Shared paths and helpers for the harness scripts. Sourced, never run.
#
# Everything that is built lives outside the repository under $CACHE, in
# folders named by a hash of their inputs, so a fresh clone reuses earlier
# builds and an unchanged input is never rebuilt.

set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
HARNESS=$TOP/harness
CACHE=${CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/arm64-pmu}
mkdir -p "$CACHE"

# The recorded base: Debian package version and kernel version.
# shellcheck source=../BASE
. "$TOP/BASE"
BASE_TARBALL=/usr/src/linux-source-6.12.tar.xz
BASE_TREE=$CACHE/base/$BASE_DEB_VERSION/linux-source-6.12

CROSS_COMPILE=aarch64-linux-gnu-
export ARCH=arm64
export CCACHE_DIR=${CCACHE_DIR:-$CACHE/ccache}
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-5G}
# Paths under $CACHE are hashed relative to the build folder, so two
# caches (a helper's, CI's) that share CCACHE_DIR hit each other's objects.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$CACHE} CCACHE_NOHASHDIR=1

msg() { printf '[harness] %s\n' "$*" >&2; }
die() { printf '[harness] error: %s\n' "$*" >&2; exit 1; }

# hash_inputs FILE|DIR...: a short content hash of files and folders.
hash_inputs() {
	local p
	for p in "$@"; do
		if [ -d "$p" ]; then
			(cd "$p" && find . -type f ! -name '*.o' -print0 | LC_ALL=C sort -z |
			 xargs -0r sha256sum)
		elif [ -e "$p" ]; then
			# by name and content, not path: a clone elsewhere hashes the same
			echo "${p##*/} $(sha256sum < "$p")"
		else
			echo "missing ${p##*/}"
		fi
	done | sha256sum | cut -c1-16
}

# Our changes to base files: patches/<kernel path>.patch, one per file,
# applied to the pristine base (harness/basepatch.sh edits and refreshes
# them). Everything else at a kernel path here is our own file.
BASE_PATCHES=$TOP/patches

# own_files: the kernel paths of our own files, one per line.
own_files() {
	(cd "$TOP" && git ls-files --cached --others --exclude-standard -- \
		arch drivers include kernel tools Documentation MAINTAINERS 2>/dev/null |
	 while read -r f; do [ -f "$f" ] && echo "$f"; done)
}

# patched_files: the base files we change by a patch, one per line.
patched_files() {
	[ -d "$BASE_PATCHES" ] || return 0
	(cd "$BASE_PATCHES" && find . -type f -name '*.patch' |
	 sed 's|^\./||; s|\.patch$||' | LC_ALL=C sort)
}

# overlay_files: every kernel path the overlay sets, ours or patched.
overlay_files() {
	own_files
	patched_files
}

# overlay_path FILE: a path holding FILE as the overlay has it: our file,
# or the base's with our patch applied (made once under $CACHE/patched,
# keyed by both). A patch that no longer applies stops the build there.
overlay_path() {
	local f=$1 p=$BASE_PATCHES/$1.patch out
	if [ ! -f "$p" ]; then
		echo "$TOP/$f"
		return
	fi
	out=$CACHE/patched/$(hash_inputs "$p" "$BASE_TREE/$f")/$f
	if [ ! -f "$out" ]; then
		mkdir -p "${out%/*}"
		patch -s -f -F0 --no-backup-if-mismatch -o "$out.tmp" "$BASE_TREE/$f" < "$p" >&2 ||
			die "patches/$f.patch no longer applies to the base's $f: port it by hand
  (harness/basepatch.sh edit $f, then refresh)"
		[ -x "$BASE_TREE/$f" ] && chmod +x "$out.tmp"
		mv "$out.tmp" "$out"
	fi
	echo "$out"
}
