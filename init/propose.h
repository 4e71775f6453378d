/* propose.h: vx init --sandbox, the narrowest sandbox block each task needs,
 * learned in one run and verified in a second (issue 35).
 *
 * propose_run folds the workspace with vx-graph (beside this program),
 * passing it the selection as vx run does (TASK..., --filter, --only), and
 * takes each exec task without a sandbox block, dependencies first: every
 * cached one, an uncached one only when a TASK names it (it may rewrite
 * sources: lint --fix), a persistent one never. Each runs through the
 * request vx run would hand vx-sandbox (same environment, PATH and cwd:
 * taskenv.h, taskreq.h):
 *   1. once with --learn (sandbox/learn.h): the workspace readable under an
 *      overlay that keeps every write in a scratch layer, so the real tree
 *      is untouched whatever the task does, and every access the baseline
 *      would refuse recorded; learnrec.h makes the block from that trace;
 *   2. once with the block (its write grants only the declared outputs, so
 *      no source is rewritten), the trace judged by vx-report as vx run
 *      judges it, and the files it wrote compared with the learning run's
 *      (digest.h). One line says "verified", or why not.
 * What the learning run saw and no grant may give (a write outside the
 * project, a unix socket, a wall) is one line each for review. The blocks
 * are printed as a unified diff of each vx.json (vxedit.h splices them);
 * nothing is written but the verified tasks' outputs, as a build writes
 * them. */
#ifndef VX_INIT_PROPOSE_H
#define VX_INIT_PROPOSE_H

#include <stdbool.h>
#include <stddef.h>

struct propose_sel {
	char **tasks;   /* TASK arguments, names or ids */
	size_t ntasks;
	char **filters; /* --filter values */
	size_t nfilters;
	bool only;
};

/* 0, 1 after the lines saying which task failed or is not verified, 2
 * when vx-graph refused the workspace or the selection. */
int propose_run(const char *root, int rootfd, const struct propose_sel *sel);

#endif
