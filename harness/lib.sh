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

# debian_uri [SUITE]: the address of the Debian archive that serves SUITE
# (default bookworm; bookworm-security is an archive of its own), as this
# machine's apt sources give it, so that a mirror, proxy or apt-cacher set
# there serves the private source lists too. Suites of other releases
# (mainline's trixie-backports) are fetched from the one serving bookworm.
debian_uri() {
	local suite=${1:-bookworm} uri
	uri=$(apt-get indextargets --no-release-info --format '$(RELEASE) $(REPO_URI)' |
	      awk -v s="$suite" '$1 == s { sub("/$", "", $2); print $2; exit }')
	[ -n "$uri" ] || die "no apt source of this machine serves $suite: add Debian's archive (or a mirror of it) for $suite to /etc/apt/sources.list.d"
	echo "$uri"
}

# papt TOOL ARGS...: an apt tool on the private configuration under $APT
# (sources.list, lists, caches), reading nothing from /etc/apt and writing
# nothing to /var/lib/apt.
papt() {
	local tool=$1; shift
	"$tool" -o Dir::Etc::SourceList="$APT/sources.list" \
		-o Dir::Etc::SourceParts=/dev/null \
		-o Dir::State::Lists="$APT/lists" \
		-o Dir::Cache="$APT/cache" \
		-o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache= \
		-o APT::Sandbox::User=root "$@"
}

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

# Our changes to base files: patches/*.patch, applied in the order of
# patches/series to the pristine base (quilt's layout; harness/basepatch.sh
# edits them). Everything else at a kernel path here is our own file.
BASE_PATCHES=$TOP/patches

# own_files: the kernel paths of our own files, one per line.
own_files() {
	(cd "$TOP" && git ls-files --cached --others --exclude-standard -- \
		arch drivers include kernel tools Documentation MAINTAINERS 2>/dev/null |
	 while read -r f; do [ -f "$f" ] && echo "$f"; done)
}

# base_patches: our patches to base files, in the order they apply.
base_patches() {
	[ -f "$BASE_PATCHES/series" ] || return 0
	sed 's/#.*//; /^[[:space:]]*$/d' "$BASE_PATCHES/series"
}

# files_patched_by PATCH...: the base files those patches change.
files_patched_by() {
	local p
	for p in "$@"; do
		sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "$BASE_PATCHES/$p"
	done | LC_ALL=C sort -u
}

# patched_files: every base file a patch changes, one per line.
patched_files() {
	# shellcheck disable=SC2046 # one word per patch name
	files_patched_by $(base_patches)
}

# overlay_files: every kernel path the overlay sets, ours or patched.
overlay_files() {
	own_files
	patched_files
}

# patched_tree [N]: a folder holding every base file the patches change,
# with the first N patches applied (default: all), made once under
# $CACHE/patched and keyed by those patches and the base files. A patch
# that no longer applies stops the build, naming the patch and its files.
patched_tree() {
	local n=${1:-1000000} list files dir p
	list=$(base_patches | head -n "$n")
	files=$(patched_files)
	# shellcheck disable=SC2086 # word lists
	dir=$CACHE/patched/$({ echo "$list"
			       (cd "$BASE_PATCHES" && hash_inputs $list)
			       (cd "$BASE_TREE" && hash_inputs $files); } | sha256sum | cut -c1-16)
	if [ ! -f "$dir/.applied" ]; then
		rm -rf "$dir.tmp" && mkdir -p "$dir.tmp"
		# shellcheck disable=SC2086 # a word list
		(cd "$BASE_TREE" && cp --parents $files "$dir.tmp/")
		chmod -R u+w "$dir.tmp"
		for p in $list; do
			# -F0: a base change next to our lines shows as a failure
			patch -d "$dir.tmp" -p1 -s -f -F0 --no-backup-if-mismatch \
				< "$BASE_PATCHES/$p" >&2 ||
				die "patches/$p no longer applies to the base's $(files_patched_by "$p" |
					tr '\n' ' ')- port it: make base-edit"
		done
		touch "$dir.tmp/.applied"
		rm -rf "$dir" && mv "$dir.tmp" "$dir"
	fi
	echo "$dir"
}

# overlay_path PATCHED FILE: where FILE's overlay content is: in PATCHED
# (a patched_tree) for a base file we patch, else our own file.
overlay_path() {
	if [ -f "$1/$2" ]; then
		echo "$1/$2"
	else
		echo "$TOP/$2"
	fi
}

