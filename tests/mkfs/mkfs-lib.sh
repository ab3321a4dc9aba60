# SPDX-License-Identifier: GPL-2.0-or-later
# Helpers for the extkit-mkfs tests, on top of tests/lib.sh (source that
# first). MKFS is the binary under test; E2FSCK, DUMPE2FS, MKE2FS are set
# by need_tools. Fixed UUID and hash seed for comparisons.

MKFS=$top_builddir/extkit-mkfs
[ -x "$MKFS" ] || { echo "ERROR: $MKFS not built"; exit 99; }
TEST_UUID=01234567-89ab-cdef-0123-456789abcdef
TEST_SEED=0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0
# mke2fs reads this instead of /etc/mke2fs.conf: the 1.47 size classes
# and extkit-mkfs's default features (no resize_inode), so both tools take
# the same arguments and the comparison does not depend on the host.
MKE2FS_CONFIG=$top_srcdir/tests/mkfs/mke2fs.conf
export MKE2FS_CONFIG

# run_mkfs OUT ERR ARGS...: extkit-mkfs under the deadline.
run_mkfs() {
	_out=$1
	_err=$2
	shift 2
	timeout -k 5 "$TIMEOUT" "$MKFS" "$@" >"$_out" 2>"$_err"
}

# fsck_clean DESC IMAGE: e2fsck -fn exits 0.
fsck_clean() {
	if "$E2FSCK" -fn "$2" >"$tmpdir/fsck.out" 2>&1; then
		return 0
	fi
	fail "$1: e2fsck -fn exit $?"
	sed 's/^/    /' "$tmpdir/fsck.out" | head -20
	return 1
}

# sb_field IMAGE NAME: one "Name:  value" line of dumpe2fs -h.
sb_field() {
	"$DUMPE2FS" -h "$1" 2>/dev/null | sed -n "s/^$2:[[:space:]]*//p"
}

# sha IMAGE: its sha256, "absent" or "directory".
sha() {
	if [ -d "$1" ]; then
		echo directory
	elif [ -e "$1" ]; then
		sha256sum "$1" | cut -d' ' -f1
	else
		echo absent
	fi
}

# mke2fs_old_uninit: MKE2FS is older than 1.47.1, whose mke2fs marks the
# groups holding a superblock backup or descriptor block BLOCK_UNINIT;
# from 1.47.1 on (e2fsprogs commit 7150bea3) mke2fs leaves them
# initialised, and so does extkit-mkfs.
mke2fs_old_uninit() {
	case $("$MKE2FS" -V 2>&1 | sed -n 's/^mke2fs \([0-9.]*\).*/\1/p') in
	1.47.0|1.46*|1.45*|1.44*|1.43*|1.42*) return 0 ;;
	esac
	return 1
}

# uninit_147 REF OURS: the dumpe2fs reports (full, with group lines) of
# mke2fs's and extkit-mkfs's images, rewritten in place when MKE2FS is
# older than 1.47.1, so that they compare as with mke2fs 1.47.4: in each
# group that holds a superblock backup or descriptor block and that REF
# has BLOCK_UNINIT, REF loses that flag, and both lose the group and
# block bitmap checksums, which the flag changes. Nothing else: OURS
# keeps its flags, and every other group its checksums.
uninit_147() {
	mke2fs_old_uninit || return 0
	_ug=$(awk '/^Group [0-9]*:/ { g = $2; u = /BLOCK_UNINIT/ }
		u && /superblock at|Group descriptor at/ { print g; u = 0 }' \
		"$1" | tr '\n' ' ')
	[ -n "$_ug" ] || return 0
	for _uf in "$1" "$2"; do
		_ur=0
		[ "$_uf" = "$1" ] && _ur=1
		awk -v gs=" $_ug" -v ref=$_ur '
		/^Group [0-9]*:/ {
			in_g = index(gs, " " $2 " ") > 0
			if (in_g && ref && !sub(/, BLOCK_UNINIT/, ""))
				sub(/BLOCK_UNINIT(, )?/, "")
			if (in_g)
				sub(/csum 0x[0-9a-f]*/, "csum (1.47.0)")
		}
		in_g && /^  Block bitmap at/ { sub(/csum 0x[0-9a-f]*/, "csum (1.47.0)") }
		{ print }' "$_uf" >"$_uf.u" && mv "$_uf.u" "$_uf"
	done
}

# probe_kernel_mounts SCRATCH: kernel=1 when the kernel checks can run
# (root, and a loop mount of a plain ext2 image made at SCRATCH works;
# $mnt is then the mount point), else kernel=0 with a note.
probe_kernel_mounts() {
	kernel=0
	if [ "$(id -u)" = 0 ] && command -v mount >/dev/null 2>&1 &&
	   "$MKE2FS" -q -F -t ext2 "$1" 4M >/dev/null 2>&1; then
		use_mount_point
		if mount -o loop "$1" "$mnt" 2>/dev/null; then
			umount "$mnt" && kernel=1
		fi
	fi
	[ "$kernel" = 1 ] ||
		echo "note: no loop mounts here: the kernel checks are skipped"
}

# both_clean DESC IMAGE: e2fsck -fn, extkit-fsck -fn and, where it is
# built (E2FSCK_NEW, by default e2fsprogs 1.47.4 in /work/e2fsprogs-src),
# e2fsck 1.47.4 -fn all exit 0.
E2FSCK_NEW=${E2FSCK_NEW:-/work/e2fsprogs-src/e2fsck/e2fsck}
[ -x "$E2FSCK_NEW" ] || E2FSCK_NEW=
both_clean() {
	fsck_clean "$1" "$2" || return 1
	if ! "$top_builddir/extkit-fsck" -fn "$2" >"$tmpdir/fsck.out" 2>&1; then
		fail "$1: extkit-fsck -fn exit $?"
		sed 's/^/    /' "$tmpdir/fsck.out" | head -20
		return 1
	fi
	[ -n "$E2FSCK_NEW" ] || return 0
	"$E2FSCK_NEW" -fn "$2" >"$tmpdir/fsck.out" 2>&1 && return 0
	fail "$1: e2fsck 1.47.4 -fn exit $?"
	sed 's/^/    /' "$tmpdir/fsck.out" | head -20
	return 1
}
