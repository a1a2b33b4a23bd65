#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Branch profiles as compilers read them (issue 32): record fdo_loop's
# branch stacks in the guest (perf record -j any,u on our BRBE), convert
# them on the host with LLVM's llvm-profgen, and check the loop's count in
# the converted profile. Prints TAP and "N passed, N failed".
#
#   harness/fdo.sh      (make fdo-check)
#
# llvm-profgen reads AArch64 only from LLVM 22 on: Debian's llvm-22
# (bookworm-security) is installed if missing. LLVM 14's refuses
# ("unsupported target"); autofdo 0.19 writes empty profiles (README.md).
#
# fdo_loop runs fdo_hot's subs/b.ne 10,000,000 times: 20,000,000 user
# instructions, so 20 samples of cycles:u at a period of 1,000,000, each
# with a full branch buffer of back edges (BRBE_RECORDS on our QEMU). The
# converter counts the straight-line ranges between consecutive records,
# BRBE_RECORDS - 1 a sample, each one pass of the loop's line.

. "$(dirname "$0")/lib.sh"

PROFGEN=llvm-profgen-22
SAMPLES=20
BRBE_RECORDS=32

command -v "$PROFGEN" >/dev/null || {
	msg "installing llvm-22 for $PROFGEN"
	apt-get install -y --no-install-recommends llvm-22 >&2 || die "apt-get install llvm-22 failed"
}
"$HARNESS/tests.sh" build
TESTS_DIR=$("$HARNESS/tests.sh" path)
share=$(mktemp -d)
trap 'rm -rf "$share"' EXIT
SHARE=$share KUNIT=0 "$HARNESS/qemu.sh" run \
	"perf record -q -j any,u -e cycles:u -c 1000000 -o /share/fdo.data /tests/fdo_loop &&
	 perf script -i /share/fdo.data -F ip,brstack --show-mmap-events > /share/fdo.script" >&2 ||
	die "the guest's perf record or perf script failed"

n=0 fail=0
tap() {	# tap NAME GOT WANT
	n=$((n + 1))
	if [ "$2" = "$3" ]; then echo "ok $n $1"; else
		echo "not ok $n $1 # got '$2', want '$3'"; fail=$((fail + 1)); fi
}
tap fdo_script_samples "$(grep -c ' 0x[0-9a-f]*/0x' "$share/fdo.script")" $SAMPLES
"$PROFGEN" --binary="$TESTS_DIR/fdo_loop" --perfscript="$share/fdo.script" \
	--format=text --output="$share/fdo.prof" 2>"$share/profgen.err"
tap llvm_profgen_ran "$?" 0
sed 's/^/# /' "$share/fdo.prof"
# the profile: "fdo_hot:TOTAL:HEAD", then " LINE: COUNT" per body line
tap llvm_profgen_names_fdo_hot "$(grep -c '^fdo_hot:' "$share/fdo.prof")" 1
tap llvm_profgen_loop_line_count \
	"$(awk '/^fdo_hot:/ { f = 1; next } /^[^ ]/ { f = 0 } f && NR { print $2; exit }' \
		"$share/fdo.prof")" $((SAMPLES * (BRBE_RECORDS - 1)))
echo "1..$n"
echo "$((n - fail)) passed, $fail failed"
[ $fail = 0 ]
