#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# extkit-mkfs -d from a directory: the reader threads' batched opens,
# reads and closes through io_uring (mkfs/popring.c) and their fallback,
# one system call each (EXTKIT_MKFS_NO_URING=1), write the same bytes as
# the builder alone (EXTKIT_MKFS_NO_READER=1), on a tree meant to take
# every branch of the batch: small files (read and closed in the ring),
# empty ones (closed there), files with attributes (their descriptor
# kept for the builder, past the 32 it may hold), files over 32 KiB,
# sparse ones, hard links, symbolic links, a FIFO, subdirectories, and
# more entries than the 256 records read ahead. Each run says which way
# it read (EXTKIT_TEST_SAY_READER, a test-hooks build): the io_uring
# check is skipped, not failed, where liburing is not built in or the
# kernel refuses io_uring. The file data written with O_DIRECT by the
# writer thread (mkfs/popwrite.c: on 4 KiB blocks past the first 256
# MiB, here from the start with EXTKIT_TEST_DIRECT_AFTER=0) and
# through the page cache (EXTKIT_MKFS_NO_DIRECT=1) give the same bytes
# too (EXTKIT_TEST_SAY_WRITER says which ran), and so do O_DIRECT writes
# refused with EINVAL (EXTKIT_TEST_DIRECT_EINVAL: each write pretends so
# while O_DIRECT is on), made again without it. e2fsck -fn is clean.
# Without root, an unreadable file gives the same message either way.
. "${top_srcdir:-.}/tests/lib.sh"
. "$top_srcdir/tests/mkfs/mkfs-lib.sh"
need_tools e2fsck
TIMEOUT=60

tree=$tmpdir/tree
mkdir -p "$tree/sub/deeper" "$tree/attrs" || exit 99
(cd "$tree" && for i in $(seq 1 600); do
	printf 'file %s\n' "$i" >"f$i"
done && for i in $(seq 1 40); do : >"empty$i"; done &&
	head -c 100000 /dev/urandom >big && seq 1 20000 >numbers &&
	truncate -s 1M sparse && printf x | dd of=sparse bs=1 seek=500000 \
		conv=notrunc 2>/dev/null &&
	ln f1 hard1 && ln f2 sub/hard2 && ln -s f3 link3 && mkfifo fifo &&
	echo inner >sub/deeper/inner && echo sub >sub/file) || exit 99
# attributes: where the temporary directory's filesystem takes user.*
xattrs=0
if command -v setfattr >/dev/null &&
	setfattr -n user.probe -v 1 "$tree/attrs" 2>/dev/null; then
	setfattr -x user.probe "$tree/attrs"
	xattrs=1
	for i in $(seq 1 50); do
		echo "a$i" >"$tree/attrs/x$i" &&
			setfattr -n user.n -v "$i" "$tree/attrs/x$i" || exit 99
	done
	: >"$tree/attrs/empty-with-attr"
	setfattr -n user.e -v 1 "$tree/attrs/empty-with-attr" || exit 99
fi
find "$tree" -exec touch -h -d "2021-03-04 05:06:07" {} + || exit 99
# the access times of directories and symbolic links move when first
# read (relatime; readdir, readlink): before the runs, not between them
ls -lR "$tree" >/dev/null || exit 99

# run IMAGE [VAR=VALUE]: extkit-mkfs -d of the tree; stderr in IMAGE.err.
run() {
	_img=$1
	shift
	env EXTKIT_TEST_SAY_READER=1 EXTKIT_TEST_SAY_WRITER=1 \
		EXTKIT_TEST_DIRECT_AFTER=0 "$@" \
		timeout -k 5 "$TIMEOUT" "$MKFS" -q -F -U "$TEST_UUID" \
		-E "hash_seed=$TEST_SEED" -t ext2 -b 4096 -d "$tree" \
		"$_img" 16M >/dev/null 2>"$_img.err"
}
said() {
	sed -n 's/^reader: //p' "$1.err"
}
wrote() {
	sed -n 's/^writer: //p' "$1.err"
}

run "$tmpdir/ring.img" || fail "default: exit $?: $(cat "$tmpdir/ring.img.err")"
run "$tmpdir/calls.img" EXTKIT_MKFS_NO_URING=1 ||
	fail "EXTKIT_MKFS_NO_URING: exit $?: $(cat "$tmpdir/calls.img.err")"
run "$tmpdir/one.img" EXTKIT_MKFS_NO_READER=1 ||
	fail "EXTKIT_MKFS_NO_READER: exit $?: $(cat "$tmpdir/one.img.err")"
run "$tmpdir/cache.img" EXTKIT_MKFS_NO_DIRECT=1 ||
	fail "EXTKIT_MKFS_NO_DIRECT: exit $?: $(cat "$tmpdir/cache.img.err")"
