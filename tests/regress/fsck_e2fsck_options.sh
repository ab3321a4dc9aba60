#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The fsck command line that wrappers and users rely on, with e2fsck's
# meaning (issue 31, Deliver 6): -C FD writes passes 1-5 only, on an
# image that runs pass 1B; -D that only optimizes exits 0; -n with -D, -c
# or -l/-L exits 8, -c with -l exits 16; -t and -tt print time and
# memory; -F, -d, -k, -j, -E discard/nodiscard are accepted and do what
# e2fsck's do; -l/-L update the bad blocks inode (e2fsck -fn then finds
# the image clean and inode 1 lists the blocks); -c without badblocks is
# refused by name, nothing written.
. "${top_srcdir:-.}/tests/regress/env.sh"
cd "$tmpdir" || exit 99
. "$REGRESS_DIR/helpers.sh"

# -C FD: every line "P CUR MAX image" with P in 1..5, CUR <= MAX.
mkimg 1024 8M
populate
b=$(blk d1/d2/big 2)
dbg "write /dev/null x" "sif x block[0] $b" "sif x size 1024" \
    "sif x blocks 2"
"$FSCK" -fy -C 3 image 3>progress >out 2>&1
if ! grep -q 'Clone\|claimed' out; then
	fail "-C: the image does not run pass 1B"
	sed 's/^/    /' out | head -5
elif awk '!/^[1-5] [0-9]+ [0-9]+ image$/ || $2 > $3 { bad = 1 }
	  { if ($1 < last) bad = 1; last = $1 }
	  END { exit bad || last != 5 }' progress; then
	ok "-C FD: passes 1-5 only, in order, with pass 1B run"
else
	fail "-C FD lines"
	sed 's/^/    /' progress | head -10
fi

# Blocks claimed twice, reported as e2fsck's passes 1B-1D report them:
# /dir/a shares a block with /c and a run with /b, /e a block of the
# inode table; -fn and -fy against e2fsck's output on the same image.
mkimg4 1024 8M
awk 'BEGIN { for (i = 0; i < 30000; i++) printf "line %05d\n", i }' >big
printf 'x\n' >one
dbg "mkdir dir" "write big dir/a" "write big b" "write one c" "write one e"
a=$(blk dir/a)
it=$($DUMPE2FS image 2>/dev/null | sed -n 's/^  Inode table at \([0-9]*\)-.*/\1/p' | head -1)
dbg "sif c block[5] $((a + 6))" "sif b block[5] $((a + 181))" \
    "sif e block[5] $((it + 1))"
for m in -fn -fy; do
	cp image dup.img
	"$FSCK" $m dup.img 2>&1 | sed -n '/^Running additional/,/^Pass 2/p' >x.out
	cp image e2dup.img
	$E2FSCK $m e2dup.img 2>&1 |
		sed -n '/^Running additional/,/^Pass 2/p' | sed 's/e2dup/dup/' >e2.out
	if [ -s x.out ] && grep -q '<filesystem metadata>' x.out &&
	   diff -u e2.out x.out >diff.out; then
		ok "$m: passes 1B-1D reported as e2fsck's, word for word"
	else
		fail "$m: passes 1B-1D differ from e2fsck's"
		sed 's/^/    /' diff.out | head -30
	fi
done
$E2FSCK -fn dup.img >/dev/null 2>&1 &&
	ok "-fy: e2fsck -fn finds the clones clean" ||
	fail "-fy: e2fsck -fn finds errors after the clones"

# -D that only optimizes: exit 0, the MODIFIED line, as e2fsck.
mkimg4 1024 16M
many d 300
{
	i=0
	while [ "$i" -lt 300 ]; do
		printf 'rm d/f%04d\n' "$i"
		i=$((i + 2))
	done
} | $DEBUGFS -w image -f - >/dev/null 2>&1
rc=$(fsck_rc out -fyD image)
if [ "$rc" -eq 0 ] && grep -q 'Pass 3A' out &&
   grep -q 'FILE SYSTEM WAS MODIFIED' out && $E2FSCK -fn image >/dev/null 2>&1
then
	ok "-D alone: exit 0 with the MODIFIED line, as e2fsck"
else
	fail "-D alone: exit $rc"
	sed 's/^/    /' out | head -10
fi

# -n with an option that writes: exit 8, one line, nothing written.
mkimg 1024 8M
populate
echo 100 >list
for opt in -D -c "-l list" "-L list"; do
	sum=$(sha256sum image)
	# shellcheck disable=SC2086 # the option and its argument
	rc=$(fsck_rc out -fn $opt image)
	if [ "$rc" -eq 8 ] && grep -q 'options are incompatible' out &&
	   [ "$(sha256sum image)" = "$sum" ]; then
		ok "-n $opt: refused, exit 8, as e2fsck"
	else
		fail "-n $opt: exit $rc"
		sed 's/^/    /' out | head -3
	fi
done
rc=$(fsck_rc out -fy -c -l list image)
[ "$rc" -eq 16 ] && ok "-c with -l: usage error (16)" ||
	fail "-c with -l: exit $rc"

# -t, -tt: the resource lines; -F, -d, -E nodiscard accepted.
rc=$(fsck_rc out -fn -t image)
[ "$rc" -eq 0 ] && [ "$(grep -c '^Memory used: .*, time: ' out)" -eq 1 ] &&
	ok "-t: time and memory at the end" || fail "-t: exit $rc"
