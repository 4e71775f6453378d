#include "propose.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "child.h"
#include "digest.h"
#include "err.h"
#include "fileio.h"
#include "learnrec.h"
#include "output.h"
#include "path.h"
#include "strbuf.h"
#include "taskenv.h"
#include "taskreq.h"
#include "vxedit.h"

static char *self_dir(void)
{
	char buf[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
	if (n <= 0)
		err_die_errno(VX_EXIT_FAIL, "unable to find the directory of vx-init");
	buf[n] = '\0';
	*strrchr(buf, '/') = '\0';
	return xstrdup(buf);
}

/* Run argv; its stdout into *out (when out) or onto stderr. The exit
 * status, 128+N for a signal, -1 when it could not start. */
static int run_err(char *const *argv, char **out, char **env, int err_fd)
{
	fflush(stdout);
	fflush(stderr);
	struct spawn_opts o = {.envp = env, .out_fd = out ? 0 : 2, .err_fd = err_fd};
	int fd = -1;
	pid_t pid = child_start(argv, &o, NULL, out ? &fd : NULL);
	if (pid < 0)
		return -1;
	if (out) {
		struct strbuf sb = STRBUF_INIT;
		strbuf_read(&sb, fd, 4096);
		close(fd);
		*out = strbuf_detach(&sb, NULL);
	}
	return child_wait(pid);
}

static int run(char *const *argv, char **out, char **env)
{
	return run_err(argv, out, env, 0);
}

static void put_list(FILE *f, const cJSON *a)
{
	const cJSON *e;
	fputc('[', f);
	cJSON_ArrayForEach(e, a) {
		char *s = cJSON_PrintUnformatted(e);
		fprintf(f, "%s%s", s, e->next ? ", " : "");
		free(s);
	}
	fputc(']', f);
}

/* The block the proposal makes, from the grant table's rows in its order:
 * each row a learner hook fills (learnrec_grant), under its section; an
 * empty list that says the row's default is left out. verify_task: only
 * what the verifying run grants. */
static cJSON *proposed_block(const struct proposal *pr, const cJSON *verify_task)
{
	cJSON *sb = cJSON_CreateObject();
	for (size_t i = 0; i < ngrantkinds; i++) {
		const struct grantkind *g = &grantkinds[i];
		cJSON *v = learnrec_grant(pr, g, verify_task);
		if (!v || (cJSON_IsArray(v) && !cJSON_GetArraySize(v) &&
				  (g->flags & GRANT_EMPTY_DEFAULT))) {
			cJSON_Delete(v);
			continue;
		}
		cJSON *sec = sb;
		if (*g->section) {
			sec = cJSON_GetObjectItemCaseSensitive(sb, g->section);
			if (!sec)
				sec = cJSON_AddObjectToObject(sb, g->section);
		}
		cJSON_AddItemToObject(sec, g->name, v);
	}
	return sb;
}

/* v as the edit spells it on one line: { "k": v, ... }, [a, b], {} */
static void put_value(FILE *f, const cJSON *v)
{
	if (cJSON_IsArray(v)) {
		put_list(f, v);
	} else if (cJSON_IsObject(v) && v->child) {
		const cJSON *e;
		fputs("{ ", f);
		cJSON_ArrayForEach(e, v) {
			fprintf(f, "\"%s\": ", e->string);
			put_value(f, e);
			fputs(e->next ? ", " : " ", f);
		}
		fputc('}', f);
	} else {
		char *s = cJSON_PrintUnformatted(v);
		fputs(s, f);
		free(s);
	}
}

static char *sandbox_text(const struct proposal *g)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		err_die_errno(VX_EXIT_FAIL, "open_memstream");
	cJSON *sb = proposed_block(g, NULL);
	fputs("\"sandbox\": ", f);
	put_value(f, sb);
	cJSON_Delete(sb);
	fclose(f);
	return buf;
}

/* The vx.json text with the sandbox block and the workspace files added to
 * task name (vxedit.h); NULL after one line saying why not. */
static char *edit(const char *file, const char *text, const char *name, const struct proposal *g)
{
	char *sb = sandbox_text(g), *list = NULL;
	if (cJSON_GetArraySize(g->wfiles)) {
		size_t ll = 0;
		FILE *f = open_memstream(&list, &ll);
		if (!f)
			err_die_errno(VX_EXIT_FAIL, "open_memstream");
		put_list(f, g->wfiles);
		fclose(f);
	}
	char *out = vxedit_sandbox(file, text, name, sb, list);
	free(sb);
	free(list);
	return out;
}

struct file_edit {
	char *config; /* root-relative */
	char *text;
};

/* What one task's runs share: the programs, the graph record, the task's
 * launch (vx run's: taskenv.h) and a private directory for the runs. */
