# SPDX-License-Identifier: GPL-2.0-or-later
"""Random metadata damage for fsck_random.sh.

damage.py map BASE >MAP
  Lists the metadata blocks of the ext2 image BASE, one "KIND BLOCK" a
  line: sb (the primary superblock: block 0 or 1), gdt (meta_bg's
  too), bitmap, itable (inode table blocks holding an inode in use),
  dir, ind (indirect blocks of any inode), ext (extent tree blocks), ea
  (i_file_acl blocks), journal (its first blocks), quota (the quota
  files' blocks), orphan (the orphan file's), eaval (EA inodes' blocks).
damage.py legacy BASE SEED IMAGE
  The damage of the first fsck_random.sh (geometry 1k): 1 to 40 random
  bytes between offsets 1 KiB and 700 KiB.
damage.py hit BASE MAP SEED IMAGE
  Writes IMAGE: BASE damaged the way SEED says (a fixed pseudo-random
  sequence). SEED % 5 picks the mode:
    0 a few dozen random bytes in metadata blocks, superblock included
    1 the same, the primary superblock left alone
    2 a garbage directory block   3 a garbage indirect block
    4 a garbage inode table block
  A garbage block is random bytes, a random run inside it, or a copy of
  another metadata block (kind picked by the seed too).
damage.py hit2 BASE MAP SEED IMAGE DAMAGED
  The campaign's damage (campaign.sh): SEED % 8 picks among more kinds
  (extent, EA, journal, bitmap and descriptor blocks too); the numbers
  of the damaged blocks go to DAMAGED.
The parser only reads what mke2fs and debugfs write for these tests
(ext2 revision 0 or 1, ext4 with extents, inline data, meta_bg and a journal;
small images: high halves of 64-bit fields are ignored).
"""
import mmap
import random
import shutil
import struct
import sys


def u16(b, o):
    return struct.unpack_from('<H', b, o)[0]


def u32(b, o):
    return struct.unpack_from('<I', b, o)[0]


