# SPDX-License-Identifier: GPL-2.0-or-later
# extkit-dump against e2fsprogs on images made by mke2fs -d (ext2 with 1,
# 4 and 64 KiB blocks, ext4 with the defaults and an indexed directory):
#  - super: counts, free counts, block size, UUID, label, features as
#    dumpe2fs -h prints them (JSON), and the text line for line: every
#    line of dumpe2fs -h has its counterpart, the journal's and the MMP
#    block's included. Only white space may differ (dumpe2fs writes a
#    tab in "Inode size:", a space after the last "Filesystem flags:"
#    and an empty last line). The text is also compared, alone, on more
#    images: ext2 revision 0, ext3, ext4 with 64bit, metadata_csum and
#    fast_commit, with quota, project, mmp and a check interval, with
#    bigalloc, casefold, sparse_super2, meta_bg and RAID hints, and an
#    ext4 the kernel mounted and wrote (when loop mounts work);
#  - groups: bitmaps, inode table, free counts per group as dumpe2fs;
#  - ls: names and inode numbers (and mode, owner, size) of EVERY
#    directory as debugfs ls -p lists them;
#  - blocks: for EVERY regular file, directory and slow symlink, blocks -m
#    equals debugfs blocks, and blocks equals the data blocks of debugfs
#    stat; stat fields of the files outside the large directory;
#  - dirblock: an htree interior block shows as a dx_node record.
# debugfs runs once per batch of commands (debugfs -f).

. "${top_srcdir:-.}/tests/lib.sh"
need_dump
need_tools mke2fs debugfs dumpe2fs e2fsck python3

start=$(date +%s)
$SHELL "$top_srcdir/tests/mkimages.sh" "$tmpdir/img" >"$tmpdir/mkimages.log" ||
	{ rc=$?; cat "$tmpdir/mkimages.log"; exit $rc; }
echo "images built in $(( $(date +%s) - start ))s"

cat >"$tmpdir/check.py" <<'EOF'
import difflib, json, os, re, subprocess, sys

DUMP, DEBUGFS, DUMPE2FS, IMG, TMP = sys.argv[1:6]
NAME = os.path.basename(IMG)
counts = {"ok": 0, "fail": 0}


def ok(msg):
    counts["ok"] += 1
    print("ok: %s: %s" % (NAME, msg))


def fail(msg):
    counts["fail"] += 1
    print("FAIL: %s: %s" % (NAME, msg))


def run(args):
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=120)
    return p.returncode, p.stdout, p.stderr


def dump(*args):
    """extkit-dump IMG ARGS: stdout, or None after reporting a failure."""
    rc, out, err = run([DUMP, IMG] + list(args))
    if rc != 0 or err:
        fail("extkit-dump %s: exit %d: %s" % (
            b" ".join(a if isinstance(a, bytes) else a.encode()
                      for a in args[:4]).decode(errors="replace"), rc,
            err.decode(errors="replace").strip()[:400]))
        return None
    return out


def dump_json(*args):
    out = dump("--json", *args)
    return None if out is None else json.loads(out)


def debugfs_batch(cmds):
    """Runs the commands in one debugfs -f; returns each one's output."""
    path = os.path.join(TMP, "cmds")
    with open(path, "wb") as f:
        f.write(b"".join(c + b"\n" for c in cmds))
    rc, out, err = run([DEBUGFS, "-f", path, IMG])
    res = []
    for line in out.split(b"\n"):
        if line.startswith(b"debugfs: "):
            res.append([])
        elif res:
            res[-1].append(line)
    if len(res) != len(cmds):
        raise SystemExit("debugfs: %d outputs for %d commands"
                         % (len(res), len(cmds)))
    return res


def fold(raw):
    """A raw name as extkit's JSON writer shows it: UTF-8 kept, any other
    byte as the code point of the same value."""
    s = raw.decode("utf-8", "surrogateescape")
    return "".join(chr(ord(c) - 0xDC00) if 0xDC80 <= ord(c) <= 0xDCFF
                   else c for c in s)


def join(d, n):
    return d + n if d.endswith(b"/") else d + b"/" + n


# ---- super ----

