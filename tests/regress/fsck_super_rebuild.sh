#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Past e2fsck: a filesystem of one group has no backup superblock, so a
# primary whose magic number is gone leaves e2fsck with nothing. Here
# images of one group (ext2 1 KiB, ext4 4 KiB, ext4 2 KiB with
# metadata_csum) made with mke2fs -d from a tree of distinct files lose
# their primary magic; extkit-fsck -n changes nothing, -fy rebuilds the
# superblock (exit 1), e2fsck -fn then finds the image clean, and every
# file reads back (debugfs cat) byte for byte as it was written.
. "${top_srcdir:-.}/tests/regress/env.sh"
cd "$tmpdir" || exit 99
. "$REGRESS_DIR/helpers.sh"

mkdir -p tree/a tree/b/c
for i in $(seq 1 12); do
	for d in a b/c; do
		awk -v i="$i" -v d="$d" 'BEGIN { srand(i * 13 + length(d));
			n = 50 + int(rand() * 20000);
			for (k = 0; k < n; k++) printf "%c", 65 + int(rand() * 26) }' \
			>"tree/$d/file$i"
	done
done
printf 'x' >tree/tiny

# one TYPE BS SIZE OPTS: the whole check on one geometry.
one() {
	_t="$1 -b $2"
	rm -f image
	$MKE2FS -q -F -o Linux -t "$1" -b "$2" -U "$UUID" -E hash_seed=$SEED \
		$4 -d tree image "$3" >/dev/null 2>&1 ||
		{ fail "$_t: mke2fs -d failed"; return; }
	if [ "$($DUMPE2FS -h image 2>/dev/null |
		sed -n 's/^Block count: *//p')" -gt $((8 * $2)) ]; then
		fail "$_t: more than one group"
		return
	fi
	# the magic number (superblock byte 56) zeroed
	printf '\0\0' | dd of=image bs=1 seek=1080 conv=notrunc 2>/dev/null
	_sum=$(sha256sum image)
	_rc=$(fsck_rc out.n -fn image)
	if [ "$(sha256sum image)" != "$_sum" ] || [ "$_rc" -eq 0 ]; then
		fail "$_t: -n changed the image or called it clean (exit $_rc)"
		return
	fi
	_rc=$(fsck_rc out.y -fy image)
	if [ "$_rc" -ne 1 ] || ! grep -q 'can be rebuilt' out.y; then
		fail "$_t: -fy exit $_rc, no rebuild"
		sed 's/^/    /' out.y | head -10
		return
	fi
	if ! $E2FSCK -fn image >e2.log 2>&1; then
		fail "$_t: e2fsck -fn finds errors after the rebuild"
		sed 's/^/    /' e2.log | head -10
		return
	fi
	_bad=0
	_n=0
	for f in $(cd tree && find . -type f | sort); do
		_n=$((_n + 1))
		$DEBUGFS -R "cat /${f#./}" image 2>/dev/null >got
		cmp -s got "tree/$f" ||
			{ _bad=$((_bad + 1)); echo "    /${f#./} differs"; }
	done
	if [ "$_bad" -eq 0 ]; then
		ok "$_t: superblock rebuilt, all $_n files read back"
	else
		fail "$_t: $_bad of $_n files differ after the rebuild"
	fi
}

one ext2 1024 8M ""
one ext4 4096 16M ""
one ext4 2048 8M "-O metadata_csum"
finish
