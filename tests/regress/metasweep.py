# SPDX-License-Identifier: GPL-2.0-or-later
"""Metadata that points at metadata: a systematic fsck sweep (issue 31).

metasweep.py [--geoms LIST] [--select REGEX] [--stride N[:K]]
             [--jobs N] [--keep DIR] [--list] [--slice]
             [--log FILE [--resume]] WORK
metasweep.py --report --log FILE[,FILE...] WORK
  For each base geometry (GEOMS below: ext2 1 and 4 KiB, ext4 1 and
  4 KiB with flex_bg, meta_bg, 32-bit descriptors, bigalloc, and an
  ext4 filled by the kernel where loop mounts work), a populated base
  image is built under WORK (reused when already there) and every
  case of the enumeration below is run on a copy of it:
    superblock: every field debugfs' set_super_value knows (but the
      checksum, which debugfs writes right whatever it is told);
    descriptors: every set_bg field of group 0, of a group holding a
      backup superblock, of a group in the middle of a flex group and
      of the last group;
    reserved inodes 1-11: block[0..11], IND, DIND, TIND (the extent
      root where the inode has extents), mode, size, links_count,
      flags, dtime, file_acl, blocks, extra_isize;
  set (one debugfs -w session; set_bg's descriptor checksum is
  recomputed in it, the others debugfs keeps valid) to 0, all ones,
  the same field of another group (descriptors) or of another reserved
  inode, and, for fields that hold a block number or a count, to each
  block other metadata owns (primary and backup superblock, a
  descriptor block, a reserved GDT block, the resize inode's DIND
  block, a block and an inode bitmap, an inode table block, the
  journal's first and a middle block, a directory block, an indirect,
  extent or EA block where the base has one), a regular file's data
  block, the last block and the first block past the end; inode
  numbers to reserved and in-use inodes (a file, a directory, past
  the last); sizes and shifts to small numbers; an inode's mode to
  each file type, its flags with EXTENTS toggled, INDEX, INLINE_DATA,
  EA_INODE or HUGE_FILE added, its size, blocks and links to their
  value +-1; other fields to 1.  About 38,600 cases in all.  The case
  id GEOM:WHERE:FIELD=KIND names it (--list).
  Every case checks:
    fnwrote  extkit-fsck -fn changed the image (sha256)
    crash    a signal, timeout or sanitizer report from extkit-fsck
    unclean  extkit-fsck -fy exits >= 4, or e2fsck -fn finds its result
             unclean, where e2fsck -fy (1.47.4, else the installed
             1.47.0) leaves its own copy clean for e2fsck -fn
    nonconv  a second extkit-fsck -fy does not exit 0
    lost     fewer regular files of the base reachable with their
             contents (filecheck.py) after extkit-fsck than after e2fsck
  A case where e2fsck -fy fails too and extkit-fsck's result is not
  clean either counts as "both" (a sweep artifact, not an extkit
  failure); where e2fsck fails and extkit-fsck's result is clean, as
  "better".  A damage debugfs refuses or that changes nothing is
  "skipped".  Prints a line per failing case, then a table per
  geometry: cases, extkit failures by class, e2fsck failures, both,
  better, skipped, files kept by extkit / by e2fsck.  --keep DIR keeps
  each failing case as DIR/GEOM/ID.img (the damaged image, before any
  fsck) with ID.txt (the commands to replay it).  Exit 1 when an extkit
  failure was found, 77 when no geometry could be built.
  --list prints the case ids only; --select keeps the cases whose id
  matches REGEX; --stride N:K keeps every Nth case from the Kth (a
  systematic sample of a full run); --slice runs make check's fixed
  slice (SLICE below; tests/regress/metasweep.sh); --e2from LOG[,LOG]
  takes e2fsck's results (its -fy, -fn and files kept) of the cases
  earlier logs on the same WORK bases hold, so a new build's sweep runs
  only extkit's side of them (the damage must be the same: the case's
  debugfs commands are compared); --skip LOG[,LOG] leaves out the
  cases those logs hold (a sweep run in parts); --log FILE appends
  each case's result as a JSON line (--resume: skip the cases it has;
  --report: print the table and the failing classes of a log, no run).
Environment: EXTKIT_FSCK (./extkit-fsck); the reference e2fsck:
E2FSCK_NEW, else the 1.47.4 build /work/e2fsprogs-src/e2fsck/e2fsck when
there, else E2FSCK (e2fsck); E2FSCK_OLD (e2fsck), tried where the first
fails; MKE2FS, DEBUGFS, DUMPE2FS; TIMEOUT (60 s, each extkit-fsck run),
E2_TIMEOUT (TIMEOUT, at most 20 s: each e2fsck run); METASWEEP_SCRATCH
(where each worker copies and repairs its cases: /dev/shm where
writable, else WORK); METASWEEP_VERBOSE=1 prints every case.
The full run (not in make check; hours on 2 cores), from the build dir:
  nice python3 tests/regress/metasweep.py --jobs 2 \\
      --keep /var/tmp/metasweep/fail --log /var/tmp/metasweep/log \\
      /var/tmp/metasweep
then, at any time (--resume continues a run that was stopped):
  python3 tests/regress/metasweep.py --report --log /var/tmp/metasweep/log x
"""
import argparse
import collections
import hashlib
import json
import multiprocessing
import os
import random
import re
import shutil
import signal
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True     # no __pycache__ in the source tree
import filecheck  # noqa: E402
import sweep  # noqa: E402  (make_tree, kernel_fill)

FSCK = os.environ.get('EXTKIT_FSCK', './extkit-fsck')
_E2NEW = '/work/e2fsprogs-src/e2fsck/e2fsck'
E2FSCK = os.environ.get('E2FSCK_NEW') or (
    _E2NEW if os.access(_E2NEW, os.X_OK) else
    os.environ.get('E2FSCK', 'e2fsck'))
