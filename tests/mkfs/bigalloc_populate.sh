#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# extkit-mkfs -d on bigalloc (issue 33). One tree (tests/mkfs/
# bigalloc_tree.py: files of many sizes, sparse ones with holes inside
# and across clusters and one needing an extent tree block, directories
# of several blocks and an htree, attributes in EA blocks, hard and
# symbolic links), from the directory (and from a pax archive, with
# metadata_csum), with
# clusters of 16 and 64 KiB at 1 and 4 KiB blocks, with and without
# metadata_csum:
#   - e2fsck -fn (1.47.0 and, when built, 1.47.4) and extkit-fsck -fn
#     find each image clean;
#   - extkit-dump extracts the tree back identical (data, attributes),
#     debugfs rdump the files;
#   - every file's and symbolic link's i_blocks (whole clusters) and the
#     blocks of every file are as mke2fs -d gives them on the same tree
#     (directories may differ: extkit-mkfs indexes big ones), and every
#     block of every file sits at its logical offset in its cluster;
#   - where loop mounts work, the kernel reads the tree back identical
#     (diff -r, attributes), then appends, writes new files into holes
#     and new directories, deletes, and e2fsck is still clean.
# Also inline_data and ea_inode on bigalloc (tests/mkfs/inline_ea.py's
# tree), quota and project (usage in whole clusters), and -d without
# SIZE (the size found counting whole clusters).
. "${top_srcdir:-.}/tests/lib.sh"
. "$top_srcdir/tests/mkfs/mkfs-lib.sh"

need_tools e2fsck debugfs mke2fs dumpe2fs
need_dump
command -v python3 >/dev/null 2>&1 || { echo "SKIP: no python3"; exit 77; }
MKE2FS_CONFIG=$top_srcdir/tests/mkfs/mke2fs-1.47.4.conf
# the allocation compared with mke2fs 1.47.4's -d when built
MKE2FS_REF=${MKE2FS_NEW:-/work/e2fsprogs-src/misc/mke2fs}
[ -x "$MKE2FS_REF" ] || MKE2FS_REF=$MKE2FS
TIMEOUT=${TIMEOUT_LONG:-120}
PY="python3 $top_srcdir/tests/mkfs/bigalloc_tree.py"
EXT4="-q -F -t ext4 -U $TEST_UUID -E hash_seed=$TEST_SEED"


# same_tree DESC ROOT: ROOT holds the source tree (lost+found aside),
# data and attributes.
same_tree() {
	if ! diff -r --no-dereference -x lost+found -x fifo "$src" "$2" \
		>"$tmpdir/diff.out" 2>&1 || ! [ -p "$2/fifo" ]; then
		fail "$1: the tree differs"
		head -10 "$tmpdir/diff.out" | sed 's/^/    /'
		return 1
	fi
	$PY xattrs "$2" >"$tmpdir/x.got"
	if ! cmp -s "$tmpdir/x.want" "$tmpdir/x.got"; then
		fail "$1: the attributes differ"
		diff "$tmpdir/x.want" "$tmpdir/x.got" | head -6 |
			cut -c1-100 | sed 's/^/    /'
		return 1
	fi
	return 0
}

# extracted DESC IMAGE: extkit-dump extracts the tree back.
extracted() {
	rm -rf "$tmpdir/ex"
	if ! "$DUMP" "$2" extract / "$tmpdir/ex" >/dev/null \
		2>"$tmpdir/err"; then
		fail "$1: extkit-dump extract: $(head -3 "$tmpdir/err")"
		return 1
	fi
	same_tree "$1: extkit-dump extract" "$tmpdir/ex"
}

# rdumped DESC IMAGE: debugfs rdump gives the files back (data only).
rdumped() {
	rm -rf "$tmpdir/rd"
	mkdir "$tmpdir/rd"
	"$DEBUGFS" -R "rdump / $tmpdir/rd" "$2" >/dev/null 2>&1
	if diff -r --no-dereference -x lost+found -x fifo "$src" "$tmpdir/rd" \
		>"$tmpdir/diff.out" 2>&1; then
		return 0
	fi
	fail "$1: debugfs rdump gives another tree"
	head -10 "$tmpdir/diff.out" | sed 's/^/    /'
	return 1
}

