#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Check the series of `make series` as a maintainer would, printing TAP.
# For each patch, in order, on a pristine git checkout of the base:
#   patch_N_applies         git am applies it on the patches before it
#   patch_N_checkpatch      checkpatch.pl --strict: 0 errors, 0 warnings
#                           (its checks are shown, not counted)
#   patch_N_builds          the arm64 Image builds (allnoconfig + our
#                           fragment; not rebuilt after a patch of only
#                           Documentation/ and tools/), every kernel source
#                           file the patch adds or changes is compiled into
#                           it, and the arm64/pmu and spe selftests build
#                           when the patch touches them
#
#   harness/series-check.sh      (or: make series-check)
#
# The checkout stays in $CACHE between runs; the builds happen in
# kernel.sh's own folders, so each step is an incremental build. A step
# whose checkpatch and build passed is kept in $CACHE/series-check, named
# by all they read: this script, kernel.sh, lib.sh, the config fragment,
# the base, the compiler and the series up to that patch. An unchanged
# step prints its kept results instead of running again (applying is
# always done); SERIES_CACHE=0 runs every step.

. "$(dirname "$0")/lib.sh"

BASE_GIT=$CACHE/base-git/$BASE_DEB_VERSION	# made by series.sh
WT=$CACHE/bisect/src-$BASE_DEB_VERSION
FRAGMENT=$HARNESS/config/arm64-pmu.config
SELFTESTS=tools/testing/selftests/arm64
LOG=$(mktemp -d)
STEPS=$CACHE/series-check
trap 'rm -rf "$LOG"' EXIT

export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
export GIT_COMMITTER_NAME=series-check GIT_COMMITTER_EMAIL=series-check@localhost

n=0 failed=0
# tap OK NAME [DIAGNOSTIC-FILE]: one result; the file's lines follow as "# "
tap() {
	n=$((n + 1))
	if [ "$1" = ok ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		failed=$((failed + 1))
	fi
	if [ -n "${3:-}" ] && [ -s "$3" ]; then sed 's/^/# /' "$3"; fi
}
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }
finish() { echo "1..$n"; [ $failed = 0 ]; }

# A detached checkout of the base commit; after a run it is reset, which
# rewrites only the files the series touched, so the build stays incremental.
prepare_worktree() {
	local base
	base=$(cat "$BASE_GIT/base-commit")
	# Missing, or left over from a base repository made anew since
	if ! git -C "$WT" rev-parse -q --verify "$base^{commit}" >/dev/null 2>&1; then
		msg "checking out the base into $WT (once)"
		rm -rf "$WT"
		git --git-dir="$BASE_GIT" worktree prune
		mkdir -p "$(dirname "$WT")"
		git --git-dir="$BASE_GIT" worktree add -q --detach "$WT" "$base"
	fi
	git -C "$WT" am --abort >/dev/null 2>&1 || true
	git -C "$WT" checkout -q -f --detach "$base"
	git -C "$WT" clean -q -fdx
}

# checkpatch PATCH APPLIED NAME: errors and warnings fail; checks are shown.
# FILE_PATH_CHANGES ("does MAINTAINERS need updating?") fires on any new
# file whatever MAINTAINERS says; instead, every file the patch adds must
# have an entry of its own in the patched tree's MAINTAINERS (more than the
# catch-all linux-kernel list).
checkpatch() {
	local p=$1 applied=$2 name=$3 out=$LOG/checkpatch f who ok=ok
	# Run in the checkout, a git tree of the base (its cache file goes away
	# with the next reset): checkpatch's SPDX check needs git and Debian's
	# python3 with python3-ply and python3-git, not another python3 first in
	# PATH. This history has no upstream commits: a message quoting one
	# would need --ignore GIT_COMMIT_ID here.
	(cd "$WT" && PATH=/usr/bin:$PATH scripts/checkpatch.pl --strict \
		--ignore FILE_PATH_CHANGES "$p") > "$out" 2>&1 || true
	grep -q '^total: 0 errors, 0 warnings,' "$out" || ok='not ok'
	if [ "$applied" = 1 ]; then
		for f in $(sed -n 's|^ create mode [0-7]* ||p' "$p"); do
			who=$(cd "$WT" && scripts/get_maintainer.pl --no-git \
				--no-git-fallback --no-rolestats -f "$f" 2>&1 || true)
			grep -qv 'linux-kernel@vger.kernel.org' <<<"$who" && continue
			echo "$f: no MAINTAINERS entry covers this new file" >> "$out"
			ok='not ok'
		done
	fi
	# A clean report is just its totals line.
	if [ "$ok" = ok ] && grep -q '^total: 0 errors, 0 warnings, 0 checks' "$out"; then
		grep '^total:' "$out" > "$out.short" && mv "$out.short" "$out"
	fi
	tap "$ok" "${name}_checkpatch" "$out"
}

# config_landed: each fragment line is in the build's .config, unless its
# symbol does not exist yet at this point of the series.
config_landed() {
	local line sym bad=0 config
	config=$("$HARNESS/kernel.sh" builddir)/.config
	while read -r line; do
		case "$line" in ''|'#'*) continue ;; esac
		sym=${line%%=*}
		if [ "${line#*=}" = n ]; then
			! grep -q "^$sym=" "$config" && continue
		else
			grep -qx "$line" "$config" && continue
		fi
		git -C "$WT" grep -qE "^[[:space:]]*(menu)?config ${sym#CONFIG_}\$" -- '*Kconfig*' ||
			continue
		echo "config: $line did not land in $config"
		bad=1
	done < "$FRAGMENT"
	return $bad
}

