/* remote.c: the remote cache over libcurl (remote.h). One multi handle per
 * run keeps the server's connections alive between entries; an entry's
 * transfers run REMOTE_PARALLEL at a time. Blobs are named on the server
 * by their SHA-256 (OpenSSL's EVP), locally by their XXH3-128: the remote
 * manifest carries both, and a download is checked against both. */
#include "remote.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cache.h"
#include "cache_int.h"
#include "path.h"
#include "err.h"
#include "fileio.h"
#include "hash.h"
#include "remote_lib.h"
#include "strmap.h"

#define REMOTE_PARALLEL 16
#define REMOTE_CONNECT_MS 3000L
/* a transfer moving less than a byte a second for this long has stalled */
#define REMOTE_STALL_S 5L
/* no one transfer takes longer than this, however it trickles */
#define REMOTE_TOTAL_S 600L
#define REMOTE_MANIFEST_MAX (64u << 20)
#define SHA_HEX 64
/* a signed manifest's last member, before its 64 hex and "} (remote.h) */
#define SIG_MEMBER ",\"sig\":\"hmac-sha256:"
#define SIG_DOMAIN "vx-remote-ac 1\n"
#define SIG_KEY_MIN 16
#define TURBO_PREFIX "turbo+"
#define TAG_HDR "x-artifact-tag:"
#define MAC_LEN 32
#define MAC_BLOCK 64
#define B64_LEN 44 /* base64 of MAC_LEN bytes, padded */

struct remote {
	char *url;
	bool readonly, off;
	CURLM *multi;
	struct curl_slist *hdrs;
	char *sigkey; /* NULL: entries are neither signed nor checked */
	size_t sigkeylen;
	bool turbo;   /* Turborepo's API rather than bazel-remote's */
	char *team;   /* turbo: TURBO_TEAMID or TURBO_TEAM, or NULL */
	char *teamq;  /* turbo: "teamId=<team>" or "slug=<team>", or NULL */
	char *tkey;   /* turbo: TURBO_REMOTE_CACHE_SIGNATURE_KEY, or NULL */
	size_t tkeylen;
};

enum xkind { X_GET_MEM, X_GET_FILE, X_HEAD, X_PUT_FILE, X_PUT_MEM };

struct xfer {
	enum xkind kind;
	char *url;
	CURL *h;
	CURLcode res;
	long status;
	int fd;           /* X_GET_FILE: the temporary; X_PUT_FILE: the blob */
	char *tmp;        /* X_GET_FILE: the temporary's path */
	char *mem;        /* X_GET_MEM: the body; X_PUT_MEM: what is sent */
	size_t len, cap, off;
	size_t limit;     /* the most bytes a GET may bring */
	size_t size;      /* X_PUT_*: the bytes sent, announced up front */
	bool over, werr;  /* a GET brought too much; a local write failed */
	EVP_MD_CTX *sha;  /* X_GET_FILE: both hashes of what arrives */
	XXH3_state_t *xx;
	const char *hash, *sha256; /* X_GET_FILE: what the bytes must hash to */
	char *tag;        /* turbo X_PUT_*: the x-artifact-tag line to send */
	struct curl_slist *xh; /* the headers with tag, while it runs */
	char *gottag;     /* turbo X_GET_MEM: the x-artifact-tag answered */
};

static void server_off(struct remote *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void server_off(struct remote *r, const char *fmt, ...)
{
	if (r->off)
		return;
	r->off = true;
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	err_warn("remote cache '%s': %s; going on without it", r->url, msg);
}

static void bad_entry(const char *key, const char *why)
{
	err_warn("remote cache: entry %s: %s; a miss", key, why);
}

/* The signing key from the environment (remote.h): 0 with *key malloc'd or
 * NULL (none set), or -1 after a message. */
static int signing_key(char **key, size_t *len)
{
	const char *text = getenv("VX_REMOTE_CACHE_SIGNING_KEY");
	const char *file = getenv("VX_REMOTE_CACHE_SIGNING_KEY_FILE");
	*key = NULL;
	*len = 0;
	if (text && *text && file && *file) {
		err_warn("remote cache: both VX_REMOTE_CACHE_SIGNING_KEY and "
			 "VX_REMOTE_CACHE_SIGNING_KEY_FILE are set; set one");
		return -1;
	}
	if (text && *text) {
		*key = xstrdup(text);
		*len = strlen(text);
	} else if (file && *file) {
		if (!(*key = fileio_read_at(AT_FDCWD, file, len))) {
			err_warn_errno("remote cache: unable to read the signing key '%s' "
				       "(VX_REMOTE_CACHE_SIGNING_KEY_FILE)", file);
			return -1;
		}
		while (*len && ((*key)[*len - 1] == '\n' || (*key)[*len - 1] == '\r'))
			(*key)[--*len] = '\0';
	}
	if (*key && *len < SIG_KEY_MIN) {
		err_warn("remote cache: the signing key is shorter than %d bytes; make one with "
			 "'openssl rand -hex 32'", SIG_KEY_MIN);
		free(*key);
		*key = NULL;
		return -1;
	}
	return 0;
}

/* turbo's team from the environment (remote.h): 0, or -1 after a message. */
static int turbo_team(struct remote *r)
{
	const char *id = getenv("TURBO_TEAMID"), *slug = getenv("TURBO_TEAM");
	const char *v = id && *id ? id : slug && *slug ? slug : NULL;
	if (!v)
		return 0;
	for (const char *p = v; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			(*p >= '0' && *p <= '9') || *p == '-' || *p == '_' || *p == '.')) {
			err_warn("remote cache: the team '%s' (%s) has a character other than "
				 "letters, digits, '-', '_' and '.'; fix the variable", v,
				 v == id ? "TURBO_TEAMID" : "TURBO_TEAM");
			return -1;
		}
	r->team = xstrdup(v);
	r->teamq = xasprintf("%s=%s", v == id ? "teamId" : "slug", v);
	return 0;
}

