# SPDX-License-Identifier: GPL-2.0-or-later
"""The kernel's leftover tail in an htree root, for the f_ case scripts.

dxtail.py IMAGE BS BLOCK INO
  BLOCK is the htree root of directory INO (metadata_csum, no
  csum_seed feature). When the kernel turns a one-block directory into
  an index, the leaf's checksum tail record stays where the dx_tail
  lies: dt_reserved then reads as a tail header (inode 0, rec_len 12,
  name_len 0, file type 0xDE). Writes that pattern into dt_reserved and
  sets dt_checksum to the valid index checksum (the kernel's
  ext4_dx_csum over the header, the used entries and dt_reserved).
"""
import struct
import sys

from ext4crc import crc32c


def main():
    img, bs, blk, ino = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), \
        int(sys.argv[4])
    with open(img, 'r+b') as f:
        f.seek(1024)
        sb = f.read(1024)
        ipg = struct.unpack_from('<I', sb, 40)[0]
        isz = struct.unpack_from('<H', sb, 88)[0]
        dsz = struct.unpack_from('<H', sb, 0xFE)[0] if \
            struct.unpack_from('<I', sb, 0x60)[0] & 0x80 else 32
        gdt = (1 if bs == 1024 else 0) + 1
        g, i = divmod(ino - 1, ipg)
        f.seek(gdt * bs + g * dsz + 8)
        itable = struct.unpack('<I', f.read(4))[0]
        f.seek(itable * bs + i * isz + 0x64)
        gen = struct.unpack('<I', f.read(4))[0]
        f.seek(blk * bs)
        b = bytearray(f.read(bs))
        # '.' (12) and '..' (to the block end), then dx_root_info (8)
        limit_at = 32
        limit, count = struct.unpack_from('<HH', b, limit_at)
        tail = limit_at + limit * 8
        # dt_reserved as the leftover tail header's second half
        b[tail:tail + 4] = bytes([0x0c, 0x00, 0x00, 0xde])
        seed = crc32c(0xFFFFFFFF, sb[0x68:0x78])
        seed = crc32c(seed, struct.pack('<I', ino))
        seed = crc32c(seed, struct.pack('<I', gen))
        c = crc32c(seed, b[:limit_at + count * 8])
        c = crc32c(c, b[tail:tail + 4])
        c = crc32c(c, bytes(4))
        struct.pack_into('<I', b, tail + 4, c)
        f.seek(blk * bs)
        f.write(b)


if __name__ == '__main__':
    main()
