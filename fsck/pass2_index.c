// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pass 2: why an htree directory's index cannot stand (the library's
 * verdict, htree.c, in e2fsck's terms), for the index check after the
 * walk and for the checksum check of an index block (pass2_csum.c).
 */
#include "config.h"

#include <errno.h>

#include "htree.h"

#include "fsck.h"
#include "pass2.h"
#include "problem.h"

const char *pass2_index_problem(struct dir_state *ds, int indexed,
				uint32_t *code, uint64_t *num)
{
	struct extkit_htree_report rep;
	int rc;

	if (!indexed)
		return "the index root is not valid";
	if (ds->index_broken)
		return "entries were changed";
	rc = extkit_htree_verify(ds->ctx->fs, ds->ino, &rep);
	if (rc != -ENODATA && rc != -ENOMEM &&
	    !extkit_htree_version_known(rep.hash_version)) {
		*code = PR_2_HTREE_HASHV;
		*num = rep.hash_version;
		return "unsupported hash version";
	}
	if (rc)
		return NULL;
	/* e2fsck clears these as it reads the index block (preen may);
	 * the rest it finds checking the whole tree, and then asks */
	if (rep.bad_node)
		return "an index block has a wrong limit or count, or "
		       "entries out of hash order";
	*code = PR_2_HTREE_CLEAR;
	if (rep.bad_index)
		return "the index entries are not sorted or out of range";
	if (rep.bad_hash)
		return "entries lie outside the hash range of their block";
	if (rep.unhashable)
		return "a casefolded name is not UTF-8, so the kernel and "
		       "e2fsck hash it differently";
	return NULL;
}
