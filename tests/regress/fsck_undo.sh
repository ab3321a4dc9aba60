#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# extkit-fsck -z UNDOFILE: the stock e2undo restores the image byte for
# byte after a repair (1, 4 and 64 KiB blocks, several kinds of damage,
# -D rewriting directories, a run that changes nothing), and e2fsck -fn
# finds the repaired image clean. Bad inputs: an undo file in a missing
# directory or one that already holds data is refused with exit 8 before
# a byte of the image is written; -n writes no undo file. extkit-mkfs -z
# over an old filesystem: e2undo gives it back byte for byte.
# UNDO_ALL_CASES=1 also repairs every f_ case through -z and replays it
# (about two minutes, so not by default).
. "${top_srcdir:-.}/tests/regress/env.sh"
need_tools e2undo
cd "$tmpdir" || exit 99
. "$REGRESS_DIR/helpers.sh"

# undo_case DESC WANT [FSCK OPTIONS]: repairs ./image with -fy -z undo
# (./undo must be missing or empty; exit WANT), checks it clean with
# e2fsck, replays the undo file with e2undo and compares the image with the
# one before the repair.
undo_case() {
	_desc=$1
	_want=$2
	shift 2
	_before=$(sha256sum <image)
	_rc=$(fsck_rc out -fy "$@" -z undo image)
	if sanitizer_report out; then
		fail "$_desc: sanitizer report"
		sed 's/^/    /' out | head -20
		return
	fi
	if [ "$_rc" -ne "$_want" ] || ! grep -q '^    e2undo undo image$' out
	then
		fail "$_desc: extkit-fsck exit $_rc, expected $_want"
		sed 's/^/    /' out | head -20
		return
	fi
	if ! $E2FSCK -fn image >e2out 2>&1; then
		fail "$_desc: e2fsck -fn after the repair"
		sed 's/^/    /' e2out | head -20
		return
	fi
	_after=$(sha256sum <image)
	$E2UNDO -h undo image >hdr 2>&1	# prints the header, exits 1
	if ! timeout -k 5 "$TIMEOUT" $E2UNDO undo image >uout 2>&1 ||
	   [ -s uout ]; then
		fail "$_desc: e2undo failed or complained"
		sed 's/^/    /' uout | head -10
	elif [ "$(sha256sum <image)" != "$_before" ]; then
		fail "$_desc: e2undo did not restore the image"
	elif [ "$_want" -ne 0 ] && [ "$_after" = "$_before" ]; then
		fail "$_desc: the repair changed nothing"
	else
		_keys=$(sed -n 's/^nr keys:[^0-9]*//p' hdr)
		ok "$_desc: exit $_rc, $_keys keys, e2undo restores the image"
	fi
}

# damage: several problems at once on the standard tree.
damage() {
	many d1/m 12
	dbg "set_inode_field d1/file1 links_count 5" "unlink top" \
	    "freeb $(blk d1/d2/big 1) 2" "freei d1/file2"
	dirent "$(blk d1/m)" 40 fill 60
}

for bs in 1024 4096 65536; do
	size=8M
	[ "$bs" -eq 65536 ] && size=64M
	mkimg "$bs" "$size" -O ^dir_index
	populate
	damage
	rm -f undo
	undo_case "-b $bs: dir block, link counts, bitmaps, lost+found" 1
done

# Many saved blocks: with 1 KiB blocks a key block holds 63 keys, and -D
# rewrites every directory, so the undo file needs several key blocks.
mkimg 1024 16M
populate
i=0
while [ "$i" -lt 70 ]; do
	many "d$i" 30
	unlink_many "d$i" 20
	i=$((i + 1))
done
rm -f undo
undo_case "-D over 70 directories (several key blocks)" 1 -D

# A run that finds nothing: the undo file is still valid and replays as
# a no-op (apart from the superblock fsck stamped).
mkimg 4096 16M
populate
rm -f undo
undo_case "clean image" 0

# Without -f a clean filesystem is not checked: nothing written at all.
rm -f undo
sum=$(sha256sum <image)
rc=$(fsck_rc out -y -z undo image)
if [ "$rc" -eq 0 ] && $E2UNDO undo image >uout 2>&1 && [ ! -s uout ] &&
   [ "$(sha256sum <image)" = "$sum" ]; then
	ok "clean without -f: exit 0, e2undo is a no-op"
else
	fail "clean without -f: exit $rc"
	cat out uout
fi

# Bad inputs: nothing is written to the image.
mkimg 1024 8M
populate
dbg "set_inode_field top links_count 7"
sum=$(sha256sum <image)
rc=$(fsck_rc out -fy -z nodir/undo image)
if [ "$rc" -eq 8 ] && [ "$(sha256sum <image)" = "$sum" ] &&
   grep -q '^extkit-fsck: nodir/undo: cannot create the undo file: ' out &&
   [ ! -e nodir/undo ]; then
	ok "undo file in a missing directory: exit 8, image untouched"
