#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# mke2fs's habits where they protect data (issue 33), each next to what
# mke2fs does on the same arguments:
#  - -F with SIZE smaller than the file makes a filesystem of SIZE and
#    leaves the file's length and every byte past SIZE;
#  - -n on an existing filesystem, without -F, prints the layout with the
#    superblock backups mke2fs -n lists, and changes nothing;
#  - a failed -d (missing source, an attribute too large, an ACL entry
#    naming nobody known here) leaves no new file, and an existing one
#    unchanged; the error names the path and the attribute;
#  - named ACL entries from an archive with names only (GNU tar's text)
#    keep their users and groups, looked up here;
#  - 128-byte inodes get mke2fs's deprecation warning, on stdout, as
#    mke2fs (and not with -T hurd, whose profile turns it off);
#  - Lifetime writes (s_kbytes_written): 0 where mke2fs leaves it 0, else
#    within a quarter of mke2fs's count; extkit-fsck adds what a repair
#    wrote; extkit-label -L adds nothing, as tune2fs -L.
. "${top_srcdir:-.}/tests/lib.sh"
. "$top_srcdir/tests/mkfs/mkfs-lib.sh"
need_tools e2fsck dumpe2fs mke2fs debugfs python3

MKE2FS_CONFIG=$top_srcdir/tests/mkfs/mke2fs-1.47.4.conf
export MKE2FS_CONFIG
FSCK=$top_builddir/extkit-fsck
LABEL=$top_builddir/extkit-label
img=$tmpdir/a.img
ref=$tmpdir/b.img

# ---- -F never shrinks a file
head -c $((40 << 20)) /dev/urandom >"$img"
cp "$img" "$ref"
tail_before=$(tail -c $((24 << 20)) "$img" | sha256sum)
if run_mkfs "$tmpdir/out" "$tmpdir/err" -q -F "$img" 16M &&
   "$MKE2FS" -q -F "$ref" 16M >/dev/null 2>&1; then
	fsck_clean "-F 16M over 40 MiB" "$img"
	[ "$(sb_field "$img" 'Block count')" = "$(sb_field "$ref" 'Block count')" ] ||
		fail "-F 16M: $(sb_field "$img" 'Block count') blocks, mke2fs $(sb_field "$ref" 'Block count')"
	if [ "$(stat -c %s "$img")" = $((40 << 20)) ] &&
	   [ "$(stat -c %s "$ref")" = $((40 << 20)) ] &&
	   [ "$(tail -c $((24 << 20)) "$img" | sha256sum)" = "$tail_before" ]; then
		ok "-F 16M over a 40 MiB file: 40 MiB kept (as mke2fs), the 24 MiB past SIZE unchanged"
	else
		fail "-F 16M over 40 MiB: size $(stat -c %s "$img") (mke2fs $(stat -c %s "$ref")), or the bytes past SIZE changed"
	fi
else
	fail "-F 16M over 40 MiB: $(cat "$tmpdir/err")"
fi

# ---- -n on an existing filesystem, without -F
rm -f "$img"
run_mkfs "$tmpdir/out" "$tmpdir/err" -q -t ext4 "$img" 200M ||
	fail "ext4 200M: $(cat "$tmpdir/err")"
before=$(sha "$img")
run_mkfs "$tmpdir/out" "$tmpdir/err" -n -t ext4 -b 1024 "$img"
rc=$?
got=$(sed -n 's/^superblock backups: *//p' "$tmpdir/out")
want=$("$MKE2FS" -n -t ext4 -b 1024 "$img" 2>/dev/null </dev/null |
	sed -n '/^Superblock backups/{n;p;}' | tr -d '\t ' | tr ',' ' ')
if [ $rc = 0 ] && [ "$(sha "$img")" = "$before" ] && [ -n "$got" ] &&
   [ "$got" = "$want" ]; then
	ok "-n without -F on an ext4 filesystem: exit 0, unchanged, backups $got as mke2fs -n"
