#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# extkit-mkfs --device-table (issue 35): a table in Buildroot's format
# (system/device_table.txt and device_table_dev.txt: directories, files
# chowned, devices, ranges) over a tree, over a tar of the same tree and
# alone gives the same nodes, modes, owners and device numbers as
# genext2fs -D (when installed); bad tables are refused before anything
# is written, naming the line.
. "${top_srcdir:-.}/tests/lib.sh"
. "$top_srcdir/tests/mkfs/mkfs-lib.sh"
need_tools e2fsck debugfs

GENEXT2FS=$(find_tool genext2fs) || GENEXT2FS=

src=$tmpdir/src
mkdir -p "$src/etc/network" "$src/var" "$src/tmp" "$src/usr/bin" || exit 99
chmod 755 "$src" "$src/tmp"
echo root:x:0:0 >"$src/etc/passwd"
echo secret >"$src/etc/shadow"
chmod 666 "$src/etc/shadow"
chown 1000:1000 "$src/etc/shadow" 2>/dev/null
echo '#!/bin/sh' >"$src/usr/bin/tool"
chmod 755 "$src/usr/bin/tool"
ln "$src/usr/bin/tool" "$src/usr/bin/tool2"
ln -s tool "$src/usr/bin/link"

table=$tmpdir/device_table.txt
cat >"$table" <<'TBL'
# Buildroot's system/device_table.txt and device_table_dev.txt, shortened
# <name>		<type>	<mode>	<uid>	<gid>	<major>	<minor>	<start>	<inc>	<count>
/dev			d	755	0	0	-	-	-	-	-
/dev/pts		d	755	0	0	-	-	-	-	-
/dev/shm		d	1777	0	0	-	-	-	-	-
/tmp			d	1777	0	0	-	-	-	-	-
/etc			d	755	0	0	-	-	-	-	-
/root			d	700	0	0	-	-	-	-	-
/var/www		d	755	33	33	-	-	-	-	-
/etc/shadow		f	600	0	0	-	-	-	-	-
/etc/passwd		f	644	0	0	-	-	-	-	-
/etc/network/if-up.d	d	755	0	0	-	-	-	-	-
/usr/bin/tool2		f	4755	0	0	-	-	-	-	-

/dev/mem	c	640	0	0	1	1	0	0	-
/dev/kmem	c	640	0	0	1	2	0	0	-
/dev/null	c	666	0	0	1	3	0	0	-
/dev/zero	c	666	0	0	1	5	0	0	-
/dev/random	c	666	0	0	1	8	0	0	-
/dev/urandom	c	666	0	0	1	9	0	0	-
/dev/console	c	622	0	0	5	1	-	-	-
/dev/tty	c	666	0	0	5	0	-	-	-
/dev/ptmx	c	666	0	0	5	2	-	-	-
/dev/tty	c	666	0	0	4	0	0	1	8
/dev/ttyS	c	666	0	0	4	64	0	1	4
/dev/loop	b	640	0	6	7	0	0	1	4
/dev/hd		b	640	0	6	3	0	0	64	2
/dev/mtdblock	b	640	0	0	31	0	0	1	4
/dev/initctl	p	600	0	0	-	-	-	-	-
TBL

# list IMAGE: every path with its mode, owner and device number.
list() {
	_img=$1
	_walk() {
		"$DEBUGFS" -R "ls -p $1" "$_img" 2>/dev/null |
		while IFS=/ read -r _ _ino _mode _uid _gid _name _rest; do
			case $_name in ''|.|..) continue ;; esac
			_p=${1%/}/$_name
			_rdev=
			case $_mode in
			02*|06*) _rdev=$("$DEBUGFS" -R "stat $_p" "$_img" \
					2>/dev/null | sed -n \
					's/^Device major\/minor number: \([0-9:]*\).*/\1/p') ;;
			esac
			echo "$_p $_mode $_uid $_gid $_rdev"
			case $_mode in
			04*) [ "$_p" = /lost+found ] || _walk "$_p" ;;
			esac
		done
	}
	_walk / | sort
}

