#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# extkit-fsck -fn against e2fsck -fn on full images (issue 16), and
# extkit-dump frag against a debugfs walk of every directory.
#
# The images are built once and cached: at each scale (100k, 1.2m, 4m
# used inodes), ext2 and ext4 (mke2fs defaults, 4 KiB blocks, 5 inodes
# made for every 4 used), filled by the kernel through a loop mount with
# bench/mkfull (one 200,000-entry directory, 100 chains 25 directories
# deep, directories of 200 files; one file in four holds data); where
# mounting is refused, mkfull fills a directory and mke2fs -d copies it.
# An image is kept only if e2fsck -fn finds it clean.
#
# Each tool runs RUNS times (default 3) on a warm page cache, alternating;
# the table has medians of wall, user and system seconds and of the peak
# RSS, the bytes read by read system calls (rchar of /proc/PID/io: the
# metadata read; both tools pread the image), that divided by the median
# wall time, and whether every run exited 0 (clean). ratio = extkit /
# e2fsck (issue 16's target: time 0.5 or less, RSS 1.0 or less).
#   sh bench/fsck.sh
# Environment: EXTKIT_FSCK (default ./extkit-fsck), EXTKIT_DUMP (default
# ./extkit-dump) — build without --enable-sanitizers; E2FSCK, DEBUGFS;
# EXTKIT_BENCH_DIR (the image cache, default /var/tmp/extkit-bench; about
# 2 GB at 1.2m, 7 GB at 4m per type on disk, sparse files);
# BENCH_SCALES (default "100k 1.2m 4m"), BENCH_TYPES (default "ext2 ext4"),
# RUNS, BUILD_ONLY=1 (build the images and stop), FRAG=0 (skip the frag
# table). Needs root for the loop mount, a C compiler, e2fsprogs.
# Not part of make check.
set -u
cd "$(dirname "$0")/.." || exit 1
PATH=$PATH:/sbin:/usr/sbin
FSCK=${EXTKIT_FSCK:-./extkit-fsck}
DUMP=${EXTKIT_DUMP:-./extkit-dump}
E2FSCK=${E2FSCK:-$(command -v e2fsck)} || { echo "e2fsck not found" >&2; exit 1; }
DEBUGFS=${DEBUGFS:-$(command -v debugfs)} || { echo "debugfs not found" >&2; exit 1; }
MKE2FS=$(command -v mke2fs) || { echo "mke2fs not found" >&2; exit 1; }
CC=${CC:-cc}
dir=${EXTKIT_BENCH_DIR:-/var/tmp/extkit-bench}
SCALES=${BENCH_SCALES:-"100k 1.2m 4m"}
TYPES=${BENCH_TYPES:-"ext2 ext4"}
RUNS=${RUNS:-3}
export E2FSCK_CONFIG=/dev/null ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
mkdir -p "$dir" || exit 1
for t in mkfull measure; do
	[ "$dir/$t" -nt "bench/$t.c" ] ||
		"$CC" -O2 -o "$dir/$t" "bench/$t.c" || exit 1
done

count_of() {
	case $1 in
	100k) echo 100000 ;;
	1.2m) echo 1200000 ;;
	4m) echo 4000000 ;;
	*) echo "unknown scale $1 (100k, 1.2m, 4m)" >&2; return 1 ;;
	esac
}

# build NAME TYPE COUNT: $dir/NAME.img and NAME.dirs (every directory's
# path, for debugfs), unless NAME.ok says they are there.
build() {
	_img=$dir/$1.img _mnt=$dir/mnt.$1
	[ -f "$dir/$1.ok" ] && return 0
	echo "building $1 ($3 inodes)..." >&2
	rm -f "$_img" "$dir/$1.dirs"
	"$MKE2FS" -q -F -t "$2" -b 4096 -N $(($3 / 4 * 5)) \
		-E lazy_itable_init=0,lazy_journal_init=0 \
		"$_img" $(($3 * 8))K >/dev/null || return 1
	mkdir -p "$_mnt"
	if mount -o loop "$_img" "$_mnt" 2>/dev/null; then
		"$dir/mkfull" "$_mnt" "$3" &&
			(cd "$_mnt" && find . -type d) >"$dir/$1.dirs"
		_rc=$?
		umount "$_mnt" || return 1
	else
		echo "mount refused; mke2fs -d instead" >&2
		rm -rf "$_mnt" && mkdir -p "$_mnt" &&
			"$dir/mkfull" "$_mnt" "$3" &&
			(cd "$_mnt" && find . -type d) >"$dir/$1.dirs" &&
			"$MKE2FS" -q -F -t "$2" -b 4096 -N $(($3 / 4 * 5)) \
				-d "$_mnt" "$_img" $(($3 * 8))K
		_rc=$?
		rm -rf "$_mnt"
	fi
	rmdir "$_mnt" 2>/dev/null
	[ $_rc = 0 ] && "$E2FSCK" -fn "$_img" >"$dir/$1.e2fsck" 2>&1 ||
		{ echo "$1: not built or not clean" >&2; return 1; }
	touch "$dir/$1.ok"
}

