#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install what the harness needs, from Debian's archive only.
#
#   harness/deps.sh              apt-get update, then install the list
#   harness/deps.sh --if-missing do nothing when everything is installed

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

# The libraries Debian's arm64 qemu-system-arm loads (its Depends), for
# harness/vmm/debian-qemu.sh to pack with it: the package itself is only
# downloaded, since installing it would replace the host's QEMU.
QEMU_ARM64_LIBS=(
	libaio1 libbpf1 libcapstone4 libfdt1 libfuse3-3 libglib2.0-0 libgmp10
	libgnutls30 libhogweed6 libibverbs1 libjpeg62-turbo libnettle8 libnuma1
	libpixman-1-0 libpmem1 libpng16-16 librdmacm1 libsasl2-2 libseccomp2
	libslirp0 libudev1 liburing2 libvdeplug2 libzstd1 zlib1g
)

# Host tools, the base kernel source (BASE's version exactly: a newer one
# would move the base under the series; when the archive no longer has it,
# installing fails and the series must be rebased), and arm64 libraries for the static perf
# and the guest's GNU grep (harness/initramfs.sh), Debian's QEMU's above;
# edk2 for the virt board (ACPI boots), the 32-bit Arm cross compiler.
PACKAGES=(
	make gcc gcc-aarch64-linux-gnu libc6-dev-arm64-cross
	bc flex bison libssl-dev libelf-dev sparse ccache cpio xz-utils rsync
	perl python3 python3-ply python3-git git kmod pkg-config
	qemu-system-arm
	"$BASE_DEB_PACKAGE=$BASE_DEB_VERSION"
	busybox-static:arm64 bash-static:arm64 libpcre2-8-0:arm64
	libc6-dev:arm64 libelf-dev:arm64 libtraceevent-dev:arm64 zlib1g-dev:arm64
	ninja-build python3-venv patch libglib2.0-dev libfdt-dev libpixman-1-dev
	zlib1g-dev
	libglib2.0-dev:arm64
	device-tree-compiler quilt
	qemu-efi-aarch64
	gcc-arm-linux-gnueabihf libc6-dev-armhf-cross
	"${QEMU_ARM64_LIBS[@]/%/:arm64}"
)
# Our QEMU (harness/qemu) needs meson >= 1.5 and pycotap: bookworm-backports.
BACKPORTS=(meson python3-pycotap)
BACKPORTS_LIST=/etc/apt/sources.list.d/bookworm-backports.list

missing() {
	local p want
	for p in "${PACKAGES[@]}" "${BACKPORTS[@]}"; do
		# NAME=VERSION must be installed at that version
		want='^install ok installed'
		[ "${p#*=}" = "$p" ] || want="$want ${p#*=}\$"
		dpkg-query -W -f '${Status} ${Version}\n' "${p%%=*}" 2>/dev/null |
			grep -q "$want" || echo "$p"
	done
}

if [ "${1:-}" = --if-missing ] && [ -z "$(missing)" ]; then
	exit 0
fi

[ "$(id -u)" = 0 ] || { echo "deps: run as root (apt-get install)" >&2; exit 1; }
dpkg --print-foreign-architectures | grep -qx arm64 || dpkg --add-architecture arm64
if ! grep -rqs 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/; then
	echo "[deps] enabling bookworm-backports in $BACKPORTS_LIST" >&2
	echo "deb $(debian_uri) bookworm-backports main" > "$BACKPORTS_LIST"
fi
echo "[deps] apt-get update" >&2
# A mirror caught mid-sync serves an index of the wrong size for a while:
# try again rather than fail the whole run on it.
for try in 1 2 3 4; do
	apt-get update -q >&2 && break
	[ "$try" = 4 ] && exit 1
	echo "[deps] apt-get update failed (try $try); again in $((try * 30))s" >&2
	sleep $((try * 30))
done
echo "[deps] installing: ${PACKAGES[*]}" >&2
DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
	--allow-downgrades "${PACKAGES[@]}" >&2
DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
	-t bookworm-backports "${BACKPORTS[@]}" >&2
