#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Runs the README's tour, command by command as a user pastes it, in a
# scratch directory, and checks what it must show: fsck -n finds the
# damage and writes nothing, -y repairs it into lost+found, and the
# fragmentation report has blocks to reclaim before -D and none after.
. "${top_srcdir:-.}/tests/lib.sh"
need_tools debugfs e2fsck
readme=$top_srcdir/README.md

# The first ```sh block after the tour's heading.
sed -n '/^## A five-minute tour/,/^## /p' "$readme" |
	sed -n '/^```sh$/,/^```$/p' | sed '1d;$d' >"$tmpdir/tour.sh"
[ -s "$tmpdir/tour.sh" ] || { fail "no tour in README.md"; finish; }
cp "$readme" "$tmpdir/README.md"
# The tour puts $PWD (the build tree) first in PATH.
sed -i "s|^PATH=\$PWD:\$PATH|PATH=$top_builddir:/sbin:/usr/sbin:\$PATH|" \
	"$tmpdir/tour.sh"
sed -i 's|^rm -f tour.img cmds|cp tour.img after.img; &|' "$tmpdir/tour.sh"
(cd "$tmpdir" && sh -x ./tour.sh) >"$tmpdir/out" 2>"$tmpdir/err"
rc=$?
[ $rc -eq 0 ] && ok "tour ran to the end" ||
	{ fail "tour exit $rc"; tail -20 "$tmpdir/err"; }
out=$tmpdir/out

grep -qx tour "$out" && ok "label printed" || fail "label"
grep -q ' readme$' "$out" && ok "ls shows /docs/readme" || fail "ls /docs"
# exit statuses of the damaged check, the repair, the clean-up, the -D run
sed -n 's/^exit status //p' "$out" | tr '\n' ' ' >"$tmpdir/codes"
case "$(cat "$tmpdir/codes")" in
"4 1 0 0 ") ok "exit statuses: -fn 4, -fy 1, -fn 0, -fyD 0 (optimizing alone is no fix, as e2fsck)" ;;
*) fail "exit statuses: $(cat "$tmpdir/codes")" ;;
esac
grep -q '^[0-9][0-9]* #[0-9][0-9]*$' "$out" &&
	ok "reconnected file listed in /lost+found" ||
	fail "lost+found listing: $(cat "$out" | tail -5)"
# frag before and after -D: reclaimable blocks > 0, then 0
sed -n 's/^ *[Rr]eclaimable[^0-9]*\([0-9][0-9]*\).*/\1/p' "$out" \
	>"$tmpdir/recl"
first=$(sed -n 1p "$tmpdir/recl")
last=$(sed -n 2p "$tmpdir/recl")
[ -n "$first" ] && [ "$first" -gt 0 ] && [ "$last" = 0 ] &&
	ok "frag: $first reclaimable blocks before -D, 0 after" ||
	fail "frag reclaimable before/after: '$first' '$last'"
"$E2FSCK" -fn "$tmpdir/after.img" >/dev/null 2>&1 &&
	ok "e2fsck -fn clean after the tour" || fail "e2fsck after the tour"

# Every option a tool's --help lists is in its README synopsis (the
# ```text block under "## TOOL"), by its short or its long name.
for tool in extkit-mkfs extkit-fsck extkit-dump extkit-label; do
	bin=$top_builddir/$tool
	[ -x "$bin" ] || continue
	sed -n "/^## $tool\$/,/^## /p" "$readme" |
		sed -n '/^```text$/,/^```$/p' >"$tmpdir/synopsis"
	missing=$("$bin" --help 2>&1 | sed '/^Help options:/,$d' |
		grep -E '^ +-' | while read -r first second _; do
			short=; long=
			case $first in
			--*) long=${first%%[=[]*} ;;
			-?,) short=${first%,}; long=${second%%[=[]*} ;;
			-?) short=$first ;;
			esac
			if { [ -n "$short" ] && grep -q -- "$short\b" \
				"$tmpdir/synopsis"; } ||
			   { [ -n "$long" ] && grep -q -- "$long" \
				"$tmpdir/synopsis"; }; then
				continue
			fi
			printf '%s ' "$short${long:+ $long}"
		done)
	[ -z "$missing" ] && ok "$tool: README synopsis lists every option" ||
		fail "$tool: README synopsis lacks: $missing"
done
finish
