#include "inputs.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define XXH_STATIC_LINKING_ONLY /* XXH3_state_t on the stack */
#include <xxhash.h>

#include "err.h"
#include "glob.h"
#include "par.h"
#include "path.h"
#include "walk.h"

#define MAX_THREADS 4

struct walkarg {
	struct inputs_ctx *c;
	const char *base; /* "" for the root */
	size_t baselen;
	const char *const *exclude;
	size_t nexclude;
	const char *const *globs; /* the task's, base-relative */
	size_t nglobs;
	struct inputs *out;
	char *buf; /* scratch for root-relative paths */
	size_t cap;
	char *kbuf; /* scratch for the stat cache's directory keys */
	size_t kcap;
	/* the stat cache entry of the file last stat'ed through it, for
	 * add_file: the hash lookup needs no second search */
	const struct sc_entry *hint;
	char *hint_rel;
	size_t hint_cap;
	bool hint_set;
	/* for the stamp: each positive glob's static prefix (glob.h), and
	 * whether the walk stamped it already */
	char **prefix;
	bool *stamped;
};

/* The root-relative spelling of a base-relative path, in w->buf. */
static const char *rootrel(struct walkarg *w, const char *rel)
{
	size_t n = strlen(rel), need = w->baselen + 1 + n + 1;
	XGROW(w->buf, need, w->cap);
	size_t off = 0;
	if (w->baselen) {
		memcpy(w->buf, w->base, w->baselen);
		w->buf[w->baselen] = '/';
		off = w->baselen + 1;
	}
	memcpy(w->buf + off, rel, n + 1);
	return w->buf;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Does a glob free of magic name rel itself (exact) or a path under it?
 * A file the user names outright is an input even when .gitignore ignores
 * it (a .env beside the code): its edit must move the key. */
static bool named(const struct walkarg *w, const char *rel, bool exact)
{
	size_t n = strlen(rel);
	for (size_t i = 0; i < w->nglobs; i++) {
		const char *g = w->globs[i];
		if (g[0] == '!' || glob_has_magic(g) || strncmp(g, rel, n) != 0)
			continue;
		if (exact ? g[n] == '\0' : g[n] == '/')
			return true;
	}
	return false;
}

/* Is every path under rel excluded (an output glob "rel/" + "**")? Then no
 * file in it is an input, whatever it holds: not walked, not stamped. */
static bool all_excluded(const struct walkarg *w, const char *rel)
{
	size_t n = strlen(rel);
	for (size_t i = 0; i < w->nexclude; i++) {
		const char *x = w->exclude[i];
		if (strncmp(x, rel, n) == 0 && strcmp(x + n, "/**") == 0 && !strchr(rel, '\\') &&
			!glob_has_magic(rel))
			return true;
	}
	return false;
}

static bool skip_dir(const char *rel, void *arg)
{
	struct walkarg *w = arg;
	if (all_excluded(w, rel))
		return true;
	const char *p = rootrel(w, rel);
	if (w->c->nskip && bsearch(&p, w->c->skip_dirs, w->c->nskip, sizeof(char *), cmp_str))
		return true;
	return ignore_match(w->c->ig, p, true) && !named(w, rel, false);
}

/* a directory the walk lists without a .gitignore needs no probe for one */
static void entered(const char *rel, const char *names, size_t len, void *arg)
{
	struct walkarg *w = arg;
	for (const char *p = names; p < names + len; p += strlen(p) + 1)
		if (strcmp(p, ".gitignore") == 0)
			return;
	ignore_dir_without_file(w->c->ig, *rel ? rootrel(w, rel) : w->base);
}

/* The stat cache's key for directory rel: "<root-relative path>/". */
static const char *dir_key(struct walkarg *w, const char *rel)
{
	const char *p = *rel ? rootrel(w, rel) : w->base;
	size_t n = strlen(p);
	XGROW(w->kbuf, n + 2, w->kcap);
	memcpy(w->kbuf, p, n);
	w->kbuf[n] = '/';
	w->kbuf[n + 1] = '\0';
	return w->kbuf;
}

/* Does a name in directory rel matter to the inputs only as the next
 * segment of every glob's static prefix ("src" of "src/" + "**")? Then
 * what else comes and goes in it (a dist directory the task makes) moves nothing:
 * its own stat is not stamped, the prefix's path is. */
static bool on_the_way(const struct walkarg *w, const char *rel)
{
	size_t n = strlen(rel);
	bool any = false;
	for (size_t i = 0; i < w->nglobs; i++) {
		const char *pre = w->prefix[i];
		if (!pre)
			continue; /* a "!" glob only takes away */
		if (n ? strncmp(pre, rel, n) != 0 || pre[n] != '/' : !*pre)
			return false;
		any = true;
	}
	return any;
}

/* The stamp's entry for rel (a file, or a directory with dir), marking the
 * glob prefix it stands for. */
static void stamp(struct walkarg *w, const char *rel, const char *path, const struct stat *st)
{
	for (size_t i = 0; i < w->nglobs; i++)
		if (w->prefix[i] && strcmp(w->prefix[i], rel) == 0)
			w->stamped[i] = true;
	inputstamp_add(w->c->stamp, path, st);
}

static const char *listing_get(void *arg, const char *rel, const struct stat *st, size_t *len)
{
	struct walkarg *w = arg;
	const char *key = dir_key(w, rel);
	if (w->c->stamp && !on_the_way(w, rel))
		stamp(w, rel, key, st);
	const char *list = statcache_dir_get(w->c->sc, key, st, len);
	/* the walk looks its files up next: their misses overlap */
	if (list)
		statcache_prefetch_children(w->c->sc, key, list, *len);
	return list;
}

static void listing_put(void *arg, const char *rel, const struct stat *st, const char *list,
	size_t len, int64_t listed_at)
{
	struct walkarg *w = arg;
	statcache_dir_put(w->c->sc, dir_key(w, rel), st, list, len, listed_at);
}

static int prestat(void *arg, const char *rel, bool dir, bool follow, struct stat *st)
{
	struct walkarg *w = arg;
	if (dir)
		return statcache_prestat(w->c->sc, dir_key(w, rel), follow, st, NULL);
	size_t n = strlen(rel) + 1;
	XGROW(w->hint_rel, n, w->hint_cap);
	memcpy(w->hint_rel, rel, n);
	w->hint_set = true;
	return statcache_prestat(w->c->sc, rootrel(w, rel), follow, st, &w->hint);
}

static const struct walk_cache listings = {listing_get, listing_put, prestat};

static size_t add_name(struct inputs *o, const char *s, size_t n)
{
	XGROW(o->names, o->nlen + n + 1, o->ncap);
	size_t off = o->nlen;
	memcpy(o->names + off, s, n);
	o->names[off + n] = '\0';
	o->nlen += n + 1;
	return off;
}

static int add_file(const char *rel, const struct stat *st, void *arg)
{
	struct walkarg *w = arg;
	for (size_t i = 0; i < w->nexclude; i++)
		if (glob_match(w->exclude[i], rel))
			return 0;
	const char *p = rootrel(w, rel);
	if (ignore_match(w->c->ig, p, false) && !named(w, rel, true))
		return 0;
	struct inputs *o = w->out;
	XGROW(o->v, o->n + 1, o->cap);
	size_t plen = strlen(p), off = add_name(o, p, plen);
	bool hinted = w->hint_set && strcmp(w->hint_rel, rel) == 0;
	w->hint_set = false;
	/* rel is the tail of the root-relative path */
	if (w->c->stamp)
		stamp(w, rel, p, st);
	o->v[o->n++] = (struct input){.path = off, .rel = off + (w->baselen ? w->baselen + 1 : 0),
		.st = *st, .hinted = hinted, .sce = hinted ? w->hint : NULL};
	return 0;
}

static int cmp_input(const void *a, const void *b, void *arg)
{
	const char *names = arg;
	return strcmp(names + ((const struct input *)a)->rel, names + ((const struct input *)b)->rel);
}

/* A root-relative path as a *at call takes it: from the root's fd when
 * there is one (*at set to it, the path as it is), else absolute
 * (AT_FDCWD). malloc'd. */
static char *at_root(const struct inputs_ctx *c, const char *rel, int *at)
{
	*at = c->rootfd > 0 ? c->rootfd : AT_FDCWD;
	return c->rootfd > 0 ? xstrdup(rel) : path_join(c->root, rel);
}

int inputs_collect(struct inputs_ctx *c, const char *base, const char *const *globs, size_t nglobs,
	const char *const *exclude, size_t nexclude, struct inputs *out)
{
	out->n = out->nlen = 0; /* its buffers are kept for the next task */
	if (!nglobs)
		return 0;
	const char *b = strcmp(base, ".") == 0 ? "" : base;
	struct walkarg w = {.c = c, .base = b, .baselen = strlen(b), .exclude = exclude,
		.nexclude = nexclude, .globs = globs, .nglobs = nglobs, .out = out};
	/* from the root's fd: a few names to resolve a stat, not the root's too */
	char *dir = c->rootfd > 0 ? xstrdup(*b ? b : ".")
		  : *b ? path_join(c->root, b) : xstrdup(c->root);
	struct walk_opts o = {.globs = globs, .nglobs = nglobs, .skip = skip_dir, .enter = entered,
		.cache = c->sc ? &listings : NULL, .arg = &w, .base_fd = c->rootfd};
	if (c->stamp) {
		w.prefix = xcalloc(nglobs, sizeof(*w.prefix));
		w.stamped = xcalloc(nglobs, sizeof(*w.stamped));
		for (size_t i = 0; i < nglobs; i++)
			if (globs[i][0] != '!')
				w.prefix[i] = glob_static_prefix(globs[i]);
	}
	int r = walk_tree(dir, &o, add_file);
	/* a prefix the walk did not reach (absent, or no directory): its
	 * coming moves the stamp */
	for (size_t i = 0; c->stamp && r >= 0 && i < nglobs; i++) {
		if (!w.prefix[i] || w.stamped[i] || !*w.prefix[i])
			continue;
		char *path = *b ? path_join(b, w.prefix[i]) : xstrdup(w.prefix[i]);
		int at;
		char *abs = at_root(c, path, &at);
		struct stat st;
		bool here = fstatat(at, abs, &st, AT_SYMLINK_NOFOLLOW) == 0;
		stamp(&w, w.prefix[i], path, here ? &st : NULL);
		free(abs);
		free(path);
	}
	for (size_t i = 0; w.prefix && i < nglobs; i++)
		free(w.prefix[i]);
	free(w.prefix);
	free(w.stamped);
	if (r < 0 && (errno == ENOENT || errno == ENOTDIR)) {
		r = 0; /* a project directory that vanished has no inputs */
	} else if (r < 0) {
		err_warn_errno("unable to read directory '%s'", *b ? b : ".");
	}
	free(dir);
	free(w.buf);
	free(w.hint_rel);
	free(w.kbuf);
	/* the walk goes directory by directory: "a/b" comes before "a.js" */
	bool sorted = true;
	for (size_t i = 1; i < out->n && sorted; i++)
		sorted = cmp_input(&out->v[i - 1], &out->v[i], out->names) < 0;
	if (!sorted)
		qsort_r(out->v, out->n, sizeof(*out->v), cmp_input, out->names);
	return r;
}

static void digest(XXH3_state_t *s, uint8_t out[16])
{
	XXH128_canonical_t c;
	XXH128_canonicalFromHash(&c, XXH3_128bits_digest(s));
	memcpy(out, c.digest, 16);
}

/* Hash an open file's contents into out. */
static int hash_fd(int fd, uint8_t out[16])
{
	XXH3_state_t s;
	XXH3_128bits_reset(&s);
	char buf[65536];
	ssize_t n;
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		XXH3_128bits_update(&s, buf, (size_t)n);
	}
	digest(&s, out);
	return 0;
}

