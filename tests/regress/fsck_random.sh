#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Random damage. For each geometry of GEOMETRY (default: all) a populated
# base image is built (random_images.sh) and, for each seed, damaged
# with a fixed pseudo-random sequence (damage.py):
#   1k     4 MiB, 1 KiB blocks, 60 files: 1 to 40 random bytes in the
#          first 700 KiB;
#   4k 64k htree rev0 ea: bytes in metadata blocks (superblock in or
#          out) or a whole garbage directory, indirect or inode table
#          block; see damage.py.
# The rules, for each seed: extkit-fsck -fn must not change a byte;
# extkit-fsck -fy must not crash or hang; its second run must find the
# image clean (exit 0) and e2fsck -fn must agree. When extkit-fsck
# cannot open the image (exit 8), e2fsck -fy must refuse it too.
# SEEDS overrides the seeds of every geometry (long campaigns:
# GEOMETRY=4k SEEDS="$(seq 1 300)" sh tests/regress/fsck_random.sh).
. "${top_srcdir:-.}/tests/regress/env.sh"
command -v python3 >/dev/null 2>&1 || skip "python3 not found"
cd "$tmpdir" || exit 99
. "$REGRESS_DIR/helpers.sh"
. "$REGRESS_DIR/random_images.sh"
DAMAGE=$REGRESS_DIR/damage.py

geom_1k() {
	mkimg 1024 4M
	populate
	many m 60 data
}

# default_seeds GEOMETRY: the seeds run by make check: every seed that
# once found a bug (kept so it stays covered). The ranges are run by
# SEEDS=... here and by tests/regress/campaign.sh, outside make check.
default_seeds() {
	case $1 in
	# 83, 116: garbage block maps on mode-0 reserved inodes; 173:
	# inodes per group damaged in the only superblock; 214: a flex
	# group size e2fsprogs refuses; 240: a resize inode with a direct
	# block
	1k) echo "83 116 173 214 240" ;;
	# 4: i_size, i_extra_isize; 11: a block mapped twice by one file;
	# 16: i_size; 29: imagic; 60: unused journal inode with data;
	# 104, 139: flags, EA block and i_size of reserved inode 5;
	# 145: '..' of / past the inode count
	4k) echo "4 11 16 29 60 104 139 145" ;;
	# 2: bad inode number where '.' belongs; 24: a table block of
	# 0xff (resize inode with no reserved GDT, flags of cleared
	# inodes); 30: a journal UUID without has_journal
	64k) echo "2 24 30" ;;
	# 5: i_blocks_hi; 10: garbage ind blocks under an ind block in
	# the inode table; 16: illegal numbers in a shared ind block;
	# 41: imagic
	htree) echo "5 10 16 41" ;;
	# 8: block mapped twice by one file; 14: reserved inode dtime;
	# 15: i_size on revision 0
	rev0) echo "8 14 15" ;;
	# 6, 16: a self-shared block (16: illegal numbers in it);
	# 19: unused quota inodes, reserved i_blocks; 20: i_size
	ea) echo "6 16 19 20" ;;
	esac
}

# damage GEOMETRY SEED: ./image from ./base.
damage() {
	if [ "$1" = 1k ]; then
		python3 "$DAMAGE" legacy base "$2" image
	else
		python3 "$DAMAGE" hit base map "$2" image
	fi
}

# run_seed GEOMETRY SEED: one damaged image through the rules.
run_seed() {
	_t="$1 seed $2"
	damage "$1" "$2" || exit 99
	_sum=$(sha256sum <image)
	timeout -k 5 "$TIMEOUT" "$FSCK" -fn image >out.n 2>&1
	rn=$?
	if [ "$(sha256sum <image)" != "$_sum" ]; then
		fail "$_t: -fn changed the image"
		return
	fi
	timeout -k 5 "$TIMEOUT" "$FSCK" -fy image >out.1 2>&1
	r1=$?
	timeout -k 5 "$TIMEOUT" "$FSCK" -fy image >out.2 2>&1
	r2=$?
	timeout -k 5 "$TIMEOUT" "$E2FSCK" -fn image >e2fsck.log 2>&1
	r3=$?
	if sanitizer_report out.n || sanitizer_report out.1 ||
		sanitizer_report out.2; then
		fail "$_t: sanitizer report"
		grep -h -A5 -e Sanitizer -e 'runtime error' out.n out.1 out.2 |
			head -20
	elif [ "$rn" -ge 124 ] || [ "$r1" -ge 124 ] || [ "$r2" -ge 124 ]; then
		fail "$_t: timed out or killed ($rn, $r1, $r2)"
	elif [ "$r1" -eq 8 ] && [ "$rn" -eq 8 ]; then
		damage "$1" "$2" || exit 99
		timeout -k 5 "$TIMEOUT" "$E2FSCK" -fy image >e2fsck.log 2>&1
		r4=$?
		if [ "$r4" -eq 8 ]; then
			ok "$_t: refused by both (exit 8)"
		else
			fail "$_t: refused (exit 8), e2fsck -fy exit $r4"
			head -3 out.1
		fi
	elif [ "$r1" -gt 1 ] || [ "$r2" -ne 0 ] || [ "$r3" -ne 0 ]; then
		fail "$_t: exit $r1, then $r2; e2fsck -fn $r3"
		grep -v -e '^Pass' -e '^$' out.2 e2fsck.log | head -10
	else
		ok "$_t: repaired (exit $r1), clean after"
	fi
}

for geom in ${GEOMETRY:-1k 4k 64k htree rev0 ea}; do
	"geom_$geom" || exit 99
	mv image base
	[ "$geom" = 1k ] || python3 "$DAMAGE" map base >map || exit 99
	for seed in ${SEEDS:-$(default_seeds "$geom")}; do
		run_seed "$geom" "$seed"
	done
done
finish
