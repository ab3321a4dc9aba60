# SPDX-License-Identifier: GPL-2.0-or-later
# A fresh user's trial of every tool on images made the way real systems
# make them: formatted by mke2fs 1.47 (MKE2FS, MKE2FS_CONFIG) and by
# extkit-mkfs, filled by the kernel on a loop mount
# (tests/interop/user_trial_tree.py), then, per image:
#   fsck-n   extkit-fsck -fn exits 0 and the image's sha256 is unchanged;
#            e2fsck -fn agrees (clean)
#   extract  extkit-dump extract of / gives the mounted tree (contents,
#            modes, owners, links, devices, xattrs and ACLs, mtimes)
#   cat/ls   extkit-dump cat of files and ls of directories against
#            debugfs (1.47.4 when built)
#   fsck-yD  extkit-fsck -fyD, then e2fsck -fn clean and the mounted tree
#            unchanged (inode flags and project ids included)
#   label    extkit-label LABEL and --uuid=random, then e2fsck -fn clean
#            and the kernel mounts it
# Snapshots (orphan_file with open-unlinked files, fast_commit after
# fsync) are copied while mounted: extkit-fsck -fy repairs one copy (and
# e2fsck -fn finds it clean), the kernel recovers another by mounting it,
# and the two mounted trees must agree.
# Not part of make check (minutes). Usage:
#   sh tests/interop/user_trial.sh [CASE...]    (KEEP=1 keeps the images)
# Prints a matrix: one line per case, one column per check.

. "${top_srcdir:-.}/tests/lib.sh"
need_dump
[ "$(id -u)" = 0 ] || skip "needs root for loop mounts"
E2SRC=${E2SRC:-/work/e2fsprogs-src}
MKE2FS=${MKE2FS:-$E2SRC/misc/mke2fs}
[ -x "$MKE2FS" ] || MKE2FS=mke2fs
E2FSCK=${E2FSCK:-$E2SRC/e2fsck/e2fsck}
[ -x "$E2FSCK" ] || E2FSCK=e2fsck
DEBUGFS=${DEBUGFS:-$E2SRC/debugfs/debugfs}
[ -x "$DEBUGFS" ] || DEBUGFS=debugfs
if [ -z "${MKE2FS_CONFIG:-}" ] && [ -f "$E2SRC/misc/mke2fs.conf.in" ]; then
	MKE2FS_CONFIG=$E2SRC/misc/mke2fs.conf.in
fi
export MKE2FS_CONFIG
FSCK=$top_builddir/extkit-fsck
MKFS=$top_builddir/extkit-mkfs
LABEL=$top_builddir/extkit-label
TREE=$top_srcdir/tests/interop/user_trial_tree.py
TIMEOUT=300
mnt=$tmpdir/mnt
mkdir -p "$mnt" || exit 99
trap 'umount "$mnt" "$tmpdir/dst" 2>/dev/null; rm -rf "$tmpdir"' EXIT
[ -n "${KEEP:-}" ] && trap 'umount "$mnt" "$tmpdir/dst" 2>/dev/null; echo "kept $tmpdir"' EXIT
log=$tmpdir/log
# Extractions go to a scratch ext4 with ea_inode (values over a block).
dst=$tmpdir/dst
mkdir -p "$dst" || exit 99
if ! { truncate -s 16G "$tmpdir/dst.img" &&
    "$MKE2FS" -q -F -t ext4 -O ea_inode,^has_journal "$tmpdir/dst.img" >/dev/null &&
    mount -o loop "$tmpdir/dst.img" "$dst"; }; then
	skip "no scratch loop mount"
fi

