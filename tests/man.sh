#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Every option in a tool's --help (its popt table) appears in its man page,
# and every option the man page's OPTIONS section lists is in --help.
# The pages render without groff warnings.
. "${top_srcdir:-.}/tests/lib.sh"

# Options in --help: long names, and short letters at a line's start
# (popt prints "  -x, --long" or "  -x ARG").
help_opts() {
	"$1" --help 2>&1 | grep -o -e '--[a-z][a-z0-9-]*' | sort -u
	"$1" --help 2>&1 | sed -n 's/^  *-\([A-Za-z?]\)[, =].*/-\1/p;
		s/^  *-\([A-Za-z?]\)$/-\1/p' | sort -u
}

# Options in the OPTIONS section, as written in roff (\-\-name, \-x) at the
# start of a .B/.BR/.BI tag line.
man_opts() {
	sed -n '/^\.SH OPTIONS/,/^\.SH /p' "$1" |
		grep -o -e '\\-\\-[a-z][a-z0-9-]*' | sed 's/\\//g' | sort -u
	sed -n '/^\.SH OPTIONS/,/^\.SH /p' "$1" | grep -E '^\.B[RI]? ' |
		grep -o -E '(^|[ "])\\-[A-Za-z?]([^A-Za-z-]|$)' |
		sed -E 's/^[ "]?\\(-.).*/\1/' | sort -u
}

tested=0
for tool in extkit-dump extkit-label extkit-mkfs extkit-fsck; do
	bin=$top_builddir/$tool
	page=$top_srcdir/man/$tool.8
	[ -x "$bin" ] || continue
	if [ ! -f "$page" ]; then
		fail "$tool: no man page"
		continue
	fi
	tested=$((tested + 1))
	help_opts "$bin" >"$tmpdir/help"
	man_opts "$page" >"$tmpdir/man"
	if diff -u "$tmpdir/help" "$tmpdir/man" >"$tmpdir/diff"; then
		ok "$tool: $(wc -l <"$tmpdir/help") options in --help and man page agree"
	else
		fail "$tool: --help (-) and man page (+) differ"
		sed 's/^/    /' "$tmpdir/diff"
	fi
	if command -v groff >/dev/null 2>&1; then
		warn=$(groff -man -ww -z "$page" 2>&1)
		[ -z "$warn" ] && ok "$tool: groff -ww renders cleanly" ||
			fail "$tool: groff warnings: $warn"
	fi
	for sec in NAME SYNOPSIS DESCRIPTION OPTIONS "EXIT STATUS" ENVIRONMENT \
		   EXAMPLES "SEE ALSO"; do
		grep -q "^\.SH \"*$sec\"*\$" "$page" ||
			fail "$tool: man page lacks section $sec"
	done
done
[ "$tested" -gt 0 ] || fail "no tool tested"
finish
