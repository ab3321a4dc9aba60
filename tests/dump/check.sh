# SPDX-License-Identifier: GPL-2.0-or-later
# extkit-dump bmap, ncheck, icheck, imap, xattr against debugfs' on ext2 (indirect
# maps, 1 KiB blocks) and ext4 (extents, an unwritten extent) images
# with hard links, holes, xattr blocks and a subdirectory (issue 34):
#  - ncheck of every inode: the same (inode, path) pairs (debugfs writes
#    "//name" for an entry of the root; extkit-dump "/name");
#  - icheck of every block of the filesystem: the same owner or none;
#  - bmap of the logical blocks where maps change (and past the end);
#  - imap of inodes at both ends of the table;
#  - xattr against ea_list and ea_get (in-inode, EA block, EA inode,
#    system.data of inline data);
#  - the JSON of the three validates against the schema.

. "${top_srcdir:-.}/tests/lib.sh"
need_dump
need_tools mke2fs debugfs python3 setfattr

src=$tmpdir/src
mkdir -p "$src/d/e" || exit 99
(
	cd "$src" || exit 99
	head -c 300000 /dev/urandom >big && truncate -s 2M sparse &&
	printf mid | dd of=sparse bs=1 seek=900000 conv=notrunc 2>/dev/null &&
	printf x >small && ln small d/hard && ln small d/e/hard2 &&
	ln -s "$(printf 'y%.0s' $(seq 1 100))" slow && printf f >d/e/f &&
	setfattr -n user.v -v "$(printf 'v%.0s' $(seq 1 600))" big
) || exit 99

for kind in ext2 ext4; do
	img=$tmpdir/$kind.img
	case $kind in
	ext2) opts="-t ext2 -b 1024 -g 1024" ;;
	ext4) opts="-t ext4 -b 1024 -I 128" ;;
	esac
	# shellcheck disable=SC2086
	"$MKE2FS" -q -F $opts -d "$src" "$img" 4M >/dev/null 2>&1 ||
		{ fail "$kind: mke2fs"; continue; }
	if [ $kind = ext4 ]; then
		"$DEBUGFS" -w -R "fallocate /sparse 1500 1600" "$img" \
			>/dev/null 2>&1
	fi
	ninodes=$("$DUMP" --json "$img" super | python3 -c \
		'import json,sys; d=json.load(sys.stdin); print(d["inodes_count"], d["blocks_count"])')
	set -- $ninodes
	inodes=$(seq 1 "$1" | tr '\n' ' ')
	blocks=$(seq 0 $(($2 - 1)) | tr '\n' ' ')
	# ncheck
	# shellcheck disable=SC2086
	"$DEBUGFS" -R "ncheck $inodes" "$img" 2>/dev/null | sed 1d |
		sed 's|\t//|\t/|' | sort >"$tmpdir/want"
	# shellcheck disable=SC2086
	"$DUMP" "$img" ncheck $inodes | sed 1d | sort >"$tmpdir/got"
	if diff "$tmpdir/want" "$tmpdir/got" >/dev/null &&
	   grep -q 'd/e/hard2' "$tmpdir/got"; then
		ok "$kind: ncheck of all $1 inodes equals debugfs' ($(wc -l <"$tmpdir/got") names)"
	else
		fail "$kind: ncheck differs"; diff "$tmpdir/want" "$tmpdir/got" | head
	fi
	# icheck
	# shellcheck disable=SC2086
	"$DEBUGFS" -R "icheck $blocks" "$img" 2>/dev/null | sed 1d \
		>"$tmpdir/want"
	# shellcheck disable=SC2086
	"$DUMP" "$img" icheck $blocks | sed 1d >"$tmpdir/got"
	if diff "$tmpdir/want" "$tmpdir/got" >/dev/null; then
		ok "$kind: icheck of all $2 blocks equals debugfs' ($(grep -vc 'not found' "$tmpdir/got") owned)"
	else
		fail "$kind: icheck differs"; diff "$tmpdir/want" "$tmpdir/got" | head
	fi
	# bmap: the first blocks (direct, then indirect), the sparse file's
	# data and its unwritten run, and past the end; debugfs in one run
	bad=0 n=0
	: >"$tmpdir/cmds"
	for f in big sparse small slow d/e/f; do
		for l in 0 1 2 11 12 13 200 267 268 292 293 879 880 1500 1550 \
			1600 1601 2100 70000; do
			echo "bmap /$f $l" >>"$tmpdir/cmds"
		done
	done
	"$DEBUGFS" -f "$tmpdir/cmds" "$img" 2>/dev/null |
		grep -v '^debugfs:' >"$tmpdir/want"
	while read -r _ f l; do
		"$DUMP" "$img" bmap "$f" "$l"
	done <"$tmpdir/cmds" >"$tmpdir/got"
	n=$(wc -l <"$tmpdir/cmds")
	if diff "$tmpdir/want" "$tmpdir/got" >/dev/null; then
		ok "$kind: bmap equals debugfs' ($n lookups, $(grep -c uninit "$tmpdir/got") unwritten)"
	else
		fail "$kind: bmap differs"; diff "$tmpdir/want" "$tmpdir/got" | head -5
	fi
	# imap of every inode
	: >"$tmpdir/cmds"
	for i in $inodes; do
		echo "imap <$i>" >>"$tmpdir/cmds"
	done
	"$DEBUGFS" -f "$tmpdir/cmds" "$img" 2>/dev/null |
		grep -v '^debugfs:' >"$tmpdir/want"
	for i in $(seq 1 64) $(seq 900 1024); do
		"$DUMP" "$img" imap "<$i>"
	done >"$tmpdir/got"
	sed -n -e '/^Inode \([1-9]\|[1-5][0-9]\|6[0-4]\) /{N;p}' \
		-e '/^Inode \(9[0-9][0-9]\|10[0-2][0-9]\) /{N;p}' \
		"$tmpdir/want" >"$tmpdir/want2"
	if diff "$tmpdir/want2" "$tmpdir/got" >/dev/null &&
	   [ -s "$tmpdir/got" ]; then
		ok "$kind: imap equals debugfs' ($(grep -c '^Inode' "$tmpdir/got") inodes)"
	else
		fail "$kind: imap differs"; diff "$tmpdir/want2" "$tmpdir/got" | head -5
	fi
