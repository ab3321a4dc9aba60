#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The long fuzzing run (never in make check; `make fuzz-long` runs it):
# each target for FUZZ_SECONDS (default 3600).
#  1. fuzz_image (the library's read path): built for libFuzzer with the
#     README's clang command where clang can, over a corpus of ext2 and
#     ext4 images (one with a journal to recover); without clang, the
#     deterministic mutation driver for as long.
#  2. fsck_fuzz.sh: extkit-fsck -fn/-fy on mutated ext2/ext4 images with
#     journals to recover.
# Findings (crash inputs, failing images) go to FUZZ_OUT (default
# ./fuzz-out); the last lines give executions and time per target.
#   FUZZ_SECONDS=600 top_srcdir=. top_builddir=. sh tests/fuzz/fuzz_long.sh
. "${top_srcdir:-.}/tests/lib.sh"
need_tools mke2fs debugfs
SECS=${FUZZ_SECONDS:-3600}
OUT=${FUZZ_OUT:-$PWD/fuzz-out}
mkdir -p "$OUT/corpus" || exit 99

# The corpus: small images of several kinds.
i=0
# Small images keep libFuzzer's executions fast (-max_len below): 128 KiB
# with 1 KiB blocks, 512 KiB with 4 KiB blocks. (Too small for a journal:
# the read path does not replay one; fsck_fuzz.sh's images have one.)
for spec in "ext2 128K -b 1024" "ext2 512K -b 4096" "ext4 128K -b 1024" \
	    "ext4 512K -b 4096" "ext4 128K -b 1024 -I 256 -O inline_data"; do
	i=$((i + 1))
	set -- $spec
	t=$1
	size=$2
	shift 2
	img=$OUT/corpus/seed$i.img
	[ -f "$img" ] && continue
	"$MKE2FS" -q -F -t "$t" "$@" -N 32 "$img" "$size" >/dev/null 2>&1 ||
		exit 99
	printf 'mkdir d\nwrite /etc/hostname d/f\nsymlink l d/f\n' |
		"$DEBUGFS" -w -f - "$img" >/dev/null 2>&1
done

# 1. the read path
cmd=$(sed -n '/-DEXTKIT_LIBFUZZER/,/-o fuzz_image/p' \
	"$top_srcdir/README.md" | tr -d '\\\n' | sed 's/-o fuzz_image//')
if command -v clang >/dev/null 2>&1 &&
   (cd "$top_srcdir" &&
    eval "$cmd -I'$top_builddir' -o '$OUT/fuzz_image'") >"$OUT/build.log" 2>&1
then
	mkdir -p "$OUT/crashes"
	"$OUT/fuzz_image" -max_total_time="$SECS" -rss_limit_mb=2048 \
		-max_len=524288 \
		-artifact_prefix="$OUT/crashes/" -print_final_stats=1 \
		"$OUT/corpus" >"$OUT/libfuzzer.log" 2>&1
	rc=$?
	runs=$(sed -n 's/^Done \([0-9]*\) runs in \([0-9]*\) .*/\1 runs in \2 s/p' \
		"$OUT/libfuzzer.log")
	if [ $rc -eq 0 ]; then
		ok "fuzz_image (libFuzzer): ${runs:-?}, no crash"
	else
		fail "fuzz_image (libFuzzer) found a problem: see $OUT/crashes"
		tail -n 30 "$OUT/libfuzzer.log"
	fi
else
	# Rounds of 2,000 mutations per corpus image until SECS have
	# passed, each round with a new odd seed (the driver sets the
	# seed's low bit, so 2k and 2k+1 would be the same).
	end=$(($(date +%s) + SECS))
	round=0
	bad=0
	while [ "$(date +%s)" -lt $end ] && [ $bad -eq 0 ]; do
		round=$((round + 1))
		for img in "$OUT"/corpus/*.img; do
			timeout -k 5 600 "$top_builddir/tests/fuzz/fuzz_image" \
				"$img" 2000 $((round * 2 + 1)) \
				>"$OUT/driver.log" 2>&1 && continue
			fail "fuzz_image driver on $img, seed $((round * 2 + 1))"
			tail -n 30 "$OUT/driver.log"
			bad=1
			break
		done
	done
	[ $bad -eq 0 ] &&
		ok "fuzz_image driver: $round rounds of 2000 mutations per image in $SECS s, no crash"
fi

# 2. extkit-fsck on mutated images
if FUZZ_SECONDS=$SECS FUZZ_OUT=$OUT/fsck sh "$top_srcdir/tests/fuzz/fsck_fuzz.sh" \
	>"$OUT/fsck_fuzz.log" 2>&1; then
	ok "$(grep '^fsck_fuzz:' "$OUT/fsck_fuzz.log")"
else
	fail "fsck_fuzz: see $OUT/fsck_fuzz.log"
	grep -e '^FAIL' -e '^fsck_fuzz:' "$OUT/fsck_fuzz.log" | tail -n 20
fi
finish
