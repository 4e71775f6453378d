/* size.h: a size as users write it, for the cache's limits (VX_CACHE_*,
 * the root vx.json's cacheMaxSize, vx-cache prune --max-size).
 *
 * size_parse: bytes, or a number with K, M, G or T (powers of 1024), which
 * may be lowercase and followed by B or iB ("500MB", "10GiB"). 0 and *out
 * set, or -1 (empty, signed, trailing text, overflow).
 */
#ifndef VX_SIZE_H
#define VX_SIZE_H

int size_parse(const char *s, unsigned long long *out);

#endif
