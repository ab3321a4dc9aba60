# SPDX-License-Identifier: GPL-2.0-or-later
# The JSON of every extkit-dump command validates against the installed
# schema (man/extkit-dump.schema.json) with a real validator
# (python3-jsonschema, draft 2020-12), on several images:
#  - ext2 made by extkit-mkfs -d (files, a directory, a symlink);
#  - ext4 made by mke2fs -d with regular files, directories, fast and
#    slow symlinks, devices, a fifo, a socket, xattrs, inline data and a
#    directory indexed by e2fsck -D (htree);
#  - ext3 (a journal) and ext4 with 64bit, metadata_csum, fast_commit
#    and mmp;
#  - an ext4 the kernel wrote, when a loop mount works here.
# Every command is in the schema, with one shape per command (blocks:
# files for one path too), one form of a range ({first, last}), signed
# max_mnt_count (-1), a null ISO time for a time that is 0, and names that
# are not UTF-8 kept exact in name_hex/paths_hex ("\xc3\xa0" and "\xe0"
# display alike and differ there).
# The schema must matter: an instance with a wrong key, a missing key or a
# wrong type fails it. On error nothing is printed on stdout.

. "${top_srcdir:-.}/tests/lib.sh"
need_dump
need_tools mke2fs e2fsck python3
python3 -c 'import jsonschema' 2>/dev/null ||
	skip "python3-jsonschema not installed"
MKFS=$top_builddir/extkit-mkfs
SCHEMA=$top_srcdir/man/extkit-dump.schema.json
# Leak checks at exit cost more than the runs here; other tests keep them.
ASAN_OPTIONS=$ASAN_OPTIONS:detect_leaks=0

src=$tmpdir/src
mkdir -p "$src/dir/sub" "$src/big"
echo hello >"$src/small"
head -c 70000 /dev/zero | tr '\0' x >"$src/dir/data"
ln -s small "$src/fast"
ln -s "$(printf '%0100d' 0)" "$src/slow"
mknod "$src/chr" c 1 3 && mknod "$src/blk" b 7 0 || skip "mknod failed"
mkfifo "$src/fifo"
: >"$src/$(printf '\303\240')" && : >"$src/$(printf '\340')" ||
	skip "cannot create non-UTF-8 names here"
python3 -c 'import socket, sys
socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$src/sock"
setfattr -n user.note -v something "$src/small" 2>/dev/null
i=0
while [ $i -lt 400 ]; do
	: >"$src/big/entry_with_a_longer_name_$i"
	i=$((i + 1))
done

"$MKFS" -q -t ext2 -d "$src" "$tmpdir/ext2.img" 8M >"$tmpdir/log" 2>&1 ||
	{ cat "$tmpdir/log"; fail "extkit-mkfs ext2"; }
"$MKE2FS" -q -F -t ext4 -O inline_data -d "$src" "$tmpdir/ext4.img" 16M \
	>"$tmpdir/log" 2>&1 || { cat "$tmpdir/log"; fail "mke2fs ext4"; }
"$E2FSCK" -fyD "$tmpdir/ext4.img" >"$tmpdir/log" 2>&1
"$MKE2FS" -q -F -t ext3 -d "$src" "$tmpdir/ext3.img" 16M >/dev/null 2>&1 ||
	fail "mke2fs ext3"
"$MKE2FS" -q -F -t ext4 -O 64bit,metadata_csum,fast_commit,mmp,quota -d "$src" \
	"$tmpdir/csum.img" 32M >/dev/null 2>&1 || fail "mke2fs ext4 64bit"
images="ext4 ext2 ext3 csum"

# A kernel-made image, when loop mounts work here.
use_mount_point
"$MKE2FS" -q -F -t ext4 "$tmpdir/kernel.img" 16M >/dev/null 2>&1
if mount -o loop "$tmpdir/kernel.img" "$mnt" 2>/dev/null; then
	cp -a "$src/." "$mnt/" 2>/dev/null
	i=0
	while [ $i -lt 60 ]; do
		rm -f "$mnt/big/entry_with_a_longer_name_$((i * 5))"
		i=$((i + 1))
	done
	umount "$mnt" && images="$images kernel"
else
	echo "note: no loop mount here: the kernel-made image is left out"
fi

cat >"$tmpdir/check.py" <<'PY'
import json, os, re, subprocess, sys
import jsonschema

DUMP, SCHEMA, TMP = sys.argv[1:4]
IMAGES = sys.argv[4:]
schema = json.load(open(SCHEMA))
jsonschema.Draft202012Validator.check_schema(schema)
failures = 0


def report(ok, msg):
    global failures
    print("%s: %s" % ("ok" if ok else "FAIL", msg))
    failures += 0 if ok else 1


def validator(name):
    return jsonschema.Draft202012Validator(
        {"$ref": "#/$defs/" + name, "$defs": schema["$defs"]})


def errors(name, doc):
    return ["%s: %s" % ("/".join(str(p) for p in e.absolute_path),
                        e.message[:160])
            for e in validator(name).iter_errors(doc)]


