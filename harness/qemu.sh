#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot the patched kernel in QEMU. It only boots what is built: a missing
# kernel, initramfs or QEMU stops it with the command that builds it (make
# run, make qemu and make demo build them first).
#
#   harness/qemu.sh shell        interactive shell on the console
#   harness/qemu.sh run 'CMD'    run CMD as root in the guest, stream its
#                                output, exit with CMD's exit status
#
# Machine knobs (environment): SMP (1), QEMU_CPU (max), KVM_MODE (vhe|nvhe),
# ICOUNT (shift=0,sleep=off; empty to disable), MEM (1G), APPEND (extra
# kernel arguments), SHARE (host folder mounted at /share over virtio-9p),
# L2_IMAGE=1 (run only: the Image also at /l2/Image, for plans/l2-guest.plan),
# L2_QEMU=1 (run only: Debian's arm64 QEMU at /l2q, harness/vmm/debian-qemu.sh,
# for plans/l2-qemu.plan), L2_OURQEMU=1 (run only: our QEMU cross-built for
# arm64 at /l2o, harness/vmm/our-qemu-arm64.sh, for plans/l2-qemu.plan's
# guest SPE under -cpu host,spe=on),
# QEMU (binary; default: ours, harness/qemu/build.sh path; a build.sh tree in
# any cache counts as ours and gets LAZY_SYNC), TIMEOUT (seconds, run only; default 900), KUNIT=1 (run
# the built-in KUnit suites at boot), DTB (a device tree to boot instead of
# the one QEMU generates, made for the same SMP, QEMU_CPU and MEM: e.g.
# DTB=$(SMP=2 harness/dt/hetero-dtb.sh), two PMUs over two sets of CPUs),
# ACPI=1 (boot through UEFI firmware, EFI_FW, default Debian's edk2 for the
# virt board, qemu-efi-aarch64, with acpi=force: the kernel takes the CPUs,
# the GIC and the PMU interrupts from QEMU's ACPI tables, not a DT).
# RR_SLICE (our QEMU, with ICOUNT and SMP > 1: -accel tcg,x-rr-slice=N, a
# vCPU's turn cut to N instructions while another vCPU has work, so that
# busy vCPUs interleave finely; harness/qemu/README.md).
# MODEL_LOG (a file: QEMU's -d guest_errors log, where our models report a
# reserved value the guest wrote; boot-suite.sh checks it).
# SPE_OWNER_LOG (a file: our sysreg plugin, owner=on, checks that code at
# EL2 enables the profiling buffer only under its owner's regime and writes
# what it saw there; boot-suite.sh's SPE_OWNER=1).
# KARCH=arm boots the 32-bit Arm kernel (harness/kernel.sh KARCH=arm) on the
# same AArch64 CPU model running AArch32 at EL1 and EL0, with its own
# initramfs (harness/arm32/initramfs.sh); one vCPU, no SHARE, DTB or ACPI.
# LAZY_SYNC (1: our QEMU's x-pmu-lazy-sync, PMU and BRBE control writes take
# effect at the next context synchronization event as hardware may make them,
# and on -cpu max x-spe-lazy-sync (SPE_LAZY_SYNC=0 leaves it off), the same for SPE's
# controls, with the profiling unit's PMBPTR/PMBSR read only after PSB
# CSYNC, DSB and ISB;
# 0: at once, as TCG otherwise does; Debian's QEMU has only the latter).
# With one vCPU and -icount shift=0,sleep=off the guest is deterministic:
# an instruction count of a known loop is exact and repeatable.

. "$(dirname "$0")/lib.sh"

# need WHAT PATH BUILD: PATH must be there, else say what builds it
need() {
	[ -f "$2" ] || die "no $1 at $2: build it with '$3' (make run, make qemu and make demo build what they boot)"
}

# Our QEMU, with the PMU models the tests rely on (harness/qemu/README.md);
# QEMU=qemu-system-aarch64 runs Debian's instead.
if [ -z "${QEMU:-}" ]; then
	QEMU=$("$HARNESS/qemu/build.sh" path)
	need QEMU "$QEMU" 'harness/qemu/build.sh build'
