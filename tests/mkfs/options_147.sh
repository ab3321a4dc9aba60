#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# mke2fs 1.47.4's other options (issue 33), each against mke2fs on the
# same arguments (fixed UUID and hash seed; e2fsprogs 1.47.4's
# mke2fs.conf): the whole dumpe2fs report is the same but for times and
# Lifetime writes, and e2fsck -fn is clean:
#  - -o creator-os (linux, hurd (ext2 without filetype, its profile
#    type), freebsd, a number), its refusals, [defaults] creator_os;
#  - -E revision=0|1 (1.47.4's spelling of -r);
#  - -M last-mounted-dir; -E test_fs; -E desc_size= (64bit: 128 to
#    1024, with meta_bg too; refused without 64bit); -E assume_storage_prezeroed (every
#    inode table flagged zeroed, nothing zeroed);
#  - the profile's options relation (extended options per type), with
#    -E given after it winning; its errors, hash_alg (with -d, whose
#    directories hash by it), enable_periodic_fsck and default_mntopts;
#  - -E root_perms= (1.47.1 and later: with an older mke2fs the root's
#    mode is checked by itself), with and without -d;
#  - -E no_copy_xattrs: -d copies no attribute;
#  - -d -: a tar archive on standard input makes the same bytes as the
#    archive file (SOURCE_DATE_EPOCH), compressed too; not from a
#    terminal; junk on standard input leaves no file;
#  - -S, the recovery idiom: on a filesystem whose every superblock and
#    descriptor block was zeroed, -S with the old UUID (which seeds the
#    checksums) changes only superblocks and descriptor blocks, and
#    e2fsck -fy then gives back every file (debugfs rdump equal to the
#    source tree); -S on a missing target is refused.
. "${top_srcdir:-.}/tests/lib.sh"
. "$top_srcdir/tests/mkfs/mkfs-lib.sh"
need_tools e2fsck dumpe2fs mke2fs debugfs python3 tar

MKE2FS_CONFIG=$top_srcdir/tests/mkfs/mke2fs-1.47.4.conf
export MKE2FS_CONFIG
img=$tmpdir/a.img
ref=$tmpdir/b.img

# report IMAGE: dumpe2fs and the root's mode, less what differs on purpose
report() {
	"$DUMPE2FS" "$1" 2>/dev/null |
		grep -v '^Lifetime writes:\|^Checksum:\|time:\|^Last checked:\|^Filesystem created:\|^Journal features:\|^Journal checksum'
	"$DEBUGFS" -R "stat /" "$1" 2>/dev/null | grep -o 'Mode: *[0-7]*'
}

# same DESC ARGS...: both tools with ARGS on 64 MiB; equal reports.
same() {
	_d=$1
	shift
	rm -f "$img" "$ref"
	if ! run_mkfs "$tmpdir/out" "$tmpdir/err" -q -U "$TEST_UUID" "$@" \
			"$img" 64M; then
		fail "$_d: extkit-mkfs: $(cat "$tmpdir/err")"
		return 1
	fi
	if ! "$MKE2FS" -q -F -U "$TEST_UUID" "$@" "$ref" 64M \
			>"$tmpdir/mout" 2>&1; then
		fail "$_d: mke2fs: $(head -1 "$tmpdir/mout")"
		return 1
	fi
	fsck_clean "$_d" "$img" || return 1
	report "$ref" >"$tmpdir/ref.txt"
	report "$img" >"$tmpdir/img.txt"
	uninit_147 "$tmpdir/ref.txt" "$tmpdir/img.txt"
	if diff -u "$tmpdir/ref.txt" "$tmpdir/img.txt" >"$tmpdir/diff"; then
		ok "$_d: as mke2fs$(grep -q '\[.*ITABLE_ZEROED' "$tmpdir/img.txt" && echo ', tables flagged zeroed')"
	else
		fail "$_d: differs from mke2fs (-)"
		head -16 "$tmpdir/diff" | sed 's/^/    /'
		return 1
	fi
}

