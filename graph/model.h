/* model.h: the workspace as vx-graph holds it. The workspace owns every
 * project and task; tasks borrow strings and JSON from their project's
 * parsed vx.json, which lives as long as the workspace. */
#ifndef VX_GRAPH_MODEL_H
#define VX_GRAPH_MODEL_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "strmap.h"

struct task;

struct project {
	char *name;
	char *dir;    /* root-relative, "." for the root */
	char *abs;    /* absolute */
	char *config; /* root-relative path of its vx.json, NULL when none */
	char **dep_names; /* package.json dependencies of every kind */
	size_t ndep_names;
	struct project **deps; /* those that are workspace projects */
	size_t ndeps;
	struct task **tasks;
	size_t ntasks;
	cJSON *json; /* its parsed vx.json */
	size_t index;
	/* the raw files, read in parallel before parsing; NULL with the errno */
	char *pkg_text, *vx_text;
	int pkg_errno, vx_errno;
};

enum task_kind { TASK_EXEC, TASK_GROUP, TASK_PERSISTENT };

struct edge {
	struct task *to;
	size_t spelling; /* index into the task's depends_on */
	bool folded;     /* folds into the key (R-6 inputs.tasks, R-8) */
};

struct task {
	char *id; /* "<project>#<name>" */
	const char *name;
	struct project *proj;
	enum task_kind kind;
	const char *command;
	const cJSON *cache;   /* NULL: never cached */
	const cJSON *sandbox; /* NULL: unsandboxed */
	const cJSON *env_mode; /* exec.envMode, or NULL (the root's, R-8a) */
	const cJSON *pass_env; /* exec.passThroughEnv, or NULL */
	const char **depends_on;
	size_t ndepends_on;
	const char **fold_filter; /* cache.inputs.tasks */
	size_t nfold_filter;
	bool has_fold_filter;
	struct edge *edges;
	size_t nedges;
	/* traversal state */
	int mark;
	bool selected; /* asked for, in a project the filters kept */
	bool cut;      /* --only left out a dependency it reaches */
	size_t *keyed; /* K(T) closure without T: sorted project indices of the
			* exec tasks it folds, cached or not */
	size_t nkeyed;
};

struct workspace {
	char *root; /* canonical absolute */
	struct project **projects; /* sorted by dir */
	size_t nprojects;
	struct strmap by_name; /* project name -> project */
	struct strmap by_id;   /* task id -> task */
	int errors;            /* config errors reported so far */
	const char *env_mode;  /* --env-mode: every task's envMode, or NULL */
};

/* One config error line: "prog: <file>: <key>: <msg>; fix: <fix>". */
void diag_config(struct workspace *ws, const char *file, const char *key,
	const char *fix, const char *fmt, ...) __attribute__((format(printf, 5, 6)));

#endif