def dump(img, args):
    p = subprocess.run([DUMP, "--json", img] + args, capture_output=True,
                       timeout=60)
    return p.returncode, p.stdout, p.stderr


# (command, definition): every command and file type on the mke2fs ext4
# image (the first given), the main commands on the others.
COMMANDS = [
    (["super"], "super"), (["groups"], "groups"), (["ls"], "ls"),
    (["ls", "-l", "/"], "ls"), (["ls", "-l", "/big"], "ls"),
    (["ls", "-p", "/"], "ls"),
    (["ls", "<2>"], "ls"),
    (["stat", "/small"], "stat"), (["stat", "/dir"], "stat"),
    (["stat", "/dir/data"], "stat"), (["stat", "/fast"], "stat"),
    (["stat", "/slow"], "stat"), (["stat", "/chr"], "stat"),
    (["stat", "/blk"], "stat"), (["stat", "/fifo"], "stat"),
    (["stat", "/sock"], "stat"), (["stat", "/big"], "stat"),
    (["stat", "<7>"], "stat"), (["stat", "<2>"], "stat"),
    (["blocks", "/dir/data"], "blocks"),
    (["blocks", "-m", "/big", "/dir/data", "/small"], "blocks"),
    (["dirblock", "/big", "0"], "dirblock"),
    (["dirblock", "/big", "1"], "dirblock"),
    (["frag", "/big"], "frag_dir"), (["frag", "<2>"], "frag_dir"),
    (["frag"], "frag_all"),
    (["quota"], "quota"), (["freefrag"], "freefrag"), (["lsdel"], "lsdel"),
    (["htree", "/big"], "htree"), (["logdump"], "logdump"),
    (["logdump", "-O", "-n", "1"], "logdump"),
    (["bmap", "/dir/data", "0"], "bmap"),
    (["ncheck", "2", "12", "13"], "ncheck"), (["icheck", "0", "1"], "icheck"),
    (["imap", "/small"], "imap"), (["xattr", "/small"], "xattr_list"),
    (["xattr", "/small", "user.note"], "xattr_list"),
    (["extract", "/dir", TMP + "/out_%d"], "extract"),
]
MAIN = [c for c in COMMANDS if c[0] in (
    ["super"], ["groups"], ["ls", "-l", "/"], ["stat", "/dir/data"],
    ["stat", "/big"], ["blocks", "-m", "/big", "/dir/data", "/small"],
    ["dirblock", "/big", "1"], ["frag"], ["quota"], ["ncheck", "2", "12"],
    ["freefrag"],
    ["extract", "/dir", TMP + "/out_%d"])]
TOP = jsonschema.Draft202012Validator(schema)

for img in IMAGES:
    name = os.path.basename(img)
    done = 0
    commands = COMMANDS if img == IMAGES[0] else MAIN
    for args, kind in commands:
        args = [a % len(IMAGES) + "_" + name if "%d" in a else a
                for a in args]
        rc, out, err = dump(img, args)
        what = "%s: %s" % (name, " ".join(args))
        if rc != 0:
            report(False, "%s: exit %d: %s" % (what, rc, err.decode()[:200]))
            continue
        doc = json.loads(out)
        bad = errors(kind, doc)
        if bad:
            report(False, "%s violates #/$defs/%s: %s" % (what, kind,
                                                         bad[:3]))
            continue
        if not TOP.is_valid(doc):
            report(False, "%s: fails the schema's top level" % what)
            continue
        done += 1
    report(done == len(commands), "%s: %d of %d commands valid"
           % (name, done, len(commands)))

# The first image's /big is indexed (e2fsck -D): its htree shapes count.
rc, out, err = dump(IMAGES[0], ["stat", "/big"])
report(rc == 0 and "index" in json.loads(out)["flag_names"],
       "%s: /big is an htree directory" % os.path.basename(IMAGES[0]))

# Names that are not UTF-8: the bytes C3 A0 and E0 display alike in
# "name" and stay distinct and exact in name_hex, in ls, dirblock and
# ncheck.
rc, out, err = dump(IMAGES[0], ["ls", "/"])
ents = json.loads(out)["entries"]
raw = sorted(bytes.fromhex(e["name_hex"]) for e in ents)
report(b"\xc3\xa0" in raw and b"\xe0" in raw and
       len([e for e in ents if e["name"] == "\u00e0"]) == 2,
       "ls: C3 A0 and E0 both display as U+00E0, name_hex tells them apart")
report(all(bytes.fromhex(e["name_hex"]).decode("utf-8", "replace") ==
           e["name"] for e in ents if e["name"].isascii()),
       "ls: name_hex is the name's bytes")
ino = [e["inode"] for e in ents if e["name_hex"] == "e0"]
rc, out, err = dump(IMAGES[0], ["ncheck", str(ino[0] if ino else 0)])
report(rc == 0 and json.loads(out)["inodes"][0]["paths_hex"] == ["2fe0"],
       "ncheck: paths_hex holds /\\xe0 exactly")

