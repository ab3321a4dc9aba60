#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The repair campaign. For each geometry a populated base image is built
# (clean for e2fsck -fn) and its files are recorded (filecheck.py); for
# each seed, damage.py hit2 damages a copy's metadata (superblock,
# descriptors, bitmaps, inode tables, directory and htree blocks,
# indirect and extent blocks, EA blocks, journal) and then:
#   extkit-fsck -fn writes nothing (same sha256); -fy exits below 8 (or
#   both refuse the image, e2fsck -fy too); e2fsck -fn is clean after it;
#   a second -fy exits 0; no crash (signal or sanitizer report) and no
#   hang ($TIMEOUT); every file whose blocks the damage did not touch is
#   still there, byte for byte.
# Geometries: ext2 1k 4k 64k htree rev0 ea (random_images.sh); ext4
# (4 KiB blocks, journal, extents, flex_bg, no metadata_csum), ext4csum
# (1 KiB, metadata_csum), inline (inline_data, 256-byte inodes); the ext4
# ones hold an htree directory, an extent tree of depth 1 and EA blocks.
# Issue 13's features (ext4_tree content too): bigalloc (16 KiB
# clusters), eainode (EA inodes, in-inode EAs, a shared EA block naming
# EA inodes), casefold (a casefolded htree directory of UTF-8 names),
# quota (usr/grp/prj quotas, project ids, orphan_file, 64bit + meta_bg,
# metadata_csum_seed, large_dir). kernel, kernel1k: trees the kernel made
# and aged (kernel_tree.py; needs loop mounts).
# It prints a table per geometry and the failing seeds (FAIL lines).
#   CAMPAIGN_GEOMETRY  geometries (default, for make check: ext4csum inline
#                      kernel, the last where loop mounts work)
#   CAMPAIGN_SEEDS     seeds (default, for make check: 2 3 5 16; ext4csum 16 sets
#                      the verity flag, which only the kernel minds)
#   CAMPAIGN_KEEP=DIR  keeps each failing image as DIR/GEOM-SEED.img
#   CAMPAIGN_MOUNT=1   the kernel too (root, loop mounts; "auto", the
#                      slice's default: where they work): each repaired
#                      image mounts, every file reads, each directory
#                      takes a new file and loses it again, with no
#                      ext4 error in the kernel log; e2fsck -fn is clean
#                      after the kernel's writes (class "kernel")
# A long campaign (not in make check), e.g. 200 seeds everywhere:
#   CAMPAIGN_GEOMETRY="1k 4k 64k htree rev0 ea ext4 ext4csum inline \
#     bigalloc eainode casefold quota kernel kernel1k" \
#   CAMPAIGN_SEEDS="$(seq 1 200)" top_srcdir=. top_builddir=. \
#   sh tests/regress/campaign.sh
. "${top_srcdir:-.}/tests/regress/env.sh"
command -v python3 >/dev/null 2>&1 || skip "python3 not found"
need_tools tune2fs
cd "$tmpdir" || exit 99
. "$REGRESS_DIR/helpers.sh"
. "$REGRESS_DIR/random_images.sh"
. "$REGRESS_DIR/feature_helpers.sh"
DAMAGE=$REGRESS_DIR/damage.py
FILECHECK="python3 $REGRESS_DIR/filecheck.py"
export DEBUGFS

geom_1k() {
	mkimg 1024 4M
	populate
	many m 60 data
}

# ext4_tree: what the ext4 geometries hold: the standard tree, 100 small
# files, an htree directory, a file of 40 extents (a tree of depth 1),
# symlinks, devices and EA blocks (extras); then e2fsck -fyD indexes
# the directories and settles what debugfs left for it. noclean: the
# caller adds more and checks the image itself (base_clean).
ext4_tree() {
	populate
	many m 100 data
	many h 600
	sparse sp 40 "${SPARSE_STRIDE:-2}"
	dbg "write sp sparse"
	rm -f sp
	extras
	$E2FSCK -fyD image >/dev/null 2>&1
	[ "${1:-}" = noclean ] || base_clean
}

geom_ext4() {
	mkimg4 4096 32M -O ^metadata_csum,ext_attr
	ext4_tree
}

geom_ext4csum() {
	mkimg4 1024 16M -O ext_attr
	ext4_tree
}

