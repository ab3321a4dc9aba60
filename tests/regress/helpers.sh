# SPDX-License-Identifier: GPL-2.0-or-later
# Helpers for the f_ case scripts; run.sh sources this before a script.
# A script builds ./image with mke2fs and damages it with debugfs -w or
# byte edits (dirent.py). Everything is deterministic: fixed UUID, hash
# seed and time, and our own mke2fs.conf.

UUID=6b33f586-a183-4383-921d-30da3fef2e1c
SEED=0f8e6f9d-1c2b-4b5a-9e8d-7c6b5a4f3e2d

# mkfs_type TYPE BLOCKSIZE SIZE [mke2fs options...]: a fresh ./image of
# mke2fs type TYPE (ext2, ext4) from our mke2fs.conf.
mkfs_type() {
	_type=$1
	_bs=$2
	_size=$3
	shift 3
	rm -f image
	$MKE2FS -q -F -o Linux -t "$_type" -b "$_bs" -U "$UUID" \
		-E hash_seed=$SEED "$@" image "$_size" >/dev/null 2>&1 ||
		{ echo "mke2fs failed" >&2; exit 99; }
}

# mkimg BLOCKSIZE SIZE [mke2fs options...]: a fresh ext2 image.
mkimg() {
	mkfs_type ext2 "$@"
}

# mkimg4 BLOCKSIZE SIZE [mke2fs options...]: a fresh ext4 image with the
# features of mke2fs's default ext4 (metadata_csum, extents, flex_bg...).
mkimg4() {
	mkfs_type ext4 "$@"
}

# dbg COMMANDS...: runs debugfs -w commands (one per argument).
dbg() {
	for _c in "$@"; do
		printf '%s\n' "$_c"
	done | $DEBUGFS -w image -f - >/dev/null 2>&1
}

# populate: a small standard tree.
#   /d1 (dir) /d1/d2 (dir) /d1/file1 /d1/file2 /d1/d2/big /top
populate() {
	printf 'hello\n' >f1
	awk 'BEGIN { for (i = 0; i < 3000; i++) printf "line %05d\n", i }' \
		>big
	dbg "mkdir d1" "mkdir d1/d2" "write f1 d1/file1" "write f1 d1/file2" \
	    "write big d1/d2/big" "write f1 top"
	rm -f f1 big
}

# many DIR N [CONTENT]: creates DIR with N files f0000 .. (N-1), empty
# or holding the text CONTENT.
many() {
	write_named "$1" "$2" "${3:-}" '%s/f%04d'
}

# write_named DIR N CONTENT FORMAT: DIR and N files holding CONTENT,
# named by printf FORMAT from DIR and their number (one debugfs run).
write_named() {
	printf '%s' "$3" >content
	{
		echo "mkdir $1"
		_i=0
		while [ "$_i" -lt "$2" ]; do
			# shellcheck disable=SC2059 # the format is the caller's
			printf "write content $4\n" "$1" "$_i"
			_i=$((_i + 1))
		done
	} | $DEBUGFS -w image -f - >/dev/null 2>&1
	rm -f content
}

# unlink_many DIR N: removes the names f0000 .. (N-1) from DIR (the
# inodes stay, unattached).
unlink_many() {
	_i=0
	while [ "$_i" -lt "$2" ]; do
		printf 'unlink %s/f%04d\n' "$1" "$_i"
		_i=$((_i + 1))
	done | $DEBUGFS -w image -f - >/dev/null 2>&1
}

# blk PATH [N]: physical block N (default 0) of PATH.
blk() {
	$DEBUGFS -R "blocks $1" image 2>/dev/null |
		awk -v n="${2:-0}" '{ print $(n + 1) }'
}

# ino PATH: inode number of PATH.
ino() {
	$DEBUGFS -R "stat $1" image 2>/dev/null |
		sed -n 's/^Inode: \([0-9]*\).*/\1/p'
}

# cat_sums PATH...: "PATH md5" of each file of image as debugfs reads
# it (a script saves them in ./sums after the damage; its `after`
# checks them: cat_sums_check).
cat_sums() {
	for _p in "$@"; do
		printf '%s %s\n' "$_p" "$($DEBUGFS -R "cat $_p" image \
			2>/dev/null | md5sum | cut -d' ' -f1)"
	done
}

