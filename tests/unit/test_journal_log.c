// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for journal_log.c: tags of each size (32- and 64-bit block
 * numbers, csum v2's 14 bytes, v3's 16) with and without their UUIDs,
 * the last-tag flag and the block's end; revoke records and a count past
 * the block; the checksum tail; the log's bounds; fast-commit tags and
 * one whose value runs past the block; a commit block's fields and
 * checksum, a data block's tag checksum (v2, v3, none); journal blocks
 * read through the map.
 */
#include "config.h"

#include <string.h>

#include "csum.h"
#include "endian.h"
#include "error.h"
#include "fs.h"
#include "image.h"
#include "jbd2_ondisk.h"
#include "journal.h"
#include "journal_log.h"
#include "ondisk.h"
#include "suites.h"

#define BS 1024

static void journal_init(struct extkit_journal *j, uint32_t incompat)
{
	memset(j, 0, sizeof(*j));
	j->blocksize = BS;
	j->incompat = incompat;
	j->csum_seed = 0x1234;
}

static void header(uint8_t *b, uint32_t type, uint32_t seq)
{
	memset(b, 0, BS);
	put_be32(b, JBD2_MAGIC_NUMBER);
	put_be32(b + 4, type);
	put_be32(b + 8, seq);
}

START_TEST(test_tags_v3)
{
	struct extkit_journal j;
	struct extkit_jlog_tags it;
	struct extkit_jlog_tag t;
	uint8_t b[BS];
	uint32_t type, seq;

	journal_init(&j, JBD2_FEATURE_INCOMPAT_CSUM_V3 |
		     JBD2_FEATURE_INCOMPAT_64BIT);
	ck_assert_uint_eq(extkit_jlog_tag_bytes(&j), 16);
	ck_assert_uint_eq(extkit_jlog_tail_bytes(&j), 4);
	header(b, JBD2_DESCRIPTOR_BLOCK, 7);
	/* tag 1: a UUID follows; tag 2: 64-bit block, same UUID, last */
	put_be32(b + 12, 500);
	put_be32(b + 16, JBD2_FLAG_ESCAPE);
	put_be32(b + 24, 0xabcdef01);
	put_be32(b + 44, 9);
	put_be32(b + 48, JBD2_FLAG_SAME_UUID | JBD2_FLAG_LAST_TAG);
	put_be32(b + 52, 1);
	ck_assert_int_eq(extkit_jlog_header(b, &type, &seq), 1);
	ck_assert_uint_eq(type, JBD2_DESCRIPTOR_BLOCK);
	ck_assert_uint_eq(seq, 7);
	extkit_jlog_tags_init(&it, &j, b);
	ck_assert_int_eq(extkit_jlog_tags_next(&it, &t), 1);
	ck_assert_uint_eq(t.blk, 500);
	ck_assert_uint_eq(t.flags, JBD2_FLAG_ESCAPE);
	ck_assert_uint_eq(t.csum, 0xabcdef01);
	ck_assert_int_eq(extkit_jlog_tags_next(&it, &t), 1);
	ck_assert_uint_eq(t.blk, (1ull << 32) | 9);
	ck_assert_int_eq(extkit_jlog_tags_next(&it, &t), 0);
	ck_assert_uint_eq(extkit_jlog_tag_count(&j, b), 2);
	/* the tail checksum: crc32c over the block with the tail zero */
	put_be32(b + BS - 4, extkit_crc32c(extkit_crc32c(j.csum_seed, b,
							 BS - 4),
					   "\0\0\0\0", 4));
	ck_assert_int_eq(extkit_jlog_tail_ok(&j, b), 1);
	b[100] ^= 1;
	ck_assert_int_eq(extkit_jlog_tail_ok(&j, b), 0);
	put_be32(b, 0);
	ck_assert_int_eq(extkit_jlog_header(b, &type, &seq), 0);
}
END_TEST

/* Tags without LAST_TAG fill the block up to its tail, never past. */
START_TEST(test_tags_sizes)
{
	static const struct {
		uint32_t incompat, bytes;
	} k[] = {
		{ 0, 8 },
		{ JBD2_FEATURE_INCOMPAT_64BIT, 12 },
		{ JBD2_FEATURE_INCOMPAT_CSUM_V2, 10 },
		{ JBD2_FEATURE_INCOMPAT_CSUM_V2 | JBD2_FEATURE_INCOMPAT_64BIT,
		  14 },
	};
	struct extkit_journal j;
	uint8_t b[BS];

	for (unsigned int i = 0; i < sizeof(k) / sizeof(k[0]); i++) {
		uint32_t room;

		journal_init(&j, k[i].incompat);
		ck_assert_uint_eq(extkit_jlog_tag_bytes(&j), k[i].bytes);
		header(b, JBD2_DESCRIPTOR_BLOCK, 1);
		room = BS - 12 - extkit_jlog_tail_bytes(&j);
		/* every tag carries a UUID (no SAME_UUID flag) */
		ck_assert_uint_eq(extkit_jlog_tag_count(&j, b),
				  (room + 16) / (k[i].bytes + 16));
	}
}
END_TEST

