#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The checksum-rewrite unit fixture (tests/unit/csfs.c: a journal, an
# htree, a block-mapped directory, an extent tree block, an EA block, an
# EA inode and the entry naming it, all under metadata_csum) judged by
# e2fsck, as test_csum_rewrite judges it with lib's own verifiers. The
# suite writes the images (EXTKIT_TEST_CSFS_DIR):
#   before.img and after.img (the rewrite committed): e2fsck -fn clean
#   (1.47.0, and 1.47.4 where built), dumpe2fs shows the old and the new
#   UUID;
#   after.img with the old UUID put back by debugfs: e2fsck -fn refuses
#   it (the checksums follow the new one);
#   cut.img (the commit cut right after its commit point): e2fsck
#   replays the journal (-E journal_only), then -fn is clean with the new
#   UUID.
. "${top_srcdir:-.}/tests/lib.sh"
need_tools e2fsck dumpe2fs debugfs
CHECK_ALL=$top_builddir/tests/unit/check-all
[ -x "$CHECK_ALL" ] || skip "tests/unit/check-all not built"
E2FSCK_NEW=${E2FSCK_NEW:-/work/e2fsprogs-src/e2fsck/e2fsck}
OLD=10111213-1415-1617-1819-1a1b1c1d1e1f
NEW=0b7e4a1c-2f3d-4e5a-9b6c-7d8e9f0a1b2c

if ! EXTKIT_TEST_CSFS_DIR=$tmpdir CK_RUN_SUITE=csum_rewrite \
	CK_RUN_CASE=images timeout -k 5 "$TIMEOUT" "$CHECK_ALL" \
	>"$tmpdir/ck.out" 2>&1; then
	fail "the unit suite did not write the images"
	sed 's/^/    /' "$tmpdir/ck.out"
	finish
fi

uuid_of() { "$DUMPE2FS" -h "$1" 2>/dev/null | sed -n 's/^Filesystem UUID: *//p'; }

# uuid_is NAME IMAGE UUID
uuid_is() {
	u=$(uuid_of "$2")
	if [ "$u" = "$3" ]; then
		ok "$1: UUID $3"
	else
		fail "$1: UUID $u, not $3"
	fi
}

# clean NAME IMAGE: e2fsck -fn (each version at hand) exits 0.
clean() {
	for fsck in "$E2FSCK" "$E2FSCK_NEW"; do
		[ -x "$fsck" ] || continue
		if timeout -k 5 "$TIMEOUT" "$fsck" -fn "$2" >"$tmpdir/fsck.out" 2>&1
		then
			ok "$1: $("$fsck" -V 2>&1 | head -1 | cut -d' ' -f1-2) -fn clean"
		else
			fail "$1: $fsck -fn"
			sed 's/^/    /' "$tmpdir/fsck.out" | head -20
		fi
	done
}

clean "before the rewrite" "$tmpdir/before.img"
uuid_is before "$tmpdir/before.img" "$OLD"
clean "after the rewrite" "$tmpdir/after.img"
uuid_is after "$tmpdir/after.img" "$NEW"

cp "$tmpdir/after.img" "$tmpdir/ctl.img"
"$DEBUGFS" -w -R "ssv uuid $OLD" "$tmpdir/ctl.img" >/dev/null 2>&1 ||
	fail "debugfs ssv uuid"
if timeout -k 5 "$TIMEOUT" "$E2FSCK" -fn "$tmpdir/ctl.img" \
	>"$tmpdir/ctl.out" 2>&1; then
	fail "the new checksums under the old UUID: e2fsck -fn clean"
else
	ok "the new checksums under the old UUID: e2fsck -fn refuses"
fi

img=$tmpdir/cut.img
if timeout -k 5 "$TIMEOUT" "$E2FSCK" -E journal_only -y "$img" \
	>"$tmpdir/replay.out" 2>&1 && grep -q 'recovering journal' \
	"$tmpdir/replay.out"; then
	ok "cut after the commit point: e2fsck replays the journal"
else
	fail "cut: e2fsck -E journal_only"
	sed 's/^/    /' "$tmpdir/replay.out" | head -10
fi
clean "cut, replayed" "$img"
uuid_is "cut, replayed" "$img" "$NEW"
finish
