# SPDX-License-Identifier: GPL-2.0-or-later
"""Differential fsck sweep: extkit-fsck against e2fsck (not in make check).

sweep.py [--bases LIST] [--cases N] [--seed S] [--keep DIR]
         [--base-dir DIR] WORKDIR
  Builds base images the way users have them (system mke2fs with its
  own mke2fs.conf: ext2/ext3/ext4, 1 and 4 KiB blocks, 128/256-byte
  inodes, metadata_csum on/off, 64bit, no journal, inline_data,
  huge_file), populated by `mke2fs -d` from a varied tree or by the
  kernel on a loop mount (cp of the tree, many files made and deleted
  to scatter blocks, big directories that become htrees). Every base
  is e2fsck -fn clean. Then for each case (a seed) a copy of a base is
  damaged by 1 to 3 of: debugfs clri, freei/seti, freeb/setb,
  set_inode_field (links_count, mode, size, block[N], flags, dtime,
  size_high, extra_isize, checksum, blocks, file_acl),
  set_super_value, set_bg, unlink/link without counts, random bytes
  in a directory block, or damage.py's garbage modes. Then:
    pre   e2fsck -fn on the damaged copy
    ext   extkit-fsck -fy (timeout), then e2fsck -fn on its result,
          then extkit-fsck -fy again
    e2    e2fsck -fy on another copy
  A miss is one of (class names as printed):
    crash       extkit signal, timeout or sanitizer report
    post:MSG    e2fsck -fn still finds MSG (its first problem) after
                extkit -fy exited below 8
    second      the second extkit -fy does not exit 0
    exit0       extkit -fy exits 0 where e2fsck -fn found errors
    refused     extkit exits 8 where e2fsck -fy repairs it clean
    files       fewer regular files reachable after extkit than
                after e2fsck -fy (counted through filecheck.py, on
                every SWEEP_FILES_EVERY-th case: default 4)
  Prints one line per case ("CASE seed base damage -> result") and a
  table of the classes at the end; --keep DIR keeps the damaged copy
  of each miss as DIR/SEED.img with DIR/SEED.txt (the commands).
Needs root for the kernel-populated bases (skipped otherwise).
Environment: EXTKIT_FSCK (default ./extkit-fsck), TIMEOUT (60).
Example (from tests/regress/sweep.sh):
  nice -n 10 python3 tests/regress/sweep.py --cases 400 /var/tmp/sweep6-w
"""
import argparse
import collections
import json
import os
import random
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
FSCK = os.environ.get('EXTKIT_FSCK', './extkit-fsck')
TIMEOUT = int(os.environ.get('TIMEOUT', '60'))
# the file count (a debugfs walk of both results) is slow: every Nth case
FILES_EVERY = int(os.environ.get('SWEEP_FILES_EVERY', '4'))
SAN = re.compile(r'AddressSanitizer|LeakSanitizer|UndefinedBehavior|'
                 r'runtime error:')

# name: (mke2fs type, block size, inode size, -O features, size, fill)
BASES = {
    'ext2-1k': ('ext2', 1024, 128, '', '8M', 'd'),
    'ext2-4k': ('ext2', 4096, 256, '', '32M', 'd'),
    'ext2-1k-k': ('ext2', 1024, 256, '', '16M', 'k'),
    'ext3-1k': ('ext3', 1024, 128, '', '16M', 'd'),
    'ext3-4k-k': ('ext3', 4096, 256, '', '32M', 'k'),
    'ext4-1k': ('ext4', 1024, 256, '', '16M', 'd'),
    'ext4-4k': ('ext4', 4096, 256, '', '32M', 'd'),
    'ext4-4k-k': ('ext4', 4096, 256, '', '64M', 'k'),
    'ext4-1k-k': ('ext4', 1024, 256, '', '24M', 'k'),
    'ext4-nocsum': ('ext4', 4096, 256, '^metadata_csum,^64bit', '32M', 'd'),
    'ext4-nocsum-k': ('ext4', 1024, 128, '^metadata_csum', '16M', 'k'),
    'ext4-nojournal': ('ext4', 4096, 256, '^has_journal', '32M', 'd'),
    'ext4-inline': ('ext4', 4096, 256, 'inline_data', '32M', 'd'),
    'ext4-inline-k': ('ext4', 1024, 256, 'inline_data,^has_journal',
                      '16M', 'k'),
    'ext4-nohuge': ('ext4', 1024, 128, '^huge_file,^metadata_csum,^64bit',
                    '8M', 'd'),
}


