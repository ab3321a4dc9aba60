#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The library's new empty journal (lib/journal_new.c) against mke2fs's:
# an image made by mke2fs without a journal gets one from extkit (the
# journal_new unit suite with EXTKIT_TEST_JOURNAL_IMAGE), and the same
# mke2fs command with a journal is the reference. Equal: the journal's
# block map (debugfs stat <8>), dumpe2fs's journal lines and every group
# line; e2fsck -fn exits 0. A metadata_csum image gets a csum v3 journal
# that e2fsck accepts and dumpe2fs shows.
. "${top_srcdir:-.}/tests/lib.sh"
. "$top_srcdir/tests/mkfs/mkfs-lib.sh"
need_tools e2fsck dumpe2fs debugfs mke2fs

CHECK_ALL=$top_builddir/tests/unit/check-all
[ -x "$CHECK_ALL" ] || skip "tests/unit/check-all not built"
MKE2FS_CONFIG=/etc/mke2fs.conf
[ -r "$MKE2FS_CONFIG" ] || skip "no /etc/mke2fs.conf"

# add_journal IMAGE CSUM: extkit adds the default journal.
add_journal() {
	EXTKIT_TEST_JOURNAL_IMAGE=$1 EXTKIT_TEST_JOURNAL_CSUM=$2 \
	CK_RUN_SUITE=journal_new CK_RUN_CASE=core \
		timeout -k 5 "$TIMEOUT" "$CHECK_ALL" >"$tmpdir/ck.out" 2>&1
}

# summary IMAGE: what must match (no UUIDs, times, checksums).
summary() {
	"$DEBUGFS" -R 'stat <8>' "$1" 2>/dev/null |
		sed -n '/^\(EXTENTS\|BLOCKS\):/,$p; s/^Links.*Blockcount/&/p'
	"$DUMPE2FS" "$1" 2>/dev/null |
		grep -v -i 'uuid\|time\|csum\|checksum\|Lifetime\|Last \|created\|Hash Seed'
}

# one DESC SIZE MKE2FS-ARGS...
one() {
	desc=$1
	size=$2
	shift 2
	ref=$tmpdir/ref.img
	img=$tmpdir/img.img
	rm -f "$ref" "$img"
	"$MKE2FS" -q -F -U "$TEST_UUID" "$@" "$ref" "$size" >/dev/null 2>&1 &&
	"$MKE2FS" -q -F -U "$TEST_UUID" "$@" -O ^has_journal "$img" "$size" \
		>/dev/null 2>&1 || { fail "$desc: mke2fs"; return; }
	if ! add_journal "$img" 0; then
		fail "$desc: journal_create"; sed 's/^/    /' "$tmpdir/ck.out"
		return
	fi
	fsck_clean "$desc" "$img" || return
	summary "$ref" >"$tmpdir/ref.sum"
	summary "$img" >"$tmpdir/img.sum"
	if diff -u "$tmpdir/ref.sum" "$tmpdir/img.sum" >"$tmpdir/diff"; then
		ok "$desc: journal and groups as mke2fs"
	else
		fail "$desc: differs from mke2fs"
		head -30 "$tmpdir/diff" | sed 's/^/    /'
	fi
}

DEBUGFS=$(command -v debugfs)
one "ext3 1k 64M (block map)" 64M -t ext3 -b 1024
one "ext3 4k 1G (block map)" 1G -t ext3
one "ext3 4k 300M (block map)" 300M -t ext3
one "ext4 no csum 2G (flex_bg)" 2G -t ext4 -O ^metadata_csum,^uninit_bg
one "ext4 no csum, no flex_bg 1G" 1G -t ext4 -O ^metadata_csum,^flex_bg
one "ext4 2k 100M" 100M -t ext4 -b 2048 -O ^metadata_csum

# metadata_csum + 64bit: a csum v3 journal e2fsck accepts.
img=$tmpdir/csum.img
rm -f "$img"
"$MKE2FS" -q -F -U "$TEST_UUID" -t ext4 -O ^has_journal "$img" 256M \
	>/dev/null 2>&1 || fail "mke2fs csum"
if add_journal "$img" 1; then
	fsck_clean "csum v3 journal" "$img" && ok "csum v3 journal: e2fsck -fn"
	feat=$(sb_field "$img" "Journal features")
	ctype=$(sb_field "$img" "Journal checksum type")
	size=$(sb_field "$img" "Total journal blocks")
	if [ "$feat" = "journal_64bit journal_checksum_v3" ] &&
	   [ "$ctype" = crc32c ] && [ "$size" = 8192 ]; then
		ok "csum v3 journal: $feat, $ctype, $size blocks"
	else
		fail "csum v3 journal: features '$feat' type '$ctype' size '$size'"
	fi
else
	fail "csum journal_create"; sed 's/^/    /' "$tmpdir/ck.out"
fi
finish
