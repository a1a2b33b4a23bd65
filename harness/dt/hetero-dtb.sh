#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A device tree for QEMU's virt machine that describes a heterogeneous
# system: two PMUs over two disjoint halves of the CPUs. Boot it with
# DTB=$(harness/dt/hetero-dtb.sh path) harness/qemu.sh (same SMP, QEMU_CPU,
# MEM).
#
#   SMP=2 harness/dt/hetero-dtb.sh [build]   CPU 0 | CPU 1
#   SMP=4 harness/dt/hetero-dtb.sh [build]   CPUs 0-1 | CPUs 2-3
#   SMP=2 harness/dt/hetero-dtb.sh path      print the DTB's path, build nothing
#
# Knobs as in harness/qemu.sh: QEMU, SMP (2; even), QEMU_CPU (max), MEM (1G).
# Needs dtc (Debian: device-tree-compiler).
#
# How: QEMU dumps the tree it would generate (-machine dumpdtb) for the
# machine harness/qemu.sh boots; dtc decompiles it; the rewrite below
# replaces the single PMU node by two; dtc compiles the result. QEMU still
# adds /chosen (command line, initramfs) when it loads the tree with -dtb.
#
# QEMU wires every vCPU's PMU overflow to the same PPI (7), so the two PMU
# nodes share it through GICv3 PPI partitions (bindings: arm,gic-v3.yaml
# ppi-partitions): the GIC node gets #interrupt-cells = 4 and a
# ppi-partitions child with one partition per half; every interrupt
# specifier in the tree gets a 4th cell, 0 (no partition) except in the PMU
# nodes, whose 4th cell names their partition. The arm_pmu framework takes
# a PMU's CPUs from the partition of its per-CPU interrupt
# (irq_get_percpu_devid_partition), so overflow interrupts keep working.
# (interrupt-affinity is for SPIs, or for a PPI whose specifier does not
# already name its CPUs; the arm,pmu binding says to leave it out here.)
#
# The two nodes need different compatibles, because the driver names its
# PMU after the compatible and two PMUs cannot share a name: the first half
# gets "arm,cortex-a53-pmu" (armv8_cortex_a53), the second
# "arm,cortex-a57-pmu" (armv8_cortex_a57). The CPUs themselves are
# unchanged; only the names differ.
#
# The result is cached under $CACHE/dt/<hash of this script, the QEMU
# binary and the knobs>; our QEMU's binary is named by its inputs, so its
# path stands for it.

. "$(dirname "$0")/../lib.sh"

VERB=${1:-build}
case "$VERB" in
build|path) ;;
*) die "usage: $0 build|path" ;;
esac
if [ -z "${QEMU:-}" ]; then
	QEMU=$("$HARNESS/qemu/build.sh" path)
	[ "$VERB" = path ] || "$HARNESS/qemu/build.sh" build
fi
SMP=${SMP:-2}
QEMU_CPU=${QEMU_CPU:-max}
MEM=${MEM:-1G}

case "$SMP" in
'' | *[!0-9]*) die "SMP must be a number, not '$SMP'" ;;
esac
if [ "$SMP" -lt 2 ] || [ $((SMP % 2)) != 0 ]; then
	die "SMP must be even and at least 2 (two halves), not $SMP"
