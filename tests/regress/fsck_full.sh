#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Writers that can stop half-way are all or nothing (issue 10): on a full
# filesystem, creating or growing lost+found fails before its first
# write, says so once (without lost+found, the root takes the lost
# files), and leaves no allocated-but-unused inode or block behind (e2fsck -fn finds no bitmap or count difference); a hole in an
# extent directory needs no block at all: its later blocks move down.
# The exit status and the MODIFIED line follow what was written.
. "${top_srcdir:-.}/tests/regress/env.sh"
cd "$tmpdir" || exit 99
. "$REGRESS_DIR/helpers.sh"

# fill: uses up every free block with one file.
fill() {
	# not zeros: debugfs would leave holes
	head -c 64M /dev/zero | tr '\0' x >fillfile
	dbg "write fillfile fill"
	rm -f fillfile
}

# leftovers LOG: e2fsck -fn's complaints about allocations nobody uses.
leftovers() {
	$E2FSCK -fn image >"$1" 2>&1
	grep -E "bitmap differences|count wrong" "$1"
}

# 1. No lost+found, no free block: its creation fails before its first
# write; the lost files go in the root directory instead (e2fsck's
# PR_3_LPF_NO_SPACE), which has room for their names.
mkimg 1024 2M
dbg "rmdir lost+found"
many d 3 data
unlink_many d 3
fill
rc=$(fsck_rc out -fy image)
if [ "$rc" -eq 1 ] && [ -z "$(leftovers e2out)" ] &&
   [ "$(grep -c 'Create? yes' out)" -eq 1 ] &&
   [ "$(grep -c 'Use it? yes' out)" -eq 1 ] &&
   ! grep -q '^Cannot connect inode' out &&
   [ "$($DEBUGFS -R 'ls -l /' image 2>/dev/null | grep -c ' #1[234] *$')" -eq 3 ]
then
	ok "lost+found cannot be created: the lost files go in /, exit 1"
else
	fail "lost+found cannot be created: exit $rc"
	sed 's/^/    /' out e2out | head -40
fi

# 2. lost+found full, no free block: it cannot grow.
mkimg 1024 2M
dbg "rmdir lost+found" "mkdir lost+found"
many d 120 data
unlink_many d 120
fill
lf_blocks=$(blk lost+found 1)
rc=$(fsck_rc out -fy image)
if [ "$rc" -eq 4 ] && [ -z "$(leftovers e2out)" ] &&
   [ "$(blk lost+found 1)" = "$lf_blocks" ] &&
   grep -q '^Cannot connect inode 132 to /lost+found: No space left' out
then
	ok "lost+found cannot grow: exit 4, it keeps its one block"
else
	fail "lost+found cannot grow: exit $rc"
	sed 's/^/    /' out e2out | head -40
fi

# 3. A hole in an extent-mapped directory (block 1 punched): the later
# blocks move down as e2fsck collapses them, the names the punched block
# held go to lost+found, and e2fsck and a second run find nothing.
mkext4 1024 8M
many d 200 data
dbg "punch d 1 1"
rc=$(fsck_rc out -fy image)
if [ "$rc" -eq 1 ] && [ -z "$(leftovers e2out)" ] &&
   grep -q 'block 2 should be at block 1' out &&
   grep -q 'Connect to /lost+found? yes' out &&
   [ "$(fsck_rc out2 -fy image)" -eq 0 ]; then
	ok "extent directory hole: collapsed, exit 1, e2fsck clean"
else
	fail "extent directory hole: exit $rc"
	sed 's/^/    /' out e2out | head -40
fi
finish
