# SPDX-License-Identifier: GPL-2.0-or-later
# extkit-fsck -fyD on directories the kernel made (issue 10). The kernel
# builds them on a loop mount, after filling the filesystem with
# one-block files and deleting every other one, so that a growing
# directory's blocks scatter into one-block holes as on an aged
# filesystem. The shapes (the depths and levels are asserted first):
#   k4c    ext4 4 KiB, metadata_csum: /small 20 entries (extent depth 0),
#          /d1 3,000 entries, 70% deleted (depth 1, htree of 1 level),
#          /fill 4,500 one-block files, every other one deleted;
#          kernel ro mount
#   k4     ext4 4 KiB, no metadata_csum: /d1 3,000 entries, 60% deleted
#          (depth 1), /mid 150 entries in 3 blocks, 90% deleted
#          (depth 0)
#   k1c    ext4 1 KiB, metadata_csum: /deep 1,500 entries of 200-byte
#          names, 80% deleted (depth 2, htree of 2 levels)
#   k4big  ext4 4 KiB, no journal: /huge 200,000 hard links, 70%
#          deleted (depth 2, htree of 2 levels); kernel ro mount
#   e1c    ext2 1 KiB, metadata_csum, dir_index: /ind 6,000 entries,
#          75% deleted (double indirect block, htree of 2 levels);
#          kernel ro mount
#   e4     ext2 4 KiB, no dir_index: /lin 5,000 entries, 60% deleted
#          (indirect block, linear)
#   e1h    ext2 1 KiB, no dir_index: /hole 600 entries, then one block
#          past the direct blocks emptied and punched (a hole in the
#          indirect map; e2fsck -fn calls it an error before -D)
#   x64c   ext4 64 KiB, metadata_csum, and x64 ext2 64 KiB: /s 2,400
#          entries of 200-byte names grown between one-block files
#          (extent depth 1 on x64c), 70% deleted. The kernel (6.18,
#          4 KiB pages) refuses 64 KiB blocks ("bad block size 65536"),
#          so these two are built with mke2fs and debugfs instead.
# The entries are files, fifos, symlinks and directories (hard links to
# 4 files in /huge), created and deleted (seeded) by the kernel.
# For each: extkit-fsck -fyD exits 0 or 1, 1 exactly when the image
# changed outside the primary superblock (whose mount count and check
# time any fsck run rewrites), and says FILE SYSTEM WAS MODIFIED exactly
# then; e2fsck -fn exits 0 after it; every directory keeps its set of
# (name, inode, mode) as debugfs ls -p lists them (e2fsck checks the
# type bytes against the modes); extkit-dump frag reports 0 reclaimable
# blocks for the shapes and, for the whole filesystem, a reason for any
# directory it left with reclaimable blocks; a second run exits 0 and
# writes nothing.
#   grow   ext2 1 KiB: the linear /full below (50 entries filling 3
#          blocks) with dir_index switched on afterwards: indexing it
#          takes a block more and frees none
# Second part, full: ext2 1 KiB, a linear 3-block directory, dir_index
# switched on afterwards, no free block left: an index needs a root and
# 3 leaves, so the directory cannot be compacted; its blocks and inode
# stay byte-identical, the exit status says whether anything was
# written, and the message says the directory was left as it was.
# Skipped (77) without root or where loop mounts are refused.

. "${top_srcdir:-.}/tests/lib.sh"
need_tools mke2fs debugfs e2fsck dumpe2fs python3 mount umount
FSCK=$top_builddir/extkit-fsck
[ -x "$FSCK" ] || skip "extkit-fsck not built"
need_dump
[ "$(id -u)" = 0 ] || skip "not root"

use_mount_point

# The kernel's side, one python run for a list of operations separated by
# "+" (python starts slowly): fill DIR BS, make DIR N NAMELEN [LINKS],
# delete DIR PERCENT SEED and stuff DIR BS run on the mounted filesystem;
# block IMG BS BLK lists the live names of one directory block.
cat >"$tmpdir/k.py" <<'PY'
import errno, os, random, struct, sys

