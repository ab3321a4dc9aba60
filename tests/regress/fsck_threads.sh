#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# extkit-fsck's reader threads (pass 1's inode tables read and their
# checksums verified ahead, pass 2's directory blocks read ahead) change
# nothing (issue 16): on images big enough for both (inode tables of
# several chunks, a directory of many blocks) and damaged (wrong link
# counts, bad inode checksums, a bad directory entry), -fn and -fy print
# the same and exit the same with the threads (EXTKIT_FSCK_THREADS=1: on
# images this small extkit-fsck leaves them off) as with
# EXTKIT_FSCK_NO_THREADS=1, and -fy leaves the same bytes.
. "${top_srcdir:-.}/tests/regress/env.sh"
cd "$tmpdir" || exit 99
. "$REGRESS_DIR/helpers.sh"

# tree: 20 directories of 20 files (a fifth hold data) and one directory
# of 300 entries with long names (about 20 blocks of 4 KiB); the tables
# of 20,000 inodes make 20 of pass 1's chunks.
tree() {
	rm -rf src && python3 -c '
import os
for d in range(20):
    os.makedirs("src/d%02d" % d)
    for f in range(20):
        with open("src/d%02d/file%02d" % (d, f), "w") as o:
            o.write("%d\n" % f if f % 5 == 0 else "")
os.makedirs("src/big")
for f in range(300):
    open("src/big/%s-%05d" % ("n" * 200, f), "w").close()
' || exit 99
}

# damage: a file's link count and another's checksum wrong, an entry of
# the big directory naming a free inode.
damage() {
	dbg "sif /d07/file03 links_count 3" \
	    "sif /d11/file11 checksum 0x1234" \
	    "sif /d15/file12 checksum 0x4321" \
	    "set_inode_field /d17 links_count 7"
	_ino=$(ino "big/$(printf "%0200d" 0 | tr 0 n)-00123")
	dbg "clri <$_ino>" "freei <$_ino>"
}

# same WHAT ARGS...: runs extkit-fsck ARGS on copies of image, with and
# without the threads; outputs, exit statuses and images must agree.
same() {
	_what=$1
	shift
	cp image a.img && cp image b.img || exit 99
	rc_a=$(EXTKIT_FSCK_THREADS=1 fsck_rc out.a "$@" a.img)
	rc_b=$(EXTKIT_FSCK_NO_THREADS=1 fsck_rc out.b "$@" b.img)
	sed -i 's/[ab]\.img/IMAGE/g' out.a out.b
	if [ "$rc_a" = "$rc_b" ] && cmp -s out.a out.b && cmp -s a.img b.img &&
	   [ -s out.a ]; then
		ok "$_what: the same with and without threads (exit $rc_a)"
	else
		fail "$_what: exit $rc_a with threads, $rc_b without"
		diff -u out.a out.b | head -30 | sed 's/^/    /'
		cmp a.img b.img | sed 's/^/    /'
	fi
}

tree
for t in ext2 ext4; do
	rm -f image
	$MKE2FS -q -F -o Linux -t $t -b 4096 -N 20000 -g 8192 -U "$UUID" \
		-E hash_seed=$SEED -d src image 64M >/dev/null 2>&1 ||
		{ echo "mke2fs -d failed"; exit 99; }
	same "$t clean -fn" -fn
	damage
	same "$t damaged -fn" -fn
	same "$t damaged -fy" -fy
	# what was found must show: the test sees the damage
	grep -q "ref count is" out.a ||
		fail "$t damaged: no link count reported"
done
finish