geom_inline() {
	mkimg4 1024 16M -I 256 -O inline_data,ext_attr
	ext4_tree
}

# Issue 13's features. bigalloc: 16 KiB clusters of 4 KiB blocks, the
# multi-extent file's pieces a cluster apart.
geom_bigalloc() {
	mkimg4 4096 32M -C 16384 -O bigalloc,ext_attr
	SPARSE_STRIDE=8 ext4_tree
}

# eainode: ea_inode, 256-byte inodes: 1 KiB values (debugfs ea_set -f
# reads one block) go to EA inodes, small ones stay in the inode; s1's
# fourth EA inode reference overflows into an EA block that s2 and /ei
# share; e2fsck -fy then charges the EA inodes to their owners' i_blocks.
geom_eainode() {
	mkimg4 1024 16M -I 256 -O ea_inode,ext_attr
	ext4_tree noclean
	yes 'ea inode value ' | head -c 1024 >v1
	yes 'another value  ' | head -c 1024 >v2
	dbg "mkdir ei" "write /dev/null ei/a" "write /dev/null ei/b" \
	    "write /dev/null ei/s1" "write /dev/null ei/s2" \
	    "ea_set -f v1 ei/a user.big" "ea_set ei/a user.small tiny" \
	    "ea_set -f v2 ei/b user.huge" "ea_set -f v1 ei/b trusted.big" \
	    "ea_set ei/s1 user.s small" "ea_set -f v1 ei/s1 user.sh0" \
	    "ea_set -f v2 ei/s1 user.sh1" "ea_set -f v1 ei/s1 user.sh2" \
	    "ea_set -f v2 ei/s1 user.sh3" "ea_set -f v2 ei/s1 user.sh4"
	rm -f v1 v2
	_b=$(file_acl ei/s1)
	[ "$_b" != 0 ] ||
		{ echo "campaign: eainode: no EA block" >&2; exit 99; }
	ea_share "$_b" ei/s2 ei
	dirent "$_b" 0 u32@4 3
	$E2FSCK -fy image >/dev/null 2>&1
	base_clean
}

# casefold: the ext4_tree content and /cf, a casefolded htree directory
# of mixed-case and UTF-8 names (cf_dir).
geom_casefold() {
	mkimg4 1024 16M -O casefold,ext_attr
	ext4_tree noclean
	cf_dir 25
}

# quota: user, group and project quotas (files of other owners and
# project ids), an orphan file, 64bit + meta_bg (32 groups of 1 MiB: two
# meta groups), metadata_csum_seed and large_dir.
geom_quota() {
	mkimg4 1024 32M -I 256 -g 1024 -O \
	    project,orphan_file,meta_bg,^resize_inode,metadata_csum_seed,large_dir,ext_attr
	ext4_tree noclean
	dbg "sif d1/file1 uid 1000" "sif d1/file2 gid 2000" \
	    "sif top projid 7" "sif m/f0001 projid 7" "sif m/f0002 uid 1001" \
	    "sif x/big projid 9" "sif x/big uid 1000" "sif h projid 9"
	$TUNE2FS -O quota -Q usrquota,grpquota,prjquota image >/dev/null 2>&1 ||
		{ echo "campaign: tune2fs -O quota failed" >&2; exit 99; }
	base_clean
}

# kernel, kernel1k: trees the kernel made and aged (kernel_tree.py on a
# loop mount: scattered directory blocks, htrees grown and thinned, of
# two levels on 1 KiB blocks, extent trees of depth 1 and 2, EA blocks,
# every file type); 4 KiB blocks and 1 KiB, both metadata_csum. Not
# built where loop mounts are refused (exit 2). The kernel's allocator
# does not place blocks the same way twice, so a seed damages another
# base on each run: keep the failing images (CAMPAIGN_KEEP), and pin
# what they show in f_ cases.
geom_kernel() {
	kernel_made 4096 64M
}

geom_kernel1k() {
	kernel_made 1024 32M
}

kernel_made() {
	[ "$(id -u)" = 0 ] || return 2
	$MKE2FS -q -F -t ext4 -b "$1" image "$2" >/dev/null 2>&1 || return 1
	use_mount_point
	mount -o loop image "$mnt" 2>/dev/null || return 2
	python3 "$REGRESS_DIR/kernel_tree.py" "$mnt" "$1"
	_rc=$?
	umount "$mnt" || return 1
	[ $_rc -eq 0 ] || return 1
	base_clean
}

