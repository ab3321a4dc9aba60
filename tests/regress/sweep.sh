#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The differential fsck sweep (not in make check; needs root for the
# kernel-populated bases): damaged copies of e2fsprogs- and
# kernel-made ext2/3/4 images, repaired by extkit-fsck -fy and checked
# by e2fsck -fn, compared with e2fsck -fy (see sweep.py's header for
# the bases, the damage and the miss classes). Run from the build dir:
#   SWEEP_CASES=400 SWEEP_SEED=1 nice -n 10 sh tests/regress/sweep.sh
# Scratch: /var/tmp/sweep6-work (override with SWEEP_WORK); misses are
# kept under $SWEEP_WORK/misses (SEED.img, SEED.txt).
top_srcdir=${top_srcdir:-.}
work=${SWEEP_WORK:-/var/tmp/sweep6-work}
exec python3 "$top_srcdir/tests/regress/sweep.py" \
	--cases "${SWEEP_CASES:-100}" --seed "${SWEEP_SEED:-1}" \
	${SWEEP_BASES:+--bases "$SWEEP_BASES"} \
	--keep "$work/misses" "$work"
