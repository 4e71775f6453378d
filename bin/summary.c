/* vx run --summarize: the run summary, written from the run's task table
 * once the run is over (summary.h; the format: docs/protocol.md). */
#include "summary.h"
#include "run_int.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "atomicw.h"
#include "err.h"

#ifndef VX_VERSION
#define VX_VERSION "dev" /* a release build sets -DVX_VERSION='"x.y"' */
#endif

static struct {
	int argc;
	char **argv;
	double wall0, mono0; /* ms at the start: since the epoch, and ui_now_ms() */
} S;

void summary_start(int argc, char **argv)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	S.wall0 = (double)ts.tv_sec * 1e3 + (double)(ts.tv_nsec / 1000000);
	S.mono0 = ui_now_ms();
	S.argc = argc;
	S.argv = argv;
}

/* ui_now_ms() time as ms since the epoch, whole */
static double wall(double mono)
{
	return floor(S.wall0 + (mono - S.mono0));
}

/* The run's id: its start, UTC, to the ms, then the pid: names sort by time. */
static char *run_id(void)
{
	time_t sec = (time_t)(S.wall0 / 1000);
	struct tm tm;
	char stamp[32];
	gmtime_r(&sec, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%S", &tm);
	return xasprintf("%s.%03dZ-%ld", stamp, (int)fmod(S.wall0, 1000), (long)getpid());
}

static char *command_line(void)
{
	struct strbuf b = {0};
	strbuf_add(&b, "vx", 2);
	for (int i = 0; i < S.argc; i++) {
		const char *v = S.argv[i];
		bool quote = !*v || strpbrk(v, " \t\n'\"$`\\;&|<>()*?[]{}~!#") != NULL;
		strbuf_add(&b, quote ? " '" : " ", quote ? 2 : 1);
		for (; *v; v++)
			strbuf_add(&b, *v == '\'' && quote ? "'\\''" : v, *v == '\'' && quote ? 4 : 1);
		if (quote)
			strbuf_add(&b, "'", 1);
	}
	strbuf_add(&b, "", 1);
	return b.buf;
}

/* How the task ended: vx run's words (a line's status, vx graph's outcome) */
static const char *outcome(const struct rtask *t)
{
	if (!t->done) /* the run was interrupted, or stopped its servers */
		return t->running ? "running" : t->started ? "interrupted" : "not-run";
	switch (t->status) {
	case UI_HIT:
		return "hit";
	case UI_FAIL:
		return t->viol.len ? "violation" : "failed";
	case UI_SKIP:
		return "skipped";
	case UI_STARTED:
		return "served"; /* by an earlier run of vx watch */
	default:
		return t->kind == K_GROUP ? "done" : "ran";
	}
}

static cJSON *cache_of(const struct run *r, const struct rtask *t)
{
	cJSON *c = cJSON_CreateObject();
	bool hit = t->done && t->status == UI_HIT;
	const char *st = hit ? "hit"
			 : !t->started || t->status == UI_SKIP ? "skipped"
			 : r->force && t->cached && t->kind == K_EXEC ? "forced"
								      : "miss";
	cJSON_AddStringToObject(c, "status", st);
	bool exec_hit = hit && t->kind == K_EXEC;
	cJSON_AddStringToObject(c, "source", !exec_hit ? "none" : t->remote_hit ? "remote" : "local");
	cJSON_AddBoolToObject(c, "local", exec_hit && !t->remote_hit);
	cJSON_AddBoolToObject(c, "remote", exec_hit && t->remote_hit);
	cJSON_AddBoolToObject(c, "cacheable", t->kind == K_EXEC && t->cached && r->use_cache);
	return c;
}

static cJSON *execution_of(const struct rtask *t)
{
	if (!t->started)
		return cJSON_CreateNull();
	cJSON *e = cJSON_CreateObject();
	double end = t->done || !t->running ? t->started + t->ms : ui_now_ms();
	cJSON_AddNumberToObject(e, "startTime", wall(t->started));
	cJSON_AddNumberToObject(e, "endTime", wall(end));
	cJSON_AddNumberToObject(e, "durationMs", round(end - t->started));
	if (t->kind == K_GROUP || t->status == UI_STARTED || (t->done && t->status == UI_HIT))
		cJSON_AddNumberToObject(e, "exitCode", 0);
	else if (t->exit_code < 0 || (!t->done && t->running))
		cJSON_AddNullToObject(e, "exitCode"); /* never ran, or still running */
	else
		cJSON_AddNumberToObject(e, "exitCode", t->exit_code);
	return e;
}

static cJSON *violations_of(const struct rtask *t)
{
	cJSON *v = cJSON_CreateObject();
	size_t n = 0;
	for (size_t i = 0; i < t->viol.len; i++)
		n += (i == 0 || t->viol.buf[i - 1] == '\n') && strncmp(t->viol.buf + i, "deny ", 5) == 0;
	cJSON_AddNumberToObject(v, "count", (double)n);
	ui_json_lines(v, "records", t->viol.buf ? t->viol.buf : "", t->viol.len);
	return v;
}

/* what the key folded, vx-key's explain split turbo's way: the files as
 * inputs, the env hashes as environmentVariables, the rest as keyInputs */
static void add_inputs(cJSON *j, const cJSON *rec)
{
	const cJSON *ex = cJSON_GetObjectItemCaseSensitive(rec, "explain");
	if (!cJSON_IsObject(ex))
		return;
	cJSON *rest = cJSON_CreateObject();
	const cJSON *m;
	cJSON_ArrayForEach(m, ex) {
		const char *as = strcmp(m->string, "files") == 0 ? "inputs"
				 : strcmp(m->string, "env") == 0 ? "environmentVariables"
								  : NULL;
		/* a reference: the record outlives the summary, nothing is copied */
		cJSON_AddItemReferenceToObject(as ? j : rest, as ? as : m->string, (cJSON *)m);
	}
	cJSON_AddItemToObject(j, "keyInputs", rest);
}

static void add_str(cJSON *j, const char *name, const char *s)
{
	if (s)
		cJSON_AddStringToObject(j, name, s);
	else
		cJSON_AddNullToObject(j, name);
}

static cJSON *task_of(const struct run *r, const struct rtask *t)
{
	static const char *const kinds[] = {[K_EXEC] = "exec", [K_GROUP] = "group",
		[K_PERSISTENT] = "persistent"};
	cJSON *j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "taskId", t->id);
	add_str(j, "task", graphin_str(t->rec, "name"));
	add_str(j, "package", graphin_str(t->rec, "project"));
	cJSON_AddStringToObject(j, "directory", t->dir);
	cJSON_AddStringToObject(j, "kind", kinds[t->kind]);
	add_str(j, "hash", t->key[0] ? t->key : NULL);
	add_str(j, "command", graphin_str(t->rec, "command"));
	const cJSON *deps = cJSON_GetObjectItemCaseSensitive(t->rec, "deps");
	if (deps)
		cJSON_AddItemReferenceToObject(j, "dependencies", (cJSON *)deps);
	else
		cJSON_AddItemToObject(j, "dependencies", cJSON_CreateArray());
	cJSON_AddStringToObject(j, "status", outcome(t));
	if (t->blocked)
		cJSON_AddStringToObject(j, "blockedBy", t->blocked->id);
	cJSON_AddItemToObject(j, "cache", cache_of(r, t));
	cJSON_AddItemToObject(j, "execution", execution_of(t));
	cJSON_AddBoolToObject(j, "sandboxed", t->sandboxed);
	cJSON_AddBoolToObject(j, "traced", t->sandboxed && !t->untraced);
	cJSON_AddItemToObject(j, "violations", violations_of(t));
	add_str(j, "envMode", graphin_str(t->rec, "envMode"));
	add_inputs(j, t->rec);
	return j;
}

