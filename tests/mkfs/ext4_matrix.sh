#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# ext3/ext4 from extkit-mkfs against mke2fs -t ext3/ext4 with the same
# options on the same size (new sparse files): e2fsck -fn exits 0 and
# dumpe2fs (every group line and every -h field) is the same, checksums
# included. Block sizes 1, 2, 4 and 64 KiB; inode sizes 128, 256, 1024;
# with and without metadata_csum, 64bit, flex_bg (several -G),
# has_journal, meta_bg (asked for, and automatic past what resize_inode
# covers), sparse_super2, -E packed_meta_blocks (with and without
# flex_bg); 1 MiB to 64 TiB (16 TiB and up on tmpfs, whose
# files may be that large). EXTKIT_LONG_TESTS=1 adds the slow sizes.
#
# Fields that differ on purpose, filtered out of the comparison:
#  - Lifetime writes (s_kbytes_written): mke2fs counts the bytes it
#    wrote; extkit-mkfs leaves it 0 (the kernel counts from mount on).
#  - Checksum (the superblock's): it covers s_kbytes_written.
#  - Journal features, Journal checksum type, Journal checksum: extkit's
#    new journal has csum v3 (crc32c) with metadata_csum and 64-bit
#    block numbers with 64bit from the start (issue 14); mke2fs 1.47
#    leaves both for the kernel to set at the first mount.
#  - With mke2fs older than 1.47.1 (CI's 1.47.0): the BLOCK_UNINIT flag
#    of groups holding a superblock backup, and those groups' checksums
#    (uninit_147 in mkfs-lib.sh): extkit-mkfs follows 1.47.4.
. "${top_srcdir:-.}/tests/lib.sh"
. "$top_srcdir/tests/mkfs/mkfs-lib.sh"
need_tools e2fsck dumpe2fs mke2fs

MKE2FS_CONFIG=$top_srcdir/tests/mkfs/mke2fs-ext4.conf
export MKE2FS_CONFIG
TIMEOUT=${TIMEOUT_LONG:-120}
big=/dev/shm
[ -d "$big" ] && [ -w "$big" ] || big=

# layout IMAGE: dumpe2fs less what differs on purpose (see the top).
# Past 4096 groups: -h and the table places of every group (-g), as a
# full dumpe2fs takes half a minute there; e2fsck checks the counts.
layout() {
	if [ "$(sb_field "$1" 'Block count')" -gt $((4096 * 32768)) ]; then
		"$DUMPE2FS" -h "$1" 2>/dev/null
		"$DUMPE2FS" -g "$1" 2>/dev/null
	else
		"$DUMPE2FS" "$1" 2>/dev/null
	fi | grep -v '^Lifetime writes:\|^Checksum:\|^Journal features:\|^Journal checksum'
}

# case_one DIR SIZE [E:EXTENDED] ARGS...: mke2fs takes one -E (the last),
# so extended options join the hash seed in one.
case_one() {
	dir=$1
	size=$2
	shift 2
	ext=hash_seed=$TEST_SEED
	case $1 in
	E:*) ext=$ext,${1#E:}; shift ;;
	esac
	desc="$size $* ${ext#hash_seed=$TEST_SEED}"
	ref=$dir/extkit-m-ref.$$.img
	img=$dir/extkit-m-img.$$.img
	rm -f "$ref" "$img"
	# mke2fs and its dumpe2fs run beside extkit-mkfs and e2fsck (the
	# wall time of the test halves on two CPUs)
	( timeout -k 5 "$TIMEOUT" "$MKE2FS" -q -F -U "$TEST_UUID" \
		-E "$ext" "$@" "$ref" "$size" >"$tmpdir/mke2fs.err" 2>&1 &&
	  layout "$ref" >"$tmpdir/ref.txt" ) &
	refjob=$!
	run_mkfs "$tmpdir/out" "$tmpdir/err" -q -U "$TEST_UUID" \
		-E "$ext" "$@" "$img" "$size"
	mkfs_rc=$?
	wait $refjob
	ref_rc=$?
	if [ $ref_rc != 0 ]; then
		fail "$desc: mke2fs: $(head -1 "$tmpdir/mke2fs.err")"
	elif [ $mkfs_rc != 0 ]; then
		fail "$desc: extkit-mkfs: $(head -3 "$tmpdir/err")"
	elif fsck_clean "$desc" "$img"; then
		layout "$img" >"$tmpdir/img.txt"
		uninit_147 "$tmpdir/ref.txt" "$tmpdir/img.txt"
		if cmp -s "$tmpdir/ref.txt" "$tmpdir/img.txt"; then
			ok "$desc: e2fsck clean, layout as mke2fs ($(grep -c '^Group\|^[0-9]*:' "$tmpdir/img.txt") groups)"
		else
			fail "$desc: layout differs from mke2fs"
			diff "$tmpdir/ref.txt" "$tmpdir/img.txt" | head -12 |
				sed 's/^/    /'
		fi
	fi
	rm -f "$ref" "$img"
}

t=$tmpdir
case_one "$t" 1M -t ext4
case_one "$t" 3M -t ext4 -O ^metadata_csum
case_one "$t" 33M -t ext3 -b 1024
case_one "$t" 64M -t ext4 -I 128 -G 4
case_one "$t" 100M -t ext4 -b 2048 -O ^64bit
case_one "$t" 700M -t ext4 -I 1024 -O sparse_super2
case_one "$t" 1G -t ext4 -b 65536
case_one "$t" 1100M E:stride=7 -t ext3
case_one "$t" 2G -t ext4
case_one "$t" 2G -t ext4 -O meta_bg,^resize_inode -G 64
case_one "$t" 2G E:packed_meta_blocks=1 -t ext4 -b 1024 -G 4
case_one "$t" 1G E:packed_meta_blocks -t ext4 -O ^flex_bg
case_one "$t" 2049M E:num_backup_sb=1 -t ext4 -O sparse_super2
case_one "$t" 5G E:stride=16,stripe_width=32 -t ext4 -O ^flex_bg
case_one "$t" 8G -t ext4 -b 1024 -O ^has_journal
case_one "$t" 20G -t ext4 -O ^64bit,^metadata_csum -J size=100
case_one "$t" 300G E:resize=200000000 -t ext4 -G 2 -T news
case_one "$t" 130G -t ext4 -O ^flex_bg
case_one "$t" 1T -t ext4
if [ -n "$big" ]; then
	case_one "$big" 16T -t ext4
	if [ "${EXTKIT_LONG_TESTS:-0}" = 1 ]; then
		case_one "$big" 64T -t ext4
		case_one "$t" 1600G -t ext4 -b 1024
	fi
else
	echo "note: no writable /dev/shm, sizes of 16 TiB and up skipped"
fi
finish
