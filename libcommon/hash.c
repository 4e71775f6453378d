#include "hash.h"

#include <string.h>

#include <xxhash.h>

void hash_hex(const void *data, size_t len, char out[HASH_HEX_LEN + 1])
{
	static const char hex[] = "0123456789abcdef";
	XXH128_hash_t h = XXH3_128bits(data, len);
	XXH128_canonical_t c;
	XXH128_canonicalFromHash(&c, h);
	for (int i = 0; i < 16; i++) {
		out[2 * i] = hex[c.digest[i] >> 4];
		out[2 * i + 1] = hex[c.digest[i] & 15];
	}
	out[HASH_HEX_LEN] = '\0';
}

int hash_is_hex(const char *s)
{
	if (!s || strlen(s) != HASH_HEX_LEN)
		return 0;
	for (const char *p = s; *p; p++)
		if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
			return 0;
	return 1;
}
