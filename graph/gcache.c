/* gcache.c: see gcache.h. One file per key, <root>/.vx/graph-<the key's
 * first 16 hex>, so that runs with other arguments (vx run build, then vx
 * run test) each keep theirs; a save leaves at most SLOTS of them, the
 * latest saved. A file is a memo (memo.h: kind "graph", version 3) whose body is:
 *
 *   <key: xxh3-128 of the binary's stat, root, arguments>
 *   <count of notes> <bytes of output>
 *   F <size> <mtime s> <ns> <ctime s> <ns> <inode> <device> <mode octal> <path>   (a file)
 *   D ...same fields...                                                            (a directory)
 *   A 0 0 0 0 0 0 0 0 <path>                                                       (absent)
 *
 * the fields being a stat snapshot's text form; a note holds while its
 * path's stat matches (statsnap.h).
 *   <the output bytes>
 */
#include "gcache.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>

#include "atomicw.h"
#include "err.h"
#include "fileio.h"
#include "jsonl.h"
#include "memo.h"
#include "par.h"
#include "path.h"
#include "slots.h"
#include "statsnap.h"

#define MEMO_KIND "graph"
#define MEMO_VERSION 3
#define SLOTS 8

struct note {
	char kind; /* 'F', 'D', 'A' */
	struct statsnap st;
	char *path;
};

static struct {
	pthread_mutex_t lock;
	struct note *v;
	size_t n, cap;
	bool unsafe;     /* a note that cannot be trusted: save nothing */
	int64_t trusted; /* a change at or after this time (ns) may be racy */
} g = {.lock = PTHREAD_MUTEX_INITIALIZER};

void gcache_begin(void)
{
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	g.trusted = statsnap_ns((struct timespec){.tv_sec = now.tv_sec - 1});
	jsonl_out_keep();
}

static void set_unsafe(void)
{
	pthread_mutex_lock(&g.lock);
	g.unsafe = true;
	pthread_mutex_unlock(&g.lock);
}

static void note(char kind, const char *rel, const struct stat *st)
{
	pthread_mutex_lock(&g.lock);
	struct statsnap s = {0};
	if (st)
		statsnap_take(&s, st);
	/* the racy rule on the ctime too: a chmod in the tick is a change */
	if (strchr(rel, '\n') || (st && (!statsnap_trusted(&s, g.trusted) || s.ctime >= g.trusted)))
		g.unsafe = true;
	XGROW(g.v, g.n + 1, g.cap);
	struct note *n = &g.v[g.n++];
	memset(n, 0, sizeof(*n));
	n->kind = kind;
	n->path = xstrdup(rel);
	n->st = s;
	pthread_mutex_unlock(&g.lock);
}

char *gcache_read(int rootfd, const char *rel)
{
	int fd = openat(rootfd, rel, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		int e = errno;
		if (e == ENOENT || e == ENOTDIR)
			note('A', rel, NULL);
		else
			set_unsafe();
		errno = e;
		return NULL;
	}
	struct stat st;
	char *text = fstat(fd, &st) == 0 ? fileio_read_fd(fd, NULL) : NULL;
	int e = errno;
	close(fd);
	if (text)
		note('F', rel, &st);
	else
		set_unsafe();
	errno = e;
	return text;
}

void gcache_note_dir(const char *rel, const struct stat *st)
{
	note('D', rel, st);
}

int gcache_note_path(const char *root, const char *rel, struct stat *st)
{
	char *p = path_join(root, rel);
	int rc = stat(p, st), e = errno;
	if (rc == 0)
		note('F', rel, st);
	else if (e == ENOENT || e == ENOTDIR)
		note('A', rel, NULL);
	else
		set_unsafe();
	free(p);
	errno = e;
	return rc;
}

/* What the output depends on besides the notes: this binary, the root, the
 * arguments, and the HOME and PATH write grants are judged by (R-25a). */
static void cache_key(const char *root, char *const *args, int nargs, char hex[33])
{
	XXH3_state_t *s = XXH3_createState();
	XXH3_128bits_reset(s);
	struct stat st;
	struct statsnap snap;
	if (stat("/proc/self/exe", &st) == 0) {
		statsnap_take(&snap, &st);
		XXH3_128bits_update(s, &snap, sizeof(snap));
	}
	XXH3_128bits_update(s, root, strlen(root) + 1);
	for (int i = 0; i < nargs; i++)
		XXH3_128bits_update(s, args[i], strlen(args[i]) + 1);
	static const char *const env[] = {"HOME", "PATH"};
	for (size_t i = 0; i < sizeof(env) / sizeof(*env); i++) {
		const char *v = getenv(env[i]);
		XXH3_128bits_update(s, v ? "=" : "-", 1);
		if (v)
			XXH3_128bits_update(s, v, strlen(v) + 1);
	}
	XXH128_hash_t h = XXH3_128bits_digest(s);
	XXH3_freeState(s);
	snprintf(hex, 33, "%016llx%016llx", (unsigned long long)h.high64,
		(unsigned long long)h.low64);
}

static char *cache_path(const char *root, const char *key)
{
	return xasprintf("%s/.vx/graph-%.16s", root, key);
}

