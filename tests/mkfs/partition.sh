#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# extkit-mkfs into a whole-disk image (issues 33 and 35):
# - -E offset=BYTES as mke2fs: the same layout as mke2fs -E offset= on
#   the same arguments (dumpe2fs of the region), the bytes before and
#   after the region unchanged, a new file grown to offset + SIZE;
# - IMAGE@N and --partition N on a GPT image made by sfdisk with three
#   partitions: the middle one formatted and filled from a tree, sized to
#   the partition; the other partitions and the tables byte-identical;
#   e2fsck -fn clean; the same bytes by IMAGE@N, --partition and -E
#   offset= at the partition's start;
# - a SIZE larger than the partition and a tree (or an archive) too
#   large for it are errors before anything is written;
# - the kernel mounts the partition through a partitioned loop device
#   and the tree compares equal (skipped where loop devices are refused);
#   where the kernel's own scan finds no partitions, partx -a adds them
#   (BLKPG), else a loop device on the partition's bytes (losetup -o) is
#   used; the test says which.
. "${top_srcdir:-.}/tests/lib.sh"
. "$top_srcdir/tests/mkfs/mkfs-lib.sh"
need_tools e2fsck dumpe2fs mke2fs sfdisk

export SOURCE_DATE_EPOCH=1700000000 E2FSPROGS_FAKE_TIME=1700000000
MKE2FS_CONFIG=$top_srcdir/tests/mkfs/mke2fs-1.47.4.conf
export MKE2FS_CONFIG
MB=1048576

# region IMAGE START LEN OUT: bytes [START, START + LEN) of IMAGE.
region() {
	dd if="$1" of="$4" iflag=skip_bytes,count_bytes skip="$2" \
		count="$3" bs=1M status=none
}

# outside IMAGE START LEN: sha256 of everything but [START, START + LEN).
outside() {
	{ head -c "$2" "$1"; tail -c +$(($2 + $3 + 1)) "$1"; } |
		sha256sum | cut -d' ' -f1
}

# layout FS: dumpe2fs without what differs between two runs.
layout() {
	"$DUMPE2FS" "$1" 2>/dev/null | grep -v -i \
		-e uuid -e time -e checksum -e 'hash seed' -e lifetime \
		-e created -e 'mount count' -e 'last ' -e csum -e 'journal features'
}

