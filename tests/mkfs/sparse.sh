#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# extkit-mkfs -E android_sparse (issue 35): the target is an Android
# sparse image that simg2img turns back into exactly the raw image made
# with the same arguments (empty, filled with -d, fitted to its tree
# without SIZE); no raw file is left beside it; the combinations that
# make no sense (a partition, no SIZE for an existing file) are refused
# before anything is written. Skipped (77) without simg2img or libsparse.
. "${top_srcdir:-.}/tests/lib.sh"
. "$top_srcdir/tests/mkfs/mkfs-lib.sh"
need_tools e2fsck simg2img

export SOURCE_DATE_EPOCH=1700000000 E2FSPROGS_FAKE_TIME=1700000000
fixed="-U $TEST_UUID -E hash_seed=$TEST_SEED"

tree=$tmpdir/tree
mkdir -p "$tree/a/b" || exit 99
for i in $(seq 1 200); do echo "file $i" >"$tree/a/f$i"; done
head -c 3000000 /dev/urandom >"$tree/a/b/blob"
dd if=/dev/urandom of="$tree/a/b/holes" bs=4096 count=3 seek=500 \
	status=none
: >"$tree/empty"

run_mkfs "$tmpdir/out" "$tmpdir/err" -q -E android_sparse \
	"$tmpdir/probe.simg" 4M
if [ $? != 0 ] && grep -q "needs libsparse" "$tmpdir/err"; then
	skip "libsparse not installed: $(cat "$tmpdir/err")"
fi

# sparse_vs_raw DESC ARGS...: ARGS with TARGET and maybe SIZE as $T.
n=0
sparse_vs_raw() {
	desc=$1
	shift
	n=$((n + 1))
	raw=$tmpdir/r$n.img
	simg=$tmpdir/s$n.simg
	# shellcheck disable=SC2086 # fixed is a word list
	run_mkfs "$tmpdir/out" "$tmpdir/err" -q $fixed "$@" "$raw" $size ||
		{ fail "$desc: raw: $(cat "$tmpdir/err")"; return; }
	# shellcheck disable=SC2086
	run_mkfs "$tmpdir/out" "$tmpdir/err" -q $fixed -E android_sparse \
		"$@" "$simg" $size ||
		{ fail "$desc: sparse: $(cat "$tmpdir/err")"; return; }
	if ! simg2img "$simg" "$tmpdir/back.img" 2>"$tmpdir/err"; then
		fail "$desc: simg2img: $(cat "$tmpdir/err")"
		return
	fi
	if cmp -s "$raw" "$tmpdir/back.img" &&
	   ! cmp -s "$simg" "$raw"; then
		ok "$desc: simg2img gives the raw image back ($(stat -c %s "$simg") sparse bytes for $(stat -c %s "$raw"))"
	else
		fail "$desc: simg2img's output differs from the raw image"
	fi
	fsck_clean "$desc" "$tmpdir/back.img"
	ls "$tmpdir" | grep -q '\.raw\.' &&
		fail "$desc: a raw file was left: $(ls "$tmpdir" | grep '\.raw\.')"
}
size=16M sparse_vs_raw "empty ext4, 16M" -t ext4
size=64M sparse_vs_raw "-d tree, ext4 64M" -t ext4 -d "$tree"
size=8M sparse_vs_raw "-d tree, ext2 1 KiB blocks" -t ext2 -b 1024 -d "$tree"
size= sparse_vs_raw "-d tree fitted, no SIZE" -t ext4 -d "$tree"

# refused before anything is written
run_mkfs "$tmpdir/out" "$tmpdir/err" -q -F -E android_sparse "$tmpdir/r1.img"
[ $? = 1 ] && grep -q "give a SIZE" "$tmpdir/err" &&
	ok "no SIZE for an existing file: $(cat "$tmpdir/err")" ||
	fail "no SIZE: $(cat "$tmpdir/err")"
run_mkfs "$tmpdir/out" "$tmpdir/err" -q -F -E android_sparse,offset=4096 \
	"$tmpdir/new.img" 8M
[ $? = 1 ] && grep -q "not a region" "$tmpdir/err" &&
	[ ! -e "$tmpdir/new.img" ] &&
	ok "with an offset: $(cat "$tmpdir/err")" ||
	fail "android_sparse with an offset: $(cat "$tmpdir/err")"
finish
