/* graphin.h: reading vx-graph's (or vx-key's) records into memory.
 * graphin_load runs vx-graph (or, with keys set, "vx-graph | vx-key") and
 * collects its records; the caller frees them with graphin_free. */
#ifndef VX_BIN_GRAPHIN_H
#define VX_BIN_GRAPHIN_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

struct graphin {
	cJSON *graph;  /* the graph record */
	cJSON **tasks; /* the task records, dependencies first */
	char **lines;  /* with lines: each task record's line as read (no newline) */
	size_t n;
};

/* names: TASK arguments, or vx-graph's selection options, "--" and the
 * TASKs. keys: pipe through vx-key (--explain with explain).
 * Returns 0, or the exit code to end with after the stage's own message. */
int graphin_load(struct graphin *g, const char *root, char **names, int nnames, bool keys,
	bool explain);
/* The same, calling back as records are read, while the rest are still
 * coming: on_graph(arg, graph record) as soon as that record is read,
 * before the task records (vx run hands it to vx-key meanwhile), and
 * on_task(arg, i, task record, its line or NULL) for each task record
 * once it is g->tasks[i] (vx run sends some to vx-key at once). With
 * lines each task's line is kept too (vx run sends it on as read rather
 * than printing the record again). Either callback may be NULL. */
struct graphin_calls {
	void (*on_graph)(void *arg, const cJSON *graph);
	void (*on_task)(void *arg, size_t i, const cJSON *task, const char *line);
	void *arg;
};
int graphin_load_then(struct graphin *g, const char *root, char **names, int nnames, bool keys,
	bool explain, bool lines, const struct graphin_calls *calls);
void graphin_free(struct graphin *g);
const char *graphin_str(const cJSON *rec, const char *name);

#endif
