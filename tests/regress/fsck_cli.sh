#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# extkit-fsck outside the f_ cases: clean images from mke2fs (ext2, block
# sizes 1 KiB to 64 KiB; ext4 with metadata_csum at 1 and 4 KiB), htree
# directories made by e2fsck -fD, shared
# extended attribute blocks) give exit 0
# and no complaint on -fn; -n never writes a byte (checksums before and
# after, on a damaged image too); the option rules (-n/-y/-p exclusive:
# exit 16 with one line; no terminal: exit 8; a clean filesystem without
# -f: "clean" and exit 0, unless a free count is impossible or a check is
# due (mount count, check interval: e2fsck's words); preen stops
# on an unsafe problem with exit 4).
. "${top_srcdir:-.}/tests/regress/env.sh"
cd "$tmpdir" || exit 99
. "$REGRESS_DIR/helpers.sh"

# clean_ok DESC: extkit-fsck -fn exits 0, prints only the pass headers
# and the summary, and does not write.
clean_ok() {
	_sum=$(sha256sum image)
	_rc=$(fsck_rc out -fn image)
	_extra=$(grep -v -e '^Pass [1-5]: ' -e '^image: [0-9]*/[0-9]* files' out)
	if sanitizer_report out; then
		fail "$1: sanitizer report"
		sed 's/^/    /' out | head -20
	elif [ "$_rc" -ne 0 ] || [ -n "$_extra" ]; then
		fail "$1: exit $_rc"
		sed 's/^/    /' out | head -20
	elif [ "$(sha256sum image)" != "$_sum" ]; then
		fail "$1: -n changed the image"
	else
		ok "$1: clean"
	fi
}

for bs in 1024 2048 4096 8192 16384 32768 65536; do
	size=16M
	[ "$bs" -ge 16384 ] && size=128M
	mkimg "$bs" "$size"
	populate
	many d1/many 300
	clean_ok "mke2fs ext2 -b $bs"
	$E2FSCK -fyD image >/dev/null 2>&1
	clean_ok "mke2fs ext2 -b $bs after e2fsck -fD (htree)"
done
for bs in 1024 4096; do
	mkimg4 "$bs" 32M
	populate
	many d1/many 300
	clean_ok "mke2fs ext4 (metadata_csum) -b $bs"
	$E2FSCK -fyD image >/dev/null 2>&1
	clean_ok "mke2fs ext4 (metadata_csum) -b $bs after e2fsck -fD (htree)"
done
mkimg 1024 8M -O ^dir_index,^filetype,^resize_inode,^sparse_super
populate
clean_ok "mke2fs ext2 without filetype, sparse_super, resize_inode"
mkimg 4096 64M -r 0
populate
clean_ok "mke2fs revision 0"
mkimg 1024 9000K
populate
clean_ok "mke2fs ext2 with a short last group"

# share_eas N K: N extended attribute blocks, each named by K files of
# d1/many (made by many) with h_refcount K, as the kernel shares them.
share_eas() {
	_i=0
	while [ "$_i" -lt "$1" ]; do
		_f=$((_i * $2))
		_src=$(printf 'd1/many/f%04d' "$_f")
		dbg "ea_set $_src user.k$_i value-$_i" "ea_set $_src user.c same"
		_b=$(file_acl "$_src")
		_paths=
		_j=1
		while [ "$_j" -lt "$2" ]; do
			_paths="$_paths $(printf 'd1/many/f%04d' $((_f + _j)))"
			_j=$((_j + 1))
		done
		# shellcheck disable=SC2086
		ea_share "$_b" $_paths
		dirent "$_b" 0 u32@4 "$2"
		_i=$((_i + 1))
	done
}
for bs in 1024 4096; do
	mkimg "$bs" 16M -I 128 -O ext_attr
	populate
	many d1/many 60 x
	share_eas 10 6
	if ! $E2FSCK -fn image >/dev/null 2>&1; then
		fail "shared EA blocks -b $bs: e2fsck -fn rejects the setup"
	else
		clean_ok "mke2fs ext2 -b $bs, 10 EA blocks shared by 6 files each"
	fi
done

# -n on damage: reports, exit 4, not a byte written.
mkimg 1024 8M
populate
dbg "clri d1/file1" "set_inode_field top links_count 7" "freeb 100 20"
sum=$(sha256sum image)
rc=$(fsck_rc out -fn image)
if [ "$rc" -ne 4 ] || [ "$(sha256sum image)" != "$sum" ]; then
	fail "-n on a damaged image: exit $rc, or the image changed"
else
	ok "-n on a damaged image: exit 4, image unchanged"
fi

# preen: a safe problem is fixed (exit 1), an unsafe one stops (exit 4).
mkimg 1024 8M
populate
dbg "set_inode_field top links_count 7"
rc=$(fsck_rc out -fp image)
[ "$rc" -eq 1 ] && ok "-p fixes a link count (exit 1)" ||
	{ fail "-p on a link count: exit $rc"; cat out; }
dbg "clri <12>"
rc=$(fsck_rc out -fp image)
if [ "$rc" -eq 4 ] && grep -q 'UNEXPECTED INCONSISTENCY; RUN fsck MANUALLY' out
then
	ok "-p stops on an unsafe problem (exit 4)"
else
	fail "-p on an unsafe problem: exit $rc"
	cat out
fi

