# SPDX-License-Identifier: GPL-2.0-or-later
# extkit-dump on images that are not ext2/ext4, truncated or lying. Every
# case: exit 1, exactly one line on stderr ("extkit-dump: ..."), no
# sanitizer report, and no hang (each run has a deadline).

. "${top_srcdir:-.}/tests/lib.sh"
ASAN_OPTIONS=$LEAK_ASAN_OPTIONS
need_dump
need_tools mke2fs debugfs dumpe2fs python3

$SHELL "$top_srcdir/tests/mkimages.sh" "$tmpdir/img" small ext4-small \
	>/dev/null || exit $?
small=$tmpdir/img/small.img
ext4=$tmpdir/img/ext4-small.img

# poke FILE OFFSET SIZE VALUE: writes VALUE little-endian (SIZE bytes).
poke() {
	python3 -c 'import sys
f = open(sys.argv[1], "r+b")
f.seek(int(sys.argv[2], 0))
f.write(int(sys.argv[4], 0).to_bytes(int(sys.argv[3]), "little"))
' "$@" || exit 99
}

# random_bytes FILE SIZE SEED: deterministic garbage.
random_bytes() {
	python3 -c 'import random, sys
r = random.Random(int(sys.argv[3]))
open(sys.argv[1], "wb").write(bytes(r.getrandbits(8)
                                    for _ in range(int(sys.argv[2]))))
' "$@" || exit 99
}

# copy NAME [SRC]: a fresh copy of SRC (default: the small image).
copy() {
	cp "${2:-$small}" "$tmpdir/$1" || exit 99
	echo "$tmpdir/$1"
}

# dfs IMG CMD: one debugfs request, stdout only.
dfs() {
	"$DEBUGFS" -R "$2" "$1" 2>/dev/null
}

# inode_offset IMG INO: byte offset of an inode in the image (from debugfs
# imap: "located at block B, offset 0xOFF").
inode_offset() {
	_loc=$(dfs "$1" "imap <$2>" |
		sed -n 's/.*located at block \([0-9]*\), offset \(0x[0-9a-f]*\).*/\1 \2/p')
	[ -n "$_loc" ] || return 1
	set -- $_loc "$(block_size "$1")"
	echo $(( $1 * $3 + $2 ))
}

block_size() {
	"$DUMPE2FS" -h "$1" 2>/dev/null | awk '/^Block size:/ { print $3 }'
}

SB=1024		# the primary superblock's byte offset

# -- not a filesystem at all --
: >"$tmpdir/empty"
expect_fail_one_line "empty file" "$tmpdir/empty"
head -c 1024 /dev/zero >"$tmpdir/1k"
expect_fail_one_line "1 KiB file" "$tmpdir/1k"
expect_fail_one_line "a directory" "$tmpdir"
# open(2) of a FIFO waits for a writer: the tool must not.
mkfifo "$tmpdir/fifo" || exit 99
saved_timeout=$TIMEOUT
TIMEOUT=5
expect_fail_one_line "a FIFO" "$tmpdir/fifo"
TIMEOUT=$saved_timeout
random_bytes "$tmpdir/random" 1048576 1
expect_fail_one_line "1 MiB of random bytes" "$tmpdir/random"
expect_fail_one_line "1 MiB of random bytes: ls /" "$tmpdir/random" ls /
random_bytes "$tmpdir/random-magic" 1048576 2
poke "$tmpdir/random-magic" $((SB + 56)) 2 0xEF53
expect_fail_one_line "random bytes with the ext2 magic" "$tmpdir/random-magic"
expect_fail_one_line "random bytes with the ext2 magic: groups" \
	"$tmpdir/random-magic" groups

# -- truncated in the middle of group 0's inode table --
it=$("$DUMPE2FS" "$small" 2>/dev/null |
	sed -n 's/^ *Inode table at \([0-9]*\)-\([0-9]*\).*/\1 \2/p' | head -1)
