#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Interrupted repairs. An ext2 and an ext4 (metadata_csum, journal)
# image get many kinds of damage at once: unattached inodes and no
# lost+found, wrong link counts, a live inode with a deletion time, a
# broken directory block, blocks claimed by two files (ext2: a block
# map; ext4: extent files, pass 1B on extent trees), blocks and inodes
# marked free while in use, wrong free counts in the superblock and a
# group descriptor; ext4 also an htree directory with names removed and
# a bad index root (the index is rebuilt). A full extkit-fsck -fy counts
# its writes (a test build: configure --enable-test-hooks, implied by
# --enable-sanitizers); then, for a sample of N in 1..writes, a copy is
# repaired with the process stopped right before its Nth write
# (EXTKIT_TEST_STOP_AFTER_WRITES=N, exit 99), and then:
#   a second -fy exits below 8; e2fsck -fn finds it clean; a third -fy
#   exits 0; every file the damage did not touch (/keep, /d1/d2/big and
#   on ext4 /h's remaining names, /xb, /xd) is still there byte for byte.
# By default: 1 KiB blocks, 30 unattached inodes, 150 htree names,
# INTERRUPT_POINTS=K points per image (default 6). EXTKIT_LONG_TESTS=1:
# 1 and 4 KiB blocks, 100 unattached inodes, 400 htree names, every
# point (about 600; INTERRUPT_SPECS="ext2:1024 ext4:4096 ..." picks the
# images, e.g. one per process). The long run:
#   EXTKIT_LONG_TESTS=1 top_srcdir=. top_builddir=. sh tests/regress/interrupt.sh
. "${top_srcdir:-.}/tests/regress/env.sh"
command -v python3 >/dev/null 2>&1 || skip "python3 not found"
cd "$tmpdir" || exit 99
. "$REGRESS_DIR/helpers.sh"
FILECHECK="python3 $REGRESS_DIR/filecheck.py"
export DEBUGFS

# damage_many TYPE BLOCKSIZE UNATTACHED: ./image, a populated image of
# TYPE (ext2, ext4) damaged as above; ./snap lists the files it must
# keep.
damage_many() {
	if [ "$1" = ext2 ]; then
		mkimg "$2" 8M
	else
		mkimg4 "$2" 8M
	fi
	populate
	[ "$1" = ext2 ] || ext4_extra
	many keep 40 "kept data"
	many u "$3" "unattached"
	many l 10 "linked"
	many g 40 "in a broken directory"
	printf 'dup a\n' >a
	printf 'dup b\n' >b
	dbg "write a dupa" "write b dupb"
	rm -f a b
	$FILECHECK snap image snap.all || exit 99
	grep -e '^/keep/' -e '^/d1/d2/big ' -e '^/h/' -e '^/xb ' -e '^/xd ' \
		snap.all >snap
	unlink_many u "$3"
	_i=0
	while [ $_i -lt 5 ]; do
		dbg "sif l/f000$_i links_count $((_i + 3))"
		_i=$((_i + 1))
	done
	dbg "sif d1/file1 dtime 12345" "rmdir lost+found" \
	    "freeb $(blk d1/d2/big 3) 5" "freei keep/f0007" \
	    "ssv free_blocks_count 17" "ssv free_inodes_count 3" \
	    "set_bg 0 free_blocks_count 1" "set_bg 0 free_inodes_count 2"
	dirent "$(blk g)" 40 rec_len 7
	if [ "$1" = ext2 ]; then
		dbg "sif dupb block[0] $(blk dupa)"
	else
		damage_ext4
	fi
}

# ext4_extra: on an ext4 ./image, an htree directory /h (indexed by
# e2fsck -D) and extent files /xa, /xb (3 extents each) and /xc, /xd.
ext4_extra() {
	many h "$htree_names" "htree entry"
	sparse xa 3
	sparse xb 3
	printf 'xc data\n' >xc
	printf 'xd data\n' >xd
	dbg "write xa xa" "write xb xb" "write xc xc" "write xd xd"
	rm -f xa xb xc xd
	$E2FSCK -fyD image >/dev/null 2>&1
}