/* every task's envMode when they agree, "mixed" when not, null with none */
static const char *env_mode(const struct run *r)
{
	const char *mode = NULL;
	for (size_t i = 0; i < r->n; i++) {
		const char *m = graphin_str(r->t[i].rec, "envMode");
		if (m && mode && strcmp(m, mode) != 0)
			return "mixed";
		mode = m ? m : mode;
	}
	return mode;
}

/* the run's totals over its exec and persistent tasks */
struct totals {
	size_t attempted, cached, failed, success, skipped;
};

/* The summary around tasks (taken), with its totals, written to
 * <root>/.vx/runs/<id>.json */
static bool write_summary(const char *root, const char *mode, cJSON *tasks,
	const struct totals *n, int exit_code)
{
	char *id = run_id();
	cJSON *j = cJSON_CreateObject();
	cJSON_AddNumberToObject(j, "version", SUMMARY_VERSION);
	cJSON_AddStringToObject(j, "vxVersion", VX_VERSION);
	cJSON_AddStringToObject(j, "id", id);
	cJSON_AddStringToObject(j, "root", root);
	add_str(j, "envMode", mode);
	cJSON *e = cJSON_AddObjectToObject(j, "execution");
	char *cmd = command_line();
	cJSON_AddStringToObject(e, "command", cmd);
	free(cmd);
	cJSON_AddNumberToObject(e, "startTime", wall(S.mono0));
	cJSON_AddNumberToObject(e, "endTime", wall(ui_now_ms()));
	cJSON_AddNumberToObject(e, "exitCode", exit_code);
	cJSON_AddNumberToObject(e, "attempted", (double)n->attempted);
	cJSON_AddNumberToObject(e, "cached", (double)n->cached);
	cJSON_AddNumberToObject(e, "failed", (double)n->failed);
	cJSON_AddNumberToObject(e, "success", (double)n->success);
	cJSON_AddNumberToObject(e, "skipped", (double)n->skipped);
	cJSON_AddItemToObject(j, "tasks", tasks);
	char *text = cJSON_Print(j);
	cJSON_Delete(j);

	char *dir = xasprintf("%s/.vx/runs", root);
	char *path = xasprintf("%s/%s.json", dir, id);
	struct atomicw w;
	bool ok = (mkdir(dir, 0777) == 0 || errno == EEXIST) && atomicw_open(&w, path, 0666) == 0;
	if (ok && (atomicw_write(&w, text, strlen(text)) != 0 || atomicw_write(&w, "\n", 1) != 0)) {
		atomicw_abort(&w);
		ok = false;
	} else if (ok) {
		ok = atomicw_commit(&w) == 0;
	}
	if (ok)
		fprintf(stderr, "vx: run summary: %s\n", path);
	else
		err_warn_errno("unable to write the run summary '%s'; fix: make %s writable", path, dir);
	cJSON_free(text);
	free(path);
	free(dir);
	free(id);
	return ok;
}