set -- $it
cut=$(( ($1 + $2) / 2 ))
img=$(copy truncated)
truncate -s $((cut * 1024)) "$img" || exit 99
echo "truncated at block $cut (inode table $1-$2)"
# As dumpe2fs and e2label: what is there is shown, with a warning.
run_dump "$tmpdir/out" "$tmpdir/err" "$img"
rc=$?
if [ $rc -eq 0 ] && [ "$(wc -l <"$tmpdir/err")" -eq 1 ] &&
   grep -q "^extkit-dump: warning: .*holds only $cut of" "$tmpdir/err" &&
   grep -q '^Block count:' "$tmpdir/out"; then
	ok "truncated image: super shown, with a warning"
else
	fail "truncated image: super: exit $rc"
	sed 's/^/    /' "$tmpdir/err" | head -5
fi
# truncated_fails DESC ARGS: exit 1, the warning, then one error line.
truncated_fails() {
	_desc=$1
	shift
	run_dump "$tmpdir/out" "$tmpdir/err" "$@"
	_rc=$?
	if sanitizer_report "$tmpdir/err"; then
		fail "$_desc: sanitizer report"
	elif [ $_rc -eq 1 ] && [ "$(wc -l <"$tmpdir/err")" -eq 2 ] &&
	     head -1 "$tmpdir/err" | grep -q '^extkit-dump: warning: ' &&
	     tail -1 "$tmpdir/err" | grep -q '^extkit-dump: '; then
		ok "$_desc: exit 1: $(tail -1 "$tmpdir/err")"
	else
		fail "$_desc: exit $_rc"
		sed 's/^/    /' "$tmpdir/err" | head -5
	fi
}
truncated_fails "truncated image: stat of the last inode" "$img" \
	stat "<256>"
truncated_fails "truncated image: ls /" "$img" ls /

# -- superblock fields that lie --
img=$(copy logbs)
poke "$img" $((SB + 24)) 4 20
expect_fail_one_line "s_log_block_size 20" "$img"
img=$(copy groups-overflow)
poke "$img" $((SB + 4)) 4 0xFFFFFFFF
poke "$img" $((SB + 32)) 4 8
expect_fail_one_line "group count overflow (4G blocks, 8 per group)" "$img"
img=$(copy groups-2e28)
poke "$img" $((SB + 0)) 4 0x80000000		# s_inodes_count
poke "$img" $((SB + 4)) 4 0x80000000		# s_blocks_count
poke "$img" $((SB + 32)) 4 8			# s_blocks_per_group
poke "$img" $((SB + 36)) 4 8			# s_clusters_per_group
poke "$img" $((SB + 40)) 4 8			# s_inodes_per_group
expect_fail_one_line "2^28 groups, counts consistent with each other" \
	"$img" groups
img=$(copy bpg0)
poke "$img" $((SB + 32)) 4 0
expect_fail_one_line "s_blocks_per_group 0" "$img"
img=$(copy ipg0)
poke "$img" $((SB + 40)) 4 0
expect_fail_one_line "s_inodes_per_group 0" "$img" ls /
img=$(copy ipg-huge)
poke "$img" $((SB + 40)) 4 0x7FFFFFFF
expect_fail_one_line "s_inodes_per_group 2^31-1" "$img" ls /
img=$(copy isize)
poke "$img" $((SB + 88)) 2 3
expect_fail_one_line "s_inode_size 3" "$img" ls /
img=$(copy firstblock)
poke "$img" $((SB + 20)) 4 999999
expect_fail_one_line "s_first_data_block past the end" "$img"
img=$(copy bigfs)
poke "$img" $((SB + 4)) 4 0x40000000
expect_fail_one_line "s_blocks_count far beyond the image" "$img" ls /

# -- a directory block of garbage --
img=$(copy garbage-dir)
root=$(dfs "$img" "blocks /" | awk '{ print $1 }')
random_bytes "$tmpdir/garbage" 1024 3
dd if="$tmpdir/garbage" of="$img" bs=1024 seek="$root" conv=notrunc \
	2>/dev/null || exit 99
echo "root directory block $root overwritten"
expect_fail_one_line "garbage root directory block: ls /" "$img" ls /
expect_fail_one_line "garbage root directory block: stat /hello.txt" \
	"$img" stat /hello.txt