fi
case "$QEMU" in
"$CACHE"/qemu/*) QEMU_BIN=$QEMU QEMU_KEY=$QEMU ;;
*)
	QEMU_BIN=$(command -v "$QEMU") || die "no QEMU binary '$QEMU'"
	QEMU_KEY=$(hash_inputs "$QEMU_BIN")
	;;
esac

KEY=$({ hash_inputs "${BASH_SOURCE[0]}"; echo "$QEMU_KEY $SMP $QEMU_CPU $MEM"; } |
      sha256sum | cut -c1-16)
OUT=$CACHE/dt/$KEY
if [ "$VERB" = path ]; then
	echo "$OUT/hetero.dtb"
	exit 0
fi

command -v dtc > /dev/null || die "dtc is missing: apt-get install device-tree-compiler"
command -v python3 > /dev/null || die "python3 is missing"
if [ ! -f "$OUT/hetero.dtb" ]; then
	tmp=$(mktemp -d "$CACHE/dt-XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	msg "dumping QEMU's device tree (SMP=$SMP QEMU_CPU=$QEMU_CPU MEM=$MEM)"
	# The machine of harness/qemu.sh's qemu_args; nothing else there
	# (kernel, icount, 9p over virtio-mmio) changes the tree.
	"$QEMU_BIN" -M "virt,gic-version=3,virtualization=on,dumpdtb=$tmp/virt.dtb" \
		-cpu "$QEMU_CPU" -smp "$SMP" -m "$MEM" -nic none -display none \
		> "$tmp/qemu.log" 2>&1 || { cat "$tmp/qemu.log" >&2; die "QEMU could not dump its DTB"; }
	dtc -q -I dtb -O dts -o "$tmp/virt.dts" "$tmp/virt.dtb"
	python3 - "$tmp/virt.dts" "$tmp/hetero.dts" <<'EOF' || die "rewriting the tree failed"
import re
import sys

src, dst = sys.argv[1], sys.argv[2]
lines = open(src).read().split("\n")


def fail(why):
    sys.exit("hetero-dtb: " + why)


def cells(value):
    return [int(c, 0) for c in value.split()]


def fmt(cs):
    return " ".join("0x%02x" % c for c in cs)


# Nodes as (start line, end line, path, depth); the decompiled text has one
# node opening ("name {") or closing ("};") or property per line.
nodes, stack = [], []
for i, line in enumerate(lines):
    s = line.strip()
    if s.endswith("{"):
        stack.append((i, s[:-1].strip()))
    elif s == "};":
        start, name = stack.pop()
        path = "/".join(n for _, n in stack[1:] + [(start, name)])
        nodes.append((start, i, "/" + path if name != "/" else "/", len(stack)))


def props(start, end, depth):
    """The node's own properties: {name: (line, value or None)}"""
    out, level = {}, 0
    for i in range(start + 1, end):
        s = lines[i].strip()
        if s.endswith("{"):
            level += 1
        elif s == "};":
            level -= 1
        elif level == 0 and s.endswith(";"):
            m = re.match(r"([^ =]+)(?: = (.*))?;$", s)
            if m:
                out[m.group(1)] = (i, m.group(2))
    return out


def u32s(p, name):
    v = p.get(name)
    if not v or not v[1] or not v[1].startswith("<"):
        return None
    return cells(v[1].strip("<>"))


by_path = {path: (s, e, d) for s, e, path, d in nodes}
gic = [path for path, (s, e, d) in by_path.items()
       if '"arm,gic-v3"' in (props(s, e, d).get("compatible", (0, ""))[1] or "")]
if len(gic) != 1:
    fail("expected one arm,gic-v3 node, found %d" % len(gic))
gs, ge, gd = by_path[gic[0]]
gp = props(gs, ge, gd)
gic_phandle = u32s(gp, "phandle")[0]
if u32s(gp, "#interrupt-cells") != [3]:
    fail("the GIC does not use 3 interrupt cells")
gic_addr_cells = u32s(gp, "#address-cells")[0]

phandles, cpus, pmus, edits = [], {}, [], {}
for s, e, path, d in nodes:
    p = props(s, e, d)
    if u32s(p, "phandle"):
        phandles.append(u32s(p, "phandle")[0])
    if "interrupts-extended" in p:
        fail(path + ": interrupts-extended is not handled")
    if "interrupt-parent" in p and u32s(p, "interrupt-parent") != [gic_phandle]:
        fail(path + ": an interrupt parent other than the GIC")
    if (p.get("device_type", (0, ""))[1] == '"cpu"' and
            path.startswith("/cpus/cpu@")):
        cpus[u32s(p, "reg")[0]] = u32s(p, "phandle")[0]
    if '"arm,armv8-pmuv3"' in (p.get("compatible", (0, ""))[1] or ""):
        pmus.append((s, e))
    # Every specifier has the GIC as parent (checked above): one more cell.
    if "interrupts" in p:
        line, _ = p["interrupts"]
        cs = u32s(p, "interrupts")
        if len(cs) % 3:
            fail(path + ": interrupts is not in 3-cell specifiers")
        new = []
        for k in range(0, len(cs), 3):
            new += cs[k:k + 3] + [0]
        edits[line] = lines[line].split("interrupts")[0] + "interrupts = <%s>;" % fmt(new)
    if "interrupt-map" in p:
        line, _ = p["interrupt-map"]
        cs = u32s(p, "interrupt-map")
        child = u32s(p, "#address-cells")[0] + u32s(p, "#interrupt-cells")[0]
        entry = child + 1 + gic_addr_cells + 3
        if len(cs) % entry:
            fail(path + ": unexpected interrupt-map length")
        new = []
        for k in range(0, len(cs), entry):
            e_ = cs[k:k + entry]
            if e_[child] != gic_phandle:
                fail(path + ": interrupt-map entry not for the GIC")
            new += e_ + [0]
        edits[line] = lines[line].split("interrupt-map")[0] + "interrupt-map = <%s>;" % fmt(new)

if len(pmus) != 1:
    fail("expected one arm,armv8-pmuv3 node, found %d" % len(pmus))
nr = len(cpus)
if nr < 2 or nr % 2 or sorted(cpus) != list(range(nr)):
    fail("expected an even number of CPUs numbered from 0, found %s" % sorted(cpus))
halves = [[cpus[c] for c in range(nr // 2)], [cpus[c] for c in range(nr // 2, nr)]]
part = [max(phandles) + 1, max(phandles) + 2]

gic_cells_line = gp["#interrupt-cells"][0]
edits[gic_cells_line] = lines[gic_cells_line].split("#")[0] + "#interrupt-cells = <0x04>;"

ind = "\t" * (gd + 1)
partitions = [ind + "ppi-partitions {"]
for k in range(2):
    partitions += [ind + "\thalf%d {" % k,
                   ind + "\t\tphandle = <0x%x>;" % part[k],
                   ind + "\t\taffinity = <%s>;" % fmt(halves[k]),
                   ind + "\t};"]
partitions += [ind + "};", ""]

ps, pe = pmus[0]
pind = lines[ps][:len(lines[ps]) - len(lines[ps].lstrip())]
compats = ["arm,cortex-a53-pmu", "arm,cortex-a57-pmu"]
pmu_nodes = []
for k in range(2):
    pmu_nodes += [pind + "pmu-%d {" % k,
                  pind + '\tcompatible = "%s";' % compats[k],
                  pind + "\tinterrupts = <0x01 0x07 0x04 0x%x>;" % part[k],
                  pind + "};"]
    if k == 0:
        pmu_nodes.append("")

out = []
for i, line in enumerate(lines):
    if ps <= i <= pe:
        if i == ps:
            out += pmu_nodes
        continue
    if i == ge:
        out += partitions
    out.append(edits.get(i, line))
open(dst, "w").write("\n".join(out))
EOF
	dtc -q -I dts -O dtb -o "$tmp/hetero.dtb" "$tmp/hetero.dts"
	rm -rf "$OUT" && mkdir -p "$(dirname "$OUT")" && mv "$tmp" "$OUT"
	trap - EXIT
	msg "hetero device tree: $OUT/hetero.dts"
fi
