#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Compaction of a 200k-entry directory of which 90% were deleted in a
# scattered pattern (every entry but one in ten, removed through the
# library, each record merged into the one before it): extkit-dump frag
# before, extkit-fsck -fyD against e2fsck -fyD on a copy (time and
# directory size after each), frag after, e2fsck -fn on extkit's result.
# Runs with and without dir_index (the 200k names are linked through the
# library's hinted insertion). ext4 without metadata_csum (extkit does
# not yet rewrite checksummed directories).
# usage: bench/compact.sh [ENTRIES]
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
bin=$top/bench/dirbench
n=${1:-200000}
[ -x "$bin" ] || { echo "build first: make bench/dirbench" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/tree/d"
# 41 files (prime to the deletion stride); the other names are hard links to them, added through the
# library (mke2fs -d links names one by one with a linear scan each: far
# too slow for 200k), so deleting names frees no inode
for i in $(seq 0 40); do : >"$tmp/tree/d/$(printf 'n%06d_abcd' "$i")"; done

size_of() {
	debugfs -R "stat /d" "$1" 2>/dev/null |
		sed -n 's/.*Size: \([0-9]*\)$/\1/p' | head -1
}

secs() {
	_t0=$(date +%s.%N)
	"$@" >/dev/null 2>&1 || true
	echo "$(date +%s.%N) - $_t0" | bc
}

frag_line() {
	"$top/extkit-dump" --json "$1" frag /d | python3 -c "
import json, sys
f = json.load(sys.stdin)
print('blocks %d  entries %d  free %d  holes %d  needed %d  reclaimable %d  frag %.4f' % (
    f['blocks'], f['entries'], f['free_bytes'], f['holes'],
    f['blocks_needed'], f['reclaimable_blocks'], f['small_hole_share']))"
}

for feat in dir_index ^dir_index; do
	mke2fs -q -F -t ext4 -b 4096 -O "^metadata_csum,$feat" -N 65536 \
		-d "$tmp/tree" "$tmp/img" 256M >/dev/null 2>&1
	"$bin" fill "$tmp/img" /d $((n - 41))
	"$bin" thin "$tmp/img" /d 10 >/dev/null
	cp "$tmp/img" "$tmp/e2.img"
	echo "== $n entries, 90% deleted, -O $feat =="
	echo "frag before:          $(frag_line "$tmp/img")"
	te=$(secs "$top/extkit-fsck" -fyD "$tmp/img")
	t2=$(secs e2fsck -fyD "$tmp/e2.img")
	bs=4096
	printf '%-22s %8s %10s\n' "" seconds "dir blocks"
	printf '%-22s %8.3f %10d\n' "extkit-fsck -fyD" "$te" \
		$(($(size_of "$tmp/img") / bs))
	printf '%-22s %8.3f %10d\n' "e2fsck -fyD" "$t2" \
		$(($(size_of "$tmp/e2.img") / bs))
	echo "frag after extkit:    $(frag_line "$tmp/img")"
	e2fsck -fn "$tmp/img" >/dev/null 2>&1 &&
		echo "e2fsck -fn after extkit-fsck -fyD: clean" ||
		echo "e2fsck -fn after extkit-fsck -fyD: ERRORS"
done
