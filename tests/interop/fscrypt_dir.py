#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""fscrypt through its ioctls (no fscryptctl needed): add a v2 key to a
mounted filesystem and, with `make`, set a v2 policy (AES-256-XTS
contents, AES-256-CTS names) on a new empty directory and fill it with N
files (sizes i % 50), a subdirectory and a symlink; with `check`, look
the files up by name and read the link through the key.

  fscrypt_dir.py make MOUNTPOINT DIR N
  fscrypt_dir.py check MOUNTPOINT DIR N
Exit 77 when the kernel refuses the key (no CONFIG_FS_ENCRYPTION).
"""
import fcntl
import os
import struct
import sys

ADD_KEY = 0xC0506617     # _IOWR('f', 23, struct fscrypt_add_key_arg)
SET_POLICY = 0x800C6613  # _IOR('f', 19, struct fscrypt_policy_v1)
KEY = bytes(range(64))   # a fixed test key
LINK = 'target_of_the_link'


def add_key(mnt):
    """Adds KEY; returns its 16-byte identifier."""
    arg = bytearray(80) + KEY
    struct.pack_into('<II', arg, 0, 2, 0)          # IDENTIFIER type
    struct.pack_into('<II', arg, 40, len(KEY), 0)  # raw_size, key_id
    fd = os.open(mnt, os.O_RDONLY)
    try:
        fcntl.ioctl(fd, ADD_KEY, arg, True)
    finally:
        os.close(fd)
    return bytes(arg[8:24])


def name(i):
    return 'file_with_a_longer_name_%d' % i


def make(mnt, d, n):
    ident = add_key(mnt)
    path = os.path.join(mnt, d)
    os.mkdir(path)
    pol = struct.pack('<BBBB4s16s', 2, 1, 4, 0, b'\0' * 4, ident)
    fd = os.open(path, os.O_RDONLY)
    try:
        fcntl.ioctl(fd, SET_POLICY, pol)
    finally:
        os.close(fd)
    for i in range(n):
        with open(os.path.join(path, name(i)), 'w') as f:
            f.write('x' * (i % 50))
    os.mkdir(os.path.join(path, 'sub'))
    os.symlink(LINK, os.path.join(path, 'link'))


def check(mnt, d, n):
    add_key(mnt)
    path = os.path.join(mnt, d)
    got = len(os.listdir(path))
    if got != n + 2:
        print('%s holds %d names, not %d' % (path, got, n + 2))
        return 1
    for i in range(n):
        size = os.stat(os.path.join(path, name(i))).st_size
        if size != i % 50:
            print('%s: size %d, not %d' % (name(i), size, i % 50))
            return 1
    if os.readlink(os.path.join(path, 'link')) != LINK:
        print('the link reads wrong')
        return 1
    return 0


def main():
    op, mnt, d, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    try:
        return make(mnt, d, n) or 0 if op == 'make' else check(mnt, d, n)
    except OSError as e:
        if e.errno in (25, 95, 22) and op == 'make':   # ENOTTY EOPNOTSUPP
            print('SKIP: fscrypt refused: %s' % e)
            return 77
        raise


if __name__ == '__main__':
    sys.exit(main())
