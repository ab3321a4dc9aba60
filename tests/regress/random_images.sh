# SPDX-License-Identifier: GPL-2.0-or-later
# Base images of fsck_random.sh, one per geometry; sourced after
# helpers.sh. geom_NAME builds ./image (clean for e2fsck -fn).

# extras [noea]: fast and slow symlinks, device and FIFO inodes, a big
# file (indirect blocks) and, unless noea, EA blocks shared by files and
# a directory.
extras() {
	printf 'data\n' >f
	yes 0123456789abcdef | head -c "${BIGFILE:-300000}" >big
	_long=$(printf 'L%.0s' $(seq 1 150))
	_val=$(printf 'v%.0s' $(seq 1 300))
	dbg "mkdir x" "symlink x/fast /d1/file1" "symlink x/slow /$_long" \
	    "cd x" "mknod fifo p" "mknod cdev c 1 3" "mknod bdev b 7 0" \
	    "cd /" "write big x/big" "write f x/ea1" "write f x/ea2" \
	    "write f x/s1" "write f x/s2" "write f x/s3" "mkdir x/sd"
	if [ "$1" != noea ]; then
		dbg "ea_set x/ea1 user.big $_val" "ea_set x/ea2 user.other $_val"
		_b=$(file_acl x/ea1)
		ea_share "$_b" x/s1 x/s2 x/sd
		dirent "$_b" 0 u32@4 4
		ea_share "$(file_acl x/ea2)" x/s3
		dirent "$(file_acl x/ea2)" 0 u32@4 2
	fi
	rm -f f big
}

# 4 KiB blocks, 8 groups (backup superblocks in 1, 3, 5, 7), a double
# indirect file.
geom_4k() {
	mkimg 4096 64M -g 2048 -O ext_attr
	populate
	many m 200 data
	BIGFILE=4400000 extras
}

# 64 KiB blocks, one group.
geom_64k() {
	mkimg 65536 64M -O ext_attr
	populate
	many m 100 data
	BIGFILE=1000000 extras
}

# dir_index: a one-level htree (1 KiB blocks, 1500 short names) and a
# two-level one (700 names of 200 bytes), indexed by e2fsck -fyD.
geom_htree() {
	mkimg 1024 16M -N 2560 -O ext_attr
	populate
	many h1 1500
	_n=$(printf 'n%.0s' $(seq 1 200))
	{
		echo "mkdir h2"
		_i=0
		while [ "$_i" -lt 700 ]; do
			printf 'write /dev/null h2/%s%04d\n' "$_n" "$_i"
			_i=$((_i + 1))
		done
	} | $DEBUGFS -w image -f - >/dev/null 2>&1
	extras
	$E2FSCK -fyD image >/dev/null 2>&1
}

# Revision 0: no features, 128-byte inodes, a superblock copy in every
# group.
geom_rev0() {
	mkimg 1024 8M -r 0 -g 2048
	populate
	many m 60 data
	extras noea
}

# Extended attribute blocks on a 1 KiB image with two groups.
geom_ea() {
	mkimg 1024 8M -I 128 -O ext_attr
	populate
	many m 40 data
	extras
}
