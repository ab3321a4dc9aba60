#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# extkit-mkfs -d against mke2fs -d (and genext2fs where installed) on one
# directory of N files (N from COUNTS) and on a wide tree of 1,000
# directories of 1,000 files; every file holds its own name (a few
# bytes). Prints one table: wall and CPU (user + system) seconds for each
# tool, the ratios mke2fs / extkit (above 1: extkit is faster), and
# extkit's scaling exponent log(t2/t1)/log(n2/n1) from the row before
# (and from 20k to the last row). Both tools make ext2 with 4 KiB blocks,
# 256-byte inodes and the same inode count (genext2fs 1.5: 128-byte
# inodes, the count rounded up to its groups; its image is checked with
# e2fsck -fn as extkit's, "(fsck!)" when not clean). extkit runs REPS times and
# the median is shown (the machine may be shared); mke2fs -d and
# genext2fs run once, and not above MKE2FS_MAX files in one directory
# ("-": mke2fs -d is quadratic there).
# Then the locality of the inodes on the wide tree (as root, through a
# read-only loop mount): for each directory, the inode table blocks its
# children's inodes lie in, summed over the directories -- what a `find`
# that stats every entry reads, one directory after the other -- for
# extkit with its run of inodes kept per directory, without it
# (EXTKIT_MKFS_NO_DIR_RESERVE=1: depth first, as mke2fs), and mke2fs -d;
# from the directory and from a tar of its first 100 directories (tar
# order: each directory's files right after it), beside the least
# possible (each directory's children packed: ceil(n / 16)).
#   sh bench/populate.sh
# Environment: EXTKIT_MKFS (default ./extkit-mkfs; build without
# sanitizers), MKE2FS, COUNTS (default "10000 20000 50000 100000 200000
# 1000000"), MKE2FS_MAX (largest N given to mke2fs -d and genext2fs,
# default 100000: 286 s there), WIDE (0 skips the wide tree), WIDE_N
# (its directories and files per directory, default 1000), REPS (default
# 3), BENCH_DIR (default a new directory under /var/tmp, removed at the
# end; a BENCH_DIR given keeps the source trees for the next run);
# EXTKIT_MKFS_NO_READER=1 passes through: extkit-mkfs then reads the
# source on its own thread (by default two reader threads read ahead, so
# wall time may be below CPU time on an idle machine of 2 cores or more);
# so does EXTKIT_MKFS_NO_URING=1: the readers then make one system call
# for each open, read and close instead of batching them through
# io_uring (built with liburing). Measured (release build, 2 cores
# shared, load average 9-10; COUNTS="20000 100000" WIDE=0 REPS=3), the
# batches took extkit's CPU from 0.35 to 0.29 s at 20k files and from
# 1.67 to 1.07 s at 100k. At 1M files most of the time went into
# copying 4 GB of file data into the page cache and writing it out (45%
# of the samples in copy_folio_from_iter_atomic, and reclaim); since the
# data (and the inode tables) go out with O_DIRECT from a writer thread
# past their first 256 MiB (mkfs/popwrite.c; EXTKIT_MKFS_NO_DIRECT=1
# passes through and keeps the page cache), 1M files take 18-23 s wall
# and 12.6-13.6 s CPU against 71.5 s and 51.3 s (5.2 user + 46.0 system)
# before, at load 4-9; below 256 MiB (20k files) the cache is faster
# (O_DIRECT from the start: 0.27 s wall against 0.20). With O_DIRECT
# from the start, at load 8.5-9 (REPS=3):
#   COUNTS="20000 100000 1000000" MKE2FS_MAX=20000 WIDE=0
#     20k 0.72 s wall 0.34 CPU (mke2fs -d 36.9 / 16.8: 51x), 100k 2.47 /
#     1.43, 1M 22.9 / 12.8; exponent 20k-1M 0.88 wall, 0.93 CPU
#   COUNTS=10000 MKE2FS_MAX=0 WIDE=1
#     1000 x 1000: 21.4 s wall 10.3 CPU, mke2fs -d 127.5 / 54.4 (5.9x)
# With the first 256 MiB through the cache, load 3-4, REPS=3:
#   COUNTS="20000 100000 1000000" MKE2FS_MAX=20000 WIDE=0
#     20k 0.41 / 0.26 (mke2fs -d 15.4 / 13.2: 37.5x wall, 50.8x CPU),
#     100k 1.71 / 1.41, 1M 17.7 / 13.7; exponent 20k-1M 0.96 wall,
#     1.01 CPU
# On 2 shared cores the wall time follows the load; per 100k files the
# CPU is about 40% the builder's and 50% the readers' system calls
# (openat and read batched, fstat and flistxattr not: flistxattr has no
# io_uring equivalent, and a statx there runs on io-wq threads, which
# cost more than the call).
# Not part of make check.
set -u
cd "$(dirname "$0")/.." || exit 1
MKFS=${EXTKIT_MKFS:-./extkit-mkfs}
PATH=$PATH:/sbin:/usr/sbin
MKE2FS=${MKE2FS:-$(command -v mke2fs)} || { echo "mke2fs not found" >&2; exit 1; }
E2FSCK=$(command -v e2fsck) || { echo "e2fsck not found" >&2; exit 1; }
TIME=/usr/bin/time
[ -x "$TIME" ] || { echo "/usr/bin/time (GNU time) not found" >&2; exit 1; }
GENEXT2FS=$(command -v genext2fs || true)
COUNTS=${COUNTS:-"10000 20000 50000 100000 200000 1000000"}
MKE2FS_MAX=${MKE2FS_MAX:-100000}
WIDE=${WIDE:-1}
REPS=${REPS:-3}
[ -x "$MKFS" ] || { echo "$MKFS not built" >&2; exit 1; }
dir=${BENCH_DIR:-$(mktemp -d /var/tmp/populate-bench.XXXXXX)} || exit 1
mnt=$dir/mnt
mkdir -p "$mnt"
cleanup() {
	mountpoint -q "$mnt" 2>/dev/null && umount "$mnt"
	rm -rf "$dir/a.img" "$dir/b.img" "$dir/c.img" "$dir/wide.tar"
	[ -n "${BENCH_DIR:-}" ] || rm -rf "$dir"
}
trap cleanup EXIT
export SOURCE_DATE_EPOCH=1700000000 E2FSPROGS_FAKE_TIME=1700000000
export MKE2FS_CONFIG=/etc/mke2fs.conf
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}

