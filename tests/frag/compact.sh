# SPDX-License-Identifier: GPL-2.0-or-later
# extkit-fsck -fyD on directories thinned by scattered deletions: ext2
# without and with dir_index (1 KiB blocks, one directory big enough for
# an index with a node level), ext4 with extents (4 KiB). After it:
# e2fsck -fn exits 0, extkit-dump frag reports no reclaimable block, the
# names and inodes are those of before, each directory is no larger than
# e2fsck -fyD makes it on a copy, and a second run changes nothing.
# The small trees come from mke2fs -d; the 20,000-entry trees from
# extkit-mkfs -d (mke2fs -d is quadratic: minutes for them), and the
# deletions are the kernel's on a loop mount where mounting works
# (debugfs rm otherwise).

. "${top_srcdir:-.}/tests/lib.sh"
need_tools mke2fs debugfs e2fsck python3
FSCK=$top_builddir/extkit-fsck
[ -x "$FSCK" ] || skip "extkit-fsck not built"

mktree() {
	mkdir -p "$1"
	python3 - "$1" "$2" "$3" <<'PY'
import os, random, sys
d, n, ln = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
random.seed(n)
for i in range(n):
    name = "f%d_" % i + "y" * random.randint(0, ln)
    open(os.path.join(d, name[:255]), "w").close()
PY
}

# thin IMG DIR EVERY: deletes every entry of DIR but each EVERY-th, in
# the order the directory is read.
thin() {
	if [ -n "$can_mount" ] && mount -o loop "$1" "$mnt" 2>/dev/null; then
		python3 - "$mnt$2" "$3" <<'PY'
import os, sys
d, every = sys.argv[1], int(sys.argv[2])
for i, e in enumerate(os.scandir(d)):
    if i % every:
        os.unlink(os.path.join(d, e.name))
PY
		umount "$mnt"
		return
	fi
	"$DEBUGFS" -R "ls -p $2" "$1" 2>/dev/null |
		awk -F/ -v every="$3" -v dir="$2" \
		'NF >= 7 && $6 != "." && $6 != ".." && NR % every != 0 {
			print "rm " dir "/" $6 }' >"$tmpdir/cmds"
	"$DEBUGFS" -w -f "$tmpdir/cmds" "$1" >/dev/null 2>&1
}

names() {
	"$DEBUGFS" -R "ls -p $2" "$1" 2>/dev/null |
		awk -F/ 'NF >= 7 && $2 != 0 { print $2, $6 }' | sort
}

dir_blocks() {
	"$DEBUGFS" -R "stat $2" "$1" 2>/dev/null |
		awk '/Size:/ && s == "" { for (i = 1; i <= NF; i++)
			if ($i == "Size:") s = $(i + 1) } END { print s }'
}

# check IMG DIRS...: the whole round on IMG.
check() {
	_img=$1
	shift
	cp "$_img" "$_img.e2"
	"$E2FSCK" -fyD "$_img.e2" >/dev/null 2>&1
	_e2rc=$?
	for d in "$@"; do
		names "$_img" "$d" >"$_img.$(echo "$d" | tr / _).before"
	done
	timeout 120 "$FSCK" -fyD "$_img" >"$tmpdir/log" 2>&1
	_rc=$?
	# -D alone is not a fix: the exit status is e2fsck -fyD's (0 when
	# only directories were optimized, as e2fsck's PR_3A_OPTIMIZE_DIR)
	[ "$_rc" -eq "$_e2rc" ] &&
		ok "$(basename "$_img"): extkit-fsck -fyD exit $_rc, as e2fsck" ||
		{ fail "$(basename "$_img"): extkit-fsck -fyD exit $_rc, e2fsck $_e2rc"; \
		  sed 's/^/    /' "$tmpdir/log" | head; }
	if "$E2FSCK" -fn "$_img" >"$tmpdir/log" 2>&1; then
		ok "$(basename "$_img"): e2fsck -fn exit 0"
	else
		fail "$(basename "$_img"): e2fsck -fn"
		sed 's/^/    /' "$tmpdir/log" | head -20
	fi
	run_dump "$tmpdir/frag" "$tmpdir/err" --json "$_img" frag
	_r=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["reclaimable_blocks"])' "$tmpdir/frag")
	[ "$_r" = 0 ] && ok "$(basename "$_img"): frag: 0 reclaimable" ||
		fail "$(basename "$_img"): frag: $_r reclaimable"
	for d in "$@"; do
		names "$_img" "$d" >"$tmpdir/after"
		cmp -s "$_img.$(echo "$d" | tr / _).before" "$tmpdir/after" &&
			ok "$d: same names and inodes" ||
			fail "$d: names or inodes changed"
		_a=$(dir_blocks "$_img" "$d")
		_e=$(dir_blocks "$_img.e2" "$d")
		[ "$_a" -le "$_e" ] &&
			ok "$d: size $_a <= $_e (e2fsck -fyD)" ||
			fail "$d: size $_a > $_e (e2fsck -fyD)"
	done
	timeout 120 "$FSCK" -fyD "$_img" >"$tmpdir/log" 2>&1
	_rc=$?
	[ "$_rc" -eq 0 ] && ok "$(basename "$_img"): second run exit 0" ||
		fail "$(basename "$_img"): second run exit $_rc"
}

