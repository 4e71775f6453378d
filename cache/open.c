/* open.c: opening the cache (its limits from the environment) and closing
 * it, which flushes what the parts that keep state hold (hits.c, stamp.c,
 * inplace.c): the one file that calls them all, so none calls back. */
#include "cache.h"

#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "cache_int.h"
#include "err.h"
#include "path.h"
#include "size.h"
#include "strmap.h"

/* A size limit from the environment (cache.h). */
static unsigned long long size_limit(const char *var, const char *dflt)
{
	const char *v = getenv(var);
	for (int pass = 0; pass < 2; pass++, v = dflt) {
		unsigned long long n;
		if (!v || !*v)
			continue;
		if (size_parse(v, &n) == 0)
			return n;
		err_warn("%s: '%s' is not a size (bytes, or a number with K, M, G or T; 0 for none); "
			 "using %s", var, v, dflt);
	}
	return 0; /* not reached: the defaults parse */
}

unsigned long long cache_max_size(const struct cache *c)
{
	return c->max_size;
}

void cache_config_max_size(struct cache *c, unsigned long long cap)
{
	const char *env = getenv("VX_CACHE_MAX_SIZE");
	if (!env || !*env)
		c->max_size = cap;
}

struct cache *cache_open(const char *dir, const char *statedir)
{
	struct cache *c = xcalloc(1, sizeof(*c));
	c->dir = path_normalize(dir);
	c->statedir = statedir ? path_normalize(statedir) : NULL;
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	c->pid = (int)getpid();
	c->nonce = (unsigned)ts.tv_nsec ^ ((unsigned)c->pid << 12);
	c->umask = umask(0);
	umask(c->umask);
	c->euid = geteuid();
	c->acfd = c->casfd = c->shadowfd = -1;
	c->max_output = size_limit("VX_CACHE_MAX_OUTPUT_SIZE", CACHE_MAX_OUTPUT_DEFAULT);
	c->max_entry = size_limit("VX_CACHE_MAX_ENTRY_SIZE", CACHE_MAX_ENTRY_DEFAULT);
	c->max_size = size_limit("VX_CACHE_MAX_SIZE", CACHE_MAX_SIZE_DEFAULT);
	pthread_mutex_init(&c->stamp_mu, NULL);
	strmap_init(&c->touched);
	return c;
}

void cache_close(struct cache *c)
{
	if (!c)
		return;
	cache_hits_flush(c);
	cache_stamp_close(c);
	cache_inplace_close(c);
	cache_forget_dirs(c);
	if (c->shadowfd >= 0)
		close(c->shadowfd);
	pthread_mutex_destroy(&c->stamp_mu);
	for (size_t i = 0; i < c->touched.cap; i++)
		free((char *)c->touched.keys[i]);
	strmap_free(&c->touched);
	free(c->dir);
	free(c->statedir);
	free(c);
}
