#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# /l2/initrd.sh OUT [TEST...]: pack an initrd for an L2 guest from this
# (L1) guest's own programs: busybox, bash, perf, known-loop, GNU grep with
# its libraries, false_share, the base tree's perf shell tests named (paths
# under /usr/bin/tests/shell, its lib folder among them), and
# /l2/run.sh (harness/vmm/l2-run.sh) as the /run.sh this guest's init
# runs. For plans/l2-guest.plan (our VMM) and plans/l2-qemu.plan (Debian's
# QEMU).
out=$1
shift
r=/tmp/l2root
rm -rf $r
mkdir -p $r/bin $r/sbin $r/usr/bin/tests/shell $r/usr/sbin $r/usr/local/bin $r/etc \
	 $r/proc $r/sys $r/dev $r/tmp $r/root $r/plans $r/tests
cp /init $r/init
cp /bin/busybox /bin/bash $r/bin/
ln -s busybox $r/bin/sh
cp /usr/bin/perf /usr/bin/known-loop $r/usr/bin/
for t in "$@"; do
	cp -a "/usr/bin/tests/shell/$t" $r/usr/bin/tests/shell/
done
# mktemp and GNU grep, with the libraries grep loads: only those, not
# the ones Debian's QEMU brings to this guest's /lib
cp /usr/local/bin/* $r/usr/local/bin/
mkdir -p $r/lib/aarch64-linux-gnu
cp -a /lib/ld-linux-aarch64.so.1 $r/lib/
cp /lib/aarch64-linux-gnu/libc.so.6 /lib/aarch64-linux-gnu/libpcre2-8.so.0 $r/lib/aarch64-linux-gnu/
cp /etc/passwd /etc/group $r/etc/
cp /plans/tap.sh $r/plans/
cp /tests/false_share $r/tests/
cp /l2/run.sh $r/run.sh
(cd $r && find . | cpio -o -H newc 2>/dev/null) > "$out"
rm -rf $r
