#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Runs the mutation fuzzer (tests/fuzz/fuzz_image.c) over small ext2 and
# ext4 images made by mke2fs: every mutated image must be read or refused
# by the library without a sanitizer report, crash or hang.
. "${top_srcdir:-.}/tests/lib.sh"
need_tools mke2fs
FUZZ=$top_builddir/tests/fuzz/fuzz_image
ITER=${FUZZ_ITERATIONS:-250}

mkdir -p "$tmpdir/tree/d1/d2" "$tmpdir/tree/big"
i=0
while [ $i -lt 300 ]; do
	: >"$tmpdir/tree/big/file-with-a-longish-name-$i"
	i=$((i + 1))
done
echo data >"$tmpdir/tree/d1/d2/f"
ln -s d1/d2/f "$tmpdir/tree/link"
ln -s "$(printf 'x%.0s' $(seq 1 80))" "$tmpdir/tree/slowlink"
head -c 300000 /dev/zero | tr '\0' 'a' >"$tmpdir/tree/d1/blob"
# Attributes where the host keeps them (in-inode areas and EA blocks).
python3 -c 'import os, sys
for i in range(6):
    os.setxattr(sys.argv[1], "user.a%d" % i, b"v" * (i * 40))' \
	"$tmpdir/tree/d1/d2/f" 2>/dev/null || :

n=0
for spec in "ext2 -b 1024 -O ^dir_index" "ext2 -b 1024" "ext4 -b 1024" \
	    "ext4 -b 4096" "ext4 -b 1024 -I 256 -O inline_data,ea_inode"; do
	set -- $spec
	fstype=$1
	shift
	n=$((n + 1))
	img=$tmpdir/seed$n.img
	"$MKE2FS" -q -F -t "$fstype" "$@" -N 512 -d "$tmpdir/tree" \
		-U 0bd7d0b8-3d54-4a5c-9d2b-27fb5fe1a1d1 "$img" 2M 2>/dev/null || exit 99
	for seed in 1 2; do
		if timeout -k 5 300 "$FUZZ" "$img" "$ITER" "$seed" \
				>"$tmpdir/log" 2>&1; then
			ok "$spec seed $seed: $(tail -n 1 "$tmpdir/log")"
		else
			fail "$spec seed $seed"
			head -n 30 "$tmpdir/log"
		fi
	done
done

# The libFuzzer build, with the README's command, where clang can do it.
if command -v clang >/dev/null 2>&1; then
	cmd=$(sed -n '/-DEXTKIT_LIBFUZZER/,/-o fuzz_image/p' \
		"$top_srcdir/README.md" | tr -d '\\\n' | sed 's/-o fuzz_image//')
	mkdir -p "$tmpdir/lf/corpus"
	cp "$tmpdir/seed1.img" "$tmpdir/lf/corpus/"
	if (cd "$top_srcdir" &&
	    eval "$cmd -I'$top_builddir' -o '$tmpdir/lf/fuzz_image'") \
			>"$tmpdir/lf/build" 2>&1 &&
	   [ -x "$tmpdir/lf/fuzz_image" ]; then
		if timeout -k 5 120 "$tmpdir/lf/fuzz_image" -max_total_time=10 \
			-rss_limit_mb=2048 "$tmpdir/lf/corpus" \
			>"$tmpdir/lf/log" 2>&1; then
			ok "libFuzzer target (README command): 10 s clean"
		else
			fail "libFuzzer target found a problem"
			tail -n 40 "$tmpdir/lf/log"
		fi
	elif printf '%s\n' '#include <stddef.h>' '#include <stdint.h>' \
		'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)' \
		'{ (void)d; (void)n; return 0; }' >"$tmpdir/lf/probe.c" &&
	     clang -fsanitize=fuzzer "$tmpdir/lf/probe.c" \
		-o "$tmpdir/lf/probe" >/dev/null 2>&1; then
		# clang has libFuzzer, so the README's command is what broke.
		fail "the README's libFuzzer command does not build"
		tail -n 5 "$tmpdir/lf/build"
	else
		echo "clang has no libFuzzer here (skipped)"
	fi
fi
finish
