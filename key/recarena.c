/* recarena.c: see recarena.h. */
#include "recarena.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cjson/cJSON.h>

#include "err.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define POISON(p, n) ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

#define FIRST (256u << 10)
#define MOST (16u << 20)

static char *base;   /* the chunk */
static size_t cap, used, spilled; /* spilled: bytes malloc gave since the reset */

static void *alloc(size_t n)
{
	size_t a = (n + 15) & ~(size_t)15;
	if (a >= n && cap - used >= a) {
		void *r = base + used;
		used += a;
		UNPOISON(r, n);
		return r;
	}
	spilled += n;
	return xmalloc(n ? n : 1);
}

static void release(void *p)
{
	if (p && ((char *)p < base || (char *)p >= base + cap))
		free(p);
}

void recarena_use_for_cjson(void)
{
	if (!base) {
		cap = FIRST;
		base = xmalloc(cap);
		POISON(base, cap);
	}
	used = spilled = 0;
	cJSON_Hooks h = {.malloc_fn = alloc, .free_fn = release};
	cJSON_InitHooks(&h);
}

void recarena_reset(void)
{
	/* a record that did not fit: the next ones like it will */
	if (spilled && cap < MOST) {
		size_t want = cap;
		while (want < used + spilled && want < MOST)
			want *= 2;
		free(base);
		cap = want;
		base = xmalloc(cap);
	}
	POISON(base, cap);
	used = spilled = 0;
}

void recarena_delete(cJSON *item)
{
	if (spilled || !base)
		cJSON_Delete(item);
}

void recarena_stop(void)
{
	cJSON_InitHooks(NULL);
	free(base);
	base = NULL;
	cap = used = spilled = 0;
}
