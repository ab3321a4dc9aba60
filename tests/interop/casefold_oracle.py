#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""extkit's casefolded hashes (tests/interop/cfhash) against e2fsprogs'
(debugfs `dx_hash -c -e utf8 -h half_md4`), whose utf8data tables are
the kernel's Unicode 12.1 ones, code point by code point.

Each name is 'X' + one code point + 'y': it folds to 'x?y' (the middle
folded, dropped when ignorable), or does not fold at all when the code
point is one Unicode 12.1 did not assign (then both hash the bytes).
Then names with a stray continuation byte (passed through, or the name
hashed as bytes when it comes first).

  casefold_oracle.py BUILDDIR            every code point from U+0080
  casefold_oracle.py BUILDDIR STEP       every STEPth one, plus the
                                         boundaries of the 12.1 tables
Prints the differences and a summary; exit 1 on any, 77 without debugfs
or cfhash. The full run (~1.1M names) takes a few minutes: outside
make check; tests/interop/casefold.sh runs a slice.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

TABLE = re.compile(r'\{ 0x([0-9A-F]+), 0x([0-9A-F]+) \}')


def boundaries(srcdir):
    """Code points at the edges of the generated 12.1 tables."""
    out = set()
    with open(os.path.join(srcdir, 'lib', 'casefold_ucd.c')) as f:
        for first, last in TABLE.findall(f.read()):
            for cp in (int(first, 16) - 1, int(first, 16),
                       int(last, 16), int(last, 16) + 1):
                out.add(cp)
    return out


def names(step, srcdir):
    cps = set(range(0x80, 0x110000, step)) | boundaries(srcdir)
    for cp in sorted(cps):
        if cp < 0x80 or 0xD800 <= cp <= 0xDFFF or cp > 0x10FFFF:
            continue
        yield 'U+%04X' % cp, ('X' + chr(cp) + 'y').encode()
    # a stray continuation byte: passed through after an ASCII letter
    # (whatever follows), the whole name hashed as bytes when it comes
    # first
    for b in range(0x80, 0xc0):
        yield 'stray %02x' % b, b'X' + bytes([b]) + b'y'
        yield 'stray %02x, E acute after' % b, b'X' + bytes([b]) + 'Éy'.encode()
        yield 'stray %02x first' % b, bytes([b]) + b'Xy'


def debugfs_hashes(raw_names):
    with tempfile.NamedTemporaryFile('wb', suffix='.cmd') as cmd:
        for raw in raw_names:
            cmd.write(b'dx_hash -c -e utf8 -h half_md4 ' + raw + b'\n')
        cmd.flush()
        out = subprocess.run(['debugfs', '-f', cmd.name, '/dev/null'],
                             capture_output=True).stdout
    got = re.findall(rb'Hash of .*? is (0x[0-9a-f]+) \(minor', out, re.S)
    return [g.decode() for g in got]


def main():
    builddir = sys.argv[1] if len(sys.argv) > 1 else '.'
    step = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    srcdir = os.environ.get('top_srcdir', builddir)
    cfhash = os.path.join(builddir, 'tests', 'interop', 'cfhash')
    if not shutil.which('debugfs') or not os.access(cfhash, os.X_OK):
        print('SKIP: debugfs or %s missing' % cfhash)
        return 77
    todo = list(names(step, srcdir))
    raws = [raw for _, raw in todo]
    ours = subprocess.run([cfhash], input=''.join(r.hex() + '\n'
                                                  for r in raws).encode(),
                          capture_output=True, check=True).stdout.split()
    ours = [x.decode() for x in ours[1::2]]
    theirs = debugfs_hashes(raws)
    if len(theirs) != len(raws) or len(ours) != len(raws):
        print('FAIL: %d names, debugfs answered %d, cfhash %d' %
              (len(raws), len(theirs), len(ours)))
        return 1
    bad = 0
    for (cp, _), a, b in zip(todo, ours, theirs):
        if a != b:
            bad += 1
            if bad <= 40:
                print('DIFF %s: extkit %s, e2fsprogs %s' % (cp, a, b))
    print('%d names, %d differ' % (len(todo), bad))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
