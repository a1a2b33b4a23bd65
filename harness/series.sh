#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Turn the overlay into a `git format-patch` series against the base, with
# a cover letter, in build/series/.
#
#   harness/series.sh [build]          (or: make series)
#   harness/series.sh path             print the folder, build nothing
#   SERIES_AUTHOR='Name <mail>'        author, committer and Signed-off-by
#                                      (else harness/series/identity, else
#                                      the team address below)
#   SERIES_PREFIX='RFC PATCH v2'       subject prefix (default: PATCH)
#
# harness/series/NN-<slug>.txt describes patch NN: line 1 the subject, a
# blank line, the commit message, then a "Files:" block naming our files
# and our base patches (patches/NAME.patch) it carries, one per line. Each
# patch makes its files equal to ours and applies its base patches, so
# each of our files and base patches must be listed by exactly one patch:
# a new one stops the series until a patch claims it.
# harness/series/cover.txt holds the cover letter: line 1 the subject, a
# blank line, the body; @BASE_KERNELVERSION@, @BASE_DEB_PACKAGE@ and
# @BASE_DEB_VERSION@ in it are replaced from BASE.
#
# The commits are made with git plumbing in a repository of the base kept
# under $CACHE (made once: ~87k files, about a minute), with nothing
# checked out, so a run takes seconds.

. "$(dirname "$0")/lib.sh"

DESC=$HARNESS/series
OUT=$TOP/build/series
case "${1:-build}" in
build) ;;
path) echo "$OUT"; exit 0 ;;
*) die "usage: $0 build|path" ;;
esac
"$HARNESS/base.sh" build
BASE_TREE=$("$HARNESS/base.sh" path)
BASE_GIT=$CACHE/base-git/$BASE_DEB_VERSION
DEFAULT_AUTHOR='Arm64 PMU Team <arm64-pmu@lists.example.org>'

# Only what is set here shapes the output, not the user's ~/.gitconfig.
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null

# git on the base repository (plain git stays on ours, for overlay_files)
bgit() { git --git-dir="$BASE_GIT" "$@"; }

author() {
	if [ -n "${SERIES_AUTHOR:-}" ]; then
		echo "$SERIES_AUTHOR"
	elif [ -s "$DESC/identity" ]; then
		head -n 1 "$DESC/identity"
	else
		echo "$DEFAULT_AUTHOR"
	fi
}

# set_identity 'Name <mail>' DATE: author and committer of the next commit
set_identity() {
	export GIT_AUTHOR_NAME=${1% <*} GIT_AUTHOR_EMAIL=${1##*<}
	GIT_AUTHOR_EMAIL=${GIT_AUTHOR_EMAIL%>}
	export GIT_COMMITTER_NAME=$GIT_AUTHOR_NAME GIT_COMMITTER_EMAIL=$GIT_AUTHOR_EMAIL
	export GIT_AUTHOR_DATE=$2 GIT_COMMITTER_DATE=$2
}

# make_base_repo: commit the pristine base tree, once per base version.
# The read-only base tree serves as the work tree for `git add`, so nothing
# is copied; -f because the tarball may carry files its own
# .gitignore names, and the base commit must be the tarball, all of it.
# A fixed identity and date make the base commit id the same everywhere.
make_base_repo() {
	local tmp=$BASE_GIT.tmp tree commit start=$SECONDS
	[ -f "$BASE_GIT/base-commit" ] && return 0
	msg "creating the base git repository $BASE_GIT (once, about a minute)"
	rm -rf "$tmp" && git init -q --bare "$tmp"
	git --git-dir="$tmp" config core.preloadIndex true
	git --git-dir="$tmp" config core.autocrlf false
	git --git-dir="$tmp" --work-tree="$BASE_TREE" add -A -f
	tree=$(git --git-dir="$tmp" write-tree)
	set_identity 'Linux base <base@localhost>' '@0 +0000'
	commit=$(git --git-dir="$tmp" commit-tree "$tree" \
		-m "Linux $BASE_KERNELVERSION ($BASE_DEB_PACKAGE $BASE_DEB_VERSION)")
	git --git-dir="$tmp" update-ref refs/heads/base "$commit"
	echo "$commit" > "$tmp/base-commit"
	rm -rf "$BASE_GIT" && mv "$tmp" "$BASE_GIT"
	msg "base repository made in $((SECONDS - start))s"
}

patch_descriptions() {
	find "$DESC" -maxdepth 1 -name '[0-9][0-9]-*.txt' | LC_ALL=C sort
}

# files_of DESC: the "Files:" entries of a description, one per line
files_of() {
	sed -n '/^Files:$/,$p' "$1" | sed '1d; s/^[[:space:]]*//; s/[[:space:]]*$//; /^$/d'
}

# message_of DESC: subject and body, without the Files: block
message_of() {
	sed '/^Files:$/,$d' "$1" | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}'
}

