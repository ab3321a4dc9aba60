#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The features mke2fs 1.47 makes (issue 33), with e2fsprogs 1.47.4's own
# mke2fs.conf (ext4 = ... metadata_csum_seed, orphan_file) given to both
# mke2fs and extkit-mkfs:
#  - each feature alone (on ext2, or ext3 / ext2 + metadata_csum where it
#    needs a journal or checksums) and with ext4's defaults, at 1 KiB and
#    4 KiB blocks: e2fsck -fn exits 0; dumpe2fs (header, group lines, the
#    journal's and MMP block's fields) and debugfs's stat of inodes 2, 3,
#    4, 8, 11, 12 and 13 (root, quota, journal, lost+found, project
#    quota, orphan file) are mke2fs's, and lost+found's inode and blocks
#    byte for byte (inline_data leaves it one block shorter, with an
#    empty in-inode attribute header);
#  - the options of these features: -E orphan_file_size=, quotatype=,
#    mmp_update_interval=, encoding=, encoding_flags=, -J
#    fast_commit_size=, and their refusals;
#  - every filesystem type (ext2, ext3, ext4) with every usage type of
#    the file and each size class;
#  - with -d: the quota files hold the usage of the copied tree (mke2fs
#    counts it before copying and leaves them stale);
#  - where loop mounts work, the kernel mounts each image, writes and
#    deletes files, and e2fsck -fn finds it clean after; a feature this
#    kernel refuses (CONFIG_QUOTA, CONFIG_UNICODE) is refused for
#    mke2fs's image too and noted, not failed.
#
# Compared as CI has it, with e2fsprogs 1.47.0's mke2fs. Where 1.47.4
# differs (extkit-mkfs follows 1.47.4):
#  - the orphan file has at most 512 blocks (the kernel's limit): -E
#    orphan_file_size= above that is checked for 512, not against mke2fs;
#  - verity without extents is refused (1.47.0 takes it);
#  - 1.47.4 leaves the groups holding a superblock backup without
#    BLOCK_UNINIT (not a feature), as extkit-mkfs does: with mke2fs
#    1.47.0 that flag and those groups' checksums are set aside
#    (uninit_147 in mkfs-lib.sh); PATH=e2fsprogs-1.47.4/bin:$PATH
#    compares everything.
# Fields that differ on purpose (see ext4_matrix.sh): Lifetime writes,
# the superblock checksum, the journal's features and checksum; and the
# MMP block's device name (each tool's own file name) and time (mke2fs
# writes the clock's, unfaked; extkit-mkfs the run's time).
. "${top_srcdir:-.}/tests/lib.sh"
. "$top_srcdir/tests/mkfs/mkfs-lib.sh"
need_tools e2fsck dumpe2fs mke2fs debugfs

MKE2FS_CONFIG=$top_srcdir/tests/mkfs/mke2fs-1.47.4.conf
export MKE2FS_CONFIG
TIMEOUT=${TIMEOUT_LONG:-120}
ref=$tmpdir/ref.img
img=$tmpdir/img.img
probe_kernel_mounts "$ref"

# layout IMAGE: dumpe2fs less what differs on purpose (see the top).
layout() {
	"$DUMPE2FS" "$1" 2>/dev/null |
		grep -v '^Lifetime writes:\|^Checksum:\|^Journal features:\|^Journal checksum\|mmp_device_name:\|mmp_update_date:\|mmp_update_time:'
}

# specials IMAGE: the special inodes as debugfs shows them (less the
# inode checksum line: a difference shows in the fields), lost+found's
# raw inode and blocks.
specials() {
	for i in 2 3 4 8 11 12 13; do
		echo "inode $i:"
		"$DEBUGFS" -R "stat <$i>" "$1" 2>/dev/null |
			grep -v 'checksum'
	done
	"$DEBUGFS" -R "id <11>" "$1" 2>/dev/null
	"$DEBUGFS" -R "cat <11>" "$1" 2>/dev/null | od -A x -t x1
}

# kernel_rw DESC: mounts $img, writes and deletes files, unmounts;
# e2fsck -fn clean after. A refused mount is a note when mke2fs's image
# ($ref) is refused too (the kernel lacks the feature).
kernel_rw() {
	[ "$kernel" = 1 ] || return 0
	if ! mount -o loop "$img" "$mnt" 2>"$tmpdir/merr"; then
		if mount -o loop "$ref" "$mnt" 2>/dev/null; then
			umount "$mnt"
			fail "$1: the kernel refuses extkit-mkfs's image, not mke2fs's"
			return 1
		else
			echo "note: $1: this kernel mounts neither image"
		fi
		return 0
	fi
	{ mkdir "$mnt/d" && for n in 1 2 3 4 5 6 7 8; do
		echo "file $n" >"$mnt/d/f$n" || exit 1
	done && rm "$mnt/d/f3" && head -c 200000 /dev/zero >"$mnt/big"; } \
		2>"$tmpdir/merr"
	w=$?
	umount "$mnt" || { fail "$1: umount"; return 1; }
	[ $w = 0 ] || { fail "$1: the kernel's writes failed: $(head -1 "$tmpdir/merr")"; return 1; }
	fsck_clean "$1: after the kernel wrote" "$img" || return 1
	echo "    the kernel mounted, wrote and deleted: e2fsck -fn clean"
}

