// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mkfs -d from a directory: the extended attributes of an entry of the
 * source, read through its open file or its name (llistxattr and
 * lgetxattr: a symbolic link's own), POSIX ACLs
 * (system.posix_acl_*) converted to the ext4 form.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/xattr.h>

#include "cli/msg.h"

#include "populate.h"

static void xlist_free(struct xlist *x)
{
	free(x->names);
	free(x->values);
	free(x->items);
	memset(x, 0, sizeof(*x));
}

static ssize_t xsrc_list(const struct xsrc *s, char *buf, size_t len)
{
	if (s->fd >= 0)
		return flistxattr(s->fd, buf, len);
	return llistxattr(s->path, buf, len);
}

static ssize_t xsrc_get(const struct xsrc *s, const char *name, void *buf,
			size_t len)
{
	if (s->fd >= 0)
		return fgetxattr(s->fd, name, buf, len);
	return lgetxattr(s->path, name, buf, len);
}

static int read_value(const struct xsrc *s, const char *name, uint8_t **buf,
		      size_t *len)
{
	ssize_t n = xsrc_get(s, name, NULL, 0);

	if (n < 0)
		return -errno;
	*buf = malloc(n ? (size_t)n : 1);
	if (!*buf)
		return -ENOMEM;
	n = xsrc_get(s, name, *buf, (size_t)n);
	if (n < 0)
		return -errno;
	*len = (size_t)n;
	return 0;
}

/* One attribute into the list; ACLs converted to the ext4 form. shown:
 * the entry, for messages. */
static int add_xattr(struct xlist *x, const struct xsrc *s, const char *shown,
		     const char *name, uint8_t **vals, size_t *vlen)
{
	struct extkit_xattr_item *it = &x->items[x->n];
	uint8_t *v = NULL, *acl;
	size_t len = 0, alen;
	const char *suffix;
	int rc = extkit_xattr_name_split(name, &it->index, &suffix);

	if (rc == -EOPNOTSUPP) {
		cli_error("warning: %s: attribute %s cannot be stored, left out",
			  shown, name);
		return 0;
	}
	if (!rc)
		rc = read_value(s, name, &v, &len);
	if (!rc && (it->index == EXTKIT_XATTR_INDEX_ACL_ACCESS ||
		    it->index == EXTKIT_XATTR_INDEX_ACL_DEFAULT)) {
		acl = malloc(extkit_acl_max_size(len / 8 + 1));
		rc = acl ? extkit_acl_from_xattr(v, len, acl, &alen) : -ENOMEM;
		free(v);
		v = acl;
		len = alen;
	}
	if (rc) {
		free(v);
		return rc;
	}
	it->name = suffix;
	it->name_len = (uint8_t)strlen(suffix);
	it->value = v;
	it->size = (uint32_t)len;
	vals[x->n++] = v;
	*vlen += len;
	return 0;
}

int pop_read_xattrs(const struct xsrc *s, const char *shown,
		     struct xlist *x)
{
	ssize_t n = xsrc_list(s, NULL, 0);
	uint8_t **vals = NULL;
	size_t count = 0, vlen = 0;
	int rc = 0;

	memset(x, 0, sizeof(*x));
	if (n < 0)
		return errno == ENOTSUP ? 0 : -errno;
	if (n == 0)
		return 0;
	x->names = malloc((size_t)n);
	if (!x->names)
		return -ENOMEM;
	n = xsrc_list(s, x->names, (size_t)n);
	if (n < 0)
		return -errno;
	for (ssize_t i = 0; i < n; i += (ssize_t)strlen(x->names + i) + 1)
		count++;
	x->items = calloc(count, sizeof(*x->items));
	vals = calloc(count, sizeof(*vals));
	if (!x->items || !vals)
		rc = -ENOMEM;
	for (ssize_t i = 0; !rc && i < n;
	     i += (ssize_t)strlen(x->names + i) + 1)
		rc = add_xattr(x, s, shown, x->names + i, vals, &vlen);
	/* the values stay where read_value put them: keep them listed */
	x->values = (uint8_t *)vals;
	return rc;
}

void pop_xlist_release(struct xlist *x)
{
	uint8_t **vals = (uint8_t **)x->values;

	for (size_t i = 0; vals && i < x->n; i++)
		free(vals[i]);
	xlist_free(x);
}
