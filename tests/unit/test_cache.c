/* test_cache.c: the cache module through its API: paths and records a
 * manifest may hold, save/lookup/restore, the stamp's racy rule with made-up
 * stats, and an all-hit rerun that rewrites nothing.
 * VX_CACHE_BENCH=N times N tasks of 10 files each (save, first restore into
 * emptied projects, then an all-identical pass) and prints the numbers. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cache.h"
#include "cache_int.h"
#include "err.h"
#include "unit.h"
#include "workq.h"

static char base[512];

static void put(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text) || fchmod(fd, mode) != 0)
		abort();
	close(fd);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	static char buf[65536];
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void key_of(unsigned i, char key[33])
{
	snprintf(key, 33, "%032x", i + 0xabc000u);
}

static void test_paths(void)
{
	CHECK(cache_path_ok("dist/a.js"));
	CHECK(cache_path_ok("a"));
	CHECK(cache_path_ok("dist/..x/.hidden"));
	CHECK(!cache_path_ok(""));
	CHECK(!cache_path_ok("/etc/passwd"));
	CHECK(!cache_path_ok("../x"));
	CHECK(!cache_path_ok("dist/../../x"));
	CHECK(!cache_path_ok("dist/.."));
	CHECK(!cache_path_ok("./dist"));
	CHECK(!cache_path_ok("dist//a"));
	CHECK(!cache_path_ok("dist/"));
	CHECK(!cache_path_ok(".git/hooks/pre-commit"));
	CHECK(!cache_path_ok("a/.vx/stamps/x"));
	/* symlink targets, from the link's own directory */
	CHECK(!cache_link_why("dist/l", "a.js"));
	CHECK(!cache_link_why("dist/l", "../src"));
	CHECK(!cache_link_why("dist/l", "./../src/./x"));
	CHECK(!cache_link_why("a/b/c/l", "../../../x"));
	CHECK(!cache_link_why("a/b/l", "x/../../../a"));
	CHECK(!cache_link_why("dist/l", "..//src"));
	CHECK_STR(cache_link_why("l", ".."), "a symlink out of the project");
	CHECK_STR(cache_link_why("dist/l", "../.."), "a symlink out of the project");
	CHECK_STR(cache_link_why("dist/l", "../../outside"), "a symlink out of the project");
	CHECK_STR(cache_link_why("a/b/l", "x/../../../../y"), "a symlink out of the project");
	CHECK_STR(cache_link_why("dist/l", "./../.././x"), "a symlink out of the project");
	CHECK_STR(cache_link_why("dist/l", "/etc"), "a symlink to an absolute path");
	CHECK_STR(cache_link_why("dist/l", ""), "a symlink to an absolute path");
}

static const char *parse(const char *json)
{
	static char why[128];
	struct cache_file cf;
	cJSON *f = cJSON_Parse(json);
	const char *w = cache_file_parse(f, &cf);
	snprintf(why, sizeof(why), "%s", w ? w : "ok");
	cJSON_Delete(f);
	return why;
}

