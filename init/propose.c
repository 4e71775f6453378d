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
#include "err.h"
#include "fileio.h"
#include "output.h"
#include "path.h"
#include "strbuf.h"
#include "taskenv.h"
#include "vxedit.h"

/* a task's command runs this many times at most, each with what the last
 * run was denied */
enum { MAX_ROUNDS = 8 };

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
static int run(char *const *argv, char **out, char **env)
{
	fflush(stdout);
	fflush(stderr);
	struct spawn_opts o = {.envp = env, .out_fd = out ? 0 : 2};
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

struct grants {
	cJSON *read, *write, *wfiles;
	cJSON *outside; /* writes outside the project: named, not granted */
	bool unix_sockets; /* it made an AF_UNIX socket: named, never granted */
};

static bool add_new(cJSON *arr, const char *s)
{
	const cJSON *e;
	cJSON_ArrayForEach(e, arr) if (strcmp(e->valuestring, s) == 0) return false;
	cJSON_AddItemToArray(arr, cJSON_CreateString(s));
	return true;
}

/* The first segment of a project-relative path ("src/a.ts" -> "src"),
 * NULL for a top-level file. */
static char *top_dir(const char *rel)
{
	const char *slash = strchr(rel, '/');
	return slash ? xstrndup(rel, (size_t)(slash - rel)) : NULL;
}

/* Read one trace; add a grant per denied access. How many were new. */
static int learn(const char *trace, const char *root, const char *proj, struct grants *g)
{
	char *text = fileio_read_at(AT_FDCWD, trace, NULL);
	if (!text)
		return 0;
	int added = 0;
	char *save = NULL;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		cJSON *r = cJSON_Parse(line);
		const cJSON *acc = cJSON_GetObjectItemCaseSensitive(r, "access");
		const cJSON *res = cJSON_GetObjectItemCaseSensitive(r, "resolved");
		const cJSON *op = cJSON_GetObjectItemCaseSensitive(r, "op");
		const cJSON *en = cJSON_GetObjectItemCaseSensitive(r, "errno");
		bool failed = cJSON_IsString(en);
		if (!cJSON_IsString(acc) || !cJSON_IsString(res) || !cJSON_IsString(op) ||
			cJSON_GetObjectItemCaseSensitive(r, "resolved_hex")) {
			cJSON_Delete(r);
			continue;
		}
		const char *path = res->valuestring;
		if (strcmp(acc->valuestring, "unix") == 0) {
			/* named, not granted: a unix socket may be the Docker
			 * daemon's, root on the host */
			g->unix_sockets = true;
		} else if (strcmp(acc->valuestring, "read") == 0 && failed) {
			struct stat st;
			/* a probe for a file the host does not have either needs no grant */
			if (lstat(path, &st) == 0) {
				char *rel = path_relative(proj, path);
				if (path_is_within(proj, path)) {
					char *top = top_dir(rel);
					added += add_new(g->read, top ? top : rel);
					free(top);
				} else if (path_is_within(root, path)) {
					added += add_new(g->read, rel);
					char *wrel = path_relative(root, path);
					add_new(g->wfiles, wrel);
					free(wrel);
				}
				free(rel);
			}
		} else if (strcmp(acc->valuestring, "write") == 0 && failed &&
			   !path_is_within(proj, path)) {
			/* never granted without review: the next run would let a
			 * hostile script write there (a sibling package, ~/.bashrc) */
			add_new(g->outside, path);
		} else if (strcmp(acc->valuestring, "write") == 0 && failed) {
			char *rel = path_relative(proj, path);
			char *top = top_dir(rel);
			char *grant;
			if (top)
				grant = xasprintf("%s/", top);
			else if (strcmp(op->valuestring, "mkdir") == 0)
				grant = xasprintf("%s/", rel);
			else
				grant = xstrdup(rel);
			added += add_new(g->write, grant);
			free(grant);
			free(top);
			free(rel);
		}
		cJSON_Delete(r);
	}
	free(text);
	return added;
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

static char *sandbox_text(const struct grants *g)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		err_die_errno(VX_EXIT_FAIL, "open_memstream");
	bool r = cJSON_GetArraySize(g->read), w = cJSON_GetArraySize(g->write);
	if (!r && !w) {
		fputs("\"sandbox\": {}", f);
	} else {
		fputs("\"sandbox\": { \"allow\": { ", f);
		const char *sep = "";
		if (r) {
			fputs("\"read\": ", f);
			put_list(f, g->read);
			sep = ", ";
		}
		if (w) {
			fprintf(f, "%s\"write\": ", sep);
			put_list(f, g->write);
			sep = ", ";
		}
		fputs(" } }", f);
	}
	fclose(f);
	return buf;
}

/* The vx.json text with the sandbox block and the workspace files added to
 * task name (vxedit.h); NULL after one line saying why not. */
static char *edit(const char *file, const char *text, const char *name, const struct grants *g)
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