class Fs:
    def __init__(self, data):
        self.b = data
        sb = data[1024:2048]
        self.bs = 1024 << u32(sb, 24)
        self.first = u32(sb, 20)
        self.blocks = u32(sb, 4)
        self.bpg = u32(sb, 32)
        self.ipg = u32(sb, 40)
        self.isz = u16(sb, 88) if u32(sb, 76) >= 1 else 128
        self.ngroups = (self.blocks - self.first + self.bpg - 1) // self.bpg
        self.gdt = self.first + 1
        # ext4: 64-byte descriptors with 64bit (high halves ignored: the
        # test images are small)
        self.dsz = u16(sb, 0xFE) if u32(sb, 0x60) & 0x80 else 32
        self.dsz = self.dsz if self.dsz >= 32 else 32
        self.has_journal = u32(sb, 0x5C) & 0x4
        self.sparse = u32(sb, 0x64) & 0x1
        # meta_bg (incompat 0x10): from meta group s_first_meta_bg on,
        # the descriptors of meta group M (the DPB groups M*DPB..) are in
        # the first group of M, after its superblock copy.
        self.first_meta_bg = (u32(sb, 0x104) if u32(sb, 0x60) & 0x10
                              else 1 << 32)
        # the special files: quota (usr, grp, prj) and the orphan file
        self.quota_inos = {u32(sb, o) for o in (0x240, 0x244, 0x26C)} - {0}
        self.orphan_ino = u32(sb, 0x280)
        self.groups = []
        dpb = self.bs // self.dsz
        for g in range(self.ngroups):
            o = self.desc_block(g // dpb) * self.bs + self.dsz * (g % dpb)
            self.groups.append((u32(data, o), u32(data, o + 4),
                                u32(data, o + 8)))

    def has_super(self, g):
        if not self.sparse or g <= 1:
            return True
        for p in (3, 5, 7):
            n = p
            while n < g:
                n *= p
            if n == g:
                return True
        return False

    def desc_block(self, mg):
        """The block of the descriptors of meta group mg (the primary
        copy)."""
        if mg < self.first_meta_bg:
            return self.gdt + mg
        g = mg * (self.bs // self.dsz)
        return self.first + g * self.bpg + (1 if self.has_super(g) else 0)

    def block(self, n):
        return self.b[n * self.bs:(n + 1) * self.bs]

    def inode(self, ino):
        g, i = divmod(ino - 1, self.ipg)
        o = self.groups[g][2] * self.bs + i * self.isz
        return o, self.b[o:o + self.isz]

    def used(self, ino):
        g, i = divmod(ino - 1, self.ipg)
        return self.b[self.groups[g][1] * self.bs + i // 8] >> (i % 8) & 1


def walk_ind(fs, blk, depth, out):
    """Collects the indirect blocks under blk (depth 1: single)."""
    if blk == 0 or blk >= fs.blocks:
        return
    out.append(('ind', blk))
    if depth == 1:
        return
    raw = fs.block(blk)
    for i in range(fs.bs // 4):
        walk_ind(fs, u32(raw, 4 * i), depth - 1, out)


def walk_extents(fs, node, depth, out, data):
    """Collects the extent tree blocks under node ('ext') and the data
    blocks of its leaves (at most 4096 of them) into data."""
    if u16(node, 0) != 0xF30A or depth < 0:
        return
    n = min(u16(node, 2), (len(node) - 12) // 12)
    for i in range(n):
        e = 12 + 12 * i
        if u16(node, 6):
            blk = u32(node, e + 4)
            if 0 < blk < fs.blocks:
                out.append(('ext', blk))
                walk_extents(fs, fs.block(blk), depth - 1, out, data)
        else:
            ln = u16(node, e + 4)
            ln = ln - 32768 if ln > 32768 else ln
            start = u32(node, e + 8)
            for b in range(start, min(start + ln, fs.blocks)):
                if len(data) < 4096:
                    data.append(b)


def data_blocks(fs, blk, depth, out):
    """Collects the data blocks under an indirect block."""
    if blk == 0 or blk >= fs.blocks:
        return
    raw = fs.block(blk)
    for i in range(fs.bs // 4):
        n = u32(raw, 4 * i)
        if depth == 1:
            if n:
                out.append(n)
        else:
            data_blocks(fs, n, depth - 1, out)


def meta_map(fs):
    out = [('sb', 0 if fs.bs > 1024 else 1)]
    gdt_blocks = (fs.dsz * fs.ngroups + fs.bs - 1) // fs.bs
    out += [('gdt', fs.desc_block(i)) for i in range(gdt_blocks)]
    itb = (fs.ipg * fs.isz + fs.bs - 1) // fs.bs
    per_block = fs.bs // fs.isz
    for g, (bb, ib, it) in enumerate(fs.groups):
        out += [('bitmap', bb), ('bitmap', ib)]
        for k in range(itb):
            first = g * fs.ipg + k * per_block + 1
            if any(fs.used(first + j) for j in range(per_block)):
                out.append(('itable', it + k))
    for ino in range(1, fs.ngroups * fs.ipg + 1):
        if not fs.used(ino):
            continue
        _, raw = fs.inode(ino)
        mode = u16(raw, 0)
        kind = mode & 0xF000
        acl = u32(raw, 104)
        if acl:
            out.append(('ea', acl))
        if kind not in (0x4000, 0x8000, 0xA000) or ino in (1, 7):
            continue
        flags = u32(raw, 32)
        if flags & 0x10000000:
            continue                    # inline data
        if flags & 0x80000:
            data = []
            walk_extents(fs, raw[40:100], 4, out, data)
            if ino == 8 and fs.has_journal:
                out += [('journal', b) for b in data[:4]]
            elif ino in fs.quota_inos:
                out += [('quota', b) for b in data]
            elif ino == fs.orphan_ino:
                out += [('orphan', b) for b in data]
            elif flags & 0x200000:
                out += [('eaval', b) for b in data]     # an EA inode
            elif kind == 0x4000:
                out += [('dir', b) for b in data]
            continue
        if ino == 8 and fs.has_journal:
            out += [('journal', p) for p in
                    [u32(raw, 40 + 4 * i) for i in range(4)] if p]
        iblocks = u32(raw, 28) - (fs.bs // 512 if acl else 0)
        if kind == 0xA000 and iblocks == 0:
            continue                    # fast symlink
        ptr = [u32(raw, 40 + 4 * i) for i in range(15)]
        for depth, p in ((1, ptr[12]), (2, ptr[13]), (3, ptr[14])):
            walk_ind(fs, p, depth, out)
        if kind == 0x4000:
            dirs = [p for p in ptr[:12] if p]
            for depth, p in ((1, ptr[12]), (2, ptr[13]), (3, ptr[14])):
                data_blocks(fs, p, depth, dirs)
            out += [('dir', p) for p in dirs]
    seen = set()
    return [x for x in out if not (x in seen or seen.add(x))]


def garbage(rnd, fs, out, blk, meta):
    """Writes a garbage block blk to the file out."""
    bs = fs.bs
    style = rnd.randrange(3)
    if style == 0:
        out.seek(blk * bs)
        out.write(bytes(rnd.randrange(256) for _ in range(bs)))
    elif style == 1:
        start = rnd.randrange(bs)
        n = rnd.randint(1, min(256, bs - start))
        out.seek(blk * bs + start)
        out.write(bytes(rnd.randrange(256) for _ in range(n)))
    else:
        src = rnd.choice([m for m in meta if m[1] != blk])[1]
        out.seek(blk * bs)
        out.write(fs.block(src))


def base_map(base):
    with open(base, 'rb') as f:
        return mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)


def scatter_bytes(rnd, fs, out, pool, sb_copies):
    """1 to 40 random bytes in random blocks of pool; returns the blocks
    hit. A superblock hit lands in the primary, or in the copy the pool
    names on 1 KiB blocks when sb_copies."""
    hits = set()
    for _ in range(rnd.randint(1, 40)):
        kind, blk = rnd.choice(pool)
        if kind == 'sb':
            sb = blk if sb_copies and fs.bs == 1024 else 1
            off = sb * 1024 + rnd.randrange(1024)
        else:
            off = blk * fs.bs + rnd.randrange(fs.bs)
        out.seek(off)
        out.write(bytes([rnd.randrange(256)]))
        hits.add(off // fs.bs)
    return hits


def garbage_one(rnd, fs, out, meta, kinds):
    """A garbage block of one of kinds (any non-superblock block when
    the image has none); returns its number."""
    pool = [m for m in meta if m[0] in kinds] or \
        [m for m in meta if m[0] != 'sb']
    blk = rnd.choice(pool)[1]
    garbage(rnd, fs, out, blk, meta)
    return blk


def read_meta(mapfile):
    return [(k, int(n)) for k, n in
            (line.split() for line in open(mapfile))]


def hit(base, mapfile, seed, image):
    fs = Fs(base_map(base))
    meta = read_meta(mapfile)
    rnd = random.Random(seed)
    mode = seed % 5
    shutil.copyfile(base, image)
    with open(image, 'r+b') as out:
        if mode <= 1:
            pool = [m for m in meta if mode == 0 or m[0] != 'sb']
            scatter_bytes(rnd, fs, out, pool, True)
        else:
            want = {2: ('dir',), 3: ('ind',), 4: ('itable',)}[mode]
            garbage_one(rnd, fs, out, meta, want)


def hit2(base, mapfile, seed, image, damaged):
    """The campaign's damage: like hit, over more kinds, and the damaged
    block numbers written to damaged. SEED % 8: 0, 1 as hit; then a
    garbage 2 directory, 3 indirect or extent, 4 inode table, 5 EA
    block or EA inode block, 6 journal, quota or orphan file block, 7
    bitmap or descriptor block."""
    fs = Fs(base_map(base))
    meta = read_meta(mapfile)
    rnd = random.Random(seed)
    mode = seed % 8
    shutil.copyfile(base, image)
    with open(image, 'r+b') as out:
        if mode <= 1:
            pool = [m for m in meta if mode == 0 or m[0] != 'sb']
            hits = scatter_bytes(rnd, fs, out, pool, False)
        else:
            want = {2: ('dir',), 3: ('ind', 'ext'), 4: ('itable',),
                    5: ('ea', 'eaval'), 6: ('journal', 'quota', 'orphan'),
                    7: ('bitmap', 'gdt')}[mode]
            hits = {garbage_one(rnd, fs, out, meta, want)}
    with open(damaged, 'w') as f:
        f.write(''.join('%d\n' % b for b in sorted(hits)))


def legacy(base, seed, image):
    rnd = random.Random(seed)
    b = bytearray(open(base, 'rb').read())
    for _ in range(rnd.randint(1, 40)):
        b[rnd.randrange(1024, 700 * 1024)] = rnd.randrange(256)
    open(image, 'wb').write(b)


def main():
    if sys.argv[1] == 'map':
        for kind, blk in meta_map(Fs(base_map(sys.argv[2]))):
            print(kind, blk)
    elif sys.argv[1] == 'legacy':
        legacy(sys.argv[2], int(sys.argv[3]), sys.argv[4])
    elif sys.argv[1] == 'hit':
        hit(sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5])
    elif sys.argv[1] == 'hit2':
        hit2(sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5],
             sys.argv[6])
    else:
        sys.exit('usage: damage.py map BASE | hit BASE MAP SEED IMAGE | '
                 'hit2 BASE MAP SEED IMAGE DAMAGED')


if __name__ == '__main__':
    main()