/* Where the object name lives on the server: a manifest (space "ac") or a
 * blob ("cas"); malloc'd. */
static char *obj_url(const struct remote *r, const char *space, const char *name)
{
	if (r->turbo)
		return xasprintf("%s/v8/artifacts/%s%s%s", r->url, name, r->teamq ? "?" : "",
			r->teamq ? r->teamq : "");
	return xasprintf("%s/%s/%s", r->url, space, name);
}

/* HMAC-SHA256 (RFC 2104) streamed over libcrypto's SHA-256, which is all
 * remote_lib loads. */
struct mac {
	EVP_MD_CTX *in;
	unsigned char opad[MAC_BLOCK];
};

static void mac_init(struct mac *m, const char *key, size_t len)
{
	unsigned char k[MAC_BLOCK] = {0}, ipad[MAC_BLOCK];
	unsigned dl = 0;
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	if (len > MAC_BLOCK) {
		EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
		EVP_DigestUpdate(ctx, key, len);
		EVP_DigestFinal_ex(ctx, k, &dl);
	} else {
		memcpy(k, key, len);
	}
	for (int i = 0; i < MAC_BLOCK; i++) {
		ipad[i] = k[i] ^ 0x36;
		m->opad[i] = k[i] ^ 0x5c;
	}
	EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
	EVP_DigestUpdate(ctx, ipad, MAC_BLOCK);
	m->in = ctx;
}

static void mac_update(struct mac *m, const void *p, size_t n)
{
	EVP_DigestUpdate(m->in, p, n);
}

