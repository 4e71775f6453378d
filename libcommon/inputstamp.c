#include "inputstamp.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define XXH_STATIC_LINKING_ONLY /* XXH3_state_t */
#include <xxhash.h>

#include "err.h"
#include "hash.h"
#include "path.h"
#include "statsnap.h"
#include "wsroot.h"

/* the record's text, the signature's place kept: it is known at the end */
#define STAMP_HEAD "{\"sig\":\"" "0123456789abcdef0123456789abcdef" "\",\"paths\":["
#define SIG_AT 8

void inputstamp_begin(struct inputstamp *s, const char *dir, int64_t since)
{
	if (!s->sig)
		s->sig = XXH3_createState();
	XXH3_128bits_reset(s->sig);
	strbuf_reset(&s->paths);
	strbuf_addstr(&s->paths, STAMP_HEAD);
	s->n = 0;
	strbuf_reset(&s->dir);
	if (strcmp(dir, ".") != 0)
		strbuf_addstr(&s->dir, dir);
	s->since = since;
	s->on = true;
	s->racy = false;
}

/* path's bytes in the signature: the path, a NUL, then 0 or 1 and its snap */
static void put(XXH3_state_t *sig, const char *path, const struct stat *st)
{
	/* one update a path: the bytes side by side */
	char buf[256 + 1 + sizeof(struct statsnap)];
	size_t n = strlen(path) + 1, at = 0;
	if (n > 256) {
		XXH3_128bits_update(sig, path, n);
	} else {
		memcpy(buf, path, n);
		at = n;
	}
	buf[at++] = st != NULL;
	if (st) {
		struct statsnap snap;
		statsnap_take(&snap, st);
		memcpy(buf + at, &snap, sizeof(snap));
		at += sizeof(snap);
	}
	XXH3_128bits_update(sig, buf, at);
}

static void sig_hex(XXH3_state_t *sig, char out[HASH_HEX_LEN + 1])
{
	static const char hx[] = "0123456789abcdef";
	XXH128_canonical_t c;
	XXH128_canonicalFromHash(&c, XXH3_128bits_digest(sig));
	for (int i = 0; i < 16; i++) {
		out[2 * i] = hx[c.digest[i] >> 4];
		out[2 * i + 1] = hx[c.digest[i] & 15];
	}
	out[HASH_HEX_LEN] = '\0';
}

static void note(struct inputstamp *s, const struct stat *st)
{
	/* changed in the tick the keying began: a later write in that tick
	 * could leave every field as it is */
	if (st && (statsnap_ns(st->st_mtim) >= s->since || statsnap_ns(st->st_ctim) >= s->since))
		s->racy = true;
}

/* path as a JSON string: as it is, unless it holds a byte JSON escapes */
static void add_json_str(struct strbuf *b, const char *path)
{
	const unsigned char *p = (const unsigned char *)path;
	while (*p >= 0x20 && *p != '"' && *p != '\\')
		p++;
	if (!*p) {
		strbuf_addch(b, '"');
		strbuf_add(b, path, (size_t)((const char *)p - path));
		strbuf_addch(b, '"');
		return;
	}
	cJSON *j = cJSON_CreateStringReference(path);
	char *q = cJSON_PrintUnformatted(j);
	strbuf_addstr(b, q);
	cJSON_free(q);
	cJSON_Delete(j);
}

void inputstamp_add(struct inputstamp *s, const char *path, const struct stat *st)
{
	if (!s->on)
		return;
	size_t dl = s->dir.len;
	const char *out;
	char *own = NULL;
	if (strcmp(path, "/") == 0)
		out = dl ? "/" : "./";
	else if (!dl)
		out = path;
	else if (strncmp(path, s->dir.buf, dl) == 0 && path[dl] == '/')
		out = path[dl + 1] ? path + dl + 1 : "./";
	else
		out = own = xasprintf("/%s", path);
	if (s->n++)
		strbuf_addch(&s->paths, ',');
	add_json_str(&s->paths, out);
	put(s->sig, out, st);
	note(s, st);
	free(own);
}

void inputstamp_lockfiles(struct inputstamp *s, const struct stat *const *sts)
{
	if (!s->on)
		return;
	for (size_t i = 0; i < WSROOT_NFINGERPRINT; i++) {
		put(s->sig, wsroot_fingerprint[i], sts[i]);
		note(s, sts[i]);
	}
}

cJSON *inputstamp_take(struct inputstamp *s)
{
	cJSON *out;
	if (!s->on || s->racy) {
		out = cJSON_CreateNull();
	} else {
		char hex[HASH_HEX_LEN + 1];
		sig_hex(s->sig, hex);
		memcpy(s->paths.buf + SIG_AT, hex, HASH_HEX_LEN);
		strbuf_addstr(&s->paths, "]}");
		out = cJSON_CreateRaw(s->paths.buf);
	}
	s->on = false;
	return out;
}

void inputstamp_free(struct inputstamp *s)
{
	if (s->sig)
		XXH3_freeState(s->sig);
	strbuf_release(&s->paths);
	strbuf_release(&s->dir);
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
	if (cJSON_IsRaw(stamp)) { /* inputstamp_take's own, not parsed yet */
		cJSON *parsed = cJSON_Parse(stamp->valuestring);
		int r = parsed ? inputstamp_check(root, dir, parsed) : -1;
		cJSON_Delete(parsed);
		return r;
	}
	const char *want = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(stamp, "sig"));
	const cJSON *paths = cJSON_GetObjectItemCaseSensitive(stamp, "paths");
	if (!want || !hash_is_hex(want) || !cJSON_IsArray(paths) || !dir)
		return -1;
	char *proj = path_join(root, dir);
	int rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	int dirfd = open(proj, O_PATH | O_DIRECTORY | O_CLOEXEC);
	free(proj);
	XXH3_state_t *sig = XXH3_createState();
	XXH3_128bits_reset(sig);
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
			put(sig, path, here ? &st : NULL);
	}
	for (size_t i = 0; r == 1 && i < WSROOT_NFINGERPRINT; i++) {
		if (look(rootfd, rootfd, wsroot_fingerprint[i], &st, &here) != 0)
			r = 0;
		else
			put(sig, wsroot_fingerprint[i], here ? &st : NULL);
	}
	if (rootfd >= 0)
		close(rootfd);
	if (dirfd >= 0)
		close(dirfd);
	if (r == 1) {
		char hex[HASH_HEX_LEN + 1];
		sig_hex(sig, hex);
		r = strcmp(hex, want) == 0;
	}
	XXH3_freeState(sig);
	return r;
}
