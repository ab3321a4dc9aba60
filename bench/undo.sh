#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The cost of an undo file: a repair of N fixes (default 4,000: N files
# whose inodes are in use but have a deletion time, each an inode
# rewrite; ext2, 4 KiB blocks) timed with and without -z, for extkit-fsck
# and e2fsck on copies of the same damaged image. Prints the medians of
# REPS runs (default 5), the ratio with/without -z of each tool, the
# fsync calls of one extkit -z run (strace, where installed), and checks
# that e2undo (where installed) puts back the damaged image byte for byte.
#   sh bench/undo.sh [N]
# Environment: EXTKIT_FSCK (default ./extkit-fsck; build without
# sanitizers), REPS, BENCH_DIR (default a new directory under /var/tmp).
# Not part of make check.
set -u
cd "$(dirname "$0")/.." || exit 1
FSCK=${EXTKIT_FSCK:-./extkit-fsck}
PATH=$PATH:/sbin:/usr/sbin
N=${1:-4000}
REPS=${REPS:-5}
[ -x "$FSCK" ] || { echo "$FSCK not built" >&2; exit 1; }
for t in mke2fs e2fsck debugfs; do
	command -v $t >/dev/null 2>&1 || { echo "$t not found" >&2; exit 1; }
done
dir=${BENCH_DIR:-$(mktemp -d /var/tmp/undo-bench.XXXXXX)} || exit 1
trap '[ -n "${BENCH_DIR:-}" ] || rm -rf "$dir"' EXIT
export E2FSPROGS_FAKE_TIME=1700000000 MKE2FS_CONFIG=/etc/mke2fs.conf

# The damaged image: N files, then dtime set on each of their inodes.
rm -rf "$dir/src" && mkdir -p "$dir/src" || exit 1
i=0
while [ $i -lt "$N" ]; do
	echo $i >"$dir/src/f$i"
	i=$((i + 1))
done
mke2fs -q -F -t ext2 -b 4096 -N $((N + 64)) -d "$dir/src" \
	"$dir/damaged.img" $((N / 16 + 64))M >/dev/null 2>&1 ||
	{ echo "mke2fs failed" >&2; exit 1; }
i=0
while [ $i -lt "$N" ]; do
	echo "sif /f$i dtime 1"
	i=$((i + 1))
done | debugfs -w -f - "$dir/damaged.img" >/dev/null 2>&1
fixes=$("$FSCK" -fn "$dir/damaged.img" 2>/dev/null | grep -c 'has dtime set')

# run TOOL [-z]: wall seconds of one -fy repair of a fresh copy.
run() {
	cp "$dir/damaged.img" "$dir/a.img"
	rm -f "$dir/a.undo"
	case $1 in
	extkit) set -- "$FSCK" ${2:+-z "$dir/a.undo"} ;;
	e2fsck) set -- e2fsck ${2:+-z "$dir/a.undo"} ;;
	esac
	sync
	_t0=$(date +%s.%N)
	"$@" -fy "$dir/a.img" >/dev/null 2>&1
	_rc=$?
	_t1=$(date +%s.%N)
	[ $_rc -lt 4 ] || echo "warning: $* exited $_rc" >&2
	echo "$_t1 - $_t0" | bc
}

median() {
	sort -n | sed -n "$(((REPS + 1) / 2))p"
}

echo "repair of $fixes fixes (inodes in use with dtime set), ext2 4 KiB," \
	"median of $REPS runs"
printf '%-8s %10s %10s %8s\n' tool "plain s" "-z s" ratio
for tool in extkit e2fsck; do
	plain=$(for r in $(seq 1 "$REPS"); do run $tool; done | median)
	undo=$(for r in $(seq 1 "$REPS"); do run $tool z; done | median)
	printf '%-8s %10.3f %10.3f %8.2f\n' $tool "$plain" "$undo" \
		"$(echo "$undo / $plain" | bc -l)"
done
if command -v strace >/dev/null 2>&1; then
	cp "$dir/damaged.img" "$dir/a.img"
	rm -f "$dir/a.undo"
	strace -f -c -o "$dir/strace" "$FSCK" -z "$dir/a.undo" -fy \
		"$dir/a.img" >/dev/null 2>&1
	echo "extkit -z: $(awk '$NF == "fsync" || $NF == "fdatasync" \
		{ n += $4 } END { print n + 0 }' "$dir/strace") fsync calls"
fi
if command -v e2undo >/dev/null 2>&1; then
	cp "$dir/damaged.img" "$dir/a.img"
	rm -f "$dir/a.undo"
	"$FSCK" -z "$dir/a.undo" -fy "$dir/a.img" >/dev/null 2>&1
	e2undo "$dir/a.undo" "$dir/a.img" >/dev/null 2>&1 &&
		cmp -s "$dir/a.img" "$dir/damaged.img" &&
		echo "e2undo: the damaged image is back, byte for byte" ||
		echo "e2undo: the image differs from the damaged one"
fi
