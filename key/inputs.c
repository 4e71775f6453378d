#include "inputs.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <xxhash.h>

#include "err.h"
#include "glob.h"
#include "path.h"
#include "walk.h"

struct walkarg {
	struct inputs_ctx *c;
	const char *base; /* "" for the root */
	const char *const *exclude;
	size_t nexclude;
	struct inputs *out;
};

static char *rootrel(const struct walkarg *w, const char *rel)
{
	return *w->base ? xasprintf("%s/%s", w->base, rel) : xstrdup(rel);
}

static bool skip_dir(const char *rel, void *arg)
{
	struct walkarg *w = arg;
	char *p = rootrel(w, rel);
	bool skip = false;
	for (size_t i = 0; i < w->c->nskip && !skip; i++)
		skip = strcmp(w->c->skip_dirs[i], p) == 0;
	if (!skip)
		skip = ignore_match(w->c->ig, p, true);
	free(p);
	return skip;
}

static int add_file(const char *rel, const struct stat *st, void *arg)
{
	struct walkarg *w = arg;
	for (size_t i = 0; i < w->nexclude; i++)
		if (glob_match(w->exclude[i], rel))
			return 0;
	char *p = rootrel(w, rel);
	if (ignore_match(w->c->ig, p, false)) {
		free(p);
		return 0;
	}
	struct inputs *o = w->out;
	if (o->n == o->cap) {
		o->cap = o->cap ? o->cap * 2 : 64;
		o->v = xrealloc(o->v, o->cap * sizeof(*o->v));
	}
	o->v[o->n++] = (struct input){.rel = xstrdup(rel), .path = p, .st = *st};
	return 0;
}

static int cmp_input(const void *a, const void *b)
{
	return strcmp(((const struct input *)a)->rel, ((const struct input *)b)->rel);
}

int inputs_collect(struct inputs_ctx *c, const char *base, const char *const *globs, size_t nglobs,
	const char *const *exclude, size_t nexclude, struct inputs *out)
{
	memset(out, 0, sizeof(*out));
	if (!nglobs)
		return 0;
	const char *b = strcmp(base, ".") == 0 ? "" : base;
	struct walkarg w = {c, b, exclude, nexclude, out};
	char *dir = *b ? path_join(c->root, b) : xstrdup(c->root);
	struct walk_opts o = {.globs = globs, .nglobs = nglobs, .skip = skip_dir, .arg = &w};
	int r = walk_tree(dir, &o, add_file);
	free(dir);
	if (r < 0 && errno == ENOENT)
		r = 0; /* a project directory that vanished has no inputs */
	qsort(out->v, out->n, sizeof(*out->v), cmp_input);
	return r;
}

struct pool {
	struct inputs_ctx *c;
	struct input **todo;
	size_t n, next;
	int64_t now;
	pthread_mutex_t lock;
	int err;
	char *errpath;
};

static int hash_one(const char *root, struct input *in)
{
	char *abs = path_join(root, in->path);
	int r = 0;
	if (S_ISLNK(in->st.st_mode)) {
		char target[4096];
		ssize_t n = readlink(abs, target, sizeof(target));
		if (n < 0) {
			r = -1;
		} else {
			XXH3_state_t *s = XXH3_createState();
			XXH3_128bits_reset(s);
			XXH3_128bits_update(s, "link\0", 5);
			XXH3_128bits_update(s, target, (size_t)n);
			XXH128_canonicalFromHash((XXH128_canonical_t *)in->hash, XXH3_128bits_digest(s));
			XXH3_freeState(s);
		}
		free(abs);
		return r;
	}
	int fd = open(abs, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	free(abs);
	if (fd < 0)
		return -1;
	XXH3_state_t *s = XXH3_createState();
	XXH3_128bits_reset(s);
	char buf[65536];
	ssize_t n;
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			r = -1;
			break;
		}
		XXH3_128bits_update(s, buf, (size_t)n);
	}
	XXH128_canonicalFromHash((XXH128_canonical_t *)in->hash, XXH3_128bits_digest(s));
	XXH3_freeState(s);
	close(fd);
	return r;
}

static void *worker(void *arg)
{
	struct pool *p = arg;
	for (;;) {
		pthread_mutex_lock(&p->lock);
		size_t i = p->next++;
		pthread_mutex_unlock(&p->lock);
		if (i >= p->n)
			return NULL;
		if (hash_one(p->c->root, p->todo[i]) != 0) {
			pthread_mutex_lock(&p->lock);
			if (!p->err) {
				p->err = errno ? errno : EIO;
				p->errpath = p->todo[i]->path;
			}
			pthread_mutex_unlock(&p->lock);
		}
	}
}

int inputs_hash(struct inputs_ctx *c, struct inputs *in)
{
	struct pool p = {.c = c, .lock = PTHREAD_MUTEX_INITIALIZER};
	p.todo = xcalloc(in->n + 1, sizeof(*p.todo));
	for (size_t i = 0; i < in->n; i++) {
		const uint8_t *h = statcache_lookup(c->sc, in->v[i].path, &in->v[i].st);
		if (h) {
			memcpy(in->v[i].hash, h, 16);
			c->cached++;
		} else {
			p.todo[p.n++] = &in->v[i];
		}
	}
	/* taken before reading: a write after this moment gets a later mtime */
	p.now = statcache_now();
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	size_t nt = p.n / 32 + 1;
	if (nt > (size_t)(cpus > 0 ? cpus : 1))
		nt = (size_t)(cpus > 0 ? cpus : 1);
	if (nt > 8)
		nt = 8;
	pthread_t th[8];
	size_t started = 0;
	for (size_t i = 1; i < nt; i++)
		if (pthread_create(&th[started], NULL, worker, &p) == 0)
			started++;
	worker(&p);
	for (size_t i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	if (p.err) {
		errno = p.err;
		err_warn_errno("unable to read input '%s'", p.errpath);
		free(p.todo);
		return -1;
	}
	for (size_t i = 0; i < p.n; i++)
		statcache_store(c->sc, p.todo[i]->path, &p.todo[i]->st, p.todo[i]->hash, p.now);
	c->hashed += p.n;
	free(p.todo);
	return 0;
}

void inputs_free(struct inputs *in)
{
	for (size_t i = 0; i < in->n; i++) {
		free(in->v[i].rel);
		free(in->v[i].path);
	}
	free(in->v);
	memset(in, 0, sizeof(*in));
}