# case_one SIZE [E:EXTENDED] ARGS...: both tools, the same options.
case_one() {
	size=$1
	shift
	ext=hash_seed=$TEST_SEED
	case $1 in
	E:*) ext=$ext,${1#E:}; shift ;;
	esac
	desc="$size $* ${ext#hash_seed=$TEST_SEED}"
	rm -f "$ref" "$img"
	if ! timeout -k 5 "$TIMEOUT" "$MKE2FS" -q -F -U "$TEST_UUID" \
		-E "$ext" "$@" "$ref" "$size" >"$tmpdir/mke2fs.err" 2>&1; then
		fail "$desc: mke2fs: $(grep -v '^Creating' "$tmpdir/mke2fs.err" | head -1)"
		return
	fi
	if ! run_mkfs "$tmpdir/out" "$tmpdir/err" -q -U "$TEST_UUID" \
			-E "$ext" "$@" "$img" "$size"; then
		fail "$desc: extkit-mkfs: $(head -3 "$tmpdir/err")"
		return
	fi
	fsck_clean "$desc" "$img" || return
	layout "$ref" >"$tmpdir/ref.txt"
	layout "$img" >"$tmpdir/img.txt"
	uninit_147 "$tmpdir/ref.txt" "$tmpdir/img.txt"
	specials "$ref" >"$tmpdir/ref.ino"
	specials "$img" >"$tmpdir/img.ino"
	if ! cmp -s "$tmpdir/ref.txt" "$tmpdir/img.txt"; then
		fail "$desc: layout differs from mke2fs"
		diff "$tmpdir/ref.txt" "$tmpdir/img.txt" | head -12 |
			sed 's/^/    /'
	elif ! cmp -s "$tmpdir/ref.ino" "$tmpdir/img.ino"; then
		fail "$desc: special inodes differ from mke2fs's"
		diff "$tmpdir/ref.ino" "$tmpdir/img.ino" | head -12 |
			sed 's/^/    /'
	elif kernel_rw "$desc"; then
		ok "$desc: e2fsck clean, layout and special inodes as mke2fs"
	fi
}

# refused DESC ARGS...: both tools refuse it.
refused() {
	d=$1
	shift
	rm -f "$ref" "$img"
	if "$MKE2FS" -q -F "$@" "$ref" 64M >/dev/null 2>&1; then
		fail "$d: mke2fs takes it (the test is wrong)"
	elif run_mkfs "$tmpdir/out" "$tmpdir/err" -q "$@" "$img" 64M; then
		fail "$d: extkit-mkfs takes it"
	elif [ -e "$img" ] && [ -s "$img" ] &&
	     "$DUMPE2FS" -h "$img" >/dev/null 2>&1; then
		fail "$d: refused, but a filesystem was left"
	else
		ok "$d: refused as by mke2fs ($(head -1 "$tmpdir/err"))"
	fi
}

# Each feature alone and with ext4's defaults, 1 KiB and 4 KiB blocks.
for b in 1024 4096; do
	case_one 64M -t ext3 -b $b -O orphan_file
	case_one 64M -t ext2 -b $b -O metadata_csum,metadata_csum_seed
	case_one 64M -t ext2 -b $b -O uninit_bg
	case_one 64M -t ext2 -b $b -O stable_inodes
	case_one 64M -t ext2 -b $b -O extent,verity
	case_one 64M -t ext2 -b $b -O encrypt
	case_one 64M -t ext2 -b $b -O large_dir
	case_one 64M -t ext2 -b $b -O quota
	case_one 64M -t ext2 -b $b -O quota,project
	case_one 64M -t ext2 -b $b -O project
	case_one 64M -t ext2 -b $b -O mmp
	case_one 64M -t ext3 -b $b -O fast_commit
	case_one 64M -t ext2 -b $b -O casefold
	case_one 64M -t ext2 -b $b -O ea_inode
	case_one 64M -t ext2 -b $b -O inline_data
	case_one 64M -t ext4 -b $b
	case_one 64M -t ext4 -b $b -O ^metadata_csum,uninit_bg
	for f in stable_inodes verity encrypt large_dir quota project \
		 mmp fast_commit casefold ea_inode inline_data; do
		case_one 64M -t ext4 -b $b -O $f
	done
	case_one 64M -t ext4 -b $b -O quota,project,mmp,fast_commit,casefold,encrypt,verity,large_dir,stable_inodes,ea_inode,inline_data
done
case_one 1G -t ext4 -b 65536 -O inline_data

