# SPDX-License-Identifier: GPL-2.0-or-later
# extkit-dump logdump against debugfs' logdump (issue 34, Deliver 3):
# the same text, byte for byte, with no option, -a, -a -c, -b, -O, -O -n,
# -S, and -i's lines (on 128-byte inodes, where debugfs finds the inode
# where it is), on journals debugfs wrote (jo/jw/jc: transactions,
# revoke records, csum v1, v2, v3 or none, 64-bit tags or not; moved to
# wrap round the journal's end, a commit's checksum broken) and, where loop
# mounts work, on journals the kernel wrote (a copy of the image taken
# while mounted with commit=1: csum v3, ext3's plain tags, a log that
# wrapped, fast commits after fsync). The JSON lists the same blocks and
# tags and validates. Forged and mutated journals (no magic, bad bounds,
# a start outside the log, a log that never ends, a revoke count past
# its block, a truncated image) give a message, never a crash or a hang.
. "${top_srcdir:-.}/tests/lib.sh"
need_dump
need_tools mke2fs debugfs python3

# debugfs' text with the control bytes it reads past a fast-commit
# name dropped (it prints the name with %s; the name is not terminated).
dfs_log() {
	"$DEBUGFS" -c -R "logdump $2" "$1" 2>/dev/null | tr -d '\000-\010\013-\037'
}

# same IMG WHAT OPTS...: extkit-dump logdump OPTS equals debugfs'.
same() {
	_img=$1
	_what=$2
	shift 2
	for _o in "$@"; do
		# debugfs reads the last 256 blocks as a fast-commit area
		# whatever the journal's features; extkit-dump only when
		# the journal has one
		case $_what in
		*"fast commit"*) dfs_log "$_img" "$_o" ;;
		*) dfs_log "$_img" "$_o" | sed -e '/^$/{N;/Fast Commit/d;}' \
			-e '/^tag /d' ;;
		esac >"$tmpdir/want"
		# shellcheck disable=SC2086 # the options are words
		run_dump "$tmpdir/got" "$tmpdir/err" "$_img" logdump $_o
		if [ -s "$tmpdir/want" ] && cmp -s "$tmpdir/want" "$tmpdir/got"
		then
			ok "$_what: logdump $_o equals debugfs' ($(wc -l \
				<"$tmpdir/got") lines)"
		else
			fail "$_what: logdump $_o differs from debugfs'"
			diff "$tmpdir/want" "$tmpdir/got" | head -10
		fi
	done
}

# json_same IMG WHAT: the JSON's blocks, tags and revoke records are
# the text's (-a), and it validates against the schema when a validator
# is at hand.
json_same() {
	run_dump "$tmpdir/json" "$tmpdir/err" --json "$1" logdump &&
	run_dump "$tmpdir/text" "$tmpdir/err" "$1" logdump -a &&
	python3 - "$tmpdir/json" "$tmpdir/text" \
	    "$top_srcdir/man/extkit-dump.schema.json" <<'PY' &&
import json, re, sys
d = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read()
blocks = [(int(s), int(t), int(b)) for s, t, b in re.findall(
    r"Found expected sequence (\d+), type (\d+) \(.*\) at block (\d+)", text)]
assert blocks == [(b["sequence"], b["type"], b["block"])
                  for b in d["blocks"]], "blocks"
tags = [(int(f), int(j), int(x, 16)) for f, j, x in re.findall(
    r"  FS block (\d+) logged at journal block (\d+) \(flags 0x(\w+)\)",
    text)]
assert tags == [(t["fs_block"], t["journal_block"], t["flags"])
                for b in d["blocks"] for t in b.get("tags", [])], "tags"
revoked = [int(x) for x in re.findall(r"  Revoke FS block (\d+)", text)]
assert revoked == [r for b in d["blocks"] for r in b.get("revoked", [])]
# in every committed transaction (a copy taken while mounted may hold
# one being written), every block's and every logged block's checksum
# (csum v2/v3) checks out
done = {b["sequence"] for b in d["blocks"] if b["type"] == 2}
mine = [b for b in d["blocks"] if b["sequence"] in done]
assert all(b["checksum_valid"] in (True, None) for b in mine)
want = (True,) if d["journal"]["feature_incompat"] & 0x18 else (None,)
assert all(t["checksum_valid"] in want
           for b in mine for t in b.get("tags", []))
try:
    import jsonschema
except ImportError:
    sys.exit(0)
schema = json.load(open(sys.argv[3]))
sub = dict(schema, **{"$ref": "#/$defs/logdump"})
del sub["anyOf"]
jsonschema.Draft202012Validator(sub).validate(d)
PY
		ok "$2: the JSON has the same $(grep -c '^Found expected' \
			"$tmpdir/text") blocks and tags" ||
		fail "$2: the JSON differs from the text"
}