# cat_sums_check: every file of ./sums reads the same from image.
cat_sums_check() {
	# shellcheck disable=SC2046
	cat_sums $(cut -d' ' -f1 sums) | diff -u sums -
}

# bsize: the block size of image.
bsize() {
	$DUMPE2FS -h image 2>/dev/null | sed -n 's/^Block size: *//p'
}

# dirent BLOCK OFFSET FIELD VALUE: edits a directory record (ino,
# rec_len, name_len, ft, name, u32 at +N: u32@N).
dirent() {
	python3 "$REGRESS_DIR/dirent.py" image "$(bsize)" "$@"
}

# file_acl PATH: the extended attribute block of PATH (0: none).
file_acl() {
	$DEBUGFS -R "stat $1" image 2>/dev/null |
		sed -n 's/^File ACL: \([0-9]*\).*/\1/p'
}

# ea_share BLK PATH...: makes each PATH (a file without an EA block) name
# EA block BLK too: i_file_acl and i_blocks. h_refcount is left alone
# (set it with: dirent BLK 0 u32@4 N).
ea_share() {
	_eb=$1
	shift
	_sec=$(($(bsize) / 512))
	for _p in "$@"; do
		_cnt=$($DEBUGFS -R "stat $_p" image 2>/dev/null |
			sed -n 's/.*Blockcount: \([0-9]*\).*/\1/p')
		dbg "sif $_p file_acl $_eb" "sif $_p blocks $((_cnt + _sec))"
	done
}

# fsck_rc OUT ARGS...: runs extkit-fsck, output in OUT; prints the status.
fsck_rc() {
	_o=$1
	shift
	timeout -k 5 "$TIMEOUT" "$FSCK" "$@" >"$_o" 2>&1 </dev/null
	echo $?
}

# mkext4 BLOCKSIZE SIZE [mke2fs options...]: a fresh image with extents
# (ext4 without a journal and without metadata_csum).
mkext4() {
	_bs=$1
	_size=$2
	shift 2
	mkimg "$_bs" "$_size" \
		-O extent,flex_bg,huge_file,dir_nlink,extra_isize "$@"
}

# sparse FILE NBLOCKS [STRIDE]: a local file with NBLOCKS 4 KiB blocks of
# data, one every STRIDE blocks (default 2), holes between: debugfs
# write gives it one extent per data block.
sparse() {
	python3 -c '
import sys
f = open(sys.argv[1], "wb")
n, stride = int(sys.argv[2]), int(sys.argv[3])
for i in range(n):
    f.seek(i * stride * 4096)
    f.write(b"%05d\n" % i * 682 + b"\n" * 4)
f.close()' "$1" "$2" "${3:-2}"
}