# name|maker|size|options|fill features|post (see post())|mode (clean,
# orphan, fc, stage: made with -d from a tree the kernel filled). Under
# 512 MiB mke2fs.conf's "small" type gives 1 KiB blocks: the _4k cases
# ask for 4 KiB.. The kernel here has no CONFIG_UNICODE nor CONFIG_QUOTA:
# casefold, project and quota are set after the fill by e2fsprogs.
cases='ext2|e2|64M|-t ext2|||clean
ext3|e2|64M|-t ext3|||clean
ext4|e2|256M|-t ext4|||clean
ext4_1k|e2|128M|-t ext4 -b 1024|||clean
online|e2|128M|-t ext4|online||clean
online_4k|e2|128M|-t ext4 -b 4096|online||clean
online_ext3|e2|64M|-t ext3|online||clean
grow|e2|128M|-t ext4||grow|clean
grow_nors|e2|128M|-t ext4 -O ^resize_inode||grow|clean
shrink|e2|512M|-t ext4 -b 4096||shrink|clean
ext4_4k|e2|256M|-t ext4 -b 4096|||clean
old_ext4|e2|128M|-t ext4 -O ^metadata_csum,^metadata_csum_seed,uninit_bg,^64bit,^orphan_file|||clean
i128|e2|128M|-t ext4 -I 128|||clean
ext3_nodx|e2|64M|-t ext3 -O ^dir_index|||clean
ek_old_ext4|ek|128M|-t ext4 -O ^metadata_csum,uninit_bg,^64bit|||clean
inline_4k|e2|128M|-t ext4 -b 4096 -O inline_data|inline_data||clean
ea_inode_4k|e2|128M|-t ext4 -b 4096 -O ea_inode|ea_inode||clean
all_4k|e2|256M|-t ext4 -b 4096 -O encrypt,verity,inline_data,ea_inode,large_dir,metadata_csum_seed,orphan_file,fast_commit -I 256|encrypt,verity,inline_data,ea_inode,large_dir|casefold,verity,project,quota|clean
fc_4k|e2|128M|-t ext4 -b 4096 -O fast_commit|||fc
orphan_4k|e2|128M|-t ext4 -b 4096 -O orphan_file|||orphan
orphan_list|e2|128M|-t ext4 -O ^orphan_file|||orphan
orphan_ext3|e2|64M|-t ext3|||orphan
ext4_64k|e2|512M|-t ext4 -b 65536|||stage
ext4_64k_all|e2|512M|-t ext4 -b 65536 -O inline_data,ea_inode,bigalloc -C 262144 -I 1024|ea_inode||stage
casefold|e2|128M|-t ext4||casefold|clean
encrypt|e2|128M|-t ext4 -O encrypt|encrypt||clean
verity|e2|128M|-t ext4 -O verity|verity|verity|clean
inline|e2|128M|-t ext4 -O inline_data|inline_data||clean
bigalloc16k|e2|256M|-t ext4 -O bigalloc -C 16384|||clean
bigalloc64k|e2|512M|-t ext4 -O bigalloc -C 65536|||clean
metabg|e2|256M|-t ext4 -O 64bit,meta_bg,^resize_inode|||clean
quota|e2|128M|-t ext4 -I 256||project,quota|clean
ea_inode|e2|128M|-t ext4 -O ea_inode|ea_inode||clean
large_dir|e2|128M|-t ext4 -O large_dir|large_dir||clean
csum_seed|e2|128M|-t ext4 -O metadata_csum_seed|||clean
orphan|e2|128M|-t ext4 -O orphan_file|||orphan
fc|e2|128M|-t ext4 -O fast_commit|||fc
all|e2|256M|-t ext4 -O encrypt,verity,inline_data,ea_inode,large_dir,metadata_csum_seed,orphan_file,fast_commit -I 256|encrypt,verity,inline_data,ea_inode,large_dir|casefold,verity,project,quota|clean
ek_ext2|ek|64M|-t ext2|||clean
ek_ext3|ek|64M|-t ext3|||clean
ek_ext4|ek|256M|-t ext4|||clean
ek_1k|ek|128M|-t ext4 -b 1024|||clean
ek_online|ek|128M|-t ext4|online||clean
ek_grow|ek|128M|-t ext4||grow|clean
ek_4k|ek|256M|-t ext4 -b 4096|||clean
ek_all_4k|ek|256M|-t ext4 -b 4096 -O verity,inline_data,ea_inode,large_dir,metadata_csum_seed,orphan_file,fast_commit -I 256|verity,inline_data,ea_inode,large_dir|casefold,verity,project,quota|clean
ek_64k|ek|512M|-t ext4 -b 65536|||stage
ek_d|ek|256M|-t ext4 -O inline_data,ea_inode|ea_inode||stage
e2_d|e2|256M|-t ext4 -O inline_data,ea_inode|ea_inode||stage
ek_casefold|ek|128M|-t ext4||casefold|clean
ek_casefold_d|ek|128M|-t ext4 -O casefold|||stage
e2_casefold_d|e2|128M|-t ext4 -O casefold|||stage
ek_inline|ek|128M|-t ext4 -O inline_data|inline_data||clean
ek_bigalloc|ek|256M|-t ext4 -O bigalloc -C 16384|||clean
ek_metabg|ek|256M|-t ext4 -O 64bit,meta_bg,^resize_inode|||clean
ek_quota|ek|128M|-t ext4 -I 256||project,quota|clean
ek_ea_inode|ek|128M|-t ext4 -O ea_inode|ea_inode||clean
ek_encrypt|ek|128M|-t ext4 -O encrypt|encrypt||clean
ek_large_dir|ek|128M|-t ext4 -O large_dir|large_dir||clean
ek_csum_seed|ek|128M|-t ext4 -O metadata_csum_seed|||clean
ek_fc|ek|128M|-t ext4 -O fast_commit|||fc
ek_ext3_1k|ek|64M|-t ext3 -b 1024|||clean
ext3_1k|e2|64M|-t ext3 -b 1024|||clean
ext2_1k|e2|64M|-t ext2 -b 1024|||clean
ek_orphan|ek|128M|-t ext4 -O orphan_file|||orphan
ek_all|ek|256M|-t ext4 -O verity,inline_data,ea_inode,large_dir,metadata_csum_seed,orphan_file,fast_commit -I 256|verity,inline_data,ea_inode,large_dir|casefold,verity,project,quota|clean'

