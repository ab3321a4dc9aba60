#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Metadata that points at metadata (issue 31): make check's slice of
# the systematic sweep metasweep.py (see its header for the cases, the
# classes and the table). The slice (metasweep.py's SLICE: 51 cases,
# each kind of target and place and each class the full run found, on
# ext4 1 and 4 KiB, bigalloc, meta_bg and ext2 1 KiB bases) fails when
# extkit-fsck fails a case that e2fsck -fy (1.47.4 or 1.47.0) repairs:
# -fn writes, a crash, a result e2fsck -fn finds unclean, a second -fy
# that does not exit 0, or fewer files kept than e2fsck (a case e2fsck
# cannot repair either counts as "both", not as a failure).
# The full sweep (every field and value on every geometry; hours) is
# not in make check; from the build dir:
#   nice python3 tests/regress/metasweep.py --jobs 2 \
#       --keep /var/tmp/metasweep/fail /var/tmp/metasweep
# A part of it: --geoms ext4-1k,ext2-4k, --select 'bg\d+:block_bitmap=',
# --stride 10 (every tenth case), --list (the case ids).
# METASWEEP_KEEP=DIR keeps the slice's failing images under DIR.
. "${top_srcdir:-.}/tests/regress/env.sh"
command -v python3 >/dev/null 2>&1 || skip "python3 not found"
cd "$tmpdir" || exit 99
EXTKIT_FSCK=$FSCK
E2FSCK_OLD=$E2FSCK
export EXTKIT_FSCK E2FSCK E2FSCK_OLD TIMEOUT
python3 "$REGRESS_DIR/metasweep.py" --slice --jobs 2 \
	${METASWEEP_KEEP:+--keep "$METASWEEP_KEEP"} "$tmpdir/work"
rc=$?
case $rc in
0 | 1 | 77) exit $rc ;;
*) echo "metasweep.py: exit $rc"; exit 99 ;;
esac
