#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Random damage: for each of SEEDS (default 1..40, and seeds that found
# bugs: 83 and 116, garbage block maps on mode-0 reserved inodes; 173,
# inodes per group damaged in the only superblock; 214, a flex group size
# e2fsprogs refuses; 240, a resize inode with a direct block) a few dozen
# bytes of
# the metadata area of a small populated image are overwritten (a fixed
# pseudo-random sequence per seed). extkit-fsck -fy must not crash or
# hang, its second run must find the image clean (exit 0) and e2fsck -fn
# must agree.
. "${top_srcdir:-.}/tests/regress/env.sh"
command -v python3 >/dev/null 2>&1 || skip "python3 not found"
cd "$tmpdir" || exit 99
. "$REGRESS_DIR/helpers.sh"

mkimg 1024 4M
populate
many m 60 data
mv image base
cat >damage.py <<'PY'
import random, sys
random.seed(int(sys.argv[1]))
b = bytearray(open('base', 'rb').read())
for _ in range(random.randint(1, 40)):
    b[random.randrange(1024, 700 * 1024)] = random.randrange(256)
open('image', 'wb').write(b)
PY
for seed in ${SEEDS:-$(seq 1 40) 83 116 173 214 240}; do
	python3 damage.py "$seed" || exit 99
	timeout -k 5 "$TIMEOUT" "$FSCK" -fy image >out.1 2>&1
	r1=$?
	timeout -k 5 "$TIMEOUT" "$FSCK" -fy image >out.2 2>&1
	r2=$?
	timeout -k 5 "$TIMEOUT" "$E2FSCK" -fn image >e2fsck.log 2>&1
	r3=$?
	if sanitizer_report out.1 || sanitizer_report out.2; then
		fail "seed $seed: sanitizer report"
		grep -h -A5 -e Sanitizer -e 'runtime error' out.1 out.2 | head -20
	elif [ "$r1" -ge 124 ] || [ "$r2" -ge 124 ]; then
		fail "seed $seed: timed out or killed ($r1, $r2)"
	elif [ "$r1" -gt 1 ] || [ "$r2" -ne 0 ] || [ "$r3" -ne 0 ]; then
		fail "seed $seed: exit $r1, then $r2; e2fsck -fn $r3"
		grep -v -e '^Pass' -e '^$' out.2 e2fsck.log | head -10
	else
		ok "seed $seed: repaired (exit $r1), clean after"
	fi
done
finish