/* 0, or -1 with errno. */
static int hash_one(const struct inputs_ctx *c, const char *path, const struct stat *st,
	uint8_t out[16])
{
	/* from the root's fd, as the walk stat'ed it: the same directory */
	int at;
	char *abs = at_root(c, path, &at);
	int r = 0;
	if (S_ISLNK(st->st_mode)) {
		/* the link itself: its target string, marked as a link */
		char target[4096];
		ssize_t n = readlinkat(at, abs, target, sizeof(target));
		free(abs);
		if (n < 0)
			return -1;
		XXH3_state_t s;
		XXH3_128bits_reset(&s);
		XXH3_128bits_update(&s, "link\0", 5);
		XXH3_128bits_update(&s, target, (size_t)n);
		digest(&s, out);
		return 0;
	}
	int fd = openat(at, abs, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY);
	free(abs);
	if (fd < 0)
		return -1;
	r = hash_fd(fd, out);
	int e = errno;
	close(fd);
	errno = e;
	return r;
}

struct pool {
	struct inputs_ctx *c;
	struct inputs *in;
	size_t *todo; /* indices into in->v */
	size_t n, next;
	pthread_mutex_t lock;
	int err;
	size_t errat;
};

static void *worker(void *arg)
{
	struct pool *p = arg;
	for (;;) {
		pthread_mutex_lock(&p->lock);
		size_t i = p->next++;
		pthread_mutex_unlock(&p->lock);
		if (i >= p->n)
			return NULL;
		struct input *f = &p->in->v[p->todo[i]];
		if (hash_one(p->c, input_path(p->in, p->todo[i]), &f->st, f->hash) == 0)
			continue;
		int e = errno ? errno : EIO;
		if (e == ENOENT) {
			f->gone = true; /* deleted since the walk: it is not an input now */
			continue;
		}
		pthread_mutex_lock(&p->lock);
		if (!p->err) {
			p->err = e;
			p->errat = p->todo[i];
		}
		pthread_mutex_unlock(&p->lock);
	}
}

