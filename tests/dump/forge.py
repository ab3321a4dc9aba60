#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Forges hostile directory entries in a small ext2 image (no checksums,
no htree, direct blocks only), for tests/dump/extract_hostile.sh.

  forge.py IMAGE OP...
  OP: rename:DIR:OLD:NEW    NEW (Python escapes, e.g. nul\\x00x) replaces
                            OLD in directory DIR ("/" or "/sub"); the
                            name_len follows NEW
      setino:DIR:NAME:INO   the entry's inode number
      overlong:DIR:NAME     byte 7 of the entry set to 1 (name_len + 256
                            read as 16 bits; the kernel and e2fsprogs read
                            byte 6 alone, byte 7 as a file type)
      size:PATH:N           i_size (both halves) of the file at PATH
"""
import struct
import sys


class Img:
    def __init__(self, path):
        self.f = open(path, 'r+b')
        sb = self.read(1024, 1024)
        self.bs = 1024 << struct.unpack_from('<I', sb, 24)[0]
        self.ipg = struct.unpack_from('<I', sb, 40)[0]
        self.isz = struct.unpack_from('<H', sb, 88)[0]
        first = struct.unpack_from('<I', sb, 20)[0]
        self.gdt = (first + 1) * self.bs

    def read(self, off, n):
        self.f.seek(off)
        return bytearray(self.f.read(n))

    def write(self, off, b):
        self.f.seek(off)
        self.f.write(b)

    def inode_off(self, ino):
        g, i = divmod(ino - 1, self.ipg)
        table = struct.unpack_from('<I', self.read(self.gdt + 32 * g, 32),
                                   8)[0]
        return table * self.bs + i * self.isz

    def dir_blocks(self, ino):
        raw = self.read(self.inode_off(ino), 128)
        size = struct.unpack_from('<I', raw, 4)[0]
        blocks = struct.unpack_from('<12I', raw, 40)
        return [b for b in blocks[:(size + self.bs - 1) // self.bs] if b]

    def entries(self, ino):
        """(block offset, entry offset, inode, rec_len, name) of each."""
        for b in self.dir_blocks(ino):
            buf = self.read(b * self.bs, self.bs)
            off = 0
            while off + 8 <= self.bs:
                e_ino, rec, nlen = struct.unpack_from('<IHH', buf, off)
                if rec < 8:
                    break
                yield b * self.bs, off, e_ino, rec, bytes(
                    buf[off + 8:off + 8 + (nlen & 0xff)])
                off += rec

    def lookup(self, path):
        ino = 2
        for c in [c for c in path.split('/') if c]:
            ino = next(e[2] for e in self.entries(ino)
                       if e[4] == c.encode())
        return ino

    def find(self, dirpath, name):
        d = self.lookup(dirpath)
        for boff, off, ino, rec, n in self.entries(d):
            if n == name.encode():
                return boff + off, rec
        sys.exit('forge: no %s in %s' % (name, dirpath))


def main():
    img = Img(sys.argv[1])
    for op in sys.argv[2:]:
        kind, *a = op.split(':')
        if kind == 'rename':
            at, rec = img.find(a[0], a[1])
            new = a[2].encode().decode('unicode_escape').encode('latin-1')
            if 8 + len(new) > rec:
                sys.exit('forge: %r does not fit' % new)
            img.write(at + 6, bytes([len(new)]))
            img.write(at + 8, new)
        elif kind == 'setino':
            at, _ = img.find(a[0], a[1])
            img.write(at, struct.pack('<I', int(a[2])))
        elif kind == 'overlong':
            at, rec = img.find(a[0], a[1])
            nlen = img.read(at + 6, 1)[0] + 256
            if 8 + nlen > rec:
                sys.exit('forge: no room for a %d-byte name' % nlen)
            img.write(at + 7, b'\x01')
        elif kind == 'size':
            off = img.inode_off(img.lookup(a[0]))
            n = int(a[1], 0)
            img.write(off + 4, struct.pack('<I', n & 0xffffffff))
            img.write(off + 108, struct.pack('<I', n >> 32))
        else:
            sys.exit('forge: unknown op ' + op)


if __name__ == '__main__':
    main()
