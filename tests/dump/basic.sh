# SPDX-License-Identifier: GPL-2.0-or-later
# extkit-dump on a small ext2 image: every command in text and JSON (the
# JSON checked by a parser), dirblock records against debugfs, names that
# need escaping, and bad arguments (exit 1, one line on stderr).

. "${top_srcdir:-.}/tests/lib.sh"
need_dump
need_tools mke2fs debugfs python3

$SHELL "$top_srcdir/tests/mkimages.sh" "$tmpdir/img" small >/dev/null ||
	exit $?
img=$tmpdir/img/small.img
tree=$tmpdir/img/tree-small
out=$tmpdir/out
err=$tmpdir/err

# debugfs_ls DIR: "inode name" lines from debugfs ls -p (raw names),
# without the inode-0 records debugfs lists too.
debugfs_ls() {
	"$DEBUGFS" -R "ls -p $1" "$img" 2>/dev/null |
		awk -F/ 'NF >= 7 && $2 != 0 { print $2, $6 }'
}

# py SCRIPT ARGS...: runs a python check; it prints its findings.
py() {
	_s=$1
	shift
	python3 -c "$_s" "$@"
}

check_version_help() {
	if expect_success "--version" --version &&
	   grep -qx 'extkit-dump [0-9][0-9.]*' "$out"; then
		ok "--version prints 'extkit-dump <version>'"
	else
		fail "--version output: $(cat "$out")"
	fi
	if expect_success "--help" --help &&
	   grep -q -- '--json' "$out" && grep -q -- '-x' "$out"; then
		ok "--help lists --json and -x"
	else
		fail "--help output lacks --json or -x"
	fi
	expect_success "ls --help" "$img" ls --help &&
		grep -q -- '--long' "$out" && ok "ls --help lists -l" ||
		fail "ls --help lacks -l"
}

check_super() {
	expect_success "super (default command, text)" "$img" || return
	for pat in 'Block count: *4096$' 'Inode count: *512$' \
		'Block size: *1024$' 'Filesystem volume name: *small$' \
		'Filesystem UUID: *5a11e000-0000-4000-8000-000000000001$' \
		'Filesystem features:.* filetype' 'Free blocks: *[0-9]' \
		'Free inodes: *[0-9]'; do
		if grep -q "^$pat" "$out"; then
			ok "super text has /$pat/"
		else
			fail "super text lacks /$pat/"
		fi
	done
	expect_success "super --json" --json "$img" super || return
	py 'import json, sys
d = json.load(open(sys.argv[1]))
want = {"blocks_count": 4096, "inodes_count": 512, "block_size": 1024,
        "volume_name": "small", "log_block_size": 0, "magic": 0xEF53,
        "uuid": "5a11e000-0000-4000-8000-000000000001", "group_count": 1,
        "inode_size": 256}
bad = [k for k, v in want.items() if d.get(k) != v]
assert not bad, "wrong or missing: %s" % bad
assert "filetype" in d["features"], d["features"]
assert len(d["hash_seed"]) == 36, "hash_seed is a UUID string"
assert d["state_names"] == ["clean"] and d["errors_name"] == "continue", d
assert d["wtime_iso"].endswith("Z") and "wtime_hi" not in d, d
' "$out" && ok "super --json: counts, uuid, label, derived keys" ||
		fail "super --json content"
}

check_groups() {
	expect_success "groups (text)" "$img" groups || return
	grep -q '^Group 0: (Blocks 1-4095)' "$out" &&
		grep -q 'Block bitmap at [0-9]' "$out" &&
		ok "groups text shows group 0" || fail "groups text"
	expect_success "groups --json" "$img" groups --json || return
	py 'import json, sys
g = json.load(open(sys.argv[1]))["groups"]
assert len(g) == 1 and g[0]["has_super"] is True, g
for k in ("block_bitmap", "inode_bitmap", "inode_table", "free_blocks_count",
          "free_inodes_count", "used_dirs_count", "flags"):
    assert isinstance(g[0][k], int), k
' "$out" && ok "groups --json fields" || fail "groups --json"
}

