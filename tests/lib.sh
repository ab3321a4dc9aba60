# SPDX-License-Identifier: GPL-2.0-or-later
# Shared helpers for the shell tests. Source it after setting nothing:
#   . "${top_srcdir:-.}/tests/lib.sh"
# It sets top_srcdir/top_builddir (when make did not), the tool paths, a
# private $tmpdir removed on exit, and the fail/check/finish helpers.
# Exit codes: 0 pass, 1 fail, 77 skip, 99 hard error.

: "${top_srcdir:=.}"
: "${top_builddir:=.}"
top_srcdir=$(cd "$top_srcdir" && pwd) || exit 99
top_builddir=$(cd "$top_builddir" && pwd) || exit 99
export top_srcdir top_builddir

LC_ALL=C
TZ=UTC
export LC_ALL TZ
# Sanitizer reports must be seen: a distinct exit code, no recovery.
# The leak check costs ~70 ms at every exit, over half of a small run:
# it is on where it pays (LEAK_ASAN_OPTIONS: each f_ case's repair run,
# the garbage-input dump test, the unit suites), off for the rest.
LEAK_ASAN_OPTIONS=exitcode=66:abort_on_error=0:detect_leaks=1
ASAN_OPTIONS=${ASAN_OPTIONS:-exitcode=66:abort_on_error=0:detect_leaks=0}
UBSAN_OPTIONS=${UBSAN_OPTIONS:-exitcode=66:print_stacktrace=1:halt_on_error=1}
export ASAN_OPTIONS UBSAN_OPTIONS
# Reproducible e2fsprogs runs, no pager, no user config.
E2FSPROGS_FAKE_TIME=1700000000
SOURCE_DATE_EPOCH=1700000000
E2FSCK_CONFIG=/dev/null
PAGER=__none__
DEBUGFS_PAGER=__none__
export E2FSPROGS_FAKE_TIME SOURCE_DATE_EPOCH E2FSCK_CONFIG PAGER DEBUGFS_PAGER

DUMP=$top_builddir/extkit-dump
# Every command gets a deadline: a hang is a failure, not a stuck run.
TIMEOUT=${TIMEOUT:-20}

failures=0
checks=0

tmpdir=$(mktemp -d "${TMPDIR:-/tmp}/extkit-test.XXXXXX") || exit 99
trap 'rm -rf "$tmpdir"' EXIT
trap 'exit 1' HUP INT TERM

# python3 through a version-manager shim (pyenv's is a shell script)
# costs about a second of CPU per start. Ask it once which interpreter
# it runs and put that one first in PATH, for the scripts, their #!
# lines and their subprocesses alike.
if [ -z "${EXTKIT_PYTHON3:-}" ] &&
    EXTKIT_PYTHON3=$(python3 -c 'import sys; print(sys.executable)' \
	2>/dev/null) && [ -x "$EXTKIT_PYTHON3" ]; then
	mkdir -p "$tmpdir/bin" &&
		ln -s "$EXTKIT_PYTHON3" "$tmpdir/bin/python3" &&
		PATH=$tmpdir/bin:$PATH
	export EXTKIT_PYTHON3 PATH
fi

# use_mount_point: $mnt, a directory under $tmpdir for loop mounts; at
# exit it is unmounted (when still mounted) before $tmpdir is removed.
use_mount_point() {
	mnt=$tmpdir/mnt
	mkdir -p "$mnt" || exit 99
	trap 'mountpoint -q "$mnt" 2>/dev/null && umount "$mnt"; rm -rf "$tmpdir"' EXIT
}

# fail MESSAGE: records a failure and goes on.
fail() {
	echo "FAIL: $*"
	failures=$((failures + 1))
}

# ok MESSAGE: records a passed check.
ok() {
	echo "ok: $*"
	checks=$((checks + 1))
}

# skip MESSAGE: the whole test is skipped.
skip() {
	echo "SKIP: $*"
	exit 77
}

# finish: the exit status from the checks recorded.
finish() {
	echo "$checks passed, $failures failed"
	[ "$failures" -eq 0 ] || exit 1
	exit 0
}

# find_tool NAME: prints the path of an e2fsprogs (or other) tool,
# looking in $PATH and the sbin directories.
find_tool() {
	PATH=$PATH:/sbin:/usr/sbin:/usr/local/sbin command -v "$1" 2>/dev/null
}

# need_tools NAME...: sets MKE2FS, DEBUGFS, ... (upper-cased names) or
# skips the test when one is missing.
need_tools() {
	for t in "$@"; do
		# shellcheck disable=SC2034 # read by the eval below
		p=$(find_tool "$t") || skip "$t not found"
		v=$(echo "$t" | tr 'a-z0-9.-' 'A-Z0-9__')
		eval "$v=\$p"
	done
}

# need_dump: the tool under test must have been built.
need_dump() {
	[ -x "$DUMP" ] || { echo "ERROR: $DUMP not built"; exit 99; }
}

