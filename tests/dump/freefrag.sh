# SPDX-License-Identifier: GPL-2.0-or-later
# extkit-dump freefrag against e2freefrag (issue 34, Deliver 3): the same
# report, line for line but the device name, on ext2 with 1 KiB blocks
# (first data block 1), ext4 with flex_bg, uninitialised block bitmaps
# and a free space broken up by deleting every other file, and an empty
# filesystem; the JSON's figures match the text's. On bigalloc, where
# e2freefrag counts nothing (see below), the header and the sums.
. "${top_srcdir:-.}/tests/lib.sh"
need_dump
need_tools mke2fs e2freefrag debugfs python3

src=$tmpdir/src
mkdir -p "$src" || exit 99
i=0
while [ $i -lt 120 ]; do
	head -c $(((i % 7 + 1) * 3000)) /dev/zero >"$src/f$i"
	i=$((i + 1))
done
"$MKE2FS" -q -F -t ext2 -b 1024 -d "$src" "$tmpdir/ext2.img" 8M \
	>/dev/null 2>&1 ||
	fail "mke2fs ext2"
"$MKE2FS" -q -F -t ext4 -O ^resize_inode -d "$src" "$tmpdir/ext4.img" 64M \
	>/dev/null 2>&1 ||
	fail "mke2fs ext4"
i=0
cmds=
while [ $i -lt 120 ]; do
	cmds="${cmds}rm /f$i
"
	i=$((i + 2))
done
printf '%s' "$cmds" | "$DEBUGFS" -w -f - "$tmpdir/ext4.img" >/dev/null 2>&1
printf '%s' "$cmds" | "$DEBUGFS" -w -f - "$tmpdir/ext2.img" >/dev/null 2>&1
"$MKE2FS" -q -F -t ext4 -O bigalloc -C 16384 -d "$src" "$tmpdir/big.img" \
	64M >/dev/null 2>&1 || fail "mke2fs bigalloc"
"$MKE2FS" -q -F -t ext4 "$tmpdir/empty.img" 300M >/dev/null 2>&1 ||
	fail "mke2fs empty"

# bigalloc: e2freefrag (1.47.0 and 1.47.4) shifts the block number to a
# cluster twice and finds no free extent; extkit-dump counts the free
# clusters' blocks. The header must agree, and every free block must be
# in an extent.
img=$tmpdir/big.img
"$E2FREEFRAG" "$img" 2>/dev/null | sed -n '2,4p' >"$tmpdir/want"
"$DUMP" "$img" freefrag | sed -n '2,4p' >"$tmpdir/got"
"$DUMP" --json "$img" freefrag >"$tmpdir/json"
cmp -s "$tmpdir/want" "$tmpdir/got" && python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["free_extents"] >= 1 and d["free_blocks"] > 0
assert d["free_blocks_in_extents"] == d["free_blocks"], d
assert sum(h["blocks"] for h in d["histogram"]) == d["free_blocks"]
' "$tmpdir/json" && ok "bigalloc: e2freefrag's header; every free block in an extent" ||
	fail "bigalloc freefrag"

for i in ext2 ext4 empty; do
	img=$tmpdir/$i.img
	"$E2FREEFRAG" "$img" 2>/dev/null | sed 1d >"$tmpdir/want"
	"$DUMP" "$img" freefrag >"$tmpdir/got" 2>&1
	if sed 1d "$tmpdir/got" | cmp -s "$tmpdir/want" - &&
	   grep -q '^Device: ' "$tmpdir/got"; then
		ok "$i: freefrag equals e2freefrag ($(grep -c '\.\.\.' \
			"$tmpdir/want") histogram rows)"
	else
		fail "$i: freefrag differs from e2freefrag"
		sed 1d "$tmpdir/got" | diff "$tmpdir/want" - | head
	fi
	"$DUMP" --json "$img" freefrag >"$tmpdir/json" 2>&1 &&
	python3 - "$tmpdir/json" "$tmpdir/want" <<'PY' &&
import json, re, sys
d = json.load(open(sys.argv[1]))
t = open(sys.argv[2]).read()
assert d["free_extents"] == int(re.search(r"Num. free extent: (\d+)", t)[1])
assert d["free_blocks"] == int(re.search(r"Free blocks: (\d+)", t)[1])
rows = re.findall(r":\s+(\d+)\s+(\d+)\s+[\d.]+%", t)
assert [(h["extents"], h["blocks"]) for h in d["histogram"]] == \
    [(int(a), int(b)) for a, b in rows], (d["histogram"], rows)
PY
		ok "$i: JSON has the same figures" || fail "$i: JSON figures"
done
# the fragmented image has several bins, or the test shows little
[ "$(grep -c '\.\.\.' "$tmpdir/want")" -ge 1 ] || fail "no histogram"
"$E2FREEFRAG" "$tmpdir/ext4.img" 2>/dev/null | grep -c '\.\.\.' |
	grep -q '^[2-9]' && ok "ext4: several histogram bins" ||
	fail "ext4: too few bins to test"
finish