run "$tmpdir/refused.img" EXTKIT_TEST_DIRECT_EINVAL=1 ||
	fail "O_DIRECT refused: exit $?: $(cat "$tmpdir/refused.img.err")"

ring=$(said "$tmpdir/ring.img")
case $ring in
io_uring) ok "the readers batch through io_uring by default" ;;
"system calls ("*) echo "note: no io_uring here: $ring (its check skipped)" ;;
"") echo "note: not a test-hooks build: which reader ran is not checked" ;;
*) fail "default reader: '$ring'" ;;
esac
calls=$(said "$tmpdir/calls.img")
case $calls in
"system calls (EXTKIT_MKFS_NO_URING)") ok "EXTKIT_MKFS_NO_URING: plain system calls" ;;
"") [ -z "$ring" ] || fail "EXTKIT_MKFS_NO_URING: no reader reported" ;;
*) fail "EXTKIT_MKFS_NO_URING reader: '$calls'" ;;
esac
one=$(said "$tmpdir/one.img")
case $one in
"builder only"|"") ;;
*) fail "EXTKIT_MKFS_NO_READER reader: '$one'" ;;
esac

direct=$(wrote "$tmpdir/ring.img")
case $direct in
O_DIRECT) ok "the file data goes out with O_DIRECT (EXTKIT_TEST_DIRECT_AFTER=0)" ;;
"O_DIRECT refused"|"page cache") echo "note: no O_DIRECT here ($direct): its check skipped" ;;
"") echo "note: not a test-hooks build: which writer ran is not checked" ;;
*) fail "default writer: '$direct'" ;;
esac
cache=$(wrote "$tmpdir/cache.img")
case $cache in
"page cache"|"") ;;
*) fail "EXTKIT_MKFS_NO_DIRECT writer: '$cache'" ;;
esac
# the page cache first, O_DIRECT after 64 KiB: the switch within a run
run "$tmpdir/mixed.img" EXTKIT_TEST_DIRECT_AFTER=65536 ||
	fail "switch to O_DIRECT: exit $?: $(cat "$tmpdir/mixed.img.err")"
# by default a tree this small goes through the page cache only
run "$tmpdir/small.img" EXTKIT_TEST_DIRECT_AFTER=268435456 ||
	fail "default threshold: exit $?: $(cat "$tmpdir/small.img.err")"
small=$(wrote "$tmpdir/small.img")
case $direct/$small in
"O_DIRECT/page cache") ok "below 256 MiB the page cache only" ;;
*/"page cache"|*/) ;;
*) fail "default threshold writer: '$small'" ;;
esac
refused=$(wrote "$tmpdir/refused.img")
case $direct/$refused in
"O_DIRECT/O_DIRECT refused") ok "O_DIRECT refused: the writes are made without it" ;;
*/"O_DIRECT refused"|*/"page cache"|*/) ;;
*) fail "EXTKIT_TEST_DIRECT_EINVAL writer: '$refused'" ;;
esac

if cmp -s "$tmpdir/ring.img" "$tmpdir/one.img" &&
	cmp -s "$tmpdir/calls.img" "$tmpdir/one.img"; then
	ok "io_uring, system calls, one thread: byte-identical (attributes: $xattrs)"
else
	fail "the images differ between io_uring, system calls and one thread"
fi
if cmp -s "$tmpdir/ring.img" "$tmpdir/cache.img" &&
	cmp -s "$tmpdir/refused.img" "$tmpdir/cache.img" &&
	cmp -s "$tmpdir/small.img" "$tmpdir/cache.img" &&
	cmp -s "$tmpdir/mixed.img" "$tmpdir/cache.img"; then
	ok "O_DIRECT (from the start, after 64 KiB, refused) and page cache writes: byte-identical"
else
	fail "the images differ between O_DIRECT and page cache writes"
fi
fsck_clean "the tree" "$tmpdir/ring.img" && ok "e2fsck -fn clean"

# Without root: an unreadable file is the same error either way.
if [ "$(id -u)" != 0 ]; then
	chmod 000 "$tree/f300"
	run "$tmpdir/e1.img"
	r1=$?
	run "$tmpdir/e2.img" EXTKIT_MKFS_NO_URING=1
	r2=$?
	m1=$(grep -v '^reader:' "$tmpdir/e1.img.err")
	m2=$(grep -v '^reader:' "$tmpdir/e2.img.err")
	if [ "$r1" = 1 ] && [ "$r2" = 1 ] && [ "$m1" = "$m2" ] &&
		echo "$m1" | grep -q 'f300.*[Pp]ermission denied'; then
		ok "an unreadable file: the same message either way ($m1)"
	else
		fail "unreadable file: exits $r1 $r2, '$m1' / '$m2'"
	fi
	chmod 644 "$tree/f300"
fi
finish
