#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The slow f_ cases (tests/regress/slow/f_*), run the four ways of run.sh
# but outside make check: each needs an image too large for the shards
# (f_dir_nlink_feature: 65,001 directories; a few seconds of CPU for each
# of the five checks, minutes of wall time on a loaded machine). Each
# check may take up to $TIMEOUT seconds (default 600 here).
#   top_srcdir=. top_builddir=. sh tests/regress/slow.sh [CASE...]
TIMEOUT=${TIMEOUT:-600}
export TIMEOUT
top_srcdir=${top_srcdir:-.}
if [ $# -eq 0 ]; then
	set -- "$top_srcdir"/tests/regress/slow/f_*
fi
exec sh "$top_srcdir/tests/regress/run.sh" "$@"