# -1 where the text says -1, null for a time that is 0, one form of range.
rc, out, err = dump(IMAGES[0], ["super"])
sup = json.loads(out)
txt = subprocess.run([DUMP, IMAGES[0], "super"], capture_output=True).stdout
report(sup["max_mnt_count"] == -1 and
       re.search(rb"Maximum mount count: +-1\n", txt) is not None,
       "super: max_mnt_count is -1 in JSON as in the text (%r)"
       % sup["max_mnt_count"])
report(sup["lastcheck"] != 0 and sup["lastcheck_iso"] is not None and
       (sup["mtime"] != 0 or sup["mtime_iso"] is None),
       "super: a time of 0 has a null ISO time, others a string")
rc, out, err = dump(IMAGES[0], ["stat", "/small"])
st = json.loads(out)
report(st["dtime"] == 0 and st["dtime_iso"] is None and
       st["mtime_iso"] is not None,
       "stat: dtime 0 has dtime_iso null (was 1970-01-01)")
rc, out, err = dump(IMAGES[0], ["groups"])
g = json.loads(out)["groups"][0]
report(all(isinstance(r, dict) and set(r) == {"first", "last"}
           for r in g["free_block_ranges"] + g["free_inode_ranges"] +
           [g["inode_table_blocks"]]),
       "groups: every range is {first, last}")
rc, out, err = dump(IMAGES[0], ["blocks", "/small"])
report(list(json.loads(out)) == ["files"],
       "blocks: one path gives files as several do")
# Every command of extkit-dump's help is in the schema.
helptext = subprocess.run([DUMP, "--help"], capture_output=True,
                          text=True).stdout
for cmd in ("super", "groups", "ls", "stat", "blocks", "dirblock", "frag",
            "quota", "extract", "bmap", "ncheck", "icheck", "imap",
            "xattr", "freefrag", "lsdel", "htree", "logdump"):
    defs = {"frag": "frag_dir", "xattr": "xattr_list"}.get(cmd, cmd)
    report(cmd in helptext and defs in schema["$defs"] and
           {"$ref": "#/$defs/" + defs} in schema["anyOf"],
           "%s is in the schema" % cmd)

# The schema is strict enough to matter: these must all fail it.
img = IMAGES[0]
rc, out, err = dump(img, ["stat", "/small"])
good = json.loads(out)
wrong = [
    ("an unknown key", "stat", {"bogus": 1}),
    ("an extra key", "stat", dict(good, bogus=1)),
    ("a missing key", "stat", {k: v for k, v in good.items() if k != "mode"}),
    ("a number as a string", "stat", dict(good, size="3")),
    ("a type letter", "stat", dict(good, type="f")),
    ("a negative count", "stat", dict(good, links_count=-1)),
    ("a bad ISO time", "stat", dict(good, mtime_iso="yesterday")),
    ("the old key blocks", "stat", dict(good, blocks=8)),
]
rc, out, err = dump(img, ["super"])
sup = json.loads(out)
wrong += [
    ("a split hi half", "super", dict(sup, wtime_hi=0)),
    ("features as a string", "super", dict(sup, features="ext_attr")),
    ("a bad UUID", "super", dict(sup, uuid="not-a-uuid")),
    ("max_mnt_count 65535", "super", dict(sup, max_mnt_count=65535)),
    ("a [first, last] pair", "groups",
     {"groups": [dict(g, free_block_ranges=[[1, 2]])]}),
    ("a name without name_hex", "ls",
     {"path": "/", "inode": 2, "entries": [
         {k: v for k, v in ents[0].items() if k != "name_hex"}]}),
    ("a bare blocks object", "blocks", {"path": "/small",
                                         "physical_blocks": [1]}),
]
for what, kind, doc in wrong:
    report(bool(errors(kind, doc)), "#/$defs/%s rejects %s" % (kind, what))
report(not TOP.is_valid({"bogus": 1}), "the schema rejects {\"bogus\": 1}")

# On error: nothing on stdout, one message on stderr, exit 1.
for args in (["stat", "/no/such/file"], ["ls", "/small"],
             ["dirblock", "/big", "999999"], ["frag", "/nothing"]):
    rc, out, err = dump(img, args)
    report(rc == 1 and out == b"" and err.startswith(b"extkit-dump: "),
           "%s fails with stdout empty (exit %d, %d bytes out, stderr %r)"
           % (" ".join(args), rc, len(out), err.decode()[:80]))
sys.exit(1 if failures else 0)
PY

set --
for i in $images; do
	set -- "$@" "$tmpdir/$i.img"
done
if python3 "$tmpdir/check.py" "$DUMP" "$SCHEMA" "$tmpdir" "$@" \
	>"$tmpdir/check.log" 2>&1; then
	ok "every command's JSON validates on: $images"
else
	fail "schema check"
fi
cat "$tmpdir/check.log"
finish