/* The tag, base64 (padded) into out, and m's context freed. */
static void mac_final(struct mac *m, char out[B64_LEN + 1])
{
	static const char b64[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	unsigned char d[EVP_MAX_MD_SIZE], t[MAC_LEN + 1] = {0};
	unsigned dl = 0;
	EVP_DigestFinal_ex(m->in, d, &dl);
	EVP_DigestInit_ex(m->in, EVP_sha256(), NULL);
	EVP_DigestUpdate(m->in, m->opad, MAC_BLOCK);
	EVP_DigestUpdate(m->in, d, MAC_LEN);
	EVP_DigestFinal_ex(m->in, t, &dl);
	EVP_MD_CTX_free(m->in);
	m->in = NULL;
	char *o = out;
	for (int i = 0; i < MAC_LEN; i += 3) {
		unsigned v = (unsigned)t[i] << 16 | (unsigned)t[i + 1] << 8 |
			     (i + 2 < MAC_LEN ? t[i + 2] : 0u);
		*o++ = b64[v >> 18 & 63];
		*o++ = b64[v >> 12 & 63];
		*o++ = i + 1 < MAC_LEN ? b64[v >> 6 & 63] : '=';
		*o++ = i + 2 < MAC_LEN ? b64[v & 63] : '=';
	}
	*o = '\0';
}

/* turbo's x-artifact-tag of the object name whose body is mem (or, when
 * mem is NULL, the file open at fd): HMAC-SHA256 under the signature key of
 * name, the team and the body, base64. 0, or -1 when fd will not read. */
static int turbo_tag(const struct remote *r, const char *name, const char *mem, size_t len,
	int fd, char out[B64_LEN + 1])
{
	struct mac m;
	mac_init(&m, r->tkey, r->tkeylen);
	mac_update(&m, name, strlen(name));
	if (r->team)
		mac_update(&m, r->team, strlen(r->team));
	ssize_t got = 0;
	if (mem) {
		mac_update(&m, mem, len);
	} else {
		char buf[65536];
		while ((got = read(fd, buf, sizeof(buf))) != 0) {
			if (got < 0 && errno == EINTR)
				continue;
			if (got < 0)
				break;
			mac_update(&m, buf, (size_t)got);
		}
	}
	mac_final(&m, out);
	return got < 0 ? -1 : 0;
}

struct remote *remote_open(const char *url, const char *token, bool readonly)
{
	bool turbo = strncmp(url, TURBO_PREFIX, strlen(TURBO_PREFIX)) == 0;
	if (turbo)
		url += strlen(TURBO_PREFIX);
	if (strncmp(url, "http://", 7) != 0 && strncmp(url, "https://", 8) != 0) {
		err_warn("remote cache '%s': not an http:// or https:// URL (turbo+http:// for "
			 "Turborepo's API)", url);
		return NULL;
	}
	char *sigkey;
	size_t sigkeylen;
	if (signing_key(&sigkey, &sigkeylen) != 0)
		return NULL;
	if (remote_lib_load() != 0) {
		free(sigkey);
		return NULL;
	}
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != 0) {
		err_warn("remote cache '%s': libcurl will not start", url);
		free(sigkey);
		return NULL;
	}
	struct remote *r = xcalloc(1, sizeof(*r));
	r->sigkey = sigkey;
	r->sigkeylen = sigkeylen;
	r->url = xstrdup(url);
	for (size_t n = strlen(r->url); n > 0 && r->url[n - 1] == '/'; n--)
		r->url[n - 1] = '\0';
	r->readonly = readonly;
	if ((r->turbo = turbo)) {
		const char *tk = getenv("TURBO_REMOTE_CACHE_SIGNATURE_KEY");
		if (tk && *tk) {
			r->tkey = xstrdup(tk);
			r->tkeylen = strlen(tk);
		}
		if (!token || !*token)
			token = getenv("TURBO_TOKEN");
		if (turbo_team(r) != 0) {
			r->multi = NULL;
			remote_close(r);
			return NULL;
		}
	}
	r->multi = curl_multi_init();
	curl_multi_setopt(r->multi, CURLMOPT_MAX_HOST_CONNECTIONS, (long)REMOTE_PARALLEL);
	/* nginx's WebDAV answers 100-continue badly; curl's default would add it */
	r->hdrs = curl_slist_append(NULL, "Expect:");
	if (r->turbo) /* turborepo-remote-cache answers a PUT without it 415 */
		r->hdrs = curl_slist_append(r->hdrs, "Content-Type: application/octet-stream");
	if (token && *token) {
		char *h = xasprintf("Authorization: Bearer %s", token);
		r->hdrs = curl_slist_append(r->hdrs, h);
		free(h);
	}
	return r;
}

void remote_close(struct remote *r)
{
	if (!r)
		return;
	if (r->multi)
		curl_multi_cleanup(r->multi);
	curl_slist_free_all(r->hdrs);
	free(r->sigkey);
	free(r->tkey);
	free(r->team);
	free(r->teamq);
	free(r->url);
	free(r);
	curl_global_cleanup();
}

static size_t on_write(char *p, size_t sz, size_t nm, void *arg)
{
	struct xfer *x = arg;
	size_t n = sz * nm;
	long st = 0;
	curl_easy_getinfo(x->h, CURLINFO_RESPONSE_CODE, &st);
	if (st != 200 || (x->kind != X_GET_MEM && x->kind != X_GET_FILE))
		return n; /* an error page or a PUT's answer: not kept */
	if (n > x->limit - x->len) {
		x->over = true;
		return 0;
	}
	if (x->kind == X_GET_MEM) {
		XGROW(x->mem, x->len + n + 1, x->cap);
		memcpy(x->mem + x->len, p, n);
		x->len += n;
		x->mem[x->len] = '\0';
		return n;
	}
	EVP_DigestUpdate(x->sha, p, n);
	XXH3_128bits_update(x->xx, p, n);
	x->len += n;
	if (fileio_write_all(x->fd, p, n) != 0) {
		x->werr = true;
		return 0;
	}
	return n;
}

/* turbo: keep a manifest's x-artifact-tag */
static size_t on_header(char *p, size_t sz, size_t nm, void *arg)
{
	struct xfer *x = arg;
	size_t n = sz * nm, k = strlen(TAG_HDR);
	if (x->kind != X_GET_MEM || n < k || strncasecmp(p, TAG_HDR, k) != 0)
		return n;
	const char *v = p + k, *e = p + n;
	while (v < e && (*v == ' ' || *v == '\t'))
		v++;
	while (e > v && (e[-1] == '\r' || e[-1] == '\n' || e[-1] == ' '))
		e--;
	free(x->gottag);
	x->gottag = xstrndup(v, (size_t)(e - v));
	return n;
}

