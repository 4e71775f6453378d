#include "inputstamp.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hash.h"
#include "statsnap.h"

void inputstamp_begin(struct inputstamp *s, int64_t since)
{
	inputstamp_free(s);
	s->paths = cJSON_CreateArray();
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

void inputstamp_add(struct inputstamp *s, const char *path, const struct stat *st)
{
	if (!s->paths)
		return;
	cJSON_AddItemToArray(s->paths, cJSON_CreateString(path));
	put(&s->sig, path, st);
	/* changed in the tick the keying began: a later write in that tick
	 * could leave every field as it is */
	if (st && (statsnap_ns(st->st_mtim) >= s->since || statsnap_ns(st->st_ctim) >= s->since))
		s->racy = true;
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
	memset(s, 0, sizeof(*s));
}

int inputstamp_check(const char *root, const cJSON *stamp)
{
	const char *want = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(stamp, "sig"));
	const cJSON *paths = cJSON_GetObjectItemCaseSensitive(stamp, "paths");
	if (!want || !hash_is_hex(want) || !cJSON_IsArray(paths))
		return -1;
	int dfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -1;
	struct strbuf sig = {0};
	int r = 1;
	const cJSON *p;
	cJSON_ArrayForEach(p, paths) {
		const char *path = cJSON_GetStringValue(p);
		size_t n = path ? strlen(path) : 0;
		if (!n || (path[0] == '/' && n > 1)) {
			r = -1;
			break;
		}
		struct stat st;
		/* a directory's "dir/" is stat'ed as "dir", the root's "/" as "." */
		char *name = n == 1 && path[0] == '/' ? strdup(".")
			   : strndup(path, path[n - 1] == '/' ? n - 1 : n);
		int e = fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 ? 0 : errno;
		free(name);
		if (e && e != ENOENT && e != ENOTDIR) {
			r = 0; /* unreadable now: not the stat it had */
			break;
		}
		put(&sig, path, e ? NULL : &st);
	}
	close(dfd);
	if (r == 1) {
		char hex[HASH_HEX_LEN + 1];
		hash_hex(sig.buf ? sig.buf : "", sig.len, hex);
		r = strcmp(hex, want) == 0;
	}
	strbuf_release(&sig);
	return r;
}
