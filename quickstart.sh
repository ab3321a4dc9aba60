#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# extkit quickstart.
#   ./quickstart.sh        install build dependencies, build, run the demo
#   ./quickstart.sh test   install build dependencies, build, run every test
set -eu
cd "$(dirname "$0")"

DEPS="build-essential libblkid-dev uuid-dev libpopt-dev check libarchive-dev libunistring-dev liburing-dev attr acl genext2fs \
autoconf \
automake libtool pkg-config e2fsprogs python3 python3-jsonschema jq groff-base fdisk android-sdk-libsparse-utils"

install_deps() {
	missing=""
	for p in $DEPS; do
		dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
	done
	[ -z "$missing" ] && return 0
	if [ "$(id -u)" != 0 ]; then
		echo "quickstart: missing packages:$missing (run as root or install them)" >&2
		exit 1
	fi
	apt-get update
	DEBIAN_FRONTEND=noninteractive apt-get install -y $missing
}

build() {
	[ -x configure ] || autoreconf -fi
	if [ ! -f Makefile ] || [ "${1:-}" != "$(cat .quickstart-config 2>/dev/null)" ]; then
		./configure $1
		echo "$1" > .quickstart-config
	fi
	make -j"$(nproc)"
}

summary() {
	log=test-suite.log
	pass=$(sed -n 's/^# PASS: *//p' $log)
	fail=$(sed -n 's/^# FAIL: *//p' $log)
	xpass=$(sed -n 's/^# XPASS: *//p' $log)
	err=$(sed -n 's/^# ERROR: *//p' $log)
	skip=$(sed -n 's/^# SKIP: *//p' $log)
	echo "${pass:-0} passed, $(( ${fail:-0} + ${xpass:-0} + ${err:-0} )) failed, ${skip:-0} skipped"
}

demo() {
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	echo "== extkit-mkfs -L demo demo.img 64M"
	./extkit-mkfs -L demo "$tmp/demo.img" 64M
	echo "== extkit-dump demo.img super"
	./extkit-dump "$tmp/demo.img" super
	echo "== extkit-dump demo.img ls -l /"
	./extkit-dump "$tmp/demo.img" ls -l /
	echo "== extkit-fsck -fn demo.img"
	./extkit-fsck -fn "$tmp/demo.img"
}

case "${1:-}" in
test)
	install_deps
	build --enable-sanitizers
	rc=0
	make -j"$(nproc)" check || rc=$?
	[ $rc -eq 0 ] || cat test-suite.log | tail -n 80 >&2
	summary
	exit $rc
	;;
"")
	install_deps
	build ""
	demo
	;;
*)
	echo "usage: $0 [test]" >&2
	exit 1
	;;
esac