median() {
	sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

# run NAME TOOL CMD...: RUNS measurements appended to $dir/NAME.TOOL.m
run() {
	_f=$dir/$1.$2.m
	shift 2
	"$dir/measure" "$dir/last.log" "$@" >>"$_f"
}

# report NAME TOOL: one table row from NAME.TOOL.m; sets $wall and $rss
report() {
	_f=$dir/$1.$2.m
	wall=$(cut -d' ' -f1 "$_f" | median)
	rss=$(cut -d' ' -f4 "$_f" | median)
	_u=$(cut -d' ' -f2 "$_f" | median)
	_s=$(cut -d' ' -f3 "$_f" | median)
	_r=$(cut -d' ' -f5 "$_f" | median)
	_c=$(awk '$6 != 0 { bad = 1 } END { print bad ? "NO" : "yes" }' "$_f")
	awk -v n="$1" -v t="$2" -v w="$wall" -v u="$_u" -v s="$_s" \
		-v m="$rss" -v r="$_r" -v c="$_c" 'BEGIN {
		printf "%-10s %-7s %7.3f %7.3f %7.3f %8.1f %8.1f %8.0f %5s\n",
			n, t, w, u, s, m / 1024, r / 1048576,
			(w > 0 ? r / 1048576 / w : 0), c }'
}

images=
for s in $SCALES; do
	n=$(count_of "$s") || exit 1
	for t in $TYPES; do
		build "$s-$t" "$t" "$n" && images="$images $s-$t"
	done
done
[ "${BUILD_ONLY:-0}" = 1 ] && exit 0
[ -x "$FSCK" ] || { echo "$FSCK not built" >&2; exit 1; }

echo "fsck -fn, $RUNS runs each, warm cache; medians (MB = MiB)"
printf '%-10s %-7s %7s %7s %7s %8s %8s %8s %5s\n' image tool wall_s \
	user_s sys_s rss_MB read_MB MB/s clean
for i in $images; do
	img=$dir/$i.img
	rm -f "$dir/$i".*.m
	"$E2FSCK" -fn "$img" >/dev/null 2>&1	# warm the page cache
	k=0
	while [ $k -lt "$RUNS" ]; do
		run "$i" e2fsck "$E2FSCK" -fn "$img"
		run "$i" extkit "$FSCK" -fn "$img"
		k=$((k + 1))
	done
	report "$i" e2fsck
	ew=$wall em=$rss
	report "$i" extkit
	awk -v n="$i" -v ew="$ew" -v em="$em" -v xw="$wall" -v xm="$rss" \
		'BEGIN { printf "%-10s ratio   %7.2f %23s %8.2f\n", n,
		(ew > 0 ? xw / ew : 0), "", (em > 0 ? xm / em : 0) }'
done

[ "${FRAG:-1}" = 0 ] && exit 0
[ -x "$DUMP" ] || { echo "$DUMP not built" >&2; exit 1; }
echo
echo "frag over every directory: extkit-dump frag against debugfs 'ls -l' of each; median seconds"
printf '%-10s %8s %8s %6s %6s\n' image dirs debugfs extkit ratio
for i in $images; do
	img=$dir/$i.img
	sed 's|^\.||; s|^$|/|; s|^|ls -l |' "$dir/$i.dirs" >"$dir/$i.cmds"
	rm -f "$dir/$i".*.m
	k=0
	while [ $k -lt "$RUNS" ]; do
		run "$i" debugfs "$DEBUGFS" -f "$dir/$i.cmds" "$img"
		run "$i" dump "$DUMP" "$img" frag
		k=$((k + 1))
	done
	d=$(cut -d' ' -f1 "$dir/$i.debugfs.m" | median)
	x=$(cut -d' ' -f1 "$dir/$i.dump.m" | median)
	awk -v n="$i" -v c="$(wc -l <"$dir/$i.dirs")" -v d="$d" -v x="$x" \
		'BEGIN { printf "%-10s %8d %8.3f %6.3f %6.2f\n", n, c, d, x,
		(d > 0 ? x / d : 0) }'
done
