// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * htree (dir_index): name hashes after the kernel's fs/ext4/hash.c, index
 * geometry, index building over hash-sorted leaves, and verification.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "casefold.h"
#include "dir.h"
#include "dirblock.h"
#include "endian.h"
#include "error.h"
#include "fs.h"
#include "htree.h"
#include "ondisk.h"
#include "super.h"

#define TEA_DELTA	0x9E3779B9u
#define MD4_K2		013240474631u
#define MD4_K3		015666365641u
#define DX_ROOT_HDR	32u	/* '.', '..' (12 each), dx_root_info */
#define DX_NODE_HDR	8u	/* the fake empty record */
#define DX_TAIL_LEN	8u	/* struct dx_tail, with metadata_csum */
#define DX_ENTRY	8u

static inline uint32_t rol32(uint32_t w, unsigned int s)
{
	return (w << s) | (w >> (32 - s));
}

static void tea_transform(uint32_t buf[4], const uint32_t in[4])
{
	uint32_t sum = 0, b0 = buf[0], b1 = buf[1];
	uint32_t a = in[0], b = in[1], c = in[2], d = in[3];
	int n = 16;

	do {
		sum += TEA_DELTA;
		b0 += ((b1 << 4) + a) ^ (b1 + sum) ^ ((b1 >> 5) + b);
		b1 += ((b0 << 4) + c) ^ (b0 + sum) ^ ((b0 >> 5) + d);
	} while (--n);
	buf[0] += b0;
	buf[1] += b1;
}

static inline uint32_t md4_f(uint32_t x, uint32_t y, uint32_t z)
{
	return z ^ (x & (y ^ z));
}

static inline uint32_t md4_g(uint32_t x, uint32_t y, uint32_t z)
{
	return (x & y) + ((x ^ y) & z);
}

static inline uint32_t md4_h(uint32_t x, uint32_t y, uint32_t z)
{
	return x ^ y ^ z;
}

typedef uint32_t (*md4_fn)(uint32_t x, uint32_t y, uint32_t z);

/*
 * One round step a = rol(a + f(b, c, d) + x, s) over v = { a, d, c, b }:
 * step i updates v[i & 3] from the three words before it, last first.
 */
static inline void md4_step(md4_fn f, uint32_t v[4], int i, uint32_t x,
			    unsigned int s)
{
	v[i & 3] = rol32(v[i & 3] + f(v[(i + 3) & 3], v[(i + 2) & 3],
				      v[(i + 1) & 3]) + x, s);
}

static void half_md4_transform(uint32_t buf[4], const uint32_t in[8])
{
	static const uint8_t r2[8] = { 1, 3, 5, 7, 0, 2, 4, 6 };
	static const uint8_t r3[8] = { 3, 7, 2, 6, 1, 5, 0, 4 };
	static const uint8_t s1[4] = { 3, 7, 11, 19 };
	static const uint8_t s2[4] = { 3, 5, 9, 13 };
	static const uint8_t s3[4] = { 3, 9, 11, 15 };
	uint32_t v[4] = { buf[0], buf[3], buf[2], buf[1] };
	int i;

	/* Unrolled, the indexes are constants and v stays in registers
	 * (rolled, a name costs about 1000 instructions instead of 200). */
#pragma GCC unroll 8
	for (i = 0; i < 8; i++)
		md4_step(md4_f, v, i, in[i], s1[i & 3]);
#pragma GCC unroll 8
	for (i = 0; i < 8; i++)
		md4_step(md4_g, v, i, in[r2[i]] + MD4_K2, s2[i & 3]);
#pragma GCC unroll 8
	for (i = 0; i < 8; i++)
		md4_step(md4_h, v, i, in[r3[i]] + MD4_K3, s3[i & 3]);
	buf[0] += v[0];
	buf[1] += v[3];
	buf[2] += v[2];
	buf[3] += v[1];
}

static uint32_t legacy_hash(const char *name, uint32_t len, int is_signed)
{
	uint32_t hash, hash0 = 0x12a3fe2d, hash1 = 0x37abe8f9;
	int c;

	while (len--) {
		c = is_signed ? (int)(signed char)*name :
				(int)(unsigned char)*name;
		name++;
		hash = hash1 + (hash0 ^ (uint32_t)(c * 7152373));
		if (hash & 0x80000000u)
			hash -= 0x7fffffff;
		hash1 = hash0;
		hash0 = hash;
	}
	return hash0 << 1;
}