FIX=hash_seed=$TEST_SEED
same "-o linux" -t ext4 -o linux -E "$FIX"
if same "-o hurd" -o hurd -E "$FIX"; then
	[ "$(sb_field "$img" 'Filesystem OS type')" = Hurd ] &&
		ok "-o hurd: Hurd, features: $(sb_field "$img" 'Filesystem features')" ||
		fail "-o hurd: OS type $(sb_field "$img" 'Filesystem OS type')"
fi
same "-o hurd -t ext4 (the Hurd's features masked)" -o hurd -t ext4 -E "$FIX"
same "-o freebsd -t ext4" -t ext4 -o freebsd -E "$FIX"
same "-o 4 (Lites)" -t ext3 -o 4 -E "$FIX"
same "-M /srv/data" -t ext4 -M /srv/data -E "$FIX" &&
	[ "$(sb_field "$img" 'Last mounted on')" = /srv/data ] &&
	ok "-M: Last mounted on /srv/data"
same "-E test_fs" -t ext4 -E "$FIX,test_fs" &&
	sb_field "$img" 'Filesystem flags' | grep -q test_filesystem &&
	ok "-E test_fs: $(sb_field "$img" 'Filesystem flags')"
same "-E assume_storage_prezeroed" -t ext4 -E "$FIX,assume_storage_prezeroed"
same "-E assume_storage_prezeroed=1, 1 KiB blocks" -t ext4 -b 1024 \
	-E "$FIX,assume_storage_prezeroed=1"

same "-E desc_size=128" -t ext4 -E "$FIX,desc_size=128"
same "-E desc_size=1024, 4 KiB blocks" -t ext4 -b 4096 -E "$FIX,desc_size=1024"
same "-E desc_size=512 with meta_bg" -t ext4 -O meta_bg,^resize_inode \
	-E "$FIX,desc_size=512"

# -E revision=0: 1.47.4's spelling of -r 0 (which 1.47.4 refuses; 1.47.0
# has no -E revision=): against the mke2fs found's own spelling
for r in 0 1; do
	rm -f "$img" "$ref"
	if mke2fs_old_uninit; then
		rref="-r $r -E $FIX"
	else
		rref="-E $FIX,revision=$r"
	fi
	run_mkfs "$tmpdir/out" "$tmpdir/err" -q -U "$TEST_UUID" \
		-E "$FIX,revision=$r" "$img" 64M ||
		{ fail "-E revision: $(cat "$tmpdir/err")"; continue; }
	# shellcheck disable=SC2086
	"$MKE2FS" -q -F -U "$TEST_UUID" $rref "$ref" 64M >/dev/null 2>&1 ||
		{ fail "-E revision: mke2fs $rref failed"; continue; }
	fsck_clean "-E revision" "$img" || continue
	report "$ref" >"$tmpdir/ref.txt"
	report "$img" >"$tmpdir/img.txt"
	cmp -s "$tmpdir/ref.txt" "$tmpdir/img.txt" &&
		ok "-E revision=$r: as mke2fs $rref ($(sb_field "$img" 'Filesystem revision #'))" ||
		fail "-E revision=$r: differs from mke2fs $rref"
done

# refusals: unknown systems, features the Hurd lacks, -M too long
refused() {
	_d=$1
	_p=$2
	shift 2
	rm -f "$img"
	run_mkfs "$tmpdir/out" "$tmpdir/err" -q "$@" "$img" 16M
	_rc=$?
	if [ $_rc = 1 ] && [ ! -e "$img" ] && grep -q "$_p" "$tmpdir/err"; then
		ok "$_d: refused: $(cat "$tmpdir/err")"
	else
		fail "$_d: exit $_rc: $(cat "$tmpdir/err")"
	fi
}
refused "-o plan9" "unknown operating system" -o plan9
refused "-o hurd -O metadata_csum" "metadata_csum" -o hurd -O metadata_csum
refused "-M of 65 bytes" "longer than 64" -M "/$(printf '%064d' 0)"
refused "-E root_perms=9" "invalid octal mode" -E root_perms=9
refused "-E desc_size without 64bit" "needs the 64bit feature" -t ext4 \
	-O ^64bit -E desc_size=128
refused "-E desc_size=96" "not a power of two" -t ext4 -E desc_size=96

