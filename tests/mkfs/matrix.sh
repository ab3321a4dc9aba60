#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# extkit-mkfs over a matrix: every block size, inode sizes 128 and 256,
# sparse images from 1 MiB to 4 GiB, with and without dir_index, filetype,
# sparse_super (and resize_inode). Each image: e2fsck -fn exits 0,
# dumpe2fs -h shows the block size, inode size and features asked for,
# and the full dumpe2fs report (geometry, every group, free counts) is
# the one mke2fs gives for the same options.
. "${top_srcdir:-.}/tests/lib.sh"
. "$top_srcdir/tests/mkfs/mkfs-lib.sh"
need_tools e2fsck dumpe2fs
MKE2FS=$(find_tool mke2fs) || MKE2FS=

# block size, inode size, image size, -O list ("-" for none)
cases='
1024 128 1M -
1024 256 1M ^dir_index
1024 128 3M resize_inode
1024 256 16M ^filetype,^sparse_super
1024 128 100M ^dir_index,^filetype
1024 256 600M resize_inode
1024 256 4G ^sparse_super
2048 128 2M -
2048 256 20M ^sparse_super
2048 128 300M resize_inode,^dir_index
2048 256 1G ^filetype
4096 128 1M -
4096 256 64M resize_inode
4096 128 1G ^sparse_super,^dir_index
4096 256 4G resize_inode
8192 128 8M ^filetype
8192 256 512M resize_inode
8192 256 4G ^sparse_super
16384 128 16M -
16384 256 2G resize_inode,^filetype
32768 128 32M ^dir_index
32768 256 4G resize_inode
65536 128 64M ^sparse_super
65536 256 4G resize_inode,^dir_index,^filetype
- - 1M -
- - 3M -
- - 511M -
- - 512M resize_inode
- - 4G -
1024 512 8M -
4096 1024 100M resize_inode
65536 1024 256M -
'

# feature_check DESC IMAGE LIST: each name in LIST is present, each
# ^name absent, and the defaults are there unless cleared.
feature_check() {
	_have=" $(sb_field "$2" 'Filesystem features') "
	_bad=
	for _f in ext_attr dir_index filetype sparse_super large_file; do
		case ",$3," in *,^$_f,*) continue ;; esac
		case "$_have" in *" $_f "*) ;; *) _bad="$_bad missing:$_f" ;; esac
	done
	for _f in $(echo "$3" | tr ',' ' '); do
		case $_f in
		-) ;;
		^*) case "$_have" in *" ${_f#^} "*) _bad="$_bad present:${_f#^}" ;; esac ;;
		*) case "$_have" in *" $_f "*) ;; *) _bad="$_bad missing:$_f" ;; esac ;;
		esac
	done
	[ -z "$_bad" ] || fail "$1: features$_bad (have:$_have)"
	[ -z "$_bad" ]
}

echo "$cases" | while read -r bs isz size feat; do
	[ -n "$bs" ] || continue
	args="-U $TEST_UUID -E hash_seed=$TEST_SEED"
	[ "$bs" = - ] || args="$args -b $bs"
	[ "$isz" = - ] || args="$args -I $isz"
	[ "$feat" = - ] || args="$args -O $feat"
	desc="-b $bs -I $isz $size -O $feat"
	img=$tmpdir/x.img
	rm -f "$img" "$tmpdir/ref.img"
	# shellcheck disable=SC2086
	run_mkfs "$tmpdir/out" "$tmpdir/err" -q $args "$img" "$size"
	rc=$?
	if [ "$rc" -ne 0 ] || [ -s "$tmpdir/err" ]; then
		fail "$desc: extkit-mkfs exit $rc: $(cat "$tmpdir/err")"
		continue
	fi
	fsck_clean "$desc" "$img" || continue
	got_bs=$(sb_field "$img" 'Block size')
	got_is=$(sb_field "$img" 'Inode size')
	[ "$bs" = - ] || [ "$got_bs" = "$bs" ] ||
		fail "$desc: block size $got_bs"
	[ "$isz" = - ] || [ "$got_is" = "$isz" ] ||
		fail "$desc: inode size $got_is"
	feature_check "$desc" "$img" "$feat" || continue
	if [ -n "$MKE2FS" ]; then
		# shellcheck disable=SC2086
		"$MKE2FS" -q -F -t ext2 $args "$tmpdir/ref.img" "$size" \
			>/dev/null 2>&1 || { fail "$desc: mke2fs failed"; continue; }
		"$DUMPE2FS" "$img" 2>/dev/null >"$tmpdir/ours"
		"$DUMPE2FS" "$tmpdir/ref.img" 2>/dev/null >"$tmpdir/ref"
		if ! diff -u "$tmpdir/ref" "$tmpdir/ours" >"$tmpdir/diff"; then
			fail "$desc: dumpe2fs differs from mke2fs's (-) image"
			head -20 "$tmpdir/diff" | sed 's/^/    /'
			continue
		fi
	fi
	ok "$desc: e2fsck clean, $got_bs-byte blocks, $got_is-byte inodes${MKE2FS:+, same as mke2fs}"
done >"$tmpdir/log"
cat "$tmpdir/log"
failures=$(grep -c '^FAIL' "$tmpdir/log")
checks=$(grep -c '^ok' "$tmpdir/log")
finish
