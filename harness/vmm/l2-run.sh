#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs as /run.sh in the L2 guest (our kernel under l2-vmm or Debian's
# QEMU, inside the QEMU guest), started by the same init as the QEMU
# guest's. It prints facts as "l2: NAME VALUE" lines and logs as
# "l2-log: ..." lines on the console; plans/l2-guest.plan and
# plans/l2-qemu.plan, outside, turn them into results.

echo "l2: kernel $(uname -rv)"

# The PMU as probed from l2.dts: our driver through arm_pmu's probe line
dmesg | grep 'hw perfevents' | sed 's/^/l2-log: /'
echo "l2: pmu_probed $(dmesg | grep -c 'hw perfevents: enabled with armv8_pmuv3 PMU driver')"

# known-loop: subs at entry+8, its b.ne at entry+12 back to entry+8
entry=$(od -An -j24 -N8 -tx8 /usr/bin/known-loop | tr -d ' ')
from=$(printf '0x%x' $((0x$entry + 12)))
to=$(printf '0x%x' $((0x$entry + 8)))
echo "l2: loop_branch $from/$to"

# l2run=spe on the kernel command line (plans/l2-qemu.plan's SPE boot,
# whose VMM's PMU and BRBE another boot checks): the SPE part alone
if ! grep -qw l2run=spe /proc/cmdline; then
	# The vPMU counts exactly under icount: known-loop retires 2 + 2 * 10^7 + 3
	# user instructions
	perf stat -x, -e instructions:u known-loop 2> /tmp/stat.log > /dev/null
	echo "l2: instructions_u $(cut -d, -f1 /tmp/stat.log | grep -E '^[0-9]+$')"

	# Branch-stack events open only where our driver found BRBE
	perf record -q -o /tmp/true.data -j any,u -e cycles:u -- true > /tmp/true.log 2>&1
	echo "l2: brbe_record_rc $?"
	sed 's/^/l2-log: /' /tmp/true.log

	perf record -q -j any,u -e cycles:u -c 1000000 -o /tmp/l2.data known-loop \
		> /tmp/rec.log 2>&1
	echo "l2: record_rc $?"
	sed 's/^/l2-log: /' /tmp/rec.log
	perf script -i /tmp/l2.data -F brstack 2>/tmp/script.err > /tmp/l2.script
	sed "s/^/l2-log: perf script: /" /tmp/script.err
	# -F brstack prints an empty line for a sample without records
	echo "l2: samples $(perf script -i /tmp/l2.data -F ip 2>/dev/null | grep -c .)"
	echo "l2: samples_with_records $(grep -c 0x /tmp/l2.script)"
	# records with both addresses (an interrupt's half-recorded entry or
	# return has 0 for the other one)
	tr ' ' '\n' < /tmp/l2.script | grep '^0x' |
		grep -v -e '^0x0/' -e '^0x[0-9a-f]*/0x0/' > /tmp/l2.full
	echo "l2: full_records $(grep -c . /tmp/l2.full)"
	echo "l2: loop_records $(grep -c "^$from/$to/" /tmp/l2.full)"
	echo "l2: kernel_addresses $(tr ' ' '\n' < /tmp/l2.script | grep -cE '0x[89a-f][0-9a-f]{15}')"
	grep -v "^$from/$to/" /tmp/l2.full | head -n 5 | sed 's/^/l2-log: other record /'
	head -n 1 /tmp/l2.script | cut -c1-200 | sed 's/^/l2-log: first sample /'

	# The base tree's branch stack script (absent when L1 leaves it out)
	if [ -f /usr/bin/tests/shell/test_brstack.sh ]; then
		t0=$(cut -d' ' -f1 /proc/uptime)
		(cd /usr/bin/tests/shell && bash ./test_brstack.sh) > /tmp/brstack.log 2>&1
		echo "l2: test_brstack_rc $?"
		sed 's/^/l2-log: /' /tmp/brstack.log
		echo "l2-log: test_brstack.sh took $(awk -v a="$t0" '{ printf "%.2f", $1 - a }' /proc/uptime) s"
	fi
fi


# SPE of the guest's own (issue 29): known-loop's records in the guest's
# buffer, one per 4096 user instructions, each at a loop instruction; then
# perf mem of two threads false-sharing a line, as workflows.plan on bare
# metal
spe=$(ls /sys/bus/event_source/devices | grep -m 1 '^arm_spe_')
echo "l2: spe_pmu ${spe:-none}"
# its buffer interrupt as the firmware's table gave it: "INTID trigger"
grep arm_spe /proc/interrupts | sed 's/^/l2-log: /'
echo "l2: spe_irq $(grep -m 1 arm_spe /proc/interrupts | grep -o 'GICv3 *[0-9]* *[A-Za-z]*' | sed 's/^GICv3 *//; s/  */ /g')"
if [ -n "$spe" ]; then
	perf record -q -e "$spe//u" -c 4096 -o /tmp/spe.data known-loop > /tmp/spe.log 2>&1
	echo "l2: spe_record_rc $?"
	sed 's/^/l2-log: /' /tmp/spe.log
	perf script -i /tmp/spe.data --itrace=i1i -F ip 2>/tmp/spe.err | tr -d ' ' > /tmp/spe.ips
	sed 's/^/l2-log: perf script: /' /tmp/spe.err | head -n 5
	echo "l2: spe_records $(grep -c . /tmp/spe.ips)"
	echo "l2: spe_loop_records $(grep -c -e "^${from#0x}\$" -e "^${to#0x}\$" /tmp/spe.ips)"
	perf report -i /tmp/spe.data --mem-mode --stdio > /dev/null 2>/tmp/spe-rep.err
	echo "l2: spe_report_mem_mode_rc $?"
	perf mem record --ldlat 0 -c 4096 -o /tmp/mem.data -- /tests/false_share \
		> /tmp/mem.out 2>&1
	echo "l2: perf_mem_record_rc $?"
	for w in 0 1; do
		t=$(sed -n "s/^fs-writer-$w tid \([0-9]*\) .*/\1/p" /tmp/mem.out)
		echo "l2: perf_mem_writer_$w $(perf mem report -i /tmp/mem.data --stdio \
			-s pid,symbol_daddr,sym,mem 2>/dev/null | grep -v '^#' |
			awk -v who="$t:fs-writer-$w" -v d="fs_line+0x$((8 * w))" \
			'$3 == who && $5 == d && $7 == "fs_writer_loop" { print $2 }' | sort -u)"
	done
	# The base tree's SPE script (snapshot and system-wide modes), as
	# spe-perftest.plan runs it in L1; its fork test checks AUX wakeups,
	# nothing a guest changes, and stays in L1
	# (absent when L1 leaves it out)
	if [ -f /usr/bin/tests/shell/test_arm_spe.sh ]; then
		t0=$(cut -d' ' -f1 /proc/uptime)
		(cd /usr/bin/tests/shell && bash ./test_arm_spe.sh -v) > /tmp/arm_spe.log 2>&1
		echo "l2: test_arm_spe_rc $?"
		sed 's/^/l2-log: /' /tmp/arm_spe.log
		echo "l2-log: test_arm_spe.sh took $(awk -v a="$t0" '{ printf "%.2f", $1 - a }' /proc/uptime) s"
	fi
fi
echo "l2: finished 1"
