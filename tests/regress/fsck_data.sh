#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Nothing lost: an image made with mke2fs -d from a tree of files with
# distinct contents is damaged in several ways at once (corrupt records
# in a directory block, a directory unlinked, names removed, a link count
# zeroed, a block claimed by two files); after extkit-fsck -fy every file
# the damage did not destroy is still reachable by some path (ncheck) and
# reads back (debugfs dump) byte for byte as it was written; where loop
# mounts work, the kernel reads them back the same through the repaired
# tree.
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
# kernel_reads BS: the kernel, as a second reader, mounts the repaired
# image read-only and reads every kept file (./paths: path and sha256)
# byte for byte. Noted and passed over without root or loop mounts.
kernel_reads() {
	mkdir -p mnt
	if [ "$(id -u)" -ne 0 ] ||
	   ! mount -o ro,loop image mnt 2>/dev/null; then
		echo "note: -b $1: kernel read-back skipped (no loop mount)"
		return 0
	fi
	_bad=0
	_n=0
	while read -r _p _s; do
		_n=$((_n + 1))
		[ "$(sha256sum <"mnt$_p" 2>/dev/null | cut -c1-64)" = "$_s" ] ||
			{ _bad=$((_bad + 1)); echo "    kernel: $_p differs"; }
	done <paths
	umount mnt
	if [ "$_bad" -eq 0 ]; then
		ok "-b $1: the kernel reads all $_n files back"
	else
		fail "-b $1: the kernel reads $_bad of $_n files differently"
	fi
}

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
	rm -f paths
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
			echo "$path $sum" >>paths
		fi
	done <sums
	if [ "$lost" -eq 0 ]; then
		ok "-b $bs: all $kept files reachable with their data"
	else
		fail "-b $bs: $lost files lost or changed, $kept kept"
	fi
	kernel_reads "$bs"
done
finish