rc=$(fsck_rc out -fn -tt -F -E nodiscard image)
[ "$rc" -eq 0 ] && [ "$(grep -c '^Pass [1-5]: Memory used: ' out)" -eq 5 ] &&
	ok "-tt -F -E nodiscard: a line per pass" || {
	fail "-tt: exit $rc"
	sed 's/^/    /' out | head -12
}
dbg "sif d1/file1 links_count 7"
rc=$(fsck_rc out -fn -d image)
[ "$rc" -eq 4 ] && grep -q 'problem 0x040003' out &&
	ok "-d: problem codes named" || fail "-d: exit $rc"
"$FSCK" -fy image >/dev/null 2>&1

# -j: a journal that does not exist is refused (8); -j is accepted.
rc=$(fsck_rc out -fn -j "$tmpdir/nonexistent" image)
[ "$rc" -eq 8 ] && ok "-j missing journal: exit 8" || fail "-j: exit $rc"
: >journal
rc=$(fsck_rc out -fn -j journal image)
[ "$rc" -eq 0 ] && ok "-j accepted" || fail "-j journal: exit $rc"

# -l: blocks added to inode 1 (some in use by a file: pass 1B copies);
# -L: the list replaced; e2fsck -fn clean after each.
mkimg 1024 8M
populate
used=$(blk d1/d2/big 1)
{
	echo "$used"
	echo "not a number"
	echo 99999999
	i=4000
	while [ "$i" -le 4020 ]; do
		echo "$i"
		i=$((i + 1))
	done
} >list
rc=$(fsck_rc out -fy -l list image)
$DEBUGFS -R "blocks <1>" image 2>/dev/null | tr ' ' '\n' | grep . >have
want=$(printf '%s\n' "$used" $(seq 4000 4020) | sort -n | tr '\n' ' ')
if [ "$rc" -eq 1 ] && grep -q 'Updating bad block inode' out &&
   grep -q 'Bad block 99999999 out of range; ignored.' out &&
   [ "$(sort -n have | grep -v -x "$(blk '<1>' 12)" | tr '\n' ' ')" = "$want" ] &&
   $E2FSCK -fn image >e2.log 2>&1 && [ "$(fsck_rc out2 -fy image)" -eq 0 ]
then
	ok "-l: 22 blocks listed in inode 1, the file's block copied, clean"
else
	fail "-l: exit $rc"
	sed 's/^/    /' out | head -10
	sed 's/^/    e2fsck: /' e2.log | grep -v Pass | head -5
fi
echo 5000 >list2
rc=$(fsck_rc out -fy -L list2 image)
if [ "$rc" -eq 1 ] &&
   [ "$($DEBUGFS -R 'blocks <1>' image 2>/dev/null | tr -d ' ')" = 5000 ] &&
   $E2FSCK -fn image >/dev/null 2>&1; then
	ok "-L: the list replaced"
else
	fail "-L: exit $rc"
	sed 's/^/    /' out | head -10
fi

# -c without badblocks: refused by name, nothing written.
sum=$(sha256sum image)
rc=$(EXTKIT_FSCK_BADBLOCKS=$tmpdir/none fsck_rc out -fy -c image)
if [ "$rc" -eq 8 ] && grep -q 'badblocks is not installed' out &&
   [ "$(sha256sum image)" = "$sum" ]; then
	ok "-c without badblocks: refused by name, nothing written"
else
	fail "-c without badblocks: exit $rc"
	sed 's/^/    /' out | head -5
fi
# -c with -k and a badblocks that reports block 6000: added to 5000.
printf '#!/bin/sh\necho 6000\n' >fakebb
chmod +x fakebb
rc=$(EXTKIT_FSCK_BADBLOCKS=$tmpdir/fakebb fsck_rc out -fy -c -k image)
if [ "$rc" -le 1 ] &&
   [ "$($DEBUGFS -R 'blocks <1>' image 2>/dev/null)" = "5000 6000 " ] &&
   $E2FSCK -fn image >/dev/null 2>&1; then
	ok "-c -k: badblocks' blocks added to the list"
else
	fail "-c -k: exit $rc"
	$DEBUGFS -R 'blocks <1>' image 2>/dev/null | sed 's/^/    /'
fi

# -E discard: free blocks become holes; e2fsck -fn clean; files intact.
mkimg 1024 16M
populate
cat_sums d1/d2/big d1/file1 >sums.before
dd if=/dev/urandom of=junk bs=1k count=4000 2>/dev/null
dbg "write junk junk" "rm junk"
before=$(du -k image | cut -f1)
rc=$(fsck_rc out -fy -E discard image)
after=$(du -k image | cut -f1)
if [ "$rc" -eq 0 ] && [ "$after" -lt $((before - 3000)) ] &&
   $E2FSCK -fn image >/dev/null 2>&1 &&
   [ "$(cat_sums d1/d2/big d1/file1)" = "$(cat sums.before)" ]; then
	ok "-E discard: free blocks punched out (${before}k -> ${after}k)"
else
	fail "-E discard: exit $rc, ${before}k -> ${after}k"
fi
finish