check_description() {
	local d=$1 name=${1##*/}
	[ -n "$(head -n 1 "$d")" ] || die "$name: line 1 must be the subject"
	[ -z "$(sed -n 2p "$d")" ] || die "$name: line 2 must be blank"
	grep -qx 'Files:' "$d" || die "$name: no 'Files:' block"
	[ -n "$(files_of "$d")" ] || die "$name: the 'Files:' block is empty"
}

# expand ENTRY: the entry if it is one of our files or base patches
expand() {
	awk -v file="$1" '$0 == file' <<<"$OVERLAY"
}

# claims: "FILE DESC" for every overlay file each description claims
claims() {
	local d e
	for d in $(patch_descriptions); do
		while read -r e; do
			expand "$e" | sed "s|\$| ${d##*/}|"
		done < <(files_of "$d")
	done
}

# check_coverage: each of our files and base patches in exactly one
# patch, no stale entry, and the base patches claimed in their own order
check_coverage() {
	local d e f claimed bad=0
	for d in $(patch_descriptions); do
		while read -r e; do
			[ -n "$(expand "$e")" ] && continue
			msg "${d##*/} lists $e, which is neither our file nor a base patch"
			bad=1
		done < <(files_of "$d")
	done
	claimed=$(claims)
	while read -r f; do
		msg "$f is listed by more than one patch:" \
			"$(awk -v f="$f" '$1 == f { print $2 }' <<<"$claimed" | tr '\n' ' ')"
		bad=1
	done < <(cut -d' ' -f1 <<<"$claimed" | sort | uniq -d)
	while read -r f; do
		awk -v f="$f" '$1 == f { found = 1 } END { exit !found }' <<<"$claimed" ||
			{ msg "$f is in no patch of $DESC"; bad=1; }
	done <<<"$OVERLAY"
	[ "$(claims | awk '$1 ~ /^patches\// { print $1 }')" = "$(base_patches | sed 's|^|patches/|')" ] ||
		{ msg "the base patches must be claimed in the order of patches/series"; bad=1; }
	[ $bad = 0 ] || die "fix the Files: blocks in $DESC"
}

# commit_patch PARENT DESC: commit the description's files on PARENT, print it
commit_patch() {
	local parent=$1 d=$2 f from mode blob tree entries ours mine patched
	export GIT_INDEX_FILE=$BASE_GIT/series-index
	bgit read-tree "$parent"
	entries=$(claims | awk -v d="${d##*/}" '$2 == d { print $1 }')
	ours=$(grep -v '^patches/' <<<"$entries" || true)
	mine=$(sed -n 's|^patches/||p' <<<"$entries")
	# Our base patches up to this one's last, applied to the base
	if [ -n "$mine" ]; then
		patched=$(patched_tree "$(base_patches | grep -nxF "$(tail -n 1 <<<"$mine")" | cut -d: -f1)")
		# shellcheck disable=SC2086 # one word per patch name
		ours+=$'\n'$(files_patched_by $mine)
	fi
	while read -r f; do
		[ -n "$f" ] || continue
		from=$TOP/$f
		[ -n "$mine" ] && [ -f "$patched/$f" ] && from=$patched/$f
		[ -L "$from" ] && die "$f: symlinks are not supported"
		mode=100644 && [ -x "$from" ] && mode=100755
		blob=$(bgit hash-object -w -- "$from")
		bgit update-index --add --cacheinfo "$mode,$blob,$f"
	done <<<"$ours"
	tree=$(bgit write-tree)
	unset GIT_INDEX_FILE
	[ "$tree" != "$(bgit rev-parse "$parent^{tree}")" ] ||
		die "${d##*/} changes nothing: its files already equal the base or an earlier patch"
	message_of "$d" | bgit interpret-trailers --trailer "Signed-off-by: $AUTHOR" |
		bgit commit-tree "$tree" -p "$parent"
}

# The cover letter comes from the branch description: git's
# --cover-from-description=subject takes its first paragraph as the subject.
cover_description() {
	[ -s "$DESC/cover.txt" ] || die "$DESC/cover.txt is missing"
	sed -e "s|@BASE_KERNELVERSION@|$BASE_KERNELVERSION|g" \
	    -e "s|@BASE_DEB_PACKAGE@|$BASE_DEB_PACKAGE|g" \
	    -e "s|@BASE_DEB_VERSION@|$BASE_DEB_VERSION|g" "$DESC/cover.txt"
}

# Reproducible output: the patches carry the date of the repository's last
# commit (the current time only before there is one).
series_date() {
	git -C "$TOP" log -1 --format=%cI 2>/dev/null || date -R
}

make_series() {
	local base head d
	base=$(cat "$BASE_GIT/base-commit")
	# Nothing is checked out here, but checkpatch's SPDX check (GitPython,
	# in series-check's worktree of this repository) refuses a bare one.
	bgit config core.bare false
	set_identity "$AUTHOR" "$(series_date)"
	head=$base
	for d in $(patch_descriptions); do
		head=$(commit_patch "$head" "$d")
	done
	bgit update-ref refs/heads/series "$head"
	bgit symbolic-ref HEAD refs/heads/series
	bgit config branch.series.description "$(cover_description)"
	rm -rf "$OUT" && mkdir -p "$OUT"
	bgit format-patch -q --cover-letter --cover-from-description=subject \
		--subject-prefix="${SERIES_PREFIX:-PATCH}" --base="$base" \
		-o "$OUT" "$base..series"
}

AUTHOR=$(author)
[[ $AUTHOR =~ ^[^\<\>]+\ \<[^\<\>@]+@[^\<\>]+\>$ ]] ||
	die "author '$AUTHOR' is not of the form 'Name <address>'"
[ -n "$(patch_descriptions)" ] || die "no patch descriptions in $DESC"
for d in $(patch_descriptions); do check_description "$d"; done
OVERLAY=$(own_files; base_patches | sed 's|^|patches/|')
check_coverage

# One series run at a time per base repository (make check runs one too).
take_lock "$BASE_GIT.lock" "harness/series.sh writing $OUT"
make_base_repo
make_series
msg "$(find "$OUT" -name '*.patch' | wc -l) files (cover letter included) in $OUT"
