#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# What extkit-mkfs refuses: bad arguments, sizes too small, unknown or
# unsupported features, long labels, and targets holding a filesystem,
# swap area or partition table (without -F). Each refusal is exit 1 with
# one line on stderr, and the target is left byte for byte as it was (or
# not created at all). -F then overwrites.
. "${top_srcdir:-.}/tests/lib.sh"
. "$top_srcdir/tests/mkfs/mkfs-lib.sh"
need_tools e2fsck dumpe2fs

# refuse DESC TARGET PATTERN ARGS...: exit 1, one stderr line starting
# "extkit-mkfs: " and matching PATTERN, TARGET unchanged.
refuse() {
	_desc=$1
	_target=$2
	_pat=$3
	shift 3
	_before=$(sha "$_target")
	run_mkfs "$tmpdir/out" "$tmpdir/err" "$@"
	_rc=$?
	_after=$(sha "$_target")
	if sanitizer_report "$tmpdir/err"; then
		fail "$_desc: sanitizer report"
		head -20 "$tmpdir/err" | sed 's/^/    /'
	elif [ "$_rc" -ne 1 ]; then
		fail "$_desc: exit $_rc, expected 1"
		head -5 "$tmpdir/err" | sed 's/^/    /'
	elif [ "$(wc -l <"$tmpdir/err")" -ne 1 ] ||
	     ! grep -q "^extkit-mkfs: .*$_pat" "$tmpdir/err"; then
		fail "$_desc: stderr is not one line matching '$_pat':"
		sed 's/^/    /' "$tmpdir/err"
	elif [ "$_before" != "$_after" ]; then
		fail "$_desc: $_target changed ($_before -> $_after)"
	else
		ok "$_desc: $(cat "$tmpdir/err")"
	fi
}

new=$tmpdir/new.img
img=$tmpdir/fs.img

# Arguments: nothing may be created.
refuse "no target" "$new" "no TARGET"
refuse "extra argument" "$new" "unexpected argument" "$new" 8M junk
refuse "unknown option" "$new" "unknown option" --frobnicate "$new" 8M
refuse "missing file without SIZE" "$new" "give a SIZE" "$new"
refuse "bad SIZE" "$new" "invalid size" "$new" 12Q
refuse "too small (40 KiB)" "$new" "too small" "$new" 40K
refuse "too small (1 MiB of 64 KiB blocks)" "$new" "too small" \
	-b 65536 "$new" 1M
refuse "block size 3000" "$new" "invalid block size" -b 3000 "$new" 8M
refuse "block size 512" "$new" "invalid block size" -b 512 "$new" 8M
refuse "block size 128K" "$new" "invalid block size" -b 128K "$new" 8M
refuse "inode size 100" "$new" "invalid inode size" -I 100 "$new" 8M
refuse "inode size 384" "$new" "invalid inode size" -I 384 "$new" 8M
refuse "inode size over block size" "$new" "larger than the block size" \
	-b 1024 -I 2048 "$new" 8M
refuse "bytes per inode 512" "$new" "invalid bytes per inode" \
	-i 512 "$new" 8M
refuse "too many inodes" "$new" "do not fit" -N 60000 "$new" 8M
refuse "reserved 60%" "$new" "reserved blocks percent" -m 60 "$new" 8M
refuse "unknown feature" "$new" "unknown feature 'frob'" \
	-O frob "$new" 8M
refuse "unsupported feature" "$new" "'compression' is not supported" \
	-O compression "$new" 8M
refuse "bigalloc without extents" "$new" "bigalloc needs the extent feature" \
	-t ext4 -O bigalloc,^extent "$new" 8M
refuse "resize_inode without sparse_super" "$new" "needs sparse_super" \
	-O resize_inode,^sparse_super "$new" 8M
refuse "bad UUID" "$new" "invalid UUID" -U not-a-uuid "$new" 8M
refuse "bad hash seed" "$new" "invalid hash seed" \
	-E hash_seed=xyz "$new" 8M
# mke2fs options extkit-mkfs does not have: refused by name
refuse "-c (bad-block scan)" "$new" "-c: " -c "$new" 8M
env PATH=/nonexistent "$MKFS" -c "$new" 8M 2>"$tmpdir/err"
[ $? = 1 ] && [ ! -e "$new" ] &&
grep -q '^extkit-mkfs: -c: badblocks is not installed' "$tmpdir/err" &&
	ok "-c without badblocks: $(cat "$tmpdir/err")" ||
	fail "-c without badblocks: $(cat "$tmpdir/err")"
refuse "-E offset= with --partition" "$new" "give one place" \
	-E offset=4096 --partition 1 "$new" 8M
refuse "-E offset=junk" "$new" "-E offset: invalid offset" \
	-E offset=4k "$new" 8M
refuse "unknown -E option" "$new" "unknown extended option" \
	-E frob=4 "$new" 8M
refuse "type ext5" "$new" "not supported" -t ext5 "$new" 8M
refuse "64bit without extent" "$new" "64bit needs the extent feature" \
	-O 64bit "$new" 8M
refuse "-G without flex_bg" "$new" "-G needs the flex_bg feature" \
	-G 8 "$new" 8M
refuse "journal too large" "$new" "journal size" \
	-t ext4 -J size=6 "$new" 8M
