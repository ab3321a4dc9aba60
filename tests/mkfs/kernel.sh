#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The kernel accepts what extkit-mkfs writes: format, mount -o loop, copy
# a tree of 2,000 files in (one directory of 1,000 to use dir_index),
# compare, unmount, e2fsck -fn exits 0. While mounted, extkit-mkfs -F
# refuses the image and its loop device. A loop device full of junk,
# formatted as a block device (zeroing instead of hole punching), equals
# the image file formatted with the same options byte for byte.
# Skipped (77) without root or where loop mounts are refused.
. "${top_srcdir:-.}/tests/lib.sh"
. "$top_srcdir/tests/mkfs/mkfs-lib.sh"
need_tools e2fsck dumpe2fs losetup mount umount

[ "$(id -u)" = 0 ] || skip "not root"
img=$tmpdir/k.img
mnt=$tmpdir/mnt
loop=
mkdir -p "$mnt" || exit 99
cleanup() {
	mountpoint -q "$mnt" 2>/dev/null && umount "$mnt"
	[ -n "$loop" ] && losetup -d "$loop" 2>/dev/null
	rm -rf "$tmpdir"
}
trap cleanup EXIT

run_mkfs "$tmpdir/out" "$tmpdir/err" -q -U "$TEST_UUID" "$img" 64M ||
	{ fail "extkit-mkfs: $(cat "$tmpdir/err")"; finish; }
mount -o loop "$img" "$mnt" 2>"$tmpdir/err" ||
	skip "mount -o loop refused: $(cat "$tmpdir/err")"

# The tree: 20 directories of 50 files, and one of 1,000.
tree=$tmpdir/tree
for d in $(seq 1 20); do
	mkdir -p "$tree/d$d"
	for f in $(seq 1 50); do
		echo "file $d/$f" >"$tree/d$d/f$f"
	done
done
mkdir -p "$tree/big"
for f in $(seq 1 1000); do
	echo "entry $f with a longer name" >"$tree/big/entry-with-a-long-name-$f"
done
n=$(find "$tree" -type f | wc -l)
if cp -a "$tree/." "$mnt/" && diff -r "$tree" "$mnt" -x lost+found \
		>"$tmpdir/diff" 2>&1; then
	ok "copied $n files in, contents compare equal"
else
	fail "copy or compare failed"
	head -5 "$tmpdir/diff" | sed 's/^/    /'
fi
dev=$(losetup -j "$img" | cut -d: -f1)

# Mounted: refused even with -F, by file and by device.
for t in "$img" "$dev"; do
	before=$(sha "$img")
	run_mkfs "$tmpdir/out" "$tmpdir/err" -q -F "$t"
	rc=$?
	if [ "$rc" -eq 1 ] && grep -q "mounted on $mnt" "$tmpdir/err" &&
	   [ "$before" = "$(sha "$img")" ]; then
		ok "mounted $t refused: $(cat "$tmpdir/err")"
	else
		fail "mounted $t: exit $rc: $(cat "$tmpdir/err")"
	fi
done

umount "$mnt" || fail "umount"
fsck_clean "after the kernel wrote 2,000 files" "$img" &&
	ok "e2fsck -fn clean after the kernel wrote $n files"
inodes=$(sb_field "$img" 'Free inodes')
[ "$inodes" = 14352 ] && ok "free inodes: 16384 - 11 reserved - 2,021 new = $inodes" ||
	fail "free inodes: $inodes, expected 14352"

# A block device holding junk: zeroed where it must read zeros. Free
# blocks may keep junk (as with mke2fs), so they are zeroed in a copy
# before comparing with the image file.
mask_free() {
	cp "$1" "$2" || return 1
	_bs=$(sb_field "$3" 'Block size')
	"$DUMPE2FS" "$3" 2>/dev/null | awk '/^  Free blocks: ./ {
		sub(/^  Free blocks: /, "")
		n = split($0, r, ", ")
		for (i = 1; i <= n; i++) {
			m = split(r[i], ab, "-")
			print ab[1], (m > 1 ? ab[2] : ab[1]) - ab[1] + 1
		}
	}' | while read -r _at _len; do
		dd if=/dev/zero of="$2" bs="$_bs" seek="$_at" count="$_len" \
			conv=notrunc 2>/dev/null
	done
}

ref=$tmpdir/ref.img
for e in nodiscard discard; do
	for o in "-b 1024 -O resize_inode" "-b 4096 -I 128"; do
		rm -f "$ref"
		# shellcheck disable=SC2086
		run_mkfs "$tmpdir/out" "$tmpdir/err" -q -U "$TEST_UUID" $o \
			"$ref" 32M || fail "reference: $(cat "$tmpdir/err")"
		head -c 33554432 /dev/urandom >"$img"
		loop=$(losetup -f --show "$img") || skip "losetup refused"
		# shellcheck disable=SC2086
		if ! run_mkfs "$tmpdir/out" "$tmpdir/err" -q -F -E "$e" \
				-U "$TEST_UUID" $o "$loop"; then
			fail "-E $e $o on $loop: $(cat "$tmpdir/err")"
		elif ! fsck_clean "-E $e $o: $loop" "$loop"; then
			:
		elif mask_free "$loop" "$tmpdir/masked" "$ref" &&
		     cmp -s "$ref" "$tmpdir/masked"; then
			ok "-E $e $o: $loop (junk) equals the image file but for free blocks; e2fsck clean"
		else
			fail "-E $e $o: $loop differs: $(cmp "$ref" "$tmpdir/masked" 2>&1 | head -1)"
		fi
		losetup -d "$loop"
		loop=
	done
done
finish
