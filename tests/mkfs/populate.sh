#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# extkit-mkfs -d: a tree with every file type, a directory of 20,000
# entries, a 5 GiB sparse file, hard links across directories, xattrs and
# ACLs, odd names (spaces, UTF-8, 255 bytes), setuid/sticky modes, owner
# 1234:5678 and times with nanoseconds is copied in as a directory and as
# a tar archive (tar --xattrs --acls --sparse): e2fsck -fn exits 0 and a
# read-only loop mount equals the source (contents, types, modes, owners,
# link counts, sizes, mtimes to the nanosecond, device numbers, xattrs).
# mke2fs -d of the same tree (without the big directory) lists the same.
# Two runs are byte-identical, also from a tree created in another order,
# and equal to a run without the reader thread (EXTKIT_MKFS_NO_READER).
# Errors: an unreadable file, a 256-byte name, a tree bigger than the
# filesystem: exit 1, a message naming the path and the reason, and a
# target that is not a filesystem. Root parts (devices, owners, trusted.
# and security. attributes, mounts) are skipped without root.
. "${top_srcdir:-.}/tests/lib.sh"
. "$top_srcdir/tests/mkfs/mkfs-lib.sh"
need_tools e2fsck mke2fs debugfs python3 tar
TIMEOUT=120

root=0
[ "$(id -u)" = 0 ] && root=1
use_mount_point

# ---- the tree ----
tree=$tmpdir/tree
mkdir -p "$tree/etc/sub" "$tree/var/spool" "$tree/big" "$tree/odd" \
	"$tree/var/empty" || exit 99
echo hello >"$tree/etc/hosts"
seq 1 200000 >"$tree/etc/numbers"		# indirect blocks
head -c 70000 /dev/urandom >"$tree/etc/random"
ln "$tree/etc/hosts" "$tree/var/spool/hosts-link"	# across directories
ln "$tree/etc/hosts" "$tree/etc/sub/again"
ln -s hosts "$tree/etc/fast-link"
ln -s "$(printf 'long/%.0s' $(seq 1 30))target" "$tree/etc/slow-link"
mkfifo "$tree/var/fifo"
python3 -c 'import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' \
	"$tree/var/sock" || exit 99
truncate -s 5G "$tree/var/sparse"
printf start | dd of="$tree/var/sparse" conv=notrunc 2>/dev/null
printf middle | dd of="$tree/var/sparse" bs=1 seek=2500000000 \
	conv=notrunc 2>/dev/null
printf end | dd of="$tree/var/sparse" bs=1 seek=$((5 * 1073741824 - 3)) \
	conv=notrunc 2>/dev/null
echo spaces >"$tree/odd/a name with spaces"
echo utf8 >"$tree/odd/$(printf 'gr\303\274\303\237e \342\202\254 \346\227\245\346\234\254')"
long=$(printf 'n%.0s' $(seq 1 255))
echo long >"$tree/odd/$long"
chmod 4755 "$tree/etc/numbers"
chmod 2755 "$tree/etc/sub"
chmod 1777 "$tree/var/spool"
(cd "$tree/big" && seq -f 'entry-%05g' 1 20000 | xargs touch) || exit 99
if command -v setfattr >/dev/null && command -v setfacl >/dev/null; then
	setfattr -n user.small -v tiny "$tree/etc/hosts"
	setfattr -n user.big -v "$(printf 'v%.0s' $(seq 1 150))" "$tree/etc/hosts"
	setfattr -n user.block -v "$(head -c 900 /dev/zero | tr '\0' b)" \
		"$tree/etc/random"
	setfacl -m u:1234:rw,g:5678:r "$tree/etc/random"
	setfacl -d -m u:1234:rwx "$tree/etc/sub"
	if [ $root = 1 ]; then
		setfattr -n trusted.t -v trust "$tree/etc/random"
		setfattr -n security.s -v sec "$tree/odd"
	fi
	xattrs=1
else
	xattrs=0
fi
if [ $root = 1 ]; then
	mknod "$tree/var/null" c 1 3
	mknod "$tree/var/disk" b 259 70000	# a new-format device number
	chown 1234:5678 "$tree/etc/hosts" "$tree/etc/sub" "$tree/var/fifo"
fi
find "$tree" -exec touch -h -m -d "2021-01-02 03:04:05.123456789" {} +
touch -h -m -d "1999-12-31 23:59:59.5" "$tree/etc/fast-link"
nfiles=$(find "$tree" | wc -l)

