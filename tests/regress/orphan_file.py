#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Puts inode numbers into a block of the orphan file, as the kernel does
while a file is orphaned, and sets the block's checksum (metadata_csum).

  orphan_file.py IMAGE PBLK GEN OFINO SLOT=INO... [--bad-csum]

PBLK: the physical block, GEN: the orphan file's i_generation, OFINO:
its inode number. Checksum (fs/ext4/orphan.c): crc32c seeded with the
filesystem seed, then OFINO and GEN (le32), over PBLK (le64) and the
slots; stored in the block's last 4 bytes, the magic before it.
"""
import struct
import sys

from ext4crc import crc32c


def main():
    args = [a for a in sys.argv[1:] if not a.startswith('--')]
    bad = '--bad-csum' in sys.argv
    img, pblk, gen, ofino = args[0], int(args[1]), int(args[2]), int(args[3])
    with open(img, 'r+b') as f:
        f.seek(1024)
        sb = f.read(1024)
        bs = 1024 << struct.unpack_from('<I', sb, 0x18)[0]
        incompat = struct.unpack_from('<I', sb, 0x60)[0]
        ro_compat = struct.unpack_from('<I', sb, 0x64)[0]
        if incompat & 0x2000:
            seed = struct.unpack_from('<I', sb, 0x270)[0]
        else:
            seed = crc32c(0xFFFFFFFF, sb[0x68:0x78])
        f.seek(pblk * bs)
        blk = bytearray(f.read(bs))
        for a in args[4:]:
            slot, ino = (int(x) for x in a.split('='))
            struct.pack_into('<I', blk, 4 * slot, ino)
        if ro_compat & 0x400:       # metadata_csum
            crc = crc32c(seed, struct.pack('<II', ofino, gen))
            crc = crc32c(crc, struct.pack('<Q', pblk))
            crc = crc32c(crc, bytes(blk[:bs - 8]))
            if bad:
                crc ^= 1
            struct.pack_into('<I', blk, bs - 4, crc)
        f.seek(pblk * bs)
        f.write(blk)


if __name__ == '__main__':
    main()