# -- a directory size no filesystem of this size can hold (2^56 bytes) --
img=$(copy dir-size)
off=$(inode_offset "$img" 2) || { fail "cannot locate the root inode"; finish; }
poke "$img" $((off + 4)) 4 0		# i_size_lo
poke "$img" $((off + 108)) 4 0x01000000	# i_size_high
# ls reads the directory to its last mapped block, not to i_size (the
# library's walk since the extent-hole repair): the names are listed.
if out=$("$DUMP" "$img" ls / 2>&1) && printf '%s\n' "$out" | grep -q hello.txt
then
	ok "root directory of 2^56 bytes: ls / lists its names"
else
	fail "root directory of 2^56 bytes: ls /: $out"
fi
expect_fail_one_line "root directory of 2^56 bytes: dirblock / 2^40" \
	"$img" dirblock / 1099511627776

# -- block maps that loop --
# ext4: the leaf of /sub/frag's depth-1 extent tree claims depth 1 and
# holds one index entry pointing at itself.
img=$(copy extent-loop "$ext4")
leaf=$(dfs "$img" "stat /sub/frag" | sed -n 's/.*(ETB0):\([0-9]*\).*/\1/p')
[ -n "$leaf" ] || { fail "no extent tree block in /sub/frag"; finish; }
echo "extent leaf block $leaf made an index pointing at itself"
poke "$img" $((leaf * 1024 + 2)) 2 1		# eh_entries
poke "$img" $((leaf * 1024 + 6)) 2 1		# eh_depth
poke "$img" $((leaf * 1024 + 12)) 4 0		# ei_block
poke "$img" $((leaf * 1024 + 16)) 4 "$leaf"	# ei_leaf_lo
poke "$img" $((leaf * 1024 + 20)) 4 0		# ei_leaf_hi, ei_unused
expect_fail_one_line "extent tree pointing at itself: blocks" "$img" \
	blocks /sub/frag
expect_fail_one_line "extent tree pointing at itself: blocks -m" "$img" \
	blocks -m /sub/frag
# ext4: the third extent of /fragdir (one extent per directory block) moved
# to logical block 10^6, out of order and past the directory's end. The
# blocks after it must not silently become holes.
img=$(copy dir-extent "$ext4")
leaf=$(dfs "$img" "stat /fragdir" | sed -n 's/.*(ETB0):\([0-9]*\).*/\1/p')
[ -n "$leaf" ] || { fail "no extent tree block in /fragdir"; finish; }
poke "$img" $((leaf * 1024 + 12 + 2 * 12)) 4 1000000	# ee_block
echo "extent 2 of /fragdir (leaf block $leaf) moved to logical 10^6"
expect_fail_one_line "directory extent out of order: ls" "$img" ls /fragdir
expect_fail_one_line "directory extent out of order: blocks" "$img" \
	blocks /fragdir
# ext2: /sub/twenty's indirect block filled with its own number and hung
# as the triple indirect block too: 16M references to itself.
img=$(copy ind-loop)
ino=$(dfs "$img" "stat /sub/twenty" | sed -n 's/^Inode: \([0-9]*\).*/\1/p')
ind=$(dfs "$img" "stat /sub/twenty" | sed -n 's/.*(IND):\([0-9]*\).*/\1/p')
off=$(inode_offset "$img" "$ino")
[ -n "$ind" ] && [ -n "$off" ] || { fail "cannot locate /sub/twenty"; finish; }
python3 -c 'import sys
f = open(sys.argv[1], "r+b")
f.seek(int(sys.argv[2]) * 1024)
f.write(int(sys.argv[2]).to_bytes(4, "little") * 256)
' "$img" "$ind" || exit 99
poke "$img" $((off + 40 + 4 * 14)) 4 "$ind"	# i_block[TIND]
echo "indirect block $ind points at itself, also as the triple indirect"
expect_fail_one_line "indirect blocks pointing at themselves: blocks" \
	"$img" blocks -m /sub/twenty
# Symlinks that point at each other, in the middle of a path.
img=$(copy symlink-loop)
"$DEBUGFS" -w -f - "$img" >/dev/null 2>&1 <<-EOF
	symlink /loop1 /loop2
	symlink /loop2 /loop1
EOF
expect_fail_one_line "symlink loop in a path" "$img" stat /loop1/x
finish
