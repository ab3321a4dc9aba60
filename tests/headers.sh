# SPDX-License-Identifier: GPL-2.0-or-later
# Every header compiles on its own (after config.h, as every .c includes
# it first), and twice in a row (its include guard works). Covers lib/*.h,
# lib/cli/*.h and the tools' private headers.

. "${top_srcdir:-.}/tests/lib.sh"

CC=${CC:-cc}
command -v "$CC" >/dev/null 2>&1 || skip "no C compiler ($CC)"
config=$top_builddir/config.h
[ -f "$config" ] || { echo "ERROR: $config missing (run configure)"; exit 99; }

for h in "$top_srcdir"/lib/*.h "$top_srcdir"/lib/cli/*.h \
	 "$top_srcdir"/dump/*.h "$top_srcdir"/mkfs/*.h \
	 "$top_srcdir"/fsck/*.h; do
	[ -f "$h" ] || continue
	rel=${h#"$top_srcdir"/}
	dir=$(dirname "$h")
	printf '#include "%s"\n#include "%s"\n' "$h" "$h" >"$tmpdir/t.c"
	if "$CC" -std=gnu11 -fsyntax-only -Wall -Wextra -Wno-unused-parameter \
		-Werror=implicit-function-declaration -include "$config" \
		-I"$top_srcdir/lib" -I"$dir" "$tmpdir/t.c" >"$tmpdir/log" 2>&1
	then
		ok "$rel compiles alone and twice"
	else
		fail "$rel does not compile on its own:"
		sed 's/^/    /' "$tmpdir/log" | head -20
	fi
done
finish
