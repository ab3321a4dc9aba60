# SPDX-License-Identifier: GPL-2.0-or-later
# large_dir: a 3-level htree (issue 13). The kernel fills a directory of
# a 1 KiB-block large_dir filesystem (loop mount) with 48000 hard links
# of 255-byte names, enough leaves for indirect_levels 2. Checks:
#  - debugfs sees indirect_levels 2; e2fsck -fn and extkit-fsck -fn are
#    clean, and -fy changes nothing but the check's superblock fields;
#  - an index block of the third level (the nodes that name leaves) is
#    damaged two ways (an entry's hash out of order; an entry naming a
#    block past the directory): extkit-fsck -fn finds it (exit 4),
#    -fy fixes it (exit 1), then e2fsck -fn and extkit-fsck -fn are
#    clean and every name is still there.
# Needs root and loop mounts (skips otherwise); about 30 MiB of image.

. "${top_srcdir:-.}/tests/lib.sh"
need_tools mke2fs debugfs e2fsck python3
FSCK=$top_builddir/extkit-fsck
N=48000

[ "$(id -u)" = 0 ] || skip "not root: no loop mount"
use_mount_point
img=$tmpdir/ld.img
"$MKE2FS" -q -F -t ext4 -b 1024 -O large_dir -N 2048 "$img" 40M ||
	exit 99
mount -o loop "$img" "$mnt" 2>/dev/null || skip "loop mount refused"
mkdir "$mnt/big" && echo x >"$mnt/target" &&
python3 - "$mnt" "$N" <<'PYEOF' || { umount "$mnt"; exit 99; }
import os, sys
m, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    os.link(m + '/target', '%s/big/%06d%s' % (m, i, 'n' * 249))
PYEOF
umount "$mnt" || exit 99
cp "$img" "$tmpdir/clean.img"

levels=$("$DEBUGFS" -R "htree big" "$img" 2>/dev/null |
	sed -n 's/^[[:space:]]*Indirect levels: //p' | head -1)
[ "$levels" = 2 ] || skip "the kernel made $levels indirect levels, not 2"

if ! "$E2FSCK" -fn "$img" >"$tmpdir/e2.log" 2>&1; then
	fail "e2fsck -fn finds the kernel's image damaged"
elif ! "$FSCK" -fn "$img" >"$tmpdir/fn.log" 2>&1; then
	fail "extkit-fsck -fn: $(grep -v '^Pass' "$tmpdir/fn.log" | head -3)"
else
	ok "3-level htree ($N names): e2fsck and extkit-fsck -fn clean"
fi
"$FSCK" -fy "$img" >"$tmpdir/fy.log" 2>&1
rc=$?
if [ $rc != 0 ] || ! "$E2FSCK" -fn "$img" >/dev/null 2>&1; then
	fail "extkit-fsck -fy on the clean image: exit $rc"
else
	ok "extkit-fsck -fy: exit 0, e2fsck -fn clean after"
fi

# lblk of the first index block of the third level: the root names
# level-2 nodes, their first entry names a level-3 node.
third_level() {
	"$DEBUGFS" -R "htree big" "$1" 2>/dev/null |
		sed -n "s/^Entry #0: Hash 0x00000000, block //p" | sed -n 3p
}

# damage HOW: edits entry 2 of the first third-level node in a copy.
damage() {
	cp "$tmpdir/clean.img" "$img"
	lb=$(third_level "$img")
	pb=$("$DEBUGFS" -R "bmap big $lb" "$img" 2>/dev/null)
	python3 - "$img" "$pb" "$1" <<'PYEOF'
import struct, sys
img, pb, how = sys.argv[1], int(sys.argv[2]), sys.argv[3]
with open(img, 'r+b') as f:
    off = pb * 1024 + 16 + 8      # entries from 16; entry 2 (1 is at 16)
    f.seek(off)
    if how == 'hash':
        f.write(struct.pack('<I', 0xfffffff0))
    else:
        f.seek(off + 4)
        f.write(struct.pack('<I', 0x0ffffff0))
PYEOF
}

for how in hash block; do
	damage "$how"
	"$FSCK" -fn "$img" >"$tmpdir/n.log" 2>&1
	rn=$?
	"$FSCK" -fy "$img" >"$tmpdir/y.log" 2>&1
	ry=$?
	names=$("$DEBUGFS" -R "ls big" "$img" 2>/dev/null | grep -o '[0-9]\{6\}n' |
		sort -u | wc -l)
	if [ $rn != 4 ]; then
		fail "third-level $how: extkit-fsck -fn exit $rn"
	elif [ $ry != 1 ]; then
		fail "third-level $how: extkit-fsck -fy exit $ry"
		sed 's/^/    /' "$tmpdir/y.log" | head -10
	elif ! "$E2FSCK" -fn "$img" >"$tmpdir/e2.log" 2>&1; then
		fail "third-level $how: e2fsck -fn finds errors after -fy"
		sed 's/^/    /' "$tmpdir/e2.log" | head -10
	elif ! "$FSCK" -fn "$img" >/dev/null 2>&1; then
		fail "third-level $how: a second extkit-fsck -fn finds errors"
	elif [ "$names" != "$N" ]; then
		fail "third-level $how: $names names left of $N"
	else
		ok "third-level $how: found ($(grep -v '^Pass' "$tmpdir/n.log" |
			head -1 | cut -c1-60)...), fixed, $N names kept"
	fi
done
finish
