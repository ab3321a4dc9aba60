#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# bigalloc (-O bigalloc, -C cluster-size; issue 33), with e2fsprogs
# 1.47.4's mke2fs.conf given to both tools: 4 KiB blocks with 16 and
# 64 KiB clusters, 1 KiB blocks with 16 KiB clusters, one group and many,
# flex_bg or not, ext2 with extents: e2fsck -fn clean; dumpe2fs (header
# and groups: cluster counts, bitmaps and their checksums, overhead) and
# debugfs's stat of root, the resize inode and lost+found equal to
# mke2fs's; the kernel mounts, writes and deletes where loop mounts work.
# With ext4's defaults the journal and the orphan file take whole
# clusters (inodes 8 and 12 as mke2fs's). Refusals: -C without bigalloc,
# bigalloc without extents, a cluster smaller than a block. (-d:
# tests/mkfs/bigalloc_populate.sh.)
. "${top_srcdir:-.}/tests/lib.sh"
. "$top_srcdir/tests/mkfs/mkfs-lib.sh"
need_tools e2fsck dumpe2fs mke2fs debugfs

MKE2FS_CONFIG=$top_srcdir/tests/mkfs/mke2fs-1.47.4.conf
export MKE2FS_CONFIG
TIMEOUT=${TIMEOUT_LONG:-120}
ref=$tmpdir/ref.img
img=$tmpdir/img.img
probe_kernel_mounts "$ref"

layout() {
	"$DUMPE2FS" "$1" 2>/dev/null |
		grep -v '^Lifetime writes:\|^Checksum:\|^Journal features:\|^Journal checksum\|mmp_device_name:\|mmp_update_date:\|mmp_update_time:'
	for i in 2 7 8 11 12; do
		echo "inode $i:"
		"$DEBUGFS" -R "stat <$i>" "$1" 2>/dev/null | grep -v 'checksum'
	done
}

kernel_rw() {
	[ "$kernel" = 1 ] || return 0
	if ! mount -o loop "$img" "$mnt" 2>/dev/null; then
		if mount -o loop "$ref" "$mnt" 2>/dev/null; then
			umount "$mnt"
			fail "$1: the kernel refuses extkit-mkfs's image, not mke2fs's"
			return 1
		fi
		echo "note: $1: this kernel mounts neither image"
		return 0
	fi
	{ mkdir "$mnt/d" && for n in 1 2 3 4 5; do
		echo "file $n" >"$mnt/d/f$n" || exit 1
	done && rm "$mnt/d/f3" && head -c 300000 /dev/zero >"$mnt/big"; } \
		2>/dev/null
	w=$?
	umount "$mnt" || { fail "$1: umount"; return 1; }
	[ $w = 0 ] || { fail "$1: the kernel's writes failed"; return 1; }
	fsck_clean "$1: after the kernel wrote" "$img"
}

# case_one SIZE ARGS...: both tools, the same options.
case_one() {
	size=$1
	shift
	desc="$size $*"
	rm -f "$ref" "$img"
	if ! timeout -k 5 "$TIMEOUT" "$MKE2FS" -q -F -U "$TEST_UUID" \
		-E hash_seed=$TEST_SEED "$@" "$ref" "$size" \
		>"$tmpdir/mke2fs.err" 2>&1; then
		fail "$desc: mke2fs: $(head -1 "$tmpdir/mke2fs.err")"
		return
	fi
	if ! run_mkfs "$tmpdir/out" "$tmpdir/err" -q -U "$TEST_UUID" \
			-E hash_seed=$TEST_SEED "$@" "$img" "$size"; then
		fail "$desc: extkit-mkfs: $(head -3 "$tmpdir/err")"
		return
	fi
	fsck_clean "$desc" "$img" || return
	layout "$ref" >"$tmpdir/ref.txt"
	layout "$img" >"$tmpdir/img.txt"
	uninit_147 "$tmpdir/ref.txt" "$tmpdir/img.txt"
	if ! cmp -s "$tmpdir/ref.txt" "$tmpdir/img.txt"; then
		fail "$desc: layout differs from mke2fs"
		diff "$tmpdir/ref.txt" "$tmpdir/img.txt" | head -12 |
			sed 's/^/    /'
	elif kernel_rw "$desc"; then
		ok "$desc: e2fsck clean, layout, cluster counts and inodes as mke2fs"
	fi
}