# listing DIR: one line per entry (lost+found left out): type, mode,
# owner, links, size (not of directories), mtime, target, device, xattrs.
listing() {
	(cd "$1" && find . -path ./lost+found -prune -o \
		-printf '%p|%y|%m|%U:%G|%n|%s|%T@|%l|%D\n' |
	awk -F'|' '{ if ($2 == "d") $6 = "-"; if ($1 == ".") $5 = "-";
		$9 = ""; print }' OFS='|' |
	sort)
	if [ $root = 1 ] && [ -e "$1/var/disk" ]; then
		stat -c '%n %t:%T' "$1/var/disk" "$1/var/null" | sed "s|^$1||"
	fi
	[ $xattrs = 1 ] || return 0
	for f in etc etc/hosts etc/random etc/sub odd var/spool/hosts-link; do
		echo "== $f"
		getfattr -h -d -m - --absolute-names "$1/$f" 2>/dev/null |
			grep -v '^#' | sort
		getfacl -cp "$1/$f" 2>/dev/null
	done
}
listing "$tree" >"$tmpdir/want" || exit 99
cp "$tmpdir/want" "$tmpdir/want.dir"
grep -v '^\./var/sock|' "$tmpdir/want" >"$tmpdir/want.tar"	# tar skips it

# check_image DESC IMAGE [WANT]: e2fsck -fn clean and, mounted, equal to
# the tree (WANT: its listing, $tmpdir/want by default).
mounts=1
check_image() {
	fsck_clean "$1" "$2" || return
	if [ $root = 0 ] || [ $mounts = 0 ]; then
		ok "$1: e2fsck -fn clean (mount skipped)"
		return
	fi
	if ! mount -o loop,ro "$2" "$mnt" 2>"$tmpdir/err"; then
		mounts=0
		ok "$1: e2fsck -fn clean (mount refused: $(cat "$tmpdir/err"))"
		return
	fi
	listing "$mnt" >"$tmpdir/got"
	if ! diff -u "${3:-$tmpdir/want}" "$tmpdir/got" >"$tmpdir/d"; then
		fail "$1: the mounted image differs from the source"
		head -20 "$tmpdir/d" | sed 's/^/    /'
	elif ! diff -r --no-dereference -x lost+found -x sparse "$tree" \
			"$mnt" >"$tmpdir/d" 2>&1 &&
	     grep -v -e ' is a fifo while ' -e ' is a socket while ' \
			-e ' is a character special file while ' \
			-e ' is a block special file while ' \
			-e 'Only in .*/var: sock$' "$tmpdir/d" | grep -q .; then
		fail "$1: diff -r finds differences"
		head -5 "$tmpdir/d" | sed 's/^/    /'
	elif [ "$(sparse_bytes "$mnt/var/sparse")" != "start|middle|end" ] ||
	     [ "$(stat -c %b "$mnt/var/sparse")" -gt 200 ]; then
		fail "$1: the 5 GiB sparse file: $(sparse_bytes "$mnt/var/sparse"), $(stat -c %b "$mnt/var/sparse") sectors"
	else
		ok "$1: e2fsck -fn clean, the mount equals the source ($nfiles entries)"
	fi
	umount "$mnt"
}

# sparse_bytes FILE: the bytes written at the start, middle and end of
# the 5 GiB file (diff -r would read 5 GiB of zeros).
sparse_bytes() {
	printf '%s|%s|%s' "$(dd if="$1" bs=5 count=1 2>/dev/null)" \
		"$(dd if="$1" bs=2 skip=1250000000 count=3 2>/dev/null)" \
		"$(dd if="$1" bs=1 skip=$((5 * 1073741824 - 3)) count=3 \
			2>/dev/null)"
}

mkfs_d() {
	run_mkfs "$tmpdir/out" "$tmpdir/err" -q -F -U "$TEST_UUID" "$@"
}

tar --xattrs --acls --sparse -cf "$tmpdir/tree.tar" -C "$tree" . ||
	exit 99
# ext4: extkit-mkfs -t ext4 when it makes ext4; until then the -d step
# (tests/mkfs/popinto) on what mke2fs -t ext4 made (extents, flex_bg,
# 64bit, metadata_csum, uninitialised groups).
POPINTO=$top_builddir/tests/mkfs/popinto
ext4_native=0
run_mkfs "$tmpdir/out" "$tmpdir/err" -q -F -t ext4 "$tmpdir/probe.img" 8M &&
	ext4_native=1
# ext2 from the tar also takes -E root_owner=42:43: its root is 42:43's.
awk -F'|' '$1 == "." { $4 = "42:43" } { print }' OFS='|' \
	"$tmpdir/want.tar" >"$tmpdir/want.tar42"
