#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot the patched kernel in QEMU.
#
#   harness/qemu.sh shell        interactive shell on the console
#   harness/qemu.sh run 'CMD'    run CMD as root in the guest, stream its
#                                output, exit with CMD's exit status
#
# Machine knobs (environment): SMP (1), QEMU_CPU (max), KVM_MODE (vhe|nvhe),
# ICOUNT (shift=0,sleep=off; empty to disable), MEM (1G), APPEND (extra
# kernel arguments), SHARE (host folder mounted at /share over virtio-9p),
# QEMU (binary; default: ours, built by harness/qemu/build.sh), TIMEOUT (seconds, run only; default 900), KUNIT=1 (run
# the built-in KUnit suites at boot), DTB (a device tree to boot instead of
# the one QEMU generates, made for the same SMP, QEMU_CPU and MEM: e.g.
# DTB=$(SMP=2 harness/dt/hetero-dtb.sh), two PMUs over two sets of CPUs),
# ACPI=1 (boot through UEFI firmware, EFI_FW, default Debian's edk2 for the
# virt board, qemu-efi-aarch64, with acpi=force: the kernel takes the CPUs,
# the GIC and the PMU interrupts from QEMU's ACPI tables, not a DT).
# With one vCPU and -icount shift=0,sleep=off the guest is deterministic:
# an instruction count of a known loop is exact and repeatable.

. "$(dirname "$0")/lib.sh"

# Our QEMU, with the PMU models the tests rely on (harness/qemu/README.md);
# QEMU=qemu-system-aarch64 runs Debian's instead.
QEMU=${QEMU:-$("$HARNESS/qemu/build.sh" | tail -n 1)}
SMP=${SMP:-1}
QEMU_CPU=${QEMU_CPU:-max}
KVM_MODE=${KVM_MODE:-vhe}
ICOUNT=${ICOUNT-shift=0,sleep=off}
MEM=${MEM:-1G}
TIMEOUT=${TIMEOUT:-900}
ACPI=${ACPI:-0}
EFI_FW=${EFI_FW:-/usr/share/qemu-efi-aarch64/QEMU_EFI.fd}

IMAGE=${IMAGE:-$("$HARNESS/kernel.sh" image | tail -n 1)}
INITRD=${INITRD:-$("$HARNESS/initramfs.sh" | tail -n 1)}

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

qemu_args() {
	local a=(-M virt,gic-version=3,virtualization=on -cpu "$QEMU_CPU"
		 -smp "$SMP" -m "$MEM" -kernel "$IMAGE" -initrd "$1"
		 -append "$(kernel_args)" -nic none -no-reboot)
	[ -n "$ICOUNT" ] && a+=(-icount "$ICOUNT")
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
initrd_with_command() {
	local dir=$1 cmd=$2
	mkdir -p "$dir/root"
	printf '%s\n' "$cmd" > "$dir/root/run.sh"
	cat "$INITRD" > "$dir/initrd"
	(cd "$dir/root" && echo run.sh | cpio -o -H newc --quiet) >> "$dir/initrd"
}

shell() {
	local args
	mapfile -t args < <(qemu_args "$INITRD")
	exec "$QEMU" "${args[@]}" -nographic
}

run() {
	local tmp args rc
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	initrd_with_command "$tmp" "$1"
	mapfile -t args < <(qemu_args "$tmp/initrd")
	timeout --foreground "$TIMEOUT" "$QEMU" "${args[@]}" -display none \
		-serial stdio -monitor none < /dev/null | tr -d '\r' | tee "$tmp/log" || true
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
