# SPDX-License-Identifier: GPL-2.0-or-later
# extkit-dump extract and extract --tar over the damaged images the fsck
# cases build (tests/regress/f_*/script): a seeded slice of them (every
# EXTRACT_REGRESS_STEP-th case, default 8; 1 for all). On each: nothing
# appears outside DEST (a listing around it before and after), no
# sanitizer report, no hang, exit 0, 1 or 2. Prints how many came out
# whole and how many partial.

. "${top_srcdir:-.}/tests/lib.sh"
need_dump
need_tools mke2fs debugfs
. "$top_srcdir/tests/regress/env.sh"
REGRESS_DIR=$top_srcdir/tests/regress
STEP=${EXTRACT_REGRESS_STEP:-8}

n=0 built=0 whole=0 partial=0 refused=0 bad=0 i=0
for c in "$REGRESS_DIR"/f_*/; do
	c=${c%/}
	i=$((i + 1))
	[ $((i % STEP)) = 0 ] || continue
	n=$((n + 1))
	w=$tmpdir/w
	chmod -R u+rwx "$w" 2>/dev/null
	rm -rf "$w" && mkdir -p "$w/box" "$tmpdir/s" && cd "$w" || exit 99
	if ! (. "$REGRESS_DIR/helpers.sh" && . "$c/script") \
		>"$tmpdir/s/log" 2>&1 || [ ! -f image ]; then
		cd "$tmpdir" || exit 99
		continue
	fi
	built=$((built + 1))
	find "$w" -path "$w/box/d" -prune -o -print | sort >"$tmpdir/s/before"
	timeout -k 5 30 "$DUMP" image extract box/d >/dev/null \
		2>"$tmpdir/s/err"
	rc=$?
	timeout -k 5 30 "$DUMP" image extract --tar "$tmpdir/s/t.tar" \
		>/dev/null 2>>"$tmpdir/s/err"
	rc2=$?
	find "$w" -path "$w/box/d" -prune -o -print | sort >"$tmpdir/s/after"
	case $rc in
	0) whole=$((whole + 1)) ;;
	1) refused=$((refused + 1)) ;;
	2) partial=$((partial + 1)) ;;
	esac
	if ! cmp -s "$tmpdir/s/before" "$tmpdir/s/after" ||
	   sanitizer_report "$tmpdir/s/err" || [ $rc -gt 2 ] ||
	   [ $rc2 -gt 2 ]; then
		bad=$((bad + 1))
		echo "$(basename "$c"): exit $rc, --tar $rc2"
		diff "$tmpdir/s/before" "$tmpdir/s/after" | head -3
		grep -m3 -e Sanitizer -e 'runtime error' "$tmpdir/s/err"
	fi
	cd "$tmpdir" || exit 99
done
if [ $bad = 0 ] && [ $built -gt 0 ]; then
	ok "$built damaged images of $n cases: no escape, crash or hang ($whole whole, $partial partial, $refused refused)"
else
	fail "$bad of $built damaged images"
fi
finish
