#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# extkit-mkfs --file-contexts (issue 35): security.selinux of every inode
# copied (debugfs ea_get) is what libselinux's selabel_lookup gives for
# its path and mode (asked here through python3's ctypes), with and
# without --selinux-root, from a directory and from an archive (the
# directories it implies too); a label the source has is kept, or replaced
# with --relabel; a missing file is refused before anything is written;
# the size found without SIZE counts the labels. As root, the kernel's
# view too: getfattr -n security.selinux of every path of the mounted
# image equals selabel_lookup's answer (skipped where loop mounts are
# refused).
# Skipped without libselinux.so.1 or python3.
. "${top_srcdir:-.}/tests/lib.sh"
. "$top_srcdir/tests/mkfs/mkfs-lib.sh"
need_tools e2fsck debugfs python3

cat >"$tmpdir/lookup.py" <<'PY'
import ctypes, os, stat, sys
lib = ctypes.CDLL("libselinux.so.1")
class Opt(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("value", ctypes.c_char_p)]
lib.selabel_open.restype = ctypes.c_void_p
lib.selabel_open.argtypes = [ctypes.c_uint, ctypes.POINTER(Opt), ctypes.c_uint]
lib.selabel_lookup.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_char_p),
                               ctypes.c_char_p, ctypes.c_int]
fc, src, root = sys.argv[1], sys.argv[2], sys.argv[3].rstrip("/")
opt = Opt(3, fc.encode())
h = lib.selabel_open(0, ctypes.byref(opt), 1)
if not h:
    sys.exit(77)
for dirpath, dirs, files in os.walk(src):
    for name in [""] + sorted(dirs + files) if dirpath == src else sorted(dirs + files):
        p = os.path.join(dirpath, name) if name else src
        rel = os.path.relpath(p, src)
        img = "/" if rel == "." else "/" + rel
        mode = os.lstat(p).st_mode
        con = ctypes.c_char_p()
        if lib.selabel_lookup(h, ctypes.byref(con), (root + img if img != "/" else (root or "/")).encode(), mode) == 0:
            print(img, con.value.decode())
        else:
            print(img, "-")
PY
python3 -c 'import ctypes; ctypes.CDLL("libselinux.so.1")' 2>/dev/null ||
	skip "libselinux.so.1 not found"

src=$tmpdir/src
mkdir -p "$src/etc/ssl" "$src/bin" "$src/var/log" "$src/dev" || exit 99
echo x >"$src/etc/passwd"
echo y >"$src/etc/ssl/cert"
echo z >"$src/bin/sh"
ln -s sh "$src/bin/ash"
mkfifo "$src/var/log/fifo"
mknod "$src/dev/null" c 1 3 2>/dev/null
fc=$tmpdir/file_contexts
cat >"$fc" <<'FC'
/			system_u:object_r:root_t:s0
/etc(/.*)?		system_u:object_r:etc_t:s0
/etc/ssl(/.*)?		system_u:object_r:cert_t:s0
/bin(/.*)?		system_u:object_r:bin_t:s0
/bin/ash	-l	system_u:object_r:shell_link_t:s0
/var/log(/.*)?		system_u:object_r:var_log_t:s0
/var/log/.*	-p	system_u:object_r:log_fifo_t:s0
/dev/null	-c	system_u:object_r:null_device_t:s0
/lost\+found(/.*)?	system_u:object_r:lost_found_t:s0
/system(/.*)?		u:object_r:system_file:s0
/system/etc(/.*)?	u:object_r:system_etc:s0
FC

# check IMAGE ROOT: every path's label against selabel_lookup.
check() {
	python3 "$tmpdir/lookup.py" "$fc" "$src" "$2" >"$tmpdir/want" ||
		{ [ $? -eq 77 ] && skip "selabel_open refused the file"; fail "lookup.py"; return; }
	_bad=0
	_n=0
	while read -r _p _want; do
		_got=$("$DEBUGFS" -R "ea_get $_p security.selinux" "$1" 2>/dev/null |
			sed -n 's/^security.selinux ([0-9]*) = "\(.*\)\\000"$/\1/p')
		[ -n "$_got" ] || _got=-
		_n=$((_n + 1))
		if [ "$_got" != "$_want" ]; then
			fail "$1 $_p: label '$_got', selabel_lookup gives '$_want'"
			_bad=1
		fi
	done <"$tmpdir/want"
	[ $_bad = 0 ] && ok "$(basename "$1"): $_n paths labelled as selabel_lookup says (root '$2')"
}

mk() {
	_img=$1
	shift
	rm -f "$_img"
	run_mkfs "$tmpdir/out" "$tmpdir/err" -q "$@" "$_img" 8M ||
		{ fail "extkit-mkfs $*: $(cat "$tmpdir/err")"; return 1; }
	fsck_clean "extkit-mkfs $*" "$_img"
}

mk "$tmpdir/a.img" -d "$src" --file-contexts "$fc" && check "$tmpdir/a.img" /
"$DEBUGFS" -R "ea_get /lost+found security.selinux" "$tmpdir/a.img" 2>/dev/null |
	grep -q lost_found_t && ok "the lost+found extkit-mkfs makes is labelled" ||
	fail "lost+found not labelled"
mk "$tmpdir/s.img" -d "$src" --file-contexts "$fc" --selinux-root /system &&
	check "$tmpdir/s.img" /system
grep -q 'u:object_r:system_etc:s0' "$tmpdir/want" ||
	fail "--selinux-root: no /system/etc label looked up"