/* Packs up to num words of name into buf, padded (the kernel's
 * str2hashbuf_signed / _unsigned). */
static void str2hashbuf(const char *msg, uint32_t len, uint32_t *buf,
			int num, int is_signed)
{
	uint32_t pad, val, i;
	int c;

	pad = len | (len << 8);
	pad |= pad << 16;
	val = pad;
	if (len > (uint32_t)num * 4)
		len = (uint32_t)num * 4;
	for (i = 0; i < len; i++) {
		c = is_signed ? (int)(signed char)msg[i] :
				(int)(unsigned char)msg[i];
		val = (uint32_t)c + (val << 8);
		if ((i % 4) == 3) {
			*buf++ = val;
			val = pad;
			num--;
		}
	}
	if (--num >= 0)
		*buf++ = val;
	while (--num >= 0)
		*buf++ = pad;
}

static void hash_blocks(const char *name, uint32_t len, uint32_t buf[4],
			int tea, int is_signed)
{
	uint32_t in[8];
	int words = tea ? 4 : 8;
	uint32_t step = (uint32_t)words * 4;

	while (1) {
		str2hashbuf(name, len, in, words, is_signed);
		if (tea)
			tea_transform(buf, in);
		else
			half_md4_transform(buf, in);
		if (len <= step)
			break;
		len -= step;
		name += step;
	}
}

int extkit_dx_hash(unsigned int version, const uint32_t *seed,
		   const char *name, uint32_t len, uint32_t *hash,
		   uint32_t *minor)
{
	uint32_t buf[4] = { 0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476 };
	uint32_t h, mh = 0;
	int is_signed = version < DX_HASH_LEGACY_UNSIGNED;

	if (seed && (seed[0] | seed[1] | seed[2] | seed[3]))
		memcpy(buf, seed, sizeof(buf));
	switch (version) {
	case DX_HASH_LEGACY:
	case DX_HASH_LEGACY_UNSIGNED:
		h = legacy_hash(name, len, is_signed);
		break;
	case DX_HASH_HALF_MD4:
	case DX_HASH_HALF_MD4_UNSIGNED:
		if (len)
			hash_blocks(name, len, buf, 0, is_signed);
		h = buf[1];
		mh = buf[2];
		break;
	case DX_HASH_TEA:
	case DX_HASH_TEA_UNSIGNED:
		if (len)
			hash_blocks(name, len, buf, 1, is_signed);
		h = buf[0];
		mh = buf[1];
		break;
	default:
		return -EINVAL;
	}
	h &= ~1u;
	if (h == EXTKIT_HTREE_EOF)
		h = EXTKIT_HTREE_EOF - 2;
	*hash = h;
	if (minor)
		*minor = mh;
	return 0;
}

unsigned int extkit_htree_version(const struct extkit_fs *fs,
				  unsigned int root_version)
{
	if (root_version <= DX_HASH_TEA &&
	    (fs->sb.flags & EXT2_FLAGS_UNSIGNED_HASH))
		return root_version + 3;
	return root_version;
}

int extkit_htree_hash(const struct extkit_fs *fs, uint32_t dir_flags,
		      unsigned int root_version, const char *name,
		      uint32_t len, uint32_t *hash, uint32_t *minor)
{
	unsigned int v = extkit_htree_version(fs, root_version);
	char *folded;
	int n, rc;

	if (!len || !extkit_dir_is_casefolded(fs, dir_flags))
		return extkit_dx_hash(v, fs->sb.hash_seed, name, len, hash,
				      minor);
	folded = malloc(EXTKIT_CASEFOLD_MAX);
	if (!folded)
		return -ENOMEM;
	/* a name that does not fold is hashed as it is (ext4fs_dirhash) */
	n = extkit_casefold(name, len, folded, EXTKIT_CASEFOLD_MAX);
	if (n == -ENOMEM)
		rc = n;
	else if (n < 0)
		rc = extkit_dx_hash(v, fs->sb.hash_seed, name, len, hash,
				    minor);
	else
		rc = extkit_dx_hash(v, fs->sb.hash_seed, folded, (uint32_t)n,
				    hash, minor);
	free(folded);
	return rc;
}

static uint32_t dx_tail_len(const struct extkit_fs *fs)
{
	if (extkit_has_ro_compat(&fs->sb, EXT4_FEATURE_RO_COMPAT_METADATA_CSUM))
		return DX_TAIL_LEN;
	return 0;
}

