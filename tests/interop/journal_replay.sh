# SPDX-License-Identifier: GPL-2.0-or-later
# Journal replay against e2fsck: images whose journal needs recovery,
# made by debugfs' journal commands (jo/jw/jc: descriptor, revoke and
# commit blocks, escaped blocks, an uncommitted tail, checksums v1/v2/v3,
# 32- and 64-bit tags, 1 KiB and 4 KiB blocks), some rotated so that the
# log wraps around the end of the journal, some with a corrupt commit or
# data block; and by the kernel (files created, written, deleted, renamed
# on a loop mount, synced, the image copied while still mounted).
#
# For each image: `extkit-fsck -y -E journal_only` and
# `e2fsck -y -E journal_only` run on two copies, which must be byte for
# byte the same apart from the superblock's s_wtime and s_checksum; then
# `extkit-fsck -fy` must leave it e2fsck -fn clean, and the kernel's files
# must read back as they were written (a read-only mount).
# Also: -n warns and changes nothing, -p replays and says so, a journal
# with pending fast commits has them replayed with the log.
# The kernel images are skipped without root or loop mounts.

. "${top_srcdir:-.}/tests/lib.sh"
need_tools mke2fs debugfs e2fsck dumpe2fs python3 cmp
FSCK=$top_builddir/extkit-fsck
[ -x "$FSCK" ] || skip "extkit-fsck not built"
JLOG=$top_srcdir/tests/interop/jlog.py
UUID=6b33f586-a9b5-4ab7-9d8e-0b4f2b2c6e11

use_mount_point

images=0
identical=0

# sb_diff A B: byte offsets (1-based, as cmp -l) where A and B differ,
# leaving out three fields of the primary superblock: s_wtime (0x430)
# and s_checksum (0x7fc), and s_kbytes_written (0x578): e2fsck adds the
# bytes its block cache wrote during the replay (a block written twice
# counts once or twice depending on that cache), extkit the blocks it
# wrote.
sb_diff() {
	cmp -l "$1" "$2" | awk '!(($1 >= 1073 && $1 <= 1076) ||
				  ($1 >= 1401 && $1 <= 1408) ||
				  ($1 >= 2045 && $1 <= 2048)) { print $1 }'
}

# check_image IMG NAME [MANIFEST]
check_image() {
	_img=$1
	_name=$2
	images=$((images + 1))
	cp --sparse=always "$_img" "$tmpdir/x.img" &&
		cp --sparse=always "$_img" "$tmpdir/y.img" || exit 99
	timeout -k 5 "$TIMEOUT" "$FSCK" -y -E journal_only "$tmpdir/x.img" \
		>"$tmpdir/x.log" 2>&1
	_rc=$?
	timeout -k 5 "$TIMEOUT" "$E2FSCK" -y -E journal_only \
		"$tmpdir/y.img" >"$tmpdir/y.log" 2>&1
	if [ $_rc -ne 0 ] || sanitizer_report "$tmpdir/x.log"; then
		fail "$_name: extkit-fsck -E journal_only exit $_rc"
		sed 's/^/    /' "$tmpdir/x.log" | head -10
		return
	fi
	sb_diff "$tmpdir/x.img" "$tmpdir/y.img" >"$tmpdir/diff" 2>/dev/null
	if [ -s "$tmpdir/diff" ] && [ -n "$FUZZ" ]; then
		# Garbage tags may name blocks past the filesystem: e2fsck
		# writes them there (the image grows), extkit refuses, says
		# the replay was incomplete and checks in full.
		_name="$_name (differs from e2fsck's replay)"
	elif [ -s "$tmpdir/diff" ]; then
		fail "$_name: $(wc -l <"$tmpdir/diff") bytes differ from" \
			"e2fsck's replay"
		head -5 "$tmpdir/diff" |
			awk '{ printf "    byte %d (block of 1K %d)\n", $1 - 1,
			       ($1 - 1) / 1024 }'
		return
	fi
	[ -s "$tmpdir/diff" ] || identical=$((identical + 1))
	timeout -k 5 "$TIMEOUT" "$FSCK" -fy "$tmpdir/x.img" \
		>"$tmpdir/x2.log" 2>&1
	_rc=$?
	if [ $_rc -gt 1 ] || sanitizer_report "$tmpdir/x2.log"; then
		fail "$_name: extkit-fsck -fy after the replay: exit $_rc"
		sed 's/^/    /' "$tmpdir/x2.log" | head -10
		return
	fi
	if ! "$E2FSCK" -fn "$tmpdir/x.img" >"$tmpdir/e.log" 2>&1; then
		fail "$_name: e2fsck -fn finds errors after extkit-fsck"
		sed 's/^/    /' "$tmpdir/e.log" | head -10
		return
	fi
	[ -n "$3" ] && ! same_files "$tmpdir/x.img" "$3" && return
	ok "$_name: replayed and compared with e2fsck, then e2fsck-clean"
}