static void test_records(void)
{
	const char *h = "\"hash\":\"5c73e7e3dcbb0395e841f27363849a18\"";
	char buf[256];
	snprintf(buf, sizeof(buf), "{\"path\":\"dist/a.js\",\"mode\":420,\"size\":12,%s}", h);
	CHECK_STR(parse(buf), "ok");
	snprintf(buf, sizeof(buf), "{\"path\":\"dist/a.js\",\"mode\":33188,\"size\":12,%s}", h);
	CHECK_STR(parse(buf), "ok");
	snprintf(buf, sizeof(buf), "{\"path\":\"dist/a.js\",\"mode\":41471,\"size\":12,%s}", h);
	CHECK_STR(parse(buf), "a bad mode");
	snprintf(buf, sizeof(buf), "{\"path\":\"dist/a.js\",\"mode\":420,\"size\":1.5,%s}", h);
	CHECK_STR(parse(buf), "a file with no hash or size");
	CHECK_STR(parse("{\"path\":\"dist/l\",\"mode\":41471,\"link\":\"a.js\"}"), "ok");
	CHECK_STR(parse("{\"path\":\"dist/l\",\"mode\":511,\"link\":\"../x\"}"), "ok");
	CHECK_STR(parse("{\"path\":\"dist/l\",\"mode\":511,\"link\":\"../../x\"}"),
		"a symlink out of the project");
	/* setuid, setgid and sticky are parsed away, and said to have been asked */
	struct cache_file cf;
	snprintf(buf, sizeof(buf), "{\"path\":\"t\",\"mode\":%d,\"size\":12,%s}", 04755 | 0100000, h);
	cJSON *f = cJSON_Parse(buf);
	CHECK(cache_file_parse(f, &cf) == NULL);
	CHECK(cf.mode == 0755 && cf.privileged);
	cJSON_Delete(f);
	snprintf(buf, sizeof(buf), "{\"path\":\"t\",\"mode\":%d,\"size\":12,%s}", 01644, h);
	f = cJSON_Parse(buf);
	CHECK(cache_file_parse(f, &cf) == NULL);
	CHECK(cf.mode == 0644 && cf.privileged);
	cJSON_Delete(f);
	snprintf(buf, sizeof(buf), "{\"path\":\"t\",\"mode\":%d,\"size\":12,%s}", 010644, h);
	CHECK_STR(parse(buf), "a bad mode"); /* a fifo */
	CHECK_STR(parse("{\"path\":\"dist/l\",\"mode\":41471,\"link\":\"/etc\"}"),
		"a symlink to an absolute path");
	CHECK_STR(parse("{\"path\":\"../l\",\"mode\":41471,\"link\":\"a\"}"), "a path outside the project");
	CHECK_STR(parse("{\"path\":\"l\",\"mode\":-1,\"link\":\"a\"}"), "a bad mode");
	CHECK_STR(parse("{\"path\":\"f\",\"mode\":420,\"size\":1,\"hash\":\"ABC\"}"),
		"a file with no hash or size");
}

/* git's racy rule: a line vouches only for a file older than the stamp, and
 * a line untrusted when loaded is not made trusted by a newer stamp file. */
static void test_stamp_racy(void)
{
	char state[1024], proj[1024], proj2[1024];
	snprintf(state, sizeof(state), "%s/state", base);
	snprintf(proj, sizeof(proj), "%s/proj", base);
	snprintf(proj2, sizeof(proj2), "%s/proj2", base);
	struct cache *c = cache_open("/nonexistent", state);
	const char *hash = "5c73e7e3dcbb0395e841f27363849a18";
	struct stat old = {0}, racy = {0};
	old.st_size = racy.st_size = 12;
	old.st_ino = racy.st_ino = 77;
	old.st_mode = racy.st_mode = S_IFREG | 0644;
	old.st_mtim.tv_sec = 1600000000;
	old.st_ctim.tv_sec = 1600000000;
	racy.st_mtim.tv_sec = time(NULL) + 3600; /* no older than the stamp */
	CHECK(!cache_stamp_vouches(c, proj, "dist/a.js", &old, hash));
	cache_stamp_set(c, proj, "dist/a.js", &old, hash);
	cache_stamp_set(c, proj, "dist/b.js", &racy, hash);
	cache_close(c); /* writes the stamp */

	c = cache_open("/nonexistent", state);
	CHECK(cache_stamp_vouches(c, proj, "dist/a.js", &old, hash));
	CHECK(!cache_stamp_vouches(c, proj, "dist/b.js", &racy, hash));
	CHECK(!cache_stamp_vouches(c, proj, "dist/a.js", &old, "00000000000000000000000000000000"));
	struct stat moved = old;
	moved.st_ino = 78;
	CHECK(!cache_stamp_vouches(c, proj, "dist/a.js", &moved, hash));
	moved = old;
	moved.st_ctim.tv_nsec = 1;
	CHECK(!cache_stamp_vouches(c, proj, "dist/a.js", &moved, hash));
	/* another project's file of the same name has no line */
	CHECK(!cache_stamp_vouches(c, proj2, "dist/a.js", &old, hash));
	cache_close(c);

	/* a line as new as the stamp file: untrusted when loaded, and dropped when
	 * the file is saved again, which a newer mtime would otherwise whitewash */
	racy.st_mtim.tv_sec = 1700000000;
	c = cache_open("/nonexistent", state);
	cache_stamp_set(c, proj, "dist/b.js", &racy, hash);
	cache_close(c);
	char file[1100];
	snprintf(file, sizeof(file), "%s/stamp", state);
	struct timespec at[2] = {{1700000000, 0}, {1700000000, 0}};
	CHECK(utimensat(AT_FDCWD, file, at, 0) == 0);
	c = cache_open("/nonexistent", state);
	CHECK(!cache_stamp_vouches(c, proj, "dist/b.js", &racy, hash));
	cache_stamp_set(c, proj2, "x", &old, hash); /* something else changed */
	cache_close(c);
	c = cache_open("/nonexistent", state);
	CHECK(!cache_stamp_vouches(c, proj, "dist/b.js", &racy, hash));
	CHECK(cache_stamp_vouches(c, proj, "dist/a.js", &old, hash));
	CHECK(cache_stamp_vouches(c, proj2, "x", &old, hash));
	/* a line of a path outside the checkout (it moved since) is read, but
	 * not written back */
	cache_stamp_set(c, "/elsewhere", "x", &old, hash);
	cache_close(c);
	c = cache_open("/nonexistent", state);
	CHECK(cache_stamp_vouches(c, "/elsewhere", "x", &old, hash));
	cache_stamp_set(c, proj2, "y", &old, hash);
	cache_close(c);
	c = cache_open("/nonexistent", state);
	CHECK(!cache_stamp_vouches(c, "/elsewhere", "x", &old, hash));
	CHECK(cache_stamp_vouches(c, proj2, "x", &old, hash));
	cache_close(c);
}

