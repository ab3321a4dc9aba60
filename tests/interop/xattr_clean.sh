# SPDX-License-Identifier: GPL-2.0-or-later
# Clean images with extended attributes (in the inode, in EA blocks, in
# EA inodes; empty, small, large, many) and inline data (files and
# directories), made by mke2fs -d (values larger than a block added by
# debugfs ea_set) and, where loop mounts work, by the kernel. For each:
#  - extkit-fsck -fn exits 0; -fy exits 0 and changes nothing but the
#    superblock's last check time, mount count and checksum; e2fsck -fn
#    is still clean after it;
#  - extkit-dump ls of every directory and stat of every inode agree with
#    debugfs (names, inodes, size, links, flags, i_blocks, and every
#    attribute's name and value size).

. "${top_srcdir:-.}/tests/lib.sh"
need_dump
need_tools mke2fs debugfs e2fsck python3
FSCK=$top_builddir/extkit-fsck

# The source tree; the host must take user attributes.
src=$tmpdir/src
mkdir -p "$src/d1/sub" "$src/idir" "$src/many" || exit 99
printf 'hi\n' >"$src/small"
printf 'x\n' >"$src/idir/f"
head -c 100 /dev/zero >"$src/f100"
head -c 20000 /dev/zero | tr '\0' 'a' >"$src/d1/data"
ln -s short "$src/sl"
python3 - "$src" <<'EOF' || skip "no user extended attributes on $TMPDIR"
import os, sys
s = sys.argv[1]
os.setxattr(s + '/small', 'user.a', b'1')
os.setxattr(s + '/small', 'user.empty', b'')
os.setxattr(s + '/f100', 'user.mid', b'm' * 700)
os.setxattr(s + '/idir', 'user.dir', b'dirval')
for i in range(25):
    os.setxattr(s + '/many', 'user.attr%02d' % i, b'v%d' % i)
os.setxattr(s + '/d1/data', 'trusted.t', b'tt')
EOF
head -c 9000 /dev/zero | tr '\0' 'b' >"$tmpdir/big9k"
head -c 5000 /dev/zero | tr '\0' 'c' >"$tmpdir/big5k"

cat >"$tmpdir/check.py" <<'EOF'
import json, re, subprocess, sys

DUMP, DEBUGFS, IMG = sys.argv[1:4]
bad = 0


def fail(msg):
    global bad
    bad += 1
    print("FAIL: %s: %s" % (IMG, msg))


def run(args):
    return subprocess.run(args, stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL, timeout=120).stdout


def dbg(cmd):
    return run([DEBUGFS, "-R", cmd, IMG]).decode(errors="replace")


def dump(*args):
    return json.loads(run([DUMP, "--json", IMG] + list(args)))


dirs, inodes = ["/"], set()
while dirs:
    d = dirs.pop()
    mine = {(e["name"], e["inode"]) for e in dump("ls", d)["entries"]}
    theirs = set()
    for line in dbg("ls -p " + d).splitlines():
        f = line.split("/")
        if len(f) >= 7 and f[1].isdigit() and int(f[1]):
            theirs.add((f[5], int(f[1])))
    if mine != theirs:
        fail("ls %s: %s" % (d, sorted(mine ^ theirs)))
    for name, ino in mine:
        inodes.add(ino)
        if name in (".", "..", "lost+found"):
            continue
        if dbg("stat <%d>" % ino).startswith("Inode: %d   Type: directory"
                                               % ino):
            dirs.append(d.rstrip("/") + "/" + name)
