#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The main job: boot the patched kernel and show the unmodified perf tool
# listing, counting and sampling on our PMUv3 driver, branch stacks from
# BRBE and SPE records. It boots what is built: make demo builds it first.

. "$(dirname "$0")/lib.sh"

# Runs in the guest. known-loop retires 2 + 2 * 10,000,000 + 3 user
# instructions (harness/guest/loop.S), so instructions:u must read
# exactly 20,000,005 under -icount.
read -r -d '' GUEST <<'SCRIPT' || true
set -e
pmu=$(basename "$(dirname "$(dirname "$(ls -d /sys/bus/event_source/devices/*/format/long | head -n 1)")")")
echo
echo "=== Our PMU: $pmu ($(cat /sys/bus/event_source/devices/$pmu/type) is its perf type)"
dmesg | grep -i 'perfevents' || true
echo
echo "=== perf list: the events it advertises (PMCEID0/1)"
perf list pmu 2>/dev/null | grep "$pmu/" | head -n 40
echo "    ... $(perf list pmu 2>/dev/null | grep -c "$pmu/") events in all"
echo
echo "=== perf stat of known-loop: 20,000,005 user instructions by construction"
perf stat -e cycles:u,cycles:k,instructions:u,instructions:k known-loop
echo "=== perf record -e cycles:u -c 1000000 known-loop, then perf report"
perf record -q -e cycles:u -c 1000000 -o /tmp/perf.data known-loop
perf report -i /tmp/perf.data --stdio --sort comm,dso,sym 2>/dev/null | grep -v '^$\|tips.txt'
echo
echo "=== BRBE: perf record -j any,u -e cycles:u -c 1000000 known-loop, perf script -F ip,brstack"
echo "    (one sample; its newest records: the loop's b.ne, taken back to its subs)"
perf record -q -j any,u -e cycles:u -c 1000000 -o /tmp/brbe.data known-loop
perf script -i /tmp/brbe.data -F ip,sym,brstack 2>/dev/null | head -n 1 | xargs -n 1 | head -n 6
echo
echo "=== SPE: perf record -e arm_spe//u -c 4096 spe-loop, perf report --mem-mode"
echo "    (10^6 passes of load, store, add, subs, b.ne: 244 loads and 244 stores sampled)"
perf record -q -e arm_spe//u -c 4096 -o /tmp/spe.data spe-loop
perf report -i /tmp/spe.data --stdio --mem-mode --sort sym,symbol_daddr,mem 2>/dev/null |
	awk '/^# Samples:/ { on = /event .memory./ } on && /%/' 
SCRIPT

"$HARNESS/qemu.sh" run "$GUEST"
