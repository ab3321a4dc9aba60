# SPDX-License-Identifier: GPL-2.0-or-later
# extkit-dump extract on the features that change where data lives
# (issue 34): inline_data, ea_inode (a 9000-byte value, set by debugfs
# ea_set), bigalloc, casefold, 1 KiB and 64 KiB blocks, ext2 with
# indirect maps. The kernel is the oracle: each image is loop-mounted
# read-only and its view compared with the extraction (contents, lstat
# fields to the nanosecond, hard links, xattrs). The EA inode's value,
# which the destination filesystem here cannot hold, is compared
# through --tar. Skips (77) when no image can be mounted.

. "${top_srcdir:-.}/tests/lib.sh"
need_dump
need_tools mke2fs debugfs python3 getfattr
CMP="python3 $top_srcdir/tests/dump/treecmp.py"
[ "$(id -u)" = 0 ] || skip "loop mounts need root"
use_mount_point

src=$tmpdir/src
mkdir -p "$src/d/e" "$src/cf" || exit 99
(
	cd "$src" || exit 99
	head -c 70000 /dev/urandom >big && printf tiny >tiny &&
	printf 'inline but longer than sixty bytes: %070d' 0 >inl &&
	truncate -s 3M holes && printf x >>holes && : >empty &&
	ln big big2 && ln -s tiny sl && printf f >d/e/f &&
	printf r >cf/ReadMe && setfattr -n user.a -v 1 tiny &&
	setfattr -n user.mid -v "$(printf 'm%.0s' $(seq 1 300))" inl &&
	touch -d '2001-02-03 04:05:06.123456789' tiny d/e/f
) || exit 99
printf 'v%.0s' $(seq 1 9000) >"$tmpdir/huge"

mounted=0
for kind in inline ea_inode bigalloc casefold ext4-1k ext4-64k ext2; do
	img=$tmpdir/$kind.img
	case $kind in
	inline) opts="-t ext4 -O inline_data" ;;
	ea_inode) opts="-t ext4 -O ea_inode" ;;
	bigalloc) opts="-t ext4 -O bigalloc -C 16384" ;;
	casefold) opts="-t ext4 -O casefold" ;;
	ext4-1k) opts="-t ext4 -b 1024" ;;
	ext4-64k) opts="-t ext4 -b 65536" ;;
	ext2) opts="-t ext2 -b 4096" ;;
	esac
	# shellcheck disable=SC2086
	env -u SOURCE_DATE_EPOCH -u E2FSPROGS_FAKE_TIME \
		"$MKE2FS" -q -F $opts -d "$src" "$img" 64M >/dev/null 2>&1 ||
		{ echo "$kind: mke2fs refused, not checked"; continue; }
	if [ $kind = ea_inode ]; then
		"$DEBUGFS" -w -R "ea_set -f $tmpdir/huge /big user.huge" \
			"$img" >/dev/null 2>&1
	fi
	out=$tmpdir/out-$kind
	timeout -k 5 60 "$DUMP" "$img" extract "$out" >"$tmpdir/o" \
		2>"$tmpdir/err"
	rc=$?
	if sanitizer_report "$tmpdir/err"; then
		fail "$kind: sanitizer report"; head "$tmpdir/err"
	fi
	if ! mount -o ro,loop "$img" "$mnt" 2>/dev/null; then
		# no kernel view (no casefold support, blocks over the page
		# size): the source tree it was made from instead (mke2fs -d
		# keeps whole seconds)
		[ $rc = 0 ] && [ ! -s "$tmpdir/err" ] &&
		$CMP tree "$src" "$out" --skip lost+found --no-atime --sec \
			>"$tmpdir/cmp" &&
			ok "$kind: the kernel refused to mount; extraction equals the source ($(tail -1 "$tmpdir/cmp"))" ||
			{ fail "$kind: differs from the source (exit $rc)"
			  head "$tmpdir/cmp" "$tmpdir/err"; }
		continue
	fi
	mounted=$((mounted + 1))
	if [ $kind = ea_inode ]; then
		# a destination without ea_inode refuses the value: reported,
		# and the extraction is partial (exit 2)
		if getfattr -n user.huge "$out/big" >/dev/null 2>&1; then
			ok "$kind: the 9000-byte value was set in DEST"
		elif grep -q 'big: user.huge' "$tmpdir/err" && [ $rc = 2 ]; then
			ok "$kind: the value DEST cannot hold is reported, exit 2"
		else
			fail "$kind: user.huge neither set nor reported with exit 2 (exit $rc)"
		fi
		# a destination that surely cannot hold it: 1 KiB blocks, no
		# ea_inode
		dst=$tmpdir/dst
		mkdir -p "$dst" && "$MKE2FS" -q -F -t ext4 -b 1024 -O ^ea_inode \
			"$tmpdir/dst.img" 8M >/dev/null 2>&1 &&
		    mount -o loop "$tmpdir/dst.img" "$dst" 2>/dev/null && {
			timeout 60 "$DUMP" "$img" extract /big "$dst/x" \
				>/dev/null 2>"$tmpdir/err2"
			rc2=$?
			umount "$dst"
			grep -q 'big: user.huge' "$tmpdir/err2" && [ $rc2 = 2 ] &&
				ok "$kind: a value DEST cannot hold: reported, exit 2" ||
				fail "$kind: a value DEST cannot hold: exit $rc2, $(cat "$tmpdir/err2")"
		}
		getfattr -n user.huge "$out/big" >/dev/null 2>&1 && xopt= ||
			xopt="--no-xattr user.huge"
		timeout 60 "$DUMP" "$img" extract --tar "$tmpdir/ea.tar" \
			>/dev/null 2>&1
		want=$(cd "$mnt" && getfattr --only-values -n user.huge big |
			md5sum)
		got=$(python3 -c 'import sys, tarfile
m = tarfile.open(sys.argv[1]).getmember("big")
sys.stdout.buffer.write(m.pax_headers["SCHILY.xattr.user.huge"].encode(
    "utf-8", "surrogateescape"))' "$tmpdir/ea.tar" | md5sum)
		[ "$want" = "$got" ] && [ ${#want} -gt 3 ] &&
			ok "$kind: the 9000-byte EA inode value in --tar equals the kernel's" ||
			fail "$kind: EA inode value differs in --tar"
	else
		xopt=
		[ $rc = 0 ] && [ ! -s "$tmpdir/err" ] ||
			fail "$kind: exit $rc: $(head -3 "$tmpdir/err")"
	fi
	# shellcheck disable=SC2086
	if $CMP tree "$mnt" "$out" --dirtimes $xopt >"$tmpdir/cmp"; then
		ok "$kind: extraction equals the kernel's view ($(tail -1 "$tmpdir/cmp"))"
	else
		fail "$kind: differs from the kernel's view"; head "$tmpdir/cmp"
	fi
	umount "$mnt"
done
[ $mounted -gt 0 ] || skip "no image could be loop-mounted"
finish
