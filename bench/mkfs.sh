#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# extkit-mkfs against mke2fs on new sparse image files, in one run:
#   sh bench/mkfs.sh [SIZE...]
# BENCH_FS=ext2 (default): extkit-mkfs -O resize_inode against mke2fs -t
# ext2 (the same geometry; mke2fs adds resize_inode), sizes 1G 16G 256G 1T.
# BENCH_FS=ext4: extkit-mkfs -t ext4 against mke2fs -t ext4 (journal
# included), sizes 1G 16G 1T 16T (issue 14's target: extkit no slower, no
# more bytes). A size the filesystem of BENCH_DIR cannot hold as a sparse
# file (16T on ext4) is skipped with a note: use tmpfs or xfs.
# BENCH_FS=ext4q: both with -t ext4 -O quota,orphan_file (issue 33: the
# quota files and the orphan file), sizes 1T 16T.
#
# Each row: the median of RUNS runs of each tool (the two alternate, so a
# change of load hits both) of the wall time and of the CPU time (user +
# system, from the child's rusage, in ms), the bytes the image allocates
# (du, KiB, after the last run), and each ratio extkit / mke2fs (below 1:
# extkit is cheaper). On a loaded machine the wall time includes waiting
# for a CPU; the CPU time does not. The load average is printed first.
#
# Environment: EXTKIT_MKFS (default ./extkit-mkfs), MKE2FS, BENCH_DIR (a
# directory on a filesystem with sparse files; default a new one under
# /var/tmp), RUNS (default 5). Needs python3 (the timer). Not part of make
# check. mke2fs may allocate (unwritten extents) up to about 2% of the
# largest size.
set -u
cd "$(dirname "$0")/.." || exit 1
MKFS=${EXTKIT_MKFS:-./extkit-mkfs}
PATH=$PATH:/sbin:/usr/sbin
MKE2FS=${MKE2FS:-$(command -v mke2fs)} || { echo "mke2fs not found" >&2; exit 1; }
RUNS=${RUNS:-5}
[ -x "$MKFS" ] || { echo "$MKFS not built" >&2; exit 1; }
command -v python3 >/dev/null || { echo "python3 not found" >&2; exit 1; }
FS=${BENCH_FS:-ext2}
case $FS in
ext2) [ $# -gt 0 ] || set -- 1G 16G 256G 1T ;;
ext4) [ $# -gt 0 ] || set -- 1G 16G 1T 16T ;;
ext4q) [ $# -gt 0 ] || set -- 1T 16T ;;
*) echo "BENCH_FS: ext2, ext4 or ext4q" >&2; exit 1 ;;
esac
dir=${BENCH_DIR:-$(mktemp -d /var/tmp/mkfs-bench.XXXXXX)} || exit 1
trap 'rm -f "$dir/bench.img" "$dir/times.extkit" "$dir/times.mke2fs"
      [ -n "${BENCH_DIR:-}" ] || rmdir "$dir"' EXIT
export SOURCE_DATE_EPOCH=1700000000 E2FSPROGS_FAKE_TIME=1700000000
export MKE2FS_CONFIG=/etc/mke2fs.conf
# The sanitizers (--enable-sanitizers builds) must not abort on leaks here.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}

# timed CMD...: runs CMD (output discarded) and prints "wall_ms cpu_ms":
# the wall time from fork to exit and the child's user + system time.
timed() {
	python3 - "$@" <<'EOF'
import os, subprocess, sys, time
t = time.perf_counter()
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL,
                     stderr=subprocess.DEVNULL)
_, status, ru = os.wait4(p.pid, 0)
wall = time.perf_counter() - t
if os.waitstatus_to_exitcode(status):
    sys.exit(1)
print("%.1f %.1f" % (wall * 1e3, (ru.ru_utime + ru.ru_stime) * 1e3))
EOF
}

# median: the middle one of the numbers on stdin.
median() {
	sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

# once TOOL SIZE: one run of TOOL on a new image, its times appended to
# $dir/times.TOOL.
once() {
	rm -f "$dir/bench.img"
	sync
	case $1-$FS in
	extkit-ext2) set -- "$@" "$MKFS" -q -O resize_inode ;;
	mke2fs-ext2) set -- "$@" "$MKE2FS" -q -F -t ext2 ;;
	extkit-ext4) set -- "$@" "$MKFS" -q -t ext4 ;;
	mke2fs-ext4) set -- "$@" "$MKE2FS" -q -F -t ext4 ;;
	extkit-ext4q) set -- "$@" "$MKFS" -q -t ext4 -O quota,orphan_file ;;
	mke2fs-ext4q) set -- "$@" "$MKE2FS" -q -F -t ext4 -O quota,orphan_file ;;
	esac
	tool=$1 size=$2
	shift 2
	timed "$@" "$dir/bench.img" "$size" >>"$dir/times.$tool" ||
		{ echo "$tool failed on $size" >&2; return 1; }
}

# summary TOOL: "wall cpu kib": the medians and the allocation now.
summary() {
	echo "$(cut -d' ' -f1 "$dir/times.$1" | median)" \
	     "$(cut -d' ' -f2 "$dir/times.$1" | median)" \
	     "$(du -k "$dir/bench.img" | cut -f1)"
}

ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (b == 0) print "-";
				      else printf "%.2f", a / b }'
}

if nm "$MKFS" 2>/dev/null | grep -q __asan_init; then
	echo "note: $MKFS is built with sanitizers; times include their cost"
fi
echo "$FS: extkit-mkfs ($MKFS) against mke2fs ($MKE2FS)"
echo "medians of $RUNS runs each; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-5s | %-25s | %-25s | %s\n' "" "wall ms" "CPU ms" "KiB allocated"
printf '%-5s | %9s %9s %5s | %9s %9s %5s | %10s %10s %5s\n' size \
	extkit mke2fs ratio extkit mke2fs ratio extkit mke2fs ratio
for size in "$@"; do
	rm -f "$dir/bench.img" "$dir/times.extkit" "$dir/times.mke2fs"
	if ! truncate -s "$size" "$dir/bench.img" 2>/dev/null; then
		echo "$size: skipped, $dir cannot hold a sparse file of $size"
		continue
	fi
	for _i in $(seq 1 "$RUNS"); do
		once mke2fs "$size" || exit 1
		[ "$_i" -lt "$RUNS" ] || mk=$(summary mke2fs)
		once extkit "$size" || exit 1
	done
	ek=$(summary extkit)
	set -- $ek $mk
	printf '%-5s | %9.1f %9.1f %5s | %9.1f %9.1f %5s | %10d %10d %5s\n' \
		"$size" "$1" "$4" "$(ratio "$1" "$4")" "$2" "$5" \
		"$(ratio "$2" "$5")" "$3" "$6" "$(ratio "$3" "$6")"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
