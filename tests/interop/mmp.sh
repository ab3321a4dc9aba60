# SPDX-License-Identifier: GPL-2.0-or-later
# Multiple mount protection: an image whose MMP block says fsck runs on
# another node is refused, by name, by every tool that would write
# (extkit-fsck -n and -y exit 8 as e2fsck refuses it; extkit-label exits
# 1) and left byte for byte as it was; a free one is checked, and the
# MMP block is left clean (sequence EXT4_MMP_SEQ_CLEAN) with e2fsck -fn
# still clean.

. "${top_srcdir:-.}/tests/lib.sh"
need_dump
need_tools mke2fs debugfs e2fsck python3
FSCK=$top_builddir/extkit-fsck
LABEL=$top_builddir/extkit-label
MKE2FS_CONFIG=$top_srcdir/tests/regress/mke2fs.conf
export MKE2FS_CONFIG
img=$tmpdir/mmp.img

"$MKE2FS" -q -F -t ext4 -O mmp "$img" 16M >/dev/null 2>&1 ||
	skip "mke2fs cannot make an mmp filesystem"
seq_of() {
	"$DEBUGFS" -R dump_mmp "$1" 2>/dev/null | sed -n 's/^sequence: //p'
}

python3 "$top_srcdir/tests/regress/mmp.py" "$img" 0xE24D4D50 othernode
sum=$(sha256sum <"$img")
"$E2FSCK" -fn "$img" >/dev/null 2>&1 && fail "e2fsck -fn accepts an MMP block in fsck use"
for opt in -fn -fy; do
	timeout 60 "$FSCK" $opt "$img" >"$tmpdir/out" 2>&1
	rc=$?
	if [ "$rc" -ne 8 ]; then
		fail "extkit-fsck $opt on an MMP block in use: exit $rc, want 8"
	elif ! grep -q '^MMP block [0-9]*: .*fsck is running' "$tmpdir/out"; then
		fail "extkit-fsck $opt: the refusal does not name MMP: $(cat "$tmpdir/out")"
	elif [ "$(sha256sum <"$img")" != "$sum" ]; then
		fail "extkit-fsck $opt changed an image it refused"
	else
		ok "extkit-fsck $opt refuses: $(head -1 "$tmpdir/out" | cut -c1-70)"
	fi
done
if "$LABEL" "$img" newlabel >"$tmpdir/out" 2>&1; then
	fail "extkit-label wrote a label on an MMP block in use"
elif ! grep -q 'MMP block' "$tmpdir/out"; then
	fail "extkit-label: the refusal does not name MMP: $(cat "$tmpdir/out")"
elif [ "$(sha256sum <"$img")" != "$sum" ]; then
	fail "extkit-label changed an image it refused"
else
	ok "extkit-label refuses: $(cat "$tmpdir/out")"
fi
if "$DUMP" "$img" super >/dev/null 2>&1; then
	ok "extkit-dump (read only) still reads it"
else
	fail "extkit-dump refuses to read an image with an MMP block in use"
fi

# Free again (as tune2fs -f -E clear_mmp leaves it): checked and clean.
python3 "$top_srcdir/tests/regress/mmp.py" "$img" 0xFF4D4D50
if timeout 60 "$FSCK" -fy "$img" >"$tmpdir/out" 2>&1; then
	ok "extkit-fsck -fy on a free MMP block: exit 0"
else
	fail "extkit-fsck -fy on a free MMP block: $(cat "$tmpdir/out")"
fi
[ "$(seq_of "$img")" = ff4d4d50 ] && ok "MMP sequence clean after fsck" ||
	fail "MMP sequence after fsck: $(seq_of "$img")"
"$E2FSCK" -fn "$img" >/dev/null 2>&1 && ok "e2fsck -fn clean after it" ||
	fail "e2fsck -fn finds damage after extkit-fsck -fy"
if "$LABEL" "$img" newlabel >/dev/null 2>&1 &&
    [ "$("$LABEL" "$img")" = newlabel ] &&
    [ "$(seq_of "$img")" = ff4d4d50 ]; then
	ok "extkit-label writes a free one and leaves the MMP block clean"
else
	fail "extkit-label on a free MMP block"
fi
finish