uint32_t extkit_htree_root_limit(const struct extkit_fs *fs)
{
	return (fs->g.block_size - DX_ROOT_HDR - dx_tail_len(fs)) / DX_ENTRY;
}

uint32_t extkit_htree_node_limit(const struct extkit_fs *fs)
{
	return (fs->g.block_size - DX_NODE_HDR - dx_tail_len(fs)) / DX_ENTRY;
}

static uint32_t htree_max_levels(const struct extkit_fs *fs)
{
	return extkit_has_incompat(&fs->sb, EXT4_FEATURE_INCOMPAT_LARGEDIR) ?
	       2 : 1;
}

static inline uint64_t div_up(uint64_t a, uint64_t b)
{
	return (a + b - 1) / b;
}

int extkit_htree_index_blocks(const struct extkit_fs *fs, uint64_t leaves,
			      uint64_t *nodes, uint32_t *levels)
{
	uint64_t rl = extkit_htree_root_limit(fs);
	uint64_t nl = extkit_htree_node_limit(fs);
	uint64_t n1, n2;

	*nodes = 0;
	*levels = 0;
	if (leaves <= rl)
		return 0;
	n1 = div_up(leaves, nl);
	if (n1 <= rl) {
		*nodes = n1;
		*levels = 1;
		return 0;
	}
	n2 = div_up(n1, nl);
	if (n2 > rl || htree_max_levels(fs) < 2)
		return -EFBIG;
	*nodes = n1 + n2;
	*levels = 2;
	return 0;
}

/* ---- building ---- */

/* Fills count/limit at base and entries for targets [first, first + n):
 * target k of the level below starts at hash key[k]. */
static void put_dx_entries(uint8_t *b, uint32_t base, uint32_t limit,
			   uint64_t first, uint32_t n, const uint32_t *key,
			   uint64_t target0)
{
	uint32_t i;

	put_le16(b + base, (uint16_t)limit);
	put_le16(b + base + 2, (uint16_t)n);
	put_le32(b + base + 4, (uint32_t)(target0 + first));
	for (i = 1; i < n; i++) {
		put_le32(b + base + i * DX_ENTRY, key[first + i]);
		put_le32(b + base + i * DX_ENTRY + 4,
			 (uint32_t)(target0 + first + i));
	}
}

/* Writes the nodes of one level over n targets starting at hash key[];
 * key_up receives each node's first key. Returns the node count. */
static uint64_t build_level(const struct extkit_fs *fs, uint8_t *nodes,
			    uint64_t n, const uint32_t *key, uint64_t target0,
			    uint32_t *key_up)
{
	uint32_t bs = fs->g.block_size, nl = extkit_htree_node_limit(fs);
	uint64_t k, first, count = div_up(n, nl);
	struct extkit_dir_format fmt;
	uint32_t m;

	extkit_dir_format_init(fs, &fmt);
	for (k = 0; k < count; k++) {
		uint8_t *b = nodes + k * bs;

		first = k * nl;
		m = (uint32_t)(n - first < nl ? n - first : nl);
		memset(b, 0, bs);
		/* one empty record over the block hides the index */
		extkit_dirent_set(&fmt, b, 0, bs, "", 0, 0);
		put_dx_entries(b, DX_NODE_HDR, nl, first, m, key, target0);
		key_up[k] = key[first];
	}
	return count;
}

static void build_root_head(const struct extkit_fs *fs,
			    const struct extkit_htree_layout *lay,
			    uint8_t *root)
{
	struct dx_root_info *info;

	extkit_dirblock_new(fs, root, lay->dot_ino, lay->dotdot_ino,
			    EXTKIT_NEWDIR_DX_ROOT);
	info = (struct dx_root_info *)(root + 24);
	info->hash_version = lay->hash_version;
	info->info_length = sizeof(*info);
	info->indirect_levels = (uint8_t)lay->levels;
}

