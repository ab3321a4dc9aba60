#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Metadata that points at metadata (issue 31): every group descriptor
# place (block_bitmap, inode_bitmap, inode_table) of group 0, a group
# holding a backup, a group in the middle of a flex group and the last
# group, set with debugfs set_bg (checksums stay valid) to: 0, all ones,
# past the end, the same field of another group, the primary superblock,
# a backup superblock, a descriptor block, a reserved GDT block, another
# group's bitmaps and inode table (start and middle), the journal's
# blocks, the resize inode's double indirect block and a file's data
# block. For each case:
#   - extkit-fsck -fn writes nothing;
#   - extkit-fsck -fy, then a second -fy that exits 0;
#   - e2fsck -fn finds the result clean wherever e2fsck -fy (on a copy)
#     leaves an image e2fsck -fn finds clean;
#   - files whose path and contents survive: extkit's >= e2fsck's.
# Not part of make check (a few minutes); the campaign has the official
# sweep. Usage: metadesc_sweep.sh [GEOMETRY...] (default: all); prints
# one line per failing case and a table per geometry. Environment:
# EXTKIT_FSCK (default ./extkit-fsck), SWEEP_DIR (scratch directory),
# SWEEP_VERBOSE=1 (a line per case).
set -u
FSCK=${EXTKIT_FSCK:-$PWD/extkit-fsck}
W=${SWEEP_DIR:-/tmp/metadesc_sweep.$$}
ALL="ext2-1k ext2-4k ext4-1k ext4-4k meta_bg ext4-32bit no-backup one-group-4k one-group-ext2"
mkdir -p "$W" || exit 99
cd "$W" || exit 99

mkfs_geom() {
	case $1 in
	ext2-1k) mke2fs -q -F -t ext2 -b 1024 -d tree base.img 64M ;;
	ext2-4k) mke2fs -q -F -t ext2 -b 4096 -d tree base.img 640M ;;
	ext4-1k) mke2fs -q -F -t ext4 -b 1024 -d tree base.img 64M ;;
	ext4-4k) mke2fs -q -F -t ext4 -b 4096 -d tree base.img 1G ;;
	meta_bg) mke2fs -q -F -t ext4 -b 1024 -O meta_bg,^resize_inode \
		-d tree base.img 64M ;;
	ext4-32bit) mke2fs -q -F -t ext4 -b 1024 -O ^64bit -d tree \
		base.img 64M ;;
	no-backup) mke2fs -q -F -t ext4 -b 1024 -O sparse_super2 \
		-E num_backup_sb=0 -d tree base.img 64M ;;
	one-group-4k) mke2fs -q -F -t ext4 -b 4096 -d tree base.img 16M ;;
	one-group-ext2) mke2fs -q -F -t ext2 -b 4096 -d tree base.img 16M ;;
	*) echo "unknown geometry $1" >&2; return 1 ;;
	esac
}

make_tree() {
	rm -rf tree
	mkdir -p tree/d tree/e/f
	for i in $(seq 200); do echo "file $i" >tree/d/f$i; done
	for i in $(seq 20); do
		head -c $((i * 3000)) /dev/zero | tr '\0' "$((i % 10))" \
			>tree/e/f/m$i
	done
	awk 'BEGIN { for (i = 0; i < 40000; i++) printf "line %06d\n", i }' \
		>tree/big
}

# field N F: field F of group N's descriptor as dumpe2fs prints it
dump_groups() {
	dumpe2fs base.img 2>/dev/null | awk '
		/^Group [0-9]+:/ { g = $2; sub(":", "", g) }
		/Block bitmap at/ { b = $4; sub(/[^0-9].*/, "", b); bb[g] = b }
		/Inode bitmap at/ { b = $4; sub(/[^0-9].*/, "", b); ib[g] = b }
		/Inode table at/ { b = $4; sub(/-.*/, "", b); it[g] = b }
		END { for (i in bb) print i, bb[i], ib[i], it[i] }' |
		sort -n >groups.txt
}

gfield() {	# gfield GROUP COLUMN(2 bb, 3 ib, 4 it)
	awk -v g="$1" -v c="$2" '$1 == g { print $c }' groups.txt
}

sbfield() {
	dumpe2fs -h base.img 2>/dev/null | sed -n "s/^$1: *//p"
}

# kept IMG: "path md5" lines of the files of IMG as debugfs reads them
kept_list() {
	rm -rf rd && mkdir rd
	timeout 60 debugfs -R "rdump / rd" "$1" >/dev/null 2>&1
	(cd rd && find . -type f ! -path './lost+found/*' -exec md5sum {} + \
		2>/dev/null) | sort
}

targets() {	# prints "name value" lines for field column C of group G
	local g=$1 c=$2 n=$3 o o2 jb
	o=$(((g + 1) % n))
	o2=$(((g + 2) % n))
	echo "zero 0"
	echo "ones $ONES"
	echo "past $((BLOCKS + 5))"
	[ "$n" -gt 1 ] && echo "same $(gfield $o "$c")"
	echo "super $FDB"
	[ "$n" -gt 1 ] && echo "backup_super $((FDB + BPG))"
	echo "desc $((FDB + 1))"
	[ "$RGDT" -gt 0 ] && echo "rgdt $((FDB + 1 + GDTB))"
	[ "$RGDT" -gt 1 ] && echo "rgdt_last $((FDB + GDTB + RGDT))"
	echo "other_bb $(gfield $o2 2)"
	echo "other_ib $(gfield $o2 3)"
	echo "other_it $(gfield $o2 4)"
	echo "other_it_mid $(($(gfield $o2 4) + ITB / 2))"
	if [ -n "$JBLK" ]; then
		echo "journal $JBLK"
		echo "journal_mid $JMID"
	fi
	[ -n "$DIND" ] && [ "$DIND" != 0 ] && echo "resize_dind $DIND"
	echo "data $DATA"
}