want() {
	n=$1; shift
	[ $# = 0 ] && return 0
	for w; do [ "$w" = "$n" ] && return 0; done
	return 1
}

run_t() { timeout "$TIMEOUT" "$@"; }

# make IMG MAKER SIZE OPTS (the times of a -d tree kept: no
# SOURCE_DATE_EPOCH, which lib.sh sets for reproducible runs)
make_img() {
	rm -f "$1"
	unset SOURCE_DATE_EPOCH E2FSPROGS_FAKE_TIME
	if [ "$2" = e2 ]; then
		# shellcheck disable=SC2086
		run_t "$MKE2FS" -q -F $4 "$1" "$3" >>"$log" 2>&1
	else
		# shellcheck disable=SC2086
		run_t "$MKFS" -q $4 "$1" "$3" >>"$log" 2>&1
	fi
}

# manifest IMG OUT [--flags]: mounts IMG read-only, writes its manifest;
# where the kernel cannot mount it (casefold, quota and project: no
# CONFIG_UNICODE nor CONFIG_QUOTA here), the manifest of what extkit-dump
# extracts (judged against the mounted tree before post() by check_extract).
manifest() {
	if [ -z "$unmountable" ] && mount -o loop,ro "$1" "$mnt" 2>>"$log"; then
		python3 "$TREE" manifest "$mnt" ${3:+"$3"} >"$2" 2>>"$log"
		rc=$?
		umount "$mnt"
		return $rc
	fi
	rm -rf "$dst/rd"
	run_t "$DUMP" "$1" extract / "$dst/rd" >/dev/null 2>>"$log"
	python3 "$TREE" manifest "$dst/rd" >"$2" 2>>"$log"
	rc=$?
	rm -rf "$dst/rd"
	return $rc
}

# post IMG STEPS: what the kernel here cannot do, done by e2fsprogs on
# the unmounted image: casefold (tune2fs -O casefold, a +F directory
# written by debugfs), project (project ids set by debugfs), quota
# (tune2fs -Q, which counts the usage), verity (a file debugfs writes),
# grow and shrink (resize2fs offline; "online" in the fill features grows
# it mounted, by the kernel).
post() {
	case ",$2," in *,casefold,*)
		run_t "$E2SRC/misc/tune2fs" -O casefold "$1" >>"$log" 2>&1
		printf 'xyz' >"$tmpdir/small"
		{ echo "mkdir /cf"; echo "set_inode_field /cf flags 0x40080000"
		  echo "cd /cf"
		  for n in Makefile README.Md Straße ÉCOLE mIxEd ǅemal ﬁle; do
			echo "write $tmpdir/small $n"; done
		  i=0; while [ $i -lt 150 ]; do
			echo "write $tmpdir/small CaseFolded_Name_$i"; i=$((i + 1)); done
		} | run_t "$DEBUGFS" -w -f - "$1" >/dev/null 2>>"$log"
	esac
	case ",$2," in *,verity,*)
		# No CONFIG_FS_VERITY here: a file with written blocks past
		# i_size and the verity flag, as fsverity leaves its Merkle
		# tree (extkit must read only up to i_size, fsck accept it).
		head -c 200000 /dev/urandom >"$tmpdir/vdata"
		printf 'write %s /vdbg\nsif /vdbg size 100000\nsif /vdbg flags 0x180000\n' \
		    "$tmpdir/vdata" | run_t "$DEBUGFS" -w -f - "$1" >/dev/null 2>>"$log"
	esac
	case ",$2," in *,grow,*)
		truncate -s 1G "$1"
		run_t "$E2SRC/resize/resize2fs" "$1" >>"$log" 2>&1
	esac
	case ",$2," in *,shrink,*)
		run_t "$E2SRC/resize/resize2fs" -M "$1" >>"$log" 2>&1
	esac
	case ",$2," in *,project,*)
		run_t "$E2SRC/misc/tune2fs" -O project "$1" >>"$log" 2>&1
		printf 'sif /a/f4096 projid 42\nsif /a/b projid 7\nsif /hl projid 9\n' |
		    run_t "$DEBUGFS" -w -f - "$1" >/dev/null 2>>"$log"
	esac
	case ",$2," in *,quota,*)
		run_t "$E2SRC/misc/tune2fs" -O quota -Q usrquota,grpquota,prjquota "$1" >>"$log" 2>&1
		# tune2fs leaves the project usage stale: e2fsck counts it.
		run_t "$E2FSCK" -fy "$1" >>"$log" 2>&1
	esac
}

