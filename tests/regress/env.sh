# SPDX-License-Identifier: GPL-2.0-or-later
# Common setup of the extkit-fsck tests (run.sh, fsck_*.sh): tests/lib.sh,
# the e2fsprogs tools, the binary under test (EXTKIT_FSCK overrides it) and
# the pinned mke2fs.conf. Source it as the first line of such a test.
. "${top_srcdir:-.}/tests/lib.sh"

need_tools mke2fs debugfs e2fsck dumpe2fs
FSCK=${EXTKIT_FSCK:-$top_builddir/extkit-fsck}
REGRESS_DIR=$top_srcdir/tests/regress
MKE2FS_CONFIG=$REGRESS_DIR/mke2fs.conf
export MKE2FS DEBUGFS DUMPE2FS REGRESS_DIR MKE2FS_CONFIG
[ -x "$FSCK" ] || { echo "ERROR: $FSCK not built"; exit 99; }