struct job {
	const char *sandbox, *report, *root;
	const cJSON *graph;
	const char *id;
	char *proj, *dir;
	char **env;
};

/* The request vx run would hand vx-sandbox, with sandbox as the task's
 * block (taken), at dir/name: its path. */
static char *write_request(const struct job *j, const cJSON *task, cJSON *sandbox,
	const char *name)
{
	cJSON *t = cJSON_Duplicate(task, 1);
	if (cJSON_HasObjectItem(t, "sandbox"))
		cJSON_ReplaceItemInObjectCaseSensitive(t, "sandbox", sandbox);
	else
		cJSON_AddItemToObject(t, "sandbox", sandbox);
	char *text = taskreq_format(j->graph, t, NULL, NULL), *path = path_join(j->dir, name);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 || fileio_write_all(fd, text, strlen(text)) != 0)
		err_die_errno(VX_EXIT_FAIL, "unable to write the request '%s'", path);
	close(fd);
	free(text);
	cJSON_Delete(t);
	return path;
}

/* The learning run (vx-sandbox --learn): its exit status. */
static int learn_run(const struct job *j, const cJSON *task, char **trace, char **upper)
{
	char *req = write_request(j, task, cJSON_CreateObject(), "learn.request");
	char *scratch = path_join(j->dir, "learn");
	*trace = path_join(j->dir, "learn.trace");
	*upper = path_join(scratch, "upper");
	if (mkdir(scratch, 0700) != 0)
		err_die_errno(VX_EXIT_FAIL, "unable to make '%s'", scratch);
	char *argv[] = {(char *)j->sandbox, "--request", req, "--learn", scratch, "--trace", *trace,
		NULL};
	fprintf(stderr, "vx-init: %s: learning run: the workspace under an overlay, every write "
			"kept from it\n", j->id);
	int status = run(argv, NULL, j->env);
	free(req);
	free(scratch);
	return status;
}

/* The verifying run: the block the proposal makes, its write grants only
 * the declared outputs, judged by vx-report as vx run judges it. NULL when
 * it passed and wrote what the learning run wrote, else why not. */
static char *verify_run(const struct job *j, const cJSON *task, const struct proposal *pr,
	const cJSON *learned)
{
	cJSON *sb = proposed_block(pr, task);
	char *req = write_request(j, task, sb, "verify.request");
	char *trace = path_join(j->dir, "verify.trace");
	char *argv[] = {(char *)j->sandbox, "--request", req, "--trace", trace, NULL};
	fprintf(stderr, "vx-init: %s: verifying run: sandboxed with the proposed block\n", j->id);
	int status = run(argv, NULL, j->env);
	char *code = xasprintf("%d", status), *verdict = NULL, *why = NULL;
	char *rargv[] = {(char *)j->report, "--request", req, "--trace", trace, "--exit", code, NULL};
	int judged = status < 0 || status == 125 ? -1 : run(rargv, &verdict, NULL);
	char *save = NULL;
	for (char *line = verdict ? strtok_r(verdict, "\n", &save) : NULL; line && !why;
		line = strtok_r(NULL, "\n", &save)) {
		cJSON *r = cJSON_Parse(line);
		const cJSON *type = cJSON_GetObjectItemCaseSensitive(r, "type");
		const cJSON *l = cJSON_GetObjectItemCaseSensitive(r, "line");
		if (cJSON_IsString(type) && !strcmp(type->valuestring, "violation") && cJSON_IsString(l))
			why = xasprintf("it hit a violation: %s", l->valuestring);
		cJSON_Delete(r);
	}
	if (!why && status != 0)
		why = xasprintf("it failed (exit %d) sandboxed", status);
	if (!why && judged != 0)
		why = xasprintf("vx-report failed it (exit %d)", judged);
	if (!why) {
		cJSON *bad = digest_differ(learned, j->proj);
		int n = cJSON_GetArraySize(bad);
		if (n)
			why = xasprintf("%d output%s differ%s from the learning run's: %s%s", n,
				n == 1 ? "" : "s", n == 1 ? "s" : "", cJSON_GetArrayItem(bad, 0)->valuestring,
				n > 1 ? ", ..." : "");
		cJSON_Delete(bad);
	}
	free(verdict);
	free(code);
	free(trace);
	free(req);
	return why;
}

