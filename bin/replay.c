#include "replay.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <xxhash.h>

#include "err.h"
#include "jsonl.h"
#include "memo.h"
#include "proc.h"
#include "taskenv.h"
#include "runcache.h"
#include "slots.h"
#include "statsnap.h"
#include "summary.h"
#include "traceprobe.h"
#include "ui.h"
#include "wsroot.h"

/* the file: a memo (memo.h), its body the lines replay.h lists */
#define MEMO_KIND "run"
#define MEMO_VERSION 2
#define SLOTS 8

extern char **environ;

static char *memo_path(const char *root, char *const *args, int nargs)
{
	XXH3_state_t *s = XXH3_createState();
	XXH3_64bits_reset(s);
	XXH3_64bits_update(s, root, strlen(root) + 1);
	for (int i = 0; i < nargs; i++)
		XXH3_64bits_update(s, args[i], strlen(args[i]) + 1);
	unsigned long long h = XXH3_64bits_digest(s);
	XXH3_freeState(s);
	return xasprintf("%s/.vx/run-%016llx", root, h);
}

static void put_stat(XXH3_state_t *s, const char *path)
{
	struct stat st;
	struct statsnap snap;
	memset(&snap, 0, sizeof(snap)); /* a missing program hashes as zeros */
	if (stat(path, &st) == 0)
		statsnap_take(&snap, &st);
	XXH3_64bits_update(s, &snap, sizeof(snap));
}

static int by_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The programs a run starts and the environment it reads, as 16 hex: the
 * named variables (sorted, unique), every VX_ one and HOME, and the working
 * directory when VX_CACHE_DIR is relative to it. */
static void digest(char *const *names, size_t n, char out[17])
{
	XXH3_state_t *s = XXH3_createState();
	XXH3_64bits_reset(s);
	put_stat(s, "/proc/self/exe");
	static const char *const stages[] = {"vx-graph", "vx-key"};
	for (size_t i = 0; i < 2; i++) {
		char *p = proc_stage_path(stages[i]);
		put_stat(s, p);
		free(p);
	}
	size_t nvx = 0;
	while (environ[nvx])
		nvx++;
	char **vx = xcalloc(nvx + 1, sizeof(*vx));
	nvx = 0;
	for (size_t i = 0; i < n; i++) {
		const char *v = taskenv_is_pattern(names[i]) ? NULL : getenv(names[i]);
		XXH3_64bits_update(s, names[i], strlen(names[i]) + 1);
		XXH3_64bits_update(s, v ? "=" : "-", 1);
		if (v)
			XXH3_64bits_update(s, v, strlen(v) + 1);
	}
	/* a pattern's matches (VITE_*), '!' entries aside: a superset of
	 * what the key folds, so a change to any is a new run */
	for (char **e = environ; *e; e++) {
		bool m = strncmp(*e, "VX_", 3) == 0 || strncmp(*e, "HOME=", 5) == 0;
		for (size_t i = 0; i < n && !m; i++)
			m = names[i][0] != '!' && taskenv_is_pattern(names[i]) &&
			    taskenv_match(names[i], *e, strcspn(*e, "="));
		if (m)
			vx[nvx++] = *e;
	}
	qsort(vx, nvx, sizeof(*vx), by_str);
	for (size_t i = 0; i < nvx; i++)
		XXH3_64bits_update(s, vx[i], strlen(vx[i]) + 1);
	free(vx);
	const char *cd = getenv("VX_CACHE_DIR");
	if (cd && *cd && *cd != '/') {
		char *cwd = getcwd(NULL, 0);
		if (cwd)
			XXH3_64bits_update(s, cwd, strlen(cwd) + 1);
		free(cwd);
	}
	snprintf(out, 17, "%016llx", (unsigned long long)XXH3_64bits_digest(s));
	XXH3_freeState(s);
}

/* Is rel, under rootfd, reached with no symlink on the way (itself
 * included)? Absent is fine: whatever appears there later is an event. */
static bool no_symlink(int rootfd, const char *rel)
{
	struct open_how how = {.flags = O_PATH | O_CLOEXEC,
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH};
	int fd = (int)syscall(SYS_openat2, rootfd, rel, &how, sizeof(how));
	if (fd >= 0) {
		close(fd);
		return true;
	}
	return errno == ENOENT;
}

