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

# overlay_files: the kernel paths this repository carries, one per line.
overlay_files() {
	(cd "$TOP" && git ls-files --cached --others --exclude-standard -- \
		arch drivers include kernel tools Documentation MAINTAINERS 2>/dev/null |
	 while read -r f; do [ -f "$f" ] && echo "$f"; done)
}