fi
SMP=${SMP:-1}
QEMU_CPU=${QEMU_CPU:-max}
KVM_MODE=${KVM_MODE:-vhe}
ICOUNT=${ICOUNT-shift=0,sleep=off}
MEM=${MEM:-1G}
LAZY_SYNC=${LAZY_SYNC:-1}
# x-spe-lazy-sync with LAZY_SYNC=1 unless SPE_LAZY_SYNC=0
[ "${SPE_LAZY_SYNC:-1}" = 1 ] && SPE_LAZY=1 || SPE_LAZY=
TIMEOUT=${TIMEOUT:-900}
ACPI=${ACPI:-0}
EFI_FW=${EFI_FW:-/usr/share/qemu-efi-aarch64/QEMU_EFI.fd}

KARCH=${KARCH:-arm64}
case "$KARCH" in
arm64) INITRD_SCRIPT=$HARNESS/initramfs.sh KARCH_SET= ;;
arm) INITRD_SCRIPT=$HARNESS/arm32/initramfs.sh KARCH_SET='KARCH=arm ' ;;
*) die "KARCH must be arm64 or arm, not '$KARCH'" ;;
esac
IMAGE=${IMAGE:-$(KARCH=$KARCH "$HARNESS/kernel.sh" path)}
need kernel "$IMAGE" "${KARCH_SET}harness/kernel.sh build"
INITRD=${INITRD:-$("$INITRD_SCRIPT" path)}
need initramfs "$INITRD" "${INITRD_SCRIPT#"$TOP/"} build"

# 32-bit Arm: QEMU's TCG runs AArch32 only at EL1 and EL0 beneath an
# AArch64 EL2 (it refuses aarch64=off without KVM), so harness/arm32/shim.S
# starts at EL2 and enters the zImage in AArch32 SVC mode. Everything is
# placed with -device loader in the virt board's RAM (from 0x40000000;
# QEMU keeps its own DTB in the first MiB): the shim, the zImage (it moves
# its decompressed kernel to the start of RAM), the DTB (QEMU's own for
# the same machine, /chosen filled in) and the initramfs. highmem=off:
# nothing above 4 GiB for a kernel without LPAE.
ARM32_MACHINE=virt,gic-version=3,virtualization=on,highmem=off
ARM32_SHIM=0x40200000
ARM32_ZIMAGE=0x41000000
ARM32_DTB=0x48000000
ARM32_INITRD=0x48200000

kernel_args() {
	local args="console=ttyAMA0 panic=-1 quiet"
	case "$KVM_MODE" in
	vhe) ;;
	nvhe) args+=" kvm-arm.mode=nvhe" ;;
	*) die "KVM_MODE must be vhe or nvhe, not '$KVM_MODE'" ;;
	esac
	[ -n "${SHARE:-}" ] && args+=" harness.share"
	[ "${KUNIT:-0}" = 1 ] && args+=" kunit.enable=1"
	# An arm64 kernel prefers a DT that is more than /chosen; acpi=force
	# makes the boot ACPI or nothing, never a silent fall back to a DT.
	[ "$ACPI" = 1 ] && args+=" acpi=force"
	echo "$args ${APPEND:-}"
}

# The -cpu argument: our QEMU's PMU synchronization mode added
cpu_arg() {
	# Ours is any of build.sh's trees, whichever cache holds it: a QEMU=
	# into another helper's cache once lost lazy sync without a word.
	case "$QEMU" in
	"$CACHE"/qemu/* | */qemu/[0-9]*-*/build/qemu-system-aarch64)
		if [ "$LAZY_SYNC" = 1 ]; then
			# x-spe-lazy-sync exists only where the SPE model does (max)
			case "$QEMU_CPU" in
			max|max,*) echo "$QEMU_CPU,x-pmu-lazy-sync=on${SPE_LAZY:+,x-spe-lazy-sync=on}" ;;
			*) echo "$QEMU_CPU,x-pmu-lazy-sync=on" ;;
			esac
			return
		fi ;;
	esac
	echo "$QEMU_CPU"
}

