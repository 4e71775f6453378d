#include "inputstamp.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "hash.h"
#include "path.h"
#include "statsnap.h"
#include "wsroot.h"

void inputstamp_begin(struct inputstamp *s, const char *dir, int64_t since)
{
	inputstamp_free(s);
	s->paths = cJSON_CreateArray();
	s->dir = xstrdup(strcmp(dir, ".") == 0 ? "" : dir);
	s->since = since;
}

/* path's bytes in the signature: the path, a NUL, then 0 or 1 and its snap */
static void put(struct strbuf *sig, const char *path, const struct stat *st)
{
	strbuf_add(sig, path, strlen(path) + 1);
	char present = st != NULL;
	strbuf_add(sig, &present, 1);
	if (!st)
		return;
	struct statsnap snap;
	statsnap_take(&snap, st);
	strbuf_add(sig, (const char *)&snap, sizeof(snap));
}

static void note(struct inputstamp *s, const struct stat *st)
{
	/* changed in the tick the keying began: a later write in that tick
	 * could leave every field as it is */
	if (st && (statsnap_ns(st->st_mtim) >= s->since || statsnap_ns(st->st_ctim) >= s->since))
		s->racy = true;
}

void inputstamp_add(struct inputstamp *s, const char *path, const struct stat *st)
{
	if (!s->paths)
		return;
	size_t dl = strlen(s->dir);
	const char *out;
	char *own = NULL;
	if (strcmp(path, "/") == 0)
		out = dl ? "/" : "./";
	else if (!dl)
		out = path;
	else if (strncmp(path, s->dir, dl) == 0 && path[dl] == '/')
		out = path[dl + 1] ? path + dl + 1 : "./";
	else
		out = own = xasprintf("/%s", path);
	cJSON_AddItemToArray(s->paths, cJSON_CreateString(out));
	put(&s->sig, out, st);
	note(s, st);
	free(own);
}

void inputstamp_lockfiles(struct inputstamp *s, const struct stat *const *sts)
{
	if (!s->paths)
		return;
	for (size_t i = 0; i < WSROOT_NFINGERPRINT; i++) {
		put(&s->sig, wsroot_fingerprint[i], sts[i]);
		note(s, sts[i]);
	}
}

cJSON *inputstamp_take(struct inputstamp *s)
{
	cJSON *out;
	if (!s->paths || s->racy) {
		out = cJSON_CreateNull();
	} else {
		char hex[HASH_HEX_LEN + 1];
		hash_hex(s->sig.buf ? s->sig.buf : "", s->sig.len, hex);
		out = cJSON_CreateObject();
		cJSON_AddStringToObject(out, "sig", hex);
		cJSON_AddItemToObject(out, "paths", s->paths);
		s->paths = NULL;
	}
	inputstamp_free(s);
	return out;
}

void inputstamp_free(struct inputstamp *s)
{
	cJSON_Delete(s->paths);
	strbuf_release(&s->sig);
	free(s->dir);
	memset(s, 0, sizeof(*s));
}

/* The lstat of a stamp's path: 0 (*here says whether it exists), or -1
 * when it cannot be told (not the stat it had). */
static int look(int rootfd, int dirfd, const char *path, struct stat *st, bool *here)
{
	int fd = dirfd;
	if (path[0] == '/') {
		fd = rootfd;
		path++;
	}
	size_t n = strlen(path);
	char *name = !n || strcmp(path, "./") == 0 ? xstrdup(".")
		   : xstrndup(path, path[n - 1] == '/' ? n - 1 : n);
	int e = fstatat(fd, name, st, AT_SYMLINK_NOFOLLOW) == 0 ? 0 : errno;
	free(name);
	*here = !e;
	return !e || e == ENOENT || e == ENOTDIR ? 0 : -1;
}

int inputstamp_check(const char *root, const char *dir, const cJSON *stamp)
{
	const char *want = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(stamp, "sig"));
	const cJSON *paths = cJSON_GetObjectItemCaseSensitive(stamp, "paths");
	if (!want || !hash_is_hex(want) || !cJSON_IsArray(paths) || !dir)
		return -1;
	char *proj = path_join(root, dir);
	int rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	int dirfd = open(proj, O_PATH | O_DIRECTORY | O_CLOEXEC);
	free(proj);
	struct strbuf sig = {0};
	int r = rootfd >= 0 && dirfd >= 0 ? 1 : 0;
	const cJSON *p;
	struct stat st;
	bool here;
	cJSON_ArrayForEach(p, paths) {
		const char *path = cJSON_GetStringValue(p);
		if (r != 1)
			break;
		if (!path || !*path) {
			r = -1;
			break;
		}
		if (look(rootfd, dirfd, path, &st, &here) != 0)
			r = 0; /* unreadable now: not the stat it had */
		else
			put(&sig, path, here ? &st : NULL);
	}
	for (size_t i = 0; r == 1 && i < WSROOT_NFINGERPRINT; i++) {
		if (look(rootfd, rootfd, wsroot_fingerprint[i], &st, &here) != 0)
			r = 0;
		else
			put(&sig, wsroot_fingerprint[i], here ? &st : NULL);
	}
	if (rootfd >= 0)
		close(rootfd);
	if (dirfd >= 0)
		close(dirfd);
	if (r == 1) {
		char hex[HASH_HEX_LEN + 1];
		hash_hex(sig.buf ? sig.buf : "", sig.len, hex);
		r = strcmp(hex, want) == 0;
	}
	strbuf_release(&sig);
	return r;
}
