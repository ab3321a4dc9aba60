# SPDX-License-Identifier: GPL-2.0-or-later
# Casefolded directories (issue 13): extkit folds names as the kernel's
# utf8-12.1 does, checked against e2fsprogs (whose tables are the
# kernel's):
#  - hashes: a slice of casefold_oracle.py (every 4999th code point and
#    the edges of the 12.1 tables, as 'X'+cp+'y') against debugfs
#    dx_hash -c; the whole run is `casefold_oracle.py . 1` (~2 min);
#  - a linear casefolded directory of 420 names indexed by
#    extkit-fsck -fyD: e2fsck -fn clean (it checks every hash folded),
#    debugfs finds the index, a second extkit-fsck -fn clean;
#  - extkit-dump stat finds names by another case (HELLO_3 for Hello_3,
#    STRASSE for Straße) in the casefolded directory, and not in a plain
#    one; a code point assigned after 12.1 does not fold (Ⱟ is not ⱟ).
# The kernel here may lack CONFIG_UNICODE: no mount is tried.

. "${top_srcdir:-.}/tests/lib.sh"
need_tools mke2fs debugfs e2fsck python3
FSCK=$top_builddir/extkit-fsck
DUMP=$top_builddir/extkit-dump
REGRESS_DIR=$top_srcdir/tests/regress
MKE2FS_CONFIG=$REGRESS_DIR/mke2fs.conf
export MKE2FS DEBUGFS E2FSCK REGRESS_DIR MKE2FS_CONFIG
[ -x "$top_builddir/tests/interop/cfhash" ] ||
	skip "tests/interop/cfhash not built (make tests/interop/cfhash)"

python3 "$top_srcdir/tests/interop/casefold_oracle.py" "$top_builddir" 4999 \
	>"$tmpdir/oracle.log" 2>&1
case $? in
0) ok "hashes: $(tail -n 1 "$tmpdir/oracle.log")" ;;
77) skip "casefold_oracle.py: $(cat "$tmpdir/oracle.log")" ;;
*) fail "hashes differ from debugfs dx_hash -c"
   head -20 "$tmpdir/oracle.log" | sed 's/^/    /' ;;
esac

cd "$tmpdir" || exit 99
(. "$REGRESS_DIR/helpers.sh" && . "$REGRESS_DIR/feature_helpers.sh" &&
 mkimg4 1024 8M -O casefold && cf_dir 25 linear &&
 dbg "mkdir plain" "write /dev/null plain/Hello") >build.log 2>&1 ||
	fail "building the image"

"$FSCK" -fyD image >fsck.log 2>&1
rc=$?
if [ "$rc" != 0 ] && [ "$rc" != 1 ]; then
	fail "extkit-fsck -fyD exit $rc"
	sed 's/^/    /' fsck.log | head -10
elif ! "$DEBUGFS" -R "htree cf" image 2>/dev/null | grep -q '^Root node dump'; then
	fail "extkit-fsck -fyD: /cf has no index"
elif ! "$E2FSCK" -fn image >e2.log 2>&1; then
	fail "extkit-fsck -fyD: e2fsck -fn finds errors"
	sed 's/^/    /' e2.log | head -10
elif ! "$FSCK" -fn image >fsck2.log 2>&1; then
	fail "extkit-fsck -fyD: a second extkit-fsck -fn finds errors"
else
	ok "extkit-fsck -fyD indexes the casefolded directory, e2fsck -fn clean"
fi

# lookup PATH EXPECTED: stat PATH finds the inode of EXPECTED (debugfs,
# by its exact name), or nothing when EXPECTED is "-"
lookup() {
	got=$("$DUMP" image stat "$1" 2>/dev/null | sed -n 's/^Inode: *//p')
	if [ "$2" = - ]; then
		want=
	else
		want=$("$DEBUGFS" -R "stat \"$2\"" image 2>/dev/null |
			sed -n 's/^Inode: \([0-9]*\).*/\1/p')
		[ -n "$want" ] || { fail "debugfs does not find $2"; return; }
	fi
	if [ "$got" = "$want" ]; then
		ok "lookup $1: ${want:-not found}"
	else
		fail "lookup $1: inode '$got', expected '${want:-none}'"
	fi
}
lookup /cf/HELLO_3 /cf/Hello_3
lookup /cf/hello_3 /cf/Hello_3
lookup /cf/STRASSE_5 /cf/Straße_5
lookup /cf/école_7 /cf/ÉCOLE_7
lookup /cf/σίσυφοσ_2 /cf/ΣΊΣΥΦΟΣ_2
lookup /cf/FILE_1 /cf/ﬁle_1
lookup /cf/ab_4 /cf/a‍b_4
lookup /cf/ⱟNEW_1 -
lookup /cf/ⰯNEW_1 /cf/Ⱟnew_1
lookup /plain/HELLO -
finish
