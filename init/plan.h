/* plan.h: the vx.json each project gets, from turbo.json and the projects'
 * package.json scripts, with turbo's meaning.
 *
 * A task turbo.json defines for a project that has a script of that name
 * becomes an exec task running the script's text (or "<pm> run NAME" when
 * pre/post scripts or npm_* variables make the text alone wrong). One it
 * defines for a project without the script is a no-op in turbo; when a task
 * that runs depends on it and it has dependsOn of its own, it becomes a
 * group, so the order through it holds. dependsOn, inputs, outputs, env,
 * globalEnv, globalDependencies, passThroughEnv, globalPassThroughEnv,
 * envMode, cache and persistent map to vx's keys (R-8a); what
 * has no counterpart is a note (notes.h) and, where a task was carried over
 * approximately, a comment above it in the vx.json. */
#ifndef VX_INIT_PLAN_H
#define VX_INIT_PLAN_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "model.h"
#include "turbo.h"

struct otask {
	const char *name;
	bool group, persistent, cached;
	char *command;
	cJSON *depends;              /* strings, or NULL */
	cJSON *files, *wfiles, *env, *runtime; /* cache.inputs, NULL when absent */
	cJSON *outputs;              /* cache.outputs.files, NULL when absent */
	cJSON *pass;                 /* exec.passThroughEnv, NULL when absent */
	char **comments;
	size_t ncomments;
	/* planning state */
	cJSON *def;
	const char *from;
	bool runs, reached;
};

struct oproj {
	struct project *p;
	char *file;       /* root-relative path of its vx.json */
	char **sources;   /* the files it was made from, for its header */
	size_t nsources;
	struct otask **tasks;
	size_t ntasks;
	/* the root's only: turbo's envMode and globalPassThroughEnv */
	const char *env_mode;
	cJSON *pass;
};

struct plan {
	struct oproj *projs; /* ws->projects order */
	size_t n;
};

/* false after printing why (a turbo.json of the wrong shape: exit 2). */
bool plan_build(struct plan *pl, struct workspace *ws, const struct turbo *t, int rootfd);

#endif
