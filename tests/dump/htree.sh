# SPDX-License-Identifier: GPL-2.0-or-later
# extkit-dump htree against debugfs' htree_dump (issue 34, Deliver 3):
# the same text, byte for byte, on indexed directories built by
# e2fsck -D over mke2fs -d trees (1 KiB blocks with metadata_csum and
# two levels, 4 KiB without, tea and legacy hashes on ext3, a casefolded
# directory), by extkit-mkfs -d (one and two levels) and, where loop
# mounts work, by the kernel (thousands of files created, some deleted;
# 1 KiB and 4 KiB blocks, two levels; an encrypted directory). The JSON
# carries the same index and leaf records, every hash in its leaf's
# range. Forged roots and nodes (too deep, loops, counts past the block,
# blocks past the directory) and mutated ones give messages, never a
# crash or a hang.
. "${top_srcdir:-.}/tests/lib.sh"
need_dump
need_tools mke2fs e2fsck debugfs tune2fs python3

# same IMG DIR WHAT: extkit-dump's text equals debugfs', and the JSON's
# records and hashes are the text's.
same() {
	"$DEBUGFS" -R "htree $2" "$1" 2>/dev/null >"$tmpdir/want"
	run_dump "$tmpdir/got" "$tmpdir/err" "$1" htree "$2"
	if [ -s "$tmpdir/want" ] && cmp -s "$tmpdir/want" "$tmpdir/got" &&
	    grep -q '^Reading directory block' "$tmpdir/got"; then
		ok "$3: htree equals debugfs' ($(grep -c '^Entry' \
			"$tmpdir/got") index lines)"
	else
		fail "$3: htree differs from debugfs'"
		diff "$tmpdir/want" "$tmpdir/got" | head -20
		return
	fi
	run_dump "$tmpdir/json" "$tmpdir/err" --json "$1" htree "$2" &&
	python3 - "$tmpdir/json" "$tmpdir/got" "$tmpdir" <<'PY' &&
import json, re, sys
sys.path.insert(0, sys.argv[3])
from htree_range import in_range
d = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read()
want = re.findall(r"(\d+) 0x([0-9a-f]{8})-([0-9a-f]{8}) \((\d+)\) ", text)
got = []
levels = d["root"]["indirect_levels"]


def walk(ix):
    for e in ix["entries"]:
        if e.get("node"):
            walk(e["node"])
        if e.get("leaf"):
            for r in e["leaf"]["entries"]:
                got.append((str(r["inode"]), "%08x" % r["hash"],
                            "%08x" % r["minor_hash"], str(r["rec_len"])))


walk(d["index"])
assert got == want, (len(got), len(want))
assert d["root"]["hash_version_name"] in ("half_md4", "tea", "legacy")
assert in_range(d) == 0
PY
		ok "$3: the JSON holds the same $(grep -o ' 0x[0-9a-f]*-' \
			"$tmpdir/got" | wc -l) records and hashes" ||
		fail "$3: the JSON differs from the text"
}

# htree_range.py: in_range(doc), the live records whose hash lies
# outside the range the index gives their leaf (the kernel's lookup
# would not find them).
cat >"$tmpdir/htree_range.py" <<'PY'
def in_range(d):
    bad = 0

    def walk(ix, lo, hi):
        nonlocal bad
        ents = ix["entries"]
        for i, e in enumerate(ents):
            low = e["hash"] if i else lo
            high = ents[i + 1]["hash"] if i + 1 < len(ents) else hi
            if e.get("node"):
                walk(e["node"], low, high)
            for r in (e.get("leaf") or {}).get("entries", []):
                if r["inode"] and not ((low & ~1) <= r["hash"] <= high):
                    bad += 1
    walk(d["index"], 0, 1 << 32)
    return bad
PY

src=$tmpdir/src
mkdir -p "$src/big" "$src/small" || exit 99
python3 - "$src" <<'PY' || exit 99
import sys
for i in range(3000):
    open("%s/big/file_with_a_longer_name_%05d" % (sys.argv[1], i), "w")
for i in range(5):
    open("%s/small/f%d" % (sys.argv[1], i), "w")
