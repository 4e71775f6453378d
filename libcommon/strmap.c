#include "strmap.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"

#include <xxhash.h>

/* XXH3: long keys (absolute paths) hash several times faster than FNV's
 * byte at a time */
static uint64_t hash(const char *s)
{
	return XXH3_64bits(s, strlen(s));
}

void strmap_init(struct strmap *m)
{
	memset(m, 0, sizeof(*m));
}

void strmap_free(struct strmap *m)
{
	free(m->keys);
	free(m->vals);
	free(m->tags);
	strmap_init(m);
}

static size_t slot(const struct strmap *m, const char *key, uint64_t h)
{
	size_t i = h & (m->cap - 1);
	unsigned tag = (unsigned)(h >> 32);
	while (m->keys[i] && (m->tags[i] != tag || strcmp(m->keys[i], key) != 0))
		i = (i + 1) & (m->cap - 1);
	return i;
}

void *strmap_get(const struct strmap *m, const char *key)
{
	if (!m->cap)
		return NULL;
	size_t i = slot(m, key, hash(key));
	return m->keys[i] ? m->vals[i] : NULL;
}

void strmap_prefetch(const struct strmap *m, const char *key, bool deep)
{
	if (!m->cap)
		return;
	size_t i = hash(key) & (m->cap - 1);
	if (!deep) {
		__builtin_prefetch(&m->keys[i]);
		__builtin_prefetch(&m->tags[i]);
		__builtin_prefetch(&m->vals[i]);
		return;
	}
	if (m->keys[i]) {
		__builtin_prefetch(m->keys[i]);
		__builtin_prefetch(m->vals[i]);
	}
}

static void resize(struct strmap *m, size_t cap)
{
	struct strmap old = *m;
	m->cap = cap;
	m->keys = xcalloc(m->cap, sizeof(*m->keys));
	m->vals = xcalloc(m->cap, sizeof(*m->vals));
	m->tags = xcalloc(m->cap, sizeof(*m->tags));
	m->len = 0;
	for (size_t i = 0; i < old.cap; i++)
		if (old.keys[i])
			strmap_put(m, old.keys[i], old.vals[i]);
	free(old.keys);
	free(old.vals);
	free(old.tags);
}

void strmap_reserve(struct strmap *m, size_t n)
{
	size_t cap = m->cap ? m->cap : 64;
	while (n * 2 > cap)
		cap *= 2;
	if (cap != m->cap)
		resize(m, cap);
}

void *strmap_put(struct strmap *m, const char *key, void *val)
{
	if ((m->len + 1) * 2 > m->cap)
		resize(m, m->cap ? m->cap * 2 : 64);
	uint64_t h = hash(key);
	size_t i = slot(m, key, h);
	void *prev = m->keys[i] ? m->vals[i] : NULL;
	if (!m->keys[i]) {
		m->keys[i] = key;
		m->tags[i] = (unsigned)(h >> 32);
		m->len++;
	}
	m->vals[i] = val;
	return prev;
}