# --- -E offset= against mke2fs -------------------------------------
junk=$tmpdir/junk.img
head -c $((40 * MB)) /dev/urandom >"$junk" || exit 99
for args in "-t ext4:1048576:16M" "-t ext4:4194304:" "-t ext2 -b 1024:65536:8M"; do
	opts=${args%%:*}
	rest=${args#*:}
	off=${rest%%:*}
	size=${rest#*:}
	cp "$junk" "$tmpdir/m.img" && cp "$junk" "$tmpdir/e.img" || exit 99
	# shellcheck disable=SC2086 # opts is a word list
	"$MKE2FS" -q -F $opts -U "$TEST_UUID" -E offset="$off" \
		"$tmpdir/m.img" $size >"$tmpdir/m.out" 2>&1 ||
		{ fail "mke2fs -E offset=$off $opts $size failed"; continue; }
	# shellcheck disable=SC2086
	run_mkfs "$tmpdir/out" "$tmpdir/err" -q -F $opts -U "$TEST_UUID" \
		-E offset="$off" "$tmpdir/e.img" $size ||
		{ fail "-E offset=$off $opts $size: $(cat "$tmpdir/err")"; continue; }
	if [ -n "$size" ]; then
		len=$(( ${size%M} * MB ))
	else
		len=$(( 40 * MB - off ))
	fi
	for t in m e; do
		region "$tmpdir/$t.img" "$off" "$len" "$tmpdir/$t.fs"
		layout "$tmpdir/$t.fs" >"$tmpdir/$t.layout"
	done
	if [ -s "$tmpdir/m.layout" ] &&
	   cmp -s "$tmpdir/m.layout" "$tmpdir/e.layout"; then
		ok "-E offset=$off $opts $size: dumpe2fs equals mke2fs's ($(wc -l <"$tmpdir/e.layout") lines)"
	else
		fail "-E offset=$off $opts $size: dumpe2fs differs from mke2fs's"
		diff "$tmpdir/m.layout" "$tmpdir/e.layout" | head -8 | sed 's/^/    /'
	fi
	[ "$(outside "$junk" "$off" "$len")" = "$(outside "$tmpdir/e.img" "$off" "$len")" ] &&
		ok "-E offset=$off: the bytes outside the filesystem unchanged" ||
		fail "-E offset=$off: bytes outside the filesystem changed"
	fsck_clean "-E offset=$off $opts" "$tmpdir/e.fs" && ok "-E offset=$off: e2fsck -fn clean"
done
# a new file grows to offset + SIZE, as mke2fs makes it
rm -f "$tmpdir/n1.img" "$tmpdir/n2.img"
"$MKE2FS" -q -t ext4 -E offset=1000448 "$tmpdir/n1.img" 8M >/dev/null 2>&1
run_mkfs "$tmpdir/out" "$tmpdir/err" -q -t ext4 -E offset=1000448 \
	"$tmpdir/n2.img" 8M
s1=$(stat -c %s "$tmpdir/n1.img" 2>/dev/null)
s2=$(stat -c %s "$tmpdir/n2.img" 2>/dev/null)
[ -n "$s2" ] && [ "$s1" = "$s2" ] && [ "$s2" = $((1000448 + 8 * MB)) ] &&
	ok "-E offset= on a new file: $s2 bytes, as mke2fs" ||
	fail "-E offset= on a new file: $s2 bytes, mke2fs $s1"
cmp -s -n 1000448 "$tmpdir/n2.img" /dev/zero &&
	ok "-E offset= on a new file: zeros before the offset" ||
	fail "-E offset= on a new file: data before the offset"

# --- a GPT disk image with three partitions -------------------------
disk=$tmpdir/disk.img
head -c $((64 * MB)) /dev/urandom >"$disk" || exit 99
printf 'label: gpt\nsize=8MiB\nsize=24MiB\n,\n' |
	sfdisk -q "$disk" >/dev/null 2>"$tmpdir/err" ||
	{ fail "sfdisk: $(cat "$tmpdir/err")"; finish; }
# "start= 18432, size= 49152" of sfdisk -d's line for partition 2
line=$(sfdisk -d "$disk" | grep "^$disk""2 ")
start=$(echo "$line" | sed -n 's/.*start= *\([0-9]*\).*/\1/p')
plen=$(echo "$line" | sed -n 's/.*size= *\([0-9]*\).*/\1/p')
[ -n "$start" ] && [ -n "$plen" ] || { fail "no partition 2 in sfdisk -J"; finish; }
start=$((start * 512))
plen=$((plen * 512))
orig=$(outside "$disk" "$start" "$plen")
cp "$disk" "$tmpdir/disk0.img" || exit 99

tree=$tmpdir/tree
mkdir -p "$tree/etc/deep/er" "$tree/big" || exit 99
for i in $(seq 1 300); do echo "file $i" >"$tree/etc/f$i"; done
echo nested >"$tree/etc/deep/er/x"
head -c $((3 * MB)) /dev/urandom >"$tree/big/blob"
ln -s ../etc/f1 "$tree/big/link"
ln "$tree/etc/f2" "$tree/big/hard"
mkfifo "$tree/fifo"

# too small: partition 1 (8 MiB) for a 10 MiB tree, before any write
head -c $((10 * MB)) /dev/urandom >"$tree/big/huge"
sum=$(sha "$disk")
run_mkfs "$tmpdir/out" "$tmpdir/err" -q -t ext4 -d "$tree" "$disk@1"
rc=$?
[ "$rc" = 1 ] && grep -q "partition 1 is too small for -d" "$tmpdir/err" &&
	[ "$sum" = "$(sha "$disk")" ] &&
	ok "a tree too large for the partition: refused, nothing written: $(cat "$tmpdir/err")" ||
	fail "tree too large for partition 1: exit $rc, $(cat "$tmpdir/err")"
# the same as an archive: measured before anything is written too
tar -C "$tree" -cf "$tmpdir/tree.tar" . || exit 99
run_mkfs "$tmpdir/out" "$tmpdir/err" -q -t ext4 -d "$tmpdir/tree.tar" "$disk@1"
rc=$?
[ "$rc" = 1 ] && grep -q "partition 1 is too small for -d" "$tmpdir/err" &&
	[ "$sum" = "$(sha "$disk")" ] &&
	ok "an archive too large for the partition: refused, nothing written" ||
	fail "archive too large for partition 1: exit $rc, $(cat "$tmpdir/err")"
rm "$tree/big/huge" "$tmpdir/tree.tar"
# a SIZE larger than the partition
run_mkfs "$tmpdir/out" "$tmpdir/err" -q -t ext4 --partition 2 "$disk" 25M
rc=$?
[ "$rc" = 1 ] && grep -q "larger than the partition" "$tmpdir/err" &&
	[ "$sum" = "$(sha "$disk")" ] &&
	ok "SIZE larger than the partition: refused: $(cat "$tmpdir/err")" ||
	fail "SIZE larger than the partition: exit $rc, $(cat "$tmpdir/err")"
# -c would run badblocks over the whole disk image, not the partition
run_mkfs "$tmpdir/out" "$tmpdir/err" -q -c "$disk@2"
[ $? = 1 ] && grep -q "badblocks over the whole target" "$tmpdir/err" &&
	[ "$sum" = "$(sha "$disk")" ] &&
	ok "-c on a partition: refused: $(cat "$tmpdir/err")" ||
	fail "-c on a partition: $(cat "$tmpdir/err")"
# no partition 4
run_mkfs "$tmpdir/out" "$tmpdir/err" -q "$disk@4"
[ $? = 1 ] && grep -q "no partition 4" "$tmpdir/err" &&
	[ "$sum" = "$(sha "$disk")" ] &&
	ok "no partition 4: $(cat "$tmpdir/err")" ||
	fail "no partition 4: $(cat "$tmpdir/err")"
# the whole image holds a partition table: refused without -F
cp "$tmpdir/disk0.img" "$tmpdir/whole.img"
run_mkfs "$tmpdir/out" "$tmpdir/err" -q "$tmpdir/whole.img"
[ $? = 1 ] && grep -q "gpt partition table" "$tmpdir/err" &&
	ok "the whole disk image refused: $(cat "$tmpdir/err")" ||
	fail "whole disk image: $(cat "$tmpdir/err")"

# partition 2, filled from the tree, three ways
n=0
for how in at part off; do
	n=$((n + 1))
	img=$tmpdir/d$n.img
	cp "$tmpdir/disk0.img" "$img" || exit 99
	case $how in
	at) set -- "$img@2" ;;
	part) set -- --partition 2 "$img" ;;
	off) set -- -E offset=$start "$img" $((plen / 1024))k ;;
	esac
	run_mkfs "$tmpdir/out" "$tmpdir/err" -q -t ext4 -U "$TEST_UUID" \
		-E hash_seed=$TEST_SEED -d "$tree" "$@" ||
		{ fail "$how: $(cat "$tmpdir/err")"; continue; }
	[ "$orig" = "$(outside "$img" "$start" "$plen")" ] &&
		ok "$how: the other partitions and both GPT tables byte-identical" ||
		fail "$how: bytes outside partition 2 changed"
	region "$img" "$start" "$plen" "$tmpdir/p$n.fs"
	fsck_clean "$how" "$tmpdir/p$n.fs" && ok "$how: e2fsck -fn clean"
