#include "key.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <xxhash.h>

#include "err.h"
#include "fileio.h"
#include "glob.h"
#include "hash.h"
#include "path.h"

#define KEY_FORMAT "vx-key 1"

static const char *const fingerprint_files[] = {
	"package-lock.json", "yarn.lock", "pnpm-lock.yaml", "bun.lock", "bun.lockb",
	"pnpm-workspace.yaml",
};

static void field(XXH3_state_t *s, const void *p, size_t n)
{
	uint64_t len = n;
	XXH3_128bits_update(s, &len, sizeof(len));
	XXH3_128bits_update(s, p, n);
}

static void fields(XXH3_state_t *s, const char *str)
{
	field(s, str, strlen(str));
}

static void hex16(const uint8_t h[16], char out[33])
{
	static const char hx[] = "0123456789abcdef";
	for (int i = 0; i < 16; i++) {
		out[2 * i] = hx[h[i] >> 4];
		out[2 * i + 1] = hx[h[i] & 15];
	}
	out[32] = '\0';
}

static void digest(XXH3_state_t *s, char out[33])
{
	XXH128_canonical_t c;
	XXH128_canonicalFromHash(&c, XXH3_128bits_digest(s));
	hex16(c.digest, out);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void key_init(struct keyer *k, const char *root, cJSON *graph)
{
	memset(k, 0, sizeof(*k));
	k->in.root = root;
	k->in.ig = ignore_open(root);
	k->in.sc = statcache_load(root);
	strmap_init(&k->keys);
	strmap_init(&k->runtime);
	strmap_init(&k->records);
	/* nested projects are walls for the projects around them */
	const cJSON *projects = cJSON_GetObjectItemCaseSensitive(graph, "projects"), *p;
	size_t n = 0;
	const char **dirs = xcalloc((size_t)cJSON_GetArraySize(projects) + 1, sizeof(char *));
	cJSON_ArrayForEach(p, projects) {
		const char *d = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(p, "dir"));
		if (d && strcmp(d, ".") != 0)
			dirs[n++] = xstrdup(d); /* the graph record is freed after this */
	}
	qsort(dirs, n, sizeof(*dirs), cmp_str);
	k->in.skip_dirs = dirs;
	k->in.nskip = n;
}

static const char *jstr(const cJSON *o, const char *name)
{
	return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, name));
}

static const cJSON *jpath(const cJSON *o, const char *a, const char *b, const char *c)
{
	o = cJSON_GetObjectItemCaseSensitive(o, a);
	if (b)
		o = cJSON_GetObjectItemCaseSensitive(o, b);
	if (c)
		o = cJSON_GetObjectItemCaseSensitive(o, c);
	return o;
}

static const char **strings(const cJSON *arr, size_t *n)
{
	const char **v = xcalloc((size_t)cJSON_GetArraySize(arr) + 1, sizeof(char *));
	const cJSON *e;
	*n = 0;
	cJSON_ArrayForEach(e, arr) if (cJSON_IsString(e)) v[(*n)++] = e->valuestring;
	return v;
}

static void file_hash_hex(const char *root, const char *rel, char out[33])
{
	char *abs = path_join(root, rel);
	size_t len;
	char *data = fileio_read_at(AT_FDCWD, abs, &len);
	free(abs);
	if (!data) {
		strcpy(out, "absent");
		return;
	}
	hash_hex(data, len, out);
	free(data);
}

static const char *fingerprint(struct keyer *k)
{
	if (k->fingerprint)
		return k->fingerprint;
	XXH3_state_t *s = XXH3_createState();
	XXH3_128bits_reset(s);
	for (size_t i = 0; i < sizeof(fingerprint_files) / sizeof(*fingerprint_files); i++) {
		char h[33];
		file_hash_hex(k->in.root, fingerprint_files[i], h);
		if (strcmp(h, "absent") == 0)
			continue;
		fields(s, fingerprint_files[i]);
		fields(s, h);
	}
	k->fingerprint = xmalloc(33);
	digest(s, k->fingerprint);
	XXH3_freeState(s);
	return k->fingerprint;
}

