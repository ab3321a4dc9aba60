# SPDX-License-Identifier: GPL-2.0-or-later
# Fast-commit replay against the kernel: images whose journal holds ext4
# fast commits (tests/interop/fcops.py on a loop mount of an ext4
# -O fast_commit image, the image copied while still mounted): 4 KiB
# blocks, 1 KiB blocks without metadata_csum, 4 KiB with inline_data.
# For each: the kernel's view (the copy mounted, so replayed by the
# kernel: names, types, sizes, link counts, contents) must be what a
# read-only mount shows after `extkit-fsck -fy`, which must exit 0 or 1
# and leave the image e2fsck -fn clean and a second -fy exiting 0; -n
# names the fast commits and writes nothing.
# Then damaged fast-commit areas (tests/interop/fcmangle.py): a flipped
# byte in a fast commit (it and the later ones are dropped, by the
# kernel and extkit alike), a tag whose length runs past its block, an
# unknown tag, and tags whose checksum is redone after an ADD_RANGE was
# pointed past the filesystem or at an inode table, or an INODE tag at
# inode 0xfffffff0: no crash, exit < 4, e2fsck -fn clean after.
# Needs root and loop mounts (skips otherwise).

. "${top_srcdir:-.}/tests/lib.sh"
need_tools mke2fs e2fsck debugfs dumpe2fs python3
FSCK=${EXTKIT_FSCK:-$top_builddir/extkit-fsck}
OPS=$top_srcdir/tests/interop/fcops.py
MANGLE=$top_srcdir/tests/interop/fcmangle.py
[ -x "$FSCK" ] || skip "extkit-fsck not built"
[ "$(id -u)" = 0 ] || skip "needs root for loop mounts"
use_mount_point

# manifest IMG OUT: the tree as a read-only mount shows it.
manifest() {
	mount -o loop,ro "$1" "$mnt" 2>/dev/null ||
		{ echo "no mount" >"$2"; return 1; }
	(cd "$mnt" && find . -path ./lost+found -prune -o \
		-printf '%p %y %s %n\n' |
		sort | while read -r _p _t _s _n; do
			if [ "$_t" = f ]; then
				echo "$_p $_t $_s $_n $(sha256sum <"$_p" | cut -c1-16)"
			else
				echo "$_p $_t $_n"
			fi
		done) >"$2"
	umount "$mnt"
}

# kernel_view IMG OUT: the kernel replays a copy, then its tree.
kernel_view() {
	cp --sparse=always "$1" "$tmpdir/k.img"
	mount -o loop "$tmpdir/k.img" "$mnt" 2>/dev/null ||
		{ echo "no mount" >"$2"; return 1; }
	umount "$mnt"
	manifest "$tmpdir/k.img" "$2"
}

# make_image IMG MKE2FS-ARGS...: fast commits pending in IMG.
make_image() {
	_img=$1
	shift
	rm -f "$tmpdir/base.img"
	"$MKE2FS" -q -F -t ext4 -O fast_commit "$@" "$tmpdir/base.img" 64M \
		>/dev/null 2>&1 || return 1
	mount -o loop,commit=300 "$tmpdir/base.img" "$mnt" 2>/dev/null ||
		return 1
	python3 "$OPS" "$mnt" >"$tmpdir/ops.log" 2>&1
	_rc=$?
	cp --sparse=always "$tmpdir/base.img" "$_img"
	umount "$mnt"
	[ $_rc -eq 0 ] || { cat "$tmpdir/ops.log"; return 1; }
	"$DEBUGFS" -R logdump "$_img" 2>/dev/null | grep -q '^tag TAIL'
}

# repair IMG NAME: extkit -fy exit < 4 (0/1), e2fsck -fn clean, a second
# -fy exit 0, no sanitizer report.
repair() {
	timeout -k 5 "$TIMEOUT" "$FSCK" -fy "$1" >"$tmpdir/y1.log" 2>&1
	_y1=$?
	"$E2FSCK" -fn "$1" >"$tmpdir/chk.log" 2>&1
	_chk=$?
	timeout -k 5 "$TIMEOUT" "$FSCK" -fy "$1" >"$tmpdir/y2.log" 2>&1
	_y2=$?
	if [ $_y1 -lt 4 ] && [ $_chk -eq 0 ] && [ $_y2 -eq 0 ] &&
	   ! sanitizer_report "$tmpdir/y1.log" &&
	   ! sanitizer_report "$tmpdir/y2.log"; then
		ok "$2: -fy exit $_y1, e2fsck -fn clean, again exit 0"
		return 0
	fi
	fail "$2: -fy exit $_y1, e2fsck -fn exit $_chk, again exit $_y2"
	sed 's/^/    /' "$tmpdir/y1.log" | head -12
	return 1
}

