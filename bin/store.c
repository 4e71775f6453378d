#include "store.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <xxhash.h>

#include "err.h"
#include "fileio.h"
#include "hash.h"
#include "path.h"
#include "strmap.h"
#include "walk.h"

#define MANIFEST_VERSION 1
#define INLINE_LOG_MAX 65536

static unsigned tmp_counter;

static char *tmp_name(const char *base)
{
	return xasprintf("%s.tmp-%d-%u", base, (int)getpid(), tmp_counter++);
}

static char *blob_path(const char *cachedir, const char *hash)
{
	return xasprintf("%s/cas/%.2s/%s", cachedir, hash, hash);
}

static int mkdirs(const char *dir)
{
	char *p = xstrdup(dir);
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0777) != 0 && errno != EEXIST) {
			free(p);
			return -1;
		}
		*s = '/';
	}
	int r = mkdir(p, 0777) != 0 && errno != EEXIST ? -1 : 0;
	free(p);
	return r;
}

static int write_all(int fd, const char *s, size_t n)
{
	while (n) {
		ssize_t w = write(fd, s, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		s += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Write data to path through a temporary name; fsync it first when durable. */
static int write_file_atomic(const char *path, const char *data, size_t len, bool durable)
{
	char *tmp = tmp_name(path);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
	if (fd < 0) {
		free(tmp);
		return -1;
	}
	int r = write_all(fd, data, len);
	if (r == 0 && durable)
		r = fsync(fd);
	if (close(fd) != 0)
		r = -1;
	if (r == 0)
		r = rename(tmp, path);
	if (r != 0)
		unlink(tmp);
	free(tmp);
	return r;
}

static int put_blob(const char *cachedir, const char *data, size_t len, char hash[33])
{
	hash_hex(data, len, hash);
	char *path = blob_path(cachedir, hash);
	struct stat st;
	int r = 0;
	if (stat(path, &st) != 0 || (size_t)st.st_size != len) {
		char *dir = xasprintf("%s/cas/%.2s", cachedir, hash);
		r = mkdirs(dir);
		free(dir);
		if (r == 0)
			r = write_file_atomic(path, data, len, false);
	}
	free(path);
	return r;
}

/* A project-relative output path that stays inside: no "..", ".", empty or
 * absolute parts. */
static bool safe_rel(const char *p)
{
	if (!p || !*p || p[0] == '/')
		return false;
	for (const char *s = p; *s;) {
		const char *e = strchr(s, '/');
		size_t n = e ? (size_t)(e - s) : strlen(s);
		if (n == 0 || (n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.'))
			return false;
		s += n;
		if (*s)
			s++;
	}
	return true;
}

static const char *jstr(const cJSON *o, const char *k)
{
	return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, k));
}

static double jnum(const cJSON *o, const char *k, double dflt)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsNumber(v) ? v->valuedouble : dflt;
}

int store_get(const char *cachedir, const char *key, struct store_entry *e)
{
	memset(e, 0, sizeof(*e));
	if (!hash_is_hex(key))
		return -1;
	char *path = xasprintf("%s/ac/%s.json", cachedir, key);
	char *text = fileio_read_at(AT_FDCWD, path, NULL);
	free(path);
	if (!text)
		return -1;
	cJSON *m = cJSON_Parse(text);
	free(text);
	const cJSON *files = cJSON_GetObjectItemCaseSensitive(m, "files");
	const cJSON *log = cJSON_GetObjectItemCaseSensitive(m, "log");
	bool ok = m && jnum(m, "v", 0) == MANIFEST_VERSION && jstr(m, "key") &&
		  strcmp(jstr(m, "key"), key) == 0 && cJSON_IsArray(files) && cJSON_IsObject(log) &&
		  jnum(m, "exit", -1) == 0;
	const cJSON *f;
	const cJSON *list = ok ? files : NULL;
	cJSON_ArrayForEach(f, list) {
		const char *p = jstr(f, "path");
		double mode = jnum(f, "mode", -1);
		ok = safe_rel(p) && mode >= 0 && mode <= 07777 &&
		     (hash_is_hex(jstr(f, "hash")) ? jnum(f, "size", -1) >= 0 : jstr(f, "link") != NULL);
		if (!ok)
			break;
	}
	if (ok && !jstr(log, "text"))
		ok = hash_is_hex(jstr(log, "hash")) && jnum(log, "size", -1) >= 0;
	if (!ok) {
		cJSON_Delete(m);
		return -1;
	}
	e->manifest = m;
	return 0;
}

void store_entry_free(struct store_entry *e)
{
	cJSON_Delete(e->manifest);
	e->manifest = NULL;
}

/* Read and verify a blob: NULL unless its size and hash are right. */
static char *read_blob(const char *cachedir, const char *hash, size_t size)
{
	char *path = blob_path(cachedir, hash);
	size_t n;
	char *data = fileio_read_at(AT_FDCWD, path, &n);
	free(path);
	char got[33];
	if (!data)
		return NULL;
	hash_hex(data, n, got);
	if (n != size || strcmp(got, hash) != 0) {
		free(data);
		return NULL;
	}
	return data;
}

static char *stamp_path(const char *root, const char *projdir, const char *key)
{
	unsigned long long h = XXH3_64bits(projdir, strlen(projdir));
	return xasprintf("%s/.vx/stamps/%s-%016llx", root, key, h);
}

/* Record each output's size, mtime and inode as they are now. */
static void write_stamp(const char *root, const char *projdir, const char *key,
	const cJSON *files)
{
	int pfd = open(projdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (pfd < 0)
		return;
	size_t cap = 4096, len = 0;
	char *buf = xmalloc(cap);
	const cJSON *f;
	cJSON_ArrayForEach(f, files) {
		struct stat st;
		const char *p = jstr(f, "path");
		if (fstatat(pfd, p, &st, AT_SYMLINK_NOFOLLOW) != 0)
			goto out;
		char line[64];
		int n = snprintf(line, sizeof(line), "%lld %lld %ld %llu %o ", (long long)st.st_size,
			(long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec, (unsigned long long)st.st_ino,
			st.st_mode);
		size_t need = (size_t)n + strlen(p) + 2;
		if (len + need > cap) {
			cap = (len + need) * 2;
			buf = xrealloc(buf, cap);
		}
		len += (size_t)snprintf(buf + len, cap - len, "%s%s\n", line, p);
	}
	char *dir = xasprintf("%s/.vx/stamps", root);
	char *path = stamp_path(root, projdir, key);
	if (mkdirs(dir) == 0)
		write_file_atomic(path, buf, len, false);
	free(dir);
	free(path);
out:
	free(buf);
	close(pfd);
}

struct stamp {
	char *text;        /* the file, cut into lines */
	struct strmap map; /* path -> its line's numbers */
	struct timespec at; /* the stamp file's own mtime */
};

/* Load the stamp of projdir and key; false when there is none. */
static bool stamp_load(const char *root, const char *projdir, const char *key, struct stamp *sp)
{
	memset(sp, 0, sizeof(*sp));
	strmap_init(&sp->map);
	char *path = stamp_path(root, projdir, key);
	struct stat sst;
	sp->text = stat(path, &sst) == 0 ? fileio_read_at(AT_FDCWD, path, NULL) : NULL;
	free(path);
	if (!sp->text)
		return false;
	sp->at = sst.st_mtim;
	for (char *line = sp->text; *line;) {
		char *nl = strchr(line, '\n');
		if (!nl)
			break;
		*nl = '\0';
		char *sp1 = line;
		for (int i = 0; i < 5 && sp1; i++)
			sp1 = strchr(sp1 + (i ? 1 : 0), ' ');
		if (sp1)
			strmap_put(&sp->map, sp1 + 1, line);
		line = nl + 1;
	}
	return true;
}

static void stamp_free(struct stamp *sp)
{
	strmap_free(&sp->map);
	free(sp->text);
}

/* Does the stamp vouch for st as it is, with an mtime older than the stamp
 * (git's racy rule: a write in the stamp's own tick could hide behind an
 * equal stat)? */
static bool stamp_vouches(const struct stamp *sp, const char *rel, const struct stat *st)
{
	const char *line = strmap_get(&sp->map, rel);
	long long size, sec;
	long nsec;
	unsigned long long ino;
	unsigned mode;
	if (!line || sscanf(line, "%lld %lld %ld %llu %o", &size, &sec, &nsec, &ino, &mode) != 5)
		return false;
	if (st->st_size != size || st->st_mtim.tv_sec != sec || st->st_mtim.tv_nsec != nsec ||
		st->st_ino != ino || st->st_mode != mode)
		return false;
	return sec < sp->at.tv_sec || (sec == sp->at.tv_sec && nsec < sp->at.tv_nsec);
}

/* Is the output already on disk exactly as the manifest has it? */
static bool output_matches(int projfd, const cJSON *f, const struct stat *st)
{
	const char *rel = jstr(f, "path"), *link = jstr(f, "link");
	if (link) {
		char target[4096];
		ssize_t n = S_ISLNK(st->st_mode) ? readlinkat(projfd, rel, target, sizeof(target) - 1) : -1;
		if (n < 0)
			return false;
		target[n] = '\0';
		return strcmp(target, link) == 0;
	}
	if (!S_ISREG(st->st_mode) || (st->st_mode & 07777) != (mode_t)jnum(f, "mode", -1) ||
		st->st_size != (off_t)jnum(f, "size", -1))
		return false;
	size_t n;
	char *data = fileio_read_at(projfd, rel, &n);
	char got[33];
	if (!data)
		return false;
	hash_hex(data, n, got);
	free(data);
	return strcmp(got, jstr(f, "hash")) == 0;
}

/* Open the directory that holds rel inside projfd, creating each part, never
 * following a symlink. Returns the fd and sets *base to rel's last part. */
static int open_parent(int projfd, const char *rel, const char **base)
{
	int fd = dup(projfd);
	const char *s = rel;
	for (;;) {
		const char *slash = strchr(s, '/');
		if (!slash) {
			*base = s;
			return fd;
		}
		char *part = xstrndup(s, (size_t)(slash - s));
		if (mkdirat(fd, part, 0777) != 0 && errno != EEXIST) {
			free(part);
			close(fd);
			return -1;
		}
		int next = openat(fd, part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		free(part);
		close(fd);
		if (next < 0)
			return -1;
		fd = next;
		s = slash + 1;
	}
}

/* The directory fd of the previous output, reused while outputs share it. */
struct parent {
	char *dir;
	int fd;
};

static int parent_fd(struct parent *pc, int projfd, const char *rel, const char **base)
{
	const char *slash = strrchr(rel, '/');
	size_t n = slash ? (size_t)(slash - rel) : 0;
	*base = slash ? slash + 1 : rel;
	if (pc->fd >= 0 && strlen(pc->dir) == n && strncmp(pc->dir, rel, n) == 0)
		return pc->fd;
	if (pc->fd >= 0)
		close(pc->fd);
	free(pc->dir);
	pc->dir = xstrndup(rel, n);
	pc->fd = open_parent(projfd, rel, base);
	return pc->fd;
}

/* Write one output. A file not there yet is created in place (O_EXCL): a
 * run killed midway leaves a file whose bytes do not match, which the next
 * restore rewrites; one that exists is replaced through a temporary name
 * and a rename, so it is never seen half-written. */
static int restore_one(const char *cachedir, int projfd, struct parent *pc, const cJSON *f,
	bool exists)
{
	const char *rel = jstr(f, "path"), *base;
	int dfd = parent_fd(pc, projfd, rel, &base);
	if (dfd < 0) {
		err_warn("refusing to restore '%s': a part of its path is not a directory of the "
			 "project (%s)", rel, strerror(errno));
		return -1;
	}
	char *tmp = exists ? xasprintf(".%s.vx-restore-%d-%u", base, (int)getpid(), tmp_counter++)
			   : NULL;
	const char *name = tmp ? tmp : base;
	int r = -1;
	bool created = false;
	const char *link = jstr(f, "link");
	if (link) {
		r = symlinkat(link, dfd, name);
		created = r == 0;
	} else {
		const char *hash = jstr(f, "hash");
		size_t size = (size_t)jnum(f, "size", 0);
		char *data = read_blob(cachedir, hash, size);
		if (!data) {
			err_warn("cache blob %s for '%s' is missing or corrupt: treated as a miss", hash, rel);
		} else {
			int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
			if (fd >= 0) {
				created = true;
				r = write_all(fd, data, size);
				if (r == 0)
					r = fchmod(fd, (mode_t)jnum(f, "mode", 0644));
				if (close(fd) != 0)
					r = -1;
			}
			free(data);
		}
	}
	if (r == 0 && tmp)
		r = renameat(dfd, tmp, dfd, base);
	if (r != 0 && created)
		unlinkat(dfd, name, 0); /* only what this restore made */
	free(tmp);
	return r;
}

int store_restore(const char *cachedir, const struct store_entry *e, const char *root,
	const char *projdir, char **log, size_t *loglen)
{
	const cJSON *m = e->manifest;
	const cJSON *files = cJSON_GetObjectItemCaseSensitive(m, "files");
	const cJSON *lg = cJSON_GetObjectItemCaseSensitive(m, "log");
	const char *key = jstr(m, "key");

	/* the log first: a hit whose log is gone is a miss */
	if (jstr(lg, "text")) {
		*log = xstrdup(jstr(lg, "text"));
		*loglen = strlen(*log);
	} else {
		*loglen = (size_t)jnum(lg, "size", 0);
		*log = read_blob(cachedir, jstr(lg, "hash"), *loglen);
		if (!*log)
			return -1;
	}
	int projfd = open(projdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (projfd < 0)
		goto miss;
	/* which outputs need writing: not those the stamp vouches for, nor
	 * those whose bytes already match */
	struct stamp sp;
	stamp_load(root, projdir, key, &sp);
	size_t n = (size_t)cJSON_GetArraySize(files), nneed = 0;
	const cJSON **need = xcalloc(n + 1, sizeof(*need));
	bool *exists = xcalloc(n + 1, sizeof(*exists));
	bool restamp = false;
	const cJSON *f;
	cJSON_ArrayForEach(f, files) {
		struct stat st;
		const char *rel = jstr(f, "path");
		bool there = fstatat(projfd, rel, &st, AT_SYMLINK_NOFOLLOW) == 0;
		if (there) {
			if (stamp_vouches(&sp, rel, &st))
				continue;
			restamp = true;
			if (output_matches(projfd, f, &st))
				continue;
		}
		restamp = true;
		exists[nneed] = there;
		need[nneed++] = f;
	}
	stamp_free(&sp);
	/* every blob needed must be there before anything is written */
	int r = 0;
	for (size_t i = 0; i < nneed && r == 0; i++) {
		const char *hash = jstr(need[i], "hash");
		struct stat st;
		char *p = hash ? blob_path(cachedir, hash) : NULL;
		if (p && (stat(p, &st) != 0 || st.st_size != (off_t)jnum(need[i], "size", -1)))
			r = -1;
		free(p);
	}
	struct parent pc = {NULL, -1};
	for (size_t i = 0; i < nneed && r == 0; i++)
		r = restore_one(cachedir, projfd, &pc, need[i], exists[i]);
	if (pc.fd >= 0)
		close(pc.fd);
	free(pc.dir);
	free(need);
	free(exists);
	close(projfd);
	if (r != 0)
		goto miss;
	if (restamp)
		write_stamp(root, projdir, key, files);
	return 0;
miss:
	free(*log);
	*log = NULL;
	return -1;
}

struct collect {
	const char *cachedir, *projdir;
	cJSON *files;
	int err;
};

static int collect_one(const char *rel, const struct stat *st, void *arg)
{
	struct collect *c = arg;
	cJSON *f = cJSON_CreateObject();
	cJSON_AddStringToObject(f, "path", rel);
	cJSON_AddNumberToObject(f, "mode", st->st_mode & 07777);
	char *abs = path_join(c->projdir, rel);
	if (S_ISLNK(st->st_mode)) {
		char target[4096];
		ssize_t n = readlink(abs, target, sizeof(target) - 1);
		if (n < 0) {
			c->err = errno;
		} else {
			target[n] = '\0';
			cJSON_AddStringToObject(f, "link", target);
		}
	} else {
		size_t len;
		char *data = fileio_read_at(AT_FDCWD, abs, &len);
		char hash[33];
		if (!data || put_blob(c->cachedir, data, len, hash) != 0) {
			c->err = errno ? errno : EIO;
		} else {
			cJSON_AddNumberToObject(f, "size", (double)len);
			cJSON_AddStringToObject(f, "hash", hash);
		}
		free(data);
	}
	free(abs);
	cJSON_AddItemToArray(c->files, f);
	return c->err ? 1 : 0;
}

int store_save(const char *cachedir, const char *key, const char *root, const char *projdir,
	const char *const *globs, size_t nglobs, const char *log, size_t loglen, long ms)
{
	if (!hash_is_hex(key))
		return -1;
	cJSON *m = cJSON_CreateObject();
	cJSON_AddNumberToObject(m, "v", MANIFEST_VERSION);
	cJSON_AddStringToObject(m, "key", key);
	struct collect c = {cachedir, projdir, cJSON_AddArrayToObject(m, "files"), 0};
	struct walk_opts o = {.globs = globs, .nglobs = nglobs, .arg = &c};
	int r = nglobs ? walk_tree(projdir, &o, collect_one) : 0;
	cJSON *lg = cJSON_AddObjectToObject(m, "log");
	if (r == 0 && !c.err) {
		if (loglen < INLINE_LOG_MAX && !memchr(log ? log : "", '\0', loglen)) {
			cJSON_AddStringToObject(lg, "text", log ? log : "");
		} else {
			char hash[33];
			if (put_blob(cachedir, log, loglen, hash) != 0)
				c.err = errno ? errno : EIO;
			cJSON_AddStringToObject(lg, "hash", hash);
			cJSON_AddNumberToObject(lg, "size", (double)loglen);
		}
	}
	cJSON_AddNumberToObject(m, "exit", 0);
	cJSON_AddNumberToObject(m, "ms", (double)ms);
	char created[32];
	time_t now = time(NULL);
	strftime(created, sizeof(created), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	cJSON_AddStringToObject(m, "created", created);
	if (r != 0 || c.err) {
		errno = c.err;
		cJSON_Delete(m);
		return -1;
	}
	char *text = cJSON_PrintUnformatted(m);
	char *acdir = xasprintf("%s/ac", cachedir);
	char *path = xasprintf("%s/%s.json", acdir, key);
	r = mkdirs(acdir);
	if (r == 0)
		r = write_file_atomic(path, text, strlen(text), true);
	if (r == 0) {
		int dfd = open(acdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (dfd >= 0) {
			fsync(dfd);
			close(dfd);
		}
		write_stamp(root, projdir, key, cJSON_GetObjectItemCaseSensitive(m, "files"));
	}
	cJSON_free(text);
	free(acdir);
	free(path);
	cJSON_Delete(m);
	return r;
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(p) == 0 || errno == ENOENT ? 0 : -1;
}

int store_clean(const char *cachedir)
{
	char *aside = tmp_name(cachedir);
	int r = 0;
	if (rename(cachedir, aside) != 0) {
		r = errno == ENOENT ? 0 : -1;
	} else {
		r = nftw(aside, rm_one, 32, FTW_DEPTH | FTW_PHYS);
	}
	free(aside);
	return r;
}
