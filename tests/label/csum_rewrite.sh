#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# extkit-label -U on metadata_csum (without metadata_csum_seed) rewrites
# every checksum with the new UUID (issue 33). Images mke2fs makes, then
# debugfs fills and e2fsck -fyD indexes: an htree directory, a file whose
# extent tree has depth 1, EA blocks, inline data, the orphan file, quota
# (1 KiB blocks, 3 groups) and MMP and project quota (4 KiB blocks). For
# each:
#   e2fsck -fn clean after the change, dumpe2fs shows the new UUID and no
#   metadata_csum_seed; tune2fs -U with the same UUID on a copy gives the
#   same bytes but for: the superblock copies' s_wtime, s_kbytes_written
#   and checksum; the journal's log blocks (extkit's transaction stays
#   there, the log is empty); the MMP block (sequence and time); the
#   orphan file's blocks, whose checksums tune2fs 1.47 leaves stale (its
#   e2fsck then reports "Orphan file ... block 0 is not clean");
#   the kernel mounts it and reads the files back (where it mounts the
#   image at all: a kernel without CONFIG_QUOTA refuses quota images).
# Cut short at every write (a test build: EXTKIT_TEST_STOP_AFTER_WRITES,
# lib/io.c), a small 1 KiB image is checked at every point N:
#   the UUID dumpe2fs reads is wholly the old or the new one; e2fsck -fn
#   finds it clean, or else needs_recovery is set (a committed journal
#   transaction, or one not yet committed over an empty log);
#   extkit-label run again finishes it: exit 0, e2fsck -fn clean, the new
#   UUID; extkit-fsck -fy replays it (e2fsck -fn clean, one UUID);
#   e2fsck -fy too replays it (old UUID before the commit
#   point, new after) and e2fsck -fn is clean, at every point but one:
#   between the in-place writes of the journal inode's block and of the
#   primary superblock (man/extkit-label.8 says why: run extkit-label
#   again there).
. "${top_srcdir:-.}/tests/lib.sh"
need_tools mke2fs dumpe2fs e2fsck debugfs tune2fs
command -v python3 >/dev/null 2>&1 || skip "python3 not found"
LABEL=$top_builddir/extkit-label
NEW=0b7e4a1c-2f3d-4e5a-9b6c-7d8e9f0a1b2c
label() { timeout -k 5 "$TIMEOUT" "$LABEL" "$@"; }
uuid_of() { "$DUMPE2FS" -h "$1" 2>/dev/null | sed -n 's/^Filesystem UUID: *//p'; }
features_of() { "$DUMPE2FS" -h "$1" 2>/dev/null | sed -n 's/^Filesystem features: *//p'; }

# populate IMG NFILES: debugfs writes, e2fsck -fyD builds the indexes.
populate() {
	printf 'tiny\n' >"$tmpdir/tiny"
	: >"$tmpdir/sparse"
	for i in 0 2 4 6 8 10 12 14; do
		dd if=/dev/urandom of="$tmpdir/sparse" bs=4096 count=1 \
			seek=$i conv=notrunc 2>/dev/null
	done
	{
		echo "mkdir big"
		echo "mkdir small"
		i=1
		while [ $i -le "$2" ]; do
			echo "write $tmpdir/tiny big/file_with_a_longish_name_$i"
			i=$((i + 1))
		done
		echo "write $tmpdir/tiny small/inl"
		echo "write $tmpdir/sparse sparse"
		echo "write $tmpdir/tiny eafile"
		echo "ea_set eafile user.x $(head -c 600 /dev/zero | tr '\0' x)"
	} >"$tmpdir/cmds"
	"$DEBUGFS" -w -f "$tmpdir/cmds" "$1" >/dev/null 2>&1 || exit 99
	"$E2FSCK" -fyD "$1" >/dev/null 2>&1
	"$E2FSCK" -fn "$1" >/dev/null 2>&1 || exit 99
}

