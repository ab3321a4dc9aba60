# SPDX-License-Identifier: GPL-2.0-or-later
"""crc32c as ext4 keeps it, for the test helpers that forge checksums
(dxtail.py, mmp.py, orphan_file.py): a bit at a time, no final inversion;
seeds are ~0 for the filesystem UUID's seed, then chained."""


def crc32c(crc, data):
    """Continues crc over data (crc32c, reflected, no final xor)."""
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc
