// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * casefold (see casefold.h): the kernel's utf8-12.1 name folding, by
 * libunistring, restricted to what Unicode 12.1 assigned.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <unicase.h>
#include <uninorm.h>
#include <unistr.h>

#include "casefold.h"
#include "ondisk.h"
#include "super.h"

static int in_ranges(const struct extkit_cp_range *r, unsigned int n,
		     uint32_t cp)
{
	unsigned int lo = 0, hi = n;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (cp < r[mid].first)
			hi = mid;
		else if (cp > r[mid].last)
			lo = mid + 1;
		else
			return 1;
	}
	return 0;
}

int extkit_utf8_12_1_is_assigned(uint32_t cp)
{
	return in_ranges(extkit_utf8_12_1_assigned,
			 extkit_utf8_12_1_assigned_count, cp);
}

static int is_ignorable(uint32_t cp)
{
	return in_ranges(extkit_utf8_12_1_ignorable,
			 extkit_utf8_12_1_ignorable_count, cp);
}

/* Folds the n bytes of 12.1 code points at s onto out at *o. */
static int fold_run(const uint8_t *s, size_t n, char *out, size_t outsz,
		    size_t *o)
{
	size_t rlen = outsz - *o;
	uint8_t *res;

	if (!n)
		return 0;
	res = u8_casefold(s, n, NULL, UNINORM_NFD, (uint8_t *)out + *o, &rlen);
	if (!res)
		return errno == ENOMEM ? -ENOMEM : -EINVAL;
	if (res != (uint8_t *)out + *o) {
		/* did not fit: libunistring allocated */
		free(res);
		return -EINVAL;
	}
	*o += rlen;
	return 0;
}

/*
 * A continuation byte (10xxxxxx) where a character should start, right
 * after an ASCII one. The kernel's utf8 cursor (utf8ncursor) refuses a
 * name that starts with one, but further on utf8byte passes such a byte
 * through unchanged, as a character of its own, and so does e2fsprogs
 * (same code and tables; checked with `debugfs dx_hash -c -e utf8` for
 * every such byte): "K_1\xb0" folds to "k_1\xb0". After a combining
 * mark the cursor, reordering, treats it otherwise (not known here).
 */
static int is_stray_continuation(const uint8_t *s, size_t i)
{
	return i > 0 && (s[i] & 0xc0) == 0x80 && s[i - 1] < 0x80;
}

/*
 * The kernel's table (mkutf8data) holds every code point but the
 * surrogates: those 12.1 assigned with their decompositions and folds,
 * the Default_Ignorable ones (assigned or reserved) as empty, and the
 * rest as themselves, starters (ccc 0) that neither fold nor reorder.
 * So the name is cut at the code points libunistring must not see (the
 * ones 12.1 did not assign, kept as they are; the ignorables, dropped):
 * both are starters, so no reordering crosses them, and each run
 * between them is folded by libunistring whole. A stray continuation
 * byte is cut out the same way, kept as it is.
 */
int extkit_casefold(const char *name, uint32_t len, char *out, size_t outsz)
{
	const uint8_t *s = (const uint8_t *)name;
	size_t i = 0, run = 0, o = 0;
	ucs4_t cp;
	int k, rc;

	if (outsz > EXTKIT_CASEFOLD_MAX)
		outsz = EXTKIT_CASEFOLD_MAX;
	while (i < len) {
		int stray = 0;

		k = u8_mbtoucr(&cp, s + i, len - i);
		if (k <= 0 && !is_stray_continuation(s, i))
			return -EINVAL;	/* ill-formed, surrogates too */
		if (k <= 0) {
			/* passed through as it is, a character of its own */
			stray = 1;
			k = 1;
		} else if (!is_ignorable(cp) &&
			   extkit_utf8_12_1_is_assigned(cp)) {
			i += (size_t)k;
			continue;
		}
		rc = fold_run(s + run, i - run, out, outsz, &o);
		if (rc)
			return rc;
		if (stray || !is_ignorable(cp)) {
			if (o + (size_t)k > outsz)
				return -EINVAL;
			memcpy(out + o, s + i, (size_t)k);
			o += (size_t)k;
		}
		i += (size_t)k;
		run = i;
	}
	rc = fold_run(s + run, i - run, out, outsz, &o);
	return rc ? rc : (int)o;
}

int extkit_utf8_invalid_at(const char *name, uint32_t len)
{
	const uint8_t *s = (const uint8_t *)name;
	uint32_t i = 0;
	ucs4_t cp;
	int k;

	while (i < len) {
		k = u8_mbtoucr(&cp, s + i, len - i);
		if (k <= 0)
			return (int)i;
		i += (uint32_t)k;
	}
	return -1;
}

int extkit_casefold_name_unhashable(const struct extkit_fs *fs,
				    uint32_t dir_flags, const char *name,
				    uint32_t len)
{
	const uint8_t *s = (const uint8_t *)name;
	uint32_t i = 0;
	ucs4_t cp;
	int k;

	/* a name the cursor refuses at once is hashed as its bytes by both */
	if (!extkit_dir_is_casefolded(fs, dir_flags) || !len ||
	    (s[0] & 0xc0) == 0x80)
		return 0;
	while (i < len) {
		k = u8_mbtoucr(&cp, s + i, len - i);
		if (k > 0)
			i += (uint32_t)k;
		else if (is_stray_continuation(s, i))
			i++;
		else
			return 1;
	}
	return 0;
}

int extkit_dir_is_casefolded(const struct extkit_fs *fs, uint32_t dir_flags)
{
	return (dir_flags & EXT4_CASEFOLD_FL) &&
	       !(dir_flags & EXT4_ENCRYPT_FL) &&
	       extkit_has_incompat(&fs->sb, EXT4_FEATURE_INCOMPAT_CASEFOLD) &&
	       fs->sb.encoding == EXTKIT_ENC_UTF8_12_1;
}

int extkit_casefold_name_eq(const char *a, uint32_t alen, const char *b,
			    uint32_t blen)
{
	char *fa = malloc(2 * EXTKIT_CASEFOLD_MAX), *fb;
	int la, lb, eq;

	if (!fa)
		return alen == blen && !memcmp(a, b, alen);
	fb = fa + EXTKIT_CASEFOLD_MAX;
	la = extkit_casefold(a, alen, fa, EXTKIT_CASEFOLD_MAX);
	lb = la < 0 ? -1 : extkit_casefold(b, blen, fb, EXTKIT_CASEFOLD_MAX);
	if (la < 0 || lb < 0)
		eq = alen == blen && !memcmp(a, b, alen);
	else
		eq = la == lb && !memcmp(fa, fb, (size_t)la);
	free(fa);
	return eq;
}
