#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Findings e2fsck fixes under -y but does not count as errors under -n
# (issue 31, repro 10), on ext2 and ext4: a filesystem without
# /lost+found, and an orphan list head (s_last_orphan) naming a file still
# linked and in use. -fn: exit 0, nothing said about either, nothing
# written, as e2fsck -fn (compared); -fy: /lost+found made (exit 1) or
# the orphan truncated and the head cleared (exit 0, as e2fsck); a second
# -fy exits 0 and e2fsck -fn finds the result clean.
. "${top_srcdir:-.}/tests/regress/env.sh"
cd "$tmpdir" || exit 99
. "$REGRESS_DIR/helpers.sh"

# case_n DESC WANT_Y PATTERN_Y: the runs on ./image.
case_n() {
	_sum=$(sha256sum image)
	_rc=$(fsck_rc out.n -fn image)
	cp image e2.img
	$E2FSCK -fn e2.img >e2.log 2>&1 </dev/null
	_e2=$?
	if [ "$_rc" -ne 0 ] || [ "$_e2" -ne 0 ] ||
	    grep -v -e '^Pass [1-5]: ' -e '^image: [0-9]*/[0-9]* files' \
		out.n | grep -q .; then
		fail "$1: -fn exit $_rc (e2fsck -fn $_e2), or a report:"
		sed 's/^/    /' out.n | head -8
	elif [ "$(sha256sum image)" != "$_sum" ]; then
		fail "$1: -fn wrote the image"
	else
		ok "$1: -fn exit 0, silent, as e2fsck -fn"
	fi
	_rc=$(fsck_rc out.y -fy image)
	_rc2=$(fsck_rc out.y2 -fy image)
	$E2FSCK -fn image >e2.log 2>&1 </dev/null
	_e2=$?
	if [ "$_rc" -ne "$2" ] || ! grep -q "$3" out.y || [ "$_rc2" -ne 0 ] ||
	    [ "$_e2" -ne 0 ]; then
		fail "$1: -fy exit $_rc (want $2), again $_rc2, e2fsck -fn $_e2"
		sed 's/^/    /' out.y | head -8
	else
		ok "$1: -fy exit $2 ($3), then clean"
	fi
}

for fs in ext2 ext4; do
	mkfs_type "$fs" 1024 8M
	populate
	dbg "rmdir lost+found"
	case_n "$fs: no /lost+found" 1 '^/lost+found not found.  Create? yes'

	mkfs_type "$fs" 1024 8M
	populate
	dbg "ssv last_orphan $(ino d1/file1)"
	case_n "$fs: orphan head naming a linked file" 0 \
		'^Truncating orphaned inode'
	_lo=$($DUMPE2FS -h image 2>/dev/null | grep -c '^Last orphan inode')
	[ "$_lo" -eq 0 ] && ok "$fs: orphan head cleared by -fy" ||
		fail "$fs: s_last_orphan still set after -fy"
done

# A file to reconnect under -n with no /lost+found: that one is asked
# (and counted: exit 4), as e2fsck does.
mkimg4 1024 8M
populate
dbg "rmdir lost+found" "unlink d1/file1"
rc=$(fsck_rc out -fn image)
$E2FSCK -fn image >e2.log 2>&1 </dev/null
e2=$?
if [ "$rc" -eq 4 ] && [ "$e2" -eq 4 ]; then
	ok "unattached file, no /lost+found: -fn exit 4, as e2fsck"
else
	fail "unattached file, no /lost+found: -fn exit $rc, e2fsck $e2"
	sed 's/^/    /' out | head -8
fi
finish