done

# xattr against ea_list/ea_get: the tree's files, an inline_data and
# ea_inode image (system.data, a 9000-byte value in an EA inode)
img=$tmpdir/xa.img
printf 'v%.0s' $(seq 1 9000) >"$tmpdir/huge"
"$MKE2FS" -q -F -t ext4 -I 256 -O inline_data,ea_inode -d "$src" "$img" 4M \
	>/dev/null 2>&1 || fail "mke2fs inline_data,ea_inode"
"$DEBUGFS" -w -R "ea_set -f $tmpdir/huge /small user.huge" "$img" \
	>/dev/null 2>&1
"$DEBUGFS" -w -R "ea_set /d/e/f user.bin 0x01020304" "$img" >/dev/null 2>&1
bad=0 n=0
for i in ext2 ext4 xa; do
	for f in big sparse small slow d d/e d/e/f d/hard; do
		n=$((n + 1))
		"$DEBUGFS" -R "ea_list /$f" "$tmpdir/$i.img" 2>/dev/null \
			>"$tmpdir/want"
		"$DUMP" "$tmpdir/$i.img" xattr "/$f" >"$tmpdir/got" 2>&1
		cmp -s "$tmpdir/want" "$tmpdir/got" || { bad=$((bad + 1))
			diff "$tmpdir/want" "$tmpdir/got" | head -4; }
	done
done
for a in "/small user.huge" "/big user.v" "/d/e/f user.bin"; do
	n=$((n + 1))
	# shellcheck disable=SC2086
	"$DEBUGFS" -R "ea_get $a" "$img" 2>/dev/null >"$tmpdir/want"
	# shellcheck disable=SC2086
	"$DUMP" "$img" xattr $a >"$tmpdir/got" 2>&1
	cmp -s "$tmpdir/want" "$tmpdir/got" || { bad=$((bad + 1))
		echo "ea_get $a differs"; }
done
# the shapes must be there: system.data, and a value in an EA inode
"$DUMP" "$img" xattr /d | grep -q '^  system.data (0)$' ||
	fail "no inline directory's system.data in the xattr image"
"$DUMP" --json "$img" xattr /small | grep -q '"value_inum": [1-9]' ||
	fail "no EA inode value in the xattr image"
[ $bad = 0 ] && ok "xattr equals ea_list and ea_get ($n inodes and values, EA inode and system.data among them)" ||
	fail "xattr differs from debugfs in $bad of $n"

# JSON against the schema
if python3 -c 'import jsonschema' 2>/dev/null; then
	if python3 - "$DUMP" "$top_srcdir/man/extkit-dump.schema.json" \
		"$tmpdir/ext4.img" <<'PY'
import json, subprocess, sys
import jsonschema
dump, schema, img = sys.argv[1:4]
s = json.load(open(schema))
bad = 0
for args, kind in ((["bmap", "/big", "3"], "bmap"),
                   (["bmap", "/sparse", "0"], "bmap"),
                   (["ncheck", "12", "13", "999"], "ncheck"),
                   (["icheck", "1", "400", "3000"], "icheck"),
                   (["imap", "/big"], "imap"), (["imap", "<1024>"], "imap"),
                   (["xattr", "/big"], "xattr_list"),
                   (["xattr", "/big", "user.v"], "xattr_list")):
    out = subprocess.run([dump, "--json", img] + args, check=True,
                         capture_output=True).stdout
    v = jsonschema.Draft202012Validator({"$ref": "#/$defs/" + kind,
                                         "$defs": s["$defs"]})
    errs = list(v.iter_errors(json.loads(out)))
    if errs or not jsonschema.Draft202012Validator(s).is_valid(
            json.loads(out)):
        print(args, errs[:2])
        bad += 1
sys.exit(bad)
PY
	then
		ok "bmap, ncheck, icheck, imap, xattr JSON validates against the schema"
	else
		fail "JSON of bmap/ncheck/icheck"
	fi
fi
finish
