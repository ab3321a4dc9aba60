// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Names of on-disk codes and flag bits (names.h). The inode flags are the
 * kernel's EXT4_*_FL names without prefix and suffix, lower case; the
 * others are those dumpe2fs prints.
 */
#include "config.h"

#include <stdio.h>

#include "ondisk.h"

#include "dump.h"
#include "names.h"

#define TABLE(name, unknown, ...)					\
	static const struct bit_name name##_v[] = { __VA_ARGS__ };	\
	const struct bit_names name = { name##_v, N_ELEM(name##_v), unknown }

TABLE(inode_flag_names, "unknown_bit_%u",
	{ 0x1, "secrm" }, { 0x2, "unrm" }, { 0x4, "compr" }, { 0x8, "sync" },
	{ 0x10, "immutable" }, { 0x20, "append" }, { 0x40, "nodump" },
	{ 0x80, "noatime" }, { 0x100, "dirty" }, { 0x200, "comprblk" },
	{ 0x400, "nocompr" }, { 0x800, "encrypt" }, { 0x1000, "index" },
	{ 0x2000, "imagic" }, { 0x4000, "journal_data" },
	{ 0x8000, "notail" }, { 0x10000, "dirsync" }, { 0x20000, "topdir" },
	{ 0x40000, "huge_file" }, { 0x80000, "extents" },
	{ 0x100000, "verity" }, { 0x200000, "ea_inode" },
	{ 0x2000000, "dax" }, { 0x10000000, "inline_data" },
	{ 0x20000000, "projinherit" }, { 0x40000000, "casefold" });

TABLE(super_state_names, "unknown_bit_%u",
	{ EXT2_VALID_FS, "clean" }, { EXT2_ERROR_FS, "errors" },
	{ 0x4, "orphans" });

TABLE(super_flag_names, "unknown_bit_%u",
	{ EXT2_FLAGS_SIGNED_HASH, "signed_directory_hash" },
	{ EXT2_FLAGS_UNSIGNED_HASH, "unsigned_directory_hash" },
	{ EXT2_FLAGS_TEST_FILESYS, "test_filesystem" });

/* The journal mode (bits 0x60) is one value of two bits, first. */
TABLE(mount_opt_names, "MNTOPT_%u",
	{ 0x60, NULL }, { 0x1, "debug" }, { 0x2, "bsdgroups" },
	{ 0x4, "user_xattr" }, { 0x8, "acl" }, { 0x10, "uid16" },
	{ 0x100, "nobarrier" }, { 0x200, "block_validity" },
	{ 0x400, "discard" }, { 0x800, "nodelalloc" });

TABLE(group_flag_names, "unknown_bit_%u",
	{ EXT4_BG_INODE_UNINIT, "inode_uninit" },
	{ EXT4_BG_BLOCK_UNINIT, "block_uninit" },
	{ EXT4_BG_INODE_ZEROED, "itable_zeroed" });

TABLE(jbd2_compat_names, "FEATURE_C%u", { 0x1, "journal_checksum" });

TABLE(jbd2_incompat_names, "FEATURE_I%u",
	{ 0x1, "journal_incompat_revoke" }, { 0x2, "journal_64bit" },
	{ 0x4, "journal_async_commit" }, { 0x8, "journal_checksum_v2" },
	{ 0x10, "journal_checksum_v3" }, { 0x20, "journal_fast_commit" });

TABLE(jbd2_ro_compat_names, "FEATURE_R%u", { 0, NULL });

static const char *const journal_modes[] = {
	NULL, "journal_data", "journal_data_ordered", "journal_data_writeback",
};

/* The unknown formats take the bit's number. */
static void unknown_name(const struct bit_names *t, uint32_t bit, char *buf,
			 size_t size)
{
	unsigned int n = 0;

	while (n < 31 && !(bit & (1u << n)))
		n++;
	snprintf(buf, size, t->unknown, n);
}

void bit_names_each(const struct bit_names *t, uint32_t v,
		    void (*fn)(const char *name, void *arg), void *arg)
{
	uint32_t named = 0;
	char buf[32];
	unsigned int i;

	/* a several-bit value (the journal mode) comes first */
	for (i = 0; i < t->n; i++) {
		if (t->v[i].name || !t->v[i].mask)
			continue;
		named |= t->v[i].mask;
		if (v & t->v[i].mask)
			fn(journal_modes[(v & t->v[i].mask) >> 5 & 3], arg);
	}
	for (uint32_t bit = 1; bit; bit <<= 1) {
		if (!(v & bit) || (named & bit))
			continue;
		for (i = 0; i < t->n && t->v[i].mask != bit; i++)
			;
		if (i < t->n) {
			fn(t->v[i].name, arg);
			continue;
		}
		unknown_name(t, bit, buf, sizeof(buf));
		fn(buf, arg);
	}
}

void json_name(const char *name, void *arg)
{
	json_string(arg, NULL, name);
}

void bit_names_json(struct json_writer *w, const char *key,
		    const struct bit_names *t, uint32_t v)
{
	json_begin_array(w, key);
	bit_names_each(t, v, json_name, w);
	json_end_array(w);
}

static void name_text(const char *name, void *arg)
{
	(*(int *)arg)++;
	printf(" %s", name);
}

void bit_names_text(const struct bit_names *t, uint32_t v)
{
	int n = 0;

	bit_names_each(t, v, name_text, &n);
	if (!n)
		fputs(" (none)", stdout);
}

void bit_names_text_if(const struct bit_names *t, uint32_t v)
{
	int n = 0;

	bit_names_each(t, v, name_text, &n);
}

void feature_names_each(enum extkit_feature_kind kind, uint32_t mask,
			void (*fn)(const char *name, void *arg), void *arg)
{
	static const char kind_char[3] = { 'C', 'I', 'R' };
	const char *name;
	char buf[24];

	for (int b = 0; b < 32; b++) {
		if (!(mask & (1u << b)))
			continue;
		name = extkit_feature_name(kind, 1u << b);
		if (!name) {
			snprintf(buf, sizeof(buf), "FEATURE_%c%d",
				 kind_char[kind % 3], b);
			name = buf;
		}
		fn(name, arg);
	}
}

const char *ftype_word(unsigned int ftype)
{
	static const char *const words[] = {
		[EXT2_FT_UNKNOWN] = "unknown", [EXT2_FT_REG_FILE] = "regular",
		[EXT2_FT_DIR] = "directory", [EXT2_FT_CHRDEV] = "char",
		[EXT2_FT_BLKDEV] = "block", [EXT2_FT_FIFO] = "fifo",
		[EXT2_FT_SOCK] = "socket", [EXT2_FT_SYMLINK] = "symlink",
	};

	return dump_lookup_name(words, N_ELEM(words), ftype, "unknown");
}

const char *errors_word(unsigned int v)
{
	static const char *const words[] = {
		NULL, "continue", "remount-ro", "panic",
	};

	return dump_lookup_name(words, N_ELEM(words), v, "unknown");
}

const char *os_word(unsigned int v)
{
	static const char *const words[] = {
		"Linux", "Hurd", "Masix", "FreeBSD", "Lites",
	};

	return dump_lookup_name(words, N_ELEM(words), v, "(unknown os)");
}

const char *hash_word(unsigned int v)
{
	static const char *const words[] = {
		"legacy", "half_md4", "tea", "legacy_unsigned",
		"half_md4_unsigned", "tea_unsigned", "siphash",
	};

	return dump_lookup_name(words, N_ELEM(words), v, "unknown");
}
