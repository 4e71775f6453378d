#include <dirent.h>
/* vx-key's stat cache and .gitignore reader, with stat results made up so
 * the racy rule is seen alone (a real rewrite would also move the ctime). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ignore.h"
#include "statcache.h"
#include "unit.h"

#define SEC 1000000000LL

static struct stat fake(int64_t mtime, int64_t ctime, off_t size)
{
	struct stat st;
	memset(&st, 0, sizeof(st));
	st.st_mode = S_IFREG | 0644;
	st.st_size = size;
	st.st_ino = 42;
	st.st_dev = 7;
	st.st_mtim.tv_sec = mtime / SEC;
	st.st_mtim.tv_nsec = mtime % SEC;
	st.st_ctim.tv_sec = ctime / SEC;
	st.st_ctim.tv_nsec = ctime % SEC;
	return st;
}

static void put(const char *dir, const char *name, const char *text)
{
	char *p = NULL;
	if (asprintf(&p, "%s/%s", dir, name) < 0)
		abort();
	FILE *f = fopen(p, "w");
	if (!f || fputs(text, f) < 0 || fclose(f) != 0)
		abort();
	free(p);
}

/* Set the stat cache file's mtime: the racy limit of what is loaded. */
static void stamp(const char *dir, int64_t t)
{
	char *p = NULL;
	if (asprintf(&p, "%s/.vx/key-stat", dir) < 0)
		abort();
	struct timespec ts[2] = {{t / SEC, t % SEC}, {t / SEC, t % SEC}};
	CHECK(utimensat(AT_FDCWD, p, ts, 0) == 0);
	free(p);
}

static void test_statcache(const char *dir)
{
	const uint8_t h1[16] = {1}, h2[16] = {2}, h3[16] = {3};
	const int64_t t = 1700000000 * SEC + 500;
	struct statcache *sc = statcache_load(dir);
	struct stat a = fake(t, t, 10), b = fake(t + 5 * SEC, t + 5 * SEC, 10),
		    c = fake(t + 9 * SEC, t + 9 * SEC, 10);

	/* hashed in the tick of its own mtime: racily clean, never trusted */
	statcache_store(sc, "a", &a, h1, t);
	CHECK(statcache_lookup(sc, "a", &a) == NULL);
	/* hashed after its last write: trusted while the stat holds */
	statcache_store(sc, "a", &a, h1, t + 1);
	CHECK(statcache_lookup(sc, "a", &a) != NULL && memcmp(statcache_lookup(sc, "a", &a), h1, 16) == 0);
	struct stat moved = fake(t, t + 1, 10);
	CHECK(statcache_lookup(sc, "a", &moved) == NULL); /* ctime */
	moved = fake(t, t, 11);
	CHECK(statcache_lookup(sc, "a", &moved) == NULL); /* size */
	moved = a;
	moved.st_ino = 43;
	CHECK(statcache_lookup(sc, "a", &moved) == NULL); /* inode */
	moved = a;
	moved.st_dev = 8;
	CHECK(statcache_lookup(sc, "a", &moved) == NULL); /* device */
	CHECK(statcache_lookup(sc, "nope", &a) == NULL);

	statcache_store(sc, "b", &b, h2, t + 6 * SEC); /* trusted now */
	statcache_store(sc, "c", &c, h3, t + 9 * SEC); /* racy at save */
	CHECK(statcache_dirty(sc));
	CHECK(statcache_save(sc) == 0);
	CHECK(!statcache_dirty(sc));
	statcache_free(sc);

	/* the cache file written at t+3s: "a" is older, "b" is not */
	stamp(dir, t + 3 * SEC);
	sc = statcache_load(dir);
	CHECK(statcache_lookup(sc, "a", &a) != NULL && memcmp(statcache_lookup(sc, "a", &a), h1, 16) == 0);
	CHECK(statcache_lookup(sc, "b", &b) == NULL);
	/* "c" was left out at save, though the file is now newer than it */
	statcache_free(sc);
	stamp(dir, t + 60 * SEC);
	sc = statcache_load(dir);
	CHECK(statcache_lookup(sc, "b", &b) != NULL);
	CHECK(statcache_lookup(sc, "c", &c) == NULL);
	statcache_free(sc);

	/* a malformed file is an empty cache */
	put(dir, ".vx/key-stat", "garbage");
	sc = statcache_load(dir);
	CHECK(statcache_lookup(sc, "a", &a) == NULL);
	statcache_free(sc);
}

