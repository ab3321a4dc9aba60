#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# extkit-fsck -fn against e2fsck -fn on the same image: at least 1M inodes
# (mke2fs -N), a directory of DIRSIZE entries (default 200000) and a tree
# of FILES more files with data, made with mke2fs -d from a directory built
# in TMPDIR. One run each (after one warm-up read of the image), wall time
# and peak memory (GNU time's maximum RSS), with ratios extkit / e2fsck
# (the target for issue 4 is 1.5 or below on both).
#   sh bench/fsck.sh
# Environment: EXTKIT_FSCK (default ./extkit-fsck; build without
# --enable-sanitizers for meaningful figures), E2FSCK, INODES (default
# 1048576), DIRSIZE, FILES (default 50000), BENCH_DIR (where the image
# goes; default a new directory under TMPDIR). Not part of make check.
set -u
cd "$(dirname "$0")/.." || exit 1
FSCK=${EXTKIT_FSCK:-./extkit-fsck}
PATH=$PATH:/sbin:/usr/sbin
E2FSCK=${E2FSCK:-$(command -v e2fsck)} || { echo "e2fsck not found" >&2; exit 1; }
MKE2FS=$(command -v mke2fs) || { echo "mke2fs not found" >&2; exit 1; }
DEBUGFS=$(command -v debugfs) || { echo "debugfs not found" >&2; exit 1; }
TIME=/usr/bin/time
INODES=${INODES:-1048576}
DIRSIZE=${DIRSIZE:-200000}
FILES=${FILES:-50000}
[ -x "$FSCK" ] || { echo "$FSCK not built" >&2; exit 1; }
[ -x "$TIME" ] || { echo "GNU time ($TIME) not found" >&2; exit 1; }
dir=${BENCH_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/extkit-bench.XXXXXX")} || exit 1
trap 'rm -rf "$dir/tree" "$dir/bench.img" "$dir/time.out" "$dir"/*.log; [ -n "${BENCH_DIR:-}" ] || rmdir "$dir"' EXIT
export SOURCE_DATE_EPOCH=1700000000 E2FSPROGS_FAKE_TIME=1700000000
export E2FSCK_CONFIG=/dev/null
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}

# The tree: t/NNN/ with FILES small files and big/ with its first 2000
# entries, made by mke2fs -d; e2fsck -fD indexes big/, and debugfs adds
# the other entries (FIFOs) through the index (a linear directory would
# make mke2fs -d quadratic).
mkdir -p "$dir/tree/big" "$dir/tree/t" || exit 1
awk -v n="$FILES" -v d="$dir/tree/t" 'BEGIN {
	for (i = 0; i < n; i++) {
		if (i % 1000 == 0)
			system("mkdir -p " d "/" int(i / 1000))
		f = d "/" int(i / 1000) "/f" i
		print "file " i > f
		close(f)
	} }'
(cd "$dir/tree/big" && seq -f 'entry-%08g' 1 2000 | xargs touch)
"$MKE2FS" -q -F -t ext2 -b 4096 -N "$INODES" -d "$dir/tree" \
	"$dir/bench.img" 8G >/dev/null 2>&1 || { echo "mke2fs failed" >&2; exit 1; }
"$E2FSCK" -fyD "$dir/bench.img" >/dev/null 2>&1
{ echo "cd big"; seq -f 'mknod entry-%08g p' 2001 "$DIRSIZE"; } |
	"$DEBUGFS" -w "$dir/bench.img" -f - >/dev/null 2>&1
cat "$dir/bench.img" >/dev/null

# measure NAME CMD...: prints "NAME seconds maxrss_kib exit".
measure() {
	_name=$1
	shift
	"$TIME" -f '%e %M %x' -o "$dir/time.out" "$@" >"$dir/$_name.log" 2>&1
	echo "$_name $(tail -1 "$dir/time.out")"
}

e=$(measure e2fsck "$E2FSCK" -fn "$dir/bench.img")
x=$(measure extkit "$FSCK" -fn "$dir/bench.img")
set -- $e
et=$2 em=$3 ex=$4
set -- $x
xt=$2 xm=$3 xx=$4
printf 'image: %s inodes, %s-entry directory, %s files with data\n' \
	"$INODES" "$DIRSIZE" "$FILES"
printf '%-8s %10s %12s %6s\n' tool seconds maxrss_kib exit
printf '%-8s %10s %12s %6s\n' e2fsck "$et" "$em" "$ex"
printf '%-8s %10s %12s %6s\n' extkit "$xt" "$xm" "$xx"
awk -v et="$et" -v xt="$xt" -v em="$em" -v xm="$xm" 'BEGIN {
	printf "ratio    %10.2f %12.2f\n", (et > 0 ? xt / et : 0),
		(em > 0 ? xm / em : 0) }'
