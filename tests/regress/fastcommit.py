# SPDX-License-Identifier: GPL-2.0-or-later
"""Forges a fast commit (ext4 fast_commit) after a journal's log, as the
kernel leaves one when it crashes: the journal superblock gets the jbd2
fast-commit feature (incompat 0x20, checksum redone under csum v3), and
the first block of the fast-commit area (one past the log's end,
s_maxlen - s_num_fc_blks + 1) a commit of transaction TID: a head tag,
an inode tag holding inode INO as it is on disk with i_mtime set to
MTIME, and a tail tag with the commit's crc32c (chained from 0 over the
tags before it; ext4's fast_commit.h and e2fsck's fast-commit scan).

fastcommit.py IMAGE BLOCKSIZE JSB_BLOCK FC_BLOCK TID INO INODE_BLOCK
              INODE_OFFSET INODE_SIZE MTIME [badcrc]
(badcrc: the tail's crc is off by one, so no fast commit checks out)
More tags after the inode tag, from FC_EXTRA (comma-separated):
  A:INO:LBLK:PBLK:LEN   ADD_RANGE      D:INO:LBLK:LEN   DEL_RANGE
  L:PARENT:INO:NAME     LINK           U:PARENT:INO:NAME  UNLINK
(blocks are filesystem blocks; debugfs bmap <8> and imap find them)
"""
import os
import struct
import sys

from ext4crc import crc32c

TAG_INODE, TAG_TAIL, TAG_HEAD = 6, 8, 9
TAG_ADD, TAG_DEL, TAG_LINK, TAG_UNLINK = 1, 2, 4, 5


def tag(kind, value):
    return struct.pack('<HH', kind, len(value)) + value


def extra_tags():
    out = b''
    for item in filter(None, os.environ.get('FC_EXTRA', '').split(',')):
        f = item.split(':')
        if f[0] == 'A':
            ino, lblk, pblk, n = (int(x) for x in f[1:5])
            out += tag(TAG_ADD, struct.pack('<IIHHI', ino, lblk, n,
                                             pblk >> 32, pblk & 0xffffffff))
        elif f[0] == 'D':
            out += tag(TAG_DEL, struct.pack('<III', *(int(x) for x in f[1:4])))
        elif f[0] in 'LU':
            out += tag(TAG_LINK if f[0] == 'L' else TAG_UNLINK,
                       struct.pack('<II', int(f[1]), int(f[2])) +
                       f[3].encode())
    return out


def main():
    (img, bs, jsb, fcb, tid, ino, iblk, ioff, isize,
     mtime) = [sys.argv[1]] + [int(a, 0) for a in sys.argv[2:11]]
    badcrc = sys.argv[11:] == ['badcrc']
    with open(img, 'r+b') as f:
        f.seek(jsb * bs)
        sb = bytearray(f.read(1024))
        incompat = struct.unpack_from('>I', sb, 0x28)[0] | 0x20
        struct.pack_into('>I', sb, 0x28, incompat)
        if incompat & 0x10:
            struct.pack_into('>I', sb, 0xFC, 0)
            struct.pack_into('>I', sb, 0xFC, crc32c(0xFFFFFFFF, sb))
        f.seek(jsb * bs)
        f.write(sb)
        f.seek(iblk * bs + ioff)
        raw = bytearray(f.read(isize))
        extra = struct.unpack_from('<H', raw, 128)[0] if isize > 128 else 0
        raw = raw[:128 + extra]
        struct.pack_into('<I', raw, 0x10, mtime)
        head = tag(TAG_HEAD, struct.pack('<II', 0, tid))
        inode = tag(TAG_INODE, struct.pack('<I', ino) + bytes(raw))
        inode += extra_tags()
        crc = crc32c(0, head + inode)
        tail_tl = struct.pack('<HH', TAG_TAIL, 8) + struct.pack('<I', tid)
        crc = crc32c(crc, tail_tl) ^ badcrc
        block = head + inode + tail_tl + struct.pack('<I', crc)
        f.seek(fcb * bs)
        f.write(block + bytes(bs - len(block)))


main()
