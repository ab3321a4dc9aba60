# SPDX-License-Identifier: GPL-2.0-or-later
# extkit-dump extract, round trips (issue 34). A tree with every file
# type, user., trusted. and security. attributes, one in an EA block,
# POSIX ACLs (access and default), hard links, holes (leading, inner,
# trailing), nanosecond times, 32-bit owners and setuid/setgid/sticky
# bits goes
# through extkit-mkfs -d, then:
#  - extract to a directory: equal to the source (contents, lstat
#    fields to the nanosecond, hard link groups, every xattr, getfattr
#    and getfacl listings), holes kept as holes, the socket counted;
#  - extract --tar: its pax listing (python tarfile: SCHILY.xattr,
#    SCHILY.acl, GNU.sparse, mtime to the ns) equals the source's;
#  - tar -> extkit-mkfs -d -> extract --tar: the same listing again;
#  - the kernel's view (a read-only loop mount) equals the extraction,
#    and so does an extraction as nobody (own owner, one summary line);
#  - PATH picks a subtree or one file; DEST is created; a second run
#    into the same DEST creates nothing and says partial (exit 2).
# Needs root (mknod, chown, trusted. attributes): skips otherwise.

. "${top_srcdir:-.}/tests/lib.sh"
need_dump
need_tools python3 getfacl setfacl getfattr setfattr tar
MKFS=$top_builddir/extkit-mkfs
CMP="python3 $top_srcdir/tests/dump/treecmp.py"
[ "$(id -u)" = 0 ] || skip "needs root (mknod, chown, trusted. attributes)"

src=$tmpdir/src
mkdir "$src" || exit 99
# make_tree: every kind of entry; false if the host refuses one
make_tree() (
	cd "$src" || exit 1
	printf 'hello\n' >file && printf abc >small &&
	head -c 300000 /dev/urandom >big &&
	truncate -s 10M sparse &&
	printf mid | dd of=sparse bs=1 seek=5000000 conv=notrunc 2>/dev/null &&
	printf end | dd of=sparse bs=1 seek=9000000 conv=notrunc 2>/dev/null &&
	truncate -s 3M tailhole && printf head >tailhole.tmp &&
	dd if=tailhole.tmp of=tailhole conv=notrunc 2>/dev/null &&
	rm tailhole.tmp && truncate -s 1G allhole &&
	ln file hard && ln file hard2 && ln -s file fastlink &&
	ln -s "$(printf 'x%.0s' $(seq 1 200))" slowlink &&
	ln -s dangling/target dangling &&
	mkdir -p d/e && printf inner >d/e/f && ln small d/e/small_link &&
	mkfifo fifo && mknod chr c 1 3 && mknod blk b 259 70000 &&
	python3 -c 'import socket; socket.socket(socket.AF_UNIX).bind("sock")' &&
	touch suid sgid && chmod 4755 suid && chmod 2711 sgid &&
	chmod 2755 d && mkdir sticky && chmod 1777 sticky &&
	setfattr -n user.color -v blue file &&
	setfattr -n trusted.t -v secret file &&
	setfattr -n user.bin -v 0x00ff00fe small &&
	{ setfattr -n security.extkit -v label suid 2>/dev/null || :; } &&
	for i in 1 2 3 4; do
		setfattr -n "user.long$i" -v "$(printf 'v%.0s' $(seq 1 150))" big ||
			exit 1
	done &&
	setfacl -m u:1234:rwx,g:55:r-x file &&
	# ids without names: GNU tar writes an ACL entry by name alone
	setfacl -d -m u:99:rx,g:4711:rwx d &&
	chown 70000:80000 small && chown -h 4000000000:3 fastlink &&
	chown 12:34 fifo &&
	touch -d '2020-01-02 03:04:05.123456789' file small d/e/f sgid &&
	touch -a -d '2021-05-06 07:08:09.987654321' file &&
	touch -h -d '2019-11-12 13:14:15.000000001' fastlink &&
	touch -d '2018-01-01 00:00:00.5' d/e d
)
make_tree || skip "the host refused part of the source tree"

# mkfs -d keeps the source's times only without SOURCE_DATE_EPOCH
mkfs_d() {
	env -u SOURCE_DATE_EPOCH -u E2FSPROGS_FAKE_TIME "$MKFS" -q -d "$@"
}
img=$tmpdir/img
mkfs_d "$src" "$img" 64M || { fail "mkfs -d"; finish; }

# extract ARGS...: extkit-dump IMAGE extract ARGS; status in $rc
extract() {
	timeout -k 5 60 "$DUMP" "$@" >"$tmpdir/out" 2>"$tmpdir/err"
	rc=$?
	if sanitizer_report "$tmpdir/err"; then
		fail "extract $*: sanitizer report"
		head -20 "$tmpdir/err"
	fi
}

out=$tmpdir/dest/new	# DEST does not exist yet: it is created
mkdir "$tmpdir/dest"
extract "$img" extract "$out"
if [ "$rc" = 0 ] && [ ! -s "$tmpdir/err" ]; then
	ok "extract: exit 0, nothing on stderr"