# compiled CHANGED: every kernel C file or header the patch adds or changes
# is read by some object of the build (kbuild's .cmd files list each
# object's sources), so a new driver off in its own patch shows here.
compiled() {
	local obj f bad=0
	obj=$("$HARNESS/kernel.sh" builddir)
	for f in $(grep -E '^(arch|drivers|include|kernel)/.*\.[ch]$' <<<"$1"); do
		grep -rqsF --include='.*.cmd' "/$f" "$obj" && continue
		echo "$f: changed by this patch, compiled by no object of the build"
		bad=1
	done
	return $bad
}

# kernel_changed CHANGED: the patch touches a file the kernel build reads
# (anything but Documentation/, tools/ and MAINTAINERS)
kernel_changed() {
	grep -qvE '^(Documentation/|tools/|MAINTAINERS$)' <<<"$1"
}

# The kselftest way, in the overlaid source tree kernel.sh keeps.
build_selftests() {
	local src sub subs=
	src=$("$HARNESS/kernel.sh" src)
	# pmu and spe, each once the series has added it: an earlier step's
	# tree keeps the folder of a later one, emptied, so look for its Makefile
	for sub in pmu spe; do
		[ -f "$src/$SELFTESTS/$sub/Makefile" ] && subs+="$sub "
	done
	"$HARNESS/kernel.sh" make headers &&
	make -s -C "$src/tools/testing/selftests" O="$LOG/kselftest" TARGETS=arm64 \
		ARM64_SUBTARGETS="$subs" CROSS_COMPILE="$CROSS_COMPILE"
}

# build NAME: the tree as it is after this patch, built by kernel.sh in its
# own folders (the series ends where the overlay is, so the main build is
# left as it was, and each step is an incremental build).
build() {
	local name=$1 out=$LOG/build start=$SECONDS ok=ok changed
	changed=$(git -C "$WT" diff --name-only HEAD^ HEAD)
	git -C "$WT" diff --name-only "$(cat "$BASE_GIT/base-commit")" HEAD > "$LOG/files"
	export OVERLAY_DIR=$WT OVERLAY_LIST=$LOG/files KCONFIG_LENIENT=1
	{
		if kernel_changed "$changed"; then
			"$HARNESS/kernel.sh" build && config_landed && compiled "$changed"
		else
			echo "no kernel source changed: the kernel build is the previous patch's"
		fi &&
		if grep -q "^$SELFTESTS/" <<<"$changed"; then
			build_selftests
		fi
	} > "$out" 2>&1 || ok='not ok'
	unset OVERLAY_DIR OVERLAY_LIST KCONFIG_LENIENT
	if [ "$ok" = ok ]; then
		grep 'warning:' "$out" > "$out.warn" || true
		echo "built in $((SECONDS - start))s" >> "$out.warn"
		tap ok "${name}_builds" "$out.warn"
	else
		tail -n 40 "$out" > "$out.tail"
		tap 'not ok' "${name}_builds" "$out.tail"
	fi
}

# step_key KEY PATCH: the key of the step that applies PATCH after KEY's.
# series.sh stamps each patch with a new commit id and date: not content.
step_key() {
	{ echo "$1"; sed -e '1{/^From [0-9a-f]\{40\} /d}' -e '/^Date: /d' "$2"; } |
		sha256sum | cut -c1-16
}

# kept NAME DIR: print a kept step's results
kept() {
	tap ok "${1}_checkpatch" "$2/checkpatch"
	tap ok "${1}_builds" "$2/build"
}

# keep DIR: save this step's results (both passed)
keep() {
	mkdir -p "$1.tmp"
	cp "$LOG/checkpatch" "$1.tmp/checkpatch"
	{ cat "$LOG/build.warn"; echo "kept from a run on the same inputs: $1"; } \
		> "$1.tmp/build"
	rm -rf "$1" && mv "$1.tmp" "$1"
}

check_series() {
	local series p i=0 name applied=1 key f0
	key=$({ hash_inputs "$HARNESS/series-check.sh" "$HARNESS/kernel.sh" \
		"$HARNESS/lib.sh" "$FRAGMENT" "$TOP/BASE"; "${CROSS_COMPILE}gcc" --version |
		head -n 1; } | sha256sum | cut -c1-16)
	if ! "$HARNESS/series.sh" build 2> "$LOG/series"; then
		tap 'not ok' series_is_generated "$LOG/series"
		return
	fi
	series=$("$HARNESS/series.sh" path)
	tap ok series_is_generated
	take_lock "$BASE_GIT.lock" "harness/series-check.sh applying the series in $WT"
	prepare_worktree
	for p in "$series"/0*.patch; do
		case "$p" in */0000-cover-letter.patch) continue ;; esac
		i=$((i + 1)) name=patch_$i
		echo "# ${p##*/}"
		if [ $applied = 0 ]; then
			skip "${name}_applies" 'an earlier patch did not apply'
		elif git -C "$WT" am -q "$p" > "$LOG/am" 2>&1; then
			tap ok "${name}_applies"
		else
			tap 'not ok' "${name}_applies" "$LOG/am"
			git -C "$WT" am --abort >/dev/null 2>&1 || true
			applied=0
		fi
		key=$(step_key "$key" "$p")
		if [ $applied = 1 ] && [ "${SERIES_CACHE:-1}" = 1 ] && [ -d "$STEPS/$key" ]; then
			kept "$name" "$STEPS/$key"
		elif [ $applied = 1 ]; then
			f0=$failed
			checkpatch "$p" 1 "$name"
			build "$name"
			if [ "$failed" = "$f0" ]; then keep "$STEPS/$key"; fi
		else
			checkpatch "$p" 0 "$name"
			skip "${name}_builds" 'not applied'
		fi
	done
}

echo "TAP version 13"
check_series
finish
