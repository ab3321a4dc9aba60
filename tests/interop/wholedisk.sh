#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Whole-disk images, for every tool (issue 34): a GPT disk (sfdisk) with a
# swap area in partition 1 and an ext4 made into partition 2 by
# mke2fs -E offset=. extkit-dump, extkit-fsck and extkit-label run on
# disk.img@2, --partition 2 and --offset must print what they print on
# the partition copied out; fsck's repair and label's write stay inside
# the partition (every byte outside it unchanged); the swap area and the
# bare disk are named, not "bad magic"; an MBR (dos) table works too.
. "${top_srcdir:-.}/tests/lib.sh"
need_dump
need_tools mke2fs e2fsck debugfs sfdisk mkswap blkid
FSCK=$top_builddir/extkit-fsck
LABEL=$top_builddir/extkit-label
ASAN_OPTIONS=$ASAN_OPTIONS:detect_leaks=0
t() { timeout -k 5 "$TIMEOUT" "$@"; }

cd "$tmpdir" || exit 99
P2=20480		# partition 2's first sector
OFF=$((P2 * 512))
mkdir src && echo hello >src/a && mkdir src/d && seq 1 5000 >src/d/n
truncate -s 40M disk.img
printf 'label: gpt\nstart=2048, size=16384, name=swap\nstart=%s, size=40960, name=data\n' \
	"$P2" | "$SFDISK" -q disk.img || skip "sfdisk cannot write a GPT here"
"$MKE2FS" -q -F -t ext4 -L inside -d src -E offset=$OFF disk.img 20M ||
	fail "mke2fs -E offset"
truncate -s 8M swap.img && "$MKSWAP" -q swap.img >/dev/null &&
	dd if=swap.img of=disk.img bs=512 seek=2048 conv=notrunc status=none ||
	exit 99
part() { dd if="$1" of="$2" bs=512 skip=$P2 count=40960 status=none; }
part disk.img part.img

# Every tool, three ways to name the place, against the partition alone.
same() {	# WHAT CMD-ON-PART CMD-ON-DISK...
	what=$1
	shift
	"$@" >out.disk 2>err.disk
	rc=$?
	[ $rc -eq "$want_rc" ] && cmp -s out.disk out.part &&
		ok "$what: as on the partition alone" ||
		{ fail "$what (exit $rc)"; diff out.part out.disk | head -5;
		  head -3 err.disk; }
}
for cmd in "super" "ls -l /" "stat /d/n" "blocks /d/n" "cat /d/n" \
	   "groups" "ncheck 12"; do
	want_rc=0
	# shellcheck disable=SC2086 # cmd is words
	t "$DUMP" part.img $cmd >out.part 2>&1
	# shellcheck disable=SC2086
	same "dump IMAGE@2 $cmd" t "$DUMP" disk.img@2 $cmd
	# shellcheck disable=SC2086
	same "dump --partition 2 $cmd" t "$DUMP" --partition 2 disk.img $cmd
	# shellcheck disable=SC2086
	same "dump --offset $cmd" t "$DUMP" --offset $OFF disk.img $cmd
done
t "$DUMP" --offset $((P2))s disk.img ls / >out.disk 2>&1 &&
	grep -q ' d$' out.disk && ok "--offset takes a size in sectors (s)" ||
	fail "--offset ${P2}s"
t "$LABEL" part.img >out.part
want_rc=0
same "label IMAGE@2" t "$LABEL" disk.img@2
same "label --offset" t "$LABEL" --offset $OFF disk.img
t "$FSCK" -fn part.img 2>&1 | sed 's/part\.img/X/g' >out.part
for how in "disk.img@2" "--partition 2 disk.img" "--offset $OFF disk.img"; do
	# shellcheck disable=SC2086
	t "$FSCK" -fn $how >out.disk 2>&1
	rc=$?
	sed -i 's/disk\.img@2/X/g; s/disk\.img/X/g' out.disk
	[ $rc -eq 0 ] && cmp -s out.disk out.part &&
		ok "fsck -fn $how: as on the partition alone" ||
		{ fail "fsck -fn $how (exit $rc)"; diff out.part out.disk | head; }
done