PY
# mkimg NAME MKE2FS-ARGS...: an image of $src, its directories indexed.
mkimg() {
	_img=$tmpdir/$1.img
	shift
	"$MKE2FS" -q -F "$@" -d "$src" "$_img" 32M >/dev/null 2>&1 &&
		"$E2FSCK" -fyD "$_img" >/dev/null 2>&1
	[ $? -le 1 ] || { fail "building $_img"; return 1; }
}
mkimg csum1k -t ext4 -b 1024 && same "$tmpdir/csum1k.img" /big \
	"ext4, 1 KiB, metadata_csum, 2 levels"
mkimg plain4k -t ext4 -b 4096 -O ^metadata_csum &&
	same "$tmpdir/plain4k.img" /big "ext4, 4 KiB, no metadata_csum"
for alg in tea legacy; do
	if mkimg $alg -t ext3 -b 2048 && "$TUNE2FS" -E hash_alg=$alg \
	    "$tmpdir/$alg.img" >/dev/null 2>&1 &&
	    "$E2FSCK" -fyD "$tmpdir/$alg.img" >/dev/null 2>&1; [ $? -le 1 ]
	then
		same "$tmpdir/$alg.img" /big "ext3, 2 KiB, $alg"
		grep -q "Hash Version: $([ $alg = tea ] && echo 2 || echo 0)$" \
			"$tmpdir/got" || fail "ext3, $alg: not a $alg index"
	fi
done

# extkit-mkfs -d indexes what it lays out: one level, and two.
if [ -x "$top_builddir/extkit-mkfs" ]; then
	mkdir -p "$tmpdir/x2/big" || exit 99
	python3 -c 'import sys
for i in range(6000):
    open("%s/big/a_longer_file_name_%05d" % (sys.argv[1], i), "w")' "$tmpdir/x2" || exit 99
	for t in src:1 x2:2; do
		"$top_builddir/extkit-mkfs" -q -t ext4 -b 1024 \
			-d "$tmpdir/${t%:*}" "$tmpdir/x${t#*:}.img" 32M \
			>/dev/null 2>&1 || { fail "extkit-mkfs -d $t"; continue; }
		same "$tmpdir/x${t#*:}.img" /big "extkit-mkfs -d, tree $t"
	done
	grep -q 'Indirect levels: 1' "$tmpdir/got" &&
		ok "extkit-mkfs -d: a two-level tree" ||
		fail "extkit-mkfs -d: not two levels"
fi

# A casefolded directory: the names are folded before hashing.
cf=$tmpdir/cf
mkdir -p "$cf/big" || exit 99
python3 -c 'import sys
for i in range(1500):
    open("%s/big/F\u00efl\u00e9_\u00c0B_%05d" % (sys.argv[1], i), "w")
' "$cf" || exit 99
if "$MKE2FS" -q -F -t ext4 -O casefold -b 1024 -d "$cf" "$tmpdir/cf.img" \
    32M >/dev/null 2>&1; then
	"$DEBUGFS" -w -R "set_inode_field /big flags 0x40080000" \
		"$tmpdir/cf.img" >/dev/null 2>&1
	"$E2FSCK" -fyD "$tmpdir/cf.img" >/dev/null 2>&1
	same "$tmpdir/cf.img" /big "casefolded directory"
	# the same names hashed unfolded would differ: the fold is used
	cp "$tmpdir/cf.img" "$tmpdir/nocf.img" || exit 99
	"$DEBUGFS" -w -R "set_inode_field /big flags 0x81000" \
		"$tmpdir/nocf.img" >/dev/null 2>&1
	"$DUMP" "$tmpdir/nocf.img" htree /big >"$tmpdir/nocf" 2>&1
	"$DUMP" "$tmpdir/cf.img" htree /big >"$tmpdir/cfgot" 2>&1
	cmp -s "$tmpdir/nocf" "$tmpdir/cfgot" &&
		fail "casefold: hashes do not depend on the folding" ||
		ok "casefold: the folded hashes are not the raw names' hashes"
fi

# Errors: not a directory, not indexed.
expect_fail_one_line "htree of a file" "$tmpdir/csum1k.img" htree \
	/small/f0
