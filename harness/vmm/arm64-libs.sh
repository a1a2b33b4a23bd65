# SPDX-License-Identifier: GPL-2.0
# Sourced by vmm/debian-qemu.sh and vmm/our-qemu-arm64.sh, which pack an
# arm64 QEMU with the arm64 libraries it loads (those make deps installs)
# into a cpio for the QEMU guest.

ARM64_LIBDIRS=(/lib/aarch64-linux-gnu /usr/lib/aarch64-linux-gnu)

is_arm64() {
	readelf -h "$1" 2>/dev/null | grep -q 'Machine: *AArch64'
}

# needed_libs ELF: the path of every arm64 library ELF loads, transitively
needed_libs() {
	local todo=("$1") seen=" " f lib dir path
	while [ ${#todo[@]} -gt 0 ]; do
		f=${todo[0]}
		todo=("${todo[@]:1}")
		for lib in $(readelf -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
			case $seen in *" $lib "*) continue ;; esac
			seen+="$lib "
			path=
			for dir in "${ARM64_LIBDIRS[@]}"; do
				[ -e "$dir/$lib" ] && { path=$dir/$lib; break; }
			done
			[ -n "$path" ] || die "$lib (needed by $f) is not installed for arm64: run 'make deps'"
			is_arm64 "$(readlink -f "$path")" || die "$path is not arm64"
			echo "$path"
			todo+=("$(readlink -f "$path")")
		done
	done
}

# pack_libs ELF ROOT: the libraries ELF loads into ROOT/lib/aarch64-linux-gnu,
# under the names the loader looks for, with the files' contents
pack_libs() {
	local lib
	for lib in $(needed_libs "$1"); do
		install -D -m 755 "$(readlink -f "$lib")" "$2/lib/aarch64-linux-gnu/$(basename "$lib")"
	done
}