# A repair writes inside the partition only.
outside() {	# the bytes before and after partition 2
	{ head -c $OFF "$1"; tail -c +$((OFF + 40960 * 512 + 1)) "$1"; } |
		cksum
}
before=$(outside disk.img)
"$DEBUGFS" -w -R "ssv free_blocks_count 7" part.img >/dev/null 2>&1
"$DEBUGFS" -w -R "clri <12>" part.img >/dev/null 2>&1
dd if=part.img of=disk.img bs=512 seek=$P2 conv=notrunc status=none
t "$FSCK" -fy disk.img@2 >fix.log 2>&1
rc=$?
[ $rc -eq 1 ] && ok "fsck -fy disk.img@2 repairs (exit 1)" ||
	{ fail "fsck -fy disk.img@2: exit $rc"; head fix.log; }
part disk.img fixed.img
"$E2FSCK" -fn fixed.img >/dev/null 2>&1 && ok "e2fsck finds the partition clean" ||
	fail "e2fsck after the repair"
[ "$(outside disk.img)" = "$before" ] &&
	ok "fsck's repair left every byte outside partition 2 unchanged" ||
	fail "fsck wrote outside the partition"
t "$LABEL" --partition 2 disk.img relabelled || fail "label --partition 2 NEW"
part disk.img fixed.img
[ "$("$BLKID" -o value -s LABEL fixed.img)" = relabelled ] &&
	[ "$(outside disk.img)" = "$before" ] &&
	ok "label writes the partition's label and nothing outside it" ||
	fail "label --partition 2 NEW"

# What is not ext2/3/4 is named.
for tool in "$DUMP" "$LABEL" "$FSCK -n"; do
	# shellcheck disable=SC2086
	t $tool disk.img@1 >out 2>&1
	rc=$?
	[ $rc -ne 0 ] && grep -q 'contains a swap file system' out &&
		! grep -q 'bad magic' out &&
		ok "${tool##*/} names the swap area of disk.img@1" ||
		{ fail "${tool##*/} on the swap partition (exit $rc)"; cat out; }
	# shellcheck disable=SC2086
	t $tool disk.img >out 2>&1
	grep -q 'contains a gpt partition table' out &&
		ok "${tool##*/} names the bare disk's partition table" ||
		{ fail "${tool##*/} on the bare disk"; cat out; }
done

# Bad places: one line, exit 1 (fsck: 8), nothing read past the image.
chk_bad() {	# WHAT PATTERN ARGS...
	what=$1 pat=$2
	shift 2
	t "$DUMP" "$@" super >out 2>&1
	rc=$?
	[ $rc -eq 1 ] && [ "$(wc -l <out)" -eq 1 ] && grep -q "$pat" out &&
		ok "$what: refused ($(cat out))" ||
		{ fail "$what (exit $rc)"; cat out; }
}
chk_bad "a partition the table lacks" "has no partition 3 (it has 2)" \
	disk.img@3
chk_bad "--offset past the end" "past the end" --offset 1G disk.img
chk_bad "--offset with @N" "give one place" --offset 4096 disk.img@2
chk_bad "--partition with @N" "give one place" --partition 1 disk.img@2
chk_bad "--partition 0" "not a partition number" --partition 0 disk.img
chk_bad "no table" "no partition table" swap.img@1
t "$FSCK" -fn disk.img@3 >out 2>&1
[ $? -eq 8 ] && grep -q 'no partition 3' out && ok "fsck: @3 refused" ||
	{ fail "fsck disk.img@3"; cat out; }
# A file whose name ends in @N is that file.
cp part.img 'odd@2'
t "$DUMP" 'odd@2' ls / >out 2>&1 && grep -q ' d$' out &&
	ok "a file named odd@2 is opened as it is" || fail "odd@2"

# An MBR (dos) table, a logical partition too.
truncate -s 40M mbr.img
printf 'label: dos\nstart=2048, size=16384, type=83\nstart=20480, size=61440, type=5\nstart=22528, size=40960, type=83\n' |
	"$SFDISK" -q mbr.img || fail "sfdisk dos"
"$MKE2FS" -q -F -t ext2 -L logical -E offset=$((22528 * 512)) mbr.img 20M ||
	fail "mke2fs in the logical partition"
[ "$(t "$LABEL" mbr.img@5)" = logical ] &&
	ok "an MBR's logical partition 5 is found" || fail "mbr.img@5"
finish
