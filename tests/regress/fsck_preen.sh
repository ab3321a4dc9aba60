#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# extkit-fsck -p decides as e2fsck -p: on the same damage, made here with
# mke2fs and debugfs, both exit with the same status and both stop, or
# neither, with "UNEXPECTED INCONSISTENCY; RUN fsck MANUALLY". One case
# for each kind of finding whose preen decision was aligned with
# e2fsck's problem table (e2fsck/problem.c: PR_PREEN_OK, latches) or its
# exit status rules (unix.c), and the label naming the filesystem from
# the first message on.
. "${top_srcdir:-.}/tests/regress/env.sh"
cd "$tmpdir" || exit 99
. "$REGRESS_DIR/helpers.sh"

# preen_same DESC ARGS...: extkit-fsck ARGS and e2fsck ARGS on copies of
# ./image; the same exit status, and the same halt or none.
preen_same() {
	_desc=$1
	shift
	cp image e2image
	_rc=$(fsck_rc out "$@" image)
	timeout -k 5 "$TIMEOUT" "$E2FSCK" "$@" e2image >e2out 2>&1 </dev/null
	_e2=$?
	_halt=$(grep -c 'UNEXPECTED INCONSISTENCY; RUN fsck MANUALLY' out)
	_e2halt=$(grep -c 'UNEXPECTED INCONSISTENCY; RUN fsck MANUALLY' e2out)
	if sanitizer_report out; then
		fail "$_desc: sanitizer report"
		sed 's/^/    /' out | head -20
	elif [ "$_rc" -eq "$_e2" ] && [ "$_halt" -eq "$_e2halt" ]; then
		ok "$_desc: exit $_rc$([ "$_halt" -gt 0 ] && echo ', stopped')"
	else
		fail "$_desc: extkit-fsck $* exit $_rc, e2fsck exit $_e2"
		sed 's/^/    extkit: /' out | head -10
		sed 's/^/    e2fsck: /' e2out | head -10
	fi
}

# halt_same DESC ARGS...: as preen_same, the halt alone compared (the
# exit status differs where noted).
halt_same() {
	_desc=$1
	shift
	cp image e2image
	"$FSCK" "$@" image >out 2>&1 </dev/null
	"$E2FSCK" "$@" e2image >e2out 2>&1 </dev/null
	_halt=$(grep -c 'UNEXPECTED INCONSISTENCY; RUN fsck MANUALLY' out)
	_e2halt=$(grep -c 'UNEXPECTED INCONSISTENCY; RUN fsck MANUALLY' e2out)
	if [ "$_halt" -eq "$_e2halt" ] && ! sanitizer_report out; then
		ok "$_desc: $([ "$_halt" -gt 0 ] && echo stopped ||
			echo 'not stopped')"
	else
		fail "$_desc: extkit-fsck $* halts $_halt, e2fsck $_e2halt"
		sed 's/^/    extkit: /' out | head -10
		sed 's/^/    e2fsck: /' e2out | head -10
	fi
}

# An indexed directory /many (300 names, indexed by e2fsck -fD; no
# metadata_csum, so only the index itself is wrong).
htree_dir() {
	mkimg 1024 8M
	many many 300
	$E2FSCK -fyD image >/dev/null 2>&1
}

# htree: an index entry below its range (the leaf before it then holds
# names past its range) is found checking the whole tree: e2fsck asks
# (PR_2_HTREE_CLEAR); an index block out of hash order it clears
# unasked (PR_2_HTREE_HASH_ORDER). Root entries from byte 32: entry 1's
# hash at 40, entry 2's at 48.
htree_dir
dirent "$(blk many)" 40 u32@0 2
preen_same "htree: an index entry out of its range" -fp
htree_dir
dirent "$(blk many)" 48 u32@0 0xfffffff0
preen_same "htree: index entries out of hash order" -fp

