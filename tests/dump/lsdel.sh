# SPDX-License-Identifier: GPL-2.0-or-later
# extkit-dump lsdel against debugfs' lsdel (issue 34, Deliver 3): on ext2
# (indirect maps, 1 KiB blocks) and ext4 (extents), files deleted by
# debugfs kill_file (blocks freed, map kept), deletion times set out of
# order (the list is sorted by them), one deleted inode whose map names
# a block past the filesystem (not listed); the JSON has the same rows.
. "${top_srcdir:-.}/tests/lib.sh"
need_dump
need_tools mke2fs debugfs python3

src=$tmpdir/src
mkdir -p "$src" || exit 99
for i in 1 2 3 4 5 6; do
	head -c $((i * 5000)) /dev/zero | tr '\0' x >"$src/f$i"
done
for kind in ext2 ext4; do
	img=$tmpdir/$kind.img
	"$MKE2FS" -q -F -t $kind -b 1024 -d "$src" "$img" 8M >/dev/null 2>&1 ||
		{ fail "mke2fs $kind"; continue; }
	"$DEBUGFS" -w -f - "$img" >/dev/null 2>&1 <<'CMDS'
kill_file /f1
kill_file /f3
kill_file /f4
kill_file /f5
sif <13> dtime 1700000300
sif <15> dtime 1600000000
sif <16> dtime 1700000100
sif <14> dtime 1700000200
sif <16> block[0] 99999999
CMDS
	"$DEBUGFS" -R lsdel "$img" 2>/dev/null >"$tmpdir/want"
	"$DUMP" "$img" lsdel >"$tmpdir/got" 2>&1
	if cmp -s "$tmpdir/want" "$tmpdir/got" &&
	   grep -q '^3 deleted inodes found' "$tmpdir/got"; then
		ok "$kind: lsdel equals debugfs' (3 listed, sorted)"
	else
		fail "$kind: lsdel differs"; diff "$tmpdir/want" "$tmpdir/got"
	fi
	"$DUMP" --json "$img" lsdel >"$tmpdir/json" &&
		python3 - "$tmpdir/json" "$tmpdir/got" <<'PY' &&
import json, sys
d = json.load(open(sys.argv[1]))["deleted"]
rows = [l.split()[:6] for l in open(sys.argv[2]).read().splitlines()[1:-1]]
got = [[str(x["inode"]), str(x["uid"]), "%o" % x["mode"], str(x["size"]),
        "%d/" % x["free_blocks"], str(x["blocks"])] for x in d]
assert got == rows, (got, rows)
assert [x["dtime"] for x in d] == sorted(x["dtime"] for x in d)
PY
		ok "$kind: JSON has the same rows" || fail "$kind: JSON rows"
done
finish
