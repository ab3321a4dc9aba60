#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Nothing lost: an image made with mke2fs -d from a tree of files with
# distinct contents is damaged in several ways at once (corrupt records
# in a directory block, a directory unlinked, names removed, a link count
# zeroed, a block claimed by two files); after extkit-fsck -fy every file
# the damage did not destroy is still reachable by some path (ncheck) and
# reads back (debugfs dump) byte for byte as it was written.
. "${top_srcdir:-.}/tests/regress/env.sh"
cd "$tmpdir" || exit 99
. "$REGRESS_DIR/helpers.sh"

mkdir -p tree/a tree/b/c tree/d
for i in $(seq 1 40); do
	for d in a b/c d; do
		awk -v i="$i" -v d="$d" 'BEGIN { srand(i * 7 + length(d));
			n = 100 + int(rand() * 30000);
			for (k = 0; k < n; k++) printf "%c", 65 + int(rand() * 26) }' \
			>"tree/$d/file$i"
	done
done
for bs in 1024 4096; do
	rm -f image
	$MKE2FS -q -F -o Linux -t ext2 -b "$bs" -U "$UUID" -E hash_seed=$SEED \
		-O ^dir_index -d tree image 16M >/dev/null 2>&1 ||
		{ fail "mke2fs -d failed"; continue; }
	# inode -> checksum of every regular file
	: >sums
	for f in $(cd tree && find . -type f | sort); do
		i=$(ino "/${f#./}")
		echo "$i $(sha256sum <"tree/$f" | cut -c1-64)" >>sums
	done
	# the damage
	b=$(blk a/file2 0)
	ino d/file9 >d9.ino
	dbg "unlink b/c" "unlink a/file7" "set_inode_field d/file3 links_count 0" \
	    "set_inode_field d/file9 block[0] $b"
	dirent "$(blk a)" 40 rec_len 3
	dirent "$(blk d)" 12 fill 50
	timeout -k 5 "$TIMEOUT" "$FSCK" -fy image >fsck.log 2>&1
	rc=$?
	if [ "$rc" -ne 1 ]; then
		fail "-b $bs: extkit-fsck -fy: exit $rc"
		sed 's/^/    /' fsck.log | head -20
		continue
	fi
	$E2FSCK -fn image >e2fsck.log 2>&1 ||
		{ fail "-b $bs: e2fsck -fn finds errors"; head -20 e2fsck.log; }
	lost=0
	kept=0
	while read -r i sum; do
		# d/file9 shares a block with a/file2: its copy differs
		[ "$i" = "$(cat d9.ino 2>/dev/null)" ] && continue
		path=$($DEBUGFS -R "ncheck $i" image 2>/dev/null | awk 'NR > 1 { print $2; exit }')
		got=$($DEBUGFS -R "dump <$i> out" image >/dev/null 2>&1 &&
		      sha256sum <out | cut -c1-64)
		if [ -z "$path" ] || [ "$got" != "$sum" ]; then
			lost=$((lost + 1))
			echo "    inode $i: path '$path', data $([ "$got" = "$sum" ] && echo same || echo differs)"
		else
			kept=$((kept + 1))
		fi
	done <sums
	if [ "$lost" -eq 0 ]; then
		ok "-b $bs: all $kept files reachable with their data"
	else
		fail "-b $bs: $lost files lost or changed, $kept kept"
	fi
done
finish
