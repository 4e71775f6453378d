#include "graphin.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "err.h"
#include "jsonl.h"
#include "proc.h"
#include "stage.h"

const char *graphin_str(const cJSON *rec, const char *name)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(rec, name);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static int wait_status(pid_t pid)
{
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return VX_EXIT_FAIL;
	return err_wait_status(st);
}

int graphin_load(struct graphin *g, const char *root, char **names, int nnames, bool keys,
	bool explain)
{
	return graphin_load_then(g, root, names, nnames, keys, explain, false, NULL);
}

int graphin_load_then(struct graphin *g, const char *root, char **names, int nnames, bool keys,
	bool explain, bool lines, const struct graphin_calls *calls)
{
	memset(g, 0, sizeof(*g));
	char **argv = xcalloc((size_t)nnames + 5, sizeof(char *));
	int a = 0;
	char *graph_prog = proc_stage_path("vx-graph");
	argv[a++] = graph_prog;
	if (root && *root) { /* an empty VX_ROOT or --root is none */
		argv[a++] = "--root";
		argv[a++] = (char *)root;
	}
	/* vx-graph takes options anywhere: a task name spelled like one
	 * ("--root=x", a task "-x") must stay a name. A caller handing
	 * selection options (vx run's --filter, --only) ends them with its
	 * own "--" */
	bool sep = false;
	for (int i = 0; i < nnames && !sep; i++)
		sep = strcmp(names[i], "--") == 0;
	if (!sep)
		argv[a++] = "--";
	for (int i = 0; i < nnames; i++)
		argv[a++] = names[i];
	argv[a] = NULL;

	struct spawn_opts o = {.null_stdin = true};
	int gout;
	pid_t gpid = proc_spawn(argv, &o, NULL, &gout);
	free(argv);
	if (gpid < 0) {
		err_warn_errno("unable to run '%s'", graph_prog);
		free(graph_prog);
		return VX_EXIT_FAIL;
	}
	free(graph_prog);

	int in = gout;
	pid_t kpid = -1;
	if (keys) {
		char *key_prog = proc_stage_path("vx-key");
		char *kargv[] = {key_prog, explain ? "--explain" : NULL, NULL};
		/* vx-key reads vx-graph's output directly: a real pipe between stages */
		int kout;
		struct spawn_opts ko = {.in_fd = gout};
		kpid = proc_spawn(kargv, &ko, NULL, &kout);
		close(gout);
		if (kpid < 0) {
			err_warn_errno("unable to run '%s'", key_prog);
			free(key_prog);
			wait_status(gpid);
			return VX_EXIT_FAIL;
		}
		free(key_prog);
		in = kout;
	}

	/* the last stage of the pipe is the one read: one channel (stage.h) */
	struct stage st;
	stage_attach(&st, keys ? "vx-key" : "vx-graph", keys ? kpid : gpid, -1, in);
	st.keep_text = lines;
	cJSON *rec;
	int rr, bad = 0;
	while ((rr = stage_wait(&st, &rec, -1)) != -1) {
		if (rr != 1) {
			bad = 1;
			continue;
		}
		const char *type = graphin_str(rec, "type");
		if (type && strcmp(type, "graph") == 0 && !g->graph) {
			g->graph = rec;
			if (calls && calls->on_graph)
				calls->on_graph(calls->arg, rec);
		} else if (type && strcmp(type, "task") == 0) {
			g->tasks = xrealloc(g->tasks, (g->n + 1) * sizeof(*g->tasks));
			if (lines) {
				g->lines = xrealloc(g->lines, (g->n + 1) * sizeof(*g->lines));
				g->lines[g->n] = strbuf_detach(&st.text, NULL);
			}
			g->tasks[g->n++] = rec;
			if (calls && calls->on_task)
				calls->on_task(calls->arg, g->n - 1, rec, lines ? g->lines[g->n - 1] : NULL);
		} else {
			cJSON_Delete(rec);
		}
	}
	int last = stage_finish(&st);
	int gst = keys ? wait_status(gpid) : last;
	int kst = keys ? last : 0;
	if (gst != 0)
		return gst == VX_EXIT_USAGE ? VX_EXIT_USAGE : VX_EXIT_FAIL;
	if (kst != 0 || bad)
		return kst == VX_EXIT_USAGE ? VX_EXIT_USAGE : VX_EXIT_FAIL;
	if (!g->graph) {
		err_warn("vx-graph printed no graph record");
		return VX_EXIT_FAIL;
	}
	return 0;
}

void graphin_free(struct graphin *g)
{
	cJSON_Delete(g->graph);
	for (size_t i = 0; i < g->n; i++) {
		cJSON_Delete(g->tasks[i]);
		if (g->lines)
			free(g->lines[i]);
	}
	free(g->tasks);
	free(g->lines);
	memset(g, 0, sizeof(*g));
}
