# SPDX-License-Identifier: GPL-2.0-or-later
"""Damages the fast-commit area of an ext4 image the way a torn write or
a bad disk would, for tests/interop/fast_commit.sh.

fcmangle.py IMAGE BLOCKSIZE BLOCKS MODE [ARG]

BLOCKS is a file with the filesystem block of each journal block of the
fast-commit area, in order (from `debugfs -R "bmap <8> N"`). The area is
a list of tags (struct ext4_fc_tl: le16 tag, le16 length, value); each
fast commit ends in a TAIL (le32 tid, le32 crc32c from 0 over the tags
since the previous TAIL, up to its own tid). MODE:

  flip K      one byte inside the first tag of fast commit K (from 0)
              flipped, the crc left as it was: K and later are dropped
  badlen K    the first tag of fast commit K claims a length past the
              end of its block
  outside B   the first ADD_RANGE maps block B (past the filesystem);
              every crc recomputed so the area checks out
  meta B      the same with B a metadata block (an inode table)
  badino      the first INODE tag names inode 0xfffffff0; crcs redone
  unknown K   the first tag of fast commit K gets tag number 0x77
"""
import struct
import sys

sys.path.insert(0, sys.argv[0].rsplit('/', 2)[0] + '/regress')
from ext4crc import crc32c  # noqa: E402

ADD_RANGE, INODE, PAD, TAIL, HEAD = 1, 6, 7, 8, 9


def tags(area, bs):
    """(offset, tag, length) of every tag, block by block, to the first
    tag 0 at the start of a block."""
    out = []
    for base in range(0, len(area), bs):
        off = 0
        while off + 4 <= bs:
            tag, length = struct.unpack_from('<HH', area, base + off)
            if tag == 0 or off + 4 + length > bs:
                if off == 0:
                    return out
                break
            out.append((base + off, tag, length))
            off += 4 + length
    return out


def commits(tl):
    """The tag lists of each fast commit (split after each TAIL)."""
    out, cur = [], []
    for t in tl:
        cur.append(t)
        if t[1] == TAIL:
            out.append(cur)
            cur = []
    return out


def fix_crcs(area, tl):
    crc = 0
    for off, tag, length in tl:
        if tag == TAIL:
            crc = crc32c(crc, area[off:off + 8])
            struct.pack_into('<I', area, off + 8, crc)
            crc = 0
        else:
            crc = crc32c(crc, area[off:off + 4 + length])


def first(tl, kind):
    return next(t for t in tl if t[1] == kind)


def main():
    img, bs, blocks, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3], \
        sys.argv[4]
    arg = int(sys.argv[5], 0) if len(sys.argv) > 5 else 0
    blks = [int(x) for x in open(blocks).read().split()]
    with open(img, 'r+b') as f:
        area = bytearray()
        for b in blks:
            f.seek(b * bs)
            area += f.read(bs)
        tl = tags(area, bs)
        cs = commits(tl)
        if mode == 'flip':
            off, tag, length = next(t for t in cs[arg] if t[1] != HEAD)
            area[off + 4 + length // 2] ^= 0x5a
        elif mode == 'badlen':
            off = cs[arg][0][0]
            struct.pack_into('<H', area, off + 2, bs)
        elif mode == 'unknown':
            off = next(t for t in cs[arg] if t[1] != HEAD)[0]
            struct.pack_into('<H', area, off, 0x77)
        elif mode in ('outside', 'meta'):
            off = first(tl, ADD_RANGE)[0]
            struct.pack_into('<HI', area, off + 4 + 10, arg >> 32,
                             arg & 0xffffffff)
            fix_crcs(area, tl)
        elif mode == 'badino':
            off = first(tl, INODE)[0]
            struct.pack_into('<I', area, off + 4, 0xfffffff0)
            fix_crcs(area, tl)
        else:
            sys.exit('unknown mode ' + mode)
        for i, b in enumerate(blks):
            f.seek(b * bs)
            f.write(area[i * bs:(i + 1) * bs])


main()
