#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Register-level checks of our QEMU's PMU models, no kernel involved:
# guest/pmu-bare.c runs at EL2 on the virt board, programs the PMU itself
# and prints TAP on the serial port. Runs it on a CPU without PMUv3p5
# (cortex-a57) and one with it (max); prints one TAP stream.
#
#   harness/qemu/test-bare.sh      with QEMU=<binary>, or build.sh's

. "$(dirname "$0")/../lib.sh"

QDIR=$HARNESS/qemu
QEMU=${QEMU:-$("$QDIR/build.sh" | tail -n 1)}
# The last: max with PMU control writes delayed to the next context
# synchronization event (x-pmu-lazy-sync), which pmu-bare learns from a
# flag word QEMU's loader device writes into its memory.
CPUS=${CPUS:-cortex-a57 max max,x-pmu-lazy-sync=on}

ELF=$CACHE/qemu-bare/$(hash_inputs "$QDIR/guest/pmu-bare.c" \
	"$QDIR/guest/pmu-bare-start.S" "$0")/pmu-bare.elf
if [ ! -f "$ELF" ]; then
	mkdir -p "$(dirname "$ELF")"
	"${CROSS_COMPILE}gcc" -O2 -Wall -Werror -ffreestanding -fno-pie -no-pie \
		-mgeneral-regs-only -nostdlib -static \
		-Wl,-Ttext=0x40080000 -Wl,-e,_start -o "$ELF.tmp" \
		"$QDIR/guest/pmu-bare-start.S" "$QDIR/guest/pmu-bare.c" >&2
	mv "$ELF.tmp" "$ELF"
fi

echo "TAP version 13"
n=0
for cpu in $CPUS; do
	flag=()
	case ",$cpu," in
	*,x-pmu-lazy-sync=on,*) flag=(-device loader,addr=0x47fff000,data=1,data-len=4) ;;
	esac
	out=$(timeout 120 "$QEMU" -M virt,gic-version=3,virtualization=on \
		-cpu "$cpu" "${flag[@]}" -m 128M -nic none -display none -serial stdio \
		-monitor none -no-reboot -icount shift=0,sleep=off \
		-kernel "$ELF" < /dev/null 2>&1 | tr -d '\r') || true
	# Renumber "ok N name" as "ok M <cpu>_name"; keep comments.
	while IFS= read -r line; do
		case "$line" in
		'ok '*|'not ok '*)
			n=$((n + 1))
			res=${line%% [0-9]*}
			rest=${line#"$res "}
			echo "$res $n ${cpu//[^a-z0-9]/_}_${rest#* }" ;;
		'#'*) echo "$line" ;;
		esac
	done <<< "$out"
	if ! grep -q '^1\.\.' <<< "$out"; then
		n=$((n + 1))
		echo "not ok $n ${cpu//[^a-z0-9]/_}_pmu_bare_finished"
		sed 's/^/# /' <<< "$out" | tail -n 5
	fi
done
echo "1..$n"
