#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The architecture figures of a built tree (issue 32's "before and after"):
# the circles between files (tests/callgraph.py over the object files),
# the on-disk byte parsing left in the tools (get_le/put_le calls and raw
# offsets such as "raw + 26" under fsck/, mkfs/, dump/, label/), and the
# `duplicates` pairs per folder when that tool is installed.
# usage: tests/arch_figures.sh [SRCDIR [BUILDDIR]]  (not part of make check)
src=${1:-.}
build=${2:-$src}
here=$(cd "$(dirname "$0")" && pwd)

echo "## Circles between files (calls each way, from nm of the objects)"
python3 "$here/callgraph.py" --builddir "$build" | sed 's/^/    /'

echo
echo "## On-disk bytes parsed in the tools"
for d in fsck mkfs dump label; do
	(cd "$src" && grep -oE '\b(get|put)_le(16|32|64)\(' $d/*.c $d/*.h \
		2>/dev/null) >/tmp/arch_fig.$$
	n=$(wc -l </tmp/arch_fig.$$)
	f=$(cut -d: -f1 /tmp/arch_fig.$$ | sort -u | wc -l)
	r=$(cd "$src" && grep -oE '\braw[a-z_]*\s*\+\s*(0x[0-9a-f]+|[0-9]+)\b' \
		$d/*.c $d/*.h 2>/dev/null | wc -l)
	echo "    $d/: $n get_le/put_le calls in $f files, $r raw offsets"
done
rm -f /tmp/arch_fig.$$

if command -v duplicates >/dev/null 2>&1; then
	echo
	echo "## duplicates pairs per folder"
	for d in lib fsck mkfs dump label tests; do
		echo "    $d/: $(duplicates --repo "$src/$d" --seconds 120 | head -1)"
	done
fi