blob=$tmpdir/blob
head -c 65536 /dev/urandom >"$blob" || exit 99
# dj NAME JO-OPTS MKE2FS-ARGS...: transactions written by debugfs:
# three blocks, a revoke of one of them, then four more (the last
# transaction left without its commit).
dj() {
	_img=$tmpdir/$1.img
	_jo=$2
	shift 2
	"$MKE2FS" -q -F "$@" "$_img" 16M >/dev/null 2>&1 ||
		{ fail "mke2fs $*"; return 1; }
	"$DEBUGFS" -w -f - "$_img" >/dev/null 2>&1 <<CMDS
jo $_jo
jw -b 300,301,302 $blob
jw -r 300
jc
jo $_jo
jw -b 500-503 $blob
jw -b 600 -c $blob
jc
CMDS
	grep -q . "$_img" || return 1
}
dj ext4 "" -t ext4 -b 1024 -I 128 &&
	same "$tmpdir/ext4.img" "debugfs-made, 64-bit tags" "" -a "-a -c" \
		"-b 300" "-b 501" -O "-O -n 1" -S
dj csum -c -t ext4 -b 4096 &&
	same "$tmpdir/csum.img" "debugfs-made, csum v3" "" -a "-b 302" -O -S
dj ext3 "" -t ext3 -b 2048 &&
	same "$tmpdir/ext3.img" "debugfs-made, ext3 (32-bit tags)" "" -a -O
dj v2 "-c -v 2" -t ext4 -O metadata_csum,64bit -b 1024 &&
	same "$tmpdir/v2.img" "debugfs-made, csum v2" "" -a "-b 500" -S
dj v1 -c -t ext4 -O ^metadata_csum,64bit -b 1024 &&
	same "$tmpdir/v1.img" "debugfs-made, csum v1 (crc32 commits)" "" -a -S
dj v3_32 -c -t ext4 -O metadata_csum,^64bit -b 1024 &&
	same "$tmpdir/v3_32.img" "debugfs-made, csum v3, 32-bit" "" -a "-a -c"
for n in ext4 csum ext3 v2 v1 v3_32; do
	[ -f "$tmpdir/$n.img" ] && json_same "$tmpdir/$n.img" "debugfs-made $n"