def check_super():
    rc, out, _ = run([DUMPE2FS, "-h", IMG])
    dh = {}
    for line in out.decode("utf-8", "replace").splitlines():
        k, sep, v = line.partition(":")
        if sep:
            dh[k.strip()] = v.strip()
    js = dump_json("super")
    txt = dump("super")
    if js is None or txt is None:
        return
    want = {
        "Block count": ("blocks_count", int),
        "Inode count": ("inodes_count", int),
        "Free blocks": ("free_blocks_count", int),
        "Free inodes": ("free_inodes_count", int),
        "Block size": ("block_size", int),
        "Filesystem UUID": ("uuid", str),
        "First block": ("first_data_block", int),
        "Blocks per group": ("blocks_per_group", int),
        "Inodes per group": ("inodes_per_group", int),
    }
    for label, (key, conv) in want.items():
        if conv(dh[label]) == js.get(key):
            ok("super %s = dumpe2fs %s (%s)" % (key, label, dh[label]))
        else:
            fail("super %s = %r, dumpe2fs %s: %r" % (key, js.get(key),
                                                     label, dh[label]))
    label = dh["Filesystem volume name"]
    if (js["volume_name"] or "<none>") == label:
        ok("super volume_name = %r" % label)
    else:
        fail("super volume_name %r, dumpe2fs %r" % (js["volume_name"], label))
    if js["features"] == dh["Filesystem features"].split():
        ok("super features = dumpe2fs (%s)" % " ".join(js["features"]))
    else:
        fail("features %s, dumpe2fs %s" % (js["features"],
                                          dh["Filesystem features"]))
    tl = {}
    for line in txt.decode("utf-8", "replace").splitlines():
        k, sep, v = line.partition(":")
        if sep:
            tl[k.strip()] = v.strip()
    labels = list(want) + ["Filesystem volume name", "Filesystem features",
                           "Inode size", "Reserved block count",
                           "Filesystem magic number", "Filesystem state"]
    bad = [l for l in labels if tl.get(l) != dh.get(l)]
    if bad:
        fail("super text differs from dumpe2fs -h on %s" %
             ["%s: %r vs %r" % (l, tl.get(l), dh.get(l)) for l in bad])
    else:
        ok("super text = dumpe2fs -h on %d lines" % len(labels))
    check_super_text(out, txt)


def norm(text):
    """Lines with white space runs as one space, empty lines left out."""
    lines = (" ".join(l.split()) for l in
             text.decode("utf-8", "replace").splitlines())
    return [l for l in lines if l]


def check_super_text(want, got):
    """Every line of dumpe2fs -h, in order, and nothing else."""
    want, got = norm(want), norm(got)
    if want == got:
        ok("super text = dumpe2fs -h, all %d lines (%s)" % (
            len(want), ", ".join(l.split(":")[0] for l in want
                                 if l.startswith(("Journal", "MMP",
                                                  "Lifetime")))[:200]))
        return
    diff = list(difflib.unified_diff(want, got, "dumpe2fs -h",
                                     "extkit-dump super", lineterm=""))
    fail("super text differs from dumpe2fs -h:\n    " +
         "\n    ".join(diff[:16]))


def check_groups():
    rc, out, _ = run([DUMPE2FS, IMG])
    groups = []
    for line in out.decode("utf-8", "replace").splitlines():
        m = re.match(r"Group (\d+): \(Blocks (\d+)-(\d+)\)", line)
        if m:
            groups.append({"group": int(m[1]), "first_block": int(m[2]),
                           "last_block": int(m[3])})
            continue
        g = groups[-1] if groups else {}
        for key, pat in (("block_bitmap", r"Block bitmap at (\d+)"),
                         ("inode_bitmap", r"Inode bitmap at (\d+)"),
                         ("inode_table", r"Inode table at (\d+)")):
            m = re.search(pat, line)
            if m:
                g[key] = int(m[1])
        m = re.match(r"\s*(\d+) free (?:blocks|clusters), (\d+) free inodes,"
                     r" (\d+) directories", line)
        if m:
            g["free_blocks_count"] = int(m[1])
            g["free_inodes_count"] = int(m[2])
            g["used_dirs_count"] = int(m[3])
        if "superblock at" in line:
            g["has_super"] = True
    js = dump_json("groups")
    if js is None:
        return
    got = js["groups"]
    bad = 0
    for i, want in enumerate(groups):
        want.setdefault("has_super", False)
        have = {k: got[i].get(k) for k in want} if i < len(got) else None
        if have != want:
            bad += 1
            if bad <= 3:
                fail("group %d: %s, dumpe2fs %s" % (i, have, want))
    if len(got) != len(groups):
        fail("%d groups, dumpe2fs %d" % (len(got), len(groups)))
    elif not bad:
        ok("groups: %d groups = dumpe2fs" % len(groups))
    # The text, line for line: places, relative offsets, checksums,
    # counts and the free block and inode ranges.
    want = out.decode("utf-8", "replace").split("\n\n", 1)[-1]
    want = want[want.find("Group 0:"):]
    rc, text, _ = run([DUMP, IMG, "groups"])
    text = text.decode("utf-8", "replace")
    if rc == 0 and text.strip() == want.strip():
        ok("groups text = dumpe2fs, %d lines" % len(text.splitlines()))
    else:
        diff = [l for l in difflib.unified_diff(want.splitlines(),
                                                text.splitlines(),
                                                lineterm="")][:12]
        fail("groups text differs from dumpe2fs:\n    " +
             "\n    ".join(diff))