e2clean() { run_t "$E2FSCK" -fn "$1" >"$tmpdir/e2.out" 2>&1; }

# The checks on a clean image; each prints ok or FAIL into the row.
check_fsck_n() {
	before=$(sha256sum <"$1")
	run_t "$FSCK" -fn "$1" >"$tmpdir/fn.out" 2>&1
	rc=$?
	after=$(sha256sum <"$1")
	e2clean "$1"; e2rc=$?
	if [ $rc = 0 ] && [ "$before" = "$after" ] && [ $e2rc = 0 ]; then
		echo ok
	else
		echo "FAIL(rc=$rc e2=$e2rc same=$([ "$before" = "$after" ] && echo y || echo n))"
		{ echo "== $2 fsck -fn"; head -30 "$tmpdir/fn.out"; head -30 "$tmpdir/e2.out"; } >>"$log"
	fi
}

check_extract() {
	rm -rf "$dst/x"
	run_t "$DUMP" "$1" extract / "$dst/x" >"$tmpdir/ex.out" 2>&1
	rc=$?
	python3 "$TREE" manifest "$dst/x" >"$tmpdir/x.man" 2>>"$log"
	# The mounted tree minus what extract skips by design (encrypted).
	grep -v '^enc[ /]' "$2" >"$tmpdir/m.man"
	grep -v '^enc[ /]' "$tmpdir/x.man" | grep -v '^cf[ /]' |
	    grep -v '^vdbg ' >"$tmpdir/x2.man"
	if [ -n "$secs" ]; then
		# mke2fs -d keeps whole seconds
		for m in "$tmpdir/m.man" "$tmpdir/x2.man"; do
			sed -E 's/mtime=([0-9]+)[0-9]{9}/mtime=\1/' "$m" >"$m.s" &&
			    mv "$m.s" "$m"
		done
	fi
	# Encrypted files are skipped by design (exit 2, counted).
	[ $rc = 2 ] && grep -q ' 0 unsafe entries, 0 damaged or unreadable, [1-9][0-9]* encrypted (no key), 0 sockets, 0 already' "$tmpdir/ex.out" && rc=0
	if [ $rc = 0 ] && cmp -s "$tmpdir/m.man" "$tmpdir/x2.man"; then
		echo ok
	else
		echo "FAIL(rc=$rc)"
		{ echo "== $3 extract rc=$rc"; head -20 "$tmpdir/ex.out"
		  diff "$tmpdir/m.man" "$tmpdir/x2.man" | head -40; } >>"$log"
	fi
	rm -rf "$dst/x"
}