# base_clean: the base image must be clean for e2fsck -fn.
base_clean() {
	$E2FSCK -fn image >/dev/null 2>&1 ||
		{ echo "campaign: base image not clean" >&2; exit 99; }
}

# run_seed GEOMETRY SEED: one damaged image through the rules; counts
# it in the class of its first failure (or ok / refused).
run_seed() {
	_t="$1 seed $2"
	python3 "$DAMAGE" hit2 base map "$2" image damaged || exit 99
	_sum=$(sha256sum <image)
	timeout -k 5 "$TIMEOUT" "$FSCK" -fn image >out.n 2>&1 </dev/null
	rn=$?
	if [ "$(sha256sum <image)" != "$_sum" ]; then
		class=fnwrote
	else
		timeout -k 5 "$TIMEOUT" "$FSCK" -fy image >out.1 2>&1 </dev/null
		r1=$?
		timeout -k 5 "$TIMEOUT" "$FSCK" -fy image >out.2 2>&1 </dev/null
		r2=$?
		timeout -k 5 "$TIMEOUT" "$E2FSCK" -fn image >e2.log 2>&1
		r3=$?
		class=$(classify "$2") && [ -n "$class" ] || exit 99
	fi
	eval "n_$class=\$((n_$class + 1))"
	case $class in
	ok | refused) ok "$_t: $class" ;;
	*)
		fail "$_t: $class (-fn $rn, -fy $r1 then $r2, e2fsck -fn $r3)"
		failing="$failing $1:$2:$class"
		grep -h -A5 -e Sanitizer -e 'runtime error' out.n out.1 out.2 \
			2>/dev/null | head -12
		grep -v -e '^Pass' -e '^$' e2.log 2>/dev/null | head -6
		[ -z "${CAMPAIGN_KEEP:-}" ] || {
			mkdir -p "$CAMPAIGN_KEEP"
			python3 "$DAMAGE" hit2 base map "$2" \
				"$CAMPAIGN_KEEP/$1-$2.img" /dev/null
		}
		;;
	esac
	r1= r2= r3=
}

# classify SEED: the class of the current seed (after the runs above).
classify() {
	for _r in $rn $r1 $r2; do
		case $_r in
		66 | 13[0-6] | 13[8-9] | 1[4-9][0-9]) echo crash; return ;;
		esac
	done
	if sanitizer_report out.n || sanitizer_report out.1 ||
		sanitizer_report out.2; then
		echo crash
	elif [ "$rn" -eq 124 ] || [ "$rn" -eq 137 ] || [ "$r1" -eq 124 ] ||
		[ "$r1" -eq 137 ] || [ "$r2" -eq 124 ] || [ "$r2" -eq 137 ]; then
		echo hang
	elif [ "$r1" -eq 8 ] && [ "$rn" -eq 8 ]; then
		python3 "$DAMAGE" hit2 base map "$1" e2img /dev/null || exit 99
		timeout -k 5 "$TIMEOUT" "$E2FSCK" -fy e2img >/dev/null 2>&1
		[ $(($? & 8)) -ne 0 ] && echo refused || echo unclean
	elif [ "$r1" -ge 4 ] || [ "$r3" -ne 0 ]; then
		echo unclean
	elif [ "$r2" -ne 0 ]; then
		echo nonconv
	elif ! $FILECHECK check image snap damaged >lost 2>&1; then
		head -3 lost >&2
		echo lost
	elif [ -n "$kernel_geom" ] && ! kernel_check >kernel.log 2>&1; then
		head -8 kernel.log >&2
		echo kernel
	else
		echo ok
	fi
}

# kernel_mounts IMAGE: the kernel mounts a copy of IMAGE read-write;
# then the geometry's seeds are checked by it (kernel_geom). A kernel
# built without a feature (CONFIG_UNICODE for casefold, CONFIG_QUOTA
# for quota) refuses the base.
kernel_mounts() {
	cp "$1" kprobe.img || exit 99
	mount -o loop kprobe.img "$mnt" 2>/dev/null || { rm -f kprobe.img; return 1; }
	umount "$mnt"
	rm -f kprobe.img
	kernel_geom=1
}