static size_t on_read(char *buf, size_t sz, size_t nm, void *arg)
{
	struct xfer *x = arg;
	size_t n = sz * nm;
	if (x->kind == X_PUT_MEM) {
		size_t k = x->len - x->off < n ? x->len - x->off : n;
		memcpy(buf, x->mem + x->off, k);
		x->off += k;
		return k;
	}
	ssize_t got;
	do
		got = read(x->fd, buf, n);
	while (got < 0 && errno == EINTR);
	return got < 0 ? CURL_READFUNC_ABORT : (size_t)got;
}

static void xfer_start(struct remote *r, struct xfer *x)
{
	CURL *h = x->h = curl_easy_init();
	if (!h)
		err_die(VX_EXIT_FAIL, "out of memory");
	curl_easy_setopt(h, CURLOPT_URL, x->url);
	curl_easy_setopt(h, CURLOPT_PRIVATE, x);
	if (x->tag) {
		for (struct curl_slist *l = r->hdrs; l; l = l->next)
			x->xh = curl_slist_append(x->xh, l->data);
		x->xh = curl_slist_append(x->xh, x->tag);
	}
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, x->xh ? x->xh : r->hdrs);
	if (r->tkey) {
		curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
		curl_easy_setopt(h, CURLOPT_HEADERDATA, x);
	}
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, REMOTE_CONNECT_MS);
	curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1L);
	curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, REMOTE_STALL_S);
	curl_easy_setopt(h, CURLOPT_TIMEOUT, REMOTE_TOTAL_S);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_write);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, x);
	if (x->kind == X_HEAD)
		curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
	if (x->kind == X_PUT_FILE || x->kind == X_PUT_MEM) {
		/* the size up front: never chunked, which WebDAV servers refuse */
		curl_easy_setopt(h, CURLOPT_UPLOAD, 1L);
		curl_easy_setopt(h, CURLOPT_READFUNCTION, on_read);
		curl_easy_setopt(h, CURLOPT_READDATA, x);
		curl_easy_setopt(h, CURLOPT_INFILESIZE_LARGE, (curl_off_t)x->size);
	}
}

/* Run every transfer, REMOTE_PARALLEL at a time; each ends with res and
 * status set. */
static void xfer_run(struct remote *r, struct xfer *xs, size_t n)
{
	size_t next = 0, active = 0;
	while (next < n || active) {
		while (next < n && active < REMOTE_PARALLEL) {
			xfer_start(r, &xs[next]);
			curl_multi_add_handle(r->multi, xs[next++].h);
			active++;
		}
		int running = 0, left;
		if (curl_multi_perform(r->multi, &running) != CURLM_OK)
			err_die(VX_EXIT_FAIL, "remote cache: libcurl's multi interface failed");
		CURLMsg *m;
		while ((m = curl_multi_info_read(r->multi, &left))) {
			if (m->msg != CURLMSG_DONE)
				continue;
			CURL *h = m->easy_handle;
			CURLcode res = m->data.result;
			struct xfer *x;
			curl_easy_getinfo(h, CURLINFO_PRIVATE, (char **)&x);
			x->res = res;
			curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &x->status);
			curl_multi_remove_handle(r->multi, h);
			curl_easy_cleanup(h);
			x->h = NULL;
			curl_slist_free_all(x->xh);
			x->xh = NULL;
			active--;
		}
		if (active && running)
			curl_multi_poll(r->multi, NULL, 0, 1000, NULL);
	}
}

/* A transport failure turns the server off; our own stop (too many bytes, a
 * local write) does not. */
static bool xfer_failed(struct remote *r, const struct xfer *x, const char *method)
{
	if (x->res == CURLE_OK || x->over || x->werr)
		return false;
	server_off(r, "%s %s: %s", method, x->url, curl_easy_strerror(x->res));
	return true;
}

static void hex_of(const unsigned char *d, unsigned len, char out[SHA_HEX + 1])
{
	for (unsigned i = 0; i < len && i < SHA_HEX / 2; i++)
		snprintf(out + 2 * i, 3, "%02x", d[i]);
	out[SHA_HEX] = '\0';
}

static void sha_hex(EVP_MD_CTX *ctx, char out[SHA_HEX + 1])
{
	unsigned char d[EVP_MAX_MD_SIZE];
	unsigned len = 0;
	EVP_DigestFinal_ex(ctx, d, &len);
	hex_of(d, len, out);
}

