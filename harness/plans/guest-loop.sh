# SPDX-License-Identifier: GPL-2.0
# Sourced by plans that profile pmu_host_guest's guest loop from the host.
# The selftest's guest runs the binary's own code at its link addresses, so
# a guest sample's PC can be checked against the binary's bytes. Only the
# loop (subs; b.ne) is the guest's alone: the host runs the same memset and
# the rest of the selftest's library, so a guest PC elsewhere may be one the
# host's own branch records rightly show.

# elf_insn FILE VADDR: the 32-bit word at VADDR of FILE's first PT_LOAD
elf_insn() {
	local phoff off va sz
	phoff=$((0x$(od -An -t x8 -j 32 -N 8 "$1" | tr -d ' ')))
	[ "$(od -An -t x4 -j "$phoff" -N 4 "$1" | tr -d ' ')" = 00000001 ] || return
	off=$((0x$(od -An -t x8 -j $((phoff + 8)) -N 8 "$1" | tr -d ' ')))
	va=$((0x$(od -An -t x8 -j $((phoff + 16)) -N 8 "$1" | tr -d ' ')))
	sz=$((0x$(od -An -t x8 -j $((phoff + 32)) -N 8 "$1" | tr -d ' ')))
	[ "$2" -ge "$va" ] && [ "$2" -lt $((va + sz)) ] || return
	od -An -t x4 -j $(($2 - va + off)) -N 4 "$1" | tr -d ' '
}

# guest_loop_pc FILE PC: PC is the loop's subs xN, xN, #1
# (0xf1000400 | N << 5 | N) or its b.ne back to the subs (0x54ffffe1)
guest_loop_pc() {
	local w subs
	w=$(elf_insn "$1" $(($2)))
	case $w in
	54ffffe1) subs=$(elf_insn "$1" $(($2 - 4))) ;;
	*) subs=$w; [ "$(elf_insn "$1" $(($2 + 4)))" = 54ffffe1 ] || return 1 ;;
	esac
	[ $((0x${subs:-0} & 0xfffffc00)) = $((0xf1000400)) ] &&
		[ $(((0x$subs >> 5) & 31)) = $((0x$subs & 31)) ]
}