int extkit_htree_build(const struct extkit_fs *fs,
		       const struct extkit_htree_layout *lay, uint8_t *root,
		       uint8_t *nodes)
{
	uint32_t bs = fs->g.block_size, *k1 = NULL, *k2 = NULL;
	uint64_t n1 = 0, n2 = 0, want;
	uint32_t levels;
	int rc;

	rc = extkit_htree_index_blocks(fs, lay->nleaves, &want, &levels);
	if (rc)
		return rc;
	if (want != lay->nnodes || levels != lay->levels || !lay->nleaves)
		return -EINVAL;
	build_root_head(fs, lay, root);
	k1 = malloc((lay->nnodes + 1) * sizeof(*k1));
	if (!k1)
		return -ENOMEM;
	k2 = k1 + (levels == 2 ? div_up(lay->nleaves,
					extkit_htree_node_limit(fs)) : 0);
	if (levels == 0) {
		put_dx_entries(root, DX_ROOT_HDR, extkit_htree_root_limit(fs),
			       0, (uint32_t)lay->nleaves, lay->start_hash,
			       lay->first_leaf);
		goto out;
	}
	/* bottom nodes (over leaves) follow the top ones (levels 2) */
	n1 = div_up(lay->nleaves, extkit_htree_node_limit(fs));
	n2 = levels == 2 ? lay->nnodes - n1 : 0;
	build_level(fs, nodes + n2 * bs, lay->nleaves, lay->start_hash,
		    lay->first_leaf, k1);
	if (levels == 2)
		build_level(fs, nodes, n1, k1, lay->node_lblk + n2, k2);
	put_dx_entries(root, DX_ROOT_HDR, extkit_htree_root_limit(fs), 0,
		       (uint32_t)(levels == 2 ? n2 : n1), levels == 2 ? k2 : k1,
		       lay->node_lblk);
out:
	free(k1);
	return 0;
}

/* ---- verification ---- */

struct dx_verify {
	struct extkit_fs *fs;
	struct extkit_dir_iter *it;
	struct extkit_htree_report *rep;
	uint32_t *lo;		/* per logical block: a leaf's hash range */
	uint32_t *hi;
	uint8_t *seen;
};

static int dx_verify_level(struct dx_verify *v, const uint8_t *b,
			   uint32_t base, uint32_t level, uint32_t lo,
			   uint32_t hi);

static int dx_verify_child(struct dx_verify *v, uint64_t child,
			   uint32_t level, uint32_t lo, uint32_t hi)
{
	uint8_t *nb;
	int rc;

	if (child == 0 || child >= v->it->nblocks || !v->it->pblks[child] ||
	    v->seen[child]) {
		v->rep->bad_index++;
		return 0;
	}
	v->seen[child] = 1;
	if (level == v->rep->levels) {
		v->lo[child] = lo & ~1u;
		v->hi[child] = hi;
		v->rep->leaves++;
		return 0;
	}
	v->rep->nodes++;
	nb = malloc(v->fs->g.block_size);
	if (!nb)
		return -ENOMEM;
	rc = extkit_fs_read_block(v->fs, v->it->pblks[child], nb);
	if (!rc)
		rc = dx_verify_level(v, nb, DX_NODE_HDR, level + 1, lo, hi);
	free(nb);
	return rc;
}

/* Walks the entries at base of b (one index block at depth level). */
static int dx_verify_level(struct dx_verify *v, const uint8_t *b,
			   uint32_t base, uint32_t level, uint32_t lo,
			   uint32_t hi)
{
	uint32_t limit = get_le16(b + base), count = get_le16(b + base + 2);
	uint32_t i, h, next, prev = lo, bound;
	int rc;

	/* e2fsck wants the limit a block of this kind has (dx_countlimit
	 * .limit: the entries that fit before the dx_tail) */
	uint32_t want = base == DX_ROOT_HDR ? extkit_htree_root_limit(v->fs) :
			extkit_htree_node_limit(v->fs);

	if (count == 0) {
		v->rep->bad_index++;
		return 0;
	}
	if (count > limit || limit != want ||
	    base + limit * DX_ENTRY > v->fs->g.block_size) {
		v->rep->bad_node++;
		return 0;
	}
	for (i = 0; i < count; i++) {
		h = i ? get_le32(b + base + i * DX_ENTRY) : lo;
		next = i + 1 < count ?
		       get_le32(b + base + (i + 1) * DX_ENTRY) : hi;
		/* entry 0 has no hash: an entry below the one before it
		 * from entry 2 on is out of order in the block, entry 1
		 * below the range is out of the parent's range */
		if (i > 1 && h < prev)
			v->rep->bad_node++;
		else if (h < prev || (i && (h & ~1u) < (lo & ~1u)) ||
			 (i + 1 < count && next > hi && hi != UINT32_MAX))
			v->rep->bad_index++;
		prev = h;
		bound = next;
		if (i + 1 < count)
			bound = (next & 1u) ? (next & ~1u) : next - 1;
		rc = dx_verify_child(v, get_le32(b + base + i * DX_ENTRY + 4),
				     level, h, bound);
		if (rc)
			return rc;
	}
	return 0;
}

