#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# extkit-mkfs -n prints the layout and writes nothing: an existing image
# keeps every byte (sha256 before and after), a missing one is not
# created. The layout it prints is the one a real run then writes.
. "${top_srcdir:-.}/tests/lib.sh"
. "$top_srcdir/tests/mkfs/mkfs-lib.sh"
need_tools e2fsck dumpe2fs

img=$tmpdir/fs.img
new=$tmpdir/new.img

# expect_dry DESC TARGET ARGS...: exit 0, "dry run" in the report, nothing
# on stderr, TARGET unchanged.
expect_dry() {
	_desc=$1
	_target=$2
	shift 2
	_before=$(sha "$_target")
	run_mkfs "$tmpdir/out" "$tmpdir/err" "$@"
	_rc=$?
	_after=$(sha "$_target")
	if [ "$_rc" -ne 0 ] || [ -s "$tmpdir/err" ]; then
		fail "$_desc: exit $_rc: $(cat "$tmpdir/err")"
	elif ! grep -q '^dry run: nothing written$' "$tmpdir/out"; then
		fail "$_desc: no 'dry run' line in the report"
	elif [ "$_before" != "$_after" ]; then
		fail "$_desc: target changed ($_before -> $_after)"
	else
		ok "$_desc: exit 0, target unchanged ($_after)"
	fi
}

run_mkfs "$tmpdir/out" "$tmpdir/err" -q -L before "$img" 32M ||
	fail "first mkfs: $(cat "$tmpdir/err")"
expect_dry "-n -F on an existing filesystem" "$img" -n -F "$img"
expect_dry "-n -F with other geometry" "$img" -n -F -b 4096 -I 128 \
	-O resize_inode,^dir_index -L after "$img" 16M
expect_dry "-n -v -F" "$img" -n -v -F "$img"
groups=$(grep -c '^group [0-9]*:' "$tmpdir/out")
[ "$groups" -eq 4 ] && ok "-n -v lists the 4 groups of 32 MiB" ||
	fail "-n -v listed $groups groups, expected 4"
expect_dry "-n on a missing file" "$new" -n "$new" 1G
[ "$(sb_field "$img" 'Filesystem volume name')" = before ] &&
	ok "the label is still 'before'" ||
	fail "the label changed: $(sb_field "$img" 'Filesystem volume name')"

EXTKIT_DEVICE_SECTSIZE=4096 run_mkfs "$tmpdir/out" "$tmpdir/err" -n "$new" 8M
grep -q '^block size: *4096$' "$tmpdir/out" &&
	ok "4 KiB sectors raise the default block size of 8 MiB to 4096" ||
	fail "4 KiB sectors: $(grep '^block size' "$tmpdir/out")"

# The dry-run report matches what a real run writes.
run_mkfs "$tmpdir/dry" "$tmpdir/err" -n -U "$TEST_UUID" "$new" 100M
run_mkfs "$tmpdir/real" "$tmpdir/err" -U "$TEST_UUID" "$new" 100M ||
	fail "real run: $(cat "$tmpdir/err")"
sed -e '/^dry run/d' -e 's/(image file, [a-z]*)//' "$tmpdir/dry" >"$tmpdir/a"
sed -e 's/(image file, [a-z]*)//' "$tmpdir/real" >"$tmpdir/b"
diff -u "$tmpdir/a" "$tmpdir/b" >"$tmpdir/diff" &&
	ok "the dry-run report equals the real run's" ||
	{ fail "dry-run and real reports differ"; sed 's/^/    /' "$tmpdir/diff"; }
fsck_clean "the real run" "$new" && ok "the real run is e2fsck clean"
blocks=$(sed -n 's/^blocks: *\([0-9]*\).*/\1/p' "$tmpdir/real")
[ "$blocks" = "$(sb_field "$new" 'Block count')" ] &&
	ok "report and dumpe2fs agree: $blocks blocks" ||
	fail "report says $blocks blocks, dumpe2fs $(sb_field "$new" 'Block count')"
finish
