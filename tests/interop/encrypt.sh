# SPDX-License-Identifier: GPL-2.0-or-later
# Encrypted directories (issue 13): names are ciphertext (any byte, NUL
# and '/' included), hashed as those bytes; encrypted symlinks hold a
# 16-bit length then ciphertext. An ext4 -O encrypt image (1 KiB blocks)
# whose /enc the kernel encrypted (tests/interop/fscrypt_dir.py: the
# fscrypt ioctls, a fixed v2 key) and filled with 300 files (an htree),
# a subdirectory and a symlink: extkit-fsck -fn clean (e2fsck too);
# extkit-fsck -fyD rewrites /enc, e2fsck -fn is clean and the kernel,
# given the key, finds every file by name with its size and reads the
# link. Needs root and loop mounts (skips otherwise).

. "${top_srcdir:-.}/tests/lib.sh"
need_tools mke2fs e2fsck debugfs python3
FSCK=$top_builddir/extkit-fsck
MKCRYPT=$top_srcdir/tests/interop/fscrypt_dir.py
N=300
[ "$(id -u)" = 0 ] || skip "needs root for loop mounts"
use_mount_point
img=$tmpdir/enc.img
"$MKE2FS" -q -F -t ext4 -b 1024 -O encrypt "$img" 16M >/dev/null 2>&1 ||
	skip "mke2fs -O encrypt failed"
mount -o loop "$img" "$mnt" 2>/dev/null || skip "no loop mount here"
python3 "$MKCRYPT" make "$mnt" enc "$N" >"$tmpdir/mk.log" 2>&1
rc=$?
umount "$mnt"
[ "$rc" = 77 ] && skip "$(cat "$tmpdir/mk.log")"
[ "$rc" = 0 ] || { fail "fscrypt_dir.py make: exit $rc"; cat "$tmpdir/mk.log"; finish; }

"$DEBUGFS" -R "htree enc" "$img" 2>/dev/null | grep -q '^Root node dump' ||
	fail "the kernel did not index /enc (the test wants an htree)"
if ! "$E2FSCK" -fn "$img" >"$tmpdir/e2.log" 2>&1; then
	fail "e2fsck -fn finds the kernel's image damaged"
elif ! "$FSCK" -fn "$img" >"$tmpdir/fsck.log" 2>&1; then
	fail "extkit-fsck -fn reports damage on the kernel's image"
	sed 's/^/    /' "$tmpdir/fsck.log" | head -10
else
	ok "extkit-fsck -fn: the kernel's encrypted directory is clean"
fi

"$FSCK" -fyD "$img" >"$tmpdir/fsckD.log" 2>&1
rc=$?
if [ "$rc" != 0 ] && [ "$rc" != 1 ]; then
	fail "extkit-fsck -fyD exit $rc"
	sed 's/^/    /' "$tmpdir/fsckD.log" | head -10
elif ! "$E2FSCK" -fn "$img" >"$tmpdir/e2D.log" 2>&1; then
	fail "extkit-fsck -fyD: e2fsck -fn finds errors"
	sed 's/^/    /' "$tmpdir/e2D.log" | head -10
elif ! mount -o loop "$img" "$mnt" 2>/dev/null; then
	fail "extkit-fsck -fyD: the image does not mount"
else
	if python3 "$MKCRYPT" check "$mnt" enc "$N" >"$tmpdir/ck.log" 2>&1; then
		ok "extkit-fsck -fyD: e2fsck -fn clean, the kernel finds all $N files by name"
	else
		fail "extkit-fsck -fyD: the kernel's lookups fail: $(cat "$tmpdir/ck.log")"
	fi
	umount "$mnt"
fi
finish
