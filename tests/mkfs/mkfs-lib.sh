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