# ---- ls: breadth-first over every directory, one debugfs run per level ----

def parse_ls_p(lines):
    ents = []
    for line in lines:
        f = line.split(b"/")
        if len(f) < 8 or f[0] != b"":
            continue
        ino = int(f[1])
        if ino == 0:          # debugfs lists empty records; ls does not
            continue
        ents.append({"inode": ino, "mode": int(f[2], 8), "uid": int(f[3]),
                     "gid": int(f[4]), "name": f[5],
                     "size": int(f[6]) if f[6] else None})
    return ents


def check_ls():
    tree = {}
    level = [b"/"]
    while level:
        outs = debugfs_batch([b"ls -p " + d for d in level])
        nxt = []
        for d, lines in zip(level, outs):
            tree[d] = parse_ls_p(lines)
            for e in tree[d]:
                if (e["mode"] & 0o170000 == 0o040000 and
                        e["name"] not in (b".", b"..")):
                    nxt.append(join(d, e["name"]))
        level = nxt
    bad = 0
    nent = 0
    for d, want in tree.items():
        js = dump_json("ls", "-l", d)
        if js is None:
            bad += 1
            continue
        got = [(e["inode"], e["name"]) for e in js["entries"]]
        exp = [(e["inode"], fold(e["name"])) for e in want]
        nent += len(exp)
        if got != exp:
            bad += 1
            fail("ls %r: %d entries, debugfs %d; first difference %s" % (
                d, len(got), len(exp),
                next(((g, x) for g, x in zip(got, exp) if g != x), None)))
            continue
        for g, w in zip(js["entries"], want):
            attrs = ["mode", "uid", "gid"]
            if w["size"] is not None:
                attrs.append("size")
            diff = [a for a in attrs if g.get(a) != w[a]]
            if diff:
                bad += 1
                fail("ls -l %r %r: %s differ" % (d, w["name"], diff))
                break
    if not bad:
        ok("ls of all %d directories (%d entries) = debugfs ls -p"
           % (len(tree), nent))
    return tree


# ---- blocks and stat ----

TOKEN = re.compile(r"\((ETB\d+|IND|DIND|TIND|\d+(?:-\d+)?)\):(\d+)(?:-(\d+))?")


def data_blocks(stat_lines):
    """Data blocks in logical order from debugfs stat's BLOCKS/EXTENTS."""
    text = b" ".join(stat_lines).decode("utf-8", "replace")
    m = re.search(r"(?:BLOCKS|EXTENTS):(.*?)(?:TOTAL:|$)", text)
    blocks = []
    for t in TOKEN.finditer(m[1] if m else ""):
        if not t[1][0].isdigit():
            continue
        lo = int(t[2])
        hi = int(t[3]) if t[3] else lo
        blocks.extend(range(lo, hi + 1))
    return blocks


def map_text(stat_lines):
    """debugfs stat's BLOCKS/EXTENTS list, TOTAL left out."""
    text = b" ".join(stat_lines).decode("utf-8", "replace")
    m = re.search(r"(?:BLOCKS|EXTENTS):(.*?)(?:TOTAL:|$)", text)
    return " ".join(m[1].split()) if m else None


def stat_fields(lines):
    text = b"\n".join(lines).decode("utf-8", "replace")
    f = {}
    for key, pat in (("mode", r"Mode:\s+(\d+)"), ("flags", r"Flags: 0x(\w+)"),
                     ("size", r"Size: (\d+)"), ("links_count", r"Links: (\d+)"),
                     ("i_blocks", r"Blockcount: (\d+)"),
                     ("uid", r"User:\s+(\d+)"), ("gid", r"Group:\s+(\d+)"),
                     ("generation", r"Generation: (\d+)")):
        m = re.search(pat, text)
        if m:
            f[key] = int(m[1], 8 if key == "mode" else
                         16 if key == "flags" else 10)
    f["fast_link"] = "Fast link dest:" in text
    return f


