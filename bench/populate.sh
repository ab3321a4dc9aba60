#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# extkit-mkfs -d against mke2fs -d (and genext2fs where installed) on one
# directory of N files (N from COUNTS) and on a wide tree of 1,000
# directories of 1,000 files; every file holds its own name (a few
# bytes). Prints one table: seconds for each tool, the ratio mke2fs /
# extkit (above 1: extkit is faster), and extkit's scaling exponent
# log(t2/t1)/log(n2/n1) from the row before (and from 20k to the last
# row). Both tools make ext2 with 4 KiB blocks, 256-byte inodes and the
# same inode count. Then, on the wide tree (as root, through a read-only
# loop mount), how many times `find` moves to another inode table block
# while visiting every entry, for both images: the effect of giving each
# directory's children one run of inodes.
#   sh bench/populate.sh
# Environment: EXTKIT_MKFS (default ./extkit-mkfs; build without
# sanitizers), MKE2FS, COUNTS (default "10000 20000 50000 100000 200000
# 1000000"), MKE2FS_MAX (largest N given to mke2fs -d and genext2fs,
# default 100000: mke2fs -d is quadratic, 286 s at 100k), WIDE (0 skips
# the wide tree), BENCH_DIR (default a new directory under /var/tmp).
# Not part of make check.
set -u
cd "$(dirname "$0")/.." || exit 1
MKFS=${EXTKIT_MKFS:-./extkit-mkfs}
PATH=$PATH:/sbin:/usr/sbin
MKE2FS=${MKE2FS:-$(command -v mke2fs)} || { echo "mke2fs not found" >&2; exit 1; }
TIME=/usr/bin/time
[ -x "$TIME" ] || { echo "/usr/bin/time (GNU time) not found" >&2; exit 1; }
GENEXT2FS=$(command -v genext2fs || true)
COUNTS=${COUNTS:-"10000 20000 50000 100000 200000 1000000"}
MKE2FS_MAX=${MKE2FS_MAX:-100000}
WIDE=${WIDE:-1}
[ -x "$MKFS" ] || { echo "$MKFS not built" >&2; exit 1; }
dir=${BENCH_DIR:-$(mktemp -d /var/tmp/populate-bench.XXXXXX)} || exit 1
mnt=$dir/mnt
mkdir -p "$mnt"
cleanup() {
	mountpoint -q "$mnt" 2>/dev/null && umount "$mnt"
	rm -rf "$dir/src" "$dir/a.img" "$dir/b.img"
	[ -n "${BENCH_DIR:-}" ] || rm -rf "$dir"
}
trap cleanup EXIT
export SOURCE_DATE_EPOCH=1700000000 E2FSPROGS_FAKE_TIME=1700000000
export MKE2FS_CONFIG=/etc/mke2fs.conf
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}

now() {
	date +%s.%N
}

# make_tree DIRS FILES: DIRS directories (0: the files in the root) of
# FILES files each, each holding its name.
make_tree() {
	rm -rf "$dir/src"
	python3 - "$dir/src" "$1" "$2" <<'EOF'
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
}

# timed TOOL N IMAGE: "wall cpu" seconds (cpu: user + system), or "- -"
# when skipped or failed.
timed() {
	inodes=$(($2 + $2 / 100 + 2000))
	rm -f "$3"
	case $1 in
	extkit) set -- "$MKFS" -q -F -b 4096 -I 256 -N "$inodes" \
			-d "$dir/src" "$3" 8G ;;
	mke2fs) set -- "$MKE2FS" -q -F -t ext2 -b 4096 -I 256 -N "$inodes" \
			-d "$dir/src" "$3" 8G ;;
	genext2fs) set -- "$GENEXT2FS" -q -b $((8 * 1024 * 1024)) -B 4096 \
			-N "$inodes" -d "$dir/src" "$3" ;;
	esac
	if ! "$TIME" -f '%e %U %S' -o "$dir/time" "$@" >/dev/null \
			2>"$dir/err"; then
		echo "- -"
		return
	fi
	awk '{ printf "%.3f %.3f\n", $1, $2 + $3 }' "$dir/time"
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
# and CPU ratios mke2fs / extkit, extkit's wall exponent.
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
	if [ "$2" -le "$MKE2FS_MAX" ] || [ "$3" -gt 0 ]; then
		t=$(timed mke2fs "$2" "$dir/b.img")
		mke_w=${t% *}
		mke_c=${t#* }
		if [ -n "$GENEXT2FS" ]; then
			t=$(timed genext2fs "$2" "$dir/c.img")
			gen_w=${t% *}
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
	printf '%-23s %8s %8s %8s %8s %8s %7s %7s %6s %6s\n' "$1" "$ext_w" \
		"$ext_c" "$mke_w" "$mke_c" "$gen_w" "$(ratio "$mke_w" "$ext_w")" \
		"$(ratio "$mke_c" "$ext_c")" "$e" "$ec"
}

E2FSCK=$(command -v e2fsck)
echo "extkit-mkfs -d vs mke2fs -d$( [ -n "$GENEXT2FS" ] && echo ' vs genext2fs'): seconds (ext2, 4 KiB blocks)"
echo "x wall, x cpu: mke2fs / extkit; expo, expo c: extkit's exponent (wall, cpu)"
printf '%-23s %8s %8s %8s %8s %8s %7s %7s %6s %6s\n' "source" "ext wall" \
	"ext cpu" "mke wall" "mke cpu" "gen wall" "x wall" "x cpu" "expo" \
	"expo c"
for n in $COUNTS; do
	row "1 dir x $n files" "$n" 0 "$n"
done
if [ -n "$first_n" ] && [ "$prev_n" != "$first_n" ]; then
	echo "scaling exponent from $first_n to $prev_n files:" \
		"$(expo "$first_t" "$prev_t" "$first_n" "$prev_n") (wall)," \
		"$(expo "$first_c" "$prev_c" "$first_n" "$prev_n") (cpu)"
fi
[ "$WIDE" = 1 ] || exit 0
row "1000 dirs x 1000 files" 1000000 1000 1000

# Inode table blocks find moves between, on the wide tree's images.
[ "$(id -u)" = 0 ] || { echo "(not root: the find figure needs a loop mount)"; exit 0; }
moves() {
	mount -o loop,ro "$1" "$mnt" 2>/dev/null || { echo "-"; return; }
	find "$mnt" -printf '%i\n' | awk -v per=16 '
		{ b = int(($1 - 1) / per); if (NR > 1 && b != last) m++; last = b }
		END { print m + 0 }'
	umount "$mnt"
}
echo "find over the wide tree: moves between inode table blocks" \
	"(16 inodes a block)"
printf '  extkit-mkfs -d %s   mke2fs -d %s\n' "$(moves "$dir/a.img")" \
	"$(moves "$dir/b.img")"