static const cJSON *jpath(const cJSON *o, const char *a, const char *b, const char *c)
{
	o = cJSON_GetObjectItemCaseSensitive(o, a);
	o = b ? cJSON_GetObjectItemCaseSensitive(o, b) : o;
	return c ? cJSON_GetObjectItemCaseSensitive(o, c) : o;
}

static bool plain(const char *s)
{
	return s && !strpbrk(s, "\t\n");
}

/* May this run be replayed while the tree stays the same? Its env names
 * are added to *names. */
static bool replayable(int rootfd, const cJSON *rec, char ***names, size_t *nn)
{
	const char *kind = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(rec, "kind"));
	const char *dir = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(rec, "dir"));
	const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(rec, "id"));
	const char *key = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(rec, "key"));
	if (!kind || !plain(dir) || !plain(id) || !key || strlen(key) != 32)
		return false;
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(rec, "linked")))
		return false;
	if (strcmp(kind, "group") == 0)
		return true;
	if (strcmp(kind, "exec") != 0 || !cJSON_IsObject(jpath(rec, "cache", NULL, NULL)))
		return false;
	if (cJSON_GetArraySize(jpath(rec, "cache", "inputs", "runtime")) > 0)
		return false;
	const cJSON *o;
	cJSON_ArrayForEach(o, jpath(rec, "cache", "outputs", "files")) {
		const char *g = cJSON_GetStringValue(o);
		if (!g || strstr(g, "node_modules") || strstr(g, ".git") || strstr(g, ".vx"))
			return false;
	}
	char *pj = xasprintf("%s/package.json", dir);
	bool ok = no_symlink(rootfd, strcmp(dir, ".") ? pj : "package.json");
	free(pj);
	if (!ok)
		return false;
	cJSON_ArrayForEach(o, jpath(rec, "cache", "inputs", "env")) {
		if (!cJSON_IsString(o) || !plain(o->valuestring))
			return false;
		*names = xrealloc(*names, (*nn + 1) * sizeof(**names));
		(*names)[(*nn)++] = o->valuestring;
	}
	return true;
}

static size_t uniq(char **v, size_t n)
{
	qsort(v, n, sizeof(*v), by_str);
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (!k || strcmp(v[k - 1], v[i]) != 0)
			v[k++] = v[i];
	return k;
}

void replay_save(const char *root, char *const *args, int nargs, const char *tok,
	cJSON *const *recs, size_t n)
{
	int rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0)
		return;
	char **names = xcalloc(1, sizeof(*names));
	size_t nn = 0;
	bool ok = n > 0;
	for (size_t i = 0; ok && i < WSROOT_NFINGERPRINT; i++)
		ok = no_symlink(rootfd, wsroot_fingerprint[i]);
	for (size_t i = 0; ok && i < n; i++)
		ok = replayable(rootfd, recs[i], &names, &nn);
	close(rootfd);
	char *file = memo_path(root, args, nargs);
	char *text = NULL;
	size_t len = 0;
	if (!ok)
		goto out;
	nn = uniq(names, nn);
	char env[17];
	digest(names, nn, env);
	FILE *m = open_memstream(&text, &len);
	fprintf(m, "token\t%s\nenv\t%s", tok, env);
	for (size_t i = 0; i < nn; i++)
		fprintf(m, "\t%s", names[i]);
	fputc('\n', m);
	for (size_t i = 0; i < n; i++) {
		const char *kind = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(recs[i], "kind"));
		/* 's': a sandboxed exec task, replayed only where it can be traced */
		bool sb = cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(recs[i], "sandbox"));
		fprintf(m, "task\t%c\t%s\t%s\t%s\n", sb && kind[0] == 'e' ? 's' : kind[0],
			cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(recs[i], "key")),
			cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(recs[i], "dir")),
			cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(recs[i], "id")));
	}
	fclose(m);
	/* a fresh temporary, never a planted one followed (memo.h, atomicw.h) */
	if (memo_save(file, MEMO_KIND, MEMO_VERSION, text, len, 0644) == 0) {
		char *dir = xasprintf("%s/.vx", root);
		slots_prune(dir, "run-", SLOTS);
		free(dir);
	}
out:
	free(text);
	free(names);
	free(file);
}

struct remembered {
	char kind; /* 'e' exec, 's' sandboxed exec, 'g' group */
	const char *key, *dir, *id;
	struct strbuf log;
	double started, ms; /* as replayed (ui_now_ms()) */
};