E2FSCK_OLD = os.environ.get('E2FSCK_OLD', 'e2fsck')
MKE2FS = os.environ.get('MKE2FS', 'mke2fs')
DEBUGFS = os.environ.get('DEBUGFS', 'debugfs')
DUMPE2FS = os.environ.get('DUMPE2FS', 'dumpe2fs')
TIMEOUT = int(os.environ.get('TIMEOUT', '60'))
# e2fsck -fn loops on some images ("Error writing block ... Ignore
# error? no" for ever while it relocates an inode table): its runs get
# a shorter deadline, counted as not clean
E2_TIMEOUT = int(os.environ.get('E2_TIMEOUT', str(min(TIMEOUT, 20))))
# the cases' copies and file dumps: tmpfs where there is one
SCRATCH = os.environ.get('METASWEEP_SCRATCH',
                         '/dev/shm' if os.access('/dev/shm', os.W_OK) else '')
SAN = re.compile(r'AddressSanitizer|LeakSanitizer|UndefinedBehavior|'
                 r'runtime error:')
# extkit's exit codes that mean a crash (66: a sanitizer's exitcode)
CRASH_RC = {66} | set(range(128, 256))

# name: (mke2fs -t, block size, size, extra mke2fs options, fill)
# fill: 'd' mke2fs -d of sweep.py's tree, 'k' the kernel (loop mount)
GEOMS = {
    'ext2-1k': ('ext2', 1024, '64M', [], 'd'),
    'ext2-4k': ('ext2', 4096, '64M', ['-g', '2048'], 'd'),
    'ext4-1k': ('ext4', 1024, '64M', [], 'd'),
    'ext4-4k': ('ext4', 4096, '64M', ['-g', '2048'], 'd'),
    'ext4-32bit': ('ext4', 1024, '64M', ['-O', '^64bit'], 'd'),
    'ext4-metabg': ('ext4', 1024, '64M',
                    ['-g', '2048', '-O', 'meta_bg,^resize_inode'], 'd'),
    'ext4-bigalloc': ('ext4', 4096, '64M',
                      ['-O', 'bigalloc', '-C', '16384', '-g', '512'], 'd'),
    'ext4-kernel': ('ext4', 4096, '64M', ['-g', '2048'], 'k'),
}
DEFAULT_GEOMS = list(GEOMS)

# make check's slice: each kind of target and place at least once, and
# each class the full run found, on five geometries
# (tests/regress/metasweep.sh).
SLICE = [
    'ext4-1k:bg1:block_bitmap=rgdt',
    'ext4-1k:bg4:block_bitmap=other',
    'ext4-1k:bg0:block_bitmap=other',
    'ext4-1k:bg1:inode_bitmap=sb_backup',
    'ext4-1k:bg4:inode_table=journal',
    'ext4-1k:bg7:inode_table=gdt',
    'ext4-1k:bg4:block_bitmap=itable',
    'ext4-1k:bg1:inode_bitmap=resize_dind',
    'ext4-1k:bg0:inode_table=ones',
    'ext4-1k:bg7:block_bitmap=ibitmap',
    'ext4-1k:bg4:inode_bitmap=data',
    'ext4-1k:bg1:block_bitmap=sb',
    'ext4-1k:bg7:free_blocks_count=ones',
    'ext4-1k:bg0:inode_bitmap=ext',
    'ext4-1k:bg7:inode_table=dir',
    'ext4-1k:bg4:inode_bitmap=past_end',
    'ext4-1k:ino7:block[DIND]=bbitmap',
    'ext4-1k:ino7:block[DIND]=0',
    'ext4-1k:ino7:block[0]=data',
    'ext4-1k:ino8:block[3]=itable',
    'ext4-1k:ino8:mode=0',
    'ext4-1k:ino8:size=0',
    'ext4-1k:ino1:block[0]=gdt',
    'ext4-1k:ino2:block[4]=journal_mid',
    'ext4-1k:ino11:links_count=0',
    'ext4-1k:ino5:block[IND]=dir',
    'ext4-1k:sb:journal_inum=ino7',
    'ext4-1k:sb:reserved_gdt_blocks=0',
    'ext4-1k:sb:first_ino=ino2',
    'ext4-1k:sb:jnl_blocks[0]=rgdt',
    'ext4-1k:sb:rev_level=ones',
    'ext4-1k:sb:journal_inum=ino_dir',
    'ext4-1k:ino7:block[DIND]=journal',
    'ext4-1k:ino1:block[DIND]=dir',
    'ext4-1k:sb:prj_quota_inum=ino11',
    'ext4-1k:sb:first_data_block=rgdt',
    'ext2-1k:sb:creator_os=1',
    'ext4-4k:ino8:block[4]=itable',
    'ext4-4k:bg4:inode_bitmap=rgdt',
    'ext4-bigalloc:ino7:block[DIND]=sb',
    'ext4-bigalloc:bg1:inode_bitmap=resize_dind',
    'ext4-metabg:bg31:block_bitmap=gdt_meta',
    'ext2-1k:bg1:block_bitmap=rgdt',
    'ext2-1k:bg7:inode_table=sb_backup',
    'ext2-1k:bg4:inode_bitmap=other',
    'ext2-1k:bg0:block_bitmap=ind',
    'ext2-1k:ino7:block[DIND]=itable',
    'ext2-1k:ino1:block[IND]=data',
    'ext2-1k:ino2:block[0]=resize_dind',
    'ext2-1k:sb:reserved_gdt_blocks=bbitmap',
    'ext2-1k:sb:inodes_per_group=0',
]

FILE_MODE = 0o170000
S_IFDIR = 0o040000


def run(cmd, timeout=TIMEOUT, **kw):
    """(exit code or 'timeout', output)."""
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=timeout,
                           stdin=subprocess.DEVNULL, **kw)
        return p.returncode, p.stdout.decode('utf-8', 'replace')
    except subprocess.TimeoutExpired:
        return 'timeout', ''