done
# The same log moved to wrap round the journal's end, and with a commit
# block's byte flipped (tests/interop/jlog.py): debugfs' text, and for
# the bad commit one more line saying so, false in the JSON.
JLOG=$top_srcdir/tests/interop/jlog.py
if [ -f "$tmpdir/v3_32.img" ]; then
	"$DEBUGFS" -c -R "blocks <8>" "$tmpdir/v3_32.img" 2>/dev/null \
		>"$tmpdir/jb"
	cp "$tmpdir/v3_32.img" "$tmpdir/wrap.img" &&
		cp "$tmpdir/v3_32.img" "$tmpdir/badcommit.img" || exit 99
	python3 "$JLOG" "$tmpdir/wrap.img" "$tmpdir/jb" rotate 7 &&
		python3 "$JLOG" "$tmpdir/badcommit.img" "$tmpdir/jb" corrupt 4 64 ||
		exit 99
	same "$tmpdir/wrap.img" "debugfs-made, wrapped round the end" "" -a -O
	json_same "$tmpdir/wrap.img" "debugfs-made, wrapped"
	dfs_log "$tmpdir/badcommit.img" "" >"$tmpdir/want"
	run_dump "$tmpdir/got" "$tmpdir/err" "$tmpdir/badcommit.img" logdump
	run_dump "$tmpdir/json" "$tmpdir/err" --json "$tmpdir/badcommit.img" \
		logdump
	if grep -v "checksum does not match" "$tmpdir/got" |
	    cmp -s - "$tmpdir/want" &&
	    [ "$(grep -c "^  (the block's checksum does not match)$" \
		"$tmpdir/got")" -eq 1 ] &&
	    python3 -c 'import json, sys
b = json.load(open(sys.argv[1]))["blocks"]
sys.exit(not [x["block"] for x in b if x["checksum_valid"] is False] == [5])
' "$tmpdir/json"; then
		ok "a commit block with a bad checksum: said once, false in JSON"
	else
		fail "a bad commit checksum is not reported"
		diff "$tmpdir/want" "$tmpdir/got"
	fi
fi
# -i: the inode's block, found where it lies (128-byte inodes: debugfs
# counts 128 bytes an inode whatever their size); the lines that are
# not the logged inode's fields agree (those are shown as a summary).
itb=$("$DEBUGFS" -c -R "imap <12>" "$tmpdir/ext4.img" 2>/dev/null |
	sed -n 's/.*located at block \([0-9]*\),.*/\1/p')
if [ -n "$itb" ]; then
	"$DEBUGFS" -w -f - "$tmpdir/ext4.img" >/dev/null 2>&1 <<CMDS
jo
jw -b $itb $blob
jc
CMDS
	# (debugfs also prints the inode's checksum, unindented)
	keep='^(Inode [0-9]+ is at|Journal starts|  FS block|    \(inode block|No magic|Found)'
	dfs_log "$tmpdir/ext4.img" "-i <12>" | grep -E "$keep" >"$tmpdir/want"
	run_dump "$tmpdir/got" "$tmpdir/err" "$tmpdir/ext4.img" logdump -i '<12>'
	grep -E "$keep" "$tmpdir/got" >"$tmpdir/got2"
	if cmp -s "$tmpdir/want" "$tmpdir/got2" &&
	    grep -q "FS block $itb logged at" "$tmpdir/got" &&
	    grep -q '^    Inode: 12   Type: ' "$tmpdir/got" &&
	    grep -q '(inode block for inode 12)' "$tmpdir/got"; then
		ok "-i <12>: located and found logged as debugfs finds it"
	else
		fail "-i <12> differs"; diff "$tmpdir/want" "$tmpdir/got2"
	fi
fi

# Options that do not fit.
expect_fail_one_line "logdump -b garbage" "$tmpdir/ext4.img" logdump \
	-b 12x
expect_fail_one_line "logdump --json -a" --json "$tmpdir/ext4.img" \
	logdump -a
expect_fail_one_line "ls -a" "$tmpdir/ext4.img" ls -a /
"$MKE2FS" -q -F -t ext2 "$tmpdir/nojournal.img" 8M >/dev/null 2>&1
expect_fail_one_line "logdump without a journal" "$tmpdir/nojournal.img" \
	logdump

# Forged journals: the journal superblock's fields (big-endian), a
# descriptor's type, a revoke block's count, a log of descriptors that
# never ends, a truncated image.
img=$tmpdir/ext4.img
jblk() {
	echo $(($("$DEBUGFS" -c -R "bmap <8> $2" "$1" 2>/dev/null) * 1024))
}
J=$(jblk "$img" 0)
J1=$(jblk "$img" 1)
J6=$(jblk "$img" 6)
# forge NAME OFFSET SIZE VALUE: a copy of $img with VALUE written there.
forge() {
	cp "$img" "$tmpdir/$1.img" || exit 99
	python3 -c 'import sys
f = open(sys.argv[1], "r+b"); f.seek(int(sys.argv[2]))
f.write(int(sys.argv[4]).to_bytes(int(sys.argv[3]), "big"))
' "$tmpdir/$1.img" "$2" "$3" "$4" || exit 99
}
# check_forged NAME PATTERN: both forms end, exit 0, no sanitizer
# report, the JSON parses, the text matches PATTERN.
check_forged() {
	run_dump "$tmpdir/out" "$tmpdir/err" "$tmpdir/$1.img" logdump
	_rc=$?
	run_dump "$tmpdir/json" "$tmpdir/jerr" --json "$tmpdir/$1.img" logdump
	_jrc=$?
	if [ $_rc -eq 0 ] && [ $_jrc -eq 0 ] && json_valid "$tmpdir/json" &&
	    ! sanitizer_report "$tmpdir/err" &&
	    ! sanitizer_report "$tmpdir/jerr" &&
	    grep -q -e "$2" "$tmpdir/out" "$tmpdir/err"; then
		ok "forged $1: $(grep -h -e "$2" "$tmpdir/out" "$tmpdir/err" |
			head -1)"
	else
		fail "forged $1: exit $_rc/$_jrc"
		head -3 "$tmpdir/out" "$tmpdir/err"
	fi
}
forge magic $J 4 0 && check_forged magic \
	'Journal superblock magic number invalid!'
forge blocksize $((J + 12)) 4 4096 && check_forged blocksize \
	'Journal block size invalid: 4096 (1024)'
forge first $((J + 20)) 4 0 && check_forged first \
	'Journal log bounds invalid: first block 0'
forge maxlen $((J + 16)) 4 4000000000 && check_forged maxlen \
	'shorter than its superblock says'
forge start $((J + 28)) 4 99999 && check_forged start \
	'the log start 99999 is outside the log'
forge type $((J1 + 4)) 4 77 && check_forged type \
	'Unexpected block type 77 at block 1.'
forge revoke $((J6 + 12)) 4 4000000000 && check_forged revoke \
	"Revoke block's r_count invalid: 4000000000"
cp "$img" "$tmpdir/loop.img" || exit 99
python3 - "$tmpdir/loop.img" $("$DEBUGFS" -c -R "blocks <8>" "$img" \
    2>/dev/null) <<'PY' || exit 99
import struct, sys
blocks = [int(b) for b in sys.argv[2:]]
with open(sys.argv[1], "r+b") as f:
    for jb in range(1, len(blocks)):
        # descriptors of sequence 1, one tag each (last, same UUID)
        f.seek(blocks[jb] * 1024)
        f.write(struct.pack(">III", 0xc03b3998, 1, 1) +
                struct.pack(">IHHI", 5, 0, 0xa, 0))
PY
check_forged loop 'The walk went round the whole log at block 2'
cp "$img" "$tmpdir/trunc.img" && truncate -s $(((J1 / 1024 + 3) * 1024)) \
	"$tmpdir/trunc.img" && check_forged trunc \
	'journal block [0-9]*: image is shorter'

# Mutated journals (seeded): every run ends, exit 0 or 1, no sanitizer
# report, and the JSON parses when the command succeeds.
crashes=0
for seed in $(seq 1 40); do
	python3 - "$img" "$tmpdir/mut.img" "$seed" $("$DEBUGFS" -c -R \
	    "blocks <8>" "$img" 2>/dev/null | cut -d' ' -f1-16) <<'PY' || exit 99
import random, shutil, sys
src, dst, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
blocks = [int(b) for b in sys.argv[4:]]
shutil.copy(src, dst)
r = random.Random(seed)
with open(dst, "r+b") as f:
    for _ in range(r.randint(1, 12)):
        b = r.choice(blocks)
        f.seek(b * 1024 + r.choice((r.randrange(64), r.randrange(1024))))
        f.write(bytes([r.choice((0, 1, 0xff, r.randrange(256)))]))
PY
	dump_mutant "$seed" "$tmpdir/mut.img" logdump -O ||
		crashes=$((crashes + 1))
done
[ $crashes -eq 0 ] && ok "40 mutated journals: no crash, hang or bad JSON" ||
	fail "$crashes mutated journals crashed or hung"
# their JSON documents keep the schema's shape
mutants_fit_schema logdump &&
	ok "mutated: every JSON document validates (#/\$defs/logdump)" ||
	fail "mutated: a JSON document fails #/\$defs/logdump"

# Journals the kernel wrote, copied while mounted.
[ "$(id -u)" = 0 ] || finish
use_mount_point
kernel=0
# kj NAME MKE2FS-ARGS...: rounds of new files a commit apart, one
# directory removed (revoke records), twenty fsync'ed files (fast
# commits where the feature is on); the image copied while mounted.
kj() {
	_n=$1
	shift
	_img=$tmpdir/k$_n.img
	"$MKE2FS" -q -F "$@" "$_img" 64M >/dev/null 2>&1 || return 1
	mount -o loop,commit=1 "$_img" "$mnt" 2>/dev/null || return 1
	python3 - "$mnt" <<'PY'
import os, sys, time
m = sys.argv[1]
for r in range(4):
    os.mkdir("%s/d%d" % (m, r))
    for i in range(600):
        open("%s/d%d/file_%d_%d" % (m, r, r, i), "w").close()
    time.sleep(1.2)
for i in range(600):
    os.unlink("%s/d1/file_1_%d" % (m, i))
os.rmdir("%s/d1" % m)
time.sleep(1.2)
os.mkdir("%s/e" % m)
for i in range(20):
    fd = os.open("%s/e/s%d" % (m, i), os.O_CREAT | os.O_WRONLY)
    os.write(fd, b"x" * 5000)
    os.fsync(fd)
    os.close(fd)
time.sleep(0.3)
PY
	cp "$_img" "$tmpdir/k$_n.copy" || exit 99
	umount "$mnt"
	kernel=$((kernel + 1))
}
if kj csum1k -t ext4 -b 1024; then
	same "$tmpdir/kcsum1k.copy" "kernel, csum v3, 1 KiB" "" -a -O \
		"-O -n 2" "-b 300" -S
	json_same "$tmpdir/kcsum1k.copy" "kernel, csum v3, 1 KiB"
	run_dump "$tmpdir/got" "$tmpdir/err" "$tmpdir/kcsum1k.copy" logdump -a
	grep -q '^  Revoke FS block [0-9]*$' "$tmpdir/got" &&
		ok "kernel, csum v3: a directory's removal logged revokes" ||
		fail "kernel, csum v3: no revoke records shown"
fi
if kj wrap -t ext4 -b 1024 -J size=1; then
	same "$tmpdir/kwrap.copy" "kernel, a 1 MiB log" "" -a -O "-O -n 3"
	json_same "$tmpdir/kwrap.copy" "kernel, a 1 MiB log"
fi
if kj ext3 -t ext3 -b 4096; then
	same "$tmpdir/kext3.copy" "kernel, ext3" "" -a -O
	json_same "$tmpdir/kext3.copy" "kernel, ext3"
fi
if kj fc -t ext4 -O fast_commit -b 4096; then
	same "$tmpdir/kfc.copy" "kernel, fast commits" "" -a -O
	run_dump "$tmpdir/got" "$tmpdir/err" "$tmpdir/kfc.copy" logdump
	grep -q '^\*\*\* Fast Commit Area \*\*\*' "$tmpdir/got" &&
	    grep -q '^tag CREAT_DENTRY, parent [0-9]*, ino [0-9]*, name "s1[0-9]"$' \
		"$tmpdir/got" && ok "kernel, fast commits: the area is shown" ||
		fail "kernel, fast commits: no fast-commit tags shown"
	json_same "$tmpdir/kfc.copy" "kernel, fast commits"
fi
[ $kernel -gt 0 ] || echo "note: loop mounts refused: kernel cases skipped"
finish