bool summary_write(const struct run *r, int exit_code)
{
	struct totals n = {0};
	cJSON *tasks = cJSON_CreateArray();
	for (size_t i = 0; i < r->n; i++) {
		const struct rtask *t = &r->t[i];
		cJSON_AddItemToArray(tasks, task_of(r, t));
		if (t->kind == K_GROUP)
			continue;
		bool settled = t->done && t->status != UI_SKIP && t->status != UI_STARTED;
		bool began = settled || (!t->done && t->started);
		n.attempted += began;
		n.cached += settled && t->status == UI_HIT;
		n.failed += settled && t->status == UI_FAIL;
		n.success += settled && t->status != UI_FAIL;
		n.skipped += !began;
	}
	return write_summary(r->root, env_mode(r), tasks, &n, exit_code);
}

bool summary_wanted(void)
{
	return S.argv != NULL;
}

bool summary_write_replayed(const char *root, const struct summary_replayed *t, size_t n,
	int exit_code)
{
	struct totals tot = {0};
	cJSON *tasks = cJSON_CreateArray();
	for (size_t i = 0; i < n; i++) {
		cJSON *j = cJSON_CreateObject();
		const char *hash = strrchr(t[i].id, '#');
		cJSON_AddStringToObject(j, "taskId", t[i].id);
		add_str(j, "task", hash ? hash + 1 : NULL);
		char *pkg = hash ? xstrndup(t[i].id, (size_t)(hash - t[i].id)) : NULL;
		add_str(j, "package", pkg);
		free(pkg);
		cJSON_AddStringToObject(j, "directory", t[i].dir);
		cJSON_AddStringToObject(j, "kind", t[i].kind == 'g' ? "group" : "exec");
		cJSON_AddStringToObject(j, "hash", t[i].key);
		cJSON_AddStringToObject(j, "status", "hit");
		cJSON *c = cJSON_AddObjectToObject(j, "cache");
		cJSON_AddStringToObject(c, "status", "hit");
		cJSON_AddStringToObject(c, "source", t[i].kind == 'g' ? "none" : "replay");
		cJSON_AddBoolToObject(c, "local", t[i].kind != 'g');
		cJSON_AddBoolToObject(c, "remote", false);
		cJSON_AddBoolToObject(c, "cacheable", t[i].kind != 'g');
		cJSON *e = cJSON_AddObjectToObject(j, "execution");
		cJSON_AddNumberToObject(e, "startTime", wall(t[i].started));
		cJSON_AddNumberToObject(e, "endTime", wall(t[i].started + t[i].ms));
		cJSON_AddNumberToObject(e, "durationMs", round(t[i].ms));
		cJSON_AddNumberToObject(e, "exitCode", 0);
		cJSON_AddBoolToObject(j, "sandboxed", t[i].kind == 's');
		cJSON_AddBoolToObject(j, "traced", t[i].kind == 's');
		cJSON *v = cJSON_AddObjectToObject(j, "violations");
		cJSON_AddNumberToObject(v, "count", 0);
		cJSON_AddArrayToObject(v, "records");
		cJSON_AddItemToArray(tasks, j);
		if (t[i].kind != 'g') {
			tot.attempted++;
			tot.cached++;
			tot.success++;
		}
	}
	return write_summary(root, NULL, tasks, &tot, exit_code);
}
