#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# extkit-label on the ext3/ext4 shapes of ext4_matrix.sh (smaller sizes):
# on an image extkit-mkfs made, extkit-label sets a label and e2label sets
# the same one on a copy; the two images must be byte-identical (the
# label in the primary and every backup superblock, the superblock
# checksum with metadata_csum, nothing else written), e2fsck -fn exits 0,
# a backup superblock carries the label and extkit-label prints it back.
# The images are compared where either holds data (SEEK_DATA), so
# terabyte images cost no more than small ones.
. "${top_srcdir:-.}/tests/lib.sh"
. "$top_srcdir/tests/mkfs/mkfs-lib.sh"
need_tools e2fsck dumpe2fs e2label
command -v python3 >/dev/null || skip "no python3 (sparse comparison)"
LABEL=$top_builddir/extkit-label
MKE2FS_CONFIG=$top_srcdir/tests/mkfs/mke2fs-ext4.conf
export MKE2FS_CONFIG
TIMEOUT=${TIMEOUT_LONG:-60}
img=$tmpdir/l4.img
ref=$tmpdir/l4-e2label.img
NAME=vol-0123456789ab

# backup_label IMAGE: the label in the first backup superblock ("none"
# with a single group).
backup_label() {
	"$DUMPE2FS" -h "$1" 2>/dev/null >"$tmpdir/h"
	field() { sed -n "s/^$1:[[:space:]]*//p" "$tmpdir/h"; }
	bs=$(field 'Block size')
	first=$(field 'First block')
	bpg=$(field 'Blocks per group')
	if [ "$(field 'Block count')" -le $((first + bpg)) ]; then
		echo none
		return
	fi
	"$DUMPE2FS" -o superblock=$((first + bpg)) -o blocksize="$bs" -h \
		"$1" 2>/dev/null | sed -n 's/^Filesystem volume name: *//p'
}

# same_sparse A B: the files hold the same bytes, read only where either
# has data (SEEK_DATA): a terabyte of holes costs nothing.
same_sparse() {
	python3 - "$1" "$2" <<'PY'
import os, sys

def data_ranges(fd, size):
    off, out = 0, []
    while off < size:
        try:
            start = os.lseek(fd, off, os.SEEK_DATA)
        except OSError:
            break
        end = os.lseek(fd, start, os.SEEK_HOLE)
        out.append((start, end))
        off = end
    return out

fds = [os.open(p, os.O_RDONLY) for p in sys.argv[1:3]]
sizes = [os.fstat(fd).st_size for fd in fds]
if sizes[0] != sizes[1]:
    sys.exit(1)
for start, end in sorted(data_ranges(fds[0], sizes[0]) +
                         data_ranges(fds[1], sizes[1])):
    while start < end:
        n = min(end - start, 1 << 20)
        if os.pread(fds[0], n, start) != os.pread(fds[1], n, start):
            print("first difference in bytes %d..%d" % (start, start + n))
            sys.exit(1)
        start += n
PY
}

# one SIZE ARGS...
one() {
	size=$1
	shift
	desc="$size $*"
	rm -f "$img" "$ref"
	if ! run_mkfs "$tmpdir/out" "$tmpdir/err" -q -U "$TEST_UUID" \
			-E "hash_seed=$TEST_SEED" "$@" "$img" "$size"; then
		fail "$desc: extkit-mkfs: $(head -1 "$tmpdir/err")"
		return
	fi
	cp --sparse=always "$img" "$ref"
	if ! timeout -k 5 "$TIMEOUT" "$LABEL" "$img" "$NAME" \
			2>"$tmpdir/err"; then
		fail "$desc: extkit-label: $(head -1 "$tmpdir/err")"
		return
	fi
	"$E2LABEL" "$ref" "$NAME" || { fail "$desc: e2label"; return; }
	if ! same_sparse "$img" "$ref" >"$tmpdir/cmp"; then
		fail "$desc: differs from e2label's image"
		sed 's/^/    /' "$tmpdir/cmp"
		return
	fi
	fsck_clean "$desc" "$img" || return
	got=$("$LABEL" "$img")
	bk=$(backup_label "$img")
	if [ "$got" = "$NAME" ] && { [ "$bk" = "$NAME" ] || [ "$bk" = none ]; }; then
		ok "$desc: label set, image as e2label's, backup: $bk, e2fsck clean"
	else
		fail "$desc: prints '$got', backup '$bk'"
	fi
}

t=$tmpdir
one 1M -t ext4
one 3M -t ext4 -O ^metadata_csum
one 33M -t ext3 -b 1024
one 64M -t ext4 -I 128 -G 4
one 100M -t ext4 -b 2048 -O ^64bit
one 300M -t ext4 -I 1024 -O sparse_super2
one 256M -t ext4 -b 65536
one 200M -t ext3 -E stride=7
one 512M -t ext4
one 256M -t ext4 -b 1024 -O meta_bg,^resize_inode -G 64
one 300M -t ext4 -O sparse_super2 -E num_backup_sb=1
one 300M -t ext4 -O ^flex_bg -E stride=16,stripe_width=32
one 256M -t ext4 -b 1024 -O ^has_journal
one 300M -t ext4 -O ^64bit,^metadata_csum -J size=16
one 256M -t ext4 -b 1024 -G 4 -E packed_meta_blocks=1
one 1T -t ext4
finish
