#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Do libunistring's case folding tables agree with the ones e2fsprogs
(and the kernel's fs/unicode utf8data) hash casefolded names with?

For each name: libunistring's u8_casefold(name, NFD) (through ctypes, the
runtime library libunistring.so.2), hashed plainly by debugfs dx_hash,
against debugfs dx_hash -c -e utf8 of the name itself (e2fsprogs'
casefold). Equal hashes mean the folded bytes agree. Prints one line a
name and a summary; exit 1 when one differs, 77 when a tool is missing.
Not part of make check (issue 13's casefold measurement).
"""
import ctypes
import ctypes.util
import shutil
import subprocess
import sys

NAMES = ['Hello', 'STRASSE', 'Straße', 'ÉCOLE', 'école', 'ǅemal',
         'ΣΊΣΥΦΟΣ', 'ﬁle', 'İstanbul', 'Ⅻ', 'Å', 'A\u030a', '한국어',
         'ＡＢＣ', 'ǰ\u0323', 'ΐ', 'Ω', 'K', 'ſ', 'ẞ', 'ς', 'Ǆ', 'ᾼ',
         'Ⓐ', '𐐀', 'Ꭰ',
         # assigned after Unicode 12.1 (the kernel's and e2fsprogs'
         # tables), before 14.0 (libunistring 1.0's)
         '\u2c2f', '\ua7c0', '\ua7d0', '\U00010570']


def hash_of(args):
    out = subprocess.run(['debugfs', '-R', 'dx_hash ' + args, '/dev/null'],
                         capture_output=True, text=True).stdout
    line = [x for x in out.splitlines() if x.startswith('Hash of')]
    return line[-1].split(' is ')[1].split(' ')[0] if line else None


def main():
    path = ctypes.util.find_library('unistring') or 'libunistring.so.2'
    try:
        lib = ctypes.CDLL(path)
    except OSError:
        print('SKIP: no libunistring')
        return 77
    if not shutil.which('debugfs'):
        print('SKIP: no debugfs')
        return 77
    nfd = ctypes.c_char.in_dll(lib, 'uninorm_nfd')
    lib.u8_casefold.restype = ctypes.c_void_p
    bad = 0
    for name in NAMES:
        raw = name.encode()
        n = ctypes.c_size_t(0)
        r = lib.u8_casefold(raw, len(raw), None, ctypes.byref(nfd), None,
                            ctypes.byref(n))
        folded = ctypes.string_at(r, n.value).decode()
        a = hash_of('-c -e utf8 -h half_md4 "%s"' % name)
        b = hash_of('-h half_md4 "%s"' % folded)
        same = a is not None and a == b
        bad += not same
        print('%-6s %r -> %r: e2fsprogs %s, libunistring %s'
              % ('ok' if same else 'DIFF', name, folded, a, b))
    print('%d names, %d differ' % (len(NAMES), bad))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
