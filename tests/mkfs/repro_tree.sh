#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Reproducible images from trees (issue 35): the same content made on two
# "hosts" -- entries created in opposite orders (so readdir returns them
# in other orders), hard links whose first name differs, a sparse file
# against the same bytes written out, attributes set in another order --
# gives the same image bytes with -U, -E hash_seed= and SOURCE_DATE_EPOCH.
# -E hard_dereference: a tree with hard links gives the same bytes as the
# tree with copies. -E clamp_mtime: times after SOURCE_DATE_EPOCH are
# clamped (the default with it), =0 keeps them.
. "${top_srcdir:-.}/tests/lib.sh"
. "$top_srcdir/tests/mkfs/mkfs-lib.sh"
need_tools e2fsck debugfs

SETFATTR=$(find_tool setfattr) || SETFATTR=

# tree DIR ORDER: the content, entries made in ORDER (up or down).
tree() {
	_d=$1
	mkdir -p "$_d/many" "$_d/links" || exit 99
	if [ "$2" = up ]; then _seq=$(seq 1 300); else _seq=$(seq 300 -1 1); fi
	for i in $_seq; do
		echo "file $i" >"$_d/many/f$i"
	done
	if [ "$2" = up ]; then
		echo linked >"$_d/links/a"
		ln "$_d/links/a" "$_d/links/b"
		ln "$_d/links/a" "$_d/many/zz"
		truncate -s 1M "$_d/sparse"
		printf end >>"$_d/sparse"
	else
		echo linked >"$_d/many/zz"
		ln "$_d/many/zz" "$_d/links/b"
		ln "$_d/many/zz" "$_d/links/a"
		head -c 1048576 /dev/zero >"$_d/sparse"
		printf end >>"$_d/sparse"
	fi
	if [ -n "$SETFATTR" ]; then
		if [ "$2" = up ]; then _attrs="one two three"; else _attrs="three two one"; fi
		for a in $_attrs; do
			"$SETFATTR" -n "user.$a" -v "value-$a" "$_d/many/f1" 2>/dev/null
		done
	fi
	chmod -R u=rwX,go=rX "$_d"
	find "$_d" -exec touch -h -d @1600000000 {} +
}

# b on another filesystem where there is one (tmpfs lists names newest
# first, ext4 by the hash of its own seed): another readdir order
shm=
if [ -d /dev/shm ] && [ -w /dev/shm ] && shm=$(mktemp -d /dev/shm/extkit-repro.XXXXXX); then
	trap 'rm -rf "$tmpdir" "$shm"' EXIT
	ln -s "$shm" "$tmpdir/b"
fi
tree "$tmpdir/a" up
tree "$tmpdir/b/" down
if [ "$(ls -f "$tmpdir/a/many" | head -5)" != "$(ls -f "$tmpdir/b/many" | head -5)" ]; then
	ok "the two trees list their names in different orders"
else
	echo "note: readdir gives both trees in the same order here"
fi
[ "$(stat -c %i "$tmpdir/a/links/a")" != "$(stat -c %i "$tmpdir/b/links/a")" ] ||
	fail "the trees share inode numbers"

mk() {
	_img=$1
	shift
	rm -f "$_img"
	run_mkfs "$tmpdir/out" "$tmpdir/err" -q -U "$TEST_UUID" \
		-E "hash_seed=$TEST_SEED" "$@" "$_img" 16M ||
		{ fail "extkit-mkfs $*: $(cat "$tmpdir/err")"; return 1; }
	fsck_clean "extkit-mkfs $*" "$_img"
}

mk "$tmpdir/a.img" -d "$tmpdir/a"
mk "$tmpdir/b.img" -d "$tmpdir/b"
cmp -s "$tmpdir/a.img" "$tmpdir/b.img" &&
	ok "the same tree made in two orders: the same image bytes" ||
	fail "two orders differ: $(cmp "$tmpdir/a.img" "$tmpdir/b.img" 2>&1 | head -1)"
EXTKIT_MKFS_NO_READER=1 mk "$tmpdir/b1.img" -d "$tmpdir/b"
cmp -s "$tmpdir/a.img" "$tmpdir/b1.img" &&
	ok "... and with one thread reading" ||
	fail "one thread: $(cmp "$tmpdir/a.img" "$tmpdir/b1.img" 2>&1 | head -1)"

