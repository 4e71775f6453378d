/* stamp.c: the checkout's stamp, <statedir>/stamp, one file for every
 * project (never in the shared cache). A memo (memo.h: kind "stamp",
 * version 5) whose body's lines are:
 *
 *   <hash> <size> <mtime s> <mtime ns> <ctime s> <ctime ns> <inode> <device> <mode, octal> <path>
 *
 * with the output's absolute path. A line says: when the output had this
 * stat (statsnap.h: the ctime is kept so that `touch -d` back to the old
 * mtime does not fool it), its bytes had this hash. Like git's index, a line
 * is trusted only when the file's mtime is older than the stamp file's own
 * (statsnap.h's racy rule); and a line loaded
 * untrusted is dropped when the file is written again, or the newer file
 * would whitewash it. Loaded on first use and written once, by cache_close,
 * when something changed: one read per run instead of one per project (an
 * all-hit rerun of 1,000 projects opened 1,000 stamp files). A missing or
 * malformed stamp only costs a rehash; two processes saving at once lose
 * each other's lines, which also only costs a rehash.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cache_int.h"
#include "memo.h"
#include "path.h"
#include "err.h"
#include "statsnap.h"
#include "strmap.h"

#define MEMO_KIND "stamp"
#define MEMO_VERSION 5

struct rec {
	char hash[33];
	struct statsnap st;
	char *path;
	bool owned;  /* path malloc'd, else inside text */
	bool loaded; /* from the file, not set by this process */
};

struct cache_stamp {
	char *file;
	char *text;
	int64_t at; /* the stamp file's mtime when loaded (ns) */
	struct rec *recs;
	size_t n, cap;
	struct strmap map; /* absolute path -> index + 1 */
	char *key;         /* scratch for projdir/rel */
	size_t keycap;
	bool dirty;
};

static struct rec *rec_add(struct cache_stamp *sp, char *path, bool owned)
{
	size_t i = (size_t)(uintptr_t)strmap_get(&sp->map, path);
	if (i) {
		if (owned)
			free(path);
		return &sp->recs[i - 1];
	}
	XGROW(sp->recs, sp->n + 1, sp->cap);
	struct rec *r = &sp->recs[sp->n++];
	memset(r, 0, sizeof(*r));
	r->path = path;
	r->owned = owned;
	strmap_put(&sp->map, r->path, (void *)(uintptr_t)sp->n);
	return r;
}

/* One line's fields into t; its path, or NULL when malformed. */
static char *parse_line(char *line, struct rec *t)
{
	if (strlen(line) < 34 || line[32] != ' ')
		return NULL;
	memcpy(t->hash, line, 32);
	t->hash[32] = '\0';
	char *s = line + 33;
	if (!statsnap_parse(&s, &t->st))
		return NULL;
	return *s == '/' ? s : NULL;
}

static void parse(struct cache_stamp *sp, char *body)
{
	for (char *line = body; *line;) {
		char *nl = strchr(line, '\n');
		if (!nl)
			return;
		*nl = '\0';
		struct rec t;
		char *path = parse_line(line, &t);
		if (path) {
			struct rec *r = rec_add(sp, path, false);
			t.path = r->path;
			t.owned = r->owned;
			t.loaded = true;
			*r = t;
		}
		line = nl + 1;
	}
}

/* The checkout's stamp, loaded on first use; NULL without a state directory. */
static struct cache_stamp *stamp(struct cache *c)
{
	if (!c->statedir)
		return NULL;
	if (c->stamp)
		return c->stamp;
	struct cache_stamp *sp = c->stamp = xcalloc(1, sizeof(*sp));
	strmap_init(&sp->map);
	sp->file = xasprintf("%s/stamp", c->statedir);
	struct memo m;
	if (memo_load(&m, sp->file, MEMO_KIND, MEMO_VERSION) == MEMO_OK) {
		sp->text = m.data; /* the records' paths point into it */
		sp->at = m.mtime;
		parse(sp, m.body);
	}
	return sp;
}

static const char *key(struct cache_stamp *sp, const char *projdir, const char *rel)
{
	return cache_join(&sp->key, &sp->keycap, projdir, rel);
}

static bool vouches(struct cache *c, const char *projdir, const char *rel,
	const struct stat *st, const char *hash)
{
	struct cache_stamp *sp = stamp(c);
	if (!sp)
		return false;
	size_t i = (size_t)(uintptr_t)strmap_get(&sp->map, key(sp, projdir, rel));
	if (!i)
		return false;
	const struct rec *r = &sp->recs[i - 1];
	if (!statsnap_matches(&r->st, st) || strcmp(r->hash, hash) != 0)
		return false;
	return statsnap_trusted(&r->st, sp->at);
}

/* Both under the cache's stamp_mu: restores on several threads share it. */
bool cache_stamp_vouches(struct cache *c, const char *projdir, const char *rel,
	const struct stat *st, const char *hash)
{
	pthread_mutex_lock(&c->stamp_mu);
	bool yes = vouches(c, projdir, rel, st, hash);
	pthread_mutex_unlock(&c->stamp_mu);
	return yes;
}

void cache_stamp_set(struct cache *c, const char *projdir, const char *rel,
	const struct stat *st, const char *hash)
{
	/* a newline would end the line early; such a path is just never stamped */
	if (!c->statedir || strchr(projdir, '\n') || strchr(rel, '\n') || projdir[0] != '/')
		return;
	pthread_mutex_lock(&c->stamp_mu);
	struct cache_stamp *sp = stamp(c);
	size_t i = (size_t)(uintptr_t)strmap_get(&sp->map, key(sp, projdir, rel));
	struct rec *r = i ? &sp->recs[i - 1] : rec_add(sp, xstrdup(sp->key), true);
	snprintf(r->hash, sizeof(r->hash), "%s", hash);
	statsnap_take(&r->st, st);
	r->loaded = false;
	sp->dirty = true;
	pthread_mutex_unlock(&c->stamp_mu);
}

void cache_stamp_load(struct cache *c)
{
	pthread_mutex_lock(&c->stamp_mu);
	stamp(c);
	pthread_mutex_unlock(&c->stamp_mu);
}

void cache_stamp_close(struct cache *c)
{
	struct cache_stamp *sp = c->stamp;
	if (!sp)
		return;
	c->stamp = NULL;
	char *body = NULL;
	size_t blen = 0;
	FILE *f;
	if (sp->dirty && path_mkdirs(c->statedir) == 0 && (f = open_memstream(&body, &blen))) {
		for (size_t i = 0; i < sp->n; i++) {
			const struct rec *r = &sp->recs[i];
			if (r->loaded && !statsnap_trusted(&r->st, sp->at))
				continue; /* untrusted when loaded: a newer file must not vouch */
			if (r->loaded && !cache_in_checkout(c, r->path))
				continue; /* the checkout moved since */
			fprintf(f, "%s ", r->hash);
			statsnap_print(f, &r->st);
			fprintf(f, " %s\n", r->path);
		}
		if (fclose(f) == 0) /* failing, only speed is lost */
			memo_save(sp->file, MEMO_KIND, MEMO_VERSION, body, blen, 0666);
		free(body);
	}
	for (size_t i = 0; i < sp->n; i++)
		if (sp->recs[i].owned)
			free(sp->recs[i].path);
	free(sp->recs);
	strmap_free(&sp->map);
	free(sp->text);
	free(sp->file);
	free(sp->key);
	free(sp);
}
