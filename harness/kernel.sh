#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Our patches to base files (patches/) and our own files over a copy of the
# pristine base: build an arm64 Image.
#
#   harness/kernel.sh [build]    build the Image (nothing on stdout)
#   harness/kernel.sh path       print the Image's path, build nothing
#   harness/kernel.sh image      both: build, then print the path
#   harness/kernel.sh src        sync the overlaid source tree, print its path
#   harness/kernel.sh builddir   print the build folder
#   harness/kernel.sh make ARGS  run make in the build folder (e.g. W=1 C=1 drivers/perf/)
#
# The source copy keeps the timestamps of untouched files, so a rebuild after
# editing one driver file recompiles that file and relinks, nothing more.
# VARIANT=base builds the pristine base with the same config (for
# comparisons such as make bench), in folders of its own. VARIANT=mainline
# builds Debian's mainline source (harness/mainline.sh, MAINLINE), pristine,
# with the same config, also in folders of its own: a reference only, never
# a source of our code. FLAVOUR=debug
# adds harness/config/debug.config (KASAN, lockdep, lockup detectors...)
# and the make variables of harness/config/debug.kbuild, again in a build
# folder of its own. KARCH=arm builds a 32-bit Arm zImage
# instead (harness/config/arm32-pmu.config; Debian's
# gcc-arm-linux-gnueabihf): the same driver serves ARMv8 CPUs in AArch32
# through arch/arm's asm/arm_pmuv3.h. Its build folder is its own too; the
# source tree is shared.

. "$(dirname "$0")/lib.sh"

KARCH=${KARCH:-arm64}
case "$KARCH" in
arm64) FRAGMENTS=("$HARNESS/config/arm64-pmu.config") TARGET=Image ARCH_SUFFIX= ;;
arm)
	FRAGMENTS=("$HARNESS/config/arm32-pmu.config") TARGET=zImage ARCH_SUFFIX=-arm
	export ARCH=arm
	CROSS_COMPILE=arm-linux-gnueabihf-
	;;
*) die "KARCH must be arm64 or arm, not '$KARCH'" ;;
esac
# KBUILD_VARS: make variables of the flavour, one a line in VARS_FILE
VARS_FILE= KBUILD_VARS=()
case "${FLAVOUR:-plain}" in
plain) ;;
debug)
	FRAGMENTS+=("$HARNESS/config/debug.config")
	VARS_FILE=$HARNESS/config/debug.kbuild
	mapfile -t KBUILD_VARS < <(grep -v -e '^#' -e '^$' "$VARS_FILE")
	;;
*) die "FLAVOUR must be plain or debug" ;;
esac
VARIANT=${VARIANT:-ours}
case "$VARIANT" in
ours) overlay() { overlay_files; } ;;
base) overlay() { :; } ;;
mainline) overlay() { :; } ;;
*) die "VARIANT must be ours, base or mainline" ;;
esac
# The config fragments name 6.12's symbols. Mainline 7.3 renamed one:
# PROC_SYSCTL is SYSCTL there (fs/proc/Kconfig). It lacks our KUnit
# suites (ARM_PMUV3_KUNIT_TEST, ARM_SPE_PMU_KUNIT_TEST,
# ARM64_BRBE_KUNIT_TEST), which check_config skips as it does for the
# base; ARM64_BRBE, our overlay's, is mainline's BRBE driver under the same
# name (drivers/perf/Kconfig), so it must land.
KCONFIG_RENAMES=()
# The tree under the overlay: its path now, unpacked only to build.
TREE_SCRIPT=$HARNESS/base.sh
if [ "$VARIANT" = mainline ]; then
	TREE_SCRIPT=$HARNESS/mainline.sh
	# shellcheck source=../MAINLINE
	. "$TOP/MAINLINE"
	KCONFIG_RENAMES=(-e 's/^CONFIG_PROC_SYSCTL=/CONFIG_SYSCTL=/')
fi
BASE_TREE=$("$TREE_SCRIPT" path)
fragments() { cat "${FRAGMENTS[@]}" | sed -e "" "${KCONFIG_RENAMES[@]}"; }
# The series check builds each step of the series in these same folders,
# so it costs incremental builds, not a second kernel: OVERLAY_DIR is then
# its checkout and OVERLAY_LIST the files the series changed so far.
OVERLAY_DIR=${OVERLAY_DIR:-$TOP}
if [ -n "${OVERLAY_LIST:-}" ]; then
	overlay() { cat "$OVERLAY_LIST"; }