else
	fail "extract: exit $rc"; cat "$tmpdir/err"
fi
grep -q '1 sockets' "$tmpdir/out" && ok "the socket is counted" ||
	fail "no socket count: $(cat "$tmpdir/out")"
if $CMP tree "$src" "$out" --skip lost+found --skip sock --dirtimes \
	>"$tmpdir/cmp"; then
	ok "extracted tree equals the source ($(tail -1 "$tmpdir/cmp"))"
else
	fail "extracted tree differs"; cat "$tmpdir/cmp"
fi
# getfattr/getfacl listings, as a user would compare them (without the
# blocks of lost+found and the socket)
drop='/^# file: (.\/)?(lost\+found|sock)$/ { skip = 1 }
	/^$/ { if (skip) { skip = 0; next } } !skip'
for t in getfattr getfacl; do
	case $t in
	getfattr) cmd="getfattr -R -h -d -m- -e hex" ;;
	getfacl) cmd="getfacl -R -P -n" ;;
	esac
	(cd "$src" && $cmd . 2>/dev/null) | awk "$drop" >"$tmpdir/$t.src"
	(cd "$out" && $cmd . 2>/dev/null) | awk "$drop" >"$tmpdir/$t.out"
	if diff "$tmpdir/$t.src" "$tmpdir/$t.out" >/dev/null; then
		ok "$t listings agree ($(grep -c '^# file' "$tmpdir/$t.src") files)"
	else
		fail "$t listings differ"
		diff "$tmpdir/$t.src" "$tmpdir/$t.out" | head -20
	fi
done
# holes stay holes: 1 GiB of hole takes no space, the 10 MiB file little
used=$(du -k "$out/allhole" | cut -f1)
used2=$(du -k "$out/sparse" | cut -f1)
if [ "$used" -le 4 ] && [ "$used2" -le 64 ]; then
	ok "holes kept (allhole ${used} KiB, sparse ${used2} KiB)"
else
	fail "holes filled: allhole ${used} KiB, sparse ${used2} KiB"
fi

# The same into an existing DEST: nothing overwritten, exit 2.
extract "$img" extract "$out"
if [ "$rc" = 2 ] && grep -q 'already exists' "$tmpdir/err" &&
   $CMP tree "$src" "$out" --skip lost+found --skip sock >/dev/null; then
	ok "into a full DEST: exit 2, names already there reported, kept"
else
	fail "into a full DEST: exit $rc"; head -5 "$tmpdir/err"
fi

# PATH: a subtree, one file
extract "$img" extract /d "$tmpdir/sub"
if [ "$rc" = 0 ] && $CMP tree "$src/d" "$tmpdir/sub" --dirtimes >/dev/null
then
	ok "extract /d DEST: the subtree"
else
	fail "extract /d: exit $rc"; cat "$tmpdir/err"
fi
extract "$img" extract /d/e/f "$tmpdir/one"
if [ "$rc" = 0 ] && [ "$(ls "$tmpdir/one")" = f ] &&
   $CMP tree "$src/d/e" "$tmpdir/one" --skip small_link --no-root \
	>/dev/null; then
	ok "extract /d/e/f DEST: the file under its name"
else
	fail "extract one file: exit $rc"; cat "$tmpdir/err"
fi

# --tar: the pax listing equals the source's
$CMP src "$src" | grep -av '^sock ' >"$tmpdir/list.src"
extract "$img" extract --tar "$tmpdir/x.tar"
$CMP tar "$tmpdir/x.tar" | grep -av '^lost+found ' >"$tmpdir/list.tar"
if [ "$rc" = 0 ] && diff "$tmpdir/list.src" "$tmpdir/list.tar" >/dev/null
then
	ok "--tar: pax listing equals the source ($(wc -l <"$tmpdir/list.src") entries)"
else
	fail "--tar listing differs (exit $rc)"
	diff "$tmpdir/list.src" "$tmpdir/list.tar" | head -20
fi
if python3 - "$tmpdir/x.tar" <<'PY'
import sys, tarfile
t = {m.name.rstrip('/'): m for m in tarfile.open(sys.argv[1])}
need = [('file', 'SCHILY.xattr.trusted.t'), ('file', 'SCHILY.acl.access'),
        ('d', 'SCHILY.acl.default'), ('sparse', 'GNU.sparse.realsize'),
        ('small', 'SCHILY.xattr.user.bin')]
bad = [n + ':' + k for n, k in need if k not in t[n].pax_headers]
if t['file'].pax_headers.get('mtime') != '1577934245.123456789':
    bad.append('file mtime %r' % t['file'].pax_headers.get('mtime'))
if t['small'].uid != 70000 or t['fastlink'].uid != 4000000000:
    bad.append('owners')
if t['blk'].devmajor != 259 or t['blk'].devminor != 70000:
    bad.append('device')
print(' '.join(bad))
sys.exit(1 if bad else 0)
PY
then
	ok "--tar: pax headers for xattrs, ACLs, sparse, ns times, owners, devices"
else
	fail "--tar: pax headers missing"
