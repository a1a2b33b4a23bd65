# SPDX-License-Identifier: GPL-2.0
# Count TAP/KTAP results in a log: one "FAIL: name" / "SKIP: name (reason)"
# line for each, then "PASS FAIL SKIP". -v only=details prints the former
# alone, -v only=counts the latter alone.
#
# The harness's one TAP parser. The base tree's `kunit.py parse` reads only
# the first stream of a log (the KUnit one), while a boot prints one stream
# per plan, and it loops forever on a TAP 13 stream whose plan comes last
# (perftool.plan's): harness/README.md, "KTAP".
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
		if (only != "counts")
			print "SKIP: " name
	} else if (line ~ /^ *not ok/) {
		fail++
		if (only != "counts")
			print "FAIL: " name
	} else {
		pass++
	}
}
END {
	if (only != "details")
		printf "%d %d %d\n", pass, fail, skip
}