# ls DIR in text, text -l and JSON against debugfs ls -p.
check_ls_dir() {
	debugfs_ls "$1" >"$tmpdir/want"
	expect_success "ls $1" "$img" ls "$1" || return
	if cmp -s "$out" "$tmpdir/want"; then
		ok "ls $1 = debugfs ls ($(wc -l <"$out") entries)"
	else
		fail "ls $1 differs from debugfs:"
		diff "$tmpdir/want" "$out" | head -10
	fi
	expect_success "ls -l $1" "$img" ls -l "$1" &&
		sed 's/ -> .*//' "$out" | awk '{ print $1, $NF }' \
			>"$tmpdir/got-l" &&
		cmp -s "$tmpdir/got-l" "$tmpdir/want" &&
		ok "ls -l $1 names match" || fail "ls -l $1"
	expect_success "ls --json $1" --json "$img" ls "$1" || return
	py 'import json, sys
d = json.load(open(sys.argv[1]))
got = ["%d %s" % (e["inode"], e["name"]) for e in d["entries"]]
want = open(sys.argv[2]).read().splitlines()
assert got == want, (got, want)
for e in d["entries"]:
    assert e["name_len"] == len(e["name"].encode()), e
    assert e["rec_len"] >= 8 + e["name_len"], e
' "$out" "$tmpdir/want" && ok "ls --json $1 = debugfs ls" ||
		fail "ls --json $1"
}

# Names with quotes, backslashes, controls and bad UTF-8 survive JSON.
check_names() {
	expect_success "ls --json /names" --json "$img" ls /names || return
	json_valid "$out" || { fail "ls --json /names: invalid JSON"; return; }
	py 'import json, os, sys
def fold(b):
    # extkit writes a byte that is not UTF-8 as \u00XX
    return b.decode("utf-8", "surrogateescape").encode(
        "utf-8", "surrogateescape").decode("utf-8", "surrogateescape")
d = json.load(open(sys.argv[1]))
got = sorted(e["name"] for e in d["entries"] if e["name"] not in (".", ".."))
want = []
for n in os.listdir(os.fsencode(sys.argv[2])):
    s = n.decode("utf-8", "surrogateescape")
    want.append("".join(chr(ord(c) - 0xDC00) if 0xDC80 <= ord(c) <= 0xDCFF
                        else c for c in s))
assert got == sorted(want), (got, sorted(want))
' "$out" "$tree/names" && ok "JSON names escaped and round-trip" ||
		fail "JSON names"
	expect_success "ls /names (text)" "$img" ls /names &&
		[ "$(wc -l <"$out")" -eq 9 ] &&
		grep -q 'nl\\012name' "$out" &&
		grep -q 'bad\\377\\376$' "$out" &&
		grep -q 'back\\134\\134slash$' "$out" &&
		grep -q "caf$(printf '\303\251')\$" "$out" &&
		ok "text ls: newline, bad UTF-8, backslash escaped; UTF-8 kept" ||
		fail "text ls of /names: $(cat "$out")"
}

check_stat() {
	expect_success "stat /hello.txt" "$img" stat /hello.txt &&
		grep -q '^Size: *12$' "$out" && grep -q '^Links: *2$' "$out" &&
		grep -q '^Type: *regular$' "$out" &&
		ok "stat text: size 12, 2 links, regular" ||
		fail "stat text: $(head -5 "$out")"
	expect_success "stat --json <2>" --json "$img" stat '<2>' &&
		py 'import json, sys
d = json.load(open(sys.argv[1]))
assert d["inode"] == 2 and d["type"] == "directory", d
assert d["mode"] & 0o170000 == 0o040000, d["mode"]
assert d["map_kind"] == "indirect", d["map_kind"]
assert len(d["i_block"]) == 15 and d["path"] == "/", d
' "$out" && ok "stat --json <2>: root directory" ||
		fail "stat --json <2>"
	expect_success "stat --json /link" --json "$img" stat /link &&
		py 'import json, sys
d = json.load(open(sys.argv[1]))
assert d["type"] == "symlink" and d["fast_link_target"] == "hello.txt", d
' "$out" && ok "stat of a fast symlink shows its target" ||
		fail "stat /link"
}