def debugfs(img, cmd, write=False):
    args = [DEBUGFS] + (['-w'] if write else []) + ['-R', cmd, img]
    return run(args)[1]


def sha256(path):
    """sha256 of path's contents as (offset, 4 KiB block) for every
    block that is not all zeros: the same for two files of the same
    bytes whatever their holes, read only where the file has data."""
    h = hashlib.sha256()
    zero = bytes(4096)
    fd = os.open(path, os.O_RDONLY)
    try:
        end = os.fstat(fd).st_size
        off = 0
        while off < end:
            try:
                off = os.lseek(fd, off, os.SEEK_DATA) & ~4095
                hole = os.lseek(fd, off, os.SEEK_HOLE)
            except OSError:
                break
            os.lseek(fd, off, os.SEEK_SET)
            while off < hole:
                chunk = os.read(fd, 4096)
                if not chunk:
                    break
                if chunk != zero[:len(chunk)]:
                    h.update(b'@%d:' % off)
                    h.update(chunk)
                off += len(chunk)
        h.update(b'end %d' % end)
    finally:
        os.close(fd)
    return h.hexdigest()


def copy(src, dst):
    subprocess.run(['cp', '--sparse=always', src, dst], check=True)


# --- bases ---------------------------------------------------------------

def build_base(name, work):
    """Builds (or reuses) WORK/NAME.img and its facts (NAME.json)."""
    img = os.path.join(work, name + '.img')
    meta = os.path.join(work, name + '.json')
    if os.path.exists(img) and os.path.exists(meta):
        with open(meta) as f:
            return json.load(f)
    typ, bs, size, opts, fill = GEOMS[name]
    tree = os.path.join(work, 'tree-' + name)
    shutil.rmtree(tree, ignore_errors=True)
    sweep.make_tree(tree, random.Random(name))
    cmd = [MKE2FS, '-q', '-F', '-t', typ, '-b', str(bs)] + opts
    if fill == 'd':
        cmd += ['-d', tree]
    if os.path.exists(img):
        os.unlink(img)
    rc, out = run(cmd + [img, size])
    if rc != 0:
        print('%s: mke2fs failed: %s' % (name, out.strip()), file=sys.stderr)
        return None
    if fill == 'k':
        if os.getuid() != 0 or not sweep.kernel_fill(
                img, tree, os.path.join(work, 'mnt'), random.Random(name)):
            print('%s: loop mounts refused: not built' % name,
                  file=sys.stderr)
            os.unlink(img)
            return None
    shutil.rmtree(tree, ignore_errors=True)
    rc, out = run([E2FSCK, '-fn', img])
    if rc != 0:
        print('%s: base not clean:\n%s' % (name, out), file=sys.stderr)
        return None
    facts = base_facts(img)
    facts['name'] = name
    facts['img'] = img
    snap = os.path.join(work, name + '.snap')
    filecheck.snap(img, snap)
    facts['snap'] = snap
    with open(meta, 'w') as f:
        json.dump(facts, f, indent=1)
    return facts


def parse_groups(dump):
    """Per group of a dumpe2fs listing: {sb, gdt, rgdt, bb, ib, it}
    (first blocks; it: (first, last))."""
    groups = []
    g = None
    for line in dump.splitlines():
        m = re.match(r'Group (\d+): \(Blocks (\d+)-(\d+)', line)
        if m:
            g = {'start': int(m.group(2)), 'end': int(m.group(3))}
            groups.append(g)
            continue
        if g is None:
            continue
        m = re.search(r'superblock at (\d+)', line)
        if m:
            g['sb'] = int(m.group(1))
        m = re.search(r'Group descriptors? at (\d+)', line)
        if m:
            g['gdt'] = int(m.group(1))
        m = re.search(r'Reserved GDT blocks at (\d+)-(\d+)', line)
        if m:
            g['rgdt'] = (int(m.group(1)), int(m.group(2)))
        m = re.search(r'Block bitmap at (\d+)', line)
        if m:
            g['bb'] = int(m.group(1))
        m = re.search(r'Inode bitmap at (\d+)', line)
        if m:
            g['ib'] = int(m.group(1))
        m = re.search(r'Inode table at (\d+)-(\d+)', line)
        if m:
            g['it'] = (int(m.group(1)), int(m.group(2)))
    return groups


def super_fields(img):
    """{field: value string} of dumpe2fs -h."""
    out = {}
    for line in run([DUMPE2FS, '-h', img])[1].splitlines():
        if ':' in line:
            k, v = line.split(':', 1)
            out[k.strip()] = v.strip()
    return out


def field_list(img, which):
    """The fields debugfs' set_super_value / set_bg / set_inode_field
    knows on img: [(name, type)]; arrays expanded, [_hi|_lo] dropped."""
    out = []
    for line in debugfs(img, which + ' -l').splitlines():
        m = re.match(r'\t(\S+)\s+\t?(.*)$', line)
        if not m:
            continue
        name, typ = m.group(1), m.group(2).strip()
        name = name.replace('[_hi|_lo]', '')
        a = re.match(r'(\w+)\[(\d+)\]$', name)
        if a and which != 'set_inode_field':
            out += [('%s[%d]' % (a.group(1), i), typ)
                    for i in range(int(a.group(2)))]
        elif a:
            out += [('block[%d]' % i, typ) for i in range(int(a.group(2)))]
        elif name.endswith('[]'):
            continue
        else:
            out.append((name, typ))
    return out


def stat_blocks(img, ino):
    """(DIND block or 0, [blocks]) of inode ino."""
    txt = debugfs(img, 'stat <%d>' % ino)
    m = re.search(r'\(DIND\):(\d+)', txt)
    blks = [int(x) for x in debugfs(img, 'blocks <%d>' % ino).split()
            if x.isdigit()]
    return (int(m.group(1)) if m else 0), blks


