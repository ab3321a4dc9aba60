// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cfhash: the casefolded dx hash of names, for cross-checking extkit's
 * casefold (lib/casefold.c) against debugfs `dx_hash -c -e utf8`.
 * Reads one name a line on stdin, hex-encoded; prints "HEX 0xHASH" with
 * the half_md4 hash (signed, default seed) of the folded name, or of the
 * bytes when the name does not fold, as the kernel hashes it. With -f it
 * prints the folded name in hex instead of the hash ("-" when it does
 * not fold).
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "casefold.h"
#include "htree.h"
#include "ondisk.h"

static int unhex(const char *s, char *out, uint32_t *len)
{
	uint32_t n = 0;
	unsigned int b;

	while (s[0] && s[0] != '\n') {
		if (n >= 255 || sscanf(s, "%2x", &b) != 1)
			return -1;
		out[n++] = (char)b;
		s += 2;
	}
	*len = n;
	return 0;
}

int main(int argc, char **argv)
{
	static char line[1024], name[256], fold[EXTKIT_CASEFOLD_MAX];
	int show_fold = argc > 1 && !strcmp(argv[1], "-f");
	uint32_t len, hash;
	int n;

	while (fgets(line, sizeof(line), stdin)) {
		line[strcspn(line, "\n")] = 0;
		if (unhex(line, name, &len))
			return 2;
		n = extkit_casefold(name, len, fold, sizeof(fold));
		if (show_fold) {
			printf("%s ", line);
			if (n < 0)
				printf("-");
			for (int i = 0; i < n; i++)
				printf("%02x", (unsigned char)fold[i]);
			printf("\n");
			continue;
		}
		if (n < 0)
			extkit_dx_hash(DX_HASH_HALF_MD4, NULL, name, len, &hash,
				       NULL);
		else
			extkit_dx_hash(DX_HASH_HALF_MD4, NULL, fold,
				       (uint32_t)n, &hash, NULL);
		printf("%s 0x%x\n", line, hash);
	}
	return 0;
}