else
	fail "undo file in a missing directory: exit $rc"
	cat out
fi
echo "precious" >keep
rc=$(fsck_rc out -fy -z keep image)
if [ "$rc" -eq 8 ] && [ "$(sha256sum <image)" = "$sum" ] &&
   [ "$(cat keep)" = precious ] &&
   grep -q '^extkit-fsck: keep: undo file exists and is not empty' out; then
	ok "existing non-empty undo file: exit 8, file and image untouched"
else
	fail "existing non-empty undo file: exit $rc"
	cat out
fi
rc=$(fsck_rc out -fy -z image image)
if [ "$rc" -eq 8 ] && [ "$(sha256sum <image)" = "$sum" ]; then
	ok "the image as its own undo file: exit 8, untouched"
else
	fail "the image as its own undo file: exit $rc"
fi
rm -f undo
rc=$(fsck_rc out -fn -z undo image)
if [ "$rc" -eq 4 ] && [ ! -e undo ] && [ "$(sha256sum <image)" = "$sum" ]
then
	ok "-n -z: exit 4, no undo file, image untouched"
else
	fail "-n -z: exit $rc"
	cat out
fi
: >undo
undo_case "an existing empty undo file is used" 1

# -p stopping at a problem it may not fix writes the superblock (error
# state) and exits: the undo file is finished first, so e2undo replays.
mkimg 1024 8M
populate
dbg "unlink top"
sum=$(sha256sum <image)
rm -f undo
rc=$(fsck_rc out -pf -z undo image)
if [ "$rc" -eq 4 ] && grep -q 'UNEXPECTED INCONSISTENCY' out &&
   $E2UNDO undo image >uout 2>&1 && [ ! -s uout ] &&
   [ "$(sha256sum <image)" = "$sum" ]; then
	ok "-p halts: exit 4, e2undo restores the image"
else
	fail "-p halts: exit $rc"
	cat out uout
fi

# extkit-mkfs -z: the undo file holds what the new filesystem overwrote
# (an ext2 image with files, formatted again as ext4 with 1 and 4 KiB
# blocks); e2undo gives the old image back byte for byte.
MKFS=$top_builddir/extkit-mkfs
for bs in 1024 4096; do
	mkimg 1024 8M
	populate
	sum=$(sha256sum <image)
	rm -f undo
	timeout -k 5 "$TIMEOUT" "$MKFS" -F -t ext4 -b $bs -z undo image \
		>out 2>&1 </dev/null
	rc=$?
	if [ $rc -ne 0 ] || sanitizer_report out ||
	   ! grep -q '^    e2undo undo image$' out; then
		fail "mkfs -z -b $bs: exit $rc"
		head -20 out
	elif ! $E2FSCK -fn image >e2out 2>&1; then
		fail "mkfs -z -b $bs: e2fsck -fn on the new filesystem"
		head -10 e2out
	elif ! timeout -k 5 "$TIMEOUT" $E2UNDO undo image >uout 2>&1 ||
	     [ -s uout ] || [ "$(sha256sum <image)" != "$sum" ]; then
		fail "mkfs -z -b $bs: e2undo did not restore the image"
		head -5 uout
	else
		ok "mkfs -z -b $bs: e2undo restores the old ext2 image"
	fi
done
echo "precious" >keep
sum=$(sha256sum <image)
"$MKFS" -F -q -z keep image >out 2>&1 </dev/null
rc=$?
if [ $rc -eq 1 ] && [ "$(cat keep)" = precious ] &&
   [ "$(sha256sum <image)" = "$sum" ]; then
	ok "mkfs -z with a non-empty undo file: exit 1, nothing written"
else
	fail "mkfs -z with a non-empty undo file: exit $rc"
	cat out
fi

# all_cases: every f_ case's damage, repaired through -z and replayed.
all_cases() {
	for _c in "$REGRESS_DIR"/f_*/; do
		_n=$(basename "$_c")
		mkdir "$tmpdir/$_n" && cd "$tmpdir/$_n" || exit 99
		if (. "$REGRESS_DIR/helpers.sh" && . "$_c/script") \
			>script.log 2>&1; then
			_sum=$(sha256sum <image)
			_rc=$(fsck_rc out -fy -z undo image)
			if [ "$_rc" -ge 8 ] || sanitizer_report out; then
				fail "$_n: extkit-fsck exit $_rc"
			elif ! $E2UNDO undo image >uout 2>&1 || [ -s uout ] ||
			     [ "$(sha256sum <image)" != "$_sum" ]; then
				fail "$_n: e2undo did not restore the image"
			else
				ok "$_n: exit $_rc, e2undo restores the image"
			fi
		else
			fail "$_n: script failed"
		fi
		cd "$tmpdir" && rm -rf "${tmpdir:?}/$_n"
	done
}
[ -n "$UNDO_ALL_CASES" ] && all_cases
finish
