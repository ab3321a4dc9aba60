#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The source tree of tests/mkfs/inline_ea.sh and its checks.

One fixed tree: regular files around the inline sizes, directories of
0 to 50 entries (short and long names), attribute values of every size
class (in the inode, in the EA block, in an EA inode: up to 64 KiB),
directories with attributes (one in an EA inode, in blocks and inline),
symbolic links short and long, a hard link.

  tree DIR [MAXVAL]      make it under DIR (values over MAXVAL left out)
  tar OUT [MAXVAL]       the same as a pax archive (SCHILY.xattr records)
  check ROOT [MAXVAL]    ROOT (a mounted image) holds exactly the tree
  dumpcmds OUT DIR       a debugfs command file: each file dumped into
                         DIR, each attribute value with ea_get -f
  dumpcheck DIR [MAXVAL] what those commands wrote is the tree
"""
import io
import os
import random
import stat
import sys
import tarfile

FILE_SIZES = [0, 1, 59, 60, 61, 100, 127, 128, 129, 200, 384, 385, 5000]
DIR_SIZES = [0, 1, 3, 4, 5, 6, 8, 10, 50]
VALUE_SIZES = [10, 60, 88, 200, 900, 968, 969, 1000, 3000, 4040, 4041,
               10000, 65536]


def data(seed, n):
    r = random.Random(seed)
    # printable bytes: the same value whether set with setxattr or as a
    # pax record
    return bytes(r.choice(b'abcdefghijklmnopqrstuvwxyz0123456789')
                 for _ in range(n))


def spec(maxval):
    """(path, kind, content, xattrs): kind f, d, l (content: target),
    h (content: the path linked to)."""
    out = []
    for n in FILE_SIZES:
        out.append(('f%d' % n, 'f', data('f%d' % n, n), {}))
    for k in DIR_SIZES:
        out.append(('d%d' % k, 'd', None, {}))
        for i in range(k):
            out.append(('d%d/n%02d' % (k, i), 'f', data(i, i % 7), {}))
    out.append(('dlong', 'd', None, {}))
    for i in range(3):
        out.append(('dlong/%s%d' % ('L' * 28, i), 'f', b'', {}))
    for v in VALUE_SIZES:
        if v <= maxval:
            out.append(('x%d' % v, 'f', data('x', 30),
                        {'user.v%d' % v: data('v%d' % v, v)}))
    mix = {'user.a': data('a', 20), 'user.b': data('b', 900),
           'trusted.c': data('c', 3000), 'user.d': data('d', 20000)}
    out.append(('mix', 'f', data('mix', 100),
                {k: v for k, v in mix.items() if len(v) <= maxval}))
    out.append(('dattr', 'd', None, {'user.dir': data('dir', 40)}))
    for i in range(4):
        out.append(('dattr/e%d' % i, 'f', b'x', {}))
    # directories holding a value for an EA inode: in blocks, inline
    big = {'user.big': data('big', 5000)} if maxval >= 5000 else {}
    out.append(('dbig', 'd', None, big))
    for i in range(30):
        out.append(('dbig/entry%02d' % i, 'f', b'', {}))
    out.append(('dbig2', 'd', None, dict(big)))
    out.append(('lshort', 'l', b'f100', {}))
    out.append(('llong', 'l', b'd10/' + b'.' * 96 + b'/f1', {}))
    out.append(('hard', 'h', b'f61', {}))
    return out


def make_tree(root, maxval):
    for path, kind, content, xattrs in spec(maxval):
        p = os.path.join(root, path)
        if kind == 'd':
            os.mkdir(p)
        elif kind == 'f':
            with open(p, 'wb') as f:
                f.write(content)
        elif kind == 'l':
            os.symlink(content, p)
        else:
            os.link(os.path.join(root, content.decode()), p)
        for k, v in xattrs.items():
            os.setxattr(p, k, v, follow_symlinks=False)


def make_tar(out, maxval):
    with tarfile.open(out, 'w', format=tarfile.PAX_FORMAT) as t:
        for path, kind, content, xattrs in spec(maxval):
            ti = tarfile.TarInfo(path)
            ti.mtime = 1700000000
            ti.pax_headers = {'SCHILY.xattr.' + k: v.decode()
                              for k, v in xattrs.items()}
            body = None
            if kind == 'd':
                ti.type = tarfile.DIRTYPE
                ti.mode = 0o755
            elif kind == 'f':
                ti.mode = 0o644
                ti.size = len(content)
                body = io.BytesIO(content)
            elif kind == 'l':
                ti.type = tarfile.SYMTYPE
                ti.linkname = content.decode()
            else:
                ti.type = tarfile.LNKTYPE
                ti.linkname = content.decode()
            t.addfile(ti, body)


def user_xattrs(p):
    names = [n for n in os.listxattr(p, follow_symlinks=False)
             if not n.startswith('security.')]
    return {n: os.getxattr(p, n, follow_symlinks=False) for n in names}


def check(root, maxval):
    bad = []
    want = {}
    for path, kind, content, xattrs in spec(maxval):
        want[path] = (kind, content, xattrs)
    have = set()
    for d, dirs, files in os.walk(root):
        for n in dirs + files:
            rel = os.path.relpath(os.path.join(d, n), root)
            if rel != 'lost+found':
                have.add(rel)
        if os.path.relpath(d, root) == '.' and 'lost+found' in dirs:
            dirs.remove('lost+found')
    if have != set(want):
        bad.append('names: missing %s, extra %s' %
                   (sorted(set(want) - have), sorted(have - set(want))))
    for path, (kind, content, xattrs) in want.items():
        p = os.path.join(root, path)
        try:
            st = os.lstat(p)
        except OSError as e:
            bad.append('%s: %s' % (path, e))
            continue
        if kind == 'd' and not stat.S_ISDIR(st.st_mode):
            bad.append('%s: not a directory' % path)
        elif kind == 'l' and os.readlink(p).encode() != content:
            bad.append('%s: link target differs' % path)
        elif kind in 'fh':
            with open(p, 'rb') as f:
                got = f.read()
            if kind == 'h':
                content = want[content.decode()][1]
            if got != content:
                bad.append('%s: content differs (%d bytes, want %d)' %
                           (path, len(got), len(content)))
        if kind != 'l' and user_xattrs(p) != xattrs:
            bad.append('%s: attributes differ: %s' %
                       (path, sorted(user_xattrs(p))))
    return bad


def dump_cmds(out, outdir):
    with open(out, 'w') as f:
        for path, kind, content, xattrs in spec(1 << 30):
            flat = path.replace('/', '_')
            if kind in 'fh':
                f.write('dump /%s %s/%s\n' % (path, outdir, flat))
            for k in xattrs:
                f.write('ea_get -f %s/%s@%s /%s %s\n' %
                        (outdir, flat, k, path, k))


def dump_check(outdir, maxval):
    bad = []
    sp = spec(maxval)
    byname = {p: c for p, k, c, x in sp}
    for path, kind, content, xattrs in sp:
        flat = path.replace('/', '_')
        if kind == 'h':
            content = byname[content.decode()]
        if kind in 'fh':
            try:
                # debugfs dumps an inline file's whole inline area (60
                # bytes at least, 1.47.4 a block), not i_size bytes
                with open(os.path.join(outdir, flat), 'rb') as f:
                    if f.read()[:len(content)] != content:
                        bad.append('%s: content differs' % path)
            except OSError:
                bad.append('%s: not dumped' % path)
        for k, v in xattrs.items():
            try:
                with open(os.path.join(outdir, flat + '@' + k), 'rb') as f:
                    if f.read() != v:
                        bad.append('%s: %s differs' % (path, k))
            except OSError:
                bad.append('%s: %s not read' % (path, k))
    return bad


def main():
    cmd = sys.argv[1]
    maxval = int(sys.argv[3]) if len(sys.argv) > 3 and cmd != "dumpcmds" \
        else 1 << 30
    if cmd == 'tree':
        make_tree(sys.argv[2], maxval)
    elif cmd == 'tar':
        make_tar(sys.argv[2], maxval)
    elif cmd == 'dumpcmds':
        dump_cmds(sys.argv[2], sys.argv[3])
    elif cmd in ('check', 'dumpcheck'):
        bad = (check if cmd == 'check' else dump_check)(sys.argv[2], maxval)
        for b in bad[:20]:
            print(b)
        return 1 if bad else 0
    else:
        print(__doc__)
        return 2
    return 0


if __name__ == '__main__':
    sys.exit(main())