# the profile: [defaults] creator_os, and options per type
sed '/^\[defaults\]/a\
	creator_os = freebsd' "$MKE2FS_CONFIG" >"$tmpdir/os.conf"
MKE2FS_CONFIG=$tmpdir/os.conf same "[defaults] creator_os = freebsd" \
	-t ext4 -E "$FIX" &&
	[ "$(sb_field "$img" 'Filesystem OS type')" = FreeBSD ] &&
	ok "creator_os from the profile: FreeBSD"
sed 's/^\([[:space:]]*ext4 = {\)/\1\
		options = test_fs,lazy_itable_init=0,stride=4/' "$MKE2FS_CONFIG" \
	>"$tmpdir/opt.conf"
MKE2FS_CONFIG=$tmpdir/opt.conf same "ext4's options = test_fs,lazy_itable_init=0,stride=4" \
	-t ext4 -E "$FIX" &&
	[ "$(sb_field "$img" 'RAID stride')" = 4 ] &&
	ok "the profile's options: RAID stride 4, test_fs"
MKE2FS_CONFIG=$tmpdir/opt.conf same "the profile's options, then -E stride=8" \
	-t ext4 -E "$FIX,stride=8" &&
	[ "$(sb_field "$img" 'RAID stride')" = 8 ] &&
	ok "-E after the profile's options: RAID stride 8"

# the other relations mke2fs reads: errors, hash_alg,
# enable_periodic_fsck, default_mntopts (and -e over errors)
sed 's/^\([[:space:]]*ext4 = {\)/\1\
		errors = remount-ro\
		hash_alg = tea\
		enable_periodic_fsck = true\
		default_mntopts = acl,user_xattr,journal_data_writeback,^acl/' \
	"$MKE2FS_CONFIG" >"$tmpdir/rel.conf"
MKE2FS_CONFIG=$tmpdir/rel.conf same "errors, hash_alg, enable_periodic_fsck, default_mntopts" \
	-t ext4 -E "$FIX" &&
	ok "the profile's relations: $(sb_field "$img" 'Errors behavior'), $(sb_field "$img" 'Default directory hash'), $(sb_field "$img" 'Maximum mount count') mounts, options $(sb_field "$img" 'Default mount options')"
MKE2FS_CONFIG=$tmpdir/rel.conf same "the profile's errors, then -e panic" \
	-t ext4 -e panic -E "$FIX"
# an htree directory hashed by tea
mkdir -p "$tmpdir/big"
i=0
while [ $i -lt 600 ]; do
	: >"$tmpdir/big/file-with-a-longer-name-$i"
	i=$((i + 1))
done
rm -f "$img"
MKE2FS_CONFIG=$tmpdir/rel.conf run_mkfs "$tmpdir/out" "$tmpdir/err" -q \
	-t ext4 -d "$tmpdir/big" "$img" 16M &&
fsck_clean "hash_alg = tea with -d" "$img" &&
[ "$("$DEBUGFS" -R "htree /" "$img" 2>/dev/null | sed -n 's/.*Hash Version: \([0-9]*\).*/\1/p' | head -1)" = 2 ] &&
	ok "hash_alg = tea: -d's htree root says tea (2), e2fsck -fn clean" ||
	fail "hash_alg = tea with -d: $(cat "$tmpdir/err")"

# root_perms: 1.47.1 and later; else checked by itself
root_mode() {
	"$DEBUGFS" -R "stat /" "$1" 2>/dev/null |
		sed -n 's/.*Mode: *\([0-7]*\).*/\1/p'
}
mkdir -p "$tmpdir/src/sub"
echo hello >"$tmpdir/src/sub/f"
if mke2fs_old_uninit; then
	rm -f "$img"
	run_mkfs "$tmpdir/out" "$tmpdir/err" -q -t ext4 -E root_perms=0711 \
		"$img" 16M && fsck_clean "root_perms" "$img" &&
	[ "$(root_mode "$img")" = 0711 ] &&
		ok "-E root_perms=0711: the root is 0711" ||
		fail "-E root_perms=0711: the root is $(root_mode "$img")"
