#include "arena.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>

#include <cjson/cJSON.h>

#include "err.h"

#if defined(__SANITIZE_ADDRESS__)
void arena_use_for_cjson(void)
{
}
#else

#define CHUNK (4u << 20)

static char *cur, *end;

static void *arena_alloc(size_t n)
{
	n = (n + 15) & ~(size_t)15;
	if (n > CHUNK / 4)
		return xmalloc(n); /* large and rare: never freed either */
	if ((size_t)(end - cur) < n) {
		void *p = mmap(NULL, CHUNK, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
		if (p == MAP_FAILED)
			return xmalloc(n);
		cur = p;
		end = cur + CHUNK;
	}
	void *r = cur;
	cur += n;
	return r;
}

static void arena_free(void *p)
{
	(void)p;
}

void arena_use_for_cjson(void)
{
	cJSON_Hooks h = {.malloc_fn = arena_alloc, .free_fn = arena_free};
	cJSON_InitHooks(&h);
}
#endif
