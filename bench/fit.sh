#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# extkit-mkfs -d TREE IMAGE without SIZE (issue 35) on five large trees,
# as ext2 and ext4 (the defaults of mke2fs.conf): the fitted size against
# the smallest size that works, found by bisection with real runs (a
# size works when `extkit-mkfs -d TREE IMAGE SIZE` succeeds and e2fsck
# -fn finds the image clean). The fitted image must be e2fsck -fn clean,
# the kernel must mount it (loop, read-only) and the tree must compare
# equal: names, types, link targets, device numbers and bytes (as diff
# -r, reading only where either side has data), the attributes (getfattr -d -m - of every path) and a
# stat listing (type, mode, owner, group, size, links, mtime with
# nanoseconds, link target). The bound: the fitted size at most 1% (or
# one block group) above the smallest that works.
# Trees (TREES, in this order by default):
#   debian    a Debian root: debootstrap --variant=minbase stable (when
#             debootstrap is installed and the mirror answers; DEBIAN_ROOT
#             names one made already), else a copy of this machine's
#             /usr, /etc and /var/lib/dpkg into one root
#   usrshare  /usr/share
#   files     FILES_N small files (a few bytes to 400), 1,000 a directory
#   sparse    4 sparse files of 1, 4, 20 and 64 GiB with 200 MB of data
#   xattr     4,000 files with 1 to 4 user attributes of 10 to 900 bytes
#             and 20 directories with one of 3,000 bytes
# Environment: EXTKIT_MKFS (default ./extkit-mkfs; build without
# sanitizers), BENCH_DIR (default /var/tmp/fit-bench: the trees are made
# once there and kept), TREES, FSTYPES (default "ext2 ext4"), FILES_N
# (default 1000000), PRECISION (the bisection stops when its bounds are
# this many per mille of the fitted size apart, default 2), MIRROR,
# ARCHIVES (the trees also fitted from a pax archive of them, made with
# tar once: default "debian sparse xattr").
#   sh bench/fit.sh
# Not part of make check (tests/mkfs/fit.sh is the bounded version).
# Measured (release build, 2 shared cores, load 12-16): the table in
# README.md, "Building an image from a tree or an archive".
set -u
cd "$(dirname "$0")/.." || exit 1
MKFS=${EXTKIT_MKFS:-./extkit-mkfs}
case $MKFS in /*) ;; *) MKFS=$PWD/$MKFS ;; esac
PATH=$PATH:/sbin:/usr/sbin
E2FSCK=$(command -v e2fsck) || { echo "e2fsck not found" >&2; exit 1; }
DUMPE2FS=$(command -v dumpe2fs) || { echo "dumpe2fs not found" >&2; exit 1; }
[ -x "$MKFS" ] || { echo "$MKFS not built" >&2; exit 1; }
dir=${BENCH_DIR:-/var/tmp/fit-bench}
TREES=${TREES:-"debian usrshare files sparse xattr"}
FSTYPES=${FSTYPES:-"ext2 ext4"}
FILES_N=${FILES_N:-1000000}
PRECISION=${PRECISION:-2}
ARCHIVES=${ARCHIVES:-"debian sparse xattr"}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
mkdir -p "$dir/trees" "$dir/mnt" || exit 1
img=$dir/fit.img
try=$dir/try.img
mnt=$dir/mnt
cleanup() {
	mountpoint -q "$mnt" 2>/dev/null && umount "$mnt"
	rm -f "$img" "$try"
}
trap cleanup EXIT

# make_tree NAME: the tree's path on stdout (made under $dir/trees once).
make_tree() {
	t=$dir/trees/$1
	case $1 in
	usrshare) echo /usr/share; return ;;
	debian)
		if [ -n "${DEBIAN_ROOT:-}" ]; then
			echo "$DEBIAN_ROOT"
			return
		fi
		if [ ! -e "$t.done" ]; then
			rm -rf "$t"
			if command -v debootstrap >/dev/null &&
			   debootstrap --variant=minbase stable "$t" "$MIRROR" \
				>"$dir/debootstrap.log" 2>&1; then
				echo "debootstrap --variant=minbase stable" >"$t.done"
			else
				rm -rf "$t"
				mkdir -p "$t/var/lib" || exit 1
				cp -a /usr /etc "$t/" && cp -a /var/lib/dpkg "$t/var/lib/" ||
					exit 1
				echo "a copy of /usr /etc /var/lib/dpkg" >"$t.done"
			fi
		fi
		echo "$t"
		return ;;
	esac
	[ -e "$t.done" ] && { echo "$t"; return; }
	rm -rf "$t"
	python3 - "$1" "$t" "$FILES_N" <<'EOF' >&2 || exit 1
import os, sys, random
kind, root, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
r = random.Random(35)
if kind == "files":
    per = 1000
    for d in range((n + per - 1) // per):
        p = os.path.join(root, "d%04d" % d)
        os.makedirs(p)
        for f in range(min(per, n - d * per)):
            with open(os.path.join(p, "f%04d" % f), "w") as fh:
                fh.write("%d/%d\n" % (d, f) * r.randrange(1, 40))
elif kind == "sparse":
    os.makedirs(root)
    for i, gib in enumerate([1, 4, 20, 64]):
        with open(os.path.join(root, "s%d" % i), "wb") as fh:
            fh.truncate(gib << 30)
            for k in range(40 * (i + 1)):
                fh.seek(r.randrange(0, (gib << 30) - (1 << 20)))
                fh.write(os.urandom(r.randrange(1, 1 << 20)))
elif kind == "xattr":
    os.makedirs(root)
    for d in range(20):
        p = os.path.join(root, "d%02d" % d)
        os.makedirs(p)
        for f in range(200):
            fn = os.path.join(p, "f%03d" % f)
            with open(fn, "w") as fh:
                fh.write("x" * r.randrange(0, 5000))
            for k in range(r.randrange(1, 5)):
                os.setxattr(fn, "user.attr%d" % k,
                            os.urandom(r.randrange(10, 900)))
        os.setxattr(p, "user.dir", b"y" * 3000)
EOF
	touch "$t.done"
	echo "$t"
}

# works TREE FS KIB: extkit-mkfs -d at KIB KiB succeeds, e2fsck -fn clean.
works() {
	rm -f "$try"
	"$MKFS" -q -t "$2" -d "$1" "$try" "${3}k" >/dev/null 2>&1 &&
		"$E2FSCK" -fn "$try" >/dev/null 2>&1
	_r=$?
	rm -f "$try"
	return $_r
}

# smallest TREE FS FITTED: the smallest size in KiB that works, to
# PRECISION per mille of FITTED (the fitted size is not assumed to work).
smallest() {
	_hi=
	_lo=
	for _pm in 1000 990 950 800 500 0; do
		_k=$(($3 * _pm / 1000))
		[ "$_k" -lt 64 ] && _k=64
		if works "$1" "$2" "$_k"; then _hi=$_k; else _lo=$_k; break; fi
	done
	if [ -z "$_hi" ]; then		# the fitted size failed: look above
		_hi=$(($3 * 2))
		while ! works "$1" "$2" "$_hi"; do _lo=$_hi; _hi=$((_hi * 2)); done
	fi
	_step=$(($3 * PRECISION / 1000))
	[ "$_step" -lt 4 ] && _step=4
	while [ $((_hi - _lo)) -gt "$_step" ]; do
		_mid=$(((_lo + _hi) / 2))
		if works "$1" "$2" "$_mid"; then _hi=$_mid; else _lo=$_mid; fi
	done
	echo "$_hi"
}

# listing DIR: the stat listing compared (directories' sizes and links
# differ between filesystems and lost+found is the image's).
listing() {
	(cd "$1" && find . -path ./lost+found -prune -o ! -type d \
		-printf '%p %y %m %U %G %s %n %T@ %l\n' -o -type d \
		-printf '%p d %m %U %G %T@\n') | sort
}

attrs() {
	(cd "$1" && getfattr -R -P -d -m - -e hex . 2>/dev/null) |
		awk '/^# file:/ { f = $3; next } NF && f !~ /^lost\+found/ {
		     print f, $0 }' | sort
}

# same_tree A B: the same names, types, link targets, device numbers
# and file bytes (diff -r, but a file's bytes are read only where either
# side has data: diff took minutes over 89 GiB of holes).
same_tree() {
	python3 - "$1" "$2" <<'EOF'
import os, stat, sys
a, b = sys.argv[1], sys.argv[2]
def segs(fd, size):
    out, off = [], 0
    while off < size:
        try:
            d = os.lseek(fd, off, os.SEEK_DATA)
        except OSError:
            break
        h = os.lseek(fd, d, os.SEEK_HOLE)
        out.append((d, h))
        off = h
    return out
def same_file(x, y):
    with open(x, "rb") as f, open(y, "rb") as g:
        size = os.fstat(f.fileno()).st_size
        if size != os.fstat(g.fileno()).st_size:
            return False
        for d, h in sorted(segs(f.fileno(), size) + segs(g.fileno(), size)):
            f.seek(d); g.seek(d)
            while d < h:
                n = min(h - d, 1 << 20)
                if f.read(n) != g.read(n):
                    return False
                d += n
    return True
bad = 0
for root, dirs, files in os.walk(a):
    rel = os.path.relpath(root, a)
    other = os.path.join(b, rel)
    got = sorted(n for n in os.listdir(other)
                 if not (rel == "." and n == "lost+found"))
    if sorted(dirs + files) != got:
        print("names differ in", rel, file=sys.stderr); bad = 1; continue
    for n in files + dirs:
        x, y = os.path.join(root, n), os.path.join(other, n)
        sx, sy = os.lstat(x), os.lstat(y)
        if stat.S_IFMT(sx.st_mode) != stat.S_IFMT(sy.st_mode):
            print("type differs:", x, file=sys.stderr); bad = 1
        elif stat.S_ISLNK(sx.st_mode):
            if os.readlink(x) != os.readlink(y):
                print("link differs:", x, file=sys.stderr); bad = 1
        elif stat.S_ISREG(sx.st_mode) and not same_file(x, y):
            print("content differs:", x, file=sys.stderr); bad = 1
        elif (stat.S_ISCHR(sx.st_mode) or stat.S_ISBLK(sx.st_mode)) and \
             sx.st_rdev != sy.st_rdev:
            print("device differs:", x, file=sys.stderr); bad = 1
sys.exit(bad)
EOF
}

# compare TREE: the mounted image against TREE; "ok" or what differs.
compare() {
	[ "$(id -u)" = 0 ] || { echo "not-root"; return; }
	mount -o loop,ro "$img" "$mnt" 2>/dev/null || { echo "NO-MOUNT"; return; }
	_c=
	same_tree "$1" "$mnt" 2>>"$dir/compare.err" || _c="${_c}content "
	if command -v getfattr >/dev/null; then
		[ "$(attrs "$1" | cksum)" = "$(attrs "$mnt" | cksum)" ] ||
			_c="${_c}xattrs "
	fi
	[ "$(listing "$1" | cksum)" = "$(listing "$mnt" | cksum)" ] ||
		_c="${_c}stat "
	umount "$mnt"
	echo "${_c:-equal}"
}

echo "extkit-mkfs -d TREE IMAGE (no SIZE) against the smallest SIZE that" \
	"works (bisection to $PRECISION per mille); load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-12s %-4s %8s %8s %11s %11s %7s %9s %6s %-14s %6s\n' tree fs \
	inodes "used MB" "fitted KiB" "least KiB" "over" "group KiB" fsck \
	"mounted tree" "mkfs s"
# row NAME SOURCE TREE: one filesystem type after the other, SOURCE
# fitted, checked, compared with TREE and set against the least size.
row() {
	for fs in $FSTYPES; do
		rm -f "$img"
		t0=$(date +%s.%N)
		if ! "$MKFS" -q -t "$fs" -d "$2" "$img" >"$dir/err" 2>&1; then
			printf '%-12s %-4s fit FAILED: %s\n' "$1" "$fs" "$(head -1 "$dir/err")"
			continue
		fi
		t1=$(date +%s.%N)
		kib=$(($(stat -c %s "$img") / 1024))
		"$E2FSCK" -fn "$img" >"$dir/fsck.out" 2>&1 && clean=clean || clean=ERRORS
		"$DUMPE2FS" -h "$img" >"$dir/sb" 2>/dev/null
		bpg=$(sed -n 's/^Blocks per group: *//p' "$dir/sb")
		bs=$(sed -n 's/^Block size: *//p' "$dir/sb")
		inodes=$(awk -F: '/^Inode count/ { n = $2 } /^Free inodes/ { f = $2 }
			END { print n - f }' "$dir/sb")
		used=$(awk -F: -v bs="$bs" '/^Block count/ { n = $2 }
			/^Free blocks/ { f = $2 }
			END { printf "%.0f", (n - f) * bs / 1048576 }' "$dir/sb")
		cmp=$(compare "$3")
		least=$(smallest "$2" "$fs" "$kib")
		over=$((kib - least))
		pct=$(echo "scale=2; 100 * $over / $least" | bc)
		group=$((bpg * bs / 1024))
		verdict=
		[ "$over" -lt 0 ] && verdict=" (below!)"
		[ "$over" -gt 0 ] && [ $((over * 100)) -gt "$least" ] &&
			[ "$over" -gt "$group" ] && verdict=" (TOO BIG)"
		printf '%-12s %-4s %8s %8s %11s %11s %6s%% %9s %6s %-14s %6.1f%s\n' \
			"$1" "$fs" "$inodes" "$used" "$kib" "$least" "$pct" \
			"$group" "$clean" "$cmp" "$(echo "$t1 - $t0" | bc)" "$verdict"
	done
}

for name in $TREES; do
	tree=$(make_tree "$name") || { echo "$name: the tree could not be made"; continue; }
	[ "$name" = debian ] && [ -e "$tree.done" ] &&
		echo "(debian: $(cat "$tree.done"))"
	row "$name" "$tree" "$tree"
	case " $ARCHIVES " in *" $name "*) ;; *) continue ;; esac
	# the same tree as a pax archive (sparse, attributes, ACLs, owners
	# by number), fitted from the archive
	if [ ! -e "$dir/trees/$name.tar.done" ]; then
		tar -C "$tree" --format=pax --sparse --xattrs \
			--xattrs-include='*' --acls --numeric-owner \
			-cf "$dir/trees/$name.tar" . 2>"$dir/tar.err" &&
			touch "$dir/trees/$name.tar.done" ||
			{ echo "$name.tar: $(head -1 "$dir/tar.err")"; continue; }
	fi
	row "$name.tar" "$dir/trees/$name.tar" "$tree"
done
