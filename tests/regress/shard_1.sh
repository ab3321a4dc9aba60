# SPDX-License-Identifier: GPL-2.0-or-later
# Shard 1 of 4 of the f_ cases (tests/regress/run.sh runs them all).
REGRESS_SHARD=1/4
. "${top_srcdir:-.}/tests/regress/run.sh"