# arm32_shim: the shim's ELF, built once per source
arm32_shim() {
	local src=$HARNESS/arm32/shim.S out
	out=$CACHE/arm32/shim-$(hash_inputs "$src" "$0").elf
	if [ ! -f "$out" ]; then
		mkdir -p "$(dirname "$out")"
		"${CROSS_COMPILE}gcc" -nostdlib -static -DZIMAGE=$ARM32_ZIMAGE -DDTB=$ARM32_DTB \
			-Wl,-Ttext=$ARM32_SHIM -o "$out.tmp" "$src" && mv "$out.tmp" "$out"
	fi
	echo "$out"
}

# arm32_dtb INITRD DIR: QEMU's DTB for the machine with /chosen as the
# kernel needs it (command line, initramfs), written to DIR/virt.dtb
arm32_dtb() {
	local dtb=$2/virt.dtb end
	"$QEMU" -M "$ARM32_MACHINE,dumpdtb=$dtb" -cpu "$QEMU_CPU" -smp 1 -m "$MEM" \
		-nic none -display none > "$2/dumpdtb.log" 2>&1 ||
		{ cat "$2/dumpdtb.log" >&2; die "QEMU could not dump its DTB"; }
	end=$((ARM32_INITRD + $(stat -c %s "$1")))
	fdtput -t s "$dtb" /chosen bootargs "$(kernel_args)"
	fdtput -t x "$dtb" /chosen linux,initrd-start "${ARM32_INITRD#0x}"
	fdtput -t x "$dtb" /chosen linux,initrd-end "$(printf %x $end)"
}

# arm32_args INITRD DIR: the machine, the loaders
arm32_args() {
	[ "$SMP" = 1 ] || die "KARCH=arm boots one vCPU, not SMP=$SMP"
	[ -z "${SHARE:-}${DTB:-}" ] && [ "$ACPI" = 0 ] ||
		die "KARCH=arm takes no SHARE, DTB or ACPI"
	local shim a
	shim=$(arm32_shim)
	arm32_dtb "$1" "$2"
	a=(-M "$ARM32_MACHINE" -cpu "$(cpu_arg)" -smp 1 -m "$MEM" -nic none -no-reboot
	   -device "loader,file=$shim,cpu-num=0"
	   -device "loader,file=$IMAGE,addr=$ARM32_ZIMAGE,force-raw=on"
	   -device "loader,file=$2/virt.dtb,addr=$ARM32_DTB,force-raw=on"
	   -device "loader,file=$1,addr=$ARM32_INITRD,force-raw=on")
	[ -n "$ICOUNT" ] && a+=(-icount "$ICOUNT")
	[ -n "${MODEL_LOG:-}" ] && a+=(-d guest_errors -D "$MODEL_LOG")
	printf '%s\n' "${a[@]}"
}

# owner_plugin: the sysreg plugin for SPE_OWNER_LOG, which must not go unchecked
owner_plugin() {
	local so
	so=$(sysreg_plugin "$QEMU")
	[ -n "$so" ] || die "SPE_OWNER_LOG needs our sysreg plugin, which $QEMU cannot load"
	echo "$so"
}

# qemu_args INITRD DIR: QEMU's arguments; DIR holds what they refer to
qemu_args() {
	if [ "$KARCH" = arm ]; then
		arm32_args "$@"
		return
	fi
	local a=(-M virt,gic-version=3,virtualization=on -cpu "$(cpu_arg)"
		 -smp "$SMP" -m "$MEM" -kernel "$IMAGE" -initrd "$1"
		 -append "$(kernel_args)" -nic none -no-reboot)
	[ -n "$ICOUNT" ] && a+=(-icount "$ICOUNT")
	[ -n "${RR_SLICE:-}" ] && a+=(-accel "tcg,x-rr-slice=$RR_SLICE")
	[ -n "${MODEL_LOG:-}" ] && a+=(-d guest_errors -D "$MODEL_LOG")
	[ -n "${SPE_OWNER_LOG:-}" ] && a+=(-plugin "$(owner_plugin),owner=on,out=$SPE_OWNER_LOG")
	# The firmware loads -kernel, -initrd and -append from QEMU's fw_cfg
	# and starts the kernel's EFI stub; QEMU hands it the ACPI tables
	# (MADT: one GICC per CPU with its PMU's interrupt) the same way.
	case "$ACPI" in
	0) ;;
	1)
		[ -f "$EFI_FW" ] || die "EFI_FW=$EFI_FW is missing: run 'make deps' (qemu-efi-aarch64)"
		[ -z "${DTB:-}" ] || die "ACPI=1 and DTB= exclude each other"
		a+=(-bios "$EFI_FW")
		;;
	*) die "ACPI must be 0 or 1, not '$ACPI'" ;;
	esac
	if [ -n "${DTB:-}" ]; then
		[ -f "$DTB" ] || die "DTB=$DTB is not a file"
		a+=(-dtb "$DTB")
	fi
	if [ -n "${SHARE:-}" ]; then
		[ -d "$SHARE" ] || die "SHARE=$SHARE is not a folder"
		a+=(-fsdev "local,id=share,path=$(cd "$SHARE" && pwd),security_model=none"
		    -device virtio-9p-device,fsdev=share,mount_tag=share)
	fi
	printf '%s\n' "${a[@]}"
}

