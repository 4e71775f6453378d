/* digest.c: a learning run's outputs, hashed and compared (digest.h). */
#include "digest.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "fileio.h"
#include "hash.h"
#include "path.h"

/* "link:TARGET", the content hash, or NULL when path is neither a regular
 * file nor a symlink (a whiteout, a directory). */
static char *file_hash(const char *path)
{
	struct stat st;
	char h[HASH_HEX_LEN + 1];
	if (lstat(path, &st) != 0)
		return NULL;
	if (S_ISLNK(st.st_mode)) {
		char buf[PATH_MAX];
		ssize_t n = readlink(path, buf, sizeof(buf) - 1);
		if (n < 0)
			return NULL;
		buf[n] = '\0';
		return xasprintf("link:%s", buf);
	}
	if (!S_ISREG(st.st_mode))
		return NULL;
	size_t len = 0;
	char *data = fileio_read_at(AT_FDCWD, path, &len);
	if (!data)
		return NULL;
	hash_hex(data, len, h);
	free(data);
	return xstrdup(h);
}

static void walk(const char *dir, const char *rel, cJSON *out)
{
	struct stat st;
	if (lstat(dir, &st) != 0)
		return;
	if (!S_ISDIR(st.st_mode)) {
		char *h = file_hash(dir);
		if (h)
			cJSON_AddStringToObject(out, rel, h);
		free(h);
		return;
	}
	DIR *d = opendir(dir);
	struct dirent *e;
	if (!d)
		return;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		char *p = path_join(dir, e->d_name), *r = path_join(rel, e->d_name);
		walk(p, r, out);
		free(p);
		free(r);
	}
	closedir(d);
}

cJSON *digest_layer(const char *upper, const char *root, const char *proj, const cJSON *writes)
{
	cJSON *out = cJSON_CreateObject();
	char *prel = path_relative(root, proj);
	char *base = strcmp(prel, ".") ? path_join(upper, prel) : xstrdup(upper);
	const cJSON *w;
	cJSON_ArrayForEach(w, writes) {
		char *g = xstrdup(w->valuestring);
		size_t n = strlen(g);
		if (n && g[n - 1] == '/')
			g[n - 1] = '\0';
		char *p = path_join(base, g);
		walk(p, g, out);
		free(p);
		free(g);
	}
	free(base);
	free(prel);
	return out;
}

cJSON *digest_differ(const cJSON *d, const char *proj)
{
	cJSON *bad = cJSON_CreateArray();
	const cJSON *e;
	cJSON_ArrayForEach(e, d) {
		char *p = path_join(proj, e->string), *h = file_hash(p);
		if (!h || strcmp(h, e->valuestring) != 0)
			cJSON_AddItemToArray(bad, cJSON_CreateString(e->string));
		free(h);
		free(p);
	}
	return bad;
}

void digest_rm(const char *path)
{
	struct stat st;
	if (lstat(path, &st) != 0)
		return;
	if (S_ISDIR(st.st_mode)) {
		chmod(path, 0700);
		DIR *d = opendir(path);
		struct dirent *e;
		while (d && (e = readdir(d))) {
			if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
				continue;
			char *p = path_join(path, e->d_name);
			digest_rm(p);
			free(p);
		}
		if (d)
			closedir(d);
		rmdir(path);
	} else {
		unlink(path);
	}
}