# blocks_of IMAGE: "path Blockcount" of every regular file and symbolic
# link, and "path lblk pblk" of every extent's first block.
blocks_of() {
	for f in $files; do
		"$DEBUGFS" -R "stat /$f" "$1" 2>/dev/null | awk -v f="$f" '
			/Blockcount:/ { for (i = 1; i < NF; i++)
				if ($i == "Blockcount:") print f, "i_blocks", $(i + 1) }
			/^EXTENTS:/ { e = 1; next }
			e { n = split($0, x, ", ")
			    for (i = 1; i <= n; i++) {
				if (x[i] ~ /^\(ETB/) continue
				sub(/^\(/, "", x[i]); split(x[i], y, "[):-]")
				print f, "extent", y[1], "at", \
					(x[i] ~ /\):/ ? y[length(y) > 3 ? 4 : 3] : "")
			    } }'
	done
}

# aligned DESC IMAGE BS CS: every extent of every file starts at the
# same offset in its cluster, logically and physically.
aligned() {
	r=$(($4 / $3))
	bad=$(blocks_of "$2" | awk -v r=$r '$2 == "extent" && $5 != "" &&
		($3 % r) != ($5 % r) { print }')
	[ -z "$bad" ] && return 0
	fail "$1: extents off their cluster offsets: $bad"
	return 1
}

# as_mke2fs DESC IMAGE REF: i_blocks of every file as in REF (mke2fs -d).
as_mke2fs() {
	blocks_of "$2" | grep i_blocks >"$tmpdir/b.got"
	blocks_of "$3" | grep i_blocks >"$tmpdir/b.want"
	if ! cmp -s "$tmpdir/b.want" "$tmpdir/b.got"; then
		fail "$1: i_blocks differ from mke2fs -d's"
		diff "$tmpdir/b.want" "$tmpdir/b.got" | head -8 |
			sed 's/^/    /'
		return 1
	fi
	return 0
}

# used IMAGE: blocks in use (dumpe2fs -h).
used() {
	echo $(( $(sb_field "$1" "Block count") - $(sb_field "$1" "Free blocks") ))
}

# kernel_rw DESC IMAGE: the kernel reads the tree back, then writes.
kernel_rw() {
	mount -o ro,loop "$2" "$mnt" 2>/dev/null || {
		fail "$1: the kernel refuses to mount it"; return; }
	same_tree "$1: the kernel" "$mnt" && ok "$1: the kernel reads back the tree"
	umount "$mnt"
	mount -o loop "$2" "$mnt" || { fail "$1: mount read-write"; return; }
	w=0
	{ head -c 70000 /dev/urandom >>"$mnt/s16385" &&
	  printf 'into the hole' | dd of="$mnt/hole_across" bs=1 \
		seek=100000 conv=notrunc 2>/dev/null &&
	  printf 'x' | dd of="$mnt/hole_in" bs=1 seek=5000 conv=notrunc \
		2>/dev/null &&
	  head -c 300000 /dev/urandom >"$mnt/new_big" &&
	  echo new >"$mnt/htree/new_entry" &&
	  mkdir "$mnt/newdir" && echo x >"$mnt/newdir/f" &&
	  setfattr -n user.k -v "$(head -c 900 /dev/zero | tr '\0' k)" \
		"$mnt/newdir/f" &&
	  rm "$mnt/large" "$mnt/islands" "$mnt/htree/a_rather_long_file_name_number_0007" &&
	  rm -r "$mnt/several"; } 2>"$tmpdir/kerr" || w=1
	umount "$mnt" || { fail "$1: umount"; return; }
	[ $w = 0 ] || { fail "$1: the kernel's writes failed: $(cat "$tmpdir/kerr")"; return; }
	both_clean "$1: after the kernel wrote" "$2" &&
		ok "$1: the kernel appends, fills holes, writes and deletes; e2fsck clean"
}

probe_kernel_mounts "$tmpdir/probe.img"
command -v setfattr >/dev/null 2>&1 || kernel=0
src=$tmpdir/src
mkdir "$src"
if ! $PY tree "$src" 2>"$tmpdir/err"; then
	echo "SKIP: no user attributes where $tmpdir is: $(cat "$tmpdir/err")"
	exit 77
fi
$PY xattrs "$src" >"$tmpdir/x.want"
$PY tar "$src" "$tmpdir/tree.tar" || exit 99
files=$(cd "$src" && find . \( -type f -o -type l \) | sed 's|^\./||' | sort)
img=$tmpdir/img.img
ref=$tmpdir/ref.img
tar_ok=1

for bs in 1024 4096; do
for cs in 16384 65536; do
for csum in metadata_csum ^metadata_csum; do
	o="-b $bs -C $cs -O bigalloc,$csum"
	d="$bs/$cs $csum"
	rm -f "$img" "$ref"
	if ! run_mkfs "$tmpdir/out" "$tmpdir/err" $EXT4 $o -d "$src" \
		"$img" 64M; then
		fail "$d: extkit-mkfs: $(head -3 "$tmpdir/err")"
		continue
	fi
	both_clean "$d" "$img" || continue
	ok "$d: e2fsck 1.47.0, 1.47.4 and extkit-fsck clean"
	extracted "$d" "$img" && ok "$d: extkit-dump extracts the tree back"
	rdumped "$d" "$img" && ok "$d: debugfs reads the files back"
	aligned "$d" "$img" $bs $cs &&
		ok "$d: every extent at its logical offset in its cluster"
	if "$MKE2FS_REF" $EXT4 $o -d "$src" "$ref" 64M >/dev/null 2>&1; then
		as_mke2fs "$d" "$img" "$ref" &&
			ok "$d: every file's i_blocks as mke2fs -d's"
		echo "note: $d: blocks in use: extkit-mkfs $(used "$img"), mke2fs -d $(used "$ref")"
	fi
	# the same from the archive
	if [ $tar_ok = 1 ] && [ $csum = metadata_csum ]; then
		rm -f "$img.t"
		if run_mkfs "$tmpdir/out" "$tmpdir/err" $EXT4 $o \
			-d "$tmpdir/tree.tar" "$img.t" 64M; then
			both_clean "$d, archive" "$img.t" &&
				extracted "$d, archive" "$img.t" &&
				ok "$d, archive: clean, extracted back"
		elif grep -q libarchive "$tmpdir/err"; then
			echo "note: no libarchive: archive cases skipped"
			tar_ok=0
		else
			fail "$d, archive: extkit-mkfs: $(head -3 "$tmpdir/err")"
		fi
	fi
	[ "$kernel" = 1 ] && kernel_rw "$d" "$img"
done
done
done

# inline_data and ea_inode on bigalloc: small files and directories in
# the inode, large values in EA inodes charged in whole clusters
IPY="python3 $top_srcdir/tests/mkfs/inline_ea.py"
if [ $tar_ok = 1 ] && $IPY tar "$tmpdir/inline.tar"; then
	for o in "-b 1024 -C 16384" "-b 4096 -C 65536"; do
		d="inline_data,ea_inode $o"
		rm -f "$img"
		run_mkfs "$tmpdir/out" "$tmpdir/err" $EXT4 $o \
			-O bigalloc,inline_data,ea_inode \
			-d "$tmpdir/inline.tar" "$img" 64M ||
			{ fail "$d: extkit-mkfs: $(head -3 "$tmpdir/err")"; continue; }
		both_clean "$d" "$img" || continue
		rm -rf "$tmpdir/dump"
		mkdir "$tmpdir/dump"
		$IPY dumpcmds "$tmpdir/cmds" "$tmpdir/dump"
		"$DEBUGFS" -f "$tmpdir/cmds" "$img" >/dev/null 2>&1
		if $IPY dumpcheck "$tmpdir/dump" >"$tmpdir/check.out"; then
			ok "$d: clean, debugfs reads back every file and value"
		else
			fail "$d: debugfs reads back a different tree"
			head -5 "$tmpdir/check.out" | sed 's/^/    /'
		fi
	done
fi

# quota and project: usage in whole clusters, as e2fsck counts it
d="quota,project 4096/65536"
rm -f "$img"
if run_mkfs "$tmpdir/out" "$tmpdir/err" $EXT4 -b 4096 -C 65536 -I 256 \
	-O bigalloc,quota,project -d "$src" "$img" 64M; then
	both_clean "$d" "$img" && ok "$d: quota files right, clean"
else
	fail "$d: extkit-mkfs: $(head -3 "$tmpdir/err")"
fi

# no SIZE: the image sized from the tree in whole clusters holds it
for o in "-b 4096 -C 65536" "-b 1024 -C 65536"; do
	d="sized from the tree, $o"
	rm -f "$img"
	if run_mkfs "$tmpdir/out" "$tmpdir/err" $EXT4 $o -O bigalloc \
		-d "$src" "$img"; then
		both_clean "$d" "$img" && extracted "$d" "$img" &&
			ok "$d: $(($(stat -c %s "$img") >> 10)) KiB, clean, the tree back"
	else
		fail "$d: extkit-mkfs: $(head -3 "$tmpdir/err")"
	fi
done

finish
