// SPDX-License-Identifier: GPL-2.0-or-later
/* Quota files (lib/quota.c): the id set and the layout of a built file. */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "csfs.h"
#include "endian.h"
#include "error.h"
#include "ondisk.h"
#include "fs.h"
#include "image.h"
#include "inode.h"
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

START_TEST(names_inums_ids_charged)
{
	struct test_image_opts o;
	struct extkit_inode in;
	struct extkit_io *io;
	struct extkit_fs *fs;

	ck_assert_str_eq(extkit_quota_type_name(0), "user");
	ck_assert_str_eq(extkit_quota_type_name(1), "group");
	ck_assert_str_eq(extkit_quota_type_name(2), "project");
	ck_assert_str_eq(extkit_quota_type_name(3), "?");
	ck_assert_str_eq(extkit_quota_type_name(-1), "?");
	test_image_defaults(&o);
	io = test_image_make(&o);
	fs = test_image_open(io);
	fs->sb.quota_inum[0] = 3;
	fs->sb.quota_inum[1] = 4;
	fs->sb.quota_inum[2] = 12;
	ck_assert_uint_eq(extkit_quota_inum(&fs->sb, 0), 0);	/* no feature */
	fs->sb.feature_ro_compat |= EXT4_FEATURE_RO_COMPAT_QUOTA;
	ck_assert_uint_eq(extkit_quota_inum(&fs->sb, 0), 3);
	ck_assert_uint_eq(extkit_quota_inum(&fs->sb, 2), 12);
	ck_assert_uint_eq(extkit_quota_inum(&fs->sb, 3), 0);
	memset(&in, 0, sizeof(in));
	in.uid = 1000;
	in.gid = 100;
	in.projid = 7;
	ck_assert_uint_eq(extkit_quota_id(&in, 0), 1000);
	ck_assert_uint_eq(extkit_quota_id(&in, 1), 100);
	ck_assert_uint_eq(extkit_quota_id(&in, 2), 7);
	/* charged: the root and ordinary inodes, not the reserved ones, the
	 * project quota inode, EA inodes or the orphan file */
	ck_assert_int_eq(extkit_quota_charged(fs, EXT2_ROOT_INO, &in), 1);
	ck_assert_int_eq(extkit_quota_charged(fs, 3, &in), 0);
	ck_assert_int_eq(extkit_quota_charged(fs, 11, &in), 1);
	ck_assert_int_eq(extkit_quota_charged(fs, 12, &in), 0);
	fs->sb.orphan_file_inum = 13;
	ck_assert_int_eq(extkit_quota_charged(fs, 13, &in), 1);
	fs->sb.feature_compat |= EXT4_FEATURE_COMPAT_ORPHAN_FILE;
	ck_assert_int_eq(extkit_quota_charged(fs, 13, &in), 0);
	in.flags = EXT4_EA_INODE_FL;
	ck_assert_int_eq(extkit_quota_charged(fs, 14, &in), 0);
	extkit_fs_close(fs);
	extkit_io_close(io);
}
END_TEST

static void build(uint32_t nids, uint8_t **buf, size_t *len)
{
	struct extkit_dquot d[40], *v[40];

	memset(d, 0, sizeof(d));
	for (uint32_t i = 0; i < nids; i++) {
		d[i].id = i * 100;
		d[i].curspace = 1024ull * (i + 1);
		d[i].curinodes = i + 1;
		d[i].isoftlimit = i == 1 ? 50 : 0;
		v[i] = &d[i];
	}
	ck_assert_int_eq(extkit_quota_build(0, 3600, 7200, 0, v, nids, 1000,
					    buf, len), 0);
}

/* A quota file written into its inode reads back; written again
 * smaller, its old blocks are freed; without the commit the
 * superblock on disk is left as it was. */
