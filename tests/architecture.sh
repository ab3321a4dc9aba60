#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# doc/ARCHITECTURE.md stays true: every source file under lib/, fsck/,
# mkfs/, dump/, label/, tests/ and bench/ (code, scripts, data the tests
# read; not the f_/m_/d_/l_ case folders, not build outputs) has its line
# under its folder's heading, and every file the map lists exists.

. "${top_srcdir:-.}/tests/lib.sh"

map=$top_srcdir/doc/ARCHITECTURE.md
[ -f "$map" ] || { fail "doc/ARCHITECTURE.md is missing"; finish; }

# The map's entries as DIR/NAME: "### DIR/" headings, "- `NAME` — ..." lines.
awk '/^### /{ dir = $2; next }
     /^- `[^`]+` / { n = $0; sub(/^- `/, "", n); sub(/`.*/, "", n);
		     print dir n }' "$map" | sort >"$tmpdir/listed"
(cd "$top_srcdir" && find lib fsck mkfs dump label tests bench \
	\( -path 'tests/regress/f_*' -o -path 'tests/regress/[mdl]_*' \
	   -o -path 'tests/regress/slow/*' -o -name .deps -o -name .libs \) \
	-prune -o -type f \( -name '*.c' -o -name '*.h' -o -name '*.py' \
	-o -name '*.sh' -o -name '*.txt' -o -name '*.conf' -o -name '*.md' \) \
	-print) | sort >"$tmpdir/present"

[ -s "$tmpdir/listed" ] || fail "no file entries found in doc/ARCHITECTURE.md"
comm -23 "$tmpdir/present" "$tmpdir/listed" >"$tmpdir/missing"
comm -13 "$tmpdir/present" "$tmpdir/listed" >"$tmpdir/stale"
if [ -s "$tmpdir/missing" ]; then
	fail "files missing from doc/ARCHITECTURE.md:"
	sed 's/^/    /' "$tmpdir/missing"
else
	ok "every source file ($(wc -l <"$tmpdir/present")) is on the map"
fi
if [ -s "$tmpdir/stale" ]; then
	fail "doc/ARCHITECTURE.md lists files that do not exist:"
	sed 's/^/    /' "$tmpdir/stale"
else
	ok "every file on the map exists"
fi
finish