def fill(d, bs):
    os.makedirs(d, exist_ok=True)
    buf = b"x" * bs
    i = 0
    try:
        while True:
            fd = os.open("%s/%d" % (d, i), os.O_WRONLY | os.O_CREAT, 0o644)
            try:
                os.write(fd, buf)
            finally:
                os.close(fd)
            i += 1
    except OSError as e:
        if e.errno != errno.ENOSPC:
            raise
    os.sync()
    for j in range(0, i, 2):
        os.unlink("%s/%d" % (d, j))
    os.sync()

def make(d, n, ln, links=0):
    os.makedirs(d, exist_ok=True)
    base = None
    for i in range(n):
        p = os.path.join(d, ("e%06d_" % i).ljust(ln, "abcdefghij"[i % 10]))
        if links:
            if i % 50000 == 0:
                base = p
                os.close(os.open(p, os.O_WRONLY | os.O_CREAT, 0o644))
            else:
                os.link(base, p)
        elif i % 50 == 49:
            os.mkdir(p)
        elif i % 13 == 12:
            os.mkfifo(p)
        elif i % 10 == 9:
            os.symlink("target%d" % i, p)
        else:
            os.close(os.open(p, os.O_WRONLY | os.O_CREAT, 0o644))

def delete(d, pct, seed):
    names = sorted(os.listdir(d))
    for n in random.Random(seed).sample(names, len(names) * pct // 100):
        p = os.path.join(d, n)
        if os.path.isdir(p) and not os.path.islink(p):
            os.rmdir(p)
        else:
            os.unlink(p)

def block(img, bs, blk):
    with open(img, "rb") as f:
        f.seek(bs * blk)
        b = f.read(bs)
    o = 0
    while o + 8 <= bs:
        ino, rl, nl = struct.unpack_from("<IHB", b, o)
        if rl < 12:
            break
        if ino:
            print(b[o + 8:o + 8 + nl].decode())
        o += rl

def stuff(d, bs):
    # one big file, then one-block files, until no block is left
    def put(path, n):
        fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o644)
        try:
            for _ in range(n):
                os.write(fd, b"z" * bs)
        except OSError as e:
            if e.errno != errno.ENOSPC:
                raise
            return False
        finally:
            os.close(fd)
        return True
    put(d + "/big", 1 << 30)
    i = 0
    while put("%s/z%d" % (d, i), 1):
        i += 1

ops = {"fill": fill, "make": make, "delete": delete, "block": block,
       "stuff": stuff}
words = sys.argv[1:] + ["+"]
while words:
    i = words.index("+")
    cmd, args = words[0], [a if "/" in a else int(a) for a in words[1:i]]
    ops[cmd](*args)
    words = words[i + 1:]
PY
k() {
	python3 "$tmpdir/k.py" "$@" || fail "k.py $*"
}

# newfs IMG SIZE MKE2FS-ARGS...: a sparse image, formatted.
FS_UUID=7c3f3a52-1d2e-4b8a-9f01-5e6d7c8b9a01
HASH_SEED=0d9e8f7a-6b5c-4d3e-8f2a-1b0c9d8e7f60

newfs() {
	_img=$1
	_size=$2
	shift 2
	rm -f "$_img"
	# A fixed UUID and hash seed: the htree splits, and so the shapes,
	# are the same on every run.
	truncate -s "$_size" "$_img" &&
		"$MKE2FS" -q -F -m 0 -U "$FS_UUID" -E "hash_seed=$HASH_SEED" \
			"$@" "$_img" >"$tmpdir/log" 2>&1 ||
		{ echo "ERROR: mke2fs $*"; cat "$tmpdir/log"; exit 99; }
}

kmount() {
	mount -o "loop,$2" "$1" "$mnt" 2>"$tmpdir/err"
}

# kumount: unmounts $mnt; a failure is a hard error.
kumount() {
	umount "$mnt" || { echo "ERROR: umount $mnt"; exit 99; }
}