# cat every regular file under a few directories and compare with
# debugfs dump; ls -l of the directories against debugfs ls -l names.
check_cat_ls() {
	bad=0
	for f in a/f0 a/f61 a/f300000 a/b/new hl sparse punched prealloc_part \
	    xa inl/i59 inl/i60 inl/i3000 inl/growing cf/Makefile verity_file \
	    proj/inherited; do
		grep -q "^$f " "$2" || continue
		run_t "$DUMP" "$1" cat "/$f" >"$tmpdir/c1" 2>>"$log"
		run_t "$DEBUGFS" -R "dump /$f $tmpdir/c2" "$1" >/dev/null 2>&1
		# debugfs 1.47 dump pads an inline-data file to a block.
		sz=$(grep "^$f " "$2" | sed -n 's/.* size=\([0-9]*\) .*/\1/p')
		[ -n "$sz" ] && truncate -s "$sz" "$tmpdir/c2"
		cmp -s "$tmpdir/c1" "$tmpdir/c2" || {
			bad=$((bad + 1)); echo "== $3 cat /$f differs" >>"$log"; }
	done
	case ",$postf," in *,verity,*)
		run_t "$DUMP" "$1" cat /vdbg >"$tmpdir/c1" 2>>"$log"
		head -c 100000 "$tmpdir/vdata" | cmp -s - "$tmpdir/c1" || {
			bad=$((bad + 1)); echo "== $3 cat /vdbg differs" >>"$log"; }
	esac
	for d in / a big thin ln xd inl inl/small inl/grown cf proj; do
		grep -q "^$d " "$2" || [ "$d" = / ] || continue
		run_t "$DUMP" "$1" ls "/${d#/}" 2>>"$log" |
		    awk '{print $NF}' | sort >"$tmpdir/l1"
		run_t "$DEBUGFS" -R "ls -p /${d#/}" "$1" 2>/dev/null |
		    awk -F/ 'NF>5 && $2 != 0 {print $6}' | sort >"$tmpdir/l2"
		cmp -s "$tmpdir/l1" "$tmpdir/l2" || {
			bad=$((bad + 1)); echo "== $3 ls /$d differs" >>"$log"
			diff "$tmpdir/l1" "$tmpdir/l2" | head -10 >>"$log"; }
	done
	[ $bad = 0 ] && echo ok || echo "FAIL($bad)"
}

# Every other command on every image: exit 0 and nothing on standard
# error for the whole-filesystem ones; blocks and xattr names against
# debugfs blocks (-m: with the indirect and extent blocks, as debugfs) and
# ea_list (the same text); stat, htree, frag, bmap on the paths.
check_cmds() {
	bad=0
	for c in super groups quota freefrag lsdel logdump frag "ls -l /" \
	    "ls -p /big" "htree /big" "frag /big" "stat /a/f300000" \
	    "stat /xa" "stat /ln/l200" "bmap /a/f300000 3" "imap /hl" \
	    "ncheck 2 11 12" "icheck 0 1"; do
		# shellcheck disable=SC2086
		run_t "$DUMP" "$1" $c >/dev/null 2>"$tmpdir/cmd.err"
		rc=$?
		case "$c" in logdump) [ $rc = 1 ] && grep -q 'has no journal' "$tmpdir/cmd.err" && rc=0 && : >"$tmpdir/cmd.err" ;; esac
		case "$c" in quota) [ $rc = 1 ] && grep -q 'quota' "$tmpdir/cmd.err" && rc=0 ;; esac
		case "$c" in "htree /big") [ $rc = 1 ] && grep -qi 'hash-indexed' "$tmpdir/cmd.err" && rc=0 && : >"$tmpdir/cmd.err" ;; esac
		if [ $rc != 0 ] || [ -s "$tmpdir/cmd.err" ]; then
			bad=$((bad + 1))
			echo "== $3 $c: exit $rc $(head -2 "$tmpdir/cmd.err")" >>"$log"
		fi
	done
	for f in a/f300000 a/f4097 sparse punched prealloc_part huge hl \
	    big thin xa verity_file inl/i3000 a/b/new; do
		grep -q "^$f " "$2" || continue
		run_t "$DUMP" "$1" blocks -m "/$f" 2>>"$log" | tr -s ' ' '\n' |
		    grep . >"$tmpdir/b1"
		run_t "$DEBUGFS" -R "blocks /$f" "$1" 2>/dev/null |
		    tr -s ' ' '\n' | grep . >"$tmpdir/b2"
		cmp -s "$tmpdir/b1" "$tmpdir/b2" || {
			bad=$((bad + 1)); echo "== $3 blocks /$f differs" >>"$log"
			diff "$tmpdir/b1" "$tmpdir/b2" | head -5 >>"$log"; }
	done
	for f in xa xa2 xd xd/sl a/f0; do
		grep -q "^$f " "$2" || continue
		run_t "$DUMP" "$1" xattr "/$f" >"$tmpdir/x1" 2>>"$log"
		run_t "$DEBUGFS" -R "ea_list /$f" "$1" >"$tmpdir/x2" 2>/dev/null
		cmp -s "$tmpdir/x1" "$tmpdir/x2" || {
			bad=$((bad + 1)); echo "== $3 xattr /$f differs" >>"$log"
			diff "$tmpdir/x1" "$tmpdir/x2" | head -6 >>"$log"; }
	done
	[ $bad = 0 ] && echo ok || echo "FAIL($bad)"
}