mk() {
	_img=$1
	shift
	rm -f "$_img"
	run_mkfs "$tmpdir/out" "$tmpdir/err" -q -b 1024 "$@" "$_img" 8M ||
		{ fail "extkit-mkfs $*: $(cat "$tmpdir/err")"; return 1; }
	fsck_clean "extkit-mkfs $*" "$_img"
}

# The tree, its tar and nothing at all, with the table.
mk "$tmpdir/dir.img" -d "$src" --device-table "$table" &&
	list "$tmpdir/dir.img" >"$tmpdir/dir.list"
grep -q '^/dev/ttyS3 020666 0 0 04:67$' "$tmpdir/dir.list" &&
grep -q '^/dev/hd1 060640 0 6 03:64$' "$tmpdir/dir.list" &&
grep -q '^/etc/shadow 100600 0 0 $' "$tmpdir/dir.list" &&
grep -q '^/tmp 041777 0 0 $' "$tmpdir/dir.list" &&
grep -q '^/usr/bin/tool 104755 0 0 $' "$tmpdir/dir.list" &&
grep -q '^/var/www 040755 33 33 $' "$tmpdir/dir.list" &&
	ok "tree + table: ranges, devices, chowned paths, hard links" ||
	{ fail "tree + table: unexpected nodes"; sed 's/^/    /' "$tmpdir/dir.list"; }
[ "$(grep -c '^/dev/tty[0-9]' "$tmpdir/dir.list")" = 8 ] &&
	ok "/dev/tty0 .. /dev/tty7 from one line" ||
	fail "tty range: $(grep '^/dev/tty[0-9]' "$tmpdir/dir.list" | tr '\n' ' ')"

if tar -C "$src" -cf "$tmpdir/src.tar" . 2>/dev/null; then
	mk "$tmpdir/tar.img" -d "$tmpdir/src.tar" --device-table "$table" &&
		list "$tmpdir/tar.img" >"$tmpdir/tar.list"
	cmp -s "$tmpdir/dir.list" "$tmpdir/tar.list" &&
		ok "the tar of the tree + table: the same nodes" ||
		{ fail "tar + table differs from tree + table"
		  diff "$tmpdir/dir.list" "$tmpdir/tar.list" | head -10; }
fi

grep -v -e '^/etc/' -e '^/usr/' -e '^/var/' -e '^/tmp' "$table" \
	>"$tmpdir/alone.txt"
mk "$tmpdir/alone.img" --device-table "$tmpdir/alone.txt" &&
	list "$tmpdir/alone.img" >"$tmpdir/alone.list"

if [ -z "$GENEXT2FS" ]; then
	echo "genext2fs not installed: the comparison with genext2fs -D is skipped"
else
	"$GENEXT2FS" -b 8192 -d "$src" -D "$table" "$tmpdir/g.img" \
		>/dev/null 2>&1 || fail "genext2fs -d -D failed"
	list "$tmpdir/g.img" >"$tmpdir/g.list"
	cmp -s "$tmpdir/dir.list" "$tmpdir/g.list" &&
		ok "tree + table: the same nodes, modes, owners and devices as genext2fs -D ($(wc -l <"$tmpdir/g.list") paths)" ||
		{ fail "tree + table differs from genext2fs -D"
		  diff "$tmpdir/g.list" "$tmpdir/dir.list" | head -10; }
	"$GENEXT2FS" -b 8192 -D "$tmpdir/alone.txt" "$tmpdir/ga.img" \
		>/dev/null 2>&1 || fail "genext2fs -D failed"
	list "$tmpdir/ga.img" >"$tmpdir/ga.list"
	cmp -s "$tmpdir/alone.list" "$tmpdir/ga.list" &&
		ok "the table alone: the same as genext2fs -D ($(wc -l <"$tmpdir/ga.list") paths)" ||
		{ fail "table alone differs from genext2fs -D"
		  diff "$tmpdir/ga.list" "$tmpdir/alone.list" | head -10; }