# names IMG DIR: "inode mode name" of every entry, sorted.
names() {
	"$DEBUGFS" -R "ls -p $2" "$1" 2>/dev/null |
		awk -F/ 'NF >= 7 && $2 != 0 { print $2, $3, $6 }' | sort
}

ino_of() {
	"$DEBUGFS" -R "stat $2" "$1" 2>/dev/null |
		awk '/^Inode:/ { print $2; exit }'
}

# depth IMG DIR: the extent tree's depth.
depth() {
	"$DEBUGFS" -R "ex $2" "$1" 2>/dev/null |
		awk 'NR == 2 { sub(/^ *[0-9]+\/ */, ""); print $1 + 0 }'
}

# levels IMG DIR: htree levels (1: root only, 2: root and nodes), or 0.
levels() {
	"$DEBUGFS" -R "htree $2" "$1" 2>/dev/null |
		awk '/Indirect levels:/ { print $3 + 1; exit }' |
		grep . || echo 0
}

# expect WHAT GOT WANTED: a check on the shape before -D.
expect() {
	[ "$2" = "$3" ] && ok "$1: $2" ||
		fail "$1: $2, expected $3 (the shape is not the one meant)"
}

# imgsum IMG: a checksum of the image but for the primary superblock, whose
# bookkeeping (mount count, check time) every fsck run rewrites.
imgsum() {
	{
		dd bs=1024 count=1 2>/dev/null
		dd bs=1024 count=1 of=/dev/null 2>/dev/null
		cat
	} <"$1" | cksum
}

# reclaimable FRAGJSON: the reclaimable blocks of a one-directory report.
reclaimable() {
	awk '/^  "reclaimable_blocks":/ { sub(/,/, ""); print $2 }' "$1"
}

# left FRAGJSON: "inode blocks" of every top directory of a whole-
# filesystem report that still has reclaimable blocks.
left() {
	awk '/"top_directories"/ { top = 1 }
		top && /"inode":/ { sub(/,/, ""); ino = $2 }
		top && /"reclaimable_blocks":/ { sub(/,/, "")
			if ($2 > 0) print ino, $2 }' "$1"
}

# said INO: the first line of the last extkit-fsck run on why directory
# INO was not optimized ("directory inode INO: not optimized: ..." or
# "Directory PATH (INO) was not optimized and is left as it was: ...").
said() {
	grep -e "inode $1: " -e "($1) " "$tmpdir/fsck" |
		grep -i 'optimi[sz]\|left as it was' | head -n 1
}

# refused FRAGJSON: the reason a one-directory report gives for why
# compaction would refuse, if any.
refused() {
	sed -n 's/^  "compaction_refused": "\(.*\)",*$/\1/p' "$1"
}

