# SPDX-License-Identifier: GPL-2.0-or-later
"""File operations that the kernel logs as ext4 fast commits, for
tests/interop/fast_commit.sh: fcops.py MOUNTPOINT.

A first set of files is made and synced (a full commit); then each
change is followed by an fsync of a regular file, which with
-O fast_commit writes a fast commit instead of a full one: files
created with data, appended, truncated, a hole punched, overwritten in
place, a hard link, a rename across directories, unlinks, names added
to a small directory past what inline_data keeps in the inode (the
kernel makes it a block directory), two files appended in turns (an
extent tree that needs a block). The fast-commit area (64 blocks here)
must not fill up: the kernel would then commit in full. (An fsync of
a directory, or a mkdir, makes the kernel commit in full: avoided.)
"""
import ctypes
import os
import sys

m = sys.argv[1]
libc = ctypes.CDLL(None, use_errno=True)
PUNCH = 3       # FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE


def write(path, data, mode='wb'):
    with open(path, mode) as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())


def fsync(path):
    fd = os.open(path, os.O_RDONLY)
    os.fsync(fd)
    os.close(fd)


def pattern(seed, n):
    return bytes((seed * 131 + i * 7 + (i >> 8)) & 0xff for i in range(n))


os.mkdir(f'{m}/d')
os.mkdir(f'{m}/d/sub')
write(f'{m}/base', pattern(1, 50000))
write(f'{m}/big', pattern(2, 200000))
write(f'{m}/d/old', b'old' * 1000)
write(f'{m}/victim', b'v' * 5000)
write(f'{m}/trunc', pattern(3, 40000))
for i in range(30):
    write(f'{m}/d/pre{i:03d}', b'p' * i)
os.mkdir(f'{m}/i')
write(f'{m}/i/a', b'aaaa')
write(f'{m}/i/b', b'bb')
write(f'{m}/x', b'x' * 4096)
write(f'{m}/y', b'y' * 4096)
os.sync()

write(f'{m}/new1', b'N' * 7000)
write(f'{m}/base', b'appended' * 2000, 'ab')
fd = os.open(f'{m}/trunc', os.O_RDWR)
os.ftruncate(fd, 5000)
os.fsync(fd)
os.close(fd)
fd = os.open(f'{m}/big', os.O_RDWR)
libc.fallocate(fd, PUNCH, ctypes.c_long(40960), ctypes.c_long(81920))
os.fsync(fd)
os.close(fd)
os.link(f'{m}/base', f'{m}/d/base_link')
fsync(f'{m}/base')
os.rename(f'{m}/new1', f'{m}/d/new1_moved')
fsync(f'{m}/d/new1_moved')
os.unlink(f'{m}/victim')
fsync(f'{m}/base')
os.rename(f'{m}/d/pre003', f'{m}/d/pre003_renamed')
fsync(f'{m}/d/old')
os.unlink(f'{m}/d/pre004')
os.unlink(f'{m}/d/pre005')
fsync(f'{m}/base')
write(f'{m}/d/sub/inner', pattern(4, 12345))
fd = os.open(f'{m}/d/old', os.O_RDWR)
os.pwrite(fd, b'X' * 100, 10)
os.fsync(fd)
os.close(fd)
fd = os.open(f'{m}/big', os.O_RDWR)
os.pwrite(fd, pattern(5, 8192), 4096 * 30)
os.fsync(fd)
os.close(fd)
for i in range(12):
    write(f'{m}/d/f{i:03d}', bytes([65 + i % 26]) * (i * 97))
for i in range(6):     # x and y in turns: more extents than the inode holds
    write(f'{m}/x', pattern(10 + i, 4096), 'ab')
    write(f'{m}/y', pattern(20 + i, 4096), 'ab')
os.unlink(f'{m}/i/a')
fsync(f'{m}/base')
write(f'{m}/i/c', b'tiny')
write(f'{m}/i/e_longer_name_here', b'y' * 30)
write(f'{m}/i/f_another_longer_name', b'z' * 300)
