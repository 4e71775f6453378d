/* strmap.h: a string-keyed hash map (open addressing). Keys are borrowed:
 * the caller keeps each key alive as long as the map; values are opaque. */
#ifndef VX_STRMAP_H
#define VX_STRMAP_H

#include <stdbool.h>
#include <stddef.h>

struct strmap {
	const char **keys;
	void **vals;
	unsigned *tags; /* 32 bits of each key's hash: most probes skip strcmp */
	size_t cap, len;
};

void strmap_init(struct strmap *m);
void strmap_free(struct strmap *m);
/* The value under key, or NULL. */
void *strmap_get(const struct strmap *m, const char *key);
/* Room for n keys in all without growing (a caller that knows how many it
 * will put: each growth puts every key again). */
void strmap_reserve(struct strmap *m, size_t n);
/* A hint, no effect on the map: have the CPU fetch where key's entry lies
 * (its slot) ahead of a strmap_get, or with deep, once that has come, also
 * the key and value the slot holds. Many hints before their lookups let
 * the cache misses of a large map overlap instead of following each
 * other. */
void strmap_prefetch(const struct strmap *m, const char *key, bool deep);
/* Sets key to val; returns the previous value or NULL. */
void *strmap_put(struct strmap *m, const char *key, void *val);

#endif
