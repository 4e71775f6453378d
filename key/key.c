#include "key.h"

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <xxhash.h>

#include "canon.h"
#include "err.h"
#include "glob.h"
#include "path.h"
#include "runtime.h"
#include "shadow.h"
#include "taskenv.h"
#include "taskreq.h"
#include "wsroot.h"

#define KEY_FORMAT "vx-key 4"


/* What the final rule needs of a task already keyed. */
struct task {
	char *id;
	char key[33];
	bool has_key; /* false for a persistent task */
	bool final;
	/* for the final rule ahead of a run: not kept --live, where all are final */
	char **reach; /* root-relative prefixes it may write; "" = everywhere */
	size_t nreach;
	struct task **deps; /* those keyed before it (records come in dependency order) */
	size_t ndeps;
	unsigned mark;
};

struct runtime_out {
	uint8_t hash[16];
};

/* The message: every field a u64 LE length then its bytes. It is gathered
 * in a buffer and hashed once (the same bytes streamed give the same
 * XXH3-128): two updates a field cost more than the copy. */
static void put_u64(struct strbuf *s, uint64_t v)
{
	if (s->alloc - s->len <= 8)
		strbuf_grow(s, 8);
	uint64_t le = htole64(v);
	memcpy(s->buf + s->len, &le, 8);
	s->len += 8;
	s->buf[s->len] = '\0';
}

static void put(struct strbuf *s, const void *p, size_t n)
{
	if (s->alloc - s->len <= n + 8)
		strbuf_grow(s, n + 8);
	put_u64(s, n);
	memcpy(s->buf + s->len, p, n);
	s->len += n;
	s->buf[s->len] = '\0';
}

static void put_str(struct strbuf *s, const char *str)
{
	put(s, str, strlen(str));
}

static void digest16(const struct strbuf *s, uint8_t out[16])
{
	XXH128_canonical_t c;
	XXH128_canonicalFromHash(&c, XXH3_128bits(s->buf, s->len));
	memcpy(out, c.digest, 16);
}

static void hex(const uint8_t h[16], char out[33])
{
	static const char hx[] = "0123456789abcdef";
	for (int i = 0; i < 16; i++) {
		out[2 * i] = hx[h[i] >> 4];
		out[2 * i + 1] = hx[h[i] & 15];
	}
	out[32] = '\0';
}