/* Does the note still hold? */
static bool holds(int rootfd, const struct note *n)
{
	struct stat st;
	if (fstatat(rootfd, n->path, &st, 0) != 0)
		return n->kind == 'A' && (errno == ENOENT || errno == ENOTDIR);
	return n->kind != 'A' && statsnap_matches(&n->st, &st);
}

struct checker {
	int rootfd;
	const struct note *v;
	size_t n;
	size_t next; /* atomic: the next batch to check */
	bool failed; /* atomic */
};

#define CHECK_BATCH 64

static void *check(void *arg)
{
	struct checker *c = arg;
	for (;;) {
		size_t i = __atomic_fetch_add(&c->next, CHECK_BATCH, __ATOMIC_RELAXED);
		for (size_t e = i + CHECK_BATCH; i < c->n && i < e; i++) {
			if (__atomic_load_n(&c->failed, __ATOMIC_RELAXED))
				return NULL;
			if (!holds(c->rootfd, &c->v[i])) {
				__atomic_store_n(&c->failed, true, __ATOMIC_RELAXED);
				return NULL;
			}
		}
		if (i >= c->n)
			return NULL;
	}
}

/* Every note checked, on up to 4 threads: the stats are the whole cost of
 * a replay. */
static bool all_hold(int rootfd, const struct note *v, size_t n)
{
	struct checker c = {.rootfd = rootfd, .v = v, .n = n};
	size_t nt = n / 256 + 1;
	par_run(check, &c, nt < 4 ? nt : 4);
	return !c.failed;
}

static bool parse_note(char *line, struct note *n)
{
	if (!strchr("FDA", line[0]) || line[1] != ' ')
		return false;
	n->kind = line[0];
	char *s = line + 2;
	if (!statsnap_parse(&s, &n->st))
		return false;
	n->path = s;
	return *s != '\0';
}

bool gcache_replay(const char *root, char *const *args, int nargs)
{
	char key[33];
	cache_key(root, args, nargs, key);
	char *file = cache_path(root, key);
	struct memo m;
	enum memo_status st = memo_load(&m, file, MEMO_KIND, MEMO_VERSION);
	free(file);
	if (st != MEMO_OK)
		return false;
	char *text = m.body;
	size_t len = m.len;
	bool ok = false;
	int rootfd = -1;
	struct note *notes = NULL;
	char *p = text, *nl = strchr(p, '\n');
	if (!nl || nl - p != 32 || memcmp(p, key, 32) != 0)
		goto out;
	p = nl + 1;
	unsigned long long count, outlen;
	char *end;
	count = strtoull(p, &end, 10);
	if (*end != ' ')
		goto out;
	outlen = strtoull(end + 1, &end, 10);
	if (*end != '\n')
		goto out;
	p = end + 1;
	if (count > len)
		goto out;
	notes = xcalloc(count + 1, sizeof(*notes));
	for (unsigned long long i = 0; i < count; i++) {
		if (!(nl = strchr(p, '\n')))
			goto out;
		*nl = '\0';
		if (!parse_note(p, &notes[i]))
			goto out;
		p = nl + 1;
	}
	rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0 || !all_hold(rootfd, notes, (size_t)count))
		goto out;
	if ((size_t)(text + len - p) != outlen)
		goto out;
	/* the very bytes a fold would write, in one go; a failed write is
	 * jsonl_out_finish's to report */
	fwrite(p, 1, outlen, stdout);
	ok = true;
out:
	if (rootfd >= 0)
		close(rootfd);
	free(notes);
	memo_free(&m);
	return ok;
}

void gcache_save(const char *root, char *const *args, int nargs)
{
	size_t outlen;
	char *out = jsonl_out_kept(&outlen);
	char key[33];
	cache_key(root, args, nargs, key);
	char *dir = xasprintf("%s/.vx", root), *file = cache_path(root, key);
	char *old_single = xasprintf("%s/graph", dir);
	char *body = NULL;
	size_t blen = 0;
	FILE *f;
	if (g.unsafe || !out)
		goto out;
	if (mkdir(dir, 0777) != 0 && errno != EEXIST)
		goto out;
	if (!(f = open_memstream(&body, &blen)))
		goto out;
	fprintf(f, "%s\n%zu %zu\n", key, g.n, outlen);
	for (size_t i = 0; i < g.n; i++) {
		const struct note *n = &g.v[i];
		fprintf(f, "%c ", n->kind);
		statsnap_print(f, &n->st);
		fprintf(f, " %s\n", n->path);
	}
	fwrite(out, 1, outlen, f);
	if (fclose(f) == 0 && memo_save(file, MEMO_KIND, MEMO_VERSION, body, blen, 0666) == 0) {
		unlink(old_single); /* the single-slot name of earlier versions */
		slots_prune(dir, "graph-", SLOTS);
	}
out:
	for (size_t i = 0; i < g.n; i++)
		free(g.v[i].path);
	free(g.v);
	g.v = NULL;
	g.n = g.cap = 0;
	free(body);
	free(out);
	free(dir);
	free(old_single);
	free(file);
}