check_fsck_yD() {
	cp --sparse=always "$1" "$tmpdir/yd.img"
	run_t "$FSCK" -fyD "$tmpdir/yd.img" >"$tmpdir/yd.out" 2>&1
	rc=$?
	e2clean "$tmpdir/yd.img"; e2rc=$?
	manifest "$tmpdir/yd.img" "$tmpdir/yd.man" --flags; mrc=$?
	if { [ $rc = 0 ] || [ $rc = 1 ]; } && [ $e2rc = 0 ] && [ $mrc = 0 ] &&
	    cmp -s "$2" "$tmpdir/yd.man"; then
		echo ok
	else
		echo "FAIL(rc=$rc e2=$e2rc)"
		{ echo "== $3 fsck -fyD rc=$rc e2=$e2rc"; head -20 "$tmpdir/yd.out"
		  head -20 "$tmpdir/e2.out"
		  diff "$2" "$tmpdir/yd.man" | head -20; } >>"$log"
	fi
	rm -f "$tmpdir/yd.img"
}

check_label() {
	cp --sparse=always "$1" "$tmpdir/lb.img"
	run_t "$LABEL" "$tmpdir/lb.img" trial-label >"$tmpdir/lb.out" 2>&1
	rc1=$?
	run_t "$LABEL" --uuid=random "$tmpdir/lb.img" >>"$tmpdir/lb.out" 2>&1
	rc2=$?
	e2clean "$tmpdir/lb.img"; e2rc=$?
	l=$(dumpe2fs -h "$tmpdir/lb.img" 2>/dev/null | sed -n 's/^Filesystem volume name: *//p')
	mrc=0
	if [ -z "$unmountable" ]; then
		mount -o loop,ro "$tmpdir/lb.img" "$mnt" 2>>"$log" || mrc=1
		umount "$mnt" 2>/dev/null
	fi
	if [ $rc1 = 0 ] && [ $rc2 = 0 ] && [ $e2rc = 0 ] && [ $mrc = 0 ] &&
	    [ "$l" = trial-label ]; then
		echo ok
	else
		echo "FAIL($rc1 $rc2 e2=$e2rc mount=$mrc label=$l)"
		{ echo "== $3 label"; cat "$tmpdir/lb.out"; head -20 "$tmpdir/e2.out"; } >>"$log"
	fi
	rm -f "$tmpdir/lb.img"
}

