/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Writing one jbd2 transaction into an empty log, as the kernel's
 * fs/jbd2/commit.c lays it out: descriptor blocks (tags with the
 * journal's checksum version, the UUID after each descriptor's first
 * tag, a crc32c tail with csum v2/v3), the data blocks (escaped when they
 * begin with the jbd2 magic), a commit block. The journal superblock is
 * not touched: the log stays invisible until s_start is set
 * (extkit_journal_write_super), which is the commit point.
 */
#ifndef EXTKIT_JOURNAL_WRITE_H
#define EXTKIT_JOURNAL_WRITE_H

#include <stdint.h>

#include "io_overlay.h"
#include "journal.h"

/* Log blocks a transaction of n blocks takes (descriptors, data,
 * commit), or 0 when the journal's format cannot be written (the v1
 * COMPAT_CHECKSUM, a block size other than the filesystem's). */
uint64_t extkit_journal_transaction_blocks(const struct extkit_journal *j,
					   uint64_t n);
/*
 * Writes blocks b[0..n) as transaction j->sequence from log block
 * j->first. -ENOSPC when the log between s_first and the fast-commit
 * area cannot hold it, -EBUSY when the log is not empty; nothing is
 * written then.
 */
int extkit_journal_write_transaction(struct extkit_journal *j,
				     const struct extkit_plan_block *b,
				     uint64_t n);

#endif /* EXTKIT_JOURNAL_WRITE_H */