/* Run a runtime command in dir; the hash of its stdout and its status. */
static const char *runtime_hash(struct keyer *k, const char *dir, const char *cmd)
{
	char *id = xasprintf("%s\n%s", dir, cmd);
	char *cached = strmap_get(&k->runtime, id);
	if (cached) {
		free(id);
		return cached;
	}
	int p[2];
	char *cwd = path_join(k->in.root, dir);
	char *out = xmalloc(40);
	strcpy(out, "unrunnable");
	if (pipe2(p, O_CLOEXEC) == 0) {
		pid_t pid = fork();
		if (pid == 0) {
			dup2(p[1], 1);
			int nul = open("/dev/null", O_RDONLY);
			if (nul >= 0)
				dup2(nul, 0);
			if (chdir(cwd) == 0)
				execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
			_exit(127);
		}
		close(p[1]);
		XXH3_state_t *s = XXH3_createState();
		XXH3_128bits_reset(s);
		char buf[8192];
		ssize_t n;
		while ((n = read(p[0], buf, sizeof(buf))) != 0) {
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0)
				break;
			XXH3_128bits_update(s, buf, (size_t)n);
		}
		close(p[0]);
		int st = 0;
		while (pid > 0 && waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
		int code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		XXH3_128bits_update(s, &code, sizeof(code));
		digest(s, out);
		XXH3_freeState(s);
		if (code != 0)
			err_warn("inputs.runtime '%s' in %s exited %d; its status folds into the key",
				cmd, dir, code);
	}
	close(p[1]);
	free(cwd);
	strmap_put(&k->runtime, id, out);
	return out;
}

