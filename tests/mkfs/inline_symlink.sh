#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# extkit-mkfs -d with inline_data: symbolic links (issue 33). A target of
# 60 bytes or more (too long for a fast link's i_block) that i_block and
# the in-inode system.data can hold is stored inline (EXT4_INLINE_DATA_FL,
# no block), as e2fsprogs' ext2fs_symlink does for mke2fs -d; a longer
# one takes a block. Targets of 59, 60, 61, 100, 128, 150, 200 and 4000
# bytes and every length around the inline limit of each inode size
# (256, 512, 1024; 128-byte inodes are refused with inline_data, as
# mke2fs refuses them), from a directory and from a tar archive: each
# link's debugfs flags, size, i_blocks and system.data size equal to
# mke2fs 1.47.4's (where built, MKE2FS_NEW), e2fsck 1.47.0, 1.47.4 and
# extkit-fsck -fn clean, and, where loop mounts work, the kernel reads
# every link back identical. A link whose other attributes would need
# an EA block is not inline (e2fsck does not count an inline link's EA
# block, so mke2fs's image of one is not clean): it takes a block, its
# attribute in the inode. With quotas no link is inline (e2fsck leaves
# inline links out of the usage; mke2fs too, the kernel counts them).
. "${top_srcdir:-.}/tests/lib.sh"
. "$top_srcdir/tests/mkfs/mkfs-lib.sh"

need_tools e2fsck debugfs mke2fs
MKE2FS_REF=${MKE2FS_NEW:-/work/e2fsprogs-src/misc/mke2fs}
[ -x "$MKE2FS_REF" ] || MKE2FS_REF=
MKE2FS_CONFIG=$top_srcdir/tests/mkfs/mke2fs-1.47.4.conf
ARGS="-q -F -b 4096 -t ext4 -O inline_data -U $TEST_UUID -E hash_seed=$TEST_SEED"
TIMEOUT=60

# target N: N bytes, a path of 'x's.
target() {
	printf 't/%*s' $(($1 - 2)) '' | tr ' ' x
}

tree=$tmpdir/tree
mkdir -p "$tree" || exit 99
lens="59 60 61 100 128 150 200 4000 $(seq 124 140 | tr '\n' ' ')
	$(seq 378 392 | tr '\n' ' ') $(seq 890 906 | tr '\n' ' ')"
for n in $lens; do
	[ -L "$tree/l$n" ] || ln -s "$(target "$n")" "$tree/l$n" || exit 99