static bool sha_is_hex(const char *s)
{
	if (!s || strlen(s) != SHA_HEX)
		return false;
	for (; *s; s++)
		if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f')))
			return false;
	return true;
}

/* The SHA-256 of a local blob, streamed. 0, or -1 after a message. */
static int blob_sha(struct cache *c, const char *hash, char out[SHA_HEX + 1])
{
	int fd = cache_blob_open(c, hash);
	if (fd < 0) {
		err_warn_errno("remote cache: unable to read the local blob %s", hash);
		return -1;
	}
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
	char buf[65536];
	ssize_t got;
	while ((got = read(fd, buf, sizeof(buf))) != 0) {
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			break;
		EVP_DigestUpdate(ctx, buf, (size_t)got);
	}
	int saved = errno;
	close(fd);
	sha_hex(ctx, out);
	EVP_MD_CTX_free(ctx);
	if (got < 0) {
		errno = saved;
		err_warn_errno("remote cache: unable to read the local blob %s", hash);
		return -1;
	}
	return 0;
}

/* The objects of m that name a blob: the log (unless inline) and every
 * regular file, in order; n gets their number. */
static cJSON **blob_objects(cJSON *m, size_t *n)
{
	cJSON *files = cJSON_GetObjectItemCaseSensitive(m, "files"), *f;
	cJSON **v = xcalloc((size_t)cJSON_GetArraySize(files) + 2, sizeof(*v));
	*n = 0;
	cJSON *log = cJSON_GetObjectItemCaseSensitive(m, "log");
	if (cJSON_IsString(cJSON_GetObjectItemCaseSensitive(log, "hash")))
		v[(*n)++] = log;
	cJSON_ArrayForEach(f, files) if (cJSON_IsString(cJSON_GetObjectItemCaseSensitive(f, "hash")))
		v[(*n)++] = f;
	return v;
}

static const char *jstr(const cJSON *o, const char *k)
{
	return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, k));
}

static void xfers_free(struct xfer *xs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(xs[i].url);
		free(xs[i].tag);
		free(xs[i].gottag);
		if (xs[i].kind != X_PUT_MEM)
			free(xs[i].mem);
		if (xs[i].fd >= 0)
			close(xs[i].fd);
		if (xs[i].tmp) {
			unlink(xs[i].tmp);
			free(xs[i].tmp);
		}
		EVP_MD_CTX_free(xs[i].sha);
		if (xs[i].xx)
			XXH3_freeState(xs[i].xx);
	}
	free(xs);
}

/* Rename a checked download into cas/. */
static int blob_place(struct cache *c, struct xfer *x)
{
	char *path = cache_blob_path(c, x->hash);
	int r = rename(x->tmp, path);
	if (r != 0 && errno == ENOENT) {
		char *dir = xstrndup(path, (size_t)(strrchr(path, '/') - path));
		r = path_mkdirs(dir) == 0 ? rename(x->tmp, path) : -1;
		free(dir);
	}
	if (r != 0)
		err_warn_errno("unable to write cache blob '%s'", path);
	else {
		free(x->tmp);
		x->tmp = NULL;
	}
	free(path);
	return r;
}

/* Download the blobs m names that c lacks, checking each: NULL when all are
 * in cas/, else why not (the server may have been turned off too). */
