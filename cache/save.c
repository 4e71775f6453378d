/* save.c: saving a successful run.
 *
 * Order is what makes a save atomic: every blob is written under tmp/ and
 * renamed into cas/; only then is the manifest written under tmp/, fsynced,
 * renamed to ac/<key>.json and ac/ fsynced. A save killed at any point leaves
 * at most blobs nothing names and temporaries no lookup reads; a later save
 * removes the stale ones. Blobs are not fsynced one by one (that was ~33 ms a
 * task here, most of a first build): a restore checks every blob's hash, so
 * one a crash lost or zeroed makes its entry a miss, never a bad restore.
 *
 * What an entry may hold is what a restore can write back as the run left
 * it, inside the project: regular files (never with setuid, setgid or sticky
 * bits: those are stripped from the output itself too) and relative symlinks
 * that stay in the project. A fifo, a socket, a device node or a symlink out
 * of the project refuses the save. A hard link is saved as its bytes.
 */
#include "cache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cache_int.h"
#include "path.h"
#include "err.h"
#include "fileio.h"
#include "hash.h"
#include "shadow.h"
#include "walk.h"

/* outputs up to this size are hashed in memory before the cache is touched,
 * so a blob already there costs no write */
#define SAVE_MEM_MAX (4u << 20)

struct saver {
	struct cache *c;
	const char *label; /* cache_save's */
	unsigned long long total; /* the regular outputs' bytes so far */
	const char *projdir;
	int projfd;
	int shadowfd; /* the project's shadow (shadow.h), or -1 */
	cJSON *files;
};

static void say(const struct saver *sv, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A warning about the save, naming the task when the caller did. */
static void say(const struct saver *sv, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (sv->label)
		err_warn("%s: %s", sv->label, msg);
	else
		err_warn("%s", msg);
}

/* Remove the temporaries of saves killed long ago (a live one keeps its
 * file's mtime fresh). */
static void sweep_stale(struct cache *c)
{
	if (c->swept)
		return;
	c->swept = true;
	char *dir = xasprintf("%s/tmp", c->dir);
	DIR *d = opendir(dir);
	free(dir);
	if (!d)
		return;
	time_t old = time(NULL) - CACHE_STALE_SECONDS;
	struct dirent *de;
	while ((de = readdir(d))) {
		struct stat st;
		if (de->d_name[0] != '.' && fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			S_ISREG(st.st_mode) && st.st_mtime < old)
			unlinkat(dirfd(d), de->d_name, 0);
	}
	closedir(d);
}

static int fsync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	int r = fsync(fd);
	close(fd);
	return r;
}

/* Is the blob at path there with n bytes? A blob reused is dated now, so
 * that a prune under way keeps it for the manifest about to name it
 * (prune.c). */
static bool blob_have(const char *path, size_t n)
{
	struct stat st;
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size != n)
		return false;
	utimensat(AT_FDCWD, path, NULL, 0); /* failing, only a prune may take it */
	return true;
}

/* Move a whole temporary blob into cas/ under hash, or drop it when that
 * blob is already there. tmpfd is closed. */
static int blob_commit(struct saver *sv, int tmpfd, char *tmp, const char *hash, size_t n)
{
	char *path = cache_blob_path(sv->c, hash);
	int r = 0;
	if (blob_have(path, n)) {
		close(tmpfd);
		unlink(tmp);
	} else {
		if (close(tmpfd) != 0)
			r = -1;
		if (r == 0 && rename(tmp, path) != 0) {
			char *dir = xstrndup(path, (size_t)(strrchr(path, '/') - path));
			r = errno == ENOENT && path_mkdirs(dir) == 0 ? rename(tmp, path) : -1;
			free(dir);
		}
		if (r != 0) {
			err_warn_errno("unable to write cache blob '%s'", path);
			unlink(tmp);
		} else {
			sv->c->added += n; /* the ledger's (prune.c) */
		}
	}
	free(tmp);
	free(path);
	return r;
}

static int tmp_open(struct saver *sv, char **tmp)
{
	int fd = cache_tmp_open(sv->c, tmp);
	if (fd < 0)
		err_warn_errno("unable to create a temporary file in '%s/tmp'", sv->c->dir);
	return fd;
}

/* Store the bytes of fd as a blob; hash gets its name, *n its size. More
 * than limit bytes fail it: the file grew since its stat. */