else
	same "-E root_perms=0711" -t ext4 -E "$FIX,root_perms=0711"
	same "-E root_perms=0700 with -d" -t ext4 \
		-E "$FIX,root_perms=0700" -d "$tmpdir/src"
fi
rm -f "$img"
run_mkfs "$tmpdir/out" "$tmpdir/err" -q -t ext4 -E root_perms=0750 \
	-d "$tmpdir/src" "$img" 16M && fsck_clean "root_perms -d" "$img" &&
[ "$(root_mode "$img")" = 0750 ] &&
	ok "-E root_perms=0750 -d DIR: the root is 0750" ||
	fail "-E root_perms=0750 -d DIR: the root is $(root_mode "$img")"

# no_copy_xattrs, from an archive with attributes
python3 - "$tmpdir/x.tar" <<'EOF' || exit 99
import io, sys, tarfile
t = tarfile.open(sys.argv[1], 'w', format=tarfile.PAX_FORMAT)
i = tarfile.TarInfo('f')
i.size = 3
i.pax_headers = {'SCHILY.xattr.user.a': 'value', 'SCHILY.xattr.trusted.b': 'x' * 300}
t.addfile(i, io.BytesIO(b'hi\n'))
t.close()
EOF
for e in "" ",no_copy_xattrs"; do
	rm -f "$img"
	run_mkfs "$tmpdir/out" "$tmpdir/err" -q -t ext4 -E "$FIX$e" \
		-d "$tmpdir/x.tar" "$img" 16M || fail "-d x.tar $e: $(cat "$tmpdir/err")"
	fsck_clean "-d x.tar $e" "$img"
	n=$("$DEBUGFS" -R "ea_list /f" "$img" 2>/dev/null | grep -c '^  ')
	case $e:$n in
	:2) ok "-d: both attributes copied" ;;
	,no_copy_xattrs:0) ok "-E no_copy_xattrs: no attribute copied" ;;
	*) fail "-E '$e': $n attributes" ;;
	esac
done

# -d -: standard input
tar -C "$tmpdir/src" -cf "$tmpdir/src.tar" . || exit 99
export SOURCE_DATE_EPOCH=1000000000
rm -f "$img" "$ref"
run_mkfs "$tmpdir/out" "$tmpdir/err" -q -U "$TEST_UUID" -E "$FIX" \
	-d "$tmpdir/src.tar" "$ref" 16M
timeout -k 5 "$TIMEOUT" "$MKFS" -q -U "$TEST_UUID" -E "$FIX" -d - "$img" \
	16M <"$tmpdir/src.tar" >"$tmpdir/out" 2>"$tmpdir/err"
rc=$?
if [ $rc = 0 ] && cmp -s "$img" "$ref" && fsck_clean "-d -" "$img" &&
   [ "$("$DEBUGFS" -R "cat /sub/f" "$img" 2>/dev/null)" = hello ]; then
	ok "-d - (a tar on standard input): the image of -d FILE, byte for byte"
else
	fail "-d -: exit $rc, $(cat "$tmpdir/err"), $(cmp "$img" "$ref" 2>&1)"
fi
rm -f "$img"
gzip -c "$tmpdir/src.tar" | timeout -k 5 "$TIMEOUT" "$MKFS" -q \
	-U "$TEST_UUID" -E "$FIX" -d - "$img" 16M 2>"$tmpdir/err"
cmp -s "$img" "$ref" && ok "-d - with a gzip-compressed tar: the same image" ||
	fail "-d - gzip: $(cat "$tmpdir/err")"
unset SOURCE_DATE_EPOCH
rm -f "$img"
echo junk | timeout -k 5 "$TIMEOUT" "$MKFS" -q -d - "$img" 16M \
	2>"$tmpdir/err"
rc=$?
[ $rc = 1 ] && [ ! -e "$img" ] && grep -q 'archive' "$tmpdir/err" &&
	ok "-d - of junk: exit 1, no file: $(cat "$tmpdir/err")" ||
	fail "-d - of junk: exit $rc, $(cat "$tmpdir/err")"
