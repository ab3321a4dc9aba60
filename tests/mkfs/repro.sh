#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Reproducible images: with SOURCE_DATE_EPOCH and -U, two runs give the
# same bytes, also over an old file full of junk (every byte extkit-mkfs
# does not write must read as zero). The hash seed then comes from the
# UUID; without the fixed time and UUID, runs differ. A new sparse image
# allocates almost nothing: inode tables stay holes.
. "${top_srcdir:-.}/tests/lib.sh"
. "$top_srcdir/tests/mkfs/mkfs-lib.sh"
need_tools e2fsck dumpe2fs

a=$tmpdir/a.img
b=$tmpdir/b.img

mk() {
	run_mkfs "$tmpdir/out" "$tmpdir/err" -q "$@" ||
		fail "extkit-mkfs $*: $(cat "$tmpdir/err")"
}

for opts in "-b 1024" "-b 4096 -O resize_inode" "-b 65536 -I 128"; do
	rm -f "$a" "$b"
	# shellcheck disable=SC2086
	mk $opts -U "$TEST_UUID" -L repro "$a" 64M
	# shellcheck disable=SC2086
	mk $opts -U "$TEST_UUID" -L repro "$b" 64M
	cmp -s "$a" "$b" && ok "$opts: two runs are byte-identical" ||
		fail "$opts: two runs differ: $(cmp "$a" "$b" 2>&1 | head -1)"
	# An old file of junk, formatted with and without SIZE.
	head -c 67108864 /dev/urandom >"$b"
	# shellcheck disable=SC2086
	mk $opts -F -U "$TEST_UUID" -L repro "$b"
	cmp -s "$a" "$b" && ok "$opts: over 64 MiB of junk: identical" ||
		fail "$opts: over junk: $(cmp "$a" "$b" 2>&1 | head -1)"
	head -c 70000000 /dev/urandom >"$b"
	# shellcheck disable=SC2086
	mk $opts -F -U "$TEST_UUID" -L repro "$b" 64M
	# the file keeps its length (as mke2fs): its first 64 MiB compared
	cmp -s -n 67108864 "$a" "$b" && [ "$(stat -c %s "$b")" = 70000000 ] &&
		ok "$opts: over a larger junk file, SIZE given: identical, its length kept" ||
		fail "$opts: over junk with SIZE: $(cmp -n 67108864 "$a" "$b" 2>&1 | head -1), $(stat -c %s "$b") bytes"
	fsck_clean "$opts" "$b"
done

# ext3/ext4: the journal included (its log left as holes, or zeroed over
# junk); over junk the inode tables are zeroed (lazy_itable_init=0) as
# mke2fs would leave them otherwise.
for opts in "-t ext4" "-t ext3 -b 4096" "-t ext4 -b 1024 -O ^metadata_csum,^flex_bg"; do
	rm -f "$a" "$b"
	# shellcheck disable=SC2086
	MKE2FS_CONFIG=$top_srcdir/tests/mkfs/mke2fs-ext4.conf \
		mk $opts -E lazy_itable_init=0 -U "$TEST_UUID" "$a" 80M
	# shellcheck disable=SC2086
	MKE2FS_CONFIG=$top_srcdir/tests/mkfs/mke2fs-ext4.conf \
		mk $opts -E lazy_itable_init=0 -U "$TEST_UUID" "$b" 80M
	cmp -s "$a" "$b" && ok "$opts: two runs are byte-identical" ||
		fail "$opts: two runs differ: $(cmp "$a" "$b" 2>&1 | head -1)"
	head -c 83886080 /dev/urandom >"$b"
	# shellcheck disable=SC2086
	MKE2FS_CONFIG=$top_srcdir/tests/mkfs/mke2fs-ext4.conf \
		mk $opts -E lazy_itable_init=0 -F -U "$TEST_UUID" "$b"
	cmp -s "$a" "$b" && ok "$opts: over 80 MiB of junk: identical" ||
		fail "$opts: over junk: $(cmp "$a" "$b" 2>&1 | head -1)"
	fsck_clean "$opts" "$b"
	[ "$(sb_field "$b" 'Journal inode')" = 8 ] ||
		fail "$opts: no journal"
done

seed1=$(sb_field "$a" 'Directory Hash Seed')
[ "$seed1" != "$TEST_UUID" ] && [ -n "$seed1" ] &&
	ok "hash seed derived from the UUID: $seed1" ||
	fail "hash seed '$seed1'"
mk -U 11111111-2222-3333-4444-555555555555 -F "$b" 8M
seed2=$(sb_field "$b" 'Directory Hash Seed')
[ "$seed1" != "$seed2" ] && ok "another UUID, another seed: $seed2" ||
	fail "the same seed for another UUID"
mk -U "$TEST_UUID" -E hash_seed="$TEST_SEED" -F "$b" 8M
[ "$(sb_field "$b" 'Directory Hash Seed')" = "$TEST_SEED" ] &&
	ok "-E hash_seed= wins" || fail "-E hash_seed= ignored"
[ "$(sb_field "$b" 'Filesystem created')" = "$(TZ=UTC LC_ALL=C date -d @"$SOURCE_DATE_EPOCH" '+%a %b %e %H:%M:%S %Y')" ] &&
	ok "creation time is SOURCE_DATE_EPOCH" ||
	fail "creation time $(sb_field "$b" 'Filesystem created')"

# Without the knobs every run is new.
rm -f "$a" "$b"
(unset SOURCE_DATE_EPOCH E2FSPROGS_FAKE_TIME EXTKIT_FAKE_TIME
 "$MKFS" -q "$a" 8M && "$MKFS" -q "$b" 8M) || fail "runs without knobs"
u1=$(sb_field "$a" 'Filesystem UUID')
u2=$(sb_field "$b" 'Filesystem UUID')
s1=$(sb_field "$a" 'Directory Hash Seed')
s2=$(sb_field "$b" 'Directory Hash Seed')
[ "$u1" != "$u2" ] && [ "$s1" != "$s2" ] &&
	ok "without SOURCE_DATE_EPOCH and -U: random UUID and seed" ||
	fail "runs without knobs share UUID or seed ($u1 $u2 $s1 $s2)"
EXTKIT_FAKE_TIME=1234567890 SOURCE_DATE_EPOCH= "$MKFS" -q -F "$a" 8M
case $(sb_field "$a" 'Filesystem created') in
*2009) ok "EXTKIT_FAKE_TIME sets the time when SOURCE_DATE_EPOCH is unset" ;;
*) fail "EXTKIT_FAKE_TIME ignored: $(sb_field "$a" 'Filesystem created')" ;;
esac

# Sparse: a 4 GiB image allocates little (bitmaps, descriptors, the
# first inode table block, root and lost+found).
rm -f "$a"
mk "$a" 4G
kib=$(du -k "$a" | cut -f1)
[ "$kib" -lt 1024 ] && ok "a 4 GiB image allocates $kib KiB" ||
	fail "a 4 GiB image allocates $kib KiB"
finish