for ino in sorted(inodes):
    st = dump("stat", "<%d>" % ino)
    text = dbg("stat <%d>" % ino)
    want = {
        "size": int(re.search(r"Size: (\d+)", text).group(1)),
        "links_count": int(re.search(r"Links: (\d+)", text).group(1)),
        "i_blocks": int(re.search(r"Blockcount: (\d+)", text).group(1)),
        "flags": int(re.search(r"Flags: (0x[0-9a-f]+)", text).group(1), 16),
    }
    for k, v in want.items():
        if st[k] != v:
            fail("stat <%d> %s: %s, debugfs %s" % (ino, k, st[k], v))
    xa = re.search(r"Extended attributes:\n((?:  .*\n)*)", text)
    theirs = sorted(re.findall(r"^  (\S+)(?: = .*)? \((\d+)\)",
                               xa.group(1) if xa else "", re.M))
    mine = sorted((x["name"], str(x["value_size"])) for x in st["xattrs"])
    if mine != [(n, s) for n, s in theirs]:
        fail("stat <%d> attributes: %s, debugfs %s" % (ino, mine, theirs))
print("%d inodes compared" % len(inodes))
sys.exit(1 if bad else 0)
EOF

# check IMG LABEL: the whole round on one clean image.
check() {
	img=$1
	what=$2
	if ! $E2FSCK -fn "$img" >"$tmpdir/e2.log" 2>&1; then
		fail "$what: e2fsck -fn finds the source image damaged"
		return
	fi
	run_to "$tmpdir/fn.log" $FSCK -fn "$img"
	[ "$rc" -eq 0 ] && ok "$what: extkit-fsck -fn clean" ||
		{ fail "$what: extkit-fsck -fn exit $rc"; cat "$tmpdir/fn.log"; }
	cp "$img" "$img.fy"
	run_to "$tmpdir/fy.log" $FSCK -fy "$img.fy"
	[ "$rc" -eq 0 ] && ok "$what: extkit-fsck -fy exit 0" ||
		{ fail "$what: extkit-fsck -fy exit $rc"; cat "$tmpdir/fy.log"; }
	# 1-based offsets: s_mnt_count 0x34, s_lastcheck 0x40, s_checksum
	# 0x3fc of the primary superblock (at 1024).
	changed=$(cmp -l "$img" "$img.fy" | awk '$1 != 1077 && $1 != 1078 &&
		!($1 >= 1089 && $1 <= 1092) && !($1 >= 2045 && $1 <= 2048)' |
		wc -l)
	[ "$changed" -eq 0 ] && ok "$what: -fy changed nothing else" ||
		fail "$what: -fy changed $changed other bytes"
	$E2FSCK -fn "$img.fy" >"$tmpdir/e2.log" 2>&1 &&
		ok "$what: e2fsck -fn clean after -fy" ||
		{ fail "$what: e2fsck -fn after -fy"; cat "$tmpdir/e2.log"; }
	python3 "$tmpdir/check.py" "$DUMP" "$DEBUGFS" "$img" \
		>"$tmpdir/cmp.log" 2>&1 &&
		ok "$what: dump ls/stat agree with debugfs ($(tail -1 \
			"$tmpdir/cmp.log"))" ||
		{ fail "$what: dump vs debugfs"; cat "$tmpdir/cmp.log"; }
	rm -f "$img.fy"
}

# run_to LOG CMD...: runs CMD with the deadline, rc its exit status.
run_to() {
	log=$1
	shift
	timeout "$TIMEOUT" "$@" >"$log" 2>&1
	rc=$?
}

n=0
for cfg in "4096 256 inline_data,ea_inode,metadata_csum" \
	   "1024 256 inline_data,ea_inode,^metadata_csum" \
	   "1024 1024 inline_data,ea_inode,metadata_csum" \
	   "4096 128 ea_inode,^metadata_csum" \
	   "1024 512 inline_data,^ea_inode,metadata_csum"; do
	set -- $cfg
	n=$((n + 1))
	img=$tmpdir/img$n
	$MKE2FS -q -F -t ext4 -b "$1" -I "$2" -O "$3" -U clear \
		-E hash_seed=0f8e6f9d-1c2b-4b5a-9e8d-7c6b5a4f3e2d \
		-d "$src" "$img" 8M >/dev/null 2>&1 ||
		{ fail "mke2fs $cfg"; continue; }
	case $3 in
	*^ea_inode*) ;;
	*ea_inode*)
		$DEBUGFS -w -f - "$img" >/dev/null 2>&1 <<EOF