# kernel_check: the kernel as a second oracle on the repaired image. A
# marker in the kernel log starts this seed's part of it; the loop
# device's name picks its lines out of a log other runs write to too.
kernel_check() {
	_mark="extkit-campaign $$ $_t"
	echo "$_mark" >/dev/kmsg
	mount -o loop image "$mnt" || { echo "the kernel does not mount it"; return 1; }
	_dev=$(findmnt -n -o SOURCE "$mnt")
	_bad=0
	# a damaged i_size may leave a sparse file of terabytes: its first
	# MiB is read (a file under 64 MiB whole)
	find "$mnt" -xdev -type f -size -65536k -exec cat {} + >/dev/null ||
		_bad=1
	find "$mnt" -xdev -type f -size +65535k -exec head -c 1M {} + \
		>/dev/null || _bad=1
	# an immutable or append-only directory (a flag the damage may set,
	# as valid as any) refuses the new name or its removal: not an error
	find "$mnt" -xdev -type d -exec sh -c 'for d; do
		true >"$d/.extkit-kernel" && rm "$d/.extkit-kernel" && continue
		lsattr -d "$d" | cut -d" " -f1 | grep -q "[ia]" || exit 1
	done' sh {} + || _bad=1
	umount "$mnt" || { echo "umount failed"; return 1; }
	dmesg | sed -n "/$_mark\$/,\$p" |
		grep -e "EXT4-fs error (device ${_dev#/dev/})" \
		    -e "EXT4-fs warning (device ${_dev#/dev/})" && _bad=1
	$E2FSCK -fn image >e2k.log 2>&1 ||
		{ echo "e2fsck -fn after the kernel's writes:"; \
		  grep -v -e '^Pass' e2k.log | head -5; _bad=1; }
	return $_bad
}

# make check's slice (no CAMPAIGN_GEOMETRY) asks the kernel where it can.
[ -n "${CAMPAIGN_GEOMETRY:-}" ] || : "${CAMPAIGN_MOUNT:=auto}"
if [ -n "${CAMPAIGN_MOUNT:-}" ]; then
	use_mount_point
	_probe=$tmpdir/probe.img
	if [ "$(id -u)" = 0 ] &&
	    $MKE2FS -q -F "$_probe" 1M >/dev/null 2>&1 &&
	    mount -o loop,ro "$_probe" "$mnt" 2>/dev/null; then
		umount "$mnt"
	elif [ "$CAMPAIGN_MOUNT" = auto ]; then
		echo "loop mounts refused here: the kernel is not asked"
		CAMPAIGN_MOUNT=
	else
		skip "CAMPAIGN_MOUNT: loop mounts refused (root needed)"
	fi
	rm -f "$_probe"
fi
failing=
printf '%-9s %6s %6s %7s %6s %8s %8s %8s %6s %8s %7s\n' geometry seeds crash \
	hang fnwrote unclean nonconv lost ok refused kernel >table
for geom in ${CAMPAIGN_GEOMETRY:-ext4csum inline kernel}; do
	"geom_$geom"
	case $? in
	0) ;;
	2)	echo "$geom: needs loop mounts (root): not run"
		continue ;;
	*)	exit 99 ;;
	esac
	mv image base
	python3 "$DAMAGE" map base >map || exit 99
	$FILECHECK snap base snap || exit 99
	n_ok=0 n_refused=0 n_crash=0 n_hang=0 n_fnwrote=0 n_unclean=0
	n_nonconv=0 n_lost=0 n_kernel=0 seeds=0
	kernel_geom=
	[ -z "${CAMPAIGN_MOUNT:-}" ] || kernel_mounts base ||
		echo "$geom: the kernel does not mount the base image ($(dmesg |
		    tail -1 | sed 's/^\[[^]]*\] //')): not checked by it"
	for seed in ${CAMPAIGN_SEEDS:-2 3 5 16}; do
		run_seed "$geom" "$seed"
		seeds=$((seeds + 1))
	done
	printf '%-9s %6s %6s %7s %6s %8s %8s %8s %6s %8s %7s\n' "$geom" $seeds \
		$n_crash $n_hang $n_fnwrote $n_unclean $n_nonconv $n_lost \
		$n_ok $n_refused "$([ -n "$kernel_geom" ] && echo $n_kernel || echo -)" >>table
done
cat table
[ -z "$failing" ] || echo "failing seeds (geometry:seed:class):$failing"
finish
