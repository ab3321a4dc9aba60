# SPDX-License-Identifier: GPL-2.0-or-later
# One clean image of the feature matrix (features_clean.sh): extkit-fsck
# -fn finds nothing, -fy finds nothing and changes only the check's own
# superblock fields, e2fsck -fn stays clean, and extkit-dump ls/stat
# agree with debugfs.
# usage: features_clean_check.py FSCK DUMP E2FSCK DEBUGFS DUMPE2FS IMG TMPDIR
#        PATH...
import json
import os
import re
import shutil
import struct
import subprocess
import sys

FSCK, DUMP, E2FSCK, DEBUGFS, DUMPE2FS, IMG, TMP = sys.argv[1:8]
PATHS = sys.argv[8:]
NAME = os.path.basename(IMG)
counts = {"ok": 0, "fail": 0}

# Superblock bytes a clean check may change (offsets in the superblock):
# s_mnt_count, s_lastcheck, s_kbytes_written (what the run wrote, as
# e2fsck's close adds it), s_checksum.
SB_ALLOWED = set(range(0x34, 0x36)) | set(range(0x40, 0x44)) | \
    set(range(0x178, 0x180)) | set(range(0x3FC, 0x400))


def ok(msg):
    counts["ok"] += 1
    print("ok: %s: %s" % (NAME, msg))


def fail(msg):
    counts["fail"] += 1
    print("FAIL: %s: %s" % (NAME, msg))


def run(args):
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=120)
    return p.returncode, p.stdout.decode(errors="replace"), \
        p.stderr.decode(errors="replace")


def problems(out):
    """fsck output lines other than the pass headers and the summary."""
    return [l for l in out.splitlines() if l and not l.startswith("Pass ")
            and not re.match(r"^\S+: \d+/\d+ files", l)]


def check_fsck(img, opt):
    rc, out, err = run([FSCK, opt, img])
    bad = problems(out) + [l for l in err.splitlines() if l]
    if rc != 0 or bad:
        fail("extkit-fsck %s: exit %d: %s" % (opt, rc, " | ".join(bad[:6])))
        return False
    ok("extkit-fsck %s: exit 0, nothing found" % opt)
    return True


def check_e2fsck(img, what):
    rc, out, _ = run([E2FSCK, "-fn", img])
    if rc != 0:
        fail("e2fsck -fn after %s: exit %d: %s" % (
            what, rc, " | ".join(problems(out)[:6])))
    else:
        ok("e2fsck -fn clean after %s" % what)


def mmp_range(data):
    """The MMP block's bytes (fsck rewrites its sequence), or None."""
    sb = data[1024:2048]
    incompat = struct.unpack_from("<I", sb, 0x60)[0]
    if not incompat & 0x100:
        return None
    bs = 1024 << struct.unpack_from("<I", sb, 0x18)[0]
    blk = struct.unpack_from("<Q", sb, 0x168)[0]
    return (blk * bs, blk * bs + bs)


