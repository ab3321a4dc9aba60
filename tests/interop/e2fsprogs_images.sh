#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# extkit-fsck on e2fsprogs' own test filesystems: the damaged images of
# its tests/ (image.gz, image.bz2) and those its scripts build with mke2fs
# and debugfs (the part of the script before run_e2fsck, or before its
# last fsck run: the journal tests write transactions). Not part of
# make check: it needs e2fsprogs' source (E2FSPROGS_SRC, or fetched with
# `apt-get source` where deb-src is configured). For each filesystem:
#   e2fsck -fy on a copy, twice (what e2fsck makes of it: its exit codes);
#   extkit-fsck -fn writes nothing; -fy; e2fsck -fn is clean after it; a
#   second -fy exits 0; no crash or sanitizer report.
# Classes: ok; refused (extkit and e2fsck both exit 8 or more); crash;
# hang; fnwrote; refuses (extkit refuses what e2fsck repairs); unclean
# (e2fsck -fn finds errors after extkit's repair, or -fy exits 4 or
# more); nonconv (the second -fy changes more). Where e2fsck itself needs
# a second run (its second exit is not 0) unclean and nonconv are
# reported as e2-nonconv: not extkit's failure alone.
# Prints one line per filesystem and a table; FAIL lines name the tests.
#   E2FSPROGS_SRC=/path/to/e2fsprogs-1.47.0 top_srcdir=. top_builddir=. \
#     sh tests/interop/e2fsprogs_images.sh [TEST...]
# The images are e2fsprogs' (GPL-2.0): read at run time, never copied in.
. "${top_srcdir:-.}/tests/regress/env.sh"
cd "$tmpdir" || exit 99
src=${E2FSPROGS_SRC:-}
if [ -z "$src" ]; then
	command -v apt-get >/dev/null 2>&1 || skip "set E2FSPROGS_SRC"
	(apt-get source --download-only e2fsprogs >/dev/null 2>&1) ||
		skip "set E2FSPROGS_SRC (apt-get source e2fsprogs failed)"
	tar xzf e2fsprogs_*.orig.tar.gz || exit 99
	src=$(ls -d "$tmpdir"/e2fsprogs-*/ | head -1)
fi
T=$src/tests
[ -d "$T" ] || { echo "ERROR: $T not found" >&2; exit 99; }
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0} E2FSCK_CONFIG=/dev/null

# get TEST: ./orig from the test's image, or built by its script; 1 when
# the test has neither.
get() {
	rm -f orig
	if [ -f "$T/$1/image.gz" ]; then
		gunzip -c "$T/$1/image.gz" >orig 2>/dev/null
	elif [ -f "$T/$1/image.bz2" ]; then
		bunzip2 -c "$T/$1/image.bz2" >orig 2>/dev/null
	elif [ -f "$T/$1/script" ] && grep -q run_e2fsck "$T/$1/script"; then
		awk '/run_e2fsck/ { exit } { print }' "$T/$1/script" >pre.sh
		build "$1"
	elif [ -f "$T/$1/script" ] && grep -q '^\$FSCK' "$T/$1/script"; then
		# the journal tests: up to the last fsck run (the earlier
		# ones check the fresh image: skipped)
		_last=$(grep -n '^\$FSCK' "$T/$1/script" | tail -1 | cut -d: -f1)
		head -n $((_last - 1)) "$T/$1/script" >pre.sh
		build "$1"
	fi
	[ -s orig ]
}

# build TEST: runs pre.sh (the start of TEST's script) to make ./orig.
build() {
	(TMPFILE=$PWD/orig MKE2FS=$MKE2FS DEBUGFS=$DEBUGFS \
	 DEBUGFS_EXE=$DEBUGFS TUNE2FS=$(command -v tune2fs) \
	 E2FSCK=$E2FSCK FSCK=true test_name=$1 test_dir=$T/$1 \
	 cmd_dir=$T SRCDIR=$T MKE2FS_CONFIG=$T/mke2fs.conf.in \
	 timeout 120 sh pre.sh) >/dev/null 2>&1 </dev/null
}

# data_sum FILE: metasweep.py's hash of FILE's blocks that hold data,
# with their offsets (holes skipped: m_hugefile's image is 4 TiB, nearly
# all of it a hole).
data_sum() {
	PYTHONPATH=$top_srcdir/tests/regress python3 -c \
		'import sys, metasweep; print(metasweep.sha256(sys.argv[1]))' "$1"
}

# check TEST: the runs and the class of TEST (in $class).
check() {
	cp orig e2; timeout 60 "$E2FSCK" -fy e2 >e2.1 2>&1; e1=$?
	timeout 60 "$E2FSCK" -fy e2 >/dev/null 2>&1; e2=$?
	cp orig x; _sum=$(data_sum x)
	timeout -k 5 60 "$FSCK" -fn x >out.n 2>&1 </dev/null; rn=$?
	if [ "$(data_sum x)" != "$_sum" ]; then
		class=fnwrote
		return
	fi
	timeout -k 5 60 "$FSCK" -fy x >out.1 2>&1 </dev/null; r1=$?
	timeout 60 "$E2FSCK" -fn x >chk 2>&1; rc=$?
	timeout -k 5 60 "$FSCK" -fy x >out.2 2>&1 </dev/null; r2=$?
	if sanitizer_report out.n || sanitizer_report out.1 ||
		sanitizer_report out.2; then
		class=crash
	elif [ $rn -ge 124 ] || [ $r1 -ge 124 ] || [ $r2 -ge 124 ]; then
		case "$rn$r1$r2" in *124*|*137*) class=hang ;; *) class=crash ;;
		esac
	elif [ $r1 -ge 8 ]; then
		[ $e1 -ge 8 ] && class=refused || class=refuses
	elif [ $r1 -ge 4 ] || [ $rc -ne 0 ]; then
		[ $e2 -eq 0 ] && class=unclean || class=e2-nonconv
	elif [ $r2 -ne 0 ]; then
		[ $e2 -eq 0 ] && class=nonconv || class=e2-nonconv
	else
		class=ok
	fi
}

classes="ok refused e2-nonconv crash hang fnwrote refuses unclean nonconv"
for c in $classes; do eval "n_$(echo $c | tr - _)=0"; done
tests=${*:-$(cd "$T" && ls -d [fjmrd]_* 2>/dev/null)}
for t in $tests; do
	get "$t" || continue
	check "$t"
	line="$t: $class (e2fsck -fy $e1 then $e2; extkit -fn $rn, -fy $r1 then ${r2:--}, e2fsck -fn after ${rc:--})"
	case $class in
	ok | refused | e2-nonconv) ok "$line" ;;
	*) fail "$line"
	   grep -h -A3 -e Sanitizer -e 'runtime error' out.n out.1 out.2 \
		2>/dev/null | head -6 ;;
	esac
	_v=n_$(echo "$class" | tr - _)
	eval "$_v=\$(($_v + 1))"
	r2= rc=
done
printf '%-10s ' $classes; echo
for c in $classes; do eval "printf '%-10s ' \$n_$(echo $c | tr - _)"; done
echo
finish
