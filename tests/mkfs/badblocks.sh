#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# -l FILE (issue 33): the bad blocks of a list kept out of use and mapped
# by inode 1, as mke2fs -l: with a few blocks, with more than twelve (an
# indirect block), one in a superblock backup's area, numbers out of
# range (ignored with mke2fs's warning), an empty list; dumpe2fs (header,
# groups, -b) and debugfs's stat of inode 1 equal to mke2fs's, e2fsck -fn
# clean; where loop mounts work the kernel fills the filesystem and
# e2fsck still finds it clean (no bad block handed out). -c and -cc run
# badblocks with mke2fs's arguments (a stand-in on PATH checks them) and
# keep what it lists out of use. Refused as by
# mke2fs: a bad block in the primary superblock or descriptors. Refused
# by name: a missing list, more blocks than one indirect block maps, -l
# with bigalloc.
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
		grep -v '^Lifetime writes:\|^Checksum:\|^Journal features:\|^Journal checksum'
	"$DUMPE2FS" -b "$1" 2>/dev/null
	"$DEBUGFS" -R "stat <1>" "$1" 2>/dev/null | grep -v 'checksum'
}

# case_one LIST SIZE ARGS...
case_one() {
	list=$1
	size=$2
	shift 2
	desc="$size $* -l $(basename "$list")"
	rm -f "$ref" "$img"
	if ! timeout -k 5 "$TIMEOUT" "$MKE2FS" -q -F -U "$TEST_UUID" \
		-E hash_seed=$TEST_SEED -l "$list" "$@" "$ref" "$size" \
		>"$tmpdir/mke2fs.err" 2>&1; then
		fail "$desc: mke2fs: $(head -1 "$tmpdir/mke2fs.err")"
		return
	fi
	if ! run_mkfs "$tmpdir/out" "$tmpdir/err" -q -U "$TEST_UUID" \
			-E hash_seed=$TEST_SEED -l "$list" "$@" "$img" "$size"; then
		fail "$desc: extkit-mkfs: $(head -3 "$tmpdir/err")"
		return
	fi
	fsck_clean "$desc" "$img" || return
	layout "$ref" >"$tmpdir/ref.txt"
	layout "$img" >"$tmpdir/img.txt"
	uninit_147 "$tmpdir/ref.txt" "$tmpdir/img.txt"
	if ! cmp -s "$tmpdir/ref.txt" "$tmpdir/img.txt"; then
		fail "$desc: layout or inode 1 differs from mke2fs's"
		diff "$tmpdir/ref.txt" "$tmpdir/img.txt" | head -12 |
			sed 's/^/    /'
		return
	fi
	if [ "$kernel" = 1 ] && mount -o loop "$img" "$mnt" 2>/dev/null; then
		dd if=/dev/zero of="$mnt/fill" bs=1M 2>/dev/null
		umount "$mnt" || { fail "$desc: umount"; return; }
		fsck_clean "$desc: after the kernel filled it" "$img" || return
	fi
	ok "$desc: inode 1, bitmaps and counts as mke2fs, e2fsck clean"
}

printf '5000\n5001\n9000\n40000\n' >"$tmpdir/few"
seq 6000 6019 >"$tmpdir/ind"
{ seq 6000 6019; echo 32769; } >"$tmpdir/backup"
printf 'junk\n70000\n\n3000\n' >"$tmpdir/range"
: >"$tmpdir/empty"
case_one "$tmpdir/few" 64M -t ext4
case_one "$tmpdir/ind" 64M -t ext4
case_one "$tmpdir/few" 64M -t ext2 -b 4096
case_one "$tmpdir/backup" 1G -t ext4
if grep -q "backup superblock/group descriptors at block 32768 contain" \
	"$tmpdir/err"; then
	ok "a bad block in a backup's descriptors: mke2fs's warning"
else
	fail "a bad block in a backup's descriptors: no warning"
