#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The f_ regression cases of extkit-fsck. Each tests/regress/f_*/ holds
# `name` (one line), `script` (builds ./image and damages it, with the
# helpers of helpers.sh), `expect.1` and `expect.2`. For each case:
#   - `extkit-fsck -fn` must leave the image byte for byte unchanged;
#   - `extkit-fsck -fy` runs twice; each log gets "Exit status is N" and
#     must equal expect.1 / expect.2 (the second run: clean, exit 0);
#   - `e2fsck -fn` must then find the image clean (exit 0); in a case
#     holding a file `refused` (an image no fsck can open), refuse it
#     too (exit 8 or more).
# A case may hold `after` too: run in the case's directory once all this
# passed (helpers.sh sourced), it fails the case by exiting non-zero
# (e.g. file contents: cat_sums).
# Usage: run.sh [CASE...] (names or directories; default: every f_*).
# REGRESS_SHARD=K/N runs only every N-th of the default cases, from the
# K-th (make check runs the cases as N shards in parallel: shard_K.sh).
# REGEN=1 rewrites the expect files from the output (review the diff);
# EXTKIT_FSCK runs another build of the binary.
. "${top_srcdir:-.}/tests/regress/env.sh"

# run_fsck LOG ARGS...: extkit-fsck with output and exit status in LOG.
run_fsck() {
	_log=$1
	shift
	ASAN_OPTIONS=${leak_check:-$ASAN_OPTIONS} \
		timeout -k 5 "$TIMEOUT" "$FSCK" "$@" >"$_log" 2>&1
	echo "Exit status is $?" >>"$_log"
}

# check_run CASE N: compares run N of CASE with its expect.N.
check_run() {
	_c=$1
	_n=$2
	if sanitizer_report "out.$_n"; then
		fail "$(basename "$_c"): run $_n: sanitizer report"
		sed 's/^/    /' "out.$_n" | head -20
		return 1
	fi
	if [ -n "$REGEN" ]; then
		cp "out.$_n" "$_c/expect.$_n"
		return 0
	fi
	if ! diff -u "$_c/expect.$_n" "out.$_n" >"diff.$_n" 2>&1; then
		fail "$(basename "$_c"): run $_n differs from expect.$_n"
		sed 's/^/    /' "diff.$_n" | head -40
		return 1
	fi
	return 0
}

run_case() {
	_c=$1
	_name=$(basename "$_c")
	_w=$tmpdir/$_name
	# the second run is a clean one: an expect.2 that is not would let a
	# repair that never converges pass (a refused image excepted)
	if [ ! -f "$_c/refused" ] && [ -z "$REGEN" ] &&
	   [ "$(tail -n 1 "$_c/expect.2")" != "Exit status is 0" ]; then
		fail "$_name: expect.2 does not end with a clean run (exit 0)"
		return
	fi
	mkdir -p "$_w" && cd "$_w" || exit 99
	if ! (. "$REGRESS_DIR/helpers.sh" && . "$_c/script") \
		>script.log 2>&1; then
		fail "$_name: script failed"
		sed 's/^/    /' script.log | head -10
		return
	fi
	_sum=$(sha256sum image)
	run_fsck out.n -fn image
	if [ "$(sha256sum image)" != "$_sum" ]; then
		fail "$_name: extkit-fsck -fn changed the image"
		return
	fi
	leak_check=$LEAK_ASAN_OPTIONS	# the repair run: leaks checked too
	run_fsck out.1 -fy image
	leak_check=
	check_run "$_c" 1 || return
	run_fsck out.2 -fy image
	check_run "$_c" 2 || return
	timeout -k 5 "$TIMEOUT" "$E2FSCK" -fn image >e2fsck.log 2>&1
	_e2=$?
	# a case with a file named "refused": an image both tools refuse
	# (e2fsck -fn exits 8 or more too), the expected runs saying why
	if [ -f "$_c/refused" ] && [ "$_e2" -lt 8 ]; then
		fail "$_name: e2fsck -fn does not refuse the image ($_e2)"
		return
	elif [ ! -f "$_c/refused" ] && [ "$_e2" -ne 0 ]; then
		fail "$_name: e2fsck -fn finds errors after the repair"
		sed 's/^/    /' e2fsck.log | head -20
		return
	fi
	if [ -f "$_c/after" ] &&
		! (. "$REGRESS_DIR/helpers.sh" && . "$_c/after") >after.log 2>&1
	then
		fail "$_name: after the repair:"
		sed 's/^/    /' after.log | head -20
		return
	fi
	ok "$_name: $(cat "$_c/name")"
	cd "$tmpdir" && rm -rf "$_w"
}

if [ $# -eq 0 ]; then
	set -- "$REGRESS_DIR"/f_*
	if [ -n "${REGRESS_SHARD:-}" ]; then
		_k=${REGRESS_SHARD%/*}
		_n=${REGRESS_SHARD#*/}
		_i=0
		for c in "$@"; do
			_i=$((_i + 1))
			[ $(((_i - 1) % _n + 1)) -eq "$_k" ] && set -- "$@" "$c"
		done
		shift "$_i"
	fi
fi
for c in "$@"; do
	case $c in
	*/*) ;;
	*) c=$REGRESS_DIR/$c ;;
	esac
	[ -d "$c" ] || { fail "$c: no such case"; continue; }
	run_case "$(cd "$c" && pwd)"
done
finish