# The snapshot cases: fill, then while still mounted hold files open
# unlinked (orphan) or write with commit=1 and fsync (fc), copy the
# backing file, and judge each repair of the copy against the other.
snapshot() {
	img=$1 mode=$2 snap=$3
	mount -o loop${4:+,$4} "$img" "$mnt" || return 1
	python3 "$TREE" fill "$mnt" "" 2>>"$log"
	sync
	if [ "$mode" = orphan ]; then
		for i in 1 2 3 4 5; do
			head -c $((i * 40000)) /dev/urandom >"$mnt/open$i"
		done
		sync
		exec 3<"$mnt/open1" 4<"$mnt/open2" 5<"$mnt/open3" 6<"$mnt/open4" 7<"$mnt/open5"
		rm -f "$mnt"/open?
		sync
		cp --sparse=always "$img" "$snap"
		exec 3<&- 4<&- 5<&- 6<&- 7<&-
	else
		python3 - "$mnt" <<'EOF'
import os, sys
m = sys.argv[1]
for i in range(20):
    with open('%s/fc%d' % (m, i), 'wb') as f:
        f.write(bytes([i]) * (i * 3000 + 1))
        os.fsync(f.fileno())
os.rename(m + '/fc3', m + '/a/fc3moved')
os.unlink(m + '/fc4')
os.link(m + '/fc5', m + '/a/fc5link')
with open(m + '/a/f4096', 'r+b') as f:
    f.truncate(100)
    os.fsync(f.fileno())
with open(m + '/last', 'wb') as f:
    f.write(b'the last fast commit')
    os.fsync(f.fileno())
EOF
		cp --sparse=always "$img" "$snap"
		echo "fast-commit tags in the snapshot: $("$DEBUGFS" -R logdump "$snap" 2>/dev/null | grep -c '^tag ')" >>"$log"
	fi
	umount "$mnt"
}

check_snapshot() {
	snap=$1 name=$2
	cp --sparse=always "$snap" "$tmpdir/s1.img"
	cp --sparse=always "$snap" "$tmpdir/s2.img"
	run_t "$FSCK" -fy "$tmpdir/s1.img" >"$tmpdir/s1.out" 2>&1; rc=$?
	# The kernel's recovery is the oracle (e2fsck 1.47.4 fails on some
	# fast-commit logs: "Invalid argument while recovering journal").
	if mount -o loop "$tmpdir/s2.img" "$mnt" 2>"$tmpdir/s2.out"; then
		umount "$mnt"
	fi
	e2clean "$tmpdir/s1.img"; e2rc=$?
	manifest "$tmpdir/s1.img" "$tmpdir/s1.man" --flags
	manifest "$tmpdir/s2.img" "$tmpdir/s2.man" --flags
	if [ $rc -le 1 ] && [ $e2rc = 0 ] && cmp -s "$tmpdir/s1.man" "$tmpdir/s2.man"; then
		echo ok
	else
		echo "FAIL(rc=$rc e2=$e2rc)"
		{ echo "== $name snapshot rc=$rc e2=$e2rc"; head -30 "$tmpdir/s1.out"
		  echo "-- kernel mount:"; head -30 "$tmpdir/s2.out"
		  echo "-- e2fsck -fn after extkit:"; head -20 "$tmpdir/e2.out"
		  diff "$tmpdir/s1.man" "$tmpdir/s2.man" | head -20; } >>"$log"
	fi
	# -fn on the snapshot must not write either.
	before=$(sha256sum <"$snap")
	run_t "$FSCK" -fn "$snap" >/dev/null 2>&1; nrc=$?
	after=$(sha256sum <"$snap")
	[ "$before" = "$after" ] && [ $nrc -le 4 ] && echo ok || echo "FAIL(rc=$nrc)"
	rm -f "$tmpdir/s1.img" "$tmpdir/s2.img"
}