/* n projects under base/name, each with 10 outputs (2 directories, an
 * executable, a symlink). */
static void make_projects(const char *name, unsigned n)
{
	char p[1024];
	snprintf(p, sizeof(p), "%s/%s", base, name);
	mkdir(p, 0777);
	for (unsigned i = 0; i < n; i++) {
		snprintf(p, sizeof(p), "%s/%s/p%u", base, name, i);
		mkdir(p, 0777);
		snprintf(p, sizeof(p), "%s/%s/p%u/dist", base, name, i);
		mkdir(p, 0777);
		snprintf(p, sizeof(p), "%s/%s/p%u/dist/sub", base, name, i);
		mkdir(p, 0777);
		for (unsigned j = 0; j < 8; j++) {
			char text[64];
			snprintf(p, sizeof(p), "%s/%s/p%u/dist/%sf%u.js", base, name, i, j < 4 ? "" : "sub/", j);
			snprintf(text, sizeof(text), "export const v = %u; // %u\n", j, i);
			put(p, text, j == 0 ? 0755 : 0644);
		}
		snprintf(p, sizeof(p), "%s/%s/p%u/dist/l", base, name, i);
		if (symlink("f1.js", p) != 0)
			abort();
		snprintf(p, sizeof(p), "%s/%s/p%u/dist/sub/readme.txt", base, name, i);
		put(p, "readme\n", 0600);
	}
}

static const char *const outputs[] = {"dist/**", "!dist/*.map"};

static int save_all(struct cache *c, const char *name, unsigned n)
{
	int bad = 0;
	for (unsigned i = 0; i < n; i++) {
		char dir[1024], key[33];
		snprintf(dir, sizeof(dir), "%s/%s/p%u", base, name, i);
		key_of(i, key);
		struct cache_save s = {.key = key, .projdir = dir, .globs = outputs, .nglobs = 2,
			.log = "built\n", .loglen = 6, .ms = 5};
		bad += cache_save(c, &s) != 0;
	}
	return bad;
}

/* One pass of the driver's hit path over n tasks: lookup, log, restore. */
static int restore_all(struct cache *c, const char *name, unsigned n)
{
	int bad = 0;
	for (unsigned i = 0; i < n; i++) {
		char dir[1024], key[33];
		snprintf(dir, sizeof(dir), "%s/%s/p%u", base, name, i);
		key_of(i, key);
		struct cache_entry *e;
		size_t len;
		if (cache_lookup(c, key, &e, NULL) != 1) {
			bad++;
			continue;
		}
		char *log = cache_entry_log(c, e, &len);
		bad += !log || len != 6 || cache_restore(c, e, dir) < 0;
		free(log);
		cache_entry_free(e);
	}
	return bad;
}