# Option rules.
mkimg 1024 8M
for opts in "-n -y" "-y -p" "-p -n" "-a -n"; do
	# shellcheck disable=SC2086
	rc=$(fsck_rc out $opts image)
	lines=$(wc -l <out)
	if [ "$rc" -eq 16 ] && [ "$lines" -eq 1 ]; then
		ok "$opts: exit 16, one line"
	else
		fail "$opts: exit $rc, $lines lines"
	fi
done
rc=$(fsck_rc out image)
if [ "$rc" -eq 8 ] && grep -q 'need terminal for interactive repairs' out
then
	ok "no option without a terminal: exit 8"
else
	fail "no option without a terminal: exit $rc"
fi
rc=$(fsck_rc out -n image)
if [ "$rc" -eq 0 ] && grep -q '^image: clean, [0-9]*/[0-9]* files, [0-9]*/[0-9]* blocks$' out
then
	ok "clean filesystem without -f: skipped"
else
	fail "clean filesystem without -f: exit $rc"
	cat out
fi
# A clean mark is not believed when a free count is larger than its total:
# reported (pass 0), checked in full, then clean again.
dbg "ssv free_blocks_count 99999"
rc=$(fsck_rc out -y image)
if [ "$rc" -eq 1 ] && ! grep -q 'clean,' out &&
   grep -q '^The superblock free blocks count 99999 is larger' out &&
   [ "$(fsck_rc out -n image)" -eq 0 ] && grep -q '^image: clean, ' out
then
	ok "clean mark with an impossible free count: checked and fixed"
else
	fail "clean mark with an impossible free count: exit $rc"
	cat out
fi
rc=$(fsck_rc out -b 99999999 -n image)
[ "$rc" -eq 8 ] && ok "-b past the end: exit 8" || fail "-b past the end: exit $rc"
for args in "-b 0 -n image" "-B 1000 -n image" "-x image" \
	    "-n" "-n image image2"; do
	# shellcheck disable=SC2086
	rc=$(fsck_rc out $args)
	[ "$rc" -eq 16 ] && ok "$args: exit 16" ||
		{ fail "$args: exit $rc"; cat out; }
done
rc=$(fsck_rc out -V)
[ "$rc" -eq 0 ] && ok "-V: exit 0" || fail "-V: exit $rc"
rc=$(fsck_rc out -fn /nonexistent/image)
[ "$rc" -eq 8 ] && ok "missing image: exit 8" || fail "missing image: exit $rc"
# No superblock anywhere: exit 8, on stderr only, naming the target, what
# was tried and what -b would do.
head -c 4194304 /dev/zero >zero.img
"$FSCK" -fn zero.img >out 2>err
rc=$?
if [ $rc -eq 8 ] && [ ! -s out ] && grep -q '^extkit-fsck: zero.img: no usable superblock: .*groups 1, 3, 5, 7 or 9' err &&
   grep -q -- '-b 8193 -B 1024' err; then
	ok "no superblock: exit 8, stderr names what was tried and -b"
else
	fail "no superblock: exit $rc"
	sed 's/^/    /' out err | head
fi
# -E: a bad option is named with its value and the known ones; --help
# lists them.
"$FSCK" -fn -E compact_threshold=200 zero.img >out 2>err
rc=$?
if [ $rc -eq 16 ] && grep -q "invalid extended option 'compact_threshold=200' (known: journal_only, compact_threshold=N" err &&
   "$FSCK" --help | grep -q 'journal_only' &&
   "$FSCK" --help | grep -q 'compact_threshold'; then
	ok "-E: bad value named, exit 16; --help lists the -E options"
else
	fail "-E message: exit $rc, $(cat err)"
fi
# A filesystem marked clean but due for a check (e2fsck's check_if_skip):
# mounted s_max_mnt_count times, s_checkinterval gone by, s_lastcheck
# more than a day ahead of the clock, a group descriptor counting more
# than its group holds; each is checked without -f and says why in e2fsck's words (its first
# line and exit status compared), the others say "clean".
due_case() {
	mkimg 1024 4M
	dbg "ssv lastcheck 20200101" "ssv mtime 20200101" "$@"
	cp image e2image
	"$FSCK" -p image >out 2>&1
	rc=$?
	$E2FSCK -p e2image >e2out 2>&1
	e2rc=$?
	# the same words (the clocks differ: extkit's is pinned here)
	sed -n 1p out | sed 's/[0-9][0-9]*/N/g' >why
	sed -n 1p e2out | sed 's/^e2image/image/; s/[0-9][0-9]*/N/g' >e2why
}
for c in "ssv max_mnt_count 20|ssv mnt_count 20|has been mounted N times" \
	 "ssv checkinterval 86400|ssv lastcheck 20200101|has gone" \
	 "ssv checkinterval 86400|ssv lastcheck 20991231|last checked time in the future" \
	 "ssv max_mnt_count -1|ssv mnt_count 30000|clean" \
	 "ssv checkinterval 0|ssv lastcheck 20200101|clean" \
	 "set_bg 0 free_inodes_count 60000|ssv mnt_count 0|contains a file system with errors"; do
	a=${c%%|*}; r=${c#*|}; b=${r%%|*}; want=${r#*|}
	due_case "$a" "$b"
	if [ "$rc" -eq "$e2rc" ] && grep -q "$want" why && cmp -s why e2why
	then
		ok "due for a check ($a, $b): $(cat why)"
	else
		fail "due for a check ($a, $b): exit $rc: $(cat why) / e2fsck: exit $e2rc: $(cat e2why)"
	fi
done
finish
