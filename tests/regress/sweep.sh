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
# SWEEP_RETEST=DIR instead re-checks the kept misses of DIR with the
# current binary: per image, the exit of extkit-fsck -fy, then of
# e2fsck -fn on its result, then of a second -fy, and e2fsck's first
# complaint ("ok" when the last two are 0).
top_srcdir=${top_srcdir:-.}
FSCK=${EXTKIT_FSCK:-./extkit-fsck}
if [ -n "${SWEEP_RETEST:-}" ]; then
	t=$(mktemp /var/tmp/sweep6-retest.XXXXXX)
	for f in "$SWEEP_RETEST"/*.img; do
		cp "$f" "$t"
		timeout 120 "$FSCK" -fy "$t" >/dev/null 2>&1
		rc=$?
		e2=$(e2fsck -fn "$t" 2>&1)
		erc=$?
		timeout 120 "$FSCK" -fy "$t" >/dev/null 2>&1
		rc2=$?
		msg=ok
		[ "$erc" -eq 0 ] && [ "$rc2" -eq 0 ] ||
			msg=$(printf '%s\n' "$e2" | grep -m1 -E '\?|IGNORED|abort')
		echo "$(basename "$f" .img) fy=$rc e2fsck-n=$erc second=$rc2 $msg"
	done
	rm -f "$t"
	exit 0
fi
work=${SWEEP_WORK:-/var/tmp/sweep6-work}
exec python3 "$top_srcdir/tests/regress/sweep.py" \
	--cases "${SWEEP_CASES:-100}" --seed "${SWEEP_SEED:-1}" \
	${SWEEP_BASES:+--bases "$SWEEP_BASES"} \
	--keep "$work/misses" "$work"