def check_blocks(tree):
    """Files are named by path, except in the large directory: there
    "<INO>" spares both tools 5,000 linear lookups (a few keep paths)."""
    paths = []
    for d, ents in tree.items():
        for e in ents:
            kind = e["mode"] & 0o170000
            if e["name"] in (b".", b"..") and d != b"/":
                continue
            if kind not in (0o100000, 0o040000, 0o120000):
                continue
            if e["name"] in (b".", b".."):
                paths.append(d)
            elif d == b"/big" and b"007-" not in e["name"]:
                paths.append(b"<%d>" % e["inode"])
            else:
                paths.append(join(d, e["name"]))
    paths = sorted(set(paths))
    outs = debugfs_batch([c + b" " + p for p in paths
                          for c in (b"blocks", b"stat")])
    want_all, stats = outs[0::2], outs[1::2]
    sel = [i for i, s in enumerate(stats)
           if not stat_fields(s)["fast_link"]]
    paths = [paths[i] for i in sel]
    want_all = [b" ".join(want_all[i]).split() for i in sel]
    want_data = [data_blocks(stats[i]) for i in sel]
    want_maps = [map_text(stats[i]) for i in sel]
    stats = [stat_fields(stats[i]) for i in sel]
    got_all = dump("blocks", "-m", *paths)
    got_data = dump("blocks", *paths)
    if got_all is None or got_data is None:
        return
    got_all = [l.split() for l in got_all.split(b"\n")[:-1]]
    got_data = [[int(x) for x in l.split()] for l in
                got_data.split(b"\n")[:-1]]
    nblk = 0
    for what, got, want in (("blocks -m", got_all, want_all),
                            ("blocks", got_data, want_data)):
        bad = [i for i in range(len(paths))
               if i >= len(got) or got[i] != want[i]]
        if len(got) != len(paths):
            fail("%s: %d lines for %d paths" % (what, len(got), len(paths)))
        for i in bad[:3]:
            fail("%s %r: %s..., debugfs %s..." % (
                what, paths[i], got[i][:8] if i < len(got) else None,
                want[i][:8]))
        if not bad and len(got) == len(paths):
            nblk = sum(len(w) for w in want)
            ok("%s of %d files = debugfs (%d blocks)" % (what, len(paths),
                                                          nblk))
    # stat (one run per file): the files outside the large directory and
    # the deep path, and the few data files inside the large directory.
    bad = 0
    nstat = 0
    for i, p in enumerate(paths):
        if p.startswith(b"<") or p.startswith(b"/deep/level01/"):
            continue
        js = dump_json("stat", p)
        nstat += 1
        if js:
            js["mode"] &= 0o7777    # debugfs stat shows permissions only
        diff = [k for k in stats[i] if k != "fast_link" and
                (js or {}).get(k) != stats[i][k]]
        if diff:
            bad += 1
            if bad <= 3:
                fail("stat %r: %s differ (%s vs %s)" % (
                    p, diff, [(js or {}).get(k) for k in diff],
                    [stats[i][k] for k in diff]))
    if not bad:
        ok("stat of %d files = debugfs stat" % nstat)
    # The decoded map (text), item for item, for the same files.
    bad = 0
    nmap = 0
    for i, p in enumerate(paths):
        if p.startswith(b"<") or p.startswith(b"/deep/level01/") or \
                not want_maps[i]:
            continue
        text = dump("stat", p)
        nmap += 1
        got = re.search(rb"^(?:Extents|Blocks): +(.*)$", text or b"", re.M)
        got = got[1].decode() if got else None
        if got != want_maps[i]:
            bad += 1
            if bad <= 3:
                fail("stat %r map: %s, debugfs %s" % (
                    p, (got or "")[:120], want_maps[i][:120]))
    if not bad:
        ok("decoded maps of %d files = debugfs stat" % nmap)


