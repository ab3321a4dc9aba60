#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Adds 5 batches of 1,000 entries to one directory, through the free-entry
# map's hints and through a first-fit walk from block 0 (the library's
# EXTKIT_DIRSPACE_WALK switch), and prints the time per batch. The walk's
# batches get slower as the directory grows; the hinted ones do not. Both
# must leave byte-identical images (same first-fit placement). The names
# all point at one inode: this measures directory placement only.
# usage: bench/batches.sh [BATCHES [PER [BLOCKSIZE]]]
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
bin=$top/bench/dirbench
nb=${1:-5}
per=${2:-1000}
bs=${3:-1024}
[ -x "$bin" ] || { echo "build first: make bench/dirbench" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/tree/d"
mke2fs -q -F -t ext2 -b "$bs" -O ^dir_index -d "$tmp/tree" "$tmp/img" 64M \
	>/dev/null 2>&1
cp "$tmp/img" "$tmp/walk.img"
"$bin" batches "$tmp/img" /d "$nb" "$per" >"$tmp/hint"
"$bin" batches "$tmp/walk.img" /d "$nb" "$per" walk >"$tmp/walk"
cmp -s "$tmp/img" "$tmp/walk.img" ||
	echo "warning: hinted and walked directories differ"
echo "batches of $per entries into one directory ($bs-byte blocks)"
printf '%-6s %12s %12s %14s %14s\n' batch "hinted s" "walk s" \
	"hinted reads" "walk reads"
join "$tmp/hint" "$tmp/walk" |
	awk '{ printf "%-6s %12.4f %12.4f %14d %14d\n", $1, $3, $6, $4, $7 }'
awk 'NR == 1 { f = $3 } { l = $3 } END {
	printf "hinted: last/first batch time = %.2f\n", l / f }' "$tmp/hint"
awk 'NR == 1 { f = $3 } { l = $3 } END {
	printf "walk:   last/first batch time = %.2f\n", l / f }' "$tmp/walk"
