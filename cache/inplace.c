/* inplace.c: the checkout's memo of hits found whole in place,
 * <statedir>/inplace (never in the shared cache).
 *
 * When cache_restore_check finds every output of an entry already in a
 * project (nothing to write), it notes for that key and project the
 * manifest's stat, the log's hash and size, and each output's lstat. A later
 * run that finds the manifest and every output with the very same stat
 * (size, mtime, ctime, inode, device, mode) has the same hit without opening
 * the manifest or loading the stamp: the check it would repeat looked at
 * bytes that have not been touched since. Like the stamp and git's index, a
 * record is trusted only when every mtime in it is older than the memo
 * file's own (git's racy rule), and a record loaded untrusted is not written
 * back, or the newer file would vouch for it. The memo is written whole
 * (temporary name, rename) by cache_close when a record was added or found
 * stale; a missing, torn or malformed one is an empty memo, which only costs
 * the full check. A record outside the directory that holds the state
 * directory (a checkout moved elsewhere) is not written back.
 *
 * Format: a memo (memo.h: kind "inplace", version 3) whose body is, in
 * native byte order, per record: u32 output count, u32 length of the
 * project's path, the key (32 hex), the log's hash (32 hex), u64 log size,
 * the manifest's stat, the project's absolute path and a NUL; then per
 * output its stat, u32 length, its project-relative path and a NUL. A stat
 * (statsnap.h) is size, mtime, ctime (i64, times in ns), inode, device (u64)
 * and mode (u32).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "strbuf.h"
#include "cache_int.h"
#include "path.h"
#include "err.h"
#include "hash.h"
#include "memo.h"
#include "shadow.h"
#include "statsnap.h"
#include "strmap.h"

#define MEMO_KIND "inplace"
#define MEMO_VERSION 3

struct ifile {
	struct statsnap st;
	const char *rel;
};

struct irec {
	char key[33], loghash[33];
	uint64_t logsize;
	struct statsnap mst; /* the manifest's */
	const char *projdir;
	size_t nfiles;
	struct ifile *files;
	char *mapkey; /* "<key> <projdir>", malloc'd */
	char *own;    /* a noted record's paths, one block; a loaded one's are in the text */
	bool loaded;  /* from the file, not noted by this process */
	bool used;    /* a hit came of it in this process */
	bool dropped; /* stale (a stat moved) or replaced: not written back */
};

struct cache_inplace {
	char *file;
	char *text; /* the loaded file: loaded records' paths point into it */
	int64_t at; /* its mtime when loaded (ns) */
	struct irec **recs; /* each its own allocation: a pointer outlives a realloc */
	size_t n, cap;
	struct strmap map; /* mapkey -> index + 1 */
	bool dirty;
};

/* Older than the memo file: a write in the same clock tick could hide
 * behind an unchanged stat. */
static bool older(const struct cache_inplace *ip, const struct statsnap *i)
{
	return statsnap_trusted(i, ip->at);
}

static bool trusted(const struct cache_inplace *ip, const struct irec *r)
{
	if (!older(ip, &r->mst))
		return false;
	for (size_t k = 0; k < r->nfiles; k++)
		if (!older(ip, &r->files[k].st))
			return false;
	return true;
}

static char *mapkey(const char *key, const char *projdir)
{
	return xasprintf("%s %s", key, projdir);
}

static void rec_put(struct cache_inplace *ip, struct irec *r)
{
	size_t i = (size_t)(uintptr_t)strmap_get(&ip->map, r->mapkey);
	if (i)
		ip->recs[i - 1]->dropped = true; /* replaced; the old one may be in use elsewhere */
	XGROW(ip->recs, ip->n + 1, ip->cap);
	ip->recs[ip->n++] = r;
	strmap_put(&ip->map, r->mapkey, (void *)(uintptr_t)ip->n);
}

/* ---- reading ---- */

struct reader {
	const char *p, *end;
	bool bad;
};

