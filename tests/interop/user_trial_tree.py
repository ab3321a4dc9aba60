#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The user trial's tree (tests/interop/user_trial.sh).

  user_trial_tree.py fill MOUNTPOINT FEATURES
      fills a mounted ext2/3/4 filesystem the way a real system does:
      writes, deletes, renames, directories grown past one block into an
      htree and thinned, hard links, xattrs (large ones with ea_inode),
      ACLs, fallocate and punched holes, sparse files (one over 4 GiB
      with the 64-bit sizes), symlinks of every length, device nodes,
      FIFOs; per FEATURES (comma list): casefold (+F directories with
      mixed-case names), verity (fsverity enable), project (chattr -p/+P),
      encrypt (fscrypt_dir.py). A step the filesystem refuses is skipped
      and named on stderr.
  user_trial_tree.py manifest ROOT [--flags]
      prints one line per entry: path, type, mode, owner, size, links
      (as the first path of the inode), device, link target, xattrs
      (name and value digest), mtime to the nanosecond, and a digest of
      the contents that ignores how zeros are stored (holes, unwritten
      extents and written zeros hash alike); --flags adds the inode flags
      and project id (a mounted tree only); --noxattr leaves xattrs out
      (a tree debugfs rdump wrote, which has none).
"""
import errno
import fcntl
import hashlib
import os
import stat
import struct
import subprocess
import sys

CHUNK = 1 << 16


def note(msg):
    sys.stderr.write('fill: %s\n' % msg)


def try_(what, fn, *a):
    try:
        return fn(*a)
    except OSError as e:
        note('%s: %s' % (what, os.strerror(e.errno)))
        return None


def put(path, n, seed):
    with open(path, 'wb') as f:
        block = bytes((i * 31 + seed) & 255 for i in range(4096))
        while n > 0:
            f.write(block[:min(n, 4096)])
            n -= 4096


def run(*argv):
    r = subprocess.run(argv, capture_output=True, text=True)
    if r.returncode:
        note('%s: %s' % (' '.join(argv), r.stderr.strip()[:200]))
    return r.returncode == 0


def fill_basic(m):
    os.makedirs(m + '/a/b/c', exist_ok=True)
    for i, n in enumerate((0, 1, 59, 60, 61, 160, 4095, 4096, 4097,
                           65536, 300000)):
        put('%s/a/f%d' % (m, n), n, i)
    put(m + '/a/b/c/deep', 12345, 9)
    # Deletes and renames.
    put(m + '/gone', 50000, 3)
    os.unlink(m + '/gone')
    put(m + '/a/old', 7000, 4)
    os.rename(m + '/a/old', m + '/a/b/new')
    os.rename(m + '/a/b/c', m + '/a/c_moved')
    # Hard links.
    put(m + '/hl', 5000, 5)
    os.link(m + '/hl', m + '/a/hl2')
    os.link(m + '/hl', m + '/a/b/hl3')
    # Symlinks of every length (fast < 60, slow, up to a block's worth).
    os.makedirs(m + '/ln', exist_ok=True)
    for n in (1, 58, 59, 60, 61, 200, 1000, 1023, 2047, 4000):
        try_('symlink %d' % n, os.symlink, ('dir_name/' * n)[:n],
             '%s/ln/l%d' % (m, n))
    os.symlink('../a/f4096', m + '/ln/rel')
    # Devices, FIFOs.
    os.mknod(m + '/chr', 0o620 | stat.S_IFCHR, os.makedev(4, 64))
    os.mknod(m + '/blk', 0o660 | stat.S_IFBLK, os.makedev(259, 70000))
    os.mkfifo(m + '/fifo', 0o600)
    os.chown(m + '/chr', 0, 5)
    os.chown(m + '/a/f60', 1000, 1000)
    os.chown(m + '/a/f61', 70000, 80000)
    os.chmod(m + '/a/f59', 0o4755)
    os.chmod(m + '/a/b', 0o1777)
    os.utime(m + '/a/f160', ns=(1234567890123456789, 1500000000987654321))


def fill_dirs(m, nbig=600):
    # A directory grown past one block into an htree, then thinned.
    d = m + '/big'
    os.makedirs(d, exist_ok=True)
    for i in range(nbig):
        put('%s/entry_with_a_rather_long_name_%05d' % (d, i), i % 7, i)
    for i in range(0, nbig, 3):
        os.unlink('%s/entry_with_a_rather_long_name_%05d' % (d, i))
    for i in range(1, nbig, 9):
        os.rename('%s/entry_with_a_rather_long_name_%05d' % (d, i),
                  '%s/renamed_%05d' % (d, i))
    # A directory emptied down to a few entries.
    d = m + '/thin'
    os.makedirs(d, exist_ok=True)
    for i in range(300):
        put('%s/n%04d' % (d, i), 0, 0)
    for i in range(300):
        if i % 50:
            os.unlink('%s/n%04d' % (d, i))


def fill_sparse(m):
    with open(m + '/sparse', 'wb') as f:
        f.seek(1 << 20)
        f.write(b'middle')
        f.seek(10 << 20)
        f.write(b'end')
    with open(m + '/huge', 'wb') as f:
        try:
            f.seek(5 << 30)
            f.write(b'past four GiB')
            f.seek(1 << 12)
            f.write(b'early')
        except OSError as e:
            note('huge: %s' % os.strerror(e.errno))
    # fallocate, punch.
    put(m + '/punched', 200000, 7)
    run('fallocate', '-p', '-o', '8192', '-l', '65536', m + '/punched')
    run('fallocate', '-l', '300000', m + '/prealloc')
    with open(m + '/prealloc_part', 'wb') as f:
        f.write(b'x' * 5000)
    run('fallocate', '-o', '5000', '-l', '200000', '-n', m + '/prealloc_part')
    run('fallocate', '-z', '-o', '0', '-l', '4096', m + '/punched')


def fill_xattrs(m, big):
    f = m + '/xa'
    put(f, 100, 1)
    try_('xattr small', os.setxattr, f, 'user.small', b'v')
    try_('xattr 200', os.setxattr, f, 'user.two_hundred', b'q' * 200)
    try_('xattr trusted', os.setxattr, f, 'trusted.t', b'tt' * 30)
    try_('xattr security', os.setxattr, f, 'security.s', b'ss')
    os.makedirs(m + '/xd', exist_ok=True)
    try_('xattr dir', os.setxattr, m + '/xd', 'user.d', b'dir')
    for i in range(20):
        put('%s/xd/shared%d' % (m, i), 10, i)
        try_('xattr shared', os.setxattr, '%s/xd/shared%d' % (m, i),
             'user.same', b'the same value in every file' * 10)
    run('setfacl', '-m', 'u:1000:rwx,g:100:r,m:rwx', f)
    run('setfacl', '-d', '-m', 'u:1001:rx', m + '/xd')
    put(m + '/xd/inherits', 10, 1)
    os.symlink('x', m + '/xd/sl')
    try_('xattr on symlink', lambda: os.setxattr(
        m + '/xd/sl', 'trusted.l', b'l', follow_symlinks=False))
    if big:
        for n in (3000, 5000, 20000, 65000):
            try_('xattr %d' % n, os.setxattr, f, 'user.big%d' % n,
                 bytes((i * 7) & 255 for i in range(n)))
        put(m + '/xa2', 10, 2)
        try_('xattr shared big', os.setxattr, m + '/xa2', 'user.big5000',
             bytes((i * 7) & 255 for i in range(5000)))
        try_('xattr del', os.removexattr, f, 'user.big20000')


def fill_casefold(m):
    d = m + '/cf'
    os.makedirs(d, exist_ok=True)
    if not run('chattr', '+F', d):
        return
    for name in ('Makefile', 'README.Md', 'Straße', 'ÉCOLE', 'mIxEd',
                 'ǅemal', 'ﬁle'):
        put(d + '/' + name, 10, 1)
    for i in range(400):
        put('%s/CaseFolded_Name_%04d' % (d, i), 1, i)
    for i in range(0, 400, 4):
        os.unlink('%s/casefolded_name_%04d' % (d, i))
    os.makedirs(d + '/SubDir', exist_ok=True)
    put(d + '/subdir/inner', 5, 1)


def fill_verity(m):
    f = m + '/verity_file'
    put(f, 100000, 3)
    run('fsverity', 'enable', f)
    g = m + '/verity_small'
    put(g, 10, 3)
    run('fsverity', 'enable', '--block-size=1024', g)


def fill_project(m):
    d = m + '/proj'
    os.makedirs(d, exist_ok=True)
    run('chattr', '-p', '42', '+P', d)
    put(d + '/inherited', 3000, 1)
    os.makedirs(d + '/sub', exist_ok=True)
    put(d + '/sub/deeper', 9000, 2)
    put(m + '/projfile', 100, 1)
    run('chattr', '-p', '7', m + '/projfile')


def fill_inline(m):
    d = m + '/inl'
    os.makedirs(d, exist_ok=True)
    for n in (0, 1, 59, 60, 61, 100, 150, 160, 3000):
        put('%s/i%d' % (d, n), n, n)
    # A directory that stays inline, one that outgrows it.
    os.makedirs(d + '/small', exist_ok=True)
    put(d + '/small/x', 1, 1)
    os.makedirs(d + '/grown', exist_ok=True)
    for i in range(40):
        put('%s/grown/name%02d' % (d, i), 1, i)
    # A file that grows out of inline data.
    with open(d + '/growing', 'wb') as f:
        f.write(b'a' * 50)
    with open(d + '/growing', 'ab') as f:
        f.write(b'b' * 5000)


def fill_encrypt(m, here):
    r = subprocess.run([sys.executable, here + '/fscrypt_dir.py', 'make', m,
                        'enc', '30'], capture_output=True, text=True)
    if r.returncode:
        note('encrypt: exit %d %s' % (r.returncode, r.stderr.strip()[:200]))


def fill(m, feats):
    here = os.path.dirname(os.path.abspath(__file__))
    fill_basic(m)
    fill_dirs(m, 2000 if 'large_dir' in feats else 600)
    fill_sparse(m)
    fill_xattrs(m, 'ea_inode' in feats)
    if 'casefold' in feats:
        fill_casefold(m)
    if 'verity' in feats:
        fill_verity(m)
    if 'project' in feats:
        fill_project(m)
    if 'inline_data' in feats:
        fill_inline(m)
    if 'encrypt' in feats:
        fill_encrypt(m, here)
    os.sync()


def digest(path):
    """A digest of the contents where zeros hash the same stored as holes
    or written: (offset, bytes) of each non-zero 64 KiB chunk."""
    h = hashlib.sha256()
    fd = os.open(path, os.O_RDONLY)
    try:
        size = os.fstat(fd).st_size
        pos = 0
        while pos < size:
            try:
                pos = os.lseek(fd, pos, os.SEEK_DATA)
            except OSError as e:
                if e.errno == errno.ENXIO:
                    break
                raise
            end = os.lseek(fd, pos, os.SEEK_HOLE)
            while pos < end:
                start = pos - pos % CHUNK
                buf = os.pread(fd, CHUNK, start)
                if buf.strip(b'\0'):
                    h.update(struct.pack('<Q', start) + buf)
                pos = start + CHUNK
        return h.hexdigest()[:16]
    finally:
        os.close(fd)


def xattrs(path):
    try:
        names = os.listxattr(path, follow_symlinks=False)
    except OSError:
        return '-'
    out = []
    for n in sorted(names):
        try:
            v = os.getxattr(path, n, follow_symlinks=False)
        except OSError as e:
            v = ('E%d' % e.errno).encode()
        out.append('%s=%s' % (n, hashlib.sha256(v).hexdigest()[:10]))
    return ','.join(out) or '-'


def flags(path, st):
    if not (stat.S_ISREG(st.st_mode) or stat.S_ISDIR(st.st_mode)):
        return ''
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as e:
        return ' flags=E%d' % e.errno
    try:
        b = bytearray(4)
        fcntl.ioctl(fd, 0x80086601, b)           # FS_IOC_GETFLAGS
        # Not EXTENTS nor INDEX: -D may index a directory or unindex
        # one that fits a block, as e2fsck -D does.
        fl = struct.unpack('<I', b)[0] & ~0x81000
        x = bytearray(28)
        fcntl.ioctl(fd, 0x801C581F, x)           # FS_IOC_FSGETXATTR
        proj = struct.unpack_from('<I', x, 12)[0]
        return ' flags=%x proj=%d' % (fl, proj)
    except OSError as e:
        return ' flags=E%d' % e.errno
    finally:
        os.close(fd)


def manifest(root, with_flags, with_xattrs=True):
    first = {}
    out = []
    for dirpath, dirs, files in os.walk(root):
        dirs.sort()
        if os.path.basename(dirpath) == 'enc' and dirpath != root:
            dirs[:] = []
            files = []
        for name in sorted(dirs + files):
            p = os.path.join(dirpath, name)
            rel = os.path.relpath(p, root)
            st = os.lstat(p)
            key = (st.st_dev, st.st_ino)
            line = '%s %o %d:%d' % (rel, st.st_mode, st.st_uid, st.st_gid)
            if stat.S_ISREG(st.st_mode):
                if key in first:
                    line += ' link=' + first[key]
                else:
                    first[key] = rel
                    line += ' size=%d nlink=%d data=%s' % (
                        st.st_size, st.st_nlink, digest(p))
            elif stat.S_ISLNK(st.st_mode):
                line += ' -> ' + os.readlink(p)
            elif stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode):
                line += ' dev=%d,%d' % (os.major(st.st_rdev),
                                        os.minor(st.st_rdev))
            if not stat.S_ISDIR(st.st_mode) and not stat.S_ISLNK(st.st_mode):
                line += ' mtime=%d' % st.st_mtime_ns
            if with_xattrs:
                line += ' xattr=' + xattrs(p)
            if with_flags:
                line += flags(p, st)
            out.append(line)
    return out


def main():
    if len(sys.argv) >= 4 and sys.argv[1] == 'fill':
        fill(sys.argv[2], sys.argv[3].split(','))
        return 0
    if len(sys.argv) >= 3 and sys.argv[1] == 'manifest':
        for line in manifest(sys.argv[2], '--flags' in sys.argv[3:],
                             '--noxattr' not in sys.argv[3:]):
            print(line)
        return 0
    sys.stderr.write(__doc__)
    return 2


if __name__ == '__main__':
    sys.exit(main())