int inputs_hash(struct inputs_ctx *c, struct inputs *in)
{
	struct pool p = {.c = c, .in = in, .lock = PTHREAD_MUTEX_INITIALIZER};
	for (size_t i = 0; i < in->n; i++) {
		const struct input *f = &in->v[i];
		const uint8_t *h = f->hinted ? statcache_lookup_entry(f->sce, &f->st)
					     : statcache_lookup(c->sc, input_path(in, i), &f->st);
		if (h) {
			memcpy(in->v[i].hash, h, 16);
			c->cached++;
		} else {
			if (!p.todo)
				p.todo = xcalloc(in->n, sizeof(*p.todo));
			p.todo[p.n++] = i;
		}
	}
	if (!p.n)
		return 0;
	/* taken before reading: a write after this moment has an mtime no
	 * older than it, so its entry is not trusted (the racy rule) */
	int64_t now = statcache_now();
	size_t nt = p.n / 32 + 1;
	par_run(worker, &p, nt < MAX_THREADS ? nt : MAX_THREADS);
	if (p.err) {
		errno = p.err;
		err_warn_errno("unable to read input '%s'", input_path(in, p.errat));
		free(p.todo);
		return -1;
	}
	for (size_t i = 0; i < p.n; i++) {
		const struct input *f = &in->v[p.todo[i]];
		if (!f->gone)
			statcache_store(c->sc, input_path(in, p.todo[i]), &f->st, f->hash, now);
	}
	c->hashed += p.n;
	free(p.todo);
	/* drop the vanished ones, keeping the order */
	size_t k = 0;
	for (size_t i = 0; i < in->n; i++)
		if (!in->v[i].gone)
			in->v[k++] = in->v[i];
	in->n = k;
	return 0;
}