done
bc=$(sb_field "$tmpdir/p1.fs" 'Block count')
bs=$(sb_field "$tmpdir/p1.fs" 'Block size')
[ -n "$bc" ] && [ $((bc * bs)) = "$plen" ] &&
	ok "IMAGE@2 without SIZE fills the partition ($bc blocks of $bs)" ||
	fail "IMAGE@2: $bc blocks of $bs for a partition of $plen bytes"
cmp -s "$tmpdir/p1.fs" "$tmpdir/p2.fs" && cmp -s "$tmpdir/p1.fs" "$tmpdir/p3.fs" &&
	ok "IMAGE@2, --partition 2 and -E offset=$start: the same bytes" ||
	fail "IMAGE@2, --partition 2 and -E offset= differ"
# extkit-dump reads the tree back through IMAGE@N as well
list=$("$top_builddir/extkit-dump" "$tmpdir/d1.img@2" ls /etc/deep/er 2>/dev/null)
case $list in
*x*) ok "extkit-dump IMAGE@2 sees the tree" ;;
*) fail "extkit-dump IMAGE@2: $list" ;;
esac

# --- the kernel, through a partitioned loop device -------------------
[ "$(id -u)" = 0 ] || { echo "not root: the mount is skipped"; finish; }
mnt=$tmpdir/mnt
loop=
mkdir -p "$mnt" || exit 99
trap 'mountpoint -q "$mnt" 2>/dev/null && umount "$mnt"; [ -n "$loop" ] && { partx -d "$loop" 2>/dev/null; losetup -d "$loop"; }; rm -rf "$tmpdir"' EXIT
loop=$(losetup -P -f --show "$tmpdir/d1.img" 2>"$tmpdir/err") ||
	{ loop=; [ "$failures" = 0 ] && skip "losetup -P refused: $(cat "$tmpdir/err")"; finish; }