int key_task(struct keyer *k, cJSON *rec, bool explain)
{
	const char *id = jstr(rec, "id"), *kind = jstr(rec, "kind"), *dir = jstr(rec, "dir");
	if (!id || !kind || !dir)
		return -1;
	cJSON *old = strmap_get(&k->records, id);
	cJSON_Delete(old);
	strmap_put(&k->records, xstrdup(id), cJSON_Duplicate(rec, 1));
	if (strcmp(kind, "persistent") == 0) {
		cJSON_DeleteItemFromObjectCaseSensitive(rec, "key");
		cJSON_AddNullToObject(rec, "key");
		return 0;
	}
	XXH3_state_t *s = XXH3_createState();
	XXH3_128bits_reset(s);
	fields(s, KEY_FORMAT);
	fields(s, kind);
	cJSON *ex = explain ? cJSON_CreateObject() : NULL;
	bool group = strcmp(kind, "group") == 0;
	int rc = 0;
	if (group) {
		fields(s, id);
	} else {
		const char *cmd = jstr(rec, "command");
		fields(s, cmd ? cmd : "");
		if (ex) {
			char h[33];
			hash_hex(cmd ? cmd : "", cmd ? strlen(cmd) : 0, h);
			cJSON_AddStringToObject(ex, "command", h);
		}
		const cJSON *cache = cJSON_GetObjectItemCaseSensitive(rec, "cache");
		bool cached = cJSON_IsObject(cache);
		size_t ng = 0, nx = 0, nw = 0;
		const char **globs = cached ? strings(jpath(cache, "inputs", "files", NULL), &ng)
					    : xcalloc(2, sizeof(char *));
		if (!cached) {
			globs[0] = "**/*";
			ng = 1;
		}
		const char **outs = strings(cached ? jpath(cache, "outputs", "files", NULL) : NULL, &nx);
		const char **wsf = strings(cached ? jpath(cache, "inputs", "workspaceFiles", NULL) : NULL, &nw);
		struct inputs in, win;
		rc = inputs_collect(&k->in, dir, globs, ng, outs, nx, &in);
		if (rc == 0)
			rc = inputs_hash(&k->in, &in);
		memset(&win, 0, sizeof(win));
		if (rc == 0 && nw) {
			rc = inputs_collect(&k->in, ".", wsf, nw, NULL, 0, &win);
			if (rc == 0)
				rc = inputs_hash(&k->in, &win);
		}
		cJSON *exf = ex ? cJSON_AddObjectToObject(ex, "files") : NULL;
		for (int pass = 0; pass < 2 && rc == 0; pass++) {
			struct inputs *v = pass ? &win : &in;
			fields(s, pass ? "workspaceFiles" : "files");
			for (size_t i = 0; i < v->n; i++) {
				/* a workspace file is named from the root, to tell it apart */
				const char *name = pass ? v->v[i].path : v->v[i].rel;
				char *shown = pass ? xasprintf("//%s", name) : xstrdup(name);
				fields(s, shown);
				field(s, v->v[i].hash, 16);
				if (exf) {
					char h[33];
					hex16(v->v[i].hash, h);
					cJSON_AddStringToObject(exf, shown, h);
				}
				free(shown);
			}
		}
		inputs_free(&in);
		inputs_free(&win);
		free(globs);
		free(outs);
		free(wsf);

		size_t ne = 0, nr = 0;
		const char **env = strings(cached ? jpath(cache, "inputs", "env", NULL) : NULL, &ne);
		qsort(env, ne, sizeof(*env), cmp_str);
		cJSON *exe = ex ? cJSON_AddObjectToObject(ex, "env") : NULL;
		fields(s, "env");
		for (size_t i = 0; i < ne; i++) {
			const char *v = getenv(env[i]);
			fields(s, env[i]);
			char set = v ? 1 : 0;
			field(s, &set, 1);
			if (v)
				fields(s, v);
			if (exe) {
				char h[33];
				if (v)
					hash_hex(v, strlen(v), h);
				cJSON_AddItemToObject(exe, env[i], v ? cJSON_CreateString(h) : cJSON_CreateNull());
			}
		}
		free(env);
		const char **rt = strings(cached ? jpath(cache, "inputs", "runtime", NULL) : NULL, &nr);
		cJSON *exr = ex ? cJSON_AddObjectToObject(ex, "runtime") : NULL;
		fields(s, "runtime");
		for (size_t i = 0; i < nr; i++) {
			const char *h = runtime_hash(k, dir, rt[i]);
			fields(s, rt[i]);
			fields(s, h);
			if (exr)
				cJSON_AddStringToObject(exr, rt[i], h);
		}
		free(rt);

		char *pj = strcmp(dir, ".") ? xasprintf("%s/package.json", dir) : xstrdup("package.json");
		char ph[33];
		file_hash_hex(k->in.root, pj, ph);
		free(pj);
		fields(s, "package");
		fields(s, ph);
		fields(s, "workspace");
		fields(s, fingerprint(k));
		if (ex) {
			cJSON_AddStringToObject(ex, "package", ph);
			cJSON_AddStringToObject(ex, "workspace", fingerprint(k));
		}
	}
	/* the keys of the folded dependencies, sorted by id */
	size_t nf = 0;
	const char **folds = strings(cJSON_GetObjectItemCaseSensitive(rec, "folds"), &nf);
	qsort(folds, nf, sizeof(*folds), cmp_str);
	cJSON *exd = ex ? cJSON_AddObjectToObject(ex, "deps") : NULL;
	fields(s, "deps");
	for (size_t i = 0; i < nf && rc == 0; i++) {
		const char *dk = strmap_get(&k->keys, folds[i]);
		if (!dk) {
			err_warn("%s folds %s, whose key was never computed: send dependencies first",
				id, folds[i]);
			rc = -1;
			break;
		}
		fields(s, folds[i]);
		fields(s, dk);
		if (exd)
			cJSON_AddStringToObject(exd, folds[i], dk);
	}
	free(folds);
	if (rc != 0) {
		XXH3_freeState(s);
		cJSON_Delete(ex);
		return -1;
	}
	char *key = xmalloc(33);
	digest(s, key);
	XXH3_freeState(s);
	char *prev = strmap_get(&k->keys, id);
	if (prev)
		memcpy(prev, key, 33), free(key), key = prev;
	else
		strmap_put(&k->keys, xstrdup(id), key);
	cJSON_DeleteItemFromObjectCaseSensitive(rec, "key");
	cJSON_AddStringToObject(rec, "key", key);
	if (ex) {
		cJSON_DeleteItemFromObjectCaseSensitive(rec, "explain");
		cJSON_AddItemToObject(rec, "explain", ex);
	}
	return 0;
}