int propose_run(const char *root, int rootfd)
{
	char *dir = self_dir();
	char *graph = xasprintf("%s/vx-graph", dir), *sandbox = xasprintf("%s/vx-sandbox", dir);
	char *out = NULL;
	char *gargv[] = {graph, "--root", (char *)root, NULL};
	if (run(gargv, &out, NULL) != 0) {
		free(out);
		err_warn("vx-graph refused the workspace (above); fix: correct the vx.json files, or "
			 "run vx init first");
		return VX_EXIT_USAGE;
	}
	char trace[] = "/tmp/vx-init-trace-XXXXXX";
	int tfd = mkstemp(trace);
	if (tfd < 0)
		err_die_errno(VX_EXIT_FAIL, "unable to make a trace file");
	close(tfd);

	struct file_edit *edits = NULL;
	size_t nedits = 0;
	int rc = 0;
	char *save = NULL;
	for (char *line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		cJSON *r = cJSON_Parse(line);
		const cJSON *type = cJSON_GetObjectItemCaseSensitive(r, "type");
		const cJSON *kind = cJSON_GetObjectItemCaseSensitive(r, "kind");
		if (!cJSON_IsString(type) || strcmp(type->valuestring, "task") != 0 ||
			!cJSON_IsString(kind) || strcmp(kind->valuestring, "exec") != 0) {
			cJSON_Delete(r);
			continue;
		}
		const char *id = cJSON_GetObjectItemCaseSensitive(r, "id")->valuestring;
		const char *name = cJSON_GetObjectItemCaseSensitive(r, "name")->valuestring;
		const char *pdir = cJSON_GetObjectItemCaseSensitive(r, "dir")->valuestring;
		const char *cmd = cJSON_GetObjectItemCaseSensitive(r, "command")->valuestring;
		const cJSON *config = cJSON_GetObjectItemCaseSensitive(r, "config");
		if (cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(r, "sandbox")) || !cJSON_IsString(config)) {
			fprintf(stderr, "vx-init: %s: has a sandbox block already; left as it is\n", id);
			cJSON_Delete(r);
			continue;
		}
		char *proj = path_join(root, pdir);
		/* what vx run hands it: its environment policy (R-8a) and
		 * node_modules/.bin of the project and the root first on PATH */
		struct taskenv te;
		taskenv_of(r, &te);
		char *pathvar = taskenv_path(root, proj);
		char **env = taskenv_environ(&te, pathvar);
		struct grants g = {cJSON_CreateArray(), cJSON_CreateArray(), cJSON_CreateArray(),
			cJSON_CreateArray(), false};
		int status = -1, round;
		for (round = 1; round <= MAX_ROUNDS; round++) {
			char **argv = xcalloc(16 + 2 * ((size_t)cJSON_GetArraySize(g.read) +
						   (size_t)cJSON_GetArraySize(g.write)),
				sizeof(char *));
			size_t a = 0;
			argv[a++] = sandbox;
			argv[a++] = "--root";
			argv[a++] = (char *)root;
			argv[a++] = "--project";
			argv[a++] = proj;
			const cJSON *e;
			cJSON_ArrayForEach(e, g.read) {
				argv[a++] = "--read";
				argv[a++] = e->valuestring;
			}
			cJSON_ArrayForEach(e, g.write) {
				argv[a++] = "--write";
				argv[a++] = e->valuestring;
			}
			argv[a++] = "--trace";
			argv[a++] = trace;
			argv[a++] = "--";
			argv[a++] = "/bin/sh";
			argv[a++] = "-c";
			argv[a++] = (char *)cmd;
			fprintf(stderr, "vx-init: %s: run %d under the tracer\n", id, round);
			status = run(argv, NULL, env);
			free(argv);
			if (status == 125 || status < 0)
				break;
			if (learn(trace, root, proj, &g) == 0)
				break;
		}
		const cJSON *w;
		cJSON_ArrayForEach(w, g.outside)
			fprintf(stderr, "vx-init: %s: wrote '%s', outside its project: not granted; fix: "
					"review it, and add it to allow.write by hand if it is right\n",
				id, w->valuestring);
		if (g.unix_sockets)
			fprintf(stderr, "vx-init: %s: made an AF_UNIX socket: not granted; fix: review "
					"which socket (a daemon's may be root on the host), and add "
					"allow.unixSockets by hand if it is right\n",
				id);
		if (status != 0) {
			fprintf(stderr, "vx-init: %s: failed (exit %d) with the grants found; fix: run it "
					"by hand; a network host or a tool outside the workspace is not found "
					"this way\n",
				id, status);
			rc = VX_EXIT_FAIL;
		}
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
		char *next = fe->text ? edit(fe->config, fe->text, name, &g) : NULL;
		if (!fe->text)
			err_warn("%s: (file): unable to read: %s; fix: make it readable", fe->config,
				strerror(errno));
		if (next) {
			free(fe->text);
			fe->text = next;
		} else {
			rc = VX_EXIT_FAIL;
		}
		cJSON_Delete(g.read);
		cJSON_Delete(g.write);
		cJSON_Delete(g.wfiles);
		cJSON_Delete(g.outside);
		free(proj);
		free(env);
		free(pathvar);
		cJSON_Delete(r);
	}
	unlink(trace);
	for (size_t i = 0; i < nedits; i++) {
		if (edits[i].text && output_diff(rootfd, edits[i].config, edits[i].text) != 0)
			rc = VX_EXIT_FAIL;
		free(edits[i].text);
		free(edits[i].config);
	}
	free(edits);
	free(out);
	free(graph);
	free(sandbox);
	free(dir);
	return rc;
}