for t in ext2 ext4; do
	for src in dir tar; do
		img=$tmpdir/$t-$src.img
		[ $src = dir ] && from=$tree || from=$tmpdir/tree.tar
		how=$t
		want=$tmpdir/want.$src
		owner=
		if [ $t$src = ext2tar ]; then
			owner=,root_owner=42:43
			want=$tmpdir/want.tar42
			how="ext2 (-E root_owner=42:43)"
		fi
		if [ $t = ext2 ] || [ $ext4_native = 1 ]; then
			mkfs_d -E "hash_seed=$TEST_SEED$owner" -t "$t" \
				-d "$from" "$img" 96M
		elif [ -x "$POPINTO" ]; then
			how="ext4 (mke2fs -t ext4, then the -d step)"
			"$MKE2FS" -q -F -t ext4 -U "$TEST_UUID" "$img" 96M \
				>/dev/null 2>&1 &&
			"$POPINTO" "$img" "$from" 2>"$tmpdir/err"
		else
			echo "SKIP: ext4: $POPINTO not built"
			continue
		fi
		rc=$?
		if [ $rc -eq 0 ]; then
			check_image "$how from a $src" "$img" "$want"
		else
			fail "$how from a $src: exit $rc: $(cat "$tmpdir/err")"
		fi
	done
done

# root_owner, and the htree of the big directory
img=$tmpdir/ext2-tar.img
if "$DEBUGFS" -R 'stat /' "$img" 2>/dev/null | grep -q 'User: *42 *Group: *43' &&
   "$DEBUGFS" -R 'htree /big' "$img" 2>/dev/null | grep -q 'Indirect levels'; then
	ok "-E root_owner=42:43 owns the root; /big is indexed"
else
	fail "root_owner or the htree of /big"
fi 2>/dev/null

# mke2fs -d on the same tree without the big directory lists the same.
small=$tmpdir/small
cp -a "$tree" "$small" && rm -rf "$small/big" || exit 99
if mkfs_d -d "$small" "$tmpdir/ours.img" 64M &&
   "$MKE2FS" -q -F -t ext2 -d "$small" "$tmpdir/theirs.img" 64M \
		>/dev/null 2>&1; then
	if [ $root = 1 ] && mount -o loop,ro "$tmpdir/theirs.img" "$mnt" \
			2>/dev/null; then
		# mke2fs -d keeps whole seconds only
		listing "$mnt" | sed 's/\.[0-9]*|/|/' >"$tmpdir/theirs.list"
		umount "$mnt"
		mount -o loop,ro "$tmpdir/ours.img" "$mnt" &&
			listing "$mnt" | sed 's/\.[0-9]*|/|/' \
				>"$tmpdir/ours.list" && umount "$mnt"
		if diff -u "$tmpdir/theirs.list" "$tmpdir/ours.list" \
				>"$tmpdir/d"; then
			ok "mke2fs -d and extkit-mkfs -d list the same"
		else
			fail "mke2fs -d and extkit-mkfs -d differ"
			head -20 "$tmpdir/d" | sed 's/^/    /'
		fi
	else
		fsck_clean "ours (small)" "$tmpdir/ours.img" &&
			ok "small tree: e2fsck -fn clean (mount skipped)"
	fi
else
	fail "small tree: $(cat "$tmpdir/err")"
fi

# The source read ahead on a second thread (popread.c) changes nothing:
# the ext2 image of the tree again with one thread only.
EXTKIT_MKFS_NO_READER=1 mkfs_d -E "hash_seed=$TEST_SEED" -t ext2 \
	-d "$tree" "$tmpdir/one-thread.img" 96M
if cmp -s "$tmpdir/ext2-dir.img" "$tmpdir/one-thread.img"; then
	ok "the reader thread: byte-identical to one thread"
else
	fail "the reader thread changes the image"
fi
rm -f "$tmpdir/one-thread.img"

# Reproducible: twice the same bytes, also from a tree made in reverse.
mk_small_tree() {
	mkdir -p "$1" && (cd "$1" && for n in $2; do
		mkdir -p "d$n" && echo "$n" >"f$n" && echo "$n" >"d$n/g" &&
		ln -s "f$n" "l$n"
	done && seq -f 'x%03g' 1 300 | xargs touch &&
	find . -exec touch -h -m -d "2020-02-02 02:02:02.5" {} +)
}
mk_small_tree "$tmpdir/r1" "$(seq 1 40)"
mk_small_tree "$tmpdir/r2" "$(seq 40 -1 1)"
mkfs_d -d "$tmpdir/r1" "$tmpdir/r1a.img" 8M
mkfs_d -d "$tmpdir/r1" "$tmpdir/r1b.img" 8M
mkfs_d -d "$tmpdir/r2" "$tmpdir/r2.img" 8M
if cmp -s "$tmpdir/r1a.img" "$tmpdir/r1b.img" &&
   cmp -s "$tmpdir/r1a.img" "$tmpdir/r2.img"; then
	ok "reproducible: byte-identical across runs and creation orders"