/* The lines for review: what the proposal names and never grants. */
static void say_review(const char *id, const struct proposal *pr)
{
	const cJSON *e;
	cJSON_ArrayForEach(e, pr->outside)
		fprintf(stderr, "vx-init: %s: wrote '%s', outside its project: not granted; fix: "
				"review it, and add it to allow.write by hand if it is right\n",
			id, e->valuestring);
	cJSON_ArrayForEach(e, pr->undeclared)
		fprintf(stderr, "vx-init: %s: writes '%s', which no cache.outputs glob covers: "
				"proposed for review, not granted in the verifying run; fix: declare it "
				"an output, or drop it from allow.write if the task should not write there\n",
			id, e->valuestring);
	cJSON_ArrayForEach(e, pr->walled)
		fprintf(stderr, "vx-init: %s: read '%s', behind a wall every sandbox keeps: not "
				"granted; fix: review it (allow.gitConfig, or a grant naming it)\n",
			id, e->valuestring);
	cJSON_ArrayForEach(e, pr->linked)
		fprintf(stderr, "vx-init: %s: %s\n", id, e->valuestring);
	cJSON_ArrayForEach(e, pr->net)
		fprintf(stderr, "vx-init: %s: dialled %s directly: not granted; fix: review it, and "
				"add the host to allow.network if it is right\n",
			id, e->valuestring);
	if (pr->unix_sockets)
		fprintf(stderr, "vx-init: %s: made an AF_UNIX socket: not granted; fix: review "
				"which socket (a daemon's may be root on the host), and add "
				"allow.unixSockets by hand if it is right\n",
			id);
}

static bool named(const struct propose_sel *sel, const char *id, const char *name)
{
	for (size_t i = 0; i < sel->ntasks; i++)
		if (!strcmp(sel->tasks[i], id) || !strcmp(sel->tasks[i], name))
			return true;
	return false;
}

/* Is task id among the task records of vx-graph's output text? */
static bool selected(const char *text, const char *id)
{
	char *copy = xstrdup(text), *save = NULL;
	bool yes = false;
	for (char *line = strtok_r(copy, "\n", &save); line && !yes; line = strtok_r(NULL, "\n", &save)) {
		cJSON *r = cJSON_Parse(line);
		const cJSON *t = cJSON_GetObjectItemCaseSensitive(r, "id");
		yes = cJSON_IsString(t) && !strcmp(t->valuestring, id);
		cJSON_Delete(r);
	}
	free(copy);
	return yes;
}

/* Learn, then verify, one task: its proposal in *pr; 0, or 1 after the
 * line saying why it is not verified. */