use_mount_point
can_mount=
[ "$(id -u)" = 0 ] && [ -z "$EXTKIT_NO_MOUNT" ] && can_mount=1

mktree "$tmpdir/t1/big" 1200 40
mktree "$tmpdir/t1/mixed" 300 200
mktree "$tmpdir/t1/few" 40 10
mktree "$tmpdir/t1/sub/deeper" 200 20
"$MKE2FS" -q -F -t ext2 -b 1024 -O ^dir_index -d "$tmpdir/t1" \
	"$tmpdir/lin.img" 16M >/dev/null 2>&1 || fail "mke2fs lin.img"
thin "$tmpdir/lin.img" /big 3
thin "$tmpdir/lin.img" /mixed 2
thin "$tmpdir/lin.img" /few 5
thin "$tmpdir/lin.img" /sub/deeper 4
cp "$tmpdir/lin.img" "$tmpdir/dx.img"
check "$tmpdir/lin.img" /big /mixed /few /sub/deeper

"$DEBUGFS" -w -R "feature dir_index" "$tmpdir/dx.img" >/dev/null 2>&1
check "$tmpdir/dx.img" /big /mixed /few /sub/deeper

mktree "$tmpdir/t2/huge" 20000 40
MKFS=$top_builddir/extkit-mkfs
"$MKFS" -q -t ext2 -b 1024 -N 30000 -d "$tmpdir/t2" \
	"$tmpdir/node.img" 64M >/dev/null 2>&1 || fail "extkit-mkfs node.img"
thin "$tmpdir/node.img" /huge 3
check "$tmpdir/node.img" /huge
"$DEBUGFS" -R "htree /huge" "$tmpdir/node.img" 2>/dev/null |
	grep -q "Indirect levels: 1" && ok "/huge: index with a node level" ||
	fail "/huge: no node level"

mktree "$tmpdir/t3/big" 6000 30
"$MKE2FS" -q -F -t ext4 -b 4096 -O ^metadata_csum -d "$tmpdir/t3" \
	"$tmpdir/ext4.img" 64M >/dev/null 2>&1 || fail "mke2fs ext4.img"
thin "$tmpdir/ext4.img" /big 7
check "$tmpdir/ext4.img" /big

# metadata_csum: leaf tails and dx_tails written with the new blocks
"$MKE2FS" -q -F -t ext4 -b 4096 -O metadata_csum -d "$tmpdir/t3" \
	"$tmpdir/csum.img" 64M >/dev/null 2>&1 || fail "mke2fs csum.img"
thin "$tmpdir/csum.img" /big 7
check "$tmpdir/csum.img" /big
"$MKFS" -q -t ext4 -b 1024 -O metadata_csum -N 30000 -d "$tmpdir/t2" \
	"$tmpdir/csum1k.img" 64M >/dev/null 2>&1 || fail "extkit-mkfs csum1k.img"
thin "$tmpdir/csum1k.img" /huge 3
check "$tmpdir/csum1k.img" /huge
finish
