// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mkfs -d, the shared engine (see populate.h), its state and messages.
 * The engine: inodes are taken one after the other and written whole
 * (popinode.c) through a window of the inode table (popitab.c); file data
 * goes out in runs of physically contiguous blocks (popdata.c); a
 * directory is laid out in memory in one go and written once (popdir.c);
 * hard links are counted in a map (popmap.c). Nothing walks a directory
 * already written: adding N names costs O(N).
 */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "cli/msg.h"

#include "populate.h"

/* ---- set up ---- */

/* The highest inode in use before populate (mkfs's own, a handful). */
static uint32_t last_used(const struct extkit_fsbuild *fb)
{
	uint64_t n = fb->fs->sb.inodes_count, from = 0, at, last = 0;

	while (from < n &&
	       !extkit_bitmap_find_first_set(&fb->inodes, from, n - from, &at))
		last = at + 1, from = at + 1;
	return (uint32_t)last;
}

int pop_init(struct pop *p, const struct mkfs_opts *o, struct extkit_fs *fs,
	     const struct mkfs_layout *l)
{
	int rc;

	memset(p, 0, sizeof(*p));
	p->o = o;
	p->fs = fs;
	p->extents = extkit_has_incompat(&fs->sb,
					 EXT4_FEATURE_INCOMPAT_EXTENTS);
	p->ino_goal = fs->g.first_ino + 1;
	/* for bench/populate.sh only: inodes in the order met, without a
	 * run kept for each directory's children */
	p->no_reserve = getenv("EXTKIT_MKFS_NO_DIR_RESERVE") != NULL;
	p->blk_goal = l->root_block;
	p->lpf_block = l->lpf_block;
	p->lpf_blocks = l->lpf_blocks;
	p->raw = malloc(fs->g.inode_size);
	p->ea = malloc(fs->g.block_size);
	p->itb = malloc(fs->g.block_size);
	p->itw_max = POP_BUF / fs->g.block_size;
	if (p->itw_max > fs->g.itable_blocks)
		p->itw_max = fs->g.itable_blocks;
	if (!p->itw_max)
		p->itw_max = 1;
	p->wr = pop_writer_new(fs->io, fs->g.block_size);
	/* -D: the io bypasses the page cache too; the writer from the
	 * start, so that file data is written beside the builder */
	p->direct_after = p->o->direct_io ? 0 : POP_CACHED;
#ifdef EXTKIT_TEST_HOOKS
	if (getenv("EXTKIT_TEST_DIRECT_AFTER"))	/* bytes, for the tests */
		p->direct_after = strtoull(getenv("EXTKIT_TEST_DIRECT_AFTER"),
					   NULL, 10);
#endif
	/* the window fits a writer's buffer: itw_max * block size <= POP_BUF */
	p->itw = p->wr ? pop_writer_buf(p->wr) :
		 malloc((size_t)p->itw_max * fs->g.block_size);
	p->buf = p->wr ? pop_writer_buf(p->wr) : malloc(POP_BUF);
	p->rbuf = malloc(POP_BUF);
	p->path = malloc(PATH_MAX * 2);
	if (!p->raw || !p->ea || !p->itb || !p->itw || !p->buf || !p->rbuf ||
	    !p->path)
		return -ENOMEM;
	p->path[0] = 0;
	rc = extkit_bitmap_init(&p->itab_done, (uint64_t)fs->g.group_count *
				fs->g.itable_blocks);
	if (!rc)
		rc = extkit_fsbuild_open(fs, &p->fb);
	if (!rc)
		p->ino_before = last_used(&p->fb);
	return rc;
}

void pop_fini(struct pop *p)
{
	if (p->fb.dirty)
		extkit_fsbuild_close(&p->fb);
	pop_map_free(&p->links);
	pop_map_free(&p->srcino);
	free(p->raw);
	free(p->ea);
	free(p->itb);
	extkit_bitmap_free(&p->itab_done);
	if (p->wr) {	/* p->buf and p->itw are its buffers */
		pop_writer_free(p->wr);
	} else {
		free(p->buf);
		free(p->itw);
	}
	free(p->rbuf);
	free(p->path);
}


/* ---- messages ---- */

void pop_progress_to(struct pop *p, uint64_t done)
{
	uint64_t before = p->done, pct;

	p->done = done;
	if (!p->bar || !p->total)
		return;
	pct = done * 100 / p->total;
	if (p->bar_shown && pct == before * 100 / p->total)
		return;
	fprintf(stderr, "\rCopying files: [%-50.*s] %3u%%",
		(int)(pct > 100 ? 50 : pct / 2),
		"##################################################",
		(unsigned int)(pct > 100 ? 100 : pct));
	p->bar_shown = 1;
}

void pop_progress(struct pop *p)
{
	pop_progress_to(p, p->done + 1);
}

int pop_path_push(struct pop *p, const char *name, size_t len)
{
	if (p->plen + 1 + len + 1 > PATH_MAX * 2)
		return -ENAMETOOLONG;
	if (p->plen && p->path[p->plen - 1] != '/')
		p->path[p->plen++] = '/';
	memcpy(p->path + p->plen, name, len);
	p->plen += len;
	p->path[p->plen] = 0;
	return 0;
}

const char *pop_reason(int rc)
{
	if (rc == -ENOSPC)
		return "no space left: the tree is bigger than the filesystem";
	return extkit_strerror(rc);
}

void pop_error(const struct pop *p, const char *why)
{
	if (p->bar_shown)
		fputc('\n', stderr);
	cli_error("%s: %s", p->path[0] ? p->path : "(source)",
		  p->why[0] ? p->why : why);
}