# check IMG DIR...: the round on one image. extkit-fsck -fyD, then:
# the MODIFIED line follows the image's bytes, the exit status is
# e2fsck -fyD's on a copy (optimizing directories alone is not a fix:
# exit 0), e2fsck -fn is clean, the names are those of before, nothing reclaimable, and
# a second run exits 0 without writing.
check() {
	_img=$1
	_t=$(basename "$_img" .img)
	shift
	_i=0
	for d in "$@"; do
		names "$_img" "$d" >"$_img.n$_i"
		[ -s "$_img.n$_i" ] || fail "$_t $d: no names listed"
		_i=$((_i + 1))
	done
	_sum=$(imgsum "$_img")
	cp "$_img" "$_img.e2"
	"$E2FSCK" -fyD "$_img.e2" >/dev/null 2>&1
	_e2rc=$?
	rm -f "$_img.e2"
	timeout -k 5 120 "$FSCK" -fyD "$_img" >"$tmpdir/fsck" 2>&1
	_rc=$?
	if sanitizer_report "$tmpdir/fsck"; then
		fail "$_t: sanitizer report"
		sed 's/^/    /' "$tmpdir/fsck" | head -20
	fi
	_changed=0
	[ "$_sum" = "$(imgsum "$_img")" ] || _changed=1
	_mod=0
	grep -q 'FILE SYSTEM WAS MODIFIED' "$tmpdir/fsck" && _mod=1
	if [ "$_rc" -ne 0 ] && [ "$_rc" -ne 1 ]; then
		fail "$_t: extkit-fsck -fyD exit $_rc"
		sed 's/^/    /' "$tmpdir/fsck" | grep -v '^    Pass' | head
	elif [ "$_rc" -ne "$_e2rc" ] || [ "$_mod" -ne "$_changed" ]; then
		fail "$_t: exit $_rc (e2fsck $_e2rc), MODIFIED line $_mod, image changed $_changed"
	else
		ok "$_t: extkit-fsck -fyD exit $_rc, image changed $_changed"
	fi
	grep -i 'optimi[sz]\|left as it was' "$tmpdir/fsck" |
		grep -v '^Pass' | sed 's/^/    /'
	_clean=0
	if "$E2FSCK" -fn "$_img" >"$tmpdir/log" 2>&1; then
		ok "$_t: e2fsck -fn exit 0"
		_clean=1
	else
		fail "$_t: e2fsck -fn after extkit-fsck -fyD"
		grep -v '^Pass\|^e2fsck 1' "$tmpdir/log" | sed 's/^/    /' |
			head -12
	fi
	_i=0
	for d in "$@"; do
		names "$_img" "$d" >"$tmpdir/after"
		if cmp -s "$_img.n$_i" "$tmpdir/after"; then
			ok "$_t $d: same $(wc -l <"$tmpdir/after") names, inodes, modes"
		else
			fail "$_t $d: names, inodes or modes changed:"
			diff "$_img.n$_i" "$tmpdir/after" | sed -n '2,6s/^/    /p'
		fi
		_i=$((_i + 1))
		run_dump "$tmpdir/frag" "$tmpdir/err" --json "$_img" frag "$d"
		_r=$(reclaimable "$tmpdir/frag")
		[ "$_r" = 0 ] && ok "$_t $d: frag: 0 reclaimable blocks" ||
			fail "$_t $d: frag: ${_r:-no figure} reclaimable blocks$(refused "$tmpdir/frag" | sed 's/^/, compaction refused: /')"
	done
	# Any other directory left with reclaimable blocks: a reason given.
	run_dump "$tmpdir/frag" "$tmpdir/err" --json "$_img" frag
	grep -q '"top_directories"' "$tmpdir/frag" ||
		fail "$_t: no frag report of the whole filesystem"
	left "$tmpdir/frag" >"$tmpdir/left"
	while read -r _ino _n; do
		run_dump "$tmpdir/frag" "$tmpdir/err" --json "$_img" frag "<$_ino>"
		_why=$(said "$_ino")
		[ -n "$_why" ] || _why=$(refused "$tmpdir/frag")
		[ -n "$_why" ] &&
			ok "$_t: inode $_ino left with $_n reclaimable: $_why" ||
			fail "$_t: inode $_ino left with $_n reclaimable, no reason"
	done <"$tmpdir/left"
	# A second run finds nothing to do (on a clean image: repairing a
	# damaged one can take minutes).
	[ "$_clean" = 1 ] || return
	_sum=$(imgsum "$_img")
	cp "$_img" "$_img.e2"
	"$E2FSCK" -fyD "$_img.e2" >/dev/null 2>&1
	_e2rc=$?
	rm -f "$_img.e2"
	timeout -k 5 120 "$FSCK" -fyD "$_img" >"$tmpdir/fsck" 2>&1
	_rc=$?
	[ "$_rc" -eq 0 ] && [ "$_sum" = "$(imgsum "$_img")" ] &&
		ok "$_t: second run exit 0, nothing written" ||
		fail "$_t: second run exit $_rc"
}