# inode fields: (offset, size) of the low part and of the high part
INO_LAYOUT = {
    'mode': ((0, 2), None), 'size': ((4, 4), (108, 4)),
    'dtime': ((20, 4), None), 'links_count': ((26, 2), None),
    'blocks': ((28, 4), (116, 2)), 'flags': ((32, 4), None),
    'file_acl': ((104, 4), (118, 2)), 'extra_isize': ((128, 2), None),
}
for _i, _n in enumerate([str(i) for i in range(12)] + ['IND', 'DIND',
                                                       'TIND']):
    INO_LAYOUT['block[%s]' % _n] = ((40 + 4 * _i, 4), None)
# descriptor fields: the same, in a 32- or 64-byte descriptor
BG_LAYOUT = {
    'block_bitmap': ((0x00, 4), (0x20, 4)),
    'inode_bitmap': ((0x04, 4), (0x24, 4)),
    'inode_table': ((0x08, 4), (0x28, 4)),
    'free_blocks_count': ((0x0c, 2), (0x2c, 2)),
    'free_inodes_count': ((0x0e, 2), (0x2e, 2)),
    'used_dirs_count': ((0x10, 2), (0x30, 2)),
    'flags': ((0x12, 2), None),
    'exclude_bitmap': ((0x14, 4), (0x34, 4)),
    'block_bitmap_csum': ((0x18, 2), (0x38, 2)),
    'inode_bitmap_csum': ((0x1a, 2), (0x3a, 2)),
    'itable_unused': ((0x1c, 2), (0x32, 2)),
    'checksum': ((0x1e, 2), None),
}


def get_field(raw, layout, field, wide):
    lo, hi = layout[field]
    v = int.from_bytes(raw[lo[0]:lo[0] + lo[1]], 'little')
    if hi and wide and len(raw) >= hi[0] + hi[1]:
        v |= int.from_bytes(raw[hi[0]:hi[0] + hi[1]], 'little') << (8 * lo[1])
    return v


def read_at(img, off, n):
    with open(img, 'rb') as f:
        f.seek(off)
        return f.read(n)


def inode_values(img, ino, bs, isz):
    """{field: value} of one inode, read from img (where debugfs' imap
    says it is)."""
    m = re.search(r'located at block (\d+), offset (0x[0-9a-f]+)',
                  debugfs(img, 'imap <%d>' % ino))
    if not m:
        return {}
    raw = read_at(img, int(m.group(1)) * bs + int(m.group(2), 0), isz)
    return {f: get_field(raw, INO_LAYOUT, f, isz > 128 or f != 'extra_isize')
            for f in INO_LAYOUT if f != 'extra_isize' or isz > 128}


def desc_values(img, groups, g, bs, dsz, meta_bg, first_meta_bg):
    """{field: value} of group g's primary descriptor."""
    per = bs // dsz
    mg = g // per
    if meta_bg and mg >= first_meta_bg:
        blk = groups[mg * per]['gdt']
    else:
        blk = groups[0]['gdt'] + mg
    raw = read_at(img, blk * bs + (g % per) * dsz, dsz)
    return {f: get_field(raw, BG_LAYOUT, f, dsz >= 64) for f in BG_LAYOUT}


