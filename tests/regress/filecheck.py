# SPDX-License-Identifier: GPL-2.0-or-later
"""Which files survive a repair, byte for byte (through debugfs).

filecheck.py snap IMAGE SNAP
  Writes SNAP: one line per regular file of IMAGE reachable from /:
  "path md5 blocks", blocks being the ranges "A-B,..." of every block
  the file depends on: its data, indirect and extent blocks, its EA
  block, the inode table block of its inode, and the same for each
  directory on its path (their blocks and inode table blocks).
filecheck.py check IMAGE SNAP [DAMAGED]
  DAMAGED: a file of damaged block numbers, one a line (absent: none).
  Every file of SNAP none of whose blocks is damaged must be in IMAGE
  at the same path with the same md5. Prints the lost ones ("lost: PATH
  (why)") and "N files checked, N lost, N skipped as damaged"; exit 1
  when one is lost.
The tree is read with one debugfs session per directory level.
"""
import hashlib
import os
import re
import subprocess
import sys
import tempfile

DEBUGFS = os.environ.get('DEBUGFS', 'debugfs')
RANGE = re.compile(r'\(([^)]*)\):(\d+)(?:-(\d+))?')


def debugfs(image, cmds):
    """Runs cmds in one read-only session; returns {cmd: output}."""
    out = subprocess.run([DEBUGFS, '-f', '-', image],
                         input='\n'.join(cmds) + '\n', capture_output=True,
                         text=True, errors='replace').stdout
    res, cur = {}, None
    for line in out.split('\n'):
        if line.startswith('debugfs: '):
            cur = line[9:]
            res[cur] = []
        elif cur is not None:
            res[cur].append(line)
    return res


def walk(image):
    """Yields (path, inode, mode) of every entry reachable from /."""
    level = [('', 2)]
    seen = {2}
    while level:
        cmds = ['ls -p <%d>' % ino for _, ino in level]
        res = debugfs(image, cmds)
        nxt = []
        for (path, ino), cmd in zip(level, cmds):
            for line in res.get(cmd, []):
                f = line.split('/')
                if len(f) < 7 or f[5] in ('.', '..') or not f[1].isdigit():
                    continue
                child, mode = int(f[1]), int(f[2] or '0', 8)
                name = '/'.join(f[5:-2])
                yield path + '/' + name, child, mode
                if mode & 0o170000 == 0o040000 and child not in seen:
                    seen.add(child)
                    nxt.append((path + '/' + name, child))
        level = nxt


def ino_blocks(lines):
    """Block ranges of a debugfs stat output, and the EA block."""
    out, in_map = [], False
    for line in lines:
        m = re.match(r'File ACL: (\d+)', line)
        if m and int(m.group(1)):
            out.append((int(m.group(1)), int(m.group(1))))
        if line.startswith(('BLOCKS:', 'EXTENTS:')):
            in_map = True
            continue
        if in_map:
            for m in RANGE.finditer(line):
                a = int(m.group(2))
                b = int(m.group(3)) if m.group(3) else a
                if '-' in m.group(1) and not m.group(3) and \
                        m.group(1)[0].isdigit():
                    lo, hi = m.group(1).split('-')[:2]
                    b = a + int(hi) - int(lo)
                out.append((a, b))
    return out


def inode_meta(image, inos):
    cmds = []
    for ino in inos:
        cmds += ['stat <%d>' % ino, 'imap <%d>' % ino]
    res = debugfs(image, cmds)
    meta = {}
    for ino in inos:
        rng = ino_blocks(res.get('stat <%d>' % ino, []))
        for line in res.get('imap <%d>' % ino, []):
            m = re.search(r'located at block (\d+)', line)
            if m:
                rng.append((int(m.group(1)), int(m.group(1))))
        meta[ino] = rng
    return meta


def md5s(image, paths):
    """md5 of each path's contents (None when it cannot be read)."""
    with tempfile.TemporaryDirectory() as d:
        cmds = ['dump "%s" %s/%d' % (p, d, i) for i, p in enumerate(paths)]
        debugfs(image, cmds)
        out = []
        for i in range(len(paths)):
            try:
                with open('%s/%d' % (d, i), 'rb') as f:
                    out.append(hashlib.md5(f.read()).hexdigest())
            except OSError:
                out.append(None)
        return out


def snap(image, snapfile):
    entries = list(walk(image))
    dirs = {'': 2}
    dirs.update({p: i for p, i, m in entries if m & 0o170000 == 0o040000})
    files = [(p, i) for p, i, m in entries if m & 0o170000 == 0o100000]
    meta = inode_meta(image, sorted(set(dirs.values()) |
                                    {i for _, i in files}))
    sums = md5s(image, [p for p, _ in files])
    with open(snapfile, 'w') as out:
        for (path, ino), s in zip(files, sums):
            rng = list(meta[ino])
            parts = path.split('/')
            for k in range(len(parts) - 1):
                rng += meta.get(dirs.get('/'.join(parts[:k + 1])), [])
            out.write('%s %s %s\n' % (path, s, ','.join(
                '%d-%d' % r for r in sorted(set(rng)))))


def check(image, snapfile, damaged):
    bad = set()
    if damaged:
        bad = {int(x) for x in open(damaged).read().split()}
    want, skipped = [], 0
    for line in open(snapfile):
        path, s, rng = line.rstrip('\n').split(' ')
        hit = False
        for r in filter(None, rng.split(',')):
            a, b = map(int, r.split('-'))
            if any(a <= x <= b for x in bad):
                hit = True
                break
        if hit:
            skipped += 1
        else:
            want.append((path, s))
    got = md5s(image, [p for p, _ in want])
    lost = 0
    for (path, s), g in zip(want, got):
        if g != s:
            lost += 1
            print('lost: %s (%s)' % (path, 'missing' if g is None
                                     else 'contents differ'))
    print('%d files checked, %d lost, %d skipped as damaged'
          % (len(want), lost, skipped))
    return 1 if lost else 0


def main():
    if len(sys.argv) >= 4 and sys.argv[1] == 'snap':
        snap(sys.argv[2], sys.argv[3])
    elif len(sys.argv) >= 4 and sys.argv[1] == 'check':
        sys.exit(check(sys.argv[2], sys.argv[3],
                       sys.argv[4] if len(sys.argv) > 4 else None))
    else:
        sys.exit('usage: filecheck.py snap IMAGE SNAP | '
                 'check IMAGE SNAP [DAMAGED]')


if __name__ == '__main__':
    main()