# make_tree DIRS FILES: DIRS directories (0: the files in the root) of
# FILES files each, each holding its name, in $dir/src. With BENCH_DIR
# the trees are kept there (tree-DIRS-FILES; src.shape names the one in
# src) and reused: making 1M files takes minutes.
make_tree() {
	if [ -n "${BENCH_DIR:-}" ]; then
		[ -d "$dir/src" ] && [ -f "$dir/src.shape" ] &&
			mv "$dir/src" "$dir/tree-$(cat "$dir/src.shape")"
		rm -f "$dir/src.shape"
		if [ -d "$dir/tree-$1-$2" ]; then
			mv "$dir/tree-$1-$2" "$dir/src" &&
				echo "$1-$2" >"$dir/src.shape"
			return
		fi
	fi
	rm -rf "$dir/src"
	python3 - "$dir/src" "$1" "$2" <<'EOF' || exit 1
import os, sys
root, dirs, files = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
os.makedirs(root)
for d in range(max(dirs, 1)):
    path = os.path.join(root, "dir%04d" % d) if dirs else root
    os.makedirs(path, exist_ok=True)
    for f in range(files):
        name = "file-%07d" % f
        with open(os.path.join(path, name), "w") as fh:
            fh.write(name)
EOF
	[ -z "${BENCH_DIR:-}" ] || echo "$1-$2" >"$dir/src.shape"
}