check_blocks() {
	want=$("$DEBUGFS" -R "blocks /sub/twenty" "$img" 2>/dev/null)
	expect_success "blocks -m /sub/twenty" "$img" blocks -m /sub/twenty &&
		[ "$(cat "$out")" = "$want" ] &&
		ok "blocks -m = debugfs blocks: $want" ||
		fail "blocks -m: '$(cat "$out")' vs debugfs '$want'"
	expect_success "blocks /sub/twenty" "$img" blocks /sub/twenty &&
		[ "$(wc -w <"$out")" -eq 20 ] &&
		ok "blocks: 20 data blocks, indirect block left out" ||
		fail "blocks: $(cat "$out")"
	expect_success "blocks -x" -x "$img" blocks /sub/twenty &&
		py 'import sys
h = open(sys.argv[1]).read().split()
d = sys.argv[2].split()
assert all(x.startswith("0x") for x in h)
assert [str(int(x, 16)) for x in h] == [x for x in d if x in
    [str(int(y, 16)) for y in h]]
assert len(h) == 20
' "$out" "$want" && ok "blocks -x prints the numbers in hex" ||
		fail "blocks -x"
	expect_success "blocks --json" --json "$img" blocks /sub/twenty &&
		py 'import json, sys
d = json.load(open(sys.argv[1]))["files"]
assert len(d) == 1, d
d = d[0]
assert len(d["physical_blocks"]) == 20 and d["path"] == "/sub/twenty", d
' "$out" && ok "blocks --json" || fail "blocks --json"
	expect_success "blocks of 3 paths" --json "$img" blocks / /empty \
		/hello.txt && py 'import json, sys
d = json.load(open(sys.argv[1]))["files"]
assert [f["path"] for f in d] == ["/", "/empty", "/hello.txt"]
assert [len(f["physical_blocks"]) for f in d] == [1, 0, 1], d
' "$out" && ok "blocks of several paths" || fail "blocks, several paths"
}