# shape IMG: what the image must hold for the test to mean anything.
shape() {
	"$DEBUGFS" -R "htree big" "$1" 2>/dev/null | grep -q 'Root node' &&
	"$DEBUGFS" -R "stat sparse" "$1" 2>/dev/null | grep -q 'ETB0' &&
	"$DEBUGFS" -R "stat eafile" "$1" 2>/dev/null |
		grep -q 'File ACL: [1-9]' &&
	"$DEBUGFS" -R "stat small/inl" "$1" 2>/dev/null |
		grep -q 'Size of inline data'
}

# blocks_of IMG INO: the blocks of inode INO (map blocks included).
blocks_of() {
	"$DEBUGFS" -R "blocks <$2>" "$1" 2>/dev/null | tr ' ' '\n' | grep .
}

# same_as_tune2fs A B BS: A (extkit) and B (tune2fs) differ only where
# the header says.
same_as_tune2fs() {
	orphan=$("$DUMPE2FS" -h "$1" 2>/dev/null |
		sed -n 's/^Orphan file inode: *//p')
	{
		blocks_of "$1" 8
		[ -z "$orphan" ] || blocks_of "$1" "$orphan"
		"$DUMPE2FS" -h "$1" 2>/dev/null | sed -n 's/^MMP block number: *//p'
	} >"$tmpdir/allowed"
	"$DUMPE2FS" "$1" 2>/dev/null |
		sed -n 's/.*superblock at \([0-9]*\).*/\1/p' >"$tmpdir/supers"
	python3 - "$1" "$2" "$3" "$tmpdir/allowed" "$tmpdir/supers" <<'EOF'
import sys
a, b = open(sys.argv[1], 'rb').read(), open(sys.argv[2], 'rb').read()
bs = int(sys.argv[3])
allowed = {int(x) for x in open(sys.argv[4]).read().split()}
sb_off = {(1024 if int(x) == 0 else int(x) * bs) for x in open(sys.argv[5]).read().split()}
fields = set(range(0x30, 0x34)) | set(range(0x178, 0x180)) | set(range(0x3fc, 0x400))
bad = 0
for i in range(0, len(a), bs):
    if a[i:i + bs] == b[i:i + bs] or i // bs in allowed:
        continue
    for j in range(bs):
        if a[i + j] == b[i + j]:
            continue
        o = i + j
        base = max((s for s in sb_off if s <= o), default=None)
        if base is None or o - base >= 1024 or (o - base) not in fields:
            if bad < 5:
                print("    differs at byte %d (block %d)" % (o, o // bs))
            bad += 1
sys.exit(1 if bad else 0)
EOF
}

# kernel_reads ORIG NEW NAME: where the kernel mounts ORIG, it mounts NEW
# and reads the same files; where it mounts ORIG read-write (a kernel
# without CONFIG_QUOTA does not, for quota), NEW too, and writes to it.
kernel_reads() {
	[ "$(id -u)" -eq 0 ] || return 0
	use_mount_point
	mount -o loop,ro "$1" "$mnt" 2>/dev/null || return 0
	want=$(ls "$mnt/big" | wc -l; cat "$mnt/small/inl"; md5sum <"$mnt/sparse")
	umount "$mnt"
	if mount -o loop,ro "$2" "$mnt" 2>/dev/null; then
		got=$(ls "$mnt/big" | wc -l; cat "$mnt/small/inl"; md5sum <"$mnt/sparse")
		umount "$mnt"
		[ "$got" = "$want" ] && ok "$3: the kernel mounts it, reads the files" ||
			fail "$3: the kernel reads back something else"
	else
		fail "$3: the kernel refuses the rewritten image"
	fi
	mount -o loop "$1" "$mnt" 2>/dev/null || return 0
	umount "$mnt"
	if mount -o loop "$2" "$mnt" 2>/dev/null; then
		echo new >"$mnt/written"
		umount "$mnt"
		"$E2FSCK" -fn "$2" >/dev/null 2>&1 &&
			ok "$3: the kernel writes to it, e2fsck -fn clean after" ||
			fail "$3: e2fsck after the kernel wrote"
	else
		fail "$3: the kernel refuses it read-write"
	fi
}

check_image() {	# NAME BLOCKSIZE SIZE MKE2FS-OPTIONS...
	name=$1 bs=$2 size=$3
	shift 3
	img=$tmpdir/$name.img
	"$MKE2FS" -q -F -t ext4 -b "$bs" "$@" "$img" "$size" || exit 99
	populate "$img" 300
	shape "$img" || { fail "$name: the image lacks htree, extent tree, EA block or inline data"; return; }
	cp "$img" "$tmpdir/t.img"
	cp "$img" "$tmpdir/o.img"
	if label -u "$NEW" "$img" 2>"$tmpdir/err" &&
	   "$E2FSCK" -fn "$img" >"$tmpdir/e2" 2>&1 &&
	   [ "$(uuid_of "$img")" = "$NEW" ] &&
	   ! features_of "$img" | grep -q metadata_csum_seed; then
		ok "$name: e2fsck -fn clean, the new UUID, no metadata_csum_seed"
	else
		fail "$name: the rewrite"
		sed 's/^/    /' "$tmpdir/err" "$tmpdir/e2" | head
	fi
	"$TUNE2FS" -U "$NEW" "$tmpdir/t.img" >/dev/null 2>&1 || exit 99
	same_as_tune2fs "$img" "$tmpdir/t.img" "$bs" &&
		ok "$name: the same image as tune2fs -U (but times, log, MMP, orphan file)" ||
		fail "$name: differs from tune2fs -U's"
	kernel_reads "$tmpdir/o.img" "$img" "$name"
}

check_image 1k 1024 20M -O metadata_csum,^metadata_csum_seed,inline_data,orphan_file,quota
check_image 4k 4096 64M -I 256 -O metadata_csum,^metadata_csum_seed,inline_data,orphan_file,quota,project,mmp
check_image 4k-noquota 4096 32M -O metadata_csum,^metadata_csum_seed,inline_data,orphan_file

# An EA block shared by several inodes (the kernel shares equal ones):
# rewritten once, found rewritten by its other owners.
img=$tmpdir/shared.img
"$MKE2FS" -q -F -t ext4 -b 1024 -O metadata_csum,^metadata_csum_seed "$img" 8M || exit 99
if [ "$(id -u)" -eq 0 ] && command -v setfattr >/dev/null 2>&1 &&
   use_mount_point && mount -o loop "$img" "$mnt" 2>/dev/null; then
	v=$(head -c 600 /dev/zero | tr '\0' y)
	for i in 1 2 3; do
		echo "$i" >"$mnt/s$i" && setfattr -n user.big -v "$v" "$mnt/s$i"
	done
	umount "$mnt"
	acls=$(for i in 1 2 3; do "$DEBUGFS" -R "stat s$i" "$img" 2>/dev/null |
		sed -n 's/.*File ACL: \([0-9]*\).*/\1/p'; done | sort -u)
	if [ "$(echo "$acls" | wc -l)" -eq 1 ] && [ "$acls" != 0 ] &&
	   label -u "$NEW" "$img" && "$E2FSCK" -fn "$img" >/dev/null 2>&1; then
		ok "an EA block shared by 3 inodes: e2fsck -fn clean"
	else
		fail "shared EA block ($acls)"
	fi
fi

# ea_inode: values in EA inodes, whose value hash (i_atime) and the
# entries' e_hash are seeded too; the same bytes as tune2fs -U.
img=$tmpdir/eaino.img
"$MKE2FS" -q -F -t ext4 -b 4096 -I 256 -O metadata_csum,^metadata_csum_seed,ea_inode "$img" 32M || exit 99
head -c 30000 /dev/urandom >"$tmpdir/big.bin"
printf 'x\n' >"$tmpdir/x"
# (debugfs 1.47.0 does not charge the EA inode's blocks to the owner's
# i_blocks as the kernel does: e2fsck -fy adds them)
# (six entries on f1: some in its body, the rest in an EA block)
for c in "write $tmpdir/x f1" "ea_set -f $tmpdir/big.bin f1 user.big" \
	 "ea_set -f $tmpdir/big.bin / user.big2" \
	 "ea_set -f $tmpdir/big.bin f1 user.big_number_3" \
	 "ea_set -f $tmpdir/big.bin f1 user.big_number_4" \
	 "ea_set -f $tmpdir/big.bin f1 user.big_number_5" \
	 "ea_set -f $tmpdir/big.bin f1 user.big_number_6"; do
	"$DEBUGFS" -w -R "$c" "$img" >/dev/null 2>&1
done
"$E2FSCK" -fy "$img" >/dev/null 2>&1
"$E2FSCK" -fn "$img" >/dev/null 2>&1 || exit 99
cp "$img" "$tmpdir/t.img"
if "$DEBUGFS" -R "stat <13>" "$img" 2>/dev/null | grep -q 'Flags: 0x2[0-9a-f]*0000' &&
   "$DEBUGFS" -R "stat f1" "$img" 2>/dev/null | grep -q 'File ACL: [1-9]' &&
   label -u "$NEW" "$img" 2>"$tmpdir/err" && "$E2FSCK" -fn "$img" >/dev/null 2>&1 &&
   "$TUNE2FS" -U "$NEW" "$tmpdir/t.img" >/dev/null 2>&1 &&
   same_as_tune2fs "$img" "$tmpdir/t.img" 4096; then
	ok "ea_inode: e2fsck -fn clean, the same image as tune2fs -U"
else
	fail "ea_inode"
	sed 's/^/    /' "$tmpdir/err"
fi

# --keep-csum-seed: one superblock write, the seed kept.
img=$tmpdir/seed.img
"$MKE2FS" -q -F -t ext4 -O metadata_csum,^metadata_csum_seed "$img" 16M || exit 99
label --keep-csum-seed -u "$NEW" "$img" 2>/dev/null &&
	features_of "$img" | grep -q metadata_csum_seed &&
	"$E2FSCK" -fn "$img" >/dev/null 2>&1 &&
	ok "--keep-csum-seed sets metadata_csum_seed, e2fsck clean" ||
	fail "--keep-csum-seed"
# No journal: refused (nothing written), --keep-csum-seed suggested.
"$MKE2FS" -q -F -t ext4 -O metadata_csum,^metadata_csum_seed,^has_journal "$img" 16M || exit 99
cp "$img" "$tmpdir/before.img"
if ! label -u "$NEW" "$img" 2>"$tmpdir/err" &&
   grep -q 'keep-csum-seed' "$tmpdir/err" && cmp -s "$img" "$tmpdir/before.img"; then
	ok "no journal: refused before any write"
else
	fail "no journal"
	sed 's/^/    /' "$tmpdir/err"
fi

# A journal too small for the transaction (1 MiB, 5,000 inodes in use):
# refused before any write, the plan stopped as soon as it outgrew it.
"$MKE2FS" -q -F -t ext4 -b 1024 -J size=1 -N 8000 -O metadata_csum,^metadata_csum_seed "$img" 64M || exit 99
i=1
while [ $i -le 5000 ]; do echo "write $tmpdir/tiny f$i"; i=$((i + 1)); done >"$tmpdir/cmds"
"$DEBUGFS" -w -f "$tmpdir/cmds" "$img" >/dev/null 2>&1 || exit 99
cp "$img" "$tmpdir/before.img"
if ! label -u "$NEW" "$img" 2>"$tmpdir/err" &&
   grep -q 'journal is too small' "$tmpdir/err" && cmp -s "$img" "$tmpdir/before.img"; then
	ok "a journal too small: refused before any write"
else
	fail "a journal too small"
	sed 's/^/    /' "$tmpdir/err"
fi

# Every interruption point, on a small image.
img=$tmpdir/int.img
"$MKE2FS" -q -F -t ext4 -b 1024 -O metadata_csum,^metadata_csum_seed,inline_data,orphan_file "$img" 8M || exit 99
populate "$img" 60
OLD=$(uuid_of "$img")
cp "$img" "$tmpdir/w.img"
W=$(EXTKIT_TEST_COUNT_WRITES=1 label -u "$NEW" "$tmpdir/w.img" 2>&1 |
	sed -n 's/^extkit-test: \([0-9]*\) writes$/\1/p')
[ -n "$W" ] || { echo "no test hooks: the interruption points are not checked"; finish; }
# interrupt_at N: the checks at point N on a copy of $img ($bad set on
# a failure).
interrupt_at() {
	n=$1
	cp "$img" "$tmpdir/w.img"
	EXTKIT_TEST_STOP_AFTER_WRITES=$n timeout -k 5 "$TIMEOUT" "$LABEL" \
		-u "$NEW" "$tmpdir/w.img" >/dev/null 2>&1
	[ $? -eq 99 ] || { fail "point $n: not stopped"; bad=1; return; }
	u=$(uuid_of "$tmpdir/w.img")
	[ "$u" = "$OLD" ] || [ "$u" = "$NEW" ] || { fail "point $n: UUID $u"; bad=1; }
	if ! "$E2FSCK" -fn "$tmpdir/w.img" >/dev/null 2>&1 &&
	   ! features_of "$tmpdir/w.img" | grep -q needs_recovery; then
		fail "point $n: not clean and no needs_recovery"; bad=1
	fi
	cp "$tmpdir/w.img" "$tmpdir/r.img"
	if ! label -u "$NEW" "$tmpdir/r.img" >/dev/null 2>&1 ||
	   ! "$E2FSCK" -fn "$tmpdir/r.img" >/dev/null 2>&1 ||
	   [ "$(uuid_of "$tmpdir/r.img")" != "$NEW" ]; then
		fail "point $n: a second run does not finish it"; bad=1
	fi
	cp "$tmpdir/w.img" "$tmpdir/r.img"
	timeout -k 5 "$TIMEOUT" "$top_builddir/extkit-fsck" -fy "$tmpdir/r.img" >/dev/null 2>&1
	u=$(uuid_of "$tmpdir/r.img")
	if ! "$E2FSCK" -fn "$tmpdir/r.img" >/dev/null 2>&1 ||
	   { [ "$u" != "$OLD" ] && [ "$u" != "$NEW" ]; }; then
		fail "point $n: extkit-fsck -fy does not replay it"; bad=1
	fi
	if [ $n -ne $((W - 2)) ]; then
		"$E2FSCK" -fy "$tmpdir/w.img" >/dev/null 2>&1
		u=$(uuid_of "$tmpdir/w.img")
		if ! "$E2FSCK" -fn "$tmpdir/w.img" >/dev/null 2>&1 ||
		   { [ "$u" != "$OLD" ] && [ "$u" != "$NEW" ]; }; then
			fail "point $n: e2fsck -fy does not replay it"; bad=1
		fi
	fi
}
bad=0
i=1
while [ $i -lt "$W" ] && [ $bad -eq 0 ]; do
	interrupt_at $i
	i=$((i + 1))
done
[ $bad -eq 0 ] && ok "all $W interruption points: one UUID, finished by a rerun, replayed by extkit-fsck -fy and e2fsck -fy"

# A journal the kernel has used (journal_checksum_v3: tags, descriptors
# and commit blocks carry checksums): every 7th point and the last ones.
[ "$(id -u)" -eq 0 ] || finish
use_mount_point
mount -o loop "$img" "$mnt" 2>/dev/null || finish
echo x >"$mnt/x"
umount "$mnt"
"$DUMPE2FS" -h "$img" 2>/dev/null | grep -q 'Journal features:.*checksum_v3' ||
	finish
OLD=$(uuid_of "$img")
cp "$img" "$tmpdir/w.img"
W=$(EXTKIT_TEST_COUNT_WRITES=1 label -u "$NEW" "$tmpdir/w.img" 2>&1 |
	sed -n 's/^extkit-test: \([0-9]*\) writes$/\1/p')
i=1
while [ $i -lt "$W" ] && [ $bad -eq 0 ]; do
	interrupt_at $i
	if [ $i -ge $((W - 5)) ]; then i=$((i + 1)); else i=$((i + 7)); fi
done
[ $bad -eq 0 ] && ok "journal_checksum_v3: sampled interruption points as above"
finish