static const char *fetch_blobs(struct remote *r, struct cache *c, cJSON *m)
{
	size_t nobj;
	cJSON **obj = blob_objects(m, &nobj);
	struct xfer *xs = xcalloc(nobj + 1, sizeof(*xs));
	size_t n = 0;
	const char *why = NULL;
	struct strmap seen;
	strmap_init(&seen);
	for (size_t i = 0; i < nobj && !why; i++) {
		const char *hash = jstr(obj[i], "hash"), *sha = jstr(obj[i], "sha256");
		const cJSON *size = cJSON_GetObjectItemCaseSensitive(obj[i], "size");
		struct stat st;
		if (!hash_is_hex(hash) || !cJSON_IsNumber(size) || size->valuedouble < 0)
			why = "a blob with no hash or size";
		else if (!sha_is_hex(sha))
			why = "a blob with no sha256";
		else if (strmap_put(&seen, hash, obj[i]))
			continue;
		else if (cache_blob_stat(c, hash, &st) == 0 && S_ISREG(st.st_mode) &&
			 st.st_size == (off_t)size->valuedouble)
			continue; /* already here */
		else
			xs[n++] = (struct xfer){.kind = X_GET_FILE, .fd = -1, .hash = hash, .sha256 = sha,
				.limit = (size_t)size->valuedouble};
	}
	strmap_free(&seen);
	free(obj);
	if (!why && n && cache_dirs_make(c) != 0)
		why = "the local cache is not writable";
	for (size_t i = 0; i < n && !why; i++) {
		struct xfer *x = &xs[i];
		x->url = obj_url(r, "cas", x->sha256);
		if ((x->fd = cache_tmp_open(c, &x->tmp)) < 0) {
			err_warn_errno("unable to create a temporary file in '%s/tmp'", c->dir);
			why = "the local cache is not writable";
			break;
		}
		x->sha = EVP_MD_CTX_new();
		EVP_DigestInit_ex(x->sha, EVP_sha256(), NULL);
		x->xx = XXH3_createState();
		XXH3_128bits_reset(x->xx);
	}
	if (!why)
		xfer_run(r, xs, n);
	for (size_t i = 0; i < n && !why; i++) {
		struct xfer *x = &xs[i];
		if (xfer_failed(r, x, "GET")) {
			why = "the server failed";
		} else if (x->werr) {
			err_warn_errno("unable to write '%s'", x->tmp);
			why = "the local cache is not writable";
		} else if (x->status == 404 || x->status == 204) {
			why = "a blob is missing on the server";
		} else if (x->status != 200) {
			server_off(r, "GET %s: HTTP %ld", x->url, x->status);
			why = "the server failed";
		} else if (x->over || x->len != x->limit) {
			why = x->over ? "a blob is longer than its size" : "a blob is truncated";
		} else {
			char sha[SHA_HEX + 1], xx[33];
			sha_hex(x->sha, sha);
			cache_hex128(XXH3_128bits_digest(x->xx), xx);
			if (strcmp(sha, x->sha256) != 0)
				why = "a blob does not match its sha256";
			else if (strcmp(xx, x->hash) != 0)
				why = "a blob does not match its hash";
		}
	}
	for (size_t i = 0; i < n && !why; i++) {
		close(xs[i].fd);
		xs[i].fd = -1;
		if (blob_place(c, &xs[i]) != 0)
			why = "the local cache is not writable";
	}
	xfers_free(xs, n);
	return why;
}

/* The MAC of key's manifest text (remote.h), in hex. */
static void entry_mac(const struct remote *r, const char *key, const char *text, size_t len,
	char hex[SHA_HEX + 1])
{
	size_t dlen = strlen(SIG_DOMAIN), klen = strlen(key), n = dlen + klen + 1 + len;
	unsigned char *buf = xmalloc(n), d[EVP_MAX_MD_SIZE];
	memcpy(buf, SIG_DOMAIN, dlen);
	memcpy(buf + dlen, key, klen);
	buf[dlen + klen] = '\n';
	memcpy(buf + dlen + klen + 1, text, len);
	unsigned dl = 0;
	if (!HMAC(EVP_sha256(), r->sigkey, (int)r->sigkeylen, buf, n, d, &dl))
		err_die(VX_EXIT_FAIL, "remote cache: libcrypto's HMAC failed");
	free(buf);
	hex_of(d, dl, hex);
}

/* The text key's downloaded manifest body signs, when its signature is
 * good: malloc'd, its length in *n; else NULL. */
static char *entry_verify(const struct remote *r, const char *key, const char *body, size_t len,
	size_t *n)
{
	size_t mlen = strlen(SIG_MEMBER), tail = mlen + SHA_HEX + 2;
	if (len <= tail)
		return NULL;
	const char *sig = body + len - tail;
	if (memcmp(sig, SIG_MEMBER, mlen) != 0 || memcmp(sig + mlen + SHA_HEX, "\"}", 2) != 0)
		return NULL;
	*n = (size_t)(sig - body) + 1;
	char *text = xmalloc(*n + 1), want[SHA_HEX + 1];
	memcpy(text, body, *n - 1);
	text[*n - 1] = '}';
	text[*n] = '\0';
	entry_mac(r, key, text, *n, want);
	unsigned char diff = 0; /* in constant time */
	for (size_t i = 0; i < SHA_HEX; i++)
		diff |= (unsigned char)(want[i] ^ sig[mlen + i]);
	if (diff) {
		free(text);
		return NULL;
	}
	return text;
}

/* Why m is no entry a save would make, before any blob is fetched: a file
 * asking for setuid, setgid or sticky bits (the local cache would drop
 * them, but no vx saves such a record: the entry is not one to trust at
 * all), or outputs over the size limits (cache.h). In buf, or NULL. */