static void get(struct reader *rd, void *out, size_t n)
{
	if (rd->bad || (size_t)(rd->end - rd->p) < n) {
		rd->bad = true;
		memset(out, 0, n);
		return;
	}
	memcpy(out, rd->p, n);
	rd->p += n;
}

static void get_stat(struct reader *rd, struct statsnap *i)
{
	get(rd, &i->size, sizeof(i->size));
	get(rd, &i->mtime, sizeof(i->mtime));
	get(rd, &i->ctime, sizeof(i->ctime));
	get(rd, &i->ino, sizeof(i->ino));
	get(rd, &i->dev, sizeof(i->dev));
	get(rd, &i->mode, sizeof(i->mode));
}

/* len bytes and a NUL, in place; NULL when they are not there. */
static const char *get_str(struct reader *rd, uint32_t len)
{
	if (rd->bad || (size_t)(rd->end - rd->p) < (size_t)len + 1 || rd->p[len] != '\0' ||
		memchr(rd->p, '\0', len)) {
		rd->bad = true;
		return NULL;
	}
	const char *s = rd->p;
	rd->p += len + 1;
	return s;
}

static void get_hex(struct reader *rd, char out[33])
{
	get(rd, out, 32);
	out[32] = '\0';
	if (!hash_is_hex(out))
		rd->bad = true;
}

static struct irec *read_rec(struct reader *rd)
{
	uint32_t nfiles, plen;
	get(rd, &nfiles, sizeof(nfiles));
	get(rd, &plen, sizeof(plen));
	if (rd->bad || nfiles > (size_t)(rd->end - rd->p)) { /* each output takes bytes */
		rd->bad = true;
		return NULL;
	}
	struct irec *r = xcalloc(1, sizeof(*r));
	get_hex(rd, r->key);
	get_hex(rd, r->loghash);
	get(rd, &r->logsize, sizeof(r->logsize));
	get_stat(rd, &r->mst);
	r->projdir = get_str(rd, plen);
	r->nfiles = nfiles;
	r->files = xcalloc(nfiles + 1, sizeof(*r->files));
	for (uint32_t k = 0; k < nfiles && !rd->bad; k++) {
		uint32_t len;
		get_stat(rd, &r->files[k].st);
		get(rd, &len, sizeof(len));
		r->files[k].rel = get_str(rd, len);
	}
	if (rd->bad || r->projdir[0] != '/') {
		rd->bad = true;
		free(r->files);
		free(r);
		return NULL;
	}
	r->mapkey = mapkey(r->key, r->projdir);
	r->loaded = true;
	return r;
}

/* The same note: key and project (the map's), manifest, log, outputs. */
static bool same_rec(const struct irec *a, const struct irec *b)
{
	if (!statsnap_same(&a->mst, &b->mst) || a->logsize != b->logsize ||
		strcmp(a->loghash, b->loghash) != 0 || a->nfiles != b->nfiles)
		return false;
	for (size_t k = 0; k < a->nfiles; k++)
		if (!statsnap_same(&a->files[k].st, &b->files[k].st) ||
			strcmp(a->files[k].rel, b->files[k].rel) != 0)
			return false;
	return true;
}

static void rec_free(struct irec *r)
{
	free(r->files);
	free(r->mapkey);
	free(r->own);
	free(r);
}

static void parse(struct cache_inplace *ip, const char *body, size_t blen)
{
	struct reader rd = {body, body + blen, false};
	while (rd.p < rd.end && !rd.bad) {
		struct irec *r = read_rec(&rd);
		if (r)
			rec_put(ip, r);
	}
	if (rd.bad) { /* cannot happen to a file whose hash matched: drop it all */
		for (size_t i = 0; i < ip->n; i++)
			rec_free(ip->recs[i]);
		ip->n = 0;
		strmap_free(&ip->map);
		strmap_init(&ip->map);
	}
}

/* The checkout's memo, loaded on first use (under stamp_mu); NULL without a
 * state directory. */
