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
# adds harness/config/debug.config (KASAN, lockdep, lockup detectors...),
# again in a build folder of its own. KARCH=arm builds a 32-bit Arm zImage
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
case "${FLAVOUR:-plain}" in
plain) ;;
debug) FRAGMENTS+=("$HARNESS/config/debug.config") ;;
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
	OBJ=$CACHE/kbuild/$(hash_inputs "${FRAGMENTS[@]}" "$TOP/BASE")$SUFFIX$ARCH_SUFFIX
fi
MANIFEST=$SRC/.overlay-manifest

kmake() {
	make -s -C "$SRC" O="$OBJ" CROSS_COMPILE="ccache $CROSS_COMPILE" -j"$(nproc)" "$@"
}

# Bring $SRC to base + overlay: restore files we stopped carrying, copy
# changed overlay files (and only those, so make sees what changed).
sync_source() {
	local f from patched
	if [ ! -f "$SRC/.complete" ]; then
		msg "copying the base tree to $SRC"
		rm -rf "$SRC" && mkdir -p "$(dirname "$SRC")"
		cp -a "$BASE_TREE" "$SRC" && chmod -R u+w "$SRC"
		: > "$MANIFEST" && touch "$SRC/.complete"
	fi
	overlay > "$MANIFEST.new"
	while read -r f; do
		grep -qxF "$f" "$MANIFEST.new" && continue
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
		mkdir -p "$(dirname "$SRC/$f")"
		cp --remove-destination "$from" "$SRC/$f"
	done < "$MANIFEST.new"
	mv "$MANIFEST.new" "$MANIFEST"
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
	sync_source
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
# One build at a time per source tree (ours, base and mainline have one
# each; FLAVOUR and KARCH share ours): two makes in one folder corrupt it.
take_lock "$SRC.lock" "VARIANT=$VARIANT FLAVOUR=${FLAVOUR:-plain} KARCH=$KARCH \
kernel.sh $VERB${OVERLAY_LIST:+ (series check of $OVERLAY_DIR)} in $OBJ"

case "$VERB" in
build) build_image ;;
image) build_image; echo "$IMAGE_PATH" ;;
src) sync_source; echo "$SRC" ;;
make) shift; sync_source; configure; kmake "$@" ;;
esac
