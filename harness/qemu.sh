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
# LAZY_SYNC (1: our QEMU's x-pmu-lazy-sync, PMU control writes take effect
# at the next context synchronization event as hardware may make them;
# 0: at once, as TCG otherwise does; Debian's QEMU has only the latter).
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
LAZY_SYNC=${LAZY_SYNC:-1}
TIMEOUT=${TIMEOUT:-900}

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
	echo "$args ${APPEND:-}"
}

# The -cpu argument: our QEMU's PMU synchronization mode added
cpu_arg() {
	case "$QEMU" in
	"$CACHE"/qemu/*) [ "$LAZY_SYNC" = 1 ] && { echo "$QEMU_CPU,x-pmu-lazy-sync=on"; return; } ;;
	esac
	echo "$QEMU_CPU"
}

qemu_args() {
	local a=(-M virt,gic-version=3,virtualization=on -cpu "$(cpu_arg)"
		 -smp "$SMP" -m "$MEM" -kernel "$IMAGE" -initrd "$1"
		 -append "$(kernel_args)" -nic none -no-reboot)
	[ -n "$ICOUNT" ] && a+=(-icount "$ICOUNT")
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
