#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Register-level checks of our QEMU's models, no kernel involved: each
# program guest/<prog>.c (with guest/<prog>-start.S) runs at EL2 on the
# virt board, programs the model itself and prints TAP on the serial port.
# pmu-bare (the PMU) runs on a CPU without PMUv3p5 (cortex-a57), one
# with it (max) and max with x-pmu-lazy-sync; brbe-bare (FEAT_BRBE) on CPUs without BRBE and on max
# with 32 and 64 records and with x-pmu-lazy-sync, told what to expect
# through a word of memory;
# spe-bare (FEAT_SPE) on max and on CPUs without SPE, and on max with
# each mode property (x-spe-lazy-sync, x-spe-cut-records, x-spe-fds,
# x-spe-unimpl-events, x-spe-el3-owned, x-spe-coherence with two vCPUs), and
# with x-spe-lazy-sync once more with every instruction its own TB.
# Prints one TAP stream.
#
#   harness/qemu/test-bare.sh      with QEMU=<binary>, or build.sh's

. "$(dirname "$0")/../lib.sh"

QDIR=$HARNESS/qemu
QEMU=${QEMU:-$(built "$QDIR/build.sh")}
# The last: max with PMU control writes delayed to the next context
# synchronization event (x-pmu-lazy-sync), which pmu-bare learns from a
# flag word QEMU's loader device writes into its memory.
CPUS=${CPUS:-cortex-a57 max max,x-pmu-lazy-sync=on}

# brbe-bare's CPUs, each as CPU=EXPECT: the BRBIDR0_EL1.NUMREC the
# program must find, 0 for no FEAT_BRBE, plus 0x100 (288 = 32 records)
# when BRBE control writes wait for a context synchronization event.
BRBE_CPUS=${BRBE_CPUS:-cortex-a57=0 max,x-brbe=off=0 max=32 max,x-brbe-numrec=64=64 max,x-pmu-lazy-sync=on=288}
# Where brbe-bare reads EXPECT (brbe-bare.c: EXPECT)
BRBE_EXPECT_ADDR=0x47ffe000
# spe-bare's CPUs: max checks the model, the others that it is absent
# (and the two modes that make it stricter, each checked on its own)
SPE_CPUS=${SPE_CPUS:-max cortex-a57 max,spe=off max,x-spe-lazy-sync=on max,x-spe-cut-records=on max,x-spe-fds=on max,x-spe-unimpl-events=0x800 max,x-spe-el3-owned=on max,x-spe-coherence=on}

# build_elf PROG: the path of guest/PROG's ELF, built if needed
build_elf() {
	local elf
	elf=$CACHE/qemu-bare/$(hash_inputs "$QDIR/guest/$1.c" \
		"$QDIR/guest/$1-start.S" "$QDIR/guest/bare-tap.h" \
		"$QDIR/guest/bare-entry.h" "$0")/$1.elf
	if [ ! -f "$elf" ]; then
		mkdir -p "$(dirname "$elf")"
		"${CROSS_COMPILE}gcc" -O2 -Wall -Werror -ffreestanding -fno-pie -no-pie \
			-mgeneral-regs-only -nostdlib -static \
			-Wl,-Ttext=0x40080000 -Wl,-e,_start -o "$elf.tmp" \
			"$QDIR/guest/$1-start.S" "$QDIR/guest/$1.c" >&2
		mv "$elf.tmp" "$elf"
	fi
	echo "$elf"
}

echo "TAP version 13"
n=0
# run_bare ELF CPU PREFIX [QEMU ARGS...]: one run, its checks renumbered
# and named PREFIX<name>
run_bare() {
	local elf=$1 cpu=$2 prefix=$3 out line res rest
	shift 3
	out=$(timeout 120 "$QEMU" -M virt,gic-version=3,virtualization=on \
		-cpu "$cpu" -m 128M -nic none -display none -serial stdio \
		-monitor none -no-reboot -icount shift=0,sleep=off \
		-kernel "$elf" "$@" < /dev/null 2>&1 | tr -d '\r') || true
	# Renumber "ok N name" as "ok M <prefix>name"; keep comments.
	while IFS= read -r line; do
		case "$line" in
		'ok '*|'not ok '*)
			n=$((n + 1))
			res=${line%% [0-9]*}
			rest=${line#"$res "}
			echo "$res $n ${prefix}${rest#* }" ;;
		'#'*) echo "$line" ;;
		esac
	done <<< "$out"
	if ! grep -q '^1\.\.' <<< "$out"; then
		n=$((n + 1))
		echo "not ok $n ${prefix}$(basename "$elf" .elf | tr - _)_finished"
		sed 's/^/# /' <<< "$out" | tail -n 5
	fi
}

ELF=$(build_elf pmu-bare)
for cpu in $CPUS; do
	flag=()
	case ",$cpu," in
	*,x-pmu-lazy-sync=on,*) flag=(-device loader,addr=0x47fff000,data=1,data-len=4) ;;
	esac
	run_bare "$ELF" "$cpu" "${cpu//[^a-z0-9]/_}_" "${flag[@]}"
done
ELF=$(build_elf brbe-bare)
for spec in $BRBE_CPUS; do
	cpu=${spec%=*}
	run_bare "$ELF" "$cpu" "brbe_$(tr -c 'a-zA-Z0-9\n' _ <<< "$cpu")_" \
		-device loader,addr=$BRBE_EXPECT_ADDR,data=${spec##*=},data-len=4
done
ELF=$(build_elf spe-bare)
for cpu in $SPE_CPUS; do
	mode=0 smp=1
	case ",$cpu," in *,x-spe-lazy-sync=on,*) mode=$((mode | 1)) ;; esac
	case ",$cpu," in *,x-spe-cut-records=on,*) mode=$((mode | 2)) ;; esac
	case ",$cpu," in *,x-spe-fds=on,*) mode=$((mode | 4)) ;; esac
	case ",$cpu," in *,x-spe-unimpl-events=*) mode=$((mode | 16)) ;; esac
	case ",$cpu," in *,x-spe-el3-owned=on,*) mode=$((mode | 32)) ;; esac
	# the coherence model's checks need a second vCPU to share lines with
	case ",$cpu," in *,x-spe-coherence=on,*) mode=$((mode | 64)) smp=2 ;; esac
	run_bare "$ELF" "$cpu" "spe_$(tr -c 'a-zA-Z0-9\n' _ <<< "$cpu")_" \
		-smp $smp -device loader,addr=0x47fff000,data=$mode,data-len=4
done
# The enabling ISB's membership once more with every instruction a
# translation block of its own (mode 9: x-spe-lazy-sync, its ISB checks)
run_bare "$ELF" max,x-spe-lazy-sync=on spe_lazy_one_insn_per_tb_ \
	-accel tcg,one-insn-per-tb=on -device loader,addr=0x47fff000,data=9,data-len=4
echo "1..$n"