# timed1 TOOL N IMAGE [SOURCE]: "wall cpu" seconds (cpu: user + system),
# or "- -" when it failed.
timed1() {
	inodes=$(($2 + $2 / 100 + 2000))
	src=${4:-$dir/src}
	rm -f "$3"
	case $1 in
	extkit) set -- "$MKFS" -q -F -b 4096 -I 256 -N "$inodes" \
			-d "$src" "$3" 8G ;;
	mke2fs) set -- "$MKE2FS" -q -F -t ext2 -b 4096 -I 256 -N "$inodes" \
			-d "$src" "$3" 8G ;;
	# genext2fs 1.5: -b counts blocks (8 GiB of 4 KiB blocks), and -q
	# would squash owners and modes (less work than the others do)
	genext2fs) set -- "$GENEXT2FS" -b $((8 * 1024 * 1024 / 4)) -B 4096 \
			-N "$inodes" -d "$src" "$3" ;;
	esac
	if ! "$TIME" -f '%e %U %S' -o "$dir/time" "$@" >/dev/null \
			2>"$dir/err"; then
		echo "- -"
		return
	fi
	awk '{ printf "%.3f %.3f\n", $1, $2 + $3 }' "$dir/time"
}

# timed TOOL N IMAGE [SOURCE]: as timed1; for extkit the medians of the
# wall and the CPU times of REPS runs.
timed() {
	if [ "$1" != extkit ] || [ "$REPS" -le 1 ]; then
		timed1 "$@"
		return
	fi
	for _r in $(seq 1 "$REPS"); do
		timed1 "$@"
	done >"$dir/runs"
	if grep -q -- - "$dir/runs"; then
		echo "- -"
		return
	fi
	_m=$(((REPS + 1) / 2))
	echo "$(cut -d' ' -f1 "$dir/runs" | sort -n | sed -n "${_m}p")" \
		"$(cut -d' ' -f2 "$dir/runs" | sort -n | sed -n "${_m}p")"
}

ratio() {
	case "$1$2" in *-*|*'('*) echo "-"; return ;; esac
	printf '%.1f' "$(echo "$1 / $2" | bc -l)"
}

expo() {
	case "$1$2$3$4" in *-*|*'('*) echo "-"; return ;; esac
	if [ -z "$1" ] || [ -z "$2" ] || [ -z "$3" ]; then
		echo "-"
		return
	fi
	printf '%.3f' "$(echo "l($2 / $1) / l($4 / $3)" | bc -l)"
}