# The records of every block of /dir, in order, are debugfs' listing; each
# block's chain covers the block exactly.
check_dirblock() {
	nblk=$(( $(py 'import json, sys
print(json.load(open(sys.argv[1]))["size"])' "$1") / 1024 ))
	: >"$tmpdir/all"
	n=0
	while [ $n -lt "$nblk" ]; do
		expect_success "dirblock --json /dir $n" --json "$img" \
			dirblock /dir $n || return
		py 'import json, sys
d = json.load(open(sys.argv[1]))
end = 0
out = open(sys.argv[2], "a")
for r in d["records"]:
    assert r["offset"] == end, (r, end)
    end += r["rec_len"]
    assert r["kind"] in ("live", "empty"), r
    if r["kind"] == "live":
        out.write("%d %s\n" % (r["inode"], r["name"]))
        assert r["slack"] == r["rec_len"] - ((8 + r["name_len"] + 3) & ~3), r
assert end == 1024, end
' "$out" "$tmpdir/all" || { fail "dirblock /dir $n chain"; return; }
		n=$((n + 1))
	done
	debugfs_ls /dir >"$tmpdir/want"
	if cmp -s "$tmpdir/all" "$tmpdir/want"; then
		ok "dirblock records of $nblk blocks = debugfs ls /dir"
	else
		fail "dirblock records differ from debugfs ls /dir"
		diff "$tmpdir/want" "$tmpdir/all" | head
	fi
	expect_success "dirblock /dir 0 (text)" "$img" dirblock /dir 0 &&
		grep -q '^ *0 .* live *\.$' "$out" &&
		grep -q '^ *12 .* live *\.\.$' "$out" &&
		ok "dirblock text shows . and .." || fail "dirblock text"
}

# Deleting the first entry of block 1 leaves an inode-0 record there.
check_deleted() {
	run_dump "$out" "$err" --json "$img" dirblock /dir 1
	victim=$(py 'import json, sys
print(json.load(open(sys.argv[1]))["records"][0]["name"])' "$out") ||
		{ fail "no record in /dir block 1"; return; }
	"$DEBUGFS" -w -R "unlink /dir/$victim" "$img" >/dev/null 2>&1
	expect_success "dirblock after unlink" --json "$img" dirblock /dir 1 &&
		py 'import json, sys
r = json.load(open(sys.argv[1]))["records"][0]
assert r["kind"] == "empty" and r["inode"] == 0 and r["offset"] == 0, r
' "$out" && ok "unlinked first entry of block 1 is an empty record" ||
		fail "dirblock after unlink"
	check_ls_dir /dir
}

check_bad_args() {
	expect_fail_one_line "no arguments"
	expect_fail_one_line "unknown option" --bogus "$img"
	expect_fail_one_line "unknown command" "$img" frobnicate
	expect_fail_one_line "stat without PATH" "$img" stat
	expect_fail_one_line "blocks without PATH" "$img" blocks
	expect_fail_one_line "dirblock without N" "$img" dirblock /dir
	expect_fail_one_line "stat with two paths" "$img" stat /a /b
	expect_fail_one_line "groups with an argument" "$img" groups x
	expect_fail_one_line "-l on stat" "$img" stat -l /hello.txt
	expect_fail_one_line "ls of a missing path" "$img" ls /nonexistent
	expect_fail_one_line "stat of a missing path" "$img" stat /no/such
	expect_fail_one_line "blocks of a missing path" "$img" blocks /nope
	expect_fail_one_line "ls of a file" "$img" ls /hello.txt
	expect_fail_one_line "dirblock of a file" "$img" dirblock /hello.txt 0
	expect_fail_one_line "dirblock N not a number" "$img" dirblock /dir x1
	expect_fail_one_line "dirblock N past the end" "$img" dirblock / 99
	expect_fail_one_line "stat <0>" "$img" stat '<0>'
	expect_fail_one_line "stat <huge>" "$img" stat '<4294967295>'
	expect_fail_one_line "missing image" "$tmpdir/no-such.img"
	expect_fail_one_line "a directory as image" "$tmpdir"
}

check_all_json() {
	for args in "super" "groups" "ls -l /sub" "stat /sub/twenty" \
		"blocks -m /sub/frag" "dirblock / 0"; do
		# shellcheck disable=SC2086
		if run_dump "$out" "$err" --json "$img" $args &&
		   json_valid "$out"; then
			ok "--json $args: valid JSON"
		else
			fail "--json $args: invalid JSON or failure"
		fi
	done
}

check_version_help
check_super
check_groups
check_ls_dir /
check_ls_dir /dir
check_ls_dir /sub/inner
check_ls_dir /fragdir
check_names
check_stat
check_blocks
expect_success "stat --json /dir" --json "$img" stat /dir &&
	cp "$out" "$tmpdir/dirstat" && check_dirblock "$tmpdir/dirstat"
check_all_json
check_bad_args
check_deleted

# ls without a path lists /, as debugfs does.
"$DUMP" "$img" ls >"$tmpdir/ls1" 2>&1
"$DUMP" "$img" ls / >"$tmpdir/ls2" 2>&1
cmp -s "$tmpdir/ls1" "$tmpdir/ls2" && [ -s "$tmpdir/ls1" ] &&
	ok "ls without a path lists /" || fail "ls without a path"

# A mounted filesystem: shown, with a warning that it may be stale.
if [ "$(id -u)" -eq 0 ] && mkdir "$tmpdir/mnt" &&
   mount -o loop,ro "$img" "$tmpdir/mnt" 2>/dev/null; then
	"$DUMP" "$img" >/dev/null 2>"$tmpdir/err"
	rc=$?
	umount "$tmpdir/mnt"
	[ $rc -eq 0 ] && grep -q 'warning: .* is mounted on .*stale' \
		"$tmpdir/err" && ok "mounted: a warning that it may be stale" ||
		fail "mounted: exit $rc, $(cat "$tmpdir/err")"
fi
finish