else
	fail "-n without -F: exit $rc, backups '$got' (mke2fs -n: '$want'): $(cat "$tmpdir/err")"
fi

# ---- a failed -d leaves nothing behind
# fails_clean DESC PATTERN ARGS...: exit 1, the message matches PATTERN,
# no image left.
fails_clean() {
	_d=$1
	_p=$2
	shift 2
	rm -f "$img"
	run_mkfs "$tmpdir/out" "$tmpdir/err" -q "$@" "$img" 16M
	_rc=$?
	if [ $_rc = 1 ] && [ ! -e "$img" ] && grep -q "$_p" "$tmpdir/err"; then
		ok "$_d: exit 1, no file left: $(cat "$tmpdir/err")"
	else
		fail "$_d: exit $_rc, $(ls "$img" 2>/dev/null || echo 'no file'): $(cat "$tmpdir/err")"
	fi
}
fails_clean "-d a missing source" "^extkit-mkfs: -d $tmpdir/none: No such file" \
	-d "$tmpdir/none"
cp "$ref" "$img.keep"
before=$(sha "$img.keep")
run_mkfs "$tmpdir/out" "$tmpdir/err" -q -F -d "$tmpdir/none" "$img.keep" 16M
[ $? = 1 ] && [ "$(sha "$img.keep")" = "$before" ] &&
	ok "-F -d a missing source over a file: refused before writing" ||
	fail "-F -d a missing source: the file changed"

# mktar FILE PAX-HEADERS-AS-PYTHON: an archive of one file, f.
mktar() {
	python3 - "$1" "$2" <<'EOF'
import io, sys, tarfile
t = tarfile.open(sys.argv[1], 'w', format=tarfile.PAX_FORMAT)
i = tarfile.TarInfo('f')
i.size = 3
i.pax_headers = eval(sys.argv[2])
t.addfile(i, io.BytesIO(b'hi\n'))
t.close()
EOF
}
mktar "$tmpdir/big.tar" "{'SCHILY.xattr.user.small': 'b', 'SCHILY.xattr.user.big': 'a' * 5000}"
fails_clean "-d an attribute too large" \
	"f: attribute user.big (5000 bytes): the attributes do not fit" \
	-b 1024 -d "$tmpdir/big.tar"

