/* stamp.c: a project's stamp, <statedir>/stamps/<xxh3-64 of the project
 * directory>, per checkout and never in the shared cache. Its lines:
 *
 *   vx-stamp 2
 *   <hash> <size> <mtime s> <mtime ns> <ctime s> <ctime ns> <inode> <mode, octal> <path>
 *
 * A line says: when the output had this stat, its bytes had this hash. The
 * ctime is kept so that `touch -d` back to the old mtime does not fool it.
 * Like git's index, a line is trusted only when the file's mtime is older
 * than the stamp file's own: a write in the same clock tick could hide
 * behind an unchanged stat. A missing or malformed stamp only costs a rehash.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cache_int.h"
#include "err.h"
#include "strmap.h"

#define STAMP_HEADER "vx-stamp 2\n"

struct rec {
	char hash[33];
	long long size, sec, csec;
	long nsec, cnsec;
	unsigned long long ino;
	unsigned mode;
	char *path;
	bool owned; /* path malloc'd, else inside text */
};

struct cache_stamp {
	char *file; /* NULL: no state directory */
	unsigned nonce; /* for the temporary name */
	char *text;
	struct timespec at; /* the stamp file's mtime when loaded */
	struct rec *recs;
	size_t n, cap;
	struct strmap map; /* path -> index + 1 */
	bool dirty;
};

static struct rec *rec_add(struct cache_stamp *sp, const char *path)
{
	size_t i = (size_t)(uintptr_t)strmap_get(&sp->map, path);
	if (i)
		return &sp->recs[i - 1];
	if (sp->n == sp->cap) {
		sp->cap = sp->cap ? 2 * sp->cap : 16;
		sp->recs = xrealloc(sp->recs, sp->cap * sizeof(*sp->recs));
	}
	struct rec *r = &sp->recs[sp->n++];
	memset(r, 0, sizeof(*r));
	r->path = (char *)path;
	strmap_put(&sp->map, r->path, (void *)(uintptr_t)sp->n);
	return r;
}

/* One line's fields into t; its path, or NULL when malformed. By hand, as
 * sscanf showed in the profile of an all-hit rerun. */
static const char *parse_line(const char *line, struct rec *t)
{
	if (strlen(line) < 34 || line[32] != ' ')
		return NULL;
	memcpy(t->hash, line, 32);
	t->hash[32] = '\0';
	long long v[7];
	const char *s = line + 33;
	for (int i = 0; i < 7; i++) {
		char *end;
		errno = 0;
		v[i] = i == 6 ? (long long)strtoul(s, &end, 8) : (long long)strtoull(s, &end, 10);
		if (errno || end == s || *end != ' ')
			return NULL;
		s = end + 1;
	}
	t->size = v[0];
	t->sec = v[1];
	t->nsec = (long)v[2];
	t->csec = v[3];
	t->cnsec = (long)v[4];
	t->ino = (unsigned long long)v[5];
	t->mode = (unsigned)v[6];
	return *s ? s : NULL;
}

static void parse(struct cache_stamp *sp)
{
	if (strncmp(sp->text, STAMP_HEADER, strlen(STAMP_HEADER)) != 0)
		return;
	for (char *line = sp->text + strlen(STAMP_HEADER); *line;) {
		char *nl = strchr(line, '\n');
		if (!nl)
			return;
		*nl = '\0';
		struct rec t;
		const char *path = parse_line(line, &t);
		if (path) {
			struct rec *r = rec_add(sp, path);
			t.path = r->path;
			t.owned = false;
			*r = t;
		}
		line = nl + 1;
	}
}

struct cache_stamp *cache_stamp_load(const struct cache *c, const char *projdir)
{
	struct cache_stamp *sp = xcalloc(1, sizeof(*sp));
	strmap_init(&sp->map);
	if (!c->statedir)
		return sp;
	char name[17];
	snprintf(name, sizeof(name), "%016llx",
		(unsigned long long)XXH3_64bits(projdir, strlen(projdir)));
	sp->file = xasprintf("%s/stamps/%s", c->statedir, name);
	sp->nonce = c->nonce;
	int fd = open(sp->file, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		if (fd >= 0)
			close(fd);
		return sp;
	}
	sp->text = xmalloc((size_t)st.st_size + 1);
	ssize_t got = read(fd, sp->text, (size_t)st.st_size);
	close(fd);
	sp->text[got > 0 ? got : 0] = '\0';
	sp->at = st.st_mtim;
	parse(sp);
	return sp;
}

bool cache_stamp_vouches(const struct cache_stamp *sp, const char *rel, const struct stat *st,
	const char *hash)
{
	size_t i = (size_t)(uintptr_t)strmap_get(&sp->map, rel);
	if (!i)
		return false;
	const struct rec *r = &sp->recs[i - 1];
	if (r->size != st->st_size || r->sec != st->st_mtim.tv_sec ||
		r->nsec != st->st_mtim.tv_nsec || r->csec != st->st_ctim.tv_sec ||
		r->cnsec != st->st_ctim.tv_nsec || r->ino != st->st_ino || r->mode != st->st_mode ||
		strcmp(r->hash, hash) != 0)
		return false;
	return st->st_mtim.tv_sec < sp->at.tv_sec ||
	       (st->st_mtim.tv_sec == sp->at.tv_sec && st->st_mtim.tv_nsec < sp->at.tv_nsec);
}

void cache_stamp_set(struct cache_stamp *sp, const char *rel, const struct stat *st,
	const char *hash)
{
	/* a newline would end the line early; such a path is just never stamped */
	if (!sp->file || strchr(rel, '\n'))
		return;
	size_t i = (size_t)(uintptr_t)strmap_get(&sp->map, rel);
	struct rec *r;
	if (i) {
		r = &sp->recs[i - 1];
	} else {
		r = rec_add(sp, xstrdup(rel));
		r->owned = true;
	}
	snprintf(r->hash, sizeof(r->hash), "%s", hash);
	r->size = st->st_size;
	r->sec = st->st_mtim.tv_sec;
	r->nsec = st->st_mtim.tv_nsec;
	r->csec = st->st_ctim.tv_sec;
	r->cnsec = st->st_ctim.tv_nsec;
	r->ino = st->st_ino;
	r->mode = st->st_mode;
	sp->dirty = true;
}

void cache_stamp_save(struct cache_stamp *sp)
{
	if (!sp->file || !sp->dirty)
		return;
	char *dir = xstrndup(sp->file, (size_t)(strrchr(sp->file, '/') - sp->file));
	char *tmp = xasprintf("%s.%d.%x", sp->file, (int)getpid(), sp->nonce);
	FILE *f = cache_mkdirs(dir) == 0 ? fopen(tmp, "we") : NULL;
	free(dir);
	if (!f) {
		free(tmp);
		return;
	}
	fputs(STAMP_HEADER, f);
	for (size_t i = 0; i < sp->n; i++) {
		const struct rec *r = &sp->recs[i];
		fprintf(f, "%s %lld %lld %ld %lld %ld %llu %o %s\n", r->hash, r->size, r->sec, r->nsec,
			r->csec, r->cnsec, r->ino, r->mode, r->path);
	}
	if (fclose(f) != 0 || rename(tmp, sp->file) != 0)
		unlink(tmp);
	free(tmp);
	sp->dirty = false;
}

void cache_stamp_free(struct cache_stamp *sp)
{
	if (!sp)
		return;
	for (size_t i = 0; i < sp->n; i++)
		if (sp->recs[i].owned)
			free(sp->recs[i].path);
	free(sp->recs);
	strmap_free(&sp->map);
	free(sp->text);
	free(sp->file);
	free(sp);
}
