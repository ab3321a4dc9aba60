# SPDX-License-Identifier: GPL-2.0-or-later
# Shard 2 of 4 of the f_ cases (tests/regress/run.sh runs them all).
REGRESS_SHARD=2/4
. "${top_srcdir:-.}/tests/regress/run.sh"
