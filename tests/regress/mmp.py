# SPDX-License-Identifier: GPL-2.0-or-later
"""Sets the sequence (and node name) of an image's MMP block, checksum
included (debugfs set_mmp_value cannot: closing resets the sequence).

mmp.py IMAGE SEQ [NODENAME]
"""
import struct
import sys

from ext4crc import crc32c


def main():
    img, seq = sys.argv[1], int(sys.argv[2], 0)
    with open(img, 'r+b') as f:
        f.seek(1024)
        sb = f.read(1024)
        bs = 1024 << struct.unpack_from('<I', sb, 0x18)[0]
        blk = struct.unpack_from('<Q', sb, 0x168)[0]
        ro_compat = struct.unpack_from('<I', sb, 0x64)[0]
        incompat = struct.unpack_from('<I', sb, 0x60)[0]
        f.seek(blk * bs)
        mmp = bytearray(f.read(1024))
        struct.pack_into('<I', mmp, 4, seq)
        if len(sys.argv) > 3:
            name = sys.argv[3].encode()[:63]
            mmp[16:80] = name + bytes(64 - len(name))
        if ro_compat & 0x400:
            if incompat & 0x2000:
                seed = struct.unpack_from('<I', sb, 0x270)[0]
            else:
                seed = crc32c(0xFFFFFFFF, sb[0x68:0x78])
            struct.pack_into('<I', mmp, 1020, crc32c(seed, mmp[:1020]))
        f.seek(blk * bs)
        f.write(mmp)


main()