if command -v script >/dev/null 2>&1; then
	rm -f "$img"
	script -qec "$MKFS -q -d - $img 16M" /dev/null >"$tmpdir/err" 2>&1
	grep -q 'standard input is a terminal' "$tmpdir/err" && [ ! -e "$img" ] &&
		ok "-d - from a terminal: refused" ||
		fail "-d - from a terminal: $(cat "$tmpdir/err")"
fi
# -S: superblocks and descriptors only; e2fsck -fy finds the files
mkdir -p "$tmpdir/tree/d1/d2"
for n in 1 2 3 4 5 6 7 8 9; do
	head -c $((n * 7000)) /dev/urandom >"$tmpdir/tree/d1/f$n"
	echo "small $n" >"$tmpdir/tree/d1/d2/s$n"
done
rm -f "$img"
for args in "-t ext4" "-t ext4 -b 1024" "-t ext3" "-t ext2 -b 4096"; do
	rm -f "$img"
	# shellcheck disable=SC2086
	run_mkfs "$tmpdir/out" "$tmpdir/err" -q $args -d "$tmpdir/tree" \
		"$img" 64M || { fail "-S $args: mkfs: $(cat "$tmpdir/err")"; continue; }
	uuid=$(sb_field "$img" 'Filesystem UUID')
	# zero every superblock and descriptor block (the primary's too)
	python3 - "$img" "$(sb_field "$img" 'Block size')" \
		"$("$DUMPE2FS" "$img" 2>/dev/null | sed -n 's/.*superblock at \([0-9]*\), Group descriptors at \([0-9]*\)-\([0-9]*\).*/\1:\3/p' | tr '\n' ' ')" \
		<<'PY' || exit 99
import sys
img, bs, spans = sys.argv[1], int(sys.argv[2]), sys.argv[3].split()
with open(img, 'r+b') as f:
    for s in spans:
        a, b = (int(x) for x in s.split(':'))
        f.seek(a * bs)
        f.write(bytes((b - a + 1) * bs))
    if bs > 1024:
        f.seek(1024)
        f.write(bytes(1024))
PY
	cp "$img" "$tmpdir/before.img"
	# the old UUID (metadata_csum seeds every checksum with it)
	# shellcheck disable=SC2086
	run_mkfs "$tmpdir/out" "$tmpdir/err" -q -S -F -U "$uuid" $args "$img"
	rc=$?
	# the blocks that changed: superblocks and descriptors only
	changed=$(cmp -l "$tmpdir/before.img" "$img" | awk -v bs="$(sb_field "$img" 'Block size')" '{ print int(($1 - 1) / bs) }' | sort -un | tr '\n' ' ')
	allowed=" $("$DUMPE2FS" "$img" 2>/dev/null | sed -n 's/.*superblock at \([0-9]*\), Group descriptors at \([0-9]*\)-\([0-9]*\).*/\1 \3/p' | awk '{ for (b = $1; b <= $2; b++) print b }' | tr '\n' ' ') 0 "
	bad=
	for b in $changed; do
		case $allowed in *" $b "*) ;; *) bad="$bad $b" ;; esac
	done
	"$E2FSCK" -fy "$img" >"$tmpdir/fsck.out" 2>&1
	frc=$?
	rm -rf "$tmpdir/back"
	mkdir "$tmpdir/back"
	"$DEBUGFS" -R "rdump /d1 $tmpdir/back" "$img" >/dev/null 2>&1
	if [ $rc = 0 ] && [ -z "$bad" ] && [ $frc -le 1 ] &&
	   diff -r "$tmpdir/tree/d1" "$tmpdir/back/d1" >/dev/null &&
	   fsck_clean "-S $args, e2fsck -fy" "$img"; then
		ok "-S $args: only superblocks and descriptors written ($(echo $changed | wc -w) blocks); e2fsck -fy gives every file back"
	else
		fail "-S $args: exit $rc, blocks outside:${bad:- none}, e2fsck -fy $frc, tree $(diff -r "$tmpdir/tree/d1" "$tmpdir/back/d1" >/dev/null 2>&1 && echo same || echo differs)"
	fi
done
refused "-S on a missing target" "no such file" -S
finish
