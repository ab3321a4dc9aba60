#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# extkit-label against e2label, blkid and dumpe2fs: labels it sets are seen
# by e2fsprogs and libblkid, in the primary and the backup superblocks;
# labels e2label sets are read back; bad input is refused; UUIDs.
. "${top_srcdir:-.}/tests/lib.sh"
need_tools mke2fs e2label dumpe2fs e2fsck blkid
LABEL=$top_builddir/extkit-label
img=$tmpdir/l.img

label() { timeout -k 5 "$TIMEOUT" "$LABEL" "$@"; }

"$MKE2FS" -q -F -t ext2 -b 1024 "$img" 20M || exit 99
[ "$(label "$img")" = "" ] && ok "empty label prints an empty line" ||
	fail "empty label"

label "$img" data-disk || fail "setting a label failed"
[ "$("$E2LABEL" "$img")" = "data-disk" ] && ok "e2label sees the label" ||
	fail "e2label sees: $("$E2LABEL" "$img")"
[ "$("$BLKID" -o value -s LABEL "$img")" = "data-disk" ] &&
	ok "blkid sees the label" || fail "blkid"
bk=$("$DUMPE2FS" -o superblock=8193 -o blocksize=1024 -h "$img" 2>/dev/null |
	sed -n 's/^Filesystem volume name: *//p')
[ "$bk" = "data-disk" ] && ok "backup superblock at 8193 carries it" ||
	fail "backup carries '$bk'"
"$E2FSCK" -fn "$img" >/dev/null 2>&1 && ok "e2fsck -fn clean" ||
	fail "e2fsck after label"

"$E2LABEL" "$img" from-e2label
[ "$(label "$img")" = "from-e2label" ] && ok "reads e2label's label" ||
	fail "reads $(label "$img")"

label "$img" 0123456789abcdef && [ "$(label "$img")" = 0123456789abcdef ] &&
	ok "16-byte label" || fail "16-byte label"
# A truncated image: the label is printed, with a warning (as e2label);
# setting one is refused.
cp "$img" "$tmpdir/short.img"
truncate -s 300K "$tmpdir/short.img"
if [ "$(label "$tmpdir/short.img" 2>"$tmpdir/err")" = 0123456789abcdef ] &&
   grep -q 'warning: .*truncated' "$tmpdir/err" &&
   ! label "$tmpdir/short.img" other 2>/dev/null; then
	ok "truncated image: label printed with a warning, not set"
else
	fail "truncated image: $(cat "$tmpdir/err")"
fi

# A longer label is cut to 16 bytes with a warning, as e2label does.
cp "$img" "$tmpdir/e2.img"
if label "$img" 0123456789abcdefgh 2>"$tmpdir/err" &&
   "$E2LABEL" "$tmpdir/e2.img" 0123456789abcdefgh 2>/dev/null &&
   [ "$(label "$img")" = "$("$E2LABEL" "$tmpdir/e2.img")" ] &&
   [ "$(label "$img")" = 0123456789abcdef ] &&
   grep -q 'truncated' "$tmpdir/err"; then
	ok "18-byte label truncated with a warning, as e2label: $(cat "$tmpdir/err")"
else
	fail "18-byte label: '$(label "$img")'; $(cat "$tmpdir/err")"
fi

u=01234567-89ab-cdef-0123-456789abcdef
label --uuid "$u" "$img" && [ "$(label --uuid "$img")" = "$u" ] &&
	[ "$("$BLKID" -o value -s UUID "$img")" = "$u" ] &&
	ok "UUID set and seen by blkid" || fail "UUID set"
"$E2FSCK" -fn "$img" >/dev/null 2>&1 && ok "e2fsck clean after UUID" ||
	fail "e2fsck after UUID"
label --uuid random "$img" && [ "$(label --uuid "$img")" != "$u" ] &&
	ok "random UUID" || fail "random UUID"
label --uuid not-a-uuid "$img" 2>/dev/null && fail "bad UUID accepted" ||
	ok "bad UUID refused"

# ext4 with metadata_csum: label fine (checksum rewritten)
"$MKE2FS" -q -F -t ext4 -O metadata_csum,^metadata_csum_seed "$img" 32M ||
	exit 99
label "$img" ext4label && "$E2FSCK" -fn "$img" >/dev/null 2>&1 &&
	[ "$("$E2LABEL" "$img")" = ext4label ] &&
	ok "metadata_csum label, e2fsck clean" || fail "metadata_csum label"
# The UUID of a metadata_csum filesystem with --keep-csum-seed: the old
# seed is kept in s_checksum_seed (metadata_csum_seed), as tune2fs can do
# it (without it every checksum is rewritten: csum_rewrite.sh).
if label --keep-csum-seed --uuid "$u" "$img" 2>"$tmpdir/err" &&
   [ "$("$BLKID" -o value -s UUID "$img")" = "$u" ] &&
   "$DUMPE2FS" -h "$img" 2>/dev/null | grep -q 'features:.*metadata_csum_seed' &&
   "$E2FSCK" -fn "$img" >"$tmpdir/e2" 2>&1; then
	ok "UUID change on metadata_csum keeps the seed, e2fsck clean"
else
	fail "UUID change on metadata_csum"
	sed 's/^/    /' "$tmpdir/err" "$tmpdir/e2" | head
fi
if [ "$(id -u)" -eq 0 ] && mkdir "$tmpdir/mnt" &&
   mount -o loop,ro "$img" "$tmpdir/mnt" 2>/dev/null; then
	umount "$tmpdir/mnt"
	ok "the kernel mounts it after the UUID change"
fi
"$MKE2FS" -q -F -t ext4 -O metadata_csum_seed "$img" 32M || exit 99
label --uuid random "$img" && "$E2FSCK" -fn "$img" >/dev/null 2>&1 &&
	ok "UUID change with metadata_csum_seed, e2fsck clean" ||
	fail "UUID with csum seed"

# A write that fails half-way (the file size limit makes writes past
# 24 MiB fail: the backup in group 1 is written, the one in group 3 is
# not): exit 1, and the primary superblock, written last, keeps the old
# label, which e2label reads; e2fsck finds the filesystem clean.
"$MKE2FS" -q -F -t ext2 -b 1024 "$img" 64M || exit 99
label "$img" before || fail "setting a label failed"
(trap '' XFSZ; ulimit -f 49152 && exec "$LABEL" "$img" after) \
	2>"$tmpdir/err"
rc=$?
bk1=$("$DUMPE2FS" -o superblock=8193 -o blocksize=1024 -h "$img" 2>/dev/null |
	sed -n 's/^Filesystem volume name: *//p')
if [ "$rc" -eq 1 ] && [ "$("$E2LABEL" "$img")" = before ] &&
   [ "$bk1" = after ] && "$E2FSCK" -fn "$img" >/dev/null 2>&1 &&
   grep -q "label not changed: the primary superblock keeps the old" \
	"$tmpdir/err"; then
	ok "backup write fails: exit 1, label not changed, said so"
else
	fail "backup write fails: exit $rc, label $("$E2LABEL" "$img"), \
backup 1 '$bk1'"
	cat "$tmpdir/err"
fi

label 2>/dev/null && fail "no target accepted" || ok "no target refused"
label "$tmpdir/missing" 2>/dev/null && fail "missing file" ||
	ok "missing file refused"
head -c 65536 /dev/zero >"$tmpdir/zero"
label "$tmpdir/zero" 2>"$tmpdir/err" && fail "zero image accepted" ||
	ok "not ext2: $(cat "$tmpdir/err")"
finish
