#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Our kernel as Debian packages built with Debian's own arm64 config (issue 32).
#
#   harness/deb.sh [build]   build linux-image/linux-headers .debs, print their folder
#   harness/deb.sh path      print that folder if its packages exist, else nothing
#   harness/deb.sh config    make the trimmed config only, print its path
#   harness/deb.sh image     print the built Image path (for boots), build nothing
#   harness/deb.sh initramfs the usual initramfs plus the package's modules, print it
#   harness/deb.sh sources   print the hash of the kernel sources here now
#   harness/deb.sh current   print that folder if its packages were built from
#                            those sources (the hash kept beside them), else nothing
#   harness/deb.sh check     boot the packaged kernel (boot-deb), print the TAP
#                            summary; says so and exits 0 where no package exists
#
# make check runs the boot-deb suite of harness/suites.txt where `current`
# names a package, and reports it skipped elsewhere.
#
# The config is Debian's: the linux-config package of BASE's version
# (harness/config/debian-config.source), fetched with `apt-get download`
# through a private sources list under $CACHE/deb/apt, extracted with
# dpkg-deb -x, never installed. harness/config/deb.config then keeps every
# =y, turns off every module it does not name as =m, and names the
# release (-pmu) so the packages install beside Debian's kernel.
#
# The source is a hard-linked snapshot of kernel.sh's overlaid tree, so a
# long package build never sees another build's sync; its build folder is
# kept, so a driver change rebuilds that driver. Every make runs at nice
# 19 with at most DEB_JOBS (2) jobs.

. "$(dirname "$0")/lib.sh"
# shellcheck source=config/debian-config.source
. "$HARNESS/config/debian-config.source"

DDIR=$CACHE/deb
APT=$DDIR/apt
DL=$DDIR/dl
CFGDEB=${DEBCONFIG_PACKAGE}_${DEBCONFIG_VERSION}_${DEBCONFIG_ARCH}.deb
DEBIAN_CONFIG=$DDIR/debian-$DEBCONFIG_VERSION.config
DSRC=$DDIR/src
OBJ=$DDIR/build/$(hash_inputs "$HARNESS/config/deb.config" "$HARNESS/config/debian-config.source")
JOBS=${DEB_JOBS:-2}

# fetch_config: Debian's config file for the recorded version, checked
fetch_config() {
	local key=/usr/share/keyrings/debian-archive-keyring.gpg x
	[ -f "$DEBIAN_CONFIG" ] && return 0
	mkdir -p "$APT/lists/partial" "$APT/cache/archives/partial" "$DL"
	if [ ! -f "$DL/$CFGDEB" ]; then
		echo "deb [arch=$DEBCONFIG_ARCH signed-by=$key] $(debian_uri "$DEBCONFIG_SUITE") $DEBCONFIG_SUITE main" \
			> "$APT/sources.list"
		msg "apt-get update (private list $APT/sources.list)"
		papt apt-get -o APT::Architectures::="$DEBCONFIG_ARCH" -q update >&2 || die "apt-get update of the private list failed"
		(cd "$DL" && papt apt-get -o APT::Architectures::="$DEBCONFIG_ARCH" -q download \
			"$DEBCONFIG_PACKAGE:$DEBCONFIG_ARCH=$DEBCONFIG_VERSION") >&2 ||
			die "$DEBCONFIG_SUITE no longer offers $DEBCONFIG_PACKAGE $DEBCONFIG_VERSION:
  update harness/config/debian-config.source with BASE"
	fi
	echo "$DEBCONFIG_SHA256  $DL/$CFGDEB" | sha256sum --quiet -c - ||
		die "$DL/$CFGDEB does not match debian-config.source's SHA256"
	x=$(mktemp -d)
	dpkg-deb -x "$DL/$CFGDEB" "$x"
	xz -dc "$x/$DEBCONFIG_FILE" > "$DEBIAN_CONFIG.tmp"
	rm -rf "$x"
	mv "$DEBIAN_CONFIG.tmp" "$DEBIAN_CONFIG"
}