def run(cmd, timeout=TIMEOUT, **kw):
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=timeout, **kw)
        return p.returncode, p.stdout.decode('utf-8', 'replace')
    except subprocess.TimeoutExpired:
        return 'timeout', ''


def make_tree(root, rnd):
    """A varied tree: sizes around the inline/direct/indirect limits,
    a sparse file, fast and slow symlinks, hard links, a FIFO, deep
    and big directories, user xattrs where the host allows them."""
    os.makedirs(root)
    sizes = [0, 1, 59, 60, 61, 150, 1000, 4096, 5000, 12 * 1024,
             13 * 1024, 70000, 300000, 1100000]
    for i, s in enumerate(sizes):
        with open(os.path.join(root, 'f%02d' % i), 'wb') as f:
            f.write(bytes(rnd.getrandbits(8) for _ in range(min(s, 4096)))
                    * (s // 4096 + 1) if s else b'')
            f.truncate(s)
    with open(os.path.join(root, 'sparse'), 'wb') as f:
        for off in (0, 70000, 500000, 3000000):
            f.seek(off)
            f.write(b'sparse data %d\n' % off)
    os.symlink('f01', os.path.join(root, 'fast'))
    os.symlink('/'.join(['longlinkpart'] * 10), os.path.join(root, 'slow'))
    os.link(os.path.join(root, 'f05'), os.path.join(root, 'hard'))
    os.mkfifo(os.path.join(root, 'fifo'))
    d = root
    for i in range(6):
        d = os.path.join(d, 'deep%d' % i)
        os.makedirs(d)
        with open(os.path.join(d, 'x'), 'w') as f:
            f.write('level %d\n' % i)
    big = os.path.join(root, 'bigdir')
    os.makedirs(big)
    for i in range(300):
        with open(os.path.join(big, 'entry-with-a-longer-name-%04d' % i),
                  'w') as f:
            f.write('e%d\n' % i if i % 3 else '')
    for i in range(8):
        os.makedirs(os.path.join(root, 'sub', 's%d' % i))
    try:
        for i in range(4):
            os.setxattr(os.path.join(root, 'f%02d' % i), 'user.k%d' % i,
                        b'v' * (20 + 200 * i))
    except OSError:
        pass


def kernel_fill(img, tree, mnt, rnd):
    """Loop-mounts img, copies the tree, makes and deletes many files
    (scattering the free space), a big directory and a fragmented
    file; returns False when mounting is refused."""
    os.makedirs(mnt, exist_ok=True)
    if run(['mount', '-o', 'loop', img, mnt])[0] != 0:
        return False
    try:
        run(['cp', '-a', tree + '/.', mnt])
        churn = os.path.join(mnt, 'churn')
        os.makedirs(churn)
        for i in range(400):
            with open(os.path.join(churn, 'c%03d' % i), 'wb') as f:
                f.write(os.urandom(rnd.choice([10, 900, 3000, 9000, 40000])))
        for i in range(0, 400, 2):
            os.unlink(os.path.join(churn, 'c%03d' % i))
        frag = os.path.join(mnt, 'frag')
        others = [open(os.path.join(mnt, 'fr%d' % i), 'ab') for i in range(3)]
        with open(frag, 'ab') as f:
            for _ in range(40):
                f.write(os.urandom(3000))
                f.flush()
                os.fsync(f.fileno())
                for o in others:
                    o.write(os.urandom(2000))
                    o.flush()
                    os.fsync(o.fileno())
        for o in others:
            o.close()
        hdir = os.path.join(mnt, 'htree')
        os.makedirs(hdir)
        for i in range(700):
            open(os.path.join(hdir, 'name-%05d-%s' % (i, 'z' * (i % 30))),
                 'w').close()
        for i in range(0, 700, 5):
            os.unlink(os.path.join(hdir, 'name-%05d-%s' % (i, 'z' * (i % 30))))
    finally:
        subprocess.run(['sync'])
        while run(['umount', mnt])[0] != 0:
            pass
    return True


def paths_of(img):
    """Every path in img (debugfs ls, level by level) with its type
    ('d', 'f', 'o'ther)."""
    out = []
    todo = ['/']
    per_dir = collections.Counter()
    while todo:
        d = todo.pop()
        rc, txt = run(['debugfs', '-R', 'ls -p ' + d, img])
        for line in txt.splitlines():
            m = line.split('/')
            if len(m) < 7 or m[5] in ('.', '..', ''):
                continue
            mode = int(m[2], 8)
            p = (d.rstrip('/') + '/' + m[5])
            kind = 'd' if mode & 0o170000 == 0o040000 else \
                'f' if mode & 0o170000 == 0o100000 else 'o'
            per_dir[d] += 1
            if per_dir[d] <= 12 or kind == 'd':
                out.append((p, kind))
            if kind == 'd' and p != '/lost+found':
                todo.append(p)
    return out


def super_info(img):
    rc, txt = run(['dumpe2fs', '-h', img])
    info = {}
    for line in txt.splitlines():
        if ':' in line:
            k, v = line.split(':', 1)
            info[k.strip()] = v.strip()
    return info


def build_base(name, work, rnd):
    """The base image name in work (reused when already built there:
    name.img with its name.json)."""
    typ, bs, isz, feat, size, fill = BASES[name]
    img = os.path.join(work, name + '.img')
    cache = os.path.join(work, name + '.json')
    if os.path.exists(cache) and os.path.exists(img):
        with open(cache) as f:
            return json.load(f)
    tree = os.path.join(work, 'tree-' + name)
    if os.path.exists(tree):
        shutil.rmtree(tree)
    make_tree(tree, rnd)
    cmd = ['mke2fs', '-q', '-F', '-t', typ, '-b', str(bs), '-I', str(isz)]
    if feat:
        cmd += ['-O', feat]
    if fill == 'd':
        cmd += ['-d', tree]
    if os.path.exists(img):
        os.unlink(img)
    rc, txt = run(cmd + [img, size])
    if rc != 0:
        print('base %s: mke2fs failed: %s' % (name, txt), file=sys.stderr)
        return None
    if fill == 'k' and not kernel_fill(img, tree, work + '/mnt', rnd):
        print('base %s: mount refused, skipped' % name, file=sys.stderr)
        return None
    rc, txt = run(['e2fsck', '-fn', img])
    if rc != 0:
        print('base %s: not clean:\n%s' % (name, txt), file=sys.stderr)
        return None
    info = super_info(img)
    base = {'img': img, 'paths': paths_of(img),
            'blocks': int(info['Block count']),
            'inodes': int(info['Inode count']),
            'ipg': int(info['Inodes per group']),
            'bpg': int(info['Blocks per group']),
            'bs': bs,
            'groups': (int(info['Block count']) - 1) //
            int(info['Blocks per group']) + 1}
    with open(cache, 'w') as f:
        json.dump(base, f)
    return base


INODE_FIELDS = ['links_count', 'mode', 'size', 'block[0]', 'block[1]',
                'block[5]', 'block[IND]', 'block[DIND]', 'flags', 'dtime',
                'size_high', 'extra_isize', 'checksum', 'blocks',
                'file_acl', 'uid', 'generation']
SUPER_FIELDS = ['free_blocks_count', 'free_inodes_count', 'state',
                'first_ino', 'inodes_count', 'blocks_count',
                'r_blocks_count', 'first_data_block', 'rev_level',
                'inode_size', 'mtime', 'wtime', 'lastcheck',
                'min_extra_isize', 'want_extra_isize', 'checksum',
                'def_hash_version', 'errors', 'last_orphan',
                'journal_inum', 'feature_compat', 'feature_incompat',
                'feature_ro_compat', 'inodes_per_group',
                'blocks_per_group', 'desc_size', 'reserved_gdt_blocks',
                'log_groups_per_flex', 'first_meta_bg', 'creator_os',
                'mkfs_time', 'kbytes_written', 'hash_seed']
BG_FIELDS = ['block_bitmap', 'inode_bitmap', 'inode_table',
             'free_blocks_count', 'free_inodes_count', 'used_dirs_count',
             'flags', 'checksum', 'itable_unused', 'block_bitmap_csum',
             'inode_bitmap_csum']


def rnum(rnd, big):
    return rnd.choice([0, 1, 2, 3, 7, 100, 1000, big - 1, big, big + 1,
                       rnd.randrange(max(big, 2)), 0xFFFFFFFF,
                       rnd.getrandbits(32), rnd.getrandbits(16)])


def damage_cmds(base, rnd):
    """1 to 3 debugfs commands (or ('bytes', ...) / ('damage', mode)
    actions)."""
    acts = []
    paths = base['paths']
    for _ in range(rnd.choice([1, 1, 1, 2, 3])):
        p, kind = rnd.choice(paths)
        k = rnd.randrange(16)
        if k == 0:
            acts.append('clri "%s"' % p)
        elif k == 1:
            acts.append(rnd.choice(['freei "%s"' % p,
                                    'seti <%d>' % rnd.randrange(
                                        1, base['inodes'] + 1)]))
        elif k == 2:
            acts.append('%s %d %d' % (rnd.choice(['freeb', 'setb']),
                                      rnd.randrange(base['blocks']),
                                      rnd.choice([1, 1, 3, 20])))
        elif k in (3, 4, 5, 6):
            field = rnd.choice(INODE_FIELDS)
            if field == 'mode':
                val = '0%o' % rnd.choice([0, 0o140644, 0o020644, 0o060644,
                                          0o010644, 0o100644, 0o040755,
                                          0o120777, 0o170644,
                                          rnd.getrandbits(16)])
            elif field == 'flags':
                val = '0x%x' % rnd.choice([0, 0x80000, 0x1000, 0x10000000,
                                           0x4000, 0x20000000, 0x40000000,
                                           0x200000, 0x80000 | 0x1000,
                                           1 << rnd.randrange(32),
                                           rnd.getrandbits(32)])
            elif field == 'links_count':
                val = str(rnd.choice([0, 1, 2, 5, 200, 65000]))
            else:
                val = str(rnum(rnd, base['blocks']))
            acts.append('sif "%s" %s %s' % (p, field, val))
        elif k == 7:
            field = rnd.choice(SUPER_FIELDS)
            val = str(rnum(rnd, base['inodes'] if 'inode' in field
                           else base['blocks']))
            if field == 'hash_seed':
                val = 'random'
            acts.append('ssv %s %s' % (field, val))
        elif k in (8, 9):
            acts.append('set_bg %d %s %s' % (
                rnd.randrange(base['groups']), rnd.choice(BG_FIELDS),
                rnum(rnd, base['bpg'])))
        elif k == 10:
            acts.append('unlink "%s"' % p)
        elif k == 11:
            q, _ = rnd.choice(paths)
            d = q.rsplit('/', 1)[0] or '/'
            acts.append('link "%s" "%s/lnk%d"' % (p, d, rnd.randrange(99)))
        elif k in (12, 13):
            dirs = [x for x, t in paths if t == 'd'] + ['/']
            acts.append(('dirbytes', rnd.choice(dirs), rnd.getrandbits(32)))
        else:
            acts.append(('damage', rnd.randrange(8), rnd.getrandbits(20)))
    return acts


def apply_damage(img, base, acts, work):
    cmds = [a for a in acts if isinstance(a, str)]
    if cmds:
        subprocess.run(['debugfs', '-w', '-f', '-', img],
                       input='\n'.join(cmds).encode(),
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for a in acts:
        if isinstance(a, str):
            continue
        if a[0] == 'dirbytes':
            _, d, s = a
            rc, txt = run(['debugfs', '-R', 'blocks "%s"' % d, img])
            blks = [int(x) for x in txt.split() if x.isdigit()]
            if not blks:
                continue
            r = random.Random(s)
            b = r.choice(blks)
            with open(img, 'r+b') as f:
                for _ in range(r.choice([1, 2, 4, 16])):
                    f.seek(b * base['bs'] + r.randrange(base['bs']))
                    f.write(bytes([r.getrandbits(8)]))
        else:
            _, mode, s = a
            mp = os.path.join(work, 'map-%d' % os.getpid())
            with open(mp, 'w') as f:
                subprocess.run(['python3', os.path.join(HERE, 'damage.py'),
                                'map', img], stdout=f,
                               stderr=subprocess.DEVNULL)
            tmp = img + '.d'
            dm = img + '.dm'
            rc = subprocess.run(['python3', os.path.join(HERE, 'damage.py'),
                                 'hit2', img, mp, str(s * 8 + mode), tmp, dm],
                                stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL).returncode
            if rc == 0 and os.path.exists(tmp):
                os.replace(tmp, img)
            for x in (tmp, dm, mp):
                if os.path.exists(x):
                    os.unlink(x)


PROBLEM_END = re.compile(r'(\? no|\? yes)$')


def first_problem(txt):
    """The first problem e2fsck reports, numbers replaced by N."""
    lines = txt.splitlines()
    for i, line in enumerate(lines):
        line = line.strip()
        if PROBLEM_END.search(line) or line.endswith('IGNORED.'):
            msg = line
            if re.match(r'^(Fix|Clear|Salvage|Recreate|Relocate|Connect'
                        r'|Abort|Optimize|Allocate|Ignore error)', line) \
                    and i > 0:
                msg = lines[i - 1].strip() + ' ' + line
            return re.sub(r'\d+', 'N', msg)[:90]
    for line in lines:
        if re.search(r'error|corrupt|bad|invalid|differ', line, re.I):
            return re.sub(r'\d+', 'N', line.strip())[:90]
    return 'unknown: ' + (lines[-1] if lines else '')


def count_files(img, work):
    snap = os.path.join(work, 'snap-%d' % os.getpid())
    rc, _ = run(['python3', os.path.join(HERE, 'filecheck.py'), 'snap',
                 img, snap], timeout=300)
    if rc != 0 or not os.path.exists(snap):
        return -1
    with open(snap) as f:
        n = sum(1 for _ in f)
    os.unlink(snap)
    return n


def one_case(seed, bases, work, keep):
    rnd = random.Random(seed)
    name = rnd.choice(sorted(bases))
    base = bases[name]
    acts = damage_cmds(base, rnd)
    img = os.path.join(work, 'case.img')
    e2img = os.path.join(work, 'case-e2.img')
    shutil.copyfile(base['img'], img)
    apply_damage(img, base, acts, work)
    shutil.copyfile(img, e2img)
    if keep:
        shutil.copyfile(img, os.path.join(work, 'case-orig.img'))
    pre_rc, pre = run(['e2fsck', '-fn', img])
    if pre_rc == 0:
        return name, acts, 'clean', None, ''
    e2_rc, _ = run(['e2fsck', '-fy', e2img])
    e2_post_rc, _ = run(['e2fsck', '-fn', e2img])
    e2_ok = e2_rc != 'timeout' and e2_rc < 8 and e2_post_rc == 0
    ext_rc, ext = run([FSCK, '-fy', img])
    miss = None
    detail = 'ext=%s e2=%s' % (ext_rc, e2_rc)
    if ext_rc == 'timeout' or ext_rc < 0 or ext_rc >= 128 or SAN.search(ext):
        miss = 'crash'
        detail += ' ' + (SAN.search(ext).group(0) if SAN.search(ext) else '')
    elif ext_rc == 0:
        miss = 'exit0'
    elif ext_rc >= 8:
        if e2_ok:
            miss = 'refused'
            detail += ' ' + ext.strip().splitlines()[-1][:80] if ext else ''
    else:
        post_rc, post = run(['e2fsck', '-fn', img])
        if post_rc != 0:
            miss = 'post:' + first_problem(post)
        else:
            rc2, out2 = run([FSCK, '-fy', img])
            if rc2 != 0:
                miss = 'second'
                detail += ' rc2=%s' % rc2
            elif e2_ok and seed % FILES_EVERY == 0:
                nx, ne = count_files(img, work), count_files(e2img, work)
                detail += ' files ext=%d e2=%d' % (nx, ne)
                if nx < ne:
                    miss = 'files'
    if miss and keep:
        os.makedirs(keep, exist_ok=True)
        shutil.copyfile(os.path.join(work, 'case-orig.img'),
                        os.path.join(keep, '%d.img' % seed))
        with open(os.path.join(keep, '%d.txt' % seed), 'w') as f:
            f.write('base %s\n%s\n%s\n\n%s\n' % (name, repr(acts), detail,
                                                 ext))
    return name, acts, 'fixed' if not miss else 'MISS', miss, detail


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--bases', default=','.join(sorted(BASES)))
    ap.add_argument('--cases', type=int, default=100)
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--keep')
    ap.add_argument('--base-dir', help='where the bases are built or '
                    'reused (default: WORKDIR)')
    ap.add_argument('work')
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    rnd = random.Random(0)
    bases = {}
    for name in a.bases.split(','):
        b = build_base(name, a.base_dir or a.work, random.Random(name))
        if b:
            bases[name] = b
    if not bases:
        sys.exit(77)
    classes = collections.Counter()
    n = damaged = 0
    for seed in range(a.seed, a.seed + a.cases):
        name, acts, res, miss, detail = one_case(seed, bases, a.work, a.keep)
        n += 1
        if res != 'clean':
            damaged += 1
        if miss:
            classes[miss] += 1
        print('CASE %d %s %s -> %s %s %s' % (seed, name, acts, res,
                                            miss or '', detail), flush=True)
    print('\n%d cases, %d damaged (e2fsck -fn not clean), %d misses'
          % (n, damaged, sum(classes.values())))
    for c, k in classes.most_common():
        print('%5d  %s' % (k, c))


if __name__ == '__main__':
    main()