# row LABEL N DIRS FILES: wall and CPU seconds of each tool, the wall
# and CPU ratios mke2fs / extkit, extkit's exponents.
prev_n=
prev_t=
prev_c=
first_c=
first_n=
first_t=
row() {
	make_tree "$3" "$4"
	sync
	set -- "$1" "$2" "$3" "$(timed extkit "$2" "$dir/a.img")"
	ext_w=${4% *}
	ext_c=${4#* }
	"$E2FSCK" -fn "$dir/a.img" >/dev/null 2>&1 || ext_w="$ext_w(fsck!)"
	mke_w=-
	mke_c=-
	gen_w=-
	gen_c=-
	if [ "$2" -le "$MKE2FS_MAX" ] || [ "$3" -gt 0 ]; then
		t=$(timed mke2fs "$2" "$dir/b.img")
		mke_w=${t% *}
		mke_c=${t#* }
		if [ -n "$GENEXT2FS" ]; then
			t=$(timed genext2fs "$2" "$dir/c.img")
			gen_w=${t% *}
			gen_c=${t#* }
			"$E2FSCK" -fn "$dir/c.img" >/dev/null 2>&1 ||
				gen_w="$gen_w(fsck!)"
		fi
		rm -f "$dir/c.img"
	fi
	e=-
	ec=-
	if [ "$3" -eq 0 ]; then
		e=$(expo "$prev_t" "$ext_w" "$prev_n" "$2")
		ec=$(expo "$prev_c" "$ext_c" "$prev_n" "$2")
		prev_n=$2
		prev_t=$ext_w
		prev_c=$ext_c
		if [ -z "$first_n" ] && [ "$2" -ge 20000 ]; then
			first_n=$2
			first_t=$ext_w
			first_c=$ext_c
		fi
	fi
	printf '%-23s %8s %8s %8s %8s %8s %8s %7s %7s %7s %6s %6s\n' "$1" \
		"$ext_w" "$ext_c" "$mke_w" "$mke_c" "$gen_w" "$gen_c" \
		"$(ratio "$mke_w" "$ext_w")" "$(ratio "$mke_c" "$ext_c")" \
		"$(ratio "$gen_w" "$ext_w")" "$e" "$ec"
}

echo "extkit-mkfs -d vs mke2fs -d$( [ -n "$GENEXT2FS" ] && echo ' vs genext2fs'): seconds (ext2, 4 KiB blocks);" \
	"extkit: median of $REPS runs; load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "x wall, x cpu: mke2fs / extkit; x gen: genext2fs / extkit (wall); expo, expo c: extkit's exponent (wall, cpu);" \
	"'-': not run (mke2fs -d above $MKE2FS_MAX files in one directory)"
printf '%-23s %8s %8s %8s %8s %8s %8s %7s %7s %7s %6s %6s\n' "source" \
	"ext wall" "ext cpu" "mke wall" "mke cpu" "gen wall" "gen cpu" \
	"x wall" "x cpu" "x gen" "expo" "expo c"
for n in $COUNTS; do
	row "1 dir x $n files" "$n" 0 "$n"
done
if [ -n "$first_n" ] && [ "$prev_n" != "$first_n" ]; then
	echo "scaling exponent from $first_n to $prev_n files:" \
		"$(expo "$first_t" "$prev_t" "$first_n" "$prev_n") (wall)," \
		"$(expo "$first_c" "$prev_c" "$first_n" "$prev_n") (cpu)"
fi
[ "$WIDE" = 1 ] || exit 0
W=${WIDE_N:-1000}
row "$W dirs x $W files" $((W * W)) "$W" "$W"
echo "(load average $(cut -d' ' -f1-3 /proc/loadavg))"

# ---- locality: inode table blocks per directory ----
[ "$(id -u)" = 0 ] || { echo "(not root: the locality figures need a loop mount)"; exit 0; }
# blocks IMAGE: the sum over directories of the inode table blocks (16
# inodes each) their children lie in, and the least possible.
blocks() {
	mount -o loop,ro "$1" "$mnt" 2>/dev/null || { echo "- -"; return; }
	find "$mnt" -mindepth 1 -path "$mnt/lost+found" -prune -o \
		-printf '%h %i\n' | awk '
		{ n[$1]++; k = $1 " " int(($2 - 1) / 16)
		  if (!(k in seen)) { seen[k] = 1; b++ } }
		END { for (d in n) least += int((n[d] + 15) / 16)
		      print b, least }'
	umount "$mnt"
}
# locality LABEL SOURCE N [again]: extkit with and without the runs kept
# per directory, mke2fs -d when SOURCE is a directory (again: a.img and
# b.img are made already).
locality() {
	[ "${4:-}" = again ] || timed1 extkit "$3" "$dir/a.img" "$2" >/dev/null
	w=$(blocks "$dir/a.img")
	EXTKIT_MKFS_NO_DIR_RESERVE=1 timed1 extkit "$3" "$dir/c.img" "$2" \
		>/dev/null
	wo=$(blocks "$dir/c.img")
	m="- -"
	if [ -d "$2" ]; then
		[ "${4:-}" = again ] ||
			timed1 mke2fs "$3" "$dir/b.img" "$2" >/dev/null
		m=$(blocks "$dir/b.img")
	fi
	printf '%-28s %10s %10s %10s %10s\n' "$1" "${w% *}" "${wo% *}" \
		"${m% *}" "${w#* }"
}
echo "inode table blocks a find reads (sum over directories of the blocks" \
	"holding their children's inodes, 16 inodes a block)"
printf '%-28s %10s %10s %10s %10s\n' "source" "runs kept" "no runs" \
	"mke2fs -d" "least"
locality "$W dirs x $W (dir)" "$dir/src" $((W * W)) again
T=$((W < 100 ? W : 100))
(cd "$dir/src" && tar -cf "$dir/wide.tar" $(ls | head -$T)) &&
	locality "$T dirs x $W (tar)" "$dir/wide.tar" $((T * W))
