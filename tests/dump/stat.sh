# SPDX-License-Identifier: GPL-2.0-or-later
# extkit-dump stat against debugfs' stat (issue 34, Deliver 3), on an
# ext4 with metadata_csum and 256-byte inodes: for every file, the
# extended attribute values (short text, binary, one in the EA block, a
# long one shown by size only), device numbers (old and new encodings),
# the four times with nanoseconds and epoch bits, the project id and the
# inode checksum are what debugfs prints; the JSON holds the same values
# (value_hex, device_major/minor, *_nsec, projid, checksum) and a
# damaged checksum is reported as not matching.
. "${top_srcdir:-.}/tests/lib.sh"
need_dump
need_tools mke2fs debugfs python3 setfattr

src=$tmpdir/src
mkdir -p "$src/d" || exit 99
(
	cd "$src" || exit 99
	echo hi >f && setfattr -n user.k -v val f &&
	setfattr -n user.bin -v 0x00ff10203040 f &&
	printf 'l%.0s' $(seq 1 100) >long && setfattr -n user.long \
		-v "$(printf 'w%.0s' $(seq 1 120))" long &&
	mknod c c 4 5 && mknod b b 259 70000 && ln -s f l && echo x >d/g
) || skip "cannot build the tree (setfattr, mknod)"
img=$tmpdir/st.img
"$MKE2FS" -q -F -t ext4 -I 256 -O metadata_csum,project,quota -d "$src" \
	"$img" 8M >/dev/null 2>&1 || fail "mke2fs"
"$DEBUGFS" -w -f - "$img" >/dev/null 2>&1 <<'CMDS'
sif /f mtime_extra 0x773593fd
sif /f atime_extra 0x00000005
sif /f crtime_extra 0x00000cc8
sif /f projid 7
sif /d/g ctime_extra 0x9
CMDS
cp "$img" "$tmpdir/bad.img"
"$DEBUGFS" -w -R "sif /d/g checksum 0x1234" "$tmpdir/bad.img" >/dev/null 2>&1

cat >"$tmpdir/cmp.py" <<'PY'
import json, re, subprocess, sys

DUMP, DEBUGFS, IMG, BAD = sys.argv[1:5]
fails = 0


def say(ok, msg):
    global fails
    print(("ok: " if ok else "FAIL: ") + msg)
    fails += not ok


def run(*a):
    return subprocess.run(a, capture_output=True, text=True,
                          errors="replace").stdout


def dbg(img, path):
    t = run(DEBUGFS, "-R", "stat " + path, img)
    want = {"xattrs": [], "times": {}}
    for line in t.splitlines():
        m = re.match(r"\s*(a|c|m|cr)time: 0x([0-9a-f]+):([0-9a-f]+)", line)
        if m:
            lo, extra = int(m.group(2), 16), int(m.group(3), 16)
            sec = (lo - (1 << 32) if lo >= 1 << 31 else lo) + \
                ((extra & 3) << 32)
            want["times"][m.group(1) + "time"] = (sec, extra >> 2)
        m = re.search(r"Project: +(\d+)", line)
        if m:
            want["projid"] = int(m.group(1))
        m = re.match(r"Inode checksum: 0x([0-9a-f]+)", line)
        if m:
            want["checksum"] = int(m.group(1), 16)
        m = re.match(r"(?:\(New-style\) )?Device major/minor number: (\d+):(\d+)",
                     line)
        if m:
            want["dev"] = (int(m.group(1)), int(m.group(2)))
        if re.match(r"  \S+ \(\d+\)", line):
            want["xattrs"].append(line)
    return want


def ours(img, path):
    t = run(DUMP, img, "stat", path)
    got = {"xattrs": [], "times": {}}
    for line in t.splitlines():
        m = re.match(r"(a|c|m|cr)time: +(-?\d+)(?:\.(\d{9}))?", line)
        if m:
            got["times"][m.group(1) + "time"] = (int(m.group(2)),
                                                 int(m.group(3) or 0))
        m = re.match(r"Project: +(\d+)", line)
        if m:
            got["projid"] = int(m.group(1))
        m = re.match(r"Checksum: +0x([0-9a-f]+) \((.*)\)", line)
        if m:
            got["checksum"] = int(m.group(1), 16)
            got["checksum_ok"] = m.group(2) == "valid"
        m = re.match(r"Device: +(\d+):(\d+)", line)
        if m:
            got["dev"] = (int(m.group(1)), int(m.group(2)))
        m = re.match(r"(  \S+ \(\d+\)(?: = .*)?) in (inode|block), hash", line)
        if m:
            got["xattrs"].append(m.group(1))
    return got, json.loads(run(DUMP, "--json", img, "stat", path))


paths = ["/f", "/long", "/c", "/b", "/l", "/d", "/d/g", "/", "<3>"]
for p in paths:
    want = dbg(IMG, p)
    got, js = ours(IMG, p)
    got.pop("checksum_ok", None)
    say(want == got, "stat %s: xattr values, device, times with ns, "
        "projid and checksum as debugfs'%s" % (
            p, "" if want == got else ": want %r got %r" % (want, got)))
    jt = {k: (js[k], js.get(k + "_nsec", 0)) for k in want["times"]}
    jdev = (js.get("device_major"), js.get("device_minor"))
    jok = (jt == want["times"] and js["projid"] == want.get("projid") and
           js.get("checksum") == want.get("checksum") and
           jdev == want.get("dev", (None, None)))
    say(jok, "stat --json %s holds the same values" % p)

# the shapes that must be there
got, js = ours(IMG, "/f")
say(got["times"]["mtime"][1] == 0x773593fd >> 2 and
    got["times"]["crtime"][1] == 0xcc8 >> 2 and got["projid"] == 7,
    "/f has nanoseconds and project 7")
say('  user.k (3) = "val"' in got["xattrs"] and
    "  user.bin (6) = 00 ff 10 20 30 40 " in got["xattrs"],
    "/f: a text and a binary value")
say({x["name"]: x["value_hex"] for x in js["xattrs"]}.get("user.bin") ==
    "00ff10203040", "/f: value_hex in JSON")
got, js = ours(IMG, "/b")
say(got.get("dev") == (259, 70000), "/b: a device in the new encoding")
got, js = ours(IMG, "/long")
say(any(x.startswith("  user.long (120)") and "=" not in x
        for x in got["xattrs"]) and len(js["xattrs"][0]["value_hex"]) == 240,
    "/long: a 120-byte value by its size (as debugfs), whole in JSON")
got, js = ours(BAD, "/d/g")
say(got.get("checksum") == 0x1234 and got.get("checksum_ok") is False and
    js["checksum_valid"] is False, "a damaged checksum does not match")
got, js = ours(IMG, "/d/g")
say(got.get("checksum_ok") is True and js["checksum_valid"] is True,
    "a good checksum matches")
sys.exit(1 if fails else 0)
PY
if python3 "$tmpdir/cmp.py" "$DUMP" "$DEBUGFS" "$img" "$tmpdir/bad.img" \
	>"$tmpdir/log" 2>&1; then
	ok "stat equals debugfs' stat"
else
	fail "stat differs from debugfs"
fi
cat "$tmpdir/log"
finish
