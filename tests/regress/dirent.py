# SPDX-License-Identifier: GPL-2.0-or-later
"""Byte edits for the f_ case scripts.

dirent.py IMAGE BS BLOCK OFFSET FIELD VALUE
  FIELD: ino, rec_len, name_len, ft, name, u8@N, u16@N, u32@N (N: byte
  offset added to OFFSET), fill (VALUE bytes of 0xA5-ish garbage from a
  fixed seed), zero (VALUE bytes of zeros)
"""
import struct
import sys


def main():
    img, bs, blk, off, field, val = sys.argv[1:7]
    bs, blk, off = int(bs), int(blk), int(off)
    with open(img, 'r+b') as f:
        f.seek(blk * bs)
        b = bytearray(f.read(bs))
        if field == 'ino':
            struct.pack_into('<I', b, off, int(val))
        elif field == 'rec_len':
            struct.pack_into('<H', b, off + 4, int(val))
        elif field == 'name_len':
            b[off + 6] = int(val)
        elif field == 'ft':
            b[off + 7] = int(val)
        elif field == 'name':
            raw = val.encode().decode('unicode_escape').encode('latin-1')
            b[off + 8:off + 8 + len(raw)] = raw
        elif field.startswith(('u8@', 'u16@', 'u32@')):
            kind, at = field.split('@')
            fmt = {'u8': '<B', 'u16': '<H', 'u32': '<I'}[kind]
            struct.pack_into(fmt, b, off + int(at), int(val, 0))
        elif field == 'fill':
            x = 12345
            for i in range(int(val)):
                x = (x * 1103515245 + 12345) & 0x7fffffff
                b[off + i] = (x >> 16) & 0xff
        elif field == 'zero':
            b[off:off + int(val)] = bytes(int(val))
        else:
            sys.exit('unknown field ' + field)
        f.seek(blk * bs)
        f.write(b)


if __name__ == '__main__':
    main()
