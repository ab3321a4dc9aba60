# SPDX-License-Identifier: GPL-2.0-or-later
"""Independent count of a directory's free-entry figures from raw bytes.

usage: figures.py IMAGE BLOCK_SIZE CSUM INDEXED < debugfs-stat-output
The logical-to-physical map comes from the BLOCKS section of debugfs
"stat" (index blocks such as (IND) skipped); each block is read from the
image and its records parsed here, without extkit. Prints the figures as
JSON with the keys extkit-dump frag --json uses.
"""
import json
import re
import struct
import sys


def block_map(text):
    """Physical blocks in logical order from debugfs stat's BLOCKS."""
    m = {}
    body = re.split(r"^(?:BLOCKS|EXTENTS):", text, 1, re.M)[-1]
    for lo, hi, plo, phi in re.findall(
            r"\((\d+)(?:-(\d+))?\):(\d+)(?:-(\d+))?", body):
        lo, plo = int(lo), int(plo)
        hi = int(hi) if hi else lo
        for i in range(hi - lo + 1):
            m[lo + i] = plo + i
    return [m[i] for i in sorted(m)]

BUCKETS = [0, 16, 24, 32, 64, 128, 256, 512, 1024]
KEYS = ["12_15", "16_23", "24_31", "32_63", "64_127", "128_255",
        "256_511", "512_1023", "1024_up", "empty_blocks"]


def rec_len(raw, bs):
    if bs < 65536:
        return raw
    if raw in (0, 65535):
        return bs
    return (raw & 65532) | ((raw & 3) << 16)


def minlen(n):
    return (8 + n + 3) & ~3


def main():
    img, bs, csum, indexed = sys.argv[1], int(sys.argv[2]), \
        sys.argv[3] == "1", sys.argv[4] == "1"
    blks = block_map(sys.stdin.read())
    usable = bs - (12 if csum else 0)
    f = {"dir_blocks": len(blks), "entries": 0, "live_bytes": 0,
         "free_bytes": 0, "holes": 0, "largest_hole": 0,
         "hole_histogram": dict((k, 0) for k in KEYS)}
    small = 0
    sizes = []
    nodes = set()
    with open(img, "rb") as fh:
        data = []
        for b in blks:
            fh.seek(b * bs)
            data.append(fh.read(bs))
    if indexed:
        levels = data[0][0x1e]
        count = struct.unpack_from("<H", data[0], 0x22)[0]
        kids = [struct.unpack_from("<I", data[0], 0x24)[0]] + \
            [struct.unpack_from("<I", data[0], 0x28 + 8 * i + 4)[0]
             for i in range(count - 1)]
        for _ in range(levels):
            nodes.update(kids)
            nxt = []
            for k in kids:
                c = struct.unpack_from("<H", data[k], 10)[0]
                nxt.append(struct.unpack_from("<I", data[k], 12)[0])
                nxt += [struct.unpack_from("<I", data[k], 16 + 8 * i + 4)[0]
                        for i in range(c - 1)]
            kids = nxt
    for lb, d in enumerate(data):
        if lb in nodes:
            continue
        off, runs = 0, []
        while off < (bs if (indexed and lb == 0) else usable):
            ino, rl, nl = struct.unpack_from("<IHB", d, off)
            rl = rec_len(rl, bs)
            if rl < 12:
                sys.exit("bad rec_len %d in block %d" % (rl, lb))
            if ino:
                m = minlen(nl)
                f["entries"] += 1
                f["live_bytes"] += m
                if indexed and lb == 0:
                    off += rl
                    continue
                sizes.append(m)
                if rl > m:
                    runs.append([off + m, rl - m])
            else:
                runs.append([off, rl])
            off += rl
        holes = []
        for s, n in runs:
            if holes and holes[-1][0] + holes[-1][1] == s:
                holes[-1][1] += n
            else:
                holes.append([s, n])
        for s, n in holes:
            f["free_bytes"] += n
            f["holes"] += 1
            f["largest_hole"] = max(f["largest_hole"], n)
            if n < 24:
                small += n
            if s == 0 and n >= usable:
                f["hole_histogram"]["empty_blocks"] += 1
            else:
                i = max(j for j in range(9) if n >= BUCKETS[j])
                f["hole_histogram"][KEYS[i]] += 1
    need, fill = 0, 0
    for m in sizes:
        if need and fill + m <= usable:
            fill += m
        else:
            need, fill = need + 1, m
    if indexed:
        rl = (bs - 32 - (8 if csum else 0)) // 8
        nl = (bs - 8 - (8 if csum else 0)) // 8
        n1 = 0 if need <= rl else -(-need // nl)
        need += 1 + n1
    f["blocks_needed"] = max(need, 1)
    f["reclaimable_blocks"] = max(0, len(blks) - f["blocks_needed"])
    f["small_hole_share"] = round(small / f["free_bytes"], 4) \
        if f["free_bytes"] else 0.0
    # the share of the directory's bytes that are free: live, free and
    # overhead bytes cover its blocks whole
    f["free_share"] = round(f["free_bytes"] / (len(blks) * bs), 4) \
        if blks else 0.0
    print(json.dumps(f, sort_keys=True))


main()
