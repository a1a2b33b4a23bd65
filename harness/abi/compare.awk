# SPDX-License-Identifier: GPL-2.0
# Compare abi_probe's output on the running kernel with mainline 7.3's
# recorded output, key by key, and print TAP (harness/plans/abi-probe.plan).
#
#   awk -v mode=ours|mainline [-v start=N] -f compare.awk \
#       differences.txt mainline-7.3.txt LIVE
#
# A line of either output is "key: value"; a key missing from one side has
# the value "(absent)" there. differences.txt lists the expected
# differences, one a line: "key | our value | mainline's value | where it
# is documented" ('#' starts a comment).
#
# mode=ours (our 6.12 kernel): every key must give mainline's recorded
# value, unless differences.txt lists it; then ours must be the listed
# value, the record must give the listed mainline value and the two must
# differ. So a new difference fails until it is documented or fixed, and a
# listed one that is gone fails until its line goes.
# mode=mainline (7.x): every key must give the recorded value, so the
# record stays true; differences.txt is not read.
#
# TAP: one line per documented difference, one failing line per
# undocumented difference, then one line per key class ("attr.cpu",
# "sysfs.spe", "branch", "group"...), which fails if any key of the class
# did; the plan line last. Numbered from start + 1. Exits 1 if any
# failed.

function class_of(k,   p, n) {
	n = split(k, p, ".")
	if ((p[1] == "attr" || p[1] == "sysfs") && n > 2)
		return p[1] "." p[2]
	return p[1]
}

function tap(ok, name, why) {
	t++
	if (ok) {
		print "ok " t " " name
		return
	}
	print "not ok " t " " name
	failed++
	if (why != "")
		print "# " name ": " why
}

# key and value of a "key: value" line, into K and V
function parse(line,   i) {
	i = index(line, ": ")
	if (!i)
		return 0
	K = substr(line, 1, i - 1)
	V = substr(line, i + 2)
	return 1
}

function add_key(k) {
	if (!(k in seen)) {
		seen[k] = 1
		keys[++nkeys] = k
	}
}

BEGIN { t = start + 0 }
# Which argument is being read: the next one of that name, so that an
# empty file (which has no first line) or one named twice is no trouble
FNR == 1 || FILENAME != cur {
	cur = FILENAME
	for (a = arg + 1; a < ARGC && ARGV[a] != FILENAME; a++)
		;
	arg = a
}

arg == 1 {
	if ($0 ~ /^[ \t]*(#|$)/)
		next
	n = split($0, f, / \| /)
	if (n != 4 || f[1] == "" || f[4] == "") {
		tap(0, "abi_differences_line_" FNR "_well_formed",
		    "want 'key | ours | mainline | documentation', got '" $0 "'")
		next
	}
	if (f[1] in d_ours) {
		tap(0, "abi_differences_line_" FNR "_unique", f[1] " listed twice")
		next
	}
	d_ours[f[1]] = f[2]
	d_ml[f[1]] = f[3]
	d_doc[f[1]] = f[4]
	d_order[++nd] = f[1]
	next
}
arg == 2 { if (parse($0)) { rec[K] = V; add_key(K) } ; next }
arg == 3 { if (parse($0)) { live[K] = V; add_key(K) } ; next }

END {
	if (mode != "ours" && mode != "mainline") {
		print "not ok " ++t " abi_compare_mode # mode=" mode "?"
		print "1.." t
		exit 1
	}
	for (i = 1; i <= nkeys; i++) {
		k = keys[i]
		c = class_of(k)
		if (!(c in cn))
			classes[++nc] = c
		cn[c]++
		r = (k in rec) ? rec[k] : "(absent)"
		l = (k in live) ? live[k] : "(absent)"
		if (mode == "ours" && (k in d_ours)) {
			cd[c]++
			continue	# judged below, with the list
		}
		if (l == r)
			continue
		cbad[c]++
		if (mode == "ours")
			tap(0, "abi_undocumented " k,
			    "ours '" l "', mainline '" r "': fix it or add it to differences.txt with its documentation")
		else
			tap(0, "abi_differs_from_record " k,
			    "live '" l "', recorded '" r "': a change of mainline's ABI or of the probe; record again (harness/abi-record.sh)")
	}
	for (j = 1; mode == "ours" && j <= nd; j++) {
		k = d_order[j]
		c = class_of(k)
		r = (k in rec) ? rec[k] : "(absent)"
		l = (k in live) ? live[k] : "(absent)"
		why = ""
		if (!(k in seen))
			why = "no such key in either output"
		else if (d_ours[k] == d_ml[k])
			why = "the line lists the same value for both"
		else if (r != d_ml[k])
			why = "mainline's record says '" r "', the list '" d_ml[k] "'"
		else if (l == r)
			why = "no longer differs (both '" l "'): remove the line"
		else if (l != d_ours[k])
			why = "ours '" l "', the list '" d_ours[k] "'"
		if (why != "" && (k in seen))
			cbad[c]++
		tap(why == "", "abi_documented " k " (" d_doc[k] ")", why)
	}
	for (i = 1; i <= nc; i++) {
		c = classes[i]
		print "# abi " c ": " cn[c] " keys, " (cd[c] + 0) " documented differences, " \
		      (cbad[c] + 0) " failed"
		tap(!cbad[c], "abi_class " c (mode == "ours" ? " as mainline or documented" : " as recorded"))
	}
	if (!nkeys)
		tap(0, "abi_keys_compared", "no key in either output")
	print "1.." t
	exit (failed > 0)
}