def metadata_targets(img, sf, groups):
    """{kind: block} of the blocks other metadata owns, a file's data
    block, the last block and the first past the end."""
    feats = sf.get('Filesystem features', '').split()
    blocks = int(sf['Block count'])
    t = collections.OrderedDict()
    g0 = groups[0]
    t['sb'] = g0.get('sb', int(sf.get('First block', '0')))
    backups = [g for g in groups[1:] if 'sb' in g]
    if backups:
        t['sb_backup'] = backups[0]['sb']
    if 'gdt' in g0:
        t['gdt'] = g0['gdt']
    if 'rgdt' in g0:
        t['rgdt'] = g0['rgdt'][0]
    # meta_bg: the descriptor block of the second meta group
    per = int(sf['Block size']) // int(sf.get('Group descriptor size', '32'))
    if 'meta_bg' in feats and len(groups) > per and 'gdt' in groups[per]:
        t['gdt_meta'] = groups[per]['gdt']
    dind, _ = stat_blocks(img, 7)
    if dind:
        t['resize_dind'] = dind
    t['bbitmap'] = g0['bb']
    t['ibitmap'] = g0['ib']
    t['itable'] = g0['it'][0]
    _, jblocks = stat_blocks(img, 8)
    if jblocks:
        t['journal'] = jblocks[0]
        t['journal_mid'] = jblocks[len(jblocks) // 2]
    _, dblocks = stat_blocks(img, 2)
    if dblocks:
        t['dir'] = dblocks[0]
    t.update(file_meta_blocks(img))
    for path in ('/f11', '/f12', '/f10', '/f09'):
        b = [int(x) for x in debugfs(img, 'blocks %s' % path).split()
             if x.isdigit()]
        if b:
            t['data'] = b[len(b) // 2]
            break
    t['last'] = blocks - 1
    t['past_end'] = blocks
    return t


def file_meta_blocks(img):
    """An indirect, an extent tree and an EA block of the files, where
    the base has them (damage.py's map)."""
    kinds = collections.OrderedDict()
    for line in run(['python3', os.path.join(HERE, 'damage.py'), 'map',
                     img])[1].splitlines():
        k = line.split()
        if len(k) == 2 and k[0] in ('ind', 'ext', 'ea') and k[0] not in kinds:
            kinds[k[0]] = int(k[1])
    return [(k, kinds[k]) for k in ('ind', 'ext', 'ea') if k in kinds]


def damaged_groups(sf, groups):
    """Group 0, the first holding a backup superblock, one in the
    middle of the first flex group, the last."""
    backups = [i for i, g in enumerate(groups) if i and 'sb' in g]
    flex = int(sf.get('Flex block group size', '0')) or len(groups)
    middle = min(flex, len(groups)) // 2
    while middle in backups and middle > 1:
        middle -= 1
    place = [0, backups[0] if backups else 1, middle, len(groups) - 1]
    return list(collections.OrderedDict.fromkeys(place))


def first_entries(img):
    """The first regular file and directory of / past the reserved
    inodes: (inode, inode)."""
    reg = dirino = 0
    for line in debugfs(img, 'ls -p /').splitlines():
        f = line.split('/')
        if len(f) < 7 or not f[1].isdigit() or f[5] in ('.', '..') or \
                int(f[1]) <= 11:
            continue
        kind = int(f[2] or '0', 8) & FILE_MODE
        if kind == 0o100000 and not reg:
            reg = int(f[1])
        if kind == S_IFDIR and not dirino:
            dirino = int(f[1])
    return reg, dirino


def base_facts(img):
    """What the enumeration needs to know of a base image."""
    sf = super_fields(img)
    groups = parse_groups(run([DUMPE2FS, img])[1])
    feats = sf.get('Filesystem features', '').split()
    bs = int(sf['Block size'])
    isz = int(sf.get('Inode size', '128'))
    dsz = int(sf.get('Group descriptor size', '32'))
    fmb = int(sf.get('First meta block group', '0'))
    place = damaged_groups(sf, groups)
    ng = len(groups)
    descs = {str(g): desc_values(img, groups, g, bs, dsz, 'meta_bg' in feats,
                                 fmb)
             for g in place + [(g + 1) % ng for g in place]}
    reg, dirino = first_entries(img)
    return {
        'blocks': int(sf['Block count']), 'bs': bs,
        'inodes_count': int(sf['Inode count']),
        'features': feats, 'ngroups': ng, 'groups': place,
        'targets': metadata_targets(img, sf, groups),
        'sb_fields': field_list(img, 'set_super_value'),
        'bg_fields': field_list(img, 'set_bg'),
        'ino_fields': field_list(img, 'set_inode_field'),
        'inodes': {str(i): inode_values(img, i, bs, isz)
                   for i in range(1, 12)},
        'descs': descs, 'reg_ino': reg, 'dir_ino': dirino,
    }


# --- the enumeration ----------------------------------------------------

# superblock fields holding a block number or a count of blocks or
# inodes: they get every metadata block as a value
SB_NUMERIC = re.compile(
    r'^(inodes_count|blocks_count|r_blocks_count|free_blocks_count|'
    r'free_inodes_count|first_data_block|blocks_per_group|'
    r'clusters_per_group|inodes_per_group|reserved_gdt_blocks|'
    r'first_meta_bg|mmp_block|jnl_blocks\[\d+\]|backup_bgs\[\d\]|'
    r'overhead_clusters|snapshot_r_blocks_count|first_error_block|'
    r'first_ino)$')
# superblock fields holding a size or a shift: small numbers
SB_SMALL = re.compile(r'^(desc_size|inode_size|log_block_size|'
                      r'log_cluster_size|log_groups_per_flex|'
                      r'min_extra_isize|want_extra_isize|rev_level|'
                      r'minor_rev_level|creator_os|errors|state|'
                      r'def_hash_version|checksum_type|jnl_backup_type)$')
SMALL_VALUES = ['1', '2', '3', '5', '16', '31', '64', '128', '1024']
# superblock fields naming an inode
SB_INODE = re.compile(
    r'^(journal_inum|last_orphan|usr_quota_inum|grp_quota_inum|'
    r'prj_quota_inum|orphan_file_inum|lpf_ino|snapshot_inum|first_ino)$')
BG_POINTER = re.compile(r'^(block_bitmap|inode_bitmap|inode_table|'
                        r'exclude_bitmap)$')
INO_FIELDS = ['mode', 'size', 'links_count', 'flags', 'dtime', 'file_acl',
              'blocks', 'extra_isize']
INO_POINTER = re.compile(r'^(block\[.*\]|file_acl)$')
ONES = ['0xffffffffffffffff', '0xffffffff', '0xffff', '0xff']


def value_kinds(base, typ, pointer, inode_field=False):
    """[(kind, value)] for a field: value None for 'ones' (the widest
    all-ones value debugfs takes)."""
    if typ == 'UUID':
        return [('0', 'null'), ('random', 'random')]
    if typ == 'string':
        return [('0', '""'), ('x', 'x' * 70)]
    if typ == 'date/time':
        return [('0', '@0'), ('ones', '@0xffffffff')]
    if typ == 'hash algorithm':
        return [('0', '0'), ('ones', '255')]
    kinds = [('0', '0'), ('ones', None)]
    if pointer:
        kinds += [(k, str(v)) for k, v in base['targets'].items()]
    elif inode_field:
        kinds += [('ino%d' % i, str(i)) for i in (1, 2, 7, 8, 11)]
        kinds += [('ino_reg', str(base['reg_ino'])),
                  ('ino_dir', str(base['dir_ino'])),
                  ('ino_past_end', str(base['inodes_count'] + 1))]
    else:
        kinds += [('1', '1')]
    return kinds


def sb_cases(base):
    for field, typ in base['sb_fields']:
        if field == 'checksum':
            continue    # debugfs writes the right one whatever it is told
        ptr = bool(SB_NUMERIC.match(field))
        ino = bool(SB_INODE.match(field))
        kinds = value_kinds(base, typ, ptr, ino)
        if SB_SMALL.match(field) and typ != 'hash algorithm':
            kinds = kinds[:2] + [(v, v) for v in SMALL_VALUES]
        if ino and ptr:
            kinds += value_kinds(base, typ, False, True)[2:]
        for kind, val in kinds:
            yield ('%s:sb:%s=%s' % (base['name'], field, kind),
                   'set_super_value %s {}' % field, val)


def bg_cases(base):
    for g in base['groups']:
        for field, typ in base['bg_fields']:
            kinds = value_kinds(base, typ, bool(BG_POINTER.match(field)))
            kinds.append(('other', 'bg%d' % ((g + 1) % base['ngroups'])))
            for kind, val in kinds:
                yield ('%s:bg%d:%s=%s' % (base['name'], g, field, kind),
                       'set_bg %d %s {}' % (g, field), val)


def ino_cases(base):
    known = {f for f, _ in base['ino_fields']}
    blockf = ['block[%d]' % i for i in range(12)] + \
        ['block[IND]', 'block[DIND]', 'block[TIND]']
    for ino in range(1, 12):
        other = 8 if ino == 7 else 7
        for field in blockf + INO_FIELDS:
            if field not in known and re.sub(r'\[\d+\]', '',
                                             field) not in known:
                continue
            kinds = value_kinds(base, 'unsigned integer',
                                bool(INO_POINTER.match(field)))
            kinds += ino_extra(base, ino, field)
            kinds.append(('other', 'ino%d' % other))
            for kind, val in kinds:
                yield ('%s:ino%d:%s=%s' % (base['name'], ino, field, kind),
                       'set_inode_field <%d> %s {}' % (ino, field), val)


def enumerate_cases(base):
    """Every case of one base: (id, debugfs command template, value);
    the template's {} takes the value."""
    cases = collections.OrderedDict()
    for gen in (sb_cases, bg_cases, ino_cases):
        for case in gen(base):
            cases.setdefault(case[0], case)
    return list(cases.values())


def ino_extra(base, ino, field):
    """Values that matter for one inode field beyond 0 / ones."""
    cur = base['inodes'].get(str(ino), {})
    if field == 'mode':
        return [('reg', '0100600'), ('dir', '040755'), ('lnk', '0120777'),
                ('sock', '0140644')]
    if field == 'flags':
        f = cur.get('flags', 0)
        return [('extents', '0x%x' % (f ^ 0x80000)),
                ('index', '0x%x' % (f | 0x1000)),
                ('inline', '0x%x' % (f | 0x10000000)),
                ('ea_inode', '0x%x' % (f | 0x200000)),
                ('huge', '0x%x' % (f | 0x40000))]
    if field in ('size', 'blocks', 'links_count'):
        v = cur.get(field, 0)
        out = [('plus1', str(v + 1))]
        if v > 1:
            out.append(('minus1', str(v - 1)))
        if field == 'size':
            out.append(('bs', str(base['bs'])))
        return out
    if field == 'extra_isize':
        return [('odd', '1'), ('32', '32')]
    return []


# --- running one case ---------------------------------------------------

def resolve(base, cmd, val):
    """The debugfs commands to try for val: 'bgN' / 'inoN' stand for
    the same field of that group or inode in the base, None for all
    ones (the widest value debugfs takes first)."""
    m = re.match(r'(bg|ino)(\d+)$', val or '')
    if m:
        field = cmd.split()[2]
        table = base['descs' if m.group(1) == 'bg' else 'inodes']
        v = table.get(m.group(2), {}).get(field)
        return None if v is None else [cmd.format(v)]
    if val is None:
        return [cmd.format(o) for o in ONES]
    return [cmd.format(val)]


def damage(base, img, cmd, val):
    """Applies the case to img; returns the debugfs commands used, or
    None when debugfs took none of the values (it says nothing but its
    banner and the commands when it took one). set_bg leaves the
    descriptor's checksum as it was: the same session recomputes it
    (a second session could not open the filesystem)."""
    for c in resolve(base, cmd, val) or []:
        w = c.split()
        cmds = [c]
        if w[0] == 'set_bg' and w[2] != 'checksum':
            cmds.append('set_bg %s checksum calc' % w[1])
        p = subprocess.run([DEBUGFS, '-w', '-f', '-', img],
                           input='\n'.join(cmds) + '\n',
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, errors='replace', timeout=TIMEOUT)
        if not [ln for ln in p.stdout.splitlines()
                if ln.strip() and not ln.startswith(
                    ('debugfs ', 'debugfs: ', 'Checksum set to'))]:
            return '; '.join(cmds)
    return None


def sanitizer(txt):
    return bool(SAN.search(txt or ''))


def files_kept(img, snap, wdir):
    """How many of snap's regular files (filecheck.py snap) img holds at
    the same path with the same md5 (one debugfs rdump of the tree)."""
    out = os.path.join(wdir, 'rdump')
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    run([DEBUGFS, '-R', 'rdump / ' + out, img])
    kept = 0
    with open(snap) as f:
        for line in f:
            path, want = line.split(' ')[:2]
            p = out + path
            if os.path.islink(p) or not os.path.isfile(p):
                continue
            with open(p, 'rb') as g:
                if hashlib.md5(g.read()).hexdigest() == want:
                    kept += 1
    shutil.rmtree(out, ignore_errors=True)
    return kept


def e2_reference(damaged, work):
    """Whether e2fsck -fy (1.47.4, else 1.47.0) cleans its own copy;
    (ok, image it left, rc)."""
    for tool in (E2FSCK, E2FSCK_OLD):
        e2img = os.path.join(work, 'e2.img')
        copy(damaged, e2img)
        rc, _ = run([tool, '-fy', e2img], timeout=E2_TIMEOUT)
        post, _ = run([tool, '-fn', e2img], timeout=E2_TIMEOUT)
        if rc != 'timeout' and rc < 8 and post == 0:
            return True, e2img, rc
        if tool == E2FSCK_OLD or E2FSCK == E2FSCK_OLD:
            break
    return False, e2img, rc


def run_case(args):
    """One case; returns a result dict."""
    base, (cid, cmd, val), scratch, keep = args
    wdir = os.path.join(scratch, 'w%d' % os.getpid())
    os.makedirs(wdir, exist_ok=True)
    img = os.path.join(wdir, 'case.img')
    copy(base['img'], img)
    used = damage(base, img, cmd, val)
    res = {'id': cid, 'cmd': used, 'class': 'skipped', 'e2': None,
           'kept': None, 'detail': 'debugfs took no value'}
    if used is None:
        return res
    if sha256(img) == base['sha']:
        res['detail'] = 'no change'
        return res
    orig = os.path.join(wdir, 'orig.img')
    copy(img, orig)
    r = fsck_runs(img, orig)
    known = E2_KNOWN.get((cid, used))
    if known:
        e2ok, e2_kept, e2rc = known
    else:
        e2ok, e2img, e2rc = e2_reference(orig, wdir)
        e2_kept = files_kept(e2img, base['snap'], wdir)
    res['e2'] = 'ok' if e2ok else 'fail'
    ext_kept = 0 if r['crash'] else files_kept(img, base['snap'], wdir)
    res['kept'] = (ext_kept, e2_kept)
    res['class'] = classify(r, e2ok, ext_kept, e2_kept)
    res['detail'] = '-fn %s, -fy %s then %s, e2fsck -fn %s; e2fsck -fy %s' \
        ' (%s); kept %d/%d' % (r['rn'], r['r1'], r['r2'], r['r3'], e2rc,
                               res['e2'], ext_kept, e2_kept)
    if res['class'] in FAILS:
        first = e2_first(r['o3']) if r['r3'] != 0 else ''
        res['detail'] += ('; after extkit: ' + first) if first else ''
        last = [ln for ln in r['o1'].splitlines() if ln.strip()][-1:] or ['']
        res['detail'] += '; extkit: ' + last[0][:100]
        if keep:
            keep_case(keep, base, res, orig, r)
    return res


def fsck_runs(img, orig):
    """extkit-fsck -fn (sha256 before and after), -fy, e2fsck -fn on
    its result, a second -fy: their exit codes and outputs."""
    r = {}
    before = sha256(img)
    r['rn'], r['on'] = run([FSCK, '-fn', img])
    r['wrote'] = sha256(img) != before
    if r['wrote']:
        copy(orig, img)
    r['r1'], r['o1'] = run([FSCK, '-fy', img])
    r['r3'], r['o3'] = run([E2FSCK, '-fn', img], timeout=E2_TIMEOUT)
    r['r2'], r['o2'] = run([FSCK, '-fy', img])
    codes = (r['rn'], r['r1'], r['r2'])
    r['crash'] = any(c == 'timeout' or c in CRASH_RC or c < 0
                     for c in codes) or \
        any(sanitizer(r[o]) for o in ('on', 'o1', 'o2'))
    return r


def classify(r, e2ok, ext_kept, e2_kept):
    """The class of a case (FAILS are extkit's failures)."""
    if r['crash']:
        return 'crash'
    if r['wrote']:
        return 'fnwrote'
    if r['r1'] >= 4 or r['r3'] != 0:
        return 'unclean' if e2ok else 'both'
    if r['r2'] != 0:
        return 'nonconv' if e2ok else 'both'
    if ext_kept < e2_kept:
        return 'lost'
    return 'ok' if e2ok else 'better'


def keep_case(keep, base, res, orig, r):
    """KEEP/GEOM/ID.img (the damaged image) and ID.txt (how to make and
    replay it, and what both tools said)."""
    cid = res['id']
    d = os.path.join(keep, cid.split(':')[0])
    os.makedirs(d, exist_ok=True)
    stem = os.path.join(d, re.sub(r'[^\w.=-]+', '_', cid))
    copy(orig, stem + '.img')
    cmds = '\\n'.join(res['cmd'].split('; '))
    with open(stem + '.txt', 'w') as f:
        f.write('%s\nclass %s\nbase %s\n'
                'damage: printf \'%s\\n\' | %s -w -f - IMG\n%s\n'
                'replay: cp %s.img x.img; %s -fn x.img; %s -fy x.img; '
                '%s -fn x.img; %s -fy x.img\n\n'
                '--- extkit -fy:\n%s\n--- e2fsck -fn after:\n%s\n'
                % (cid, res['class'], base['img'], cmds, DEBUGFS,
                   res['detail'], stem, FSCK, FSCK, E2FSCK, FSCK,
                   clip(r['o1']), clip(r['o3'])))


FAILS = ('fnwrote', 'crash', 'unclean', 'nonconv', 'lost')


def clip(txt):
    """The head and the tail of a long output."""
    if len(txt) <= 5000:
        return txt
    return txt[:2500] + '\n[...]\n' + txt[-2500:]


def e2_first(txt):
    for line in txt.splitlines():
        line = line.strip()
        if line and not line.startswith(('Pass ', 'e2fsck ', 'Warning')) \
                and not re.match(r'^[\w/.-]+: \d+/\d+ files', line):
            return line[:100]
    return ''


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--geoms', default=','.join(DEFAULT_GEOMS))
    ap.add_argument('--select')
    ap.add_argument('--stride')
    ap.add_argument('--jobs', type=int, default=1)
    ap.add_argument('--keep')
    ap.add_argument('--list', action='store_true')
    ap.add_argument('--slice', action='store_true')
    ap.add_argument('--log', help='appends one JSON line per case')
    ap.add_argument('--resume', action='store_true',
                    help='skips the cases the --log file already has')
    ap.add_argument('--report', action='store_true',
                    help='no run: the table and the failing classes of '
                    'the --log file')
    ap.add_argument('--e2from', help='reuses e2fsck\'s results of the '
                    'cases these --log files (same WORK bases) have')
    ap.add_argument('--skip', help='skips the cases these --log files '
                    'have (the rest of a sweep run in parts)')
    ap.add_argument('work')
    a = ap.parse_args()
    if a.e2from:
        load_e2_known(a.e2from)
    if a.report:
        report(a.log)
        return
    os.makedirs(a.work, exist_ok=True)
    wanted = None
    geoms = a.geoms.split(',')
    if a.slice:
        wanted = set(SLICE)
        geoms = sorted({c.split(':')[0] for c in SLICE})
    bases = {}
    for g in geoms:
        b = build_base(g, a.work)
        if b:
            b['sha'] = sha256(b['img'])
            bases[g] = b
    if not bases:
        sys.exit(77)
    todo = [(b, c) for b in bases.values() for c in enumerate_cases(b)
            if wanted is None or c[0] in wanted]
    if wanted is not None:
        missing = wanted - {c[0] for _, c in todo}
        if missing:
            print('slice cases not enumerated: %s' % sorted(missing))
            sys.exit(99)
    if a.select:
        todo = [t for t in todo if re.search(a.select, t[1][0])]
    if a.stride:
        n, k = (a.stride.split(':') + ['0'])[:2]
        todo = todo[int(k)::int(n)]
    if a.skip:
        done = {res['id'] for res in read_logs(a.skip)}
        todo = [t for t in todo if t[1][0] not in done]
    if a.resume and a.log and os.path.exists(a.log):
        with open(a.log) as f:
            done = {json.loads(line)['id'] for line in f}
        todo = [t for t in todo if t[1][0] not in done]
    if a.list:
        for _, c in todo:
            print(c[0])
        return
    table = collections.OrderedDict(
        (g, collections.Counter()) for g in bases)
    failing = []
    scratch = os.path.join(SCRATCH or a.work, 'metasweep-%d' % os.getpid())
    # kill PID: the pool's workers and the scratch go with it
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    jobs = [(b, c, scratch, a.keep) for b, c in todo]
    try:
        with multiprocessing.get_context("fork").Pool(max(1, a.jobs)) as pool:
            for res in pool.imap_unordered(run_case, jobs):
                tally(res, table, failing)
                if a.log:
                    with open(a.log, 'a') as f:
                        f.write(json.dumps(res) + '\n')
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print_table(table)
    sys.exit(1 if failing else 0)


def tally(res, table, failing, quiet=False):
    g = res['id'].split(':')[0]
    t = table[g]
    t['cases'] += 1
    t[res['class']] += 1
    if res['e2'] == 'fail':
        t['e2fail'] += 1
    if res['kept']:
        t['kept_ext'] += res['kept'][0]
        t['kept_e2'] += res['kept'][1]
    if res['class'] in FAILS:
        failing.append(res)
        if quiet:
            return
        print('FAIL %s %s: %s [%s]' % (res['id'], res['class'],
                                       res['detail'], res['cmd']),
              flush=True)
    elif os.environ.get('METASWEEP_VERBOSE') and not quiet:
        print('%s %s: %s' % (res['class'], res['id'], res['detail']),
              flush=True)


def print_table(table):
    hdr = ('geometry', 'cases', 'fail', 'fnwrote', 'unclean', 'nonconv',
           'lost', 'crash', 'e2fail', 'both', 'better', 'skipped',
           'kept ext/e2')
    fmt = '%-14s %6s %5s %7s %7s %7s %5s %5s %6s %5s %6s %7s %13s'
    print(fmt % hdr)
    for g, t in table.items():
        print(fmt % (g, t['cases'], sum(t[c] for c in FAILS), t['fnwrote'],
                     t['unclean'], t['nonconv'], t['lost'], t['crash'],
                     t['e2fail'], t['both'], t['better'], t['skipped'],
                     '%d/%d' % (t['kept_ext'], t['kept_e2'])))


# --e2from: e2fsck's side of cases a log already has, by (id, damage)
E2_KNOWN = {}


def load_e2_known(logs):
    """e2fsck's reference result (ok, files kept, exit code) of each case
    of earlier --log files run on the same base images: e2fsck and the
    damaged image are the same, so only extkit's side is run again."""
    for res in read_logs(logs):
        m = re.search(r'e2fsck -fy (\S+) \((ok|fail)\)', res['detail'])
        if not m or not res.get('kept') or res['class'] == 'crash':
            continue
        rc = m.group(1) if m.group(1) == 'timeout' else int(m.group(1))
        E2_KNOWN[(res['id'], res['cmd'])] = (m.group(2) == 'ok',
                                            res['kept'][1], rc)


def read_logs(logs):
    """The results of --log files (a comma-separated list), the last
    one of each case id."""
    results = collections.OrderedDict()
    for name in logs.split(','):
        with open(name) as f:
            for line in f:
                res = json.loads(line)
                results[res['id']] = res
    return results.values()


def report(logs):
    """The table of --log files, then their failures grouped by place,
    field, class and first complaint of e2fsck -fn after extkit."""
    table = collections.OrderedDict()
    groups = collections.defaultdict(list)
    for res in read_logs(logs):
        g = res['id'].split(':')[0]
        table.setdefault(g, collections.Counter())
        tally(res, table, [], quiet=True)
        if res['class'] not in FAILS:
            continue
        geom, where, fv = res['id'].split(':', 2)
        field, kind = fv.split('=', 1)
        m = re.search(r'after extkit: ([^;]*)', res['detail'])
        msg = re.sub(r'\d+', 'N', m.group(1)) if m else ''
        groups[(where, field, res['class'], msg)].append(
            (geom, kind, res['cmd']))
    print_table(table)
    for key, cases in sorted(groups.items(), key=lambda x: -len(x[1])):
        print('%4d %s %s %s [%s] geoms=%s values=%s e.g. %s' % (
            len(cases), key[0], key[1], key[2], key[3],
            ','.join(sorted({c[0] for c in cases})),
            ','.join(sorted({c[1] for c in cases})), cases[0][2]))


if __name__ == '__main__':
    main()
