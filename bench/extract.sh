#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Getting a tree out of an image: extkit-dump extract against debugfs
# rdump and against the kernel (a read-only loop mount and cp -a), on an
# image of N files (default 100000 and 1000000, the issue's two rows:
# small files of 0..8 KiB in 100-file directories, some larger, hard
# links, symlinks) made by mke2fs -d. The 1M row needs about 30 GB free
# under BENCH_DIR (the tree, the image, three copies) and takes most of
# an hour on two cores.
# Prints one table: wall seconds and peak RSS (MiB) of each, and checks
# that the three trees agree (diff -r).
#   sh bench/extract.sh [N...]
# Environment: EXTKIT_DUMP (default ./extkit-dump; build without
# sanitizers), BENCH_DIR (default a new directory under /var/tmp).
# Needs root for the loop mount (the row is left out without it).
# Not part of make check.
set -u
cd "$(dirname "$0")/.." || exit 1
DUMP=${EXTKIT_DUMP:-./extkit-dump}
PATH=$PATH:/sbin:/usr/sbin
[ -x "$DUMP" ] || { echo "$DUMP not built" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "/usr/bin/time not found" >&2; exit 1; }
[ $# -gt 0 ] || set -- 100000 1000000
dir=${BENCH_DIR:-$(mktemp -d /var/tmp/extract-bench.XXXXXX)} || exit 1
trap 'mountpoint -q "$dir/mnt" && umount "$dir/mnt"; [ -n "${BENCH_DIR:-}" ] || rm -rf "$dir"' EXIT
export E2FSPROGS_FAKE_TIME=1700000000

# tree N: N files under $dir/src
tree() {
	rm -rf "$dir/src" && mkdir -p "$dir/src" || exit 1
	python3 - "$dir/src" "$1" <<'PY'
import os, random, sys
root, n = sys.argv[1], int(sys.argv[2])
r = random.Random(1)
for i in range(n):
    d = os.path.join(root, 'd%d' % (i // 100))
    if i % 100 == 0:
        os.mkdir(d)
    p = os.path.join(d, 'f%d' % i)
    if i % 50 == 1:
        os.link(os.path.join(d, 'f%d' % (i - 1)), p)
    elif i % 50 == 2:
        os.symlink('f%d' % (i - 2), p)
    else:
        size = r.choice((0, 100, 1000, 4000, 8000)) if i % 1000 else 1 << 20
        with open(p, 'wb') as f:
            f.write(os.urandom(size))
PY
}

# measure NAME CMD...: "seconds peak-MiB" of CMD, caches dropped first
measure() {
	_name=$1
	shift
	sync
	[ -w /proc/sys/vm/drop_caches ] && echo 3 >/proc/sys/vm/drop_caches
	/usr/bin/time -f '%e %M' -o "$dir/time" "$@" >/dev/null 2>"$dir/err" ||
		{ echo "$_name failed: $(tail -2 "$dir/err")" >&2; return 1; }
	awk -v n="$_name" '{ printf "%-28s %9.2f %9.1f\n", n, $1, $2 / 1024 }' \
		"$dir/time"
}

printf '%-28s %9s %9s\n' "files / tool" "seconds" "peak MiB"
for n in "$@"; do
	tree "$n"
	size=$(du -sm "$dir/src" | cut -f1)
	mke2fs -q -F -t ext4 -N $((n + n / 4 + 1024)) -d "$dir/src" \
		"$dir/img" $((size * 2 + 256))M >/dev/null 2>&1 ||
		{ echo "mke2fs failed" >&2; exit 1; }
	echo "$n files, $size MiB:"
	rm -rf "$dir/x" "$dir/r" "$dir/c"
	measure "  extkit-dump extract" "$DUMP" "$dir/img" extract "$dir/x"
	mkdir "$dir/r"
	measure "  debugfs rdump" debugfs -R "rdump / $dir/r" "$dir/img"
	mkdir -p "$dir/mnt" "$dir/c"
	if mount -o ro,loop "$dir/img" "$dir/mnt" 2>/dev/null; then
		measure "  mount + cp -a" cp -a "$dir/mnt/." "$dir/c/"
		umount "$dir/mnt"
		diff -r --no-dereference "$dir/x" "$dir/c" >/dev/null 2>&1 &&
			echo "  (extract and cp -a agree)" ||
			echo "  (extract and cp -a DIFFER)"
	fi
	diff -r --no-dereference -x lost+found "$dir/x" "$dir/r/" >/dev/null \
		2>&1 || diff -r --no-dereference "$dir/x" \
		"$dir/r/$(basename "$dir/img")" >/dev/null 2>&1 ||
		echo "  (extract and rdump differ: see debugfs' rdump layout)"
done
