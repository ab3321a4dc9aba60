# SPDX-License-Identifier: GPL-2.0-or-later
# Builds test images with mke2fs -d from generated trees.
#   sh tests/mkimages.sh OUTDIR [IMAGE...]
# IMAGE: ext2-1k ext2-4k ext2-64k ext4 (from the full tree; the default
# set), small (ext2, 1 KiB blocks, a few files) and ext4-small (the small
# tree on ext4 without metadata_csum). Writes OUTDIR/IMAGE.img and leaves
# the trees in OUTDIR/tree and OUTDIR/tree-small. Everything is fixed:
# UUIDs, hash seeds, time stamps (E2FSPROGS_FAKE_TIME, touch -d).
# Exit 77 when mke2fs is missing.

set -u
out=${1:?usage: mkimages.sh OUTDIR [IMAGE...]}
shift
[ $# -gt 0 ] || set -- ext2-1k ext2-4k ext2-64k ext4

PATH=$PATH:/sbin:/usr/sbin:/usr/local/sbin
MKE2FS=$(command -v mke2fs) || { echo "SKIP: mke2fs not found"; exit 77; }
E2FSCK=$(command -v e2fsck) || { echo "SKIP: e2fsck not found"; exit 77; }
E2FSPROGS_FAKE_TIME=1700000000
SOURCE_DATE_EPOCH=1700000000
MKE2FS_DEVICE_SECTSIZE=512
export E2FSPROGS_FAKE_TIME SOURCE_DATE_EPOCH MKE2FS_DEVICE_SECTSIZE
STAMP=@1700000000
HASH_SEED=0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0

mkdir -p "$out" || exit 99

# Writes one 1 KiB block of non-zero bytes into FILE at KiB offset OFF
# (mke2fs -d leaves blocks of zeros out, so they must not be zeros).
put_block() {
	dd if="$out/xblock" of="$1" bs=1024 seek="$2" count=1 \
		conv=notrunc 2>/dev/null || exit 99
}

make_small_tree() {
	t=$out/tree-small
	rm -rf "$t"
	mkdir -p "$t/dir" "$t/sub/inner" || exit 99
	printf 'hello world\n' >"$t/hello.txt"
	: >"$t/empty"
	i=0
	while [ $i -lt 100 ]; do
		: >"$t/dir/name-$i"
		i=$((i + 1))
	done
	# 20 blocks: the last 8 go through the single indirect block.
	head -c 20480 /dev/zero | tr '\0' 't' >"$t/sub/twenty" || exit 99
	# Separate 4 KiB chunks: many extents, so an extent tree of depth 1.
	i=0
	while [ $i -lt 12 ]; do
		put_block "$t/sub/frag" $((i * 64))
		put_block "$t/sub/frag" $((i * 64 + 1))
		i=$((i + 1))
	done
	# A directory whose blocks alternate with its files' data blocks:
	# one extent per directory block, so an extent tree of depth 1.
	mkdir "$t/fragdir" || exit 99
	i=100
	while [ $i -lt 220 ]; do
		cp "$out/xblock" \
			"$t/fragdir/file-$i-padding-padding-padding-padding-padding" ||
			exit 99
		i=$((i + 1))
	done
	ln -s hello.txt "$t/link" || exit 99
	# Names JSON must escape: quote, backslash, tab, newline, bytes that
	# are not UTF-8, and UTF-8 that must pass through.
	mkdir "$t/names" || exit 99
	for n in 'q"uote' 'back\\slash' "$(printf 'tab\tname')" \
		"$(printf 'nl\nname')" "$(printf 'bad\377\376')" \
		"$(printf 'caf\303\251')" "$(printf 'ctl\001\037x')"; do
		: >"$t/names/$n" || exit 99
	done
	ln "$t/hello.txt" "$t/sub/inner/hard" || exit 99
	find "$t" -exec touch -h -d "$STAMP" {} + || exit 99
}

make_full_tree() {
	t=$out/tree
	rm -rf "$t"
	mkdir -p "$t/big" "$t/links" || exit 99
	printf 'hello world\n' >"$t/hello.txt"
	: >"$t/empty"
	# 5,000 entries, names long enough for an htree with index nodes once
	# e2fsck -D has indexed it on 1 KiB blocks.
	i=10000
	while [ $i -lt 15000 ]; do
		n=entry-$i-htree-pad
		if [ $((i % 1000)) -eq 7 ]; then
			put_block "$t/big/$n" 0
		else
			: >"$t/big/$n"
		fi
		i=$((i + 1))
	done
	# A path 30 directories deep.
	d=$t/deep
	i=1
	while [ $i -le 30 ]; do
		d=$d/$(printf 'level%02d' $i)
		i=$((i + 1))
	done
	mkdir -p "$d" || exit 99
	printf 'bottom\n' >"$d/leaf.txt"
	# Symlinks: fast (target in the inode) and slow (> 60 bytes).
	ln -s ../hello.txt "$t/links/fast" || exit 99
	slow=../deep/level01/level02/level03/level04/level05
	ln -s "$slow/level06/level07/level08/level09" "$t/links/slow" ||
		exit 99
	# Hard links across directories.
	printf 'shared\n' >"$t/hard1"
	ln "$t/hard1" "$t/links/hard2" || exit 99
	ln "$t/hard1" "$t/deep/hard3" || exit 99
	# 2 GiB apparent size; blocks at KiB offsets that need the direct,
	# single, double and triple indirect ranges on 1 KiB blocks.
	for off in 0 5 12 300 70000 102400 2097151; do
		put_block "$t/sparse" $off
	done
	truncate -s 2G "$t/sparse" || exit 99
	# 400 KiB contiguous, and a fragmented file (many extents).
	head -c 409600 /dev/zero | tr '\0' 'm' >"$t/medium" || exit 99
	i=0
	while [ $i -lt 40 ]; do
		put_block "$t/frag" $((i * 16))
		i=$((i + 1))
	done
	# Names: UTF-8, not UTF-8, odd characters.
	printf 'x' >"$t/caf$(printf '\303\251')"
	printf 'x' >"$t/$(printf 'raw\377\376name')"
	printf 'x' >"$t/odd+name=with,chars~"
	mkfifo "$t/fifo" || exit 99
	find "$t" -exec touch -h -d "$STAMP" {} + || exit 99
}

# mkfs NAME TREE SIZE ARGS...: runs mke2fs -d TREE into OUTDIR/NAME.img.
mkfs() {
	name=$1
	tree=$2
	size=$3
	shift 3
	img=$out/$name.img
	rm -f "$img"
	if ! "$MKE2FS" -F -q -E hash_seed=$HASH_SEED -L "$name" -d "$tree" \
		"$@" "$img" "$size" >"$out/$name.log" 2>&1; then
		echo "ERROR: mke2fs for $name failed:"
		cat "$out/$name.log"
		exit 99
	fi
}

# build NAME: makes one image (run in the background, one per image).
build() {
	case $1 in
	small)
		mkfs small "$out/tree-small" 4M -t ext2 -b 1024 -N 512 \
			-U 5a11e000-0000-4000-8000-000000000001 ;;
	ext4-small)
		mkfs ext4-small "$out/tree-small" 4M -t ext4 -b 1024 -N 512 \
			-O ^metadata_csum \
			-U 5a11e000-0000-4000-8000-000000000002 ;;
	ext2-1k)
		mkfs ext2-1k "$out/tree" 32M -t ext2 -b 1024 -N 8192 \
			-U e2000001-0000-4000-8000-000000000001 ;;
	ext2-4k)
		mkfs ext2-4k "$out/tree" 64M -t ext2 -b 4096 -N 8192 \
			-U e2000004-0000-4000-8000-000000000004 ;;
	ext2-64k)
		mkfs ext2-64k "$out/tree" 128M -t ext2 -b 65536 -N 8192 \
			-U e2000064-0000-4000-8000-000000000064 ;;
	ext4)
		mkfs ext4 "$out/tree" 64M -t ext4 \
			-U e4000000-0000-4000-8000-000000000004
		# Index the large directory (htree with interior nodes).
		"$E2FSCK" -fyD "$out/ext4.img" >>"$out/ext4.log" 2>&1
		[ $? -le 1 ] || { cat "$out/ext4.log"; exit 99; } ;;
	*)
		echo "ERROR: unknown image $1"
		exit 99 ;;
	esac
}

head -c 1024 /dev/zero | tr '\0' 'x' >"$out/xblock" || exit 99
for image in "$@"; do
	case $image in
	small|ext4-small)
		[ -d "$out/tree-small" ] || make_small_tree ;;
	*)
		[ -d "$out/tree" ] || make_full_tree ;;
	esac
done
pids=
for image in "$@"; do
	build "$image" &
	pids="$pids $!"
done
rc=0
for pid in $pids; do
	wait "$pid" || rc=99
done
exit $rc