# ---- named ACL entries keep their ids (names looked up here)
u=$(awk -F: '$3 > 0 && $3 < 60000 { print $1 ":" $3; exit }' /etc/passwd)
g=$(awk -F: '$3 > 0 && $3 < 60000 { print $1 ":" $3; exit }' /etc/group)
if [ -n "$u" ] && [ -n "$g" ]; then
	mktar "$tmpdir/acl.tar" "{'SCHILY.acl.access': 'user::rw-,user:${u%%:*}:rwx,group::r--,group:${g%%:*}:r-x,group:4321:r--,mask::rwx,other::r--'}"
	rm -f "$img"
	if run_mkfs "$tmpdir/out" "$tmpdir/err" -q -d "$tmpdir/acl.tar" "$img" 16M &&
	   fsck_clean "ACL names" "$img"; then
		# debugfs shows the xattr form: version 2, then tag (2 user,
		# 8 group), perm, id (0 where the entry has none)
		"$DEBUGFS" -R "ea_get /f system.posix_acl_access" "$img" \
			>"$tmpdir/acl" 2>/dev/null
		v=$(sed -n 's/.*posix_acl_access ([0-9]*) = //p' "$tmpdir/acl")
		want=$(python3 -c 'import sys, struct
def e(tag, perm, i=0):
    return struct.pack("<HHI", tag, perm, i)
v = struct.pack("<I", 2) + e(1, 6) + e(2, 7, int(sys.argv[1])) + e(4, 4) + \
    e(8, 5, int(sys.argv[2])) + e(8, 4, 4321) + e(16, 7) + e(32, 4)
print(" ".join("%02x" % b for b in v), end=" ")' "${u#*:}" "${g#*:}")
		[ "$v" = "$want" ] &&
			ok "ACL user:${u%%:*} and group:${g%%:*} from names: ids ${u#*:}, ${g#*:} (and 4321 by number)" ||
			fail "ACL ids: '$v', want '$want'"
	else
		fail "ACL names: $(cat "$tmpdir/err")"
	fi
fi
mktar "$tmpdir/acl2.tar" "{'SCHILY.acl.access': 'user::rw-,user:nosuchuser4x:rwx,group::r--,mask::rwx,other::r--'}"
fails_clean "-d an ACL naming an unknown user" \
	"f: ACL entry user:nosuchuser4x: no such user" -d "$tmpdir/acl2.tar"

# ---- 128-byte inodes: mke2fs's warning
for args in "-I 128" "-t ext4 -I 128" "-T hurd" "-I 256" ""; do
	rm -f "$img" "$ref"
	# shellcheck disable=SC2086
	run_mkfs "$tmpdir/out" "$tmpdir/err" -q $args "$img" 16M
	# shellcheck disable=SC2086
	"$MKE2FS" -q $args "$ref" 16M 2>/dev/null | grep -v '^Creating' \
		>"$tmpdir/mout"
	if cmp -s "$tmpdir/out" "$tmpdir/mout" && [ ! -s "$tmpdir/err" ]; then
		ok "-q ${args:-(defaults)}: stdout as mke2fs's ($(wc -l <"$tmpdir/out") lines)"
	else
		fail "-q $args: stdout '$(cat "$tmpdir/out")', mke2fs '$(cat "$tmpdir/mout")'"
	fi
done

# ---- Lifetime writes
kb() {
	"$DUMPE2FS" -h "$1" 2>/dev/null |
		awk '/^Lifetime writes:/ { n = $3; if ($4 == "MB") n *= 1024;
			if ($4 == "GB") n *= 1048576; print n; exit }
		     END { if (!NR) print 0 }'
}
for args in "-t ext2" "-t ext4" "-t ext4 -b 1024 -d $top_srcdir/lib"; do
	rm -f "$img" "$ref"
	# shellcheck disable=SC2086
	run_mkfs "$tmpdir/out" "$tmpdir/err" -q $args "$img" 256M
	# shellcheck disable=SC2086
	"$MKE2FS" -q $args "$ref" 256M >/dev/null 2>&1
	a=$(kb "$img")
	b=$(kb "$ref")
	a=${a:-0}
	b=${b:-0}
	if { [ "$b" = 0 ] && [ "$a" = 0 ]; } ||
	   { [ "$b" -gt 0 ] && [ $((a * 4)) -ge $((b * 3)) ] &&
	     [ $((a * 4)) -le $((b * 5)) ]; }; then
		ok "$args: Lifetime writes $a kB (mke2fs $b kB)"
	else
		fail "$args: Lifetime writes $a kB, mke2fs $b kB"
	fi
done
rm -f "$img"
run_mkfs "$tmpdir/out" "$tmpdir/err" -q -t ext4 "$img" 64M
k0=$(kb "$img")
"$LABEL" "$img" newname >/dev/null 2>&1
k1=$(kb "$img")
"$DEBUGFS" -w -R "set_inode_field <11> links_count 5" "$img" >/dev/null 2>&1
"$FSCK" -fy "$img" >/dev/null 2>&1
k2=$(kb "$img")
if [ "$k0" -gt 0 ] && [ "$k1" = "$k0" ] && [ "$k2" -gt "$k1" ]; then
	ok "Lifetime writes: mkfs $k0 kB, after extkit-label -L $k1 kB (as tune2fs), after a repair $k2 kB"
else
	fail "Lifetime writes: mkfs $k0, label $k1, repair $k2"
fi
fsck_clean "after the label and the repair" "$img"
finish