int inputs_hash_file(struct inputs_ctx *c, const char *path, uint8_t hash[16], struct stat *out)
{
	int at;
	char *abs = at_root(c, path, &at);
	struct stat st;
	const struct sc_entry *sce;
	int r = statcache_prestat(c->sc, path, true, &st, &sce);
	if (r == 1)
		r = fstatat(at, abs, &st, 0);
	if (r != 0) {
		r = errno == ENOENT || errno == ENOTDIR ? 0 : -1;
		goto out;
	}
	r = 1;
	if (out)
		*out = st;
	if (S_ISREG(st.st_mode) && st.st_nlink > 1)
		c->linked++;
	const uint8_t *h = statcache_lookup_entry(sce, &st);
	if (h) {
		memcpy(hash, h, 16);
		c->cached++;
		goto out;
	}
	int64_t now = statcache_now();
	int fd = openat(at, abs, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		r = errno == ENOENT ? 0 : -1;
		goto out;
	}
	/* the stat that goes with the bytes read: of this open file */
	int e = 0;
	if (fstat(fd, &st) != 0)
		e = errno;
	else if (!S_ISREG(st.st_mode))
		e = EISDIR;
	else if (hash_fd(fd, hash) != 0)
		e = errno;
	close(fd);
	if (e) {
		errno = e;
		r = -1;
	}
	if (r == 1) {
		statcache_store(c->sc, path, &st, hash, now);
		c->hashed++;
	}
out:
	if (r < 0)
		err_warn_errno("unable to read '%s'", path);
	free(abs);
	return r;
}

void inputs_free(struct inputs *in)
{
	free(in->v);
	free(in->names);
	memset(in, 0, sizeof(*in));
}