static void test_roundtrip(void)
{
	char cdir[1024], state[1024], p[2048];
	snprintf(cdir, sizeof(cdir), "%s/cache", base);
	snprintf(state, sizeof(state), "%s/rt-state", base);
	make_projects("rt", 3);
	struct cache *c = cache_open(cdir, state);
	CHECK(save_all(c, "rt", 3) == 0);

	struct cache_entry *e = NULL;
	const char *why = NULL;
	CHECK(cache_lookup(c, "ffffffffffffffffffffffffffffffff", &e, &why) == 0);
	CHECK_STR(why, "absent");
	CHECK(cache_lookup(c, "not-a-key", &e, &why) == 0);
	CHECK_STR(why, "not a key");
	char key[33];
	key_of(0, key);
	CHECK(cache_lookup(c, key, &e, &why) == 1);
	CHECK(e && cJSON_GetArraySize(cJSON_GetObjectItem(e->manifest, "files")) == 10);
	CHECK(e && e->ms == 5);
	cache_entry_free(e);

	struct cache_save failed = {.key = key, .projdir = base, .exit = 1};
	CHECK(cache_save(c, &failed) != 0);

	/* restored after removal: bytes and modes */
	snprintf(p, sizeof(p), "%s/rt/p1/dist/f0.js", base);
	unlink(p);
	snprintf(p, sizeof(p), "%s/rt/p1/dist/l", base);
	unlink(p);
	CHECK(restore_all(c, "rt", 3) == 0);
	snprintf(p, sizeof(p), "%s/rt/p1/dist/f0.js", base);
	struct stat st;
	CHECK(stat(p, &st) == 0 && (st.st_mode & 07777) == 0755);
	CHECK_STR(slurp(p), "export const v = 0; // 1\n");
	char target[64] = "";
	snprintf(p, sizeof(p), "%s/rt/p1/dist/l", base);
	CHECK(readlink(p, target, sizeof(target) - 1) == 5);
	CHECK_STR(target, "f1.js");

	/* an all-identical pass replaces nothing: the inodes stay */
	snprintf(p, sizeof(p), "%s/rt/p2/dist/sub/readme.txt", base);
	struct stat before;
	CHECK(stat(p, &before) == 0);
	CHECK(restore_all(c, "rt", 3) == 0);
	CHECK(stat(p, &st) == 0 && st.st_ino == before.st_ino && (st.st_mode & 07777) == 0600);

	/* a clean makes every key a miss */
	CHECK(cache_clean(c) == 0);
	CHECK(cache_lookup(c, key, &e, &why) == 0);
	CHECK(access(cdir, F_OK) != 0);
	cache_close(c);
}

struct write_job {
	struct cache *c;
	struct cache_writes *w;
	int r;
};

static void write_one(void *arg)
{
	struct write_job *j = arg;
	j->r = cache_restore_write(j->c, j->w);
}

/* Every project's outputs deleted; checked on this thread and written on
 * threads, as the driver does. The number of failures. */
static int restore_threaded(struct cache *c, const char *name, unsigned n, size_t threads)
{
	char cmd[2048];
	snprintf(cmd, sizeof(cmd), "rm -rf %s/%s/p*/dist", base, name);
	if (system(cmd) != 0)
		return -1;
	struct workq *q = workq_new(threads, write_one);
	struct write_job *jobs = calloc(n, sizeof(*jobs));
	struct cache_entry **es = calloc(n, sizeof(*es));
	int bad = 0;
	for (unsigned i = 0; i < n; i++) {
		char dir[1024], key[33];
		snprintf(dir, sizeof(dir), "%s/%s/p%u", base, name, i);
		key_of(i, key);
		if (cache_lookup_manifest(c, key, &es[i]) != 1 ||
			cache_restore_check(c, es[i], dir, &jobs[i].w) != 1) {
			bad++;
			continue;
		}
		jobs[i].c = c;
		workq_put(q, &jobs[i]);
	}
	struct write_job *j;
	while ((j = workq_get(q, true)))
		bad += j->r != 1;
	workq_free(q);
	for (unsigned i = 0; i < n; i++)
		cache_entry_free(es[i]);
	free(es);
	free(jobs);
	return bad;
}