refused() {
	d=$1
	shift
	rm -f "$img"
	if run_mkfs "$tmpdir/out" "$tmpdir/err" -q "$@" "$img" 64M; then
		fail "$d: extkit-mkfs takes it"
	elif [ -s "$img" ] && "$DUMPE2FS" -h "$img" >/dev/null 2>&1; then
		fail "$d: refused, but a filesystem was left"
	elif ! grep -q -- "$d" "$tmpdir/err"; then
		fail "$d: not the message expected: $(head -1 "$tmpdir/err")"
	else
		ok "$d: refused ($(head -1 "$tmpdir/err"))"
	fi
}

NJ=bigalloc,^has_journal,^orphan_file
case_one 64M -t ext4 -O $NJ -b 4096 -C 16384
case_one 64M -t ext4 -O $NJ -b 4096 -C 65536
case_one 64M -t ext4 -O $NJ -b 1024 -C 16384
case_one 64M -t ext4 -O $NJ -b 4096
case_one 3G -t ext4 -O $NJ -b 1024 -C 16384
case_one 20G -t ext4 -O $NJ -b 4096 -C 16384
case_one 200M -t ext4 -O $NJ -g 1024 -C 16k
case_one 200M -t ext4 -O $NJ,^resize_inode,^flex_bg -C 32k
case_one 64M -t ext2 -O bigalloc,extent -C 16384
# ext4's defaults: the journal and the orphan file in whole clusters
case_one 64M -t ext4 -O bigalloc -b 4096 -C 16384
case_one 64M -t ext4 -O bigalloc -b 4096 -C 65536
case_one 64M -t ext4 -O bigalloc -b 1024 -C 16384
case_one 3G -t ext4 -O bigalloc -b 1024 -C 16384
case_one 20G -t ext4 -O bigalloc -b 4096 -C 16384
case_one 64M -t ext4 -O bigalloc,mmp -b 1024 -C 16384
case_one 64M -t ext3 -O bigalloc,extent -C 16384
# quota: dumpe2fs as mke2fs (the files' extents may split elsewhere)
rm -f "$img"
if run_mkfs "$tmpdir/out" "$tmpdir/err" -q -t ext4 -O bigalloc,quota,project \
	-I 256 -b 1024 -C 16384 "$img" 64M &&
   fsck_clean "bigalloc with quota and project" "$img"; then
	ok "bigalloc with quota and project at 1 KiB: e2fsck -fn clean"
fi

# the report (-n -v): the cluster size, group 0's superblock in block 1
# at 1 KiB (group 0 starts at block 0), free counts in clusters
rm -f "$img"
if run_mkfs "$tmpdir/out" "$tmpdir/err" -n -v -t ext4 -O bigalloc -b 1024 \
	-C 16384 "$img" 64M &&
   grep -q '^cluster size: *16384 (16 blocks)$' "$tmpdir/out" &&
   grep -q '^group 0: blocks 0-65535, superblock 1, descriptors 2-2, reserved 3-33, .* 4024 free clusters,' "$tmpdir/out"; then
	ok "-n -v: the cluster size, group 0 from block 0, free clusters"
else
	fail "-n -v report: $(grep 'cluster\|^group 0' "$tmpdir/out")"
fi

refused "needs the bigalloc feature" -t ext4 -O ^has_journal -C 16384
refused "needs the extent feature" -t ext2 -O bigalloc
refused "may not be smaller than the block size" -t ext2 -O bigalloc,extent -b 4096 -C 2048
refused "invalid cluster size" -t ext2 -O bigalloc,extent -C 3000
finish
