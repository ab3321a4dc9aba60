# SPDX-License-Identifier: GPL-2.0-or-later
"""An aged tree, made by the kernel, for the campaign's kernel
geometries (tests/regress/campaign.sh): kernel_tree.py MOUNTPOINT
BLOCKSIZE.

On a loop mount of a fresh ext4 image:
  /fill   one-block files, every other one deleted afterwards, so that
          what grows later scatters into one-block holes;
  /big    entries grown into an htree (files, fifos, symlinks, hard
          links, subdirectories), then 60% of them deleted;
  /deep   200-byte names, enough for an htree of two levels on 1 KiB
          blocks, 70% deleted;
  /frag   four files whose blocks are allocated in turns, one block at
          a time (fallocate: delayed allocation would merge them), so
          that each file's extent tree grows past the inode: depth 1,
          depth 2 on 1 KiB blocks; then written over;
  /x      files with small user.* attributes (in the inode) and larger
          ones (an EA block), fast and slow symlinks, device nodes;
  /small  a directory of a few entries.
Deletions are seeded (fixed seed): the same tree on every run.
"""
import os
import random
import sys

m, bs = sys.argv[1], int(sys.argv[2])
rnd = random.Random(1717)


def data(seed, n):
    return bytes((seed * 131 + i * 7 + (i >> 8)) & 0xff for i in range(n))


def put(path, content):
    with open(path, 'wb') as f:
        f.write(content)


def fill(d, count):
    os.mkdir(d)
    for i in range(count):
        put(f'{d}/{i}', b'f' * bs)
    os.sync()
    for i in range(0, count, 2):
        os.unlink(f'{d}/{i}')


def grow(d, count, namelen, thin):
    """count entries of names namelen long (or so), then thin of them
    deleted; a few are directories, fifos, symlinks, hard links."""
    os.mkdir(d)
    names = []
    for i in range(count):
        name = f'{i:06d}' + 'n' * max(0, namelen - 6)
        p = f'{d}/{name}'
        kind = i % 10
        if kind == 1:
            os.mkdir(p)
        elif kind == 2:
            os.mkfifo(p)
        elif kind == 3:
            os.symlink(f'target-{i}', p)
        elif kind == 4 and names:
            os.link(f'{d}/{names[0]}', p)
        else:
            put(p, data(i, i % 300))
        names.append(name)
    os.sync()
    for name in rnd.sample(names[1:], int(len(names) * thin)):
        p = f'{d}/{name}'
        if os.path.isdir(p) and not os.path.islink(p):
            os.rmdir(p)
        else:
            os.unlink(p)


def fragment(d, files, blocks):
    os.mkdir(d)
    fds = [os.open(f'{d}/f{k}', os.O_RDWR | os.O_CREAT, 0o644)
           for k in range(files)]
    for b in range(blocks):
        for fd in fds:
            os.posix_fallocate(fd, b * bs, bs)
    for k, fd in enumerate(fds):
        os.pwrite(fd, data(k + 50, blocks * bs - 100), 0)
        os.close(fd)


def extras(d):
    os.mkdir(d)
    put(f'{d}/small-ea', b'has small attributes')
    os.setxattr(f'{d}/small-ea', 'user.a', b'1')
    os.setxattr(f'{d}/small-ea', 'user.b', b'two')
    for k in range(3):
        put(f'{d}/block-ea{k}', data(k, 3000))
        os.setxattr(f'{d}/block-ea{k}', 'user.big', data(k + 9, bs // 3))
        os.setxattr(f'{d}/block-ea{k}', 'user.shared', b'same value')
    os.symlink('short', f'{d}/fast')
    os.symlink('/' + 'long-target/' * 20, f'{d}/slow')
    os.mknod(f'{d}/chr', 0o20644, os.makedev(1, 3))
    os.mknod(f'{d}/blk', 0o60644, os.makedev(7, 0))
    os.mkdir(f'{m}/small')
    for k in range(5):
        put(f'{m}/small/s{k}', data(k, 100 * k))


fill(f'{m}/fill', 1200 if bs == 1024 else 600)
grow(f'{m}/big', 1500, 12, 0.6)
grow(f'{m}/deep', 900 if bs == 1024 else 300, 200, 0.7)
fragment(f'{m}/frag', 4, 360 if bs == 1024 else 120)
extras(f'{m}/x')
os.sync()