/* The files of project i of name are what make_projects wrote. */
static bool project_whole(const char *name, unsigned i)
{
	char p[1024], text[64];
	struct stat st;
	for (unsigned j = 0; j < 8; j++) {
		snprintf(p, sizeof(p), "%s/%s/p%u/dist/%sf%u.js", base, name, i, j < 4 ? "" : "sub/", j);
		snprintf(text, sizeof(text), "export const v = %u; // %u\n", j, i);
		const char *got = slurp(p);
		if (!got || strcmp(got, text) != 0 || stat(p, &st) != 0 ||
			(st.st_mode & 07777) != (j == 0 ? 0755u : 0644u))
			return false;
	}
	char target[64] = "";
	snprintf(p, sizeof(p), "%s/%s/p%u/dist/l", base, name, i);
	return readlink(p, target, sizeof(target) - 1) == 5 && strcmp(target, "f1.js") == 0;
}

/* Many hits written at once on threads, with and without openat2 (an old
 * kernel, or a seccomp filter that refuses it: the directories are then made
 * and opened part by part); a symlink in the way is refused either way. */
static void test_threads(void)
{
	char cdir[1024], state[1024], p[1024], cmd[2048];
	snprintf(cdir, sizeof(cdir), "%s/th-cache", base);
	snprintf(state, sizeof(state), "%s/th-state", base);
	make_projects("th", 16);
	struct cache *c = cache_open(cdir, state);
	CHECK(save_all(c, "th", 16) == 0);
	for (int off = 0; off < 2; off++) {
		c->openat2_off = off;
		CHECK(restore_threaded(c, "th", 16, 4) == 0);
		bool whole = true;
		for (unsigned i = 0; i < 16; i++)
			whole &= project_whole("th", i);
		CHECK(whole);
		/* nothing left behind under a temporary name */
		snprintf(cmd, sizeof(cmd), "test -z \"$(find %s/th -name '.vx-tmp.*')\"", base);
		CHECK(system(cmd) == 0);
		/* dist a symlink to a directory outside the project: refused */
		snprintf(cmd, sizeof(cmd), "rm -rf %s/th/p3/dist && mkdir -p %s/th-out && ln -s ../../th-out %s/th/p3/dist",
			base, base, base);
		CHECK(system(cmd) == 0);
		char key[33];
		key_of(3, key);
		struct cache_entry *e;
		struct cache_writes *w = NULL;
		snprintf(p, sizeof(p), "%s/th/p3", base);
		CHECK(cache_lookup_manifest(c, key, &e) == 1);
		CHECK(cache_restore_check(c, e, p, &w) == -1 && !w);
		cache_entry_free(e);
		snprintf(cmd, sizeof(cmd), "test -z \"$(ls -A %s/th-out)\" && rm %s/th/p3/dist", base, base);
		CHECK(system(cmd) == 0);
	}
	cache_close(c);
}

static void bench(unsigned n)
{
	char cdir[1024], state[1024];
	snprintf(cdir, sizeof(cdir), "%s/bench-cache", base);
	snprintf(state, sizeof(state), "%s/bench-state", base);
	make_projects("bench", n);
	struct cache *c = cache_open(cdir, state);
	double t0 = now_ms();
	CHECK(save_all(c, "bench", n) == 0);
	double t1 = now_ms();
	/* a fresh checkout: every output restored */
	char cmd[2048];
	snprintf(cmd, sizeof(cmd), "rm -rf %s/bench/p*/dist %s", base, state);
	CHECK(system(cmd) == 0);
	double t2 = now_ms();
	CHECK(restore_all(c, "bench", n) == 0);
	double t3 = now_ms();
	/* the first rerun may rehash outputs written in the stamp's own tick */
	sleep(1);
	double t3b = now_ms();
	CHECK(restore_all(c, "bench", n) == 0);
	double t4 = now_ms();
	CHECK(restore_all(c, "bench", n) == 0);
	double t5 = now_ms();
	printf("bench: %u tasks x 10 files: save %.0f ms, restore into empty %.0f ms, "
	       "identical pass %.1f ms, then %.1f ms\n", n, t1 - t0, t3 - t2, t4 - t3b, t5 - t4);
	cache_close(c);
}

