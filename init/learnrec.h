/* learnrec.h: the sandbox block one learning run calls for (vx init
 * --sandbox, issue 35).
 *
 * learnrec_read reads the trace of vx-sandbox --learn (every access the
 * baseline would refuse, the successful ones too: sandbox/learn.h) and
 * proposes the narrowest block, judging each path on the host, whose tree
 * the run left untouched:
 *   a read inside the project of a file the host has: its top directory
 *     ("src") or the top-level file; the project itself and its ancestors
 *     (a stat of the cwd, a walk up for config) and what the task made
 *     itself (its outputs) are no grant;
 *   a read outside the project, inside the workspace: allow.read spelled
 *     from the project ("../../tsconfig.base.json") and the same path,
 *     root-relative, in cache.inputs.workspaceFiles (R-21a: the key answers
 *     for it); a directory listed there: "dir", keyed as everything under it;
 *     inside a workspace package whose cached task the key folds already
 *     (the task's "keyed", K(T)): that package's top directory read
 *     ("../util/dist"), no second key; inside a
 *     linked package withheld from a cached task: its top directory,
 *     keyed the same way, and a hint naming the dependsOn edge;
 *   a write inside the project: its top directory ("dist/"), or the
 *     top-level file; flagged when no cache.outputs glob covers it;
 *   a write outside the project, a read the run's walls refused (.git,
 *     .vx), a unix socket, a direct connect: named for review, never
 *     granted.
 * Every list is deduplicated, reads under a write grant dropped. */
#ifndef VX_INIT_LEARNREC_H
#define VX_INIT_LEARNREC_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "grantkind.h"

struct proposal {
	cJSON *read, *write, *wfiles; /* strings, as the block spells them */
	cJSON *undeclared;            /* write grants no cache.outputs glob covers */
	cJSON *outside;               /* writes outside the project: never granted */
	cJSON *walled;                /* reads the run's walls refused */
	cJSON *linked;                /* hint lines: a withheld package read */
	cJSON *net;                   /* "addr:port" a direct connect tried */
	bool unix_sockets;
	bool complete;                /* the trace had its end record */
};

/* graph, task: vx-graph's records (the projects; the task's keyed, cache
 * inputs and outputs). false when the trace is unreadable. */
bool learnrec_read(const char *trace, const char *root, const char *proj, const cJSON *graph,
	const cJSON *task, struct proposal *pr);
void learnrec_free(struct proposal *pr);
/* The learner hooks: the value proposed for grant row g (a new item the
 * caller owns), or NULL when no hook learns g or it learned nothing.
 * verify_task non-NULL: only what the verifying run grants (a write grant
 * its cache.outputs cover). propose.c builds the block from the table's
 * rows through this, so a new path-kind grant is its row plus a hook. */
cJSON *learnrec_grant(const struct proposal *pr, const struct grantkind *g,
	const cJSON *verify_task);
/* Is this write grant (as the block spells it) one the task's
 * cache.outputs cover? */
bool learnrec_declared(const cJSON *task, const char *grant);

#endif