# The command rides in a second cpio appended to the initramfs: the kernel
# unpacks both, so the cached base archive is never rebuilt for a new CMD.
# L2_IMAGE=1 adds the booted kernel's Image as /l2/Image, for
# plans/l2-guest.plan to boot as a KVM guest: the base archive is shared by
# every kernel, so it cannot hold one.
initrd_with_command() {
	local dir=$1 cmd=$2 files=(run.sh)
	mkdir -p "$dir/root"
	printf '%s\n' "$cmd" > "$dir/root/run.sh"
	if [ "${L2_IMAGE:-0}" = 1 ]; then
		mkdir -p "$dir/root/l2"
		cp "$IMAGE" "$dir/root/l2/Image"
		files+=(l2 l2/Image)
	fi
	cat "$INITRD" > "$dir/initrd"
	if [ "${L2_QEMU:-0}" = 1 ]; then
		need "Debian's QEMU" "$("$HARNESS/vmm/debian-qemu.sh" path)" \
			"harness/vmm/debian-qemu.sh build"
		cat "$("$HARNESS/vmm/debian-qemu.sh" path)" >> "$dir/initrd"
	fi
	if [ "${L2_OURQEMU:-0}" = 1 ]; then
		need "our arm64 QEMU" "$("$HARNESS/vmm/our-qemu-arm64.sh" path)" \
			"harness/vmm/our-qemu-arm64.sh build"
		cat "$("$HARNESS/vmm/our-qemu-arm64.sh" path)" >> "$dir/initrd"
	fi
	(cd "$dir/root" && printf '%s\n' "${files[@]}" | cpio -o -H newc --quiet) >> "$dir/initrd"
}

shell() {
	local tmp args
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	qemu_args "$INITRD" "$tmp" > "$tmp/args"
	mapfile -t args < "$tmp/args"
	"$QEMU" "${args[@]}" -nographic
}

# The firmware clears the screen with ANSI escapes that would otherwise
# prefix the guest's first line (a TAP result, or harness-exit); the
# console's carriage returns go too. One unbuffered sed: a filter that
# buffers (tr) held back the last few KiB of a guest that then hung, and
# QEMU's own messages landed in the log ahead of lines printed before them.
CONSOLE_FILTER='s/\x1b\[[0-9;=?]*[A-Za-z]//g; s/\r//g'

run() {
	local tmp args rc
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	initrd_with_command "$tmp" "$1"
	qemu_args "$tmp/initrd" "$tmp" > "$tmp/args"
	mapfile -t args < "$tmp/args"
	timeout --foreground "$TIMEOUT" "$QEMU" "${args[@]}" -display none \
		-serial stdio -monitor none < /dev/null |
		sed -u "$CONSOLE_FILTER" | tee "$tmp/log" || true
	rc=$(sed -n 's/^harness-exit: \([0-9]*\)$/\1/p' "$tmp/log" | tail -n 1)
	if [ -z "$rc" ]; then
		msg "the guest stopped without reporting an exit status (crash or ${TIMEOUT}s timeout)"
		exit 125
	fi
	exit "$rc"
}

case "${1:-}" in
shell) shell ;;
run) [ $# = 2 ] || die "usage: $0 run 'CMD'"; run "$2" ;;
*) die "usage: $0 shell | run 'CMD'" ;;
esac