# hard_dereference: links become copies, as in a tree without links.
cp -a "$tmpdir/a" "$tmpdir/c"
for f in links/a links/b many/zz; do
	cp -p "$tmpdir/a/$f" "$tmpdir/c/$f.tmp" && mv "$tmpdir/c/$f.tmp" "$tmpdir/c/$f"
done
[ "$(stat -c %h "$tmpdir/c/links/a")" = 1 ] || fail "the copy kept a link"
# (cp read a's files: their access times too)
find "$tmpdir/a" "$tmpdir/c" -exec touch -h -d @1600000000 {} +
mk "$tmpdir/c.img" -d "$tmpdir/c"
mk "$tmpdir/ad.img" -d "$tmpdir/a" -E hard_dereference
cmp -s "$tmpdir/ad.img" "$tmpdir/c.img" &&
	ok "-E hard_dereference: the same bytes as the tree without links" ||
	fail "hard_dereference differs from the copies: $(cmp "$tmpdir/ad.img" "$tmpdir/c.img" 2>&1 | head -1)"
cmp -s "$tmpdir/a.img" "$tmpdir/c.img" &&
	fail "with and without links: the same image (the check above proves nothing)"
"$DEBUGFS" -R "stat /links/a" "$tmpdir/ad.img" 2>/dev/null |
	grep -q "Links: 1" && ok "-E hard_dereference: one link each" ||
	fail "hard_dereference: /links/a has more than one link"
if tar -C "$tmpdir/a" -cf "$tmpdir/a.tar" . 2>/dev/null; then
	rm -f "$tmpdir/t.img"
	run_mkfs "$tmpdir/out" "$tmpdir/err" -q -d "$tmpdir/a.tar" \
		-E hard_dereference "$tmpdir/t.img" 16M
	[ $? -eq 1 ] && [ ! -e "$tmpdir/t.img" ] &&
		grep -q "hard_dereference: with a directory" "$tmpdir/err" &&
		ok "-E hard_dereference with an archive: refused" ||
		fail "hard_dereference with an archive: $(cat "$tmpdir/err")"
fi

# clamp_mtime: a time after SOURCE_DATE_EPOCH (1700000000).
mkdir "$tmpdir/t" && echo x >"$tmpdir/t/future" &&
	touch -d @1900000000 "$tmpdir/t/future" || exit 99
mtime() {
	"$DEBUGFS" -R "stat /future" "$1" 2>/dev/null |
		sed -n 's/^ *mtime: 0x\([0-9a-f]*\).*/\1/p' | head -1
}
mk "$tmpdir/t1.img" -d "$tmpdir/t"
mk "$tmpdir/t2.img" -d "$tmpdir/t" -E clamp_mtime
mk "$tmpdir/t3.img" -d "$tmpdir/t" -E clamp_mtime=0
[ "$(mtime "$tmpdir/t1.img")" = 6553f100 ] &&
[ "$(mtime "$tmpdir/t2.img")" = 6553f100 ] &&
	ok "clamped to SOURCE_DATE_EPOCH (by default and with -E clamp_mtime)" ||
	fail "clamp: $(mtime "$tmpdir/t1.img") $(mtime "$tmpdir/t2.img")"
[ "$(mtime "$tmpdir/t3.img")" = 713fb300 ] &&
	ok "-E clamp_mtime=0 keeps a later time" ||
	fail "clamp_mtime=0: $(mtime "$tmpdir/t3.img")"
rm -f "$tmpdir/t4.img"
(unset SOURCE_DATE_EPOCH EXTKIT_FAKE_TIME
 run_mkfs "$tmpdir/out" "$tmpdir/err" -q -d "$tmpdir/t" -E clamp_mtime \
	"$tmpdir/t4.img" 16M)
[ $? -eq 1 ] && [ ! -e "$tmpdir/t4.img" ] &&
	grep -q "SOURCE_DATE_EPOCH is not set" "$tmpdir/err" &&
	ok "-E clamp_mtime without SOURCE_DATE_EPOCH: refused" ||
	fail "clamp_mtime without the epoch: $(cat "$tmpdir/err")"

finish