START_TEST(write_then_read)
{
	struct extkit_quota_file qf;
	struct test_image_opts o;
	struct extkit_inode in;
	struct extkit_io *io;
	struct extkit_fs *fs;
	const char *why = NULL;
	uint64_t free0, free1;
	uint8_t *buf, sb_before[1024];
	size_t len;

	test_image_defaults(&o);
	io = test_image_make(&o);
	fs = test_image_open(io);
	fs->sb.feature_ro_compat |= EXT4_FEATURE_RO_COMPAT_QUOTA;
	fs->sb.quota_inum[0] = 3;
	free0 = fs->sb.free_blocks_count;
	build(30, &buf, &len);
	ck_assert_uint_gt(len, 6 * 1024);
	ck_assert_int_eq(extkit_quota_write_inode(fs, 3, buf, len, 1000), 0);
	free(buf);
	ck_assert_int_eq(extkit_inode_read(fs, 3, &in), 0);
	ck_assert_uint_eq(in.mode, S_IFREG | 0600);
	ck_assert_uint_eq(in.links_count, 1);
	ck_assert(in.flags & EXT2_IMMUTABLE_FL);
	ck_assert_uint_eq(in.size, len);
	free1 = fs->sb.free_blocks_count;
	ck_assert_uint_ge(free0 - free1, len / 1024);
	/* committed: the superblock on disk counts them */
	ck_assert_uint_eq(get_le32((uint8_t *)extkit_io_mem_buffer(io) + 1024 +
				   0x0c), free1);
	memset(&qf, 0, sizeof(qf));
	ck_assert_int_eq(extkit_quota_read(fs, 3, 0, &qf, &why), 0);
	ck_assert_uint_eq(qf.version, 1);
	ck_assert_uint_eq(qf.bgrace, 3600);
	ck_assert_uint_eq(qf.igrace, 7200);
	ck_assert_uint_eq(qf.dq.n, 30);
	ck_assert_uint_eq(extkit_quota_set_find(&qf.dq, 2900)->curinodes, 30);
	ck_assert_uint_eq(extkit_quota_set_find(&qf.dq, 100)->isoftlimit, 50);
	ck_assert_uint_eq(extkit_quota_set_find(&qf.dq, 0)->curspace, 1024);
	extkit_quota_set_free(&qf.dq);
	/* read as another type: the magic says no */
	ck_assert_int_eq(extkit_quota_read(fs, 3, 1, &qf, &why),
			 -EFSCORRUPTED);
	ck_assert_ptr_nonnull(why);
	/* smaller, without the commit */
	memcpy(sb_before, (uint8_t *)extkit_io_mem_buffer(io) + 1024, 1024);
	build(1, &buf, &len);
	ck_assert_int_eq(extkit_quota_write_inode_nocommit(fs, 3, buf, len,
							   1000), 0);
	free(buf);
	ck_assert_uint_eq(fs->sb.free_blocks_count, free0 - len / 1024);
	ck_assert_mem_eq((uint8_t *)extkit_io_mem_buffer(io) + 1024,
			 sb_before, 1024);
	memset(&qf, 0, sizeof(qf));
	ck_assert_int_eq(extkit_quota_read(fs, 3, 0, &qf, &why), 0);
	ck_assert_uint_eq(qf.dq.n, 1);
	extkit_quota_set_free(&qf.dq);
	extkit_fs_close(fs);
	extkit_io_close(io);
}
END_TEST

/* With ea_inode, each EA inode an inode's attributes name is one more
 * inode charged to its owners (csfs.c: CSFS_EA_OWNER names one in its
 * body; CSFS_FILE's EA block names none). */
START_TEST(ea_inodes_charged)
{
	struct extkit_inode in;
	uint8_t raw[256], blk[1024];
	struct csfs c;

	csfs_make(&c, 0);
	ck_assert_int_eq(extkit_inode_read_raw(c.fs, CSFS_EA_OWNER, raw), 0);
	extkit_inode_decode(raw, sizeof(raw), &in);
	ck_assert_uint_eq(extkit_quota_ea_inodes(c.fs, raw, &in, blk), 1);
	ck_assert_int_eq(extkit_inode_read_raw(c.fs, CSFS_FILE, raw), 0);
	extkit_inode_decode(raw, sizeof(raw), &in);
	ck_assert_uint_ne(in.file_acl, 0);
	ck_assert_uint_eq(extkit_quota_ea_inodes(c.fs, raw, &in, blk), 0);
	ck_assert_int_eq(extkit_inode_read_raw(c.fs, CSFS_EA_OWNER, raw), 0);
	extkit_inode_decode(raw, sizeof(raw), &in);
	c.fs->sb.feature_incompat &= ~EXT4_FEATURE_INCOMPAT_EA_INODE;
	ck_assert_uint_eq(extkit_quota_ea_inodes(c.fs, raw, &in, blk), 0);
	csfs_close(&c);
}
END_TEST

Suite *quota_suite(void)
{
	Suite *s = suite_create("quota");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, set_get_find_sorted);
	tcase_add_test(tc, build_one_id);
	tcase_add_test(tc, build_many_ids);
	tcase_add_test(tc, names_inums_ids_charged);
	tcase_add_test(tc, write_then_read);
	tcase_add_test(tc, ea_inodes_charged);
	suite_add_tcase(s, tc);
	return s;
}
