# SPDX-License-Identifier: GPL-2.0-or-later
# extkit-dump extract on hostile images (issue 34): entries forged to be
# named "..", ".", "a/b", "a/../../x", with a NUL byte, with byte 7 set
# without the filetype feature (read as the kernel reads it: a one-byte
# name_len and a file-type byte), twice in one directory, a directory named like a symlink met before it
# (with a file "sl/f" after), a hard-linked directory loop (an entry
# naming the root, one naming its own directory), a file of i_size 2^63,
# an entry naming a free inode, a file with the encryption flag.
# Nothing may appear outside DEST (a listing of everything around it,
# before and after), each unsafe entry is reported by path and counted,
# everything else comes out, the exit status is 2 (partial); --tar holds
# no unsafe name. Then byte-mutated images (a bounded, seeded loop) go
# through extract and --tar with the same no-escape check, no sanitizer
# report and no hang.

. "${top_srcdir:-.}/tests/lib.sh"
need_dump
need_tools mke2fs debugfs python3
FORGE="python3 $top_srcdir/tests/dump/forge.py"

src=$tmpdir/src
mkdir -p "$src/sm" "$src/loop" "$src/long" "$tmpdir/box" || exit 99
(
	cd "$src" || exit 99
	echo fine >ok && echo dotdot >P2 && echo dot >Q && echo ab >a_b &&
	echo x >a_.._.._x && echo nul >nul_x && echo first >dupe &&
	echo second >dupf && ln -s ../../escape sl && echo under >sm/f &&
	echo slash >sl_f && echo back >loop/back && echo self >loop/self &&
	echo huge >huge && echo n >long/n && echo keep >loop/keep &&
	echo free >free && echo secret >enc
) || exit 99
img=$tmpdir/h.img
"$MKE2FS" -q -F -t ext2 -b 1024 -I 128 -O ^dir_index,^filetype \
	-d "$src" "$img" 2048 >/dev/null 2>&1 || skip "mke2fs -d refused"
loop=$(debugfs -R 'stat /loop' "$img" 2>/dev/null |
	sed -n 's/^Inode: \([0-9]*\).*/\1/p')
[ -n "$loop" ] || loop=$(ls -id "$src/loop" >/dev/null; echo 0)
$FORGE "$img" rename:/:P2:.. rename:/:Q:. rename:/:a_b:a/b \
	'rename:/:a_.._.._x:a/../../x' 'rename:/:nul_x:nul\x00x' \
	rename:/:dupf:dupe rename:/:sm:sl rename:/:sl_f:sl/f \
	setino:/loop:back:2 overlong:/long:n setino:/:free:200 \
	size:/huge:0x8000000000000000 || exit 99
# a file with the encryption flag (and the feature): no key, skipped
"$DEBUGFS" -w -R "feature encrypt" "$img" >/dev/null 2>&1 &&
	"$DEBUGFS" -w -R "sif /enc flags 0x800" "$img" >/dev/null 2>&1 ||
	exit 99
# the loop's own directory: looked up by the forger itself
python3 - "$img" "$top_srcdir/tests/dump/forge.py" <<'PY' || exit 99
import importlib.util, struct, sys
spec = importlib.util.spec_from_file_location('forge', sys.argv[2])
f = importlib.util.module_from_spec(spec)
spec.loader.exec_module(f)
img = f.Img(sys.argv[1])
at, _ = img.find('/loop', 'self')
img.write(at, struct.pack('<I', img.lookup('/loop')))
PY

# listing: everything under $tmpdir but DEST's own subtree and the
# test's scratch files ($w)
w=$tmpdir/work
mkdir "$w" || exit 99
listing() {
	find "$tmpdir" \( -path "$1" -o -path "$w" \) -prune -o -print | sort
}