START_TEST(test_revokes)
{
	struct extkit_journal j;
	struct extkit_jlog_revokes it;
	uint64_t blk;
	uint8_t b[BS];

	journal_init(&j, JBD2_FEATURE_INCOMPAT_64BIT);
	header(b, JBD2_REVOKE_BLOCK, 3);
	put_be32(b + 12, 16 + 2 * 8);
	put_be64(b + 16, 0x100000002ull);
	put_be64(b + 24, 77);
	extkit_jlog_revokes_init(&it, &j, b);
	ck_assert_int_eq(extkit_jlog_revokes_fit(&it), 1);
	ck_assert_int_eq(extkit_jlog_revokes_next(&it, &blk), 1);
	ck_assert_uint_eq(blk, 0x100000002ull);
	ck_assert_int_eq(extkit_jlog_revokes_next(&it, &blk), 1);
	ck_assert_uint_eq(blk, 77);
	ck_assert_int_eq(extkit_jlog_revokes_next(&it, &blk), 0);
	/* a count past the block: not sound, and read only to its end */
	put_be32(b + 12, 4000000000u);
	extkit_jlog_revokes_init(&it, &j, b);
	ck_assert_int_eq(extkit_jlog_revokes_fit(&it), 0);
	for (int n = 0; n < 200; n++)
		if (!extkit_jlog_revokes_next(&it, &blk))
			break;
	ck_assert_uint_le(it.off, BS);
}
END_TEST

START_TEST(test_bounds)
{
	struct extkit_journal j;
	uint32_t first, last;

	journal_init(&j, 0);
	j.maxlen = 1024;
	j.nblocks = 1024;
	j.first = 1;
	ck_assert_int_eq(extkit_jlog_bounds(&j, &first, &last), 0);
	ck_assert_uint_eq(last, 1024);
	j.maxlen = 4000000000u;		/* cut to what the inode maps */
	ck_assert_int_eq(extkit_jlog_bounds(&j, &first, &last), 0);
	ck_assert_uint_eq(last, 1024);
	j.incompat = JBD2_FEATURE_INCOMPAT_FAST_COMMIT;
	ck_assert_int_eq(extkit_jlog_bounds(&j, &first, &last), 0);
	ck_assert_uint_eq(last, 1024 - 256);
	j.first = 0;
	ck_assert_int_eq(extkit_jlog_bounds(&j, &first, &last),
			 -EFSCORRUPTED);
	j.first = 900;
	ck_assert_int_eq(extkit_jlog_bounds(&j, &first, &last),
			 -EFSCORRUPTED);
}
END_TEST

START_TEST(test_fc_tags)
{
	struct test_image_opts o;
	struct extkit_journal j;
	struct extkit_jlog_fc_tag t;
	struct extkit_io *io;
	uint8_t b[BS] = { 0 };
	uint32_t off = 0;

	test_image_defaults(&o);
	io = test_image_make(&o);
	journal_init(&j, JBD2_FEATURE_INCOMPAT_FAST_COMMIT);
	j.fs = test_image_open(io);
	put_le16(b, EXT4_FC_TAG_HEAD);
	put_le16(b + 2, 8);
	put_le32(b + 8, 42);
	put_le16(b + 12, EXT4_FC_TAG_ADD_RANGE);
	put_le16(b + 14, 16);
	put_le32(b + 16, 12);			/* inode */
	put_le32(b + 20, 3);			/* ee_block */
	put_le16(b + 24, 32768 + 2);		/* unwritten, 2 blocks */
	put_le16(b + 26, 1);			/* ee_start_hi */
	put_le32(b + 28, 5);			/* ee_start_lo */
	put_le16(b + 32, EXT4_FC_TAG_CREAT);
	put_le16(b + 34, 11);
	put_le32(b + 36, 2);
	put_le32(b + 40, 12);
	memcpy(b + 44, "abc", 3);
	put_le16(b + 47, EXT4_FC_TAG_PAD);
	put_le16(b + 49, BS);			/* past the block */
	ck_assert_int_eq(extkit_jlog_fc_next(&j, b, &off, &t), 1);
	ck_assert_uint_eq(t.tag, EXT4_FC_TAG_HEAD);
	ck_assert_uint_eq(t.tid, 42);
	ck_assert_int_eq(extkit_jlog_fc_next(&j, b, &off, &t), 1);
	ck_assert_int_eq(t.len_ok, 1);
	ck_assert_uint_eq(t.ino, 12);
	ck_assert_uint_eq(t.lblk, 3);
	ck_assert_uint_eq(t.count, 2);
	ck_assert_uint_eq(t.pblk, (1ull << 32) | 5);
	ck_assert_int_eq(extkit_jlog_fc_next(&j, b, &off, &t), 1);
	ck_assert_uint_eq(t.parent, 2);
	ck_assert_uint_eq(t.name_len, 3);
	ck_assert_int_eq(memcmp(t.name, "abc", 3), 0);
	ck_assert_uint_eq(off, 47);
	ck_assert_int_eq(extkit_jlog_fc_next(&j, b, &off, &t), -EFSCORRUPTED);
	off = BS - 2;
	ck_assert_int_eq(extkit_jlog_fc_next(&j, b, &off, &t), 0);
	extkit_fs_close(j.fs);
	extkit_io_close(io);
}
END_TEST