# snapshot: $DSRC becomes a hard-linked copy of the overlaid source tree.
# kernel.sh replaces a file (cp --remove-destination), never writes into
# it, so the links keep this snapshot's content and timestamps.
snapshot() {
	local src
	src=$("$HARNESS/kernel.sh" src)
	exec 8> "$src.lock"
	flock 8
	rm -rf "$DSRC.new"
	cp -al "$src" "$DSRC.new"
	exec 8>&-
	rm -rf "$DSRC" && mv "$DSRC.new" "$DSRC"
}

# ccache through its masquerade folder: bindeb-pkg's debian/rules passes
# CROSS_COMPILE on word by word, so "ccache aarch64-linux-gnu-" there
# would build the packages without it
dmake() {
	PATH=/usr/lib/ccache:$PATH nice -n 19 make -s -C "$DSRC" O="$OBJ" ARCH=arm64 \
		CROSS_COMPILE="$CROSS_COMPILE" -j"$JOBS" "$@"
}

# sources_hash: what the package's kernel is built from: our kernel
# files, the patches, BASE and the config's inputs
sources_hash() {
	# shellcheck disable=SC2046 # one word per file
	(cd "$TOP" && hash_inputs $(own_files | grep -E '^(arch|drivers|include|kernel)/') \
		"$BASE_PATCHES" BASE "$HARNESS/config/deb.config" \
		"$HARNESS/config/debian-config.source")
}

# kept_modules: the symbols deb.config keeps as modules
kept_modules() {
	sed -n 's/^\(CONFIG_[A-Za-z0-9_]*\)=m$/\1/p' "$HARNESS/config/deb.config"
}

# configure: Debian's config, modules trimmed, deb.config applied; every
# line of deb.config must land, and the trim is written to trim.txt.
configure() {
	local sym line keep
	mkdir -p "$OBJ"
	keep=$(kept_modules)
	while read -r line; do
		sym=${line%%=m}
		if [ "$sym" != "$line" ] && ! grep -qxF "$sym" <<< "$keep"; then
			echo "# $sym is not set"
		else
			echo "$line"
		fi
	done < "$DEBIAN_CONFIG" > "$OBJ/.config"
	grep -E '^(# )?CONFIG_' "$HARNESS/config/deb.config" | while read -r line; do
		sym=${line#\# }; sym=${sym%%[= ]*}
		sed -i "/^$sym=/d; /^# $sym is not set/d" "$OBJ/.config"
		echo "$line" >> "$OBJ/.config"
	done
	dmake olddefconfig
	grep -E '^(# )?CONFIG_' "$HARNESS/config/deb.config" | while read -r line; do
		case "$line" in
		'# '*) sym=${line#\# }; sym=${sym%% *}
		       ! grep -q "^$sym=" "$OBJ/.config" || die "$sym is set, deb.config says not" ;;
		*) grep -qxF "$line" "$OBJ/.config" || die "$line of deb.config did not land" ;;
		esac
	done
	trim_report > "$OBJ/trim.txt"
}

# trim_report: what the trimmed config changed from Debian's
trim_report() {
	local a=$DEBIAN_CONFIG b=$OBJ/.config
	printf 'debian: %s =y, %s =m\n' "$(grep -c '=y$' "$a")" "$(grep -c '=m$' "$a")"
	printf 'ours:   %s =y, %s =m\n' "$(grep -c '=y$' "$b")" "$(grep -c '=m$' "$b")"
	echo "=y of Debian's no longer =y (selected only by a trimmed module, or by deb.config):"
	comm -23 <(grep '=y$' "$a" | sort) <(grep '=y$' "$b" | sort) | sed 's/^/  /'
	echo "=m kept:"
	grep '=m$' "$b" | sed 's/^/  /'
}

# bindeb-pkg's debian/rules runs debhelper's dh_* tools
need_debhelper() {
	command -v dh_listpackages >/dev/null && return 0
	msg "installing debhelper for bindeb-pkg"
	apt-get install -y --no-install-recommends debhelper >&2 ||
		die "apt-get install debhelper failed"
}