ea_set -f $tmpdir/big9k /small user.big9k
ea_set -f $tmpdir/big5k /f100 user.big5k
ea_set -f $tmpdir/big5k /many user.big5k
EOF
		;;
	esac
	# mke2fs -d leaves EA inode blocks out of i_blocks: e2fsck adds them.
	$E2FSCK -fy "$img" >/dev/null 2>&1
	check "$img" "mke2fs -b $1 -I $2 -O $3"
done

# The kernel as the writer, where loop mounts are allowed.
kimg=$tmpdir/kimg
mnt=$tmpdir/mnt
mkdir -p "$mnt"
$MKE2FS -q -F -t ext4 -b 1024 -I 256 -O inline_data,ea_inode -U clear \
	"$kimg" 16M >/dev/null 2>&1 || exit 99
if [ "$(id -u)" = 0 ] && mount -o loop "$kimg" "$mnt" 2>/dev/null; then
	python3 - "$mnt" <<'EOF' || fail "kernel: populating"
import os, sys
m = sys.argv[1]
os.mkdir(m + '/idir')
open(m + '/idir/f', 'w').write('x')
os.mkdir(m + '/d3')
for i in range(4):
    open(m + '/d3/longname%d' % i, 'w').close()
os.mkdir(m + '/d2')
for i in range(30):
    open(m + '/d2/file%02d' % i, 'w').write('%d' % i)
open(m + '/small', 'w').write('hi')
os.setxattr(m + '/small', 'user.a', b'1')
os.setxattr(m + '/small', 'user.empty', b'')
os.setxattr(m + '/small', 'user.big', b'b' * 9000)
open(m + '/shared', 'w').write('s')
os.setxattr(m + '/shared', 'user.big', b'b' * 9000)
os.setxattr(m + '/idir', 'user.mid', b'm' * 600)
for i in range(25):
    os.setxattr(m + '/d2', 'user.attr%02d' % i, b'v%d' % i)
EOF
	umount "$mnt"
	# /d3 spills into its system.data value
	$DEBUGFS -R "stat /d3" "$kimg" 2>/dev/null |
		grep -q "system.data ([1-9]" &&
		ok "kernel: an inline directory in system.data" ||
		fail "kernel: /d3 has nothing in system.data"
	check "$kimg" "kernel"
	# pass 2 edits the system.data part: an entry's inode out of range
	d3=$($DEBUGFS -R "stat /d3" "$kimg" 2>/dev/null |
		sed -n 's/^Inode: \([0-9]*\).*/\1/p')
	loc=$($DEBUGFS -R "imap <$d3>" "$kimg" 2>/dev/null |
		sed -n 's/.*block \([0-9]*\), offset 0x\([0-9a-f]*\).*/\1 \2/p')
	python3 - "$kimg" $loc <<'EOF' || fail "kernel: editing /d3"
import struct, sys
img, blk, off = sys.argv[1], int(sys.argv[2]), int(sys.argv[3], 16)
with open(img, 'r+b') as f:
    f.seek(blk * 1024 + off)
    raw = bytearray(f.read(256))
    at = raw.find(b'longname3')
    assert at > 160
    struct.pack_into('<I', raw, at - 8, 999999)
    f.seek(blk * 1024 + off)
    f.write(raw)
EOF
	run_to "$tmpdir/fy.log" $FSCK -fy "$kimg"
	grep -q "in /d3 .* out of range" "$tmpdir/fy.log" && [ "$rc" -eq 1 ] &&
		$E2FSCK -fn "$kimg" >/dev/null 2>&1 &&
		ok "kernel: an entry in system.data repaired, e2fsck clean" ||
		{ fail "kernel: repair in system.data"; cat "$tmpdir/fy.log"; }
else
	echo "kernel part skipped: no loop mount"
fi
finish