/* ---- a property: what is saved is what loads ------------------------------
 * Random trees of files and directories (empty ones too: an empty listing
 * ends the file whenever its key hashes last, and once freed a pointer the
 * cache did not own), made up stats old enough to be trusted, saved, loaded
 * and compared entry by entry; then some loaded entries are rewritten and a
 * few added, and the round repeats. Under ASan a wrong free aborts here. */

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint32_t rnd(uint32_t n)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t)(rng_state % n);
}

struct model {
	char path[64];
	bool dir;
	struct stat st;
	uint8_t hash[16];
	char list[48];
	size_t listlen;
};

static void model_fill(struct model *m, int64_t t)
{
	m->st = fake(t - (int64_t)rnd(1000) * SEC, t - (int64_t)rnd(1000) * SEC, (off_t)rnd(1 << 20));
	m->st.st_ino = 1000 + rnd(1u << 30);
	for (int i = 0; i < 16; i++)
		m->hash[i] = (uint8_t)rnd(256);
	/* a listing: 0 to 3 entries "<type>name\0", a third of them empty */
	m->listlen = 0;
	for (uint32_t n = rnd(3) ? rnd(4) : 0; n > 0; n--) {
		m->list[m->listlen++] = (char)(rnd(2) ? 4 : 8);
		m->listlen += (size_t)sprintf(m->list + m->listlen, "n%u", rnd(1000)) + 1;
	}
}

static void model_put(struct statcache *sc, const struct model *m, int64_t at)
{
	if (m->dir)
		statcache_dir_put(sc, m->path, &m->st, m->list, m->listlen, at);
	else
		statcache_store(sc, m->path, &m->st, m->hash, at);
}

static bool model_loaded(struct statcache *sc, const struct model *m)
{
	if (m->dir) {
		size_t len = 99;
		const char *l = statcache_dir_get(sc, m->path, &m->st, &len);
		return l && len == m->listlen && memcmp(l, m->list, len) == 0 &&
		       statcache_lookup(sc, m->path, &m->st) == NULL;
	}
	const uint8_t *h = statcache_lookup(sc, m->path, &m->st);
	return h && memcmp(h, m->hash, 16) == 0;
}

static void test_statcache_roundtrip(const char *dir)
{
	const int64_t t = 1700000000 * SEC;
	enum { N = 40 };
	struct model ms[N];
	int bad = 0;
	for (int round = 0; round < 300; round++) {
		char *f = NULL;
		if (asprintf(&f, "%s/.vx/key-stat", dir) < 0)
			abort();
		unlink(f);
		free(f);
		size_t n = 1 + rnd(N);
		for (size_t i = 0; i < n; i++) {
			struct model *m = &ms[i];
			m->dir = rnd(2);
			/* "/" is the root's key; others are unique by index */
			if (m->dir && i == 0)
				strcpy(m->path, "/");
			else
				sprintf(m->path, "d%u/%zu%s", rnd(5), i, m->dir ? "/" : "");
			model_fill(m, t);
		}
		struct statcache *sc = statcache_load(dir);
		for (size_t i = 0; i < n; i++)
			model_put(sc, &ms[i], t + 1);
		for (int gen = 0; gen < 3; gen++) {
			if (statcache_save(sc) != 0)
				abort();
			statcache_free(sc);
			stamp(dir, t + 2 * SEC); /* every entry older than the file */
			sc = statcache_load(dir);
			for (size_t i = 0; i < n; i++)
				if (!model_loaded(sc, &ms[i]) && bad++ < 5)
					fprintf(stderr, "round %d gen %d: %s did not load as saved\n", round,
						gen, ms[i].path);
			/* rewrite some loaded entries in place, then save what
			 * is now a mix of loaded and stored ones */
			for (size_t i = 0; i < n; i++) {
				if (rnd(3))
					continue;
				model_fill(&ms[i], t);
				model_put(sc, &ms[i], t + 1);
			}
		}
		statcache_free(sc);
	}
	CHECK(bad == 0);
}

