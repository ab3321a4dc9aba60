#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The kernel takes the ext3/ext4 filesystems extkit-mkfs makes: for each
# shape (1, 2, 4 KiB blocks; 128- and 256-byte inodes; with and without
# metadata_csum, 64bit, flex_bg; meta_bg; sparse_super2; a block-mapped
# ext3 journal), mount -o loop, copy a tree of 300 files in, compare,
# unmount; e2fsck -fn then exits 0 (the journal replayed nothing and the
# kernel's writes agree with the layout). Skipped (77) without root or
# where loop mounts are refused.
. "${top_srcdir:-.}/tests/lib.sh"
. "$top_srcdir/tests/mkfs/mkfs-lib.sh"
need_tools e2fsck dumpe2fs mount umount

[ "$(id -u)" = 0 ] || skip "not root"
MKE2FS_CONFIG=$top_srcdir/tests/mkfs/mke2fs-ext4.conf
export MKE2FS_CONFIG
img=$tmpdir/k4.img
use_mount_point

tree=$tmpdir/tree
for d in $(seq 1 10); do
	mkdir -p "$tree/d$d"
	for f in $(seq 1 30); do
		echo "file $d/$f" >"$tree/d$d/f$f"
	done
done
head -c 3000000 /dev/urandom >"$tree/big"

# one SIZE ARGS...
one() {
	size=$1
	shift
	desc="$size $*"
	rm -f "$img"
	if ! run_mkfs "$tmpdir/out" "$tmpdir/err" -q -U "$TEST_UUID" "$@" \
			"$img" "$size"; then
		fail "$desc: extkit-mkfs: $(head -1 "$tmpdir/err")"
		return
	fi
	if ! mount -o loop "$img" "$mnt" 2>"$tmpdir/err"; then
		grep -q -i 'unknown\|unsupported\|not supported' "$tmpdir/err" &&
			{ echo "note: $desc: the kernel refuses it"; return; }
		skip "mount -o loop refused: $(cat "$tmpdir/err")"
	fi
	cp -a "$tree" "$mnt/" && diff -r "$tree" "$mnt/tree" >/dev/null ||
		fail "$desc: the copied tree differs"
	umount "$mnt" || { fail "$desc: umount"; return; }
	fsck_clean "$desc: after the kernel wrote" "$img" &&
		ok "$desc: mounted, tree copied, e2fsck -fn clean"
}

one 64M -t ext4
one 64M -t ext3 -b 1024
one 200M -t ext4 -b 2048 -I 128 -O ^64bit
one 300M -t ext4 -O ^metadata_csum,^flex_bg
one 256M -t ext4 -b 1024 -O meta_bg,^resize_inode -G 4
one 512M -t ext4 -O sparse_super2 -E num_backup_sb=1
one 1G -t ext4 -I 1024 -J size=16
one 256M -t ext4 -b 1024 -E packed_meta_blocks=1
finish