def check_htree():
    """An interior htree block is one dx_node record spanning the block."""
    out = debugfs_batch([b"htree /big"])[0]
    text = b"\n".join(out).decode("utf-8", "replace")
    m = re.search(r"Indirect levels: (\d+)", text)
    if not m or m[1] == "0":
        return
    node = int(re.search(r"Entry #0: Hash 0x[0-9a-f]+, block (\d+)", text)[1])
    js = dump_json("dirblock", "/big", str(node))
    root = dump_json("dirblock", "/big", "0")
    if js is None or root is None:
        return
    recs = js["records"]
    if len(recs) == 1 and recs[0]["kind"] == "dx_node":
        ok("dirblock /big %d: one dx_node record" % node)
    else:
        fail("dirblock /big %d: %s" % (node, recs[:3]))
    names = [r.get("name") for r in root["records"]]
    if names == [".", ".."] and root["records"][1].get("dx_overhead"):
        ok("dirblock /big 0: '.', '..' and the dx_root behind it")
    else:
        fail("dirblock /big 0: %s" % root["records"][:3])


if os.environ.get("SUPER_ONLY"):
    rc, want, _ = run([DUMPE2FS, "-h", IMG])
    got = dump("super")
    if got is not None:
        check_super_text(want, got)
    print("%s: %d ok, %d failed" % (NAME, counts["ok"], counts["fail"]))
    sys.exit(1 if counts["fail"] else 0)
check_super()
check_groups()
tree = check_ls()
check_blocks(tree)
check_htree()
print("%s: %d ok, %d failed" % (NAME, counts["ok"], counts["fail"]))
sys.exit(1 if counts["fail"] else 0)
EOF

# Leak checking at exit costs more than the work of one run here; the
# other tests keep it on.
ASAN_OPTIONS=$ASAN_OPTIONS:detect_leaks=0
# The images are checked two at a time; the logs are shown in order.
images="ext2-1k ext2-4k ext2-64k ext4"
set -- $images
while [ $# -gt 0 ]; do
	pids=
	for image in $1 ${2:-}; do
		mkdir -p "$tmpdir/$image"
		python3 "$tmpdir/check.py" "$DUMP" "$DEBUGFS" "$DUMPE2FS" \
			"$tmpdir/img/$image.img" "$tmpdir/$image" \
			>"$tmpdir/$image.log" 2>&1 &
		pids="$pids $!"
	done
	for pid in $pids; do
		wait "$pid"
	done
	shift
	[ $# -gt 0 ] && shift
done
for image in $images; do
	cat "$tmpdir/$image.log"
	if grep -q "^$image.img: [0-9]* ok, 0 failed$" "$tmpdir/$image.log"
	then
		ok "$image agrees with e2fsprogs"
	else
		fail "$image"
	fi
done

# super alone, on more shapes of superblock.
extra=$tmpdir/extra
mkdir -p "$extra"
mk() {
	_name=$1
	shift
	"$MKE2FS" -q -F "$@" "$extra/$_name.img" 32M >/dev/null 2>&1 ||
		fail "mke2fs $* (for $_name)"
}
mk ext2-rev0 -t ext2 -r 0
mk ext3 -t ext3 -J size=4
mk ext4-csum -t ext4 -O 64bit,metadata_csum,fast_commit -J size=8
mk ext4-quota -t ext4 -O quota,project,mmp -i 16384 -e remount-ro \
	-E root_owner=1234:4321 -L quota-test
mk ext4-bigalloc -t ext4 -O bigalloc -C 16384
mk ext4-casefold -t ext4 -O casefold,metadata_csum_seed -E encoding_flags=strict
mk ext4-sparse2 -t ext4 -O sparse_super2,^resize_inode,meta_bg \
	-E stride=4,stripe_width=16
"$DEBUGFS" -w -R "ssv checkinterval 15638400" "$extra/ext4-quota.img" \
	>/dev/null 2>&1
use_mount_point
mk ext4-kernel -t ext4
if mount -o loop "$extra/ext4-kernel.img" "$mnt" 2>/dev/null; then
	head -c 3000000 /dev/zero >"$mnt/data"
	umount "$mnt"
else
	rm -f "$extra/ext4-kernel.img"
	echo "note: no loop mount here: the kernel-written image is left out"
fi
for img in "$extra"/*.img; do
	name=$(basename "$img" .img)
	if SUPER_ONLY=1 python3 "$tmpdir/check.py" "$DUMP" "$DEBUGFS" \
		"$DUMPE2FS" "$img" "$extra" >"$extra/$name.log" 2>&1; then
		ok "$name: super text = dumpe2fs -h"
	else
		fail "$name: super text"
	fi
	grep -v '^ok:' "$extra/$name.log" | grep -v ' 0 failed$'
done
echo "total $(( $(date +%s) - start ))s"
finish