fails=0
run_geom() {
	local geom=$1 n cases=0 xf=0 ef=0 kx=0 ke=0 groups
	make_tree
	mkfs_geom "$geom" || return
	e2fsck -fy base.img >/dev/null 2>&1
	dump_groups
	n=$(wc -l <groups.txt)
	BLOCKS=$(sbfield "Block count")
	FDB=$(sbfield "First block")
	BPG=$(sbfield "Blocks per group")
	RGDT=$(sbfield "Reserved GDT blocks")
	RGDT=${RGDT:-0}
	BS=$(sbfield "Block size")
	IPG=$(sbfield "Inodes per group")
	ISZ=$(sbfield "Inode size")
	ITB=$(((IPG * ISZ + BS - 1) / BS))
	GDTB=$(( (n * ($(sbfield "Group descriptor size") + 0) + BS - 1) / BS ))
	[ "$GDTB" -gt 0 ] || GDTB=$(( (n * 32 + BS - 1) / BS ))
	ONES=4294967295
	dumpe2fs -h base.img 2>/dev/null | grep -q '64bit' &&
		ONES=18446744073709551615
	JBLK=$(debugfs -R "blocks <8>" base.img 2>/dev/null | awk '{print $1}')
	JMID=$(debugfs -R "blocks <8>" base.img 2>/dev/null |
		awk '{print $(int(NF / 2) + 1)}')
	DIND=$(debugfs -R "stat <7>" base.img 2>/dev/null |
		sed -n 's/.*(DIND):\([0-9]*\).*/\1/p')
	DATA=$(debugfs -R "blocks /big" base.img 2>/dev/null |
		awk '{print $3}')
	kept_list base.img >base.kept
	groups="0"
	[ "$n" -gt 1 ] && groups="0 1 $((n / 2 > 1 ? 2 : 1)) $((n - 1))"
	groups=$(echo $groups | tr ' ' '\n' | sort -un)
	for g in $groups; do
		for f in 2:block_bitmap 3:inode_bitmap 4:inode_table; do
			c=${f%%:*}
			field=${f#*:}
			targets "$g" "$c" "$n" >targets.txt
			while read -r tname val; do
				[ "$val" = "$(gfield "$g" "$c")" ] && continue
				cases=$((cases + 1))
				one_case "$geom" "$g" "$field" "$tname" "$val"
			done <targets.txt
		done
	done
	printf '%-15s cases %4d  extkit failures %3d  e2fsck failures %3d  files kept extkit %6d e2fsck %6d\n' \
		"$geom" "$cases" "$xf" "$ef" "$kx" "$ke"
}

one_case() {
	local geom=$1 g=$2 field=$3 tname=$4 val=$5 why="" sum rn r1 r2 rx re ren kxx kee
	cp --sparse=always base.img x.img
	timeout 60 debugfs -w -R "set_bg $g $field $val" x.img >/dev/null 2>&1
	cp --sparse=always x.img e.img
	timeout 60 e2fsck -fn e.img >e.e2n 2>&1
	ren=$?
	sum=$(md5sum <x.img)
	timeout 60 "$FSCK" -fn x.img >out.n 2>&1
	rn=$?
	[ "$(md5sum <x.img)" = "$sum" ] || why="$why -fn-wrote"
	[ "$rn" -ge 8 ] && [ "$ren" -lt 8 ] && why="$why -fn-exit-$rn"
	timeout 60 "$FSCK" -fy x.img >out.1 2>&1
	r1=$?
	timeout 60 "$FSCK" -fy x.img >out.2 2>&1
	r2=$?
	timeout 60 e2fsck -fn x.img >x.e2 2>&1
	rx=$?
	timeout 60 e2fsck -fy e.img >e.e2y 2>&1
	timeout 60 e2fsck -fn e.img >e.e2 2>&1
	re=$?
	[ "$re" -ne 0 ] && ef=$((ef + 1))
	[ "$r2" -ne 0 ] && why="$why second-fy-exit-$r2"
	[ "$r1" -ge 4 ] && [ "$re" -eq 0 ] && why="$why first-fy-exit-$r1"
	[ "$rx" -ne 0 ] && [ "$re" -eq 0 ] && why="$why e2fsck-after-$rx"
	kxx=$(kept_list x.img | comm -12 - base.kept | wc -l)
	kee=$(kept_list e.img | comm -12 - base.kept | wc -l)
	kx=$((kx + kxx))
	ke=$((ke + kee))
	[ "$kxx" -lt "$kee" ] && why="$why kept-$kxx<$kee"
	if [ -n "$why" ]; then
		xf=$((xf + 1))
		fails=$((fails + 1))
		echo "FAIL $geom set_bg $g $field $val ($tname):$why"
		if [ -n "${SWEEP_KEEP:-}" ]; then
			mkdir -p "$SWEEP_KEEP"
			cp out.1 "$SWEEP_KEEP/$geom.$g.$field.$tname.out1"
			cp x.e2 "$SWEEP_KEEP/$geom.$g.$field.$tname.e2"
		fi
	elif [ -n "${SWEEP_VERBOSE:-}" ]; then
		echo "ok   $geom set_bg $g $field $val ($tname): $r1 $r2 e2fsck $re kept $kxx/$kee"
	fi
}

[ $# -eq 0 ] && set -- $ALL
for geom in "$@"; do
	run_geom "$geom"
done
rm -rf rd x.img e.img base.img tree
[ "$fails" -eq 0 ]