# same_files IMG MANIFEST: a read-only mount shows the files' bytes.
same_files() {
	mount -o loop,ro "$1" "$mnt" 2>/dev/null || {
		fail "$_name: the kernel refuses the repaired image"
		return 1
	}
	(cd "$mnt" && find . -type f | sort | xargs -r md5sum) \
		>"$tmpdir/after" 2>&1
	umount "$mnt"
	if ! cmp -s "$2" "$tmpdir/after"; then
		fail "$_name: files differ from what the kernel wrote"
		diff "$2" "$tmpdir/after" | head -5 | sed 's/^/    /'
		return 1
	fi
	return 0
}

# mkfs IMG BS FEATURES
mkfs() {
	_size=8M
	[ "$2" = 4096 ] && _size=16M
	rm -f "$1"
	"$MKE2FS" -q -F -t ext4 -b "$2" -O "$3" -U "$UUID" \
		-E "hash_seed=$UUID" "$1" "$_size" >/dev/null 2>&1 ||
		{ echo "ERROR: mke2fs -b $2 -O $3"; exit 99; }
}

# dbg_log IMG BS JO: six transactions by debugfs into a fresh image:
# 3 blocks (the first escaped), a revoke of one of them, that block
# again with another, a revoke of that other, one more block (escaped),
# and an uncommitted one. Blocks near the end of the filesystem (8192
# blocks of 1 KiB, 4096 of 4 KiB), free.
dbg_log() {
	_a=8000
	[ "$2" = 4096 ] && _a=3900
	_d=$tmpdir/data
	cat >"$tmpdir/cmd" <<EOF
$3
jw -b $_a,$((_a + 1)),$((_a + 2)) $_d/d1_$2
jw -r $((_a + 1))
jw -b $((_a + 1)),$((_a + 3)) $_d/d2_$2
jw -r $((_a + 3)),$((_a + 4))
jw -b $((_a + 5)) $_d/d3_$2
jw -c -b $((_a + 6)) $_d/d4_$2
jc
EOF
	"$DEBUGFS" -w -f "$tmpdir/cmd" "$1" >"$tmpdir/dbg.log" 2>&1 ||
		{ echo "ERROR: debugfs"; cat "$tmpdir/dbg.log"; exit 99; }
}

# journal_blocks IMG > FILE: the journal's physical blocks in order.
journal_blocks() {
	"$DEBUGFS" -R "blocks <8>" "$1" 2>/dev/null
}

# variant IMG NAME [EDIT...]: a copy of IMG, edited by jlog.py (in one
# batch, later), queued for check_image.
variant() {
	_i=$((${_i:-0} + 1))
	_v=$tmpdir/v$_i.img
	cp --sparse=always "$1" "$_v" || exit 99
	echo "$_v|$2" >>"$tmpdir/queue"
	shift 2
	[ $# -gt 0 ] && echo "$_v $tmpdir/jb$_i $*" >>"$tmpdir/edits" &&
		journal_blocks "$_v" >"$tmpdir/jb$_i"
	return 0
}

# debugfs_images: every block size, 32/64-bit tags, checksum none, v1
# (crc32 commit), v2, v3; each as made, (none, v3) with its log wrapped
# around the end of the journal, (v1, v3) with a bad commit block, (v3)
# with a bad data block.
debugfs_images() {
	: >"$tmpdir/queue"
	: >"$tmpdir/edits"
	mkdir -p "$tmpdir/data" &&
		python3 "$JLOG" data "$tmpdir/data" || exit 99
	for bs in 1024 4096; do
	for bits in 64bit ^64bit; do
	for csum in none v1 v2 v3; do
		_n="debugfs bs=$bs $bits csum=$csum"
		_img=$tmpdir/d.img
		case $csum in
		none) feats="$bits,^metadata_csum"; jo=jo ;;
		v1) feats="$bits,^metadata_csum"; jo="jo -c" ;;
		v2) feats="$bits,metadata_csum"; jo="jo -c -v 2" ;;
		v3) feats="$bits,metadata_csum"; jo="jo -c" ;;
		esac
		mkfs "$_img" $bs "$feats"
		dbg_log "$_img" $bs "$jo"
		variant "$_img" "$_n"
		[ $csum = v3 ] || [ $csum = none ] &&
			variant "$_img" "$_n, log wrapped" rotate 7
		[ $csum = v3 ] || [ $csum = v1 ] || continue
		# the commit of transaction 5 is log block 15; log block 8 is
		# a data block of transaction 3
		variant "$_img" "$_n, bad commit" corrupt 15 64
		[ $csum = v3 ] || continue
		variant "$_img" "$_n, bad data block" corrupt 8 100
	done
	done
	done
	python3 "$JLOG" batch "$tmpdir/edits" || exit 99
	while IFS='|' read -r _v _n; do
		check_image "$_v" "$_n"
		rm -f "$_v"
	done <"$tmpdir/queue"
}