/* dir and dir/dist, made */
static void make_dist(const char *dir)
{
	char p[2048];
	mkdir(dir, 0777);
	snprintf(p, sizeof(p), "%s/dist", dir);
	mkdir(p, 0777);
}

static void backdate(const char *path, time_t t)
{
	struct timespec ts[2] = {{t, 0}, {t, 0}};
	if (utimensat(AT_FDCWD, path, ts, AT_SYMLINK_NOFOLLOW) != 0)
		abort();
}

/* The full check of an entry whose outputs are all in place, noted. */
static bool check_in_place(struct cache *c, const char *key, const char *proj)
{
	struct cache_entry *e;
	struct cache_writes *w = NULL;
	if (cache_lookup_manifest(c, key, &e) != 1)
		return false;
	int r = cache_restore_check(c, e, proj, &w);
	if (r == 1)
		r = cache_restore_write(c, w) == 1 ? 1 : -1;
	cache_entry_free(e);
	return r >= 0;
}

static int in_place(struct cache *c, const char *key, const char *proj)
{
	char *log;
	size_t len;
	int r = cache_hit_in_place(c, key, proj, false, &log, &len);
	CHECK(r ? log && len == 6 && memcmp(log, "built\n", 6) == 0 : !log);
	free(log);
	return r;
}

/* The in-place memo (inplace.c): a check that finds every output in place
 * notes it, and after a reopen the same key in the same project is a hit in
 * place; not another key or project, nor once an output, the manifest or the
 * memo file changed, nor from a note as new as its check. */
