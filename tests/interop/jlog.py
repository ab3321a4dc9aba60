#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Edits the internal journal of ext4 images, for the journal tests.
Python starts slowly here: one run does a batch, one edit per line of
FILE (jlog.py batch FILE), each line as the arguments below; or
"data DIR" writes the seeded data files of the tests.

  jlog.py IMG BLOCKS rotate M      moves the log so that it starts M
                                   blocks before the end of the log area
                                   (it wraps around to s_first)
  jlog.py IMG BLOCKS corrupt K OFF flips a byte at OFF of the K-th log
                                   block after s_start
  jlog.py IMG BLOCKS fuzz SEED     garbage in the log blocks after their
                                   12-byte headers (tags, revoke counts)
  jlog.py IMG BLOCKS loop          every log block a descriptor of the
                                   expected transaction: a log that never
                                   ends (no commit)

BLOCKS is a file with the journal's physical blocks in logical order
(debugfs 'blocks <8>'). Every jbd2 field is big-endian.
"""
import random
import struct
import sys


def data(d):
    """d1..d4 for 1 KiB and 4 KiB blocks: 3, 2, 1, 1 seeded blocks; d1
    and d3 start with the jbd2 magic (the log stores them escaped)."""
    for bs in (1024, 4096):
        for k, n, magic in ((1, 3, 1), (2, 2, 0), (3, 1, 1), (4, 1, 0)):
            r = random.Random(k)
            b = bytearray(r.getrandbits(8) for _ in range(bs * n))
            if magic:
                b[0:4] = bytes.fromhex('c03b3998')
            with open('%s/d%d_%d' % (d, k, bs), 'wb') as f:
                f.write(b)


def main():
    if sys.argv[1] == 'batch':
        with open(sys.argv[2]) as f:
            for line in f:
                if line.strip():
                    edit(line.split())
    elif sys.argv[1] == 'data':
        data(sys.argv[2])
    else:
        edit(sys.argv[1:])


def edit(argv):
    img, blist, op = argv[0], argv[1], argv[2]
    with open(blist) as f:
        phys = [int(x) for x in f.read().split()]
    with open(img, 'r+b') as f:
        f.seek(1024 + 24)
        bs = 1024 << struct.unpack('<I', f.read(4))[0]

        def rd(i):
            f.seek(phys[i] * bs)
            return bytearray(f.read(bs))

        def wr(i, data):
            f.seek(phys[i] * bs)
            f.write(data)

        sb = rd(0)
        maxlen, first, _, start = struct.unpack('>IIII', sb[16:32])
        if op == 'rotate':
            m = int(argv[3])
            n = maxlen - first
            log = [rd(first + k) for k in range(n)]
            new_start = maxlen - m
            for k in range(n):
                dst = first + (new_start - first + k) % n
                wr(dst, log[(start - first + k) % n])
            # s_start moves; with csum v2/v3 the checksum follows
            struct.pack_into('>I', sb, 28, new_start)
            feat = struct.unpack('>I', sb[0x28:0x2c])[0]
            if feat & 0x18:
                struct.pack_into('>I', sb, 0xfc, crc32c(sb[:1024], 0xfc))
            wr(0, sb)
        elif op == 'fuzz':
            r = random.Random(int(argv[3]))
            for k in range(24):
                i = first + (start - first + k) % (maxlen - first)
                blk = rd(i)
                if blk[0:4] != b'\xc0\x3b\x39\x98':
                    continue
                for _ in range(r.randint(1, 12)):
                    blk[r.randrange(12, min(bs, 200))] = r.getrandbits(8)
                wr(i, blk)
        elif op == 'loop':
            seq = struct.unpack('>I', sb[24:28])[0]
            for i in range(first, maxlen):
                blk = bytearray(bs)
                struct.pack_into('>III', blk, 0, 0xc03b3998, 1, seq)
                struct.pack_into('>IHH', blk, 12, 100, 0, 2 | 8)
                wr(i, blk)
        elif op == 'corrupt':
            k, off = int(argv[3]), int(argv[4])
            i = first + (start - first + k) % (maxlen - first)
            blk = rd(i)
            blk[off] ^= 0x5a
            wr(i, blk)


def crc32c(data, zero_at):
    """crc32c(~0) of data with 4 bytes at zero_at read as zero, no final
    inversion (as jbd2 computes it)."""
    buf = bytes(data[:zero_at]) + b'\0\0\0\0' + bytes(data[zero_at + 4:])
    crc = 0xffffffff
    for b in buf:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82f63b78 if crc & 1 else 0)
    return crc


if __name__ == '__main__':
    main()
