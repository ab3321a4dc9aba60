#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Directory scan rate: entries per second through the library's iterator
# (rec_len decoding and record validation on every record) in directories
# of 10k-50k entries at 1 KiB, 4 KiB and 64 KiB blocks.
# usage: bench/rec_len.sh [REPS]
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
bin=$top/bench/dirbench
reps=${1:-20}
[ -x "$bin" ] || { echo "build first: make bench/dirbench" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '%-8s %8s %8s %10s %10s %14s\n' block entries blocks records \
	seconds "entries/s"
for n in 10000 30000 50000; do
	rm -rf "$tmp/tree"
	mkdir -p "$tmp/tree/d"
	python3 -c "
import os, sys
for i in range($n):
    open(os.path.join(sys.argv[1], 'entry_%07d_name' % i), 'w').close()
" "$tmp/tree/d"
	for bs in 1024 4096 65536; do
		mke2fs -q -F -t ext2 -b "$bs" -O ^dir_index -N $((n + 64)) \
			-d "$tmp/tree" "$tmp/img" 512M >/dev/null 2>&1
		blocks=$(($(stat -c %s "$tmp/img") * 0 + \
			$(debugfs -R "stat /d" "$tmp/img" 2>/dev/null |
			  sed -n 's/.*Size: \([0-9]*\)$/\1/p' | head -1) / bs))
		set -- $("$bin" scan "$tmp/img" /d "$reps")
		printf '%-8s %8s %8s %10s %10s %14s\n' "$bs" "$1" "$blocks" \
			"$2" "$3" "$4"
	done
done
echo "(each directory scanned $reps times; seconds are the total)"