/*
 * A block the index does not name as a node but that reads as one: a
 * single empty record over the whole block, then the count/limit of a
 * node. e2fsck takes such a block for a node by its looks (and finds its
 * entries out of range); the kernel would too once it is named. A copy
 * of another directory's node over a leaf reads this way.
 */
static int looks_like_stray_node(const struct dx_verify *v,
				 const struct extkit_dirent *ent)
{
	const uint8_t *b = v->it->buf;

	return ent->kind == EXTKIT_DE_EMPTY && ent->offset == 0 &&
	       ent->lblk != 0 && ent->rec_len == v->fs->g.block_size &&
	       ent->name_len == 0 && b && v->it->lblk == ent->lblk &&
	       get_le16(b + DX_NODE_HDR) == extkit_htree_node_limit(v->fs);
}

/*
 * A name with no agreed hash (extkit_casefold_name_unhashable) that no
 * hashable name comes before in its leaf: e2fsck, which cannot hash it,
 * keeps the hash of the entry before it in the block (pass 2's variable),
 * so only there does its check go astray. Elsewhere the name's hash as
 * bytes (the kernel's) is checked as any.
 */
static int unhashable_first(struct dx_verify *v,
			    const struct extkit_dirent *ent,
			    uint64_t *hashed_lblk)
{
	if (!extkit_casefold_name_unhashable(v->fs, v->it->inode.flags,
					     ent->name, ent->name_len)) {
		*hashed_lblk = ent->lblk;
		return 0;
	}
	return *hashed_lblk != ent->lblk;
}

static int dx_verify_leaves(struct dx_verify *v, uint8_t version)
{
	struct extkit_dirent ent;
	uint64_t hashed_lblk = UINT64_MAX;	/* a hashable name seen */
	uint32_t h;
	int rc;

	while ((rc = extkit_dir_iter_next(v->it, &ent)) > 0) {
		if (looks_like_stray_node(v, &ent)) {
			v->rep->bad_index++;
			continue;
		}
		if (ent.kind != EXTKIT_DE_LIVE || ent.lblk == 0 ||
		    !v->seen[ent.lblk])
			continue;
		v->rep->entries++;
		if (unhashable_first(v, &ent, &hashed_lblk))
			v->rep->unhashable++;
		rc = extkit_htree_hash(v->fs, v->it->inode.flags, version,
				       ent.name, ent.name_len, &h, NULL);
		if (rc)
			return rc;
		if (h < v->lo[ent.lblk] || h > v->hi[ent.lblk])
			v->rep->bad_hash++;
	}
	return rc;
}

int extkit_htree_verify(struct extkit_fs *fs, uint32_t ino,
			struct extkit_htree_report *rep)
{
	struct extkit_dir_iter it;
	struct dx_verify v = { .fs = fs, .it = &it, .rep = rep };
	struct dx_root root;
	int rc;

	memset(rep, 0, sizeof(*rep));
	rc = extkit_dir_iter_init(&it, fs, ino, 0);
	if (rc)
		return rc;
	if (!it.indexed) {
		rc = -ENODATA;
		goto out;
	}
	v.lo = calloc(it.nblocks, 2 * sizeof(uint32_t) + 1);
	if (!v.lo) {
		rc = -ENOMEM;
		goto out;
	}
	v.hi = v.lo + it.nblocks;
	v.seen = (uint8_t *)(v.hi + it.nblocks);
	rc = extkit_fs_read_block(fs, it.pblks[0], it.buf);
	if (rc)
		goto out;
	memcpy(&root, it.buf, sizeof(root));
	rep->levels = root.info.indirect_levels;
	rep->hash_version = root.info.hash_version;
	rc = dx_verify_level(&v, it.buf, DX_ROOT_HDR, 0, 0, UINT32_MAX);
	if (!rc)
		rc = dx_verify_leaves(&v, root.info.hash_version);
out:
	free(v.lo);
	extkit_dir_iter_end(&it);
	return rc;
}