static int blob_put_fd(struct saver *sv, int fd, const char *rel, unsigned long long limit,
	char hash[33], size_t *n)
{
	XXH3_state_t *st = XXH3_createState();
	XXH3_128bits_reset(st);
	size_t cap = 65536, len = 0;
	char *buf = xmalloc(cap);
	char *tmp = NULL;
	int tfd = -1, r = 0;
	*n = 0;
	for (;;) {
		if (len == cap && tfd < 0 && cap < SAVE_MEM_MAX) {
			cap *= 2;
			buf = xrealloc(buf, cap);
		} else if (len == cap) { /* too big to hold: stream it through tmp/ */
			if (tfd < 0 && (tfd = tmp_open(sv, &tmp)) < 0) {
				r = -1;
				break;
			}
			if (fileio_write_all(tfd, buf, len) != 0) {
				err_warn_errno("unable to write '%s'", tmp);
				r = -1;
				break;
			}
			len = 0;
		}
		ssize_t got = read(fd, buf + len, cap - len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			err_warn_errno("unable to read '%s'", rel);
			r = -1;
			break;
		}
		if (got == 0)
			break;
		XXH3_128bits_update(st, buf + len, (size_t)got);
		len += (size_t)got;
		*n += (size_t)got;
		if (*n > limit) {
			say(sv, "not saved to the cache: '%s' grew over the size limit while it was read",
				rel);
			r = -1;
			break;
		}
	}
	cache_hex128(XXH3_128bits_digest(st), hash);
	XXH3_freeState(st);
	if (r == 0 && tfd < 0) {
		/* held in memory: a blob already there costs nothing more */
		char *path = cache_blob_path(sv->c, hash);
		bool have = blob_have(path, *n);
		free(path);
		if (have) {
			free(buf);
			return 0;
		}
		if ((tfd = tmp_open(sv, &tmp)) < 0)
			r = -1;
	}
	if (r == 0 && len && fileio_write_all(tfd, buf, len) != 0) {
		err_warn_errno("unable to write '%s'", tmp);
		r = -1;
	}
	free(buf);
	if (r == 0)
		return blob_commit(sv, tfd, tmp, hash, *n);
	if (tfd >= 0) {
		close(tfd);
		unlink(tmp);
	}
	free(tmp);
	return -1;
}

static int blob_put_mem(struct saver *sv, const char *data, size_t len, char hash[33])
{
	cache_hex128(XXH3_128bits(data, len), hash);
	char *path = cache_blob_path(sv->c, hash);
	bool have = blob_have(path, len);
	free(path);
	if (have)
		return 0;
	char *tmp;
	int fd = tmp_open(sv, &tmp);
	if (fd < 0)
		return -1;
	if (fileio_write_all(fd, data, len) != 0) {
		err_warn_errno("unable to write '%s'", tmp);
		close(fd);
		unlink(tmp);
		free(tmp);
		return -1;
	}
	return blob_commit(sv, fd, tmp, hash, len);
}

/* A task may leave a setuid (or setgid, or sticky) file among its
 * outputs: under a root-run vx, a setuid-root binary. The entry never
 * records those bits, and the output itself loses them, so that it is what
 * a hit would write. 0 (st updated), or -1 after a message. */
static int strip_bits(const struct saver *sv, int fd, const char *rel, struct stat *st)
{
	mode_t was = st->st_mode & 07777;
	if (fchmod(fd, was & 0777) != 0 || fstat(fd, st) != 0) {
		say(sv, "refusing to save '%s': unable to remove its setuid, setgid and sticky bits "
			"(mode %o): %s", rel, was, strerror(errno));
		return -1;
	}
	say(sv, "stripped the setuid, setgid and sticky bits of '%s' (%o -> %o)", rel, was, was & 0777);
	return 0;
}

/* The most bytes the next output may hold under both limits. */
static unsigned long long room(const struct saver *sv)
{
	unsigned long long out = sv->c->max_output ? sv->c->max_output : ULLONG_MAX, left = ULLONG_MAX;
	if (sv->c->max_entry)
		left = sv->total < sv->c->max_entry ? sv->c->max_entry - sv->total : 0;
	return out < left ? out : left;
}