done
touch -h -d "2021-03-04 05:06:07" "$tree"/* "$tree" || exit 99
(cd "$tree" && tar --format=pax -cf "$tmpdir/tree.tar" .) || exit 99

# links IMAGE: one line per link: name, flags, size, blocks, system.data.
links() {
	for n in $lens; do
		printf 'l%s ' "$n"
		"$DEBUGFS" -R "stat /l$n" "$1" 2>/dev/null |
			grep -oE 'Flags: 0x[0-9a-f]+|Size: [0-9]+|Blockcount: [0-9]+|system\.data \([0-9]+\)' |
			tr '\n' ' '
		echo
	done
}

# readlinks DESC IMAGE: the kernel reads every link back as in the tree.
readlinks() {
	[ "$kernel" = 1 ] || return 0
	if ! mount -o loop,ro "$2" "$mnt" 2>"$tmpdir/mount.err"; then
		fail "$1: mount: $(cat "$tmpdir/mount.err")"
		return
	fi
	# a kernel without inline symlinks (reading them came late to
	# ext4) fails every read of one: said, and only this check skipped
	if ! readlink "$mnt/l61" >/dev/null 2>&1; then
		echo "note: kernel $(uname -r) cannot read inline symlinks: $1's check skipped"
		umount "$mnt"
		return 0
	fi
	_bad=0
	for n in $lens; do
		[ "$(readlink "$mnt/l$n")" = "$(readlink "$tree/l$n")" ] ||
			_bad=$((_bad + 1))
	done
	umount "$mnt"
	[ "$_bad" = 0 ] && ok "$1: the kernel reads every link back" ||
		fail "$1: the kernel reads $_bad links differently"
}

probe_kernel_mounts "$tmpdir/probe.img"
for isize in 256 512 1024; do
	img=$tmpdir/i$isize.img
	run_mkfs "$tmpdir/out" "$tmpdir/err" $ARGS -I $isize -d "$tree" \
		"$img" 8M || { fail "-I $isize: exit $?: $(cat "$tmpdir/err")"
		continue; }
	links "$img" >"$tmpdir/ours.$isize"
	ninline=$(grep -c 'Flags: 0x10000000' "$tmpdir/ours.$isize")
	nslow=$(grep -c 'Flags: 0x80000 ' "$tmpdir/ours.$isize")
	[ "$ninline" -gt 0 ] && [ "$nslow" -gt 0 ] &&
		ok "-I $isize: $ninline links inline, $nslow in a block" ||
		fail "-I $isize: $ninline inline, $nslow in a block"
	both_clean "-I $isize" "$img" && ok "-I $isize: fsck clean"
	readlinks "-I $isize" "$img"
	run_mkfs "$tmpdir/out" "$tmpdir/err" $ARGS -I $isize \
		-d "$tmpdir/tree.tar" "$tmpdir/tar.img" 8M &&
		links "$tmpdir/tar.img" >"$tmpdir/tar.$isize" &&
		cmp -s "$tmpdir/ours.$isize" "$tmpdir/tar.$isize" &&
		ok "-I $isize: from a tar archive, the same links" ||
		fail "-I $isize: from a tar archive: $(cat "$tmpdir/err")
$(diff "$tmpdir/ours.$isize" "$tmpdir/tar.$isize" | head -6)"
	[ -n "$MKE2FS_REF" ] || continue
	"$MKE2FS_REF" $ARGS -I $isize -d "$tree" "$tmpdir/ref.img" 8M \
		>/dev/null 2>&1 || { fail "mke2fs 1.47.4 -I $isize failed"
		continue; }
	links "$tmpdir/ref.img" >"$tmpdir/ref.$isize"
	if cmp -s "$tmpdir/ref.$isize" "$tmpdir/ours.$isize"; then
		ok "-I $isize: every link as mke2fs 1.47.4 stores it"
	else
		fail "-I $isize: links differ from mke2fs 1.47.4's"
		diff "$tmpdir/ref.$isize" "$tmpdir/ours.$isize" | head -10
	fi
done
[ -n "$MKE2FS_REF" ] ||
	echo "note: mke2fs 1.47.4 not built: the comparison is skipped"

# 128-byte inodes have no room for system.data: refused, as mke2fs
run_mkfs "$tmpdir/out" "$tmpdir/err" $ARGS -I 128 -d "$tree" \
	"$tmpdir/i128.img" 8M
rc=$?
[ $rc = 1 ] && grep -q 'too small for inline data' "$tmpdir/err" &&
	ok "-I 128 with inline_data refused: $(cat "$tmpdir/err")" ||
	fail "-I 128 with inline_data: exit $rc: $(cat "$tmpdir/err")"

# with quotas no link is inline (e2fsck leaves inline links out of the
# usage it expects; the kernel counts them)
if run_mkfs "$tmpdir/out" "$tmpdir/err" $ARGS -O quota -I 512 -d "$tree" \
	"$tmpdir/quota.img" 8M; then
	links "$tmpdir/quota.img" >"$tmpdir/quota.links"
	n=$(grep -c 'Flags: 0x10000000' "$tmpdir/quota.links")
	nslow=$(grep -c 'Flags: 0x80000 ' "$tmpdir/quota.links")
	[ "$n" = 0 ] && [ "$nslow" -gt 0 ] &&
		ok "quota: no link inline ($nslow in a block)" ||
		fail "quota: $n links inline, $nslow in a block"
	both_clean "quota" "$tmpdir/quota.img" && ok "quota: fsck clean"
else
	fail "quota: exit $?: $(cat "$tmpdir/err")"
fi

# a link with an attribute: inline only when all fits in the inode
xtree=$tmpdir/xtree
mkdir -p "$xtree" || exit 99
ln -s "$(target 100)" "$xtree/l100" || exit 99
if command -v setfattr >/dev/null &&
	setfattr -h -n trusted.k -v "$(target 40)" "$xtree/l100" 2>/dev/null; then
	for isize in 256 512; do
		img=$tmpdir/x$isize.img
		run_mkfs "$tmpdir/out" "$tmpdir/err" $ARGS -I $isize \
			-d "$xtree" "$img" 8M ||
			{ fail "attribute, -I $isize: exit $?"; continue; }
		s=$("$DEBUGFS" -R "stat /l100" "$img" 2>/dev/null | tr '\n' ' ')
		case $isize/$s in
		256/*"Flags: 0x80000 "*"File ACL: 0 "*"trusted.k (40)"*|\
		512/*"Flags: 0x10000000"*"File ACL: 0 "*"system.data (40)"*"trusted.k (40)"*)
			ok "attribute, -I $isize: $(echo "$s" | grep -oE 'Flags: 0x[0-9a-f]+')" ;;
		*) fail "attribute, -I $isize: $s" ;;
		esac
		both_clean "attribute, -I $isize" "$img"
	done
else
	echo "note: no trusted.* attributes on links here: that case is skipped"
fi

finish