/* Where a task may write, as root-relative static prefixes ("" = all). */
static size_t write_reach(const cJSON *u, char ***out)
{
	const char *kind = jstr(u, "kind"), *dir = jstr(u, "dir");
	const cJSON *cache = cJSON_GetObjectItemCaseSensitive(u, "cache");
	const cJSON *sb = cJSON_GetObjectItemCaseSensitive(u, "sandbox");
	size_t n = 0;
	*out = NULL;
	if (strcmp(kind, "group") == 0)
		return 0;
	const cJSON *list = NULL;
	if (cJSON_IsObject(cache) && strcmp(kind, "persistent") != 0)
		list = jpath(cache, "outputs", "files", NULL);
	else if (cJSON_IsObject(sb))
		list = jpath(sb, "allow", "write", NULL);
	if (!list) {
		*out = xcalloc(2, sizeof(char *));
		(*out)[n++] = xstrdup(strcmp(dir, ".") ? dir : "");
		return n;
	}
	*out = xcalloc((size_t)cJSON_GetArraySize(list) + 1, sizeof(char *));
	const cJSON *e;
	cJSON_ArrayForEach(e, list) {
		if (!cJSON_IsString(e) || e->valuestring[0] == '!')
			continue;
		if (e->valuestring[0] == '/' || e->valuestring[0] == '~')
			continue; /* outside the workspace, or handled by the sandbox's wall */
		char *pre = glob_static_prefix(e->valuestring);
		char *joined = strcmp(dir, ".") ? path_join(dir, pre) : path_normalize(pre);
		free(pre);
		if (strcmp(joined, ".") == 0) {
			free(joined);
			joined = xstrdup("");
		}
		(*out)[n++] = joined;
	}
	return n;
}

/* Do two root-relative prefixes ("" = everything) overlap? */
static bool overlap(const char *a, const char *b)
{
	return !*a || !*b || path_is_within(a, b) || path_is_within(b, a);
}

bool key_final(struct keyer *k, const cJSON *rec)
{
	const char *dir = jstr(rec, "dir");
	const char *mydir = strcmp(dir, ".") ? dir : "";
	const cJSON *cache = cJSON_GetObjectItemCaseSensitive(rec, "cache");
	/* what this task reads: its input globs' prefixes, its workspaceFiles,
	 * its package.json; and every key reads the root lockfiles */
	size_t nr = 0;
	char *reads[256];
	const cJSON *e, *files = cJSON_IsObject(cache) ? jpath(cache, "inputs", "files", NULL) : NULL;
	if (!files) {
		reads[nr++] = xstrdup(mydir);
	} else {
		cJSON_ArrayForEach(e, files) if (cJSON_IsString(e) && e->valuestring[0] != '!' && nr < 200)
		{
			char *pre = glob_static_prefix(e->valuestring);
			char *j = *mydir ? path_join(mydir, pre) : path_normalize(pre);
			free(pre);
			if (strcmp(j, ".") == 0)
				j[0] = '\0';
			reads[nr++] = j;
		}
		reads[nr++] = *mydir ? xasprintf("%s/package.json", mydir) : xstrdup("package.json");
	}
	const cJSON *wsf = cJSON_IsObject(cache) ? jpath(cache, "inputs", "workspaceFiles", NULL) : NULL;
	cJSON_ArrayForEach(e, wsf) if (cJSON_IsString(e) && e->valuestring[0] != '!' && nr < 250)
	{
		char *pre = glob_static_prefix(e->valuestring);
		reads[nr++] = pre;
	}
	for (size_t i = 0; i < sizeof(fingerprint_files) / sizeof(*fingerprint_files); i++)
		reads[nr++] = xstrdup(fingerprint_files[i]);

	/* every transitive dependency's write reach against those reads */
	bool final = true;
	struct strmap seen;
	strmap_init(&seen);
	const cJSON **stack = xcalloc(k->records.len + 1, sizeof(*stack));
	size_t sp = 0;
	stack[sp++] = rec;
	while (sp && final) {
		const cJSON *t = stack[--sp];
		const cJSON *deps = cJSON_GetObjectItemCaseSensitive(t, "deps");
		cJSON_ArrayForEach(e, deps) {
			if (!cJSON_IsString(e) || strmap_get(&seen, e->valuestring))
				continue;
			strmap_put(&seen, e->valuestring, (void *)1);
			const cJSON *u = strmap_get(&k->records, e->valuestring);
			if (!u)
				continue;
			char **w;
			size_t nw = write_reach(u, &w);
			for (size_t a = 0; a < nw; a++) {
				for (size_t b = 0; b < nr && final; b++)
					if (overlap(w[a], reads[b]))
						final = false;
				free(w[a]);
			}
			free(w);
			if (sp < k->records.len)
				stack[sp++] = u;
		}
	}
	free(stack);
	strmap_free(&seen);
	for (size_t i = 0; i < nr; i++)
		free(reads[i]);
	return final;
}