# an archive as the source: labelled by the paths its entries name, the
# directories it only implies (no entry of their own: listed here are
# the files alone) and lost+found too
if (cd "$src" && find . ! -type d | tar -cf "$tmpdir/t.tar" --no-recursion \
	-T -) 2>"$tmpdir/err"; then
	mk "$tmpdir/t.img" -d "$tmpdir/t.tar" --file-contexts "$fc" &&
		check "$tmpdir/t.img" /
	"$DEBUGFS" -R "ea_get /lost+found security.selinux" "$tmpdir/t.img" \
		2>/dev/null | grep -q lost_found_t &&
		ok "an archive: lost+found labelled" ||
		fail "an archive: lost+found not labelled"
	mk "$tmpdir/u.img" -d "$tmpdir/t.tar" --file-contexts "$fc" \
		--selinux-root /system && check "$tmpdir/u.img" /system
else
	fail "tar: $(cat "$tmpdir/err")"
fi

# a label of the source: kept, or replaced with --relabel
if setfattr -n security.selinux -v "system_u:object_r:mine_t:s0" \
	"$src/etc/passwd" 2>/dev/null; then
	mk "$tmpdir/k.img" -d "$src" --file-contexts "$fc"
	"$DEBUGFS" -R "ea_get /etc/passwd security.selinux" "$tmpdir/k.img" \
		2>/dev/null | grep -q mine_t &&
		ok "the source's label kept" || fail "the source's label lost"
	mk "$tmpdir/r.img" -d "$src" --file-contexts "$fc" --relabel &&
		check "$tmpdir/r.img" /
else
	echo "note: cannot set security.selinux here: kept labels not tested"
fi

rm -f "$tmpdir/bad.img"
run_mkfs "$tmpdir/out" "$tmpdir/err" -q -d "$src" \
	--file-contexts "$tmpdir/none" "$tmpdir/bad.img" 8M
[ $? -eq 1 ] && [ ! -e "$tmpdir/bad.img" ] &&
	grep -q -- "--file-contexts $tmpdir/none" "$tmpdir/err" &&
	ok "a missing file_contexts: $(cat "$tmpdir/err")" ||
	fail "a missing file_contexts: $(cat "$tmpdir/err")"

# the size found for the tree (no SIZE) counts the labels: with 128-byte
# inodes each takes an attribute block
big=$tmpdir/big
mkdir -p "$big/etc" || exit 99
head -c 3000 /dev/zero | tr '\0' a >"$big/etc/f0" || exit 99
for i in $(seq 1 1000); do cp "$big/etc/f0" "$big/etc/f$i"; done
rm -f "$tmpdir/fit.img"
run_mkfs "$tmpdir/out" "$tmpdir/err" -q -I 128 -d "$big" \
	--file-contexts "$fc" "$tmpdir/fit.img" &&
	fsck_clean "fitted with labels" "$tmpdir/fit.img" &&
	ok "the fitted size holds 1001 files and their labels in blocks ($(stat -c %s "$tmpdir/fit.img") bytes)" ||
	fail "the fitted size with labels: $(cat "$tmpdir/err")"
# ... and so does the one found for an archive of the same tree
rm -f "$tmpdir/fita.img"
tar -C "$big" -cf "$tmpdir/big.tar" . &&
run_mkfs "$tmpdir/out" "$tmpdir/err" -q -I 128 -d "$tmpdir/big.tar" \
	--file-contexts "$fc" "$tmpdir/fita.img" &&
	fsck_clean "fitted with labels (archive)" "$tmpdir/fita.img" &&
	ok "an archive: the fitted size holds 1001 files and their labels ($(stat -c %s "$tmpdir/fita.img") bytes)" ||
	fail "an archive: the fitted size with labels: $(cat "$tmpdir/err")"

# the kernel's view: security.selinux of every path of the mounted image
# (getfattr) is what selabel_lookup gives for its path and mode
GETFATTR=$(find_tool getfattr) || GETFATTR=
[ -n "$GETFATTR" ] || { echo "note: no getfattr: the mounted labels are not checked"; finish; }
[ "$(id -u)" = 0 ] || { [ "$failures" = 0 ] && skip "not root: no loop mount"; finish; }
mnt=$tmpdir/mnt
mkdir -p "$mnt" || exit 99
trap 'mountpoint -q "$mnt" 2>/dev/null && umount "$mnt"; rm -rf "$tmpdir"' EXIT
# mounted IMAGE ROOT: every path of the mounted image against the lookup
mounted() {
	if ! mount -o loop,ro "$1" "$mnt" 2>"$tmpdir/err"; then
		[ "$failures" = 0 ] && skip "loop mount refused: $(cat "$tmpdir/err")"
		finish
	fi
	python3 "$tmpdir/lookup.py" "$fc" "$mnt" "$2" >"$tmpdir/want.k" ||
		fail "lookup.py on the mounted image"
	_bad=0
	_n=0
	while read -r _p _want; do
		_got=$("$GETFATTR" -h --only-values -n security.selinux \
			"$mnt$_p" 2>/dev/null | tr -d '\000')
		[ -n "$_got" ] || _got=-
		_n=$((_n + 1))
		if [ "$_got" != "$_want" ]; then
			fail "mounted $(basename "$1") $_p: getfattr '$_got', selabel_lookup '$_want'"
			_bad=1
		fi
	done <"$tmpdir/want.k"
	umount "$mnt"
	[ $_bad = 0 ] && [ $_n -gt 10 ] &&
		ok "mounted $(basename "$1"): getfattr -n security.selinux of all $_n paths (lost+found too) equals selabel_lookup (root '$2')"
}
mounted "$tmpdir/a.img" /
mounted "$tmpdir/s.img" /system
mounted "$tmpdir/t.img" /
finish