fi
SUFFIX=${VARIANT#ours}
SUFFIX=${SUFFIX:+-$SUFFIX}
if [ "$VARIANT" = mainline ]; then
	SRC=$CACHE/ksrc/$MAINLINE_DEB_VERSION$SUFFIX
	OBJ=$CACHE/kbuild/$(hash_inputs "${FRAGMENTS[@]}" "$TOP/MAINLINE")$SUFFIX$ARCH_SUFFIX
else
	SRC=$CACHE/ksrc/$BASE_DEB_VERSION$SUFFIX
	OBJ=$CACHE/kbuild/$(hash_inputs "${FRAGMENTS[@]}" ${VARS_FILE:+"$VARS_FILE"} "$TOP/BASE")$SUFFIX$ARCH_SUFFIX
fi
MANIFEST=$SRC/.overlay-manifest

kmake() {
	make -s -C "$SRC" O="$OBJ" CROSS_COMPILE="ccache $CROSS_COMPILE" -j"$(nproc)" \
		"${KBUILD_VARS[@]}" "$@"
}

# Bring $SRC to base + overlay: restore files we stopped carrying, copy
# changed overlay files (and only those, so make sees what changed).
# sync_source check changes nothing and fails if anything would change.
sync_source() {
	local check=${1:-} f from patched new
	if [ ! -f "$SRC/.complete" ]; then
		[ -z "$check" ] || return 1
		msg "copying the base tree to $SRC"
		rm -rf "$SRC" && mkdir -p "$(dirname "$SRC")"
		cp -a "$BASE_TREE" "$SRC" && chmod -R u+w "$SRC"
		: > "$MANIFEST" && touch "$SRC/.complete"
	fi
	new=$(mktemp "$MANIFEST.XXXXXX")
	overlay > "$new"
	while read -r f; do
		grep -qxF "$f" "$new" && continue
		[ -z "$check" ] || { rm -f "$new"; return 1; }
		if [ -e "$BASE_TREE/$f" ]; then
			cp --remove-destination "$BASE_TREE/$f" "$SRC/$f"
		else
			rm -f "$SRC/$f"
		fi
	done < "$MANIFEST"
	[ -n "${OVERLAY_LIST:-}" ] || [ "$VARIANT" != ours ] || patched=$(patched_tree)
	while read -r f; do
		from=$OVERLAY_DIR/$f
		[ -n "${OVERLAY_LIST:-}" ] || from=$(overlay_path "$patched" "$f")
		cmp -s "$from" "$SRC/$f" && continue
		[ -z "$check" ] || { rm -f "$new"; return 1; }
		mkdir -p "$(dirname "$SRC/$f")"
		cp --remove-destination "$from" "$SRC/$f"
	done < "$new"
	if [ -n "$check" ]; then rm -f "$new"; else mv "$new" "$MANIFEST"; fi
}

# lock_tree WHAT: builds of one source tree (each FLAVOUR and KARCH in its
# own build folder) share it while it is in sync; a build that must sync
# it waits for the others to finish, saying so.
lock_tree() {
	take_lock "$SRC.lock" "$1" -s
	sync_source check && return 0
	take_lock "$SRC.lock" "$1, syncing the tree" -x
	sync_source
	flock -s 9
	printf 'pid %s since %s: %s\n' "$$" "$(date +%T)" "$1" > "$SRC.lock"
}

# Every option the fragment names must have landed as written; a typo or
# an unmet dependency would otherwise silently drop it.
check_config() {
	local line sym val bad=0
	while read -r line; do
		case "$line" in ''|'#'*) continue ;; esac
		sym=${line%%=*} val=${line#*=}
		if [ "$val" = n ]; then
			grep -q "^$sym=" "$OBJ/.config" && { msg "$sym is set, fragment says n"; bad=1; }
		elif ! grep -qx "$line" "$OBJ/.config"; then
			# The pristine base and mainline lack the symbols our
			# overlay adds
			if [ "$VARIANT" != ours ] && ! grep -rqE "^(menu)?config ${sym#CONFIG_}\$" \
				--include='Kconfig*' "$SRC"; then
				continue
			fi
			msg "$line did not land in .config"
			bad=1
		fi
	done < <(fragments)
	[ $bad = 0 ] || die "config fragments ${FRAGMENTS[*]} do not apply cleanly"
}

# Every build: an overlay Kconfig may have changed, and when nothing did,
# the regenerated .config touches no object. KCONFIG_LENIENT=1 (the series
# check) leaves the check of the result to the caller.
configure() {
	mkdir -p "$OBJ"
	fragments > "$OBJ/fragment.config"
	kmake allnoconfig KCONFIG_ALLCONFIG="$OBJ/fragment.config" >&2
	[ "${KCONFIG_LENIENT:-0}" = 1 ] || check_config
}

build_image() {
	configure
	msg "building $TARGET in $OBJ"
	kmake "$TARGET" >&2
}

IMAGE_PATH=$OBJ/arch/$ARCH/boot/$TARGET
VERB=${1:-build}
case "$VERB" in
path) echo "$IMAGE_PATH"; exit 0 ;;
builddir) echo "$OBJ"; exit 0 ;;
build|image|src|make) ;;
*) die "usage: $0 build|path|image|src|builddir|make ARGS" ;;
esac

"$TREE_SCRIPT" build >&2
# One build at a time per build folder (two makes in one corrupt it), and
# the source tree (ours, base and mainline have one each; FLAVOUR and
# KARCH share ours) unchanged under every build that reads it.
WHAT="VARIANT=$VARIANT FLAVOUR=${FLAVOUR:-plain} KARCH=$KARCH \
kernel.sh $VERB${OVERLAY_LIST:+ (series check of $OVERLAY_DIR)} in $OBJ"
[ "$VERB" = src ] || take_lock "$OBJ.lock" "$WHAT" -x 8
lock_tree "$WHAT"

case "$VERB" in
build) build_image ;;
image) build_image; echo "$IMAGE_PATH" ;;
src) echo "$SRC" ;;
make) shift; configure; kmake "$@" ;;
esac
