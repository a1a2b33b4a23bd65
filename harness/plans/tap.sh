# SPDX-License-Identifier: GPL-2.0
# Guest-side helpers for plans that print TAP lines the host counts.
# Sourced by the plans; each result line is "ok N name" / "not ok N name",
# optionally followed by "# SKIP reason".

TAP_N=0

# GNU grep where the initramfs has it (harness/initramfs.sh): busybox's sh
# runs its own grep ahead of PATH, which takes 0.4 s of guest clock for a
# pass of grep -E over an SPE trace dump, GNU grep a few milliseconds
if [ -x /usr/local/bin/grep ]; then
	grep() { /usr/local/bin/grep "$@"; }
fi

tap_result() {	# tap_result PASS(0/1) NAME [# SKIP reason]
	TAP_N=$((TAP_N + 1))
	if [ "$1" = 0 ]; then echo "ok $TAP_N $2"; else echo "not ok $TAP_N $2"; fi
}

tap_skip() {	# tap_skip NAME REASON
	TAP_N=$((TAP_N + 1))
	echo "ok $TAP_N $1 # SKIP $2"
}

tap_eq() {	# tap_eq NAME GOT WANT
	if [ "$2" = "$3" ]; then tap_result 0 "$1"; else
		echo "# $1: got '$2', want '$3'"; tap_result 1 "$1"; fi
}

tap_within() {	# tap_within NAME GOT LOW HIGH
	if [ "$2" -ge "$3" ] 2>/dev/null && [ "$2" -le "$4" ]; then tap_result 0 "$1"; else
		echo "# $1: got '$2', want $3..$4"; tap_result 1 "$1"; fi
}

tap_plan() { echo "1..$TAP_N"; }

# our_pmu: the sysfs name of the PMUv3 instance (the one with format/long).
our_pmu() {
	basename "$(dirname "$(dirname "$(ls -d /sys/bus/event_source/devices/*/format/long 2>/dev/null | head -n 1)")")"
}
