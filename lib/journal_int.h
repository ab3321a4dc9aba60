/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Helpers shared by journal.c and journal_replay.c (not installed API). */
#ifndef EXTKIT_JOURNAL_INT_H
#define EXTKIT_JOURNAL_INT_H

#include "jbd2_ondisk.h"
#include "journal.h"

static inline int jbd2_has_csum_v2or3(const struct extkit_journal *j)
{
	return (j->incompat & (JBD2_FEATURE_INCOMPAT_CSUM_V2 |
			       JBD2_FEATURE_INCOMPAT_CSUM_V3)) != 0;
}

#endif /* EXTKIT_JOURNAL_INT_H */