static void test_ignore(const char *dir)
{
	char *sub = NULL;
	if (asprintf(&sub, "%s/p", dir) < 0 || mkdir(sub, 0777) != 0)
		abort();
	put(dir, ".gitignore", "# a comment\n\n*.log\n/top.txt\nbuild/\ndocs/*.tmp\n**/deep/x\n\\!bang\n");
	put(dir, "p/.gitignore", "*.bak\n!keep.bak\nsrc/tmp\n/local.js\ntrailing   \n");
	struct ignore *ig = ignore_open(dir);
	CHECK(ignore_match(ig, "a.log", false));
	CHECK(ignore_match(ig, "p/src/a.log", false));      /* a name at any depth */
	CHECK(ignore_match(ig, "top.txt", false));
	CHECK(!ignore_match(ig, "p/top.txt", false));       /* anchored to the root */
	CHECK(ignore_match(ig, "p/build", true));           /* directories only */
	CHECK(!ignore_match(ig, "p/build", false));
	CHECK(ignore_match(ig, "docs/a.tmp", false));
	CHECK(!ignore_match(ig, "p/docs/a.tmp", false));    /* a '/' inside anchors */
	CHECK(ignore_match(ig, "p/q/deep/x", false));       /* ** spans directories */
	CHECK(ignore_match(ig, "!bang", false));
	CHECK(ignore_match(ig, "p/old.bak", false));
	CHECK(!ignore_match(ig, "p/keep.bak", false));      /* re-included */
	CHECK(!ignore_match(ig, "keep.bak", false));
	CHECK(ignore_match(ig, "p/src/tmp", true));
	CHECK(ignore_match(ig, "p/local.js", false));
	CHECK(!ignore_match(ig, "p/src/local.js", false));
	CHECK(ignore_match(ig, "p/trailing", false));       /* trailing blanks dropped */
	CHECK(!ignore_match(ig, "p/src/a.js", false));
	CHECK(!ignore_match(ig, "other.bak", false));       /* p's rules stay in p */
	ignore_free(ig);
	free(sub);
}

/* statcache_prefetch_children is a hint: lookups after it find what they
 * found before, for the root's children, a directory's, and names too long
 * for its buffer. */
static void test_prefetch(const char *dir)
{
	const uint8_t h1[16] = {1};
	const int64_t t = 1700000000 * SEC + 500;
	struct statcache *sc = statcache_load(dir);
	struct stat a = fake(t, t, 10);
	statcache_store(sc, "top.js", &a, h1, t + 1);
	statcache_store(sc, "src/a.js", &a, h1, t + 1);
	char list[1200];
	size_t n = 0;
	list[n++] = DT_REG;
	memcpy(list + n, "top.js", 7);
	n += 7;
	list[n++] = DT_DIR;
	memcpy(list + n, "src", 4);
	n += 4;
	list[n++] = DT_REG;
	memset(list + n, 'x', 700); /* longer than a key it builds */
	n += 700;
	list[n++] = '\0';
	list[n++] = DT_REG;
	memcpy(list + n, "cut", 3); /* no NUL: the listing ends early */
	n += 3;
	statcache_prefetch_children(sc, "/", list, n);
	statcache_prefetch_children(sc, "src/", "\x08" "a.js", 6);
	statcache_prefetch_children(sc, "src/", "", 0);
	CHECK(statcache_lookup(sc, "top.js", &a) && memcmp(statcache_lookup(sc, "top.js", &a), h1, 16) == 0);
	CHECK(statcache_lookup(sc, "src/a.js", &a) != NULL);
	CHECK(statcache_lookup(sc, "src/b.js", &a) == NULL);
	statcache_free(sc);
}

int main(void)
{
	char tmpl[] = "/tmp/vx-unit-key-XXXXXX";
	char *dir = mkdtemp(tmpl);
	if (!dir)
		return 1;
	test_statcache(dir);
	test_statcache_roundtrip(dir);
	test_ignore(dir);
	test_prefetch(dir);
	char *cmd = NULL;
	if (asprintf(&cmd, "rm -rf '%s'", dir) >= 0 && system(cmd) != 0)
		fprintf(stderr, "unable to remove %s\n", dir);
	free(cmd);
	return UNIT_END("key_statcache");
}