/* A commit block's fields and checksum (h_chksum[0] taken as zero), a
 * data block's tag checksum (the sequence, then the data: 32 bits with
 * v3, the low 16 with v2); without csum v2/v3 both pass. */
START_TEST(test_commit_and_tag_csums)
{
	struct extkit_jlog_commit c;
	struct extkit_journal j;
	struct extkit_jlog_tag t;
	uint8_t b[BS], data[BS], copy[BS], be[4];
	uint32_t want;

	header(b, JBD2_COMMIT_BLOCK, 9);
	b[12] = 4;				/* h_chksum_type */
	b[13] = 4;				/* h_chksum_size */
	put_be64(b + 48, 0x123456789ull);	/* h_commit_sec */
	put_be32(b + 56, 999);			/* h_commit_nsec */
	extkit_jlog_commit_decode(b, &c);
	ck_assert_uint_eq(c.csum_type, 4);
	ck_assert_uint_eq(c.csum_size, 4);
	ck_assert_uint_eq(c.sec, 0x123456789ull);
	ck_assert_uint_eq(c.nsec, 999);
	journal_init(&j, 0);
	ck_assert_int_eq(extkit_jlog_commit_ok(&j, b), 1);	/* no csum */
	journal_init(&j, JBD2_FEATURE_INCOMPAT_CSUM_V3);
	memcpy(copy, b, BS);
	put_be32(b + 16, extkit_crc32c(j.csum_seed, copy, BS));
	extkit_jlog_commit_decode(b, &c);
	ck_assert_uint_eq(c.csum, get_be32(b + 16));
	ck_assert_int_eq(extkit_jlog_commit_ok(&j, b), 1);
	b[60] ^= 1;
	ck_assert_int_eq(extkit_jlog_commit_ok(&j, b), 0);
	j.csum_seed++;
	b[60] ^= 1;
	ck_assert_int_eq(extkit_jlog_commit_ok(&j, b), 0);

	for (unsigned int i = 0; i < BS; i++)
		data[i] = (uint8_t)(i * 11);
	journal_init(&j, JBD2_FEATURE_INCOMPAT_CSUM_V3);
	put_be32(be, 42);
	want = extkit_crc32c(extkit_crc32c(j.csum_seed, be, 4), data, BS);
	memset(&t, 0, sizeof(t));
	t.csum = want;
	ck_assert_int_eq(extkit_jlog_tag_csum_ok(&j, &t, data, 42), 1);
	ck_assert_int_eq(extkit_jlog_tag_csum_ok(&j, &t, data, 43), 0);
	t.csum = want & 0xffff;
	ck_assert_int_eq(extkit_jlog_tag_csum_ok(&j, &t, data, 42), 0);
	journal_init(&j, JBD2_FEATURE_INCOMPAT_CSUM_V2);
	ck_assert_int_eq(extkit_jlog_tag_csum_ok(&j, &t, data, 42), 1);
	data[5] ^= 1;
	ck_assert_int_eq(extkit_jlog_tag_csum_ok(&j, &t, data, 42), 0);
	journal_init(&j, 0);
	ck_assert_int_eq(extkit_jlog_tag_csum_ok(&j, &t, data, 42), 1);
}
END_TEST

/* Journal blocks read through the map; none past its end. */
START_TEST(test_read)
{
	struct test_image_opts o;
	struct extkit_journal j;
	struct extkit_io *io;
	uint64_t map[2] = { 3000, 3100 };
	uint8_t b[BS], back[BS];

	test_image_defaults(&o);
	io = test_image_make(&o);
	journal_init(&j, 0);
	j.fs = test_image_open(io);
	j.map = map;
	j.nblocks = 2;
	for (unsigned int i = 0; i < BS; i++)
		b[i] = (uint8_t)(i + 3);
	ck_assert_int_eq(extkit_fs_write_block(j.fs, 3100, b), 0);
	ck_assert_int_eq(extkit_jlog_read(&j, 1, back), 0);
	ck_assert_mem_eq(back, b, BS);
	ck_assert_int_eq(extkit_jlog_read(&j, 2, back), -EFSCORRUPTED);
	extkit_fs_close(j.fs);
	extkit_io_close(io);
}
END_TEST

Suite *journal_log_suite(void)
{
	Suite *s = suite_create("journal_log");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_tags_v3);
	tcase_add_test(tc, test_tags_sizes);
	tcase_add_test(tc, test_revokes);
	tcase_add_test(tc, test_bounds);
	tcase_add_test(tc, test_fc_tags);
	tcase_add_test(tc, test_commit_and_tag_csums);
	tcase_add_test(tc, test_read);
	suite_add_tcase(s, tc);
	return s;
}
