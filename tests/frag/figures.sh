# SPDX-License-Identifier: GPL-2.0-or-later
# extkit-dump frag against an independent count: figures.py parses the raw
# directory blocks (listed by debugfs) of directories thinned by scattered
# deletions, on ext2 (1 KiB, no index), ext4 (4 KiB, metadata_csum, htree
# built by mke2fs -d) and after e2fsck -fD (htree over 1 KiB blocks).

. "${top_srcdir:-.}/tests/lib.sh"
need_tools mke2fs debugfs e2fsck python3

keys="dir_blocks entries live_bytes free_bytes holes largest_hole hole_histogram blocks_needed reclaimable_blocks small_hole_share free_share"

# mktree DIR N LEN: N empty files with names of about LEN bytes.
mktree() {
	mkdir -p "$1"
	python3 - "$1" "$2" "$3" <<'PY'
import os, random, sys
d, n, ln = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
random.seed(n)
for i in range(n):
    name = "f%d_" % i + "x" * random.randint(0, ln)
    open(os.path.join(d, name[:255]), "w").close()
PY
}

# thin IMG DIR EVERY: deletes (with debugfs) a scattered share of DIR.
thin() {
	"$DEBUGFS" -R "ls -p $2" "$1" 2>/dev/null |
		awk -F/ -v every="$3" -v dir="$2" \
		'NF >= 7 && $6 != "." && $6 != ".." && NR % every != 0 {
			print "rm " dir "/" $6 }' >"$tmpdir/cmds"
	"$DEBUGFS" -w -f "$tmpdir/cmds" "$1" >/dev/null 2>&1
}

# compare IMG PATH: extkit's figures equal the independent count.
compare() {
	_img=$1
	_p=$2
	bs=$("$DEBUGFS" -R stats "$_img" 2>/dev/null |
		awk '/^Block size:/ { print $3 }')
	csum=0
	"$DEBUGFS" -R features "$_img" 2>/dev/null |
		grep -q metadata_csum && csum=1
	idx=0
	"$DEBUGFS" -R "stat $_p" "$_img" 2>/dev/null |
		grep -q 'Flags: 0x[0-9a-f]*[1-9a-f][0-9a-f][0-9a-f][0-9a-f]\b' &&
		"$DEBUGFS" -R "htree $_p" "$_img" 2>/dev/null |
		grep -q 'Root node dump' && idx=1
	"$DEBUGFS" -R "stat $_p" "$_img" 2>/dev/null |
		timeout 60 python3 "$top_srcdir/tests/frag/figures.py" \
		"$_img" "$bs" "$csum" "$idx" >"$tmpdir/want" ||
		{ fail "$_p: figures.py"; return; }
	if ! run_dump "$tmpdir/got" "$tmpdir/err" --json "$_img" frag "$_p"; then
		fail "$_p: extkit-dump frag exit $?"
		cat "$tmpdir/err"
		return
	fi
	if python3 - "$tmpdir/want" "$tmpdir/got" $keys <<'PY'
import json, sys
want = json.load(open(sys.argv[1]))
got = json.load(open(sys.argv[2]))
bad = [k for k in sys.argv[3:] if want[k] != got[k]]
for k in bad:
    print("    %s: extkit %s, independent %s" % (k, got[k], want[k]))
sys.exit(1 if bad else 0)
PY
	then
		ok "$_img $_p (indexed $idx, csum $csum):" \
			"$(tr -d '\n ' <"$tmpdir/want" | cut -c1-150)"
	else
		fail "$_p in $(basename "$_img"): figures differ"
	fi
}

mktree "$tmpdir/t1/big" 900 40
mktree "$tmpdir/t1/mixed" 300 200
mktree "$tmpdir/t1/tiny" 3 4
"$MKE2FS" -q -F -t ext2 -b 1024 -O ^dir_index -d "$tmpdir/t1" \
	"$tmpdir/a.img" 16M >/dev/null 2>&1 || fail "mke2fs a.img"
thin "$tmpdir/a.img" /big 3
thin "$tmpdir/a.img" /mixed 2
for p in / /big /mixed /tiny /lost+found; do
	compare "$tmpdir/a.img" "$p"
done

mktree "$tmpdir/t2/big" 4000 30
"$MKE2FS" -q -F -t ext4 -b 4096 -O metadata_csum -d "$tmpdir/t2" \
	"$tmpdir/b.img" 32M >/dev/null 2>&1 || fail "mke2fs b.img"
thin "$tmpdir/b.img" /big 4
for p in / /big; do
	compare "$tmpdir/b.img" "$p"
done

cp "$tmpdir/a.img" "$tmpdir/c.img"
"$DEBUGFS" -w -R "feature dir_index" "$tmpdir/c.img" >/dev/null 2>&1
"$E2FSCK" -fyD "$tmpdir/c.img" >/dev/null 2>&1
for p in /big /mixed; do
	compare "$tmpdir/c.img" "$p"
done
finish