/* Split line at every tab into v (at most max fields); the count. */
static size_t fields(char *line, char **v, size_t max)
{
	size_t n = 0;
	for (char *p = line; p && n < max; n++) {
		v[n] = p;
		if ((p = strchr(p, '\t')))
			*p++ = '\0';
	}
	return n;
}

int replay_try(const char *root, char *const *args, int nargs, const char *tok,
	const struct ui_opts *show, bool dry)
{
	double t0 = ui_now_ms();
	char *file = memo_path(root, args, nargs);
	struct memo memo;
	enum memo_status ms = memo_load(&memo, file, MEMO_KIND, MEMO_VERSION);
	free(file);
	char *text = memo.body;
	struct remembered *t = NULL;
	char **f = NULL;
	size_t n = 0;
	int rc_out = -1;
	struct runcache rc = {0};
	if (ms != MEMO_OK)
		goto out;
	/* the token first: a run after a change stops here, having stat'ed nothing */
	size_t max = 1; /* no line has more fields than the file has tabs, plus one */
	for (const char *p = text; (p = strchr(p, '\t')); p++)
		max++;
	f = xcalloc(max, sizeof(*f));
	char *line = text, *nl;
	bool env_ok = false;
	if (strncmp(line, "token\t", 6) != 0 || !(nl = strchr(line, '\n')))
		goto out;
	*nl = '\0';
	if (strcmp(line + 6, tok) != 0)
		goto out;
	for (line = nl + 1; *line; line = nl + 1) {
		if (!(nl = strchr(line, '\n')))
			goto out;
		*nl = '\0';
		size_t k = fields(line, f, max);
		if (strcmp(f[0], "env") == 0 && k >= 2) {
			char got[17];
			digest(f + 2, k - 2, got);
			env_ok = strcmp(got, f[1]) == 0;
			if (!env_ok)
				goto out;
		} else if (strcmp(f[0], "task") == 0 && k == 5 && strlen(f[1]) == 1 &&
			   strlen(f[2]) == 32) {
			t = xrealloc(t, (n + 1) * sizeof(*t));
			t[n++] = (struct remembered){.kind = f[1][0], .key = f[2], .dir = f[3], .id = f[4]};
			if (t[n - 1].kind != 'e' && t[n - 1].kind != 'g' && t[n - 1].kind != 's')
				goto out;
			/* R-10a: not restored where it cannot be traced: the full run */
			if (t[n - 1].kind == 's' && traceprobe_refused())
				goto out;
		} else {
			goto out;
		}
	}
	if (!env_ok || !n)
		goto out;
	runcache_open(&rc, root);
	for (size_t i = 0; i < n; i++)
		if (t[i].kind != 'g' && !runcache_hit_vouched(&rc, t[i].key, root, t[i].dir, &t[i].log))
			goto out;
	if (dry) {
		for (size_t i = 0; i < n; i++)
			ui_dry_line(t[i].id, "hit", t[i].key, true, show->json);
		rc_out = jsonl_out_finish();
		goto out;
	}
	struct ui ui;
	ui_init(&ui, show);
	ui.replayed = true;
	double at = t0;
	for (size_t i = 0; i < n; i++) {
		double now = ui_now_ms();
		struct ui_result r = {.id = t[i].id, .status = UI_HIT, .ms = now - at,
			.key = t[i].key, .log = t[i].log.buf, .loglen = t[i].log.len};
		t[i].started = at;
		t[i].ms = now - at;
		at = now;
		ui_result(&ui, &r);
	}
	ui_summary(&ui, n, ui_now_ms() - t0);
	rc_out = jsonl_out_finish();
	if (summary_wanted()) { /* vx run --summarize */
		struct summary_replayed *sr = xcalloc(n, sizeof(*sr));
		for (size_t i = 0; i < n; i++)
			sr[i] = (struct summary_replayed){.kind = t[i].kind, .key = t[i].key,
				.dir = t[i].dir, .id = t[i].id, .started = t[i].started, .ms = t[i].ms};
		summary_write_replayed(root, sr, n, rc_out);
		free(sr);
	}
out:
	if (rc.c)
		runcache_close(&rc);
	for (size_t i = 0; i < n; i++)
		strbuf_release(&t[i].log);
	free(t);
	free(f);
	memo_free(&memo);
	return rc_out;
}