# Garbage in the log (tags, revoke counts, flags): no crash, no hang,
# e2fsck-clean after -fy; byte-identical to e2fsck's replay unless a tag
# names a block past the end of the filesystem (e2fsck writes it there,
# growing the image; extkit does not, and checks in full). A log that never ends (descriptors of the
# expected transaction all around, no commit; e2fsck 1.47 loops on it):
# extkit must end, with an exit status of fsck(8).
fuzz_images() {
	: >"$tmpdir/edits"
	: >"$tmpdir/queue"
	for seed in 1 2 3 4 5 6 7 8; do
		_bs=1024
		[ $((seed % 2)) = 0 ] && _bs=4096
		_img=$tmpdir/z.img
		mkfs "$_img" $_bs "64bit,^metadata_csum"
		dbg_log "$_img" $_bs jo
		variant "$_img" "garbage log, bs=$_bs seed $seed" fuzz $seed
	done
	mkfs "$_img" 1024 "^64bit,^metadata_csum"
	dbg_log "$_img" 1024 jo
	variant "$_img" "endless log" loop
	python3 "$JLOG" batch "$tmpdir/edits" || exit 99
	while IFS='|' read -r _v _n; do
		case $_n in
		endless*) endless "$_v" ;;
		*) FUZZ=1; check_image "$_v" "$_n"; FUZZ= ;;
		esac
		rm -f "$_v"
	done <"$tmpdir/queue"
}

endless() {
	timeout -k 5 "$TIMEOUT" "$FSCK" -y -E journal_only "$1" \
		>"$tmpdir/z.log" 2>&1
	_rc=$?
	timeout -k 5 "$TIMEOUT" "$FSCK" -fy "$1" >>"$tmpdir/z.log" 2>&1
	_rc2=$?
	if sanitizer_report "$tmpdir/z.log" || [ $_rc -ne 0 ] ||
	   [ $_rc2 -gt 1 ] || ! "$E2FSCK" -fn "$1" >/dev/null 2>&1; then
		fail "endless log: exit $_rc, then -fy $_rc2"
		sed 's/^/    /' "$tmpdir/z.log" | head -10
	else
		ok "endless log: the scan ends (exit $_rc), -fy exit $_rc2"
	fi
}

# Transactions that zero group 0's bitmaps: the check after the replay
# rebuilds them.
bitmap_image() {
	_img=$tmpdir/b.img
	mkfs "$_img" "$1" "$2"
	_bm=$("$DUMPE2FS" "$_img" 2>/dev/null |
	      awk '/Block bitmap at/ { print $4; exit }')
	_ib=$("$DUMPE2FS" "$_img" 2>/dev/null |
	      awk '/Inode bitmap at/ { print $4; exit }')
	printf 'jo\njw -b %s,%s /dev/zero\njc\n' "$_bm" "$_ib" >"$tmpdir/cmd"
	"$DEBUGFS" -w -f "$tmpdir/cmd" "$_img" >/dev/null 2>&1 || exit 99
	check_image "$_img" "debugfs bs=$1 $2: zeroed bitmaps"
}