static void hash_bytes(const void *p, size_t n, uint8_t out[16])
{
	XXH128_canonical_t c;
	XXH128_canonicalFromHash(&c, XXH3_128bits(p, n));
	memcpy(out, c.digest, 16);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static const cJSON *jget(const cJSON *o, const char *name)
{
	return cJSON_GetObjectItemCaseSensitive(o, name);
}

static const char *jstr(const cJSON *o, const char *name)
{
	return cJSON_GetStringValue(jget(o, name));
}

static struct statcache *load_stats(const char *root, bool live)
{
	struct statcache *sc = statcache_load(root);
	/* ahead of a run every key is a snapshot of the tree as it is now; a
	 * live key is taken when its task is ready, so it stats then */
	if (!live)
		statcache_preload(sc, root);
	return sc;
}

void key_prepare(struct keyer *k, const char *root, bool live)
{
	k->early = load_stats(root, live);
	k->early_root = xstrdup(root);
}

char *key_guess_root(void)
{
	char *dir = getcwd(NULL, 0), *slash;
	struct stat st;
	while (dir) {
		char *f = xasprintf("%s/.vx/key-stat", dir[1] ? dir : "");
		bool found = stat(f, &st) == 0;
		free(f);
		if (found)
			return dir;
		slash = strrchr(dir, '/');
		if (!slash || slash == dir) {
			free(dir);
			return NULL;
		}
		*slash = '\0';
	}
	return NULL;
}

static bool same_dir(const char *a, const char *b)
{
	struct stat sa, sb;
	return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

void key_init(struct keyer *k, const char *root, const cJSON *graph, bool live)
{
	struct statcache *early = k->early;
	char *early_root = k->early_root;
	memset(k, 0, sizeof(*k));
	k->live = live;
	k->in.root = xstrdup(root);
	k->in.rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	k->in.ig = ignore_open(root);
	if (early && same_dir(early_root, root)) {
		k->in.sc = early;
	} else {
		statcache_free(early);
		k->in.sc = load_stats(root, live);
	}
	free(early_root);
	strmap_init(&k->tasks);
	strmap_init(&k->runtime);
	strmap_init(&k->warned);
	/* nested projects are walls for the projects around them (the root's
	 * above all); copied, the graph record is freed after this */
	const cJSON *p, *projects = jget(graph, "projects");
	char **dirs = xcalloc((size_t)cJSON_GetArraySize(projects) + 1, sizeof(char *));
	size_t n = 0;
	cJSON_ArrayForEach(p, projects) {
		const char *d = jstr(p, "dir");
		if (d && strcmp(d, ".") != 0)
			dirs[n++] = path_normalize(d);
	}
	qsort(dirs, n, sizeof(*dirs), cmp_str);
	k->in.skip_dirs = (const char *const *)dirs;
	/* what vx-sandbox needs of the graph to run a runtime command */
	cJSON *g = cJSON_CreateObject();
	cJSON_AddStringToObject(g, "type", "graph");
	cJSON_AddNumberToObject(g, "v", 1);
	cJSON_AddStringToObject(g, "root", root);
	/* by reference: printed as it is, never copied (nor freed with g) */
	if (projects)
		cJSON_AddItemReferenceToObject(g, "projects", (cJSON *)projects);
	else
		cJSON_AddItemToObject(g, "projects", cJSON_CreateArray());
	char *line = cJSON_PrintUnformatted(g);
	k->graph = xstrdup(line);
	cJSON_free(line);
	cJSON_Delete(g);
	k->in.nskip = n;
}

/* A JSON array of strings (absent or null: empty) as a borrowed list. */
static int strlist(const cJSON *arr, const char ***out, size_t *n, const char *what, const char *where)
{
	*n = 0;
	*out = NULL;
	if (!arr || cJSON_IsNull(arr))
		return 0;
	if (!cJSON_IsArray(arr))
		goto bad;
	if (!arr->child)
		return 0; /* empty: no list to allocate (most of a task's are) */
	*out = xcalloc((size_t)cJSON_GetArraySize(arr) + 1, sizeof(char *));
	const cJSON *e;
	cJSON_ArrayForEach(e, arr) {
		if (!cJSON_IsString(e))
			goto bad;
		(*out)[(*n)++] = e->valuestring;
	}
	return 0;
bad:
	free(*out);
	*out = NULL;
	err_warn("%s: invalid record: \"%s\" must be an array of strings", where, what);
	return -1;
}

/* rel under the project dir, root-relative and normalised ("" for the
 * root); NULL when it leaves the workspace. */
static char *under(const char *dir, const char *rel)
{
	char *j = path_join(dir, rel);
	if (strcmp(j, ".") == 0)
		j[0] = '\0';
	if (j[0] == '/' || (j[0] == '.' && j[1] == '.' && (j[2] == '/' || !j[2]))) {
		free(j);
		return NULL;
	}
	return j;
}

/* A write grant's static prefix, root-relative; NULL outside the workspace. */
static char *grant_prefix(const char *root, const char *dir, const char *grant)
{
	char *pre = glob_static_prefix(grant);
	char *out = NULL;
	if (pre[0] == '/' || pre[0] == '~') {
		char *abs = path_expand_home(pre), *norm = path_normalize(abs), *nroot = path_normalize(root);
		out = path_under(nroot, norm);
		if (out && strcmp(out, ".") == 0)
			out[0] = '\0';
		free(abs);
		free(norm);
		free(nroot);
	} else {
		out = under(dir, pre);
	}
	free(pre);
	return out;
}

static void list_add(char ***v, size_t *n, char *s)
{
	if (!s)
		return;
	*v = xrealloc(*v, (*n + 1) * sizeof(**v));
	(*v)[(*n)++] = s;
}

/* Where an upstream task may write (the header's rule). */
static void write_reach(const char *root, struct task *t, const char *kind, const char *dir,
	const cJSON *cache, const cJSON *sandbox)
{
	const cJSON *e, *list = NULL;
	if (strcmp(kind, "group") == 0)
		return;
	bool exec = strcmp(kind, "exec") == 0;
	if (exec && cJSON_IsObject(cache)) {
		cJSON_ArrayForEach(e, jget(jget(cache, "outputs"), "files"))
			if (cJSON_IsString(e) && e->valuestring[0] != '!')
				list_add(&t->reach, &t->nreach, under(dir, e->valuestring));
		return;
	}
	if (cJSON_IsObject(sandbox)) {
		list = jget(jget(sandbox, "allow"), "write");
		cJSON_ArrayForEach(e, list)
			if (cJSON_IsString(e))
				list_add(&t->reach, &t->nreach, grant_prefix(root, dir, e->valuestring));
		return;
	}
	list_add(&t->reach, &t->nreach, under(dir, "."));
}

static void task_clear(struct task *t)
{
	for (size_t i = 0; i < t->nreach; i++)
		free(t->reach[i]);
	free(t->reach);
	free(t->deps);
	t->reach = NULL;
	t->deps = NULL;
	t->nreach = t->ndeps = 0;
}

/* A runtime command's output, once per process for each project, command
 * and boundary (runtime.h): NULL after a message when a sandboxed task's
 * command cannot run in its sandbox. sbc: the canonical sandbox, or NULL. */
static const struct runtime_out *runtime_run(struct keyer *k, const cJSON *rec, const char *dir,
	const char *cmd, const char *sbc)
{
	/* a sandboxed task's linked packages follow its cache and keyed too */
	char *keyed = sbc ? cJSON_PrintUnformatted(k->rf.keyed) : NULL;
	char *id = xasprintf("%s\n%s\n%s\n%d\n%s", dir, cmd, sbc ? sbc : "",
		cJSON_IsObject(k->rf.cache), keyed ? keyed : "");
	cJSON_free(keyed);
	struct runtime_out *ro = strmap_get(&k->runtime, id);
	if (ro) {
		free(id);
		return ro;
	}
	uint8_t h[16];
	int code;
	if (runtime_exec(k->in.root, dir, cmd, k->graph, sbc ? rec : NULL, h, &code) != 0) {
		free(id);
		return NULL;
	}
	if (code != 0)
		err_warn("inputs.runtime '%s' in '%s'%s exited %d; its status folds into the key", cmd,
			dir, sbc ? " (inside the task's sandbox)" : "", code);
	ro = xcalloc(1, sizeof(*ro));
	memcpy(ro->hash, h, 16);
	strmap_put(&k->runtime, id, ro);
	return ro;
}

/* The workspace fingerprint: once, and again after each rescan record in
 * --live mode (a task ran and may have rewritten a lockfile). */
static int fingerprint(struct keyer *k, uint8_t out[16])
{
	if (k->have_fp) {
		memcpy(out, k->fp, 16);
		return 0;
	}
	uint8_t h[WSROOT_NFINGERPRINT][16];
	bool present[WSROOT_NFINGERPRINT];
	uint64_t n = 0;
	size_t linked = k->in.linked;
	for (size_t i = 0; i < WSROOT_NFINGERPRINT; i++) {
		int r = inputs_hash_file(&k->in, wsroot_fingerprint[i], h[i], &k->fp_st[i]);
		if (r < 0)
			return -1;
		present[i] = k->fp_present[i] = r == 1;
		n += present[i];
	}
	k->fp_linked = k->in.linked > linked;
	struct strbuf s = STRBUF_INIT;
	put_u64(&s, n);
	for (size_t i = 0; i < WSROOT_NFINGERPRINT; i++) {
		if (!present[i])
			continue;
		put_str(&s, wsroot_fingerprint[i]);
		put(&s, h[i], 16);
	}
	digest16(&s, k->fp);
	strbuf_release(&s);
	k->have_fp = true;
	memcpy(out, k->fp, 16);
	return 0;
}

/* Has this input a second name that vx-watch does not see (replay.h)?
 * Not when that name is the checkout's shadow of an output (shadow.h),
 * which only vx writes, and never into the bytes. */
static bool linked_elsewhere(const struct keyer *k, const char *base, const char *rel,
	const struct stat *st)
{
	if (!S_ISREG(st->st_mode) || st->st_nlink < 2)
		return false;
	char *state = path_join(k->in.root, ".vx"), *proj = path_normalize(base);
	bool own = shadow_holds(state, proj, rel, st);
	free(state);
	free(proj);
	return !own;
}

/* The input files of an exec task, folded in and listed in ex. matched,
 * when given, says for each glob whether it selected a file. */
static int fold_files(struct keyer *k, struct strbuf *s, const char *section, const char *base,
	const char *const *globs, size_t ng, const char *const *outs, size_t no, cJSON *ex,
	bool *matched)
{
	struct inputs *in = &k->files; /* emptied, its buffers kept */
	int rc = inputs_collect(&k->in, base, globs, ng, outs, no, in);
	for (size_t g = 0; rc == 0 && matched && g < ng; g++) {
		matched[g] = globs[g][0] == '!';
		for (size_t i = 0; i < in->n && !matched[g]; i++)
			matched[g] = glob_match(globs[g], input_rel(in, i));
	}
	for (size_t i = 0; rc == 0 && i < in->n; i++)
		if (linked_elsewhere(k, base, input_rel(in, i), &in->v[i].st))
			k->in.linked++;
	if (rc == 0)
		rc = inputs_hash(&k->in, in);
	if (rc == 0) {
		put_str(s, section);
		put_u64(s, in->n);
		cJSON *exf = ex ? cJSON_AddObjectToObject(ex, section) : NULL;
		for (size_t i = 0; i < in->n; i++) {
			put_str(s, input_rel(in, i));
			put(s, in->v[i].hash, 16);
			if (exf) {
				char h[33];
				hex(in->v[i].hash, h);
				cJSON_AddItemToObject(exf, input_rel(in, i), cJSON_CreateString(h));
			}
		}
	}
	return rc;
}

/* A workspaceFiles glob that selects no file keys nothing, which its
 * author did not mean: said once per glob per process (one vx run), for
 * the first task that names it. */
static void warn_unmatched(struct keyer *k, const char *glob, size_t i)
{
	const char *id = cJSON_GetStringValue(k->rf.id), *name = cJSON_GetStringValue(k->rf.name);
	const char *file = cJSON_GetStringValue(k->rf.config);
	/* once a run for the glob, however many tasks name it (turbo's
	 * globalDependencies reach every task) */
	char *seen = xstrdup(glob);
	if (strmap_get(&k->warned, seen)) {
		free(seen);
		return;
	}
	strmap_put(&k->warned, seen, seen);
	err_warn("%s: tasks.%s.cache.inputs.workspaceFiles[%zu]: '%s' matches no file, so %s's key "
		 "folds nothing for it; fix: write a glob relative to the workspace root that names "
		 "files (gitignored ones and node_modules never count), or remove it",
		file ? file : "(no vx.json)", name ? name : id, i, glob, id);
}

static int key_exec(struct keyer *k, struct strbuf *s, const cJSON *rec, const char *dir,
	const char *where, cJSON *ex)
{
	const struct key_fields *f = &k->rf;
	const char *cmd = cJSON_GetStringValue(f->command);
	if (!cmd) {
		err_warn("%s: invalid record: an exec task needs a string \"command\"", where);
		return -1;
	}
	put_str(s, "command");
	put_str(s, cmd);
	if (ex) {
		uint8_t h[16];
		char hx[33];
		hash_bytes(cmd, strlen(cmd), h);
		hex(h, hx);
		cJSON_AddStringToObject(ex, "command", hx);
	}
	/* the boundary it runs under: another boundary, another result */
	const cJSON *sb = f->sandbox;
	if (sb && !cJSON_IsNull(sb) && !cJSON_IsObject(sb)) {
		err_warn("%s: invalid record: \"sandbox\" must be an object or null", where);
		return -1;
	}
	char *sbc = canon_sandbox(sb);
	put_str(s, "sandbox");
	put_u64(s, sbc != NULL);
	if (sbc)
		put_str(s, sbc);
	if (ex) {
		uint8_t h[16];
		char hx[33];
		if (sbc) {
			hash_bytes(sbc, strlen(sbc), h);
			hex(h, hx);
		}
		cJSON_AddItemToObject(ex, "sandbox", sbc ? cJSON_CreateString(hx) : cJSON_CreateNull());
	}
	const cJSON *cache = f->cache, *inp = jget(cache, "inputs");
	bool cached = cJSON_IsObject(cache);
	static const char *const all[] = {"**/*"};
	const char **globs = NULL, **outs = NULL, **wsf = NULL, **env = NULL, **rt = NULL;
	const char **pass = NULL;
	size_t ng = 0, no = 0, nw = 0, ne = 0, nr = 0, np = 0;
	int rc = -1;
	if (strlist(jget(inp, "files"), &globs, &ng, "cache.inputs.files", where) ||
		strlist(jget(jget(cache, "outputs"), "files"), &outs, &no, "cache.outputs.files", where) ||
		strlist(jget(inp, "workspaceFiles"), &wsf, &nw, "cache.inputs.workspaceFiles", where) ||
		strlist(jget(inp, "env"), &env, &ne, "cache.inputs.env", where) ||
		strlist(f->pass_env, &pass, &np, "passThroughEnv", where) ||
		strlist(jget(inp, "runtime"), &rt, &nr, "cache.inputs.runtime", where))
		goto out;
	/* names and commands in byte order: reordering the config moves nothing */
	if (np > 1)
		qsort(pass, np, sizeof(*pass), cmp_str);
	if (nr > 1)
		qsort(rt, nr, sizeof(*rt), cmp_str);
	/* no cache, or no inputs.files: every file of the project */
	bool dflt = !cached || !jget(inp, "files") || cJSON_IsNull(jget(inp, "files"));
	if (fold_files(k, s, "files", dir, dflt ? all : globs, dflt ? 1 : ng, outs, no, ex, NULL) != 0)
		goto out;
	/* root-relative globs the user wrote: they reach into the projects
	 * nested in the root too (a sibling's sources, as the withheld-link
	 * hint recommends), which a project's own files leave out */
	bool *matched = xcalloc(nw + 1, sizeof(bool));
	size_t nskip = k->in.nskip;
	k->in.nskip = 0;
	int wr = fold_files(k, s, "workspaceFiles", ".", wsf, nw, NULL, 0, ex, matched);
	k->in.nskip = nskip;
	for (size_t i = 0; wr == 0 && i < nw; i++)
		if (!matched[i])
			warn_unmatched(k, wsf[i], i);
	free(matched);
	if (wr != 0)
		goto out;

	/* what the task is handed (R-8a): the mode and the passed-through
	 * names, then the keyed variables' values (taskenv.h) */
	const cJSON *mode = f->env_mode;
	put_str(s, "envMode");
	put_str(s, cJSON_IsString(mode) ? mode->valuestring : "strict");
	put_u64(s, np);
	for (size_t i = 0; i < np; i++)
		put_str(s, pass[i]);
	if (ex) {
		cJSON_AddStringToObject(ex, "envMode", cJSON_IsString(mode) ? mode->valuestring : "strict");
		cJSON_AddItemToObject(ex, "passThroughEnv",
			np ? cJSON_CreateStringArray(pass, (int)np) : cJSON_CreateArray());
	}
	size_t nnames;
	char **names = taskenv_keyed_names(jget(inp, "env"), &nnames);
	put_str(s, "env");
	put_u64(s, nnames);
	cJSON *exe = ex ? cJSON_AddObjectToObject(ex, "env") : NULL;
	for (size_t i = 0; i < nnames; i++) {
		const char *v = getenv(names[i]);
		put_str(s, names[i]);
		put_u64(s, v != NULL); /* unset is not the empty string */
		if (v)
			put_str(s, v);
		if (exe) {
			uint8_t h[16];
			char hx[33];
			if (v) {
				hash_bytes(v, strlen(v), h);
				hex(h, hx);
			}
			cJSON_AddItemToObject(exe, names[i], v ? cJSON_CreateString(hx) : cJSON_CreateNull());
		}
	}
	taskenv_names_free(names, nnames);

	put_str(s, "runtime");
	put_u64(s, nr);
	cJSON *exr = ex ? cJSON_AddObjectToObject(ex, "runtime") : NULL;
	for (size_t i = 0; i < nr; i++) {
		const struct runtime_out *ro = runtime_run(k, rec, dir, rt[i], sbc);
		if (!ro)
			goto out;
		put_str(s, rt[i]);
		put(s, ro->hash, 16);
		if (exr) {
			char hx[33];
			hex(ro->hash, hx);
			cJSON_AddStringToObject(exr, rt[i], hx);
		}
	}

	uint8_t ph[16], fp[16];
	char *pj = under(dir, "package.json");
	struct stat pst;
	int got = pj ? inputs_hash_file(&k->in, pj, ph, &pst) : 0;
	if (pj && got >= 0 && k->in.stamp)
		inputstamp_add(&k->stamp, pj, got == 1 ? &pst : NULL);
	free(pj);
	if (got < 0 || fingerprint(k, fp) != 0)
		goto out;
	if (k->in.stamp) {
		const struct stat *lock[WSROOT_NFINGERPRINT];
		for (size_t i = 0; i < WSROOT_NFINGERPRINT; i++)
			lock[i] = k->fp_present[i] ? &k->fp_st[i] : NULL;
		inputstamp_lockfiles(&k->stamp, lock);
	}
	put_str(s, "package");
	put_u64(s, got == 1);
	if (got == 1)
		put(s, ph, 16);
	put_str(s, "workspace");
	put(s, fp, 16);
	if (ex) {
		char hx[33];
		hex(ph, hx);
		cJSON_AddItemToObject(ex, "package", got == 1 ? cJSON_CreateString(hx) : cJSON_CreateNull());
		hex(fp, hx);
		cJSON_AddStringToObject(ex, "workspace", hx);
	}
	rc = 0;
out:
	free(sbc);
	free(globs);
	free(outs);
	free(wsf);
	free(env);
	free(rt);
	free(pass);
	return rc;
}

static bool overlap(const char *a, const char *b)
{
	return !*a || !*b || path_is_within(a, b) || path_is_within(b, a);
}

/* R-9a ahead of the run (the header's rule). */
static bool is_final(struct keyer *k, const struct task *t, const char *kind,
	const char *dir, const char *const *folds, size_t nf)
{
	for (size_t i = 0; i < nf; i++) {
		const struct task *u = strmap_get(&k->tasks, folds[i]);
		if (u && !u->final)
			return false; /* it folds a key that may still move */
	}
	char **reads = NULL;
	size_t nr = 0;
	const cJSON *e, *cache = k->rf.cache, *inp = jget(cache, "inputs");
	if (strcmp(kind, "exec") == 0) {
		const cJSON *files = jget(inp, "files");
		if (!cJSON_IsObject(cache) || !cJSON_IsArray(files)) {
			list_add(&reads, &nr, under(dir, "."));
		} else {
			cJSON_ArrayForEach(e, files) if (cJSON_IsString(e) && e->valuestring[0] != '!')
			{
				char *pre = glob_static_prefix(e->valuestring);
				list_add(&reads, &nr, under(dir, pre));
				free(pre);
			}
			list_add(&reads, &nr, under(dir, "package.json"));
		}
		cJSON_ArrayForEach(e, jget(inp, "workspaceFiles")) if (cJSON_IsString(e) && e->valuestring[0] != '!')
		{
			char *pre = glob_static_prefix(e->valuestring);
			list_add(&reads, &nr, under(".", pre));
			free(pre);
		}
		for (size_t i = 0; i < WSROOT_NFINGERPRINT; i++)
			list_add(&reads, &nr, xstrdup(wsroot_fingerprint[i]));
	}
	/* every transitive dependency's reach against those reads */
	bool final = true;
	unsigned mark = ++k->mark;
	size_t sp = 0, cap = 0;
	const struct task **stack = NULL;
	XGROW(stack, sp + 1, cap);
	stack[sp++] = t;
	while (sp && final && nr) {
		const struct task *cur = stack[--sp];
		for (size_t i = 0; i < cur->ndeps && final; i++) {
			struct task *u = cur->deps[i];
			if (u->mark == mark || u == t)
				continue;
			u->mark = mark;
			for (size_t a = 0; a < u->nreach && final; a++)
				for (size_t b = 0; b < nr && final; b++)
					if (overlap(u->reach[a], reads[b]))
						final = false;
			XGROW(stack, sp + 1, cap);
			stack[sp++] = u;
		}
	}
	free(stack);
	for (size_t i = 0; i < nr; i++)
		free(reads[i]);
	free(reads);
	return final;
}

/* The key message of t into t->key (and what it folded into ex, when
 * given; the stamp into k->stamp for an exec task). 0, or -1 after a
 * message. */
static int fold(struct keyer *k, struct task *t, const cJSON *rec, const char *kind,
	const char *ndir, const char **folds, size_t nf, const char *where, cJSON *ex)
{
	bool group = strcmp(kind, "group") == 0;
	int rc = -1;
	struct strbuf *s = &k->msg;
	strbuf_reset(s);
	put_str(s, KEY_FORMAT);
	put_str(s, kind);
	if (group) {
		put_str(s, "id");
		put_str(s, t->id);
	} else {
		/* what the key went by, for a check after the task ran */
		if (k->stamps) {
			inputstamp_begin(&k->stamp, ndir, statcache_now());
			k->in.stamp = &k->stamp;
		}
		int e = key_exec(k, s, rec, ndir, where, ex);
		k->in.stamp = NULL;
		if (e != 0)
			goto out;
	}
	put_str(s, "deps");
	put_u64(s, nf);
	cJSON *exd = ex ? cJSON_AddObjectToObject(ex, "deps") : NULL;
	for (size_t i = 0; i < nf; i++) {
		const struct task *u = strmap_get(&k->tasks, folds[i]);
		if (!u || u == t) {
			err_warn("%s: %s folds '%s', which no earlier record keyed (dependencies come first)",
				where, t->id, folds[i]);
			goto out;
		}
		put_str(s, folds[i]);
		put_str(s, u->has_key ? u->key : "");
		if (exd)
			cJSON_AddItemToObject(exd, folds[i],
				u->has_key ? cJSON_CreateString(u->key) : cJSON_CreateNull());
	}
	uint8_t h[16];
	digest16(s, h);
	hex(h, t->key);
	rc = 0;
out:
	return rc;
}

/* k->rf for rec: one pass over its members, where a lookup by name for
 * each of ~25 reads compared up to every member (~330 strcmp a task). */
static void index_fields(struct keyer *k, const cJSON *rec)
{
#define F(n, m) {n, offsetof(struct key_fields, m)}
	static const struct {
		const char *name;
		size_t off;
	} names[] = {F("id", id), F("kind", kind), F("dir", dir), F("name", name),
		F("config", config), F("command", command), F("sandbox", sandbox), F("cache", cache),
		F("keyed", keyed), F("folds", folds), F("deps", deps), F("envMode", env_mode),
		F("passThroughEnv", pass_env), F("explainedKey", explained_key)};
#undef F
	memset(&k->rf, 0, sizeof(k->rf));
	for (const cJSON *m = rec->child; m; m = m->next) {
		const char *nm = m->string;
		if (!nm)
			continue;
		for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++) {
			if (nm[0] != names[i].name[0] || strcmp(nm, names[i].name) != 0)
				continue;
			const cJSON **slot = (const cJSON **)((char *)&k->rf + names[i].off);
			if (!*slot)
				*slot = m;
			break;
		}
	}
}

int key_task(struct keyer *k, cJSON *rec, bool explain, const char *where)
{
	index_fields(k, rec);
	const struct key_fields *f = &k->rf;
	const char *id = cJSON_GetStringValue(f->id), *kind = cJSON_GetStringValue(f->kind);
	const char *dir = cJSON_GetStringValue(f->dir);
	if (!id || !kind || !dir) {
		err_warn("%s: invalid record: a task needs string members \"id\", \"kind\" and \"dir\"", where);
		return -1;
	}
	bool exec = strcmp(kind, "exec") == 0, group = strcmp(kind, "group") == 0;
	bool persistent = strcmp(kind, "persistent") == 0;
	if (!exec && !group && !persistent) {
		err_warn("%s: invalid record: unknown kind '%s' (exec, group or persistent)", where, kind);
		return -1;
	}
	char *ndir = under(".", dir);
	if (!ndir) {
		err_warn("%s: invalid record: dir '%s' is not inside the workspace", where, dir);
		return -1;
	}
	if (!*ndir) {
		free(ndir);
		ndir = xstrdup(".");
	}
	const cJSON *cache = f->cache, *sandbox = f->sandbox;
	const char **folds = NULL, **deps = NULL;
	size_t nf = 0, nd = 0;
	cJSON *ex = NULL;
	int rc = -1;
	if (cache && !cJSON_IsNull(cache) && !cJSON_IsObject(cache)) {
		err_warn("%s: invalid record: \"cache\" must be an object or null", where);
		goto out;
	}
	if (strlist(f->folds, &folds, &nf, "folds", where) ||
		strlist(f->deps, &deps, &nd, "deps", where))
		goto out;

	struct task *t = strmap_get(&k->tasks, id);
	if (!t) {
		t = xcalloc(1, sizeof(*t));
		t->id = xstrdup(id);
		strmap_put(&k->tasks, t->id, t);
	}
	task_clear(t);
	t->has_key = false;
	t->final = true;
	/* what the final rule walks; live, every key is final and none is kept */
	if (!k->live) {
		t->deps = xcalloc(nd + 1, sizeof(*t->deps));
		for (size_t i = 0; i < nd; i++) {
			struct task *u = strmap_get(&k->tasks, deps[i]);
			if (u)
				t->deps[t->ndeps++] = u;
		}
		write_reach(k->in.root, t, kind, ndir, cache, sandbox);
	}

	/* the members key_task adds, as a record sent again carries them */
	taskreq_drop_key_members(rec);
	size_t linked = k->in.linked;
	if (persistent) {
		cJSON_AddNullToObject(rec, "key");
		cJSON_AddTrueToObject(rec, "final");
		rc = 0;
		goto out;
	}

	/* the caller holds the explain of the key it names (vx run's index):
	 * none is made unless the key turns out another; then it is folded
	 * again, with one (each count of VX_KEY_STATS once) */
	const char *known = explain ? cJSON_GetStringValue(f->explained_key) : NULL;
	if (nf > 1)
		qsort(folds, nf, sizeof(*folds), cmp_str);
	ex = explain && !known ? cJSON_CreateObject() : NULL;
	if (fold(k, t, rec, kind, ndir, folds, nf, where, ex) != 0)
		goto out;
	if (known && strcmp(known, t->key) != 0) {
		size_t hashed = k->in.hashed, cached = k->in.cached;
		ex = cJSON_CreateObject();
		if (fold(k, t, rec, kind, ndir, folds, nf, where, ex) != 0)
			goto out;
		k->in.hashed = hashed;
		k->in.cached = cached;
	}
	t->has_key = true;
	t->final = k->live || is_final(k, t, kind, ndir, folds, nf);
	cJSON_AddStringToObject(rec, "key", t->key);
	cJSON_AddBoolToObject(rec, "final", t->final);
	/* a file with another name elsewhere can change under that name with
	 * no event in this tree: vx run does not replay such a task (replay.h) */
	if (k->in.linked > linked || (!group && k->fp_linked))
		cJSON_AddTrueToObject(rec, "linked");
	if (ex) {
		cJSON_AddItemToObject(rec, "explain", ex);
		ex = NULL;
	}
	if (!group && k->stamps)
		cJSON_AddItemToObject(rec, "stamp", inputstamp_take(&k->stamp));
	rc = 0;
out:
	cJSON_Delete(ex);
	free(folds);
	free(deps);
	free(ndir);
	return rc;
}

void key_rescan(struct keyer *k)
{
	k->have_fp = false;
	statcache_preload_drop(k->in.sc); /* a task may have written an input */
}

void key_free(struct keyer *k)
{
	for (size_t i = 0; i < k->tasks.cap; i++) {
		struct task *t = k->tasks.keys[i] ? k->tasks.vals[i] : NULL;
		if (!t)
			continue;
		task_clear(t);
		free(t->id);
		free(t);
	}
	strmap_free(&k->tasks);
	for (size_t i = 0; i < k->runtime.cap; i++) {
		if (!k->runtime.keys[i])
			continue;
		free((char *)k->runtime.keys[i]);
		free(k->runtime.vals[i]);
	}
	strmap_free(&k->runtime);
	for (size_t i = 0; i < k->warned.cap; i++)
		free((char *)k->warned.keys[i]);
	strmap_free(&k->warned);
	for (size_t i = 0; i < k->in.nskip; i++)
		free((char *)k->in.skip_dirs[i]);
	free((void *)k->in.skip_dirs);
	statcache_free(k->in.sc);
	inputstamp_free(&k->stamp);
	ignore_free(k->in.ig);
	if (k->in.rootfd > 0)
		close(k->in.rootfd);
	free((char *)k->in.root);
	free(k->graph);
	strbuf_release(&k->msg);
	inputs_free(&k->files);
	statcache_free(k->early); /* key_prepare's, when no key_init took it */
	free(k->early_root);
}