static void test_inplace(void)
{
	char cdir[1024], state[1024], proj[1024], a[2048], b[2048], man[2048], memo[2048], key[33],
		other[33];
	snprintf(cdir, sizeof(cdir), "%s/ip-cache", base);
	snprintf(state, sizeof(state), "%s/ip-state", base);
	snprintf(proj, sizeof(proj), "%s/ip", base);
	make_dist(proj);
	snprintf(a, sizeof(a), "%s/dist/a.js", proj);
	snprintf(b, sizeof(b), "%s/dist/b.sh", proj);
	put(a, "a\n", 0644);
	put(b, "b\n", 0755);
	key_of(77, key);
	key_of(78, other);
	snprintf(man, sizeof(man), "%s/ac/%s.json", cdir, key);
	snprintf(memo, sizeof(memo), "%s/inplace", state);
	time_t old = time(NULL) - 100;

	struct cache *c = cache_open(cdir, state);
	struct cache_save s = {.key = key, .projdir = proj, .globs = outputs, .nglobs = 1,
		.log = "built\n", .loglen = 6, .ms = 5};
	CHECK(cache_save(c, &s) == 0);
	backdate(a, old);
	backdate(b, old);
	backdate(man, old);
	CHECK(in_place(c, key, proj) == 0); /* nothing noted yet */
	CHECK(check_in_place(c, key, proj));
	cache_close(c);

	c = cache_open(cdir, state);
	CHECK(in_place(c, key, proj) == 1);
	CHECK(in_place(c, key, proj) == 1);
	CHECK(in_place(c, other, proj) == 0);
	CHECK(in_place(c, key, "/elsewhere") == 0);
	/* same size, other bytes, the mtime put back: the ctime moved */
	put(a, "A\n", 0644);
	backdate(a, old);
	CHECK(in_place(c, key, proj) == 0);
	cache_close(c);

	/* the stale record was not written back; the full check restores the
	 * bytes, and the check after that notes them again */
	c = cache_open(cdir, state);
	CHECK(in_place(c, key, proj) == 0);
	CHECK(check_in_place(c, key, proj));
	CHECK(strcmp(slurp(a), "a\n") == 0);
	backdate(a, old);
	CHECK(check_in_place(c, key, proj));
	cache_close(c);
	c = cache_open(cdir, state);
	CHECK(in_place(c, key, proj) == 1);
	cache_close(c);

	/* a full check that notes what the memo already says rewrites nothing */
	struct stat st, st2;
	CHECK(stat(memo, &st) == 0);
	c = cache_open(cdir, state);
	CHECK(check_in_place(c, key, proj));
	cache_close(c);
	CHECK(stat(memo, &st2) == 0 && st2.st_ino == st.st_ino &&
	      st2.st_mtim.tv_nsec == st.st_mtim.tv_nsec);

	/* a torn memo file is an empty memo */
	CHECK(stat(memo, &st) == 0 && truncate(memo, st.st_size / 2) == 0);
	c = cache_open(cdir, state);
	CHECK(in_place(c, key, proj) == 0);
	CHECK(check_in_place(c, key, proj));
	cache_close(c);

	/* an output whose mtime is not older than the check is never noted,
	 * though the memo file is written later than that mtime */
	struct timespec soon[2];
	clock_gettime(CLOCK_REALTIME, &soon[0]);
	soon[0].tv_nsec += 50000000;
	if (soon[0].tv_nsec >= 1000000000) {
		soon[0].tv_sec++;
		soon[0].tv_nsec -= 1000000000;
	}
	soon[1] = soon[0];
	CHECK(utimensat(AT_FDCWD, b, soon, 0) == 0);
	c = cache_open(cdir, state);
	CHECK(in_place(c, key, proj) == 0);
	CHECK(check_in_place(c, key, proj));
	usleep(200000);
	cache_close(c);
	c = cache_open(cdir, state);
	CHECK(in_place(c, key, proj) == 0);
	backdate(b, old);
	CHECK(check_in_place(c, key, proj));
	cache_close(c);

	/* proj's outputs have second links in this checkout's shadow, which a
	 * state directory elsewhere cannot vouch for: gone first, so that
	 * what follows tests the moved checkout alone */
	c = cache_open(cdir, state);
	cache_shadow_drop(c, proj);
	CHECK(check_in_place(c, key, proj));
	cache_close(c);

	/* a checkout moved: records of projects outside the directory that
	 * holds the state directory are not written back */
	char mvstate[1024], mvproj[1024], mvfile[2048], mvman[2048];
	snprintf(mvstate, sizeof(mvstate), "%s/mv/.vx", base);
	snprintf(mvproj, sizeof(mvproj), "%s/mv", base);
	make_dist(mvproj);
	snprintf(mvfile, sizeof(mvfile), "%s/mv/dist/c.js", base);
	put(mvfile, "c\n", 0644);
	snprintf(mvman, sizeof(mvman), "%s/ac/%s.json", cdir, other);
	c = cache_open(cdir, mvstate);
	struct cache_save s2 = {.key = other, .projdir = mvproj, .globs = outputs, .nglobs = 1,
		.log = "built\n", .loglen = 6, .ms = 5};
	CHECK(cache_save(c, &s2) == 0);
	backdate(mvfile, old);
	backdate(mvman, old);
	CHECK(check_in_place(c, key, proj));
	CHECK(check_in_place(c, other, mvproj));
	cache_close(c);
	c = cache_open(cdir, mvstate);
	CHECK(in_place(c, key, proj) == 1); /* a lookup still finds it */
	put(mvfile, "c\n", 0644); /* its record goes stale and the memo is saved */
	backdate(mvfile, old);
	CHECK(in_place(c, other, mvproj) == 0);
	CHECK(check_in_place(c, other, mvproj));
	cache_close(c);
	c = cache_open(cdir, mvstate);
	CHECK(in_place(c, other, mvproj) == 1);
	CHECK(in_place(c, key, proj) == 0);
	cache_close(c);

	/* the manifest gone (vx clean, another checkout's clean): no hit */
	c = cache_open(cdir, state);
	CHECK(in_place(c, key, proj) == 1);
	CHECK(unlink(man) == 0);
	CHECK(in_place(c, key, proj) == 0);
	cache_close(c);
}

int main(int argc, char **argv)
{
	(void)argc;
	err_init(argv[0]);
	snprintf(base, sizeof(base), "%s/vx-test-cache.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(base))
		return 1;
	test_paths();
	test_records();
	test_stamp_racy();
	test_roundtrip();
	test_inplace();
	test_threads();
	const char *b = getenv("VX_CACHE_BENCH");
	bench(b && atoi(b) > 0 ? (unsigned)atoi(b) : 20);
	char cmd[1024];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	if (system(cmd) != 0)
		return 1;
	return UNIT_END("cache");
}