# File type of an entry: a wrong one is a question (PR_2_BAD_FILETYPE),
# a missing one is set (PR_2_SET_FILETYPE). Root: . .. lost+found d1
# top, 'top' at byte 56.
mkimg 1024 8M
populate
dirent "$(blk /)" 56 ft 7
preen_same "entry with a wrong file type" -fp
mkimg 1024 8M
populate
dirent "$(blk /)" 56 ft 0
# (exit 1: the directory block is written; e2fsck, for which setting a
# type is a notice, exits 0)
halt_same "entry without a file type" -fp

# Pass 1 findings e2fsck does not preen: a fast symlink with the
# extents flag, a low dtime on a live inode (the orphan list latch),
# i_blocks_hi without huge_file.
mkimg 1024 8M
populate
dbg "symlink sl /d1/file1" "sif sl flags 0x80000"
preen_same "fast symlink with the extents flag" -fp
mkimg 1024 8M
populate
dbg "sif d1/file1 dtime 5"
preen_same "live inode with a low dtime" -fp
mkimg 1024 8M
populate
dbg "sif top blocks_hi 1"
preen_same "i_blocks_hi without huge_file" -fp

# '..' naming another directory than the parent.
mkimg 1024 8M
populate
dirent "$(blk d1/d2)" 12 ino 2
preen_same "'..' naming the wrong directory" -fp

# Superblock fields e2fsck does not preen: s_min_extra_isize; the Hurd
# with the filetype feature.
mkimg 1024 8M -I 256
populate
dbg "ssv min_extra_isize 1"
preen_same "bad s_min_extra_isize" -fp
mkimg 1024 8M
populate
dbg "ssv creator_os 1"
preen_same "the Hurd with the filetype feature" -fp

# A primary superblock e2fsck -p does not open: zeroed, or failing its
# checksum. -p takes no backup: exit 8.
mkimg 1024 16M
populate
dd if=/dev/zero of=image bs=1024 seek=1 count=1 conv=notrunc 2>/dev/null
preen_same "zeroed primary superblock" -p
mkimg4 1024 16M
populate
printf '\001\002\003\004' |
	dd of=image bs=1 seek=$((1024 + 1020)) conv=notrunc 2>/dev/null
preen_same "primary superblock checksum" -p

# A block bitmap the descriptor names no block for: placed unasked where
# block 0 is inside the group (4 KiB blocks, group 0: e2fsck's
# PR_1_RELOC_TO), a question elsewhere (PR_0_BB_NOT_GROUP).
mkimg 4096 16M
populate
dbg "set_bg 0 block_bitmap 0"
preen_same "group 0's block bitmap at block 0 (4 KiB)" -fp
mkimg 1024 16M
populate
dbg "set_bg 1 block_bitmap 0"
preen_same "group 1's block bitmap at block 0 (1 KiB)" -fp

# Exit status: a filesystem not cleanly unmounted, checked and marked
# valid, exits 1; a missing dirhash hint is set without counting as a
# fix (exit 0; marked clean, the filesystem stays skipped).
mkimg 1024 8M
populate
dbg "ssv state 0"
preen_same "not cleanly unmounted" -p
mkimg 1024 8M
populate
dbg "ssv flags 0"
preen_same "no dirhash hint" -p
mkimg 1024 8M
populate
dbg "ssv flags 0"
preen_same "no dirhash hint, forced" -fp

# Messages name the filesystem by its label from the first one on (the
# descriptor checksum is pass 0's).
mkimg4 1024 16M -L preenlabel
populate
dbg "set_bg 0 checksum 0x1234"
cp image e2image
"$FSCK" -p image >out 2>&1
$E2FSCK -p e2image >e2out 2>&1
if sed -n 1p out | grep -q '^preenlabel: ' &&
   sed -n 1p e2out | grep -q '^preenlabel: '; then
	ok "-p names the filesystem by its label in pass 0"
else
	fail "-p label: $(sed -n 1p out) / e2fsck: $(sed -n 1p e2out)"
fi
finish