fi

# Bad tables: exit 1, one line naming the line, no image left.
bad() {
	_desc=$1
	_want=$2
	shift 2
	printf '%s\n' "$@" >"$tmpdir/bad.txt"
	rm -f "$tmpdir/bad.img"
	run_mkfs "$tmpdir/out" "$tmpdir/err" -q -d "$src" \
		--device-table "$tmpdir/bad.txt" "$tmpdir/bad.img" 8M
	_rc=$?
	if [ "$_rc" -ne 1 ]; then
		fail "$_desc: exit $_rc, expected 1"
	elif [ -e "$tmpdir/bad.img" ]; then
		fail "$_desc: the image was left"
	elif [ "$(wc -l <"$tmpdir/err")" -ne 1 ] ||
	     ! grep -q "$_want" "$tmpdir/err"; then
		fail "$_desc: stderr: $(cat "$tmpdir/err")"
	else
		ok "$_desc: $(cat "$tmpdir/err")"
	fi
}
D='/dev d 755 0 0 - - - - -'
bad "nine fields" "line 2: 10 fields" "$D" '/dev/null c 666 0 0 1 3 0 0'
bad "unknown type" "line 2: unknown type 'x'" "$D" '/dev/x x 666 0 0 1 3 0 0 -'
bad "bad octal mode" "line 2: bad mode '0899'" "$D" '/dev/x c 0899 0 0 1 3 0 0 -'
bad "mode too big" "line 1: bad mode" '/dev d 17777 0 0 - - - - -'
bad "uid not a number" "line 2: bad uid 'root'" "$D" '/dev/x c 600 root 0 1 3 0 0 -'
bad "major too big" "line 2: bad major '5000'" "$D" '/dev/x c 600 0 0 5000 3 0 0 -'
bad "relative path" "line 2: 'dev/x': the path must start" "$D" 'dev/x c 600 0 0 1 3 0 0 -'
bad "'..' in a path" "line 2: '/dev/../x'" "$D" '/dev/../x c 600 0 0 1 3 0 0 -'
bad "a range of 100000" "line 2: bad count '100000'" "$D" '/dev/x c 600 0 0 1 0 0 1 100000'
bad "a range past the largest minor" "line 2: the range goes past" "$D" '/dev/x c 600 0 0 1 1048570 0 1 10'
bad "one path, two types" "line 3: /dev/x: of type c on line 2" "$D" \
	'/dev/x c 600 0 0 1 3 0 0 -' '/dev/x b 600 0 0 1 3 0 0 -'
bad "a parent that is a file" "line 3: /dev/f/x: /dev/f is not a directory" \
	"$D" '/dev/f f 600 0 0 - - - - -' '/dev/f/x c 600 0 0 1 3 - - -'
bad "no such directory" "line 2: /nodir/x: its directory is neither" \
	"$D" '/nodir/x c 600 0 0 1 3 - - -'
bad "a file of the source as a directory" "(line 1) gives type d, the source has type f" \
	'/etc/passwd d 755 0 0 - - - - -'
bad "the root as a device" "line 1: the root '/' can only be" \
	'/ c 755 0 0 1 1 - - -'
rm -f "$tmpdir/bad.img"
run_mkfs "$tmpdir/out" "$tmpdir/err" -q --device-table "$tmpdir/none.txt" \
	"$tmpdir/bad.img" 8M
[ $? -eq 1 ] && [ ! -e "$tmpdir/bad.img" ] &&
	grep -q 'none.txt: No such file' "$tmpdir/err" &&
	ok "a missing table: $(cat "$tmpdir/err")" ||
	fail "a missing table: $(cat "$tmpdir/err")"

finish