# fc_count IMG: the fast commits debugfs's logdump shows for the
# transaction of the first one (its TAIL tags; older ones the area may
# still hold after a full commit are not replayed).
fc_count() {
	"$DEBUGFS" -R logdump "$1" 2>/dev/null |
		awk '/^tag TAIL, tid / { if (t == "") t = $4; if ($4 == t) n++ }
		     END { print n + 0 }'
}

# against_kernel IMG NAME [MIN]: extkit's replay shows what the
# kernel's does; it replays MIN fast commits at least or, without MIN,
# as many as debugfs's logdump shows (how many the kernel wrote depends
# on the kernel: some operations make it commit in full).
against_kernel() {
	kernel_view "$1" "$tmpdir/k.man"
	_fc=$(fc_count "$1")
	_want=${3:-$_fc}
	cp --sparse=always "$1" "$tmpdir/x.img"
	repair "$tmpdir/x.img" "$2" || return
	_n=$(sed -n 's/^Replaying \([0-9]*\) fast commits.*/\1/p' \
		"$tmpdir/y1.log")
	if [ -z "$3" ] && [ "${_n:-0}" -ne "$_want" ]; then
		fail "$2: ${_n:-no} fast commits replayed, logdump shows $_want"
	elif [ "${_n:-0}" -lt "$_want" ] || [ "${_n:-0}" -lt 1 ]; then
		fail "$2: ${_n:-no} fast commits replayed, not $_want"
	else
		ok "$2: $_n fast commits replayed (logdump: $_fc)"
	fi
	manifest "$tmpdir/x.img" "$tmpdir/x.man"
	if cmp -s "$tmpdir/k.man" "$tmpdir/x.man"; then
		ok "$2: the files are the kernel's ($(wc -l <"$tmpdir/k.man") names)"
	else
		fail "$2: the files differ from the kernel's replay"
		diff "$tmpdir/k.man" "$tmpdir/x.man" | head -10
	fi
}

# fc_blocks IMG OUT: the filesystem blocks of the fast-commit area.
fc_blocks() {
	_max=$("$DUMPE2FS" -h "$1" 2>/dev/null |
		sed -n 's/^Total journal blocks: *//p')
	_fc=$("$DUMPE2FS" -h "$1" 2>/dev/null |
		sed -n 's/^Fast commit length: *//p')
	_i=$((_max - _fc + 1))
	: >"$2"
	while [ "$_i" -lt "$_max" ]; do
		"$DEBUGFS" -R "bmap <8> $_i" "$1" 2>/dev/null >>"$2"
		_i=$((_i + 1))
	done
}

# mangled IMG NAME MODE [ARG]: a damaged copy of IMG; with kernel (as
# NAME's first word) compared to the kernel's replay of it.
mangled() {
	_bs=$("$DUMPE2FS" -h "$1" 2>/dev/null | awk '/^Block size:/ { print $3 }')
	cp --sparse=always "$1" "$tmpdir/m.img"
	fc_blocks "$1" "$tmpdir/fc.blocks"
	python3 "$MANGLE" "$tmpdir/m.img" "$_bs" "$tmpdir/fc.blocks" "$3" ${4:+"$4"} ||
		{ fail "$2: fcmangle.py $3 failed"; return; }
	case $2 in
	kernel*)
		against_kernel "$tmpdir/m.img" "$2" 1 ;;
	*)
		repair "$tmpdir/m.img" "$2" ;;
	esac
}