# without udev (a container) the node is made from sysfs; a kernel that
# finds no partitions on the loop device (no GPT support) gets a loop
# device on the partition's bytes instead (losetup -o, --sizelimit)
part=${loop}p2
sys=/sys/block/${loop#/dev/}/${loop#/dev/}p2/dev
i=0
while [ ! -b "$part" ] && [ ! -r "$sys" ] && [ $i -lt 30 ]; do
	sleep 0.1
	i=$((i + 1))
done
how="partitioned loop device $part"
# a kernel whose own scan finds no GPT (no EFI partition support) still
# takes the partitions from userspace (BLKPG): partx -a reads the table
if [ ! -b "$part" ] && [ ! -r "$sys" ] && command -v partx >/dev/null &&
   partx -a "$loop" 2>/dev/null; then
	i=0
	while [ ! -b "$part" ] && [ ! -r "$sys" ] && [ $i -lt 30 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	how="partitioned loop device $part (partitions added by partx -a: the kernel's own scan found none)"
fi
if [ ! -b "$part" ] && [ -r "$sys" ]; then
	part=$tmpdir/p2.dev
	mknod "$part" b "$(cut -d: -f1 "$sys")" "$(cut -d: -f2 "$sys")" 2>/dev/null
elif [ ! -b "$part" ]; then
	partx -d "$loop" 2>/dev/null
	losetup -d "$loop"
	loop=$(losetup -f --show -o "$start" --sizelimit "$plen" \
		"$tmpdir/d1.img" 2>"$tmpdir/err") ||
		{ loop=; [ "$failures" = 0 ] && skip "losetup refused: $(cat "$tmpdir/err")"; finish; }
	part=$loop
	how="loop device on bytes $start+$plen ($loop; the kernel shows no partitions of a loop device here)"
fi
if ! mount -o ro "$part" "$mnt" 2>"$tmpdir/err"; then
	[ "$failures" = 0 ] && skip "mount $part refused: $(cat "$tmpdir/err")"
	finish
fi
diff -r --no-dereference "$tree" "$mnt" -x lost+found -x fifo >"$tmpdir/diff" 2>&1 &&
	ok "the kernel mounts partition 2 through a $how; diff -r equals the tree" ||
	{ fail "mounted partition differs from the tree"; head -5 "$tmpdir/diff"; }
[ "$(stat -c %i "$mnt/etc/f2")" = "$(stat -c %i "$mnt/big/hard")" ] &&
	ok "hard link kept" || fail "hard link lost"
[ -p "$mnt/fifo" ] && ok "fifo kept" || fail "fifo lost"
umount "$mnt"
finish