static const char *entry_refused(const struct cache *c, const cJSON *m, char *buf, size_t len)
{
	const cJSON *f;
	unsigned long long total = 0;
	cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(m, "files")) {
		struct cache_file cf;
		if (cache_file_parse(f, &cf))
			continue; /* cache_entry_check says why, later */
		if (cf.privileged) {
			snprintf(buf, len, "'%s' asks for setuid, setgid or sticky bits", cf.path);
			return buf;
		}
		total += cf.size;
		if (c->max_output && cf.size > c->max_output) {
			snprintf(buf, len, "'%s' is %zu bytes, over VX_CACHE_MAX_OUTPUT_SIZE", cf.path,
				cf.size);
			return buf;
		}
		if (c->max_entry && total > c->max_entry) {
			snprintf(buf, len, "its outputs are over VX_CACHE_MAX_ENTRY_SIZE");
			return buf;
		}
	}
	return NULL;
}

int remote_fetch(struct remote *r, struct cache *c, const char *key)
{
	if (!r || r->off || !hash_is_hex(key))
		return 0;
	struct xfer *mx = xcalloc(1, sizeof(*mx));
	*mx = (struct xfer){.kind = X_GET_MEM, .fd = -1, .limit = REMOTE_MANIFEST_MAX,
		.url = obj_url(r, "ac", key)};
	xfer_run(r, mx, 1);
	bool got = !xfer_failed(r, mx, "GET") && mx->status == 200 && !mx->over;
	if (mx->res == CURLE_OK && mx->status != 200 && mx->status != 404 && mx->status != 204)
		server_off(r, "GET %s: HTTP %ld", mx->url, mx->status);
	else if (mx->over)
		bad_entry(key, "the manifest is too large");
	cJSON *m = NULL;
	bool forged = false;
	if (got && mx->mem && r->tkey) {
		char want[B64_LEN + 1];
		turbo_tag(r, key, mx->mem, mx->len, -1, want);
		unsigned char diff = !mx->gottag || strlen(mx->gottag) != B64_LEN;
		for (size_t i = 0; !diff && i < B64_LEN; i++) /* in constant time */
			diff |= (unsigned char)(want[i] ^ mx->gottag[i]);
		if ((forged = diff))
			bad_entry(key, "its x-artifact-tag is missing or not made with "
				       "TURBO_REMOTE_CACHE_SIGNATURE_KEY");
	}
	if (forged) {
		/* said */
	} else if (got && mx->mem && r->sigkey) {
		size_t n;
		char *text = entry_verify(r, key, mx->mem, mx->len, &n);
		if ((forged = !text))
			bad_entry(key, "unsigned, or not signed with this signing key");
		else
			m = cJSON_ParseWithLength(text, n);
		free(text);
	} else if (got && mx->mem) {
		m = cJSON_ParseWithLength(mx->mem, mx->len);
	}
	if (got && !forged && !cJSON_IsObject(m))
		bad_entry(key, "the manifest does not parse");
	xfers_free(mx, 1);
	if (!cJSON_IsObject(m)) {
		cJSON_Delete(m);
		return 0;
	}
	const char *why = NULL;
	char buf[512];
	if (!jstr(m, "key") || strcmp(jstr(m, "key"), key) != 0)
		why = "the manifest names another key";
	else if (!(why = entry_refused(c, m, buf, sizeof(buf))))
		why = fetch_blobs(r, c, m);
	/* the local cache's own checks, now that the blobs are there */
	if (!why)
		why = cache_entry_check(c, key, m, true);
	int hit = !why && cache_manifest_write(c, key, m, false) == 0;
	if (why && strcmp(why, "the server failed") != 0)
		bad_entry(key, why);
	cJSON_Delete(m);
	return hit;
}

/* PUT/HEAD answers that mean it worked. */
static bool put_ok(long st)
{
	return st == 200 || st == 201 || st == 202 || st == 204;
}

/* turbo: x's tag, over the blob open at x->fd (left at its start). */
static int blob_tag(const struct remote *r, struct xfer *x)
{
	char tag[B64_LEN + 1];
	if (turbo_tag(r, x->mem, NULL, 0, x->fd, tag) != 0 || lseek(x->fd, 0, SEEK_SET) != 0)
		return -1;
	x->tag = xasprintf(TAG_HDR " %s", tag);
	return 0;
}

/* A PUT the server refused for its size (HTTP 413, its body limit): said
 * once for the entry, which is then not uploaded; the server stays on. */
static bool too_large(const char *key, const struct xfer *x)
{
	if (x->status != 413)
		return false;
	err_warn("remote cache: not uploading %s: %zu bytes are over the server's body limit "
		 "(HTTP 413)", key, x->size);
	return true;
}