# kernel_image NAME MKFS_ARGS -- WORK: WORK runs in the mounted
# filesystem, which is synced and copied while still mounted.
kernel_image() {
	_name=$1
	shift
	_img=$tmpdir/k.img
	rm -f "$_img"
	_args=
	while [ "$1" != -- ]; do _args="$_args $1"; shift; done
	shift
	# shellcheck disable=SC2086 # the arguments are words
	"$MKE2FS" -q -F -U "$UUID" $_args "$_img" 32M >/dev/null 2>&1 ||
		{ echo "ERROR: mke2fs $_args"; exit 99; }
	mount -o loop "$_img" "$mnt" 2>/dev/null || return 1
	(cd "$mnt" && eval "$1") >/dev/null 2>&1
	sync
	(cd "$mnt" && find . -type f | sort | xargs -r md5sum) \
		>"$tmpdir/manifest"
	cp --sparse=always "$_img" "$tmpdir/kc.img"
	umount "$mnt"
	check_image "$tmpdir/kc.img" "kernel: $_name" "$tmpdir/manifest"
	return 0
}

MANY='for i in $(seq 1 290); do echo "file $i" > f$i; done'
CHURN='mkdir a b; for i in $(seq 1 200); do echo $i > a/x$i; done;
for i in $(seq 1 200); do echo $i > b/y$i; done; rm -rf a;
for i in $(seq 1 50); do mv b/y$i b/z$i; done; mkdir c; mv b c/;
head -c 300000 /dev/zero > big; rm big'
BIGDIR='mkdir d; for i in $(seq 1 1500); do : > d/n$i; done;
for i in $(seq 1 1500 | awk "NR % 3 == 0"); do rm d/n$i; done'

kernel_images() {
	kernel_image "ext4 4k, 290 files" -t ext4 -b 4096 -- "$MANY" || return 1
	kernel_image "ext4 4k churn" -t ext4 -b 4096 -- "$CHURN"
	kernel_image "ext4 1k churn" -t ext4 -b 1024 -- "$CHURN"
	kernel_image "ext4 1k, ^metadata_csum" -t ext4 -b 1024 \
		-O ^metadata_csum -- "$CHURN"
	kernel_image "ext4 4k, ^64bit" -t ext4 -b 4096 -O ^64bit -- "$CHURN"
	kernel_image "ext4 4k, ^64bit ^metadata_csum" -t ext4 -b 4096 \
		-O ^64bit,^metadata_csum -- "$MANY"
	kernel_image "ext3 1k" -t ext3 -b 1024 -- "$CHURN"
	kernel_image "ext3 4k" -t ext3 -b 4096 -- "$MANY"
	kernel_image "ext4 1k, 1 MiB journal, wraps" -t ext4 -b 1024 \
		-J size=1 -- "$BIGDIR"
	kernel_image "ext4 4k, 4 MiB journal, big dir" -t ext4 -b 4096 \
		-J size=4 -- "$BIGDIR"
	kernel_image "ext4 1k, ^64bit, big dir" -t ext4 -b 1024 \
		-O ^64bit -- "$BIGDIR"
	return 0
}

# -n warns and writes nothing; -p replays and says so.
modes() {
	_img=$tmpdir/d.img
	mkfs "$_img" 1024 "64bit,metadata_csum"
	dbg_log "$_img" 1024 "jo -c"
	_sum=$(sha256sum <"$_img")
	"$FSCK" -n "$_img" >"$tmpdir/n.log" 2>&1
	if [ "$(sha256sum <"$_img")" = "$_sum" ] &&
	   grep -q "^Warning: the journal needs recovery" "$tmpdir/n.log"; then
		ok "-n warns that it does not replay, and writes nothing"
	else
		fail "-n: image changed or no warning"
		sed 's/^/    /' "$tmpdir/n.log" | head -5
	fi
	"$FSCK" -p "$_img" >"$tmpdir/p.log" 2>&1
	_rc=$?
	if [ $_rc -eq 0 ] && grep -q "recovering journal" "$tmpdir/p.log" &&
	   ! "$DUMPE2FS" -h "$_img" 2>/dev/null | grep -q needs_recovery; then
		ok "-p replays the journal and says so"
	else
		fail "-p: exit $_rc, or no replay"
		sed 's/^/    /' "$tmpdir/p.log" | head -5
	fi
}

