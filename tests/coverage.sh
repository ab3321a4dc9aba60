#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# fsck/COVERAGE.md stays true: fsck/coverage/map.txt maps every e2fsck
# problem code once, names only extkit codes that exist in fsck/problem.h
# and f_ cases that exist under tests/regress/, and COVERAGE.md is what
# fsck/coverage/gen.py makes of it.
. "${top_srcdir:-.}/tests/lib.sh"

command -v python3 >/dev/null 2>&1 || { echo "SKIP: no python3"; exit 77; }
if python3 "$top_srcdir/fsck/coverage/gen.py" "$top_srcdir" --check \
	>"$tmpdir/faults" 2>&1; then
	ok "map.txt: every code mapped once, every name exists"
else
	fail "map.txt names what does not exist:"
	sed 's/^/    /' "$tmpdir/faults"
fi
python3 "$top_srcdir/fsck/coverage/gen.py" "$top_srcdir" >"$tmpdir/cov.md"
if cmp -s "$tmpdir/cov.md" "$top_srcdir/fsck/COVERAGE.md"; then
	ok "fsck/COVERAGE.md is up to date"
else
	fail "fsck/COVERAGE.md is stale: run python3 fsck/coverage/gen.py . >fsck/COVERAGE.md"
	diff "$top_srcdir/fsck/COVERAGE.md" "$tmpdir/cov.md" | head -10
fi
finish