printf '%-12s %-6s %-8s %-8s %-8s %-8s %-8s %-8s\n' case fill fsck-n extract cat/ls cmds fsck-yD label
echo "$cases" | while IFS='|' read -r name maker size opts feats postf mode; do
	want "$name" "$@" </dev/null || continue
	img=$tmpdir/$name.img
	echo "=== $name: $maker $opts" >>"$log"
	if ! make_img "$img" "$maker" "$size" "$opts" </dev/null; then
		printf '%-12s mkfs-FAIL\n' "$name"; continue
	fi
	if [ "$mode" = orphan ] || [ "$mode" = fc ]; then
		# commit=60: a full commit (every second with commit=1) empties
		# the fast-commit area; the snapshot must catch it full
		mo=; [ "$mode" = fc ] && mo=commit=60
		snapshot "$img" "$mode" "$tmpdir/$name.snap" "$mo" </dev/null ||
		    { printf '%-12s mount-FAIL\n' "$name"; continue; }
		r=$(check_snapshot "$tmpdir/$name.snap" "$name" </dev/null | tr '\n' ' ')
		printf '%-12s %-6s fsck-fy=kernel, fsck-fn: %s\n' "$name" ok "$r"
		[ -n "${KEEP:-}" ] || rm -f "$img" "$tmpdir/$name.snap"
		continue
	fi
	unmountable='' secs='' rz=''
	if [ "$mode" = stage ]; then
		[ "$maker" = e2 ] && secs=1
		# Block sizes over the page size: the kernel here cannot mount
		# them; the tree is filled on a 4 KiB staging image by the
		# kernel and copied in by the maker's -d.
		make_img "$tmpdir/stage.img" e2 "$size" "-t ext4 -O ea_inode" </dev/null
		mount -o loop "$tmpdir/stage.img" "$mnt" 2>>"$log" || {
			printf '%-12s mount-FAIL\n' "$name"; continue; }
		python3 "$TREE" fill "$mnt" "$feats" 2>>"$log" </dev/null
		umount "$mnt"
		mount -o loop,ro "$tmpdir/stage.img" "$mnt"
		python3 "$TREE" manifest "$mnt" >"$tmpdir/$name.noflags.man" 2>>"$log"
		make_img "$img" "$maker" "$size" "$opts -d $mnt" </dev/null; fillr=$?
		umount "$mnt"; rm -f "$tmpdir/stage.img"
		[ $fillr = 0 ] && fillr=ok-d || fillr=FAIL-d
		unmountable=1
		manifest "$img" "$tmpdir/$name.man" </dev/null
	elif mount -o loop "$img" "$mnt" 2>>"$log"; then
		python3 "$TREE" fill "$mnt" "$feats" 2>>"$log" </dev/null
		case ",$feats," in *,online,*)
			# grown while mounted, by the kernel (online resize)
			dev=$(findmnt -n -o SOURCE "$mnt")
			truncate -s 1G "$img" && losetup -c "$dev" &&
			    run_t "$E2SRC/resize/resize2fs" "$dev" >>"$log" 2>&1 ||
			    rz=-noresize  # no CAP_SYS_RESOURCE: EPERM
			python3 - "$mnt" <<'EOF' 2>>"$log"
import os, sys
d = sys.argv[1] + '/after_resize'
os.mkdir(d)
for i in range(400):
    with open('%s/f%03d' % (d, i), 'wb') as f:
        f.write(bytes([i & 255]) * (100000 + i))
EOF
		esac
		umount "$mnt"; fillr=ok$rz
	else
		printf '%-12s mount-FAIL\n' "$name"; continue
	fi
	[ "$mode" = stage ] || manifest "$img" "$tmpdir/$name.man" --flags </dev/null
	[ "$mode" = stage ] || python3 -c 'import sys
for l in open(sys.argv[1]):
    print(" ".join(w for w in l.split() if not w.startswith(("flags=", "proj="))))' \
	    "$tmpdir/$name.man" >"$tmpdir/$name.noflags.man"
	if [ -n "$postf" ]; then
		post "$img" "$postf" </dev/null
		unmountable=1
		manifest "$img" "$tmpdir/$name.man" </dev/null
	fi
	a=$(check_fsck_n "$img" "$name" </dev/null)
	b=$(check_extract "$img" "$tmpdir/$name.noflags.man" "$name" </dev/null)
	c=$(check_cat_ls "$img" "$tmpdir/$name.noflags.man" "$name" </dev/null)
	c2=$(check_cmds "$img" "$tmpdir/$name.noflags.man" "$name" </dev/null)
	d=$(check_fsck_yD "$img" "$tmpdir/$name.man" "$name" </dev/null)
	e=$(check_label "$img" "$tmpdir/$name.man" "$name" </dev/null)
	printf '%-12s %-6s %-8s %-8s %-8s %-8s %-8s %-8s\n' "$name" "$fillr" "$a" "$b" "$c" "$c2" "$d" "$e"
	[ -n "${KEEP:-}" ] || rm -f "$img"
done
echo "--- details"
cat "$log"
exit 0
