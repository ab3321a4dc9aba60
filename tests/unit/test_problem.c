// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for the fsck problem table (fsck/problem.c), after e2fsck's
 * verify_problem_table: the table is sorted with no duplicate code, every
 * PR_* code defined in fsck/problem.h is in it, prompts agree with the
 * flags, every message expands with no unknown % sequence, and a few
 * messages expand to golden text.
 */
#include "config.h"

#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../fsck/fsck.h"
#include "../../fsck/problem.h"
#include "suites.h"

/* problem.c calls these fsck.c / path.c helpers: stubs. */
void fsck_dir_path(struct fsck_ctx *ctx, uint32_t ino, char *out, size_t len)
{
	snprintf(out, len, ino == 2 ? "/" : "/dir%u", ino);
}

void fsck_progress_clear(struct fsck_ctx *ctx)
{
}

START_TEST(test_sorted_unique)
{
	for (unsigned int i = 1; i < problem_table_size; i++)
		ck_assert_msg(problem_table[i - 1].code < problem_table[i].code,
			      "0x%06x is not before 0x%06x",
			      problem_table[i - 1].code, problem_table[i].code);
}
END_TEST

static const char *header_path(void)
{
	static char path[4096];
	const char *top = getenv("top_srcdir");

	snprintf(path, sizeof(path), "%s/fsck/problem.h", top ? top : ".");
	return path;
}

START_TEST(test_header_codes_in_table)
{
	FILE *f = fopen(header_path(), "r");
	regmatch_t m[3];
	char line[256];
	regex_t re;
	int n = 0;

	ck_assert_msg(f != NULL, "cannot open %s", header_path());
	ck_assert_int_eq(regcomp(&re, "^#define (PR_[0-9][0-9A-Z_]*)[ \t]+"
				 "(0x[0-9A-Fa-f]+)", REG_EXTENDED), 0);
	while (fgets(line, sizeof(line), f)) {
		unsigned long code;

		if (regexec(&re, line, 3, m, 0))
			continue;
		code = strtoul(line + m[2].rm_so, NULL, 16);
		line[m[1].rm_eo] = '\0';
		ck_assert_msg(find_problem((uint32_t)code) != NULL,
			      "%s (0x%06lx) is not in the table",
			      line + m[1].rm_so, code);
		n++;
	}
	regfree(&re);
	fclose(f);
	ck_assert_int_eq(n, (int)problem_table_size);
}
END_TEST

START_TEST(test_prompts_match_flags)
{
	for (unsigned int i = 0; i < problem_table_size; i++) {
		const struct problem *p = &problem_table[i];
		int msg_only = (p->flags & (PR_MSG_ONLY | PR_FATAL)) != 0;

		ck_assert_msg(msg_only == (p->prompt == PROMPT_NONE),
			      "0x%06x: prompt and MSG_ONLY/FATAL disagree",
			      p->code);
		/* an empty message is a question alone (e2fsck's pass 1D
		 * asks "Clone multiply-claimed blocks?" on its own line) */
		ck_assert_msg(p->message &&
			      (*p->message || p->prompt != PROMPT_NONE),
			      "0x%06x: no message", p->code);
		ck_assert_msg(strchr(p->message, '@') == NULL,
			      "0x%06x: abbreviations are not used", p->code);
	}
}
END_TEST

START_TEST(test_messages_expand)
{
	struct problem_context pctx;
	struct extkit_inode inode;
	char out[4096];

	memset(&inode, 0, sizeof(inode));
	clear_problem_context(&pctx);
	pctx.inode = &inode;
	pctx.de_name = "x";
	pctx.de_name_len = 1;
	pctx.str = "s";
	for (unsigned int i = 0; i < problem_table_size; i++) {
		problem_expand(NULL, problem_table[i].message, &pctx, out,
			       sizeof(out));
		ck_assert_msg(strchr(out, '%') == NULL,
			      "0x%06x: unexpanded %% in \"%s\"",
			      problem_table[i].code, out);
	}
}
END_TEST

START_TEST(test_golden_expansion)
{
	struct problem_context pctx;
	struct extkit_inode inode;
	char out[512];

	memset(&inode, 0, sizeof(inode));
	inode.links_count = 5;
	inode.mode = 0100644;
	clear_problem_context(&pctx);
	pctx.ino = 14;
	pctx.num = 1;
	pctx.inode = &inode;
	problem_expand(NULL, find_problem(PR_4_BAD_REF_COUNT)->message, &pctx,
		       out, sizeof(out));
	ck_assert_str_eq(out, "Inode 14 ref count is 5, should be 1.");
	pctx.blk = 9999999;
	pctx.blkcount = 3;
	problem_expand(NULL, find_problem(PR_1_ILLEGAL_BLOCK)->message, &pctx,
		       out, sizeof(out));
	ck_assert_str_eq(out, "Illegal block #3 (9999999) in inode 14.");
	pctx.blkcount = -2;
	problem_expand(NULL, find_problem(PR_1_ILLEGAL_BLOCK)->message, &pctx,
		       out, sizeof(out));
	ck_assert_str_eq(out, "Illegal double indirect block (9999999) "
			 "in inode 14.");
	pctx.de_name = "a\nb";
	pctx.de_name_len = 3;
	pctx.de_inode = 15;
	problem_expand(NULL, find_problem(PR_2_UNUSED_INODE)->message, &pctx,
		       out, sizeof(out));
	ck_assert_str_eq(out, "Entry 'a\\012b' in ??? (14) has deleted/unused "
			 "inode 15.");
}
END_TEST

START_TEST(test_unknown_code)
{
	ck_assert_ptr_null(find_problem(0x7fffff));
	ck_assert_ptr_nonnull(find_problem(problem_table[0].code));
	ck_assert_ptr_nonnull(find_problem(
		problem_table[problem_table_size - 1].code));
}
END_TEST

Suite *problem_suite(void)
{
	Suite *s = suite_create("problem");
	TCase *tc = tcase_create("table");

	tcase_add_test(tc, test_sorted_unique);
	tcase_add_test(tc, test_header_codes_in_table);
	tcase_add_test(tc, test_prompts_match_flags);
	tcase_add_test(tc, test_messages_expand);
	tcase_add_test(tc, test_golden_expansion);
	tcase_add_test(tc, test_unknown_code);
	suite_add_tcase(s, tc);
	return s;
}
