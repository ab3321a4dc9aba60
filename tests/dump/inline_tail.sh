# SPDX-License-Identifier: GPL-2.0-or-later
# An inline-data file whose i_size passes the bytes it holds inline (what
# mke2fs -d makes of a fallocated file: 60 bytes inline, i_size 300000):
# e2fsck finds it clean and the kernel reads it as its inline bytes then
# zeros up to i_size. extkit-dump cat and extract give the same (they
# called it corrupted: found by tests/interop/user_trial.sh), and
# extract does not count system.data, the inline data itself, among the
# attributes of unknown namespaces it could not copy.

. "${top_srcdir:-.}/tests/lib.sh"
need_dump
need_tools mke2fs debugfs e2fsck python3

src=$tmpdir/src
mkdir -p "$src" || exit 99
printf 'forty bytes of inline data, then zeros.\n' >"$src/tail"
printf 'small' >"$src/plain"
img=$tmpdir/inl.img
"$MKE2FS" -q -F -t ext4 -b 4096 -O inline_data -d "$src" "$img" 8M \
	>/dev/null 2>&1 || skip "mke2fs -O inline_data -d refused"
"$DEBUGFS" -w -R "sif /tail size 300000" "$img" >/dev/null 2>&1 || exit 99
"$DEBUGFS" -R "stat /tail" "$img" 2>/dev/null | grep -q 'Size of inline data' ||
	skip "mke2fs did not store /tail inline"
"$E2FSCK" -fn "$img" >"$tmpdir/e2" 2>&1 ||
	{ cat "$tmpdir/e2"; skip "e2fsck does not accept the image here"; }

python3 - "$src/tail" "$tmpdir/want" <<'EOF' || exit 99
import sys
data = open(sys.argv[1], 'rb').read()
open(sys.argv[2], 'wb').write(data + bytes(300000 - len(data)))
EOF

if timeout 20 "$DUMP" "$img" cat /tail >"$tmpdir/got" 2>"$tmpdir/err" &&
    cmp -s "$tmpdir/want" "$tmpdir/got"; then
	ok "cat: the inline bytes, then zeros up to i_size"
else
	fail "cat /tail: $(cat "$tmpdir/err"), $(wc -c <"$tmpdir/got") bytes"
fi

if timeout 20 "$DUMP" "$img" extract / "$tmpdir/x" >"$tmpdir/out" \
    2>"$tmpdir/err" && cmp -s "$tmpdir/want" "$tmpdir/x/tail" &&
    cmp -s "$src/plain" "$tmpdir/x/plain"; then
	ok "extract: exit 0, the file as the kernel reads it"
else
	fail "extract: $(cat "$tmpdir/err")"
fi
if grep -q 'unknown namespaces' "$tmpdir/out"; then
	fail "extract counts system.data as an attribute not copied: $(cat "$tmpdir/out")"
else
	ok "extract: system.data is the contents, not an attribute left out"
fi

# The kernel, where it mounts the image, reads the same bytes.
if [ "$(id -u)" = 0 ]; then
	use_mount_point
	if mount -o loop,ro "$img" "$mnt" 2>/dev/null; then
		if cmp -s "$tmpdir/want" "$mnt/tail"; then
			ok "the kernel reads the same bytes"
		else
			fail "the kernel reads other bytes than expected"
		fi
		umount "$mnt"
	fi
fi
finish
