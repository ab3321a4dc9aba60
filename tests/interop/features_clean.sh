# SPDX-License-Identifier: GPL-2.0-or-later
# The clean-image feature matrix: for each ext4 feature mke2fs 1.47 sets
# (and the combinations it accepts), an image made by mke2fs -O ... and
# populated by mke2fs -d (quota: counted by tune2fs afterwards, as mke2fs
# -d leaves the usage stale) and, where the kernel here mounts it, by the
# kernel on a loop mount (fsverity enabled on a file when the tool is
# there). On each (features_clean_check.py): e2fsck -fn clean, extkit-fsck
# -fn exit 0 with no finding, -fy exit 0 changing nothing but s_mnt_count,
# s_lastcheck and s_checksum (and the MMP block's sequence), e2fsck -fn
# clean after it, and extkit-dump ls/stat as debugfs.

. "${top_srcdir:-.}/tests/lib.sh"
need_dump
need_tools mke2fs debugfs dumpe2fs e2fsck tune2fs python3
FSCK=$top_builddir/extkit-fsck
MKE2FS_CONFIG=$top_srcdir/tests/regress/mke2fs.conf
export MKE2FS_CONFIG

# The tree: files of several sizes (one sparse, several over a 64K
# cluster), directories, a directory of several blocks, symlinks.
tree=$tmpdir/tree
mkdir -p "$tree/d/sub" "$tree/big" || exit 99
python3 - "$tree" <<'EOF' || exit 99
import os, sys
t = sys.argv[1]
def put(p, n, seed):
    with open(os.path.join(t, p), "wb") as f:
        f.write(bytes((i * 7 + seed) & 255 for i in range(n)))
put("f100k", 100 * 1024, 1)
put("small", 3, 2)
put("d/f70k", 70 * 1024 + 5, 3)
put("d/sub/f200k", 200 * 1024, 4)
with open(os.path.join(t, "sparse"), "wb") as f:
    f.seek(3000000); f.write(b"x"); f.truncate(5 << 20)
for i in range(300):
    put("big/file_with_a_long_name_%03d" % i, i % 5, i)
os.symlink("small", os.path.join(t, "link"))
os.symlink("x" * 100, os.path.join(t, "longlink"))
EOF
paths="/ /d/ /big/ /f100k /sparse /d/sub/f200k /longlink /link"

# name|size|mke2fs options|after (quota: tune2fs -O quota). Features
# only in a mix: metadata_csum_seed, casefold, large_dir (mix_b),
# stable_inodes, encrypt (mix_c).
cases='plain|16M|-t ext4|
b1k|16M|-t ext4 -b 1024|
b64k|128M|-t ext4 -b 65536|
bigalloc16k|64M|-t ext4 -O bigalloc -C 16384|
bigalloc64k|128M|-t ext4 -O bigalloc -C 65536|
bigalloc_1k|16M|-t ext4 -b 1024 -O bigalloc -C 4096|
quota|16M|-t ext4 -O project -I 256|quota
project|16M|-t ext4 -O project -I 256|
orphan_file|16M|-t ext4 -O orphan_file|
large_dir|16M|-t ext4 -O large_dir|
meta_bg|64M|-t ext4 -b 1024 -O meta_bg,^resize_inode|
sparse_super2|64M|-t ext4 -b 1024 -O sparse_super2|
no64bit|16M|-t ext4 -O ^64bit|
verity|16M|-t ext4 -O verity|
casefold|16M|-t ext4 -O casefold|
mmp|16M|-t ext4 -O mmp|
no_flex_bg|16M|-t ext4 -O ^flex_bg|
uninit_bg|16M|-t ext4 -O ^metadata_csum,uninit_bg|
no_csum|16M|-t ext4 -O ^metadata_csum,^uninit_bg|
mix_a|64M|-t ext4 -O bigalloc,project,orphan_file,verity -C 16384|quota
mix_b|64M|-t ext4 -b 1024 -O meta_bg,^resize_inode,large_dir,metadata_csum_seed,mmp,casefold|
mix_c|64M|-t ext4 -O ^64bit,sparse_super2,^flex_bg,encrypt,stable_inodes|'

# kernel cases: name|size|mke2fs options (populated on a loop mount);
# three images, each feature the kernel writes differently in one of
# them (the mke2fs -d half has them one by one).
kcases='k_bigalloc|64M|-t ext4 -O bigalloc,orphan_file,verity -C 16384
k_meta_bg|64M|-t ext4 -b 1024 -O meta_bg,^resize_inode
k_no64bit|16M|-t ext4 -O ^64bit,^flex_bg,sparse_super2'

check_image() {
	if python3 "$top_srcdir/tests/interop/features_clean_check.py" \
	    "$FSCK" "$DUMP" "$E2FSCK" "$DEBUGFS" "$DUMPE2FS" "$1" "$tmpdir" \
	    $paths \
	    >"$tmpdir/check.log" 2>&1; then
		ok "$(tail -1 "$tmpdir/check.log")"
	else
		grep -e '^FAIL' -e 'Error' -e 'Traceback' "$tmpdir/check.log" |
			sed 's/^/    /' | head -20
		fail "$(basename "$1")"
	fi
}

n=0
while IFS='|' read -r name size opts after; do
	img=$tmpdir/$name.img
	# shellcheck disable=SC2086 # options are words
	if ! "$MKE2FS" -q -F $opts -d "$tree" "$img" "$size" \
	    >"$tmpdir/mk.log" 2>&1; then
		fail "$name: mke2fs $opts: $(head -1 "$tmpdir/mk.log")"
		continue
	fi
	if [ "$after" = quota ] && ! "$TUNE2FS" -O quota \
	    -Q usrquota,grpquota,prjquota "$img" >"$tmpdir/mk.log" 2>&1; then
		fail "$name: tune2fs -O quota: $(head -1 "$tmpdir/mk.log")"
		continue
	fi
	check_image "$img"
	rm -f "$img"
	n=$((n + 1))
done <<EOF
$cases
EOF

# The kernel as the populator, where it mounts the features here.
mnt=$tmpdir/mnt
mkdir -p "$mnt"
kn=0
if [ "$(id -u)" = 0 ]; then
	while IFS='|' read -r name size opts; do
		img=$tmpdir/$name.img
		# shellcheck disable=SC2086
		"$MKE2FS" -q -F $opts "$img" "$size" >/dev/null 2>&1 ||
			{ fail "$name: mke2fs $opts"; continue; }
		if ! mount -o loop "$img" "$mnt" 2>/dev/null; then
			echo "skip: $name: the kernel here does not mount it"
			rm -f "$img"
			continue
		fi
		cp -a "$tree/." "$mnt/"
		case $opts in *verity*)
			command -v fsverity >/dev/null &&
				fsverity enable "$mnt/f100k" >/dev/null 2>&1 &&
				fsverity enable "$mnt/d/sub/f200k" >/dev/null 2>&1
		esac
		umount "$mnt" || { fail "$name: umount"; break; }
		check_image "$img"
		rm -f "$img"
		kn=$((kn + 1))
	done <<EOF
$kcases
EOF
fi
echo "matrix: $n images by mke2fs -d, $kn populated by the kernel"
[ "$kn" -gt 0 ] || echo "skip: no kernel-populated images (not root, or no loop)"
finish
