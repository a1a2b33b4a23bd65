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
# BRBE_RECORDS - 1 a sample, each one pass of the loop's line. clang-22
# (bookworm-security too) then builds fdo_loop with the profile.

. "$(dirname "$0")/lib.sh"

PROFGEN=llvm-profgen-22
CLANG=clang-22
SAMPLES=20
BRBE_RECORDS=32

for pkg in llvm-22:"$PROFGEN" clang-22:"$CLANG"; do
	command -v "${pkg#*:}" >/dev/null && continue
	msg "installing ${pkg%%:*} for ${pkg#*:}"
	apt-get install -y --no-install-recommends "${pkg%%:*}" >&2 ||
		die "apt-get install ${pkg%%:*} failed"
done
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
rc=0
"$PROFGEN" --binary="$TESTS_DIR/fdo_loop" --perfscript="$share/fdo.script" \
	--format=text --output="$share/fdo.prof" 2>"$share/profgen.err" || rc=$?
tap llvm_profgen_ran "$rc" 0
sed 's/^/# /' "$share/fdo.prof"
# the profile: "fdo_hot:TOTAL:HEAD", then " LINE: COUNT" per body line
tap llvm_profgen_names_fdo_hot "$(grep -c '^fdo_hot:' "$share/fdo.prof")" 1
tap llvm_profgen_loop_line_count \
	"$(awk '/^fdo_hot:/ { f = 1; next } /^[^ ]/ { f = 0 } f && NR { print $2; exit }' \
		"$share/fdo.prof")" $((SAMPLES * (BRBE_RECORDS - 1)))
# The compiler reads it: clang's sample-profile loader records the
# profile's summary in the module, its total the loop line's count
"$CLANG" --target=aarch64-linux-gnu -O2 -g -fprofile-sample-use="$share/fdo.prof" \
	-S -emit-llvm -o "$share/fdo.ll" "$TOP/tools/testing/selftests/arm64/pmu/fdo_loop.c" || rc=$?
tap clang_profile_sample_use_ran "$rc" 0
tap clang_profile_summary_total \
	"$(sed -n 's/.*!"TotalCount", i64 \([0-9]*\)}.*/\1/p' "$share/fdo.ll")" \
	$((SAMPLES * (BRBE_RECORDS - 1)))
echo "1..$n"
echo "$((n - fail)) passed, $fail failed"
[ $fail = 0 ]