static int collect_one(const char *rel, const struct stat *lst, void *arg)
{
	struct saver *sv = arg;
	const char *slash = strrchr(rel, '/'), *base = slash ? slash + 1 : rel;
	/* a restore's leftover, or a path no restore would write back */
	if (strncmp(base, CACHE_RESTORE_TMP, strlen(CACHE_RESTORE_TMP)) == 0 || !cache_path_ok(rel))
		return 0;
	char *dir = xstrndup(rel, slash ? (size_t)(slash - rel) : 0);
	int dfd = cache_open_beneath(sv->c, sv->projfd, dir, false);
	free(dir);
	if (dfd < 0) {
		err_warn_errno("unable to open the directory of '%s'", rel);
		return 1;
	}
	cJSON *f = cJSON_CreateObject();
	cJSON_AddStringToObject(f, "path", rel);
	int r = 0;
	if (S_ISLNK(lst->st_mode)) {
		char target[4097];
		ssize_t n = readlinkat(dfd, base, target, sizeof(target) - 1);
		if (n >= 0)
			target[n] = '\0';
		if (n < 0) {
			err_warn_errno("unable to read the symlink '%s'", rel);
			r = 1;
		} else if (cache_link_why(rel, target)) {
			say(sv, "refusing to save '%s': %s ('%s') would tie the entry to what lies "
				"outside it", rel, cache_link_why(rel, target), target);
			r = 1;
		} else {
			cJSON_AddNumberToObject(f, "mode", lst->st_mode);
			cJSON_AddStringToObject(f, "link", target);
		}
	} else if (!S_ISREG(lst->st_mode)) {
		say(sv, "refusing to save '%s': a %s; the cache holds regular files and symlinks only",
			rel, S_ISFIFO(lst->st_mode) ? "fifo" : S_ISSOCK(lst->st_mode) ? "socket"
				: S_ISCHR(lst->st_mode) ? "character device" : S_ISBLK(lst->st_mode)
				? "block device" : "special file");
		r = 1;
	} else if (sv->c->max_output && (unsigned long long)lst->st_size > sv->c->max_output) {
		say(sv, "not saved to the cache: '%s' is %lld bytes, over the limit of %llu per output "
			"(VX_CACHE_MAX_OUTPUT_SIZE)", rel, (long long)lst->st_size, sv->c->max_output);
		r = 1;
	} else if (sv->c->max_entry && sv->total + (unsigned long long)lst->st_size > sv->c->max_entry) {
		say(sv, "not saved to the cache: '%s' brings the entry's outputs to %llu bytes, over the "
			"limit of %llu per entry (VX_CACHE_MAX_ENTRY_SIZE)", rel,
			sv->total + (unsigned long long)lst->st_size, sv->c->max_entry);
		r = 1;
	} else {
		/* the shadow's name for it, before the stat the stamp keeps (a
		 * link moves the ctime); its bytes are hashed before any use */
		if (sv->shadowfd >= 0 && S_ISREG(lst->st_mode) && lst->st_nlink == 1) {
			char sname[SHADOW_NAME_LEN + 1];
			shadow_name(rel, sname);
			shadow_put(sv->shadowfd, sname, dfd, base);
		}
		struct stat before, after;
		/* O_NONBLOCK: a fifo swapped in since the walk's lstat must not hang the
		 * open (the fstat below refuses it) */
		int fd = openat(dfd, base, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		char hash[33];
		size_t n;
		if (fd < 0 || fstat(fd, &before) != 0) {
			err_warn_errno("unable to open '%s'", rel);
			r = 1;
		} else if (!S_ISREG(before.st_mode)) {
			err_warn("refusing to save '%s': it stopped being a regular file", rel);
			r = 1;
		} else if ((before.st_mode & 07000) && strip_bits(sv, fd, rel, &before) != 0) {
			r = 1;
		} else if (blob_put_fd(sv, fd, rel, room(sv), hash, &n) != 0) {
			r = 1;
		} else {
			sv->total += n;
			cJSON_AddNumberToObject(f, "mode", before.st_mode & 0777);
			cJSON_AddNumberToObject(f, "size", (double)n);
			cJSON_AddStringToObject(f, "hash", hash);
			/* stamp only what did not move while it was read */
			if (fstat(fd, &after) == 0 && after.st_size == (off_t)n &&
				after.st_mtim.tv_sec == before.st_mtim.tv_sec &&
				after.st_mtim.tv_nsec == before.st_mtim.tv_nsec)
				cache_stamp_set(sv->c, sv->projdir, rel, &after, hash);
		}
		if (fd >= 0)
			close(fd);
	}
	close(dfd);
	cJSON_AddItemToArray(sv->files, f);
	return r;
}

int cache_manifest_write(struct cache *c, const char *key, const cJSON *m, bool durable)
{
	char *text = cJSON_PrintUnformatted(m), *tmp;
	size_t len = strlen(text);
	text[len] = '\n'; /* one line, as every vx record; the NUL is not needed */
	int fd = cache_tmp_open(c, &tmp), r = -1;
	if (fd < 0)
		err_warn_errno("unable to create a temporary file in '%s/tmp'", c->dir);
	char *acdir = xasprintf("%s/ac", c->dir);
	char *path = xasprintf("%s/%s.json", acdir, key);
	if (fd >= 0) {
		r = fileio_write_all(fd, text, len + 1) == 0 && (!durable || fsync(fd) == 0) ? 0 : -1;
		if (close(fd) != 0)
			r = -1;
		if (r == 0)
			r = rename(tmp, path);
		if (r == 0)
			c->added += len + 1; /* the ledger's (prune.c) */
		if (r == 0 && durable)
			r = fsync_dir(acdir);
		if (r != 0) {
			err_warn_errno("unable to write the cache manifest '%s'", path);
			unlink(tmp);
		}
		free(tmp);
	}
	cJSON_free(text);
	free(acdir);
	free(path);
	return r;
}

int cache_dirs_make(struct cache *c)
{
	const char *sub[] = {"ac", "cas", "tmp"};
	for (size_t i = 0; i < sizeof(sub) / sizeof(*sub); i++) {
		char *d = xasprintf("%s/%s", c->dir, sub[i]);
		int r = path_mkdirs(d);
		if (r != 0)
			err_warn_errno("unable to create '%s'", d);
		free(d);
		if (r != 0)
			return -1;
	}
	cache_forget_dirs(c); /* lookups see the directories just made */
	return 0;
}

int cache_save(struct cache *c, const struct cache_save *s)
{
	if (s->exit != 0) {
		err_warn("refusing to save a failed run (exit %d)", s->exit);
		return -1;
	}
	if (!hash_is_hex(s->key)) {
		err_warn("refusing to save under '%s': not a key", s->key);
		return -1;
	}
	if (cache_dirs_make(c) != 0)
		return -1;
	sweep_stale(c);
	struct saver sv = {.c = c, .label = s->label, .projdir = s->projdir};
	sv.projfd = open(s->projdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (sv.projfd < 0) {
		err_warn_errno("unable to open '%s'", s->projdir);
		return -1;
	}
	sv.shadowfd = cache_shadow_proj(c, s->projdir);
	cJSON *m = cJSON_CreateObject();
	cJSON_AddNumberToObject(m, "v", CACHE_MANIFEST_VERSION);
	cJSON_AddStringToObject(m, "key", s->key);
	sv.files = cJSON_AddArrayToObject(m, "files");
	struct walk_opts o = {.globs = s->globs, .nglobs = s->nglobs, .specials = true, .arg = &sv};
	int r = s->nglobs ? walk_tree(s->projdir, &o, collect_one) : 0;
	if (r < 0)
		err_warn_errno("unable to walk '%s'", s->projdir);
	char loghash[33];
	if (r == 0)
		r = blob_put_mem(&sv, s->log ? s->log : "", s->loglen, loghash);
	if (r == 0) {
		cJSON *log = cJSON_AddObjectToObject(m, "log");
		cJSON_AddStringToObject(log, "hash", loghash);
		cJSON_AddNumberToObject(log, "size", (double)s->loglen);
		cJSON_AddNumberToObject(m, "exit", 0);
		cJSON_AddNumberToObject(m, "ms", s->ms > 0 ? round(s->ms) : 0);
		char created[32];
		time_t now = time(NULL);
		struct tm tm;
		strftime(created, sizeof(created), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
		cJSON_AddStringToObject(m, "created", created);
		r = cache_manifest_write(c, s->key, m, true);
	}
	cJSON_Delete(m);
	close(sv.projfd);
	if (sv.shadowfd >= 0)
		close(sv.shadowfd);
	return r ? -1 : 0;
}

int cache_save_task(struct cache *c, const char *root, const char *dir, const cJSON *rec,
	const char *key,
	const char *log, size_t loglen, double ms)
{
	const cJSON *outs = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(rec, "cache"), "outputs"),
		"files");
	size_t n = 0;
	const char **globs = xcalloc((size_t)cJSON_GetArraySize(outs) + 1, sizeof(char *));
	const cJSON *g;
	cJSON_ArrayForEach(g, outs) if (cJSON_IsString(g)) globs[n++] = g->valuestring;
	char *proj = path_join(root, dir);
	struct cache_save s = {.label = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(rec, "id")),
		.key = key, .projdir = proj, .globs = globs, .nglobs = n,
		.log = log ? log : "", .loglen = loglen, .ms = ms};
	int r = cache_save(c, &s);
	free(proj);
	free(globs);
	return r;
}