else
	fail "images differ between runs or creation orders"
fi

# A progress bar on a terminal (entries counted first; for an archive,
# by the bytes of it read), none with -q: 2,500 entries (over the 2,000
# that show a bar), and their tar (over 1 MiB).
bar_shown() {
	tr '\r' '\n' <"$1" | grep -q '^Copying files: \[#*\] *[0-9]*%' &&
	tr '\r' '\n' <"$1" | grep -q '^Copying files: \[#\{50\}\] 100%'
}
PTY="python3 $top_srcdir/tests/pty_run.py"
mkdir -p "$tmpdir/many" && (cd "$tmpdir/many" && seq 1 2500 | xargs touch) &&
	tar -cf "$tmpdir/many.tar" -C "$tmpdir/many" . || exit 99
$PTY "$tmpdir/tty.out" "" -- $MKFS -F -d "$tmpdir/many" "$tmpdir/tty.img" 32M
$PTY "$tmpdir/tty-tar.out" "" -- $MKFS -F -d "$tmpdir/many.tar" \
	"$tmpdir/tty.img" 32M
$PTY "$tmpdir/tty-q.out" "" -- $MKFS -q -F -d "$tmpdir/many" \
	"$tmpdir/tty.img" 32M
if bar_shown "$tmpdir/tty.out" && bar_shown "$tmpdir/tty-tar.out" &&
   ! grep -q 'Copying' "$tmpdir/tty-q.out"; then
	ok "a progress bar on a terminal, from a directory and a tar; none with -q"
else
	fail "progress bar: $(tr '\r' '\n' <"$tmpdir/tty.out" | grep Copying | tail -1) / $(tr '\r' '\n' <"$tmpdir/tty-tar.out" | grep Copying | tail -1)"
fi

# ---- errors ----
# expect_error DESC PATTERN ARGS...: exit 1, one line that matches, and
# the target is not a filesystem (e2fsck finds no superblock).
expect_error() {
	_d=$1
	_p=$2
	shift 2
	rm -f "$bad"
	run_mkfs "$tmpdir/out" "$tmpdir/err" -q -F "$@" "$bad" 4M
	_rc=$?
	if [ $_rc -ne 1 ] || ! grep -q -- "$_p" "$tmpdir/err" ||
	   [ "$(wc -l <"$tmpdir/err")" -ne 1 ]; then
		fail "$_d: exit $_rc: $(cat "$tmpdir/err")"
	elif "$E2FSCK" -fn "$bad" >/dev/null 2>&1; then
		fail "$_d: the target looks like a filesystem"
	else
		ok "$_d: $(head -1 "$tmpdir/err")"
	fi
}
bad=$tmpdir/bad.img
python3 - "$tmpdir/long.tar" <<'EOF' || exit 99
import io, sys, tarfile
with tarfile.open(sys.argv[1], "w", format=tarfile.PAX_FORMAT) as t:
    i = tarfile.TarInfo("dir/" + "x" * 256)
    i.size = 2
    t.addfile(i, io.BytesIO(b"hi"))
EOF
expect_error "a 256-byte name" "dir/xxxx*: name longer than 255 bytes" \
	-d "$tmpdir/long.tar"
mkdir -p "$tmpdir/huge" && head -c 6000000 /dev/urandom >"$tmpdir/huge/blob"
expect_error "a tree bigger than the filesystem" \
	"huge/blob: no space left: the tree is bigger than the filesystem" \
	-d "$tmpdir/huge"
# (files after it: the reader thread, ahead, is stopped on the error)
mkdir -p "$tmpdir/locked" && echo secret >"$tmpdir/locked/file" &&
	chmod 000 "$tmpdir/locked/file" &&
	(cd "$tmpdir/locked" && seq -f 'later%03g' 1 300 | xargs touch)
if [ $root = 0 ]; then
	expect_error "an unreadable file" "locked/file: Permission denied" \
		-d "$tmpdir/locked"
elif command -v setpriv >/dev/null; then
	chmod 755 "$tmpdir" && chmod 777 "$tmpdir/locked" &&
	printf '#!/bin/sh\nexec setpriv --reuid=65534 --regid=65534 --clear-groups %s "$@"\n' \
		"$MKFS" >"$tmpdir/nobody" && chmod 755 "$tmpdir/nobody" &&
	MKFS=$tmpdir/nobody && bad=$tmpdir/locked/bad.img &&
	expect_error "an unreadable file" "locked/file: Permission denied" \
		-d "$tmpdir/locked"
	MKFS=$top_builddir/extkit-mkfs
	chmod 700 "$tmpdir"
fi
expect_error "a missing source" "no-such: No such file" \
	-d "$tmpdir/no-such"
finish
