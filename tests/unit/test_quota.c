// SPDX-License-Identifier: GPL-2.0-or-later
/* Quota files (lib/quota.c): the id set and the layout of a built file. */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "endian.h"
#include "ondisk.h"
#include "quota.h"

#include "suites.h"

static uint32_t ref(const uint8_t *buf, uint32_t q, uint32_t i)
{
	return le32(((const __le32 *)(buf + (size_t)q * 1024))[i]);
}

START_TEST(set_get_find_sorted)
{
	struct extkit_quota_set s = { 0 };
	struct extkit_dquot **v;

	for (uint32_t i = 0; i < 1000; i++)
		extkit_quota_set_get(&s, (i * 7919u) % 100003u)->curinodes++;
	extkit_quota_set_get(&s, 0)->curinodes++;
	ck_assert_uint_eq(s.n, 1000);
	ck_assert_uint_eq(extkit_quota_set_find(&s, 0)->curinodes, 2);
	ck_assert_ptr_null(extkit_quota_set_find(&s, 1));
	ck_assert_int_eq(extkit_quota_set_sorted(&s, &v), 0);
	for (size_t i = 1; i < s.n; i++)
		ck_assert_uint_lt(v[i - 1]->id, v[i]->id);
	free(v);
	extkit_quota_set_free(&s);
}
END_TEST

/* One id: header, info, root (1), three tree blocks (2..4), data (5). */
START_TEST(build_one_id)
{
	struct extkit_dquot d = { .id = 0, .curspace = 13312, .curinodes = 2 };
	struct extkit_dquot *v[] = { &d };
	const struct v2r1_disk_dqblk *e;
	uint8_t *buf;
	size_t len;

	ck_assert_int_eq(extkit_quota_build(0, EXT4_QUOTA_DEF_GRACE,
					    EXT4_QUOTA_DEF_GRACE, 0, v, 1,
					    1000, &buf, &len), 0);
	ck_assert_uint_eq(len, 6 * 1024);
	ck_assert_uint_eq(le32(*(__le32 *)buf), EXT4_QUOTA_MAGIC_USR);
	ck_assert_uint_eq(le32(*(__le32 *)(buf + 4)), 1);
	ck_assert_uint_eq(le32(*(__le32 *)(buf + 8)), 604800);
	ck_assert_uint_eq(le32(*(__le32 *)(buf + 20)), 6);	/* blocks */
	ck_assert_uint_eq(le32(*(__le32 *)(buf + 28)), 5);	/* free entry */
	ck_assert_uint_eq(ref(buf, 1, 0), 2);
	ck_assert_uint_eq(ref(buf, 2, 0), 3);
	ck_assert_uint_eq(ref(buf, 3, 0), 4);
	ck_assert_uint_eq(ref(buf, 4, 0), 5);
	ck_assert_uint_eq(le16(*(__le16 *)(buf + 5 * 1024 + 8)), 1);
	e = (const void *)(buf + 5 * 1024 + 16);
	ck_assert_uint_eq(le64(e->dqb_curspace), 13312);
	ck_assert_uint_eq(le64(e->dqb_curinodes), 2);
	free(buf);
}
END_TEST

/* 15 ids: a data block holds 14, the 15th starts another; an id with
 * neither usage nor limits is left out; ids of another top byte get
 * their own tree path. */
START_TEST(build_many_ids)
{
	struct extkit_dquot d[17], *v[17];
	uint8_t *buf;
	size_t len;

	memset(d, 0, sizeof(d));
	for (int i = 0; i < 15; i++) {
		d[i].id = (uint32_t)i;
		d[i].curinodes = 1;
		v[i] = &d[i];
	}
	d[15].id = 20;			/* nothing: left out */
	v[15] = &d[15];
	d[16].id = 0x01000000;		/* another root entry */
	d[16].bhardlimit = 5;
	v[16] = &d[16];
	ck_assert_int_eq(extkit_quota_build(1, 1, 2, 0, v, 17, 0, &buf,
					    &len), 0);
	/* 0..4 first id; 5 data (14 entries); 6 second data; 7..9 tree,
	 * whose id goes into data block 6 (it has room) */
	ck_assert_uint_eq(len, 10 * 1024);
	ck_assert_uint_eq(ref(buf, 4, 13), 5);
	ck_assert_uint_eq(ref(buf, 4, 14), 6);
	ck_assert_uint_eq(ref(buf, 4, 20), 0);
	ck_assert_uint_eq(ref(buf, 1, 1), 7);
	ck_assert_uint_eq(ref(buf, 9, 0), 6);
	ck_assert_uint_eq(le16(*(__le16 *)(buf + 5 * 1024 + 8)), 14);
	ck_assert_uint_eq(le16(*(__le16 *)(buf + 6 * 1024 + 8)), 2);
	free(buf);
}
END_TEST

Suite *quota_suite(void)
{
	Suite *s = suite_create("quota");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, set_get_find_sorted);
	tcase_add_test(tc, build_one_id);
	tcase_add_test(tc, build_many_ids);
	suite_add_tcase(s, tc);
	return s;
}