fi
case_one "$tmpdir/range" 64M -t ext3
case_one "$tmpdir/empty" 64M -t ext4
run_mkfs "$tmpdir/out" "$tmpdir/err" -F -q -l "$tmpdir/range" -t ext3 "$img" 64M
if grep -q "Bad block 70000 out of range; ignored." "$tmpdir/err"; then
	ok "a block out of range: mke2fs's warning"
else
	fail "a block out of range: no warning: $(head -1 "$tmpdir/err")"
fi

# -c: badblocks run as mke2fs runs it (a stand-in on PATH logs its
# arguments and lists three blocks); the result is mke2fs -l's with them
mkdir -p "$tmpdir/bin"
cat >"$tmpdir/bin/badblocks" <<'EOS'
#!/bin/sh
echo "$*" | sed 's|[^ ]*/||g' >>"$FAKE_BB_LOG"
printf '5000\n5001\n9000\n'
EOS
chmod +x "$tmpdir/bin/badblocks"
printf '5000\n5001\n9000\n' >"$tmpdir/three"
for c in -c -cc; do
	rm -f "$ref" "$img" "$tmpdir/bb.log"
	truncate -s 64M "$img" || exit 99
	"$MKE2FS" -q -F -U "$TEST_UUID" -E hash_seed=$TEST_SEED -t ext4 \
		-l "$tmpdir/three" "$ref" 64M >/dev/null 2>&1 ||
		fail "$c: mke2fs -l"
	if ! FAKE_BB_LOG=$tmpdir/bb.log PATH=$tmpdir/bin:$PATH run_mkfs \
		"$tmpdir/out" "$tmpdir/err" -F -U "$TEST_UUID" \
		-E hash_seed=$TEST_SEED -t ext4 $c "$img"; then
		fail "$c: extkit-mkfs: $(head -2 "$tmpdir/err")"
		continue
	fi
	want="-b 1024 -X -s img.img 65535"
	[ "$c" = -cc ] && want="-b 1024 -X -s -w img.img 65535"
	layout "$ref" >"$tmpdir/ref.txt"
	layout "$img" >"$tmpdir/img.txt"
	uninit_147 "$tmpdir/ref.txt" "$tmpdir/img.txt"
	if [ "$(cat "$tmpdir/bb.log")" != "$want" ]; then
		fail "$c: badblocks ran as '$(cat "$tmpdir/bb.log")', not '$want'"
	elif ! cmp -s "$tmpdir/ref.txt" "$tmpdir/img.txt"; then
		fail "$c: the layout differs from mke2fs -l with the same list"
		diff "$tmpdir/ref.txt" "$tmpdir/img.txt" | head -8
	elif fsck_clean "$c" "$img"; then
		ok "$c: badblocks $want; the blocks it listed kept out as mke2fs -l"
	fi
done
rm -f "$img"
if run_mkfs "$tmpdir/out" "$tmpdir/err" -c "$img" 64M ||
   ! grep -q "badblocks reads the target" "$tmpdir/err"; then
	fail "-c on a missing image: $(head -1 "$tmpdir/err")"
else
	ok "-c on a missing image: refused ($(head -1 "$tmpdir/err"))"
fi

refused() {
	d=$1
	shift
	rm -f "$img"
	if run_mkfs "$tmpdir/out" "$tmpdir/err" -q "$@" "$img" 64M; then
		fail "$d: extkit-mkfs takes it"
	elif [ -s "$img" ] && "$DUMPE2FS" -h "$img" >/dev/null 2>&1; then
		fail "$d: refused, but a filesystem was left"
	elif ! grep -q -- "$d" "$tmpdir/err"; then
		fail "$d: not the message expected: $(head -2 "$tmpdir/err")"
	else
		ok "$d: refused ($(tail -1 "$tmpdir/err"))"
	fi
}
echo 2 >"$tmpdir/primary"
seq 1000 1400 >"$tmpdir/many"
refused "in primary superblock/group descriptor area bad" -t ext4 -l "$tmpdir/primary"
refused "maps at most 268" -t ext4 -l "$tmpdir/many"
refused "No such file" -t ext4 -l "$tmpdir/none"
refused "-l with bigalloc" -t ext4 -O bigalloc -l "$tmpdir/few"
finish