# runs_file FILE BS N: a local file whose debugfs write gives N extents
# on blocks of BS bytes: blocks 0-3, then one block every other block
# (6, 8, ...). Single-block extents never straddle the tree block
# debugfs allocates among them, so N = (BS - 12) / 12 fills one leaf.
runs_file() {
	python3 -c '
import sys
bs, n = int(sys.argv[2]), int(sys.argv[3])
f = open(sys.argv[1], "wb")
f.write(b"first run\n" * (4 * bs // 10) + b"\n" * (4 * bs % 10))
for i in range(1, n):
    f.seek((4 + 2 * i) * bs)
    f.write(b"%05d\n" % i * (bs // 6) + b"\n" * (bs % 6))
f.close()' "$1" "$2" "$3"
}

# ext_replace PATH LBLK LEN PBLK: the extent of PATH at logical block
# LBLK now maps LEN blocks from PBLK (debugfs's extent editor, which
# keeps the tree block checksums).
ext_replace() {
	printf 'extent_open %s\ngoto_block %s\nreplace_node %s %s %s\nextent_close\n' \
		"$1" "$2" "$2" "$3" "$4" | $DEBUGFS -w image -f - >/dev/null 2>&1
}

# ---- extended attributes and inline data ----

# xattr_img BS ISIZE FEATURES: an ext4 image (-O FEATURES added) holding
#   /idir (a directory, inline with inline_data) with /idir/f,
#   /small (a 6-byte file: user.a "1", user.empty "", user.big of BS
#          bytes: an EA inode with ea_inode, else the EA block),
#   /blk (user.b0 .. user.b11: in the inode as far as they fit, the rest
#        in an EA block).
# mke2fs -d and debugfs leave EA inode blocks out of i_blocks (e2fsck
# adds them): e2fsck -fy runs last, so the image starts clean.
xattr_img() {
	mkimg4 "$1" 8M -I "$2" -O "ext_attr,$3"
	printf 'hello\n' >f
	head -c "$1" /dev/zero | tr '\0' b >big
	{
		echo "mkdir idir"
		echo "write f idir/f"
		echo "write f small"
		echo "ea_set /small user.a 1"
		echo "ea_set /small user.empty \"\""
		echo "ea_set -f big /small user.big"
		echo "write f blk"
	} | $DEBUGFS -w image -f - >/dev/null 2>&1
	# one session each: debugfs fails to spill into a new EA block of an
	# inode written in the same session
	_i=0
	while [ "$_i" -lt 12 ]; do
		dbg "ea_set /blk user.b$_i value$_i"
		_i=$((_i + 1))
	done
	rm -f f big
	$E2FSCK -fy image >/dev/null 2>&1
	$E2FSCK -fn image >/dev/null 2>&1 ||
		{ echo "xattr_img: e2fsck finds the image damaged" >&2; exit 99; }
}

# iedit INO FIELD VALUE: a byte edit (u8@N, u16@N, u32@N: N from the
# start of the inode) of inode INO in the inode table.
iedit() {
	_loc=$($DEBUGFS -R "imap <$1>" image 2>/dev/null |
		sed -n 's/.*located at block \([0-9]*\), offset 0x\([0-9a-f]*\).*/\1 \2/p')
	dirent "${_loc% *}" "$((0x${_loc#* }))" "$2" "$3"
}

# ibody INO: the offset in inode INO of its in-inode attribute area
# (128 + i_extra_isize: the 4-byte magic, entries from +4).
ibody() {
	_x=$($DEBUGFS -R "stat <$1>" image 2>/dev/null |
		sed -n 's/^Size of extra inode fields: \([0-9]*\).*/\1/p')
	echo $((128 + _x))
}

# extents PATH COMMANDS...: debugfs's extent commands (extent_open PATH,
# then each command: goto LBLK, replace_node [--uninit] LBLK LEN PBLK,
# insert_node, delete_node, fix_parents...; the library keeps the tree
# blocks' checksums and the inode's).
extents() {
	_p=$1
	shift
	dbg "extent_open $_p" "$@" "extent_close"
}

# longnames DIR N: creates DIR with N one-byte files named by 200 digits
# (their number): 15 a 4 KiB directory block, each file's data block
# allocated between the directory's blocks, so that every directory
# block is an extent of its own.
longnames() {
	write_named "$1" "$2" x '%s/%0200d'
}


# put_word BLOCK SLOT VALUE: writes the 32-bit little-endian VALUE into
# entry SLOT (4 bytes each) of block BLOCK of image.
put_word() {
	python3 -c 'import sys
bs, blk, slot, val = (int(a, 0) for a in sys.argv[1:5])
with open("image", "r+b") as f:
	f.seek(blk * bs + 4 * slot)
	f.write(val.to_bytes(4, "little"))' "$(bsize)" "$1" "$2" "$3"
}

# resize_dind: the double indirect block of the resize inode (7).
resize_dind() {
	$DEBUGFS -R "stat <7>" image 2>/dev/null |
		sed -n 's/.*(DIND):\([0-9]*\).*/\1/p'
}

# reserved_gdt N: the first reserved GDT block of the N-th group holding
# them (0: the primary ones).
reserved_gdt() {
	$DUMPE2FS image 2>/dev/null |
		sed -n 's/^ *Reserved GDT blocks at \([0-9]*\)-.*/\1/p' |
		sed -n "$(($1 + 1))p"
}
