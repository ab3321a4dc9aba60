# SPDX-License-Identifier: GPL-2.0-or-later
# extkit-dump cat and dump [-p] against debugfs' cat and dump [-p] (issue
# 34), on images of each map kind: ext2 (indirect blocks, 1 KiB and 4 KiB
# blocks), ext4 (extents), ext4 with inline_data, bigalloc; files with
# holes (leading, inner, trailing), small, empty, large. Output bytes
# must be equal; dump keeps holes; -p sets mode, owner and mtime as
# debugfs -p does.

. "${top_srcdir:-.}/tests/lib.sh"
need_dump
need_tools mke2fs debugfs python3

src=$tmpdir/src
mkdir -p "$src/d" || exit 99
(
	cd "$src" || exit 99
	head -c 200000 /dev/urandom >big
	truncate -s 5M sparse
	printf mid | dd of=sparse bs=1 seek=2000000 conv=notrunc 2>/dev/null
	printf beg | dd of=sparse conv=notrunc 2>/dev/null
	truncate -s 1M lead && printf end >>lead
	truncate -s 2M trail && printf head | dd of=trail conv=notrunc 2>/dev/null
	printf 'tiny' >tiny && : >empty && printf 'inner\n' >d/f
	head -c 100 /dev/urandom >inl
	chmod 4751 tiny && touch -d '2020-02-03 04:05:06.7' big
) || exit 99

files="big sparse lead trail tiny empty d/f inl"
for kind in ext2-1k ext2-4k ext4 inline bigalloc; do
	img=$tmpdir/$kind.img
	case $kind in
	ext2-1k) opts="-t ext2 -b 1024" ;;
	ext2-4k) opts="-t ext2 -b 4096" ;;
	ext4) opts="-t ext4 -b 4096" ;;
	inline) opts="-t ext4 -b 4096 -O inline_data" ;;
	bigalloc) opts="-t ext4 -b 1024 -O bigalloc -C 16384" ;;
	esac
	# shellcheck disable=SC2086
	"$MKE2FS" -q -F $opts -d "$src" "$img" 16M >/dev/null 2>&1 || {
		echo "$kind: mke2fs refused, not checked"; continue; }
	bad=0
	for f in $files; do
		# debugfs (1.47.0 and 1.47.4) writes an inline file's whole
		# buffer (60 bytes, or a block) past i_size: cut at i_size
		# (mke2fs 1.47.0 -O inline_data may cut a file short: the
		# image's size, not the source's)
		size=$("$DEBUGFS" -R "stat /$f" "$img" 2>/dev/null |
			sed -n 's/.*  Size: \([0-9]*\)$/\1/p' | head -1)
		"$DEBUGFS" -R "cat /$f" "$img" 2>/dev/null |
			head -c "$size" >"$tmpdir/want"
		if ! timeout 20 "$DUMP" "$img" cat "/$f" >"$tmpdir/got" \
			2>"$tmpdir/err" || ! cmp -s "$tmpdir/want" "$tmpdir/got"
		then
			fail "$kind: cat /$f differs from debugfs"
			bad=1
		fi
		rm -f "$tmpdir/want.d" "$tmpdir/got.d"
		"$DEBUGFS" -R "dump -p /$f $tmpdir/want.d" "$img" >/dev/null 2>&1
		want_stat=$(stat -c '%u %g %Y' "$tmpdir/want.d")
		want_mode=$(stat -c 0%a "$tmpdir/want.d")
		truncate -s "$size" "$tmpdir/want.d"
		# debugfs -p keeps only the permission bits (mode_xlate):
		# compared without setuid/setgid/sticky, checked below
		if ! timeout 20 "$DUMP" "$img" dump -p "/$f" "$tmpdir/got.d" \
			2>"$tmpdir/err" || ! cmp -s "$tmpdir/want.d" "$tmpdir/got.d"
		then
			fail "$kind: dump /$f differs from debugfs"
			bad=1
		elif [ "$want_stat" != "$(stat -c '%u %g %Y' "$tmpdir/got.d")" ] ||
		     [ $((want_mode & 0777)) != \
		       $(($(stat -c 0%a "$tmpdir/got.d") & 0777)) ] ||
		     [ "$(stat -c %a "$tmpdir/got.d")" != \
		       "$(stat -c %a "$src/$f")" ]; then
			fail "$kind: dump -p /$f: $want_mode $want_stat vs $(stat \
				-c '%a %u %g %Y' "$tmpdir/got.d")"
			bad=1
		fi
	done
	[ $bad = 0 ] && ok "$kind: cat and dump -p equal debugfs' for: $files"
	# holes stay holes in dump
	"$DUMP" "$img" dump /sparse "$tmpdir/s.d" 2>/dev/null
	used=$(du -k "$tmpdir/s.d" | cut -f1)
	[ "$used" -le 64 ] && ok "$kind: dump keeps holes (${used} KiB of 5 MiB)" ||
		fail "$kind: dump filled holes: ${used} KiB"
done
# errors: a directory, a missing path, bad arguments (exit 1, one line)
img=$tmpdir/ext4.img
expect_fail_one_line "cat of a directory" "$img" cat /d
expect_fail_one_line "cat of a missing file" "$img" cat /nothere
expect_fail_one_line "dump into a missing directory" "$img" dump /big \
	"$tmpdir/no/such/file"
expect_fail_one_line "extract of a missing path" "$img" extract /nothere \
	"$tmpdir/newdest"
[ ! -e "$tmpdir/newdest" ] && ok "extract of a missing path creates no DEST" ||
	fail "extract of a missing path created DEST"
expect_fail_one_line "extract without DEST" "$img" extract
expect_fail_one_line "extract --tar with two paths" "$img" extract --tar \
	"$tmpdir/x.tar" /d /big
expect_fail_one_line "extract --json --tar -" --json "$img" extract --tar -
expect_fail_one_line "--tar on another command" "$img" cat --tar x /big
finish