static struct cache_inplace *inplace(struct cache *c)
{
	if (!c->statedir)
		return NULL;
	if (c->inplace)
		return c->inplace;
	struct cache_inplace *ip = c->inplace = xcalloc(1, sizeof(*ip));
	strmap_init(&ip->map);
	ip->file = xasprintf("%s/inplace", c->statedir);
	struct memo m;
	if (memo_load(&m, ip->file, MEMO_KIND, MEMO_VERSION) == MEMO_OK) {
		ip->text = m.data;
		ip->at = m.mtime;
		parse(ip, m.body, m.len);
	}
	return ip;
}

/* ---- the two calls ---- */

/* The directory of the outputs last stat'ed, opened O_PATH: outputs come
 * in walk order, a directory's together, so each lstat resolves one name
 * below it instead of the whole path again. Resolving "projdir/dir" once
 * follows what resolving "projdir/dir/name" each time would. */
struct out_dir {
	int fd; /* -1: none open */
	char *dir; /* its project-relative path ("" for projdir) */
	size_t cap;
	char *path;
	size_t pcap;
};

static void out_dir_close(struct out_dir *d)
{
	if (d->fd >= 0)
		close(d->fd);
	free(d->dir);
	free(d->path);
	d->fd = -1;
}

/* lstat of rel under projdir: 0, or -1 with errno. */
static int out_stat(struct out_dir *d, const char *projdir, const char *rel, struct stat *st)
{
	const char *slash = strrchr(rel, '/');
	size_t dl = slash ? (size_t)(slash - rel) : 0;
	if (d->fd < 0 || strlen(d->dir) != dl || memcmp(d->dir, rel, dl) != 0) {
		if (d->fd >= 0)
			close(d->fd);
		XGROW(d->dir, dl + 1, d->cap);
		memcpy(d->dir, rel, dl);
		d->dir[dl] = '\0';
		d->fd = open(dl ? cache_join(&d->path, &d->pcap, projdir, d->dir) : projdir,
			O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (d->fd < 0)
			return -1;
	}
	return fstatat(d->fd, slash ? slash + 1 : rel, st, AT_SYMLINK_NOFOLLOW);
}

int cache_hit_in_place(struct cache *c, const char *key, const char *projdir, bool outputs_vouched,
	char **log, size_t *len)
{
	*log = NULL;
	*len = 0;
	if (!c->statedir || !hash_is_hex(key) || projdir[0] != '/')
		return 0;
	/* the map's key, on the stack when it fits: a hit a task looks here */
	char buf[256], *mk = buf;
	size_t plen = strlen(projdir);
	if (33 + plen < sizeof(buf)) {
		memcpy(buf, key, 32);
		buf[32] = ' ';
		memcpy(buf + 33, projdir, plen + 1);
	} else {
		mk = mapkey(key, projdir);
	}
	pthread_mutex_lock(&c->stamp_mu);
	struct cache_inplace *ip = inplace(c);
	size_t i = (size_t)(uintptr_t)strmap_get(&ip->map, mk);
	struct irec *r = i ? ip->recs[i - 1] : NULL;
	if (r && (!r->loaded || r->dropped || !trusted(ip, r)))
		r = NULL;
	pthread_mutex_unlock(&c->stamp_mu);
	if (mk != buf)
		free(mk);
	if (!r)
		return 0;
	/* a loaded record never changes but for its flags: compared unlocked */
	struct stat st;
	struct out_dir od = {.fd = -1};
	bool same = cache_manifest_stat(c, key, &st) == 0 && statsnap_matches(&r->mst, &st);
	for (size_t k = 0; same && !outputs_vouched && k < r->nfiles; k++)
		same = out_stat(&od, projdir, r->files[k].rel, &st) == 0 &&
		       statsnap_matches(&r->files[k].st, &st);
	out_dir_close(&od);
	if (same) {
		const char *why;
		*log = r->logsize ? cache_blob_read(c, r->loghash, r->logsize, &why) : xstrdup("");
		*len = *log ? r->logsize : 0;
		same = *log != NULL;
	}
	pthread_mutex_lock(&c->stamp_mu);
	if (same)
		r->used = true;
	else if (!r->dropped)
		r->dropped = ip->dirty = true; /* stale: the full check decides, and notes again */
	pthread_mutex_unlock(&c->stamp_mu);
	return same;
}

void cache_inplace_note(struct cache *c, const struct cache_entry *e, const char *projdir,
	const char *const *rels, const struct stat *sts, size_t n, const struct timespec *since)
{
	if (!c->statedir || projdir[0] != '/')
		return;
	/* written in the tick the check began in, a file could have changed
	 * again after its stat without the stat showing it */
	for (size_t k = 0; k < n; k++)
		if (statsnap_ns(sts[k].st_mtim) >= statsnap_ns(*since))
			return;
	/* an output with another name may change under it with no event in
	 * its project: a memo vouched for by vx-watch (replay.h) must not hold
	 * it, unless that name is the checkout's shadow (shadow.h) */
	char *projrel = NULL;
	for (size_t k = 0; k < n; k++) {
		if (!S_ISREG(sts[k].st_mode) || sts[k].st_nlink < 2)
			continue;
		if (!projrel && !(projrel = cache_shadow_rel(c, projdir)))
			return;
		if (!shadow_holds(c->statedir, projrel, rels[k], &sts[k])) {
			free(projrel);
			return;
		}
	}
	free(projrel);
	const cJSON *log = cJSON_GetObjectItemCaseSensitive(e->manifest, "log");
	const cJSON *lh = cJSON_GetObjectItemCaseSensitive(log, "hash");
	const cJSON *ls = cJSON_GetObjectItemCaseSensitive(log, "size");
	struct stat mst;
	if (cJSON_GetObjectItemCaseSensitive(log, "text") || !hash_is_hex(cJSON_GetStringValue(lh)) ||
		!cJSON_IsNumber(ls) || ls->valuedouble < 0 || cache_manifest_stat(c, e->key, &mst) != 0 ||
		!S_ISREG(mst.st_mode) || statsnap_ns(mst.st_mtim) >= statsnap_ns(*since))
		return; /* an old inline log, the manifest gone or just written */
	struct irec *r = xcalloc(1, sizeof(*r));
	memcpy(r->key, e->key, 33);
	memcpy(r->loghash, lh->valuestring, 33);
	r->logsize = (uint64_t)ls->valuedouble;
	statsnap_take(&r->mst, &mst);
	size_t total = strlen(projdir) + 1;
	for (size_t k = 0; k < n; k++)
		total += strlen(rels[k]) + 1;
	char *s = r->own = xmalloc(total);
	r->projdir = strcpy(s, projdir);
	s += strlen(projdir) + 1;
	r->nfiles = n;
	r->files = xcalloc(n + 1, sizeof(*r->files));
	for (size_t k = 0; k < n; k++) {
		statsnap_take(&r->files[k].st, &sts[k]);
		r->files[k].rel = strcpy(s, rels[k]);
		s += strlen(rels[k]) + 1;
	}
	r->mapkey = mapkey(r->key, r->projdir);
	pthread_mutex_lock(&c->stamp_mu);
	struct cache_inplace *ip = inplace(c);
	size_t i = (size_t)(uintptr_t)strmap_get(&ip->map, r->mapkey);
	const struct irec *was = i ? ip->recs[i - 1] : NULL;
	if (was && was->loaded && !was->dropped && trusted(ip, was) && same_rec(was, r)) {
		/* what the memo already says (a run with a remote cache checks
		 * in full every time): no rewrite of the whole file */
		rec_free(r);
	} else {
		rec_put(ip, r);
		ip->dirty = true;
	}
	pthread_mutex_unlock(&c->stamp_mu);
}

/* ---- writing ---- */

static void put(struct strbuf *b, const void *v, size_t n)
{
	strbuf_add(b, v, n);
}

static void put_stat(struct strbuf *b, const struct statsnap *i)
{
	put(b, &i->size, sizeof(i->size));
	put(b, &i->mtime, sizeof(i->mtime));
	put(b, &i->ctime, sizeof(i->ctime));
	put(b, &i->ino, sizeof(i->ino));
	put(b, &i->dev, sizeof(i->dev));
	put(b, &i->mode, sizeof(i->mode));
}

static void put_rec(struct strbuf *b, const struct irec *r)
{
	uint32_t nfiles = (uint32_t)r->nfiles, plen = (uint32_t)strlen(r->projdir);
	put(b, &nfiles, sizeof(nfiles));
	put(b, &plen, sizeof(plen));
	put(b, r->key, 32);
	put(b, r->loghash, 32);
	put(b, &r->logsize, sizeof(r->logsize));
	put_stat(b, &r->mst);
	put(b, r->projdir, plen + 1);
	for (size_t k = 0; k < r->nfiles; k++) {
		uint32_t len = (uint32_t)strlen(r->files[k].rel);
		put_stat(b, &r->files[k].st);
		put(b, &len, sizeof(len));
		put(b, r->files[k].rel, len + 1);
	}
}

/* Is a loaded record outdated by what this process noted? When a noted
 * record holds one of its outputs (the same files under another key), or,
 * for a record with no outputs, when its project got a new record and it
 * gave no hit itself: the memo then keeps one record per task and project
 * instead of one per key a task ever had. */
static bool outdated(const struct irec *r, const struct strmap *outs, const struct strmap *projs)
{
	/* outputs live under their project: another project's records are
	 * left alone (one nested in another keeps a stale record at worst,
	 * which its stats refuse) */
	if (!strmap_get(projs, r->projdir))
		return false;
	if (!r->nfiles)
		return !r->used;
	char *p = NULL;
	size_t cap = 0;
	bool hit = false;
	for (size_t k = 0; k < r->nfiles && !hit; k++)
		hit = strmap_get(outs, cache_join(&p, &cap, r->projdir, r->files[k].rel)) != NULL;
	free(p);
	return hit;
}

static void save(struct cache *c, struct cache_inplace *ip)
{
	struct strmap outs, projs;
	strmap_init(&outs);
	strmap_init(&projs);
	char **keys = NULL;
	size_t nkeys = 0, capkeys = 0;
	for (size_t i = 0; i < ip->n; i++) {
		const struct irec *r = ip->recs[i];
		if (r->loaded || r->dropped)
			continue;
		strmap_put(&projs, r->projdir, (void *)r);
		for (size_t k = 0; k < r->nfiles; k++) {
			XGROW(keys, nkeys + 1, capkeys);
			keys[nkeys] = xasprintf("%s/%s", r->projdir, r->files[k].rel);
			strmap_put(&outs, keys[nkeys], (void *)r);
			nkeys++;
		}
	}
	struct strbuf b = STRBUF_INIT;
	for (size_t i = 0; i < ip->n; i++) {
		const struct irec *r = ip->recs[i];
		if (r->dropped || (r->loaded && (!trusted(ip, r) || !cache_in_checkout(c, r->projdir) ||
						 outdated(r, &outs, &projs))))
			continue;
		put_rec(&b, r);
	}
	if (path_mkdirs(c->statedir) == 0) /* failing, only speed is lost */
		memo_save(ip->file, MEMO_KIND, MEMO_VERSION, b.buf, b.len, 0666);
	strbuf_release(&b);
	for (size_t k = 0; k < nkeys; k++)
		free(keys[k]);
	free(keys);
	strmap_free(&outs);
	strmap_free(&projs);
}

void cache_inplace_close(struct cache *c)
{
	struct cache_inplace *ip = c->inplace;
	if (!ip)
		return;
	c->inplace = NULL;
	if (ip->dirty)
		save(c, ip);
	for (size_t i = 0; i < ip->n; i++)
		rec_free(ip->recs[i]);
	free(ip->recs);
	strmap_free(&ip->map);
	free(ip->text);
	free(ip->file);
	free(ip);
}