static int one_task(struct job *j, const cJSON *task, struct proposal *pr)
{
	const char *tmp = getenv("TMPDIR");
	j->dir = xasprintf("%s/vx-init-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(j->dir))
		err_die_errno(VX_EXIT_FAIL, "unable to make a private directory for %s", j->id);
	char *trace = NULL, *upper = NULL, *why = NULL;
	int status = learn_run(j, task, &trace, &upper), rc = 0;
	if (!learnrec_read(trace, j->root, j->proj, j->graph, task, pr) || !pr->complete || status == 125 ||
		status < 0) {
		fprintf(stderr, "vx-init: %s: the learning run could not be made (exit %d; above); "
				"fix: see vx-sandbox's line\n", j->id, status);
		rc = 1;
	} else {
		fprintf(stderr, "vx-init: %s: learned in 1 run\n", j->id);
		say_review(j->id, pr);
		if (status != 0) {
			why = xasprintf("it failed (exit %d) in the learning run, with the whole "
					"workspace readable; fix: run it by hand: what it needs from a "
					"dependency not run (--only), a network host or a tool outside the "
					"workspace is not learned", status);
		} else if (cJSON_GetArraySize(pr->undeclared)) {
			why = xasprintf("it writes '%s', which no cache.outputs glob covers, and the "
					"verifying run grants only declared outputs (the sources stay as "
					"they are)", cJSON_GetArrayItem(pr->undeclared, 0)->valuestring);
		} else {
			cJSON *learned = digest_layer(upper, j->root, j->proj, pr->write);
			why = verify_run(j, task, pr, learned);
			if (!why)
				fprintf(stderr, "vx-init: %s: verified: the proposed block passes with no "
						"violation, and its %d output file%s match%s the learning run's\n",
					j->id, cJSON_GetArraySize(learned),
					cJSON_GetArraySize(learned) == 1 ? "" : "s",
					cJSON_GetArraySize(learned) == 1 ? "es" : "");
			cJSON_Delete(learned);
		}
		if (why) {
			fprintf(stderr, "vx-init: %s: not verified: %s\n", j->id, why);
			rc = 1;
		}
	}
	free(why);
	free(trace);
	free(upper);
	digest_rm(j->dir);
	free(j->dir);
	j->dir = NULL;
	return rc;
}

int propose_run(const char *root, int rootfd, const struct propose_sel *sel)
{
	char *dir = self_dir();
	char *graph = xasprintf("%s/vx-graph", dir), *sandbox = xasprintf("%s/vx-sandbox", dir);
	char *report = xasprintf("%s/vx-report", dir);
	char *out = NULL;
	/* the selection as vx run passes it to vx-graph */
	char **gargv = xcalloc(5 + 2 * sel->nfilters + sel->ntasks, sizeof(char *));
	size_t ga = 0;
	gargv[ga++] = graph;
	gargv[ga++] = "--root";
	gargv[ga++] = (char *)root;
	for (size_t i = 0; i < sel->nfilters; i++) {
		gargv[ga++] = "--filter";
		gargv[ga++] = sel->filters[i];
	}
	for (size_t i = 0; i < sel->ntasks; i++)
		gargv[ga++] = sel->tasks[i];
	int grc = run(gargv, &out, NULL);
	/* --only: which tasks; their records come from the whole graph, where
	 * a task cut from its dependencies keeps its cache (its outputs) */
	char *only = NULL;
	if (grc == 0 && sel->only) {
		int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
		gargv[ga++] = "--only";
		grc = run_err(gargv, &only, NULL, null);
		close(null);
	}
	free(gargv);
	if (grc != 0) {
		free(out);
		free(only);
		err_warn("vx-graph refused the workspace or the selection (above); fix: correct "
			 "the vx.json files or the task names, or run vx init first");
		free(graph);
		free(sandbox);
		free(report);
		free(dir);
		return VX_EXIT_USAGE;
	}

	struct file_edit *edits = NULL;
	size_t nedits = 0;
	int rc = 0;
	cJSON *grec = NULL;
	char *save = NULL;
	for (char *line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		cJSON *r = cJSON_Parse(line);
		const cJSON *type = cJSON_GetObjectItemCaseSensitive(r, "type");
		const cJSON *kind = cJSON_GetObjectItemCaseSensitive(r, "kind");
		if (cJSON_IsString(type) && !strcmp(type->valuestring, "graph") && !grec) {
			grec = r;
			continue;
		}
		/* a persistent task never (it does not end), a group has nothing to run */
		if (!cJSON_IsString(type) || strcmp(type->valuestring, "task") != 0 ||
			!cJSON_IsString(kind) || strcmp(kind->valuestring, "exec") != 0) {
			cJSON_Delete(r);
			continue;
		}
		const char *id = cJSON_GetObjectItemCaseSensitive(r, "id")->valuestring;
		const char *name = cJSON_GetObjectItemCaseSensitive(r, "name")->valuestring;
		const char *pdir = cJSON_GetObjectItemCaseSensitive(r, "dir")->valuestring;
		const cJSON *config = cJSON_GetObjectItemCaseSensitive(r, "config");
		bool cached = cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(r, "cache"));
		/* an uncached task only by name: it may rewrite sources (lint --fix) */
		if ((!cached && !named(sel, id, name)) || (only && !selected(only, id))) {
			cJSON_Delete(r);
			continue;
		}
		if (cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(r, "sandbox")) || !cJSON_IsString(config)) {
			fprintf(stderr, "vx-init: %s: has a sandbox block already; left as it is\n", id);
			cJSON_Delete(r);
			continue;
		}
		/* what vx run hands it: its environment policy (R-8a) and
		 * node_modules/.bin of the project and the root first on PATH */
		struct job j = {.sandbox = sandbox, .report = report, .root = root, .graph = grec,
			.id = id, .proj = path_join(root, pdir)};
		struct taskenv te;
		taskenv_of(r, &te);
		char *pathvar = taskenv_path(root, j.proj);
		j.env = taskenv_environ(&te, pathvar);
		struct proposal pr;
		rc |= one_task(&j, r, &pr);
		/* every task of one vx.json goes into one edit of it */
		struct file_edit *fe = NULL;
		for (size_t i = 0; i < nedits; i++)
			if (strcmp(edits[i].config, config->valuestring) == 0)
				fe = &edits[i];
		if (!fe) {
			edits = xrealloc(edits, (nedits + 1) * sizeof(*edits));
			fe = &edits[nedits++];
			fe->config = xstrdup(config->valuestring);
			fe->text = fileio_read_at(rootfd, fe->config, NULL);
		}
		char *next = fe->text && pr.complete ? edit(fe->config, fe->text, name, &pr) : NULL;
		if (!fe->text)
			err_warn("%s: (file): unable to read: %s; fix: make it readable", fe->config,
				strerror(errno));
		if (next) {
			free(fe->text);
			fe->text = next;
		} else {
			rc = 1;
		}
		learnrec_free(&pr);
		free(j.proj);
		free(j.env);
		free(pathvar);
		cJSON_Delete(r);
	}
	for (size_t i = 0; i < nedits; i++) {
		if (edits[i].text && output_diff(rootfd, edits[i].config, edits[i].text) != 0)
			rc = 1;
		free(edits[i].text);
		free(edits[i].config);
	}
	free(edits);
	cJSON_Delete(grec);
	free(out);
	free(only);
	free(graph);
	free(sandbox);
	free(report);
	free(dir);
	return rc ? VX_EXIT_FAIL : 0;
}
