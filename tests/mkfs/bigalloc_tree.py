#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The source tree of tests/mkfs/bigalloc_populate.sh and its checks.

One fixed tree for clusters of 16 and 64 KiB at 1 and 4 KiB blocks:
regular files empty, of one block, of a cluster exactly and one block
past it, crossing cluster boundaries, large (3 MiB); sparse files with
holes inside one cluster, across clusters, and in so many places that
the extents need a tree block; blocks of zeros in the middle of data
(holes once copied); directories of one block, of several blocks and of
500 long names (an htree); attributes in the inode and in an EA block,
on files and directories; hard links (one across directories), fast and
slow symbolic links, a FIFO.

  tree DIR            make it under DIR
  tar DIR OUT         DIR as a pax archive (sparse files written whole)
  xattrs ROOT         every attribute under ROOT, one sorted line each
                      (lost+found left out)
"""
import os
import random
import stat
import sys
import tarfile

KIB = 1024


def data(seed, n):
    r = random.Random(seed)
    return bytes(r.getrandbits(8) for _ in range(n))


def write(path, pieces, size=None):
    """pieces: (offset, bytes); the rest of size a hole."""
    with open(path, 'wb') as f:
        for off, b in pieces:
            f.seek(off)
            f.write(b)
        if size is not None:
            f.truncate(size)


def tree(root):
    j = lambda *p: os.path.join(root, *p)
    write(j('empty'), [])
    write(j('byte'), [(0, b'x')])
    write(j('b1000'), [(0, data(1, 1000))])
    for n in (4 * KIB, 16 * KIB, 16 * KIB + 1, 64 * KIB, 64 * KIB + 1,
              70000, 200 * KIB + 5):
        write(j('s%d' % n), [(0, data(n, n))])
    write(j('large'), [(0, data('large', 3 * KIB * KIB + 777))])
    # a hole inside one cluster: blocks 0 and 2 (1 or 4 KiB blocks)
    write(j('hole_in'), [(0, data('a', 1000)), (8 * KIB, data('b', 900))])
    # holes across clusters, and a tail past the last one
    write(j('hole_across'), [(0, data('c', 5000)),
                             (200 * KIB, data('d', 3000)),
                             (1000 * KIB + 100, data('e', 10))],
          size=1100 * KIB)
    # sparse from the start: data only at the end
    write(j('hole_head'), [(300 * KIB, data('f', 2000))])
    # 12 islands: more extents than the inode holds (a tree block)
    write(j('islands'), [(i * 150 * KIB + (i % 3) * KIB, data(i, 1500))
                         for i in range(12)])
    # blocks of zeros written between data: holes once copied
    write(j('zeros_mid'), [(0, data('g', 6000) + bytes(100 * KIB) +
                            data('h', 7000))])
    os.mkdir(j('d1'))
    os.mkdir(j('d1', 'sub'))
    write(j('d1', 'sub', 'deep'), [(0, b'deep\n')])
    os.mkdir(j('several'))
    for i in range(60):
        write(j('several', 'entry_%03d_%s' % (i, 'n' * 20)),
              [(0, data(i, i * 37))])
    os.mkdir(j('htree'))
    for i in range(500):
        write(j('htree', 'a_rather_long_file_name_number_%04d' % i),
              [(0, b'%d\n' % i)])
    # attributes: in the inode, an EA block (800 bytes fit 1 KiB)
    os.setxattr(j('b1000'), 'user.small', b'hi')
    os.setxattr(j('s4096'), 'user.block', data('v', 800))
    os.setxattr(j('d1'), 'user.dir', data('w', 700))
    os.setxattr(j('d1', 'sub', 'deep'), 'user.a', b'1')
    os.setxattr(j('d1', 'sub', 'deep'), 'user.b', data('x', 600))
    # links
    os.link(j('b1000'), j('hard'))
    os.link(j('s70000'), j('d1', 'hard_across'))
    os.symlink('b1000', j('fast'))
    os.symlink('t' * 100, j('slow'))
    os.symlink('/' + 'u/' * 300, j('slow600'))
    os.mkfifo(j('fifo'))


def tar(src, out):
    with tarfile.open(out, 'w', format=tarfile.PAX_FORMAT) as t:
        for dirpath, dirs, files in os.walk(src):
            dirs.sort()
            for name in sorted(dirs + files):
                p = os.path.join(dirpath, name)
                ti = t.gettarinfo(p, os.path.relpath(p, src))
                # raw bytes: tarfile then writes hdrcharset=BINARY
                ti.pax_headers = {
                    'SCHILY.xattr.' + k:
                    os.getxattr(p, k).decode('utf-8', 'surrogateescape')
                    for k in os.listxattr(p, follow_symlinks=False)}
                if ti.isreg():
                    with open(p, 'rb') as f:
                        t.addfile(ti, f)
                else:
                    t.addfile(ti)


def xattrs(root):
    out = []
    for dirpath, dirs, files in os.walk(root):
        if dirpath == root and 'lost+found' in dirs:
            dirs.remove('lost+found')
        for name in dirs + files:
            p = os.path.join(dirpath, name)
            if stat.S_ISLNK(os.lstat(p).st_mode):
                continue
            for k in os.listxattr(p):
                out.append('%s %s %s' % (os.path.relpath(p, root), k,
                                         os.getxattr(p, k).hex()))
    for line in sorted(out):
        print(line)


def main():
    cmd = sys.argv[1]
    if cmd == 'tree':
        tree(sys.argv[2])
    elif cmd == 'tar':
        tar(sys.argv[2], sys.argv[3])
    elif cmd == 'xattrs':
        xattrs(sys.argv[2])
    else:
        sys.exit('unknown command ' + cmd)


if __name__ == '__main__':
    main()
