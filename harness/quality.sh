#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Compiler and sparse gates, as TAP: a W=1 build of drivers/perf with no
# warning, and no sparse warning in the files this repository carries.

. "$(dirname "$0")/lib.sh"

LOG=$(mktemp)
trap 'rm -f "$LOG"*' EXIT
n=0

result() {	# result OK NAME
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n $2"; else echo "not ok $n $2"; fi
}

echo "TAP version 13"
# W=1 changes the flags, so kbuild recompiles the folder and shows its
# warnings; C=2 then runs sparse on every file of it, rebuilt or not.
for pass in W=1 C=2; do
	rc=0
	"$HARNESS/kernel.sh" make "$pass" drivers/perf/ > "$LOG.$pass" 2>&1 || rc=$?
	sed "s/^/# $pass: /" "$LOG.$pass"
	result $rc "build_of_drivers_perf_with_${pass%=*}_succeeds"
done
result "$(grep -c 'warning:' "$LOG.W=1" || true)" w1_drivers_perf_has_no_compiler_warning
for f in $(overlay_files | grep '^drivers/.*\.c$'); do
	result "$(grep -c "$f:.*: \(warning\|error\):" "$LOG.C=2" || true)" "sparse_clean_$(basename "$f" .c)"
done
echo "1..$n"