# A journal on another device (journal UUID set, no journal inode) that
# needs recovery: refused by name, exit 8, nothing written; -n warns and
# checks.
external() {
	_img=$tmpdir/e.img
	mkfs "$_img" 1024 "^metadata_csum"
	"$DEBUGFS" -w -f - "$_img" >/dev/null 2>&1 <<EOF
ssv journal_inum 0
ssv journal_uuid 1b4e28ba-2fa1-11d2-883f-0016d3cca427
feature needs_recovery
EOF
	_sum=$(sha256sum <"$_img")
	"$FSCK" -fy "$_img" >"$tmpdir/e.log" 2>&1
	_rc=$?
	if [ $_rc -eq 8 ] && grep -q "external journal" "$tmpdir/e.log" &&
	   [ "$(sha256sum <"$_img")" = "$_sum" ]; then
		ok "external journal to replay: refused by name, exit 8"
	else
		fail "external journal: exit $_rc"
		sed 's/^/    /' "$tmpdir/e.log" | head -5
	fi
	"$FSCK" -fn "$_img" >"$tmpdir/e.log" 2>&1
	if grep -q "^Warning: the journal needs recovery" "$tmpdir/e.log" &&
	   [ "$(sha256sum <"$_img")" = "$_sum" ]; then
		ok "external journal, -n: warns, checks, writes nothing"
	else
		fail "external journal, -n"
		sed 's/^/    /' "$tmpdir/e.log" | head -5
	fi
}

# The kernel writes fast commits on fsync with fast_commit: -n names
# them and writes nothing, -p replays them with the log (exit < 4), and
# so does -fy, which leaves the filesystem e2fsck -fn clean
# (tests/interop/fast_commit.sh compares the files with the kernel's).
fast_commit() {
	_img=$tmpdir/f.img
	rm -f "$_img"
	"$MKE2FS" -q -F -t ext4 -O fast_commit "$_img" 32M >/dev/null 2>&1 ||
		return
	mount -o loop "$_img" "$mnt" 2>/dev/null || return
	# dd's conv=fsync: an fsync, which fast_commit logs as a fast commit
	for _f in 1 2 3; do
		head -c 4000 /dev/zero | dd of="$mnt/f$_f" conv=fsync 2>/dev/null
	done
	cp --sparse=always "$_img" "$tmpdir/fc.img"
	umount "$mnt"
	_sum=$(sha256sum <"$tmpdir/fc.img")
	"$FSCK" -fn "$tmpdir/fc.img" >"$tmpdir/fc.log" 2>&1
	if grep -q "fast commits" "$tmpdir/fc.log" &&
	   [ "$(sha256sum <"$tmpdir/fc.img")" = "$_sum" ]; then
		ok "pending fast commits, -n: named, unchanged"
	else
		fail "fast commits, -n"
		sed 's/^/    /' "$tmpdir/fc.log" | head -5
	fi
	cp --sparse=always "$tmpdir/fc.img" "$tmpdir/fcp.img"
	"$FSCK" -p "$tmpdir/fcp.img" >"$tmpdir/fc.log" 2>&1
	_rc=$?
	if [ $_rc -lt 4 ] && "$E2FSCK" -fn "$tmpdir/fcp.img" >/dev/null 2>&1
	then
		ok "pending fast commits, -p: replayed, exit $_rc"
	else
		fail "fast commits, -p: exit $_rc"
		sed 's/^/    /' "$tmpdir/fc.log" | head -5
	fi
	"$FSCK" -fy "$tmpdir/fc.img" >"$tmpdir/fc.log" 2>&1
	_rc=$?
	if [ $_rc -lt 4 ] && grep -q "fast commits" "$tmpdir/fc.log" &&
	   "$E2FSCK" -fn "$tmpdir/fc.img" >/dev/null 2>&1; then
		ok "pending fast commits, -fy: replayed with the log"
	else
		fail "fast commits, -fy: exit $_rc"
		sed 's/^/    /' "$tmpdir/fc.log" | head -5
	fi
}

debugfs_images
fuzz_images
bitmap_image 1024 "64bit,metadata_csum"
bitmap_image 4096 "^64bit,^metadata_csum"
modes
external
if [ "$(id -u)" = 0 ] && kernel_images; then
	fast_commit
else
	echo "note: no loop mounts here: kernel images skipped"
fi
echo "journal images replayed byte-identical to e2fsck: $identical/$images"
finish
