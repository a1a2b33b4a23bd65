# SPDX-License-Identifier: GPL-2.0
# Count TAP/KTAP results in a log: prints "PASS FAIL SKIP" on the last line
# and, before it, one "FAIL: name" / "SKIP: name (reason)" line for each.
#
# A result line less indented than the result before it closes a nested
# group (a KUnit suite after its cases): its cases were counted already, so
# the group line itself is not.
function indent(s) { match(s, /^ */); return RLENGTH }
{
	line = $0
	sub(/^\[[^]]*\] */, "", line)	# tolerate a "[suite] " prefix
	if (line !~ /^ *(not ok|ok) [0-9]+/)
		next
	ind = indent(line)
	closes = (seen && ind < last)
	seen = 1; last = ind
	if (closes)
		next
	name = line
	sub(/^ *(not ok|ok) [0-9]+ *(- )?/, "", name)
	if (line ~ /# *(SKIP|skip)/) {
		skip++
		print "SKIP: " name
	} else if (line ~ /^ *not ok/) {
		fail++
		print "FAIL: " name
	} else {
		pass++
	}
}
END { printf "%d %d %d\n", pass, fail, skip }
