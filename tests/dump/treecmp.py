#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Compares two directory trees, or lists one tree or pax archive.

  treecmp.py tree A B [--skip NAME]... [--no-atime] [--no-owner]
      [--no-xattr NS]... [--dirtimes] [--no-root] [--sec]
  treecmp.py tar TARFILE         (a listing, pax headers included)
  treecmp.py src SRC             (the same listing, of a directory)

tree: contents, type, mode (with setuid/setgid/sticky), owner, size,
mtime (and atime) to the nanosecond, device numbers, symlink targets,
hard link groups and every extended attribute (ACLs as their raw xattr
values) must agree; prints each difference, exits 1 on any.
tar/src print one line per entry: path, type, mode, uid, gid, size,
mtime in ns, link target, device, sorted xattrs (ACLs as text), and
for files the data's sha256, so that a source tree and a tar of it can
be compared with diff.
"""
import hashlib
import os
import stat
import sys
import tarfile


def walk(root, skip):
    out = {}
    for d, dirs, files in os.walk(root):
        dirs[:] = sorted(x for x in dirs if x not in skip or d != root)
        for n in sorted(dirs + files):
            if d == root and n in skip:
                continue
            p = os.path.join(d, n)
            out[os.path.relpath(p, root)] = p
    out['.'] = root
    return out


def digest(p):
    """sha256 of a file's data, read without moving its atime."""
    h = hashlib.sha256()
    try:
        fd = os.open(p, os.O_RDONLY | os.O_NOATIME)
    except PermissionError:
        fd = os.open(p, os.O_RDONLY)
    with os.fdopen(fd, 'rb') as f:
        while True:
            b = f.read(1 << 20)
            if not b:
                return h.hexdigest()
            h.update(b)


def xattrs(p, drop):
    try:
        names = os.listxattr(p, follow_symlinks=False)
    except OSError:
        return {}
    r = {}
    for n in names:
        if any(n.startswith(ns) for ns in drop):
            continue
        try:
            r[n] = os.getxattr(p, n, follow_symlinks=False)
        except OSError as e:
            r[n] = 'error %d' % e.errno
    return r


