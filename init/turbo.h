/* turbo.h: a workspace's turbo.json files read as turbo reads them.
 *
 * turbo_load reads the root turbo.json (v2 "tasks" or v1 "pipeline") and
 * each project's own turbo.json ("extends": ["//"]). turbo_def gives the
 * definition that applies to one task of one project: the root's
 * "project#task" entry, else its "task" entry ("//#task" only for the root
 * project, as turbo 2 runs no root task it was not told of by name), with the
 * project's own entry laid over it key by key (an array holding
 * "$TURBO_EXTENDS$" appends to the one it overrides). Syntax and type errors
 * are one line naming the file, the line or the key and the fix, and make
 * turbo_load return false. What turbo.json says that vx has no counterpart
 * for goes through note() (notes.h).
 */
#ifndef VX_INIT_TURBO_H
#define VX_INIT_TURBO_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "model.h"

struct turbo {
	cJSON *root;          /* the root turbo.json, NULL when there is none */
	cJSON *root_tasks;    /* its "tasks" (or v1 "pipeline") object */
	bool v1;              /* "pipeline" (turbo 1.x): outputs default to dist and build */
	cJSON **pkg;          /* per project (ws->projects order): its turbo.json */
	cJSON **pkg_tasks;
	char **pkg_file;      /* root-relative path of that turbo.json */
	/* set by nx.h instead: per project, each target's command in place of
	 * package.json's scripts; the section name notes give ("targets") */
	cJSON **scripts;
	const char *sect;
	const char *tool; /* "turbo" or "nx", for comments */
	size_t n;         /* the projects the arrays cover */
};

/* Parse file (root-relative) as JSON with comments, as turbo and Nx do: the
 * object, or NULL with *bad set after printing why (naming the line), or
 * NULL with *bad false when there is no such file. */
cJSON *turbo_read_json(int rootfd, const char *file, bool *bad);

/* false after printing why (the caller exits 2). */
bool turbo_load(struct turbo *t, struct workspace *ws, int rootfd);

/* Free what turbo_load read (t may then be loaded again). */
void turbo_free(struct turbo *t);

/* The merged definition of task name in project p (a new object the caller
 * deletes), or NULL when turbo.json defines no such task for p. *from gets
 * the file that defined it last (for notes). */
cJSON *turbo_def(const struct turbo *t, const struct workspace *ws, const struct project *p,
	const char *name, const char **from);

/* Every task name turbo.json may define for p (strings borrowed from the
 * parsed files), NULL-terminated, malloc'd. */
const char **turbo_names(const struct turbo *t, const struct workspace *ws,
	const struct project *p);

#endif