# The options of these features.
case_one 1G E:orphan_file_size=1M -t ext4
case_one 1G E:orphan_file_size=100 -t ext4 -b 1024
case_one 1G E:orphan_file_size=4096s -t ext4
case_one 100M E:orphan_file_size=300 -t ext3 -O orphan_file -b 1024
case_one 64M E:quotatype=usrquota:grpquota:prjquota -t ext4 -O quota
case_one 64M E:quotatype=prjquota -t ext4 -O quota
case_one 64M E:quotatype=grpquota -t ext3 -O quota -b 1024
case_one 64M -t ext4 -T hurd -O quota,project
case_one 64M E:mmp_update_interval=17 -t ext4 -O mmp
case_one 64M E:encoding=utf8,encoding_flags=strict -t ext4
case_one 64M E:encoding=utf8-12.1 -t ext2
case_one 1G -t ext4 -O fast_commit -J fast_commit_size=512
case_one 1G -t ext4 -O fast_commit -J size=64,fast_commit_size=2048
case_one 1G -t ext4 -O fast_commit -J size=64
case_one 600G -t ext4 -O quota,project
case_one 20G -t ext4 -b 65536 -O quota,mmp
case_one 3M -t ext4
refused "orphan_file without a journal" -t ext2 -O orphan_file
refused "metadata_csum_seed without metadata_csum" -t ext2 -O metadata_csum_seed
refused "project quota in 128-byte inodes" -t ext4 -I 128 -O quota,project
refused "orphan_file_size=0" -t ext4 -E orphan_file_size=0
refused "encoding_flags without an encoding" -t ext4 -E encoding_flags=strict
refused "an unknown encoding" -t ext4 -E encoding=latin1
refused "inline_data in 128-byte inodes" -t ext4 -I 128 -O inline_data
refused "an unknown quota type" -t ext4 -O quota -E quotatype=fooquota
refused "mmp_update_interval over 300" -t ext4 -O mmp -E mmp_update_interval=301
# mke2fs 1.47.1 and later refuse it; 1.47.0 (CI's) takes it
rm -f "$img"
if run_mkfs "$tmpdir/out" "$tmpdir/err" -q -t ext2 -O verity "$img" 64M; then
	fail "verity without extents: extkit-mkfs takes it"
else
	ok "verity without extents: refused as by mke2fs 1.47.4 ($(head -1 "$tmpdir/err"))"
fi

# 1.47.4's cap: at most 512 orphan blocks whatever is asked (1.47.0
# makes 600).
rm -f "$img"
if run_mkfs "$tmpdir/out" "$tmpdir/err" -q -t ext3 -O orphan_file -b 1024 \
		-E orphan_file_size=600 "$img" 100M &&
   fsck_clean "orphan_file_size=600" "$img"; then
	n=$("$DEBUGFS" -R "stat <12>" "$img" 2>/dev/null |
		sed -n 's/.*Size: \([0-9]*\).*/\1/p' | head -1)
	[ "$n" = $((512 * 1024)) ] &&
		ok "orphan_file_size=600: capped at 512 blocks as mke2fs 1.47.4" ||
		fail "orphan_file_size=600: $n bytes, not 512 blocks"
fi

# Without a file, the built-in defaults are 1.47.4's file.
rm -f "$ref" "$img"
if "$MKE2FS" -q -F -U "$TEST_UUID" -E hash_seed=$TEST_SEED -t ext4 "$ref" 1G \
		>/dev/null 2>&1 &&
   MKE2FS_CONFIG=$tmpdir/none run_mkfs "$tmpdir/out" "$tmpdir/err" -q \
		-U "$TEST_UUID" -E hash_seed=$TEST_SEED -t ext4 "$img" 1G &&
   fsck_clean "built-in profile" "$img"; then
	layout "$ref" >"$tmpdir/ref.txt"
	layout "$img" >"$tmpdir/img.txt"
	uninit_147 "$tmpdir/ref.txt" "$tmpdir/img.txt"
	cmp -s "$tmpdir/ref.txt" "$tmpdir/img.txt" &&
		ok "no mke2fs.conf: the built-in ext4 is 1.47.4's (orphan_file, metadata_csum_seed)" ||
		fail "no mke2fs.conf: the built-in ext4 differs from 1.47.4's file"
else
	fail "built-in profile: $(head -1 "$tmpdir/err")"
fi

# Every type of the file, and each size class.
for t in ext2 ext3 ext4; do
	for u in small floppy big huge news largefile largefile4 hurd; do
		case_one 256M -t $t -T $u
	done
	for s in 2M 100M 1G; do
		case_one $s -t $t
	done
done

# -d: the quota files count the copied tree.
src=$tmpdir/src
mkdir -p "$src/d"
for n in 1 2 3 4 5 6 7 8 9 10 11 12; do
	echo "file $n" >"$src/d/f$n"
	chown "$n:$((n + 100))" "$src/d/f$n" 2>/dev/null
done
head -c 300000 /dev/zero >"$src/big"
for b in 1024 4096; do
	for o in quota quota,project; do
		rm -f "$img"
		d="-d with -t ext4 -b $b -O $o"
		if ! run_mkfs "$tmpdir/out" "$tmpdir/err" -q -t ext4 -b $b \
				-O $o -d "$src" "$img" 64M; then
			fail "$d: extkit-mkfs: $(head -1 "$tmpdir/err")"
		elif fsck_clean "$d" "$img"; then
			ok "$d: e2fsck -fn clean (quota usage counted)"
		fi
	done
done
finish