# damage_ext4: names removed from /h and a bad limit in its root
# (dx_root: u16 at 32), so that the index is rebuilt; extent files
# sharing blocks (pass 1B on extent trees): /xa's second extent
# (ee_start_lo in i_block[8]) points at /xb's first block, and /xc's
# only extent (i_block[5]) at /xd's.
damage_ext4() {
	_i=0
	while [ $_i -lt 12 ]; do
		printf '/h/f%04d \n' $((_i * 7))
		_i=$((_i + 1))
	done >gone
	sed 's|^/\(.*\) $|unlink \1|' gone | $DEBUGFS -w image -f - \
		>/dev/null 2>&1
	grep -v -F -f gone snap >snap.new && mv snap.new snap
	# (blk would name /h's extent tree block first when it has one)
	dirent "$($DEBUGFS -R 'bmap h 0' image 2>/dev/null)" 32 u16@0 3
	dbg "sif xa block[8] $(blk xb)" "sif xc block[5] $(blk xd)"
}

# check_point TYPE N: one interrupted repair of ./damaged at write N.
check_point() {
	_t="$1 stop at write $2"
	cp damaged work
	EXTKIT_TEST_STOP_AFTER_WRITES=$2 timeout -k 5 "$TIMEOUT" \
		"$FSCK" -fy work >out.0 2>&1 </dev/null
	r0=$?
	r1=$(fsck_rc out.1 -fy work)
	timeout -k 5 "$TIMEOUT" "$E2FSCK" -fn work >e2.log 2>&1
	r2=$?
	r3=$(fsck_rc out.3 -fy work)
	if sanitizer_report out.0 || sanitizer_report out.1 ||
		sanitizer_report out.3; then
		fail "$_t: sanitizer report"
		grep -h -A5 -e Sanitizer -e 'runtime error' out.0 out.1 out.3 |
			head -20
	elif [ "$r0" -ne 99 ]; then
		fail "$_t: the interrupted run exited $r0, not 99"
	elif [ "$r1" -ge 8 ] || [ "$r2" -ne 0 ] || [ "$r3" -ne 0 ]; then
		fail "$_t: second run exit $r1, e2fsck -fn $r2, third run $r3"
		grep -v -e '^Pass' -e '^$' out.3 e2.log | head -10
	elif ! $FILECHECK check work snap >lost 2>&1; then
		fail "$_t: files lost"
		head -5 lost
	else
		ok "$_t: recovered (exit $r1)"
	fi
}

hooked=
specs="ext2:1024 ext4:1024"
unattached=30
htree_names=150
if [ "${EXTKIT_LONG_TESTS:-0}" = 1 ]; then
	specs=${INTERRUPT_SPECS:-"$specs ext2:4096 ext4:4096"}
	unattached=100
	htree_names=400
fi
for spec in $specs; do
	type=${spec%:*}
	damage_many "$type" "${spec#*:}" $unattached
	mv image damaged
	cp damaged work
	EXTKIT_TEST_COUNT_WRITES=1 timeout -k 5 "$TIMEOUT" "$FSCK" -fy work \
		>out.full 2>&1 </dev/null
	writes=$(sed -n 's/^extkit-test: \([0-9]*\) writes$/\1/p' out.full)
	if [ -z "$writes" ]; then
		[ -n "$hooked" ] || skip "extkit-fsck built without test hooks"
		fail "$type: no write count"
		continue
	fi
	hooked=1
	if [ "$writes" -lt 20 ]; then
		fail "$type: only $writes writes: the damage did too little"
		continue
	fi
	type=$type-${spec#*:}
	echo "$type: a full repair makes $writes writes"
	points=${INTERRUPT_POINTS:-6}
	[ "${EXTKIT_LONG_TESTS:-0}" = 1 ] && points=$writes
	[ "$points" -gt "$writes" ] && points=$writes
	[ "$points" -lt 2 ] && points=2
	k=0
	while [ $k -lt "$points" ]; do
		check_point "$type" $((1 + k * (writes - 1) / (points - 1)))
		k=$((k + 1))
	done
done
finish