# ro_ls IMG DIR...: a kernel read-only mount lists the names debugfs
# lists.
ro_ls() {
	_img=$1
	shift
	kmount "$_img" ro ||
		{ fail "$(basename "$_img"): ro mount refused"; return; }
	for d in "$@"; do
		ls -A "$mnt$d" | sort >"$tmpdir/kls"
		names "$_img" "$d" | awk '$3 != "." && $3 != ".." { print $3 }' |
			sort >"$tmpdir/dls"
		cmp -s "$tmpdir/kls" "$tmpdir/dls" &&
			ok "$(basename "$_img") $d: kernel lists the same $(wc -l <"$tmpdir/kls") names" ||
			fail "$(basename "$_img") $d: kernel lists other names"
	done
	kumount
}

# shape NAME: a heading with the seconds spent so far.
t0=$(date +%s)
shape() {
	echo "== $1 ($(($(date +%s) - t0)) s)"
}

# --- k4c: ext4 4 KiB with metadata_csum ---
shape k4c
img=$tmpdir/k4c.img
newfs "$img" 24M -t ext4 -b 4096 -N 8192 -O metadata_csum
kmount "$img" nodelalloc,noinit_itable ||
	skip "mount -o loop refused: $(cat "$tmpdir/err")"
k fill "$mnt/fill" 4096 + make "$mnt/small" 20 12 + \
	make "$mnt/d1" 3000 24 + delete "$mnt/d1" 70 1
kumount
expect "k4c /small extent depth" "$(depth "$img" /small)" 0
expect "k4c /d1 extent depth" "$(depth "$img" /d1)" 1
expect "k4c /d1 htree levels" "$(levels "$img" /d1)" 1
cp "$img" "$tmpdir/selftest.img"
check "$img" /small /d1 /fill
ro_ls "$img" /small /d1

# The name check can fail: a name unlinked behind its back is seen.
names "$tmpdir/selftest.img" /d1 >"$tmpdir/st.before"
"$DEBUGFS" -w -R "unlink /d1/$(awk 'NR == 9 { print $3 }' \
	"$tmpdir/st.before")" "$tmpdir/selftest.img" >/dev/null 2>&1
names "$tmpdir/selftest.img" /d1 | cmp -s - "$tmpdir/st.before" &&
	fail "self-test: an unlinked name went unseen" ||
	ok "self-test: an unlinked name is seen"
rm -f "$tmpdir/selftest.img"

# --- k4: ext4 4 KiB without metadata_csum ---
shape k4
img=$tmpdir/k4.img
newfs "$img" 24M -t ext4 -b 4096 -N 8192 -O ^metadata_csum
kmount "$img" nodelalloc,noinit_itable || exit 99
k fill "$mnt/fill" 4096 + make "$mnt/d1" 3000 24 + delete "$mnt/d1" 60 2 + \
	make "$mnt/mid" 150 40 + delete "$mnt/mid" 90 3
kumount
expect "k4 /d1 extent depth" "$(depth "$img" /d1)" 1
expect "k4 /mid extent depth" "$(depth "$img" /mid)" 0
mid_blocks=$("$DEBUGFS" -R "blocks /mid" "$img" 2>/dev/null | wc -w)
# 3 or 4 blocks, as the htree's leaf splits fall (a depth-0 extent list).
[ "$mid_blocks" -ge 3 ] && [ "$mid_blocks" -le 4 ] &&
	ok "k4 /mid blocks: $mid_blocks" ||
	fail "k4 /mid blocks: $mid_blocks, expected 3 or 4 (the shape is" \
		"not the one meant)"
check "$img" /d1 /mid

# --- k1c: ext4 1 KiB with metadata_csum, long names ---
shape k1c
img=$tmpdir/k1c.img
newfs "$img" 8M -t ext4 -b 1024 -N 8192 -O metadata_csum
kmount "$img" nodelalloc,noinit_itable || exit 99
k fill "$mnt/fill" 1024 + make "$mnt/deep" 1500 200 + delete "$mnt/deep" 80 4
kumount
expect "k1c /deep extent depth" "$(depth "$img" /deep)" 2
expect "k1c /deep htree levels" "$(levels "$img" /deep)" 2
check "$img" /deep

