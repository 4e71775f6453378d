/* fuzz.h: what the harnesses share. */
#ifndef VX_FUZZ_H
#define VX_FUZZ_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Two strings from one input: "a\nb" gives a and b; with no '\n' both are
 * the whole input. Returns the malloc'd copy both point into (the caller
 * frees it); *blen (when not NULL) is b's length. */
static inline char *fuzz_split(const uint8_t *data, size_t size, const char **a,
	const char **b, size_t *blen)
{
	char *buf = malloc(size + 1);
	memcpy(buf, data, size);
	buf[size] = '\0';
	char *nl = memchr(buf, '\n', size);
	*a = *b = buf;
	if (nl) {
		*nl = '\0';
		*b = nl + 1;
	}
	if (blen)
		*blen = size - (size_t)(*b - buf);
	return buf;
}

#endif
