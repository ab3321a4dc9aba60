#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# extkit-mkfs -D (direct I/O, as mke2fs -D; issue 33): the target is
# opened with O_DIRECT and every transfer is aligned (lib/io_unix.c:
# unaligned ones through an aligned buffer, read-modify-write). On an
# image file in the build directory (a filesystem that takes O_DIRECT;
# skipped when it does not) and on loop devices of 512- and 4096-byte
# sectors (skipped where losetup is refused), with ext2, ext3 and ext4
# (journal), 1, 2 and 4 KiB blocks, -d (populate; on 4 KiB blocks the
# writer thread's own O_DIRECT descriptor, from the start with -D), an
# offset that is no multiple of 4096 in a file whose size is none
# either, and -z: each image byte-identical to the same run without -D
# and e2fsck (1.47.0, 1.47.4 where built) and extkit-fsck -fn clean.
# lib/io_unix.c alone (tests/mkfs/direct_io.c): writes, reads and
# zeroings at every kind of offset and length from unaligned buffers
# read back as a mirror in memory says, on a descriptor with O_DIRECT.
# Where strace runs, every read and write of the image goes through an
# O_DIRECT descriptor with offset and length aligned to the unit. A
# filesystem that refuses O_DIRECT (EXTKIT_TEST_OPEN_DIRECT_EINVAL, a
# test-hooks build) gives an error naming -D and leaves no file; -D with
# -E android_sparse is refused.
. "${top_srcdir:-.}/tests/lib.sh"
. "$top_srcdir/tests/mkfs/mkfs-lib.sh"
need_tools e2fsck
TIMEOUT=60
export SOURCE_DATE_EPOCH=1700000000
PIN="-q -F -U $TEST_UUID -E hash_seed=$TEST_SEED"

# the images live in the build directory: /tmp may be a tmpfs
work=$(mktemp -d "$top_builddir/direct-test.XXXXXX") || exit 99
loops=
trap 'for l in $loops; do losetup -d "$l" 2>/dev/null; done;
	rm -rf "$work" "$tmpdir"' EXIT
run_mkfs "$tmpdir/out" "$tmpdir/err" $PIN -D "$work/probe.img" 4M
case $?/$(cat "$tmpdir/err") in
0/*) rm -f "$work/probe.img" ;;
*"refuses direct I/O"*) skip "O_DIRECT refused in $top_builddir" ;;
*) fail "-D on $work/probe.img: $(cat "$tmpdir/err")" ;;
esac

# the io layer alone: every kind of offset and length, a file whose size
# is no multiple of 4096 (tests/mkfs/direct_io.c)
DIRECT_IO=$top_builddir/tests/mkfs/direct_io
[ -x "$DIRECT_IO" ] || { echo "ERROR: $DIRECT_IO not built"; exit 99; }
timeout -k 5 "$TIMEOUT" "$DIRECT_IO" "$work/io.img" 5000003 \
	>"$tmpdir/out" 2>"$tmpdir/err" &&
	ok "io: $(cat "$tmpdir/out")" ||
	fail "io: exit $?: $(cat "$tmpdir/out" "$tmpdir/err")"
rm -f "$work/io.img"

tree=$tmpdir/tree
mkdir -p "$tree/sub" || exit 99
(cd "$tree" && for i in $(seq 1 150); do
	printf 'file %s\n' "$i" >"f$i"
done && head -c 300000 /dev/urandom >big && seq 1 50000 >sub/numbers &&
	truncate -s 2M sparse && printf x | dd of=sparse bs=1 seek=1000000 \
		conv=notrunc 2>/dev/null && ln -s f1 link &&
	ln -s "$(printf '%0100d' 0)" longlink) || exit 99
find "$tree" -exec touch -h -d "2021-03-04 05:06:07" {} + || exit 99
ls -lR "$tree" >/dev/null || exit 99

have_strace=0
if command -v strace >/dev/null 2>&1 &&
	strace -o /dev/null true 2>/dev/null; then
	have_strace=1
else
	echo "note: no strace here: the O_DIRECT of each call is not checked"
fi

# traced LOG PATH UNIT: every pread64/pwrite64 on a descriptor of PATH
# (or the writer's /proc/self/fd one) was made with O_DIRECT, offset and
# length multiples of UNIT; prints the counts, false otherwise.
traced() {
	awk -v path="$2" -v unit="$3" '
	match($0, /openat\([^"]*"[^"]*"/) {
		p = substr($0, RSTART, RLENGTH); sub(/^[^"]*"/, "", p)
		sub(/"$/, "", p)
		fd = $NF
		ours[fd] = (p == path || p ~ /^\/proc\/self\/fd\//)
		direct[fd] = ($0 ~ /O_DIRECT/)
		next
	}
	/ close\(/ { d = $0; sub(/.*close\(/, "", d); sub(/\).*/, "", d)
		delete ours[d]; next }
	/ (pread64|pwrite64)\(/ {
		c = $0; sub(/^[0-9]+ +/, "", c)
		fd = c; sub(/^[a-z0-9]+\(/, "", fd); sub(/,.*/, "", fd)
		if (!ours[fd]) next
		n++
		a = c; sub(/\) = .*/, "", a)
		k = split(a, f, ", ")
		if (!direct[fd] || f[k] % unit || f[k - 1] % unit) bad++
	}
	END { printf "%d calls, %d not direct and aligned", n, bad
		exit !(n > 0 && bad == 0) }' "$1"
}