expect_fail_one_line "htree of a linear directory" "$tmpdir/csum1k.img" \
	htree /small

# Forged index blocks: no crash, no hang, a JSON document still.
pblk() {
	"$DEBUGFS" -R "bmap /big $2" "$1" 2>/dev/null
}
img=$tmpdir/csum1k.img
root=$(($(pblk "$img" 0) * 1024))
"$DEBUGFS" -R "htree /big" "$img" 2>/dev/null >"$tmpdir/want"
node=$(($(pblk "$img" "$(sed -n 's/^Entry #0: Hash 0x00000000, block //p' \
	"$tmpdir/want" | head -1)") * 1024))
for c in "levels $((root + 30)) 1 200" "info_length $((root + 29)) 1 250" \
    "root_count $((root + 34)) 2 65535" "root_limit $((root + 32)) 2 0" \
    "node_loop $((node + 12)) 4 0" "node_far $((node + 20)) 4 99999" \
    "node_count $((node + 10)) 2 65535"; do
	set -- $c
	cp "$img" "$tmpdir/forged.img" || exit 99
	python3 -c 'import sys
f = open(sys.argv[1], "r+b"); f.seek(int(sys.argv[2]))
f.write(int(sys.argv[4]).to_bytes(int(sys.argv[3]), "little"))
' "$tmpdir/forged.img" "$2" "$3" "$4" || exit 99
	run_dump "$tmpdir/out" "$tmpdir/err" "$tmpdir/forged.img" htree /big
	rc=$?
	run_dump "$tmpdir/json" "$tmpdir/jerr" --json "$tmpdir/forged.img" \
		htree /big
	jrc=$?
	if [ $rc -eq 0 ] && [ $jrc -eq 0 ] && ! sanitizer_report "$tmpdir/err" &&
	    ! sanitizer_report "$tmpdir/jerr" && json_valid "$tmpdir/json" &&
	    grep -q '^Root node dump:' "$tmpdir/out"; then
		ok "forged $1: shown, $(wc -l <"$tmpdir/err") message(s)"
	else
		fail "forged $1: exit $rc/$jrc"; head -3 "$tmpdir/err"
	fi
done
cp "$img" "$tmpdir/forged.img" && python3 -c 'import sys
f = open(sys.argv[1], "r+b"); f.seek(int(sys.argv[2])); f.write(bytes([200]))
' "$tmpdir/forged.img" $((root + 30))
run_dump "$tmpdir/out" "$tmpdir/err" "$tmpdir/forged.img" htree /big
grep -q '200 indirect levels, more than the 1 the kernel accepts' \
	"$tmpdir/err" && ok "forged levels: the warning names the depth" ||
	fail "forged levels: no warning"

# Mutated directory blocks (seeded): every run ends, exit 0 or 1, no
# sanitizer report, and the JSON parses when the command succeeds.
blocks=$("$DEBUGFS" -R "blocks /big" "$img" 2>/dev/null)
crashes=0
for seed in $(seq 1 40); do
	python3 - "$img" "$tmpdir/mut.img" "$seed" $blocks <<'PY' || exit 99
import random, shutil, sys
src, dst, seed, blocks = sys.argv[1], sys.argv[2], int(sys.argv[3]), \
    [int(b) for b in sys.argv[4:]]
shutil.copy(src, dst)
r = random.Random(seed)
with open(dst, "r+b") as f:
    # the root and a few other blocks, each hit a few times
    for b in [blocks[0]] + r.sample(blocks, 3):
        for _ in range(r.randint(1, 8)):
            f.seek(b * 1024 + r.randrange(1024))
            f.write(bytes([r.choice((0, 1, 0xff, r.randrange(256)))]))
PY
	dump_mutant "$seed" "$tmpdir/mut.img" htree /big ||
		crashes=$((crashes + 1))
done
[ $crashes -eq 0 ] && ok "40 mutated directories: no crash, hang or bad JSON" ||
	fail "$crashes mutated directories crashed or hung"
# their JSON documents keep the schema's shape
mutants_fit_schema htree &&
	ok "mutated: every JSON document validates (#/\$defs/htree)" ||
	fail "mutated: a JSON document fails #/\$defs/htree"