# run_dump OUT ERR ARGS...: runs extkit-dump under the deadline with
# stdout to OUT and stderr to ERR; returns its exit status (124: hang).
run_dump() {
	_out=$1
	_err=$2
	shift 2
	timeout -k 5 "$TIMEOUT" "$DUMP" "$@" >"$_out" 2>"$_err"
}

# sanitizer_report FILE: true if FILE holds a sanitizer diagnostic.
sanitizer_report() {
	grep -q -e 'Sanitizer' -e 'runtime error:' -e '^SUMMARY:' "$1"
}

# expect_fail_one_line DESC ARGS...: extkit-dump must exit 1 with exactly
# one line on stderr, starting "extkit-dump: ", and no sanitizer report.
expect_fail_one_line() {
	_desc=$1
	shift
	run_dump "$tmpdir/out" "$tmpdir/err" "$@"
	_rc=$?
	_lines=$(wc -l <"$tmpdir/err")
	if sanitizer_report "$tmpdir/err"; then
		fail "$_desc: sanitizer report"
		sed 's/^/    /' "$tmpdir/err" | head -20
	elif [ "$_rc" -eq 124 ] || [ "$_rc" -eq 137 ]; then
		fail "$_desc: timed out after ${TIMEOUT}s"
	elif [ "$_rc" -ne 1 ]; then
		fail "$_desc: exit $_rc, expected 1"
		sed 's/^/    /' "$tmpdir/err" | head -5
	elif [ "$_lines" -ne 1 ]; then
		fail "$_desc: $_lines lines on stderr, expected 1"
		sed 's/^/    /' "$tmpdir/err" | head -5
	elif ! grep -q '^extkit-dump: ' "$tmpdir/err"; then
		fail "$_desc: message does not start with 'extkit-dump: '"
		sed 's/^/    /' "$tmpdir/err"
	else
		ok "$_desc: exit 1: $(cat "$tmpdir/err")"
	fi
}

# expect_success DESC ARGS...: exit 0, nothing on stderr; output in
# $tmpdir/out.
expect_success() {
	_desc=$1
	shift
	run_dump "$tmpdir/out" "$tmpdir/err" "$@"
	_rc=$?
	if [ "$_rc" -ne 0 ] || [ -s "$tmpdir/err" ]; then
		fail "$_desc: exit $_rc"
		sed 's/^/    /' "$tmpdir/err" | head -20
		return 1
	fi
	ok "$_desc"
	return 0
}

# dump_mutant SEED IMG ARGS...: extkit-dump ARGS on the mutated image IMG,
# as text and with --json. Each run must end with exit 0 or 1, without a
# sanitizer report, and with JSON that parses when it succeeds; that JSON
# is kept as $tmpdir/mutjson/SEED.json (mutants_fit_schema). Prints what
# went wrong; returns 1 then.
dump_mutant() {
	_seed=$1
	_mimg=$2
	shift 2
	_bad=0
	mkdir -p "$tmpdir/mutjson" || exit 99
	for _j in "" --json; do
		# shellcheck disable=SC2086 # $_j: empty or one word
		run_dump "$tmpdir/out" "$tmpdir/err" $_j "$_mimg" "$@"
		_rc=$?
		if [ $_rc -gt 1 ] || sanitizer_report "$tmpdir/err" ||
		    { [ -n "$_j" ] && [ $_rc -eq 0 ] &&
		      ! json_valid "$tmpdir/out"; }; then
			_bad=1
			echo "seed $_seed $_j: exit $_rc"; head -3 "$tmpdir/err"
		fi
		[ -n "$_j" ] && [ $_rc -eq 0 ] &&
			cp "$tmpdir/out" "$tmpdir/mutjson/$_seed.json"
	done
	return $_bad
}

# mutants_fit_schema DEF: every JSON document dump_mutant kept validates
# against man/extkit-dump.schema.json's #/$defs/DEF (true without
# python3-jsonschema).
mutants_fit_schema() {
	python3 - "$top_srcdir/man/extkit-dump.schema.json" "$1" \
	    "$tmpdir"/mutjson/*.json <<'PY'
import json, sys
try:
    import jsonschema
except ImportError:
    sys.exit(0)
schema = json.load(open(sys.argv[1]))
del schema["anyOf"]
schema["$ref"] = "#/$defs/" + sys.argv[2]
v = jsonschema.Draft202012Validator(schema)
bad = [f for f in sys.argv[3:] if not v.is_valid(json.load(open(f)))]
sys.exit(1 if bad else 0)
PY
}

# json_valid FILE: true if FILE holds one valid JSON document (jq would
# also take several documents in a row, so python3 comes first).
json_valid() {
	if command -v python3 >/dev/null 2>&1; then
		python3 -m json.tool "$1" >/dev/null 2>&1
	else
		jq -e . "$1" >/dev/null 2>&1
	fi
}
