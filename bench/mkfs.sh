#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# extkit-mkfs against mke2fs -t ext2 on new sparse image files of 1 GiB,
# 16 GiB, 256 GiB and 1 TiB: wall and CPU time (medians of RUNS) and
# allocated bytes (du), with ratios extkit / mke2fs (below 1 means extkit
# is cheaper).
# Both make the same ext2 geometry with their defaults (mke2fs adds
# resize_inode, so extkit gets -O resize_inode too).
#   sh bench/mkfs.sh [SIZE...]
# With BENCH_FS=ext4: extkit-mkfs -t ext4 against mke2fs -t ext4 (journal
# included), default sizes 1 GiB, 16 GiB, 1 TiB and 16 TiB; a 16 TiB file
# needs a BENCH_DIR whose filesystem allows it (tmpfs, xfs; not ext4).
# Environment: EXTKIT_MKFS (default ./extkit-mkfs), MKE2FS, BENCH_DIR (a
# directory on a filesystem with sparse files; default a new one under
# /var/tmp), RUNS (default 3). Not part of make check. mke2fs may
# allocate (unwritten extents) up to about 2% of the largest size.
set -u
cd "$(dirname "$0")/.." || exit 1
MKFS=${EXTKIT_MKFS:-./extkit-mkfs}
PATH=$PATH:/sbin:/usr/sbin
MKE2FS=${MKE2FS:-$(command -v mke2fs)} || { echo "mke2fs not found" >&2; exit 1; }
RUNS=${RUNS:-3}
[ -x "$MKFS" ] || { echo "$MKFS not built" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "/usr/bin/time (GNU time) not found" >&2; exit 1; }
FS=${BENCH_FS:-ext2}
case $FS in
ext2) [ $# -gt 0 ] || set -- 1G 16G 256G 1T ;;
ext4) [ $# -gt 0 ] || set -- 1G 16G 1T 16T ;;
*) echo "BENCH_FS: ext2 or ext4" >&2; exit 1 ;;
esac
dir=${BENCH_DIR:-$(mktemp -d /var/tmp/mkfs-bench.XXXXXX)} || exit 1
trap 'rm -f "$dir/bench.img"; [ -n "${BENCH_DIR:-}" ] || rmdir "$dir"' EXIT
export SOURCE_DATE_EPOCH=1700000000 E2FSPROGS_FAKE_TIME=1700000000
export MKE2FS_CONFIG=/etc/mke2fs.conf
# The sanitizers (--enable-sanitizers builds) must not abort on leaks here.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}

# median: the middle one of the numbers on stdin.
median() {
	sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

# run TOOL SIZE: prints "wall cpu kib": the median wall time and the
# median CPU time (user + system) of RUNS runs, and the allocation of the
# last run. On a loaded machine the wall time waits for a CPU; the CPU
# time does not.
run() {
	: >"$dir/times"
	for _i in $(seq 1 "$RUNS"); do
		rm -f "$dir/bench.img"
		sync
		case $1-$FS in
		extkit-ext2) set -- "$1" "$2" "$MKFS" -q -O resize_inode ;;
		mke2fs-ext2) set -- "$1" "$2" "$MKE2FS" -q -F -t ext2 ;;
		extkit-ext4) set -- "$1" "$2" "$MKFS" -q -t ext4 ;;
		mke2fs-ext4) set -- "$1" "$2" "$MKE2FS" -q -F -t ext4 ;;
		esac
		tool=$1 size=$2
		shift 2
		/usr/bin/time -f '%e %U %S' -a -o "$dir/times" "$@" \
			"$dir/bench.img" "$size" >/dev/null 2>&1 ||
			{ echo "$tool failed on $size" >&2; return 1; }
		set -- "$tool" "$size"
	done
	wall=$(cut -d' ' -f1 "$dir/times" | median)
	cpu=$(awk '{ print $2 + $3 }' "$dir/times" | median)
	kib=$(du -k "$dir/bench.img" | cut -f1)
	echo "$wall $cpu $kib"
}

ratio() {
	if [ "$(echo "$2 == 0" | bc -l)" = 1 ]; then
		echo "-"
	else
		printf '%.2f' "$(echo "$1 / $2" | bc -l)"
	fi
}

if nm "$MKFS" 2>/dev/null | grep -q __asan_init; then
	echo "note: $MKFS is built with sanitizers; times include their cost"
fi
echo "$FS (medians of $RUNS runs)"
printf '%-6s %8s %8s %6s %8s %8s %6s %11s %11s %6s\n' size "extkit s" \
	"mke2fs s" ratio "ext cpu" "mk cpu" ratio "extkit KiB" "mke2fs KiB" \
	ratio
for size in "$@"; do
	r=$(run extkit "$size") || exit 1
	set -- $r
	et=$1 ec=$2 ek=$3
	r=$(run mke2fs "$size") || exit 1
	set -- $r
	mt=$1 mc=$2 mk=$3
	printf '%-6s %8.2f %8.2f %6s %8.2f %8.2f %6s %11d %11d %6s\n' "$size" \
		"$et" "$mt" "$(ratio "$et" "$mt")" "$ec" "$mc" \
		"$(ratio "$ec" "$mc")" "$ek" "$mk" "$(ratio "$ek" "$mk")"
done