# Build scripts take two verbs: `build` (make the output if it is missing;
# nothing on stdout) and `path` (print where the output is, named by its
# inputs, without building). built SCRIPT...: both, for a caller that
# needs the output now.
built() {
	"$@" build >&2 && "$@" path
}

# take_lock FILE WHAT [-s|-x] [FD]: hold FILE's lock on FD (9) until exit,
# shared (-s) or exclusive (-x, the default). If others hold it, say which
# (each holder writes a line into FILE, a shared one beside the others)
# and wait.
take_lock() {
	local file=$1 mode=${3:--x} fd=${4:-9} holders
	mkdir -p "$(dirname "$file")"
	eval "exec $fd>> \"\$file\""
	if ! flock -n "$mode" "$fd"; then
		holders=$(lock_holders "$file" | paste -sd ';' -)
		msg "waiting for $file, held by: ${holders:-an older harness}"
		flock "$mode" "$fd"
		msg "got $file"
	fi
	if [ "$mode" = -x ]; then
		printf 'pid %s since %s: %s\n' "$$" "$(date +%T)" "$2" > "$file"
	else
		printf 'pid %s since %s: %s\n' "$$" "$(date +%T)" "$2" >> "$file"
	fi
}

# lock_holders FILE: the lines of FILE whose process still runs
lock_holders() {
	local word pid rest
	while read -r word pid rest; do
		if kill -0 "$pid" 2>/dev/null; then echo "$word $pid $rest"; fi
	done < "$1"
}

# suite_rows TIER: the suites of harness/suites.txt that TIER runs (check:
# the gate's; all: every row; ref: the rows only check-all runs), without
# comments and the tier column, one "name|kernel|knobs|plans" a line
# (check.sh's schedule, deb.sh check)
suite_rows() {
	sed 's/#.*//; /^[[:space:]]*$/d; s/[[:space:]]*|[[:space:]]*/|/g; s/[[:space:]]*$//' \
		"$HARNESS/suites.txt" |
		awk -F'|' -v OFS='|' -v tier="$1" '
			$2 != "check" && $2 != "all" { print "suites.txt: bad tier " $2 > "/dev/stderr"; exit 1 }
			tier == "all" || $2 == (tier == "ref" ? "all" : tier) { print $1, $3, $4, $5 }'
}

# sysreg_plugin QEMU: our TCG plugin (harness/bench/sysreg-plugin.c; make
# bench's counts, boot-suite.sh's SPE_OWNER=1 check) for that QEMU binary,
# built with the host's gcc against the build's own qemu-plugin.h (the
# plugin API version must match the binary) into $CACHE/bench-plugin/<hash>/.
# Prints the .so; prints nothing, and says why on stderr, where that QEMU
# has no plugin support.
sysreg_plugin() {
	local qdir hdr="" dir cand src=$HARNESS/bench/sysreg-plugin.c
	qdir=$(dirname "$(readlink -f "$(command -v "$1")")")
	if ! grep -qs '^#define CONFIG_PLUGIN' "$qdir/config-host.h"; then
		echo "$1 is not a QEMU build with plugin support" >&2
		return 0
	fi
	for cand in "$qdir/qemu-bundle/usr/local/include/qemu-plugin.h" \
		    "$qdir/../src/include/qemu/qemu-plugin.h"; do
		[ -f "$cand" ] && { hdr=$cand; break; }
	done
	if [ -z "$hdr" ]; then
		echo "no qemu-plugin.h beside $1" >&2
		return 0
	fi
	dir=$CACHE/bench-plugin/$(hash_inputs "$src" "$hdr")
	if [ ! -f "$dir/libsysreg.so" ]; then
		mkdir -p "$dir"
		# shellcheck disable=SC2046 # pkg-config's words
		gcc -shared -fPIC -O2 -Wall -I"$(dirname "$hdr")" \
			$(pkg-config --cflags glib-2.0) -o "$dir/libsysreg.so.tmp" \
			"$src" > "$dir/build.log" 2>&1 ||
			die "the sysreg plugin failed to build: $dir/build.log"
		mv "$dir/libsysreg.so.tmp" "$dir/libsysreg.so"
	fi
	echo "$dir/libsysreg.so"
}
