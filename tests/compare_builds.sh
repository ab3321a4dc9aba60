#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Byte-identity of two builds (a refactoring must change no output): the
# images and outputs of this tree's binaries against those of a base build
# (BASE: a folder holding extkit-mkfs, extkit-fsck, extkit-label,
# extkit-dump, e.g. copied from main). mkfs plain and mkfs -d of a tree
# under a fixed time and UUID, fsck -fy of damaged f_ images (their
# scripts build them; both binaries repair copies of the same image),
# label. Prints one line per difference; exit 1 when any. An image whose
# only difference is s_kbytes_written (and so the superblock checksum) is
# noted, not failed: the same content written with other I/O.
# usage: BASE=/tmp/base tests/compare_builds.sh [f_case...]  (not in make check)
. "${top_srcdir:-.}/tests/regress/env.sh"
BASE=${BASE:?set BASE to the folder of the base binaries}
NEW=$top_builddir
export SOURCE_DATE_EPOCH=1700000000 EXTKIT_FAKE_TIME=1700000000
MKCONF=$top_srcdir/tests/mkfs/mke2fs.conf
UUID=01234567-89ab-cdef-0123-456789abcdef
SEED=0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0
w=$tmpdir
n=0
bad=0
kb=0

# Only s_kbytes_written (a count of the bytes a run wrote) and the
# superblock checksum differ: the same content, written in other I/O.
only_kbytes() {
	cmp -l "$1" "$2" 2>/dev/null | awk '
		{ o = $1 - 1; if (!((o >= 1400 && o < 1408) || o >= 2044 && o < 2048)) bad = 1; n++ }
		END { exit !(n && !bad) }'
}

same() {	# DESC FILE-A FILE-B
	n=$((n + 1))
	if cmp -s "$2" "$3" || { [ ! -e "$2" ] && [ ! -e "$3" ]; }; then
		return 0
	fi
	if only_kbytes "$2" "$3"; then
		kb=$((kb + 1))
		echo "note: $1: only s_kbytes_written differs"
		return 0
	fi
	bad=$((bad + 1))
	fail "$1: $(cmp "$2" "$3" 2>&1 | head -1)"
}

# a tree for mkfs -d: files of several sizes, a big directory, links
tree=$w/tree
mkdir -p "$tree/d/e" "$tree/big"
for i in $(seq 1 300); do echo "file $i" >"$tree/big/name_$i"; done
head -c 70000 /dev/zero | tr '\0' 'x' >"$tree/d/f70k"
head -c 5000000 /dev/zero | tr '\0' 'y' >"$tree/d/e/f5m"
printf 'tiny' >"$tree/tiny"
ln -s tiny "$tree/link"
ln -s "$(head -c 200 /dev/zero | tr '\0' 'l')" "$tree/longlink"
ln "$tree/tiny" "$tree/d/hard"
mkdir "$tree/empty"
touch -d @1600000000 $(find "$tree")

mk() {	# TAG OPTS...
	tag=$1
	shift
	for b in base new; do
		[ $b = base ] && bin=$BASE/extkit-mkfs || bin=$NEW/extkit-mkfs
		mkdir -p "$w/$b"
		rm -f "$w/$b/$tag"
		# shellcheck disable=SC2086
		(cd "$w/$b" && MKE2FS_CONFIG=$MKCONF "$bin" -q -F -U $UUID -E hash_seed=$SEED "$@" \
			"$tag" 64M >"$tag.out" 2>&1; echo "exit $?" >>"$tag.out")
	done
	same "mkfs $tag output" "$w/base/$tag.out" "$w/new/$tag.out"
	same "mkfs $tag image" "$w/base/$tag" "$w/new/$tag"
}

mk ext2 -t ext2
mk ext2_1k -t ext2 -b 1024 -O resize_inode
mk ext3 -t ext3
mk ext4 -t ext4
mk ext4_1k -t ext4 -b 1024 -O resize_inode
mk ext4_noflex -t ext4 -O ^flex_bg,resize_inode
mk bigalloc -t ext4 -O bigalloc,extent -C 16384
mk meta_bg -t ext4 -O meta_bg,^resize_inode
mk inline -t ext4 -O inline_data
mk csum_1k -t ext4 -b 1024 -O metadata_csum,^flex_bg
mk d_ext2 -t ext2 -d "$tree"
mk d_ext4 -t ext4 -d "$tree"
mk d_ext4_1k -t ext4 -b 1024 -d "$tree"
mk d_noflex -t ext4 -O ^flex_bg,^metadata_csum,uninit_bg -d "$tree"
mk d_bigalloc -t ext4 -O bigalloc,extent -C 16384 -d "$tree"

for b in base new; do
	[ $b = base ] && bin=$BASE || bin=$NEW
	cp "$w/new/ext4" "$w/$b/label"
	(cd "$w/$b" && "$bin/extkit-label" label newlabel >label.out 2>&1
	 "$bin/extkit-dump" ../new/d_ext4 >dump.out 2>&1)
done
same "label image" "$w/base/label" "$w/new/label"
same "label output" "$w/base/label.out" "$w/new/label.out"
same "dump output" "$w/base/dump.out" "$w/new/dump.out"

# fsck -fy of damaged f_ images
if [ $# -eq 0 ]; then
	set -- f_orphan_list f_orphan_delete_1k f_orphan_truncate_4k \
		f_orphan_truncate_extent f_bigalloc_orphan f_no_lost_found \
		f_lost_found_expand f_lost_found_not_dir f_csum_lost_found \
		f_bigalloc_new_lost_found f_journal_fast_commit \
		f_resize_inode_size f_resize_dind_stray f_itable_lost_resize_4k \
		f_bigalloc_resize_rebuild f_dup_blocks f_bigalloc_dup_cluster \
		f_extent_dup_grow_4k f_itable_relocate_1k f_inline_dir_size
fi
for c in "$@"; do
	cw=$w/$c
	mkdir -p "$cw" && cd "$cw" || exit 99
	if ! (. "$REGRESS_DIR/helpers.sh" && . "$REGRESS_DIR/$c/script") \
		>script.log 2>&1; then
		fail "$c: script failed: $(tail -1 script.log)"
		continue
	fi
	for b in base new; do
		[ $b = base ] && bin=$BASE/extkit-fsck || bin=$NEW/extkit-fsck
		mkdir -p $b
		cp image $b/image
		for r in 1 2; do
			(cd $b && "$bin" -fy image >out$r 2>&1
			 echo "exit $?" >>out$r)
		done
	done
	same "fsck $c output" base/out1 new/out1
	same "fsck $c second run" base/out2 new/out2
	if ! cmp -s base/image new/image; then
		# a base that differs from itself (a random journal
		# sequence, say) at the same bytes: not the change's doing
		mkdir -p base2 && cp image base2/image
		(cd base2 && "$BASE/extkit-fsck" -fy image >/dev/null 2>&1;
		 "$BASE/extkit-fsck" -fy image >/dev/null 2>&1)
		if [ "$(cmp -l base/image base2/image | cut -c1-12)" = \
		     "$(cmp -l base/image new/image | cut -c1-12)" ]; then
			n=$((n + 1))
			echo "note: fsck $c image: the base differs from itself at the same bytes"
			cd "$w" && rm -rf "$cw"
			continue
		fi
	fi
	same "fsck $c image" base/image new/image
	cd "$w" && rm -rf "$cw"
done
[ "$bad" -eq 0 ] &&
	ok "$n comparisons, all identical ($kb differing in s_kbytes_written only)"
finish