int remote_push(struct remote *r, struct cache *c, const char *key)
{
	if (!r || r->readonly)
		return 0;
	if (r->off)
		return -1;
	struct cache_entry *e = NULL;
	const char *why = NULL;
	if (cache_lookup(c, key, &e, &why) != 1) {
		err_warn("remote cache: not uploading %s: the local entry is a miss (%s)", key, why);
		return -1;
	}
	cJSON *m = cJSON_Duplicate(e->manifest, 1);
	cache_entry_free(e);
	size_t nobj;
	cJSON **obj = blob_objects(m, &nobj);
	struct xfer *xs = xcalloc(nobj + 1, sizeof(*xs));
	size_t n = 0;
	int rc = 0;
	struct strmap seen; /* hash -> its xfer + 1 */
	strmap_init(&seen);
	for (size_t i = 0; i < nobj && rc == 0; i++) {
		const char *hash = jstr(obj[i], "hash");
		size_t k = (size_t)strmap_get(&seen, hash);
		if (!k) {
			char sha[SHA_HEX + 1];
			if (blob_sha(c, hash, sha) != 0) {
				rc = -1;
				break;
			}
			const cJSON *size = cJSON_GetObjectItemCaseSensitive(obj[i], "size");
			xs[n] = (struct xfer){.kind = X_HEAD, .fd = -1, .hash = hash,
				.size = (size_t)size->valuedouble, .mem = xstrdup(sha)};
			xs[n].url = obj_url(r, "cas", sha);
			strmap_put(&seen, hash, (void *)(k = ++n));
		}
		cJSON_DeleteItemFromObjectCaseSensitive(obj[i], "sha256");
		cJSON_AddStringToObject(obj[i], "sha256", xs[k - 1].mem);
	}
	strmap_free(&seen);
	free(obj);
	/* which blobs the server lacks, then those, then the manifest naming them */
	if (rc == 0)
		xfer_run(r, xs, n);
	size_t nput = 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		if (xfer_failed(r, &xs[i], "HEAD")) {
			rc = -1;
		} else if (xs[i].status == 404) {
			xs[i].kind = X_PUT_FILE;
			if ((xs[i].fd = cache_blob_open(c, xs[i].hash)) < 0 ||
				(r->tkey && blob_tag(r, &xs[i]) != 0)) {
				err_warn_errno("remote cache: unable to read the local blob %s", xs[i].hash);
				rc = -1;
			}
			nput++;
		} else if (xs[i].status != 200) {
			server_off(r, "HEAD %s: HTTP %ld", xs[i].url, xs[i].status);
			rc = -1;
		}
	}
	if (rc == 0 && nput) {
		struct xfer *puts = xcalloc(nput, sizeof(*puts));
		size_t k = 0;
		for (size_t i = 0; i < n; i++)
			if (xs[i].kind == X_PUT_FILE) {
				puts[k] = xs[i];
				puts[k].status = 0;
				puts[k].res = CURLE_OK;
				k++;
			}
		xfer_run(r, puts, nput);
		for (size_t i = 0; i < nput && rc == 0; i++) {
			if (too_large(key, &puts[i]))
				rc = -1;
			else if (xfer_failed(r, &puts[i], "PUT"))
				rc = -1;
			else if (!put_ok(puts[i].status)) {
				server_off(r, "PUT %s: HTTP %ld", puts[i].url, puts[i].status);
				rc = -1;
			}
		}
		free(puts); /* its urls and fds are xs's */
	}
	xfers_free(xs, n);
	if (rc == 0) {
		cJSON_DeleteItemFromObjectCaseSensitive(m, "sig");
		char *text = cJSON_PrintUnformatted(m), mac[SHA_HEX + 1];
		size_t len = strlen(text);
		if (r->sigkey) {
			entry_mac(r, key, text, len, mac);
			char *body = xasprintf("%.*s" SIG_MEMBER "%s\"}", (int)len - 1, text, mac);
			cJSON_free(text);
			text = body;
			len = strlen(body);
		}
		struct xfer mx = {.kind = X_PUT_MEM, .fd = -1, .mem = text, .len = len, .size = len,
			.url = obj_url(r, "ac", key)};
		if (r->tkey) {
			char tag[B64_LEN + 1];
			turbo_tag(r, key, text, len, -1, tag);
			mx.tag = xasprintf(TAG_HDR " %s", tag);
		}
		xfer_run(r, &mx, 1);
		free(mx.tag);
		if (too_large(key, &mx))
			rc = -1;
		else if (xfer_failed(r, &mx, "PUT"))
			rc = -1;
		else if (!put_ok(mx.status)) {
			server_off(r, "PUT %s: HTTP %ld", mx.url, mx.status);
			rc = -1;
		}
		free(mx.url);
		if (r->sigkey)
			free(text);
		else
			cJSON_free(text);
	}
	cJSON_Delete(m);
	return rc;
}
