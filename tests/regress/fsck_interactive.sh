#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# extkit-fsck as a person at a terminal meets it, checked through a
# pseudo-terminal (tests/pty_run.py): one key answers a question (y, n,
# a = yes to all, no Enter); Ctrl-C, SIGINT or Ctrl-D at a question
# cancels: exit 32 as e2fsck (also when a fix was already written: the
# filesystem is then marked not clean), and a later run finishes the
# repair. Also: -r is
# accepted; the summary line names the filesystem by its label and gives
# the non-contiguous share, and -v prints the statistics block, both as
# e2fsck prints them; -n on a mounted filesystem warns; -C progress.
. "${top_srcdir:-.}/tests/regress/env.sh"
cd "$tmpdir" || exit 99
. "$REGRESS_DIR/helpers.sh"
PTY="python3 $top_srcdir/tests/pty_run.py"

# damaged: ./image with three questions or more (a link count in pass 4,
# a block bitmap difference and free counts in pass 5).
damaged() {
	mkimg 1024 8M -L mylabel
	populate
	_b=$(blk d1/d2/big)
	dbg "set_inode_field d1/file1 links_count 5" "freeb $_b"
	cp image pristine
}

# interact NAME SCRIPT WANT_RC [FSCK OPTIONS]: one run on the pty.
interact() {
	_name=$1
	_script=$2
	_want=$3
	shift 3
	$PTY out "$_script" -- "$FSCK" "$@" image
	_rc=$?
	if sanitizer_report out; then
		fail "$_name: sanitizer report"
		sed 's/^/    /' out | head -20
		return 1
	fi
	if [ "$_rc" -ne "$_want" ]; then
		fail "$_name: exit $_rc, wanted $_want"
		sed 's/^/    /' out | head -30
		return 1
	fi
	return 0
}

state() {
	$DUMPE2FS -h image 2>/dev/null | sed -n 's/^Filesystem state: *//p'
}

# One key each, no Enter: y, then a (yes to all).
damaged
if interact "keys" "k:y,k:a" 1 -f; then
	if ! grep -q 'yes to all' out; then
		fail "keys: 'a' not taken as yes to all"
	elif ! $E2FSCK -fn image >e2.out 2>&1; then
		fail "keys: e2fsck -fn finds errors after the repair"
	else
		ok "single keys y and a repair the filesystem"
	fi
fi

# Ctrl-C (the byte 3 in raw mode) at the first question: nothing written.
for how in 'k:\x03' int 'k:\x04'; do
	damaged
	if interact "cancel $how" "$how" 32 -f; then
		if ! grep -q 'cancelled!' out ||
		   ! grep -q 'mylabel: check canceled.' out; then
			fail "cancel $how: no cancel message"
			sed 's/^/    /' out | tail -5
		elif ! cmp -s image pristine; then
			fail "cancel $how: the image was written"
		else
			ok "cancel ($how) at the first question: exit 32, unchanged"
		fi
	fi
done

# A fix written, then Ctrl-C: 32, not clean, and a second run finishes.
damaged
if interact "fix then cancel" 'k:y,k:\x03' 32 -f; then
	if [ "$(state)" != "not clean" ]; then
		fail "fix then cancel: state '$(state)', wanted not clean"
	elif ! grep -q 'FILE SYSTEM WAS MODIFIED' out; then
		fail "fix then cancel: no MODIFIED line"
	else
		rc=$(fsck_rc out2 -y image)
		if [ "$rc" -ne 1 ] || ! $E2FSCK -fn image >e2.out 2>&1; then
			fail "fix then cancel: the next -y run exits $rc" \
			     "or leaves errors"
		else
			ok "a fix, then Ctrl-C: exit 32 (as e2fsck), not clean, -y finishes"
		fi
	fi
fi

# A "no" leaves the image as it was for that problem (issue 31, repro 5):
# a block in use in group 1 marked free, the group's and the superblock's
# free counts following that bitmap (as the kernel keeps them). Answering
# n to the bitmap difference leaves the bitmap, so the counts that follow
# from it are right: nothing more is asked and no descriptor changes
# (before: the counts were asked from the computed bitmap and written,
# and e2fsck then found them wrong for the bitmap left on disk).
mkimg4 1024 16M
awk 'BEGIN { for (i = 0; i < 700000; i++) printf "line %07d\n", i }' >big
dbg "write big big"
b=$(blk big 8000)
fb=$($DUMPE2FS image 2>/dev/null | sed -n '/^Group 1:/,/^Group 2:/p' |
	sed -n 's/^ *\([0-9]*\) free blocks.*/\1/p')
sfb=$($DUMPE2FS -h image 2>/dev/null | sed -n 's/^Free blocks: *//p')
dbg "freeb $b" "set_bg 1 free_blocks_count $((fb + 1))" \
    "set_bg 1 checksum calc" "ssv free_blocks_count $((sfb + 1))"
$DUMPE2FS image 2>/dev/null | sed -n '/^Group 0:/,$p' >groups.before
if interact "no to a bitmap fix" "k:n,k:y,k:y" 4 -f; then
	$DUMPE2FS image 2>/dev/null | sed -n '/^Group 0:/,$p' >groups.after
	$E2FSCK -fn image >e2.out 2>&1
	if grep -q 'count wrong' out || ! grep -q "+$b" e2.out ||
	   grep -q 'count wrong' e2.out; then
		fail "no to a bitmap fix: counts asked or left wrong"
		sed 's/^/    /' out | grep -v '^    Pass' | head -8
		sed 's/^/    e2fsck: /' e2.out | grep -v Pass | head -6
	elif ! cmp -s groups.before groups.after; then
		fail "no to a bitmap fix: the descriptors or bitmaps changed"
		diff groups.before groups.after | head -6 | sed 's/^/    /'
	else
		ok "no to a bitmap fix: the bitmap and its counts left as they were"
	fi