def check_changes(before, after):
    with open(before, "rb") as f:
        a = f.read()
    with open(after, "rb") as f:
        b = f.read()
    if len(a) != len(b):
        fail("-fy changed the image size")
        return
    mmp = mmp_range(a)
    bad = []
    pos = 0
    while True:
        i = next((k for k in range(pos, len(a), 1 << 16)
                  if a[k:k + (1 << 16)] != b[k:k + (1 << 16)]), None)
        if i is None:
            break
        end = min(i + (1 << 16), len(a))
        for k in range(i, end):
            if a[k] == b[k]:
                continue
            if 1024 <= k < 2048 and k - 1024 in SB_ALLOWED:
                continue
            if mmp and mmp[0] <= k < mmp[1]:
                continue
            bad.append(k)
        pos = end
    if bad:
        fail("-fy changed %d bytes outside the check's fields, first at "
             "%d (block %d at 4K, %d at 1K)" % (len(bad), bad[0],
                                                bad[0] // 4096,
                                                bad[0] // 1024))
    else:
        ok("-fy changed only s_mnt_count/s_lastcheck/s_checksum")


DEBUGFS_OUT = {}


def debugfs_batch(img, cmds):
    """Runs the commands in one debugfs -f; keeps each one's output."""
    path = os.path.join(TMP, NAME + ".cmds")
    with open(path, "w") as f:
        f.write("".join(c + "\n" for c in cmds))
    _, out, _ = run([DEBUGFS, "-f", path, img])
    cur = None
    for line in out.split("\n"):
        if line.startswith("debugfs: "):
            cur = line[len("debugfs: "):]
            DEBUGFS_OUT[cur] = []
        elif cur is not None:
            DEBUGFS_OUT[cur].append(line)
    os.unlink(path)


def debugfs(cmd, img):
    return "\n".join(DEBUGFS_OUT.get(cmd, []))


def check_ls(img, path):
    rc, out, err = run([DUMP, img, "ls", "-l", path])
    if rc != 0:
        fail("extkit-dump ls %s: exit %d: %s" % (path, rc, err.strip()))
        return
    mine = set()
    for line in out.splitlines():
        # inode mode links uid gid size type date time name[ -> target]
        f = line.split(None, 9)
        if len(f) == 10 and f[0].isdigit():
            name = f[9]
            if f[1].startswith("12") and " -> " in name:
                name = name.split(" -> ", 1)[0]
            mine.add((int(f[0]), name))
    theirs = set()
    for line in debugfs("ls -p %s" % path, img).splitlines():
        f = line.split("/")
        if len(f) >= 7 and f[1].isdigit() and int(f[1]):
            theirs.add((int(f[1]), "/".join(f[5:-2])))
    if mine != theirs:
        fail("ls %s: extkit-dump %s, debugfs %s" % (
            path, sorted(mine - theirs)[:4], sorted(theirs - mine)[:4]))
    else:
        ok("ls %s: %d names as debugfs" % (path, len(mine)))


def check_stat(img, path):
    rc, out, err = run([DUMP, "--json", img, "stat", path])
    if rc != 0:
        fail("extkit-dump stat %s: exit %d: %s" % (path, rc, err.strip()))
        return
    mine = json.loads(out)
    text = debugfs("stat %s" % path, img)
    want = {}
    for key, pat in (("inode", r"Inode: (\d+)"), ("size", r"Size: (\d+)"),
                     ("links_count", r"Links: (\d+)"),
                     ("i_blocks", r"Blockcount: (\d+)"),
                     ("flags", r"Flags: (0x[0-9a-f]+)"),
                     ("projid", r"Project: +(\d+)")):
        m = re.search(pat, text)
        if m:
            want[key] = int(m.group(1), 0)
    diff = {k: (mine.get(k), v) for k, v in want.items() if mine.get(k) != v}
    if not want or diff:
        fail("stat %s: (extkit-dump, debugfs) differ: %s" % (path, diff))
    else:
        ok("stat %s: %s as debugfs" % (path, sorted(want)))


SUPER_KEYS = ("Cluster size", "Clusters per group", "MMP block number",
              "MMP update interval", "User quota inode", "Group quota inode",
              "Project quota inode", "Checksum seed", "Character encoding",
              "Orphan file inode", "Block count", "Free blocks")


def super_fields(text):
    out = {}
    for line in text.splitlines():
        key, sep, val = line.partition(":")
        if sep and key in SUPER_KEYS:
            out[key] = val.strip()
    return out


def check_super(img):
    """The feature fields of extkit-dump super as dumpe2fs -h has them."""
    rc, out, err = run([DUMP, img, "super"])
    if rc != 0:
        fail("extkit-dump super: exit %d: %s" % (rc, err.strip()))
        return
    _, theirs, _ = run([DUMPE2FS, "-h", img])
    mine, want = super_fields(out), super_fields(theirs)
    if mine != want:
        fail("super: extkit-dump %s, dumpe2fs %s" % (
            {k: v for k, v in mine.items() if want.get(k) != v},
            {k: v for k, v in want.items() if mine.get(k) != v}))
    else:
        ok("super: %s as dumpe2fs" % ", ".join(sorted(want)))


def main():
    work = os.path.join(TMP, NAME + ".fy")
    check_e2fsck(IMG, "mke2fs")
    check_super(IMG)
    check_fsck(IMG, "-fn")
    shutil.copyfile(IMG, work)
    if check_fsck(work, "-fy"):
        check_changes(IMG, work)
    check_e2fsck(work, "extkit-fsck -fy")
    debugfs_batch(IMG, [("ls -p %s" % (p.rstrip("/") or "/"))
                        if p.endswith("/") else "stat %s" % p
                        for p in PATHS])
    for p in PATHS:
        if p.endswith("/"):
            check_ls(IMG, p.rstrip("/") or "/")
        else:
            check_stat(IMG, p)
    os.unlink(work)
    print("%s: %d passed, %d failed" % (NAME, counts["ok"], counts["fail"]))
    sys.exit(1 if counts["fail"] else 0)


main()
