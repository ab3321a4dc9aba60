# SPDX-License-Identifier: GPL-2.0-or-later
"""A directory with many subdirectories, fast, for the f_ case scripts.

manydirs.py IMAGE TEMPLATE PARENT FIRST COUNT DIRDATA

Copies inode TEMPLATE (an empty inline directory made by debugfs, so one
inode holds the whole directory) into inodes FIRST .. FIRST+COUNT-1 with
its parent (the first four bytes of i_block) set to PARENT, and writes to
the local file DIRDATA the blocks of directory PARENT naming them
00000, 00001, ... ('.' and '..', the parent being the root). Debugfs
then writes DIRDATA as PARENT's blocks and makes it a directory; e2fsck
counts the bitmaps. Linking 65,000 names one by one with debugfs or
mke2fs -d takes minutes (each link scans the directory); this takes
well under a second. Needs 32-byte group descriptors and no
metadata_csum (the inodes are copied byte for byte).
"""
import struct
import sys


def main():
    img, tmpl, parent, first, count, out = sys.argv[1:7]
    tmpl, parent, first, count = int(tmpl), int(parent), int(first), \
        int(count)
    with open(img, 'r+b') as f:
        f.seek(1024)
        sb = f.read(1024)
        bs = 1024 << struct.unpack_from('<I', sb, 24)[0]
        ipg = struct.unpack_from('<I', sb, 40)[0]
        isz = struct.unpack_from('<H', sb, 88)[0]
        first_data = struct.unpack_from('<I', sb, 20)[0]
        ngroups = -(-struct.unpack_from('<I', sb, 0)[0] // ipg)
        f.seek((first_data + 1) * bs)
        gdt = f.read(32 * ngroups)
        itable = [struct.unpack_from('<I', gdt, 32 * g + 8)[0]
                  for g in range(ngroups)]

        def where(ino):
            g, i = divmod(ino - 1, ipg)
            return itable[g] * bs + i * isz

        f.seek(where(tmpl))
        raw = bytearray(f.read(isz))
        struct.pack_into('<I', raw, 40, parent)
        ino = first
        while ino < first + count:
            # one write for the run of inodes in this group
            g, i = divmod(ino - 1, ipg)
            n = min(ipg - i, first + count - ino)
            f.seek(where(ino))
            f.write(bytes(raw) * n)
            ino += n
    blocks = []
    blk = bytearray()

    def add(ino, name, ftype):
        nonlocal blk
        rec = 8 + (len(name) + 3) // 4 * 4
        if len(blk) + rec > bs:
            close()
        blk += struct.pack('<IHBB', ino, rec, len(name), ftype) + name
        blk += bytes(rec - 8 - len(name))

    def close():
        nonlocal blk
        # the last record takes the rest of the block
        off = 0
        while True:
            rec = struct.unpack_from('<H', blk, off + 4)[0]
            if off + rec >= len(blk):
                break
            off += rec
        struct.pack_into('<H', blk, off + 4, bs - off)
        blocks.append(bytes(blk) + bytes(bs - len(blk)))
        blk = bytearray()

    add(parent, b'.', 2)
    add(2, b'..', 2)
    for k in range(count):
        add(first + k, b'%05d' % k, 2)
    close()
    with open(out, 'wb') as o:
        o.write(b''.join(blocks))


main()
