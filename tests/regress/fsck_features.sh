#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Unknown feature bits stop every write (issue 31, repro 9): each bit of
# the compat, incompat and ro_compat words that e2fsprogs does not support
# is set (debugfs) on a small populated ext4 image, and extkit-fsck under
# -fn, -fy and -p (no -f, as at boot) must refuse as e2fsck 1.47 does:
# "IMAGE has unsupported feature(s): NAME" on stderr, nothing written, and
# e2fsck's exit code: 8, or 12 when e2fsck opened the filesystem before it
# refused (no unknown incompat bit, and no unknown ro_compat bit or -n).
# Where the installed e2fsck is 1.47, its exit code is compared too.
. "${top_srcdir:-.}/tests/regress/env.sh"
cd "$tmpdir" || exit 99
. "$REGRESS_DIR/helpers.sh"

# The bits e2fsprogs 1.47 supports (lib/ext2fs/ext2fs.h *_SUPP).
COMPAT_SUPP=$((0x1e3f))
INCOMPAT_SUPP=$((0x3e7de))
RO_SUPP=$((0x1f77b))

e2_147=
$E2FSCK -V 2>&1 | grep -q '^e2fsck 1\.47' && e2_147=1

mkimg4 1024 8M
populate
cp image base.img

# expected WORD MODE: the exit status e2fsck gives.
expected() {
	case $1 in
	I) echo 8 ;;
	R) if [ "$2" = -fn ]; then echo 12; else echo 8; fi ;;
	C) echo 12 ;;
	esac
}

# one_bit WORD BIT: the three runs on the image with that bit set.
one_bit() {
	_name=FEATURE_$1$2
	cp base.img image
	dbg "feature $_name"
	case $1 in C) _off=1116 ;; I) _off=1120 ;; R) _off=1124 ;; esac
	_word=$(od -An -tu4 -j "$_off" -N4 image | tr -d ' ')
	if [ $(((_word >> $2) & 1)) -ne 1 ]; then
		fail "$_name: debugfs did not set it"
		return
	fi
	_bad=
	for _m in -fn -fy -p; do
		_sum=$(sha256sum image)
		_rc=$(fsck_rc out $_m image)
		_want=$(expected "$1" "$_m")
		if sanitizer_report out; then
			_bad="$_bad $_m: sanitizer report;"
		elif [ "$_rc" -ne "$_want" ]; then
			_bad="$_bad $_m: exit $_rc, e2fsck's is $_want;"
		elif [ "$(sha256sum image)" != "$_sum" ]; then
			_bad="$_bad $_m: the image was written;"
		elif ! grep -q "^image has unsupported feature(s):.* " out ||
		    grep -q '^Pass 1' out; then
			_bad="$_bad $_m: not refused by name;"
		fi
		if [ -n "$e2_147" ]; then
			cp image e2.img
			timeout -k 5 "$TIMEOUT" "$E2FSCK" $_m e2.img \
				>/dev/null 2>&1 </dev/null
			_e2=$?
			[ "$_e2" -eq "$_rc" ] ||
				_bad="$_bad $_m: e2fsck exits $_e2, extkit $_rc;"
		fi
	done
	if [ -n "$_bad" ]; then
		fail "$_name:$_bad"
		sed 's/^/    /' out | head -5
	fi
	n_bits=$((n_bits + 1))
}

for word in C I R; do
	case $word in
	C) supp=$COMPAT_SUPP ;;
	I) supp=$INCOMPAT_SUPP ;;
	R) supp=$RO_SUPP ;;
	esac
	n_bits=0
	before=$failures
	b=0
	while [ "$b" -lt 32 ]; do
		[ $(((supp >> b) & 1)) -eq 1 ] || one_bit "$word" "$b"
		b=$((b + 1))
	done
	[ "$failures" -eq "$before" ] &&
		ok "$word: $n_bits unknown bits refused under -fn, -fy, -p, nothing written"
done

# The names e2fsprogs gives: a known but unsupported bit by its name.
cp base.img image
dbg "feature FEATURE_C6" "feature FEATURE_I12" "feature FEATURE_R11"
fsck_rc out -fn image >/dev/null
if grep -q '^image has unsupported feature(s): lazy_bg dirdata replica$' out
then
	ok "unsupported bits listed by e2fsprogs' names, every word"
else
	fail "names of unsupported bits:"
	sed 's/^/    /' out | head -5
fi

# ext2 without checksums: the primary read raw is refused the same way.
mkimg 1024 8M
populate
for f in FEATURE_C20 FEATURE_I20 FEATURE_R20; do
	cp image ext2.img
	$DEBUGFS -w -R "feature $f" ext2.img >/dev/null 2>&1
	sum=$(sha256sum ext2.img)
	rc=$(fsck_rc out -fy ext2.img)
	want=8
	[ "$f" = FEATURE_C20 ] && want=12
	if [ "$rc" -eq "$want" ] && [ "$(sha256sum ext2.img)" = "$sum" ] &&
	   grep -q "unsupported feature(s): $f" out; then
		ok "ext2 $f: refused with $rc, nothing written"
	else
		fail "ext2 $f: exit $rc"
	fi
done

# A known bit set alone is checked as usual.
cp base.img image
rc=$(fsck_rc out -fn image)
[ "$rc" -eq 0 ] && ok "supported features: checked" ||
	fail "the base image: exit $rc"
finish