refuse "-q with -v" "$new" "exclude each other" -q -v "$new" 8M
refuse "too big for 32-bit block numbers" "$new" "do not fit in 32 bits" \
	-b 1024 "$new" 5T
SOURCE_DATE_EPOCH=yesterday refuse "bad SOURCE_DATE_EPOCH" "$new" \
	"SOURCE_DATE_EPOCH" "$new" 8M
EXTKIT_DEVICE_SECTSIZE=4096 refuse "block size below the sector size" \
	"$new" "smaller than the sector size 4096" -b 2048 "$new" 8M
refuse "a directory" "$tmpdir" "neither a block device nor a regular file" \
	-F "$tmpdir"

# Targets holding something: refused without -F, named with type,
# label and UUID.
run_mkfs "$tmpdir/out" "$tmpdir/err" -q -L oldfs -U "$TEST_UUID" "$img" 8M ||
	fail "making the first filesystem: $(cat "$tmpdir/err")"
refuse "existing ext2" "$img" \
	"contains an ext2 filesystem labelled 'oldfs', UUID $TEST_UUID; use -F" \
	"$img"
refuse "existing ext2, SIZE given" "$img" "use -F" "$img" 4M
# (-n shows what it would make over it, without -F, as mke2fs -n:
# habits.sh)
# A DOS partition table: one Linux partition and the 55 AA signature.
pt=$tmpdir/pt.img
truncate -s 10M "$pt"
printf '\000\040\041\000\203\376\377\377\000\010\000\000\000\110\000\000' |
	dd of="$pt" bs=1 seek=446 conv=notrunc 2>/dev/null
printf '\125\252' | dd of="$pt" bs=1 seek=510 conv=notrunc 2>/dev/null
refuse "partition table" "$pt" "contains a dos partition table" "$pt"
if MKSWAP=$(find_tool mkswap); then
	sw=$tmpdir/swap.img
	truncate -s 10M "$sw"
	"$MKSWAP" -L swp "$sw" >/dev/null 2>&1
	refuse "swap area" "$sw" "contains a swap signature labelled 'swp'" \
		"$sw"
fi

# -F overwrites, and the result is clean.
for t in "$img" "$pt"; do
	if run_mkfs "$tmpdir/out" "$tmpdir/err" -q -F "$t" &&
	   [ ! -s "$tmpdir/err" ]; then
		fsck_clean "-F on $(basename "$t")" "$t" &&
			ok "-F on $(basename "$t"): formatted, e2fsck clean"
	else
		fail "-F on $(basename "$t"): $(cat "$tmpdir/err")"
	fi
done
# A label over 16 bytes is cut with a warning, as mke2fs does.
rm -f "$tmpdir/lab.img" "$tmpdir/lab2.img"
if run_mkfs "$tmpdir/out" "$tmpdir/err" -q -L 0123456789abcdefgh \
	"$tmpdir/lab.img" 8M &&
   mke2fs -q -F -L 0123456789abcdefgh "$tmpdir/lab2.img" 8M >/dev/null 2>&1 &&
   [ "$(e2label "$tmpdir/lab.img")" = "$(e2label "$tmpdir/lab2.img")" ] &&
   grep -q truncated "$tmpdir/err"; then
	ok "-L of 18 bytes: truncated as mke2fs does, with a warning"
else
	fail "-L of 18 bytes: $(cat "$tmpdir/err")"
fi
# -i with -N: as mke2fs, the inode count wins; the same inode count.
rm -f "$tmpdir/in.img" "$tmpdir/in2.img"
if run_mkfs "$tmpdir/out" "$tmpdir/err" -q -i 8192 -N 3000 \
	"$tmpdir/in.img" 16M &&
   mke2fs -q -F -i 8192 -N 3000 "$tmpdir/in2.img" 16M >/dev/null 2>&1 &&
   a=$(dumpe2fs -h "$tmpdir/in.img" 2>/dev/null | grep '^Inode count:') &&
   [ -n "$a" ] &&
   [ "$a" = "$(dumpe2fs -h "$tmpdir/in2.img" 2>/dev/null | grep '^Inode count:')" ]; then
	ok "-i with -N: $a, as mke2fs"
else
	fail "-i with -N: $(cat "$tmpdir/err")"
fi
# Messages name the value and the rules.
rm -f "$tmpdir/bad.img"
run_mkfs "$tmpdir/out" "$tmpdir/err" -q "$tmpdir/bad.img" 10Q
grep -q "invalid size '10Q': .*s (512-byte sectors), K, M, G, T, P or E" \
	"$tmpdir/err" && ok "size message lists the suffixes" ||
	fail "size message: $(cat "$tmpdir/err")"
run_mkfs "$tmpdir/out" "$tmpdir/err" -q -E stride=0 "$tmpdir/bad.img" 8M
grep -q "invalid value '0' for 'stride'" "$tmpdir/err" &&
	ok "-E value named: $(cat "$tmpdir/err")" ||
	fail "-E stride=0: $(cat "$tmpdir/err")"
run_mkfs "$tmpdir/out" "$tmpdir/err" -q -E frob=1 "$tmpdir/bad.img" 8M
grep -q "unknown extended option 'frob=1' (known: " "$tmpdir/err" &&
	ok "-E unknown option named with its value" ||
	fail "-E frob=1: $(cat "$tmpdir/err")"
finish
