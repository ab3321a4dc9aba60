#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# extkit-mkfs options as mke2fs takes them, each compared with mke2fs on
# the same arguments (fixed UUID, hash seed and time; the test
# mke2fs.conf): the whole dumpe2fs report of the two images is the same
# (with mke2fs 1.47.0, but for uninit_147's difference: mkfs-lib.sh).
#  -g: blocks per group (1, 2 and 4 KiB blocks, several groups, ext2 and
#      ext4), and the values mke2fs refuses (not a number, not a multiple
#      of 8, under 256, over 8 x the block size): both refuse them;
#  -T: usage types of mke2fs.conf; -r 1; -r 0 (every feature dropped,
#      128-byte inodes, -t ext4 and -d too; -O FEATURE and -j refused);
#  -e continue|remount-ro|panic;
#  -U clear, null and their upper case: a null UUID as mke2fs makes it.
. "${top_srcdir:-.}/tests/lib.sh"
. "$top_srcdir/tests/mkfs/mkfs-lib.sh"
need_tools mke2fs e2fsck dumpe2fs

FIX="-E hash_seed=$TEST_SEED"

# same DESC SIZE ARGS...: both tools make an image with ARGS (plus a
# fixed UUID unless ARGS has -U); their dumpe2fs reports are the same.
same() {
	_desc=$1
	_size=$2
	shift 2
	case " $* " in *" -U "*) _u= ;; *) _u="-U $TEST_UUID" ;; esac
	rm -f "$tmpdir/a.img" "$tmpdir/b.img"
	# shellcheck disable=SC2086
	run_mkfs "$tmpdir/out" "$tmpdir/err" -q $_u $FIX "$@" \
		"$tmpdir/a.img" "$_size" || {
		fail "$_desc: extkit-mkfs exit $?: $(cat "$tmpdir/err")"
		return
	}
	# shellcheck disable=SC2086
	"$MKE2FS" -q -F $_u $FIX "$@" "$tmpdir/b.img" "$_size" \
		>"$tmpdir/mout" 2>&1 || {
		fail "$_desc: mke2fs failed: $(cat "$tmpdir/mout")"
		return
	}
	fsck_clean "$_desc" "$tmpdir/a.img" || return
	"$DUMPE2FS" "$tmpdir/a.img" >"$tmpdir/ours" 2>/dev/null
	"$DUMPE2FS" "$tmpdir/b.img" >"$tmpdir/ref" 2>/dev/null
	uninit_147 "$tmpdir/ref" "$tmpdir/ours"
	if diff -u "$tmpdir/ref" "$tmpdir/ours" >"$tmpdir/diff"; then
		ok "$_desc: as mke2fs ($(grep -c '^Group' "$tmpdir/ref") groups, $(sed -n 's/^Blocks per group: *//p' "$tmpdir/ref") blocks each)"
	else
		fail "$_desc: dumpe2fs differs from mke2fs's (-) image"
		head -24 "$tmpdir/diff" | sed 's/^/    /'
	fi
}

# refused DESC ARGS...: both tools refuse; extkit-mkfs in one line.
refused() {
	_desc=$1
	shift
	rm -f "$tmpdir/a.img" "$tmpdir/b.img"
	run_mkfs "$tmpdir/out" "$tmpdir/err" -q "$@" "$tmpdir/a.img" 8M
	_rc=$?
	"$MKE2FS" -q -F "$@" "$tmpdir/b.img" 8M >"$tmpdir/mout" 2>&1
	_mrc=$?
	if [ "$_rc" -eq 1 ] && [ "$_mrc" -ne 0 ] &&
	   [ "$(wc -l <"$tmpdir/err")" -eq 1 ] &&
	   grep -q '^extkit-mkfs: ' "$tmpdir/err"; then
		ok "$_desc: refused as mke2fs does: $(cat "$tmpdir/err")"
	else
		fail "$_desc: exit $_rc ($(cat "$tmpdir/err")), mke2fs exit $_mrc ($(head -1 "$tmpdir/mout"))"
	fi
}

same "-g 2048" 16M -t ext2 -g 2048
same "-g 1024 -b 1024 -N 4000" 8M -t ext2 -b 1024 -g 1024 -N 4000
same "-g 4096 -b 2048" 32M -t ext2 -b 2048 -g 4096
same "-g 8192 -b 4096" 128M -t ext2 -b 4096 -g 8192
same "-g 256 -b 1024" 4M -t ext2 -b 1024 -g 256
same "-g 32768 -b 4096 (8 x block size)" 256M -t ext2 -b 4096 -g 32768
same "ext4 -g 4096" 64M -t ext4 -g 4096 -O ^has_journal
refused "-g abc" -g abc
refused "-g 1001 (not a multiple of 8)" -g 1001
refused "-g 248 (under 256)" -g 248
refused "-g 16384 -b 1024 (over 8 x block size)" -b 1024 -g 16384
same "-T news" 32M -t ext2 -T news
same "-T largefile" 256M -t ext2 -T largefile
same "-T small" 32M -t ext2 -T small
same "-r 1" 16M -t ext2 -r 1
for e in continue remount-ro panic; do
	same "-e $e" 16M -t ext2 -e "$e"
done
refused "-e bogus" -e bogus
for u in clear null CLEAR Null; do
	same "-U $u" 16M -t ext2 -U "$u"
done
grep -q '^Filesystem UUID: *<none>' "$tmpdir/ours" &&
	ok "-U clear: the UUID is null" || fail "-U clear: $(grep UUID "$tmpdir/ours")"
same "-r 0" 16M -t ext2 -r 0
same "-r 0 -t ext4 -I 256 -b 1024" 16M -t ext4 -r 0 -I 256 -b 1024
same "-r 0 -O ^dir_index" 8M -r 0 -O ^dir_index
grep -q '^Filesystem revision #: *0 (original)' "$tmpdir/ours" &&
	ok "-r 0: revision 0" || fail "-r 0: $(grep 'revision' "$tmpdir/ours")"
refused "-r 0 -O dir_index" -r 0 -O dir_index
refused "-r 0 -j" -r 0 -j
refused "-r 2" -r 2
finish