# --- k4big: 200,000 entries ---
shape k4big
img=$tmpdir/k4big.img
newfs "$img" 48M -t ext4 -b 4096 -N 16384 -O ^has_journal,^metadata_csum
kmount "$img" nodelalloc,noinit_itable || exit 99
k fill "$mnt/fill" 4096 + make "$mnt/huge" 200000 20 1 + \
	delete "$mnt/huge" 70 5
kumount
expect "k4big /huge extent depth" "$(depth "$img" /huge)" 2
expect "k4big /huge htree levels" "$(levels "$img" /huge)" 2
check "$img" /huge
ro_ls "$img" /huge

# --- e1c: ext2 1 KiB, metadata_csum, dir_index ---
shape e1c
img=$tmpdir/e1c.img
newfs "$img" 16M -t ext2 -b 1024 -N 8192 -O metadata_csum
kmount "$img" noinit_itable || exit 99
k make "$mnt/ind" 6000 40 + delete "$mnt/ind" 75 6
kumount
"$DEBUGFS" -R "stat /ind" "$img" 2>/dev/null | grep -q '(DIND)' &&
	ok "e1c /ind: mapped through a double indirect block" ||
	fail "e1c /ind: no double indirect block (the shape is not the one meant)"
expect "e1c /ind htree levels" "$(levels "$img" /ind)" 2
check "$img" /ind
ro_ls "$img" /ind

# --- e4: ext2 4 KiB, linear ---
shape e4
img=$tmpdir/e4.img
newfs "$img" 32M -t ext2 -b 4096 -O ^dir_index
kmount "$img" noinit_itable || exit 99
k make "$mnt/lin" 5000 24 + delete "$mnt/lin" 60 7
kumount
"$DEBUGFS" -R "stat /lin" "$img" 2>/dev/null | grep -q '(IND)' &&
	ok "e4 /lin: mapped through an indirect block" ||
	fail "e4 /lin: no indirect block (the shape is not the one meant)"
check "$img" /lin

# --- e1h: ext2 1 KiB, a hole in the indirect map ---
shape e1h
img=$tmpdir/e1h.img
newfs "$img" 8M -t ext2 -b 1024 -O ^dir_index
kmount "$img" noinit_itable || exit 99
k make "$mnt/hole" 600 60
kumount
# block 15 (behind the indirect block) emptied, then punched
blk=$("$DEBUGFS" -R "bmap /hole 15" "$img" 2>/dev/null)
k block "$img" 1024 "$blk" | sed 's|^|rm /hole/|' >"$tmpdir/cmds"
echo "punch /hole 15 15" >>"$tmpdir/cmds"
"$DEBUGFS" -w -f "$tmpdir/cmds" "$img" >/dev/null 2>&1
[ "$("$DEBUGFS" -R "bmap /hole 15" "$img" 2>/dev/null)" = 0 ] &&
	ok "e1h /hole: block 15 is a hole" ||
	fail "e1h /hole: block 15 not punched"
check "$img" /hole

# --- x64c, x64: 64 KiB blocks, built by debugfs ---
# 2,400 fifos with 200-byte names, a one-block file after every 150:
# the directory's blocks scatter. Then 70% deleted (a seeded
# Park-Miller sequence picks them).
echo x >"$tmpdir/onebyte"
awk -v tmp="$tmpdir" 'BEGIN { print "mkdir /s"; print "cd /s"
	for (i = 0; i < 2400; i++) {
		n = sprintf("e%06d_", i)
		while (length(n) < 200) n = n "abcdefghij"
		print "mknod " substr(n, 1, 200) " p"
		if (i % 150 == 0)
			print "write " tmp "/onebyte f" i
	} }' >"$tmpdir/mk64"