dest=$tmpdir/box/dest
listing "$dest" >"$w/before"
timeout -k 5 30 "$DUMP" "$img" extract "$dest" >"$w/out" 2>"$w/err"
rc=$?
listing "$dest" >"$w/after"
if sanitizer_report "$w/err"; then
	fail "sanitizer report"; head -20 "$w/err"
fi
if diff "$w/before" "$w/after" >/dev/null; then
	ok "nothing written outside DEST"
else
	fail "written outside DEST:"; diff "$w/before" "$w/after"
fi
[ "$rc" = 2 ] && ok "exit 2 (partial)" || fail "exit $rc, expected 2"
for p in '/..' '/.' '/a/b' '/a/../../x' '/nul\000x' '/dupe' '/sl' '/sl/f'
do
	if grep -F -q "extract: $p: unsafe name" "$w/err"; then
		ok "reported: $(printf "%s" "$p" | sed "s/\\\\/\\\\\\\\/g")"
	else
		fail "not reported: $(printf "%s" "$p")"
	fi
done
# name_len is one byte (names are at most 255 bytes): a record whose
# byte 7 would make it 257 on a filesystem without the filetype feature
# is read as the kernel and e2fsprogs read it, the name "n" with a
# file-type byte set (e2fsck clears it): extracted under that name
[ -f "$dest/long/n" ] && ok "an entry with byte 7 set: extracted as the kernel reads it (long/n)" ||
	fail "long/n: not extracted as the kernel reads it: $(grep long "$w/err")"
for p in /loop/back /loop/self; do
	grep -F -q "extract: $p: directory inode" "$w/err" &&
		ok "reported: $p (directory loop)" ||
		fail "not reported: $p (directory loop)"
done
grep -q '^skipped: 10 unsafe entries, 2 damaged or unreadable, 1 encrypted' \
	"$w/out" && ok "10 unsafe, 2 damaged, 1 encrypted entries counted" ||
	fail "count: $(grep skipped "$w/out")"
grep -q 'extract: /free: inode 200 is not in use' "$w/err" &&
	ok "reported: an entry naming a free inode" ||
	fail "not reported: /free (inode 200)"
[ ! -e "$dest/enc" ] && [ ! -e "$dest/free" ] &&
	ok "the encrypted file and the free inode are not extracted" ||
	fail "enc or free extracted"
# what is safe comes out
if [ "$(cat "$dest/ok")" = fine ] && [ "$(cat "$dest/dupe")" = first ] &&
   [ "$(readlink "$dest/sl")" = ../../escape ] &&
   [ "$(cat "$dest/loop/keep")" = keep ] && [ -d "$dest/long" ]; then
	ok "the safe entries came out (the first 'dupe', the symlink 'sl')"
else
	fail "safe entries missing"; ls -la "$dest" "$dest/loop"
fi
used=$(du -k "$dest/huge" 2>/dev/null | cut -f1)
if grep -q 'extract: /huge: data:' "$w/err" && [ "${used:-0}" -le 8 ]
then
	ok "i_size 2^63: reported, not filled (${used:-0} KiB)"
else
	fail "i_size 2^63: $(grep huge "$w/err"), ${used:-?} KiB"
fi

# --json: the same counts, valid against the schema
timeout -k 5 30 "$DUMP" --json "$img" extract "$tmpdir/box/j" \
	>"$w/j.json" 2>"$w/err"
rc=$?
if [ "$rc" = 2 ] && python3 - "$w/j.json" \
	"$top_srcdir/man/extkit-dump.schema.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ok = d["partial"] and d["skipped"]["unsafe"] == 10 and \
    d["skipped"]["damaged"] == 2 and d["skipped"]["encrypted"] == 1
try:
    import jsonschema
    s = json.load(open(sys.argv[2]))
    jsonschema.validate(d, {"$ref": "#/$defs/extract", "$defs": s["$defs"]})
    jsonschema.validate(d, s)
except ImportError:
    pass
sys.exit(0 if ok else 1)
PY
then
	ok "--json: partial, the counts, valid against the schema"