fi

# Pass 1D on a terminal: no to "Clone multiply-claimed blocks?", yes to
# "Delete file?": the first owner (d1/d2/big) goes, x keeps the block;
# exit 1 (the no is no error once the file is deleted, as in e2fsck).
mkimg 1024 8M
populate
dbg "write /dev/null x" "sif x block[0] $(blk d1/d2/big 2)" \
    "sif x size 1024" "sif x blocks 2"
if interact "pass 1D: no, then delete" "k:n,k:y,k:a" 1 -f; then
	if ! grep -q '^Clone multiply-claimed blocks<y>? $' out ||
	   ! grep -q '^Delete file<y>? $' out; then
		fail "pass 1D: the questions are not e2fsck's"
		grep -A1 'Clone\|Delete' out | sed 's/^/    /' | head -8
	elif [ "$(fsck_rc out2 -fy image)" -ne 0 ] ||
	     ! $E2FSCK -fn image >e2.out 2>&1 ||
	     $DEBUGFS -R "stat d1/d2/big" image 2>&1 | grep -q '^Inode:'; then
		fail "pass 1D: after the delete, not clean or big still there"
	else
		ok "pass 1D on a terminal: no to clone, yes to delete, exit 1"
	fi
fi

# -r is accepted as e2fsck accepts it (interactive is the default).
damaged
interact "-r" "k:a" 1 -r -f && ok "-r accepted"

# The summary line and -v, against e2fsck on the same image.
summary_same() {
	_what=$1
	$E2FSCK -fn image >e2.out 2>&1
	"$FSCK" -fn image >x.out 2>&1
	if [ "$(tail -1 e2.out)" != "$(tail -1 x.out)" ]; then
		fail "$_what: summary differs from e2fsck's"
		tail -1 e2.out | sed 's/^/    e2fsck: /'
		tail -1 x.out | sed 's/^/    extkit: /'
	else
		ok "$_what: summary line as e2fsck's ($(tail -1 x.out))"
	fi
	$E2FSCK -fnv image 2>/dev/null | sed -n '/inodes* used/,$p' >e2.out
	"$FSCK" -fnv image 2>/dev/null | sed -n '/inodes* used/,$p' >x.out
	if ! diff -u e2.out x.out >diff.out; then
		fail "$_what: -v statistics differ from e2fsck's"
		sed 's/^/    /' diff.out | head -20
	else
		ok "$_what: -v statistics as e2fsck's"
	fi
}

mkimg 1024 8M -L mylabel
populate
many d3 40 x
dbg "symlink sl /d1/file1" "mknod fifo p" "link d1/file1 d3/hard"
summary_same "ext2 with a label"

mkimg4 4096 32M
populate
sparse sp 40 3
dbg "write sp sparse"
summary_same "ext4"

# A fragmented file: blocks taken from a sparse run of free blocks.
mkimg 1024 8M
dbg "write /dev/null f"
i=0
while [ $i -lt 60 ]; do
	dbg "write /dev/null g$i"
	i=$((i + 1))
done
summary_same "ext2, many empty files"

# -C FD: lines "pass current max device", passes 1 to 5 in order, each
# ending at its max; -C 0 on a terminal: one bar for the whole check,
# weighted per pass as e2fsck weighs them, up to 100% and then cleared.
mkimg 1024 8M
populate
many d3 300
"$FSCK" -fn -C 3 image 3>progress >/dev/null 2>&1
if awk 'BEGIN { last = 0 }
	{ if ($1 < last) bad = 1; if ($1 != last && last && !done) bad = 1
	  done = ($2 == $3); last = $1; seen[$1] = 1 }
	END { for (p = 1; p <= 5; p++) if (!seen[p]) bad = 1
	      exit bad || !done }' progress; then
	ok "-C FD: passes 1-5 in order, each to its end"
else
	fail "-C FD lines"
	sed 's/^/    /' progress | head -20
fi
$PTY out "" -- "$FSCK" -fn -C 0 image
if grep -q '|========================================| 100.0%' out &&
   tail -1 out | grep -q "^.*image: [0-9]*/[0-9]* files" &&
   [ "$(tr '\r' '\n' <out | grep -c '%$')" -ge 6 ]; then
	ok "-C 0: the bar advances to 100% and is cleared"
else
	fail "-C 0 bar"
	cat -A out | head -10
fi

# -n on a mounted filesystem: a warning, on stderr.
if [ "$(id -u)" -ne 0 ]; then
	echo "note: not root, the mounted case is skipped"
else
	mkimg 1024 8M
	mkdir mnt
	if mount -o loop,ro image mnt 2>/dev/null; then
		"$FSCK" -fn image >out 2>err
		umount mnt
		if grep -q 'is mounted' err && ! grep -q 'mounted' out; then
			ok "-n on a mounted filesystem warns on stderr"
		else
			fail "-n on a mounted filesystem: no warning"
			sed 's/^/    /' err
		fi
	else
		echo "note: loop mount refused, the mounted case is skipped"
	fi
fi

finish