# same DESC TARGET_A TARGET_B SIZE ARGS...: extkit-mkfs ARGS on A
# without -D, on B with -D (traced where strace runs), SIZE after the
# target ("": none); the same bytes, fsck clean.
same() {
	_d=$1 _a=$2 _b=$3 _s=$4
	shift 4
	run_mkfs "$tmpdir/out" "$tmpdir/err" $PIN "$@" "$_a" $_s ||
		{ fail "$_d, without -D: $(cat "$tmpdir/err")"; return; }
	if [ "$have_strace" = 1 ]; then
		timeout -k 5 "$TIMEOUT" strace -f -o "$tmpdir/trace" \
			-e trace=openat,close,pread64,pwrite64 \
			"$MKFS" $PIN -D "$@" "$_b" $_s >"$tmpdir/out" 2>"$tmpdir/err"
	else
		run_mkfs "$tmpdir/out" "$tmpdir/err" $PIN -D "$@" "$_b" $_s
	fi || { fail "$_d, -D: $(cat "$tmpdir/err")"; return; }
	if [ "$have_strace" = 1 ]; then
		_t=$(traced "$tmpdir/trace" "$_b" "$unit") &&
			ok "$_d: every transfer O_DIRECT and aligned ($_t)" ||
			fail "$_d: $_t"
	fi
	cmp -s "$_a" "$_b" && ok "$_d: the same bytes as without -D" ||
		fail "$_d: the image differs from the one without -D"
	if [ -n "${skip:-}" ]; then	# the filesystem from byte skip on
		dd if="$_b" of="$tmpdir/region.img" iflag=skip_bytes \
			skip="$skip" bs=1M 2>/dev/null || exit 99
		both_clean "$_d" "$tmpdir/region.img"
	else
		both_clean "$_d" "$_b"
	fi
}

img() {
	rm -f "$work/a.img" "$work/b.img"
}

A=$work/a.img
B=$work/b.img
skip=
unit=4096
img; same "ext2, 1 KiB" "$A" "$B" 16M -t ext2 -b 1024
img; same "ext4 (journal)" "$A" "$B" 32M -t ext4
img; same "ext3, 2 KiB, -d" "$A" "$B" 32M -t ext3 -b 2048 -d "$tree"
img; same "ext4, 4 KiB, -d" "$A" "$B" 32M -t ext4 -b 4096 -d "$tree"
img; same "ext4, 1 KiB, -d" "$A" "$B" 32M -t ext4 -b 1024 -d "$tree"
# the writer thread takes -D's data from the first byte
rm -f "$work/b.img"
env EXTKIT_TEST_SAY_WRITER=1 timeout -k 5 "$TIMEOUT" "$MKFS" $PIN -D \
	-t ext4 -b 4096 -d "$tree" "$work/b.img" 32M >/dev/null 2>"$tmpdir/err"