else
	fail "--json summary (exit $rc)"; cat "$w/j.json"
fi

# --tar: no unsafe name in the archive
timeout -k 5 30 "$DUMP" "$img" extract --tar "$w/h.tar" \
	>"$w/out" 2>"$w/err"
rc=$?
if [ "$rc" = 2 ] && ! sanitizer_report "$w/err" &&
   python3 - "$w/h.tar" <<'PY'
import sys, tarfile
bad = []
for m in tarfile.open(sys.argv[1]):
    parts = m.name.rstrip('/').split('/')
    if m.name.startswith('/') or '\0' in m.name or \
            any(p in ('', '..') or len(p.encode()) > 255 for p in parts) or \
            ('.' in parts and m.name not in ('.', './')):
        bad.append(m.name)
    if m.islnk() and ('..' in m.linkname.split('/') or
                      m.linkname.startswith('/')):
        bad.append(m.linkname)
print(bad)
sys.exit(1 if bad else 0)
PY
then
	ok "--tar: exit 2, every name in the archive is safe"
else
	fail "--tar: exit $rc"; head -5 "$w/err"
fi

# Mutated images: a seeded, bounded loop.
"$MKE2FS" -q -F -t ext4 -b 1024 -O inline_data,^metadata_csum \
	-d "$src" "$tmpdir/base.img" 4096 >/dev/null 2>&1 ||
	"$MKE2FS" -q -F -t ext4 -b 1024 -d "$src" "$tmpdir/base.img" 4096 \
	>/dev/null 2>&1 || exit 99
N=${EXTRACT_FUZZ_N:-40}
escapes=0 crashes=0 hangs=0 statuses=
i=0
while [ $i -lt "$N" ]; do
	python3 - "$tmpdir/base.img" "$w/m.img" $i <<'PY'
import random, sys
b = bytearray(open(sys.argv[1], 'rb').read())
r = random.Random(int(sys.argv[3]))
span = min(len(b), 160 * 1024)
for _ in range(r.randint(20, 300)):
    at = r.randrange(1024, span)
    b[at] = r.randrange(256) if r.random() < 0.7 else b[at] ^ 0x80
open(sys.argv[2], 'wb').write(b)
PY
	d=$tmpdir/box/f$i
	listing "$d" >"$w/before"
	timeout -k 5 20 "$DUMP" "$w/m.img" extract "$d" \
		>/dev/null 2>"$w/err"
	rc=$?
	timeout -k 5 20 "$DUMP" "$w/m.img" extract --tar \
		"$w/m.tar" >/dev/null 2>>"$w/err"
	rc2=$?
	listing "$d" | grep -v -e "$w/m.tar" >"$w/after"
	grep -v -e "$w/m.tar" "$w/before" >"$w/before2"
	diff "$w/before2" "$w/after" >/dev/null ||
		{ escapes=$((escapes + 1)); echo "seed $i: escape"; }
	if sanitizer_report "$w/err"; then
		crashes=$((crashes + 1)); echo "seed $i: sanitizer"
		head -5 "$w/err"
	fi
	for r in $rc $rc2; do
		case $r in
		0|1|2) ;;
		124|137) hangs=$((hangs + 1)); echo "seed $i: hang" ;;
		*) crashes=$((crashes + 1)); echo "seed $i: exit $r" ;;
		esac
	done
	statuses="$statuses $rc"
	rm -rf "$d" "$w/m.tar"
	i=$((i + 1))
done
if [ $escapes = 0 ] && [ $crashes = 0 ] && [ $hangs = 0 ]; then
	ok "$N mutated images: no escape, crash or hang (exits:$(echo $statuses | tr ' ' '\n' | sort | uniq -c | awk '{printf " %s x%s", $2, $1}'))"
else
	fail "$N mutated images: $escapes escapes, $crashes crashes, $hangs hangs"
fi
finish