for t in x64c x64; do
	shape "$t"
	img=$tmpdir/$t.img
	if [ "$t" = x64c ]; then
		newfs "$img" 64M -t ext4 -b 65536 -N 4096 -O metadata_csum
	else
		newfs "$img" 64M -t ext2 -b 65536 -N 4096
	fi
	"$DEBUGFS" -w -f "$tmpdir/mk64" "$img" >/dev/null 2>&1
	names "$img" /s | awk 'BEGIN { x = 8 } $3 != "." && $3 != ".." {
		x = (x * 16807) % 2147483647
		if (x % 100 < 70) print "rm /s/" $3 }' >"$tmpdir/cmds"
	"$DEBUGFS" -w -f "$tmpdir/cmds" "$img" >/dev/null 2>&1
	[ "$t" = x64c ] &&
		expect "x64c /s extent depth" "$(depth "$img" /s)" 1
	check "$img" /s
done

# --- full: a directory that cannot be compacted is left as it was ---
# 50 entries of 60 bytes fill 3 blocks of 1 KiB to the last 4 bytes.
img=$tmpdir/full.img
newfs "$img" 2M -t ext2 -b 1024 -O ^dir_index,^resize_inode -N 128
kmount "$img" noinit_itable || exit 99
k make "$mnt/full" 50 52
kumount
# grow: the same with free blocks; indexing adds a block, frees none.
cp "$img" "$tmpdir/grow.img"
"$DEBUGFS" -w -R "feature dir_index" "$tmpdir/grow.img" >/dev/null 2>&1
shape grow
check "$tmpdir/grow.img" /full
[ "$(levels "$tmpdir/grow.img" /full)" = 1 ] &&
	ok "grow /full: indexed by -D" || fail "grow /full: not indexed by -D"
shape full
kmount "$img" noinit_itable || exit 99
k stuff "$mnt" 1024
kumount
"$DEBUGFS" -w -R "feature dir_index" "$img" >/dev/null 2>&1
free=$("$DUMPE2FS" -h "$img" 2>/dev/null | awk '/^Free blocks:/ { print $3 }')
expect "full: free blocks" "$free" 0
expect "full /full: blocks" \
	"$("$DEBUGFS" -R "blocks /full" "$img" 2>/dev/null | wc -w)" 3
"$E2FSCK" -fn "$img" >/dev/null 2>&1 || fail "full: not clean before -D"
ino=$(ino_of "$img" /full)
# dirblocks IMG: the blocks of /full, one after the other.
dirblocks() {
	for b in $("$DEBUGFS" -R "blocks /full" "$1" 2>/dev/null); do
		dd if="$1" bs=1024 skip="$b" count=1 2>/dev/null
	done
}
dirblocks "$img" >"$tmpdir/blocks0"
"$DEBUGFS" -R "stat /full" "$img" 2>/dev/null >"$tmpdir/stat0"
sum=$(imgsum "$img")
timeout -k 5 120 "$FSCK" -fyD "$img" >"$tmpdir/fsck" 2>&1
rc=$?
dirblocks "$img" >"$tmpdir/blocks1"
"$DEBUGFS" -R "stat /full" "$img" 2>/dev/null >"$tmpdir/stat1"
cmp -s "$tmpdir/blocks0" "$tmpdir/blocks1" &&
	ok "full /full: every block byte-identical" ||
	fail "full /full: its blocks changed"
cmp -s "$tmpdir/stat0" "$tmpdir/stat1" &&
	ok "full /full: inode as it was" ||
	{ fail "full /full: inode changed"; diff "$tmpdir/stat0" "$tmpdir/stat1" |
		sed 's/^/    /' | head; }
changed=0
[ "$sum" = "$(imgsum "$img")" ] || changed=1
[ "$rc" -eq "$changed" ] &&
	ok "full: extkit-fsck -fyD exit $rc, image changed $changed" ||
	fail "full: extkit-fsck -fyD exit $rc, image changed $changed"
said "$ino" | grep -q 'not optimized\|left as it was' &&
	ok "full: $(said "$ino")" ||
	{ fail "full: no message that inode $ino was left as it was"
	  sed 's/^/    /' "$tmpdir/fsck" | head; }
"$E2FSCK" -fn "$img" >/dev/null 2>&1 && ok "full: e2fsck -fn exit 0" ||
	fail "full: e2fsck -fn after extkit-fsck -fyD"
shape end
finish
