// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for fsck's map of encrypted inodes (fsck/encmap.c): policy
 * numbers (one per policy, the nonce left out; corrupt and unknown
 * versions), and the runs of inodes, added in order and out of it,
 * against a plain array of the expected numbers.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "../../fsck/encmap.h"
#include "suites.h"

/* A v1 (28 bytes) or v2 (40 bytes) context: key bytes k, nonce n. */
static uint32_t context(uint8_t *buf, int version, uint8_t k, uint8_t n)
{
	uint32_t len = version == 1 ? 28 : 40, key = version == 1 ? 8 : 16;

	memset(buf, 0, 40);
	buf[0] = (uint8_t)version;
	buf[1] = 1;
	buf[2] = 4;
	memset(buf + len - 16 - key, k, key);
	memset(buf + len - 16, n, 16);
	return len;
}

static uint32_t id_of(struct fsck_enc *enc, int version, uint8_t k,
		      uint8_t n)
{
	uint8_t buf[40];
	uint32_t len = context(buf, version, k, n), id = 12345;

	ck_assert_int_eq(fsck_enc_policy_id(enc, buf, len, &id), 0);
	return id;
}

START_TEST(test_policy_numbers)
{
	struct fsck_enc enc = { 0 };
	uint8_t buf[40];
	uint32_t a = id_of(&enc, 1, 'A', 1), id;

	/* the nonce is not part of the policy */
	ck_assert_uint_eq(id_of(&enc, 1, 'A', 2), a);
	ck_assert_uint_ne(id_of(&enc, 1, 'B', 1), a);
	ck_assert_uint_ne(id_of(&enc, 2, 'A', 1), a);
	ck_assert_uint_eq(id_of(&enc, 2, 'A', 7), id_of(&enc, 2, 'A', 1));
	/* many policies: the set grows, the numbers stay */
	for (int k = 0; k < 200; k++)
		ck_assert_uint_eq(id_of(&enc, 2, (uint8_t)k, 0),
				  id_of(&enc, 2, (uint8_t)k, 9));
	ck_assert_uint_eq(id_of(&enc, 1, 'A', 3), a);
	/* corrupt: empty, version 0, a v1 or v2 context of another size */
	context(buf, 1, 'A', 1);
	ck_assert_int_eq(fsck_enc_policy_id(&enc, buf, 0, &id), 1);
	ck_assert_int_eq(fsck_enc_policy_id(&enc, buf, 27, &id), 1);
	ck_assert_int_eq(fsck_enc_policy_id(&enc, buf, 29, &id), 1);
	buf[0] = 0;
	ck_assert_int_eq(fsck_enc_policy_id(&enc, buf, 28, &id), 1);
	buf[0] = 2;
	ck_assert_int_eq(fsck_enc_policy_id(&enc, buf, 28, &id), 1);
	/* an unknown version, any size: kept, one number for all */
	buf[0] = 3;
	ck_assert_int_eq(fsck_enc_policy_id(&enc, buf, 1, &id), 0);
	ck_assert_uint_eq(id, FSCK_ENC_UNKNOWN);
	fsck_enc_free(&enc);
}
END_TEST

#define N 3000u
static uint32_t want[N + 2];

static void add(struct fsck_enc *enc, uint32_t ino, uint32_t id)
{
	ck_assert_int_eq(fsck_enc_add(enc, ino, id), 0);
	want[ino] = id;
}

static void check_all(const struct fsck_enc *enc)
{
	for (uint32_t ino = 0; ino <= N + 1; ino++)
		ck_assert_msg(fsck_enc_policy_of(enc, ino) == want[ino],
			      "inode %u: %u, not %u", ino,
			      fsck_enc_policy_of(enc, ino), want[ino]);
}

START_TEST(test_runs)
{
	struct fsck_enc enc = { 0 };

	for (uint32_t i = 0; i <= N + 1; i++)
		want[i] = FSCK_ENC_NONE;
	check_all(&enc);
	/* in order: runs of one policy, gaps, policy changes */
	for (uint32_t ino = 12; ino < N; ino++)
		if (ino % 7 != 0)
			add(&enc, ino, (ino / 100) % 3);
	check_all(&enc);
	/* runs: far fewer than inodes */
	ck_assert_uint_lt(enc.n_runs, N / 4);
	/* out of order (a rescan): into the gaps, known ones kept */
	add(&enc, 15, 9);	/* known: stays */
	want[15] = (15 / 100) % 3;
	add(&enc, 7, 5);
	add(&enc, 700, 1);
	add(&enc, 1, 2);
	add(&enc, N, 4);
	add(&enc, N + 1, FSCK_ENC_UNKNOWN);
	check_all(&enc);
	fsck_enc_pass1_done(&enc);
	ck_assert_ptr_null(enc.set);
	check_all(&enc);
	fsck_enc_free(&enc);
	ck_assert_uint_eq(fsck_enc_policy_of(&enc, 13), FSCK_ENC_NONE);
}
END_TEST

Suite *encmap_suite(void)
{
	Suite *s = suite_create("encmap");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_policy_numbers);
	tcase_add_test(tc, test_runs);
	suite_add_tcase(s, tc);
	return s;
}