# Directories the kernel built, where loop mounts work.
[ "$(id -u)" = 0 ] || { finish; }
use_mount_point
for bs in 1024 4096; do
	kimg=$tmpdir/k$bs.img
	"$MKE2FS" -q -F -t ext4 -b $bs "$kimg" 64M >/dev/null 2>&1 ||
		{ fail "mke2fs $bs"; continue; }
	mount -o loop "$kimg" "$mnt" 2>/dev/null ||
		{ echo "note: loop mount refused; kernel cases skipped"; break; }
	mkdir "$mnt/d" && python3 - "$mnt/d" $bs <<'PY'
import os, sys
d, bs = sys.argv[1], int(sys.argv[2])
n, pad = (5000, "x" * 8) if bs == 1024 else (9000, "x" * 150)
for i in range(n):
    open("%s/%s_%05d" % (d, pad, i), "w")
for i in range(0, n, 7):
    os.unlink("%s/%s_%05d" % (d, pad, i))
PY
	umount "$mnt"
	same "$kimg" /d "kernel, $bs-byte blocks, files created and deleted"
	grep -q 'Indirect levels: 1' "$tmpdir/got" &&
		ok "kernel, $bs: a two-level tree" ||
		fail "kernel, $bs: not two levels"
done

# An encrypted directory (fscrypt v2 policy, a test key): its names are
# ciphertext, hashed as stored. The kernel hashes every byte; debugfs
# stops a name at a NUL byte (strncpy), so only the records and their
# order are compared with it, and every hash must lie in its leaf's range.
eimg=$tmpdir/enc.img
if "$MKE2FS" -q -F -t ext4 -O encrypt -b 1024 "$eimg" 32M >/dev/null 2>&1 &&
    mount -o loop "$eimg" "$mnt" 2>/dev/null; then
	if python3 - "$mnt" "$mnt/d" <<'PY' 2>/dev/null; then
import fcntl, os, struct, sys
mnt, d = sys.argv[1], sys.argv[2]
raw = bytes(range(64))
arg = bytearray(struct.pack("II32sIII32s", 2, 0, b"", len(raw), 0, 0, b"") +
                raw)
fd = os.open(mnt, os.O_RDONLY)
fcntl.ioctl(fd, 0xC0506617, arg)        # FS_IOC_ADD_ENCRYPTION_KEY
os.close(fd)
os.mkdir(d)
fd = os.open(d, os.O_RDONLY)
fcntl.ioctl(fd, 0x800c6613, struct.pack("BBBB4s16s", 2, 1, 4, 0, b"",
                                        bytes(arg[8:24])))  # SET_POLICY
os.close(fd)
for i in range(2000):
    open("%s/encrypted_name_%05d" % (d, i), "w").close()
PY
		umount "$mnt"
		"$DEBUGFS" -R "htree /d" "$eimg" 2>/dev/null |
			grep -ao '[0-9]* 0x[0-9a-f]*-[0-9a-f]* ([0-9]*)' |
			sed 's/ 0x[^ ]* / /' >"$tmpdir/want"
		run_dump "$tmpdir/got" "$tmpdir/err" "$eimg" htree /d
		grep -ao '[0-9]* 0x[0-9a-f]*-[0-9a-f]* ([0-9]*)' \
			"$tmpdir/got" | sed 's/ 0x[^ ]* / /' >"$tmpdir/got2"
		run_dump "$tmpdir/json" "$tmpdir/err" --json "$eimg" htree /d
		if [ "$(wc -l <"$tmpdir/want")" -ge 2000 ] &&
		    cmp -s "$tmpdir/want" "$tmpdir/got2" &&
		    python3 -c 'import json, sys
sys.path.insert(0, sys.argv[2])
from htree_range import in_range
sys.exit(in_range(json.load(open(sys.argv[1]))) != 0)' "$tmpdir/json" \
		    "$tmpdir"; then
			ok "kernel, encrypted names: debugfs' records, every hash in its leaf's range"
		else
			fail "kernel, encrypted names differ"
		fi
	else
		umount "$mnt"
		echo "note: fscrypt refused: the encrypted case skipped"
	fi
fi
finish