def describe(p, opts):
    s = os.lstat(p)
    d = {'type': stat.S_IFMT(s.st_mode), 'mode': oct(stat.S_IMODE(s.st_mode)),
         'mtime': s.st_mtime_ns // (10**9 if opts.get('sec') else 1)}
    if not opts['no_owner']:
        d['owner'] = (s.st_uid, s.st_gid)
    if not opts['no_atime'] and not stat.S_ISLNK(s.st_mode):
        d['atime'] = s.st_atime_ns
    if stat.S_ISDIR(s.st_mode):
        # reading a directory moves its atime: never compared
        d.pop('atime', None)
        if not opts['dirtimes']:
            d.pop('mtime')
    if stat.S_ISREG(s.st_mode):
        d['size'] = s.st_size
        d['data'] = digest(p)
    if stat.S_ISLNK(s.st_mode):
        d['target'] = os.readlink(p)
        d.pop('mode')
    if stat.S_ISCHR(s.st_mode) or stat.S_ISBLK(s.st_mode):
        d['rdev'] = (os.major(s.st_rdev), os.minor(s.st_rdev))
    d['xattrs'] = xattrs(p, opts['no_xattr'])
    return d, (s.st_dev, s.st_ino), s.st_nlink


def links(tree):
    groups = {}
    for rel, p in tree.items():
        s = os.lstat(p)
        if not stat.S_ISDIR(s.st_mode):
            groups.setdefault((s.st_dev, s.st_ino), []).append(rel)
    return sorted(sorted(g) for g in groups.values() if len(g) > 1)


def cmp_trees(a, b, args):
    opts = {'no_atime': '--no-atime' in args, 'no_owner': '--no-owner' in args,
            'dirtimes': '--dirtimes' in args, 'no_xattr': [],
            'sec': '--sec' in args}
    skip = []
    i = 0
    while i < len(args):
        if args[i] == '--skip':
            skip.append(args[i + 1])
            i += 1
        elif args[i] == '--no-xattr':
            opts['no_xattr'].append(args[i + 1])
            i += 1
        i += 1
    ta, tb = walk(a, skip), walk(b, skip)
    if '--no-root' in args:
        del ta['.'], tb['.']
    bad = 0
    for rel in sorted(set(ta) | set(tb)):
        if rel not in ta or rel not in tb:
            print('only in %s: %s' % (a if rel in ta else b, rel))
            bad += 1
            continue
        da, _, _ = describe(ta[rel], opts)
        db, _, _ = describe(tb[rel], opts)
        for k in sorted(set(da) | set(db)):
            if da.get(k) != db.get(k):
                print('%s: %s differs: %r != %r' % (rel, k, da.get(k),
                                                     db.get(k)))
                bad += 1
    la, lb = links(ta), links(tb)
    if la != lb:
        print('hard links differ: %r != %r' % (la, lb))
        bad += 1
    print('%d entries compared, %d differences' % (len(ta), bad))
    return 1 if bad else 0


TYPES = {tarfile.REGTYPE: 'file', tarfile.DIRTYPE: 'dir',
         tarfile.SYMTYPE: 'symlink', tarfile.LNKTYPE: 'link',
         tarfile.CHRTYPE: 'chr', tarfile.BLKTYPE: 'blk',
         tarfile.FIFOTYPE: 'fifo'}


def tar_data(t, m):
    if not m.isfile():
        return ''
    h = hashlib.sha256()
    f = t.extractfile(m)
    while True:
        b = f.read(1 << 20)
        if not b:
            return h.hexdigest()
        h.update(b)


def ns(v):
    """A pax time string to integer nanoseconds."""
    s, _, frac = v.partition('.')
    return int(s) * 10**9 + int((frac + '000000000')[:9])


def list_tar(path):
    t = tarfile.open(path)
    first = {}
    for m in t.getmembers():
        name = m.name.rstrip('/')
        if name in ('', '.'):
            continue
        pax = m.pax_headers
        xa = sorted('%s=%s' % (k[len('SCHILY.xattr.'):], v.encode(
            'utf-8', 'surrogateescape').hex()) for k, v in pax.items()
            if k.startswith('SCHILY.xattr.'))
        acl = ['acl.%s=%s' % (k.split('.')[-1], ','.join(sorted(
            v.split(',')))) for k, v in sorted(pax.items())
            if k in ('SCHILY.acl.access', 'SCHILY.acl.default')]
        mt = ns(pax['mtime']) if 'mtime' in pax else int(m.mtime) * 10**9
        kind = TYPES.get(m.type, m.type)
        data = tar_data(t, m)
        link = m.linkname
        if kind == 'link':
            # a hard link: the first name's data, as a tree shows it
            kind, (data, size), link = 'file', first.get(link, ('', 0)), ''
        elif kind == 'file':
            size = m.size
            first[name] = (data, size)
        dev = '%d,%d' % (m.devmajor, m.devminor) if m.ischr() or \
            m.isblk() else ''
        size = str(size) if kind == 'file' else ''
        print(' '.join([name, kind, oct(m.mode), str(m.uid), str(m.gid),
                        size, str(mt) if kind != 'dir' else '', link, dev,
                        data] + acl + xa))


def list_src(root):
    """The same listing from a directory (lstat, getfacl, xattrs)."""
    import subprocess
    for rel, p in sorted(walk(root, []).items()):
        if rel == '.':
            continue
        s = os.lstat(p)
        m = s.st_mode
        kind = ('dir' if stat.S_ISDIR(m) else 'symlink' if stat.S_ISLNK(m)
                else 'chr' if stat.S_ISCHR(m) else 'blk' if stat.S_ISBLK(m)
                else 'fifo' if stat.S_ISFIFO(m) else 'file'
                if stat.S_ISREG(m) else None)
        if kind is None:
            continue
        mode = stat.S_IMODE(m)
        acl = []
        xa = []
        for n, v in sorted(xattrs(p, []).items()):
            if n.startswith('system.posix_acl_'):
                continue
            xa.append('%s=%s' % (n, v.hex()))
        if kind != 'symlink':
            for which, flag in (('access', '-a'), ('default', '-d')):
                r = subprocess.run(['getfacl', '-cpn', '-E' if False else
                                    flag, p], capture_output=True,
                                   text=True).stdout.split()
                ent = [e.replace('::', '::') for e in r]
                extended = [e for e in ent if not e.startswith(('user::',
                            'group::', 'other::'))] or which == 'default'
                if ent and extended and (which == 'default' or len(ent) > 3):
                    acl.append('acl.%s=%s' % (which, ','.join(sorted(ent))))
                    if which == 'access':
                        # the header's group bits are the group:: entry
                        g = [e for e in ent if e.startswith('group::')][0]
                        bits = sum(v for c, v in zip(g[7:10], (4, 2, 1))
                                   if c != '-')
                        mode = (mode & ~0o070) | bits << 3
        dev = '%d,%d' % (os.major(s.st_rdev), os.minor(s.st_rdev)) \
            if kind in ('chr', 'blk') else ''
        size = str(s.st_size) if kind == 'file' else ''
        data = digest(p) if kind == 'file' else ''
        link = os.readlink(p) if kind == 'symlink' else ''
        mt = str(s.st_mtime_ns) if kind != 'dir' else ''
        if kind == 'symlink':
            mode = 0o777
        print(' '.join([rel, kind, oct(mode), str(s.st_uid), str(s.st_gid),
                        size, mt, link, dev, data] + acl + xa))


def main():
    if len(sys.argv) >= 4 and sys.argv[1] == 'tree':
        return cmp_trees(sys.argv[2], sys.argv[3], sys.argv[4:])
    if len(sys.argv) == 3 and sys.argv[1] == 'tar':
        list_tar(sys.argv[2])
        return 0
    if len(sys.argv) == 3 and sys.argv[1] == 'src':
        list_src(sys.argv[2])
        return 0
    print(__doc__)
    return 2


if __name__ == '__main__':
    sys.exit(main())
