# SPDX-License-Identifier: GPL-2.0-or-later
# extkit-dump ls -l and ls -p against debugfs' (issue 34, Deliver 3), on
# ext2 and ext4 images made by mke2fs -d from a tree with every file
# type, owners, an old mtime, fast and slow symlinks and a
# directory of 300 entries:
#  - ls -p equals debugfs ls -p line for line;
#  - ls -l has debugfs' inode, mode, owner, size and mtime (to the minute,
#    as debugfs shows it) on every line, the columns line up (each field
#    ends at the same column on every line), and a symlink's target
#    follows its name (" -> target", as the tree has it);
#  - the JSON of ls -l holds the same mtime and link_target.
. "${top_srcdir:-.}/tests/lib.sh"
need_dump
need_tools mke2fs debugfs python3

src=$tmpdir/src
mkdir -p "$src/many" || exit 99
(
	cd "$src" || exit 99
	echo hi >f && chown 1234:567 f && touch -d '1999-03-04 05:06:07' f &&
	mknod c c 4 5 && mkfifo p &&
	ln -s f fast && ln -s "$(printf 't%.0s' $(seq 1 200))" slow &&
	head -c 123456 /dev/zero >big
	i=0
	while [ $i -lt 300 ]; do
		: >"many/n$i"
		i=$((i + 1))
	done
) || skip "cannot build the tree"
for kind in ext2 ext4; do
	"$MKE2FS" -q -F -t $kind -d "$src" "$tmpdir/$kind.img" 8M \
		>/dev/null 2>&1 || fail "mke2fs $kind"
done

cat >"$tmpdir/cmp.py" <<'PY'
import json, os, re, subprocess, sys

DUMP, DEBUGFS, SRC = sys.argv[1:4]
IMAGES = sys.argv[4:]
fails = 0
MON = "Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split()


def say(ok, msg):
    global fails
    print(("ok: " if ok else "FAIL: ") + msg)
    fails += not ok


def run(*a):
    return subprocess.run(a, capture_output=True, text=True).stdout


for img in IMAGES:
    name = os.path.basename(img)
    for d in ("/", "/many"):
        want = [l for l in run(DEBUGFS, "-R", "ls -p " + d, img).splitlines()
                if l]
        got = run(DUMP, img, "ls", "-p", d).splitlines()
        say(want == got, "%s: ls -p %s equals debugfs' (%d lines)"
            % (name, d, len(got)))
        # debugfs ls -l: inode mode (type) uid gid size d-Mon-yyyy hh:mm name
        want = {}
        for l in run(DEBUGFS, "-R", "ls -l " + d, img).splitlines():
            m = re.match(r"\s*(\d+)\s+(\d+) \(\d+\)\s+(\d+)\s+(\d+)\s+(\d+)"
                         r"\s+(\d+)-(\w+)-(\d+) (\d\d:\d\d) (.*)$", l)
            if m:
                g = m.groups()
                want[g[9]] = (int(g[0]), int(g[1], 8), int(g[2]), int(g[3]),
                              int(g[4]), "%s-%02d-%02d %s" % (
                                  g[7], MON.index(g[6]) + 1, int(g[5]),
                                  g[8]))
        lines = run(DUMP, img, "ls", "-l", d).splitlines()
        got, targets, ends = {}, {}, set()
        for l in lines:
            m = re.match(r"\s*(\d+) (\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+) "
                         r"(\S) (\S+ \d\d:\d\d):\d\d (.*)$", l)
            if not m:
                say(False, "%s: ls -l line not understood: %r" % (name, l))
                continue
            g = m.groups()
            nm, _, tgt = g[8].partition(" -> ")
            got[nm] = (int(g[0]), int(g[1], 8), int(g[3]), int(g[4]),
                       int(g[5]), g[7])
            if tgt:
                targets[nm] = tgt
            ends.add(tuple(m.end(i) for i in range(1, 8)))
        say(want == got and len(got) > 2, "%s: ls -l %s has debugfs' "
            "inode, mode, owner, size and mtime (%d entries)%s"
            % (name, d, len(got), "" if want == got else
               ": %r" % sorted(set(want.items()) ^ set(got.items()))[:4]))
        say(len(ends) == 1, "%s: ls -l %s columns line up" % (name, d))
        if d == "/":
            say(targets == {"fast": "f", "slow": os.readlink(SRC + "/slow")},
                "%s: symlink targets after ' -> '" % name)
            js = json.loads(run(DUMP, "--json", img, "ls", "-l", d))
            e = {x["name"]: x for x in js["entries"]}
            say(e["slow"]["link_target"] == os.readlink(SRC + "/slow") and
                e["f"]["mtime_iso"].startswith("1999-03-04T05:06:07") and
                "link_target" not in e["f"] and e["f"]["mtime"] == 920523967,
                "%s: JSON ls -l has mtime and link_target"
                % name)
sys.exit(1 if fails else 0)
PY
if python3 "$tmpdir/cmp.py" "$DUMP" "$DEBUGFS" "$src" "$tmpdir/ext2.img" \
	"$tmpdir/ext4.img" >"$tmpdir/log" 2>&1; then
	ok "ls -l and ls -p agree with debugfs"
else
	fail "ls -l / ls -p differ from debugfs"
fi
cat "$tmpdir/log"
finish