fi
# to stdout
extract "$img" extract --tar - /d
if [ "$rc" = 0 ] && python3 -c 'import sys,tarfile
n=sorted(m.name for m in tarfile.open(fileobj=sys.stdin.buffer, mode="r|"))
sys.exit(0 if n == [".", "e", "e/f", "e/small_link"] else 1)' <"$tmpdir/out"
then
	ok "--tar - /d: the subtree on stdout"
else
	fail "--tar - /d: exit $rc"
fi

# tar -> mkfs -d -> extract --tar: the same listing once more
(cd "$src" && tar --atime-preserve=system --format=pax --xattrs --xattrs-include='*' --acls \
	--numeric-owner --sparse -cf "$tmpdir/src.tar" --exclude=./sock . 2>/dev/null)
mkfs_d "$tmpdir/src.tar" "$tmpdir/img2" 64M ||
	fail "mkfs -d src.tar"
extract "$tmpdir/img2" extract --tar "$tmpdir/y.tar"
$CMP tar "$tmpdir/y.tar" | grep -av '^lost+found ' >"$tmpdir/list.y"
if [ "$rc" = 0 ] && diff "$tmpdir/list.src" "$tmpdir/list.y" >/dev/null; then
	ok "tar -> mkfs -d -> extract --tar: identical listing"
else
	fail "tar round trip differs (exit $rc)"
	diff "$tmpdir/list.src" "$tmpdir/list.y" | head -20
fi

# As nobody: own owner, one summary line, contents and modes intact.
chmod 755 "$tmpdir" && chmod 644 "$img" && mkdir "$tmpdir/nb" &&
	chown nobody "$tmpdir/nb"
if setpriv --reuid=nobody --regid=nogroup --clear-groups true 2>/dev/null
then
	setpriv --reuid=nobody --regid=nogroup --clear-groups \
		"$DUMP" "$img" extract "$tmpdir/nb/x" >"$tmpdir/out" \
		2>"$tmpdir/err"
	rc=$?
	if [ "$rc" = 0 ] && [ "$(wc -l <"$tmpdir/err")" = 1 ] &&
	   grep -q 'not applied (not permitted)' "$tmpdir/err"; then
		ok "as nobody: exit 0, one line: $(cat "$tmpdir/err")"
	else
		fail "as nobody: exit $rc"; head "$tmpdir/err"
	fi
	# --tar as nobody loses nothing: owners, devices, trusted. too
	setpriv --reuid=nobody --regid=nogroup --clear-groups \
		"$DUMP" "$img" extract --tar "$tmpdir/nb/n.tar" >/dev/null \
		2>"$tmpdir/err2"
	rc2=$?
	$CMP tar "$tmpdir/nb/n.tar" | grep -av '^lost+found ' \
		>"$tmpdir/list.nb"
	if [ "$rc2" = 0 ] && [ ! -s "$tmpdir/err2" ] &&
	   diff "$tmpdir/list.src" "$tmpdir/list.nb" >/dev/null; then
		ok "as nobody, --tar: the full listing, nothing on stderr"
	else
		fail "as nobody, --tar: exit $rc2"; head -3 "$tmpdir/err2"
	fi
	if $CMP tree "$src" "$tmpdir/nb/x" --skip lost+found --skip sock \
		--skip chr --skip blk --no-owner --no-xattr trusted. \
		--no-xattr security. >"$tmpdir/cmp" &&
	   [ "$(stat -c %U "$tmpdir/nb/x/small")" = nobody ]; then
		ok "as nobody: the tree but owners, devices, trusted. and security. attributes"
	else
		fail "as nobody: tree differs"; head "$tmpdir/cmp"
	fi
else
	echo "as nobody: setpriv refused, not checked"
fi

# The kernel's view of the same image.
use_mount_point
if mount -o ro,loop "$img" "$mnt" 2>/dev/null; then
	if $CMP tree "$mnt" "$out" --skip lost+found --skip sock \
		--dirtimes >"$tmpdir/cmp"; then
		ok "kernel's view equals the extraction (stat, xattrs, links)"
	else
		fail "kernel's view differs"; head "$tmpdir/cmp"
	fi
	if [ -d "$tmpdir/nb/x" ]; then
		if $CMP tree "$mnt" "$tmpdir/nb/x" --skip lost+found \
			--skip sock --skip chr --skip blk --no-owner \
			--no-xattr trusted. --no-xattr security. \
			>"$tmpdir/cmp"; then
			ok "kernel's view equals nobody's extraction (but owners, devices, trusted., security.)"
		else
			fail "kernel's view differs from nobody's extraction"
			head "$tmpdir/cmp"
		fi
	fi
	if diff -r --no-dereference -x lost+found -x sock "$mnt" "$out" \
		>"$tmpdir/diff" 2>&1 ||
	   ! grep -v -e 'special file' -e 'is a fifo' "$tmpdir/diff" >/dev/null
	then
		ok "diff -r against the kernel's view: contents agree"
	else
		fail "diff -r against the kernel"; head "$tmpdir/diff"
	fi
	umount "$mnt"
else
	echo "loop mount refused: the kernel's view not checked"
fi
finish