build() {
	local t0 out sources
	need_debhelper
	fetch_config
	sources=$(sources_hash)
	snapshot
	configure
	out=$DDIR/pkg/$(cat "$OBJ/include/config/kernel.release" 2>/dev/null || echo new)
	t0=$(date +%s)
	msg "building bindeb-pkg in $OBJ (nice 19, -j$JOBS)"
	rm -f "$DDIR"/build/*.deb "$DDIR"/build/*.buildinfo "$DDIR"/build/*.changes
	dmake bindeb-pkg DPKG_FLAGS=-d KDEB_PKGVERSION="$BASE_KERNELVERSION-pmu1" >&2
	out=$DDIR/pkg/$(cat "$OBJ/include/config/kernel.release")
	rm -rf "$out" && mkdir -p "$out"
	mv "$DDIR"/build/*.deb "$out/"
	cp "$OBJ/trim.txt" "$OBJ/.config" "$out/"
	echo "$sources" > "$out/sources"
	cp "$OBJ/arch/arm64/boot/Image" "$out/Image"
	echo "$(( $(date +%s) - t0 ))" > "$out/build-seconds"
	ln -sfn "$out" "$DDIR/latest"
	msg "packages in $out ($(cat "$out/build-seconds")s)"
	echo "$out"
}

# initramfs: harness/initramfs.sh's archive with a second one appended
# (the kernel unpacks concatenated cpio archives): /lib/modules/RELEASE of
# the linux-image package, its modules decompressed, since busybox's
# modprobe hands the file to init_module() as it is.
deb_initramfs() {
	local pkg base out x rel
	pkg=$(readlink -f "$DDIR/latest")
	"$HARNESS/initramfs.sh" build >&2
	base=$("$HARNESS/initramfs.sh" path)
	out=$pkg/initramfs-$(hash_inputs "$base" | cut -c1-8).cpio
	if [ ! -f "$out" ]; then
		rm -f "$pkg"/initramfs-*.cpio	# an older test initramfs's
		x=$(mktemp -d)
		dpkg-deb -x "$pkg"/linux-image-[0-9]*.deb "$x"
		rel=$(ls "$x/lib/modules")
		find "$x/lib/modules" -name '*.ko.xz' -exec xz -d {} +
		sed -i 's/\.ko\.xz/.ko/g' "$x/lib/modules/$rel"/modules.*
		(cat "$base"
		 cd "$x" && find lib | LC_ALL=C sort | cpio -o -H newc --quiet) > "$out.tmp"
		rm -rf "$x"
		mv "$out.tmp" "$out"
	fi
	echo "$out"
}

# check: the boot-deb suite of harness/suites.txt, as make check runs it
deb_check() {
	local log=$TOP/build/check/boot-deb.log kernel knobs plans
	IFS='|' read -r _ kernel knobs plans < <(suite_rows all | grep '^boot-deb|')
	mkdir -p "$(dirname "$log")"
	# shellcheck disable=SC2086 # PLANS is a list of names
	PMU_QEMU_STOCK=0 "$HARNESS/boot-suite.sh" "$log" "$kernel" "$knobs" $plans || true
	awk -f "$HARNESS/tap-count.awk" "$log"
}

case "${1:-build}" in
build) build ;;
path) [ -f "$DDIR/latest/Image" ] && readlink -f "$DDIR/latest"; true ;;
image) [ -f "$DDIR/latest/Image" ] && echo "$DDIR/latest/Image"; true ;;
sources) sources_hash ;;
current) [ "$(cat "$DDIR/latest/sources" 2>/dev/null)" = "$(sources_hash)" ] &&
	readlink -f "$DDIR/latest"; true ;;
config) fetch_config; snapshot; configure; echo "$OBJ/.config" ;;
initramfs) deb_initramfs ;;
check) deb_check ;;
*) die "usage: $0 [build|path|sources|current|config|image|initramfs|check]" ;;
esac