# read_only IMG: -n names the fast commits and writes nothing.
read_only() {
	_sum=$(sha256sum <"$1")
	"$FSCK" -fn "$1" >"$tmpdir/n.log" 2>&1
	if grep -q "fast commits" "$tmpdir/n.log" &&
	   [ "$(sha256sum <"$1")" = "$_sum" ]; then
		ok "-n: names the fast commits, writes nothing"
	else
		fail "-n: fast commits not named, or the image changed"
		sed 's/^/    /' "$tmpdir/n.log" | head -5
	fi
}

# A 64 MiB filesystem of 4 KiB blocks gets a fast-commit area of 16
# blocks, which fcops.py would fill (the kernel then commits in full):
# 512 KiB.
FC4K="-b 4096 -J fast_commit_size=512"
img=$tmpdir/fc4k.img
# shellcheck disable=SC2086
make_image "$img" $FC4K || skip "no kernel fast commits here (loop mount)"
read_only "$img"
against_kernel "$img" "4 KiB"
if make_image "$tmpdir/fc1k.img" -b 1024 -O ^metadata_csum; then
	against_kernel "$tmpdir/fc1k.img" "1 KiB, ^metadata_csum"
fi
# shellcheck disable=SC2086
if make_image "$tmpdir/fcin.img" $FC4K -O inline_data; then
	against_kernel "$tmpdir/fcin.img" "4 KiB, inline_data"
fi

# interrupted IMG N: the repair of a copy stopped after its Nth write
# (a test build's EXTKIT_TEST_STOP_AFTER_WRITES), then run again: the
# fast commits are still replayed, the files are the kernel's.
interrupted() {
	cp --sparse=always "$1" "$tmpdir/i.img"
	EXTKIT_TEST_STOP_AFTER_WRITES=$2 timeout -k 5 "$TIMEOUT" \
		"$FSCK" -fy "$tmpdir/i.img" >"$tmpdir/i0.log" 2>&1
	_r0=$?
	if [ $_r0 -ne 99 ] || sanitizer_report "$tmpdir/i0.log"; then
		fail "stopped at write $2: exit $_r0, not 99"
		return
	fi
	repair "$tmpdir/i.img" "stopped at write $2, run again" || return
	manifest "$tmpdir/i.img" "$tmpdir/i.man"
	if cmp -s "$tmpdir/k.man" "$tmpdir/i.man"; then
		ok "stopped at write $2: the files are the kernel's"
	else
		fail "stopped at write $2: the files differ from the kernel's"
		diff "$tmpdir/k.man" "$tmpdir/i.man" | head -10
	fi
}

# A repair cut short anywhere, the fast-commit replay included, is
# done again in full by the next run: INTERRUPT_POINTS points spread
# over its writes (default 8; EXTKIT_LONG_TESTS=1: every write).
kernel_view "$img" "$tmpdir/k.man"
cp --sparse=always "$img" "$tmpdir/c.img"
EXTKIT_TEST_COUNT_WRITES=1 "$FSCK" -fy "$tmpdir/c.img" >"$tmpdir/c.log" 2>&1
writes=$(sed -n 's/^extkit-test: \([0-9]*\) writes$/\1/p' "$tmpdir/c.log")
if [ -n "$writes" ] && [ "$writes" -ge 2 ]; then
	points=${INTERRUPT_POINTS:-8}
	[ "${EXTKIT_LONG_TESTS:-0}" = 1 ] && points=$writes
	[ "$points" -gt "$writes" ] && points=$writes
	k=0
	while [ $k -lt "$points" ]; do
		interrupted "$img" $((1 + k * (writes - 1) / (points - 1)))
		k=$((k + 1))
	done
else
	echo "extkit-fsck built without test hooks: no interrupted repairs"
fi

itable=$("$DUMPE2FS" "$img" 2>/dev/null |
	awk '/Inode table at/ { split($4, a, "-"); print a[1]; exit }')
mangled "$img" "kernel: a byte flipped in fast commit 6" flip 6
mangled "$img" "kernel: fast commit 4 with a tag past its block" badlen 4
mangled "$img" "kernel: an unknown tag in fast commit 5" unknown 5
mangled "$img" "a byte flipped in the first fast commit" flip 0
mangled "$img" "an ADD_RANGE past the filesystem" outside 99999999
mangled "$img" "an ADD_RANGE over an inode table" meta "$itable"
mangled "$img" "an INODE tag of inode 0xfffffff0" badino
finish