case $(sed -n 's/^writer: //p' "$tmpdir/err") in
O_DIRECT) ok "-D, 4 KiB, -d: the writer thread writes the data, O_DIRECT" ;;
"") echo "note: not a test-hooks build: which writer ran is not checked" ;;
*) fail "-D, 4 KiB, -d: $(cat "$tmpdir/err")" ;;
esac
# an offset of 1536 in a file of 1536 + 10001 KiB: every unit at either
# end of the filesystem partial, the file's size no multiple of 4096
img
head -c 1000000 /dev/urandom >"$work/a.img" || exit 99
cp "$work/a.img" "$work/b.img" || exit 99
skip=1536
same "-E offset=1536, 1 KiB" "$A" "$B" 10001K -t ext4 -b 1024 \
	-E offset=1536
skip=
[ "$(stat -c %s "$work/b.img")" = $((1536 + 10001 * 1024)) ] &&
	ok "-E offset=1536: the file's size kept" ||
	fail "-E offset=1536: size $(stat -c %s "$work/b.img")"
# -z: the undo file written as without -D
img
rm -f "$work/a.undo" "$work/b.undo"
head -c 4000000 /dev/urandom >"$work/a.img" || exit 99
cp "$work/a.img" "$work/b.img" || exit 99
run_mkfs "$tmpdir/out" "$tmpdir/err" $PIN -t ext2 -z "$work/a.undo" \
	"$work/a.img" 8M &&
run_mkfs "$tmpdir/out" "$tmpdir/err" $PIN -D -t ext2 -z "$work/b.undo" \
	"$work/b.img" 8M && cmp -s "$work/a.img" "$work/b.img" &&
	cmp -s "$work/a.undo" "$work/b.undo" &&
	ok "-z: the same image and undo file as without -D" ||
	fail "-z: $(cat "$tmpdir/err")"

# refused: by the filesystem (as tmpfs did before Linux 6.6), with a
# sparse image
rm -f "$work/x.img"
env EXTKIT_TEST_OPEN_DIRECT_EINVAL=1 "$MKFS" -q -D "$work/x.img" 8M \
	>/dev/null 2>"$tmpdir/err"
rc=$?
if [ $rc = 1 ] && [ ! -e "$work/x.img" ] &&
	grep -q -- '-D: the filesystem holding it refuses direct I/O' "$tmpdir/err"; then
	ok "O_DIRECT refused: $(cat "$tmpdir/err")"
elif [ $rc = 0 ]; then
	echo "note: not a test-hooks build: a refused O_DIRECT is not checked"
else
	fail "O_DIRECT refused: exit $rc: $(cat "$tmpdir/err")"
fi
"$MKFS" -q -D -E android_sparse "$work/x.img" 8M >/dev/null 2>"$tmpdir/err"
rc=$?
[ $rc = 1 ] && [ ! -e "$work/x.img" ] &&
	grep -q -- '-D: not with -E android_sparse' "$tmpdir/err" &&
	ok "-D with -E android_sparse refused" ||
	fail "-D with -E android_sparse: exit $rc: $(cat "$tmpdir/err")"

# loop devices: the unit is the device's logical block size
if [ "$(id -u)" != 0 ] || ! command -v losetup >/dev/null 2>&1; then
	echo "note: no losetup here: the loop device cases are skipped"
	finish
fi
for ss in 512 4096; do
	img
	truncate -s 48M "$work/a.img" "$work/b.img" || exit 99
	la=$(losetup -f --show --sector-size $ss "$work/a.img" 2>"$tmpdir/err") ||
		{ echo "note: losetup refused: $(cat "$tmpdir/err")"; break; }
	loops="$loops $la"
	lb=$(losetup -f --show --sector-size $ss "$work/b.img" 2>"$tmpdir/err") ||
		{ echo "note: losetup refused: $(cat "$tmpdir/err")"; break; }
	loops="$loops $lb"
	bs=1024
	[ $ss = 4096 ] && bs=4096
	unit=$ss
	same "loop, $ss-byte sectors, ext4, $bs-byte blocks, -d" \
		"$la" "$lb" "" -t ext4 -b $bs -d "$tree"
	losetup -d "$la" && losetup -d "$lb"
	loops=
	cmp -s "$work/a.img" "$work/b.img" || fail "loop $ss: images differ"
done
finish
