#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# extkit-fsck on mutated images. Seeds: small ext2 and ext4 images made
# by mke2fs (ext4: metadata_csum, extents, an htree directory, EA
# blocks; one with inline_data) whose journal holds committed
# transactions not yet replayed (needs_recovery, written by debugfs jw);
# one with fast commits after them (inode, range and entry tags).
# Each run damages a copy (damage.py hit2: bytes or garbage blocks over
# the superblock, descriptors, bitmaps, inode tables, directories,
# extent and EA blocks, and the journal's first blocks), then:
# extkit-fsck -fn must leave it byte for byte, and -fn, -fy and a second
# -fy must end without a crash, sanitizer report or hang. Convergence is
# the campaign's business (campaign.sh), not this one's.
#   FUZZ_SECONDS  how long (default 15; the long run: 3600)
#   FUZZ_SEED     first mutation seed (default 1)
#   FUZZ_OUT      where failing images are kept (default: not kept)
# The long run, as `make fuzz-long` does:
#   FUZZ_SECONDS=3600 FUZZ_OUT=/tmp/fuzz-out top_srcdir=. top_builddir=. \
#   sh tests/fuzz/fsck_fuzz.sh
. "${top_srcdir:-.}/tests/regress/env.sh"
command -v python3 >/dev/null 2>&1 || skip "python3 not found"
cd "$tmpdir" || exit 99
. "$REGRESS_DIR/helpers.sh"
DAMAGE=$REGRESS_DIR/damage.py
TIMEOUT=${TIMEOUT:-20}

# seed_image NAME TYPE BS [mke2fs options]: ./NAME, populated, with a
# journal needing recovery when TYPE is ext4.
seed_image() {
	_name=$1
	_type=$2
	_bs=$3
	shift 3
	mkfs_type "$_type" "$_bs" 8M "$@"
	populate
	many m 50 data
	many h 300
	printf 'v%.0s' $(seq 1 300) >val
	dbg "ea_set d1/file1 user.big -f val"
	rm -f val
	$E2FSCK -fyD image >/dev/null 2>&1
	if [ "$_type" = ext4 ]; then
		_a=$(( $(dumpe2fs -h image 2>/dev/null |
			sed -n 's/^Block count: *//p') - 40))
		head -c $((3 * _bs)) /dev/urandom >jd
		dbg "jo" "jw -b $_a,$((_a + 1)),$((_a + 2)) jd" "jc" \
		    "jo" "jw -b $((_a + 5)) jd" "jc"
		rm -f jd
	fi
	case " $* " in *fast_commit*) forge_fast_commit ;; esac
	mv image "$_name"
	python3 "$DAMAGE" map "$_name" >"$_name.map" || exit 99
}

# forge_fast_commit: a fast commit after the log of ./image, as the
# kernel leaves one (regress/fastcommit.py): /top's inode, a range added
# to d1/file1, one removed from d1/d2/big, a link and an unlink.
forge_fast_commit() {
	_h() { $DUMPE2FS -h image 2>/dev/null | sed -n "s/^$1: *//p"; }
	_max=$(_h "Total journal blocks")
	_seq=$(_h "Journal sequence")
	_last=$(($(_h "Block count") - 30))
	_loc=$($DEBUGFS -R "imap /top" image 2>/dev/null | sed -n \
	    's/.*located at block \([0-9]*\), offset \(0x[0-9a-f]*\).*/\1 \2/p')
	FC_EXTRA="A:$(ino d1/file1):1:$_last:3,D:$(ino d1/d2/big):2:1"
	FC_EXTRA="$FC_EXTRA,L:2:$(ino d1/file2):fc_link"
	FC_EXTRA="$FC_EXTRA,U:$(ino h):$(ino h/f0001):f0001"
	# shellcheck disable=SC2086
	FC_EXTRA=$FC_EXTRA python3 "$REGRESS_DIR/fastcommit.py" image \
		"$(bsize)" "$($DEBUGFS -R "bmap <8> 0" image 2>/dev/null)" \
		"$($DEBUGFS -R "bmap <8> $((_max - $(_h "Fast commit length") + 1))" \
		image 2>/dev/null)" $((_seq + 2)) "$(ino top)" $_loc \
		"$(_h "Inode size")" 1234567890 || exit 99
}

seed_image s_ext2 ext2 1024 -O ext_attr
seed_image s_ext4 ext4 1024
seed_image s_ext4k ext4 4096
seed_image s_inline ext4 1024 -I 256 -O inline_data
seed_image s_fc ext4 1024 -O fast_commit

n=0 crashes=0 hangs=0 wrote=0
seed=${FUZZ_SEED:-1}
start=$(date +%s)
end=$((start + ${FUZZ_SECONDS:-15}))
while [ "$(date +%s)" -lt "$end" ]; do
	for s in s_ext2 s_ext4 s_ext4k s_inline s_fc; do
		python3 "$DAMAGE" hit2 "$s" "$s.map" "$seed" image dmg ||
			exit 99
		_sum=$(sha256sum <image)
		bad=
		timeout -k 5 "$TIMEOUT" "$FSCK" -fn image >o.n 2>&1 </dev/null
		rn=$?
		[ "$(sha256sum <image)" = "$_sum" ] || bad=wrote
		timeout -k 5 "$TIMEOUT" "$FSCK" -fy image >o.1 2>&1 </dev/null
		r1=$?
		timeout -k 5 "$TIMEOUT" "$FSCK" -fy image >o.2 2>&1 </dev/null
		r2=$?
		for r in $rn $r1 $r2; do
			case $r in
			124 | 137) bad=${bad:-hang} ;;
			66 | 13[0-6] | 13[8-9] | 1[4-9][0-9]) bad=crash ;;
			esac
		done
		if sanitizer_report o.n || sanitizer_report o.1 ||
			sanitizer_report o.2; then
			bad=crash
		fi
		n=$((n + 1))
		if [ -n "$bad" ]; then
			eval "${bad}s=\$((${bad}s + 1))"
			fail "$s seed $seed: $bad (exit $rn, $r1, $r2)"
			grep -h -A5 -e Sanitizer -e 'runtime error' o.n o.1 o.2 |
				head -12
			if [ -n "${FUZZ_OUT:-}" ]; then
				mkdir -p "$FUZZ_OUT"
				python3 "$DAMAGE" hit2 "$s" "$s.map" "$seed" \
					"$FUZZ_OUT/$s-$seed.img" /dev/null
			fi
		fi
	done
	seed=$((seed + 1))
done
echo "fsck_fuzz: $n images (seeds ${FUZZ_SEED:-1}..$((seed - 1)) on 5 seed" \
	"images) in $(($(date +%s) - start)) s: $crashes crashes, $hangs" \
	"hangs, $wrote -fn writes"
[ "$n" -gt 0 ] && ok "fsck_fuzz: $n mutated images"
finish
